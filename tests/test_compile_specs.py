#!/usr/bin/env python3
"""What a program's compile specs tell: the SoC a QNN delegate was compiled for, read from its
"qnn_compile_spec" (etp_qnn_program_soc: `info P.pte`, `qnn DUMP --pte P --qhas Q`, the report),
and the specs whose values are text (`info P.pte`: JSON value_text, "spec" lines).

Independent facts:
- the real program (tests/data/upstream/stories260k_hybrid_llama_qnn.pte) is decoded here with
  flatc: schema/program.fbs gives each delegate's compile specs, and the spec's bytes are decoded
  again by flatc with the schema below, written here from the format facts (QnnExecuTorchOptions'
  field 0 is SocInfo {soc_model, htp_info: {htp_arch, vtcm_size_in_mb}}), never with etprof;
- the crafted programs are built here with flatc, so their SoCs are known by construction;
- the peak VTCM share is computed here from the QHAS fixture's peak_vtcm_alloc.

- the Ethos-U program's specs are decoded by flatc (schema/program.fbs) and read as UTF-8 here.

    test_compile_specs.py ETPROF DATA_DIR SCHEMA_DIR      (exit 77 when flatc is missing)
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

E, D, S = sys.argv[1], sys.argv[2], sys.argv[3]
if not shutil.which("flatc"):
    print("skip: flatc not found (apt install flatbuffers-compiler; scripts/install-deps.sh --test)")
    sys.exit(77)
PTE = os.path.join(D, "upstream", "stories260k_hybrid_llama_qnn.pte")
KV1 = os.path.join(D, "fake-qnn-backend", "stories260k_qnn_kv_forward_1x.etdp")
SQ = os.path.join(D, "qnn-fixtures", "stories260k_kv_qhas.json")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "tools"))
import flatc_io  # noqa: E402

T = tempfile.mkdtemp(prefix="etprof-soc-")
fails = []

# the first table of the spec, as the format facts give it (field order = id)
SOC_FBS = os.path.join(T, "socinfo.fbs")
open(SOC_FBS, "w").write("""
namespace t;
table HtpInfo { htp_arch: int; vtcm_size_in_mb: uint; }
table SocInfo { soc_model: int; htp_info: HtpInfo; }
table Options { soc_info: SocInfo; }
root_type Options;
""")


def check(cond, what):
    if not cond:
        fails.append(what)


def run(*args):
    return subprocess.run([E, *args], capture_output=True, text=True)


def flatc_json(schema, binary):
    return flatc_io.flatc_json(schema, binary, T, defaults=True)


def flatc_bin(schema, obj, name):
    return flatc_io.flatc_bin(schema, obj, name, T)


# ---- 1. the real program: flatc's decoding of its specs against etprof's ----------------------
prog = flatc_json(os.path.join(S, "program.fbs"), PTE)
specs = [(pl["name"], c["value"]) for pl in prog["execution_plan"] for dl in pl.get("delegates", [])
         if dl["id"] == "QnnBackend" for c in dl.get("compile_specs", []) if c["key"] == "qnn_compile_spec"]
check(len(specs) == 2, f"premise: 2 qnn_compile_specs (kv_forward, prefill_forward), got {len(specs)}")
decoded = []
for k, (name, value) in enumerate(specs):
    path = os.path.join(T, f"spec{k}.bin")
    open(path, "wb").write(bytes(value))
    decoded.append(flatc_json(SOC_FBS, path)["soc_info"])
want = decoded[0]
check(all(d == want for d in decoded), f"premise: both methods name one SoC: {decoded}")
vtcm = want["htp_info"]["vtcm_size_in_mb"] * 1048576
p = run("info", PTE, "-f", "json")
check(p.returncode == 0, f"info json: exit {p.returncode}: {p.stderr}")
if p.returncode == 0:
    soc = json.loads(p.stdout)["qnn_soc"]
    check(soc is not None and soc["model_id"] == want["soc_model"] and soc["htp_arch"] == want["htp_info"]["htp_arch"]
          and soc["vtcm_budget_bytes"] == vtcm and soc["specs"] == 2 and soc["differs"] is False,
          f"info qnn_soc {soc}, flatc {want}")
    # the chipset's name: QcomChipset 57 is SM8650 (ExecuTorch's qc_compiler_spec.fbs)
    check(soc and soc["model"] == ("SM8650" if want["soc_model"] == 57 else soc["model"]), f"model name {soc}")
p = run("info", PTE)
check(re.search(r"^qnn soc\s+compiled for SM8650, HTP V%d, VTCM budget %d MiB \(qnn_compile_spec\)$"
                % (want["htp_info"]["htp_arch"], want["htp_info"]["vtcm_size_in_mb"]), p.stdout, re.M),
      f"info table line: {p.stdout[:300]}")

# qnn with the dump, the program and a QHAS: the budget and the peak's share of it
p = run("qnn", KV1, "--pte", PTE, "--method", "kv_forward", "--qhas", SQ, "-f", "json")
check(p.returncode == 0, f"qnn json: exit {p.returncode}: {p.stderr}")
if p.returncode == 0:
    j = json.loads(p.stdout)
    peak = json.load(open(SQ))["data"]["htp_overall_summary"]["data"][0]["peak_vtcm_alloc"]
    soc = j["soc"]
    check(soc and soc["vtcm_budget_bytes"] == vtcm and soc["model_id"] == want["soc_model"],
          f"qnn soc {soc}")
    check(soc and abs(soc["peak_vtcm_share"] - peak * 100 / vtcm) < 1e-9,
          f"peak share {soc and soc['peak_vtcm_share']}, want {peak * 100 / vtcm}")
p = run("qnn", KV1, "--pte", PTE, "--method", "kv_forward", "--qhas", SQ)
m = re.search(r"^VTCM budget\s+(\d+)\s+bytes\s+compiled for SM8650, HTP V(\d+)", p.stdout, re.M)
check(m and int(m.group(1)) == vtcm and int(m.group(2)) == want["htp_info"]["htp_arch"],
      f"qnn table VTCM budget line: {p.stdout[:900]}")
# without --pte: nothing is claimed
p = run("qnn", KV1, "--qhas", SQ, "-f", "json")
check(p.returncode == 0 and json.loads(p.stdout)["soc"] is None, "qnn without --pte: soc null")
# summary's header says what the program was compiled for; without the program, nothing
p = run("summary", KV1, "--pte", PTE)
check(re.search(r"^QNN\s+compiled for SM8650, HTP V%d, VTCM budget %d MiB \(the program's qnn_compile_spec\)$"
                % (want["htp_info"]["htp_arch"], want["htp_info"]["vtcm_size_in_mb"]), p.stdout, re.M),
      f"summary QNN line: {p.stdout[:400]}")
check("compiled for" not in run("summary", KV1).stdout, "summary without --pte: no QNN line")
# explain's memory answer: the peak as a share of the budget, or the budget alone without QNN files
p = run("explain", KV1, "--pte", PTE, "--method", "kv_forward", "--qhas", SQ)
flat = re.sub(r"\s+", " ", p.stdout)
peak = json.load(open(SQ))["data"]["htp_overall_summary"]["data"][0]["peak_vtcm_alloc"]
check("%.1f%% of the %d MiB VTCM budget the program's QNN graphs were compiled for (SM8650, HTP V%d)"
      % (peak * 100 / vtcm, vtcm >> 20, want["htp_info"]["htp_arch"]) in flat, f"explain memory: {flat[:1500]}")
p = run("explain", KV1, "--pte", PTE, "--method", "kv_forward", "-f", "json")
fa = [f["facts"] for f in json.loads(p.stdout)["findings"] if f["id"] == "memory_utilization"]
check(fa and fa[0]["vtcm_budget_bytes"] == vtcm and fa[0]["peak_vtcm_share"] is None and
      fa[0]["soc_model"] == "SM8650" and fa[0]["soc_model_id"] == want["soc_model"] and
      fa[0]["htp_arch"] == want["htp_info"]["htp_arch"], f"explain facts without QNN files: {fa}")
flat = re.sub(r"\s+", " ", run("explain", KV1, "--pte", PTE, "--method", "kv_forward").stdout)
check("compiled for a VTCM budget of %d MiB (SM8650, HTP V%d)" % (vtcm >> 20, want["htp_info"]["htp_arch"])
      in flat, "explain without QNN files names the budget")
p = run("explain", KV1, "-f", "json")
fa = [f["facts"] for f in json.loads(p.stdout)["findings"] if f["id"] == "memory_utilization"]
check(fa and fa[0]["vtcm_budget_bytes"] is None and fa[0]["soc_model"] is None, f"explain without --pte: {fa}")
# the report: the budget card
html = os.path.join(T, "r.html")
p = run("report", KV1, "--pte", PTE, "--method", "kv_forward", "--qhas", SQ, "-o", html)
check(p.returncode == 0, f"report: exit {p.returncode}: {p.stderr}")
if p.returncode == 0:
    text = open(html, encoding="utf-8").read()
    m = re.search(r'id="qnn-vtcm-budget"><div class="k">VTCM budget</div><div class="v">(\d+)', text)
    check(m and int(m.group(1)) == vtcm, "report VTCM budget card")

# ---- 2. crafted programs: two SoCs, an unreadable spec, no spec --------------------------------
def spec_bytes(name, soc_model, arch, mb):
    b = flatc_bin(SOC_FBS, {"soc_info": {"soc_model": soc_model,
                                         "htp_info": {"htp_arch": arch, "vtcm_size_in_mb": mb}}}, name)
    return list(open(b, "rb").read())


def program(values):
    """One method; delegate i is a QnnBackend with qnn_compile_spec values[i] (None: no spec)."""
    dels = [{"id": "QnnBackend", "processed": {"location": "INLINE", "index": 0},
             "compile_specs": [] if v is None else [{"key": "qnn_compile_spec", "value": v}]}
            for v in values]
    return {"version": 0, "execution_plan": [{
        "name": "forward", "values": [], "inputs": [], "outputs": [], "operators": [],
        "chains": [{"inputs": [], "outputs": [], "instructions": [
            {"instr_args_type": "DelegateCall", "instr_args": {"delegate_index": i, "args": []}}
            for i in range(len(values))]}],
        "delegates": dels}], "backend_delegate_data": [{"data": [0]}]}


a = spec_bytes("a", 69, 79, 8)    # SM8750, V79, 8 MiB
b = spec_bytes("b", 43, 73, 4)    # SM8550, V73, 4 MiB
odd = spec_bytes("odd", 1234, 0, 0)  # an id etprof does not know, no HTP info values
garbage = [0xff, 0xff, 0xff, 0x7f, 1, 2, 3, 4, 5, 6, 7, 8]  # a root offset past the end
for label, vals, expect in (
        ("two_socs", [a, b], {"model_id": 69, "model": "SM8750", "htp_arch": 79,
                              "vtcm_budget_bytes": 8 << 20, "specs": 2, "differs": True}),
        ("same_twice", [a, a], {"model_id": 69, "model": "SM8750", "htp_arch": 79,
                                "vtcm_budget_bytes": 8 << 20, "specs": 2, "differs": False}),
        ("unknown_id", [odd], {"model_id": 1234, "model": None, "htp_arch": None,
                               "vtcm_budget_bytes": None, "specs": 1, "differs": False}),
        ("garbage_then_b", [garbage, b], {"model_id": 43, "model": "SM8550", "htp_arch": 73,
                                          "vtcm_budget_bytes": 4 << 20, "specs": 1, "differs": False}),
        ("garbage", [garbage], None),
        ("no_spec", [None], None)):
    pte = flatc_bin(os.path.join(S, "program.fbs"), program(vals), label)
    p = run("info", pte, "-f", "json")
    check(p.returncode == 0, f"{label}: info exit {p.returncode}: {p.stderr}")
    if p.returncode:
        continue
    j = json.loads(p.stdout)
    # these programs' delegates hold no QNN context binary: no second VTCM value, no warning
    expect = dict(expect, vtcm_warning=None) if expect else expect
    check(j["qnn_soc"] == expect, f"{label}: qnn_soc {j['qnn_soc']}, want {expect}")
    bad = sum(v is garbage for v in vals)
    check(j["qnn_compile_specs_unreadable"] == bad, f"{label}: unreadable {j['qnn_compile_specs_unreadable']}, want {bad}")
    t = run("info", pte).stdout
    if bad:
        # the table names the spec's path and where in the file it failed
        m = re.search(r"^qnn soc\s+1 qnn_compile_spec\(s\) not read: .*offset (\d+): "
                      r"execution_plan\[0\]\.delegates\[0\]\.compile_specs\[0\]\.value", t, re.M)
        off = open(pte, "rb").read().find(bytes(garbage))
        check(m and off > 0 and int(m.group(1)) == off, f"{label}: unreadable line {t[:400]} (value at {off})")
    if label == "two_socs":
        check("other QnnBackend delegates name another" in t, f"{label}: table says they differ: {t[:300]}")
    if label == "no_spec":
        check("qnn soc" not in t, f"{label}: no qnn soc line")

# ---- 3. specs whose values are text: as flatc decodes them, read as UTF-8 here ------------------
ETHOS = os.path.join(D, "ethosu-partial-delegation", "pte", "mobilenet_v2_ethosu.pte")
for pte in (ETHOS, PTE):
    prog = flatc_json(os.path.join(S, "program.fbs"), pte)
    want = []
    for pl in prog["execution_plan"]:
        for dl in pl.get("delegates", []):
            vals = []
            for c in dl.get("compile_specs", []):
                raw = bytes(c.get("value", []))
                try:
                    t = raw[:-1] if raw.endswith(b"\0") else raw
                    t = t.decode("utf-8")
                    ok = t != "" and all(ch >= " " or ch in "\t\n\r" for ch in t)
                except UnicodeDecodeError:
                    ok = False
                vals.append({"key": c["key"], "value_bytes": len(raw),
                             "value_text": re.sub(r"[\t\n\r]", " ", t) if ok else None})
            want.append(vals)
    p = run("info", pte, "-f", "json")
    got = [dl["compile_specs"] for m in json.loads(p.stdout)["methods"] for dl in m["delegates"]]
    check(got == want, f"{os.path.basename(pte)}: compile_specs {got[:2]} want {want[:2]}")
    if pte == ETHOS:
        check(any(v["key"] == "target" and v["value_text"] for vals in want for v in vals),
              "premise: the Ethos-U program names its target as text")
        t = run("info", pte).stdout
        for vals in want:
            for v in vals:
                line = "spec       EthosUBackend %s = %s" % (v["key"], v["value_text"][:200])
                check(line in t, f"info table: {line!r} missing")
    else:
        check(all(v["value_text"] is None for vals in want for v in vals), "premise: QNN specs are binary")
        check("spec       " not in run("info", pte).stdout, "no spec line for binary values")

# many text specs: the table shows 24 and says there are more, JSON lists every one
many = program([None])
many["execution_plan"][0]["delegates"][0]["compile_specs"] = [
    {"key": "k%d" % i, "value": list(b"v%d" % i)} for i in range(30)]
pte = flatc_bin(os.path.join(S, "program.fbs"), many, "many_specs")
t = run("info", pte).stdout
lines = [ln for ln in t.splitlines() if ln.startswith("spec ")]
check(len(lines) == 25 and lines[-1].startswith("spec       ... and more") and
      lines[0] == "spec       QnnBackend k0 = v0" and lines[23] == "spec       QnnBackend k23 = v23",
      f"many specs: {lines[:2]} ... {lines[-2:]} ({len(lines)} lines)")
j = json.loads(run("info", pte, "-f", "json").stdout)
check([c["value_text"] for c in j["methods"][0]["delegates"][0]["compile_specs"]] ==
      ["v%d" % i for i in range(30)], "many specs: JSON lists all 30")

shutil.rmtree(T, ignore_errors=True)
for f in fails:
    print("FAIL:", f)
print(f"test_compile_specs: {len(fails)} failure(s)")
sys.exit(1 if fails else 0)
