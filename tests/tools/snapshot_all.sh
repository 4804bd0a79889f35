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
exit 0
