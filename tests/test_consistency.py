#!/usr/bin/env python3
"""test_consistency.py - one number, one value, in every view (docs/json-contract.md, "Shared
figures"). python3 standard library only.

  test_consistency.py --etprof B --tmp DIR [--flatc F] DUMP [--pte P] [--qhas Q] [--join-doc]

Runs every command that shows a shared figure with --format json (summary, ops, tree at three
statistics, explain, the data block of report, qnn when --qhas is given) and asserts that each
figure is equal in every view that shows it:

  runs per method; Method::execute p50/avg/total; per DELEGATE_CALL: p50/avg/total, the backend's
  time and DELEGATE_CALL minus backend time (p50/avg/total of the per-run difference); the top
  operators (names, instruction ids, totals, shares, in order); the QNN join counts (matched, by
  OpId, by name, one side only, OpId conflicts); the QNN ops using HMX / HVX / DMA.

The top-level figures are also computed here from an independent decode of the dump (Debian's
flatc + schema/etdump.fbs through tests/tools/flatc_events.py, never etprof code): runs, the
Method::execute and DELEGATE_CALL per-run sums, QNN (execute) time, the per-run difference and
its percentiles (numpy's linear interpolation, written out below), the operator ranking; and
with --qhas, the HMX/HVX/DMA counts from the QHAS JSON itself and the join from the ETDump's node
names and the QHAS op ids, by the documented rule (docs/qnn-inputs.md: OpId preferring the same
name, then by name). --join-doc additionally asserts the counts that
tests/data/qnn-fixtures/gen_stories_qhas.sh documents for its deliberate differences.
Exit 0 = pass, 1 = fail.
"""
import argparse
import html as html_lib
import json
import math
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "tools"))
import flatc_events  # noqa: E402  (the second decoder)

FAILS = []
CHECKS = [0]


def check(cond, msg):
    CHECKS[0] += 1
    if not cond:
        FAILS.append(msg)


def close(a, b, rel=1e-9, abs_=1e-6):
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, float) and math.isnan(a) or isinstance(b, float) and math.isnan(b):
        return False
    return math.isclose(a, b, rel_tol=rel, abs_tol=abs_)


def same(label, values):
    """values: [(view, value)]: every value equal (numbers within rounding of the JSON)."""
    vals = [(v, x) for v, x in values]
    if not vals:
        return
    v0, x0 = vals[0]
    for v, x in vals[1:]:
        ok = close(x0, x) if isinstance(x0, (int, float)) and isinstance(x, (int, float)) else x0 == x
        check(ok, "%s: %s = %r but %s = %r" % (label, v0, x0, v, x))


# ------------------------------------------------------------------------------------------------
# statistics, written out (numpy.percentile method "linear"; arithmetic mean)


def percentile(v, p):
    s = sorted(v)
    if not s:
        return None
    h = (len(s) - 1) * p / 100.0
    lo = math.floor(h)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (h - lo) * (s[hi] - s[lo])


def mean(v):
    return sum(v) / len(v) if v else None


# ------------------------------------------------------------------------------------------------
# the views


def run(args, *cmd):
    p = subprocess.run([args.etprof] + list(cmd), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise SystemExit("FAIL: etprof %s: exit %d: %s" % (" ".join(cmd), p.returncode,
                                                          p.stderr.decode(errors="replace")[:400]))
    return p.stdout


def run_json(args, *cmd):
    return json.loads(run(args, *cmd, "--format", "json").decode())


def report_data(args, inputs):
    path = os.path.join(args.tmp, "consistency-%d.html" % os.getpid())
    run(args, "report", *inputs, "--top", "100000", "-o", path)
    with open(path, encoding="utf-8") as f:
        html = f.read()
    os.unlink(path)
    m = re.search(r'<script type="application/json" id="etprof-data">(.*?)</script>', html, re.S)
    if not m:
        raise SystemExit("FAIL: report: no etprof-data block")
    return json.loads(m.group(1)), html


def walk(node, out):
    out.append(node)
    for c in node.get("children") or []:
        walk(c, out)


def tree_nodes(tree, method):
    out = []
    for m in tree["methods"]:
        if m["name"] == method:
            for r in m["roots"]:
                walk(r, out)
    return out


# ------------------------------------------------------------------------------------------------
# the independent decode


def decode(args, dump):
    doc, _ = flatc_events.load_flatc_json(dump, flatc=args.flatc)
    ev = flatc_events.flatten(doc, dump)["events"]
    blocks = {}
    for e in ev:
        blocks.setdefault(e["block"], []).append(e)
    runs = []  # per run: events of the block
    for b in sorted(blocks):
        es = blocks[b]
        prof = [e for e in es if e["type"] == "profile"]
        # a run (docs/analyses.md): Method::execute, named Execute, or not a load block and
        # holding profile events of an instruction (chain and instruction id >= 0)
        load = any(e["name"] in ("Method::init", "Program::load_method") for e in prof)
        instr = any(e["chain_index"] >= 0 and e["instruction_id"] >= 0 for e in prof)
        if (any(e["name"] == "Method::execute" for e in prof) or es[0]["block_name"] == "Execute"
                or (instr and not load)):
            runs.append(prof)
    return runs


def dur(e):
    """end - start; a 32-bit wrap when start > end and both fit in 32 bits; else no duration
    (0 in the sums, as docs/analyses.md says such events are left out)."""
    s, t = e["start_time"], e["end_time"]
    if s <= t:
        return t - s
    if s < 2 ** 32 and t < 2 ** 32:
        return 2 ** 32 - s + t
    return 0


def independent(runs):
    """Per run sums (ns at 1 ns/tick) of Method::execute, each DELEGATE_CALL instruction, the QNN
    (execute) time of that instruction (us -> ns), and the operator rows' totals."""
    f = {"runs": len(runs), "exec": [], "dc": {}, "qe": {}, "ops": {}, "cpu": {}}
    kernels = any((e["name"] or "").startswith("native_call_") for r in runs for e in r)
    for r in runs:
        # the whole OPERATOR_CALL per operator, named by the kernel of its instruction
        kern = {(e["chain_index"], e["instruction_id"]): e["name"][len("native_call_"):]
                for e in r if (e["name"] or "").startswith("native_call_")}
        for e in r:
            k = (e["chain_index"], e["instruction_id"])
            if e["name"] == "OPERATOR_CALL" and k in kern:
                f["cpu"][kern[k]] = f["cpu"].get(kern[k], 0) + dur(e)
        f["exec"].append(sum(dur(e) for e in r if e["name"] == "Method::execute"))
        dc_run, qe_run = {}, {}
        for e in r:
            key = (e["chain_index"], e["instruction_id"])
            if e["name"] == "DELEGATE_CALL":
                dc_run[key] = dc_run.get(key, 0) + dur(e)
            if e["delegate_debug_id_str"] == "QNN (execute) time (us)":
                qe_run[key] = qe_run.get(key, 0) + e["end_time"] * 1000
            opname = "native_call_" if kernels else "OPERATOR_CALL"
            if e["name"] == "DELEGATE_CALL" or (e["name"] or "").startswith(opname):
                k = (e["instruction_id"], e["name"])
                f["ops"][k] = f["ops"].get(k, 0) + dur(e)
        for k, v in dc_run.items():
            f["dc"].setdefault(k, []).append(v)
            f["qe"].setdefault(k, []).append(qe_run.get(k))
    return f


def node_names(runs):
    """The HTP node identities of the first run: (name or None, OpId), in event order."""
    out, seen = [], set()
    for e in runs[0] if runs else []:
        s = e["delegate_debug_id_str"]
        if not s or not s.endswith(" (cycles)"):
            continue
        m = re.fullmatch(r"(.+):OpId_(\d+) \(cycles\)", s) or \
            re.fullmatch(r"(Input|Output) OpId_(\d+) \(cycles\)", s)
        if m:
            ident = (m.group(1), int(m.group(2)))
        else:
            m = re.fullmatch(r"OpId_(\d+) \(cycles\)", s)
            if not m:
                continue
            ident = (None, int(m.group(1)))
        if ident not in seen:
            seen.add(ident)
            out.append(ident)
    return out


def qhas_ops(path):
    with open(path, encoding="utf-8") as f:
        q = json.load(f)
    ops = {}
    for i in q["data"]["htp_op_instances"]["data"]:
        o = ops.setdefault(i["qnn_op"], {"hmx": False, "hvx": False, "dma": False, "ids": []})
        for u in ("hmx", "hvx", "dma"):
            o[u] = o[u] or bool(i.get(u))
        o["dma"] = o["dma"] or bool(i.get("dma_set")) or bool(i.get("dma_wait"))
        oid = i["op_id"]
        o["ids"].append((int(oid, 16) if isinstance(oid, str) else int(oid)) & 0xFFFFFFFF)
    return ops


def join(nodes, ops):
    by_id = {}
    for name, o in ops.items():
        by_id.setdefault(o["ids"][0], []).append(name)
    used = set()
    res = {"etdump_nodes": len(nodes), "matched": 0, "matched_by_op_id": 0,
           "matched_by_name_only": 0, "etdump_only": 0, "conflicts": 0}
    rest = []
    for name, oid in nodes:
        cands = [n for n in by_id.get(oid, []) if n not in used]
        if cands:
            pick = name if name in cands else cands[0]
            used.add(pick)
            if name is None or pick == name:
                res["matched"] += 1
                res["matched_by_op_id"] += 1
            else:
                res["conflicts"] += 1
        else:
            rest.append(name)
    for name in rest:
        if name is not None and name in ops and name not in used:
            used.add(name)
            res["matched"] += 1
            res["matched_by_name_only"] += 1
        else:
            res["etdump_only"] += 1
    res["qnn_only"] = len(ops) - len(used)
    return res


# ------------------------------------------------------------------------------------------------


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--etprof", required=True)
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--flatc", default=None)
    ap.add_argument("--pte")
    ap.add_argument("--qhas")
    ap.add_argument("--join-doc", action="store_true")
    ap.add_argument("dump")
    args = ap.parse_args(argv)
    os.makedirs(args.tmp, exist_ok=True)
    inputs = [args.dump] + (["--pte", args.pte] if args.pte else [])
    qin = inputs + (["--qhas", args.qhas] if args.qhas else [])

    summary = run_json(args, "summary", *inputs, "--top", "100000")
    ops = run_json(args, "ops", *inputs, "--all")["rows"]
    top_ops = run_json(args, "ops", *inputs, "--kind", "operator", "--sort", "total")["rows"]
    trees = {s: run_json(args, "tree", *inputs, "--stat", s) for s in ("p50", "avg")}  # no total
    explain = run_json(args, "explain", *qin)["findings"]
    rep, html = report_data(args, qin)
    qnn = run_json(args, "qnn", *qin) if args.qhas else None
    for view, doc in (("summary", summary), ("tree", trees["p50"]), ("report", rep)):
        check(doc.get("time_unit", "us") == "us", "%s: time unit us" % view)

    # ---- runs ----
    methods = [m["name"] for m in summary["methods"]]
    same("runs (file)", [("summary", summary["runs"]), ("report", rep["runs"]),
                         ("summary methods", sum(m["runs"] for m in summary["methods"])),
                         ("tree methods", sum(m["runs"] for m in trees["p50"]["methods"]))])
    same("methods", [("summary", methods), ("report", [m["name"] for m in rep["methods"]]),
                     ("tree", [m["name"] for m in trees["p50"]["methods"]])])
    sm = {m["name"]: m for m in summary["methods"]}
    rm = {m["name"]: m for m in rep["methods"]}
    # rows whose enclosing event varies between runs: the tree shows each under one parent while
    # every run's sums follow its own nesting, and the views say so (data_quality.parent_varies)
    varies = {x["name"] for x in summary["data_quality"]["parent_varies"]}
    same("rows whose parent varies", [("summary", sorted(varies)), ("report", sorted(
        x["name"] for x in rep["data_quality"]["parent_varies"]))])
    tm = {s: {m["name"]: m for m in t["methods"]} for s, t in trees.items()}
    same_thing = {f["method"]: f["facts"] for f in explain if f["id"] == "same_thing"}
    npu_cpu = {f["method"]: f["facts"] for f in explain if f["id"] == "npu_vs_cpu"}

    for mn in methods:
        lab = "method %s: " % mn
        same(lab + "runs", [("summary", sm[mn]["runs"]), ("report", rm[mn]["runs"]),
                            ("tree", tm["p50"][mn]["runs"]), ("explain", same_thing[mn]["runs"])])
        # ---- Method::execute ----
        ex = [r for r in ops if r["method"] == mn and r["name"] == "Method::execute"]
        tx = {s: [n for n in tree_nodes(trees[s], mn) if n["name"] == "Method::execute"]
              for s in trees}
        if ex:
            for st in ("p50", "avg", "total"):
                vals = [("summary latency", sm[mn]["latency"][st]),
                        ("report latency", rm[mn]["latency"][st]), ("ops", ex[0][st])]
                if st in tx:
                    vals.append(("tree --stat %s" % st, tx[st][0]["inclusive"]))
                if st == "p50":
                    vals.append(("explain method_execute", same_thing[mn].get("method_execute")))
                same(lab + "Method::execute " + st, vals)
        # ---- DELEGATE_CALLs ----
        sd = {d["instruction_id"]: d for d in sm[mn]["delegates"]}
        rd = {d["instruction_id"]: d for d in rm[mn]["delegates"]}
        od = {r["instruction_id"]: r for r in ops if r["method"] == mn and r["kind"] == "delegate_call"}
        same(lab + "DELEGATE_CALL instructions", [("summary", sorted(sd)), ("report", sorted(rd)),
                                                  ("ops", sorted(od))])
        for ins, o in od.items():
            dl = lab + "DELEGATE_CALL %d " % ins
            tn = {s: [n for n in tree_nodes(trees[s], mn)
                      if n["kind"] == "delegate_call" and n["instruction_id"] == ins][0] for s in trees}
            for st in ("p50", "avg", "total"):
                t = tn.get(st)  # tree has no --stat total
                same(dl + st, [("ops", o[st]), ("summary", sd[ins]["delegate_call"][st]),
                               ("report", rd[ins]["delegate_call"][st])] +
                     ([("tree --stat %s" % st, t["inclusive"])] if t else []))
                if sd[ins]["overhead"] is None:
                    same(dl + "no backend time", [("summary", None), ("report", rd[ins]["overhead"])] +
                         ([("tree exclusive == inclusive",
                            None if t["exclusive"] == t["inclusive"] else t["exclusive"])] if t else []))
                    continue
                same(dl + "minus backend " + st,
                     [("summary", sd[ins]["overhead"][st]), ("report", rd[ins]["overhead"][st])] +
                     ([("tree exclusive --stat %s" % st, t["exclusive"])] if t else []))
                same(dl + "backend time " + st, [("summary", sd[ins]["backend_time"][st]),
                                                 ("report", rd[ins]["backend_time"][st])])
                if not t:
                    continue
                kids = [k for k in t["children"] if k["role"] == "time"]
                below = []
                walk(t, below)
                if varies & {n["name"] for n in below[1:]}:
                    check(any(n.startswith("the nesting varies between runs") for n in
                              summary["notes"]), dl + "the summary says the nesting varies")
                    continue  # the tree's children need not add up (docs/analyses.md)
                if any(k["runs"] != t["runs"] for k in kids):
                    continue  # a child's statistics are over its own runs, the sum's over all
                if len(kids) == 1 or st != "p50":
                    same(dl + "backend time = its timed children " + st,
                         [("summary", sd[ins]["backend_time"][st]),
                          ("tree children --stat %s" % st, sum(k["inclusive"] for k in kids))])
            if same_thing[mn].get("delegate_overhead") is not None and \
                    same_thing[mn].get("delegate_call") == sd[ins]["delegate_call"]["p50"]:
                same(dl + "minus QNN (execute) p50",
                     [("summary", sd[ins]["overhead"]["p50"]),
                      ("explain delegate_overhead", same_thing[mn]["delegate_overhead"])])
                same(dl + "QNN (execute) p50",
                     [("summary backend_time", sd[ins]["backend_time"]["p50"]),
                      ("explain delegate_backend_time", same_thing[mn]["delegate_backend_time"]),
                      ("explain qnn_execute", same_thing[mn]["qnn_execute"])])
        # the figure the report prints in its QNN section
        for mo in re.finditer(r'DELEGATE_CALL minus QNN \(execute\) time = <span data-v="([^"]+)">', html):
            v = float(mo.group(1))
            check(any(d["overhead"] and close(d["overhead"]["p50"], v, 1e-6)
                      for m in rep["methods"] for d in m["delegates"]),
                  "report text: DELEGATE_CALL minus QNN (execute) time %s is not a data-block value" % v)
        # ---- top operators ----
        def key(r):
            return (r["name"], r["instruction_id"], r["kind"], r["placement"])
        lists = [("summary top_ops", sm[mn]["top_ops"]), ("report top_ops", rm[mn]["top_ops"]),
                 ("ops --kind operator --sort total", [r for r in top_ops if r["method"] == mn]),
                 ("explain top_operators", npu_cpu[mn]["top_operators"])]
        n_all = len(lists[0][1])
        for v, lst in lists[1:3]:
            check(len(lst) == n_all, lab + "top operators: %d in summary, %d in %s" % (n_all, len(lst), v))
        check(len(lists[3][1]) == min(5, n_all), lab + "explain: top 5 operators")
        for k in range(n_all):
            row = [(v, lst[k]) for v, lst in lists if k < len(lst)]
            same(lab + "top operator #%d" % (k + 1), [(v, key(r)) for v, r in row])
            same(lab + "top operator #%d total" % (k + 1), [(v, r["total"]) for v, r in row])
            same(lab + "top operator #%d share" % (k + 1), [(v, r["share"]) for v, r in row])
        check(all(lists[0][1][k]["total"] >= lists[0][1][k + 1]["total"] for k in range(n_all - 1)),
              lab + "top operators by total, largest first")

    # ---- the independent decode (1 ns per tick, the default) ----
    runs = decode(args, args.dump)
    ind = independent(runs)
    check(ind["runs"] == summary["runs"], "flatc: %d runs, summary %d" % (ind["runs"], summary["runs"]))
    if len(methods) == 1 and ind["runs"]:
        mn = methods[0]
        us = lambda ns: ns / 1000.0  # noqa: E731
        ex = ind["exec"]
        if any(ex):
            check(close(sm[mn]["latency"]["total"], us(sum(ex))),
                  "flatc: Method::execute total %r us, summary %r" % (us(sum(ex)), sm[mn]["latency"]["total"]))
            check(close(sm[mn]["latency"]["avg"], us(mean(ex))), "flatc: Method::execute avg")
            check(close(sm[mn]["latency"]["p50"], us(percentile(ex, 50))), "flatc: Method::execute p50")
        sd = {d["instruction_id"]: d for d in sm[mn]["delegates"]}
        check(sorted(i for _, i in ind["dc"]) == sorted(sd),
              "flatc: DELEGATE_CALL instructions %r, summary %r" % (sorted(ind["dc"]), sorted(sd)))
        for (_, ins), dcv in ind["dc"].items():
            if ins not in sd:
                continue
            d = sd[ins]
            check(close(d["delegate_call"]["total"], us(sum(dcv))),
                  "flatc: DELEGATE_CALL %d total %r, summary %r" % (ins, us(sum(dcv)), d["delegate_call"]["total"]))
            check(close(d["delegate_call"]["p50"], us(percentile(dcv, 50))), "flatc: DELEGATE_CALL %d p50" % ins)
            qev = ind["qe"][(_, ins)]
            if all(q is not None for q in qev):
                diff = [a - b for a, b in zip(dcv, qev)]
                check(close(d["backend_time"]["p50"], us(percentile(qev, 50))),
                      "flatc: QNN (execute) p50 %r, summary %r" % (us(percentile(qev, 50)), d["backend_time"]["p50"]))
                check(close(d["overhead"]["p50"], us(percentile(diff, 50))),
                      "flatc: DELEGATE_CALL minus QNN (execute) p50 of the per-run difference %r us, "
                      "summary %r" % (us(percentile(diff, 50)), d["overhead"]["p50"]))
                check(close(d["overhead"]["avg"], us(mean(diff))), "flatc: overhead avg")
                check(close(d["overhead"]["total"], us(sum(diff))), "flatc: overhead total")
        # the operator ranking: totals in order; instruction ids of the rows with those totals
        want = sorted(ind["ops"].items(), key=lambda kv: -kv[1])
        got = sm[mn]["top_ops"]
        check(len(got) == len(want), "flatc: %d operator rows, summary top_ops %d" % (len(want), len(got)))
        for k in range(min(len(got), len(want))):
            check(close(got[k]["total"], us(want[k][1])),
                  "flatc: top operator #%d total %r us, summary %r" % (k + 1, us(want[k][1]), got[k]["total"]))
            ids = {i for (i, _), v in ind["ops"].items() if v == want[k][1]}
            check(got[k]["instruction_id"] in ids, "flatc: top operator #%d instruction %r not in %r"
                  % (k + 1, got[k]["instruction_id"], ids))

        # the CPU table counts the whole OPERATOR_CALL (kernel and dispatch), the top operators
        # the kernel alone: both against flatc, and the table's note says which is which
        cm = {c["operator"].split("::")[-1]: c for c in sm[mn]["cpu_operators"]}
        for op, tot in ind["cpu"].items():
            check(op in cm and close(cm[op]["total"], us(tot)),
                  "flatc: OPERATOR_CALL total of %s %r us, summary cpu_operators %r" %
                  (op, us(tot), cm.get(op, {}).get("total")))
        text = run(args, "summary", *inputs, "--top", "100000").decode()
        # every text view names a DELEGATE_CALL's backend alike (read from the program, or
        # inferred from its events: "X (inferred)")
        labels = lambda t: set(re.findall(r"DELEGATE_CALL \[([^\]]+)\]",  # noqa: E731
                                          re.sub(r"\s+", " ", t)))
        etext = run(args, "explain", *inputs).decode()
        check(labels(etext) == labels(text),
              "DELEGATE_CALL backends: explain names %r, summary %r" % (labels(etext), labels(text)))
        # the top operators: the report's table and the summary's, row by row
        tm = re.search(r'id="top-ops-table".*?</table>', html, re.S)
        rrows = re.findall(r"<td[^>]*>(DELEGATE_CALL \[[^<]*\])</td>", tm.group(0)) if tm else []
        srows = re.findall(r"^(DELEGATE_CALL \[[^\]]+\])", text, re.M)
        check([html_lib.unescape(x) for x in rrows] == srows,
              "DELEGATE_CALL backends: the report's top operators %r, summary's %r" % (rrows, srows))
        kernel_listed = any(t["kind"] == "kernel" for t in sm[mn]["top_ops"])
        note = "a CPU operator's time here is its kernel's (native_call_*)"
        check((note in text) == (kernel_listed and bool(sm[mn]["cpu_operators"])),
              "summary table: the note on kernel vs OPERATOR_CALL time %s" %
              ("missing" if kernel_listed else "shown without a kernel row"))

    # ---- QNN: the join and the units ----
    if args.qhas:
        hv = [f["facts"] for f in explain if f["id"] == "hmx_vs_hvx"][0]
        qs, qj = qnn["summary"], qnn["join"]
        for k in ("qnn_ops", "htp_ops", "ops_using_hmx", "ops_using_hvx", "ops_using_dma",
                  "ops_using_both", "ops_dma_only", "ops_using_none"):
            vals = [("qnn", qs[k]), ("report", rep["qnn_units"][k])]
            if k in hv:
                vals.append(("explain", hv[k]))
            same("QNN " + k, vals)
        ops_q = qhas_ops(args.qhas)
        for u in ("hmx", "hvx", "dma"):
            n = sum(o[u] for o in ops_q.values())
            check(qs["ops_using_" + u] == n, "QHAS file: %d ops use %s, qnn says %d" % (n, u, qs["ops_using_" + u]))
        check(qs["qnn_ops"] == len(ops_q), "QHAS file: %d QNN ops" % len(ops_q))
        views = {
            "qnn": {"etdump_nodes": qj["etdump_nodes"], "matched": qj["matched"],
                    "matched_by_op_id": qj["matched_by_op_id"],
                    "matched_by_name_only": qj["matched_by_name_only"],
                    "etdump_only": len(qj["etdump_only"]), "qnn_only": len(qj["qnn_only"]),
                    "conflicts": len(qj["conflicts"])},
            "explain": hv["join"], "report": rep["qnn_join"]}
        for k in views["qnn"]:
            same("QNN join " + k, [(v, j[k]) for v, j in views.items()])
        same("QNN join cycles_equal", [("qnn", qj["cycle_agreement"]["equal"]),
                                       ("explain", hv["join"]["cycles_equal"]),
                                       ("report", rep["qnn_join"]["cycles_equal"])])
        mo = re.search(r'<p id="qnn-join">.*?<b>(\d+)</b> of (\d+) ETDump node', html)
        check(mo and int(mo.group(1)) == qj["matched"] and int(mo.group(2)) == qj["etdump_nodes"],
              "report text: %s matched of %s, qnn says %d of %d"
              % (mo and mo.group(1), mo and mo.group(2), qj["matched"], qj["etdump_nodes"]))
        mo = re.search(r'<p id="qnn-join">.*?(\d+) OpId conflict', html)
        check(mo and int(mo.group(1)) == len(qj["conflicts"]), "report text: OpId conflicts")
        want = join(node_names(runs), ops_q)
        for k, v in want.items():
            check(views["qnn"][k] == v, "independent join: %s = %d, qnn says %d" % (k, v, views["qnn"][k]))
        if args.join_doc:
            # gen_stories_qhas.sh: 3 nodes left out, 1 by name only, 1 OpId conflict, 2 extra ops
            n = len(node_names(runs))
            doc = {"etdump_nodes": n, "etdump_only": 3, "matched_by_name_only": 1, "conflicts": 1,
                   "qnn_only": 2, "matched": n - 3 - 1, "matched_by_op_id": n - 3 - 1 - 1}
            for k, v in doc.items():
                check(views["qnn"][k] == v, "gen_stories_qhas.sh documents %s = %d, qnn says %d"
                      % (k, v, views["qnn"][k]))

    for f in FAILS:
        print("FAIL: " + f)
    print("test_consistency %s: %d checks, %d failed" % (os.path.basename(args.dump), CHECKS[0], len(FAILS)))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
