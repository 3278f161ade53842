#!/usr/bin/env bash
# kixd serves a source (issue 39 item 2): its RPC reads are struct
# kix_source operations, so kixd serves any source, here a static copy it
# reads over HTTP (kixd serve --source URL; the copy written by kixd export
# and served by python3 -m http.server). kix resolve, show, query, proof
# and audit against that kixd verify against the log key and agree with the
# store (query, checkpoint too); a write to it is refused saying it serves the copy read-only; a
# receipt, which a static copy does not hold, is refused naming it.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"

new_origin "$WORK/o"
import "--store $WORK/o" 1 24 8 || fail "import: $(tail -3 "$WORK/import.log")"
"$KIXD" export --store "$WORK/o" "$WORK/exp" >/dev/null 2>"$WORK/err" || fail "kixd export: $(cat "$WORK/err")"
SIZE=$(sed -n 2p "$WORK/exp/checkpoint")

HP=$(free_port)
python3 -m http.server --bind 127.0.0.1 --directory "$WORK/exp" "$HP" >/dev/null 2>"$WORK/http.log" &
KIXD_PIDS+=("$!")
for _ in $(seq 1 100); do
  python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1])' \
    "http://127.0.0.1:$HP/checkpoint" 2>/dev/null && break
  sleep 0.1
done

# a kixd with no store, serving the copy over msgpack-RPC
"$KIXD" serve --source "http://127.0.0.1:$HP/" --listen "unix://$WORK/s.sock" --threads 2 \
  --log-level info 2>>"$WORK/s.log" &
PID_s=$!
KIXD_PIDS+=("$PID_s")
wait_up "unix://$WORK/s.sock" "$PID_s"
grep -q "read-only (--source) the log kix.test/log (size $SIZE) from http://127.0.0.1:$HP/" "$WORK/s.log" ||
  fail "kixd's start line: $(cat "$WORK/s.log")"
S=(--server "unix://$WORK/s.sock" --log-key "$WORK/vkey")
"$KIX" info "${S[@]}" --json >"$WORK/info.json" || fail "kix info"
[ "$(json_get "$WORK/info.json" 'd["size"]')" = "$SIZE" ] || fail "info: $(cat "$WORK/info.json")"
pass "kixd --source serves the static copy's log (size $SIZE)"

# a run resolved and shown, verified, as from the store itself
RID=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["runId"])' "$WORK/rows-1-24.map")
"$KIX" resolve --store "$WORK/o" "$RID" --json >"$WORK/want.json" || fail "kix resolve --store"
"$KIX" resolve "${S[@]}" "$RID" --json >"$WORK/got.json" 2>"$WORK/err" || fail "kix resolve --server: $(cat "$WORK/err")"
python3 - "$WORK/want.json" "$WORK/got.json" <<'PY' || fail "the resolutions differ"
import json, sys
want, got = (json.load(open(p)) for p in sys.argv[1:])
for k in ("runId", "manifestDigest", "evidence", "entries", "rank", "groupSize"):
    if want.get(k) != got.get(k):
        sys.exit("%s: store %r, kixd --source %r" % (k, want.get(k), got.get(k)))
PY
"$KIX" show "${S[@]}" "$RID" >"$WORK/show.txt" 2>"$WORK/err" || fail "kix show: $(cat "$WORK/err")"
grep -q "$RID" "$WORK/show.txt" || fail "kix show: $(head -5 "$WORK/show.txt")"
pass "kix resolve and show through it verify, the same run as the store's"

"$KIX" query "${S[@]}" --json >"$WORK/q.json" 2>"$WORK/err" || fail "kix query: $(cat "$WORK/err")"
"$KIX" query --store "$WORK/o" --json >"$WORK/q-want.json" || fail "kix query --store"
cmp -s "$WORK/q.json" "$WORK/q-want.json" || fail "kix query differs from the store's: $(diff "$WORK/q-want.json" "$WORK/q.json" | head -5)"
"$KIX" checkpoint "${S[@]}" >"$WORK/cp.txt" 2>"$WORK/err" || fail "kix checkpoint: $(cat "$WORK/err")"
cmp -s "$WORK/cp.txt" <("$KIX" checkpoint --store "$WORK/o") || fail "kix checkpoint differs from the store's"
"$KIX" proof inclusion 1 "${S[@]}" >"$WORK/proof.txt" 2>"$WORK/err" || fail "kix proof: $(cat "$WORK/err")"
"$KIX" proof consistency 3 "$SIZE" "${S[@]}" >>"$WORK/proof.txt" 2>"$WORK/err" || fail "kix proof: $(cat "$WORK/err")"
export KIX_STATE_DIR="$WORK/audit-state"
"$KIX" audit "${S[@]}" >"$WORK/audit.txt" 2>"$WORK/err" || fail "kix audit: $(cat "$WORK/err")"
grep -q "all $SIZE entries" "$WORK/audit.txt" || fail "kix audit: $(cat "$WORK/audit.txt")"
pass "kix query, checkpoint, proof and audit through it verify (all $SIZE entries)"

# writes are refused, saying why; a receipt the copy does not hold too
make_manifests "$WORK/m" 1
expect_status 1 "$KIX" publish "${S[@]}" --key "$WORK/pub.key" "$WORK/m/run.json" "$WORK/m/workload.json"
grep -q "serves http://127.0.0.1:$HP/ read-only (--source)" "$WORK/err" ||
  fail "a publish to kixd --source: $(cat "$WORK/err")"
got=0
"$KIX" receipt 1 "${S[@]}" >"$WORK/out" 2>"$WORK/err" || got=$?
[ "$got" -ne 0 ] || fail "a receipt from a static copy"
grep -q "offers no receipts" "$WORK/err" || fail "a receipt: $(cat "$WORK/err")"
pass "a publish is refused (read-only, --source), a receipt too (the copy holds none)"

# --source is alone: no store beside it
expect_status 2 "$KIXD" serve --source "http://127.0.0.1:$HP/" --store "$WORK/o" --listen "unix://$WORK/x.sock"
grep -q "no --store" "$WORK/err" || fail "--source with --store: $(cat "$WORK/err")"
pass "--source with --store is a usage error"

# and it stops as any kixd does (SIGTERM: exit 0, nothing left behind)
stop s || fail "kixd --source exited $?: $(tail -5 "$WORK/s.log")"
pass "kixd --source stops cleanly"
