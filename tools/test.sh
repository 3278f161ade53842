#!/usr/bin/env bash
# The whole test suite: install dependencies; build Release with -Werror
# into build/ (optimizer-only warnings count too; kix, kixd and the tools,
# which the scale tests and the README's benchmark block run, not the
# tests, which the Debug build compiles); fuzz every libFuzzer
# target for a short time (tools/fuzz.sh, 30 s each; KIX_FUZZ_SECONDS=0
# skips it); build Debug with ASan+UBSan and -Werror into build-debug/ and
# run every CTest entry there (its summary is the last thing printed).
#
# KIX_TEST_REGEX=RE runs only the CTest entries matching RE (ctest -R).
# KIX_PREBUILT=DIR runs CTest in DIR, a build directory already built: no
# tools/deps.sh, no build, no fuzzing (integration.readme_quick_start runs
# the README's Quick start block this way).
set -euo pipefail
cd "$(dirname "$0")/.."
ctest_args=(--output-on-failure -j"$(nproc)")
[ -z "${KIX_TEST_REGEX:-}" ] || ctest_args+=(-R "$KIX_TEST_REGEX")
if [ -n "${KIX_PREBUILT:-}" ]; then
    [ -f "$KIX_PREBUILT/CTestTestfile.cmake" ] ||
        { echo "test.sh: KIX_PREBUILT=$KIX_PREBUILT is not a build directory" >&2; exit 2; }
    cd "$KIX_PREBUILT"
    exec ctest "${ctest_args[@]}" "$@"
fi
bash tools/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DKIX_WERROR=ON -DBUILD_TESTING=OFF >/dev/null
cmake --build build -j"$(nproc)"
if [ "${KIX_FUZZ_SECONDS:-30}" != 0 ]; then
  bash tools/fuzz.sh -t "${KIX_FUZZ_SECONDS:-30}"
fi
cmake -S . -B build-debug -DCMAKE_BUILD_TYPE=Debug -DKIX_WERROR=ON >/dev/null
cmake --build build-debug -j"$(nproc)"
cd build-debug
ctest "${ctest_args[@]}" "$@"
