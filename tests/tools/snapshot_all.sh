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
exit 0
