#!/bin/bash
# mpiwatch topo (doc/tree.md): the plan of the tree overlay as text, JSON and
# an MRNet topology file; the counts file and its errors (file:line).  Not a
# lab test: the planner reads no node.  The expected trees are the ones
# worked out by hand in t/unit/test_tree_plan.c and doc/tree.md.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/run.sh"

plan 20
run_setup mw-topo

# --- 8 nodes, fanout 2, the default CP count: 8 BEs -> 4 IBEs + 2 above = 6
"$mw" topo --nodes 'n[1-8]' --fanout 2 --json >t8.json 2>t8.err; st=$?
is "$st" 0 "topo --json: exit 0"
is "$(cat t8.err)" "" "nothing on stderr"
is "$(field t8.json 'r["ncp"], r["nibe"], r["depth"], r["attach_fanout"]')" "6 4 2 2" \
   "6 CPs by default (4 IBEs, depth 2), 2 BEs per IBE"
is "$(field t8.json '[c["parent"] for c in r["cps"]]')" "[-1, -1, 0, 0, 1, 1]" "a k-ary tree of fanout 2"
is "$(field t8.json 'all(sum(1 for a in r["attach"] if a["cp"] == c["id"]) <= 2 for c in r["cps"])')" True \
   "no IBE takes more than the attach fanout"
is "$(field t8.json 'sum(1 for a in r["attach"] if r["cps"][a["cp"]]["host"] == a["host"])')" 4 \
   "the 4 BEs on an IBE's host attach there"
is "$(schema_valid t8.json topo.schema.json)" valid "the JSON matches topo.schema.json"

# --- the worked example of doc/tree.md: fuzzy ranks b, a, c
cat >counts <<'C'
# node BEs  what nodehealthd knows
a 1 load=2  mem=16000 cores=8  health=ok       rtt=0.2
b 1 load=12 mem=32000 cores=16 health=ok       rtt=0.1
c 1 load=0  mem=8000  cores=16 health=degraded rtt=0.4
C
"$mw" topo --nodes a,b,c --be-counts counts --strategy fuzzy --cps 3 --fanout 2 --mrnet >fz.mrnet; st=$?
is "$st" 0 "fuzzy --mrnet: exit 0"
is "$(cat fz.mrnet)" "a:0 => b:0 a:1 ;
b:0 => c:0 ;" "the MRNet file: the front end on a, the best host b first"
"$mw" topo --nodes a,b,c --be-counts counts --strategy fuzzy --cps 3 --fanout 2 --json >fz.json
is "$(field fz.json '[(h["name"], h["rank"], h["judgement"], round(h["b"]["good"], 9)) for h in r["hosts"]]')" \
   "[('a', 2, 'fair', 0.45), ('b', 1, 'good', 0.7), ('c', 3, 'fair', 0.4)]" "B and the ranking of the worked example"
"$mw" topo --nodes a,b,c --be-counts counts --strategy fuzzy --cps 3 --fanout 2 >fz.txt
like "$(cat fz.txt)" "b +1 BE, 1 CP  rank 1  B = \(good 0.7000, fair 0.1500, poor 0.1500\) good" "text: b ranked first"

# --- average with more BEs on one node: the RS loop (t/unit's "two rounds")
printf 'n1 10\nn2 4\nn3 4\nn4 1\nn5 1\n' >skew
"$mw" topo --nodes 'n[1-5]' --be-counts skew --cps 2 --json >avg.json
is "$(field avg.json '[h["cp"] for h in r["hosts"]], r["average"]')" "[0, 0, 0, 1, 1] {'rounds': 2, 'rs': 3}" \
   "average: the CPs go to the nodes with few BEs, after 2 RS rounds"

# --- the flat star below the fanout
"$mw" topo --nodes 'x,y' --mrnet >star.mrnet
is "$(cat star.mrnet)" "x:0 ;" "2 BEs, fanout 32: no CP, the flat star"

# --- errors: file and line, exit 2, nothing on stdout
printf 'a 1\nb two\nc\n' >bad
"$mw" topo --nodes a,b,c --be-counts bad >out 2>err; st=$?
is "$st" 2 "bad counts file: exit 2"
is "$(cat err)" "mpiwatch topo: bad:2: count 'two' of node b: expected an integer in [0, 65536]
mpiwatch topo: bad:3: node c without a count: expected NODE COUNT" "every bad line, with file:line"
is "$(cat out)" "" "nothing on stdout"
"$mw" topo --nodes a,b --be-counts counts >out 2>err; st=$?
is "$st:$(cat err)" "2:mpiwatch topo: counts: node c is not in --nodes" "a node of the file outside --nodes"
"$mw" topo --nodes 'n[1-' 2>err; st=$?
is "$st:$(cat err)" "2:mpiwatch topo: --nodes 'n[1-': not a hostlist (e.g. n[01-16],gpu3)" "a bad hostlist"
"$mw" topo --nodes a --fanout 1 2>err; st=$?
is "$st:$(head -1 err)" "2:mpiwatch topo: --fanout 1: expected a whole number from 2 to 1024" "fanout 1 refused"
"$mw" topo --nodes a --be-per-node 2 --be-counts counts 2>err; st=$?
is "$st:$(head -1 err)" "2:mpiwatch topo: --be-per-node and --be-counts exclude each other" "one source of counts"
done_testing
