#!/bin/bash
# Compute-phase fluctuations on the lab (issue 14): t/progs/phases with
# --mpiwatch=profile on two nodes, one rank each (PHASES_PIN: rank r on core
# r).  With a busy process pinned beside n2's rank, the collector's analysis
# at job end flags that rank and its node, in imbalance.txt/json and in the
# report's timeline; the same job without it flags nothing.
#
# Each of n1 and n2 is a node of its own for the CPU (t/lib/cpugroup.sh):
# the test moves the node's slurmd into a CPU group with the largest weight,
# so every step it launches (slurmstepd, the rank) and the busy process are
# in it, and the rest of this shared 2-core machine (the other lab nodes,
# other engineers' builds) takes almost nothing from them while they run, as
# on a real node whose cores are its own.  Without that (bench/ until
# 2026-11-23) the test failed in make test both ways: another tenant's work
# on n1's core made n1 the slow one, and the scheduler moved the machine's
# other work off the core the busy loop loads, onto n1's rank.  The busy
# process is the acceptance's literally: a busy loop pinned to the core of
# n2's rank (itself pinned by PHASES_PIN), started on n2 (t/lab/exec) and in
# n2's group, so that rank gets half of its core (2x slower) whatever else
# the machine does.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"
. "$(dirname "$0")/lib/run.sh"  # field
. "$(dirname "$0")/lib/cpugroup.sh"

plan 10
lab_require 2
prog=$(lab_prog openmpi phases)
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"
flagged() { field "$1/imbalance.json" '[(f["rank"], f["node"]) for f in r["fluctuation"]["flagged"]]'; }
run_job() { # NAME: a profiled job of phases on n[1-2]; sets out to its report folder
    local jid
    jid=$(lab_sbatch mwuser1 -N2 -n2 -w 'n[1-2]' --mpiwatch=profile -o "$dir/$1.out" \
        --wrap "PHASES_PIN=1 srun --mpi=pmix $prog 60 40000000")
    tap_cleanup "scancel $jid 2>/dev/null"
    lab_job_wait "$jid" 300 >"$dir/$1.state"
    wait_for 60 "test -s '$dir/mpiwatch-$jid/imbalance.json'"
    out=$dir/mpiwatch-$jid
}

# n1 and n2 each a CPU group; their slurmd in it, so the steps they start too.
for n in n1 n2; do
    cpugroup_new "mwl$MW_LAB_ID-$n"
    cpugroup_add "mwl$MW_LAB_ID-$n" "$(cat "$MW_LAB_DIR/nodes/$n/slurmd.pid")" ||
        BAIL_OUT "cannot move $n's slurmd into its CPU group"
done

# The busy loop writes its own pid (killing t/lab/exec would leave it
# running; timeout ends it should the test die) and is moved into n2's group.
lab_exec n2 sh -c "exec timeout 300 taskset -c 1 sh -c 'echo \$\$ >\"$dir/busy.pid\"; while :; do :; done'" &
wait_for 10 "test -s '$dir/busy.pid'"
busy=$(cat "$dir/busy.pid")
tap_cleanup "kill $busy 2>/dev/null"
cpugroup_add "mwl$MW_LAB_ID-n2" "$busy" || BAIL_OUT "cannot move the busy loop into n2's CPU group"
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
