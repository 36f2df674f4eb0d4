# Internal helpers for the t/lab scripts (sourced; not part of the Lab API).
# Everything a lab owns is derived from MW_LAB_ID so that two labs never share
# a name, an address, a port or a directory.

set -u

lab_die() { echo "t/lab: $*" >&2; exit 1; }
lab_msg() { [ "${MW_LAB_QUIET:-0}" = 1 ] || echo "t/lab: $*" >&2; }
# Close every descriptor the caller passed beyond 0-2, so that the daemons a
# script starts do not inherit them: a caller's `flock /tmp/mw-heavy.lock`
# lived on in a lab's munged and held the lock until the lab stopped.
lab_close_fds() {
    local fd
    for fd in /proc/$$/fd/*; do
        fd=${fd##*/}
        case $fd in 0 | 1 | 2 | 255) ;; *) eval "exec $fd>&-" 2>/dev/null ;; esac
    done
}

MW_LAB_ID=${MW_LAB_ID:-0}
case "$MW_LAB_ID" in [0-9]) ;; *) lab_die "MW_LAB_ID must be 0-9 (got '$MW_LAB_ID')";; esac

LAB_TOOLS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LAB_REPO=$(cd "$LAB_TOOLS/../.." && pwd)
LAB_PREFIX=mwl$MW_LAB_ID
LAB_BASE=${MW_LAB_BASE:-/var/lib/mpiwatch-lab}
LAB_DIR=$LAB_BASE/$LAB_PREFIX
LAB_NET=198.18.$MW_LAB_ID
LAB_CTL_ADDR=$LAB_NET.254
LAB_BRIDGE=${LAB_PREFIX}br
LAB_CTLD_PORT=$((16800 + MW_LAB_ID * 10))
LAB_SLURMD_PORT=$((LAB_CTLD_PORT + 1))
LAB_RESTD_PORT=$((LAB_CTLD_PORT + 2))
LAB_CONF=$LAB_DIR/etc/slurm.conf
LAB_MUNGE_SOCKET=$LAB_DIR/munge/munge.socket
LAB_MAX_NODES=64
LAB_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# Fixed uids/gids for the lab users (used only if free).
LAB_USERS="mwrest:2900 mwuser1:2901 mwuser2:2902"

lab_netns() { echo "$LAB_PREFIX-$1"; }     # network namespace of a node
lab_veth() { echo "$LAB_PREFIX-$1"; }      # host side of a node's veth pair
lab_node_addr() { echo "$LAB_NET.${1#n}"; }
lab_node_dir() { echo "$LAB_DIR/nodes/$1"; }

# Read the persisted lab parameters (N, RESTD, SLURMD_TIMEOUT); fail if none.
lab_load() {
    [ -r "$LAB_DIR/lab.conf" ] || return 1
    # shellcheck disable=SC1091
    . "$LAB_DIR/lab.conf"
}

lab_nodes() { local i; for ((i = 1; i <= LAB_N; i++)); do echo "n$i"; done; }

lab_require_root() { [ "$(id -u)" = 0 ] || lab_die "must run as root"; }

lab_valid_node() {
    case "$1" in n[0-9]*) ;; *) return 1;; esac
    local k=${1#n}
    [[ "$k" =~ ^[1-9][0-9]*$ ]] && [ "$k" -le "$LAB_N" ]
}

# Enter a node's network, mount and UTS namespaces and run a command there.
lab_nsenter() {
    local node=$1; shift
    nsenter --net=/run/netns/"$(lab_netns "$node")" \
        --mount="$LAB_DIR/ns/$node.mnt" --uts="$LAB_DIR/ns/$node.uts" -- "$@"
}

# Pids whose network namespace is the node's.
lab_node_pids() { ip netns pids "$(lab_netns "$1")" 2>/dev/null; }

# Is pid $1 alive, a $2 (command name), and one of this lab's (its command
# line names the lab directory)?  A stale pid file can never hit another
# lab's daemon or a process that reused the pid.
lab_pid_is() {
    local pid=$1 comm=$2 c
    [[ "$pid" =~ ^[0-9]+$ ]] && [ -r "/proc/$pid/comm" ] || return 1
    c=$(cat "/proc/$pid/comm" 2>/dev/null) || return 1
    [ "$c" = "$comm" ] || return 1
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF "$LAB_DIR/"
}

# Kill the process in pidfile $1 if it is a $2; wait for it to go (bounded).
lab_kill_pidfile() {
    local f=$1 comm=$2 pid i
    [ -r "$f" ] || return 0
    pid=$(cat "$f" 2>/dev/null)
    if lab_pid_is "$pid" "$comm"; then
        kill -TERM "$pid" 2>/dev/null
        for ((i = 0; i < 50; i++)); do lab_pid_is "$pid" "$comm" || break; sleep 0.1; done
        lab_pid_is "$pid" "$comm" && kill -KILL "$pid" 2>/dev/null
        for ((i = 0; i < 50; i++)); do lab_pid_is "$pid" "$comm" || break; sleep 0.1; done
    fi
    rm -f "$f"
}

# SIGKILL every process of a node's network namespace until none is left.
lab_kill_node_pids() {
    local node=$1 i pids
    for ((i = 0; i < 100; i++)); do
        pids=$(lab_node_pids "$node")
        [ -z "$pids" ] && return 0
        # Stop first so nothing forks away between the scan and the kill.
        kill -STOP $pids 2>/dev/null
        kill -KILL $pids 2>/dev/null
        sleep 0.1
    done
    pids=$(lab_node_pids "$node")
    [ -z "$pids" ] || { echo "t/lab: pids left in $node: $pids" >&2; return 1; }
}

# Environment for programs the lab runs on a node (slurmd, node.d hooks).
lab_node_env() {
    local node=$1
    echo "PATH=$LAB_PATH"
    echo "HOME=/root"
    echo "LANG=C"
    echo "MW_LAB_ID=$MW_LAB_ID"
    echo "MW_LAB_DIR=$LAB_DIR"
    echo "MW_LAB_NODE=$node"
    echo "SLURM_CONF=$LAB_CONF"
}

# Run every executable t/lab/node.d/* as "script ACTION NODE" on the node.
lab_run_hooks() {
    local action=$1 node=$2 h rc
    [ -d "$LAB_TOOLS/node.d" ] || return 0
    for h in "$LAB_TOOLS"/node.d/*; do
        [ -f "$h" ] && [ -x "$h" ] || continue
        case "$h" in *~|*.swp|*.orig|*.rej) continue;; esac
        {
            echo "== $(date +%T) $h $action $node"
        } >>"$LAB_DIR/log/node.d-$node.log"
        lab_nsenter "$node" env -i $(lab_node_env "$node") \
            bash -c '. "$1"; shift; exec timeout 120 "$@"' lab-hook "$LAB_TOOLS/env" \
            "$h" "$action" "$node" \
            </dev/null >>"$LAB_DIR/log/node.d-$node.log" 2>&1
        rc=$?
        [ $rc -eq 0 ] || echo "t/lab: hook $h $action $node failed (exit $rc), see $LAB_DIR/log/node.d-$node.log" >&2
    done
    return 0
}

# Start slurmd on a node, inside its namespaces; wait for its pid file.
lab_start_slurmd() {
    local node=$1 pidf i
    pidf=$(lab_node_dir "$node")/slurmd.pid
    rm -f "$pidf"
    lab_nsenter "$node" env -i $(lab_node_env "$node") \
        slurmd -N "$node" -f "$LAB_CONF" </dev/null >>"$LAB_DIR/log/slurmd-$node.out" 2>&1 \
        || { echo "t/lab: slurmd on $node failed, see $LAB_DIR/log/slurmd-$node.log" >&2; return 1; }
    for ((i = 0; i < 100; i++)); do
        [ -s "$pidf" ] && lab_pid_is "$(cat "$pidf")" slurmd && return 0
        sleep 0.1
    done
    echo "t/lab: slurmd on $node did not start, see $LAB_DIR/log/slurmd-$node.log" >&2
    return 1
}

# "Boot" a node's private filesystems: empty /tmp, /run/mpiwatch, /dev/shm.
lab_node_fresh_fs() {
    local node=$1 d
    d=$(lab_node_dir "$node")
    # A repo under /tmp is bind-mounted into the node's /tmp (see start):
    # never delete through it.
    local keep=/nonexistent
    case "$LAB_REPO/" in /tmp/*) keep=/tmp/$(echo "${LAB_REPO#/tmp/}" | cut -d/ -f1);; esac
    lab_nsenter "$node" sh -c '
        umount -l /dev/shm 2>/dev/null
        find /tmp /run/mpiwatch -mindepth 1 -maxdepth 1 ! -path "$1" -exec rm -rf {} + 2>/dev/null
        mount -t tmpfs -o mode=1777,size=512m,nosuid,nodev tmpfs /dev/shm' sh "$keep" \
        || echo "t/lab: could not reset filesystems of $node" >&2
    : "$d"
}

# scontrol against the lab.
lab_scontrol() { SLURM_CONF=$LAB_CONF scontrol "$@"; }

# State of a node as sinfo's %t (idle, alloc, down*, ...).
lab_node_state() { SLURM_CONF=$LAB_CONF sinfo -h -n "$1" -o %t 2>/dev/null | head -n1; }
