#!/usr/bin/env bash
# A store of layout 3 (an older kixd's: made from today's by kix-old-layout)
# whose index.mdb must be derived again: the machine stopped while it was
# open (index.unsynced names another boot; KIX_TEST_BOOT_ID plays this
# one), or index.mdb is missing, or it is not an LMDB file.
#  - kixd migrate backs it up (data.mdb, what cannot be derived, as it was:
#    the same tables byte for byte; the lost index is left out), converts
#    it to layout 4, derives the index and passes the full check: the same
#    checkpoints and index notes, byte for byte, the same runs, every entry
#    found again (its rows published again are duplicates)
#  - the backup is faithful: a copy of it, migrated, is the same store
#  - kixd serve converts such a store on start the same way and serves
#    every entry
#  - a store whose log cannot be read either is refused, naming the cause
#    and the fix
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"

command -v mdb_dump >/dev/null || { echo "skipped: no mdb_dump (lmdb-utils)"; exit 77; }
OLD="$KIX_BIN/kix-old-layout"
[ -x "$OLD" ] || fail "no $OLD (built with the tests)"

# notes NAME: the checkpoints and index notes a store holds, every size, as
# bytes (mdb_dump of their tables: keys and values in hex)
notes() {
  mdb_dump -s checkpoints "$WORK/$1" | sed -n '/^HEADER=END/,$p'
  mdb_dump -s index_notes "$WORK/$1" | sed -n '/^HEADER=END/,$p'
}
# tables NAME: every table of data.mdb, keys and values, without the
# environment's own figures (a compacted copy has another map size)
tables() { mdb_dump -a "$WORK/$1" | grep -v -E '^(mapsize|maxreaders|db_pagesize)='; }
# checked NAME: the full check passes; prints its size, runs and whether
# the index was checked
checked() {
  "$KIXD" check --store "$WORK/$1" --json >"$WORK/chk.json" 2>"$WORK/chk.err" ||
    fail "check of $1: $(cat "$WORK/chk.json" "$WORK/chk.err")"
  json_get "$WORK/chk.json" 'd["ok"], d["indexChecked"], d["size"], d["runs"]'
}

# ---- the layout-3 store, whole -------------------------------------------------------
new_origin "$WORK/base"
import "--store $WORK/base" 1 40 8 || fail "publishing: $(tail -3 "$WORK/import.log")"
"$OLD" "$WORK/base" 3 || fail "kix-old-layout"
[ "$(meta base layout)" = 3 ] && [ ! -e "$WORK/base/log.dat" ] && [ -s "$WORK/base/index.mdb" ] ||
  fail "not a layout-3 store"
want=$(checked base)
read -r ok ichecked size runs <<<"$want"
[ "$ok $ichecked" = "True True" ] && [ "$size" -ge 40 ] && [ "$runs" -ge 30 ] || fail "the store before: $want"
notes base >"$WORK/notes-base"
tables base >"$WORK/tables-base"
export KIX_TEST_BOOT_ID=this-boot

# lose NAME HOW: a copy of base whose index must be derived again
lose() {
  cp -a "$WORK/base" "$WORK/$1"
  case $2 in
  stopped) echo another-boot >"$WORK/$1/index.unsynced" ;;
  missing) rm -f "$WORK/$1/index.mdb" "$WORK/$1/index.mdb-lock" ;;
  garbage) python3 -c 'import sys; sys.stdout.write("not an LMDB file\n" * 1024)' >"$WORK/$1/index.mdb" ;;
  esac
}

# ---- kixd migrate, each way of losing the index ---------------------------------------
for how in stopped missing garbage; do
  lose "$how" "$how"
  expect_status 0 "$KIXD" migrate --store "$WORK/$how" --json
  cp "$WORK/err" "$WORK/migrate-$how.err"
  [ "$(json_get "$WORK/out" 'd["converted"], d["layoutBefore"], d["layout"], d["checked"], d["size"]')" = \
    "True 3 4 full $size" ] || fail "kixd migrate of the $how index said $(cat "$WORK/out" "$WORK/err")"
  grep -q "the index in $WORK/$how/index.mdb is left out of the backup" "$WORK/migrate-$how.err" ||
    fail "kixd migrate did not say the backup holds no index: $(cat "$WORK/migrate-$how.err")"
  [ "$(meta "$how" layout)" = 4 ] && [ -s "$WORK/$how/log.dat" ] && [ ! -e "$WORK/$how/index.unsynced" ] ||
    fail "$how: not converted, or left unsynced"
  [ "$(checked "$how")" = "$want" ] || fail "the check of the converted $how store: $(checked "$how"), before: $want"
  notes "$how" >"$WORK/notes-$how"
  cmp "$WORK/notes-base" "$WORK/notes-$how" || fail "$how: checkpoints or index notes changed"
  # the backup: data.mdb as it was, table by table; nothing derived
  b="$how.before-migrate"
  [ "$(meta "$b" layout)" = 3 ] && [ ! -e "$WORK/$b/log.dat" ] && [ ! -e "$WORK/$b/index.mdb" ] &&
    [ ! -e "$WORK/$b/index.unsynced" ] || fail "the backup of $how: $(ls "$WORK/$b")"
  # read as it is, it is refused, naming the fix
  expect_status 3 "$KIXD" check --store "$WORK/$b"
  grep -q "index.mdb is missing, so it cannot be read; start kixd on the store once" "$WORK/err" ||
    fail "check of the backup of $how: $(cat "$WORK/err")"
  tables "$b" >"$WORK/tables-$b"
  cmp "$WORK/tables-base" "$WORK/tables-$b" || fail "the backup of $how is not the store's data.mdb"
done
pass "kixd migrate: a layout-3 store whose index was lost (machine stopped, missing, not LMDB) is backed up (data.mdb, table for table), converted, its index derived, checked ($size entries, $runs runs; checkpoints and index notes byte-identical)"

# every entry is found again: the same rows publish as duplicates
KIX_STATE_DIR="$WORK/again-state" "$KIX_BIN/kix-import-liger" --key "$WORK/pub.key" --store "$WORK/stopped" \
  --batch 8 --json "$WORK/rows-1-40.csv" >"$WORK/again.json" 2>"$WORK/err" ||
  fail "republishing: $(cat "$WORK/err")"
[ "$(json_get "$WORK/again.json" 'd["newEntries"]')" = 0 ] || fail "republishing: $(cat "$WORK/again.json")"
pass "every entry of the converted store is found again ($(json_get "$WORK/again.json" 'd["duplicates"]') duplicates, none new)"

# the backup is faithful: migrated in its turn, it is the same store
cp -a "$WORK/stopped.before-migrate" "$WORK/restored"
install -m 600 "$WORK/base/log.key" "$WORK/restored/log.key" # a backup holds no log key
expect_status 0 "$KIXD" migrate --store "$WORK/restored" --no-backup --json
[ "$(json_get "$WORK/out" 'd["converted"], d["layoutBefore"], d["layout"]')" = "True 3 4" ] ||
  fail "migrating the backup: $(cat "$WORK/out")"
[ "$(checked restored)" = "$want" ] || fail "the restored backup: $(checked restored)"
notes restored >"$WORK/notes-restored"
cmp "$WORK/notes-base" "$WORK/notes-restored" || fail "the restored backup holds other notes"
pass "the backup, migrated in its turn, passes the full check with the same notes"

# ---- kixd serve converts on start the same way -----------------------------------------
lose served stopped
serve served
[ "$(size_of served)" = "$size" ] || fail "served size $(size_of served)"
# after its copy as it was, the log alone (the index cannot be read)
[ -s "$WORK/served.before-migrate/data.mdb" ] && [ ! -e "$WORK/served.before-migrate/index.mdb" ] &&
  [ "$(meta served.before-migrate layout)" = 3 ] || fail "kixd serve's copy of the store before converting it"
grep -q "the store as it was is copied to $WORK/served.before-migrate without its index, which cannot be read" "$WORK/served.log" ||
  fail "kixd serve did not say its copy has no index: $(tail -3 "$WORK/served.log")"
stop served || fail "kixd serve exited $?: $(tail -3 "$WORK/served.log")"
[ "$(meta served layout)" = 4 ] || fail "kixd serve did not convert"
[ "$(checked served)" = "$want" ] || fail "the check after kixd serve: $(checked served)"
notes served >"$WORK/notes-served"
cmp "$WORK/notes-base" "$WORK/notes-served" || fail "kixd serve's conversion changed the notes"
pass "kixd serve converts a layout-3 store whose machine stopped on start, after copying its log, derives its index and serves all $size entries"

# ---- what cannot be done is refused, naming the cause and the fix --------------------
lose broken stopped
python3 -c 'import sys; sys.stdout.write("not an LMDB file\n" * 1024)' >"$WORK/broken/data.mdb"
expect_status 1 "$KIXD" migrate --store "$WORK/broken"
grep -q "reading the log of $WORK/broken (data.mdb: every entry, which cannot be derived): .*File is not an LMDB file" "$WORK/err" ||
  fail "the refusal names no cause: $(cat "$WORK/err")"
grep -q "restore from a mirror" "$WORK/err" || fail "the refusal names no fix: $(cat "$WORK/err")"
[ ! -e "$WORK/broken.before-migrate" ] || fail "a refused migration left a backup directory"
pass "a store whose data.mdb cannot be read either is refused: $(cat "$WORK/err")"
