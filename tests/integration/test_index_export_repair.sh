#!/usr/bin/env bash
# kixd export after a power cut cut the index's export short. The index
# tiles and values are written unsynced, side by side, and a tile that
# exists ends the next export's walk (its subtree was exported with it):
# a power cut could keep a tile and lose a child tile, or tear a value,
# and no later export would write them again. index/exporting, made
# durable before the first file and removed after the sync, marks such an
# export; the next one walks the whole tree and rewrites every file that
# is missing or not its bytes. Here the state such a power cut may leave
# (the weak model of tests/crash/README.md) is made by hand.
source "$(dirname "$0")/lib.sh"

head -301 "$KIX_TESTS/data/liger/all_benchmark_data.csv" >"$WORK/rows.csv"
sed -n '1p;302,303p' "$KIX_TESTS/data/liger/all_benchmark_data.csv" >"$WORK/more.csv"
"$KIXD" init --store "$WORK/o" --origin repair.test/log --admin-key "$WORK/admin.key" \
  >"$WORK/vkey" 2>/dev/null || fail "init"
"$KIX" keygen --name p --out "$WORK/pub" >/dev/null 2>&1
"$KIX" key add --store "$WORK/o" --key "$WORK/admin.key" --role publish "$WORK/pub.pub" >/dev/null
"$KIX_BIN/kix-import-liger" --key "$WORK/pub.key" --store "$WORK/o" --batch 300 "$WORK/rows.csv" \
  >/dev/null 2>&1 || fail "import"
expect_status 0 "$KIXD" export --store "$WORK/o" "$WORK/exp"
[ ! -e "$WORK/exp/index/exporting" ] || fail "a finished export left its mark"
cp -a "$WORK/exp" "$WORK/whole"

# the deepest tile (its parent stays) and a value, lost and torn
tile=$(cd "$WORK/exp" && find index/tile -type f | awk -F/ '{print length($3), $0}' | sort -n |
  tail -1 | cut -d' ' -f2)
value=$(cd "$WORK/exp" && find index/value -type f -print -quit)
[ -n "$tile" ] && [ -n "$value" ] || fail "no index files exported"
rm "$WORK/exp/$tile"
: >"$WORK/exp/$value"

# without the mark (a finished export), nothing is walked again: the
# files are taken as they are
expect_status 0 "$KIXD" export --store "$WORK/o" "$WORK/exp"
[ ! -e "$WORK/exp/$tile" ] || fail "an export after a finished one walked the whole tree"

# with it, the same size: every file is back with its bytes
: >"$WORK/exp/index/exporting"
expect_status 0 "$KIXD" export --store "$WORK/o" "$WORK/exp"
diff -r "$WORK/whole/index" "$WORK/exp/index" >"$WORK/diff" || fail "not repaired: $(head -5 "$WORK/diff")"
pass "an index export cut short is repaired by the next one at the same size"

# and when the log has grown meanwhile
rm "$WORK/exp/$tile"
: >"$WORK/exp/$value"
: >"$WORK/exp/index/exporting"
"$KIX_BIN/kix-import-liger" --key "$WORK/pub.key" --store "$WORK/o" "$WORK/more.csv" >/dev/null 2>&1 ||
  fail "import 2"
expect_status 0 "$KIXD" export --store "$WORK/o" "$WORK/exp"
[ -f "$WORK/exp/$tile" ] && cmp -s "$WORK/whole/$tile" "$WORK/exp/$tile" || fail "the lost tile is not back"
cmp -s "$WORK/whole/$value" "$WORK/exp/$value" || fail "the torn value is not whole again"
[ ! -e "$WORK/exp/index/exporting" ] || fail "the repairing export left its mark"
pass "and by the next one after the log grew"
