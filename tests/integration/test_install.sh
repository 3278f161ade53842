#!/usr/bin/env bash
# Installing kix (issue 13): README.md's install block (`cmake --install`
# of the build that KIX_BIN belongs to, into $HOME/.local of a temporary
# home), then checks what landed there:
#   - the four programs, each answering --version with the project version
#   - the man pages (rendered by man -l without warnings, every kix command
#     documented), bash completion (every command and option of the real
#     --help texts offered) and the systemd unit (systemd-analyze verify,
#     starting the installed kixd)
#   - once the library is installed too (P/lib*/pkgconfig/kix-verify.pc):
#     kix.pc and kix-verify.pc name that prefix, not the configured one;
#     tools/examples builds against it with pkg-config alone (PKG_CONFIG_PATH),
#     and so does a program of the whole libkix; verify_offline verifies a receipt
#     and a citation of a real log offline, rejects a tampered receipt, and
#     libkix-verify.so needs no LMDB, libuv or msgpack.
# Steps whose tool is missing here (man, systemd-analyze) say SKIP and go on.
source "$(dirname "$0")/lib.sh"
: "${KIX_SRC:?set KIX_SRC to the source root}"

BUILD=$(cd "$(dirname "$KIX_BIN")" && pwd)
P="$WORK/home/.local"
VERSION=$(sed -n 's/^project(kix VERSION \([0-9][0-9.]*\).*/\1/p' "$KIX_SRC/CMakeLists.txt")
[ -n "$VERSION" ] || fail "no project(kix VERSION ...) in $KIX_SRC/CMakeLists.txt"

# ---- install -------------------------------------------------------------------------
# README.md's install block as written, from a root whose build/ is this
# build (readme_root), for a user whose home is $WORK/home
readme_block "Install and use as a library" >"$WORK/install.sh"
readme_root "$WORK/root"
(cd "$WORK/root" && HOME="$WORK/home" bash -euo pipefail "$WORK/install.sh") >"$WORK/install.log" 2>&1 ||
    { cat "$WORK/install.log" >&2; fail "README's install block: $(cat "$WORK/install.sh")"; }
[ -x "$P/bin/kix" ] || fail "README's install block installed nothing under \$HOME/.local"
pass "README's install block (cmake --install build --prefix \$HOME/.local) into a temporary home"

# Installed programs find an installed shared libkix through the loader path.
libdirs=$(find "$P" -name 'libkix*.so*' -printf '%h\n' 2>/dev/null | sort -u | paste -sd:)
[ -n "$libdirs" ] && export LD_LIBRARY_PATH="$libdirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

for b in kix kixd kix-import kix-import-liger kix-bench; do
    [ -x "$P/bin/$b" ] || fail "$P/bin/$b not installed"
    got=$("$P/bin/$b" --version) || fail "$b --version exited $?"
    [ "$got" = "$b $VERSION" ] || fail "$b --version says '$got', want '$b $VERSION'"
done
pass "kix, kixd, kix-import, kix-import-liger, kix-bench installed; --version says $VERSION"

# ---- man pages -----------------------------------------------------------------------
pages=("$P/share/man/man1/kix.1" "$P/share/man/man8/kixd.8" "$P/share/man/man1/kix-import-liger.1"
       "$P/share/man/man1/kix-import.1"
       "$P/share/man/man1/kix-bench.1")
for page in "${pages[@]}"; do
    [ -f "$page" ] || fail "$page not installed"
    grep -q "^\.TH .*\"kix $VERSION\"" "$page" || fail "$page: .TH does not say kix $VERSION"
done
if command -v man >/dev/null; then
    for page in "${pages[@]}"; do
        MANWIDTH=80 man -l --warnings "$page" >"$WORK/page.txt" 2>"$WORK/page.err" ||
            fail "man -l $page exited $?: $(cat "$WORK/page.err")"
        [ ! -s "$WORK/page.err" ] || fail "man -l $page warns: $(cat "$WORK/page.err")"
        grep -q "SYNOPSIS" "$WORK/page.txt" || fail "man -l $page rendered no SYNOPSIS"
    done
    pass "man -l renders the five pages without warnings"
elif command -v groff >/dev/null; then
    for page in "${pages[@]}"; do
        groff -man -Tutf8 -ww -z "$page" 2>"$WORK/page.err" || fail "groff $page"
        [ ! -s "$WORK/page.err" ] || fail "groff warns on $page: $(cat "$WORK/page.err")"
    done
    pass "groff renders the five pages without warnings (no man here)"
else
    echo "SKIP: neither man nor groff installed (bash tools/deps.sh installs man-db)"
fi

# Every command of 'kix --help' is documented and completed.
commands=$("$P/bin/kix" --help | awk '/^commands:/{f=1;next} f&&/^  [a-z]/{print $1} f&&/^$/{f=0}')
[ "$(echo "$commands" | wc -l)" -ge 20 ] || fail "could not read the commands of kix --help"
for c in $commands; do
    # ".B kix verify\-citation ..." (roff spells '-' as '\-')
    awk -v p=".B kix ${c//-/\\\\-}" '$0 == p || index($0, p " ") == 1 {found = 1}
        END {exit !found}' "$P/share/man/man1/kix.1" || fail "kix.1 does not document kix $c"
done
pass "kix.1 documents every command of kix --help"

# ---- bash completion -----------------------------------------------------------------
comp="$P/share/bash-completion/completions/kix"
[ -f "$comp" ] || fail "$comp not installed"
bash -n "$comp" || fail "$comp: syntax error"
# complete_in FILE FUNCTION WORDS...: what the completion FUNCTION of FILE
# offers for the last word
complete_in() {
    bash -c 'source "$1"; f=$2; shift 2; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=()
             "$f"; printf "%s\n" "${COMPREPLY[@]}"' _ "$@"
}
complete_words() { complete_in "$comp" _kix "$@"; }
offered=$(complete_words kix "")
for c in $commands; do
    grep -qx -- "$c" <<<"$offered" || fail "completion does not offer command $c"
done
for c in $commands; do
    opts=$("$P/bin/kix" "$c" --help | grep -o -- '--[a-z][a-z0-9-]*' | sort -u || true)
    offered=$(complete_words kix "$c" --)
    for o in $opts; do
        case "$c:$o" in
        canon:--any | mirror:--mirror-of) continue ;; # undocumented; kixd's option
        esac
        grep -qx -- "$o" <<<"$offered" || fail "completion of 'kix $c' lacks $o"
    done
done
grep -q "/completion/kix$" <<<"$(complete_words kix publish --key "$KIX_SRC/tools/dist/completion/k")" ||
    fail "completion does not complete file names after --key"
grep -qx ".*/tools/dist" <<<"$(complete_words kix log --store "$KIX_SRC/tools/dis")" ||
    fail "completion does not complete directories after --store"
grep -qx not_reproduced <<<"$(complete_words kix rerun --outcome "")" || fail "no --outcome values"
pass "bash completion offers every command and every option of the --help texts"

# kixd's completion: every command, and every option of each command's --help
dcomp="$P/share/bash-completion/completions/kixd"
[ -f "$dcomp" ] || fail "$dcomp not installed"
bash -n "$dcomp" || fail "$dcomp: syntax error"
dcomplete() { complete_in "$dcomp" _kixd "$@"; }
dcommands=$(dcomplete kixd "")
for c in init serve check export backup; do # promote: integration.options
    grep -qx -- "$c" <<<"$dcommands" || fail "kixd completion does not offer command $c"
    offered=$(dcomplete kixd "$c" --)
    for o in $("$P/bin/kixd" "$c" --help | grep -o -- '--[a-z][a-z0-9-]*' | sort -u); do
        grep -qx -- "$o" <<<"$offered" || fail "completion of 'kixd $c' lacks $o"
    done
done
grep -qx json <<<"$(dcomplete kixd serve --log-format "")" || fail "no --log-format values"
pass "kixd's bash completion offers every command and every option of its --help texts"
# zsh's, generated from the option tables (integration.options checks them)
for f in _kix _kixd; do
    [ -f "$P/share/zsh/site-functions/$f" ] || fail "zsh completion $f not installed in share/zsh/site-functions"
    ! command -v zsh >/dev/null || zsh -n "$P/share/zsh/site-functions/$f" || fail "zsh -n $f"
done
pass "zsh completions _kix and _kixd installed"

# ---- systemd unit --------------------------------------------------------------------
unit="$P/lib/systemd/system/kixd.service"
[ -f "$unit" ] || fail "$unit not installed"
grep -q "^ExecStart=$P/bin/kixd serve --store " "$unit" ||
    fail "$unit does not start the installed kixd: $(grep ^ExecStart= "$unit")"
for want in DynamicUser=yes StateDirectory=kix ProtectSystem=strict ProtectHome=yes PrivateTmp=yes \
    NoNewPrivileges=yes Restart=on-failure "CapabilityBoundingSet=" \
    "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6" SystemCallFilter=@system-service; do
    grep -qx -- "$want" "$unit" || fail "$unit lacks $want"
done
if command -v systemd-analyze >/dev/null; then
    systemd-analyze verify --man=no "$unit" >"$WORK/verify.out" 2>&1 ||
        fail "systemd-analyze verify $unit: $(cat "$WORK/verify.out")"
    ! grep -qi "kixd.service" "$WORK/verify.out" ||
        fail "systemd-analyze verify complains: $(cat "$WORK/verify.out")"
    pass "systemd-analyze verify accepts the installed unit"
else
    echo "SKIP: systemd-analyze not installed (apt-get install systemd): unit not verified"
fi
# The unit's command line is one kixd accepts: pointed at a store that does
# not exist, it gets past the options and stops at the store (3, not 2).
execstart=$(sed -n 's/^ExecStart=//p' "$unit" |
    sed "s|/var/lib/kix/log|$WORK/no-store|; s|unix:///run/kix/|unix://$WORK/|; s|tcp://127.0.0.1:7420|tcp://127.0.0.1:$(free_port)|")
# shellcheck disable=SC2086
expect_status 3 $execstart
grep -q "kixd init" "$WORK/err" || fail "the unit's kixd did not stop at the missing store: $(cat "$WORK/err")"
pass "the unit's ExecStart is a kixd command line that kixd accepts"

# ---- the library, through an outside program -----------------------------------------
pc=$(find "$P" -path '*/pkgconfig/kix-verify.pc' 2>/dev/null | head -1)
so=$(find "$P" -name 'libkix-verify.so*' 2>/dev/null | head -1)
[ -n "$pc" ] || fail "no kix-verify.pc installed under $P"
[ -n "$so" ] || fail "kix-verify.pc is installed but no libkix-verify.so"
for f in kix.pc libkix.so libkix.a libkix-verify.a; do
    [ -n "$(find "$P" -name "$f" | head -1)" ] || fail "$f is not installed under $P"
done
for h in error buf encoding file sha256 version canon digest merkle note dsse receipt entry manifest \
    log log_txn store index resolve proto messages addr client rpc sync trust; do
    [ -f "$P/include/kix/$h.h" ] || fail "the public header kix/$h.h is not installed"
done
deps=$(ldd "$so") || fail "ldd $so"
for lib in liblmdb libuv libmsgpack; do
    ! grep -q "$lib" <<<"$deps" || fail "$so links $lib: $(grep "$lib" <<<"$deps")"
done
grep -q libcrypto <<<"$deps" || fail "$so does not link libcrypto (kix/sha256.h): $deps"
pass "libkix-verify.so needs no LMDB, libuv or msgpack; its SHA-256 is libcrypto's"

cp -r "$KIX_SRC/tools/examples" "$WORK/examples"
rm -f "$WORK/examples/verify_offline"
# a sanitized build (Debug) installs sanitized libraries: the program that
# links them needs the same runtime first
sanitize=""
! grep -q libasan <<<"$deps" || sanitize="-fsanitize=address,undefined"
# The build was configured for another prefix (CMAKE_INSTALL_PREFIX, by
# default /usr/local): the installed .pc files must name P all the same,
# found by pkg-config alone from PKG_CONFIG_PATH (issue 27 part 7).
configured=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$BUILD/CMakeCache.txt")
[ -n "$configured" ] && [ "$configured" != "$P" ] || fail "the build's CMAKE_INSTALL_PREFIX is '$configured'"
export PKG_CONFIG_PATH
PKG_CONFIG_PATH="$(dirname "$pc")"
for m in kix kix-verify; do
    for v in prefix libdir includedir; do
        got=$(pkg-config --variable="$v" "$m") || fail "pkg-config --variable=$v $m"
        [ "$(realpath -m "$got")" = "$(realpath -m "$P")" ] || [[ "$(realpath -m "$got")" == "$(realpath -m "$P")"/* ]] ||
            fail "$m.pc: $v is $got, not under the prefix installed to ($P)"
    done
    [ -f "$(pkg-config --variable=includedir "$m")/kix/digest.h" ] || fail "$m.pc: no kix/digest.h under its includedir"
done
pass "kix.pc and kix-verify.pc name the prefix installed to ($P), not the configured $configured"
CFLAGS="-O1 -g $sanitize" make -C "$WORK/examples" >"$WORK/make.log" 2>&1 ||
    { cat "$WORK/make.log" >&2; fail "tools/examples does not build against the installed kix-verify"; }
VERIFY="$WORK/examples/verify_offline"
pass "tools/examples builds with pkg-config kix-verify alone (PKG_CONFIG_PATH)"

# a program of the whole library (pkg-config kix) builds and runs too
cat >"$WORK/hello.c" <<'C'
#include <kix/version.h>
#include <stdio.h>
#include <string.h>
int main(void) {
    printf("%s\n", kix_version());
    return strcmp(kix_version(), KIX_VERSION_STRING) != 0;
}
C
# shellcheck disable=SC2046
cc -std=c11 $sanitize -o "$WORK/hello" "$WORK/hello.c" $(pkg-config --cflags --libs kix) \
    -Wl,-rpath,"$(pkg-config --variable=libdir kix)" 2>"$WORK/cc.err" ||
    fail "a program does not build with pkg-config kix: $(cat "$WORK/cc.err")"
[ "$("$WORK/hello")" = "$VERSION" ] || fail "the program built with pkg-config kix says '$("$WORK/hello")'"
pass "a program builds and runs with pkg-config kix alone"

# Each library exports exactly what the installed headers declare: no kix__
# internals, no unprefixed helpers, and every exported name is in a header.
declared=$(cat "$P"/include/kix/*.h | grep -o '\bkix_[A-Za-z0-9][A-Za-z0-9_]*' | sort -u)
for lib in libkix.so libkix-verify.so; do
    so=$(find "$P" -name "$lib" | head -1)
    exported=$(nm -D --defined-only "$so" | awk '{print $3}' | sort -u)
    stray=$(grep -v '^kix_[A-Za-z0-9]' <<<"$exported" | head -5 || true)
    [ -z "$stray" ] || fail "$lib exports names no header declares: $stray"
    undeclared=$(comm -23 <(echo "$exported") <(echo "$declared") | head -5)
    [ -z "$undeclared" ] || fail "$lib exports names its headers do not declare: $undeclared"
    echo "$lib exports $(wc -l <<<"$exported") functions and data, all declared in kix/*.h"
done
grep -q ' kix_log_open$' <<<"$(nm -D --defined-only "$(find "$P" -name libkix.so | head -1)")" ||
    fail "libkix.so does not export kix_log_open (kix/log.h)"
pass "libkix.so and libkix-verify.so export only what kix/*.h declares"

# A real log made with the installed programs, served by the installed kixd.
KIX="$P/bin/kix"
KIXD="$P/bin/kixd"
"$KIXD" init --store "$WORK/log" --admin-key "$WORK/log/admin.key" --origin kix.install/log >"$WORK/log.vkey" 2>/dev/null ||
    fail "kixd init"
export KIX_LOG_KEY="$WORK/log.vkey"
"$KIX" keygen --name alice --out "$WORK/alice" >/dev/null 2>&1 || fail "kix keygen"
"$KIX" key add --store "$WORK/log" --key "$WORK/log/admin.key" --role publish \
    "$WORK/alice.pub" >/dev/null || fail "kix key add"
start_kixd "$WORK/log"
make_manifests "$WORK/m1" 1
make_manifests "$WORK/m2" 2
expect_status 0 "$KIX" publish --server "$KIXD_ADDR" --key "$WORK/alice.key" --json \
    "$WORK/m1/run.json" "$WORK/m1/workload.json"
cp "$WORK/out" "$WORK/pub1.json"
run=$(json_get "$WORK/pub1.json" 'd["runId"]')
index=$(json_get "$WORK/pub1.json" 'd["index"]')
expect_status 0 "$KIX" cite --server "$KIXD_ADDR" --json "$run"
cp "$WORK/out" "$WORK/citation.json"
size=$(json_get "$WORK/citation.json" 'd["checkpoint"]["size"]')
# the log grows after the citation: the receipt is asked for at the cited size
expect_status 0 "$KIX" publish --server "$KIXD_ADDR" --key "$WORK/alice.key" --json \
    "$WORK/m2/run.json" "$WORK/m2/workload.json"
expect_status 0 "$KIX" receipt --server "$KIXD_ADDR" "$index" --size "$size"
cp "$WORK/out" "$WORK/cited.receipt"
expect_status 0 "$KIX" receipt --server "$KIXD_ADDR" "$index"
cp "$WORK/out" "$WORK/latest.receipt"
expect_status 0 "$KIX" receipt --server "$KIXD_ADDR" 1
cp "$WORK/out" "$WORK/other.receipt"
stop_kixd

expect_status 0 "$VERIFY" "$WORK/log.vkey" "$WORK/latest.receipt"
grep -q "^receipt verified" "$WORK/out" || fail "no 'receipt verified' line: $(cat "$WORK/out")"
expect_status 0 "$VERIFY" "$WORK/log.vkey" "$WORK/cited.receipt" "$WORK/citation.json"
grep -q "^citation verified: run $run" "$WORK/out" || fail "no 'citation verified' line: $(cat "$WORK/out")"
pass "verify_offline verifies a receipt and a citation of a real log"

# one byte of the receipt's entry changed (still valid base64): not verified
python3 - "$WORK/latest.receipt" "$WORK/tampered.receipt" <<'EOF'
import sys
lines = open(sys.argv[1], "rb").read().split(b"\n")
assert lines[1].startswith(b"extra "), lines[1][:20]
i = len(b"extra ") + len(lines[1][6:]) // 2
lines[1] = lines[1][:i] + (b"B" if lines[1][i:i + 1] != b"B" else b"C") + lines[1][i + 1:]
open(sys.argv[2], "wb").write(b"\n".join(lines))
EOF
expect_status 1 "$VERIFY" "$WORK/log.vkey" "$WORK/tampered.receipt"
grep -q "^NOT VERIFIED" "$WORK/out" || fail "no 'NOT VERIFIED' line for a tampered receipt"
# the receipt of another entry, or at another size, does not prove the citation
expect_status 1 "$VERIFY" "$WORK/log.vkey" "$WORK/other.receipt" "$WORK/citation.json"
expect_status 1 "$VERIFY" "$WORK/log.vkey" "$WORK/latest.receipt" "$WORK/citation.json"
# a citation whose digest was changed does not verify
python3 - "$WORK/citation.json" "$WORK/bad-citation.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["digest"] = "sha256:" + ("0" * 64)
json.dump(d, open(sys.argv[2], "w"))
EOF
expect_status 1 "$VERIFY" "$WORK/log.vkey" "$WORK/cited.receipt" "$WORK/bad-citation.json"
# another log's key verifies nothing
"$KIXD" init --store "$WORK/log2" --admin-key "$WORK/log2/admin.key" --origin kix.install/log >"$WORK/other.vkey" 2>/dev/null
expect_status 1 "$VERIFY" "$WORK/other.vkey" "$WORK/latest.receipt"
expect_status 2 "$VERIFY" "$WORK/log.vkey"
pass "verify_offline rejects a tampered receipt, a wrong receipt or digest, another key"
