#!/usr/bin/env python3
"""etprof tensors --select against independent sources: the program's instructions read here
with flatc (schema/program.fbs) from upstream/bundled_program.bpte's embedded program (decoded
with schema/bundled_program.fbs first), and the debug events of
real/bundled_program_intermediate_1x.etdp read with flatc (schema/etdump.fbs). For each
selection the expected set of (block, event) pairs is computed here from those decodings; the
--dump DIR files follow the selection; bad expressions are usage errors (exit 2).

usage: test_tensor_select.py ETPROF DATA_DIR SCHEMA_DIR TMP (exit 77 without flatc)"""
import json
import os
import shutil
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


if not shutil.which("flatc"):
    print("skip: flatc not found")
    sys.exit(77)


def decode(schema, path, extra=()):
    r = subprocess.run(["flatc", "--json", "--strict-json", "--defaults-json", "--raw-binary"] +
                       list(extra) + ["-o", T, os.path.join(S, schema), "--", path],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return json.load(open(os.path.join(T, os.path.splitext(os.path.basename(path))[0] + ".json")))


bpte = os.path.join(DATA, "upstream", "bundled_program.bpte")
dump = os.path.join(DATA, "real", "bundled_program_intermediate_1x.etdp")
dbg = os.path.join(DATA, "real", "bundled_program_intermediate_1x.debug.bin")
bp = decode("bundled_program.fbs", bpte)
pte = os.path.join(T, "embedded.pte")
open(pte, "wb").write(bytes(bp["program"]))
prog = decode("program.fbs", pte)
plan = prog["execution_plan"][0]
ops = plan["operators"]
instrs = plan["chains"][0]["instructions"]


def op_of(i):  # "aten.add.out" for a KernelCall
    if i < 0 or i >= len(instrs) or instrs[i].get("instr_args_type") != "KernelCall":
        return None
    o = ops[instrs[i]["instr_args"]["op_index"]]
    return (o["name"] + ("." + o["overload"] if o.get("overload") else "")).replace("::", ".")


d = decode("etdump.fbs", dump, ["--size-prefixed"])
logged = []  # (block, event, run, instruction, op, output)
run = 0
for b, rd in enumerate(d["run_data"]):
    had = False
    for k, ev in enumerate(rd.get("events") or []):
        de = ev.get("debug_event")
        if not de or not de.get("debug_entry"):
            continue
        had = True
        out = bool((de["debug_entry"].get("output") or {}).get("bool_val"))
        ins = de.get("instruction_id", -1)
        # method outputs are logged with chain_index -1 (not an instruction): no operator
        chain = de.get("chain_index", 0)
        logged.append((b, k, run, ins, None if out or chain > 2 ** 32 else op_of(ins), out))
    run += had
check(len(logged) == 4, "flatc: 4 logged values (%d)" % len(logged))


def sel(expr, *extra):
    r = subprocess.run([E, "tensors", dump, "--debug-buffer", dbg, "--pte", bpte, "--select",
                        expr, "-f", "json"] + list(extra), capture_output=True, text=True)
    if r.returncode:
        return r.returncode, None, r.stderr
    j = json.loads(r.stdout)
    return 0, [(t["block"], t["event"]) for t in j["tensors"]], j


cases = {
    "instr=1-2": lambda x: 1 <= x[3] <= 2,
    "instr=0": lambda x: x[3] == 0,
    "op=aten.add": lambda x: x[4] is not None and "aten.add" in x[4],
    "op=mul": lambda x: x[4] is not None and "mul" in x[4],
    "op==aten::add.out": lambda x: x[4] == "aten.add.out",
    "op==aten.add": lambda x: x[4] == "aten.add",
    # runs are numbered from 1 in every view (docs/json-contract.md); x[2] is the 0-based
    # position among the runs that logged values, counted here from flatc's blocks
    "run=1,op=add,instr=2": lambda x: x[2] == 0 and x[4] and "add" in x[4] and x[3] == 2,
    "run=2": lambda x: x[2] == 1,
    "block=1": lambda x: x[0] == 1,
}
for expr, f in cases.items():
    rc, got, j = sel(expr)
    want = [(x[0], x[1]) for x in logged if f(x)]
    check(rc == 0 and got == want, "--select %s: %s (got %s)" % (expr, want, got))
    if rc == 0:
        check(j.get("select") == expr, "--select %s: JSON names the selection" % expr)
# --dump follows the selection
npd = os.path.join(T, "npy")
r = subprocess.run([E, "-q", "tensors", dump, "--debug-buffer", dbg, "--pte", bpte, "--select",
                    "op=aten.add", "--dump", npd, "-o", os.devnull], capture_output=True, text=True)
want = sorted("b%d_e%d_i%d.npy" % (x[0], x[1], x[3]) for x in logged
              if x[4] and "aten.add" in x[4])
check(r.returncode == 0 and sorted(os.listdir(npd)) == want,
      "--dump with --select op=aten.add: %s (got %s)" % (want, sorted(os.listdir(npd))))
for bad in ["instr", "foo=1", "instr=3-1", "run=-1", "run=0", "op=", "instr=x"]:
    rc, _, err = sel(bad)
    check(rc == 2 and "--select" in err, "--select %s: usage error, exit 2 (%s)" % (bad, err.strip()))

print("%d failure(s)" % len(fails))
sys.exit(1 if fails else 0)
