#!/usr/bin/env bash
# The edges of kix and kixd's command lines (issue 18): read-only commands
# never create a store, kixd serves only a store kixd init made and only one
# kixd per store, addresses are validated with a message that names the
# fault, config files must be regular files.
source "$(dirname "$0")/lib.sh"

"$KIXD" init --store "$WORK/log" --admin-key "$WORK/log/admin.key" --origin kix.edges/log >"$WORK/vkey" 2>/dev/null
export KIX_LOG_KEY="$(cat "$WORK/vkey")"

# read-only commands on a mistyped path create nothing
for cmd in "info" "resolve 01a2" "show 01a2" "audit" "log" "checkpoint"; do
  # shellcheck disable=SC2086
  expect_status 1 "$KIX" $cmd --store "$WORK/typo"
  [ -e "$WORK/typo" ] && fail "kix $cmd --store created $WORK/typo"
  grep -q "no kix store at $WORK/typo" "$WORK/err" || { cat "$WORK/err"; fail "kix $cmd: message"; }
done
mkdir "$WORK/emptydir"
expect_status 1 "$KIX" info --store "$WORK/emptydir"
[ -z "$(ls -A "$WORK/emptydir")" ] || fail "kix info wrote into an empty directory"
grep -q "no data.mdb" "$WORK/err" || fail "empty directory message: $(cat "$WORK/err")"
pass "read-only commands never create a store"

# kixd refuses a store kixd init did not make (a 0-byte data.mdb), unchanged
mkdir "$WORK/zero"
: >"$WORK/zero/data.mdb"
chmod 0600 "$WORK/zero/data.mdb"
expect_status 3 "$KIXD" serve --store "$WORK/zero" --listen "unix://$WORK/zero.sock"
grep -q "is empty, not a store that kixd init made" "$WORK/err" || { cat "$WORK/err"; fail "0-byte message"; }
[ ! -s "$WORK/zero/data.mdb" ] || fail "kixd wrote a new store over the 0-byte data.mdb"
[ ! -e "$WORK/zero/lock.mdb" ] || fail "kixd created lock.mdb in a store it refused"
expect_status 3 "$KIXD" check --store "$WORK/zero"
pass "kixd refuses a 0-byte data.mdb"

# one kixd per store
start_kixd "$WORK/log"
FIRST=$KIXD_PID
expect_status 3 "$KIXD" serve --store "$WORK/log" --listen "unix://$WORK/second.sock"
grep -q "another kixd is serving $WORK/log" "$WORK/err" || { cat "$WORK/err"; fail "second kixd message"; }
[ ! -e "$WORK/second.sock" ] || fail "the second kixd listened"
kill -0 "$FIRST" || fail "the first kixd died"
"$KIX" info --server "$KIXD_ADDR" >/dev/null || fail "the first kixd stopped answering"
stop_kixd
start_kixd "$WORK/log" # the lock goes with the process
stop_kixd
pass "a second kixd on one store is refused"

# ports past 65535 and other bad addresses: refused (exit 2) with the cause
for addr in tcp://127.0.0.1:70000 tcp://127.0.0.1:65536 tcp://[::1]:99999; do
  expect_status 2 "$KIXD" serve --store "$WORK/log" --listen "$addr"
  grep -q "out of range (0 to 65535)" "$WORK/err" || { cat "$WORK/err"; fail "kixd --listen $addr"; }
  expect_status 2 "$KIX" info --server "$addr"
  grep -q "out of range (0 to 65535)" "$WORK/err" || { cat "$WORK/err"; fail "kix --server $addr"; }
  expect_status 2 "$KIXD" serve --store "$WORK/log" --http "$addr"
  grep -q "out of range (0 to 65535)" "$WORK/err" || { cat "$WORK/err"; fail "kixd --http $addr"; }
done
expect_status 2 "$KIX" info --server 127.0.0.1:70000
grep -q "out of range" "$WORK/err" || fail "kix --server HOST:PORT without a scheme"
expect_status 2 "$KIXD" serve --store "$WORK/log" --listen tcp://127.0.0.1
grep -q "no port" "$WORK/err" || fail "no port message: $(cat "$WORK/err")"
expect_status 2 "$KIXD" serve --store "$WORK/log" --listen tcp://127.0.0.1:7x
grep -q "the port must be a number" "$WORK/err" || fail "bad port message: $(cat "$WORK/err")"
expect_status 2 "$KIXD" serve --store "$WORK/log" --listen unix://relative.sock
grep -q "unix:///ABSOLUTE/PATH" "$WORK/err" || fail "relative socket message: $(cat "$WORK/err")"
printf 'store = %s\nlisten = tcp://127.0.0.1:70000\n' "$WORK/log" >"$WORK/bad.conf"
expect_status 2 "$KIXD" serve --config "$WORK/bad.conf"
grep -q "bad.conf:2: --listen: .*out of range" "$WORK/err" || fail "config listen: $(cat "$WORK/err")"
pass "addresses are validated everywhere, with the cause"

# a socket in a missing directory: said so, not "permission denied"
expect_status 3 "$KIXD" serve --store "$WORK/log" --listen "unix://$WORK/nodir/kixd.sock"
grep -q "the directory $WORK/nodir does not exist" "$WORK/err" || { cat "$WORK/err"; fail "socket dir"; }
grep -qi "permission denied" "$WORK/err" && fail "a missing directory reported as permission denied"
pass "a missing socket directory is named"

# --config must be a regular file: a directory is refused, a FIFO does not hang
mkdir "$WORK/confdir"
expect_status 2 "$KIXD" serve --config "$WORK/confdir"
grep -q "is a directory" "$WORK/err" || fail "config directory: $(cat "$WORK/err")"
mkfifo "$WORK/conf.fifo"
expect_status 2 timeout 10 "$KIXD" serve --config "$WORK/conf.fifo"
grep -q "is a FIFO" "$WORK/err" || fail "config FIFO: $(cat "$WORK/err")"
pass "--config refuses a directory and a FIFO"

# a query filter that is not UTF-8 is refused, locally and through kixd
expect_status 1 "$KIX" query --store "$WORK/log" --gpu $'A\xff'
grep -q "gpu filter is not valid UTF-8" "$WORK/err" || fail "local query: $(cat "$WORK/err")"
start_kixd "$WORK/log"
expect_status 1 "$KIX" query --server "$KIXD_ADDR" --kernel $'\xc3('
grep -q "kernel filter is not valid UTF-8" "$WORK/err" || fail "remote query: $(cat "$WORK/err")"
expect_status 0 "$KIX" query --server "$KIXD_ADDR" --gpu $'\xc3\xa9'
stop_kixd
pass "query filters must be UTF-8"

# an explicit size of 2^64-1 is refused, not read as "the latest"; a permalink
# of another log is refused, locally and through kixd
"$KIX" keygen --name pub --out "$WORK/pub" >/dev/null 2>&1
"$KIX" key add --store "$WORK/log" --key "$WORK/log/admin.key" --role publish "$WORK/pub.pub" >/dev/null
make_manifests "$WORK/m" 1
"$KIX" publish --store "$WORK/log" --key "$WORK/pub.key" "$WORK/m/run.json" "$WORK/m/workload.json" \
  >"$WORK/published"
LINK=$(head -n 1 "$WORK/published")
RUN=${LINK##*/}
start_kixd "$WORK/log"
for where in "--store $WORK/log" "--server $KIXD_ADDR"; do
  # shellcheck disable=SC2086
  expect_status 2 "$KIX" checkpoint $where --size 18446744073709551615
  # shellcheck disable=SC2086
  expect_status 2 "$KIX" proof inclusion 0 $where --size 18446744073709551615
  # shellcheck disable=SC2086
  expect_status 0 "$KIX" resolve $where "$LINK"
  for cmd in resolve show cite; do
    # shellcheck disable=SC2086
    expect_status 1 "$KIX" $cmd $where "https://evil.example/log/runs/$RUN"
    grep -q "permalink is for log evil.example/log, not kix.edges/log" "$WORK/err" ||
      fail "kix $cmd $where: $(cat "$WORK/err")"
  done
done
stop_kixd
pass "size 2^64-1 and a permalink of another log are refused"

# re-adding a revoked key is refused (it used to print "already logged ...
# receipt verified" and exit 0 while the key stayed revoked)
"$KIX" keygen --name gone --out "$WORK/gone" >/dev/null 2>&1
"$KIX" key add --store "$WORK/log" --key "$WORK/log/admin.key" --role publish "$WORK/gone.pub" >/dev/null
"$KIX" key revoke --store "$WORK/log" --key "$WORK/log/admin.key" "$WORK/gone.pub" >/dev/null
size_before=$("$KIX" info --store "$WORK/log" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["size"])')
expect_status 1 "$KIX" key add --store "$WORK/log" --key "$WORK/log/admin.key" --role publish "$WORK/gone.pub"
grep -q "stays revoked: generate a new key" "$WORK/err" || fail "re-add revoked: $(cat "$WORK/err")"
grep -q "receipt verified" "$WORK/out" && fail "re-adding a revoked key claimed success"
start_kixd "$WORK/log"
expect_status 1 "$KIX" key add --server "$KIXD_ADDR" --key "$WORK/log/admin.key" --role publish "$WORK/gone.pub"
grep -q "stays revoked" "$WORK/err" || fail "re-add revoked via kixd: $(cat "$WORK/err")"
stop_kixd
size_after=$("$KIX" info --store "$WORK/log" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["size"])')
[ "$size_before" = "$size_after" ] || fail "refused re-add changed the log ($size_before -> $size_after)"
pass "a revoked key cannot be re-added, and the refusal is said"

# every command's --help lists exit statuses, and kix help CMD prints it
for cmd in $("$KIX" --help | awk '/^  [a-z]/ {print $1}'); do
  expect_status 0 "$KIX" help "$cmd"
  grep -q "^exit status: 0" "$WORK/out" || fail "kix help $cmd lists no exit statuses"
  cp "$WORK/out" "$WORK/help-a"
  "$KIX" "$cmd" --help >"$WORK/help-b" 2>&1 || true
  cmp -s "$WORK/help-a" "$WORK/help-b" || fail "kix help $cmd differs from kix $cmd --help"
done
expect_status 2 "$KIX" help nosuch
# a missing input file exits 1, as the help says
expect_status 1 "$KIX" canon "$WORK/no-such.json"
expect_status 1 "$KIX" publish --store "$WORK/log" --key "$WORK/pub.key" "$WORK/no-such.json"
grep -q "FILE not found" <<<"$("$KIX" help canon)" || fail "kix canon --help does not say a missing file exits 1"
pass "every --help lists its exit statuses; kix help CMD"

# --json is honoured by entry, receipt and get (it used to be ignored)
is_json() { python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" || fail "$2: not JSON: $(head -c 200 "$1")"; }
expect_status 0 "$KIX" entry 1 --store "$WORK/log" --json
is_json "$WORK/out" "kix entry --json"
[ "$(json_get "$WORK/out" 'd["index"]')" = 1 ] || fail "kix entry --json index"
expect_status 0 "$KIX" receipt 1 --store "$WORK/log" --json
is_json "$WORK/out" "kix receipt --json"
[ "$(json_get "$WORK/out" 'd["receipt"].split(chr(10))[0]')" = c2sp.org/tlog-proof@v1 ] || fail "kix receipt --json receipt"
WD=$("$KIX" digest "$WORK/m/workload.json")
expect_status 0 "$KIX" get "$WD" --store "$WORK/log" --json
is_json "$WORK/out" "kix get --json"
[ "$(json_get "$WORK/out" 'd["object"]["kind"]')" = Workload ] || fail "kix get --json object"
pass "--json honoured by entry, receipt, get"

# kixd --log-format json: one JSON object per line; text under systemd: the
# journal's priority prefix instead of a timestamp
"$KIXD" serve --store "$WORK/log" --listen "unix://$WORK/j.sock" --log-format json 2>"$WORK/json.log" &
JPID=$!
KIXD_PIDS+=("$JPID")
for _ in $(seq 1 100); do "$KIX" info --server "unix://$WORK/j.sock" >/dev/null 2>&1 && break; sleep 0.05; done
kill -TERM "$JPID"; wait "$JPID" || fail "kixd --log-format json did not stop cleanly"
python3 - "$WORK/json.log" <<'PY' || fail "kixd --log-format json: $(head -3 "$WORK/json.log")"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) >= 3, lines
for l in lines:
    d = json.loads(l)
    assert set(d) == {"time", "level", "msg"}, d
assert any("serving log" in json.loads(l)["msg"] for l in lines)
PY
expect_status 2 "$KIXD" serve --store "$WORK/log" --log-format xml
: >"$WORK/journal.log"
JOURNAL_STREAM=$(stat -c '%d:%i' "$WORK/journal.log") \
  "$KIXD" serve --store "$WORK/log" --listen "unix://$WORK/j2.sock" 2>>"$WORK/journal.log" &
JPID=$!
KIXD_PIDS+=("$JPID")
for _ in $(seq 1 100); do "$KIX" info --server "unix://$WORK/j2.sock" >/dev/null 2>&1 && break; sleep 0.05; done
kill -TERM "$JPID"; wait "$JPID" || true
grep -q '^<6>info  kixd .* serving log' "$WORK/journal.log" || fail "journal lines: $(head -2 "$WORK/journal.log")"
grep -qE '^[0-9]{4}-' "$WORK/journal.log" && fail "timestamps in journal lines"
pass "kixd --log-format text|json, journal-aware"
