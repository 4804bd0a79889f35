"""Profile.explain(): the library's explain document (etp_explain_doc) and typed facts.

- ``.text`` equals `etprof explain ...` stdout byte for byte (a separate process rendering the
  same document), with and without a program, in us and ns, and with QNN's own files (QHAS,
  runtrace, heap, optrace) given to open() as the command's options;
- ``.json`` / ``.findings`` equal the command's `--format json`; the structured findings have
  the same ids and methods, and their ``answer`` is the JSON's;
- by hand: the answer's "Method::execute = X us" is the p50 (numpy) of the per-run
  Method::execute durations read from events(), printed with the command's precision rule.
"""
import json

import pytest

import etprof
from conftest import cli, data

QPTE = "upstream/stories260k_hybrid_llama_qnn.pte"
CASES = [
    ("fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp", QPTE, "kv_forward", {}),
    ("real/add_pte_10x.etdp", "upstream/add.pte", None, {}),
    ("real/module_linear_10x.etdp", None, None, {}),
    ("synthetic/synth_qnn_mixed_small_3x.etdp", None, None, {}),
    ("ethosu-partial-delegation/mobilenet_v2_ethosu_N_partial_1x.etdp",
     "ethosu-partial-delegation/pte/mobilenet_v2_ethosu_N.pte", None, {}),
    ("fake-qnn-backend/stories260k_qnn_kv_forward_1x.etdp", QPTE, "kv_forward",
     {"qhas": "stories260k_kv_qhas.json", "runtrace": "runtrace_small.json",
      "heap": "heap_ok.txt", "optrace": "optrace_small.json"}),
]


def run_cli(dump, pte, method, qf, *extra):
    args = ["explain", data(dump)] + (["--pte", data(pte)] if pte else []) + \
        (["--method", method] if method else [])
    for k, v in qf.items():
        args += ["--" + k, data("qnn-fixtures", v)]
    rc, out, err = cli(*args, *extra)
    assert rc == 0, err
    return out


@pytest.mark.parametrize("dump,pte,method,qf", CASES)
def test_explain_text_and_json_equal_command(dump, pte, method, qf):
    kw = {k: data("qnn-fixtures", v) for k, v in qf.items()}
    with etprof.open(data(dump), data(pte) if pte else None, method=method, **kw) as p:
        x = p.explain()
        assert isinstance(x, etprof.Explain) and isinstance(x, list)
        assert x.text == run_cli(dump, pte, method, qf)
        want = json.loads(run_cli(dump, pte, method, qf, "--format", "json"))
        assert x.json == want and x.findings == want["findings"]
        assert [(f.id, f.method) for f in x] == [(w["id"], w["method"]) for w in want["findings"]]
        for f, w in zip(x, want["findings"]):
            assert f.answer == w["answer"] and f.question == w["question"]
        assert p.explain(time_unit="ns").text == run_cli(dump, pte, method, qf,
                                                         "--time-unit", "ns")
        if qf:
            assert "hmx_vs_hvx" in [f.id for f in x]


def test_explain_method_execute_by_hand():
    np = pytest.importorskip("numpy")
    with etprof.open(data("real/add_pte_10x.etdp"), data("upstream/add.pte")) as p:
        e = p.events(as_dict=True)
        durs = [e["end_time"][i] - e["start_time"][i] for i in range(len(e["label"]))
                if e["label"][i] == "Method::execute"]
        x = p.explain()
    assert len(durs) == 10
    v = float(np.percentile(durs, 50)) / 1e3
    s = "%.*f us" % (1 if abs(v) >= 100 else 2 if abs(v) >= 1 else 3, v)
    (same,) = [f for f in x if f.id == "same_thing"]
    assert "Method::execute = " + s in same.answer
    assert "Method::execute = " + s in x.text


def test_explain_errors():
    with etprof.open(data("real/add_pte_10x.etdp")) as p:
        with pytest.raises(etprof.UsageError, match="time_unit"):
            p.explain(time_unit="h")
        with pytest.raises(etprof.UsageError, match="htp_clock_ghz"):
            p.explain(htp_clock_ghz=0)
    with pytest.raises(ValueError):
        p.explain()
