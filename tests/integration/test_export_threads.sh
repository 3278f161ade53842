#!/usr/bin/env bash
# kixd export renders run and group pages on KIXD_EXPORT_THREADS threads
# (each a contiguous shard of the sorted pages, a read snapshot of its
# own): the copy must be byte-identical to a one-thread export's, with the
# same hard links (a page and its .html twin), and the --json summary
# must count the tree (each name once, each inode's bytes once), both on a
# first export (new pages created under their names in directories the
# export made) and on an export into a copy whose runs/ and groups/ exist
# (pages replaced through a temporary name). A KIXD_EXPORT_THREADS that is
# not 1 to 64 is a usage error.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"

# 300 Liger rows: run pages, and groups with pages after their first
new_origin "$WORK/g"
import "--store $WORK/g" 1 300 50 || fail "import: $(tail -3 "$WORK/import.log")"
for t in 1 3; do
  KIXD_EXPORT_THREADS=$t expect_status 0 "$KIXD" export --json --store "$WORK/g" "$WORK/e$t"
  cp "$WORK/out" "$WORK/sum$t"
done

# the tree: every name, its bytes' digest, and which names share an inode
tree() {
  python3 - "$1" <<'PY'
import hashlib, os, sys
root, by_ino, out = sys.argv[1], {}, []
for d, _, files in os.walk(root):
    for f in files:
        p = os.path.join(d, f)
        rel = os.path.relpath(p, root)
        by_ino.setdefault(os.lstat(p).st_ino, []).append(rel)
        out.append("%s %s" % (rel, hashlib.sha256(open(p, "rb").read()).hexdigest()))
out += ["link " + " ".join(sorted(v)) for v in by_ino.values() if len(v) > 1]
print("\n".join(sorted(out)))
PY
}
counts() {
  summary_is_tree "$1" "$2" &&
    [ "$(json_get "$1" 'd["runPages"] > 100 and d["groupPages"] > 3')" = True ]
}
tree "$WORK/e1" >"$WORK/t1"
tree "$WORK/e3" >"$WORK/t3"
[ -s "$WORK/t1" ] || fail "the one-thread export wrote nothing"
cmp -s "$WORK/t1" "$WORK/t3" || fail "3 threads' copy differs from one thread's: $(diff "$WORK/t1" "$WORK/t3" | head -5)"
grep -q '^link .*runs/' "$WORK/t3" || fail "no run page has its .html twin linked"
counts "$WORK/sum1" "$WORK/e1" || fail "the one-thread summary is not its tree: $(cat "$WORK/sum1")"
counts "$WORK/sum3" "$WORK/e3" || fail "the 3-thread summary is not its tree: $(cat "$WORK/sum3")"
pass "an export on 3 threads is byte-identical to one on 1 (names, bytes, links), its summary its tree"

# every page again into a copy whose directories exist: without runs/.size
# the export starts from 0 and replaces each page by rename
rm "$WORK/e3/runs/.size"
KIXD_EXPORT_THREADS=2 expect_status 0 "$KIXD" export --json --store "$WORK/g" "$WORK/e3"
python3 - "$WORK/out" <<'PY' || fail "the export again wrote no page: $(cat "$WORK/out")"
import json, sys
said = json.load(open(sys.argv[1]))
assert said["runPages"] > 100, said  # every page again, not the new ones alone
PY
tree "$WORK/e3" >"$WORK/t3b"
cmp -s "$WORK/t1" "$WORK/t3b" || fail "pages replaced on 2 threads differ: $(diff "$WORK/t1" "$WORK/t3b" | head -5)"
if [ -n "$(find "$WORK/e3" -name '*.tmp*')" ]; then fail "temporary files left: $(find "$WORK/e3" -name '*.tmp*' | head -3)"; fi
pass "every page replaced on 2 threads in a copy that had them: the same tree, no temporary file left"

for bad in 0 65 two; do
  KIXD_EXPORT_THREADS=$bad expect_status 2 "$KIXD" export --store "$WORK/g" "$WORK/bad"
  grep -q "KIXD_EXPORT_THREADS" "$WORK/err" || fail "KIXD_EXPORT_THREADS=$bad: no error naming it: $(cat "$WORK/err")"
done
pass "KIXD_EXPORT_THREADS outside 1 to 64 is a usage error naming it"
