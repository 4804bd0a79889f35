#!/bin/bash
# The two-thread pass of the analyses (src/model/pair_int.h; docs/analyses.md "Two threads") gives
# byte-identical output to the one-thread pass. ETPROF_THREADS=2 forces two threads on every dump
# of two blocks or more, ETPROF_THREADS=1 forbids them. Inputs: every ETDump of tests/data (with
# its program where the manifest pairs one), and dumps from bench/etprof-gen of every style, with
# a slow operator and with rows that appear only in the second half of the blocks. Two threads run
# twice: as they come (small files are verified before the pass), and with the test hook
# ETPROF_TEST_SPLIT_VERIFY=1, which verifies every file in the background and holds the verifier
# until it is needed, so that the second half's thread verifies its own blocks (the split of
# src/read/etdump.c, as on large files) and the first half's thread takes over the verifier at block
# 0 (the handover); with ETPROF_TEST_SPLIT_VERIFY=2 the verifier reaches the split before the
# handover can ask (none: three threads, as before it existed); with dumps corrupted in either
# half, the error must be the one-thread one. Every case also runs with the test hook ETPROF_TEST_NO_REPLICA=1, which decodes
# every block in full instead of repeating the previous block's derived fields when only the
# times differ (src/model/model.c, "Repeated runs"): the output must be the same.
# usage: test_threads_identical.sh ETPROF ETPROF_GEN DATA_DIR
set -u
E=$1 GEN=$2 D=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0 cases=0 multi=0

# a deadlock between the threads fails the case (exit 124) instead of hanging the suite
TMO=${ETPROF_TEST_TIMEOUT:-120}
run_both() { # label, then the etprof arguments (output to stdout)
    local label=$1
    shift
    ETPROF_THREADS=1 timeout "$TMO" "$E" "$@" >"$T/one" 2>"$T/one.err"
    local r1=$?
    ETPROF_THREADS=2 timeout "$TMO" "$E" "$@" >"$T/two" 2>"$T/two.err"
    local r2=$?
    ETPROF_TEST_SPLIT_VERIFY=1 ETPROF_THREADS=2 timeout "$TMO" "$E" "$@" >"$T/split" 2>"$T/split.err"
    local r3=$?
    ETPROF_TEST_NO_REPLICA=1 ETPROF_THREADS=1 timeout "$TMO" "$E" "$@" >"$T/full" 2>"$T/full.err"
    local r4=$?
    ETPROF_TEST_SPLIT_VERIFY=2 ETPROF_THREADS=2 timeout "$TMO" "$E" "$@" >"$T/late" 2>"$T/late.err"
    local r5=$?
    for r in $r1 $r2 $r3 $r4 $r5; do
        if [ "$r" -eq 124 ]; then
            echo "TIMEOUT ($label): a run took more than ${TMO}s: $*"
            fail=1
        fi
    done
    cases=$((cases + 1))
    if [ $r1 -ne $r4 ] || ! cmp -s "$T/one" "$T/full" || ! cmp -s "$T/one.err" "$T/full.err"; then
        echo "DIFFERENT ($label, every block decoded in full): exit $r4 vs $r1: $*"
        diff "$T/full" "$T/one" | head -5
        diff "$T/full.err" "$T/one.err" | head -3
        fail=1
    fi
    if [ $r1 -ne $r2 ] || ! cmp -s "$T/one" "$T/two" || ! cmp -s "$T/one.err" "$T/two.err"; then
        echo "DIFFERENT ($label): exit $r1 vs $r2: $*"
        diff "$T/one" "$T/two" | head -5
        diff "$T/one.err" "$T/two.err" | head -3
        fail=1
    fi
    if [ $r1 -ne $r3 ] || ! cmp -s "$T/one" "$T/split" || ! cmp -s "$T/one.err" "$T/split.err"; then
        echo "DIFFERENT ($label, verification split): exit $r1 vs $r3: $*"
        diff "$T/one" "$T/split" | head -5
        diff "$T/one.err" "$T/split.err" | head -3
        fail=1
    fi
    if [ $r1 -ne $r5 ] || ! cmp -s "$T/one" "$T/late" || ! cmp -s "$T/one.err" "$T/late.err"; then
        echo "DIFFERENT ($label, verification split, no handover): exit $r1 vs $r5: $*"
        diff "$T/one" "$T/late" | head -5
        diff "$T/one.err" "$T/late.err" | head -3
        fail=1
    fi
}

check_dump() { # dump, then extra options (--pte P ...)
    local f=$1
    shift
    local nb
    nb=$("$E" info "$f" --format json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["block_count"])' 2>/dev/null || echo 0)
    # one block: the pass cannot be split (the same code runs either way), nothing to compare
    [ "${nb:-0}" -ge 2 ] || return 0
    multi=$((multi + 1))
    for cmd in ops summary tree explain runs info; do
        run_both "$cmd" "$cmd" "$f" "$@" --format json
    done
    run_both "ops text" ops "$f" "$@"
    run_both "info text" info "$f" "$@"
    run_both "ops csv" ops "$f" "$@" --format csv
    run_both "ops --skip-first" ops "$f" "$@" --skip-first 1 --format json
    run_both "diff self" diff "$f" "$f" "$@" --format json
}

# every dump of the repository's test data, alone (its own program is not known here)
while IFS= read -r f; do
    check_dump "$f"
done < <(find "$D" -name '*.etdp' | sort)
# the real dumps with their programs (pairs as in tests/data/MANIFEST.md)
check_dump "$D/fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp" --pte "$D/upstream/stories260k_hybrid_llama_qnn.pte"
check_dump "$D/real/add_pte_10x.etdp" --pte "$D/upstream/add.pte"
# host scopes whose nesting changes from run to run: a repeated run finds their tree parents
# again from its times (src/analyze/analysis.c, tree_parents): flatc-built/host_scopes*.etdp, checked
# with the rest of tests/data above (tests/data/README.md)
check_dump "$D/real/add_pte_10x.etdp" --pte "$D/upstream/stories260k_hybrid_llama_qnn.pte" --ignore-program-mismatch

# generated: every style, several block counts, a slow op, rows only in later blocks (--slow
# changes values, not names; the mixed style adds partitions)
for style in qnn-llm cpu mixed; do
    for blocks in 2 3 7; do
        "$GEN" --style "$style" --blocks $blocks --nodes 40 --seed $blocks --pte "$T/g.pte" -o "$T/g.etdp" -q || { echo "etprof-gen failed"; exit 1; }
        check_dump "$T/g.etdp" --pte "$T/g.pte"
        check_dump "$T/g.etdp"
    done
    "$GEN" --style "$style" --blocks 5 --nodes 40 --seed 9 --slow add:3 --pte "$T/g.pte" -o "$T/g.etdp" -q
    check_dump "$T/g.etdp" --pte "$T/g.pte"
done
# two dumps one after the other in one file is not a dump: a dump whose second half holds rows
# the first half never saw comes from concatenating runs of two methods
"$GEN" --style mixed --blocks 6 --nodes 24 --seed 4 --pte "$T/m.pte" -o "$T/m.etdp" -q
check_dump "$T/m.etdp" --pte "$T/m.pte" --method forward 2>/dev/null

# errors are the one-thread ones: the memory budget is charged by both halves at once, so a
# budget one pass fits in (4 MiB: ~2,000 rows) must not fail with two threads, and one it does
# not fit in (2 MiB) must fail with the same located line
"$GEN" --style qnn-llm --blocks 6 --nodes 2000 --seed 3 --pte "$T/b.pte" -o "$T/b.etdp" -q
for budget in 4 2; do
    for cmd in ops summary info; do
        ETPROF_MEMORY_BUDGET=$budget run_both "$cmd budget $budget" "$cmd" "$T/b.etdp" --pte "$T/b.pte" --format json
    done
done
ETPROF_MEMORY_BUDGET=4 ETPROF_THREADS=2 "$E" ops "$T/b.etdp" --pte "$T/b.pte" -o /dev/null ||
    { echo "budget 4 MiB: two threads failed where one pass fits"; fail=1; }
ETPROF_MEMORY_BUDGET=2 ETPROF_THREADS=2 "$E" ops "$T/b.etdp" --pte "$T/b.pte" -o /dev/null 2>/dev/null &&
    { echo "budget 2 MiB: expected a refusal"; fail=1; }

# a verification error in the first half, in the second, in both: the first in file order, as
# one pass reports it (with the split, the second half's thread finds its own first)
"$GEN" --style qnn-llm --blocks 8 --nodes 300 --seed 5 --pte "$T/c.pte" -o "$T/c.etdp" -q
errs=0
for where in 0.3 0.8 both; do
    python3 - "$T/c.etdp" "$T/bad.etdp" "$where" <<'EOF'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
for frac in ((0.3, 0.8) if sys.argv[3] == "both" else (float(sys.argv[3]),)):
    off = int(len(d) * frac) // 4 * 4
    for k in range(0, 64, 4):
        struct.pack_into("<I", d, off + k, 0x7FFFFFF0)
open(sys.argv[2], "wb").write(d)
EOF
    for cmd in ops summary info; do
        run_both "$cmd corrupted at $where" "$cmd" "$T/bad.etdp" --pte "$T/c.pte" --format json
        grep -q 'run_data\[' "$T/one.err" && errs=$((errs + 1))
    done
done
[ "$errs" -ge 9 ] || { echo "the corrupted dumps gave $errs located block errors of 9"; fail=1; }

echo "$cases comparisons, $multi dumps of two blocks or more"
[ "$multi" -ge 10 ] || { echo "too few multi-block dumps: the two-thread pass was hardly exercised"; fail=1; }
exit $fail
