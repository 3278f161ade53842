#!/usr/bin/env bash
# Every page has its JSON (issue 26 part 5): kixd answers runs/<id>.json and
# groups/<key>.json, and the page's own address with Accept:
# application/json, saying Vary: Accept; <page>.html is the page too. Tiles,
# bundles, checkpoints, JSON and pages carry Access-Control-Allow-Origin: *
# (a verifier on another origin reads them). The export's pages get the
# right content type from nginx (with README's rules, and with none but
# mime.types for <page>.html) and from python3 -m http.server (which types
# by extension alone: <page>.html, the export's hard link of <page>).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"
source "$(dirname "$0")/tlog_lib.sh"

new_origin "$WORK/o"
{ sed -n 1p "$CSV"; awk '/^rope,/ && n++ < 10' "$CSV"; } >"$WORK/rope.csv"
"$KIX_BIN/kix-import-liger" --key "$WORK/pub.key" --store "$WORK/o" --batch 10 --map "$WORK/rope.map" \
  "$WORK/rope.csv" >/dev/null 2>>"$WORK/import.log" || fail "import: $(tail -3 "$WORK/import.log")"
RID=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["runId"])' "$WORK/rope.map")
HPORT=$(free_port)
H="http://127.0.0.1:$HPORT"
serve o --http "tcp://127.0.0.1:$HPORT" --export "$WORK/exp"
SIZE=$(curl -sf "$H/checkpoint" | sed -n 2p)
GROUP=$(curl -sf "$H/runs/$RID.json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["rank"]["group"])')
[ -n "$GROUP" ] || fail "the run has no group"

# head URL [CURL ARGS]: the answer's status line and headers, lower-cased names
head_of() { local u=$1; shift; curl -s -o "$WORK/body" -D - "$@" "$u" | tr -d '\r' | sed 's/^\([A-Za-z-]*\):/\L\1:/'; }
want_header() { # WHAT HEADERS LINE
  grep -qxF "$3" <<<"$2" || fail "$1: no '$3' in: $(tr '\n' '|' <<<"$2")"
}
for page in "runs/$RID" "groups/$GROUP"; do
  h=$(head_of "$H/$page")
  want_header "$page" "$h" "content-type: text/html; charset=utf-8"
  want_header "$page" "$h" "vary: Accept"
  want_header "$page" "$h" "access-control-allow-origin: *"
  h=$(head_of "$H/$page.json")
  want_header "$page.json" "$h" "content-type: application/json"
  want_header "$page.json" "$h" "access-control-allow-origin: *"
  cp "$WORK/body" "$WORK/by-ext.json"
  h=$(head_of "$H/$page" -H "Accept: application/json")
  want_header "$page (Accept)" "$h" "content-type: application/json"
  cmp -s "$WORK/body" "$WORK/by-ext.json" || fail "$page: Accept: application/json gives other JSON than .json"
  h=$(head_of "$H/$page" -H "Accept: text/html, application/json")
  want_header "$page (Accept: both)" "$h" "content-type: text/html; charset=utf-8"
  h=$(head_of "$H/$page.html")
  want_header "$page.html" "$h" "content-type: text/html; charset=utf-8"
done
python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); assert v["view"] == "kix.group/1", v["view"]' "$WORK/by-ext.json" ||
  fail "groups/<key>.json is not a group view"
pass "kixd: run and group pages as JSON by .json and by Accept (Vary: Accept), and as .html"
h=$(head_of "$H/")
want_header "home" "$h" "content-type: text/html; charset=utf-8"
for p in checkpoint "tile/0/000.p/$SIZE" "tile/entries/000.p/$SIZE" "runs/no-such-run"; do
  want_header "$p" "$(head_of "$H/$p")" "access-control-allow-origin: *"
done
pass "kixd: checkpoint, tiles, bundles, JSON, pages and refusals carry Access-Control-Allow-Origin: *"

for _ in $(seq 1 100); do [ "$(cat "$WORK/exp/runs/.size" 2>/dev/null)" = "$SIZE" ] && break; sleep 0.1; done
[ "$(cat "$WORK/exp/runs/.size" 2>/dev/null)" = "$SIZE" ] || fail "the export did not reach size $SIZE"
[ "$WORK/exp/runs/$RID" -ef "$WORK/exp/runs/$RID.html" ] || fail "runs/$RID.html is not the page's hard link"
[ "$WORK/exp/groups/$GROUP" -ef "$WORK/exp/groups/$GROUP.html" ] || fail "the group page's .html is not its hard link"
pass "the export: every page also as <page>.html (a hard link, no bytes twice)"

# nginx configured as OPERATING.md says (tlog_lib.sh's start_nginx)
start_nginx "$WORK/exp"
for p in "runs/$RID" "groups/$GROUP"; do
  want_header "nginx $p" "$(head_of "$NGINX_URL/$p")" "content-type: text/html; charset=utf-8"
done
for p in "runs/$RID.html" "groups/$GROUP.html"; do # nginx's types: text/html, the page says utf-8
  want_header "nginx $p" "$(head_of "$NGINX_URL/$p")" "content-type: text/html"
done
# (a copy's run has no runs/<id>.json since layout 4: its view is in its page)
for p in "groups/$GROUP.json"; do
  want_header "nginx $p" "$(head_of "$NGINX_URL/$p")" "content-type: application/json"
done
want_header "nginx CORS" "$(head_of "$NGINX_URL/groups/$GROUP.json")" "access-control-allow-origin: *"
want_header "nginx CORS" "$(head_of "$NGINX_URL/checkpoint")" "access-control-allow-origin: *"
PACK=$(cd "$WORK/exp" && find index/pack -type f | sed -n 1p)
[ -n "$PACK" ] || fail "the export holds no index pack"
want_header "nginx $PACK" "$(head_of "$NGINX_URL/$PACK")" "cache-control: public, max-age=31536000, immutable"
pass "nginx with README's rules: pages text/html, JSON application/json, Access-Control-Allow-Origin"

# nginx with no rule but its own mime.types: the .html and .json names suffice
start_nginx "$WORK/exp" plain
port=${NGINX_URL##*:}
want_header "plain nginx .html" "$(head_of "http://127.0.0.1:$port/runs/$RID.html")" "content-type: text/html"
want_header "plain nginx .json" "$(head_of "http://127.0.0.1:$port/groups/$GROUP.json")" "content-type: application/json"
pass "nginx with mime.types only: <page>.html is text/html, <page>.json application/json"

# python3 -m http.server: types by extension, no configuration
pport=$(free_port)
(cd "$WORK/exp" && exec python3 -m http.server --bind 127.0.0.1 "$pport") >"$WORK/pyhttp.log" 2>&1 &
PY=$!
KIXD_PIDS+=("$PY")
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$pport/" && break; sleep 0.05; done
P="http://127.0.0.1:$pport"
for p in "runs/$RID.html" "groups/$GROUP.html" index.html; do
  want_header "python $p" "$(head_of "$P/$p")" "content-type: text/html"
done
want_header "python json" "$(head_of "$P/groups/$GROUP.json")" "content-type: application/json"
want_header "python js" "$(head_of "$P/kix-verify.js")" "content-type: text/javascript"
want_header "python css" "$(head_of "$P/style.css")" "content-type: text/css"
cmp -s "$WORK/body" "$WORK/exp/style.css" || fail "python: style.css differs"
pass "python3 -m http.server: <page>.html text/html, JSON, script and style by their extensions"
