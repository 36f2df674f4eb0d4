#!/bin/bash
# Fault: half the nodes of a 4-node job are cut off from the collector's
# node (the links of n3 and n4 go down; every process stays alive).  Two
# nodes of four silent at once is a suspected network partition, not two
# dead nodes: the report says "network partition suspected", nothing is
# drained, and the job is neither cancelled nor requeued.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"

plan no_plan
lab_require 4
coll=$MW_LAB_REPO/build/bin/mpiwatch-collector
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"
col_storm_raise # a wrong drain must not be hidden by the storm guard
link_set() { ip link set "mwl$MW_LAB_ID-$1" "$2"; }
tap_cleanup "link_set n3 up; link_set n4 up"

col_start_steady "$dir" "n[1-4]" 8 600 --no-requeue
jid=$col_jid
# The job's processes on each node (its 8 ranks, its 4 agents), before the
# cut: the same pids must still run after the verdict.
job_pids() {
    local n
    for n in n1 n2 n3 n4; do
        lab_node_procs $n col_steady
        lab_node_procs $n mpiwatch-agent "$jid"
    done | sort -n | tr '\n' ' '
}
pids=$(job_pids)
is "$(echo $pids | wc -w)" 12 "the job's 8 ranks and 4 agents run on n1-n4"
link_set n3 down && link_set n4 down
ok $? "links of n3 and n4 down (their processes alive)"

rep=$dir/mpiwatch-$jid/report.json
wait_for 120 "grep -q '\"verdict\": *\"hardware\"' '$rep'"
jvs "$rep" 'd["verdict"]' 'd["partition_suspected"]' 'd["summary"]' 'd["confirmed"]'
is "${JV[0]}" hardware "verdict hardware: nodes do not answer"
is "${JV[1]}" True "partition_suspected"
like "${JV[2]}" "network partition suspected: 2 of the job's 4 nodes \(n\[3-4\]\)" \
    "the summary says a partition is suspected and names n[3-4]"
is "${JV[3]}" False "not a confirmed verdict"
ok_cmd "report.json is valid against the schema" "$coll" --check-report "$rep" --schema "$MW_LAB_REPO/doc/schemas/report.schema.json"
# (the note comes with the collector's action, just after the verdict)
wait_for 30 "grep -q 'no node drained' '$rep'"
jvs "$rep" '[e["detail"] for e in d["timeline"] if e["event"] == "note"]' \
    'len([a for a in d["actions"] if a["action"] in ("drain", "cancel", "requeue")])'
like "${JV[0]}" "no node drained" "the timeline says nothing was drained"
is "${JV[1]}" 0 "no drain, cancel or requeue was requested"
# Slurm's own view, now that the collector has acted (before Slurm's
# SlurmdTimeout could end the job itself): running, never requeued.
sj=$(scontrol -o show job "$jid" 2>&1)
like "$sj" "JobState=RUNNING " "Slurm: the job still runs, not cancelled"
like "$sj" " Restarts=0 " "Slurm: the job was never requeued (Restarts=0)"
alive=
for p in $pids; do kill -0 "$p" 2>/dev/null && alive+="$p "; done
is "$alive" "$pids" "every process of the job stays alive: the same 8 ranks and 4 agents run"
sleep 3
# (Slurm itself may mark the cut nodes down after SlurmdTimeout: not ours.)
is "$(sinfo -h -R -o '%N %E' | grep -c mpiwatch)" 0 "no node is drained by mpiwatch"
# (Slurm may end the job itself once the cut nodes miss SlurmdTimeout and
# forget it soon after: the collector's record of the comment is read.)
is "$(jv "$rep" '[a["ok"] for a in d["actions"] if a["action"] == "comment"]')" "[True]" \
    "the summary was posted as the job's comment"
link_set n3 up; link_set n4 up
scancel "$jid"
lab_job_wait "$jid" 120 >/dev/null
# Slurm may have marked the cut nodes down meanwhile (SlurmdTimeout): an
# admin's resume, as after any outage.
for n in n3 n4; do
    lab_node_is $n 'down.*|idle\*|drain.*' && scontrol update NodeName=$n State=RESUME >/dev/null 2>&1
done
wait_for 120 "lab_node_is n3 idle && lab_node_is n4 idle"
like "$(lab_node_state n3) $(lab_node_state n4)" "^idle idle$" "n3 and n4 are back and idle"
done_testing
