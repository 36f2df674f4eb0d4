#!/bin/bash
# nodehealthd's guards on the lab.  Partition: n1 is cut off from the other
# nodes (blackhole routes in its namespace; the controller is still reachable)
# and so sees them all as dead: a drain request for n2 is refused, nothing is
# drained.  Storm: with one node already drained by mpiwatch and
# storm_max_drained = 2 (the lab's setting), a second dead node is drained
# and a third is refused.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"

plan 14
lab_require 4
M=$MW_LAB_REPO/build/bin/mpiwatch
[ -x "$M" ] || BAIL_OUT "build first: $M missing"
nhd_running() {
    local p
    p=$(cat "$MW_LAB_DIR/nodes/$1/nodehealthd.pid" 2>/dev/null)
    [ -n "$p" ] && [ "$(cat /proc/"$p"/comm 2>/dev/null)" = mpiwatch-nodehe ]
}
for n in $MW_LAB_NODE_LIST; do
    nhd_running "$n" || lab_exec "$n" "$MW_LAB_T/lab/node.d/50-nodehealthd" start "$n" >/dev/null 2>&1
done
ok_cmd "nodehealthd runs on n1..n4" bash -c "$(declare -f nhd_running); for n in n1 n2 n3 n4; do nhd_running \$n || exit 1; done"
ev='{"summary":"test evidence"}'
ns1=$MW_LAB_PREFIX-n1

# ---------------------------------------------------------------- partition
dir=$(lab_tmpdir mwuser1)
job=$(cd "$dir" && lab_sbatch mwuser1 --no-requeue -N4 -w 'n[1-4]' -o /dev/null --wrap "sleep 3000")
tap_cleanup "scancel $job 2>/dev/null"
wait_for 120 lab_job_is "$job" RUNNING
is "$(lab_job_state "$job")" RUNNING "a 4-node job of mwuser1 runs"
tap_cleanup "for a in 2 3 4; do ip -n $ns1 route del blackhole 198.18.$MW_LAB_ID.\$a/32 2>/dev/null; done"
for a in 2 3 4; do ip -n "$ns1" route add blackhole "198.18.$MW_LAB_ID.$a/32"; done
out=$(lab_exec n1 "$M" probe -t 1 'n[2-4]' 2>&1)
is "$(grep -c ' dead ' <<<"$out")" 3 "n1 is cut off: n2, n3, n4 look dead from n1"
out=$(lab_exec -u mwuser1 n1 "$M" drain -e "$ev" "$job" n2 2>&1); st=$?
is "$st" 1 "from the cut-off n1, a drain of n2 is refused"
like "$out" "partition guard: 2 of the job's 2 other nodes do not answer us either" "... by the partition guard"
unlike "$(scontrol -o show node n2)" 'Reason=mpiwatch' "n2 is not drained"
for a in 2 3 4; do ip -n "$ns1" route del blackhole "198.18.$MW_LAB_ID.$a/32"; done
out=$(lab_exec n1 "$M" probe -t 3 'n[1-4]' 2>&1); st=$?
is "$st" 0 "routes restored: n1 sees every node alive again" || diag "$out"
scancel "$job"
lab_wait_idle 120 'n[1-4]'

# ---------------------------------------------------------------- storm
job=$(cd "$dir" && lab_sbatch mwuser1 --no-requeue -N3 -w 'n[1-3]' -o /dev/null --wrap "sleep 3000")
tap_cleanup "scancel $job 2>/dev/null"
wait_for 120 lab_job_is "$job" RUNNING
is "$(lab_job_state "$job")" RUNNING "a 3-node job of mwuser1 runs on n[1-3]"
# As if another daemon had drained n4 earlier.
scontrol update NodeName=n4 State=DRAIN Reason="mpiwatch: job 0: drained earlier (test)"
tap_cleanup "scontrol update NodeName=n4 State=RESUME 2>/dev/null"
tap_cleanup "'$MW_LAB_T/lab/revive-node' n2 >/dev/null 2>&1; '$MW_LAB_T/lab/revive-node' n3 >/dev/null 2>&1; '$M' resume n2 n3 >/dev/null 2>&1"
lab_kill_node n2 >/dev/null 2>&1
lab_kill_node n3 >/dev/null 2>&1
out=$(lab_exec -u mwuser1 n1 "$M" drain -e "$ev" "$job" n2 2>&1); st=$?
is "$st" 0 "with one mpiwatch drain in the cluster, dead n2 is drained (2 of storm_max_drained = 2)" || diag "$out"
out=$(lab_exec -u mwuser1 n1 "$M" drain -e "$ev" "$job" n3 2>&1); st=$?
is "$st" 1 "dead n3 is refused: a third drain would pass the storm guard"
like "$out" 'storm guard: 2 node\(s\) are already drained by mpiwatch' "... and the reason says so"
unlike "$(scontrol -o show node n3)" 'Reason=mpiwatch' "n3 is not drained"
like "$(grep "refused drain of n3 for job $job" "$MW_LAB_DIR/log/nodehealthd-n1.log")" 'storm guard' "the refusal is logged with its reason"

# ---------------------------------------------------------------- clean up
scancel "$job"
"$M" resume n2 n4 >/dev/null 2>&1
lab_revive_node n2 >/dev/null 2>&1
lab_revive_node n3 >/dev/null 2>&1
lab_wait_idle 180
ok $? "nodes revived and resumed: the lab is idle"

done_testing
