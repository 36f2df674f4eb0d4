#!/bin/bash
# 0503: the mpiwatch analyze deadlock command line on the hand-built dump sets
# (t/data/dumps): exit status, text/JSON/DOT outputs, bad input and options.
# Issue 35 item 6: a rank's dump that cannot be read (cut short) makes the
# analysis incomplete: said on the first line, exit status 3, not "no deadlock".
. "$(dirname "$0")/lib/tap.sh"
cd "$(dirname "$0")/.." || exit 1
CLI=${MW_BUILD:-build}/bin/mpiwatch
D=t/data/dumps
[ -x "$CLI" ] || skip_all "build/bin/mpiwatch not built"
plan 38
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
is "$rc" 3 "broken files do not stop the analysis, but leave it incomplete: exit status 3"
like "$(head -1 <<<"$out")" "^incomplete: ranks 1-3's dumps are unreadable \\(rank-1.json: truncated JSON" \
   "the first line says the analysis is incomplete, which ranks and why"
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

# A real deadlock (ring4: ranks 0-3 in MPI_Recv from rank-1) with rank 1's
# dump cut to 300 bytes: the three readable ranks do not close the cycle.
mkdir -p $tmp/cut && cp $D/ring4/rank-*.json $tmp/cut/ && head -c 300 $D/ring4/rank-1.json >$tmp/cut/rank-1.json
out=$($CLI analyze deadlock $tmp/cut 2>&1); rc=$?
is "$rc" 3 "a truncated dump: exit status 3 (incomplete), not 0"
is "$(head -1 <<<"$out")" "incomplete: rank 1's dump is unreadable (rank-1.json: truncated JSON (input ends inside a value after 300 bytes)): no deadlock among the ranks that could be read, but no verdict on rank 1 and the ranks that wait for it (0,2-3)" \
   "the first line: incomplete, the rank, the file and why"
unlike "$out" 'no deadlock found' "no confident 'no deadlock found'"
unlike "$out" 'rank\(s\) 1 wrote no dump' "the unreadable rank is not called a rank that wrote no dump"
like "$out" "rank 2: MPI_Recv\\(src=1.*rank 1's dump is unreadable" "the stuck rank that waits for it says so"
out=$($CLI analyze deadlock $tmp/cut --json - 2>/dev/null); rc=$?
is "$rc" 3 "--json: exit status 3 too"
like "$out" '"incomplete":true' "the JSON report says incomplete"
like "$out" '"incomplete_reason":"rank 1.s dump is unreadable \(rank-1.json: truncated JSON' "and why"
like "$out" '"unreadable_ranks":\[[[:space:]]*1[[:space:]]*\]' "and names the unreadable rank"

# A deadlock among the readable ranks holds whatever an unreadable one does:
# split_cycle (ranks 1,3 in a cycle on odd_comm) with a cut rank-0.json.
mkdir -p $tmp/cut2 && cp $D/split_cycle/rank-*.json $tmp/cut2/ && head -c 300 $D/split_cycle/rank-1.json >$tmp/cut2/rank-0.json
out=$($CLI analyze deadlock $tmp/cut2 2>&1); rc=$?
is "$rc" 1 "a deadlock among the readable ranks: still exit status 1"
like "$(head -1 <<<"$out")" '^deadlock: ranks 1,3 wait for each other' "the first line is still the deadlock"
like "$out" "incomplete: rank 0's dump is unreadable \\(rank-0.json: truncated JSON.*\\): the deadlock found holds whatever it does" \
   "and the unreadable dump is said"
done_testing
