#!/usr/bin/env bash
# Method-only profiling (issue 10.4): dumps made at test time from committed full dumps by
# decoding them with flatc (schema/etdump.fbs), deleting the instruction events (OPERATOR_CALL,
# DELEGATE_CALL, native_call_*) with python3 json, as profiling_level=method_only would, and
# rebuilding with flatc -b. Expected values are computed by python from the flatc JSON, never by
# etprof.
# usage: test_method_only.sh ETPROF TESTDATA SCHEMA_DIR    (exit 77 when flatc is missing)
set -u
E=$1; D=$2; S=$3
command -v flatc >/dev/null || { echo "skip: flatc not found"; exit 77; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

strip() { # SRC.etdp NAME: writes $T/NAME.etdp and $T/NAME.json (the method-only JSON)
  local base; base=$(basename "$1" .etdp)
  flatc --json --strict-json --defaults-json --size-prefixed --raw-binary -o "$T" \
    "$S/etdump.fbs" -- "$1" || { fail "flatc cannot decode $1"; return 1; }
  python3 - "$T/$base.json" "$T/$2.json" <<'PY' || return 1
import json, sys
d = json.load(open(sys.argv[1]))
def instr(e):
    p = e.get("profile_event")
    n = (p or {}).get("name") or ""
    return p is not None and (n in ("OPERATOR_CALL", "DELEGATE_CALL") or n.startswith("native_call_"))
gone = 0
for b in d["run_data"]:
    ev = b.get("events", [])
    gone += sum(1 for e in ev if instr(e))
    b["events"] = [e for e in ev if not instr(e)]
assert gone > 0, "nothing to strip"
json.dump(d, open(sys.argv[2], "w"))
PY
  flatc -b --size-prefixed -o "$T" "$S/etdump.fbs" "$T/$2.json" || { fail "flatc -b $2"; return 1; }
}

# ---- QNN: stories260k kv_forward, 1 run, backend events under the (deleted) DELEGATE_CALL
strip "$D/fake-qnn-backend/stories260k_qnn_kv_forward_1x.etdp" qnn_mo || exit 1
PTE="$D/upstream/stories260k_hybrid_llama_qnn.pte"
# expected from the JSON: QNN (execute) time per run in us, Method::execute per run in us
read -r QX EX NQ <<<"$(python3 - "$T/qnn_mo.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
qx = ex = 0; nq = 0; runs = 0
for b in d["run_data"]:
    for e in b.get("events", []):
        p = e.get("profile_event")
        if not p: continue
        if p.get("delegate_debug_id_str"): nq += 1
        if p.get("delegate_debug_id_str") == "QNN (execute) time (us)": qx += p["end_time"] - p["start_time"]
        if p.get("name") == "Method::execute": ex += p["end_time"] - p["start_time"]; runs += 1
print(qx / runs, ex / runs / 1000.0, nq)
PY
)"
[ "$NQ" -gt 1000 ] || fail "the QNN dump should keep its backend events, python counts $NQ"
"$E" summary "$T/qnn_mo.etdp" --pte "$PTE" >"$T/s.txt" 2>"$T/s.err" || fail "summary exit $?: $(cat "$T/s.err")"
"$E" summary "$T/qnn_mo.etdp" --pte "$PTE" --format json >"$T/s.json" 2>/dev/null || fail "summary --format json"
python3 - "$T/s.json" "$QX" "$EX" <<'PY' || fail "summary JSON (above)"
import json, sys
s = json.load(open(sys.argv[1])); qx = float(sys.argv[2]); ex = float(sys.argv[3])
m = s["methods"][0]
bad = []
if m.get("profiling_level") != "method_only": bad.append("profiling_level %r" % m.get("profiling_level"))
fw = [p for p in m["placement"] if p["kind"] == "framework"][0]
if not fw["share"] < 99: bad.append("framework share %r (should not be ~100%%)" % fw["share"])
de = [p for p in m["placement"] if p["kind"] == "delegate"]
if len(de) != 1: bad.append("delegate parts %r" % de)
else:
    d = de[0]
    if d.get("backend_own") is not True: bad.append("backend_own %r" % d.get("backend_own"))
    if d.get("backend_event") != "QNN (execute) time (us)": bad.append("backend_event %r" % d.get("backend_event"))
    if d["unit"] != "us" or abs(d["per_run"] - qx) > 1e-6: bad.append("per_run %r %s, python %r us" % (d["per_run"], d["unit"], qx))
    if abs(d["share"] - qx / ex * 100) > 0.01: bad.append("share %r, python %r" % (d["share"], qx / ex * 100))
if abs(fw["per_run"] - (ex - qx)) > 1e-3: bad.append("framework per_run %r, python %r" % (fw["per_run"], ex - qx))
for b in bad: print("  " + b)
sys.exit(1 if bad else 0)
PY
grep -q "QnnBackend own time: QNN (execute) time (us) (backend's own, no DELEGATE_CALL)" "$T/s.txt" \
  || fail "summary text does not label the backend's own QNN (execute) time"
grep -q "$(printf '%.3f' "$QX")" "$T/s.txt" || fail "summary text lacks QNN (execute) time $QX us"
grep -q "instruction-level events (OPERATOR_CALL, DELEGATE_CALL, kernels) were not recorded" "$T/s.txt" \
  || fail "summary does not say the instruction events were not recorded"
grep -q "inside no instruction" "$T/s.txt" && fail "summary still says 'every operator ran inside no instruction'"

"$E" explain "$T/qnn_mo.etdp" --pte "$PTE" >"$T/x.txt" 2>"$T/x.err" || fail "explain exit $?: $(cat "$T/x.err")"
tr '\n' ' ' <"$T/x.txt" | tr -s ' ' >"$T/x1.txt"
grep -q "no QNN events" "$T/x1.txt" && fail "explain says 'no QNN events' ($NQ backend events in the JSON)"
grep -q "every run has its instruction events" "$T/x1.txt" && fail "explain claims every run has its instruction events"
grep -q "Nothing ran on the CPU" "$T/x1.txt" && fail "explain claims nothing ran on the CPU"
grep -q "profiling level method_only: the instruction events" "$T/x1.txt" \
  || fail "explain's 'what is missing' does not name the method_only profiling level"
grep -q "\"QNN (execute) time (us)\" = $(printf '%.1f' "$QX") us is the best available delegate time" "$T/x1.txt" \
  || fail "explain does not give QNN (execute) time $QX us as the best available delegate time"
"$E" explain "$T/qnn_mo.etdp" --pte "$PTE" --format json >"$T/x.json" 2>/dev/null || fail "explain --format json"
python3 - "$T/x.json" <<'PY' || fail "explain JSON facts (above)"
import json, sys
x = json.load(open(sys.argv[1]))
f = [g for g in x["findings"] if g["id"] == "same_thing"][0]["facts"]
ok = f.get("profiling_level") == "method_only" and f.get("qnn_events") is True
if not ok: print("  same_thing facts %r" % {k: f.get(k) for k in ("profiling_level", "qnn_events")})
sys.exit(0 if ok else 1)
PY

# ---- single-method program: add.pte ("forward"), 10 runs, CPU kernels only
strip "$D/real/add_pte_10x.etdp" add_mo || exit 1
"$E" summary "$T/add_mo.etdp" --pte "$D/upstream/add.pte" --format json >"$T/a.json" 2>"$T/a.err" \
  || fail "summary add_mo exit $?: $(cat "$T/a.err")"
python3 - "$T/a.json" <<'PY' || fail "single-method method-only dump (above)"
import json, sys
s = json.load(open(sys.argv[1]))
names = [m["name"] for m in s["methods"]]
lv = [m.get("profiling_level") for m in s["methods"]]
ok = names == ["forward"] and lv == ["method_only"] and s["methods"][0]["runs"] == 10
if not ok: print("  methods %r levels %r" % (names, lv))
sys.exit(0 if ok else 1)
PY
"$E" summary "$T/add_mo.etdp" --pte "$D/upstream/add.pte" | grep -q "^methods   forward (10 runs)" \
  || fail "summary text does not name the method forward"

[ "$fails" -eq 0 ] && echo "method_only: all checks passed"
exit $((fails > 0))
