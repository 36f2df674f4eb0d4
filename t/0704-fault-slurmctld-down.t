#!/bin/bash
# Fault: slurmctld is down when a node dies.  The collector's verdict and
# report are on disk at once; the drain and the job comment, which need
# Slurm, fail and are retried with backoff; once slurmctld is back the node
# is drained and the comment set: nothing is lost.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"

plan no_plan
lab_require 3
node=n3
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"
col_storm_raise
ctld_up() { scontrol ping 2>/dev/null | grep -q "is UP"; }
tap_cleanup "ctld_up || '$MW_LAB_T/lab/ctld' start >/dev/null 2>&1"

col_start_steady "$dir" "n[1-3]" 6 600 --no-requeue
jid=$col_jid
tap_cleanup "'$MW_LAB_T/lab/revive-node' $node >/dev/null 2>&1; '$MW_LAB_REPO/build/bin/mpiwatch' resume $node >/dev/null 2>&1"
ok_cmd "t/lab/ctld stop" "$MW_LAB_T/lab/ctld" stop
ok_cmd "t/lab/kill-node $node" lab_kill_node $node

rep=$dir/mpiwatch-$jid/report.json
wait_for 60 "grep -q '\"verdict\": *\"hardware\"' '$rep'"
is "$(jv "$rep" 'd["verdict"]')" hardware "the verdict is on disk while slurmctld is down"
is "$(jv "$rep" '",".join(n["name"] for n in d["nodes"] if n["state"] == "dead")')" "$node" "it names $node dead"
wait_for 120 "grep -q 'Slurm does not answer: retry' '$rep'"
# The actions run off the collector's loop (issue 31): the report is written
# as each one fails, so the drain's note comes first and the comment's (its
# tries take up to 9 s each while slurmctld is down) in a later write.
wait_for 120 "grep -q 'comment of $jid failed and Slurm does not answer: retry' '$rep'"
like "$(jv "$rep" '[e["detail"] for e in d["timeline"] if e["event"] == "note"]')" \
    "drain of $node failed and Slurm does not answer: retry 2" "the failed drain is queued for a retry"
like "$(jv "$rep" '[e["detail"] for e in d["timeline"] if e["event"] == "note"]')" \
    "comment of $jid failed and Slurm does not answer: retry 2" "the failed comment is queued for a retry"

ok_cmd "t/lab/ctld start" "$MW_LAB_T/lab/ctld" start
wait_for 200 "scontrol -o show node $node | grep -q 'Reason=mpiwatch: job $jid'"
like "$(scontrol -o show node $node)" "Reason=mpiwatch: job $jid" "after slurmctld is back, $node is drained by the retry"
wait_for 120 "scontrol show job $jid | grep -q 'Comment=mpiwatch: hardware'"
like "$(scontrol show job "$jid")" "Comment=mpiwatch: hardware: node $node dead" "and the verdict is the job's comment"
is "$(lab_reasoned_nodes)" "$node" "no other node is drained"

col_end_and_revive "$jid" $node
done_testing
