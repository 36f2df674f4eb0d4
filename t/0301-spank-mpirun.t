#!/bin/bash
# Every launch path is watched: inside a batch job with --mpiwatch, ranks
# started by Open MPI's mpirun (orted launched through srun) and by MPICH's
# mpiexec (hydra's proxies launched through srun) get the monitor on every
# node, whether they are the launcher's children on the batch node or the
# remote daemons' children, and a deadlock among them is found as it is for
# srun steps.  A healthy mpirun job's output and exit status are unchanged.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"

plan 13
lab_require 2
schema=$MW_LAB_REPO/doc/schemas/report.schema.json
coll=$MW_LAB_REPO/build/bin/mpiwatch-collector
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"

# mpirun_deadlock NAME LAUNCH: a 4-rank ring of blocking receives on 2 nodes,
# started by LAUNCH inside the batch script.
mpirun_deadlock() {
    local name=$1 launch=$2 jid out
    jid=$(lab_sbatch mwuser1 -N2 -n4 --mpiwatch=timeout=2 -o "$dir/$name.out" --wrap "$launch")
    tap_cleanup "scancel $jid 2>/dev/null"
    out=$dir/mpiwatch-$jid
    wait_for 120 "grep -q '\"verdict\": *\"software\"' '$out/report.json'"
    is "$(jv "$out/report.json" 'd["verdict"]')" software "$name: verdict software"
    ok_cmd "$name: report.json is valid against the schema" "$coll" --check-report "$out/report.json" --schema "$schema"
    is "$(jv "$out/report.json" 'sorted(d["deadlock"]["ranks"])')" "[0, 1, 2, 3]" \
        "$name: the deadlock names the 4 ranks, on both nodes"
    is "$(jv "$out/report.json" '",".join(n["name"] for n in d["nodes"] if n["agent"] != "never")')" "n1,n2" \
        "$name: the agent of both nodes connected"
    scancel "$jid"
    lab_job_wait "$jid" 60 >/dev/null
}

mpirun_deadlock "mpirun (Open MPI)" "mpirun -np 4 $(lab_prog openmpi col_deadlock)"
mpirun_deadlock "mpiexec (MPICH, hydra)" "mpiexec.mpich -launcher slurm -n 4 $(lab_prog mpich col_deadlock)"

# A healthy program under mpirun: its output and exit status are the same
# watched and unwatched.
steady=$(lab_prog openmpi col_steady)
for w in on off; do
    opt=--mpiwatch=timeout=2; [ $w = off ] && opt=--mpiwatch=off
    jid=$(lab_sbatch mwuser1 -N2 -n4 $opt -o "$dir/steady-$w.out" --wrap "mpirun -np 4 $steady 3; echo rc=\$?")
    is "$(lab_job_wait "$jid" 120)" COMPLETED "mpirun healthy, watch $w: the job completes"
    [ $w = on ] && jid_on=$jid
done
out=$dir/mpiwatch-$jid_on
wait_for 60 "grep -q shutdown '$out/report.json'"  # the final report
is "$(jv "$out/report.json" 'd["verdict"]')" none "mpirun healthy: verdict none"
is "$(cat "$dir/steady-on.out")" "$(cat "$dir/steady-off.out")" \
    "mpirun healthy: the job's output (and mpirun's exit status) is the same watched and unwatched"
like "$(cat "$dir/steady-on.out")" "steady done.*rc=0" "mpirun healthy: the program ran to its end, status 0"
done_testing
