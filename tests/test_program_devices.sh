#!/usr/bin/env bash
# test_program_devices.sh ETPROF SRC_DIR DATA_DIR
#
# Newer programs' device fields (issue 36, item 9; docs/qnn.md "Program device fields"):
# ExecutionPlan.non_const_buffer_device (the planned buffers off the CPU) and the tensors'
# extra_tensor_info device_type/device_index. No real program with them was at hand:
# tests/data/flatc-built/add_cuda_pte.json is upstream add.pte decoded by flatc with those fields
# added, built with flatc against schema/program.fbs. Expected values come from that JSON and
# from flatc decoding the built file (a second decoder), never from etprof's own output.
set -u
ETPROF=${1:?usage: test_program_devices.sh ETPROF SRC_DIR DATA_DIR}
SRC=${2:?}
DATA=${3:?}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1${2:+ ($2)}" >&2; fi; }
J=$DATA/flatc-built/add_cuda_pte.json
P=$DATA/flatc-built/add_cuda.pte
OLD=$DATA/upstream/add.pte

# the committed program is what flatc builds from the JSON, and flatc reads the fields back
if command -v flatc >/dev/null 2>&1; then
    flatc -b -o "$TMP" "$SRC/schema/program.fbs" "$J" 2>"$TMP/err"
    check "cmp -s '$TMP/add_cuda_pte.pte' '$P'" "flatc rebuilds $P from $J: $(head -c 200 "$TMP/err")"
    flatc --json --strict-json --raw-binary -o "$TMP" "$SRC/schema/program.fbs" -- "$P" 2>"$TMP/err"
    WANT=$TMP/add_cuda.json
else
    echo "test_program_devices: flatc absent: expected values from $J only"
    WANT=$J
fi
check "[ -s '$WANT' ]" "decoded program"

# info: JSON buffer_devices = the program's non_const_buffer_device (flatc's reading)
"$ETPROF" info "$P" -f json >"$TMP/info.json" 2>"$TMP/err"
check "[ $? -eq 0 ]" "info exit: $(head -c 200 "$TMP/err")"
check "jq -e --slurpfile w '$WANT' '.methods[0].buffer_devices == [\$w[0].execution_plan[0].non_const_buffer_device[] | {buffer: .buffer_idx, device_type: (.device_type | ascii_downcase), device_index: (.device_index // 0)}]' '$TMP/info.json' >/dev/null" "info JSON buffer_devices = non_const_buffer_device"
NT=$(jq '[.execution_plan[0].values[] | select(.val_type == "Tensor" and .val.extra_tensor_info.device_type == "CUDA")] | length' "$WANT")
check "[ '$NT' = 3 ]" "the JSON declares 3 CUDA tensors"
check "jq -e '.methods[0].device_note | contains(\"buffer 1 on cuda:0\") and contains(\"$NT tensor(s) declared on a device other than the CPU\")' '$TMP/info.json' >/dev/null" "info JSON device_note"
"$ETPROF" info "$P" >"$TMP/info.txt" 2>/dev/null
check "grep -qE '^devices +forward: the program plans buffer 1 on cuda:0 \\(non_const_buffer_device\\)' '$TMP/info.txt'" "info table: the devices line"

# a program without the fields: every buffer on the CPU, said by nothing
"$ETPROF" info "$OLD" -f json >"$TMP/old.json" 2>/dev/null
check "jq -e '[.methods[] | .buffer_devices == [] and .device_note == null] | all' '$TMP/old.json' >/dev/null" "older program: no devices"
"$ETPROF" info "$OLD" >"$TMP/old.txt" 2>/dev/null
check "! grep -q '^devices' '$TMP/old.txt'" "older program: no devices line"

# placement: summary of the add dump with the program says where the buffers live
E=$DATA/real/add_pte_1x.etdp
"$ETPROF" summary "$E" --pte "$P" >"$TMP/sum.txt" 2>"$TMP/err"
check "[ $? -eq 0 ] && grep -q '^note: memory placement (--pte): the program plans buffer 1 on cuda:0' '$TMP/sum.txt'" "summary placement note: $(head -c 200 "$TMP/err")"
"$ETPROF" summary "$E" --pte "$P" -f json >"$TMP/sum.json" 2>/dev/null
check "jq -e '[.notes[] | select(startswith(\"memory placement of forward (--pte): the program plans buffer 1 on cuda:0\"))] | length == 1' '$TMP/sum.json' >/dev/null" "summary JSON note"
"$ETPROF" summary "$E" --pte "$OLD" >"$TMP/sum_old.txt" 2>/dev/null
check "! grep -q 'memory placement' '$TMP/sum_old.txt'" "older program: no placement note"

echo "test_program_devices: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
