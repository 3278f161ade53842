#!/usr/bin/env bash
# Issue 41 item 2, "Add a reproduction or note" on a run page, in Chromium
# (tests/browser/write.js) against a kixd serving --http --http-submit: a
# key made in the browser (WebCrypto, kept in IndexedDB) is refused until
# the admin registers its public key line with kix key add, then a note
# and a reproduction (the run's manifest with the reader's figures) are
# signed in the page, logged with a receipt, and after a reload shown and
# verified like every other row; bad figures are refused before signing.
# Before registration, a reproduction from the form is refused as a rerun
# always, and as a note until the admin's kix policy takes open notes; then
# it is logged as an open note (with the policy's proof of work, ground in
# the page), verified and shown as "community, unregistered key".
# A kixd without --http-submit offers no form.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"
HERE="$KIX_TESTS/browser"
[ -f "$HERE/node_modules/puppeteer-core/package.json" ] ||
  fail "tests/browser/node_modules lacks puppeteer-core: run tools/deps.sh (npm ci in tests/browser)"

new_origin "$WORK/o"
HPORT=$(free_port)
H="http://127.0.0.1:$HPORT"
serve o --http "tcp://127.0.0.1:$HPORT" --http-submit
export KIX_SERVER=$(addr o) KIX_LOG_KEY="$(cat "$WORK/vkey")"
"$KIX" new run --kernel rope --gpu "NVIDIA A100-SXM4-80GB" --param seq=2048 "$WORK/m" >/dev/null 2>&1 || fail "kix new run"
fill_bundle "$WORK/m"
"$KIX" publish --key "$WORK/pub.key" --run-id rope-browser "$WORK/m/run.json" >/dev/null || fail "publish"

# the admin's side: the key line the page shows, registered with role attest
cat >"$WORK/register.sh" <<SH
printf '%s\n' "\$1" >"$WORK/browser.pub"
"$KIX" key add --server "$KIX_SERVER" --key "$WORK/o/admin.key" --role attest "$WORK/browser.pub" >/dev/null
SH
cat >"$WORK/open.sh" <<SH
"$KIX" policy --server "$KIX_SERVER" --key "$WORK/o/admin.key" --open-notes on --note-work 6 >/dev/null
SH
(cd "$HERE" && node write.js "$H/runs/rope-browser.html" "$WORK/register.sh" "$WORK/open.sh") >"$WORK/write.out" 2>&1 ||
  { cat "$WORK/write.out"; fail "the page's writing (tests/browser/write.js)"; }
cat "$WORK/write.out"
"$KIX" show rope-browser >"$WORK/show" || fail "kix show"
grep -q "measured 11.2 µs on our A100" "$WORK/show" || fail "kix show lacks the note written in the browser"
pass "a note and a reproduction written on the page, signed in Chromium, logged and verified after a reload"

stop o
serve o --http "tcp://127.0.0.1:$HPORT"
curl -s "$H/runs/rope-browser.html" >"$WORK/page.html"
! grep -q 'id="contribute"' "$WORK/page.html" || fail "a kixd without --http-submit offers the form"
grep -q 'data-kix-slot="title"' "$WORK/page.html" || fail "no run page"
"$KIX" audit >/dev/null || fail "kix audit"
pass "without --http-submit (or --submit-url) the page offers no form; the audit passes"
