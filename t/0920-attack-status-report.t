#!/bin/bash
# Issue 30, item 9 (the reading side of "mpiwatch status --job"): the job's
# report.json is in the job user's folder, and root (an admin) runs "mpiwatch
# status --job JOB" on it.  The user makes report.json a symbolic link to a
# root-only file (/etc/shadow, a root-only JSON file), makes the report
# folder itself a link to a root-only folder, or makes report.json a FIFO.
# Root's status must show nothing of the root-only files, must not hang on the
# FIFO (run under "timeout 10": exit status not 124), and must say clearly why
# it shows no report (exit status not 0).  A plain report.json is still shown.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"

plan no_plan
lab_require 2
mw=$MW_LAB_REPO/build/bin/mpiwatch
dir=$(lab_tmpdir mwuser1)
cd "$dir" || BAIL_OUT "cd $dir"

jid=$(lab_sbatch mwuser1 -N1 -n1 -D "$dir" -o /dev/null --wrap "sleep 300")
like "$jid" '^[0-9]+$' "a job of mwuser1 submitted (its working directory holds its report folder)"
tap_cleanup "scancel $jid 2>/dev/null"
out=$dir/mpiwatch-$jid

# A root-only JSON file, e.g. another job's report that only root may read.
secret=$(mktemp -d "$MW_LAB_DIR/secret.XXXXXX")
tap_cleanup "rm -rf '$secret'"
chmod 0700 "$secret"
echo '{"verdict":"ROOT-ONLY-SECRET-4711","confirmed":true}' >"$secret/report.json"
chmod 0600 "$secret/report.json"
shadow1=$(head -n1 /etc/shadow)

# status --job as root, bounded: "RC OUTPUT"
status() { local o rc; o=$(timeout 10 "$mw" status --job "$jid" "$@" 2>&1); rc=$?; echo "$rc $o"; }

lab_as mwuser1 mkdir "$out"
lab_as mwuser1 ln -s /etc/shadow "$out/report.json"
for j in "" -j; do
    r=$(status $j)
    unlike "$r" "${shadow1%%:*}:" "status --job $j: report.json -> /etc/shadow: none of it is shown"
    like "$r" "^[1-9]" "status --job $j: exits non-zero"
    like "$r" "report.json.*(symbolic link|not a regular file|cannot read)" "status --job $j: says why"
done

lab_as mwuser1 ln -sfn "$secret/report.json" "$out/report.json"
for j in "" -j; do
    r=$(status $j)
    unlike "$r" "ROOT-ONLY-SECRET" "status --job $j: report.json -> a root-only JSON file: not shown"
    like "$r" "^[1-9]" "status --job $j: report.json -> a root-only file: exits non-zero"
done

lab_as mwuser1 rm -rf "$out"
lab_as mwuser1 ln -s "$secret" "$out"
r=$(status -j)
unlike "$r" "ROOT-ONLY-SECRET" "status --job: the report folder -> a root-only folder: not shown"
like "$r" "^[1-9]" "status --job: the report folder -> a root-only folder: exits non-zero"

lab_as mwuser1 rm -f "$out"
lab_as mwuser1 mkdir "$out"
lab_as mwuser1 mkfifo "$out/report.json"
r=$(status)
rc=${r%% *}
isnt "$rc" 124 "status --job: report.json a FIFO: no hang (timeout 10 did not fire)"
like "$rc" '^[1-9]' "status --job: report.json a FIFO: exits non-zero"
like "$r" "report.json.*not a regular file" "status --job: report.json a FIFO: a clear message"

lab_as mwuser1 rm -f "$out/report.json"
lab_as mwuser1 sh -c "echo '{\"verdict\":\"none\",\"confirmed\":false}' >'$out/report.json'"
r=$(status -j)
like "$r" '^0 .*"verdict":"none"' "status --job -j: the user's own plain report.json is shown"

done_testing
