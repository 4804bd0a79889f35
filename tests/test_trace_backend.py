#!/usr/bin/env python3
"""trace without a program: a DELEGATE_CALL whose backend the other views infer from the events
inside it (etp_backend_infer) carries args.backend_inferred, and so do the events inside it
(docs/trace.md "args").

Expected values:
- the QNN dump's program names its delegate QnnBackend: the trace made with the program has
  args.backend "QnnBackend" on those events; made without it, the same events (block, event)
  carry backend_inferred "QnnBackend" and backend null;
- the backend fixtures (flatc-built/*.json, each built as one backend's events): summary's
  delegates[].backend_name with backend_source "inferred", the view the inference was first
  checked against (tests/test_backend_decoders.py);
- with a program, no event has backend_inferred.

    test_trace_backend.py ETPROF DATA_DIR TMP_DIR
"""
import json
import os
import subprocess
import sys

E, D, T = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(T, exist_ok=True)
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)


def trace(dump, *extra):
    out = os.path.join(T, "tb_%d.json" % len(os.listdir(T)))
    p = subprocess.run([E, "trace", dump, "-o", out, *extra], capture_output=True, text=True)
    check(p.returncode == 0, f"{dump} {extra}: trace exit {p.returncode}: {p.stderr}")
    return json.load(open(out))["traceEvents"] if p.returncode == 0 else []


def delegate_events(evs):
    """(block, event) -> args of real DELEGATE_CALL and delegate-internal slices"""
    return {(e["args"]["block"], e["args"]["event"]): e["args"] for e in evs
            if e.get("ph") == "X" and not e["args"].get("synthetic")
            and e["args"].get("kind") in ("delegate_call", "delegate_internal")}


# 1. QNN: the program's id, against the inference without it
dump = os.path.join(D, "fake-qnn-backend", "stories260k_qnn_kv_forward_1x.etdp")
pte = os.path.join(D, "upstream", "stories260k_hybrid_llama_qnn.pte")
with_p = delegate_events(trace(dump, "--pte", pte, "--method", "kv_forward"))
without = delegate_events(trace(dump))
calls = [k for k, a in with_p.items() if a["kind"] == "delegate_call"]
check(calls and all(with_p[k]["backend"] == "QnnBackend" for k in calls),
      "qnn: the program names every DELEGATE_CALL QnnBackend")
check(all("backend_inferred" not in a for a in with_p.values()),
      "qnn: backend_inferred with a program")
for k in calls:
    a = without.get(k, {})
    check(a.get("backend") is None and a.get("backend_inferred") == "QnnBackend",
          f"qnn: DELEGATE_CALL {k} without the program: {a.get('backend')} {a.get('backend_inferred')}")
# the events inside it (QNN's are synthetic slices: values without timestamps)
inner = [e["args"] for e in trace(dump) if e.get("ph") in ("X", "i")
         and e["args"].get("kind") == "delegate_internal"]
check(inner and all(a.get("backend_inferred") == "QnnBackend" for a in inner),
      "qnn: the events inside the DELEGATE_CALL")

# 2. the backend fixtures: as summary names them
seen = 0
for name in sorted(os.listdir(os.path.join(D, "flatc-built"))):
    if not name.endswith(".etdp"):
        continue
    path = os.path.join(D, "flatc-built", name)
    s = subprocess.run([E, "summary", path, "--format", "json"], capture_output=True, text=True)
    if s.returncode != 0:
        continue
    want = {d["backend_name"] for m in json.loads(s.stdout)["methods"] for d in m.get("delegates", [])
            if d.get("backend_source") == "inferred"}
    evs = delegate_events(trace(path))
    got = {a["backend_inferred"] for a in evs.values() if "backend_inferred" in a}
    check(got == want, f"{name}: trace infers {sorted(got)}, summary {sorted(want)}")
    seen += bool(want)
check(seen >= 2, f"only {seen} fixture(s) with an inferred backend")

for f in fails:
    print("FAIL:", f)
print(f"{len(fails)} failure(s)")
sys.exit(1 if fails else 0)
