#!/usr/bin/env python3
"""test_trust.py - flags against the evidence, and files read as their runtime reads them
(issue 36 items 1, 2, 4, 5, 6).

Independent facts:
- flatc (schema/program.fbs), a second decoder, gives the upstream QNN program's segments
  (segments[1].size 1331456): etprof must read them, although segments[1] declares an inline
  size of 8 bytes with its u64 `size` at bytes 4..12 (the raw bytes are checked here too).
- tests/data/MANIFEST.md: fake-qnn-backend/stories260k_qnn_kv_forward_outputs_2x.etdp was written
  by the runtime with --method_name kv_forward; its logged output shapes are kv_forward's.

    test_trust.py ETPROF DATA_DIR SCHEMA_DIR      (exit 77 when flatc is missing)
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

E, D, S = sys.argv[1], sys.argv[2], sys.argv[3]
if not shutil.which("flatc"):
    print("skip: flatc not found (apt install flatbuffers-compiler; scripts/install-deps.sh --test)")
    sys.exit(77)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "tools"))
import flatc_io  # noqa: E402

PTE = os.path.join(D, "upstream", "stories260k_hybrid_llama_qnn.pte")
OUT2 = os.path.join(D, "fake-qnn-backend", "stories260k_qnn_kv_forward_outputs_2x.etdp")
T = tempfile.mkdtemp(prefix="etprof-trust-")
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)


def run(*args):
    return subprocess.run([E] + list(args), capture_output=True, text=True)


# ---- item 2: a field past its table's declared inline size, inside the buffer ----------------
prog = flatc_io.flatc_json(os.path.join(S, "program.fbs"), PTE, T)
want = [(int(s.get("offset", 0)), int(s.get("size", 0))) for s in prog["segments"]]
check(want == [(0, 0), (0, 1331456)], "flatc decodes segments %r" % (want,))
raw = open(PTE, "rb").read()
u32 = lambda o: struct.unpack_from("<I", raw, o)[0]  # noqa: E731
root = u32(0)
vt = root - struct.unpack_from("<i", raw, root)[0]
seg_vec = root + struct.unpack_from("<H", raw, vt + 4 + 2 * 4)[0]
seg_vec += u32(seg_vec)
t1 = seg_vec + 8 + u32(seg_vec + 8)  # segments[1]
vt1 = t1 - struct.unpack_from("<i", raw, t1)[0]
tlen, size_off = struct.unpack_from("<H", raw, vt1 + 2)[0], struct.unpack_from("<H", raw, vt1 + 6)[0]
check((tlen, size_off) == (8, 4), "segments[1] declares %d bytes, size at %d" % (tlen, size_off))
r = run("info", PTE, "-f", "json")
check(r.returncode == 0, "info json exit %d: %s" % (r.returncode, r.stderr))
if r.returncode == 0:
    got = [(s["offset_bytes"], s["size_bytes"]) for s in json.loads(r.stdout)["segment_table"]]
    check(got == want, "info segment_table %r, flatc %r" % (got, want))
r = run("info", PTE)
check("segment    1: 1331456 bytes at segment base + 0" in r.stdout, "info text: " + r.stdout[:400])

# ---- item 6: the VTCM budget given twice -----------------------------------------------------
# segment 1 (the QNN context binary) of the raw file: its compiler options text
import re  # noqa: E402
seg_base = struct.unpack_from("<Q", raw, 24)[0]  # eh00 extended header: segment_base_offset
blob = raw[seg_base + want[1][0]: seg_base + want[1][0] + want[1][1]]
sizes = set(int(m) for m in re.findall(rb"[;=]vtcm_size=(\d+)", blob))
mbs = set(int(m) for m in re.findall(rb";vtcm_mb=(\d+)", blob))
check(sizes == {8388608} and mbs == {4}, "blob options vtcm_size %r vtcm_mb %r" % (sizes, mbs))
# the spec's vtcm_size_in_mb: QnnExecuTorchOptions.soc_info(0).htp_info(1).vtcm_size_in_mb(1)
spec = bytes(prog["execution_plan"][0]["delegates"][0]["compile_specs"][0]["value"])


def fld(b, t, i):
    vt = t - struct.unpack_from("<i", b, t)[0]
    return struct.unpack_from("<H", b, vt + 4 + 2 * i)[0] if 4 + 2 * i + 2 <= struct.unpack_from("<H", b, vt)[0] else 0


r0 = struct.unpack_from("<I", spec, 0)[0]
si = r0 + fld(spec, r0, 0)
si += struct.unpack_from("<I", spec, si)[0]
hi = si + fld(spec, si, 1)
hi += struct.unpack_from("<I", spec, hi)[0]
spec_mb = struct.unpack_from("<I", spec, hi + fld(spec, hi, 1))[0]
check(spec_mb == 8, "spec vtcm_size_in_mb %d" % spec_mb)
r = run("info", PTE, "-f", "json")
soc = json.loads(r.stdout)["qnn_soc"] if r.returncode == 0 else {}
check(soc.get("vtcm_budget_bytes") == spec_mb * 1048576, "budget %r" % soc.get("vtcm_budget_bytes"))
w = soc.get("vtcm_warning") or ""
check("vtcm_mb=4" in w and "vtcm_size=8388608" in w and "8 MiB is used" in w, "vtcm_warning %r" % w)
check("qnn vtcm   WARNING" in run("info", PTE).stdout, "info text names the VTCM conflict")
for cmd in ("ops", "summary", "runs", "explain"):
    r = run(cmd, OUT2, "--pte", PTE, "-f", "json")
    notes = json.dumps(json.loads(r.stdout).get("notes", [])) if r.returncode == 0 else ""
    check("vtcm_mb=4" in notes, "%s json notes name vtcm_mb=4 (exit %d)" % (cmd, r.returncode))
    r = run(cmd, OUT2, "--pte", PTE)
    check("vtcm_mb=4" in r.stdout, "%s text names vtcm_mb=4" % cmd)
# a program whose binary holds no such text: silent
r = run("info", os.path.join(D, "upstream", "add.pte"))
check("vtcm" not in r.stdout.lower(), "add.pte info says nothing of VTCM")

# ---- item 5: an ETRecord of another program ----------------------------------------------------
# the record's edge program calls only aten.mul (zipfile + json); the dump's kernels (flatc) are
# convolution, relu, max_pool2d, permute_copy, addmm: no operator in common
import zipfile  # noqa: E402
ETR = os.path.join(D, "upstream", "etrecord.bin")
EDUMP = os.path.join(D, "upstream", "etdump.etdp")
rec_ops = set(re.findall(r"aten\.([a-z_0-9]+)", zipfile.ZipFile(ETR).read(
    "edge_dialect_exported_program").decode()))
dj = flatc_io.flatc_json(os.path.join(S, "etdump.fbs"), EDUMP, T, size_prefixed=True)
dump_ops = set(re.sub(r"^native_call_|\.out$", "", e["profile_event"]["name"])
               for rd in dj["run_data"] for e in rd.get("events", [])
               if e.get("profile_event", {}).get("name", "").startswith("native_call_"))
check(rec_ops == {"mul"} and dump_ops and not (rec_ops & dump_ops),
      "record ops %r, dump ops %r" % (rec_ops, dump_ops))
for cmd in ("ops", "summary", "tree", "explain", "modules"):
    r = run(cmd, EDUMP, "--etrecord", ETR)
    check(r.returncode == 0 and "WARNING: the ETRecord" in r.stdout and "from another program" in r.stdout,
          "%s text warns of the ETRecord of another program (exit %d)" % (cmd, r.returncode))
    if cmd != "modules":
        r = run(cmd, EDUMP, "--etrecord", ETR, "-f", "json")
        notes = json.loads(r.stdout).get("notes", []) if r.returncode == 0 else []
        check(any(n.startswith("WARNING: the ETRecord") for n in notes), "%s json notes warn" % cmd)
rp = os.path.join(T, "r.html")
r = run("report", EDUMP, "--etrecord", ETR, "-o", rp)
check(r.returncode == 0 and "is from another program" in open(rp).read(), "report warns")

# ---- item 1: --method against the evidence -----------------------------------------------------
# flatc: kv_forward declares an output of sizes [1, 1, 512], prefill_forward none; the dump's
# logged output tensors (debug events without a delegate id) include [1, 1, 512]
plans = {pl["name"]: pl for pl in prog["execution_plan"]}


def out_sizes(pl):
    vals = pl.get("values", [])
    return [tuple(vals[i]["val"].get("sizes", [])) for i in pl.get("outputs", [])
            if vals[i].get("val_type") == "Tensor"]


dj2 = flatc_io.flatc_json(os.path.join(S, "etdump.fbs"), OUT2, T, size_prefixed=True)
logged = set(tuple(e["debug_event"]["debug_entry"]["tensor"]["sizes"])
             for rd in dj2["run_data"] for e in rd.get("events", [])
             if "debug_event" in e and "tensor" in e["debug_event"].get("debug_entry", {}))
check((1, 1, 512) in out_sizes(plans["kv_forward"]) and
      (1, 1, 512) not in out_sizes(plans["prefill_forward"]) and (1, 1, 512) in logged,
      "kv_forward outputs %r, prefill %r, logged %r" % (out_sizes(plans["kv_forward"])[:3],
                                                       out_sizes(plans["prefill_forward"])[:3],
                                                       sorted(logged)[:5]))
WANT = "--method prefill_forward contradicts the files"
for cmd in ("ops", "summary", "tree", "explain", "runs", "info"):
    bad = run(cmd, OUT2, "--pte", PTE, "--method", "prefill_forward")
    flat = " ".join(bad.stdout.split())  # wrapped text: one line
    check(bad.returncode == 0 and WANT in flat and "ran kv_forward" in flat and
          "debug_tensors" in flat, "%s text warns (exit %d)" % (cmd, bad.returncode))
    check(WANT in bad.stderr and "etprof: warning:" in bad.stderr, "%s stderr warns" % cmd)
    j = run(cmd, OUT2, "--pte", PTE, "--method", "prefill_forward", "-f", "json")
    check(j.returncode == 0 and WANT in j.stdout, "%s json says it" % cmd)
    good = run(cmd, OUT2, "--pte", PTE, "--method", "kv_forward")
    check(good.returncode == 0 and "contradict" not in good.stdout + good.stderr,
          "%s: an agreeing --method is silent" % cmd)
j = json.loads(run("summary", OUT2, "--pte", PTE, "--method", "prefill_forward", "-f", "json").stdout)
check(j["data_quality"]["method_conflict"]["blocks"] == 2, "2 run blocks contradict (2 executions)")
r = run("ops", OUT2, "--pte", PTE, "--method", "prefill_forward", "-f", "csv")
check(WANT in r.stderr, "csv: the warning on standard error")
rp = os.path.join(T, "m.html")
r = run("report", OUT2, "--pte", PTE, "--method", "prefill_forward", "-o", rp)
check(r.returncode == 0 and WANT in open(rp).read(), "report warns")
sp = os.path.join(T, "strict.txt")
r = run("summary", OUT2, "--pte", PTE, "--method", "prefill_forward", "--strict", "-o", sp)
check(r.returncode == 1 and r.stdout == "" and r.stderr.count("\n") == 1 and WANT in r.stderr
      and not os.path.exists(sp), "--strict: exit 1, one line, no output file (%d: %s)"
      % (r.returncode, r.stderr))
r = run("summary", OUT2, "--pte", PTE, "--method", "kv_forward", "--strict")
check(r.returncode == 0, "--strict with an agreeing --method: exit 0")

# ---- item 4: instruction rows without the runtime's wrappers; a part above 100 % ---------------
# 5 runs: an event at chain 0 instruction 0 of 1, 2, 3, 4, 10 us, Method::execute of 1 us each
# (as the Python Inspector's tests write them); by hand: total 20 us of 5 us = 400 %
runs = []
for i, d_us in enumerate([1, 2, 3, 4, 10]):
    t0 = (i + 1) * 100000
    runs.append({"name": "Execute", "events": [
        {"profile_event": {"chain_index": 0, "instruction_id": 0, "start_time": t0,
                           "end_time": t0 + d_us * 1000, "name": "op_0"}},
        {"profile_event": {"chain_index": -1, "instruction_id": -1, "start_time": t0,
                           "end_time": t0 + 1000, "name": "Method::execute"}}]})
KD = flatc_io.flatc_bin(os.path.join(S, "etdump.fbs"), {"version": 0, "run_data": runs}, "kernels",
                        T, size_prefixed=True)
for cmd in ("summary", "ops", "tree", "explain"):
    r = run(cmd, KD)
    flat = " ".join(r.stdout.split())
    check(r.returncode == 0 and "not recorded" not in flat and "method_only" not in flat,
          "%s: rows with instruction ids are not called 'not recorded' (exit %d)" % (cmd, r.returncode))
    check("WARNING: op_0 (instruction 0) is shown at 400.00% of Method::execute" in flat,
          "%s: the 400 %% row is a WARNING" % cmd)
    check("1 row(s) with an instruction id" in flat, "%s: the unwrapped rows are said" % cmd)
r = run("ops", KD, "-f", "json")
rows = json.loads(r.stdout)["rows"] if r.returncode == 0 else []
op = [x for x in rows if x["name"] == "op_0"]
check(op and abs(op[0]["share"] - 400.0) < 1e-9 and abs(op[0]["total"] - 20.0) < 1e-9,
      "op_0: total 20 us, 400 %% (%r)" % (op[:1],))
rp = os.path.join(T, "k.html")
r = run("report", KD, "-o", rp)
html = open(rp).read() if r.returncode == 0 else ""
check("400.00% of Method::execute" in html and "not recorded" not in html, "report")
# a dump the runtime wrote: no such warning
r = run("summary", os.path.join(D, "real", "add_pte_10x.etdp"), "--pte", os.path.join(D, "upstream", "add.pte"))
check(r.returncode == 0 and "WARNING" not in r.stdout and "instruction id" not in r.stdout,
      "add.pte dump: no part above 100 %, no unwrapped rows")

shutil.rmtree(T, ignore_errors=True)
if fails:
    for f in fails:
        print("FAIL:", f)
    sys.exit(1)
print("ok")
