"""Profile.ops(htp_clock_ghz=G) against `etprof ops --htp-clock-ghz G --format json`: cycles rows
shown as an estimate of time (est_us) and the per-node wall-time estimate columns; values checked
by hand from the cycles rows themselves."""
import math

import pytest

import etprof
from conftest import cli_json, data

DUMP = "fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp"
PTE = "upstream/stories260k_hybrid_llama_qnn.pte"
RUNTRACE = "qnn-fixtures/runtrace_small.json"


def same(a, b):
    if a is None or b is None:
        return a is None and b is None or (isinstance(a, float) and math.isnan(a) and b is None)
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) if math.isnan(a) else \
            math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)
    return a == b


@pytest.mark.parametrize("ghz,tu", [(1.5, "us"), (0.9, "ns")])
def test_equal_to_the_command(ghz, tu):
    want = cli_json("ops", data(DUMP), "--pte", data(PTE), "--htp-clock-ghz", str(ghz),
                    "--time-unit", tu, "--format", "json")["rows"]
    with etprof.open(data(DUMP), data(PTE)) as p:
        got = p.ops(as_dict=True, htp_clock_ghz=ghz, time_unit=tu)
    cols = [c for c in want[0] if c != "samples"]
    for c in etprof.WALL_EST_COLUMNS:
        assert c in got
    names = list(got)
    k = names.index("operator")
    assert tuple(names[k + 1:k + 4]) == etprof.WALL_EST_COLUMNS
    assert len(got["name"]) == len(want)
    for i, row in enumerate(want):
        for c in cols:
            assert same(got[c][i], row[c]), (i, c, got[c][i], row[c])


def test_by_hand():
    ghz = 1.5
    with etprof.open(data(DUMP), data(PTE)) as p:
        cyc = p.ops(as_dict=True, samples="list")
        est = p.ops(as_dict=True, samples="list", htp_clock_ghz=ghz)
    acc = cyc["name"].index("Accelerator (execute) time (cycles)")
    excl = cyc["name"].index("Accelerator (execute excluding wait) time (us)")
    # ns of compute per cycle: the excluding-wait total over the cycles total (over the runs)
    ns_per_cycle = cyc["total"][excl] * 1000.0 / cyc["total"][acc]
    checked = 0
    for i, u in enumerate(cyc["unit"]):
        if u != "cycles":
            assert est["unit"][i] == u and same(est["p50"][i], cyc["p50"][i])
            continue
        assert est["unit"][i] == "est_us"
        assert math.isclose(est["p50"][i], cyc["p50"][i] / ghz / 1000.0, rel_tol=1e-12)
        assert all(math.isclose(a, b / ghz / 1000.0, rel_tol=1e-12)
                   for a, b in zip(est["samples"][i], cyc["samples"][i]))
        if cyc["name"][i].endswith("(cycles)") and est["wall_est_unit"][i] is not None:
            assert math.isclose(est["wall_est_total"][i],
                                cyc["total"][i] * ns_per_cycle / 1000.0, rel_tol=1e-9)
            checked += 1
    assert checked > 100  # the HTP nodes of the partition (MANIFEST: ~1500 node rows)


def test_clock_from_the_runtrace_and_errors():
    with etprof.open(data(DUMP), data(PTE), runtrace=data(RUNTRACE)) as p:
        got = p.ops(as_dict=True)
    want = cli_json("ops", data(DUMP), "--pte", data(PTE), "--runtrace", data(RUNTRACE),
                    "--format", "json")["rows"]
    assert ("wall_est_p50" in got) == ("wall_est_p50" in want[0])
    assert [r["unit"] for r in want] == got["unit"]
    with etprof.open(data(DUMP), data(PTE)) as p:
        assert "wall_est_p50" not in p.ops(as_dict=True)
        for bad in (0, -1, float("inf")):
            with pytest.raises(etprof.UsageError):
                p.ops(htp_clock_ghz=bad)
