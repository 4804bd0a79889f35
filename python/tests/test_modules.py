"""Profile.modules() and Inspector.find_total_for_module(): time per nn.Module.

The dump is tests/data/flatc-built/all_kinds.etdp (its JSON source all_kinds.json, read here):
one Execute block with Method::execute, a DELEGATE_CALL (instruction 2), inside it delegate
event id 7 and a raw backend value (no time). The records are written here with zipfile, as
tests/test_modules.c writes them: edge nodes n1 (handle 1, stack enc > enc.conv) and n2 (handle
2, enc > enc.fc); debug_handle_map forward.2 = [1, 2] (the DELEGATE_CALL: common module enc).
  A: delegate_map maps id 7 to handle 1: enc.conv = the event; enc exclusive = DELEGATE_CALL
     minus the event; (no module) = Method::execute minus the DELEGATE_CALL.
  B: no id 7: the event takes its DELEGATE_CALL's module: enc = the whole DELEGATE_CALL.
Expected values are computed here from the JSON's start/end times; the rows also equal the
command's `etprof modules --format json` tree flattened depth first.
"""
import json
import math
import zipfile

import pytest

import etprof
from conftest import cli, cli_json, data

EDGE = "executorch.exir.dialects.edge.ops."
EDGE_JSON = json.dumps({
    "graph_module": {"graph": {"inputs": [], "outputs": [], "tensor_values": {}, "nodes": [
        {"target": EDGE + "aten.convolution.default", "inputs": [],
         "outputs": [{"as_tensor": {"name": "n1"}}],
         "metadata": {"debug_handle": "1", "nn_module_stack":
                      "L__self___enc,enc,m.Enc;L__self___enc_conv,enc.conv,torch.nn.Conv2d"}},
        {"target": EDGE + "aten.linear.default", "inputs": [],
         "outputs": [{"as_tensor": {"name": "n2"}}],
         "metadata": {"debug_handle": "2", "nn_module_stack":
                      "L__self___enc,enc,m.Enc;L__self___enc_fc,enc.fc,torch.nn.Linear"}}]}},
    "schema_version": {"major": 3, "minor": 0}})


def write_record(path, delegate_map):
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("ETRECORD_V0", b"")
        z.writestr("edge_dialect_exported_program/forward", EDGE_JSON)
        z.writestr("debug_handle_map", json.dumps({"forward": {"2": [1, 2]}}))
        z.writestr("delegate_map", json.dumps(
            {"forward": {"2": {"name": "XnnpackBackend", "delegate_map": delegate_map}}}))
    return str(path)


def durations():
    """ns of Method::execute, the DELEGATE_CALL and delegate event 7, from all_kinds.json."""
    with open(data("flatc-built", "all_kinds.json")) as f:
        src = json.load(f)
    out = {}
    for blk in src["run_data"]:
        for ev in blk.get("events", []):
            pe = ev.get("profile_event")
            if not pe:
                continue
            d = int(pe["end_time"]) - int(pe["start_time"])
            if pe.get("name") == "Method::execute":
                out["execute"] = d
            elif pe.get("name") == "DELEGATE_CALL":
                out["delegate"] = d
            elif int(pe.get("delegate_debug_id_int", -1)) == 7:
                out["event7"] = d
    return out


@pytest.fixture
def records(tmp_path):
    return (write_record(tmp_path / "a.etrecord", {"7": [1]}),
            write_record(tmp_path / "b.etrecord", {}))


def flatten(mods, method, domain, unit, out):
    for m in mods:
        out.append((method, domain, m["module"], m["class"], m["inclusive"], m["exclusive"],
                    m["share"], m["count"], m["count_exclusive"], unit))
        flatten(m["children"], method, domain, unit, out)
    return out


def test_modules_by_hand(records):
    a, b = records
    d = durations()
    ex, dc, e7 = d["execute"], d["delegate"], d["event7"]
    assert ex > dc > e7 > 0
    dump = data("flatc-built", "all_kinds.etdp")
    with etprof.open(dump, etrecord=a) as p:
        m = p.modules(time_unit="ns", as_dict=True)
        assert list(m) == list(etprof.MODULE_COLUMNS)
        assert m["module"] == ["enc", "enc.conv", "(no module)"]
        assert m["depth"] == [0, 1, 0] and m["parent"] == [-1, 0, -1]
        assert m["class"] == ["m.Enc", "torch.nn.Conv2d", None]
        assert m["inclusive"] == [dc, e7, ex - dc]
        assert m["exclusive"] == [dc - e7, e7, ex - dc]
        assert m["count"] == [2, 1, 1] and m["count_exclusive"] == [1, 1, 1]
        assert m["unit"] == ["ns"] * 3 and m["domain"] == ["time"] * 3
        assert math.isclose(m["share"][0], 100.0 * dc / ex, rel_tol=1e-12)
        # top-level rows add up to Method::execute: nothing counted twice
        assert m["inclusive"][0] + m["inclusive"][2] == ex
        us = p.modules(as_dict=True)
        assert us["inclusive"][0] == pytest.approx(dc / 1e3, rel=1e-12) and us["unit"][0] == "us"
        f = p.modules("enc.conv", time_unit="ns", as_dict=True)
        assert f["module"] == ["enc.conv"] and f["parent"] == [-1] and f["depth"] == [0]
        assert math.isclose(f["share"][0], 100.0 * e7 / ex, rel_tol=1e-12)
        with pytest.raises(etprof.UsageError, match="nosuch") as e:
            p.modules("nosuch")
        rc, _, err = cli("modules", dump, "--etrecord", a, "--module", "nosuch")
        assert rc == 2 == e.value.exit_code and err.strip() == "etprof: " + str(e.value)
        # the command's JSON, flattened depth first, is the same rows
        want = []
        for dm in cli_json("modules", dump, "--etrecord", a)["domains"]:
            flatten(dm["modules"], dm["method"], dm["domain"], dm["unit"], want)
        u = p.modules(as_dict=True)
        got = list(zip(u["method"], u["domain"], u["module"], u["class"], u["inclusive"],
                       u["exclusive"], u["share"], u["count"], u["count_exclusive"], u["unit"]))
        assert got == want
    with etprof.open(dump, etrecord=b) as p:
        m = p.modules(time_unit="ns", as_dict=True)
        assert m["module"] == ["enc", "(no module)"]
        assert m["inclusive"] == [dc, ex - dc] and m["exclusive"] == [dc, ex - dc]
    with etprof.open(dump) as p:
        with pytest.raises(etprof.UsageError, match="etrecord"):
            p.modules()


def test_modules_dataframe(records):
    pd = pytest.importorskip("pandas")
    with etprof.open(data("flatc-built", "all_kinds.etdp"), etrecord=records[0]) as p:
        df = p.modules()
    assert isinstance(df, pd.DataFrame) and list(df.columns) == list(etprof.MODULE_COLUMNS)
    assert df.attrs["domains"][0]["domain"] == "time" and df.attrs["joins"]["rows"] == 3


def test_inspector_find_total_for_module(records):
    a, _ = records
    d = durations()
    ins = etprof.Inspector(etdump_path=data("flatc-built", "all_kinds.etdp"), etrecord=a)
    # one run: per-run time = the inclusive sum; ms by default
    assert ins.find_total_for_module("enc") == pytest.approx(d["delegate"] / 1e6, rel=1e-12)
    assert ins.find_total_for_module("enc.conv") == pytest.approx(d["event7"] / 1e6, rel=1e-12)
    ins_us = etprof.Inspector(etdump_path=data("flatc-built", "all_kinds.etdp"), etrecord=a,
                              target_time_scale="us")
    assert ins_us.find_total_for_module("enc") == pytest.approx(d["delegate"] / 1e3, rel=1e-12)
    with pytest.raises(etprof.UsageError):
        ins.find_total_for_module("nosuch")
    with pytest.raises(etprof.UsageError, match="etrecord"):
        etprof.Inspector(etdump_path=data("flatc-built", "all_kinds.etdp")
                         ).find_total_for_module("enc")
