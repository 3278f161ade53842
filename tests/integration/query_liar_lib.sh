# tests/integration/query_liar_lib.sh — a lying server for the query tests
# (sourced after lib.sh, with kixd started): liar LIE starts
# lying_query_proxy.py telling LIE in front of $KIXD_ADDR (ending the one
# before) and puts its address in LIAR (as --server arguments).
PROXY_PID=
liar() {
  [ -z "$PROXY_PID" ] || { kill "$PROXY_PID" 2>/dev/null; wait "$PROXY_PID" 2>/dev/null || true; }
  local sock="$WORK/liar-$1.sock"
  rm -f "$sock" # a lie told twice: wait for the new proxy, not the old socket
  python3 "$KIX_TESTS/integration/lying_query_proxy.py" "$sock" "${KIXD_ADDR#unix://}" "$1" &
  PROXY_PID=$!
  KIXD_PIDS+=("$PROXY_PID") # lib.sh's cleanup ends it
  for _ in $(seq 1 100); do [ -S "$sock" ] && break; sleep 0.05; done
  LIAR=(--server "unix://$sock")
}
