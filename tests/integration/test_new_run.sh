#!/usr/bin/env bash
# Issue 16 point 4: kix new run writes a complete bundle; a publisher edits
# two numbers and publishes it against a real kixd on the first try (the
# digests filled in by kix publish), and kix show shows the edited figures.
# A reference to a file that is not there is refused naming field and file.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"

new_origin "$WORK/o"
serve o
export KIX_SERVER=$(addr o) KIX_LOG_KEY="$(cat "$WORK/vkey")"

"$KIX" new run --kernel rope --gpu "NVIDIA A100-SXM4-80GB" --provider liger \
  --param seq_len=2048 --param hidden=512 --json "$WORK/b" >"$WORK/new.json" || fail "kix new run"
for f in run workload protocol environment implementation; do
  [ -s "$WORK/b/$f.json" ] || fail "no $f.json"
  grep -q "## $f.json" "$WORK/b/README.md" || fail "the README does not explain $f.json"
done
[ "$(json_get "$WORK/new.json" 'len(d["files"])')" = 6 ] || fail "--json: $(cat "$WORK/new.json")"
expect_status 1 "$KIX" new run --kernel rope --gpu "NVIDIA A100-SXM4-80GB" "$WORK/b"
grep -q -- "--force" "$WORK/err" || fail "overwriting a bundle: $(cat "$WORK/err")"
expect_status 2 "$KIX" new run --gpu "NVIDIA A100" "$WORK/c"
pass "kix new run: five manifests and a README explaining each; an existing bundle is kept"

# the unedited template is refused, by the dry run as by the log, each
# placeholder named by its pointer (issue 27 point 1)
expect_status 1 "$KIX" publish --dry-run "$WORK/b/run.json"
for want in "/spec/timing/latencyNs/median: must be above 0" "/metadata/labels/kix-template: is the kix new run template's marker" \
  "/spec/harness/name: is the kix new run template's placeholder" "/spec/comparability/notes: is the kix new run template's placeholder"; do
  grep -qF "$want" "$WORK/out" || fail "the dry run of the template does not say $want: $(cat "$WORK/out")"
done
SIZE=$("$KIX" info | awk '$1 == "size" { print $2 }')
expect_status 1 "$KIX" publish --key "$WORK/pub.key" "$WORK/b/run.json"
# (publish checks each record as the log does before it signs: the error
# names the file, issue 37)
grep -qF "$WORK/b/run.json: /metadata/labels/kix-template: is the kix new run template's marker" "$WORK/err" ||
  fail "the log took the template: $(cat "$WORK/err")"
[ "$("$KIX" info | awk '$1 == "size" { print $2 }')" = "$SIZE" ] || fail "the template changed the log"
pass "the unedited template is refused (dry run and log), each placeholder named"

# the publisher edits the figures, removes the marker, describes the harness
fill_bundle "$WORK/b"
python3 - "$WORK/b/run.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["spec"]["timing"]["latencyNs"]["median"] = 11360
d["spec"]["measurements"][0]["value"] = 10336
d["spec"]["measurements"][1]["value"] = 11456
json.dump(d, open(sys.argv[1], "w"), indent=2)
PY
SIZE=$("$KIX" info | awk '$1 == "size" { print $2 }')
(cd "$WORK" && "$KIX" publish --key "$WORK/pub.key" b/run.json --json >"$WORK/pub.json" 2>"$WORK/pub.err") ||
  fail "kix publish of the edited bundle: $(cat "$WORK/pub.err")"
RID=$(json_get "$WORK/pub.json" 'd["runId"]')
[ "$("$KIX" info | awk '$1 == "size" { print $2 }')" = $((SIZE + 1)) ] || fail "one publication expected"
pass "the edited bundle published on the first try (run $RID)"

"$KIX" show "$RID" >"$WORK/show.txt" || fail "kix show"
grep -q '^  11.4 µs median' "$WORK/show.txt" || fail "show lacks the edited median: $(head -12 "$WORK/show.txt")"
grep -q 'latency · p20  *10.3 µs' "$WORK/show.txt" || fail "show lacks the edited p20: $(grep -A4 '^Measurements' "$WORK/show.txt")"
"$KIX" show "$RID" --json >"$WORK/show.json" || fail "kix show --json"
python3 - "$WORK/show.json" <<'PY' || fail "show --json: $(head -c 600 "$WORK/show.json")"
import json, sys
d = json.load(open(sys.argv[1]))
s = d["manifest"]["spec"]
o = {x["kind"]: x["object"] for x in d["objects"]}
names = {"workload": "Workload", "protocol": "BenchmarkProtocol", "environment": "ExecutionEnvironment",
         "implementation": "Implementation"}
assert s["timing"]["latencyNs"]["median"] == 11360
assert s["measurements"][0]["value"] == 10336
for k in ("workload", "protocol", "environment", "implementation"):
    assert names[k] in o, k
    assert s[k + "Digest"].startswith("sha256:"), s[k + "Digest"]
assert o["Workload"]["spec"]["parameters"] == {"seq_len": 2048, "hidden": 512}
# the GPU as the vocabulary writes it (docs/VOCABULARY.md), dtype too
hw = o["ExecutionEnvironment"]["spec"]["hardware"]
assert (hw["product"], hw["formFactor"], hw["architecture"]) == ("NVIDIA A100", "SXM4-80GB", "sm_80"), hw
assert o["Workload"]["spec"]["dtype"] == "bf16"
assert d["rank"]["groupSize"] == 1 and d["rank"]["rank"] == 1
PY
pass "kix show: the edited figures, every referenced object, ranked"

# a file-named reference that is not there: field and file named, nothing stored
"$KIX" new run --kernel geglu --gpu "NVIDIA H100" "$WORK/d" >/dev/null || fail "kix new run"
fill_bundle "$WORK/d"
sed -i 's/"workload.json"/"nope.json"/' "$WORK/d/run.json"
SIZE=$("$KIX" info | awk '$1 == "size" { print $2 }')
expect_status 1 "$KIX" publish --key "$WORK/pub.key" "$WORK/d/run.json"
grep -q "$WORK/d/run.json: spec.workloadDigest names the file $WORK/d/nope.json" "$WORK/err" ||
  fail "missing file: $(cat "$WORK/err")"
[ "$("$KIX" info | awk '$1 == "size" { print $2 }')" = "$SIZE" ] || fail "a refused bundle changed the log"
pass "a reference to a missing file is refused naming the field and the file"

# the skeleton checks offline: kix validate resolves its file-named
# references as kix publish does (issue 37: no false errors about the
# *Digest fields kix new run filled in), and lists exactly the template's
# own errors; filled in, it is valid, with the digest publish would send
"$KIX" new run --kernel rope --gpu "NVIDIA A100" "$WORK/v" >/dev/null 2>&1 || fail "kix new run"
expect_status 1 "$KIX" validate --json "$WORK/v/run.json"
python3 - "$WORK/out" "$WORK/v" <<'PY' || fail "validate of a skeleton: $(cat "$WORK/out")"
import json, sys
d, v = json.load(open(sys.argv[1])), sys.argv[2]
errors = sorted((f["file"], e["pointer"]) for f in d["files"] for e in f.get("errors", []))
assert errors == sorted([
    (v + "/run.json", "/metadata/labels/kix-template"),
    (v + "/run.json", "/spec/timing/latencyNs/median"),
    (v + "/protocol.json", "/spec/harness/name"),
    (v + "/protocol.json", "/spec/comparability/notes"),
]), errors
assert sorted(f["file"] for f in d["files"]) == sorted(
    v + "/" + n for n in ("run.json", "workload.json", "protocol.json", "environment.json",
                          "implementation.json")), d["files"]
PY
fill_bundle "$WORK/v"
expect_status 0 "$KIX" validate "$WORK/v/run.json"
[ "$(grep -c ': valid ' "$WORK/out")" = 5 ] || fail "validate of a filled-in skeleton: $(cat "$WORK/out")"
VDIGEST=$(grep "run.json: valid BenchmarkRun" "$WORK/out" | awk '{print $4}')
expect_status 0 "$KIX" publish --dry-run "$WORK/v/run.json"
[ "$(grep -c ': valid ' "$WORK/out")" = 5 ] || fail "dry run of a skeleton: $(cat "$WORK/out")"
grep -q "run.json: valid BenchmarkRun $VDIGEST" "$WORK/out" ||
  fail "validate and the dry run disagree on the run's digest ($VDIGEST): $(cat "$WORK/out")"
expect_status 0 "$KIX" publish --dry-run --new-run --run-id again "$WORK/v/run.json"
pass "kix new run's bundle validates offline (kix publish --dry-run), file-named references filled in"

# one vocabulary (docs/VOCABULARY.md) with "did you mean" for a near miss
expect_status 0 "$KIX" new run --kernel ropee --gpu "NVIDIA A100-SXM4-80G" --provider liger "$WORK/voc"
grep -q "kernel ropee is no kernel of the vocabulary: did you mean rope?" "$WORK/err" || fail "kernel near miss: $(cat "$WORK/err")"
grep -q "did you mean NVIDIA A100-SXM4-80GB?" "$WORK/err" || fail "GPU near miss: $(cat "$WORK/err")"
grep -q "protocol family liger is no family of the vocabulary: did you mean liger_kernel_bench?" "$WORK/err" ||
  fail "family near miss: $(cat "$WORK/err")"
expect_status 2 "$KIX" new run --kernel rope --gpu "NVIDIA A100" --dtype bfloat61 "$WORK/voc2"
grep -q "did you mean bf16?" "$WORK/err" || fail "dtype near miss: $(cat "$WORK/err")"
"$KIX" new run --kernel rope --gpu "NVIDIA A100" --dtype torch.float32 "$WORK/voc3" >/dev/null 2>&1 || fail "dtype alias"
[ "$(json_get "$WORK/voc3/workload.json" 'd["spec"]["dtype"]')" = fp32 ] || fail "torch.float32 is not written fp32"
python3 - "$WORK/voc3/workload.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))
w["spec"]["dtype"] = "bfloat16"
json.dump(w, open(sys.argv[1], "w"))
PY
expect_status 0 "$KIX" validate "$WORK/voc3/workload.json"
grep -q "warning: /spec/dtype: 'bfloat16' is written 'bf16' in the vocabulary" "$WORK/out" || fail "validate: $(cat "$WORK/out")"
pass "one vocabulary: kix new run and kix validate say 'did you mean' for a near miss"
