#!/bin/bash
# Auxiliary processes (issue 13, mpiwatch-ap.conf(5)): the site names four
# commands in a root-owned file given by ap_conf= on the plugin's line: a
# normal one (ip -s link), one that hangs (sleep), one that floods its
# output (yes) and one that says who it runs as (id -un).  A deadlocking
# Open MPI job on 3 nodes: the verdict is the same as without APs (software,
# the deadlock found, the same one-line answer); report.json has, for every
# node, the normal command's output, the hanging one killed at its time
# bound and said so, the flood cut at its size bound and said so, the
# commands run as the job's user; report.txt has a section per node; the
# one-line answer, the job's comment and its output hold nothing of them.
# A job user cannot name a command (--mpiwatch=ap_conf=... is refused).
# With nodes = suspicious, only the node of the suspicious rank runs them.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"

plan no_plan
lab_require 3
prog=$(lab_prog openmpi col_deadlock)
schema=$MW_LAB_REPO/doc/schemas/report.schema.json
coll=$MW_LAB_REPO/build/bin/mpiwatch-collector

# The site's file: root's, 0644, where every node sees it.
apconf=$MW_LAB_DIR/ap-0720.conf
cat >"$apconf" <<'CONF'
# t/0720: the site's auxiliary processes
command = links /usr/sbin/ip -s link
command = hang  /bin/sleep 300
command = flood /usr/bin/yes mpiwatch-flood-line
command = who   /usr/bin/id -un
timeout = 2
max_output = 4096
CONF
chown root:root "$apconf"
chmod 0644 "$apconf"
tap_cleanup "rm -f '$apconf'"
col_plugin_args "ap_conf=$apconf"

out=$(lab_as mwuser1 srun --mpiwatch=ap_conf=/tmp/mine.conf -N1 true 2>&1); st=$?
isnt "$st" 0 "srun --mpiwatch=ap_conf=... is refused: a job user cannot name a command"
like "$out" "--mpiwatch: unknown item 'ap_conf=/tmp/mine.conf'" "and is told it is not a setting of theirs"

dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"
jid=$(lab_sbatch mwuser1 -N3 -n6 --mpiwatch=timeout=2 -o "$dir/job.out" --wrap "srun --mpi=pmix $prog")
like "$jid" '^[0-9]+$' "deadlocking job submitted"
tap_cleanup "scancel $jid 2>/dev/null"
out=$dir/mpiwatch-$jid
rep=$out/report.json
wait_for 180 "grep -q '\"verdict\": *\"software\"' '$rep'"
jvs "$rep" 'd["verdict"]' 'd["deadlock"]["found"]' '";".join(c["cause"] + ":" + c["ranks_text"] for c in d["causes"])'
is "${JV[0]}" software "verdict software"
is "${JV[1]}" True "deadlock found"
is "${JV[2]}" "B:0-5" "cause B for ranks 0-5"
answer="deadlock: ranks 0-5 wait for each other in MPI_Recv (col_deadlock.c:13): a cycle: each waits for the next, none can go first"
is "$(head -1 "$out/report.txt")" "$answer" "report.txt's first line is the same answer as without APs"

# Every node's four results are in (they may come after the verdict).
done4='len([r for r in d["auxiliary"]["rounds"][0]["results"] if r["state"] == "done"])'
wait_for 60 "test \"\$(jv '$rep' '$done4' 2>/dev/null)\" = 12"
# One read of report.json for the checks below (one python start, not 24).
r='[r for r in d["auxiliary"]["rounds"][0]["results"]'
exprs=("$done4" 'd["auxiliary"]["config"]["commands"]' 'len(d["auxiliary"]["rounds"])')
for n in n1 n2 n3; do
    exprs+=("$r if r['node'] == '$n' and r['name'] == 'links'][0]['status']"
        "$r if r['node'] == '$n' and r['name'] == 'links'][0]['output']"
        "[(x['timed_out'], x['signal'], x['status']) for x in $r if r['node'] == '$n' and r['name'] == 'hang']][0]"
        "$r if r['node'] == '$n' and r['name'] == 'hang'][0]['summary']"
        "[(x['truncated'], len(x['output']), x['output'].split(chr(10))[0]) for x in $r if r['node'] == '$n' and r['name'] == 'flood']][0]"
        "$r if r['node'] == '$n' and r['name'] == 'flood'][0]['summary']"
        "repr($r if r['node'] == '$n' and r['name'] == 'who'][0]['output'])")
done
jvs "$rep" "${exprs[@]}"
is "${JV[0]}" 12 "report.json: 4 results from each of the 3 nodes"
ok_cmd "report.json with its auxiliary results is valid against the schema" "$coll" --check-report "$rep" --schema "$schema"
is "${JV[1]}" "['links', 'hang', 'flood', 'who']" "the site's four commands, in its order"
is "${JV[2]}" 1 "one round, at the suspicious event"
i=3
for n in n1 n2 n3; do
    is "${JV[i]}" 0 "$n: links exits 0"
    like "${JV[i + 1]}" "eth0.*RX:.*TX:" "$n: links: ip -s link's output, with the node's own eth0"
    is "${JV[i + 2]}" "(True, 9, -1)" "$n: hang killed (SIGKILL) at its time bound"
    like "${JV[i + 3]}" "^killed at the time bound \(2 s\)" "$n: hang: the report says it was killed at the bound"
    is "${JV[i + 4]}" "(True, 4096, 'mpiwatch-flood-line')" "$n: flood cut at 4096 bytes"
    like "${JV[i + 5]}" "^output cut at the size bound \(4096 bytes\), the command killed" "$n: flood: the report says it was cut"
    is "${JV[i + 6]}" "'mwuser1\\n'" "$n: the commands run as the job's user"
    i=$((i + 7))
done
is "$(jv "$rep" 'd["verdict"]')" software "the verdict is unchanged after the APs' output came"

txt=$(cat "$out/report.txt")
like "$txt" "auxiliary processes, round 1 \(threshold crossed" "report.txt: the APs' section"
for n in n1 n2 n3; do
    like "$txt" "  node $n:
    links: exit 0" "report.txt: a section for $n"
done
like "$txt" "    hang: killed at the time bound \(2 s\)" "report.txt: the hang killed at its bound"
like "$txt" "    flood: output cut at the size bound \(4096 bytes\), the command killed" "report.txt: the flood cut"
like "$txt" "more lines in report.json" "report.txt shows a bounded part of the output"
cmp_ok "$(grep -c 'mpiwatch-flood-line' "$out/report.txt")" -le 60 "report.txt: at most 20 lines per command and node"
unlike "$(jv "$rep" 'd["answer"]')" "flood|hang|links|auxiliary" "the one-line answer holds nothing of the APs"
wait_for 30 "scontrol show job $jid | grep -q 'Comment=mpiwatch: deadlock'"
unlike "$(scontrol show job "$jid" | grep Comment=)" "flood|auxiliary|eth0" "nor does the job's comment"
ok_cmd "scancel the deadlocked job" scancel "$jid"
lab_job_wait "$jid" 120 >/dev/null
unlike "$(cat "$dir/job.out")" "mpiwatch-flood-line|eth0" "nor does the job's output"
log=$out/logs/mpiwatch-agent-n2.log
like "$(cat "$log")" "auxiliary processes: 4 command\(s\) from $apconf" "the agent of n2 read the site's file"
like "$(cat "$log")" "auxiliary process hang: ran, killed at the time bound" "and logged the hang killed"

# nodes = suspicious: a rank that exits (rank 1, on n1) is the first and
# only suspicious rank when the threshold (1) is crossed: only n1 is asked.
cat >"$apconf" <<'CONF'
command = who /usr/bin/id -un
nodes = suspicious
timeout = 2
CONF
prog=$(lab_prog openmpi col_crash)
jid=$(lab_sbatch mwuser1 -N3 -n6 --mpiwatch=timeout=2 -o "$dir/job2.out" --wrap "srun --mpi=pmix $prog exit")
like "$jid" '^[0-9]+$' "a job whose rank 1 exits submitted"
tap_cleanup "scancel $jid 2>/dev/null"
rep=$dir/mpiwatch-$jid/report.json
wait_for 180 "grep -q '\"verdict\": *\"software\"' '$rep'"
lab_job_wait "$jid" 120 >/dev/null
wait_for 30 "grep -q 'collector stopping' '$rep'"
jvs "$rep" 'd["verdict"]' '[c["detail"] for c in d["causes"] if c["cause"] == "B"]' 'd["auxiliary"]["config"]["nodes"]' \
    'sorted(set(r["node"] for r in d["auxiliary"]["rounds"][0]["results"]))' 'd["auxiliary"]["rounds"][0]["results"][0]["state"]'
is "${JV[0]}" software "verdict software"
like "${JV[1]}" "exited with status 3" "rank 1: cause B, as without APs"
is "${JV[2]}" suspicious "the site's file says: suspicious nodes only"
is "${JV[3]}" "['n1']" "only n1, the node of the exited rank, was asked"
like "${JV[4]}" '^(done|missing)$' "its result came, or is marked missing (the job ended first)"
done_testing
