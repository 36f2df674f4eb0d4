#!/bin/bash
# 0617: issue 35's acceptance: on every hang of t/progs and the demo
# programs, the answer's first line names the line of the call a user must
# change: the posting call for a wait (not the wait's own line).  Each hang
# program of t/progs under mpiwatch run (Open MPI, 4 ranks, 2 s timeout),
# with the line its author blames; the ones other tests already answer are
# left to them (examples/deadlock: t/0600, t/0602; run_posted: t/0609;
# run_icoll_order: t/0613; run_fin_bsend: t/0615; run_spin: t/0616; the MPI
# errors run_truncate*: t/0614).  t/0699 checks for strays after them.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/run.sh"

# PROGRAM LINE [posted]: "posted" if the line is a request's posting call.
cases="col_deadlock 13
dl_barrier_bcast 15
dl_grid 23
dl_iroot 22 posted
dl_missing 11
dl_recvrecv 11
dl_ring 11
dl_root 15
dl_ssend 11
dl_waitall 14 posted
dl_wrongtag 12
mon_deadlock 22
mon_wrongtag 12"

plan $(( $(echo "$cases" | wc -l) * 2 + 3 ))
run_setup mw-hanglines

while read -r prog line posted; do
    timeout 60 "$mw" run -n 4 --timeout 2 --mpi openmpi --dir "$work/$prog" \
        -- "$top/build/progs/openmpi/$prog" </dev/null >"$work/$prog.out" 2>"$work/$prog.err"
    first=$(head -1 "$work/$prog/report.txt" 2>/dev/null)
    like "$first" "^deadlock: .*\\($prog\\.c:[0-9]+\\)" "$prog: the first line is a deadlock at a source line"
    if [ "$posted" = posted ]; then
        like "$first" "posted at $prog\\.c:$line\\b" "$prog: it names the posting call, $prog.c:$line"
    else
        like "$first" "\\($prog\\.c:$line\\)" "$prog: it names $prog.c:$line"
    fi
done <<<"$cases"

# The MPICH side, where it differs most (a wait on a nonblocking collective).
timeout 60 "$mw" run -n 4 --timeout 2 --mpi mpich --dir "$work/iroot-mpich" \
    -- "$top/build/progs/mpich/dl_iroot" >"$work/iroot-mpich.out" 2>"$work/iroot-mpich.err"
first=$(head -1 "$work/iroot-mpich/report.txt" 2>/dev/null)
like "$first" '^deadlock: ' "mpich dl_iroot: the first line is a deadlock"
like "$first" 'posted at dl_iroot\.c:22\b' "mpich dl_iroot: it names the posting call, dl_iroot.c:22"
run_no_strays
done_testing
