#!/usr/bin/env bash
# Issue 25/26: a group of 1,010 runs, paged (PROTOCOL.md §4.2). kix group
# --offset O --limit L (L at most 100) proves exactly that page from the
# group's signed directory and the pages that hold those ranks; a run's rank
# on a later page is proven by the directory and its page alone. Through a
# lying proxy (tests/integration/lying_query_proxy.py) the page with its
# best or middle row dropped, a row twice, the rows reversed, another
# group's row mixed in, a wrong count, or page 1 when asked --offset 1000 is
# refused with exit 1. The group's page of 100 costs a few kilobytes of
# proof, not the whole group.
. "$KIX_TESTS/integration/lib.sh"

# one group of 1,010 runs (one Liger row, its median and time varied) and a
# few runs of another group
python3 - "$KIX_TESTS/data/liger/all_benchmark_data.csv" "$WORK/big.csv" <<'PY'
import csv, datetime, sys
src = csv.reader(open(sys.argv[1], newline=""))
head = next(src)
rows = list(src)
w = csv.writer(open(sys.argv[2], "w", newline=""))
w.writerow(head)
t0 = datetime.datetime(2024, 9, 3, 15, 31, 39)
for i in range(1010):
    r = list(rows[0])
    v = 0.5 + ((i * 7919) % 1009) / 10000.0
    r[8], r[9], r[10] = repr(v), repr(v * 0.99), repr(v * 1.01)
    r[13] = (t0 + datetime.timedelta(seconds=i)).strftime("%Y-%m-%d %H:%M:%S")
    w.writerow(r)
for r in rows[1:4]:
    w.writerow(r)
PY
"$KIXD" init --store "$WORK/log" --admin-key "$WORK/log/admin.key" --origin kix.group-pages/log >"$WORK/vkey" 2>/dev/null
export KIX_LOG_KEY="$(cat "$WORK/vkey")"
"$KIX" keygen --name imp --out "$WORK/imp" >/dev/null 2>&1
"$KIX" key add --store "$WORK/log" --key "$WORK/log/admin.key" --role publish "$WORK/imp.pub" >/dev/null
"$KIX_BIN/kix-import-liger" --key "$WORK/imp.key" --store "$WORK/log" --batch 200 "$WORK/big.csv" \
  >/dev/null 2>"$WORK/import.log" || fail "import: $(tail -3 "$WORK/import.log")"
HPORT=$(free_port)
H="http://127.0.0.1:$HPORT"
KIXD_EXTRA=(--http "tcp://127.0.0.1:$HPORT")
start_kixd "$WORK/log"
S=(--server "$KIXD_ADDR")

expect_status 0 "$KIX" query "${S[@]}" --json --limit 1000
G=$(json_get "$WORK/out" '[r for r in d["runs"] if r["groupSize"] == 1010][0]["group"]')
[ -n "$G" ] || fail "no group of 1010 runs"
# another group, for the foreign lie (the few rows beside the big group's,
# after it in kix query's order)
expect_status 0 "$KIX" query "${S[@]}" --json --offset 1010 --limit 3
G2=$(json_get "$WORK/out" '[r for r in d["runs"] if r["group"] != "'"$G"'"][0]["group"]')
[ "$G2" != "$G" ] || fail "another group: $G2"

# ---- honest pages ------------------------------------------------------------------------
expect_status 0 "$KIX" group "$G" "${S[@]}" --json
[ "$(json_get "$WORK/out" 'len(d["runs"])')" = 100 ] || fail "the default page is not 100 rows"
expect_status 0 "$KIX" group "$G" "${S[@]}" --offset 1000 --json
json_get "$WORK/out" '(len(d["runs"]), d["runs"][0]["rank"], d["runs"][-1]["rank"], d["matched"])' \
  >"$WORK/last" || fail "page at 1000: $(cat "$WORK/out")"
[ "$(cat "$WORK/last")" = "(10, 1001, 1010, 1010)" ] || fail "page at 1000: $(cat "$WORK/last")"
MID=$(json_get "$WORK/out" 'd["runs"][4]["runId"]')
expect_status 0 "$KIX" group "$G" "${S[@]}" --offset 450 --limit 100
grep -q "^1010 matching runs (more with --offset); the group's page, ranks and evidence proven" "$WORK/out" ||
  fail "page at 450: $(tail -1 "$WORK/out")"
expect_status 2 "$KIX" group "$G" "${S[@]}" --limit 101
pass "kix group proves pages of 100 of a 1,010-run group, the last one short"

# over HTTP (kixd --http: the index's files, client/lib/source_http_query.c)
# the same proven pages, the group read from its directory and pages
for _ in $(seq 1 100); do curl -sf "$H/checkpoint" >/dev/null && break; sleep 0.05; done
for args in "group $G --offset 1000" "group $G --offset 450 --limit 100" "query --kernel cross_entropy --offset 995 --limit 30"; do
  read -ra A <<<"$args"
  expect_status 0 "$KIX" "${A[@]}" "${S[@]}" --json
  mv "$WORK/out" "$WORK/rpc.json"
  expect_status 0 "$KIX" "${A[@]}" --server "$H/" --json
  cmp -s "$WORK/rpc.json" "$WORK/out" || fail "kix $args over HTTP: $(diff "$WORK/rpc.json" "$WORK/out" | head -c 300)"
done
pass "kix group and kix query over HTTP: the RPC's pages of the 1,010-run group, proven alike"

# a run's rank on a later page, from the directory and that page
expect_status 0 "$KIX" show "${S[@]}" "$MID" --json
[ "$(json_get "$WORK/out" '"%d/%d" % (d["rank"]["rank"], d["rank"]["groupSize"])')" = "1005/1010" ] ||
  fail "rank of $MID: $(json_get "$WORK/out" 'd["rank"]')"
expect_status 0 "$KIX" index "${S[@]}" "group/${G#sha256:}"
grep -q "runs ranked   1010" "$WORK/out" && grep -q "pages         [0-9]" "$WORK/out" ||
  fail "the directory: $(cat "$WORK/out")"
pass "a run ranked 1005 of 1010 is proven by the directory and its page"

# ---- the group's web page, paged by 100 ----------------------------------------------------
for _ in $(seq 1 100); do curl -sf "$H/checkpoint" >/dev/null && break; sleep 0.05; done
curl -sf "$H/groups/$G?page=11" >"$WORK/p11.html" || fail "no page 11 of the group over HTTP"
grep -qF 'rows 1001–1010 of 1010' "$WORK/p11.html" || fail "page 11 does not say rows 1001–1010 of 1010"
grep -q '<h1 data-kix-slot="group-title">cross_entropy · ' "$WORK/p11.html" ||
  fail "the group's title is not in words: $(grep -o '<h1[^<]*' "$WORK/p11.html")"
[ "$(grep -c '<tr data-rank=' "$WORK/p11.html")" = 10 ] || fail "page 11 has not 10 rows"
grep -q '<svg class="chart bars"' "$WORK/p11.html" && [ "$(grep -o '<rect ' "$WORK/p11.html" | wc -l)" = 10 ] ||
  fail "page 11 has no chart of its 10 rows"
grep -q 'href="?page=10" rel="prev"' "$WORK/p11.html" || fail "page 11 links no previous page"
# the export writes every page: groups/<key>, groups/<key>-2 .. -11, each linking the next by file
"$KIXD" export --store "$WORK/log" "$WORK/exp" >/dev/null 2>"$WORK/export.err" || fail "export: $(cat "$WORK/export.err")"
[ -f "$WORK/exp/groups/$G-11" ] && [ -f "$WORK/exp/groups/$G-11.json" ] && [ ! -e "$WORK/exp/groups/$G-12" ] ||
  fail "the export has not pages 2 to 11 of the group: $(ls "$WORK/exp/groups" | head)"
grep -qF 'rows 1001–1010 of 1010' "$WORK/exp/groups/$G-11" || fail "the exported page 11 is not rows 1001–1010"
grep -qF "href=\"./$G-2.html\" rel=\"next\"" "$WORK/exp/groups/$G" || fail "the exported first page links no file of page 2"
grep -qF "href=\"./$G.html\" rel=\"prev\"" "$WORK/exp/groups/$G-2" || fail "the exported page 2 links no first page"
curl -sf "$H/groups/$G.json?page=2" >"$WORK/p2.json" || fail "no JSON of page 2"
# an exported page carries no #kix-view: its verifier reads groups/<key>-N.json
grep -q 'id="kix-view"' "$WORK/exp/groups/$G-2" && fail "the exported page 2 embeds its view"
# the copy's view (layout 4) is kixd's without what the copy holds as
# files: each row's manifest, implementation, run record and proof, and
# the index proofs; the rest, what the page shows, byte for byte
python3 - "$WORK/exp/groups/$G-2.json" "$WORK/p2.json" <<'PY' || fail "the exported groups/<key>-2.json is not kixd's JSON of page 2 less what the copy holds as files"
import json, sys
copy, live = (json.load(open(f)) for f in sys.argv[1:3])
assert "index" not in copy, "the copy's group view carries index proofs"
for k in ("workloadCanonical", "environmentCanonical"):
    assert k not in copy, "the copy's group view carries " + k
    live.pop(k)
for r in copy["rows"]:
    for k in ("manifestCanonical", "implementationCanonical", "runRecord", "runProof"):
        assert k not in r, "a copy's row carries " + k
live.pop("index")
for r in live["rows"]:
    for k in ("manifestCanonical", "implementationCanonical", "runRecord", "runProof"):
        r.pop(k)
assert copy == live, "the copy's view and kixd's differ in what the page shows"
PY
json_get "$WORK/p2.json" '(d["offset"], d["limit"], len(d["rows"]), d["rows"][0]["rank"], d["size"], len(d["index"]["pages"]) >= 1)' \
  >"$WORK/p2" || fail "page 2's JSON: $(head -c 300 "$WORK/p2.json")"
[ "$(cat "$WORK/p2")" = "(100, 100, 100, 101, 1010, True)" ] || fail "page 2's JSON: $(cat "$WORK/p2")"
# every row carries what proves its cells: the run's record and proof, its
# manifest and implementation (PROTOCOL.md, the kix.group/1 document)
json_get "$WORK/p2.json" 'all(r.get("runRecord") and r.get("runProof") and r.get("manifestCanonical") and r.get("implementationCanonical") and r["provider"] for r in d["rows"])' \
  >"$WORK/p2rows" || fail "page 2's rows"
[ "$(cat "$WORK/p2rows")" = True ] || fail "page 2's rows do not all carry their run's record, proof, manifest and implementation"
echo "page 2's JSON: $(wc -c <"$WORK/p2.json") bytes for 100 rows with their proofs (kixd), $(wc -c <"$WORK/exp/groups/$G-2.json") in the copy"
pass "the group's web page: page 11 of 11 proves rows 1001–1010 of 1010, titled in words, with its chart and JSON, from kixd and the export"

# ---- lies --------------------------------------------------------------------------------
. "$KIX_TESTS/integration/query_liar_lib.sh"
# the last 20 rows (a full page could not take a row more: that answer is
# malformed, exit 3, before any proof)
liar honest
expect_status 0 "$KIX" group "$G" "${LIAR[@]}" --offset 990
for lie in drop-best drop-middle drop-last duplicate reversed foreign matched; do
  liar "$lie"
  # the foreign lie mixes in a row of an earlier answer (another group's)
  [ "$lie" != foreign ] || "$KIX" group "$G2" "${LIAR[@]}" >/dev/null 2>&1 || true
  expect_status 1 "$KIX" group "$G" "${LIAR[@]}" --offset 990
  grep -q "group sha256:[0-9a-f]*\|in group\|the server" "$WORK/err" || fail "$lie: $(cat "$WORK/err")"
done
liar page1
expect_status 1 "$KIX" group "$G" "${LIAR[@]}" --offset 1000
grep -q "from rank 1001 shows run .* where the log's signed index at size [0-9]* has another run" "$WORK/err" ||
  fail "page1: $(cat "$WORK/err")"
pass "a page with its best, middle or last row dropped, a row twice, reversed, foreign, a wrong count, or page 1 for --offset 1000 is refused"
