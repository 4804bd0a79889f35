#!/usr/bin/env python3
"""release_json: today's JSON and CSV of every command equal release 0.1.0's (commit 54cb14b,
tests/data/release-0.1.0/, made by tests/tools/make_release_snapshot.sh), except the outputs
listed in tests/data/release-0.1.0/INTENDED_DIFFERENCES.md; for those, every member of the
0.1.0 JSON must still be there (fields are added, never removed: docs/json-contract.md).
usage: test_release_json.py ETPROF DATA_DIR"""
import gzip, json, os, re, subprocess, sys

ET, DATA = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
REF = os.path.join(DATA, "release-0.1.0")
HERE = os.path.dirname(os.path.abspath(__file__))
intended = set(re.findall(r"^- `([^`]+)`", open(os.path.join(REF, "INTENDED_DIFFERENCES.md")).read(), re.M))
fails = checked = 0

def subset(old, new, path="$"):
    """every member of old is in new (objects), arrays element by element"""
    if isinstance(old, dict):
        if not isinstance(new, dict):
            return "%s: no longer an object" % path
        for k, v in old.items():
            if k not in new:
                return "%s.%s: removed" % (path, k)
            e = subset(v, new[k], path + "." + k)
            if e:
                return e
    elif isinstance(old, list) and isinstance(new, list):
        for i, (a, b) in enumerate(zip(old, new)):
            e = subset(a, b, "%s[%d]" % (path, i))
            if e:
                return e
    return None

for line in open(os.path.join(HERE, "tools", "release_cases.txt")):
    if line.startswith("#") or not line.strip():
        continue
    name, *args = line.split()
    for fmt in ("json", "csv"):
        key = name + "." + fmt
        ref = gzip.open(os.path.join(REF, key + ".gz")).read()
        rc_ref = int(open(os.path.join(REF, key + ".rc")).read())
        p = subprocess.run([ET, "-f", fmt] + args, cwd=DATA, capture_output=True,
                           env=dict(os.environ, COLUMNS="100"))
        checked += 1
        err = None
        if p.returncode != rc_ref:
            err = "exit %d, 0.1.0 exited %d" % (p.returncode, rc_ref)
        elif fmt == "csv" and p.stdout != ref and key not in intended:
            err = "CSV differs"
        elif fmt == "json" and ref.strip():
            old, new = json.loads(ref), json.loads(p.stdout)
            if key in intended:
                err = subset(old, new)
            elif old != new or list(old) != list(new):
                err = "JSON differs (not in INTENDED_DIFFERENCES.md)"
        if err:
            fails += 1
            print("FAIL: %s (etprof -f %s %s): %s" % (key, fmt, " ".join(args), err))
print("%d outputs compared with release 0.1.0, %d failed, %d intended differences listed" % (checked, fails, len(intended)))
sys.exit(1 if fails else 0)
