"""Profile.tensors(select="EXPR"): the library's etp_tensor_select_* (`etprof tensors --select`).

Expected rows as tests/test_tensor_select.py derives them: the program's instructions decoded
here with flatc (the bundled program's embedded program, schema/program.fbs) and the debug
events of real/bundled_program_intermediate_1x.etdp decoded with flatc (schema/etdump.fbs); for
each selection the expected (block, event) pairs are computed from those decodings. Also: the
same rows as the command's --select JSON, and bad expressions raise UsageError.
"""
import json
import os
import subprocess

import pytest

import etprof
from conftest import SCHEMA, cli_json, data

BPTE = data("upstream", "bundled_program.bpte")
DUMP = data("real", "bundled_program_intermediate_1x.etdp")
DBG = data("real", "bundled_program_intermediate_1x.debug.bin")


def decode(flatc, tmp, schema, path, extra=()):
    subprocess.run([flatc, "--json", "--strict-json", "--defaults-json", "--raw-binary", *extra,
                    "-o", str(tmp), os.path.join(SCHEMA, schema), "--", path], check=True,
                   capture_output=True)
    with open(os.path.join(str(tmp), os.path.splitext(os.path.basename(path))[0] + ".json")) as f:
        return json.load(f)


@pytest.fixture(scope="module")
def logged(tmp_path_factory):
    from conftest import FLATC
    from shutil import which
    flatc = FLATC if os.path.isabs(FLATC) else which(FLATC)
    if not flatc or not os.path.exists(flatc):
        pytest.skip("flatc not found (apt-get install flatbuffers-compiler)")
    tmp = tmp_path_factory.mktemp("sel")
    bp = decode(flatc, tmp, "bundled_program.fbs", BPTE)
    pte = tmp / "embedded.pte"
    pte.write_bytes(bytes(bp["program"]))
    plan = decode(flatc, tmp, "program.fbs", str(pte))["execution_plan"][0]
    ops, instrs = plan["operators"], plan["chains"][0]["instructions"]

    def op_of(i):
        if i < 0 or i >= len(instrs) or instrs[i].get("instr_args_type") != "KernelCall":
            return None
        o = ops[instrs[i]["instr_args"]["op_index"]]
        return (o["name"] + ("." + o["overload"] if o.get("overload") else "")).replace("::", ".")

    d = decode(flatc, tmp, "etdump.fbs", DUMP, ["--size-prefixed"])
    out, run = [], 0  # (block, event, run, instruction, op)
    for b, rd in enumerate(d["run_data"]):
        had = False
        for k, ev in enumerate(rd.get("events") or []):
            de = ev.get("debug_event")
            if not de or not de.get("debug_entry"):
                continue
            had = True
            o = bool((de["debug_entry"].get("output") or {}).get("bool_val"))
            ins = de.get("instruction_id", -1)
            chain = de.get("chain_index", 0)
            out.append((b, k, run, ins, None if o or chain > 2 ** 32 else op_of(ins)))
        run += had
    assert len(out) == 4
    return out


CASES = {
    "instr=1-2": lambda x: 1 <= x[3] <= 2,
    "instr=0": lambda x: x[3] == 0,
    "op=aten.add": lambda x: x[4] is not None and "aten.add" in x[4],
    "op=mul": lambda x: x[4] is not None and "mul" in x[4],
    "op==aten::add.out": lambda x: x[4] == "aten.add.out",
    "op==aten.add": lambda x: x[4] == "aten.add",
    # runs are numbered from 1 in every view; x[2] is the 0-based position from flatc
    "run=1,op=add,instr=2": lambda x: x[2] == 0 and x[4] and "add" in x[4] and x[3] == 2,
    "run=2": lambda x: x[2] == 1,
    "block=1": lambda x: x[0] == 1,
    "": lambda x: True,
}


@pytest.mark.parametrize("expr", list(CASES))
def test_select_expr(logged, expr):
    want = [(x[0], x[1]) for x in logged if CASES[expr](x)]
    with etprof.open(DUMP, BPTE, debug_buffer=DBG) as p:
        got = p.tensors(select=expr, as_dict=True)
        assert list(zip(got["block"], got["event"])) == want
        cli = cli_json("tensors", DUMP, "--debug-buffer", DBG, "--pte", BPTE, "--select", expr)
        assert [(t["block"], t["event"]) for t in cli["tensors"]] == want


def test_select_without_program_selects_no_op():
    with etprof.open(DUMP, debug_buffer=DBG) as p:
        assert p.tensors(select="op=add", as_dict=True)["block"] == []
        assert len(p.tensors(select="instr=0-100", as_dict=True)["block"]) == 4


@pytest.mark.parametrize("bad", ["instr", "foo=1", "instr=3-1", "run=-1", "op=", "instr=x"])
def test_select_bad_expr(bad):
    with etprof.open(DUMP, BPTE, debug_buffer=DBG) as p:
        with pytest.raises(etprof.UsageError) as e:
            p.tensors(select=bad)
    assert e.value.exit_code == 2 and e.value.path
