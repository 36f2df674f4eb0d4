#!/bin/bash
# Issue 35 item 9: a user's doc speaks of the product.  `mpiwatch run --help`'s
# usage line names every option the command takes (--hang-limit, --profile
# among them); every man page renders with groff without a warning;
# mpiwatch(1) documents `analyze imbalance` and says what `mpiwatch run` exits
# with; the README says how to read the man pages of a checkout (`man -l`);
# and no doc under doc/ nor the README points outside the repository
# (`../shared`) or speaks of the working notes the product was made from
# ("the seed's formula is lost", "not yet used by the jobs").  No lab.
. "$(dirname "$0")/lib/tap.sh"

top=$(cd "$(dirname "$0")/.." && pwd)
mw=${MW_BUILD:-$top/build}/bin/mpiwatch
mans=("$top"/doc/man/*.[1-8])
docs=("$top"/README.md "$top"/doc/*.md "$top"/doc/schemas/*.md)

plan $((10 + ${#mans[@]}))

help=$("$mw" run --help 2>&1)
is "$?" 0 "mpiwatch run --help exits 0"
# The usage line: from "Usage:" up to the first line that is not its
# continuation (indented, starting with '[' or '--').
usage=$(printf '%s\n' "$help" | awk '/^Usage:/ {u = 1; print; next}
    u && /^ +[[-]/ {print; next} {u = 0}')
like "$usage" '--hang-limit' "the usage line names --hang-limit"
like "$usage" '--profile' "the usage line names --profile"
# Every long option of the option table is on the usage line.
missing=
# (A table line "-n, --np N" is named by either form: "[-n" or "--np".)
while read -r short opt; do
    short=${short#x}
    [ "$opt" = --help ] && continue
    case "$usage" in *"$opt"*) continue ;; esac
    [ -n "$short" ] && case "$usage" in *"[$short"*) continue ;; esac
    missing="$missing $opt"
done < <(printf '%s\n' "$help" | sed -n 's/^ *\(-[a-z]\)\{0,1\}\(, \)\{0,1\}\(--[a-z-]*\).*/x\1 \3/p')
is "$missing" "" "the usage line names every option of the table"

for m in "${mans[@]}"; do
    w=$(groff -man -ww -z "$m" 2>&1)
    is "$w" "" "groff renders ${m#$top/} without a warning"
done

# mpiwatch(1)
man1=$top/doc/man/mpiwatch.1
ok_cmd "mpiwatch(1) documents analyze imbalance" grep -q '^\.BI* "*analyze imbalance' "$man1"
# A rank that ended: mpiwatch run exits with the program's status (the
# launcher's), not 2 (t/0600-run.t runs it).
nok_cmd "mpiwatch(1) does not say a rank that ended makes mpiwatch run exit 2" \
    grep -q 'a rank that ended' "$man1"

# README
ok_cmd "the README says man -l doc/man/..." grep -q 'man -l doc/man/' "$top/README.md"
nok_cmd "the README does not say the tree is not yet used" grep -q 'not yet used by the jobs' "$top/README.md"

# Nothing points outside the repository or speaks of lost notes.
out=$(grep -n '\.\./shared' "${docs[@]}" 2>/dev/null)
is "$out" "" "no doc points to ../shared"
notes=$(grep -n -i -E "formulas? (is|are|was|were) lost|\(lost\)|seed's formula" "${docs[@]}" "${mans[@]}" 2>/dev/null)
is "$notes" "" "no doc speaks of the seeds' lost formulas"

done_testing
