#!/usr/bin/env bash
# Two processes writing one store: `kix publish --store DIR` beside the
# kixd serving DIR, both publishing at once (ARCHITECTURE.md, "Several
# processes on one store"). Each appends where the other's last commit
# ended, so every run either published resolves, verified, through kixd
# and from the store, kixd's own appends go on after the other's, and
# kixd check passes. Appending where its own last commit ended, kixd
# overwrote the bytes of the runs published beside it.
. "$KIX_TESTS/integration/lib.sh"

STORE="$WORK/log"
"$KIXD" init --store "$STORE" --admin-key "$STORE/admin.key" --origin kix.shared/log >"$WORK/vkey" 2>/dev/null
export KIX_LOG_KEY="$(cat "$WORK/vkey")"
"$KIX" keygen --name pub --out "$WORK/pub" >/dev/null 2>&1
"$KIX" key add --store "$STORE" --key "$STORE/admin.key" --role publish "$WORK/pub.pub" >/dev/null
N=12
LAST=$((2 * N + 1))
for i in $(seq 1 "$LAST"); do make_manifests "$WORK/m$i" "$i"; done
# publish N [kix options...]: publishes run-N (manifests m N)
publish() {
  local n=$1; shift
  "$KIX" publish "$@" --key "$WORK/pub.key" --run-id "run-$n" "$WORK/m$n/run.json" \
    "$WORK/m$n/workload.json" >/dev/null 2>>"$WORK/publish.err"
}
start_kixd "$STORE"

(for i in $(seq 1 "$N"); do
  KIX_STATE_DIR="$WORK/state-kixd" publish "$i" --server "$KIXD_ADDR" || exit 1
done) &
THROUGH_KIXD=$!
(for i in $(seq $((N + 1)) $((2 * N))); do
  KIX_STATE_DIR="$WORK/state-store" publish "$i" --store "$STORE" || exit 1
done) &
BESIDE=$!
wait "$THROUGH_KIXD" || fail "a publish through kixd failed: $(cat "$WORK/publish.err")"
wait "$BESIDE" || fail "a publish --store beside kixd failed: $(cat "$WORK/publish.err")"
publish "$LAST" --server "$KIXD_ADDR" || fail "kixd's append after the others failed: $(cat "$WORK/publish.err")"
for i in $(seq 1 "$LAST"); do
  "$KIX" resolve "run-$i" --server "$KIXD_ADDR" >/dev/null 2>"$WORK/err" ||
    fail "run-$i does not resolve through kixd: $(cat "$WORK/err")"
done
pass "$LAST runs published through kixd and beside it resolve through kixd"

stop_kixd
"$KIXD" check --store "$STORE" >"$WORK/check" 2>&1 || fail "kixd check: $(cat "$WORK/check")"
for i in $(seq 1 "$LAST"); do
  "$KIX" resolve "run-$i" --store "$STORE" >/dev/null 2>"$WORK/err" ||
    fail "run-$i does not resolve from the store: $(cat "$WORK/err")"
done
pass "kixd check passes and every run resolves from the store"
