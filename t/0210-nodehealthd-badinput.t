#!/bin/bash
# mpiwatch-nodehealthd against bad input, on loopback in the root namespace
# (no lab needed): 100,000 random, truncated, oversized and otherwise
# malformed datagrams leave it alive, with flat memory, answering probes
# correctly and counting what it dropped; a flood of valid probes from one
# source is rate limited; a bad configuration is refused by --check and by
# SIGHUP (the old one is kept); SIGTERM stops it cleanly.
. "$(dirname "$0")/lib/tap.sh"

plan 25
R=$(cd "$(dirname "$0")/.." && pwd)
D=$R/build/bin/mpiwatch-nodehealthd
M=$R/build/bin/mpiwatch
L=$R/build/bench/probe-load
for b in "$D" "$M" "$L"; do [ -x "$b" ] || BAIL_OUT "build first: $b missing"; done

tmp=$(mktemp -d /tmp/t0210.XXXXXX)
tap_cleanup "rm -rf '$tmp'"
# A free UDP port on loopback.
port=
for p in $(seq $((20000 + $$ % 20000)) $((20100 + $$ % 20000))); do
    ss -Huln "sport = :$p" | grep -q . || { port=$p; break; }
done
[ -n "$port" ] || BAIL_OUT "no free UDP port"
conf=$tmp/nhd.conf
write_conf() {
    cat >"$conf" <<EOF
listen = 127.0.0.1
port = $port
socket = $tmp/nhd.sock
log = stderr
check_interval = 2
# thresholds that a loaded CI box cannot trip
load_max_per_core = 0
mem_min_free_mb = 0
tmp_min_free_mb = 0
calibrate_max_noise = 0
EOF
    [ $# -eq 0 ] || printf '%s\n' "$@" >>"$conf"
}
write_conf
# A relative -c path: the daemon must still find the file on SIGHUP after
# its chdir("/").
(cd "$tmp" && exec "$D" -f -c nhd.conf) 2>"$tmp/log" &
pid=$!
tap_cleanup "kill $pid 2>/dev/null"
for ((i = 0; i < 100; i++)); do [ -S "$tmp/nhd.sock" ] && break; sleep 0.1; done
ok_cmd "the daemon starts and opens its socket" test -S "$tmp/nhd.sock"

rss() { awk '/^VmRSS:/ {print $2}' /proc/"$pid"/status; }
status_json() { "$M" status -j -s "$tmp/nhd.sock"; }
counter() { status_json | sed -n "s/.*\"$1\": \([0-9]*\).*/\1/p" | head -n1; }

out=$("$M" probe -p "$port" -t 2 127.0.0.1 2>&1); st=$?
is "$st" 0 "a probe before the flood: alive" || diag "$out"

# Warm up (buffers, allocator) before the baseline.
"$L" -p "$port" -g 5000 -S 1 >/dev/null
before=$(rss)
out=$("$L" -p "$port" -g 100000 -S 12345); st=$?
is "$st" 0 "100,000 malformed datagrams sent, none answered" || diag "$out"
like "$out" 'sent=100000 answers=0 random=[1-9].* short=[1-9].* long=[1-9].* magic=[1-9].* version=[1-9].* type=[1-9].* flags=[1-9].* reply=[1-9].* empty=[1-9]' "every kind of bad datagram was in the mix"
after=$(rss)
ok_cmd "the daemon is still alive" kill -0 "$pid"
note "VmRSS before ${before} kB, after ${after} kB"
cmp_ok "$after" -le $((before + 1024)) "memory stays flat (VmRSS $before -> $after kB, bound +1 MiB)"

out=$("$M" probe -p "$port" -t 2 127.0.0.1 2>&1); st=$?
is "$st" 0 "after the flood the daemon still answers probes" || diag "$out"
like "$out" '127\.0\.0\.1 +alive +[0-9.]+ms +ok' "... with the right state and summary"
mal=$(counter malformed)
cmp_ok "${mal:-0}" -ge 50000 "status counts the malformed datagrams ($mal of 105,000 sent; loopback may drop some)"
js=$(status_json)
for r in short long magic version type format; do
    like "$js" "\"$r\": [1-9]" "malformed counter '$r' is non-zero"
done
is "$(counter replies_sent)" 2 "only the two valid probes were answered"

# ---------------------------------------------------------------- rate limit
write_conf "rate_limit = 20" "rate_burst = 20"
kill -HUP "$pid"
wait_for() { local t=$1; shift; for ((i = 0; i < t * 10; i++)); do "$@" && return 0; sleep 0.1; done; return 1; }
reloaded() { grep -q 'configuration reloaded' "$tmp/log"; }
wait_for 30 reloaded
ok $? "SIGHUP reloads the configuration (rate_limit = 20/s)"
out=$("$L" -p "$port" -d 1 -w 64)
limited=$(counter rate_limited)
cmp_ok "${limited:-0}" -gt 0 "a flood of valid probes from one source is rate limited ($limited dropped; $out)"

# ---------------------------------------------------------------- bad config
write_conf "port = 0" "no_such_key = 1"
out=$("$D" --check -c "$conf" 2>&1); st=$?
is "$st" 1 "--check refuses a bad configuration"
like "$out" "$conf:[0-9]+: port" "... naming file:line of the bad port"
like "$out" "$conf:[0-9]+: unknown key 'no_such_key'" "... and of the unknown key (all errors reported)"
kill -HUP "$pid"
failed() { grep -q 'keeping the running configuration' "$tmp/log"; }
wait_for 30 failed
ok $? "SIGHUP with a bad file logs the errors and keeps the running configuration"
out=$("$M" probe -p "$port" -t 2 127.0.0.1 2>&1); st=$?
is "$st" 0 "the daemon still answers on its old port" || diag "$out"

# ---------------------------------------------------------------- stop
kill -TERM "$pid"
wait "$pid"; st=$?
is "$st" 0 "SIGTERM stops the daemon with status 0"
ok_cmd "its socket file is removed" test ! -e "$tmp/nhd.sock"

done_testing
