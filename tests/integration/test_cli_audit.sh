#!/usr/bin/env bash
# Issue 18, kix audit: one resumable replica per log AND per source, so an
# audit of a local store after an audit through a server is not "0 checked
# now" (the store was never audited), while each source still resumes.
. "$KIX_TESTS/integration/lib.sh"

"$KIXD" init --store "$WORK/log" --admin-key "$WORK/log/admin.key" --origin kix.audit/log >"$WORK/vkey" 2>/dev/null
export KIX_LOG_KEY="$(cat "$WORK/vkey")"
"$KIX" keygen --name pub --out "$WORK/pub" >/dev/null 2>&1
"$KIX" key add --store "$WORK/log" --key "$WORK/log/admin.key" --role publish "$WORK/pub.pub" >/dev/null
for i in 1 2 3; do
  make_manifests "$WORK/m$i" $i
  "$KIX" publish --store "$WORK/log" --key "$WORK/pub.key" "$WORK/m$i/run.json" "$WORK/m$i/workload.json" >/dev/null
done
serve() { # on one fixed address, so that the server is the same source each time
  "$KIXD" serve --store "$WORK/log" --listen "unix://$WORK/k.sock" --log-level warn 2>>"$WORK/kixd.log" &
  KIXD_PID=$!; KIXD_PIDS+=("$KIXD_PID"); KIXD_ADDR="unix://$WORK/k.sock"
  for _ in $(seq 1 100); do "$KIX" info --server "$KIXD_ADDR" >/dev/null 2>&1 && return 0; sleep 0.05; done
  fail "kixd did not come up"
}
serve
expect_status 0 "$KIX" audit --server "$KIXD_ADDR"
grep -q "all 5 entries .* (5 checked now, 0 by earlier audits)" "$WORK/out" || fail "server audit: $(cat "$WORK/out")"
stop_kixd
expect_status 0 "$KIX" audit --store "$WORK/log"
grep -q "all 5 entries .* (5 checked now, 0 by earlier audits)" "$WORK/out" ||
  fail "a store audit reused the server's replica: $(cat "$WORK/out")"
# each source resumes its own
make_manifests "$WORK/m4" 4
"$KIX" publish --store "$WORK/log" --key "$WORK/pub.key" "$WORK/m4/run.json" "$WORK/m4/workload.json" >/dev/null
expect_status 0 "$KIX" audit --store "$WORK/log"
grep -q "all 6 entries .* (1 checked now, 5 by earlier audits)" "$WORK/out" || fail "store resume: $(cat "$WORK/out")"
# the same store by another spelling of its path is the same source
expect_status 0 "$KIX" audit --store "$WORK/./log/"
grep -q "(0 checked now, 6 by earlier audits)" "$WORK/out" || fail "same store, other path: $(cat "$WORK/out")"
serve
expect_status 0 "$KIX" audit --server "$KIXD_ADDR" --json
[ "$(json_get "$WORK/out" 'd["from"]')" = 5 ] || fail "server resume: $(cat "$WORK/out")"
stop_kixd
[ "$(ls -d "$KIX_STATE_DIR"/logs/*/audit-* | wc -l)" = 2 ] ||
  fail "replicas: $(ls -d "$KIX_STATE_DIR"/logs/*/audit-*)" # the store's and the server's
pass "one audit replica per log and per source"
