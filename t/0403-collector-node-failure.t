#!/bin/bash
# Collector scenario 3: a node dies in the middle of a 3-node job.  The
# ranks on the live nodes get stuck waiting for it, their agents' heartbeats
# trigger the probe (the report's timeline shows it), n3 does not answer:
# verdict hardware naming n3, n3 is drained in Slurm with an mpiwatch
# reason, no other node is drained.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"

plan 17
lab_require 3
node=n3
prog=$(lab_prog openmpi col_steady)
schema=$MW_LAB_REPO/doc/schemas/report.schema.json
coll=$MW_LAB_REPO/build/bin/mpiwatch-collector
col_storm_raise
# The link liveness (default 5 s: the link of a dead node is given up about
# 4 s after its last word) would race the heartbeats (2 s timeout, a 0.5 s
# look, the tree's relay): this scenario is the heartbeats', so liveness is
# 30 s here; t/0710 and t/0420 cover the liveness path.
col_plugin_args liveness=30
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"

jid=$(lab_sbatch mwuser1 --no-requeue -N3 -n6 --mpiwatch=timeout=2 --comment "steady 7" -o "$dir/job.out" \
    --wrap "srun --mpi=pmix $prog 600")
like "$jid" '^[0-9]+$' "a long 3-node job submitted"
tap_cleanup "scancel $jid 2>/dev/null; '$MW_LAB_T/lab/revive-node' $node >/dev/null 2>&1; '$MW_LAB_REPO/build/bin/mpiwatch' resume $node >/dev/null 2>&1"
# Wait until the three agents are connected to the collector (its log is
# in the job's report folder).
connected() { cat "$dir/mpiwatch-$jid/logs/mpiwatch-collector-n1.log" 2>/dev/null | grep -c 'connected from'; }
wait_for 180 "test \$(connected) -ge 3"
cmp_ok "$(connected)" -ge 3 "the agents of the 3 nodes are connected"
# ... and the ranks are past MPI_Init, exchanging messages.
wait_for 180 "grep -q 'steady: running' '$dir/job.out'"
like "$(cat "$dir/job.out")" "steady: running on 6 ranks" "the 6 ranks are running"

out=$dir/mpiwatch-$jid
# ... and their agents have told the collector where each rank runs (an
# agent looks every 0.5 s: killed before that, the node's ranks are not
# known to be on it).
announced() { jv "$out/report.json" 'd["stats"]["rank_announcements"]' 2>/dev/null; }
wait_for 30 "test \"\$(announced)\" -ge 6 2>/dev/null"
ok_cmd "t/lab/kill-node $node" lab_kill_node $node
wait_for 180 "grep -q '\"verdict\": *\"hardware\"' '$out/report.json'"
is "$(jv "$out/report.json" 'd["verdict"]')" hardware "verdict hardware"
ok_cmd "report.json is valid against the schema" "$coll" --check-report "$out/report.json" --schema "$schema"
is "$(jv "$out/report.json" '",".join(n["name"] for n in d["nodes"] if n["state"] == "dead")')" "$node" \
    "the report names $node, and only $node, dead"
like "$(jv "$out/report.json" '",".join(sorted(set(c["cause"] for c in d["causes"])))')" "^D$" "the stranded ranks get cause D"
# The heartbeats triggered the probe, as the collector records it: up to its
# first probe, the timeline holds the first heartbeat (a rank of a live node
# stuck in MPI), then the threshold crossed, then the probe; no agent lost
# before it (the link liveness noticing n3 would start a probe too).
jvs "$out/report.json" \
    'next(e["detail"] for e in d["timeline"] if e["event"] == "first_heartbeat")' \
    '" ".join(e["event"] for e in d["timeline"][:[x["event"] for x in d["timeline"]].index("probe_start") + 1] if e["event"] in ("first_heartbeat", "threshold", "agent_lost", "probe_start"))'
like "${JV[0]}" "^rank [0-9]+ on n[12]: in_mpi in MPI_" "the first heartbeat: a rank on a live node stuck in MPI"
is "${JV[1]}" "first_heartbeat threshold probe_start" \
    "the heartbeats triggered the probe: first heartbeat, threshold crossed, then the probe (no agent lost before)"
like "$(head -1 "$out/report.txt")" "^hardware: node $node dead \(no answer to the probes\): ranks [0-9,-]+ lost with it, ranks [0-9,-]+ left waiting for them$" \
    "report.txt's first line is the answer: the dead node, the ranks lost and those left waiting"
wait_for 30 "scontrol show job $jid | grep -q 'Comment=.*mpiwatch: hardware'"
like "$(scontrol show job "$jid")" "Comment=steady 7 \| mpiwatch: hardware: node $node dead .*; report $out/report.txt" \
    "the job's comment: the user's own, then the answer and the report's path"
wait_for 90 "lab_node_is $node 'drain.*|drng.*'"
like "$(scontrol -o show node $node)" "Reason=mpiwatch: job $jid" "$node is drained with an mpiwatch reason naming the job"
like "$(lab_node_state $node)" "^(drain|drng|drained)" "Slurm shows $node draining"
is "$(lab_reasoned_nodes)" "$node" "no other node is drained"

col_end_and_revive "$jid" $node
done_testing
