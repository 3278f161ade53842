#!/usr/bin/env bash
# Issue 27 part 5, one CLI convention: global options before the command act
# as after it (after wins); --json on every command is one camelCase object;
# an error under --json is one {"error": ...} object on stdout with its code,
# exit code and data (a refused duplicate names the existing run); every
# malformed address exits 2; "did you mean" for commands and options; a
# wrong log key names both keys; a .pub given as --key says so first; kixd
# names --http when the HTTP port is taken (docs/REFERENCE.md, "Output for scripts").
. "$KIX_TESTS/integration/lib.sh"

"$KIXD" init --store "$WORK/log" --admin-key "$WORK/log/admin.key" --origin kix.conv/log >"$WORK/vkey" 2>/dev/null
export KIX_LOG_KEY="$(cat "$WORK/vkey")"
S=(--store "$WORK/log")
"$KIX" keygen --name alice --out "$WORK/alice" >/dev/null 2>&1
"$KIX" key add "${S[@]}" --key "$WORK/log/admin.key" --role publish,attest "$WORK/alice.pub" >/dev/null
"$KIX" new run --kernel rope --gpu "NVIDIA A100-SXM4-80GB" --provider conv "$WORK/b" >/dev/null 2>&1
fill_bundle "$WORK/b"
"$KIX" publish "${S[@]}" --key "$WORK/alice.key" --json "$WORK/b/run.json" >"$WORK/pub.json"
RUN=$(json_get "$WORK/pub.json" 'd["runId"]')

# check_json FILE: FILE holds exactly one JSON object, every key camelCase
# (documents kix embeds as they are, a manifest or a stored object, aside)
check_json() {
  python3 - "$1" <<'PY'
import json, re, sys
EMBEDDED = {"manifest", "object", "entry", "parameters", "labels"}
text = open(sys.argv[1]).read()
doc = json.loads(text)  # one value: NDJSON or two objects fail here
assert isinstance(doc, dict), "not an object: %r" % text[:200]
bad = []
def walk(v, path):
    if isinstance(v, dict):
        for k, x in v.items():
            if not re.fullmatch(r"[a-z][A-Za-z0-9]*", k):
                bad.append(path + "/" + k)
            if k not in EMBEDDED:
                walk(x, path + "/" + k)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            walk(x, "%s/%d" % (path, i))
walk(doc, "")
assert not bad, "keys not camelCase: %s" % bad
PY
}

# ---- global options before the command act as after it ---------------------
start_kixd "$WORK/log"
A=(--server "$KIXD_ADDR")
for args in "info" "checkpoint" "show $RUN" "resolve $RUN" "query --kernel rope" "log --from 0" \
  "key list" "cite $RUN" "index run/$RUN" "proof inclusion 1"; do
  read -ra cmd <<<"$args"
  "$KIX" "${cmd[@]}" "${A[@]}" --log-key "$KIX_LOG_KEY" --json >"$WORK/after" 2>"$WORK/after.err" ||
    fail "kix $args (options after): $(cat "$WORK/after.err")"
  "$KIX" "${A[@]}" --log-key "$KIX_LOG_KEY" --json "${cmd[@]}" >"$WORK/before" 2>"$WORK/before.err" ||
    fail "kix $args (options before): $(cat "$WORK/before.err")"
  # cite carries today's date and the size read: the same log, so the same
  cmp -s "$WORK/after" "$WORK/before" || fail "kix $args: before and after differ"
done
# and --store, --server=ADDR forms, text output
"$KIX" "${S[@]}" show "$RUN" >"$WORK/before"
"$KIX" show "$RUN" "${S[@]}" >"$WORK/after"
cmp -s "$WORK/before" "$WORK/after" || fail "--store before show differs"
"$KIX" --server="$KIXD_ADDR" --json info >"$WORK/info.json" || fail "kix --server=ADDR --json info"
check_json "$WORK/info.json"
# kix help takes one COMMAND at most, --json before or after it
expect_status 2 "$KIX" help show info
"$KIX" help show --json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert [c["name"] for c in d["commands"]] == ["show"] and d["exitStatuses"][4]["code"] == 4' ||
  fail "kix help show --json: $("$KIX" help show --json)"
# kix --json info, with the server from the environment
KIX_SERVER="$KIXD_ADDR" expect_status 0 "$KIX" --json info
[ "$(json_get "$WORK/out" 'd["origin"]')" = kix.conv/log ] || fail "kix --json info: $(cat "$WORK/out")"
# an option after the command wins over the same before it
expect_status 0 "$KIX" --server tcp://127.0.0.1:1 info --server "$KIXD_ADDR"
expect_status 0 "$KIX" --store "$WORK/nothing-here" --json checkpoint "${S[@]}"
"$KIX" keygen --witness --name w.conv --out "$WORK/w" >/dev/null 2>&1
# a quorum before the command is in force: 0 of 1 cosignatures
expect_status 1 "$KIX" --witness "$WORK/w.pub" --min-witnesses 1 checkpoint "${A[@]}"
grep -q "witness cosignatures required" "$WORK/err" || fail "global quorum: $(cat "$WORK/err")"
expect_status 1 "$KIX" checkpoint "${A[@]}" --witness "$WORK/w.pub" --min-witnesses 1
# ... and one after it wins
expect_status 0 "$KIX" --witness "$WORK/w.pub" --min-witnesses 1 checkpoint "${A[@]}" --min-witnesses 0
# a --witness list after the command replaces the one before it
expect_status 2 "$KIX" --witness "$WORK/alice.pub" checkpoint "${A[@]}" --witness "$WORK/w.pub" --min-witnesses 2
grep -q "needs at least that many --witness keys (1 given)" "$WORK/err" || fail "witness list: $(cat "$WORK/err")"
# a global option a command does not take is refused as after it
expect_status 2 "$KIX" --server "$KIXD_ADDR" keygen --name x --out "$WORK/x"
expect_status 2 "$KIX" keygen --server "$KIXD_ADDR" --name x --out "$WORK/x"
pass "global options before the command act as after it; after wins"

# ---- --json on every command: one camelCase object ------------------------
"$KIX" receipt "${S[@]}" 2 >"$WORK/r.tlog"
"$KIX" cite "${S[@]}" "$RUN" --json >"$WORK/cit.json"
WD=$("$KIX" digest "$WORK/b/workload.json")
GROUP=$(json_get <("$KIX" query "${S[@]}" --kernel rope --json) 'd["runs"][0]["group"]')
make_manifests "$WORK/m" 7
WD2=$("$KIX" digest "$WORK/m/workload.json")
cp "$WORK/b/run.json" "$WORK/b/run2.json"
n=0
while IFS= read -r line; do
  [ -n "$line" ] || continue
  eval "cmd=($line)"
  "$KIX" --json "${cmd[@]}" >"$WORK/j.$n" 2>"$WORK/j.$n.err" ||
    fail "kix --json $line: exit $?: $(cat "$WORK/j.$n.err")"
  check_json "$WORK/j.$n" || fail "kix --json $line: $(head -c 300 "$WORK/j.$n")"
  n=$((n + 1))
done <<EOF
canon "$WORK/b/run.json"
digest "$WORK/b/run.json"
validate "$WORK/m/workload.json"
store count --store "$WORK/log"
store put --store "$WORK/st" "$WORK/m/workload.json"
store get --store "$WORK/st" $WD2
store has --store "$WORK/log" $WD
keygen --name bob --out "$WORK/bob"
new run --kernel rope --gpu "NVIDIA A100-SXM4-80GB" --provider conv "$WORK/n1"
new run --like $RUN --store "$WORK/log" "$WORK/n2"
publish --dry-run --store "$WORK/log" --key "$WORK/alice.key" "$WORK/b/run.json"
publish --store "$WORK/log" --key "$WORK/alice.key" "$WORK/m/run.json" "$WORK/m/workload.json"
attest --store "$WORK/log" --key "$WORK/alice.key" --note ok $RUN
key add --store "$WORK/log" --key "$WORK/log/admin.key" --role attest "$WORK/bob.pub"
key list --store "$WORK/log"
info --store "$WORK/log"
checkpoint --store "$WORK/log"
entry --store "$WORK/log" 1
proof inclusion --store "$WORK/log" 1
proof consistency --store "$WORK/log" 1 3
receipt --store "$WORK/log" 1
verify "$WORK/r.tlog"
get --store "$WORK/log" $WD
resolve --store "$WORK/log" $RUN
show --store "$WORK/log" $RUN
query --store "$WORK/log" --kernel rope
group --store "$WORK/log" $GROUP
index --store "$WORK/log" run/$RUN
cite --store "$WORK/log" $RUN
verify-citation --store "$WORK/log" "$WORK/cit.json"
log --store "$WORK/log" --from 0
audit --store "$WORK/log"
trust "$KIXD_ADDR"
trust --server "$KIXD_ADDR"
--version
help
help show
EOF
# the write commands that need a run of their own: supersede, rerun (a key
# other than the publisher's)
make_manifests "$WORK/s1" 9
make_manifests "$WORK/s2" 10
"$KIX" publish "${S[@]}" --key "$WORK/alice.key" --json "$WORK/s1/run.json" "$WORK/s1/workload.json" >"$WORK/s1.json"
"$KIX" key add "${S[@]}" --key "$WORK/log/admin.key" --role rerun "$WORK/bob.pub" >/dev/null
mkdir -p "$WORK/rr" && make_rerun "$WORK/m" "$WORK/rr" 11
M_RUN=$(json_get "$WORK/j.11" 'd["runId"]')  # j.11: the publish line of the list above
for args in "supersede --key $WORK/alice.key $(json_get "$WORK/s1.json" 'd["runId"]') $WORK/s2/run.json $WORK/s2/workload.json" \
  "rerun --key $WORK/bob.key --outcome reproduced $M_RUN $WORK/rr/run.json"; do
  read -ra cmd <<<"$args"
  "$KIX" --json "${S[@]}" "${cmd[@]}" >"$WORK/j.$n" 2>"$WORK/j.$n.err" || fail "kix --json $args: $(cat "$WORK/j.$n.err")"
  check_json "$WORK/j.$n" || fail "kix --json $args: $(head -c 300 "$WORK/j.$n")"
  n=$((n + 1))
done
pass "--json on $n commands prints one camelCase object"
# kix key list: one object, a name only where the text shows one
"$KIX" key list "${S[@]}" --json "$WORK/alice.pub" >"$WORK/keys.json"
python3 - "$WORK/keys.json" <<'PY' || fail "key list --json: $(cat "$WORK/keys.json")"
import json, sys
d = json.load(open(sys.argv[1]))
names = [k.get("name") for k in d["keys"]]
assert "alice" in names and None in names, names
assert all("name" in k or "noteKeyHash" not in k for k in d["keys"]), d
PY
pass "kix key list --json is one object, no null names"

# ---- errors under --json ----------------------------------------------------
# err_json FILE CODE EXIT: FILE is one {"error": ...} object of that code
err_json() {
  python3 - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
e = d["error"]
assert list(d) == ["error"], d
assert e["code"] == sys.argv[2], e
assert e["exitCode"] == int(sys.argv[3]), e
assert e["message"] and e["cause"], e
PY
}
expect_status 2 "$KIX" --json shwo
err_json "$WORK/out" unknownCommand 2 || fail "unknown command: $(cat "$WORK/out")"
[ "$(json_get "$WORK/out" 'd["error"]["suggestion"]')" = show ] || fail "suggestion: $(cat "$WORK/out")"
grep -q "unknown command 'shwo'" "$WORK/err" || fail "prose on stderr: $(cat "$WORK/err")"
expect_status 2 "$KIX" show --jsn "$RUN" --json
err_json "$WORK/out" unknownOption 2 || fail "unknown option: $(cat "$WORK/out")"
[ "$(json_get "$WORK/out" 'd["error"]["suggestion"]')" = --json ] || fail "option suggestion: $(cat "$WORK/out")"
expect_status 1 "$KIX" --json show "${S[@]}" no-such-run
err_json "$WORK/out" notFound 1 || fail "not found: $(cat "$WORK/out")"
expect_status 2 "$KIX" --json publish "${S[@]}"
err_json "$WORK/out" usage 2 || fail "usage: $(cat "$WORK/out")"
# a refused duplicate names the run the log holds
expect_status 1 "$KIX" --json publish "${S[@]}" --key "$WORK/alice.key" "$WORK/b/run.json"
err_json "$WORK/out" refusedByPolicy 1 || fail "duplicate: $(cat "$WORK/out")"
[ "$(json_get "$WORK/out" 'd["error"]["existingRunId"]')" = "$RUN" ] || fail "existing run id: $(cat "$WORK/out")"
[ "$(json_get "$WORK/out" 'd["error"]["existingEntry"]')" = 2 ] || fail "existing entry: $(cat "$WORK/out")"
grep -q "already published as run $RUN" "$WORK/err" || fail "duplicate prose: $(cat "$WORK/err")"
# the same run id for another manifest
expect_status 1 "$KIX" --json publish "${S[@]}" --key "$WORK/alice.key" --new-run --run-id "$RUN" "$WORK/b/run2.json"
[ "$(json_get "$WORK/out" 'd["error"]["existingRunId"]')" = "$RUN" ] || fail "existing run id (by id): $(cat "$WORK/out")"
pass "errors under --json are one object on stdout with code, exit code and data"

# ---- exit 2 for every malformed address -------------------------------------
PORT=$(free_port)
for bad in tcp://127.0.0.1 tcp://:7420 tcp://127.0.0.1:99999 tcp://127.0.0.1:x7 tcp:// \
  unix: unix:// unix://relative/path http:// https:// "http://exa mple/" http://:80/ \
  "https://host:port/" https://[::1/ ftp://example.org localhost 127.0.0.1:70000 ""; do
  expect_status 2 "$KIX" info --server "$bad"
  expect_status 2 "$KIX" --server "$bad" show "$RUN"
  expect_status 2 "$KIX" --json checkpoint --server "$bad"
  err_json "$WORK/out" badAddress 2 || fail "bad address '$bad': $(cat "$WORK/out")"
  [ -z "$bad" ] && continue # an empty KIX_SERVER is no KIX_SERVER
  KIX_SERVER="$bad" expect_status 2 "$KIX" log
  expect_status 2 "$KIX" trust "$bad"
done
# a permalink names its own log: a malformed one is a usage error too
expect_status 2 "$KIX" show "http:///runs/$RUN"
expect_status 2 "$KIX" show "https://exa mple/log/runs/$RUN"
# well formed but nobody there: not a usage error
expect_status 3 "$KIX" info --server "tcp://127.0.0.1:$PORT"
expect_status 3 "$KIX" info --server "unix://$WORK/none.sock"
expect_status 3 "$KIX" info --server "127.0.0.1:$PORT" # HOST:PORT is tcp://HOST:PORT
pass "every malformed address exits 2; an unreachable one 3"

# ---- did you mean -----------------------------------------------------------
expect_status 2 "$KIX" shwo "$RUN"
grep -q "did you mean 'show'?" "$WORK/err" || fail "command: $(cat "$WORK/err")"
expect_status 2 "$KIX" veriy x
grep -q "did you mean 'verify'?" "$WORK/err" || fail "command: $(cat "$WORK/err")"
expect_status 2 "$KIX" show --jsn "$RUN"
grep -q "unknown option '--jsn'; did you mean '--json'?" "$WORK/err" || fail "option: $(cat "$WORK/err")"
expect_status 2 "$KIX" publish --dryrun x.json
grep -q "did you mean '--dry-run'?" "$WORK/err" || fail "option: $(cat "$WORK/err")"
expect_status 2 "$KIX" --sever "$KIXD_ADDR" info
grep -q "did you mean '--server'?" "$WORK/err" || fail "global option: $(cat "$WORK/err")"
expect_status 2 "$KIX" log --limt 3
grep -q "did you mean '--limit'?" "$WORK/err" || fail "cli_parse option: $(cat "$WORK/err")"
expect_status 2 "$KIX" zzzzzz
grep -q "did you mean" "$WORK/err" && fail "a suggestion for nonsense: $(cat "$WORK/err")"
pass "did you mean, for commands and options"

# ---- key messages -----------------------------------------------------------
"$KIXD" init --store "$WORK/other" --admin-key "$WORK/other/admin.key" --origin kix.other/log >"$WORK/vkey2" 2>/dev/null
WANT=$(cut -d+ -f1,2 "$WORK/vkey2")
HAVE=$(cut -d+ -f1,2 "$WORK/vkey")
expect_status 1 "$KIX" show "${A[@]}" --log-key "$(cat "$WORK/vkey2")" "$RUN"
grep -q "expected a signature by $WANT; the note is signed by $HAVE" "$WORK/err" ||
  fail "wrong log key does not name both keys ($WANT, $HAVE): $(cat "$WORK/err")"
grep -q -- "--log-key" "$WORK/err" || fail "wrong log key does not name --log-key: $(cat "$WORK/err")"
expect_status 1 "$KIX" --json show "${A[@]}" --log-key "$(cat "$WORK/vkey2")" "$RUN"
err_json "$WORK/out" keyMismatch 1 || fail "key mismatch object: $(cat "$WORK/out")"
[ "$(json_get "$WORK/out" '(d["error"]["expectedKey"], d["error"]["signedBy"])')" = "('$WANT', ['$HAVE'])" ] ||
  fail "key mismatch data: $(cat "$WORK/out")"
chmod 644 "$WORK/alice.pub"
expect_status 1 "$KIX" attest "${S[@]}" --key "$WORK/alice.pub" --note x "$RUN"
grep -q "alice.pub is a verifier (public) key, not a signing key" "$WORK/err" ||
  fail "a .pub as --key: $(cat "$WORK/err")"
grep -q chmod "$WORK/err" && fail "chmod advice for a public key: $(cat "$WORK/err")"
pass "a wrong log key names both keys; a .pub as --key says it is a verifier key"
stop_kixd

# ---- kixd: the HTTP port in use names --http ------------------------------
HPORT=$(free_port)
python3 -c 'import socket,sys,time; s=socket.socket(); s.bind(("127.0.0.1",int(sys.argv[1]))); s.listen(); time.sleep(30)' "$HPORT" &
HOLDER=$!
for _ in $(seq 1 50); do
  python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1",int(sys.argv[1])))' "$HPORT" 2>/dev/null && break
  sleep 0.1
done
set +e
timeout 20 "$KIXD" serve --store "$WORK/log" --listen "unix://$WORK/k2.sock" --http "tcp://127.0.0.1:$HPORT" \
  >"$WORK/kixd2.out" 2>"$WORK/kixd2.err"
got=$?
set -e
kill "$HOLDER" 2>/dev/null; wait "$HOLDER" 2>/dev/null || true
[ "$got" -ne 0 ] || fail "kixd served on a taken HTTP port"
grep -q "address is in use.*pick another --http" "$WORK/kixd2.err" || fail "port in use: $(cat "$WORK/kixd2.err")"
pass "kixd names --http when the HTTP port is taken"
