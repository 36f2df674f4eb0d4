#!/bin/bash
# nodehealthd's quick timer calibration on the lab (issue 14): each daemon
# calibrates at start and `mpiwatch status` shows it; a request while a job
# step runs on the node is skipped (the ranks keep their cores) unless root
# forces it, and a user cannot force it; a node made degraded by the
# calibration (a noise bound no machine meets) is reported degraded by
# status, its log and probes, and is not drained: a drain request by the
# owner of a job on it is refused, and Slurm never drains it.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"

plan 20
lab_require 3
M=$MW_LAB_REPO/build/bin/mpiwatch
[ -x "$M" ] || BAIL_OUT "build first: $M missing"
extra=$MW_LAB_DIR/nodehealthd.conf.extra
nhd_log() { echo "$MW_LAB_DIR/log/nodehealthd-$1.log"; }
restart_nhd() { lab_exec "$1" "$MW_LAB_T/lab/node.d/50-nodehealthd" start "$1" >/dev/null; }
runs() { lab_exec "$1" "$M" status -j 2>/dev/null | sed -n 's/.*"runs": \([0-9]*\).*/\1/p'; }
calibrated() { [ "$(runs "$1")" -ge "${2:-1}" ] 2>/dev/null; }
tap_cleanup "rm -f '$extra'; for n in n1 n2 n3; do '$MW_LAB_T/lab/exec' \$n '$MW_LAB_T/lab/node.d/50-nodehealthd' start \$n >/dev/null 2>&1; done"

# ---------------------------------------------------------------- at start
# Fresh daemons, so that the calibration at start is this build's.
echo "calibrate_min_interval = 0" >"$extra"
for n in n1 n2 n3; do restart_nhd "$n"; done
wait_for 30 calibrated n1
out=$(lab_exec n1 "$M" status 2>&1); st=$?
is "$st" 0 "mpiwatch status on n1 exits 0 (alive)" || diag "$out"
like "$out" 'calibration: ok: timers ok' "status shows n1's calibration at start: ok" || diag "$out"
like "$out" 'R0 [0-9.-]+ ns, resolution [0-9.-]+ ns, TSC [0-9.]+ GHz \(rate change [0-9.e+-]+ %\), 0 backward steps; [0-9.]+ s, [0-9.]+ CPU-s' \
    "... with its numbers" || diag "$out"
like "$(cat "$(nhd_log n1)")" 'calibration: ok: timers ok' "n1's nodehealthd logs its calibration"

# ---------------------------------------------------------------- job steps
wait_for 30 calibrated n2
before=$(runs n2)
job=$(lab_sbatch mwuser1 --no-requeue -N1 -w n2 -o /dev/null --wrap "sleep 300")
like "$job" '^[0-9]+$' "a job on n2"
tap_cleanup "scancel $job 2>/dev/null"
wait_for 60 lab_job_is "$job" RUNNING
out=$(lab_exec n2 "$M" status --calibrate 2>&1)
like "$out" 'last request: skipped: [1-9][0-9]* job steps run on this node' \
    "status --calibrate on n2 while the job runs: skipped" || diag "$out"
is "$(runs n2)" "$before" "... no calibration ran"
out=$(lab_exec -u mwuser1 n2 "$M" status --calibrate --force 2>&1); st=$?
is "$st" 1 "a user cannot force a calibration beside a job" 
like "$out" 'only root may calibrate while job steps run' "... and is told why" || diag "$out"
out=$(lab_exec n2 "$M" status --calibrate --force 2>&1)
is "$(runs n2)" "$((before + 1))" "root can: status --calibrate --force runs one"
like "$(cat "$(nhd_log n2)")" 'calibration: ok: .*forced' "... logged as forced"
scancel "$job"
wait_for 60 lab_all_idle

# ---------------------------------------------------------------- degraded
# A noise bound no machine meets: n3's calibration makes it degraded.
echo "calibrate_max_noise = 0.000001" >>"$extra"
restart_nhd n3
wait_for 30 calibrated n3
out=$(lab_exec n3 "$M" status 2>&1); st=$?
is "$st" 1 "status on n3 exits 1: degraded"
like "$out" 'state: +degraded' "... state degraded" || diag "$out"
like "$out" 'FAIL calibration timer noise: ' "... the failed check is the calibration" || diag "$out"
like "$(cat "$(nhd_log n3)")" 'calibration: degraded: timer noise' "n3's log says degraded and why"
out=$(lab_exec n1 "$M" probe -t 3 n3 2>&1)
like "$out" 'n3 +degraded +[0-9.]+ms +timer noise: ' "a probe from n1 sees n3 degraded, not dead" || diag "$out"

job=$(lab_sbatch mwuser1 --no-requeue -N2 -w 'n[2-3]' -o /dev/null --wrap "sleep 300")
tap_cleanup "scancel $job 2>/dev/null"
wait_for 60 lab_job_is "$job" RUNNING
ev='{"summary":"ranks on n3 slow","verdict":"hardware"}'
out=$(lab_exec -u mwuser1 n2 "$M" drain -e "$ev" "$job" n3 2>&1); st=$?
is "$st" 1 "the job owner's drain request for the degraded n3 is refused"
like "$out" 'n3 answered our probe' "... because a degraded node answers probes" || diag "$out"
scancel "$job"
wait_for 60 lab_all_idle
sleep 6 # one more check_interval of the degraded daemon
is "$(sinfo -h -n n3 -o %t)" idle "n3 is idle, not drained"
is "$(sinfo -h -R -n n3 -o %E)" "" "... and has no drain reason"
done_testing
