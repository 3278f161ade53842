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

# ---- a copy that lags: stale (exit 5), not an alarm ----
# the origin grows by two entries; the copy stays at the old size
KIX_LOG_KEY="$WORK/vkey" "$KIXD" backup --store "$WORK/o" --with-log-key "$WORK/f" >/dev/null 2>&1 ||
  fail "backup for the fork"
import "--server $(addr o)" 301 302 1 || fail "import 301-302: $(tail -3 "$WORK/import.log")"
NEW=$(size_of o)
[ "$NEW" = $((OLD + 2)) ] || fail "the origin grew from $OLD to $NEW, want $((OLD + 2))"
export KIX_LOG_KEY="$WORK/vkey" KIX_STATE_DIR="$WORK/s-read" KIX_CACHE_DIR="$WORK/cache-read"
RID=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["runId"])' "$WORK/rows-1-300.map")
"$KIX" log --server "$(addr o)" --limit 1 >/dev/null 2>"$WORK/err" || fail "pinning at the origin: $(cat "$WORK/err")"
[ "$(sed -n 2p "$KIX_STATE_DIR"/logs/*/checkpoint)" = "$NEW" ] || fail "not pinned at $NEW"
cp -r "$KIX_STATE_DIR" "$WORK/s-pinned" # the same client, for the cases below
expect_status 5 "$KIX" show --server "$C" "$RID"
grep -q "STALE COPY: the server serves the log at size $OLD, 2 entries behind the size $NEW this client verified before; the answer above is as of size $OLD" "$WORK/err" ||
  fail "the stale copy's message: $(cat "$WORK/err")"
grep -q "proven a prefix of the verified one by unix://$WORK/o.sock" "$WORK/err" || fail "no proof named: $(cat "$WORK/err")"
grep -q "run $RID" "$WORK/out" || fail "kix show answered nothing from the stale copy: $(head -3 "$WORK/out")"
! grep -q ALARM "$WORK/err" || fail "an alarm for a stale copy: $(cat "$WORK/err")"
[ ! -e "$(echo "$KIX_STATE_DIR"/logs/*)/evidence" ] || fail "evidence kept for a stale copy: $(ls "$KIX_STATE_DIR"/logs/*/evidence)"
[ "$(sed -n 2p "$KIX_STATE_DIR"/logs/*/checkpoint)" = "$NEW" ] || fail "the stale copy changed what is remembered"
expect_status 5 "$KIX" --json log --server "$C" --limit 1
json_get "$WORK/out" 'd["entries"][0]["index"]' | grep -qx "$((OLD - 1))" || fail "kix log --json of the stale copy: $(head -c 300 "$WORK/out")"
pass "a client pinned at $NEW reads a copy at $OLD: exit 5 naming both sizes, proven a prefix by the origin, answered as of $OLD, no alarm or evidence"

# no one to prove it (the origin's address forgotten): still stale, said unproven
rm -rf "$KIX_STATE_DIR" && cp -r "$WORK/s-pinned" "$KIX_STATE_DIR" && rm "$KIX_STATE_DIR"/logs/*/checkpoint.from
expect_status 5 "$KIX" show --server "$C" "$RID"
grep -q "STALE COPY: .* size $OLD, 2 entries behind the size $NEW" "$WORK/err" || fail "unproven stale: $(cat "$WORK/err")"
grep -q "NOT proven a prefix" "$WORK/err" || fail "unproven stale not said: $(cat "$WORK/err")"
[ ! -e "$(echo "$KIX_STATE_DIR"/logs/*)/evidence" ] || fail "evidence kept for an unproven stale copy"
# the permalink's own log proves it (kixd --http at the origin)
expect_status 5 "$KIX" show --server "$C" "${H}runs/$RID"
grep -q "proven a prefix of the verified one by ${H}" "$WORK/err" || fail "the permalink's log did not prove it: $(cat "$WORK/err")"
pass "unproven, a stale copy is still exit 5 (said NOT proven); a permalink's own log proves the prefix"

# ---- a real fork below the pinned size: exit 4 with evidence ----
stop o
serve f
import "--server $(addr f)" 303 303 1 || fail "publishing to the fork: $(tail -3 "$WORK/import.log")"
stop f
"$KIXD" export --store "$WORK/f" "$WORK/fcopy" >/dev/null 2>"$WORK/err" || fail "export of the fork: $(cat "$WORK/err")"
FORK=$(sed -n 2p "$WORK/fcopy/checkpoint")
[ "$FORK" -lt "$NEW" ] || fail "the fork is at $FORK, not below $NEW"
serve o --http "tcp://127.0.0.1:$HPORT"
FPORT=$(free_port)
python3 "$KIX_TESTS/integration/static_server.py" "$WORK/fcopy" "$FPORT" 2>>"$WORK/static.log" &
KIXD_PIDS+=("$!")
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$FPORT/checkpoint" && break; sleep 0.05; done
rm -rf "$KIX_STATE_DIR" && cp -r "$WORK/s-pinned" "$KIX_STATE_DIR"
expect_status 4 "$KIX" log --server "http://127.0.0.1:$FPORT/" --limit 1
grep -q "ALARM: .* at size $FORK, and the consistency proof unix://$WORK/o.sock gives from it to the size $NEW .* does not verify" "$WORK/err" ||
  fail "the fork's alarm: $(cat "$WORK/err")"
ls "$KIX_STATE_DIR"/logs/*/evidence/*-presented.checkpoint >/dev/null 2>&1 || fail "no evidence of the fork"
pass "a fork at $FORK below the pinned $NEW: exit 4, evidence kept"

# ---- --max-age: freshness from the witnesses' cosignature times ----
"$KIX" keygen --witness --name witness.test --out "$WORK/w" >/dev/null 2>&1
"$KIX" keygen --witness --name stranger.test --out "$WORK/w2" >/dev/null 2>&1
stop o
serve o --witness "$WORK/w.pub"
mirror m o --witness-key "$WORK/w.key"
export KIX_STATE_DIR="$WORK/s-age"
for _ in $(seq 1 100); do
  "$KIX" checkpoint --server "$(addr o)" --witness "$WORK/w.pub" --min-witnesses 1 >/dev/null 2>&1 && break
  sleep 0.1
done
stop m # no cosignature after this one: the checkpoint only grows older
expect_status 0 "$KIX" log --server "$(addr o)" --witness "$WORK/w.pub" --max-age 1h --limit 1
sleep 3
expect_status 5 "$KIX" log --server "$(addr o)" --witness "$WORK/w.pub" --max-age 2s --limit 1
grep -q "at size $NEW was last cosigned by a trusted witness at 20[0-9-]*T[0-9:]*Z ([0-9]* s ago), longer ago than the 2 s allowed (--max-age)" "$WORK/err" ||
  fail "--max-age 2s: $(cat "$WORK/err")"
[ ! -s "$WORK/out" ] || fail "an answer from a checkpoint older than --max-age: $(head -3 "$WORK/out")"
expect_status 5 "$KIX" --json log --server "$(addr o)" --witness "$WORK/w.pub" --max-age 2s --limit 1
[ "$(json_get "$WORK/out" 'd["error"]["code"], d["error"]["exitCode"]')" = "staleCopy 5" ] || fail "--max-age --json: $(cat "$WORK/out")"
expect_status 0 "$KIX" --max-age 1d log --server "$(addr o)" --witness "$WORK/w.pub" --limit 1
expect_status 5 "$KIX" log --server "$(addr o)" --witness "$WORK/w2.pub" --max-age 1h --limit 1
grep -q "has no cosignature of a trusted witness" "$WORK/err" || fail "--max-age, no trusted cosignature: $(cat "$WORK/err")"
expect_status 2 "$KIX" log --server "$(addr o)" --max-age 1h --limit 1
grep -q -- "--max-age needs --witness keys" "$WORK/err" || fail "--max-age without witnesses: $(cat "$WORK/err")"
for bad in 5x 0 h -1 1h2; do
  expect_status 2 "$KIX" log --server "$(addr o)" --witness "$WORK/w.pub" --max-age "$bad" --limit 1
done
expect_status 2 "$KIX" --max-age 1h keygen --name x --out "$WORK/x"
pass "--max-age: a checkpoint last cosigned longer ago is exit 5 (no answer), fresher ones pass; needs --witness; bad durations are usage errors"

# ---- kix audit of a copy checks every file it serves others ----
# (each audit after the first has no new entry to replay: what it checks
# is the copy's files as they are now)
export KIX_LOG_KEY="$WORK/vkey" KIX_STATE_DIR="$WORK/s-audit"
P=$(cd "$WORK/copy/tile/0/001.p" && ls)
# a narrower partial tile an older export left (the prefix of the current one)
head -c $(((P - 1) * 32)) "$WORK/copy/tile/0/001.p/$P" >"$WORK/copy/tile/0/001.p/$((P - 1))"
audit_copy() { "$KIX" audit --server "$C" --no-cache "$@"; }
expect_status 0 audit_copy --json
[ "$(json_get "$WORK/out" 'd["passed"], d["files"] > 3')" = "True True" ] || fail "the honest copy's audit: $(cat "$WORK/out")"
# corrupt FILE: one byte of the copy's FILE changed, then kix audit fails
# naming it; the file is put back after
corrupt() {
  local f=$1
  [ -f "$WORK/copy/$f" ] || fail "the copy has no $f: $(cd "$WORK/copy" && find tile objects/entries -type f | head)"
  cp "$WORK/copy/$f" "$WORK/orig"
  python3 - "$WORK/copy/$f" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[len(b) // 2] ^= 1
open(sys.argv[1], "wb").write(b)
PY
  expect_status 1 audit_copy
  grep -q "AUDIT FAILED.*serves a $f that is not the log's" "$WORK/err" || fail "corrupted $f: $(cat "$WORK/err")"
  cp "$WORK/orig" "$WORK/copy/$f"
}
corrupt tile/1/000.p/1 # an upper tile
corrupt "tile/0/001.p/$P" # the right edge's partial tile
corrupt "tile/0/001.p/$((P - 1))" # an older checkpoint's narrower one
corrupt tile/0/000 # a full tile
corrupt objects/entries/000 # an object pack
corrupt "$(cd "$WORK/copy" && find index/tile -type f | head -1)"
corrupt "$(cd "$WORK/copy" && find index/pack -type f | head -1)" # an index pack
# a tile the copy does not serve: readers cannot verify against it
mv "$WORK/copy/tile/0/000" "$WORK/orig"
expect_status 1 audit_copy
grep -q "serves no tile/0/000, a file of the log at this size" "$WORK/err" || fail "a missing tile: $(cat "$WORK/err")"
mv "$WORK/orig" "$WORK/copy/tile/0/000"
# an entry bundle: a fresh audit's replay refuses it
cp "$WORK/copy/tile/entries/000" "$WORK/orig"
python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[100] ^= 1; open(sys.argv[1], "wb").write(b)' "$WORK/copy/tile/entries/000"
KIX_STATE_DIR="$WORK/s-audit-fresh" expect_status 1 audit_copy
grep -q "AUDIT FAILED" "$WORK/err" || fail "corrupted bundle: $(cat "$WORK/err")"
cp "$WORK/orig" "$WORK/copy/tile/entries/000"
expect_status 0 audit_copy
pass "kix audit of a static copy fails naming a corrupted upper, partial, older partial or full hash tile, object pack or index file, or a missing tile (and a bundle); the honest copy passes"
