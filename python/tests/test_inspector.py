"""etprof.Inspector against two independent sources:

* the Python Inspector's own table of a real XNNPACK dump (../shared/corpus/external: its CSV,
  written by the Inspector in another repository); skipped when ../shared is absent;
* the Inspector's documented grouping (../shared/docs/etdump-format.md section 3: instruction
  keys, signatures, last-sample-wins, runs merged by name + signature sequence) re-implemented
  here over flatc's JSON of corpus dumps (schema/etdump.fbs): the rows, their order, names,
  blocks and per-run values must be the same.
"""
import csv
import io
import math
import os

import pytest

import etprof
from conftest import ROOT, data
from test_samples import flatc_json

SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared", "corpus", "external"))
XNN = os.path.join(SHARED, "xnnpack_mobilenet_v2_tutorial.etdp")
XNN_CSV = os.path.join(SHARED, "xnnpack_mobilenet_v2_tutorial.inspector.csv")


def _pd():
    try:
        import pandas  # noqa: PLC0415
    except ImportError:
        return None
    return pandas


def _need_xnn():
    if not (os.path.exists(XNN) and os.path.exists(XNN_CSV)):
        pytest.skip("../shared/corpus/external is absent (the external XNNPACK dump and its "
                    "Inspector CSV are read from ../shared only)")


def test_external_xnnpack_equals_inspector_csv():
    _need_xnn()
    with open(XNN_CSV, newline="") as f:
        want = list(csv.DictReader(f))
    t = etprof.Inspector(etdump_path=XNN)._columns(True)
    assert len(t["event_name"]) == len(want) == 73
    for i, w in enumerate(want):
        assert t["event_block_name"][i] == w["event_block_name"], i
        assert t["event_name"][i] == w["event_name"], i
        assert t["is_delegated_op"][i] == (w["is_delegated_op"] == "True"), i
        for k in ("p10", "p50", "p90", "avg", "min", "max"):
            got, exp = t[k + " (ms)"][i], float(w[k + " (ms)"])
            assert math.isclose(got, exp, rel_tol=1e-9), (i, k, got, exp)
        did = t["delegate_debug_identifier"][i]
        assert ("" if did is None else str(did)) == w["delegate_debug_identifier"], i
        assert str(t["start_time"][i]) == w["start_time"], i
        assert t["unit"][i] == "ms"


def test_external_xnnpack_dataframe_and_printing(tmp_path):
    _need_xnn()
    pd = _pd()
    if pd is None:
        pytest.skip("pandas is not installed (python3-pandas)")
    ins = etprof.Inspector(etdump_path=XNN)
    df = ins.to_dataframe()
    assert list(df.columns) == ["event_block_name", "event_name", "raw", "p10 (ms)", "p50 (ms)",
                                "p90 (ms)", "avg (ms)", "min (ms)", "max (ms)", "op_types",
                                "delegate_debug_identifier", "stack_traces", "module_hierarchy",
                                "is_delegated_op", "delegate_backend_name", "debug_data",
                                "start_time", "unit"]
    df2 = ins.to_dataframe(include_units=False)
    assert "p50" in df2.columns and "p50 (ms)" not in df2.columns
    # printing and the TSV leave out OPERATOR_CALL rows and the hidden columns
    out = tmp_path / "t.tsv"
    ins.save_data_to_tsv(str(out))
    rows = list(csv.reader(io.StringIO(out.read_text()), delimiter="\t"))
    assert rows[0][1:] == ["event_block_name", "event_name", "p10 (ms)", "p50 (ms)", "p90 (ms)",
                           "avg (ms)", "min (ms)", "max (ms)", "op_types", "is_delegated_op",
                           "delegate_backend_name", "start_time", "unit"]
    with open(XNN_CSV, newline="") as f:
        want = [r for r in csv.DictReader(f) if "OPERATOR_CALL" not in r["event_name"]]
    assert [r[2] for r in rows[1:]] == [w["event_name"] for w in want]
    buf = io.StringIO()
    ins.print_data_tabular(file=buf)
    assert "OPERATOR_CALL" not in buf.getvalue() and "Method::execute" in buf.getvalue()
    assert len(ins.event_blocks) == 2
    assert ins.event_blocks[1].events[1].perf_data.p50 == pytest.approx(0.268, rel=1e-9)


# -- an independent implementation of the Inspector's documented grouping -----------------------

def _norm(v, none=-1):
    return None if v is None or v == none else v


def inspector_rows(doc):
    """[(block name, event name, is_delegated, [per-run ns durations] or None)] in the
    Inspector's order, from flatc's JSON."""
    groups = []  # [(run signature, [signature], [[samples] per signature])]
    for run in doc["run_data"]:
        events = run.get("events")
        if events is None:
            continue
        keys = {}
        for e in events:
            p, d = e.get("profile_event"), e.get("debug_event")
            if p is None and d is None:
                continue
            src = p if p is not None else d
            key = (src.get("instruction_id", -1), src.get("chain_index", 0),
                   src.get("delegate_debug_id_int", -1), src.get("delegate_debug_id_str"))
            ent = keys.setdefault(key, {"profile": [], "debug": []})
            if p is not None:
                ent["profile"].append(p)
            elif not (d.get("debug_entry") or {}).get("output", {}).get("bool_val", False):
                ent["debug"].append(d)
        sigs = {}
        for ent in keys.values():
            dbg = None
            if ent["debug"]:
                d = ent["debug"][0]
                dbg = (d.get("name") or "", _norm(d.get("instruction_id")),
                       _norm(d.get("delegate_debug_id_int")), d.get("delegate_debug_id_str") or None)
            if not ent["profile"]:
                if dbg is None:
                    continue
                sigs.setdefault(("debug", dbg), None)
                continue
            for p in ent["profile"]:
                s = (p.get("name") or "", _norm(p.get("instruction_id")),
                     _norm(p.get("delegate_debug_id_int")), p.get("delegate_debug_id_str") or None)
                sigs[(s, dbg)] = p["end_time"] - p["start_time"]  # the last one wins
        rsig = (run.get("name"), tuple(sigs), run.get("bundled_input_index", -1))
        for g in groups:
            if g[0] == rsig:
                break
        else:
            g = (rsig, list(sigs), [[] for _ in sigs])
            groups.append(g)
        for k, v in enumerate(sigs.values()):
            g[2][k].append(v)
    rows = []
    for rsig, sig_list, samples in groups:
        for s, vals in zip(sig_list, samples):
            if s[0] == "debug":
                d = s[1]
                ident = d[2] if d[2] is not None else d[3]
                rows.append((rsig[0], str(ident) if ident is not None else d[0],
                             ident is not None, None))
                continue
            p = s[0]
            ident = p[2] if p[2] is not None else p[3]
            rows.append((rsig[0], str(ident) if ident is not None else p[0], ident is not None,
                         vals))
    return rows


QTIMER = ("Time for initial VTCM acquire (us)",
          "Time for HVX + HMX power on and acquire (us)")

DUMPS = ["real/add_pte_10x.etdp", "real/module_linear_10x.etdp",
         "real/module_linear_intermediate_1x.etdp", "real/bundled_program_10x.etdp",
         "fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp",
         "upstream/etdump.etdp"]


@pytest.mark.parametrize("dump", DUMPS)
def test_grouping_equals_documented_inspector(flatc, tmp_path, dump):
    path = data(dump)
    if not os.path.exists(path):
        pytest.skip("%s is not in tests/data" % dump)
    want = inspector_rows(flatc_json(flatc, path, tmp_path))
    ins = etprof.Inspector(etdump_path=path, target_time_scale="ns")
    c = ins._cols
    got = list(zip(c["event_block_name"], c["event_name"], c["is_delegated_op"], c["raw"],
                   c["unit"]))
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert g[:3] == w[:3], (i, g[:3], w[:3])
        if w[3] is None:
            assert g[3] is None, i
            continue
        assert len(g[3]) == len(w[3]), i
        if g[1].endswith("(us)"):
            # QNN's "(us)" rows (qnn-profiling.md): durations in us, shown in ns here; the two
            # QTimer rows are 19.2 MHz ticks despite their label
            f = 1e3 / 19.2 if g[1] in QTIMER else 1e3
            assert g[4] == "ns", i
            assert g[3] == pytest.approx([v * f for v in w[3]], rel=1e-12), (i, g[1])
        else:  # host time in the file's ticks (ns), or a delegate value in its own unit
            assert g[3] == [float(v) for v in w[3]], (i, g[1], g[4])


def test_qnn_rows_keep_their_units():
    """QNN cycles rows are not divided like ns: they get their own column."""
    path = data("fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp")
    ins = etprof.Inspector(etdump_path=path)
    cols = ins._columns(True)
    units = set(u for u in cols["unit"] if u is not None)
    assert "cycles" in units and "ms" in units
    for i, u in enumerate(cols["unit"]):
        if u == "cycles":
            assert math.isnan(cols["p50 (ms)"][i]) and cols["p50 (cycles)"][i] >= 0
        elif u == "ms":
            assert "p50 (cycles)" not in cols or math.isnan(cols["p50 (cycles)"][i])


def test_inspector_arguments():
    path = data("real/add_pte_1x.etdp")
    with pytest.raises(ValueError):
        etprof.Inspector()
    with pytest.raises(ValueError):
        etprof.Inspector(etdump_path=path, etdump_data=b"x")
    with pytest.raises(RuntimeError):
        etprof.Inspector(etdump_path=path, source_time_scale="cycles")
    with pytest.raises(etprof.UsageError):
        etprof.Inspector(etdump_path=path, target_time_scale="hours")
    with pytest.raises(etprof.UsageError):  # not callable
        etprof.Inspector(etdump_path=path, delegate_time_scale_converter=1.0)
    with pytest.raises(etprof.UsageError):
        etprof.Inspector(etdump_path=path, delegate_metadata_parser="json")
    with pytest.raises(etprof.IOError):  # the debug buffer is opened now
        etprof.Inspector(etdump_path=path, debug_buffer_path=os.path.join(str(ROOT), "nope.bin"))
    with pytest.raises(etprof.UsageError):
        etprof.Inspector(etdump_path=path).find_total_for_module("linear")
    # us ticks: values are ticks / 1e3 ms... i.e. 1000x the ns reading
    a = etprof.Inspector(etdump_path=path)._cols
    b = etprof.Inspector(etdump_path=path, source_time_scale="us")._cols
    for x, y in zip(a["p50"], b["p50"]):
        if x is not None:
            assert y == pytest.approx(x * 1000, rel=1e-12)
    # cycles on both sides: host values are ticks of unknown rate, unconverted
    cyc = etprof.Inspector(etdump_path=path, source_time_scale="cycles",
                           target_time_scale="cycles")._cols
    assert set(u for u in cyc["unit"] if u) == {"ticks"}


def test_inspector_errors_are_located(tmp_path):
    bad = tmp_path / "bad.etdp"
    raw = open(data("real/add_pte_1x.etdp"), "rb").read()
    bad.write_bytes(raw[:len(raw) // 2])
    with pytest.raises(etprof.InputError) as e:
        etprof.Inspector(etdump_path=str(bad))
    assert e.value.file == str(bad) and e.value.reason


def test_inspector_bytes_input():
    raw = open(data("real/add_pte_10x.etdp"), "rb").read()
    a = etprof.Inspector(etdump_data=raw)._cols
    b = etprof.Inspector(etdump_path=data("real/add_pte_10x.etdp"))._cols
    assert a["event_name"] == b["event_name"] and a["raw"] == b["raw"]


def test_inspector_etrecord_columns(tmp_path):
    """etrecord=: op_types, stack_traces and module_hierarchy of the instruction rows come from
    the record (a record made here for add.pte: instruction 0 -> debug handle 1 -> the node
    aten_add_tensor), framework rows get none."""
    import json as _json
    import zipfile

    trace = '  File "/m/model.py", line 7, in forward\n    return x + y\n'
    node = {"target": "executorch.exir.dialects.edge.ops.aten.add.Tensor", "inputs": [],
            "outputs": [{"as_none": None, "as_tensor": {"name": "aten_add_tensor"}}],
            "metadata": {"debug_handle": "1", "stack_trace": trace,
                         "nn_module_stack": "L__self__,,__main__.Net"}}
    prog = {"graph_module": {"graph": {"inputs": [], "outputs": [], "nodes": [node],
                                       "tensor_values": {}}},
            "schema_version": {"major": 3, "minor": 0}}
    rec = tmp_path / "add.etrecord"
    with zipfile.ZipFile(rec, "w") as z:
        z.writestr("ETRECORD_V0", b"")
        z.writestr("edge_dialect_exported_program/forward", _json.dumps(prog))
        z.writestr("debug_handle_map", _json.dumps({"forward": {"0": 1}}))
        z.writestr("delegate_map", "{}")
    ins = etprof.Inspector(etdump_path=data("real/add_pte_10x.etdp"), etrecord=str(rec),
                           pte=data("upstream/add.pte"))
    c = ins._columns(True)
    for i, name in enumerate(c["event_name"]):
        if name in ("native_call_add.out", "OPERATOR_CALL"):
            assert c["op_types"][i] == ["aten.add.Tensor"], (name, c["op_types"][i])
            assert c["stack_traces"][i] == {"aten_add_tensor": trace}
            assert c["module_hierarchy"][i] == {"aten_add_tensor": {"L__self__": ("", "__main__.Net")}}
        elif name.startswith("Method::") or name == "Program::load_method":
            assert c["op_types"][i] == [] and c["stack_traces"][i] == {}
    bad = tmp_path / "bad.etrecord"
    bad.write_bytes(b"not a zip")
    with pytest.raises(etprof.InputError):
        etprof.Inspector(etdump_path=data("real/add_pte_10x.etdp"), etrecord=str(bad))


def _zero_start_dump(flatc, tmp_path):
    """The run grouping case of ExecuTorch's Inspector test (event_blocks_test.py): signature_a
    run twice, its one delegate event (id 100, instruction 1) at (0, 1) then (2, 4); signature_b
    with the same event at (5, 6) and a second one (id 100, instruction 2) at (7, 8)."""
    import json
    import subprocess

    from conftest import SCHEMA, child_env

    def ev(instr, start, end):
        return {"profile_event": {"name": "profile_%d" % instr, "chain_index": 0,
                                  "instruction_id": instr, "delegate_debug_id_int": 100,
                                  "delegate_debug_id_str": "", "start_time": start,
                                  "end_time": end}}

    def run(name, *events):
        return {"name": name, "bundled_input_index": -1, "allocators": [], "events": list(events)}

    doc = {"version": 0, "run_data": [run("signature_a", ev(1, 0, 1)),
                                      run("signature_a", ev(1, 2, 4)),
                                      run("signature_b", ev(1, 5, 6), ev(2, 7, 8))]}
    js = tmp_path / "zero_start.json"
    js.write_text(json.dumps(doc))
    subprocess.run([flatc, "-b", "--size-prefixed", "-o", str(tmp_path),
                    os.path.join(SCHEMA, "etdump.fbs"), str(js)], check=True, env=child_env())
    return str(tmp_path / "zero_start.etdp")


def test_zero_start_first_run_keeps_every_sample(flatc, tmp_path):
    """A first run whose event starts at 0 (read alone, a QNN-style raw value) and a later run of
    it with real timestamps: both are one clock, as the Inspector takes every profile event
    (end - start, in the dump's ticks read as ns, shown in ms). By hand from its rule:
    signature_a: (1 - 0) = 1 ns and (4 - 2) = 2 ns -> raw [1e-6, 2e-6] ms, p50 (numpy's linear
    interpolation of two values: their mean) 1.5e-6 ms; signature_b: (6 - 5) = (8 - 7) = 1 ns ->
    [1e-6] each. Before the library's fix the first row was raw [1.0, nan] (its unit raw, the
    2 ns sample dropped)."""
    ins = etprof.Inspector(etdump_path=_zero_start_dump(flatc, tmp_path))
    assert [(b.name, len(b.events)) for b in ins.event_blocks] == [("signature_a", 1),
                                                                     ("signature_b", 2)]
    a = [e for b in ins.event_blocks if b.name == "signature_a" for e in b.events]
    assert len(a) == 1 and a[0].name == "100"
    assert a[0].perf_data.raw == pytest.approx([1e-6, 2e-6], rel=1e-12)
    assert a[0].perf_data.p50 == pytest.approx(1.5e-6, rel=1e-12)
    for b in ins.event_blocks:
        if b.name == "signature_b":
            assert [e.perf_data.raw for e in b.events] == [pytest.approx([1e-6], rel=1e-12)] * 2
