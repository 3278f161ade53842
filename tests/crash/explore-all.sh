#!/usr/bin/env bash
# The full crash-state exploration (tests/crash/README.md): every workload
# of crash_states with every crash point, several rounds; prints one line
# of figures per workload. CI runs a bounded sample (crash.states_*).
#   KIX_BIN=build-debug/bin tests/crash/explore-all.sh [ROUNDS]
set -euo pipefail
: "${KIX_BIN:?set KIX_BIN to the bin directory of a build}"
export KIX_BIN KIX_CRASH_STATES_ROUNDS="${1:-6}"
status=0
for w in client witness fork lmdb export; do
  "$KIX_BIN/crash_states" "$w" FULL || status=1
done
exit $status
