"""etprof.Inspector's debug_data, delegate debug metadata and delegate_time_scale_converter,
against an independent decoding: flatc's JSON of the dump (schema/etdump.fbs) for the events,
their keys, the tensors' dtypes, sizes and offsets and the metadata bytes, and numpy reading the
debug buffer's bytes at those offsets. The grouping is the Inspector's documented one
(../shared/docs/etdump-format.md sections 3.2-3.5, 3.8, 3.10), re-implemented here: a row's
debug_data is the non-output debug events of its instruction key (instruction, chain index,
delegate ids) in the first run of its block.
"""
import csv
import io
import math
import os

import pytest

import etprof
from conftest import FLATC, data
from test_samples import flatc_json

# numpy's dtype of each ScalarType name of the schema the test dumps use
DTYPES = {"BYTE": "u1", "CHAR": "i1", "SHORT": "<i2", "INT": "<i4", "LONG": "<i8", "HALF": "<f2",
          "FLOAT": "<f4", "DOUBLE": "<f8", "BOOL": "?"}


def _np():
    return pytest.importorskip("numpy")


def _tensor(np, t, buf):
    sizes = t["sizes"]
    n = 1
    for s in sizes:
        n *= s
    # the files' strides are row-major (so the bytes are the array in C order)
    want = []
    acc = 1
    for s in reversed(sizes):
        want.insert(0, acc)
        acc *= s
    assert t["strides"] == want
    return np.frombuffer(buf, dtype=DTYPES[t["scalar_type"]], count=n,
                         offset=t["offset"]).reshape(sizes)


def _inflate(np, entry, buf):
    val = entry["val"]
    if val == "Tensor":
        return _tensor(np, entry["tensor"], buf)
    if val == "TensorList":
        return [_tensor(np, t, buf) for t in entry["tensor_list"]["tensors"]]
    if val == "Int":
        return int(entry["int_value"]["int_val"])
    if val == "Bool":
        return bool(entry["bool_value"]["bool_val"])
    if val == "Float":
        return float(entry["float_value"]["float_val"])
    if val == "Double":
        return float(entry["double_value"]["double_val"])
    raise AssertionError(val)


def _ident(ev):
    """The Inspector's (event_name, instruction) of a profile or debug event."""
    dint = ev.get("delegate_debug_id_int", -1)
    dstr = ev.get("delegate_debug_id_str") or None
    name = str(dint) if dint >= 0 else dstr if dstr else (ev.get("name") or "")
    instr = ev.get("instruction_id", -1)
    return name, (None if instr < 0 else instr)


def expected_debug(np, doc, buf):
    """{(block name, event name, instruction): [inflated entries]} from the first run of every
    block name (the test dumps have one structure per name)."""
    out = {}
    for b in doc["run_data"]:
        evs = b.get("events") or []
        if not evs or any(k[0] == b["name"] for k in out):
            continue
        keys = {}
        order = []
        for e in evs:
            ev = e.get("profile_event") or e.get("debug_event")
            if ev is None:
                continue  # allocation events: left out by etprof
            k = (ev.get("instruction_id", -1), ev.get("chain_index", -1),
                 ev.get("delegate_debug_id_int", -1), ev.get("delegate_debug_id_str") or None)
            if k not in keys:
                keys[k] = {"prof": [], "dbg": []}
                order.append(k)
            if "profile_event" in e:
                keys[k]["prof"].append(ev)
            else:
                entry = ev.get("debug_entry")
                if entry and (entry.get("output") or {}).get("bool_val"):
                    continue  # a program output: not an event's debug data
                keys[k]["dbg"].append(ev)
        for k in order:
            v = keys[k]
            vals = [_inflate(np, d["debug_entry"], buf) for d in v["dbg"]]
            for p in v["prof"]:
                out[(b["name"],) + _ident(p)] = vals
            if not v["prof"] and v["dbg"]:
                out[(b["name"],) + _ident(v["dbg"][0])] = vals
    return out


def _same(np, got, exp):
    if isinstance(exp, np.ndarray):
        assert isinstance(got, np.ndarray)
        assert got.dtype == exp.dtype and got.shape == exp.shape
        assert got.tobytes() == exp.tobytes()
    elif isinstance(exp, list):
        assert isinstance(got, list) and len(got) == len(exp)
        for g, e in zip(got, exp):
            _same(np, g, e)
    else:
        assert type(got) is type(exp) and got == exp


CASES = [
    ("real/add_pte_intermediate_1x.etdp", "real/add_pte_intermediate_1x.debug.bin", 1),
    ("real/bundled_program_intermediate_1x.etdp",
     "real/bundled_program_intermediate_1x.debug.bin", 3),
    ("real/module_linear_intermediate_1x.etdp", "real/module_linear_intermediate_1x.debug.bin",
     2),
    ("real/module_linear_outputs_1x.etdp", "real/module_linear_outputs_1x.debug.bin", 0),
    ("fake-qnn-backend/stories260k_qnn_kv_forward_outputs_2x.etdp",
     "fake-qnn-backend/stories260k_qnn_kv_forward_outputs_2x.debug.bin", 0),
]


@pytest.mark.parametrize("dump,dbuf,n_instr", CASES)
def test_debug_data_equals_independent_decoding(tmp_path, dump, dbuf, n_instr):
    """Every row's debug_data: the first run's entries of its key, as numpy reads the buffer
    at flatc's offsets; n_instr instructions logged intermediates (MANIFEST.md: outputs-only
    dumps log none besides the program outputs, which are no row's data)."""
    np = _np()
    doc = flatc_json(FLATC, data(dump), tmp_path)
    with open(data(dbuf), "rb") as f:
        buf = f.read()
    want = expected_debug(np, doc, buf)
    ins = etprof.Inspector(etdump_path=data(dump), debug_buffer_path=data(dbuf))
    c = ins._columns(True)
    instrs = set()
    for i, name in enumerate(c["event_name"]):
        k = (c["event_block_name"][i], name, ins._cols["instruction_id"][i])
        assert k in want, k
        _same(np, c["debug_data"][i], want[k])
        if want[k]:
            instrs.add(k[2])
    assert len(instrs) == n_instr
    # the Event objects carry the same lists
    rows = [e for b in ins.event_blocks for e in b.events]
    assert len(rows) == len(c["debug_data"])
    for e, d in zip(rows, c["debug_data"]):
        assert e.debug_data is d
    # without a debug buffer: empty lists, as before
    assert all(x == [] for x in etprof.Inspector(etdump_path=data(dump))._columns(True)["debug_data"])


def test_debug_data_all_value_kinds(tmp_path):
    """flatc-built/all_kinds.etdp logs a Tensor, an Int, a Double and a Bool under the
    DELEGATE_CALL's key and a TensorList under delegate id 5 (a debug-only row): with a debug
    buffer written here (bytes 0..255), every kind is inflated, values from flatc + numpy."""
    np = _np()
    doc = flatc_json(FLATC, data("flatc-built/all_kinds.etdp"), tmp_path)
    buf = bytes(range(256))
    want = expected_debug(np, doc, buf)
    ins = etprof.Inspector(etdump_path=data("flatc-built/all_kinds.etdp"), debug_buffer_path=buf)
    c = ins._columns(True)
    seen = {}
    for i, name in enumerate(c["event_name"]):
        k = (c["event_block_name"][i], name, ins._cols["instruction_id"][i])
        _same(np, c["debug_data"][i], want[k])
        seen[name] = c["debug_data"][i]
    dc = seen["DELEGATE_CALL"]
    assert [type(x).__name__ for x in dc] == ["ndarray", "int", "float", "bool"]
    assert dc[1:] == [-5, 2.5, True] and dc[0].shape == (2, 3) and dc[0].dtype == np.float32
    assert isinstance(seen["5"], list) and isinstance(seen["5"][0], list)
    assert seen["5"][0][0].dtype == np.int64
    assert seen["5"][0][0][0] == int.from_bytes(bytes(range(128, 136)), "little", signed=True)
    # a buffer too short for the tensors: the library's located error, not zeros
    with pytest.raises(etprof.InputError) as e:
        etprof.Inspector(etdump_path=data("flatc-built/all_kinds.etdp"),
                         debug_buffer_path=bytes(100))
    assert e.value.path and "debug_entry" in e.value.path


def _backends(tmp_path):
    doc = flatc_json(FLATC, data("flatc-built/backends.etdp"), tmp_path)
    evs = [e["profile_event"] for e in doc["run_data"][0]["events"]]
    return evs


def test_delegate_debug_metadata_raw(tmp_path):
    """include_delegate_debug_data without a parser: per row the per-sample bytes (flatc's
    delegate_debug_metadata), None where every entry is empty or absent."""
    evs = _backends(tmp_path)
    ins = etprof.Inspector(etdump_path=data("flatc-built/backends.etdp"))
    cols = ins._columns(True, include_delegate_debug_data=True)
    assert list(cols)[-1] == "delegate_debug_metadata"
    assert len(cols["event_name"]) == len(evs)  # one run, every signature distinct
    for i, p in enumerate(evs):
        assert cols["event_name"][i] == _ident(p)[0]
        meta = bytes(p.get("delegate_debug_metadata") or [])
        assert cols["delegate_debug_metadata"][i] == ([meta] if meta else None), i
    assert sum(x is not None for x in cols["delegate_debug_metadata"]) == 3
    rows = [e for b in ins.event_blocks for e in b.events]
    assert rows[3].raw_delegate_debug_metadatas == [b'{"a":1}']
    assert rows[3].delegate_debug_metadatas == [b'{"a":1}']
    # the default stays without the column
    assert "delegate_debug_metadata" not in ins._columns(True)


def test_delegate_debug_metadata_parsers(tmp_path):
    """A parser returning a dict: one column per key, on delegated rows with metadata; one
    returning a list: the delegate_debug_metadata column. Expected values from flatc's bytes."""
    evs = _backends(tmp_path)
    calls = []

    def as_dict(raw):
        calls.append(list(raw))
        return {"nbytes": len(raw[0]), "first": raw[0][0]}

    ins = etprof.Inspector(etdump_path=data("flatc-built/backends.etdp"),
                           delegate_metadata_parser=as_dict)
    cols = ins._columns(True, include_delegate_debug_data=True)
    assert "delegate_debug_metadata" not in cols
    assert list(cols)[-2:] == ["nbytes", "first"]
    for i, p in enumerate(evs):
        meta = bytes(p.get("delegate_debug_metadata") or [])
        assert cols["nbytes"][i] == (len(meta) if meta else None)
        assert cols["first"][i] == (meta[0] if meta else None)
    assert len(calls) == 3  # only the delegated rows with metadata, once each
    ins._columns(True, include_delegate_debug_data=True)
    assert len(calls) == 3

    ins = etprof.Inspector(etdump_path=data("flatc-built/backends.etdp"),
                           delegate_metadata_parser=lambda raw: [x.hex() for x in raw])
    cols = ins._columns(True, include_delegate_debug_data=True)
    for i, p in enumerate(evs):
        meta = bytes(p.get("delegate_debug_metadata") or [])
        assert cols["delegate_debug_metadata"][i] == ([meta.hex()] if meta else None)

    pytest.importorskip("pandas")
    df = ins.to_dataframe(include_delegate_debug_data=True)
    assert "delegate_debug_metadata" in df.columns
    out = io.StringIO()
    ins.save_data_to_tsv(out, include_delegate_debug_data=True)
    rows = list(csv.reader(io.StringIO(out.getvalue()), delimiter="\t"))
    assert rows[0][-1] == "delegate_debug_metadata"
    assert rows[1 + 3][-1] == str(["7b2261223a317d"])  # b'{"a":1}'.hex()
    buf = io.StringIO()
    ins.print_data_tabular(file=buf, include_delegate_debug_data=True)
    assert "delegate_debug_metadata" in buf.getvalue()


def test_delegate_time_scale_converter(tmp_path):
    """The converter gets each delegated sample's raw start and end ticks (flatc's) and the
    event name; the row's value is their difference, in the target unit; other rows keep
    etprof's ns reading (end - start ticks / 1e6 for ms)."""
    evs = _backends(tmp_path)
    seen = []

    def conv(name, t):
        seen.append((name, t))
        return t / 1000.0

    ins = etprof.Inspector(etdump_path=data("flatc-built/backends.etdp"),
                           delegate_time_scale_converter=conv)
    cols = ins._columns(True)
    for i, p in enumerate(evs):
        name = _ident(p)[0]
        delegated = p.get("delegate_debug_id_int", -1) >= 0 or bool(p.get("delegate_debug_id_str"))
        if delegated:
            want = p["end_time"] / 1000.0 - p["start_time"] / 1000.0
            assert (name, p["start_time"]) in seen and (name, p["end_time"]) in seen
        else:
            want = (p["end_time"] - p["start_time"]) / 1e6
        assert cols["raw"][i] == [pytest.approx(want, rel=1e-12)], (i, name)
        assert cols["p50 (ms)"][i] == pytest.approx(want, rel=1e-12)
        assert cols["unit"][i] == "ms"
    assert len(seen) == 2 * sum(1 for i in range(len(evs)) if cols["is_delegated_op"][i])
    # a converted start after the converted end: NaN, never a guessed wrap
    ins = etprof.Inspector(etdump_path=data("flatc-built/backends.etdp"),
                           delegate_time_scale_converter=lambda n, t: -t)
    c2 = ins._columns(True)
    for i in range(len(evs)):
        if c2["is_delegated_op"][i]:
            assert math.isnan(c2["raw"][i][0]) and math.isnan(c2["p50 (ms)"][i])


def test_fuzz_corpus_through_inspector_details():
    """Every file of the fuzz corpus, with a patterned debug buffer and every new column asked
    for: the Inspector is built or raises InputError (a crash would kill the interpreter)."""
    np = _np()
    from conftest import CORPUS  # noqa: PLC0415

    if not os.path.isdir(CORPUS):
        pytest.skip("fuzz corpus absent at %s" % CORPUS)
    files = sorted(os.path.join(CORPUS, f) for f in os.listdir(CORPUS))
    buf = bytes((k * 131 + 7) & 255 for k in range(1 << 14))
    built = rejected = 0
    for f in files:
        try:
            ins = etprof.Inspector(etdump_path=f, debug_buffer_path=buf,
                                   delegate_metadata_parser=lambda raw: {"n": len(raw)},
                                   delegate_time_scale_converter=lambda n, t: t / 1e6)
            cols = ins._columns(True, include_delegate_debug_data=True)
            assert len(cols["debug_data"]) == len(cols["event_name"])
            for row in cols["debug_data"]:
                for v in row:
                    assert v is None or isinstance(v, (np.ndarray, list, int, float, bool))
            built += 1
        except etprof.InputError as e:
            assert e.file and e.reason, f
            rejected += 1
    assert built and rejected


def test_inspector_details_cycles_do_not_grow_rss():
    """300 Inspectors with debug data and metadata: RSS grows by less than 4 MB (a leaked
    result, model or debug buffer mapping would be far more)."""
    _np()
    from conftest import SANITIZED  # noqa: PLC0415

    dump = data("real/module_linear_intermediate_1x.etdp")
    dbuf = data("real/module_linear_intermediate_1x.debug.bin")

    def cycle():
        ins = etprof.Inspector(etdump_path=dump, debug_buffer_path=dbuf)
        ins._columns(True, include_delegate_debug_data=True)
        etprof.Inspector(etdump_path=data("flatc-built/backends.etdp"),
                         delegate_time_scale_converter=lambda n, t: t)._columns(True, True)

    def rss_kb():
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)

    for _ in range(50):
        cycle()
    import gc  # noqa: PLC0415

    gc.collect()
    before = rss_kb()
    for _ in range(300):
        cycle()
    gc.collect()
    if not SANITIZED:
        assert rss_kb() - before < 4096
