#!/usr/bin/env bash
# The full crash-state exploration (tests/crash/README.md): every workload
# of crash_states with every crash point, several rounds; prints one line
# of figures per workload and the seconds it took. CI runs a bounded
# sample (crash.states_*).
#   KIX_BIN=build-debug/bin tests/crash/explore-all.sh [ROUNDS [WORKLOAD...]]
set -euo pipefail
: "${KIX_BIN:?set KIX_BIN to the bin directory of a build}"
export KIX_BIN KIX_CRASH_STATES_ROUNDS="${1:-6}"
shift || true
status=0
for w in "${@:-client witness fork lmdb migrate export}"; do
  for one in $w; do
    start=$(date +%s)
    "$KIX_BIN/crash_states" "$one" FULL || status=1
    echo "explore-all: $one took $(($(date +%s) - start)) s"
  done
done
exit $status
