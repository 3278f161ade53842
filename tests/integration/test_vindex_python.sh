#!/usr/bin/env bash
# The verifiable index checked without kix's code (issue 14): for a real log
# served by kixd, tests/integration/vindex_verify.py (Python standard library
# and PyNaCl, from PROTOCOL.md §4 alone) verifies `kix index --json` answers
# for one run, its group's directory and pages, its absence proofs, and computes the same rank
# kix show prints; it refuses a changed record, proof, note or log key. It
# also verifies PROTOCOL.md's worked example (§4.6) byte for byte, and
# recomputes every selection record from the log's entries and objects.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"
VERIFY=(/usr/bin/python3 "$KIX_TESTS/integration/vindex_verify.py")
DOC="$KIX_TESTS/../proto/PROTOCOL.md"
export KIX_STATE_DIR="$WORK/state"

# a group of two runs or more (GROUP, BEST, OTHER), OTHER attested once
attested_log "$WORK/o"
serve o
S=(--server "$(addr o)")

"$KIX" show "${S[@]}" "$OTHER" --json >"$WORK/show.json"
RANK="$(json_get "$WORK/show.json" '"%d/%d" % (d["rank"]["rank"], d["rank"]["groupSize"])')"
"$KIX" index "${S[@]}" --json "run/$OTHER" >"$WORK/run.json"
"$KIX" index "${S[@]}" --json "group/$GROUP" >"$WORK/group.json"
"$KIX" index "${S[@]}" --json "run/no-such-run" >"$WORK/absent.json"
# every page the directory lists (the key of each: its first run, "" for the first)
PAGES=()
while read -r page; do
  "$KIX" index "${S[@]}" --json "group/$GROUP/$page" >"$WORK/page-${#PAGES[@]}.json"
  PAGES+=("$WORK/page-${#PAGES[@]}.json")
done < <(python3 -c '
import json, sys
b = bytes.fromhex(json.load(open(sys.argv[1]))["record"])
at, pages = 49, int.from_bytes(b[41:49], "big")
for i in range(pages):
    n = b[at + 16]
    print(b[at + 17 : at + 17 + n].decode() if i else "")
    at += 17 + n' "$WORK/group.json")
[ "${#PAGES[@]}" -ge 1 ] || fail "the group's directory lists no page"
"${VERIFY[@]}" "$WORK/vkey" "$WORK/run.json" "$WORK/group.json" "${PAGES[@]}" "$WORK/absent.json" \
  --rank "$OTHER=$RANK" >"$WORK/v.out" 2>&1 || fail "independent index check: $(cat "$WORK/v.out")"
grep -q "^$OTHER: evidence reported, 2 entries, rank $RANK, best $BEST$" "$WORK/v.out" ||
  fail "independent verdict: $(cat "$WORK/v.out")"
grep -q "^run/no-such-run: absent" "$WORK/v.out" || fail "absence: $(cat "$WORK/v.out")"
pass "an outside verifier proves $OTHER's record, its group and its rank $RANK, and an absence"

# the selection records (issue 25): recomputed from the log's entries and
# objects alone, each list's head and pages exactly the signed index's
"${VERIFY[@]}" "$WORK/vkey" --selections "$KIX" "$(addr o)" >"$WORK/sel.out" 2>&1 ||
  fail "independent selection check: $(cat "$WORK/sel.out")"
grep -q "^selections: [1-9][0-9]* lists, [1-9][0-9]* records recomputed" "$WORK/sel.out" ||
  fail "selections: $(cat "$WORK/sel.out")"
pass "an outside verifier recomputes every selection record: $(cat "$WORK/sel.out")"

# ---- and it is not a checker that accepts anything --------------------------------
refuse() { # refuse WHAT FILE...: the verifier must fail
  local what="$1"; shift
  if "${VERIFY[@]}" "$@" >"$WORK/r.out" 2>&1; then fail "accepted $what: $(cat "$WORK/r.out")"; fi
}
refuse "another rank" "$WORK/vkey" "$WORK/run.json" "$WORK/group.json" "${PAGES[@]}" --rank "$OTHER=1/2"
refuse "a rank without the page" "$WORK/vkey" "$WORK/run.json" "$WORK/group.json" --rank "$OTHER=$RANK"
mutate() { python3 - "$@" <<'PY'
import json, sys
src, dst, field, how = sys.argv[1:5]
d = json.load(open(src))
v = d[field]
if how == "flip":     # the last hex digit of a record or proof
    d[field] = v[:-1] + ("0" if v[-1] != "0" else "1")
elif how == "sig":    # one base64 character of the signature line
    i = v.rindex(" ") + 5
    d[field] = v[:i] + ("A" if v[i] != "A" else "B") + v[i + 1:]
elif how == "absent": # claim a present key absent
    d["present"] = False
json.dump(d, open(dst, "w"))
PY
}
for f in record proof; do
  mutate "$WORK/run.json" "$WORK/bad.json" "$f" flip
  refuse "a changed run $f" "$WORK/vkey" "$WORK/bad.json"
  mutate "$WORK/group.json" "$WORK/bad.json" "$f" flip
  refuse "a changed group $f" "$WORK/vkey" "$WORK/bad.json"
  mutate "${PAGES[0]}" "$WORK/bad.json" "$f" flip
  refuse "a changed group page $f" "$WORK/vkey" "$WORK/bad.json"
done
mutate "$WORK/run.json" "$WORK/bad.json" indexNote sig
refuse "a forged index note" "$WORK/vkey" "$WORK/bad.json"
mutate "$WORK/run.json" "$WORK/bad.json" checkpoint sig
refuse "a forged checkpoint" "$WORK/vkey" "$WORK/bad.json"
mutate "$WORK/run.json" "$WORK/bad.json" record absent
refuse "a present run claimed absent" "$WORK/vkey" "$WORK/bad.json"
# the group record of another group under this key
json_get "$WORK/run.json" 'd["key"]' >/dev/null
python3 -c '
import json, sys
g, r = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
g["key"] = r["key"]; json.dump(g, open(sys.argv[3], "w"))' "$WORK/group.json" "$WORK/run.json" "$WORK/bad.json"
refuse "a group record under a run key" "$WORK/vkey" "$WORK/bad.json"
"$KIXD" init --store "$WORK/other" --admin-key "$WORK/other/admin.key" --origin kix.test/log >"$WORK/other.vkey" 2>/dev/null
refuse "another log key of the same name" "$WORK/other.vkey" "$WORK/run.json"
pass "the outside verifier refuses changed records, proofs, notes, claims and keys"

# ---- PROTOCOL.md's worked example ---------------------------------------------------
awk '/<!-- example vindex.vkey -->/ {f = 1; next} f && /^    / {sub(/^    /, ""); print; exit}' \
  "$DOC" >"$WORK/doc.vkey"
[ -s "$WORK/doc.vkey" ] || fail "PROTOCOL.md has no example log key"
"${VERIFY[@]}" "$WORK/doc.vkey" --doc "$DOC" >"$WORK/doc.out" 2>&1 ||
  fail "PROTOCOL.md §4.6 does not verify: $(cat "$WORK/doc.out")"
want="$(sed -n 's/^<!-- example vindex.verdict: \(.*\) -->$/\1/p' "$DOC")"
[ -n "$want" ] && grep -qxF "$want" "$WORK/doc.out" ||
  fail "PROTOCOL.md's example says '$want', the verifier: $(cat "$WORK/doc.out")"
pass "PROTOCOL.md's worked example verifies independently: $want"

# the page bound (issue 42.6): the group pages and directories kix's C
# decoder accepts or refuses (tests/tools/kix-js-vectors.c: a full page of
# 448 runs and one of 449, a page after a full page starting at a run the
# hash rule does not pick, and after a shorter page) are the ones the
# independent decoder accepts or refuses
"$KIX_BIN/kix-js-vectors" >"$WORK/vectors.json" || fail "kix-js-vectors failed"
python3 - "$KIX_TESTS/integration" "$WORK/vectors.json" >"$WORK/bound.out" 2>&1 <<'PY' ||
import json, sys
sys.path.insert(0, sys.argv[1])
import vindex_verify as vv
v = json.load(open(sys.argv[2]))
bad, seen = [], set()
def verdict(fn, *a):
    try:
        fn(*a)
        return True
    except SystemExit:
        return False
for g in v["groupRecords"]:
    b = bytes.fromhex(g["record"])
    pid = b[34:34 + b[33]].decode(errors="replace")
    got = verdict(vv.decode_page, b, "group/%s/%s" % (g["key"], pid))
    seen.add(g["name"])
    if got != g["valid"]:
        bad.append("page %s: python %s, C %s" % (g["name"], got, g["valid"]))
for g in v["groupDirs"]:
    got = verdict(vv.decode_group, bytes.fromhex(g["record"]), "group/" + g["key"])
    seen.add(g["name"])
    if got != g["valid"]:
        bad.append("directory %s: python %s, C %s" % (g["name"], got, g["valid"]))
missing = {"full", "over-full", "after-a-full-page", "after-a-short-page", "page-over-full"} - seen
print("\n".join(bad + ["missing vector " + m for m in sorted(missing)]) or "agrees")
sys.exit(1 if bad or missing else 0)
PY
  fail "the independent decoder and kix's differ on page bounds: $(cat "$WORK/bound.out")"
pass "the independent decoder holds group pages and directories to the 448-run page bound as kix does"
