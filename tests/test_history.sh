#!/bin/sh
# End-to-end tests of `etprof history` (docs/history.md). Expected values from outside etprof:
#  - identity: sha256sum of the dump and of the program;
#  - the number of runs: etprof-gen's --blocks (each block is one Execute run);
#  - what is stored: read back with Python's sqlite3 module (a second reader of the file);
#  - the gate: etprof-gen's --slow model (same seed, the slowed op takes FACTOR x its time:
#    bench/gen.c), so a slowed copy must be a regression and a byte copy must pass;
#  - a corrupt or foreign file must be refused (exit 1, one located line) and its bytes unchanged
#    (sha256sum before and after).
# usage: test_history.sh ETPROF ETPROF_GEN PYTHON3
set -eu
ETPROF=$1
GEN=$2
PY=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
NCHECK=0
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
ok() { NCHECK=$((NCHECK + 1)); }
# run EXPECTED_RC OUT ARGS...
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
sql() { # sql DB QUERY: the first column of every row, one per line
  "$PY" -c 'import sqlite3, sys
c = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
for r in c.execute(sys.argv[2]): print(r[0])' "$1" "$2"
}

"$GEN" --style cpu --nodes 3 --blocks 12 --seed 1 --pte "$T/m.pte" -q -o "$T/base.etdp"
"$GEN" --style cpu --nodes 3 --blocks 12 --seed 1 --slow native_call_embedding:2 -q -o "$T/slow.etdp"
cp "$T/base.etdp" "$T/copy.etdp"

# --- 1. add, identity, labels, runs ----------------------------------------------------------
run 0 "$T/add1" history add "$T/h1.db" "$T/base.etdp" --pte "$T/m.pte" --label device=pixel8 \
  --label soc=SM8650 --label captured=2026-01-01T00:00:00Z
run 0 "$T/add2" history add "$T/h1.db" "$T/copy.etdp" --pte "$T/m.pte" --label device=pixel8 \
  --label soc=SM8650 --label captured=2026-01-02T00:00:00Z
[ "$(sql "$T/h1.db" 'PRAGMA user_version')" = 1 ] || fail "user_version"
[ "$(sql "$T/h1.db" 'PRAGMA journal_mode')" = wal ] || fail "journal_mode"
want=$(sha256sum "$T/base.etdp" | cut -d' ' -f1)
[ "$(sql "$T/h1.db" 'SELECT dump_sha256 FROM entry WHERE id = 1')" = "$want" ] || fail "dump sha256"
want=$(sha256sum "$T/m.pte" | cut -d' ' -f1)
[ "$(sql "$T/h1.db" 'SELECT DISTINCT program_sha256 FROM entry')" = "$want" ] || fail "program sha256"
[ "$(sql "$T/h1.db" 'SELECT runs FROM method WHERE entry_id = 1')" = 12 ] || fail "runs = --blocks 12"
[ "$(sql "$T/h1.db" 'SELECT count(*) FROM run WHERE entry_id = 1')" = 12 ] || fail "12 run rows"
[ "$(sql "$T/h1.db" "SELECT value FROM label WHERE entry_id = 2 AND key = 'soc'")" = SM8650 ] || fail "label"
[ "$(sql "$T/h1.db" 'SELECT labels FROM entry WHERE id = 1')" = \
  "captured=2026-01-01T00:00:00Z,device=pixel8,soc=SM8650" ] || fail "labels text"
ok
# the stored p50 is the median of the stored per-run Method::execute (computed here by hand)
"$PY" - "$T/h1.db" <<'PYEOF' || fail "p50 of the runs"
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
v = sorted(r[0] for r in c.execute("SELECT execute FROM run WHERE entry_id = 1"))
n = len(v)
med = (v[n // 2 - 1] + v[n // 2]) / 2 if n % 2 == 0 else v[n // 2]
p50 = c.execute("SELECT latency_p50 FROM method WHERE entry_id = 1").fetchone()[0]
assert abs(med - p50) <= 1e-9 * abs(med), (med, p50)
PYEOF
run 0 "$T/list.json" history list "$T/h1.db" --format json
grep -q '"dump_sha256"' "$T/list.json" || fail "list json"
run 0 "$T/show.txt" history show "$T/h1.db" 2
grep -q 'pixel8' "$T/show.txt" || fail "show"
run 2 "$T/show9" history show "$T/h1.db" 9
run 3 "$T/nodb" history list "$T/none.db"
[ ! -e "$T/none.db" ] || fail "list created a history"

# --- 2. gate: a byte copy passes, a slowed copy is a regression ---------------------------------
run 0 "$T/gate0.txt" history gate "$T/h1.db"
grep -q 'gate: pass' "$T/gate0.txt" || fail "gate pass note: $(cat "$T/gate0.txt")"
run 0 "$T/add3" history add "$T/h2.db" "$T/base.etdp" --label device=pixel8 --label captured=2026-01-01T00:00:00Z
run 0 "$T/add4" history add "$T/h2.db" "$T/slow.etdp" --label device=pixel8 --label captured=2026-01-02T00:00:00Z
run 5 "$T/gate5.txt" history gate "$T/h2.db"
grep -q 'regression' "$T/gate5.txt" || fail "gate regression note"
run 5 "$T/gate5.json" history gate "$T/h2.db" --format json
run 0 "$T/trend.csv" history trend "$T/h2.db" --format csv
[ "$(grep -c slower "$T/trend.csv")" = 1 ] || fail "trend: one slower point"
# a different device is its own series: one entry, nothing to judge -> inconclusive (6)
run 0 "$T/add5" history add "$T/h3.db" "$T/base.etdp" --label device=a
run 0 "$T/add6" history add "$T/h3.db" "$T/slow.etdp" --label device=b
run 6 "$T/gate6.txt" history gate "$T/h3.db"

# --- 3. two concurrent writers, 100 dumps each: none lost ----------------------------------------
i=0
while [ $i -lt 20 ]; do
  "$GEN" --style cpu --nodes 2 --blocks 3 --seed $((i + 10)) -q -o "$T/c$i.etdp"
  i=$((i + 1))
done
A=""
B=""
k=0
while [ $k -lt 5 ]; do
  i=0
  while [ $i -lt 20 ]; do A="$A $T/c$i.etdp"; B="$B $T/c$i.etdp"; i=$((i + 1)); done
  k=$((k + 1))
done
# shellcheck disable=SC2086
"$ETPROF" history add "$T/cc.db" $A --label device=w1 -q 2>"$T/w1.err" &
p1=$!
# shellcheck disable=SC2086
"$ETPROF" history add "$T/cc.db" $B --label device=w2 -q 2>"$T/w2.err" &
p2=$!
wait $p1 || fail "writer 1: $(cat "$T/w1.err")"
wait $p2 || fail "writer 2: $(cat "$T/w2.err")"
[ "$(sql "$T/cc.db" 'SELECT count(*) FROM entry')" = 200 ] || fail "200 entries"
[ "$(sql "$T/cc.db" "SELECT count(*) FROM entry WHERE device = 'w1'")" = 100 ] || fail "100 of w1"
[ "$(sql "$T/cc.db" 'SELECT count(*) FROM run')" = 600 ] || fail "600 runs (200 x 3 blocks)"
ok

# --- 4. corrupt, foreign, not SQLite: refused, located, untouched --------------------------------
cp "$T/h1.db" "$T/bad.db"
"$PY" -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("PRAGMA wal_checkpoint(TRUNCATE)")' "$T/bad.db"
rm -f "$T/bad.db-wal" "$T/bad.db-shm"
psz=$(sql "$T/bad.db" 'PRAGMA page_size')
# page 2 (the first page after the schema) overwritten with 0xA5 bytes
"$PY" -c 'import sys; f = open(sys.argv[1], "r+b"); f.seek(int(sys.argv[2])); f.write(b"\xa5" * int(sys.argv[2])); f.close()' "$T/bad.db" "$psz"
before=$(sha256sum "$T/bad.db" | cut -d' ' -f1)
run 1 "$T/bad" history add "$T/bad.db" "$T/base.etdp"
[ "$(wc -l <"$T/bad.err")" = 1 ] || fail "one line: $(cat "$T/bad.err")"
grep -q "bad.db" "$T/bad.err" || fail "the file is named: $(cat "$T/bad.err")"
grep -q "corrupt\|malformed\|not a database" "$T/bad.err" || fail "says corrupt: $(cat "$T/bad.err")"
[ "$(sha256sum "$T/bad.db" | cut -d' ' -f1)" = "$before" ] || fail "corrupt DB modified"
run 1 "$T/bad2" history list "$T/bad.db"
[ "$(sha256sum "$T/bad.db" | cut -d' ' -f1)" = "$before" ] || fail "corrupt DB modified by list"
"$PY" -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("CREATE TABLE t(x)"); c.commit()' "$T/foreign.db"
before=$(sha256sum "$T/foreign.db" | cut -d' ' -f1)
run 1 "$T/foreign" history add "$T/foreign.db" "$T/base.etdp"
grep -q "offset 68: application_id" "$T/foreign.err" || fail "foreign located: $(cat "$T/foreign.err")"
[ "$(sha256sum "$T/foreign.db" | cut -d' ' -f1)" = "$before" ] || fail "foreign DB modified"
i=0
: >"$T/text.db"
while [ $i -lt 10 ]; do echo "name,value,a row of a CSV file that is no database" >>"$T/text.db"; i=$((i + 1)); done
before=$(sha256sum "$T/text.db" | cut -d' ' -f1)
run 1 "$T/text" history list "$T/text.db"
grep -q "text.db: offset 0: header: not an SQLite database" "$T/text.err" || fail "text located: $(cat "$T/text.err")"
[ "$(sha256sum "$T/text.db" | cut -d' ' -f1)" = "$before" ] || fail "text file modified"
# an SQLite header over random bytes: SQLite says "file is not a database"
"$PY" -c 'import random, sys; random.seed(7); open(sys.argv[1], "wb").write(b"SQLite format 3\0" + bytes(random.getrandbits(8) for _ in range(8000)))' "$T/rand.db"
before=$(sha256sum "$T/rand.db" | cut -d' ' -f1)
run 1 "$T/rand" history add "$T/rand.db" "$T/base.etdp"
grep -q "rand.db: offset 0: header: not a valid SQLite database" "$T/rand.err" || fail "random: $(cat "$T/rand.err")"
[ "$(sha256sum "$T/rand.db" | cut -d' ' -f1)" = "$before" ] || fail "random DB modified"
printf 'short' >"$T/short.db"
run 1 "$T/short" history list "$T/short.db"
grep -q "too short for an SQLite database" "$T/short.err" || fail "short: $(cat "$T/short.err")"
[ "$(cat "$T/short.db")" = short ] || fail "short file modified"
# a rejected dump: located, exit 1, nothing added
printf 'not a dump at all........' >"$T/junk.etdp"
run 1 "$T/junk" history add "$T/h1.db" "$T/junk.etdp"
[ "$(sql "$T/h1.db" 'SELECT count(*) FROM entry')" = 2 ] || fail "junk added"
run 2 "$T/usage" history frob "$T/h1.db"
run 2 "$T/usage2" history add "$T/h1.db" "$T/base.etdp" --label nokey

echo "history: $NCHECK checks passed"
