#!/usr/bin/env bash
# README.md's "Quick start (Debian 12)" block, run as written (bash -e, one
# script) from a directory that looks like the source root (readme_root in
# lib.sh: the source's tools/, this build as build/). Both scripts take
# KIX_PREBUILT=this build, so they install nothing and build nothing, and
# tools/test.sh runs one CTest entry (KIX_TEST_REGEX, a fast one) instead of the whole
# suite this test is part of; everything else is the block's text:
# tools/run.sh creates the log under the root's var/, imports the bundled
# Liger sample through kixd and shows one run page, verified.
source "$(dirname "$0")/lib.sh"
: "${KIX_SRC:?set KIX_SRC to the source tree}"

BUILD=$(cd "$KIX_BIN/.." && pwd)
readme_block "Quick start (Debian 12)" >"$WORK/quick.sh"
grep -q "tools/run.sh" "$WORK/quick.sh" && grep -q "tools/test.sh" "$WORK/quick.sh" ||
  fail "the Quick start block no longer runs tools/run.sh and tools/test.sh: $(cat "$WORK/quick.sh")"
readme_root "$WORK/root"
# KIX_PREBUILT is a build directory of this test's own that holds this
# build's programs and tests (bin/ and a CTestTestfile.cmake naming it), so
# the inner ctest's records (Testing/: LastTest.log, LastTestsFailed.log)
# do not overwrite those of the suite this test runs in
mkdir "$WORK/build"
ln -s "$KIX_BIN" "$WORK/build/bin"
printf 'subdirs("%s")\n' "$BUILD" >"$WORK/build/CTestTestfile.cmake"
cd "$WORK/root"
KIX_PREBUILT="$WORK/build" KIX_TEST_REGEX='^unit\.canon\.number_table$' bash -euo pipefail "$WORK/quick.sh" \
  >"$WORK/out" 2>"$WORK/err" || {
  cat "$WORK/out" "$WORK/err"
  fail "the README's Quick start failed"
}
[ -d var/liger/store ] || fail "tools/run.sh made no log under the root's var/"
grep -q "^== its page" "$WORK/out" || fail "tools/run.sh showed no run page: $(tail -5 "$WORK/out")"
grep -qi "verified" "$WORK/out" || fail "tools/run.sh verified nothing: $(tail -5 "$WORK/out")"
[ "$(grep -c '"runId"' var/liger/map.jsonl)" -ge 10 ] || fail "the sample was not imported"
[ -f "$WORK/build/Testing/Temporary/LastTest.log" ] || fail "the inner ctest kept no records of its own"
grep -q "100% tests passed, 0 tests failed out of 1" "$WORK/out" ||
  fail "tools/test.sh did not run unit.canon.number_table: $(tail -5 "$WORK/out")"
pass "README Quick start runs as written (KIX_PREBUILT: no apt, no build): a verified run page; tools/test.sh runs CTest"

# the knobs refuse what they cannot use
expect_status 2 env KIX_PREBUILT="$WORK/root/var" bash "$KIX_SRC/tools/run.sh"
expect_status 2 env KIX_PREBUILT="$WORK/root/var" bash "$KIX_SRC/tools/test.sh"
pass "KIX_PREBUILT without a build there exits 2"
