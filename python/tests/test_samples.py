"""Per-run samples against durations decoded independently: flatc (schema/etdump.fbs) to JSON,
end_time - start_time per event, summed per Execute block (one run each)."""
import json
import os
import subprocess

import pytest

import etprof
from conftest import SCHEMA, data


def flatc_json(flatc, path, tmp):
    subprocess.run([flatc, "--json", "--strict-json", "--defaults-json", "--size-prefixed",
                    "--raw-binary", "-o", str(tmp), os.path.join(SCHEMA, "etdump.fbs"), "--",
                    path], check=True)
    base = os.path.splitext(os.path.basename(path))[0]
    with open(os.path.join(str(tmp), base + ".json")) as f:
        return json.load(f)


def per_run_ns(doc):
    """{event name: [per-run sum of end - start (ns)]} over the Execute blocks."""
    runs = {}
    blocks = [b for b in doc["run_data"] if b.get("name") == "Execute"]
    for k, b in enumerate(blocks):
        for e in b.get("events", []):
            p = e.get("profile_event")
            if not p:
                continue
            v = runs.setdefault(p["name"], [0] * len(blocks))
            v[k] += p["end_time"] - p["start_time"]
    return runs, len(blocks)


@pytest.mark.parametrize("dump,pte", [("real/add_pte_10x.etdp", "upstream/add.pte"),
                                      ("real/bundled_program_10x.etdp",
                                       "upstream/bundled_program.bpte")])
def test_samples_equal_flatc_durations(flatc, tmp_path, dump, pte):
    expect, nruns = per_run_ns(flatc_json(flatc, data(dump), tmp_path))
    assert nruns == 10  # MANIFEST: 10 x Execute
    with etprof.open(data(dump), data(pte)) as p:
        ns = p.ops(all=True, time_unit="ns", as_dict=True, samples="list")
        us = p.ops(all=True, as_dict=True, samples="list")
    seen = set()
    for i, name in enumerate(ns["name"]):
        if name not in expect:
            continue
        if name in ("OPERATOR_CALL",) or name.startswith("native_call_"):
            # several instructions may share the name (bundled_program: 3 OPERATOR_CALL): sum
            # the rows of that name per run
            continue
        assert ns["samples"][i] == [float(x) for x in expect[name]], name
        assert us["samples"][i] == [x / 1000.0 for x in expect[name]], name
        seen.add(name)
    # names that occur on several rows: per run, the rows' samples add up to the flatc sum
    for name, want in expect.items():
        rows = [i for i, n in enumerate(ns["name"]) if n == name]
        assert rows, name
        got = [sum(ns["samples"][i][k] for i in rows) for k in range(nruns)]
        assert got == [float(x) for x in want], name
        seen.add(name)
    assert "Method::execute" in seen and "OPERATOR_CALL" in seen


def test_samples_statistics_numpy(flatc, tmp_path):
    """p10/p50/p90/avg of the row equal numpy's over the flatc durations (numpy defaults)."""
    np = pytest.importorskip("numpy")
    expect, _ = per_run_ns(flatc_json(flatc, data("real/add_pte_10x.etdp"), tmp_path))
    with etprof.open(data("real/add_pte_10x.etdp"), data("upstream/add.pte")) as p:
        cols = p.ops(time_unit="ns", as_dict=True)
    i = cols["name"].index("native_call_add.out")
    v = np.array(expect["native_call_add.out"], dtype=float)
    for q in (10, 50, 90):
        assert cols["p%d" % q][i] == pytest.approx(np.percentile(v, q), rel=1e-12)
    assert cols["avg"][i] == pytest.approx(v.mean(), rel=1e-12)
    assert cols["count"][i] == 10


def test_samples_numpy_arrays(flatc, tmp_path):
    """With numpy, each samples cell is a float64 ndarray (the default, and samples="numpy")
    holding the flatc-decoded per-run durations; samples="list" gives lists; a bad choice is
    a UsageError."""
    np = pytest.importorskip("numpy")
    expect, nruns = per_run_ns(flatc_json(flatc, data("real/add_pte_10x.etdp"), tmp_path))
    with etprof.open(data("real/add_pte_10x.etdp"), data("upstream/add.pte")) as p:
        auto = p.ops(time_unit="ns", as_dict=True)
        arr = p.ops(time_unit="ns", as_dict=True, samples="numpy")
        lst = p.ops(time_unit="ns", as_dict=True, samples="list")
        df = p.ops(time_unit="ns")
        with pytest.raises(etprof.UsageError):
            p.ops(samples="tuple")
    i = auto["name"].index("native_call_add.out")
    for cols in (auto, arr):
        assert all(isinstance(s, np.ndarray) and s.dtype == np.float64 for s in cols["samples"])
        assert cols["samples"][i].tolist() == [float(x) for x in expect["native_call_add.out"]]
    assert all(type(s) is list for s in lst["samples"])
    assert lst["samples"][i] == [float(x) for x in expect["native_call_add.out"]]
    assert len(arr["samples"][i]) == nruns
    if not isinstance(df, dict):
        assert isinstance(df["samples"].iloc[i], np.ndarray)
        assert df["samples"].iloc[i].tolist() == lst["samples"][i]


def test_samples_without_numpy(monkeypatch):
    """Without numpy (import blocked): "auto" gives lists, "numpy" a clear ImportError."""
    import sys

    monkeypatch.setitem(sys.modules, "numpy", None)
    with etprof.open(data("real/add_pte_10x.etdp"), data("upstream/add.pte")) as p:
        cols = p.ops(as_dict=True)
        assert all(type(s) is list and len(s) == 10 for s in cols["samples"])
        with pytest.raises(ImportError, match="python3-numpy"):
            p.ops(as_dict=True, samples="numpy")
