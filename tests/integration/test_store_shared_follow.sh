#!/usr/bin/env bash
# A follower of kixd hears of entries another process appended to kixd's
# store while kixd itself is idle (ARCHITECTURE.md, "Several processes on
# one store"): kixd serves DIR, a follow stream (follow_probe.py, the
# follow method as a mirror uses it) waits at the end of the log, and
# `kix publish --store DIR` appends beside kixd. kixd's idle writer
# notices the other process's commit (daemon/writer/writer.c, watch) and
# wakes the followers, as its own commit would. Before, the stream stayed
# silent until kixd's own next commit: the follower below waited its 60 s
# out at the old size. The run also resolves through kixd, and kixd's
# latest checkpoint is at the new size.
. "$KIX_TESTS/integration/lib.sh"

STORE="$WORK/log"
"$KIXD" init --store "$STORE" --admin-key "$STORE/admin.key" --origin kix.shared/log >"$WORK/vkey" 2>/dev/null
export KIX_LOG_KEY="$(cat "$WORK/vkey")"
"$KIX" keygen --name pub --out "$WORK/pub" >/dev/null 2>&1
"$KIX" key add --store "$STORE" --key "$STORE/admin.key" --role publish "$WORK/pub.pub" >/dev/null
for i in 1 2 3; do make_manifests "$WORK/m$i" "$i"; done
# publish N [kix options...]: publishes run-N (manifests m N)
publish() {
  local n=$1; shift
  "$KIX" publish "$@" --key "$WORK/pub.key" --run-id "run-$n" "$WORK/m$n/run.json" \
    "$WORK/m$n/workload.json" >/dev/null 2>>"$WORK/publish.err"
}
# size_of ARGS...: the size kix info reports (of --server or --store)
size_of() { "$KIX" info "$@" --json >"$WORK/info" 2>"$WORK/err" || fail "kix info $*: $(cat "$WORK/err")"; json_get "$WORK/info" 'd["size"]'; }
# checkpoint_size: the size of kixd's latest signed checkpoint, verified
checkpoint_size() {
  "$KIX" checkpoint --server "$KIXD_ADDR" >"$WORK/cp" 2>"$WORK/err" || fail "kix checkpoint: $(cat "$WORK/err")"
  sed -n 2p "$WORK/cp"
}

start_kixd "$STORE"
# kixd's own commit first: its writer has a size of its own to be behind
KIX_STATE_DIR="$WORK/state-kixd" publish 1 --server "$KIXD_ADDR" || fail "publish through kixd: $(cat "$WORK/publish.err")"
before=$(checkpoint_size)
[ "$before" = "$(size_of --server "$KIXD_ADDR")" ] || fail "kix info and kix checkpoint disagree"

# follow ROUND: a follower from the end of the log, then a publication
# --store beside kixd (run-ROUND); the follower must reach the store's new
# size, and kixd serve it (a resolve, its checkpoint)
follow() {
  local n=$1 from after got
  from=$(size_of --server "$KIXD_ADDR")
  : >"$WORK/follow.err"
  python3 "$KIX_TESTS/integration/follow_probe.py" "$KIXD_ADDR" "$from" 60 --until $((from + 1)) \
    >"$WORK/follow.out" 2>"$WORK/follow.err" &
  local probe=$!
  # kixd answered the follow call: the stream waits at `from` (up to 60 s:
  # python's start alone took seconds on a loaded machine)
  for _ in $(seq 1 600); do
    grep -q "^following $from\$" "$WORK/follow.err" && break
    kill -0 "$probe" 2>/dev/null || fail "the follower ended: $(cat "$WORK/follow.err")"
    sleep 0.1
  done
  grep -q "^following $from\$" "$WORK/follow.err" || fail "the follower did not start: $(cat "$WORK/follow.err")"
  KIX_STATE_DIR="$WORK/state-store" publish "$n" --store "$STORE" || fail "publish --store beside kixd: $(cat "$WORK/publish.err")"
  after=$(size_of --store "$STORE")
  [ "$after" -gt "$from" ] || fail "publish --store did not grow the log ($from, $after)"
  wait "$probe" || fail "the follower failed: $(cat "$WORK/follow.err")"
  got=$(cat "$WORK/follow.out")
  [ "$got" -ge "$from" ] 2>/dev/null || fail "the follower printed '$got': $(cat "$WORK/follow.err")"
  [ "$got" -gt "$from" ] || fail "round $n: the follower heard nothing of the entries appended beside kixd (it stayed at $got; the store is at $after)"
  "$KIX" resolve "run-$n" --server "$KIXD_ADDR" >/dev/null 2>"$WORK/err" ||
    fail "run-$n does not resolve through kixd: $(cat "$WORK/err")"
  [ "$(checkpoint_size)" -ge "$after" ] || fail "kixd's checkpoint stayed at $(checkpoint_size), the store is at $after"
  pass "round $n: a follower of kixd heard of the entries appended beside it ($from -> $got), run-$n resolves through kixd, its checkpoint is at $(checkpoint_size)"
}
follow 2
follow 3 # and again: kixd's watch noticed the first, and still looks

# kixd's own append goes on after the others', and kixd stops cleanly on
# SIGTERM (the watch ends with its writer)
make_manifests "$WORK/m4" 4
KIX_STATE_DIR="$WORK/state-kixd" publish 4 --server "$KIXD_ADDR" || fail "publish through kixd after the others: $(cat "$WORK/publish.err")"
kill -TERM "$KIXD_PID"
status=0
wait "$KIXD_PID" || status=$?
[ "$status" -eq 0 ] || fail "kixd exited $status on SIGTERM: $(tail -3 "$WORK/kixd.log")"
"$KIXD" check --store "$STORE" >"$WORK/check" 2>&1 || fail "kixd check: $(cat "$WORK/check")"
pass "kixd appends after them, stops on SIGTERM with status 0, and kixd check passes"
