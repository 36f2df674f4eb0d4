#!/bin/bash
# Collector scenario 12 (issue 35 item 2, the Slurm side): rank 2 computes
# forever outside MPI while ranks 0, 1 and 3 wait for it in MPI_Barrier
# (run_spin.c:21).  Past the hang limit (8 s) the collector answers with the
# computing rank and the waiting ranks' line, and action=cancel ends the job.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"

plan 7
lab_require 3
prog=$(lab_prog openmpi run_spin)
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"

jid=$(lab_sbatch mwuser1 -N2 -n4 --mpiwatch=timeout=2,hang_limit=8,action=cancel -o "$dir/job.out" \
      --wrap "srun --mpi=pmix $prog")
like "$jid" '^[0-9]+$' "a job whose rank 2 computes forever submitted, action=cancel"
tap_cleanup "scancel $jid 2>/dev/null"
is "$(lab_job_wait "$jid" 240)" CANCELLED "the job is cancelled once the hang limit passes" ||
    diag "$(cat "$dir/job.out" 2>&1 | tail -20)"
out=$dir/mpiwatch-$jid
wait_for 60 "grep -q '\"action\": *\"cancel\"' '$out/report.json'"
is "$(jv "$out/report.json" 'd["verdict"]')" software "the verdict is software"
like "$(head -1 "$out/report.txt")" \
     '^hang: rank 2 has computed outside MPI for [0-9]+ s; ranks 0-1,3 wait for it in MPI_Barrier \(run_spin\.c:21\)' \
     "the answer names the computing rank and the line the others wait at"
is "$(jv "$out/report.json" '",".join(sorted("%s:%s" % (c["cause"], c["ranks_text"]) for c in d["causes"]))')" \
   "B:2,C:0-1,3" "the computing rank is cause B, the waiting ranks C"
like "$(jv "$out/report.json" 'd["confirmed_by"]')" 'rank 2 computed outside MPI for [0-9]+ s, past the hang limit' \
     "confirmed by the hang limit"
is "$(jv "$out/report.json" '[a["ok"] for a in d["actions"] if a["action"] == "cancel"]')" "[True]" \
   "the report records the cancel"
done_testing
