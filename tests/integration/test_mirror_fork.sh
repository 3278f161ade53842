#!/usr/bin/env bash
# Mirrors facing a lying upstream, with real kixd processes:
#  - a forked origin (two stores from one start, different entries after the
#    copy, served one after the other at the same address): mirrors detect
#    it and stop following, keep both signed checkpoints in DIR/fork/, report
#    it in kix mirror status and kix info, remember it across a restart; the
#    one with --fail-on-fork exits with status 4
#  - a rolled-back origin (an older copy) is a fork too
#  - a tampered upstream (one byte of an entry, or of an object): the mirror
#    refuses it, names the entry, and serves only what verified before it
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"

new_origin "$WORK/a"
import "--store $WORK/a" 1 30 10
cp -a "$WORK/a" "$WORK/b"
cp -a "$WORK/a" "$WORK/old"
import "--store $WORK/a" 31 35 1
import "--store $WORK/b" 41 50 1
export KIX_LOG_KEY="$WORK/vkey"

# ---- a fork: the same address serves b after a --------------------------------------
ln -s a "$WORK/o"
serve o
mirror m1 o
mirror m2 o --fail-on-fork
wait_size m1 37
wait_size m2 37
"$KIX" checkpoint --server "$(addr m1)" >"$WORK/cp-a"
stop o || true
rm "$WORK/o" && ln -s b "$WORK/o"
serve o
[ "$(size_of o)" = 42 ] || fail "the forked origin's size"
rc=0
for i in $(seq 1 100); do kill -0 "$PID_m2" 2>/dev/null || break; sleep 0.1; done
wait "$PID_m2" || rc=$?
[ "$rc" = 4 ] || fail "the mirror with --fail-on-fork exited $rc, want 4: $(tail -3 "$WORK/m2.log")"
grep -q "FORK: the upstream signed a different root for size 37" "$WORK/m2.log" || fail "m2 log: $(tail -3 "$WORK/m2.log")"
pass "--fail-on-fork: the mirror exits 4 when the upstream forks"

for i in $(seq 1 100); do
  "$KIX" mirror status --server "$(addr m1)" --json >"$WORK/st.json" 2>/dev/null && continue
  [ $? = 4 ] && break
  sleep 0.1
done
[ "$(json_get "$WORK/st.json" 'd["fork"]["size"]')" = 37 ] || fail "mirror status: $(cat "$WORK/st.json")"
grep -q "different root for size 37" <<<"$(json_get "$WORK/st.json" 'd["fork"]["reason"]')" ||
  fail "fork reason: $(cat "$WORK/st.json")"
[ "$(json_get "$WORK/st.json" 'd["fork"]["evidence"]')" = "$WORK/m1/fork" ] || fail "evidence dir"
expect_status 4 "$KIX" mirror status --server "$(addr m1)"
grep -q "^fork           FOUND at size 37" "$WORK/out" || fail "mirror status text: $(cat "$WORK/out")"
"$KIX" info --server "$(addr m1)" >"$WORK/info.txt"
grep -q "^FORK     found at size 37" "$WORK/info.txt" || fail "kix info: $(cat "$WORK/info.txt")"
info_json m1
[ "$(json_get "$WORK/info.json" 'd["fork"]["size"]')" = 37 ] || fail "kix info --json: $(cat "$WORK/info.json")"
# both checkpoints, signed by the log key, same size, different roots
for f in local upstream; do
  [ "$(sed -n 1p "$WORK/m1/fork/$f.checkpoint")" = kix.test/log ] || fail "$f.checkpoint origin"
  [ "$(sed -n 2p "$WORK/m1/fork/$f.checkpoint")" = 37 ] || fail "$f.checkpoint size"
done
[ "$(sed -n 3p "$WORK/m1/fork/local.checkpoint")" != "$(sed -n 3p "$WORK/m1/fork/upstream.checkpoint")" ] ||
  fail "the evidence shows no fork"
cmp "$WORK/m1/fork/local.checkpoint" "$WORK/cp-a" || fail "local evidence is not what the mirror served"
"$KIX" checkpoint --server "$(addr o)" --size 37 | cmp - "$WORK/m1/fork/upstream.checkpoint" ||
  fail "upstream evidence is not the forked origin's checkpoint"
# it keeps serving what it verified, and nothing of the fork
"$KIX" checkpoint --server "$(addr m1)" | cmp - "$WORK/cp-a" || fail "the mirror moved"
KIX_STATE_DIR="$WORK/s1" "$KIX" audit --server "$(addr m1)" >/dev/null || fail "audit of the stopped mirror"
pass "fork found at size 37: both signed checkpoints kept; mirror status and info report it"

# a restart remembers it: no following, and --fail-on-fork refuses to start
stop m1 || true
mirror m1 o
sleep 2.5
[ "$(size_of m1)" = 37 ] || fail "the restarted mirror followed the fork"
expect_status 4 "$KIX" mirror status --server "$(addr m1)"
stop m1 || true
rc=0
"$KIXD" serve --store "$WORK/m1" --listen "unix://$WORK/m1.sock" --mirror-of "$(addr o)" \
  --upstream-key "$WORK/vkey" --fail-on-fork 2>"$WORK/m1b.log" || rc=$?
[ "$rc" = 4 ] || fail "restart with --fail-on-fork exited $rc: $(cat "$WORK/m1b.log")"
grep -q "forked (found earlier, evidence in" "$WORK/m1b.log" || fail "restart message: $(cat "$WORK/m1b.log")"
pass "the fork is remembered across a restart"

# ---- a rollback: an older copy at the same address -----------------------------------
stop o || true
rm "$WORK/o" && ln -s a "$WORK/o"
serve o
mirror m4 o
wait_size m4 37
stop o || true
rm "$WORK/o" && ln -s old "$WORK/o"
serve o
for i in $(seq 1 100); do
  "$KIX" mirror status --server "$(addr m4)" --json >"$WORK/st.json" 2>/dev/null || break
  sleep 0.1
done
grep -q "went back from size 37, which this mirror verified, to size 32" \
  <<<"$(json_get "$WORK/st.json" 'd["fork"]["reason"]')" || fail "rollback: $(cat "$WORK/st.json")"
pass "a rolled-back origin is caught as a fork"

# ---- tampered upstreams -------------------------------------------------------------
stop o || true
cp -a "$WORK/a" "$WORK/t1"
cp -a "$WORK/a" "$WORK/t2"
"$KIX_BIN/kix-tamper" "$WORK/t1" leaves u64:33 70
"$KIX_BIN/kix-tamper" "$WORK/t2" blobs u64:20 30
serve t1 --no-store-check  # a lying upstream serves what it has
serve t2 --no-store-check
mirror m5 t1
mirror m6 t2
for i in $(seq 1 100); do
  info_json m5
  [ "$(json_get "$WORK/info.json" '"lastError" in d')" = True ] && break
  sleep 0.1
done
grep -q "^entry 33: " <<<"$(json_get "$WORK/info.json" 'd["lastError"]')" ||
  fail "tampered entry not named: $(cat "$WORK/info.json")"
[ "$(json_get "$WORK/info.json" 'd["size"]')" = 33 ] || fail "m5 keeps $(json_get "$WORK/info.json" 'd["size"]'), want the 33 entries before"
grep -q "error mirror of .*: entry 33: " "$WORK/m5.log" || fail "m5 log: $(tail -3 "$WORK/m5.log")"
for i in $(seq 1 100); do
  info_json m6
  [ "$(json_get "$WORK/info.json" '"lastError" in d')" = True ] && break
  sleep 0.1
done
json_get "$WORK/info.json" 'd["lastError"]' >"$WORK/e6"
grep -q "^entry [0-9]*: .* answered bytes that do not hash to sha256:" "$WORK/e6" ||
  fail "tampered object not named: $(cat "$WORK/e6")"
bad=$(sed 's/^entry \([0-9]*\):.*/\1/' "$WORK/e6")
[ "$(json_get "$WORK/info.json" 'd["size"]')" -le "$bad" ] || fail "m6 stored the entry with the bad object"
for m in m5 m6; do
  KIX_STATE_DIR="$WORK/s-$m" "$KIX" audit --server "$(addr $m)" >/dev/null || fail "audit of $m"
  [ "$(json_get <("$KIX" info --server "$(addr $m)" --json) '"fork" in d')" = False ] || fail "$m: tamper is no fork"
done
pass "tampered entry 33 and an object of entry $bad refused and named; the verified prefix is served"
