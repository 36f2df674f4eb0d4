#!/bin/bash
# mpiwatch-nodehealthd on the lab (one daemon per node, started by
# t/lab/node.d/50-nodehealthd): probes see every node alive, from a node and
# from the root namespace; a killed node is reported dead; a drain request by
# the owner of a running job, for a dead node of that job, drains it in Slurm
# with an "mpiwatch:" reason (visible in sinfo -R) and runs the admin hook;
# requests for a live node, a node outside the job and another user's job
# are refused and logged; "mpiwatch resume" resumes only mpiwatch's drains.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"

plan 33
lab_require 4
M=$MW_LAB_REPO/build/bin/mpiwatch
D=$MW_LAB_REPO/build/bin/mpiwatch-nodehealthd
[ -x "$M" ] && [ -x "$D" ] || BAIL_OUT "build first: $M / $D missing"

nhd_pid() { cat "$MW_LAB_DIR/nodes/$1/nodehealthd.pid" 2>/dev/null; }
nhd_running() {
    local p
    p=$(nhd_pid "$1")
    [ -n "$p" ] && [ "$(cat /proc/"$p"/comm 2>/dev/null)" = mpiwatch-nodehe ]
}
nhd_log() { echo "$MW_LAB_DIR/log/nodehealthd-$1.log"; }
# A lab started before the daemon was built has none: start them now.
for n in $MW_LAB_NODE_LIST; do
    nhd_running "$n" || lab_exec "$n" "$MW_LAB_T/lab/node.d/50-nodehealthd" start "$n" >/dev/null 2>&1
done
running=0
for n in $MW_LAB_NODE_LIST; do nhd_running "$n" && running=$((running + 1)); done
is "$running" "$MW_LAB_N" "a nodehealthd runs on each of the $MW_LAB_N lab nodes"

# ---------------------------------------------------------------- probes
out=$(lab_exec n1 "$M" probe -t 3 "$MW_LAB_NODES" 2>&1); st=$?
is "$st" 0 "mpiwatch probe $MW_LAB_NODES from n1 exits 0"
is "$(grep -cE '^n[0-9]+ +alive +[0-9.]+ms +ok$' <<<"$out")" "$MW_LAB_N" "n1 sees every node alive with an rtt" || diag "$out"
out=$("$M" probe -t 3 "$MW_LAB_NODES" 2>&1); st=$?
is "$st" 0 "mpiwatch probe from the root namespace exits 0"
is "$(grep -cE '^n[0-9]+ +alive ' <<<"$out")" "$MW_LAB_N" "the root namespace sees every node alive" || diag "$out"
out=$(lab_exec n3 "$M" status -j 2>&1); st=$?
is "$st" 0 "mpiwatch status on n3 exits 0 (alive)"
like "$out" '"node": "n3"' "status names the node" 
like "$out" '"probes_received": [1-9]' "status counts the probes n3 answered"

# ---------------------------------------------------------------- a job
dir=$(lab_tmpdir mwuser1)
job=$(cd "$dir" && lab_sbatch mwuser1 --no-requeue -N3 -w 'n[1-3]' -o /dev/null --wrap "sleep 3000")
like "$job" '^[0-9]+$' "mwuser1's job submitted on n[1-3]"
tap_cleanup "scancel $job 2>/dev/null"
wait_for 120 lab_job_is "$job" RUNNING
is "$(lab_job_state "$job")" RUNNING "the job runs"

# ---------------------------------------------------------------- refusals
ev='{"summary":"no heartbeat from ranks on n2","verdict":"hardware"}'
out=$(lab_exec -u mwuser1 n1 "$M" drain -e "$ev" "$job" n2 2>&1); st=$?
is "$st" 1 "drain of a live node is refused"
like "$out" 'n2 answered our probe' "... because n2 answers the daemon's own probes"
out=$(lab_exec -u mwuser1 n1 "$M" drain -e "$ev" "$job" n4 2>&1); st=$?
is "$st" 1 "drain of a node outside the job is refused"
like "$out" "n4 is not part of job $job" "... because n4 is not in the job"
out=$(lab_exec -u mwuser2 n1 "$M" drain -e "$ev" "$job" n2 2>&1); st=$?
is "$st" 1 "drain asked by another user (mwuser2) is refused"
like "$out" "does not own job $job" "... because mwuser2 does not own the job"
is "$(grep -c "refused drain of n[24] for job $job " "$(nhd_log n1)")" 3 "the three refusals are logged with their reasons"
unlike "$(scontrol -o show node n2)" 'Reason=mpiwatch' "n2 has no mpiwatch reason after the refusals"

# ---------------------------------------------------------------- admin hook
# The daemon keeps uid 0 and only CAP_NET_BIND_SERVICE: its hooks write where root may.
hookdir=$(mktemp -d "$MW_LAB_DIR/work/nhd-hook.XXXXXX")
tap_cleanup "rm -rf '$hookdir'"
cat >"$hookdir/hook" <<EOF
#!/bin/sh
cat >"$hookdir/verdict.json"
echo "hook saw a drain"
EOF
chmod 755 "$hookdir/hook"
conf=$MW_LAB_DIR/nodes/n1/nodehealthd.conf
cp "$conf" "$conf.orig"
echo "hook = $hookdir/hook" >>"$conf"
tap_cleanup "mv -f '$conf.orig' '$conf'; kill -HUP \$(cat '$MW_LAB_DIR/nodes/n1/nodehealthd.pid') 2>/dev/null"
reloads() { grep -c 'configuration reloaded' "$(nhd_log n1)"; }
reloaded_since() { [ "$(reloads)" -gt "$1" ]; }
before=$(reloads)
kill -HUP "$(nhd_pid n1)"
wait_for 30 reloaded_since "$before"
ok $? "n1's daemon reloads its configuration (with a drain hook) on SIGHUP"

# ---------------------------------------------------------------- a dead node
tap_cleanup "'$MW_LAB_T/lab/revive-node' n2 >/dev/null 2>&1"
ok_cmd "t/lab/kill-node n2" lab_kill_node n2
out=$(lab_exec n1 "$M" probe -t 2 "$MW_LAB_NODES" 2>&1); st=$?
is "$st" 1 "probe from n1 exits 1 with a node dead"
# (the retries are spaced from the live nodes' round trip, issue 34: the
# three tries end well before the budget; the summary says when)
like "$out" 'n2 +dead +- +no reply to 3 probes in (0\.[0-9]|1\.[0-9]|2\.0)s' "n2 is reported dead within the 2 s budget"
is "$(grep -cE '^n[0-9]+ +alive ' <<<"$out")" $((MW_LAB_N - 1)) "the other nodes are still alive"

out=$(lab_exec -u mwuser1 n1 "$M" drain -e "$ev" "$job" n2 2>&1); st=$?
is "$st" 0 "the job owner's drain request for dead n2 succeeds" || diag "$out"
like "$(sinfo -R -h -o '%n|%E')" "n2\|mpiwatch: job $job: no heartbeat from ranks on n2" "sinfo -R shows n2 with the mpiwatch reason, job and evidence"
like "$(scontrol -o show node n2)" 'State=[A-Z+]*DRAIN' "n2 is drained in Slurm"
wait_for 30 test -s "$hookdir/verdict.json"
like "$(cat "$hookdir/verdict.json" 2>/dev/null)" "\"node\":\"n2\",\"job\":\"$job\",\"uid\":2901.*\"evidence\":\\{\"summary\":\"no heartbeat" "the hook got the verdict JSON on stdin"
out=$(lab_exec -u mwuser1 n1 "$M" drain -e "$ev" "$job" n2 2>&1); st=$?
like "$st: $out" '^0: node n2 is already drained by mpiwatch' "a second request finds n2 already drained"

# ---------------------------------------------------------------- resume
scontrol update NodeName=n4 State=DRAIN Reason="admin: maintenance"
tap_cleanup "scontrol update NodeName=n4 State=RESUME 2>/dev/null"
out=$("$M" resume n4 2>&1); st=$?
is "$st" 1 "mpiwatch resume refuses a node drained by someone else"
like "$(scontrol -o show node n4)" 'Reason=admin: maintenance' "n4 keeps the admin's drain and reason"
scontrol update NodeName=n4 State=RESUME
out=$("$M" resume n2 2>&1); st=$?
is "$st" 0 "mpiwatch resume n2 resumes mpiwatch's drain" || diag "$out"
unlike "$(scontrol -o show node n2)" 'Reason=mpiwatch' "n2 no longer has the mpiwatch reason"

# ---------------------------------------------------------------- back to idle
scancel "$job"
lab_revive_node n2 >/dev/null 2>&1
lab_wait_idle 180
out=$("$M" probe -t 3 "$MW_LAB_NODES" 2>&1); st=$?
is "$st" 0 "after revive, every node is alive again and the lab is idle" || diag "$out $(sinfo)"

done_testing
