#!/usr/bin/env bash
# Issue 16 point 3: a rerun page keeps the run's own observation date and
# lists each controlled rerun with its own date (the rerun manifest's
# observedAt), outcome and figures, in kix show (text and --json) and in
# the pages kixd --http serves (HTML and JSON), against a real kixd.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"

new_origin "$WORK/o"
"$KIX" keygen --name reruns --out "$WORK/rerun" >/dev/null 2>&1
"$KIX" key add --store "$WORK/o" --key "$WORK/o/admin.key" --role rerun "$WORK/rerun.pub" >/dev/null
HPORT=$(free_port)
H="http://127.0.0.1:$HPORT"
serve o --http "tcp://127.0.0.1:$HPORT"
export KIX_SERVER=$(addr o) KIX_LOG_KEY="$(cat "$WORK/vkey")"

# valid records (kix new run), a second environment for the reruns
"$KIX" new run --kernel rope --gpu "NVIDIA A100" "$WORK/m" >/dev/null || fail "kix new run"
fill_bundle "$WORK/m"
mv "$WORK/m/environment.json" "$WORK/m/env1.json"
python3 - "$WORK/m/env1.json" "$WORK/m/env2.json" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))
e["spec"]["notes"] = "the rerun host"
json.dump(e, open(sys.argv[2], "w"))
PY
# run.json and the reruns name their references by file (publish fills the digests)
run() { # FILE OBSERVED MEDIAN P20 P80 ENV
  printf '{"apiVersion":"kernelindex.dev/v1alpha1","kind":"BenchmarkRun","metadata":{"name":"rope"},"spec":{"status":"passed","observedAt":"%s","timing":{"latencyNs":{"median":%s}},"measurements":[{"metric":"latency","statistic":"p20","unit":"ns","value":%s},{"metric":"latency","statistic":"p80","unit":"ns","value":%s}],"sourceNative":{"source":"test","benchmark":"rope/forward"},"workloadDigest":"workload.json","protocolDigest":"protocol.json","environmentDigest":"%s"}}' \
    "$2" "$3" "$4" "$5" "$6" >"$WORK/m/$1"
}
run run.json 2024-09-03T15:39:55Z 11360 10336 11456 env1.json
run rerun1.json 2026-10-01T08:00:00Z 11400 10400 11500 env2.json
run rerun2.json 2026-11-30T12:00:00Z 15000 14000 16000 env2.json

"$KIX" publish --key "$WORK/pub.key" --run-id rope-1 "$WORK/m/run.json" --json >"$WORK/pub.json" ||
  fail "publish with file-named references"
"$KIX" rerun --key "$WORK/rerun.key" --outcome reproduced rope-1 "$WORK/m/rerun1.json" >/dev/null ||
  fail "first rerun"
"$KIX" rerun --key "$WORK/rerun.key" --outcome not_reproduced rope-1 "$WORK/m/rerun2.json" >/dev/null ||
  fail "second rerun"

"$KIX" show rope-1 >"$WORK/show.txt" || fail "kix show"
grep -q 'observed 2024-09-03' "$WORK/show.txt" || fail "the rank line lost the run's own date: $(cat "$WORK/show.txt")"
grep -q 'Observed 2024-09-03; last re-observed 2026-11-30 by a controlled rerun' "$WORK/show.txt" ||
  fail "evidence dates: $(grep -A1 '^Evidence' "$WORK/show.txt")"
grep -q '#[0-9]* observed 2026-10-01 · reproduced · status passed · 11.4 µs median · p20 10.4 µs · p80 11.5 µs' \
  "$WORK/show.txt" || fail "first rerun row: $(grep -A6 '^Controlled reruns' "$WORK/show.txt")"
grep -q '#[0-9]* observed 2026-11-30 · not_reproduced · status passed · 15.0 µs median · p20 14.0 µs · p80 16.0 µs' \
  "$WORK/show.txt" || fail "second rerun row: $(grep -A6 '^Controlled reruns' "$WORK/show.txt")"
pass "kix show: the run's date kept, each rerun with its date, outcome and figures"

"$KIX" show rope-1 --json >"$WORK/show.json" || fail "kix show --json"
python3 - "$WORK/show.json" <<'PY' || fail "show --json: $(head -c 800 "$WORK/show.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["observedAt"] == "2024-09-03T15:39:55Z", d["observedAt"]
r = d["reruns"]
assert [x["observedAt"] for x in r] == ["2026-10-01T08:00:00Z", "2026-11-30T12:00:00Z"], r
assert [x["outcome"] for x in r] == ["reproduced", "not_reproduced"]
assert r[1]["primary"] == {"metric": "latency", "unit": "ns", "median": 15000, "p20": 14000, "p80": 16000}
assert d["evidence"] == "not_reproduced"
assert d["manifest"]["spec"]["observedAt"] == "2024-09-03T15:39:55Z"
PY
pass "kix show --json: observedAt, reruns with dates, outcomes, figures"

# the rerun entries are dated by their manifests, not by when they were signed
"$KIX" resolve rope-1 --json >"$WORK/res.json" || fail "resolve"
for i in $(python3 -c 'import json,sys; print(" ".join(str(e["index"]) for e in json.load(open(sys.argv[1]))["entries"] if e["type"]=="rerun"))' "$WORK/res.json"); do
  "$KIX" entry "$i" >"$WORK/e$i" || fail "kix entry $i"
  python3 - "$WORK/e$i" <<'PY' || fail "rerun entry $i is not dated by its manifest"
import json, sys, base64
env = json.load(open(sys.argv[1]))
p = json.loads(base64.b64decode(env["payload"]))["predicate"]
assert p["observedAt"] in ("2026-10-01T08:00:00Z", "2026-11-30T12:00:00Z"), p
PY
done
pass "rerun predicates carry the rerun manifest's observedAt"

curl -sf "$H/runs/rope-1" -o "$WORK/page.html" || fail "GET /runs/rope-1"
for want in '<span data-kix-slot="observed" id="observed">2024-09-03</span>' '<h2>Controlled reruns</h2>' \
  '<td>2026-10-01</td><td>reproduced</td><td>11.4 µs</td><td>key ' \
  '<td>2026-11-30</td><td>not_reproduced</td><td>15.0 µs</td><td>key '; do
  grep -qF "$want" "$WORK/page.html" || fail "the run page lacks: $want"
done
curl -sf "$H/runs/rope-1.json" -o "$WORK/page.json" || fail "GET /runs/rope-1.json"
python3 - "$WORK/page.json" <<'PY' || fail "page JSON: $(head -c 800 "$WORK/page.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["observedAt"] == "2024-09-03T15:39:55Z"
assert "rerunList" not in d
l = d["reruns"]
assert len(l) == 2
assert [x["observedAt"] for x in l] == ["2026-10-01T08:00:00Z", "2026-11-30T12:00:00Z"], l
assert l[0]["primary"] == {"metric": "latency", "unit": "ns", "median": 11400, "p20": 10400, "p80": 11500}
assert [x["outcome"] for x in l] == ["reproduced", "not_reproduced"]
PY
pass "run page (HTML and JSON): the run's date and each rerun's date, outcome and figures"
