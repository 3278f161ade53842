#!/usr/bin/env bash
# --ack-replicas with --ack-mirror-key (issue 29, part 3; issue 42;
# PROTOCOL.md §2.13.1), with real kixd processes:
#  - the mirror started with --witness-key (the key named by the origin's
#    --ack-mirror-key) signs a held statement of what it reports: submits
#    are acknowledged
#  - a real mirror with another witness key is not counted: a submit times
#    out with EUNAVAIL and no receipt
#  - reports with no held statement, or with a witness cosignature (another
#    key's, or even the right key's of the right size, in either field) are
#    refused and not counted
#  - two real mirrors with one key are one mirror (--ack-replicas 2 waits
#    for a second key)
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"

new_origin "$WORK/o"
import "--store $WORK/o" 1 20 20 || fail "import: $(tail -3 "$WORK/import.log")"
export KIX_LOG_KEY="$WORK/vkey"
base=$("$KIX" info --store "$WORK/o" | awk '$1 == "size" { print $2 }')
"$KIX" keygen --witness --name mirror.test --out "$WORK/w" >/dev/null 2>&1 || fail "keygen w"
"$KIX" keygen --witness --name other.test --out "$WORK/w2" >/dev/null 2>&1 || fail "keygen w2"

# publish DIR TAG: one run to the origin, its receipt in DIR/TAG.receipt.
publish() {
  mkdir -p "$1"
  make_manifests "$1/m$2" "$2"
  KIX_STATE_DIR="$WORK/pub-state" "$KIX" publish --server "$(addr o)" --key "$WORK/pub.key" \
    --receipt "$1/$2.receipt" "$1/m$2/run.json" "$1/m$2/workload.json"
}
fake() { python3 "$KIX_TESTS/integration/fake_mirror.py" "$(addr o)" "$@"; }
# root_at SIZE: the origin's root at SIZE, in hex
# (read with the replication listing: readers are shown only what the
# mirrors hold)
root_at() {
  python3 "$KIX_TESTS/integration/raw_checkpoint.py" "$(addr o)" "$1" >"$WORK/cp" ||
    fail "checkpoint at $1"
  sed -n 3p "$WORK/cp" | base64 -d | od -An -tx1 | tr -d ' \n'
}
# line_of NAME KEYNAME SIZE: the cosignature line mirror NAME keeps for SIZE
line_of() {
  KIX_STATE_DIR="$WORK/probe-$1" "$KIX" checkpoint --server "$(addr "$1")" --size "$3" >"$WORK/mcp" ||
    fail "checkpoint of $1 at $3"
  grep "^— $2 " "$WORK/mcp" || fail "$1 keeps no cosignature of size $3: $(cat "$WORK/mcp")"
}

# ---- the keyed mirror's signed reports acknowledge submits -------------------------
serve o --ack-replicas 1 --ack-mirror-key "$WORK/w.pub" --ack-timeout 2
grep -q "counts only reports whose held statement one of 1 mirror keys signed" "$WORK/o.log" || fail "no key count: $(cat "$WORK/o.log")"
! grep -q "not authenticated" "$WORK/o.log" || fail "warned with --ack-mirror-key"
mirror m o --witness-key "$WORK/w.key"
wait_log "$WORK/o.log" "mirror mirror.test+[0-9a-f]* reports that it holds size $base" "the keyed mirror's report"
publish "$WORK/r" 1 >"$WORK/out" 2>&1 || fail "publish with the keyed mirror: $(cat "$WORK/out")"
"$KIX" verify "$WORK/r/1.receipt" >/dev/null || fail "the receipt does not verify"
s1=$((base + 1))
wait_size m "$s1"
for _ in $(seq 1 50); do line_of m mirror.test "$s1" >"$WORK/line1" 2>/dev/null && break; sleep 0.1; done
line1=$(line_of m mirror.test "$s1")
stop m
pass "the mirror with --witness-key (the --ack-mirror-key) gets submits acknowledged; its witness cosigned size $s1"

# ---- a real mirror with another witness key: not counted ----------------------------
mirror m2 o --witness-key "$WORK/w2.key"
wait_size m2 "$s1"
expect_status 3 publish "$WORK/r" 2
grep -q "not acknowledged: after --ack-timeout" "$WORK/err" || fail "another key's mirror: $(cat "$WORK/err")"
[ ! -e "$WORK/r/2.receipt" ] || fail "a receipt for an entry only another key's mirror holds"
s2=$((base + 2))
wait_size m2 "$s2"
for _ in $(seq 1 50); do line_of m2 other.test "$s2" >/dev/null 2>&1 && break; sleep 0.1; done
line2=$(line_of m2 other.test "$s2")
stop m2
pass "a mirror cosigning with another key holds size $s2, yet the submit got EUNAVAIL and no receipt"

# ---- forged and misplaced reports ---------------------------------------------------
root1=$(root_at "$s1")
root2=$(root_at "$s2")
fake "$s2" "$root2" fake1 >"$WORK/fake" 2>&1
grep -q "^error .*has none: not counted" "$WORK/fake" || fail "an unsigned report: $(cat "$WORK/fake")"
fake "$s2" "$root2" fake2 --cosignature "$line2" >"$WORK/fake" 2>&1
grep -q "^error .*carries a witness cosignature, not a held statement" "$WORK/fake" ||
  fail "a report cosigned by another key: $(cat "$WORK/fake")"
fake "$s2" "$root2" fake3 --held "$line2" >"$WORK/fake" 2>&1
grep -q "^error .*does not verify against any --ack-mirror-key" "$WORK/fake" ||
  fail "another key's cosignature as a held statement: $(cat "$WORK/fake")"
fake "$s1" "$(printf '%064d' 0)" fake4 --held "$line1" >"$WORK/fake" 2>&1
grep -q "^error .*another root at size $s1" "$WORK/fake" || fail "another root: $(cat "$WORK/fake")"
# the right key's own witness cosignature of its own size: a witness
# cosigns what it has not stored, so it is no statement of holding
fake "$s1" "$root1" any-id --cosignature "$line1" >"$WORK/fake" 2>&1
grep -q "^error .*carries a witness cosignature, not a held statement" "$WORK/fake" ||
  fail "the key's own cosignature was counted: $(cat "$WORK/fake")"
fake "$s1" "$root1" any-id --held "$line1" >"$WORK/fake" 2>&1
grep -q "^error .*does not verify against any --ack-mirror-key.*a witness cosignature is not one" "$WORK/fake" ||
  fail "the key's own cosignature as a held statement was counted: $(cat "$WORK/fake")"
expect_status 3 "$KIX" receipt "$((s2 - 1))" --server "$(addr o)"
grep -q "is not yet held by the 1 mirrors" "$WORK/err" || fail "early receipt: $(cat "$WORK/err")"
pass "an unsigned report, witness cosignatures (another key's, the key's own of size $s1) in either field, and another root are refused; entry $((s2 - 1)) has no receipt"

# ---- the keyed mirror comes back: the late receipt -----------------------------------
mirror m o --witness-key "$WORK/w.key"
wait_size m "$s2"
for _ in $(seq 1 50); do
  "$KIX" receipt "$((s2 - 1))" --server "$(addr o)" >"$WORK/r/2.receipt" 2>/dev/null && break
  sleep 0.1
done
"$KIX" verify "$WORK/r/2.receipt" >/dev/null || fail "the late receipt"
stop m
stop o
pass "the keyed mirror back: entry $((s2 - 1)) gets its receipt"

# ---- one key is one mirror, whatever ids it sends ------------------------------------
serve o --ack-replicas 2 --ack-mirror-key "$WORK/w.pub" --ack-mirror-key "$WORK/w2.pub" --ack-timeout 2
mirror m o --witness-key "$WORK/w.key"
mirror m3 o --witness-key "$WORK/w.key"
wait_size m3 "$s2"
sleep 1
grep -q "(2 mirrors report)" "$WORK/o.log" && fail "two mirrors of one key counted as two: $(grep reports "$WORK/o.log")"
expect_status 3 env KIX_STATE_DIR="$WORK/probe3" "$KIX" checkpoint --server "$(addr o)"
grep -q "no checkpoint is held by the 2 mirrors" "$WORK/err" || fail "one key, two mirrors: $(cat "$WORK/err")"
mirror m2 o --witness-key "$WORK/w2.key"
wait_size m2 "$s2"
publish "$WORK/r" 3 >"$WORK/out" 2>&1 || fail "publish with a second key's mirror: $(cat "$WORK/out")"
"$KIX" verify "$WORK/r/3.receipt" >/dev/null || fail "the receipt once a second key holds it"
stop m
stop m2
stop m3
stop o
pass "--ack-replicas 2: two mirrors of one key count once; a mirror of a second key makes the quorum"

# ---- the config file takes the option too; it needs --ack-replicas -------------------
printf 'store = %s\nlisten = unix://%s\nack-mirror-key = %s\n' "$WORK/o" "$WORK/x.sock" "$WORK/w.pub" >"$WORK/kixd.conf"
expect_status 2 "$KIXD" serve --config "$WORK/kixd.conf"
grep -q -- "--ack-mirror-key needs --ack-replicas" "$WORK/err" || fail "without --ack-replicas: $(cat "$WORK/err")"
expect_status 2 "$KIXD" serve --store "$WORK/o" --listen "unix://$WORK/x.sock" --ack-replicas 1 \
  --ack-mirror-key "$WORK/vkey"
grep -q "is not a witness cosignature key" "$WORK/err" || fail "a log key as a mirror key: $(cat "$WORK/err")"
expect_status 2 "$KIXD" serve --store "$WORK/o" --listen "unix://$WORK/x.sock" --ack-replicas 1 \
  --ack-mirror-key "$WORK/w.pub" --ack-mirror-key "$(cat "$WORK/w.pub")"
grep -q "key mirror.test+[0-9a-f]* given twice" "$WORK/err" || fail "one key twice: $(cat "$WORK/err")"
pass "--ack-mirror-key in the config file needs --ack-replicas; a key that is not a witness key, or one given twice, is refused"
