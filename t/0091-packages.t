#!/bin/bash
# The Debian packages: built from the tree with dpkg-buildpackage, lintian
# clean, installed on this (the lab's) machine, a watched job run through the
# installed files only (the plugin, monitor and helpers under /usr), and
# dpkg --purge leaving nothing behind.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"

plan 15
top=$(cd "$(dirname "$0")/.." && pwd)
pkgs="mpiwatch mpiwatch-nodehealthd slurm-spank-mpiwatch"
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' &&
        BAIL_OUT "$p is already installed on this machine: this test would remove it"
done
command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null ||
    BAIL_OUT "dpkg-buildpackage/debhelper missing: run make deps"

# Build from a copy of the tree (dpkg-buildpackage cleans the tree it runs in).
work=$(mktemp -d /var/tmp/mw-pkg.XXXXXX)
tap_cleanup "rm -rf '$work'"
src=$work/mpiwatch-0.1.0
mkdir "$src" && (cd "$top" && tar --exclude=./build --exclude=./build-asan --exclude=./.git -cf - .) | tar -xf - -C "$src"
# (--jobs-force: dpkg-buildpackage puts the job count in MAKEFLAGS, so the
# build in debian/rules runs on every core, not one)
(cd "$src" && dpkg-buildpackage -us -uc -b --jobs-force="$(nproc)") >"$work/build.log" 2>&1
ok $? "dpkg-buildpackage -us -uc -b builds the packages" || diag "$(tail -30 "$work/build.log")"
debs=()
for p in $pkgs; do debs+=("$work/${p}_0.1.0_$(dpkg --print-architecture).deb"); done
ok_cmd "the three packages are built" test -f "${debs[0]}" -a -f "${debs[1]}" -a -f "${debs[2]}"
# lintian must run: missing (.ci/deps installs it) or failing (exit status
# 2 and up: 0 is clean, 1 is tags found) is a failure, not "no tag".
lint=$(lintian --allow-root "$work"/*.changes 2>&1)
lint_rc=$?
tags=$(printf '%s\n' "$lint" | grep -E '^[EW]: ')
[ $lint_rc -le 1 ] || tags="lintian did not run (exit status $lint_rc): $(printf '%s\n' "$lint" | tail -n 3)"
is "${tags:-none}" none "lintian reports no error and no warning"
slurmv=$(dpkg-query -W -f='${Version}' slurm-wlm-basic-plugins)
ok_cmd "the plugin's package depends on the exact Slurm release it was built for ($slurmv)" \
    sh -c "dpkg-deb -f '${debs[2]}' Depends | grep -qF 'slurm-wlm-basic-plugins (= $slurmv)'"
is "$(dpkg-deb --ctrl-tarfile "${debs[1]}" | tar -xOf - ./conffiles)" /etc/mpiwatch/nodehealthd.conf \
    "nodehealthd.conf is a conffile"

# Install; from here on the packages are removed at exit whatever happens.
tap_cleanup "dpkg --purge $pkgs >/dev/null 2>&1"
dpkg -i "${debs[@]}" >"$work/install.log" 2>&1
ok $? "dpkg -i installs the three packages" || diag "$(tail -20 "$work/install.log")"
files=$(dpkg -L $pkgs | sort -u)
unit_exec=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' /lib/systemd/system/mpiwatch-nodehealthd.service)
ok_cmd "the installed unit starts an installed program ($unit_exec)" test -x "$unit_exec"
ok_cmd "the installed daemon accepts its installed config" "$unit_exec" --check -c /etc/mpiwatch/nodehealthd.conf

# A watched job through the installed plugin line only: no lib=, no bindir=
# (the plugin's built-in defaults are the packaged paths).
lab_require 2
conf=$MW_LAB_DIR/plugstack.conf.d/mpiwatch.conf
conf_saved=$(cat "$conf" 2>/dev/null)
tap_cleanup "printf '%s\n' '$conf_saved' > '$conf'"
# (the lab's munged has its own socket; a site's is at MUNGE's default)
grep '^optional' /etc/slurm/plugstack.conf.d/mpiwatch.conf | sed 's/ lib=[^ ]*//; s/ bindir=[^ ]*//' |
    sed "s|\$| munge_socket=$MW_LAB_MUNGE_SOCKET|" >"$conf"
like "$(cat "$conf")" "^optional /usr/lib/mpiwatch/mpiwatch.so" "the lab now loads the packaged plugin"
prog=$(lab_prog openmpi col_deadlock)
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"
jid=$(lab_sbatch mwuser1 -N2 -n4 --mpiwatch=timeout=2 -o "$dir/job.out" --wrap "srun --mpi=pmix $prog")
tap_cleanup "scancel $jid 2>/dev/null"
out=$dir/mpiwatch-$jid
wait_for 120 "grep -q '\"verdict\": *\"software\"' '$out/report.json'"
is "$(jv "$out/report.json" 'd["verdict"]')" software "the deadlock gets verdict software from the packaged watch"
coll=$(pgrep -u mwuser1 -f "mpiwatch-collector --job $jid( |\$)" | head -1)
agent=$(pgrep -u mwuser1 -f "mpiwatch-agent --job $jid( |\$)" | head -1)
is "$(readlink "/proc/$coll/exe" 2>&1)" /usr/bin/mpiwatch-collector "the job's collector is the packaged one"
is "$(readlink "/proc/$agent/exe" 2>&1)" /usr/bin/mpiwatch-agent "the job's agent is the packaged one"
rank=$(pgrep -u mwuser1 -f "^$prog" | head -1)
like "$(grep -o '/usr/lib/mpiwatch/libmpiwatch[^ ]*' "/proc/$rank/maps" 2>&1 | sort -u | tr '\n' ' ')" \
    "^/usr/lib/mpiwatch/libmpiwatch-openmpi.so /usr/lib/mpiwatch/libmpiwatch.so $" \
    "a rank runs the packaged monitor" || diag "rank $rank: $(grep mpiwatch "/proc/$rank/maps" 2>&1 | head -5)"
scancel "$jid"
lab_job_wait "$jid" 60 >/dev/null

# Purge: every packaged file and the configuration are gone.
dpkg --purge $pkgs >"$work/purge.log" 2>&1
ok $? "dpkg --purge removes the three packages" || diag "$(cat "$work/purge.log")"
left=$(for f in $files; do [ -f "$f" ] && echo "$f"; done; ls -d /etc/mpiwatch /usr/lib/mpiwatch /usr/share/mpiwatch 2>/dev/null)
is "${left:-nothing}" nothing "nothing of the packages is left after dpkg --purge"
done_testing
