#!/usr/bin/env bash
# Issue 42, item 5: query pages proven as parts of one answer. Through a
# server that moves the offset of every query it is asked (by -10, -3, -1,
# +1, +3, +10) or ignores it (tests/integration/lying_query_proxy.py, the
# index honest), every page of kix query --kernel tiled_geglu --limit 10
# --offset N is either refused (exit 1) or exactly the page of the honest
# answer: no run shown twice, none skipped, for the 120 runs of Liger's
# tiled_geglu. (kix query computes the page from the proven selection and
# group records itself, so the lie has nothing to move.)
. "$KIX_TESTS/integration/lib.sh"

python3 - "$KIX_TESTS/data/liger/all_benchmark_data.csv" "$WORK/s.csv" <<'PY'
import csv, sys
r = csv.reader(open(sys.argv[1], newline="")); w = csv.writer(open(sys.argv[2], "w", newline=""))
w.writerow(next(r))
for x in r:
    if x[0] in ("tiled_geglu", "swiglu"):
        w.writerow(x)
PY
"$KIXD" init --store "$WORK/log" --admin-key "$WORK/log/admin.key" --origin kix.query-pages/log >"$WORK/vkey" 2>/dev/null
export KIX_LOG_KEY="$(cat "$WORK/vkey")"
"$KIX" keygen --name imp --out "$WORK/imp" >/dev/null 2>&1
"$KIX" key add --store "$WORK/log" --key "$WORK/log/admin.key" --role publish "$WORK/imp.pub" >/dev/null
"$KIX_BIN/kix-import-liger" --key "$WORK/imp.key" --store "$WORK/log" "$WORK/s.csv" >/dev/null
start_kixd "$WORK/log"

. "$KIX_TESTS/integration/query_liar_lib.sh"

# the honest answer, one page of all
expect_status 0 "$KIX" query --server "$KIXD_ADDR" --json --kernel tiled_geglu --limit 1000
cp "$WORK/out" "$WORK/truth.json"
[ "$(json_get "$WORK/truth.json" 'd["matched"] == len(d["runs"]) == 120')" = True ] ||
  fail "tiled_geglu: $(head -c 300 "$WORK/truth.json")"

for lie in shift-1 shift-3 shift-10 shift+1 shift+3 shift+10 ignore-offset; do
  liar "$lie"
  : >"$WORK/pages.txt"
  for off in $(seq 0 10 110); do
    set +e
    "$KIX" query "${LIAR[@]}" --json --kernel tiled_geglu --limit 10 --offset "$off" >"$WORK/out" 2>"$WORK/err"
    st=$?
    set -e
    case $st in
    0) echo "$off $(tr -d '\n' <"$WORK/out")" >>"$WORK/pages.txt" ;;
    1) grep -q "server\|signed index" "$WORK/err" || fail "$lie, offset $off: exit 1 without naming why: $(cat "$WORK/err")" ;;
    *) fail "$lie, offset $off: exit $st: $(cat "$WORK/err")" ;;
    esac
  done
  python3 - "$WORK/truth.json" "$WORK/pages.txt" "$lie" <<'PY' || fail "$lie: a page shows other runs than the answer's"
import json, sys
truth = [r["runId"] for r in json.load(open(sys.argv[1]))["runs"]]
shown = []
for line in open(sys.argv[2]):
    off, page = line.split(" ", 1)
    off, page = int(off), json.loads(page)
    got = [r["runId"] for r in page["runs"]]
    assert got == truth[off:off + 10], "%s: page at offset %d shows %s, not %s" % (
        sys.argv[3], off, got, truth[off:off + 10])
    assert page["matched"] == 120, page["matched"]
    shown += got
assert len(shown) == len(set(shown)), "a run shown twice"
PY
done
pass "a server that shifts or ignores --offset is caught or harmless on every page of kix query"
