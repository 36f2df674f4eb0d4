# t/lib/cpugroup.sh: a CPU scheduling group of its own for a test's
# processes, as a real node has its own cores (root only).  Source after
# tap.sh.
#
# Why: on this machine every lab "node", every `mpiwatch run` rank and every
# other engineer's build share the same 2 cores.  A test that compares one
# node's compute speed with another's then measures the other tenants too:
# a build that lands on rank 0's core for half a second makes rank 0 "slow"
# (a false alarm), and a busy process pinned beside rank 1 pushes the
# scheduler's other work onto rank 0's core (the slowdown drowned).  A group
# with the largest weight (cgroup v1 cpu.shares 262144, 256 times a
# process's default 1024; cgroup v2 cpu.weight 10000, 100 times the default)
# gets its cores as a dedicated node would: another runnable process takes at
# most 1/257 (1/101) of a core from it while it runs.  What runs inside the
# group (a busy process pinned beside a rank) still competes with the rank
# at equal weight, as on a real node.  A new group only has the weight;
# cpugroup_quota caps what it gets (a slowdown that is the group's own).  A
# group is removed at the test's end (its processes back in the root group
# first).

CPUGROUP_V1=/sys/fs/cgroup/cpu

# cpugroup_base: the directory holding the groups (cgroup v1 cpu controller,
# or a cgroup v2 root with the cpu controller), or BAIL_OUT.
cpugroup_base() {
    if [ -w "$CPUGROUP_V1/cgroup.procs" ] && [ -e "$CPUGROUP_V1/cpu.shares" ]; then
        echo "$CPUGROUP_V1"
        return
    fi
    local v2
    v2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
    if [ -n "$v2" ] && grep -qw cpu "$v2/cgroup.controllers" 2>/dev/null; then
        grep -qw cpu "$v2/cgroup.subtree_control" || echo +cpu >"$v2/cgroup.subtree_control" 2>/dev/null
        grep -qw cpu "$v2/cgroup.subtree_control" && { echo "$v2"; return; }
    fi
    BAIL_OUT "cpugroup: no cgroup cpu controller (v1 at $CPUGROUP_V1, or v2 with cpu enabled); run as root"
}

# cpugroup_new NAME: make the group NAME with the largest weight; it is
# removed at exit (tap_cleanup).  BAIL_OUT when that is impossible.
cpugroup_new() {
    local base g
    base=$(cpugroup_base) || exit 255
    g=$base/$1
    [ -d "$g" ] && cpugroup_remove "$1"
    mkdir "$g" || BAIL_OUT "cpugroup: cannot make $g"
    if [ -e "$g/cpu.shares" ]; then
        echo 262144 >"$g/cpu.shares" || BAIL_OUT "cpugroup: cannot set $g/cpu.shares"
    else
        echo 10000 >"$g/cpu.weight" || BAIL_OUT "cpugroup: cannot set $g/cpu.weight"
    fi
    tap_cleanup "cpugroup_remove '$1'"
}

# cpugroup_quota NAME PCT|off: the group's processes together get at most
# PCT % of one core (a CFS bandwidth quota: PCT % of every 10 ms period),
# wherever they run and whatever else runs; "off" removes the quota.
# BAIL_OUT when that is impossible.
cpugroup_quota() {
    local g q
    g=$(cpugroup_base)/$1 || exit 255
    if [ -e "$g/cpu.cfs_quota_us" ]; then
        q=-1
        [ "$2" = off ] || q=$((100 * $2))
        echo 10000 >"$g/cpu.cfs_period_us" && echo "$q" >"$g/cpu.cfs_quota_us" ||
            BAIL_OUT "cpugroup: cannot set the quota of $g"
    else
        q=max
        [ "$2" = off ] || q=$((100 * $2))
        echo "$q 10000" >"$g/cpu.max" || BAIL_OUT "cpugroup: cannot set $g/cpu.max"
    fi
}

# cpugroup_add NAME PID...: move the processes PID (all their threads) into
# group NAME; the children they start later are in it too.  Return 1 if one
# could not be moved.
cpugroup_add() {
    local g rc=0 pid
    g=$(cpugroup_base)/$1 || return 1
    shift
    for pid in "$@"; do
        echo "$pid" >"$g/cgroup.procs" || rc=1
    done
    return $rc
}

# cpugroup_of PID: the cpu group PID is in ("/" for the root group).
cpugroup_of() {
    awk -F: '{ n = split($2, c, ","); for (i = 1; i <= n; i++) if (c[i] == "cpu") v1 = $3 }
             $1 == "0" && $2 == "" { v2 = $3 } END { print (v1 != "" ? v1 : v2) }' "/proc/$1/cgroup"
}

# cpugroup_remove NAME: move what is still in group NAME back to the root
# group and remove it, its sub-groups first.  A process that has exited but
# is not yet reaped (a zombie child of the test's own shell) keeps a cgroup
# v1 group busy until the shell exits, so when the group cannot be removed at
# once a background process (itself in the root group) keeps trying for 10 s.
cpugroup_remove() {
    local base
    base=$(cpugroup_base) || return 1
    _cpugroup_rm "$base" "$base/$1" && return 0
    (
        echo "$BASHPID" >"$base/cgroup.procs"
        for _ in $(seq 50); do
            sleep 0.2
            _cpugroup_rm "$base" "$base/$1" && exit 0
        done
        echo "cpugroup: could not remove $base/$1" >&2
    ) </dev/null >/dev/null 2>&1 &
    return 0
}

# _cpugroup_rm BASE DIR: one try: DIR's sub-groups, then DIR.
_cpugroup_rm() {
    local sub pid
    [ -d "$2" ] || return 0
    for sub in "$2"/*/; do
        [ -d "$sub" ] && { _cpugroup_rm "$1" "${sub%/}" || return 1; }
    done
    while read -r pid; do
        echo "$pid" >"$1/cgroup.procs" 2>/dev/null
    done <"$2/cgroup.procs"
    rmdir "$2" 2>/dev/null
}
