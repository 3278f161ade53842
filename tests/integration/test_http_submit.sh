#!/usr/bin/env bash
# Issue 41 item 1, writes over HTTP: kixd serve --http-submit takes POST
# /submit with the JSON body kix publish|attest|rerun --sign-only print.
# curl publishes a run, an attestation and a rerun, each answered 201 with
# a receipt that kix verify accepts; the same body again is 409 with the
# entry already logged; an empty, oversized, malformed, unsigned or
# wrongly signed, or wrong-role body, another origin's page, a GET and a
# kixd without --http-submit are each refused with the JSON error object
# kix --json prints, and nothing of them is stored; kix submit takes a
# signed body too; the audit stays clean.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"

new_origin "$WORK/o"
"$KIX" keygen --name reruns --out "$WORK/rerun" >/dev/null 2>&1
"$KIX" keygen --name notes --out "$WORK/notes" >/dev/null 2>&1
"$KIX" key add --store "$WORK/o" --key "$WORK/o/admin.key" --role rerun "$WORK/rerun.pub" >/dev/null
"$KIX" key add --store "$WORK/o" --key "$WORK/o/admin.key" --role attest "$WORK/notes.pub" >/dev/null
HPORT=$(free_port)
H="http://127.0.0.1:$HPORT"
serve o --http "tcp://127.0.0.1:$HPORT" --http-submit --max-message 1048576 \
  --http-submit-origin https://bench.example.org
export KIX_SERVER=$(addr o) KIX_LOG_KEY="$(cat "$WORK/vkey")"

size() { KIX_LOG_KEY= XDG_CONFIG_HOME=/nonexistent "$KIX" info --server "$KIX_SERVER" | awk '$1 == "size" { print $2 }'; }
# post FILE [CURL ARGS...]: POST FILE to /submit; the status in $WORK/code, the body in $WORK/ans
post() {
  local f=$1
  shift
  curl -s -o "$WORK/ans" -w '%{http_code}' -H 'Content-Type: application/json' "$@" \
    --data-binary "@$f" "$H/submit" >"$WORK/code" || fail "curl POST /submit: $?"
}
# refused STATUS CODE WHAT: the last answer was STATUS with a JSON error of CODE
refused() {
  [ "$(cat "$WORK/code")" = "$1" ] || fail "$3: status $(cat "$WORK/code"), want $1: $(cat "$WORK/ans")"
  python3 - "$WORK/ans" "$2" "$3" <<'PY' || fail "$3: $(cat "$WORK/ans")"
import json, sys
e = json.load(open(sys.argv[1]))["error"]
assert e["code"] == sys.argv[2], f"code {e['code']}, want {sys.argv[2]}"
assert e["message"] and isinstance(e["exitCode"], int) and e["cause"], e
PY
}

"$KIX" new run --kernel rope --gpu "NVIDIA A100" --param seq=2048 "$WORK/m" >/dev/null || fail "kix new run"
fill_bundle "$WORK/m"

# ---- a run, signed by kix and posted by curl ------------------------------------------
before=$(size)
"$KIX" publish --key "$WORK/pub.key" --run-id rope-http --sign-only "$WORK/m/run.json" >"$WORK/pub.body" ||
  fail "publish --sign-only"
[ "$(size)" = "$before" ] || fail "publish --sign-only stored something"
python3 -c 'import json,sys; b=json.load(open(sys.argv[1])); assert b["envelope"]["payloadType"] and len(b["objects"]) == 5, b.keys()' \
  "$WORK/pub.body" || fail "the --sign-only body is not {envelope, objects}: $(head -c 300 "$WORK/pub.body")"
post "$WORK/pub.body"
[ "$(cat "$WORK/code")" = 201 ] || fail "POST /submit of a run: $(cat "$WORK/code") $(cat "$WORK/ans")"
python3 - "$WORK/ans" "$WORK/receipt" <<'PY' || fail "the 201 answer: $(cat "$WORK/ans")"
import json, sys
a = json.load(open(sys.argv[1]))
assert a["duplicate"] is False and a["index"] >= 1 and a["size"] > a["index"], a
assert a["receipt"].startswith("c2sp.org/tlog-proof@v1\n"), a["receipt"][:40]
open(sys.argv[2], "w").write(a["receipt"])
PY
"$KIX" verify "$WORK/receipt" --log-key "$KIX_LOG_KEY" >/dev/null ||
  fail "kix verify refuses the receipt POST /submit answered"
"$KIX" show rope-http >"$WORK/show" || fail "kix show of the run posted over HTTP"
pass "curl POSTs a run kix signed (--sign-only stores nothing): 201, a receipt kix verify accepts"

# ---- the same body again: 409 with the entry already logged ---------------------------
index=$(json_get "$WORK/ans" 'd["index"]')
post "$WORK/pub.body"
[ "$(cat "$WORK/code")" = 409 ] || fail "the same body again: $(cat "$WORK/code"), want 409"
[ "$(json_get "$WORK/ans" 'd["index"]')" = "$index" ] && [ "$(json_get "$WORK/ans" 'd["duplicate"]')" = True ] ||
  fail "the 409 answer does not name entry $index: $(cat "$WORK/ans")"
pass "the same body again is 409 Conflict naming entry $index, as Rekor v2 answers"

# ---- an attestation and a rerun -------------------------------------------------------
"$KIX" attest --key "$WORK/notes.key" --note "reproduced on our A100" --sign-only rope-http >"$WORK/note.body" ||
  fail "attest --sign-only"
post "$WORK/note.body"
[ "$(cat "$WORK/code")" = 201 ] || fail "POST of an attestation: $(cat "$WORK/code") $(cat "$WORK/ans")"
# the rerun repeats the run's workload, implementation and protocol, named by file
python3 - "$WORK/m/run.json" "$WORK/m/rerun.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["spec"]["timing"]["latencyNs"]["median"] += 40
r["spec"]["observedAt"] = "2026-11-30T12:00:00Z"
json.dump(r, open(sys.argv[2], "w"))
PY
"$KIX" rerun --key "$WORK/rerun.key" --outcome reproduced --sign-only rope-http "$WORK/m/rerun.json" \
  >"$WORK/rerun.body" 2>"$WORK/rerun.err" || fail "rerun --sign-only: $(cat "$WORK/rerun.err")"
post "$WORK/rerun.body"
[ "$(cat "$WORK/code")" = 201 ] || fail "POST of a rerun: $(cat "$WORK/code") $(cat "$WORK/ans")"
"$KIX" resolve rope-http --json >"$WORK/res.json" || fail "kix resolve --json"
grep -q '"evidence":"reproduced"' "$WORK/res.json" || fail "the rerun posted is not the run's evidence: $(head -c 600 "$WORK/res.json")"
"$KIX" show rope-http >"$WORK/show" || fail "kix show"
grep -q "reproduced on our A100" "$WORK/show" || fail "kix show lacks the note posted: $(cat "$WORK/show")"
pass "curl POSTs an attestation and a controlled rerun; kix show verifies both"

# ---- refusals, each a JSON error, nothing stored --------------------------------------
n=$(size)
: >"$WORK/empty"
post "$WORK/empty"
refused 400 invalidInput "an empty body"
head -c 1100000 /dev/zero | tr '\0' ' ' >"$WORK/big"
post "$WORK/big"
refused 413 limitExceeded "a body over --max-message"
# a client that sends its whole body before it reads still reads the
# refusal: kixd drains what it refused before it closes (a close with
# unread bytes resets the connection, which can lose the answer)
python3 - "$HPORT" <<'PY' || fail "a client sending its 8 MB body before reading got no 413"
import os, sys
sys.path.insert(0, os.environ["KIX_TESTS"] + "/integration")
from raw_http import exchange
body = b" " * (8 << 20)
got = exchange(sys.argv[1], b"POST /submit HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
               b"Content-Length: %d\r\n\r\n" % len(body) + body, shutdown=True, timeout=20)
assert got.startswith(b"HTTP/1.1 413"), got[:80]
PY
printf '{"envelope": {"payloadType": "x"' >"$WORK/cut"
post "$WORK/cut"
refused 400 invalidInput "JSON cut short"
printf '{"envelope": {}, "objects": [], "extra": 1}' >"$WORK/extra"
post "$WORK/extra"
refused 400 invalidInput "an unknown member"
grep -q '/extra' "$WORK/ans" || fail "the refusal does not name /extra: $(cat "$WORK/ans")"
# a signature that does not verify: one byte of the payload changed
python3 - "$WORK/note.body" "$WORK/forged.body" <<'PY'
import base64, json, sys
b = json.load(open(sys.argv[1]))
p = bytearray(base64.b64decode(b["envelope"]["payload"]))
i = p.index(b"reproduced on our A100")
p[i] = ord("R")
b["envelope"]["payload"] = base64.b64encode(bytes(p)).decode()
json.dump(b, open(sys.argv[2], "w"))
PY
post "$WORK/forged.body"
refused 422 verificationFailed "a payload changed after signing"
# a key without the role: the publisher signs an attestation
"$KIX" attest --key "$WORK/pub.key" --note "my own run is great" --sign-only rope-http >"$WORK/role.body" ||
  fail "attest --sign-only with the publisher's key"
post "$WORK/role.body"
refused 403 refusedByPolicy "a key without the attest role"
# another origin's page; the allowed one gets CORS
post "$WORK/note.body" -H 'Origin: https://evil.example'
refused 403 refusedByPolicy "another origin's page"
code=$(curl -s -o /dev/null -D "$WORK/hdr" -w '%{http_code}' -X OPTIONS -H 'Origin: https://bench.example.org' \
  -H 'Access-Control-Request-Method: POST' "$H/submit")
[ "$code" = 204 ] && grep -qi '^access-control-allow-origin: https://bench.example.org' "$WORK/hdr" &&
  grep -qi '^access-control-allow-methods: POST' "$WORK/hdr" || fail "preflight of the allowed origin: $code $(cat "$WORK/hdr")"
code=$(curl -s -o /dev/null -D "$WORK/hdr" -w '%{http_code}' -X OPTIONS -H 'Origin: https://evil.example' "$H/submit")
[ "$code" = 403 ] && ! grep -qi '^access-control-allow-origin' "$WORK/hdr" || fail "preflight of another origin: $code"
post "$WORK/note.body" -H 'Origin: https://bench.example.org'
[ "$(cat "$WORK/code")" = 409 ] && grep -qi '"duplicate":true' "$WORK/ans" || fail "the allowed origin's post: $(cat "$WORK/code")"
code=$(curl -s -o "$WORK/ans" -w '%{http_code}' "$H/submit")
echo "$code" >"$WORK/code"
refused 405 usage "GET /submit"
# reads stay public to every origin
curl -s -D "$WORK/hdr" -o /dev/null "$H/checkpoint"
grep -qi '^access-control-allow-origin: \*' "$WORK/hdr" || fail "reads lost their CORS header"
[ "$(size)" = "$n" ] || fail "a refused post stored something: size $(size), was $n"
pass "empty, oversized, cut, unknown-member, forged, wrong-role, foreign-origin and GET requests: each its JSON error, nothing stored; preflight answers only the allowed origin"

# ---- kix submit: a body signed before ---------------------------------------------------
"$KIX" attest --key "$WORK/notes.key" --note "second look: same figures" --sign-only rope-http >"$WORK/note2.body"
"$KIX" submit --json "$WORK/note2.body" >"$WORK/sub.json" || fail "kix submit: $(cat "$WORK/sub.json")"
[ "$(json_get "$WORK/sub.json" 'd["entry"]')" = attestation ] || fail "kix submit --json: $(cat "$WORK/sub.json")"
"$KIX" submit --json - <"$WORK/note2.body" >"$WORK/sub.json" || fail "kix submit - again"
[ "$(json_get "$WORK/sub.json" 'd["duplicate"]')" = True ] || fail "kix submit of the same body: $(cat "$WORK/sub.json")"
expect_status 1 "$KIX" submit "$WORK/extra"
pass "kix submit takes a signed body (a file or -), and refuses a malformed one"

# ---- rate limits: --http-submit-rate N a minute per address and per key -------------------
stop o
HPORT=$(free_port)
H="http://127.0.0.1:$HPORT"
serve o --http "tcp://127.0.0.1:$HPORT" --http-submit --http-submit-rate 2
n=$(size)
post "$WORK/note.body"
[ "$(cat "$WORK/code")" = 409 ] || fail "first post under the rate: $(cat "$WORK/code")"
post "$WORK/note.body"
[ "$(cat "$WORK/code")" = 409 ] || fail "second post under the rate: $(cat "$WORK/code")"
curl -s -o "$WORK/ans" -D "$WORK/hdr" -w '%{http_code}' -H 'Content-Type: application/json' \
  --data-binary "@$WORK/note2.body" "$H/submit" >"$WORK/code"
[ "$(cat "$WORK/code")" = 429 ] || fail "third post in a minute at --http-submit-rate 2: $(cat "$WORK/code") $(cat "$WORK/ans")"
grep -q '"code":"rateLimited"' "$WORK/ans" && grep -qi '^retry-after: [1-9]' "$WORK/hdr" ||
  fail "the 429: $(cat "$WORK/hdr" "$WORK/ans")"
[ "$(size)" = "$n" ] || fail "a rate-limited post stored something"
pass "--http-submit-rate 2: the third post in a minute is 429 with Retry-After and a JSON error, nothing stored"

# ---- without --http-submit, POST /submit is off ------------------------------------------
stop o
H2PORT=$(free_port)
serve o --http "tcp://127.0.0.1:$H2PORT"
H="http://127.0.0.1:$H2PORT"
post "$WORK/note.body"
refused 404 notSupported "POST /submit without --http-submit"
expect_status 2 "$KIXD" serve --store "$WORK/o" --http-submit-origin "https://x.example/path"

"$KIX" audit --server "$(addr o)" >/dev/null || fail "kix audit after the HTTP writes"
pass "kixd without --http-submit refuses POST /submit (404, JSON); a bad origin is a usage error; the audit passes"
