#!/bin/bash
# libmpiwatch under MPICH's mpiexec (hydra) (no Slurm): deadlock dumps (C, split
# communicator, Fortran), no dump for computing, identical output of a
# correct program, polling, unexpected messages, MPIWATCH_DISABLE and a bad
# timeout in the settings file.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/monitor.sh"
. "$(dirname "$0")/lib/monitor-mpirun.sh"

plan no_plan
mon_mpirun_tests mpich
done_testing
