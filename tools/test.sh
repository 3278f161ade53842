#!/usr/bin/env bash
# The whole test suite: install dependencies; build Release with -Werror
# into build/ (optimizer-only warnings count too); build Debug with
# ASan+UBSan and -Werror into build-debug/ and run every CTest entry there.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DKIX_WERROR=ON >/dev/null
cmake --build build -j"$(nproc)"
cmake -S . -B build-debug -DCMAKE_BUILD_TYPE=Debug -DKIX_WERROR=ON >/dev/null
cmake --build build-debug -j"$(nproc)"
cd build-debug
ctest --output-on-failure -j"$(nproc)" "$@"
