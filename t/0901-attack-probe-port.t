#!/bin/bash
# Issue 30, item 2: a local user takes over the probe port.  mwuser2 on n1
# tries to bind nodehealthd's UDP port, on 0.0.0.0 and on the node's own
# address, plainly, with SO_REUSEADDR and with SO_REUSEPORT: every bind
# fails, and probes are still answered by nodehealthd.  The default port is
# privileged.  And a daemon set to an unprivileged port (on loopback, no
# lab needed for that part) cannot be shared by a user either.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/nhd.sh"

plan 16
lab_require 4
M=$MW_LAB_REPO/build/bin/mpiwatch
D=$MW_LAB_REPO/build/bin/mpiwatch-nodehealthd
A=$MW_LAB_T/lib/nhd_attack.py
[ -x "$M" ] && [ -x "$D" ] || BAIL_OUT "build first: $M missing"
p=$(cat "$MW_LAB_DIR/nodes/n1/nodehealthd.pid" 2>/dev/null)
[ -n "$p" ] && [ "$(cat /proc/"$p"/comm 2>/dev/null)" = mpiwatch-nodehe ] \
    || lab_exec n1 "$MW_LAB_T/lab/node.d/50-nodehealthd" start n1 >/dev/null 2>&1
port=$(lab_exec n1 "$M" status 2>/dev/null | sed -n 's/.*udp port \([0-9]*\).*/\1/p')
like "$port" '^[0-9]+$' "n1's daemon says its probe port ($port)"
cmp_ok "${port:-99999}" -lt 1024 "the lab runs the default port, a privileged one"
ok_cmd "the lab does not set the port (the default is what sites get)" \
    bash -c "! grep -q '^port' '$MW_LAB_DIR/nodes/n1/nodehealthd.conf'"

n1addr=198.18.$MW_LAB_ID.1
for addr in 0.0.0.0 "$n1addr"; do
    for mode in plain reuseaddr reuseport; do
        out=$(lab_exec -u mwuser2 n1 "$A" bind "$port" "$addr" "$mode" 2>&1); st=$?
        is "$st" 1 "mwuser2 cannot bind udp $addr:$port ($mode): $out"
    done
done
out=$(lab_exec n2 "$M" probe -p "$port" -t 2 n1 2>&1); st=$?
is "$st" 0 "after the attempts, n1 is probed alive from n2" || diag "$out"
like "$out" 'n1 +alive' "... answered by nodehealthd"

# ---------------------------------------------------------------- unprivileged port
tmp=$(mktemp -d /tmp/t0901.XXXXXX)
tap_cleanup "rm -rf '$tmp'"
nhd_free_port
nhd_write_conf "$tmp/nhd.conf" "$tmp"
"$D" -f -c "$tmp/nhd.conf" 2>"$tmp/log" &
pid=$!
tap_cleanup "kill $pid 2>/dev/null"
for ((i = 0; i < 100; i++)); do [ -S "$tmp/nhd.sock" ] && break; sleep 0.1; done
ok_cmd "a daemon on 127.0.0.1:$port (unprivileged) starts" test -S "$tmp/nhd.sock"
for mode in plain reuseaddr reuseport; do
    out=$(runuser -u mwuser2 -- "$A" bind "$port" 127.0.0.1 "$mode" 2>&1); st=$?
    is "$st" 1 "mwuser2 cannot share udp 127.0.0.1:$port ($mode): $out"
done
out=$("$M" probe -p "$port" -t 2 127.0.0.1 2>&1); st=$?
is "$st" 0 "that daemon still answers probes" || diag "$out"
kill "$pid"

done_testing
