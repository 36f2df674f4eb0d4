# Helpers for the collector's lab tests (t/04xx).  Source after tap.sh and
# lab.sh.

# jv FILE EXPR: evaluate a Python expression over a JSON file loaded as d.
jv() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>&1; }

# col_deadlock_scenario MPI SRUN_MPI: collector scenario 2 under one MPI: a
# ring of blocking receives on 3 nodes, 6 ranks (srun --mpi=SRUN_MPI) gives
# verdict software, cause B for every rank, the deadlock found, the dumps
# copied, report.txt's rank classes and the verdict as the job's comment
# (scontrol fallback: the lab's plugin line has no restd=).  11 tests.
col_deadlock_scenario() {
    local mpi=$1 srun_mpi=$2 prog schema coll dir jid out
    prog=$(lab_prog "$mpi" col_deadlock)
    schema=$MW_LAB_REPO/doc/schemas/report.schema.json
    coll=$MW_LAB_REPO/build/bin/mpiwatch-collector
    dir=$(lab_tmpdir mwuser1)
    cd "$dir" || BAIL_OUT "cd $dir"

    jid=$(lab_sbatch mwuser1 -N3 -n6 --mpiwatch=timeout=2 -o "$dir/job.out" --wrap "srun --mpi=$srun_mpi $prog")
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
    like "$(cat "$out/report.txt")" "ranks 0-5: B: deadlock" "report.txt collapses the ranks into one class"
    wait_for 30 "scontrol show job $jid | grep -q 'Comment=mpiwatch: software'"
    like "$(scontrol show job "$jid")" "Comment=mpiwatch: software failure: deadlock" "the verdict is the job's comment"
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

# lab_node_procs NODE PROGRAM: the pids of PROGRAM (the base name of its
# argv[0]) running in NODE's network namespace.
lab_node_procs() {
    local p c
    for p in $(ip netns pids "mwl${MW_LAB_ID:-0}-$1" 2>/dev/null); do
        c=$(tr '\0' '\n' <"/proc/$p/cmdline" 2>/dev/null | head -n1)
        [ "${c##*/}" = "$2" ] && echo "$p"
    done
}
