#!/usr/bin/env bash
# A whole user session: keys, publish, resolve, cite, attest, rerun,
# supersede, verify-citation, audit, log — then a lying server (a rerun
# rewritten on disk) and a rolled-back one, both caught. Against a local
# store, or with KIX_SESSION_MODE=server against a real kixd over a socket.
source "$(dirname "$0")/lib.sh"

STORE="$WORK/log"
MODE=${KIX_SESSION_MODE:-store}

"$KIXD" init --store "$STORE" --admin-key "$STORE/admin.key" --origin kix.test/log >"$WORK/vkey" 2>/dev/null
if [ "$MODE" = server ]; then
  start_kixd "$STORE"
  LOG=(--server "$KIXD_ADDR")
else
  LOG=(--store "$STORE")
fi
# restart_log CMD...: runs CMD on the store with the server (if any) stopped.
restart_log() {
  if [ "$MODE" = server ]; then stop_kixd; fi
  "$@"
  if [ "$MODE" = server ]; then start_kixd "$STORE"; LOG=(--server "$KIXD_ADDR"); fi
}
export KIX_LOG_KEY="$(cat "$WORK/vkey")"
[ "$(stat -c %a "$STORE/log.key")" = 600 ] || fail "log.key is not 0600"
[ "$(stat -c %a "$STORE/admin.key")" = 600 ] || fail "admin.key is not 0600"

"$KIX" keygen --name publisher --out "$WORK/pub" >/dev/null 2>&1
"$KIX" keygen --name reruns --out "$WORK/rerun" >/dev/null 2>&1
"$KIX" keygen --name community --out "$WORK/att" >/dev/null 2>&1
[ "$(stat -c %a "$WORK/pub.key")" = 600 ] || fail "keygen key is not 0600"
expect_status 1 "$KIX" keygen --name publisher --out "$WORK/pub"   # never overwrites
for k in "pub publish" "rerun rerun" "att attest"; do
  set -- $k
  "$KIX" key add "${LOG[@]}" --key "$STORE/admin.key" --role "$2" "$WORK/$1.pub" >/dev/null
done
pass "keys registered"

# publishing needs the key's role: the attester may not publish
make_manifests "$WORK/m1" 1
expect_status 1 "$KIX" publish "${LOG[@]}" --key "$WORK/att.key" "$WORK/m1/run.json" "$WORK/m1/workload.json"
grep -q "lacks the publish role" "$WORK/err" || fail "no role message: $(cat "$WORK/err")"
# a missing reference is refused before signing, naming the file, the field and the digest
expect_status 1 "$KIX" publish "${LOG[@]}" --key "$WORK/pub.key" "$WORK/m1/run.json"
grep -q "$WORK/m1/run.json: spec.workloadDigest references sha256:[0-9a-f]\{64\}, which is neither among the files given nor stored in the log" "$WORK/err" ||
  fail "no missing-reference message: $(cat "$WORK/err")"

"$KIX" publish "${LOG[@]}" --key "$WORK/pub.key" --run-id run-1 --receipt "$WORK/r1.tlog-proof" \
  --json "$WORK/m1/run.json" "$WORK/m1/workload.json" >"$WORK/pub1.json"
[ "$(json_get "$WORK/pub1.json" 'd["permalink"]')" = "https://kix.test/log/runs/run-1" ] || fail "permalink"
[ "$(json_get "$WORK/pub1.json" 'd["digest"]')" = "$("$KIX" digest "$WORK/m1/run.json")" ] || fail "digest"
"$KIX" verify "$WORK/r1.tlog-proof" >/dev/null || fail "receipt does not verify offline"
pass "published run-1, receipt verifies offline"

"$KIX" resolve "${LOG[@]}" run-1 --json >"$WORK/res1.json"
[ "$(json_get "$WORK/res1.json" 'd["evidence"]')" = reported ] || fail "evidence not reported"
[ "$(json_get "$WORK/res1.json" 'len(d["entries"])')" = 1 ] || fail "entries"
[ "$(json_get "$WORK/res1.json" 'd["entries"][0]["type"]')" = publication ] || fail "type"
[ "$(json_get "$WORK/res1.json" 'd["manifest"]["kind"]')" = BenchmarkRun ] || fail "manifest"
[ "$(json_get "$WORK/res1.json" 'len(d["objects"])')" = 1 ] || fail "objects"
"$KIX" resolve "${LOG[@]}" "https://kix.test/log/runs/run-1" >/dev/null || fail "permalink resolve"
"$KIX" resolve "${LOG[@]}" "$("$KIX" digest "$WORK/m1/run.json")" >/dev/null || fail "digest resolve"
"$KIX" get "${LOG[@]}" "$("$KIX" digest "$WORK/m1/workload.json")" | cmp - <("$KIX" canon "$WORK/m1/workload.json") \
  || fail "kix get"
pass "resolve (id, permalink, digest) and get"

"$KIX" cite "${LOG[@]}" run-1 --json >"$WORK/cite.json"
"$KIX" verify-citation "${LOG[@]}" "$WORK/cite.json" >"$WORK/vc1" || fail "fresh citation"
grep -q "nothing was added" "$WORK/vc1" || fail "fresh citation lists additions"

# an attestation never changes the evidence level; a rerun does
"$KIX" attest "${LOG[@]}" --key "$WORK/att.key" --note "reproduced on my A100" run-1 >/dev/null
"$KIX" resolve "${LOG[@]}" run-1 --json >"$WORK/res2.json"
[ "$(json_get "$WORK/res2.json" 'd["evidence"]')" = reported ] || fail "attestation changed evidence"
# a rerun measures what the run measured: another workload is refused
make_manifests "$WORK/other" 1001
expect_status 1 "$KIX" rerun "${LOG[@]}" --key "$WORK/rerun.key" --outcome not_reproduced run-1 \
  "$WORK/other/run.json" "$WORK/other/workload.json"
grep -q "measures something else: its spec.workloadDigest is" "$WORK/err" ||
  fail "rerun of another workload: $(cat "$WORK/err")"
make_rerun "$WORK/m1" "$WORK/m1r" 1001
"$KIX" rerun "${LOG[@]}" --key "$WORK/rerun.key" --outcome not_reproduced run-1 \
  "$WORK/m1r/run.json" "$WORK/m1r/workload.json" >/dev/null
"$KIX" resolve "${LOG[@]}" run-1 --json >"$WORK/res3.json"
[ "$(json_get "$WORK/res3.json" 'd["evidence"]')" = not_reproduced ] || fail "rerun evidence"
RERUN_INDEX=$(json_get "$WORK/res3.json" '[e["index"] for e in d["entries"] if e["type"]=="rerun"][0]')
pass "attestation kept evidence, rerun set it (entry $RERUN_INDEX)"

make_manifests "$WORK/m2" 2
"$KIX" supersede "${LOG[@]}" --key "$WORK/pub.key" --run-id run-2 --reason "fixed timer" run-1 \
  "$WORK/m2/run.json" "$WORK/m2/workload.json" >/dev/null
"$KIX" resolve "${LOG[@]}" run-1 --json >"$WORK/res4.json"
[ "$(json_get "$WORK/res4.json" 'd["supersededBy"]')" = run-2 ] || fail "supersededBy"
# the reason the publisher gave is shown wherever the supersession is
[ "$(json_get "$WORK/res4.json" 'd["supersessionReason"]')" = "fixed timer" ] || fail "reason in resolve --json"
grep -q "SUPERSEDED by run run-2 (entry [0-9]*): fixed timer" <<<"$("$KIX" resolve "${LOG[@]}" run-1)" ||
  fail "reason in resolve"
grep -q "this record was corrected: fixed timer" <<<"$("$KIX" show "${LOG[@]}" run-1)" || fail "reason in show"
"$KIX" show "${LOG[@]}" run-1 --json >"$WORK/show4.json"
[ "$(json_get "$WORK/show4.json" 'd["supersededBy"]')" = run-2 ] || fail "supersededBy in show --json"
"$KIX" resolve "${LOG[@]}" run-2 --json >"$WORK/res5.json"
[ "$(json_get "$WORK/res5.json" 'd["supersedes"]')" = run-1 ] || fail "supersedes"
expect_status 1 "$KIX" supersede "${LOG[@]}" --key "$WORK/att.key" run-2 "$WORK/m1/run.json"
pass "supersession"

"$KIX" verify-citation "${LOG[@]}" "$WORK/cite.json" --json >"$WORK/vc2.json"
[ "$(json_get "$WORK/vc2.json" '[e["type"] for e in d["since"]]')" = "['attestation', 'rerun', 'supersession']" ] \
  || fail "verify-citation since: $(cat "$WORK/vc2.json")"
"$KIX" audit "${LOG[@]}" --json >"$WORK/audit.json"
[ "$(json_get "$WORK/audit.json" 'd["passed"]')" = True ] || fail "audit"
"$KIX" log "${LOG[@]}" --json --from 0 >"$WORK/log.json"
[ "$(json_get "$WORK/log.json" 'len(d["entries"])')" = "$(json_get "$WORK/audit.json" 'd["to"]')" ] || fail "log length"
[ "$(json_get "$WORK/log.json" 'd["entries"][0]["type"]')" = key ] || fail "log entry 0"
pass "verify-citation lists what came since; audit passes; log lists every entry"

# A rolled-back store: keep a copy, publish more, look, then restore the copy.
restart_log cp -a "$STORE" "$WORK/old-store"
make_manifests "$WORK/m3" 3
"$KIX" publish "${LOG[@]}" --key "$WORK/pub.key" --run-id run-3 "$WORK/m3/run.json" "$WORK/m3/workload.json" >/dev/null
"$KIX" resolve "${LOG[@]}" run-3 >/dev/null
swap_back() { rm -rf "$STORE" && mv "$WORK/old-store" "$STORE"; }
restart_log swap_back
# a store behind what this client verified is a stale copy (issue 37.9):
# answered as of its own size, exit 5, both sizes named; no alarm and no
# evidence, since nothing proves a contradiction (a fork below the pinned
# size is exit 4: test_static_copy.sh)
expect_status 5 "$KIX" resolve "${LOG[@]}" run-1
grep -q "STALE COPY: .* size 9, 1 entries behind the size 10" "$WORK/err" || fail "stale message: $(cat "$WORK/err")"
! ls "$KIX_STATE_DIR"/logs/kix.test_log+*/evidence/*-presented.checkpoint >/dev/null 2>&1 ||
  fail "evidence kept for a copy that is only behind"
# the run the older store lacks, and every other command that reads the
# log: stale too, never "no such run" and never an alarm
for cmd in "resolve run-3" "show run-3" "cite run-3" checkpoint "receipt 0" "entry 0" \
  "proof inclusion 0" log query "get $(cat "$WORK/m1/digest" 2>/dev/null || echo sha256:$(printf %064d 0))"; do
  # shellcheck disable=SC2086
  expect_status 5 "$KIX" $cmd "${LOG[@]}"
  grep -q "STALE COPY" "$WORK/err" || fail "kix $cmd against a store behind: $(cat "$WORK/err")"
done
pass "a store behind the verified size is a stale copy for every command that reads the log (exit 5, no evidence)"
rm -rf "$KIX_STATE_DIR"

# A lying store: rewrite one byte of the rerun entry, recomputing nothing
# (kixd would refuse to serve it: --no-store-check plays the liar).
KIXD_EXTRA=(--no-store-check)
restart_log "$KIX_BIN/kix-tamper" "$STORE" leaves "u64:$RERUN_INDEX" 60
expect_status 1 "$KIX" resolve "${LOG[@]}" run-1
grep -q "entry $RERUN_INDEX" "$WORK/err" || fail "resolve does not name the entry: $(cat "$WORK/err")"
expect_status 1 "$KIX" verify-citation "${LOG[@]}" "$WORK/cite.json"
grep -q "entry $RERUN_INDEX" "$WORK/err" || fail "verify-citation does not name the entry: $(cat "$WORK/err")"
expect_status 1 "$KIX" audit "${LOG[@]}" --json
[ "$(json_get "$WORK/out" 'd["index"]')" = "$RERUN_INDEX" ] || fail "audit index: $(cat "$WORK/out")"
pass "rewritten rerun named by resolve, verify-citation and audit"
