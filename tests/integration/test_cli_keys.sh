#!/usr/bin/env bash
# Issue 18, keys: kix key list (both key-id forms, the .pub note key hash,
# roles, added/changed/revoked indexes, --json), a roles change as a new
# registration entry, and a revoked key that stays revoked.
. "$KIX_TESTS/integration/lib.sh"

"$KIXD" init --store "$WORK/log" --admin-key "$WORK/log/admin.key" --origin kix.keys/log >"$WORK/vkey" 2>/dev/null
export KIX_LOG_KEY="$(cat "$WORK/vkey")"
ADMIN="$WORK/log/admin.key"

"$KIX" keygen --name alice@example.org --out "$WORK/alice" >/dev/null 2>"$WORK/keygen.err"
grep -qE '^key id [0-9a-f]{16} \(full [0-9a-f]{64}\)$' "$WORK/keygen.err" ||
  fail "keygen does not show the log's key id: $(cat "$WORK/keygen.err")"
SHORT=$(sed -n 's/^key id \([0-9a-f]*\) .*/\1/p' "$WORK/keygen.err")
FULL=$(sed -n 's/.*(full \([0-9a-f]*\))$/\1/p' "$WORK/keygen.err")
NOTEHASH=$(cut -d+ -f2 "$WORK/alice.pub")
"$KIX" key add --store "$WORK/log" --key "$ADMIN" --role publish "$WORK/alice.pub" >/dev/null
pass "keygen shows the key id the log uses"

# a roles change: a live key added again with other roles
expect_status 0 "$KIX" key add --store "$WORK/log" --key "$ADMIN" --role publish,attest "$WORK/alice.pub"
# the same roles again change nothing (the statement is already logged)
expect_status 0 "$KIX" key add --store "$WORK/log" --key "$ADMIN" --role attest,publish "$WORK/alice.pub"
grep -q "at log index 2 (already logged)" "$WORK/out" || fail "same roles again: $(cat "$WORK/out")"
make_manifests "$WORK/m" 1
expect_status 0 "$KIX" publish --store "$WORK/log" --key "$WORK/alice.key" "$WORK/m/run.json" "$WORK/m/workload.json"
RUN=$(head -n 1 "$WORK/out"); RUN=${RUN##*/}
expect_status 0 "$KIX" attest --store "$WORK/log" --key "$WORK/alice.key" --note ok "$RUN"
# and back down: attest only, publishing is now refused
expect_status 0 "$KIX" key add --store "$WORK/log" --key "$ADMIN" --role attest "$WORK/alice.pub"
make_manifests "$WORK/m2" 2
expect_status 1 "$KIX" publish --store "$WORK/log" --key "$WORK/alice.key" "$WORK/m2/run.json" "$WORK/m2/workload.json"
grep -q "lacks the publish role" "$WORK/err" || fail "roles change not in force: $(cat "$WORK/err")"
# earlier roles cannot come back by repeating their statement (refused, not "already logged")
expect_status 1 "$KIX" key add --store "$WORK/log" --key "$ADMIN" --role publish "$WORK/alice.pub"
grep -q "roles have changed since" "$WORK/err" || fail "restoring roles: $(cat "$WORK/err")"
pass "an admin changes a live key's roles with a new registration entry"

expect_status 0 "$KIX" key list --store "$WORK/log" "$WORK/alice.pub"
grep -q "^$SHORT  live     attest  added 1  roles changed 5  name alice@example.org note-hash $NOTEHASH\$" "$WORK/out" ||
  fail "key list text: $(cat "$WORK/out")"
grep -q "^  id $FULL\$" "$WORK/out" || fail "key list full id: $(cat "$WORK/out")"
start_kixd "$WORK/log"
expect_status 0 "$KIX" key list --server "$KIXD_ADDR" --json "$WORK/alice.pub"
python3 - "$WORK/out" "$FULL" "$SHORT" "$NOTEHASH" <<'PY' || fail "key list --json: $(cat "$WORK/out")"
import json, sys
doc = json.load(open(sys.argv[1]))  # one object (README "Output for scripts")
rows = doc["keys"]
assert len(rows) == 2, rows  # the first admin key and alice
a = [r for r in rows if r["keyId"] == sys.argv[2]][0]
assert a == {"keyId": sys.argv[2], "shortId": sys.argv[3], "name": "alice@example.org",
             "noteKeyHash": sys.argv[4], "live": True, "roles": ["attest"], "added": 1,
             "rolesChanged": 5, "revoked": None}, a
adm = [r for r in rows if r["keyId"] != sys.argv[2]][0]
# a name only where kix knows it (the text shows none either)
assert adm["added"] == 0 and "admin" in adm["roles"] and "name" not in adm, adm
PY
stop_kixd
pass "kix key list shows both id forms, the note key hash, roles and indexes"

"$KIX" key revoke --store "$WORK/log" --key "$ADMIN" "$WORK/alice.pub" >/dev/null
expect_status 1 "$KIX" key add --store "$WORK/log" --key "$ADMIN" --role publish "$WORK/alice.pub"
grep -q "stays revoked" "$WORK/err" || fail "re-add revoked: $(cat "$WORK/err")"
expect_status 1 "$KIX" key add --store "$WORK/log" --key "$ADMIN" --role rerun "$WORK/alice.pub"
grep -q "stays revoked" "$WORK/err" || fail "new roles on a revoked key: $(cat "$WORK/err")"
expect_status 0 "$KIX" key list --store "$WORK/log"
grep -q "^$SHORT  revoked  attest  added 1  roles changed 5  revoked 6\$" "$WORK/out" ||
  fail "key list after revoke: $(cat "$WORK/out")"
# the replica (audit) applies the same rules: the log replays
expect_status 0 "$KIX" audit --store "$WORK/log"
expect_status 0 "$KIXD" check --store "$WORK/log"
pass "a revoked key stays revoked, whatever roles it asks for"
