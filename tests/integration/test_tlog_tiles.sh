#!/usr/bin/env bash
# C2SP tlog-tiles, served and static: an outside client (Go's
# golang.org/x/mod/sumdb/note and tlog, tests/tlog-client) verifies the
# checkpoint signature, the inclusion of entries read from entry bundles and
# the consistency of two sizes, over HTTP only, from kixd serve --http and
# from the --export directory served by nginx; sizes 602 and 702 are not
# multiples of 256, so partial tiles (.p/W) of two levels are read. Both
# ways give the same bytes; the one-shot kixd export the same tree; a mirror
# exports too; and the HTTP answers carry the caching headers the spec asks.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"
source "$(dirname "$0")/tlog_lib.sh"

new_origin "$WORK/o"
import "--store $WORK/o" 1 600 37 || fail "import: $(tail -3 "$WORK/import.log")"
VKEY=$(cat "$WORK/vkey")
HPORT=$(free_port)
HTTP="http://127.0.0.1:$HPORT"
serve o --http "tcp://127.0.0.1:$HPORT" --export "$WORK/exp"
wait_export "$WORK/exp" 602

# ---- served by kixd ------------------------------------------------------------------------
"$CLIENT" -url "$HTTP" -vkey "$VKEY" -all -save "$WORK/cp602" >"$WORK/c1" || fail "client against kixd --http at 602"
grep -q "at size 602: .* 602 inclusion proofs" "$WORK/c1" || fail "client: $(cat "$WORK/c1")"
pass "kixd --http: $(cat "$WORK/c1")"

# the log grows while served and exported
import "--server $(addr o)" 601 700 7 || fail "import: $(tail -3 "$WORK/import.log")"
wait_export "$WORK/exp" 702
"$CLIENT" -url "$HTTP" -vkey "$VKEY" -samples 40 -old "$WORK/cp602" >"$WORK/c2" \
  || fail "client against kixd --http at 702"
grep -q "consistent with size 602" "$WORK/c2" || fail "client: $(cat "$WORK/c2")"
pass "kixd --http: $(cat "$WORK/c2")"

# ---- the export, served by nginx ------------------------------------------------------------
start_nginx "$WORK/exp"
"$CLIENT" -url "$NGINX_URL" -vkey "$VKEY" -all -old "$WORK/cp602" >"$WORK/c3" \
  || fail "client against nginx serving the export"
grep -q "at size 702: .* 702 inclusion proofs, consistent with size 602" "$WORK/c3" || fail "client: $(cat "$WORK/c3")"
pass "nginx: $(cat "$WORK/c3")"

# every exported file is byte for byte what kixd serves at that path
# (one curl for every file, over one connection: a process per file made
# this the slowest part of the test)
find "$WORK/exp/checkpoint" "$WORK/exp/tile" "$WORK/exp/objects" -type f ! -name '*.tmp.*' | sort >"$WORK/files"
n=$(wc -l <"$WORK/files")
mkdir -p "$WORK/got"
i=0
while IFS= read -r f; do
  i=$((i + 1))
  printf 'url = "%s/%s"\noutput = "%s/got/%d"\n' "$HTTP" "${f#"$WORK/exp/"}" "$WORK" "$i"
done <"$WORK/files" >"$WORK/curl.cfg"
curl -sf --config "$WORK/curl.cfg" || fail "kixd does not serve every exported file"
i=0
while IFS= read -r f; do
  i=$((i + 1))
  cmp -s "$f" "$WORK/got/$i" || fail "${f#"$WORK/exp/"} differs between the export and kixd --http"
done <"$WORK/files"
[ "$n" -gt 100 ] || fail "only $n exported files"
[ -f "$WORK/exp/tile/0/002.p/190" ] && [ -f "$WORK/exp/tile/1/000.p/2" ] && [ -f "$WORK/exp/tile/entries/002.p/190" ] \
  || fail "the partial tiles of size 702 are missing: $(cd "$WORK/exp" && find . -type f | sort | tr '\n' ' ')"
[ -f "$WORK/exp/tile/0/002.p/90" ] || fail "the partial tile of the older checkpoint (602) is gone"
pass "$n exported files are the bytes kixd serves"

# the one-shot export of the same store is the same tree
stop o
expect_status 0 "$KIXD" export --store "$WORK/o" "$WORK/exp2"
# (the pages differ: each shows the tree size it was written at; index/
# keeps the notes and tiles of every size exported, a one-shot export the
# last size's)
pages=(-x runs -x groups -x index.html -x index.json -x index -x home -x kernels -x search)
diff -r "${pages[@]}" "$WORK/exp" "$WORK/exp2" >/dev/null \
  || fail "kixd export differs from serve --export: $(diff -r "${pages[@]}" "$WORK/exp" "$WORK/exp2" | head -5)"
# run again: nothing to do, nothing rewritten
expect_status 0 "$KIXD" export --store "$WORK/o" "$WORK/exp2"
grep -q "702 (from 702), 0 files" "$WORK/out" || fail "a second export rewrote files: $(cat "$WORK/out")"
pass "kixd export writes the same tree, and only what changed"

# ---- HTTP details ----------------------------------------------------------------------------
serve o --http "tcp://127.0.0.1:$HPORT" --export "$WORK/exp"
hdr() { curl -s -D - -o "$WORK/body" "$@" | tr -d '\r'; }
h=$(hdr "$HTTP/tile/0/001")
grep -q '^HTTP/1.1 200' <<<"$h" && grep -qi '^cache-control: public, max-age=31536000, immutable' <<<"$h" \
  && grep -qi '^content-type: application/octet-stream' <<<"$h" || fail "full tile headers: $h"
[ "$(stat -c %s "$WORK/body")" = 8192 ] || fail "a full tile is not 8192 bytes"
etag=$(grep -i '^etag:' <<<"$h" | cut -d' ' -f2)
[ -n "$etag" ] || fail "no ETag"
h=$(hdr -H "If-None-Match: $etag" "$HTTP/tile/0/001")
grep -q '^HTTP/1.1 304' <<<"$h" || fail "If-None-Match: $h"
h=$(hdr "$HTTP/tile/entries/002.p/190")
grep -qi '^cache-control: public, max-age=5$' <<<"$h" || fail "partial bundle headers: $h"
# full bundles come from their files in the store after their first read
# (daemon/front/http_bundles.h): the same bytes as the export's, read after read, bundle after bundle (and HEAD
# and a revalidation agree)
for round in 1 2 3; do
  for b in 000 001 000; do
    curl -sf "$HTTP/tile/entries/$b" -o "$WORK/bundle" || fail "GET tile/entries/$b"
    cmp -s "$WORK/bundle" "$WORK/exp/tile/entries/$b" || fail "bundle $b, read $round: not the export's bytes"
  done
done
h=$(curl -sI "$HTTP/tile/entries/001" | tr -d '\r')
grep -qi "^content-length: $(stat -c %s "$WORK/exp/tile/entries/001")" <<<"$h" || fail "HEAD of a cached bundle: $h"
# a kept bundle is sent from its file (sendfile), after the headers: pipelined
# with tiles, partial bundles, HEADs and the checkpoint on one connection,
# every answer is in order and each bundle is the export's file
python3 - "$HPORT" "$WORK/exp" <<'PY' || fail "pipelined bundles"
import os, sys
sys.path.insert(0, os.environ["KIX_TESTS"] + "/integration")
from raw_http import exchange
port, exp = int(sys.argv[1]), sys.argv[2]
paths = ["tile/entries/000", "tile/0/000", "tile/entries/001", "tile/entries/002.p/190",
         "HEAD tile/entries/000", "tile/entries/000", "checkpoint", "tile/entries/001"]
req = b""
for p in paths:
    m, p = p.split(" ") if " " in p else ("GET", p)
    req += ("%s /%s HTTP/1.1\r\nHost: x\r\n\r\n" % (m, p)).encode()
data = exchange(port, req + b"GET /checkpoint HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
for p in paths + ["checkpoint"]:
    head, _, data = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 OK"), (p, head)
    n = int([l for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")][0].split(b":")[1])
    if p.startswith("HEAD "):
        assert n == len(open(exp + "/" + p[5:], "rb").read()), p
        continue
    body, data = data[:n], data[n:]
    assert body == open(exp + "/" + p, "rb").read(), "%s differs from the export's file" % p
assert data == b"", data[:100]
PY
# and kept bytes are the bytes a fresh kixd assembles from the leaves (its
# first read of each, the files removed)
for b in 000 001; do curl -sf "$HTTP/tile/entries/$b" -o "$WORK/kept-$b" || fail "GET tile/entries/$b"; done
stop o
rm -r "$WORK/o/bundles"
serve o --http "tcp://127.0.0.1:$HPORT" --export "$WORK/exp"
for b in 001 000; do
  curl -sf "$HTTP/tile/entries/$b" -o "$WORK/fresh-$b" || fail "GET tile/entries/$b after a restart"
  cmp -s "$WORK/kept-$b" "$WORK/fresh-$b" || fail "bundle $b: kept bytes differ from freshly assembled ones"
done
h=$(hdr "$HTTP/checkpoint")
grep -qi '^cache-control: public, max-age=5$' <<<"$h" && grep -qi '^content-type: text/plain; charset=utf-8' <<<"$h" \
  || fail "checkpoint headers: $h"
cmp -s "$WORK/body" "$WORK/exp/checkpoint" || fail "the served checkpoint is not the exported one"
h=$(curl -sI "$HTTP/tile/0/000" | tr -d '\r')
grep -qi '^content-length: 8192' <<<"$h" || fail "HEAD: $h"
for p in tile/0/003 tile/0/002.p/191 tile/entries/003 tile/2/000.p/1 tile/0/2 tile/0/x000/002 \
  tile/00/000 tile/0/002.p/0 tile/0/002.p/256 tile/64/000 tile/0/000/ nothing; do
  code=$(curl -s -o /dev/null -w '%{http_code}' "$HTTP/$p")
  [ "$code" = 404 ] || fail "GET /$p: $code, want 404"
done
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST --data x "$HTTP/checkpoint")
[ "$code" = 413 ] || [ "$code" = 405 ] || fail "POST: $code"
code=$(curl -s -o /dev/null -w '%{http_code}' -X DELETE "$HTTP/checkpoint")
[ "$code" = 405 ] || fail "DELETE: $code"
code=$(curl -s -o /dev/null -w '%{http_code}' -H "X-Big: $(head -c 9000 /dev/zero | tr '\0' a)" "$HTTP/checkpoint")
[ "$code" = 431 ] || fail "a 9000-byte header: $code, want 431"
code=$(curl -s -o /dev/null -w '%{http_code}' $(for i in $(seq 1 1500); do printf -- "-H X$i:y "; done) "$HTTP/checkpoint")
[ "$code" = 431 ] || fail "1500 small headers: $code, want 431"
# pipelined requests on one connection are answered in order
python3 - "$HPORT" <<'PY' || fail "pipelining"
import os, sys
sys.path.insert(0, os.environ["KIX_TESTS"] + "/integration")
from raw_http import exchange
data = exchange(sys.argv[1], b"GET /tile/0/000 HTTP/1.1\r\nHost: x\r\n\r\n" * 5 +
                b"GET /checkpoint HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
assert data.count(b"HTTP/1.1 200 OK") == 6, data[:200]
assert data.startswith(b"HTTP/1.1 200 OK") and data.endswith(b"=\n"), data[-100:]
# HEAD: the headers of GET, no body
data = exchange(sys.argv[1], b"HEAD /tile/0/000 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
assert b"Content-Length: 8192\r\n" in data and data.endswith(b"\r\n\r\n"), data
PY
# garbage and a half request do not hurt the server
printf 'GARBAGE\r\n\r\n' | timeout 5 python3 -c 'import socket,sys; s=socket.create_connection(("127.0.0.1",int(sys.argv[1]))); s.sendall(sys.stdin.buffer.read()); print(s.recv(100))' "$HPORT" | grep -q "400" \
  || fail "garbage did not get 400"
"$CLIENT" -url "$HTTP" -vkey "$VKEY" -samples 4 >/dev/null || fail "kixd after bad requests"
pass "HTTP: caching headers, ETag/304, HEAD, 404s, 405/413/431, pipelining (bundles kept and fresh), bad input"

# ---- a mirror exports too ---------------------------------------------------------------------
MPORT=$(free_port)
mirror m o --http "tcp://127.0.0.1:$MPORT" --export "$WORK/mexp"
wait_export "$WORK/mexp" 702
cmp -s "$WORK/mexp/checkpoint" "$WORK/exp/checkpoint" || fail "the mirror's exported checkpoint differs"
for f in tile/0/000 tile/0/001 tile/0/002.p/190 tile/1/000.p/2 tile/entries/001 tile/entries/002.p/190; do
  cmp -s "$WORK/mexp/$f" "$WORK/exp/$f" || fail "the mirror's $f differs"
done
"$CLIENT" -url "http://127.0.0.1:$MPORT" -vkey "$VKEY" -samples 8 -old "$WORK/cp602" >"$WORK/c4" \
  || fail "client against the mirror's --http"
pass "mirror: the same tree, exported and served ($(cat "$WORK/c4"))"
