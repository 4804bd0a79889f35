#!/usr/bin/python3
"""bench/python_api.py - the Python package as a user feels it (issue 32), one run, one table.

    /usr/bin/python3 bench/python_api.py [BUILD_DIR]      (default build; needs bench/etprof-gen,
                                                         the build's python/ module, flatc, pandas)

On a generated QNN LLM-style dump (etprof-gen --style qnn --size ${BENCH_SIZE:-42M} --seed 1, with
its program), BENCH_ROUNDS rounds (default 5), medians of wall (perf_counter) and CPU (getrusage,
children included) time:

  import        a fresh `python3 -c "import etprof"` (pandas must not be imported by it; checked),
                minus a fresh `python3 -c pass`; bytecode written first
  events()      Profile.events() -> DataFrame of every event, in one process that imported
                etprof and pandas
  ops() first   the first Profile.open(F, P).ops() of a fresh process after the imports, and
  ops() later   the same on a new Profile in that process afterwards (no result reused: each
                Profile computes its own)
  baseline      ExecuTorch's Inspector(etdump_path=F).to_dataframe() when ETPROF_INSPECTOR_PARENT
                names the directory holding an ExecuTorch checkout's `executorch` package (its
                devtools importable; torch must be importable there); otherwise flatc -> JSON +
                json.load (the Inspector's own first two steps) stands in, and the table says so
  script        whole scripts in fresh interpreters: etprof (python3, import etprof, open, ops)
                against the baseline's (python3, import, baseline step)

The ratios ops()/baseline and script/script are of one run: the steps are interleaved round by
round on this shared machine, so load falls on both sides alike.
"""
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build"))
SIZE = os.environ.get("BENCH_SIZE", "42M")
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
PY = "/usr/bin/python3"
OUT = os.path.join(ROOT, "bench", "out")
SCHEMA = os.path.join(ROOT, "schema", "etdump.fbs")
GEN = os.environ.get("ETPROF_GEN", os.path.join(BUILD, "bench", "etprof-gen"))
PYLIB = os.path.join(BUILD, "python")
ENV = dict(os.environ, PYTHONPATH=PYLIB)
ENV.pop("PYTHONDONTWRITEBYTECODE", None)


def cpu():
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime


def timed(fn):
    t, c = time.perf_counter(), cpu()
    fn()
    return time.perf_counter() - t, cpu() - c


def fresh(code, *args):
    """A fresh interpreter running code: its wall and CPU (children) time."""
    def run():
        subprocess.run([PY, "-c", code, *args], check=True, env=ENV)
    return timed(run)


def main():
    os.makedirs(OUT, exist_ok=True)
    f = os.path.join(OUT, "py-qnn-%s.etdp" % SIZE)
    p = os.path.join(OUT, "py-qnn-%s.pte" % SIZE)
    if not os.path.exists(f):
        subprocess.run([GEN, "--style", "qnn", "--size", SIZE, "--seed", "1", "--pte", p, "-o", f],
                       check=True, stdout=subprocess.DEVNULL)
    sys.path.insert(0, PYLIB)
    # bytecode once, then the import alone must leave pandas out
    subprocess.run([PY, "-c", "import etprof"], check=True, env=ENV)
    chk = subprocess.run([PY, "-c", "import sys, etprof; print(int('pandas' in sys.modules))"],
                         check=True, env=ENV, capture_output=True, text=True).stdout.strip()
    assert chk == "0", "import etprof imported pandas"

    inspector_parent = os.environ.get("ETPROF_INSPECTOR_PARENT")
    baseline_name, why = "flatc -> JSON + json.load (stands in for the Inspector)", ""
    base_code = None
    if inspector_parent:
        probe = subprocess.run([PY, "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
                                "from executorch.devtools import Inspector", inspector_parent],
                               capture_output=True, text=True)
        if probe.returncode == 0:
            baseline_name = "ExecuTorch Inspector(etdump_path=F).to_dataframe()"
            base_code = ("import sys; sys.path.insert(0, sys.argv[2]); "
                         "from executorch.devtools import Inspector; "
                         "Inspector(etdump_path=sys.argv[1]).to_dataframe()")
        else:
            why = " (ETPROF_INSPECTOR_PARENT=%s does not import: %s)" % (
                inspector_parent, (probe.stderr.strip().splitlines() or ["?"])[-1])
    else:
        why = " (ETPROF_INSPECTOR_PARENT not set)"
    tmp = tempfile.mkdtemp()
    if base_code is None:
        base_code = ("import json, os, subprocess, sys; t = sys.argv[3]; "
                     "subprocess.run(['flatc', '--json', '--strict-json', '--raw-binary', "
                     "'--size-prefixed', '-o', t, sys.argv[2], '--', sys.argv[1]], check=True); "
                     "json.load(open(os.path.join(t, os.path.splitext(os.path.basename("
                     "sys.argv[1]))[0] + '.json')))")
        base_args = (f, SCHEMA, tmp)
    else:
        base_args = (f, inspector_parent)

    import etprof  # noqa: E402
    import pandas  # noqa: E402,F401

    def baseline_in_process():
        g = {"__name__": "baseline"}
        saved = sys.argv
        sys.argv = ["-c", *base_args]
        try:
            exec(base_code, g)  # noqa: S102 (our own code string)
        finally:
            sys.argv = saved

    rows = {k: [] for k in ("import", "events()", "ops() first", "ops() later", "baseline",
                            "script etprof", "script baseline")}
    nev = None
    for _ in range(ROUNDS):
        w0, c0 = fresh("pass")
        w1, c1 = fresh("import etprof")
        rows["import"].append((w1 - w0, c1 - c0))
        prof = etprof.open(f, p)
        nev = prof._p.events
        rows["events()"].append(timed(lambda: prof.events()))
        prof.close()
        # first ops() of a fresh process after its imports, reported by that process
        out = subprocess.run([PY, "-c", "import sys, time, resource, etprof, pandas\n"
                              "def c():\n r = resource.getrusage(resource.RUSAGE_SELF)\n"
                              " return r.ru_utime + r.ru_stime\n"
                              "t, k = time.perf_counter(), c()\n"
                              "etprof.open(sys.argv[1], sys.argv[2]).ops()\n"
                              "print(time.perf_counter() - t, c() - k)", f, p],
                             check=True, env=ENV, capture_output=True, text=True).stdout.split()
        rows["ops() first"].append((float(out[0]), float(out[1])))
        rows["ops() later"].append(timed(lambda: etprof.open(f, p).ops()))
        rows["baseline"].append(timed(baseline_in_process))
        rows["script etprof"].append(fresh("import sys, etprof; etprof.open(sys.argv[1], "
                                           "sys.argv[2]).ops()", f, p))
        rows["script baseline"].append(fresh(base_code, *base_args))

    med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v))
           for k, v in rows.items()}
    load = open("/proc/loadavg").read().split()[:3]
    print("Dump %s (%.1f MB, %d events), %d rounds, load average %s; baseline: %s%s" % (
        os.path.basename(f), os.path.getsize(f) / 1e6, nev, ROUNDS, " ".join(load),
        baseline_name, why))
    print()
    print("| step | wall s (median) | CPU s (median) | vs baseline (wall) | vs baseline (CPU) |")
    print("|---|---:|---:|---:|---:|")
    for k, (w, c) in med.items():
        ref = med["script baseline"] if k.startswith("script") else med["baseline"]
        ratio = k.startswith("ops") or k.startswith("script etprof")
        print("| %s | %.4f | %.4f | %s | %s |" % (
            k, w, c, "%.1fx" % (ref[0] / w) if ratio and w > 0 else "",
            "%.1fx" % (ref[1] / c) if ratio and c > 0 else ""))
    json.dump({k: {"wall": w, "cpu": c} for k, (w, c) in med.items()},
              open(os.path.join(OUT, "python_api.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
