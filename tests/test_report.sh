#!/bin/bash
# test_report.sh - tests of `etprof report` (docs/report.md).
#
#   test_report.sh static ETPROF DATA TMP
#       every corpus dump (with its program where there is one): the report is self-contained
#       (no http(s), no external loader), its markup balanced, its ids unique, its data block
#       JSON; the same inputs give the same bytes; strings from the files are escaped; caps,
#       options and error paths (exit codes, nothing written on failure). No browser needed.
#   test_report.sh browser CASE ETPROF DATA SHARED TMP
#       one case of tests/report_check.py in headless Chromium (exit 77 = skipped when chromium
#       or the shared QNN samples are missing).
set -u
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON3:-python3}
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok   $*"; }
# the part of an HTML file from `<tag ... id="ID"` to the first `</tag>` after it, on one line
part() { tr '\n' ' ' <"$3" | grep -o "<$1[^>]*id=\"$2\".*" | sed "s|</$1>.*||"; }

mode=${1:?mode}
shift

if [ "$mode" = browser ]; then
    case_=$1 etprof=$2 data=$3 shared=$4 tmp=$5
    exec "$py" "$here/report_check.py" browser --etprof "$etprof" --case "$case_" --data "$data" \
        --shared "$shared" --tmp "$tmp"
fi

[ "$mode" = static ] || { echo "unknown mode $mode" >&2; exit 2; }
etprof=$1 data=$2 tmp=$3
mkdir -p "$tmp"
tmp=$(mktemp -d "$tmp/static-XXXXXX")

# The program that ran each dump (tests/data/MANIFEST.md), by file name.
pte_for() {
    local d n
    d=$(basename "$(dirname "$1")") n=$(basename "$1")
    case "$d/$n" in
    fake-qnn-backend/*) echo "$data/upstream/stories260k_hybrid_llama_qnn.pte" ;;
    */mobilenet_v2_ethosu_N_*) echo "$data/ethosu-partial-delegation/pte/mobilenet_v2_ethosu_N.pte" ;;
    */mobilenet_v2_ethosu_single*) echo "$data/ethosu-partial-delegation/pte/mobilenet_v2_ethosu.pte" ;;
    */add_pte_* | */executor_runner_add_pte_*) echo "$data/upstream/add.pte" ;;
    */bundled_program_*) echo "$data/upstream/bundled_program.bpte" ;;
    */module_linear_*) echo "$data/upstream/module_linear_no_constant_segment.pte" ;;
    esac
}

# 1. every corpus dump, with and without its program
reports=()
i=0
for dump in "$data"/*/*.etdp; do
    for withpte in no yes; do
        args=("$dump")
        if [ $withpte = yes ]; then
            pte=$(pte_for "$dump")
            [ -n "$pte" ] || continue
            args+=(--pte "$pte")
        fi
        out="$tmp/r$i.html"
        i=$((i + 1))
        if "$etprof" report "${args[@]}" -o "$out" 2>"$tmp/err"; then
            reports+=("$out")
        else
            fail "etprof report ${args[*]}: $(cat "$tmp/err")"
        fi
    done
done
if "$py" "$here/report_check.py" static "${reports[@]}" >"$tmp/static.log"; then
    ok "static checks of ${#reports[@]} reports (every corpus dump, with and without its program)"
else
    fail "static checks: $(grep FAIL "$tmp/static.log")"
fi

qnn="$data/fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp"
qpte="$data/upstream/stories260k_hybrid_llama_qnn.pte"
eth="$data/ethosu-partial-delegation/mobilenet_v2_ethosu_N_partial_1x.etdp"
epte="$data/ethosu-partial-delegation/pte/mobilenet_v2_ethosu_N.pte"

# 2. deterministic: same inputs, same bytes; stdout (redirected) = -o
"$etprof" report "$qnn" --pte "$qpte" -o "$tmp/a.html"
"$etprof" report "$qnn" --pte "$qpte" -o "$tmp/b.html"
"$etprof" report "$qnn" --pte "$qpte" >"$tmp/c.html"
if cmp -s "$tmp/a.html" "$tmp/b.html" && cmp -s "$tmp/a.html" "$tmp/c.html"; then
    ok "deterministic output; standard output equals -o"
else
    fail "two runs (or -o and stdout) differ"
fi

# 3. strings from the inputs are escaped: a file name full of markup
evil="$tmp/x<script>alert(1)<script>&\"q'.etdp"
cp "$eth" "$evil"
if "$etprof" report "$evil" --pte "$epte" -o "$tmp/evil.html" 2>"$tmp/err"; then
    if grep -q '<script>alert' "$tmp/evil.html"; then
        fail "the file name reached the HTML unescaped"
    elif ! grep -q 'x&lt;script&gt;alert(1)&lt;script&gt;&amp;&quot;q&#39;.etdp' "$tmp/evil.html"; then
        fail "the escaped file name is not in the report"
    elif ! "$py" "$here/report_check.py" static "$tmp/evil.html" >/dev/null; then
        fail "the report of a file with a hostile name is not well-formed"
    elif ! grep -q '"file":"[^"]*x\\u003cscript\\u003ealert(1)\\u003cscript\\u003e\\u0026\\"q'"'"'.etdp"' "$tmp/evil.html"; then
        fail "the data block does not carry the name with <, > and & escaped"
    else
        ok "file names with markup are escaped in text, attributes and the data block"
    fi
else
    fail "report of a file with a hostile name: $(cat "$tmp/err")"
fi

# 4. options: caps, --time-unit, --skip-first, --top
"$etprof" report "$eth" --pte "$epte" --top 5 -o "$tmp/top.html"
n=$(part table top-ops-table "$tmp/top.html" | grep -o '<tr>' | wc -l)
if [ "$n" -eq 6 ] && grep -q 'Showing the top 5 of' "$tmp/top.html"; then
    ok "--top 5: five operator rows and a note saying so"
else
    fail "--top 5: $((n - 1)) rows"
fi
"$etprof" report "$qnn" --pte "$qpte" --time-unit ms -o "$tmp/ms.html"
p50_us=$(grep -o 'id="m0-p50"><div class="k">latency p50</div><div class="v">[0-9.]*<span class="u">us' "$tmp/a.html" | grep -o '">[0-9.][0-9.]*<' | tr -d '"<>')
p50_ms=$(grep -o 'id="m0-p50"><div class="k">latency p50</div><div class="v">[0-9.]*<span class="u">ms' "$tmp/ms.html" | grep -o '">[0-9.][0-9.]*<' | tr -d '"<>')
if [ -n "$p50_us" ] && [ -n "$p50_ms" ] && awk -v a="$p50_us" -v b="$p50_ms" 'BEGIN { d = a / 1000 - b; exit !(d < 1e-6 && d > -1e-6) }'; then
    ok "--time-unit ms: p50 $p50_ms ms = $p50_us us"
else
    fail "--time-unit ms: '$p50_ms' ms vs '$p50_us' us"
fi
"$etprof" report "$qnn" --pte "$qpte" --skip-first 1 -o "$tmp/skip.html"
if grep -q 'id="m0-runs"><div class="k">runs</div><div class="v">9<span class="u">kept' "$tmp/skip.html" &&
    [ "$(part section runs "$tmp/skip.html" | grep -o '<circle' | wc -l)" -eq 9 ]; then
    ok "--skip-first 1: 9 runs kept and drawn"
else
    fail "--skip-first 1"
fi
rows=$(part table htp-nodes "$tmp/a.html" | grep -o '<tr>' | wc -l)
if [ "$rows" -eq 201 ] && grep -q '1318 more HTP node(s) not shown' "$tmp/a.html"; then
    ok "1518 HTP nodes: the table is capped at 200 rows and says so"
else
    fail "HTP node table cap: $((rows - 1)) rows"
fi
big="$data/synthetic/synth_qnn_llm_20x2000.etdp"
if "$etprof" report "$big" -o "$tmp/big.html" && [ "$(stat -c %s "$tmp/big.html")" -lt 2000000 ]; then
    ok "large synthetic dump ($(stat -c %s "$big") bytes): report of $(stat -c %s "$tmp/big.html") bytes"
else
    fail "large synthetic dump"
fi

# 5. errors: exit codes, a located message, and no output file left behind
expect() { # expect CODE WHAT ARGS...: the report must fail with CODE and leave no -o file
    local code=$1 what=$2
    shift 2
    rm -f "$tmp/err.html"
    "$etprof" report "$@" -o "$tmp/err.html" 2>"$tmp/err"
    local rc=$?
    if [ $rc -ne "$code" ]; then
        fail "$what: exit $rc, expected $code ($(cat "$tmp/err"))"
    elif [ -e "$tmp/err.html" ]; then
        fail "$what: an output file was left behind"
    elif ! grep -q '^etprof: ' "$tmp/err"; then
        fail "$what: no message"
    else
        ok "$what: exit $code, $(head -c 150 "$tmp/err")"
    fi
}
fx="$data/qnn-fixtures"
expect 1 "QHAS with the wrong artifact_type" "$qnn" --qhas "$fx/qhas_wrong_artifact.json"
expect 1 "truncated QHAS" "$qnn" --qhas "$fx/qhas_truncated.json"
expect 1 "bad optrace" "$qnn" --optrace "$fx/optrace_missing_id.json"
expect 1 "bad heap file" "$qnn" --heap "$fx/heap_bad_value.txt"
expect 3 "missing QHAS file" "$qnn" --qhas "$tmp/does-not-exist.json"
expect 1 "not an ETDump" "$fx/garbage.bin"
expect 2 "--format json" "$qnn" --format json
expect 2 "--time-unit parsec" "$qnn" --time-unit parsec
expect 2 "--top 0" "$qnn" --top 0
"$etprof" report "$qnn" --qhas "$fx/qhas_wrong_artifact.json" -o "$tmp/err.html" 2>"$tmp/err"
grep -q 'qhas_wrong_artifact.json' "$tmp/err" && ok "the QNN file error names the file" ||
    fail "the QNN file error does not name the file: $(cat "$tmp/err")"

# 6. QNN fixtures that parse: the deep-data section appears, well-formed
"$etprof" report "$qnn" --pte "$qpte" --qhas "$fx/qhas_small.json" --optrace "$fx/optrace_small.json" \
    --runtrace "$fx/runtrace_small.json" --heap "$fx/heap_ok.txt" -o "$tmp/fx.html" 2>"$tmp/err" &&
    "$py" "$here/report_check.py" static "$tmp/fx.html" >/dev/null &&
    grep -q 'id="qnn-deep"' "$tmp/fx.html" && grep -q 'HTP timeline (optrace)' "$tmp/fx.html" &&
    ok "QNN fixtures (QHAS, optrace, runtrace, heap): deep-data section, well-formed" ||
    fail "QNN fixtures: $(cat "$tmp/err")"

if [ $fails -ne 0 ]; then
    echo "$fails check(s) failed (files in $tmp)"
    exit 1
fi
rm -rf "$tmp"
exit 0
