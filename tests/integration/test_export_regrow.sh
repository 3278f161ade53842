#!/usr/bin/env bash
# Issue 38 item 2, "exporting again after N new entries writes O(N) files
# and bytes": what `kixd export` writes again after one new run in an
# existing group, named file by file (ARCHITECTURE.md, "What a re-export
# still writes an entry"):
#  - the new run's page (its manifest in it: no objects/ file for it while
#    its bundle is partial), its group's pages, the home page and
#    search shard that hold its group's row, home page 1, the index's and
#    the log's new files, and its kernel's page and view; nothing else;
#  - its kernel's page and view list none of the kernel's groups (they are
#    the home pages' rows, which the page links searched for the kernel
#    and GPU), the page embeds no view and links each sweep's page
#    (sweeps/<id>.html) instead of drawing it: a new run rewrites its
#    kernel's page and the pages of the sweeps its group is a point of,
#    not O(groups of the kernel);
#  - the exported home pages embed no view and have no JSON beside them
#    (their rows are the search shards'): the rows a new run moves are
#    written twice, in their page and their shard;
#  - no home page, page 1 neither, carries the log's size or counts
#    (search/index.json does, which kix-search.js shows): page 1 is
#    written when its rows change, not at every export, so a key entry,
#    which moves no row, writes no home page, search shard, group or run
#    page, only search/index.json, the checkpoint and the log's and the
#    index's files (3 files besides those).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"

new_origin "$WORK/o"
import "--store $WORK/o" 1 300 100 || fail "import: $(tail -3 "$WORK/import.log")"
expect_status 0 "$KIXD" export --json --store "$WORK/o" "$WORK/exp"

# one new run in the group of CSV row 1: the same kernel, workload, pass,
# metric and GPU, another implementation
rows 1 1 | python3 -c '
import csv, sys
r = list(csv.reader(sys.stdin))
r[1][1] = "regrow"
for i in (8, 9, 10): # the median and its quantiles
    r[1][i] = str(float(r[1][i]) * 0.9)
csv.writer(sys.stdout, lineterminator="\n").writerows(r)' >"$WORK/one.csv"
KERNEL=$(awk -F, 'NR == 2 { print $1 }' "$WORK/one.csv")
find "$WORK/exp" -type f -exec touch -h -d '2000-01-01' {} +
"$KIX_BIN/kix-import-liger" --key "$WORK/pub.key" --store "$WORK/o" "$WORK/one.csv" >/dev/null \
  2>>"$WORK/import.log" || fail "import one run: $(tail -3 "$WORK/import.log")"
expect_status 0 "$KIXD" export --json --store "$WORK/o" "$WORK/exp"
cp "$WORK/out" "$WORK/again.json"
(cd "$WORK/exp" && find . -type f -newermt '2001-01-01' -printf '%P\n' | sort) >"$WORK/written"

python3 - "$WORK/again.json" "$WORK/exp" "$WORK/written" "$KERNEL" "$KIX_TESTS/integration" <<'PY' || fail "exporting one new run again wrote more than it needs (written: $(tr '\n' ' ' <"$WORK/written"))"
import json, os, re, subprocess, sys
said, root, written, kernel = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3], sys.argv[4]
names = open(written).read().split()
assert said["size"] - said["fromSize"] == 1 and said["runPages"] == 1 and said["groupPages"] == 1, said
# the home rows are the search shards' (a copy has no home JSON), a shard
# a page, named by the page's first group
ix = json.load(open(os.path.join(root, "search", "index.json")))
assert not os.path.exists(os.path.join(root, "index.json")), "a home JSON in the copy"
rows, pages = [], [p["name"] for p in json.load(open(os.path.join(root, "search", "pages.json")))["pages"]]
for k, name in enumerate(pages):
    d = json.load(open(os.path.join(root, "search", name + ".json")))
    rows += [(k + 1, dict(zip(ix["columns"], r))) for r in d["rows"]]
runs = [n for n in names if n.startswith("runs/") and n != "runs/.size"]
assert len(runs) == 2 and runs[0] + ".html" == runs[1], runs
run = runs[0][len("runs/"):]
# its group: the one group page written, which ranks it
group = sorted({n.split("/")[1].split(".")[0] for n in names if n.startswith("groups/")})
assert len(group) == 1, group
group = group[0]
assert run in open(os.path.join(root, "groups", group), encoding="utf-8").read(), "its group ranks it"
page = [p for p, r in rows if r["group"] == group][0]
# (search/pages.json too: the new best run's provider may be new to its page)
allowed = {"runs/.size", "checkpoint", "search/index.json", "search/pages.json",
           "search/%s.json" % pages[page - 1], "kernels/" + kernel, "kernels/%s.html" % kernel,
           "kernels/%s.json" % kernel, "groups/" + group, "groups/%s.html" % group,
           "groups/%s.json" % group, runs[0], runs[1]}
if page > 1:
    allowed |= {"home/%s" % pages[page - 1], "home/%s.html" % pages[page - 1]}
else:
    allowed |= {"index.html"}
# the log's and the index's new files, the new run's objects, and the
# pages of the sweeps its group is a point of
other = [n for n in names if n not in allowed and not re.match(r"(tile|index|objects)/", n)
         and not re.fullmatch(r"sweeps/[0-9a-f]{32}\.html", n)]
assert not other, "written, and not the new run's: %s" % other
sweeps = [n for n in names if n.startswith("sweeps/")]
assert len(sweeps) <= 2, "%d sweep pages for one new run: %s" % (len(sweeps), sweeps)
for n in sweeps:
    assert run in open(os.path.join(root, n), encoding="utf-8").read(), n + " does not show the new run"
inodes, bytes_by = set(), {}
for n in names:
    st = os.stat(os.path.join(root, n))
    if st.st_ino not in inodes:
        inodes.add(st.st_ino)
        part = n.split("/")[0] if "/" in n else "."
        bytes_by[part] = bytes_by.get(part, 0) + st.st_size
objects = [n for n in names if n.startswith("objects/")]
assert len(objects) <= 3, objects
# the new run's bundle is partial: its manifest is in its page alone (the
# page written before the checkpoint that names the run), no objects/ file
assert said["size"] % 256, "the new run filled its bundle"
view = json.loads(subprocess.check_output(["python3", sys.argv[5] + "/page_view.py",
                                           os.path.join(root, runs[1])]))
assert view["runId"] == run, view["runId"]
m = "objects/" + view["manifestDigest"]
assert m not in names and not os.path.exists(os.path.join(root, m)), m + " written beside the run's page"
assert len(inodes) <= 24, "%d files (inodes) for one new run" % len(inodes)
# the kernel's files: no group listed, no view embedded
kv = json.load(open(os.path.join(root, "kernels", kernel + ".json")))
assert "groups" not in kv and kv["groupCount"] == sum(1 for p, r in rows if r["kernel"] == kernel), kv.keys()
kp = open(os.path.join(root, "kernels", kernel), encoding="utf-8").read()
assert 'id="kix-view"' not in kp, "the exported kernel page embeds its view"
assert "../groups/%s.html" % group not in kp.split('<h2 id="groups">')[1], "the kernel page lists its groups"
assert re.search(r'href="\.\./index\.html\?kernel=%s&amp;gpu=[^"]+#groups"' % re.escape(kernel), kp), \
    "the kernel page links no search of its groups"
sys.stderr.write("bytes written by part: %s\n" % bytes_by)
# (cross_entropy's page and view at 300 Liger rows: 7.7 KB, the view's
# sweeps 4.8 KB of it; with every sweep's chart in the page 29.6 KB, and
# with every group listed and the view embedded too, 57 KB)
assert bytes_by["kernels"] <= 10e3, "%d bytes of kernel files for one new run" % bytes_by["kernels"]
assert 'id="kix-view"' not in kp and "<svg" not in kp.split('<h2 id="sweeps">')[1].split('<h2 id="groups">')[0], \
    "the kernel page draws its sweeps (their pages do)"
# the home pages: no view embedded
for n in [n for n in names if re.fullmatch(r"index\.html|home/[0-9a-f]{64}", n)]:
    assert 'id="kix-view"' not in open(os.path.join(root, n), encoding="utf-8").read(), n + " embeds its view"
print("%d names, %d files, %d bytes: %s" % (len(names), len(inodes), sum(bytes_by.values()),
      ", ".join("%s %d" % kv for kv in sorted(bytes_by.items()))))
PY
pass "one new run exported again: its page, group, kernel, home row, index and log files alone ($(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["files"], "names,", d["bytes"], "bytes")' "$WORK/again.json"))"

# a key entry moves no row: the export writes the log's and the index's
# files, the checkpoint and search/index.json (the log's counts), and no
# page (home page 1 was rewritten at every export for its counts: 90 KB
# of kix-bench's 17.6 KB a new entry)
"$KIX" keygen --name another --out "$WORK/another" >/dev/null 2>&1 || fail "keygen"
find "$WORK/exp" -type f -exec touch -h -d '2000-01-01' {} +
"$KIX" key add --store "$WORK/o" --key "$WORK/o/admin.key" --role publish "$WORK/another.pub" >/dev/null ||
  fail "key add"
expect_status 0 "$KIXD" export --json --store "$WORK/o" "$WORK/exp"
(cd "$WORK/exp" && find . -type f -newermt '2001-01-01' -printf '%P\n' | sort) >"$WORK/written"
python3 - "$WORK/written" "$WORK/exp" <<'PY' || fail "exporting a key entry again wrote a page (written: $(tr '\n' ' ' <"$WORK/written"))"
import json, os, re, sys
names = open(sys.argv[1]).read().split()
other = [n for n in names if n not in ("checkpoint", "runs/.size", "search/index.json")
         and not re.match(r"(tile|index)/", n)]
assert not other, "written for a key entry: %s" % other
s = json.load(open(os.path.join(sys.argv[2], "search", "index.json")))
assert s["treeSize"] == int(open(os.path.join(sys.argv[2], "checkpoint")).read().split("\n")[1]), s["treeSize"]
PY
pass "a key entry exported again: no page, page 1 neither (the counts are search/index.json's)"

# the index's packs hold lean tiles (PROTOCOL.md §3.2, "Index packs": an
# interior record of a tile's top three levels is its type byte alone,
# the hashes of the two records below it being computed by the reader):
# 400 -> 272 KB of packs for kix-bench's 101 new entries
python3 - "$WORK/exp/index/pack" <<'PY' || fail "the index packs hold whole tiles"
import os, sys
kinds = {}
for f in os.listdir(sys.argv[1]):
    data, at = open(os.path.join(sys.argv[1], f), "rb").read(), 0
    while at < len(data):
        kind, n = data[at], int.from_bytes(data[at + 1:at + 5], "big")
        kinds[kind] = kinds.get(kind, 0) + 1
        at += 5 + n
assert kinds.get(3) and not kinds.get(1), kinds
PY
pass "the index packs hold lean tiles"
