#!/bin/bash
# Under the SPANK plugin the monitor takes the profile from the job's
# settings file only: a MPIWATCH_PROFILE or MPIWATCH_DIR the user left in
# the job's environment neither turns the profile on nor moves it.  What the
# user checks: with --mpiwatch the stray folder stays empty and no profile is
# written, and a watched step's environment holds the settings file's name
# but no MPIWATCH_COLLECTOR (set once, read by nobody); with --mpiwatch=profile the profiles are in the report folder's
# profile/step0, and the stray folders stay empty.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"

plan no_plan
lab_require 2
prog=$(lab_prog openmpi imbalance)
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"

stray="ALL,MPIWATCH_PROFILE=$dir/stray-prof,MPIWATCH_DIR=$dir/stray-dir"
jid=$(lab_sbatch mwuser1 -N2 -n2 --mpiwatch --export="$stray" -o "$dir/off.out" \
    --wrap "srun --mpi=pmix $prog 2; srun -N1 -n1 env >$dir/env.out")
like "$jid" '^[0-9]+$' "a watched job without profile, MPIWATCH_PROFILE in its environment"
tap_cleanup "scancel $jid 2>/dev/null"
is "$(lab_job_wait "$jid" 240)" COMPLETED "it completes"
is "$(cat "$dir/off.out")" "imbalance: 2 ranks, 2 steps done" "the program's output is its own"
nok_cmd "no profile in the stray MPIWATCH_PROFILE folder" test -e "$dir/stray-prof"
nok_cmd "no profile in the report folder either (profile is off)" test -e "$dir/mpiwatch-$jid/profile"
# The step's environment: the settings file named (jobconf.h's one
# environment variable for the settings), no variable nobody reads.
ok_cmd "a watched step's environment names the job's settings file" grep -q '^MPIWATCH_SETTINGS=' "$dir/env.out"
nok_cmd "and carries no MPIWATCH_COLLECTOR (nothing reads it)" grep -q '^MPIWATCH_COLLECTOR=' "$dir/env.out"

jid2=$(lab_sbatch mwuser1 -N2 -n2 --mpiwatch=profile --export="$stray" -o "$dir/on.out" \
    --wrap "srun --mpi=pmix $prog 2")
tap_cleanup "scancel $jid2 2>/dev/null"
is "$(lab_job_wait "$jid2" 240)" COMPLETED "a profiled job with a stray MPIWATCH_PROFILE completes"
out=$dir/mpiwatch-$jid2
ok_cmd "both ranks' profiles are in the report folder's profile/step0" \
    test -s "$out/profile/step0/profile.0.0.0" -a -s "$out/profile/step0/profile.1.0.0"
nok_cmd "nothing in the stray MPIWATCH_PROFILE folder" test -e "$dir/stray-prof"
nok_cmd "nothing in the stray MPIWATCH_DIR" test -e "$dir/stray-dir"
done_testing
