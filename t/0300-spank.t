#!/bin/bash
# The SPANK plugin on the real lab: --mpiwatch with sbatch/salloc/srun,
# injection into every rank, one collector per job and one agent per node,
# nothing left behind, default=on, bad values refused, user's LD_PRELOAD kept.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"

plan 28
lab_require 3
hold=$(lab_prog openmpi sp_hold)
lib=$MW_LAB_REPO/build/lib/libmpiwatch.so
conf=$MW_LAB_DIR/plugstack.conf.d/mpiwatch.conf
[ -r "$conf" ] || BAIL_OUT "the lab has no mpiwatch plugin line ($conf): build first, then start the lab"
conf_saved=$(cat "$conf")
tap_cleanup "printf '%s\n' '$conf_saved' > '$conf'"
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"

# Every process of mpiwatch that belongs to job $1 (all nodes share the pid
# namespace, so one pgrep sees them all).
helpers() { pgrep -u mwuser1 -f "mpiwatch-$1 --job $2( |\$)" | sort; }
count() { sed '/^$/d' | wc -l; }
no_helpers() { [ -z "$(helpers '(agent|collector)' "$1")" ]; }
# Wait until N pid files TAG.* exist in $dir/pids.
has_pids() { [ "$(ls "$dir/pids/$1".* 2>/dev/null | wc -l)" -ge "$2" ]; }
wait_pids() { wait_for 120 has_pids "$1" "$2"; }
# How many of the ranks listed in pid files TAG.* have the monitor mapped.
mapped() {
    local n=0 f pid
    for f in "$dir/pids/$1".*; do
        pid=$(cut -d' ' -f1 "$f")
        grep -q "$lib" "/proc/$pid/maps" 2>/dev/null && n=$((n + 1))
    done
    echo $n
}

# --- bad values are refused at submission, with a clear message
out=$(lab_as mwuser1 sbatch --mpiwatch=timeout=abc -N1 --wrap true 2>&1); st=$?
isnt "$st" 0 "sbatch --mpiwatch=timeout=abc is refused"
like "$out" "timeout=abc: expected seconds" "sbatch says what is wrong with timeout=abc"
out=$(lab_as mwuser1 srun --mpiwatch=timeout=abc -N1 true 2>&1); st=$?
isnt "$st" 0 "srun --mpiwatch=timeout=abc is refused"
like "$out" "timeout=abc: expected seconds" "srun says what is wrong with timeout=abc"

# --- an sbatch job with two MPI steps
mkdir -p "$dir/pids" && chown mwuser1 "$dir/pids"
cat >"$dir/job.sh" <<JOB
#!/bin/bash
#SBATCH -N3 -n6 --mpiwatch=timeout=5 -o $dir/job.out
export SP_PIDDIR=$dir/pids
srun $hold 6 step1
srun $hold 6 step2
JOB
jid=$(lab_sbatch mwuser1 "$dir/job.sh")
like "$jid" '^[0-9]+$' "sbatch --mpiwatch job submitted"
wait_pids step1 6
is "$(mapped step1)" 6 "step 1: all 6 ranks have libmpiwatch.so mapped"
is "$(helpers collector "$jid" | count)" 1 "step 1: exactly one collector for the job"
is "$(helpers agent "$jid" | count)" 3 "step 1: one agent on each of the 3 nodes"
coll1=$(helpers collector "$jid")
agents1=$(helpers agent "$jid" | tr '\n' ' ')
wait_pids step2 6
is "$(mapped step2)" 6 "step 2: all 6 ranks have libmpiwatch.so mapped"
is "$(helpers collector "$jid")" "$coll1" "step 2: the same collector serves the whole job"
is "$(helpers agent "$jid" | tr '\n' ' ')" "$agents1" "step 2: the same agents serve the whole job"
is "$(lab_job_wait "$jid" 180)" COMPLETED "the watched job completes"
is "$(grep -c '^hold step[12]: rank .* ok$' "$dir/job.out")" 12 "both steps' output is intact"
wait_for 30 no_helpers "$jid"
is "$(helpers '(agent|collector)' "$jid" | count)" 0 "no agent or collector is left after the job"
left=$(for n in n1 n2 n3; do lab_exec "$n" sh -c "ls -d /dev/shm/mpiwatch.*.$jid.* 2>/dev/null"; done)
is "$left" "" "the per-node run directories are removed"

# --- scancel in the middle leaves nothing behind
cat >"$dir/long.sh" <<JOB
#!/bin/bash
#SBATCH -N3 -n3 --mpiwatch -o $dir/long.out
export SP_PIDDIR=$dir/pids
srun $hold 300 long
JOB
jid=$(lab_sbatch mwuser1 "$dir/long.sh")
wait_pids long 3
is "$(helpers agent "$jid" | count)" 3 "long job: agents running"
lab_as mwuser1 scancel "$jid"
lab_job_wait "$jid" 120 >/dev/null
wait_for 30 no_helpers "$jid"
is "$(helpers '(agent|collector)' "$jid" | count)" 0 "nothing of mpiwatch is left after scancel"

# --- non-MPI steps and salloc
out=$(lab_as mwuser1 srun --mpiwatch -N2 -n2 hostname 2>&1)
is "$(sort <<<"$out" | tr '\n' ' ')" "n1 n2 " "srun --mpiwatch hostname works and prints only the hostnames"
out=$(lab_as mwuser1 salloc --mpiwatch=timeout=5 -N2 -n2 srun "$hold" 0 salloc 2>&1)
is "$(grep -c '^hold salloc: rank .* ok$' <<<"$out")" 2 "salloc --mpiwatch, then srun: the MPI step runs"

# --- a user's own LD_PRELOAD still works next to the monitor
cat >"$dir/userlib.c" <<'C'
#include <stdio.h>
__attribute__((constructor)) static void hello(void) { fprintf(stderr, "userlib loaded\n"); }
C
cc -shared -fPIC -o "$dir/userlib.so" "$dir/userlib.c" && chmod 755 "$dir/userlib.so"
out=$(lab_as mwuser1 env LD_PRELOAD="$dir/userlib.so" srun --mpiwatch -N1 -n1 \
    sh -c 'echo "preload=$LD_PRELOAD"; cat /proc/self/maps' 2>&1)
like "$out" "preload=$dir/userlib.so $lib" "the monitor is appended after the user's LD_PRELOAD"
like "$out" "userlib loaded" "the user's preload library still runs"
like "$out" "userlib.so" "both libraries are mapped (user's)"
like "$out" "libmpiwatch.so" "both libraries are mapped (monitor)"

# --- default=on for the whole site
printf '%s default=on\n' "$conf_saved" >"$conf"
out=$(lab_as mwuser1 srun -N1 -n1 printenv LD_PRELOAD 2>&1)
like "$out" "libmpiwatch.so" "default=on: a job without --mpiwatch is watched"
out=$(lab_as mwuser1 srun --mpiwatch=off -N1 -n1 sh -c 'echo "preload=${LD_PRELOAD:-none}"' 2>&1)
is "$out" "preload=none" "default=on: --mpiwatch=off gets no injection"
printf '%s\n' "$conf_saved" >"$conf"
out=$(lab_as mwuser1 srun -N1 -n1 sh -c 'echo "preload=${LD_PRELOAD:-none}"' 2>&1)
is "$out" "preload=none" "default=off: a job without --mpiwatch is not touched"

# --- a bad site argument: the job still runs, slurmd's log says why
printf '%s timeout=never\n' "$conf_saved" >"$conf"
out=$(lab_as mwuser1 srun --mpiwatch -N1 -n1 echo still-runs 2>&1)
like "$out" "still-runs" "a bad plugstack argument does not stop the job"
like "$out" "plugstack.conf argument [0-9]+ \\(timeout=never\\)" "the bad argument is named"
printf '%s\n' "$conf_saved" >"$conf"

done_testing
