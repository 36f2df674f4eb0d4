#!/bin/bash
# An Open MPI ring across three lab nodes: srun --mpi=pmix -N3 -n6.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"

plan 10
lab_require 3
ring=$(lab_prog openmpi ring)
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"

out=$(timeout 300 runuser -u mwuser1 -- env SLURM_CONF="$SLURM_CONF" \
    srun --mpi=pmix -N3 -n6 "$ring" 2>&1)
ok $? "srun --mpi=pmix -N3 -n6 ring (Open MPI) exits 0"
note "$out"
lab_check_ring "$out" 6 3 "Open MPI ring"

ring_f=$(lab_prog openmpi ring_f)
out=$(timeout 300 runuser -u mwuser1 -- env SLURM_CONF="$SLURM_CONF" \
    srun --mpi=pmix -N3 -n6 "$ring_f" 2>&1)
ok $? "srun --mpi=pmix -N3 -n6 ring_f (Fortran, Open MPI) exits 0"
note "$out"
lab_check_ring "$out" 6 3 "Open MPI Fortran ring"

done_testing
