"""open(etrecord=): ops() gains the ETRecord columns of `etprof ops --etrecord R --format json`.

- the corpus record tests/data/upstream/etrecord.bin with the upstream tutorial dump: every
  row and column equal to the command's JSON;
- a record written here with zipfile for add.pte (instruction 0 -> debug handle 1 -> node
  aten_add_tensor with a stack trace and an nn.Module stack): the kernel row's op_types,
  module, module_class, innermost frame, full trace and handles equal what this test derives
  from the JSON it wrote, and equal the command's JSON; framework rows are not joined;
- errors: a damaged record (InputError, as the command's exit 1) and a missing one (IOError).
"""
import json
import re
import zipfile

import pytest

import etprof
from conftest import cli, cli_json, data

JSON_COLUMNS = etprof.OPS_COLUMNS[:-1] + etprof.ETRECORD_COLUMNS


def _check(want_rows, got):
    assert list(got) == list(JSON_COLUMNS) + ["samples"]
    assert len(got["name"]) == len(want_rows)
    for i, w in enumerate(want_rows):
        assert list(w) == list(JSON_COLUMNS)
        for k in JSON_COLUMNS:
            g, x = got[k][i], w[k]
            if x is None and isinstance(g, float):
                assert g != g, (i, k)
            else:
                assert g == x, (i, k, g, x)


def test_ops_etrecord_upstream_equals_cli():
    dump, rec = data("upstream/etdump.etdp"), data("upstream/etrecord.bin")
    for extra in ((), ("--all", "--time-unit", "ns")):
        want = cli_json("ops", dump, "--etrecord", rec, *extra)["rows"]
        with etprof.open(dump, etrecord=rec) as p:
            assert p.etrecord == rec and "etrecord=%r" % rec in repr(p)
            got = p.ops(as_dict=True, **({"all": True, "time_unit": "ns"} if extra else {}))
        _check(want, got)
    with etprof.open(dump) as p:  # without a record: no ETRecord column
        assert "op_types" not in p.ops(as_dict=True)


TRACE = ('Traceback:\n  File "/home/u/run.py", line 40, in <module>\n    m(x)\n'
         '  File "/home/u/blocks.py", line 12, in forward\n    return x + y\n')
NN = "L__self__,,__main__.Net;L__self___block,block,__main__.Block"


def _record(path):
    node = {"target": "executorch.exir.dialects.edge.ops.aten.add.Tensor", "inputs": [],
            "outputs": [{"as_none": None, "as_tensor": {"name": "aten_add_tensor"}}],
            "metadata": {"debug_handle": "1", "stack_trace": TRACE, "nn_module_stack": NN}}
    prog = {"graph_module": {"graph": {"inputs": [], "outputs": [], "nodes": [node],
                                       "tensor_values": {}}},
            "schema_version": {"major": 3, "minor": 0}}
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("ETRECORD_V0", b"")
        z.writestr("edge_dialect_exported_program/forward", json.dumps(prog))
        z.writestr("debug_handle_map", json.dumps({"forward": {"0": 1}}))
        z.writestr("delegate_map", "{}")
    return node


def test_ops_etrecord_joined_rows(tmp_path):
    rec = tmp_path / "add.etrecord"
    node = _record(rec)
    dump, pte = data("real/add_pte_10x.etdp"), data("upstream/add.pte")
    want = cli_json("ops", dump, "--pte", pte, "--etrecord", str(rec), "--all")["rows"]
    with etprof.open(dump, pte, etrecord=str(rec)) as p:
        got = p.ops(all=True, as_dict=True)
        df = p.ops()
    _check(want, got)
    # what the record says, derived here from the JSON written above
    frames = re.findall(r'File "([^"]+)", line (\d+)', node["metadata"]["stack_trace"])
    key, fqn, cls = node["metadata"]["nn_module_stack"].split(";")[-1].split(",")
    k = [i for i, (kind, ins) in enumerate(zip(got["kind"], got["instruction_id"]))
         if kind == "kernel" and ins == 0]
    assert len(k) == 1
    r = {c: got[c][k[0]] for c in etprof.ETRECORD_COLUMNS}
    assert r == {"op_types": "aten.add.Tensor", "module": fqn, "module_class": cls,
                 "stack_trace": "%s:%s" % frames[-1], "stack_trace_full": TRACE,
                 "debug_handles": "1"}
    for i, kind in enumerate(got["kind"]):
        if kind == "framework":
            assert all(got[c][i] is None for c in etprof.ETRECORD_COLUMNS)
    if not isinstance(df, dict):
        assert list(df.columns) == list(JSON_COLUMNS) + ["samples"]


def test_etrecord_errors_equal_cli(tmp_path):
    dump, pte = data("real/add_pte_1x.etdp"), data("upstream/add.pte")
    bad = tmp_path / "bad.etrecord"
    bad.write_bytes(b"not a zip at all")
    rc, _, err = cli("ops", dump, "--pte", pte, "--etrecord", str(bad))
    with pytest.raises(etprof.InputError) as ei:
        etprof.open(dump, pte, etrecord=str(bad))
    assert rc == 1 and str(ei.value) == err.strip()[len("etprof: "):]
    assert ei.value.file == str(bad)
    missing = tmp_path / "missing.etrecord"
    rc, _, err = cli("ops", dump, "--pte", pte, "--etrecord", str(missing))
    with pytest.raises(etprof.IOError) as ei:
        etprof.open(dump, pte, etrecord=str(missing))
    assert rc == 3 and str(ei.value) == err.strip()[len("etprof: "):]
