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
        check(row["run"] == k and row["block"] == blk, f"run {k}: run/block {row['run']}/{row['block']}, flatc block {blk}")
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

# without --method the two methods fit: method null with the candidates, as the other views
r = runs_json(KV10, "--pte", PTE)
if r:
    check(all(row["method"] is None and row["method_candidates"] == ["kv_forward", "prefill_forward"]
              for row in r["runs"]), "ambiguous runs: method null + candidates")


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

shutil.rmtree(T, ignore_errors=True)
for f in fails:
    print("FAIL:", f)
print(f"{len(fails)} failure(s)")
sys.exit(1 if fails else 0)
