#!/usr/bin/env bash
# Full entry bundles kept as files (STORE/bundles, daemon/front/http_bundles.h)
# and sent with sendfile(2) by kixd --http: the bytes are kixd export's,
# assembled the first time and read from the file after; answers stay in
# request order and whole when pipelined with tiles, 404s, HEADs and 304s
# to a reader too slow for the socket to take a bundle at once; a reader
# that leaves mid-body does not hurt kixd; a file removed or emptied, or
# the directory, is made again, and so is one damaged or another log's
# (checked once per worker and run); a crash's temporary file is removed at
# start, a store where the directory cannot be made still serves every
# bundle, and kixd backup and check ignore the directory.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"

new_origin "$WORK/o"
import "--store $WORK/o" 1 1030 100 || fail "import: $(tail -3 "$WORK/import.log")"
expect_status 0 "$KIXD" export --store "$WORK/o" "$WORK/exp"
FULL=(000 001 002 003) # about 1030 entries: four full bundles and a partial one
for b in "${FULL[@]}"; do [ -s "$WORK/exp/tile/entries/$b" ] || fail "the export has no bundle $b"; done
PARTIAL=$(cd "$WORK/exp" && ls -d tile/entries/004.p/* 2>/dev/null | head -1)
[ -n "$PARTIAL" ] || fail "the export has no partial bundle 004.p/N"
HPORT=$(free_port)
HTTP="http://127.0.0.1:$HPORT"
serve o --http "tcp://127.0.0.1:$HPORT"

# get_all ROUND: every full bundle, compared with the export's file
get_all() {
  local b
  for b in "${FULL[@]}"; do
    curl -sf "$HTTP/tile/entries/$b" -o "$WORK/got" || fail "GET tile/entries/$b ($1)"
    cmp -s "$WORK/got" "$WORK/exp/tile/entries/$b" || fail "bundle $b ($1): not the export's bytes"
  done
}

# ---- first read assembles and keeps, the next reads the file -------------------------------
[ -d "$WORK/o/bundles" ] || fail "kixd --http made no $WORK/o/bundles"
[ -z "$(ls -A "$WORK/o/bundles")" ] || fail "bundle files before any read: $(ls "$WORK/o/bundles")"
get_all cold
for b in "${FULL[@]}"; do
  cmp -s "$WORK/o/bundles/$((10#$b))" "$WORK/exp/tile/entries/$b" || fail "the file of bundle $b is not the export's"
done
[ "$(ls "$WORK/o/bundles" | sort | tr '\n' ' ')" = "0 1 2 3 " ] \
  || fail "bundle files: $(ls "$WORK/o/bundles" | tr '\n' ' ') (partial ones are never kept)"
get_all warm
pass "every full bundle, assembled then read from its file, is kixd export's"

# ---- HEAD and revalidation ---------------------------------------------------------------------
h=$(curl -s -D - -o "$WORK/body" "$HTTP/tile/entries/002" | tr -d '\r')
etag=$(grep -i '^etag:' <<<"$h" | cut -d' ' -f2)
[ -n "$etag" ] || fail "no ETag on a bundle: $h"
h=$(curl -sI "$HTTP/tile/entries/002" | tr -d '\r')
grep -q '^HTTP/1.1 200' <<<"$h" && grep -qi "^content-length: $(stat -c %s "$WORK/exp/tile/entries/002")$" <<<"$h" \
  || fail "HEAD of a bundle: $h"
rm -f "$WORK/body"
h=$(curl -s -D - -o "$WORK/body" -H "If-None-Match: $etag" "$HTTP/tile/entries/002" | tr -d '\r')
grep -q '^HTTP/1.1 304' <<<"$h" && [ ! -s "$WORK/body" ] || fail "If-None-Match of a bundle: $h"
pass "HEAD and 304 of a bundle"

# ---- pipelined, to a slow reader ---------------------------------------------------------------
# A 4 KiB receive buffer and a late, slow reader: the socket takes part of a
# bundle and then nothing, so answers wait in kixd behind the bundle sent
# partly; every answer must come in request order, whole, and a bundle the
# export's bytes (a bundle sent ahead of queued bytes, or cut short, fails).
python3 - "$HPORT" "$WORK/exp" "$etag" "$PARTIAL" <<'PY' || fail "pipelined bundles to a slow reader"
import socket, sys, time
port, exp, etag, partial = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
asks = [("GET", "tile/entries/000", 200), ("GET", "tile/0/000", 200),
        ("GET", "tile/entries/999", 404), ("HEAD", "tile/entries/001", 200),
        ("INM", "tile/entries/002", 304), ("GET", partial, 200),
        ("GET", "checkpoint", 200)]
asks += [("GET", "tile/entries/%03d" % (i % 4), 200) for i in range(40)]
asks += [("GET", "tile/0/001", 200), ("GET", "nothing", 404), ("GET", "tile/entries/003", 200)]
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.connect(("127.0.0.1", port))
req = b""
for i, (m, p, _) in enumerate(asks):
    h = "If-None-Match: %s\r\n" % etag if m == "INM" else ""
    if i == len(asks) - 1:
        h += "Connection: close\r\n"
    req += ("%s /%s HTTP/1.1\r\nHost: x\r\n%s\r\n" % ("GET" if m == "INM" else m, p, h)).encode()
s.sendall(req)
time.sleep(1.0)
data = bytearray()
while True:
    b = s.recv(8192)
    if not b:
        break
    data += b
    if len(data) < 200000:
        time.sleep(0.002)
checkpoint = None
for m, p, code in asks:
    head, sep, rest = bytes(data).partition(b"\r\n\r\n")
    assert sep, (p, "no answer")
    status = int(head.split(b" ")[1])
    assert status == code, (m, p, head[:200])
    hs = {l.split(b":")[0].lower(): l.split(b":", 1)[1].strip() for l in head.split(b"\r\n")[1:]}
    n = 0 if m == "HEAD" or code == 304 else int(hs[b"content-length"])
    body, data = rest[:n], bytearray(rest[n:])
    assert len(body) == n, (p, "short body", len(body), n)
    if m == "HEAD":
        assert int(hs[b"content-length"]) == len(open(exp + "/" + p, "rb").read()), p
    elif code == 200 and p.startswith("tile/"):
        assert body == open(exp + "/" + p, "rb").read(), "%s: not the export's bytes" % p
    elif p == "checkpoint":
        assert body.startswith(b"kix.test/log\n"), body[:80]
assert not data, ("bytes after the last answer", bytes(data[:100]))
PY
pass "pipelined bundles, tiles, 404s, HEAD and 304 to a slow reader: in order, whole"
# Requests trickling in while earlier answers still drain: kixd then reads
# a request while libuv still holds bytes to write and the socket has room
# again; a bundle sent by sendfile then would overtake them.
python3 - "$HPORT" "$WORK/exp" <<'PY' || fail "requests trickling in while answers drain"
import socket, sys, threading, time
port, exp = int(sys.argv[1]), sys.argv[2]
paths = ["tile/entries/%03d" % (i % 4) if i % 3 else "tile/0/%03d" % (i % 4) for i in range(300)]
want = {p: open(exp + "/" + p, "rb").read() for p in set(paths)}
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
s.connect(("127.0.0.1", port))
def send():
    for i, p in enumerate(paths):
        close = "Connection: close\r\n" if i == len(paths) - 1 else ""
        s.sendall(("GET /%s HTTP/1.1\r\nHost: x\r\n%s\r\n" % (p, close)).encode())
        time.sleep(0.0005 * (i % 5))
t = threading.Thread(target=send)
t.start()
data = bytearray()
while True:
    b = s.recv(4096 * (1 + len(data) % 7))
    if not b:
        break
    data += b
    time.sleep(0.0003 * (len(data) % 3))
t.join()
at = 0  # (an offset: copying what is left after each answer is quadratic)
for p in paths:
    end = data.find(b"\r\n\r\n", at)
    assert end >= 0, (p, "no answer")
    head = bytes(data[at:end])
    assert head.startswith(b"HTTP/1.1 200 "), (p, head[:100])
    n = int([l for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")][0].split(b":")[1])
    assert data[end + 4:end + 4 + n] == want[p], "%s: not the export's bytes (an answer out of order or short)" % p
    at = end + 4 + n
assert at == len(data), ("bytes after the last answer", len(data) - at)
PY
pass "requests trickling in while answers drain: in order, whole"

# ---- readers that leave mid-body -----------------------------------------------------------------
python3 - "$HPORT" <<'PY' || fail "readers leaving mid-body"
import socket, struct, sys
port = int(sys.argv[1])
for k in range(6):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", port))
    s.sendall(b"".join(b"GET /tile/entries/%03d HTTP/1.1\r\nHost: x\r\n\r\n" % (i % 4) for i in range(30)))
    s.recv(1000 + 3000 * k)
    if k % 2:  # a reset, or a plain close
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()
PY
kill -0 "$PID_o" 2>/dev/null || fail "kixd died when readers left mid-body: $(tail -5 "$WORK/o.log")"
get_all "after readers left"
pass "readers leaving mid-body: kixd goes on serving"

# ---- a file removed or emptied is written again --------------------------------------------------
rm "$WORK/o/bundles/1"
: >"$WORK/o/bundles/2"
get_all "a file removed, one emptied"
cmp -s "$WORK/o/bundles/1" "$WORK/exp/tile/entries/001" || fail "the removed file is not written again"
cmp -s "$WORK/o/bundles/2" "$WORK/exp/tile/entries/002" || fail "the emptied file is not written again"
rm -r "$WORK/o/bundles"
get_all "the directory removed"
[ "$(ls "$WORK/o/bundles" | sort | tr '\n' ' ')" = "0 1 2 3 " ] || fail "the removed directory is not made again"
# the files each worker keeps open follow: once every worker has been
# asked for every bundle again, none of the removed files is still open
WORKERS=$(getconf _NPROCESSORS_ONLN) # kixd's --threads default
for round in $(seq $((8 * WORKERS))); do get_all "round $round after the directory was removed"; done
open_bundles() { ls -l /proc/"$PID_o"/fd 2>/dev/null | grep -c "$WORK/o/bundles/" || true; }
deleted=$(ls -l /proc/"$PID_o"/fd 2>/dev/null | grep "$WORK/o/bundles/" | grep -c "(deleted)" || true)
[ "$deleted" = 0 ] || fail "kixd still holds $deleted removed bundle files open"
[ "$(open_bundles)" -le $((4 * WORKERS)) ] ||
  fail "kixd holds $(open_bundles) bundle files open for 4 bundles and $WORKERS workers"
pass "a removed or empty bundle file, or the whole directory, is made again"

# ---- files damaged or from another log; a crash's temporary file ---------------------------------
# checked against the log's tile once per worker and run: a file of the
# right length with one byte changed, or another bundle's file (as a store
# restored over this one would leave), is written again
stop o
printf 'half a bundle' >"$WORK/o/bundles/tmp.0.3"
python3 - "$WORK/o/bundles/1" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[len(b) // 2] ^= 1
open(sys.argv[1], "wb").write(b)
PY
cp "$WORK/o/bundles/0" "$WORK/o/bundles/3"
serve o --http "tcp://127.0.0.1:$HPORT"
[ ! -e "$WORK/o/bundles/tmp.0.3" ] || fail "a crash's temporary file is left at start"
get_all "after a restart, files damaged"
cmp -s "$WORK/o/bundles/1" "$WORK/exp/tile/entries/001" || fail "a damaged file is not written again"
cmp -s "$WORK/o/bundles/3" "$WORK/exp/tile/entries/003" || fail "another bundle's file is not written again"
grep -q "bundles/1 is not entry bundle 1 of this log" "$WORK/o.log" || fail "no warning about the damaged file"
pass "damaged files and another bundle's file are written again; a crash's temporary file is removed at start"

# ---- a store where the directory cannot be made ---------------------------------------------------
stop o
rm -r "$WORK/o/bundles"
echo "not a directory" >"$WORK/o/bundles"
serve o --http "tcp://127.0.0.1:$HPORT"
grep -q "cannot use $WORK/o/bundles" "$WORK/o.log" || fail "no warning about the unusable directory: $(tail -3 "$WORK/o.log")"
get_all "no directory"
get_all "no directory, again"
stop o
rm "$WORK/o/bundles"
pass "without the directory, bundles are assembled each time"

# ---- backup and check ignore the directory ------------------------------------------------------
serve o --http "tcp://127.0.0.1:$HPORT"
get_all "before a backup"
stop o
expect_status 0 "$KIXD" check --store "$WORK/o"
expect_status 0 "$KIXD" backup --store "$WORK/o" "$WORK/backup"
[ ! -e "$WORK/backup/bundles" ] || fail "the backup holds the bundle files"
pass "kixd check passes and kixd backup leaves out the bundle files"
