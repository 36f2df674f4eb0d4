#!/bin/bash
# Auxiliary processes through the tree overlay (issue 13, doc/tree.md): a
# deadlocking Open MPI job on 4 nodes, the tree forced on (tree_threshold=2,
# fanout 2: CPs on n1 and n2 under the collector, n3 attached to n1, n4 to
# n2), the site's file (mpiwatch-ap.conf(5)) naming one command.  The
# collector's APREQ goes down through the CPs and every node's output comes
# up through them: report.json and report.txt hold, for each of the 4
# nodes, the command's output as run on that node; the verdict is the same
# as without APs.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"

plan no_plan
lab_require 4
prog=$(lab_prog openmpi col_deadlock)
coll=$MW_LAB_REPO/build/bin/mpiwatch-collector
schema=$MW_LAB_REPO/doc/schemas/report.schema.json

apconf=$MW_LAB_DIR/ap-0721.conf
cat >"$apconf" <<'CONF'
# t/0721: one auxiliary process, run on every node through the tree
command = host /bin/hostname
timeout = 5
CONF
chown root:root "$apconf"
chmod 0644 "$apconf"
tap_cleanup "rm -f '$apconf'"
col_plugin_args "ap_conf=$apconf"

dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"
jid=$(lab_sbatch mwuser1 -N4 -n4 --mpiwatch=timeout=2,tree_threshold=2,tree_fanout=2 -o "$dir/job.out" \
    --wrap "srun --mpi=pmix $prog")
like "$jid" '^[0-9]+$' "deadlocking job on 4 nodes, tree forced on, submitted"
tap_cleanup "scancel $jid 2>/dev/null"
out=$dir/mpiwatch-$jid
rep=$out/report.json
wait_for 180 "grep -q '\"verdict\": *\"software\"' '$rep'"
is "$(jv "$rep" 'd["verdict"]')" software "verdict software, as in the star"
is "$(jv "$rep" '" ".join(n["node"] + ">" + n["planned_parent"] for n in d["tree"]["nodes"])')" \
    "n1>collector n2>collector n3>n1 n4>n2" "the job runs through the tree: n3 under the CP on n1, n4 under n2"

done4='len([r for r in d["auxiliary"]["rounds"][0]["results"] if r["state"] == "done"])'
wait_for 60 "test \"\$(jv '$rep' '$done4' 2>/dev/null)\" = 4"
is "$(jv "$rep" "$done4")" 4 "report.json: the command's result from each of the 4 nodes"
is "$(jv "$rep" '" ".join(n["node"] + ">" + n["parent"] for n in d["tree"]["nodes"])')" \
    "n1>collector n2>collector n3>n1 n4>n2" "n3 and n4 were attached below the CPs (their output came through them)"
r='[r for r in d["auxiliary"]["rounds"][0]["results"]'
for n in n1 n2 n3 n4; do
    is "$(jv "$rep" "repr($r if r['node'] == '$n' and r['name'] == 'host'][0]['output'])")" "'$n\\n'" \
        "$n: the output of hostname run on $n"
done
ok_cmd "report.json with its auxiliary results is valid against the schema" "$coll" --check-report "$rep" --schema "$schema"
txt=$(cat "$out/report.txt")
for n in n1 n2 n3 n4; do
    like "$txt" "  node $n:
    host: exit 0" "report.txt: a section for $n"
done
clog=$out/logs/mpiwatch-collector-n1.log
ok_cmd "the collector's log is there" test -s "$clog"
unlike "$(cat "$clog")" "auxiliary process output .* refused" "the collector refused no output"
like "$(cat "$out/logs/mpiwatch-agent-n3.log")" "auxiliary process host: ran" "the agent of n3 (below the CP on n1) ran the command"
ok_cmd "scancel the deadlocked job" scancel "$jid"
lab_job_wait "$jid" 120 >/dev/null
done_testing
