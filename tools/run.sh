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
