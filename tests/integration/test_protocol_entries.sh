#!/usr/bin/env bash
# Issue 16 point 5: a stranger's client builds every kind of entry from
# PROTOCOL.md alone. tests/integration/protocol_entries.py recomputes the
# worked examples of section 5 (keys, objects, a key entry, a publication,
# an attestation, a rerun, a supersession, a policy entry, an open note
# with its proof of work, a comparisonKey) from the
# document's text with Python and PyNaCl, no kix code;
# unit.protocol_entries.* checks that kix builds the same bytes and that a
# real log accepts them, storing the same leaves.
source "$(dirname "$0")/lib.sh"
: "${KIX_SRC:?set KIX_SRC to the source tree}"
doc="$KIX_SRC/proto/PROTOCOL.md"

py=
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null && "$p" -c 'import nacl.signing' 2>/dev/null; then py=$p; break; fi
done
[ -n "$py" ] || fail "no python3 with PyNaCl (bash tools/deps.sh installs python3-nacl)"
"$py" "$KIX_TESTS/integration/protocol_entries.py" "$doc" || fail "the worked examples do not recompute"
pass "PROTOCOL.md section 5 examples recomputed without kix"

# the recomputation fails on a changed byte: flip one hex digit of the rerun's leaf hash
sed 's/^\(c735aa8e37695a0c84012ac2c6b5d3b78a6a3bbb75fe6b59f487b3f73d4dc5e\)3$/\14/' "$doc" >"$WORK/doc.md"
! cmp -s "$doc" "$WORK/doc.md" || fail "could not alter the rerun's leaf hash in a copy"
expect_status 1 "$py" "$KIX_TESTS/integration/protocol_entries.py" "$WORK/doc.md"
grep -q "rerun.leaf-hash" "$WORK/err" || fail "the altered leaf hash is not named: $(cat "$WORK/err")"
pass "an altered example is caught"

# and an open note whose work falls short of the policy: ask 16 bits in the policy's predicate
sed 's/^{"openNotes": true, "noteWork": 8,/{"openNotes": true, "noteWork": 16,/' "$doc" >"$WORK/doc.md"
! cmp -s "$doc" "$WORK/doc.md" || fail "could not alter the policy's noteWork in a copy"
expect_status 1 "$py" "$KIX_TESTS/integration/protocol_entries.py" "$WORK/doc.md"
grep -q "open-note: 14 bits of work, the policy asks 16" "$WORK/err" ||
  fail "the short proof of work is not named: $(cat "$WORK/err")"
pass "an open note short of the policy's work is caught"
