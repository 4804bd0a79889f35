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
exit 0
