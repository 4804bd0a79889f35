#!/usr/bin/env bash
# test_csv_injection.sh ETPROF SOURCE_DIR [FLATC]
# Issue 16.4: csv/tsv text cells starting with = + - @ TAB CR get a leading ' (spreadsheet formula
# injection); numeric cells (-1 chain_index) stay as they are; --csv-raw turns the prefix off.
# The dump is built here by flatc from a hand-written JSON (event names known independently).
set -u
ETPROF=${1:?usage: test_csv_injection.sh ETPROF SOURCE_DIR [FLATC]}
SRC=${2:?usage}
FLATC=${3:-$(command -v flatc)}
[ -x "$FLATC" ] || { echo "SKIP: flatc not found"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
cat >"$TMP/inj.json" <<'J'
{"version": 0, "run_data": [{"name": "Execute", "events": [
 {"profile_event": {"name": "=HYPERLINK(1)", "chain_index": -1, "instruction_id": -1, "start_time": 100, "end_time": 150}},
 {"profile_event": {"name": "@SUM(A1)", "chain_index": -1, "instruction_id": -1, "start_time": 150, "end_time": 155}},
 {"profile_event": {"name": "-2+3", "chain_index": -1, "instruction_id": -1, "start_time": 155, "end_time": 158}},
 {"profile_event": {"name": "-7", "chain_index": -1, "instruction_id": -1, "start_time": 158, "end_time": 159}},
 {"profile_event": {"name": "plain", "chain_index": -1, "instruction_id": -1, "start_time": 160, "end_time": 170}}
]}]}
J
"$FLATC" -b --size-prefixed -o "$TMP" "$SRC/schema/etdump.fbs" "$TMP/inj.json" || { echo "flatc failed"; exit 1; }
D=$TMP/inj.etdp
"$ETPROF" events "$D" -f csv >"$TMP/c.csv" || bad "events csv exit $?"
"$ETPROF" events "$D" -f tsv >"$TMP/c.tsv" || bad "events tsv exit $?"
"$ETPROF" events "$D" -f csv --csv-raw >"$TMP/r.csv" || bad "events csv --csv-raw exit $?"
# label is column 5; chain_index column 6 is the number -1 in every row
col() { awk -F"$2" -v r="$3" -v c="$4" 'NR == r + 1 { print $c }' "$1"; }
for f in c.csv:, c.tsv:'\t'; do
    file=${f%%:*} sep=${f#*:}
    [ "$(col "$TMP/$file" "$sep" 1 5)" = "'=HYPERLINK(1)" ] || bad "$file: row 1 label $(col "$TMP/$file" "$sep" 1 5)"
    [ "$(col "$TMP/$file" "$sep" 2 5)" = "'@SUM(A1)" ] || bad "$file: row 2 label $(col "$TMP/$file" "$sep" 2 5)"
    [ "$(col "$TMP/$file" "$sep" 3 5)" = "'-2+3" ] || bad "$file: row 3 label $(col "$TMP/$file" "$sep" 3 5)"
    [ "$(col "$TMP/$file" "$sep" 4 5)" = "-7" ] || bad "$file: text that is a number, row 4: $(col "$TMP/$file" "$sep" 4 5)"
    [ "$(col "$TMP/$file" "$sep" 5 5)" = "plain" ] || bad "$file: row 5 label"
    [ "$(col "$TMP/$file" "$sep" 1 6)" = "-1" ] || bad "$file: numeric chain_index $(col "$TMP/$file" "$sep" 1 6)"
done
[ "$(col "$TMP/r.csv" , 1 5)" = "=HYPERLINK(1)" ] || bad "--csv-raw: row 1 label $(col "$TMP/r.csv" , 1 5)"
[ "$(col "$TMP/r.csv" , 3 5)" = "-2+3" ] || bad "--csv-raw: row 3 label"
echo "csv_injection: $fail failed"
[ "$fail" = 0 ]
