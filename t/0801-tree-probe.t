#!/bin/bash
# Probing down the tree (doc/tree.md, "Probing down the tree"), 4 nodes,
# the tree forced on with tree_threshold=2 and fanout 2: CPs on n1 and n2
# under the collector, n3 attached to n1, n4 to n2.
#  (b) a CP that cannot deliver: the agent of n2 is stopped (SIGSTOP), the
#      agent of n3 SIGKILLed: the CP on n1 tells the collector, which asks
#      its CPs to probe; n1 probes n3 (alive), n2 gives no summary: the
#      collector probes n2's subtree (n4) and n2 itself; nothing is judged
#      dead.  Then n2's agent goes on (SIGCONT).
#  (a) n4 is killed
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

# (b) ---------------------------------------------- a CP that cannot deliver
cp2=$(lab_node_procs n2 mpiwatch-agent "$jid")
ag3=$(lab_node_procs n3 mpiwatch-agent "$jid")
like "$cp2 $ag3" '^[0-9]+ [0-9]+$' "(b) the agents of n2 (a CP) and n3 run"
tap_cleanup "kill -CONT $cp2 2>/dev/null"
kill -STOP "$cp2"
ok $? "(b) the agent of n2 (the CP serving n4) stopped"
kill -KILL "$ag3"
ok $? "(b) the agent of n3 SIGKILLed"
wait_for 60 "grep -q 'probe_end' '$rep'"
like "$(jv "$rep" '[e["detail"] for e in d["timeline"] if e["event"] == "agent_lost"]')" \
    "agent of node n3: connection lost \(its CP on n1 lost it\)" "(b) the CP on n1 told the collector it lost n3"
like "$(jv "$rep" '[e["detail"] for e in d["timeline"] if e["event"] == "note"]')" \
    "probe round 1: the CP on n2 did not deliver its summary \(no answer in time\): the collector probes its subtree itself, and its node" \
    "(b) the timeline: the CP on n2 did not deliver, the collector probes its subtree"
is "$(jv "$rep" '" ".join(n["name"] + ":" + n["state"] + ":" + n.get("probed_by", "") for n in d["nodes"])')" \
    "n1:alive:collector n2:alive:collector n3:alive:n1 n4:alive:collector" \
    "(b) n3 probed by its CP (n1); n2 and its subtree (n4) by the collector; all alive"
is "$(jv "$rep" 'd["verdict"]')" none "(b) no verdict: every node answers"
kill -CONT "$cp2"
ok $? "(b) the agent of n2 goes on"
sleep 2

# (a) ------------------------------------------------ a node dies under a CP
ok_cmd "t/lab/kill-node $node" lab_kill_node $node
wait_for 180 "grep -q '\"verdict\": *\"hardware\"' '$rep'"
is "$(jv "$rep" 'd["verdict"]')" hardware "verdict hardware"
is "$(jv "$rep" '",".join(n["name"] for n in d["nodes"] if n["state"] == "dead")')" "$node" \
    "the report names $node, and only $node, dead"
like "$(jv "$rep" '[e["detail"] for e in d["timeline"] if e["event"] == "agent_lost"]')" \
    "agent of node n4: connection lost \(its CP on n2 lost it\)" \
    "(a) the CP on n2 noticed the dead child (its link's liveness) and told the collector"
like "$(cat "$out/logs/mpiwatch-agent-n2.log")" "tree: lost child n4 \(Connection timed out\)" \
    "n2's agent log: the child link timed out (liveness)"
like "$(jv "$rep" '[e["detail"] for e in d["timeline"] if e["event"] == "probe_start"]')" \
    "probe round 2 down the tree: 2 CP\(s\) asked to probe their subtrees" "(a) the collector asked its 2 CPs to probe again"
like "$(jv "$rep" '[e["detail"] for e in d["timeline"] if e["event"] == "probe"]')" \
    "node n4: dead, probed by CP on n2 \(3 tries" "the timeline: n4 dead, probed by CP on n2"
like "$(jv "$rep" '[e["detail"] for e in d["timeline"] if e["event"] == "probe_end"]')" \
    "3 alive, 0 degraded, 1 dead.*2 node\(s\) probed by CPs, 2 by the collector" \
    "n3 and n4 probed by their CPs, n1 and n2 (the CPs) by the collector"
is "$(jv "$rep" '" ".join(n["name"] + ":" + n.get("probed_by", "") for n in d["nodes"])')" \
    "n1:collector n2:collector n3:n1 n4:n2" "report.json: who probed each node"
like "$(cat "$out/report.txt")" "n4 .* dead .*\(probed by CP on n2\)" "report.txt: n4 dead, probed by CP on n2"
cmp_ok "$(jv "$rep" 'd["tree"]["stats"]["probe_summaries"]')" -ge 3 "the collector used the CPs' summaries (1 in round 1, 2 in round 2)"
unlike "$(jv "$rep" '[e["detail"] for e in d["timeline"]]')" "outside its subtree" "no CP reported on a node outside its subtree"
ok_cmd "report.json is valid against the schema" "$coll" --check-report "$rep" --schema "$schema"
wait_for 90 "lab_node_is $node 'drain.*|drng.*'"
like "$(scontrol -o show node "$node")" "Reason=mpiwatch: job $jid" "$node is drained with an mpiwatch reason naming the job"
is "$(lab_reasoned_nodes)" "$node" "no other node is drained"
col_end_and_revive "$jid" $node
done_testing
