#!/usr/bin/env bash
# kix validate and kix publish --dry-run (issue 16): the log's record
# checks offline, by JSON pointer, with exit 0 all valid, 1 some invalid,
# 2 usage; digest fields checked for their kind among the files given; and
# a dry run that refuses what the log would refuse and stores nothing.
source "$(dirname "$0")/lib.sh"

EX="$KIX_SRC/tools/samples/examples"
D="$WORK/files"
mkdir -p "$D"
python3 - "$EX" "$D" <<'PY'
import json, os, sys
ex, out = sys.argv[1:3]
for f in sorted(os.listdir(ex)):
    if f.endswith(".manifest.json"):
        for k, v in json.load(open(os.path.join(ex, f))).items():
            json.dump(v, open(os.path.join(out, f[:-len(".manifest.json")] + "-" + k + ".json"), "w"), indent=1)
run = json.load(open(os.path.join(out, "rope-liger-a100-run.json")))
run["spec"]["timing"]["latencyNs"]["median"] = -5
json.dump(run, open(os.path.join(out, "neg.json"), "w"))
run["spec"]["timing"]["latencyNs"]["median"] = 11360
run["spec"]["status"] = "exploded"
json.dump(run, open(os.path.join(out, "exploded.json"), "w"))
json.dump({"kernel": "rope", "gpu": "A100", "median_ms": 0.0113}, open(os.path.join(out, "bare.json"), "w"))
PY

# every example record validates
expect_status 0 "$KIX" validate "$D"/rope-liger-a100-*.json "$D"/geglu-*.json
[ "$(grep -c ': valid ' "$WORK/out")" = 6 ] || { cat "$WORK/out"; fail "six valid example records"; }
grep -q "rope-liger-a100-run.json: valid BenchmarkRun sha256:" "$WORK/out" || fail "validate names the kind and digest"
pass "the example pages' records validate"

# the bad manifests of issue 16, each named by its pointer
expect_status 1 "$KIX" validate "$D/neg.json"
grep -q "neg.json: invalid: /spec/timing/latencyNs/median: must be a non-negative integer" "$WORK/out" ||
  { cat "$WORK/out"; fail "negative median"; }
expect_status 1 "$KIX" validate "$D/exploded.json" "$D/rope-liger-a100-run.json"
grep -q 'exploded.json: invalid: /spec/status: must be one of \["passed","failed","error","skipped"\]' "$WORK/out" ||
  { cat "$WORK/out"; fail "exploded status"; }
grep -q "rope-liger-a100-run.json: valid" "$WORK/out" || fail "the valid file beside an invalid one"
expect_status 1 "$KIX" validate "$D/bare.json"
grep -q "bare.json: invalid: /kind: must be one of BenchmarkRun" "$WORK/out" || { cat "$WORK/out"; fail "bare"; }
pass "bad records are named by their JSON pointer (exit 1)"

# --json
expect_status 1 "$KIX" validate --json "$D/neg.json" "$D/rope-liger-a100-protocol.json"
python3 - "$WORK/out" <<'PY' || fail "validate --json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["valid"] is False
a, b = d["files"]
assert a["valid"] is False and a["schema"] == "BenchmarkRun", a
assert a["pointer"] == "/spec/timing/latencyNs/median" and a["message"] == "must be a non-negative integer", a
assert b["valid"] is True and b["schema"] == "BenchmarkProtocol" and b["digest"].startswith("sha256:"), b
PY
pass "validate --json"

# a digest field must name an object of its kind, among the files given
make_manifests "$WORK/m" 1
cat >"$WORK/m/impl.json" <<'EOF'
{"apiVersion": "kernelindex.dev/v1alpha1", "kind": "Implementation", "metadata": {"name": "liger"},
 "spec": {"provider": "liger"}}
EOF
python3 - "$WORK/m" "$("$KIX" digest "$WORK/m/impl.json")" <<'PY'
import json, sys
d, impl = sys.argv[1:3]
run = json.load(open(d + "/run.json"))
w = run["spec"]["workloadDigest"]
run["spec"]["workloadDigest"], run["spec"]["implementationDigest"] = impl, w
json.dump(run, open(d + "/swapped.json", "w"))
PY
expect_status 1 "$KIX" validate "$WORK/m/swapped.json" "$WORK/m/workload.json" "$WORK/m/impl.json"
grep -q "swapped.json: invalid: /spec/implementationDigest: must name an Implementation, but .*workload.json is a Workload" "$WORK/out" ||
  { cat "$WORK/out"; fail "swapped digests"; }
# alone, the references cannot be checked offline: reported unchecked, valid
expect_status 0 "$KIX" validate --json "$WORK/m/swapped.json"
[ "$(json_get "$WORK/out" 'sum(1 for r in d["files"][0]["refs"] if not r["checked"])')" = 2 ] ||
  { cat "$WORK/out"; fail "unchecked refs"; }
pass "digest fields are checked for their kind among the files"

# predicates: a statement by its predicateType, a bare one with --kind
printf '{"runId":"run-1","publishedAt":"2024-09-03 15:39:55"}' >"$WORK/pred.json"
expect_status 1 "$KIX" validate --kind publication "$WORK/pred.json"
grep -q "/publishedAt: must be an RFC 3339 UTC time" "$WORK/out" || { cat "$WORK/out"; fail "predicate"; }
printf '{"_type":"https://in-toto.io/Statement/v1","subject":[{"name":"run-1","digest":{"sha256":"%064d"}}],"predicateType":"https://kernelindex.dev/rerun/v1","predicate":{"runId":"run-1","outcome":"maybe","rerunDigest":"sha256:%064d"}}' 0 0 >"$WORK/stmt.json"
expect_status 1 "$KIX" validate "$WORK/stmt.json"
grep -q 'stmt.json: invalid: /predicate/outcome: must be one of \["reproduced","not_reproduced","failed"\]' "$WORK/out" ||
  { cat "$WORK/out"; fail "statement"; }
pass "predicates validate by their type"

# usage: exit 2
expect_status 2 "$KIX" validate
expect_status 2 "$KIX" validate --kind Blob "$WORK/pred.json"
expect_status 2 "$KIX" validate --bogus "$WORK/pred.json"
expect_status 0 "$KIX" validate --help
grep -q "usage: kix validate" "$WORK/out" || fail "validate --help"
expect_status 1 "$KIX" validate "$WORK/no-such-file.json"
pass "usage errors exit 2, an unreadable file 1"

# publish --dry-run: the whole bundle, offline, nothing signed or sent (no key, no server)
expect_status 0 "$KIX" publish --dry-run "$WORK/m/run.json" "$WORK/m/workload.json"
grep -q "run.json: valid BenchmarkRun" "$WORK/out" || { cat "$WORK/out"; fail "dry run of a good bundle"; }
# a file the run does not reference is refused, as the log would
expect_status 1 "$KIX" publish --dry-run "$WORK/m/run.json" "$WORK/m/workload.json" "$WORK/m/impl.json"
grep -q "impl.json: invalid: no other file of the bundle references it" "$WORK/out" || { cat "$WORK/out"; fail "unreferenced"; }
# the first file must be a run manifest
expect_status 1 "$KIX" publish --dry-run "$WORK/m/workload.json"
grep -q 'workload.json: invalid: /kind: must be "BenchmarkRun"' "$WORK/out" || { cat "$WORK/out"; fail "not a run"; }
expect_status 1 "$KIX" publish --dry-run --json "$WORK/m/swapped.json" "$WORK/m/workload.json" "$WORK/m/impl.json"
[ "$(json_get "$WORK/out" 'd["files"][0]["pointer"]')" = /spec/implementationDigest ] || { cat "$WORK/out"; fail "dry run --json"; }
expect_status 2 "$KIX" attest --dry-run --note x run-1
# an object without a kind is kept as it is by the log: valid in a bundle that references it
printf '{"log":"compiled in 3 s"}' >"$WORK/m/opaque.json"
python3 - "$WORK/m" "$("$KIX" digest "$WORK/m/opaque.json")" <<'PY'
import json, sys
d, o = sys.argv[1:3]
run = json.load(open(d + "/run.json"))
run["spec"]["sourceNative"] = {"source": "test", "buildLog": o}
json.dump(run, open(d + "/run-opaque.json", "w"))
PY
expect_status 0 "$KIX" publish --dry-run "$WORK/m/run-opaque.json" "$WORK/m/workload.json" "$WORK/m/opaque.json"
grep -q "opaque.json: valid object without a kind" "$WORK/out" || { cat "$WORK/out"; fail "an opaque object"; }
expect_status 1 "$KIX" validate "$WORK/m/opaque.json"   # alone, it is no record
pass "publish --dry-run checks the bundle as the log would"

# and the log agrees: what the dry run refuses, the store refuses, storing nothing
"$KIXD" init --store "$WORK/log" --admin-key "$WORK/log/admin.key" --origin kix.validate/log >"$WORK/vkey" 2>/dev/null
export KIX_LOG_KEY="$(cat "$WORK/vkey")"
"$KIX" keygen --name pub --out "$WORK/pub" >/dev/null 2>&1
"$KIX" key add --store "$WORK/log" --key "$WORK/log/admin.key" --role publish "$WORK/pub.pub" >/dev/null
size=$("$KIX" info --store "$WORK/log" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["size"])')
expect_status 1 "$KIX" publish --store "$WORK/log" --key "$WORK/pub.key" "$WORK/m/swapped.json" "$WORK/m/workload.json" "$WORK/m/impl.json"
grep -q "/spec/implementationDigest: must name an Implementation, but sha256:.* is a Workload" "$WORK/err" || { cat "$WORK/err"; fail "the log's refusal"; }
# a complete bundle (kix new run) with a negative median: only the log's check stands in the way
"$KIX" new run --kernel rope --gpu "NVIDIA A100" "$WORK/nr" >/dev/null
fill_bundle "$WORK/nr"
python3 - "$WORK/nr/run.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
run["spec"]["timing"]["latencyNs"]["median"] = -5
json.dump(run, open(sys.argv[1], "w"))
PY
expect_status 1 "$KIX" publish --store "$WORK/log" --key "$WORK/pub.key" "$WORK/nr/run.json"
grep -q "/spec/timing/latencyNs/median: must be a non-negative integer" "$WORK/err" || { cat "$WORK/err"; fail "the log's refusal"; }
[ "$("$KIX" info --store "$WORK/log" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["size"])')" = "$size" ] ||
  fail "a refused bundle changed the log"
expect_status 0 "$KIX" publish --store "$WORK/log" --key "$WORK/pub.key" "$WORK/m/run.json" "$WORK/m/workload.json"
pass "the log refuses what the dry run refuses, and accepts what it accepts"

# a logged entry (the canonical DSSE envelope) validates by its predicate type
"$KIX" entry 2 --store "$WORK/log" >"$WORK/entry2.json"
expect_status 0 "$KIX" validate "$WORK/entry2.json"
grep -q "entry2.json: valid publication sha256:" "$WORK/out" || { cat "$WORK/out"; fail "an envelope"; }
"$KIX" entry 1 --store "$WORK/log" >"$WORK/entry1.json"
expect_status 0 "$KIX" validate "$WORK/entry1.json"
grep -q "entry1.json: valid key" "$WORK/out" || { cat "$WORK/out"; fail "a key entry"; }
pass "logged envelopes validate by their predicate type"

# issue 37: a file that is not there is no verdict but a not-found error
# (code notFound, exit 1, as a record or key not found), under --json one
# error object and no "valid" member
expect_status 1 "$KIX" validate "$WORK/nosuch.json"
grep -q "nosuch.json: no such file" "$WORK/err" || { cat "$WORK/err"; fail "no not-found message"; }
grep -q "invalid" "$WORK/out" && { cat "$WORK/out"; fail "a missing file got a verdict"; }
expect_status 1 "$KIX" validate --json "$WORK/nosuch.json"
python3 - "$WORK/out" <<'PY' || { cat "$WORK/out"; fail "validate --json of a missing file"; }
import json, sys
d = json.load(open(sys.argv[1]))
assert "valid" not in d, d
assert d["error"]["code"] == "notFound" and d["error"]["exitCode"] == 1, d
assert d["error"]["command"] == "validate" and "nosuch.json" in d["error"]["message"], d
PY
pass "kix validate of a missing file is a not-found error, not a verdict"

# a file name and a byte that are not UTF-8: --json stays valid JSON and
# keeps the name, each bad byte shown as U+FFFD (not an empty string)
bad="$WORK/bad$(printf '\376').json"
printf '{"a":"\377"}' >"$bad"
expect_status 1 "$KIX" validate --json "$bad"
python3 - "$WORK/out" <<'PY' || { od -c "$WORK/out" | head; fail "validate --json of a name that is not UTF-8"; }
import json, sys
raw = open(sys.argv[1], "rb").read()
d = json.loads(raw.decode("utf-8"))  # strict: invalid UTF-8 raises
f = d["files"][0]
assert f["file"].endswith("/bad\ufffd.json"), f["file"]
assert f["valid"] is False and "UTF-8" in f["errors"][0]["message"], f
PY
pass "kix validate --json writes a name that is not UTF-8 as U+FFFD"
