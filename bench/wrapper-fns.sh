# bench/wrapper-fns.sh: sourced by the benches that count libmpiwatch's
# instructions per MPI call (bench/test-poll.sh, bench/hpcc-poll-instructions.sh).
# MW_WRAPPER_FNS: the prefixes (an awk/ERE alternation) of the functions
# monitor/gen.py generates around an MPI call: the exported wrapper mwv_, the
# probe's mwq_, the completion part mwr_, the record writers mwf_ and mwb_,
# the general wrapper mwx_, the skip path mwk_ (mwl_ for arrays of more than
# 8 handles, since 2026-11-29 session 13) and its completion mws_, the
# compare path mwp_ and the general wrapper's entry mwy_.  A new prefix in
# gen.py goes here, once.
MW_WRAPPER_FNS='mwv_|mwq_|mwr_|mwf_|mwb_|mwx_|mwk_|mwl_|mws_|mwp_|mwy_'
