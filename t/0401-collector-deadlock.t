#!/bin/bash
# Collector scenario 2: a ring of blocking receives (Open MPI, 3 nodes,
# srun --mpi=pmix) gives verdict software, cause B for every rank, a deadlock
# found by the analysis, the dumps copied into the job's directory and the
# verdict as the job's comment.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"

plan 12
lab_require 3
col_deadlock_scenario openmpi pmix
done_testing
