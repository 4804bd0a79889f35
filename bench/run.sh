#!/usr/bin/env bash
# bench/run.sh: generate large ETDumps with etprof-gen and time etprof on them against the read
# limit (cat) and the Python Inspector's first two steps (flatc -> JSON, json.load).
# Prints a Markdown table and writes it, with the command line, machine and date, to
# bench/RESULTS.md. See bench/README.md.
#
# Environment:
#   BENCH_BIG=1            also 500M and 2G files (needs ~8 GB of disk in bench/out)
#   BENCH_RUNS=N           timed runs per measurement (default 5, at least; hyperfine adds runs
#                          for fast commands), after one warm-up run that also measures peak RSS
#   BENCH_BASELINE_RUNS=N  timed runs of the slow flatc+json baseline (default 3)
#   BENCH_BASELINE_RUNS_BIG=N  the same for files above 100 MB (default 1: one run takes minutes,
#                          and its spread is small next to the ratios reported)
#   BENCH_JSONL_RUNS=N     timed runs of `etprof events --format jsonl` (default 1: it writes
#                          about 10x the file)
#   BENCH_STYLES="qnn cpu mixed"   subset of styles
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
SIZES=(50M)
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
HAVE_HYPERFINE=0
command -v hyperfine >/dev/null 2>&1 && HAVE_HYPERFINE=1
HAVE_TIME=0
[ -x /usr/bin/time ] && /usr/bin/time -f %M true >/dev/null 2>&1 && HAVE_TIME=1

# median_seconds NRUNS EXACT CMD...: median wall time (output discarded). The caller has already
# run CMD once (the warm-up). EXACT=0 lets hyperfine add runs for fast commands (--min-runs).
median_seconds() {
  local n=$1 exact=$2
  shift 2
  if [ "$HAVE_HYPERFINE" = 1 ]; then
    local q runs=(--min-runs "$n")
    [ "$exact" = 1 ] && runs=(--runs "$n")
    q=$(printf '%q ' "$@")
    hyperfine --shell bash --style none "${runs[@]}" --export-json "$TMP/hf.json" "$q" \
      >/dev/null 2>&1 || return 1
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["median"])' "$TMP/hf.json"
  else
    local i t0 t1
    for ((i = 0; i < n; i++)); do
      t0=$(date +%s.%N)
      "$@" >/dev/null 2>&1 || return 1
      t1=$(date +%s.%N)
      awk -v a="$t1" -v b="$t0" 'BEGIN{printf "%.6f\n", a-b}'
    done | sort -g | awk '{v[NR]=$1} END{print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'
  fi
}

ROWS=()   # file|label|median seconds or skip/fail text|peak RSS MiB|
# measure FILE LABEL NRUNS EXACT CMD...: one warm-up run under /usr/bin/time (peak RSS of the
# largest process), then the timed runs.
measure() {
  local f=$1 label=$2 n=$3 exact=$4
  shift 4
  local med rss="n/a"
  if [ "$HAVE_TIME" = 1 ]; then
    /usr/bin/time -f %M -o "$TMP/rss" "$@" >/dev/null 2>&1 || { ROWS+=("$f|$label|fail||"); return; }
    rss=$(awk '{printf "%.1f", $1/1024}' "$TMP/rss")
  else
    "$@" >/dev/null 2>&1 || { ROWS+=("$f|$label|fail||"); return; }
  fi
  if ! med=$(median_seconds "$n" "$exact" "$@"); then
    note "$label on $(basename "$f") failed"
    ROWS+=("$f|$label|fail||")
    return
  fi
  ROWS+=("$f|$label|$med|$rss|")
  note "$(basename "$f"): $label ${med}s ${rss} MiB"
}

# The Python Inspector's first two steps: deserialize_from_etdump_flatcc pipes the bytes through
# flatc to JSON, then the JSON is loaded.
mkdir -p "$TMP/json"
cat >"$TMP/baseline.sh" <<EOF
#!/bin/sh
set -e
f=\$1
j=$TMP/json/\$(basename "\${f%.etdp}").json
flatc --json --strict-json --defaults-json --size-prefixed --raw-binary -o "$TMP/json" "$SCHEMA" -- "\$f"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "\$j"
rm -f "\$j"
EOF

for f in "${FILES[@]}"; do
  size=$(stat -c %s "$f")
  measure "$f" "cat (read limit)" "$RUNS" 0 sh -c 'cat "$1" >/dev/null' sh "$f"
  if ! command -v flatc >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
    ROWS+=("$f|flatc+json.load (Inspector baseline)|skip: flatc or python3 missing||")
  elif [ "$size" -gt "$BASELINE_MAX" ]; then
    ROWS+=("$f|flatc+json.load (Inspector baseline)|skip: above BENCH_BASELINE_MAX||")
  else
    bruns=$BASELINE_RUNS
    [ "$size" -gt 100000000 ] && bruns=$BASELINE_RUNS_BIG
    measure "$f" "flatc+json.load (Inspector baseline)" "$bruns" 1 sh "$TMP/baseline.sh" "$f"
  fi
  if [ -z "$ETPROF" ] || [ ! -x "$ETPROF" ]; then
    ROWS+=("$f|etprof|skip: etprof not built||")
    continue
  fi
  pte=${f%.etdp}.pte
  for cmd in "${ETPROF_CMDS[@]}"; do
    # with --pte if the command takes it, else without; exit 2 (usage) = not supported yet
    args=("$cmd" "$f" --pte "$pte" --format json -o /dev/null)
    rc=0
    "$ETPROF" "${args[@]}" >/dev/null 2>"$TMP/err" || rc=$?
    if [ "$rc" = 2 ]; then
      args=("$cmd" "$f" --format json -o /dev/null)
      rc=0
      "$ETPROF" "${args[@]}" >/dev/null 2>"$TMP/err" || rc=$?
    fi
    label="etprof ${args[*]}"
    label=${label//$OUT\//}
    if [ "$rc" = 2 ]; then
      ROWS+=("$f|etprof $cmd|skip: not supported (exit 2)||")
      continue
    elif [ "$rc" != 0 ]; then
      ROWS+=("$f|$label|fail: exit $rc ($(head -c 120 "$TMP/err" | tr '\n|' '  '))||")
      continue
    fi
    measure "$f" "$label" "$RUNS" 0 "$ETPROF" "${args[@]}"
  done
  # Every event as JSON Lines: the streaming writer over the whole file, the same work as the
  # baseline's flatc -> JSON step (and, for the 2G file, the memory bound without materialising).
  args=(events "$f" --pte "$pte" --format jsonl -o /dev/null)
  label="etprof ${args[*]}"
  measure "$f" "${label//$OUT\//}" "$JSONL_RUNS" 1 "$ETPROF" "${args[@]}"
done

# ---- report --------------------------------------------------------------------------------
cpu_model=$(awk -F': ' '/^model name/{print $2; exit}' /proc/cpuinfo 2>/dev/null || true)
mem=$(awk '/^MemTotal/{printf "%.1f GiB", $2/1048576}' /proc/meminfo 2>/dev/null || true)
{
  echo "# etprof benchmark results"
  echo
  echo "- command: \`$CMDLINE\`"
  echo "- date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "- machine: $(nproc) CPUs, ${cpu_model:-unknown CPU}, ${mem:-? RAM}, $(uname -sr)"
  echo "- load average (1/5/15 min): $LOAD_START at start, $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?') at end; other work on the machine inflates and scatters the timings"
  echo "- git: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo "- tools: $( [ -n "$ETPROF" ] && [ -x "$ETPROF" ] && "$ETPROF" --version 2>/dev/null | head -1 || echo 'etprof n/a'); $(flatc --version 2>/dev/null || echo 'flatc n/a'); $(python3 --version 2>&1); timing: $( [ "$HAVE_HYPERFINE" = 1 ] && hyperfine --version || echo 'date +%s.%N loop'), median of at least $RUNS runs (baseline: $BASELINE_RUNS, above 100 MB $BASELINE_RUNS_BIG; events --format jsonl: $JSONL_RUNS) after 1 warm-up; peak RSS: $( [ "$HAVE_TIME" = 1 ] && echo '/usr/bin/time -f %M' || echo 'n/a')"
  echo "- files: \`etprof-gen --style S --size SIZE --seed $SEED --pte P -o F\` in bench/out; warm page cache"
  echo
  echo "| file | size | tool / command | median s | GB/s | events/s | peak RSS MiB | speed-up vs flatc+json |"
  echo "|---|---|---|---|---|---|---|---|"
  for f in "${FILES[@]}"; do
    size=$(stat -c %s "$f")
    events=$(sed -n 's/^events=\([0-9]*\).*/\1/p' "$f.stats")
    base=""
    for r in "${ROWS[@]}"; do
      IFS='|' read -r rf rl rm rr _ <<<"$r"
      if [ "$rf" = "$f" ] && [ "${rl#flatc+json}" != "$rl" ] && [[ "$rm" =~ ^[0-9.]+$ ]]; then base=$rm; fi
    done
    for r in "${ROWS[@]}"; do
      IFS='|' read -r rf rl rm rr _ <<<"$r"
      [ "$rf" = "$f" ] || continue
      if [[ "$rm" =~ ^[0-9.e-]+$ ]]; then
        awk -v f="$(basename "$f")" -v sz="$size" -v l="$rl" -v m="$rm" -v ev="$events" -v rss="$rr" -v b="$base" 'BEGIN{
          eps = ev / m
          e = eps >= 1e6 ? sprintf("%.1f M", eps / 1e6) : eps >= 1e3 ? sprintf("%.1f k", eps / 1e3) : sprintf("%.0f", eps)
          printf "| %s | %.1f MB | `%s` | %.3f | %.3g | %s | %s | %s |\n", f, sz/1e6, l, m, sz/1e9/m, e, rss,
            (b == "" ? "n/a" : sprintf("%.1fx", b/m)) }'
      else
        printf '| %s | %.1f MB | `%s` | %s | | | | |\n' "$(basename "$f")" "$(echo "$size" | awk '{print $1/1e6}')" "$rl" "$rm"
      fi
    done
  done
  echo
  echo "GB/s = file bytes / 10^9 / median seconds; events/s = ETDump events (from etprof-gen's"
  echo "stats line) / median seconds; speed-up = baseline median / this median."
  echo
  # The memory bound of the issue: peak RSS <= file size + 64 MiB for every etprof row.
  over=0 checked=0
  for r in "${ROWS[@]}"; do
    IFS='|' read -r rf rl rm rr _ <<<"$r"
    [ "${rl#etprof }" != "$rl" ] && [[ "$rr" =~ ^[0-9.]+$ ]] || continue
    checked=$((checked + 1))
    size=$(stat -c %s "$rf")
    if awk -v r="$rr" -v s="$size" 'BEGIN{exit !(r > s/1048576 + 64)}'; then
      over=$((over + 1))
      echo "- memory bound exceeded: \`$rl\` peak RSS $rr MiB for a $(awk -v s="$size" 'BEGIN{printf "%.1f", s/1048576}') MiB file"
    fi
  done
  if [ "$checked" -gt 0 ] && [ "$over" = 0 ]; then
    echo "Memory bound (peak RSS <= file size + 64 MiB): met by all $checked etprof rows."
  fi
} >"$TMP/results.md"
cat "$TMP/results.md"
cp "$TMP/results.md" "$RESULTS"
note "wrote $RESULTS"
