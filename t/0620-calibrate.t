#!/bin/bash
# mpiwatch calibrate and mpiwatch analyze fluctuation (doc/calibrate.md): the
# JSON's fields, and the verdicts and exit statuses on generated timings.
# Not a lab test.  No assertion here depends on how fast or quiet this machine
# is: the calibration's own numbers are only checked for shape.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/run.sh"

plan 58
run_setup mw-calib

# --- calibrate --quick --json
"$mw" calibrate --quick --json >cal.json 2>cal.err; st=$?
ok "$([ "$st" = 0 ] || [ "$st" = 1 ]; echo $?)" "calibrate --quick --json: exit 0 or 1 (got $st)"
is "$(cat cal.err)" "" "calibrate: nothing on stderr"
is "$(field cal.json 'r["version"]')" 1 "version 1"
is "$(field cal.json 'r["quick"]')" True "quick is true"
is "$(field cal.json 'sorted(r)')" \
   "['arch', 'cpu_seconds', 'criterion', 'high_precision', 'host', 'interval', 'node', 'options', 'quick', 'rate', 'resolution', 'rounds', 'seconds', 'timers', 'version']" \
   "the top-level fields"
is "$(field cal.json 'r["options"]["samples"], r["options"]["steps"], r["options"]["quantile_low"], r["options"]["quantile_high"], r["options"]["tolerance"]')" \
   "40 10 0.05 0.95 0.05" "the quick defaults: 40 samples, 10 steps, quantiles 5/95 %, +-5 %"
is "$(field cal.json 'isinstance(r["timers"]["l_ts"], (int, float)) and r["timers"]["samples"] > 0')" True \
   "the wall clock's cost L_ts is measured"
if [ "$(uname -m)" = x86_64 ]; then
    is "$(field cal.json 'r["timers"]["cycles"], isinstance(r["timers"]["l_cy"], float), r["timers"]["invariant_how"] in ("cpuid","cpuinfo","none")')" \
       "True True True" "x86-64: the TSC is used, its cost L_cy measured, its invariance checked"
else
    is "$(field cal.json 'r["timers"]["cycles"], r["timers"]["l_cy"]')" "False None" "not x86-64: the wall clock alone"
fi
is "$(field cal.json 'len(r["rounds"]) > 0 and all(b["adds"] > a["adds"] for a, b in zip(r["rounds"], r["rounds"][1:]))')" True \
   "rounds with more additions each"
is "$(field cal.json 'r["high_precision"] == (r["interval"]["found"] and r["interval"]["ns"] <= r["options"]["threshold_ns"])')" True \
   "high_precision iff an interval was found below the threshold"
is "$(field cal.json '0 if r["high_precision"] else 1')" "$st" "exit status 0 iff high precision"
is "$(field cal.json 'not r["interval"]["found"] or r["rounds"][r["interval"]["round"]]["pass"]')" True \
   "the interval is the round that passed"
is "$(field cal.json 'all(not x["pass"] for x in r["rounds"][:-1])')" True "only the last round searched can pass"
is "$(field cal.json 'round(r["criterion"]["q"], 9), r["criterion"]["alpha"]')" "0.1 0.01" "the criterion's q and alpha"
is "$(field cal.json 'r["resolution"]["found"] == (r["criterion"]["resolution_ns"] is not None)')" True \
   "the criterion carries the resolution when there is one"
is "$(schema_valid cal.json calibrate.schema.json)" valid "calibrate's JSON matches its schema"

# --- text output, options
out=$("$mw" calibrate --quick --samples 10 --steps 2 2>&1); st=$?
ok "$([ "$st" = 0 ] || [ "$st" = 1 ]; echo $?)" "calibrate --quick (text): exit 0 or 1"
like "$out" "timer cost: .*criterion: a fluctuation is real when the band" "the text names the timer cost and the criterion"
out=$("$mw" calibrate --tolerance 80 2>&1); st=$?
is "$st" 2 "calibrate --tolerance 80: usage error, exit 2"
like "$out" "--tolerance 80: expected a percentage, a number from 0.001 to 50" "the message names the option and the range"

# --- what separates two runs (issue 32): fresh processes, each this program run
# again with --emit, after each block; the criterion covers their spread
"$mw" calibrate --json --samples 20 --steps 2 --blocks 2 --processes 4 >apart.json 2>apart.err; st=$?
ok "$([ "$st" = 0 ] || [ "$st" = 1 ]; echo $?)" "calibrate --processes 4: exit 0 or 1 (got $st)"
is "$(cat apart.err)" "" "... nothing on stderr"
is "$(field apart.json 'r["options"]["processes"], r["resolution"]["runs_apart"]["processes"]')" "4 4" \
   "... 4 fresh processes asked for"
is "$(field apart.json 'r["resolution"]["base_adds"] is None or r["resolution"]["runs_apart"]["measured"] == 4')" True \
   "... all four timed the base round"
is "$(field apart.json 'r["criterion"]["resolution_ns"] is None or r["resolution"]["runs_apart"]["bound_ns"] is None or r["criterion"]["resolution_ns"] >= r["resolution"]["runs_apart"]["bound_ns"]')" True \
   "... the criterion's resolution covers what separates two runs"
is "$(field apart.json '(lambda a: a["bound_ns"] is None or (a["bound_ns"] == max(a["bound_sd_ns"], a["bound_tail_ns"]) and (a["bound_tail_ns"] == 0 or a["bound_tail_ns"] % max(r["timers"]["step_ns"], 1) == max(r["timers"]["step_ns"], 1) / 2)))(r["resolution"]["runs_apart"])')" True \
   "... its bound is the larger of the SD's and the tail's (a whole number of clock steps less a half)"
is "$(schema_valid apart.json calibrate.schema.json)" valid "... the JSON matches its schema"
is "$(pgrep -f "calibrate --emit" | wc -l)" 0 "... and no process of it is left"
is "$(field cal.json 'r["options"]["processes"], r["resolution"]["runs_apart"]["measured"]')" "0 0" \
   "--quick starts no fresh process"

# --- analyze fluctuation on generated timings (seeded: the same files every run)
python3 - <<'PY'
import random
r = random.Random(620)
a = [1000000 + r.gauss(0, 10000) for _ in range(300)]
same = a[:]; r.shuffle(same)                        # the same distribution: the same values
slow = [x * 1.10 for x in (1000000 + r.gauss(0, 10000) for _ in range(300))]   # +10 %
def w(name, xs): open(name, "w").write("".join("%.0f\n" % x for x in xs))
w("a.txt", a); w("same.txt", same); w("slow.txt", slow)
open("bad.txt", "w").write("1000\n# a comment\n\n1001\n10O2\n")
PY
"$mw" analyze fluctuation a.txt same.txt --resolution 100 >same.out 2>&1
is "$?" 0 "identical distributions: exit 0"
like "$(cat same.out)" "verdict: not a real performance fluctuation" "identical: the verdict says so"
"$mw" analyze fluctuation a.txt slow.txt --resolution 100 >slow.out 2>&1
is "$?" 1 "one shifted by 10 %: exit 1"
like "$(cat slow.out)" "U = [0-9.e+]+, p = " "the U statistic and the p-value are printed"
like "$(cat slow.out)" "difference of medians: \+[0-9]" "the difference of medians is printed"
like "$(cat slow.out)" "verdict: a real performance fluctuation: B is slower than A \(\+(9|10)\.[0-9]+%\)" \
     "shifted: the verdict names the direction and the size"
"$mw" analyze fluctuation a.txt bad.txt --resolution 100 >bad.out 2>&1
is "$?" 2 "a bad file: exit 2"
like "$(cat bad.out)" "bad\.txt:5: '10O2' is not a timing" "the message names the file and the line"
"$mw" analyze fluctuation a.txt missing.txt >miss.out 2>&1
is "$?" 2 "a missing file: exit 2"
"$mw" analyze fluctuation a.txt >/dev/null 2>&1
is "$?" 2 "one file only: exit 2"

# With the calibration file: the criterion comes from it (the verdict for a
# 10 % shift of 1 ms cannot depend on a resolution of at most a few us).
"$mw" analyze fluctuation a.txt slow.txt --calibration cal.json --json >slow.json 2>slow.err
is "$?" 1 "10 % slower, judged with the calibration file: exit 1"
is "$(field slow.json 'r["resolution_from"], r["real"], r["direction"], round(r["q"], 9)')" \
   "cal.json True slower 0.1" "the JSON says where the criterion came from, and the verdict"
is "$(schema_valid slow.json fluctuation.schema.json)" valid "the fluctuation JSON matches its schema"
echo '{"version": 2}' >notcal.json
"$mw" analyze fluctuation a.txt slow.txt --calibration notcal.json >notcal.out 2>&1
is "$?" 2 "a file that is not a calibration: exit 2"

# --- --history: a node's calibrations kept over time (doc/calibrate.md
# section 6).  Without it the node is this calibration alone.
is "$(field cal.json '(r["node"]["calibrations"], r["node"]["ns"], r["node"]["low_ns"], r["node"]["high_ns"]) == ((1 if r["resolution"]["base_adds"] else 0), r["resolution"]["ns"], r["resolution"]["low_ns"], r["resolution"]["high_ns"])')" True \
   "without --history the node's figures are this calibration's"
# An earlier calibration of the same chain, written by hand: a busier minute
# (blocks up to 400 ns, runs apart 350 ns).  The next calibration pools it.
field cal.json 'json.dumps({"version": 1, "calibrations": [{"time": 1, "base_adds": r["resolution"]["base_adds"] or 64, "step_ns": r["timers"]["step_ns"], "blocks": [{"ns": 400, "cy": 1000, "relative": 0.2}, {"ns": 300, "cy": 750, "relative": 0.15}, None], "runs_apart_ns": 350, "runs_apart_cy": 875}]})' >hist.json
"$mw" calibrate --quick --json --history hist.json >h1.json 2>h1.err; st=$?
ok "$([ "$st" = 0 ] || [ "$st" = 1 ]; echo $?)" "calibrate --history: exit 0 or 1 (got $st)"
is "$(cat h1.err)" "" "... nothing on stderr"
is "$(schema_valid h1.json calibrate.schema.json)" valid "... the JSON matches its schema"
is "$(field hist.json 'len(r["calibrations"]), r["calibrations"][0]["time"]')" "2 1" "... the history file now holds both, the earlier first"
is "$(field h1.json 'r["resolution"]["base_adds"] is None or (r["node"]["calibrations"] == 2 and r["node"]["blocks"] == r["resolution"]["blocks"] + 3 and r["node"]["high_ns"] == 400 and r["node"]["runs_apart_ns"] == 350)')" True \
   "... the node pools both: every block, the largest runs-apart bound"
is "$(field h1.json 'r["resolution"]["base_adds"] is None or r["criterion"]["resolution_ns"] >= 350')" True \
   "... and the criterion judges with the node's 350 ns, not this minute's alone"
"$mw" calibrate --quick --history hist.json >h2.txt 2>&1
like "$(cat h2.txt)" "this node over its last 3 calibrations at [0-9]+ additions \(--history\)" "the text report says what the node's figures pool"
# Another calibration of the node that ends while this one runs (a boot's
# and a cron's) is kept: the history is read again before this one is added.
"$mw" calibrate --quick --samples 400 --history conc.json --json >conc.out 2>conc.err &
cpid=$!
sleep 0.5
field cal.json 'json.dumps({"version": 1, "calibrations": [{"time": 7, "base_adds": r["resolution"]["base_adds"] or 64, "step_ns": r["timers"]["step_ns"], "blocks": [None], "runs_apart_ns": None, "runs_apart_cy": None}]})' >conc.tmp
mv conc.tmp conc.json
wait "$cpid"; st=$?
ok "$([ "$st" = 0 ] || [ "$st" = 1 ]; echo $?)" "a calibration while another writes the history: exit 0 or 1 (got $st; $(cat conc.err))"
is "$(field conc.json '[c["time"] == 7 for c in r["calibrations"]]')" "[True, False]" \
   "... the other's entry, written during this one, is kept before this one's"
echo '{"version": 1, "calibrations": [{"time": "yesterday"}]}' >badhist.json
cp badhist.json badhist.orig
"$mw" calibrate --quick --history badhist.json >bh.out 2>&1; st=$?
is "$st" 2 "a history that does not parse: exit 2"
like "$(cat bh.out)" "badhist\.json: calibrations\[0\]\.time: expected Unix seconds" "... the message names the file and the field"
is "$(cmp badhist.json badhist.orig && echo same)" same "... and the file is left as it was"

# --- --emit: real workload timings, one per line
"$mw" calibrate --emit 1000 --count 50 --flush-kib 64 >emit.txt 2>&1
is "$?" 0 "calibrate --emit: exit 0"
is "$(grep -cE '^-?[0-9]+$' emit.txt)" 50 "--emit --count 50 prints 50 numbers"

done_testing
