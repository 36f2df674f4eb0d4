#!/bin/bash
# bench/hpcc-floor.sh [ROUNDS]: where hpcc's added time comes from (issue
# 34), as bench/pingpong-shim.sh does for the ping-pong.  Each round runs
# hpcc (Open MPI, 2 ranks, the input of bench/hpcc-common.sh) four times,
# in an order that rotates from round to round, preloading in turn:
#   none     nothing (control)
#   shim     an empty PMPI shim (bench/hpcc-shim.c): the cost of
#            interposing at all, the floor no PMPI tool can beat
#   off      libmpiwatch with MPIWATCH_DISABLE=1: loaded, trampolines and
#            the "active" check, no monitoring
#   on       libmpiwatch, monitoring
#   old      another build of libmpiwatch, monitoring (MPIWATCH_BENCH_OLD_LIB:
#            a before/after comparison in the same rounds)
# Per run it records the wall time (bash's time) and each kernel's figure
# from hpccoutf.txt.  The summary gives, per variant and figure, the median
# over rounds with its range, and the median of the paired (same round)
# difference against `none`, in the figure's unit and in percent.  Run it
# under `flock /work/heavy.lock`.  OUT (default /tmp/mpiwatch-hpcc-floor)
# keeps the samples: a second call with the same OUT adds rounds.
# HPCC_VARIANTS (default "none shim off on") runs a subset, e.g. "none on"
# for more pairs in the same time; paired figures need none among them.
set -u
cd "$(dirname "$0")/.." || exit 1
ROUNDS=${1:-6}
LIB=${MPIWATCH_BENCH_LIB:-$PWD/build/lib/libmpiwatch.so}
OLD_LIB=${MPIWATCH_BENCH_OLD_LIB:-}
OUT=${OUT:-/tmp/mpiwatch-hpcc-floor}
. bench/hpcc-common.sh
mkdir -p "$OUT/work" || exit 1
work=$OUT/work
mpicc.openmpi -O2 -shared -fPIC -o "$work/hpcc-shim.so" bench/hpcc-shim.c || exit 1
hpcc_input "$work"
cd "$work" || exit 1
read -r -a VARIANTS <<<"${HPCC_VARIANTS:-none shim off on}"
nvar=${#VARIANTS[@]}
start=$(awk 'END {print $1 + 0}' "$OUT/samples" 2>/dev/null)
for ((r = start + 1; r <= start + ROUNDS; r++)); do
    for ((j = 0; j < nvar; j++)); do
        v=${VARIANTS[(j + r) % nvar]}
        case $v in
        none) x=() ;;
        shim) x=(-x "LD_PRELOAD=$work/hpcc-shim.so") ;;
        off) x=(-x "LD_PRELOAD=$LIB" -x MPIWATCH_DISABLE=1) ;;
        on) x=(-x "LD_PRELOAD=$LIB") ;;
        old) [ -n "$OLD_LIB" ] || { echo "variant old needs MPIWATCH_BENCH_OLD_LIB" >&2; exit 2; }
            x=(-x "LD_PRELOAD=$OLD_LIB") ;;
        *) echo "unknown variant $v" >&2; exit 2 ;;
        esac
        rm -f hpccoutf.txt
        TIMEFORMAT='%3R'
        { time mpirun.openmpi --allow-run-as-root -np 2 "${x[@]}" hpcc >/dev/null 2>run.err; } 2>time.txt ||
            { echo "run failed ($v): $(tail -3 run.err)" >&2; exit 1; }
        line="$r $v wall $(cat time.txt)"
        for k in $HPCC_KERNELS; do
            val=$(sed -n "s/^$k=//p" hpccoutf.txt)
            [ -n "$val" ] || { echo "run failed ($v): no $k in hpccoutf.txt" >&2; exit 1; }
            line="$line $k $val"
        done
        echo "round $line"
        echo "$line" >>"$OUT/samples"
    done
done
awk 'function med(a, n,   i, j, t) {
         for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) {t = a[i]; a[i] = a[j]; a[j] = t}
         return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
     {for (i = 3; i < NF; i += 2) {val[$1, $2, $i] = $(i + 1); keys[$i] = 1}; rounds[$1] = 1; has[$1, $2] = 1}
     END {
         nv = split("none shim off old on", V, " ")
         nk = split("wall HPL_time PTRANS_time MPIRandomAccess_time MPIRandomAccess_LCG_time MPIFFT_Gflops", K, " ")
         for (ki = 1; ki <= nk; ki++) {
             k = K[ki]
             for (vi = 1; vi <= nv; vi++) {
                 v = V[vi]; n = 0; m = 0; delete a; delete d; delete p
                 for (r in rounds) if (has[r, v]) {
                     a[++n] = val[r, v, k]
                     if (has[r, "none"]) {m++; d[m] = val[r, v, k] - val[r, "none", k]; p[m] = 100 * d[m] / val[r, "none", k]}
                 }
                 lo = hi = a[1]; for (i = 2; i <= n; i++) {if (a[i] < lo) lo = a[i]; if (a[i] > hi) hi = a[i]}
                 dlo = dhi = p[1]; for (i = 2; i <= m; i++) {if (p[i] < dlo) dlo = p[i]; if (p[i] > dhi) dhi = p[i]}
                 md = med(d, m); mp = med(p, m)
                 if (v == "none")
                     printf "SUMMARY %-24s %-4s %d runs, median %.4f [%.4f, %.4f]\n", k, v, n, med(a, n), lo, hi
                 else
                     printf "SUMMARY %-24s %-4s %d runs, median %.4f [%.4f, %.4f]; paired vs none: median %+.4f, %+.1f %% [%+.1f, %+.1f]\n", k, v, n, med(a, n), lo, hi, md, mp, dlo, dhi
             }
         }
     }' "$OUT/samples"
