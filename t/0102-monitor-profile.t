#!/bin/bash
# libmpiwatch's profile (profile = yes in the settings file, profile_dir
# the folder): one TAU-format file per rank,
# written at MPI_Finalize, with calls, time and bytes per MPI function and
# the time outside MPI; for both MPIs under mpirun.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/monitor.sh"

plan no_plan
work=$(mktemp -d /tmp/mpiwatch-t0102.XXXXXX)
tap_cleanup "rm -rf $work"
cd "$work" || BAIL_OUT "cd $work"
for mpi in openmpi mpich; do
    d=$work/$mpi
    mon_cmd $mpi 2 "MPIWATCH_SETTINGS=$(mon_settings "$work/$mpi.conf" "profile = yes" "profile_dir = $d")" -- \
        "$MON_TOP/build/progs/$mpi/mon_correct"
    out=$(timeout 300 "${MON_CMD[@]}" 2>&1)
    ok $? "$mpi: profiled run exits 0"
    for r in 0 1; do
        f=$d/profile.$r.0.0
        ok_cmd "$mpi: rank $r wrote $f" test -s "$f"
        like "$(head -n1 "$f")" '^[0-9]+ templated_functions_MULTI_TIME$' "$mpi rank $r: TAU header"
        like "$(grep '^"MPI_Send()"' "$f")" '^"MPI_Send\(\)" 200 0 [0-9.]+ [0-9.]+ 0 GROUP="MPI\|MPI_P2P_BLOCKING"$' \
            "$mpi rank $r: MPI_Send called 200 times"
        like "$(grep '^"MPI_Waitall()"' "$f")" '^"MPI_Waitall\(\)" 200 ' "$mpi rank $r: MPI_Waitall 200 times"
        like "$(grep '^".TAU application"' "$f")" '^".TAU application" 1 [0-9]+ [0-9.]+ [0-9.]+ 0 GROUP="TAU_DEFAULT"$' \
            "$mpi rank $r: the application entry (time outside MPI)"
        like "$(grep '^"Message size for MPI_Send()"' "$f")" '^"Message size for MPI_Send\(\)" 200 4 4 4.000 3200.0$' \
            "$mpi rank $r: 200 sends of 4 bytes"
        like "$(tail -n +3 "$f" | grep -c 'GROUP="MPI|')" '^[1-9][0-9]*$' "$mpi rank $r: MPI functions listed"
    done
done
# More pairs of call sites than the compute-phase table keeps (32): 40
# barriers, each from its own site, 50 rounds.  The first 32 pairs are kept
# whole, the intervals of the others are counted as dropped: at least 7 pairs
# of 50 and the round-to-round pair, 49.
for mpi in openmpi mpich; do
    d=$work/sites-$mpi
    mon_cmd $mpi 2 "MPIWATCH_SETTINGS=$(mon_settings "$work/sites-$mpi.conf" "profile = yes" "profile_dir = $d")" -- \
        "$MON_TOP/build/progs/$mpi/mon_sites" 50
    out=$(timeout 300 "${MON_CMD[@]}" 2>&1)
    ok $? "$mpi: mon_sites (40 call sites) exits 0"
    like "$out" "sites: done 50" "$mpi: mon_sites's output is intact"
    f=$d/phases.0
    is "$(grep -c '^phase ' "$f")" 32 "$mpi: the phase table keeps 32 pairs of sites"
    dropped=$(sed -n 's/^rank 0 node [^ ]* dropped \([0-9]*\)$/\1/p' "$f")
    cmp_ok "${dropped:-0}" -ge 399 "$mpi: the intervals of the pairs beyond them are counted as dropped (${dropped:-none})"
    cmp_ok "$(grep -c '^phase MPI_Barrier@[^ ]*>MPI_Barrier@[^ ]* 50 50$' "$f")" -ge 29 \
        "$mpi: each kept pair of consecutive barriers has its 50 intervals and 50 samples"
    is "$(awk '/^phase / && ($3 > 50 || $4 > $3)' "$f" | wc -l | tr -d ' ')" 0 \
        "$mpi: no pair has more intervals than rounds, nor more samples than intervals"
done
# without a settings file (profile's default: no) nothing is written, and a
# stray MPIWATCH_PROFILE changes nothing
mon_cmd openmpi 2 MPIWATCH_PROFILE=1 -- "$MON_TOP/build/progs/openmpi/mon_correct"
(cd "$work" && timeout 300 "${MON_CMD[@]}" >/dev/null 2>&1)
nok_cmd "no profile without profile = yes in the settings" test -e "$work/mpiwatch-nojob"
done_testing
