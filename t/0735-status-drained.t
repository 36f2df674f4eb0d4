#!/bin/bash
# "mpiwatch status --drained" on the lab: n3 of a running job of mwuser1
# dies and is drained through nodehealthd's real drain op (the job owner's
# "mpiwatch drain" to n1's daemon, which re-probes n3 and drains it with its
# reason), while an admin drained n4 with a reason of their own.  The list
# names n3, and only n3: with Slurm's state, the time the reason was set,
# the job and the evidence, as text and as JSON; it is the same for a user.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"

plan 14
lab_require 4
M=$MW_LAB_REPO/build/bin/mpiwatch
[ -x "$M" ] || BAIL_OUT "build first: $M missing"
col_storm_raise

is "$("$M" status --drained)" "no node is drained by mpiwatch" "at first no node is drained by mpiwatch"

dir=$(lab_tmpdir mwuser1)
job=$(cd "$dir" && lab_sbatch mwuser1 --no-requeue -N3 -w 'n[1-3]' -o /dev/null --wrap "sleep 3000")
tap_cleanup "scancel $job 2>/dev/null; '$MW_LAB_T/lab/revive-node' n3 >/dev/null 2>&1; '$M' resume n3 >/dev/null 2>&1"
wait_for 120 lab_job_is "$job" RUNNING
is "$(lab_job_state "$job")" RUNNING "mwuser1's job runs on n[1-3]"

scontrol update NodeName=n4 State=DRAIN Reason="admin: disk swap"
tap_cleanup "scontrol update NodeName=n4 State=RESUME 2>/dev/null"
like "$(scontrol -o show node n4)" 'Reason=admin: disk swap' "the admin drained n4 with a reason of their own"

ok_cmd "t/lab/kill-node n3" lab_kill_node n3
before=$(date +%s)
ev='{"summary":"no heartbeat from ranks on n3","verdict":"hardware"}'
out=$(lab_exec -u mwuser1 n1 "$M" drain -e "$ev" "$job" n3 2>&1); st=$?
after=$(date +%s)
is "$st" 0 "the job owner's drain request for dead n3 is done by n1's nodehealthd" || diag "$out"

out=$("$M" status --drained 2>&1); st=$?
is "$st" 0 "mpiwatch status --drained exits 0"
is "$(grep -c '^n[0-9]' <<<"$out")" 1 "it lists one node" || diag "$out"
like "$(grep '^n3 ' <<<"$out")" "^n3 +[A-Z_+]*DRAIN[A-Z_+]* +[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} +$job +no heartbeat from ranks on n3$" \
    "n3: Slurm's state, since when, the job and the evidence"
unlike "$out" "n4|disk swap" "not n4, which the admin drained"

jvals() {
    python3 -c 'import json,sys; d=json.load(sys.stdin)["drained"]; print(" ".join(str(x) for x in [len(d), d[0]["node"], d[0]["job"], d[0]["set_by"], d[0]["since"]]) if d else 0); print(d[0]["reason"] if d else "")'
}
js=$("$M" status --drained --json | jvals)
is "$(head -n1 <<<"$js" | cut -d' ' -f1-4)" "1 n3 $job root" "--json: n3 only, its job, set by root (nodehealthd)"
since=$(head -n1 <<<"$js" | cut -d' ' -f5)
ok_cmd "since ($since) is when it was drained (between $before and $after)" test "${since:-0}" -ge $((before - 1)) -a "${since:-0}" -le $((after + 1))
like "$out" "$(date -d "@${since:-0}" '+%F %T')" "the text shows that time"
is "$(lab_as mwuser1 "$M" status --drained)" "$out" "a user gets the same list"

col_end_and_revive "$job" n3
done_testing
