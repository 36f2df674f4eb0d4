#!/bin/bash
# mpiwatch analyze fluctuation gives the same verdict on the same two files,
# run after run (issue 32): A is 400 timings with a median of 100 us and a
# spread of 1 %, B the same work 5 % slower.  Without --calibration each run
# calibrates this node first (a quick calibration); the verdict must not
# depend on which run it was: ten runs, the same verdict ten times, and it is
# "a real performance fluctuation" (a 5 % slowdown of a 100 us phase is far
# above what timers resolve at 100 us).  Not a lab test.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/run.sh"

plan 5
run_setup mw-flverdict

python3 - <<'PY'
import random
r = random.Random(3223)
a = [100000 * (1 + r.gauss(0, 0.01)) for _ in range(400)]
b = [100000 * 1.05 * (1 + r.gauss(0, 0.01)) for _ in range(400)]
def w(name, xs): open(name, "w").write("".join("%.0f\n" % x for x in xs))
w("a.txt", a); w("b.txt", b)
PY

verdicts= statuses= resolutions=
for i in 1 2 3 4 5 6 7 8 9 10; do
    "$mw" analyze fluctuation a.txt b.txt >"run$i.out" 2>&1; st=$?
    statuses="$statuses $st"
    verdicts="$verdicts$(grep '^verdict:' "run$i.out")
"
    resolutions="$resolutions$(grep -o 'resolution [^;]*' "run$i.out" | head -1)
"
done
note "exit statuses:$statuses"
note "resolutions:
$resolutions"
is "$(printf '%s' "$verdicts" | sort -u | wc -l)" 1 "ten runs on the same files: one verdict"
is "$statuses" " 1 1 1 1 1 1 1 1 1 1" "ten runs: exit 1 (a real fluctuation) every time"
like "$(cat run1.out)" "verdict: a real performance fluctuation: B is slower than A \(\+[45]\.[0-9]+%\)" \
     "the verdict: B is slower, by about 5 %"
like "$(cat run1.out)" "resolution [0-9.]+ ns \([0-9.]+.+[0-9.]+ over [0-9]+ blocks.*at A's median" \
     "the resolution was measured at A's median, with its spread over blocks"
is "$(grep -c 'warning' run1.out)" 0 "no warning: the resolution was found"

done_testing
