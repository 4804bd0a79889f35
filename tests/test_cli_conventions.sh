#!/usr/bin/env bash
# Command-line conventions (issue 11.6): options before or after the command, --opt=value,
# bundled short options, "--", "did you mean", the file-before-command hint, and tables that fit
# COLUMNS by leaving out columns (named in a note) before cutting names.
#   test_cli_conventions.sh ETPROF DATA_DIR
set -u
E=$(realpath "$1")
D=$(realpath "$2")
F=$D/fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp
P=$D/upstream/stories260k_hybrid_llama_qnn.pte
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
unset COLUMNS
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
same() { # what, file a, file b
    if cmp -s "$2" "$3"; then ok; else bad "$1"; diff "$2" "$3" | head -5; fi
}

"$E" ops "$F" --pte "$P" --format csv >"$T/ref.csv" || bad "reference run"
"$E" --format csv ops "$F" --pte "$P" >"$T/a.csv"; same "global option before the command" "$T/ref.csv" "$T/a.csv"
"$E" --pte "$P" ops --format=csv "$F" >"$T/b.csv"; same "--pte before the command, --format=VALUE" "$T/ref.csv" "$T/b.csv"
"$E" ops "$F" --pte="$P" -fcsv >"$T/c.csv"; same "-fVALUE" "$T/ref.csv" "$T/c.csv"
"$E" -qf csv ops "$F" --pte "$P" >"$T/d.csv"; same "bundled -qf VALUE before the command" "$T/ref.csv" "$T/d.csv"
"$E" ops -qo "$T/e.csv" -f csv "$F" --pte "$P"; same "bundled -qo FILE" "$T/ref.csv" "$T/e.csv"
cp "$F" "$T/-odd.etdp"
(cd "$T" && "$E" ops --pte "$P" --format csv -- -odd.etdp) >"$T/f.csv"; same "-- ends options" "$T/ref.csv" "$T/f.csv"

expect_err() { # what, exit code, stderr pattern, command...
    local what=$1 code=$2 pat=$3
    shift 3
    "$@" >"$T/out" 2>"$T/err"
    local rc=$?
    if [ "$rc" != "$code" ]; then bad "$what: exit $rc, expected $code"; return; fi
    if [ -s "$T/out" ]; then bad "$what: printed to standard output"; return; fi
    if [ "$(wc -l <"$T/err")" != 1 ]; then bad "$what: not one line: $(cat "$T/err")"; return; fi
    grep -qF -- "$pat" "$T/err" && ok || bad "$what: stderr '$(cat "$T/err")' lacks '$pat'"
}
expect_err "near command" 2 "did you mean 'summary'?" "$E" sumary "$F"
expect_err "swapped letters" 2 "did you mean 'explain'?" "$E" explian "$F"
expect_err "far command" 2 'unknown command "frobnicate" (see' "$E" frobnicate "$F"
expect_err "file before command" 2 "the command comes first: did you mean 'etprof ops $F'?" "$E" "$F" ops
expect_err "near option" 2 "unknown option --ptee: did you mean --pte?" "$E" ops "$F" --ptee "$P"
expect_err "near option with =" 2 "unknown option --formt: did you mean --format?" "$E" ops "$F" --formt=csv
expect_err "unknown short option in a bundle" 2 "unknown option -z" "$E" ops "$F" -qz
expect_err "option that does not apply" 2 "option --top does not apply" "$E" --top 3 info "$F"

# Narrow terminals: every line fits, the columns left out are named, names keep 28 characters.
COLUMNS=100 "$E" ops "$F" --pte "$P" --top 5 >"$T/narrow.txt" || bad "narrow ops"
long=$(awk 'length($0) > 100' "$T/narrow.txt" | wc -l)
[ "$long" = 0 ] && ok || bad "narrow ops: $long lines longer than 100 columns"
head -1 "$T/narrow.txt" | grep -qw p10 && bad "narrow ops still shows p10" || ok
head -1 "$T/narrow.txt" | grep -qw p50 && ok || bad "narrow ops lost p50"
grep -q "^note: columns left out to fit 100 terminal columns: p10, p90" "$T/narrow.txt" && ok ||
    bad "narrow ops: no note naming the columns left out"
COLUMNS=120 "$E" ops "$F" --pte "$P" --top 5 >"$T/n120.txt"
grep -q "Number of HVX threads used" "$T/n120.txt" && ok || bad "ops at 120 columns cut names below 28 characters"
head -1 "$T/n120.txt" | grep -qw operator && ok || bad "ops at 120 columns lost the operator column"
# Wide enough: nothing left out, no note.
COLUMNS=400 "$E" ops "$F" --pte "$P" --top 5 >"$T/wide.txt"
grep -q "columns left out" "$T/wide.txt" && bad "wide ops left columns out" || ok
"$E" ops "$F" --pte "$P" --top 5 >"$T/file.txt"
cmp -s "$T/wide.txt" "$T/file.txt" && ok || bad "COLUMNS=400 differs from unlimited width"
# -o FILE is never narrowed.
COLUMNS=60 "$E" ops "$F" --pte "$P" --top 5 -o "$T/o.txt"
cmp -s "$T/o.txt" "$T/file.txt" && ok || bad "-o FILE was narrowed by COLUMNS"
# Notes wrap at the width.
COLUMNS=80 "$E" tree "$F" --pte "$P" >"$T/tree.txt"
long=$(awk 'length($0) > 80' "$T/tree.txt" | wc -l)
[ "$long" = 0 ] && ok || bad "narrow tree: $long lines longer than 80 columns"

echo "cli_conventions: $pass passed, $fail failed"
[ "$fail" = 0 ]
