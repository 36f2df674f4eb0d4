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
prog=$(lab_prog openmpi col_steady)
coll=$MW_LAB_REPO/build/bin/mpiwatch-collector
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"
col_storm_raise # a wrong drain must not be hidden by the storm guard
link_set() { ip link set "mwl$MW_LAB_ID-$1" "$2"; }
tap_cleanup "link_set n3 up; link_set n4 up"

jid=$(lab_sbatch mwuser1 --no-requeue -N4 -n8 -w "n[1-4]" --mpiwatch=timeout=2 -o "$dir/job.out" \
    --wrap "srun --mpi=pmix $prog 600")
like "$jid" '^[0-9]+$' "a 4-node job submitted"
tap_cleanup "scancel $jid 2>/dev/null"
wait_for 120 "test \$(col_connected '$dir' $jid n1) -ge 4"
cmp_ok "$(col_connected "$dir" "$jid" n1)" -ge 4 "the 4 agents are connected"
wait_for 60 "grep -q 'steady: running' '$dir/job.out'"
link_set n3 down && link_set n4 down
ok $? "links of n3 and n4 down (their processes alive)"

rep=$dir/mpiwatch-$jid/report.json
wait_for 120 "grep -q '\"verdict\": *\"hardware\"' '$rep'"
is "$(jv "$rep" 'd["verdict"]')" hardware "verdict hardware: nodes do not answer"
is "$(jv "$rep" 'd["partition_suspected"]')" True "partition_suspected"
like "$(jv "$rep" 'd["summary"]')" "network partition suspected: 2 of the job's 4 nodes \(n\[3-4\]\)" \
    "the summary says a partition is suspected and names n[3-4]"
is "$(jv "$rep" 'd["confirmed"]')" False "not a confirmed verdict"
ok_cmd "report.json is valid against the schema" "$coll" --check-report "$rep" --schema "$MW_LAB_REPO/doc/schemas/report.schema.json"
like "$(jv "$rep" '[e["detail"] for e in d["timeline"] if e["event"] == "note"]')" "no node drained" \
    "the timeline says nothing was drained"
is "$(jv "$rep" 'len([a for a in d["actions"] if a["action"] in ("drain", "cancel", "requeue")])')" 0 \
    "no drain, cancel or requeue was requested"
sleep 3
# (Slurm itself may mark the cut nodes down after SlurmdTimeout: not ours.)
is "$(sinfo -h -R -o '%N %E' | grep -c mpiwatch)" 0 "no node is drained by mpiwatch"
wait_for 30 "scontrol show job $jid | grep -q 'Comment=mpiwatch: network partition'"
like "$(scontrol show job "$jid")" "Comment=mpiwatch: network partition suspected" "the job's comment says so"
link_set n3 up; link_set n4 up
scancel "$jid"
lab_job_wait "$jid" 120 >/dev/null
wait_for 120 "lab_node_is n3 'idle|mix.*|alloc.*' && lab_node_is n4 'idle|mix.*|alloc.*'"
like "$(lab_node_state n3) $(lab_node_state n4)" "^idle idle$" "n3 and n4 are back and idle"
done_testing
