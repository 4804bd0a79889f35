#!/bin/sh
# Builds etprof and runs the whole test suite:
#   1. warnings-as-errors build + ctest
#   2. the same suite under AddressSanitizer + UndefinedBehaviorSanitizer (clang-14)
#   3. the readers under valgrind
#   4. each libFuzzer target for FUZZ_SECONDS (default 30; 0 skips)
#   5. the fresh-machine check (scripts/check-fresh.sh): demo.sh and this script on a bare
#      Debian 12 root; needs root, skips with a message otherwise; ETPROF_FRESH=0 skips it
# Stages 2-5 can be skipped with ETPROF_QUICK=1 (for a fast local loop).
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh --test
jobs=$(nproc 2>/dev/null || echo 2)
# Debian's tools first (a python3 wrapper earlier in PATH would slow every test start).
export PATH="/usr/bin:/bin:$PATH"
t0=$(date +%s)
elapsed() { echo "   (stage done; $(( $(date +%s) - t0 )) s since the start)"; }

echo "== build and test (gcc, -Werror)"
cmake -S . -B build-test -G Ninja -DETPROF_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-test
ctest --test-dir build-test --output-on-failure -j "$jobs"
elapsed
ntests=$(ctest --test-dir build-test -N | sed -n 's/^Total Tests: //p')

if [ "${ETPROF_QUICK:-0}" = 1 ]; then echo "etprof: $ntests passed, 0 failed"; exit 0; fi

if [ -x scripts/check-sanitize.sh ]; then
    echo "== ASan + UBSan"
    scripts/check-sanitize.sh
    elapsed
fi
if [ -x scripts/check-valgrind.sh ]; then
    echo "== valgrind (on the stage-1 build: one compile less)"
    VALGRIND_BUILD_DIR=${VALGRIND_BUILD_DIR:-$(pwd)/build-test} scripts/check-valgrind.sh
    elapsed
fi
# Each target fuzzes FUZZ_SECONDS on every commit (the corpus and the regressions are also
# replayed by ctest, fuzz_replay_*, in stages 1 and 2); long campaigns are scripts/fuzz.sh --long.
export FUZZ_SECONDS=${FUZZ_SECONDS:-30}
if [ -x scripts/fuzz.sh ] && [ "$FUZZ_SECONDS" != 0 ]; then
    echo "== fuzzing ($FUZZ_SECONDS s per target)"
    scripts/fuzz.sh
    elapsed
fi
if [ -x scripts/check-fresh.sh ] && [ "${ETPROF_FRESH:-1}" != 0 ]; then
    echo "== fresh machine (README commands on a bare Debian 12 root)"
    scripts/check-fresh.sh
    elapsed
fi
echo "== all stages passed"
echo "etprof: $ntests passed, 0 failed"
