#!/bin/sh
# bench/instr.sh OLD_ETPROF NEW_ETPROF [SIZE] - instruction counts (valgrind callgrind) of
# `trace` and `events --format jsonl` for two etprof binaries on one generated QNN LLM dump, in
# the same run, with their ratio, and a byte comparison of the two outputs. Instruction counts do
# not depend on the load of the machine (a 2-core machine shared with builds gives the same
# figures), so this is the measure of the writers' work (issue 15); wall time is bench/run.sh's.
#   git worktree add /tmp/old REV && cmake -S /tmp/old -B /tmp/old/b -G Ninja && cmake --build /tmp/old/b
#   bench/instr.sh /tmp/old/b/etprof build/etprof 5M
set -eu
OLD=$1 NEW=$2 SIZE=${3:-5M}
cd "$(dirname "$0")/.."
GEN=$(dirname "$NEW")/bench/etprof-gen
[ -x "$GEN" ] || { echo "instr.sh: no $GEN (build the tree first)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "instr.sh: valgrind is missing" >&2; exit 2; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
"$GEN" --style qnn-llm --size "$SIZE" --pte "$T/q.pte" -o "$T/q.etdp" -q
count() { # binary, output, args...
    b=$1 out=$2; shift 2
    valgrind --tool=callgrind --callgrind-out-file="$T/cg" "$b" "$@" -o "$out" 2>"$T/err" >/dev/null
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$T/err"
}
echo "| command | old (instructions) | new (instructions) | old / new | output |"
echo "|---|---:|---:|---:|---|"
for c in trace events; do
    if [ $c = trace ]; then args="trace $T/q.etdp --pte $T/q.pte"; else args="events $T/q.etdp -f jsonl"; fi
    o=$(count "$OLD" "$T/old.out" $args); n=$(count "$NEW" "$T/new.out" $args)
    same=$(cmp -s "$T/old.out" "$T/new.out" && echo identical || echo DIFFERENT)
    echo "| $c ($SIZE QNN LLM dump) | $o | $n | $(awk -v o="$o" -v n="$n" 'BEGIN{printf "%.2f", o/n}') | $same |"
done
