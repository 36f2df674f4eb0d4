#!/bin/bash
# nodehealthd's metrics through the real exporter (issue 33): Debian's
# prometheus-node-exporter runs on n1 with only its textfile collector,
# reading n1's nodehealthd metrics folder (the lab's metrics_dir), on a
# lab-only address.  Scraped with curl, as Prometheus would: before, after a
# healthy job, after a deadlocked job and after a node killed under a job
# (each job's collector runs on n1, its first node, and tells n1's
# nodehealthd its verdict at its end), the counters moved as they should and
# `promtool check metrics` passes on what the exporter serves.  A summary
# from another user, a second one for the same job and a malformed one are
# refused or not counted.  The exporter is stopped on every exit path.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"

plan no_plan
lab_require 2
for p in prometheus-node-exporter promtool curl; do
    command -v "$p" >/dev/null || BAIL_OUT "$p missing: run make deps (.ci/deps)"
done
steady=$(lab_prog openmpi col_steady)
deadlock=$(lab_prog openmpi col_deadlock)
col_storm_raise

# --- node_exporter on n1 -----------------------------------------------------
ne_pidf=$MW_LAB_DIR/node-exporter-n1.pid
ne_addr=198.18.$MW_LAB_ID.1
ne_port=$((MW_LAB_CTLD_PORT + 7))
ne_stop() {
    local p
    p=$(cat "$ne_pidf" 2>/dev/null)
    [ -n "$p" ] && [ "$(cat "/proc/$p/comm" 2>/dev/null)" = prometheus-node ] && kill "$p"
    rm -f "$ne_pidf"
}
ne_stop # one left by a run that was SIGKILLed
tap_cleanup ne_stop
trap 'exit 143' TERM INT HUP # tap.sh's EXIT trap then runs the cleanups
ip netns exec "$MW_LAB_PREFIX-n1" setpriv --reuid=prometheus --regid=prometheus --clear-groups \
    prometheus-node-exporter --collector.disable-defaults --collector.textfile \
    "--collector.textfile.directory=$MW_LAB_DIR/nodes/n1/metrics" --web.disable-exporter-metrics \
    "--web.listen-address=$ne_addr:$ne_port" >"$MW_LAB_DIR/log/node-exporter-n1.log" 2>&1 </dev/null &
echo $! >"$ne_pidf"

S=
scrape() { S=$(curl -sf --max-time 5 "http://$ne_addr:$ne_port/metrics"); }
# mv NAME [LABEL=VALUE]: the value of that series in the last scrape ("absent").
mv() {
    local k=$1
    [ $# -lt 2 ] || k="$1{${2%%=*}=\"${2#*=}\"}"
    printf '%s\n' "$S" | awk -v k="$k" '$1 == k { v = $2 } END { print (v == "" ? "absent" : v) }'
}
# m_is NAME [LABEL=VALUE] VALUE: scrape; is the series VALUE now?
m_is() {
    local want=${*: -1}
    scrape && [ "$(mv "${@:1:$#-1}")" = "$want" ]
}
promtool_ok() {
    local out
    out=$(printf '%s\n' "$S" | promtool check metrics 2>&1)
    ok $? "promtool check metrics passes on the scrape $1" || diag "$out"
}
# send_as USER JSON: one request on n1's drain socket as USER; the reply.
send_as() {
    lab_exec -u "$1" n1 python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect("/run/mpiwatch/nodehealthd.sock")
s.sendall(sys.argv[1].encode() + b"\n")
print(s.makefile().readline().strip())' "$2" 2>&1
}

wait_for 20 'scrape && [ -n "$S" ]'
ok $? "node_exporter on n1 serves the textfile collector at $ne_addr:$ne_port"
is "$(mv mpiwatch_nodehealthd_up)" 1 "mpiwatch_nodehealthd_up is 1: n1's nodehealthd wrote its file"
is "$(mv node_textfile_scrape_error)" 0 "node_exporter read the file without error"
is "$(printf '%s\n' "$S" | grep -c '^node_cpu\|^node_memory')" 0 "no other collector runs"
promtool_ok "at start"
is "$(mv mpiwatch_node_healthy)" 1 "n1 is healthy"
is "$(mv mpiwatch_health_check_ok check=daemon)" 1 "the daemon check (slurmd, munged) passed"
cmp_ok "$(mv mpiwatch_calibration_runs_total)" -ge 1 "the calibration at start is counted"
like "$(mv mpiwatch_calibration_degraded)" '^[01]$' "calibration degraded is 0 or 1"
like "$(mv mpiwatch_calibration_resolution_seconds) $(mv mpiwatch_calibration_interval_seconds)" \
    '^[0-9.]+(e-[0-9]+)? [0-9.]+(e-[0-9]+)?$' "the calibration's resolution and interval, in seconds"
none0=$(mv mpiwatch_verdicts_total verdict=none) sw0=$(mv mpiwatch_verdicts_total verdict=software)
hw0=$(mv mpiwatch_verdicts_total verdict=hardware) jobs0=$(mv mpiwatch_jobs_watched_total)
drained0=$(mv mpiwatch_drain_requests_total result=drained) ans0=$(mv mpiwatch_probes_answered_total)
rx0=$(mv mpiwatch_probes_received_total) rl0=$(mv mpiwatch_probes_rate_limited_total source=user)
drop0=$(printf '%s\n' "$S" | awk '/^mpiwatch_probes_dropped_total/ { n += $2 } END { print n + 0 }')
dup0=$(mv mpiwatch_summaries_total result=duplicate) ref0=$(mv mpiwatch_summaries_total result=refused)
bad0=$(mv mpiwatch_bad_requests_total)

dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"

# --- probes from n2: malformed ones, an admin's probe, a flood ---------------
# (their counters are in the file written when the healthy job's verdict
# comes in below)
load=$MW_LAB_REPO/build/bench/probe-load
like "$(lab_exec n2 "$load" -a "$ne_addr" -g 20 -S 7)" 'sent=20' "20 malformed probes sent from n2 to n1"
ok_cmd "mpiwatch probe n1 (from n2): alive" lab_exec n2 "$MW_LAB_REPO/build/bin/mpiwatch" probe n1
like "$(lab_exec n2 "$load" -a "$ne_addr" -d 1)" 'replies' "a 1 s flood of probes from n2 to n1"

# --- a healthy job -----------------------------------------------------------
jid=$(lab_sbatch mwuser1 -N2 -n2 -w "n[1-2]" --mpiwatch=timeout=2 -o "$dir/ok.out" \
    --wrap "srun --mpi=pmix $steady 1")
tap_cleanup "scancel $jid 2>/dev/null"
is "$(lab_job_wait "$jid" 120)" COMPLETED "a healthy 2-node job completes"
wait_for 30 "m_is mpiwatch_verdicts_total verdict=none $((none0 + 1))"
is "$(mv mpiwatch_verdicts_total verdict=none)" $((none0 + 1)) "its verdict none is counted on n1"
is "$(mv mpiwatch_jobs_watched_total)" $((jobs0 + 1)) "one more job watched"
is "$(mv mpiwatch_verdicts_total verdict=software) $(mv mpiwatch_verdicts_total verdict=hardware)" "$sw0 $hw0" \
    "no software or hardware verdict counted"
promtool_ok "after the healthy job"
cmp_ok "$(mv mpiwatch_probes_answered_total)" -gt "$ans0" "n1 counted the probes it answered"
cmp_ok "$(($(mv mpiwatch_probes_received_total) - rx0))" -gt "$(($(mv mpiwatch_probes_answered_total) - ans0))" \
    "n1 received more probes than it answered (the malformed and the rate-limited)"
cmp_ok "$(printf '%s\n' "$S" | awk '/^mpiwatch_probes_dropped_total/ { n += $2 } END { print n + 0 }')" -gt "$drop0" \
    "n1 counted malformed probes as dropped"
cmp_ok "$(mv mpiwatch_probes_rate_limited_total source=user)" -gt "$rl0" "n1 counted the flood's rate-limited probes"

# The same job's summary again (its owner), from another user, malformed.
like "$(send_as mwuser1 "{\"version\":1,\"op\":\"summary\",\"job\":\"$jid\",\"verdict\":\"none\"}")" \
    '"ok":true,"result":"duplicate"' "a second summary of the job is answered duplicate"
like "$(send_as mwuser2 "{\"version\":1,\"op\":\"summary\",\"job\":\"$jid\",\"verdict\":\"hardware\"}")" \
    "\"ok\":false,\"error\":\"uid [0-9]+ does not own job $jid" "another user's summary of the job is refused"
like "$(send_as mwuser1 "{\"version\":1,\"op\":\"summary\",\"job\":\"$jid\",\"verdict\":\"fine\"}")" \
    '"ok":false,"error":"missing or invalid \\"verdict\\" \(none, software or hardware\)"' \
    "a summary with an unknown verdict gets a clear error"
wait_for 10 "m_is mpiwatch_bad_requests_total $((bad0 + 1))"
is "$(mv mpiwatch_summaries_total result=duplicate) $(mv mpiwatch_summaries_total result=refused)" \
    "$((dup0 + 1)) $((ref0 + 1))" "the duplicate and the refused summary are counted as such"
is "$(mv mpiwatch_bad_requests_total)" $((bad0 + 1)) "the malformed one as a bad request"
is "$(mv mpiwatch_jobs_watched_total) $(mv mpiwatch_verdicts_total verdict=none) $(mv mpiwatch_verdicts_total verdict=hardware)" \
    "$((jobs0 + 1)) $((none0 + 1)) $hw0" "none of them counted a job or a verdict"

# --- a deadlocked job --------------------------------------------------------
jid=$(lab_sbatch mwuser1 -N2 -n4 -w "n[1-2]" --mpiwatch=timeout=2 -o "$dir/dl.out" --wrap "srun --mpi=pmix $deadlock")
tap_cleanup "scancel $jid 2>/dev/null"
rep=$dir/mpiwatch-$jid/report.json
wait_for 120 "grep -q '\"verdict\": *\"software\"' '$rep'"
is "$(jv "$rep" 'd["verdict"]')" software "the deadlocked job's verdict is software"
scancel "$jid"
lab_job_wait "$jid" 60 >/dev/null
wait_for 30 "m_is mpiwatch_verdicts_total verdict=software $((sw0 + 1))"
is "$(mv mpiwatch_verdicts_total verdict=software)" $((sw0 + 1)) "its verdict software is counted on n1"
is "$(mv mpiwatch_jobs_watched_total) $(mv mpiwatch_verdicts_total verdict=none)" "$((jobs0 + 2)) $((none0 + 1))" \
    "two jobs watched; the none count did not move"
promtool_ok "after the deadlocked job"

# --- a node killed under a job -----------------------------------------------
jid=$(lab_sbatch mwuser1 --no-requeue -N2 -n2 -w "n[1-2]" --mpiwatch=timeout=2 -o "$dir/kill.out" \
    --wrap "srun --mpi=pmix $steady 600")
tap_cleanup "scancel $jid 2>/dev/null; '$MW_LAB_T/lab/revive-node' n2 >/dev/null 2>&1; '$MW_LAB_REPO/build/bin/mpiwatch' resume n2 >/dev/null 2>&1"
rep=$dir/mpiwatch-$jid/report.json
wait_for 120 "test \$(col_connected '$dir' $jid n1) -ge 2 && grep -q 'steady: running' '$dir/kill.out'"
wait_for 30 "test \"\$(jv '$rep' 'd[\"stats\"][\"rank_announcements\"]')\" -ge 2 2>/dev/null"
ok_cmd "t/lab/kill-node n2 under the running job" lab_kill_node n2
wait_for 120 "grep -q '\"verdict\": *\"hardware\"' '$rep'"
is "$(jv "$rep" 'd["verdict"]')" hardware "the job's verdict is hardware"
wait_for 60 "m_is mpiwatch_drain_requests_total result=drained $((drained0 + 1))"
is "$(mv mpiwatch_drain_requests_total result=drained)" $((drained0 + 1)) \
    "n1's nodehealthd counts the drain of n2 it made"
like "$(scontrol -o show node n2)" "Reason=mpiwatch: job $jid" "n2 is drained in Slurm"
scancel "$jid"
wait_for 60 "m_is mpiwatch_verdicts_total verdict=hardware $((hw0 + 1))"
is "$(mv mpiwatch_verdicts_total verdict=hardware)" $((hw0 + 1)) "its verdict hardware is counted on n1"
is "$(mv mpiwatch_jobs_watched_total)" $((jobs0 + 3)) "three jobs watched"
promtool_ok "after the killed node"
col_end_and_revive "$jid" n2
done_testing
