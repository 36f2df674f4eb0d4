#!/bin/bash
# Issue 30, item 8 (with item 6's fix): another user takes the run folder's
# name first.  Job ids are predictable; mwuser2 creates, on the node,
# /dev/shm/mpiwatch.UID.JOB.n1 for mwuser1's next job (held, then released):
# a file, a symbolic link to a folder of mwuser2, a folder of mode 0777.
# mwuser1's job is still watched as usual: its output has no "not watching"
# line and is intact, the report exists, the node's agent connected; nothing
# is written where mwuser2's link points.  With strict=yes (the site's
# plugin line, "required") a squatted job is not failed.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"

plan no_plan
lab_require 2
conf=$MW_LAB_DIR/plugstack.conf.d/mpiwatch.conf
[ -r "$conf" ] || BAIL_OUT "the lab has no mpiwatch plugin line ($conf)"
conf_saved=$(cat "$conf")
tap_cleanup "printf '%s\n' '$conf_saved' > '$conf'"
prog=$(lab_prog openmpi col_steady)
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"
uid1=$(id -u mwuser1)
m2=/dev/shm/mwuser2-own
lab_exec -u mwuser2 n1 sh -c "rm -rf $m2; mkdir -m 0755 $m2"
tap_cleanup "lab_exec n1 rm -rf $m2"

# squatted HOW [LABEL]: a job of mwuser1 on n1 whose run folder's name
# mwuser2 took first (HOW: file, link, dir0777).
squatted() {
    local how=$1 label="$1${2:+ ($2)}" jid rd st out
    jid=$(lab_sbatch mwuser1 -H -N1 -n2 -w n1 --mpiwatch=timeout=2 -o "$dir/job-$how.out" \
        --wrap "srun --mpi=pmix $prog 3")
    like "$jid" '^[0-9]+$' "$label: a held job of mwuser1 (its id known in advance)"
    tap_cleanup "scancel $jid 2>/dev/null"
    rd=/dev/shm/mpiwatch.$uid1.$jid.n1
    case $how in
        file) lab_exec -u mwuser2 n1 sh -c "echo squat > $rd" ;;
        link) lab_exec -u mwuser2 n1 ln -s "$m2" "$rd" ;;
        dir0777) lab_exec -u mwuser2 n1 sh -c "mkdir $rd && chmod 0777 $rd" ;;
    esac
    like "$(lab_exec n1 stat -c %U "$rd" 2>&1)" "^mwuser2$" "$label: mwuser2 took $rd first"
    scontrol release "$jid"
    st=$(lab_job_wait "$jid" 180)
    is "$st" COMPLETED "$label: the job completes"
    out=$(cat "$dir/job-$how.out")
    like "$out" "steady done" "$label: the program's output is intact"
    unlike "$out" "not watching" "$label: the job is watched (no 'not watching' line)"
    ok_cmd "$label: the watch report exists" test -s "$dir/mpiwatch-$jid/report.json"
    like "$(cat "$dir/mpiwatch-$jid/logs/mpiwatch-collector-n1.log" 2>&1)" "agent of n1 connected" \
        "$label: the node's agent connected to the collector"
    is "$(lab_exec n1 ls -A "$m2")" "" "$label: nothing written where mwuser2's link pointed"
}

squatted file
squatted link
squatted dir0777

# strict=yes on a "required" plugin line: a step that cannot be watched fails.
# With srun (a failed batch step would drain the node): the next job id is
# the one after a job just submitted, as an attacker would guess it.
printf '%s strict=yes\n' "$(sed 's/^optional /required /' <<<"$conf_saved")" >"$conf"
for how in dir0777 link; do
    label="$how (strict=yes, srun)"
    jid=$(lab_sbatch mwuser1 -H -N1 -n1 -w n1 -o /dev/null --wrap true)
    scancel "$jid"
    next=$((jid + 1))
    rd=/dev/shm/mpiwatch.$uid1.$next.n1
    case $how in
        link) lab_exec -u mwuser2 n1 ln -s "$m2" "$rd" ;;
        dir0777) lab_exec -u mwuser2 n1 sh -c "mkdir $rd && chmod 0777 $rd" ;;
    esac
    like "$(lab_exec n1 stat -c %U "$rd" 2>&1)" "^mwuser2$" "$label: mwuser2 took $rd first"
    out=$(cd "$dir" && lab_as mwuser1 timeout 120 srun --mpiwatch=timeout=2 -N1 -n2 -w n1 --mpi=pmix "$prog" 3 2>&1)
    st=$?
    is "$st" 0 "$label: srun's exit status is 0"
    unlike "$out" "launch failed" "$label: the step is not failed (srun says 'launch failed' and still exits 0)"
    like "$out" "steady done" "$label: the program's output is intact"
    unlike "$out" "not watching" "$label: the job is watched (no 'not watching' line)"
    ok_cmd "$label: the watch report of job $next exists" test -s "$dir/mpiwatch-$next/report.json"
    is "$(lab_exec n1 ls -A "$m2")" "" "$label: nothing written where mwuser2's link pointed"
done

done_testing
