#!/bin/bash
# The collector and an agent started by hand on this machine (no Slurm, no
# lab; the collector and the agents prove themselves to each other with a
# token file, as under mpiwatch run): an agent with another token refuses
# the collector (its proof does not match) and tells it nothing, a HELLO
# with a proof made with another token is refused, a wrong job's agent
# refuses the collector, garbage on the port is dropped and
# counted, a healthy mpirun job sends no heartbeat, an agent that vanishes
# without a goodbye triggers a probe, SIGTERM writes a "none" report.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/collector.sh"

plan 15
repo=$(cd "$(dirname "$0")/.." && pwd)
coll=$repo/build/bin/mpiwatch-collector
agent=$repo/build/bin/mpiwatch-agent
schema=$repo/doc/schemas/report.schema.json
prog=$repo/build/progs/openmpi/col_steady
lib=$repo/build/lib/libmpiwatch.so
for f in "$coll" "$agent" "$prog" "$lib"; do [ -x "$f" ] || [ -r "$f" ] || BAIL_OUT "missing $f (make; make progs)"; done
wait_until() { local t=$1; shift; for _ in $(seq 1 $((t * 5))); do eval "$1" >/dev/null 2>&1 && return 0; sleep 0.2; done; return 1; }
d=$(mktemp -d /tmp/mw0408.XXXXXX)
tap_cleanup "rm -rf '$d'"
mkdir -p "$d/run"
host=$(hostname)
port=$((17400 + RANDOM % 500))
od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"$d/token"
od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"$d/other-token"
chmod 600 "$d/token" "$d/other-token"

"$coll" --job 4242 --nodes "$host" --port $port --timeout 2 --dir "$d/out" --post no --drain no \
    --job-check 0 --probe-budget 0.5 --auth-file "$d/token" --log "$d/coll.log" &
cpid=$!
tap_cleanup "kill $cpid 2>/dev/null"
wait_until 20 "grep -q 'listening on port' '$d/coll.log'"
port=$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' "$d/coll.log" | head -n1)
like "$port" '^[0-9]+$' "collector listening (port $port)"

# --- an agent without the token is refused and counted
"$agent" --job 4242 --node "$host" --rundir "$d/run" --collector 127.0.0.1:$port --ports 1 \
    --timeout 2 --job-check 0 --auth-file "$d/other-token" --log "$d/forged.log" &
fpid=$!
wait_until 20 "grep -q 'refusing port' '$d/forged.log'"
like "$(cat "$d/forged.log")" "refusing port $port of 127.0.0.1: not the collector of job 4242: wrong token" \
    "an agent with another token refuses the collector, and sends it nothing"
r=$(FORGE_TOKEN_FILE="$d/other-token" python3 "$repo/t/tools/forge-agent.py" 127.0.0.1 "$port" 4242 "$host" mycred 2>&1)
like "$r" "welcome refused: not authenticated: wrong token" "a HELLO whose proof was made with another token is refused"
kill $fpid; wait $fpid 2>/dev/null

# --- an agent of another job is refused
"$agent" --job 4243 --node "$host" --rundir "$d/run" --collector 127.0.0.1:$port --ports 1 \
    --timeout 2 --job-check 0 --auth-file "$d/token" --log "$d/wrong.log" &
wpid=$!
wait_until 20 "grep -q 'refusing port' '$d/wrong.log'"
like "$(cat "$d/wrong.log")" "refusing port $port of 127.0.0.1: it serves job 4242, not 4243" \
    "an agent of another job refuses the collector"
kill $wpid; wait $wpid 2>/dev/null

# --- garbage on the port
exec 3<>/dev/tcp/127.0.0.1/$port && printf 'GET / HTTP/1.0\r\n\r\n' >&3
sleep 0.5; exec 3>&- 3<&-

# --- the right agent and a healthy job
"$agent" --job 4242 --node "$host" --rundir "$d/run" --collector 127.0.0.1:$port \
    --timeout 2 --job-check 0 --auth-file "$d/token" --log "$d/agent.log" &
apid=$!
tap_cleanup "kill $apid 2>/dev/null"
wait_until 20 "grep -q 'connected to the collector' '$d/agent.log'"
like "$(cat "$d/agent.log")" "connected to the collector" "the agent of job 4242 is welcomed"
printf '%s\n' "timeout = 2" "slot_dir = $d/run" "dump_dir = $d/dumps" >"$d/ranks.conf"
out=$(timeout 120 mpirun.openmpi --oversubscribe --allow-run-as-root -np 3 -x LD_PRELOAD="$lib" \
      -x MPIWATCH_SETTINGS="$d/ranks.conf" "$prog" 4 2>&1)
ok $? "a healthy 3-rank job runs under the monitor"
like "$out" "steady done" "its output is intact"

# --- the agent vanishes without a goodbye
kill -9 $apid
wait_until 30 "grep -q 'probe_end' '$d/coll.log'"
like "$(cat "$d/coll.log")" "agent_lost: agent of node $host: connection lost" "a lost agent is noticed"
like "$(cat "$d/coll.log")" "probe_start: probing 1 node" "and triggers a probe of the nodes"

# --- SIGTERM: final report
kill -TERM $cpid
wait $cpid
is "$?" 0 "the collector exits 0 on SIGTERM"
ok_cmd "report.json is valid against the schema" "$coll" --check-report "$d/out/report.json" --schema "$schema"
is "$(jv "$d/out/report.json" 'd["verdict"]')" none "verdict none"
is "$(jv "$d/out/collector-stats.json" 'd["heartbeats"]')" 0 "zero heartbeats from the healthy job"
cmp_ok "$(jv "$d/out/collector-stats.json" 'd["malformed_frames"]')" -ge 1 \
    "the garbage is counted"
cmp_ok "$(jv "$d/out/collector-stats.json" 'd["hellos_unauthenticated"]')" -ge 1 \
    "the hello with another token's proof is counted as unauthenticated"
done_testing
