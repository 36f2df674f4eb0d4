#!/bin/bash
# make install: DESTDIR and PREFIX are honoured; programs, libraries, man
# pages, schemas, the systemd unit and the sample configs land where they
# belong, with the real paths inside them; an edited config survives a second
# install; the installed tree works (mpiwatch run finds its pieces); and
# make uninstall takes away what install added and nothing else.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/run.sh"

plan 28
top=$(cd "$(dirname "$0")/.." && pwd)
dest=$(mktemp -d /var/tmp/mw-inst.XXXXXX)
run_strays_from "$dest"
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
rep=$(ls "$dest"/run/report.json 2>/dev/null | head -1)
ok_cmd "the installed collector checks a report against the installed schema" \
    "$dest/opt/mw/bin/mpiwatch-collector" --check-report "$rep"
ok_cmd "the report schema is installed" test -f "$dest/opt/mw/share/mpiwatch/report.schema.json"

# PREFIX=/usr: every path the unit and the snippet name exists in the tree.
usr=$(mktemp -d /var/tmp/mw-inst.XXXXXX)
tap_cleanup "rm -rf '$usr'"
make -C "$top" -s install DESTDIR="$usr" PREFIX=/usr >/dev/null 2>&1
ok $? "make install DESTDIR=... PREFIX=/usr succeeds"
unit=$usr/lib/systemd/system/mpiwatch-nodehealthd.service
exe=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$unit")
is "$exe" /usr/sbin/mpiwatch-nodehealthd "the unit starts /usr/sbin/mpiwatch-nodehealthd"
ok_cmd "the unit's ExecStart exists under DESTDIR" test -x "$usr$exe"
conf=$(sed -n 's/^ExecStart=.* -c \([^ ]*\).*/\1/p' "$unit")
ok_cmd "the unit's config file ($conf) exists under DESTDIR" test -f "$usr$conf"
snip=$usr/etc/slurm/plugstack.conf.d/mpiwatch.conf
line=$(grep '^optional' "$snip")
missing=
for p in $(echo "$line" | grep -o '/[^ ]*' | sed 's/^[a-z]*=//'); do
    [ -e "$usr$p" ] || missing="$missing $p"
done
is "${missing:-none}" none "every path in the plugstack line exists under DESTDIR"
unlike "$(cat "$unit" "$snip")" "/usr/local" "neither the unit nor the snippet names /usr/local"
ok_cmd "the installed plugin's default library is /usr/lib/mpiwatch/libmpiwatch.so" \
    grep -q -a /usr/lib/mpiwatch/libmpiwatch.so "$usr/usr/lib/mpiwatch/mpiwatch.so"

# An edited config survives a second install; the new one goes beside it.
echo "# edited by the site" >>"$usr/etc/mpiwatch/nodehealthd.conf"
out=$(make -C "$top" -s install DESTDIR="$usr" PREFIX=/usr 2>&1)
like "$out" "kept the edited .*nodehealthd.conf" "a second install says it kept the edited config"
ok_cmd "the edited config is still there" grep -q "edited by the site" "$usr/etc/mpiwatch/nodehealthd.conf"
ok_cmd "the new config is installed as nodehealthd.conf.dist" \
    cmp "$top/etc/nodehealthd.conf" "$usr/etc/mpiwatch/nodehealthd.conf.dist"

# make uninstall: only the edited config (and empty shared directories) remain.
make -C "$top" -s uninstall DESTDIR="$usr" PREFIX=/usr >/dev/null 2>&1
ok $? "make uninstall succeeds"
left=$(cd "$usr" && find . -type f | sort | tr '\n' ' ')
is "$left" "./etc/mpiwatch/nodehealthd.conf " "make uninstall leaves only the edited config"

run_no_strays
done_testing
