#!/usr/bin/env bash
# Issue 38 item 2 at scale: a static copy's home pages and search shards are
# cut by their rows and named by their first group (kix/view.h), so a new
# group rewrites its own page and shard, and when it starts a page, the
# pages on either side; not every page after it, as pages of a fixed row
# count did (kix-bench at 64,003 entries: 33 of 40 home pages and every
# shard for 7 new groups, 31 KB a new entry). And the copy is a function of
# the log alone: exporting again into an older copy gives the same home/
# and search/ files as exporting the log afresh.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"

new_origin "$WORK/o"
import "--store $WORK/o" 1 2448 500 || fail "import: $(tail -3 "$WORK/import.log")"
expect_status 0 "$KIXD" export --json --store "$WORK/o" "$WORK/exp"
PAGES=$(json_get "$WORK/exp/search/index.json" 'd["pages"]')
[ "$PAGES" -ge 6 ] || fail "the Liger data makes $PAGES home pages: the test needs 6 or more"

# home/ and search/ of copy $1 are those of a fresh export of the log
same_as_fresh() {
  rm -rf "$WORK/fresh"
  expect_status 0 "$KIXD" export --store "$WORK/o" "$WORK/fresh"
  for d in home search; do
    diff -r "$WORK/$1/$d" "$WORK/fresh/$d" >"$WORK/diff" || fail "$1/$d is not a fresh export's: $(head -5 "$WORK/diff")"
  done
  cmp -s "$WORK/$1/index.html" "$WORK/fresh/index.html" || fail "$1/index.html is not a fresh export's"
}

# new_group N: one run of CSV row N with a workload no run has (x_value
# 7777N): a new group, wherever the row's kernel and GPU sort
new_group() {
  rows "$1" "$1" | python3 -c '
import csv, sys
r = list(csv.reader(sys.stdin))
r[1][7] = "7777" + sys.argv[1]
csv.writer(sys.stdout, lineterminator="\n").writerows(r)' "$1" >"$WORK/new-$1.csv"
  "$KIX_BIN/kix-import-liger" --key "$WORK/pub.key" --store "$WORK/o" "$WORK/new-$1.csv" >/dev/null \
    2>>"$WORK/import.log" || fail "import a new group: $(tail -3 "$WORK/import.log")"
}

# one new group in the middle of the rows: its page and shard, and when its
# group starts a page, the page it was cut from and the page after
find "$WORK/exp" -type f -exec touch -h -d '2000-01-01' {} +
cp "$WORK/exp/search/pages.json" "$WORK/pages-before.json"
new_group 1200
expect_status 0 "$KIXD" export --json --store "$WORK/o" "$WORK/exp"
cp "$WORK/out" "$WORK/said.json"
(cd "$WORK/exp" && find home search index.html -type f -newermt '2001-01-01' -printf '%p\n' | sort) >"$WORK/written"
python3 - "$WORK/exp" "$WORK/pages-before.json" "$WORK/written" "$WORK/said.json" <<'PY' || fail "one new group rewrote other pages (written: $(tr '\n' ' ' <"$WORK/written"))"
import json, os, sys
root, before, said = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[4]))
written = set(open(sys.argv[3]).read().split())
after = json.load(open(root + "/search/pages.json"))
old, new = [p["name"] for p in before["pages"]], [p["name"] for p in after["pages"]]
ix = json.load(open(root + "/search/index.json"))
rows = {p: [dict(zip(ix["columns"], r)) for r in json.load(open("%s/search/%s.json" % (root, p)))["rows"]] for p in new}
mine = [p for p in new if any(r["workload"].find("7777") >= 0 for r in rows[p])]
assert len(mine) == 1, mine
k = new.index(mine[0])
starts = mine[0] not in old  # its group starts a page of its own
assert (len(new) == len(old) + 1) == starts and set(old) <= set(new), (len(old), len(new))
page = lambda i: "index.html" if i == 0 else "home/%s" % new[i]
allowed = {page(k), "search/%s.json" % new[k], "search/index.json", "search/pages.json"}
if starts:  # the page it was cut from, and the next page's link back
    allowed |= {page(k - 1), "search/%s.json" % new[k - 1]}
    if k + 1 < len(new):
        allowed |= {page(k + 1)}
allowed |= {p + ".html" for p in allowed if p.startswith("home/")}
assert written <= allowed, "written beyond the new group's page: %s" % sorted(written - allowed)
assert page(k) in written and "search/%s.json" % new[k] in written, "its own page or shard was not written"
assert said["homePages"] <= 3, said
print("pages %d -> %d, the new group's page %d (starts one: %s), written: %s" % (len(old), len(new), k + 1, starts, sorted(written)))
PY
same_as_fresh exp
pass "one new group: its own page and shard written (and its neighbours' when it starts a page), nothing else; the copy is a fresh export's"

# new groups all over (each kernel's first row, and rows through the data):
# the copy is still the fresh export's, and no numbered or orphaned page is
# left behind
for n in 1 300 600 900 1500 1800 2100 2400; do new_group "$n"; done
expect_status 0 "$KIXD" export --json --store "$WORK/o" "$WORK/exp"
cp "$WORK/out" "$WORK/said.json"
same_as_fresh exp
python3 - "$WORK/said.json" "$PAGES" <<'PY' || fail "eight new groups rewrote too many pages"
import json, sys
said = json.load(open(sys.argv[1]))
# each new group its page, and at most two more when it starts one
assert said["homePages"] <= 8 * 3 and said["homePages"] < int(sys.argv[2]) + 8, said
PY
pass "eight new groups across the rows: $(json_get "$WORK/said.json" 'd["homePages"]') home pages of $(json_get "$WORK/exp/search/index.json" 'd["pages"]') written; the copy is a fresh export's"

# a copy that holds a page named by a group that no longer starts one (here:
# a made-up name) and the numbered pages of older copies: an export removes
# them, and leaves the rest
printf x >"$WORK/exp/home/$(printf '%064d' 7)"
printf x >"$WORK/exp/home/$(printf '%064d' 7).html"
printf x >"$WORK/exp/home/3"
printf x >"$WORK/exp/search/3.json"
printf x >"$WORK/exp/search/$(printf '%064d' 7).json"
new_group 2200
expect_status 0 "$KIXD" export --json --store "$WORK/o" "$WORK/exp"
same_as_fresh exp
pass "pages and shards no page names any more are removed"
