#!/usr/bin/env bash
# --http-access-log: one line per HTTP request through kixd's log (method,
# path, status, bytes, ms, peer), in the text and json formats; off by
# default, and refused without --http.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"

new_origin "$WORK/o"
HPORT=$(free_port)
HTTP="http://127.0.0.1:$HPORT"
expect_status 2 "$KIXD" serve --store "$WORK/o" --http-access-log
grep -q "needs --http" "$WORK/err" || fail "--http-access-log alone: $(cat "$WORK/err")"

requests() {
  curl -sf "$HTTP/checkpoint" -o "$WORK/cp" || fail "GET /checkpoint"
  curl -s -o /dev/null "$HTTP/tile/0/999"
  curl -s -o /dev/null -X POST "$HTTP/checkpoint"
  curl -s -o /dev/null -I "$HTTP/checkpoint"
}

# off by default
serve o --http "tcp://127.0.0.1:$HPORT"
requests
stop o || true
grep -q "path=/checkpoint" "$WORK/o.log" && fail "access lines without --http-access-log"
pass "no access lines by default"

# text
serve o --http "tcp://127.0.0.1:$HPORT" --http-access-log
requests
stop o || true
size=$(wc -c <"$WORK/cp")
grep -Eq "info  http GET /checkpoint 200 method=GET path=/checkpoint status=200 bytes=[0-9]+ ms=[0-9.]+ peer=127.0.0.1$" "$WORK/o.log" ||
  fail "GET line: $(grep ' http ' "$WORK/o.log")"
bytes=$(grep -o "method=GET path=/checkpoint status=200 bytes=[0-9]*" "$WORK/o.log" | head -1 | sed 's/.*bytes=//')
[ "$bytes" -gt "$size" ] || fail "bytes=$bytes counts the answer with its head (body $size)"
grep -q "method=GET path=/tile/0/999 status=404 " "$WORK/o.log" || fail "404 line: $(grep ' http ' "$WORK/o.log")"
grep -q "method=POST path=/checkpoint status=405 " "$WORK/o.log" || fail "405 line: $(grep ' http ' "$WORK/o.log")"
grep -q "method=HEAD path=/checkpoint status=200 " "$WORK/o.log" || fail "HEAD line: $(grep ' http ' "$WORK/o.log")"
[ "$(grep -c ' http ' "$WORK/o.log")" = 4 ] || fail "one line per request: $(grep ' http ' "$WORK/o.log")"
pass "text: one line per request with method, path, status, bytes, ms and peer"

# json
: >"$WORK/o.log"
serve o --http "tcp://127.0.0.1:$HPORT" --http-access-log --log-format json
requests
curl -s -o /dev/null "$HTTP/tile/%ff%22x"
stop o || true
python3 - "$WORK/o.log" <<'PY' || fail "json lines: $(grep '"http ' "$WORK/o.log")"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
acc = [l for l in lines if "path" in l]
assert len(acc) == 5, acc
got = {(l["method"], l["path"], l["status"]) for l in acc}
assert ("GET", "/checkpoint", 200) in got and ("GET", "/tile/0/999", 404) in got, got
assert ("POST", "/checkpoint", 405) in got and ("HEAD", "/checkpoint", 200) in got, got
for l in acc:
    assert l["level"] == "info" and l["peer"] == "127.0.0.1", l
    assert isinstance(l["bytes"], int) and l["bytes"] > 0, l
    assert isinstance(l["ms"], (int, float)) and l["ms"] >= 0, l
    assert l["msg"].startswith("http "), l
print("ok")
PY
pass "json: the same fields, one object per line"
