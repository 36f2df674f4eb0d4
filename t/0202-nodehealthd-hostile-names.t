#!/bin/bash
# Slurm's answers are read as data, not text (shared/slurmjson.c): a job
# whose name, comment and working directory imitate Slurm's own fields
# ("x NodeList=n4 UserId=root(0) JobState=COMPLETED") cannot make
# nodehealthd (root) believe the job is root's or runs on n4, and cannot make
# the collector believe the job is over.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"

plan 8
lab_require 4
M=$MW_LAB_REPO/build/bin/mpiwatch
[ -x "$M" ] || BAIL_OUT "build first: $M missing"
ev='{"summary":"test evidence"}'
hostile='x NodeList=n4 UserId=root(0) JobState=COMPLETED'
dir=$(lab_tmpdir mwuser1)
sub="$dir/y NodeList=n4 UserId=root(0)"
install -d -o mwuser1 "$sub"
job=$(cd "$sub" && lab_sbatch mwuser1 --no-requeue -N2 -w 'n[1-2]' -J "$hostile" \
    --comment "z NodeList=n4 JobState=COMPLETED" -o /dev/null --wrap "sleep 3000")
tap_cleanup "scancel $job 2>/dev/null"
# (lab_job_state reads scontrol's text: it would take the name's JobState.)
state() { squeue --json --states=all -j "$job" 2>/dev/null |
          python3 -c 'import json,sys; print(json.load(sys.stdin)["jobs"][0]["job_state"])' 2>&1; }
wait_for 120 '[ "$(state)" = RUNNING ]'
is "$(state)" RUNNING "a job of mwuser1 on n[1-2] with a hostile name, comment and folder runs"
ok_cmd "Slurm's text output puts the fake fields before the real ones" \
    sh -c "scontrol -o show job $job | grep -qF 'JobName=$hostile UserId=mwuser1'"

# n4 is outside the job: nodehealthd must say so, whatever the job's name says.
lab_kill_node n4 >/dev/null 2>&1
tap_cleanup "'$MW_LAB_T/lab/revive-node' n4 >/dev/null 2>&1; '$M' resume n4 >/dev/null 2>&1"
out=$(lab_exec -u mwuser1 n1 "$M" drain -e "$ev" "$job" n4 2>&1); st=$?
is "$st" 1 "a drain of n4 (dead, but outside the job) is refused"
like "$out" "not part of job $job" "... because n4 is not one of the job's nodes (Slurm's node list, not the name's)"
unlike "$(scontrol -o show node n4)" 'Reason=mpiwatch' "n4 is not drained"
# Another user cannot act for the job because its name says root.
out=$(lab_exec -u mwuser2 n1 "$M" drain -e "$ev" "$job" n2 2>&1); st=$?
is "$st" 1 "mwuser2 cannot drain a node of mwuser1's job"
like "$out" "does not own job $job" "... the owner is Slurm's user_id, not the name's UserId=root(0)"
"$MW_LAB_T/lab/revive-node" n4 >/dev/null 2>&1

# The collector's "is the job over?" reads JobState from Slurm's JSON too: a
# collector of this job keeps running while the name says COMPLETED.
d=$(lab_tmpdir mwuser1)
lab_exec -u mwuser1 n1 "$MW_LAB_REPO/build/bin/mpiwatch-collector" --job "$job" --nodes 'n[1-2]' \
    --port 7999 --ports 1 --timeout 5 --dir "$d/out" --job-check 1 --post no --drain no \
    --log "$d/coll.log" &
cpid=$!
sleep 4
ok_cmd "the job's collector, asking Slurm every second, still runs" kill -0 "$cpid"
kill "$cpid" 2>/dev/null; wait "$cpid" 2>/dev/null
scancel "$job"
done_testing
