#!/usr/bin/env bash
# No secret in any output: kixd init, kixd serve at --log-level debug, kix
# keygen, key add, publish, resolve, audit, kixd check, and the error paths
# that touch private keys (a key file others may read, a damaged key file,
# a store whose log.key is exposed) — none of their stdout, stderr or log
# lines contains any form of a private key (the key file's base64 field, the
# seed in base64 or hex, the libsodium secret key seed||pub), and the store's
# database does not hold the log key's seed. Key files are created 0600.
source "$(dirname "$0")/lib.sh"

STORE="$WORK/log"
OUT="$WORK/all-output"
: >"$OUT"
# run CMD...: runs CMD, appending its stdout and stderr to $OUT; returns its status
run() {
  local st=0
  "$@" >"$WORK/run.out" 2>"$WORK/run.err" || st=$?
  cat "$WORK/run.out" "$WORK/run.err" >>"$OUT"
  return $st
}

run "$KIXD" init --store "$STORE" --admin-key "$STORE/admin.key" --origin kix.test/log
cp "$WORK/run.out" "$WORK/vkey"
export KIX_LOG_KEY="$(cat "$WORK/vkey")"
KIXD_EXTRA=(--log-level debug)
start_kixd "$STORE"
LOG=(--server "$KIXD_ADDR")
run "$KIX" keygen --name publisher --out "$WORK/pub"
for k in "$STORE/log.key" "$STORE/admin.key" "$WORK/pub.key"; do
  [ "$(stat -c %a "$k")" = 600 ] || fail "$k is not 0600"
done
[ "$(stat -c %a "$STORE")" = 700 ] || fail "the store directory is not 0700"
run "$KIX" key add "${LOG[@]}" --key "$STORE/admin.key" --role publish "$WORK/pub.pub"
make_manifests "$WORK/m1" 1
run "$KIX" publish "${LOG[@]}" --key "$WORK/pub.key" --run-id run-1 --json \
  "$WORK/m1/run.json" "$WORK/m1/workload.json"
run "$KIX" resolve "${LOG[@]}" run-1 --json
run "$KIX" audit "${LOG[@]}" --json
pass "log commands ran at debug level"

# error paths that read private keys
cp "$WORK/pub.key" "$WORK/open.key" && chmod 644 "$WORK/open.key"
run "$KIX" publish "${LOG[@]}" --key "$WORK/open.key" "$WORK/m1/run.json" && fail "a 0644 key was used"
grep -q "chmod 600" "$WORK/run.err" || fail "no chmod hint: $(cat "$WORK/run.err")"
# a damaged key: one base64 character changed (the hash no longer matches)
python3 - "$WORK/pub.key" "$WORK/bent.key" <<'EOF'
import sys
t = open(sys.argv[1]).read().rstrip("\n")
parts = t.split("+", 4)  # PRIVATE KEY name hash base64 (base64 may hold '+')
b64 = parts[4]
c = "A" if b64[5] != "A" else "B"
parts[4] = b64[:5] + c + b64[6:]
open(sys.argv[2], "w").write("+".join(parts) + "\n")
EOF
chmod 600 "$WORK/bent.key"
run "$KIX" publish "${LOG[@]}" --key "$WORK/bent.key" "$WORK/m1/run.json" && fail "a damaged key was used"
grep -q "invalid private key" "$WORK/run.err" || fail "damaged key message: $(cat "$WORK/run.err")"
# the same damaged key as a log key: kixd refuses to serve, saying why
stop_kixd
cp -a "$STORE" "$WORK/exposed"
chmod 644 "$WORK/exposed/log.key"
run "$KIXD" serve --store "$WORK/exposed" --listen "unix://$WORK/x.sock" --log-level debug \
  && fail "kixd served with a 0644 log key"
grep -q "chmod 600" "$WORK/run.err" || fail "kixd log key message: $(cat "$WORK/run.err")"
cp "$WORK/bent.key" "$WORK/exposed/log.key" && chmod 600 "$WORK/exposed/log.key"
run "$KIXD" serve --store "$WORK/exposed" --listen "unix://$WORK/x.sock" --log-level debug \
  && fail "kixd served with a damaged log key"
run "$KIXD" check --store "$STORE"
pass "error paths that read private keys ran"

cat "$WORK/kixd.log" >>"$OUT"
lines=$(wc -l <"$OUT")
[ "$lines" -gt 20 ] || fail "too little output to judge ($lines lines)"
python3 - "$OUT" "$STORE/data.mdb" "$STORE/log.key" "$STORE/admin.key" "$WORK/pub.key" <<'EOF'
import base64, binascii, sys
out = open(sys.argv[1], "rb").read()
import os
db = open(sys.argv[2], "rb").read()
index = os.path.join(os.path.dirname(sys.argv[2]), "index.mdb")
db += open(index, "rb").read()  # store layout 3: the derived tables
bad = []
for path in sys.argv[3:]:
    field = open(path).read().strip().split("+", 4)[4]
    raw = base64.b64decode(field)
    seed = raw[1:]
    forms = {
        "key file base64": field.encode(),
        "key file base64, unpadded prefix": field[:40].encode(),
        "seed base64 (also the start of seed||pub)": base64.b64encode(seed)[:40],
        "seed base64url": base64.urlsafe_b64encode(seed).rstrip(b"="),
        "seed hex": binascii.hexlify(seed),
        "seed HEX": binascii.hexlify(seed).upper(),
    }
    for what, needle in forms.items():
        if needle in out:
            bad.append("%s of %s appears in the output" % (what, path))
    if seed in db or binascii.hexlify(seed) in db:
        bad.append("the seed of %s is in data.mdb or index.mdb" % path)
if bad:
    print("\n".join(bad))
    sys.exit(1)
EOF
pass "no private key in $lines lines of output and logs, nor in the database"
