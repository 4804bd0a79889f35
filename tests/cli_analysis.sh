#!/usr/bin/env bash
# cli_analysis.sh ETPROF DATA_DIR - the ops/tree/summary/explain commands in every format:
# exit codes, valid JSON (jq), exact ops row keys, stable CSV/TSV column counts, atomic -o, and
# the explain answers on the QNN dumps (facts and numbers, not prose).
set -u
ETPROF=${1:?usage: cli_analysis.sh ETPROF DATA_DIR}
DATA=${2:?usage: cli_analysis.sh ETPROF DATA_DIR}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
check() { if eval "$1"; then ok; else bad "$1${2:+ ($2)}"; fi; }

QNN10="$DATA/fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp"
QNN1P="$DATA/fake-qnn-backend/stories260k_qnn_prefill_forward_1x.etdp"
QPTE="$DATA/upstream/stories260k_hybrid_llama_qnn.pte"
ETHOS="$DATA/ethosu-partial-delegation/mobilenet_v2_ethosu_N_partial_1x.etdp"
EPTE="$DATA/ethosu-partial-delegation/pte/mobilenet_v2_ethosu_N.pte"
SYN="$DATA/synthetic/synth_qnn_mixed_small_3x.etdp"
ADD="$DATA/real/add_pte_10x.etdp"
APTE="$DATA/upstream/add.pte"

PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3 # pyenv shims cost a second per call
# Every CSV/TSV file named on the command line has the same column count in every record
# (python's csv module handles the quoting); prints the files that do not.
same_cols() {
    "$PY" - "$@" <<'EOF2'
import csv, sys
bad = 0
for path in sys.argv[1:]:
    tsv = path.endswith(".tsv")
    with open(path, newline="") as f:
        rows = list(csv.reader(f, delimiter="\t" if tsv else ",",
                               quoting=csv.QUOTE_NONE if tsv else csv.QUOTE_MINIMAL))
    if not (len(rows) > 1 and all(len(r) == len(rows[0]) for r in rows)):
        print(path)
        bad += 1
sys.exit(1 if bad else 0)
EOF2
}

# ---- every command x format x input runs and produces well-formed output ----
inputs=("$QNN10 --pte $QPTE" "$ETHOS --pte $EPTE" "$SYN" "$ADD --pte $APTE")
tables=()
for cmd in ops tree summary explain; do
    i=0
    for inp in "${inputs[@]}"; do
        i=$((i + 1))
        for fmt in table csv tsv json jsonl md; do
            out="$TMP/out.$cmd.$i.$fmt"
            # shellcheck disable=SC2086
            "$ETPROF" $cmd $inp --format $fmt >"$out" 2>"$TMP/err"
            rc=$?
            check "[ $rc -eq 0 ]" "$cmd $inp $fmt exit $rc: $(head -c 200 "$TMP/err")"
            check "[ -s '$out' ]" "$cmd $inp $fmt output empty"
            case $fmt in
            json) check "jq -e '.schema_version == 1' '$out' >/dev/null" "$cmd $fmt JSON" ;;
            jsonl) check "jq -e -s 'length > 0' '$out' >/dev/null" "$cmd $fmt JSONL" ;;
            csv | tsv) tables+=("$out") ;;
            esac
        done
    done
done
check "same_cols ${tables[*]}" "CSV/TSV column counts"

# ---- ops JSON: exact row keys, and values that match the table ----
"$ETPROF" ops "$QNN10" --pte "$QPTE" -f json >"$TMP/ops.json"
keys='["avg","bad_time_count","count","event_name","instruction_id","kind","max","method","min","name","operator","p10","p50","p90","placement","share","total","unit","wrapped_count"]'
check "jq -e --argjson k '$keys' '[.rows[] | keys == \$k] | all' '$TMP/ops.json' >/dev/null" "ops row keys"
check "jq -e '[.rows[] | select(.kind == \"htp_node\")] | length == 1518' '$TMP/ops.json' >/dev/null" "1518 HTP node rows"
check "jq -e '[.rows[] | select(.kind == \"htp_node\") | .unit == \"cycles\" and .placement == \"QnnBackend\"] | all' '$TMP/ops.json' >/dev/null" "node rows in cycles on QnnBackend"
check "jq -e '[.rows[] | select(.placement == \"cpu\")] | length == 0' '$TMP/ops.json' >/dev/null" "no CPU rows on QNN"
check "jq -e '.rows[] | select(.name == \"Time for HVX + HMX power on and acquire (us)\") | .max == 308.48958333333331 or (.max - 5923/19.2 | fabs) < 1e-9' '$TMP/ops.json' >/dev/null" "power-on max = 5923 ticks / 19.2 in us"
check "jq -e '.rows[] | select(.name == \"Method::execute\") | .share == 100 and .unit == \"us\" and .count == 10' '$TMP/ops.json' >/dev/null" "Method::execute row"
"$ETPROF" ops "$QNN10" --pte "$QPTE" -f json --time-unit ms >"$TMP/ops_ms.json"
check "jq -e --slurpfile us '$TMP/ops.json' '(.rows[0].total * 1000 - \$us[0].rows[0].total | fabs) < 1e-6 and .rows[0].unit == \"ms\"' '$TMP/ops_ms.json' >/dev/null" "--time-unit ms"
"$ETPROF" ops "$QNN10" --pte "$QPTE" -f json --htp-clock-ghz 2 >"$TMP/ops_est.json"
check "jq -e '[.rows[] | select(.kind == \"htp_node\") | .unit] | unique == [\"est_us\"]' '$TMP/ops_est.json' >/dev/null" "--htp-clock-ghz labels estimates"
# CSV: the same columns as the JSON keys, one line per row plus the header
"$ETPROF" ops "$QNN10" --pte "$QPTE" -f csv >"$TMP/ops.csv"
check "[ \"\$(head -1 '$TMP/ops.csv')\" = 'method,instruction_id,name,count,min,p10,p50,p90,avg,max,total,share,unit,placement,kind,operator,bad_time_count,wrapped_count,event_name' ]" "ops CSV header"
check "[ \$(wc -l <'$TMP/ops.csv') -eq \$((\$(jq '.rows | length' '$TMP/ops.json') + 1)) ]" "ops CSV rows"
# filters
n=$("$ETPROF" ops "$ETHOS" --pte "$EPTE" -f jsonl --placement cpu | wc -l)
check "[ $n -eq 42 ]" "42 CPU kernel rows on Ethos-U, got $n"
n=$("$ETPROF" ops "$ETHOS" --pte "$EPTE" -f jsonl --placement cpu --all | wc -l)
check "[ $n -eq 84 ]" "--all adds the 42 OPERATOR_CALL rows, got $n"
n=$("$ETPROF" ops "$ETHOS" --pte "$EPTE" -f jsonl --kind delegate_call | wc -l)
check "[ $n -eq 11 ]" "11 DELEGATE_CALL rows, got $n"
n=$("$ETPROF" ops "$QNN10" --pte "$QPTE" -f jsonl --kind htp_node --sort total --top 3 | jq -s '[.[].total] | . == (sort | reverse) and length == 3')
check "[ '$n' = true ]" "--sort total --top 3"
n=$("$ETPROF" ops "$QNN10" --pte "$QPTE" -f json --skip-first 1 | jq '.rows[0].count')
check "[ '$n' = 9 ]" "--skip-first 1 leaves 9 runs, got $n"
"$ETPROF" ops "$QNN10" --sort nope >/dev/null 2>&1
check "[ $? -eq 2 ]" "unknown sort key is a usage error"
"$ETPROF" ops "$QNN10" --kind nope >/dev/null 2>&1
check "[ $? -eq 2 ]" "unknown kind is a usage error"
"$ETPROF" ops "$QNN10" --time-unit h >/dev/null 2>&1
check "[ $? -eq 2 ]" "unknown time unit is a usage error"
"$ETPROF" tree "$QNN10" --stat p95 >/dev/null 2>&1
check "[ $? -eq 2 ]" "unknown --stat is a usage error"

# ---- -o is atomic: the file appears complete, a failed run leaves the old one ----
"$ETPROF" ops "$ADD" --pte "$APTE" -f json -o "$TMP/o.json"
check "[ \$? -eq 0 ] && jq -e '.rows | length == 2' '$TMP/o.json' >/dev/null" "-o writes the file"
"$ETPROF" ops "$ADD" --pte "$APTE" -f json >"$TMP/o_stdout.json"
check "cmp -s '$TMP/o.json' '$TMP/o_stdout.json'" "-o equals stdout"
"$ETPROF" summary "$TMP/does-not-exist.etdp" -o "$TMP/o.json" 2>/dev/null
check "[ \$? -eq 3 ] && cmp -s '$TMP/o.json' '$TMP/o_stdout.json'" "failed run keeps the old -o file"
"$ETPROF" ops "$ADD" --sort bogus -o "$TMP/o.json" 2>/dev/null
check "[ \$? -eq 2 ] && cmp -s '$TMP/o.json' '$TMP/o_stdout.json'" "usage error keeps the old -o file"
check "[ \$(ls -A '$TMP' | grep -c '^o\\.json.') -eq 0 ]" "no temporary files left"

# ---- tree: nested JSON with the QNN nesting ----
"$ETPROF" tree "$QNN10" --pte "$QPTE" -f json >"$TMP/tree.json"
check "jq -e '.methods[0].roots[0].name == \"Method::execute\"' '$TMP/tree.json' >/dev/null" "tree root"
check "jq -e '.methods[0].roots[0].children[0] | .name == \"DELEGATE_CALL\" and .placement == \"QnnBackend\"' '$TMP/tree.json' >/dev/null" "DELEGATE_CALL under Method::execute"
check "jq -e '.methods[0].roots[0].children[0].children[0] | .name == \"QNN (execute) time (us)\" and .children[0].name == \"RPC (execute) time (us)\" and .children[0].children[0].name == \"QNN accelerator (execute) time (us)\" and .children[0].children[0].children[0].name == \"Accelerator (execute) time (us)\" and ([.children[0].children[0].children[0].children[].name] | index(\"Accelerator (execute excluding wait) time (us)\") != null)' '$TMP/tree.json' >/dev/null" "QNN nesting"
check "jq -e '[.. | objects | select(.name == \"Accelerator (execute) time (cycles)\") | .role == \"fact\" and (.children | length) == 1518] | all' '$TMP/tree.json' >/dev/null" "1518 HTP nodes under the cycles parent, as facts"
"$ETPROF" tree "$ETHOS" --pte "$EPTE" -f json >"$TMP/tree_e.json"
check "jq -e '[.methods[0].roots[0].children[] | select(.name == \"DELEGATE_CALL\")] | length == 11' '$TMP/tree_e.json' >/dev/null" "11 Ethos-U partitions in the tree"
check "jq -e '[.methods[0].roots[0].children[] | select(.name == \"OPERATOR_CALL\") | .children[0].kind == \"kernel\" and .overhead != null] | length == 42' '$TMP/tree_e.json' >/dev/null" "42 OPERATOR_CALL > kernel with overhead"
"$ETPROF" tree "$QNN10" --pte "$QPTE" --top 3 >"$TMP/tree.txt"
check "grep -q '1515 more HTP nodes' '$TMP/tree.txt'" "table tree lists 3 nodes and counts the rest"

# ---- summary: placement and CPU fallbacks ----
"$ETPROF" summary "$ETHOS" --pte "$EPTE" -f json >"$TMP/sum_e.json"
check "jq -e '.methods[0].delegate_partitions == 11' '$TMP/sum_e.json' >/dev/null" "11 partitions"
check "jq -e '[.methods[0].cpu_operators[] | {(.operator): .instructions}] | add == {\"cortex_m::quantize_per_tensor.out\": 11, \"cortex_m::dequantize_per_tensor.out\": 21, \"aten::add.out\": 10}' '$TMP/sum_e.json' >/dev/null" "CPU operator list"
check "jq -e '([.methods[0].placement[].share] | add - 100 | fabs) < 1e-6' '$TMP/sum_e.json' >/dev/null" "placement shares add up to 100%"
"$ETPROF" summary "$QNN10" --pte "$QPTE" -f json >"$TMP/sum_q.json"
check "jq -e '.methods[0] | .delegate_partitions == 1 and (.cpu_operators | length) == 0 and .htp_nodes.rows == 1518 and .runs == 10' '$TMP/sum_q.json' >/dev/null" "QNN summary"
check "jq -e '.methods[0].placement[] | select(.kind == \"delegate\") | .placement == \"QnnBackend\" and .partitions == 1' '$TMP/sum_q.json' >/dev/null" "QnnBackend placement"
"$ETPROF" summary "$SYN" -f json >"$TMP/sum_s.json"
check "jq -e '[.methods[0].cpu_operators[].operator] | sort == [\"argmax.out\", \"dequantize_per_tensor.out\", \"embedding.out\", \"quantize_per_tensor.out\"]' '$TMP/sum_s.json' >/dev/null" "synthetic CPU fallbacks"
"$ETPROF" summary "$ETHOS" --pte "$EPTE" >"$TMP/sum_e.txt"
check "grep -q 'cortex_m::dequantize_per_tensor.out *21' '$TMP/sum_e.txt'" "table lists 21x dequantize"

# ---- explain: the answers with the file's own numbers ----
for f in "$QNN10" "$QNN1P"; do
    "$ETPROF" explain "$f" --pte "$QPTE" -f json >"$TMP/ex.json"
    check "jq -e '.schema_version == 1 and ([.findings[].id] | index(\"same_thing\") != null and index(\"npu_vs_cpu\") != null and index(\"units\") != null and index(\"cannot_tell\") != null and index(\"missing\") != null)' '$TMP/ex.json' >/dev/null" "explain findings ($f)"
    check "jq -e '.findings[] | select(.id == \"same_thing\") | .facts | .qnn_events and .backend == \"QnnBackend\" and .htp_node_rows == 1518 and .node_sum_runs_mismatch == 0 and .accelerator_cycles > 0 and .accelerator_excluding_wait > 0 and .accelerator_excluding_wait <= .accelerator_execute and .accelerator_execute <= .qnn_accelerator_execute and .qnn_accelerator_execute <= .rpc_execute and .rpc_execute <= .qnn_execute and .qnn_execute <= .delegate_call and .delegate_call <= .method_execute' '$TMP/ex.json' >/dev/null" "question 1 facts nest ($f)"
    check "jq -e '.findings[] | select(.id == \"npu_vs_cpu\") | .facts | .cpu_kernel_instructions == 0 and .delegate_partitions == 1 and .htp_node_rows == 1518 and .htp_node_rows_aten == 1512' '$TMP/ex.json' >/dev/null" "question 2 facts ($f)"
    check "jq -e '.findings[] | select(.id == \"cannot_tell\") | .answer | test(\"qnn-profile-viewer\") and test(\"HMX\")' '$TMP/ex.json' >/dev/null" "optrace/QHAS commands ($f)"
    # the prose carries the same numbers as the facts
    cyc=$(jq -r '.findings[] | select(.id == "same_thing") | .facts.accelerator_cycles | floor' "$TMP/ex.json")
    check "jq -e --arg c '$cyc' '.findings[] | select(.id == \"same_thing\") | .answer | contains(\$c + \" cycles\")' '$TMP/ex.json' >/dev/null" "answer quotes the cycles ($f)"
    "$ETPROF" explain "$f" --pte "$QPTE" >"$TMP/ex.txt"
    tr -s ' \n' '  ' <"$TMP/ex.txt" >"$TMP/ex1.txt"
    check "grep -q 'are HTP nodes' '$TMP/ex1.txt' && grep -q 'not CPU kernels' '$TMP/ex1.txt' && grep -q 'No\\. They are nested' '$TMP/ex1.txt'" "explain text ($f)"
done
"$ETPROF" explain "$QNN10" -f json >"$TMP/ex_nopte.json"
check "jq -e '.findings[] | select(.id == \"missing\") | .facts.pte_given == false and (.answer | test(\"--pte\"))' '$TMP/ex_nopte.json' >/dev/null" "explain without --pte says what --pte adds"
check "jq -e '.findings[] | select(.id == \"same_thing\") | .facts.backend == \"delegate\"' '$TMP/ex_nopte.json' >/dev/null" "backend unknown without --pte"
"$ETPROF" explain "$QNN10" --pte "$QPTE" -f json >"$TMP/ex10.json"
check "jq -e '.findings[] | select(.id == \"units\") | .facts | .qtimer_converted and .first_run_over_p50 > 1.2' '$TMP/ex10.json' >/dev/null" "units: tick conversion, cold first run"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
