#!/usr/bin/env bash
# Issue 18, the operator's view: kixd gives each request an id and logs its
# refusals (method, peer, cause) and its slow answers (ms), in both
# --log-format text (key=value fields) and json (fields of the object).
. "$KIX_TESTS/integration/lib.sh"

"$KIXD" init --store "$WORK/log" --admin-key "$WORK/log/admin.key" --origin kix.reqlog/log >"$WORK/vkey" 2>/dev/null
export KIX_LOG_KEY="$(cat "$WORK/vkey")"
"$KIX" keygen --name gone --out "$WORK/gone" >/dev/null 2>&1
"$KIX" key add --store "$WORK/log" --key "$WORK/log/admin.key" --role publish "$WORK/gone.pub" >/dev/null
"$KIX" key revoke --store "$WORK/log" --key "$WORK/log/admin.key" "$WORK/gone.pub" >/dev/null
make_manifests "$WORK/m" 1

# requests that kixd refuses: an unknown method (the whole request), a
# bundle signed by a revoked key (one bundle of a submit)
exercise() {
  python3 - "${KIXD_ADDR#unix://}" <<'PY' || fail "raw request"
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.sendall(bytes([0x94, 0x00, 0x07, 0xa6]) + b"nosuch" + bytes([0x91, 0x80]))
assert s.recv(4096)[:3] == bytes([0x94, 0x01, 0x07]), "no answer"
s.sendall(bytes([0x94, 0x00, 0x08, 0xa4]) + b"info" + bytes([0x90]))  # params not [{}]
assert s.recv(4096)[:3] == bytes([0x94, 0x01, 0x08]), "no answer"
PY
  expect_status 1 "$KIX" publish --server "$KIXD_ADDR" --key "$WORK/gone.key" "$WORK/m/run.json" "$WORK/m/workload.json"
  expect_status 0 "$KIX" info --server "$KIXD_ADDR"
}

: >"$WORK/kixd.log"
KIXD_EXTRA=(--log-level info --log-format text)
start_kixd "$WORK/log"
exercise
stop_kixd
python3 - "$WORK/kixd.log" <<'PY' || fail "text request lines: $(cat "$WORK/kixd.log")"
import re, shlex, sys
lines = [l for l in open(sys.argv[1]).read().splitlines() if " req=" in l]
def fields(l):
    return dict(kv.split("=", 1) for kv in shlex.split(l[l.index(" req="):]))
q = [fields(l) for l in lines if "request refused: unknown method" in l]
assert len(q) == 1 and q[0]["cause"] == "EINVAL" and q[0]["peer"] and float(q[0]["ms"]) >= 0, lines
s = [(l, fields(l)) for l in lines if "bundle 0 of 1 refused: " in l]
assert len(s) == 1 and s[0][1]["method"] == "submit" and s[0][1]["cause"] == "EPOLICY", lines
assert "revoked" in s[0][0] and re.match(r"^\S+ info  bundle", s[0][0]), s
assert int(s[0][1]["req"]) != int(q[0]["req"])
assert not any("slow request" in l for l in lines), lines  # all fast at the default 1000 ms
PY
pass "text: refusals with req, method, peer, cause and ms"

: >"$WORK/kixd.log"
KIXD_EXTRA=(--log-level info --log-format json --log-slow-ms 0)
start_kixd "$WORK/log"
exercise
stop_kixd
python3 - "$WORK/kixd.log" <<'PY' || fail "json request lines: $(cat "$WORK/kixd.log")"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]).read().splitlines()]
req = [r for r in rows if "req" in r]
refused = [r for r in req if r["msg"].startswith("request refused: ")]
# (a refused publish makes kix ask whether the run is already in the log,
# by manifest digest, then by run id: two resolves answered ENOTFOUND)
lookups = [r for r in refused if r["method"] == "resolve"]
assert [r["cause"] for r in lookups] == ["ENOTFOUND", "ENOTFOUND"], req
refused = [r for r in refused if r["method"] != "resolve"]
assert [(r["method"], r["cause"]) for r in refused] == [("(unknown method)", "EINVAL"), ("(malformed)", "EPROTO")], req
assert "ms" not in refused[1], refused
bundle = [r for r in req if r["msg"].startswith("bundle 0 of 1 refused")]
assert len(bundle) == 1 and bundle[0]["cause"] == "EPOLICY" and bundle[0]["level"] == "info", req
slow = [r for r in req if r["msg"] == "slow request"]
assert {"info", "checkpoint", "submit"} <= {r["method"] for r in slow}, slow
for r in slow:
    assert r["level"] == "warn" and isinstance(r["ms"], float) and r["peer"] and "cause" not in r, r
    assert set(r) == {"time", "level", "msg", "req", "method", "peer", "ms"}, r
ids = [r["req"] for r in slow + refused]
assert len(set(ids)) == len(ids) and min(ids) >= 1, ids
# a submit's refused bundle and its slow answer carry the same id
assert bundle[0]["req"] in {r["req"] for r in slow if r["method"] == "submit"}, (bundle, slow)
PY
pass "json: req, method, peer, cause, ms; --log-slow-ms 0 logs every answer as slow"
expect_status 2 "$KIXD" serve --store "$WORK/log" --log-slow-ms soon
