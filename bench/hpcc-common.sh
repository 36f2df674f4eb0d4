# bench/hpcc-common.sh: sourced by bench/overhead.sh, bench/hpcc-floor.sh and
# bench/hpcc-poll-instructions.sh,
# the one description of the hpcc run they time.
# hpcc_input DIR: write DIR/hpccinf.txt, Debian's example with N=HPCC_N
# (default 1000) and P=1 (so Q=2: 2 ranks).
hpcc_input() {
    sed -e "s/^1000 *Ns/${HPCC_N:-1000}         Ns/" -e 's/^2 *Ps/1            Ps/' \
        /usr/share/doc/hpcc/examples/_hpccinf.txt >"$1/hpccinf.txt"
}
# The kernels' figures read from hpccoutf.txt (KEY=value); MPIFFT_Gflops is
# a rate (higher is faster), the others are seconds.
HPCC_KERNELS="HPL_time PTRANS_time MPIRandomAccess_time MPIRandomAccess_LCG_time MPIFFT_Gflops"
