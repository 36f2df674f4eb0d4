#!/bin/bash
# Collector scenario 6: with slurmrestd in the lab and restd=URL on the
# plugin line, the verdict is posted as the job's comment through
# slurmrestd (JWT from "scontrol token") and shows in "scontrol show job".
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"

plan 6
lab_require 3 --restd
[ -n "${MW_LAB_RESTD_URL:-}" ] || BAIL_OUT "lab $MW_LAB_PREFIX has no slurmrestd"
prog=$(lab_prog openmpi col_deadlock)
col_plugin_args "restd=$MW_LAB_RESTD_URL"
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"

jid=$(lab_sbatch mwuser1 -N3 -n6 --mpiwatch=timeout=2 -o "$dir/job.out" --wrap "srun --mpi=pmix $prog")
like "$jid" '^[0-9]+$' "deadlocking job submitted"
tap_cleanup "scancel $jid 2>/dev/null"
out=$dir/mpiwatch-$jid
wait_for 180 "grep -q '\"action\": *\"comment\"' '$out/report.json'"
is "$(jv "$out/report.json" '[a["ok"] for a in d["actions"] if a["action"] == "comment"]')" "[True]" "the comment was posted"
like "$(jv "$out/report.json" '[a["message"] for a in d["actions"] if a["action"] == "comment"][0]')" \
    "posted through http.*/slurm/v0.0.38/job/$jid" "through slurmrestd's API v0.0.38"
wait_for 30 "scontrol show job $jid | grep -q 'Comment=mpiwatch: deadlock'"
like "$(scontrol show job "$jid")" "Comment=mpiwatch: deadlock: ranks 0-5 wait for each other in MPI_Recv" \
    "scontrol show job shows the verdict as the comment"
ok_cmd "scancel the job" scancel "$jid"
lab_job_wait "$jid" 120 >/dev/null
done_testing
