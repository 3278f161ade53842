#!/usr/bin/env bash
# Issue 41 item 3, enrolling: a key asks the log's admin for roles over
# kixd's POST /enroll (with --http-submit). The request waits outside the
# log, in --enroll-dir (STORE/enroll); the admin lists it with kix key
# pending and approves it with kix key approve, which logs the normal key
# entry (as kix key add) and takes the request off the queue, or drops it
# with kix key reject (nothing logged). Bad requests get their JSON error,
# a second request or a registered key 409; the audit stays clean.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"

new_origin "$WORK/o"
"$KIX" keygen --name alice --out "$WORK/alice" >/dev/null 2>&1
"$KIX" keygen --name bob --out "$WORK/bob" >/dev/null 2>&1
HPORT=$(free_port)
H="http://127.0.0.1:$HPORT"
serve o --http "tcp://127.0.0.1:$HPORT" --http-submit
export KIX_SERVER=$(addr o) KIX_LOG_KEY="$(cat "$WORK/vkey")"
Q="$WORK/o/enroll"

# enroll JSON: POST it to /enroll; the status in $WORK/code, the answer in $WORK/ans
enroll() {
  curl -s -o "$WORK/ans" -w '%{http_code}' -H 'Content-Type: application/json' \
    --data-binary "$1" "$H/enroll" >"$WORK/code" || fail "curl POST /enroll: $?"
}
want() {
  [ "$(cat "$WORK/code")" = "$1" ] || fail "$3: status $(cat "$WORK/code"), want $1: $(cat "$WORK/ans")"
  [ -z "$2" ] || grep -q "$2" "$WORK/ans" || fail "$3: $(cat "$WORK/ans")"
}

"$KIX" new run --kernel rope --gpu "NVIDIA A100-SXM4-80GB" --param seq=2048 "$WORK/m" >/dev/null 2>&1 || fail "kix new run"
fill_bundle "$WORK/m"
"$KIX" publish --key "$WORK/pub.key" --run-id rope-enroll "$WORK/m/run.json" >/dev/null || fail "publish"

ALICE=$(cat "$WORK/alice.pub")
enroll "{\"key\": \"$ALICE\", \"roles\": [\"attest\"], \"note\": \"alice, reruns at lab X\"}"
want 202 '"pending":true' "alice's request"
ID=$(json_get "$WORK/ans" 'd["keyId"]')
[ -f "$Q/$ID.json" ] && [ -f "$Q/$ID.pub" ] || fail "the request is not in the queue: $(ls "$Q")"
enroll "{\"key\": \"$ALICE\"}"
want 409 'asked already' "alice's second request"
enroll '{"key": "alice+00000000+AAAA"}'
want 400 '"code":"invalidInput"' "a key line that does not parse"
enroll "{\"key\": \"$ALICE\", \"roles\": [\"admin\"]}"
want 400 'admin is' "a request for admin"
enroll "{\"key\": \"$ALICE\", \"extra\": 1}"
want 400 '/extra' "an unknown member"
n=$(size_of o)
pass "POST /enroll: 202 and the request in STORE/enroll, outside the log; asked again 409; a bad key, admin, an unknown member 400"

"$KIX" key pending --queue "$Q" >"$WORK/pending" || fail "kix key pending"
grep -q "^${ID:0:16}  attest  asked .* from 127.0.0.1" "$WORK/pending" && grep -q "note alice, reruns at lab X" "$WORK/pending" ||
  fail "kix key pending: $(cat "$WORK/pending")"
"$KIX" key pending --queue "$Q" --json >"$WORK/pending.json" || fail "kix key pending --json"
[ "$(json_get "$WORK/pending.json" 'd["pending"][0]["keyId"]')" = "$ID" ] || fail "kix key pending --json: $(cat "$WORK/pending.json")"
expect_status 1 "$KIX" attest --key "$WORK/alice.key" --note "before approval" rope-enroll
grep -q "not registered" "$WORK/err" || fail "alice before approval: $(cat "$WORK/err")"
[ "$(size_of o)" = "$n" ] || fail "a request or a refused note stored something"
pass "kix key pending lists the request (text and --json); the key is not registered until approved"

"$KIX" key approve --queue "$Q" --key "$WORK/o/admin.key" --json "${ID:0:12}" >"$WORK/approve.json" ||
  fail "kix key approve: $(cat "$WORK/approve.json")"
[ "$(json_get "$WORK/approve.json" 'd["entry"]')" = "key registration" ] || fail "kix key approve --json: $(cat "$WORK/approve.json")"
[ ! -e "$Q/$ID.json" ] && [ ! -e "$Q/$ID.pub" ] || fail "the approved request is still queued"
"$KIX" key list --json >"$WORK/keys.json" || fail "kix key list"
python3 - "$WORK/keys.json" "$ID" <<'PY' || fail "alice is not registered with attest: $(cat "$WORK/keys.json")"
import json, sys
k = [k for k in json.load(open(sys.argv[1]))["keys"] if k["keyId"] == sys.argv[2]]
assert k and k[0]["live"] and "attest" in k[0]["roles"], k
PY
"$KIX" attest --key "$WORK/alice.key" --note "after approval" rope-enroll >/dev/null || fail "alice's note after approval"
enroll "{\"key\": \"$ALICE\"}"
want 409 'registered in this log already' "a registered key asking again"
pass "kix key approve logs the key entry (kix key list shows it), the request leaves the queue, the key writes; asking again is 409"

enroll "{\"key\": \"$(cat "$WORK/bob.pub")\", \"roles\": [\"rerun\", \"attest\"]}"
want 202 '"roles":"attest,rerun"' "bob's request"
BOB=$(json_get "$WORK/ans" 'd["keyId"]')
n=$(size_of o)
expect_status 1 "$KIX" key approve --queue "$Q" --key "$WORK/bob.key" "$BOB"
grep -q "not registered" "$WORK/err" || fail "an approval signed by a non-admin: $(cat "$WORK/err")"
[ -e "$Q/$BOB.json" ] || fail "a refused approval dropped the request"
"$KIX" key reject --queue "$Q" "${BOB:0:10}" >/dev/null || fail "kix key reject"
[ ! -e "$Q/$BOB.json" ] || fail "the rejected request is still queued"
[ "$(size_of o)" = "$n" ] || fail "a rejection logged something"
grep -q "no pending requests" <<<"$("$KIX" key pending --queue "$Q")" || fail "the queue is not empty"
expect_status 1 "$KIX" key approve --queue "$Q" --key "$WORK/o/admin.key" "$BOB"
grep -q "no pending request" "$WORK/err" || fail "approving a rejected request: $(cat "$WORK/err")"
"$KIX" audit >/dev/null || fail "kix audit"
pass "a non-admin's approval is refused and keeps the request; kix key reject drops one, nothing logged; the audit passes"

stop o
serve o --http "tcp://127.0.0.1:$HPORT"
enroll "{\"key\": \"$(cat "$WORK/bob.pub")\"}"
want 404 '"code":"notSupported"' "POST /enroll without --http-submit"
pass "without --http-submit, POST /enroll is 404"
