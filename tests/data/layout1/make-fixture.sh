#!/usr/bin/env bash
# Makes the layout-1 fixture of integration.store_migrate with the binaries
# of a kix before layout 2 (main at 92e5a8d):
#   git worktree add /tmp/kix-old 92e5a8d && cmake -S /tmp/kix-old -B /tmp/kix-old/build \
#     && cmake --build /tmp/kix-old/build --target kixd kix kix-import-liger
#   tests/data/layout1/make-fixture.sh /tmp/kix-old/build/bin [OUT_DIR]
# (tests/data/layout1-139fbaf: the same with main at 139fbaf, where issue
# 38 began, its index kix-index/4.)
# Writes in OUT_DIR (default: here): origin.dump (mdb_dump -a of the store: portable text, loaded
# with mdb_load), log.key (the fixture log's signing key), vkey (its
# verifier key), pub.key (the publisher's key). The log: the admin key, the
# publisher's key, the first 30 runs of the Liger sample, one withdrawn
# (where the old kix withdraws).
set -euo pipefail
OLD=${1:?usage: make-fixture.sh OLD_BIN_DIR [OUT_DIR]}
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$(cd "${2:-$HERE}" && pwd)
CSV="$HERE/../liger/all_benchmark_data.csv"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export KIX_STATE_DIR="$W/state" XDG_CONFIG_HOME="$W/config"
"$OLD/kixd" init --store "$W/o" --admin-key "$W/o/admin.key" --origin kix.test/layout1 >"$W/vkey" 2>/dev/null
"$OLD/kix" keygen --name publisher --out "$W/pub" >/dev/null 2>&1
"$OLD/kix" key add --store "$W/o" --key "$W/o/admin.key" --role publish "$W/pub.pub" >/dev/null
sed -n '1,31p' "$CSV" >"$W/rows.csv"
"$OLD/kix-import-liger" --key "$W/pub.key" --store "$W/o" --batch 7 --map "$W/rows.map" "$W/rows.csv" >/dev/null
run=$(grep -o '"runId":"[^"]*"' "$W/rows.map" | head -1 | cut -d'"' -f4)
# (a kix before withdrawals, as at 139fbaf, has none to make)
if "$OLD/kix" withdraw --help >/dev/null 2>&1; then
  "$OLD/kix" withdraw --store "$W/o" --key "$W/pub.key" --reason duplicate --note "fixture" "$run" >/dev/null
fi
# db_pagesize: a keyword of newer mdb_dump that older mdb_load warns about
mdb_dump -a "$W/o" | sed "/^db_pagesize=/d" >"$OUT/origin.dump"
cp "$W/o/log.key" "$W/vkey" "$W/pub.key" "$OUT/"
echo "wrote $OUT/origin.dump ($(wc -c <"$OUT/origin.dump") bytes)"
