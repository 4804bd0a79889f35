#!/bin/sh
# Peak RSS of every command on the memory cases of issue 16.2 (docs/verifier.md, "Memory").
# usage: bench/memory.sh BUILD_DIR [OUT_DIR]     (prints a markdown table)
# Inputs, generated into OUT_DIR (default bench/out/memory):
#   big1     bench/etprof-gen --style cpu --blocks 1 --nodes 500000 --seed 1 (1M events, 1 block)
#   shared   tests/tools/shared_event_dump.py F 1 1048576 (2^20 refs to one Event table, 4 MB)
#   zero     /dev/zero and `head -c 200000000 /dev/zero |` as the dump
#   qhas     tests/data/qnn-fixtures/qhas_small.json padded with 4,000,000 numbers
#   mid      bench/etprof-gen --style cpu --blocks 1 --nodes 12000 --seed 1 (24k events, 1 block:
#            within the process budget, docs/verifier.md "Memory")
#   stream   300 MB of text lines ("y", then '"a": 1,' after '{') piped to qnn --qhas -
# ETPROF_MEMORY_BUDGET in the environment is passed on (0: no budget, the figures before it).
set -u
B=${1:?usage: bench/memory.sh BUILD_DIR [OUT_DIR]}
E=$B/etprof
here=$(cd "$(dirname "$0")/.." && pwd)
O=${2:-$here/bench/out/memory}
mkdir -p "$O"
[ -f "$O/big1.etdp" ] || "$B/bench/etprof-gen" --style cpu --blocks 1 --nodes 500000 --seed 1 \
    --pte "$O/big1.pte" -o "$O/big1.etdp" -q
[ -f "$O/mid.etdp" ] || "$B/bench/etprof-gen" --style cpu --blocks 1 --nodes 12000 --seed 1 \
    --pte "$O/mid.pte" -o "$O/mid.etdp" -q
[ -f "$O/shared.etdp" ] || python3 "$here/tests/tools/shared_event_dump.py" "$O/shared.etdp" 1 1048576 >/dev/null
[ -f "$O/qhas_big.json" ] || python3 - "$here/tests/data/qnn-fixtures/qhas_small.json" "$O/qhas_big.json" <<'PY'
import sys
src = open(sys.argv[1], "rb").read()
i = src.index(b"{")
open(sys.argv[2], "wb").write(b'{"etprof_padding": [' + b",".join([b"0"] * 4000000) + b"]," + src[i + 1:])
PY
row() { # label, then the command
    label=$1; shift
    /usr/bin/time -o "$O/time" -f "%M %e" "$@" >/dev/null 2>"$O/err"
    rc=$?
    set -- $(tail -1 "$O/time")
    printf '| %s | %d | %.1f | %s | %s |\n' "$label" "$rc" "$(echo "$1 / 1024" | bc -l)" "$2" \
        "$(head -c 90 "$O/err" | tr '\n|' '  ')"
}
echo "| case | exit | peak RSS MiB | s | stderr (start) |"
echo "|---|---|---|---|---|"
P="--pte $O/big1.pte"
for c in "info" "info $P" "events --format jsonl" "ops $P" "tree $P" "summary $P" "explain $P"; do
    row "big1 (66.6 MB) \`$c\`" $E $c "$O/big1.etdp" -o /dev/null
done
row "big1 \`trace -o\`" $E trace "$O/big1.etdp" -o "$O/t.json"
row "big1 \`report $P -o\`" $E report "$O/big1.etdp" $P -o "$O/r.html"
row "big1 \`diff\`" $E diff "$O/big1.etdp" "$O/big1.etdp" -o /dev/null
M="--pte $O/mid.pte"
for c in "info" "ops $M" "tree $M" "summary $M" "runs"; do
    row "mid (1.6 MB, 24k events) \`$c\`" $E $c "$O/mid.etdp" -o /dev/null
done
row "mid \`trace -o\`" $E trace "$O/mid.etdp" -o "$O/t.json"
row "mid \`report $M -o\`" $E report "$O/mid.etdp" $M -o "$O/r.html"
row "mid \`diff\`" $E diff "$O/mid.etdp" "$O/mid.etdp" -o /dev/null
for c in info "events --format jsonl" ops tree summary explain; do
    row "shared (4.2 MB) \`$c\`" $E $c "$O/shared.etdp" -o /dev/null
done
row "shared \`trace -o\`" $E trace "$O/shared.etdp" -o "$O/t.json"
row "shared \`report -o\`" $E report "$O/shared.etdp" -o "$O/r.html"
row "\`info /dev/zero\`" $E info /dev/zero
row "\`head -c 200000000 /dev/zero \\| info -\`" sh -c "head -c 200000000 /dev/zero | $E info -"
row "qhas padded (8 MB, 4M values) \`qnn --qhas\`" $E qnn --qhas "$O/qhas_big.json" -f json -o /dev/null
row "300 MB of \"y\" lines \\| \`qnn --qhas -\`" sh -c "yes | head -c 300000000 | $E qnn --qhas -"
row "300 MB of '\"a\": 1,' lines \\| \`qnn --qhas -\`" sh -c \
    "(echo '{'; yes '\"a\": 1,' | head -c 300000000) | $E qnn --qhas -"
rm -f "$O/t.json" "$O/r.html"
