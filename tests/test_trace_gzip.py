#!/usr/bin/env python3
"""etprof trace -o NAME.gz: the trace gzip-compressed (RFC 1952, Python's gzip module as the
independent decoder) is byte-identical to the plain trace once decompressed, valid JSON; a write
failure through the compressor gives the one located line and exit 3, and no file is left.

usage: test_trace_gzip.py ETPROF DATA_DIR TMP_DIR"""
import gzip
import json
import os
import shutil
import subprocess
import sys

etprof, data, tmp = sys.argv[1:4]
shutil.rmtree(tmp, ignore_errors=True)
os.makedirs(tmp)
fails = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        fails.append(what)


for dump, pte in (("fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp",
                   "upstream/stories260k_hybrid_llama_qnn.pte"),
                  ("real/add_pte_100x.etdp", "upstream/add.pte")):
    base = os.path.join(tmp, os.path.basename(dump))
    args = [etprof, "-q", "trace", os.path.join(data, dump), "--pte", os.path.join(data, pte)]
    r1 = subprocess.run(args + ["-o", base + ".json"], capture_output=True)
    r2 = subprocess.run(args + ["-o", base + ".json.gz"], capture_output=True)
    check(r1.returncode == 0 and r2.returncode == 0, "%s: both traces written" % dump)
    plain = open(base + ".json", "rb").read()
    with open(base + ".json.gz", "rb") as f:
        raw = f.read()
    check(raw[:2] == b"\x1f\x8b", "%s: a gzip file (magic 1f 8b)" % dump)
    unz = gzip.decompress(raw)
    check(unz == plain, "%s: decompressed = the plain trace (%d bytes, %d compressed)" %
          (dump, len(plain), len(raw)))
    check(len(raw) < len(plain) / 3, "%s: compressed to under a third" % dump)
    doc = json.loads(unz)
    check(len(doc["traceEvents"]) > 0, "%s: Trace Event JSON" % dump)
    # --runs applies the same way
    r3 = subprocess.run(args + ["--runs", "2-3", "-o", base + ".sub.json.gz"],
                        capture_output=True)
    r4 = subprocess.run(args + ["--runs", "2-3", "-o", base + ".sub.json"], capture_output=True)
    check(r3.returncode == 0 and r4.returncode == 0 and
          gzip.decompress(open(base + ".sub.json.gz", "rb").read()) ==
          open(base + ".sub.json", "rb").read(), "%s: --runs 2-3 gzip = plain" % dump)

# a write failure inside the compressor: a .gz name pointing at /dev/full
full = os.path.join(tmp, "full.json.gz")
os.symlink("/dev/full", full)
r = subprocess.run([etprof, "-q", "trace", os.path.join(data, "real/add_pte_100x.etdp"), "-o",
                    full], capture_output=True, text=True)
lines = r.stderr.strip().splitlines()
check(r.returncode == 3, "/dev/full: exit 3 (got %d)" % r.returncode)
check(len(lines) == 1 and full in lines[0] and "write failed" in lines[0] and
      "No space left on device" in lines[0], "/dev/full: one located line: %r" % r.stderr)
left = [n for n in os.listdir(tmp) if n.endswith(".tmp")]
check(not left, "no temporary file left (%s)" % left)
sys.exit(1 if fails else 0)
