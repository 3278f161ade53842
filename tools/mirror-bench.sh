#!/usr/bin/env bash
# Measures mirrors on a Release build (figures for DESIGN.md / LIMITS.md):
#  1. catch-up: a fresh mirror replays an origin holding the full Liger CSV
#     (2,448 runs, 2,450 entries, objects included), then a larger log made by
#     adding SYNTH pre-signed publications with kixd-bench: entries/s;
#  2. follow latency: N publishes one at a time at the origin, each timed
#     until the mirror's follow stream delivers it (kix-mirror-bench).
#
#   tools/mirror-bench.sh BUILD_DIR [SYNTH] [N]     (defaults 20000, 50)
set -euo pipefail

build=${1:?usage: tools/mirror-bench.sh BUILD_DIR [SYNTH] [N]}
synth=${2:-20000}
n=${3:-50}
bin=$(cd "$build/bin" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
csv=$src/tests/data/liger/all_benchmark_data.csv
work=$(mktemp -d /tmp/kix-mirror-bench-XXXXXX)
export KIX_STATE_DIR="$work/state" XDG_CONFIG_HOME="$work/config"
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

ms() { date +%s%3N; }
size_of() { "$bin/kix" info --server "unix://$work/$1.sock" 2>/dev/null | awk '$1 == "size" { print $2 }'; }
serve() { # serve NAME ARGS...
    local name=$1
    shift
    "$bin/kixd" serve --store "$work/$name" --listen "unix://$work/$name.sock" "$@" \
        2>>"$work/$name.log" &
    pids+=("$!")
    for _ in $(seq 1 200); do
        "$bin/kix" info --server "unix://$work/$name.sock" >/dev/null 2>&1 && return 0
        sleep 0.02
    done
    echo "kixd $name did not start" >&2
    exit 1
}
catch_up() { # catch_up NAME TARGET: a fresh mirror of o; prints the figures
    local name=$1 target=$2 t0 t1 bytes
    t0=$(ms)
    serve "$name" --mirror-of "unix://$work/o.sock" --upstream-key "$work/vkey"
    until [ "$(size_of "$name")" = "$target" ]; do sleep 0.01; done
    t1=$(ms)
    bytes=$(du -sk "$work/$name" | cut -f1)
    echo "catch-up of $target entries: $((t1 - t0)) ms from start, $((target * 1000 / (t1 - t0 + 1))) entries/s;" \
        "$(grep -o 'verified [0-9]* entries up to size [0-9]* in [0-9]* ms' "$work/$name.log" | tail -1);" \
        "replica ${bytes} KiB"
}

"$bin/kixd" init --store "$work/o" --admin-key "$work/admin.key" --origin bench.example/log >"$work/vkey" 2>/dev/null
"$bin/kix" keygen --name liger --out "$work/pub" >/dev/null 2>&1
"$bin/kix" key add --store "$work/o" --key "$work/admin.key" --role publish "$work/pub.pub" >/dev/null
"$bin/kix-import-liger" --key "$work/pub.key" --store "$work/o" "$csv" >/dev/null
serve o
echo "origin: $(size_of o) entries (full Liger CSV), $(nproc) CPUs"
catch_up m1 "$(size_of o)"

if [ "$synth" -gt 0 ]; then
    "$bin/kixd-bench" --server "unix://$work/o.sock" --admin "$work/admin.key" --count "$synth" \
        submit >"$work/bench.out" 2>&1
    echo "origin: $(size_of o) entries after $synth synthetic publications"
    catch_up m2 "$(size_of o)"
    until [ "$(size_of m1)" = "$(size_of o)" ]; do sleep 0.05; done
fi

"$bin/kix-mirror-bench" "unix://$work/o.sock" "unix://$work/m1.sock" "$work/pub.key" "$n"
