"""The memory budget bounds each computation, not a Python session (docs/python.md "Speed and
memory"): results a session keeps give their share of the budget back, so that a second Profile
of the same dump computes under a budget that one computation fits in, and a pass driven from
Python (events) leaves no block behind."""
import os
import subprocess
import sys

from conftest import data

DUMP = "fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp"
PTE = "upstream/stories260k_hybrid_llama_qnn.pte"

# in a child process: the budget is read from the environment at each computation
SCRIPT = r"""
import sys, etprof
dump, pte, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
kept = []
for i in range(n):
    p = etprof.open(dump, pte)
    rows = p.ops(as_dict=True)
    ev = sum(1 for _ in p.events(stream=True))
    kept.append((p, rows, ev))
    print(i, len(rows["name"]), ev, flush=True)
"""


def run(budget_mib, n):
    env = dict(os.environ, ETPROF_MEMORY_BUDGET=str(budget_mib))
    return subprocess.run([sys.executable, "-c", SCRIPT, data(DUMP), data(PTE), str(n)],
                          env=env, capture_output=True, text=True)


def test_one_computation_fits_then_many_sessions_fit():
    # 1,512 rows x 1,664 bytes charged per row (src/model_int.h ETP_MEM_PER_ROW) = 2.4 MiB for
    # one result: a 4 MiB budget fits one computation but not two results held at once
    r = run(4, 1)
    assert r.returncode == 0, r.stderr
    r = run(4, 6)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.split("\n")
    assert [l.split()[0] for l in lines if l] == [str(i) for i in range(6)]
    # every session saw the same rows and events
    assert len({tuple(l.split()[1:]) for l in lines if l}) == 1


def test_a_budget_below_one_computation_still_refuses():
    r = run(1, 1)
    assert r.returncode != 0
    assert "memory budget of 1.0 MiB" in r.stderr
