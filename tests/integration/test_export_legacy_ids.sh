#!/usr/bin/env bash
# Issue 42 point 2: run ids that would name another run's file or digest.
# A store an older origin left (tests/tools/kix-legacy-log.c: entries
# replayed without today's run-id rules) holds run "v" and runs logged as
# "v.json", "v.html" and "sha256:<v's manifest>". kixd export writes each
# of those under an escaped page name (PROTOCOL.md §3, "Run page names")
# and says so in a warning line; runs/v and runs/v.html stay v's (and
# embed its view: no runs/<name>.json since layout 4). Over the copy (python3 -m http.server) kix show of v's digest is v,
# kix show of the other runs' digests reads their escaped files, and in
# chromium v's page and an escaped run's page both verify. kixd --http
# answers runs/<escaped name> and runs/sha256:<v's digest> as those runs.
# The log's one bundle is partial: v's manifest, which v's page embeds,
# has no objects/ file (kix show of v's digest over the copy reads the
# page); that of the run logged as "v.json" (an escaped page) has one.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"

"$KIX_BIN/kix-legacy-log" "$WORK/o" >"$WORK/legacy.out" 2>"$WORK/legacy.err" ||
  fail "kix-legacy-log: $(cat "$WORK/legacy.err")"
VKEY=$(sed -n 1p "$WORK/legacy.out")
V=$(sed -n 2p "$WORK/legacy.out")       # v's manifest digest
VJSON=$(sed -n 3p "$WORK/legacy.out")   # the manifest of the run logged as "v.json"
SHADOW="_sha256_c${V#sha256:}"          # the escaped name of the run logged as "$V"

expect_status 0 "$KIXD" export --store "$WORK/o" "$WORK/exp"
grep -q "warning: 3 run(s) written under escaped names" "$WORK/err" ||
  fail "kixd export says nothing of the escaped ids: $(cat "$WORK/err")"
for f in runs/v runs/v.html runs/_v_djson runs/_v_djson.html \
  runs/_v_dhtml.html "runs/$SHADOW.html"; do
  [ -f "$WORK/exp/$f" ] || fail "the export has no $f: $(ls "$WORK/exp/runs")"
done
for f in runs/v.json runs/_v_djson.json runs/_v_dhtml.json "runs/$SHADOW.json"; do
  [ ! -e "$WORK/exp/$f" ] || fail "the export has $f: a run's view is in its page"
done
python3 - "$WORK/exp/runs" "$V" "$SHADOW" "$KIX_TESTS/integration" <<'PY' || fail "the exported files are not each run's own"
import json, subprocess, sys
d, v, shadow, here = sys.argv[1:]
run = lambda name: json.loads(subprocess.check_output(["python3", here + "/page_view.py", "%s/%s.html" % (d, name)]))
assert run("v")["runId"] == "v" and run("v")["manifestDigest"] == v
assert run("_v_djson")["runId"] == "v.json" and run("_v_dhtml")["runId"] == "v.html"
assert run(shadow)["runId"] == v and run(shadow)["manifestDigest"] != v
for page in ("v", "v.html"):
    assert "run v</title>" in open("%s/%s" % (d, page)).read(), page
assert 'href="_v_djson.json"' not in open("%s/_v_djson.html" % d).read()
PY
pass "kixd export: v.json, v.html and sha256:<v> under escaped names, said on stderr; v's page stays v's"

# a partial bundle's run manifest is in its page alone; an escaped run's
# is a file of its own, as before
[ ! -e "$WORK/exp/objects/$V" ] || fail "v's manifest has an objects/ file beside its page"
[ -f "$WORK/exp/objects/$VJSON" ] || fail "the v.json run's manifest (an escaped page's) has no objects/ file"
pass "partial bundle: a run's manifest in its page alone, an escaped run's in objects/"

PPORT=$(free_port)
(cd "$WORK/exp" && exec python3 -m http.server --bind 127.0.0.1 "$PPORT") >/dev/null 2>"$WORK/pyhttp.log" &
KIXD_PIDS+=("$!")
P="http://127.0.0.1:$PPORT"
for _ in $(seq 1 100); do curl -sf "$P/checkpoint" >/dev/null && break; sleep 0.1; done
export KIX_LOG_KEY="$VKEY"
"$KIX" show --server "$P" --json "$V" >"$WORK/v.json" 2>"$WORK/show.err" || fail "kix show $V: $(cat "$WORK/show.err")"
[ "$(json_get "$WORK/v.json" 'd["runId"]')" = v ] || fail "kix show of v's digest is not run v"
"$KIX" show --server "$P" --json "$VJSON" >"$WORK/vj.json" 2>"$WORK/show.err" || fail "kix show $VJSON: $(cat "$WORK/show.err")"
[ "$(json_get "$WORK/vj.json" 'd["runId"]')" = v.json ] || fail "kix show of the v.json run's digest"
"$KIX" show --server "$P" --json v >"$WORK/v2.json" 2>"$WORK/show.err" || fail "kix show v: $(cat "$WORK/show.err")"
cmp -s <(json_get "$WORK/v.json" 'd["manifestDigest"]') <(json_get "$WORK/v2.json" 'd["manifestDigest"]') ||
  fail "kix show v and kix show $V differ"
pass "kix show over the copy: v's digest is v, the v.json run is read from its escaped files"

HPORT=$(free_port)
H="http://127.0.0.1:$HPORT"
"$KIXD" serve --store "$WORK/o" --listen "unix://$WORK/o.sock" --read-only --http "tcp://127.0.0.1:$HPORT" \
  --threads 2 2>>"$WORK/o.log" &
KIXD_PIDS+=("$!")
for _ in $(seq 1 100); do curl -sf "$H/checkpoint" >/dev/null && break; sleep 0.1; done
grep -qF "run v</title>" <<<"$(curl -sf "$H/runs/$V")" || fail "kixd: runs/$V is not run v's page"
grep -qF "run v.json</title>" <<<"$(curl -sf "$H/runs/_v_djson")" || fail "kixd: runs/_v_djson is not the v.json run's page"
curl -sf "$H/runs/v.json" | python3 -c 'import json,sys; assert json.load(sys.stdin)["runId"] == "v"' ||
  fail "kixd: runs/v.json is not v's view"
pass "kixd --http: runs/sha256:<v> is v's page, runs/<escaped name> the other run's"

. "$KIX_TESTS/integration/dom_lib.sh"
trap 'stop_dom; cleanup' EXIT
start_dom
n=0
for url in "$P/runs/v.html" "$P/runs/_v_djson.html" "$P/runs/$SHADOW.html" "$H/runs/$V"; do
  n=$((n + 1))
  dom "$url" "$WORK/dom-$n.html" || fail "chromium cannot open $url: $(tail -2 "$WORK/chrome.log")"
  grep -qF 'data-state="ok"' "$WORK/dom-$n.html" ||
    fail "chromium at $url: $(grep -o 'id="verify-status"[^<]*<[^<]*' "$WORK/dom-$n.html" | head -1)"
done
pass "chromium: v's page verifies, so do the escaped runs' pages and kixd's runs/sha256:<v>"
