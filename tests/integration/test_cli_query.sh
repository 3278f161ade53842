#!/usr/bin/env bash
# Issue 18, kix query: a run id and a workload column, --gpu matching the
# names people type, --kernel by family or prefix, best first within each
# group and groups in a stable meaningful order, --limit and --offset paging;
# the same through kixd.
. "$KIX_TESTS/integration/lib.sh"

python3 - "$KIX_TESTS/data/liger/all_benchmark_data.csv" "$WORK/s.csv" <<'PY'
import csv, sys
r = csv.reader(open(sys.argv[1], newline="")); w = csv.writer(open(sys.argv[2], "w", newline=""))
w.writerow(next(r))
for x in r:
    if (x[0] in ("rope", "fused_linear_grpo_loss_sequence", "fused_linear_grpo_loss_token")
            and x[12] == "NVIDIA A100-SXM4-80GB") or \
       (x[0] in ("llama4_rope", "relu_squared") and x[12] == "NVIDIA H100 80GB HBM3"):
        w.writerow(x)
PY
"$KIXD" init --store "$WORK/log" --admin-key "$WORK/log/admin.key" --origin kix.query/log >"$WORK/vkey" 2>/dev/null
export KIX_LOG_KEY="$(cat "$WORK/vkey")"
"$KIX" keygen --name imp --out "$WORK/imp" >/dev/null 2>&1
"$KIX" key add --store "$WORK/log" --key "$WORK/log/admin.key" --role publish "$WORK/imp.pub" >/dev/null
"$KIX_BIN/kix-import-liger" --key "$WORK/imp.key" --store "$WORK/log" "$WORK/s.csv" >/dev/null

count() { # count ARGS...: how many runs kix query matches
  "$KIX" query --store "$WORK/log" --json --limit 1 "$@" | python3 -c 'import json,sys; print(json.load(sys.stdin)["matched"])'
}
A100=128 H100=128
for g in A100 a100 A100-SXM4 "NVIDIA A100-SXM4-80GB" "a100 80gb" "nvidia a100"; do
  [ "$(count --gpu "$g")" = $A100 ] || fail "--gpu '$g' matches $(count --gpu "$g"), want $A100"
done
for g in H100 "H100 80GB" "NVIDIA H100-SXM5-80GB" h100-sxm5; do
  [ "$(count --gpu "$g")" = $H100 ] || fail "--gpu '$g' matches $(count --gpu "$g"), want $H100"
done
for g in A10 SXM4-40GB "A100 H100" 100; do
  [ "$(count --gpu "$g")" = 0 ] || fail "--gpu '$g' matches $(count --gpu "$g"), want 0"
done
pass "--gpu matches A100, A100-SXM4, NVIDIA A100-SXM4-80GB (and not A10)"

[ "$(count --kernel rope)" = 64 ] || fail "--kernel rope: $(count --kernel rope)"
[ "$(count --kernel ROPE)" = 64 ] || fail "--kernel ROPE"
[ "$(count --kernel fused_linear_grpo_loss)" = 64 ] || fail "family: $(count --kernel fused_linear_grpo_loss)"
[ "$(count --kernel fused_linear_grpo_loss_token)" = 32 ] || fail "exact kernel"
[ "$(count --kernel fused_linear_grpo_loss_t)" = 0 ] || fail "a part of a word is no family"
[ "$(count --kernel 'fused_linear_grpo_loss_t*')" = 32 ] || fail "prefix with *"
[ "$(count --kernel 'llama*')" = 64 ] || fail "prefix llama*"
[ "$(count --kernel rope --gpu h100)" = 0 ] || fail "rope is not llama4_rope"
pass "--kernel matches a kernel, its family, or a prefix with *"

# every filter's matches are proven from the index's selection records:
# the provider's (per run), the pass's and the metric's (per group) each
# add up to all runs, and a filter on several is their intersection
ALL=$(count)
[ "$ALL" = 256 ] || fail "all: $ALL"
sum=0; for p in liger huggingface torch LIGER-not; do sum=$((sum + $(count --provider "$p"))); done
[ "$(count --provider liger)" -gt 0 ] && [ "$sum" = "$ALL" ] || fail "providers add up to $sum"
sum=0; for m in forward backward full; do sum=$((sum + $(count --mode "$m"))); done
[ "$sum" = "$ALL" ] || fail "passes add up to $sum"
[ $(( $(count --metric latency) + $(count --metric peak_memory) )) = "$ALL" ] || fail "metrics"
[ "$(count --kernel rope --provider LIGER --mode full --metric latency --gpu a100)" -gt 0 ] || fail "all filters"
[ "$(count --provider liger --gpu h100 --kernel rope)" = 0 ] || fail "an empty intersection"
expect_status 0 "$KIX" query --store "$WORK/log" --json --provider torch --limit 1000
[ "$(json_get "$WORK/out" 'd["proven"]["matches"] and d["proven"]["selections"] > 0 and all(r["provider"] == "torch" for r in d["runs"]) and len(d["runs"]) == d["matched"]')" = True ] ||
  fail "--provider torch: $(head -c 300 "$WORK/out")"
# --dtype: the values the index lists (sel/dtype's first page) add up to all
"$KIX" index --store "$WORK/log" --json sel/dtype/0 >"$WORK/dtypes.json"
DTYPES=$(python3 -c '
import json, sys
r = bytes.fromhex(json.load(open(sys.argv[1]))["record"])
at, out = 17, []
while at < len(r):
    n = r[at] << 8 | r[at + 1]; out.append(r[at + 2:at + 2 + n].decode()); at += 2 + n
print(" ".join(v for v in out if v))' "$WORK/dtypes.json")
[ -n "$DTYPES" ] || fail "no dtype listed: $(cat "$WORK/dtypes.json")"
sum=0; for t in $DTYPES; do sum=$((sum + $(count --dtype "$t"))); done
[ "$sum" -gt 0 ] && [ "$sum" -le "$ALL" ] || fail "dtypes add up to $sum"
start_kixd "$WORK/log"
t=${DTYPES%% *}
expect_status 0 "$KIX" query --server "$KIXD_ADDR" --json --dtype "$t" --kernel rope --limit 1000
[ "$(json_get "$WORK/out" 'd["proven"]["matches"] and d["matched"] == len(d["runs"]) > 0')" = True ] ||
  fail "--dtype $t through kixd: $(head -c 300 "$WORK/out")"
stop_kixd
pass "--provider, --mode, --metric, --dtype and their intersections are proven from selection records"

expect_status 0 "$KIX" query --store "$WORK/log" --json --limit 1000
cp "$WORK/out" "$WORK/all.json"
# kixd answers a filtered query from the selection records, the whole log
# without filters by a scan: the same runs, in the same order
for f in "--provider liger --mode full" "--kernel fused_linear_grpo_loss --metric latency" \
  "--gpu h100 --provider torch"; do
  # shellcheck disable=SC2086
  expect_status 0 "$KIX" query --store "$WORK/log" --json --limit 1000 $f
  python3 - "$WORK/all.json" "$WORK/out" $f <<'PY' || fail "query $f is not the scan's matches in order"
import json, sys
a = json.load(open(sys.argv[1]))["runs"]
f = json.load(open(sys.argv[2]))
args = dict(zip(sys.argv[3::2], sys.argv[4::2]))
def ok(r):
    for k, v in args.items():
        k = k[2:]
        if k == "kernel" and not (r["kernel"] == v or r["kernel"].startswith(v + "_")):
            return False
        if k == "gpu" and v.lower() not in r["gpu"].lower():
            return False
        if k in ("provider", "mode", "metric") and r[k].lower() != v.lower():
            return False
    return True
want = [r["runId"] for r in a if ok(r)]
got = [r["runId"] for r in f["runs"]]
assert want and got == want and f["matched"] == len(want), (len(got), len(want))
PY
done
start_kixd "$WORK/log"
: >"$WORK/pages.jsonl"
for off in 0 100 200; do
  expect_status 0 "$KIX" query --server "$KIXD_ADDR" --json --offset $off --limit 100
  cat "$WORK/out" >>"$WORK/pages.jsonl"
done
stop_kixd
python3 - "$WORK/all.json" "$WORK/pages.jsonl" <<'PY' || fail "order or paging"
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
assert len(runs) == 256, len(runs)
paged = [r for l in open(sys.argv[2]) for r in json.loads(l)["runs"]]
assert paged == runs, "pages through kixd differ from one local page"
seen, prev = set(), None
for r in runs:
    assert r["runId"] and r["workload"], r
    key = (r["kernel"].lower(), r["gpu"].lower(), r["mode"].lower(), r["metric"], r["group"])
    if prev is None or key[-1] != prev[-1]:
        assert r["group"] not in seen, "a group is split: %s" % r["group"]
        seen.add(r["group"])
        assert prev is None or key > prev, (prev, key)
        assert r["rank"] == 1, r
    else:
        assert r["rank"] == prev_rank + 1 and r["median"] >= prev_median, r
    prev, prev_rank, prev_median = key, r["rank"], r["median"]
PY
pass "best first in each group, groups by kernel, GPU, pass, metric; paging through kixd"

expect_status 0 "$KIX" query --store "$WORK/log" --kernel rope --limit 3
grep -q "^  rank .* workload .* run$" "$WORK/out" || fail "header: $(head -1 "$WORK/out")"
# the workload column: its parameters (a row's sweep is not the workload's, issue 37.5)
grep -qE '^ +1/[24] +[0-9.]+ us +rope +hidden=[0-9]+ kv_heads=8 q_heads=[0-9]* +NVIDIA .* [0-9a-f-]{36}$' "$WORK/out" || fail "row: $(cat "$WORK/out")"
grep -q "^64 matching runs (more with --offset); all matches, ranks and evidence proven by the log's signed index at size [0-9]*$" "$WORK/out" || fail "footer: $(tail -1 "$WORK/out")"
expect_status 2 "$KIX" query --store "$WORK/log" --limit 1001
pass "run id and workload columns"

# kix group: the page asked for, proven whole (tests/unit/test_query_verify.c
# plays the server whose pages lie)
G=$(json_get "$WORK/all.json" 'd["runs"][0]["group"]')
N=$(json_get "$WORK/all.json" 'd["runs"][0]["groupSize"]')
expect_status 0 "$KIX" group "$G" --store "$WORK/log" --offset 1 --limit 1 --json
[ "$(json_get "$WORK/out" '[r["rank"] for r in d["runs"]]')" = "[2]" ] || fail "group page: $(cat "$WORK/out")"
[ "$(json_get "$WORK/out" 'd["proven"]["matches"] and d["proven"]["evidence"]')" = True ] ||
  fail "group proof: $(cat "$WORK/out")"
expect_status 0 "$KIX" group "$G" --store "$WORK/log" --offset 1000
grep -q "^$N matching runs; the group's page, ranks and evidence proven by the log's signed index at size [0-9]*$" "$WORK/out" ||
  fail "group past its end: $(cat "$WORK/out")"
expect_status 0 "$KIX" query --store "$WORK/log" --group "$G" --json
[ "$(json_get "$WORK/out" 'd["proven"]["matches"]')" = True ] || fail "query --group: $(cat "$WORK/out")"
expect_status 2 "$KIX" group "$G" --store "$WORK/log" --kernel rope
pass "kix group and query --group show the proven page of the group's record"
