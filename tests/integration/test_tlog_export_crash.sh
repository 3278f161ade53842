#!/usr/bin/env bash
# kixd serve --export under kill -9: while entries are published in small
# batches, kixd is killed at a random moment, three times; each time the
# export directory, served by nginx, is still a tree the outside client
# (tests/tlog-client) verifies completely (never a checkpoint naming tiles
# or bundles not yet written), consistent with the first checkpoint, whose
# every object kix audit finds (a partial bundle's run manifests in their
# pages, written before the checkpoint), and
# a restarted kixd brings it up to the store's size.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"
source "$(dirname "$0")/tlog_lib.sh"

new_origin "$WORK/o"
import "--store $WORK/o" 1 300 50 || fail "import: $(tail -3 "$WORK/import.log")"
VKEY=$(cat "$WORK/vkey")
mkdir -p "$WORK/exp"
start_nginx "$WORK/exp"
serve o --export "$WORK/exp"
wait_export "$WORK/exp" 302
"$CLIENT" -url "$NGINX_URL" -vkey "$VKEY" -all -save "$WORK/cp0" >/dev/null || fail "first export"

from=301
for round in 1 2 3; do
  [ "$round" = 1 ] || serve o --export "$WORK/exp"
  import "--server $(addr o)" "$from" $((from + 99)) 2 &
  ipid=$!
  sleep "0.$((RANDOM % 5 + 2))"
  kill -9 "$PID_o"
  wait "$PID_o" 2>/dev/null || true
  wait "$ipid" 2>/dev/null || true
  from=$((from + 100))
  exported=$(cp_size "$WORK/exp/checkpoint")
  "$CLIENT" -url "$NGINX_URL" -vkey "$VKEY" -all -old "$WORK/cp0" >"$WORK/c" \
    || fail "round $round: the export after kill -9 (at size $exported) does not verify"
  pass "round $round: killed with the export at size $exported: $(cat "$WORK/c")"
  # every object the checkpoint's entries need is there: a run manifest of
  # the partial bundle is in its page alone, written before the checkpoint
  KIX_STATE_DIR="$WORK/s-audit-$round" "$KIX" audit --server "$NGINX_URL/" --log-key "$WORK/vkey" \
    --no-cache >"$WORK/audit.txt" 2>"$WORK/err" ||
    fail "round $round: kix audit of the export after kill -9: $(cat "$WORK/err")"
  pass "round $round: kix audit reads every object of the export at size $exported"
done
serve o --export "$WORK/exp"
size=$(size_of o)
[ "$size" -gt 302 ] || fail "nothing was published before the kills"
wait_export "$WORK/exp" "$size"
"$CLIENT" -url "$NGINX_URL" -vkey "$VKEY" -all -old "$WORK/cp0" >"$WORK/c" || fail "after restart"
pass "restarted: the export caught up to $size: $(cat "$WORK/c")"
