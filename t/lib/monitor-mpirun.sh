# The libmpiwatch tests under plain mpirun/mpiexec (no Slurm), for one MPI.
# Sourced by t/0100-monitor-openmpi.t and t/0101-monitor-mpich.t:
#   mon_mpirun_tests openmpi|mpich
# Deadlocked programs are ended by the test (bounded); no timing assertions.

mon_mpirun_tests() {
    local mpi=$1 p work d r out1 out2 rc1 rc2 peer gid0 gid1
    p=$MON_TOP/build/progs/$mpi
    [ -e "$MON_LIB" ] || BAIL_OUT "$MON_LIB not built (make)"
    [ -x "$p/mon_deadlock" ] || BAIL_OUT "$p/mon_deadlock not built (make progs)"
    work=$(mktemp -d /tmp/mpiwatch-t01.XXXXXX)
    tap_cleanup "rm -rf $work"
    cd "$work" || BAIL_OUT "cd $work"

    # 1. two ranks that each MPI_Recv from the other both write a dump
    d=$work/dl
    mon_cmd "$mpi" 2 "MPIWATCH_SETTINGS=$(mon_settings "$d.conf" "timeout = 1" "dump_dir = $d")" -- "$p/mon_deadlock"
    mon_bg_start "$work/dl.out"
    mon_wait_files "$d" 2 120
    ok $? "$mpi: both deadlocked ranks wrote a dump"
    mon_bg_stop
    for r in 0 1; do
        peer=$((1 - r))
        is "$(jget "$d/rank-$r.json" call.name)" MPI_Recv "$mpi rank $r: stuck in MPI_Recv"
        is "$(jget "$d/rank-$r.json" call.peer)/$(jget "$d/rank-$r.json" call.peer_world)" "$peer/$peer" \
            "$mpi rank $r: the peer is rank $peer"
        is "$(jget "$d/rank-$r.json" call.tag)" 7 "$mpi rank $r: tag 7"
        is "$(jget "$d/rank-$r.json" call.comm)" 0 "$mpi rank $r: communicator id 0"
        is "$(jget "$d/rank-$r.json" comms.0.gid)" world "$mpi rank $r: communicator 0 is MPI_COMM_WORLD"
        is "$(jget "$d/rank-$r.json" reason)/$(jget "$d/rank-$r.json" state)" stuck/in_mpi \
            "$mpi rank $r: reason stuck, state in_mpi"
        is "$(jget "$d/rank-$r.json" counters.a)/$(jget "$d/rank-$r.json" counters.b)" 1/0 \
            "$mpi rank $r: counters A=1, B=0"
        ok_cmd "$mpi rank $r: dump valid against the schema" mon_schema_check "$d/rank-$r.json"
    done
    like "$(jget "$d/rank-0.json" call.site.object)" 'mon_deadlock$' "$mpi: call site is in the program"
    like "$(jget "$d/rank-0.json" mpi)" "^$mpi [0-9]" "$mpi: the dump names its MPI library and version"

    # 2. a split communicator: ranks are translated to world ranks, gids agree
    d=$work/split
    mon_cmd "$mpi" 3 "MPIWATCH_SETTINGS=$(mon_settings "$d.conf" "timeout = 1" "dump_dir = $d")" -- "$p/mon_deadlock" split
    mon_bg_start "$work/split.out"
    mon_wait_files "$d" 3 120
    ok $? "$mpi: three deadlocked ranks on a split communicator wrote dumps"
    mon_bg_stop
    # world 0 = comm rank 2 waits for comm rank 1 = world 1; world 1 for world 2
    is "$(jget "$d/rank-0.json" call.peer)/$(jget "$d/rank-0.json" call.peer_world)" 1/1 \
        "$mpi split: rank 0 waits for comm rank 1 = world rank 1"
    is "$(jget "$d/rank-1.json" call.peer)/$(jget "$d/rank-1.json" call.peer_world)" 0/2 \
        "$mpi split: rank 1 waits for comm rank 0 = world rank 2"
    gid0=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); c=d["call"]["comm"]; print([x["gid"] for x in d["comms"] if x["id"]==c][0])' "$d/rank-0.json" 2>&1)
    gid1=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); c=d["call"]["comm"]; print([x["gid"] for x in d["comms"] if x["id"]==c][0])' "$d/rank-1.json" 2>&1)
    like "$gid0" '^world/0:[0-9a-f]{8}$' "$mpi split: the communicator's gid follows the rule"
    is "$gid1" "$gid0" "$mpi split: both ranks name the same communicator"

    # 3. computing for 3x the timeout without MPI: no dump
    d=$work/compute
    mon_cmd "$mpi" 2 "MPIWATCH_SETTINGS=$(mon_settings "$d.conf" "timeout = 1" "dump_dir = $d")" -- "$p/mon_compute" 3
    out1=$(timeout 300 "${MON_CMD[@]}" 2>&1)
    ok $? "$mpi: computing program exits 0"
    is "$(ls "$d" 2>/dev/null | wc -l)" 0 "$mpi: computing for 3x the timeout wrote no dump"

    # 4. a Fortran program that deadlocks is caught too
    d=$work/fortran
    mon_cmd "$mpi" 2 "MPIWATCH_SETTINGS=$(mon_settings "$d.conf" "timeout = 1" "dump_dir = $d")" -- "$p/mon_deadlock_f"
    mon_bg_start "$work/f.out"
    mon_wait_files "$d" 2 120
    ok $? "$mpi: both deadlocked Fortran ranks wrote a dump"
    mon_bg_stop
    for r in 0 1; do
        is "$(jget "$d/rank-$r.json" call.name)/$(jget "$d/rank-$r.json" call.lang)" MPI_Recv/fortran \
            "$mpi Fortran rank $r: MPI_Recv called from Fortran"
        is "$(jget "$d/rank-$r.json" call.peer_world)/$(jget "$d/rank-$r.json" call.tag)/$(jget "$d/rank-$r.json" call.datatype)" \
            "$((1 - r))/8/MPI_INTEGER" "$mpi Fortran rank $r: peer, tag and datatype"
    done

    # 5. a correct program: byte-identical stdout and the same exit code
    mon_plain_cmd "$mpi" 4 -- "$p/mon_correct" 3
    out1=$(timeout 300 "${MON_CMD[@]}" 2>/dev/null)
    rc1=$?
    d=$work/correct
    mon_cmd "$mpi" 4 "MPIWATCH_SETTINGS=$(mon_settings "$d.conf" "timeout = 1" "dump_dir = $d")" -- "$p/mon_correct" 3
    out2=$(timeout 300 "${MON_CMD[@]}" 2>/dev/null)
    rc2=$?
    is "$rc2" "$rc1" "$mpi: same exit code with and without the monitor ($rc1)"
    is "$rc1" 3 "$mpi: the exit code is the program's"
    ok_cmd "$mpi: byte-identical stdout with and without the monitor" test "$out1" = "$out2"
    like "$out2" 'done' "$mpi: the correct program ran to the end"
    is "$(ls "$d" 2>/dev/null | wc -l)" 0 "$mpi: a correct program writes no dump"

    # 6. polling with MPI_Test and no completion is seen
    d=$work/poll
    mon_cmd "$mpi" 2 "MPIWATCH_SETTINGS=$(mon_settings "$d.conf" "timeout = 1" "dump_dir = $d")" -- "$p/mon_poll"
    mon_bg_start "$work/poll.out"
    mon_wait_files "$d" 2 120
    ok $? "$mpi: polling rank and waiting rank wrote dumps"
    mon_bg_stop
    is "$(jget "$d/rank-0.json" reason)/$(jget "$d/rank-0.json" call.name)" polling/MPI_Test \
        "$mpi poll: rank 0 polls MPI_Test without completion"
    is "$(jget "$d/rank-0.json" pending_recvs.0.op)/$(jget "$d/rank-0.json" pending_recvs.0.peer)/$(jget "$d/rank-0.json" pending_recvs.0.tag)" \
        MPI_Irecv/1/99 "$mpi poll: the pending MPI_Irecv (peer 1, tag 99) is listed"
    is "$(jget "$d/rank-0.json" call.requests)" "[$(jget "$d/rank-0.json" pending_recvs.0.req)]" \
        "$mpi poll: MPI_Test waits on that request"
    is "$(jget "$d/rank-1.json" call.name)" MPI_Barrier "$mpi poll: rank 1 waits in MPI_Barrier"

    # 7. a message sent with the wrong tag: the recent send and the unexpected queue
    d=$work/wrongtag
    mon_cmd "$mpi" 2 "MPIWATCH_SETTINGS=$(mon_settings "$d.conf" "timeout = 1" "dump_dir = $d" "mpit = yes")" -- "$p/mon_wrongtag"
    mon_bg_start "$work/wt.out"
    mon_wait_files "$d" 2 120
    ok $? "$mpi wrongtag: both ranks wrote dumps"
    mon_bg_stop
    is "$(jget "$d/rank-0.json" recent_sends.0.op)/$(jget "$d/rank-0.json" recent_sends.0.tag)/$(jget "$d/rank-0.json" recent_sends.0.peer_world)" \
        MPI_Send/7/1 "$mpi wrongtag: rank 0's completed send (tag 7 to 1) is in recent_sends"
    if [ "$(jget "$d/rank-1.json" unexpected.source)" = mpi_t ]; then
        is "$(jget "$d/rank-1.json" unexpected.count)" 1 "$mpi wrongtag: rank 1 has one unexpected message (MPI_T)"
    else
        skip "$mpi has no MPI_T unexpected-queue variable" 1
    fi

    # 8. MPIWATCH_DISABLE=1: nothing is written (bounded wait of 5x the timeout)
    d=$work/disabled
    mon_cmd "$mpi" 2 MPIWATCH_DISABLE=1 "MPIWATCH_SETTINGS=$(mon_settings "$d.conf" "timeout = 1" "dump_dir = $d")" -- "$p/mon_deadlock"
    mon_bg_start "$work/dis.out"
    mon_wait_files "$d" 1 5
    nok_cmd "$mpi: MPIWATCH_DISABLE=1 writes no dump" test -d "$d"
    mon_bg_stop

    # 9. a bad timeout in the settings file: one warning per rank, default used, job fine
    mon_cmd "$mpi" 2 "MPIWATCH_SETTINGS=$(mon_settings "$work/soon.conf" "timeout = soon")" -- "$p/mon_correct"
    out1=$(timeout 300 "${MON_CMD[@]}" 2>&1 >/dev/null)
    ok $? "$mpi: a bad timeout in the settings file does not harm the job"
    is "$(printf '%s\n' "$out1" | grep -c '^mpiwatch: .*timeout.*soon.*using a timeout of 60 s')" 2 "$mpi: one warning per rank for timeout = soon"

    # 10. a rank that forks a child and has its own SIGCHLD handler
    mon_plain_cmd "$mpi" 2 -- "$p/mon_fork"
    out1=$(timeout 300 "${MON_CMD[@]}" 2>/dev/null | sort)
    mon_cmd "$mpi" 2 "MPIWATCH_SETTINGS=$(mon_settings "$work/fork.conf" "timeout = 1")" -- "$p/mon_fork"
    out2=$(timeout 300 "${MON_CMD[@]}" 2>/dev/null | sort)
    is "$out2" "$out1" "$mpi: fork and the application's SIGCHLD handler behave as without the monitor"
    like "$out2" 'rank 1 child status 7 sigchld 1 sum 1' "$mpi: the child's status and the handler's signal arrive"

    # 11. MPI_THREAD_MULTIPLE: only the thread that called MPI_Init is recorded
    d=$work/threads
    mon_cmd "$mpi" 2 "MPIWATCH_SETTINGS=$(mon_settings "$d.conf" "timeout = 1" "dump_dir = $d")" -- "$p/mon_threads"
    mon_bg_start "$work/th.out"
    mon_wait_files "$d" 2 120
    ok $? "$mpi threads: both ranks wrote dumps"
    mon_bg_stop
    is "$(jget "$d/rank-0.json" call.name)/$(jget "$d/rank-0.json" call.peer_world)/$(jget "$d/rank-0.json" counters.calls)" \
        MPI_Recv/1/2 "$mpi threads: the main thread's MPI_Recv, the helper thread's calls not mixed in"

    # 12. a process without MPI: the library does nothing
    out1=$(LD_PRELOAD=$MON_LIB sh -c 'echo hello; exit 5' 2>&1)
    rc1=$?
    is "$out1/$rc1" "hello/5" "$mpi: a process without MPI is untouched (output, exit code)"
}
