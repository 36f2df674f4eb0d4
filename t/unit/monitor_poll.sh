#!/bin/sh
# monitor_poll.sh LIB SHARED_LIB - repeated polls through the real wrappers,
# run by `make check` (no lab; one MPICH rank as a singleton, about 2 s):
# t/unit/monitor_poll.c, compiled with mpicc.mpich, runs with
# LD_PRELOAD=LIB (its settings file gives the slot and dump folders) and
# reads its own slot.  Prints TAP; exits 1 on failure.
set -u
LIB=$1 SHARED_LIB=$2
TOP=$(cd "$(dirname "$0")/../.." && pwd)
if ! command -v mpicc.mpich >/dev/null 2>&1; then
	echo "1..0 # SKIP mpicc.mpich not found"
	exit 0
fi
tmp=$(mktemp -d /tmp/mw-poll.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
mpicc.mpich -std=gnu11 -O2 -Wall -Wextra -Werror -I"$TOP/shared" $(pkg-config --cflags json-c) \
	-o "$tmp/monitor_poll" "$TOP/t/unit/monitor_poll.c" "$SHARED_LIB" $(pkg-config --libs json-c) -lpthread || exit 1
mkdir -p "$tmp/run" "$tmp/dumps"
printf '%s\n' "timeout = 1" "slot_dir = $tmp/run" "dump_dir = $tmp/dumps" >"$tmp/settings"
env LD_PRELOAD="$LIB" MPIWATCH_SETTINGS="$tmp/settings" timeout 120 stdbuf -oL "$tmp/monitor_poll" "$tmp/run"
