#!/usr/bin/env bash
# Issue 25, part 4: whatever contradicts a checkpoint this client verified
# (or a citation's) is the alarm, exit 4 with the evidence kept, played by a
# lying server (rpc_liar.py: a proxy that refuses the proofs named) and by
# rolled-back and forked copies of the store:
#  - a larger checkpoint whose consistency proof the server will not give
#    (checkpoint, show, query, index, audit): the unproven checkpoint kept,
#    and not remembered;
#  - a run this client verified, denied with no proof of its absence;
#  - publish and key add against a rolled-back log: refused before anything
#    is signed or sent (the server's log does not grow), exit 5: a log
#    behind what this client verified contradicts nothing (issue 37.9);
#  - verify-citation against a forked log, and a citation whose inclusion
#    proof the server will not give (a log behind the citation: exit 5).
. "$KIX_TESTS/integration/lib.sh"

STORE="$WORK/log"
"$KIXD" init --store "$STORE" --admin-key "$STORE/admin.key" --origin kix.alarm/log >"$WORK/vkey" 2>/dev/null
export KIX_LOG_KEY="$(cat "$WORK/vkey")"
"$KIX" keygen --name pub --out "$WORK/pub" >/dev/null 2>&1
"$KIX" keygen --name other --out "$WORK/other" >/dev/null 2>&1
"$KIX" key add --store "$STORE" --key "$STORE/admin.key" --role publish "$WORK/pub.pub" >/dev/null
for i in 1 2 3 4 5 6; do make_manifests "$WORK/m$i" "$i"; done
# publish N [kix options...]: publishes run-N (manifests m N)
publish() {
  local n=$1; shift
  "$KIX" publish "$@" --key "$WORK/pub.key" --run-id "run-$n" "$WORK/m$n/run.json" \
    "$WORK/m$n/workload.json" >/dev/null
}
publish 1 --store "$STORE"
start_kixd "$STORE"

# start_liar METHOD=CODE...: a lying proxy in front of kixd; sets LIAR.
start_liar() {
  local sock="$WORK/liar-$RANDOM.sock"
  python3 "$KIX_TESTS/integration/rpc_liar.py" "$sock" "${KIXD_ADDR#unix://}" "$@" \
    2>>"$WORK/liar.log" &
  LIAR_PID=$!
  KIXD_PIDS+=("$LIAR_PID")
  for _ in $(seq 1 100); do [ -S "$sock" ] && break; sleep 0.05; done
  [ -S "$sock" ] || fail "the lying proxy did not come up"
  LIAR="unix://$sock"
}
stop_liar() { kill "$LIAR_PID" 2>/dev/null || true; wait "$LIAR_PID" 2>/dev/null || true; }
# server_size: the log size kixd serves, read by a client that remembers nothing.
server_size() {
  KIX_STATE_DIR="$WORK/look-$RANDOM" "$KIX" checkpoint --server "$KIXD_ADDR" | sed -n 2p
}
# expect_alarm STATE PATTERN NAME...: the last expect_status 4 printed the
# alarm matching PATTERN and kept STAMP-alarm.txt and each STAMP-NAME in
# STATE's evidence directory of the log.
expect_alarm() {
  local state=$1 pattern=$2 stamp name
  shift 2
  grep -q "ALARM: .*$pattern" "$WORK/err" || fail "no alarm '$pattern': $(cat "$WORK/err")"
  stamp=$(grep -o '([0-9]\{8\}T[0-9]\{6\}Z[.0-9]*-\*)' "$WORK/err" | tr -d '()*')
  [ -n "$stamp" ] || fail "the alarm does not say where its evidence is: $(cat "$WORK/err")"
  for name in alarm.txt "$@"; do
    EVIDENCE=$(echo "$state"/logs/kix.alarm_log+*/evidence/"$stamp$name")
    [ -s "$EVIDENCE" ] || fail "no evidence $stamp$name: $(ls "$state"/logs/*/evidence)"
  done
}

# --- a larger checkpoint, its consistency proof refused -----------------------
"$KIX" checkpoint --server "$KIXD_ADDR" >/dev/null
PINNED=$(sed -n 2p "$KIX_STATE_DIR"/logs/kix.alarm_log+*/checkpoint)
KIX_STATE_DIR="$WORK/writer" publish 2 --server "$KIXD_ADDR" # grows where this client does not look
KIX_STATE_DIR="$WORK/look" "$KIX" checkpoint --server "$KIXD_ADDR" >"$WORK/larger.checkpoint"
[ "$(sed -n 2p "$WORK/larger.checkpoint")" -gt "$PINNED" ] || fail "the log did not grow"
start_liar consistency_proof=-12
for cmd in checkpoint "show run-1" query "index run/run-1" audit; do
  # shellcheck disable=SC2086
  expect_status 4 "$KIX" $cmd --server "$LIAR"
  expect_alarm "$KIX_STATE_DIR" "cannot prove consistency" remembered.checkpoint presented.checkpoint
  cmp -s "$EVIDENCE" "$WORK/larger.checkpoint" || fail "kix $cmd kept $(cat "$EVIDENCE")"
  [ "$(sed -n 2p "$KIX_STATE_DIR"/logs/kix.alarm_log+*/checkpoint)" = "$PINNED" ] ||
    fail "kix $cmd remembered the unproven checkpoint"
done
# each alarm keeps its own evidence, even in the same second as another
[ "$(ls "$KIX_STATE_DIR"/logs/kix.alarm_log+*/evidence/*-presented.checkpoint | wc -l)" = 5 ] ||
  fail "evidence overwritten: $(ls "$KIX_STATE_DIR"/logs/*/evidence)"
# a write checks first: nothing is signed or sent to a log that cannot prove it
BEFORE=$(server_size)
expect_status 4 "$KIX" publish --server "$LIAR" --key "$WORK/pub.key" --run-id run-6 \
  "$WORK/m6/run.json" "$WORK/m6/workload.json"
expect_alarm "$KIX_STATE_DIR" "cannot prove consistency" remembered.checkpoint presented.checkpoint
[ "$(server_size)" = "$BEFORE" ] || fail "publish wrote to a log that cannot prove consistency"
stop_liar
expect_status 0 "$KIX" checkpoint --server "$KIXD_ADDR" # proven now: believed and remembered
# an older checkpoint asked for by size must be proven a prefix of the pinned one
start_liar consistency_proof=-12
expect_status 4 "$KIX" checkpoint --size 2 --server "$LIAR"
expect_alarm "$KIX_STATE_DIR" "cannot prove that the size .* extends its checkpoint at size 2" \
  remembered.checkpoint presented.checkpoint
stop_liar
pass "a larger checkpoint whose consistency proof is refused: exit 4, kept, not remembered"

# --- a run this client verified, denied without a proof of absence ----------
expect_status 0 "$KIX" resolve run-1 --server "$KIXD_ADDR"
start_liar resolve=-4 index_proof=-12
expect_status 4 "$KIX" show run-1 --server "$LIAR"
expect_alarm "$KIX_STATE_DIR" "says there is no run run-1 and cannot prove its absence" \
  remembered.checkpoint seen-run.txt presented.checkpoint
expect_status 4 "$KIX" resolve run-1 --server "$LIAR"
grep -q "verified its publication at log index" "$WORK/err" || fail "resolve: $(cat "$WORK/err")"
# a run never seen here: the unproven denial stands, as the server's word
expect_status 1 "$KIX" resolve run-2 --server "$LIAR"
grep -q "not proven absent" "$WORK/err" || fail "unseen run: $(cat "$WORK/err")"
grep -q ALARM "$WORK/err" && fail "an alarm for a run never seen: $(cat "$WORK/err")"
stop_liar
pass "a verified run denied without a proof of absence: exit 4, evidence kept"

# --- writes against a rolled-back log: nothing signed, nothing sent -----------
"$KIX" cite run-1 --server "$KIXD_ADDR" --json >"$WORK/cite1.json"
stop_kixd
cp -a "$STORE" "$WORK/old-store"
start_kixd "$STORE"
publish 3 --server "$KIXD_ADDR"
"$KIX" cite run-3 --server "$KIXD_ADDR" --json >"$WORK/cite3.json"
stop_kixd
rm -rf "$STORE" && mv "$WORK/old-store" "$STORE"
start_kixd "$STORE"
BEFORE=$(server_size)
# (behind what this client verified, and not proven a fork: exit 5, no
# evidence; a write there would fork the log)
AFTER=$(sed -n 2p "$KIX_STATE_DIR"/logs/*/checkpoint)
KEPT=$(ls "$KIX_STATE_DIR"/logs/*/evidence | wc -l)
expect_status 5 "$KIX" publish --server "$KIXD_ADDR" --key "$WORK/pub.key" --run-id run-4 \
  "$WORK/m4/run.json" "$WORK/m4/workload.json"
grep -q "refusing to write: the server serves the log at size $BEFORE, behind the size $AFTER this client verified before" \
  "$WORK/err" || fail "publish to a rolled-back log: $(cat "$WORK/err")"
[ "$(server_size)" = "$BEFORE" ] || fail "publish wrote to a rolled-back log"
expect_status 5 "$KIX" key add --server "$KIXD_ADDR" --key "$STORE/admin.key" --role attest \
  "$WORK/other.pub"
grep -q "refusing to write: .* size $BEFORE, behind the size $AFTER" "$WORK/err" || fail "key add: $(cat "$WORK/err")"
[ "$(server_size)" = "$BEFORE" ] || fail "key add wrote to a rolled-back log"
[ "$(ls "$KIX_STATE_DIR"/logs/*/evidence | wc -l)" = "$KEPT" ] || fail "evidence kept for a log behind"
pass "publish and key add refuse a log behind what this client verified before signing (exit 5); the log did not grow"

# --- verify-citation: rolled back, forked, its proof refused ------------------
# a log behind the citation (or the pin) contradicts nothing: stale, exit 5
expect_status 5 "$KIX" verify-citation --server "$KIXD_ADDR" "$WORK/cite3.json" # the pin
grep -q "at size $BEFORE, behind the cited checkpoint's size $AFTER: a stale copy" "$WORK/err" ||
  fail "pinned: $(cat "$WORK/err")"
# a reader who never looked at this log has the citation's signed checkpoint
export KIX_STATE_DIR="$WORK/reader1"
expect_status 5 "$KIX" verify-citation --server "$KIXD_ADDR" "$WORK/cite3.json"
grep -q "behind the cited checkpoint's size $AFTER: a stale copy" "$WORK/err" || fail "reader1: $(cat "$WORK/err")"
[ ! -e "$(echo "$KIX_STATE_DIR"/logs/*)/evidence" ] || fail "evidence kept for a log behind the citation"
# the same size, another tree: a fork
publish 4 --server "$KIXD_ADDR"
export KIX_STATE_DIR="$WORK/reader2"
expect_status 4 "$KIX" verify-citation --server "$KIXD_ADDR" "$WORK/cite3.json"
expect_alarm "$KIX_STATE_DIR" "different root .* than the cited checkpoint" cited.checkpoint \
  presented.checkpoint citation.json
# a larger tree that does not extend the cited one
KIX_STATE_DIR="$WORK/writer" publish 5 --server "$KIXD_ADDR"
export KIX_STATE_DIR="$WORK/reader3"
expect_status 4 "$KIX" verify-citation --server "$KIXD_ADDR" "$WORK/cite3.json"
expect_alarm "$KIX_STATE_DIR" "cannot prove its size .* extends the cited checkpoint" \
  cited.checkpoint presented.checkpoint citation.json
# an honest log whose server will not prove the cited entry
export KIX_STATE_DIR="$WORK/reader4"
expect_status 0 "$KIX" verify-citation --server "$KIXD_ADDR" "$WORK/cite1.json"
start_liar receipt=-4
expect_status 4 "$KIX" verify-citation --server "$LIAR" "$WORK/cite1.json"
expect_alarm "$KIX_STATE_DIR" "the citation's proof no longer verifies" cited.checkpoint \
  presented.checkpoint citation.json
stop_liar
# a citation that names another run than its entry is wrong, not the log
python3 - "$WORK/cite1.json" "$WORK/wrong.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["runId"] = "run-2"
json.dump(d, open(sys.argv[2], "w"))
PY
expect_status 1 "$KIX" verify-citation --server "$KIXD_ADDR" "$WORK/wrong.json"
grep -q "is not the publication of run run-2" "$WORK/err" || fail "wrong citation: $(cat "$WORK/err")"
pass "verify-citation: behind the citation is exit 5; forked or unproven is exit 4 with the evidence kept"
