#!/usr/bin/env bash
# kixd export and kixd serve --export hard-link the full entry bundles and
# object packs that kixd --http keeps in STORE/bundles into the copy, when
# the file there holds exactly the export's bytes: the copy's file shares
# the store's inode. A cache file with other bytes (same length, one byte
# changed) is never linked: the copy gets the log's bytes, written. The
# summary counts what the copy holds (linked files with their bytes;
# --json's linked says how many), and kix audit of the copy over HTTP
# passes.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"
source "$(dirname "$0")/tlog_lib.sh"

# three entry bundles: two full, one partial
new_origin "$WORK/o"
import "--store $WORK/o" 1 600 100 || fail "import: $(tail -3 "$WORK/import.log")"
HPORT=$(free_port)
H="http://127.0.0.1:$HPORT"
serve o --http "tcp://127.0.0.1:$HPORT"
SIZE=$(size_of o)
[ "$SIZE" -ge 512 ] || fail "size $SIZE: fewer than two full bundles"
# the first GET of a full bundle or pack writes it as a file in the store
for n in 000 001; do
  curl -sf -o /dev/null "$H/tile/entries/$n" || fail "GET tile/entries/$n"
  curl -sf -o /dev/null "$H/objects/entries/$n" || fail "GET objects/entries/$n"
done
stop o
B="$WORK/o/bundles"
for f in 0 1 objects.0 objects.1; do [ -s "$B/$f" ] || fail "kixd --http kept no $B/$f"; done

# bundle 1's and pack 1's files damaged (same length, one byte other),
# replaced by rename as kixd writes them
for f in 1 objects.1; do
  cp "$B/$f" "$WORK/good.$f"
  python3 - "$B/$f" <<'PY'
import os, sys
b = bytearray(open(sys.argv[1], "rb").read())
b[len(b) // 2] ^= 0x01
open(sys.argv[1] + ".new", "wb").write(b)
os.rename(sys.argv[1] + ".new", sys.argv[1])
PY
done

"$KIXD" export --store "$WORK/o" --json "$WORK/exp" >"$WORK/out.json" 2>"$WORK/err" \
  || fail "kixd export: $(cat "$WORK/err")"
ino() { stat -c %i "$1"; }
[ "$(ino "$WORK/exp/tile/entries/000")" = "$(ino "$B/0")" ] \
  || fail "tile/entries/000 is not the store's file (inode $(ino "$WORK/exp/tile/entries/000"), store's $(ino "$B/0"))"
[ "$(ino "$WORK/exp/objects/entries/000")" = "$(ino "$B/objects.0")" ] \
  || fail "objects/entries/000 is not the store's file"
for p in "tile/entries/001 1" "objects/entries/001 objects.1"; do
  set -- $p
  [ "$(ino "$WORK/exp/$1")" != "$(ino "$B/$2")" ] || fail "$1: the damaged cache file was linked"
  cmp -s "$WORK/exp/$1" "$WORK/good.$2" || fail "$1: not the log's bytes"
done
python3 - "$WORK/out.json" "$WORK/exp" <<'PY' || fail "the summary: $(cat "$WORK/out.json")"
import json, os, sys
said = json.load(open(sys.argv[1]))
assert said["ok"] and said["linked"] == 2, said
names, inodes = 0, {}
for d, _, files in os.walk(sys.argv[2]):
    for f in files:
        st = os.stat(os.path.join(d, f))
        names += 1
        inodes[(st.st_dev, st.st_ino)] = st.st_size
assert said["files"] == names and said["bytes"] == sum(inodes.values()), (said, names, sum(inodes.values()))
PY
pass "kixd export links the store's full bundle and pack files, writes the damaged ones (linked 2)"

# kix audit of the copy over HTTP (nginx: keep-alive, where python3 -m
# http.server's connection a request made the audit's thousands of index
# files take minutes)
start_nginx "$WORK/exp"
P=$NGINX_URL
export KIX_STATE_DIR="$WORK/state"
"$KIX" audit --server "$P/" --log-key "$WORK/vkey" >"$WORK/audit.txt" 2>"$WORK/err" \
  || fail "kix audit of the copy: $(cat "$WORK/err")"
grep -q "all $SIZE entries" "$WORK/audit.txt" || fail "kix audit: $(cat "$WORK/audit.txt")"
pass "kix audit of the linked copy over HTTP ($SIZE entries)"

# kixd serve --export links too (kixd --http wrote bundle 1's file again
# when asked: checked once per worker, a damaged one is replaced)
serve o --http "tcp://127.0.0.1:$HPORT" --export "$WORK/exp2"
wait_export "$WORK/exp2" "$SIZE"
[ "$(ino "$WORK/exp2/tile/entries/000")" = "$(ino "$B/0")" ] || fail "serve --export did not link tile/entries/000"
cmp -s "$WORK/exp2/tile/entries/001" "$WORK/good.1" || fail "serve --export: tile/entries/001 is not the log's bytes"
stop o
pass "kixd serve --export links the store's full bundle files"
