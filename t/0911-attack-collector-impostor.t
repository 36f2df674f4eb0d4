#!/bin/bash
# Issue 30 item 3 (the collector impersonated).  Before mwuser1's job
# starts, mwuser2 binds the job's predictable collector port on n1 and plays
# the collector there (t/tools/fake-collector.py impostor): it speaks first,
# with a challenge and a MUNGE credential of its own uid, and welcomes any
# HELLO.  The agents must refuse it before they send anything of their own:
# the impostor gets no HELLO (no agent credential) and no heartbeat; the
# agents reach the real collector on the next port and the job completes
# with its own output.
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

jid=$(lab_sbatch mwuser1 --hold -N2 -n2 -w "n1,n2" --mpiwatch=timeout=2 -o "$dir/job.out" \
    --wrap "srun --mpi=pmix $prog 8")
like "$jid" '^[0-9]+$' "a job of mwuser1 submitted (held)"
tap_cleanup "scancel $jid 2>/dev/null"
port=$((7300 + jid % 500))
flog=$fdir/fake.log
tap_cleanup "touch '$flog.stop'"
lab_exec -u mwuser2 n1 env FAKE_JOB="$jid" python3 "$fake" "$port" impostor "$flog" "$MW_LAB_MUNGE_SOCKET" \
    >"$fdir/fake.err" 2>&1 &
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
like "$(cat "$flog")" "sent a challenge with a credential of uid $(id -u mwuser2)" "the impostor spoke first"
like "$(cat "$flog")" "agent closed the link" "the agents hung up on it"
unlike "$(cat "$flog")" "HELLO from the agent" "the impostor got no HELLO (no agent credential)"
unlike "$(cat "$flog")" "HEARTBEAT from the agent" "the impostor got no heartbeat"
alog=$(cat "$out"/logs/mpiwatch-agent-n*.log 2>/dev/null)
like "$alog" "port $port.*uid $(id -u mwuser2)" "an agent log says why it refused the impostor"
cmp_ok "$(jv "$out/collector-stats.json" 'd["heartbeats"]')" -ge 1 "the job's heartbeats reached the real collector"
diag "$(tail -n 15 "$flog")"
done_testing
