#!/usr/bin/env python3
"""A clock that did not run is said, never shown as measured times. Dumps are built here with
flatc (the second encoder) from real/add_pte_10x.etdp with every profile event's timestamps
replaced: 0 at both ends (the Arm bare-metal runner's et_pal_current_ticks() on a Cortex-M core
without a PMU returns 0) and 11223344 at both ends (the minimal PAL's constant). Expected: the
note naming the cause in ops, summary, tree and explain (JSON notes) and in the report, the
trace's flag, and neither note
on the untouched dump.

    test_no_clock.py ETPROF DATA_DIR SCHEMA_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "tools"))
from flatc_io import flatc_bin, flatc_json  # noqa: E402

E, D, S = sys.argv[1], sys.argv[2], sys.argv[3]
if not shutil.which("flatc"):
    print("SKIP: flatc (Debian's flatbuffers-compiler) is not installed")
    sys.exit(77)
T = tempfile.mkdtemp(prefix="etprof-noclock-")
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)


SCHEMA = os.path.join(S, "etdump.fbs")
SRC = os.path.join(D, "real", "add_pte_10x.etdp")
NO_CLOCK = "some host timestamps are 0 at both ends: the clock returned 0"
MINIMAL = "some timestamps are 11223344: the minimal PAL has no clock"


def with_times(value, name):
    doc = flatc_json(SCHEMA, SRC, T, size_prefixed=True, defaults=True)
    n = 0
    for block in doc["run_data"]:
        for ev in block.get("events") or []:
            p = ev.get("profile_event")
            if p:
                p["start_time"] = p["end_time"] = value
                n += 1
    check(n > 30, f"{name}: only {n} profile events rewritten")
    return flatc_bin(SCHEMA, doc, name, T, size_prefixed=True)


def notes(cmd, path, *extra):
    p = subprocess.run([E, cmd, path, *extra, "--format", "json"], capture_output=True, text=True)
    check(p.returncode == 0, f"{cmd} {os.path.basename(path)}: exit {p.returncode}: {p.stderr}")
    return json.loads(p.stdout).get("notes", []) if p.returncode == 0 else []


for value, want, flag, name in ((0, NO_CLOCK, "no_clock", "zero"),
                                (11223344, MINIMAL, "minimal_pal", "minimal")):
    f = with_times(value, name)
    for cmd in ("ops", "summary", "tree", "explain"):
        got = notes(cmd, f)
        check(any(x.startswith(want) for x in got), f"{name}: {cmd} does not say it: {got}")
        other = MINIMAL if want == NO_CLOCK else NO_CLOCK
        check(not any(x.startswith(other) for x in got), f"{name}: {cmd} names the other cause")
    html = os.path.join(T, name + ".html")
    p = subprocess.run([E, "report", f, "-o", html], capture_output=True, text=True)
    check(p.returncode == 0 and want in open(html, encoding="utf-8").read(),
          f"{name}: the report does not say it")
    tr = os.path.join(T, name + ".trace.json")
    p = subprocess.run([E, "trace", f, "-o", tr], capture_output=True, text=True)
    check(p.returncode == 0, f"{name}: trace exit {p.returncode}: {p.stderr}")
    if p.returncode == 0:
        evs = json.load(open(tr))["traceEvents"]
        ex = [e for e in evs if e.get("name") == "Method::execute" and e.get("ph") == "X"]
        check(ex and all(flag in e["args"].get("flags", []) for e in ex),
              f"{name}: Method::execute slices lack the {flag} flag")
for cmd in ("ops", "summary", "tree", "explain"):
    got = notes(cmd, SRC)
    check(not any(x.startswith(NO_CLOCK) or x.startswith(MINIMAL) for x in got),
          f"the real dump: {cmd} claims a stopped clock: {got}")

shutil.rmtree(T, ignore_errors=True)
for f in fails:
    print("FAIL:", f)
print(f"{'FAIL' if fails else 'ok'}: stopped clocks ({len(fails)} failures)")
sys.exit(1 if fails else 0)
