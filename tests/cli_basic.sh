#!/bin/sh
# CLI plumbing: formats, -o atomicity, exit codes, help/version. usage: cli_basic.sh ETPROF DATA
set -u
E=$1; D=$2
pass=0; fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
Q=$D/fake-qnn-backend/stories260k_qnn_kv_forward_1x.etdp
P=$D/upstream/stories260k_hybrid_llama_qnn.pte

# every format of events and info is produced and well-formed
for cmd in info events; do
  for f in table csv tsv json jsonl md; do
    "$E" $cmd "$Q" --pte "$P" --format $f -o "$t/out.$f" -q; rc=$?
    [ $rc = 0 ] && [ -s "$t/out.$f" ] && ok || bad "$cmd --format $f exit $rc"
  done
  jq -e '.schema_version == 1' "$t/out.json" >/dev/null && ok || bad "$cmd json schema_version"
done
# events: 1532 events in json, jsonl and csv (header + rows); every jsonl line is an object
n=$(jq '.events | length' "$t/out.json"); [ "$n" = 1532 ] && ok || bad "events json count $n"
n=$(wc -l < "$t/out.jsonl"); [ "$n" = 1532 ] && ok || bad "events jsonl lines $n"
jq -e -s 'length == 1532 and all(.[]; type == "object")' "$t/out.jsonl" >/dev/null && ok || bad "jsonl objects"
n=$(wc -l < "$t/out.csv"); [ "$n" = 1533 ] && ok || bad "events csv lines $n"
# with --pte and --method kv_forward (MANIFEST: made with --method_name kv_forward; by structure
# it fits kv_forward and prefill_forward alike) every delegate event resolves to QnnBackend in
# method kv_forward
"$E" events "$Q" --pte "$P" --method kv_forward --format json -o "$t/out.json"
n=$(jq '[.events[] | select(.kind=="delegate_internal" and .backend=="QnnBackend" and .method=="kv_forward")] | length' "$t/out.json")
[ "$n" = 1528 ] && ok || bad "delegate events resolved $n (expected 1518 nodes + 10 top-level)"
# info json: one method run, one backend with one delegate call
"$E" info "$Q" --pte "$P" --method kv_forward --format json -o "$t/info.json"
jq -e '.methods == [{"name":"kv_forward","runs":1}] and .backends == [{"id":"QnnBackend","delegate_calls":1}]' \
  "$t/info.json" >/dev/null && ok || bad "info methods/backends"

# -o to a device writes through, and does not replace it
"$E" info "$Q" -o /dev/null && [ -c /dev/null ] && ok || bad "-o /dev/null"
# a failing run leaves no output file and no temporary file behind
printf 'garbage-garbage-garbage' > "$t/bad.etdp"
"$E" events "$t/bad.etdp" -o "$t/never.json" 2>/dev/null; rc=$?
[ $rc = 1 ] && ok || bad "bad input exit $rc"
[ -z "$(ls "$t" | grep never)" ] && ok || bad "partial output left: $(ls "$t")"
# an existing output survives a failed run
echo keep > "$t/keep.json"
"$E" events "$t/bad.etdp" -o "$t/keep.json" 2>/dev/null
[ "$(cat "$t/keep.json")" = keep ] && ok || bad "existing output clobbered"

# exit codes and one-line messages
"$E" info "$t/missing.etdp" 2>"$t/err"; rc=$?
[ $rc = 3 ] && [ "$(wc -l < "$t/err")" = 1 ] && grep -q "missing.etdp: cannot open" "$t/err" && ok || bad "missing file: $rc $(cat "$t/err")"
"$E" info "$t" 2>"$t/err"; rc=$?
[ $rc = 3 ] && grep -q "is a directory" "$t/err" && ok || bad "directory: $rc"
: > "$t/empty.etdp"; "$E" info "$t/empty.etdp" 2>"$t/err"; rc=$?
[ $rc = 1 ] && grep -q "empty" "$t/err" && ok || bad "empty: $rc"
"$E" events "$P" 2>"$t/err"; rc=$?
[ $rc = 1 ] && grep -q "ExecuTorch program" "$t/err" && ok || bad "pte as etdump: $rc $(cat "$t/err")"
"$E" info "$Q" --pte "$Q" 2>"$t/err"; rc=$?
[ $rc = 1 ] && grep -q "not an ExecuTorch program" "$t/err" && ok || bad "etdump as pte: $rc"
"$E" info "$Q" --nope 2>/dev/null; [ $? = 2 ] && ok || bad "unknown option"
"$E" info 2>/dev/null; [ $? = 2 ] && ok || bad "missing arg"
"$E" frobnicate 2>/dev/null; [ $? = 2 ] && ok || bad "unknown command"
"$E" info "$Q" --format xml 2>/dev/null; [ $? = 2 ] && ok || bad "bad format"
"$E" info "$Q" --pte "$P" --method nope 2>"$t/err"; rc=$?
[ $rc = 2 ] && grep -q "kv_forward" "$t/err" && ok || bad "unknown method: $rc"
"$E" --version | grep -q "^etprof " && ok || bad "--version"
"$E" info --help | grep -q "usage: etprof info" && ok || bad "info --help"
# stdin
"$E" info - --format json < "$Q" | jq -e '.block_count == 2' >/dev/null && ok || bad "stdin"

echo "$pass passed, $fail failed"
[ $fail = 0 ]
