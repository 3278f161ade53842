#!/usr/bin/env bash
# Issue 38 item 2: a static copy costs little more than the log. The byte
# budget of `kixd export` a run (ARCHITECTURE.md, "Byte budget per entry:
# static copy"; tools/bench/RESULTS.md), held to generous bounds computed
# from the export's own counts (its --json summary), so that a change that
# puts a run's bytes in the copy twice again fails here; no timing.
#  - each run's canonical manifest is in its files once: runs/<id>.json's
#    manifestCanonical, no `manifest` or `sections` beside it, and not in
#    the page (PROTOCOL.md §3, layout 3);
#  - the copy's bytes a run page and runs/'s bytes a run page, its names
#    (directory entries) and inodes (files: a hard link is none) a run;
#  - exporting again after N new entries writes files and bytes bounded by
#    the pages it says it wrote and N, and the run pages of those entries'
#    runs alone.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"

new_origin "$WORK/o"
import "--store $WORK/o" 1 300 100 || fail "import: $(tail -3 "$WORK/import.log")"
expect_status 0 "$KIXD" export --json --store "$WORK/o" "$WORK/exp"
cp "$WORK/out" "$WORK/first.json"
python3 - "$WORK/first.json" "$WORK/exp" >"$WORK/budget" <<'PY' || fail "the static copy's bytes a run: $(cat "$WORK/first.json")"
import json, os, sys
said = json.load(open(sys.argv[1]))
root = sys.argv[2]
runs = said["runPages"]
assert said["ok"] and runs == 300, said
names = 0
inodes = {}
runs_bytes = 0
for d, _, files in os.walk(root):
    for f in files:
        st = os.stat(os.path.join(d, f))
        names += 1
        inodes[(st.st_dev, st.st_ino)] = st.st_size
        if os.path.relpath(d, root) == "runs":
            runs_bytes += st.st_size / st.st_nlink
total = sum(inodes.values())
assert said["files"] == names and said["bytes"] == total, (said, names, total)
# the bounds: about 1.25 times what layout 3 writes (38 KB a run at 300
# Liger runs, 24 KB of it the run's page and view; layout 2 wrote 52 and 38)
per_run, page_and_view = total / runs, runs_bytes / runs
assert per_run <= 46e3, "the copy holds %.0f bytes a run (bound 46 KB)" % per_run
assert page_and_view <= 30e3, "a run's page and view hold %.0f bytes (bound 30 KB)" % page_and_view
# names and files: a run's page (two names), view and manifest, and small
# shares of the rest; the index is packed (PROTOCOL.md §3.2, "Index
# packs"): a small fraction of a file a run, where one file a record and a
# tile made 4.7 (8.9 files, 10.3 names a run before)
assert names / runs <= 7, "%.1f names a run (bound 7)" % (names / runs)
assert len(inodes) / runs <= 5, "%.1f files a run (bound 5)" % (len(inodes) / runs)
index_files = sum(len(fs) for d, _, fs in os.walk(os.path.join(root, "index")))
assert index_files / runs <= 0.2, "%.2f index files a run (bound 0.2)" % (index_files / runs)
# each run's manifest once in its files
for f in sorted(os.listdir(os.path.join(root, "runs"))):
    if not f.endswith(".json"):
        continue
    v = json.load(open(os.path.join(root, "runs", f)))
    assert "manifest" not in v and "sections" not in v, "runs/%s repeats the manifest" % f
    canon = v["manifestCanonical"]
    page = open(os.path.join(root, "runs", f[:-5] + ".html"), encoding="utf-8").read()
    shown = canon.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    assert shown not in page and canon not in page, "runs/%s.html repeats the manifest" % f[:-5]
print("%.0f bytes a run (%.0f of them the page and view), %.1f names and %.1f files a run"
      % (per_run, page_and_view, names / runs, len(inodes) / runs))
PY
pass "the copy's bytes and files a run are within bounds, each manifest once ($(cat "$WORK/budget"))"

# exporting again after 20 new entries: what it writes is bounded by the
# pages it wrote and the new entries, not by the copy's size
import "--store $WORK/o" 301 320 20 || fail "import more: $(tail -3 "$WORK/import.log")"
expect_status 0 "$KIXD" export --json --store "$WORK/o" "$WORK/exp"
python3 - "$WORK/out" "$WORK/first.json" <<'PY' || fail "exporting again: $(cat "$WORK/out")"
import json, sys
said, first = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
new = said["size"] - said["fromSize"]
assert new == 20 and said["fromSize"] == first["size"], said
pages = said["runPages"] + said["groupPages"] + said["kernelPages"] + said["homePages"]
# each page 3 names (page, .html, .json); the search index and shards; the
# tiles, bundles, objects and index files of each new entry
assert said["files"] <= 3 * pages + 8 + 3 * new, "%d files for %d pages and %d entries" % (said["files"], pages, new)
# the run pages of the new entries' runs alone: the other runs of their
# groups keep theirs (their ranks are what the verifier proves)
assert said["runPages"] <= new, "%d run pages for %d new entries" % (said["runPages"], new)
assert said["bytes"] <= 30e3 * said["runPages"] + 30e3 * said["groupPages"] + 100e3 * said["kernelPages"] \
    + 120e3 * said["homePages"] + 200e3 + 8e3 * new, "%d bytes" % said["bytes"]
assert said["files"] < first["files"] / 4 and said["bytes"] < first["bytes"] / 4, (said, first)
PY
pass "exporting 20 new entries again writes what its pages and entries need ($(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["files"], "files,", d["bytes"], "bytes")' "$WORK/out"))"

# a new entry that changes no group's row (a key added): the home pages
# from 2 on and the search shards are left as they were (they carry no
# checkpoint, no tree size and no count the entry moved); page 1 says the
# new size
[ -f "$WORK/exp/home/2.json" ] && [ -f "$WORK/exp/search/0.json" ] || fail "the test needs two home pages"
KEEP=("$WORK/exp/home/2" "$WORK/exp/home/2.json" "$WORK/exp/search/0.json")
before=$(stat -c '%i %s' "${KEEP[@]}")
"$KIX" keygen --name att --out "$WORK/att" >/dev/null 2>&1
"$KIX" key add --store "$WORK/o" --key "$WORK/o/admin.key" --role attest "$WORK/att.pub" >/dev/null || fail "key add"
expect_status 0 "$KIXD" export --json --store "$WORK/o" "$WORK/exp"
[ "$(stat -c '%i %s' "${KEEP[@]}")" = "$before" ] || fail "home/2 or a search shard was written again: $(cat "$WORK/out")"
python3 - "$WORK/exp/index.json" "$WORK/out" <<'PY' || fail "page 1 does not say the new size"
import json, sys
home, said = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert home["treeSize"] == said["size"] and said["homePages"] == 1, (home["treeSize"], said)
PY
pass "an entry that moves no group's row: home pages 2 on and search shards left as they were, page 1 at the new size"

# the summary counts each file once: a log whose older checkpoints leave a
# level-1 tile at two widths, the last the size's own (checkpoints at 275,
# 550 and 602 entries: widths 1, 2, 2), had that tile written, and counted,
# twice
"$KIX_BIN/kix-gen-log" "$WORK/g" 600 275 >/dev/null 2>"$WORK/gen.err" || fail "kix-gen-log: $(cat "$WORK/gen.err")"
expect_status 0 "$KIXD" export --json --store "$WORK/g" "$WORK/gexp"
python3 - "$WORK/out" "$WORK/gexp" <<'PY' || fail "the export's summary is not its tree: $(cat "$WORK/out")"
import json, os, sys
said, root = json.load(open(sys.argv[1])), sys.argv[2]
names, total, seen = 0, 0, set()
for d, _, files in os.walk(root):
    for f in files:
        st = os.lstat(os.path.join(d, f))
        names += 1
        if st.st_ino not in seen:
            seen.add(st.st_ino)
            total += st.st_size
assert said["files"] == names and said["bytes"] == total, (said["files"], names, said["bytes"], total)
PY
pass "the export's summary counts each file it wrote once (tiles of older checkpoints too)"
