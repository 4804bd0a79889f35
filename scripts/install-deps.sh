#!/bin/sh
# Installs, from Debian's packages only, what etprof needs to build and test.
# Usage: scripts/install-deps.sh [--test | --bench]
#   --test   adds the test-only tools (debootstrap: scripts/check-fresh.sh; python3-dev,
#            python3-setuptools, python3-pytest, python3-pandas, python3-numpy, python3-pip,
#            python3-venv, python3-wheel (pip install ./python, tests/python_pip.sh): the Python
#            package, docs/python.md; clickhouse-server, clickhouse-client: the fleet export
#            loaded into a real ClickHouse, docs/export.md)
#   --bench  adds what bench/run.sh uses: flatc and python3 (the Inspector baseline, and the
#            interleaved timer bench/measure.py) and GNU time (peak RSS)
set -eu
build_pkgs="build-essential cmake ninja-build pkg-config libjansson-dev zlib1g-dev libzip-dev libsqlite3-dev libprotobuf-c-dev protobuf-c-compiler"
test_pkgs="flatbuffers-compiler protobuf-compiler jq python3 clang-14 libclang-rt-14-dev llvm-14 valgrind time chromium debootstrap python3-dev python3-setuptools python3-pytest python3-pandas python3-numpy python3-pip python3-venv python3-wheel clickhouse-server clickhouse-client"
bench_pkgs="flatbuffers-compiler python3 time"
pkgs=$build_pkgs
case "${1:-}" in
    --test) pkgs="$pkgs $test_pkgs" ;;
    --bench) pkgs="$pkgs $bench_pkgs" ;;
    "") ;;
    *) echo "usage: scripts/install-deps.sh [--test | --bench]" >&2; exit 2 ;;
esac

missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
echo "installing:$missing" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
