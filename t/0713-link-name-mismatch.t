#!/bin/bash
# A node whose host name is not its Slurm NodeName: n3's hostname is set to
# "n3x" (its UTS namespace) for one job.  Its agent says hello as n3x; the
# collector, which knows the job's nodes by their NodeNames, refuses it with
# a clear error ("node n3x is not in job J ... short name vs FQDN?"), in the
# agent's log and in the report's link_errors, instead of a silent watch;
# the job itself completes with its own output and exit code 0.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"
. "$(dirname "$0")/lib/liveness.sh"

plan no_plan
lab_require 3
schema=$MW_LAB_REPO/doc/schemas/report.schema.json
coll=$MW_LAB_REPO/build/bin/mpiwatch-collector
tap_cleanup "'$MW_LAB_T/lab/exec' n3 hostname n3"
ok_cmd "n3's host name set to n3x" "$MW_LAB_T/lab/exec" n3 hostname n3x
is "$("$MW_LAB_T/lab/exec" n3 hostname)" n3x "n3 now calls itself n3x"

live_steady_unharmed 12
dir=$live_dir jid=$live_jid out=$live_out
wait_for 30 "grep -q 'agent stopping' '$out/logs/mpiwatch-agent-n3x.log'"
like "$(cat "$out/logs/mpiwatch-agent-n3x.log")" "the collector at n1:[0-9]+ refused the agent of node n3x: node n3x is not in job $jid" \
    "n3's agent log: refused, its name n3x is not in the job"
wait_for 30 "grep -q 'shutdown' '$out/report.json'"
like "$(jv "$out/report.json" '[e["error"] for e in d["link_errors"] if e["node"] == "n3x"][0]')" "node n3x is not in job $jid" \
    "report.json's link_errors: n3x refused, not in the job"
like "$(cat "$out/report.txt")" "link error: node n3x: " "report.txt has a link error line for n3x"
is "$(jv "$out/report.json" '[n["agent"] for n in d["nodes"] if n["name"] == "n3"][0]')" never "the report shows n3's agent never connected"
ok_cmd "report.json is valid against the schema" "$coll" --check-report "$out/report.json" --schema "$schema"
is "$(lab_reasoned_nodes)" "" "no node is drained"
done_testing
