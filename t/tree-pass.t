#!/bin/bash
# The tree pass (make integration-tree) used the tree.  Run last, on the lab
# the collector's tests just ran on, whose plugin line forces the tree
# (MW_LAB_PLUGIN_ARGS="tree_threshold=1 tree_fanout=2").  For every job of
# the run (each report.json under the lab's work folders, kept until the lab
# stops; on each lab the run used: MW_LAB_IDS), as the collector recorded
# it: a job of more nodes than the threshold and the fanout (the collector
# plans CPs for it) shows the tree
# (1 CP or more) and agents that reached the collector through a CP (the
# report's tree.nodes[].served_by names a CP: set from the CP's CHILD frame,
# never for a direct link); a job of fewer nodes runs the flat star, as
# planned (listed, not counted as tree).  At least one job ran through the
# tree.  Run outside the tree pass (no tree on the plugin line), it fails.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"

plan no_plan
[ "$(id -u)" = 0 ] || BAIL_OUT "the lab tests must run as root"
. "$MW_LAB_T/lab/env"
line=$(cat "$MW_LAB_DIR/plugstack.conf.d/mpiwatch.conf" 2>/dev/null)
thr=$(grep -o ' tree_threshold=[0-9]*' <<<"$line" | cut -d= -f2)
fan=$(grep -o ' tree_fanout=[0-9]*' <<<"$line" | cut -d= -f2)
like "$thr $fan" '^[0-9]+ [0-9]+$' "the lab's plugin line forces the tree: tree_threshold and tree_fanout set" ||
    diag "plugin line: $line"

# One line a job: JOB NODES tree|star|NOTREE DETAIL, in job order.
# (t/run-integration on two labs: MW_LAB_IDS names both, each with its jobs)
labdirs=()
for id in ${MW_LAB_IDS:-$MW_LAB_ID}; do labdirs+=("$(dirname "$MW_LAB_DIR")/mwl$id"); done
jobs=$(python3 -S - "${thr:-0}" "${fan:-0}" "${labdirs[@]}" <<'EOF'
import glob, json, os, sys
thr, fan, labs = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
rows = []
for f in [f for lab in labs for f in glob.glob(os.path.join(lab, "work", "*", "t.*", "mpiwatch-*", "report.json"))]:
    try:
        d = json.load(open(f))
    except Exception as x:
        rows.append((0, "%s 0 NOTREE unreadable report %s: %s" % (f, f, x)))
        continue
    jid, n = str(d.get("job", "?")), len(d.get("nodes", []))
    t = d.get("tree")
    key = int(jid) if jid.isdigit() else 0
    if n <= max(thr, fan):
        rows.append((key, "%s %d star %d node(s), not more than threshold %d and fanout %d: the flat star"
                     % (jid, n, n, thr, fan)))
        continue
    if not t:
        rows.append((key, "%s %d NOTREE no tree in the report" % (jid, n)))
        continue
    cps = {x["node"] for x in t.get("nodes", []) if x.get("role") == "cp"}
    via = sorted("%s>%s" % (x["node"], x.get("served_by", "")) for x in t.get("nodes", [])
                 if x.get("served_by") in cps)
    if t.get("cps", 0) >= 1 and via:
        rows.append((key, "%s %d tree %d CP(s); through a CP: %s" % (jid, n, t["cps"], " ".join(via))))
    else:
        rows.append((key, "%s %d NOTREE %d CP(s) planned, no agent served by a CP (served_by: %s)"
                     % (jid, n, t.get("cps", 0),
                        " ".join("%s>%s" % (x["node"], x.get("served_by", "")) for x in t.get("nodes", [])))))
for _, r in sorted(rows):
    print(r)
EOF
)
ntree=0
while read -r jid n kind detail; do
    [ -n "$jid" ] || continue
    case $kind in
    tree) ntree=$((ntree + 1)); pass "job $jid ($n nodes) ran through the tree: $detail" ;;
    star) note "job $jid: $detail" ;;
    *) fail "job $jid ($n nodes) ran through the tree: $detail" ;;
    esac
done <<<"$jobs"
cmp_ok "$ntree" -ge 1 "the pass ran jobs through the tree ($ntree job(s); $(grep -c . <<<"$jobs") report(s) read)"
done_testing
