#!/bin/bash
# 0603: the HTML report of a real run, in a real browser.  mpiwatch run of a
# receive cycle (examples/deadlock.c, Open MPI, 3 ranks) leaves report.html
# beside report.txt and report.json; Debian's chromium driven by
# playwright-core (t/web, installed by .ci/deps) opens it from the file: it
# renders, its first line is the answer, the wait-for graph shows the ranks
# of the cycle, the stack classes, timeline and nodes are there, and no
# network request was made.  An MPI error (t/progs/run_truncate.c: rank 1's
# receive of 5 ints from rank 0, which sent 10, ends it by MPI_ERR_TRUNCATE
# before any dump): the graph draws the arrow from rank 1 to its sender,
# rank 0 (issue 35 item 3).
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/run.sh"

run_setup mw-html
if [ ! -d "$top/t/web/node_modules/playwright-core" ] || [ ! -x /usr/bin/chromium ]; then
    plan 1
    fail "needs t/web/node_modules (npm ci --prefix t/web) and /usr/bin/chromium (.ci/deps)"
    exit 1
fi

timeout 120 "$mw" run -n 3 --timeout 2 --mpi openmpi --dir "$work/dl" \
    -- "$top/build/progs/openmpi/deadlock" >"$work/dl.out" 2>"$work/dl.err"
is "$?" 2 "the deadlock run ends with the hang status"
ok_cmd "report.html is beside report.txt and report.json" test -s "$work/dl/report.html" -a -s "$work/dl/report.txt"
like "$(cat "$work/dl.err")" "HTML report $work/dl/report.html" "the terminal names the HTML report"
ok_cmd "report.json (with its stack tree) is valid against the schema" \
    "$build/bin/mpiwatch-collector" --check-report "$work/dl/report.json" --schema "$top/doc/schemas/report.schema.json"
is "$(field "$work/dl/report.json" 'r["stack_tree"][0]["children"][0]["frame"], r["stack_tree"][0]["children"][0]["ranks"], r["stack_tree"][0]["children"][0]["children"][0]["frame"]')" \
   "main (deadlock.c:16) 0-2 MPI_Recv" "report.json's stack tree: the three ranks in main at deadlock.c:16, in MPI_Recv"
like "$(cat "$work/dl/report.txt")" "stack classes \\(ranks by identical call path, from main to the MPI call\\):
  _start \\[3: 0-2\\]
    main \\(deadlock.c:16\\) \\[3: 0-2\\]
      MPI_Recv \\[3: 0-2\\]" "report.txt has the stack classes as a tree"
unlike "$(cat "$work/dl/report.html")" "<(script|link|img|iframe)" "the page has no script and loads nothing"

# browser_tap PREFIX TAPFILE: the browser script's TAP lines as this test's.
browser_tap() {
    while IFS= read -r l; do
        case $l in
            "ok "*) pass "$1${l#ok * - }" ;;
            "not ok "*) fail "$1${l#not ok * - }" ;;
            1..*) ;;
            *) diag "$l" ;;
        esac
    done <"$2"
}

(cd "$top/t/web" && timeout 240 node report-view.mjs "$work/dl/report.html" "$work/dl/report.json" "$work/graph.png") >"$work/browser.tap" 2>&1
st=$?
browser_tap "browser: " "$work/browser.tap"
is "$st" 0 "the browser test ran to its end"

timeout 120 "$mw" run -n 3 --timeout 2 --mpi openmpi --dir "$work/tr" \
    -- "$top/build/progs/openmpi/run_truncate" >"$work/tr.out" 2>"$work/tr.err"
(cd "$top/t/web" && timeout 120 node report-arrow.mjs "$work/tr/report.html" 1 0) >"$work/arrow.tap" 2>&1
st=$?
browser_tap "MPI error: browser: " "$work/arrow.tap"
is "$st" 0 "MPI error: the browser check ran to its end"

run_no_strays
done_testing
