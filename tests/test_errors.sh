#!/usr/bin/env bash
# test_errors.sh - the golden error corpus (tests/golden_errors/cases.txt, written by gen.py).
#
# usage: test_errors.sh ETPROF GOLDEN_DIR
#
# For every case: `etprof ARGS` run in a scratch copy of GOLDEN_DIR must exit with the expected
# code, print nothing on stdout and exactly the expected line on stderr. Then `etprof ARGS -o
# out.txt` must do the same and leave no file behind (neither out.txt nor a temporary file).
set -u

etprof=$1
golden=$2
case "$etprof" in /*) ;; *) etprof=$PWD/$etprof ;; esac

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/work" "$scratch/work/a_directory"
cp -p "$golden"/* "$scratch/work/"
cd "$scratch/work" || exit 1
out=$scratch/stdout
err=$scratch/stderr
shopt -s nullglob dotglob
declare -A before
for f in *; do before[$f]=1; done

pass=0
fail=0

check() { # name want_code want_err got_code got_out got_err
    local ok=1
    if [ "$4" != "$2" ]; then
        echo "FAIL $1: exit $4, expected $2"; ok=0
    fi
    if [ -s "$5" ]; then
        echo "FAIL $1: wrote to stdout:"; head -5 "$5"; ok=0
    fi
    local lines
    mapfile -t lines <"$6"
    if [ "${#lines[@]}" != 1 ] || [ "${lines[0]}" != "$3" ]; then
        echo "FAIL $1: stderr differs"
        echo "  expected: $3"
        printf '  got:      %s\n' "${lines[@]}"
        ok=0
    fi
    return $((1 - ok))
}

n=0
while IFS=$'\t' read -r code args want; do
    case "$code" in '#'* | '') continue ;; esac
    n=$((n + 1))
    read -r -a argv <<<"$args"
    "$etprof" "${argv[@]}" >"$out" 2>"$err" </dev/null
    got=$?
    if check "etprof $args" "$code" "$want" "$got" "$out" "$err"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
    fi
    "$etprof" "${argv[@]}" -o out.txt >"$out" 2>"$err" </dev/null
    got=$?
    left=
    for f in *; do [ -n "${before[$f]:-}" ] || left="${left:+$left }$f"; done
    if check "etprof $args -o out.txt" "$code" "$want" "$got" "$out" "$err" && [ -z "$left" ]; then
        pass=$((pass + 1))
    else
        [ -n "$left" ] && echo "FAIL etprof $args -o out.txt: left behind: $left"
        fail=$((fail + 1))
    fi
    rm -f out.txt out.txt.*
done <cases.txt

if [ "$n" -lt 20 ]; then
    echo "FAIL: only $n cases read from $golden/cases.txt"
    fail=$((fail + 1))
fi
echo "golden errors: $n cases, $pass passed, $fail failed"
[ "$fail" -eq 0 ]
