"""method= against the files (issue 36 item 1): the fake-qnn-backend dump was written by the
runtime with --method_name kv_forward (tests/data/MANIFEST.md) and logs kv_forward's output
shapes; method="prefill_forward" is a UserWarning naming the evidence, method="kv_forward" is
silent."""
import warnings

import etprof

from conftest import data

DUMP = data("fake-qnn-backend", "stories260k_qnn_kv_forward_outputs_2x.etdp")
PTE = data("upstream", "stories260k_hybrid_llama_qnn.pte")


def _warnings(method):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with etprof.open(DUMP, PTE, method=method) as p:
            p.ops()
            p.summary()
        return [str(x.message) for x in w if issubclass(x.category, UserWarning)]


def test_contradicting_method_warns_once():
    w = _warnings("prefill_forward")
    assert len(w) == 1
    assert "--method prefill_forward contradicts the files" in w[0]
    assert "ran kv_forward" in w[0] and "debug_tensors" in w[0]


def test_agreeing_method_is_silent():
    assert _warnings("kv_forward") == []
