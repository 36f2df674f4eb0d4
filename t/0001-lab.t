#!/bin/bash
# The lab itself: nodes idle, one hostname per node, private /tmp,
# /run/mpiwatch and /etc/hosts per node, jobs run as the submitting user.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"

plan 15
lab_require 3

n=$MW_LAB_N
is "$(sinfo -h -p lab -o '%t %D')" "idle $n" "all $n lab nodes idle in Slurm"

names=
for node in $MW_LAB_NODE_LIST; do names="$names $(lab_exec "$node" hostname)"; done
is "$names" " $MW_LAB_NODE_LIST" "each node namespace has its own hostname"
is "$(lab_as mwuser1 srun -N"$n" -n"$n" hostname | sort -V | tr '\n' ' ')" "$MW_LAB_NODE_LIST " \
    "srun -N$n runs one task on each node, with that node's hostname"
is "$(lab_as mwuser1 srun -N1 -n1 id -un)" mwuser1 "a job runs as the user who submitted it"

mark=lab-test-$$-$RANDOM
lab_exec n1 sh -c "echo $mark > /tmp/$mark"
ok $? "a file written to /tmp on n1"
is "$(lab_exec n1 cat /tmp/$mark)" "$mark" "is seen in /tmp on n1"
nok_cmd "is not seen in /tmp on n2" lab_exec n2 test -e /tmp/$mark
nok_cmd "is not seen in the root namespace's /tmp" test -e /tmp/$mark
nok_cmd "is not seen by a job on n2 (srun -w n2)" lab_as mwuser1 srun -w n2 -N1 -n1 test -e /tmp/$mark
lab_exec n1 rm -f /tmp/$mark

lab_exec n2 sh -c "echo $mark > /run/mpiwatch/$mark"
nok_cmd "/run/mpiwatch is private to each node" lab_exec n1 test -e /run/mpiwatch/$mark
lab_exec n2 rm -f /run/mpiwatch/$mark

is "$(lab_exec n1 getent hosts n2 | awk '{print $1}')" "$MW_LAB_ADDR_n2" "n1 resolves n2 to its lab address"
is "$(lab_exec n3 ip -o -4 addr show dev eth0 | awk '{print $4}')" "$MW_LAB_ADDR_n3/24" \
    "n3 has its own network namespace with its lab address"
like "$(lab_exec n3 timeout 30 scontrol ping 2>&1)" "is UP" "scontrol ping from inside n3 reaches slurmctld"

# lab_tmpdir is called as d=$(lab_tmpdir USER): a subshell.  The folder it made
# must still be removed when the test that asked for it ends.
d=$(bash -c '. "$1/lib/tap.sh"; . "$1/lib/lab.sh"; d=$(lab_tmpdir mwuser1); echo "$d"; exec >/dev/null 2>&1' _ "$(cd "$(dirname "$0")" && pwd)" | head -n1)
case $d in "$MW_LAB_DIR"/work/mwuser1/t.*) ok 0 "lab_tmpdir made a folder under the lab's work dir";; *) ok 1 "lab_tmpdir made a folder under the lab's work dir (got '$d')";; esac
nok_cmd "a folder lab_tmpdir made inside \$(...) is removed when its test ends" test -e "$d"

done_testing
