#!/usr/bin/env bash
# kixd compact: a stopped store's index.mdb written again in key order
# (store/log/compact.c): every record the same, the file no larger and
# without free pages, the store checked; refused while kixd serves it, and
# for a store an older kixd wrote (kixd migrate converts that).
. "$KIX_TESTS/integration/lib.sh"
command -v mdb_stat >/dev/null || { echo "skipped: no mdb_stat (lmdb-utils)"; exit 77; }

"$KIXD" init --store "$WORK/log" --admin-key "$WORK/log/admin.key" --origin kix.compact/log >"$WORK/vkey" 2>/dev/null
export KIX_LOG_KEY="$(cat "$WORK/vkey")"
"$KIX" keygen --name pub --out "$WORK/pub" >/dev/null 2>&1
"$KIX" key add --store "$WORK/log" --key "$WORK/log/admin.key" --role publish "$WORK/pub.pub" >/dev/null
for i in $(seq 1 24); do # one open each: the index grows by less than double, kept as written
  make_manifests "$WORK/m$i" "$i"
  "$KIX" publish --store "$WORK/log" --key "$WORK/pub.key" "$WORK/m$i/run.json" "$WORK/m$i/workload.json" >/dev/null
done
records() { mdb_dump -n -a "$WORK/log/index.mdb" | grep -v '^mapsize=\|^maxreaders='; }
free_pages() { mdb_stat -n -e -f "$WORK/log/index.mdb" | sed -n 's/^ *Free pages: //p'; }
records >"$WORK/before"
size_before=$(stat -c %s "$WORK/log/index.mdb")

start_kixd "$WORK/log"
expect_status 1 "$KIXD" compact --store "$WORK/log"
grep -q "stop the kixd serving $WORK/log before compacting it" "$WORK/err" || fail "not refused: $(cat "$WORK/err")"
stop_kixd

expect_status 0 "$KIXD" compact --store "$WORK/log" --json
[ "$(json_get "$WORK/out" 'd["indexBytesBefore"]')" = "$size_before" ] || fail "report: $(cat "$WORK/out")"
size_after=$(stat -c %s "$WORK/log/index.mdb")
[ "$(json_get "$WORK/out" 'd["indexBytes"]')" = "$size_after" ] || fail "report: $(cat "$WORK/out")"
[ "$size_after" -le "$size_before" ] || fail "index.mdb grew: $size_before -> $size_after"
[ "$(free_pages)" = 0 ] || fail "free pages left: $(free_pages)"
[ ! -e "$WORK/log/index.mdb.compact" ] || fail "the copy is left beside it"
records >"$WORK/after"
cmp -s "$WORK/before" "$WORK/after" || fail "the records changed: $(diff "$WORK/before" "$WORK/after" | sed -n 1,5p)"
expect_status 0 "$KIXD" check --store "$WORK/log"
pass "compacted: $size_before -> $size_after bytes, the same records, checked"

# a copy that cannot be made (its name taken by a directory) is a failure
# said as one, the index left as it was
mkdir "$WORK/log/index.mdb.compact"
size_now=$(stat -c %s "$WORK/log/index.mdb")
expect_status 3 "$KIXD" compact --store "$WORK/log"
grep -q "^kixd compact: copying the index" "$WORK/err" || fail "failed copy: $(cat "$WORK/err")"
[ -z "$(cat "$WORK/out")" ] || fail "a failed compaction reported: $(cat "$WORK/out")"
[ "$(stat -c %s "$WORK/log/index.mdb")" = "$size_now" ] || fail "the index changed"
rmdir "$WORK/log/index.mdb.compact"
expect_status 0 "$KIXD" check --store "$WORK/log"
pass "a copy that cannot be made fails the command and leaves the index"

# an older index format is migrate's to convert
python3 - "$WORK/log" <<'PY'
import subprocess, sys
d = sys.argv[1]
subprocess.run(["mdb_load", "-T", "-s", "meta", d], input=b"index\nkix-index/7\n", check=True)
PY
expect_status 1 "$KIXD" compact --store "$WORK/log"
grep -q "with index kix-index/7, not 4 and kix-index/9: convert it with kixd migrate --store $WORK/log first" "$WORK/err" ||
  fail "older format: $(cat "$WORK/err")"
pass "an older index is left to kixd migrate"
