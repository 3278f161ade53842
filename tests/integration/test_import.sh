#!/usr/bin/env bash
# kix-import-liger end to end, on local stores made with `kixd init`:
#  - the FULL upstream CSV (2,448 rows) into a fresh store: one new entry and
#    one map line per row, the example row's external id, run id and
#    permalink, a receipt that verifies; runs/s and store bytes per run printed
#  - every field of the CSV a page shows is on kix show's page of its run
#    (three rows); the row's time is observedAt, publishedAt the log's time
#  - the same file again adds nothing (2,448 duplicates, each proven
#    published by the signed index; log size unchanged)
#  - a first part of the file, then the whole: only the new rows are added,
#    with the same run ids as in the other store
#  - a file with a bad row publishes nothing (exit 1, the line named);
#    --skip-bad publishes the rest and reports the skipped row
#  - a key the log does not know: every row refused, exit 1
#  - the log is verified as kix verifies it: every receipt (counted in the
#    summary); --receipts DIR saves them for `kix verify`; a --server import
#    takes its key from $KIX_LOG_KEY; no key anywhere is exit 2 naming the
#    three ways; a wrong --log-key or a rolled-back store (exit 4) is refused
#    before anything is published
#  - usage errors exit 2
set -euo pipefail

bin=${KIX_BIN:?set KIX_BIN to the build bin/ directory}
tests=${KIX_TESTS:?set KIX_TESTS to the tests/ directory}
csv=$tests/data/liger/all_benchmark_data.csv
tmp=$(mktemp -d /tmp/kix-test-import-XXXXXX)
export KIX_STATE_DIR="$tmp/state" XDG_CONFIG_HOME="$tmp/config"
trap 'rm -rf "$tmp"' EXIT

fail() {
    echo "FAIL: $*" >&2
    exit 1
}
# field NAME JSON: the integer value of "NAME": in a compact JSON object
field() {
    local v
    v=$(grep -o "\"$1\":[0-9.]*" <<<"$2" | head -1 | cut -d: -f2)
    [ -n "$v" ] || fail "no field $1 in: $2"
    echo "$v"
}
expect() { # expect WANT GOT WHAT
    [ "$1" = "$2" ] || fail "$3: want $1, got $2"
}
log_size() {
    "$bin/kix" info --store "$1" | awk '$1 == "size" { print $2 }'
}
new_store() { # new_store DIR: a log with publisher key $tmp/pub registered
    "$bin/kixd" init --store "$1" --admin-key "$1/admin.key" --origin kix.test/log >"$1.vkey" 2>/dev/null
    "$bin/kix" key add --store "$1" --key "$1/admin.key" --role publish "$tmp/pub.pub" >/dev/null
}

rows=$(($(wc -l <"$csv") - 1))
expect 2448 "$rows" "data rows in $csv"
"$bin/kix" keygen --name liger-importer --out "$tmp/pub" >/dev/null 2>&1
"$bin/kix" keygen --name stranger --out "$tmp/stranger" >/dev/null 2>&1

# ---- the full file into a fresh store -------------------------------------------
new_store "$tmp/a"
expect 2 "$(log_size "$tmp/a")" "entries after init and key registration"
out=$("$bin/kix-import-liger" --key "$tmp/pub.key" --store "$tmp/a" --map "$tmp/a.map" --json \
    "$csv")
expect 2448 "$(field rows "$out")" "rows"
expect 2448 "$(field newEntries "$out")" "new entries"
expect 0 "$(field duplicates "$out")" "duplicates"
expect 0 "$(field refused "$out")" "refused"
expect 2448 "$(field runs "$out")" "runs"
# 265 shared: 6 protocols, 6 environments, 12 implementations and 241
# workloads (244 row shapes, three of them measured in two sweeps: one
# workload each, issue 37.5)
expect 2713 "$(field objects "$out")" "objects (2448 runs + 265 shared)"
expect 2450 "$(field logSize "$out")" "log size in the summary"
expect 2448 "$(field receiptsVerified "$out")" "receipts verified (the store's own key)"
expect 2450 "$(log_size "$tmp/a")" "log size"
expect 2448 "$(wc -l <"$tmp/a.map")" "map lines"
expect 2448 "$(grep -c '"status":"new"' "$tmp/a.map")" "map lines with status new"
expect 2448 "$(grep -o '"runId":"[^"]*"' "$tmp/a.map" | sort -u | wc -l)" "distinct run ids"
expect 2448 "$(grep -o '"externalId":"[^"]*"' "$tmp/a.map" | sort -u | wc -l)" \
    "distinct external ids"
head -1 "$tmp/a.map" | grep -q '^{"row":1,"line":2,' || fail "first map line: $(head -1 "$tmp/a.map")"
tail -1 "$tmp/a.map" | grep -q '^{"row":2448,"line":2449,' || fail "last map line"
# the rope row of the example page (upstream line 332)
rope=$(sed -n 331p "$tmp/a.map")
grep -q '"line":332,' <<<"$rope" || fail "map line 331 is not file line 332: $rope"
grep -q '"externalId":"rope/forward/liger/nvidia-a100-sxm4-80gb/hidden512-kv_heads8-q_heads32-seq2048-bf16/2024-09-03-15-39-55"' <<<"$rope" ||
    fail "rope external id: $rope"
grep -q '"runId":"f1ba391b-0611-85e9-aa7c-9b289f26dadd"' <<<"$rope" || fail "rope run id: $rope"
grep -q '"permalink":"https://kix.test/log/runs/f1ba391b-0611-85e9-aa7c-9b289f26dadd"' <<<"$rope" ||
    fail "rope permalink: $rope"
index=$(field index "$rope")
digest=$(grep -o '"digest":"sha256:[0-9a-f]*"' <<<"$rope" | cut -d'"' -f4)
"$bin/kix" store get --store "$tmp/a" "$digest" >"$tmp/rope.json"
grep -q '"latencyNs":{"median":11360}' "$tmp/rope.json" || fail "rope median: $(cat "$tmp/rope.json")"
"$bin/kix" receipt "$index" --store "$tmp/a" >"$tmp/rope.receipt"
"$bin/kix" verify "$tmp/rope.receipt" --log-key "$(cat "$tmp/a.vkey")" >/dev/null ||
    fail "the receipt of the rope row does not verify"

# ---- every CSV field a page shows is in the records: kix show says it ------------------
# (the rope and tiled_geglu rows of the example pages and a memory row): the
# row's time is the run's observedAt; publishedAt is when it was published
today=$(date -u +%Y-%m-%d)
for line in 332 1643 $(awk -F, '$4 == "memory" { print NR; exit }' "$csv"); do
    m=$(sed -n "$((line - 1))p" "$tmp/a.map")
    rid=$(grep -o '"runId":"[^"]*"' <<<"$m" | cut -d'"' -f4)
    "$bin/kix" show --store "$tmp/a" "$rid" >"$tmp/show-$line.txt" || fail "kix show of line $line"
    "$bin/kix" show --store "$tmp/a" "$rid" --json >"$tmp/show-$line.json" || fail "kix show --json of line $line"
    python3 - "$csv" "$line" "$tmp/show-$line.txt" "$tmp/show-$line.json" "$today" <<'PY' ||
import csv, json, re, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
head, row = rows[0], rows[int(sys.argv[2]) - 1]
f = dict(zip(head, row))
page = open(sys.argv[3]).read()
doc = json.load(open(sys.argv[4]))
def shown(what, text):
    if text not in page:
        sys.exit("line %s: %s (%r) is not on the page:\n%s" % (sys.argv[2], what, text, page))
def line_with(label, *parts):
    for l in page.splitlines():
        if l.strip().startswith(label) and all(p in l for p in parts):
            return
    sys.exit("line %s: no %r line with %r:\n%s" % (sys.argv[2], label, parts, page))
line_with("kernel", f["kernel_name"])
line_with("provider", f["kernel_provider"])
line_with("pass", f["kernel_operation_mode"])
line_with("metric", {"speed": "latency", "memory": "peak_memory"}[f["metric_name"]])
# in words, never as JSON: "x (swept)  H (hidden size) = 512"
line_with("x (swept)", "%s (%s) = %s" % (f["x_name"], f["x_label"], f["x_value"]))
u = f["metric_unit"]
for q, col in (("20", "y_value_20"), ("50", "y_value_50"), ("80", "y_value_80")):
    shown(col, "%s_%s %r" % (u, q, float(f[col])))
cfg = json.loads(f["extra_benchmark_config_str"])
for k, v in cfg.items():
    if v is not None:
        line_with("config " + k, v if isinstance(v, str) else json.dumps(v))
objs = {o["kind"]: o["object"] for o in doc["objects"]}
hw = objs["ExecutionEnvironment"]["spec"]["hardware"]
line_with("gpu", hw["product"])
name = hw["product"] + ("-" + hw["formFactor"] if "formFactor" in hw else "")
known = {"NVIDIA H100 80GB HBM3": "NVIDIA H100-SXM5-80GB"}
assert name == known.get(f["gpu_name"], f["gpu_name"]), (name, f["gpu_name"])
if "formFactor" in hw:
    line_with("form factor", hw["formFactor"])
ts = f["timestamp"].replace(" ", "T")
line_with("observed at", ts)
assert doc["manifest"]["spec"]["observedAt"].startswith(ts), doc["manifest"]["spec"]["observedAt"]
line_with("label", "liger_version", f["liger_version"])
published = re.search(r"^Published (\S+)", page, re.M).group(1)
assert published.startswith(sys.argv[5]), ("publishedAt is not the log's time", published)
PY
        fail "line $line: a CSV field is not shown"
done
echo "every CSV field of three rows is on their kix show pages; observedAt the row's, publishedAt the log's"
"$bin/kix-import-liger" --version | grep -q '^kix-import-liger [0-9]' || fail "--version: $("$bin/kix-import-liger" --version)"

secs=$(field seconds "$out")
rate=$(field runsPerSecond "$out")
mdb_bytes=$(stat -c %s "$tmp/a/data.mdb")
mdb_used=$(($(du -k "$tmp/a/data.mdb" | cut -f1) * 1024))
echo "full import: 2448 runs in ${secs} s, ${rate%.*} runs/s (this build)"
echo "store: data.mdb $mdb_bytes bytes ($((mdb_bytes / 2448)) bytes/run), $mdb_used on disk" \
    "($((mdb_used / 2448)) bytes/run)"

# ---- the same file again adds nothing ---------------------------------------------
out=$("$bin/kix-import-liger" --key "$tmp/pub.key" --store "$tmp/a" --json "$csv")
expect 0 "$(field newEntries "$out")" "new entries on re-import"
expect 2448 "$(field duplicates "$out")" "duplicates on re-import"
expect 2450 "$(log_size "$tmp/a")" "log size after re-import"
echo "re-import: 0 new entries, 2448 duplicates, $(field runsPerSecond "$out" | cut -d. -f1) runs/s"

# ---- part of the file, then all of it ---------------------------------------------
new_store "$tmp/b"
head -n 1001 "$csv" >"$tmp/first1000.csv"
out=$("$bin/kix-import-liger" --key "$tmp/pub.key" --store "$tmp/b" --batch 100 --json \
    "$tmp/first1000.csv")
expect 1000 "$(field newEntries "$out")" "new entries from the first 1000 rows"
out=$("$bin/kix-import-liger" --key "$tmp/pub.key" --store "$tmp/b" --map "$tmp/b.map" --json \
    "$csv")
expect 1448 "$(field newEntries "$out")" "new entries from the newer file"
expect 1000 "$(field duplicates "$out")" "duplicates from the newer file"
expect 2450 "$(log_size "$tmp/b")" "log size after the newer file"
expect 1000 "$(grep -c '"status":"duplicate"' "$tmp/b.map")" "duplicate map lines"
cmp <(grep -o '"runId":"[^"]*","digest":"[^"]*"' "$tmp/a.map") \
    <(grep -o '"runId":"[^"]*","digest":"[^"]*"' "$tmp/b.map") ||
    fail "run ids or manifest digests differ between the two stores"

# ---- a bad row ----------------------------------------------------------------------
head -n 21 "$csv" | sed '10s/,V,vocab size,\([0-9]*\),[0-9.]*,/,V,vocab size,\1,fast,/' \
    >"$tmp/bad.csv"
grep -q ',fast,' "$tmp/bad.csv" || fail "could not break line 10 of the test file"
new_store "$tmp/c"
set +e
"$bin/kix-import-liger" --key "$tmp/pub.key" --store "$tmp/c" "$tmp/bad.csv" >"$tmp/out" 2>"$tmp/err"
rc=$?
set -e
expect 1 "$rc" "exit status for a file with a bad row"
grep -q "line 10: y_value_50 'fast' is not a number" "$tmp/err" || fail "bad row report: $(cat "$tmp/err")"
grep -q "nothing was published" "$tmp/err" || fail "bad row report: $(cat "$tmp/err")"
expect 2 "$(log_size "$tmp/c")" "log size after a refused file"
out=$("$bin/kix-import-liger" --key "$tmp/pub.key" --store "$tmp/c" --skip-bad --json \
    --map "$tmp/c.map" "$tmp/bad.csv" 2>"$tmp/err")
grep -q "skipping them" "$tmp/err" || fail "--skip-bad report: $(cat "$tmp/err")"
expect 1 "$(field skipped "$out")" "skipped rows"
expect 19 "$(field newEntries "$out")" "new entries with --skip-bad"
expect 21 "$(log_size "$tmp/c")" "log size with --skip-bad"
sed -n 9p "$tmp/c.map" | grep -q '"row":9,"line":10,"status":"skipped","error":"line 10: ' ||
    fail "map line of the skipped row: $(sed -n 9p "$tmp/c.map")"
expect 20 "$(wc -l <"$tmp/c.map")" "map lines with a skipped row"

# ---- a key the log does not know ------------------------------------------------------
set +e
"$bin/kix-import-liger" --key "$tmp/stranger.key" --store "$tmp/c" --json "$tmp/first1000.csv" \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
set -e
expect 1 "$rc" "exit status with an unregistered key"
# the 19 rows already published are found so (duplicates); the rest is refused
expect 981 "$(field refused "$(cat "$tmp/out")")" "refused rows with an unregistered key"
expect 19 "$(field duplicates "$(cat "$tmp/out")")" "rows already published, with an unregistered key"
grep -q "is not registered in this log" "$tmp/err" || fail "refusal report: $(head -3 "$tmp/err")"
expect 21 "$(log_size "$tmp/c")" "log size after refusals"

# ---- the log key, receipts, the remembered checkpoint -----------------------------------
head -n 21 "$csv" >"$tmp/first20.csv"
new_store "$tmp/d"
cp -a "$tmp/d" "$tmp/d.before" # for the rollback below
out=$("$bin/kix-import-liger" --key "$tmp/pub.key" --store "$tmp/d" --receipts "$tmp/receipts" \
    --log-key "$tmp/d.vkey" --json "$tmp/first20.csv")
expect 20 "$(field newEntries "$out")" "new entries with --receipts"
expect 20 "$(field receiptsVerified "$out")" "receipts verified with --receipts"
expect 20 "$(find "$tmp/receipts" -name '*.tlog-proof' | wc -l)" "receipt files"
for f in "$tmp/receipts"/*.tlog-proof; do
    expect 644 "$(stat -c %a "$f")" "mode of $f"
    "$bin/kix" verify "$f" --log-key "$(cat "$tmp/d.vkey")" >/dev/null ||
        fail "saved receipt $f does not verify"
done
run=$(ls "$tmp/receipts" | head -1)
[[ "$run" =~ ^[0-9a-f-]{36}\.tlog-proof$ ]] || fail "receipt file name: $run"

# a wrong --log-key (another log's key, same origin name): refused before publishing
set +e
"$bin/kix-import-liger" --key "$tmp/pub.key" --store "$tmp/d" --log-key "$tmp/c.vkey" \
    "$tmp/first1000.csv" >"$tmp/out" 2>"$tmp/err"
rc=$?
set -e
expect 1 "$rc" "exit status with a wrong --log-key"
grep -q "nothing was published" "$tmp/err" || fail "wrong --log-key report: $(cat "$tmp/err")"
expect 22 "$(log_size "$tmp/d")" "log size after a wrong --log-key"

# the store rolled back behind the checkpoint remembered: exit 5 (behind,
# not proven a fork), nothing published
mv "$tmp/d" "$tmp/d.after"
cp -a "$tmp/d.before" "$tmp/d"
set +e
"$bin/kix-import-liger" --key "$tmp/pub.key" --store "$tmp/d" "$tmp/first1000.csv" \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
set -e
expect 5 "$rc" "exit status against a rolled-back store"
grep -q "nothing was published" "$tmp/err" || fail "rollback report: $(cat "$tmp/err")"
grep -q "serves the log at size 2, behind the size 22 this client verified before" "$tmp/err" ||
  fail "rollback report: $(cat "$tmp/err")"
expect 2 "$(log_size "$tmp/d")" "log size of the rolled-back store"

# no key anywhere for a server: exit 2 naming the three ways; a dry run needs none
set +e
env -u KIX_LOG_KEY "$bin/kix-import-liger" --key "$tmp/pub.key" --server "unix://$tmp/none.sock" \
    "$tmp/first20.csv" >"$tmp/out" 2>"$tmp/err"
rc=$?
set -e
expect 2 "$rc" "exit status with no log key"
grep -q "no log key to verify against. Pass --log-key KEY, set KIX_LOG_KEY, or add" "$tmp/err" ||
    fail "no-key report: $(cat "$tmp/err")"
grep -q "'log-key = KEY' to ~/.config/kix/config" "$tmp/err" || fail "no-key report: $(cat "$tmp/err")"
env -u KIX_LOG_KEY "$bin/kix-import-liger" --dry-run "$tmp/first20.csv" >/dev/null ||
    fail "a dry run without a log key"

# through kixd, the key from $KIX_LOG_KEY, the final checkpoint remembered
new_store "$tmp/e"
"$bin/kixd" serve --store "$tmp/e" --listen "unix://$tmp/e.sock" --log-level warn 2>"$tmp/e.log" &
kixd_pid=$!
trap 'kill -TERM $kixd_pid 2>/dev/null; wait $kixd_pid 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 1 100); do
    KIX_LOG_KEY= XDG_CONFIG_HOME=/nonexistent "$bin/kix" info --server "unix://$tmp/e.sock" \
        >/dev/null 2>&1 && break
    sleep 0.05
done
out=$(KIX_LOG_KEY="$(cat "$tmp/e.vkey")" "$bin/kix-import-liger" --key "$tmp/pub.key" \
    --server "unix://$tmp/e.sock" --json "$tmp/first20.csv")
expect 20 "$(field newEntries "$out")" "new entries through kixd"
expect 20 "$(field receiptsVerified "$out")" "receipts verified through kixd"
KIX_LOG_KEY="$(cat "$tmp/e.vkey")" "$bin/kix" info --server "unix://$tmp/e.sock" >/dev/null ||
    fail "kix does not agree with the checkpoint the importer remembered"
# the same kixd with a wrong key in the config file: refused, nothing published
mkdir -p "$tmp/config/kix"
echo "log-key = $(cat "$tmp/c.vkey")" >"$tmp/config/kix/config"
set +e
env -u KIX_LOG_KEY "$bin/kix-import-liger" --key "$tmp/pub.key" --server "unix://$tmp/e.sock" \
    "$tmp/first1000.csv" >"$tmp/out" 2>"$tmp/err"
rc=$?
set -e
expect 1 "$rc" "exit status with a wrong key in the config file"
rm "$tmp/config/kix/config"
kill -TERM $kixd_pid
wait $kixd_pid || true
trap 'rm -rf "$tmp"' EXIT
expect 22 "$(log_size "$tmp/e")" "log size after the wrong config key"

# ---- usage ----------------------------------------------------------------------------------
grep -q "^usage: kix-import-liger" <<<"$("$bin/kix-import-liger" --help)" || fail "--help"
for args in "" "--store $tmp/c $csv" "--key $tmp/pub.key --batch 0 $csv" \
    "--key $tmp/pub.key --store $tmp/c --server tcp://127.0.0.1:1 $csv"; do
    set +e
    # shellcheck disable=SC2086
    "$bin/kix-import-liger" $args >/dev/null 2>&1
    rc=$?
    set -e
    expect 2 "$rc" "exit status of kix-import-liger $args"
done

# ---- --json errors: one object on stdout, kix's shape (issue 37) ------------------------------
check_json_error() { # WANT_CODE WANT_EXIT ARGS...
    local code=$1 want=$2 out rc
    shift 2
    set +e
    out=$("$bin/kix-import-liger" --json "$@" 2>/dev/null)
    rc=$?
    set -e
    expect "$want" "$rc" "exit status of kix-import-liger --json $*"
    python3 - "$code" "$want" "$out" <<'PY' || fail "kix-import-liger --json $*: stdout '$out'"
import json, sys
code, want, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
d = json.loads(out)
e = d["error"]
assert list(d) == ["error"], d
assert e["code"] == code and e["exitCode"] == want, e
assert e["command"] == "kix-import-liger" and e["message"] and e["cause"], e
PY
}
check_json_error usage 2 --bogus
check_json_error usage 2 --key "$tmp/pub.key" --batch 0 "$csv"
check_json_error notFound 1 --key "$tmp/pub.key" --store "$tmp/c" "$tmp/nosuch.csv"
printf 'kernel_name,x\nrope,1\n' >"$tmp/notliger.csv"
check_json_error invalidInput 1 --key "$tmp/pub.key" --store "$tmp/c" "$tmp/notliger.csv"
check_json_error invalidInput 1 --key "$tmp/pub.key" --store "$tmp/c" "$tmp/bad.csv"
echo "ok"
