#!/bin/bash
# Moved out of make test to bench/ (timing-dependent: on a loaded 2-core machine
# the slowdown is not always detected). Run: prove bench/fluctuation-run.t;
# the lab one: MW_LAB_ID=N t/lab/start 4 && prove bench/fluctuation-slurm.t.
# Compute-phase fluctuations on the lab (issue 14): t/progs/phases with
# --mpiwatch=profile on two nodes, one rank each (PHASES_PIN: rank r on core
# r).  With a busy process pinned beside n2's rank, the collector's analysis
# at job end flags that rank and its node, in imbalance.txt/json and in the
# report's timeline; the same job without it flags nothing.
. "$(dirname "$0")/../t/lib/tap.sh"
. "$(dirname "$0")/../t/lib/lab.sh"
. "$(dirname "$0")/../t/lib/collector.sh"
. "$(dirname "$0")/../t/lib/run.sh"  # field

plan 10
lab_require 2
prog=$(lab_prog openmpi phases)
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"
flagged() { field "$1/imbalance.json" '[(f["rank"], f["node"]) for f in r["fluctuation"]["flagged"]]'; }
run_job() { # NAME: a profiled job of phases on n[1-2]; sets out to its report folder
    local jid
    jid=$(lab_sbatch mwuser1 -N2 -n2 -w 'n[1-2]' --mpiwatch=profile -o "$dir/$1.out" \
        --wrap "PHASES_PIN=1 srun --mpi=pmix $prog 40 40000000")
    tap_cleanup "scancel $jid 2>/dev/null"
    lab_job_wait "$jid" 300 >"$dir/$1.state"
    wait_for 60 "test -s '$dir/mpiwatch-$jid/imbalance.json'"
    out=$dir/mpiwatch-$jid
}

# The loop's own pid (timeout passes the TERM on to it) in a file: killing
# t/lab/exec would leave it running.
lab_exec n2 sh -c "echo \$\$ >'$dir/busy.pid'; exec timeout 300 taskset -c 1 sh -c 'while :; do :; done'" &
wait_for 10 "test -s '$dir/busy.pid'"
busy=$(cat "$dir/busy.pid")
tap_cleanup "kill $busy 2>/dev/null"
run_job busy
kill "$busy"
is "$(cat "$dir/busy.state")" COMPLETED "busy n2: the job completes"
is "$(flagged "$out")" "[(1, 'n2')]" "busy n2: rank 1 on n2 is flagged, rank 0 on n1 not" \
    || diag "$(sed -n '/Compute-phase/,$p' "$out/imbalance.txt")"
like "$(cat "$out/imbalance.txt")" \
    'rank 1 on n2: the same compute phase is [0-9]+% slower than on the other nodes. ranks, p < 0\.001 — a slow node\?' \
    "busy n2: imbalance.txt says it"
like "$(cat "$out/imbalance.txt")" 'node n2: its 1 rank is slower than the ranks of the other nodes' \
    "busy n2: ... and names the node"
like "$(jv "$out/report.json" '[e["detail"] for e in d["timeline"] if "slower" in e["detail"]]')" \
    'rank 1 on n2: the same compute phase is [0-9]+% slower' "busy n2: the report's timeline carries the flag"
is "$(jv "$out/report.json" 'd["verdict"]')" none "busy n2: verdict none (a slow node is not a failure)"
is "$(sinfo -h -n n2 -o %t)" idle "busy n2: n2 is not drained"

run_job quiet
is "$(cat "$dir/quiet.state")" COMPLETED "no slowdown: the job completes"
is "$(flagged "$out")" "[]" "no slowdown: no rank flagged" || diag "$(sed -n '/Compute-phase/,$p' "$out/imbalance.txt")"
is "$(field "$out/imbalance.json" 'r["fluctuation"]["ranks_judged"]')" 2 "no slowdown: both ranks judged"
done_testing
