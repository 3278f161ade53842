# tests/integration/tlog_lib.sh — helpers of the C2SP tlog-tiles tests
# (sourced after lib.sh and mirror_lib.sh): the outside Go client and a real
# nginx serving an export directory.

CLIENT="$KIX_BIN/kix-tlog-client"
[ -x "$CLIENT" ] || fail "$CLIENT missing: install golang-go and golang-golang-x-mod-dev (tools/deps.sh) and rebuild"
NGINX=/usr/sbin/nginx
[ -x "$NGINX" ] || fail "nginx missing: install nginx-light (tools/deps.sh)"
NGINX_PIDS=()

stop_nginx_all() {
  local pid
  for pid in "${NGINX_PIDS[@]}"; do
    kill -QUIT "$pid" 2>/dev/null || true
  done
  for pid in "${NGINX_PIDS[@]}"; do
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    kill -9 "$pid" 2>/dev/null || true
  done
  NGINX_PIDS=()
}
trap 'stop_nginx_all; cleanup' EXIT

# start_nginx ROOT [plain | CERT KEY]: nginx on a free port serving ROOT the
# way OPERATING.md shows (immutable full tiles and bundles, 5 s for the rest,
# HTML run and group pages, Access-Control-Allow-Origin); "plain": with no
# rule but nginx's own mime.types; over TLS with CERT and KEY when given
# (CERT is then also the CA its clients are given). Sets NGINX_URL.
start_nginx() {
  local root=$1 cert= key= port dir pid rules ssl= scheme=http curl_ca=()
  if [ "${2:-}" != plain ]; then cert=${2:-}; key=${3:-}; fi
  port=$(free_port)
  chmod 711 "$WORK" # nginx's workers run as another user when we are root
  dir=$(mktemp -d "$WORK/nginx-XXXXXX")
  mkdir -p "$dir/tmp"
  rules=$(cat <<RULES
    add_header Access-Control-Allow-Origin "*" always;
    location = /checkpoint {
      default_type "text/plain; charset=utf-8";
      add_header Cache-Control "public, max-age=5";
      add_header Access-Control-Allow-Origin "*" always;
    }
    location ~ "\.p/[0-9]+\$" { add_header Cache-Control "public, max-age=5"; add_header Access-Control-Allow-Origin "*" always; }
    location /tile/ { add_header Cache-Control "public, max-age=31536000, immutable"; add_header Access-Control-Allow-Origin "*" always; }
    location /objects/ { add_header Cache-Control "public, max-age=31536000, immutable"; add_header Access-Control-Allow-Origin "*" always; }
    location /index/pack/ { add_header Cache-Control "public, max-age=31536000, immutable"; add_header Access-Control-Allow-Origin "*" always; }
    location /runs/ { default_type "text/html; charset=utf-8"; add_header Cache-Control "public, max-age=5"; add_header Access-Control-Allow-Origin "*" always; }
    location /groups/ { default_type "text/html; charset=utf-8"; add_header Cache-Control "public, max-age=5"; add_header Access-Control-Allow-Origin "*" always; }
    location ~ "^/(runs|groups)/.*\.json\$" { default_type application/json; add_header Cache-Control "public, max-age=5"; add_header Access-Control-Allow-Origin "*" always; }
    location /home/ { default_type "text/html; charset=utf-8"; add_header Cache-Control "public, max-age=5"; add_header Access-Control-Allow-Origin "*" always; }
    location /kernels/ { default_type "text/html; charset=utf-8"; add_header Cache-Control "public, max-age=5"; add_header Access-Control-Allow-Origin "*" always; }
    location ~ "^/(home|kernels|search)/.*\.json\$" { default_type application/json; add_header Cache-Control "public, max-age=5"; add_header Access-Control-Allow-Origin "*" always; }
    location = /index.json { default_type application/json; add_header Cache-Control "public, max-age=5"; add_header Access-Control-Allow-Origin "*" always; }
RULES
)
  local types='types { text/html html; text/javascript js; text/css css; }'
  if [ "${2:-}" = plain ]; then
    rules=""
    types="include /etc/nginx/mime.types;"
  fi
  if [ -n "$cert" ]; then
    chmod 644 "$key" # read by nginx's workers too
    ssl=" ssl; ssl_certificate $cert; ssl_certificate_key $key"
    scheme=https
    curl_ca=(--cacert "$cert")
  fi
  cat >"$dir/nginx.conf" <<CONF
daemon off;
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path $dir/tmp;
  proxy_temp_path $dir/tmp;
  fastcgi_temp_path $dir/tmp;
  uwsgi_temp_path $dir/tmp;
  scgi_temp_path $dir/tmp;
  $types
  default_type application/octet-stream;
  server {
    listen 127.0.0.1:$port$ssl;
    root $root;
$rules
  }
}
CONF
  "$NGINX" -c "$dir/nginx.conf" -p "$dir" 2>>"$dir/error.log" &
  pid=$!
  NGINX_PIDS+=("$pid")
  NGINX_URL="$scheme://127.0.0.1:$port"
  for _ in $(seq 1 100); do
    curl -s "${curl_ca[@]}" -o /dev/null "$NGINX_URL/" && return 0
    kill -0 "$pid" 2>/dev/null || { cat "$dir/error.log" >&2; fail "nginx exited"; }
    sleep 0.05
  done
  fail "nginx did not come up on port $port"
}

# cp_size FILE: the tree size a checkpoint file names.
cp_size() { sed -n 2p "$1"; }

# wait_export DIR N [SECONDS]: until the export in DIR is whole at size N:
# its checkpoint names N and so does runs/.size, which kixd writes after the
# pages (the tiles and checkpoint come first), so a test that copies DIR
# does not race the pages still being written.
wait_export() {
  local i got= pages=
  for i in $(seq 1 $((${3:-30} * 10))); do
    got=$(sed -n 2p "$1/checkpoint" 2>/dev/null || true)
    pages=$(cat "$1/runs/.size" 2>/dev/null || true)
    [ "$got" = "$2" ] && [ "$pages" = "$2" ] && return 0
    sleep 0.1
  done
  fail "the export in $1 has size ${got:-?} (pages ${pages:-none}), want $2"
}

# wait_mirror_error NAME: until mirror NAME's status names an error (a
# refused upstream); its status in $WORK/st.json.
wait_mirror_error() {
  local i
  for i in $(seq 1 200); do
    "$KIX" mirror status --server "$(addr "$1")" --json >"$WORK/st.json" 2>/dev/null &&
      [ "$(json_get "$WORK/st.json" 'd["lastError"] is not None')" = True ] && return 0
    sleep 0.05
  done
  fail "mirror $1 names no error: $(cat "$WORK/st.json" 2>/dev/null)"
}
