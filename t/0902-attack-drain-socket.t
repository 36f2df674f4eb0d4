#!/bin/bash
# Issue 30, item 5: a local user blocks drains.  mwuser2 holds 1000 silent
# connections to n1's nodehealthd socket (and opens new ones as the daemon
# closes them); a drain request of mwuser1 for the really dead n2 of its
# job still goes through, and the daemon keeps a bounded number of
# descriptors.  Item 10: the drain hook runs with a clean environment (the
# daemon was started with a marker variable, the hook must not see it, and
# its PATH is the fixed one); the socket is 0666 in a root-owned 0755
# directory, and a directory others may write is refused.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/nhd.sh"

plan 15
lab_require 4
M=$MW_LAB_REPO/build/bin/mpiwatch
A=$MW_LAB_T/lib/nhd_attack.py
[ -x "$M" ] || BAIL_OUT "build first: $M missing"
ev='{"summary":"test evidence"}'
nhd=$MW_LAB_T/lab/node.d/50-nodehealthd

# n1's daemon with a hook that records its environment, started with a
# marker in the daemon's own environment.
hook=$MW_LAB_DIR/t0902-hook
envout=$MW_LAB_DIR/t0902-hook.env
rm -f "$envout"
printf '#!/bin/sh\nenv >%s\ncat >%s.stdin\n' "$envout" "$envout" >"$hook"
chmod 0755 "$hook"
extra=$MW_LAB_DIR/nodehealthd.conf.extra
[ -e "$extra" ] && BAIL_OUT "$extra exists (left by another test?)"
printf 'hook = %s\n' "$hook" >"$extra"
tap_cleanup "rm -f '$extra' '$hook' '$envout' '$envout.stdin'; lab_exec n1 '$nhd' start n1 >/dev/null 2>&1"
lab_exec n1 env MW_T0902_MARKER=leaked "$nhd" start n1 >/dev/null 2>&1
rm -f "$extra"
npid=$(cat "$MW_LAB_DIR/nodes/n1/nodehealthd.pid")
ok_cmd "n1's daemon runs with the marker in its environment" grep -qz '^MW_T0902_MARKER=leaked' /proc/"$npid"/environ

sock=/run/mpiwatch/nodehealthd.sock
like "$(lab_exec n1 stat -c '%a %U' "$sock")" '^666 root$' "the socket is 0666, owned by root"
like "$(lab_exec n1 stat -c '%a %U' /run/mpiwatch)" '^755 root$' "... in a root-owned 0755 directory"

# A socket directory that others may write (where our socket could be
# swapped between bind and chmod) is refused (root namespace, loopback).
D=$MW_LAB_REPO/build/bin/mpiwatch-nodehealthd
wtmp=$(mktemp -d /tmp/t0902.XXXXXX)
tap_cleanup "rm -rf '$wtmp'"
mkdir -m 0777 "$wtmp/open"
chmod 0777 "$wtmp/open"
nhd_free_port
nhd_write_conf "$wtmp/nhd.conf" "$wtmp/open"
out=$(timeout 20 "$D" -f -c "$wtmp/nhd.conf" 2>&1); st=$?
ok_cmd "a daemon whose socket directory is world-writable refuses to start (status $st)" \
    bash -c "[ $st != 0 ] && [ $st != 124 ] && grep -q 'writable by no one else' <<<'$out'"

dir=$(lab_tmpdir mwuser1)
job=$(cd "$dir" && lab_sbatch mwuser1 --no-requeue -N2 -w 'n[1-2]' -o /dev/null --wrap "sleep 3000")
tap_cleanup "scancel $job 2>/dev/null"
wait_for 120 lab_job_is "$job" RUNNING
is "$(lab_job_state "$job")" RUNNING "a 2-node job of mwuser1 runs on n1, n2"

# ---------------------------------------------------------------- 1000 silent connections
dir2=$(lab_tmpdir mwuser2)
NHD_ATTACK_PIDFILE=$dir2/attack.pid lab_exec -u mwuser2 n1 "$A" hold "$sock" 1000 120 >"$dir/hold.out" 2>&1 &
hpid=$!
tap_cleanup "kill $hpid \$(cat $dir2/attack.pid 2>/dev/null) 2>/dev/null"
sleep 3
tap_cleanup "'$MW_LAB_T/lab/revive-node' n2 >/dev/null 2>&1; '$M' resume n2 >/dev/null 2>&1"
lab_kill_node n2 >/dev/null 2>&1
out=$(lab_exec -u mwuser1 n1 "$M" drain -e "$ev" "$job" n2 2>&1); st=$?
is "$st" 0 "while mwuser2 holds 1000 connections, the drain of dead n2 goes through" || diag "$out"
like "$out" 'drained' "... and says drained"
like "$(scontrol -o show node n2)" 'State=[A-Z+*]*DRAIN.*Reason=mpiwatch' "slurmctld: n2 is drained by mpiwatch"
busy=$(lab_exec n1 "$M" status -j 2>/dev/null | sed -n 's/.*"busy": \([0-9]*\).*/\1/p' | head -n1)
cmp_ok "${busy:-0}" -gt 0 "the attack was on: the daemon answered mwuser2's connections busy ($busy times)"
nfd=$(ls /proc/"$npid"/fd | wc -l)
cmp_ok "$nfd" -lt 200 "the daemon holds few descriptors meanwhile ($nfd)"
kill "$(cat "$dir2/attack.pid")" "$hpid" 2>/dev/null
wait "$hpid" 2>/dev/null

# ---------------------------------------------------------------- hook environment
wait_for 20 test -s "$envout"
ok_cmd "the hook ran" test -s "$envout"
unlike "$(cat "$envout" 2>/dev/null)" 'MW_T0902_MARKER' "the hook does not see the daemon's environment"
like "$(grep '^PATH=' "$envout" 2>/dev/null)" '^PATH=/usr/sbin:/usr/bin:/sbin:/bin$' "the hook's PATH is the fixed one"
like "$(cat "$envout.stdin" 2>/dev/null)" '"node":"n2"' "the verdict comes on stdin, as data"

# ---------------------------------------------------------------- clean up
scancel "$job"
lab_revive_node n2 >/dev/null 2>&1
"$M" resume n2 >/dev/null 2>&1
lab_wait_idle 180
ok $? "n2 revived and resumed: the lab is idle"

done_testing
