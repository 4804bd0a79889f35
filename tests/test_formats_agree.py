#!/usr/bin/env python3
"""formats_agree: table, md, csv, tsv, jsonl and json of one run of a command carry the same
values (issue 11.2: one result object behind every format). For every command on the result
model (docs/result-model.md): summary, ops, runs, tensors, compare, events.

  - csv, tsv and jsonl: the same rows, cell by cell (csv/tsv text vs jsonl typed values, numbers
    within the printed precision), the same header keys;
  - csv vs json: every latency / placement / cpu_operator row against the JSON facts;
  - md and table vs json: the latency line (p50, p90 and unit) and the placement table's
    per-run and share cells of every method, and the unit column.
usage: test_formats_agree.py ETPROF DATA_DIR"""
import csv, io, json, os, re, subprocess, sys

ET, DATA = sys.argv[1], sys.argv[2]
fails = 0
checks = 0

def run(fmt, args):
    env = dict(os.environ, COLUMNS="400")
    p = subprocess.run([ET, "-f", fmt] + args, capture_output=True, env=env)
    if p.returncode != 0:
        raise SystemExit("FAIL: etprof -f %s %s: exit %d: %s" % (fmt, " ".join(args), p.returncode,
                                                                 p.stderr.decode()))
    return p.stdout.decode()

def check(cond, what):
    global fails, checks
    checks += 1
    if not cond:
        fails += 1
        print("FAIL:", what)

def close(text, value, prec):
    """a printed number (prec digits) vs the JSON value"""
    if value is None:
        return text in ("", "-")
    try:
        return abs(float(text) - value) <= 0.5 * 10 ** -prec + 1e-12 * abs(value)
    except ValueError:
        return False

CASES = [
    ["real/add_pte_10x.etdp", "--pte", "upstream/add.pte"],
    ["real/add_pte_1x.etdp"],
    ["fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp", "--pte", "upstream/stories260k_hybrid_llama_qnn.pte"],
    ["ethosu-partial-delegation/mobilenet_v2_ethosu_N_partial_1x.etdp", "--pte",
     "ethosu-partial-delegation/pte/mobilenet_v2_ethosu_N.pte"],
    ["synthetic/synth_qnn_mixed_small_3x.etdp"],
]

for case in CASES:
    args = ["summary", os.path.join(DATA, case[0])] + [os.path.join(DATA, a) if a.endswith(".pte") else a for a in case[1:]]
    name = "summary " + " ".join(case)
    j = json.loads(run("json", args))
    rows_csv = list(csv.reader(io.StringIO(run("csv", args))))
    rows_tsv = [l.split("\t") for l in run("tsv", args).splitlines()]
    rows_jl = [json.loads(l) for l in run("jsonl", args).splitlines()]
    hdr = rows_csv[0]
    check(rows_tsv[0] == hdr, name + ": tsv header = csv header")
    check(len(rows_jl) == len(rows_csv) - 1 == len(rows_tsv) - 1, name + ": same row count csv/tsv/jsonl")
    prec = {"value": 3, "share": 2}
    for r, (c, t, l) in enumerate(zip(rows_csv[1:], rows_tsv[1:], rows_jl)):
        check(list(l.keys()) == hdr, name + ": jsonl keys = csv header")
        for k, key in enumerate(hdr):
            v = l[key]
            if isinstance(v, float) or (isinstance(v, int) and not isinstance(v, bool)):
                check(close(c[k], v, prec.get(key, 0)), "%s: row %d %s: csv %r vs jsonl %r" % (name, r, key, c[k], v))
                check(close(t[k], v, prec.get(key, 0)), "%s: row %d %s: tsv %r vs jsonl %r" % (name, r, key, t[k], v))
            elif v is None:
                check(c[k] == "" and t[k] in ("", "-"), "%s: row %d %s null" % (name, r, key))
            else:
                check(c[k].lstrip("'") == v and t[k] == v, "%s: row %d %s: %r %r vs %r" % (name, r, key, c[k], t[k], v))
    # csv vs json facts
    meth = {m["name"]: m for m in j["methods"]}
    for c in rows_csv[1:]:
        row = dict(zip(hdr, c))
        m = meth.get(row["method"] or None)
        if m is None:
            check(row["method"] == "" and None in meth, name + ": csv method %r in json" % row["method"])
            continue
        if row["section"] == "latency":
            check(close(row["value"], m["latency"][row["item"]], 3), "%s: latency %s" % (name, row["item"]))
            check(row["unit"] == m["latency"]["unit"], name + ": latency unit")
        elif row["section"] == "placement":
            p = [p for p in m["placement"] if p["placement"] == row["item"]]
            check(len(p) >= 1 and close(row["value"], p[0]["per_run"], 3) and close(row["share"], p[0]["share"], 2)
                  and row["unit"] == p[0]["unit"], "%s: placement %s" % (name, row["item"]))
        elif row["section"] == "cpu_operator":
            p = [p for p in m["cpu_operators"] if p["operator"] == row["item"]]
            check(len(p) == 1 and close(row["value"], p[0]["per_run"], 3) and int(row["instructions"]) == p[0]["instructions"],
                  "%s: cpu_operator %s" % (name, row["item"]))
    # md and table vs json
    for fmt in ("md", "table"):
        text = run(fmt, args)
        for m in j["methods"]:
            lat = re.search(r"latency \(Method::execute per run\) p50 ([0-9.]+) (\S+), p90 ([0-9.]+) (\S+)", text)
            check(lat is not None, "%s %s: latency line" % (name, fmt))
            if lat:
                check(close(lat.group(1), m["latency"]["p50"], 3) and close(lat.group(3), m["latency"]["p90"], 3)
                      and lat.group(2).rstrip(",;") == m["latency"]["unit"], "%s %s: latency values" % (name, fmt))
            # the placement table: per run, unit, share of each part, in order
            if fmt == "md":
                lines = [l for l in text.splitlines() if l.startswith("| ")]
                start = [i for i, l in enumerate(lines) if "where the time went" in l]
                check(bool(start), name + " md: placement table")
                if start:
                    body = lines[start[0] + 2:start[0] + 2 + len(m["placement"])]
                    for cells, p in zip(body, m["placement"]):
                        cl = [x.strip() for x in cells.strip("|").split("|")]
                        check(close(cl[3], p["per_run"], 3) and cl[4] == p["unit"] and close(cl[5], p["share"], 2),
                              "%s md: placement row %s: %r" % (name, p["placement"], cl))
                        check(cl[2] == str(p["calls"]), "%s md: calls %r" % (name, cl))
            break  # the first method's section comes first; enough for the text views

# ops: one table in every format. csv/tsv/jsonl rows = json rows (cell by cell); md rows = json
# rows through the header -> key map of the table (md leaves the data-quality columns out).
OPS_HDR = {"method": "method", "instr": "instruction_id", "name": "name", "count": "count",
           "min": "min", "p10": "p10", "p50": "p50", "p90": "p90", "avg": "avg", "max": "max",
           "total": "total", "share%": "share", "unit": "unit", "placement": "placement",
           "kind": "kind", "operator": "operator"}
OPS_PREC = {"share": 2, "min": 3, "p10": 3, "p50": 3, "p90": 3, "avg": 3, "max": 3, "total": 3}

def same(text, v, key):
    if v is None:
        return text in ("", "-")
    if isinstance(v, bool):
        return text == ("true" if v else "false")
    if isinstance(v, (int, float)):
        return close(text, v, OPS_PREC.get(key, 0))
    return text.lstrip("'") == v or text == v.replace("\t", " ")

for case in CASES:
    args = ["ops", os.path.join(DATA, case[0])] + [os.path.join(DATA, a) if a.endswith(".pte") else a for a in case[1:]]
    name = "ops " + " ".join(case)
    rows = json.loads(run("json", args))["rows"]
    rc = list(csv.reader(io.StringIO(run("csv", args))))
    rt = [l.split("\t") for l in run("tsv", args).splitlines()]
    rj = [json.loads(l) for l in run("jsonl", args).splitlines()]
    check(len(rc) - 1 == len(rt) - 1 == len(rj) == len(rows), name + ": same row count in every format")
    check(rc[0] == rt[0] == list(rows[0].keys()), name + ": csv/tsv header = json keys")
    check(rj == rows, name + ": jsonl rows = json rows")
    for r, (c, t, jr) in enumerate(zip(rc[1:], rt[1:], rows)):
        for k, key in enumerate(rc[0]):
            check(same(c[k], jr[key], key) and same(t[k], jr[key], key),
                  "%s: row %d %s: csv %r tsv %r json %r" % (name, r, key, c[k], t[k], jr[key]))
    md = [l for l in run("md", args).splitlines() if l.startswith("| ")]
    hdr = [x.strip() for x in md[0].strip("|").split("|")]
    check(all(h in OPS_HDR for h in hdr), name + ": md headers %r" % hdr)
    body = md[2:]
    check(len(body) == len(rows), name + ": md row count")
    for r, (line, jr) in enumerate(zip(body, rows)):
        cl = [x.strip() for x in line.strip("|").split("|")]
        for h, x in zip(hdr, cl):
            key = OPS_HDR.get(h)
            if key and key not in ("method", "name", "operator"):  # names: md escapes "|" and the like
                check(same(x, jr[key], key), "%s md: row %d %s: %r vs %r" % (name, r, key, x, jr[key]))

# runs, tensors, compare, events (port-rtce): csv, tsv (and jsonl where the flat rows are the
# table's) cell by cell against the JSON facts; md rows of runs through its header -> key map.
def agree(text, v):
    """a printed cell vs a JSON value: numbers within the digits printed, inf as "inf"/"Infinity\""""
    if v is None:
        return text in ("", "-")
    if isinstance(v, bool):
        return text == ("true" if v else "false")
    if v in ("Infinity", "-Infinity"):
        return text == ("inf" if v == "Infinity" else "-inf")
    if isinstance(v, (int, float)):
        m = re.match(r"^-?[0-9]+(?:\.([0-9]+))?(?:e[-+]?[0-9]+)?$", text)
        if not m:
            return False
        if "e" in text:
            return abs(float(text) - v) <= 1e-5 * abs(v)
        return close(text, v, len(m.group(1) or ""))
    if v == []:  # an inline value (tensors): no shape; the text views show none
        return text in ("", "-")
    if isinstance(v, list):
        return text == "[" + ", ".join(str(x) for x in v) + "]"
    return text.lstrip("'") == v or text == v.replace("\t", " ")

def flat(args):
    c = list(csv.reader(io.StringIO(run("csv", args))))
    t = [l.split("\t") for l in run("tsv", args).splitlines()]
    check(c[0] == t[0] and len(c) == len(t), " ".join(args) + ": csv and tsv: same header and rows")
    return [dict(zip(c[0], r)) for r in c[1:]], [dict(zip(t[0], r)) for r in t[1:]]

def rows_agree(name, jrows, args, keys, jsonl=True):
    rc, rt = flat(args)
    check(len(rc) == len(jrows), "%s: %d flat rows, %d JSON rows" % (name, len(rc), len(jrows)))
    if jsonl:
        rj = [json.loads(l) for l in run("jsonl", args).splitlines()]
        check(len(rj) == len(rc), name + ": jsonl row count")
    for r, (c, t, jr) in enumerate(zip(rc, rt, jrows)):
        for key, jkey in keys:
            v = jr.get(jkey) if jkey in jr else None
            check(agree(c[key], v) and agree(t[key], v),
                  "%s: row %d %s: csv %r tsv %r json %r" % (name, r, key, c[key], t[key], v))
            if jsonl:
                jl = rj[r][key]
                check(jl == v or (isinstance(v, str) and agree(str(jl) if not isinstance(jl, float) else repr(jl), v))
                      or (isinstance(jl, (int, float)) and isinstance(v, (int, float)) and abs(jl - v) <= 1e-9 * max(1, abs(v))),
                      "%s: row %d %s: jsonl %r json %r" % (name, r, key, jl, v))

def p(*a):
    return [os.path.join(DATA, x) if x.endswith((".pte", ".etdp", ".bin")) else x for x in a]

RUNS_KEYS = [(k, k) for k in ("run", "block", "robust_z", "execute", "delegate", "cpu", "framework", "unit")]
RUNS_HDR = {"run": "run", "block": "block", "robust z": "robust_z", "Method::execute": "execute",
            "delegate": "delegate", "cpu": "cpu", "framework": "framework", "unit": "unit"}
for case in CASES:
    args = ["runs"] + p(*case)
    name = "runs " + " ".join(case)
    jr = json.loads(run("json", args))["runs"]
    rows_agree(name, jr, args, RUNS_KEYS, jsonl=False)
    rj = [json.loads(l) for l in run("jsonl", args).splitlines()]
    rc, _ = flat(args)
    check(len(rj) == len(rc) and all(agree(c[k], l[k]) for c, l in zip(rc, rj) for k in c if k != "method"),
          name + ": jsonl rows = csv rows")
    md = [l for l in run("md", args).splitlines() if l.startswith("| ")]
    hdr = [x.strip() for x in md[0].strip("|").split("|")]
    check(len(md) - 2 == len(jr), name + ": md row count")
    for r, (line, row) in enumerate(zip(md[2:], jr)):
        cl = [x.strip() for x in line.strip("|").split("|")]
        for h, x in zip(hdr, cl):
            if h in RUNS_HDR:
                check(agree(x, row[RUNS_HDR[h]]), "%s md: row %d %s: %r vs %r" % (name, r, h, x, row[RUNS_HDR[h]]))
        flag = "warm-up" if row["warmup"] else "outlier" if row["outlier"] else ""
        check(cl[hdr.index("flag")] == flag, "%s md: row %d flag" % (name, r))

TENSOR_KEYS = [(k, k) for k in ("block", "event", "instruction_id", "output", "entry", "dtype", "shape", "offset",
                                "numel", "min", "max", "mean", "std", "nan", "inf", "zero_fraction")]
CMP_KEYS = [(k, k) for k in ("status", "run", "instruction_id", "occurrence", "output", "dtype", "numel",
                             "mse", "max_abs", "l1", "snr_db", "cosine")]
for d, pte in (("real/module_linear_intermediate_1x", "upstream/module_linear_no_constant_segment.pte"),
               ("real/bundled_program_intermediate_1x", None),
               ("synthetic/synth_qnn_mixed_small_3x", None)):
    extra = ["--pte", pte] if pte else []
    args = ["tensors"] + p(d + ".etdp", "--debug-buffer", d + ".debug.bin", *extra)
    rows_agree("tensors " + d, json.loads(run("json", args))["tensors"], args, TENSOR_KEYS, jsonl=False)
    args = ["compare"] + p(d + ".etdp", d + ".etdp", "--debug-buffer", d + ".debug.bin",
                           "--debug-buffer-new", d + ".debug.bin", *extra)
    rows_agree("compare " + d, json.loads(run("json", args))["tensors"], args, CMP_KEYS)
ML, MO = "real/module_linear_intermediate_1x", "real/module_linear_outputs_1x"
args = ["compare"] + p(ML + ".etdp", MO + ".etdp", "--debug-buffer", ML + ".debug.bin", "--debug-buffer-new", MO + ".debug.bin")
rows_agree("compare two runs", json.loads(run("json", args))["tensors"], args, CMP_KEYS)

EV_KEYS = [(k, k) for k in ("block", "index", "type", "kind", "start_time", "end_time", "value", "unit", "parent")]
for case in CASES[:3]:
    args = ["events"] + p(*case)
    ev = json.loads(run("json", args))["events"]
    rj = [json.loads(l) for l in run("jsonl", args).splitlines()]
    check(rj == ev, "events " + " ".join(case) + ": jsonl objects = json events")
    keys = EV_KEYS + ([("method", "method"), ("operator", "operator"), ("backend", "backend")] if len(case) > 1 else [])
    rows_agree("events " + " ".join(case), ev, args, keys, jsonl=False)
print("%d checks, %d failed" % (checks, fails))
sys.exit(1 if fails else 0)
