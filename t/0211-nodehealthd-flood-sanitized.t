#!/bin/bash
# mpiwatch-nodehealthd under a probe flood, with a memory checker watching
# it, on loopback in the root namespace (no lab needed): valid probes at full
# rate and malformed datagrams at once, then a normal probe is still answered
# correctly, SIGTERM stops it with status 0, and the checker's log holds no
# error and no definite leak.
#
# The daemon is the ASan+UBSan build of make check-asan when there is one
# (build-asan/, or $MW_ASAN_BUILD), else build/'s under valgrind (memcheck).
# ASan is the cheaper of the two (doc/benchmarks.md, "nodehealthd under a
# probe flood"); MW_NHD_CHECKER=valgrind forces valgrind.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/nhd.sh"

plan 12
R=$(cd "$(dirname "$0")/.." && pwd)
B=${MW_BUILD:-$R/build}
M=$B/bin/mpiwatch
L=$B/bench/probe-load
A=${MW_ASAN_BUILD:-$R/build-asan}/bin/mpiwatch-nodehealthd
for b in "$M" "$L"; do [ -x "$b" ] || BAIL_OUT "build first: $b missing"; done

mode=${MW_NHD_CHECKER:-}
if [ -z "$mode" ]; then
    if [ -x "$A" ] && readelf -d "$A" 2>/dev/null | grep -q 'libasan'; then mode=asan; else mode=valgrind; fi
fi
case $mode in
    asan) D=$A ;;
    valgrind) D=$R/build/bin/mpiwatch-nodehealthd
              command -v valgrind >/dev/null || BAIL_OUT "valgrind not installed (make deps)" ;;
    *) BAIL_OUT "MW_NHD_CHECKER=$mode: expected asan or valgrind" ;;
esac
[ -x "$D" ] || BAIL_OUT "build first: $D missing"
note "checker: $mode ($D)"

tmp=$(mktemp -d /tmp/t0211.XXXXXX)
tap_cleanup "rm -rf '$tmp'"
tap_san_keep "$tmp"
nhd_free_port
nhd_write_conf "$tmp/nhd.conf" "$tmp"

if [ $mode = asan ]; then
    ASAN_OPTIONS="log_path=$tmp/asan:detect_leaks=1:handle_segv=1:detect_stack_use_after_return=1" \
    UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
        "$D" -f -c "$tmp/nhd.conf" 2>"$tmp/log" &
else
    valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
        --show-leak-kinds=definite --log-file="$tmp/valgrind.log" \
        "$D" -f -c "$tmp/nhd.conf" 2>"$tmp/log" &
fi
pid=$!
tap_cleanup "kill $pid 2>/dev/null"
for ((i = 0; i < 300; i++)); do [ -S "$tmp/nhd.sock" ] && break; sleep 0.1; done
ok_cmd "the daemon starts under $mode and opens its socket" test -S "$tmp/nhd.sock"

out=$("$M" probe -p "$port" -t 5 127.0.0.1 2>&1)
is "$?" 0 "a probe before the flood: alive" || diag "$out"

# The flood: valid probes (64 outstanding, 5 s) and 30,000 malformed
# datagrams of every kind, at the same time.
"$L" -p "$port" -d 5 -w 64 >"$tmp/valid.out" 2>&1 &
vpid=$!
"$L" -p "$port" -g 30000 -S 4242 >"$tmp/garbage.out" 2>&1
gst=$?
wait "$vpid"
vst=$?
is "$gst" 0 "30,000 malformed datagrams sent, none answered" || diag "$(cat "$tmp/garbage.out")"
is "$vst" 0 "the valid probes' replies all carry their nonce and are no longer than the probe" \
    || diag "$(cat "$tmp/valid.out")"
like "$(cat "$tmp/valid.out")" 'replies=[1-9]' "valid probes were answered during the flood ($(cat "$tmp/valid.out"))"
ok_cmd "the daemon is still alive" kill -0 "$pid"

out=$("$M" probe -p "$port" -t 5 127.0.0.1 2>&1)
is "$?" 0 "after the flood a normal probe is answered" || diag "$out"
like "$out" '127\.0\.0\.1 +alive +[0-9.]+ms +ok' "... with the right state and summary"
js=$("$M" status -j -s "$tmp/nhd.sock" 2>&1)
like "$js" '"malformed": [1-9]' "status counts the malformed datagrams"

kill -TERM "$pid"
wait "$pid"
is "$?" 0 "SIGTERM stops the daemon with status 0 (the checker found no error)"
ok_cmd "its socket file is removed" test ! -e "$tmp/nhd.sock"

if [ $mode = asan ]; then
    reports=$(cat "$tmp"/asan.* 2>/dev/null)
    is "$reports$(grep -A8 'runtime error: ' "$tmp/log")" "" "ASan, LSan and UBSan: no memory error, no leak, no undefined behaviour"
else
    unlike "$(cat "$tmp/valgrind.log")" 'Invalid|uninitialised|definitely lost|ERROR SUMMARY: [1-9]' \
        "valgrind: no memory error and no definite leak" || diag "$(head -n 60 "$tmp/valgrind.log")"
fi

done_testing
