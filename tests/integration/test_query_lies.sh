#!/usr/bin/env bash
# Issue 25, proven selections: a server whose query answers lie while its
# index is honest (tests/integration/lying_query_proxy.py between kix and
# kixd). kix group, and kix query --group, show exactly the page of the
# group's proven record: a dropped best or later run, a run twice, the rows
# reversed, another group's run mixed in, the first page again for
# --offset 1, or another match count is refused with exit 1; so is a row
# whose evidence is not its run record's, on any query. kix query proves
# its whole selection from the index's selection records (PROTOCOL.md §4)
# and computes its page from them itself (issue 42, item 5): a run or a
# whole group dropped, a row of another kernel added (each with the match
# count made to agree), another match count or another evidence in the
# server's answer change nothing it shows (tests/integration/
# test_query_pages.sh: shifted offsets). Honest answers pass.
. "$KIX_TESTS/integration/lib.sh"

python3 - "$KIX_TESTS/data/liger/all_benchmark_data.csv" "$WORK/s.csv" <<'PY'
import csv, sys
r = csv.reader(open(sys.argv[1], newline="")); w = csv.writer(open(sys.argv[2], "w", newline=""))
w.writerow(next(r))
for x in r:
    if x[0] in ("rope", "swiglu") and x[12] == "NVIDIA A100-SXM4-80GB":
        w.writerow(x)
PY
"$KIXD" init --store "$WORK/log" --admin-key "$WORK/log/admin.key" --origin kix.query-lies/log >"$WORK/vkey" 2>/dev/null
export KIX_LOG_KEY="$(cat "$WORK/vkey")"
"$KIX" keygen --name imp --out "$WORK/imp" >/dev/null 2>&1
"$KIX" key add --store "$WORK/log" --key "$WORK/log/admin.key" --role publish "$WORK/imp.pub" >/dev/null
"$KIX_BIN/kix-import-liger" --key "$WORK/imp.key" --store "$WORK/log" "$WORK/s.csv" >/dev/null
start_kixd "$WORK/log"

. "$KIX_TESTS/integration/query_liar_lib.sh"

expect_status 0 "$KIX" query --server "$KIXD_ADDR" --json --limit 1000
G=$(json_get "$WORK/out" 'd["runs"][0]["group"]')
N=$(json_get "$WORK/out" 'd["runs"][0]["groupSize"]')
G2=$(json_get "$WORK/out" 'd["runs"][-1]["group"]')
[ "$G2" != "$G" ] || fail "two groups at least"
[ "$N" -ge 2 ] || fail "a group of two runs or more: $N"

liar honest
expect_status 0 "$KIX" group "$G" "${LIAR[@]}"
expect_status 0 "$KIX" group "$G" "${LIAR[@]}" --offset 1 --limit 1
expect_status 0 "$KIX" query "${LIAR[@]}" --group "$G"
expect_status 0 "$KIX" query "${LIAR[@]}" --kernel rope
pass "honest answers through the proxy pass"

for lie in drop-best drop-last duplicate reversed foreign matched; do
  liar "$lie"
  # the foreign lie mixes in a row of an earlier answer
  [ "$lie" != foreign ] || "$KIX" group "$G2" "${LIAR[@]}" >/dev/null 2>&1 || true
  expect_status 1 "$KIX" group "$G" "${LIAR[@]}"
  grep -q "group sha256:[0-9a-f]*\|in group\|the server" "$WORK/err" || fail "$lie: $(cat "$WORK/err")"
  expect_status 1 "$KIX" query "${LIAR[@]}" --group "$G"
done
pass "a group's page with a run dropped (best or later), twice, reversed, foreign, or a wrong count is refused"

liar page1
expect_status 1 "$KIX" group "$G" "${LIAR[@]}" --offset 1
grep -q "from rank 2 shows run .* where the log's signed index at size [0-9]* has another run" "$WORK/err" ||
  fail "page1: $(cat "$WORK/err")"
expect_status 0 "$KIX" group "$G" "${LIAR[@]}"
pass "the first page again for --offset 1 is refused"

expect_status 0 "$KIX" query --server "$KIXD_ADDR" --json --kernel rope
cp "$WORK/out" "$WORK/rope.json"
for lie in drop-middle drop-group other-kernel matched evidence; do
  liar "$lie"
  # other-kernel adds a row of an earlier answer's other kernel
  [ "$lie" != other-kernel ] || "$KIX" group "$G2" "${LIAR[@]}" >/dev/null 2>&1 || true
  expect_status 0 "$KIX" query "${LIAR[@]}" --json --kernel rope
  cmp -s "$WORK/out" "$WORK/rope.json" || fail "$lie: kix query shows another answer: $(head -c 300 "$WORK/out")"
done
pass "kix query computes its page itself: a dropped run or group, another kernel's row, another count or evidence in the server's answer change nothing"

liar evidence
expect_status 1 "$KIX" query "${LIAR[@]}" --group "$G"
grep -q "the server says run .* is reproduced; the log's signed index at size [0-9]* says reported" "$WORK/err" ||
  fail "evidence: $(cat "$WORK/err")"
expect_status 1 "$KIX" group "$G" "${LIAR[@]}"
pass "evidence other than the run record's is refused"
