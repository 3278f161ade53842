#!/usr/bin/env bash
# The HTTP source's disk cache (client/lib/http_cache.c,
# client/lib/source_http_cache.c): a warm reader fetches fewer requests
# than a cold one (no full tile, full bundle or object again), --no-cache
# keeps nothing, and the cache is never believed: a cached tile, bundle or
# object that is damaged (short, bit flipped) or poisoned (other bytes
# under a valid checksum) is caught, dropped and read again from the
# network, the command succeeding with the true bytes; a lying copy is
# still caught with a warm cache where the lie is in what is fetched; and
# KIX_CACHE_MAX_MB bounds it.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"
source "$(dirname "$0")/tlog_lib.sh"

new_origin "$WORK/o"
# more than 256 entries: tile 0/000 and bundle 000 are full (kept), the rest partial
import "--store $WORK/o" 1 300 100 || fail "import: $(tail -3 "$WORK/import.log")"
SIZE=$("$KIX" info --store "$WORK/o" | awk '$1 == "size" { print $2 }')
[ "$SIZE" -gt 256 ] || fail "size $SIZE: no full tile"
RID=$(python3 -c 'import json,sys
print(json.loads(open(sys.argv[1]).readline())["runId"])' "$WORK/rows-1-300.map")
HPORT=$(free_port)
H="http://127.0.0.1:$HPORT/"
serve o --http "tcp://127.0.0.1:$HPORT" --http-access-log --export "$WORK/exp"
wait_export "$WORK/exp" "$SIZE"
export KIX_LOG_KEY="$WORK/vkey"

# requests LABEL CMD...: runs CMD, then prints how many HTTP requests kixd logged for it
requests() {
  local before after
  before=$(grep -c ' http GET ' "$WORK/o.log" || true)
  "${@:2}" >"$WORK/out-$1" 2>"$WORK/err" || fail "$1: $(cat "$WORK/err")"
  after=$(grep -c ' http GET ' "$WORK/o.log" || true)
  grep ' http GET ' "$WORK/o.log" | tail -n $((after - before)) >"$WORK/req-$1"
  echo $((after - before))
}
kept() { find "$KIX_CACHE_DIR/logs" -type f -path "*/$1" 2>/dev/null | head -1; }

# ---- cold, then warm -------------------------------------------------------------
export KIX_CACHE_DIR="$WORK/cache" KIX_STATE_DIR="$WORK/s1"
cold=$(requests cold "$KIX" show --server "$H" "$RID" --json)
[ -n "$(kept tile/0/000)" ] && [ -n "$(kept tile/entries/000)" ] || fail "nothing kept: $(find "$WORK/cache")"
DIG=$(json_get "$WORK/out-cold" 'd["manifestDigest"]')
requests get-cold "$KIX" get --server "$H" "$DIG" >/dev/null
[ -n "$(kept "objects/$DIG")" ] || fail "no object kept"
[ -n "$(find "$WORK/cache" -path '*/index/tile/00/*')" ] || fail "no index tile kept"
[ -z "$(find "$WORK/cache" -path '*.p/*')" ] || fail "a partial tile was kept: $(find "$WORK/cache" -path '*.p/*')"
warm=$(requests warm "$KIX" show --server "$H" "$RID" --json)
cmp -s "$WORK/out-cold" "$WORK/out-warm" || fail "warm show differs"
[ "$warm" -lt "$cold" ] || fail "warm $warm requests, cold $cold"
! grep -Eq 'path=/(tile/0/000|tile/entries/000|index/tile/|index/value/) ' "$WORK/req-warm" ||
  fail "warm read again: $(grep -E 'path=/(tile/0/000|tile/entries/000|index/)' "$WORK/req-warm")"
[ "$(requests get-warm "$KIX" get --server "$H" "$DIG")" -eq 1 ] || fail "kix get warm: $(cat "$WORK/req-get-warm")"
# (the export holds the manifest in the run's page and pack, not as objects/$DIG)
cmp -s "$WORK/out-get-warm" "$WORK/out-get-cold" || fail "kix get warm: another object"
# another reader (its own state) of the same log shares it
KIX_STATE_DIR="$WORK/s2" requests other "$KIX" show --server "$H" "$RID" --json >/dev/null
! grep -q 'path=/tile/entries/000 ' "$WORK/req-other" || fail "another reader of the log does not share the cache"
# kix cite and kix verify-citation read the run's entries one range at a
# time: from the cache too, not as a batch around it
requests cite "$KIX" cite --server "$H" "$RID" --json >/dev/null
cp "$WORK/out-cite" "$WORK/cit.json"
requests verify-cite "$KIX" verify-citation --server "$H" "$WORK/cit.json" >/dev/null
! grep -Eq 'path=/(tile/0/000|tile/entries/000) ' "$WORK/req-cite" "$WORK/req-verify-cite" ||
  fail "cite or verify-citation read again: $(grep -E 'path=/tile/(0/000|entries/000) ' "$WORK/req-cite" "$WORK/req-verify-cite")"
pass "cold $cold requests, warm $warm: tile 0/000, bundle 000, the index's tiles and records, objects from the cache (show, get, cite, verify-citation)"

# ---- --no-cache ------------------------------------------------------------------
KIX_CACHE_DIR="$WORK/cache-none" requests none "$KIX" --no-cache show --server "$H" "$RID" --json >/dev/null
KIX_CACHE_DIR="$WORK/cache-none" requests none2 "$KIX" show --no-cache --server "$H" "$RID" --json >/dev/null
[ ! -e "$WORK/cache-none" ] || fail "--no-cache wrote $(find "$WORK/cache-none")"
grep -q 'path=/tile/entries/000 ' "$WORK/req-none2" || fail "--no-cache read from a cache"
grep -q -- --no-cache <<<"$("$KIX" --help)" || fail "kix --help does not name --no-cache"
grep -q -- --no-cache <<<"$("$KIX" show --help)" || fail "kix show --help does not name --no-cache"
KIX_CACHE_DIR="$WORK/cache-audit" KIX_STATE_DIR="$WORK/s-audit" "$KIX" audit --server "$H" >/dev/null 2>"$WORK/err" ||
  fail "kix audit over HTTP: $(cat "$WORK/err")"
[ ! -e "$WORK/cache-audit" ] || fail "kix audit filled the cache: $(find "$WORK/cache-audit" | head -3)"
pass "--no-cache (before or after the command) keeps nothing and reads everything; kix audit keeps nothing"

# ---- damaged and poisoned files: caught, dropped, read again ---------------------
DIR=$(dirname "$(dirname "$(dirname "$(kept tile/0/000)")")")
ITILE=$(cd "$DIR" && find index/tile/00 -type f | sed -n 1p)
# damage FILE HOW: flip (a bit), short (cut), poison (other bytes, valid checksum)
damage() {
  python3 - "$1" "$2" <<'PY'
import hashlib, sys
f, how = sys.argv[1], sys.argv[2]
b = bytearray(open(f, "rb").read())
body = b[:-32]
if how == "flip":
    b[len(body) // 2] ^= 1
elif how == "short":
    b = b[: len(b) // 2]
else:
    body[len(body) // 2] ^= 1
    b = body + hashlib.sha256(body).digest()
open(f, "wb").write(b)
PY
}
for rel in tile/0/000 tile/entries/000 "$ITILE" "objects/$DIG"; do
  cmd=(show --server "$H" "$RID" --json) want="$WORK/out-cold"
  case "$rel" in objects/*) cmd=(get --server "$H" "$DIG") want="$WORK/out-get-cold" ;; esac
  for how in flip short poison; do
    cp "$DIR/$rel" "$WORK/good"
    damage "$DIR/$rel" "$how"
    requests "fix" "$KIX" "${cmd[@]}" >/dev/null
    cmp -s "$WORK/out-fix" "$want" || fail "$rel $how: another answer"
    grep -q "path=/$rel " "$WORK/req-fix" || fail "$rel $how: not read again from the network"
    cmp -s "$DIR/$rel" "$WORK/good" || fail "$rel $how: the cached file was not replaced by the true one"
  done
done
pass "a flipped, cut or poisoned cached tile, bundle, index tile or object: dropped, read again, the same answer"

# ---- a lying copy, read with a warm cache ----------------------------------------
start_nginx "$WORK/liar"
L=(--server "$NGINX_URL/")
rm -rf "$WORK/liar" && cp -a "$WORK/exp" "$WORK/liar"
export KIX_CACHE_DIR="$WORK/cache-liar" KIX_STATE_DIR="$WORK/s-liar"
"$KIX" show "${L[@]}" "$RID" >/dev/null || fail "the honest copy behind nginx"
[ -n "$(kept tile/entries/000)" ] || fail "nothing kept from nginx"
cp -a "$WORK/s-liar" "$WORK/s-liar0"
PARTIAL=$(ls "$WORK/liar/tile/0/001.p/" | sort -n | tail -1)
# a changed hash in the partial tile the proofs read (never cached)
python3 - "$WORK/liar/tile/0/001.p/$PARTIAL" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read()); b[0] ^= 1; open(sys.argv[1], "wb").write(b)
PY
expect_status 1 "$KIX" show "${L[@]}" "$RID"
pass "a changed partial tile with a warm cache: exit 1 ($(head -c 120 "$WORK/err"))"
rm -rf "$WORK/liar" && cp -a "$WORK/exp" "$WORK/liar"
rm -rf "$WORK/s-liar" && cp -a "$WORK/s-liar0" "$WORK/s-liar"
python3 - "$WORK/liar/runs/$RID.html" <<'PY'
import json, os, sys
sys.path.insert(0, os.environ["KIX_TESTS"] + "/integration")
from page_view import load, store
d = load(sys.argv[1])
assert '"kind":"BenchmarkRun"' in d["manifestCanonical"]
d["manifestCanonical"] = d["manifestCanonical"].replace('"kind":"BenchmarkRun"', '"kind":"BenchmarkRuN"')
store(sys.argv[1], d)
PY
expect_status 1 "$KIX" show "${L[@]}" "$RID"
pass "a changed run view with a warm cache: exit 1 ($(head -c 120 "$WORK/err"))"
# the cache holds what the honest copy proved: a lying copy's full tile is not what is read
rm -rf "$WORK/liar" && cp -a "$WORK/exp" "$WORK/liar"
rm -rf "$WORK/s-liar" && cp -a "$WORK/s-liar0" "$WORK/s-liar"
python3 - "$WORK/liar/tile/0/000" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read()); b[5] ^= 1; open(sys.argv[1], "wb").write(b)
PY
"$KIX" show "${L[@]}" "$RID" >/dev/null || fail "a lie the warm cache never reads"
rm -rf "$WORK/cache-liar"
expect_status 1 "$KIX" show "${L[@]}" "$RID"
[ -z "$(kept tile/0/000)" ] || fail "a lying copy's full tile was kept"
pass "a changed full tile: not read with a warm cache, caught (exit 1) and not kept with a cold one"

# ---- the log grows: the full files stay, the new ones are read --------------------
export KIX_CACHE_DIR="$WORK/cache" KIX_STATE_DIR="$WORK/s1"
import "--server unix://$WORK/o.sock" 301 330 30 || fail "import more: $(tail -3 "$WORK/import.log")"
SIZE2=$("$KIX" info --store "$WORK/o" | awk '$1 == "size" { print $2 }')
wait_export "$WORK/exp" "$SIZE2"
grown=$(requests grown "$KIX" show --server "$H" "$RID" --json)
! grep -Eq 'path=/(tile/0/000|tile/entries/000) ' "$WORK/req-grown" || fail "the grown log's full files read again"
[ "$grown" -le "$cold" ] || fail "after growth $grown requests, cold $cold"
pass "the log grew ($SIZE to $SIZE2): $grown requests, its full files still from the cache"

# ---- bounded ---------------------------------------------------------------------
rm "$(kept tile/entries/000)" # read and kept again: the command wrote, so it prunes
KIX_CACHE_MAX_MB=0 "$KIX" show --server "$H" "$RID" >/dev/null || fail "show with KIX_CACHE_MAX_MB=0"
[ -z "$(find "$WORK/cache" -type f)" ] || fail "KIX_CACHE_MAX_MB=0 left $(find "$WORK/cache" -type f | head -3)"
pass "KIX_CACHE_MAX_MB bounds the cache (0: emptied after a command that wrote to it)"
