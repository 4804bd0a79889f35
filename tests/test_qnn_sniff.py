#!/usr/bin/env python3
"""QNN inputs are sniffed before they are read (issue 16.2): a device, a binary or a stream that
is not text is rejected from its first bytes with one located line (exit 1), never read to the
4 GiB stream limit. Expected: every QNN option of `etprof qnn` (its --help) rejects /dev/zero,
/dev/urandom and 200 MB of zeros on stdin, at a peak RSS far below the input (< 64 MiB), and
names an ETDump or a program given in place of a QNN file.

    test_qnn_sniff.py ETPROF DATA_DIR
"""
import os
import resource
import subprocess
import sys

E, D = sys.argv[1], sys.argv[2]
OPTS = ["--qhas", "--optrace", "--runtrace", "--heap", "--profile-log", "--profile-csv"]
# --runtrace and --heap come with a QHAS (a valid one from tests/data)
QHAS = os.path.join(D, "qnn-fixtures", "qhas_small.json")
WITH = {"--runtrace": ["--qhas", QHAS], "--heap": ["--qhas", QHAS]}
fails = []


def run(args, stdin=None):
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    p = subprocess.run([E, "qnn", *args], stdin=stdin, capture_output=True, text=True, timeout=60)
    # ru_maxrss of children is the largest so far: only meaningful when it grows past `before`
    peak = max(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, before)
    return p, peak


def check(cond, what):
    if not cond:
        fails.append(what)


for opt in OPTS:
    for dev in ("/dev/zero", "/dev/urandom"):
        p, peak = run([*WITH.get(opt, []), opt, dev])
        check(p.returncode == 1, f"{opt} {dev}: exit {p.returncode}, want 1: {p.stderr}")
        lines = p.stderr.strip().splitlines()
        check(len(lines) == 1 and lines[0].startswith(f"etprof: {dev}: offset ") and
              "not a text file" in lines[0], f"{opt} {dev}: not one located line: {p.stderr!r}")
        check(p.stdout == "", f"{opt} {dev}: wrote output")
        check(peak < 64 * 1024, f"{opt} {dev}: peak RSS {peak} KiB")
    z = subprocess.Popen(["head", "-c", "200000000", "/dev/zero"], stdout=subprocess.PIPE)
    p, peak = run([*WITH.get(opt, []), opt, "-"], stdin=z.stdout)
    z.stdout.close()
    z.wait()
    check(p.returncode == 1 and "not a text file" in p.stderr, f"{opt} - (zeros): {p.stderr!r}")
    check(peak < 64 * 1024, f"{opt} - (200 MB of zeros): peak RSS {peak} KiB")

for path, kind in ((os.path.join(D, "real", "add_pte_1x.etdp"), "ETDump"),
                   (os.path.join(D, "upstream", "add.pte"), "ExecuTorch program")):
    with open(path, "rb") as f:  # through stdin: a stream (a regular file is located by line)
        p, _ = run(["--qhas", "-"], stdin=f)
    check(p.returncode == 1 and f"this looks like an {kind}" in p.stderr,
          f"--qhas {os.path.basename(path)}: does not say it is an {kind}: {p.stderr!r}")

for f in fails:
    print("FAIL:", f)
print(f"{'FAIL' if fails else 'ok'}: QNN input sniffing ({len(fails)} failures)")
sys.exit(1 if fails else 0)
