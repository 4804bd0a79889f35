#!/usr/bin/env python3
"""formats_agree: table, md, csv, tsv, jsonl and json of one run of a command carry the same
values (issue 11.2: one result object behind every format). For every command on the result
model (docs/result-model.md): summary, ops, explain, diff.

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
# explain: the findings in every format. jsonl lines = json findings; csv/tsv rows = their id,
# method, question and answer; md and table: each question (with its method) and its answer,
# in order (the table wraps lines: compared with whitespace collapsed).
def squash(t):
    return " ".join(t.split())

for case in CASES:
    args = ["explain", os.path.join(DATA, case[0])] + [os.path.join(DATA, a) if a.endswith(".pte") else a for a in case[1:]]
    name = "explain " + " ".join(case)
    fnd = json.loads(run("json", args))["findings"]
    rj = [json.loads(l) for l in run("jsonl", args).splitlines()]
    check(rj == fnd, name + ": jsonl lines = json findings")
    rc = list(csv.reader(io.StringIO(run("csv", args))))
    rt = [l.split("\t") for l in run("tsv", args).splitlines()]
    check(rc[0] == rt[0] == ["id", "method", "question", "answer"], name + ": csv/tsv header")
    check(len(rc) - 1 == len(rt) - 1 == len(fnd), name + ": same finding count")
    for r, (c, t, x) in enumerate(zip(rc[1:], rt[1:], fnd)):
        for k, key in enumerate(rc[0]):
            check(same(c[k], x[key], key) and same(t[k], x[key], key),
                  "%s: finding %d %s: csv %r tsv %r json %r" % (name, r, key, c[k], t[k], x[key]))
    md = run("md", args)
    tb = squash(run("table", args))
    at = 0
    for x in fnd:
        q = x["question"] + (" [%s]" % x["method"] if x["method"] is not None else "")
        check("\n## %s\n\n%s\n" % (q, x["answer"]) in md, "%s md: %s" % (name, x["id"]))
        i = tb.find(squash(q + " " + x["answer"]), at)
        check(i >= 0, "%s table: %s in order" % (name, x["id"]))
        at = max(at, i)
# diff: csv/tsv/jsonl rows = the json ops, added and removed rows (cell by cell); md rows = the
# same rows (p50 change as "+1.23%"); the table's headline and the md notes = json's headline.
DIFF_PREC = {"p50_base": 3, "p50_new": 3, "p50_delta": 3, "total_base": 3, "total_new": 3,
             "total_delta": 3, "impact_per_run": 3, "p50_pct": 2, "total_pct": 2}
DIFF_CASES = [
    ["real/add_pte_10x.etdp", "real/add_pte_100x.etdp", "--pte", "upstream/add.pte", "--fail-on-regression", "1"],
    ["ethosu-partial-delegation/mobilenet_v2_ethosu_single_1x.etdp",
     "ethosu-partial-delegation/mobilenet_v2_ethosu_N_partial_1x.etdp", "--all"],
]
for case in DIFF_CASES:
    args = ["diff"] + [os.path.join(DATA, a) if a.endswith((".pte", ".etdp")) else a for a in case]
    name = "diff " + " ".join(case)
    j = json.loads(run("json", args))
    rows = j["ops"] + j["added"] + j["removed"]
    rc = list(csv.reader(io.StringIO(run("csv", args))))
    rt = [l.split("\t") for l in run("tsv", args).splitlines()]
    rj = [json.loads(l) for l in run("jsonl", args).splitlines()]
    check(len(rc) - 1 == len(rt) - 1 == len(rj) == len(rows), name + ": same row count in every format")
    check(rc[0] == rt[0] == list(rows[0].keys()), name + ": csv/tsv header = json keys")
    check(rj == rows, name + ": jsonl rows = json rows")
    for r, (c, t, jr) in enumerate(zip(rc[1:], rt[1:], rows)):
        for k, key in enumerate(rc[0]):
            v = jr[key]
            ok = close(c[k], v, DIFF_PREC[key]) and close(t[k], v, DIFF_PREC[key]) if key in DIFF_PREC and v is not None \
                else same(c[k], v, key) and same(t[k], v, key)
            check(ok, "%s: row %d %s: csv %r tsv %r json %r" % (name, r, key, c[k], t[k], v))
    md = run("md", args)
    body = [l for l in md.splitlines() if l.startswith("| ")][2:]
    check(len(body) == len(rows), name + ": md row count")
    for r, (line, jr) in enumerate(zip(body, rows)):
        cl = [x.strip() for x in line.strip("|").split("|")]
        want = "-" if jr["p50_pct"] is None else "%+.2f%%" % jr["p50_pct"]
        check(cl[6] == want, "%s md: row %d p50 change %r vs %r" % (name, r, cl[6], want))
        check(cl[9] == jr["verdict"], "%s md: row %d verdict" % (name, r))
    tb = squash(run("table", args))
    for h in j["verdict"]["headline"]:
        check(squash(h) in tb, "%s table: headline %r" % (name, h))
        check("> " + h in md, "%s md: headline note %r" % (name, h))
    for n in j["notes"]:
        check(squash("note: " + n) in tb, "%s table: note %r" % (name, n))
print("%d checks, %d failed" % (checks, fails))
sys.exit(1 if fails else 0)
