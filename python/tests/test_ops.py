"""Profile.ops() against `etprof ops --format json`: the same rows, columns and values."""
import math
import os

import pytest

import etprof
from conftest import cli, cli_json, data

# (dump, program or None, method or None): every pairing tests/data/MANIFEST.md gives, and the
# same dumps without their program
CASES = [
    ("real/add_pte_10x.etdp", "upstream/add.pte", None),
    ("real/add_pte_10x.etdp", None, None),
    ("real/bundled_program_10x.etdp", "upstream/bundled_program.bpte", None),
    ("real/module_linear_10x.etdp", "upstream/module_linear_no_constant_segment.pte", None),
    ("real/module_linear_10x.etdp", None, None),
    ("fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp",
     "upstream/stories260k_hybrid_llama_qnn.pte", "kv_forward"),
    ("fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp", None, None),
    ("ethosu-partial-delegation/mobilenet_v2_ethosu_N_partial_1x.etdp",
     "ethosu-partial-delegation/pte/mobilenet_v2_ethosu_N.pte", None),
    ("synthetic/synth_qnn_mixed_small_3x.etdp", None, None),
    ("flatc-built/all_kinds.etdp", None, None),
]

JSON_COLUMNS = etprof.OPS_COLUMNS[:-1]  # all but samples


def cli_rows(dump, pte, method, *extra):
    args = ["ops", data(dump)]
    if pte:
        args += ["--pte", data(pte)]
    if method:
        args += ["--method", method]
    return cli_json(*args, *extra)["rows"]


def same(a, b):
    """JSON value `a` (null for NaN) against Python value `b`."""
    if a is None:
        return b is None or (isinstance(b, float) and math.isnan(b))
    if isinstance(a, (int, float)) and not isinstance(a, bool):
        return isinstance(b, (int, float)) and a == b
    return a == b


def check(rows, cols):
    assert len(rows) > 0
    for c in JSON_COLUMNS:
        assert len(cols[c]) == len(rows), c
    for i, row in enumerate(rows):
        assert set(row) == set(JSON_COLUMNS), "JSON columns changed: %s" % sorted(row)
        for c in JSON_COLUMNS:
            assert same(row[c], cols[c][i]), "row %d %s: CLI %r, Python %r" % (
                i, c, row[c], cols[c][i])


@pytest.mark.parametrize("dump,pte,method", CASES)
def test_ops_equal_cli_json(dump, pte, method):
    with etprof.open(data(dump), data(pte) if pte else None, method=method) as p:
        check(cli_rows(dump, pte, method), p.ops(as_dict=True))
        # the OPERATOR_CALL wrappers too, and another time unit
        check(cli_rows(dump, pte, method, "--all", "--time-unit", "ns"),
              p.ops(all=True, time_unit="ns", as_dict=True))


def test_ops_samples_give_the_statistics():
    """samples holds `runs` values whose sum is total and whose extremes are min/max."""
    with etprof.open(data("real/module_linear_10x.etdp"),
                     data("upstream/module_linear_no_constant_segment.pte")) as p:
        cols = p.ops(as_dict=True)
    for i, s in enumerate(cols["samples"]):
        if len(s) == 0:
            continue
        assert min(s) == cols["min"][i] and max(s) == cols["max"][i]
        assert math.isclose(sum(s), cols["total"][i], rel_tol=1e-12)


@pytest.mark.parametrize("dump,pte,method", CASES)
def test_ops_packed_samples_equal_the_lists(dump, pte, method):
    """The numpy samples (one float64 buffer, a slice per row) hold the values of the plain
    lists, row by row, with filters and another time unit too; each row's array is its own
    slice (writing to one leaves its neighbours as they were)."""
    np = pytest.importorskip("numpy")
    with etprof.open(data(dump), data(pte) if pte else None, method=method) as p:
        for kw in ({}, {"all": True, "time_unit": "ns"}, {"sort": "total", "top": 3}):
            lists = p.ops(as_dict=True, samples="list", **kw)["samples"]
            arrays = p.ops(as_dict=True, samples="numpy", **kw)["samples"]
            assert len(lists) == len(arrays)
            for a, b in zip(arrays, lists):
                assert isinstance(a, np.ndarray) and a.dtype == np.float64
                assert len(a) == len(b)
                assert all(x == y or (math.isnan(x) and math.isnan(y)) for x, y in zip(a, b))
        arrays = p.ops(as_dict=True, samples="numpy")["samples"]
        full = [i for i, a in enumerate(arrays) if len(a)]
        if len(full) >= 2:
            i, j = full[0], full[1]
            before = arrays[j].copy()
            arrays[i][:] = -1.0
            assert (arrays[j] == before).all()


def test_ops_dataframe():
    pd = pytest.importorskip("pandas")
    with etprof.open(data("real/add_pte_10x.etdp"), data("upstream/add.pte")) as p:
        df = p.ops()
    assert isinstance(df, pd.DataFrame)
    assert list(df.columns) == list(etprof.OPS_COLUMNS)
    assert str(df["instruction_id"].dtype) == "Int64"
    rows = cli_rows("real/add_pte_10x.etdp", "upstream/add.pte", None)
    assert len(df) == len(rows)
    assert list(df["name"]) == [r["name"] for r in rows]
    assert list(df["p50"]) == [r["p50"] for r in rows]
    assert all(len(s) == 10 for s in df["samples"])  # 10 runs (MANIFEST: 10 x Execute)


def test_ops_filters_and_usage_errors():
    with etprof.open(data("real/bundled_program_10x.etdp"),
                     data("upstream/bundled_program.bpte")) as p:
        cols = p.ops(kind="kernel", sort="total", as_dict=True)
        assert set(cols["kind"]) == {"kernel"}
        assert cols["total"] == sorted(cols["total"], reverse=True)
        for bad in ({"kind": "nope"}, {"sort": "nope"}, {"time_unit": "hours"}):
            with pytest.raises(etprof.UsageError):
                p.ops(**bad)


def test_summary_latency():
    """Method::execute per run, from the ops rows (MANIFEST: 10 runs of forward)."""
    with etprof.open(data("real/add_pte_10x.etdp"), data("upstream/add.pte")) as p:
        s = p.summary()
        cols = p.ops(as_dict=True)
    assert s["runs"] == 10 and s["blocks"] == 11
    (m,) = s["methods"]
    assert m["name"] == "forward" and m["unit"] == "us" and m["runs"] == 10
    i = cols["name"].index("Method::execute")
    for k in ("min", "p50", "max", "total"):
        assert m["latency"][k] == cols[k][i]


def test_repr_and_close():
    p = etprof.open(data("real/add_pte_1x.etdp"), data("upstream/add.pte"))
    r = repr(p)
    assert r.startswith("<etprof.Profile of ") and "add_pte_1x.etdp" in r and "add.pte" in r
    assert "2 blocks" in r and "5 events" in r  # MANIFEST: 2 run_data blocks, 5 events
    p.close()
    assert p.closed and "closed" in repr(p)
    with pytest.raises(ValueError):
        p.ops()


# open() options against the command's options of the same names
OPTION_CASES = [
    ("real/add_pte_10x.etdp", "upstream/add.pte", {"skip_first": 1}, ["--skip-first", "1"]),
    ("real/bundled_program_10x.etdp", "upstream/bundled_program.bpte",
     {"skip_first": 3, "tick_hz": 1e8}, ["--skip-first", "3", "--tick-hz", "1e8"]),
    ("real/add_pte_10x.etdp", None, {"block": "Default"}, ["--block", "Default"]),
    ("real/module_linear_10x.etdp", "upstream/add.pte", {"ignore_program_mismatch": True},
     ["--ignore-program-mismatch"]),
]


@pytest.mark.parametrize("dump,pte,kw,args", OPTION_CASES)
def test_open_options_equal_cli_options(dump, pte, kw, args):
    with etprof.open(data(dump), data(pte) if pte else None, **kw) as p:
        check(cli_rows(dump, pte, None, *args), p.ops(as_dict=True))
        check(cli_rows(dump, pte, None, "--all", *args), p.ops(all=True, as_dict=True))


def test_skip_first_drops_the_first_samples():
    with etprof.open(data("real/add_pte_10x.etdp"), data("upstream/add.pte")) as p:
        every = p.ops(as_dict=True, samples="list")
    with etprof.open(data("real/add_pte_10x.etdp"), data("upstream/add.pte"), skip_first=2) as p:
        kept = p.ops(as_dict=True, samples="list")
        assert p.summary()["methods"][0]["skipped"] == 2
    assert [s[2:] for s in every["samples"]] == kept["samples"]


def test_tick_hz_scales_times():
    """100 MHz ticks are 10 ns each: every time is 10 x the ns-tick reading."""
    with etprof.open(data("real/add_pte_10x.etdp")) as p:
        ns = p.ops(as_dict=True, samples="list")
    with etprof.open(data("real/add_pte_10x.etdp"), tick_hz=1e8) as p:
        t = p.ops(as_dict=True, samples="list")
    for a, b in zip(ns["samples"], t["samples"]):
        assert b == pytest.approx([10 * x for x in a], rel=1e-12)


def test_dump_as_bytes():
    raw = open(data("real/module_linear_10x.etdp"), "rb").read()
    pte = data("upstream/module_linear_no_constant_segment.pte")
    with etprof.open(data("real/module_linear_10x.etdp"), pte) as p:
        want = p.ops(as_dict=True)
    with etprof.open(raw, pte) as p:
        assert p.etdump == "<bytes>" and "'<bytes>'" in repr(p)
        assert _nan_equal(p.ops(as_dict=True), want)
    buf = bytearray(raw)
    p = etprof.open(buf, pte)  # copied: changing the buffer later cannot reach the dump
    buf[:] = b"\xff" * len(buf)
    assert _nan_equal(p.ops(as_dict=True), want)
    p.close()
    with pytest.raises(etprof.InputError) as ei:
        etprof.open(raw[:100])
    assert ei.value.file == "<bytes>" and ei.value.offset == 0 and ei.value.path == "size_prefix"


def _nan_equal(a, b):
    if a.keys() != b.keys():
        return False
    for k in a:
        for x, y in zip(a[k], b[k]):
            if k == "samples":
                x, y = list(x), list(y)
            if x != y and not (isinstance(x, float) and math.isnan(x) and math.isnan(y)):
                return False
    return True


def test_open_option_usage_errors():
    for kw, says in (({"tick_hz": 0}, "got 0"), ({"tick_hz": -5}, "got -5"),
                     ({"skip_first": -1}, "got -1")):
        with pytest.raises(etprof.UsageError) as ei:
            etprof.open(data("real/add_pte_1x.etdp"), **kw)
        assert str(ei.value).startswith(next(iter(kw)) + ": ") and says in str(ei.value)
        assert ei.value.exit_code == 2


def test_without_pandas_a_dataframe_is_a_clear_import_error(monkeypatch):
    """pandas is optional, but never silently: when it does not import, asking for a DataFrame
    raises an ImportError that says what to install or pass, and as_dict=True gives the column
    lists (the command's values)."""
    import sys

    monkeypatch.setitem(sys.modules, "pandas", None)  # `import pandas` raises ImportError
    with etprof.open(data("real/add_pte_10x.etdp"), data("upstream/add.pte")) as p:
        for call in (p.ops, p.events, p.runs, p.op_types):
            with pytest.raises(ImportError, match="python3-pandas.*as_dict=True"):
                call()
        cols = p.ops(as_dict=True)
    assert isinstance(cols, dict) and tuple(cols) == etprof.OPS_COLUMNS
    check(cli_rows("real/add_pte_10x.etdp", "upstream/add.pte", None), cols)


def test_trace_and_report_files(tmp_path):
    """Profile.trace/report write what the command writes (the same library writers): the
    trace is Trace Event JSON with one complete slice per profile event of the runs, checked
    against the command's file; the report is a whole HTML page; a failed write leaves no
    file behind."""
    import json as _json

    dump, pte = data("real/add_pte_10x.etdp"), data("upstream/add.pte")
    p = etprof.open(dump, pte)
    out = tmp_path / "t.json"
    counts = p.trace(out)
    doc = _json.loads(out.read_text())
    xs = [e for e in doc["traceEvents"] if e.get("ph") == "X"]
    assert counts["slices"] == len(xs) > 0
    rc, _, err = cli("trace", dump, "--pte", pte, "-o", str(tmp_path / "c.json"))
    assert rc == 0, err
    cdoc = _json.loads((tmp_path / "c.json").read_text())
    strip = (lambda d: [e for e in d["traceEvents"] if e.get("ph") != "M"])
    assert strip(doc) == strip(cdoc)
    rep = tmp_path / "r.html"
    p.report(rep)
    html = rep.read_text()
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")
    with pytest.raises(etprof.IOError):
        p.trace(tmp_path / "no-such-dir" / "t.json")
    assert sorted(os.listdir(tmp_path)) == ["c.json", "r.html", "t.json"]
    with pytest.raises(etprof.UsageError):
        p.report(tmp_path / "x.html", time_unit="hours")
    assert not (tmp_path / "x.html").exists()


@pytest.mark.parametrize("dump,pte", [("real/add_pte_10x.etdp", "upstream/add.pte"),
                                      ("fake-qnn-backend/stories260k_qnn_kv_forward_1x.etdp",
                                       None)])
def test_events_equal_command_csv(dump, pte):
    """Profile.events() holds the rows of `etprof events --format csv` (the same model), and the
    stream holds the same rows as the table."""
    import csv as _csv
    import io as _io

    args = ["events", data(dump)] + (["--pte", data(pte)] if pte else []) + ["--format", "csv"]
    rc, out, err = cli(*args)
    assert rc == 0, err
    want = list(_csv.DictReader(_io.StringIO(out)))
    p = etprof.open(data(dump), data(pte) if pte else None)
    got = p.events(as_dict=True)
    assert list(got) == list(etprof.EVENT_COLUMNS)
    assert len(got["index"]) == len(want) > 0
    for i, w in enumerate(want):
        for k in ("block", "index", "chain_index", "instruction_id", "delegate_debug_id_int",
                  "start_time", "end_time", "parent"):
            g = got[k][i]
            assert ("" if g is None else str(g)) == w[k], (i, k, g, w[k])
        for k in ("type", "kind", "unit", "method", "operator", "backend"):
            assert (got[k][i] or "") == w[k], (i, k)
        if w["value"]:
            assert got["value"][i] == pytest.approx(float(w["value"]), abs=5e-4)
    rows = list(p.events(stream=True))
    assert len(rows) == len(want)
    assert all(rows[i][k] == got[k][i] for i in range(len(rows)) for k in ("block", "label"))
    with pytest.raises(etprof.UsageError):
        p.events(max_events=3)


def test_diff_equals_command_json():
    """etprof.diff() gives the command's figures (one library diff): per method the latency
    comparison and verdict, the gate, and the operator rows by status."""
    a, b, pte = data("real/add_pte_10x.etdp"), data("real/add_pte_100x.etdp"), data("upstream/add.pte")
    want = cli_json("diff", a, b, "--pte", pte)
    d = etprof.diff(a, b, base_pte=pte, as_dict=True)
    assert len(d.methods) == len(want["methods"]) == 1
    m, w = d.methods[0], want["methods"][0]
    for k in ("runs_base", "runs_new", "verdict", "gate", "gate_reason", "unit", "significant"):
        assert m[k] == w[k], k
    for k in ("p50_base", "p50_new", "p50_pct", "total_base", "total_new", "p_value", "z",
              "impact_per_run", "cpu_share_base", "cpu_share_new"):
        assert m[k] == pytest.approx(w[k], rel=1e-9, abs=1e-12), k
    assert m["method"] == w["method"] == "forward"
    # the command shows the rows its default view keeps (OPERATOR_CALL wrappers are behind
    # --all): each of them is here with the same figures
    wops = [o for o in want["ops"]]
    assert len([o for o in d.ops if o["status"] == "matched"]) >= len(wops) > 0
    byname = {(o["name"], o["instruction_id"]): o for o in d.ops}
    for o in wops:
        g = byname[(o["name"], o.get("instruction_id"))]
        assert g["verdict"] == o["verdict"] and g["p50_new"] == pytest.approx(o["p50_new"])
    assert not d.regressed and d.gate["outcome"] in ("pass", "inconclusive", "improvement")
    # a dump against itself: nothing changes
    same = etprof.diff(a, a, base_pte=pte, as_dict=True)
    assert same.summary["slower"] == same.summary["faster"] == 0
    assert same.summary["added"] == same.summary["removed"] == 0
    assert all(r["p50_pct"] == 0 for r in same.ops)
    with pytest.raises(etprof.UsageError):
        etprof.diff(a, b, base_pte=pte, alpha=2)


def test_runs_equal_command_json():
    """Profile.runs()/run_methods() hold `etprof runs --format json` (one library function)."""
    dump = data("fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp")
    pte = data("upstream/stories260k_hybrid_llama_qnn.pte")
    want = cli_json("runs", dump, "--pte", pte, "--method", "kv_forward")
    p = etprof.open(dump, pte, method="kv_forward")
    got = p.runs(as_dict=True)
    assert len(got["run"]) == len(want["runs"]) == 10
    for i, w in enumerate(want["runs"]):
        for k in ("method", "run", "block", "warmup", "outlier", "unit"):
            assert got[k][i] == w[k], (i, k)
        for k in ("execute", "delegate", "cpu", "framework"):
            assert got[k][i] == pytest.approx(w[k], rel=1e-9), (i, k)
        for gb, wb in zip(got["backends"][i], w["backends"]):
            assert gb["placement"] == wb["placement"]
            assert gb["backend_time"] == pytest.approx(wb["backend_time"], rel=1e-9)
        wq = {f["name"]: f["value"] for f in w["qnn"][0]["figures"]}
        gq = got["qnn"][i][0]["figures"]
        assert set(gq) == set(wq)
        for name, v in wq.items():
            assert gq[name]["value"] == pytest.approx(v, rel=1e-9), name
    assert got["warmup"][0] is True
    (m,) = p.run_methods()
    wm = want["methods"][0]
    assert m["name"] == wm["name"] and m["trend"]["verdict"] == wm["trend"]["verdict"]
    assert m["tokens_per_second"] == pytest.approx(wm["tokens_per_second"], rel=1e-9)
    assert m["median"] == pytest.approx(wm["median"], rel=1e-9)


def test_op_types_equal_command_json():
    dump = data("fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp")
    pte = data("upstream/stories260k_hybrid_llama_qnn.pte")
    want = cli_json("ops", dump, "--pte", pte, "--method", "kv_forward", "--by", "type")["rows"]
    got = etprof.open(dump, pte, method="kv_forward").op_types(as_dict=True)
    assert len(got["type"]) == len(want) > 0
    for i, w in enumerate(want):
        for k in ("method", "domain", "placement", "type", "rows", "count", "unit"):
            assert got[k][i] == w[k], (i, k)
        for k in ("total", "avg", "per_run", "share", "cum_share"):
            assert got[k][i] == pytest.approx(w[k], rel=1e-9), (i, k)
    # totals are sums over the ops rows of each type (the HTP nodes: aten_<op>_... -> <op>)
    import re
    ops = etprof.open(dump, pte, method="kv_forward").ops(all=True, as_dict=True)
    conv = sum(t for n, k, t in zip(ops["name"], ops["kind"], ops["total"])
               if k == "htp_node" and re.match(r"aten_convolution_", n))
    (g,) = [i for i, t in enumerate(got["type"]) if t == "convolution" and got["domain"][i] == "htp"]
    assert got["total"][g] == pytest.approx(conv, rel=1e-12)


@pytest.mark.parametrize("dump,pte,method", [
    ("fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp",
     "upstream/stories260k_hybrid_llama_qnn.pte", "kv_forward"),
    ("real/add_pte_10x.etdp", "upstream/add.pte", None),
    ("real/module_linear_10x.etdp", None, None),
    ("synthetic/synth_qnn_mixed_small_3x.etdp", None, None),
])
def test_explain_facts_equal_command_json(dump, pte, method):
    """Profile.explain() findings are the command's JSON findings: same ids, methods and facts
    (one library computation, etprof_explain.h)."""
    if not os.path.exists(data(dump)):
        pytest.skip("%s not in tests/data" % dump)
    args = ["explain", data(dump)] + (["--pte", data(pte)] if pte else []) + \
        (["--method", method] if method else [])
    want = cli_json(*args)["findings"]
    p = etprof.open(data(dump), data(pte) if pte else None, method=method)
    got = p.explain()
    assert [f.id for f in got] == [w["id"] for w in want]
    for g, w in zip(got, want):
        assert g.method == w.get("method")
        assert g.question == w["question"]
        assert set(g.facts) == set(w["facts"]), (g.id, set(g.facts) ^ set(w["facts"]))
        for k, v in w["facts"].items():
            assert g.facts[k] == (pytest.approx(v, rel=1e-9) if isinstance(v, float) else v), \
                (g.id, k, g.facts[k], v)


def test_notebook_views():
    """_repr_html_ of the results: an HTML table holding the figures (escaped names)."""
    import html.parser

    p = etprof.open(data("real/add_pte_10x.etdp"), data("upstream/add.pte"))
    h = p._repr_html_()
    cells = []

    class P(html.parser.HTMLParser):
        def handle_data(self, d):
            cells.append(d)

    P().feed(h)
    assert "forward" in cells and "10" in cells
    lat = p.summary()["methods"][0]["latency"]["p50"]
    assert ("%.6g" % lat) in cells
    d = etprof.diff(data("real/add_pte_10x.etdp"), data("real/add_pte_100x.etdp"),
                    base_pte=data("upstream/add.pte"))
    assert "<table>" in d._repr_html_() and d.gate["outcome"] in d._repr_html_()
    f = p.explain()[0]
    assert f.id in f._repr_html_()
    i = etprof.Inspector(etdump_path=data("real/add_pte_10x.etdp"))
    assert "Execute" in i._repr_html_()
    p.close()
    assert "closed" in p._repr_html_()


def test_trace_gzip(tmp_path):
    import gzip

    p = etprof.open(data("real/add_pte_10x.etdp"), data("upstream/add.pte"))
    p.trace(tmp_path / "a.json")
    p.trace(tmp_path / "a.json.gz")
    assert gzip.decompress((tmp_path / "a.json.gz").read_bytes()) == \
        (tmp_path / "a.json").read_bytes()


def test_trace_perfetto(tmp_path):
    """Profile.trace(path, format="perfetto") writes the command's .pftrace, byte for byte (one
    library writer); a .pftrace name chooses it; an unknown format is a ValueError."""
    dump = data("fake-qnn-backend/stories260k_qnn_kv_forward_1x.etdp")
    pte = data("upstream/stories260k_hybrid_llama_qnn.pte")
    p = etprof.open(dump, pte)
    counts = p.trace(tmp_path / "a.bin", format="perfetto")
    p.trace(tmp_path / "b.pftrace")
    rc, _, err = cli("trace", dump, "--pte", pte, "-q", "-o", str(tmp_path / "c.pftrace"))
    assert rc == 0, err
    c = (tmp_path / "c.pftrace").read_bytes()
    assert c[:1] == b"\x0a"  # Trace.packet, length-delimited
    assert (tmp_path / "a.bin").read_bytes() == c == (tmp_path / "b.pftrace").read_bytes()
    assert counts["slices"] > 0
    with pytest.raises(ValueError):
        p.trace(tmp_path / "d.json", format="xml")
    p.close()


def test_qnn_files_equal_command_json():
    """etprof.qnn() gives `etprof qnn --format json`'s rows and summary (one library load)."""
    qhas = data("qnn-fixtures/qhas_small.json")
    want = cli_json("qnn", "--qhas", qhas)
    q = etprof.qnn(qhas=qhas, as_dict=True)
    assert q.rows_source == want["rows_source"]
    assert len(q.ops["qnn_op"]) == len(want["ops"]) > 0
    for i, w in enumerate(want["ops"]):
        for k in ("qnn_op", "op_id", "qnn_op_type", "cycles", "dominant_path_cycles", "hmx",
                  "hvx", "dma", "htp_ops", "dram_read_bytes", "vtcm_read_bytes"):
            assert q.ops[k][i] == w[k], (i, k)
        assert q.ops["share"][i] == pytest.approx(w["share"], rel=1e-12)
    for k, v in want["summary"].items():
        if k in ("dominant_path", "threads"):
            continue
        assert q.summary[k] == (pytest.approx(v) if isinstance(v, float) else v), k
    assert q.summary["threads"] == want["summary"]["threads"]
    wp, gp = want["summary"]["dominant_path"], q.summary["dominant_path"]
    assert gp["path_cycles"] == wp["path_cycles"] == 600  # by hand: Input 100 + Conv_1 300 + Output 200
    assert [t["qnn_op"] for t in gp["top_ops"]] == [t["qnn_op"] for t in wp["top_ops"]]
    with pytest.raises(etprof.UsageError):
        etprof.qnn()
    with pytest.raises(etprof.InputError):
        etprof.qnn(qhas=data("qnn-fixtures/garbage.bin"))
