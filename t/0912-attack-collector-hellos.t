#!/bin/bash
# Issue 30 item 7: a refused HELLO closes the connection at once.  While a job
# of mwuser1 runs, mwuser2 sends its collector five HELLOs in one write, each
# with a MUNGE credential of mwuser2's own uid.  The first is refused and the
# link is closed: one WELCOME comes back, the collector counts one
# unauthenticated HELLO (munged decoded one credential, not five), and the
# job completes with its own output.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"

plan no_plan
lab_require 3
prog=$(lab_prog openmpi col_steady)
forge=$MW_LAB_REPO/t/tools/forge-agent.py
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"

jid=$(lab_sbatch mwuser1 -N2 -n2 -w "n1,n2" --mpiwatch=timeout=2 -o "$dir/job.out" \
    --wrap "srun --mpi=pmix $prog 12")
like "$jid" '^[0-9]+$' "a 12 s job of mwuser1 submitted"
tap_cleanup "scancel $jid 2>/dev/null"
out=$dir/mpiwatch-$jid
clog=$out/logs/mpiwatch-collector-n1.log
wait_for 60 "grep -q 'agent of n2 connected' '$clog'"
port=$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' "$clog" | head -n1)
like "$port" '^[0-9]+$' "the collector listens (port $port)"
r=$(lab_exec -u mwuser2 n3 python3 "$forge" "198.18.$MW_LAB_ID.1" "$port" "$jid" n2 multi \
    "$MW_LAB_MUNGE_SOCKET" 2>&1)
like "$r" "welcomes 1" "five HELLOs in one write: one WELCOME (refused) comes back"
like "$r" "closed" "and the collector closed the link"

is "$(lab_job_wait "$jid" 180)" COMPLETED "the job completes"
like "$(cat "$dir/job.out")" "steady done" "with its own output"
wait_for 30 "test -s '$out/collector-stats.json' && grep -q shutdown '$out/report.json'"
is "$(jv "$out/collector-stats.json" 'd["hellos_unauthenticated"]')" 1 \
    "one unauthenticated HELLO counted (one credential decoded, not five)"
done_testing
