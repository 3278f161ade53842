#!/usr/bin/env bash
# The main job: install dependencies, build (Release, into build/), create a
# log under ./var/, import the bundled Liger-Kernel sample, then resolve and
# verify one run and show its page.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
bin=build/bin
var=var/liger
export KIX_STATE_DIR="$PWD/var/state"

if [ ! -d "$var/store" ]; then
    echo "== creating a log in $var/store"
    mkdir -p "$var"
    "$bin/kixd" init --store "$var/store" --origin kix.local/liger >"$var/log.vkey"
    "$bin/kix" keygen --name liger-importer --out "$var/publisher" >/dev/null 2>&1
    "$bin/kix" key add --store "$var/store" --key "$var/store/admin.key" --role publish \
        --log-key "$(cat "$var/log.vkey")" "$var/publisher.pub" >/dev/null
fi
export KIX_LOG_KEY="$(cat "$var/log.vkey")"
echo "== log key (what readers verify against): $KIX_LOG_KEY"
echo "== importing tools/samples/liger/sample.csv (a second run adds nothing)"
"$bin/kix-import-liger" --key "$var/publisher.key" --store "$var/store" \
    --map "$var/map.jsonl" tools/samples/liger/sample.csv
run=$(grep '"externalId":"rope/forward/liger/nvidia-a100-sxm4-80gb/hidden512-' "$var/map.jsonl" |
    head -1 | sed 's/.*"runId":"\([^"]*\)".*/\1/')
echo "== resolving run $run (every entry's proof, every digest, the checkpoint: verified)"
"$bin/kix" resolve --store "$var/store" "$run"
echo "== its page"
"$bin/kix" show --store "$var/store" "$run"
