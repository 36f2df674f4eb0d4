#!/bin/bash
# Fault: the report folder's file system fills up during the job.  The job
# is not harmed (it runs, is cancelled, and its own output is there); the
# verdict still reaches Slurm (the job's comment); once space is back the
# collector's final report is written whole: nothing is lost.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"
. "$(dirname "$0")/lib/collector.sh"

plan no_plan
lab_require 2
prog=$(lab_prog openmpi col_deadlock)
coll=$MW_LAB_REPO/build/bin/mpiwatch-collector
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"
fs=/tmp/mwfull.$$
# A small file system of its own on n1 (the collector's node).
lab_exec n1 sh -c "mkdir -p $fs && mount -t tmpfs -o size=2m,mode=1777 mwfull $fs"
ok $? "a 2 MiB file system at $fs on n1"
tap_cleanup "lab_exec n1 sh -c 'umount $fs; rmdir $fs' 2>/dev/null"

jid=$(lab_sbatch mwuser1 -N2 -n4 -w "n[1-2]" --mpiwatch=timeout=5,dir=$fs/report -o "$dir/job.out" \
    --wrap "srun --mpi=pmix $prog; echo srun-exit=\$?")
like "$jid" '^[0-9]+$' "a deadlocking job with its report folder on that file system"
tap_cleanup "scancel $jid 2>/dev/null"
wait_for 60 "lab_exec n1 test -f $fs/report/report.json"
ok_cmd "the collector wrote its first report" lab_exec n1 test -s $fs/report/report.json
lab_exec n1 sh -c "dd if=/dev/zero of=$fs/fill bs=64k 2>/dev/null; sync"
like "$(lab_exec n1 df -k $fs | tail -n1)" " 100% " "the file system is full"

wait_for 120 "scontrol show job $jid | grep -q 'Comment=mpiwatch: software'"
like "$(scontrol show job "$jid")" "Comment=mpiwatch: software failure: deadlock" \
    "the verdict reaches Slurm though the report cannot be written"
is "$(lab_job_state "$jid")" RUNNING "the job is not harmed (action=report leaves it running)"
lab_exec n1 rm -f $fs/fill
ok $? "space is back"
scancel "$jid"
lab_job_wait "$jid" 120 >/dev/null
wait_for 60 "lab_exec n1 grep -q '\"event\": *\"shutdown\"' $fs/report/report.json"
rep=$(lab_exec n1 cat $fs/report/report.json)
echo "$rep" >"$dir/report.json"
is "$(jv "$dir/report.json" 'd["verdict"]')" software "the final report is written whole: verdict software"
ok_cmd "it is valid against the schema" "$coll" --check-report "$dir/report.json" --schema "$MW_LAB_REPO/doc/schemas/report.schema.json"
is "$(jv "$dir/report.json" 'd["deadlock"]["found"]')" True "with the deadlock found"
like "$(lab_exec n1 cat $fs/report/logs/mpiwatch-collector-n1.log)" "cannot write the report" \
    "the collector's log says it could not write the report meanwhile"
done_testing
