#!/usr/bin/env bash
# Mirrors, with real kixd processes:
#  - origin → mirror → mirror of the mirror while publishing continues: all
#    three converge to byte-identical checkpoints, entries and objects;
#    readers of the last mirror only ever see checkpoints that verify;
#    resolve and audit against it pass with the origin's key; writes are
#    refused; kix mirror status reports the lag
#  - a mirror killed with -9 in the middle of its catch-up resumes where it
#    stopped and converges; what it serves meanwhile always verifies
#  - the origin down: mirrors keep serving, report the error and the lag,
#    and catch up when it is back at the same address
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"

new_origin "$WORK/o"
import "--store $WORK/o" 1 600 50
serve o
export KIX_LOG_KEY="$WORK/vkey"
[ "$(size_of o)" = 602 ] || fail "origin size"

# ---- a chain while publishing continues -------------------------------------------
mirror m1 o --mirror-batch 200
mirror m2 m1 --mirror-batch 200
wait_size m2 602
import "--server $(addr o)" 601 800 5 &
IMPORT_PID=$!
# every checkpoint a reader of the last mirror gets verifies, at every size
seen=0
while kill -0 "$IMPORT_PID" 2>/dev/null; do
  "$KIX" checkpoint --server "$(addr m2)" >"$WORK/cp" 2>"$WORK/err" || {
    cat "$WORK/err"
    fail "a checkpoint from the mirror of the mirror does not verify"
  }
  seen=$((seen + 1))
  sleep 0.1
done
wait "$IMPORT_PID" || fail "publishing to the origin failed: $(tail -3 "$WORK/import.log")"
[ "$(size_of o)" = 802 ] || fail "origin size after publishing"
wait_size m1 802
wait_size m2 802
pass "origin, mirror and mirror of the mirror reach size 802 ($seen verified reads meanwhile)"

for s in o m1 m2; do
  "$KIX" checkpoint --server "$(addr $s)" >"$WORK/cp-$s" || fail "checkpoint of $s"
  "$KIX" log --server "$(addr $s)" --from 0 --limit 100000 --json >"$WORK/log-$s" || fail "log of $s"
done
cmp "$WORK/cp-o" "$WORK/cp-m1" && cmp "$WORK/cp-o" "$WORK/cp-m2" || fail "checkpoints differ"
cmp "$WORK/log-o" "$WORK/log-m1" && cmp "$WORK/log-o" "$WORK/log-m2" || fail "entries differ"
[ "$(json_get "$WORK/log-m2" 'len(d["entries"])')" = 802 ] || fail "kix log lists $(json_get "$WORK/log-m2" 'len(d["entries"])')"
# the checkpoint at an older size, too: the mirrors keep every upstream checkpoint
"$KIX" checkpoint --server "$(addr o)" --size 302 >"$WORK/cp302-o"
"$KIX" checkpoint --server "$(addr m2)" --size 302 >"$WORK/cp302-m2"
cmp "$WORK/cp302-o" "$WORK/cp302-m2" || fail "checkpoints at size 302 differ"
# objects: run manifests and what they reference, by get_objects
digests=$(cat "$WORK"/rows-*.map | grep -o '"digest":"sha256:[0-9a-f]*"' | cut -d'"' -f4 | awk 'NR % 20 == 1')
"$KIX" get --server "$(addr o)" $(echo "$digests" | head -1) >"$WORK/manifest.json"
refs=$(grep -o 'sha256:[0-9a-f]\{64\}' "$WORK/manifest.json" | sort -u)
for s in o m1 m2; do
  python3 "$KIX_TESTS/integration/get_objects.py" "$(addr $s)" $digests $refs >"$WORK/objects-$s" ||
    fail "get_objects from $s"
done
grep -q missing "$WORK/objects-o" && fail "the origin lacks an object of the sample"
[ "$(wc -l <"$WORK/objects-o")" -ge 40 ] || fail "sample of $(wc -l <"$WORK/objects-o") objects"
cmp "$WORK/objects-o" "$WORK/objects-m1" && cmp "$WORK/objects-o" "$WORK/objects-m2" ||
  fail "objects differ"
pass "byte-identical checkpoints, $(json_get "$WORK/log-o" 'len(d)') entries and $(wc -l <"$WORK/objects-o") sampled objects"

run=$(grep -o '"runId":"[^"]*"' "$WORK/rows-601-800.map" | tail -1 | cut -d'"' -f4)
"$KIX" resolve --server "$(addr m2)" "$run" --json >"$WORK/res.json" || fail "resolve on the last mirror"
[ "$(json_get "$WORK/res.json" 'd["runId"]')" = "$run" ] || fail "resolved run"
"$KIX" audit --server "$(addr m2)" --json >"$WORK/audit.json" || fail "audit of the last mirror"
[ "$(json_get "$WORK/audit.json" 'd["passed"]')" = True ] || fail "audit: $(cat "$WORK/audit.json")"
[ "$(json_get "$WORK/audit.json" 'd["to"]')" = 802 ] || fail "audit size"
pass "resolve and audit against the mirror of the mirror pass with the origin's key"

make_manifests "$WORK/mm" 1
expect_status 1 "$KIX" publish --server "$(addr m2)" --key "$WORK/pub.key" "$WORK/mm/run.json" "$WORK/mm/workload.json"
grep -q "read-only mirror of kix.test/log" "$WORK/err" || fail "write refusal: $(cat "$WORK/err")"
"$KIX" mirror status --server "$(addr m2)" --json >"$WORK/st.json" || fail "mirror status"
[ "$(json_get "$WORK/st.json" 'd["upstream"]')" = "$(addr m1)" ] || fail "status upstream"
[ "$(json_get "$WORK/st.json" '(d["size"], d["upstreamSize"], d["lagEntries"])')" = "(802, 802, 0)" ] ||
  fail "status: $(cat "$WORK/st.json")"
[ "$(json_get "$WORK/st.json" '(d["fork"], d["lastError"])')" = "(None, None)" ] || fail "status: $(cat "$WORK/st.json")"
[ "$(json_get "$WORK/st.json" 'd["lagSeconds"] <= 3')" = True ] || fail "lagSeconds: $(cat "$WORK/st.json")"
expect_status 1 "$KIX" mirror status --server "$(addr o)"
grep -q "not a mirror" "$WORK/err" || fail "mirror status of the origin: $(cat "$WORK/err")"
pass "writes to a mirror are refused; kix mirror status reports upstream and lag"

# ---- kill -9 in the middle of a catch-up, then resume -------------------------------
mirror m3 o --mirror-batch 10
caught=
for i in $(seq 1 400); do
  s=$(size_of m3 2>/dev/null || echo 0)
  if [ "$s" -gt 2 ] && [ "$s" -lt 802 ]; then
    kill -9 "$PID_m3"
    caught=$s
    break
  fi
  sleep 0.02
done
wait "$PID_m3" 2>/dev/null || true
[ -n "$caught" ] || fail "could not catch the mirror in the middle of its catch-up (size $s)"
mirror m3 o --mirror-batch 10
grep -q "mirror of log kix.test/log (size [1-9]" "$WORK/m3.log" || fail "restart did not resume: $(tail -3 "$WORK/m3.log")"
# a fresh client state: this reader never saw the origin's size
reads=0
while [ "$(size_of m3)" != 802 ]; do
  KIX_STATE_DIR="$WORK/state-m3" "$KIX" checkpoint --server "$(addr m3)" >/dev/null 2>"$WORK/err" ||
    fail "a checkpoint of the resuming mirror does not verify: $(cat "$WORK/err")"
  KIX_STATE_DIR="$WORK/state-m3" "$KIX" audit --server "$(addr m3)" --json >"$WORK/a3.json" 2>"$WORK/err" ||
    fail "audit of the resuming mirror: $(cat "$WORK/err")"
  reads=$((reads + 1))
  [ "$reads" -lt 300 ] || fail "the resumed mirror does not converge"
done
"$KIX" checkpoint --server "$(addr m3)" | cmp - "$WORK/cp-o" || fail "resumed mirror's checkpoint"
pass "killed at size $caught mid-catch-up, resumed, converged ($reads verified reads and audits meanwhile)"

# ---- the origin goes away and comes back --------------------------------------------
stop o || true
sleep 2.5
info_json m1
grep -q "cannot connect" <<<"$(json_get "$WORK/info.json" 'd["lastError"]')" || fail "lastError: $(cat "$WORK/info.json")"
[ "$(json_get "$WORK/info.json" 'd["lagSeconds"] >= 2')" = True ] || fail "lagSeconds: $(cat "$WORK/info.json")"
"$KIX" resolve --server "$(addr m1)" "$run" >/dev/null || fail "the mirror stopped serving"
serve o
import "--server $(addr o)" 801 810 5
wait_size m1 812
wait_size m2 812
info_json m1
[ "$(json_get "$WORK/info.json" '"lastError" in d')" = False ] || fail "lastError stays: $(cat "$WORK/info.json")"
pass "origin down: mirrors serve and report it; back: they catch up"
