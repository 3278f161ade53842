#!/usr/bin/env bash
# kixd's command line, config file, logs and signals, and the kix commands
# against a running kixd (--server).
set -u
BIN=${KIX_BIN:?set KIX_BIN to the bin directory of the build}
T=$(mktemp -d /tmp/kixd-cli-XXXXXX)
PID=
fail() {
    echo "FAIL: $*" >&2
    [ -f "$T/kixd.log" ] && tail -n 20 "$T/kixd.log" >&2
    [ -n "$PID" ] && kill -9 "$PID" 2>/dev/null
    rm -rf "$T"
    exit 1
}
expect_status() { # want cmd...
    local want=$1
    shift
    "$@" >"$T/out" 2>"$T/err"
    local got=$?
    [ "$got" = "$want" ] || fail "$* exited $got, want $want: $(cat "$T/err")"
}
wait_socket() {
    for _ in $(seq 1 300); do
        "$BIN/kix" info --server "$1" >/dev/null 2>&1 && return 0
        kill -0 "$PID" 2>/dev/null || fail "kixd died"
        sleep 0.02
    done
    fail "kixd did not come up on $1"
}

# --help everywhere, usage errors exit 2
expect_status 0 "$BIN/kixd" --help
for c in init serve check export backup promote; do
    grep -q "^  $c " "$T/out" || fail "kixd --help lacks $c"
    expect_status 0 "$BIN/kixd" "$c" --help
    grep -Eq "usage: kixd \[?$c" "$T/out" || fail "kixd $c --help prints no usage"
    "$BIN/kixd" --help >"$T/out"
done
expect_status 0 "$BIN/kixd" serve --help
for opt in --store --listen --config --log-level --threads --max-message --max-in-flight \
    --max-connections --idle-timeout --max-output --max-batch --max-group --drain-timeout; do
    grep -q -- "$opt" "$T/out" || fail "kixd serve --help lacks $opt"
done
# --mirror-of follows a static copy over http:// as well as https://
grep -q "http(s)://HOST/PREFIX/" "$T/out" || fail "kixd serve --help: --mirror-of names https:// only"
expect_status 0 "$BIN/kixd" init --help
expect_status 2 "$BIN/kixd" serve
grep -q -- "--store DIR is required" "$T/err" || fail "no message for a missing --store"
expect_status 2 "$BIN/kixd" serve --store "$T/x" --bogus
expect_status 2 "$BIN/kixd" serve --store "$T/x" --max-in-flight zero
grep -q "max-in-flight" "$T/err" || fail "bad value message lacks the option"
expect_status 2 "$BIN/kixd" serve --store "$T/x" --listen http://x
expect_status 2 "$BIN/kixd" frobnicate
expect_status 3 "$BIN/kixd" serve --store "$T/none" --listen "unix://$T/s0"
grep -q "kixd init" "$T/err" || fail "a missing store should point at kixd init"

# nothing listening: kix says so and suggests kixd
expect_status 3 "$BIN/kix" info --server "unix://$T/nobody"
grep -q "is kixd running" "$T/err" || fail "unreachable server message: $(cat "$T/err")"

# a log, served from a config file
"$BIN/kixd" init --store "$T/log" --admin-key "$T/log/admin.key" --origin kix.cli/log >"$T/vkey" 2>/dev/null || fail "init"
# a log with no run yet exports (its checkpoint, the static files, runs/.size)
expect_status 0 "$BIN/kixd" export --store "$T/log" "$T/exp0"
[ "$(cat "$T/exp0/runs/.size" 2>/dev/null)" = 1 ] && [ -s "$T/exp0/checkpoint" ] ||
  fail "kixd export of a log with no run: $(cat "$T/err")"
KEY=$(cat "$T/vkey")
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$T/kixd.conf" <<EOF
# kixd settings
store = $T/log
listen = unix://$T/sock
listen = tcp://127.0.0.1:$PORT
log-level = debug
max-in-flight = 8
idle-timeout = 30
EOF
"$BIN/kixd" serve --config "$T/kixd.conf" 2>"$T/kixd.log" &
PID=$!
wait_socket "unix://$T/sock"
wait_socket "tcp://127.0.0.1:$PORT"
grep -q "debug" "$T/kixd.log" || fail "log-level from the config file not applied"
grep -Eq "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z info  kixd" "$T/kixd.log" || fail "log line format"
grep -q "PRIVATE" "$T/kixd.log" && fail "the log mentions a private key"

# the kix commands against it
expect_status 0 "$BIN/kix" info --server "tcp://127.0.0.1:$PORT" --json
grep -q '"origin":"kix.cli/log"' "$T/out" || fail "kix info --json: $(cat "$T/out")"
grep -q '"size":1' "$T/out" || fail "kix info size"
expect_status 0 "$BIN/kix" checkpoint --server "unix://$T/sock" --log-key "$KEY"
head -1 "$T/out" | grep -q "kix.cli/log" || fail "checkpoint origin"
expect_status 0 "$BIN/kix" entry 0 --server "unix://$T/sock" --log-key "$KEY"
grep -q "payloadType" "$T/out" || fail "entry 0 is not an envelope"
expect_status 1 "$BIN/kix" entry 5 --server "unix://$T/sock" --log-key "$KEY"
expect_status 0 "$BIN/kix" proof inclusion 0 --server "unix://$T/sock" --log-key "$KEY"
expect_status 0 "$BIN/kix" receipt 0 --server "unix://$T/sock" --log-key "$KEY"
cp "$T/out" "$T/receipt"
expect_status 0 "$BIN/kix" verify "$T/receipt" --log-key "$KEY"
expect_status 1 "$BIN/kix" receipt 9 --server "unix://$T/sock" --log-key "$KEY"
# every command that reads a log verifies against a log key: none, no answer
expect_status 2 "$BIN/kix" entry 0 --server "unix://$T/sock"
grep -q "no log key to verify against" "$T/err" || fail "entry without a key: $(cat "$T/err")"

# a second kixd on the same store is refused, and on the same address too
expect_status 3 "$BIN/kixd" serve --store "$T/log" --listen "tcp://127.0.0.1:$PORT"
grep -q "another kixd is serving" "$T/err" || fail "second kixd on the store: $(cat "$T/err")"
"$BIN/kixd" init --store "$T/log2" --admin-key "$T/log2/admin.key" --origin kix.cli/log2 >/dev/null 2>&1 || fail "init log2"
expect_status 3 "$BIN/kixd" serve --store "$T/log2" --listen "tcp://127.0.0.1:$PORT"
grep -q "in use" "$T/err" || fail "second kixd on the port: $(cat "$T/err")"
expect_status 3 "$BIN/kixd" serve --store "$T/log2" --listen "unix://$T/sock"
grep -q "a server is running there" "$T/err" || fail "second kixd on the socket: $(cat "$T/err")"

# a config file error names the line
printf 'store = %s\nbogus = 1\n' "$T/log" >"$T/bad.conf"
expect_status 2 "$BIN/kixd" serve --config "$T/bad.conf"
grep -q "bad.conf:2" "$T/err" || fail "config error without its line: $(cat "$T/err")"

# SIGTERM: exit 0, the socket file is removed
kill -TERM "$PID"
wait "$PID"
st=$?
PID=
[ "$st" = 0 ] || fail "kixd exited $st after SIGTERM"
[ -e "$T/sock" ] && fail "the socket file was left behind"
grep -q "stopped" "$T/kixd.log" || fail "no 'stopped' line"

# a stale socket file is replaced; SIGINT stops it too
python3 -c "import socket; s=socket.socket(socket.AF_UNIX); s.bind('$T/sock')"
"$BIN/kixd" --store "$T/log" --listen "unix://$T/sock" 2>"$T/kixd.log" &
PID=$!
wait_socket "unix://$T/sock"
kill -INT "$PID"
wait "$PID"
st=$?
PID=
[ "$st" = 0 ] || fail "kixd exited $st after SIGINT"

rm -rf "$T"
echo ok
