#!/usr/bin/env bash
# Issue 18, citations: kix cite --format text|bibtex|csl-json, and a warning
# naming the successor when the cited run was superseded.
. "$KIX_TESTS/integration/lib.sh"

"$KIXD" init --store "$WORK/log" --admin-key "$WORK/log/admin.key" --origin kix.cite/log >"$WORK/vkey" 2>/dev/null
export KIX_LOG_KEY="$(cat "$WORK/vkey")"
"$KIX" keygen --name pub --out "$WORK/pub" >/dev/null 2>&1
"$KIX" key add --store "$WORK/log" --key "$WORK/log/admin.key" --role publish "$WORK/pub.pub" >/dev/null
make_manifests "$WORK/m1" 1
make_manifests "$WORK/m2" 2
"$KIX" publish --store "$WORK/log" --key "$WORK/pub.key" --run-id run-1 "$WORK/m1/run.json" \
  "$WORK/m1/workload.json" >/dev/null
TODAY=$(date -u +%F)

expect_status 0 "$KIX" cite --store "$WORK/log" run-1
grep -q "^https://kix.cite/log/runs/run-1 (sha256:[0-9a-f]*), kix log kix.cite/log entry 2, checkpoint 3/.*, accessed $TODAY\$" \
  "$WORK/out" || fail "text: $(cat "$WORK/out")"
[ -s "$WORK/err" ] && fail "warning for a current run: $(cat "$WORK/err")"
expect_status 0 "$KIX" cite --store "$WORK/log" --format text run-1
expect_status 0 "$KIX" cite --store "$WORK/log" --format bibtex run-1
cp "$WORK/out" "$WORK/bib"
python3 - "$WORK/bib" "$TODAY" <<'PY' || fail "bibtex: $(cat "$WORK/bib")"
import re, sys
t = open(sys.argv[1]).read()
assert t.startswith("@misc{kix:run-1,\n") and t.endswith("}\n"), t
fields = dict(re.findall(r"^  ([a-z]+) = \{(.*)\},$", t, re.M))
assert fields["url"] == "https://kix.cite/log/runs/run-1", fields
assert fields["urldate"] == sys.argv[2] and fields["year"] == sys.argv[2][:4], fields
assert fields["howpublished"] == "kix transparency log kix.cite/log, entry 2", fields
assert fields["note"].startswith("Manifest sha256:"), fields
assert t.count("{") == t.count("}"), "unbalanced braces"
PY
expect_status 0 "$KIX" cite --store "$WORK/log" --format=csl-json run-1
python3 - "$WORK/out" "$TODAY" <<'PY' || fail "csl-json: $(cat "$WORK/out")"
import json, sys
items = json.load(open(sys.argv[1]))
assert isinstance(items, list) and len(items) == 1, items
i = items[0]
y, m, d = map(int, sys.argv[2].split("-"))
assert i["id"] == "run-1" and i["type"] == "dataset", i
assert i["URL"] == "https://kix.cite/log/runs/run-1" and i["publisher"] == "kix.cite/log", i
assert i["accessed"] == {"date-parts": [[y, m, d]]} and i["issued"] == {"date-parts": [[y, m, d]]}, i
assert i["title"] == "Benchmark run run-1" and "superseded" not in i["note"], i
PY
expect_status 2 "$KIX" cite --store "$WORK/log" --format ris run-1
expect_status 2 "$KIX" cite --store "$WORK/log" --format bibtex --json run-1
pass "kix cite --format text, bibtex and csl-json"

"$KIX" supersede --store "$WORK/log" --key "$WORK/pub.key" --run-id run-2 --reason "fixed timer" run-1 \
  "$WORK/m2/run.json" "$WORK/m2/workload.json" >/dev/null
for f in text bibtex csl-json; do
  expect_status 0 "$KIX" cite --store "$WORK/log" --format $f run-1
  grep -q "^kix cite: warning: run run-1 was superseded by run run-2 (log entry 4); cite https://kix.cite/log/runs/run-2 for the corrected result\$" \
    "$WORK/err" || fail "no warning ($f): $(cat "$WORK/err")"
  grep -q "superseded by https://kix.cite/log/runs/run-2" "$WORK/out" || [ $f = text ] ||
    fail "note ($f): $(cat "$WORK/out")"
done
start_kixd "$WORK/log"
expect_status 0 "$KIX" cite --server "$KIXD_ADDR" --json run-1
grep -q "superseded by run run-2" "$WORK/err" || fail "no warning via kixd: $(cat "$WORK/err")"
[ "$(json_get "$WORK/out" 'd["supersededBy"]')" = https://kix.cite/log/runs/run-2 ] || fail "json supersededBy"
cp "$WORK/out" "$WORK/cite.json"
expect_status 0 "$KIX" verify-citation --server "$KIXD_ADDR" "$WORK/cite.json"
expect_status 0 "$KIX" cite --server "$KIXD_ADDR" run-2
[ -s "$WORK/err" ] && fail "warning for the successor: $(cat "$WORK/err")"
stop_kixd
pass "citing a superseded run warns and names the successor"
