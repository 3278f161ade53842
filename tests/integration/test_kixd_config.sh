#!/usr/bin/env bash
# kixd serve's options come from one table (daemon/base/serve_options.c): every option
# that 'kixd serve --help' lists is accepted from the command line and from
# the --config file alike, with the same outcome. The list is read off
# --help, so an option added without config-file support fails here.
. "$KIX_TESTS/integration/lib.sh"

NONE="$WORK/none" # no store: kixd stops after parsing, before serving
UP=tcp://127.0.0.1:1
HW="http://127.0.0.1:1/w k"

# A valid value for an option (its name, or its metavar in --help).
value_of() { # name metavar
  case "$1" in
  store) echo "$NONE" && return ;;
  listen) echo "unix://$WORK/sock" && return ;;
  http | mirror-of | peer) echo "$UP" && return ;;
  esac
  case "$2" in
  DIR) echo "$WORK/dir" ;;
  N) echo 1 ;;
  BYTES) echo 1M ;;
  SECS) echo 5 ;;
  MS) echo 100 ;;
  LEVEL) echo debug ;;
  FORMAT) echo json ;;
  KEY) echo notakey ;;
  FILE) echo "$WORK/missing-file" ;;
  '"[ORIGIN ]KEY"') echo "origin notakey" ;;
  '"URL KEY"') echo "$HW" ;;
  ORIGIN) echo https://bench.example.org ;;
  URL) echo https://log.example.org/submit ;;
  *) fail "no test value for --$1 $2 (add one to test_kixd_config.sh)" ;;
  esac
}

# What an option needs beside it to get past the checks of combinations.
companions_of() {
  case "$1" in
  mirror-of) printf '%s\n' --upstream-key notakey ;;
  upstream-key | mirror-batch) printf '%s\n' --mirror-of "$UP" --upstream-key notakey ;;
  fail-on-fork) printf '%s\n' --mirror-of "$UP" --upstream-key notakey ;;
  witness-key) printf '%s\n' --witness-log "origin notakey" ;;
  witness-log) printf '%s\n' --witness-key "$WORK/missing-file" ;;
  http-witness-ca) printf '%s\n' --http-witness "$HW" ;;
  http-access-log | http-metrics) printf '%s\n' --http "$UP" ;;
  phase-stats) printf '%s\n' --http "$UP" --http-metrics ;;
  ack-mirror-key) printf '%s\n' --ack-replicas 1 ;;
  ack-replicas) printf '%s\n' --insecure-unsigned-acks ;;
  insecure-unsigned-acks) printf '%s\n' --ack-replicas 1 ;;
  esac
}

# stderr without what differs from one run to the next (times)
normalize() {
  sed -E 's/^[0-9]{4}-[0-9-]+T[0-9:.]+Z //; s/"time":"[^"]*",?//; s/[0-9]+(\.[0-9]+)? ms/N ms/g' "$1"
}

"$KIXD" serve --help >"$WORK/help"
grep -E '^  --[a-z]' "$WORK/help" | sed -E 's/^  --([a-z-]+)( ("[^"]*"|[A-Z]+))?( .*)?$/\1 \3/' >"$WORK/options"
[ "$(wc -l <"$WORK/options")" -ge 35 ] || fail "could not read the options of kixd serve --help"
n=0
while read -r name metavar; do
  [ "$name" = config ] && continue
  mapfile -t extra < <(companions_of "$name")
  base=()
  [ "$name" = store ] || [ "$name" = source ] || base=(--store "$NONE")
  if [ -z "$metavar" ]; then
    cli=("--$name")
    line="$name = true"
  else
    v=$(value_of "$name" "$metavar")
    cli=("--$name" "$v")
    line="$name = $v"
  fi
  set +e
  "$KIXD" serve "${base[@]}" "${extra[@]}" "${cli[@]}" >/dev/null 2>"$WORK/err.cli"
  st_cli=$?
  printf '%s\n' "$line" >"$WORK/kixd.conf"
  "$KIXD" serve "${base[@]}" "${extra[@]}" --config "$WORK/kixd.conf" >/dev/null 2>"$WORK/err.conf"
  st_conf=$?
  set -e
  grep -q -e 'unknown setting' -e 'bad value' -e "Try 'kixd serve --help'" "$WORK/err.cli" "$WORK/err.conf" &&
    fail "--$name: refused as an option: $(cat "$WORK/err.cli" "$WORK/err.conf")"
  [ "$st_cli" = "$st_conf" ] || fail "--$name: exit $st_cli on the command line, $st_conf from the config file: $(cat "$WORK/err.conf")"
  [ "$st_cli" != 0 ] || fail "--$name: kixd served a store that does not exist"
  diff <(normalize "$WORK/err.cli") <(normalize "$WORK/err.conf") >/dev/null ||
    fail "--$name: the command line and the config file differ: $(diff <(normalize "$WORK/err.cli") <(normalize "$WORK/err.conf"))"
  n=$((n + 1))
done <"$WORK/options"
pass "all $n options of kixd serve --help act alike from the command line and the config file"

# a bad value is refused alike from both, naming the option
expect_status 2 "$KIXD" serve --store "$NONE" --threads 0
grep -q -- '--threads: bad value "0"' "$WORK/err" || fail "--threads 0: $(cat "$WORK/err")"
printf 'store = %s\nthreads = 0\n' "$NONE" >"$WORK/kixd.conf"
expect_status 2 "$KIXD" serve --config "$WORK/kixd.conf"
grep -q -- 'kixd.conf:2: --threads: bad value "0"' "$WORK/err" || fail "threads = 0: $(cat "$WORK/err")"
# a flag takes true or false in the file; anything else is a bad value
printf 'store = %s\nno-store-check = maybe\n' "$NONE" >"$WORK/kixd.conf"
expect_status 2 "$KIXD" serve --config "$WORK/kixd.conf"
grep -q -- 'kixd.conf:2: --no-store-check: bad value "maybe"' "$WORK/err" || fail "flag = maybe: $(cat "$WORK/err")"
printf 'store = %s\nhttp-metrics = false\nphase-stats = false\n' "$NONE" >"$WORK/kixd.conf"
expect_status 3 "$KIXD" serve --config "$WORK/kixd.conf"
# help and config itself are for the command line only
for key in config help; do
  printf 'store = %s\n%s = x\n' "$NONE" "$key" >"$WORK/kixd.conf"
  expect_status 2 "$KIXD" serve --config "$WORK/kixd.conf"
  grep -q "unknown setting \"$key\"" "$WORK/err" || fail "$key in the config file: $(cat "$WORK/err")"
done
pass "bad values and command-line-only keys are refused from the config file"

# issue 27 point 6: a flag takes the spellings of other daemons' config files
printf 'store = %s\nhttp = %s\nhttp-metrics = yes\nphase-stats = on\nno-store-check = 0\nno-large-pages = yes\n' "$NONE" "$UP" >"$WORK/kixd.conf"
expect_status 3 "$KIXD" serve --config "$WORK/kixd.conf"
! grep -q "bad value" "$WORK/err" || fail "yes/on/0 in the config file: $(cat "$WORK/err")"
pass "a flag takes yes/no, on/off, 1/0 in the config file"

# --log-file, and SIGHUP reopens it after a rotation, saying so in the new one
"$KIXD" init --store "$WORK/log" --admin-key "$WORK/log/admin.key" --origin kix.test/config >/dev/null 2>&1
printf 'store = %s\nlisten = unix://%s\nlog-file = %s\n' "$WORK/log" "$WORK/s.sock" "$WORK/kixd.log" >"$WORK/kixd.conf"
"$KIXD" serve --config "$WORK/kixd.conf" >/dev/null 2>"$WORK/serve.err" &
SPID=$!
for _ in $(seq 1 100); do grep -q "serving" "$WORK/kixd.log" 2>/dev/null && break; sleep 0.1; done
grep -q "serving" "$WORK/kixd.log" || { kill $SPID; fail "--log-file: nothing logged there: $(cat "$WORK/serve.err")"; }
[ ! -s "$WORK/serve.err" ] || { kill $SPID; fail "--log-file: stderr still used: $(cat "$WORK/serve.err")"; }
mv "$WORK/kixd.log" "$WORK/kixd.log.1"
kill -HUP $SPID
for _ in $(seq 1 100); do [ -s "$WORK/kixd.log" ] && break; sleep 0.1; done
grep -q "received SIGHUP: reopened the log file $WORK/kixd.log" "$WORK/kixd.log" || { kill $SPID; fail "SIGHUP: $(cat "$WORK/kixd.log" 2>&1)"; }
kill -0 $SPID || fail "SIGHUP stopped kixd"
kill $SPID
wait $SPID || true
grep -q "received Terminated" "$WORK/kixd.log" || fail "after SIGHUP, the new file gets the lines: $(cat "$WORK/kixd.log")"
! grep -q "received Terminated" "$WORK/kixd.log.1" || fail "the rotated file still written"
pass "--log-file: SIGHUP reopens it after a rotation and says so in it"
