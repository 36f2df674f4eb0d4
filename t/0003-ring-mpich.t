#!/bin/bash
# An MPICH ring across three lab nodes.  Debian's MPICH 4.0.2 (ch4:ucx,
# hydra) has no PMIx client: under srun it needs --mpi=pmi2 (Slurm's PMI2
# plugin also serves MPICH's PMI-1 wire protocol).  The other way, mpiexec
# (hydra) with its slurm launcher inside an allocation, is tested too.
# See doc/lab.md, "MPICH".
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"

plan 16
lab_require 3
ring=$(lab_prog mpich ring)
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"

out=$(timeout 300 runuser -u mwuser1 -- env SLURM_CONF="$SLURM_CONF" \
    srun --mpi=pmi2 -N3 -n6 "$ring" 2>&1)
ok $? "srun --mpi=pmi2 -N3 -n6 ring (MPICH) exits 0"
note "$out"
lab_check_ring "$out" 6 3 "MPICH ring under srun --mpi=pmi2"

id=$(lab_sbatch mwuser1 -N3 -n6 -o "$dir/hydra.out" -D "$dir" \
    --wrap "mpiexec.mpich -launcher slurm -n 6 $ring")
like "$id" '^[0-9]+$' "sbatch -N3 -n6 of mpiexec.mpich -launcher slurm accepted"
st=$(lab_job_wait "$id" 300)
like "$st" '^(COMPLETED|GONE)$' "the mpiexec.mpich job completed ($st)"
out=$(cat "$dir/hydra.out" 2>&1)
note "$out"
lab_check_ring "$out" 6 3 "MPICH ring under mpiexec.mpich in sbatch"

ring_f=$(lab_prog mpich ring_f)
out=$(timeout 300 runuser -u mwuser1 -- env SLURM_CONF="$SLURM_CONF" \
    srun --mpi=pmi2 -N3 -n6 "$ring_f" 2>&1)
ok $? "srun --mpi=pmi2 -N3 -n6 ring_f (Fortran, MPICH) exits 0"
note "$out"
lab_check_ring "$out" 6 3 "MPICH Fortran ring"

done_testing
