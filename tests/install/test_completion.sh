#!/bin/bash
# Shell completion generated from the command table (issue 11.5): the bash script the build made
# (`etprof --completion bash`) is sourced and _etprof is run on simulated command lines
# (COMP_WORDS/COMP_CWORD, as bash's programmable completion sets them). For every command, the
# options it completes after "-" must be exactly the options `etprof CMD --help` lists (plus
# nothing else). The zsh script is checked with `zsh -n` when zsh is installed.
# usage: test_completion.sh ETPROF BASH_SCRIPT ZSH_SCRIPT
set -u
export LC_ALL=C
etprof=$1 bashc=$2 zshc=$3
fail=0
bad() { echo "FAIL: $*"; fail=1; }
[ -f "$bashc" ] || { echo "FAIL: no bash completion script $bashc"; exit 1; }
# shellcheck disable=SC1090
source "$bashc" || { echo "FAIL: sourcing $bashc"; exit 1; }
complete -p etprof >/dev/null 2>&1 || bad "sourcing $bashc registers no completion for etprof"

# complete WORD...: the last word is the one being completed; prints the candidates, sorted
complete_words() {
    COMP_WORDS=("$@")
    COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
    COMP_LINE="$*" COMP_POINT=${#COMP_LINE}
    COMPREPLY=()
    _etprof etprof "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
    printf '%s\n' "${COMPREPLY[@]}" | sort
}
expect() {
    want=$1; shift
    got=$(complete_words "$@" | tr '\n' ' ' | sed 's/ $//')
    if [ "$got" = "$want" ]; then echo "ok: '$*' -> $got"
    else bad "'$*' completes to '$got', expected '$want'"; fi
}
expect "ops" etprof o
expect "diff" etprof di
expect "--format" etprof ops --f
expect "--fail-on-regression --format" etprof diff --f
expect "json jsonl" etprof ops F --format j
expect "json jsonl" etprof ops F -f j
expect "ops" etprof --format csv o
expect "--tick-hz --tick-ns --ticks --time-unit --top" etprof summary --t

# every command: completed options == the options of its --help
cmds=$("$etprof" --help | sed -n '/^commands:$/,/^$/p' | awk 'NF > 1 { print $1 }')
[ -n "$cmds" ] || bad "no commands in etprof --help"
for c in $cmds; do
    want=$("$etprof" "$c" --help | sed -n '/^options:$/,$p' |
           sed -n 's/^  \(-\(.\), \)\{0,1\}\(    \)\{0,1\}--\([a-z0-9-]*\).*/\2 --\4/p' |
           tr ' ' '\n' | sed '/^$/d; /^-/!s/^/-/' | sort | tr '\n' ' ')
    got=$(complete_words etprof "$c" - | tr '\n' ' ')
    if [ "$got" = "$want" ]; then echo "ok: etprof $c -<TAB>: $(echo "$got" | wc -w) options, as --help"
    else bad "etprof $c -<TAB>: '$got'; --help lists '$want'"; fi
done

if command -v zsh >/dev/null 2>&1; then
    zsh -n "$zshc" && echo "ok: zsh -n $zshc" || bad "zsh -n $zshc"
else
    echo "note: zsh not installed: $zshc only checked for its #compdef line and commands"
fi
head -1 "$zshc" | grep -qx '#compdef etprof' || bad "$zshc does not start with #compdef etprof"
for c in $cmds; do grep -q "^    $c)" "$zshc" || bad "$zshc has no case for $c"; done
[ "$fail" -eq 0 ] && echo "completion: ok"
exit "$fail"
