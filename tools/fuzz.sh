#!/usr/bin/env bash
# Fuzzes kix: builds the libFuzzer targets (clang, ASan+UBSan) in build-fuzz/
# and runs each for SECONDS against a scratch copy of its checked-in corpus
# (tests/fuzz/corpus/TARGET/ is never grown here). Exits 1 when any target
# crashed, leaked, timed out or ran out of memory; the input that did it is
# under build-fuzz/fuzz-out/TARGET/ (crash-*, leak-*, timeout-*, oom-*),
# next to the full log. tests/fuzz/README.md says how to reproduce one.
#
#   tools/fuzz.sh [-t SECONDS] [TARGET...]     default: 30 s, every target
#   KIX_FUZZ_FLAGS="-max_len=65536" tools/fuzz.sh -t 3600 proto
set -euo pipefail
cd "$(dirname "$0")/.."

secs="${KIX_FUZZ_SECONDS:-30}"
if [ "${1:-}" = "-t" ]; then
  secs="$2"
  shift 2
fi

# clang (with its libFuzzer runtime) only when missing, as tools/deps.sh does.
if ! command -v clang >/dev/null 2>&1; then
  echo "kix: installing clang" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq clang >/dev/null
fi

# -O1 without NDEBUG; warnings are the gcc build's business, not the fuzzer's.
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DKIX_FUZZ=ON -DKIX_WERROR=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g" >/dev/null
cmake --build build-fuzz -j"${KIX_JOBS:-$(nproc)}" --target fuzz

if [ $# -gt 0 ]; then
  targets=("$@")
else
  targets=()
  for src in tests/fuzz/fuzz_*.c; do
    name=$(basename "$src" .c)
    [ -x "build-fuzz/bin/$name" ] && targets+=("${name#fuzz_}")
  done
fi

# One target's run: a fresh scratch corpus, its log, and one line of result.
fuzz_one() {
  local t="$1" bin="build-fuzz/bin/fuzz_$1" out="build-fuzz/fuzz-out/$1" result runs rate
  rm -rf "$out"
  mkdir -p "$out/corpus"
  cp -R "tests/fuzz/corpus/$t/." "$out/corpus/"
  # shellcheck disable=SC2086
  if "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$out/" ${KIX_FUZZ_FLAGS:-} "$out/corpus" >"$out/log" 2>&1; then
    result=ok
  else
    result=FAILED
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$out/log")
  printf 'fuzz %-10s %s  %s runs, %s exec/s\n' "$t" "$result" "${runs:-?}" "${rate:-?}"
  if [ "$result" != ok ]; then
    grep -E 'ERROR|SUMMARY|^ *#[0-9]+ .* in ' "$out/log" | head -40 >&2 || true
    ls "$out" | grep -E '^(crash|leak|timeout|oom|slow-unit)-' | sed "s|^|  input: $out/|" >&2 || true
    return 1
  fi
}

for t in "${targets[@]}"; do
  if [ ! -x "build-fuzz/bin/fuzz_$t" ] || [ ! -d "tests/fuzz/corpus/$t" ]; then
    echo "fuzz: no target $t (want build-fuzz/bin/fuzz_$t and tests/fuzz/corpus/$t/)" >&2
    exit 2
  fi
done

# Targets run side by side, one a core (KIX_JOBS), so the whole pass takes
# SECONDS times targets/cores rather than SECONDS times targets.
jobs="${KIX_JOBS:-$(nproc)}"
failed=()
declare -A running=()
reap() {
  local pid t
  wait -n "${!running[@]}" 2>/dev/null || true
  for pid in "${!running[@]}"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      t="${running[$pid]}"
      unset "running[$pid]"
      wait "$pid" || failed+=("$t")
    fi
  done
}
for t in "${targets[@]}"; do
  while [ ${#running[@]} -ge "$jobs" ]; do reap; done
  fuzz_one "$t" &
  running[$!]="$t"
done
while [ ${#running[@]} -gt 0 ]; do reap; done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: FAILED: ${failed[*]} (see build-fuzz/fuzz-out/<target>/log)" >&2
  exit 1
fi
