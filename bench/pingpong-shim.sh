#!/bin/bash
# bench/pingpong-shim.sh [ROUNDS]: where the Open MPI ping-pong's added
# latency comes from.  Each round runs t/progs/mon_pingpong 1000 41 (two
# ranks, Open MPI) four times, preloading in turn:
#   shim     an empty PMPI shim (bench/pingpong-shim.c): the cost of being
#            a preloaded library at all
#   off      libmpiwatch with MPIWATCH_DISABLE=1: loaded, trampolines and
#            the "active" check, no monitoring
#   on       libmpiwatch, monitoring
#   none     no preload (control)
# and prints, per run, the one-way latency through MPI_* and PMPI_* and
# their paired difference (ns).  The machine's latency has two regimes
# (about 100-130 ns and about 350-450 ns one way; the control run of the
# round tells which), so the summary is given per regime.
set -u
cd "$(dirname "$0")/.." || exit 1
ROUNDS=${1:-8}
LIB=${MPIWATCH_BENCH_LIB:-$PWD/build/lib/libmpiwatch.so}
prog=$PWD/build/progs/openmpi/mon_pingpong
[ -x "$prog" ] || { echo "build $prog first (make progs)" >&2; exit 1; }
shim=$(mktemp -d)/pingpong-shim.so
trap 'rm -rf "$(dirname "$shim")"' EXIT
mpicc.openmpi -O2 -shared -fPIC -o "$shim" bench/pingpong-shim.c || exit 1
out=$(mktemp)
for ((r = 1; r <= ROUNDS; r++)); do
    for v in none shim off on; do
        case $v in
        none) x=() ;;
        shim) x=(-x "LD_PRELOAD=$shim") ;;
        off) x=(-x "LD_PRELOAD=$LIB" -x MPIWATCH_DISABLE=1) ;;
        on) x=(-x "LD_PRELOAD=$LIB") ;;
        esac
        l=$(mpirun.openmpi --allow-run-as-root -np 2 "${x[@]}" "$prog" 1000 41 | tail -n1)
        echo "round $r $v: $l"
        echo "$r $v $l" >>"$out"
    done
done
awk '{for (i = 3; i < NF; i++) v[$i] = $(i+1); if ($2 == "none") slow[$1] = v["pmpi"] > 250;
      d[$1 " " $2] = v["diff"]}
     END {for (k in d) {split(k, a, " "); s = slow[a[1]] ? "slow" : "fast"; n[s " " a[2]]++; x[s " " a[2] " " n[s " " a[2]]] = d[k]}
          for (s in n) {m = n[s]; for (i = 1; i <= m; i++) y[i] = x[s " " i];
              for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (y[j] < y[i]) {t = y[i]; y[i] = y[j]; y[j] = t}
              med = m % 2 ? y[(m + 1) / 2] : (y[m / 2] + y[m / 2 + 1]) / 2
              split(s, w, " ")
              printf "SUMMARY %s regime, %s: %d runs, median paired one-way difference %.1f ns (%.1f ns per call)\n", w[1], w[2], m, med, med / 2}}' "$out" | sort
rm -f "$out"
