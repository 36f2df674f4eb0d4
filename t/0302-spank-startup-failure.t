#!/bin/bash
# Issue 18: a watch that cannot start says so in the job's own output, once,
# with the reason, and the job runs as without mpiwatch.  The plugin line
# points bindir= at a folder without the helpers; a 3-node MPI job (srun and
# sbatch) completes with its own output and exit status, and its output holds
# exactly one "not watched" line naming the reason.  And off_partitions=: a
# partition the site turned off is not watched (said only to users who ask);
# and a munged out of reach is said, not a silent unwatched job.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"

plan no_plan
lab_require 3
conf=$MW_LAB_DIR/plugstack.conf.d/mpiwatch.conf
[ -r "$conf" ] || BAIL_OUT "the lab has no mpiwatch plugin line ($conf)"
conf_saved=$(cat "$conf")
tap_cleanup "printf '%s\n' '$conf_saved' > '$conf'"
printf '%s bindir=/nonexistent-mpiwatch\n' "$conf_saved" >"$conf"
prog=$(lab_prog openmpi col_steady)
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"

out=$(cd "$dir" && lab_as mwuser1 timeout 120 srun --mpiwatch=timeout=2 -N3 -n3 --mpi=pmix "$prog" 1 2>&1)
st=$?
is "$st" 0 "srun: the job's exit status is its own (0)"
like "$out" "steady done" "srun: the program's output is intact"
is "$(grep -c 'mpiwatch: not watching job' <<<"$out")" 1 "srun: one 'not watched' line for 3 nodes"
like "$out" "mpiwatch: not watching job [0-9]+: agent/collector not found in /nonexistent-mpiwatch \\(node n1\\)" \
    "srun: the line names the reason and the node"

jid=$(lab_sbatch mwuser1 -N3 -n3 --mpiwatch=timeout=2 -o "$dir/job.out" --wrap "srun --mpi=pmix $prog 1")
tap_cleanup "scancel $jid 2>/dev/null"
is "$(lab_job_wait "$jid" 180)" COMPLETED "sbatch: the job completes"
like "$(cat "$dir/job.out")" "steady done" "sbatch: the program's output is intact"
cmp_ok "$(grep -c 'mpiwatch: not watching job' "$dir/job.out")" -le 2 \
    "sbatch: at most one line per step (batch step and srun step)"
like "$(cat "$dir/job.out")" "not watching job $jid: agent/collector not found" "sbatch: the job's output says why"

# --- off_partitions=: the site turns the watch off for one partition
printf '%s default=on off_partitions=other,%s\n' "$conf_saved" "$MW_LAB_PARTITION" >"$conf"
out=$(cd "$dir" && lab_as mwuser1 timeout 120 srun -N2 -n2 sh -c 'echo "preload=${LD_PRELOAD:-none}"' 2>&1)
is "$out" "preload=none
preload=none" "off_partitions: a job in that partition is not watched, and nothing is said"
out=$(cd "$dir" && lab_as mwuser1 timeout 120 srun --mpiwatch -N2 -n2 sh -c 'echo "preload=${LD_PRELOAD:-none}"' 2>&1)
like "$out" "mpiwatch: not watching job [0-9]+: the site turned mpiwatch off for partition $MW_LAB_PARTITION" \
    "off_partitions: a user who asks with --mpiwatch is told why, once"
is "$(grep -c 'not watching' <<<"$out")" 1 "off_partitions: one line"
printf '%s default=on off_partitions=other\n' "$conf_saved" >"$conf"
out=$(cd "$dir" && lab_as mwuser1 timeout 120 srun -N1 -n1 sh -c 'echo "preload=${LD_PRELOAD:-none}"' 2>&1)
like "$out" "preload=.*libmpiwatch.so" "off_partitions: other partitions are watched"

# --- munged out of reach: the agents could not prove who they are, so the
# step is not watched, and the job's output says why
printf '%s munge_socket=/nonexistent/munge.socket\n' "$(sed 's/ munge_socket=[^ ]*//' <<<"$conf_saved")" >"$conf"
out=$(cd "$dir" && lab_as mwuser1 timeout 120 srun --mpiwatch -N2 -n2 sh -c 'echo "preload=${LD_PRELOAD:-none}"' 2>&1)
like "$out" "mpiwatch: not watching job [0-9]+: MUNGE.*nonexistent.*munge_socket= in plugstack.conf" \
    "no MUNGE: the job's output says the step is not watched, and why"
is "$(grep -c '^preload=none$' <<<"$out")" 2 "no MUNGE: the monitor is not injected, the tasks run"

# --- a helper that exits at start-up: a report folder the collector cannot
# make (the plugin resolved and accepted the setting; the collector finds
# out).  The job's output says so once, with the collector's own reason,
# and the job runs as without mpiwatch.
printf '%s\n' "$conf_saved" >"$conf"
out=$(cd "$dir" && lab_as mwuser1 timeout 120 srun --mpiwatch=dir=/proc/mpiwatch-nowhere -N2 -n2 --mpi=pmix "$prog" 1 2>&1)
st=$?
is "$st" 0 "collector fails at start-up: the job's exit status is its own"
like "$out" "steady done" "collector fails at start-up: the program's output is intact"
is "$(grep -c 'mpiwatch: not watching job' <<<"$out")" 1 "collector fails at start-up: one 'not watching' line"
like "$out" "mpiwatch: not watching job [0-9]+: mpiwatch-collector exited at start-up: .*cannot create /proc/mpiwatch-nowhere" \
    "collector fails at start-up: the line gives the collector's reason"
done_testing
