#!/bin/bash
# 0605: the answer first, under Slurm.  What t/0602 checks under mpiwatch run,
# on the lab with sbatch + srun and the plugin's default watch: the first line
# of report.txt for a wrong tag, a collective mismatch (MPICH), a missing
# send, abort() in one rank, a rank the MPI library ended (MPICH: its own
# error line read back from the job's output file) and a killed srun; the
# same sentence in the job's comment and in srun's own output (srun waits
# for the verdict when a watched task ended badly).
# (A receive cycle: t/0401, t/0720; SIGSEGV: t/0604; a node failure: t/0403.)
# The jobs run side by side, two ranks on two nodes each.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"

plan 18
lab_require 3
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"

declare -A jid
# submit NAME MPI SRUN_MPI PROGRAM [ARGS...]: a 2-rank job on 2 nodes.
submit() {
    local name=$1 mpi=$2 smpi=$3 prog
    prog=$(lab_prog "$mpi" "$4")
    shift 4
    jid[$name]=$(lab_sbatch mwuser1 -N2 -n2 --mpiwatch=timeout=2 --comment "case $name" -o "$dir/$name-%j.out" \
        --wrap "srun --mpi=$smpi $prog $*; echo srun-exit=\$?")
    tap_cleanup "scancel ${jid[$name]} 2>/dev/null"
}
# answer NAME: wait for the verdict of NAME's job; sets $out, $first.
answer() {
    out=$dir/mpiwatch-${jid[$1]}
    wait_for 180 "grep -q '\"verdict\": *\"\\(software\\|hardware\\)\"' '$out/report.json' 2>/dev/null"
    first=$(head -1 "$out/report.txt" 2>/dev/null)
}
# comment NAME: the job's comment holds the user's own, then the first line.
comment() {
    local c
    wait_for 30 "scontrol show job ${jid[$1]} | grep -q 'Comment=case $1 | mpiwatch: '"
    c=$(scontrol show job "${jid[$1]}" | sed -n 's/^ *Comment=//p' | sed 's/ *$//')
    is "$c" "case $1 | mpiwatch: $first; report $out/report.txt" "$1: the job's comment: the user's own, then the answer and report.txt"
}
# finish NAME: cancel a job left hanging (the default action only reports).
finish() { scancel "${jid[$1]}" 2>/dev/null; lab_job_wait "${jid[$1]}" 120 >/dev/null; }
# srun_said NAME: srun's output (the job's) has the first line, then the
# report's path.
srun_said() {
    local log=$dir/$1-${jid[$1]}.out
    like "$(cat "$log")" "mpiwatch: $(printf '%s' "$first" | sed 's/[][\\.*^$()+?{}|]/\\&/g')
mpiwatch: report $out/report.txt" "$1: srun's output has the answer, then report.txt's path"
}

submit wrongtag openmpi pmix dl_wrongtag
submit mismatch mpich pmi2 dl_barrier_bcast
submit missing openmpi pmix dl_missing
submit abort openmpi pmix run_crash abort
submit mpierror mpich pmi2 run_argerror

# --- a wrong tag
answer wrongtag
is "$first" "deadlock: ranks 0-1 wait for each other: rank 0 in MPI_Recv (dl_wrongtag.c:12), rank 1 in MPI_Barrier (dl_wrongtag.c:13): rank 1 sent tag 7, rank 0 receives tag 8 — wrong tag" \
   "wrong tag: the first line says who sent which tag, and where"
is "$(jv "$out/report.json" '[(c["cause"], c["ranks_text"]) for c in d["causes"]]')" "[('B', '0-1')]" \
   "wrong tag: one cause B for both ranks, as the analysis says"
comment wrongtag
finish wrongtag

# --- a collective mismatch, under MPICH
answer mismatch
like "$first" '^deadlock: ranks 0-1 are in different collectives on MPI_COMM_WORLD: rank 0 in MPI_Barrier \(dl_barrier_bcast.c:[0-9]+\), rank 1 in MPI_Bcast \(dl_barrier_bcast.c:[0-9]+\)$' \
   "collective mismatch (MPICH): the first line names both collectives and where"
comment mismatch
finish mismatch

# --- a missing send
answer missing
is "$first" "deadlock: ranks 0-1 wait for each other: rank 0 in MPI_Recv (dl_missing.c:11), rank 1 in MPI_Barrier (dl_missing.c:13): rank 1 never sends to rank 0 — missing send" \
   "missing send: the first line names the receive and the rank that never sends"
comment missing
finish missing

# --- abort() in rank 1 (Open MPI: rank 0 waits on, srun too, until scancel)
answer abort
like "$first" '^crash: rank 1 killed by signal 6 \(SIGABRT\) in check_input \(run_crash.c:23\), without MPI_Finalize' \
   "abort: the first line names the rank, SIGABRT and the program's function that called abort()"
comment abort
finish abort
like "$(cat "$dir/abort-${jid[abort]}.out")" "run_crash: bad input -1" "abort: the program's own message is in the job's output"
srun_said abort

# --- a rank the MPI library ended (MPICH: the library ends the whole step,
# srun kills every task, srun ends by itself): its own line, read back from
# the job's output, and not "the launcher was killed"
answer mpierror
is "$first" "crash: rank 1 ended by the MPI library in MPI_Bcast (run_argerror.c:16), then killed by signal 9 (SIGKILL) as its step was ended: Fatal error in internal_Bcast: Invalid count; rank 0 was blocked on it (cause C: blocked by a failed or stuck peer)" \
   "MPI error: the first line names the rank, the call, its source line and the MPI library's own error line"
like "$(cat "$out/report.txt")" "rank 0: C \\(blocked by a failed or stuck peer\\): killed by signal 9 \\(SIGKILL\\) inside MPI_Finalize, with the step the MPI library ended for rank\\(s\\) 1" \
   "MPI error: rank 0, killed in MPI_Finalize with the step, is the cascade"
# (no job comment: the step ended at once, the job with it, and Slurm
# takes no comment for a finished job)
lab_job_wait "${jid[mpierror]}" 120 >/dev/null
srun_said mpierror

# --- a killed srun: the launcher, not the program nor a node
prog=$(lab_prog openmpi col_steady)
jid[killed]=$(lab_sbatch mwuser1 -N2 -n2 --mpiwatch=timeout=2 --comment "case killed" -o "$dir/killed.out" \
    --wrap "srun --mpi=pmix $prog 60 & echo \$! >$dir/srun.pid; wait; echo srun-exit=\$?; sleep 20")
tap_cleanup "scancel ${jid[killed]} 2>/dev/null"
wait_for 120 "grep -q 'steady: running' '$dir/killed.out'"
sleep 2 # the ranks run and heartbeat
kill -KILL "$(cat "$dir/srun.pid")"
out=$dir/mpiwatch-${jid[killed]}
wait_for 120 "grep -q 'launcher was killed' '$out/report.txt' 2>/dev/null"
first=$(head -1 "$out/report.txt")
is "$first" "the launcher was killed: ranks 0-1 ended all at once with no exit status of their own (mpirun or srun was killed, or the job was ended from outside); not a failure of the program or of a node" \
   "killed srun: the first line says the launcher was killed"
is "$(jv "$out/report.json" 'd["verdict"], d["causes"]')" "('none', [])" "killed srun: no software verdict, no cause"
unlike "$(scontrol show job "${jid[killed]}" | grep Comment=)" "mpiwatch: crash|mpiwatch: deadlock" \
   "killed srun: no failure posted as the job's comment"
finish killed
is "$(lab_reasoned_nodes)" "" "no node was drained by any of these jobs"
done_testing
