#!/usr/bin/env bash
# The verifiable index against a lying server (issue 14), through a real
# kixd. A server that edits its index without re-signing is caught by kix
# show/resolve on the spot (the proof does not reach the signed root); one
# that withholds an entry about a run is caught by resolve (the entry chain
# does not close); one that edits a group and signs the lie with its own
# log key passes a reader's checks but not kixd check, kix audit or a
# mirror, which recompute the index from the entries. A run the index does
# not hold is answered with a proof of absence.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"
LIE="$KIX_BIN/kix-lie"
export KIX_STATE_DIR="$WORK/state"

# a group of two runs or more (GROUP, BEST, OTHER), OTHER attested once
attested_log "$WORK/o"
cp -a "$WORK/o" "$WORK/clean"
serve o
S=(--server "$(addr o)")

"$KIX" show "${S[@]}" "$OTHER" --json >"$WORK/show.json"
[ "$(json_get "$WORK/show.json" 'd["rank"]["rank"]')" = 2 ] || fail "baseline rank: $(cat "$WORK/show.json")"
[ "$(json_get "$WORK/show.json" 'd["attestations"] == len([e for e in d["entries"] if e["type"] == "attestation"])')" = True ] ||
  fail "not complete"
"$KIX" index "${S[@]}" "group/$GROUP" >/dev/null || fail "group proof"
pass "baseline: $OTHER ranks 2 of its group, proven"

# ---- absence is proven ----------------------------------------------------------
expect_status 1 "$KIX" resolve "${S[@]}" no-such-run
grep -q "absence proven by the log's signed index at size" "$WORK/err" || fail "absence: $(cat "$WORK/err")"
"$KIX" index "${S[@]}" run/no-such-run --json >"$WORK/abs.json"
[ "$(json_get "$WORK/abs.json" 'd["present"]')" = False ] || fail "absent key reported present"
pass "a run the log does not hold comes with a proof of absence"

# ---- a withheld entry: the chain does not close ------------------------------------
att=$(json_get "$WORK/show.json" '[e["index"] for e in d["entries"] if e["type"] == "attestation"][0]')
stop o
"$LIE" "$WORK/o" withhold "$OTHER" "$att" || fail "kix-lie withhold"
serve o
expect_status 1 "$KIX" resolve "${S[@]}" "$OTHER"
grep -q "the server withheld entries about run $OTHER" "$WORK/err" || fail "withheld: $(cat "$WORK/err")"
expect_status 1 "$KIX" show "${S[@]}" "$OTHER"
pass "an entry withheld by the server is caught by resolve and show"

# ---- an unsigned edit of a group: the proof does not reach the signed root --------
stop o
rm -rf "$WORK/o" && cp -a "$WORK/clean" "$WORK/o"
"$LIE" "$WORK/o" drop "$GROUP" "$BEST" --no-sign || fail "kix-lie drop --no-sign"
serve o
expect_status 1 "$KIX" show "${S[@]}" "$OTHER"
grep -q "does not verify" "$WORK/err" || fail "unsigned group edit: $(cat "$WORK/err")"
expect_status 1 "$KIX" group "sha256:$GROUP" "${S[@]}"
grep -q "does not lead to the root" "$WORK/err" || fail "unsigned group edit, kix group: $(cat "$WORK/err")"
pass "a group edited without re-signing is refused by kix show"

# ---- a query that lies while the signed index is honest ---------------------------
stop o
rm -rf "$WORK/o" && cp -a "$WORK/clean" "$WORK/o"
serve o
"$KIX" query "${S[@]}" --group "sha256:$GROUP" --json >"$WORK/q-honest.json" ||
  fail "honest query: $(cat "$WORK/q-honest.json")"
[ "$(json_get "$WORK/q-honest.json" 'd["proven"]["groups"]')" = 1 ] || fail "query proof: $(cat "$WORK/q-honest.json")"
stop o
"$LIE" "$WORK/o" drop "$GROUP" "$BEST" --table-only || fail "kix-lie drop --table-only"
serve o
for cmd in "query --group sha256:$GROUP" "group sha256:$GROUP" "query"; do
  expect_status 1 "$KIX" $cmd "${S[@]}"
  # the server's index answers are made from the same tables: their record
  # no longer reaches the signed root (tests/unit/test_query_verify.c plays
  # a server whose rows alone lie)
  grep -q "group/$GROUP at size [0-9]*: sparse Merkle proof refused" "$WORK/err" ||
    fail "kix $cmd believed the server's ranks: $(cat "$WORK/out" "$WORK/err")"
done
pass "ranks a server's query invents are refused by kix query and kix group"

# ---- the same lie signed with the log key: only recomputation catches it ----------
stop o
rm -rf "$WORK/o" && cp -a "$WORK/clean" "$WORK/o"
"$LIE" "$WORK/o" drop "$GROUP" "$BEST" || fail "kix-lie drop"
expect_status 1 "$KIXD" check --store "$WORK/o" --json
json_get "$WORK/out" '[p["where"] for p in d["problems"]]' | grep -q "smt group/$GROUP" ||
  fail "kixd check did not name the group: $(cat "$WORK/out")"
json_get "$WORK/out" '[p["table"] for p in d["problems"]]' | grep -q "index_notes" ||
  fail "kixd check did not refuse the signed root: $(cat "$WORK/out")"
"$KIX" keygen --witness --name witness.test --out "$WORK/w" >/dev/null 2>&1
serve o --witness "$WORK/w.pub"
"$KIX" show "${S[@]}" "$OTHER" --json >"$WORK/lie.json" || fail "the signed lie should verify for a reader"
[ "$(json_get "$WORK/lie.json" 'd["rank"]["rank"]')" = 1 ] || fail "the lie: $(cat "$WORK/lie.json")"
KIX_STATE_DIR="$WORK/auditor" expect_status 1 "$KIX" audit "${S[@]}"
grep -q "is not the index of its entries" "$WORK/err" || fail "audit: $(cat "$WORK/err")"
grep -q "group/$GROUP has another record in the upstream's signed index" "$WORK/err" ||
  fail "audit does not name the group: $(cat "$WORK/err")"
WPORT=$(free_port)
mirror m o --witness-key "$WORK/w.key" --http "tcp://127.0.0.1:$WPORT"
for i in $(seq 1 200); do
  "$KIX" mirror status --server "$(addr m)" --json >"$WORK/st.json" 2>"$WORK/st.err" || true
  grep -q '"fork":{' "$WORK/st.json" && break
  sleep 0.05
done
json_get "$WORK/st.json" 'd["fork"]["reason"]' | grep -q "is not the index of its entries" ||
  fail "mirror: $(cat "$WORK/st.json" "$WORK/st.err"; grep -v "request refused" "$WORK/m.log" | tail -8)"
# a witness cosigns only what it recomputed: nothing here
"$KIX" checkpoint "${S[@]}" --witness "$WORK/w.pub" --json >"$WORK/cp.json"
[ "$(json_get "$WORK/cp.json" 'd["witnesses"]')" = 0 ] || fail "a witness cosigned the lie"
# nor when the log asks it over HTTP (c2sp.org/tlog-witness): the checkpoint
# and its tree are honest, only the index note beside it lies, so only the
# replica's verdict can refuse it; 422 as for any inconsistent checkpoint
python3 -c 'import json,sys; sys.stdout.write("old 0\n\n" + json.load(open(sys.argv[1]))["checkpoint"])' \
  "$WORK/cp.json" >"$WORK/add.body"
code=$(curl -s -o "$WORK/add.out" -w '%{http_code}' --data-binary @"$WORK/add.body" \
  "http://127.0.0.1:$WPORT/add-checkpoint")
[ "$code" = 422 ] || fail "add-checkpoint of the lying log's checkpoint: $code $(cat "$WORK/add.out")"
grep -q "replica found the log inconsistent at size .*is not the index of its entries" "$WORK/add.out" ||
  fail "add-checkpoint refusal: $(cat "$WORK/add.out")"
"$KIX" checkpoint "${S[@]}" --witness "$WORK/w.pub" --json >"$WORK/cp.json"
[ "$(json_get "$WORK/cp.json" 'd["witnesses"]')" = 0 ] || fail "the witness's own path cosigned the lie"
# and across a restart (the fork's evidence is kept)
stop m || true
mirror m o --witness-key "$WORK/w.key" --http "tcp://127.0.0.1:$WPORT"
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$WPORT/checkpoint" && break; sleep 0.05; done
code=$(curl -s -o "$WORK/add.out" -w '%{http_code}' --data-binary @"$WORK/add.body" \
  "http://127.0.0.1:$WPORT/add-checkpoint")
[ "$code" = 422 ] || fail "add-checkpoint after a restart: $code $(cat "$WORK/add.out")"
pass "a group lie signed with the log key: kixd check names it, kix audit, a mirror and a witness refuse it (its own cosigning and add-checkpoint: 422)"

# ---- a lying index note beside an honestly witnessed checkpoint (issue 25) -------
# A witness mirror cosigns the checkpoint and the index note it recomputed;
# the operator then signs another index note for the same checkpoint. The
# checkpoint is still honestly witnessed, but a reader who requires the
# witness refuses the index: its root is not the one the witness cosigned.
stop m || true
stop o
rm -rf "$WORK/o" "$WORK/m" && cp -a "$WORK/clean" "$WORK/o"
serve o --witness "$WORK/w.pub"
mirror m o --witness-key "$WORK/w.key"
W=(--witness "$WORK/w.pub" --min-witnesses 1)
for i in $(seq 1 200); do
  "$KIX" show "${S[@]}" "${W[@]}" "$OTHER" >/dev/null 2>&1 && break
  sleep 0.05
done
"$KIX" show "${S[@]}" "${W[@]}" "$OTHER" --json >"$WORK/w.json" || fail "honest, witnessed: $(cat "$WORK/err" 2>/dev/null)"
[ "$(json_get "$WORK/w.json" 'd["rank"]["rank"]')" = 2 ] || fail "honest rank: $(cat "$WORK/w.json")"
"$KIX" index "${S[@]}" "${W[@]}" "group/$GROUP" >/dev/null || fail "kix index with --min-witnesses 1 (honest)"
"$KIX" group "${S[@]}" "${W[@]}" "sha256:$GROUP" >/dev/null || fail "kix group with --min-witnesses 1 (honest)"
stop m
stop o
"$LIE" "$WORK/o" drop "$GROUP" "$BEST" || fail "kix-lie drop"
serve o --witness "$WORK/w.pub"
"$KIX" checkpoint "${S[@]}" "${W[@]}" >/dev/null || fail "the checkpoint itself is still witnessed"
"$KIX" show "${S[@]}" "$OTHER" --json >"$WORK/lie.json" || fail "without witnesses the signed lie verifies"
[ "$(json_get "$WORK/lie.json" 'd["rank"]["rank"]')" = 1 ] || fail "the lie: $(cat "$WORK/lie.json")"
for cmd in "show $OTHER" "resolve $OTHER" "index group/$GROUP" "group sha256:$GROUP" "query --group sha256:$GROUP"; do
  expect_status 1 "$KIX" $cmd "${S[@]}" "${W[@]}"
  grep -q "the index note of .* has 0 of the 1 witness cosignatures required" "$WORK/err" ||
    fail "kix $cmd --min-witnesses 1 believed a lying index note: $(cat "$WORK/out" "$WORK/err")"
done
pass "a lying index note beside a witnessed checkpoint: show, resolve, index, group and query with --min-witnesses 1 refuse it"
