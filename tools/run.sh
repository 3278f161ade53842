#!/usr/bin/env bash
# The main job: install dependencies, build (Release, into build/), then
# canonicalize and store the bundled example manifests in an embedded store
# under ./var/, print their digests and read one back.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
kix=build/bin/kix
store=var/store
mkdir -p var
echo "== storing the example manifests in $store"
$kix store put --store "$store" tools/samples/examples/*.manifest.json
first=$($kix digest tools/samples/examples/rope-liger-a100.manifest.json)
echo "== reading $first back"
$kix store get --store "$store" "$first" | head -c 300
echo " ..."
echo "== $($kix store count --store "$store") objects in $store"
echo "== importing the Liger-Kernel sample (tools/samples/liger/sample.csv) into var/liger/store"
liger=var/liger
if [ ! -d "$liger/store" ]; then
    mkdir -p "$liger"
    build/bin/kixd init --store "$liger/store" --origin kix.local/liger >"$liger/log.vkey"
    $kix keygen --name liger-importer --out "$liger/publisher" >/dev/null
    build/bin/kix-dev-key-add --store "$liger/store" --admin "$liger/store/admin.key" \
        --pub "$liger/publisher.pub" --roles publish
fi
# a second run adds nothing: run ids and envelopes are derived from the rows
build/bin/kix-import-liger --key "$liger/publisher.key" --store "$liger/store" \
    --map "$liger/map.jsonl" tools/samples/liger/sample.csv
echo "== the rope row of the example page, as indexed:"
grep '"externalId":"rope/forward/liger/nvidia-a100-sxm4-80gb/hidden512-' "$liger/map.jsonl" | head -1
