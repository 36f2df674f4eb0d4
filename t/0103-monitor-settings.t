#!/bin/bash
# The monitor reads the job's settings file (MPIWATCH_SETTINGS, what the
# plugin and mpiwatch run give it) and nothing else: a MPIWATCH_PROFILE,
# MPIWATCH_DIR, MPIWATCH_DUMPDIR or MPIWATCH_RUNDIR left in the user's
# environment does not change where the profile, the dumps and the ranks'
# slots land, nor whether a profile is written.  What a user checks: the
# profile, the dumps and the slots are where the settings say, and nowhere
# else.
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

    # the dumps go to the settings' dump_dir (%h: the node's name) and the
    # slots to its slot_dir, not to a stray MPIWATCH_DUMPDIR or MPIWATCH_RUNDIR
    settings "$work/$mpi-dd.conf" "dir = $work/$mpi-dd" "timeout = 1" "dump_dir = $work/$mpi-dumps/%h" \
        "slot_dir = $work/$mpi-slots"
    mon_cmd $mpi 2 "MPIWATCH_SETTINGS=$work/$mpi-dd.conf" "MPIWATCH_DUMPDIR=$work/$mpi-straydumps" \
        "MPIWATCH_RUNDIR=$work/$mpi-strayslots" -- "$p/$mpi/mon_deadlock"
    mon_bg_start "$work/$mpi-dd.out"
    mon_wait_files "$work/$mpi-dumps/$(hostname -s)" 2 120
    ok $? "$mpi: both deadlocked ranks wrote their dump in the settings' dump_dir (%h: the node's name)"
    ok_cmd "$mpi: both ranks' slots are in the settings' slot_dir" \
        test -e "$work/$mpi-slots/rank-0" -a -e "$work/$mpi-slots/rank-1"
    mon_bg_stop
    nok_cmd "$mpi: nothing in the stray MPIWATCH_DUMPDIR" test -e "$work/$mpi-straydumps"
    nok_cmd "$mpi: nothing in the stray MPIWATCH_RUNDIR" test -e "$work/$mpi-strayslots"
    nok_cmd "$mpi: nor in the report folder's dumps" test -e "$work/$mpi-dd/dumps"
done
done_testing
