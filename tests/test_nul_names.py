#!/usr/bin/env python3
"""Names with NUL bytes inside (legal in a FlatBuffer string: it carries its length).

The QNN node string "aten_squeeze_copy_dims_15:OpId_2447 (cycles)" of a corpus dump is patched in
place (same length) to hold a NUL after "aten_squ". Before the fix the op name was copied with the
length measured in the file out of a copy measured with strlen (heap out-of-bounds read). Now every
view shows the name escaped (NUL as \\0) and keeps it apart from other names; the operator is the
part before ":OpId_", cut on the escaped name. Expected strings are written out by hand here.

usage: test_nul_names.py ETPROF DATA_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

etprof, data = sys.argv[1], sys.argv[2]
src = os.path.join(data, "fake-qnn-backend", "stories260k_qnn_kv_forward_1x.etdp")
pte = os.path.join(data, "upstream", "stories260k_hybrid_llama_qnn.pte")
old = b"aten_squeeze_copy_dims_15:OpId_2447 (cycles)"
new = b"aten_squ\0eze_copy_dims_15:OpId_2447 (cycles)"
shown = "aten_squ\\0eze_copy_dims_15:OpId_2447 (cycles)"
shown_op = "aten_squ\\0eze_copy_dims_15"
fails = 0


def check(cond, what):
    global fails
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        fails += 1


with tempfile.TemporaryDirectory() as tmp:
    raw = open(src, "rb").read()
    check(raw.count(old) == 1, "the corpus dump holds the node string once")
    dump = os.path.join(tmp, "nul.etdp")
    with open(dump, "wb") as f:
        f.write(raw.replace(old, new))

    def run(*args):
        p = subprocess.run([etprof, *args], capture_output=True)
        return p.returncode, p.stdout, p.stderr

    rc, out, err = run("ops", dump, "--pte", pte, "--format", "json")
    check(rc == 0, "ops exits 0 (%d: %s)" % (rc, err.decode(errors="replace").strip()))
    rows = json.loads(out)["rows"] if rc == 0 else []
    hit = [r for r in rows if r["name"] == shown]
    check(len(hit) == 1, "one ops row named %r" % shown)
    if hit:
        check(hit[0]["operator"] == shown_op, "its operator is %r (got %r)" % (shown_op, hit[0]["operator"]))
        check(hit[0]["unit"] == "cycles", "its unit is cycles")
    check(not any("\0" in (r["name"] or "") or "\0" in (r["operator"] or "") for r in rows),
          "no row name or operator holds a NUL")
    # The unpatched names are all still there: nothing else changed.
    rc0, out0, _ = run("ops", src, "--pte", pte, "--format", "json")
    names0 = sorted(r["name"] for r in json.loads(out0)["rows"])
    names1 = sorted(r["name"] if r["name"] != shown else old.decode() for r in rows)
    check(names0 == names1, "the other rows are those of the unpatched dump")
    # Every view reads it without error, and the text views show the escaped name.
    for cmd in ("tree", "summary", "explain", "info", "events"):
        args = [cmd, dump] + (["--pte", pte] if cmd != "events" else [])
        rc, out, err = run(*args)
        check(rc == 0, "%s exits 0 (%d: %s)" % (cmd, rc, err.decode(errors="replace").strip()))
        check(b"\0" not in out, "%s prints no NUL byte" % cmd)
    rc, out, err = run("tree", dump, "--pte", pte, "--format", "json")
    check(rc == 0 and shown.encode() in out.replace(b"\\\\", b"\\"), "tree JSON names the node escaped")
    for cmd in ("trace", "report"):
        o = os.path.join(tmp, cmd + ".out")
        rc, out, err = run(cmd, dump, "--pte", pte, "-o", o)
        check(rc == 0 and os.path.getsize(o) > 0, "%s writes its file" % cmd)

print("%d failed" % fails)
sys.exit(1 if fails else 0)
