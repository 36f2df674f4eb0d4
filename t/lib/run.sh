# t/lib/run.sh: for the tests of mpiwatch's own commands (mpiwatch run,
# mpiwatch analyze): a work folder, and values read from their JSON files.
# Source after tap.sh.

# run_setup PREFIX: top (the checkout), mw (the built CLI, or BAIL_OUT) and
# work (a new folder /var/tmp/PREFIX.XXXXXX, removed at the end); cd there.
run_setup() {
    top=$(cd "$(dirname "$0")/.." && pwd)
    mw=$top/build/bin/mpiwatch
    [ -x "$mw" ] || BAIL_OUT "build first"
    work=$(mktemp -d "/var/tmp/$1.XXXXXX")
    tap_cleanup "rm -rf '$work'"
    cd "$work" || BAIL_OUT "cd $work"
}

# field FILE EXPR: EXPR over the JSON document r of FILE (python3 reads it).
field() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$1" 2>/dev/null; }

# imb FILE EXPR: EXPR over an imbalance analysis r, with g its groups by id.
imb() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); g={x['id']:x for x in r['groups']}; print($2)" "$1" 2>&1; }

# valid FILE SCHEMA: "valid" if python3's jsonschema accepts FILE against
# doc/schemas/SCHEMA, else the error ("skip" when the module is missing).
valid() {
    python3 - "$1" "$top/doc/schemas/$2" <<'PY' 2>&1
import json, sys
try:
    import jsonschema
except ImportError:
    print("skip"); sys.exit(0)
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))
print("valid")
PY
}
