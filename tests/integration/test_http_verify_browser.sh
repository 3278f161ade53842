#!/usr/bin/env bash
# Verified in the browser: a run page loaded in headless Chromium (Debian's
# chromium, tools/deps.sh) runs its script (kix-verify.js), which reads only
# the page's view document (#kix-view, VIEW-CONTRACT) and the tiles, checks
# the checkpoint's Ed25519 signature with the view's log key, the inclusion
# of the run's entries, the manifest's digest and the index proofs, says
# "verified against <origin> at size N" (data-state "ok") and writes the
# proven rank and evidence into the page's data-kix-slot elements: from
# kixd --http and from the export served by nginx. Then nginx serves copies
# of the export with one byte flipped in the run's entry bundle, in a
# level-1 tile and a partial level-0 tile its proof reads, in the view's
# manifest and in the checkpoint's root, and the page must name each
# failure (data-state "fail"); text outside the slots is not read. Then
# the log grows (runs of other groups, an attestation of another run) and
# the export is written again: the untouched run and group pages, their
# proofs at the old size, verify at the new one from the export's index
# tiles (nginx and python3 -m http.server), and a rolled-back index tile
# turns the page red. One chromium, driven by puppeteer-core
# (tests/browser/dom.js), loads every page, each in a context of its own.
# Exit 77 (skipped) only when chromium is missing or cannot start.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"
source "$(dirname "$0")/tlog_lib.sh"

. "$KIX_TESTS/integration/dom_lib.sh"
trap 'stop_dom; stop_nginx_all; cleanup' EXIT
start_dom

new_origin "$WORK/o"
# 600 other runs first, then the rope runs: a log past 512 entries, so the
# rope run's entry sits in a partial tile and its proof takes hashes from
# full level-0 tiles and a level-1 tile; EARLY (the first run) is in the
# full tile 000.
{ sed -n 1p "$CSV"; awk -F, 'NR > 1 && $1 != "rope" && n++ < 600' "$CSV"; awk '/^rope,/ && n++ < 40' "$CSV"; } >"$WORK/rope.csv"
"$KIX_BIN/kix-import-liger" --key "$WORK/pub.key" --store "$WORK/o" --batch 50 --map "$WORK/rope.map" \
  "$WORK/rope.csv" >/dev/null 2>>"$WORK/import.log" || fail "import: $(tail -3 "$WORK/import.log")"
RID=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    if d["externalId"].startswith("rope/forward/liger/nvidia-a100-sxm4-80gb/hidden512-"):
        print(d["runId"]); break' "$WORK/rope.map")
[ -n "$RID" ] || fail "no rope run in the map"
EARLY=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["runId"])' "$WORK/rope.map")
HPORT=$(free_port)
H="http://127.0.0.1:$HPORT"
serve o --http "tcp://127.0.0.1:$HPORT" --export "$WORK/exp"
SIZE=$(curl -sf "$H/checkpoint" | sed -n 2p)
[ -n "$SIZE" ] || fail "no checkpoint over HTTP"

# embedded FILE: the view document (#kix-view) a page carries, as JSON ("" without one)
embedded() { python3 -c 'import json,re,sys
m = re.search(r"<script type=\"application/json\" id=\"kix-view\">(.*?)</script>", open(sys.argv[1]).read(), re.S)
print(json.dumps(json.loads(m.group(1))) if m else "")' "$1"; }
# view FILE: the view document of a page: #kix-view, or for an exported run
# or group page, which carries none, FILE.json beside it (what its verifier reads)
view() { local v; v=$(embedded "$1"); [ -n "$v" ] && echo "$v" ||
  python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))))' "$1.json"; }
# edit_view PAGE PYTHON: the page's view changed by PYTHON (on v, the view):
# in the page, or in PAGE.json when the page carries none
edit_view() { python3 - "$1" "$2" <<'PY'
import json, os, sys
sys.path.insert(0, os.environ["KIX_TESTS"] + "/integration")
import page_view  # the view with its manifest, #kix-manifest's text since layout 7
p, code = sys.argv[1], sys.argv[2]
embeds = page_view.VIEW.search(open(p, encoding="utf-8").read())
v = page_view.load(p) if embeds else json.load(open(p + ".json", encoding="utf-8"))
exec(code)
if embeds:
    page_view.store(p, v)
else:
    open(p + ".json", "w", encoding="utf-8").write(
        json.dumps(v, separators=(",", ":"), sort_keys=True, ensure_ascii=False))
PY
}
# copy_export DIR [PATH...]: DIR a copy of the export made of hard links
# (cheap: the export holds thousands of pages), but for each PATH (and
# PATH.json when there is one), a real copy that a case edits in place
copy_export() {
  local dir=$1 path g
  shift
  cp -al "$WORK/exp" "$dir"
  for path in "$@"; do
    for g in "$path" "$path.json"; do
      if [ -e "$WORK/exp/$g" ]; then rm -r "${dir:?}/$g" && cp -r "$WORK/exp/$g" "$dir/$g"; fi
    done
  done
}
# status FILE: the verifier's status line in a dumped DOM
status() { python3 -c 'import re,sys
m = re.search(r"<p id=\"verify-status\" data-state=\"(\w+)\"[^>]*>(.*?)</p>", open(sys.argv[1]).read(), re.S)
print((m.group(1) + ": " + re.sub(r"<[^>]*>", "", m.group(2))) if m else "no status line")' "$1"; }

expect_verified() { # URL NAME
  dom "$1" "$WORK/dom.html" || fail "$2: chromium failed: $(tail -3 "$WORK/chrome.log")"
  local s
  s=$(status "$WORK/dom.html")
  case "$s" in
    "ok: verified against kix.test/log at size $SIZE: run "*". Proven: checkpoint signature, inclusion of "*) ;;
    *) fail "$2: the page says: $s" ;;
  esac
  case "$s" in
    *"rank and evidence proven by the log’s signed index at size "*) ;;
    *) fail "$2: rank and evidence not proven by the index: $s" ;;
  esac
  grep -q 'data-verified="no"' "$WORK/dom.html" && fail "$2: something is still marked unproven"
  grep -q 'data-kix-slot="rank"[^>]*data-verified="yes"' "$WORK/dom.html" ||
    fail "$2: the rank slot is not marked proven"
  return 0
}
expect_verified "$H/runs/$RID" "kixd --http"
expect_verified "$H/runs/$EARLY" "kixd --http, a run in the first full tile"
pass "kixd --http: the page verifies in Chromium (signature, inclusion, manifest digest, rank and evidence by the signed index)"

for _ in $(seq 1 600); do [ "$(cat "$WORK/exp/runs/.size" 2>/dev/null)" = "$SIZE" ] && break; sleep 0.1; done
[ "$(cat "$WORK/exp/runs/.size" 2>/dev/null)" = "$SIZE" ] || fail "the export did not reach size $SIZE: $(tail -3 "$WORK/o.log")"
[ -f "$WORK/exp/kix-verify.js" ] || fail "the export lacks kix-verify.js"
# an exported run page embeds the copy's view (layout 4: no runs/<id>.json),
# kixd's document without `manifest`, `sections`, `objects` and `index`,
# which the copy holds once (manifestCanonical, the page, objects/ and
# index/: PROTOCOL.md §3); a group page carries none: its verifier reads
# groups/<key>.json beside it, kixd's document without `index` and the
# rows' manifests, implementations, records and proofs
G=$(grep -o 'href="../groups/sha256:[0-9a-f]*.html" id="g"' "$WORK/exp/runs/$RID" | sed -n '1s/^href="..\/groups\/\([^"]*\).html".*/\1/p')
[ -n "$G" ] || fail "the exported run page links no group"
[ ! -e "$WORK/exp/runs/$RID.json" ] || fail "the export wrote runs/$RID.json: a run's view is in its page"
for p in "runs/$RID" "groups/$G"; do
  case "$p" in groups/*) [ -z "$(embedded "$WORK/exp/$p")" ] || fail "the exported $p embeds its view ($p.json holds it)" ;; esac
  curl -sf "$H/$p" -o "$WORK/kixd-page.html" || fail "GET /$p"
  [ "$(view "$WORK/exp/$p")" = "$(embedded "$WORK/kixd-page.html" | python3 -c 'import json,os,sys
sys.path.insert(0, os.environ["KIX_TESTS"] + "/integration")
from page_view import copy_view
v = json.load(sys.stdin)
if v["view"] == "kix.run/1":
    v = copy_view(v)  # kixd'"'"'s view as the copy'"'"'s page embeds it (PROTOCOL.md §3)
else:  # the copy: group rows name their runs (layout 4)
    del v["index"], v["workloadCanonical"], v["environmentCanonical"]
    for r in v["rows"]:
        for k in ("manifestCanonical", "implementationCanonical", "runRecord", "runProof"):
            del r[k]
print(json.dumps(v))')" ] ||
    fail "the exported $p view is not the one kixd's page carries"
done
start_nginx "$WORK/exp"
expect_verified "$NGINX_URL/runs/$RID" "nginx (export)"
# runs/<id>.html is the page again for servers typing by extension: one
# file under two names (a hard link), the same bytes through nginx
[ "$(stat -c %i "$WORK/exp/runs/$RID")" = "$(stat -c %i "$WORK/exp/runs/$RID.html")" ] ||
  fail "runs/$RID.html is a copy, not the page's own file"
curl -sf "$NGINX_URL/runs/$RID" -o "$WORK/n1.html" && curl -sf "$NGINX_URL/runs/$RID.html" -o "$WORK/n2.html" &&
  cmp -s "$WORK/n1.html" "$WORK/n2.html" || fail "nginx serves runs/$RID and runs/$RID.html differently"
pass "the export served by nginx: the page verifies in Chromium, under both its names"

# tampered copies of the export
[ "$SIZE" -gt 512 ] || fail "the test expects a log past 512 entries, got $SIZE"
read -r INDEX TILE BUNDLE < <(python3 -c 'import json,sys
e = json.load(open(sys.argv[1]))["entries"][0]
print(e["index"], e["tile"], e["entryBundle"])' <(curl -sf "$H/runs/$RID" -o "$WORK/kixd-rid.html" && embedded "$WORK/kixd-rid.html"))
case "$BUNDLE" in tile/entries/002.p/*) ;; *) fail "the rope run's bundle: $BUNDLE, want a partial tile/entries/002" ;; esac
expect_failed() { # DIR WANT NAME [PAGE]
  start_nginx "$1"
  dom "$NGINX_URL/${4:-runs/$RID}" "$WORK/dom.html" || fail "$3: chromium failed"
  local s
  s=$(status "$WORK/dom.html")
  case "$s" in
    "fail: verification FAILED: "*"$2"*) ;;
    *) fail "$3: want a failure naming '$2', the page says: $s" ;;
  esac
  pass "$3: the page says: ${s#fail: }"
}
copy_export "$WORK/bad1" "$BUNDLE"
python3 - "$WORK/bad1/$BUNDLE" "$INDEX" <<'PY'
import sys
p, want = sys.argv[1], int(sys.argv[2]) % 256
b = bytearray(open(p, "rb").read())
o = 0
for i in range(want):
    o += 2 + (b[o] << 8 | b[o + 1])
n = b[o] << 8 | b[o + 1]
b[o + 2 + n // 2] ^= 1  # a byte in the middle of the run's leaf
open(p, "wb").write(b)
PY
expect_failed "$WORK/bad1" "entry $INDEX: its leaf in $BUNDLE does not hash" "entry bundle with one byte flipped"

copy_export "$WORK/bad2" tile/1/000.p/2
# the proof reads the hash of entries 0..511 from the level-1 tile (the
# roots of level-0 tiles 000 and 001), and the run's neighbours from its
# own partial level-0 tile: a byte flipped in either must fail inclusion
python3 - "$WORK/bad2/tile/1/000.p/2" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[32 + 7] ^= 0x80  # the root of level-0 tile 001
open(p, "wb").write(b)
PY
expect_failed "$WORK/bad2" "entry $INDEX (publication): inclusion fails" "level-1 tile with one byte flipped"
copy_export "$WORK/bad5" "$TILE"
python3 - "$WORK/bad5/$TILE" "$INDEX" <<'PY'
import sys
p, i = sys.argv[1], int(sys.argv[2]) % 256
b = bytearray(open(p, "rb").read())
b[32 * (i ^ 1) + 3] ^= 0x01  # the leaf hash of the run's neighbour
open(p, "wb").write(b)
PY
expect_failed "$WORK/bad5" "entry $INDEX (publication): inclusion fails" "partial level-0 tile with one byte flipped"

copy_export "$WORK/bad3" "runs/$RID"
# the view's canonical manifest, one digit of its median changed
edit_view "$WORK/bad3/runs/$RID" '
c = v["manifestCanonical"]
i = c.index("\"median\":") + len("\"median\":")
v["manifestCanonical"] = c[:i] + ("9" if c[i] != "9" else "8") + c[i + 1:]'
# (a copy's view names no digest but its text's since layout 7: the signed index names another)
expect_failed "$WORK/bad3" "the signed index gives run $RID the manifest" "the view's canonical manifest with one digit changed"
copy_export "$WORK/bad3b" "runs/$RID"
# (an exported view carries no `manifest`: one put beside the text must be it)
edit_view "$WORK/bad3b/runs/$RID" '
v.setdefault("manifest", json.loads(v["manifestCanonical"]))
v["manifest"]["runId"] = v["manifest"].get("runId", "") + "x"'
expect_failed "$WORK/bad3b" "is not its canonical manifest" "the view's manifest unlike its canonical text"

copy_export "$WORK/bad4" checkpoint
python3 - "$WORK/bad4/checkpoint" <<'PY'
import sys, base64
p = sys.argv[1]
lines = open(p, encoding="utf-8").read().split("\n")
root = bytearray(base64.b64decode(lines[2])); root[0] ^= 1
lines[2] = base64.b64encode(bytes(root)).decode()
open(p, "w", encoding="utf-8").write("\n".join(lines))
PY
expect_failed "$WORK/bad4" "the checkpoint signature does not verify" "checkpoint root changed"

# the view's rank is checked against the signed index: a rank a view
# claims otherwise (a copy's says none since layout 7: its page does), or
# another group record in its proofs, fails; another rank in the page's
# text is not read, and the proven one replaces it
copy_export "$WORK/bad6" "runs/$RID"
edit_view "$WORK/bad6/runs/$RID" 'v["rank"] = {"group": "'"$G"'", "rank": 91, "groupSize": 91, "best": "'"$RID"'", "bestValue": 1}'
expect_failed "$WORK/bad6" "the signed index proves" "a view whose rank was edited"
# the copy's view carries no index proofs (layout 4): the verifier computes
# them from index/; the group's record file edited there fails
copy_export "$WORK/bad7" index
# in its pack or its own file (PROTOCOL.md §3.2, "Index packs")
python3 "$KIX_TESTS/integration/index_files.py" "$WORK/bad7" "group/${G#sha256:}" flip ||
  fail "the export holds no index record of group $G"
expect_failed "$WORK/bad7" "does not hash to its name" "the copy's record of the run's group edited (index/value/group/)"
# and the view's objects are the copy's files: the environment edited there fails
ENVD=$(page_view "$WORK/exp/runs/$RID" | python3 -c 'import json,sys; print(json.loads(json.load(sys.stdin)["manifestCanonical"])["spec"]["environmentDigest"])')
copy_export "$WORK/bad7b" "objects/$ENVD"
sed -i 's/"product":"/"product":"X/' "$WORK/bad7b/objects/$ENVD"
expect_failed "$WORK/bad7b" "hashes to" "the copy's environment object edited (objects/)"
copy_export "$WORK/bad7c" "objects/$ENVD"
rm "$WORK/bad7c/objects/$ENVD"
expect_failed "$WORK/bad7c" "objects/$ENVD" "the copy's environment object missing (objects/)"
copy_export "$WORK/text" "runs/$RID"
# (the rank the export wrote: a copy's view says none since layout 7, its page does)
RANK=$(sed -n 's/.*id="rank"[^>]*>\(Rank [0-9]* of [0-9]*\)<.*/\1/p' "$WORK/exp/runs/$RID")
python3 - "$WORK/text/runs/$RID" <<'PY'
import re, sys
p = sys.argv[1]
t = open(p, encoding="utf-8").read()
t2 = re.sub(r'(<[^>]*id="rank"[^>]*>).*?(</)', r"\1Rank 99 of 99\2", t, count=1, flags=re.S)
assert t2 != t, "no rank slot"
open(p, "w", encoding="utf-8").write(t2)
PY
start_nginx "$WORK/text"
expect_verified "$NGINX_URL/runs/$RID" "a page whose visible rank text was edited"
grep -q "data-kix-slot=\"rank\"[^>]*>$RANK<" "$WORK/dom.html" || fail "the rank slot does not show the proven $RANK"
pass "the page's text is not read: the rank slot shows the proven $RANK"

# ---- a group page: its rows proven by the group's signed directory and pages ---------
GROUP=$G
[ -n "$GROUP" ] || fail "the run page links no group"
expect_group_verified() { # URL NAME
  dom "$1" "$WORK/dom.html" || fail "$2: chromium failed: $(tail -3 "$WORK/chrome.log")"
  local s
  s=$(status "$WORK/dom.html")
  case "$s" in
    "ok: verified against kix.test/log at size $SIZE: checkpoint signature; rows 1–"*" of "*" proven by the log’s signed index at size $SIZE.") ;;
    "ok: verified against kix.test/log at size $SIZE: checkpoint signature; rows 1–"*" of "*" proven by the log’s signed index at size $SIZE (proofs computed from its index tiles; the page’s own were at size "*").") ;;
    *) fail "$2: the group page says: $s" ;;
  esac
  grep -q 'data-kix-slot="group-rows"[^>]*data-verified="yes"' "$WORK/dom.html" ||
    fail "$2: the group rows are not marked proven"
}
expect_group_verified "$H/groups/$GROUP" "kixd --http group page"
start_nginx "$WORK/exp"
expect_group_verified "$NGINX_URL/groups/$GROUP" "nginx group page"
pass "a group page verifies its ranks in Chromium (kixd --http and the export)"
[ "$(python3 -c 'import json,sys; print(len(json.loads(sys.argv[1])["rows"]))' "$(view "$WORK/exp/groups/$GROUP")")" -ge 2 ] ||
  fail "the group has one run"
copy_export "$WORK/bad8" "groups/$GROUP"
# the second run promoted: shown first, with the first's median, the first second
edit_view "$WORK/bad8/groups/$GROUP" '
a, b = v["rows"][0], v["rows"][1]
a["runId"], b["runId"] = b["runId"], a["runId"]'
expect_failed "$WORK/bad8" "row 1 shows run" "a group view whose second run is shown first" "groups/$GROUP"
copy_export "$WORK/bad10" "groups/$GROUP"
edit_view "$WORK/bad10/groups/$GROUP" 'v["rows"][0]["value"] //= 2'
expect_failed "$WORK/bad10" "row 1 shows run" "a group view whose first median was halved" "groups/$GROUP"
copy_export "$WORK/bad9" "groups/$GROUP"
edit_view "$WORK/bad9/groups/$GROUP" 'v["size"] += 90'
expect_failed "$WORK/bad9" "the signed index proves" "a group view with its size edited" "groups/$GROUP"

# ---- one manifest a run (PROTOCOL.md §3, "One manifest a run") ------------------------
# EARLY was published in bundle 000, full at the export: its manifest is in
# its page (manifestCanonical) and the pack objects/entries/000, with no
# objects/<digest>; RID's bundle 002 is partial: its manifest is in its
# page alone (the index names it as RID's), no objects/ file either.
# EARLY's page and its group's page (whose rows read manifests from the
# run pages) verify; the manifest changed in EARLY's page turns both red,
# and kix show and kix group over the copy exit 1.
EM=$(page_view "$WORK/exp/runs/$EARLY" | python3 -c 'import json,sys; print(json.load(sys.stdin)["manifestDigest"])')
RM=$(page_view "$WORK/exp/runs/$RID" | python3 -c 'import json,sys; print(json.load(sys.stdin)["manifestDigest"])')
EG=$(grep -o 'href="../groups/sha256:[0-9a-f]*.html" id="g"' "$WORK/exp/runs/$EARLY" | sed -n '1s/^href="..\/groups\/\([^"]*\).html".*/\1/p')
[ -n "$EG" ] && [ -s "$WORK/exp/objects/entries/000" ] || fail "EARLY has no group, or bundle 000 no pack"
[ ! -e "$WORK/exp/objects/$EM" ] || fail "the export wrote objects/$EM, a manifest its run page and pack hold"
[ ! -e "$WORK/exp/objects/$RM" ] || fail "the export wrote objects/$RM, the manifest of a run in a partial bundle its page holds"
start_nginx "$WORK/exp"
expect_verified "$NGINX_URL/runs/$EARLY" "nginx, a run in a full bundle (its manifest in its page alone)"
expect_group_verified "$NGINX_URL/groups/$EG" "nginx, the group page of a run in a full bundle"
export KIX_STATE_DIR="$WORK/s-one"
"$KIX" show --server "$NGINX_URL/" --log-key "$WORK/vkey" "$EARLY" >/dev/null 2>"$WORK/err" ||
  fail "kix show over the export, a run in a full bundle: $(cat "$WORK/err")"
"$KIX" group --server "$NGINX_URL/" --log-key "$WORK/vkey" "$EG" >/dev/null 2>"$WORK/err" ||
  fail "kix group over the export, a run in a full bundle: $(cat "$WORK/err")"
pass "a run of a full bundle: no objects/ file for its manifest; its page and group page verify in Chromium, kix show and kix group read it from the page"
copy_export "$WORK/bad13" "runs/$EARLY.html"
edit_view "$WORK/bad13/runs/$EARLY.html" '
c = v["manifestCanonical"]
i = c.index("\"median\":") + len("\"median\":")
v["manifestCanonical"] = c[:i] + ("9" if c[i] != "9" else "8") + c[i + 1:]'
ln -f "$WORK/bad13/runs/$EARLY.html" "$WORK/bad13/runs/$EARLY" # the page's two names, one file
expect_failed "$WORK/bad13" "the signed index gives run $EARLY the manifest" "a full bundle's run page with its manifest changed" "runs/$EARLY"
expect_failed "$WORK/bad13" "the manifest shown hashes to sha256:" "a group page whose row's run page has its manifest changed" "groups/$EG"
export KIX_STATE_DIR="$WORK/s-one-liar"
expect_status 1 "$KIX" show --server "$NGINX_URL/" --no-cache --log-key "$WORK/vkey" "$EARLY"
# (the page's view names no digest but its text's since layout 7: the signed index names another)
grep -q "does not verify: the signed index gives run $EARLY another manifest" "$WORK/err" || fail "kix show, a changed manifest in the page: $(cat "$WORK/err")"
expect_status 1 "$KIX" group --server "$NGINX_URL/" --no-cache --log-key "$WORK/vkey" "$EG"
grep -q "carries another manifest" "$WORK/err" || fail "kix group, a changed manifest in a row's page: $(cat "$WORK/err")"
unset KIX_STATE_DIR
pass "a full bundle's run page with its manifest changed: its page and its group's page are red, kix show and kix group exit 1"
# its manifest is the text of #kix-manifest (layout 7, PROTOCOL.md §3, "A
# leaner view"): read one way, only &lt; &gt; &amp; undone. Another
# entity, a second such element, the manifest said in the view too, and
# kix's HTTP source refuses the page (and kix-verify.js the group page that
# reads it); a slot's id said twice turns the run page red
tamper_page() { # DIR PYTHON: runs/$EARLY(.html) edited by PYTHON (on t, its text)
  copy_export "$1" "runs/$EARLY.html"
  python3 - "$1/runs/$EARLY.html" "$2" <<'PY'
import re, sys
p, code = sys.argv[1], sys.argv[2]
t = open(p, encoding="utf-8").read()
exec(code)
open(p, "w", encoding="utf-8").write(t)
PY
  ln -f "$1/runs/$EARLY.html" "$1/runs/$EARLY"
}
tamper_page "$WORK/bad14" 't = re.sub(r"(<pre hidden id=\"kix-manifest\">[^<]*?)\"", r"\1&quot;", t, count=1)'
tamper_page "$WORK/bad15" 't = t.replace("<script type=\"application/json\" id=\"kix-view\">", "<pre hidden id=\"kix-manifest\">{}</pre>\n<script type=\"application/json\" id=\"kix-view\">")'
tamper_page "$WORK/bad16" 't = t.replace("<pre hidden id=\"kix-manifest\">", "<pre id=kix-manifest>{}</pre><pre hidden id=\"kix-manifest\">")'
tamper_page "$WORK/bad17" '
import json
m = re.search(r"<pre hidden id=\"kix-manifest\">([^<]*)</pre>", t)
t = t.replace("<script type=\"application/json\" id=\"kix-view\">{", "<script type=\"application/json\" id=\"kix-view\">{\"manifestCanonical\":" + json.dumps(m.group(1).replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")).replace("/", "\\/").replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026") + ",")'
tamper_page "$WORK/bad18" 't = t.replace("<h1 id=\"t\">", "<p id=\"t\">Fast</p><h1 id=\"t\">")'
for b in bad14 bad15 bad16 bad17; do
  start_nginx "$WORK/$b"
  export KIX_STATE_DIR="$WORK/s-$b"
  expect_status 1 "$KIX" show --server "$NGINX_URL/" --no-cache --log-key "$WORK/vkey" "$EARLY"
  case $b in
    bad17) grep -q "says its manifest twice (#kix-manifest and its view)" "$WORK/err" || fail "kix show, $b: $(cat "$WORK/err")" ;;
    *) grep -q "says its manifest (#kix-manifest) other than as one element's text" "$WORK/err" || fail "kix show, $b: $(cat "$WORK/err")" ;;
  esac
  expect_status 1 "$KIX" group --server "$NGINX_URL/" --no-cache --log-key "$WORK/vkey" "$EG"
  unset KIX_STATE_DIR
done
expect_failed "$WORK/bad14" "carries no manifest, or one not as one element" "a group page whose row's run page says &quot; in its manifest" "groups/$EG"
expect_failed "$WORK/bad15" 'id="kix-manifest" more than once' "a run page with a second #kix-manifest" "runs/$EARLY"
expect_failed "$WORK/bad16" 'id="kix-manifest" more than once' "a run page with a second #kix-manifest before its own" "runs/$EARLY"
expect_failed "$WORK/bad17" "says its manifest twice" "a run page whose view says its manifest too" "runs/$EARLY"
expect_failed "$WORK/bad18" 'id="t" more than once' "a run page with a slot's id said twice" "runs/$EARLY"
pass "a run page's #kix-manifest with another entity, said twice or beside the view's: kix show and kix group exit 1, the pages are red"

# ---- the log grows: untouched pages stay green ---------------------------------------
# kixd export rewrites only the pages of runs and groups with new entries:
# RID's page keeps its index proofs at SIZE once other runs are published
# and another run is attested, and its verifier computes fresh proofs from
# the export's index tiles (PROTOCOL.md §3.2): green, at the new size.
OLDSIZE=$SIZE
kill "$PID_o"
wait "$PID_o" 2>/dev/null || true
"$KIX" keygen --name community --out "$WORK/att" >/dev/null 2>&1
"$KIX" key add --store "$WORK/o" --key "$WORK/o/admin.key" --role attest "$WORK/att.pub" >/dev/null ||
  fail "key add"
{ sed -n 1p "$CSV"; awk -F, 'NR > 1 && $1 != "rope"' "$CSV" | sed -n '601,620p'; } >"$WORK/more.csv"
"$KIX_BIN/kix-import-liger" --key "$WORK/pub.key" --store "$WORK/o" --batch 10 --map "$WORK/more.map" \
  "$WORK/more.csv" >/dev/null 2>>"$WORK/import.log" || fail "import: $(tail -3 "$WORK/import.log")"
"$KIX" attest --store "$WORK/o" --key "$WORK/att.key" --note "Timed alone." "$EARLY" >/dev/null ||
  fail "attest $EARLY"
HPORT=$(free_port)
H="http://127.0.0.1:$HPORT"
serve o --http "tcp://127.0.0.1:$HPORT" --export "$WORK/exp"
SIZE=$(curl -sf "$H/checkpoint" | sed -n 2p)
[ -n "$SIZE" ] && [ "$SIZE" -gt "$OLDSIZE" ] || fail "the log did not grow past $OLDSIZE: $SIZE"
for _ in $(seq 1 600); do [ "$(cat "$WORK/exp/runs/.size" 2>/dev/null)" = "$SIZE" ] && break; sleep 0.1; done
[ "$(cat "$WORK/exp/runs/.size")" = "$SIZE" ] || fail "the export did not reach size $SIZE"
# RID's page and JSON were not rewritten: their proofs are at the old size
python3 - <(page_view "$WORK/exp/runs/$RID") "$OLDSIZE" <<'PY' || fail "RID's exported page was rewritten: the test needs an untouched one"
import json, sys
v = json.load(open(sys.argv[1]))
assert v["treeSize"] == int(sys.argv[2]), v["treeSize"]
PY
[ -f "$WORK/exp/index/notes/$SIZE" ] || fail "the export holds no index note at $SIZE"
start_nginx "$WORK/exp"
expect_verified "$NGINX_URL/runs/$RID" "an untouched run page after the log grew (nginx)"
grep -q "proofs computed from its index tiles; the page’s own were at size $OLDSIZE" "$WORK/dom.html" ||
  fail "the untouched page does not say its proofs came from the index tiles: $(status "$WORK/dom.html")"
python3 - "$WORK/dom.html" "$SIZE" <<'PY' || fail "the checkpoint slot does not show the latest checkpoint at $SIZE"
import re, sys
t = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'data-kix-slot="checkpoint"[^>]*>([^<]*)<', t)
assert m and m.group(1).split("\n")[1] == sys.argv[2], m and m.group(1)
PY
grep -q "data-kix-slot=\"rank\"[^>]*>$RANK<" "$WORK/dom.html" || fail "the untouched page does not show its proven $RANK"
pass "an untouched run page of the export, its proofs at $OLDSIZE, verifies at $SIZE from the index tiles"
PYPORT=$(free_port)
(cd "$WORK/exp" && exec python3 -m http.server --bind 127.0.0.1 "$PYPORT") >"$WORK/pyhttp.log" 2>&1 &
KIXD_PIDS+=("$!")
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$PYPORT/" && break; sleep 0.05; done
expect_verified "http://127.0.0.1:$PYPORT/runs/$RID.html" "an untouched run page after the log grew (python3 -m http.server)"
expect_group_verified "$NGINX_URL/groups/$GROUP" "an untouched group page after the log grew (nginx)"
pass "the same from python3 -m http.server, and the untouched group page"
# a tile of the index rolled back (another tile's bytes under its name): red
copy_export "$WORK/bad11" index/tile
python3 - "$WORK/bad11/index/tile" <<'PY'
import os, sys
root = sys.argv[1]
tiles = sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if os.path.basename(d) == "00")
assert len(tiles) >= 2, tiles
# every root tile's name gets another root tile's content (the latest
# root's among them: an older tree's top served as today's)
body = [open(t, "rb").read() for t in tiles]
for i, t in enumerate(tiles):
    open(t, "wb").write(body[(i + 1) % len(tiles)])
PY
expect_failed "$WORK/bad11" "is not the one its name gives" "an index tile rolled back under the latest root's name"
# the run's record in its index pack (PROTOCOL.md §3.2, "Index packs"),
# one byte changed: the record its page's stale proofs are computed from
# does not hash to its leaf: red
copy_export "$WORK/bad12" index/pack
grep -q "index/pack/" <<<"$(python3 "$KIX_TESTS/integration/index_files.py" "$WORK/bad12" "run/$RID" show)" ||
  fail "the run's record is not in a pack"
python3 "$KIX_TESTS/integration/index_files.py" "$WORK/bad12" "run/$RID" flip || fail "no run record"
expect_failed "$WORK/bad12" "does not hash to its name" "a packed index record changed"
