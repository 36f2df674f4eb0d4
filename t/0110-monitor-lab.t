#!/bin/bash
# libmpiwatch on the Slurm lab with srun (two nodes): a deadlock of two ranks
# on different nodes is dumped into ./mpiwatch-<jobid>/dumps (Open MPI with
# --mpi=pmix, MPICH with --mpi=pmi2, C and Fortran); the per-rank slots are
# in the node's /dev/shm under the job id and host name; computing writes no dump; a
# correct program's output and exit code are unchanged.  The library is
# injected with LD_PRELOAD by srun --export (not by the SPANK plugin).
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/monitor.sh"

plan no_plan
lab_require 2
[ -e "$MON_LIB" ] || BAIL_OUT "$MON_LIB not built (make)"
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"
uid=$(id -u mwuser1)
# the ranks' settings (the monitor reads no other source): a 1 s timeout
conf=$(mon_settings "$dir/mon.conf" "timeout = 1")
chmod 644 "$conf"

# srun_bg MPI OUTFILE PROG...: start a 2-node step in the background
srun_bg() {
    local mpi=$1 out=$2 plugin=pmix
    shift 2
    [ "$mpi" = mpich ] && plugin=pmi2
    timeout -k 10 300 runuser -u mwuser1 -- env SLURM_CONF="$SLURM_CONF" \
        srun --mpi=$plugin -N2 -n2 --export="ALL,LD_PRELOAD=$MON_LIB,MPIWATCH_SETTINGS=$conf" "$@" \
        >"$out" 2>&1 &
    BG=$!
}

stop_bg() {
    local jid=$1 i
    [ -n "$jid" ] && scancel "$jid" 2>/dev/null
    for ((i = 0; i < 150; i++)); do
        kill -0 "$BG" 2>/dev/null || break
        sleep 0.2
    done
    kill -KILL "$BG" 2>/dev/null
    wait "$BG" 2>/dev/null
}

# the job id of mwuser1's running step whose name is $1
job_of() {
    local i id
    for ((i = 0; i < 150; i++)); do
        id=$(squeue -h -u mwuser1 -n "$1" -o %i | head -n1)
        [ -n "$id" ] && { echo "$id"; return 0; }
        sleep 0.2
    done
    return 1
}

for mpi in openmpi mpich; do
    for prog in mon_deadlock mon_deadlock_f; do
        p=$(lab_prog $mpi $prog)
        srun_bg $mpi "$dir/$mpi-$prog.out" "$p"
        jid=$(job_of "$prog")
        like "$jid" '^[0-9]+$' "$mpi $prog: the step runs"
        tap_cleanup "scancel $jid 2>/dev/null"
        d=$dir/mpiwatch-$jid/dumps
        mon_wait_files "$d" 2 120
        ok $? "$mpi $prog: both ranks wrote a dump into ./mpiwatch-$jid/dumps"
        for r in 0 1; do
            f=$d/rank-$r.json
            is "$(jget "$f" call.name)/$(jget "$f" call.peer_world)/$(jget "$f" call.comm)" \
                "MPI_Recv/$((1 - r))/0" "$mpi $prog rank $r: MPI_Recv from rank $((1 - r)) on MPI_COMM_WORLD"
            is "$(jget "$f" job.id)" "$jid" "$mpi $prog rank $r: the dump names the job"
            like "$(jget "$f" call.tag)" '^[78]$' "$mpi $prog rank $r: the tag"
        done
        h0=$(jget "$d/rank-0.json" host)
        h1=$(jget "$d/rank-1.json" host)
        ok_cmd "$mpi $prog: the two ranks ran on two lab nodes ($h0, $h1)" test "$h0" != "$h1"
        if [ $prog = mon_deadlock_f ]; then
            is "$(jget "$d/rank-0.json" call.lang)" fortran "$mpi $prog: called from Fortran"
        fi
        ok_cmd "$mpi $prog: rank 1's slot is in /dev/shm/mpiwatch.$uid.$jid.$h1 on $h1" \
            lab_exec "$h1" test -s "/dev/shm/mpiwatch.$uid.$jid.$h1/rank-1"
        stop_bg "$jid"
    done
done

# computing for 3x the timeout: no dump
out=$(cd "$dir" && timeout 300 runuser -u mwuser1 -- env SLURM_CONF="$SLURM_CONF" \
    srun --mpi=pmix -N2 -n2 --export="ALL,LD_PRELOAD=$MON_LIB,MPIWATCH_SETTINGS=$conf" \
    "$(lab_prog openmpi mon_compute)" 3 2>&1)
ok $? "computing step exits 0"
is "$(find "$dir" -path '*mpiwatch-*/dumps/*' -newer "$dir/openmpi-mon_deadlock.out" 2>/dev/null | grep -c compute)" 0 \
    "no dump for a computing job"
nd=$(find "$dir" -name 'rank-*.json' | wc -l)
is "$nd" 8 "only the four deadlocked steps wrote dumps (8 files)"

# a correct program: same stdout and exit code with and without the monitor
for mpi in openmpi mpich; do
    plugin=pmix
    [ $mpi = mpich ] && plugin=pmi2
    p=$(lab_prog $mpi mon_correct)
    out1=$(timeout 300 runuser -u mwuser1 -- env SLURM_CONF="$SLURM_CONF" srun --mpi=$plugin -N2 -n4 "$p" 3 2>/dev/null)
    rc1=$?
    out2=$(timeout 300 runuser -u mwuser1 -- env SLURM_CONF="$SLURM_CONF" \
        srun --mpi=$plugin -N2 -n4 --export="ALL,LD_PRELOAD=$MON_LIB,MPIWATCH_SETTINGS=$conf" "$p" 3 2>/dev/null)
    rc2=$?
    is "$rc2" "$rc1" "$mpi: srun exit code unchanged by the monitor ($rc1)"
    ok_cmd "$mpi: byte-identical stdout with and without the monitor" test "$out1" = "$out2"
    like "$out2" 'done' "$mpi: the correct program ran to the end"
done
is "$(find "$dir" -name 'rank-*.json' | wc -l)" 8 "the correct programs wrote no dump"
done_testing
