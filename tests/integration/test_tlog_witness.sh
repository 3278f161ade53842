#!/usr/bin/env bash
# Witnesses over HTTP (c2sp.org/tlog-witness), real processes on free ports:
# - a kix witness (a mirror started with --witness-key and --http) answers
#   POST /add-checkpoint for an outside C2SP log it knows only by its
#   verifier key (--witness-log), checked case by case by c2sp_log.py, a log
#   and witness client of its own sharing no code with kix: 404 unknown
#   origin, 403 bad signature, 400 malformed, 409 with its size as
#   text/x.tlog.size, 422 bad proof or fork, 405, 413, state kept across a
#   restart, each cosignature verified as a C2SP tlog-cosignature;
# - a kix origin started with --http-witness gets that witness's
#   cosignatures for its own checkpoints over HTTP, stores them beside the
#   checkpoint (clients with --min-witnesses 1 accept it, and c2sp_log.py
#   verifies the line), and after a restart (it no longer knows the
#   witness's size) handles the witness's 409 and asks again from its size.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"
PY=/usr/bin/python3
C2SP=("$PY" "$KIX_TESTS/integration/c2sp_log.py")
"$PY" -c 'import nacl.signing' 2>/dev/null || fail "python3-nacl missing (tools/deps.sh installs it)"

"$KIX" keygen --witness --name witness.test --out "$WORK/w" >/dev/null 2>&1
WKEY=$(cat "$WORK/w.pub")
LOGKEY=$("${C2SP[@]}" init "$WORK/outside")
WPORT=$(free_port)
WURL="http://127.0.0.1:$WPORT"

# usage errors
expect_status 2 "$KIXD" serve --store "$WORK/none" --witness-log "$LOGKEY"
grep -q "needs --witness-key" "$WORK/err" || fail "--witness-log alone: $(cat "$WORK/err")"
expect_status 2 "$KIXD" serve --store "$WORK/none" --http-witness "$WURL"
grep -q 'expected "URL KEY"' "$WORK/err" || fail "--http-witness without a key: $(cat "$WORK/err")"
pass "usage: --witness-log needs --witness-key, --http-witness needs URL and KEY"

new_origin "$WORK/o"
import "--store $WORK/o" 1 10 5
expect_status 2 "$KIXD" serve --store "$WORK/o" --listen "unix://$WORK/x.sock" --http-witness "$WURL $WORK/vkey"
grep -q "not a witness cosignature key" "$WORK/err" || fail "--http-witness with a log key: $(cat "$WORK/err")"
expect_status 2 "$KIXD" serve --store "$WORK/o" --listen "unix://$WORK/x.sock" --http-witness "$WURL $WORK/nonexistent.pub"
expect_status 2 "$KIXD" serve --store "$WORK/o" --listen "unix://$WORK/x.sock" --witness-key "$WORK/w.key" --witness-log "not a key"
grep -q "witness-log not a key" "$WORK/err" || fail "--witness-log with a bad key: $(cat "$WORK/err")"
expect_status 2 "$KIXD" serve --store "$WORK/o" --listen "unix://$WORK/x.sock" --witness-key "$WORK/w.key" --witness-log "$WORK/w.pub"
grep -q "is not a log key" "$WORK/err" || fail "--witness-log with a witness key: $(cat "$WORK/err")"
expect_status 2 "$KIXD" serve --store "$WORK/none" --witness-key "$WORK/w.key" --witness-log "not a key"
[ ! -e "$WORK/none" ] || fail "a usage error touched the store directory"
pass "usage: bad or wrong keys for --http-witness and --witness-log exit 2 (before the store is opened)"
serve o --http-witness "$WURL $WORK/w.pub" --log-level debug
mirror m o --witness-key "$WORK/w.key" --http "tcp://127.0.0.1:$WPORT" --witness-log "$LOGKEY"
for _ in $(seq 1 100); do curl -s -o /dev/null "$WURL/checkpoint" && break; sleep 0.05; done

# the outside log, case by case
"${C2SP[@]}" scenario "$WORK/outside" "$WURL" "$WKEY" || fail "the witness protocol (above)"
grep -q "add-checkpoint for example.test/outside-log refused (422)" "$WORK/m.log" ||
  fail "a refused fork is not logged: $(grep witness "$WORK/m.log" | tail -3)"
stop m || true
mirror m o --witness-key "$WORK/w.key" --http "tcp://127.0.0.1:$WPORT" --witness-log "$LOGKEY"
for _ in $(seq 1 100); do curl -s -o /dev/null "$WURL/checkpoint" && break; sleep 0.05; done
"${C2SP[@]}" restarted "$WORK/outside" "$WURL" "$WKEY" || fail "the witness after a restart (above)"
state="$WORK/m/witness/$("$PY" -c 'import hashlib; print(hashlib.sha256(b"example.test/outside-log").hexdigest())')"
inode=$(stat -c %i "$state")
"${C2SP[@]}" again "$WORK/outside" "$WURL" "$WKEY" 15 || fail "the same checkpoint again (above)"
[ "$(stat -c %i "$state")" = "$inode" ] || fail "the same checkpoint again rewrote the witness state"
pass "the same checkpoint again is cosigned without rewriting the state (no fsync to replay)"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$WURL/add-checkpoint")
[ "$code" = 411 ] || fail "POST without a Content-Length: $code, want 411"
printf 'old 0\n\n' >"$WORK/body"
code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Transfer-Encoding: chunked' --data-binary @"$WORK/body" "$WURL/add-checkpoint")
[ "$code" = 411 ] || fail "a chunked POST: $code, want 411"
pass "a body without a Content-Length (none, or chunked) gets 411"

# a kixd that is not a mirror is a witness of the logs it is given
"$KIXD" init --store "$WORK/wonly" --admin-key "$WORK/wonly/admin.key" --origin wonly.test/log >/dev/null 2>&1
P3=$(free_port)
serve wonly --witness-key "$WORK/w.key" --witness-log "$LOGKEY" --http "tcp://127.0.0.1:$P3"
"${C2SP[@]}" once "$WORK/outside" "http://127.0.0.1:$P3" "$WKEY" || fail "a witness that is no mirror (above)"
code=$(curl -s -o /dev/null -w '%{http_code}' --data-binary @"$WORK/body" "$WURL/add-checkpointx")
[ "$code" = 413 ] || fail "POST to another path: $code, want 413 (a body where none is taken)"
stop wonly || true

# the kix origin asks the kix witness over HTTP
W=(--witness "$WORK/w.pub" --min-witnesses 1)
cosigned_at() { # cosigned_at SIZE: until the origin serves SIZE cosigned by the witness
  local i
  for i in $(seq 1 200); do
    "$KIX" checkpoint --server "$(addr o)" --log-key "$WORK/vkey" "${W[@]}" --json >"$WORK/cp.json" 2>/dev/null &&
      [ "$(json_get "$WORK/cp.json" 'd["size"]')" = "$1" ] && return 0
    sleep 0.1
  done
  grep -i witness "$WORK/o.log" | tail -5 >&2
  fail "the origin has no cosignature of size $1"
}
cosigned_at 12
json_get "$WORK/cp.json" 'd["checkpoint"]' >"$WORK/cp.txt"
"${C2SP[@]}" cosigned-note "$WORK/cp.txt" "$WKEY" || fail "the kix checkpoint's cosignature (above)"
grep -q "witness witness.test cosigned size 12" "$WORK/o.log" || fail "origin log: $(tail -3 "$WORK/o.log")"
pass "the origin got the kix witness's cosignature of size 12 over HTTP; it verifies as tlog-cosignature"

import "--server $(addr o)" 11 14 2
cosigned_at 16
pass "the next checkpoint (16) is cosigned after its commit, with a consistency proof"

# restarted, the origin starts from old size 0: the witness's 409 names 16
stop o || true
OPORT=$(free_port)
serve o --http-witness "$WURL $WORK/w.pub" --log-level debug --http "tcp://127.0.0.1:$OPORT" --http-metrics
import "--server $(addr o)" 15 15 1
cosigned_at 17
grep -Eq "has size 1[67] \(409 to old size 0\): asking again from it" "$WORK/o.log" ||
  fail "no 409 handled: $(grep -i witness "$WORK/o.log" | tail -5)"
pass "after a restart the origin took the witness's size from its 409 and was cosigned at 17"
curl -sf "http://127.0.0.1:$OPORT/metrics" >"$WORK/metrics" || fail "GET /metrics"
grep -qx 'kix_witness_cosigned_size{witness="witness.test"} 17' "$WORK/metrics" ||
  fail "cosigned size metric: $(grep witness "$WORK/metrics")"
awk '/^kixd_witness_requests_total\{witness="witness.test",result="409"\}/ { ok = $2 >= 1 } END { exit !ok }' "$WORK/metrics" ||
  fail "409 metric: $(grep witness "$WORK/metrics")"
awk '/^kixd_witness_requests_total\{witness="witness.test",result="200"\}/ { ok = $2 >= 2 } END { exit !ok }' "$WORK/metrics" ||
  fail "200 metric: $(grep witness "$WORK/metrics")"
pass "/metrics: the size each --http-witness last cosigned and its answers by result"

# the witness's state for the kix log is the one its mirror side cosigns through
wait_size m 17
ls "$WORK/m/witness/" | grep -q "^$("$PY" -c 'import hashlib; print(hashlib.sha256(b"kix.test/log").hexdigest())')$" ||
  fail "no witness state for kix.test/log in $(ls "$WORK/m/witness")"
pass "the witness keeps one state per origin in DIR/witness/"
