#!/bin/bash
# Link liveness on (the default, liveness=5): a node dies under a healthy
# 3-node job with the default stall timeout (60 s).  The collector's link to
# the dead node's agent stops answering its keepalive probes and breaks
# (TCP_USER_TIMEOUT); the collector probes at once, n3 does not answer:
# verdict hardware naming n3 and n3 drained, BEFORE any rank reached the
# stall timeout: the timeline shows the lost link as the trigger (the
# agent_lost event, then the probe, then the verdict) and no threshold event
# before the verdict.  (The time from kill-node to the verdict and the drain
# is measured by bench/verdict-liveness, not asserted here.)
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"
. "$(dirname "$0")/lib/liveness.sh"

plan no_plan
nl=$'\n'
lab_require 3
schema=$MW_LAB_REPO/doc/schemas/report.schema.json
coll=$MW_LAB_REPO/build/bin/mpiwatch-collector
col_storm_raise

live_kill_scenario n3 on
ev=$(live_events "$live_rep")
like "$ev" "agent_lost\|agent of node n3: connection lost \(Connection timed out\): no answer within the link liveness time" \
    "the collector lost its link to n3's agent: no answer within the liveness time"
unlike "$ev" "(^|$nl)threshold\|" "no threshold event before the verdict: no rank had reached the stall timeout"
is "$(printf '%s\n' "$ev" | cut -d'|' -f1 | grep -E '^(agent_lost|probe_start|verdict)$' | uniq | tr '\n' ' ')" \
    "agent_lost probe_start verdict " "the lost link, then the probe, then the verdict"
is "$(jv "$live_rep" '[n["agent"] for n in d["nodes"] if n["name"] == "n3"][0]')" lost "the report shows n3's agent lost"
ok_cmd "report.json is valid against the schema" "$coll" --check-report "$live_rep" --schema "$schema"
like "$(cat "$live_out/logs/mpiwatch-agent-n2.log")" "connected to the collector at n1:[0-9]+ \(liveness 5 s\)" \
    "the agents' links run with the default liveness of 5 s"
is "$(lab_reasoned_nodes)" "n3" "no other node is drained"
col_end_and_revive "$live_jid" n3
done_testing
