#!/usr/bin/env bash
# test_write_errors.sh ETPROF DATA_DIR
# Issue 16.3/16.4: one output path for every command.
#   - A failed write (-o /dev/full, or standard output redirected to /dev/full) ends with exit 3
#     and exactly one line on stderr naming the file ("/dev/full", or "<stdout>") and the
#     reason strerror(ENOSPC) gives ("No space left on device"), in table and JSON.
#     Before: info printed nothing, most commands "X: write failed", trace/report "write failed".
#   - A reader that goes away (`| head -1`) ends etprof quietly with status 141 (SIGPIPE), also
#     when SIGPIPE is ignored (EPIPE): nothing on stderr (docs/cli.md "Exit status").
set -u
ETPROF=${1:?usage: test_write_errors.sh ETPROF DATA_DIR}
DATA=${2:?usage: test_write_errors.sh ETPROF DATA_DIR}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
[ -w /dev/full ] || { echo "SKIP: no writable /dev/full"; exit 77; }

D=$DATA/fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp
P=(--pte "$DATA/upstream/stories260k_hybrid_llama_qnn.pte" --method kv_forward)
Q=$DATA/qnn-fixtures/stories260k_kv_qhas.json
ENOSPC="No space left on device"

args_for() { # command format -> argument list in ARGS
    case $1 in
    qnn) ARGS=(qnn "$D" "${P[@]}" --qhas "$Q" -f "$2") ;;
    diff) ARGS=(diff "$D" "$D" "${P[@]}" -f "$2") ;;
    trace | report) ARGS=("$1" "$D" "${P[@]}") ;; # one format each (JSON / HTML)
    *) ARGS=("$1" "$D" "${P[@]}" -f "$2") ;;
    esac
}

# check_one LABEL NAME: exit 3 in $rc, exactly one stderr line naming NAME and the reason
check_one() {
    local label=$1 name=$2 n
    n=$(wc -l <"$TMP/err")
    if [ "$rc" != 3 ]; then bad "$label: exit $rc, expected 3"; return; fi
    if [ "$n" != 1 ]; then bad "$label: $n stderr lines, expected 1: $(tr '\n' '|' <"$TMP/err")"; return; fi
    grep -qF "$name" "$TMP/err" || { bad "$label: stderr does not name $name: $(cat "$TMP/err")"; return; }
    grep -qF "$ENOSPC" "$TMP/err" || { bad "$label: stderr lacks \"$ENOSPC\": $(cat "$TMP/err")"; return; }
    pass=$((pass + 1))
}

for c in info events ops tree summary explain qnn trace report diff; do
    for f in table json; do
        args_for "$c" "$f"
        # the command itself works: the failures below are the output's alone
        "$ETPROF" "${ARGS[@]}" -o "$TMP/ok.out" 2>"$TMP/err"
        rc=$?
        if [ "$rc" != 0 ] && [ "$rc" != 5 ]; then bad "$c $f: exit $rc to a file: $(cat "$TMP/err")"; continue; fi
        [ -s "$TMP/ok.out" ] || bad "$c $f: empty output to a file"
        "$ETPROF" "${ARGS[@]}" -o /dev/full 2>"$TMP/err"
        rc=$?
        check_one "$c $f -o /dev/full" "/dev/full"
        "$ETPROF" "${ARGS[@]}" >/dev/full 2>"$TMP/err"
        rc=$?
        check_one "$c $f >/dev/full" "<stdout>"
        "$ETPROF" "${ARGS[@]}" -o - >/dev/full 2>"$TMP/err"
        rc=$?
        check_one "$c $f -o - >/dev/full" "<stdout>"
    done
done

# A reader that stops early: quiet, 141 (the events table is ~3 MB, far beyond any pipe buffer)
"$ETPROF" events "$D" "${P[@]}" 2>"$TMP/err" | head -1 >"$TMP/head"
st=("${PIPESTATUS[@]}")
if [ "${st[0]}" = 141 ] && [ ! -s "$TMP/err" ] && [ -s "$TMP/head" ]; then pass=$((pass + 1)); else
    bad "events | head -1: status ${st[0]}, stderr: $(cat "$TMP/err")"; fi
# the same with SIGPIPE ignored (as some launchers do): EPIPE is noticed, still quiet and 141
(trap '' PIPE; "$ETPROF" events "$D" "${P[@]}" -f csv 2>"$TMP/err" | head -1 >"$TMP/head"; exit "${PIPESTATUS[0]}")
rc=$?
if [ "$rc" = 141 ] && [ ! -s "$TMP/err" ] && [ -s "$TMP/head" ]; then pass=$((pass + 1)); else
    bad "SIGPIPE ignored, events | head -1: status $rc, stderr: $(cat "$TMP/err")"; fi

echo "write_errors: $pass passed, $fail failed"
[ "$fail" = 0 ]
