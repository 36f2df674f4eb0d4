#!/bin/bash
# nodehealthd and systemd's watchdog (Type=notify, WatchdogSec=), without
# systemd: this machine's PID 1 is not systemd, so the test plays systemd's
# side (t/lib/notify_listen.py on $NOTIFY_SOCKET) on loopback in the root
# namespace (no lab needed).  With the watchdog on (WATCHDOG_USEC=1 s): the
# first notification is READY=1, and the daemon answers a probe once it
# sent it; WATCHDOG=1 keeps coming; a daemon whose loop is stopped
# (SIGSTOP) sends none, so systemd would restart it; it sends them again
# once continued; SIGTERM: STOPPING=1 and a clean exit.  With a watchdog
# that is another process's (WATCHDOG_PID): READY=1 and no WATCHDOG=1.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/nhd.sh"

plan 12
R=$(cd "$(dirname "$0")/.." && pwd)
D=$R/build/bin/mpiwatch-nodehealthd
M=$R/build/bin/mpiwatch
for b in "$D" "$M"; do [ -x "$b" ] || BAIL_OUT "build first: $b missing"; done

tmp=$(mktemp -d /tmp/t0736.XXXXXX)
tap_cleanup "rm -rf '$tmp'"
nhd_free_port
nhd_write_conf "$tmp/nhd.conf" "$tmp"

# notes LOG: the notifications received so far, one a line.
count() { grep -c "^$2\$" "$1" 2>/dev/null; }
listen() {
    python3 "$R/t/lib/notify_listen.py" "$tmp/$1.sock" "$tmp/$1.log" &
    lpid=$!
    tap_cleanup "kill $lpid 2>/dev/null"
    for ((i = 0; i < 50; i++)); do [ -S "$tmp/$1.sock" ] && break; sleep 0.1; done
}
# wait_count LOG LINE N: wait (at most 20 s) until LOG has N lines LINE.
wait_count() {
    for ((i = 0; i < 200; i++)); do [ "$(count "$1" "$2")" -ge "$3" ] && return 0; sleep 0.1; done
    return 1
}

# ---------------------------------------------------------------- watchdog on
listen dog
NOTIFY_SOCKET=$tmp/dog.sock WATCHDOG_USEC=1000000 "$D" -f -c "$tmp/nhd.conf" 2>"$tmp/log" &
pid=$!
tap_cleanup "kill -CONT $pid 2>/dev/null; kill $pid 2>/dev/null"
wait_count "$tmp/dog.log" READY=1 1
is "$(head -n1 "$tmp/dog.log")" READY=1 "the daemon's first notification is READY=1"
out=$("$M" probe -p "$port" -t 2 127.0.0.1 2>&1); st=$?
is "$st" 0 "once it said READY=1, it answers probes" || diag "$out"
wait_count "$tmp/dog.log" WATCHDOG=1 4
cmp_ok "$(count "$tmp/dog.log" WATCHDOG=1)" -ge 4 "WATCHDOG=1 keeps coming from its loop (WATCHDOG_USEC=1 s)"

kill -STOP "$pid"
sleep 0.5 # one last keep-alive may be on its way
stopped=$(count "$tmp/dog.log" WATCHDOG=1)
sleep 3
is "$(count "$tmp/dog.log" WATCHDOG=1)" "$stopped" \
    "stopped (SIGSTOP) for 3 s, three times the watchdog time: no WATCHDOG=1 (systemd would restart it)"
kill -CONT "$pid"
wait_count "$tmp/dog.log" WATCHDOG=1 $((stopped + 2))
cmp_ok "$(count "$tmp/dog.log" WATCHDOG=1)" -ge $((stopped + 2)) "continued (SIGCONT): WATCHDOG=1 comes again"
out=$("$M" probe -p "$port" -t 2 127.0.0.1 2>&1); st=$?
is "$st" 0 "... and it answers probes" || diag "$out"

kill -TERM "$pid"
wait "$pid"; st=$?
is "$st" 0 "SIGTERM: the daemon exits 0"
is "$(count "$tmp/dog.log" STOPPING=1)" 1 "... after STOPPING=1"
is "$(count "$tmp/dog.log" READY=1)" 1 "READY=1 was said once"
kill "$lpid" 2>/dev/null

# ------------------------------------------------- someone else's watchdog
listen other
NOTIFY_SOCKET=$tmp/other.sock WATCHDOG_USEC=1000000 WATCHDOG_PID=1 "$D" -f -c "$tmp/nhd.conf" 2>"$tmp/log2" &
pid=$!
tap_cleanup "kill $pid 2>/dev/null"
wait_count "$tmp/other.log" READY=1 1
is "$(count "$tmp/other.log" READY=1)" 1 "WATCHDOG_PID of another process: READY=1 still"
sleep 2.5
is "$(count "$tmp/other.log" WATCHDOG=1)" 0 "... but no WATCHDOG=1: the watchdog is not ours"
kill -TERM "$pid"
wait "$pid"; st=$?
is "$st" 0 "... and it exits 0 on SIGTERM"

done_testing
