#!/bin/bash
# Collector scenario 2 under MPICH (3 nodes, srun --mpi=pmi2): the same
# checks as 0401.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"

plan 12
lab_require 3
col_deadlock_scenario mpich pmi2
done_testing
