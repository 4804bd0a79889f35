"""Logged tensors (Profile.tensors / Profile.tensor, debug_buffer=) and their comparison
(etprof.compare) against independent sources:

- the command's JSON (`etprof tensors --format json`, `etprof compare --format json`): same
  rows, same fields, same values;
- flatc's decoding of the dump (schema/etdump.fbs) for dtype, shape, strides and offset, and the
  debug buffer's bytes unpacked here with `struct` for the arrays' values;
- tests/data/MANIFEST.md's "first debug tensors" facts;
- hand calculation: a dump rebuilt with flatc whose tensor has transposed strides, and a
  perturbed element whose MSE / SNR / cosine are computed here.
"""
import json
import math
import os
import re
import struct
import subprocess
import sys
import threading

import pytest

import etprof
from conftest import SCHEMA, cli, data, child_env
from test_samples import flatc_json

# (dump, debug buffer, program, method) -- every dump of tests/data with a debug buffer
FIXTURES = [
    ("real/add_pte_intermediate_1x", "upstream/add.pte", None),
    ("real/bundled_program_intermediate_1x", "upstream/bundled_program.bpte", None),
    ("real/module_linear_intermediate_1x", "upstream/module_linear_no_constant_segment.pte", None),
    ("real/module_linear_outputs_1x", "upstream/module_linear_no_constant_segment.pte", None),
    ("fake-qnn-backend/stories260k_qnn_kv_forward_outputs_2x",
     "upstream/stories260k_hybrid_llama_qnn.pte", "kv_forward"),
    ("synthetic/synth_qnn_mixed_small_3x", None, None),
]

# numpy's dtype of each ScalarType name the corpus has, and struct's format
NP = {"FLOAT": ("<f4", "f"), "INT": ("<i4", "i"), "BYTE": ("|u1", "B"), "UINT16": ("<u2", "H"),
      "DOUBLE": ("<f8", "d"), "LONG": ("<i8", "q"), "CHAR": ("|i1", "b"), "SHORT": ("<i2", "h")}


def _jnum(v):
    """A number of the command's JSON: null -> NaN, "NaN"/"Infinity" strings -> floats."""
    if v is None:
        return float("nan")
    if isinstance(v, str):
        return float(v.replace("Infinity", "inf"))
    return v


def _same(a, b):
    if isinstance(a, float) or isinstance(b, float):
        a, b = float(a), float(b)
        return a == b or (math.isnan(a) and math.isnan(b))
    return a == b


FLOAT_KEYS = {"min", "max", "mean", "std", "zero_fraction", "mse", "max_abs", "l1", "snr_db",
              "cosine"}


def _check_rows(want_rows, got, keys):
    assert list(got.keys()) == list(keys)
    n = len(got[keys[0]])
    assert n == len(want_rows)
    for i, w in enumerate(want_rows):
        assert list(w.keys()) == list(keys), "the command's keys, in order"
        for k in keys:
            g = got[k][i]
            if k in FLOAT_KEYS:
                assert _same(g, _jnum(w[k])), (i, k, g, w[k])
            elif k == "values":
                assert len(g) == len(w[k]) and all(_same(x, _jnum(y)) for x, y in zip(g, w[k]))
            else:
                assert g == w[k], (i, k, g, w[k])


def _args(name, pte, method):
    a = [data(name + ".etdp"), "--debug-buffer", data(name + ".debug.bin")]
    if pte:
        a += ["--pte", data(pte)]
    if method:
        a += ["--method", method]
    return a


def _open(name, pte, method, **kw):
    return etprof.open(data(name + ".etdp"), data(pte) if pte else None, method=method,
                       debug_buffer=kw.pop("debug_buffer", data(name + ".debug.bin")), **kw)


@pytest.mark.parametrize("name,pte,method", FIXTURES)
def test_tensors_equal_cli_json(name, pte, method):
    rc, out, err = cli("tensors", *_args(name, pte, method), "--format", "json")
    assert rc == 0, err
    want = json.loads(out)["tensors"]
    assert want, "the fixture logs values"
    with _open(name, pte, method) as p:
        got = p.tensors(as_dict=True)
    _check_rows(want, got, etprof.TENSOR_COLUMNS)
    if pte:  # and without the program (no operator names)
        rc, out, _ = cli("tensors", *_args(name, None, None), "--format", "json")
        with _open(name, None, None) as p:
            _check_rows(json.loads(out)["tensors"], p.tensors(as_dict=True),
                        etprof.TENSOR_COLUMNS)


def _flatc_values(doc):
    """The logged values in file order from flatc's JSON: ("tensor", scalar type name, sizes,
    strides, offset) or (entry, python value)."""
    out = []
    for b in doc["run_data"]:
        for e in b.get("events", []):
            d = (e.get("debug_event") or {}).get("debug_entry")
            if not d:
                continue
            v = d["val"]
            if v == "Tensor":
                t = d["tensor"]
                out.append(("tensor", t["scalar_type"], t["sizes"], t["strides"], t["offset"]))
            elif v == "Int":
                out.append(("int", d["int_value"]["int_val"]))
            elif v == "Bool":
                out.append(("bool", d["bool_value"]["bool_val"]))
            elif v == "Double":
                out.append(("double", d["double_value"]["double_val"]))
            elif v == "Float":
                out.append(("float", d["float_value"]["float_val"]))
    return out


@pytest.mark.parametrize("name,pte,method", FIXTURES)
def test_tensor_arrays_equal_flatc_and_struct(flatc, tmp_path, name, pte, method):
    """tensor(i): dtype, shape and values equal flatc's metadata and the buffer's bytes unpacked
    with struct (row-major strides here); inline values equal flatc's."""
    np = pytest.importorskip("numpy")
    expect = _flatc_values(flatc_json(flatc, data(name + ".etdp"), tmp_path))
    raw = open(data(name + ".debug.bin"), "rb").read()
    with _open(name, pte, method) as p:
        rows = p.tensors(as_dict=True)
        assert len(rows["entry"]) == len(expect)
        for i, x in enumerate(expect):
            a = p.tensor(i)
            if x[0] != "tensor":
                assert rows["entry"][i] == x[0] and a.shape == () and a.item() == x[1]
                continue
            _, st, sizes, strides, off = x
            descr, fmt = NP[st]
            n = math.prod(sizes)
            vals = struct.unpack_from("<%d%s" % (n, fmt), raw, off)
            assert a.dtype == np.dtype(descr) and list(a.shape) == sizes, (i, a.dtype, a.shape)
            assert a.flags["C_CONTIGUOUS"]
            assert a.reshape(-1).tolist() == list(vals)
            assert (rows["dtype"][i], rows["shape"][i], rows["strides"][i], rows["offset"][i]) \
                == (st, sizes, strides, off)
        with pytest.raises(IndexError):
            p.tensor(len(expect))
        with pytest.raises(IndexError):
            p.tensor(-1)


def test_tensors_match_manifest_facts():
    """MANIFEST.md "first debug tensors (type@offset[sizes]=first values)" of each real dump."""
    text = open(data("..", "data", "MANIFEST.md") if False else os.path.join(data(), "MANIFEST.md")).read()
    short = {"f32": "FLOAT", "i32": "INT", "u8": "BYTE"}
    seen = 0
    for m in re.finditer(r"--debug_output_path (\S+)\.debug\.bin`.*?first debug tensors [^:]*: "
                         r"([^\n]+)", text, re.S):
        stem = m.group(1)
        hits = [os.path.join(dp, f) for dp, _, fs in os.walk(data()) for f in fs
                if f == stem + ".etdp"]
        if not hits:
            continue
        dump = hits[0]
        facts = re.findall(r"(\w+)@(\d+)\[([\d, ]*)\]=\[([^\]]*)\]", m.group(2))
        with etprof.open(dump, debug_buffer=dump[:-5] + ".debug.bin") as p:
            rows = p.tensors(as_dict=True)
            for t, off, sizes, vals in facts:
                k = rows["offset"].index(int(off))
                assert rows["dtype"][k] == short[t]
                assert rows["shape"][k] == [int(s) for s in sizes.split(",")]
                want = [float(v) for v in vals.split(",")]
                assert rows["values"][k][:len(want)] == want
                assert p.tensor(k).reshape(-1)[:len(want)].tolist() == want
                seen += 1
    assert seen >= 10


def _rebuild(flatc, doc, tmp_path, stem):
    js = tmp_path / (stem + ".json")
    js.write_text(json.dumps(doc))
    subprocess.run([flatc, "-b", "--size-prefixed", "-o", str(tmp_path),
                    os.path.join(SCHEMA, "etdump.fbs"), str(js)], check=True, env=child_env())
    return str(tmp_path / (stem + ".etdp"))  # the schema's file_extension


def test_tensor_honours_strides(flatc, tmp_path):
    """A [2, 2] FLOAT tensor rebuilt with strides [1, 2] (column-major) over the bytes 1, 2, 3, 4:
    element [i][j] is at i + 2j, so the array is [[1, 3], [2, 4]] (by hand); the command's first
    values agree."""
    np = pytest.importorskip("numpy")
    name = "real/module_linear_intermediate_1x"
    doc = flatc_json(flatc, data(name + ".etdp"), tmp_path)
    t = doc["run_data"][1]["events"][0]["debug_event"]["debug_entry"]["tensor"]
    assert t["offset"] == 48 and t["sizes"] == [2, 2]
    t["strides"] = [1, 2]
    dump = _rebuild(flatc, doc, tmp_path, "strided")
    buf = bytearray(open(data(name + ".debug.bin"), "rb").read())
    struct.pack_into("<4f", buf, 48, 1.0, 2.0, 3.0, 4.0)
    bpath = tmp_path / "strided.debug.bin"
    bpath.write_bytes(bytes(buf))
    with etprof.open(dump, debug_buffer=str(bpath)) as p:
        a = p.tensor(0)
        rows = p.tensors(as_dict=True)
    assert a.tolist() == [[1.0, 3.0], [2.0, 4.0]] and a.dtype == np.float32
    assert rows["strides"][0] == [1, 2] and rows["values"][0] == [1.0, 3.0, 2.0, 4.0]
    rc, out, err = cli("tensors", dump, "--debug-buffer", str(bpath), "--format", "json")
    assert rc == 0, err
    _check_rows(json.loads(out)["tensors"], rows, etprof.TENSOR_COLUMNS)


def test_tensors_select_dataframe_bytes_and_repr():
    name, pte, _ = FIXTURES[5]
    raw = open(data(name + ".debug.bin"), "rb").read()
    with _open(name, pte, None) as p:
        every = p.tensors(as_dict=True)
        assert "debug_buffer=%r" % data(name + ".debug.bin") in repr(p)
        part = p.tensors([0, 2, -1], as_dict=True)
        for k in etprof.TENSOR_COLUMNS:
            assert part[k] == [every[k][0], every[k][2], every[k][-1]] or k in FLOAT_KEYS
        assert p.tensors(slice(1, 3), as_dict=True)["event"] == every["event"][1:3]
        with pytest.raises(IndexError):
            p.tensors(999)
        with pytest.raises(etprof.UsageError):
            p.tensors(["a"])
    with _open(name, pte, None, debug_buffer=raw) as p:  # bytes: same rows
        assert p.debug_buffer == "<debug_buffer>"
        b = p.tensors(as_dict=True)
        assert b["values"] == every["values"] and b["offset"] == every["offset"]
    buf = bytearray(raw)
    with _open(name, pte, None, debug_buffer=buf) as p:  # copied: later changes cannot reach it
        buf[:] = b"\xff" * len(buf)
        assert p.tensors(as_dict=True)["values"] == every["values"]
    pd = pytest.importorskip("pandas")
    with _open(name, pte, None) as p:
        df = p.tensors()
    assert isinstance(df, pd.DataFrame) and list(df.columns) == list(etprof.TENSOR_COLUMNS)
    assert str(df["offset"].dtype) == "Int64" and df["offset"].isna().sum() == \
        sum(o is None for o in every["offset"])


def _stderr_fields(err):
    """file, offset, path, reason of the command's one-line error."""
    line = err.strip().splitlines()[-1]
    assert line.startswith("etprof: ")
    return line[len("etprof: "):]


def test_tensor_errors_equal_cli(tmp_path):
    name = "real/module_linear_intermediate_1x"
    dump = data(name + ".etdp")
    # no debug buffer: the tensor's bytes are missing (located at the tensor)
    rc, _, err = cli("tensors", dump)
    with etprof.open(dump) as p:
        with pytest.raises(etprof.InputError) as ei:
            p.tensors()
        assert str(ei.value) == _stderr_fields(err) and rc == 1
        assert ei.value.file is None and ei.value.offset == 48
        assert ei.value.path == "run_data[1].events[0].debug_event.debug_entry.tensor"
        with pytest.raises(etprof.InputError):
            p.tensor(0)
    # a truncated buffer: the second tensor lies outside it
    short = tmp_path / "short.bin"
    short.write_bytes(open(data(name + ".debug.bin"), "rb").read()[:100])
    rc, _, err = cli("tensors", dump, "--debug-buffer", str(short))
    with etprof.open(dump, debug_buffer=str(short)) as p:
        with pytest.raises(etprof.InputError) as ei:
            p.tensors()
        assert str(ei.value) == _stderr_fields(err) and rc == 1
        assert (ei.value.file, ei.value.offset) == (str(short), 112)
        assert ei.value.path == "run_data[1].events[3].debug_event.debug_entry.tensor"
        assert p.tensor(0).tolist() == [[3.0, 3.0], [3.0, 3.0]]  # the first is whole
    # a buffer that does not exist: IOError, as the command's exit 3
    rc, _, err = cli("tensors", dump, "--debug-buffer", str(tmp_path / "nope.bin"))
    with pytest.raises(etprof.IOError) as ei:
        etprof.open(dump, debug_buffer=str(tmp_path / "nope.bin"))
    assert rc == 3 and str(ei.value) == _stderr_fields(err)
    assert ei.value.file == str(tmp_path / "nope.bin")


def test_tensor_without_numpy(monkeypatch):
    name = "real/module_linear_intermediate_1x"
    monkeypatch.setitem(sys.modules, "numpy", None)
    with _open(name, None, None) as p:
        assert len(p.tensors(as_dict=True)["entry"]) == 3  # the table needs no numpy
        with pytest.raises(ImportError, match="python3-numpy"):
            p.tensor(0)


# ---- compare ----

def _cli_compare(b, n, bb, nb, *extra):
    rc, out, err = cli("compare", b, n, "--debug-buffer", bb, "--debug-buffer-new", nb, *extra,
                       "--format", "json")
    assert rc in (0, 7), err
    return json.loads(out)


@pytest.mark.parametrize("name,pte,method", FIXTURES)
def test_compare_self_equals_cli(name, pte, method):
    d, b = data(name + ".etdp"), data(name + ".debug.bin")
    extra = (["--pte", data(pte)] if pte else []) + (["--method", method] if method else [])
    want = _cli_compare(d, d, b, b, *extra)
    c = etprof.compare(d, d, debug_buffer=b, debug_buffer_new=b,
                       pte=data(pte) if pte else None, method=method, as_dict=True)
    _check_rows(want["tensors"], c.tensors, etprof.COMPARE_COLUMNS)
    assert (c.matched, c.unmatched, c.first_divergence) == \
        (want["matched"], want["unmatched"], want["first_divergence"])
    assert not c.diverged and c.divergence is None and "identical" in repr(c)
    assert all(math.isinf(s) and s > 0 for s in c.tensors["snr_db"]
               if not math.isnan(s))


def test_compare_perturbed_equals_cli_and_hand(tmp_path):
    """One element of the tensor at byte 112 (instruction 1; MANIFEST: f32@112[2, 2] = 5.0 x 4)
    set to 5.5: that tensor is the first divergence; MSE = 0.25 / 4, max 0.5, mean 0.125, SNR and
    cosine computed here; the gate (fail_below_snr) as --fail-below-snr."""
    name = "real/module_linear_intermediate_1x"
    d, b = data(name + ".etdp"), data(name + ".debug.bin")
    pte = data("upstream/module_linear_no_constant_segment.pte")
    raw = bytearray(open(b, "rb").read())
    struct.pack_into("<f", raw, 112 + 8, 5.5)
    nb = tmp_path / "perturbed.bin"
    nb.write_bytes(bytes(raw))
    base, new = [5.0] * 4, [5.0, 5.0, 5.5, 5.0]
    diff = [x - y for x, y in zip(base, new)]
    snr = 10 * math.log10(sum(x * x for x in base) / sum(x * x for x in diff))
    cos = sum(x * y for x, y in zip(base, new)) / (math.sqrt(sum(x * x for x in base)) *
                                                    math.sqrt(sum(y * y for y in new)))
    thr = math.floor(snr) + 1
    want = _cli_compare(d, d, b, str(nb), "--pte", pte, "--fail-below-snr", str(thr))
    with etprof.open(d, pte, debug_buffer=b) as pa, \
            etprof.open(d, pte, debug_buffer=raw) as pb:  # Profiles; the new buffer as bytes
        c = etprof.compare(pa, pb, fail_below_snr=thr, as_dict=True)
    _check_rows(want["tensors"], c.tensors, etprof.COMPARE_COLUMNS)
    assert c.first_divergence == want["first_divergence"] is not None
    assert c.first_below_snr == want["first_below_snr"] == c.first_divergence
    r = c.divergence
    assert (r["instruction_id"], r["occurrence"], r["output"]) == (1, 0, False)
    assert r["operator"] == "aten::add"
    assert r["mse"] == pytest.approx(0.0625, rel=1e-12)
    assert r["max_abs"] == pytest.approx(0.5, rel=1e-12)
    assert r["l1"] == pytest.approx(0.125, rel=1e-12)
    assert r["snr_db"] == pytest.approx(snr, rel=1e-12)
    assert r["cosine"] == pytest.approx(cos, rel=1e-12)
    assert c.diverged and "first divergence: run 1, instruction 1" in repr(c)
    c2 = etprof.compare(d, d, debug_buffer=b, debug_buffer_new=str(nb), pte=pte,
                        fail_below_snr=math.floor(snr) - 1)
    assert c2.first_below_snr is None and c2.first_divergence == c.first_divergence
    pd = pytest.importorskip("pandas")
    assert isinstance(c2.tensors, pd.DataFrame)
    assert list(c2.tensors.columns) == list(etprof.COMPARE_COLUMNS)
    assert "<table>" in c2._repr_html_()


def test_compare_usage_errors():
    name = "real/module_linear_intermediate_1x"
    d, b = data(name + ".etdp"), data(name + ".debug.bin")
    with pytest.raises(etprof.UsageError, match="debug buffers"):
        etprof.compare(d, d, debug_buffer=b)
    with etprof.open(d, debug_buffer=b) as p:
        with pytest.raises(etprof.UsageError):
            etprof.compare(p, d, debug_buffer=b, debug_buffer_new=b)
        q = etprof.open(d, debug_buffer=b)
        q.close()
        with pytest.raises(ValueError):
            etprof.compare(p, q)
