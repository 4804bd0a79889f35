#!/bin/sh
# bench/export.sh - throughput of `etprof export` (issue 33): files/s and rows/s of the long op
# table (--format jsonl) and of the v3 records, on one core (one process, taskset -c 0) and on two
# (the files split between two processes, taskset -c 0 and -c 1: how a device farm runs etprof
# per file). Prints a Markdown table for bench/RESULTS.md.
# usage: bench/export.sh ETPROF ETPROF_GEN [NFILES] [BLOCKS]
set -eu
ETPROF=$1
GEN=$2
N=${3:-400}
B=${4:-20}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
i=0
while [ $i -lt "$N" ]; do
  "$GEN" --style mixed --nodes 40 --blocks "$B" --seed $((i + 1)) -q -o "$T/d$i.etdp"
  i=$((i + 1))
done
"$GEN" --style mixed --nodes 40 --blocks "$B" --seed 1 --pte "$T/m.pte" -q -o "$T/x.etdp"
bytes=$(cat "$T"/d*.etdp | wc -c)
META="--repo o/r --head-sha abc --workflow-id 1 --job-id 2 --run-attempt 1 --timestamp 1765000000"
now() { date +%s.%N; }
echo "| format | cores | files | rows | output MB | wall s | CPU s | files/s (wall) | rows/s (wall) | files per CPU s | rows per CPU s |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
# line FORMAT CORES ROWS OUTBYTES WALL CPU
line() {
  awk -v f="$1" -v c="$2" -v n="$N" -v r="$3" -v ob="$4" -v w="$5" -v cpu="$6" 'BEGIN {
    printf "| %s | %d | %d | %d | %.1f | %.2f | %.2f | %.0f | %.0f | %.0f | %.0f |\n", f, c, n, r, ob / 1e6, w, cpu, n / w, r / w, n / cpu, r / cpu }'
}
cpu_of() { awk '{ s += $1 + $2 } END { printf "%.3f", s }' "$@"; }
for fmt in jsonl v3; do
  extra=""
  [ "$fmt" = v3 ] && extra=$META
  # one core
  t0=$(now)
  # shellcheck disable=SC2086
  /usr/bin/time -o "$T/t1" -f "%U %S" taskset -c 0 "$ETPROF" export "$T"/d*.etdp --pte "$T/m.pte" --format $fmt $extra -q -o "$T/one.out"
  t1=$(now)
  line "$fmt" 1 "$(wc -l <"$T/one.out")" "$(wc -c <"$T/one.out")" "$(echo "$t1 - $t0" | bc)" "$(cpu_of "$T/t1")"
  # two cores: even and odd files
  ls "$T"/d*.etdp | awk 'NR % 2 == 1' >"$T/l0"
  ls "$T"/d*.etdp | awk 'NR % 2 == 0' >"$T/l1"
  t0=$(now)
  # shellcheck disable=SC2086,SC2046
  /usr/bin/time -o "$T/ta" -f "%U %S" taskset -c 0 "$ETPROF" export $(cat "$T/l0") --pte "$T/m.pte" --format $fmt $extra -q -o "$T/a.out" &
  p0=$!
  # shellcheck disable=SC2086,SC2046
  /usr/bin/time -o "$T/tb" -f "%U %S" taskset -c 1 "$ETPROF" export $(cat "$T/l1") --pte "$T/m.pte" --format $fmt $extra -q -o "$T/b.out" &
  p1=$!
  wait $p0
  wait $p1
  t1=$(now)
  line "$fmt" 2 "$(cat "$T/a.out" "$T/b.out" | wc -l)" "$(cat "$T/a.out" "$T/b.out" | wc -c)" \
    "$(echo "$t1 - $t0" | bc)" "$(cpu_of "$T/ta" "$T/tb")"
done
echo
echo "dumps: $N x etprof-gen --style mixed --nodes 40 --blocks $B ($bytes bytes); load average $(cut -d' ' -f1-3 /proc/loadavg)"
