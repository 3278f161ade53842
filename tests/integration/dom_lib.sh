# dom_lib.sh: one chromium for a shell test that reads many pages
# (tests/browser/dom.js, puppeteer-core), for test_http_verify_browser.sh,
# test_export_static_links.sh and test_export_legacy_ids.sh. Source it after
# lib.sh; start_dom skips the test (77) where chromium is missing or cannot
# start. dom URL OUT writes the DOM once the page's verifier reached its
# verdict; chromium's own chatter goes to $WORK/chrome.log. The caller's EXIT
# trap runs stop_dom (the end of dom.js's stdin closes its chromium, which a
# kill -9 of node would leave running).
start_dom() {
  command -v chromium >/dev/null || { echo "skip: chromium is not installed (tools/deps.sh installs it)"; exit 77; }
  local here="$KIX_TESTS/browser"
  [ -f "$here/node_modules/puppeteer-core/package.json" ] ||
    fail "tests/browser/node_modules lacks puppeteer-core: run tools/deps.sh (npm ci in tests/browser)"
  coproc DOM { cd "$here" && exec node dom.js 2>>"$WORK/chrome.log"; }
  DOM_IN=${DOM[1]}
  if ! dom "data:text/html,<p>chromium-ok</p>" "$WORK/probe.html" || ! grep -q chromium-ok "$WORK/probe.html"; then
    echo "skip: chromium cannot start here: $(tail -3 "$WORK/chrome.log")"
    exit 77
  fi
}
stop_dom() {
  local pid=${DOM_PID:-}
  [ -n "${DOM_IN:-}" ] && { eval "exec $DOM_IN>&-" 2>/dev/null || true; }
  [ -n "$pid" ] || return 0
  for _ in $(seq 1 200); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
}
dom() {
  local answer=
  printf '%s\t%s\n' "$1" "$2" >&"$DOM_IN"
  read -r -t 120 answer <&"${DOM[0]}" || answer="error: no answer from dom.js in 120 s"
  [ "$answer" = ok ] || { echo "$answer" >>"$WORK/chrome.log"; return 1; }
}
