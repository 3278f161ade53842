#!/usr/bin/env bash
# Issue 37 point 2 and point 11 (first part): a static copy is navigable on
# any server that types files by their extension alone. kixd export writes
# every page under a .html name and every link on every page names one
# (PROTOCOL.md §3, "The static copy's layout"); python3 -m http.server then
# answers every link of every page (home pages, kernel pages, groups and
# their later pages, runs) with text/html, and every data link (checkpoint,
# tiles, JSON) with 200. The extensionless permalinks stay (runs/<id>), and
# kixd --http answers the same links. One chromium opens each page kind
# from python's server: the pages load (no download), and the run and
# group pages verify. kixd's permalink in digest form, runs/sha256:<hex>,
# is the run of that manifest, and verifies. kixd export's summary counts
# every file and byte it wrote.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"

# 400 Liger rows (more than 100 groups: two home pages) and one row 110
# times, its median varied (a group of 110: two group pages)
python3 - "$CSV" "$WORK/rows.csv" <<'PY'
import csv, datetime, sys
src = csv.reader(open(sys.argv[1], newline=""))
head = next(src)
rows = list(src)
w = csv.writer(open(sys.argv[2], "w", newline=""))
w.writerow(head)
for r in rows[:400]:
    w.writerow(r)
t0 = datetime.datetime(2024, 9, 3, 15, 31, 39)
for i in range(110):
    r = list(rows[0])
    v = 0.5 + i / 1000.0
    r[8], r[9], r[10] = repr(v), repr(v * 0.99), repr(v * 1.01)
    r[13] = (t0 + datetime.timedelta(days=1, seconds=i)).strftime("%Y-%m-%d %H:%M:%S")
    w.writerow(r)
PY
new_origin "$WORK/o"
"$KIX_BIN/kix-import-liger" --key "$WORK/pub.key" --store "$WORK/o" --batch 200 --map "$WORK/rows.map" \
  "$WORK/rows.csv" >/dev/null 2>>"$WORK/import.log" || fail "import: $(tail -3 "$WORK/import.log")"

# the summary counts every file and byte written: on a first export, the
# whole tree (a hard link is a name of no new bytes)
expect_status 0 "$KIXD" export --store "$WORK/o" "$WORK/exp"
read -r FILES BYTES < <(sed -n 's/.*, \([0-9]*\) files, \([0-9]*\) bytes;.*/\1 \2/p' "$WORK/out")
WANT_FILES=$(find "$WORK/exp" -type f | wc -l)
WANT_BYTES=$(find "$WORK/exp" -type f -printf '%i %s\n' | sort -u | awk '{ s += $2 } END { print s }')
[ "$FILES" = "$WANT_FILES" ] && [ "$BYTES" = "$WANT_BYTES" ] ||
  fail "kixd export says $FILES files, $BYTES bytes; it wrote $WANT_FILES files, $WANT_BYTES bytes: $(cat "$WORK/out")"
# again: nothing new to write but what every export rewrites; --json says the same counts
expect_status 0 "$KIXD" export --store "$WORK/o" --json "$WORK/exp2"
python3 - "$WORK/out" "$(find "$WORK/exp2" -type f | wc -l)" <<'PY' || fail "kixd export --json: $(cat "$WORK/out")"
import json, sys
d = json.loads(open(sys.argv[1]).read())
assert d["ok"] is True and d["files"] == int(sys.argv[2]) and d["bytes"] > 0, d
assert d["runPages"] == 510 and d["escaped"] == 0 and d["skipped"] == 0, d
PY
pass "kixd export's summary counts every file and byte it wrote ($FILES files, $BYTES bytes; --json too)"

# python3 -m http.server: a type from the extension alone
PPORT=$(free_port)
(cd "$WORK/exp" && exec python3 -m http.server --bind 127.0.0.1 "$PPORT") >/dev/null 2>"$WORK/pyhttp.log" &
KIXD_PIDS+=("$!")
P="http://127.0.0.1:$PPORT"
for _ in $(seq 1 100); do curl -sf "$P/checkpoint" >/dev/null && break; sleep 0.1; done
python3 "$KIX_TESTS/integration/crawl_links.py" "$P/" >"$WORK/crawl.out" 2>"$WORK/crawl.err" ||
  fail "python3 -m http.server: $(tail -8 "$WORK/crawl.err")"
for kind in home home-page kernel group group-page run; do
  grep -q "^$kind [1-9]" "$WORK/crawl.out" || fail "the crawl opened no $kind page: $(cat "$WORK/crawl.out")"
done
pass "python3 -m http.server: every link of every page kind is text/html or a data file ($(grep '^links' "$WORK/crawl.out"))"

# the extensionless permalink is still there, the same page
RID=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["runId"])' "$WORK/rows.map")
[ "$WORK/exp/runs/$RID" -ef "$WORK/exp/runs/$RID.html" ] || fail "runs/$RID is not runs/$RID.html's hard link"
KERNEL=$(ls "$WORK/exp/kernels" | grep -v '\.' | head -1)
[ "$WORK/exp/kernels/$KERNEL" -ef "$WORK/exp/kernels/$KERNEL.html" ] || fail "kernels/$KERNEL has no .html twin"
NAME2=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pages"][1]["name"])' "$WORK/exp/search/pages.json") ||
  fail "the copy has no second home page"
[ "$WORK/exp/home/$NAME2" -ef "$WORK/exp/home/$NAME2.html" ] || fail "home/$NAME2 has no .html twin"
pass "every page keeps its extensionless permalink beside its .html name"

# kixd --http answers the same links (a sample of each kind: kixd renders them)
HPORT=$(free_port)
H="http://127.0.0.1:$HPORT"
serve o --http "tcp://127.0.0.1:$HPORT"
python3 "$KIX_TESTS/integration/crawl_links.py" "$H/" --per-kind 4 >"$WORK/crawl-kixd.out" 2>"$WORK/crawl.err" ||
  fail "kixd --http: $(tail -8 "$WORK/crawl.err")"
grep -q "^group-page [1-9]" "$WORK/crawl-kixd.out" || true
pass "kixd --http: the pages' links all answer ($(grep '^links' "$WORK/crawl-kixd.out"))"

# a permalink in digest form is the run of that manifest
DIGEST=$(curl -sf "$H/runs/$RID.json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["manifestDigest"])')
curl -sf -D "$WORK/dh" "$H/runs/$DIGEST" -o "$WORK/digest.html" || fail "kixd: GET runs/$DIGEST"
grep -qi '^content-type: text/html' "$WORK/dh" || fail "runs/$DIGEST is not HTML"
grep -qF "run $RID</title>" "$WORK/digest.html" || fail "runs/$DIGEST is not run $RID's page"
pass "kixd: runs/sha256:<manifest> is that run's page"

# chromium: each page kind from python's server loads as a page; the run
# and group pages verify; so does kixd's digest permalink
. "$KIX_TESTS/integration/dom_lib.sh"
trap 'stop_dom; cleanup' EXIT
start_dom
GROUP=$(grep -o 'href="../groups/sha256:[0-9a-f]*.html" id="g"' "$WORK/exp/runs/$RID.html" | sed -n '1s/^href="..\/groups\/\([^"]*\).html".*/\1/p')
BIG=$(python3 - "$WORK/exp/search" <<'PY'
import json, sys
ix = json.load(open(sys.argv[1] + "/index.json"))
rows = [dict(zip(ix["columns"], r)) for p in json.load(open(sys.argv[1] + "/pages.json"))["pages"]
        for r in json.load(open("%s/%s.json" % (sys.argv[1], p["name"])))["rows"]]
print(max(rows, key=lambda r: r["runs"])["group"])
PY
)
n=0
SWEEP=$(grep -o 'href="\.\./sweeps/[0-9a-f]*\.html"' "$WORK/exp/kernels/$KERNEL.html" | head -1 | sed 's|.*/sweeps/||; s|"$||')
[ -n "$SWEEP" ] || fail "kernels/$KERNEL.html links no sweep's page"
for page in "index.html|Kernels" "home/$NAME2.html|groups on this page" "kernels/$KERNEL.html|sweeps/" "sweeps/$SWEEP|<svg" \
  "groups/$GROUP.html|data-state=\"ok\"" "groups/$BIG-2.html|data-state=\"ok\"" \
  "runs/$RID.html|data-state=\"ok\"" "kixd|runs/$DIGEST|data-state=\"ok\""; do
  n=$((n + 1))
  url="$P/${page%%|*}" want=${page#*|}
  case "$page" in kixd\|*) rest=${page#kixd|}; url="$H/${rest%%|*}"; want=${rest#*|} ;; esac
  dom "$url" "$WORK/dom-$n.html" || fail "chromium cannot open $url: $(tail -2 "$WORK/chrome.log")"
  grep -qF "$want" "$WORK/dom-$n.html" ||
    fail "chromium at $url: no '$want' ($(grep -o 'id="verify-status"[^<]*<[^<]*' "$WORK/dom-$n.html" | head -1))"
done
pass "chromium: home, home page 2, kernel, sweep, group, group page 2 and run pages from python3 -m http.server, and kixd's digest permalink"
