#!/usr/bin/env bash
# bench/run.sh: generate large ETDumps with etprof-gen and time etprof on them against the read
# limit (cat) and the Python Inspector's first two steps (flatc -> JSON, json.load), interleaved
# in one invocation, wall and CPU time.
# Prints a Markdown table and writes it, with the command line, machine and date, to
# bench/RESULTS.md. See bench/README.md.
#
# Environment:
#   BENCH_BIG=1            also 500M and 2G files (needs ~8 GB of disk in bench/out)
#   BENCH_RUNS=N           interleaved rounds (default 5): each round times every command once,
#                          after one untimed warm-up of each (bench/measure.py)
#   BENCH_BASELINE_RUNS=N  rounds the slow flatc baselines take part in (default 3)
#   BENCH_BASELINE_RUNS_BIG=N  the same for files above 100 MB (default 1: one run takes minutes,
#                          and its spread is small next to the ratios reported)
#   BENCH_JSONL_RUNS=N     timed runs of `etprof events --format jsonl` (default 1: it writes
#                          about 10x the file)
#   BENCH_STYLES="qnn cpu mixed"   subset of styles
#   BENCH_SIZES="50M"      the base sizes (BENCH_BIG=1 adds 500M and 2G)
#   BENCH_BASELINE_MAX=B   skip the flatc+json baseline above B bytes (default 600000000:
#                          its JSON is ~4x the file and json.load needs ~3x that in RAM)
#   ETPROF=/path/etprof    etprof binary to use (default: build it in bench/out/build)
#   ETPROF_GEN=/path/etprof-gen
#   BENCH_RESULTS=FILE     where to write the results (default bench/RESULTS.md)
set -euo pipefail

# etprof commands to time; each runs as: $ETPROF <cmd> FILE [--pte P] --format json -o /dev/null
ETPROF_CMDS=("info" "ops" "tree" "summary")

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$ROOT/bench/out
BUILD=$OUT/build
SCHEMA=$ROOT/schema/etdump.fbs
RUNS=${BENCH_RUNS:-5}
BIG=${BENCH_BIG:-0}
STYLES=${BENCH_STYLES:-"qnn cpu mixed"}
BASELINE_MAX=${BENCH_BASELINE_MAX:-600000000}
BASELINE_RUNS=${BENCH_BASELINE_RUNS:-3}
BASELINE_RUNS_BIG=${BENCH_BASELINE_RUNS_BIG:-1}
JSONL_RUNS=${BENCH_JSONL_RUNS:-1}
RESULTS=${BENCH_RESULTS:-$ROOT/bench/RESULTS.md}
SEED=1
CMDLINE="$0 $*"
for v in BENCH_BIG BENCH_RUNS BENCH_BASELINE_RUNS BENCH_BASELINE_RUNS_BIG BENCH_JSONL_RUNS BENCH_STYLES BENCH_BASELINE_MAX ETPROF ETPROF_GEN; do
  if [ -n "${!v:-}" ]; then CMDLINE="$v=${!v} $CMDLINE"; fi
done

note() { printf '%s\n' "run.sh: $*" >&2; }
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
mkdir -p "$OUT"
TMP=$(mktemp -d "$OUT/tmp.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

# ---- (a) build -----------------------------------------------------------------------------
GEN=${ETPROF_GEN:-}
if [ -z "$GEN" ] || [ -z "${ETPROF:-}" ]; then
  note "building in $BUILD"
  if cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DETPROF_TESTS=OFF >"$TMP/cmake.log" 2>&1 &&
     cmake --build "$BUILD" --target etprof-gen >>"$TMP/cmake.log" 2>&1; then
    GEN=${GEN:-$BUILD/bench/etprof-gen}
    if [ -z "${ETPROF:-}" ]; then
      if cmake --build "$BUILD" --target etprof_cli >>"$TMP/cmake.log" 2>&1; then
        ETPROF=$BUILD/etprof
      else
        note "etprof did not build (see below); etprof rows are skipped"
        tail -n 20 "$TMP/cmake.log" >&2
      fi
    fi
  else
    # the whole tree does not configure or build: build the generator on its own
    note "top-level build failed, building the generator alone"
    cmake -S "$ROOT/bench" -B "$OUT/build-gen" -DCMAKE_BUILD_TYPE=Release >>"$TMP/cmake.log" 2>&1
    cmake --build "$OUT/build-gen" >>"$TMP/cmake.log" 2>&1 || { tail -n 30 "$TMP/cmake.log" >&2; exit 1; }
    GEN=${GEN:-$OUT/build-gen/etprof-gen}
  fi
fi
ETPROF=${ETPROF:-}
[ -x "$GEN" ] || { note "no etprof-gen at $GEN"; exit 1; }

# ---- generate ------------------------------------------------------------------------------
read -r -a SIZES <<<"${BENCH_SIZES:-50M}"
if [ "$BIG" = 1 ]; then SIZES+=(500M 2G); fi
declare -A STYLE_ARG=([qnn]=qnn-llm [cpu]=cpu [mixed]=mixed)
FILES=()
for size in "${SIZES[@]}"; do
  for s in $STYLES; do
    [ -n "${STYLE_ARG[$s]:-}" ] || { note "unknown style $s"; exit 2; }
    f=$OUT/$s-$size.etdp
    # regenerate when missing or older than the generator
    if [ ! -s "$f" ] || [ ! -s "$f.stats" ] || [ ! -s "${f%.etdp}.pte" ] || [ "$GEN" -nt "$f" ]; then
      note "generating $f"
      "$GEN" --style "${STYLE_ARG[$s]}" --size "$size" --seed "$SEED" --pte "${f%.etdp}.pte" \
        -o "$f" 2>"$f.stats"
    fi
    FILES+=("$f")
  done
done

# ---- (b) measure ---------------------------------------------------------------------------
# Per file, every command (the baselines and etprof's) is timed by bench/measure.py in one
# process, interleaved: each round runs each command once, in an order rotated every round, after
# one untimed warm-up of each; wall and CPU (user+system of the command and its children) medians
# and the peak RSS come from that one invocation, never from an earlier run. The slow baselines
# take part in fewer rounds.

# The Python Inspector's first two steps: deserialize_from_etdump_flatcc pipes the bytes through
# flatc to JSON, then the JSON is loaded. flatc alone is timed too.
mkdir -p "$TMP/json"
cat >"$TMP/flatc.sh" <<EOF
#!/bin/sh
set -e
f=\$1
j=$TMP/json/\$(basename "\${f%.etdp}").json
flatc --json --strict-json --defaults-json --size-prefixed --raw-binary -o "$TMP/json" "$SCHEMA" -- "\$f"
if [ "\${2:-}" = load ]; then python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "\$j"; fi
rm -f "\$j"
EOF

# spec_line LABEL MAX_RUNS ARGV...: one command of measure.py's spec as a JSON object (MAX_RUNS 0:
# every round)
spec_line() {
  python3 -c 'import json,sys
d = {"label": sys.argv[1], "argv": sys.argv[3:]}
if int(sys.argv[2]) > 0: d["max_runs"] = int(sys.argv[2])
print(json.dumps(d))' "$@"
}

RESULT_FILES=()   # one measure.py result per file, in FILES order
for f in "${FILES[@]}"; do
  size=$(stat -c %s "$f")
  lines=$TMP/spec-$(basename "$f").lines
  : >"$lines"
  spec_line "cat (read limit)" 0 sh -c 'cat "$1" >/dev/null' sh "$f" >>"$lines"
  if ! command -v flatc >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
    note "flatc or python3 missing: no baseline rows"
  elif [ "$size" -gt "$BASELINE_MAX" ]; then
    note "$(basename "$f"): above BENCH_BASELINE_MAX, no flatc baseline"
  else
    bruns=$BASELINE_RUNS
    [ "$size" -gt 100000000 ] && bruns=$BASELINE_RUNS_BIG
    spec_line "flatc to JSON" "$bruns" sh "$TMP/flatc.sh" "$f" >>"$lines"
    spec_line "flatc+json.load (Inspector baseline)" "$bruns" sh "$TMP/flatc.sh" "$f" load >>"$lines"
  fi
  if [ -n "$ETPROF" ] && [ -x "$ETPROF" ]; then
    pte=${f%.etdp}.pte
    for cmd in "${ETPROF_CMDS[@]}"; do
      # with --pte if the command takes it, else without; exit 2 (usage) = not supported
      args=("$cmd" "$f" --pte "$pte" --format json -o /dev/null)
      rc=0; "$ETPROF" "${args[@]}" >/dev/null 2>&1 || rc=$?
      [ "$rc" = 2 ] && args=("$cmd" "$f" --format json -o /dev/null)
      label="etprof ${args[*]}"
      spec_line "${label//$OUT\//}" 0 "$ETPROF" "${args[@]}" >>"$lines"
      # the analyses read large dumps on two threads (docs/analyses.md "Two threads"): ops also
      # on one, for the ratio
      if [ "$cmd" = ops ]; then
        spec_line "ETPROF_THREADS=1 ${label//$OUT\//}" 0 env ETPROF_THREADS=1 "$ETPROF" "${args[@]}" >>"$lines"
      fi
    done
    # Every event as JSON Lines: the streaming writer over the whole file, the same work as the
    # baseline's flatc -> JSON step (and, for the 2G file, the memory bound without materialising).
    args=(events "$f" --pte "$pte" --format jsonl -o /dev/null)
    label="etprof ${args[*]}"
    spec_line "${label//$OUT\//}" "$JSONL_RUNS" "$ETPROF" "${args[@]}" >>"$lines"
  fi
  spec=$TMP/spec-$(basename "$f").json
  python3 -c 'import json,sys; json.dump([json.loads(l) for l in open(sys.argv[1])], open(sys.argv[2], "w"))' "$lines" "$spec"
  note "measuring $(basename "$f"): $RUNS rounds, interleaved"
  python3 "$ROOT/bench/measure.py" "$spec" "$RUNS" "$spec.out"
  RESULT_FILES+=("$spec.out")
done

# ---- report --------------------------------------------------------------------------------
# bench/RESULTS.md: this script owns its first section (up to the first "## " heading); the
# other sections (memory, Python, writers) are kept as they are.
cpu_model=$(awk -F': ' '/^model name/{print $2; exit}' /proc/cpuinfo 2>/dev/null || true)
mem=$(awk '/^MemTotal/{printf "%.1f GiB", $2/1048576}' /proc/meminfo 2>/dev/null || true)
pairs=()
for i in "${!FILES[@]}"; do pairs+=("${FILES[$i]}" "${RESULT_FILES[$i]}"); done
{
  echo "# etprof benchmark results"
  echo
  echo "- command: \`$CMDLINE\`"
  echo "- date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "- machine: $(nproc) CPUs, ${cpu_model:-unknown CPU}, ${mem:-? RAM}, $(uname -sr)"
  echo "- load average (1/5/15 min): $LOAD_START at start, $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?') at end; other work on the machine inflates wall times (CPU times much less)"
  echo "- git: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo "- tools: $( [ -n "$ETPROF" ] && [ -x "$ETPROF" ] && "$ETPROF" --version 2>/dev/null | head -1 || echo 'etprof n/a'); $(flatc --version 2>/dev/null || echo 'flatc n/a'); $(python3 --version 2>&1); timing: bench/measure.py, $RUNS interleaved rounds after 1 warm-up (flatc baselines: $BASELINE_RUNS rounds, above 100 MB $BASELINE_RUNS_BIG; events --format jsonl: $JSONL_RUNS)"
  echo "- files: \`etprof-gen --style S --size SIZE --seed $SEED --pte P -o F\` in bench/out; warm page cache"
  echo
  python3 "$ROOT/bench/results_table.py" "${pairs[@]}"
  echo
} >"$TMP/results.md"
cat "$TMP/results.md"
if [ -f "$RESULTS" ] && grep -q '^## ' "$RESULTS"; then
  sed -n '/^## /,$p' "$RESULTS" >>"$TMP/results.md"
fi
cp "$TMP/results.md" "$RESULTS"
note "wrote $RESULTS"
