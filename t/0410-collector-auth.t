#!/bin/bash
# Issue 15: the collector talks only to the job's own agents.  While a job of
# mwuser1 runs on 2 nodes, mwuser2 on a node of the lab plays an agent of that
# job against its collector: without a credential, with a MUNGE credential of
# their own uid, and with a credential made for another connection (a
# replay).  Each HELLO is refused and counted; the forged "exited" heartbeat
# sent after it changes nothing: the job completes with its own output and
# the verdict is none.  Meanwhile "mpiwatch status --job" shows the watch.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"

plan no_plan
lab_require 3
prog=$(lab_prog openmpi col_steady)
forge=$MW_LAB_REPO/t/tools/forge-agent.py
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"

jid=$(lab_sbatch mwuser1 -N2 -n4 -w "n1,n2" --mpiwatch=timeout=2 -o "$dir/job.out" \
    --wrap "srun --mpi=pmix $prog 40")
like "$jid" '^[0-9]+$' "a healthy 40 s job of mwuser1 submitted"
tap_cleanup "scancel $jid 2>/dev/null"
out=$dir/mpiwatch-$jid
clog=$out/logs/mpiwatch-collector-n1.log
wait_for 60 "grep -q 'agent of n2 connected' '$clog'"
like "$(cat "$clog")" "agent of n2 connected" "the job's own agents are welcomed (MUNGE)"
port=$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' "$clog" | head -n1)
like "$port" '^[0-9]+$' "the collector's port is known (it is predictable anyway)"
addr=198.18.$MW_LAB_ID.1

forge() { lab_exec -u mwuser2 "n3" python3 "$forge" "$addr" "$port" "$jid" "n2" "$1" \
    "$MW_LAB_MUNGE_SOCKET" 2>&1; }
r=$(forge nocred)
like "$r" "welcome refused: not authenticated: no MUNGE credential" "mwuser2 without a credential is refused"
# (the tool's last line: "closed" only on an end of file or a reset from the
# collector, "still open" when the link stays open)
like "$r" $'(^|\n)closed$' "and the forged heartbeat after it closes the link"
r=$(forge mycred)
like "$r" "welcome refused: not authenticated: MUNGE credential of uid $(id -u mwuser2), not the job's" \
    "mwuser2 with a MUNGE credential of their own uid is refused"
r=$(lab_exec n3 env FORGE_CRED_USER=mwuser1 python3 "$forge" "$addr" "$port" "$jid" n2 replay \
    "$MW_LAB_MUNGE_SOCKET" 2>&1)
like "$r" "welcome refused: not authenticated: MUNGE credential for another job, node or connection" \
    "mwuser1's own credential, made for another connection, is refused there"

# mpiwatch status --job, as the job's user on the "login node" (outside the nodes)
mw=$MW_LAB_REPO/build/bin/mpiwatch
wait_for 20 "lab_as mwuser1 $mw status --job $jid | grep -q 'ranks seen:  4 of 4'"
s=$(lab_as mwuser1 "$mw" status --job "$jid" 2>&1)
like "$s" "job $jid: RUNNING" "status --job: Slurm's state of the job"
like "$s" "report: +$out/report.json \\(updated [0-9]+s ago\\)" "status --job finds the report in the job's working directory"
like "$s" "agents: +2 of 2 connected: n\\[1-2\\]" "status --job: both nodes' agents are up"
like "$s" "ranks seen: +4 of 4; heartbeats 0" "status --job: the 4 ranks are seen, no heartbeat"
like "$s" "last events:.*start" "status --job: the last events"
lab_as mwuser1 "$mw" status --job 999999 >/dev/null 2>&1
is "$?" 1 "status --job of a job without a watch report exits 1"

st=$(lab_job_wait "$jid" 180)
is "$st" COMPLETED "the job completes"
like "$(cat "$dir/job.out")" "steady done" "its output is its own"
wait_for 30 "test -s '$out/collector-stats.json' && grep -q shutdown '$out/report.json'"
is "$(jv "$out/report.json" 'd["verdict"]')" none "the forged 'exited' heartbeat changed nothing: verdict none"
is "$(jv "$out/collector-stats.json" 'd["heartbeats"]')" 0 "no heartbeat was accepted"
cmp_ok "$(jv "$out/collector-stats.json" 'd["hellos_unauthenticated"]')" -ge 3 \
    "the three forged hellos are counted as unauthenticated"
done_testing
