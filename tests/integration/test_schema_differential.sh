#!/usr/bin/env bash
# The shipped JSON Schema files are the contract: Debian's python3-jsonschema
# and kix validate must agree on every record of a generated corpus of valid
# and mutated records (schema_differential.py), and on the field they name.
source "$(dirname "$0")/lib.sh"
python3 -c 'import jsonschema' 2>/dev/null || fail "python3-jsonschema is missing (tools/deps.sh installs it)"
python3 "$KIX_TESTS/integration/schema_differential.py" "$KIX" "$KIX_SRC/proto/schema" \
  "$KIX_SRC/tools/samples/examples" "$WORK/corpus" || fail "kix validate and python3-jsonschema disagree"
pass "kix validate agrees with python3-jsonschema"
