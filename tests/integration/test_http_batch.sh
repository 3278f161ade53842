#!/usr/bin/env bash
# The HTTP source's batches (client/lib/http_get.c's http_get_many: up to
# HTTP_GET_WINDOW GETs in flight, answers handed back in request order):
# kix audit and a kixd mirror of a static copy behind nginx read the
# objects and entry bundles in parallel, and still catch a changed object
# in the middle of a batch (audit exit 1 naming its entry, nothing kept;
# the mirror stores nothing), name an object missing from the middle of a
# batch (a 404), refuse a body over its bound, and through a flaky server
# retry each transfer that failed (a 503, a connection closed without an
# answer) by itself while the others go on.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"
source "$(dirname "$0")/tlog_lib.sh"

# a log of two entry bundles (256 entries each), read in one batch
new_origin "$WORK/o"
import "--store $WORK/o" 1 300 50 || fail "import: $(tail -3 "$WORK/import.log")"
HPORT=$(free_port)
serve o --http "tcp://127.0.0.1:$HPORT" --export "$WORK/exp"
SIZE=$(size_of o)
wait_export "$WORK/exp" "$SIZE"
# a run of the partial bundle: its manifest is fetched in the middle of a
# batch of objects, after its publication entry's bundle. The export holds
# it in the run's page alone (PROTOCOL.md §3, "One manifest a run"); the
# copies here, as an older kixd exported them, also as objects/<digest>
RID=$(python3 -c 'import json,sys
runs = [json.loads(l)["runId"] for l in open(sys.argv[1])]
print(runs[len(runs) - 20])' "$WORK/rows-1-300.map")
"$KIX" show --store "$WORK/o" "$RID" --json >"$WORK/show.json" || fail "kix show --store"
DIG=$(json_get "$WORK/show.json" 'd["manifestDigest"]')
PUB=$(json_get "$WORK/show.json" '[e["index"] for e in d["entries"] if e["type"] == "publication"][0]')
[ ! -e "$WORK/exp/objects/$DIG" ] || fail "the export wrote objects/$DIG beside its run page"
[ "$(ls "$WORK/exp/objects" | wc -l)" -gt 16 ] || fail "too few objects for batches of 8"
[ "$SIZE" -gt 256 ] || fail "size $SIZE: fewer than two entry bundles"

start_nginx "$WORK/copy"
A=(--server "$NGINX_URL/" --log-key "$WORK/vkey")
# the copies here have no object packs (objects/entries/), as an export by an
# older kixd: this test is about objects read one GET each, in
# batches; test_http_packs.sh reads them by pack
# and RID's manifest as a file
fresh_copy() {
  rm -rf "$WORK/copy" && cp -a "$WORK/exp" "$WORK/copy" && rm -r "$WORK/copy/objects/entries" &&
    "$KIX" get --store "$WORK/o" "$DIG" >"$WORK/copy/objects/$DIG"
}

# the honest copy: the audit passes
fresh_copy
export KIX_STATE_DIR="$WORK/s-honest"
"$KIX" audit "${A[@]}" >"$WORK/audit.txt" 2>"$WORK/err" || fail "kix audit of the copy: $(cat "$WORK/err")"
grep -q "all $SIZE entries" "$WORK/audit.txt" || fail "kix audit: $(cat "$WORK/audit.txt")"
pass "kix audit of a static copy behind nginx ($SIZE entries)"

# audit_again: the honest copy back, audited with the same state: every
# entry checked now, none kept by the audit that failed before
audit_again() {
  fresh_copy
  "$KIX" audit "${A[@]}" >"$WORK/again.txt" 2>"$WORK/err" || fail "kix audit of the honest copy: $(cat "$WORK/err")"
  grep -q "($SIZE checked now, 0 by earlier audits)" "$WORK/again.txt" ||
    fail "the failed audit kept entries: $(cat "$WORK/again.txt")"
}

# one object changed in the middle of a batch: the audit names its entry
fresh_copy
sed -i 's/"kind":"BenchmarkRun"/"kind":"BenchmarkRuN"/' "$WORK/copy/objects/$DIG"
export KIX_STATE_DIR="$WORK/s-changed"
expect_status 1 "$KIX" audit "${A[@]}"
grep -q "entry $PUB" "$WORK/err" || fail "a changed object: $(cat "$WORK/err")"
audit_again
pass "a changed object in the middle of a batch: kix audit exits 1 at entry $PUB, keeps nothing"

# the same copy mirrored by kixd: refused, nothing stored
fresh_copy
sed -i 's/"kind":"BenchmarkRun"/"kind":"BenchmarkRuN"/' "$WORK/copy/objects/$DIG"
serve m --mirror-of "$NGINX_URL/" --upstream-key "$WORK/vkey"
wait_mirror_error m
json_get "$WORK/st.json" 'd["lastError"]' | grep -q "entry $PUB" || fail "mirror status: $(cat "$WORK/st.json")"
[ "$(json_get "$WORK/st.json" 'd["size"]')" = 0 ] || fail "the mirror stored entries: $(cat "$WORK/st.json")"
stop m
pass "the mirror of that copy refuses it at entry $PUB and stores nothing"

# an object missing (404) in the middle of a batch: named, with its entry
# (and from the run's page, which holds a run's manifest too)
fresh_copy
rm "$WORK/copy/objects/$DIG" "$WORK/copy/runs/$RID" "$WORK/copy/runs/$RID.html"
export KIX_STATE_DIR="$WORK/s-missing"
expect_status 1 "$KIX" audit "${A[@]}"
grep -q "lacks object $DIG, needed by entry $PUB" "$WORK/err" || fail "a missing object: $(cat "$WORK/err")"
pass "an object missing (404) in the middle of a batch: exit 1, named with its entry $PUB"

# a body over its bound (16 MiB for an object) in the middle of a batch
fresh_copy
truncate -s 17M "$WORK/copy/objects/$DIG"
export KIX_STATE_DIR="$WORK/s-big"
got=0
"$KIX" audit "${A[@]}" >"$WORK/out" 2>"$WORK/err" || got=$?
[ "$got" -ne 0 ] || fail "an object over its bound passed"
grep -q "objects/$DIG: the answer is over 16777216 bytes" "$WORK/err" || fail "an object over its bound: $(cat "$WORK/err")"
pass "an object over its bound in the middle of a batch: refused (exit $got)"

# a flaky server: every entry bundle and one object in four answer 503
# the first time, another object in four has its connection closed without
# an answer the first time; then each its file, objects after 5 ms. The
# audit passes; each of those was asked exactly twice (its own retry) and
# every other file once, several at a time.
FPORT=$(free_port)
fresh_copy
python3 - "$WORK/copy" "$FPORT" "$WORK/flaky.json" 2>>"$WORK/flaky.log" <<'PY' &
import http.server, json, os, sys, threading, time
root, port, report = sys.argv[1], int(sys.argv[2]), sys.argv[3]
lock, asked, state = threading.Lock(), {}, {"now": 0, "most": 0}
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        path = self.path.split("?")[0]
        with lock:
            asked[path] = asked.get(path, 0) + 1
            first = asked[path] == 1
            state["now"] += 1
            state["most"] = max(state["most"], state["now"])
        try:
            if path.startswith("/objects/"):
                time.sleep(0.005)
            if first and (path.startswith("/tile/entries/") or path.startswith("/objects/") and path[-1] in "0123"):
                self.send_response(503); self.send_header("Content-Length", "0"); self.end_headers()
                return
            if first and path.startswith("/objects/") and path[-1] in "4567":
                self.close_connection = True
                return
            f = os.path.join(root, path.lstrip("/"))
            if not os.path.isfile(f):
                self.send_response(404); self.send_header("Content-Length", "0"); self.end_headers()
                return
            body = open(f, "rb").read()
            self.send_response(200); self.send_header("Content-Length", str(len(body))); self.end_headers()
            self.wfile.write(body)
        finally:
            with lock:
                state["now"] -= 1
                json.dump({"asked": asked, "most": state["most"]}, open(report + ".tmp", "w"))
                os.replace(report + ".tmp", report)
    def log_message(self, *a): pass
http.server.ThreadingHTTPServer(("127.0.0.1", port), H).serve_forever()
PY
KIXD_PIDS+=("$!")
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$FPORT/checkpoint" && break; sleep 0.05; done
export KIX_STATE_DIR="$WORK/s-flaky"
"$KIX" audit --server "http://127.0.0.1:$FPORT/" --log-key "$WORK/vkey" >"$WORK/audit-flaky.txt" 2>"$WORK/err" ||
  fail "kix audit through a flaky server: $(cat "$WORK/err")"
grep -q "all $SIZE entries" "$WORK/audit-flaky.txt" || fail "kix audit: $(cat "$WORK/audit-flaky.txt")"
# (objects asked: every file, and each run manifest its page holds alone,
# asked by its digest first: a copy without packs is read one by one)
python3 - "$WORK/flaky.json" "$WORK/copy" <<'PY' || fail "the flaky server's requests"
import json, os, re, sys
sys.path.insert(0, os.environ["KIX_TESTS"] + "/integration")
from page_view import full
d, root = json.load(open(sys.argv[1])), sys.argv[2]
files = {f for f in os.listdir(root + "/objects") if f.startswith("sha256:")}
for f in os.listdir(root + "/runs"):
    if f.endswith(".html"):
        files.add(full(root + "/runs/" + f)["manifestDigest"])
n = len(files)
def flaky(p):
    return p.startswith("/tile/entries/") or p.startswith("/objects/") and p[-1] in "01234567"
objects = [p for p in d["asked"] if p.startswith("/objects/sha256:")]
assert len(objects) == n, f"{len(objects)} objects asked, the export has {n}"
bundles = [p for p in d["asked"] if p.startswith("/tile/entries/")]
assert len(bundles) >= 2, f"bundles asked: {bundles}"
# a pack is read by the replay, then once more by the audit of the copy's files
def want(p):
    return (2 if flaky(p) else 1) + (1 if p.startswith("/objects/entries/") else 0)
wrong = {p: k for p, k in d["asked"].items() if p.startswith(("/objects/", "/tile/entries/")) and k != want(p)}
assert not wrong, f"asked a wrong number of times: {list(wrong.items())[:5]}"
assert d["most"] >= 2, f"never more than {d['most']} request at a time"
PY
pass "a flaky server (a 503 or a closed connection once per bundle and half the objects): each transfer retried by itself, several in flight"
