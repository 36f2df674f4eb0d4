#!/bin/bash
# Fault: the collector is SIGKILLed in the middle of a healthy 2-node job.
# The job runs on and completes with its own output and exit code; the
# agents notice the loss and retry with a bounded, growing backoff (0.5 s
# doubling to 30 s), not a storm: the number of connection attempts over
# the rest of the job is counted from the agents' final log lines.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"

plan no_plan
lab_require 2
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"

col_start_steady "$dir" "n[1-2]" 4 40
jid=$col_jid
pid=$(lab_node_procs n1 mpiwatch-collector "$jid")
like "$pid" '^[0-9]+$' "the job's collector runs on n1 (pid $pid)"
kill -KILL $pid
ok $? "collector SIGKILLed 10 s into the job"

st=$(lab_job_wait "$jid" 180)
is "$st" COMPLETED "the job completes"
like "$(scontrol -o show job "$jid" 2>/dev/null || sacct -j "$jid" -n -o ExitCode 2>/dev/null)" "ExitCode=0:0|^ *0:0" \
    "with exit code 0:0"
like "$(cat "$dir/job.out")" "steady done" "the program's own output is complete"
like "$(cat "$dir/job.out")" "srun-exit=0" "srun exits 0"

out=$dir/mpiwatch-$jid/logs
for n in n1 n2; do
    log=$out/mpiwatch-agent-$n.log
    wait_for 30 "grep -q 'agent stopping' '$log'"
    like "$(cat "$log")" "lost the collector" "agent of $n noticed the loss"
    tries=$(sed -n 's/.*agent stopping: .* \([0-9][0-9]*\) failed connection attempts.*/\1/p' "$log" | tail -n1)
    like "$tries" '^[0-9]+$' "agent of $n counted its attempts"
    # 30 s left after the kill: 0.5+1+2+4+8+16 s of backoff is 6 attempts
    # (+-20 % jitter); a storm would be hundreds.
    cmp_ok "${tries:-999}" -le 10 "agent of $n: $tries connection attempts in the last ~30 s of the job (bounded backoff)"
    diag "agent of $n: $tries failed connection attempts after the collector died"
done
done_testing
