# Helpers for the collector's lab tests (t/04xx).  Source after tap.sh and
# lab.sh.

# jv FILE EXPR: evaluate a Python expression over a JSON file loaded as d.
# (python3 -S: json is all it needs; without site's start-up a call costs
# a third less, and the tests make hundreds while ranks spin on the CPUs.)
jv() { python3 -S -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>&1; }

# jvs FILE EXPR...: several expressions over ONE read of FILE, one python
# start for all; JV[i] is what "$(jv FILE EXPR_i)" would give (an
# expression that fails gives its error, as jv's traceback would).
jvs() {
    local f=$1; shift
    mapfile -d '' -t JV < <(python3 -S -c 'import json,sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as x:
    d = x
for e in sys.argv[2:]:
    try:
        r = str(d if isinstance(d, Exception) else eval(e))
    except Exception as x:
        r = "%s: %s" % (type(x).__name__, x)
    sys.stdout.write(r.rstrip("\n") + "\0")' "$f" "$@" 2>&1)
}

# col_deadlock_scenario MPI SRUN_MPI: collector scenario 2 under one MPI: a
# ring of blocking receives on 3 nodes, 6 ranks (srun --mpi=SRUN_MPI) gives
# verdict software, cause B for every rank, the deadlock found, the dumps
# copied, report.txt's first line (the answer: ranks, call, source line) and
# rank classes, and the answer after the user's own comment as the job's
# comment (scontrol fallback: the lab's plugin line has no restd=).  12 tests.
col_deadlock_scenario() {
    local mpi=$1 srun_mpi=$2 prog schema coll dir jid out
    prog=$(lab_prog "$mpi" col_deadlock)
    schema=$MW_LAB_REPO/doc/schemas/report.schema.json
    coll=$MW_LAB_REPO/build/bin/mpiwatch-collector
    dir=$(lab_tmpdir mwuser1)
    cd "$dir" || BAIL_OUT "cd $dir"

    jid=$(lab_sbatch mwuser1 -N3 -n6 --mpiwatch=timeout=2 --comment "ring test 42" -o "$dir/job.out" \
        --wrap "srun --mpi=$srun_mpi $prog")
    like "$jid" '^[0-9]+$' "deadlocking job submitted"
    tap_cleanup "scancel $jid 2>/dev/null"
    out=$dir/mpiwatch-$jid
    wait_for 180 "grep -q '\"verdict\": *\"software\"' '$out/report.json'"
    is "$(jv "$out/report.json" 'd["verdict"]')" software "verdict software"
    ok_cmd "report.json is valid against the schema" "$coll" --check-report "$out/report.json" --schema "$schema"
    is "$(jv "$out/report.json" '";".join(c["cause"] + ":" + c["ranks_text"] for c in d["causes"])')" "B:0-5" \
        "cause B for ranks 0-5"
    is "$(jv "$out/report.json" 'd["deadlock"]["found"]')" True "deadlock found"
    is "$(jv "$out/report.json" 'sorted(d["deadlock"]["ranks"])')" "[0, 1, 2, 3, 4, 5]" "the deadlock names ranks 0-5"
    is "$(jv "$out/report.json" '",".join(sorted(set(n["state"] for n in d["nodes"])- {"alive","degraded"}))')" "" \
        "every node answered the probe"
    wait_for 30 "test \$(ls '$out/dumps' | grep -c '^rank-[0-9]*\.json\$') -ge 6"
    is "$(ls "$out/dumps" | grep -c '^rank-[0-9]*\.json$')" 6 "the 6 dumps are in $out/dumps"
    local answer="deadlock: ranks 0-5 wait for each other in MPI_Recv (col_deadlock.c:13): a cycle: each waits for the next, none can go first"
    is "$(head -1 "$out/report.txt")" "$answer" "report.txt's first line is the answer: the ranks, the call, its source line"
    like "$(cat "$out/report.txt")" "ranks 0-5: B \(the program's own error\): deadlocked \(cycle\)" \
        "report.txt collapses the ranks into one class, the cause explained"
    wait_for 30 "scontrol show job $jid | grep -q 'Comment=.*mpiwatch: deadlock'"
    like "$(scontrol show job "$jid")" "Comment=ring test 42 \| mpiwatch: deadlock: ranks 0-5 wait for each other in MPI_Recv \(col_deadlock.c:13\).*; report $out/report.txt" \
        "the job's comment: the user's own, then the answer and the report's path"
    ok_cmd "scancel the deadlocked job" scancel "$jid"
    lab_job_wait "$jid" 120 >/dev/null
}

# col_storm_raise: nodehealthd's storm guard (4 drains per 10 minutes in the
# lab) would refuse a drain when the drain tests run back to back: raise it
# for this test (col_storm_raise registers its own undo with tap_cleanup).
col_storm_raise() {
    local n c
    for n in $MW_LAB_NODE_LIST; do
        c=$MW_LAB_DIR/nodes/$n/nodehealthd.conf
        [ -w "$c" ] || continue
        grep -q '^storm_max_per_window = 1000 # t/04' "$c" || echo 'storm_max_per_window = 1000 # t/04' >>"$c"
        kill -HUP "$(cat "$MW_LAB_DIR/nodes/$n/nodehealthd.pid")" 2>/dev/null
    done
    tap_cleanup col_storm_restore
}
col_storm_restore() {
    local n c
    for n in $MW_LAB_NODE_LIST; do
        c=$MW_LAB_DIR/nodes/$n/nodehealthd.conf
        [ -w "$c" ] && sed -i '/# t\/04$/d' "$c" && kill -HUP "$(cat "$MW_LAB_DIR/nodes/$n/nodehealthd.pid")" 2>/dev/null
    done
}

# col_connected DIR JOB NODE: how many agents the collector of JOB (on
# NODE, its first node) welcomed so far, from its log in the report folder.
col_connected() { grep -c 'connected from' "$1/mpiwatch-$2/logs/mpiwatch-collector-$3.log" 2>/dev/null; }

# lab_node_procs NODE PROGRAM [JOB]: the pids of PROGRAM (the base name of its
# argv[0]) running in NODE's network namespace.
lab_node_procs() {
    local p c
    for p in $(ip netns pids "mwl${MW_LAB_ID:-0}-$1" 2>/dev/null); do
        c=$(tr '\0' '\n' <"/proc/$p/cmdline" 2>/dev/null | head -n1)
        [ "${c##*/}" = "$2" ] || continue
        # JOB given: only that job's helper (its "--job JOB" argument); a
        # helper of the previous test's job may still be finishing.
        [ -z "${3:-}" ] || tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q -- "--job $3 " || continue
        echo "$p"
    done
}

# col_end_and_revive JOB NODE: cancel JOB, revive the killed NODE and resume
# it, so that later tests find it idle.  One test.  The node is revived
# before the job's end is awaited: its fresh slurmd tells slurmctld at once
# that the job is gone there (a dead node kept the cancelled job COMPLETING
# for about a minute, until Slurm gave up on it).
col_end_and_revive() {
    local jid=$1 node=$2
    scancel "$jid"
    lab_revive_node "$node" >/dev/null 2>&1
    "$MW_LAB_REPO/build/bin/mpiwatch" resume "$node" >/dev/null 2>&1
    lab_job_wait "$jid" 120 >/dev/null
    wait_for 120 "lab_node_is $node idle"
    is "$(lab_node_state "$node")" idle "$node is idle again after revive + mpiwatch resume"
}

# col_start_steady DIR NODES NTASKS SECONDS [SBATCH_ARGS...]: submit a
# healthy col_steady job of mwuser1 (timeout=2) on NODES (a hostlist) from
# DIR, wait until every agent is connected and the ranks run; the job id is
# left in col_jid (not a subshell: the tests and cleanups must count).
# Three tests.
col_start_steady() {
    local dir=$1 nodes=$2 ntasks=$3 secs=$4 jid nn first prog
    shift 4
    prog=$(lab_prog openmpi col_steady)
    nn=$(scontrol show hostnames "$nodes" | wc -l)
    first=$(scontrol show hostnames "$nodes" | head -n1)
    jid=$(cd "$dir" && lab_sbatch mwuser1 -N"$nn" -n"$ntasks" -w "$nodes" --mpiwatch=timeout=2 -o "$dir/job.out" \
        "$@" --wrap "srun --mpi=pmix $prog $secs; echo srun-exit=\$?")
    col_jid=$jid
    like "$jid" '^[0-9]+$' "a $secs s job on $nodes submitted"
    tap_cleanup "scancel $jid 2>/dev/null"
    wait_for 120 "test \$(col_connected '$dir' $jid $first) -ge $nn"
    cmp_ok "$(col_connected "$dir" "$jid" "$first")" -ge "$nn" "the $nn agents are connected"
    wait_for 60 "grep -q 'steady: running' '$dir/job.out'"
    like "$(cat "$dir/job.out")" "steady: running on $ntasks ranks" "the $ntasks ranks are running"
}

# col_plugin_args ARG...: add ARGs (key=value words) to the lab's mpiwatch
# plugin line for this test; the line is restored at the end (tap_cleanup).
# One test: the line has them.
col_plugin_args() {
    local conf=$MW_LAB_DIR/plugstack.conf.d/mpiwatch.conf saved
    [ -r "$conf" ] || BAIL_OUT "the lab has no mpiwatch plugin line ($conf)"
    saved=$(cat "$conf")
    tap_cleanup "printf '%s\n' '$saved' > '$conf'"
    printf '%s %s\n' "$(head -n1 "$conf")" "$*" >"$conf"
    like "$(cat "$conf")" " $*\$" "plugin line with $*"
}
