#!/usr/bin/env bash
# The benchmark index through a real kixd: the full Liger-Kernel CSV imported
# over a socket (every row one run, a second import adds nothing), a full
# audit, the two example pages' medians, p20/p80 and ranks, and every
# group's ranking against a brute-force recomputation from the CSV.
source "$(dirname "$0")/lib.sh"
CSV="$KIX_TESTS/data/liger/all_benchmark_data.csv"
STORE="$WORK/log"

"$KIXD" init --store "$STORE" --admin-key "$STORE/admin.key" --origin index.test/log >"$WORK/vkey" 2>/dev/null
export KIX_LOG_KEY="$(cat "$WORK/vkey")"
"$KIX" keygen --name importer --out "$WORK/pub" >/dev/null 2>&1
"$KIX" key add --store "$STORE" --key "$STORE/admin.key" --role publish "$WORK/pub.pub" >/dev/null
start_kixd "$STORE"
export KIX_SERVER="$KIXD_ADDR"

"$KIX_BIN/kix-import-liger" --key "$WORK/pub.key" --server "$KIX_SERVER" --map "$WORK/map" \
  --json "$CSV" >"$WORK/imp1.json"
[ "$(json_get "$WORK/imp1.json" 'd["newEntries"]')" = 2448 ] || fail "first import: $(cat "$WORK/imp1.json")"
echo "import through kixd: $(json_get "$WORK/imp1.json" 'd["runsPerSecond"]') runs/s"
"$KIX_BIN/kix-import-liger" --key "$WORK/pub.key" --server "$KIX_SERVER" --json "$CSV" >"$WORK/imp2.json"
[ "$(json_get "$WORK/imp2.json" 'd["newEntries"]')" = 0 ] || fail "second import added entries"
[ "$(json_get "$WORK/imp2.json" 'd["duplicates"]')" = 2448 ] || fail "second import duplicates"
pass "2448 rows, 2448 runs; a second import adds nothing"

"$KIX" audit --json >"$WORK/audit.json"
[ "$(json_get "$WORK/audit.json" 'd["passed"]')" = True ] || fail "audit: $(cat "$WORK/audit.json")"
pass "audit of $(json_get "$WORK/audit.json" 'd["to"]') entries at $(json_get "$WORK/audit.json" 'd["entriesPerSecond"]') entries/s"

# The two example pages (../shared/examples): median, p20/p80 and rank.
page() { # page EXTERNAL_ID_PREFIX OUT
  local id
  id=$(grep -F "\"externalId\":\"$1" "$WORK/map" | head -1 | sed 's/.*"runId":"\([^"]*\)".*/\1/')
  [ -n "$id" ] || fail "no run for $1"
  "$KIX" show "$id" --json >"$2"
}
page "rope/forward/liger/nvidia-a100-sxm4-80gb/hidden512-kv_heads8-q_heads32-seq2048-bf16/" "$WORK/rope.json"
[ "$(json_get "$WORK/rope.json" 'd["manifest"]["spec"]["timing"]["latencyNs"]["median"]')" = 11360 ] || fail "rope median"
[ "$(json_get "$WORK/rope.json" '[m["value"] for m in d["manifest"]["spec"]["measurements"]]')" = "[10336, 11456]" ] ||
  fail "rope p20/p80"
[ "$(json_get "$WORK/rope.json" 'd["rank"]["rank"]')" = 1 ] || fail "rope rank: $(json_get "$WORK/rope.json" 'd.get("rank")')"
page "tiled_geglu/full/deepspeed_tiled/nvidia-geforce-rtx-4090/batch2-hidden2048-intermediate4096-seq16384-bf16/" \
  "$WORK/geglu.json"
[ "$(json_get "$WORK/geglu.json" 'd["manifest"]["spec"]["timing"]["latencyNs"]["median"]')" = 49462273 ] || fail "geglu median"
[ "$(json_get "$WORK/geglu.json" 'd["rank"]["rank"]')" = 4 ] || fail "geglu rank: $(json_get "$WORK/geglu.json" 'd.get("rank")')"
pass "example pages: rope 11.4 us rank 1, geglu 49.5 ms rank 4"

# Every group's ranking against a brute force over the CSV.
offset=0
: >"$WORK/rows.jsonl"
while :; do
  "$KIX" query --json --offset "$offset" --limit 1000 >"$WORK/q.json"
  n=$(json_get "$WORK/q.json" 'len(d["runs"])')
  json_get "$WORK/q.json" '"\n".join(json.dumps(r) for r in d["runs"])' >>"$WORK/rows.jsonl"
  [ "$n" -lt 1000 ] && break
  offset=$((offset + 1000))
done
python3 - "$CSV" "$WORK/rows.jsonl" <<'EOF' || fail "ranks differ from the brute force"
import csv, json, math, sys
from collections import defaultdict
# a group is a shape measured, however the row's sweep named it (issue
# 37.5): the config with the swept x in it, Liger's two spellings of one
# dimension as one (its H sweep's "H" is its T sweep's "hidden_size"), and
# without what says how the row was produced (sweep_dim, the harness's
# mode) or what the implementation is (num_shards)
ALIAS = {"H": "hidden_size", "T": "seq_len", "V": "vocab_size", "B": "batch_size",
         "bsz": "batch_size", "E": "num_experts"}
NOT_SHAPE = {"sweep_dim", "mode", "num_shards"}
want = defaultdict(list)
for row in csv.DictReader(open(sys.argv[1], newline="")):
    memory = row["metric_name"] == "memory"
    scale = 1048576.0 if memory else 1e6
    shape = {ALIAS.get(k, k): v for k, v in json.loads(row["extra_benchmark_config_str"]).items()
             if k not in NOT_SHAPE and k != row["x_name"] and v is not None}
    shape[ALIAS.get(row["x_name"], row["x_name"])] = float(row["x_value"])
    key = (row["kernel_name"], row["kernel_operation_mode"], row["metric_name"], row["gpu_name"],
           json.dumps({k: float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v
                       for k, v in shape.items()}, sort_keys=True))
    want[key].append(int(math.floor(float(row["y_value_50"]) * scale + 0.5)))
got = defaultdict(list)
for line in open(sys.argv[2]):
    if line.strip():
        r = json.loads(line)
        got[r["group"]].append((r["rank"], r["groupSize"], r["median"]))
got_lists = []
for runs in got.values():
    runs.sort()
    assert [r[0] for r in runs] == list(range(1, len(runs) + 1)), runs
    assert all(r[1] == len(runs) for r in runs), runs
    got_lists.append(tuple(r[2] for r in runs))
want_lists = [tuple(sorted(v)) for v in want.values()]
if sorted(got_lists) != sorted(want_lists):
    print("groups: %d here, %d brute force" % (len(got_lists), len(want_lists)))
    sys.exit(1)
print("ok: %d groups, %d runs ranked as the brute force ranks them"
      % (len(got_lists), sum(len(g) for g in got_lists)))
EOF
stop_kixd
