#!/bin/bash
# Probing down the tree (doc/tree.md, "Probing down the tree"), 4 nodes,
# the tree forced on with tree_threshold=2 and fanout 2: CPs on n1 and n2
# under the collector, n3 attached to n1, n4 to n2.  n4 is killed
# (t/lab/kill-node): its CP's accepted link to it has the liveness setting,
# so the CP tells the collector it lost n4 within the liveness time; the
# collector asks its CPs to probe their subtrees; the CP serving n4 probes
# it and sends its summary up; the collector applies it as its own probe
# result: the hardware verdict names n4, the timeline says "probed by CP
# on ...", and n4 is drained.  (How many probe messages the collector sends
# and receives, with and without the tree, is measured by bench/tree-agents
# 256 F 1 probe, doc/benchmarks.md.)
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"

plan no_plan
lab_require 4
schema=$MW_LAB_REPO/doc/schemas/report.schema.json
coll=$MW_LAB_REPO/build/bin/mpiwatch-collector
node=n4
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"
col_storm_raise
jid=$(lab_sbatch mwuser1 --no-requeue -N4 -n4 -w "n[1-4]" --mpiwatch=tree_threshold=2,tree_fanout=2 \
    -o "$dir/job.out" --wrap "srun --mpi=pmix $(lab_prog openmpi col_steady) 600")
like "$jid" '^[0-9]+$' "a long 4-node job submitted, the tree forced on"
tap_cleanup "scancel $jid 2>/dev/null; '$MW_LAB_T/lab/revive-node' $node >/dev/null 2>&1; '$MW_LAB_REPO/build/bin/mpiwatch' resume $node >/dev/null 2>&1"
out=$dir/mpiwatch-$jid
rep=$out/report.json
wait_for 180 "grep -q 'steady: running' '$dir/job.out'"
wait_for 60 "jv '$rep' '\" \".join(n[\"node\"] + \">\" + n[\"parent\"] for n in d[\"tree\"][\"nodes\"])' | grep -q 'n3>n1 n4>n2'"
is "$(jv "$rep" '" ".join(n["node"] + ">" + n["parent"] for n in d["tree"]["nodes"])')" \
    "n1>collector n2>collector n3>n1 n4>n2" "the tree as planned: n4 is served by the CP on n2"
sleep 1
ok_cmd "t/lab/kill-node $node" lab_kill_node $node
wait_for 180 "grep -q '\"verdict\": *\"hardware\"' '$rep'"
is "$(jv "$rep" 'd["verdict"]')" hardware "verdict hardware"
is "$(jv "$rep" '",".join(n["name"] for n in d["nodes"] if n["state"] == "dead")')" "$node" \
    "the report names $node, and only $node, dead"
like "$(jv "$rep" '[e["detail"] for e in d["timeline"] if e["event"] == "agent_lost"]')" \
    "agent of node n4: connection lost \(its CP on n2 lost it\)" \
    "the CP on n2 noticed the dead child (its link's liveness) and told the collector"
like "$(cat "$out/logs/mpiwatch-agent-n2.log")" "tree: lost child n4 \(Connection timed out\)" \
    "n2's agent log: the child link timed out (liveness)"
like "$(jv "$rep" '[e["detail"] for e in d["timeline"] if e["event"] == "probe_start"]')" \
    "probe round 1 down the tree: 2 CP\(s\) asked to probe their subtrees" "the collector asked its 2 CPs to probe"
like "$(jv "$rep" '[e["detail"] for e in d["timeline"] if e["event"] == "probe"]')" \
    "node n4: dead, probed by CP on n2 \(3 tries" "the timeline: n4 dead, probed by CP on n2"
like "$(jv "$rep" '[e["detail"] for e in d["timeline"] if e["event"] == "probe_end"]')" \
    "3 alive, 0 degraded, 1 dead.*2 node\(s\) probed by CPs, 2 by the collector" \
    "n3 and n4 probed by their CPs, n1 and n2 (the CPs) by the collector"
is "$(jv "$rep" '" ".join(n["name"] + ":" + n.get("probed_by", "") for n in d["nodes"])')" \
    "n1:collector n2:collector n3:n1 n4:n2" "report.json: who probed each node"
like "$(cat "$out/report.txt")" "n4 .* dead .*\(probed by CP on n2\)" "report.txt: n4 dead, probed by CP on n2"
cmp_ok "$(jv "$rep" 'd["tree"]["stats"]["probe_summaries"]')" -ge 2 "the collector used the 2 CPs' summaries"
is "$(jv "$rep" 'd["tree"]["stats"]["probe_refused"]')" 0 "no result refused"
ok_cmd "report.json is valid against the schema" "$coll" --check-report "$rep" --schema "$schema"
wait_for 90 "lab_node_is $node 'drain.*|drng.*'"
like "$(scontrol -o show node "$node")" "Reason=mpiwatch: job $jid" "$node is drained with an mpiwatch reason naming the job"
is "$(lab_reasoned_nodes)" "$node" "no other node is drained"
col_end_and_revive "$jid" $node
done_testing
