#!/usr/bin/env bash
# Issue 39 item 4: kix resolve, cite, query, group, audit, key list and info
# each print one named, versioned document (its "view", proto/PROTOCOL.md
# "Command documents"), and their text says what that document says (the
# text is a renderer over it: tests/unit/test_doc.c changes a field and
# sees the text change).
. "$KIX_TESTS/integration/lib.sh"

python3 - "$KIX_TESTS/data/liger/all_benchmark_data.csv" "$WORK/s.csv" <<'PY'
import csv, sys
r = csv.reader(open(sys.argv[1], newline="")); w = csv.writer(open(sys.argv[2], "w", newline=""))
w.writerow(next(r)); n = 0
for x in r:
    if x[0] == "rope" and x[12] == "NVIDIA A100-SXM4-80GB" and n < 4:
        w.writerow(x); n += 1
PY
"$KIXD" init --store "$WORK/log" --admin-key "$WORK/log/admin.key" --origin kix.docs/log >"$WORK/vkey" 2>/dev/null
export KIX_LOG_KEY="$(cat "$WORK/vkey")"
"$KIX" keygen --name pub --out "$WORK/pub" >/dev/null 2>&1
"$KIX" key add --store "$WORK/log" --key "$WORK/log/admin.key" --role publish "$WORK/pub.pub" >/dev/null
"$KIX_BIN/kix-import-liger" --key "$WORK/pub.key" --store "$WORK/log" "$WORK/s.csv" >/dev/null || fail "import"

# doc NAME VIEW CMD...: CMD --json prints one document whose view is VIEW
# (kept in $WORK/NAME.json), and CMD's text (in $WORK/NAME.txt).
doc() {
  local name=$1 view=$2; shift 2
  "$KIX" "$@" --store "$WORK/log" --json >"$WORK/$name.json" 2>"$WORK/err" || fail "$* --json: $(cat "$WORK/err")"
  [ "$(wc -l <"$WORK/$name.json")" -eq 1 ] || fail "$* --json is not one line: $(cat "$WORK/$name.json")"
  [ "$(json_get "$WORK/$name.json" 'd["view"]')" = "$view" ] ||
    fail "$* --json names no $view: $(head -c 300 "$WORK/$name.json")"
  "$KIX" "$@" --store "$WORK/log" >"$WORK/$name.txt" 2>"$WORK/err" || fail "$*: $(cat "$WORK/err")"
}

doc query kix.query/1 query --kernel rope
GROUP=$(json_get "$WORK/query.json" 'd["runs"][0]["group"]')
RUN=$(json_get "$WORK/query.json" 'd["runs"][0]["runId"]')
doc resolve kix.resolve/1 resolve "$RUN"
doc cite kix.cite/1 cite "$RUN"
doc group kix.ranks/1 group "$GROUP"
doc keys kix.keys/1 key list "$WORK/pub.pub"
doc info kix.info/1 info
doc audit kix.audit/1 audit
pass "each command's --json names its document and version"

# the text says what the document says, field by field
python3 - "$WORK" <<'PY' || fail "text and document disagree"
import json, sys
w = sys.argv[1]
def both(name):
    return json.load(open(f"{w}/{name}.json")), open(f"{w}/{name}.txt").read()
d, t = both("resolve")
assert d["evidence"] == "reported", d
for line in (f"run        {d['runId']}", f"permalink  {d['permalink']}", f"digest     {d['digest']}",
             f"evidence   {d['evidenceText']}",
             f"checkpoint {d['checkpoint']['origin']} size {d['checkpoint']['size']} root {d['checkpoint']['root']}"):
    assert line in t, (line, t)
for e in d["entries"]:
    assert f"#{e['index']:<8} {e['type']:<13} signer {e['signer'][:16]}  {e['time']}" in t, (e, t)
d, t = both("cite")
assert t == d["text"] + "\n" and d["permalink"] in t, (d, t)
for name in ("query", "group"):
    d, t = both(name)
    assert d["runs"], d
    for r in d["runs"]:
        assert r["runId"] in t and r["evidence"] in t and f"{r['rank']}/{r['groupSize']}" in t, (r, t)
        assert f"group {r['group']}" in t and r["kernel"] in t, (r, t)
    assert f"{d['matched']} matching runs" in t and f"at size {d['proven']['indexSize']}" in t, t
assert both("group")[0]["withdrawn"] == [], "kix group lists its withdrawn runs"
d, t = both("keys")
assert len(d["keys"]) == t.count("\n  id "), (d, t)
for k in d["keys"]:
    assert f"\n  id {k['keyId']}\n" in t and k["shortId"] in t and ",".join(k["roles"]) in t, (k, t)
assert any(k.get("name") == "pub" and f"name pub note-hash {k['noteKeyHash']}" in t for k in d["keys"]), t
d, t = both("info")
assert f"origin   {d['origin']}\nlog key  {d['logKey']}\nsize     {d['size']}\nversion  {d['version']}\n" == t, (d, t)
d, t = both("audit")
assert d["passed"] and d["findings"] == [] and d["log"] == "kix.docs/log", d
assert f"all {d['to']} entries of log {d['log']} verify" in t, (d, t)
PY
pass "the text of each says what its document says"

# one JSON writer: a rerun's evidence words are the table's, in --json and text
"$KIX" keygen --name rr --out "$WORK/rr" >/dev/null 2>&1
"$KIX" key add --store "$WORK/log" --key "$WORK/log/admin.key" --role rerun "$WORK/rr.pub" >/dev/null
json_get "$WORK/resolve.json" 'json.dumps(d["manifest"])' >"$WORK/rerun.json"
"$KIX" rerun --store "$WORK/log" --key "$WORK/rr.key" --outcome failed "$RUN" "$WORK/rerun.json" >/dev/null 2>&1 ||
  fail "rerun"
doc resolve kix.resolve/1 resolve "$RUN"
[ "$(json_get "$WORK/resolve.json" 'd["evidenceText"]')" = "Controlled rerun failed" ] ||
  fail "evidenceText: $(json_get "$WORK/resolve.json" 'd["evidenceText"]')"
grep -q "^evidence   Controlled rerun failed (entry [0-9]*)$" "$WORK/resolve.txt" || fail "text: $(cat "$WORK/resolve.txt")"
pass "the evidence in words, one wording"
