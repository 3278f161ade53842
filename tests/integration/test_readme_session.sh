#!/usr/bin/env bash
# README.md's "## A session" code block, run as written (bash -e) in an empty
# directory with the built kix and kixd first on PATH: the session users copy
# must work, and a failed step must stop it rather than leave e.g. an empty
# log key behind for the next line to use.
source "$(dirname "$0")/lib.sh"
: "${KIX_SRC:?set KIX_SRC to the source tree}"

python3 - "$KIX_SRC/README.md" "$WORK/session.sh" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"^## A session\n.*?^```sh\n(.*?)^```$", text, re.S | re.M)
if not m:
    sys.exit("README.md has no '## A session' sh code block")
open(sys.argv[2], "w").write(m.group(1))
PY
mkdir "$WORK/empty"
cd "$WORK/empty"
PATH="$KIX_BIN:$PATH" bash -euo pipefail "$WORK/session.sh" >"$WORK/out" 2>"$WORK/err" || {
  cat "$WORK/out" "$WORK/err"
  fail "the README session failed"
}
[ "$(stat -c %a var/log)" = 700 ] || fail "var/log is not 0700"
[ "$(stat -c %a var)" = 700 ] || fail "var (created for the store) is not 0700"
[ -s log.vkey ] || fail "log.vkey is empty"
grep -q "^https://kix.example.org/log/runs/" published.txt || fail "no permalink printed"
grep -q "audit passed: all 3 entries" "$WORK/out" || { cat "$WORK/out"; fail "audit did not pass"; }
json_get citation.json 'd' >/dev/null || fail "citation.json is not JSON"
pass "README session runs as written from an empty directory"

# kixd init into an existing 0755 directory makes it private
mkdir -m 0755 "$WORK/open"
"$KIXD" init --store "$WORK/open" --origin kix.test/open >/dev/null 2>&1
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
