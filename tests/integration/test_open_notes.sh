#!/usr/bin/env bash
# Issue 41 item 3, who may write what: open notes. A log takes a note
# (attestation) from a key no registration names only while its policy,
# itself a signed entry of the log (kix policy), allows open notes; such a
# note carries its signer's public key inside what is signed, and is shown
# everywhere as "community, unregistered key". Over curl to a real kixd:
# refused with a JSON error before the policy, accepted and labeled after
# it (kix show, --json, the run page, GET /policy); an unregistered rerun,
# publication, withdrawal, key entry and policy are refused always; a
# registered key cannot pose as unregistered, nor a stranger as a
# registered key; a replay is a duplicate; the index (evidence, ranks) does
# not move; an open note names its log, so no other log takes it; size
# caps and the policy's proof of work hold; the rate limits
# count open notes; and kix audit and a mirror replay it all clean and agree.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"

new_origin "$WORK/o"
"$KIX" keygen --name notes --out "$WORK/notes" >/dev/null 2>&1
"$KIX" keygen --name stranger --out "$WORK/stranger" >/dev/null 2>&1
"$KIX" keygen --name curator --out "$WORK/cur" >/dev/null 2>&1
"$KIX" key add --store "$WORK/o" --key "$WORK/o/admin.key" --role attest "$WORK/notes.pub" >/dev/null
HPORT=$(free_port)
H="http://127.0.0.1:$HPORT"
serve o --http "tcp://127.0.0.1:$HPORT" --http-submit
export KIX_SERVER=$(addr o) KIX_LOG_KEY="$(cat "$WORK/vkey")"

size() { size_of o; }
post() {
  local f=$1
  shift
  curl -s -o "$WORK/ans" -w '%{http_code}' -H 'Content-Type: application/json' "$@" \
    --data-binary "@$f" "$H/submit" >"$WORK/code" || fail "curl POST /submit: $?"
}
# refused STATUS CODE PATTERN WHAT: the last answer was STATUS, a JSON error
# of CODE whose message matches PATTERN
refused() {
  [ "$(cat "$WORK/code")" = "$1" ] || fail "$4: status $(cat "$WORK/code"), want $1: $(cat "$WORK/ans")"
  python3 - "$WORK/ans" "$2" "$3" "$4" <<'PY' || fail "$4: $(cat "$WORK/ans")"
import json, re, sys
e = json.load(open(sys.argv[1]))["error"]
assert e["code"] == sys.argv[2], f"code {e['code']}, want {sys.argv[2]}"
assert re.search(sys.argv[3], e["message"]), e["message"]
assert isinstance(e["exitCode"], int) and e["cause"], e
PY
}
accepted() {
  [ "$(cat "$WORK/code")" = 201 ] || fail "$1: $(cat "$WORK/code") $(cat "$WORK/ans")"
}

"$KIX" new run --kernel rope --gpu "NVIDIA A100" --param seq=2048 "$WORK/m" >/dev/null || fail "kix new run"
fill_bundle "$WORK/m"
"$KIX" publish --key "$WORK/pub.key" --run-id rope-open "$WORK/m/run.json" >/dev/null || fail "publish"
"$KIX" resolve rope-open --json >"$WORK/res0.json" || fail "resolve"
"$KIX" query --json --limit 100 >"$WORK/q0.json" || fail "query"

# ---- before any policy: closed, and said so ----------------------------------------------
curl -s "$H/policy" >"$WORK/pol"
[ "$(json_get "$WORK/pol" 'd["openNotes"]')" = False ] || fail "GET /policy of a new log: $(cat "$WORK/pol")"
"$KIX" attest --key "$WORK/stranger.key" --note "works for me on an H100" --open --sign-only rope-open \
  >"$WORK/open.body" || fail "attest --open --sign-only"
python3 - "$WORK/open.body" "$WORK/stranger.pub" <<'PY' || fail "the open note does not carry its key"
import base64, json, sys
b = json.load(open(sys.argv[1]))
st = json.loads(base64.b64decode(b["envelope"]["payload"]))
assert "signerKey" in st["predicate"] and len(base64.b64decode(st["predicate"]["signerKey"])) == 32, st
PY
n=$(size)
post "$WORK/open.body"
refused 403 refusedByPolicy "no open notes" "an open note before any policy"
"$KIX" attest --key "$WORK/stranger.key" --note "plain, unregistered" --sign-only rope-open >"$WORK/plain.body"
post "$WORK/plain.body"
refused 403 refusedByPolicy "not registered.*kix attest --open" "an unregistered plain note"
[ "$(size)" = "$n" ] || fail "a refused note stored something"
pass "before a policy entry, a note from an unregistered key is refused (403, JSON), open or not; GET /policy says closed"

# ---- the admin opens notes: a policy entry in the log -------------------------------------
"$KIX" policy --key "$WORK/stranger.key" --open-notes on >/dev/null 2>"$WORK/err" &&
  fail "a stranger set the policy"
grep -q "not registered" "$WORK/err" || fail "a stranger's policy: $(cat "$WORK/err")"
"$KIX" policy --key "$WORK/o/admin.key" --open-notes on --json >"$WORK/pol.json" || fail "kix policy: $(cat "$WORK/pol.json")"
[ "$(json_get "$WORK/pol.json" 'd["entry"]')" = policy ] || fail "kix policy --json: $(cat "$WORK/pol.json")"
sleep 1 # (the same second: the same statement, answered as already logged)
expect_status 1 "$KIX" policy --key "$WORK/o/admin.key" --open-notes on
grep -q "in force already" "$WORK/err" || fail "the same policy again: $(cat "$WORK/err")"
curl -s "$H/policy" >"$WORK/pol"
[ "$(json_get "$WORK/pol" 'd["openNotes"]')" = True ] || fail "GET /policy after kix policy: $(cat "$WORK/pol")"
post "$WORK/open.body"
accepted "the open note under the policy"
OPEN_INDEX=$(json_get "$WORK/ans" 'd["index"]')
post "$WORK/open.body"
[ "$(cat "$WORK/code")" = 409 ] || fail "the open note replayed: $(cat "$WORK/code") $(cat "$WORK/ans")"
pass "kix policy --open-notes on (an admin's signed entry; a stranger's refused; the same again refused): the open note is 201, its replay 409"

# ---- labeled everywhere -----------------------------------------------------------------
"$KIX" show rope-open >"$WORK/show" || fail "kix show"
grep -q "#$OPEN_INDEX .* (community, unregistered key): works for me on an H100" "$WORK/show" ||
  fail "kix show does not label the open note: $(grep -A4 Replications "$WORK/show")"
"$KIX" show rope-open --json >"$WORK/show.json" || fail "kix show --json"
python3 - "$WORK/show.json" "$OPEN_INDEX" <<'PY' || fail "kix show --json: the open note is not marked unregistered"
import json, sys
d = json.load(open(sys.argv[1]))
def find(o):
    if isinstance(o, dict):
        if "attestationList" in o: return o["attestationList"]
        for v in o.values():
            r = find(v)
            if r is not None: return r
lst = find(d)
a = [x for x in lst if x["index"] == int(sys.argv[2])]
assert a and a[0].get("unregistered") is True, lst
PY
"$KIX" resolve rope-open >"$WORK/resolve" || fail "kix resolve"
grep -q "#$OPEN_INDEX .*attestation .*(community, unregistered key)  \"works for me on an H100\"" "$WORK/resolve" ||
  fail "kix resolve does not label the open note: $(grep attestation "$WORK/resolve")"
"$KIX" resolve rope-open --json >"$WORK/resolve.json" || fail "kix resolve --json"
json_get "$WORK/resolve.json" "[e for e in d['entries'] if e['index'] == $OPEN_INDEX][0]['unregistered']" | grep -q True ||
  fail "kix resolve --json does not mark the open note"
curl -s "$H/runs/rope-open.html" >"$WORK/page.html"
grep -q "(community, unregistered key)</td><td>works for me on an H100" "$WORK/page.html" ||
  fail "the run page does not label the open note: $(grep -o '<tbody data-kix-slot="attestations">.*' "$WORK/page.html" | head -3)"
pass "the open note shows as \"community, unregistered key\" in kix show, kix show --json, kix resolve (text, --json) and the run page"

# ---- an unregistered key attests only: every other entry refused, policy or not ----------
python3 - "$WORK/m/run.json" "$WORK/m/rerun.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["spec"]["timing"]["latencyNs"]["median"] += 40
r["spec"]["observedAt"] = "2026-11-30T12:00:00Z"
json.dump(r, open(sys.argv[2], "w"))
PY
n=$(size)
"$KIX" rerun --key "$WORK/stranger.key" --outcome reproduced --sign-only rope-open "$WORK/m/rerun.json" \
  >"$WORK/rerun.body" 2>"$WORK/err" || fail "rerun --sign-only: $(cat "$WORK/err")"
post "$WORK/rerun.body"
refused 403 refusedByPolicy "only a note" "an unregistered rerun"
# the same rerun with the signer's key inside (as an open note carries it): still no rerun
python3 - "$WORK/rerun.body" "$WORK/stranger.key" "$WORK/rerun2.body" <<'PY'
import base64, json, sys, hashlib
from nacl.signing import SigningKey
b = json.load(open(sys.argv[1]))
seed = base64.b64decode(open(sys.argv[2]).read().strip().split("+", 4)[4])[1:]  # PRIVATE+KEY+name+hash+b64
sk = SigningKey(seed)
st = json.loads(base64.b64decode(b["envelope"]["payload"]))
st["predicate"]["signerKey"] = base64.b64encode(bytes(sk.verify_key)).decode()
payload = json.dumps(st, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
t = b"application/vnd.in-toto+json"
pae = b"DSSEv1 %d %s %d %s" % (len(t), t, len(payload), payload)
b["envelope"]["payload"] = base64.b64encode(payload).decode()
b["envelope"]["signatures"][0]["sig"] = base64.b64encode(sk.sign(pae).signature).decode()
json.dump(b, open(sys.argv[3], "w"))
PY
post "$WORK/rerun2.body"
refused 400 invalidInput "signerKey: is not a known field" "an unregistered rerun carrying its key"
"$KIX" publish --key "$WORK/stranger.key" --run-id rope-stranger --new-run --sign-only "$WORK/m/run.json" >"$WORK/pubs.body"
post "$WORK/pubs.body"
refused 403 refusedByPolicy "only a note" "an unregistered publication"
"$KIX" withdraw --key "$WORK/stranger.key" --reason other --note "spam" --sign-only rope-open >"$WORK/wd.body"
post "$WORK/wd.body"
refused 403 refusedByPolicy "only a note" "an unregistered withdrawal"
"$KIX" key add --key "$WORK/stranger.key" --role admin --sign-only "$WORK/stranger.pub" >"$WORK/key.body"
post "$WORK/key.body"
refused 403 refusedByPolicy "only a note" "an unregistered key adding itself"
"$KIX" policy --key "$WORK/stranger.key" --open-notes off --sign-only >"$WORK/polx.body"
post "$WORK/polx.body"
refused 403 refusedByPolicy "only a note" "an unregistered policy"
[ "$(size)" = "$n" ] || fail "a refused entry stored something"
pass "an unregistered key's rerun (with or without its key inside), publication, withdrawal, key entry and policy: each 403, nothing stored"

# ---- no posing: registered as unregistered, a stranger as a registered key ----------------
"$KIX" attest --key "$WORK/notes.key" --note "registered, posing as open" --open --sign-only rope-open >"$WORK/pose.body"
post "$WORK/pose.body"
refused 403 refusedByPolicy "is registered" "a registered key's open note"
# the stranger's note naming the registered key as its signerKey: not the key that signed
python3 - "$WORK/open.body" "$WORK/notes.pub" "$WORK/imp.body" <<'PY'
import base64, json, sys
b = json.load(open(sys.argv[1]))
st = json.loads(base64.b64decode(b["envelope"]["payload"]))
st["predicate"]["signerKey"] = base64.b64encode(base64.b64decode(open(sys.argv[2]).read().strip().split("+", 2)[2])[1:]).decode()
b["envelope"]["payload"] = base64.b64encode(json.dumps(st, sort_keys=True, separators=(",", ":")).encode()).decode()
json.dump(b, open(sys.argv[3], "w"))
PY
post "$WORK/imp.body"
refused 400 invalidInput "not the key that signed" "a signerKey that is not the signer's"
# ... and the keyid set to the registered key's too: its signature does not verify
python3 - "$WORK/imp.body" "$WORK/notes.pub" "$WORK/imp2.body" <<'PY'
import base64, hashlib, json, sys
b = json.load(open(sys.argv[1]))
pub = base64.b64decode(open(sys.argv[2]).read().strip().split("+", 2)[2])[1:]
b["envelope"]["signatures"][0]["keyid"] = hashlib.sha256(pub).hexdigest()
json.dump(b, open(sys.argv[3], "w"))
PY
post "$WORK/imp2.body"
[ "$(cat "$WORK/code")" = 403 ] || [ "$(cat "$WORK/code")" = 422 ] ||
  fail "a stranger posing as the registered key: $(cat "$WORK/code") $(cat "$WORK/ans")"
# the stranger's own open note, signed for another log: no other log takes it
python3 - "$WORK/open.body" "$WORK/stranger.key" "$WORK/other.body" <<'PY'
import base64, json, sys
from nacl.signing import SigningKey
b = json.load(open(sys.argv[1]))
sk = SigningKey(base64.b64decode(open(sys.argv[2]).read().strip().split("+", 4)[4])[1:])
st = json.loads(base64.b64decode(b["envelope"]["payload"]))
assert st["predicate"]["log"] == "kix.test/log", st["predicate"]
st["predicate"]["log"] = "other.example/log"
payload = json.dumps(st, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
t = b"application/vnd.in-toto+json"
b["envelope"]["payload"] = base64.b64encode(payload).decode()
b["envelope"]["signatures"][0]["sig"] = base64.b64encode(
    sk.sign(b"DSSEv1 %d %s %d %s" % (len(t), t, len(payload), payload)).signature).decode()
json.dump(b, open(sys.argv[3], "w"))
PY
post "$WORK/other.body"
refused 403 refusedByPolicy "for the log other.example/log, not this one" "an open note signed for another log"
[ "$(size)" = "$n" ] || fail "a posing note stored something"
pass "a registered key cannot send an open note, a stranger cannot name or take a registered key's id, and an open note signed for another log is refused"

# ---- the index does not move ------------------------------------------------------------
"$KIX" resolve rope-open --json >"$WORK/res1.json" || fail "resolve"
"$KIX" query --json --limit 100 >"$WORK/q1.json" || fail "query"
python3 - "$WORK/res0.json" "$WORK/res1.json" "$WORK/q0.json" "$WORK/q1.json" <<'PY' || fail "an open note moved the index"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
ra, rb = a.get("run", a), b.get("run", b)
for k in ("evidence", "rank", "group", "withdrawn", "supersededBy"):
    assert ra.get(k) == rb.get(k), (k, ra.get(k), rb.get(k))
qa, qb = (json.load(open(f)) for f in sys.argv[3:5])
strip = lambda q: [(r["runId"], r["rank"], r["group"], r.get("evidence")) for r in q["runs"]]
assert strip(qa) == strip(qb), (strip(qa), strip(qb))
PY
grep -q '"evidence":"reported"' "$WORK/res1.json" || fail "the evidence changed: $(head -c 400 "$WORK/res1.json")"
pass "an open note changes no evidence, rank, group or query answer"

# ---- size caps and the proof of work ----------------------------------------------------
python3 -c 'print("x" * 4097, end="")' >"$WORK/long"
"$KIX" attest --key "$WORK/stranger.key" --note "$(cat "$WORK/long")" --open --sign-only rope-open >"$WORK/long.body"
post "$WORK/long.body"
refused 413 limitExceeded "over 4096 bytes" "an open note over 4096 bytes"
python3 - "$WORK/big.json" <<'PY'
import json, sys
json.dump({"blob": "y" * 20000}, open(sys.argv[1], "w"))
PY
"$KIX" attest --key "$WORK/stranger.key" --note "with a big file" --evidence "$WORK/big.json" --open --sign-only rope-open >"$WORK/bigev.body"
post "$WORK/bigev.body"
refused 403 refusedByPolicy "at most 16384 bytes" "an open note storing a 20 kB object"
"$KIX" policy --key "$WORK/o/admin.key" --open-notes on --note-work 12 >/dev/null || fail "kix policy --note-work 12"
[ "$(curl -s "$H/policy" | python3 -c 'import json,sys; print(json.load(sys.stdin)["noteWork"])')" = 12 ] ||
  fail "GET /policy does not say noteWork 12"
"$KIX" attest --key "$WORK/stranger.key" --note "no work done" --open --sign-only rope-open >"$WORK/lazy.body"
post "$WORK/lazy.body"
refused 403 refusedByPolicy "bits of proof of work.*asks 12" "an open note without the work"
"$KIX" attest --key "$WORK/stranger.key" --note "worked for it" --open --work 12 --sign-only rope-open >"$WORK/work.body"
post "$WORK/work.body"
accepted "an open note with 12 bits of work"
# the admin stops one key: registered, then revoked, its open notes are refused
"$KIX" keygen --name spammer --out "$WORK/spam" >/dev/null 2>&1
"$KIX" attest --key "$WORK/spam.key" --note "spam 1" --open --work 12 --sign-only rope-open >"$WORK/spam1.body"
post "$WORK/spam1.body"
accepted "the spammer's first open note"
"$KIX" key add --key "$WORK/o/admin.key" --role attest "$WORK/spam.pub" >/dev/null || fail "kix key add spammer"
"$KIX" key revoke --key "$WORK/o/admin.key" "$WORK/spam.pub" >/dev/null || fail "kix key revoke spammer"
"$KIX" attest --key "$WORK/spam.key" --note "spam 2" --open --work 12 --sign-only rope-open >"$WORK/spam2.body"
post "$WORK/spam2.body"
refused 403 refusedByPolicy "was revoked" "a revoked key's open note"
pass "an open note over 4096 bytes (413) or storing a 20 kB object (403) is refused; under --note-work 12 one without work is refused, one with it logged; a key the admin registered and revoked sends no more"

# ---- closed again: earlier open notes stay, new ones are refused --------------------------
"$KIX" policy --key "$WORK/o/admin.key" --open-notes off >/dev/null || fail "kix policy --open-notes off"
"$KIX" attest --key "$WORK/stranger.key" --note "after closing" --open --work 12 --sign-only rope-open >"$WORK/late.body"
post "$WORK/late.body"
refused 403 refusedByPolicy "no open notes" "an open note after the policy closed"
"$KIX" show rope-open >"$WORK/show" || fail "kix show"
[ "$(grep -c '(community, unregistered key)' "$WORK/show")" = 3 ] || fail "the earlier open notes: $(grep -A8 Replications "$WORK/show")"
pass "kix policy --open-notes off: new open notes refused, the three logged stay (and stay labeled)"

# ---- replays agree: kix audit, a mirror ---------------------------------------------------
"$KIX" audit --json >"$WORK/audit.json" || fail "kix audit: $(cat "$WORK/audit.json")"
mirror m o
wait_size m "$(size)"
"$KIX" show rope-open --server "$(addr m)" >"$WORK/mshow" || fail "kix show on the mirror"
diff <(grep -A8 Replications "$WORK/show") <(grep -A8 Replications "$WORK/mshow") ||
  fail "the mirror shows other notes"
"$KIX" checkpoint --server "$(addr m)" | sed -n 2,3p >"$WORK/mcp"
"$KIX" checkpoint | sed -n 2,3p >"$WORK/ocp"
diff "$WORK/ocp" "$WORK/mcp" >/dev/null || fail "the mirror's tree differs: $(cat "$WORK/ocp" "$WORK/mcp")"
"$KIX" audit --server "$(addr m)" >/dev/null || fail "kix audit of the mirror"
pass "kix audit replays the policy and open notes clean; a mirror takes them all, labels them alike and agrees on the root"

# ---- rate limits count open notes, per key and per address --------------------------------
stop o
HPORT=$(free_port)
H="http://127.0.0.1:$HPORT"
serve o --http "tcp://127.0.0.1:$HPORT" --http-submit --http-submit-rate 2
"$KIX" policy --key "$WORK/o/admin.key" --open-notes on >/dev/null || fail "kix policy on"
for i in 1 2; do
  "$KIX" attest --key "$WORK/stranger.key" --note "burst $i" --open --sign-only rope-open >"$WORK/b$i.body"
  post "$WORK/b$i.body"
  accepted "open note $i of a burst of 2"
done
"$KIX" attest --key "$WORK/stranger.key" --note "burst 3" --open --sign-only rope-open >"$WORK/b3.body"
n=$(size)
post "$WORK/b3.body"
refused 429 rateLimited "at most 2 a minute" "the third open note in a minute"
[ "$(size)" = "$n" ] || fail "a rate-limited open note was stored"
# the same key over the msgpack port: its bucket is empty there too
"$KIX" attest --key "$WORK/stranger.key" --note "burst 3 over RPC" --open rope-open >/dev/null 2>"$WORK/err" &&
  fail "an open note over the msgpack port escaped the per-key rate"
grep -q "too many open notes" "$WORK/err" || fail "the msgpack port's refusal: $(cat "$WORK/err")"
# a registered key is not counted on the msgpack port
"$KIX" attest --key "$WORK/notes.key" --note "registered, over RPC" rope-open >/dev/null || fail "a registered note over RPC"
[ "$(size)" = "$((n + 1))" ] || fail "a rate-limited open note was stored"
pass "--http-submit-rate 2: the third open note in a minute is 429 over HTTP and refused over the msgpack port, nothing stored"
