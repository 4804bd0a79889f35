#!/bin/sh
# Installs, from Debian's packages only, what etprof needs to build and test.
# Usage: scripts/install-deps.sh [--test]   (--test adds the test-only tools)
set -eu
build_pkgs="build-essential cmake ninja-build pkg-config libjansson-dev"
test_pkgs="flatbuffers-compiler jq python3 clang-14 libclang-rt-14-dev llvm-14 valgrind time chromium"
pkgs=$build_pkgs
[ "${1:-}" = "--test" ] && pkgs="$pkgs $test_pkgs"

missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
echo "installing:$missing" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
