#!/usr/bin/env bash
# A store altered on disk (one byte of one record, nothing recomputed, as
# kix-tamper does): `kixd check` names the table, record and entry; `kixd
# serve` refuses the store and points at kixd check; `kix audit` against a
# kixd made to serve it anyway (--no-store-check) names the same entry.
# Three cases: an entry (leaves), an object (blobs), a tree hash (tiles).
source "$(dirname "$0")/lib.sh"

TAMPER="$KIX_BIN/kix-tamper"
CLEAN="$WORK/clean"
"$KIXD" init --store "$CLEAN" --admin-key "$CLEAN/admin.key" --origin kix.test/log >"$WORK/vkey" 2>/dev/null
export KIX_LOG_KEY="$(cat "$WORK/vkey")"
start_kixd "$CLEAN"
"$KIX" keygen --name publisher --out "$WORK/pub" >/dev/null 2>&1
"$KIX" key add --server "$KIXD_ADDR" --key "$CLEAN/admin.key" --role publish "$WORK/pub.pub" >/dev/null
for i in 1 2 3 4 5 6; do
  make_manifests "$WORK/m$i" "$i"
  "$KIX" publish --server "$KIXD_ADDR" --key "$WORK/pub.key" --run-id "run-$i" \
    "$WORK/m$i/run.json" "$WORK/m$i/workload.json" >/dev/null
done
stop_kixd
# entries: 0 admin key, 1 publisher key, 2..7 runs 1..6
expect_status 0 "$KIXD" check --store "$CLEAN"
grep -q "^passed: full check of .* size 8): 8 entries, 8 checkpoints" "$WORK/out" \
  || fail "clean check: $(cat "$WORK/out")"
expect_status 0 "$KIXD" check --store "$CLEAN" --quick
pass "a clean store passes kixd check (full and quick)"
for bad in "--tail 0" "--tail -1" "--tail 99999999999999999999999" "--max-problems +3" "--max-problems x"; do
  # shellcheck disable=SC2086
  expect_status 2 "$KIXD" check --store "$CLEAN" $bad
  grep -q "needs a positive number" "$WORK/err" || fail "kixd check $bad: $(cat "$WORK/err")"
done
pass "kixd check refuses a --tail or --max-problems that is not a positive count"

# tampered COPY TABLE KEY OFFSET: a copy of the clean store with one byte flipped
tampered() {
  rm -rf "$WORK/$1" && cp -a "$CLEAN" "$WORK/$1"
  "$TAMPER" "$WORK/$1" "$2" "$3" "$4" || fail "kix-tamper $2 $3"
}

# refuses_to_serve STORE: kixd serve exits 3 pointing at kixd check
refuses_to_serve() {
  expect_status 3 "$KIXD" serve --store "$1" --listen "unix://$WORK/refused.sock"
  grep -q "refusing to serve $1: the store does not match its latest signed checkpoint; run 'kixd check --store $1'" \
    "$WORK/err" || fail "serve did not refuse $1 clearly: $(cat "$WORK/err")"
}

# audit_json STORE: kix audit --json of STORE served with --no-store-check
audit_json() {
  KIXD_EXTRA=(--no-store-check)
  start_kixd "$1"
  KIXD_EXTRA=()
  expect_status 1 "$KIX" audit --restart --batch 1 --server "$KIXD_ADDR" --json
  stop_kixd
  cp "$WORK/out" "$WORK/audit.json"
  cp "$WORK/err" "$WORK/audit.err"
}

check_json() {
  expect_status 1 "$KIXD" check --store "$1" --json
  cp "$WORK/out" "$WORK/check.json"
  [ "$(json_get "$WORK/check.json" 'len(d["problems"])')" = 1 ] || fail "one problem: $(cat "$WORK/check.json")"
  [ "$(json_get "$WORK/check.json" 'd["ok"]')" = False ] || fail "ok"
}

# --- an entry: run-3's publication, entry 4
tampered leaf leaves u64:4 120
check_json "$WORK/leaf"
[ "$(json_get "$WORK/check.json" 'd["problems"][0]["table"]')" = leaves ] || fail "leaf table"
[ "$(json_get "$WORK/check.json" 'd["problems"][0]["where"]')" = "leaves u64:4" ] || fail "leaf where"
[ "$(json_get "$WORK/check.json" 'd["problems"][0]["index"]')" = 4 ] || fail "leaf index"
json_get "$WORK/check.json" 'd["problems"][0]["message"]' | grep -q "entry 4 hashes to .*the entry was altered" \
  || fail "leaf message: $(cat "$WORK/check.json")"
expect_status 1 "$KIXD" check --store "$WORK/leaf"
grep -q "^problem: leaves u64:4 (entry 4): entry 4 hashes to" "$WORK/out" || fail "leaf line: $(cat "$WORK/out")"
grep -q "^kixd check: 1 problem found in store $WORK/leaf" "$WORK/err" || fail "leaf summary: $(cat "$WORK/err")"
refuses_to_serve "$WORK/leaf"
audit_json "$WORK/leaf"
[ "$(json_get "$WORK/audit.json" 'd["index"]')" = 4 ] || fail "audit leaf index: $(cat "$WORK/audit.json")"
[ "$(json_get "$WORK/audit.json" 'd["verified"]')" = 4 ] || fail "audit verified: $(cat "$WORK/audit.json")"
pass "altered entry 4: kixd check, kixd serve and kix audit all name it"

# --- an object: blob 0, the first manifest or workload stored
tampered blob blobs u64:0 30
check_json "$WORK/blob"
[ "$(json_get "$WORK/check.json" 'd["problems"][0]["where"]')" = "blobs u64:0" ] || fail "blob where"
BLOB_ENTRY=$(json_get "$WORK/check.json" 'd["problems"][0]["index"]')
BLOB_DIGEST=$(json_get "$WORK/check.json" 'd["problems"][0]["message"].split()[1]')
[ "$BLOB_ENTRY" = 2 ] || fail "blob 0 is run-1's manifest, the subject of entry 2: $(cat "$WORK/check.json")"
[ "$BLOB_DIGEST" = "$("$KIX" digest "$WORK/m1/run.json")" ] || fail "blob digest $BLOB_DIGEST"
json_get "$WORK/check.json" 'd["problems"][0]["message"]' | grep -q "the stored bytes hash to sha256:.*the object was altered" \
  || fail "blob message: $(cat "$WORK/check.json")"
refuses_to_serve "$WORK/blob"
audit_json "$WORK/blob"
[ "$(json_get "$WORK/audit.json" 'd["index"]')" = 2 ] || fail "audit blob index: $(cat "$WORK/audit.json")"
json_get "$WORK/audit.json" 'd["reason"]' | grep -q "entry 2: .*answered bytes that do not hash to $BLOB_DIGEST" \
  || fail "audit blob reason: $(cat "$WORK/audit.json")"
pass "altered object $BLOB_DIGEST: kixd check names blob 0 and entry 2, kix audit entry 2 and the digest"

# --- a tree hash: the leaf hash of entry 5 in tile 0/0 (row 0, slot 5)
tampered tile tiles 000000000000000000 $((2 + 32 * 5 + 9))
check_json "$WORK/tile"
[ "$(json_get "$WORK/check.json" 'd["problems"][0]["table"]')" = tiles ] || fail "tile table"
[ "$(json_get "$WORK/check.json" 'd["problems"][0]["where"]')" = "tiles 000000000000000000 (tile 0/0)" ] \
  || fail "tile where: $(cat "$WORK/check.json")"
[ "$(json_get "$WORK/check.json" 'd["problems"][0]["index"]')" = 5 ] || fail "tile index"
json_get "$WORK/check.json" 'd["problems"][0]["message"]' | grep -q "as the leaf hash of entry 5, .*the tile was altered" \
  || fail "tile message: $(cat "$WORK/check.json")"
refuses_to_serve "$WORK/tile"
audit_json "$WORK/tile"
# the replay passes (the entries are intact); the server's proofs do not:
# entry 4's proof starts with entry 5's leaf hash
[ "$(json_get "$WORK/audit.json" 'd["index"]')" = 4 ] || fail "audit tile index: $(cat "$WORK/audit.json")"
[ "$(json_get "$WORK/audit.json" 'd["verified"]')" = 8 ] || fail "audit tile verified: $(cat "$WORK/audit.json")"
json_get "$WORK/audit.json" 'd["reason"]' | grep -q "entry 4: hash 0 of .*node (level 0, index 5) over entries 5 to 5, stored in tile 0/0.*the server's tree hashes were altered" \
  || fail "audit tile reason: $(cat "$WORK/audit.json")"
pass "altered tree hash: kixd check names tile 0/0 and entry 5, kix audit the node and tile"

# --- the tree's root at size 8: node (3, 0), tile 0/0 row 3 (after 8 + 4 + 2
# hashes): the root folded from the tiles is no longer the signed one
tampered edge tiles 000000000000000000 $((2 + 32 * (8 + 4 + 2) + 1))
expect_status 1 "$KIXD" check --store "$WORK/edge" --quick
grep -q "the stored tiles fold to" "$WORK/out" || fail "edge: $(cat "$WORK/out")"
refuses_to_serve "$WORK/edge"
pass "altered right edge: the start-up check refuses it"

# --- the index: run-3's record edited to claim another evidence level (the
# byte after the record's seven counters); the log's entries are intact, so
# only the full check's recomputed index names it
tampered evidence runs "$(printf run-3 | od -An -tx1 | tr -d ' \n')" $((64 + 56))
expect_status 0 "$KIXD" check --store "$WORK/evidence" --quick
expect_status 1 "$KIXD" check --store "$WORK/evidence" --json
[ "$(json_get "$WORK/out" 'd["problems"][0]["table"]')" = runs ] || fail "index table: $(cat "$WORK/out")"
[ "$(json_get "$WORK/out" 'd["problems"][0]["where"]')" = "runs run-3" ] || fail "index where: $(cat "$WORK/out")"
json_get "$WORK/out" 'd["problems"][0]["message"]' | grep -q "is not what its entries make" ||
  fail "index message: $(cat "$WORK/out")"
pass "an edited run record: kixd check recomputes the index and names run-3"
