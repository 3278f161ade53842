#!/usr/bin/env bash
# The client reads a log over HTTP(S) (client/lib/source_http.c): from
# kixd --http, from nginx serving an export over TLS with a CA of the
# test's own (--cacert), and from a permalink alone; kix group and kix
# query print the RPC's proven answers, and kix-import-liger checks a file
# against a copy; and a lying static copy (a changed tile, bundle, view,
# group page, selection page or index root tile, or a rolled-back
# checkpoint) is caught each time, exit 1 for a proof that fails and 4 for
# a contradiction with the checkpoint the client remembers.
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
SIZE=$(size_of o)
wait_export "$WORK/exp" "$SIZE"

# the same verified answers over msgpack-RPC and over HTTP from kixd
KIX_STATE_DIR="$WORK/s-rpc" "$KIX" show --server "$(addr o)" --log-key "$WORK/vkey" "$RID" --json >"$WORK/show-rpc.json" ||
  fail "kix show over RPC"
KIX_STATE_DIR="$WORK/s-http" "$KIX" show --server "$H/" --log-key "$WORK/vkey" "$RID" --json >"$WORK/show-http.json" ||
  fail "kix show over HTTP from kixd"
cmp -s "$WORK/show-rpc.json" "$WORK/show-http.json" || fail "kix show differs over HTTP"
pass "kix show over HTTP from kixd --http: the same document as over RPC"

# the reading commands over HTTP
export KIX_STATE_DIR="$WORK/s-http"
"$KIX" checkpoint --server "$H" --log-key "$WORK/vkey" >"$WORK/cp.txt" || fail "kix checkpoint over HTTP"
cmp -s "$WORK/cp.txt" "$WORK/exp/checkpoint" || fail "kix checkpoint: $(head -3 "$WORK/cp.txt")"
"$KIX" entry --server "$H" --log-key "$WORK/vkey" 3 >"$WORK/entry3.txt" || fail "kix entry over HTTP"
"$KIX" entry --store "$WORK/o" 3 >"$WORK/entry3-store.txt" || fail "kix entry --store"
cmp -s "$WORK/entry3.txt" "$WORK/entry3-store.txt" || fail "kix entry differs over HTTP"
"$KIX" resolve --server "$H" --log-key "$WORK/vkey" "https://kix.test/log/runs/$RID" >"$WORK/resolve.txt" ||
  fail "kix resolve of a permalink, --server overriding its host"
grep -q "$RID" "$WORK/resolve.txt" || fail "kix resolve: $(head -5 "$WORK/resolve.txt")"
# a permalink alone: its host is the source
"$KIX" show --log-key "$WORK/vkey" "$H/runs/$RID" --json >"$WORK/show-link.json" || fail "kix show PERMALINK"
cmp -s "$WORK/show-rpc.json" "$WORK/show-link.json" || fail "kix show PERMALINK differs"
pass "kix checkpoint, entry, resolve (permalink, --server) and show (a bare permalink URL) over HTTP"

# objects by digest: kixd --http serves them, the export holds them
DIG=$(json_get "$WORK/show-rpc.json" 'd["manifestDigest"]')
"$KIX" get --server "$H" --log-key "$WORK/vkey" "$DIG" >"$WORK/m-http.json" || fail "kix get over HTTP from kixd"
"$KIX" get --store "$WORK/o" "$DIG" >"$WORK/m-store.json" || fail "kix get --store"
cmp -s "$WORK/m-http.json" "$WORK/m-store.json" || fail "kix get differs over HTTP"
# (a run manifest of the export's partial bundle is in its run page alone:
# PROTOCOL.md §3, "One manifest a run"; kix get over the copy reads it there)
[ ! -e "$WORK/exp/objects/$DIG" ] || fail "the export wrote objects/$DIG beside its run page"
curl -sf -D "$WORK/oh" -o /dev/null "$H/objects/$DIG" || fail "GET objects/$DIG"
grep -qi '^cache-control: public, max-age=31536000, immutable' "$WORK/oh" || fail "object headers: $(cat "$WORK/oh")"
pass "objects by digest from kixd --http (immutable); a partial bundle's run manifest in the export's page alone"

# nginx over TLS with a CA of our own, serving the export
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
  -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
  -keyout "$WORK/tls.key" -out "$WORK/tls.pem" 2>/dev/null || fail "openssl req"
start_nginx "$WORK/exp" "$WORK/tls.pem" "$WORK/tls.key"
TLS_URL=$NGINX_URL
export KIX_STATE_DIR="$WORK/s-tls"
T=(--server "$TLS_URL/" --cacert "$WORK/tls.pem" --log-key "$WORK/vkey")
"$KIX" show "${T[@]}" "$RID" --json >"$WORK/show-tls.json" || fail "kix show over HTTPS from nginx"
cmp -s "$WORK/show-rpc.json" "$WORK/show-tls.json" || fail "kix show differs over HTTPS"
"$KIX" get "${T[@]}" "$DIG" >"$WORK/m-tls.json" || fail "kix get over HTTPS"
cmp -s "$WORK/m-tls.json" "$WORK/m-store.json" || fail "kix get differs over HTTPS"
"$KIX" checkpoint "${T[@]}" >/dev/null || fail "kix checkpoint over HTTPS"
# the system's CAs do not know ours: refused, exit 3 (cannot reach a trusted server)
expect_status 3 "$KIX" checkpoint --server "$TLS_URL/" --log-key "$WORK/vkey"
pass "nginx over TLS (--cacert): show, get, checkpoint; without --cacert refused"

# a lying static copy: each lie in a fresh copy of the export, read by a
# client that verified the honest copy before (its remembered checkpoint)
start_nginx "$WORK/liar"
L=(--server "$NGINX_URL/" --log-key "$WORK/vkey")
fresh_liar() {
  rm -rf "$WORK/liar" && cp -a "$WORK/exp" "$WORK/liar"
  rm -rf "$WORK/s-liar" && cp -a "$WORK/s-tls" "$WORK/s-liar"
  export KIX_STATE_DIR="$WORK/s-liar"
  # an empty disk cache: the lie is read (a warm cache's: test_http_cache.sh)
  rm -rf "$WORK/c-liar" && export KIX_CACHE_DIR="$WORK/c-liar"
}
PUB=$(json_get "$WORK/show-rpc.json" '[e["index"] for e in d["entries"] if e["type"] == "publication"][0]')
fresh_liar
"$KIX" show "${L[@]}" "$RID" >/dev/null || fail "the honest copy behind nginx"

# a changed hash in the level-0 tiles (the entry's sibling, in its
# inclusion proof): the proof leads to another root
fresh_liar
python3 - "$WORK/liar" "$PUB" <<'PY'
import glob, sys
root, pub = sys.argv[1], int(sys.argv[2])
for f in [root + "/tile/0/000"] + glob.glob(root + "/tile/0/000.p/*"):
    try:
        b = bytearray(open(f, "rb").read())
    except FileNotFoundError:
        continue
    if len(b) > 32 * (pub ^ 1):
        b[32 * (pub ^ 1)] ^= 1
        open(f, "wb").write(b)
PY
expect_status 1 "$KIX" show "${L[@]}" "$RID"
pass "a changed tile: exit 1 ($(head -c 160 "$WORK/err"))"

# a changed leaf in the entry bundles (one base64 letter of its signature)
fresh_liar
python3 - "$WORK/liar" "$PUB" <<'PY'
import glob, sys
root, pub = sys.argv[1], int(sys.argv[2])
for f in [root + "/tile/entries/000"] + glob.glob(root + "/tile/entries/000.p/*"):
    try:
        b = bytearray(open(f, "rb").read())
    except FileNotFoundError:
        continue
    off, i = 0, 0
    while off < len(b):
        n = b[off] << 8 | b[off + 1]
        if i == pub:
            leaf = bytes(b[off + 2:off + 2 + n])
            at = leaf.index(b'"sig":"') + 7
            b[off + 2 + at] = ord("A") if leaf[at] != ord("A") else ord("B")
            open(f, "wb").write(b)
            break
        off, i = off + 2 + n, i + 1
PY
expect_status 1 "$KIX" show "${L[@]}" "$RID"
pass "a changed entry bundle: exit 1 ($(head -c 160 "$WORK/err"))"

# a changed object (kix get) and a changed manifest in the run's view (kix
# show); the run's manifest (its bundle partial) has no objects/ file, its
# workload has
WDIG=$(page_view "$WORK/exp/runs/$RID.html" | python3 -c 'import json,sys; v=json.load(sys.stdin); assert "objects" not in v and "index" not in v; print(json.loads(v["manifestCanonical"])["spec"]["workloadDigest"])')
fresh_liar
sed -i 's/"kind":"Workload"/"kind":"WorkloaD"/' "$WORK/liar/objects/$WDIG"
expect_status 1 "$KIX" get "${L[@]}" "$WDIG"
pass "a changed object: exit 1 ($(head -c 160 "$WORK/err"))"
# the run's view in a copy names its objects by the manifest alone
# (layout 4): kix show reads them from objects/ and checks each
fresh_liar
sed -i 's/"kind":"Workload"/"kind":"WorkloaD"/' "$WORK/liar/objects/$WDIG"
expect_status 1 "$KIX" show "${L[@]}" "$RID"
pass "a changed workload object in the copy (the run's view names it by digest): exit 1 ($(head -c 160 "$WORK/err"))"
fresh_liar
rm "$WORK/liar/objects/$WDIG"
expect_status 1 "$KIX" show "${L[@]}" "$RID"
pass "the workload object missing from the copy: exit 1 ($(head -c 160 "$WORK/err"))"
fresh_liar
python3 - "$WORK/liar/runs/$RID.html" <<'PY'
import json, os, sys
sys.path.insert(0, os.environ["KIX_TESTS"] + "/integration")
from page_view import load, store
d = load(sys.argv[1])
d["manifestCanonical"] = d["manifestCanonical"].replace('"kind":"BenchmarkRun"', '"kind":"BenchmarkRuN"')
store(sys.argv[1], d)
PY
expect_status 1 "$KIX" show "${L[@]}" "$RID"
pass "a changed manifest in the run's view: exit 1 ($(head -c 160 "$WORK/err"))"

# an entry left out of the run's view: the signed run record's chain says so
fresh_liar
python3 - "$WORK/liar/runs/$RID.html" <<'PY'
import json, os, sys
sys.path.insert(0, os.environ["KIX_TESTS"] + "/integration")
from page_view import load, store
d = load(sys.argv[1])
d["entries"] = [e for e in d["entries"] if e["type"] == "publication"]
d["entries"].append(d["entries"][0])
store(sys.argv[1], d)
PY
expect_status 1 "$KIX" show "${L[@]}" "$RID"
pass "an entry sent twice in the run's view: exit 1 ($(head -c 160 "$WORK/err"))"

# a rolled-back checkpoint: an older one the log really signed. A prefix
# of what this client verified: a stale copy (exit 5, issue 37.9), no alarm
fresh_liar
OLD=$(ls "$WORK/exp/tile/0/000.p" | sort -n | head -1) # the width of an older checkpoint's tile
"$KIX" checkpoint --store "$WORK/o" --size "$OLD" >"$WORK/liar/checkpoint" || fail "kix checkpoint --size $OLD"
expect_status 5 "$KIX" checkpoint "${L[@]}"
grep -q "STALE COPY: the server serves the log at size $OLD" "$WORK/err" || fail "stale: $(cat "$WORK/err")"
expect_status 5 "$KIX" show "${L[@]}" "$RID"
! grep -q ALARM "$WORK/err" || fail "an alarm for a stale copy: $(cat "$WORK/err")"
pass "a rolled-back checkpoint: exit 5, stale ($(head -c 160 "$WORK/err"))"

# index proofs at the copy's checkpoint, from the index's tiles (index/):
# kixd --http and the export behind nginx answer what kixd's RPC answers
unset KIX_STATE_DIR
export KIX_STATE_DIR="$WORK/s-index"
"$KIX" index --server "$(addr o)" --log-key "$WORK/vkey" "run/$RID" --json >"$WORK/ix-rpc.json" || fail "kix index over RPC"
"$KIX" index --server "$H" --log-key "$WORK/vkey" "run/$RID" --json >"$WORK/ix-http.json" || fail "kix index over HTTP"
"$KIX" index "${T[@]}" "run/$RID" --json >"$WORK/ix-tls.json" || fail "kix index over HTTPS from nginx"
cmp -s "$WORK/ix-rpc.json" "$WORK/ix-http.json" && cmp -s "$WORK/ix-rpc.json" "$WORK/ix-tls.json" ||
  fail "kix index differs over HTTP"
"$KIX" index "${T[@]}" "run/no-such-run" --json >"$WORK/ix-absent.json" || fail "kix index of an absent key"
json_get "$WORK/ix-absent.json" 'd["present"]' | grep -qx False || fail "absent: $(cat "$WORK/ix-absent.json")"
pass "kix index over HTTP(S): the same proofs as over RPC, absence proven too"

# kix group and kix query over HTTP(S), answered by the HTTP source from
# the index's records (selection records, group directories and pages,
# run records) and objects, then proven as over RPC: kixd --http and the
# export behind nginx print the document kixd's RPC prints
export KIX_STATE_DIR="$WORK/s-query"
"$KIX" query --server "$(addr o)" --log-key "$WORK/vkey" --kernel rope --json >"$WORK/q0.json" || fail "kix query over RPC"
GRP=$(json_get "$WORK/q0.json" 'max(d["runs"], key=lambda r: r["groupSize"])["group"]')
[ "$(json_get "$WORK/q0.json" 'max(r["groupSize"] for r in d["runs"])')" -ge 2 ] || fail "no rope group of two runs"
QUERIES=("group $GRP" "group $GRP --offset 1 --limit 1" "query --kernel rope" "query --kernel rope --mode forward --offset 2 --limit 3"
  "query --provider liger --metric latency" "query --gpu a100 --mode full" "query --dtype float32" "query --limit 7"
  "query --group $GRP --provider huggingface")
for i in "${!QUERIES[@]}"; do
  read -ra Q <<<"${QUERIES[$i]}"
  "$KIX" "${Q[@]}" --server "$(addr o)" --log-key "$WORK/vkey" --json >"$WORK/q$i-rpc.json" || fail "kix ${QUERIES[$i]} over RPC"
  "$KIX" "${Q[@]}" --server "$H/" --log-key "$WORK/vkey" --json >"$WORK/q$i-http.json" 2>"$WORK/err" ||
    fail "kix ${QUERIES[$i]} over HTTP from kixd: $(cat "$WORK/err")"
  "$KIX" "${Q[@]}" "${T[@]}" --json >"$WORK/q$i-tls.json" 2>"$WORK/err" ||
    fail "kix ${QUERIES[$i]} over HTTPS from nginx: $(cat "$WORK/err")"
  cmp -s "$WORK/q$i-rpc.json" "$WORK/q$i-http.json" && cmp -s "$WORK/q$i-rpc.json" "$WORK/q$i-tls.json" ||
    fail "kix ${QUERIES[$i]} differs over HTTP: $(diff "$WORK/q$i-rpc.json" "$WORK/q$i-tls.json" | head -5)"
done
[ "$(json_get "$WORK/q2-tls.json" 'len(d["runs"])')" = 40 ] || fail "kix query --kernel rope: $(head -c 300 "$WORK/q2-tls.json")"
[ "$(json_get "$WORK/q1-tls.json" 'd["runs"][0]["rank"]')" = 2 ] || fail "kix group --offset 1: $(head -c 300 "$WORK/q1-tls.json")"
json_get "$WORK/q2-tls.json" 'd["proven"]["matches"] and d["proven"]["selections"] > 0' | grep -qx True ||
  fail "kix query over HTTPS proves no selection: $(tail -c 200 "$WORK/q2-tls.json")"
"$KIX" group "${T[@]}" "$GRP" >"$WORK/group-tls.txt" || fail "kix group over HTTPS (text)"
grep -q "the group's page, ranks and evidence proven" "$WORK/group-tls.txt" || fail "kix group: $(cat "$WORK/group-tls.txt")"
pass "kix group and kix query (${#QUERIES[@]} forms) over HTTP from kixd and HTTPS from nginx: the RPC's proven answers"

# the importer's checks against a static copy over HTTPS: every row of the
# file already published is found and proven by its manifest record (the
# signed index), nothing is submitted (exit 0); a row that is not
# published cannot be submitted to a copy (exit 1, as a refused row)
KIX_CACERT="$WORK/tls.pem" KIX_STATE_DIR="$WORK/s-import" "$KIX_BIN/kix-import-liger" --key "$WORK/pub.key" \
  --server "$TLS_URL/" --log-key "$WORK/vkey" --map "$WORK/recheck.map" "$WORK/rope.csv" >"$WORK/recheck.txt" 2>"$WORK/err" ||
  fail "kix-import-liger against the export over HTTPS: $(cat "$WORK/err")"
[ "$(grep -c '"status":"duplicate"' "$WORK/recheck.map")" = 40 ] || fail "the importer's check: $(head -3 "$WORK/recheck.map")"
{ sed -n 1p "$CSV"; awk '/^rope,/ && n++ >= 40 && n <= 41' "$CSV"; } >"$WORK/rope-new.csv"
KIX_CACERT="$WORK/tls.pem" KIX_STATE_DIR="$WORK/s-import" expect_status 1 "$KIX_BIN/kix-import-liger" --key "$WORK/pub.key" \
  --server "$TLS_URL/" --log-key "$WORK/vkey" "$WORK/rope-new.csv"
grep -q "does not offer submissions" "$WORK/err" || fail "an import of a new row to a copy: $(cat "$WORK/err")"
[ "$(size_of o)" = "$SIZE" ] || fail "the log grew"
pass "kix-import-liger --server https://… (a static copy): published rows proven (exit 0), a new one refused (exit 1)"

# a lying copy of the index behind kix group and kix query: a changed
# group page or a selection page with an item dropped (exit 1; the root
# tile rolled back is at the end), and a rolled-back checkpoint
export KIX_STATE_DIR="$WORK/s-query"
fresh_liar
export KIX_STATE_DIR="$WORK/s-query"
"$KIX" group "${L[@]}" "$GRP" >/dev/null || fail "kix group from the honest copy behind nginx"
rm -rf "$KIX_CACHE_DIR" # the pages it kept: the lie below is to be read
# the group's first page (its only one here), in its pack or its own file
python3 "$KIX_TESTS/integration/index_files.py" "$WORK/liar" "group/${GRP#sha256:}/" flip ||
  fail "no group page in the export"
expect_status 1 "$KIX" group "${L[@]}" "$GRP"
expect_status 1 "$KIX" query "${L[@]}" --kernel rope
pass "a changed group page: kix group and kix query exit 1 ($(head -c 160 "$WORK/err"))"
# a copy's group rows name their runs (layout 4): kix group reads each
# row's manifest from objects/ and its record from index/; either changed,
# or the manifest missing, is refused (exit 1)
MEMBER=$(python3 -c 'import json,sys
v = json.load(open(sys.argv[1] + "/groups/" + sys.argv[2] + ".json"))
assert "index" not in v and all("manifestCanonical" not in r and "runRecord" not in r for r in v["rows"]), "a copy group view with proofs"
print(v["rows"][-1]["runId"])' "$WORK/exp" "$GRP") || fail "the copy's group view"
fresh_liar
export KIX_STATE_DIR="$WORK/s-query"
MDIG=$("$KIX" show "${L[@]}" --json "$MEMBER" | python3 -c 'import json,sys; print(json.load(sys.stdin)["manifestDigest"])') ||
  fail "kix show $MEMBER from the copy"
for lie in changed missing record; do
  fresh_liar
  export KIX_STATE_DIR="$WORK/s-query"
  if [ "$lie" = record ]; then
    # in its pack or its own file (PROTOCOL.md §3.2, "Index packs")
    python3 "$KIX_TESTS/integration/index_files.py" "$WORK/liar" "run/$MEMBER" flip ||
      fail "no record of $MEMBER in the copy's index"
  else
  python3 - "$WORK/liar" "$MDIG" "$lie" <<'PY' || fail "tamper ($lie)"
import glob, os, sys
sys.path.insert(0, os.environ["KIX_TESTS"] + "/integration")
from page_view import load, store
root, digest, lie = sys.argv[1:4]
f = root + "/objects/" + digest
pages = [p for p in glob.glob(root + "/runs/*.html") if digest in open(p, encoding="utf-8").read()]
if lie == "missing":  # from objects/ (a full bundle's) and from the run's page, which holds it
    if os.path.exists(f):
        os.remove(f)
    for p in pages:
        os.remove(p)
        os.remove(p[:-5])
elif os.path.exists(f):
    b = bytearray(open(f, "rb").read())
    b[-2] ^= 1
    open(f, "wb").write(b)
else:  # a partial bundle's manifest: in its run page alone
    assert pages, "no page holds " + digest
    for p in pages:
        d = load(p)
        c = d["manifestCanonical"]
        d["manifestCanonical"] = c[:-2] + chr(ord(c[-2]) ^ 1) + c[-1:]
        store(p, d)
PY
  fi
  expect_status 1 "$KIX" group "${L[@]}" "$GRP"
  echo "a group row's $lie: $(head -c 200 "$WORK/err")"
done
pass "a copy's group row with its manifest object changed or missing, or its index record changed: kix group exits 1"
fresh_liar
export KIX_STATE_DIR="$WORK/s-query"
# the first page of what kernel rope selects: the last item (u16 length,
# a 32-byte group key) dropped
python3 "$KIX_TESTS/integration/index_files.py" "$WORK/liar" \
  "sel/kernel/$(printf rope | sha256sum | cut -c1-64)/0" cut34 || fail "no kernel selection page in the export"
expect_status 1 "$KIX" query "${L[@]}" --kernel rope
pass "a selection page with an item dropped: kix query exits 1 ($(head -c 160 "$WORK/err"))"
fresh_liar
export KIX_STATE_DIR="$WORK/s-query"
"$KIX" checkpoint --store "$WORK/o" --size "$OLD" >"$WORK/liar/checkpoint" || fail "kix checkpoint --size $OLD"
# (stale, and its index files are of another size: no proof to answer with)
expect_status 1 "$KIX" query "${L[@]}" --kernel rope
grep -q "holds no index note for its checkpoint (size $OLD)" "$WORK/err" || fail "query: $(cat "$WORK/err")"
expect_status 1 "$KIX" group "${L[@]}" "$GRP"
! grep -q ALARM "$WORK/err" || fail "an alarm for a stale copy: $(cat "$WORK/err")"
pass "a rolled-back checkpoint beside newer index files: kix group and kix query exit 1, no alarm ($(head -c 160 "$WORK/err"))"

# a changed index tile (the root's record: the hash beside the run's route,
# which its proof takes as a sibling), and a changed record: exit 1
fresh_liar
python3 - "$WORK/liar" "$RID" <<'PY'
import glob, hashlib, sys
path = hashlib.sha256(("run/" + sys.argv[2]).encode()).digest()
sibling = 1 if path[0] & 0x80 == 0 else 0  # 0: left, 1: right
for f in glob.glob(sys.argv[1] + "/index/tile/00/*"):
    b = bytearray(open(f, "rb").read())
    assert b[2] == 3, "the root record is interior"
    b[3 + 32 * sibling] ^= 1
    open(f, "wb").write(b)
PY
expect_status 1 "$KIX" index "${L[@]}" "run/$RID"
pass "a changed index tile: exit 1 ($(head -c 160 "$WORK/err"))"
# a changed lean tile in a pack (PROTOCOL.md §3.2, pack item kind 3: its
# derived records computed, the whole tile checked against its parent's
# hash): the last byte of the last record it writes whole, on the run's
# route one stratum below the root
fresh_liar
python3 - "$WORK/liar" "$RID" "$KIX_TESTS/integration" <<'PY' || fail "no lean tile on the run's route"
import hashlib, sys
sys.path.insert(0, sys.argv[3])
from index_files import find_tile, latest_root, locator, pack_items, tile_key
copy, path = sys.argv[1], hashlib.sha256(("run/" + sys.argv[2]).encode()).digest()
root = find_tile(copy, tile_key(0, path), latest_root(copy), None)
packed, key = locator(root, path[0] >> 4), tile_key(1, path)
data = bytearray(open(copy + "/" + packed, "rb").read())
for kind, _, body, n in pack_items(bytes(data)):
    b = data[body:body + n]
    if kind == 3 and b[0] == len(key) and b[1:1 + len(key)] == key:
        at, bits = body + 1 + len(key), b[1 + len(key)] << 8 | b[2 + len(key)]
        at += 2
        for slot in range(15):
            if bits & (0x8000 >> slot):
                at += 1 if slot < 7 and data[at] == 3 else 65
        data[at - 1] ^= 1
        open(copy + "/" + packed, "wb").write(data)
        sys.exit(0)
sys.exit("%s holds no lean tile %s" % (packed, key.hex()))
PY
expect_status 1 "$KIX" index "${L[@]}" "run/$RID"
grep -q "does not hold the tile" "$WORK/err" || fail "a changed lean tile: $(cat "$WORK/err")"
pass "a changed lean index tile (in its pack): exit 1 ($(head -c 160 "$WORK/err"))"
fresh_liar
# (in an index pack: PROTOCOL.md §3.2, "Index packs")
grep -q "index/pack/" <<<"$(python3 "$KIX_TESTS/integration/index_files.py" "$WORK/liar" "run/$RID" show)" ||
  fail "the run's record is not in an index pack"
python3 "$KIX_TESTS/integration/index_files.py" "$WORK/liar" "run/$RID" flip || fail "no run record"
expect_status 1 "$KIX" index "${L[@]}" "run/$RID"
grep -q "serves index/pack/.* that do not hash to its name" "$WORK/err" || fail "a changed packed record: $(cat "$WORK/err")"
pass "a changed index record (in its pack): exit 1 ($(head -c 160 "$WORK/err"))"

# a run by its manifest digest, from the index's manifest record
"$KIX" resolve "${T[@]}" "$DIG" >"$WORK/by-digest.txt" || fail "kix resolve DIGEST over HTTPS"
grep -q "$RID" "$WORK/by-digest.txt" || fail "kix resolve DIGEST: $(head -3 "$WORK/by-digest.txt")"
pass "kix resolve of a manifest digest over HTTPS"

# a copy without index files: its run views carry no proofs of their own
# (layout 4), so kix show refuses, naming the missing files
fresh_liar
rm -rf "$WORK/liar/index"
expect_status 1 "$KIX" show "${L[@]}" "$RID" --json
grep -q "holds no index files" "$WORK/err" || fail "kix show without index/: $(cat "$WORK/err")"
expect_status 1 "$KIX" index "${L[@]}" "run/$RID"
grep -q "holds no index note" "$WORK/err" || fail "kix index without index/: $(cat "$WORK/err")"
pass "a copy without index files: kix show and kix index say what is missing"

# kix audit replays a static copy over HTTPS: every entry, object and
# signature, the tree and the index recomputed (exit 0), and the same
# audit of a copy with a changed object fails
export KIX_STATE_DIR="$WORK/s-audit"
"$KIX" audit "${T[@]}" >"$WORK/audit.txt" 2>"$WORK/audit.err" || fail "kix audit over HTTPS: $(tail -3 "$WORK/audit.err")"
grep -q "$SIZE" "$WORK/audit.txt" || fail "kix audit: $(cat "$WORK/audit.txt")"
fresh_liar
export KIX_STATE_DIR="$WORK/s-audit-liar"
sed -i 's/"kind":"Workload"/"kind":"WorkloaD"/' "$WORK/liar/objects/$WDIG"
got=0
"$KIX" audit "${L[@]}" >"$WORK/out" 2>"$WORK/err" || got=$?
[ "$got" -ne 0 ] || fail "kix audit of a copy with a changed object passed"
pass "kix audit over HTTPS replays the export (exit 0); a changed object fails it (exit $got: $(head -c 160 "$WORK/err"))"

# kix cite and verify-citation over HTTPS (a static copy makes no receipts:
# the cited entry and its proof at the cited size are asked apart)
export KIX_STATE_DIR="$WORK/s-cite"
"$KIX" cite "${T[@]}" "$RID" --json >"$WORK/cit.json" || fail "kix cite over HTTPS"
"$KIX" verify-citation "${T[@]}" "$WORK/cit.json" >"$WORK/vc.txt" || fail "kix verify-citation over HTTPS"
grep -q "citation verified" "$WORK/vc.txt" || fail "verify-citation: $(cat "$WORK/vc.txt")"
pass "kix cite and verify-citation over HTTPS"

# kixd --mirror-of a static copy over HTTPS (the system's CAs do not know
# ours: $KIX_CACERT names them): it replays and verifies the export, then
# serves it
KIX_CACERT="$WORK/tls.pem" serve m --mirror-of "$TLS_URL/" --upstream-key "$WORK/vkey"
wait_size m "$SIZE"
export KIX_STATE_DIR="$WORK/s-mirror"
"$KIX" show --server "$(addr m)" --log-key "$WORK/vkey" "$RID" --json >"$WORK/show-mirror.json" ||
  fail "kix show from the mirror of the static copy"
cmp -s "$WORK/show-rpc.json" "$WORK/show-mirror.json" || fail "the mirror's answer differs"
pass "kixd --mirror-of https://… (a static copy) replays and serves it"

# a flaky CDN: every path answers 503 the first time, then the file; the
# client retries with backoff and verifies as usual. A server that keeps
# failing is exit 3 (unreachable), not a verification failure.
FPORT=$(free_port)
python3 "$KIX_TESTS/integration/static_server.py" "$WORK/exp" "$FPORT" --fail-first 2>>"$WORK/flaky.log" &
KIXD_PIDS+=("$!")
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$FPORT/" && break; sleep 0.05; done
export KIX_STATE_DIR="$WORK/s-flaky"
"$KIX" show --server "http://127.0.0.1:$FPORT/" --log-key "$WORK/vkey" "$RID" --json >"$WORK/show-flaky.json" ||
  fail "kix show through a flaky server"
cmp -s "$WORK/show-rpc.json" "$WORK/show-flaky.json" || fail "kix show through a flaky server differs"
expect_status 3 "$KIX" checkpoint --server "http://127.0.0.1:$FPORT/always503/" --log-key "$WORK/vkey"
grep -q "HTTP 503" "$WORK/err" || fail "a failing server: $(cat "$WORK/err")"
pass "a flaky server (503 once per file) is retried; one that keeps failing is exit 3"

# a stale view: the run is attested after the copy was made, and a lying
# copy keeps serving the run's old view; the run's record proven at the
# copy's latest checkpoint commits one entry more, so kix show refuses
# the old list (exit 1) instead of showing it
cp "$WORK/exp/runs/$RID.html" "$WORK/old-view.html"
"$KIX" keygen --name community --out "$WORK/att" >/dev/null 2>&1
"$KIX" key add --server "$(addr o)" --log-key "$WORK/vkey" --key "$WORK/o/admin.key" --role attest "$WORK/att.pub" >/dev/null ||
  fail "kix key add"
"$KIX" attest --server "$(addr o)" --log-key "$WORK/vkey" --key "$WORK/att.key" --note "seen it" "$RID" >/dev/null ||
  { tail -20 "$WORK/o.log" >&2; fail "kix attest"; }
wait_export "$WORK/exp" "$((SIZE + 2))"
export KIX_STATE_DIR="$WORK/s-stale"
"$KIX" show "${T[@]}" "$RID" >"$WORK/show-attested.txt" || fail "kix show of the attested run over HTTPS"
fresh_liar
cp "$WORK/old-view.html" "$WORK/liar/runs/$RID.html"
expect_status 1 "$KIX" show "${L[@]}" "$RID"
grep -q "withheld" "$WORK/err" || fail "a stale view: $(cat "$WORK/err")"
pass "a stale view (before an attestation) against the latest record: exit 1 ($(head -c 160 "$WORK/err"))"

# the index's root tile rolled back to the one before the attestation
# (both are in the export, each under its own name) behind the latest
# index note: kix group and kix query exit 1
fresh_liar
export KIX_STATE_DIR="$WORK/s-query"
python3 - "$WORK/liar" "$((SIZE + 2))" <<'PY'
import base64, glob, os, sys
root = sys.argv[1]
note = open(f"{root}/index/notes/{sys.argv[2]}").read()
now = base64.b64decode([l for l in note.splitlines() if l.startswith("index ")][0][6:]).hex()
older = [f for f in glob.glob(root + "/index/tile/00/*") if os.path.basename(f) != now]
assert older, "no older root tile in the export"
open(f"{root}/index/tile/00/{now}", "wb").write(open(older[0], "rb").read())
PY
expect_status 1 "$KIX" group "${L[@]}" "$GRP"
expect_status 1 "$KIX" query "${L[@]}" --provider liger
pass "the index's root tile rolled back: kix group and kix query exit 1 ($(head -c 160 "$WORK/err"))"
