# Helpers for integration tests that run on the Slurm lab (t/lab).  Source
# after tap.sh:
#
#   . "$(dirname "$0")/lib/tap.sh"
#   . "$(dirname "$0")/lib/lab.sh"
#   lab_require 3                 # reuse the running lab of MW_LAB_ID, or start one
#   dir=$(lab_tmpdir mwuser1)     # fresh job working dir owned by mwuser1
#   out=$(lab_as mwuser1 srun -N3 -n6 "$(lab_prog openmpi ring)")
#
# See doc/lab.md for every function.  Needs root (the tests run as root and
# submit jobs as the test users with lab_as).

MW_LAB_T=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MW_LAB_ID=${MW_LAB_ID:-0}
export MW_LAB_ID
# How often wait_for and lab_job_wait look again, in seconds (each wait
# cost half a poll on average: 1 s polls cost the suite minutes).
LAB_POLL=${LAB_POLL:-0.25}
# shellcheck disable=SC1091
. "$MW_LAB_T/lab/env"

# lab_running: is the lab of MW_LAB_ID up (slurmctld answers, nodes known)?
lab_running() {
    [ -r "$MW_LAB_DIR/state" ] && grep -q '^running' "$MW_LAB_DIR/state" || return 1
    [ -r "$MW_LAB_DIR/ctld/slurmctld.pid" ] || return 1
    kill -0 "$(cat "$MW_LAB_DIR/ctld/slurmctld.pid")" 2>/dev/null || return 1
    SLURM_CONF=$MW_LAB_DIR/etc/slurm.conf timeout 20 scontrol ping 2>/dev/null | grep -q 'is UP'
}

# lab_require N [--restd]: make sure a lab with at least N nodes (and
# slurmrestd if asked) is running; start one if not (a lab with too few
# nodes is restarted).  Then export the lab environment and wait until the
# nodes are idle.  If no lab can be had, the test bails out (never passes).
lab_require() {
    local n=${1:-3} restd=0 a
    shift || true
    for a in "$@"; do [ "$a" = --restd ] && restd=1; done
    if [ "$(id -u)" != 0 ]; then BAIL_OUT "the lab tests must run as root"; fi
    . "$MW_LAB_T/lab/env"
    if lab_running && [ "${MW_LAB_N:-0}" -ge "$n" ] \
        && { [ $restd = 0 ] || [ -n "${MW_LAB_RESTD_URL:-}" ]; }; then
        :
    else
        local args=("$n")
        [ $restd = 1 ] || [ -n "${MW_LAB_RESTD_URL:-}" ] && args+=(--restd)
        note "starting lab $MW_LAB_PREFIX: t/lab/start ${args[*]}"
        local log
        log=$(mktemp)
        if ! "$MW_LAB_T/lab/start" "${args[@]}" >"$log" 2>&1; then
            diag "$(cat "$log")"
            rm -f "$log"
            BAIL_OUT "cannot start lab $MW_LAB_PREFIX (t/lab/start ${args[*]})"
        fi
        rm -f "$log"
        . "$MW_LAB_T/lab/env"
    fi
    # Nodes that an earlier test left dead are brought back.
    local node
    for node in $MW_LAB_NODE_LIST; do
        if [ -e "$MW_LAB_DIR/nodes/$node/killed" ]; then
            note "reviving $node (left dead by an earlier test)"
            "$MW_LAB_T/lab/revive-node" "$node" >/dev/null 2>&1 || diag "revive $node failed"
        fi
    done
    # Jobs still ending: wait for them; a dead/hung/drained node: repair now.
    if [ -z "$(sinfo -h -o '%t' | grep -vE '^(idle|alloc|mix|comp)$')" ]; then
        lab_wait_idle 60 && return 0
    fi
    # Left-overs of an earlier test: its jobs, a hung, dead or drained node.
    diag "lab $MW_LAB_PREFIX not idle: $(sinfo -h -o '%t %N' | tr '\n' ' ')" \
        "queue: $(squeue -h -o '%i %u %T %N' | tr '\n' ';')"
    local u
    for u in $MW_LAB_USERS; do scancel -u "$u" 2>/dev/null; done
    for node in $MW_LAB_NODE_LIST; do
        case "$(lab_node_state "$node")" in
            idle|alloc|mix|comp|alloc\*) ;;
            *) note "reviving $node ($(lab_node_state "$node"))"
               "$MW_LAB_T/lab/revive-node" "$node" >/dev/null 2>&1 || diag "revive $node failed";;
        esac
    done
    lab_wait_idle 120 || BAIL_OUT "lab $MW_LAB_PREFIX nodes are not idle: $(sinfo -h -o '%t %N' | tr '\n' ' ')"
}

# wait_for TIMEOUT CMD [ARGS...]: run CMD every LAB_POLL seconds (0.25)
# until it succeeds;
# return 0 when it did, 1 after TIMEOUT seconds.  CMD is re-run each time,
# but its arguments are expanded once, by the caller: poll with a function
# (lab_node_is, lab_job_is, lab_all_idle, ...), not `test "$(...)"`.
# wait_for TIMEOUT 'SHELL CODE': a single string is eval'ed every time, so
# `wait_for 60 'test "$(ls "$dir" | wc -l)" -ge 2'` re-expands $(...).
wait_for() {
    local tmo=$1 end; shift
    end=$((SECONDS + tmo))
    while :; do
        if [ $# -eq 1 ]; then
            eval "$1" >/dev/null 2>&1 && return 0
        else
            "$@" >/dev/null 2>&1 && return 0
        fi
        [ $SECONDS -ge $end ] && return 1
        sleep "$LAB_POLL"
    done
}

# lab_node_state NODE: Slurm's state of NODE as sinfo %t (idle, alloc,
# down*, idle*, drain, ...); "*" means not responding.
lab_node_state() { sinfo -h -n "$1" -o %t 2>/dev/null | head -n1; }

# lab_node_is NODE REGEX: does NODE's state match REGEX (whole word)?
lab_node_is() { [[ "$(lab_node_state "$1")" =~ ^($2)$ ]]; }

# lab_all_idle [NODES]: are all lab nodes (or NODES, a hostlist) idle, with
# no job left in the queue?
lab_all_idle() {
    local nodes=${1:-$MW_LAB_NODES} st
    st=$(sinfo -h -n "$nodes" -o '%t' 2>/dev/null | sort -u | tr '\n' ' ')
    [ "$st" = "idle " ] || return 1
    [ -n "$1" ] || [ -z "$(squeue -h -o %i 2>/dev/null)" ]
}

# lab_wait_idle [TIMEOUT] [NODES]: wait (default 120 s) until lab_all_idle.
lab_wait_idle() { wait_for "${1:-120}" lab_all_idle "${2:-}"; }

# lab_tmpdir USER: print a fresh directory owned by USER under
# $MW_LAB_DIR/work/USER (visible on every node); removed by the test's exit
# unless MW_LAB_KEEP=1.  It is called as d=$(lab_tmpdir ...), a subshell whose
# own tap_cleanup would be lost, so the folders carry the test's PID ($$ is
# the test script's in every subshell) and one cleanup, registered here when
# the test sources this file, removes them all.
lab_tmpdir() {
    local user=${1:-mwuser1} d
    d=$(mktemp -d "$MW_LAB_DIR/work/$user/t.$$.XXXXXX") || return 1
    chown "$user:$(id -gn "$user")" "$d" && chmod 0755 "$d"
    echo "$d"
}
[ "${MW_LAB_KEEP:-0}" = 1 ] || ! declare -F tap_cleanup >/dev/null ||
    tap_cleanup "rm -rf '$MW_LAB_DIR'/work/*/t.$$.*"

# lab_as USER CMD [ARGS...]: run CMD in the root namespace as USER, with
# the lab environment (SLURM_CONF...), e.g. lab_as mwuser1 srun -N2 hostname.
lab_as() {
    local user=$1; shift
    runuser -u "$user" -- env SLURM_CONF="$SLURM_CONF" "$@"
}

# lab_exec [-u USER] NODE CMD...: t/lab/exec (run CMD on a node).
lab_exec() { "$MW_LAB_T/lab/exec" "$@"; }
lab_kill_node() { "$MW_LAB_T/lab/kill-node" "$@"; }
lab_revive_node() { "$MW_LAB_T/lab/revive-node" "$@"; }

# lab_nhd_kill NODE: SIGKILL the nodehealthd of NODE (two TAP lines: it ran,
# it was killed) and start it again at the test's end (tap_cleanup).
lab_nhd_kill() {
    local p
    p=$(cat "$MW_LAB_DIR/nodes/$1/nodehealthd.pid" 2>/dev/null)
    tap_cleanup "lab_exec $1 '$MW_LAB_T/lab/node.d/50-nodehealthd' start $1 >/dev/null 2>&1"
    like "$p" '^[0-9]+$' "nodehealthd runs on $1"
    kill -KILL "$p"
    ok $? "nodehealthd on $1 SIGKILLed"
}

# lab_prog MPI NAME: path of a test program built by `make progs`
# (MPI = openmpi | mpich).  Bails out if it is missing.
lab_prog() {
    local p="$MW_LAB_REPO/build/progs/$1/$2"
    [ -x "$p" ] || BAIL_OUT "$p missing: run 'make progs' first"
    echo "$p"
}

# lab_job_state JOBID: the job's state (PENDING, RUNNING, COMPLETED, ...),
# empty once Slurm forgot it (MinJobAge).
lab_job_state() { scontrol -o show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p'; }

# lab_job_is JOBID REGEX: does the job's state match REGEX (whole word)?
# For wait_for: `wait_for 60 lab_job_is "$id" RUNNING` (not
# `wait_for 60 test "$(lab_job_state ...)"`, which is evaluated only once).
lab_job_is() { [[ "$(lab_job_state "$1")" =~ ^($2)$ ]]; }

# lab_job_wait JOBID [TIMEOUT]: wait until the job has ended; print its
# final state.  Return 1 on timeout.
lab_job_wait() {
    local id=$1 tmo=${2:-300} end st last=
    end=$((SECONDS + tmo))
    while [ $SECONDS -lt $end ]; do
        st=$(lab_job_state "$id")
        [ -n "$st" ] && last=$st
        case "$st" in
            PENDING|RUNNING|CONFIGURING|COMPLETING|SUSPENDED|REQUEUED|RESIZING|SIGNALING|STAGE_OUT) ;;
            '') echo "${last:-GONE}"; return 0;;
            *) echo "$st"; return 0;;
        esac
        sleep "$LAB_POLL"
    done
    echo "${last:-UNKNOWN}"
    return 1
}

# lab_sbatch USER SBATCH_ARGS...: submit as USER; print the job id.
lab_sbatch() {
    local user=$1; shift
    lab_as "$user" sbatch --parsable "$@" | cut -d';' -f1
}

# lab_reasoned_nodes: the nodes Slurm lists with a reason (drained, down),
# space separated ("" when none): what "no node is drained" compares.
lab_reasoned_nodes() { sinfo -h -R -o %N | tr '\n' ' ' | sed 's/ $//'; }

# lab_log NAME: path of a lab log (slurmctld, slurmd-n1, slurmrestd, ...).
lab_log() { echo "$MW_LAB_DIR/log/$1.log"; }

# lab_check_ring OUTPUT SIZE NHOSTS DESC: TAP assertions on the output of
# t/progs/ring (size SIZE, one round) run across NHOSTS distinct lab nodes:
# every rank 0..SIZE-1 reported that it passed the token, rank k passed
# k+1 (rank 0 got SIZE back), rank 0's summary is right, the ranks ran on
# NHOSTS distinct hosts, all of them lab nodes.  Four tests.
lab_check_ring() {
    local out=$1 size=$2 nhosts=$3 desc=$4 k bad= hosts line
    for ((k = 0; k < size; k++)); do
        local want=$((k + 1))
        [ $k = 0 ] && want=$size
        local n
        n=$(grep -cE "^ring: rank $k of $size on [^ ]+ passed token $want\$" <<<"$out")
        [ "$n" = 1 ] || bad="$bad rank$k(x$n)"
    done
    is "${bad:-none}" none "$desc: every rank passed the token once"
    like "$out" "ring: done size=$size rounds=1 token=$size(\$|
)" "$desc: the token came back to rank 0 as $size"
    hosts=$(sed -n 's/^ring: rank [0-9]* of [0-9]* on \([^ ]*\) passed.*/\1/p' <<<"$out" | sort -u | tr '\n' ' ')
    is "$(wc -w <<<"$hosts" | tr -d ' ')" "$nhosts" "$desc: ranks on $nhosts distinct hosts ($hosts)"
    local h notlab=
    for h in $hosts; do
        [[ " $MW_LAB_NODE_LIST " == *" $h "* ]] || notlab="$notlab $h"
    done
    is "${notlab:-none}" none "$desc: every host is a lab node"
}
