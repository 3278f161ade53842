#!/usr/bin/env bash
# The auditor and mirror operator of a static copy (issue 37, items 9-11):
# kix trust takes the http(s):// copies --server takes; a copy that lags
# behind what a client verified is stale (exit 5, both sizes named, the
# answer as of its size), not an alarm; exit 4 and evidence only for a
# proven contradiction (a fork); --max-age from the witnesses' cosignature
# timestamps; kix audit of a copy checks every file it serves to others.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"
source "$(dirname "$0")/tlog_lib.sh"

new_origin "$WORK/o"
import "--store $WORK/o" 1 300 50 || fail "import: $(tail -3 "$WORK/import.log")"
HPORT=$(free_port)
H="http://127.0.0.1:$HPORT/"
serve o --http "tcp://127.0.0.1:$HPORT"
OLD=$(size_of o)
# the copy: an export of the log as it was (a CDN that lags behind)
"$KIXD" export --store "$WORK/o" "$WORK/copy" >/dev/null 2>"$WORK/err" || fail "kixd export: $(cat "$WORK/err")"
CPORT=$(free_port)
C="http://127.0.0.1:$CPORT/"
python3 "$KIX_TESTS/integration/static_server.py" "$WORK/copy" "$CPORT" 2>>"$WORK/static.log" &
KIXD_PIDS+=("$!")
for _ in $(seq 1 100); do curl -s -o /dev/null "${C}checkpoint" && break; sleep 0.05; done

# ---- kix trust: any address --server takes ----
KIX_LOG_KEY= XDG_CONFIG_HOME=/nonexistent KIX_STATE_DIR="$WORK/s-trust" \
  "$KIX" trust "$C" >"$WORK/out" 2>"$WORK/err" || fail "kix trust $C: $(cat "$WORK/err")"
[ "$(cat "$WORK/out")" = "$(cat "$WORK/vkey")" ] || fail "kix trust $C printed $(cat "$WORK/out")"
grep -q "says its log is kix.test/log (size $OLD)" "$WORK/err" || fail "kix trust $C: $(cat "$WORK/err")"
KIX_LOG_KEY= XDG_CONFIG_HOME=/nonexistent KIX_STATE_DIR="$WORK/s-trust" \
  "$KIX" --json trust --server "$C" >"$WORK/out" 2>"$WORK/err" || fail "kix trust --server $C: $(cat "$WORK/err")"
[ "$(json_get "$WORK/out" 'd["logKey"]')" = "$(cat "$WORK/vkey")" ] || fail "kix trust --json: $(cat "$WORK/out")"
# kixd --http serves the same log.vkey
KIX_LOG_KEY= XDG_CONFIG_HOME=/nonexistent KIX_STATE_DIR="$WORK/s-trust" \
  "$KIX" trust "$H" >"$WORK/out" 2>"$WORK/err" || fail "kix trust $H: $(cat "$WORK/err")"
[ "$(cat "$WORK/out")" = "$(cat "$WORK/vkey")" ] || fail "kix trust $H printed $(cat "$WORK/out")"
# an export without log.vkey (by an older kixd): the reason, not a parse error
mv "$WORK/copy/log.vkey" "$WORK/log.vkey.kept"
KIX_LOG_KEY= XDG_CONFIG_HOME=/nonexistent KIX_STATE_DIR="$WORK/s-trust" expect_status 1 "$KIX" trust "$C"
grep -q "publishes no log key (log.vkey" "$WORK/err" || fail "kix trust of a copy without log.vkey: $(cat "$WORK/err")"
mv "$WORK/log.vkey.kept" "$WORK/copy/log.vkey"
pass "kix trust reads a static copy over http:// (ADDR and --server), as --server does"
