#!/usr/bin/env bash
# Issue 25 point 5 and issue 42 point 2: one run-id grammar (PROTOCOL.md §5.3). kix publish
# refuses, before signing anything, a run id with a leading dot, one that
# parses as a digest, one ending in .html or .json (another run's page or
# view in the export) or one with a character a file or URL name does not
# take, naming the rule; nothing is stored. A run reference is a digest or
# a run id of the grammar: sha256:<hex> always names a manifest.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"

new_origin "$WORK/o"
serve o
export KIX_SERVER=$(addr o) KIX_LOG_KEY="$(cat "$WORK/vkey")"
"$KIX" new run --kernel rope --gpu "NVIDIA A100" "$WORK/m" >/dev/null || fail "kix new run"
fill_bundle "$WORK/m"
"$KIX" publish --key "$WORK/pub.key" --run-id first "$WORK/m/run.json" "$WORK/m/workload.json" \
  --json >"$WORK/p1.json" || fail "first publication"
D1=$(json_get "$WORK/p1.json" 'd["digest"]')
SIZE=$("$KIX" info | awk '$1 == "size" { print $2 }')

# first.json and first.html would be the names of run first's view and
# page in an export (issue 42 point 2), any case
for id in . .. .size "$D1" -x a:b 'a/b' first.json first.html first.HTML; do
  expect_status 1 "$KIX" publish --key "$WORK/pub.key" --run-id "$id" --new-run "$WORK/m/run.json" \
    "$WORK/m/workload.json"
  grep -q "a run id is 1 to 128 characters of A-Z a-z 0-9 . _ -, the first a letter or digit, not ending in .html or .json" "$WORK/err" ||
    fail "the refusal of run id $id does not name the rule: $(cat "$WORK/err")"
  [ "$("$KIX" info | awk '$1 == "size" { print $2 }')" = "$SIZE" ] || fail "run id $id changed the log"
done
pass "kix publish refuses every run id outside the grammar, naming the rule, nothing stored"

expect_status 1 "$KIX" show ..
grep -q "begins with a dot" "$WORK/err" || fail "kix show ..: $(cat "$WORK/err")"
"$KIX" show --json "$D1" >"$WORK/show.json" || fail "kix show by digest"
[ "$(json_get "$WORK/show.json" 'd["runId"]')" = first ] || fail "the digest resolved to another run"
pass "a reference is a digest (its own run) or a run id of the grammar"
