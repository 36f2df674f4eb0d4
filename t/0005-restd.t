#!/bin/bash
# slurmrestd on the lab (t/lab/start --restd): runs as the non-root user
# mwrest with JWT auth on the bridge address; a job's user gets a token with
# `scontrol token` and sets the job's comment with
# POST /slurm/v0.0.38/job/{id} from inside a node namespace; other users and
# requests without a valid token are refused.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/lab.sh"

plan 13
lab_require 3 --restd

like "${MW_LAB_RESTD_URL:-}" "^http://$MW_LAB_CTL_ADDR:[0-9]+\$" "MW_LAB_RESTD_URL is set in t/lab/env"
pid=$(cat "$MW_LAB_DIR/ctld/slurmrestd.pid" 2>/dev/null)
is "$(ps -o user= -p "${pid:-0}" 2>/dev/null | tr -d ' ')" mwrest "slurmrestd runs as the non-root user mwrest"
like "$(ps -o args= -p "${pid:-0}")" 'rest_auth/jwt' "slurmrestd uses rest_auth/jwt"

tok1=$(lab_as mwuser1 scontrol token lifespan=600 2>&1)
like "$tok1" '^SLURM_JWT=[A-Za-z0-9_.-]+$' "scontrol token works for a job user"
tok1=${tok1#SLURM_JWT=}
tok2=$(lab_as mwuser2 scontrol token lifespan=600 2>&1)
tok2=${tok2#SLURM_JWT=}

id=$(lab_sbatch mwuser1 -N1 -n1 -o /dev/null --wrap "sleep 3000")
like "$id" '^[0-9]+$' "a job of mwuser1 submitted"
tap_cleanup "scancel $id"

# post NODE USER TOKEN COMMENT: POST the comment from inside NODE; print
# "HTTP <code>" and the body.
post() {
    lab_exec "$1" curl -s -m 60 -w '\nHTTP %{http_code}\n' -X POST \
        -H "X-SLURM-USER-NAME: $2" -H "X-SLURM-USER-TOKEN: $3" \
        -H 'Content-Type: application/json' -d "{\"comment\": \"$4\"}" \
        "$MW_LAB_RESTD_URL/slurm/v0.0.38/job/$id"
}

out=$(post n2 mwuser1 "$tok1" "mpiwatch: hello from n2")
like "$out" 'HTTP 200' "POST job/$id with comment as the job's user, from n2: HTTP 200"
like "$(tr -d ' \n' <<<"$out")" '"errors":\[\]' "the reply has no errors"
like "$(scontrol -o show job "$id")" 'Comment=mpiwatch: hello from n2' "scontrol shows the new comment"

out=$(post n3 mwuser2 "$tok2" "not yours")
unlike "$out" 'HTTP 200' "another user's POST is refused ($(tail -n1 <<<"$out"))"
like "$out" 'Invalid user id' "with 'Invalid user id'"
out=$(post n3 mwuser1 "$tok2" "forged")
unlike "$out" 'HTTP 200' "a token of another user is refused ($(tail -n1 <<<"$out"))"
out=$(lab_exec n3 curl -s -m 60 -w '\nHTTP %{http_code}\n' -X POST -H 'Content-Type: application/json' \
    -d '{"comment": "anonymous"}' "$MW_LAB_RESTD_URL/slurm/v0.0.38/job/$id")
like "$out" 'HTTP 401' "a request without a token gets 401"
like "$(scontrol -o show job "$id")" 'Comment=mpiwatch: hello from n2' "the comment is unchanged by the refused requests"

done_testing
