#!/bin/bash
# The fuzzy placement at start-up (doc/tree.md, tree_strategy=fuzzy): the
# nodehealthd of n2 is killed; a deadlocking job on 4 nodes with the tree
# forced on (tree_threshold=2, fanout 2: 2 CPs).  The collector probes every
# node at start-up and ranks them by what the replies carry (load, free
# memory, cores from nodehealthd, health, round-trip): n2, which does not
# answer, ranks last and runs no CP (the average strategy would put one
# there); the others' factors came from their nodehealthd; the verdict is
# the same as in the star.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"

plan no_plan
lab_require 4
prog=$(lab_prog openmpi col_deadlock)
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"
lab_nhd_kill n2

jid=$(lab_sbatch mwuser1 -N4 -n4 --mpiwatch=timeout=2,tree_threshold=2,tree_fanout=2,tree_strategy=fuzzy \
    -o "$dir/job.out" --wrap "srun --mpi=pmix $prog")
like "$jid" '^[0-9]+$' "deadlocking job on 4 nodes, tree forced on, fuzzy placement, submitted"
tap_cleanup "scancel $jid 2>/dev/null"
out=$dir/mpiwatch-$jid
rep=$out/report.json
wait_for 180 "grep -q '\"verdict\": *\"software\"' '$rep'"
is "$(jv "$rep" 'd["verdict"]')" software "verdict software, as in the star"
is "$(jv "$rep" 'd["tree"]["cps"]')" 2 "the tree has 2 CPs"
is "$(jv "$rep" '[n["role"] for n in d["tree"]["nodes"] if n["node"] == "n2"][0]')" be \
    "n2, whose nodehealthd does not answer, runs no CP"
log=$(cat "$out/logs/mpiwatch-collector-n1.log")
like "$log" "tree: fuzzy placement: 3 of 4 node\(s\) answered the start-up probe" "the collector probed the 4 nodes at start-up"
like "$log" "tree: 4 node\(s\) > threshold 2: 2 CP\(s\), fanout 2, depth 1, fuzzy placement" "and placed the CPs by the fuzzy strategy"
like "$log" "tree: fuzzy rank 4: n2, poor \(B = good 0.000, fair 0.000, poor 1.000\): its nodehealthd did not answer" \
    "n2 ranks last with the worst membership"
for n in n1 n3 n4; do
    like "$log" "tree: fuzzy rank [1-3]: $n, [a-z]+ \(B = [^)]*\): load [0-9.]+, [1-9][0-9]* MiB free, [1-9][0-9]* core\(s\), (ok|degraded), round-trip [0-9.]+ ms" \
        "$n: ranked by the load, memory and cores its nodehealthd sent, and the round-trip"
done
scancel "$jid"
lab_job_wait "$jid" 120 >/dev/null
done_testing
