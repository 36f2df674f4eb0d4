#!/bin/bash
# Link liveness off (site argument liveness=0): the passive mode of seed 000,
# an idle link carries nothing, so a node that dies is noticed only when the
# ranks on the live nodes reach the stall timeout (timeout=10 here): the
# timeline shows the threshold event before the verdict and no lost link of
# n3 before it; the verdict is still hardware and n3 is still drained.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"
. "$(dirname "$0")/lib/liveness.sh"

plan no_plan
nl=$'\n'
lab_require 3
col_storm_raise
col_plugin_args liveness=0

live_kill_scenario n3 timeout=10
ev=$(live_events "$live_rep")
like "$ev" "(^|$nl)threshold\|" "the threshold (ranks stuck for the stall timeout) came before the verdict"
unlike "$ev" "agent_lost\|agent of node n3" "no lost link of n3 before the verdict: nothing probes an idle link"
like "$(cat "$live_out/logs/mpiwatch-agent-n2.log")" "connected to the collector at n1:[0-9]+ \(liveness 0 s\)" \
    "the agents' links run without liveness"
is "$(lab_reasoned_nodes)" "n3" "no other node is drained"
col_end_and_revive "$live_jid" n3
done_testing
