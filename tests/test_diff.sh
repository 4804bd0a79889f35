#!/bin/sh
# End-to-end tests of `etprof diff`. Expected values come from outside etprof's diff code:
#  - identical inputs (a dump against itself) must give "no change" and exit 0;
#  - bench/etprof-gen's --slow model: with the same seed every random draw is the same, and a
#    slowed native_call takes rnd(FACTOR * v) + 1 ns instead of rnd(v) + 1 ns (bench/gen.c,
#    gen_execute_block), so the injected op's p50 change is known up to rounding (bound below);
#  - 1-run corpus dumps cannot support a verdict;
#  - the Ethos-U corpus pair (MANIFEST.md): the single-partition program runs 2 CPU kernels, the
#    partially delegated one 42, 10 of them aten::add.out, and 11 partitions.
#
# usage: test_diff.sh ETPROF DATA_DIR ETPROF_GEN
# Exit 77 (skipped) when jq is missing.
set -eu

ETPROF=$1
DATA=$2
GEN=$3
if ! command -v jq >/dev/null 2>&1; then
  echo "SKIP: jq not found (Debian package jq)"
  exit 77
fi

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
NCHECK=0

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
ok() { NCHECK=$((NCHECK + 1)); }

# run EXPECTED_RC OUT ARGS...: runs etprof, stdout to OUT, stderr to OUT.err; checks the exit code
run() {
  want=$1
  out=$2
  shift 2
  set +e
  "$ETPROF" "$@" >"$out" 2>"$out.err"
  rc=$?
  set -e
  [ "$rc" -eq "$want" ] || fail "etprof $* exited $rc, expected $want: $(cat "$out.err")"
  ok
}

# jcheck FILE JQ_EXPR MESSAGE: the jq expression must be true
jcheck() {
  jq -e "$2" "$1" >/dev/null || fail "$3 ($(basename "$1"): $2)"
  ok
}

gen() {
  name=$1
  shift
  "$GEN" "$@" -q -o "$T/$name.etdp" || fail "etprof-gen $* failed"
}

# --- 1. a dump against itself: no change, exit 0 even with --fail-on-regression 1 -------------
gen self --style cpu --nodes 40 --blocks 12 --seed 4 --pte "$T/self.pte"
run 0 "$T/self.json" diff "$T/self.etdp" "$T/self.etdp" --pte "$T/self.pte" --format json \
  --fail-on-regression 1
jcheck "$T/self.json" '.schema_version == 1' "schema_version"
jcheck "$T/self.json" '(.methods | length) == 1 and .methods[0].verdict == "no change"
  and .methods[0].p50_delta == 0 and .methods[0].p_value == 1 and .methods[0].regressed == false' \
  "self diff: method unchanged"
jcheck "$T/self.json" '(.ops | length) == 40 and all(.ops[]; .verdict == "no change"
  and .p50_delta == 0 and .total_delta == 0 and .match == "instruction")' \
  "self diff: 40 kernels, each no change"
jcheck "$T/self.json" '.added == [] and .removed == [] and .placement_changes == []' \
  "self diff: nothing added, removed or moved"
jcheck "$T/self.json" '.verdict.result == "no change" and .verdict.failed == false
  and .verdict.exit_code == 0' "self diff: verdict"
run 0 "$T/self.txt" diff "$T/self.etdp" "$T/self.etdp" --fail-on-regression 1
grep -q 'fail-on-regression 1%: passed' "$T/self.txt" || fail "self diff: gate line"
ok
if grep -q -E '  (slower|faster|noise)  ' "$T/self.txt"; then
  fail "self diff: a row is not 'no change'"
fi
ok
# a corpus QNN dump against itself (1529 rows: DELEGATE_CALL, QNN top events, HTP nodes)
Q=$DATA/fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp
run 0 "$T/qself.json" diff "$Q" "$Q" --pte "$DATA/upstream/stories260k_hybrid_llama_qnn.pte" \
  --format json --fail-on-regression 1
jcheck "$T/qself.json" 'all(.ops[]; .verdict == "no change") and (.ops | length) > 1000
  and .methods[0].verdict == "no change" and .verdict.failed == false' "QNN self diff"

# --- 2. a known injected slowdown -------------------------------------------------------------
# cpu style, 3 kernels per run: embedding (instruction 0), add, native_layer_norm; 12 runs.
# NEW: the same seed with native_call_embedding twice as long. Only that kernel, its
# OPERATOR_CALL and Method::execute change (bench/README.md, --slow).
gen base --style cpu --nodes 3 --blocks 12 --seed 1 --pte "$T/base.pte"
gen slow --style cpu --nodes 3 --blocks 12 --seed 1 --slow native_call_embedding:2

# Precondition from BASE alone: the embedding kernel's share of the method is large enough that
# doubling it regresses the method by more than 5 %.
run 0 "$T/ops.json" ops "$T/base.etdp" --pte "$T/base.pte" --format json --time-unit ns
jcheck "$T/ops.json" '[.rows[] | select(.name == "native_call_embedding.out")][0].share > 10' \
  "precondition: embedding share > 10 %"
BMIN=$(jq '[.rows[] | select(.name == "native_call_embedding.out")][0].min' "$T/ops.json")

# Tolerance of the p50 change. Per run, BASE = rnd(v) + 1 and NEW = rnd(2v) + 1 (ns) for the
# same real v, so NEW - BASE lies in [v - 1, v + 1] and BASE in [v + 0.5, v + 1.5]: the change
# is 100 * (NEW - BASE) / BASE in [100 (v - 1) / (v + 1.5), 100 (v + 1) / (v + 0.5)], i.e.
# 100 % minus at most 250 / (v + 1.5), plus at most 50 / (v + 0.5). Both maps are monotone in v,
# so BASE and NEW order the runs alike and the p50 (an interpolation between the same two runs)
# stays within the bounds of those runs. v >= BMIN - 1.5, the smallest BASE sample.
LO=$(awk -v b="$BMIN" 'BEGIN { printf "%.9f", 100 - 250 / b }')
HI=$(awk -v b="$BMIN" 'BEGIN { printf "%.9f", 100 + 50 / (b - 1) }')

run 5 "$T/slow.json" diff "$T/base.etdp" "$T/slow.etdp" --pte "$T/base.pte" --format json \
  --time-unit ns --fail-on-regression 5
jcheck "$T/slow.json" '.ops[0].name == "native_call_embedding.out" and .ops[0].instruction_id == 0
  and .ops[0].verdict == "slower" and .ops[0].q_value < 0.05' "injected op ranks first, slower"
jcheck "$T/slow.json" ".ops[0].p50_pct >= $LO and .ops[0].p50_pct <= $HI" \
  "injected op: p50 change within [$LO, $HI] %"
jcheck "$T/slow.json" ".ops[0].total_pct >= $LO and .ops[0].total_pct <= $HI" \
  "injected op: total change within [$LO, $HI] %"
jcheck "$T/slow.json" 'all(.ops[1:][]; .verdict == "no change" and .p50_delta == 0)' \
  "every other kernel unchanged"
jcheck "$T/slow.json" '.methods[0].verdict == "slower" and .methods[0].p_value < 0.05
  and .methods[0].p50_pct > 5 and .methods[0].regressed == true' "method regressed > 5 %"
jcheck "$T/slow.json" '.verdict.failed == true and .verdict.exit_code == 5
  and .verdict.regressed_methods == ["forward"] and .verdict.result == "slower"' "verdict"
# the method's p50 moved by the embedding kernel's added time, roughly (p50 of sums)
jcheck "$T/slow.json" '(.methods[0].p50_delta / .ops[0].p50_delta) > 0.8
  and (.methods[0].p50_delta / .ops[0].p50_delta) < 1.2' "method delta ~ op delta"
# the gate only fires above its threshold; without the flag, exit 0
run 0 "$T/slow50.json" diff "$T/base.etdp" "$T/slow.etdp" --format json --fail-on-regression 50
jcheck "$T/slow50.json" '.verdict.failed == false and .methods[0].verdict == "slower"' \
  "no failure at 50 %"
run 0 "$T/slow.txt" diff "$T/base.etdp" "$T/slow.etdp" --pte "$T/base.pte"
# table: the method line, then the operators with the injected one first
grep -q '^forward: p50 latency .* slower (p=' "$T/slow.txt" || fail "table: method line"
ok
awk '/^operators, by impact/ { getline; getline; getline; print; exit }' "$T/slow.txt" \
  | grep -q 'native_call_embedding.out .* slower' || fail "table: injected op not first"
ok
# --threshold hides the unchanged rows; csv holds the operator rows only
run 0 "$T/thr.csv" diff "$T/base.etdp" "$T/slow.etdp" --format csv --threshold 10
[ "$(wc -l <"$T/thr.csv")" -eq 2 ] || fail "--threshold 10: expected header + 1 row"
ok
head -1 "$T/thr.csv" | grep -q '^method,instruction_id,instruction_id_new,name,operator,kind,placement,unit,runs_base,runs_new,p50_base,p50_new,p50_delta,p50_pct' \
  || fail "csv header"
ok
grep -q '^,0,0,native_call_embedding.out,embedding.out,kernel,cpu,us,12,12,' "$T/thr.csv" \
  || fail "csv row (no --pte: unnamed method, operator from the kernel name)"
ok
# --all shows the OPERATOR_CALL wrapper, slower too
run 0 "$T/all.jsonl" diff "$T/base.etdp" "$T/slow.etdp" --format jsonl --all --threshold 10
[ "$(wc -l <"$T/all.jsonl")" -eq 2 ] || fail "jsonl --all: 2 rows"
ok
jq -e -s 'map(.kind) | sort == ["kernel", "operator_call"]' "$T/all.jsonl" >/dev/null \
  || fail "jsonl --all: kernel and operator_call"
ok

# Delegated and cycles rows: a qnn-llm model with every matmul node three times slower.
# Units never mix: all time rows come before the cycles rows; the slowed HTP nodes are the only
# slower nodes, and each moved by ~200 % (thread-aggregate cycles, rounding aside).
gen qb --style qnn-llm --nodes 120 --blocks 15 --seed 9 --pte "$T/q.pte"
gen qn --style qnn-llm --nodes 120 --blocks 15 --seed 9 --slow aten_matmul_default:3
run 0 "$T/q.json" diff "$T/qb.etdp" "$T/qn.etdp" --pte "$T/q.pte" --format json
jcheck "$T/q.json" '[.ops[].unit] | (index("cycles") // length) as $c
  | all(.[:$c][]; . == "us") and all(.[$c:][]; . != "us")' "time rows before cycles rows"
jcheck "$T/q.json" '[.ops[] | select(.kind == "htp_node" and .verdict == "slower")]
  | length > 0 and all(.[]; (.name | startswith("aten_matmul_default"))
  and .p50_pct > 195 and .p50_pct < 205)' "only the matmul nodes are slower, by ~200 %"
jcheck "$T/q.json" '[.ops[] | select(.unit == "cycles")][0].name
  == "Accelerator (execute) time (cycles)"' "the cycles parent leads the cycles rows"

# --- 3. too few runs ---------------------------------------------------------------------------
A1=$DATA/real/add_pte_1x.etdp
run 0 "$T/few.json" diff "$A1" "$A1" --format json --fail-on-regression 1
jcheck "$T/few.json" '.methods[0].verdict == "too few runs" and .methods[0].p_value == null
  and all(.ops[]; .verdict == "too few runs") and .verdict.result == "too few runs"
  and .verdict.failed == false and .verdict.gate == "pass" and .methods[0].gate == "pass"' \
  "1-run dumps: too few runs, the gate passes on the change alone (0 %)"
run 0 "$T/few.txt" diff "$A1" "$A1" --fail-on-regression 1
grep -q 'too few runs (1 vs 1; 3 per side needed)' "$T/few.txt" || fail "table: too few runs"
ok
grep -q 'fail-on-regression 1%: passed, but 1 method(s) had too few runs to be judged' \
  "$T/few.txt" || fail "table: the gate says it could not judge"
ok

# --- 3b. the CI gate when the runs are too few to judge (issue 10.7) ---------------------------
# NEW = BASE with every duration of every Execute block 1.41 times as long: --slow
# Method::execute:1.41 scales Method::execute and everything nested in it before rounding
# (bench/gen.c, gen_execute_block). With 3 kernels a block's Method::execute is 14 rounded pieces
# (head, tail, and per kernel the lead, pre, kernel and post gaps) plus 1 ns per kernel, so
# NEW - 1.41 BASE = sum(rnd(1.41 v) - 1.41 rnd(v)) + 3 - 4.23 lies in [-18.1, 15.7] ns, and the
# p50 change is 41 % within 100 * 18.1 / BASE % (< 0.1 % once BASE > 20000 ns, checked below).
# Mann-Whitney U cannot reach p < 0.05 with 1 or 3 runs per side: under no change all
# C(n_b + n_n, n_b) rank splits are equally likely and complete separation is 2 of them, so
# p >= 2 / C(2, 1) = 1 (1 vs 1) and 2 / C(6, 3) = 0.1 (3 vs 3); with 4 per side 2 / C(8, 4) =
# 0.029 and the normal approximation gives 0.030 (tests/test_diff.c works it by hand).
for n in 1 3 4 12; do
  gen g${n}b --style cpu --nodes 3 --blocks $n --seed 1
  gen g${n}n --style cpu --nodes 3 --blocks $n --seed 1 --slow Method::execute:1.41
done
# The 1-run change by hand from the events (the reader, not the diff): end - start of
# Method::execute in each dump.
"$ETPROF" events "$T/g1b.etdp" --format json >"$T/ev1b.json" || fail "events g1b"
"$ETPROF" events "$T/g1n.etdp" --format json >"$T/ev1n.json" || fail "events g1n"
DB=$(jq '[.events[] | select(.name == "Method::execute") | .end_time - .start_time][0]' "$T/ev1b.json")
DN=$(jq '[.events[] | select(.name == "Method::execute") | .end_time - .start_time][0]' "$T/ev1n.json")
PCT=$(awk -v b="$DB" -v n="$DN" 'BEGIN { printf "%.9f", 100 * (n - b) / b }')
awk -v b="$DB" -v p="$PCT" 'BEGIN { exit !(b > 20000 && p > 40.9 && p < 41.1) }' \
  || fail "precondition: 1-run Method::execute $DB -> $DN ns is not +41 % ($PCT)"
ok

# 1 vs 1, +41 % against --fail-on-regression 5: inconclusive, exit 6, in every format
run 6 "$T/g1.json" diff "$T/g1b.etdp" "$T/g1n.etdp" --format json --time-unit ns \
  --fail-on-regression 5
jcheck "$T/g1.json" ".methods[0].p50_base == $DB and .methods[0].p50_new == $DN
  and (.methods[0].p50_pct - $PCT | fabs) < 1e-6" "1 vs 1: the method's change is the hand one"
jcheck "$T/g1.json" '.methods[0].gate == "inconclusive" and .methods[0].regressed == false
  and (.methods[0].gate_reason | contains("1 run(s) in BASE and 1 in NEW")
       and contains("at least 4 runs per side")) and .methods[0].min_p == 1' \
  "1 vs 1: the method is inconclusive, and says why"
jcheck "$T/g1.json" '.verdict.gate == "inconclusive" and .verdict.exit_code == 6
  and .verdict.failed == false and .verdict.allow_inconclusive == false
  and .verdict.runs_needed == 4 and .verdict.methods_inconclusive == 1
  and (.verdict.headline | any(startswith("fail-on-regression 5%: INCONCLUSIVE (exit 6)")))' \
  "1 vs 1: overall verdict inconclusive, exit 6"
jcheck "$T/g1.json" '(.ops | length) == 3 and all(.ops[]; .gate == "inconclusive")' \
  "1 vs 1: each kernel (+41 %) inconclusive"
grep -q '^etprof: warning: diff: fail-on-regression 5%: inconclusive (exit 6): ' "$T/g1.json.err" \
  || fail "1 vs 1: warning on stderr"
ok
run 6 "$T/g1.txt" diff "$T/g1b.etdp" "$T/g1n.etdp" --fail-on-regression 5
grep -q '^fail-on-regression 5%: INCONCLUSIVE (exit 6): (method unknown): p50 +4[01]\.[0-9][0-9]% > 5%, but 1 run(s) in BASE and 1 in NEW' \
  "$T/g1.txt" || fail "table: the gate line"
ok
grep -q '^(method unknown)  .* too few runs  inconclusive ' "$T/g1.txt" || fail "table: methods gate column"
ok
for f in csv tsv; do
  run 6 "$T/g1.$f" diff "$T/g1b.etdp" "$T/g1n.etdp" --format $f --fail-on-regression 5
  head -1 "$T/g1.$f" | grep -q 'match.gate.gate_reason$' || fail "$f: gate columns last"
  ok
  [ "$(grep -c 'too few runs.matched.instruction.inconclusive.' "$T/g1.$f")" -eq 3 ] \
    || fail "$f: 3 inconclusive kernel rows"
  ok
done
run 6 "$T/g1.jsonl" diff "$T/g1b.etdp" "$T/g1n.etdp" --format jsonl --fail-on-regression 5
jq -e -s 'length == 3 and all(.[]; .gate == "inconclusive")' "$T/g1.jsonl" >/dev/null \
  || fail "jsonl: inconclusive rows"
ok
run 6 "$T/g1.md" diff "$T/g1b.etdp" "$T/g1n.etdp" --format md --fail-on-regression 5
grep -q '^> fail-on-regression 5%: INCONCLUSIVE (exit 6)' "$T/g1.md" || fail "md: gate note"
ok

# --allow-inconclusive: exit 0, still said (output and stderr); a regression still exits 5
run 0 "$T/g1a.json" diff "$T/g1b.etdp" "$T/g1n.etdp" --format json --fail-on-regression 5 \
  --allow-inconclusive
jcheck "$T/g1a.json" '.verdict.gate == "inconclusive" and .verdict.exit_code == 0
  and .verdict.allow_inconclusive == true' "--allow-inconclusive: inconclusive, exit 0"
grep -q '^etprof: warning: diff: fail-on-regression 5%: inconclusive (allowed by --allow-inconclusive, exit 0): ' \
  "$T/g1a.json.err" || fail "--allow-inconclusive: warning on stderr"
ok
run 0 "$T/g1a.txt" diff "$T/g1b.etdp" "$T/g1n.etdp" --fail-on-regression 5 --allow-inconclusive -q
grep -q '^fail-on-regression 5%: INCONCLUSIVE, allowed by --allow-inconclusive (exit 0): ' \
  "$T/g1a.txt" || fail "--allow-inconclusive: table gate line"
ok
grep -q 'warning: .*inconclusive' "$T/g1a.txt.err" || fail "--allow-inconclusive -q: still warns"
ok
# a threshold above the observed change: the change alone passes it, even with 1 run
run 0 "$T/g1t.json" diff "$T/g1b.etdp" "$T/g1n.etdp" --format json --fail-on-regression 50
jcheck "$T/g1t.json" '.verdict.gate == "pass" and .verdict.exit_code == 0
  and .methods[0].gate == "pass"' "1 vs 1, +41 % against 50 %: pass"

# 3 vs 3: the test runs (verdict noise, p = 0.081) but cannot reach 0.05: inconclusive, exit 6
run 6 "$T/g3.json" diff "$T/g3b.etdp" "$T/g3n.etdp" --format json --fail-on-regression 5
jcheck "$T/g3.json" '.methods[0].verdict == "noise" and .methods[0].gate == "inconclusive"
  and (.methods[0].min_p - 0.1 | fabs) < 1e-12 and .methods[0].p50_pct > 40.9
  and .methods[0].p50_pct < 41.1 and .verdict.exit_code == 6' "3 vs 3: inconclusive"
# 4 vs 4 with complete separation: p = 0.0304 < 0.05, a confident regression: exit 5
run 5 "$T/g4.json" diff "$T/g4b.etdp" "$T/g4n.etdp" --format json --fail-on-regression 5 \
  --allow-inconclusive
jcheck "$T/g4.json" '.methods[0].gate == "regression" and (.methods[0].p_value - 0.030383 | fabs)
  < 1e-5 and .verdict.gate == "regression" and .verdict.exit_code == 5' "4 vs 4: regression"
# 12 vs 12: regression, exit 5; the identical 12-run pair: pass, exit 0
run 5 "$T/g12.json" diff "$T/g12b.etdp" "$T/g12n.etdp" --format json --fail-on-regression 5
jcheck "$T/g12.json" '.methods[0].gate == "regression" and .methods[0].p50_pct > 40.9
  and .methods[0].p50_pct < 41.1 and .verdict.gate == "regression" and .verdict.failed == true
  and all(.ops[]; .gate == "regression")' "12 vs 12: regression"
run 0 "$T/g12s.json" diff "$T/g12b.etdp" "$T/g12b.etdp" --format json --fail-on-regression 5
jcheck "$T/g12s.json" '.methods[0].gate == "pass" and .verdict.gate == "pass"
  and .verdict.exit_code == 0 and all(.ops[]; .gate == "pass")' "12 vs 12 identical: pass"

# --- 4. placement change: Ethos-U, the residual adds fell back to the CPU ---------------------
E=$DATA/ethosu-partial-delegation
# (1 run each, the method's p50 +41 %: the gate cannot judge it, exit 6; issue 10.7)
run 6 "$T/pl.json" diff "$E/mobilenet_v2_ethosu_single_1x.etdp" \
  "$E/mobilenet_v2_ethosu_N_partial_1x.etdp" --pte "$E/pte/mobilenet_v2_ethosu.pte" \
  --pte-new "$E/pte/mobilenet_v2_ethosu_N.pte" --format json --fail-on-regression 1
jcheck "$T/pl.json" '.methods[0].gate == "inconclusive" and .verdict.exit_code == 6' \
  "Ethos-U 1 vs 1, +41.35 %: inconclusive"
jcheck "$T/pl.json" '.placement_changes[0] | .change == "to_cpu" and .operator == "aten::add.out"
  and .from == "EthosUBackend" and .to == "cpu" and .base_count == 0 and .new_count == 10
  and .evidence == "inferred"' "add moved from the NPU to the CPU"
jcheck "$T/pl.json" '.placement_changes[1] | .change == "partitions" and .from == "EthosUBackend"
  and .base_count == 1 and .new_count == 11' "partitions 1 -> 11"
jcheck "$T/pl.json" '.methods[0].match == "name" and .methods[0].partitions_base == 1
  and .methods[0].partitions_new == 11 and .methods[0].verdict == "too few runs"' "method"
jcheck "$T/pl.json" '([.added[] | select(.kind == "kernel" and .operator == "aten::add.out")]
  | length) == 10' "10 add kernels added"
run 0 "$T/pl.txt" diff "$E/mobilenet_v2_ethosu_single_1x.etdp" \
  "$E/mobilenet_v2_ethosu_N_partial_1x.etdp" --pte "$E/pte/mobilenet_v2_ethosu.pte" \
  --pte-new "$E/pte/mobilenet_v2_ethosu_N.pte"
head -1 "$T/pl.txt" | grep -q '^PLACEMENT forward: aten::add.out moved from EthosUBackend to the CPU: 0 -> 10' \
  || fail "table: the placement change is the headline"
ok
# without programs the instruction ids do not line up (3 against 53): matched by name
run 0 "$T/pl2.json" diff "$E/mobilenet_v2_ethosu_single_1x.etdp" \
  "$E/mobilenet_v2_ethosu_N_partial_1x.etdp" --format json
jcheck "$T/pl2.json" '.methods[0].match == "name" and .placement_changes[0].change == "to_cpu"
  and .placement_changes[0].operator == "add.out"' "no programs: still found"
# markdown carries the headline in its notes
run 0 "$T/pl.md" diff "$E/mobilenet_v2_ethosu_single_1x.etdp" \
  "$E/mobilenet_v2_ethosu_N_partial_1x.etdp" --format md
grep -q '^> PLACEMENT (method unknown): add.out moved from delegate to the CPU' "$T/pl.md" \
  || fail "md: placement note"
ok

# --- 5. output file, usage and input errors --------------------------------------------------
run 0 "$T/o.out" diff "$A1" "$A1" -o "$T/o.tsv" --format tsv
[ ! -s "$T/o.out" ] && head -1 "$T/o.tsv" | grep -q "^method	instruction_id	" \
  || fail "-o writes the file, not stdout"
ok
run 2 "$T/u1" diff "$A1"
run 2 "$T/u2" diff "$A1" "$A1" --fail-on-regression abc
run 2 "$T/u3" diff "$A1" "$A1" --threshold -1
run 2 "$T/u4" diff - - 
run 2 "$T/u5" diff "$A1" "$A1" --sort total
run 3 "$T/u6" diff "$A1" "$T/missing.etdp"
run 1 "$T/u7" diff "$A1" "$DATA/upstream/add.pte"

# --- 6. one file named twice is read once (issue 15): the same document as two separate reads
# (a copy is another inode, so it is opened and aggregated apart), names aside
A10=$DATA/real/add_pte_10x.etdp
cp "$A10" "$T/copy.etdp"
run 0 "$T/same.json" diff "$A10" "$A10" --pte "$DATA/upstream/add.pte" --format json
run 0 "$T/copy.json" diff "$A10" "$T/copy.etdp" --pte "$DATA/upstream/add.pte" --format json
jq -S 'del(.new, .base)' "$T/same.json" >"$T/same.n"
jq -S 'del(.new, .base)' "$T/copy.json" >"$T/copy.n"
cmp -s "$T/same.n" "$T/copy.n" || fail "diff A A differs from diff A copy-of-A"
ok

echo "test_diff.sh: $NCHECK checks passed"
