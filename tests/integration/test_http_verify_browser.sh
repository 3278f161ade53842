#!/usr/bin/env bash
# Verified in the browser: a run page loaded in headless Chromium (Debian's
# chromium, tools/deps.sh) runs its script (kix-verify.js), which checks the
# checkpoint's Ed25519 signature with the log key on the page, the
# inclusion of the run's entries from the tiles and the manifest's digest,
# and says "verified against <origin> at size N": from kixd --http and from
# the export served by nginx. Then nginx serves copies of the export with
# one byte flipped in the run's entry bundle, in a level-1 tile and a
# partial level-0 tile its proof reads, in the manifest on the page and in
# the checkpoint's root, and the page must name each failure.
# Exit 77 (skipped) only when chromium is missing or cannot start.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"
source "$(dirname "$0")/tlog_lib.sh"

CHROMIUM=$(command -v chromium || true)
[ -n "$CHROMIUM" ] || { echo "skip: chromium is not installed (tools/deps.sh installs it)"; exit 77; }
# dom URL OUT: the DOM after the page's scripts ran (virtual time: fetches
# complete before the dump); chromium's own chatter goes to a log.
dom() {
  timeout 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
    --no-first-run --user-data-dir="$WORK/chrome" --virtual-time-budget=10000 \
    --dump-dom "$1" >"$2" 2>>"$WORK/chrome.log"
}
mkdir -p "$WORK/chrome"
if ! dom "data:text/html,<p>chromium-ok</p>" "$WORK/probe.html" || ! grep -q chromium-ok "$WORK/probe.html"; then
  echo "skip: chromium cannot start here: $(tail -3 "$WORK/chrome.log")"
  exit 77
fi

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

# status FILE: the verifier's status line in a dumped DOM
status() { python3 -c 'import re,sys
m = re.search(r"<p id=\"verify-status\" data-state=\"(\w+)\"[^>]*>(.*?)</p>", open(sys.argv[1]).read(), re.S)
print((m.group(1) + ": " + m.group(2)) if m else "no status line")' "$1"; }

expect_verified() { # URL NAME
  dom "$1" "$WORK/dom.html" || fail "$2: chromium failed: $(tail -3 "$WORK/chrome.log")"
  local s
  s=$(status "$WORK/dom.html")
  case "$s" in
    "verified: verified against kix.test/log at size $SIZE: checkpoint signature, inclusion of 1 entry"*) ;;
    *) fail "$2: the page says: $s" ;;
  esac
  case "$s" in
    *"rank and evidence proven by the log’s signed index at size "*) ;;
    *) fail "$2: rank and evidence not proven by the index: $s" ;;
  esac
  grep -q 'class="muted unproven"' "$WORK/dom.html" && fail "$2: something is still marked unproven"
  return 0
}
expect_verified "$H/runs/$RID" "kixd --http"
expect_verified "$H/runs/$EARLY" "kixd --http, a run in the first full tile"
pass "kixd --http: the page verifies in Chromium (signature, inclusion, manifest digest, rank and evidence by the signed index)"

for _ in $(seq 1 100); do [ "$(cat "$WORK/exp/runs/.size" 2>/dev/null)" = "$SIZE" ] && break; sleep 0.1; done
[ -f "$WORK/exp/kix-verify.js" ] || fail "the export lacks kix-verify.js"
start_nginx "$WORK/exp"
expect_verified "$NGINX_URL/runs/$RID" "nginx (export)"
pass "the export served by nginx: the page verifies in Chromium"

# tampered copies of the export
[ "$SIZE" -gt 512 ] || fail "the test expects a log past 512 entries, got $SIZE"
read -r INDEX TILE BUNDLE < <(python3 -c 'import json,sys
e = json.load(open(sys.argv[1]))["entries"][0]
print(e["index"], e["tile"], e["entryBundle"])' "$WORK/exp/runs/$RID.json")
case "$BUNDLE" in tile/entries/002.p/*) ;; *) fail "the rope run's bundle: $BUNDLE, want a partial tile/entries/002" ;; esac
expect_failed() { # DIR WANT NAME [PAGE]
  start_nginx "$1"
  dom "$NGINX_URL/${4:-runs/$RID}" "$WORK/dom.html" || fail "$3: chromium failed"
  local s
  s=$(status "$WORK/dom.html")
  case "$s" in
    "failed: verification FAILED: "*"$2"*) ;;
    *) fail "$3: want a failure naming '$2', the page says: $s" ;;
  esac
  pass "$3: the page says: ${s#failed: }"
}
cp -r "$WORK/exp" "$WORK/bad1"
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

cp -r "$WORK/exp" "$WORK/bad2"
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
cp -r "$WORK/exp" "$WORK/bad5"
python3 - "$WORK/bad5/$TILE" "$INDEX" <<'PY'
import sys
p, i = sys.argv[1], int(sys.argv[2]) % 256
b = bytearray(open(p, "rb").read())
b[32 * (i ^ 1) + 3] ^= 0x01  # the leaf hash of the run's neighbour
open(p, "wb").write(b)
PY
expect_failed "$WORK/bad5" "entry $INDEX (publication): inclusion fails" "partial level-0 tile with one byte flipped"

cp -r "$WORK/exp" "$WORK/bad3"
python3 - "$WORK/bad3/runs/$RID" <<'PY'
import sys
p = sys.argv[1]
s = open(p, encoding="utf-8").read()
a = s.index('<pre id="manifest">')
i = s.index('&quot;median&quot;:', a) + len('&quot;median&quot;:')
s = s[:i] + ("9" if s[i] != "9" else "8") + s[i + 1:]  # the page's manifest, one digit changed
open(p, "w", encoding="utf-8").write(s)
PY
expect_failed "$WORK/bad3" "the manifest shown hashes to sha256:" "manifest on the page with one digit changed"

cp -r "$WORK/exp" "$WORK/bad4"
python3 - "$WORK/bad4/checkpoint" <<'PY'
import sys, base64
p = sys.argv[1]
lines = open(p, encoding="utf-8").read().split("\n")
root = bytearray(base64.b64decode(lines[2])); root[0] ^= 1
lines[2] = base64.b64encode(bytes(root)).decode()
open(p, "w", encoding="utf-8").write("\n".join(lines))
PY
expect_failed "$WORK/bad4" "the checkpoint signature does not verify" "checkpoint root changed"

# the page's rank is checked against the signed index: another rank written
# into the page, or another group record in its proofs, fails
cp -r "$WORK/exp" "$WORK/bad6"
sed -i 's|id="rank">Rank <b>\([0-9]*\)</b>|id="rank">Rank <b>9\1</b>|' "$WORK/bad6/runs/$RID"
grep -q 'id="rank">Rank <b>9' "$WORK/bad6/runs/$RID" || fail "could not edit the page's rank"
expect_failed "$WORK/bad6" "the signed index proves" "a page whose rank was edited"
cp -r "$WORK/exp" "$WORK/bad7"
python3 - "$WORK/bad7/runs/$RID" <<'PY'
import re, sys
p = sys.argv[1]
t = open(p).read()
m = re.search(r'"groupRecord":"([0-9a-f]+)"', t)
h = m.group(1)
flipped = h[:-1] + ("0" if h[-1] != "0" else "1")
open(p, "w").write(t.replace(h, flipped))
PY
expect_failed "$WORK/bad7" "record is not in the signed index" "a page whose group record was edited"

# ---- a group page: every rank proven by the group's signed index record ------------
GROUP=$(sed -n 's|.*href="../groups/\(sha256:[0-9a-f]*\)".*|\1|p' "$WORK/exp/runs/$RID" | head -1)
[ -n "$GROUP" ] || fail "the run page links no group"
expect_group_verified() { # URL NAME
  dom "$1" "$WORK/dom.html" || fail "$2: chromium failed: $(tail -3 "$WORK/chrome.log")"
  local s
  s=$(status "$WORK/dom.html")
  case "$s" in
    "verified: verified against kix.test/log at size $SIZE: checkpoint signature; the ranks of "*" runs proven by the log’s signed index at size $SIZE.") ;;
    *) fail "$2: the group page says: $s" ;;
  esac
}
expect_group_verified "$H/groups/$GROUP" "kixd --http group page"
start_nginx "$WORK/exp"
expect_group_verified "$NGINX_URL/groups/$GROUP" "nginx group page"
pass "a group page verifies its ranks in Chromium (kixd --http and the export)"
[ "$(grep -c '<tr data-rank=' "$WORK/exp/groups/$GROUP")" -ge 2 ] || fail "the group has one run"
cp -r "$WORK/exp" "$WORK/bad8"
python3 - "$WORK/bad8/groups/$GROUP" <<'PY'
import re, sys
p = sys.argv[1]
t = open(p).read()
rows = re.findall(r'<tr data-rank="(\d+)" data-value="(\d+)" data-run="([^"]+)">', t)
(r1, v1, a), (r2, v2, b) = rows[0], rows[1]
row = '<tr data-rank="%s" data-value="%s" data-run="%s">'
# the second run promoted: shown first, with its own median, the first second
t = t.replace(row % (r1, v1, a), "@1@").replace(row % (r2, v2, b), row % (r2, v1, a))
t = t.replace("@1@", row % (r1, v2, b))
open(p, "w").write(t)
PY
expect_failed "$WORK/bad8" "row 1 shows run" "a group page whose second run is shown first" "groups/$GROUP"
cp -r "$WORK/exp" "$WORK/bad10"
python3 - "$WORK/bad10/groups/$GROUP" <<'PY'
import re, sys
p = sys.argv[1]
t = open(p).read()
# the attributes kept honest, the median the reader sees halved
m = re.search(r'(<tr data-rank="1" data-value="(\d+)"[^>]*>.*?</td><td>)(\d+)(</td></tr>)', t)
t = t[: m.start()] + m.group(1) + str(int(m.group(3)) // 2) + m.group(4) + t[m.end() :]
open(p, "w").write(t)
PY
expect_failed "$WORK/bad10" "row 1 shows run" "a group page whose visible median was edited" "groups/$GROUP"
cp -r "$WORK/exp" "$WORK/bad9"
sed -i 's|<span id="group-size">\([0-9]*\)</span>|<span id="group-size">9\1</span>|' "$WORK/bad9/groups/$GROUP"
expect_failed "$WORK/bad9" "the signed index proves" "a group page with its size edited" "groups/$GROUP"
