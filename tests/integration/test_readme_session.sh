#!/usr/bin/env bash
# README.md's "## A session" code block, then "### Publishing your own run",
# the witness block of "## Trust", the tile-tools block of "## The log on
# the web" and the curl of "### Writes over HTTP", run as written (bash -e, one script, so the later blocks
# continue the session) in an empty
# directory with the built kix and kixd first on PATH: the session users
# copy must work, and a failed step must stop it rather than leave e.g. an
# empty log key behind for the next line to use. One stand-in: the ports
# 8080 (tiles) and 8081 (the witness) are free ones; EDITOR is unset (the
# blocks need no editor).
# Last, every sh block of the README is checked to be run by some test.
source "$(dirname "$0")/lib.sh"
: "${KIX_SRC:?set KIX_SRC to the source tree}"

PORT=$(free_port)
WPORT=$(free_port)
{
  readme_block "A session"
  readme_block "Publishing your own run"
  readme_block "Trust" | sed "s/8081/$WPORT/g"
  readme_block "The log on the web (C2SP tlog-tiles)" | sed "s/8080/$PORT/g"
  readme_block "Writes over HTTP" | sed "s/8080/$PORT/g"
} >"$WORK/session.sh"
mkdir "$WORK/empty"
cd "$WORK/empty"
# (timeout: the blocks wait for servers in loops, which a server that
# could not start would make endless)
env -u EDITOR PATH="$KIX_BIN:$PATH" timeout 300 bash -euo pipefail "$WORK/session.sh" >"$WORK/out" 2>"$WORK/err" || {
  cat "$WORK/out" "$WORK/err"
  fail "the README session failed"
}
[ "$(stat -c %a var/log)" = 700 ] || fail "var/log is not 0700"
[ "$(stat -c %a var)" = 700 ] || fail "var (created for the store) is not 0700"
[ -s log.vkey ] || fail "log.vkey is empty"
grep -q "^https://kix.example.org/log/runs/" published.txt || fail "no permalink printed"
grep -q "audit passed: all 5 entries" "$WORK/out" || { cat "$WORK/out"; fail "audit did not pass"; }
json_get citation.json 'd' >/dev/null || fail "citation.json is not JSON"
pass "README session runs as written from an empty directory (roles: alice attests, bob may rerun)"
grep -q "^https://kix.example.org/log/runs/" mine.txt || fail "publishing your own run: no permalink"
[ -s joined/run.json ] && [ ! -e joined/workload.json ] || fail "kix new run --like wrote no joining bundle"
# issue 37: the README's own route (seq_len where Liger says seq) is told
# why it joins no group and how to join Liger's; joined, the run is ranked
# in Liger's group, not in a group of one
grep -q "parameter seq_len=2048 is named seq in the group" "$WORK/err" ||
  fail "kix new run did not say seq_len is seq in Liger's group: $(cat "$WORK/err")"
grep -q "to join it: kix new run --group sha256:[0-9a-f]* --provider mykern --store var/log --force myrun" "$WORK/err" ||
  fail "kix new run gave no --group command: $(cat "$WORK/err")"
KIX_LOG_KEY="$(cat log.vkey)" "$KIX" show --store var/log --json "$(head -n 1 mine.txt)" >"$WORK/mine.json" ||
  fail "kix show of the README's run"
[ "$(json_get "$WORK/mine.json" 'd["rank"]["groupSize"]')" = 2 ] ||
  fail "the README's run is not ranked beside Liger's: $(head -c 400 "$WORK/mine.json")"
grep -Eq "^(0|[1-9][0-9]*)$" <(sed -n 2p tiles/checkpoint) || fail "kixd export wrote no checkpoint"
[ -s w.pub ] || fail "no witness key w.pub"
[ -d var/mirror ] || fail "the witness block made no mirror"
grep -q "witness.example" "$WORK/out" || fail "kix checkpoint showed no cosignature of witness.example: $(cat "$WORK/out")"
[ "$(grep -Ec '^ *256$' "$WORK/out")" = 1 ] || fail "the partial tile of 8 entries is not 256 bytes: $(cat "$WORK/out")"
grep -q '"receipt":"c2sp.org/tlog-proof@v1' answer.json || fail "README's POST /submit: $(cat answer.json)"
grep -qx 409 "$WORK/out" || fail "README's second POST /submit was not 409: $(cat "$WORK/out")"
pass "README: writes over HTTP (kix attest --sign-only, curl POST /submit: 201 with a receipt, then 409)"
pass "README: publishing your own run (warned of Liger's group, joined with --group, dry run, publish, ranked beside Liger's run, --like), a witness cosigning the log, and the tile tools on a small log"

# kixd init into an existing 0755 directory makes it private
mkdir -m 0755 "$WORK/open"
"$KIXD" init --store "$WORK/open" --admin-key "$WORK/open/admin.key" --origin kix.test/open >/dev/null 2>&1
[ "$(stat -c %a "$WORK/open")" = 700 ] || fail "kixd init left an existing directory open"
pass "kixd init makes an existing directory 0700"

# a failed kixd init leaves an empty log.vkey (the shell made it): exporting
# it must not pass silently at the next command that needs the key
mkdir "$WORK/again"
cd "$WORK/again"
: >log.vkey
export KIX_LOG_KEY="$(cat log.vkey)"
expect_status 2 "$KIX" audit --store "$WORK/empty/var/log"
grep -q "KIX_LOG_KEY is set but empty" "$WORK/err" || { cat "$WORK/err"; fail "no clear message"; }
pass "an empty KIX_LOG_KEY is refused"

# every environment variable the programs read is in the README's table
python3 - "$KIX_SRC" <<'PY' || fail "docs/REFERENCE.md's Environment table is missing variables"
import os, re, sys
src = sys.argv[1]
readme = open(os.path.join(src, "docs", "REFERENCE.md")).read()
table = readme[readme.index("## Environment"):]
table = (table + "\n## ")[:(table + "\n## ").index("\n## ", 1)]
names = set()
for top in ("client", "daemon", "tools", "store", "proto"):
    for d, _, files in os.walk(os.path.join(src, top)):
        for f in files:
            if f.endswith(".c"):
                names |= set(re.findall(r'getenv\("([A-Z_]+)"\)', open(os.path.join(d, f)).read()))
# and every knob of the scripts under tools/ (KIX_PREBUILT, KIX_FUZZ_SECONDS, ...)
for d, _, files in os.walk(os.path.join(src, "tools")):
    for f in files:
        if f.endswith(".sh"):
            names |= set(re.findall(r'\$\{?(KIX_[A-Z_]+)', open(os.path.join(d, f)).read()))
missing = sorted(n for n in names - {"PATH"} if "| `%s` |" % n not in table)
if missing:
    sys.exit("not documented: %s" % ", ".join(missing))
PY
pass "every environment variable kix, kixd, the tools and the scripts under tools/ read is documented in docs/REFERENCE.md"

# the README is a guide: short, in a new user's order, every link resolving
python3 - "$KIX_SRC" <<'PY' || fail "README.md is not the guide it should be"
import os, re, sys
src = sys.argv[1]
readme = open(os.path.join(src, "README.md"), encoding="utf-8").read()
lines = readme.count("\n")
if lines > 400:
    sys.exit("README.md has %d lines: move reference material into docs/" % lines)
heads = [h for h in re.findall(r"^## (.+)$", readme, re.M)]
want = ["Quick start (Debian 12)", "A session", "Reading a run", "Publishing your own run",
        "Trust", "Operating a log", "Performance", "Install and use as a library", "More"]
if heads != want:
    sys.exit("README.md's sections are %s, not %s" % (heads, want))
bad = []
for doc in ["README.md", "OPERATING.md", "CHANGES.md"] + ["docs/" + f for f in os.listdir(os.path.join(src, "docs")) if f.endswith(".md")]:
    text = open(os.path.join(src, doc), encoding="utf-8").read()
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        if not os.path.exists(os.path.normpath(os.path.join(src, os.path.dirname(doc), target))):
            bad.append("%s -> %s" % (doc, target))
if bad:
    sys.exit("links to nothing: " + "; ".join(bad))
for stale in ("kix-bench` does not measure this yet", "kix-bench does not measure this yet"):
    if stale in readme:
        sys.exit("README.md still says: " + stale)
PY
pass "README.md is a guide (at most 400 lines, sections in a new user's order) and every relative link in it and docs/ resolves"

# every sh block of the README is run by a test (readme_block HEADING)
python3 "$KIX_TESTS/integration/readme_block.py" "$KIX_SRC/README.md" --check "$KIX_TESTS/integration" ||
  fail "a README sh block is run by no test"
pass "every sh block of README.md is run by a test: $(python3 "$KIX_TESTS/integration/readme_block.py" "$KIX_SRC/README.md" --list | paste -sd';')"
