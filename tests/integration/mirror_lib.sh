# tests/integration/mirror_lib.sh — helpers of the mirror and witness tests
# (sourced after lib.sh): servers on fixed Unix sockets under $WORK, so that
# a restarted upstream comes back at the same address.

CSV="$KIX_TESTS/data/liger/all_benchmark_data.csv"

# rows FROM TO: the CSV header and data rows FROM..TO (1-based).
rows() { sed -n "1p;$(($1 + 1)),$(($2 + 1))p" "$CSV"; }

# new_origin DIR: a log with the publisher key $WORK/pub registered; its
# verifier key in $WORK/vkey.
new_origin() {
  "$KIXD" init --store "$1" --admin-key "$1/admin.key" --origin kix.test/log >"$WORK/vkey" 2>/dev/null
  [ -f "$WORK/pub.key" ] || "$KIX" keygen --name publisher --out "$WORK/pub" >/dev/null 2>&1
  "$KIX" key add --store "$1" --key "$1/admin.key" --role publish "$WORK/pub.pub" >/dev/null
}

# import WHERE FROM TO BATCH: publishes CSV rows FROM..TO (WHERE: --store DIR
# or --server ADDR, one word each).
import() {
  rows "$2" "$3" >"$WORK/rows-$2-$3.csv"
  local lk=()
  # a server's answers are verified against the log key (a store has its own)
  case "$1" in --server*) [ -n "${KIX_LOG_KEY:-}" ] || lk=(--log-key "$WORK/vkey") ;; esac
  # the publisher is another client than the reader the tests play, with its
  # own remembered checkpoints (a reader may look at a mirror that lags
  # behind), one per WHERE (the fork tests publish into copies of one log)
  KIX_STATE_DIR="$WORK/publisher-state/${1//[^A-Za-z0-9]/_}" \
    "$KIX_BIN/kix-import-liger" --key "$WORK/pub.key" $1 "${lk[@]}" --batch "$4" \
    --map "$WORK/rows-$2-$3.map" "$WORK/rows-$2-$3.csv" >/dev/null 2>>"$WORK/import.log"
}

# wait_up ADDR PID: until kix info answers there.
wait_up() {
  local i
  for i in $(seq 1 200); do
    # up is all we ask here: no log key, nothing verified or remembered
    KIX_LOG_KEY= XDG_CONFIG_HOME=/nonexistent "$KIX" info --server "$1" >/dev/null 2>&1 && return 0
    kill -0 "$2" 2>/dev/null || { tail -n 5 "$WORK"/*.log >&2; fail "kixd for $1 exited"; }
    sleep 0.05
  done
  fail "kixd did not come up on $1"
}

# serve NAME ARGS...: kixd serving $WORK/NAME on unix://$WORK/NAME.sock;
# sets PID_<NAME>.
serve() {
  local name=$1
  shift
  "$KIXD" serve --store "$WORK/$name" --listen "unix://$WORK/$name.sock" --threads 2 \
    --log-level info "$@" 2>>"$WORK/$name.log" &
  eval "PID_$name=$!"
  KIXD_PIDS+=("$!")
  wait_up "unix://$WORK/$name.sock" "$!"
}

# mirror NAME UPSTREAM ARGS...: serve NAME as a mirror of $WORK/UPSTREAM.sock.
mirror() {
  local name=$1 up=$2
  shift 2
  serve "$name" --mirror-of "unix://$WORK/$up.sock" --upstream-key "$WORK/vkey" "$@"
}

# stop NAME: SIGTERM and wait (returns kixd's exit status).
stop() {
  local pid
  eval "pid=\$PID_$1"
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null
}

addr() { echo "unix://$WORK/$1.sock"; }
# the sizes and states servers claim, read without a log key (nothing
# verified or remembered: the tests judge the claims themselves)
size_of() { KIX_LOG_KEY= XDG_CONFIG_HOME=/nonexistent "$KIX" info --server "$(addr "$1")" | awk '$1 == "size" { print $2 }'; }

# wait_size NAME N [SECONDS]: until the server has N entries.
wait_size() {
  local i got=
  for i in $(seq 1 $((${3:-30} * 10))); do
    got=$(size_of "$1" 2>/dev/null || true)
    [ "$got" = "$2" ] && return 0
    sleep 0.1
  done
  tail -5 "$WORK/$1.log" >&2
  fail "$1 has size ${got:-?}, want $2"
}

# info_json NAME: kix info --json into $WORK/info.json.
info_json() { KIX_LOG_KEY= XDG_CONFIG_HOME=/nonexistent "$KIX" info --server "$(addr "$1")" --json >"$WORK/info.json"; }

# group_of_two QUERY_JSON: "GROUP BEST SECOND" of the first comparison group
# with two runs or more in a `kix query --json` answer (GROUP without its
# sha256: prefix, its runs best first).
group_of_two() {
  json_get "$1" '
next(" ".join([g.split(":")[-1], rs[0]["runId"], rs[1]["runId"]])
     for g in dict.fromkeys(r["group"] for r in d["runs"])
     for rs in [sorted([r for r in d["runs"] if r["group"] == g], key=lambda r: r["rank"])]
     if len(rs) >= 2)'
}

# attested_log DIR: a log of the first 40 CSV rows with an attester key
# ($WORK/att) registered; GROUP BEST OTHER name a comparison group of two
# runs or more, its best run and the second, which the attester attested
# once. KIX_LOG_KEY is the log's key.
attested_log() {
  new_origin "$1"
  export KIX_LOG_KEY="$(cat "$WORK/vkey")"
  "$KIX" keygen --name community --out "$WORK/att" >/dev/null 2>&1
  "$KIX" key add --store "$1" --key "$1/admin.key" --role attest "$WORK/att.pub" >/dev/null
  import "--store $1" 1 40 40
  "$KIX" query --store "$1" --json --limit 1000 >"$WORK/q.json"
  read -r GROUP BEST OTHER < <(group_of_two "$WORK/q.json")
  [ -n "$OTHER" ] || fail "no group of two runs in the first 40 rows"
  "$KIX" attest --store "$1" --key "$WORK/att.key" --note "seen it" "$OTHER" >/dev/null
}
