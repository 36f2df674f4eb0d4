# Helpers for the link liveness tests (t/0710-0719, issue 13).  Source after
# tap.sh, lab.sh and collector.sh.

# live_kill_scenario NODE MPIWATCH_ARG: a 3-node, 6-rank col_steady job of
# mwuser1 (--mpiwatch=MPIWATCH_ARG, --no-requeue) on n[1-3]; once its 3
# agents are connected and the ranks run, t/lab/kill-node NODE; wait for the
# hardware verdict and NODE's drain.  Leaves live_jid, live_rep (report.json)
# and live_out (report folder).  Seven tests.
live_kill_scenario() {
    local node=$1 arg=$2 prog dir jid
    prog=$(lab_prog openmpi col_steady)
    dir=$(lab_tmpdir mwuser1)
    cd "$dir" || BAIL_OUT "cd $dir"
    jid=$(lab_sbatch mwuser1 --no-requeue -N3 -n6 -w "n[1-3]" "--mpiwatch=$arg" -o "$dir/job.out" \
        --wrap "srun --mpi=pmix $prog 600")
    live_jid=$jid live_out=$dir/mpiwatch-$jid live_rep=$dir/mpiwatch-$jid/report.json
    like "$jid" '^[0-9]+$' "a long 3-node job submitted (--mpiwatch=$arg)"
    tap_cleanup "scancel $jid 2>/dev/null; '$MW_LAB_T/lab/revive-node' $node >/dev/null 2>&1; '$MW_LAB_REPO/build/bin/mpiwatch' resume $node >/dev/null 2>&1"
    wait_for 120 "test \$(col_connected '$dir' $jid n1) -ge 3"
    cmp_ok "$(col_connected "$dir" "$jid" n1)" -ge 3 "the agents of the 3 nodes are connected"
    wait_for 120 "grep -q 'steady: running' '$dir/job.out'"
    like "$(cat "$dir/job.out")" "steady: running on 6 ranks" "the 6 ranks are running"
    sleep 1
    ok_cmd "t/lab/kill-node $node" lab_kill_node "$node"
    wait_for 180 "grep -q '\"verdict\": *\"hardware\"' '$live_rep'"
    is "$(jv "$live_rep" 'd["verdict"]')" hardware "verdict hardware"
    is "$(jv "$live_rep" '",".join(n["name"] for n in d["nodes"] if n["state"] == "dead")')" "$node" \
        "the report names $node, and only $node, dead"
    wait_for 90 "lab_node_is $node 'drain.*|drng.*'"
    like "$(scontrol -o show node "$node")" "Reason=mpiwatch: job $jid" "$node is drained with an mpiwatch reason naming the job"
}

# live_events REPORT: the timeline's events up to and including the verdict,
# one "EVENT|DETAIL" per line.
live_events() {
    jv "$1" '"\n".join(e["event"] + "|" + e["detail"] for e in d["timeline"][:[e["event"] for e in d["timeline"]].index("verdict") + 1])'
}

# live_steady_unharmed SECONDS [MPIWATCH [WAIT]]: a SECONDS-long 3-node,
# 6-rank col_steady job of mwuser1 on n[1-3] (--mpiwatch=MPIWATCH, default
# timeout=2; "" for the default settings: --mpiwatch), run to its end (WAIT
# s at most, default 180); its own output must be complete and srun must exit
# 0 (the watch, whatever happened to its links or its node, did not harm it).
# Leaves live_dir (the job's folder), live_jid and live_out (the report
# folder).  Four tests.
live_steady_unharmed() {
    local secs=$1 opt=${2-timeout=2} wait=${3:-180} prog st
    prog=$(lab_prog openmpi col_steady)
    live_dir=$(lab_tmpdir mwuser1)
    cd "$live_dir" || BAIL_OUT "cd $live_dir"
    live_jid=$(lab_sbatch mwuser1 -N3 -n6 -w "n[1-3]" "--mpiwatch${opt:+=$opt}" -o "$live_dir/job.out" \
        --wrap "srun --mpi=pmix $prog $secs; echo srun-exit=\$?")
    live_out=$live_dir/mpiwatch-$live_jid
    like "$live_jid" '^[0-9]+$' "a $secs s job on n[1-3] submitted (--mpiwatch${opt:+=$opt})"
    tap_cleanup "scancel $live_jid 2>/dev/null"
    st=$(lab_job_wait "$live_jid" "$wait")
    is "$st" COMPLETED "the job completes"
    like "$(cat "$live_dir/job.out")" "steady done" "the program's own output is complete"
    like "$(cat "$live_dir/job.out")" "srun-exit=0" "srun exits 0"
}
