#!/usr/bin/env bash
# Clients size their requests by the limits kixd reports in `info`, not by
# the defaults: against a kixd started with small limits (--max-entries 100,
# --max-batch 50, --max-objects 16, --max-message 256 KiB),
#  - `kix info` shows the server's limits;
#  - kix-import-liger publishes the 388 rows of tools/samples/liger/sample.csv
#    in its default submissions of 256 runs, which the client splits into
#    requests of at most 50 bundles and 256 KiB (more would be refused);
#  - `kix audit` replays the ~390 entries in get_entries pages of at most 100
#    (more would be refused) and the log verifies;
#  - the server does refuse what the old client constant asked for: a page
#    of 1000 entries.
source "$(dirname "$0")/lib.sh"

SRC=${KIX_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
CSV="$SRC/tools/samples/liger/sample.csv"
STORE="$WORK/log"
ROWS=$(($(wc -l <"$CSV") - 1))
[ "$ROWS" -gt 300 ] || fail "$CSV has $ROWS rows; the test needs more than 300"

"$KIXD" init --store "$STORE" --admin-key "$STORE/admin.key" --origin kix.test/log >"$WORK/vkey" 2>/dev/null
export KIX_LOG_KEY="$(cat "$WORK/vkey")"
"$KIX" keygen --name liger-importer --out "$WORK/pub" >/dev/null 2>&1
"$KIX" key add --store "$STORE" --key "$STORE/admin.key" --role publish "$WORK/pub.pub" >/dev/null

KIXD_EXTRA=(--max-entries 100 --max-batch 50 --max-objects 16 --max-message 262144)
start_kixd "$STORE"

# ---- info reports the limits ------------------------------------------------------
"$KIX" info --server "$KIXD_ADDR" --json >"$WORK/info.json"
[ "$(json_get "$WORK/info.json" 'd["limits"]["maxEntries"]')" = 100 ] ||
  fail "info limits: $(cat "$WORK/info.json")"
[ "$(json_get "$WORK/info.json" 'd["limits"]["maxBatch"]')" = 50 ] || fail "info maxBatch"
[ "$(json_get "$WORK/info.json" 'd["limits"]["maxObjects"]')" = 16 ] || fail "info maxObjects"
[ "$(json_get "$WORK/info.json" 'd["limits"]["maxMessage"]')" = 262144 ] || fail "info maxMessage"
pass "kix info shows the server's limits"

# ---- the server refuses what the old client constants asked for --------------------
expect_status 0 python3 - "$KIXD_ADDR" <<'EOF'
# get_entries with count 1000 (the old ENTRIES_PAGE) must be ELIMIT (-9)
import socket, struct, sys
path = sys.argv[1][len("unix://"):]
s = socket.socket(socket.AF_UNIX)
s.connect(path)
# [0, 1, "get_entries", [{"start": 0, "count": 1000}]]
req = (b"\x94\x00\x01\xabget_entries\x91\x82\xa5start\x00\xa5count\xcd" +
       struct.pack(">H", 1000))
s.sendall(req)
data = s.recv(4096)
# [1, 1, {"code": -9, ...}, nil]
assert data[:3] == b"\x94\x01\x01", data
assert b"\xa4code\xf7" in data, data
EOF
pass "a page of 1000 entries is refused by this server"

# ---- import: batches split by maxBatch and maxMessage ---------------------------------
"$KIX_BIN/kix-import-liger" --key "$WORK/pub.key" --server "$KIXD_ADDR" --json "$CSV" \
  >"$WORK/import.json" 2>"$WORK/import.err" ||
  { cat "$WORK/import.err" >&2; fail "kix-import-liger against a kixd with small limits"; }
[ "$(json_get "$WORK/import.json" 'd["newEntries"]')" = "$ROWS" ] ||
  fail "import: $(cat "$WORK/import.json")"
[ "$(json_get "$WORK/import.json" 'd["refused"]')" = 0 ] || fail "import refused rows"
SIZE=$(json_get "$WORK/import.json" 'd["logSize"]')
[ "$SIZE" -gt 300 ] || fail "log size $SIZE"
pass "kix-import-liger published $ROWS rows in requests of at most 50 bundles"
# one submission of all rows: many requests of this server (found through
# $KIX_SERVER, as kix finds it)
KIX_SERVER="$KIXD_ADDR" expect_status 0 "$KIX_BIN/kix-import-liger" --key "$WORK/pub.key" --json \
  --batch 4096 "$CSV"
[ "$(json_get "$WORK/out" 'd["duplicates"]')" = "$ROWS" ] || fail "re-import: $(cat "$WORK/out")"
pass "importing again in one submission of 4096 finds $ROWS duplicates"

# ---- audit: get_entries pages of at most maxEntries --------------------------------
"$KIX" audit --server "$KIXD_ADDR" --restart --json >"$WORK/audit.json" 2>"$WORK/audit.err" ||
  { cat "$WORK/audit.err" "$WORK/audit.json" >&2; fail "kix audit against a kixd with small limits"; }
[ "$(json_get "$WORK/audit.json" 'd["passed"]')" = True ] || fail "audit: $(cat "$WORK/audit.json")"
[ "$(json_get "$WORK/audit.json" 'd["to"]')" = "$SIZE" ] || fail "audit to: $(cat "$WORK/audit.json")"
pass "kix audit verified $SIZE entries in pages of at most 100"

stop_kixd
