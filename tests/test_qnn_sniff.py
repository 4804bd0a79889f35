#!/usr/bin/env python3
"""QNN inputs are sniffed before they are read (issue 16.2): a device, a binary or a stream that
is not text is rejected from its first bytes with one located line (exit 1), never read to the
4 GiB stream limit. Expected: every QNN option of `etprof qnn` (its --help) rejects /dev/zero,
/dev/urandom and 200 MB of zeros on stdin, at a peak RSS far below the input (< 64 MiB), and
names an ETDump or a program given in place of a QNN file. Every input slot (the QNN options,
the ETDump, --pte, --etrecord) given another kind of file names that kind.

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

# Every input slot given each other kind of file names what the file is (exit 1, one located
# line, no output), and a broken file of the slot's own kind is not called something else. The
# kinds are what these files are (tests/data/MANIFEST.md, tests/data/qnn-fixtures), not what
# etprof says of them.
KINDS = {
    "qnn-fixtures/optrace_small.json": "a QNN optrace",
    "qnn-fixtures/qhas_small.json": "a QNN HTP analysis summary",
    "qnn-fixtures/runtrace_small.json": "a QNN runtrace",
    "qnn-fixtures/heap_ok.txt": "a QNN DSP heap file",
    "qnn-fixtures/viewer_small.txt": "qnn-profile-viewer's text output",
    "qnn-fixtures/viewer_small.csv": "qnn-profile-viewer's CSV output",
    "real/add_pte_1x.etdp": "an ETDump",
    "upstream/add.pte": "an ExecuTorch program",
}
DUMP = os.path.join(D, "real", "add_pte_1x.etdp")
# slot -> (etprof arguments before the file, the file kind it takes)
SLOTS = {
    "--qhas": (["qnn", "--qhas"], "qnn-fixtures/qhas_small.json"),
    "--optrace": (["qnn", "--optrace"], "qnn-fixtures/optrace_small.json"),
    "--runtrace": (["qnn", "--qhas", QHAS, "--runtrace"], "qnn-fixtures/runtrace_small.json"),
    "--heap": (["qnn", "--qhas", QHAS, "--heap"], "qnn-fixtures/heap_ok.txt"),
    "--profile-log": (["qnn", "--profile-log"], "qnn-fixtures/viewer_small.txt"),
    "--profile-csv": (["qnn", "--profile-csv"], "qnn-fixtures/viewer_small.csv"),
    "ETDUMP": (["ops"], "real/add_pte_1x.etdp"),
    "--pte": (["info", DUMP, "--pte"], "upstream/add.pte"),
    "--etrecord": (["ops", DUMP, "--etrecord"], None),
}
for slot, (pre, own) in SLOTS.items():
    for rel, kind in KINDS.items():
        path = os.path.join(D, rel)
        p = subprocess.run([E, *pre, path], capture_output=True, text=True, timeout=60)
        if rel == own:
            check(p.returncode == 0, f"{slot} {rel}: its own kind refused: {p.stderr!r}")
            continue
        lines = p.stderr.strip().splitlines()
        check(p.returncode == 1 and p.stdout == "" and len(lines) == 1 and
              lines[0].startswith(f"etprof: {path}: "),
              f"{slot} {rel}: exit {p.returncode}, not one located line: {p.stderr!r}")
        check(f"this looks like {kind}" in p.stderr or f"this is {kind}, not " in p.stderr,
              f"{slot} {rel}: does not say it is {kind}: {p.stderr!r}")
for pre, rel in ((["qnn", "--qhas"], "qhas_truncated.json"),
                 (["qnn", "--optrace"], "optrace_bad_flags.json"),
                 (["qnn", "--qhas", QHAS, "--heap"], "heap_bad_value.txt"),
                 (["qnn", "--profile-log"], "viewer_bad_line.txt"),
                 (["qnn", "--profile-csv"], "viewer_bad_fields.csv")):
    p = subprocess.run([E, *pre, os.path.join(D, "qnn-fixtures", rel)], capture_output=True,
                       text=True, timeout=60)
    check(p.returncode == 1 and "this looks like" not in p.stderr and "this is" not in p.stderr,
          f"{rel}: a broken file of the slot's own kind is called something else: {p.stderr!r}")

for f in fails:
    print("FAIL:", f)
print(f"{'FAIL' if fails else 'ok'}: QNN input sniffing ({len(fails)} failures)")
sys.exit(1 if fails else 0)
