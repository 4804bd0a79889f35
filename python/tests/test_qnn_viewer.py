"""etprof.qnn_viewer(): qnn-profile-viewer output as `etprof qnn --profile-log/--profile-csv`
gives it. Expected values are read from the fixture's own text here (regular expressions), not
from etprof."""
import math
import re

import pytest

import etprof
from conftest import cli, cli_json, data

TXT = "qnn-fixtures/viewer_small.txt"
CSV = "qnn-fixtures/viewer_small.csv"


def fixture_executes(path):
    """Per 'Execute Stat N' of the viewer's text: its top-level (name, value, unit) lines and
    its indented node lines, parsed here."""
    out, cur = [], None
    for line in open(data(path), encoding="utf-8"):
        m = re.match(r"Execute Stat (\d+)", line)
        if m:
            cur = {"index": int(m.group(1)), "top": [], "nodes": []}
            out.append(cur)
            continue
        if cur is None:
            continue
        m = re.match(r"(\s*)(.+?) : \s*([0-9.]+)?\s+(\S+)\s*$", line)
        if not m:
            continue
        rec = (m.group(2), float(m.group(3)) if m.group(3) else None, m.group(4))
        (cur["nodes"] if m.group(1) else cur["top"]).append(rec)
    return out


def test_text_by_hand_and_equal_to_the_command():
    v = etprof.qnn_viewer(data(TXT), as_dict=True)
    assert v.facts == cli_json("qnn", "--profile-log", data(TXT))
    assert v.text == cli("qnn", "--profile-log", data(TXT))[1]
    want = fixture_executes(TXT)
    assert [e["index"] for e in v.facts["executes"]] == [w["index"] for w in want]
    ev = v.events
    for w in want:
        top = {n: (x, u) for n, x, u in w["top"]}
        acc = top["Accelerator (execute) time (cycles)"][0]
        excl = top["Accelerator (execute excluding wait) time"][0]
        rows = [i for i, x in enumerate(ev["execute"]) if x == w["index"] and ev["level"][i] == "node"]
        assert [ev["name"][i] for i in rows] == [n for n, _, _ in w["nodes"]]
        for i, (name, cyc, unit) in zip(rows, w["nodes"]):
            assert ev["value"][i] == cyc and ev["unit"][i] == "cycles"
            assert math.isclose(ev["share"][i], cyc / acc * 100.0, rel_tol=1e-12)
            assert math.isclose(ev["wall_est_us"][i], cyc / acc * excl, rel_tol=1e-12)
            m = re.search(r"OpId_(\d+)", name)
            assert ev["op_id"][i] == int(m.group(1))
        # the QTimer-tick "us" value: written / 19.2 (docs/qnn-profiling.md)
        k = [i for i, x in enumerate(ev["execute"])
             if x == w["index"] and ev["name"][i] == "Time for initial VTCM acquire"][0]
        written = top["Time for initial VTCM acquire"][0]
        assert ev["written_value"][k] == written and ev["qtimer_ticks_converted"][k]
        assert math.isclose(ev["value"][k], written / 19.2, rel_tol=1e-12)


def test_csv_equals_the_command_and_the_text():
    c = etprof.qnn_viewer(data(CSV), as_dict=True)
    assert c.facts == cli_json("qnn", "--profile-csv", data(CSV))
    assert c.facts["format"] == "csv"
    t = etprof.qnn_viewer(data(TXT), as_dict=True)
    # the same run written both ways: the same node cycles
    assert [x for x, l in zip(c.events["value"], c.events["level"]) if l == "node"] == \
        [x for x, l in zip(t.events["value"], t.events["level"]) if l == "node"]


def test_dataframe_and_errors():
    pd = pytest.importorskip("pandas")
    v = etprof.qnn_viewer(data(TXT))
    assert isinstance(v.events, pd.DataFrame)
    assert list(v.events.columns) == list(etprof.QNN_VIEWER_COLUMNS)
    assert str(v.events["op_id"].dtype) == "Int64"
    assert "QnnViewer" in repr(v)
    for bad in ("qnn-fixtures/viewer_bad_line.txt", "qnn-fixtures/viewer_bad_fields.csv",
                "qnn-fixtures/viewer_not_a_log.txt"):
        rc, _, err = cli("qnn", "--profile-csv" if bad.endswith(".csv") else "--profile-log",
                         data(bad))
        with pytest.raises(etprof.InputError) as e:
            etprof.qnn_viewer(data(bad))
        assert rc == 1
        assert err.strip() == "etprof: " + str(e.value)


def test_hostile_viewer_files(tmp_path):
    """Truncations and byte changes of both fixtures: a QnnViewer or an InputError, never
    another exception or a crash."""
    import random
    rnd = random.Random(7)
    n = 0
    for src in (TXT, CSV):
        raw = open(data(src), "rb").read()
        cases = [raw[:k] for k in range(0, len(raw), 29)]
        for _ in range(150):
            b = bytearray(raw)
            for _ in range(rnd.randint(1, 4)):
                b[rnd.randrange(len(b))] = rnd.choice(b"\x00:,\n 9-\xff\"")
            cases.append(bytes(b))
        for c in cases:
            p = tmp_path / ("v.csv" if src.endswith(".csv") else "v.txt")
            p.write_bytes(c)
            try:
                v = etprof.qnn_viewer(p, as_dict=True)
                assert isinstance(v.facts, dict)
            except etprof.InputError:
                pass
            n += 1
    assert n > 300
