# Helpers for the libmpiwatch tests (t/01NN-*.t).  Source after tap.sh.
#
#   mon_cmd MPI NP VAR=VAL... -- PROG ARGS...   print-free: sets MON_CMD array
#   mon_wait_files DIR N SECONDS               wait until DIR holds N rank-*.json
#   jget FILE a.b.0.c                          print a field of a JSON file
# The library under test is $MON_LIB ($MPIWATCH_TEST_LIB if set).

MON_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# MPIWATCH_TEST_LIB: another dispatcher to test, e.g. the portable one
# (build/lib/libmpiwatch-portable.so); it loads the variants from its own folder.
MON_LIB=${MPIWATCH_TEST_LIB:-$MON_TOP/build/lib/libmpiwatch.so}

# mon_cmd openmpi|mpich NP [VAR=VALUE...] -- PROG [ARGS...]
# Fill the array MON_CMD with an mpirun/mpiexec command that preloads
# libmpiwatch and passes the variables to every rank.
mon_cmd() {
    local mpi=$1 np=$2 kv
    shift 2
    if [ "$mpi" = openmpi ]; then
        MON_CMD=(mpirun.openmpi --oversubscribe --allow-run-as-root -np "$np" -x "LD_PRELOAD=$MON_LIB")
    else
        MON_CMD=(mpiexec.mpich -np "$np" -env LD_PRELOAD "$MON_LIB")
    fi
    while [ $# -gt 0 ] && [ "$1" != -- ]; do
        kv=$1
        shift
        if [ "$mpi" = openmpi ]; then MON_CMD+=(-x "$kv"); else MON_CMD+=(-env "${kv%%=*}" "${kv#*=}"); fi
    done
    [ "${1:-}" = -- ] && shift
    MON_CMD+=("$@")
}

# mon_plain_cmd openmpi|mpich NP -- PROG [ARGS...]: the same without the monitor.
mon_plain_cmd() {
    local mpi=$1 np=$2
    shift 2
    [ "${1:-}" = -- ] && shift
    if [ "$mpi" = openmpi ]; then
        MON_CMD=(mpirun.openmpi --oversubscribe --allow-run-as-root -np "$np" "$@")
    else
        MON_CMD=(mpiexec.mpich -np "$np" "$@")
    fi
}

# mon_settings FILE "KEY = VALUE"...: a settings file of one's own for plain
# mpirun (doc/monitor.md: what MPIWATCH_SETTINGS names); prints FILE.
mon_settings() {
    local f=$1
    shift
    printf '%s\n' "# mpiwatch: this run's settings" "$@" >"$f"
    printf '%s\n' "$f"
}

# mon_wait_files DIR N SECONDS: poll (bounded) until DIR has N rank-*.json.
mon_wait_files() {
    local dir=$1 n=$2 secs=$3 i
    for ((i = 0; i < secs * 5; i++)); do
        [ "$(ls "$dir"/rank-*.json 2>/dev/null | wc -l)" -ge "$n" ] && return 0
        sleep 0.2
    done
    return 1
}

# mon_bg_start: run MON_CMD in the background (bounded by 300 s), output to $1.
mon_bg_start() {
    timeout -k 10 300 "${MON_CMD[@]}" >"$1" 2>&1 &
    MON_BG=$!
}

# mon_bg_stop: end the background run (the deadlocked job) and reap it.
mon_bg_stop() {
    kill -TERM "$MON_BG" 2>/dev/null
    local i
    for ((i = 0; i < 100; i++)); do
        kill -0 "$MON_BG" 2>/dev/null || break
        sleep 0.2
    done
    kill -KILL "$MON_BG" 2>/dev/null
    wait "$MON_BG" 2>/dev/null
    return 0
}

# jget FILE PATH: print the value at a dotted path (numbers index arrays);
# null prints "null", booleans "true"/"false", objects/arrays as JSON.
jget() {
    python3 - "$1" "$2" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
    for k in [k for k in sys.argv[2].split('.') if k]:
        d = d[int(k)] if isinstance(d, list) else d[k]
except Exception as e:
    print("ERROR: %s" % e)
    sys.exit(0)
if d is None:
    print("null")
elif isinstance(d, bool):
    print("true" if d else "false")
elif isinstance(d, (dict, list)):
    print(json.dumps(d, sort_keys=True))
else:
    print(d)
PY
}

# mon_schema_check FILE: validate a dump against doc/schemas/dump.schema.json
# with Debian's python3-jsonschema (.ci/deps); without it the check fails.
mon_schema_check() {
    python3 - "$1" "$MON_TOP/doc/schemas/dump.schema.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = json.load(open(sys.argv[2]))
try:
    import jsonschema
except ImportError:
    sys.exit("python3-jsonschema is not installed (.ci/deps installs it)")
jsonschema.validate(d, s)
PY
}
