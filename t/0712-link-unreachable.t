#!/bin/bash
# A job whose collector cannot be reached from two of its nodes: on n2 the
# collector's ports are unreachable (a routing rule: "Network is
# unreachable"), on n3 they lead nowhere (a gateway that does not exist:
# no answer within the connect timeout, then no route once ARP gave up).  The agents of n2 and n3 say so clearly
# in their logs, the collector puts their errors in the report (report.json
# link_errors, a "link error:" line in report.txt), and the job itself is
# unharmed: its own output and exit code 0.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"
. "$(dirname "$0")/lib/liveness.sh"

plan no_plan
lab_require 3
schema=$MW_LAB_REPO/doc/schemas/report.schema.json
coll=$MW_LAB_REPO/build/bin/mpiwatch-collector
ports=7300-7804 # every collector port of the lab's port_base (7300 + JOBID % 500, 5 tries)
ns() { echo "mwl$MW_LAB_ID-$1"; }
undo="ip -n $(ns n2) rule del ipproto tcp dport $ports unreachable 2>/dev/null;"
undo+="ip -n $(ns n3) rule del ipproto tcp dport $ports table 77 2>/dev/null; ip -n $(ns n3) route flush table 77 2>/dev/null"
tap_cleanup "$undo"
ok_cmd "n2: the collector's ports are unreachable" ip -n "$(ns n2)" rule add ipproto tcp dport $ports unreachable
gw=198.18.$MW_LAB_ID.250 # nobody there
ok_cmd "n3: the collector's ports lead to a gateway that does not exist ($gw)" \
    sh -c "ip -n $(ns n3) route add 198.18.$MW_LAB_ID.0/24 via $gw dev eth0 onlink table 77 && ip -n $(ns n3) rule add ipproto tcp dport $ports table 77"

live_steady_unharmed 20
dir=$live_dir jid=$live_jid out=$live_out
wait_for 30 "grep -q 'agent stopping' '$out/logs/mpiwatch-agent-n2.log' && grep -q 'agent stopping' '$out/logs/mpiwatch-agent-n3.log'"
like "$(cat "$out/logs/mpiwatch-agent-n2.log")" "cannot reach the collector of job $jid at n1:[0-9]+-[0-9]+ from node n2: no route to the collector's node" \
    "n2's agent log: the collector cannot be reached, no route"
like "$(cat "$out/logs/mpiwatch-agent-n3.log")" "cannot reach the collector of job $jid at n1:[0-9]+-[0-9]+ from node n3: (no answer within the connect timeout|no route to the collector's node)" \
    "n3's agent log: the collector cannot be reached, no answer within the connect timeout (or no route, once ARP gave up)"
like "$(cat "$out/logs/mpiwatch-agent-n1.log")" "connected to the collector at n1" "n1's agent (the collector's own node) is connected"
wait_for 30 "grep -q 'shutdown' '$out/report.json'"
is "$(jv "$out/report.json" '" ".join(sorted(e["node"] for e in d["link_errors"]))')" "n2 n3" \
    "report.json's link_errors name n2 and n3"
like "$(jv "$out/report.json" '[e["error"] for e in d["link_errors"] if e["node"] == "n3"][0]')" "no answer within the connect timeout|no route to the collector's node" \
    "report.json: n3's error says why"
like "$(cat "$out/report.txt")" "link error: node n2: cannot reach the collector of job $jid at n1" "report.txt has a link error line for n2"
is "$(jv "$out/report.json" '[n["agent"] for n in d["nodes"] if n["name"] == "n2"][0]')" never "the report shows n2's agent never connected"
ok_cmd "report.json is valid against the schema" "$coll" --check-report "$out/report.json" --schema "$schema"
is "$(lab_reasoned_nodes)" "" "no node is drained"
done_testing
