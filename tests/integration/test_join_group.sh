#!/usr/bin/env bash
# Issue 27 point 2: a publisher puts a new implementation next to an
# imported Liger comparison, from the tools alone. kix new run --like RUN
# (and --group KEY) writes a bundle that reuses the group's workload,
# protocol and environment by digest; after filling in the figures and the
# implementation, kix publish ranks it in that group: "Rank k of 3". A run
# in no group, a group the log does not have, and mixing --like with
# --kernel are refused.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"

new_origin "$WORK/o"
serve o
export KIX_SERVER=$(addr o) KIX_LOG_KEY="$(cat "$WORK/vkey")"
"$KIX_BIN/kix-import-liger" --key "$WORK/pub.key" "$KIX_SRC/tools/samples/liger/sample.csv" \
  >/dev/null 2>"$WORK/import.err" || fail "import: $(tail -3 "$WORK/import.err")"

# a group of two (Liger and Hugging Face, rope on an A100)
"$KIX" query --kernel rope --limit 1000 --json >"$WORK/q.json" || fail "kix query"
read -r LIKE GROUP < <(python3 - "$WORK/q.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["runs"]:
    if r["groupSize"] == 2 and r["rank"] == 2:
        print(r["runId"], r["group"]); break
PY
)
[ -n "$LIKE" ] || fail "no group of two among: $(head -c 600 "$WORK/q.json")"

"$KIX" new run --like "$LIKE" --provider mykern --repository https://example.org/mykern \
  --revision v1 --json "$WORK/b" >"$WORK/new.json" || fail "kix new run --like: $(cat "$WORK/err" 2>/dev/null)"
[ "$(json_get "$WORK/new.json" 'd["group"]')" = "$GROUP" ] || fail "--like names another group: $(cat "$WORK/new.json")"
[ "$(json_get "$WORK/new.json" 'd["groupSize"]')" = 2 ] || fail "group size: $(cat "$WORK/new.json")"
[ ! -e "$WORK/b/workload.json" ] || fail "--like wrote a workload of its own"
python3 - "$WORK/b/run.json" <<'PY' || fail "run.json does not reuse the group's objects: $(cat "$WORK/b/run.json")"
import json, sys
s = json.load(open(sys.argv[1]))["spec"]
for k in ("workloadDigest", "protocolDigest", "environmentDigest"):
    assert s[k].startswith("sha256:"), k
assert s["implementationDigest"] == "implementation.json"
assert s["sourceNative"]["benchmark"].startswith("rope/"), s["sourceNative"]
PY
# unedited, the bundle is refused as the template is
expect_status 1 "$KIX" publish --dry-run "$WORK/b/run.json"
grep -q "/metadata/labels/kix-template" "$WORK/out" || fail "dry run of an unedited --like bundle: $(cat "$WORK/out")"
pass "kix new run --like: run.json reuses the group's workload, protocol and environment by digest"

# the publisher fills in the figures (a median between the two Liger rows' own)
python3 - "$WORK/b/run.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
run["spec"]["timing"]["latencyNs"]["median"] = 9000
run["spec"]["measurements"][0]["value"] = 8800
run["spec"]["measurements"][1]["value"] = 9300
del run["metadata"]["labels"]
json.dump(run, open(sys.argv[1], "w"), indent=2)
PY
# the dry run looks the reused objects up in the log ($KIX_SERVER): all there
expect_status 0 "$KIX" publish --dry-run "$WORK/b/run.json"
! grep -q "warning" "$WORK/out" || fail "dry run against the log: $(cat "$WORK/out")"
expect_status 0 env -u KIX_SERVER "$KIX" publish --dry-run "$WORK/b/run.json"
grep -q "warning: /spec/workloadDigest: names no file of the bundle; not checked against a log" "$WORK/out" ||
  fail "offline dry run: $(cat "$WORK/out")"
"$KIX" publish --key "$WORK/pub.key" --json "$WORK/b/run.json" >"$WORK/pub.json" 2>"$WORK/pub.err" ||
  fail "publish: $(cat "$WORK/pub.err")"
RID=$(json_get "$WORK/pub.json" 'd["runId"]')
"$KIX" show "$RID" >"$WORK/show.txt" || fail "kix show"
grep -q "Rank [123] of 3 in its comparison group" "$WORK/show.txt" || fail "not in the group: $(grep -i rank "$WORK/show.txt")"
"$KIX" show --json "$RID" >"$WORK/show.json"
[ "$(json_get "$WORK/show.json" 'd["rank"]["groupSize"]')" = 3 ] || fail "group size after joining"
pass "the new implementation is ranked beside the imported Liger runs: $(grep -o 'Rank [0-9]* of 3' "$WORK/show.txt")"

# --group KEY: the same group, by its key
"$KIX" new run --group "$GROUP" --provider other --json "$WORK/g" >"$WORK/g.json" || fail "kix new run --group"
[ "$(json_get "$WORK/g.json" 'd["groupSize"]')" = 3 ] || fail "--group: $(cat "$WORK/g.json")"
python3 - "$WORK/b/run.json" "$WORK/g/run.json" <<'PY' || fail "--group and --like disagree"
import json, sys
a, b = (json.load(open(p))["spec"] for p in sys.argv[1:])
for k in ("workloadDigest", "protocolDigest", "environmentDigest"):
    assert a[k] == b[k], k
PY
pass "kix new run --group KEY joins the same group"

expect_status 1 "$KIX" new run --group "sha256:$(printf '0%.0s' $(seq 64))" "$WORK/none"
grep -q "ranks no run in the comparison group" "$WORK/err" || fail "unknown group: $(cat "$WORK/err")"
expect_status 2 "$KIX" new run --like "$LIKE" --kernel rope "$WORK/mixed"
expect_status 2 "$KIX" new run --like "$LIKE" --group "$GROUP" "$WORK/both"
pass "an unknown group, and --like mixed with --kernel or --group, are refused"

# issue 27 point 3: references checked against a log, every error reported
ZERO="sha256:$(printf '0%.0s' $(seq 64))"
"$KIX" get "$(json_get "$WORK/pub.json" 'd["digest"]')" >"$WORK/m.json" || fail "kix get"
python3 - "$WORK/m.json" "$WORK/bad.json" "$ZERO" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["spec"]["protocolDigest"] = sys.argv[3]                         # names nothing
m["spec"]["workloadDigest"] = m["spec"]["environmentDigest"]      # names the wrong kind
m["spec"]["timing"]["latencyNs"]["median"] = 0                    # and a rule broken
json.dump(m, open(sys.argv[2], "w"))
PY
expect_status 1 "$KIX" validate "$WORK/bad.json"
[ "$(grep -c invalid "$WORK/out")" = 2 ] || fail "offline, only the rules can be checked: $(cat "$WORK/out")"
expect_status 1 "$KIX" validate --server "$KIX_SERVER" "$WORK/bad.json"
grep -q "invalid: /spec/protocolDigest: $ZERO resolves to nothing: neither a file given nor an object stored in" "$WORK/out" ||
  fail "validate --server, a digest naming nothing: $(cat "$WORK/out")"
grep -q "invalid: /spec/workloadDigest: must name a Workload, but the log's sha256:.* is an ExecutionEnvironment" "$WORK/out" ||
  fail "validate --server, the wrong kind: $(cat "$WORK/out")"
grep -q "invalid: /spec/timing/latencyNs/median: must be above 0" "$WORK/out" || fail "validate --server, the rule: $(cat "$WORK/out")"
expect_status 1 "$KIX" publish --dry-run "$WORK/bad.json"
grep -q "/spec/protocolDigest: $ZERO resolves to nothing" "$WORK/out" || fail "dry run: $(cat "$WORK/out")"
pass "kix validate --server and publish --dry-run check every reference against the log, reporting every error"
