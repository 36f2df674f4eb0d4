#!/bin/bash
# make install: DESTDIR and PREFIX are honoured; programs, libraries, man
# pages, the systemd unit and the sample configs land where they belong, and
# the installed tree works (mpiwatch run finds its pieces).
. "$(dirname "$0")/lib/tap.sh"

plan 13
top=$(cd "$(dirname "$0")/.." && pwd)
dest=$(mktemp -d /var/tmp/mw-inst.XXXXXX)
tap_cleanup "rm -rf '$dest'"
out=$(make -C "$top" -s install DESTDIR="$dest" PREFIX=/opt/mw 2>&1)
ok $? "make install DESTDIR=... PREFIX=/opt/mw succeeds"
note "$out"
for f in bin/mpiwatch bin/mpiwatch-agent bin/mpiwatch-collector sbin/mpiwatch-nodehealthd; do
    ok_cmd "$f is installed and executable" test -x "$dest/opt/mw/$f"
done
for f in lib/mpiwatch/libmpiwatch.so lib/mpiwatch/mpiwatch.so; do
    ok_cmd "$f is installed" test -f "$dest/opt/mw/$f"
done
ok_cmd "the systemd unit is installed" test -f "$dest/lib/systemd/system/mpiwatch-nodehealthd.service"
ok_cmd "the sample nodehealthd.conf is installed" test -f "$dest/etc/mpiwatch/nodehealthd.conf"
ok_cmd "the sample plugstack line is installed" test -f "$dest/etc/slurm/plugstack.conf.d/mpiwatch.conf"
# Every man page listed by the build is installed and renders without warnings.
mans=$(find "$dest/opt/mw/share/man" -type f | wc -l)
cmp_ok "$mans" -ge 6 "at least 6 man pages are installed (programs, plugin, config)"
bad=
for m in $(find "$dest/opt/mw/share/man" -type f); do
    w=$(LC_ALL=C MANWIDTH=80 man --warnings -l "$m" 2>&1 >/dev/null)
    [ -n "$w" ] && bad="$bad $(basename "$m"): $w"
done
is "${bad:-none}" none "every man page renders without warnings"
# The installed mpiwatch finds the installed library and helpers.
out=$("$dest/opt/mw/bin/mpiwatch" run --mpi openmpi -n 2 --timeout 2 --dir "$dest/run" -- \
    "$top/build/progs/openmpi/healthy" 3 2>&1)
like "$out" "verdict none" "the installed 'mpiwatch run' works from its own tree"

done_testing
