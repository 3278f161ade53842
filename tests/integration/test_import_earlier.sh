#!/usr/bin/env bash
# Issue 37.5: kix-import-liger keeps a row's sweep in the run
# (sourceNative.x, .config), no longer in its Workload, so a log that an
# earlier importer filled holds each row under the same run id with another
# manifest. Importing the same CSV into it again must add nothing and fail
# nothing: each such row counts as published ("earlierForm"), its run and
# group kept as they are. A row whose figures differ from its published
# run's is still refused, as before.
. "$KIX_TESTS/integration/lib.sh"
export KIX_STATE_DIR="$WORK/state"

# one row: rope / liger / forward on the A100 (upstream line 332)
python3 - "$KIX_TESTS/data/liger/all_benchmark_data.csv" "$WORK/row.csv" "$WORK/changed.csv" <<'PY'
import csv, sys
r = csv.reader(open(sys.argv[1], newline=""))
head = next(r)
row = next(x for x in r if x[0] == "rope" and x[1] == "liger" and x[2] == "forward" and x[7] == "512")
for path, y in ((sys.argv[2], row[8]), (sys.argv[3], "0.5")):
    w = csv.writer(open(path, "w", newline=""))
    w.writerow(head)
    w.writerow(row[:8] + [y] + row[9:])
PY

log() { # log DIR: a new log with a publisher key $WORK/imp.key
  "$KIXD" init --store "$1" --admin-key "$1/admin.key" --origin kix.earlier/log >"$1.vkey" 2>/dev/null
  [ -f "$WORK/imp.key" ] || "$KIX" keygen --name imp --out "$WORK/imp" >/dev/null 2>&1
  "$KIX" key add --store "$1" --key "$1/admin.key" --role publish "$WORK/imp.pub" >/dev/null
}

# today's form, in a scratch log: the row's run id, manifest and objects
log "$WORK/now"
KIX_LOG_KEY="$(cat "$WORK/now.vkey")" "$KIX_BIN/kix-import-liger" --key "$WORK/imp.key" \
  --store "$WORK/now" --map "$WORK/now.map" "$WORK/row.csv" >/dev/null 2>&1 || fail "import (today's form)"
RUN=$(json_get "$WORK/now.map" 'd["runId"]')
KIX_LOG_KEY="$(cat "$WORK/now.vkey")" "$KIX" show --store "$WORK/now" "$RUN" --json >"$WORK/now.json" ||
  fail "kix show of $RUN"

# the earlier form of the same row: the sweep and config in the Workload
mkdir -p "$WORK/old"
python3 - "$WORK/now.json" "$WORK/old" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
run = doc["manifest"]
native = run["spec"]["sourceNative"]
files = {"Workload": "workload.json", "BenchmarkProtocol": "protocol.json",
         "ExecutionEnvironment": "environment.json", "Implementation": "implementation.json"}
refs = {"Workload": "workloadDigest", "BenchmarkProtocol": "protocolDigest",
        "ExecutionEnvironment": "environmentDigest", "Implementation": "implementationDigest"}
assert "x" in native and "x" not in [o for o in doc["objects"] if o["kind"] == "Workload"][0]["object"]["spec"]
for o in doc["objects"]:
    obj = o["object"]
    if o["kind"] == "Workload":
        obj["spec"]["x"] = native["x"]
        obj["spec"]["config"] = native["config"]
    json.dump(obj, open(sys.argv[2] + "/" + files[o["kind"]], "w"))
    run["spec"][refs[o["kind"]]] = files[o["kind"]]
del native["x"], native["config"]
json.dump(run, open(sys.argv[2] + "/run.json", "w"))
PY
log "$WORK/log"
export KIX_LOG_KEY="$(cat "$WORK/log.vkey")"
"$KIX" publish --store "$WORK/log" --key "$WORK/imp.key" --run-id "$RUN" --source liger-kernel-bench \
  --license BSD-2-Clause "$WORK/old/run.json" "$WORK/old/workload.json" "$WORK/old/protocol.json" \
  "$WORK/old/environment.json" "$WORK/old/implementation.json" >/dev/null 2>"$WORK/pub.err" ||
  fail "publishing the earlier form: $(cat "$WORK/pub.err")"

# importing the row again: published already, nothing added, nothing refused
"$KIX_BIN/kix-import-liger" --key "$WORK/imp.key" --store "$WORK/log" --json "$WORK/row.csv" \
  >"$WORK/again.json" 2>"$WORK/again.err" || fail "re-import failed: $(cat "$WORK/again.err" "$WORK/again.json")"
[ "$(json_get "$WORK/again.json" '(d["newEntries"], d["duplicates"], d["refused"], d["earlierForm"])')" = "(0, 1, 0, 1)" ] ||
  fail "re-import: $(cat "$WORK/again.json")"
[ "$(json_get "$WORK/again.json" '(d["logSizeBefore"], d["logSize"])')" = "(3, 3)" ] || fail "the log grew: $(cat "$WORK/again.json")"
"$KIX_BIN/kix-import-liger" --key "$WORK/imp.key" --store "$WORK/log" "$WORK/row.csv" >"$WORK/again.txt" 2>&1 ||
  fail "re-import (text): $(cat "$WORK/again.txt")"
grep -q "^  earlier  1 of the duplicates published by an earlier kix-import-liger" "$WORK/again.txt" ||
  fail "the summary does not say why: $(cat "$WORK/again.txt")"
pass "a row an earlier importer published counts as published: nothing added, nothing refused, exit 0"

# other figures under the same run id are still the log's to refuse
expect_status 1 "$KIX_BIN/kix-import-liger" --key "$WORK/imp.key" --store "$WORK/log" --json "$WORK/changed.csv"
[ "$(json_get "$WORK/out" '(d["refused"], d["earlierForm"])')" = "(1, 0)" ] || fail "changed figures: $(cat "$WORK/out")"
pass "a row with other figures than its published run's is refused as before"
