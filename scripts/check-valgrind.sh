#!/usr/bin/env bash
# scripts/check-valgrind.sh - runs the readers under valgrind (memcheck, full leak check): the
# fuzz replay drivers over their corpora, regressions and golden errors, the reader tests, and
# `etprof info` / `etprof events` on every corpus file. Any memcheck error or leak fails.
#
# Environment: VALGRIND_BUILD_DIR (default build-valgrind), VALGRIND_EVENTS_MAX (largest file, in
# bytes, that `events` runs on; default 4 MiB: every corpus ETDump).
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${VALGRIND_BUILD_DIR:-$root/build-valgrind}
case $build in /*) ;; *) build=$(pwd)/$build ;; esac # the runs below change directory
events_max=${VALGRIND_EVENTS_MAX:-4194304}
command -v valgrind >/dev/null || { echo "check-valgrind.sh: valgrind not found (apt-get install valgrind)" >&2; exit 1; }
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)

if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S "$root" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null || exit 1
fi
cmake --build "$build" --parallel 2 >/dev/null || cmake --build "$build" || exit 1

data=$root/tests/data
log=$build/valgrind.log
: >"$log"
vg=(valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect,possible
    --errors-for-leak-kinds=definite,indirect,possible --track-origins=yes)
runs=0
failed=0

run() { # expected-exit-codes... -- command...
    local ok=() rc
    while [ "$1" != -- ]; do ok+=("$1"); shift; done
    shift
    runs=$((runs + 1))
    echo "== $*" >>"$log"
    "${vg[@]}" "$@" >/dev/null 2>>"$log"
    rc=$?
    for c in "${ok[@]}"; do [ "$rc" = "$c" ] && return 0; done
    failed=$((failed + 1))
    echo "FAIL (exit $rc): $*"
}

# The fuzz targets' replay drivers: every corpus file, regression and golden error.
for t in "$build"/fuzz/fuzz_*_replay; do
    name=$(basename "$t" _replay)
    name=${name#fuzz_}
    run 0 -- "$t" "$root/fuzz/corpus/$name" "$root/fuzz/regressions/$name" "$root/tests/golden_errors"
done
# The reader tests, when built.
[ -x "$build/tests/test_readers" ] && run 0 -- "$build/tests/test_readers" "$data"

# The command on every corpus file (ETDumps with their program where the corpus has one).
pte_for() {
    case "$1" in
        */add_pte_*|*/executor_runner_add_pte_*) echo "$data/upstream/add.pte" ;;
        */bundled_program_*) echo "$data/upstream/bundled_program.bpte" ;;
        */stories260k_qnn_*) echo "$data/upstream/stories260k_hybrid_llama_qnn.pte" ;;
        */mobilenet_v2_ethosu_N_*) echo "$data/ethosu-partial-delegation/pte/mobilenet_v2_ethosu_N.pte" ;;
        */mobilenet_v2_ethosu_single_*) echo "$data/ethosu-partial-delegation/pte/mobilenet_v2_ethosu.pte" ;;
    esac
}
while IFS= read -r f; do
    run 0 -- "$build/etprof" info "$f"
    case "$f" in
        *.etdp)
            pte=$(pte_for "$f")
            [ -n "$pte" ] && run 0 -- "$build/etprof" info "$f" --pte "$pte"
            if [ "$(stat -c %s "$f")" -le "$events_max" ]; then
                run 0 -- "$build/etprof" events "$f" --format jsonl
                [ -n "$pte" ] && run 0 -- "$build/etprof" events "$f" --pte "$pte" --format json
            fi
            ;;
    esac
done < <(find "$data" -type f \( -name '*.etdp' -o -name '*.pte' -o -name '*.bpte' \) | sort)
# Rejections free what they allocated too: every golden error case, run in a scratch copy.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp "$root"/tests/golden_errors/* "$scratch"/
mkdir "$scratch/a_directory"
cd "$scratch" || exit 1
while IFS=$'\t' read -r code args _; do
    case "$code" in '#'* | '') continue ;; esac
    read -r -a argv <<<"$args"
    run "$code" -- "$build/etprof" "${argv[@]}"
done <cases.txt
cd "$root" || exit 1

echo "check-valgrind.sh: $runs runs under valgrind memcheck, $failed failed (log: $log)"
[ "$failed" -eq 0 ]
