#!/bin/bash
# One range per setting: a timeout the SPANK plugin accepts (1 to 604800 s,
# shared/jobconf.h; see test_spank_opts and test_monitor_stall for the plugin
# and the monitor) is accepted by the agent and the collector too, and one
# past either end is refused by them with a message, so a job is never left
# unwatched by a value the plugin let through.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/run.sh"

plan 25
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /var/tmp/mw-range.XXXXXX)
run_strays_from "$work"
tap_cleanup "rm -rf '$work'"

# starts PROGRAM ARGS...: 0 if the program is still running after 1 s (it
# accepted its arguments), else its exit status; its stderr in $work/err.
starts() {
    "$@" >/dev/null 2>"$work/err" &
    local pid=$! st
    sleep 1
    if kill -0 "$pid" 2>/dev/null; then kill "$pid"; wait "$pid" 2>/dev/null; return 0; fi
    wait "$pid"; st=$?
    return $st
}
agent() { starts "$top/build/bin/mpiwatch-agent" --job 1 --node n1 --rundir "$work/run" \
    --collector 127.0.0.1:9 --job-check 0 --timeout "$1"; }
coll() { starts "$top/build/bin/mpiwatch-collector" --job 1 --nodes localhost --port $((20000 + $$ % 20000)) --ports 1 \
    --dir "$work/out" --job-check 0 --post no --drain no --timeout "$1"; }

for v in 1 604800 100000; do
    agent "$v"; is "$?" 0 "the agent accepts --timeout $v"
    coll "$v"; is "$?" 0 "the collector accepts --timeout $v"
done
for v in 0.5 604801; do
    agent "$v"; is "$?" 2 "the agent refuses --timeout $v"
    like "$(cat "$work/err")" "--timeout $v: expected seconds, a number from 1 to 604800" "the agent says the range for $v"
done
coll 604801; is "$?" 2 "the collector refuses --timeout 604801"
like "$(cat "$work/err")" "--timeout 604801: expected seconds, a number from 1 to 604800" "the collector says the range"

# mpiwatch run resolves with the same table: at both ends its collector and
# agent (from the settings file it writes) use the value; one past either
# end is refused with the table's message and nothing starts.
for v in 1 604800; do
    out=$("$top/build/bin/mpiwatch" run -n 1 --mpi openmpi --timeout "$v" -d "$work/run$v" -- /bin/true 2>&1)
    is "$?" 0 "mpiwatch run accepts --timeout $v"
    like "$(cat "$work/run$v/collector.log")" "timeout $v s" "mpiwatch run: its collector uses $v"
    like "$(cat "$work/run$v/agent.log")" "timeout $v s" "mpiwatch run: its agent uses $v"
done
for v in 0.99 604801; do
    out=$("$top/build/bin/mpiwatch" run -n 1 --mpi openmpi --timeout "$v" -d "$work/bad$v" -- /bin/true 2>&1)
    is "$?" 2 "mpiwatch run refuses --timeout $v"
    like "$out" "--timeout $v: expected seconds, a number from 1 to 604800" "mpiwatch run says the range for $v"
    [ ! -e "$work/bad$v" ]; ok $? "mpiwatch run --timeout $v: nothing started"
done
run_no_strays
done_testing
