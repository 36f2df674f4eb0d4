#!/bin/bash
# 0503: the mpiwatch analyze deadlock command line on the hand-built dump sets
# (t/data/dumps): exit status, text/JSON/DOT outputs, bad input and options.
. "$(dirname "$0")/lib/tap.sh"
cd "$(dirname "$0")/.." || exit 1
CLI=${MW_BUILD:-build}/bin/mpiwatch
D=t/data/dumps
[ -x "$CLI" ] || skip_all "build/bin/mpiwatch not built"
plan 25
tmp=$(mktemp -d /tmp/mw-dlcli.XXXXXX)
tap_cleanup "rm -rf '$tmp'"

out=$($CLI analyze deadlock $D/ring4 2>&1); rc=$?
is "$rc" 1 "a deadlock: exit status 1"
is "$(head -1 <<<"$out")" "deadlock: ranks 0-3 wait for each other in MPI_Recv (prog.c:20): a cycle: each waits for the next, none can go first" \
   "the first line is the answer: the ranks, the call, its source line"
like "$(sed -n 2p <<<"$out")" '^DEADLOCK FOUND: cycle' "the next line names the kind"
like "$out" 'ranks 0-3: MPI_Recv\(src=rank-1, tag=0, comm=MPI_COMM_WORLD\) at prog.c:20' "STAT-style class"

out=$($CLI analyze deadlock $D/any_source_idle 2>&1); rc=$?
is "$rc" 0 "an idle ANY_SOURCE receiver: exit status 0"
like "$out" '^no deadlock found: ' "says no deadlock, with the reason"
like "$out" 'rank 1 wrote no dump \(computing, finished' "names what it waits for"

out=$($CLI analyze deadlock $D/empty 2>&1); rc=$?
is "$rc" 2 "no dumps: exit status 2"
like "$out" 'no readable dump' "says there is no readable dump"

$CLI analyze deadlock $D/no-such-dir >/dev/null 2>&1; is "$?" 2 "a missing directory: exit status 2"
$CLI analyze deadlock >/dev/null 2>&1; is "$?" 2 "no directory: exit status 2"
$CLI analyze deadlock $D/ring4 --top x >/dev/null 2>&1; is "$?" 2 "a bad --top: exit status 2"
$CLI analyze deadlock $D/ring4 --bogus >/dev/null 2>&1; is "$?" 2 "an unknown option: exit status 2"
$CLI analyze frobnicate $D/ring4 >/dev/null 2>&1; is "$?" 2 "an unknown analysis: exit status 2"

out=$($CLI analyze deadlock $D/broken 2>&1); rc=$?
is "$rc" 0 "broken files do not stop the analysis"
like "$out" 'rank-1.json: truncated JSON' "a truncated file is named"
like "$out" 'rank-2.json: not an mpiwatch dump' "a foreign file is named"
like "$out" 'rank-3.json: /call/peer: expected integer, got string' "a wrong type is named with its field"

$CLI analyze deadlock $D/wrong_tag --json $tmp/r.json --dot $tmp/r.dot --quiet >$tmp/stdout 2>&1; rc=$?
is "$rc" 1 "--json/--dot/--quiet: exit status 1"
is "$(wc -c <$tmp/stdout)" 0 "--quiet prints nothing"
like "$(cat $tmp/r.json)" '"cause":"wrong_tag"' "the JSON report has the cause"
like "$(cat $tmp/r.json)" 'rank 1 sent tag 7 to rank 0 on MPI_COMM_WORLD \(MPI_Send, completed\) but rank 0 waits for tag 8' "the JSON report has the diagnosis"
like "$(cat $tmp/r.dot)" 'digraph waitfor' "the DOT file is a digraph"
out=$($CLI analyze deadlock $D/root_mismatch --json - 2>/dev/null)
like "$out" '^\{' "--json - writes JSON on stdout"
unlike "$out" 'DEADLOCK FOUND' "and no text report"
done_testing
