#!/usr/bin/env bash
# A run with 100,000 entries about it (its publication and 100,000
# attestations) resolves completely, in pages, each proven, and the entry
# chain closes over all of them (issue 14): from the store (pages of 4096)
# and through kixd (pages of its --max-entries, 1000 by default). Built and
# resolved with the Release binaries when tools/test.sh has built them into
# build/ (the suite's ASan build would take minutes), else the test build.
source "$(dirname "$0")/lib.sh"
bin=$(release_bin kix kix-gen-log)
N=${KIX_RESOLVE_ENTRIES:-100000}
"$bin/kix-gen-log" "$WORK/log" 1 4096 "$N" >"$WORK/vkey" || fail "building the log"
export KIX_LOG_KEY="$(cat "$WORK/vkey")"
check() { # WHAT ARGS...: resolves gen-0 and checks it is complete
  local what=$1 t0 t1
  shift
  t0=$(date +%s.%N)
  /usr/bin/time -f "%M" -o "$WORK/rss" "$bin/kix" resolve "$@" gen-0 --json >"$WORK/res.json" ||
    fail "$what: $(tail -3 "$WORK/res.json")"
  t1=$(date +%s.%N)
  # one parse of the answer (tens of MB) for the three figures
  read -r entries complete attestations < <(json_get "$WORK/res.json" \
    'len(d["entries"]), d["proven"]["entriesComplete"], d["attestations"]' | tr -d '(),')
  [ "$entries" = $((N + 1)) ] || fail "$what: entries ($entries)"
  [ "$complete" = True ] || fail "$what: incomplete"
  [ "$attestations" = "$N" ] || fail "$what: attestations ($attestations)"
  echo "$what: $((N + 1)) entries resolved and proven in $(python3 -c "print('%.1f' % ($t1 - $t0))") s," \
    "$(($(cat "$WORK/rss") / 1024)) MB resident"
}
check "from the store" --store "$WORK/log"
KIXD_EXTRA=(--threads 2)
start_kixd "$WORK/log"
check "through kixd" --server "$KIXD_ADDR"
pass "a run with $N attestations resolves completely, in proven pages"
