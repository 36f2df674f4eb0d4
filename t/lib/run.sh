# t/lib/run.sh: for the tests of mpiwatch's own commands (mpiwatch run,
# mpiwatch analyze): a work folder, and values read from their JSON files.
# Source after tap.sh.

# run_setup PREFIX: top (the checkout), build (the build tree: $MW_BUILD,
# e.g. build-asan/ for make check-asan, else build/), mw (its CLI, or
# BAIL_OUT) and work (a new folder /var/tmp/PREFIX.XXXXXX, removed at the
# end); cd there.  Exports MW_T_RUN=$work: every process the test starts
# from then on (mpiwatch run, its helpers, the launcher, the ranks) inherits
# it, which is how run_no_strays finds them.
run_setup() {
    top=$(cd "$(dirname "$0")/.." && pwd)
    build=${MW_BUILD:-$top/build}
    mw=$build/bin/mpiwatch
    [ -x "$mw" ] || BAIL_OUT "build first"
    work=$(mktemp -d "/var/tmp/$1.XXXXXX")
    tap_cleanup "rm -rf '$work'"
    tap_san_keep "$work"
    cd "$work" || BAIL_OUT "cd $work"
    export MW_T_RUN=$work
}

# _run_strays: the processes of this test's runs still there (pid, command
# line; not this shell), and the /dev/shm/mpiwatch-run.* work folders of its
# runs still there (their settings name the folder).  Builtins only, so that no
# process of the check is among them.
_run_strays() {
    local d pid env cmd
    [ -n "${MW_T_RUN:-}" ] || return 0
    for d in /proc/[0-9]*; do
        pid=${d#/proc/}
        [ "$pid" = $$ ] || [ "$pid" = "$BASHPID" ] && continue
        mapfile -d '' env 2>/dev/null <"$d/environ" || continue
        [[ " ${env[*]} " == *" MW_T_RUN=$MW_T_RUN "* ]] || continue
        mapfile -d '' cmd 2>/dev/null <"$d/cmdline"
        echo "$pid: ${cmd[*]}"
    done
    for d in /dev/shm/mpiwatch-run.*; do
        [ -e "$d/settings" ] || continue
        mapfile env <"$d/settings" 2>/dev/null || continue
        [[ "${env[*]}" == *"$MW_T_RUN"* ]] && echo "$d: its work folder"
    done
}

# run_strays_from DIR: for a test without run_setup: the processes it
# starts from now on are its runs' (MW_T_RUN=DIR, DIR its folder).
run_strays_from() { export MW_T_RUN=$1; }

# run_no_strays [DESC]: one assertion, after the test's last `mpiwatch run`
# (issue 35: no rank or helper outlives mpiwatch run): no process started
# since run_setup (or run_strays_from) is left (mpiwatch run, its collector, agent, nodehealthd,
# the launcher, a rank), nor a /dev/shm/mpiwatch-run.* folder of its runs.
# What is still there right after the runs but gone 3 s later is noted,
# not failed; what is left after 3 s is named.
run_no_strays() {
    local left i
    left=$(_run_strays)
    for ((i = 0; i < 30 && ${#left} > 0; i++)); do
        [ "$i" = 0 ] && note "still there right after the runs:" "$left"
        sleep 0.1
        left=$(_run_strays)
    done
    is "$left" "" "${1:-no process or /dev/shm folder of the mpiwatch runs of this test is left}"
}

# field FILE EXPR: EXPR over the JSON document r of FILE (python3 reads it).
field() { python3 -S -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$1" 2>/dev/null; }

# imb FILE EXPR: EXPR over an imbalance analysis r, with g its groups by id.
imb() { python3 -S -c "import json,sys; r=json.load(open(sys.argv[1])); g={x['id']:x for x in r['groups']}; print($2)" "$1" 2>&1; }

# schema_valid FILE SCHEMA: "valid" if python3's jsonschema accepts FILE
# against doc/schemas/SCHEMA, else the error (a missing python3-jsonschema is
# an error too: .ci/deps installs it).
schema_valid() {
    python3 - "$1" "$top/doc/schemas/$2" <<'PY' 2>&1
import json, sys
try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is not installed (.ci/deps installs it)"); sys.exit(0)
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))
print("valid")
PY
}

# phase_medians DIR: one line per phases.N file in DIR (the monitor's compute
# intervals): rank, node, and the median of its most sampled phase, for a
# test's notes (what the fluctuation flag judged).
phase_medians() {
    python3 - "$1" <<'PY' 2>&1
import glob, statistics, sys
for f in sorted(glob.glob(sys.argv[1] + "/phases.*"), key=lambda p: int(p.rsplit(".", 1)[1])):
    lines = open(f).read().split("\n")
    rank, node = lines[1].split()[1], lines[1].split()[3]
    best = []
    for i, l in enumerate(lines):
        if l.startswith("phase "):
            v = [float(x) for x in lines[i + 1].split()]
            if len(v) > len(best):
                best = v
    if best:
        print("rank %s on %s: median %.2f ms, %d samples" % (rank, node, statistics.median(best) / 1e6, len(best)))
PY
}
