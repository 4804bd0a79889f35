#!/bin/bash
# qnn_snapshot.sh ETPROF OUTDIR [SHARED_DIR]: writes the output (stdout, stderr, exit code) of every
# `etprof qnn` invocation tests/ use, plus every --sort key, in every format, into OUTDIR, so that a
# refactoring can be checked byte for byte:
#   tests/tools/qnn_snapshot.sh OLD/etprof /tmp/before; tests/tools/qnn_snapshot.sh NEW/etprof /tmp/after
#   diff -r /tmp/before /tmp/after
# The real samples of SHARED_DIR/corpus/qnn (default ../shared) are used when present.
E=$1; O=$2; mkdir -p "$O"; rm -f "$O"/*
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
D=$ROOT/tests/data; F=$D/qnn-fixtures; S=${3:-$ROOT/../shared}/corpus/qnn
QNN1=$D/fake-qnn-backend/stories260k_qnn_kv_forward_1x.etdp
QPTE=$D/upstream/stories260k_hybrid_llama_qnn.pte
SQ=$F/stories260k_kv_qhas.json; RT=$F/runtrace_small.json; HEAP=$F/heap_ok.txt
sh $F/gen_stories_qhas.sh "$E" "$QNN1" exact > "${TMPDIR:-/tmp}/qnn_snapshot_exact.json"
i=0
run() { i=$((i+1)); for fmt in table csv tsv json jsonl md; do "$E" qnn "$@" -f $fmt >"$O/$i.$fmt" 2>"$O/$i.$fmt.err"; echo "rc=$?" >>"$O/$i.$fmt.err"; done; echo "$i: $*" >>"$O/index"; }
run "$QNN1" --qhas "${TMPDIR:-/tmp}/qnn_snapshot_exact.json"
run "$QNN1" --pte "$QPTE" --method kv_forward --qhas "$SQ" --runtrace "$RT" --heap "$HEAP"
run "$QNN1" --pte "$QPTE" --qhas "$SQ" --runtrace "$RT" --heap "$HEAP"
run --qhas "$SQ"
run --qhas "$SQ" --runtrace "$RT" --htp-clock-ghz 2
run --qhas "$SQ" --sort qnn_op --top 5
run --qhas "$SQ" --sort order
run --qhas "$SQ" --sort dominant_path_cycles --top 3
run --qhas $F/qhas_small.json --optrace $F/optrace_small.json
run --optrace $F/optrace_small.json
run --qhas $F/qhas_min.json
run --qhas $F/qhas_real_cycles.json
run "$QNN1" --qhas $F/qhas_missing_cycles.json
for v in viewer_small.txt viewer_213.txt viewer_unknown_section.txt; do run --profile-log $F/$v; done
run --profile-csv $F/viewer_small.csv
for s in fc256_native fc256_v8c8; do
  [ -d $S/$s ] || continue
  run --qhas $S/$s/chrometrace_qnn_htp_analysis_summary.json --optrace $S/$s/chrometrace.json --runtrace $S/$s/chrometrace_runtrace.json
  run --optrace $S/$s/chrometrace.json
  run --profile-log $S/$s/profile_text.txt
done
[ -f $S/fc256_native/chrometrace_htp.json ] && run --optrace $S/fc256_native/chrometrace_htp.json
for k in order cycles share dominant_path_cycles htp_ops dram_read_bytes dram_write_bytes vtcm_read_bytes vtcm_write_bytes etdump_cycles op_id qnn_op qnn_op_type; do
  run "$QNN1" --pte "$QPTE" --method kv_forward --qhas "$SQ" --sort $k --top 40
  run --optrace $F/optrace_small.json --sort $k
  run --qhas $F/qhas_small.json --sort $k
done
run --optrace $F/optrace_cp.json
run --qhas $F/qhas_cp_notimeline.json
run --qhas "$SQ" --top 0
run --qhas "$SQ" --top 99999999999
COLUMNS=70 "$E" qnn --qhas "$SQ" >"$O/narrow.table" 2>&1
COLUMNS=70 "$E" qnn --profile-log $F/viewer_small.txt >"$O/narrow_v.table" 2>&1
echo "$i invocations x 6 formats"
