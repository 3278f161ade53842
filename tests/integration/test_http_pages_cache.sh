#!/usr/bin/env bash
# kixd --http keeps the pages it rendered in the last second, at the log's
# size (daemon/front/http_pages_cache.h): a page read many times at once is
# rendered once, yet a reader never gets a page older than the log, the
# JSON never for the HTML (or the other way round), nor one run's page for
# another's.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"

new_origin "$WORK/o"
"$KIX" keygen --name community --out "$WORK/att" >/dev/null 2>&1
"$KIX" key add --store "$WORK/o" --key "$WORK/o/admin.key" --role attest "$WORK/att.pub" >/dev/null
HPORT=$(free_port)
H="http://127.0.0.1:$HPORT"
serve o --http "tcp://127.0.0.1:$HPORT" --http-metrics
import "--server $(addr o)" 1 6 3 || fail "import: $(tail -3 "$WORK/import.log")"
read -r A B < <(python3 -c 'import json, sys
ids = [json.loads(l)["runId"] for l in open(sys.argv[1])]
print(ids[0], ids[1])' "$WORK/rows-1-6.map")
rendered() { curl -sf "$H/metrics" | awk '$1 == "kixd_http_pages_rendered_total" { print $2 }'; }

# ten reads of one page on one connection: one render (two if a second
# passed between them), ten identical answers
r0=$(rendered)
urls=()
for i in $(seq 1 10); do urls+=("$H/runs/$A.json" -o "$WORK/a.$i"); done
curl -sf "${urls[@]}" || fail "GET /runs/$A.json x10"
r1=$(rendered)
[ $((r1 - r0)) -ge 1 ] && [ $((r1 - r0)) -le 2 ] || fail "10 reads of one page: $((r1 - r0)) renders"
for i in $(seq 2 10); do cmp -s "$WORK/a.1" "$WORK/a.$i" || fail "answer $i differs from the first"; done
pass "ten reads of one page: $((r1 - r0)) render(s), the same bytes"

# the HTML and the JSON at one address, and another run, are other pages
# (one connection: curl --next keeps it, so one worker and its cache answer)
curl -sf -D "$WORK/h1" "$H/runs/$A" -o "$WORK/a.html" \
  --next -sf -H 'Accept: application/json' -D "$WORK/h2" "$H/runs/$A" -o "$WORK/a2.json" \
  --next -sf -D "$WORK/h3" "$H/runs/$B.json" -o "$WORK/b.json" || fail "GET pages"
grep -qi '^content-type: text/html' "$WORK/h1" && grep -q '<html' "$WORK/a.html" || fail "the HTML after the JSON: $(head -c 200 "$WORK/a.html")"
grep -qi '^content-type: application/json' "$WORK/h2" && cmp -s "$WORK/a.1" "$WORK/a2.json" || fail "Accept: application/json after the HTML"
grep -q "\"runId\":\"$B\"" "$WORK/b.json" && ! grep -q "\"runId\":\"$A\"" "$WORK/b.json" || fail "run $B's JSON: $(head -c 200 "$WORK/b.json")"
pass "HTML, JSON (by .json and by Accept) and another run's page each their own"

# a note on run A, then at once its page: at the new size, with the note
size=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["treeSize"])' "$WORK/a.1")
"$KIX" attest --server "$(addr o)" --log-key "$WORK/vkey" --key "$WORK/att.key" --note "seen it" "$A" >/dev/null ||
  fail "kix attest"
curl -sf "$H/runs/$A.json" -o "$WORK/a.after" || fail "GET /runs/$A.json after the note"
python3 - "$WORK/a.after" "$size" <<'PY' || fail "the page after the note: $(head -c 300 "$WORK/a.after")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["treeSize"] == int(sys.argv[2]) + 1, (d["treeSize"], sys.argv[2])
assert "seen it" in json.dumps(d), "the note is missing"
PY
pass "the page right after the log grew is at the new size (size $((size + 1))), with the note"
