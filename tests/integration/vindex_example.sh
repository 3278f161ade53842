#!/usr/bin/env bash
# Writes the worked example of proto/PROTOCOL.md §4.6 to stdout: a real log
# (origin log.example, 40 Liger rows, one attestation), `kix index --json`
# of one run ranked second in its group, of that group's directory and of
# the page that holds the run (the group's first: two runs), as one JSON
# document, then the log key. Not a test (test_vindex_python.sh checks the
# example in the document); run it to replace the example after a change to
# the index's records:
#   KIX_BIN=build-debug/bin KIX_TESTS=tests bash tests/integration/vindex_example.sh
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/mirror_lib.sh"
"$KIXD" init --store "$WORK/o" --admin-key "$WORK/o/admin.key" --origin log.example >"$WORK/vkey" 2>/dev/null
"$KIX" keygen --name publisher --out "$WORK/pub" >/dev/null 2>&1
"$KIX" key add --store "$WORK/o" --key "$WORK/o/admin.key" --role publish "$WORK/pub.pub" >/dev/null
"$KIX" keygen --name community --out "$WORK/att" >/dev/null 2>&1
"$KIX" key add --store "$WORK/o" --key "$WORK/o/admin.key" --role attest "$WORK/att.pub" >/dev/null
import "--store $WORK/o" 1 40 40
"$KIX" query --store "$WORK/o" --json --limit 1000 >"$WORK/q.json"
read -r GROUP _ OTHER < <(group_of_two "$WORK/q.json")
"$KIX" attest --store "$WORK/o" --key "$WORK/att.key" --note "seen it" "$OTHER" >/dev/null
export KIX_LOG_KEY="$(cat "$WORK/vkey")"
"$KIX" index --store "$WORK/o" --json "run/$OTHER" >"$WORK/run.json"
"$KIX" index --store "$WORK/o" --json "group/$GROUP" >"$WORK/group.json"
"$KIX" index --store "$WORK/o" --json "group/$GROUP/" >"$WORK/page.json"
python3 -c '
import json, sys
print(json.dumps({"answers": [json.load(open(p)) for p in sys.argv[1:]]}, indent=1))' \
  "$WORK/run.json" "$WORK/group.json" "$WORK/page.json"
echo "vkey: $(cat "$WORK/vkey")"
