#!/usr/bin/env python3
"""etprof check-outputs (and the bundled program reader) against independent sources:

* the corpus: tests/data/real/bundled_program_intermediate_1x.etdp ran
  upstream/bundled_program.bpte; the expected output of test case 0 is read here from the .bpte
  with flatc (schema/bundled_program.fbs) and the logged output from the .debug.bin with struct
  at the offset the MANIFEST names; they are equal, so the check passes with max |diff| 0;
  bundled_program_1x.etdp logged no outputs: exit 6;
* crafted here with flatc: a bundled program and a dump whose logged outputs are, per output,
  within tolerance / one element outside it (max |diff| and the allowed error computed here with
  ExecuTorch's rule |a - e| <= atol + |rtol * a| on float32 values), a transposed expected tensor
  (dim_order [1, 0]) equal to a row-major logged one, a shape difference, a missing output;
  --rtol loosens, --test-case picks the case, exit 7 on failure;
* malformed bundled programs: located errors (file, byte offset, field path), exit 1.

usage: test_check_outputs.py ETPROF DATA_DIR SCHEMA_DIR TMP (exit 77 without flatc)"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys

E, DATA, S, T = sys.argv[1:5]
shutil.rmtree(T, ignore_errors=True)
os.makedirs(T)
fails = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        fails.append(what)


def run(*args):
    r = subprocess.run([E] + list(args), capture_output=True, text=True)
    doc = None
    if r.stdout.strip().startswith("{"):
        doc = json.loads(r.stdout)
    return r.returncode, doc, r.stderr


if not shutil.which("flatc"):
    print("skip: flatc not found (apt install flatbuffers-compiler)")
    sys.exit(77)


def flatc_json(schema, binary):
    r = subprocess.run(["flatc", "--json", "--strict-json", "--defaults-json", "--raw-binary",
                        "-o", T, os.path.join(S, schema), "--", binary],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    base = os.path.splitext(os.path.basename(binary))[0]
    return json.load(open(os.path.join(T, base + ".json")))


def flatc_build(schema, doc, name, size_prefixed=False):
    src = os.path.join(T, name + ".json")
    json.dump(doc, open(src, "w"))
    r = subprocess.run(["flatc", "-b"] + (["--size-prefixed"] if size_prefixed else []) +
                       ["-o", T, os.path.join(S, schema), src], capture_output=True, text=True)
    check(r.returncode == 0, "flatc builds %s (%s)" % (name, r.stderr.strip()))
    out = [os.path.join(T, f) for f in os.listdir(T)
           if f.startswith(name + ".") and not f.endswith(".json")]
    return out[0]


# -- the corpus ----------------------------------------------------------------------------------
bpte = os.path.join(DATA, "upstream", "bundled_program.bpte")
dump = os.path.join(DATA, "real", "bundled_program_intermediate_1x.etdp")
dbg = os.path.join(DATA, "real", "bundled_program_intermediate_1x.debug.bin")
bp = flatc_json("bundled_program.fbs", bpte)
suite = bp["method_test_suites"][0]
exp = suite["test_cases"][0]["expected_outputs"][0]["val"]
exp_vals = list(struct.unpack("<%di" % (len(exp["data"]) // 4), bytes(exp["data"])))
# the MANIFEST names the method output's offset: the last "i32@OFF[2, 2]" of the section
man = open(os.path.join(DATA, "MANIFEST.md")).read()
sec = man.split("### `real/bundled_program_intermediate_1x.etdp`")[1].split("### ")[0]
offs = [int(x) for x in re.findall(r"i32@(\d+)\[2, 2\]", sec)]
raw = open(dbg, "rb").read()
got_vals = list(struct.unpack_from("<4i", raw, offs[-1]))
rc, doc, err = run("check-outputs", dump, "--debug-buffer", dbg, "--pte", bpte, "-f", "json")
o = doc["outputs"] if doc else []
check(rc == 0 and len(o) == 1, "corpus: exit 0, one output (%d, %s)" % (rc, err.strip()))
if o:
    check(o[0]["status"] == "pass" and o[0]["within_tolerance"] is True and
          o[0]["expected_shape"] == exp["sizes"] and o[0]["dtype"] == exp["scalar_type"] and
          o[0]["numel"] == len(exp_vals) and
          o[0]["max_abs"] == max(abs(a - b) for a, b in zip(got_vals, exp_vals)) and
          o[0]["method"] == suite["method_name"],
          "corpus: %s %s %s vs logged %s: pass, max |diff| 0 (got %s)" %
          (exp["scalar_type"], exp["sizes"], exp_vals, got_vals, o[0]))
check(doc is not None and doc["test_case"] == 0 and doc["runs"] == 1 and doc["failed"] == 0 and
      doc["passed"] is True, "corpus: runs 1, failed 0, passed")
rc, doc, err = run("check-outputs", dump, "--debug-buffer", dbg, "--pte", bpte, "--test-case",
                   str(len(suite["test_cases"])))
check(rc == 2 and "test case %d does not exist" % len(suite["test_cases"]) in err,
      "corpus: --test-case past the %d cases: exit 2 (%s)" % (len(suite["test_cases"]),
                                                             err.strip()))
rc, doc, err = run("check-outputs", os.path.join(DATA, "real", "bundled_program_1x.etdp"),
                   "--debug-buffer", dbg, "--pte", bpte, "-f", "json")
check(rc == 6 and doc is not None and doc["runs"] == 0 and doc["passed"] is None,
      "corpus: a dump without logged outputs: exit 6, passed null (%d)" % rc)
rc, doc, err = run("check-outputs", dump, "--debug-buffer", dbg, "--pte",
                   os.path.join(DATA, "upstream", "add.pte"))
check(rc == 1 and "not a bundled program" in err and "offset 4" in err,
      "a plain .pte: located error, exit 1 (%s)" % err.strip())

# -- crafted -------------------------------------------------------------------------------------
def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


# logged outputs (row-major, in the debug buffer)
buf = bytearray()
logged = []  # (scalar_type, sizes, offset, values)


def log(st, sizes, fmt, vals):
    while len(buf) % 64:
        buf.append(0)
    off = len(buf)
    buf.extend(struct.pack("<%d%s" % (len(vals), fmt), *vals))
    logged.append((st, sizes, off, vals))


a0 = [1.0, 2.0, 3.0, 4.0]
log("FLOAT", [4], "f", a0)
a1 = [[1.0, 2.0], [3.0, 4.0]]
log("FLOAT", [2, 2], "f", [v for r in a1 for v in r])
log("INT", [3], "i", [7, 8, 9])
log("FLOAT", [2], "f", [0.5, 0.25])
events = [{"debug_event": {"instruction_id": 0, "chain_index": 0, "debug_entry": {
    "val": "Tensor", "tensor": {"scalar_type": st, "sizes": sz, "offset": off},
    "output": {"bool_val": True}}}} for st, sz, off, _ in logged]
cdump = flatc_build("etdump.fbs", {"version": 0, "run_data": [{"name": "Execute",
                                                                "events": events}]},
                    "crafted", size_prefixed=True)
cbuf = os.path.join(T, "crafted.debug.bin")
open(cbuf, "wb").write(bytes(buf))

# expected outputs: e0 differs from a0 in element 2 by 1e-3 (outside 1e-8 + 1e-5 x 3), element 1
# by 1e-6 (inside 1e-8 + 1e-5 x 2); e1 is a1 stored column-major (dim_order [1, 0]); e2 equal
# ints; e3 has shape [3] where [2] was logged; e4 (an Int) was not logged
e0 = [1.0, f32(2.0 + 1e-6), f32(3.0 + 1e-3), 4.0]


def tensor(st, sizes, fmt, vals, dim_order=None):
    t = {"scalar_type": st, "sizes": sizes,
         "data": list(struct.pack("<%d%s" % (len(vals), fmt), *vals))}
    if dim_order is not None:
        t["dim_order"] = dim_order
    return {"val_type": "Tensor", "val": t}


colmajor = [a1[i][j] for j in range(2) for i in range(2)]
case0 = {"inputs": [], "expected_outputs": [
    tensor("FLOAT", [4], "f", e0), tensor("FLOAT", [2, 2], "f", colmajor, [1, 0]),
    tensor("INT", [3], "i", [7, 8, 9]), tensor("FLOAT", [3], "f", [0.5, 0.25, 0.0]),
    {"val_type": "Int", "val": {"int_val": 5}}]}
case1 = {"inputs": [], "expected_outputs": [
    tensor("FLOAT", [4], "f", a0), tensor("FLOAT", [2, 2], "f", [v for r in a1 for v in r]),
    tensor("INT", [3], "i", [7, 8, 10]), tensor("FLOAT", [2], "f", [0.5, 0.25])]}
# the embedded program: upstream add.pte (a method "forward"); the crafted dump's events are
# debug events only, which every program explains
prog = list(open(os.path.join(DATA, "upstream", "add.pte"), "rb").read())
cbpte = flatc_build("bundled_program.fbs", {"version": 0, "method_test_suites": [
    {"method_name": "forward", "test_cases": [case0, case1]}], "program": prog}, "crafted_bp")


def allowed(a, rtol, atol):
    return atol + abs(rtol * a)


def expect_row(a, e, rtol=1e-5, atol=1e-8):
    bad = sum(1 for x, y in zip(a, e) if abs(x - y) > allowed(x, rtol, atol))
    return bad, max(abs(x - y) for x, y in zip(a, e))


rc, doc, err = run("check-outputs", cdump, "--debug-buffer", cbuf, "--pte", cbpte, "--method",
                   "forward", "-f", "json")
o = doc["outputs"] if doc else []
check(rc == 7 and len(o) == 5, "crafted case 0: exit 7, five rows (%d, %s)" % (rc, err.strip()))
if len(o) == 5:
    bad, mx = expect_row(a0, e0)
    check(o[0]["status"] == "fail" and o[0]["mismatched"] == bad == 1 and
          abs(o[0]["max_abs"] - mx) < 1e-12 and o[0]["tolerance_used"] is True,
          "output 0: one element outside tolerance, max |diff| %.9g (got %s)" % (mx, o[0]))
    check(o[1]["status"] == "pass" and o[1]["max_abs"] == 0,
          "output 1: a transposed expected tensor (dim_order [1, 0]) equals the row-major one")
    check(o[2]["status"] == "pass" and o[2]["tolerance_used"] is False, "output 2: INT exact")
    check(o[3]["status"] == "shape differs" and o[3]["shape"] == [2] and
          o[3]["expected_shape"] == [3], "output 3: shape [2] vs [3]")
    check(o[4]["status"] == "missing" and o[4]["expected_dtype"] == "int",
          "output 4: an expected Int the run did not log")
    check(doc["failed"] == 3 and doc["passed"] is False, "failed 3, passed false")
# a looser tolerance: element 2 (|diff| ~1e-3 at 3.0) passes with rtol 1e-3
rc, doc, err = run("check-outputs", cdump, "--debug-buffer", cbuf, "--pte", cbpte, "--method",
                   "forward", "--rtol", "1e-3", "-f", "json")
bad, _ = expect_row(a0, e0, 1e-3)
check(doc is not None and doc["outputs"][0]["mismatched"] == bad == 0 and
      doc["outputs"][0]["status"] == "pass", "--rtol 1e-3: output 0 passes")
rc, doc, err = run("check-outputs", cdump, "--debug-buffer", cbuf, "--pte", cbpte, "--method",
                   "forward", "--test-case", "1", "-f", "json")
st = [x["status"] for x in doc["outputs"]] if doc else []
check(rc == 7 and st == ["pass", "pass", "fail", "pass"] and doc["outputs"][2]["mismatched"] == 1
      and doc["outputs"][2]["max_abs"] == 1, "--test-case 1: only the INT output fails (%s)" % st)
rc, _, err = run("check-outputs", cdump, "--debug-buffer", cbuf, "--pte", cbpte, "--rtol", "x")
check(rc == 2 and "--rtol" in err, "--rtol x: usage error")

# -- malformed bundled programs: located errors --------------------------------------------------
bad_cases = [
    ("dim_order", dict(tensor("FLOAT", [2, 2], "f", [1, 2, 3, 4], [1, 1])),
     "test_cases[0].expected_outputs[0].val.dim_order[1]", "repeated"),
    ("short_data", {"val_type": "Tensor", "val": {"scalar_type": "FLOAT", "sizes": [4],
                                                  "data": [0] * 12}},
     "test_cases[0].expected_outputs[0].val.data", "12 data bytes for 4 elements"),
    ("negative", {"val_type": "Tensor", "val": {"scalar_type": "FLOAT", "sizes": [2, -1],
                                                "data": []}},
     "test_cases[0].expected_outputs[0].val.sizes[1]", "negative"),
]
for name, val, path, what in bad_cases:
    f = flatc_build("bundled_program.fbs", {"method_test_suites": [
        {"method_name": "forward", "test_cases": [{"expected_outputs": [val]}]}],
        "program": prog}, "bad_" + name)
    rc, _, err = run("check-outputs", cdump, "--debug-buffer", cbuf, "--pte", f, "--method",
                     "forward")
    check(rc == 1 and path in err and what in err and re.search(r"offset \d+", err) and
          os.path.basename(f) in err, "%s: located error (%s)" % (name, err.strip()))
# a truncated bundled program
tr = os.path.join(T, "truncated.bpte")
open(tr, "wb").write(open(bpte, "rb").read()[:200])
rc, _, err = run("check-outputs", dump, "--debug-buffer", dbg, "--pte", tr)
check(rc == 1 and "truncated.bpte" in err and "offset" in err,
      "a truncated .bpte: located error, exit 1 (%s)" % err.strip())

print("%d failure(s)" % len(fails))
sys.exit(1 if fails else 0)
