#!/bin/bash
# The tree overlay in use (doc/tree.md), 8 nodes, forced on with
# tree_threshold=2 and fanout 2: CPs on n1-n6 (n1, n2 under the collector;
# n3, n4 under n1; n5, n6 under n2), n7 attached to n3, n8 to n4.
#  (a) a ring deadlock gives the same verdict and deadlock finding as in the
#      star (t/0401), the dumps come up the tree on demand, every rank's
#      heartbeat is counted once, and the report shows the tree;
#  (b+c) in a healthy job the agent of n3 (the CP serving n7) is SIGKILLed:
#      n7 re-attaches to n3's parent (n1), the collector notes n3's agent
#      lost and probes; then n8 is killed: the hardware verdict names n8, the
#      heartbeats of the re-attached n7 arrive, and each rank is counted once.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"

plan no_plan
lab_require 8
schema=$MW_LAB_REPO/doc/schemas/report.schema.json
coll=$MW_LAB_REPO/build/bin/mpiwatch-collector
tree="tree_threshold=2,tree_fanout=2"
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"

# (a) ----------------------------------------------------------- deadlock
prog=$(lab_prog openmpi col_deadlock)
jid=$(lab_sbatch mwuser1 -N8 -n8 --mpiwatch=timeout=2,$tree -o "$dir/job-a.out" --wrap "srun --mpi=pmix $prog")
like "$jid" '^[0-9]+$' "(a) deadlocking job on 8 nodes submitted"
tap_cleanup "scancel $jid 2>/dev/null"
out=$dir/mpiwatch-$jid
wait_for 180 "grep -q '\"verdict\": *\"software\"' '$out/report.json'"
is "$(jv "$out/report.json" 'd["verdict"]')" software "(a) verdict software"
ok_cmd "(a) report.json is valid against the schema" "$coll" --check-report "$out/report.json" --schema "$schema"
wait_for 30 "test \$(ls '$out/dumps' 2>/dev/null | grep -c '^rank-[0-9]*\.json\$') -ge 8"
is "$(ls "$out/dumps" | grep -c '^rank-[0-9]*\.json$')" 8 "(a) the 8 dumps came up the tree on demand"
wait_for 30 "jv '$out/report.json' 'sorted(d[\"deadlock\"][\"ranks\"])' | grep -q '7\]'"
jvs "$out/report.json" 'd["deadlock"]["found"]' 'sorted(d["deadlock"]["ranks"])' \
    '";".join(c["cause"] + ":" + c["ranks_text"] for c in d["causes"])' 'd["stats"]["heartbeats_by_state"]["in_mpi"]' \
    'd["tree"]["cps"]' '" ".join(n["node"] + ">" + n["planned_parent"] for n in d["tree"]["nodes"])'
is "${JV[0]}" True "(a) deadlock found"
is "${JV[1]}" "[0, 1, 2, 3, 4, 5, 6, 7]" "(a) the deadlock names ranks 0-7"
is "${JV[2]}" "B:0-7" "(a) cause B for ranks 0-7, as in the star"
like "$(head -1 "$out/report.txt")" "^deadlock: ranks 0-7 wait for each other in MPI_Recv \(col_deadlock.c:13\)" \
    "(a) report.txt's first line: the same answer as in the star"
is "${JV[3]}" 8 "(a) each rank's heartbeat counted once (8 in_mpi heartbeats for 8 ranks)"
is "${JV[4]}" 6 "(a) the report shows the tree: 6 CPs"
is "${JV[5]}" "n1>collector n2>collector n3>n1 n4>n1 n5>n2 n6>n2 n7>n3 n8>n4" "(a) who serves whom, as planned"
wait_for 30 "jv '$out/report.json' '[n[\"parent\"] for n in d[\"tree\"][\"nodes\"]]' | grep -q \"'n4'\""
jvs "$out/report.json" '" ".join(n["node"] + ">" + n["parent"] for n in d["tree"]["nodes"])' 'd["tree"]["stats"]["agg_frames"]'
is "${JV[0]}" "n1>collector n2>collector n3>n1 n4>n1 n5>n2 n6>n2 n7>n3 n8>n4" "(a) ... and as attached"
cmp_ok "${JV[1]}" -ge 1 "(a) the heartbeats came as aggregates"
like "$(cat "$out/report.txt")" "Tree overlay: 8 node\(s\) > threshold 2: 6 CP\(s\), fanout 2" "(a) report.txt shows the tree"
scancel "$jid"
lab_job_wait "$jid" 120 >/dev/null

# (b+c) ------------------------------------------- a CP's agent, then a node
node=n8
col_storm_raise
jid=$(lab_sbatch mwuser1 --no-requeue -N8 -n8 --mpiwatch=timeout=2,$tree -o "$dir/job-c.out" \
    --wrap "srun --mpi=pmix $(lab_prog openmpi col_steady) 600")
like "$jid" '^[0-9]+$' "(c) a long 8-node job submitted"
tap_cleanup "scancel $jid 2>/dev/null; '$MW_LAB_T/lab/revive-node' $node >/dev/null 2>&1; '$MW_LAB_REPO/build/bin/mpiwatch' resume $node >/dev/null 2>&1"
out=$dir/mpiwatch-$jid
wait_for 180 "grep -q 'steady: running' '$dir/job-c.out'"
wait_for 60 "jv '$out/report.json' '[n[\"parent\"] for n in d[\"tree\"][\"nodes\"]]' | grep -q \"'n3', 'n4'\\]\""
is "$(jv "$out/report.json" '" ".join(n["node"] + ">" + n["parent"] for n in d["tree"]["nodes"][6:])')" "n7>n3 n8>n4" \
    "(c) n7 is attached to the CP on n3, n8 to n4"
pid=$(lab_node_procs n3 mpiwatch-agent "$jid")
like "$pid" '^[0-9]+$' "(c) the agent of n3 runs (pid $pid)"
kill -KILL $pid
ok $? "(c) the agent of n3 (a CP) SIGKILLed"
wait_for 30 "jv '$out/report.json' '[n[\"parent\"] for n in d[\"tree\"][\"nodes\"]]' | grep -q \"'n1', 'n4'\\]\""
jvs "$out/report.json" '[n["parent"] for n in d["tree"]["nodes"] if n["node"] == "n7"][0]' \
    '" ".join(m["node"] + ":" + m["from"] + ">" + m["to"] for m in d["tree"]["reattachments"])'
is "${JV[0]}" n1 "(c) n7 re-attached to n3's parent, n1"
is "${JV[1]}" "n7:n3>n1" "(c) the report lists the re-attachment"
mw=$MW_LAB_REPO/build/bin/mpiwatch
wait_for 20 "lab_as mwuser1 $mw status --job $jid | grep -q 're-attachment: n7 from n3 to n1'"
like "$(lab_as mwuser1 $mw status --job $jid)" "n7 +be, served by n1 \(planned: n3\)" \
    "(c) mpiwatch status --job shows the live tree: n7 served by n1 now"
wait_for 30 "grep -q 'agent of node n3: connection lost' '$out/report.json'"
like "$(jv "$out/report.json" '[e["detail"] for e in d["timeline"] if e["event"] == "agent_lost"]')" \
    "agent of node n3: connection lost \(its CP on n1 lost it\)" "(c) the collector notes n3's agent lost"
wait_for 30 "grep -q 'probe_end' '$out/report.json'"
is "$(jv "$out/report.json" '[n["state"] for n in d["nodes"] if n["name"] == "n3"][0]')" alive "(c) n3 was probed and answers"

ok_cmd "(b) t/lab/kill-node $node" lab_kill_node $node
wait_for 180 "grep -q '\"verdict\": *\"hardware\"' '$out/report.json'"
jvs "$out/report.json" 'd["verdict"]' '",".join(n["name"] for n in d["nodes"] if n["state"] == "dead")'
is "${JV[0]}" hardware "(b) verdict hardware"
is "${JV[1]}" "$node" "(b) the report names $node, and only $node, dead"
ok_cmd "(b) report.json is valid against the schema" "$coll" --check-report "$out/report.json" --schema "$schema"
sleep 3 # late heartbeats, if any were doubled, would show now
jvs "$out/report.json" '[r["state"] for r in d["ranks"] if r["rank"] == 6][0]' \
    'd["stats"]["heartbeats_by_state"]["in_mpi"]' 'len([r for r in d["ranks"] if r["state"] == "in_mpi"])'
is "${JV[0]}" in_mpi "(c) rank 6 (on n7, re-attached) was seen stuck through the tree"
is "${JV[1]}" "${JV[2]}" "(c) each stuck rank's heartbeat counted once"
# ... against the ranks launched (-n8, one a node): all but rank 7 (lost with
# n8) and rank 2 (on n3, whose agent was killed: nobody sends its heartbeat)
# are stuck, each counted once.
is "${JV[1]}" $((8 - 2)) "(c) each stuck rank's heartbeat counted once: 6 in_mpi heartbeats, the 8 ranks but ranks 7 and 2"
wait_for 90 "lab_node_is $node 'drain.*|drng.*'"
like "$(lab_node_state $node)" "^(drain|drng|drained)" "(b) Slurm shows $node draining"
col_end_and_revive "$jid" $node
done_testing
