#!/bin/bash
# explain_same_output.sh OLD_ETPROF NEW_ETPROF [DATA_DIR]: a refactoring check (not a ctest).
# Runs `etprof explain` with both binaries on every dump of DATA_DIR (default tests/data): every
# format, without and with each .pte, --time-unit/--ticks/--skip-first, and the QNN dumps with the
# QNN fixtures as tests/ use them; compares stdout, stderr and exit code byte for byte and prints
# "N identical, M different" (exit 1 when any differ).
set -u
OLD=$1 NEW=$2 D=${3:-tests/data}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
F=$D/qnn-fixtures Q=$D/upstream/stories260k_hybrid_llama_qnn.pte
cmds=()
for f in $(find "$D" -name '*.etdp' | sort); do
  for fmt in table json jsonl csv md; do
    cmds+=("$f -f $fmt")
    for p in $(find "$D" -name '*.pte' | sort); do cmds+=("$f --pte $p -f $fmt"); done
  done
  cmds+=("$f --time-unit us" "$f --ticks -f json" "$f --skip-first 1 -f json")
done
for f in "$D"/fake-qnn-backend/*.etdp; do
  for fmt in table json; do
    cmds+=("$f --pte $Q --qhas $F/stories260k_kv_qhas.json --runtrace $F/runtrace_small.json --heap $F/heap_ok.txt -f $fmt"
           "$f --pte $Q --qhas $F/stories260k_kv_qhas.json --runtrace $F/runtrace_small.json -f $fmt"
           "$f --pte $Q --optrace $F/optrace_small.json -f $fmt"
           "$f --qhas $F/qhas_small.json --htp-clock-ghz 2 -f $fmt"
           "$f --pte $Q --htp-clock-ghz 1.5 -f $fmt"
           "$f --qhas $F/qhas_truncated.json -f $fmt"
           "$f --heap $F/heap_ok.txt -f $fmt")
  done
done
same=0 diff=0
for c in "${cmds[@]}"; do
  # shellcheck disable=SC2086
  "$OLD" explain $c >"$T/o.out" 2>"$T/o.err"; echo $? >"$T/o.rc"
  # shellcheck disable=SC2086
  "$NEW" explain $c >"$T/n.out" 2>"$T/n.err"; echo $? >"$T/n.rc"
  if cmp -s "$T/o.out" "$T/n.out" && cmp -s "$T/o.err" "$T/n.err" && cmp -s "$T/o.rc" "$T/n.rc"; then
    same=$((same + 1))
  else
    diff=$((diff + 1)); echo "DIFF: explain $c"
  fi
done
echo "$same identical, $diff different"
[ "$diff" -eq 0 ]
