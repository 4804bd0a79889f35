#!/usr/bin/env python3
"""etprof compare: a dump against itself (MSE 0, SNR inf, cosine 1); against a copy of its
debug buffer with one element of one tensor perturbed (that tensor is the first divergence; its
MSE, max/mean |diff|, SNR and cosine equal the figures computed here from the bytes with
struct); --fail-below-snr gates with exit 7; a missing buffer is a usage error.

usage: test_compare.py ETPROF DATA_DIR TMP"""
import json
import math
import os
import shutil
import struct
import subprocess
import sys

E, DATA, T = sys.argv[1:4]
shutil.rmtree(T, ignore_errors=True)
os.makedirs(T)
fails = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        fails.append(what)


D = os.path.join(DATA, "real", "module_linear_intermediate_1x")
dump, buf = D + ".etdp", D + ".debug.bin"
PTE = os.path.join(DATA, "upstream", "module_linear_no_constant_segment.pte")


def compare(b, n, bb, nb, *extra):
    r = subprocess.run([E, "compare", b, n, "--debug-buffer", bb, "--debug-buffer-new", nb] +
                       list(extra) + ["--format", "json"], capture_output=True, text=True)
    return r.returncode, (json.loads(r.stdout) if r.stdout.strip() else None), r.stderr


rc, doc, err = compare(dump, dump, buf, buf)
check(rc == 0, "self: exit 0 (%s)" % err.strip())
rows = doc["tensors"]
check(len(rows) == 3 and all(t["status"] == "matched" for t in rows),
      "self: the 3 logged tensors (MANIFEST) matched")
check(all(t["mse"] == 0 and t["max_abs"] == 0 and t["snr_db"] == "Infinity" and t["cosine"] == 1
          for t in rows), "self: MSE 0, SNR inf, cosine 1")
check(doc["first_divergence"] is None, "self: no divergence")

# perturb element 2 of the tensor at byte 112 (instruction 1; MANIFEST: f32@112[2, 2] = 5.0 x4)
raw = bytearray(open(buf, "rb").read())
base_vals = list(struct.unpack_from("<4f", raw, 112))
struct.pack_into("<f", raw, 112 + 8, 5.5)
new_vals = list(struct.unpack_from("<4f", raw, 112))
pb = os.path.join(T, "perturbed.bin")
open(pb, "wb").write(raw)
rc, doc, err = compare(dump, dump, buf, pb)
check(rc == 0, "perturbed: exit 0 without a gate (%s)" % err.strip())
fd = doc["first_divergence"]
t = doc["tensors"][fd] if fd is not None else {}
check(t.get("instruction_id") == 1 and t.get("occurrence") == 0 and not t.get("output"),
      "perturbed: first divergence is instruction 1, the tensor changed (%r)" % t)
d = [x - y for x, y in zip(base_vals, new_vals)]
mse = sum(x * x for x in d) / 4
snr = 10 * math.log10(sum(x * x for x in base_vals) / sum(x * x for x in d))
cos = sum(x * y for x, y in zip(base_vals, new_vals)) / (
    math.sqrt(sum(x * x for x in base_vals)) * math.sqrt(sum(y * y for y in new_vals)))
check(math.isclose(t.get("mse", 0), mse, rel_tol=1e-12) and
      math.isclose(t.get("max_abs", 0), 0.5, rel_tol=1e-12) and
      math.isclose(t.get("l1", 0), 0.125, rel_tol=1e-12) and
      math.isclose(t.get("snr_db", 0), snr, rel_tol=1e-12) and
      math.isclose(t.get("cosine", 0), cos, rel_tol=1e-12),
      "perturbed: MSE %g, max 0.5, mean 0.125, SNR %.4f dB, cosine %.8f (got %r)" % (mse, snr, cos, t))
others = [x for i, x in enumerate(doc["tensors"]) if i != fd]
check(all(x["snr_db"] == "Infinity" for x in others), "perturbed: the other tensors are identical")
# the gate
rc, _, err = compare(dump, dump, buf, pb, "--fail-below-snr", str(math.floor(snr) + 1))
check(rc == 7 and "exit 7" in err, "gate above the SNR: exit 7 (%d, %r)" % (rc, err))
rc, _, err = compare(dump, dump, buf, pb, "--fail-below-snr", str(math.floor(snr) - 1))
check(rc == 0, "gate below the SNR: exit 0 (%d, %r)" % (rc, err))
# with the program: operators named
if os.path.exists(PTE):
    rc, doc, err = compare(dump, dump, buf, pb, "--pte", PTE)
    check(rc == 0 and doc["tensors"][doc["first_divergence"]]["operator"],
          "--pte: the diverging tensor's operator is named (%r)" %
          (doc["tensors"][doc["first_divergence"]]["operator"] if rc == 0 else err))
# errors
r = subprocess.run([E, "compare", dump, dump, "--debug-buffer", buf], capture_output=True, text=True)
check(r.returncode == 2 and "--debug-buffer-new" in r.stderr, "one buffer only: usage error")
short = os.path.join(T, "short.bin")
open(short, "wb").write(bytes(raw[:100]))
rc, _, err = compare(dump, dump, buf, short)
check(rc == 1 and short in err and "outside the debug buffer" in err,
      "a tensor past the end of NEW's buffer: located error (%r)" % err)
sys.exit(1 if fails else 0)
