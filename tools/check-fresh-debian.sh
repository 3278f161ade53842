#!/usr/bin/env bash
# Proves tools/deps.sh on a fresh Debian 12: builds a minbase bookworm chroot
# with debootstrap, copies this source tree in (no build directories, no
# node_modules), runs tools/deps.sh there as a new user's first command
# would, then a Debug (ASan+UBSan, -Werror) build and a CTest subset, or the
# whole of tools/test.sh. A test that needs a program deps.sh forgot fails
# here, not on the next user's machine. Not part of CI: it downloads about
# 1 GB of packages and builds kix from scratch (OPERATING.md, "Checking a
# fresh Debian 12").
#
#   sudo bash tools/check-fresh-debian.sh            # CTest subset (below)
#   sudo KIX_FRESH_TESTS=all bash tools/check-fresh-debian.sh   # tools/test.sh
#
# Environment:
#   KIX_FRESH_DIR     the chroot (default /var/tmp/kix-fresh-debian); made anew
#                     each time unless KIX_FRESH_REUSE=1 keeps an existing one
#                     (deps.sh then runs again on the packages it left)
#   KIX_FRESH_MIRROR  the Debian mirror (default http://deb.debian.org/debian)
#   KIX_FRESH_TESTS   a CTest regex, or "all" for tools/test.sh
#                     (default: the unit and style tests and the tests that
#                     call outside programs: /usr/bin/time, nginx, openssl,
#                     node, chromium, man, systemd-analyze, Python modules)
#   KIX_FRESH_CA      PEM files (space-separated) the chroot must trust too:
#                     behind a TLS-inspecting proxy, npm ci (tests/browser)
#                     fails with SELF_SIGNED_CERT_IN_CHAIN without its CA
# Needs root (debootstrap, chroot, mounts) and debootstrap (apt-get install
# debootstrap). Prints each phase's time; exits with the failing phase's code.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
root=${KIX_FRESH_DIR:-/var/tmp/kix-fresh-debian}
mirror=${KIX_FRESH_MIRROR:-http://deb.debian.org/debian}
tests=${KIX_FRESH_TESTS:-'^(unit\.|style\.|js\.|integration\.(install|readme_.*|resolve_100k|http_source|http_json|tlog_witness_https|smt_python|vindex_python|independent_verify|schema_differential|bench_quick)$)'}

[ "$(id -u)" -eq 0 ] || { echo "check-fresh-debian: run as root (debootstrap and chroot)" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "check-fresh-debian: apt-get install debootstrap" >&2; exit 2; }

phase_start=$SECONDS
phase() {
    echo "== $(date -u +%H:%M:%S) [+$((SECONDS - phase_start)) s] $*" >&2
}
# /dev (with /dev/pts and /dev/shm: chromium needs both) as arch-chroot
# does: a recursive bind made a slave, so nothing mounted or unmounted in
# the chroot reaches this machine's /dev
mounted=()
cleanup() {
    local i
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -R -l "${mounted[i]}" 2>/dev/null || true; done
}
trap cleanup EXIT
if [ "${KIX_FRESH_REUSE:-0}" = 1 ] && [ -x "$root/usr/bin/apt-get" ]; then
    phase "reusing the chroot $root"
else
    case "$root" in /|/usr|/var|/tmp|/var/tmp) echo "check-fresh-debian: refusing KIX_FRESH_DIR=$root" >&2; exit 2 ;; esac
    rm -rf --one-file-system "$root"
    phase "debootstrap --variant=minbase bookworm $root $mirror"
    debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.debootstrap.log" 2>&1 ||
        { tail -20 "$root.debootstrap.log" >&2; echo "check-fresh-debian: debootstrap failed (log: $root.debootstrap.log)" >&2; exit 1; }
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"
# ca-certificates (installed by deps.sh) adds these to the system's store;
# node reads them through NODE_EXTRA_CA_CERTS
extra_ca=""
if [ -n "${KIX_FRESH_CA:-}" ]; then
    mkdir -p "$root/usr/local/share/ca-certificates"
    cat $KIX_FRESH_CA >"$root/usr/local/share/ca-certificates/kix-fresh-extra.crt"
    extra_ca=NODE_EXTRA_CA_CERTS=/usr/local/share/ca-certificates/kix-fresh-extra.crt
    [ ! -x "$root/usr/sbin/update-ca-certificates" ] || chroot "$root" update-ca-certificates >/dev/null
fi
mkdir -p "$root/proc" "$root/sys" "$root/dev"
mount -t proc proc "$root/proc" && mounted+=("$root/proc")
mount -t sysfs sysfs "$root/sys" && mounted+=("$root/sys")
mount --rbind /dev "$root/dev" && mounted+=("$root/dev") && mount --make-rslave "$root/dev"

phase "copying $src to $root/kix"
rm -rf "$root/kix" && mkdir -p "$root/kix"
tar -C "$src" --exclude='./build' --exclude='./build-*' --exclude='./var' --exclude='./.git' \
    --exclude='node_modules' --exclude='__pycache__' -cf - . | tar -C "$root/kix" -xf -

# A login shell's environment, nothing inherited from this machine's.
in_chroot() {
    chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb $extra_ca \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin bash -c "cd /kix && $1"
}
phase "tools/deps.sh"
in_chroot 'bash tools/deps.sh'
if [ "$tests" = all ]; then
    phase "tools/test.sh (Release, fuzz, Debug, every CTest entry)"
    in_chroot 'bash tools/test.sh'
else
    phase "Debug build (ASan+UBSan, -Werror)"
    in_chroot 'cmake -S . -B build-debug -DCMAKE_BUILD_TYPE=Debug -DKIX_WERROR=ON >/dev/null &&
               cmake --build build-debug -j"$(nproc)" >build-debug.log 2>&1 || { tail -40 build-debug.log; exit 1; }'
    phase "ctest -R '$tests'"
    in_chroot "cd build-debug && ctest --output-on-failure -j\"\$(nproc)\" -R '$tests'"
fi
phase "passed: tools/deps.sh installs what the build and these tests need on a fresh Debian 12"
