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
# diff, explain: the options that change their output (gate exits 5 and 6, --allow-inconclusive,
# --threshold, --pte-new, --all, --top, --time-unit, --skip-first, errors) and explain's QNN inputs
R=$D/real; K=$D/fake-qnn-backend; S=$D/synthetic; EU=$D/ethosu-partial-delegation
QP=$D/upstream/stories260k_hybrid_llama_qnn.pte
run diff.reg5 diff "$R/add_pte_10x.etdp" "$R/bundled_program_10x.etdp" --fail-on-regression 0
run diff.reg5b diff "$R/add_pte_100x.etdp" "$R/module_linear_10x.etdp" --fail-on-regression 5 --allow-inconclusive
run diff.reg5q diff "$S/synth_qnn_mixed_small_3x.etdp" "$K/stories260k_qnn_kv_forward_10x.etdp" \
    --fail-on-regression 1
run diff.improve diff "$R/bundled_program_10x.etdp" "$R/add_pte_10x.etdp" --fail-on-regression 1
run diff.pass diff "$R/add_pte_100x.etdp" "$R/add_pte_10x.etdp" --fail-on-regression 1 --pte "$D/upstream/add.pte"
run diff.pass_few diff "$R/add_pte_1x.etdp" "$R/add_pte_1x.etdp" --fail-on-regression 1
run diff.inc6 diff "$R/bundled_program_10x.etdp" "$R/bundled_program_1x.etdp" --fail-on-regression 1
run diff.inc6a diff "$R/bundled_program_10x.etdp" "$R/bundled_program_1x.etdp" --fail-on-regression 1 \
    --allow-inconclusive
run diff.inc6q diff "$K/stories260k_qnn_kv_forward_10x.etdp" "$K/stories260k_qnn_kv_forward_outputs_2x.etdp" \
    --pte "$QP" --fail-on-regression 2.5
run diff.ethosu diff "$EU/mobilenet_v2_ethosu_single_1x.etdp" "$EU/mobilenet_v2_ethosu_N_partial_1x.etdp" \
    --pte "$EU/pte/mobilenet_v2_ethosu.pte" --pte-new "$EU/pte/mobilenet_v2_ethosu_N.pte" --fail-on-regression 1
run diff.ethosu_nopte diff "$EU/mobilenet_v2_ethosu_single_1x.etdp" "$EU/mobilenet_v2_ethosu_N_partial_1x.etdp"
run diff.ethosu_rev diff "$EU/mobilenet_v2_ethosu_N_partial_1x.etdp" "$EU/mobilenet_v2_ethosu_single_1x.etdp" \
    --pte "$EU/pte/mobilenet_v2_ethosu_N.pte" --pte-new "$EU/pte/mobilenet_v2_ethosu.pte" --all --top 5
run diff.kv_thr diff "$K/stories260k_qnn_kv_forward_1x.etdp" "$K/stories260k_qnn_kv_forward_10x.etdp" \
    --pte "$QP" --threshold 10 --top 4 --time-unit ms
run diff.kv_all diff "$K/stories260k_qnn_kv_forward_10x.etdp" "$K/stories260k_qnn_kv_forward_outputs_2x.etdp" \
    --all --time-unit ns --skip-first 1
run diff.kv_prefill diff "$K/stories260k_qnn_kv_forward_10x.etdp" "$K/stories260k_qnn_prefill_forward_1x.etdp" \
    --pte "$QP" --all
run diff.ticks diff "$R/module_linear_1x.etdp" "$R/module_linear_10x.etdp" --ticks --threshold 5
run diff.mismatch diff "$R/add_pte_1x.etdp" "$R/add_pte_10x.etdp" --pte "$QP" --ignore-program-mismatch
run diff.synth diff "$S/synth_qnn_mixed_small_3x.etdp" "$S/synth_qnn_mixed_small_3x.etdp" --fail-on-regression 3 --all
run diff.err_thr diff "$R/add_pte_1x.etdp" "$R/add_pte_10x.etdp" --threshold -1
run diff.err_fail diff "$R/add_pte_1x.etdp" "$R/add_pte_10x.etdp" --fail-on-regression abc
run diff.err_top diff "$R/add_pte_1x.etdp" "$R/add_pte_10x.etdp" --top x
run diff.err_stdin diff - -
run diff.err_missing diff "$R/add_pte_1x.etdp" "$R/no_such.etdp"
run diff.err_notdump diff "$R/add_pte_1x.etdp" "$D/upstream/add.pte"
run diff.err_unit diff "$R/add_pte_1x.etdp" "$R/add_pte_10x.etdp" --time-unit h
for f in "$K"/*.etdp; do
    n=$(basename "$f" .etdp)
    run explain.$n.qhas_rt_heap explain "$f" --pte "$QP" --qhas "$Q/stories260k_kv_qhas.json" \
        --runtrace "$Q/runtrace_small.json" --heap "$Q/heap_ok.txt"
    run explain.$n.optrace explain "$f" --pte "$QP" --optrace "$Q/optrace_small.json"
    run explain.$n.qhas_ghz explain "$f" --qhas "$Q/qhas_small.json" --htp-clock-ghz 2
    run explain.$n.ghz explain "$f" --pte "$QP" --htp-clock-ghz 1.5 --time-unit ms
    run explain.$n.heap explain "$f" --heap "$Q/heap_ok.txt"
done
run explain.qhas_truncated explain "$K/stories260k_qnn_kv_forward_1x.etdp" --qhas "$Q/qhas_truncated.json"
run explain.synth_ns explain "$S/synth_qnn_mixed_small_3x.etdp" --time-unit ns --skip-first 1
run explain.ticks explain "$R/module_linear_10x.etdp" --ticks
run explain.method explain "$K/stories260k_qnn_kv_forward_10x.etdp" --pte "$QP" --method kv_forward
run explain.mismatch explain "$R/add_pte_10x.etdp" --pte "$QP" --ignore-program-mismatch
run explain.err_unit explain "$R/add_pte_10x.etdp" --time-unit h
run explain.err_missing explain "$R/no_such.etdp"
# runs, tensors, compare (port-rtce): every option that changes their output, and their errors.
# Generated inputs (a perturbed and a cut debug buffer) live in OUT/_inputs and are named by a
# relative path from OUT, so that the outputs do not depend on where OUT is.
ET=$(cd "$(dirname "$ET")" && pwd)/$(basename "$ET"); OUT=$(cd "$OUT" && pwd)
for f in $(find "$D" -name '*.etdp' | sort); do
    n=$(echo "${f#$D/}" | tr '/' '_')
    p=$(pte_for "$f")
    run "runs.$n" runs "$f"
    [ -n "$p" ] && run "runs.$n.pte" runs "$f" --pte "$p"
done
R=$D/real; FQ=$D/fake-qnn-backend; QP=$D/upstream/stories260k_hybrid_llama_qnn.pte
run runs.kv10.method runs "$FQ/stories260k_qnn_kv_forward_10x.etdp" --pte "$QP" --method kv_forward
run runs.kv10.badmethod runs "$FQ/stories260k_qnn_kv_forward_10x.etdp" --pte "$QP" --method nosuch
run runs.add100.ms runs "$R/add_pte_100x.etdp" --time-unit ms
run runs.add100.ns.pte runs "$R/add_pte_100x.etdp" --pte "$D/upstream/add.pte" --time-unit ns
run runs.add10.ticks runs "$R/add_pte_10x.etdp" --ticks
run runs.add10.tickhz runs "$R/add_pte_10x.etdp" --tick-hz 1000000
run runs.llm.block runs "$D/synthetic/synth_qnn_llm_20x2000.etdp" --block Execute
run runs.llm.block_none runs "$D/synthetic/synth_qnn_llm_20x2000.etdp" --block nosuch
run runs.skip_first runs "$R/add_pte_10x.etdp" --skip-first 1
run runs.garbage runs "$D/flatc-built/garbage.bin"
run runs.missing runs "$D/no-such-file.etdp"
for w in 30 45; do
    COLUMNS=$w "$ET" -f table runs "$FQ/stories260k_qnn_kv_forward_10x.etdp" --pte "$QP" \
        >"$OUT/runs.kv10.cols$w.out" 2>"$OUT/runs.kv10.cols$w.err"; echo $? >"$OUT/runs.kv10.cols$w.rc"
done
"$ET" -f table --wide runs "$FQ/stories260k_qnn_kv_forward_10x.etdp" --pte "$QP" \
    >"$OUT/runs.kv10.wide.out" 2>"$OUT/runs.kv10.wide.err"; echo $? >"$OUT/runs.kv10.wide.rc"
# tensors: every dump with a debug buffer, with and without its program
for b in $(find "$D" -name '*.debug.bin' | sort); do
    f=${b%.debug.bin}.etdp
    n=$(echo "${f#$D/}" | tr '/' '_')
    p=$(pte_for "$f")
    run "tensors.$n" tensors "$f" --debug-buffer "$b"
    [ -n "$p" ] && run "tensors.$n.pte" tensors "$f" --debug-buffer "$b" --pte "$p"
    run "tensors.$n.npy" tensors "$f" --debug-buffer "$b" --dump "$OUT/npy.$n"
done
ML=$R/module_linear_intermediate_1x; MLP=$D/upstream/module_linear_no_constant_segment.pte
mkdir -p "$OUT/_inputs"
cp "$ML.debug.bin" "$OUT/_inputs/perturbed.bin"; chmod u+w "$OUT/_inputs/perturbed.bin"
# element 2 of the tensor at byte 112 (5.0f: 00 00 a0 40) becomes 5.5f (00 00 b0 40)
printf '\260' | dd of="$OUT/_inputs/perturbed.bin" bs=1 seek=122 conv=notrunc 2>/dev/null
head -c 100 "$ML.debug.bin" >"$OUT/_inputs/short.bin"
run tensors.ml.nobuffer tensors "$ML.etdp"
run tensors.ml.nobuffer.pte tensors "$ML.etdp" --pte "$MLP"
run tensors.ml.pte tensors "$ML.etdp" --debug-buffer "$ML.debug.bin" --pte "$MLP"
run tensors.ml.select tensors "$ML.etdp" --debug-buffer "$ML.debug.bin" --select 1
run tensors.ml.nofile tensors "$ML.etdp" --debug-buffer "$D/no-such.bin"
run tensors.add1.nolog tensors "$R/add_pte_1x.etdp" --debug-buffer "$ML.debug.bin"
run tensors.ml.dumpfile tensors "$ML.etdp" --debug-buffer "$ML.debug.bin" --dump "$ML.etdp"
(cd "$OUT" && run tensors.ml.short tensors "$ML.etdp" --debug-buffer _inputs/short.bin)
for w in 30 45; do
    COLUMNS=$w "$ET" -f table tensors "$ML.etdp" --debug-buffer "$ML.debug.bin" --pte "$MLP" \
        >"$OUT/tensors.ml.cols$w.out" 2>"$OUT/tensors.ml.cols$w.err"; echo $? >"$OUT/tensors.ml.cols$w.rc"
done
# compare: each dump with a debug buffer against itself; a perturbed buffer; two different runs
for b in $(find "$D" -name '*.debug.bin' | sort); do
    f=${b%.debug.bin}.etdp
    n=$(echo "${f#$D/}" | tr '/' '_')
    p=$(pte_for "$f")
    run "compare.$n.self" compare "$f" "$f" --debug-buffer "$b" --debug-buffer-new "$b"
    [ -n "$p" ] && run "compare.$n.self.pte" compare "$f" "$f" --debug-buffer "$b" --debug-buffer-new "$b" --pte "$p"
done
MO=$R/module_linear_outputs_1x; AI=$R/add_pte_intermediate_1x
(cd "$OUT" &&
 run compare.ml.perturbed compare "$ML.etdp" "$ML.etdp" --debug-buffer "$ML.debug.bin" --debug-buffer-new _inputs/perturbed.bin &&
 run compare.ml.perturbed.pte compare "$ML.etdp" "$ML.etdp" --debug-buffer "$ML.debug.bin" --debug-buffer-new _inputs/perturbed.bin --pte "$MLP" &&
 run compare.ml.perturbed.rev compare "$ML.etdp" "$ML.etdp" --debug-buffer _inputs/perturbed.bin --debug-buffer-new "$ML.debug.bin" &&
 run compare.ml.snr30 compare "$ML.etdp" "$ML.etdp" --debug-buffer "$ML.debug.bin" --debug-buffer-new _inputs/perturbed.bin --fail-below-snr 30 &&
 run compare.ml.snr20 compare "$ML.etdp" "$ML.etdp" --debug-buffer "$ML.debug.bin" --debug-buffer-new _inputs/perturbed.bin --fail-below-snr 20 &&
 run compare.ml.snr30.out compare "$ML.etdp" "$ML.etdp" --debug-buffer "$ML.debug.bin" --debug-buffer-new _inputs/perturbed.bin --fail-below-snr 30 -o _inputs/snr30.out &&
 run compare.ml.short compare "$ML.etdp" "$ML.etdp" --debug-buffer "$ML.debug.bin" --debug-buffer-new _inputs/short.bin)
run compare.ml.self.snr compare "$ML.etdp" "$ML.etdp" --debug-buffer "$ML.debug.bin" --debug-buffer-new "$ML.debug.bin" --fail-below-snr 1000
run compare.ml.snrbad compare "$ML.etdp" "$ML.etdp" --debug-buffer "$ML.debug.bin" --debug-buffer-new "$ML.debug.bin" --fail-below-snr abc
run compare.ml.onebuf compare "$ML.etdp" "$ML.etdp" --debug-buffer "$ML.debug.bin"
run compare.ml_outputs compare "$ML.etdp" "$MO.etdp" --debug-buffer "$ML.debug.bin" --debug-buffer-new "$MO.debug.bin"
run compare.ml_outputs.rev compare "$MO.etdp" "$ML.etdp" --debug-buffer "$MO.debug.bin" --debug-buffer-new "$ML.debug.bin" --pte "$MLP"
run compare.ml_add compare "$ML.etdp" "$AI.etdp" --debug-buffer "$ML.debug.bin" --debug-buffer-new "$AI.debug.bin" --fail-below-snr 10
run compare.ml_add.bigbuf compare "$ML.etdp" "$ML.etdp" --debug-buffer "$ML.debug.bin" --debug-buffer-new "$AI.debug.bin"
for w in 30 45; do
    COLUMNS=$w "$ET" -f table compare "$ML.etdp" "$MO.etdp" --debug-buffer "$ML.debug.bin" \
        --debug-buffer-new "$MO.debug.bin" --pte "$MLP" \
        >"$OUT/compare.mlo.cols$w.out" 2>"$OUT/compare.mlo.cols$w.err"; echo $? >"$OUT/compare.mlo.cols$w.rc"
done
# events: the remaining options (--method, ticks, --ignore-program-mismatch, narrow, -o)
run events.kv10.method events "$FQ/stories260k_qnn_kv_forward_10x.etdp" --pte "$QP" --method kv_forward
run events.add1.ticks events "$R/add_pte_1x.etdp" --ticks
run events.add1.tickns events "$R/add_pte_1x.etdp" --tick-ns 2.5
run events.add1.mismatch events "$R/add_pte_1x.etdp" --pte "$QP"
run events.add1.mismatch_ign events "$R/add_pte_1x.etdp" --pte "$QP" --ignore-program-mismatch
(cd "$OUT" && run events.add1.o events "$R/add_pte_1x.etdp" -o _inputs/events.out && cat _inputs/events.out >events.add1.o.file)
for w in 30 45; do
    COLUMNS=$w "$ET" -f table events "$FQ/stories260k_qnn_kv_forward_1x.etdp" --pte "$QP" \
        >"$OUT/events.kv1.cols$w.out" 2>"$OUT/events.kv1.cols$w.err"; echo $? >"$OUT/events.kv1.cols$w.rc"
done
# tensors --select, check-outputs (branch tensors2)
BPI="$R/bundled_program_intermediate_1x"; BPT="$D/upstream/bundled_program.bpte"
run tensors.bpi.sel_op tensors "$BPI.etdp" --debug-buffer "$BPI.debug.bin" --pte "$BPT" --select op=aten.add
run tensors.bpi.sel_instr tensors "$BPI.etdp" --debug-buffer "$BPI.debug.bin" --select instr=1-2,run=0
run tensors.bpi.sel_bad tensors "$BPI.etdp" --debug-buffer "$BPI.debug.bin" --select foo=1
run check.bpi check-outputs "$BPI.etdp" --debug-buffer "$BPI.debug.bin" --pte "$BPT"
run check.bpi.case9 check-outputs "$BPI.etdp" --debug-buffer "$BPI.debug.bin" --pte "$BPT" --test-case 9 --rtol 0 --atol 0
run check.bp1.nooutputs check-outputs "$R/bundled_program_1x.etdp" --debug-buffer "$BPI.debug.bin" --pte "$BPT"
run check.bpi.notbundled check-outputs "$BPI.etdp" --debug-buffer "$BPI.debug.bin" --pte "$D/upstream/add.pte"
exit 0
