#!/usr/bin/env bash
# Issue 41 item 4, moderation in the open: a curator (kix key add --role
# curate) withdraws a group's #1 with a reason; kix group re-ranks the rest
# (the runs after it close up), kix show says the run is withdrawn, with the
# reason and the entry, and a reinstatement puts it back. The publisher
# withdraws (and reinstates) its own run; a key without curate that did not
# publish the run is refused, as is a publisher undoing a curator's
# withdrawal. --sign-only prints the body kix submit takes. The signed
# index's records agree with an outside verifier (vindex_verify.py), and
# kix audit replays the whole log clean.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"
VERIFY=(/usr/bin/python3 "$KIX_TESTS/integration/vindex_verify.py")

new_origin "$WORK/o"
export KIX_LOG_KEY="$(cat "$WORK/vkey")"
import "--store $WORK/o" 1 40 40
for k in cur att pub2; do "$KIX" keygen --name "$k" --out "$WORK/$k" >/dev/null 2>&1; done
"$KIX" key add --store "$WORK/o" --key "$WORK/o/admin.key" --role curate "$WORK/cur.pub" >/dev/null
"$KIX" key add --store "$WORK/o" --key "$WORK/o/admin.key" --role attest "$WORK/att.pub" >/dev/null
"$KIX" key add --store "$WORK/o" --key "$WORK/o/admin.key" --role publish "$WORK/pub2.pub" >/dev/null
"$KIX" key list --store "$WORK/o" | grep -q "curate" || fail "kix key list shows no curate role"
HPORT=$(free_port)
H="http://127.0.0.1:$HPORT"
serve o --http "tcp://127.0.0.1:$HPORT"
S=(--server "$(addr o)")

"$KIX" query "${S[@]}" --json --limit 1000 >"$WORK/q.json"
read -r GROUP BEST OTHER < <(group_of_two "$WORK/q.json")
[ -n "$OTHER" ] || fail "no group of two runs in the first 40 rows"
N=$(json_get "$WORK/q.json" "[r for r in d['runs'] if r['group'].endswith('$GROUP')][0]['groupSize']")
ranks() { # ranks: "run:rank ..." of the group, and its size
  "$KIX" group "sha256:$GROUP" "${S[@]}" --json >"$WORK/g.json" || fail "kix group: $(cat "$WORK/g.json")"
  json_get "$WORK/g.json" '" ".join("%s:%d" % (r["runId"], r["rank"]) for r in d["runs"]) + " size %d" % d["matched"]'
}
BEFORE=$(ranks)
grep -q "^$BEST:1 $OTHER:2 " <<<"$BEFORE " || fail "before: $BEFORE"

# ---- a curator withdraws the group's #1 ------------------------------------------
expect_status 0 "$KIX" withdraw "${S[@]}" --key "$WORK/cur.key" --reason invalid-timing \
  --note "the timed calls were batched into one launch" --json "$BEST"
[ "$(json_get "$WORK/out" 'd["entry"] + " " + d["runId"]')" = "withdrawal $BEST" ] ||
  fail "withdraw --json: $(cat "$WORK/out")"
AFTER=$(ranks)
grep -q "^$OTHER:1 " <<<"$AFTER" || fail "after the withdrawal, not re-ranked: $AFTER"
grep -q "size $((N - 1))$" <<<"$AFTER" || fail "after the withdrawal, size: $AFTER (was $N)"
grep -q "$BEST:" <<<"$AFTER" && fail "the withdrawn run is still ranked: $AFTER"
[ "$(json_get "$WORK/g.json" '[(w["runId"], w["reason"]) for w in d["withdrawn"]]')" = "[('$BEST', 'invalid-timing')]" ] ||
  fail "kix group --json does not list the withdrawn run: $(cat "$WORK/g.json")"
expect_status 0 "$KIX" group "sha256:$GROUP" "${S[@]}"
grep -q "^withdrawn from ranking (1, proven by the same index):$" "$WORK/out" &&
  grep -q "^  invalid-timing   entry [0-9]* *run $BEST$" "$WORK/out" || fail "kix group: $(cat "$WORK/out")"
expect_status 0 "$KIX" show "${S[@]}" "$BEST"
grep -q "^WITHDRAWN from ranking (entry [0-9]*, .*by the curator): invalid-timing: the timed calls were batched into one launch\.$" "$WORK/out" ||
  fail "kix show of the withdrawn run: $(head -5 "$WORK/out")"
grep -q "Not ranked: withdrawn from ranking (invalid-timing)" "$WORK/out" || fail "show: $(cat "$WORK/out")"
expect_status 0 "$KIX" show "${S[@]}" "$BEST" --json
json_get "$WORK/out" '(d["withdrawn"]["reason"], d["withdrawn"]["by"], "rank" in d and d["rank"])' |
  grep -qx "('invalid-timing', 'curator', False)\|('invalid-timing', 'curator', None)" ||
  fail "show --json: $(json_get "$WORK/out" 'd.get("withdrawn"), d.get("rank")')"
expect_status 0 "$KIX" show "${S[@]}" "$OTHER" --json
[ "$(json_get "$WORK/out" 'd["rank"]["rank"]')" = 1 ] || fail "the next run is not #1 now"
expect_status 0 "$KIX" resolve "${S[@]}" "$BEST"
grep -q "^WITHDRAWN from ranking (entry " "$WORK/out" || fail "resolve: $(cat "$WORK/out")"
grep -q " withdrawal .* invalid-timing  \"the timed calls" "$WORK/out" || fail "resolve's entries: $(cat "$WORK/out")"
"$KIX" query "${S[@]}" --json --limit 1000 >"$WORK/q2.json"
json_get "$WORK/q2.json" '[r["runId"] for r in d["runs"]]' | grep -q "'$BEST'" &&
  fail "kix query still lists the withdrawn run"
"$KIX" query "${S[@]}" --json --limit 1000 --provider liger >"$WORK/q3.json" 2>/dev/null || true
json_get "$WORK/q3.json" '[r["runId"] for r in d["runs"]]' 2>/dev/null | grep -q "'$BEST'" &&
  fail "kix query --provider (the selection records) still lists the withdrawn run"
# the pages: the run's stays, marked; the group's lists it under its table
curl -sf "$H/runs/$BEST" -o "$WORK/run.html" || fail "GET /runs/$BEST"
grep -q 'data-kix-slot="withdrawn">Withdrawn from ranking (log entry [0-9]*, [0-9-]*, by the curator, key [0-9a-f]*): invalid-timing: <q>the timed calls were batched into one launch</q>\.</p>' "$WORK/run.html" ||
  fail "the run page does not say it is withdrawn: $(grep -o '<header.*</header>' "$WORK/run.html" | head -c 600)"
curl -sf "$H/groups/sha256:$GROUP" -o "$WORK/group.html" || fail "GET /groups/sha256:$GROUP"
grep -q "<tr class=\"withdrawn\" data-run=\"$BEST\" data-entry=\"[0-9]*\"><td>invalid-timing</td>" "$WORK/group.html" ||
  fail "the group page does not list the withdrawn run: $(grep -A3 withdrawn "$WORK/group.html" | head -c 800)"
grep -q "data-run=\"$BEST\"><td>1<td>" "$WORK/group.html" && fail "the group page still ranks it"
pass "a curator withdraws #1 of $N: $OTHER is #1 of $((N - 1)); show and resolve say why, query drops it"

# the outside verifier: the run record says withdrawn and unranked, the group proves the rest
"$KIX" index "${S[@]}" --json "run/$BEST" >"$WORK/run.json"
"$KIX" index "${S[@]}" --json "group/$GROUP" >"$WORK/group.json"
"$KIX" index "${S[@]}" --json "group/$GROUP/" >"$WORK/page.json"
"$KIX" index "${S[@]}" --json "run/$OTHER" >"$WORK/other.json"
"${VERIFY[@]}" "$WORK/vkey" "$WORK/run.json" "$WORK/other.json" "$WORK/group.json" "$WORK/page.json" \
  --rank "$OTHER=1/$((N - 1))" >"$WORK/v.out" 2>&1 || fail "outside verifier: $(cat "$WORK/v.out")"
grep -q "^$BEST: evidence reported, [0-9]* entries, withdrawn at [0-9]*, not ranked here$" "$WORK/v.out" ||
  fail "outside verifier on the withdrawn run: $(cat "$WORK/v.out")"
"${VERIFY[@]}" "$WORK/vkey" --selections "$KIX" "$(addr o)" >"$WORK/sel.out" 2>&1 ||
  fail "outside selection and group check: $(cat "$WORK/sel.out")"
grep -q "groups: [1-9][0-9]* recomputed .* 1 withdrawn" "$WORK/sel.out" || fail "groups: $(cat "$WORK/sel.out")"
"$KIX" index "${S[@]}" --json "withdrawn/$GROUP" >"$WORK/wd.json"
"${VERIFY[@]}" "$WORK/vkey" "$WORK/wd.json" >"$WORK/wd.out" 2>&1 || fail "withdrawn record: $(cat "$WORK/wd.out")"
pass "an outside verifier proves the withdrawal and recomputes every group: $(tail -1 "$WORK/sel.out")"

# ---- who may not -----------------------------------------------------------------
expect_status 1 "$KIX" withdraw "${S[@]}" --key "$WORK/cur.key" --reason other --note again "$BEST"
grep -q "already withdrawn" "$WORK/err" || fail "twice: $(cat "$WORK/err")"
expect_status 1 "$KIX" withdraw "${S[@]}" --key "$WORK/att.key" --reason other --note spam "$OTHER"
grep -q "lacks the curate (or publish, for its own runs) role needed for a withdrawal entry" "$WORK/err" ||
  fail "an attest key: $(cat "$WORK/err")"
expect_status 1 "$KIX" withdraw "${S[@]}" --key "$WORK/pub2.key" --reason duplicate --note rival "$OTHER"
grep -q "only a key with role curate or the publisher of run $OTHER may withdraw it" "$WORK/err" ||
  fail "another publisher: $(cat "$WORK/err")"
expect_status 1 "$KIX" reinstate "${S[@]}" --key "$WORK/pub.key" "$BEST"
grep -q "only a key with role curate may reinstate run $BEST (withdrawn at log index [0-9]* by a curator)" "$WORK/err" ||
  fail "the publisher undoing a curator: $(cat "$WORK/err")"
expect_status 1 "$KIX" reinstate "${S[@]}" --key "$WORK/cur.key" "$OTHER"
grep -q "run $OTHER is not withdrawn" "$WORK/err" || fail "reinstating a ranked run: $(cat "$WORK/err")"
expect_status 2 "$KIX" withdraw "${S[@]}" --key "$WORK/cur.key" --reason slow --note x "$OTHER"
grep -q "invalid-timing, incorrect-result, duplicate, other" "$WORK/err" || fail "bad reason: $(cat "$WORK/err")"
expect_status 2 "$KIX" withdraw "${S[@]}" --key "$WORK/cur.key" --reason other "$OTHER"
[ "$(ranks)" = "$AFTER" ] || fail "a refused write changed the ranks: $(ranks)"
pass "refused: twice, an attest key, another publisher, the publisher undoing a curator, a ranked run, a bad reason"

# ---- reinstated -------------------------------------------------------------------
expect_status 0 "$KIX" reinstate "${S[@]}" --key "$WORK/cur.key" --note "re-measured: fine" "$BEST"
[ "$(ranks)" = "$BEFORE" ] || fail "the reinstatement did not restore the ranks: $(ranks) (was $BEFORE)"
expect_status 0 "$KIX" show "${S[@]}" "$BEST"
grep -q "WITHDRAWN" "$WORK/out" && fail "a reinstated run still shows withdrawn"
grep -q "Rank 1 of $N " "$WORK/out" || fail "reinstated show: $(grep Rank "$WORK/out")"
pass "the curator reinstates it: the ranks are what they were"

# ---- the publisher withdraws its own run, signed apart and submitted -------------------
expect_status 0 "$KIX" withdraw "${S[@]}" --key "$WORK/pub.key" --reason duplicate \
  --note "published twice by mistake" --sign-only "$OTHER"
cp "$WORK/out" "$WORK/body.json"
json_get "$WORK/body.json" '"envelope" in d' | grep -qx True || fail "--sign-only body: $(cat "$WORK/body.json")"
[ "$(ranks)" = "$BEFORE" ] || fail "--sign-only submitted something"
expect_status 0 "$KIX" submit "${S[@]}" --json "$WORK/body.json"
json_get "$WORK/out" 'd["entry"]' | grep -qx withdrawal || fail "kix submit: $(cat "$WORK/out")"
grep -q "$OTHER:" <<<"$(ranks)" && fail "the publisher's withdrawal left $OTHER ranked"
expect_status 0 "$KIX" show "${S[@]}" "$OTHER" --json
[ "$(json_get "$WORK/out" 'd["withdrawn"]["by"], d["withdrawn"]["reason"]')" = "publisher duplicate" ] ||
  fail "publisher's withdrawal: $(json_get "$WORK/out" 'd.get("withdrawn")')"
expect_status 0 "$KIX" reinstate "${S[@]}" --key "$WORK/pub.key" "$OTHER"
[ "$(ranks)" = "$BEFORE" ] || fail "the publisher's reinstatement: $(ranks)"
pass "the publisher withdraws its own run (--sign-only, kix submit) and reinstates it"

# ---- every run of the group withdrawn: the group still answers --------------------
# (its page and kix group list what was withdrawn, proven, and rank none; a
# 404 would hide the withdrawals behind "no such group")
MEMBERS=$(json_get "$WORK/g.json" '" ".join(r["runId"] for r in d["runs"])')
for r in $MEMBERS; do
  expect_status 0 "$KIX" withdraw "${S[@]}" --key "$WORK/cur.key" --reason invalid-timing --note "all of them" "$r"
done
expect_status 0 "$KIX" group "sha256:$GROUP" "${S[@]}" --json
[ "$(json_get "$WORK/out" 'd["matched"], len(d["runs"]), sorted(w["runId"] for w in d["withdrawn"])')" = \
  "0 0 $(python3 -c 'import sys; print(sorted(sys.argv[1:]))' $MEMBERS)" ] ||
  fail "kix group of a group with every run withdrawn: $(cat "$WORK/out")"
curl -s -o "$WORK/allw.html" -w '%{http_code}' "$H/groups/sha256:$GROUP" >"$WORK/code"
[ "$(cat "$WORK/code")" = 200 ] || fail "GET /groups/ of a group with every run withdrawn: HTTP $(cat "$WORK/code")"
for r in $MEMBERS; do grep -q "$r" "$WORK/allw.html" || fail "the group page does not list withdrawn run $r"; done
grep -q "Every run of this group is withdrawn" "$WORK/allw.html" || fail "the group page does not say every run is withdrawn"
# a group key no group has (no run ranked, none withdrawn) is still 404
code=$(curl -s -o /dev/null -w '%{http_code}' "$H/groups/sha256:$(printf '0%.0s' $(seq 64))")
[ "$code" = 404 ] || fail "GET /groups/ of a key no group has: HTTP $code"
# the static copy holds the page too, and the pages' verifier proves it in
# Chromium, on kixd and on the copy
"$KIXD" export --store "$WORK/o" "$WORK/copy" >/dev/null 2>"$WORK/export.err" || fail "kixd export: $(cat "$WORK/export.err")"
[ -f "$WORK/copy/groups/sha256:$GROUP.html" ] || fail "the export wrote no page for the group whose every run is withdrawn"
grep -q "Every run of this group is withdrawn" "$WORK/copy/groups/sha256:$GROUP.html" || fail "the exported group page"
. "$KIX_TESTS/integration/dom_lib.sh"
start_dom
trap 'stop_dom; cleanup' EXIT
CPORT=$(free_port)
(cd "$WORK/copy" && exec python3 -m http.server "$CPORT" --bind 127.0.0.1 >/dev/null 2>&1) &
COPY_PID=$!
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$CPORT/checkpoint" >/dev/null && break; sleep 0.05; done
for url in "$H/groups/sha256:$GROUP" "http://127.0.0.1:$CPORT/groups/sha256:$GROUP.html"; do
  dom "$url" "$WORK/allw.dom" || fail "chromium: $(tail -3 "$WORK/chrome.log")"
  state=$(grep -o '<p id="verify-status" data-state="[a-z]*"' "$WORK/allw.dom" | sed 's/.*="//; s/"$//')
  [ "$state" = ok ] || fail "$url: the verifier says $state: $(grep -o '<p id="verify-status".\{0,300\}' "$WORK/allw.dom")"
  for r in $MEMBERS; do grep -q "data-run=\"$r\"" "$WORK/allw.dom" || fail "$url: verified page lost withdrawn run $r"; done
done
kill "$COPY_PID" 2>/dev/null; wait "$COPY_PID" 2>/dev/null || true
for r in $MEMBERS; do
  expect_status 0 "$KIX" reinstate "${S[@]}" --key "$WORK/cur.key" "$r"
done
[ "$(ranks)" = "$BEFORE" ] || fail "after reinstating every run: $(ranks)"
pass "a group whose every run is withdrawn answers with its withdrawals (kix group, its page), ranking none"

expect_status 0 "$KIX" audit "${S[@]}"
stop o
expect_status 0 "$KIXD" check --store "$WORK/o"
pass "kix audit replays the log clean; kixd check recomputes the same index"
