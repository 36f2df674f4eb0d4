#!/bin/bash
# Issue 30, item 1: a live node of one's own job drained by a flood.  The
# job user (mwuser1) floods n2's nodehealthd with valid probes from n1, the
# node whose daemon will re-probe n2, so that n2's per-source rate limit
# drops everything from n1's address; then asks n1's daemon to drain n2.
# n2 answers (the daemon's re-probe must get through, whatever users send):
# the drain is refused and Slurm is never asked to drain n2.  And the
# partition guard holds for a 2-node job: from a cut-off n1, the drain of
# n2 is refused because the other nodes of the cluster do not answer either.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"

plan 13
lab_require 4
M=$MW_LAB_REPO/build/bin/mpiwatch
A=$MW_LAB_T/lib/nhd_attack.py
[ -x "$M" ] || BAIL_OUT "build first: $M missing"
nhd_running() {
    local p
    p=$(cat "$MW_LAB_DIR/nodes/$1/nodehealthd.pid" 2>/dev/null)
    [ -n "$p" ] && [ "$(cat /proc/"$p"/comm 2>/dev/null)" = mpiwatch-nodehe ]
}
for n in $MW_LAB_NODE_LIST; do
    nhd_running "$n" || lab_exec "$n" "$MW_LAB_T/lab/node.d/50-nodehealthd" start "$n" >/dev/null 2>&1
done
ok_cmd "nodehealthd runs on n1..n4" bash -c "$(declare -f nhd_running); for n in n1 n2 n3 n4; do nhd_running \$n || exit 1; done"
port=$(lab_exec n2 "$M" status 2>/dev/null | sed -n 's/.*udp port \([0-9]*\).*/\1/p')
like "$port" '^[0-9]+$' "n2's daemon says its probe port ($port)"
ev='{"summary":"test evidence"}'
n2addr=198.18.$MW_LAB_ID.2
counter() { lab_exec "$1" "$M" status -j 2>/dev/null | sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p" | head -n1; }
tap_cleanup "'$M' resume n2 >/dev/null 2>&1"

dir=$(lab_tmpdir mwuser1)
job=$(cd "$dir" && lab_sbatch mwuser1 --no-requeue -N2 -w 'n[1-2]' -o /dev/null --wrap "sleep 3000")
tap_cleanup "scancel $job 2>/dev/null"
wait_for 120 lab_job_is "$job" RUNNING
is "$(lab_job_state "$job")" RUNNING "a 2-node job of mwuser1 runs on n1, n2"

# ---------------------------------------------------------------- flood
rl0=$(counter n2 rate_limited)
pr0=$(counter n2 privileged_probes)
NHD_ATTACK_PIDFILE=$dir/attack.pid lab_exec -u mwuser1 n1 "$A" flood "$n2addr" "$port" 10000 40 >"$dir/flood.out" 2>&1 &
fpid=$!
tap_cleanup "kill $fpid \$(cat $dir/attack.pid 2>/dev/null) 2>/dev/null"
sleep 2
# The flood wins most of the tokens, not all: three requests, each refused.
for i in 1 2 3; do
    out=$(lab_exec -u mwuser1 n1 "$M" drain -e "$ev" "$job" n2 2>&1); st=$?
    [ "$st" = 1 ] || break
done
rl1=$(counter n2 rate_limited)
cmp_ok "${rl1:-0}" -gt "${rl0:-0}" "the flood reached n2 and was rate limited there ($rl0 -> $rl1 dropped)"
is "$st" 1 "during the flood, three drains of live n2 are refused" || diag "$out"
like "$out" "node n2 answered our probe" "... because n2 answered the daemon's re-probe"
unlike "$(scontrol -o show node n2)" 'State=[A-Z+]*DRAIN' "slurmctld: n2 is not drained"
like "$(grep "refused drain of n2 for job $job" "$MW_LAB_DIR/log/nodehealthd-n1.log" | tail -n1)" 'answered our probe' \
    "n1's daemon logs the refusal and its reason"
pr1=$(counter n2 privileged_probes)
cmp_ok "${pr1:-0}" -gt "${pr0:-0}" "n2 got the re-probes from a privileged source port ($pr0 -> $pr1)"
kill "$(cat "$dir/attack.pid")" "$fpid" 2>/dev/null
wait "$fpid" 2>/dev/null
"$M" resume n2 >/dev/null 2>&1

# ---------------------------------------------------------------- partition, 2-node job
ns1=$MW_LAB_PREFIX-n1
tap_cleanup "for a in 2 3 4; do ip -n $ns1 route del blackhole 198.18.$MW_LAB_ID.\$a/32 2>/dev/null; done"
for a in 2 3 4; do ip -n "$ns1" route add blackhole "198.18.$MW_LAB_ID.$a/32"; done
out=$(lab_exec -u mwuser1 n1 "$M" drain -e "$ev" "$job" n2 2>&1); st=$?
is "$st" 1 "from a cut-off n1, the drain of n2 (a 2-node job) is refused" || diag "$out"
like "$out" "partition guard" "... by the partition guard, which probes other nodes of the cluster"
unlike "$(scontrol -o show node n2)" 'State=[A-Z+]*DRAIN' "slurmctld: n2 is not drained"
for a in 2 3 4; do ip -n "$ns1" route del blackhole "198.18.$MW_LAB_ID.$a/32"; done

# ---------------------------------------------------------------- clean up
scancel "$job"
"$M" resume n2 >/dev/null 2>&1
lab_wait_idle 120
ok $? "the lab is idle again"

done_testing
