#!/bin/bash
# Issue 12 end to end on the lab: examples/imbalance.c (rank r does r+1
# units of work) run with --mpiwatch=profile across 3 nodes.  At the end of
# the job its report folder holds the load-imbalance analysis: computation is
# the imbalanced group, the highest ranks are the slow ones, the low ranks'
# barrier waiting is the consequence; the HTML page is beside it.  Then a job
# of two steps of different sizes: one analysis per step, not a mix.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"
. "$(dirname "$0")/lib/run.sh"  # imb

plan no_plan
lab_require 3
prog=$(lab_prog openmpi imbalance)
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"

# 60 steps: each step's work is a few ms, and 6 ranks share 2 cores; over 6
# steps a low rank descheduled for a few time slices once looked like the
# slowest (session 14's full run), over 60 the slices even out.
jid=$(lab_sbatch mwuser1 -N3 -n6 --mpiwatch=profile -o "$dir/job.out" --wrap "srun --mpi=pmix $prog 60")
like "$jid" '^[0-9]+$' "profiled job submitted"
tap_cleanup "scancel $jid 2>/dev/null"
st=$(lab_job_wait "$jid" 240)
is "$st" COMPLETED "the job completes"
out=$dir/mpiwatch-$jid
is "$(cat "$dir/job.out")" "imbalance: 6 ranks, 60 steps done" "the program's output is its own"
ok_cmd "the six ranks' profiles are in the step's folder" \
    test -s "$out/profile/step0/profile.0.0.0" -a -s "$out/profile/step0/profile.5.0.0"
wait_for 60 "test -s '$out/imbalance.txt'"
txt=$(cat "$out/imbalance.txt" 2>&1)
like "$txt" "computation is the most imbalanced group" "imbalance.txt names computation"
# (6 ranks share this machine's 2 cores: neighbours' order is noise, halves are not)
is "$(imb "$out/imbalance.json" 'g["computation"]["max_process"] in ("3", "4", "5")')" True \
    "a high rank (most work) is the slowest"
is "$(imb "$out/imbalance.json" 'bool({"4", "5"} & set(g["computation"]["top_processes"])) and "0" not in g["computation"]["top_processes"]')" \
    True "the high ranks are the ones above the mean in computation"
is "$(imb "$out/imbalance.json" 'g["communication.collective"]["max_process"] in ("0", "1", "2")')" True \
    "a low rank (least work) waits longest in collectives"
like "$txt" "in MPI_Barrier\(\)" "the low ranks' waiting is in MPI_Barrier"
like "$txt" "a consequence: they wait for the slow rank" "the waiting is reported as the consequence"
like "$(head -c 300 "$out/imbalance.html" 2>&1)" "<!DOCTYPE html>" "the interactive page is beside it"
like "$(jv "$out/report.json" '[e["detail"] for e in d["timeline"] if "imbalance" in e["detail"]]')" \
    "load imbalance of the job|load imbalance of step0" "the report's timeline says where the analysis is"
is "$(jv "$out/report.json" 'd["verdict"]')" none "verdict none: imbalance is not a failure"

# two steps of different sizes: one analysis each
jid2=$(lab_sbatch mwuser1 -N3 -n6 --mpiwatch=profile -o "$dir/job2.out" \
    --wrap "srun --mpi=pmix -n6 $prog 3; srun --mpi=pmix -n3 $prog 3")
tap_cleanup "scancel $jid2 2>/dev/null"
is "$(lab_job_wait "$jid2" 240)" COMPLETED "a job of two profiled steps completes"
out2=$dir/mpiwatch-$jid2
wait_for 60 "test -s '$out2/imbalance.step1.json'"
is "$(imb "$out2/imbalance.step0.json" 'len(r["processes"])')" 6 "step 0: its own 6 processes"
is "$(imb "$out2/imbalance.step1.json" 'len(r["processes"])')" 3 "step 1: its own 3 processes"
nok_cmd "no mixed analysis of both steps" test -e "$out2/imbalance.txt"
done_testing
