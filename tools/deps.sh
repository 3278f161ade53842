#!/usr/bin/env bash
# Installs the Debian packages kix needs to build and test, only those missing.
# (nginx-light, redis-server: the referees kix-bench measures kixd against; chromium: the browser tests; nodejs: kix-verify.js's tests;
# time: /usr/bin/time measures integration.resolve_100k's memory; openssl: the TLS tests' certificates;
# ca-certificates: npm ci and https reads; zsh: integration.options parses the zsh completion). tools/check-fresh-debian.sh proves this list on a fresh Debian 12.
set -euo pipefail
packages=(build-essential cmake pkg-config clang clang-format
          python3 python3-nacl python3-jsonschema liblmdb-dev libsodium-dev libssl-dev libmsgpack-dev libuv1-dev libjansson-dev lmdb-utils
          man-db groff-base systemd zsh
          libhttp-parser-dev libcurl4-openssl-dev golang-go golang-golang-x-mod-dev nginx-light curl
          redis-server time openssl ca-certificates
          chromium nodejs)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "kix: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# The browser tests' test-only npm packages (tests/browser/package.json:
# puppeteer-core drives the chromium above, axe-core checks accessibility),
# installed into tests/browser/node_modules exactly as package-lock.json
# pins them; again only when the lock file changed. npm comes with
# nodesource's nodejs; Debian's nodejs needs Debian's npm.
if ! command -v npm >/dev/null 2>&1; then
  echo "kix: installing npm" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq npm >/dev/null
fi
browser="$(cd "$(dirname "$0")/.." && pwd)/tests/browser"
if ! cmp -s "$browser/package-lock.json" "$browser/node_modules/.kix-installed-lock"; then
  echo "kix: installing tests/browser's npm packages (npm ci)" >&2
  (cd "$browser" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null)
  cp "$browser/package-lock.json" "$browser/node_modules/.kix-installed-lock"
fi
