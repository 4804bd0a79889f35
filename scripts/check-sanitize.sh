#!/usr/bin/env bash
# scripts/check-sanitize.sh - builds etprof with -DETPROF_SANITIZE=ON (ASan + UBSan, every
# finding fatal) and runs the whole ctest suite with it: the readers, the CLI, the fuzz replays
# and mutation tests, the golden errors.
#
#   scripts/check-sanitize.sh [ctest arguments...]
#
# Environment: SANITIZE_CC (default clang-14 when installed, else gcc), SANITIZE_BUILD_DIR
# (default build-asan), SANITIZE_JOBS (tests run at once; default: the CPU count, as in the gcc
# stage: every test has its own temporary files).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${SANITIZE_BUILD_DIR:-$root/build-asan}
cc=${SANITIZE_CC:-}
if [ -z "$cc" ]; then
    if command -v clang-14 >/dev/null; then cc=clang-14; else cc=gcc; fi
fi
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)

if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S "$root" -B "$build" "${gen[@]}" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
          -DETPROF_SANITIZE=ON -DETPROF_WERROR=ON
fi
cmake --build "$build" --parallel 2

# Leaks are errors; UBSan stops at the first finding; every report is fatal to the test.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
echo "check-sanitize.sh: $cc, ASan+UBSan, $build"
cd "$build"
ctest --output-on-failure -j "${SANITIZE_JOBS:-$(nproc 2>/dev/null || echo 2)}" "$@"
