#!/usr/bin/env bash
# Program check (issue 10.3): a dump checked against a program that did not make it is a located
# exit-1 error; --ignore-program-mismatch goes on with a warning; the right pairs pass.
# Expected values come from tests/data/MANIFEST.md: mobilenet_v2_ethosu.pte has one chain of 3
# instructions (K0 D1 K2), mobilenet_v2_ethosu_N.pte 53 (K0 D1 K2 K3 ... K52), and the _N dump
# ran the _N program (its events reach instruction 52), the single dump the single program.
#   test_program_check.sh ETPROF DATA_DIR
set -u
E=$(realpath "$1")
D=$(realpath "$2")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
has() { if grep -qF -- "$2" "$3"; then ok; else bad "$1: no \"$2\" in: $(head -c 600 "$3")"; fi; }

U=$D/ethosu-partial-delegation
NDUMP=$U/mobilenet_v2_ethosu_N_partial_1x.etdp
SDUMP=$U/mobilenet_v2_ethosu_single_1x.etdp
NPTE=$U/pte/mobilenet_v2_ethosu_N.pte
SPTE=$U/pte/mobilenet_v2_ethosu.pte

# 1. the 53-instruction dump against the 3-instruction program: every view refuses it
for cmd in info summary ops tree explain events; do
    "$E" $cmd "$NDUMP" --pte "$SPTE" >"$T/out" 2>"$T/err"
    rc=$?
    [ $rc -eq 1 ] && ok || bad "$cmd N dump + single pte: exit $rc, want 1"
    [ "$(wc -l <"$T/err")" -eq 1 ] && ok || bad "$cmd: want exactly one line on stderr: $(cat "$T/err")"
    # (events streams: the blocks before the bad one are already written)
    [ $cmd != events ] && [ -s "$T/out" ] && bad "$cmd: wrote output although it rejected the input" || ok
    has "$cmd names the dump" "etprof: $NDUMP: run_data[1].events[" "$T/err"
    # the first event past the program's 3 instructions (MANIFEST: K3 follows K0 D1 K2)
    has "$cmd names the instruction" "chain 0 instruction 3)" "$T/err"
    has "$cmd says what the program has there" "no instruction 3 in chain 0 (it has 3)" "$T/err"
    has "$cmd hints the option" "--ignore-program-mismatch" "$T/err"
done
"$E" report "$NDUMP" --pte "$SPTE" -o "$T/r.html" 2>"$T/err"; rc=$?
[ $rc -eq 1 ] && ok || bad "report: exit $rc, want 1"
"$E" diff "$NDUMP" "$NDUMP" --pte "$SPTE" >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 1 ] && ok || bad "diff: exit $rc, want 1"

# 2. the 3-instruction run against the 53-instruction program: a prefix that fits, but a whole
#    run (Method::execute) never reached the program's last KernelCall (instruction 52)
"$E" info "$SDUMP" --pte "$NPTE" >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 1 ] && ok || bad "single dump + N pte: exit $rc, want 1"
has "short run" "53 instructions in chain 0, the last KernelCall at 52 never ran" "$T/err"

# 3. --method does not bypass the check
"$E" summary "$NDUMP" --pte "$SPTE" --method forward >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 1 ] && ok || bad "--method forward: exit $rc, want 1"
has "--method hint" "check --pte and --method" "$T/err"

# 4. --ignore-program-mismatch: exit 0, the run unresolved, a warning on stderr
for fmt in table json; do
    "$E" summary "$NDUMP" --pte "$SPTE" --ignore-program-mismatch -f $fmt >"$T/out" 2>"$T/err"
    rc=$?
    [ $rc -eq 0 ] && ok || bad "--ignore-program-mismatch ($fmt): exit $rc, want 0"
    has "warning ($fmt)" "etprof: warning: --ignore-program-mismatch: 1 block(s)" "$T/err"
    has "warning names the place ($fmt)" "run_data[1].events[" "$T/err"
    # (the mismatch note itself names the method the program has: not an attribution)
    grep -v -e "PROGRAM MISMATCH" -e "\"first\": " "$T/out" | grep -q forward &&
        bad "--ignore-program-mismatch ($fmt): the run was attributed to forward" || ok
done
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/out" && ok || bad "JSON does not parse"
# ... and every output says so, not only stderr: a note in each table and JSON view, the JSON
# data_quality.program_mismatch (info: top-level program_mismatch) counts the 1 run block
# (MANIFEST: the _N dump has one Execute block) and names the place
for cmd in info summary ops tree explain; do
    "$E" $cmd "$NDUMP" --pte "$SPTE" --ignore-program-mismatch >"$T/out" 2>/dev/null
    has "$cmd table warns" "PROGRAM MISMATCH ignored (--ignore-program-mismatch): 1 block(s)" "$T/out"
    has "$cmd table names the place" "run_data[1].events[" "$T/out"
    "$E" $cmd "$NDUMP" --pte "$SPTE" --ignore-program-mismatch -f json >"$T/out.json" 2>/dev/null
    python3 - "$T/out.json" "$cmd" <<'PY' && ok || bad "$cmd JSON lacks the mismatch warning"
import json, sys
j = json.load(open(sys.argv[1]))
if sys.argv[2] == "info":
    pm = j["program_mismatch"]
    assert pm["blocks"] == 1 and "run_data[1].events[" in pm["first"], pm
else:
    notes = j.get("notes", [])
    assert any("PROGRAM MISMATCH" in n for n in notes), notes
    if sys.argv[2] in ("summary", "tree", "explain"):
        pm = j["data_quality"]["program_mismatch"]
        assert pm["blocks"] == 1 and "run_data[1].events[" in pm["first"], pm
PY
done
"$E" report "$NDUMP" --pte "$SPTE" --ignore-program-mismatch -o "$T/r.html" 2>/dev/null
has "report warns" "PROGRAM MISMATCH ignored" "$T/r.html"
"$E" diff "$NDUMP" "$NDUMP" --pte "$SPTE" --ignore-program-mismatch --allow-inconclusive >"$T/out" 2>/dev/null
has "diff warns per side" "BASE: PROGRAM MISMATCH ignored" "$T/out"
has "diff warns per side" "NEW: PROGRAM MISMATCH ignored" "$T/out"
# the right pair has no such warning
"$E" summary "$NDUMP" --pte "$NPTE" -f json >"$T/out.json" 2>/dev/null
python3 -c 'import json,sys; pm=json.load(open(sys.argv[1]))["data_quality"]["program_mismatch"]; sys.exit(pm["blocks"] != 0 or pm["first"] is not None)' "$T/out.json" && ok || bad "right pair reports a mismatch"

# 5. the pairs of tests/data that belong together (MANIFEST.md commands) all pass the check
pairs=(
    "real/add_pte_1x.etdp upstream/add.pte"
    "real/add_pte_10x.etdp upstream/add.pte"
    "real/add_pte_100x.etdp upstream/add.pte"
    "real/add_pte_intermediate_1x.etdp upstream/add.pte"
    "real/executor_runner_add_pte_1x.etdp upstream/add.pte"
    "real/bundled_program_1x.etdp upstream/bundled_program.bpte"
    "real/bundled_program_10x.etdp upstream/bundled_program.bpte"
    "real/bundled_program_intermediate_1x.etdp upstream/bundled_program.bpte"
    "real/module_linear_1x.etdp upstream/module_linear_no_constant_segment.pte"
    "real/module_linear_10x.etdp upstream/module_linear_no_constant_segment.pte"
    "real/module_linear_intermediate_1x.etdp upstream/module_linear_no_constant_segment.pte"
    "real/module_linear_outputs_1x.etdp upstream/module_linear_no_constant_segment.pte"
    "fake-qnn-backend/stories260k_qnn_kv_forward_1x.etdp upstream/stories260k_hybrid_llama_qnn.pte"
    "fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp upstream/stories260k_hybrid_llama_qnn.pte"
    "fake-qnn-backend/stories260k_qnn_kv_forward_outputs_2x.etdp upstream/stories260k_hybrid_llama_qnn.pte"
    "fake-qnn-backend/stories260k_qnn_prefill_forward_1x.etdp upstream/stories260k_hybrid_llama_qnn.pte"
    "ethosu-partial-delegation/mobilenet_v2_ethosu_N_partial_1x.etdp ethosu-partial-delegation/pte/mobilenet_v2_ethosu_N.pte"
    "ethosu-partial-delegation/mobilenet_v2_ethosu_single_1x.etdp ethosu-partial-delegation/pte/mobilenet_v2_ethosu.pte"
)
for p in "${pairs[@]}"; do
    set -- $p
    "$E" summary "$D/$1" --pte "$D/$2" -f json >"$T/out" 2>"$T/err"; rc=$?
    [ $rc -eq 0 ] && ok || bad "$1 + $2: exit $rc: $(cat "$T/err")"
    [ -s "$T/err" ] && bad "$1 + $2: stderr: $(cat "$T/err")" || ok
done

echo "program_check: $pass passed, $fail failed"
[ $fail -eq 0 ]
