#!/usr/bin/env python3
"""formats_agree: table, md, csv, tsv, jsonl and json of one run of a command carry the same
values (issue 11.2: one result object behind every format). For every command on the result
model (docs/result-model.md): summary, ops, tree, info, qnn, explain, diff, runs, tensors, compare, events.

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
                # csv/tsv prefix a cell starting with = + - @ with ' (docs/output-formats.md)
                tv = "'" + v if v[:1] in ("=", "+", "-", "@") else v
                check(c[k].lstrip("'") == v and t[k] == tv, "%s: row %d %s: %r %r vs %r" % (name, r, key, c[k], t[k], v))
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
    # the text views name an inferred backend and a device-clock unit (issue 14.2,
    # docs/backends.md); the machine formats keep "delegate" and the plain unit
    if key == "placement" and v == "delegate" and re.fullmatch(r"\w+ \(inferred\)", text or ""):
        return True
    if key == "unit" and isinstance(v, str) and text == v + " (device clock)":
        return True
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

# ---- tree and info (port-treeinfo) ----
def text_rows(text, fmt, raw=False):
    """The rows of the first table of a table or md view: (headers, [cells]); raw: the cells
    keep their leading spaces (md: its no-break spaces), as a tree's indented node names."""
    lines = text.splitlines()
    st = (lambda x: x.rstrip()) if raw else (lambda x: x.strip())
    if fmt == "md":
        t = [l for l in lines if l.startswith("| ")]
        split = lambda l: [st(x[1:] if raw else x) for x in l.strip("|").split("|")]
        return [x.strip() for x in split(t[0])], [split(l) for l in t[2:]]
    i = [k for k, l in enumerate(lines) if l and set(l) <= {"-", " "} and "-" in l][0]
    spans = [m.span() for m in re.finditer(r"-+", lines[i])]
    cut = lambda l: [st(l[a:(spans[n + 1][0] if n + 1 < len(spans) else len(l))])
                     for n, (a, _) in enumerate(spans)]
    body = []
    for l in lines[i + 1:]:
        if not l or l.startswith("note: ") or l.startswith("      "):
            break
        body.append(cut(l))
    return [x.strip() for x in cut(lines[i - 1])], body

def machine_rows(args, name):
    """csv, tsv and jsonl of one run: the same header and cells; returns the jsonl rows."""
    rc = list(csv.reader(io.StringIO(run("csv", args))))
    rt = [l.split("\t") for l in run("tsv", args).splitlines()]
    rj = [json.loads(l) for l in run("jsonl", args).splitlines()]
    check(len(rc) - 1 == len(rt) - 1 == len(rj), name + ": same row count csv/tsv/jsonl")
    check(rc[0] == rt[0] and all(list(r.keys()) == rc[0] for r in rj), name + ": same keys")
    # tsv shows text as the table does: control characters (line breaks too) as spaces
    tsv = lambda v: re.sub(r"[\x00-\x1f\x7f]", " ", v) if isinstance(v, str) else v
    for r, (c, t, jr) in enumerate(zip(rc[1:], rt[1:], rj)):
        for k, key in enumerate(rc[0]):
            check(same(c[k], jr[key], key) and same(t[k], tsv(jr[key]), key),
                  "%s: row %d %s: csv %r tsv %r jsonl %r" % (name, r, key, c[k], t[k], jr[key]))
    return rj

TREE_HDR = {"method": "method", "depth": "depth", "instr": "instruction_id", "kind": "kind",
            "placement": "placement", "count": "count", "inclusive": "inclusive",
            "exclusive": "exclusive", "unit": "unit", "%parent": "share_of_parent",
            "%method": "share_of_method", "role": "role", "wall est": "wall_estimate",
            "wall est unit": "wall_estimate_unit"}
OPS_PREC.update({"inclusive": 3, "exclusive": 3, "share_of_parent": 2, "share_of_method": 2,
                 "wall_estimate": 3})
TREE_CASES = CASES + [
    ["fake-qnn-backend/stories260k_qnn_kv_forward_1x.etdp", "--pte",
     "upstream/stories260k_hybrid_llama_qnn.pte", "--htp-clock-ghz", "1.5", "--time-unit", "ms",
     "--etrecord", "upstream/etrecord.bin"],
    ["real/add_pte_100x.etdp", "--stat", "p90", "--time-unit", "ns"],
]

def flatten(node, method, depth, out):
    """The JSON tree in display order, as the flat rows of csv/tsv/jsonl."""
    out.append(dict(node, method=method, depth=depth))
    for ch in node["children"]:
        flatten(ch, method, depth + 1, out)

for case in TREE_CASES:
    args = ["tree", os.path.join(DATA, case[0]), "--top", "0"] + \
        [os.path.join(DATA, a) if a.endswith((".pte", ".bin")) else a for a in case[1:]]
    name = "tree " + " ".join(case)
    j = json.loads(run("json", args))
    flat = []
    for m in j["methods"]:
        for root in m["roots"]:
            flatten(root, m["name"], 0, flat)
    rj = machine_rows(args, name)
    check(len(rj) == len(flat), "%s: %d csv rows, %d JSON nodes" % (name, len(rj), len(flat)))
    for r, (row, node) in enumerate(zip(rj, flat)):
        for key in row:
            check(row[key] == node.get(key), "%s: row %d %s: jsonl %r vs json %r" % (name, r, key, row[key], node.get(key)))
    for fmt in ("md", "table"):
        hdr, body = text_rows(run(fmt, args), fmt, raw=True)
        check(len(body) == len(flat), "%s %s: %d rows, %d JSON nodes" % (name, fmt, len(body), len(flat)))
        for r, (cells, node) in enumerate(zip(body, flat)):
            for h, x in zip(hdr, cells):
                key = TREE_HDR.get(h)
                if key and key != "method":
                    check(same(x.strip(), node.get(key), key), "%s %s: row %d %s: %r vs %r" % (name, fmt, r, key, x, node.get(key)))
            # the node: indented 2 per level (md: no-break spaces); a call shows what it calls
            label = cells[hdr.index("node")].replace("\u00a0", " ")
            check(label.lstrip(" ").split(" [")[0] == node["name"] and
                  len(label) - len(label.lstrip(" ")) == 2 * node["depth"],
                  "%s %s: row %d node %r (depth %d) vs %r" % (name, fmt, r, label, node["depth"], node["name"]))

# info on a program: one row per method
for pte in ("upstream/add.pte", "upstream/stories260k_hybrid_llama_qnn.pte", "upstream/bundled_program.bpte",
            "ethosu-partial-delegation/pte/mobilenet_v2_ethosu_N.pte"):
    args = ["info", os.path.join(DATA, pte)]
    name = "info " + pte
    j = json.loads(run("json", args))
    want = []
    for m in j["methods"]:
        ids = []
        for d in m["delegates"]:
            if (d["id"] or "?") not in ids:
                ids.append(d["id"] or "?")
        ins = m["instructions"]
        want.append({"method": m["name"], "instructions": ins["total"], "kernel": ins["kernel"],
                     "delegate": ins["delegate"], "move": ins["move"], "jump_false": ins["jump_false"],
                     "free": ins["free"], "operators": len(m["operators"]),
                     "backends": ",".join(ids) or None})
    rj = machine_rows(args, name)
    check(rj == want, name + ": csv rows = the JSON methods")
    for fmt in ("md", "table"):
        hdr, body = text_rows(run(fmt, args), fmt)
        check([[same(x, w[h], h) for h, x in zip(hdr, cells)] == [True] * len(hdr)
               for cells, w in zip(body, want)] == [True] * len(want) and len(body) == len(want),
              "%s %s: rows = the JSON methods" % (name, fmt))

# info on an ETDump: one row per block (csv); table and md collapse equal blocks into ranges
for case in CASES:
    args = ["info", os.path.join(DATA, case[0])] + [os.path.join(DATA, a) if a.endswith(".pte") else a for a in case[1:]]
    name = "info " + " ".join(case)
    j = json.loads(run("json", args))
    want = []
    for b in j["blocks"]:
        meth = b["method"] or ""
        if b["method_candidates"] > 1:
            meth += "(ambiguous: " + ", ".join(b["method_candidate_names"]) + ")"
        want.append({"block": str(b["index"]), "name": b["name"], "runs": 1, "events": b["events"],
                     "profile": b["profile"], "allocation": b["allocation"], "debug": b["debug"],
                     "allocators": len(b["allocators"]), "method": meth or None})
    rj = machine_rows(args, name)
    check(rj == want, name + ": csv rows = the JSON blocks")
    check(sum(b["events"] for b in j["blocks"]) == j["events"]["total"], name + ": block events add up")
    for fmt in ("md", "table"):
        text = run(fmt, args)
        hdr, body = text_rows(text, fmt)
        seen = 0
        for cells in body:
            c = dict(zip(hdr, cells))
            lo, _, hi = c["block"].partition("-")
            rng = range(int(lo), int(hi or lo) + 1)
            check(int(c["runs"]) == len(rng) and all(
                all(same(c[k], want[b][k], k) for k in hdr if k not in ("block", "runs"))
                for b in rng), "%s %s: row %r = JSON blocks %s" % (name, fmt, cells, list(rng)))
            seen += len(rng)
        check(seen == len(want), "%s %s: every block shown" % (name, fmt))
        if fmt == "table":
            ev = re.search(r"^events +(\d+) \(profile (\d+), allocation (\d+), debug (\d+)", text, re.M)
            e = j["events"]
            check(ev is not None and [int(x) for x in ev.groups()] ==
                  [e["total"], e["profile"], e["allocation"], e["debug"]], name + ": events line")
            kl = re.search(r"^kinds +(.*)$", text, re.M).group(1).split()
            check(dict(zip(kl[::2], map(int, kl[1::2]))) == {k: v for k, v in j["kinds"].items() if v},
                  name + ": kinds line")

# info on an ETRecord: one row per entry
args = ["info", os.path.join(DATA, "upstream", "etrecord.bin")]
j = json.loads(run("json", args))
progs = {p["entry"]: p for p in j["programs"]}
want = [{"entry": e["name"], "kind": e["kind"], "method": progs.get(e["name"], {}).get("method"),
         "nodes": progs.get(e["name"], {}).get("nodes"), "size_bytes": e["size_bytes"],
         "compression": e["compression"], "read": e["read"]} for e in j["entries"]]
rj = machine_rows(args, "info etrecord.bin")
check(rj == want, "info etrecord.bin: csv rows = the JSON entries")
for fmt in ("md", "table"):
    hdr, body = text_rows(run(fmt, args), fmt)
    key = {"bytes": "size_bytes"}
    check(len(body) == len(want) and all(same(x, w[key.get(h, h)], h) for cells, w in zip(body, want)
                                         for h, x in zip(hdr, cells)),
          "info etrecord.bin %s: rows = the JSON entries" % fmt)

# qnn: one document per run. The op rows: csv/tsv/jsonl = json "ops" (cell by cell), md and table
# op table = json "ops" through the header -> key map; the summary table, the join paragraph and
# the notes of table/md = the json summary, join and notes. Viewer mode: csv/tsv/jsonl rows =
# the json executes' events and nodes; md and table rows = the jsonl rows.
def text_table(text, fmt, first):
    """(headers, rows of cells) of the table/md table whose first header is `first`"""
    lines = text.splitlines()
    if fmt == "md":
        start = [i for i, l in enumerate(lines) if l.startswith("| ") and
                 l.strip("|").split("|")[0].strip() == first]
        if not start:
            return None, []
        cells = lambda l: [x.strip() for x in l.strip()[1:-1].split(" | ")]
        body = []
        for l in lines[start[0] + 2:]:
            if not l.startswith("| "):
                break
            body.append(cells(l))
        return cells(lines[start[0]]), body
    start = [i for i, l in enumerate(lines) if l.startswith(first + "  ") and i + 1 < len(lines)
             and lines[i + 1].startswith("-")]
    if not start:
        return None, []
    dash = lines[start[0] + 1]
    spans = [(m.start(), m.end()) for m in re.finditer(r"-+", dash)]
    cut = lambda l: [l[a:(spans[k + 1][0] if k + 1 < len(spans) else len(l))].strip()
                     for k, (a, _) in enumerate(spans)]
    body = []
    for l in lines[start[0] + 2:]:
        if not l.strip() or l.startswith("note: "):
            break
        body.append(cut(l))
    return cut(lines[start[0]]), body

QNN_HDR = {"QNN op": "qnn_op", "OpId": "op_id", "type": "qnn_op_type", "cycles": "cycles",
           "crit.path cycles": "dominant_path_cycles", "share %": "share", "HMX": "hmx",
           "HVX": "hvx", "DMA": "dma", "HTP ops": "htp_ops", "DRAM read B": "dram_read_bytes",
           "DRAM write B": "dram_write_bytes", "VTCM read B": "vtcm_read_bytes",
           "VTCM write B": "vtcm_write_bytes", "ETDump cycles p50": "etdump_cycles"}
QNN_PREC = {"share": 2, "value": 3, "wall_est_us": 3}

def qsame(text, v, key):
    if v is None:
        return text in ("", "-")
    if isinstance(v, bool):
        return text == ("true" if v else "false")
    if isinstance(v, (int, float)):
        return close(text, v, QNN_PREC.get(key, 0))
    return text.lstrip("'") == v

def qnn_flat(name, args, rows):
    """csv/tsv/jsonl rows = `rows` (the json ones), cell by cell"""
    rc = list(csv.reader(io.StringIO(run("csv", args))))
    rt = [l.split("\t") for l in run("tsv", args).splitlines()]
    rj = [json.loads(l) for l in run("jsonl", args).splitlines()]
    check(len(rc) - 1 == len(rt) - 1 == len(rj) == len(rows), name + ": same row count csv/tsv/jsonl/json")
    check(rc[0] == rt[0] and (not rows or rc[0] == list(rows[0].keys())), name + ": csv/tsv header = json keys")
    check(rj == rows, name + ": jsonl rows = json rows")
    # tsv shows text as the table does: control characters (line breaks too) as spaces (the
    # viewer's stats rows carry event names as written, a quoted CSV line break included)
    tsv = lambda v: re.sub(r"[\x00-\x1f\x7f]", " ", v) if isinstance(v, str) else v
    for r, (c, t, jr) in enumerate(zip(rc[1:], rt[1:], rows)):
        for k, key in enumerate(rc[0]):
            check(qsame(c[k], jr[key], key) and qsame(t[k], tsv(jr[key]), key),
                  "%s: row %d %s: csv %r tsv %r json %r" % (name, r, key, c[k], t[k], jr[key]))

QNN_CASES = [
    ["--qhas", "qnn-fixtures/qhas_small.json"],
    ["--qhas", "qnn-fixtures/qhas_small.json", "--optrace", "qnn-fixtures/optrace_small.json",
     "--runtrace", "qnn-fixtures/runtrace_small.json", "--heap", "qnn-fixtures/heap_ok.txt"],
    ["--optrace", "qnn-fixtures/optrace_cp.json"],
    ["fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp", "--pte",
     "upstream/stories260k_hybrid_llama_qnn.pte", "--qhas", "qnn-fixtures/stories260k_kv_qhas.json"],
    ["real/add_pte_1x.etdp", "--qhas", "qnn-fixtures/qhas_small.json", "--sort", "qnn_op", "--top", "3"],
]
SUM_ITEMS = {"NPU utilization": ("utilization_percent", 3), "NPU idle": ("idle_percent", 3),
             "timeline": ("timeline_cycles", 0), "HTP clock": ("clock_ghz", 3),
             "peak VTCM": ("peak_vtcm_bytes", 0), "DRAM read": ("dram_read_bytes", 0),
             "VTCM write": ("vtcm_write_bytes", 0), "HMX busy": ("hmx_busy_cycles", 0),
             "HMX compute": ("hmx_op_cycles", 0), "HMX compute share": ("hmx_op_share", 3),
             "HVX busy share": ("hvx_busy_share", 3), "DSP heap delta": ("heap_delta_bytes", 0),
             "QNN ops": ("qnn_ops", 0), "QNN ops using HMX": ("ops_using_hmx", 0),
             "QNN ops using HVX": ("ops_using_hvx", 0), "QNN ops using DMA": ("ops_using_dma", 0)}

for case in QNN_CASES:
    args = ["qnn"] + [os.path.join(DATA, a) if "/" in a else a for a in case]
    name = "qnn " + " ".join(case)
    j = json.loads(run("json", args))
    ops = j["ops"]
    qnn_flat(name, args, ops)
    for fmt in ("md", "table"):
        text = run(fmt, args)
        hdr, body = text_table(text, fmt, "QNN op")
        check(hdr is not None and all(h in QNN_HDR for h in hdr), "%s %s: op table headers %r" % (name, fmt, hdr))
        check(len(body) == len(ops), "%s %s: op row count" % (name, fmt))
        for r, (cl, jr) in enumerate(zip(body, ops)):
            for h, x in zip(hdr or [], cl):
                key = QNN_HDR.get(h)
                if key and key != "qnn_op":
                    check(qsame(x, jr[key], key), "%s %s: op row %d %s: %r vs %r" % (name, fmt, r, key, x, jr[key]))
            check(cl[0] == jr["qnn_op"], "%s %s: op row %d name" % (name, fmt, r))
        # the summary table against the json summary
        shdr, sbody = text_table(text, fmt, "summary")
        items = {c[0]: c for c in sbody}
        summ = j["summary"]
        for item, (key, prec) in SUM_ITEMS.items():
            check(item in items and close(items[item][1], summ[key], prec) if summ[key] is not None
                  else item in items and items[item][1] == "-", "%s %s: summary %s" % (name, fmt, item))
        dp = summ["dominant_path"]
        if dp:
            check("critical path" in items and close(items["critical path"][1], dp["path_cycles"], 0),
                  "%s %s: critical path" % (name, fmt))
            for op in dp["top_ops"]:
                it = items.get("  critical path: " + op["qnn_op"]) or items.get("critical path: " + op["qnn_op"])
                check(it is not None and close(it[1], op["dp_cycles"], 0), "%s %s: critical path op %s" % (name, fmt, op["qnn_op"]))
        else:
            check("critical path" not in items, "%s %s: no critical path" % (name, fmt))
        # the join paragraph against the json join
        jn = j.get("join")
        m = re.search(r"(\d+) of (\d+) ETDump HTP node\(s\) matched a QNN op \((\d+) by OpId and name, "
                      r"(\d+) by\s+name only\); (\d+) ETDump\s+node\(s\) have no QNN op; (\d+) QNN op\(s\) "
                      r"have no ETDump\s+node; (\d+) OpId conflict\(s\)\. Cycles: (\d+) equal, (\d+) different "
                      r"\(largest\s+difference (\d+) cycles\)", re.sub(r"\s+", " ", text))
        check((m is None) == (jn is None), "%s %s: join paragraph iff json join" % (name, fmt))
        if m and jn:
            ca = jn["cycle_agreement"]
            want = [jn["matched"], jn["etdump_nodes"], jn["matched_by_op_id"], jn["matched_by_name_only"],
                    len(jn["etdump_only"]), len(jn["qnn_only"]), len(jn["conflicts"]), ca["equal"],
                    ca["different"], ca["max_abs_diff_cycles"]]
            check([int(x) for x in m.groups()] == want, "%s %s: join figures %r vs %r" % (name, fmt, m.groups(), want))
            check(ca["compared"] == ca["equal"] + ca["different"] == jn["matched"], name + ": join compared")
        # every json note is a note of the text views
        flat_text = re.sub(r"\s+", " ", text.replace("\n> ", " ").replace("\nnote: ", " "))
        for n in j["notes"]:
            check(n in flat_text, "%s %s: note %r" % (name, fmt, n[:60]))

VIEWER_CASES = [["--profile-log", "qnn-fixtures/viewer_small.txt"],
                ["--profile-csv", "qnn-fixtures/viewer_small.csv"],
                ["--profile-log", "qnn-fixtures/viewer_213.txt"]]
for case in VIEWER_CASES:
    args = ["qnn", case[0], os.path.join(DATA, case[1])]
    name = "qnn " + " ".join(case)
    j = json.loads(run("json", args))
    rows = [json.loads(l) for l in run("jsonl", args).splitlines()]
    qnn_flat(name, args, rows)
    # jsonl rows = the json executes: top-level events and nodes, in the order of the file
    want = []
    for ex in j["executes"]:
        tops = {e["name"]: e for e in ex["events"]}
        nodes = {n["name"]: n for n in ex["nodes"]}
        want.append((ex["index"], len(tops) + len(nodes)))
        for r in [r for r in rows if r["execute"] == ex["index"]]:
            if r["level"] == "top":
                e = tops.get(r["name"])
                check(e is not None and r["unit"] == e["unit"] and
                      (r["value"] == e["value"] or close(str(r["value"]), e["value"], 3)),
                      "%s: execute %d event %s" % (name, ex["index"], r["name"]))
            else:
                n = nodes.get(r["name"])
                check(n is not None and r["value"] == n["cycles"] and r["op_id"] == n["op_id"]
                      and r["share"] == n["share"] and r["wall_est_us"] == n["wall_est_us"],
                      "%s: execute %d node %s" % (name, ex["index"], r["name"]))
    check([(i, len([r for r in rows if r["execute"] == i])) for i, _ in want] == want,
          name + ": rows per execute = json events + nodes")
    vh = {"execute": "execute", "level": "level", "event": "name", "OpId": "op_id", "value": "value",
          "unit": "unit", "% of parent": "share", "est. wall us": "wall_est_us", "note": "note"}
    for fmt in ("md", "table"):
        hdr, body = text_table(run(fmt, args), fmt, "execute")
        check(hdr is not None and all(h in vh for h in hdr), "%s %s: headers %r" % (name, fmt, hdr))
        check(len(body) == len(rows), "%s %s: row count" % (name, fmt))
        for r, (cl, jr) in enumerate(zip(body, rows)):
            for h, x in zip(hdr or [], cl):
                key = vh[h]
                if key not in ("name", "note"):
                    check(qsame(x, jr[key], key), "%s %s: row %d %s: %r vs %r" % (name, fmt, r, key, x, jr[key]))
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
