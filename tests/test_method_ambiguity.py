#!/usr/bin/env python3
"""Method ambiguity (issue 10 item 2): a run whose instructions fit several methods of the program
is never attributed to one of them silently.

Independent facts (tests/data/MANIFEST.md): upstream/stories260k_hybrid_llama_qnn.pte has the
methods kv_forward/prefill_forward (one QnnBackend DELEGATE_CALL each, same structure);
fake-qnn-backend/stories260k_qnn_prefill_forward_1x.etdp was made with --method_name
prefill_forward, stories260k_qnn_kv_forward_10x.etdp with --method_name kv_forward. The dumps
carry no method name, so without --method both dumps are ambiguous: every view says method null /
"(ambiguous: kv_forward, prefill_forward)", names the candidates and --method; with --method the
named method is shown and no ambiguity note.

    test_method_ambiguity.py ETPROF DATA_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

E, D = sys.argv[1], sys.argv[2]
PTE = os.path.join(D, "upstream", "stories260k_hybrid_llama_qnn.pte")
PRE = os.path.join(D, "fake-qnn-backend", "stories260k_qnn_prefill_forward_1x.etdp")
KV = os.path.join(D, "fake-qnn-backend", "stories260k_qnn_kv_forward_10x.etdp")
CANDS = ["kv_forward", "prefill_forward"]
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)


def run(*args):
    p = subprocess.run([E, *args], capture_output=True, text=True)
    # the dump's file name holds the method's name: not a claim about the method
    out = p.stdout
    for a in args:
        if a.endswith(".etdp"):
            out = out.replace(a, "<dump>").replace(os.path.basename(a), "<dump>")
    return p.returncode, out, p.stderr


VIEWS = ["summary", "ops", "tree", "explain", "info"]

for dump, truth in ((PRE, "prefill_forward"), (KV, "kv_forward")):
    name = os.path.basename(dump)
    other = [c for c in CANDS if c != truth][0]
    # --- tables: never one candidate as the method; the note names the candidates and --method
    for v in VIEWS:
        rc, out, err = run(v, dump, "--pte", PTE)
        check(rc == 0, f"{v} {name}: exit {rc}: {err}")
        check("(ambiguous" in out, f"{v} {name}: table does not say ambiguous")
        if v != "info":
            check("--method NAME" in out and "kv_forward, prefill_forward" in out,
                  f"{v} {name}: note does not name the candidates and --method")
        for line in out.splitlines():
            for c in CANDS:
                if c in line:
                    check("ambiguous" in line or "kv_forward, prefill_forward" in line,
                          f"{v} {name}: a line names {c} as the method: {line!r}")
    # --- JSON
    rc, out, _ = run("summary", dump, "--pte", PTE, "--format", "json")
    j = json.loads(out)
    check([m["name"] for m in j["methods"]] == [None], f"summary json {name}: {j['methods']}")
    check(j["methods"][0].get("method_candidates") == CANDS, f"summary json {name} candidates")
    check(any("--method NAME" in n for n in j["notes"]), f"summary json {name}: no note")
    rc, out, _ = run("tree", dump, "--pte", PTE, "--format", "json")
    j = json.loads(out)
    check([(m["name"], m.get("method_candidates")) for m in j["methods"]] == [(None, CANDS)],
          f"tree json {name}")
    rc, out, _ = run("ops", dump, "--pte", PTE, "--format", "json")
    rest = out.replace("kv_forward, prefill_forward", "")
    check("--method NAME" in out and truth not in rest and other not in rest,
          f"ops json {name}: names a method")
    rc, out, _ = run("info", dump, "--pte", PTE, "--format", "json")
    j = json.loads(out)
    runs = [b for b in j["blocks"] if b["name"] == "Execute"]
    check(runs and all(b["method"] is None and b["method_candidate_names"] == CANDS and
                       b["method_candidates"] == 2 for b in runs), f"info json {name}")
    rc, out, _ = run("diff", dump, dump, "--pte", PTE, "--format", "json")
    j = json.loads(out)
    check([(m["method"], m.get("method_candidates")) for m in j["methods"]] == [(None, CANDS)],
          f"diff json {name}: {[(m['method'], m.get('method_candidates')) for m in j['methods']]}")
    check(any("--method NAME" in n for n in j["notes"]), f"diff json {name}: no note")
    with tempfile.TemporaryDirectory() as t:
        html = os.path.join(t, "r.html")
        rc, _, err = run("report", dump, "--pte", PTE, "-o", html)
        check(rc == 0, f"report {name}: {err}")
        s = open(html, encoding="utf-8").read() if rc == 0 else ""
        check("--method NAME settles it" in s, f"report {name}: no ambiguity note")
        check(f">{truth}<" not in s and f">{other}<" not in s, f"report {name}: a bare method cell")
    # --- --method settles it
    rc, out, _ = run("summary", dump, "--pte", PTE, "--method", truth, "--format", "json")
    j = json.loads(out)
    check([m["name"] for m in j["methods"]] == [truth], f"--method {truth} {name}: {j['methods']}")
    check(j["methods"][0].get("method_candidates") == [], f"--method {truth}: candidates")
    check(not any("--method NAME" in n for n in j["notes"]), f"--method {truth}: note left")
    rc, out, _ = run("summary", dump, "--pte", PTE, "--method", truth)
    check("ambiguous" not in out and truth in out, f"--method {truth} table {name}")

for f in fails:
    print("FAIL:", f)
print(f"method_ambiguity: {len(fails)} failure(s)")
sys.exit(1 if fails else 0)
