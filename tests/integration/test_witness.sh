#!/usr/bin/env bash
# Witnesses (C2SP tlog-cosignature), with real kixd processes: a mirror
# started with --witness-key cosigns each checkpoint it verified and sends
# the cosignature to its origin, which accepts it from the witness keys it
# was given (--witness) and serves it with its checkpoints, receipts and
# resolutions. Clients with --min-witnesses N accept checkpoints cosigned by
# N of their --witness keys and reject the others, naming how many they found.
# The witness mirror also cosigns the index note beside each checkpoint it
# verified, and every answer carrying a checkpoint or an index note carries
# their cosignatures (index_proof included: index, group and query with
# --min-witnesses 1 pass on this honest log).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"

"$KIX" keygen --witness --name witness.test --out "$WORK/w" >/dev/null 2>&1
"$KIX" keygen --witness --name stranger.test --out "$WORK/w2" >/dev/null 2>&1
new_origin "$WORK/o"
import "--store $WORK/o" 1 20 5
serve o --witness "$WORK/w.pub"
export KIX_LOG_KEY="$WORK/vkey"
W=(--witness "$WORK/w.pub" --min-witnesses 1)

# before any witness: a client that requires one refuses the checkpoint
expect_status 1 "$KIX" checkpoint --server "$(addr o)" "${W[@]}"
grep -q "has 0 of the 1 witness cosignatures required" "$WORK/err" || fail "no-witness message: $(cat "$WORK/err")"
"$KIX" checkpoint --server "$(addr o)" >/dev/null || fail "without --min-witnesses the checkpoint is fine"

mirror m o --witness-key "$WORK/w.key"
mirror m2 o --witness-key "$WORK/w2.key" # a witness the origin does not know
wait_size m 22
# the origin gets the cosignature of its latest checkpoint
for i in $(seq 1 100); do
  "$KIX" checkpoint --server "$(addr o)" "${W[@]}" --json >"$WORK/cp.json" 2>/dev/null && break
  sleep 0.1
done
[ "$(json_get "$WORK/cp.json" '(d["size"], d["witnesses"])')" = "(22, 1)" ] || fail "cosigned checkpoint: $(cat "$WORK/cp.json")"
json_get "$WORK/cp.json" 'd["checkpoint"]' >"$WORK/cp.txt"
grep -q "^— witness.test " "$WORK/cp.txt" || fail "no cosignature line: $(cat "$WORK/cp.txt")"
grep -q "stranger.test" "$WORK/cp.txt" && fail "the origin took an unknown witness's cosignature"
grep -q "cosignature refused: .*stranger.test is not by a witness this log accepts" "$WORK/o.log" ||
  fail "refusal not logged: $(grep -i cosign "$WORK/o.log" | tail -3)"
grep -q "the upstream did not take the cosignature" "$WORK/m2.log" || fail "m2 log: $(tail -3 "$WORK/m2.log")"
pass "the witness mirror cosigned size 22; the origin serves it and refused the stranger's"

# kix mirror status shows the refusal as the mirror's last error (issue 18)
expect_status 0 "$KIX" mirror status --server "$(addr m2)"
grep -q "^last error     the upstream refused this witness's cosignature of size 22: .*stranger.test is not by a witness this log accepts" \
  "$WORK/out" || fail "m2 status: $(cat "$WORK/out")"
expect_status 0 "$KIX" mirror status --server "$(addr m2)" --json
json_get "$WORK/out" 'd["lastError"]' | grep -q "refused this witness's cosignature" || fail "m2 status --json: $(cat "$WORK/out")"
expect_status 0 "$KIX" mirror status --server "$(addr m)"
grep -q "^last error     none$" "$WORK/out" || fail "m status: $(cat "$WORK/out")"
pass "kix mirror status shows a refused cosignature as the last error"

# publish more: the next checkpoint gets cosigned too; receipts and resolve carry it
import "--server $(addr o)" 21 23 1
wait_size m 25
run=$(grep -o '"runId":"[^"]*"' "$WORK/rows-21-23.map" | tail -1 | cut -d'"' -f4)
# the witness cosigns the checkpoint, then the index note beside it
for i in $(seq 1 100); do
  "$KIX" resolve --server "$(addr o)" "${W[@]}" "$run" >/dev/null 2>&1 && break
  sleep 0.1
done
"$KIX" checkpoint --server "$(addr o)" "${W[@]}" --json >"$WORK/cp.json" || fail "size 25 not cosigned"
[ "$(json_get "$WORK/cp.json" 'd["size"]')" = 25 ] || fail "cosigned size"
"$KIX" resolve --server "$(addr o)" "${W[@]}" "$run" >/dev/null || fail "resolve with --min-witnesses 1: $(grep -i cosign "$WORK/o.log" "$WORK/m.log" | tail -5)"
# index proofs carry the checkpoint with its cosignatures (PROTOCOL.md §2.17)
"$KIX" show --server "$(addr o)" "${W[@]}" "$run" --json >"$WORK/show.json" || fail "show with --min-witnesses 1"
group=$(json_get "$WORK/show.json" 'd["rank"]["group"]')
"$KIX" index --server "$(addr o)" "${W[@]}" "run/$run" --json >"$WORK/idx.json" ||
  fail "index with --min-witnesses 1"
# the index note's cosignature is a plain C2SP tlog-cosignature over the
# note's text, as the Python referee (no code of kix's) reads it
json_get "$WORK/idx.json" 'd["indexNote"]' >"$WORK/idx.txt"
/usr/bin/python3 "$KIX_TESTS/integration/c2sp_log.py" cosigned-note "$WORK/idx.txt" "$(cat "$WORK/w.pub")" >/dev/null ||
  fail "the index note's cosignature, read by c2sp_log.py: $(cat "$WORK/idx.txt")"
"$KIX" group --server "$(addr o)" "${W[@]}" "$group" >/dev/null 2>"$WORK/err" ||
  fail "group with --min-witnesses 1: $(cat "$WORK/err")"
"$KIX" query --server "$(addr o)" "${W[@]}" >/dev/null 2>"$WORK/err" || fail "query with --min-witnesses 1: $(cat "$WORK/err")"
"$KIX" query --server "$(addr o)" --witness "$WORK/w2.pub" --min-witnesses 1 >/dev/null 2>"$WORK/err" &&
  fail "query with a witness that did not cosign"
grep -q "has 0 of the 1" "$WORK/err" || fail "query, other witness: $(cat "$WORK/err")"
"$KIX" receipt 24 --server "$(addr o)" >"$WORK/r24"
"$KIX" verify "$WORK/r24" "${W[@]}" >/dev/null || fail "receipt offline with --min-witnesses 1"
expect_status 1 "$KIX" verify "$WORK/r24" --witness "$WORK/w2.pub" --min-witnesses 1
grep -q "has 0 of the 1" "$WORK/err" || fail "other witness: $(cat "$WORK/err")"
"$KIX" audit --server "$(addr o)" "${W[@]}" >/dev/null || fail "audit with --min-witnesses 1"
# the mirrors serve their own cosignatures
"$KIX" checkpoint --server "$(addr m)" "${W[@]}" >/dev/null || fail "the witness mirror's own cosignature"
"$KIX" checkpoint --server "$(addr m2)" --witness "$WORK/w2.pub" --min-witnesses 1 >/dev/null ||
  fail "the stranger mirror's own cosignature"
expect_status 1 "$KIX" checkpoint --server "$(addr m2)" "${W[@]}"
pass "receipts, resolve, verify and audit accept cosigned checkpoints; mirrors serve their own"

# a log nobody witnesses: rejected with --min-witnesses 1
new_origin "$WORK/p"
import "--store $WORK/p" 1 1 1
serve p
export KIX_LOG_KEY="$WORK/vkey"
run=$(grep -o '"runId":"[^"]*"' "$WORK/rows-1-1.map" | cut -d'"' -f4)
"$KIX" resolve --server "$(addr p)" "$run" >/dev/null || fail "resolve without witnesses"
expect_status 1 "$KIX" resolve --server "$(addr p)" "${W[@]}" "$run"
grep -q "has 0 of the 1 witness cosignatures required" "$WORK/err" || fail "resolve: $(cat "$WORK/err")"
expect_status 1 "$KIX" checkpoint --server "$(addr p)" "${W[@]}"
grep -q "has 0 of the 1 witness cosignatures required" "$WORK/err" || fail "message: $(cat "$WORK/err")"
# usage errors
expect_status 2 "$KIX" checkpoint --server "$(addr p)" --witness "$WORK/w.pub" --min-witnesses 2
grep -q "needs at least that many --witness keys" "$WORK/err" || fail "usage: $(cat "$WORK/err")"
expect_status 2 "$KIX" checkpoint --server "$(addr p)" --witness "$WORK/vkey" --min-witnesses 1
grep -q "is not a witness key" "$WORK/err" || fail "usage: $(cat "$WORK/err")"
rc=0
"$KIXD" serve --store "$WORK/p" --listen "unix://$WORK/x.sock" --witness "$WORK/vkey" 2>"$WORK/x.log" || rc=$?
[ "$rc" = 2 ] && grep -q "is not a witness cosignature key" "$WORK/x.log" || fail "kixd --witness LOGKEY: $rc $(cat "$WORK/x.log")"
pass "an unwitnessed log is rejected with --min-witnesses 1; bad witness options refused"
