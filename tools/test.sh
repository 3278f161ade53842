#!/usr/bin/env bash
# The whole test suite: install dependencies; build Release with -Werror
# into build/ (optimizer-only warnings count too); fuzz every libFuzzer
# target for a short time (tools/fuzz.sh, 30 s each; KIX_FUZZ_SECONDS=0
# skips it); build Debug with ASan+UBSan and -Werror into build-debug/ and
# run every CTest entry there (its summary is the last thing printed).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DKIX_WERROR=ON >/dev/null
cmake --build build -j"$(nproc)"
if [ "${KIX_FUZZ_SECONDS:-30}" != 0 ]; then
  bash tools/fuzz.sh -t "${KIX_FUZZ_SECONDS:-30}"
fi
cmake -S . -B build-debug -DCMAKE_BUILD_TYPE=Debug -DKIX_WERROR=ON >/dev/null
cmake --build build-debug -j"$(nproc)"
cd build-debug
ctest --output-on-failure -j"$(nproc)" "$@"
