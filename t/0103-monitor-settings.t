#!/bin/bash
# The monitor reads the job's settings file (MPIWATCH_SETTINGS, what the
# plugin and mpiwatch run give it) and nothing else: a MPIWATCH_PROFILE or
# MPIWATCH_DIR left in the user's environment does not change where the
# profile and the dumps land, nor whether a profile is written.  What a user
# checks: the profile is where the settings say, and nowhere else.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/monitor.sh"

plan no_plan
work=$(mktemp -d /tmp/mpiwatch-t0103.XXXXXX)
tap_cleanup "rm -rf $work"
cd "$work" || BAIL_OUT "cd $work"
settings() { # FILE KEY=VALUE...: a settings file as the launchers write it
    local f=$1
    shift
    printf '%s\n' "# mpiwatch: this job's settings" "$@" >"$f"
}
p=$MON_TOP/build/progs
for mpi in openmpi mpich; do
    # profile = no in the settings, a stray MPIWATCH_PROFILE: no profile
    settings "$work/$mpi-off.conf" "dir = $work/$mpi-off" "profile = no"
    mon_cmd $mpi 2 "MPIWATCH_SETTINGS=$work/$mpi-off.conf" "MPIWATCH_PROFILE=$work/$mpi-stray" \
        -- "$p/$mpi/mon_correct"
    timeout 300 "${MON_CMD[@]}" >/dev/null 2>&1
    ok $? "$mpi: the run with profile = no exits 0"
    nok_cmd "$mpi: profile = no: nothing in the stray MPIWATCH_PROFILE folder" test -e "$work/$mpi-stray"
    nok_cmd "$mpi: profile = no: no profile folder at all" test -e "$work/$mpi-off/profile"

    # profile = yes: the profile lands in the settings' folder, not the stray one
    settings "$work/$mpi-on.conf" "dir = $work/$mpi-on" "profile = yes" "profile_dir = $work/$mpi-on/prof"
    mon_cmd $mpi 2 "MPIWATCH_SETTINGS=$work/$mpi-on.conf" "MPIWATCH_PROFILE=$work/$mpi-stray" \
        "MPIWATCH_DIR=$work/$mpi-straydir" -- "$p/$mpi/mon_correct"
    timeout 300 "${MON_CMD[@]}" >/dev/null 2>&1
    ok $? "$mpi: the run with profile = yes exits 0"
    ok_cmd "$mpi: profile = yes: both ranks' profiles in the settings' folder" \
        test -s "$work/$mpi-on/prof/profile.0.0.0" -a -s "$work/$mpi-on/prof/profile.1.0.0"
    nok_cmd "$mpi: profile = yes: nothing in the stray MPIWATCH_PROFILE folder" test -e "$work/$mpi-stray"

    # the dumps of a hang go to the settings' dir, not to a stray MPIWATCH_DIR
    settings "$work/$mpi-dl.conf" "dir = $work/$mpi-dl" "timeout = 1"
    mon_cmd $mpi 2 "MPIWATCH_SETTINGS=$work/$mpi-dl.conf" "MPIWATCH_DIR=$work/$mpi-straydir" \
        -- "$p/$mpi/mon_deadlock"
    mon_bg_start "$work/$mpi-dl.out"
    mon_wait_files "$work/$mpi-dl/dumps" 2 120
    ok $? "$mpi: both deadlocked ranks wrote their dump in the settings' dir/dumps"
    mon_bg_stop
    nok_cmd "$mpi: nothing in the stray MPIWATCH_DIR" test -e "$work/$mpi-straydir"
done
done_testing
