#!/usr/bin/env bash
# Object packs (objects/entries/<N>, kix/object_pack.h, PROTOCOL.md §3.2):
# the export writes one for each full entry bundle and kixd --http serves
# the same bytes (kept as a file, checked again after a restart); a replay
# (kix audit, a kixd mirror) reads a full bundle's objects from its pack
# and GETs only the others one by one. A pack is named by its bundle, not
# its content, so a lying one changes nothing a reader believes: a changed
# object in it is fetched by digest (and refused when that lies too), an
# extra object is never stored, a cut, garbage or oversized pack is done
# without.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"
source "$(dirname "$0")/tlog_lib.sh"

# three entry bundles: two full, one partial
new_origin "$WORK/o"
import "--store $WORK/o" 1 560 70 || fail "import: $(tail -3 "$WORK/import.log")"
HPORT=$(free_port)
H="http://127.0.0.1:$HPORT"
serve o --http "tcp://127.0.0.1:$HPORT" --export "$WORK/exp"
SIZE=$(size_of o)
wait_export "$WORK/exp" "$SIZE"
FULL=$((SIZE / 256))
[ "$FULL" -ge 2 ] && [ $((SIZE % 256)) -gt 0 ] || fail "size $SIZE: not two full bundles and a partial one"

# ---- the files: one pack per full bundle, the same from kixd ----
for n in $(seq 0 $((FULL - 1))); do
  N=$(printf '%03d' "$n")
  [ -f "$WORK/exp/objects/entries/$N" ] || fail "the export has no pack of bundle $N"
  curl -sf -D "$WORK/hdr" -o "$WORK/pack-$N" "$H/objects/entries/$N" || fail "GET objects/entries/$N from kixd"
  cmp -s "$WORK/pack-$N" "$WORK/exp/objects/entries/$N" || fail "kixd's pack $N is not the export's"
  grep -qi '^cache-control: public, max-age=31536000, immutable' "$WORK/hdr" || fail "pack $N: $(cat "$WORK/hdr")"
  cmp -s "$WORK/o/bundles/objects.$n" "$WORK/exp/objects/entries/$N" || fail "kixd kept no file of pack $N"
done
P=$(printf '%03d' "$FULL")
[ ! -e "$WORK/exp/objects/entries/$P" ] || fail "a pack of the partial bundle $P"
for bad in "objects/entries/$P" objects/entries/x001/000 objects/entries/0001 objects/entries/000.p/5 objects/entries/; do
  code=$(curl -s -o /dev/null -w '%{http_code}' "$H/$bad")
  [ "$code" = 404 ] || fail "GET /$bad: $code, want 404"
done
# what a pack holds: objects of the export, each once, each after the
# objects it references; together with what the partial bundle needs,
# every object of the export. A run manifest a full bundle's pack holds
# has no objects/ file: its run page holds it (PROTOCOL.md §3, "One
# manifest a run"), byte for byte
python3 - "$WORK/exp" "$FULL" "$WORK/paged.txt" >"$WORK/single.txt" <<'PY' || fail "the packs' content"
import hashlib, json, os, re, sys
sys.path.insert(0, os.environ["KIX_TESTS"] + "/integration")
import page_view
exp, full = sys.argv[1], int(sys.argv[2])
files = {f for f in os.listdir(exp + "/objects") if f.startswith("sha256:")}
pages = {}
for f in os.listdir(exp + "/runs"):
    if f.endswith(".html"):
        v = page_view.load(exp + "/runs/" + f)  # its manifest, #kix-manifest's text (layout 7)
        text = v["manifestCanonical"].encode()  # its digest is its text's (layout 7)
        pages["sha256:" + hashlib.sha256(text).hexdigest()] = text
def held(d):
    return open(exp + "/objects/" + d, "rb").read() if d in files else pages.get(d)
packed = set()
for n in range(full):
    b = open("%s/objects/entries/%03d" % (exp, n), "rb").read()
    off, seen = 0, set()
    while off < len(b):
        size = int.from_bytes(b[off:off + 4], "big")
        obj = b[off + 4:off + 4 + size]
        assert len(obj) == size, "pack %d cut at %d" % (n, off)
        off += 4 + size
        d = "sha256:" + hashlib.sha256(obj).hexdigest()
        assert held(d) == obj, "pack %d holds %s, not an object of the export" % (n, d)
        assert d in files or n < full, d
        assert d not in seen, "pack %d holds %s twice" % (n, d)
        for ref in set(re.findall(r'"(sha256:[0-9a-f]{64})"', obj.decode())):
            assert ref not in files or ref in seen, "pack %d: %s before %s it references" % (n, d, ref)
        seen.add(d)
    assert seen, "pack %d is empty" % n
    packed |= seen
assert len(packed) > 2 * 256 * 0.9, "%d objects packed" % len(packed)
only_paged = packed - files
assert len(only_paged) > 2 * 256 * 0.9, "%d manifests held by the pages alone" % len(only_paged)
print("\n".join(sorted(files - packed)))
# the partial bundle's run manifests: in their pages alone (no file, no pack)
paged = set(pages) - files - packed
assert paged, "no run manifest of the partial bundle held by its page alone"
open(sys.argv[3], "w").write("".join(d + "\n" for d in sorted(paged)))
PY
pass "a pack per full bundle ($FULL), kixd's bytes the export's (immutable, kept as a file), none for the partial bundle; $(wc -l <"$WORK/single.txt") objects outside the packs"

# ---- a replay reads the packs ----
# a static server that records what it is asked (GETs of the copy in $WORK/copy)
CPORT=$(free_port)
C="http://127.0.0.1:$CPORT"
# a copy of the export: hard links (sed -i replaces a file, never writes
# through a link), but for the packs, which are edited in place
fresh_copy() {
  rm -rf "$WORK/copy" && cp -al "$WORK/exp" "$WORK/copy" && rm -r "$WORK/copy/objects/entries" &&
    cp -a "$WORK/exp/objects/entries" "$WORK/copy/objects/entries"
  : >"$WORK/asked"
}
fresh_copy
python3 "$KIX_TESTS/integration/static_server.py" "$WORK/copy" "$CPORT" --record "$WORK/asked" 2>>"$WORK/counting.log" &
KIXD_PIDS+=("$!")
for _ in $(seq 1 100); do curl -s -o /dev/null "$C/checkpoint" && break; sleep 0.05; done
A=(--server "$C/" --log-key "$WORK/vkey")
asked_objects() { grep '^/objects/sha256:' "$WORK/asked" | sed 's|^/objects/||' | sort; }

export KIX_STATE_DIR="$WORK/s-honest"
"$KIX" audit "${A[@]}" --no-cache >"$WORK/audit.txt" 2>"$WORK/err" || fail "kix audit: $(cat "$WORK/err")"
grep -q "all $SIZE entries" "$WORK/audit.txt" || fail "kix audit: $(cat "$WORK/audit.txt")"
# each pack read by the replay, then once more by the check of the copy's files
[ "$(grep -c '^/objects/entries/' "$WORK/asked")" = $((2 * FULL)) ] || fail "packs asked: $(grep '^/objects/entries/' "$WORK/asked")"
# one by one: the objects outside the packs, and the partial bundle's run
# manifests (asked, absent, then read from their run pages)
sort "$WORK/single.txt" "$WORK/paged.txt" | sed '/^$/d' >"$WORK/one-by-one.txt"
asked_objects | diff - "$WORK/one-by-one.txt" >/dev/null || fail "objects asked one by one are not those outside the packs and the partial bundle's manifests: $(asked_objects | diff - "$WORK/one-by-one.txt" | head -5)"
pass "kix audit reads the $FULL packs and GETs only the $(wc -l <"$WORK/single.txt") other objects and the partial bundle's $(wc -l <"$WORK/paged.txt") run manifests (then read from their pages)"

export KIX_STATE_DIR="$WORK/s-kixd"
"$KIX" audit --server "$H/" --log-key "$WORK/vkey" --no-cache >"$WORK/audit.txt" 2>"$WORK/err" || fail "kix audit of kixd --http: $(cat "$WORK/err")"
grep -q "all $SIZE entries" "$WORK/audit.txt" || fail "kix audit of kixd --http: $(cat "$WORK/audit.txt")"
pass "kix audit of kixd --http, packs included"

# pack_edit N PYTHON: rewrites copy/objects/entries/N with PYTHON, given
# `objs` (the pack's objects) and `b` (its bytes), setting `out`
pack_edit() {
  python3 - "$WORK/copy/objects/entries/$1" "$2" <<'PY'
import sys
path, code = sys.argv[1], sys.argv[2]
b = open(path, "rb").read()
objs, off = [], 0
while off < len(b):
    n = int.from_bytes(b[off:off + 4], "big")
    objs.append(b[off + 4:off + 4 + n])
    off += 4 + n
def pack(objs):
    return b"".join(len(o).to_bytes(4, "big") + o for o in objs)
g = {"objs": objs, "b": b, "pack": pack}
exec(code, g)
open(path, "wb").write(g["out"])
PY
}
# the last object of pack 001 (a run's manifest, after what it references)
LAST=$(python3 - "$WORK/exp/objects/entries/001" <<'PY'
import hashlib, sys
b, off, last = open(sys.argv[1], "rb").read(), 0, None
while off < len(b):
    n = int.from_bytes(b[off:off + 4], "big"); last = b[off + 4:off + 4 + n]; off += 4 + n
print("sha256:" + hashlib.sha256(last).hexdigest())
PY
)
# a full bundle's run manifest has no objects/ file: its run page holds it
# (PROTOCOL.md §3, "One manifest a run"); LAST_PAGE is that page
LAST_PAGE=$(python3 - "$WORK/exp/runs" "$LAST" <<'PY'
import os, sys
sys.path.insert(0, os.environ["KIX_TESTS"] + "/integration")
from page_view import full
for f in sorted(os.listdir(sys.argv[1])):
    if f.endswith(".html") and full(os.path.join(sys.argv[1], f))["manifestDigest"] == sys.argv[2]:
        print(os.path.join(sys.argv[1], f))
        break
PY
)
[ -n "$LAST_PAGE" ] && [ ! -e "$WORK/exp/objects/$LAST" ] || fail "$LAST has an objects/ file, or no run page"
LAST_PAGE=runs/$(basename "$LAST_PAGE")
python3 "$KIX_TESTS/integration/page_view.py" "$WORK/exp/$LAST_PAGE" |
  python3 -c 'import json,sys; sys.stdout.write(json.load(sys.stdin)["manifestCanonical"])' >"$WORK/last.json"
grep -q '"kind":"BenchmarkRun"' "$WORK/last.json" || fail "$LAST is not a run manifest"
CHANGE='objs[-1] = objs[-1].replace(b"\"kind\":\"BenchmarkRun\"", b"\"kind\":\"BenchmarkRuN\""); out = pack(objs)'

# a changed object in a pack: not believed, fetched by its digest
fresh_copy
pack_edit 001 "$CHANGE"
export KIX_STATE_DIR="$WORK/s-changed"
expect_status 1 "$KIX" audit "${A[@]}" --no-cache
# the replay did without it; the audit of the copy's files names it
grep -q "after $SIZE verified entries: .* serves a objects/entries/001 that is not the log's" "$WORK/err" ||
  fail "a changed object in a pack: $(cat "$WORK/err")"
grep -qx "$LAST" <<<"$(asked_objects)" || fail "the changed object was not fetched by its digest"
pass "a changed object in a pack: fetched by its digest instead, the replay verifies all; the audit of the copy names the pack"

# ... and changed in its run page too: the copy lies about it, the replay refuses
fresh_copy
pack_edit 001 "$CHANGE"
rm "$WORK/copy/$LAST_PAGE" && cp "$WORK/exp/$LAST_PAGE" "$WORK/copy/$LAST_PAGE"
python3 - "$WORK/copy/$LAST_PAGE" <<'PY'
import os, sys
sys.path.insert(0, os.environ["KIX_TESTS"] + "/integration")
from page_view import load, store
d = load(sys.argv[1])
d["manifestCanonical"] = d["manifestCanonical"].replace('"kind":"BenchmarkRun"', '"kind":"BenchmarkRuN"')
store(sys.argv[1], d)
PY
export KIX_STATE_DIR="$WORK/s-lie"
expect_status 1 "$KIX" audit "${A[@]}" --no-cache
grep -q "entry " "$WORK/err" || fail "the lie is not named with its entry: $(cat "$WORK/err")"
serve m --mirror-of "$C/" --upstream-key "$WORK/vkey"
wait_mirror_error m
json_get "$WORK/st.json" 'd["lastError"]' | grep -q "entry " || fail "mirror status: $(cat "$WORK/st.json")"
[ "$(json_get "$WORK/st.json" 'd["size"]')" = 0 ] || fail "the mirror stored entries: $(cat "$WORK/st.json")"
stop m
rm -rf "$WORK/m"
pass "the run manifest changed in its pack and its run page: kix audit exits 1 naming the entry, the mirror stores nothing"

# an extra object, a cut pack, garbage, a pack over its bound: done without
EXTRA='{"apiVersion":"kix.dev/v1","kind":"BenchmarkRun","note":"never logged"}'
EXTRA_DIG="sha256:$(printf '%s' "$EXTRA" | sha256sum | cut -d' ' -f1)"
fresh_copy
pack_edit 000 "out = pack(objs + [b'$EXTRA'])"
pack_edit 001 'out = b[:len(b) // 2]'
export KIX_STATE_DIR="$WORK/s-extra"
expect_status 1 "$KIX" audit "${A[@]}" --no-cache
grep -q "after $SIZE verified entries: .* serves \(a \)\?objects/entries/000 \(that is not the log.s\|longer than the log.s\)" "$WORK/err" ||
  fail "an extra object and a cut pack: $(cat "$WORK/err")"
serve m --mirror-of "$C/" --upstream-key "$WORK/vkey"
wait_size m "$SIZE"
expect_status 1 "$KIX" get --server "$(addr m)" --log-key "$WORK/vkey" "$EXTRA_DIG"
"$KIX" get --server "$(addr m)" --log-key "$WORK/vkey" "$LAST" >"$WORK/got" 2>"$WORK/err" || fail "the mirror lacks $LAST: $(cat "$WORK/err")"
cmp -s "$WORK/got" "$WORK/last.json" || fail "the mirror holds another $LAST"
stop m
rm -rf "$WORK/m"
pass "an extra object in a pack and a pack cut short: the replay and the mirror do without them, the extra object is not stored; the audit of the copy names the pack"

fresh_copy
head -c 5000 /dev/urandom >"$WORK/copy/objects/entries/000"
truncate -s 33M "$WORK/copy/objects/entries/001"
export KIX_STATE_DIR="$WORK/s-garbage"
expect_status 1 "$KIX" audit "${A[@]}" --no-cache
grep -q "after $SIZE verified entries: .* serves \(a \)\?objects/entries/000 \(that is not the log.s\|longer than the log.s\)" "$WORK/err" ||
  fail "garbage and an oversized pack: $(cat "$WORK/err")"
[ "$(asked_objects | wc -l)" -ge 512 ] || fail "the objects of the two bundles were not fetched one by one"
pass "a garbage pack and one over its 32 MiB bound: the replay fetches the objects one by one; the audit of the copy names the pack"

# ---- kixd's kept file, damaged while it was stopped: made again ----
stop o
printf 'not a pack' >"$WORK/o/bundles/objects.0"
serve o --http "tcp://127.0.0.1:$HPORT"
curl -sf -o "$WORK/again" "$H/objects/entries/000" || fail "GET objects/entries/000 after the restart"
cmp -s "$WORK/again" "$WORK/exp/objects/entries/000" || fail "kixd served a damaged pack file"
cmp -s "$WORK/o/bundles/objects.0" "$WORK/exp/objects/entries/000" || fail "the damaged pack file was not written again"
grep -q "is not the object pack of entry bundle 0 of this log: written again" "$WORK/o.log" || fail "no warning: $(tail -3 "$WORK/o.log")"
pass "a damaged pack file in the store is found on the first read after a restart and written again"
