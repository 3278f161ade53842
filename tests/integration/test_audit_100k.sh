#!/usr/bin/env bash
# An audit of a 100,000-entry log completes and reports its rate. The log is
# built through the real append path (tools/bench/kix_gen_log.c) and audited
# with the Release binaries when tools/test.sh has built them into build/
# (the suite's own ASan build would take minutes), else with the test build.
source "$(dirname "$0")/lib.sh"
bin=$(release_bin kix kix-gen-log)
N=${KIX_AUDIT_ENTRIES:-100000}
start=$(date +%s.%N)
"$bin/kix-gen-log" "$WORK/log" "$N" >"$WORK/vkey" || fail "building the log"
built=$(date +%s.%N)
export KIX_LOG_KEY="$(cat "$WORK/vkey")"
"$bin/kix" audit --store "$WORK/log" --json >"$WORK/audit.json" || fail "audit: $(cat "$WORK/audit.json")"
[ "$(json_get "$WORK/audit.json" 'd["passed"]')" = True ] || fail "audit did not pass"
[ "$(json_get "$WORK/audit.json" 'd["to"]')" = $((N + 2)) ] || fail "audit size"
echo "built $N entries in $(python3 -c "print('%.1f' % ($built - $start))") s with $bin;" \
  "audit: $(json_get "$WORK/audit.json" 'd["entries"]') entries in" \
  "$(json_get "$WORK/audit.json" 'd["seconds"]') s, $(json_get "$WORK/audit.json" 'd["entriesPerSecond"]') entries/s"
# resumable: a second audit has nothing new to check
"$bin/kix" audit --store "$WORK/log" --json >"$WORK/audit2.json"
[ "$(json_get "$WORK/audit2.json" 'd["entries"]')" = 0 ] || fail "the second audit re-checked entries"
pass "100k audit"
