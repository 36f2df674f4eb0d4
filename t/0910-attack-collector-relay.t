#!/bin/bash
# Issue 30 item 3 (the collector impersonated, its MUNGE check relayed).
# Before mwuser1's job starts, mwuser2 binds the job's predictable collector
# port (port_base + JOBID % 500) on the job's first node, n1, so the real
# collector moves to the next port, and runs a relaying fake collector there
# (t/tools/fake-collector.py relay): it passes every frame between each agent
# and the real collector.  The agents must refuse it (the real collector's
# proof names the endpoint it listens on, not the fake's), go on to the next
# port and reach the real collector: the fake relays no HELLO, gets no
# heartbeat and never holds an authenticated link (the real collector never
# hears its "forged bye"); the job completes with its own output and its
# heartbeats reach the real collector.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"

plan no_plan
lab_require 2
prog=$(lab_prog openmpi col_compute)
fake=$MW_LAB_REPO/t/tools/fake-collector.py
dir=$(lab_tmpdir mwuser1)
fdir=$(lab_tmpdir mwuser2)
cd "$dir" || BAIL_OUT "cd $dir"

# A computation of 8 s with timeout 2: each rank sends "computing" heartbeats.
jid=$(lab_sbatch mwuser1 --hold -N2 -n2 -w "n1,n2" --mpiwatch=timeout=2 -o "$dir/job.out" \
    --wrap "srun --mpi=pmix $prog 8")
like "$jid" '^[0-9]+$' "a job of mwuser1 submitted (held)"
tap_cleanup "scancel $jid 2>/dev/null"
port=$((7300 + jid % 500))
flog=$fdir/fake.log
tap_cleanup "touch '$flog.stop'"
lab_exec -u mwuser2 n1 python3 "$fake" "$port" relay "$flog" "$MW_LAB_MUNGE_SOCKET" >"$fdir/fake.err" 2>&1 &
wait_for 20 "grep -q listening '$flog'"
like "$(cat "$flog" 2>&1)" "listening on port $port" "mwuser2 holds the job's predictable port $port on n1"
lab_as mwuser1 scontrol release "$jid"
out=$dir/mpiwatch-$jid
clog=$out/logs/mpiwatch-collector-n1.log

st=$(lab_job_wait "$jid" 240)
is "$st" COMPLETED "the job completes" || diag "$(cat "$dir/job.out" 2>&1 | tail -20)"
like "$(cat "$dir/job.out")" "done [0-9]" "with its own output"
wait_for 30 "test -s '$out/collector-stats.json' && grep -q shutdown '$out/report.json'"
touch "$flog.stop"
like "$(cat "$clog")" "listening on port $((port + 1))" "the real collector moved to the next port"
like "$(cat "$clog")" "agent of n1 connected" "n1's agent reached the real collector"
like "$(cat "$clog")" "agent of n2 connected" "n2's agent reached the real collector"
like "$(cat "$flog")" "an agent connected" "the agents did try the fake first"
like "$(cat "$flog")" "agent closed the link" "and hung up on it"
unlike "$(cat "$flog")" "agent -> collector: hello" "the fake relayed no HELLO (no agent credential)"
unlike "$(cat "$flog")" "AUTHENTICATED LINK" "the fake never held an authenticated link to the real collector"
unlike "$(cat "$flog")" "HEARTBEAT from the agent" "the fake got no heartbeat"
unlike "$(cat "$clog")" "forged bye" "the real collector heard nothing from the relay"
alog=$(cat "$out"/logs/mpiwatch-agent-n*.log 2>/dev/null)
like "$alog" "port $port.*(not the collector|refused|proof)" "an agent log says why it refused the fake"
cmp_ok "$(jv "$out/collector-stats.json" 'd["heartbeats"]')" -ge 1 "the job's heartbeats reached the real collector"
diag "$(tail -n 15 "$flog")"
done_testing
