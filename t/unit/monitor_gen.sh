#!/bin/sh
# monitor_gen.sh FORWARD_O LIB PORTABLE_LIB - checks of monitor/gen.py's
# output, run by `make check` (no MPI job, no lab; a few seconds):
#   1. check.c generated from monitor/mpi.spec compiles with each MPI's mpicc;
#   2. a spec with one altered prototype does not, and the error names the
#      spec's line and that function only;
#   3. the portable dispatcher (forward.o) calls every slot in tail position
#      (no indirect call: the wrapper's return address stays the
#      application's call site), and exports the same symbols as LIB.
# Prints TAP; exits 1 if a test failed.
set -u
FORWARD_O=$1 LIB=$2 PORTABLE_LIB=$3
TOP=$(cd "$(dirname "$0")/../.." && pwd)
GEN=$TOP/monitor/gen.py
SPEC=$TOP/monitor/mpi.spec
tmp=$(mktemp -d /tmp/mw-gen.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

ok() { # ok STATUS NAME
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}

MPIS=
for m in openmpi mpich; do
	if command -v "mpicc.$m" >/dev/null 2>&1; then MPIS="$MPIS $m"; else echo "# mpicc.$m not found: not checked"; fi
done

# compile MPI SPEC: generate check.c from SPEC, compile it; stderr in $tmp/err
compile() {
	python3 "$GEN" "$2" "$tmp/check.c" || return 2
	"mpicc.$1" -std=gnu11 -Wall -Wextra -Werror -c -o "$tmp/check.o" "$tmp/check.c" 2>"$tmp/err"
}

# 1. the real spec
for m in $MPIS; do
	compile "$m" "$SPEC"
	ok $? "mpi.spec matches $m's mpi.h"
	[ -s "$tmp/err" ] && sed 's/^/# /' "$tmp/err" | head -n 20
done

# 2. one altered prototype at a time: NAME SED-EXPRESSION MPIS WHAT
alter() {
	name=$1 expr=$2 mpis=$3 what=$4
	line=$(grep -n "^$name *|" "$SPEC" | cut -d: -f1)
	sed "${line}s/$expr" "$SPEC" >"$tmp/bad.spec"
	if cmp -s "$SPEC" "$tmp/bad.spec"; then
		ok 1 "$what: the alteration applies to mpi.spec"
		return
	fi
	for m in $mpis; do
		case " $MPIS " in *" $m "*) ;; *) continue ;; esac
		compile "$m" "$tmp/bad.spec"
		rc=$?
		[ "$rc" -eq 1 ]
		ok $? "$what: check.c does not compile with $m"
		grep -q "static assertion failed: \"$tmp/bad.spec:$line: MPI_$name(" "$tmp/err"
		ok $? "$what: $m's error names bad.spec:$line and MPI_$name"
		others=$(grep -o 'static assertion failed: "[^"]*' "$tmp/err" | grep -v ": MPI_$name(" | head -n 1)
		[ -z "$others" ]
		ok $? "$what: $m's error names no other function"
		[ -n "$others" ] && echo "# $others"
	done
}
alter Send 'const void \*buf/void *buf/' "openmpi mpich" "MPI_Send without const (MPI-2 buffer)"
alter Barrier 'MPI_Comm comm/MPI_Comm comm, int extra/' "openmpi mpich" "MPI_Barrier with one parameter too many"
alter Win_create 'MPI_Aint size/int size/' "openmpi mpich" "MPI_Win_create with int for MPI_Aint"
# MPICH's handles are all int: only Open MPI's mpi.h can tell them apart
alter Irecv 'MPI_Datatype datatype/MPI_Comm datatype/' "openmpi" "MPI_Irecv with MPI_Comm for MPI_Datatype"

# 3. the portable forwarders
case $(uname -m) in
x86_64) icall='call[a-z]*[[:space:]]+\*' ;;
aarch64) icall='[[:space:]]blr[a-z]*[[:space:]]' ;;
*) icall= ;;
esac
if [ -n "$icall" ] && command -v objdump >/dev/null 2>&1; then
	objdump -d --no-show-raw-insn "$FORWARD_O" >"$tmp/fwd.dis"
	bad=$(grep -E "$icall" "$tmp/fwd.dis" | head -n 3)
	[ -z "$bad" ] && grep -q '>:$' "$tmp/fwd.dis"
	ok $? "forward.o: every slot is called in tail position (no indirect call)"
	[ -n "$bad" ] && echo "# $bad"
else
	echo "# no tail-call check on $(uname -m)"
fi
syms() { nm -D --defined-only "$1" | awk '$2 == "T" { print $3 }' | sort; }
syms "$LIB" >"$tmp/lib.syms"
syms "$PORTABLE_LIB" >"$tmp/portable.syms"
cmp -s "$tmp/lib.syms" "$tmp/portable.syms" && [ "$(wc -l <"$tmp/lib.syms")" -gt 100 ]
ok $? "$(basename "$PORTABLE_LIB") exports the same $(wc -l <"$tmp/lib.syms") functions as $(basename "$LIB")"

echo "1..$n"
[ "$failed" -eq 0 ] || { echo "# $failed of $n failed"; exit 1; }
exit 0
