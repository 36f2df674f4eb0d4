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

plan no_plan
lab_require 3
prog=$(lab_prog openmpi col_steady)
schema=$MW_LAB_REPO/doc/schemas/report.schema.json
coll=$MW_LAB_REPO/build/bin/mpiwatch-collector
tap_cleanup "'$MW_LAB_T/lab/exec' n3 hostname n3"
ok_cmd "n3's host name set to n3x" "$MW_LAB_T/lab/exec" n3 hostname n3x
is "$("$MW_LAB_T/lab/exec" n3 hostname)" n3x "n3 now calls itself n3x"

dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"
jid=$(lab_sbatch mwuser1 -N3 -n6 -w "n[1-3]" --mpiwatch=timeout=2 -o "$dir/job.out" \
    --wrap "srun --mpi=pmix $prog 12; echo srun-exit=\$?")
like "$jid" '^[0-9]+$' "a 12 s job on n[1-3] submitted"
tap_cleanup "scancel $jid 2>/dev/null"
st=$(lab_job_wait "$jid" 180)
is "$st" COMPLETED "the job completes"
like "$(cat "$dir/job.out")" "steady done" "the program's own output is complete"
like "$(cat "$dir/job.out")" "srun-exit=0" "srun exits 0"

out=$dir/mpiwatch-$jid
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
