"""The GIL is released during long library calls (open/verify, the ops computation, trace and
report writing, compare), and a Profile used from another thread meanwhile refuses with
UsageError instead of touching state the library is using (it must never crash).

A 20 MB dump from the build's etprof-gen makes the ops computation long enough (about 0.3 s)
for the main thread to run while a second thread is inside it: that the main thread runs at all
then shows the GIL was released; what it can and cannot do with the busy Profile is checked."""
import os
import subprocess
import sys
import threading
import time

import pytest

import etprof
from conftest import BIN, child_env

GEN = os.path.join(os.path.dirname(BIN), "bench", "etprof-gen")


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    if not os.path.exists(GEN):
        pytest.skip("etprof-gen not built at %s" % GEN)
    out = str(tmp_path_factory.mktemp("threads") / "big.etdp")
    subprocess.run([GEN, "--style", "cpu", "--size", "20M", "-q", "-o", out], check=True, env=child_env())
    return out


def _while_busy(p, work, during, attempts=8):
    """Runs work(p) in a thread; while p is busy, calls during(p) once (from this thread).
    Returns (whether busy was observed, the thread's result or exception).

    The switch interval is made huge meanwhile, so that this thread, once it has the GIL,
    keeps it until it blocks in join(): the worker can only give the GIL up by entering a
    library call that releases it, and cannot leave that call (which needs the GIL back)
    while during(p) runs -- deterministic, whatever the machine's load."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1000.0)
    try:
        return _while_busy_(p, work, during, attempts)
    finally:
        sys.setswitchinterval(old)


def _while_busy_(p, work, during, attempts):
    for _ in range(attempts):
        out = {}

        def run():
            try:
                out["result"] = work(p)
            except BaseException as e:  # noqa: BLE001 (reported to the test)
                out["error"] = e

        t = threading.Thread(target=run)
        t.start()
        seen = False
        while t.is_alive():
            time.sleep(0.0005)  # give the GIL to the worker until it enters the library
            if p.busy:
                seen = True
                during(p)
                break
        t.join()
        if seen:
            return True, out
        p = p.__class__(p.etdump)  # too fast this time: a fresh Profile (nothing computed)
    return False, out


def test_close_while_ops_runs_is_refused(big, tmp_path):
    want = etprof.open(big).ops(as_dict=True, samples="list")
    outcome = {}

    def during(p):
        # first, with nothing in between that could give up the GIL: close is refused
        with pytest.raises(etprof.UsageError, match="busy in another thread") as ei:
            p.close()
        outcome["close"] = ei.value.exit_code
        assert repr(p).endswith("(busy in another thread)>") and not p.closed
        # then every other entry point: refused while the worker is inside the library; the
        # worker may leave it meanwhile (pytest's machinery can give up the GIL), after which
        # a call succeeds -- either way nothing crashes and the worker's result is intact
        for name, call in (("summary", p.summary), ("ops", lambda: p.ops(as_dict=True)),
                           ("events", lambda: p.events(stream=True).__next__()),
                           ("tensors", lambda: p.tensors(as_dict=True)),
                           ("trace", lambda: p.trace(str(tmp_path / "t.json")))):
            try:
                call()
                outcome[name] = "ran"
            except etprof.UsageError as e:
                outcome[name] = "busy" if "busy in another thread" in str(e) else str(e)
            except etprof.InputError:  # tensors(): this dump logs none... or no buffer
                outcome[name] = "ran"

    seen, out = _while_busy(etprof.open(big), lambda p: p.ops(as_dict=True, samples="list"),
                            during)
    assert seen, "the ops computation never ran without the GIL"
    assert "error" not in out, out.get("error")
    assert out["result"] == want  # the refused calls changed nothing
    assert outcome["close"] == 2  # UsageError's exit code
    assert set(outcome.values()) <= {2, "busy", "ran"}, outcome


def test_trace_writing_releases_the_gil(big, tmp_path):
    p = etprof.open(big)
    p.ops(as_dict=True)  # computed: the thread below only writes
    calls = []

    def during(q):
        try:
            q.close()
            calls.append("closed")
        except etprof.UsageError:
            calls.append("busy")

    seen, out = _while_busy(p, lambda q: q.trace(str(tmp_path / "t.json")), during)
    assert seen and "error" not in out and out["result"]["slices"] > 0
    assert calls == ["busy"] and not p.closed
    assert os.path.getsize(tmp_path / "t.json") > 0
    p.close()


def test_profiles_in_parallel_threads(big):
    """One Profile per thread is the supported way: four threads open and compute the same
    dump at once; each result equals the sequential one."""
    want = etprof.open(big).ops(as_dict=True, samples="list")
    res, errs = [], []

    def run():
        try:
            with etprof.open(big) as p:
                res.append(p.ops(as_dict=True, samples="list"))
        except BaseException as e:  # noqa: BLE001
            errs.append(e)

    ts = [threading.Thread(target=run) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errs and len(res) == 4 and all(r == want for r in res)


def test_open_in_a_thread_while_closing_others(big):
    """Opening (verification without the GIL) in one thread while another opens and closes
    small Profiles: no crash, both finish."""
    small = os.path.join(os.environ.get("ETPROF_TEST_DATA", ""), "real", "add_pte_10x.etdp")
    if not os.path.exists(small):
        pytest.skip("test data")
    done = []

    def opener():
        for _ in range(3):
            with etprof.open(big) as p:
                done.append(p.summary()["runs"])

    t = threading.Thread(target=opener)
    t.start()
    n = 0
    while t.is_alive() or n < 10:
        with etprof.open(small) as q:
            q.ops(as_dict=True)
        n += 1
    t.join()
    assert len(done) == 3 and len(set(done)) == 1


def test_tree_document_releases_the_gil(big):
    """tree() builds and renders the library's document without the GIL (tens of ms on this
    dump): the main thread runs meanwhile, close() is refused, the result equals the
    sequential one."""
    p = etprof.open(big)
    want = p.tree()  # ops computed: the thread below only builds the document
    calls = []

    def during(q):
        try:
            q.close()
            calls.append("closed")
        except etprof.UsageError:
            calls.append("busy")

    seen, out = _while_busy(p, lambda q: q.tree(), during)
    assert seen, "tree() never ran without the GIL"
    assert "error" not in out and out["result"] == want
    assert calls == ["busy"] and not p.closed
    p.close()
