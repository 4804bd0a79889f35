#!/usr/bin/env python3
"""End-to-end tests of `etprof export` (docs/export.md). Expected values from outside the export:
 - identity: hashlib.sha256 of the dump and the program;
 - the v3 records: every field of the record layout documented in ../shared/docs/fleet.md (the
   PyTorch benchmark v3 record: benchmark, model, metric, runners, inputs, dependencies and the
   required metadata), with the types the upload script expects;
 - the long op table: per op row, the count of its inclusive rows equals the row's runs and
   their median (computed here, by hand) equals the p50 of `etprof ops --format json` for that
   file; the latency records' values equal `etprof runs --format json`'s Method::execute;
 - JSON Lines and CSV hold the same rows; --gzip decompresses to the same bytes.
usage: test_export.py ETPROF ETPROF_GEN"""
import csv
import gzip
import hashlib
import json
import os
import subprocess
import sys
import tempfile

ETPROF, GEN = sys.argv[1], sys.argv[2]
checks = 0


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def check(cond, msg):
    global checks
    if not cond:
        fail(msg)
    checks += 1


def run(args, want=0):
    p = subprocess.run([ETPROF] + args, capture_output=True)
    check(p.returncode == want, "etprof %s exited %d, expected %d: %s"
          % (" ".join(args), p.returncode, want, p.stderr.decode(errors="replace")))
    return p


def median(v):
    v = sorted(v)
    n = len(v)
    return (v[n // 2 - 1] + v[n // 2]) / 2 if n % 2 == 0 else v[n // 2]


def pct(v, q):  # numpy's default (linear) percentile, by hand
    v = sorted(v)
    x = (len(v) - 1) * q / 100.0
    lo = int(x)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (x - lo)


META = ["--repo", "pytorch/executorch", "--head-branch", "main", "--head-sha", "abc123",
        "--workflow-id", "101", "--job-id", "202", "--run-attempt", "1", "--timestamp",
        "1765000000"]

with tempfile.TemporaryDirectory() as t:
    d1, d2, pte = os.path.join(t, "a.etdp"), os.path.join(t, "b.etdp"), os.path.join(t, "m.pte")
    subprocess.run([GEN, "--style", "mixed", "--nodes", "12", "--blocks", "9", "--seed", "3",
                    "--pte", pte, "-q", "-o", d1], check=True)
    subprocess.run([GEN, "--style", "mixed", "--nodes", "12", "--blocks", "7", "--seed", "5",
                    "-q", "-o", d2], check=True)
    labels = ["--label", "device=Pixel 8", "--label", "soc=SM8650", "--label", "os=android",
              "--label", "model=gen_mixed"]

    # --- v3 records ------------------------------------------------------------------------
    out = os.path.join(t, "v3.json")
    run(["export", d1, d2, "--pte", pte, "--format", "v3", "-o", out] + labels + META)
    recs = [json.loads(l) for l in open(out)]
    check(len(recs) >= 8, "v3: records for two files")
    req_top = {"timestamp": int, "schema_version": str, "name": str, "repo": str,
               "head_branch": str, "head_sha": str, "workflow_id": int, "run_attempt": int,
               "job_id": int, "benchmark": dict, "model": dict, "metric": dict,
               "runners": list, "inputs": dict, "dependencies": dict}
    runner_fields = ["name", "type", "cpu_info", "cpu_count", "mem_info", "avail_mem_in_gb",
                     "gpu_info", "gpu_count", "gpu_mem_info", "avail_gpu_mem_in_gb", "extra_info"]
    for r in recs:
        for k, ty in req_top.items():
            check(k in r and isinstance(r[k], ty), "v3: %s: %r" % (k, r.get(k)))
        check(set(r) == set(req_top), "v3: no field outside the layout: %s" % sorted(set(r) - set(req_top)))
        check(r["schema_version"] == "v3" and r["repo"] == "pytorch/executorch"
              and r["workflow_id"] == 101 and r["job_id"] == 202 and r["run_attempt"] == 1
              and r["timestamp"] == 1765000000 and r["head_sha"] == "abc123", "v3: metadata")
        for k in ["name", "mode", "dtype", "extra_info"]:
            check(k in r["benchmark"], "v3: benchmark." + k)
        for k in ["name", "type", "backend", "origins", "extra_info"]:
            check(k in r["model"], "v3: model." + k)
        for k in ["name", "benchmark_values", "target_value", "extra_info"]:
            check(k in r["metric"], "v3: metric." + k)
        check(all(isinstance(x, (int, float)) for x in r["metric"]["benchmark_values"]),
              "v3: benchmark_values are numbers")
        check(len(r["metric"]["benchmark_values"]) >= 1, "v3: at least one value")
        for m in (r["benchmark"]["extra_info"], r["model"]["extra_info"], r["metric"]["extra_info"]):
            check(all(isinstance(v, str) for v in m.values()), "v3: extra_info maps of strings")
        check(len(r["runners"]) == 1 and all(k in r["runners"][0] for k in runner_fields),
              "v3: runners fields")
        check(r["runners"][0]["name"] == "Pixel 8" and r["runners"][0]["type"] == "android"
              and r["runners"][0]["cpu_info"] == "SM8650", "v3: runner from labels")
        check(r["model"]["name"] == "gen_mixed", "v3: model name from the label")
        check("unit" in r["metric"]["extra_info"] and "runs" in r["metric"]["extra_info"],
              "v3: unit and runs in metric.extra_info")
    sha1 = hashlib.sha256(open(d1, "rb").read()).hexdigest()
    shap = hashlib.sha256(open(pte, "rb").read()).hexdigest()
    mine = [r for r in recs if r["benchmark"]["extra_info"]["dump_sha256"] == sha1]
    check(mine and all(r["benchmark"]["extra_info"]["program_sha256"] == shap for r in mine),
          "v3: identity = hashlib")
    names = {r["metric"]["name"] for r in mine}
    for n in ["latency_p50(ms)", "latency_p90(ms)", "latency(ms)", "delegate_share(%)",
              "cpu_fallback_ops(count)"]:
        check(n in names, "v3: metric " + n)
    # latency against `etprof runs` (a view of its own) by hand: ms = ns / 1e6
    runs = json.loads(run(["runs", d1, "--pte", pte, "--format", "json"]).stdout)
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
    allx = [x["execute"] * scale[x["unit"]] for x in runs["runs"]]  # ms
    steady = [x["execute"] * scale[x["unit"]] for x in runs["runs"] if not x["warmup"]]
    p50 = [r for r in mine if r["metric"]["name"] == "latency_p50(ms)"][0]
    check(abs(p50["metric"]["benchmark_values"][0] - pct(allx, 50)) < 1e-9,
          "v3: p50 = median of runs' Method::execute: %r vs %r"
          % (p50["metric"]["benchmark_values"], pct(allx, 50)))
    p90 = [r for r in mine if r["metric"]["name"] == "latency_p90(ms)"][0]
    check(abs(p90["metric"]["benchmark_values"][0] - pct(allx, 90)) < 1e-9, "v3: p90")
    lat = [r for r in mine if r["metric"]["name"] == "latency(ms)"][0]
    check(int(lat["metric"]["extra_info"]["runs"]) == 9, "v3: runs = --blocks 9")
    check(len(lat["metric"]["benchmark_values"]) == int(lat["metric"]["extra_info"]["steady_runs"]),
          "v3: one value per steady run")
    check(all(abs(a - b) < 1e-9 for a, b in zip(lat["metric"]["benchmark_values"], steady))
          and len(steady) == len(lat["metric"]["benchmark_values"]), "v3: per-run values = runs")
    # missing metadata: usage error, no output file
    bad = os.path.join(t, "bad.json")
    p = run(["export", d1, "--format", "v3", "-o", bad] + META[:2], want=2)
    check(not os.path.exists(bad), "v3 without metadata: no file")
    check(b"--head-sha" in p.stderr and p.stderr.count(b"\n") == 1, "v3: names the missing flag")
    # gzip
    gz = os.path.join(t, "v3.json.gz")
    run(["export", d1, d2, "--pte", pte, "--format", "v3", "--gzip", "-o", gz] + labels + META)
    check(gzip.open(gz).read() == open(out, "rb").read(), "gzip: same bytes")

    # --- the long op table --------------------------------------------------------------------
    jl = os.path.join(t, "ops.jsonl")
    run(["export", d1, d2, "--pte", pte, "--format", "jsonl", "-o", jl] + labels)
    rows = [json.loads(l) for l in open(jl)]
    cs = os.path.join(t, "ops.csv")
    run(["export", d1, d2, "--pte", pte, "--format", "csv", "-o", cs] + labels)
    crow = list(csv.DictReader(open(cs, newline="")))
    check(len(crow) == len(rows), "csv and jsonl: same number of rows")
    for a, b in zip(rows, crow):
        check(set(a) == set(b), "csv header = jsonl keys")
        check(abs(float(b["value"]) - a["value"]) <= 1e-12 * max(1, abs(a["value"])), "same value")
        check(b["name"].lstrip("'") == a["name"] and b["dump_sha256"] == a["dump_sha256"], "same identity")
    check(all(r["schema_version"] == 1 for r in rows), "schema_version")
    check({r["dump_sha256"] for r in rows} == {sha1, hashlib.sha256(open(d2, "rb").read()).hexdigest()},
          "op table: dump identity")
    for path in (d1, d2):
        sha = hashlib.sha256(open(path, "rb").read()).hexdigest()
        ops = json.loads(run(["ops", path, "--pte", pte, "--format", "json", "--all"]).stdout)
        ops_rows = ops["rows"]
        mine = [r for r in rows if r["dump_sha256"] == sha and r["measure"] == "inclusive"]
        by = {}
        for r in mine:
            by.setdefault((r["method"], r["instruction"], r["name"], r["kind"]), []).append(r)
        matched = 0
        for o in ops_rows:
            if o.get("p50") is None:
                continue
            instr = o["instruction_id"] if o["instruction_id"] is not None else -1
            key = (o.get("method") or "", instr, o["name"], o["kind"])
            if key not in by:
                continue
            vals = [r["value"] for r in by[key]]
            check(len(vals) <= o["count"], "one value per run at most: %r" % (key,))
            want = o["p50"]
            scale = 1
            if "unit" in o and o["unit"] in ("us",):
                scale = 1000
            got = median(vals) / scale
            check(abs(got - want) <= 1e-6 * max(1.0, abs(want)) + 0.0015,
                  "p50 of %r: %r vs ops %r" % (key, got, want))
            matched += 1
        check(matched >= 5, "ops rows matched: %d" % matched)
    warm = [r for r in rows if r["warmup"] == 1]
    check(all(r["run_index"] == 0 for r in warm) or not warm, "warm-up rows are run 0 here")
    check(any(r["measure"] == "exclusive" for r in rows), "exclusive rows exist")
    check(all(r["device"] == "Pixel 8" and r["label_keys"][0] == "device" for r in rows), "labels")
    sch = run(["export", "--schema", "clickhouse"]).stdout.decode()
    check("CREATE TABLE IF NOT EXISTS etprof_ops" in sch, "schema")
    for k in rows[0]:
        check((" " + k + " ") in sch, "schema has column " + k)
    run(["export", d1, "--format", "xml"], want=2)

    # --- the module column from an ETRecord: a record written here (as tests/test_etrecord.py
    # does) whose one node, debug handle 1 = instruction 0 of add.pte, lies in module
    # "block.layers[0]" (the innermost entry of its nn_module_stack)
    data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
    adump = os.path.join(data, "real", "add_pte_1x.etdp")
    apte = os.path.join(data, "upstream", "add.pte")
    nn = ("L__self__,,__main__.Net;L__self___block,block,blocks.Block;"
          "L__self___block_layers_0,block.layers[0],torch.nn.modules.container.ModuleDict[a,b]")
    node = {"target": "executorch.exir.dialects.edge.ops.aten.add.Tensor", "inputs": [],
            "outputs": [{"as_none": None, "as_tensor": {"name": "aten_add_tensor"}}],
            "metadata": {"debug_handle": "1", "nn_module_stack": nn}}
    prog = json.dumps({"graph_module": {"graph": {"inputs": [], "outputs": [], "nodes": [node],
                                                   "tensor_values": {}}},
                       "schema_version": {"major": 3, "minor": 0}}).encode()
    rec = os.path.join(t, "add.etrecord")
    import zipfile
    with zipfile.ZipFile(rec, "w") as z:
        for n, b in [("ETRECORD_V0", b""), ("edge_dialect_exported_program", prog),
                     ("debug_handle_map", b'{"forward": {"0": 1}}'), ("delegate_map", b"{}")]:
            z.writestr(n, b)
    em = os.path.join(t, "mod.jsonl")
    run(["export", adump, "--pte", apte, "--etrecord", rec, "--format", "jsonl", "-o", em])
    mrows = [json.loads(l) for l in open(em)]
    kern = [r for r in mrows if r["kind"] == "kernel" and r["instruction"] == 0]
    check(kern and all(r["module"] == "block.layers[0]" for r in kern),
          "module of the add kernel: %r" % [r["module"] for r in kern])
    check(all(r["module"] == "" for r in mrows if r["kind"] == "framework"),
          "framework rows are not joined")
    run(["export", adump, "--pte", apte, "--format", "jsonl", "-o", em])
    check(all(r["module"] == "" for r in (json.loads(l) for l in open(em))), "no --etrecord: ''")
    junk = os.path.join(t, "junk.etdp")
    open(junk, "wb").write(b"not a dump" * 4)
    o2 = os.path.join(t, "o2.jsonl")
    p = run(["export", d1, junk, "--format", "jsonl", "-o", o2], want=1)
    check(not os.path.exists(o2) and p.stderr.count(b"\n") == 1 and b"junk.etdp" in p.stderr,
          "a rejected dump: one located line, no output file")

print("export: %d checks passed" % checks)
