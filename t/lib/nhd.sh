# t/lib/nhd.sh: for the tests of mpiwatch-nodehealthd on loopback in the
# root namespace (no lab).  Source after tap.sh.

# nhd_free_port: a free UDP port on loopback in $port (BAIL_OUT if none).
nhd_free_port() {
    local p
    port=
    for p in $(seq $((20000 + $$ % 20000)) $((20100 + $$ % 20000))); do
        ss -Huln "sport = :$p" | grep -q . || { port=$p; break; }
    done
    [ -n "$port" ] || BAIL_OUT "no free UDP port"
}

# nhd_write_conf FILE DIR [LINE...]: a configuration listening on
# 127.0.0.1:$port with its socket DIR/nhd.sock, logging to stderr, with
# thresholds a loaded CI box cannot trip, then the LINEs.
nhd_write_conf() {
    local file=$1 dir=$2
    shift 2
    cat >"$file" <<EOF
listen = 127.0.0.1
port = $port
socket = $dir/nhd.sock
log = stderr
check_interval = 2
# thresholds that a loaded CI box cannot trip
load_max_per_core = 0
mem_min_free_mb = 0
tmp_min_free_mb = 0
calibrate_max_noise = 0
EOF
    [ $# -eq 0 ] || printf '%s\n' "$@" >>"$file"
}
