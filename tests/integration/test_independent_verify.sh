#!/usr/bin/env bash
# What kix writes verifies with an independent implementation of the public
# formats (tests/integration/independent_verify.py: Python stdlib + PyNaCl):
# checkpoints (C2SP signed note), receipts (C2SP tlog-proof), RFC 9162
# inclusion and consistency proofs, DSSE signatures over canonical leaves.
source "$(dirname "$0")/lib.sh"
VERIFY=(/usr/bin/python3 "$(dirname "$0")/independent_verify.py")
/usr/bin/python3 -c 'import nacl.signing' 2>/dev/null || fail "python3-nacl missing (tools/deps.sh installs it)"

STORE="$WORK/log"
LOG=(--store "$STORE")
"$KIXD" init --store "$STORE" --admin-key "$STORE/admin.key" --origin independent.test/log >"$WORK/vkey" 2>/dev/null
export KIX_LOG_KEY="$(cat "$WORK/vkey")"
"$KIX" keygen --name publisher --out "$WORK/pub" >/dev/null 2>&1
"$KIX" key add "${LOG[@]}" --key "$STORE/admin.key" --role publish "$WORK/pub.pub" >/dev/null
"$KIX" checkpoint "${LOG[@]}" >"$WORK/cp-small"
for i in $(seq 1 11); do
  make_manifests "$WORK/m$i" "$i"
  "$KIX" publish "${LOG[@]}" --key "$WORK/pub.key" "$WORK/m$i/run.json" "$WORK/m$i/workload.json" >/dev/null
done
"$KIX" checkpoint "${LOG[@]}" >"$WORK/cp-big"
size=$(sed -n 2p "$WORK/cp-big")
receipts=()
for i in $(seq 0 $((size - 1))); do
  "$KIX" receipt "${LOG[@]}" "$i" >"$WORK/r$i"
  receipts+=("$WORK/r$i")
done
"$KIX" proof consistency "${LOG[@]}" 2 "$size" >"$WORK/cons"
"${VERIFY[@]}" "$WORK/vkey" "${receipts[@]}" --consistency "$WORK/cp-small" "$WORK/cp-big" "$WORK/cons" \
  || fail "independent verification failed"
# and it is not a verifier that accepts anything: a flipped proof byte fails
sed -i '4s/^./A/;4s/^AA/BA/' "$WORK/r$((size - 1))"
if "${VERIFY[@]}" "$WORK/vkey" "$WORK/r$((size - 1))" 2>/dev/null; then
  fail "the independent verifier accepted a tampered receipt"
fi
pass "$size receipts and a consistency proof verified independently"
