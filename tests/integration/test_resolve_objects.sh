#!/usr/bin/env bash
# Issue 25 part 2: a resolution's objects are bound to the run's manifest.
# A lying server (tests/integration/lying_proxy.py, a msgpack-RPC proxy in
# front of an honest kixd) adds to a resolution an object the manifest does
# not reference (another run's environment, "NVIDIA-H200-made-up"), or
# swaps a referenced object for another of the same kind; kix show and kix
# resolve refuse both (exit 1, a failed verification) naming the object.
# The honest log still shows every referenced object, picked by its field.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"
PROXY="$KIX_TESTS/integration/lying_proxy.py"

new_origin "$WORK/o"
serve o
export KIX_LOG_KEY="$(cat "$WORK/vkey")"
S=(--server "$(addr o)")

publish_bundle() { # DIR GPU: prints the run id
  "$KIX" new run --kernel rope --gpu "$2" --provider liger --param seq_len=2048 "$1" >/dev/null ||
    fail "kix new run $2"
  fill_bundle "$1"
  "$KIX" publish "${S[@]}" --key "$WORK/pub.key" "$1/run.json" --json >"$1.pub.json" 2>"$1.err" ||
    fail "publish $2: $(cat "$1.err")"
  json_get "$1.pub.json" 'd["runId"]'
}
RUN=$(publish_bundle "$WORK/a" "NVIDIA A100-SXM4-80GB")
OTHER=$(publish_bundle "$WORK/b" "NVIDIA-H200-made-up")

# ---- honest: every referenced object, each by its field -------------------------
"$KIX" show "${S[@]}" "$RUN" >"$WORK/show.txt" || fail "kix show"
grep -q "gpu  *NVIDIA A100 (sm_80)$" "$WORK/show.txt" && grep -q "form factor  *SXM4-80GB" "$WORK/show.txt" ||
  fail "honest show: $(grep -A3 Environment "$WORK/show.txt")"
"$KIX" resolve "${S[@]}" "$RUN" >"$WORK/resolve.txt" || fail "kix resolve"
grep -q "^objects    4, each one the manifest references" "$WORK/resolve.txt" ||
  fail "honest resolve: $(grep objects "$WORK/resolve.txt")"
pass "honest: kix show and kix resolve show the 4 objects the manifest references"

# another run's environment, a real object of the log with its true digest
ENV_B=$("$KIX" show "${S[@]}" "$OTHER" --json |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["manifest"]["spec"]["environmentDigest"])')
"$KIX" get "${S[@]}" "$ENV_B" >"$WORK/env-b.json" || fail "kix get $ENV_B"

lie() { # MODE: serves the lying proxy on $WORK/liar.sock
  [ -n "${PROXY_PID:-}" ] && { kill "$PROXY_PID"; wait "$PROXY_PID" 2>/dev/null || true; }
  PYTHONPATH="$KIX_TESTS/integration" python3 "$PROXY" "$WORK/liar.sock" "$WORK/o.sock" "$1" \
    "$WORK/env-b.json" >"$WORK/proxy.out" 2>>"$WORK/proxy.err" &
  PROXY_PID=$!
  KIXD_PIDS+=("$PROXY_PID")
  wait_log "$WORK/proxy.out" ready "the lying proxy did not start"
}
L=(--server "unix://$WORK/liar.sock")

for mode in add swap; do
  lie "$mode"
  for cmd in show resolve; do
    expect_status 1 "$KIX" "$cmd" "${L[@]}" "$RUN"
    grep -q "object $ENV_B (ExecutionEnvironment), which the manifest of run $RUN does not reference" \
      "$WORK/err" || fail "$mode, kix $cmd: $(cat "$WORK/err")"
    grep -q "does not verify" "$WORK/err" || fail "$mode, kix $cmd: $(cat "$WORK/err")"
    ! grep -q "H200" "$WORK/out" || fail "$mode, kix $cmd printed the lie: $(cat "$WORK/out")"
  done
  pass "$mode: kix show and kix resolve refuse an object the manifest does not reference (exit 1)"
done

# control: the proxy's re-encoded answer verifies when its lie is no lie
# (the other run's environment swapped for itself)
"$KIX" show "${L[@]}" "$OTHER" >"$WORK/other.txt" 2>"$WORK/err" || fail "control: $(cat "$WORK/err")"
grep -q "gpu  *NVIDIA-H200-made-up" "$WORK/other.txt" || fail "control: $(grep -A2 Environment "$WORK/other.txt")"
pass "control: an answer the proxy re-encodes without a lie verifies"
