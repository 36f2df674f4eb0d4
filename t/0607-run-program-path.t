#!/bin/bash
# 0607: issue 35 item 5.  The dumps of a run name the program by its absolute
# path and its build-id, so that `mpiwatch analyze deadlock DIR/dumps` finds
# the source lines from any folder, not only from the one the program was
# started in as ./prog.  A program rebuilt since the run is not trusted: the
# analysis says so rather than naming lines of another build.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/run.sh"

plan 8
run_setup mw-progpath

mkdir -p bin
cp "$top/build/progs/openmpi/deadlock" bin/prog
(cd bin && timeout 120 "$mw" run -n 3 --timeout 2 --mpi openmpi --dir "$work/r" -- ./prog \
    >"$work/run.out" 2>"$work/run.err")
is "$?" 2 "a deadlock started as ./prog: exit 2"
first=$(head -1 "$work/r/report.txt")
like "$first" 'deadlock\.c:16' "the run's answer names the line"

# the program's frames in a dump: object and build_id, as one distinct pair
frames() {
    python3 -S -c 'import json,sys
seen = {(f.get("object"), f.get("build_id")) for f in json.load(open(sys.argv[1]))["stack"]
        if f.get("object", "").endswith("prog")}
for o, b in sorted(seen, key=str): print(o, b)' "$1"
}
bid=$(readelf -n bin/prog | sed -n 's/.*Build ID: *//p')
is "$(frames "$work/r/dumps/rank-0.json")" "$work/bin/prog $bid" \
   "the dump names the program by its absolute path and its build-id"

# analysed from another folder: the same answer, with the line
out=$(cd / && "$mw" analyze deadlock "$work/r/dumps" 2>&1)
is "$?" 1 "analysed from /: a deadlock, exit 1"
is "$(head -1 <<<"$out")" "$first" "analysed from /: the same first line as the run's, with the line"

# the program rebuilt since the run (another build at the same path)
cp "$top/build/progs/openmpi/ring" bin/prog
out=$(cd / && "$mw" analyze deadlock "$work/r/dumps" 2>&1)
unlike "$(head -1 <<<"$out")" 'ring\.c' "a rebuilt program: no line of the new build is named"
like "$(head -1 <<<"$out")" "no source line: $work/bin/prog has changed since the run" \
   "a rebuilt program: the answer says the program changed since the run"
run_no_strays
done_testing
