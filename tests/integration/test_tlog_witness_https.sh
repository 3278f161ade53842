#!/usr/bin/env bash
# An https:// witness: a kix witness behind a real nginx terminating TLS
# (a certificate made here), witnessing a kix log known only by its
# verifier key (--witness-log, no mirror). The log asks it over HTTPS with
# --http-witness-ca naming the certificate and gets its cosignature; without
# that CA the witness's certificate is refused and nothing is stored.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"
NGINX=/usr/sbin/nginx
[ -x "$NGINX" ] || fail "nginx missing: install nginx-light (tools/deps.sh)"
command -v openssl >/dev/null || fail "openssl missing"
NGINX_PID=
stop_nginx() {
  [ -n "$NGINX_PID" ] || return 0
  kill -QUIT "$NGINX_PID" 2>/dev/null || true
  for _ in $(seq 1 50); do kill -0 "$NGINX_PID" 2>/dev/null || break; sleep 0.05; done
  kill -9 "$NGINX_PID" 2>/dev/null || true
  NGINX_PID=
}
trap 'stop_nginx; cleanup' EXIT

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
  -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
  -keyout "$WORK/tls.key" -out "$WORK/tls.pem" 2>/dev/null || fail "openssl req"
"$KIX" keygen --witness --name witness.test --out "$WORK/w" >/dev/null 2>&1

new_origin "$WORK/o"
import "--store $WORK/o" 1 4 2
"$KIXD" init --store "$WORK/wit" --admin-key "$WORK/wit/admin.key" --origin wit.test/log >/dev/null 2>&1
WPORT=$(free_port)
serve wit --witness-key "$WORK/w.key" --witness-log "$WORK/vkey" --http "tcp://127.0.0.1:$WPORT"

SPORT=$(free_port)
chmod 711 "$WORK" # nginx's workers run as another user when we are root
mkdir -p "$WORK/nginx/tmp"
cat >"$WORK/nginx/nginx.conf" <<CONF
daemon off;
master_process off; # one process: nothing outlives the pid we stop
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log warn;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path $WORK/nginx/tmp;
  proxy_temp_path $WORK/nginx/tmp;
  fastcgi_temp_path $WORK/nginx/tmp;
  uwsgi_temp_path $WORK/nginx/tmp;
  scgi_temp_path $WORK/nginx/tmp;
  server {
    listen 127.0.0.1:$SPORT ssl;
    ssl_certificate $WORK/tls.pem;
    ssl_certificate_key $WORK/tls.key;
    location / { proxy_pass http://127.0.0.1:$WPORT; }
  }
}
CONF
chmod 644 "$WORK/tls.key"
"$NGINX" -c "$WORK/nginx/nginx.conf" -p "$WORK/nginx" 2>>"$WORK/nginx/error.log" &
NGINX_PID=$!
for _ in $(seq 1 100); do
  curl -s -o /dev/null --cacert "$WORK/tls.pem" "https://127.0.0.1:$SPORT/checkpoint" && break
  kill -0 "$NGINX_PID" 2>/dev/null || { cat "$WORK/nginx/error.log" >&2; fail "nginx exited"; }
  sleep 0.05
done

W=(--log-key "$WORK/vkey" --witness "$WORK/w.pub" --min-witnesses 1)
# without the CA: the certificate is refused, nothing is cosigned
serve o --http-witness "https://127.0.0.1:$SPORT $WORK/w.pub"
wait_log "$WORK/o.log" "witness https://127.0.0.1:$SPORT/add-checkpoint: no answer: .*certificate" "an unknown certificate was not refused" witness
expect_status 1 "$KIX" checkpoint --server "$(addr o)" "${W[@]}"
stop o || true
pass "an https:// witness whose certificate does not chain to a trusted CA is not asked"

serve o --http-witness "https://127.0.0.1:$SPORT $WORK/w.pub" --http-witness-ca "$WORK/tls.pem"
for _ in $(seq 1 100); do
  "$KIX" checkpoint --server "$(addr o)" "${W[@]}" >/dev/null 2>&1 && break
  sleep 0.1
done
"$KIX" checkpoint --server "$(addr o)" "${W[@]}" --json >"$WORK/cp.json" ||
  fail "no cosignature over https: $(grep -i witness "$WORK/o.log" | tail -3)"
[ "$(json_get "$WORK/cp.json" 'd["size"]')" = 6 ] || fail "cosigned size: $(cat "$WORK/cp.json")"
pass "over https (nginx in front of a kix witness), the log got the witness's cosignature of size 6"
