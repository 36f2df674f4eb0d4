#!/bin/bash
# mpiwatch analyze imbalance on the profiles the monitor writes for a real,
# badly balanced MPI program (examples/imbalance.c: rank r does r+1 units of
# work before each barrier) under mpiwatch run, with both MPIs.  What a user
# checks: computation is named the imbalanced group, the highest rank is the
# slow one, the low ranks wait in MPI_Barrier as the consequence.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/run.sh"

plan no_plan
run_setup mw-imb

for mpi in openmpi mpich; do
    prof=$work/$mpi/profile # mpiwatch run --profile: DIR/profile
    timeout 120 "$mw" run -n 4 --mpi $mpi --profile --dir "$work/$mpi" -- \
        "$top/build/progs/$mpi/imbalance" 6 >"$work/$mpi.out" 2>&1
    ok $? "$mpi: the imbalanced program runs to the end under mpiwatch run"
    "$mw" analyze imbalance "$prof" --json "$work/$mpi.json" --svg "$work/$mpi.svg" >"$work/$mpi.txt" 2>&1
    ok $? "$mpi: analyze imbalance reads the monitor's 4 profiles" || cat "$work/$mpi.txt" >&2
    txt=$(cat "$work/$mpi.txt")
    like "$txt" "computation is the most imbalanced group" "$mpi: computation named the imbalanced group"
    # 4 ranks share 2 cores here, so the exact order of neighbours is noise;
    # the high half is the slow one, the low half waits.
    is "$(imb "$work/$mpi.json" 'g["computation"]["max_process"] in ("2", "3")')" True \
        "$mpi: a high rank (most work) is the slowest"
    is "$(imb "$work/$mpi.json" 'bool({"2", "3"} & set(g["computation"]["top_processes"])) and "0" not in g["computation"]["top_processes"]')" \
        True "$mpi: the high ranks are the ones above the mean in computation"
    is "$(imb "$work/$mpi.json" 'g["communication.collective"]["max_process"] in ("0", "1")')" True \
        "$mpi: a low rank (least work) waits longest in collectives"
    like "$txt" "waits? up to [0-9.]+x the mean" "$mpi: the waiting is reported"
    like "$txt" "in MPI_Barrier\(\)" "$mpi: the waiting is in MPI_Barrier"
    like "$txt" "a consequence: they wait for the slow rank" "$mpi: the waiting is a consequence"
    is "$(imb "$work/$mpi.json" 'r["pop"]["load_balance"] < 0.9 and abs(r["pop"]["parallel_efficiency"] - r["pop"]["load_balance"] * r["pop"]["communication_efficiency"]) < 1e-9')" \
        True "$mpi: POP load balance shows the imbalance, PE = LB x CE"
    like "$(head -c 200 "$work/$mpi.svg")" "<svg" "$mpi: the SVG chart is written"
done
# mpiwatch run --profile: the analysis lands in the run's directory at the end
timeout 120 "$mw" run -n 4 --profile --dir "$work/prof-run" -- "$top/build/progs/openmpi/imbalance" 4 \
    >"$work/prof-run.out" 2>"$work/prof-run.err"
ok $? "mpiwatch run --profile: exit 0"
like "$(cat "$work/prof-run.err")" "load imbalance in $work/prof-run/imbalance.txt" "run --profile says where the analysis is"
like "$(cat "$work/prof-run/imbalance.txt" 2>&1)" "computation is the most imbalanced group" \
    "run --profile: imbalance.txt names computation"
is "$(imb "$work/prof-run/imbalance.json" 'g["computation"]["max_process"] in ("2", "3")')" True \
    "run --profile: imbalance.json, a high rank slowest"
like "$(head -c 300 "$work/prof-run/imbalance.html" 2>&1)" "<!DOCTYPE html>" "run --profile: the page is beside it"
is "$(cat "$work/prof-run.out")" "imbalance: 4 ranks, 4 steps done" "run --profile: the program's output is unchanged"

# bad input: a truncated profile is named with its file and line
cp -r "$work/openmpi/profile" "$work/bad"
head -n 3 "$work/openmpi/profile/profile.1.0.0" >"$work/bad/profile.1.0.0"
err=$("$mw" analyze imbalance "$work/bad" 2>&1)
is "$?" 2 "a truncated profile: exit status 2"
like "$err" "bad/profile.1.0.0:3: " "the error names the file and line"
rm "$work/bad/profile.1.0.0"
like "$("$mw" analyze imbalance "$work/bad" 2>&1)" "WARNING: no profile for rank 1" "a missing rank is reported"
run_no_strays
done_testing
