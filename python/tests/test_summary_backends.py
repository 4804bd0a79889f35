"""summary()["backend_figures"]: each backend's own figures (etp_backend_figures_get), equal to
`etprof summary --format json`'s member for the flatc-built backend dumps and real dumps, and
for Neutron (tests/data/flatc-built/neutron.json: two runs) the op time (function code != 0)
and the profiling-dump overhead (function code 0) summed here from the JSON's start/end times
(docs/backends.md)."""
import json

import pytest

import etprof
from conftest import cli_json, data

DUMPS = ["flatc-built/backends.etdp", "flatc-built/coreml.etdp", "flatc-built/neutron.etdp",
         "real/add_pte_10x.etdp", "synthetic/synth_qnn_mixed_small_3x.etdp"]


@pytest.mark.parametrize("dump", DUMPS)
def test_backend_figures_equal_cli(dump):
    with etprof.open(data(dump)) as p:
        for tu in ("us", "ns"):
            got = p.summary(time_unit=tu)["backend_figures"]
            assert got == cli_json("summary", data(dump), "--time-unit", tu)["backend_figures"]
            assert got["runs"] >= 1


def test_neutron_by_hand():
    with open(data("flatc-built", "neutron.json")) as f:
        src = json.load(f)
    op = dump = 0
    for blk in src["run_data"]:
        for ev in blk["events"]:
            pe = ev["profile_event"]
            if "delegate_debug_metadata" not in pe:
                continue
            d = pe["end_time"] - pe["start_time"]
            if pe["delegate_debug_metadata"][0] == 0:
                dump += d
            else:
                op += d
    runs = len(src["run_data"])
    with etprof.open(data("flatc-built", "neutron.etdp")) as p:
        n = p.summary(time_unit="ns")["backend_figures"]["neutron"]
    assert n["op_time"] == {"total": op, "per_run": op / runs, "unit": "ns"}
    assert n["profiling_dump_overhead"]["total"] == dump
    assert n["profiling_dump_events"] == runs
