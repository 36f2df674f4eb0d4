#!/bin/bash
# The Grafana dashboard (etc/grafana/mpiwatch-dashboard.json) loads: Debian
# has no Grafana, so it is checked against what Grafana needs to load a
# dashboard, written down as a JSON schema (t/data/grafana-dashboard.schema.json,
# python3-jsonschema): a uid, panels with a grid position, a Prometheus data
# source and targets with a PromQL expr.  Beyond the schema: panel ids are
# unique, panels do not overlap, every data source is the dashboard's
# variable, every query names mpiwatch's metrics only, each metric the
# issue asks for is shown (cluster-wide and per node), and the node
# variable is used.  A schema that refuses a broken dashboard shows the
# check checks.  No lab needed.
. "$(dirname "$0")/lib/tap.sh"

plan 11
R=$(cd "$(dirname "$0")/.." && pwd)
dash=$R/etc/grafana/mpiwatch-dashboard.json
schema=$R/t/data/grafana-dashboard.schema.json
python3 -c 'import jsonschema' 2>/dev/null || BAIL_OUT "python3-jsonschema missing (make deps)"
tmp=$(mktemp -d /tmp/t0737.XXXXXX)
tap_cleanup "rm -rf '$tmp'"

# check DASHBOARD: the schema's verdict ("valid" or the first error).
check() {
    python3 - "$schema" "$1" <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft7Validator.check_schema(schema)
try:
    jsonschema.validate(json.load(open(sys.argv[2])), schema, cls=jsonschema.Draft7Validator)
    print("valid")
except jsonschema.ValidationError as e:
    print("invalid: %s at %s" % (e.message, "/".join(str(p) for p in e.absolute_path)))
PY
}
# py EXPR: EXPR on the dashboard d (its panels p, without rows; its exprs ex).
py() {
    python3 - "$dash" "$1" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
p = [x for x in d["panels"] if x["type"] != "row"]
ex = [t["expr"] for x in p for t in x["targets"]]
KW = {"sum", "rate", "increase", "count", "avg", "min", "max", "by", "without", "and", "or", "unless"}
def metrics(e):
    """The metric names in the PromQL e: what is left of its identifiers
    once label matchers, ranges, groupings and functions are taken out."""
    e = re.sub(r"\{[^}]*\}|\[[^\]]*\]|\b(by|without)\s*\([^)]*\)", " ", e)
    return [t for t in re.findall(r"[A-Za-z_:][A-Za-z0-9_:]*", e) if t not in KW]
print(eval(sys.argv[2]))
PY
}

ok_cmd "the dashboard is JSON" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$dash"
is "$(check "$dash")" valid "it is valid against the schema of what Grafana needs"
is "$(py 'len(set(x["id"] for x in d["panels"])) == len(d["panels"])')" True "panel ids are unique"
is "$(py '[(a["title"], b["title"]) for i, a in enumerate(d["panels"]) for b in d["panels"][i+1:] if a["gridPos"]["x"] < b["gridPos"]["x"] + b["gridPos"]["w"] and b["gridPos"]["x"] < a["gridPos"]["x"] + a["gridPos"]["w"] and a["gridPos"]["y"] < b["gridPos"]["y"] + b["gridPos"]["h"] and b["gridPos"]["y"] < a["gridPos"]["y"] + a["gridPos"]["h"]]')" "[]" \
    "no two panels overlap on the grid"
is "$(py 'sorted(set([x["datasource"]["uid"] for x in p] + [t["datasource"]["uid"] for x in p for t in x["targets"]]))')" "['\${DS_PROMETHEUS}']" \
    "every panel and query uses the dashboard's Prometheus data source variable"
is "$(py '[v["name"] for v in d["templating"]["list"]]')" "['DS_PROMETHEUS', 'instance']" "variables: the data source and the node (instance)"
is "$(py 'sorted(set(m for e in ex for m in metrics(e) if not m.startswith("mpiwatch_")))')" "[]" \
    "every query names mpiwatch_ metrics only"
want="mpiwatch_calibration_degraded mpiwatch_calibration_interval_seconds mpiwatch_calibration_resolution_seconds mpiwatch_drain_requests_total mpiwatch_health_check_ok mpiwatch_jobs_watched_total mpiwatch_probes_answered_total mpiwatch_probes_dropped_total mpiwatch_probes_rate_limited_total mpiwatch_verdicts_total"
is "$(py '" ".join(sorted(set(m for e in ex for m in metrics(e))))')" "$want" \
    "the issue's metrics are all shown: probes, drains, health checks, calibration, jobs, verdicts"
is "$(py 'sorted(set(m for x in p if any("$instance" in t["expr"] for t in x["targets"]) for t in x["targets"] for m in metrics(t["expr"])))')" \
    "$(python3 -c 'import sys; print(sorted(sys.argv[1].split()))' "$want")" "... and each of them per node (the node variable)"
# The metric names are nodehealthd's table (nodehealthd/nhd_metrics.c):
# every name the dashboard queries must be one the daemon writes.
missing=$(for m in $want; do grep -q "\"$m\"\|\"${m#mpiwatch_}\"" "$R/nodehealthd/nhd_metrics.c" || echo "$m"; done | tr '\n' ' ')
is "$missing" "" "every metric the dashboard queries is in nodehealthd's table (nhd_metrics.c)"
# The check checks: a dashboard without a query's expr is refused.
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); del [x for x in d["panels"] if x["type"]!="row"][3]["targets"][0]["expr"]; json.dump(d, open(sys.argv[2], "w"))' "$dash" "$tmp/bad.json"
like "$(check "$tmp/bad.json")" "^invalid: 'expr' is a required property" "a dashboard with a query without expr is refused by the schema"

done_testing
