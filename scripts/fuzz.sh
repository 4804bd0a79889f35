#!/usr/bin/env bash
# scripts/fuzz.sh - builds the libFuzzer targets (fuzz/fuzz_*.c) with clang-14 and
# -fsanitize=fuzzer,address,undefined, then runs each for FUZZ_SECONDS (default 60) seconds.
# Fails on any crash, contract violation, leak, timeout or out-of-memory.
#
#   scripts/fuzz.sh [--long] [--update-corpus] [--runs N] [TARGET...]
#                                        default: every target listed in fuzz/CMakeLists.txt
#   --long           a campaign: FUZZ_SECONDS defaults to 900 per target, and --update-corpus
#   --runs N         stop each target after N executions (libFuzzer -runs), or FUZZ_SECONDS,
#                    whichever comes first: a campaign of a known size (docs/verifier.md)
#   --update-corpus  after fuzzing, merge what the run found into fuzz/corpus/TARGET, minimised
#                    (libFuzzer -merge=1: only inputs that add coverage are copied; commit them,
#                    so that the corpus accumulates and every later run starts from it)
#
# Environment:
#   FUZZ_SECONDS    seconds per target (default 60)
#   FUZZ_CC         compiler (default clang-14; Debian: apt-get install clang-14 libclang-rt-14-dev)
#   FUZZ_BUILD_DIR  build directory (default build-fuzz)
#   FUZZ_TIMEOUT    seconds one input may take before it counts as a hang (default 10)
#   FUZZ_RSS_MB     memory limit in MB (default 2048)
#   FUZZ_JOBS       parallel fuzzing processes per target (default 1)
#
# The growing corpus lives in $FUZZ_BUILD_DIR/corpus-work/TARGET (seeded from fuzz/corpus/TARGET
# and fuzz/regressions/TARGET, which are only read). A crashing input is saved under
# $FUZZ_BUILD_DIR/artifacts/TARGET/; once fixed, copy it into fuzz/regressions/TARGET/ so that
# ctest replays it on every machine from then on.
set -euo pipefail

long=0
update=0
runs=
while [ $# -gt 0 ]; do
    case $1 in
    --long) long=1; update=1; shift ;;
    --update-corpus) update=1; shift ;;
    --runs) [ $# -ge 2 ] || { echo "fuzz.sh: --runs needs a count" >&2; exit 2; }
            runs=$2; shift 2 ;;
    --) shift; break ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
    esac
done
[ "$long" = 1 ] && : "${FUZZ_SECONDS:=900}"
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FUZZ_BUILD_DIR:-$root/build-fuzz}
secs=${FUZZ_SECONDS:-60}
cc=${FUZZ_CC:-clang-14}
timeout=${FUZZ_TIMEOUT:-10}
rss=${FUZZ_RSS_MB:-2048}
jobs=${FUZZ_JOBS:-1}

die() { echo "fuzz.sh: $*" >&2; exit 1; }

command -v "$cc" >/dev/null || die "$cc not found (Debian: apt-get install clang-14 libclang-rt-14-dev)"
resdir=$("$cc" -print-resource-dir)
ls "$resdir"/lib/linux/libclang_rt.fuzzer-x86_64.a "$resdir"/lib/linux/libclang_rt.fuzzer-*.a \
    >/dev/null 2>&1 || die "libFuzzer runtime not found under $resdir (apt-get install libclang-rt-14-dev)"

if [ $# -gt 0 ]; then
    targets=("$@")
else
    # The list in fuzz/CMakeLists.txt: the words between "set(ETPROF_FUZZ_TARGETS" and ")".
    mapfile -t targets < <(sed -n '/^set(ETPROF_FUZZ_TARGETS/,/^)/{s/#.*//;p}' "$root/fuzz/CMakeLists.txt" |
                           tr ' ()' '\n\n\n' | grep -v -e '^set$' -e '^ETPROF_FUZZ_TARGETS$' -e '^$')
fi
[ ${#targets[@]} -gt 0 ] || die "no fuzz targets"

gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S "$root" -B "$build" "${gen[@]}" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
          -DETPROF_FUZZ=ON -DETPROF_SANITIZE=ON -DETPROF_TESTS=OFF >/dev/null
fi
# only the targets to run (not the replay drivers, the command and the tools of a full build)
fuzz_bins=("${targets[@]/#/fuzz_}")
cmake --build "$build" --parallel 2 --target "${fuzz_bins[@]}" >/dev/null ||
    cmake --build "$build" --target "${fuzz_bins[@]}" # again, to show the errors

# Dictionaries: magic numbers and names the readers and the model compare against.
dict_etdump() {
    printf '%s\n' '"ED00"' '"ET12"' '"BP08"' '"eh00"' '"OPERATOR_CALL"' '"DELEGATE_CALL"' \
        '"Method::execute"' '"Method::init"' '"Program::load_method"' '"Method::step"' \
        '"JF_CALL"' '"MOVE_CALL"' '"FREE_CALL"' '"native_call_"' '"Execute"' '" (cycles)"' \
        '" (us)"' '" (count)"' '" (bytes)"' '":OpId_"' '"Input OpId_"' '"Output OpId_"' \
        '"OpId_"' '"QNN (execute) time (us)"' '"Accelerator (execute) time (cycles)"' \
        '"Time for initial VTCM acquire (us)"' '"\x00\x00\x00\x00"' '"\xff\xff\xff\xff"' \
        '"\x01\x00\x00\x00"' '"\x04\x00"' '"\x08\x00"'
}
dict_pte() {
    printf '%s\n' '"ET12"' '"BP08"' '"eh00"' '"ED00"' '"forward"' '"QnnBackend"' \
        '"EthosUBackend"' '"aten::add"' '"out"' '"\x00\x00\x00\x00"' '"\xff\xff\xff\xff"' \
        '"\x01\x00\x00\x00"' '"\x04\x00"' '"\x08\x00"' '"\x01"' '"\x02"' '"\x05"'
}
dict_qnn() {
    printf '%s\n' '"artifact_type"' '"QHAS"' '"OP_TRACE"' '"RUN_TRACE"' '"header"' '"version"' \
        '"data"' '"traceEvents"' '"ph"' '"X"' '"M"' '"C"' '"ts"' '"dur"' '"pid"' '"tid"' '"args"' \
        '"name"' '"ID"' '"QNN Op Name"' '"Flags"' '"htp_overall_summary"' '"htp_op_instances"' \
        '"qnn_op_instances_nodes"' '"dominant_path_htp_0"' '"cycles"' '"op_id"' '"0x"' \
        '"HMX"' '"HVX"' '"Execute Stat"' '"Init Stats"' '"NetRun:"' '"(cycles)"' '"(us)"' \
        '"OpId_"' '"Msg Timestamp,"' '"EXECUTE"' '"SUB-EVENT"' '"DSP:before_context_created"' \
        '"DSP:after_context_freed"' '"Graph Execute"' '"QNN DSP Execute"' '"null"' '"true"'
}

# The command runs every input as an ETDump, a program and a QNN file: all of the above.
dict_cli() {
    { dict_etdump; dict_pte; dict_qnn; } | sort -u
}

status=0
summary=()
for t in "${targets[@]}"; do
    bin=$build/fuzz/fuzz_$t
    [ -x "$bin" ] || die "no fuzz target binary $bin"
    work=$build/corpus-work/$t
    art=$build/artifacts/$t
    log=$build/fuzz-$t.log
    mkdir -p "$work" "$art"
    dictopt=()
    if declare -F "dict_$t" >/dev/null; then
        "dict_$t" >"$build/$t.dict"
        dictopt=(-dict="$build/$t.dict")
    fi
    seeds=("$root/fuzz/corpus/$t")
    [ -d "$root/fuzz/regressions/$t" ] && seeds+=("$root/fuzz/regressions/$t")
    seeds+=("$root/tests/golden_errors") # crafted invalid files of every kind
    echo "fuzz.sh: fuzz_$t for ${secs}s (log: $log)"
    rc=0
    extra=()
    [ "$jobs" -gt 1 ] && extra=(-jobs="$jobs" -workers="$jobs")
    [ -n "$runs" ] && extra+=(-runs="$runs")
    ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        "$bin" -max_total_time="$secs" -timeout="$timeout" -rss_limit_mb="$rss" \
            -malloc_limit_mb="$rss" -use_value_profile=1 -print_final_stats=1 \
            -artifact_prefix="$art/" "${dictopt[@]}" "${extra[@]}" "$work" "${seeds[@]}" \
            >"$log" 2>&1 || rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    edges=$(sed -n 's/^INFO: Loaded 1 modules *(\([0-9]*\) inline 8-bit counters).*/\1/p' "$log" | head -1)
    [ -n "$edges" ] && cov="$cov/$edges"
    ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    corp=$(grep -o 'corp: [0-9]*/[0-9]*[a-zA-Z]*' "$log" | tail -1 | cut -d' ' -f2)
    line=$(printf '%-8s execs %-9s exec/s %-6s cov %-10s ft %-6s corpus %s' "$t" "${execs:-?}" \
           "${eps:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}")
    if [ $rc -ne 0 ]; then
        status=1
        line="$line  FAILED (exit $rc)"
        echo "fuzz.sh: fuzz_$t failed (exit $rc); the report:" >&2
        grep -E -A30 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|contract violated|Test unit written' \
            "$log" | head -80 >&2 || tail -40 "$log" >&2
        ls "$art" >&2
    fi
    if [ "$update" = 1 ] && [ $rc -eq 0 ]; then
        before=$(ls "$root/fuzz/corpus/$t" | wc -l)
        ASAN_OPTIONS=detect_leaks=0 "$bin" -merge=1 -timeout="$timeout" -rss_limit_mb="$rss" \
            "$root/fuzz/corpus/$t" "$work" >"$build/merge-$t.log" 2>&1 ||
            { echo "fuzz.sh: merging into fuzz/corpus/$t failed (log: $build/merge-$t.log)" >&2; status=1; }
        after=$(ls "$root/fuzz/corpus/$t" | wc -l)
        line="$line  corpus/$t: $before -> $after files"
    fi
    summary+=("$line")
done
echo "fuzz.sh: results (${secs}s per target${runs:+ or $runs executions}, $cc, -fsanitize=fuzzer,address,undefined):"
printf '  %s\n' "${summary[@]}"
exit $status
