"""Profile.tree(): the command's tree document (etp_tree_doc) as nested dicts.

- equal to json.loads of `etprof tree ... --format json` (a separate process, its own render)
  for every dump/program pairing of test_ops.CASES, with other statistics and time units, with
  an HTP clock (given, and measured from a runtrace) and with an ETRecord;
- the root's inclusive and exclusive values and every OPERATOR_CALL's against the per-run
  durations the test computes from events() by time containment (end - start, children found
  by their interval, not by the model's parent links), with numpy's percentiles.
"""
import math

import pytest

import etprof
from conftest import cli_json, data
from test_ops import CASES

numpy = pytest.importorskip("numpy")


def tree_cli(dump, pte, method, *extra):
    args = ["tree", data(dump)]
    if pte:
        args += ["--pte", data(pte)]
    if method:
        args += ["--method", method]
    return cli_json(*args, *extra)


@pytest.mark.parametrize("dump,pte,method", CASES)
def test_tree_equals_cli_json(dump, pte, method):
    with etprof.open(data(dump), data(pte) if pte else None, method=method) as p:
        got = p.tree()
        assert got == tree_cli(dump, pte, method)
        assert got["methods"] and got["methods"][0]["roots"]
        assert p.tree(stat="p90", time_unit="ns") == tree_cli(dump, pte, method, "--stat", "p90",
                                                             "--time-unit", "ns")


def test_tree_htp_clock_equals_cli():
    dump, pte = "fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp", \
        "upstream/stories260k_hybrid_llama_qnn.pte"
    with etprof.open(data(dump), data(pte), method="kv_forward") as p:
        t = p.tree(htp_clock_ghz=1.5)
        assert t == tree_cli(dump, pte, "kv_forward", "--htp-clock-ghz", "1.5")
        assert any("ESTIMATE" in n for n in t["notes"])
    rt = data("qnn-fixtures", "runtrace_small.json")
    d1 = "fake-qnn-backend/stories260k_qnn_kv_forward_1x.etdp"
    with etprof.open(data(d1), data(pte), method="kv_forward", runtrace=rt) as p:
        assert p.tree() == tree_cli(d1, pte, "kv_forward", "--runtrace", rt)


def test_tree_etrecord_equals_cli():
    dump, rec = data("upstream/etdump.etdp"), data("upstream/etrecord.bin")
    with etprof.open(dump, etrecord=rec) as p:
        t = p.tree()
    assert t == cli_json("tree", dump, "--etrecord", rec)
    assert any(n.startswith("ETRecord ") for n in t["notes"])


def test_tree_errors():
    with etprof.open(data("real/add_pte_10x.etdp")) as p:
        for bad in ("total", "p99"):
            with pytest.raises(etprof.UsageError, match="stat"):
                p.tree(stat=bad)
        with pytest.raises(etprof.UsageError, match="time_unit"):
            p.tree(time_unit="h")
        with pytest.raises(etprof.UsageError, match="htp_clock_ghz"):
            p.tree(htp_clock_ghz=-1)
    with pytest.raises(ValueError):
        p.tree()


def _runs_by_hand(p):
    """Per run (block with a Method::execute): (execute duration, [(OPERATOR_CALL duration,
    its kernel's duration)]) in ns, nesting decided by the intervals."""
    e = p.events(as_dict=True)
    n = len(e["block"])
    blocks = {}
    for i in range(n):
        if e["type"][i] == "profile":
            blocks.setdefault(e["block"][i], []).append(
                (e["label"][i], e["start_time"][i], e["end_time"][i]))
    runs = []
    for b in sorted(blocks):
        evs = blocks[b]
        ex = [x for x in evs if x[0] == "Method::execute"]
        if not ex:
            continue
        _, s, t = ex[0]
        calls = sorted(x for x in evs if x[0] == "OPERATOR_CALL" and s <= x[1] and x[2] <= t)
        kids = []
        for _, cs, ct in [(c[0], c[1], c[2]) for c in sorted(calls, key=lambda c: c[1])]:
            inner = [x for x in evs if x[0].startswith("native_call_") and cs <= x[1]
                     and x[2] <= ct]
            assert len(inner) == 1
            kids.append((ct - cs, inner[0][2] - inner[0][1]))
        runs.append((t - s, kids))
    return runs


@pytest.mark.parametrize("stat", ["p50", "avg", "p10"])
def test_tree_values_by_hand(stat):
    """bundled_program_10x: Method::execute > 3 OPERATOR_CALLs > one kernel each."""
    pct = {"p50": 50, "p10": 10}

    def st(v):
        return float(numpy.mean(v)) if stat == "avg" else float(numpy.percentile(v, pct[stat]))

    with etprof.open(data("real/bundled_program_10x.etdp"),
                     data("upstream/bundled_program.bpte")) as p:
        runs = _runs_by_hand(p)
        t = p.tree(stat=stat, time_unit="ns")
    assert len(runs) == 10 and all(len(k) == 3 for _, k in runs)
    root = t["methods"][0]["roots"][0]
    assert root["name"] == "Method::execute" and root["unit"] == "ns"
    incl = [r[0] for r in runs]
    excl = [r[0] - sum(c for c, _ in r[1]) for r in runs]
    assert math.isclose(root["inclusive"], st(incl), rel_tol=1e-12)
    assert math.isclose(root["exclusive"], st(excl), rel_tol=1e-12)
    assert root["overhead"] == root["exclusive"]
    calls = [c for c in root["children"] if c["name"] == "OPERATOR_CALL"]
    assert len(calls) == 3
    for k, c in enumerate(calls):
        ci = [r[1][k][0] for r in runs]
        ce = [r[1][k][0] - r[1][k][1] for r in runs]
        assert math.isclose(c["inclusive"], st(ci), rel_tol=1e-12)
        assert math.isclose(c["exclusive"], st(ce), rel_tol=1e-12)
        # shares are of totals over the runs, whatever the statistic (docs/json-contract.md)
        assert math.isclose(c["share_of_parent"], sum(ci) / sum(incl) * 100, rel_tol=1e-12)
        (kern,) = c["children"]
        assert math.isclose(kern["inclusive"], st([r[1][k][1] for r in runs]), rel_tol=1e-12)
    if stat == "avg":  # the mean is linear: a node is its children plus its exclusive part
        assert math.isclose(root["inclusive"],
                            sum(c["inclusive"] for c in calls) + root["exclusive"],
                            rel_tol=1e-12)
