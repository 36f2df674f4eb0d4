#!/bin/bash
# Issue 30, item 9 (the plugin's reading side): when a helper exits at
# start-up, the plugin (root, in slurmstepd) puts the last line of its log,
# REPORT/logs/mpiwatch-collector-NODE.log, in the job's output as the reason.
# That log is in the job user's report folder.  mwuser1 makes logs/ a link to
# a root-only folder whose mpiwatch-collector-n1.log holds a secret line,
# and makes the collector exit at start-up (its ports, predictable from the
# job id, taken first).  The job's output must not show the secret; it still
# says why the job is not watched (from the helper's own log).
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"

plan no_plan
lab_require 2
prog=$(lab_prog openmpi col_steady)
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"

secret=$(mktemp -d "$MW_LAB_DIR/secret.XXXXXX")
tap_cleanup "rm -rf '$secret'"
chmod 0700 "$secret"
echo "ROOT-ONLY-SECRET-LOG-LINE" >"$secret/mpiwatch-collector-n1.log"
chmod 0600 "$secret/mpiwatch-collector-n1.log"

jid=$(lab_sbatch mwuser1 -H -N1 -n2 -w n1 --mpiwatch=timeout=2 -o "$dir/job.out" \
    --wrap "srun --mpi=pmix $prog 3")
like "$jid" '^[0-9]+$' "a held job of mwuser1"
tap_cleanup "scancel $jid 2>/dev/null"
out=$dir/mpiwatch-$jid
lab_as mwuser1 mkdir "$out"
lab_as mwuser1 ln -s "$secret" "$out/logs"
ok_cmd "mwuser1's logs/ is a link to a root-only folder" test -L "$out/logs"

# The collector's ports (port_base 7300 + job id % 500, and the 4 after it),
# taken by mwuser1 on n1 so that it exits at start-up.
port=$((7300 + jid % 500))
lab_exec -u mwuser1 n1 python3 -c '
import os, socket, sys, time
open(sys.argv[2], "w").write("%d\n" % os.getpid())
ss = []
for p in range(int(sys.argv[1]), int(sys.argv[1]) + 5):
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", p)); s.listen(1); ss.append(s)
print("bound", flush=True)
time.sleep(120)' "$port" "$dir/ports.pid" >"$dir/ports.out" 2>&1 &
tap_cleanup "kill \$(cat '$dir/ports.pid') 2>/dev/null"
wait_for 20 "grep -q bound '$dir/ports.out'"
like "$(cat "$dir/ports.out")" "bound" "mwuser1 holds the collector's ports $port-$((port + 4)) on n1"

scontrol release "$jid"
is "$(lab_job_wait "$jid" 180)" COMPLETED "the job completes"
o=$(cat "$dir/job.out")
like "$o" "steady done" "the program's output is intact"
unlike "$o" "ROOT-ONLY-SECRET" "the job's output does not show the root-only file's line"
like "$o" "not watching job $jid: mpiwatch-collector exited at start-up: .*cannot listen" \
    "the job's output says why it is not watched (the collector's own log)"

done_testing
