#!/usr/bin/env python3
"""Several dumps at once and the summary by operator type (issue 14.1).

Independent facts:
- the multi-file analysis of two corpus dumps (QNN prefill 1 run, QNN kv_forward 10 runs, the
  `prefill vs decode` case) must equal each file's single-file analysis: the single-file outputs
  are the reference (a different code path: one file, no `file` member), and the rows of the
  two files must stay apart (never merged) even when the same file is given twice;
- the op-type section of `summary` must equal sums over the `ops` rows computed here, grouping
  the rows with a regular expression written in this test (ATen op of the HTP node name; CPU
  kernels by operator), not by etprof's grouping code;
- the report's per-file frames must hold exactly the bytes of `etprof report FILE`.

    test_multi.py ETPROF DATA_DIR
"""
import html
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict

E, D = sys.argv[1], sys.argv[2]
PTE = os.path.join(D, "upstream", "stories260k_hybrid_llama_qnn.pte")
PRE = os.path.join(D, "fake-qnn-backend", "stories260k_qnn_prefill_forward_1x.etdp")
KV = os.path.join(D, "fake-qnn-backend", "stories260k_qnn_kv_forward_10x.etdp")
ML = os.path.join(D, "real", "module_linear_10x.etdp")
MLP = os.path.join(D, "upstream", "module_linear_no_constant_segment.pte")
T = tempfile.mkdtemp(prefix="etprof-multi-")
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)


def close(a, b, tol=1e-9):
    return a is not None and b is not None and abs(a - b) <= tol * max(1.0, abs(a), abs(b))


def run(*args, rc=0):
    p = subprocess.run([E, *args], capture_output=True, text=True)
    check(p.returncode == rc, f"{args}: exit {p.returncode}, want {rc}: {p.stderr.strip()}")
    return p


def js(*args):
    p = run(*args, "--format", "json")
    return json.loads(p.stdout) if p.returncode == 0 else None


def without(d, *keys):
    return {k: v for k, v in d.items() if k not in keys}


FILES = [(PRE, "prefill_forward", "prefill"), (KV, "kv_forward", "decode")]
MULTI = [PRE, KV, "--pte", PTE, "--method", "prefill_forward", "--method", "kv_forward",
         "--label", "prefill", "--label", "decode"]

# ---- 1. multi == each file's single analysis ----------------------------------------------------
for cmd, extra in (("ops", ["--all"]), ("ops", ["--by", "type"])):
    multi = js(cmd, *MULTI, *extra)
    if not multi:
        continue
    for path, method, label in FILES:
        single = js(cmd, path, "--pte", PTE, "--method", method, *extra)
        mine = [without(r, "file") for r in multi["rows"] if r["file"] == label]
        check(single and mine == single["rows"],
              f"{cmd} {extra}: {label}: {len(mine)} rows differ from the single-file analysis "
              f"({single and len(single['rows'])} rows)")
    check(all(list(r)[0] == "file" for r in multi["rows"]), f"{cmd} {extra}: file is the first member")

multi = js("runs", *MULTI)
if multi:
    check([f["label"] for f in multi["files"]] == ["prefill", "decode"], "runs: files[] labels")
    for path, method, label in FILES:
        single = js("runs", path, "--pte", PTE, "--method", method)
        check([without(r, "file") for r in multi["runs"] if r["file"] == label] == single["runs"],
              f"runs: {label}: rows differ from the single-file analysis")
        check([without(m, "file") for m in multi["methods"] if m["file"] == label] == single["methods"],
              f"runs: {label}: methods differ from the single-file analysis")
    # the first run of each file (each method) is warm-up: prefill's only run, decode's run 0
    check([r["warmup"] for r in multi["runs"]] == [True, True] + [False] * 9,
          "runs: the first run of each file is warm-up")

multi = js("summary", *MULTI)
if multi:
    check(multi["file"] is None and multi["runs"] == 11, "summary: file null, runs 1 + 10")
    check([(f["label"], f["path"], f["runs"]) for f in multi["files"]] ==
          [("prefill", PRE, 1), ("decode", KV, 10)], "summary: files[]")
    for path, method, label in FILES:
        single = js("summary", path, "--pte", PTE, "--method", method)
        check([without(m, "file") for m in multi["methods"] if m["file"] == label] == single["methods"],
              f"summary: {label}: methods differ from the single-file analysis")

# the same file twice: its rows twice, never summed (count stays 10 per row)
twice = js("ops", KV, KV, "--pte", PTE, "--method", "kv_forward", "--label", "a", "--label", "b")
single = js("ops", KV, "--pte", PTE, "--method", "kv_forward")
if twice and single:
    check(len(twice["rows"]) == 2 * len(single["rows"]), "same file twice: twice the rows, not merged")
    check(all(r["count"] == s["count"] for r, s in zip(twice["rows"], single["rows"] * 2)),
          "same file twice: counts not added up")

# default labels: the base names; equal base names need --label; label count must match
d = js("runs", PRE, KV, "--pte", PTE)
check(d and [f["label"] for f in d["files"]] == [os.path.basename(PRE), os.path.basename(KV)],
      "default labels are the base names")
p = run("ops", KV, KV, rc=2)
check("--label" in p.stderr and "two files have the label" in p.stderr, f"duplicate label: {p.stderr}")
p = run("summary", PRE, KV, "--label", "x", rc=2)
check("1 label(s) for 2 file(s)" in p.stderr, f"label count: {p.stderr}")
p = run("runs", PRE, KV, "--method", "a", "--method", "b", "--method", "c", rc=2)
check("3 methods for 2 file(s)" in p.stderr, f"method count: {p.stderr}")
p = run("ops", PRE, KV, "--etrecord", "x", rc=2)
check("applies to one FILE" in p.stderr, f"--etrecord with two files: {p.stderr}")

# a bad second file: one located error naming it, exit 1, no output file (every command)
bad = os.path.join(T, "truncated.etdp")
with open(KV, "rb") as f:
    open(bad, "wb").write(f.read(200))
for cmd in ("summary", "ops", "runs", "report"):
    o = os.path.join(T, "bad." + cmd)
    p = run(cmd, PRE, bad, "-o", o, rc=1)
    check(p.stderr.startswith("etprof: " + bad + ": offset ") and p.stderr.count("\n") == 1,
          f"{cmd}: bad second file: {p.stderr!r}")
    check(not os.path.exists(o), f"{cmd}: bad second file: no output file")

# text views: a file column (ops, runs), one part per file (summary)
t = run("ops", *MULTI, "--top", "2").stdout
check(t.splitlines()[0].split()[0] == "file" and "\nprefill " in t and "\ndecode " in t,
      "ops table: file column")
t = run("summary", *MULTI).stdout
check(t.index("== prefill ==") < t.index("== decode =="), "summary text: one part per file")
c = run("summary", *MULTI, "--format", "csv").stdout.splitlines()
check(c[0].startswith("file,section,") and all(l.split(",")[0] in ("prefill", "decode") for l in c[1:]),
      "summary csv: file column")

# report: a files table, each file's own report byte for byte in its frame
out = os.path.join(T, "multi.html")
run("report", *MULTI, "-o", out)
one = []
for path, method, label in FILES:
    o1 = os.path.join(T, label + ".html")
    run("report", path, "--pte", PTE, "--method", method, "-o", o1)
    one.append(open(o1, encoding="utf-8").read())
if os.path.exists(out):
    h = open(out, encoding="utf-8").read()
    frames = [html.unescape(m) for m in re.findall(r'<iframe class="file" title="[^"]*" srcdoc="([^"]*)"', h)]
    check(frames == one, f"report: {len(frames)} frames, each the single-file report")
    check(not re.search(r'(?:src|href)="(?:https?:)?//', h), "report: no network reference")
p = run("report", PRE, KV, "--qhas", "x.json", "-o", os.path.join(T, "x.html"), rc=2)
check("applies to one FILE" in p.stderr, "report --qhas with two files")

# ---- 2. summary's op types == sums over the ops rows, grouped here by regex ---------------------
STOP = r"(?:default|tensor|scalar|int|dims?|self|out|list|float|bool|str|value|mode|h|sha|\d+)"
ATEN = re.compile(r"^aten_(_*[^_]+(?:_(?!" + STOP + r"(?:_|$))[^_]+)*)", re.I)


def htp_type(r):
    if r["kind"] != "htp_node":
        return None
    if re.match(r"^Input OpId_\d+", r["name"]):
        return "(graph input)"
    if re.match(r"^Output OpId_\d+", r["name"]):
        return "(graph output)"
    m = ATEN.match(r["operator"] or "")
    return m.group(1) if m else "(system op)"


def cpu_type(r):
    return r["operator"] if r["kind"] == "operator_call" else None


for args, typ, dom in (([KV, "--pte", PTE, "--method", "kv_forward"], htp_type, "htp"),
                       ([ML, "--pte", MLP], cpu_type, "cpu")):
    rows = js("ops", *args, "--all")
    summ = js("summary", *args)
    if not rows or not summ:
        continue
    want = defaultdict(lambda: [0, 0.0])
    for r in rows["rows"]:
        k = typ(r)
        if k is not None and r["total"] is not None:
            want[(r["method"], k)][0] += r["count"]
            want[(r["method"], k)][1] += r["total"]
    got = {}
    for m in summ["methods"]:
        for g in m["op_types"]:
            if g["domain"] == dom:
                got[(m["name"], g["type"])] = g
    check(set(got) == set(want), f"summary op_types {dom}: types {sorted(set(got) ^ set(want))} differ")
    for k, (cnt, tot) in want.items():
        g = got.get(k)
        check(g and g["count"] == cnt and close(g["total"], tot, 1e-6),
              f"summary op_types {k}: {g and (g['count'], g['total'])}, ops rows give {cnt}, {tot}")
    for m in summ["methods"]:
        gs = [g for g in m["op_types"] if g["domain"] == dom]
        if gs:
            tot = sum(g["total"] for g in gs)
            check(all(close(g["share"], g["total"] / tot * 100, 1e-6) for g in gs), f"{dom}: share")
            check(close(gs[-1]["cum_share"], 100.0, 1e-6), f"{dom}: cumulative share ends at 100")
            check(all(gs[i]["total"] >= gs[i + 1]["total"] for i in range(len(gs) - 1)), f"{dom}: sorted")
            check(len({g["unit"] for g in gs}) == 1, f"{dom}: one unit per group")
    # the text view: one table per domain/unit, units never mixed in a column
    t = run("summary", *args).stdout
    check("operators by type: " in t, f"summary text: op-type section ({dom})")

if fails:
    for f in fails:
        print("FAIL:", f)
    sys.exit(1)
print("ok: several dumps = each file's own analysis; summary op types = regex sums over ops rows")
