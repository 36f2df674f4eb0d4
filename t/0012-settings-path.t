#!/bin/bash
# One settings contract, through the real path: a --mpiwatch= setting at its
# minimum and maximum goes plugin -> the job's settings file -> the agent,
# the collector and the monitor, and all three use the same value (their
# logs say which; the agent also reads the monitor's own from its slot).
# One past either end is refused by srun with the plugin's message, and
# nothing starts half-way: no step runs, no report folder appears.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"

plan no_plan
lab_require 2
prog=$(lab_prog openmpi col_steady)
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"

# In range: SETTING, then what the collector's log says, then the timeout
# the agents and the monitor must use.
i=0
while IFS='|' read -r setting coll tmo; do
    [ -n "$setting" ] || continue
    i=$((i + 1))
    out=$(lab_as mwuser1 timeout 120 srun --mpiwatch="$setting,dir=$dir/in$i" -N2 -n2 --mpi=pmix "$prog" 1 2>&1 </dev/null)
    is "$?" 0 "$setting: the job runs"
    like "$out" "steady done" "$setting: its output is intact"
    logs=$dir/in$i/logs
    like "$(cat "$logs"/mpiwatch-collector-*.log 2>/dev/null)" "$coll" "$setting: the collector uses it ($coll)"
    for n in $(ls "$logs" | sed -n 's/^mpiwatch-agent-\(.*\)\.log$/\1/p'); do
        a=$(cat "$logs/mpiwatch-agent-$n.log")
        like "$a" "timeout $tmo s" "$setting: the agent on $n uses timeout $tmo"
        like "$a" "monitor timeout $tmo s" "$setting: the monitor on $n uses timeout $tmo"
        unlike "$a" "its monitor's timeout is" "$setting: agent and monitor agree on $n"
    done
    is "$(ls "$logs" | grep -c '^mpiwatch-agent-')" 2 "$setting: two agents ran"
done <<'CASES'
timeout=1|timeout 1 s, hang limit 10 s|1
timeout=604800|timeout 604800 s, hang limit 6.048e\+06 s|604800
hang_limit=1|hang limit 1 s|60
hang_limit=31536000|hang limit 3.1536e\+07 s|60
threshold=1|threshold 1,|60
threshold=1000000|threshold 1000000,|60
threshold=1%|threshold 1%,|60
threshold=100%|threshold 100%,|60
action=requeue|action requeue|60
CASES

# One past each end: srun refuses with the table's message; nothing starts.
while IFS='|' read -r setting msg; do
    [ -n "$setting" ] || continue
    i=$((i + 1))
    out=$(lab_as mwuser1 timeout 60 srun --mpiwatch="$setting,dir=$dir/out$i" -N1 -n1 echo ran 2>&1 </dev/null)
    isnt "$?" 0 "$setting: srun refuses it"
    like "$out" "$msg" "$setting: the message says what is expected"
    unlike "$out" "^ran" "$setting: no step ran"
    [ ! -e "$dir/out$i" ]; ok $? "$setting: no report folder was made"
done <<'CASES'
timeout=0.99|timeout=0.99: expected seconds, a number from 1 to 604800
timeout=604801|timeout=604801: expected seconds, a number from 1 to 604800
hang_limit=0.5|hang_limit=0.5: expected seconds, a number from 1 to 31536000
hang_limit=31536001|hang_limit=31536001: expected seconds, a number from 1 to 31536000
threshold=0|threshold=0: expected a rank count
threshold=1000001|threshold=1000001: expected a rank count
threshold=0%|threshold=0%: expected a rank count
threshold=101%|threshold=101%: expected a rank count
action=kill|action=kill: expected report, cancel or requeue
CASES
done_testing
