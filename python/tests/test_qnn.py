"""Profile.qnn(): QNN's own files given to etprof.open (qhas=, optrace=, runtrace=, heap=)
joined to the dump's HTP nodes, against

- the command's JSON for the invocations of tests/tools/qnn_snapshot.sh that have an ETDump
  (`etprof qnn DUMP [--pte P [--method M]] --qhas Q [--runtrace R] [--heap H] --format json`,
  and every --sort key): ops rows (every key), summary and join;
- the deliberate differences documented in tests/data/qnn-fixtures/gen_stories_qhas.sh: 3
  ETDump-only nodes, 5 ops whose QHAS cycles are the ETDump's + 1000, 1 match by name only
  (OpId + 100000), 1 OpId conflict ("_renamed"), 2 QNN-only ops (OpIds 900001, 900002); with
  "exact", none of them (one run: every cycle equal).
"""
import json
import math
import os
import subprocess

import pytest

import etprof
from conftest import BIN, cli_json, data, child_env

QNN1 = "fake-qnn-backend/stories260k_qnn_kv_forward_1x.etdp"
QPTE = "upstream/stories260k_hybrid_llama_qnn.pte"
F = "qnn-fixtures"


def _same(a, b):
    if isinstance(a, float) or isinstance(b, float):
        if a is None or b is None:
            a, b = (float("nan") if a is None else a), (float("nan") if b is None else b)
        return float(a) == float(b) or (math.isnan(float(a)) and math.isnan(float(b)))
    return a == b


def _deep(want, got, where=""):
    if isinstance(want, dict):
        for k, v in want.items():
            assert k in got, where + "." + k
            _deep(v, got[k], where + "." + k)
    elif isinstance(want, list):
        if where.endswith("dominant_path.top_ops"):
            got = got[:len(want)]  # the command shows the first 5; the binding every op
        assert isinstance(got, list) and len(got) == len(want), where
        for i, (x, y) in enumerate(zip(want, got)):
            _deep(x, y, "%s[%d]" % (where, i))
    else:
        assert _same(want, got), (where, want, got)


def _check(want, q):
    ops = q.ops
    rows = want["ops"]
    assert len(ops["qnn_op"]) == len(rows)
    for i, r in enumerate(rows):
        for k, v in r.items():
            assert _same(v, ops[k][i]), (i, k, v, ops[k][i])
    assert q.rows_source == want["rows_source"]
    _deep(want["summary"], q.summary, "summary")
    _deep(want["join"], q.join, "join")
    if "soc" in want:  # Profile.qnn (with or without a program); etprof.qnn has none
        assert (want["soc"] is None) == (q.soc is None), (want["soc"], q.soc)
        if want["soc"] is not None:
            _deep(want["soc"], q.soc, "soc")


@pytest.fixture(scope="module")
def exact_qhas(tmp_path_factory):
    out = tmp_path_factory.mktemp("qnn") / "exact.json"
    with open(out, "w") as f:
        subprocess.run(["sh", data(F, "gen_stories_qhas.sh"), BIN, data(QNN1), "exact"],
                       stdout=f, check=True, env=child_env())
    return str(out)


CASES = [
    # (program, method, QNN files)
    (QPTE, "kv_forward", {"qhas": "stories260k_kv_qhas.json", "runtrace": "runtrace_small.json",
                          "heap": "heap_ok.txt"}),
    (QPTE, None, {"qhas": "stories260k_kv_qhas.json", "runtrace": "runtrace_small.json",
                  "heap": "heap_ok.txt"}),
    (None, None, {"qhas": "stories260k_kv_qhas.json"}),
]


def _cli_args(pte, method, files):
    a = [data(QNN1)] + (["--pte", data(pte)] if pte else []) + \
        (["--method", method] if method else [])
    for k, v in files.items():
        a += ["--" + k, v]
    return a


def _files(files):
    return {k: data(F, v) if not os.path.isabs(v) else v for k, v in files.items()}


@pytest.mark.parametrize("pte,method,files", CASES)
def test_qnn_join_equals_cli(pte, method, files):
    files = _files(files)
    want = cli_json("qnn", *_cli_args(pte, method, files))
    with etprof.open(data(QNN1), data(pte) if pte else None, method=method, **files) as p:
        assert p.qnn_files == dict({"qhas": None, "optrace": None, "runtrace": None,
                                    "heap": None}, **files)
        _check(want, p.qnn(as_dict=True))


def test_qnn_join_exact_equals_cli(exact_qhas):
    want = cli_json("qnn", data(QNN1), "--qhas", exact_qhas)
    with etprof.open(data(QNN1), qhas=exact_qhas) as p:
        q = p.qnn(as_dict=True)
    _check(want, q)
    j = q.join  # "exact": one run, nothing deliberately different
    assert j["matched"] == j["qnn_ops"] == j["etdump_nodes"]
    assert not j["etdump_only"] and not j["qnn_only"] and not j["conflicts"]
    assert j["cycle_agreement"]["verdict"] == "same_run"
    assert q.ops["etdump_cycles"] == q.ops["cycles"]


@pytest.mark.parametrize("sort", ["order", "cycles", "share", "dominant_path_cycles", "htp_ops",
                                  "dram_read_bytes", "etdump_cycles", "op_id", "qnn_op",
                                  "qnn_op_type"])
def test_qnn_sort_equals_cli(sort):
    files = _files(CASES[0][2])
    want = cli_json("qnn", *_cli_args(QPTE, "kv_forward", {"qhas": files["qhas"]}),
                    "--sort", sort)
    with etprof.open(data(QNN1), data(QPTE), method="kv_forward", qhas=files["qhas"]) as p:
        q = p.qnn(sort=sort, as_dict=True)
    assert q.ops["qnn_op"] == [r["qnn_op"] for r in want["ops"]]


def test_qnn_join_documented_differences():
    files = _files(CASES[0][2])
    with etprof.open(data(QNN1), data(QPTE), method="kv_forward", **files) as p:
        q = p.qnn()
        assert "1514 of 1517 joined to kv_forward" in repr(q)
    j = q.join
    assert len(j["etdump_only"]) == 3
    assert sorted(x["op_id"] for x in j["qnn_only"]) == [900001, 900002]
    assert [x["qnn_op_id"] - x["etdump_op_id"] for x in j["name_only"]] == [100000]
    assert [x["qnn_op"].endswith("_renamed") for x in j["conflicts"]] == [True]
    d = j["cycle_agreement"]["different_ops"]
    assert len(d) == 5 and all(x["qnn_cycles"] - x["etdump_cycles"] == 1000 for x in d)
    assert j["cycle_agreement"]["max_abs_diff_cycles"] == 1000
    assert j["method"] == "kv_forward" and j["instruction_id"] is not None
    ops = q.ops if isinstance(q.ops, dict) else q.ops.to_dict(orient="list")
    for name in ("qhas_only_a", "qhas_only_b"):
        i = ops["qnn_op"].index(name)
        assert math.isnan(ops["etdump_cycles"][i])


def test_qnn_errors():
    with etprof.open(data(QNN1)) as p:
        with pytest.raises(etprof.UsageError, match="qhas="):
            p.qnn()
    with pytest.raises(etprof.IOError) as ei:
        etprof.open(data(QNN1), qhas=data(F, "does_not_exist.json"))
    assert ei.value.file == data(F, "does_not_exist.json")
    rc_files = [f for f in sorted(os.listdir(data(F))) if f.startswith("qhas_bad_")]
    rc_files.append("qhas_missing_cycles.json")
    assert rc_files
    for f in rc_files:  # the command's error line, from open()
        r = subprocess.run([BIN, "qnn", data(QNN1), "--qhas", data(F, f)], capture_output=True,
                           text=True, env=child_env())
        with pytest.raises(etprof.InputError) as ei:
            etprof.open(data(QNN1), qhas=data(F, f))
        assert r.returncode == 1 and str(ei.value) == r.stderr.strip()[len("etprof: "):], f
    with etprof.open(data(QNN1), qhas=data(F, "stories260k_kv_qhas.json")) as p:
        with pytest.raises(etprof.UsageError):
            p.qnn(sort="nope")


@pytest.mark.parametrize("top,ghz", [(5, 1.5), (0, 0.8), (3, None)])
def test_qnn_top_and_clock_equal_cli(top, ghz):
    """--top and --htp-clock-ghz: the command's JSON, on the dump and without it."""
    files = _files({"qhas": "stories260k_kv_qhas.json", "runtrace": "runtrace_small.json"})
    extra = ["--top", str(top)] + (["--htp-clock-ghz", repr(ghz)] if ghz else [])
    want = cli_json("qnn", *_cli_args(QPTE, "kv_forward", files), *extra)
    with etprof.open(data(QNN1), data(QPTE), method="kv_forward", **files) as p:
        q = p.qnn(top=top, htp_clock_ghz=ghz, as_dict=True)
    _check(want, q)
    if ghz:
        assert q.summary["clock_ghz"] == ghz and q.summary["clock_source"] == "htp-clock-ghz"
    else:  # measured by the runtrace
        assert q.summary["clock_source"] == "runtrace"
    want = cli_json("qnn", *sum((["--" + k, v] for k, v in files.items()), []), *extra)
    # without a dump the command writes etdump_cycles null in every row; the binding has no
    # such column (nothing to join)
    assert all(r.pop("etdump_cycles", None) is None for r in want["ops"])
    want["join"] = want.get("join")  # no join member without a dump; the binding's is None
    _check(want, etprof.qnn(top=top, htp_clock_ghz=ghz, as_dict=True, **files))


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf")])
def test_qnn_clock_refused(bad):
    files = _files({"qhas": "stories260k_kv_qhas.json"})
    with pytest.raises(etprof.UsageError):
        etprof.qnn(htp_clock_ghz=bad, **files)
    with pytest.raises(etprof.UsageError):
        etprof.qnn(top=-1, **files)
