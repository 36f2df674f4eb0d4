#!/bin/bash
# Issue 30 item 4 (memory exhaustion before authentication), without the lab:
# a collector and its agent started by hand on this machine, as under
# mpiwatch run (a token file).  1000 connections that never authenticate
# (half send a partial 4 MiB frame, half stay silent) are opened from the
# agent's own address.  The collector stays under 64 MB of resident memory,
# its agent stays connected, and a new agent (the same node's, restarted)
# still gets in while they are held.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/collector.sh"

plan no_plan
repo=$(cd "$(dirname "$0")/.." && pwd)
coll=$repo/build/bin/mpiwatch-collector
agent=$repo/build/bin/mpiwatch-agent
hostile=$repo/t/tools/hostile-conns.py
for f in "$coll" "$agent"; do [ -x "$f" ] || BAIL_OUT "missing $f (make)"; done
wait_until() { local t=$1; shift; for _ in $(seq 1 $((t * 5))); do eval "$1" >/dev/null 2>&1 && return 0; sleep 0.2; done; return 1; }
d=$(mktemp -d /tmp/mw0913.XXXXXX)
tap_cleanup "rm -rf '$d'"
mkdir -p "$d/run"
host=$(hostname)
od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"$d/token"
chmod 600 "$d/token"
ulimit -n 4096 2>/dev/null || true # 1000 connections (the collector keeps few of them)

"$coll" --job 4913 --nodes "$host" --port $((17900 + RANDOM % 90)) --ports 5 --timeout 2 --dir "$d/out" \
    --post no --drain no --job-check 0 --auth-file "$d/token" --log "$d/coll.log" &
cpid=$!
tap_cleanup "kill $cpid 2>/dev/null"
wait_until 20 "grep -q 'listening on port' '$d/coll.log'"
port=$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' "$d/coll.log" | head -n1)
like "$port" '^[0-9]+$' "collector listening (port $port)"
rss() { awk '/^VmRSS:/ {print $2}' "/proc/$cpid/status"; }
note "collector RSS at start: $(rss) kB"

"$agent" --job 4913 --node "$host" --rundir "$d/run" --collector 127.0.0.1:$port --ports 1 \
    --timeout 2 --job-check 0 --auth-file "$d/token" --log "$d/agent.log" &
apid=$!
tap_cleanup "kill $apid 2>/dev/null"
wait_until 20 "grep -q 'connected to the collector' '$d/agent.log'"
like "$(cat "$d/agent.log")" "connected to the collector" "the job's agent is connected"

python3 "$hostile" 127.0.0.1 "$port" 1000 "$d/hostile" &
hpid=$!
tap_cleanup "touch '$d/hostile.stop'; kill $hpid 2>/dev/null"
wait_until 60 "grep -q held '$d/hostile'"
like "$(cat "$d/hostile" 2>&1)" "held 1000" "1000 hostile connections opened (half with a partial 4 MiB frame)"
sleep 2 # let the collector read what they sent
r=$(rss)
note "collector RSS with the hostile connections held: $r kB"
cmp_ok "$r" -lt 65536 "the collector stays under 64 MB resident"

# The agent restarts (a goodbye, then a new connection) while they are held.
kill -TERM $apid; wait $apid 2>/dev/null
"$agent" --job 4913 --node "$host" --rundir "$d/run" --collector 127.0.0.1:$port --ports 1 \
    --timeout 2 --job-check 0 --auth-file "$d/token" --log "$d/agent2.log" &
apid=$!
tap_cleanup "kill $apid 2>/dev/null"
wait_until 30 "grep -q 'connected to the collector' '$d/agent2.log'"
like "$(cat "$d/agent2.log")" "connected to the collector" "a new agent connection gets in while they are held"
unlike "$(cat "$d/coll.log")" "agent_lost" "the agent was never lost"
r=$(rss)
cmp_ok "$r" -lt 65536 "the collector is still under 64 MB resident ($r kB)"
touch "$d/hostile.stop"; wait $hpid
note "$(cat "$d/hostile")"
kill -TERM $cpid; wait $cpid
is "$?" 0 "the collector exits 0 on SIGTERM"
done_testing
