#!/usr/bin/env bash
# Issue 42, attack 1: an acknowledgement that no mirror holds, then lost.
# With real kixd processes:
#  - origin: --ack-replicas 1 --ack-mirror-key w.pub; mirror: --witness-key
#    w.key --http (a C2SP witness too), replicating through a proxy;
#  - the proxy is killed (a partition: the mirror's HTTP port stays up);
#  - anyone takes the origin's checkpoint at N+1 and a consistency proof,
#    POSTs them to the mirror's /add-checkpoint (the witness cosigns, as
#    c2sp.org/tlog-witness asks: it is still a working witness), and sends
#    the origin a `replicated` report with that cosignature, in either
#    field: it is refused, the publish is not acknowledged (exit 3, no
#    receipt). On the code before issue 42 it was, with a receipt;
#  - while the entry is not held, readers do not see it: `kix info` says N,
#    `kix show` of the run is not found, an explicit size past N and
#    HTTP tiles past N are refused;
#  - the origin is lost and the mirror promoted: it never had entry N, and
#    nobody holds a receipt or a pinned checkpoint naming it.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"

new_origin "$WORK/o"
import "--store $WORK/o" 1 20 20 || fail "import: $(tail -3 "$WORK/import.log")"
export KIX_LOG_KEY="$WORK/vkey"
"$KIX" keygen --witness --name mirror.test --out "$WORK/w" >/dev/null 2>&1 || fail "keygen w"

# publish TAG: one run (id run-TAG) to the origin, its receipt in $WORK/r/TAG.receipt.
publish() {
  mkdir -p "$WORK/r"
  make_manifests "$WORK/r/m$1" "$1"
  KIX_STATE_DIR="$WORK/pub-state" "$KIX" publish --server "$(addr o)" --key "$WORK/pub.key" \
    --run-id "run-$1" --receipt "$WORK/r/$1.receipt" "$WORK/r/m$1/run.json" "$WORK/r/m$1/workload.json"
}
fake() { python3 "$KIX_TESTS/integration/fake_mirror.py" "$(addr o)" "$@"; }
# the origin's committed checkpoint at SIZE, as anyone who can connect
# reads it (the replication listing, which mirrors read)
raw_cp() { python3 "$KIX_TESTS/integration/raw_checkpoint.py" "$(addr o)" "$1"; }

OHP=$(free_port)
serve o --ack-replicas 1 --ack-mirror-key "$WORK/w.pub" --ack-timeout 8 --http "tcp://127.0.0.1:$OHP"
python3 "$KIX_TESTS/integration/pass_proxy.py" "$WORK/p.sock" "$WORK/o.sock" >"$WORK/proxy.out" 2>&1 &
PROXY=$!
for _ in $(seq 1 100); do grep -q ready "$WORK/proxy.out" && break; sleep 0.05; done
WPORT=$(free_port)
WURL="http://127.0.0.1:$WPORT"
serve m --mirror-of "unix://$WORK/p.sock" --upstream-key "$WORK/vkey" --witness-key "$WORK/w.key" \
  --http "tcp://127.0.0.1:$WPORT"
publish 1 >"$WORK/out" 2>&1 || fail "publish with the mirror connected: $(cat "$WORK/out")"
N=$(size_of m)
wait_size m "$N"
"$KIX" show run-1 --server "$(addr o)" >/dev/null || fail "kix show of an acknowledged run"
pass "connected through the proxy, the mirror's held statement acknowledges run-1 (size $N)"

# ---- the partition, and the forged acknowledgement -----------------------------------
kill "$PROXY"
wait "$PROXY" 2>/dev/null || true
publish 2 >"$WORK/pub2.out" 2>&1 &
PUB=$!
for _ in $(seq 1 100); do raw_cp $((N + 1)) >"$WORK/cp" 2>/dev/null && break; sleep 0.05; done
raw_cp $((N + 1)) >"$WORK/cp" 2>"$WORK/cp.err" || fail "the origin's checkpoint at $((N + 1)): $(cat "$WORK/cp.err")"
KIX_STATE_DIR="$WORK/attacker" "$KIX" proof consistency "$N" $((N + 1)) --server "$(addr o)" >"$WORK/proof" ||
  fail "the consistency proof $N..$((N + 1))"
{ printf 'old %s\n' "$N"; cat "$WORK/proof"; printf '\n'; cat "$WORK/cp"; } >"$WORK/body"
code=$(curl -s -o "$WORK/cosig" -w '%{http_code}' --data-binary @"$WORK/body" "$WURL/add-checkpoint")
[ "$code" = 200 ] || fail "the mirror's witness did not cosign $((N + 1)): $code $(cat "$WORK/cosig")"
line=$(grep "^— mirror.test " "$WORK/cosig") || fail "no cosignature line: $(cat "$WORK/cosig")"
[ "$(size_of m)" = "$N" ] || fail "the mirror is not partitioned: size $(size_of m)"
pass "partitioned at $N, the mirror's witness still cosigns $((N + 1)) over HTTP (its real purpose)"

root=$(sed -n 3p "$WORK/cp" | base64 -d | od -An -tx1 | tr -d ' \n')
fake $((N + 1)) "$root" attacker --cosignature "$line" >"$WORK/fake" 2>&1
grep -q "^error .*carries a witness cosignature, not a held statement" "$WORK/fake" ||
  fail "the forged report (cosignature) was not refused: $(cat "$WORK/fake")"
fake $((N + 1)) "$root" attacker --held "$line" >"$WORK/fake" 2>&1
grep -q "^error .*does not verify against any --ack-mirror-key" "$WORK/fake" ||
  fail "the forged report (held) was not refused: $(cat "$WORK/fake")"
pass "the witness cosignature of $((N + 1)), sent as a report, is refused in either field"

# ---- readers do not see what the mirrors do not hold ----------------------------------
info_size=$(KIX_STATE_DIR="$WORK/reader" "$KIX" info --server "$(addr o)" | awk '$1 == "size" { print $2 }')
[ "$info_size" = "$N" ] || fail "kix info shows size $info_size, past the $N the mirror holds"
expect_status 1 env KIX_STATE_DIR="$WORK/reader" "$KIX" show run-2 --server "$(addr o)"
grep -q "at size $N: no run run-2" "$WORK/err" || fail "kix show run-2: $(cat "$WORK/err")"
expect_status 3 env KIX_STATE_DIR="$WORK/reader" "$KIX" checkpoint --server "$(addr o)" --size $((N + 1))
grep -q "not yet held by the 1 mirrors" "$WORK/err" || fail "checkpoint --size $((N + 1)): $(cat "$WORK/err")"
[ "$(curl -s "http://127.0.0.1:$OHP/checkpoint" | sed -n 2p)" = "$N" ] || fail "HTTP /checkpoint is past $N"
pass "while entry $N is held by no mirror: kix info says $N, kix show run-2 and checkpoint --size $((N + 1)) are refused"

wait "$PUB" && fail "run-2 was acknowledged by a mirror that does not hold it: $(cat "$WORK/pub2.out")"
grep -q "not acknowledged: after --ack-timeout" "$WORK/pub2.out" || fail "publish 2: $(cat "$WORK/pub2.out")"
[ ! -e "$WORK/r/2.receipt" ] || fail "a receipt for entry $N, which no mirror holds"
pass "the publish of run-2 was not acknowledged (exit 3, no receipt)"

# ---- the origin is lost; the mirror is promoted ---------------------------------------
kill -9 "$PID_o"
wait "$PID_o" 2>/dev/null || true
stop m || true
"$KIXD" promote --store "$WORK/m" --log-key-file "$WORK/o/log.key" >"$WORK/promote.out" 2>&1 ||
  fail "promote: $(cat "$WORK/promote.out")"
grep -q "at size $N " "$WORK/promote.out" || fail "promoted at another size: $(cat "$WORK/promote.out")"
serve m --log-key-file "$WORK/o/log.key"
"$KIX" verify "$WORK/r/1.receipt" >/dev/null || fail "run-1's receipt"
KIX_STATE_DIR="$WORK/reader" "$KIX" checkpoint --server "$(addr m)" >/dev/null ||
  fail "the reader's pinned checkpoint against the promoted mirror: $(cat "$WORK/err" 2>/dev/null)"
KIX_STATE_DIR="$WORK/pub-state" "$KIX" checkpoint --server "$(addr m)" >/dev/null ||
  fail "the publisher's pinned checkpoint against the promoted mirror"
stop m
pass "promoted at $N: run-1's receipt verifies, the reader and the publisher see no fork; nothing names entry $N"
