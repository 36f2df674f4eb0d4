#!/bin/bash
# Fault: the agent of one node is SIGKILLed in the middle of a healthy
# 3-node job.  The collector notes the lost agent, probes that node at once,
# finds it alive, and drains nothing; the job runs on and completes with its
# own output and exit code.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"

plan no_plan
lab_require 3
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"

col_start_steady "$dir" "n[1-3]" 6 30
jid=$col_jid
pid=$(lab_node_procs n2 mpiwatch-agent "$jid")
like "$pid" '^[0-9]+$' "the job's agent runs on n2 (pid $pid)"
kill -KILL $pid
ok $? "agent of n2 SIGKILLed"

rep=$dir/mpiwatch-$jid/report.json
wait_for 30 "grep -q 'agent_lost' '$rep'"
like "$(jv "$rep" '[e["detail"] for e in d["timeline"] if e["event"] == "agent_lost"]')" "agent of node n2: connection lost" \
    "the collector notes the lost agent of n2"
wait_for 30 "grep -q 'probe_end' '$rep'"
is "$(jv "$rep" '[n["state"] for n in d["nodes"] if n["name"] == "n2"][0]')" alive "n2 was probed and answers"
is "$(jv "$rep" '[n["agent"] for n in d["nodes"] if n["name"] == "n2"][0]')" lost "the report shows n2's agent lost"

st=$(lab_job_wait "$jid" 180)
is "$st" COMPLETED "the job completes"
like "$(scontrol -o show job "$jid")" "ExitCode=0:0" "with exit code 0:0"
like "$(cat "$dir/job.out")" "steady done" "the program's own output is complete"
like "$(cat "$dir/job.out")" "srun-exit=0" "srun exits 0"
wait_for 30 "jv '$rep' 'd[\"timeline\"][-1][\"event\"]' | grep -q shutdown"
is "$(jv "$rep" 'd["verdict"]')" none "verdict none: a lost agent on a live node is no failure"
is "$(lab_reasoned_nodes)" "" "no node is drained"
is "$(jv "$rep" 'len([a for a in d["actions"] if a["action"] == "drain"])')" 0 "no drain was even requested"
done_testing
