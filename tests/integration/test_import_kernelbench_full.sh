#!/usr/bin/env bash
# The full KernelBench import (issue 40): all 30 timing files of KernelBench's
# baseline timings into a store that already holds the whole Liger CSV:
#  - 7,486 runs and 14 skipped rows (the null entries), each with its reason
#  - a second import adds nothing (7,486 duplicates; log size unchanged)
#  - kix audit passes
#  - no comparison group holds runs of both sources
#  - the bundled sample's problems.json builds the same runs as the files
# The data is third-party and not in the repository: set KIX_KERNELBENCH_DATA
# to a copy of it (results/timing/ and KernelBench/, see
# tools/samples/kernelbench/README.md); without it the test is skipped (77).
set -euo pipefail

bin=${KIX_BIN:?set KIX_BIN to the build bin/ directory}
tests=${KIX_TESTS:?set KIX_TESTS to the tests/ directory}
data=${KIX_KERNELBENCH_DATA:-}
if [ -z "$data" ] || [ ! -d "$data/results/timing" ] || [ ! -d "$data/KernelBench" ]; then
    echo "skipped: set KIX_KERNELBENCH_DATA to KernelBench's data (results/timing, KernelBench/)"
    exit 77
fi
tmp=$(mktemp -d /tmp/kix-test-import-kb-full-XXXXXX)
export KIX_STATE_DIR="$tmp/state" XDG_CONFIG_HOME="$tmp/config"
trap 'rm -rf "$tmp"' EXIT

fail() {
    echo "FAIL: $*" >&2
    exit 1
}
field() {
    python3 -c 'import json,sys; print(json.loads(sys.argv[2])[sys.argv[1]])' "$1" "$2"
}
expect() {
    [ "$1" = "$2" ] || fail "$3: want $1, got $2"
}
log_size() {
    "$bin/kix" info --store "$1" | awk '$1 == "size" { print $2 }'
}
"$bin/kix" keygen --name importer --out "$tmp/pub" >/dev/null 2>&1
"$bin/kixd" init --store "$tmp/s" --admin-key "$tmp/s/admin.key" --origin kix.test/log \
    >"$tmp/s.vkey" 2>/dev/null
"$bin/kix" key add --store "$tmp/s" --key "$tmp/s/admin.key" --role publish "$tmp/pub.pub" >/dev/null

t0=$(date +%s)
out=$("$bin/kix-import" liger --key "$tmp/pub.key" --store "$tmp/s" --json \
    "$tests/data/liger/all_benchmark_data.csv")
expect 2448 "$(field new "$out")" "Liger runs"
t1=$(date +%s)
files=("$data"/results/timing/*/*.json)
expect 30 "${#files[@]}" "timing files"
out=$("$bin/kix-import" kernelbench --key "$tmp/pub.key" --store "$tmp/s" --json \
    --problems "$data/KernelBench" --map "$tmp/kb.map" "${files[@]}")
t2=$(date +%s)
expect 7486 "$(field runs "$out")" "KernelBench runs"
expect 7486 "$(field new "$out")" "new KernelBench runs"
expect 14 "$(field skipped "$out")" "skipped rows"
python3 -c 'import json,sys; r=json.loads(sys.argv[1])["skippedRows"]; assert len(r)==14 and all("null" in x["reason"] for x in r), r' "$out" ||
    fail "skipped rows: $out"
size=$(log_size "$tmp/s")
expect $((2 + 2448 + 7486)) "$size" "log size"
out=$("$bin/kix-import" kernelbench --key "$tmp/pub.key" --store "$tmp/s" --json \
    --problems "$data/KernelBench" "${files[@]}")
t3=$(date +%s)
expect 0 "$(field new "$out")" "new runs the second time"
expect 7486 "$(field duplicates "$out")" "duplicates the second time"
expect "$size" "$(log_size "$tmp/s")" "log size after the second import"
"$bin/kix" audit --store "$tmp/s" >"$tmp/audit" 2>&1 || fail "kix audit: $(cat "$tmp/audit")"
t4=$(date +%s)
# softmax: Liger's groups and KernelBench's, never one group for both
"$bin/kix" query --store "$tmp/s" --kernel softmax --limit 1000 --json >"$tmp/q"
python3 - "$tmp/q" <<'PY' || fail "softmax groups mixed: $(head -c 1000 "$tmp/q")"
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
by_group = {}
for r in runs:
    by_group.setdefault(r["group"], set()).add(r["source"])
assert by_group and all(len(s) == 1 for s in by_group.values()), by_group
assert {"kernelbench-baseline-time", "liger-kernel-bench"} <= set().union(*by_group.values())
PY
# the bundled sample's problems index gives the workloads the problem files give
sample=$tests/../tools/samples/kernelbench
"$bin/kix-import" kernelbench --dry-run --problems "$sample/problems.json" --map "$tmp/s1.map" \
    "$sample"/results/timing/*/*.json >/dev/null
"$bin/kix-import" kernelbench --dry-run --problems "$data/KernelBench" --map "$tmp/s2.map" \
    "$sample"/results/timing/*/*.json >/dev/null
cmp -s "$tmp/s1.map" "$tmp/s2.map" || fail "the sample's problems.json and the problem files differ"
echo "ok: liger $((t1 - t0)) s, kernelbench $((t2 - t1)) s, again $((t3 - t2)) s, audit $((t4 - t3)) s"
