#!/usr/bin/env bash
# Issue 16 point 3: a manifest already published under one run id is
# refused under another, and the error points at --new-run; with --new-run
# the new measurement is a manifest of its own (metadata.runId), published,
# ranked beside the first, and resolvable by its own digest.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"

new_origin "$WORK/o"
serve o
export KIX_SERVER=$(addr o) KIX_LOG_KEY="$(cat "$WORK/vkey")"
# a comparable run: benchmark, workload, protocol, environment, implementation
# (kix new run: valid records, referenced by file name)
"$KIX" new run --kernel rope --gpu "NVIDIA A100" "$WORK/m" >/dev/null || fail "kix new run"
fill_bundle "$WORK/m"
python3 - "$WORK/m/run.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
run["spec"]["timing"]["latencyNs"]["median"] = 11007
json.dump(run, open(sys.argv[1], "w"))
PY
"$KIX" publish --key "$WORK/pub.key" --run-id first "$WORK/m/run.json" "$WORK/m/workload.json" \
  --json >"$WORK/p1.json" || fail "first publication"
D1=$(json_get "$WORK/p1.json" 'd["digest"]')
SIZE=$("$KIX" info | awk '$1 == "size" { print $2 }')

expect_status 1 "$KIX" publish --key "$WORK/pub.key" --run-id second "$WORK/m/run.json" "$WORK/m/workload.json"
grep -q "is already published as run first" "$WORK/err" || fail "refusal: $(cat "$WORK/err")"
grep -q -- "--new-run" "$WORK/err" || fail "the refusal does not name --new-run: $(cat "$WORK/err")"
[ "$("$KIX" info | awk '$1 == "size" { print $2 }')" = "$SIZE" ] || fail "the refused publication changed the log"
pass "the same manifest under a second run id is refused, pointing at --new-run, nothing stored"

# kix show: the title line first (no stray line before it), and no empty
# field between separators where the entry names no source
"$KIX" show first >"$WORK/show.txt" || fail "kix show first"
head -n 1 "$WORK/show.txt" | grep -q " · run first$" || fail "kix show's first line: $(head -n 2 "$WORK/show.txt")"
grep -q "^Published [0-9-]* · license not stated$" "$WORK/show.txt" ||
  fail "kix show's Published line: $(grep Published "$WORK/show.txt")"
! grep -q "·  ·" "$WORK/show.txt" || fail "kix show has an empty field: $(grep "·  ·" "$WORK/show.txt")"
pass "kix show: the title line first, no empty field in the Published line"

"$KIX" publish --key "$WORK/pub.key" --run-id second --new-run "$WORK/m/run.json" "$WORK/m/workload.json" \
  --json >"$WORK/p2.json" || fail "publish --new-run"
D2=$(json_get "$WORK/p2.json" 'd["digest"]')
[ "$D1" != "$D2" ] || fail "--new-run kept the digest"
"$KIX" get "$D2" >"$WORK/m2.json" || fail "kix get the new manifest"
"$KIX" get "$D1" >"$WORK/m1.json" || fail "kix get the first manifest"
python3 - "$WORK/m1.json" "$WORK/m2.json" <<'PY' || fail "the --new-run manifest is not the first plus metadata.runId"
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert b["metadata"].pop("runId") == "second", b.get("metadata")
assert a == b
assert a["spec"]["workloadDigest"].startswith("sha256:")
PY
"$KIX" resolve "$D2" --json >"$WORK/r2.json" || fail "resolve the new digest"
[ "$(json_get "$WORK/r2.json" 'd["runId"]')" = second ] || fail "the new digest resolves to $(json_get "$WORK/r2.json" 'd["runId"]')"
"$KIX" resolve "$D1" --json >"$WORK/r1.json" || fail "resolve the first digest"
[ "$(json_get "$WORK/r1.json" 'd["runId"]')" = first ] || fail "the first digest moved"
"$KIX" show second --json >"$WORK/s2.json" || fail "show second"
[ "$(json_get "$WORK/s2.json" 'd["rank"]["groupSize"]')" = 2 ] || fail "both measurements are not ranked: $(cat "$WORK/s2.json" | head -c 300)"
pass "--new-run: a manifest of its own (metadata.runId), each digest resolves to its run, both ranked"

# --new-run again with the same run id is the same manifest: refused as a duplicate run id
# (another source, so that the statement is not the logged one whatever the
# second: an identical statement would be answered with its original entry)
expect_status 1 "$KIX" publish --key "$WORK/pub.key" --run-id second --new-run --source "a second try" \
  "$WORK/m/run.json" "$WORK/m/workload.json"
grep -q "run id second is already published\|already published" "$WORK/err" || fail "second --new-run: $(cat "$WORK/err")"
pass "a run id is still published once"

# --new-run belongs to publish alone
expect_status 2 "$KIX" rerun --key "$WORK/pub.key" --new-run --outcome reproduced first "$WORK/m/run.json"
grep -q -- "unknown option .--new-run." "$WORK/err" || fail "rerun --new-run: $(cat "$WORK/err")"
pass "--new-run elsewhere is a usage error"

# issue 37: a publish error's JSON names the file and the JSON pointer (a
# record rule: the template's label; a schema violation: a median that is
# no integer), and nothing is stored
SIZE=$("$KIX" info | awk '$1 == "size" { print $2 }')
"$KIX" new run --kernel rope --gpu "NVIDIA A100" "$WORK/t" >/dev/null 2>&1 || fail "kix new run"
expect_status 1 "$KIX" publish --json --key "$WORK/pub.key" "$WORK/t/run.json"
python3 - "$WORK/out" "$WORK/t/run.json" <<'PY' || fail "publish --json of the template: $(cat "$WORK/out")"
import json, sys
e = json.load(open(sys.argv[1]))["error"]
assert e["file"] == sys.argv[2] and e["pointer"] == "/metadata/labels/kix-template", e
PY
fill_bundle "$WORK/t"
python3 - "$WORK/t/workload.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))
w["spec"]["dtype"] = 16
json.dump(w, open(sys.argv[1], "w"))
PY
expect_status 1 "$KIX" publish --json --key "$WORK/pub.key" "$WORK/t/run.json"
python3 - "$WORK/out" "$WORK/t/workload.json" <<'PY' || fail "publish --json of a bad workload: $(cat "$WORK/out")"
import json, sys
e = json.load(open(sys.argv[1]))["error"]
assert e["file"] == sys.argv[2] and e["pointer"] == "/spec/dtype", e
PY
[ "$("$KIX" info | awk '$1 == "size" { print $2 }')" = "$SIZE" ] || fail "a refused bundle changed the log"
pass "a publish error's JSON carries the file and the JSON pointer"
