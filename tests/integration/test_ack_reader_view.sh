#!/usr/bin/env bash
# Issue 42: with --ack-replicas, readers are held to what the mirrors hold,
# so that no reader pins an entry a promotion could lose. Real kixd
# processes; the mirror replicates through a proxy that is killed (a
# partition), then restarted:
#  - while entry N is committed at the origin but held by no mirror:
#    kix info says N, kix show of its run proves absence at size N, the
#    checkpoint, inclusion proof and receipt past N are EUNAVAIL naming
#    the size the mirrors hold, a reader's follow stream ends at N (a
#    mirror's, with "replica", goes on to N+1), and
#    over HTTP the checkpoint is N and the tile and bundle of N+1 are 404,
#    and the --export copy stays at N;
#    the committed size is still given to mirrors (info's "committed");
#  - once the mirror is back and holds it, all of them show it.
# On the code before issue 42 readers saw (and pinned) entry N at once.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"

new_origin "$WORK/o"
import "--store $WORK/o" 1 20 20 || fail "import: $(tail -3 "$WORK/import.log")"
export KIX_LOG_KEY="$WORK/vkey"
"$KIX" keygen --witness --name mirror.test --out "$WORK/w" >/dev/null 2>&1 || fail "keygen w"

publish() {
  mkdir -p "$WORK/r"
  make_manifests "$WORK/r/m$1" "$1"
  KIX_STATE_DIR="$WORK/pub-state" "$KIX" publish --server "$(addr o)" --key "$WORK/pub.key" \
    --run-id "run-$1" --receipt "$WORK/r/$1.receipt" "$WORK/r/m$1/run.json" "$WORK/r/m$1/workload.json"
}
proxy() {
  python3 "$KIX_TESTS/integration/pass_proxy.py" "$WORK/p.sock" "$WORK/o.sock" >"$WORK/proxy.out" 2>&1 &
  PROXY=$!
  for _ in $(seq 1 100); do grep -q ready "$WORK/proxy.out" 2>/dev/null && break; sleep 0.05; done
}
reader() { KIX_STATE_DIR="$WORK/reader" "$KIX" "$@" --server "$(addr o)"; }

OHP=$(free_port)
OURL="http://127.0.0.1:$OHP"
serve o --ack-replicas 1 --ack-mirror-key "$WORK/w.pub" --ack-timeout 4 --http "tcp://127.0.0.1:$OHP" \
  --export "$WORK/copy"
proxy
serve m --mirror-of "unix://$WORK/p.sock" --upstream-key "$WORK/vkey" --witness-key "$WORK/w.key"
publish 1 >"$WORK/out" 2>&1 || fail "publish with the mirror connected: $(cat "$WORK/out")"
N=$(size_of m)
reader show run-1 >/dev/null || fail "kix show run-1"
pass "run-1 acknowledged and shown (size $N)"

kill "$PROXY"
wait "$PROXY" 2>/dev/null || true
expect_status 3 publish 2
info_json o
[ "$(json_get "$WORK/info.json" 'd["size"]')" = "$N" ] || fail "info: $(cat "$WORK/info.json")"
[ "$(json_get "$WORK/info.json" 'd.get("committed")')" = $((N + 1)) ] ||
  fail "info does not give mirrors the committed size: $(cat "$WORK/info.json")"
[ "$(reader info | awk '$1 == "size" { print $2 }')" = "$N" ] || fail "kix info is past $N"
expect_status 1 reader show run-2
grep -q "at size $N: no run run-2" "$WORK/err" || fail "kix show run-2: $(cat "$WORK/err")"
expect_status 3 reader checkpoint --size $((N + 1))
grep -q "size $((N + 1)) is not yet held by the 1 mirrors .*they hold size $N" "$WORK/err" ||
  fail "checkpoint --size: $(cat "$WORK/err")"
expect_status 3 reader proof inclusion "$N" --size $((N + 1))
grep -q "not yet held by the 1 mirrors" "$WORK/err" || fail "inclusion proof: $(cat "$WORK/err")"
expect_status 3 reader receipt "$N"
grep -q "entry $N is not yet held by the 1 mirrors" "$WORK/err" || fail "receipt: $(cat "$WORK/err")"
[ "$(curl -s "$OURL/checkpoint" | sed -n 2p)" = "$N" ] || fail "HTTP /checkpoint is past $N"
got=$(python3 "$KIX_TESTS/integration/follow_probe.py" "$(addr o)" $((N - 3)) 1)
[ "$got" = "$N" ] || fail "a reader's follow stream reached $got, want $N"
got=$(python3 "$KIX_TESTS/integration/follow_probe.py" "$(addr o)" $((N - 3)) 1 --replica)
[ "$got" = $((N + 1)) ] || fail "a mirror's follow stream reached $got, want $((N + 1))"
code=$(curl -s -o /dev/null -w '%{http_code}' "$OURL/tile/0/000.p/$((N + 1))")
[ "$code" = 404 ] || fail "HTTP tile 0/000.p/$((N + 1)): $code"
code=$(curl -s -o /dev/null -w '%{http_code}' "$OURL/tile/entries/000.p/$((N + 1))")
[ "$code" = 404 ] || fail "HTTP entries 000.p/$((N + 1)): $code"
code=$(curl -s -o /dev/null -w '%{http_code}' "$OURL/tile/0/000.p/$N")
[ "$code" = 200 ] || fail "HTTP tile 0/000.p/$N: $code"
[ "$(sed -n 2p "$WORK/copy/checkpoint")" = "$N" ] || fail "the --export copy: $(cat "$WORK/copy/checkpoint")"
[ ! -e "$WORK/copy/runs/run-2.html" ] || fail "the --export copy has run-2's page"
pass "entry $N held by no mirror: info, show, checkpoint, proof, receipt, a reader's follow and HTTP stop at $N; mirrors are told and streamed $((N + 1))"

proxy
wait_size m $((N + 1))
for _ in $(seq 1 50); do reader receipt "$N" >"$WORK/r/2.receipt" 2>/dev/null && break; sleep 0.1; done
"$KIX" verify "$WORK/r/2.receipt" >/dev/null || fail "the late receipt of entry $N"
reader show run-2 >/dev/null || fail "kix show run-2 once the mirror holds it: $(cat "$WORK/err" 2>/dev/null)"
[ "$(curl -s "$OURL/checkpoint" | sed -n 2p)" = $((N + 1)) ] || fail "HTTP /checkpoint after the mirror caught up"
for _ in $(seq 1 50); do [ "$(sed -n 2p "$WORK/copy/checkpoint")" = $((N + 1)) ] && break; sleep 0.1; done
[ "$(sed -n 2p "$WORK/copy/checkpoint")" = $((N + 1)) ] || fail "the --export copy after: $(cat "$WORK/copy/checkpoint")"
for _ in $(seq 1 50); do [ -e "$WORK/copy/runs/run-2.html" ] && break; sleep 0.1; done
[ -e "$WORK/copy/runs/run-2.html" ] || fail "the --export copy has no page of run-2 after"
stop m
stop o
kill "$PROXY" 2>/dev/null || true
pass "the mirror back and holding entry $N: its receipt, kix show run-2, HTTP and the --export copy see it"
