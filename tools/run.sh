#!/usr/bin/env bash
# The main job: install dependencies, build (Release, into build/), create a
# log under ./var/, start kixd on it, import the bundled Liger-Kernel sample
# through kixd, then resolve and verify one run and show its page, then the
# bundled KernelBench sample, resolving one of its runs and showing its
# group — every answer checked against the log key — and stop kixd.
#
# KIX_PREBUILT=DIR uses the programs already built in DIR/bin instead: no
# tools/deps.sh, no build (integration.readme_quick_start runs the README's
# Quick start block this way).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${KIX_PREBUILT:-}" ]; then
    bin="$KIX_PREBUILT/bin"
    [ -x "$bin/kixd" ] || { echo "run.sh: KIX_PREBUILT=$KIX_PREBUILT has no bin/kixd" >&2; exit 2; }
else
    bash tools/deps.sh
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build build -j"$(nproc)" >/dev/null
    bin=build/bin
fi
var=var/liger
export KIX_STATE_DIR="$PWD/var/state"

if [ ! -d "$var/store" ]; then
    echo "== creating a log in $var/store"
    mkdir -p "$var"
    "$bin/kixd" init --store "$var/store" --admin-key "$var/admin.key" --origin kix.local/liger >"$var/log.vkey"
    "$bin/kix" keygen --name liger-importer --out "$var/publisher" >/dev/null 2>&1
    "$bin/kix" key add --store "$var/store" --key "$var/admin.key" --role publish \
        --log-key "$(cat "$var/log.vkey")" "$var/publisher.pub" >/dev/null
fi
export KIX_LOG_KEY="$(cat "$var/log.vkey")"
echo "== log key (what readers verify against): $KIX_LOG_KEY"

sock="$PWD/var/kixd.sock"
echo "== starting kixd on unix://$sock"
"$bin/kixd" serve --store "$var/store" --listen "unix://$sock" --log-level warn &
kixd_pid=$!
trap 'kill -TERM $kixd_pid 2>/dev/null; wait $kixd_pid 2>/dev/null' EXIT
export KIX_SERVER="unix://$sock"
for _ in $(seq 1 100); do "$bin/kix" info >/dev/null 2>&1 && break; sleep 0.05; done

echo "== importing tools/samples/liger/sample.csv through kixd (a second run adds nothing)"
"$bin/kix-import-liger" --key "$var/publisher.key" --server "$KIX_SERVER" \
    --map "$var/map.jsonl" tools/samples/liger/sample.csv
run=$(grep '"externalId":"rope/forward/liger/nvidia-a100-sxm4-80gb/hidden512-' "$var/map.jsonl" |
    head -1 | sed 's/.*"runId":"\([^"]*\)".*/\1/')
echo "== resolving run $run (every entry's proof, every digest, the checkpoint: verified)"
"$bin/kix" resolve "$run"
echo "== its page"
"$bin/kix" show "$run"

kb=tools/samples/kernelbench
echo "== importing the KernelBench sample ($kb: 10 timing files; its problems' digests, not the files)"
"$bin/kix-import" kernelbench --key "$var/publisher.key" --server "$KIX_SERVER" \
    --problems "$kb/problems.json" --map "$var/kernelbench.jsonl" "$kb"/results/timing/*/*.json
run=$(grep '"externalId":"kernelbench/H100_together/torch/level1/23_Softmax"' \
    "$var/kernelbench.jsonl" | sed 's/.*"runId":"\([^"]*\)".*/\1/')
echo "== resolving KernelBench run $run (softmax, PyTorch eager, H100: verified)"
"$bin/kix" resolve "$run"
echo "== its group: softmax on the H100, KernelBench's 6 configurations ranked by mean"
"$bin/kix" query --kernel softmax --gpu H100 | grep -A6 kernelbench
echo "== stopping kixd"
