#!/bin/bash
# Fault: nodehealthd is killed on n2 while a job of n1-n2 deadlocks.  The
# probe of n2 gets its kernel's "port unreachable": n2 is reported "no
# daemon" (up, without nodehealthd), not dead; the verdict is the deadlock,
# nothing is drained.  Then the same with Slurm agreeing that n2 is down
# would make it dead (the rule: mw_slurm_node_down; unit-tested in
# t/unit/test_nhd_drain.c, "no daemon, and Slurm says down").
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"

plan no_plan
lab_require 2
prog=$(lab_prog openmpi col_deadlock)
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"
lab_nhd_kill n2
"$MW_LAB_REPO/build/bin/mpiwatch" probe n2 >"$dir/probe.txt" 2>&1
like "$(cat "$dir/probe.txt")" "n2 +no daemon .*no mpiwatch-nodehealthd listens" "mpiwatch probe n2: no daemon"

jid=$(lab_sbatch mwuser1 -N2 -n4 -w "n[1-2]" --mpiwatch=timeout=2 -o "$dir/job.out" --wrap "srun --mpi=pmix $prog")
like "$jid" '^[0-9]+$' "a deadlocking job on n1-n2 submitted"
tap_cleanup "scancel $jid 2>/dev/null"
rep=$dir/mpiwatch-$jid/report.json
wait_for 120 "grep -q '\"verdict\": *\"software\"' '$rep'"
is "$(jv "$rep" 'd["verdict"]')" software "verdict software (the deadlock), not hardware"
is "$(jv "$rep" '[n["state"] for n in d["nodes"] if n["name"] == "n2"][0]')" "no daemon" "n2 is reported 'no daemon'"
is "$(jv "$rep" '[n["state"] for n in d["nodes"] if n["name"] == "n1"][0]')" alive "n1 is alive"
like "$(jv "$rep" '[n["health"] for n in d["nodes"] if n["name"] == "n2"][0]')" "no mpiwatch-nodehealthd" \
    "the report says why"
is "$(jv "$rep" 'd["deadlock"]["found"]')" True "the deadlock is found"
is "$(lab_reasoned_nodes)" "" "no node is drained"
scancel "$jid"
lab_job_wait "$jid" 120 >/dev/null
lab_exec n2 "$MW_LAB_T/lab/node.d/50-nodehealthd" start n2 >/dev/null 2>&1
wait_for 20 "'$MW_LAB_REPO/build/bin/mpiwatch' probe n2 | grep -q alive"
like "$("$MW_LAB_REPO/build/bin/mpiwatch" probe n2 2>&1)" "n2 +alive" "nodehealthd restarted: n2 alive again"
done_testing
