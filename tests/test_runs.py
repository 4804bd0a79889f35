#!/usr/bin/env python3
"""`etprof runs` (issue 14.1): one row per run, warm-up / outlier / trend flags.

Independent facts:
- the corpus QNN 10-run dump is decoded here with flatc + schema/etdump.fbs (tests/tools/
  flatc_events.py, a second decoder, never etprof): per Execute block, Method::execute, the
  DELEGATE_CALL and "QNN (execute) time (us)" durations (end - start; QNN writes start 0);
- the crafted dumps are built here with flatc from JSON, with a known slow run and a known drift,
  so the expected flags are known by construction; the expected trend numbers are computed here
  (Theil-Sen, by hand in Python).

    test_runs.py ETPROF DATA_DIR SCHEMA_DIR      (exit 77 when flatc is missing)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

E, D, S = sys.argv[1], sys.argv[2], sys.argv[3]
if not shutil.which("flatc"):
    print("skip: flatc not found (apt install flatbuffers-compiler; scripts/install-deps.sh --test)")
    sys.exit(77)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "tools"))
import flatc_events  # noqa: E402
import flatc_io  # noqa: E402

PTE = os.path.join(D, "upstream", "stories260k_hybrid_llama_qnn.pte")
KV10 = os.path.join(D, "fake-qnn-backend", "stories260k_qnn_kv_forward_10x.etdp")
T = tempfile.mkdtemp(prefix="etprof-runs-")
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)


def close(a, b, tol=1e-9):
    return a is not None and b is not None and abs(a - b) <= tol * max(1.0, abs(a), abs(b))


def runs_json(*args):
    p = subprocess.run([E, "runs", *args, "--format", "json"], capture_output=True, text=True)
    check(p.returncode == 0, f"runs {args}: exit {p.returncode}: {p.stderr}")
    return json.loads(p.stdout) if p.returncode == 0 else None


# ---- 1. the corpus 10-run QNN dump against flatc --------------------------------------------------
doc, _ = flatc_events.load_flatc_json(KV10)
ev = flatc_events.flatten(doc, KV10)["events"]
per_block = {}
for e in ev:
    if e["type"] != "profile" or e["block_name"] != "Execute":
        continue
    b = per_block.setdefault(e["block"], {"exec": [], "dc": [], "qnn": []})
    dur = (e["end_time"] - e["start_time"]) / 1000.0  # ns (1 ns ticks) -> us
    if e["name"] == "Method::execute":
        b["exec"].append(dur)
    elif e["name"] == "DELEGATE_CALL":
        b["dc"].append(dur)
    elif e["delegate_debug_id_str"] == "QNN (execute) time (us)":
        b["qnn"].append(e["end_time"] - e["start_time"])  # QNN: start 0, value in us
blocks = sorted(per_block)
check(len(blocks) == 10, f"premise: flatc sees 10 Execute blocks, got {len(blocks)}")
r = runs_json(KV10, "--pte", PTE, "--method", "kv_forward")
if r:
    rows = r["runs"]
    check(r["schema_version"] == 1, "schema_version 1")
    check(len(rows) == 10, f"10 run rows, got {len(rows)}")
    for k, (row, blk) in enumerate(zip(rows, blocks)):
        want = per_block[blk]
        check(row["method"] == "kv_forward", f"run {k}: method {row['method']}")
        # runs are numbered from 1 in file order (docs/json-contract.md)
        check(row["run"] == k + 1 and row["block"] == blk, f"run {k + 1}: run/block {row['run']}/{row['block']}, flatc block {blk}")
        check(len(want["exec"]) == 1 and close(row["execute"], want["exec"][0]),
              f"run {k}: execute {row['execute']} us, flatc {want['exec']}")
        check(row["unit"] == "us", f"run {k}: unit {row['unit']}")
        qb = [b for b in row["backends"] if b["placement"] == "QnnBackend"]
        check(len(qb) == 1 and close(qb[0]["delegate"], sum(want["dc"])),
              f"run {k}: QnnBackend delegate {qb and qb[0]['delegate']}, flatc {sum(want['dc'])}")
        check(len(qb) == 1 and close(qb[0]["backend_time"], sum(want["qnn"])),
              f"run {k}: QNN (execute) time {qb and qb[0]['backend_time']}, flatc {sum(want['qnn'])}")
        check(close(row["framework"], want["exec"][0] - sum(want["dc"]) - row["cpu"]),
              f"run {k}: framework = execute - delegate - cpu")
        check(row["warmup"] == (k == 0), f"run {k}: warmup {row['warmup']}")
    m = r["methods"][0]
    tot = sum(per_block[b]["exec"][0] for b in blocks)
    check(close(m["execute_total"], tot), f"execute_total {m['execute_total']}, flatc {tot}")
    check(close(m["runs_per_second"], 10 / (tot / 1e6)), f"runs/s {m['runs_per_second']}")
    check(m["decode_style"] and close(m["tokens_per_second"], m["runs_per_second"]),
          "kv_forward is decode-style: tokens/s = runs/s")
    # issue 36.8: the steady figure leaves the cold first run (block 1, the warm-up) out, by
    # hand: 9 runs over the sum of flatc's Method::execute of blocks 2..10
    steady = sum(per_block[b]["exec"][0] for b in blocks[1:])
    check(m["steady_runs"] == 9, f"steady runs {m['steady_runs']}, want 9")
    check(close(m["steady_execute_total"], steady), f"steady total {m['steady_execute_total']}, flatc {steady}")
    check(close(m["tokens_per_second_steady"], 9 / (steady / 1e6)),
          f"steady tokens/s {m['tokens_per_second_steady']}, hand {9 / (steady / 1e6)}")
    check(close(m["runs_per_second_steady"], m["tokens_per_second_steady"]), "steady runs/s = tokens/s")
    t = subprocess.run([E, "runs", KV10, "--pte", PTE, "--method", "kv_forward"], capture_output=True,
                       text=True).stdout
    want_all = "%.4g runs/s of summed Method::execute over all 10 runs (warm-up included)" % (10 / (tot / 1e6))
    want_steady = "%.4g tokens/s over the 9 steady runs (warm-up excluded)" % (9 / (steady / 1e6))
    check(want_all in t and want_steady in t, f"table notes say what each tokens/s covers: {want_all!r}, {want_steady!r}")

# without --method the two methods fit: method null with the candidates, as the other views
r = runs_json(KV10, "--pte", PTE)
if r:
    check(all(row["method"] is None and row["method_candidates"] == ["kv_forward", "prefill_forward"]
              for row in r["runs"]), "ambiguous runs: method null + candidates")


# decode-style by name, on programs built here with flatc: one method of the given name whose
# instruction 0 is a QnnBackend DelegateCall (the dump's), chosen with --method. A KV-cache
# prefill method holds "kv" too, but its run is a whole prompt: no tokens/s.
def one_method_pte(name):
    prog = {"version": 0, "execution_plan": [{
        "name": name, "values": [], "inputs": [], "outputs": [], "operators": [],
        "chains": [{"inputs": [], "outputs": [], "instructions": [
            {"instr_args_type": "DelegateCall", "instr_args": {"delegate_index": 0, "args": []}}]}],
        "delegates": [{"id": "QnnBackend", "processed": {"location": "INLINE", "index": 0}}]}],
        "backend_delegate_data": [{"data": [0]}]}
    return flatc_io.flatc_bin(os.path.join(S, "program.fbs"), prog, name, T)


for name, decode in (("decode_kv", True), ("Token_Gen", True), ("kv_prefill", False),
                     ("Prefill_KV_Forward", False), ("kv_prompt", False), ("forward", False)):
    r = runs_json(KV10, "--pte", one_method_pte(name), "--method", name)
    if r:
        m = r["methods"][0]
        check(m["decode_style"] is decode, f"{name}: decode_style {m['decode_style']}, want {decode}")
        check(close(m["tokens_per_second"], m["runs_per_second"]) if decode else m["tokens_per_second"] is None,
              f"{name}: tokens/s {m['tokens_per_second']} (runs/s {m['runs_per_second']})")


# ---- 2. crafted dumps: a known slow run, a known drift ------------------------------------------
def build(name, durations):
    blocks = [{"name": "Default", "events": [{"profile_event": {
        "name": "Method::init", "chain_index": -1, "instruction_id": 0,
        "start_time": 0, "end_time": 1000}}]}]
    t = 10_000
    for d in durations:
        blocks.append({"name": "Execute", "events": [{"profile_event": {
            "name": "Method::execute", "chain_index": -1, "instruction_id": 0,
            "start_time": t, "end_time": t + d}}]})
        t += d + 1000
    src = os.path.join(T, name + ".json")
    json.dump({"version": 0, "run_data": blocks}, open(src, "w"))
    subprocess.run(["flatc", "-b", "--size-prefixed", "-o", T, os.path.join(S, "etdump.fbs"), src],
                   check=True, capture_output=True)
    return os.path.join(T, name + ".etdp")


noise = [0, 3, -2, 5, -4, 1, -1, 2, -3, 4, 0, -2, 3, -5, 2, 1, -1, 4, -3, 0]
# warm-up 3x, then 19 steady runs around 100 us with one slow run (run 12: 250 us)
slow = [300_000] + [100_000 + 100 * n for n in noise[:19]]
slow[12] = 250_000
r = runs_json(build("slow", slow), "--time-unit", "ns")
if r:
    rows = r["runs"]
    check([x["execute"] for x in rows] == [float(d) for d in slow], "slow: execute per run = built")
    check([x["warmup"] for x in rows] == [True] + [False] * 19, "slow: only run 0 is warm-up")
    check([x["outlier"] for x in rows] == [k == 12 for k in range(20)],
          f"slow: only run 12 is an outlier, got {[k for k, x in enumerate(rows) if x['outlier']]}")
    check(r["methods"][0]["trend"]["verdict"] == "stable", f"slow: trend {r['methods'][0]['trend']}")

# two warm-up runs (both above 1.5 x median), then a drift of +1 us per run from 100 us
drift = [400_000, 260_000] + [100_000 + 1000 * k + 100 * noise[k] for k in range(20)]
r = runs_json(build("drift", drift), "--time-unit", "ns")
if r:
    rows, m = r["runs"], r["methods"][0]
    check([x["warmup"] for x in rows] == [True, True] + [False] * 20, "drift: runs 0 and 1 warm-up")
    check(not any(x["outlier"] for x in rows), "drift: no outlier")
    xs = list(range(2, 22))
    ys = drift[2:]
    slopes = sorted((ys[j] - ys[i]) / (xs[j] - xs[i]) for i in range(20) for j in range(i + 1, 20))
    n = len(slopes)
    ts = (slopes[n // 2] + slopes[(n - 1) // 2]) / 2
    ys_sorted = sorted(ys)
    med = (ys_sorted[9] + ys_sorted[10]) / 2
    pct = ts * (xs[-1] - xs[0]) / med * 100
    check(m["trend"]["verdict"] == "drifting up", f"drift: verdict {m['trend']}")
    check(close(m["trend"]["slope_per_run"], ts), f"drift: slope {m['trend']['slope_per_run']}, want {ts}")
    check(close(m["trend"]["drift_pct"], pct), f"drift: drift_pct {m['trend']['drift_pct']}, want {pct}")
    check(m["trend"]["p"] < 0.001, f"drift: p {m['trend']['p']}")
    p = subprocess.run([E, "runs", os.path.join(T, "drift.etdp")], capture_output=True, text=True)
    check(f"drifting up {pct:.1f} % over the runs" in p.stdout, "drift: the table says 'drifting up x % over the runs'")
    # decode-style only by name: this method has no name (no program): no tokens/s
    check(m["tokens_per_second"] is None and m["runs_per_second"] > 0, "drift: runs/s but no tokens/s")


# ---- 3. ops --by type: totals = independent sums over the `ops` JSON rows (regex grouping) -------
import re  # noqa: E402
from collections import defaultdict  # noqa: E402

STOP = r"(?:default|tensor|scalar|int|dims?|self|out|list|float|bool|str|value|mode|h|sha|\d+)"
ATEN = re.compile(r"^aten_(_*[^_]+(?:_(?!" + STOP + r"(?:_|$))[^_]+)*)", re.I)


def ops_json(*args):
    p = subprocess.run([E, "ops", *args, "--format", "json"], capture_output=True, text=True)
    check(p.returncode == 0, f"ops {args}: exit {p.returncode}: {p.stderr}")
    return json.loads(p.stdout)["rows"] if p.returncode == 0 else []


def by_type(args, key):
    rows = ops_json(*args, "--all")
    want = defaultdict(lambda: [0, 0.0, 0])
    for row in rows:
        k = key(row)
        if k is None:
            continue
        w = want[(row["method"], row["unit"]) + k]
        w[0] += row["count"]
        w[1] += row["total"]
        w[2] += 1
    got = ops_json(*args, "--by", "type")
    check(len(got) == len(want), f"by type {args}: {len(got)} groups, want {len(want)}: "
          f"{sorted(set((g['type'],) for g in got) ^ set((k[3],) for k in want))}")
    for g in got:
        w = want.get((g["method"], g["unit"], g["domain"], g["type"]))
        check(w is not None, f"by type {args}: unexpected group {g['domain']} {g['type']}")
        if w:
            check(g["count"] == w[0] and g["rows"] == w[2] and close(g["total"], w[1], 1e-6),
                  f"by type {args}: {g['type']}: count/rows/total {g['count']}/{g['rows']}/{g['total']}, want {w}")
    # shares and the cumulative share within each (method, domain, placement, unit)
    groups = defaultdict(list)
    for g in got:
        groups[(g["method"], g["domain"], g["placement"], g["unit"])].append(g)
    for k, gs in groups.items():
        tot = sum(g["total"] for g in gs)
        check(all(gs[i]["total"] >= gs[i + 1]["total"] for i in range(len(gs) - 1)), f"{k}: sorted by total")
        check(close(gs[-1]["cum_share"], 100.0, 1e-6), f"{k}: cumulative share ends at 100")
        check(all(close(g["share"], g["total"] / tot * 100, 1e-6) for g in gs), f"{k}: share = total / sum")
    return got


def htp_key(row):
    if row["kind"] != "htp_node":
        return None
    if re.match(r"^Input OpId_\d+", row["name"]):
        return ("htp", "(graph input)")
    if re.match(r"^Output OpId_\d+", row["name"]):
        return ("htp", "(graph output)")
    m = ATEN.match(row["operator"] or "")
    return ("htp", m.group(1)) if m else ("htp", "(system op)")


got = by_type([KV10, "--pte", PTE, "--method", "kv_forward"], htp_key)
conv = [g for g in got if g["type"] == "convolution"]
check(len(conv) == 1 and conv[0]["unit"] == "cycles", "kv_forward: one convolution group, in cycles")

ML = os.path.join(D, "real", "module_linear_10x.etdp")
MLP = os.path.join(D, "upstream", "module_linear_no_constant_segment.pte")
by_type([ML, "--pte", MLP], lambda r: ("cpu", r["operator"]) if r["kind"] == "operator_call" else None)

# an XNNPACK-style delegate (names "<op> #k"), built by flatc: 3 runs
def xnn_block(t):
    evs, s = [], t + 100
    for name, d in (("Convolution (NHWC, F32) IGEMM #1", 500), ("Add (ND) #1", 70),
                    ("Convolution (NHWC, F32) IGEMM #2", 300), ("Add (ND) #2", 90)):
        evs.append({"profile_event": {"delegate_debug_id_str": name, "chain_index": 0,
                                      "instruction_id": 0, "start_time": s, "end_time": s + d}})
        s += d
    evs.append({"profile_event": {"name": "DELEGATE_CALL", "chain_index": 0, "instruction_id": 0,
                                  "start_time": t + 50, "end_time": s + 50}})
    evs.append({"profile_event": {"name": "Method::execute", "chain_index": -1, "instruction_id": 0,
                                  "start_time": t, "end_time": s + 100}})
    return {"name": "Execute", "events": evs}


src = os.path.join(T2 := tempfile.mkdtemp(prefix="etprof-xnn-"), "xnn.json")
json.dump({"version": 0, "run_data": [xnn_block(k * 10_000) for k in range(3)]}, open(src, "w"))
subprocess.run(["flatc", "-b", "--size-prefixed", "-o", T2, os.path.join(S, "etdump.fbs"), src],
               check=True, capture_output=True)
XNN = os.path.join(T2, "xnn.etdp")
got = by_type([XNN, "--time-unit", "ns"], lambda r: ("delegate", re.sub(r" #\d+$", "", r["name"]))
              if r["kind"] == "delegate_internal" else None)
check(sorted((g["type"], g["count"], g["total"]) for g in got) ==
      [("Add (ND)", 6, 480.0), ("Convolution (NHWC, F32) IGEMM", 6, 2400.0)],
      f"xnnpack by type, built: {[(g['type'], g['count'], g['total']) for g in got]}")
shutil.rmtree(T2, ignore_errors=True)

# the real XNNPACK dump of the shared corpus, when present (not copied into tests/data)
REAL = os.path.normpath(os.path.join(D, "..", "..", "..", "shared", "corpus", "external",
                                     "xnnpack_mobilenet_v2_tutorial.etdp"))
if os.path.exists(REAL):
    got = by_type([REAL], lambda r: ("delegate", re.sub(r" #\d+$", "", r["name"]))
                  if r["kind"] == "delegate_internal" else ("cpu", r["operator"])
                  if r["kind"] == "operator_call" else None)
    check(any(g["type"] == "Convolution (NHWC, F32) DWConv" for g in got), "real xnnpack: DWConv group")
else:
    print("note: ../shared/corpus/external/xnnpack_mobilenet_v2_tutorial.etdp absent: real XNNPACK check skipped")


# ---- 4. trace --runs / --skip-first / --max-runs: valid Trace Event JSON with exactly those runs --
TRACE_PY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "test_trace.py")
starts = {}
for e in ev:
    if e["type"] == "profile" and e["block_name"] == "Execute" and e["name"] == "Method::execute":
        starts[e["block"]] = (e["start_time"], e["end_time"])
run_blocks = sorted(starts)  # run k (1-based) is run_blocks[k - 1]


def trace_runs(*sel):
    out = os.path.join(T, "trace_%s.json" % "_".join(x.strip("-") for x in sel))
    p = subprocess.run([E, "trace", KV10, "--pte", PTE, "--method", "kv_forward", *sel, "-o", out],
                       capture_output=True, text=True)
    check(p.returncode == 0, f"trace {sel}: exit {p.returncode}: {p.stderr}")
    if p.returncode:
        return None, set()
    v = subprocess.run([sys.executable, TRACE_PY, "--json", out], capture_output=True, text=True)
    check(v.returncode == 0, f"trace {sel}: not a valid trace: {v.stdout[-500:]} {v.stderr[-500:]}")
    doc = json.load(open(out))
    names = {e["args"]["name"] for e in doc["traceEvents"] if e.get("name") == "thread_name"}
    runs = {int(n.split()[1]) for n in names if re.fullmatch(r"run \d+", n)}
    return doc, runs


doc, runs = trace_runs("--runs", "2-4")
check(runs == {2, 3, 4}, f"--runs 2-4: runs {sorted(runs)}")
if doc:
    ex = sorted((e["ts"], e["dur"]) for e in doc["traceEvents"]
                if e.get("ph") == "X" and e.get("name") == "Method::execute")
    want = [starts[run_blocks[k - 1]] for k in (2, 3, 4)]
    check(len(ex) == 3, f"--runs 2-4: {len(ex)} Method::execute slices")
    check(all(close(d, (en - st) / 1000.0) for (_, d), (st, en) in zip(ex, want)),
          f"--runs 2-4: Method::execute durations {ex}, flatc {want}")
    check(all(close(ex[i + 1][0] - ex[i][0], (want[i + 1][0] - want[i][0]) / 1000.0, 1e-6)
              for i in range(len(ex) - 1)), "--runs 2-4: the runs keep their times")
    check(doc["otherData"]["run_selection"]["runs_left_out"] == 7, "--runs 2-4: 7 runs left out")
check(trace_runs("--skip-first", "8")[1] == {9, 10}, "--skip-first 8: runs 9, 10")
check(trace_runs("--max-runs", "2")[1] == {1, 2}, "--max-runs 2: runs 1, 2")
check(trace_runs("--runs", "9-", "--max-runs", "1")[1] == {9}, "--runs 9- --max-runs 1: run 9")
check(trace_runs("--runs", "5")[1] == {5}, "--runs 5: run 5")
for bad in ("0-3", "4-2", "x", "2-y", "-3"):
    p = subprocess.run([E, "trace", KV10, "--runs", bad, "-o", os.path.join(T, "bad.json")],
                       capture_output=True, text=True)
    check(p.returncode == 2 and "--runs: expected A-B" in p.stderr, f"--runs {bad}: exit {p.returncode} {p.stderr}")

shutil.rmtree(T, ignore_errors=True)
for f in fails:
    print("FAIL:", f)
print(f"{len(fails)} failure(s)")
sys.exit(1 if fails else 0)
