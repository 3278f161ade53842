#!/usr/bin/env bash
# A kix witness never cosigns two different checkpoints of one size, whether
# they reach it over HTTP (add-checkpoint) or through its own mirror's
# replay: a forked copy of a log (same key, other entries after the copy)
# asks the witness mirror of the honest log over HTTP.
#  - the mirror cosigned the honest size 17 first: the fork's 17 gets 422;
#  - the fork's 17 came first over HTTP: the mirror, once it has replayed
#    the honest 17, refuses to cosign it (its log says why) and serves no
#    cosignature of that size.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"

"$KIX" keygen --witness --name witness.test --out "$WORK/w" >/dev/null 2>&1
W=(--witness "$WORK/w.pub" --min-witnesses 1)
new_origin "$WORK/a"
import "--store $WORK/a" 1 10 5
cp -a "$WORK/a" "$WORK/b"
import "--store $WORK/a" 11 15 1
import "--store $WORK/b" 21 25 1
export KIX_LOG_KEY="$WORK/vkey"

# the mirror first: its replay of a cosigns 17, then the fork b asks over HTTP
P1=$(free_port)
serve a
mirror m a --witness-key "$WORK/w.key" --http "tcp://127.0.0.1:$P1"
wait_size m 17
for _ in $(seq 1 100); do
  "$KIX" checkpoint --server "$(addr m)" "${W[@]}" >/dev/null 2>&1 && break
  sleep 0.1
done
"$KIX" checkpoint --server "$(addr m)" "${W[@]}" >/dev/null || fail "the mirror did not cosign a's 17"
serve b --http-witness "http://127.0.0.1:$P1 $WORK/w.pub"
wait_log "$WORK/b.log" "refused the checkpoint of size 17: HTTP 422" "the fork was not refused" witness
KIX_STATE_DIR="$WORK/reader-b" expect_status 1 "$KIX" checkpoint --server "$(addr b)" "${W[@]}"
grep -q "has 0 of the 1 witness cosignatures required" "$WORK/err" || fail "b: $(cat "$WORK/err")"
pass "after the mirror cosigned a's 17, the fork's 17 gets 422 over HTTP and stays uncosigned"
stop b || true
stop m || true
stop a || true

# HTTP first: the fork's 17 is cosigned; the mirror's replay of a's 17 is not
P2=$(free_port)
mirror m2 a --witness-key "$WORK/w.key" --http "tcp://127.0.0.1:$P2" # a is down: nothing replayed
serve b --http-witness "http://127.0.0.1:$P2 $WORK/w.pub"
wait_log "$WORK/b.log" "witness witness.test cosigned size 17" "the witness did not cosign b's 17" witness
serve a
wait_size m2 17
wait_log "$WORK/m2.log" "cannot cosign size 17: .*whose root is not the verified replica's" "the mirror's refusal" cosign
expect_status 1 "$KIX" checkpoint --server "$(addr m2)" "${W[@]}"
grep -q "has 0 of the 1 witness cosignatures required" "$WORK/err" || fail "m2: $(cat "$WORK/err")"
pass "after it cosigned the fork's 17 over HTTP, the witness mirror does not cosign a's 17"
