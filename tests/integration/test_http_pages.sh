#!/usr/bin/env bash
# Permalinks that resolve: kixd --http serves runs/<runId> (HTML, static,
# readable without its one script), runs/<runId>.json (also for Accept: application/json),
# groups/<key> and a home page, from the index, read here with curl only.
# The rope runs of the Liger data give a median with p20/p80, a rank in a
# group of two and evidence.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"
source "$(dirname "$0")/tlog_lib.sh"

new_origin "$WORK/o"
{ sed -n 1p "$CSV"; awk '/^rope,/ && n++ < 40' "$CSV"; } >"$WORK/rope.csv"
"$KIX_BIN/kix-import-liger" --key "$WORK/pub.key" --store "$WORK/o" --batch 10 --map "$WORK/rope.map" \
  "$WORK/rope.csv" >/dev/null 2>>"$WORK/import.log" || fail "import: $(tail -3 "$WORK/import.log")"
RID=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    if d["externalId"].startswith("rope/forward/liger/nvidia-a100-sxm4-80gb/hidden512-"):
        print(d["runId"]); break' "$WORK/rope.map")
[ -n "$RID" ] || fail "no rope run in the map"
HPORT=$(free_port)
H="http://127.0.0.1:$HPORT"
serve o --http "tcp://127.0.0.1:$HPORT" --export "$WORK/exp"

curl -sf -D "$WORK/h" "$H/runs/$RID" -o "$WORK/page.html" || fail "GET /runs/$RID"
grep -qi '^content-type: text/html; charset=utf-8' "$WORK/h" || fail "page content type"
grep -qi '^etag: ' "$WORK/h" && grep -qi '^cache-control: public, max-age=5' "$WORK/h" || fail "page headers: $(cat "$WORK/h")"
for want in '<span class="big" data-kix-slot="median" id="median">11.4 µs</span> <span class="muted">latency median</span>' \
  '<span data-kix-slot="spread">10.3 µs – 11.5 µs</span>' 'id="rank">Rank 1 of 2</span>' 'href="../groups/sha256:' \
  'id="evidence">Reported evidence</span>' '<td>publication</td>' 'href="../tile/0/000.p/' 'href="../tile/entries/000.p/' \
  "https://kix.test/log/runs/$RID" '<h2>Canonical manifest</h2>' 'data-kix-ptr="/spec/hardware" data-kix-fmt="gpu">NVIDIA A100 (sm_80)</td>' \
  '<h1 data-kix-slot="title">Liger · Rotary position embedding · hidden = 512 · kv_heads = 8 · q_heads = 32 · seq = 2048 · forward · NVIDIA A100 · bf16</h1>' \
  '<h2>Identity</h2>' '<h2>Correctness</h2>' '<h2>Workload</h2>' '<h2>Measurements</h2>' '<h2>Protocol</h2>' \
  '<h2>Environment</h2>' '<h2>Artifacts</h2>' '<h2>Cite this record</h2>' \
  '<table class="kv" data-kix-object="workloadDigest">' '<td data-kix-ptr="/spec/parameters/seq" data-kix-fmt="count">2048</td>'; do
  grep -qF "$want" "$WORK/page.html" || fail "the run page lacks: $want"
done
# one script, the project's own verifier (test_http_verify_browser.sh runs
# it), and one data block, not executed: the run's view with the proofs it checks
[ "$(grep -o '<script[^>]*>' "$WORK/page.html" | grep -v '^<script type="application/json" id="kix-view">$')" = \
  '<script src="../kix-verify.js" defer>' ] ||
  fail "the run page's scripts: $(grep -o '<script[^>]*>' "$WORK/page.html")"
grep -c '<script type="application/json" id="kix-view">' "$WORK/page.html" | grep -qx 1 ||
  fail "the run page carries no view"
for slot in rank evidence; do
  grep -qF "data-kix-slot=\"$slot\"" "$WORK/page.html" || fail "the run page has no $slot slot"
done
grep -qF '<div id="kix-verify" data-page="run"' "$WORK/page.html" || fail "the run page's #kix-verify"
grep -qF 'id="verify-status" data-state="none"><b>Not verified by this page</b>' "$WORK/page.html" ||
  fail "the run page does not say it is unverified without JavaScript"
pass "run page: median, p20/p80, rank, group link, evidence, entries with tile links, citation, manifest"

curl -sf "$H/runs/$RID.json" -o "$WORK/run.json" || fail "GET /runs/$RID.json"
curl -sf -H 'Accept: application/json' "$H/runs/$RID" -o "$WORK/run2.json" || fail "GET with Accept json"
cmp -s "$WORK/run.json" "$WORK/run2.json" || fail "Accept: application/json gives another answer than .json"
python3 - "$WORK/run.json" "$RID" "$WORK/o" <<'PY' || fail "run JSON: $(head -c 600 "$WORK/run.json")"
import json, sys, hashlib
d = json.load(open(sys.argv[1]))
assert d["runId"] == sys.argv[2]
assert d["primary"] == {"metric": "latency", "unit": "ns", "median": 11360, "p20": 10336, "p80": 11456}, d["primary"]
assert d["rank"]["rank"] == 1 and d["rank"]["groupSize"] == 2 and d["rank"]["best"] == d["runId"]
assert d["view"] == "kix.run/1"
assert d["treeSize"] == int(d["checkpoint"].split("\n")[1]) and d["index"]["checkpoint"] == d["checkpoint"]
assert d["evidence"] == "reported" and d["reruns"] == []
assert "rerunList" not in d and "digest" not in d
assert hashlib.sha256(d["manifestCanonical"].encode()).hexdigest() == d["manifestDigest"][7:]
assert json.loads(d["manifestCanonical"]) == d["manifest"]
assert d["logKey"].startswith("kix.test/log+") and d["index"]["runRecord"]
assert [e["type"] for e in d["entries"]] == ["publication"]
e = d["entries"][0]
assert e["tile"].startswith("tile/0/000") and e["entryBundle"].startswith("tile/entries/000")
assert d["permalink"] == "https://kix.test/log/runs/" + d["runId"]
assert d["manifest"]["kind"] == "BenchmarkRun"
assert d["checkpoint"].startswith("kix.test/log\n")
kinds = sorted(o["kind"] for o in d["objects"])
assert "Workload" in kinds and "ExecutionEnvironment" in kinds, kinds
PY
pass "run JSON parses, same for Accept: application/json"

# one document: kix show --json (verified by the client), /runs/<id>.json and
# the view the HTML embeds are the same bytes
"$KIX" show --server "$(addr o)" --log-key "$WORK/vkey" "$RID" --json >"$WORK/show.json" || fail "kix show --json"
python3 - "$WORK/show.json" "$WORK/run.json" "$WORK/page.html" <<'PY' || fail "the three documents differ"
import json, re, sys
show = open(sys.argv[1], "rb").read()
page = open(sys.argv[2], "rb").read()
assert show == page + b"\n", (show[:300], page[:300])
html = open(sys.argv[3], encoding="utf-8").read()
m = re.search(r'<script type="application/json" id="kix-view">(.*?)</script>', html, re.S)
embedded = m.group(1)
assert "</" not in embedded and "<" not in embedded
assert json.loads(embedded) == json.loads(page)
PY
pass "kix show --json, /runs/<id>.json and the page's #kix-view are one document"

# the cite box is kix cite's: its text, BibTeX and CSL-JSON, byte for byte
curl -sf "$H/runs/$RID" -o "$WORK/page.html" || fail "GET /runs/$RID again"
for f in text bibtex csl-json; do
  "$KIX" cite --server "$(addr o)" --log-key "$WORK/vkey" --format $f "$RID" >"$WORK/cite.$f" ||
    fail "kix cite --format $f"
done
python3 - "$WORK/page.html" "$WORK/cite.text" "$WORK/cite.bibtex" "$WORK/cite.csl-json" <<'PY' ||
import html, re, sys, urllib.parse
page = open(sys.argv[1], encoding="utf-8").read()
def pre(id):
    m = re.search(r'<pre id="%s"[^>]*>(.*?)</pre>' % id, page, re.S)
    return html.unescape(m.group(1))
text, bib, csl = (open(p, encoding="utf-8").read() for p in sys.argv[2:5])
assert pre("citation") + "\n" == text, (pre("citation"), text)
assert pre("cite-bibtex") == bib, (pre("cite-bibtex"), bib)
assert pre("cite-csl") == csl, (pre("cite-csl"), csl)
for kind, want in (("x-bibtex", bib), ("vnd.citationstyles.csl+json", csl)):
    m = re.search(r'href="data:application/%s;charset=utf-8,([^"]*)"' % re.escape(kind), page)
    assert urllib.parse.unquote(html.unescape(m.group(1))) == want, kind
PY
  fail "the page's cite box is not kix cite's"
pass "the cite box: kix cite's text, BibTeX and CSL-JSON (shown and downloadable)"

# every section of the page in words: no JSON in a cell (a shape is the one
# bracketed value), each row the document's, in the page and in kix show
"$KIX" show --server "$(addr o)" --log-key "$WORK/vkey" "$RID" >"$WORK/show.txt" || fail "kix show"
python3 - "$WORK/run.json" "$WORK/page.html" "$WORK/show.txt" <<'PY' || fail "the sections differ or hold JSON"
import html, json, re, sys
d = json.load(open(sys.argv[1]))
page = open(sys.argv[2], encoding="utf-8").read()
text = open(sys.argv[3], encoding="utf-8").read()
titles = [s["title"] for s in d["sections"]]
assert titles == ["Identity", "Correctness", "Workload", "Measurements", "Protocol", "Environment",
                  "Artifacts"], titles
cells = [html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", page, re.S)]
n = 0
for s in d["sections"]:
    assert "<h2>%s</h2>" % s["title"] in page and "\n%s\n" % s["title"] in text, s["title"]
    for r in s["rows"]:
        v = r["value"]
        assert r["fmt"] == "shape" or not re.search(r"[{\[]", v), (s["title"], r)
        assert v in cells, (s["title"], r)
        assert re.search(r"^  %s +%s$" % (re.escape(r["label"]), re.escape(v)), text, re.M), (s["title"], r)
        n += 1
assert n > 30, n
rows = {r["label"]: r for s in d["sections"] for r in s["rows"]}
assert rows["q"]["value"] == "bf16 [1, 32, 2048, 16]" and rows["q"]["fmt"] == "shape", rows["q"]
assert rows["k"]["value"] == "bf16 [1, 8, 2048, 16]", rows["k"]
assert rows["gpu"]["value"] == "NVIDIA A100 (sm_80)", rows["gpu"]
assert rows["latency \u00b7 median"]["value"] == "11.4 \u00b5s", rows
assert d["title"] == ("Liger \u00b7 Rotary position embedding \u00b7 hidden = 512 \u00b7 kv_heads = 8 "
                      "\u00b7 q_heads = 32 \u00b7 seq = 2048 \u00b7 forward \u00b7 NVIDIA A100 \u00b7 bf16"), d["title"]
assert d["evidenceText"] == "Reported evidence" and d["attestationList"] == []
PY
pass "the sections in words, the same in kix.run/1, the page and kix show"

GROUP=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["rank"]["group"])' "$WORK/run.json")
curl -sf "$H/groups/$GROUP" -o "$WORK/group.html" || fail "GET /groups/$GROUP"
first=$(grep -o 'href="../runs/[^"]*"' "$WORK/group.html" | head -1)
[ "$first" = "href=\"../runs/$RID.html\"" ] || fail "the group page does not list $RID first: $first"
[ "$(grep -c '<tr data-rank=' "$WORK/group.html")" = 2 ] || fail "the group page does not list 2 runs"
grep -qF '<tbody data-kix-slot="group-rows">' "$WORK/group.html" || fail "the group page has no group-rows slot"
curl -sf "$H/groups/$GROUP.json" -o "$WORK/group.json" || fail "GET /groups/$GROUP.json"
python3 - "$WORK/group.json" "$WORK/group.html" "$RID" <<'PY' || fail "group JSON: $(head -c 600 "$WORK/group.json")"
import json, re, sys
d = json.load(open(sys.argv[1]))
assert d["view"] == "kix.group/1" and d["size"] == 2, d
assert d["treeSize"] == int(d["checkpoint"].split("\n")[1]) and d["index"]["checkpoint"] == d["checkpoint"]
assert d["rows"][0]["rank"] == 1 and d["rows"][0]["runId"] == sys.argv[3] and d["rows"][0]["unit"] == "ns"
assert d["index"]["groupKey"] == "group/" + d["group"][7:]
html = open(sys.argv[2], encoding="utf-8").read()
m = re.search(r'<script type="application/json" id="kix-view">(.*?)</script>', html, re.S)
assert json.loads(m.group(1)) == d
PY
curl -sf "$H/" -o "$WORK/home.html" || fail "GET /"
# (the group's row is on one of the home pages: page 1, or home/<k> from 2 on)
for k in $(seq 2 50); do curl -sf "$H/home/$k" >>"$WORK/home-all.html" || break; done
grep -q '<td><a href="kernels/rope.html">rope</a></td>' "$WORK/home.html" &&
  grep -q "href=\"\(\.\./\)\?groups/$GROUP.html\"" "$WORK/home.html" "$WORK/home-all.html" || fail "home page"
pass "group page (best first) and home page"

for p in runs/nope runs/ "runs/a%2Fb" "runs/%zz" groups/sha256:00 groups/xyz "runs/$RID/x"; do
  code=$(curl -s -o /dev/null -w '%{http_code}' "$H/$p")
  [ "$code" = 404 ] || fail "GET /$p: $code, want 404"
done
"$KIX" info --server "$(addr o)" >/dev/null || fail "kixd after bad page requests"
pass "unknown runs and groups: 404"

# the same pages as static files in the export, served by nginx
for _ in $(seq 1 100); do [ -f "$WORK/exp/runs/.size" ] && break; sleep 0.1; done
[ "$(cat "$WORK/exp/runs/.size")" = "$(sed -n 2p "$WORK/exp/checkpoint")" ] || fail "pages not exported"
start_nginx "$WORK/exp"
n=0
code=$(curl -s -o /dev/null -w '%{http_code}' "$NGINX_URL/runs/$RID.json")
[ "$code" = 404 ] || fail "nginx: GET /runs/$RID.json: $code, want 404 (layout 4: a run's view is in its page)"
for p in "runs/$RID" "groups/$GROUP" "groups/$GROUP.json" kix-verify.js style.css ""; do
  curl -sf -D "$WORK/nh" "$NGINX_URL/$p" -o "$WORK/n" || fail "nginx: GET /$p"
  curl -sf "$H/$p" -o "$WORK/k" || fail "kixd: GET /$p"
  if [ "$p" = "runs/$RID" ] || [ "$p" = "groups/$GROUP" ]; then
    # kixd's pages embed kixd's view on a line of its own; an exported run
    # page embeds the copy's (layout 4, compared below), an exported group
    # page none: its verifier reads <page>.json, compared next
    grep -c '^<script type="application/json" id="kix-view">' "$WORK/k" | grep -qx 1 || fail "kixd's $p: no #kix-view line"
    case "$p" in
    groups/*) grep -q 'id="kix-view"' "$WORK/n" && fail "the exported $p embeds its view" ;;
    *)
      grep '^<script type="application/json" id="kix-view">' "$WORK/n" >"$WORK/nview" || fail "the exported $p embeds no view"
      grep '^<script type="application/json" id="kix-view">' "$WORK/k" >"$WORK/kview"
      grep -v '^<script type="application/json" id="kix-view">' "$WORK/n" >"$WORK/n2"
      mv "$WORK/n2" "$WORK/n"
      ;;
    esac
    grep -v '^<script type="application/json" id="kix-view">' "$WORK/k" >"$WORK/k2"
    mv "$WORK/k2" "$WORK/k"
  fi
  if [ "$p" = "runs/$RID" ] || [ "$p" = "groups/$GROUP.json" ]; then
    # a run's manifest once in the copy (PROTOCOL.md §3, layouts 3 and 4):
    # its view without `manifest`, `sections`, `objects` and `index`, its
    # page without the manifest's, BibTeX's and CSL-JSON's text and data:
    # links (the verifier fills them in) and without the link to kixd's
    # JSON; a group view's rows without the manifests, implementations,
    # records and proofs, and no `index` or title objects; the rest the
    # same bytes
    python3 - "$WORK/n" "$WORK/k" "$p" "$WORK/nview" "$WORK/kview" <<'PY' || fail "/$p: the export is not kixd's with the manifest once"
import json, os, re, sys
n, k, p, nview, kview = sys.argv[1:6]
if p.endswith(".json"):
    v = json.load(open(k))
    del v["index"], v["workloadCanonical"], v["environmentCanonical"]
    for r in v["rows"]:
        for f in ("manifestCanonical", "implementationCanonical", "runRecord", "runProof"):
            del r[f]
    assert json.load(open(n)) == v
else:
    def inner(f):
        t = open(f, encoding="utf-8").read()
        return json.loads(re.search(r'id="kix-view">(.*)</script>', t).group(1))
    sys.path.insert(0, os.environ["KIX_TESTS"] + "/integration")
    from page_view import copy_view
    # kixd's view as the copy's page embeds it (PROTOCOL.md §3)
    assert inner(nview) == copy_view(inner(kview)), "the page's view"
    def once(t):
        # kixd's own page has the checkpoint, BibTeX, CSL-JSON and manifest boxes
        # filled; an exported page leaves them to kix-verify.js to build
        t = re.sub(r'<p data-kix-slot="cite-about">[^\n]*\n', "", t)
        # and the sentences on attestations, the cite text and the tiles
        t = re.sub(r'<p class="muted" id="(?:attestations-note|cite-how)">[^\n]*\n', "", t)
        t = re.sub(r'<span id="tiles-note">.*?</span>', "", t)
        t = re.sub(r'<details><summary>(?:Checkpoint at size [0-9]+|BibTeX|CSL-JSON|Show the manifest)</summary>.*?</details>\n', "", t, flags=re.S)
        t = re.sub(r' · <a href="[^"]*\.json" type="application/json">JSON</a>', "", t)
        # since layout 7 an exported page has no pin attributes but its run
        # (its view's checkpoint says the rest), names four slots by their
        # ids alone (kix-verify.js names them), links its group once (not
        # in the crumbs), leaves the manifest's section to kix-verify.js
        # (its digest is in the identity table and the cite text) and its
        # field and entry rows their optional </th>, </td> and </tr>
        t = re.sub(r' data-origin="[^"]*" data-log-key="[^"]*" data-size="[^"]*" data-root="[^"]*"', "", t)
        t = re.sub(r' data-kix-slot="(evidence|median|rank|observed)" id="\1"', r' id="\1"', t)
        t = re.sub(r' · <a href="\.\./groups/[^"]*" data-kix-slot="group-link">comparison group</a></nav>', "</nav>", t)
        # and the rest of its slots by short ids, its entries, cite text and
        # sections' notes by their table, id and section, its manifest as
        # the text of #kix-manifest (PROTOCOL.md §3, "A leaner view")
        for slot, short in (("kernel-link", "k"), ("title", "t"), ("run-id", "i"), ("status", "s"),
                            ("staleness", "a"), ("spread", "w"), ("group-link", "g"), ("best", "b"),
                            ("reruns-none", "rn"), ("attestations-none", "an"), ("tree-size", "z"),
                            ("published", "f")):
            t = t.replace(' data-kix-slot="%s"' % slot, ' id="%s"' % short)
        t = re.sub(r' data-kix-slot="(?:cite-text|entries|section-note)"', "", t)
        t = re.sub(r'<td data-kix-words="[^"]*">', "<td data-w>", t)
        t = re.sub(r'<pre hidden id="kix-manifest">[^<]*</pre>\n', "", t)
        t = re.sub(r'<section id="manifest-section">.*?</section>\n', "", t, flags=re.S)
        t = re.sub(r"^(<tr><th>|<tr data-type=|<thead><tr><th>index<).*$",
                   lambda m: m.group(0).replace("</th>", "").replace("</td>", "").replace("</tr>", ""), t, flags=re.M)
        # an exported page's field cells are named by their place, not by
        # pointer, object and format (PROTOCOL.md §3, "Field cells by position")
        t = re.sub(r'<td(?: data-kix-object="[^"]*")? data-kix-ptr="[^"]*"(?: data-kix-fmt="[^"]*")?>', "<td>", t)
        t = re.sub(r'<table class="kv" data-kix-object="[^"]*">', '<table class="kv">', t)
        return re.sub(r"\n<p[^>]*>(This|The) page's verifier (fills in|shows)[^\n]*", "", t)
    a, b = open(n, encoding="utf-8").read(), open(k, encoding="utf-8").read()
    assert once(a) == once(b) and "{&quot;apiVersion" in b and "{&quot;apiVersion" not in a, "the page"
PY
    n=$((n + 1))
    continue
  fi
  if [ -z "$p" ]; then
    # the exported home page embeds no view, links its search shard as
    # its JSON (a copy has no index.json) and leaves the log's counts to
    # search/index.json (kix-search.js shows them): kixd's page without
    # its view line and its counts
    grep -q 'id="kix-view"' "$WORK/n" && fail "the exported home page embeds its view"
    grep -v '^<script type="application/json" id="kix-view">' "$WORK/k" >"$WORK/k2"
    python3 - "$WORK/k2" "$WORK/k" <<'PY' || fail "kixd's home page without its counts"
import re, sys
t = open(sys.argv[1], encoding="utf-8").read()
t = re.sub(r"<p>[^<]* log entr(y|ies) · <a", '<p><span id="kix-counts"></span><a', t)
t = re.sub(r'<td class="num">[0-9]+</td>', '<td class="num"></td>', t.split('<h2 id="groups">')[0]) + \
    '<h2 id="groups">' + t.split('<h2 id="groups">')[1]
t = re.sub(r'(</a>) \([0-9]+\)', r"\1", t.split('<h2 id="groups">')[0]) + '<h2 id="groups">' + t.split('<h2 id="groups">')[1]
# nor where it is among the pages: how many groups it holds, no last page
t = re.sub(r'<span id="kix-page-at">groups ([0-9]+)–([0-9]+) of [0-9]+ \(page 1 of [0-9]+\)</span>',
           lambda m: '<span id="kix-page-at">%d group%s on this page</span>' % (
               int(m.group(2)) - int(m.group(1)) + 1, "" if m.group(1) == m.group(2) else "s"), t)
t = re.sub(r'<a href="home/[0-9a-f]{64}\.html">last</a>', "", t)
name = re.search(r'data-page="([0-9a-f]{64})"', t).group(1)
t = t.replace('<a href="index.json">JSON</a>', '<a href="search/%s.json">JSON</a>' % name)
t = t.replace('<form id="kix-search" data-index="search/index.json" data-root="" data-page="%s" hidden>' % name,
              '<form id="kix-search" data-index="search/index.json" data-root="" data-page="%s" data-options="index" hidden>' % name)
t = re.sub(r"<select name=\"(\w+)\"><option value=\"\">any</option>.*?</select>",
           r'<select name="\1"><option value="">any</option></select>', t)
open(sys.argv[2], "w", encoding="utf-8").write(t)
PY
  fi
  cmp -s "$WORK/n" "$WORK/k" || fail "/$p differs between the export (nginx) and kixd"
  n=$((n + 1))
done
grep -qi '^content-type: text/html' "$WORK/nh" || fail "nginx content type of the home page"
curl -sf -D "$WORK/nh" "$NGINX_URL/groups/$GROUP.json" -o /dev/null && grep -qi '^content-type: application/json' "$WORK/nh" ||
  fail "nginx content type of a group's JSON: $(cat "$WORK/nh")"
[ "$(find "$WORK/exp/runs" -name '*.html' | wc -l)" -ge 40 ] || fail "not every run page was exported"
pass "the export holds the same pages; nginx serves them ($n compared)"

# the home page follows the log (kixd keeps the last one only for the log
# state it shows): a kernel published now appears on it
grep -q 'href="kernels/cross_entropy.html"' "$WORK/home.html" && fail "cross_entropy before it was published"
import "--server $(addr o)" 1 3 3
for _ in $(seq 1 50); do
  curl -sf "$H/" -o "$WORK/home2.html" || fail "GET / after publishing"
  grep -q 'href="kernels/cross_entropy.html"' "$WORK/home2.html" && break
  sleep 0.1
done
grep -q 'href="kernels/cross_entropy.html"' "$WORK/home2.html" || fail "the home page did not follow the log"
pass "the home page follows the log"
