#!/usr/bin/env bash
# kixd export after a power cut cut the index's export short. The index
# packs are written unsynced, and the next export locates what did not
# change in the packs the one before wrote: a power cut could lose a pack
# or tear one, and no later export would write it again. index/exporting,
# made durable before the first file and removed after the sync, marks
# such an export; the next one locates nothing in it and writes the whole
# tree again. Here the state such a power cut may leave
# (the weak model of tests/crash/README.md) is made by hand; then the same
# for the objects (objects/exporting).
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

# every run's record, read as a reader reads it (the root tile by name,
# then where each tile locates what is below it), is its leaf's
runs() { (cd "$WORK/exp/runs" && ls | grep -v '[.]' | sed 's|^|run/|' | paste -sd,); }
IX=(python3 "$KIX_TESTS/integration/index_files.py")

# a pack lost and another torn (each holds tiles and records)
lost=$(cd "$WORK/exp" && find index/pack -type f | sort | tail -1)
torn=$(cd "$WORK/exp" && find index/pack -type f | sort | sed -n 1p)
[ -n "$lost" ] && [ "$lost" != "$torn" ] || fail "fewer than two index packs exported"
rm "$WORK/exp/$lost"
: >"$WORK/exp/$torn"

# without the mark (a finished export), nothing is walked again: the
# files are taken as they are
expect_status 0 "$KIXD" export --store "$WORK/o" "$WORK/exp"
[ ! -e "$WORK/exp/$lost" ] || fail "an export after a finished one wrote the index again"

# with it, the same size: every file is back with its bytes (an export
# that follows one cut short locates nothing in it: it writes the whole
# tree, as the first did)
: >"$WORK/exp/index/exporting"
expect_status 0 "$KIXD" export --store "$WORK/o" "$WORK/exp"
diff -r "$WORK/whole/index" "$WORK/exp/index" >"$WORK/diff" || fail "not repaired: $(head -5 "$WORK/diff")"
"${IX[@]}" "$WORK/exp" "$(runs)" check || fail "a run's record is not read back"
pass "an index export cut short is repaired by the next one at the same size"

# and when the log has grown meanwhile: the new export's packs hold the
# whole tree, the lost and torn ones are no longer read
rm "$WORK/exp/$lost"
: >"$WORK/exp/$torn"
: >"$WORK/exp/index/exporting"
"$KIX_BIN/kix-import-liger" --key "$WORK/pub.key" --store "$WORK/o" "$WORK/more.csv" >/dev/null 2>&1 ||
  fail "import 2"
expect_status 0 "$KIXD" export --store "$WORK/o" "$WORK/exp"
"${IX[@]}" "$WORK/exp" "$(runs)" check || fail "a run's record is not read back after the repair"
[ ! -e "$WORK/exp/index/exporting" ] || fail "the repairing export left its mark"
pass "and by the next one after the log grew"

# ---- the objects: the same mark, objects/exporting ------------------------------------------
# objects/<digest> are written unsynced too, a run's manifest after the
# objects it names, and an object file that exists ended the next export's
# walk: a power cut could keep a manifest and lose what it names, or tear
# a file, and no later export would write them again.
cp -a "$WORK/exp" "$WORK/before"
sed -n '1p;2447,2449p' "$KIX_TESTS/data/liger/all_benchmark_data.csv" >"$WORK/third.csv" # another kernel: new workloads
"$KIX_BIN/kix-import-liger" --key "$WORK/pub.key" --store "$WORK/o" "$WORK/third.csv" >/dev/null 2>&1 ||
  fail "import 3"
expect_status 0 "$KIXD" export --store "$WORK/o" "$WORK/exp"
[ ! -e "$WORK/exp/objects/exporting" ] || fail "a finished export left objects/exporting"
cp -a "$WORK/exp" "$WORK/after"
# the state a power cut may leave in the export of the third batch: its
# objects there but the checkpoint the second's; a manifest kept whole
# while an object it names is empty; another object torn
# (a new run's manifest, its bundle partial, is in its run page alone:
# the walk reads it from the log and stops at the files it names)
python3 - "$WORK/before/objects" "$WORK/after/objects" "$WORK/after/runs" >"$WORK/cut" <<'PY' || fail "no new manifest naming a new object"
import hashlib, json, os, re, sys
sys.path.insert(0, os.environ["KIX_TESTS"] + "/integration")
import page_view
before, after, runs = set(os.listdir(sys.argv[1])), sys.argv[2], sys.argv[3]
new = sorted(set(os.listdir(after)) - before)
texts = [(m, open(os.path.join(after, m)).read()) for m in new]
for f in sorted(os.listdir(runs)):
    if f.endswith(".html"):
        v = page_view.load(os.path.join(runs, f))  # its manifest, #kix-manifest's text (layout 7)
        texts.append(("sha256:" + hashlib.sha256(v["manifestCanonical"].encode()).hexdigest(),
                      v["manifestCanonical"]))
for m, text in texts:
    named = [o for o in new if o != m and o in text]
    if named:
        torn = [o for o in new if o != m and o != named[0]]
        print(m, named[0], torn[0] if torn else "")
        break
else:
    sys.exit(1)
PY
read -r manifest child torn <"$WORK/cut"
cut_state() {
  rm -rf "$WORK/exp" && cp -a "$WORK/before" "$WORK/exp"
  for f in $(cd "$WORK/after/objects" && ls); do
    [ -e "$WORK/exp/objects/$f" ] || cp "$WORK/after/objects/$f" "$WORK/exp/objects/$f"
  done
  : >"$WORK/exp/objects/$child"
  [ -z "$torn" ] || printf 'x' | dd of="$WORK/exp/objects/$torn" bs=1 seek=10 conv=notrunc status=none
}
# without the mark, the files are taken as they are: the empty one stays
cut_state
expect_status 0 "$KIXD" export --store "$WORK/o" "$WORK/exp"
[ ! -s "$WORK/exp/objects/$child" ] || fail "an export after a finished one walked past an existing manifest"
# with it (made before the first object file), every object is whole again
cut_state
: >"$WORK/exp/objects/exporting"
expect_status 0 "$KIXD" export --store "$WORK/o" "$WORK/exp"
diff -r "$WORK/after/objects" "$WORK/exp/objects" >"$WORK/diff" ||
  fail "objects not repaired: $(head -5 "$WORK/diff")"
pass "an export whose objects were cut short is repaired by the next one"
