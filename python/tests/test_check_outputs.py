"""etprof.check_outputs(): the library's etp_check_outputs, with the expected values of
tests/test_check_outputs.py derived the same way:

- the corpus: the expected output of test case 0 read from upstream/bundled_program.bpte with
  flatc and the logged output read from the .debug.bin with struct at the offset the MANIFEST
  names: equal, so the check passes with max |diff| 0; a dump without logged outputs: passed
  None;
- crafted here with flatc: a bundled program and a dump whose logged outputs are within
  tolerance / one element outside (max |diff| and the allowed error computed here with
  ExecuTorch's rule |a - e| <= atol + |rtol * a| on float32 values), a transposed expected
  tensor, a shape difference, a missing output; rtol loosens, test_case picks the case;
- the command's JSON outputs are the same dicts; errors are the command's lines.
"""
import json
import os
import re
import struct
import subprocess

import pytest

import etprof
from conftest import DATA, SCHEMA, cli, cli_json, data

BPTE = data("upstream", "bundled_program.bpte")
DUMP = data("real", "bundled_program_intermediate_1x.etdp")
DBG = data("real", "bundled_program_intermediate_1x.debug.bin")


def _same(a, b):
    if isinstance(a, float) and isinstance(b, float) and a != a:
        return b != b
    return a == b


def equal_cli(res, doc):
    for k in ("test_case", "rtol", "atol", "runs", "checked", "failed", "passed"):
        assert getattr(res, k) == doc[k], k
    assert len(res.outputs) == len(doc["outputs"])
    for got, want in zip(res.outputs, doc["outputs"]):
        for k, v in want.items():
            assert _same(float("nan") if v is None and k == "max_abs" else v, got[k]), (k, v, got)


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    from conftest import FLATC
    from shutil import which
    flatc = FLATC if os.path.isabs(FLATC) else which(FLATC)
    if not flatc or not os.path.exists(flatc):
        pytest.skip("flatc not found (apt-get install flatbuffers-compiler)")
    T = str(tmp_path_factory.mktemp("chk"))

    def to_json(schema, binary):
        subprocess.run([flatc, "--json", "--strict-json", "--defaults-json", "--raw-binary",
                        "-o", T, os.path.join(SCHEMA, schema), "--", binary], check=True,
                       capture_output=True)
        with open(os.path.join(T, os.path.splitext(os.path.basename(binary))[0] + ".json")) as f:
            return json.load(f)

    def build(schema, doc, name, size_prefixed=False):
        src = os.path.join(T, name + ".json")
        with open(src, "w") as f:
            json.dump(doc, f)
        subprocess.run([flatc, "-b", *(["--size-prefixed"] if size_prefixed else []), "-o", T,
                        os.path.join(SCHEMA, schema), src], check=True, capture_output=True)
        return [os.path.join(T, f) for f in os.listdir(T)
                if f.startswith(name + ".") and not f.endswith(".json")][0]

    return T, to_json, build


def test_corpus(tools):
    _, to_json, _ = tools
    bp = to_json("bundled_program.fbs", BPTE)
    suite = bp["method_test_suites"][0]
    exp = suite["test_cases"][0]["expected_outputs"][0]["val"]
    exp_vals = list(struct.unpack("<%di" % (len(exp["data"]) // 4), bytes(exp["data"])))
    with open(os.path.join(DATA, "MANIFEST.md")) as f:
        man = f.read()
    sec = man.split("### `real/bundled_program_intermediate_1x.etdp`")[1].split("### ")[0]
    off = [int(x) for x in re.findall(r"i32@(\d+)\[2, 2\]", sec)][-1]
    with open(DBG, "rb") as f:
        got_vals = list(struct.unpack_from("<4i", f.read(), off))
    r = etprof.check_outputs(BPTE, DUMP, DBG)
    assert r.runs == 1 and r.checked == 1 and r.failed == 0 and r.passed is True
    (o,) = r.outputs
    assert o["status"] == "pass" and o["within_tolerance"] is True and r.verdicts == ["pass"]
    assert o["expected_shape"] == exp["sizes"] and o["dtype"] == exp["scalar_type"]
    assert o["numel"] == len(exp_vals) and o["method"] == suite["method_name"]
    assert o["max_abs"] == max(abs(a - b) for a, b in zip(got_vals, exp_vals))
    equal_cli(r, cli_json("check-outputs", DUMP, "--debug-buffer", DBG, "--pte", BPTE))
    # bytes in, the same result
    with open(BPTE, "rb") as a, open(DUMP, "rb") as b, open(DBG, "rb") as c:
        assert etprof.check_outputs(a.read(), b.read(), c.read()).outputs == r.outputs
    # a dump that logged no outputs: nothing to check
    n = etprof.check_outputs(BPTE, data("real", "bundled_program_1x.etdp"), DBG)
    assert n.runs == 0 and n.passed is None and "nothing to check" in repr(n)
    assert n.exit_code == 6 and r.exit_code == 0
    # a test case that does not exist: the command's usage error
    k = len(suite["test_cases"])
    rc, _, err = cli("check-outputs", DUMP, "--debug-buffer", DBG, "--pte", BPTE, "--test-case",
                     str(k))
    with pytest.raises(etprof.UsageError) as e:
        etprof.check_outputs(BPTE, DUMP, DBG, test_case=k)
    assert rc == 2 and "test case %d does not exist" % k in str(e.value)
    assert err.strip() == "etprof: " + str(e.value)
    # a plain .pte: the command's located error
    add = data("upstream", "add.pte")
    rc, _, err = cli("check-outputs", DUMP, "--debug-buffer", DBG, "--pte", add)
    with pytest.raises(etprof.InputError) as e:
        etprof.check_outputs(add, DUMP, DBG)
    assert rc == 1 and e.value.offset == 4 and "not a bundled program" in e.value.reason
    assert err.strip() == "etprof: " + str(e.value)
    with pytest.raises(etprof.UsageError, match="rtol"):
        etprof.check_outputs(BPTE, DUMP, DBG, rtol=-1)


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def test_crafted(tools):
    T, _, build = tools
    buf, logged = bytearray(), []

    def log(st, sizes, fmt, vals):
        while len(buf) % 64:
            buf.append(0)
        logged.append((st, sizes, len(buf), vals))
        buf.extend(struct.pack("<%d%s" % (len(vals), fmt), *vals))

    a0 = [1.0, 2.0, 3.0, 4.0]
    log("FLOAT", [4], "f", a0)
    a1 = [[1.0, 2.0], [3.0, 4.0]]
    log("FLOAT", [2, 2], "f", [v for r in a1 for v in r])
    log("INT", [3], "i", [7, 8, 9])
    log("FLOAT", [2], "f", [0.5, 0.25])
    events = [{"debug_event": {"instruction_id": 0, "chain_index": 0, "debug_entry": {
        "val": "Tensor", "tensor": {"scalar_type": st, "sizes": sz, "offset": off},
        "output": {"bool_val": True}}}} for st, sz, off, _ in logged]
    dump = build("etdump.fbs", {"version": 0, "run_data": [{"name": "Execute", "events": events}]},
                 "crafted", size_prefixed=True)
    dbg = os.path.join(T, "crafted.debug.bin")
    with open(dbg, "wb") as f:
        f.write(bytes(buf))
    e0 = [1.0, f32(2.0 + 1e-6), f32(3.0 + 1e-3), 4.0]

    def tensor(st, sizes, fmt, vals, dim_order=None):
        t = {"scalar_type": st, "sizes": sizes,
             "data": list(struct.pack("<%d%s" % (len(vals), fmt), *vals))}
        if dim_order is not None:
            t["dim_order"] = dim_order
        return {"val_type": "Tensor", "val": t}

    colmajor = [a1[i][j] for j in range(2) for i in range(2)]
    case0 = {"inputs": [], "expected_outputs": [
        tensor("FLOAT", [4], "f", e0), tensor("FLOAT", [2, 2], "f", colmajor, [1, 0]),
        tensor("INT", [3], "i", [7, 8, 9]), tensor("FLOAT", [3], "f", [0.5, 0.25, 0.0]),
        {"val_type": "Int", "val": {"int_val": 5}}]}
    case1 = {"inputs": [], "expected_outputs": [
        tensor("FLOAT", [4], "f", a0), tensor("FLOAT", [2, 2], "f", [v for r in a1 for v in r]),
        tensor("INT", [3], "i", [7, 8, 10]), tensor("FLOAT", [2], "f", [0.5, 0.25])]}
    with open(data("upstream", "add.pte"), "rb") as f:
        prog = list(f.read())
    bpte = build("bundled_program.fbs", {"version": 0, "method_test_suites": [
        {"method_name": "forward", "test_cases": [case0, case1]}], "program": prog}, "crafted_bp")

    def expect_row(a, e, rtol=1e-5, atol=1e-8):
        return (sum(1 for x, y in zip(a, e) if abs(x - y) > atol + abs(rtol * x)),
                max(abs(x - y) for x, y in zip(a, e)))

    r = etprof.check_outputs(bpte, dump, dbg, method="forward")
    o = r.outputs
    assert r.verdicts == ["fail", "pass", "pass", "shape differs", "missing"]
    bad, mx = expect_row(a0, e0)
    assert o[0]["mismatched"] == bad == 1 and abs(o[0]["max_abs"] - mx) < 1e-12
    assert o[0]["tolerance_used"] is True and o[2]["tolerance_used"] is False
    assert o[1]["max_abs"] == 0  # the transposed expected tensor equals the row-major one
    assert o[3]["shape"] == [2] and o[3]["expected_shape"] == [3]
    assert o[4]["expected_dtype"] == "int" and o[4]["dtype"] is None
    assert r.failed == 3 and r.passed is False and r.rtol == 1e-5 and r.atol == 1e-8
    rc, out, _ = cli("check-outputs", dump, "--debug-buffer", dbg, "--pte", bpte, "--method",
                     "forward", "--format", "json")
    assert rc == 7 == r.exit_code
    equal_cli(r, json.loads(out))
    loose = etprof.check_outputs(bpte, dump, dbg, method="forward", rtol=1e-3)
    assert expect_row(a0, e0, 1e-3)[0] == 0 and loose.outputs[0]["status"] == "pass"
    c1 = etprof.check_outputs(bpte, dump, dbg, method="forward", test_case=1)
    assert c1.verdicts == ["pass", "pass", "fail", "pass"]
    assert c1.outputs[2]["mismatched"] == 1 and c1.outputs[2]["max_abs"] == 1
    pd = pytest.importorskip("pandas")
    assert isinstance(r.to_dataframe(), pd.DataFrame) and len(r.to_dataframe()) == 5
    # without the debug buffer the logged tensors cannot be read: the located error
    with pytest.raises(etprof.InputError) as e:
        etprof.check_outputs(bpte, dump, method="forward")
    assert e.value.path and "debug_entry" in e.value.path
