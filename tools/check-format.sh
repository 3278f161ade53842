#!/usr/bin/env bash
# Fails when any C source or header differs from what clang-format makes of it.
set -eu
cd "$(dirname "$0")/.."
# (outside git, e.g. a copy of the tree: not the build directories, nor the
# npm packages tools/deps.sh puts in tests/browser/node_modules)
files=$(git ls-files '*.c' '*.h' 2>/dev/null ||
    find . -name '*.[ch]' -not -path './build*' -not -path '*/node_modules/*')
[ -n "$files" ] || exit 0
# shellcheck disable=SC2086
clang-format --dry-run -Werror $files
