#!/usr/bin/env bash
# The client reads a log over HTTP(S) (client/lib/source_http.c): from
# kixd --http, from nginx serving an export over TLS with a CA of the
# test's own (--cacert), and from a permalink alone; and a lying static
# copy (a changed tile, bundle, view or a rolled-back checkpoint) is caught
# each time, exit 1 for a proof that fails and 4 for a contradiction with
# the checkpoint the client remembers.
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
