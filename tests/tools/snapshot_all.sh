#!/bin/sh
# snapshot_all.sh BUILD_DIR OUTDIR - runs every etprof command over the dumps in tests/data in
# every output format and writes each output (stdout, stderr) and exit code to OUTDIR, one file
# per run. Used to check that a change of the rendering code leaves every output byte-identical:
#     tests/tools/snapshot_all.sh build-old /tmp/snap-before
#     tests/tools/snapshot_all.sh build-test /tmp/snap-after && diff -r /tmp/snap-before /tmp/snap-after
# The table format runs with COLUMNS fixed (100, and 60 to exercise the narrow-terminal rules).
set -u
B=$1; OUT=$2
ET="$B/etprof"; [ -x "$ET" ] || ET="$B/src/etprof"
[ -x "$ET" ] || { echo "snapshot_all.sh: no etprof in $B" >&2; exit 2; }
D=$(cd "$(dirname "$0")/../data" && pwd)
mkdir -p "$OUT"
FORMATS="table csv tsv json jsonl md"

# pte for a dump (empty: none known)
pte_for() {
    case "$1" in
        */real/add_pte_*|*/real/executor_runner_add_pte_*) echo "$D/upstream/add.pte" ;;
        */fake-qnn-backend/*|*/synthetic/synth_qnn_*) echo "$D/upstream/stories260k_hybrid_llama_qnn.pte" ;;
        */mobilenet_v2_ethosu_N_partial_*) echo "$D/ethosu-partial-delegation/pte/mobilenet_v2_ethosu_N.pte" ;;
        */mobilenet_v2_ethosu_single_*) echo "$D/ethosu-partial-delegation/pte/mobilenet_v2_ethosu.pte" ;;
        *) echo "" ;;
    esac
}

run() { # name, then the etprof arguments
    name=$1; shift
    for fmt in $FORMATS; do
        if [ "$fmt" = table ]; then
            for w in 100 60; do
                COLUMNS=$w "$ET" -f table "$@" >"$OUT/$name.table$w.out" 2>"$OUT/$name.table$w.err"
                echo $? >"$OUT/$name.table$w.rc"
            done
        else
            COLUMNS=100 "$ET" -f "$fmt" "$@" >"$OUT/$name.$fmt.out" 2>"$OUT/$name.$fmt.err"
            echo $? >"$OUT/$name.$fmt.rc"
        fi
    done
}

for f in $(find "$D" -name '*.etdp' | sort); do
    n=$(echo "${f#$D/}" | tr '/' '_')
    p=$(pte_for "$f")
    for cmd in info summary ops tree events explain; do
        run "$cmd.$n" "$cmd" "$f"
        [ -n "$p" ] && run "$cmd.$n.pte" "$cmd" "$f" --pte "$p"
    done
done
# diff: pairs of runs of one program
run diff.add_1_10 diff "$D/real/add_pte_1x.etdp" "$D/real/add_pte_10x.etdp"
run diff.add_1_10.pte diff "$D/real/add_pte_1x.etdp" "$D/real/add_pte_10x.etdp" --pte "$D/upstream/add.pte"
run diff.linear_1_10 diff "$D/real/module_linear_1x.etdp" "$D/real/module_linear_10x.etdp"
run diff.kv_1_10.pte diff "$D/fake-qnn-backend/stories260k_qnn_kv_forward_1x.etdp" \
    "$D/fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp" --pte "$D/upstream/stories260k_hybrid_llama_qnn.pte"
# qnn: the QNN JSON inputs of tests/data
Q=$D/qnn-fixtures
run qnn.qhas_small qnn --qhas "$Q/qhas_small.json"
run qnn.qhas_real qnn --qhas "$Q/qhas_real_cycles.json"
run qnn.optrace_small qnn --qhas "$Q/qhas_small.json" --optrace "$Q/optrace_small.json"
run qnn.viewer_213 qnn --profile-log "$Q/viewer_213.txt"
run qnn.runtrace_small qnn --qhas "$Q/qhas_small.json" --runtrace "$Q/runtrace_small.json"
run qnn.stories_kv qnn "$D/fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp" \
    --pte "$D/upstream/stories260k_hybrid_llama_qnn.pte" --qhas "$Q/stories260k_kv_qhas.json"
# tree, info (port-treeinfo): every program and ETRecord of tests/data, errors, the options
# that change tree's output, and an ETRecord that joins add.pte (written here; cwd-relative name
# so that its path in the output is the same in every snapshot)
for f in $(find "$D" -name '*.pte' -o -name '*.bpte' | sort); do
    run "info.$(echo "${f#$D/}" | tr / _)" info "$f"
done
run info.etrecord_bin info "$D/upstream/etrecord.bin"
run info.etrecord_pte info "$D/upstream/etrecord.bin" --pte "$D/upstream/add.pte"
run info.pte_pte info "$D/upstream/add.pte" --pte "$D/upstream/add.pte"
run info.missing info "$D/no-such-file.etdp"
run info.mismatch info "$D/real/add_pte_1x.etdp" --pte "$D/upstream/stories260k_hybrid_llama_qnn.pte"
run info.mismatch_ignored info "$D/real/add_pte_1x.etdp" --pte "$D/upstream/stories260k_hybrid_llama_qnn.pte" --ignore-program-mismatch
run info.kv_method info "$D/fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp" --pte "$D/upstream/stories260k_hybrid_llama_qnn.pte" --method kv_forward
ADD="$D/real/add_pte_1x.etdp"; ADDP="$D/upstream/add.pte"
KV="$D/fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp"; KVP="$D/upstream/stories260k_hybrid_llama_qnn.pte"
run tree.add_method tree "$ADD" --pte "$ADDP" --method forward
run tree.add_ns tree "$D/real/add_pte_10x.etdp" --pte "$ADDP" --time-unit ns --stat p90
run tree.add_ms tree "$D/real/add_pte_100x.etdp" --time-unit ms --stat max --skip-first 2
run tree.add_s tree "$D/real/add_pte_10x.etdp" --pte "$ADDP" --time-unit s
run tree.add_etr tree "$ADD" --pte "$ADDP" --etrecord "$D/upstream/etrecord.bin"
run tree.add_etr_nopte tree "$ADD" --etrecord "$D/upstream/etrecord.bin"
run tree.bad_stat tree "$ADD" --stat total
run tree.bad_top tree "$ADD" --top -1
run tree.bad_unit tree "$ADD" --time-unit h
run tree.bad_etr tree "$ADD" --etrecord "$D/no-such.etrecord"
run tree.kv_top0 tree "$KV" --pte "$KVP" --top 0
run tree.kv_top2 tree "$KV" --pte "$KVP" --top 2 --method kv_forward
run tree.kv_clock tree "$KV" --pte "$KVP" --htp-clock-ghz 1.5 --top 3
run tree.kv_qhas tree "$KV" --pte "$KVP" --qhas "$D/qnn-fixtures/stories260k_kv_qhas.json" --top 3
run tree.kv_runtrace tree "$KV" --pte "$KVP" --runtrace "$D/qnn-fixtures/runtrace_small.json" --top 1
run tree.kv_etr tree "$KV" --pte "$KVP" --etrecord "$D/upstream/etrecord.bin" --top 2 --time-unit ms
run tree.kv_nopte_top1 tree "$KV" --top 1
run tree.synth_mixed tree "$D/synthetic/synth_qnn_mixed_small_3x.etdp" --htp-clock-ghz 2 --top 4
run tree.kv_mismatch tree "$ADD" --pte "$KVP" --ignore-program-mismatch
if command -v python3 >/dev/null 2>&1; then
    ETA=$(cd "$(dirname "$ET")" && pwd)/$(basename "$ET"); OUTA=$(cd "$OUT" && pwd)
    FIX=$(mktemp -d)
    python3 - "$FIX/add.etrecord" <<'PYEOF'
import json, sys, zipfile
E = "executorch.exir.dialects.edge.ops."
trace = ('  File "/home/u/model.py", line 40, in forward\n    x = self.block(x)\n'
         '  File "/home/u/blocks.py", line 12, in forward\n    return a + b\n')
md = {"debug_handle": "1", "stack_trace": trace, "source_fn_stack": "add,operator.add",
      "nn_module_stack": "L__self__,,__main__.Net;L__self___block,block,blocks.Block"}
node = {"target": E + "aten.add.Tensor", "inputs": [],
        "outputs": [{"as_none": None, "as_tensor": {"name": "aten_add_tensor"}}], "metadata": md}
tv = {"aten_add_tensor": {"meta": {"dtype": 7, "sizes": [{"as_int": 4}, {"as_int": 8}]}}}
prog = json.dumps({"graph_module": {"graph": {"inputs": [], "outputs": [], "nodes": [node],
                                              "tensor_values": tv}},
                   "schema_version": {"major": 3, "minor": 0}}).encode()
with zipfile.ZipFile(sys.argv[1], "w") as z:
    for n, b in (("ETRECORD_V0", b""), ("edge_dialect_exported_program/forward", prog),
                 ("edge_dialect_exported_program/forward_state_dict", b"not read"),
                 ("debug_handle_map", b'{"forward": {"0": 1}}'), ("delegate_map", b"{}")):
        z.writestr(zipfile.ZipInfo(n), b)
PYEOF
    (cd "$FIX" && ET=$ETA OUT=$OUTA && run info.etrecord_add info add.etrecord &&
        run tree.add_etr_match tree "$ADD" --pte "$ADDP" --etrecord add.etrecord &&
        run ops.add_etr_match ops "$ADD" --pte "$ADDP" --etrecord add.etrecord)
    rm -rf "$FIX"
fi
# qnn (port-qnn): what tests/tools/qnn_snapshot.sh does not cover: usage and input errors, a dump
# without QNN events, every input heading, --skip-first/--block, viewer files, narrow/wide tables
QNN1=$D/fake-qnn-backend/stories260k_qnn_kv_forward_1x.etdp
QPTE=$D/upstream/stories260k_hybrid_llama_qnn.pte
SQ=$Q/stories260k_kv_qhas.json
run qnn.err_none qnn
run qnn.err_both qnn --profile-log "$Q/viewer_small.txt" --profile-csv "$Q/viewer_small.csv"
run qnn.err_viewer_qhas qnn --profile-log "$Q/viewer_small.txt" --qhas "$Q/qhas_small.json"
run qnn.err_pte qnn --qhas "$Q/qhas_small.json" --pte "$QPTE"
run qnn.err_top qnn --qhas "$Q/qhas_small.json" --top -1
run qnn.err_skip qnn --qhas "$Q/qhas_small.json" --skip-first x
run qnn.err_ghz qnn --qhas "$Q/qhas_small.json" --htp-clock-ghz 0
run qnn.err_sort qnn --qhas "$Q/qhas_small.json" --sort nope
run qnn.err_qhas qnn --qhas "$Q/qhas_bad_type.json"
run qnn.err_optrace qnn --qhas "$Q/qhas_small.json" --optrace "$Q/optrace_bad_flags.json"
run qnn.err_heap qnn --qhas "$Q/qhas_small.json" --heap "$Q/heap_bad_value.txt"
run qnn.err_missing qnn --qhas "$Q/does_not_exist.json"
run qnn.err_viewer qnn --profile-log "$Q/viewer_bad_line.txt"
run qnn.err_viewer_csv qnn --profile-csv "$Q/viewer_bad_fields.csv"
run qnn.err_etdump qnn "$Q/garbage.bin" --qhas "$Q/qhas_small.json"
run qnn.err_block qnn "$QNN1" --qhas "$SQ" --block nope
run qnn.no_qnn_events qnn "$D/real/add_pte_1x.etdp" --pte "$D/upstream/add.pte" --qhas "$Q/qhas_small.json"
run qnn.kv_small qnn "$QNN1" --qhas "$Q/qhas_small.json" --optrace "$Q/optrace_small.json"
run qnn.kv_all qnn "$QNN1" --pte "$QPTE" --qhas "$SQ" --optrace "$Q/optrace_small.json" \
    --runtrace "$Q/runtrace_small.json" --heap "$Q/heap_ok.txt"
run qnn.kv10_skip qnn "$D/fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp" --pte "$QPTE" \
    --qhas "$SQ" --skip-first 2 --top 5 --htp-clock-ghz 1.5
run qnn.prefill qnn "$D/fake-qnn-backend/stories260k_qnn_prefill_forward_1x.etdp" --qhas "$SQ" --top 3
run qnn.synth qnn "$D/synthetic/synth_qnn_mixed_small_3x.etdp" --pte "$QPTE" --qhas "$Q/qhas_small.json"
run qnn.synth_nopte qnn "$D/synthetic/synth_qnn_mixed_small_3x.etdp" --qhas "$Q/qhas_small.json"
run qnn.optrace_heap qnn --optrace "$Q/optrace_small.json" --runtrace "$Q/runtrace_small.json" \
    --heap "$Q/heap_ok.txt"
run qnn.heap_before qnn --qhas "$Q/qhas_min.json" --heap "$Q/heap_before_only.txt"
run qnn.optrace_cp qnn --optrace "$Q/optrace_cp.json" --sort share --top 2
run qnn.qhas_cp qnn --qhas "$Q/qhas_cp_notimeline.json"
run qnn.qhas_wide qnn --qhas "$SQ" --wide --top 4
run qnn.viewer_small qnn --profile-log "$Q/viewer_small.txt"
run qnn.viewer_unknown qnn --profile-log "$Q/viewer_unknown_section.txt"
run qnn.viewer_csv qnn --profile-csv "$Q/viewer_small.csv"
run qnn.viewer_wide qnn --profile-log "$Q/viewer_213.txt" --wide
exit 0
