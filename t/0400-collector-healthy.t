#!/bin/bash
# Collector scenario 1: a healthy 3-node Open MPI job under --mpiwatch sends
# no heartbeat at all and gets a report with verdict "none"; the helpers'
# logs stay with the report after the job (bounded: see test_log).
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"

plan 12
lab_require 3
prog=$(lab_prog openmpi col_steady)
schema=$MW_LAB_REPO/doc/schemas/report.schema.json
coll=$MW_LAB_REPO/build/bin/mpiwatch-collector
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"

jid=$(lab_sbatch mwuser1 -N3 -n6 --mpiwatch=timeout=2 -o "$dir/job.out" --wrap "srun --mpi=pmix $prog 8")
like "$jid" '^[0-9]+$' "a 3-node job with --mpiwatch=timeout=2 submitted"
is "$(lab_job_wait "$jid" 300)" COMPLETED "the healthy job completes"
out=$dir/mpiwatch-$jid
wait_for 60 "grep -q shutdown '$out/report.json' && test -s '$out/collector-stats.json'"  # the final report
ok_cmd "report.json is valid against the schema" "$coll" --check-report "$out/report.json" --schema "$schema"
is "$(jv "$out/report.json" 'd["verdict"]')" none "verdict none"
is "$(jv "$out/collector-stats.json" 'd["heartbeats"]')" 0 "zero heartbeats received (collector stats)"
is "$(jv "$out/report.json" 'len(d["causes"])')" 0 "no cause listed"
is "$(jv "$out/report.json" '",".join(n["name"] for n in d["nodes"] if n["agent"] != "never")')" "n1,n2,n3" \
    "the agent of every node connected"
like "$(cat "$out/report.txt" 2>&1)" "verdict none" "report.txt says verdict none"
like "$(cat "$dir/job.out")" "steady done" "the program's output is intact"
logs=$out/logs
is "$(cd "$logs" 2>/dev/null && ls | tr '\n' ' ')" \
    "mpiwatch-agent-n1.log mpiwatch-agent-n2.log mpiwatch-agent-n3.log mpiwatch-collector-n1.log " \
    "the agents' and the collector's logs are in the report folder after the job"
like "$(cat "$logs/mpiwatch-collector-n1.log")" "connected from" "the collector's log shows the agents connecting"
is "$(stat -c %U "$logs/mpiwatch-agent-n2.log")" mwuser1 "the logs belong to the job's user"
done_testing
