#!/usr/bin/env python3
"""figures_agree: one value per figure, in every view (issue 31, docs/json-contract.md).

For each dump below (with and without its program), every figure that more than one view shows is
collected from each view and compared, value and label:
  - an operator row's placement, share, p50, total and unit: `ops` json and csv, `summary` json
    (top operators, top HTP nodes) and csv, `tree` json (placement; the share of the method and,
    for an HTP node, of its parent), `explain` json (the top operator facts), the report's
    embedded data (top operators);
  - run numbers: `runs` json and csv and the trace's "run N" tracks: 1..N in every view;
  - the method label of a dump without a program: "(method unknown)" in summary, runs and diff.
Then the five values the views used to disagree on are checked against a second decoder (flatc)
and a hand calculation on the fake-QNN 10-run dump:
  1. placement "QnnBackend (inferred)" (the dump's events are QNN's, tests/data/MANIFEST.md) in
     csv/json as in the table;
  2. the Output node's share of the accelerator cycles = 100 x sum(Output) / sum(Accelerator
     (execute) time (cycles)) over the runs, in summary and tree;
  3. its wall-time estimate = p50(Output cycles) x sum(excluding-wait us) / sum(accel cycles), in
     ops, explain and the report;
  4. "(method unknown)" in diff;
  5. runs numbered 1..10 in runs and trace.
usage: test_figures_agree.py ETPROF SOURCE_DIR"""
import csv
import html
import io
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

ET, SRC = sys.argv[1], sys.argv[2]
DATA = os.path.join(SRC, "tests", "data")
sys.path.insert(0, os.path.join(SRC, "tests", "tools"))
from flatc_io import flatc_json  # noqa: E402

fails = checks = 0


def check(cond, what):
    global fails, checks
    checks += 1
    if not cond:
        fails += 1
        print("FAIL:", what)


def run(args, ok=(0,)):
    env = dict(os.environ, COLUMNS="400")
    p = subprocess.run([ET] + args, capture_output=True, env=env)
    if p.returncode not in ok:
        raise SystemExit("FAIL: etprof %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.decode()))
    return p.stdout.decode()


def js(args):
    return json.loads(run(args + ["--format", "json"]))


def near(a, b, rel=1e-9):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= rel * max(abs(a), abs(b)) + 1e-9


def key(method, instr, name):
    return (method, instr, name)


def views_agree(dump, pte, tmp):
    extra = ["--pte", pte] if pte else []
    tag = os.path.basename(dump) + (" +pte" if pte else "")
    ops = {key(r["method"], r["instruction_id"], r["name"]): r for r in js(["ops", dump] + extra)["rows"]}
    # ops csv: the same placement as its json
    for r in csv.DictReader(io.StringIO(run(["ops", dump, "--format", "csv"] + extra))):
        k = key(r["method"] or None, int(r["instruction_id"]) if r["instruction_id"] else None, r["name"])
        if k in ops:
            check(r["placement"] == ops[k]["placement"], f"{tag}: ops csv placement of {k}: {r['placement']} vs json {ops[k]['placement']}")
    # summary json: top operators and HTP nodes are ops rows
    summ = js(["summary", dump] + extra)
    for m in summ["methods"]:
        lists = [("top_ops", m.get("top_ops") or [])]
        if m.get("htp_nodes"):
            lists.append(("htp_nodes", m["htp_nodes"].get("top") or []))
        for what, items in lists:
            for o in items:
                k = key(m["name"], o["instruction_id"], o["name"])
                r = ops.get(k)
                check(r is not None, f"{tag}: summary {what} {k} is an ops row")
                if r is None:
                    continue
                check(o["placement"] == r["placement"], f"{tag}: summary {what} {k} placement {o['placement']} vs ops {r['placement']}")
                check(o["unit"] == r["unit"], f"{tag}: summary {what} {k} unit {o['unit']} vs ops {r['unit']}")
                for f in ("p50", "total", "share"):
                    check(near(o[f], r[f]), f"{tag}: summary {what} {k} {f} {o[f]} vs ops {r[f]}")
    # summary csv: the top_op and htp_node rows' placement
    for r in csv.DictReader(io.StringIO(run(["summary", dump, "--format", "csv"] + extra))):
        if r["section"] in ("top_op", "htp_node"):
            labels = {o["placement"] for k, o in ops.items() if o["name"] == r["item"] or o.get("operator") == r["item"]}
            check(r["placement"] in labels, f"{tag}: summary csv {r['section']} {r['item']} placement {r['placement']} not in ops {labels}")
    # tree json: placement, and shares of totals
    tree = js(["tree", dump] + extra)

    def walk(mname, node, parent):
        k = key(mname, node["instruction_id"], node["name"])
        r = ops.get(k)
        if r is not None:
            check(node["placement"] == r["placement"], f"{tag}: tree {k} placement {node['placement']} vs ops {r['placement']}")
            if node["kind"] == "htp_node":
                check(near(node["share_of_parent"], r["share"], 1e-6), f"{tag}: tree {k} share_of_parent {node['share_of_parent']} vs ops share {r['share']}")
            elif node.get("share_of_method") is not None and r["share"] is not None and node["unit"] == r["unit"]:
                check(near(node["share_of_method"], r["share"], 1e-6), f"{tag}: tree {k} share_of_method {node['share_of_method']} vs ops share {r['share']}")
        for c in node.get("children") or []:
            walk(mname, c, node)

    for m in tree["methods"]:
        for root in m["roots"]:
            walk(m["name"], root, None)
    # the report's embedded data: top operators
    rep = os.path.join(tmp, "r.html")
    run(["report", dump, "-o", rep] + extra)
    mdata = re.search(r'<script type="application/json" id="etprof-data"[^>]*>(.*?)</script>', open(rep).read(), re.S)
    data = json.loads(mdata.group(1))
    for m in data["methods"]:
        for o in m.get("top_ops") or []:
            k = key(m.get("name"), o["instruction_id"], o["name"])
            r = ops.get(k)
            if r is not None:
                check(o["placement"] == r["placement"], f"{tag}: report top_ops {k} placement {o['placement']} vs ops {r['placement']}")
    # runs: numbered 1..N per method, in json and csv; the trace's tracks the same numbers
    runs = js(["runs", dump] + extra)
    per = {}
    for r in runs["runs"]:
        per.setdefault(r["method"], []).append(r["run"])
    for mname, nums in per.items():
        check(nums == list(range(1, len(nums) + 1)), f"{tag}: runs of {mname} numbered {nums[:5]}..., not 1..{len(nums)}")
    csv_runs = [int(r["run"]) for r in csv.DictReader(io.StringIO(run(["runs", dump, "--format", "csv"] + extra)))]
    check(sorted(csv_runs) == sorted(n for v in per.values() for n in v), f"{tag}: runs csv numbers differ from json")
    tr = os.path.join(tmp, "t.json")
    run(["trace", dump, "-o", tr] + extra)
    t = json.load(open(tr))
    evs = t["traceEvents"] if isinstance(t, dict) else t
    tracks = {int(m.group(1)) for e in evs if e.get("ph") == "M" and e.get("name") == "thread_name"
              for m in [re.fullmatch(r"run (\d+)", e["args"]["name"])] if m}
    allnums = {n for v in per.values() for n in v}
    check(tracks == allnums, f"{tag}: trace run tracks {sorted(tracks)[:5]}... vs runs {sorted(allnums)[:5]}...")
    return ops


def hand_checks(tmp):
    dump = os.path.join(DATA, "fake-qnn-backend", "stories260k_qnn_kv_forward_10x.etdp")
    fj = flatc_json(os.path.join(SRC, "schema", "etdump.fbs"), dump, tmp, size_prefixed=True)
    runs = [b for b in fj["run_data"] if b.get("name") == "Execute"]
    check(len(runs) == 10, f"flatc: 10 Execute blocks, got {len(runs)}")

    def per_run(name):
        out = []
        for b in runs:
            v = sum(e["profile_event"].get("end_time", 0) - e["profile_event"].get("start_time", 0)
                    for e in b.get("events", []) if "profile_event" in e
                    and e["profile_event"].get("delegate_debug_id_str") == name)
            out.append(v)
        return out

    node = per_run("Output OpId_3 (cycles)")
    accel = per_run("Accelerator (execute) time (cycles)")
    excl_us = per_run("Accelerator (execute excluding wait) time (us)")
    share = 100.0 * sum(node) / sum(accel)
    wall_us = statistics.median(node) * (sum(excl_us) * 1000.0 / sum(accel)) / 1000.0
    # 1. placement in every format
    ops = {r["name"]: r for r in js(["ops", dump])["rows"]}
    check(ops["DELEGATE_CALL"]["placement"] == "QnnBackend (inferred)", f"ops json DELEGATE_CALL placement {ops['DELEGATE_CALL']['placement']}")
    c = [r for r in csv.DictReader(io.StringIO(run(["summary", dump, "--format", "csv"]))) if r["section"] == "top_op"]
    check(c and c[0]["placement"] == "QnnBackend (inferred)", f"summary csv top_op placement {c[0]['placement'] if c else None}")
    # 2. the Output node's share, summary and tree, against the hand value
    summ = js(["summary", dump])
    hs = [o for o in summ["methods"][0]["htp_nodes"]["top"] if o["name"] == "Output OpId_3 (cycles)"]
    check(hs and near(hs[0]["share"], share, 1e-9), f"summary Output share {hs[0]['share'] if hs else None} vs hand {share}")
    tree = js(["tree", dump])
    found = []

    def walk(n):
        if n["name"] == "Output OpId_3 (cycles)":
            found.append(n["share_of_parent"])
        for ch in n.get("children") or []:
            walk(ch)

    for r in tree["methods"][0]["roots"]:
        walk(r)
    check(found and near(found[0], share, 1e-9), f"tree Output share_of_parent {found} vs hand {share}")
    table = run(["tree", dump])
    row = [ln for ln in table.splitlines() if "Output OpId_3" in ln]
    check(row and f"{share:.2f}" in row[0].split(), f"tree table Output share {share:.2f} in {row[:1]}")
    # 3. the wall-time estimate: ops json, explain, report
    o = {r["name"]: r for r in js(["ops", dump, "--htp-clock-ghz", "1.8"])["rows"]}["Output OpId_3 (cycles)"]
    check(near(o["wall_est_p50"], wall_us, 1e-9) and o["wall_est_unit"] == "est_us", f"ops wall_est_p50 {o['wall_est_p50']} {o['wall_est_unit']} vs hand {wall_us} us")
    rep = os.path.join(tmp, "w.html")
    run(["report", dump, "-o", rep])
    text = html.unescape(re.sub(r"<[^>]+>", " ", open(rep).read()))
    m = re.search(r"Output OpId_3 \(cycles\)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)", text)
    check(m is not None and abs(float(m.group(5)) - wall_us) <= 0.0005 + 1e-9, f"report est. wall of Output {m.groups() if m else None} vs hand {wall_us:.3f}")
    # 4. a dump without a method: "(method unknown)" in diff too
    d = run(["diff", dump, dump], ok=(0, 5, 6))
    check("(method unknown)" in d and "(unnamed)" not in d, "diff names an unknown method '(method unknown)'")
    # 5. runs numbered 1..10 (runs) = the trace's run tracks (checked per dump above)
    rj = js(["runs", dump])
    check([r["run"] for r in rj["runs"]] == list(range(1, 11)), f"runs numbered {[r['run'] for r in rj['runs']]}")


with tempfile.TemporaryDirectory() as tmp:
    stories = os.path.join(DATA, "upstream", "stories260k_hybrid_llama_qnn.pte")
    cases = [
        (os.path.join(DATA, "fake-qnn-backend", "stories260k_qnn_kv_forward_10x.etdp"), None),
        (os.path.join(DATA, "fake-qnn-backend", "stories260k_qnn_kv_forward_10x.etdp"), stories),
        (os.path.join(DATA, "synthetic", "synth_qnn_mixed_small_3x.etdp"), None),
        (os.path.join(DATA, "real", "add_pte_10x.etdp"), os.path.join(DATA, "upstream", "add.pte")),
        (os.path.join(DATA, "real", "module_linear_10x.etdp"), None),
        (os.path.join(DATA, "upstream", "etdump.etdp"), None),
    ]
    for dump, pte in cases:
        views_agree(dump, pte, tmp)
    hand_checks(tmp)

print(f"figures_agree: {checks} checks, {fails} failed")
sys.exit(1 if fails else 0)
