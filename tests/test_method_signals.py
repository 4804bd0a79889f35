#!/usr/bin/env python3
"""Telling apart methods of the same instruction structure (issue 10 item 2): the signals past the
structure (docs/cli.md, "Method resolution and the program check").

Independent facts:
- tests/data/MANIFEST.md: fake-qnn-backend/stories260k_qnn_kv_forward_outputs_2x.etdp was made with
  --method_name kv_forward --debug_level outputs; upstream/stories260k_hybrid_llama_qnn.pte has
  kv_forward and prefill_forward, one QnnBackend DelegateCall each, on the same segment.
- The declared output shapes of both methods and the dump's debug tensors are read here with flatc
  (schema/program.fbs, schema/etdump.fbs), a second decoder, never with etprof.
- The derived files (dumps with other tensor shapes, programs whose two methods run different
  inline blobs) are built here with flatc, so which method "ran" is known by construction.

    test_method_signals.py ETPROF DATA_DIR SCHEMA_DIR      (exit 77 when flatc is missing)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

E, D, S = sys.argv[1], sys.argv[2], sys.argv[3]
if not shutil.which("flatc"):
    print("skip: flatc not found (apt install flatbuffers-compiler; scripts/install-deps.sh --test)")
    sys.exit(77)
PTE = os.path.join(D, "upstream", "stories260k_hybrid_llama_qnn.pte")
OUT2 = os.path.join(D, "fake-qnn-backend", "stories260k_qnn_kv_forward_outputs_2x.etdp")
KV1 = os.path.join(D, "fake-qnn-backend", "stories260k_qnn_kv_forward_1x.etdp")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "tools"))
import flatc_io  # noqa: E402

T = tempfile.mkdtemp(prefix="etprof-signals-")
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)


def flatc_json(schema, binary, size_prefixed):
    return flatc_io.flatc_json(os.path.join(S, schema), binary, T, size_prefixed)


def flatc_bin(schema, obj, name, size_prefixed):
    return flatc_io.flatc_bin(os.path.join(S, schema), obj, name, T, size_prefixed)


def info(dump, pte, *extra):
    p = subprocess.run([E, "info", dump, "--pte", pte, "--format", "json", *extra],
                       capture_output=True, text=True)
    check(p.returncode == 0, f"info {os.path.basename(dump)}: exit {p.returncode}: {p.stderr}")
    if p.returncode:
        return []
    return [b for b in json.loads(p.stdout)["blocks"] if b["name"] == "Execute"]


# ---- 1. debug tensor shapes, on the real dump ----------------------------------------------------
prog = flatc_json("program.fbs", PTE, False)
plans = {pl["name"]: pl for pl in prog["execution_plan"]}
out_shapes = {name: sorted(tuple(pl["values"][i]["val"].get("sizes", [])) for i in pl["outputs"])
              for name, pl in plans.items() if name in ("kv_forward", "prefill_forward")}
check(set(out_shapes["kv_forward"]).isdisjoint(out_shapes["prefill_forward"]),
      "premise: kv_forward and prefill_forward outputs have different shapes")
dump = flatc_json("etdump.fbs", OUT2, True)
logged = sorted(tuple(ev["debug_event"]["debug_entry"]["tensor"]["sizes"])
                for rd in dump["run_data"][1:2] for ev in rd["events"] if "debug_event" in ev)
check(logged == out_shapes["kv_forward"], f"premise: the dump logs kv_forward's outputs {logged}")

blocks = info(OUT2, PTE)
check(len(blocks) == 2, f"outputs dump: {len(blocks)} Execute blocks, MANIFEST says 2")
for b in blocks:
    check(b["method"] == "kv_forward" and b["method_basis"] == "debug_tensors",
          f"outputs dump block {b['index']}: method {b['method']} basis {b['method_basis']}, "
          "want kv_forward from debug_tensors")
    check(b["method_candidate_names"] == [], f"block {b['index']}: candidates listed")
p = subprocess.run([E, "summary", OUT2, "--pte", PTE], capture_output=True, text=True)
check(p.returncode == 0 and "ambiguous" not in p.stdout and "kv_forward" in p.stdout,
      f"summary of the outputs dump still ambiguous or wrong: {p.stdout[:400]}")
# without a program there is nothing to decide
p = subprocess.run([E, "info", OUT2, "--format", "json"], capture_output=True, text=True)
check(all(b["method_basis"] == "none" for b in json.loads(p.stdout)["blocks"]),
      "no program: method_basis must be none")
# --method wins
for b in info(OUT2, PTE, "--method", "kv_forward"):
    check(b["method_basis"] == "option", f"--method: basis {b['method_basis']}")

# ---- 2. the same dump with prefill's shapes: prefill_forward; with shapes of neither: ambiguous ----
to_prefill = {(1, 1, 512): [1, 32, 512], (1, 4, 8, 1): [1, 4, 8, 32], (1, 4, 1, 8): [1, 4, 32, 8]}
for label, remap, want in (("prefill_shapes", lambda s: to_prefill[s], "prefill_forward"),
                           ("no_method_shapes", lambda s: list(s) + [3], None)):
    d = json.loads(json.dumps(dump))
    for rd in d["run_data"]:
        for ev in rd.get("events", []):
            if "debug_event" in ev:
                val = ev["debug_event"]["debug_entry"]["tensor"]
                val["sizes"] = remap(tuple(val["sizes"]))
                val["strides"] = [1] * len(val["sizes"])
    path = flatc_bin("etdump.fbs", d, label, True)
    for b in info(path, PTE):
        if want:
            check(b["method"] == want and b["method_basis"] == "debug_tensors",
                  f"{label}: method {b['method']} ({b['method_basis']}), want {want}")
        else:
            check(b["method"] is None and b["method_basis"] == "none" and
                  b["method_candidate_names"] == ["kv_forward", "prefill_forward"],
                  f"{label}: shapes no method declares must leave it ambiguous, got {b['method']}")

# ---- 3. delegate blobs: two methods of the same structure running different inline blobs -------
kv = flatc_json("etdump.fbs", KV1, True)
nodes = []
for ev in kv["run_data"][1]["events"]:
    s = ev.get("profile_event", {}).get("delegate_debug_id_str", "")
    if ":OpId_" in s:
        nodes.append(s.split(":OpId_")[0])
check(len(nodes) == 1512, f"premise: {len(nodes)} named QNN nodes, MANIFEST says 1512")


def blob(names):
    return {"data": list(b"QNNCTX\x00" + b"\x00".join(n.encode() for n in names) + b"\x00")}


def program(blobs, which):
    """Two methods 'alpha', 'beta': one QnnBackend DelegateCall each; method i runs blob which[i]."""
    pls = []
    for name, bi in zip(("alpha", "beta"), which):
        pls.append({"name": name, "values": [], "inputs": [], "outputs": [],
                    "chains": [{"inputs": [], "outputs": [], "instructions": [
                        {"instr_args_type": "DelegateCall",
                         "instr_args": {"delegate_index": 0, "args": []}}]}],
                    "operators": [],
                    "delegates": [{"id": "QnnBackend",
                                   "processed": {"location": "INLINE", "index": bi}}]})
    return {"version": 0, "execution_plan": pls, "backend_delegate_data": blobs}


holds = blob(nodes)
other = blob(["other_" + n for n in nodes[:50]])  # names that only contain no node name whole
for label, blobs, which, want in (
        ("alpha_holds", [holds, other], [0, 1], "alpha"),
        ("beta_holds", [other, holds], [0, 1], "beta"),
        ("shared_blob", [holds], [0, 0], None),
        ("neither_holds", [other, other], [0, 1], None)):
    path = flatc_bin("program.fbs", program(blobs, which), label, False)
    for b in info(KV1, path):
        if want:
            check(b["method"] == want and b["method_basis"] == "delegate_payload",
                  f"{label}: method {b['method']} ({b['method_basis']}), want {want}")
        else:
            check(b["method"] is None and b["method_candidate_names"] == ["alpha", "beta"],
                  f"{label}: must stay ambiguous, got {b['method']} ({b['method_basis']})")

shutil.rmtree(T, ignore_errors=True)
for f in fails:
    print("FAIL:", f)
print(f"{'FAIL' if fails else 'ok'}: method signals ({len(fails)} failures)")
sys.exit(1 if fails else 0)
