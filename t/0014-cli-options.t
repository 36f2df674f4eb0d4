#!/bin/bash
# Issue 31, "one CLI option parser": every subcommand of mpiwatch reads its
# options the same way.  A bad value is refused with exit status 2 (a usage
# error, mpiwatch(1)) and ONE line on stderr that names the option as the
# user typed it, the value, and what is expected with its range
# ("mpiwatch run: --timeout abc: expected seconds, a number from 1 to
# 604800"), whatever the subcommand; an unknown option and a missing value
# are said the same way; so do mpiwatch-agent and mpiwatch-collector.  Each
# subcommand's --help lists every option of its table, one line each.  The
# analyses are commands of their own in "mpiwatch --help".  No lab: only the
# command line is read.
. "$(dirname "$0")/lib/tap.sh"

top=$(cd "$(dirname "$0")/.." && pwd)
mw=${MW_BUILD:-$top/build}/bin/mpiwatch
[ -x "$mw" ] || skip_all "build/bin/mpiwatch not built"
work=$(mktemp -d /tmp/mw-cliopt.XXXXXX)
tap_cleanup "rm -rf '$work'"
cd "$work" || BAIL_OUT "cd $work"
plan no_plan

# bad EXPECTED_LINE_REGEX DESC -- ARGS...: mpiwatch ARGS (or, for ../NAME
# ARGS, mpiwatch-NAME ARGS) exits 2, with nothing on stdout and one line on
# stderr that matches.
bad() {
    local re=$1 desc=$2
    shift 3
    case $1 in
    ../*) local prog=${mw%/mpiwatch}/mpiwatch-${1#../}; shift; "$prog" "$@" >out 2>err ;;
    *) "$mw" "$@" >out 2>err ;;
    esac
    local st=$?
    is "$st" 2 "$desc: exit status 2"
    is "$(wc -l <err | tr -d ' ')" 1 "$desc: one line on stderr"
    like "$(cat err)" "$re" "$desc: the line names the option as typed and what is expected"
    is "$(cat out)" "" "$desc: nothing on stdout"
}

# The settings table's range (shared/jobconf.c), named by the option typed.
bad '^mpiwatch run: --timeout abc: expected seconds, a number from 1 to 604800' \
    "run --timeout abc" -- run --timeout abc -- true
bad '^mpiwatch run: --hang-limit 0\.5: expected seconds, a number from 1 to 31536000' \
    "run --hang-limit 0.5" -- run --hang-limit 0.5 -- true
bad '^mpiwatch run: --threshold 0: expected a rank count' \
    "run --threshold 0" -- run --threshold 0 -- true
# A short option is named short; the same shape.
bad '^mpiwatch run: -n abc: expected a rank count, a whole number from 1 to 4096$' \
    "run -n abc" -- run -n abc -- true
bad '^mpiwatch run: --np 0: expected a rank count, a whole number from 1 to 4096$' \
    "run --np=0" -- run --np=0 -- true
# Other subcommands: the same wording.
bad '^mpiwatch analyze deadlock: --top x: expected .*a whole number from 0 to 1000$' \
    "analyze deadlock --top x" -- analyze deadlock --top x "$top/t/data/dumps/ring4"
bad '^mpiwatch analyze deadlock: --expect-size 0: expected .*a whole number from 1 to 16777216$' \
    "analyze deadlock --expect-size 0" -- analyze deadlock --expect-size 0 "$top/t/data/dumps/ring4"
bad '^mpiwatch probe: --tries 0: expected .*a whole number from 1 to 16$' \
    "probe --tries 0" -- probe --tries 0 localhost
bad '^mpiwatch probe: -p 70000: expected .*a whole number from 1 to 65535$' \
    "probe -p 70000" -- probe -p 70000 localhost
bad '^mpiwatch status: --port x: expected .*a whole number from 1 to 65535$' \
    "status --port x" -- status --port x
bad '^mpiwatch calibrate: --samples 3: expected .*a whole number from 5 to 100000$' \
    "calibrate --samples 3" -- calibrate --samples 3
bad '^mpiwatch analyze fluctuation: --unit s: expected ns or cycles$' \
    "analyze fluctuation --unit s" -- analyze fluctuation --unit s a b
bad '^mpiwatch topo: --cps x: expected .*a whole number from 0 to 16777216$' \
    "topo --cps x" -- topo --nodes a --cps x
# An unknown option, a missing value, a value to a flag: the same shape.
bad '^mpiwatch status: --bogus: unknown option' "status --bogus" -- status --bogus
bad '^mpiwatch analyze deadlock: --bogus: unknown option' \
    "analyze deadlock --bogus" -- analyze deadlock --bogus "$top/t/data/dumps/ring4"
bad '^mpiwatch probe: --port: expected .*a whole number from 1 to 65535' \
    "probe --port (no value)" -- probe localhost --port
bad '^mpiwatch resume: --dry-run=yes: takes no value' \
    "resume --dry-run=yes" -- resume --dry-run=yes n1

# The helpers the plugin and mpiwatch run start: the same parser, the same
# wording (a job setting named by the option, its range from the table).
bad '^mpiwatch-collector: --drain maybe: expected yes or no' \
    "mpiwatch-collector --drain maybe" -- ../collector --job 1 --drain maybe
bad '^mpiwatch-agent: --tick 0: expected seconds, a number from 0\.01 to 60$' \
    "mpiwatch-agent --tick 0" -- ../agent --tick 0
bad '^mpiwatch-collector: --bogus: unknown option' \
    "mpiwatch-collector --bogus" -- ../collector --bogus
# nodehealthd reads its options with the same parser (issue 31: no
# getopt_long loop of its own left).
bad '^mpiwatch-nodehealthd: --bogus: unknown option \(see mpiwatch-nodehealthd --help\)$' \
    "mpiwatch-nodehealthd --bogus" -- ../nodehealthd --bogus
bad '^mpiwatch-nodehealthd: -c: expected FILE' \
    "mpiwatch-nodehealthd -c" -- ../nodehealthd -c

# --help: exit 0, on stdout; every option of the usage line has its own line
# "  -x, --name ARG  what it does" (or "      --name ARG ...").
for cmd in run "analyze deadlock" "analyze imbalance" "analyze fluctuation" calibrate drain probe \
    resume status topo; do
    # shellcheck disable=SC2086
    help=$("$mw" $cmd --help 2>err)
    is "$?" 0 "$cmd --help: exit status 0"
    is "$(cat err)" "" "$cmd --help: nothing on stderr"
    usage=$(printf '%s\n' "$help" | awk '/^Usage:/ {u = 1; print; next} u && /^ +[[-]/ {print; next} {u = 0}')
    like "$usage" "^Usage: mpiwatch $cmd " "$cmd --help: the usage line"
    lines=$(printf '%s\n' "$help" | sed -n 's/^ *\(-[a-zA-Z], \)\{0,1\}\(--[a-z-]*\).*/\2/p' | sort -u)
    missing=
    for opt in $(printf '%s\n' "$usage" | grep -o -- '--[a-z][a-z-]*' | sort -u); do
        printf '%s\n' "$lines" | grep -qx -- "$opt" || missing="$missing $opt"
    done
    is "$missing" "" "$cmd --help: every option of the usage line has its line"
    like "$lines" "--help" "$cmd --help: --help has its line"
done
help=$("$mw" analyze deadlock --help)
for opt in --json --dot --expect-size --top --eager-limit --schema --skew --no-symbols --quiet \
    --progress --no-progress; do
    like "$help" "
 +(-[a-z], )?$opt" "analyze deadlock --help: $opt has its line"
done

# The analyses are commands: "mpiwatch --help" lists each.
help=$("$mw" --help)
for a in deadlock imbalance fluctuation; do
    like "$help" "
  analyze $a " "mpiwatch --help lists analyze $a"
done
done_testing
