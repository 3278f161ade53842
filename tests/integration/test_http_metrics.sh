#!/usr/bin/env bash
# /metrics on kixd's HTTP listener (--http-metrics): the Prometheus text
# format (parsed strictly here), with what the issue lists: entries,
# checkpoint age, batch sizes, commit (fsync) latency, RPC requests per
# method and result, HTTP requests per path kind and status, connections,
# the export and a mirror's lag. Off unless asked for.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"

new_origin "$WORK/o"
HPORT=$(free_port)
HTTP="http://127.0.0.1:$HPORT"
serve o --http "tcp://127.0.0.1:$HPORT"
code=$(curl -s -o /dev/null -w '%{http_code}' "$HTTP/metrics")
[ "$code" = 404 ] || fail "/metrics without --http-metrics: $code"
stop o || true
expect_status 2 "$KIXD" serve --store "$WORK/o" --http-metrics
grep -q "needs --http" "$WORK/err" || fail "--http-metrics alone: $(cat "$WORK/err")"

serve o --http "tcp://127.0.0.1:$HPORT" --http-metrics --export "$WORK/exp"
import "--server $(addr o)" 1 40 4 || fail "import: $(tail -3 "$WORK/import.log")"
"$KIX" info --server "$(addr o)" >/dev/null
curl -sf "$HTTP/checkpoint" >/dev/null
curl -sf "$HTTP/tile/0/000.p/42" >/dev/null
curl -s "$HTTP/tile/0/009" >/dev/null
for _ in $(seq 1 50); do grep -q "^kixd_export_size 42$" <<<"$(curl -s "$HTTP/metrics")" && break; sleep 0.1; done
curl -sf -D "$WORK/mh" "$HTTP/metrics" -o "$WORK/metrics" || fail "GET /metrics"
grep -qi '^content-type: text/plain; version=0.0.4' "$WORK/mh" || fail "metrics content type: $(cat "$WORK/mh")"
python3 - "$WORK/metrics" <<'PY' || fail "metrics: $(cat "$WORK/metrics")"
import re, sys
text = open(sys.argv[1]).read()
assert text.endswith("\n")
sample = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="[^"\\]*"(,[a-zA-Z_][a-zA-Z0-9_]*="[^"\\]*")*)?\})? (-?[0-9.e+]+|\+Inf)$')
types, values = {}, {}
for line in text.splitlines():
    if line.startswith("# HELP "):
        continue
    if line.startswith("# TYPE "):
        _, _, name, kind = line.split(" ")
        assert kind in ("counter", "gauge", "histogram"), line
        assert name not in types, "TYPE twice: " + name
        types[name] = kind
        continue
    m = sample.match(line)
    assert m, "not a sample line: " + line
    base = re.sub(r'_(bucket|sum|count)$', '', m.group(1))
    assert m.group(1) in types or base in types, "sample before its TYPE: " + line
    values[m.group(1) + (m.group(2) or "")] = float(m.group(5))
def v(k): return values[k]
assert v("kix_log_entries") == 42, values
assert v("kix_batch_entries_count") >= 10 and v("kix_batch_entries_sum") == 40, values
assert v('kix_batch_entries_bucket{le="4"}') == v("kix_batch_entries_count")
assert v("kix_commit_seconds_count") >= 10 and v('kix_commit_seconds_bucket{le="+Inf"}') == v("kix_commit_seconds_count")
assert v("kix_commits_failed_total") == 0
assert 0 <= v("kix_checkpoint_age_seconds") < 60
assert v('kixd_rpc_requests_total{method="submit",result="ok"}') >= 10, values
assert v('kixd_rpc_requests_total{method="info",result="ok"}') >= 1
assert v('kixd_http_requests_total{path="checkpoint",code="200"}') == 1
assert v('kixd_http_requests_total{path="tile",code="200"}') == 1
assert v('kixd_http_requests_total{path="tile",code="404"}') == 1
assert v("kixd_connections") >= 1 and v("kixd_http_connections_total") >= 4
assert v('kixd_exports_total{result="ok"}') >= 1 and v("kixd_export_size") == 42
assert v("kix_log_replica") == 0
assert not any(k.startswith("kixd_append_") for k in values), "phase stats without --phase-stats"
PY
pass "origin metrics parse and count what happened"

# --phase-stats: the CPU of every phase of an append, and the entries counted
stop o || true
expect_status 2 "$KIXD" serve --store "$WORK/o" --http "tcp://127.0.0.1:$HPORT" --phase-stats
grep -q "needs --http-metrics" "$WORK/err" || fail "--phase-stats alone: $(cat "$WORK/err")"
serve o --http "tcp://127.0.0.1:$HPORT" --http-metrics --phase-stats
import "--server $(addr o)" 41 60 4 || fail "import: $(tail -3 "$WORK/import.log")"
curl -sf "$HTTP/metrics" -o "$WORK/metrics" || fail "GET /metrics"
python3 - "$WORK/metrics" <<'PY' || fail "phase metrics: $(grep kixd_append "$WORK/metrics")"
import re, sys
values = {}
for line in open(sys.argv[1]).read().splitlines():
    m = re.match(r'^(kixd_append_[a-z_]+)\{([a-z]+)="([a-z]+)"\} ([0-9.e+-]+)$', line)
    if m:
        values[m.group(3)] = float(m.group(4))
phases = ["receive", "canonical", "hash", "verify", "policy", "index", "commit", "answer"]
for p in phases:
    assert values.get(p, 0) > 0, "phase %s: %r" % (p, values)
assert values["prepared"] >= 20 and values["committed"] == 20, values
per = sum(values[p] for p in phases) / values["committed"] * 1e6
assert 10 < per < 1e5, "%.1f us an entry" % per
PY
pass "--phase-stats: every phase of 20 appends counted in /metrics"

MPORT=$(free_port)
mirror m o --http "tcp://127.0.0.1:$MPORT" --http-metrics
wait_size m 62
curl -sf "http://127.0.0.1:$MPORT/metrics" -o "$WORK/mm" || fail "mirror /metrics"
grep -q '^kix_log_replica 1$' "$WORK/mm" && grep -q '^kix_mirror_upstream_size 62$' "$WORK/mm" \
  && grep -q '^kix_mirror_lag_seconds [0-9]' "$WORK/mm" && grep -q '^kix_mirror_fork 0$' "$WORK/mm" \
  || fail "mirror metrics: $(grep kix_ "$WORK/mm")"
pass "mirror metrics: upstream size, lag, fork"
