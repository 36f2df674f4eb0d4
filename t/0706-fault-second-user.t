#!/bin/bash
# A second user on a node of the job: while mwuser1's job runs on n1-n2,
# mwuser2 on n1 cannot read the job's run folder (slots, dumps, pid files),
# cannot make nodehealthd drain a node of the job (neither a live one nor
# any other), and the job is unharmed.  (Talking to the job's collector:
# t/0410-collector-auth.t.)
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"

plan no_plan
lab_require 2
prog=$(lab_prog openmpi col_steady)
mw=$MW_LAB_REPO/build/bin/mpiwatch
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"

jid=$(lab_sbatch mwuser1 -N2 -n4 -w "n[1-2]" --mpiwatch=timeout=2 -o "$dir/job.out" \
    --wrap "srun --mpi=pmix $prog 25; echo srun-exit=\$?")
like "$jid" '^[0-9]+$' "a job of mwuser1 on n1-n2 submitted"
tap_cleanup "scancel $jid 2>/dev/null"
wait_for 120 "test \$(col_connected '$dir' $jid n1) -ge 2"
wait_for 60 "grep -q 'steady: running' '$dir/job.out'"
rd=$(lab_exec n1 sh -c "ls -d /dev/shm/mpiwatch.2901.$jid.n1 2>/dev/null")
is "$rd" "/dev/shm/mpiwatch.2901.$jid.n1" "the job's run folder on n1"
is "$(lab_exec n1 stat -c '%U %a' "$rd")" "mwuser1 700" "it is mwuser1's, mode 0700"
like "$(lab_exec n1 ls "$rd" 2>&1)" "rank-0" "it holds the ranks' slots (rank-N)"
out=$(lab_exec -u mwuser2 n1 ls "$rd" 2>&1)
isnt $? 0 "mwuser2 on n1 cannot list it"
like "$out" "Permission denied" "ls: Permission denied"
slot=rank-0
out=$(lab_exec -u mwuser2 n1 cat "$rd/$slot" 2>&1 | head -c 200)
like "$out" "Permission denied" "mwuser2 cannot read a slot ($slot)"
out=$(lab_exec -u mwuser2 n1 "$mw" drain "$jid" n2 2>&1)
isnt $? 0 "mwuser2's drain request for n2 (in mwuser1's job) fails"
like "$out" "does not own job $jid" "nodehealthd says mwuser2 does not own the job"
out=$(lab_exec -u mwuser1 n1 "$mw" drain "$jid" n2 2>&1)
isnt $? 0 "even mwuser1 cannot drain n2: it is alive"
like "$out" "answered our probe" "nodehealthd probed n2 and found it alive"
out=$(lab_exec -u mwuser1 n1 "$mw" drain "$jid" n3 2>&1)
isnt $? 0 "mwuser1 cannot drain n3, outside the job"
like "$out" "not part of job $jid" "nodehealthd says n3 is not part of the job"
is "$(lab_reasoned_nodes)" "" "no node is drained"
st=$(lab_job_wait "$jid" 120)
is "$st" COMPLETED "the job completes"
like "$(cat "$dir/job.out")" "steady done" "with its own output"
like "$(cat "$dir/job.out")" "srun-exit=0" "and srun exits 0"
done_testing
