#!/bin/bash
# Detection you can act on, on the lab (issue 19): a correct job whose one
# transfer lasts several times the timeout runs to its end even with
# action=cancel, and its report says the receiving rank was slow, not stuck;
# a rank the MPI library aborts inside a call is reported as ended in that
# call, with no deadlock claimed; an MPI_Ireduce whose root differs between
# the ranks is found as a root mismatch (MPICH, srun --mpi=pmi2).
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"

plan 14
lab_require 3
schema=$MW_LAB_REPO/doc/schemas/report.schema.json
coll=$MW_LAB_REPO/build/bin/mpiwatch-collector
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"

# --- a slow transfer between two nodes (384 MB of one-byte blocks over TCP)
prog=$(lab_prog openmpi run_slowxfer)
jid=$(lab_sbatch mwuser1 -N2 -n2 --mpiwatch=timeout=1,action=cancel -o "$dir/slow.out" \
    --wrap "srun --mpi=pmix $prog 384")
like "$jid" '^[0-9]+$' "slow transfer: a correct job with action=cancel submitted"
tap_cleanup "scancel $jid 2>/dev/null"
out=$dir/mpiwatch-$jid
is "$(lab_job_wait "$jid" 300)" COMPLETED "slow transfer: the job completes, it is not cancelled" ||
    diag "$(cat "$out/report.txt" "$dir/slow.out" 2>&1 | head -60)"
like "$(cat "$dir/slow.out")" "slowxfer done: 402653184 bytes" "slow transfer: its output is complete"
wait_for 60 "grep -q shutdown '$out/report.json'"
ok_cmd "slow transfer: report.json is valid against the schema" "$coll" --check-report "$out/report.json" --schema "$schema"
is "$(jv "$out/report.json" 'd["verdict"], d["confirmed"], d["deadlock"]["found"], len(d["actions"])')" \
    "('none', False, False, 0)" "slow transfer: verdict none, nothing confirmed, no deadlock, no action"
like "$(jv "$out/report.json" '" | ".join(e["detail"] for e in d["timeline"])')" \
    "rank 1 slow, not stuck: in MPI_Wait .*its transfer moves" \
    "slow transfer: the receiving rank was seen slow, not stuck"

# --- a rank aborted by the MPI library inside MPI_Bcast
prog=$(lab_prog openmpi run_argerror)
jid=$(lab_sbatch mwuser1 -N3 -n3 --mpiwatch=timeout=2 -o "$dir/arg.out" --wrap "srun --mpi=pmix $prog")
like "$jid" '^[0-9]+$' "argument error: job submitted"
tap_cleanup "scancel $jid 2>/dev/null"
out=$dir/mpiwatch-$jid
isnt "$(lab_job_wait "$jid" 300)" COMPLETED "argument error: the job fails"
wait_for 60 "grep -q shutdown '$out/report.json'"
like "$(jv "$out/report.json" '" | ".join(c["cause"] + " " + c["ranks_text"] + ": " + c["detail"] for c in d["causes"])')" \
    "B [0-9,-]*1[0-9,-]*: .*(inside|in) MPI_Bcast" "argument error: rank 1 is reported as ended inside MPI_Bcast"
is "$(jv "$out/report.json" 'd["deadlock"]["found"]')" False "argument error: no deadlock is claimed"
is "$(jv "$out/report.json" 'd["ranks"][1]["state"] in ("vanished", "exited")')" True \
    "argument error: rank 1's state is ended, not in_mpi"

# --- MPI_Ireduce with different roots, under MPICH
prog=$(lab_prog mpich dl_iroot)
jid=$(lab_sbatch mwuser1 -N2 -n2 --mpiwatch=timeout=2 -o "$dir/iroot.out" --wrap "srun --mpi=pmi2 $prog reduce")
like "$jid" '^[0-9]+$' "MPI_Ireduce root mismatch (MPICH): job submitted"
tap_cleanup "scancel $jid 2>/dev/null"
out=$dir/mpiwatch-$jid
wait_for 180 "grep -q '\"verdict\": *\"software\"' '$out/report.json' && grep -q '\"source\": *\"analyze\"' '$out/report.json'"
is "$(jv "$out/report.json" 'd["deadlock"]["kind"], d["deadlock"]["analysis"]["cause"]')" \
    "('collective_mismatch', 'root_mismatch')" "MPI_Ireduce root mismatch (MPICH): found as root_mismatch"
scancel "$jid" 2>/dev/null
lab_job_wait "$jid" 120 >/dev/null
wait_for 120 lab_all_idle
ok_cmd "the lab is idle again" lab_all_idle
done_testing
