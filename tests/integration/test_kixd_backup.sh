#!/usr/bin/env bash
# kixd backup and the log key (issue 29, part 2): a backup taken while kixd
# serves and publishes is a checked, compacted store at one consistent size;
# the log key goes into it only when asked; a store without its key is
# refused as an origin (never quietly a mirror) and is served without it
# only when said (--read-only, --mirror-of); a key kept outside the store
# (--log-key-file) serves; a restored backup catches up from a mirror of the
# lost log before it serves as the origin again (README, "Operating kixd").
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"

new_origin "$WORK/o"
import "--store $WORK/o" 1 40 20 || fail "import: $(tail -3 "$WORK/import.log")"
mkdir -m 700 "$WORK/keys"
mv "$WORK/o/log.key" "$WORK/keys/log.key"
mv "$WORK/o/admin.key" "$WORK/keys/admin.key"

# ---- no key: refused loudly, not served as a mirror ---------------------------------
expect_status 3 "$KIXD" serve --store "$WORK/o" --listen "unix://$WORK/none.sock"
grep -q "REFUSING TO SERVE .* AS THE ORIGIN: its log key is missing" "$WORK/err" ||
  fail "no refusal: $(cat "$WORK/err")"
grep -q -- "--log-key-file FILE" "$WORK/err" || fail "no way out named: $(cat "$WORK/err")"
expect_status 3 "$KIXD" serve --store "$WORK/o" --listen "unix://$WORK/none.sock" \
  --log-key-file "$WORK/keys/missing.key"
expect_status 2 "$KIXD" serve --store "$WORK/o" --read-only --log-key-file "$WORK/keys/log.key"
pass "a store without its log key is refused as an origin (exit 3), saying how to go on"

# ---- the key outside the store; backups under load -----------------------------------
serve o --log-key-file "$WORK/keys/log.key"
import "--server $(addr o)" 41 400 4 &
ipid=$!
sleep 0.5
"$KIXD" backup --store "$WORK/o" "$WORK/b1" >"$WORK/b1.out" 2>&1 || fail "backup 1: $(cat "$WORK/b1.out")"
sleep 0.3
"$KIXD" backup --store "$WORK/o" --with-log-key --log-key-file "$WORK/keys/log.key" "$WORK/b2" \
  >"$WORK/b2.out" 2>&1 || fail "backup 2: $(cat "$WORK/b2.out")"
wait "$ipid" || fail "import under backups: $(tail -3 "$WORK/import.log")"
final=$(size_of o)
b1=$(sed -n 's/.* at size \([0-9]*\) .*/\1/p' "$WORK/b1.out")
b2=$(sed -n 's/.* at size \([0-9]*\) .*/\1/p' "$WORK/b2.out")
[ -n "$b1" ] && [ -n "$b2" ] && [ "$b1" -gt 41 ] && [ "$b1" -le "$b2" ] && [ "$b2" -le "$final" ] ||
  fail "backup sizes $b1, $b2 (log at $final)"
for b in b1 b2; do
  [ ! -e "$WORK/$b.partial" ] || fail "$b.partial left behind"
  [ ! -e "$WORK/$b/admin.key" ] && [ ! -e "$WORK/$b/lock.mdb" ] || fail "$b holds more than data"
  "$KIXD" check --store "$WORK/$b" >"$WORK/chk" 2>&1 || fail "$b does not check: $(cat "$WORK/chk")"
done
[ ! -e "$WORK/b1/log.key" ] || fail "b1 holds the log key without --with-log-key"
grep -q "log key NOT copied" "$WORK/b1.out" || fail "b1 does not say the key is not in it"
[ "$(stat -c %a "$WORK/b2/log.key")" = 600 ] || fail "b2's log.key is not 0600"
cmp -s "$WORK/b2/log.key" "$WORK/keys/log.key" || fail "b2's log.key is not the log's key"
[ "$(stat -c %s "$WORK/b2/data.mdb")" -le "$(stat -c %s "$WORK/o/data.mdb")" ] ||
  fail "the compacted copy is larger than the store"
pass "two backups while publishing: sizes $b1 and $b2 of $final, each passes kixd check; key only in b2 (0600)"

expect_status 1 "$KIXD" backup --store "$WORK/o" "$WORK/b1"
grep -q "exists" "$WORK/err" || fail "backup over a backup: $(cat "$WORK/err")"
expect_status 1 "$KIXD" backup --store "$WORK/o" --with-log-key "$WORK/b3"
[ ! -e "$WORK/b3" ] && [ ! -e "$WORK/b3.partial" ] || fail "a failed backup left a directory"
expect_status 2 "$KIXD" backup --store "$WORK/o" --log-key-file "$WORK/keys/log.key" "$WORK/b3"
pass "a backup never replaces one, and a failed one leaves nothing named (no key in the store)"

# a damaged store: the copy fails its check and is not named a backup
cp -r "$WORK/b1" "$WORK/bad"
"$KIX_BIN/kix-tamper" "$WORK/bad" leaves u64:4 120 || fail "kix-tamper"
expect_status 1 "$KIXD" backup --store "$WORK/bad" "$WORK/b4"
grep -q "failed its check" "$WORK/err" || fail "tampered store: $(cat "$WORK/err")"
[ ! -e "$WORK/b4" ] && [ ! -e "$WORK/b4.partial" ] || fail "a failed check left a directory"
pass "the copy of a damaged store fails its check: no backup made (exit 1)"

# ---- restore: read-only copy, catching up from a mirror, then the origin ------------
cp -r "$WORK/b1" "$WORK/r"
serve r --read-only
[ "$(size_of r)" = "$b1" ] || fail "the read-only copy serves size $(size_of r), want $b1"
make_manifests "$WORK/m" 1
KIX_STATE_DIR="$WORK/st-r" "$KIX" publish --server "$(addr r)" --log-key "$WORK/vkey" \
  --key "$WORK/pub.key" "$WORK/m/run.json" >"$WORK/out" 2>&1 && fail "a read-only copy took a submit"
stop r
# the origin's machine is lost; a mirror of it holds everything acknowledged
mirror m o
wait_size m "$final" 60
# a backup holding the log key served as a mirror: refused, saying to move the key out
cp -r "$WORK/b2" "$WORK/bk"
expect_status 2 "$KIXD" serve --store "$WORK/bk" --listen "unix://$WORK/x.sock" \
  --mirror-of "$(addr m)" --upstream-key "$WORK/vkey"
grep -q "holds a log of its own .* move $WORK/bk/log.key out of it" "$WORK/err" ||
  fail "a backup with its key served as a mirror: $(cat "$WORK/err")"
stop o
# the restored copy is behind the mirror: refused as the origin while it is
expect_status 4 "$KIXD" serve --store "$WORK/r" --listen "unix://$WORK/x.sock" \
  --log-key-file "$WORK/keys/log.key" --peer "$(addr m)"
grep -q "REFUSING TO SERVE .* it holds the log to size $b1 but the peer .* at size $final" "$WORK/err" ||
  fail "a restored copy behind its mirror: $(cat "$WORK/err")"
# a copy that signed on without catching up is a fork: refused too
cp -r "$WORK/b1" "$WORK/f"
serve f --log-key-file "$WORK/keys/log.key"
import "--server $(addr f)" 411 $((411 + final - b1 + 10)) 50 || fail "publishing to the fork: $(tail -3 "$WORK/import.log")"
stop f
expect_status 4 "$KIXD" serve --store "$WORK/f" --listen "unix://$WORK/x.sock" \
  --log-key-file "$WORK/keys/log.key" --peer "$(addr m)"
grep -q "REFUSING TO SERVE .* the peer .* holds another root at size $final than this store: the log forked" \
  "$WORK/err" || fail "a forked copy: $(cat "$WORK/err")"
# the restored copy (older) catches up from the mirror before it is the origin again
serve r --mirror-of "$(addr m)" --upstream-key "$WORK/vkey"
wait_size r "$final" 60
stop r
# it caught up as a mirror: it becomes the origin by kixd promote (checked, recorded)
"$KIXD" promote --store "$WORK/r" --log-key-file "$WORK/keys/log.key" >"$WORK/out" 2>&1 ||
  fail "promoting the caught-up copy: $(cat "$WORK/out")"
# the restore itself: the caught-up copy takes the lost store's place and address
mv "$WORK/o" "$WORK/o-lost"
mv "$WORK/r" "$WORK/o"
serve o --log-key-file "$WORK/keys/log.key" --peer "$(addr m)"
grep -q "peer .* holds size $final, this store $final: not behind" "$WORK/o.log" ||
  fail "the caught-up store was not compared with its peer: $(tail -3 "$WORK/o.log")"
[ "$(size_of o)" = "$final" ] || fail "the restored origin serves $(size_of o), want $final"
import "--server $(addr o)" 401 410 5 || fail "publishing to the restored origin: $(tail -3 "$WORK/import.log")"
grown=$(size_of o)
[ "$grown" -gt "$final" ] || fail "nothing published to the restored origin"
wait_size m "$grown" 30 # the mirror follows the restored origin: the same log, no fork
stop o
"$KIXD" check --store "$WORK/o" >"$WORK/chk" 2>&1 || fail "restored store: $(cat "$WORK/chk")"
pass "restore: b1 (size $b1) served read-only, refused as the origin behind its mirror (--peer), caught up from it to $final, then the origin again at $grown; the mirror follows it"

# ---- kixd init with every key outside the store -------------------------------------
"$KIXD" init --store "$WORK/k" --origin k.test/log --log-key-file "$WORK/keys/k-log.key" \
  --admin-key "$WORK/keys/k-admin.key" >"$WORK/k.vkey" 2>"$WORK/err" || fail "init: $(cat "$WORK/err")"
[ -z "$(find "$WORK/k" -name '*.key' -o -name '*.pub')" ] || fail "a key file in the store: $(ls "$WORK/k")"
[ "$(stat -c %a "$WORK/keys/k-log.key")" = 600 ] && [ "$(stat -c %a "$WORK/keys/k-admin.key")" = 600 ] ||
  fail "key files not 0600"
"$KIX" key add --store "$WORK/k" --key "$WORK/keys/k-admin.key" --role publish "$WORK/pub.pub" \
  >"$WORK/out" 2>&1 && fail "a keyless store took a key entry" || true
expect_status 3 "$KIXD" serve --store "$WORK/k" --listen "unix://$WORK/k.sock"
serve k --log-key-file "$WORK/keys/k-log.key"
[ "$(size_of k)" = 1 ] || fail "the new log has size $(size_of k)"
stop k
expect_status 2 "$KIXD" init --store "$WORK/k2" --origin k.test/log --admin-pub "$WORK/pub.pub" \
  --admin-key "$WORK/keys/x.key"
pass "kixd init --log-key-file --admin-key: no key in the store; it serves with --log-key-file only"

# ---- kixd init writes no admin key into the store unless told to ----------------------
expect_status 2 "$KIXD" init --store "$WORK/d0" --origin d.test/log
grep -q -- "--admin-key FILE" "$WORK/err" || fail "no way out named: $(cat "$WORK/err")"
[ ! -e "$WORK/d0" ] || fail "a refused kixd init left $WORK/d0 behind"
"$KIXD" init --store "$WORK/d" --origin d.test/log --admin-key "$WORK/keys/d-admin.key" \
  >"$WORK/d.vkey" 2>"$WORK/err" || fail "init: $(cat "$WORK/err")"
grep -q "admin key: $WORK/keys/d-admin.key (0600" "$WORK/err" || fail "init does not say where: $(cat "$WORK/err")"
[ "$(find "$WORK/d" -type f -name '*.key')" = "$WORK/d/log.key" ] ||
  fail "a private key other than the log key in the store: $(find "$WORK/d" -name '*.key')"
! grep -rlq "PRIVATE+KEY" "$WORK/d" --exclude=log.key || fail "a private key inside the store"
[ "$(stat -c %a "$WORK/keys/d-admin.key")" = 600 ] || fail "the admin key is not 0600"
[ -f "$WORK/keys/d-admin.key.pub" ] || fail "no admin key.pub"
# an existing key file is never overwritten, and nothing is made then
before=$(sha256sum "$WORK/keys/d-admin.key")
expect_status 1 "$KIXD" init --store "$WORK/d2" --origin d.test/log --admin-key "$WORK/keys/d-admin.key"
grep -q "refusing to overwrite" "$WORK/err" || fail "no refusal: $(cat "$WORK/err")"
[ "$(sha256sum "$WORK/keys/d-admin.key")" = "$before" ] && [ ! -e "$WORK/d2" ] ||
  fail "a refused kixd init changed the key or made a store"
expect_status 1 "$KIXD" init --store "$WORK/d3" --origin d.test/log --admin-key "$WORK/no/such/dir/a.key"
[ ! -e "$WORK/d3" ] || fail "kixd init made a store whose admin key it could not write"
# asked for explicitly, the key may still go into the store
"$KIXD" init --store "$WORK/d4" --origin d.test/log --admin-key "$WORK/d4/admin.key" \
  >/dev/null 2>"$WORK/err" || fail "init into the store: $(cat "$WORK/err")"
[ "$(stat -c %a "$WORK/d4/admin.key")" = 600 ] || fail "an admin key asked into the store is not 0600"
"$KIX" key add --store "$WORK/d4" --key "$WORK/d4/admin.key" --role publish "$WORK/pub.pub" \
  >/dev/null || fail "the admin key asked into the store does not sign"
pass "kixd init: no admin key in the store unless --admin-key puts it there; 0600; never overwritten"
