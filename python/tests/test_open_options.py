"""etprof.open() options that mirror the command's: tick_ns (--tick-ns), ticks (--ticks), and
a program given as bytes instead of a path. Expected values: the command's JSON on the same
files (an independent path through the library's CLI), and hand arithmetic (ns per tick)."""
import math

import pytest

import etprof
from conftest import cli_json, data

DUMP = "real/add_pte_10x.etdp"
PTE = "upstream/add.pte"
QNN = ("fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp",
       "upstream/stories260k_hybrid_llama_qnn.pte", "kv_forward")


def _eq(a, b):
    if a is None:
        return b is None or (isinstance(b, float) and math.isnan(b))
    return a == b


def _same_rows(cli_rows, cols, keys=("name", "p50", "total", "unit", "operator", "placement")):
    assert len(cli_rows) == len(cols["name"]) > 0
    for i, r in enumerate(cli_rows):
        for k in keys:
            assert _eq(r[k], cols[k][i]), (i, k, r[k], cols[k][i])


@pytest.mark.parametrize("ratio", [2.0, 0.5, 41.666])
def test_tick_ns_equals_cli(ratio):
    got = etprof.open(data(DUMP), data(PTE), tick_ns=ratio).ops(as_dict=True)
    ref = cli_json("ops", data(DUMP), "--pte", data(PTE), "--tick-ns", repr(ratio))["rows"]
    _same_rows(ref, got)
    # host times scale by the ratio against the default (1 ns per tick); hand arithmetic
    base = etprof.open(data(DUMP), data(PTE)).ops(as_dict=True)
    for a, b, u in zip(got["p50"], base["p50"], got["unit"]):
        if u == "us" and b:
            assert a == pytest.approx(b * ratio, rel=1e-12)


def test_ticks_equals_cli():
    got = etprof.open(data(DUMP), data(PTE), ticks=True).ops(as_dict=True)
    ref = cli_json("ops", data(DUMP), "--pte", data(PTE), "--ticks")["rows"]
    _same_rows(ref, got)
    assert set(got["unit"]) == {"ticks"}


def _runner_log(tmp_path):
    """The dump as the Arm bare-metal runner prints it on its console (docs/formats.md), written
    here with Python's base64."""
    import base64
    raw = open(data(DUMP), "rb").read()
    p = tmp_path / "uart.log"
    p.write_text("I [executorch:arm_executor_runner.cpp:412 main()] Model run: 1\n#[RUN THIS]\n"
                 "# Writing etdump.bin [base64]\necho \"%s\" | base64 -d >etdump.bin\n#[END]\n"
                 % base64.b64encode(raw).decode())
    return str(p)


def test_runner_log_is_read_in_ticks(tmp_path):
    """The runner counts Cortex-M PMU cycles: without a rate its times are ticks (a warning says
    why), as the command reads them; with a rate, the rate."""
    log = _runner_log(tmp_path)
    with pytest.warns(UserWarning, match="Arm bare-metal runner's serial log"):
        got = etprof.open(log, data(PTE)).ops(as_dict=True)
    ref = cli_json("ops", log, "--pte", data(PTE))["rows"]
    _same_rows(ref, got)
    assert set(got["unit"]) == {"ticks"}
    # 1 ns per tick given: the dump's own ns, shown in us (hand arithmetic: ticks / 1000)
    timed = etprof.open(log, data(PTE), tick_ns=1).ops(as_dict=True)
    for a, b, u in zip(timed["total"], got["total"], timed["unit"]):
        assert u == "us" and a == pytest.approx(b / 1000, rel=1e-12)


@pytest.mark.parametrize("kw", [dict(tick_ns=0), dict(tick_ns=-1), dict(tick_ns=float("inf")),
                                dict(tick_ns=2, tick_hz=1e9), dict(tick_ns=2, ticks=True),
                                dict(tick_hz=1e9, ticks=True)])
def test_tick_options_refused(kw):
    with pytest.raises(etprof.UsageError):
        etprof.open(data(DUMP), **kw)


@pytest.mark.parametrize("dump,pte,method", [(DUMP, PTE, None), QNN])
@pytest.mark.parametrize("kind", [bytes, bytearray, memoryview])
def test_program_as_bytes(dump, pte, method, kind):
    content = open(data(pte), "rb").read()
    got = etprof.open(data(dump), kind(content), method=method).ops(as_dict=True)
    args = ["ops", data(dump), "--pte", data(pte)] + (["--method", method] if method else [])
    _same_rows(cli_json(*args)["rows"], got)


def test_program_bytes_copied_and_named():
    buf = bytearray(open(data(PTE), "rb").read())
    p = etprof.open(data(DUMP), buf)
    buf[:] = b"\0" * len(buf)  # the Profile took a copy: later changes do not reach it
    assert p.pte == "<pte bytes>"
    assert p.ops(as_dict=True)["operator"][1] == "aten::add.out"


def test_program_bytes_errors_located():
    with pytest.raises(etprof.InputError) as e:
        etprof.open(data(DUMP), b"\0" * 64)
    assert e.value.file == "<pte bytes>"
    assert e.value.offset == 4
    # a truncated program: the error still names the bytes, never a crash
    content = open(data(PTE), "rb").read()
    for cut in (8, 100, len(content) // 2, len(content) - 1):
        with pytest.raises(etprof.InputError) as e:
            etprof.open(data(DUMP), content[:cut])
        assert e.value.file == "<pte bytes>"
