#!/usr/bin/env python3
"""Backend decoders (issue 14.2). usage: test_backends.py ETPROF TEST_DATA SHARED_DIR
Fixture part: tests/data/flatc-built/backends.json (flatc-built; values by hand below).
Real part: ../shared/corpus/external/xnnpack_mobilenet_v2_tutorial.etdp against the Inspector CSV
beside it (skipped with a message when ../shared is absent). Exit 0 pass, 1 fail."""
import csv, json, math, os, subprocess, sys

etprof, data, shared = sys.argv[1:4]
fails = []

def check(what, got, want, tol=1e-6):
    ok = (abs(got - want) <= tol * max(1.0, abs(want))) if isinstance(want, float) else got == want
    if not ok:
        fails.append("%s: got %r, want %r" % (what, got, want))

def run_json(*args):
    return json.loads(subprocess.run([etprof, *args, "--format", "json"], check=True,
                                     capture_output=True, text=True).stdout)

# ---- fixture: hand values from backends.json (ticks at the default rate: 1 tick = 1 ns) ----
fx = os.path.join(data, "flatc-built", "backends.etdp")
dl = run_json("summary", fx)["methods"][0]["delegates"]
check("fixture delegates", len(dl), 2)
x, u = dl[0], dl[1]
check("fixture xnnpack inferred", (x["backend_name"], x["backend_source"]), ("XnnpackBackend", "inferred"))
check("fixture xnnpack delegate us", x["delegate_call"]["total"], 1.0)     # 2000 - 1000 ns
check("fixture xnnpack inner sum us", x["backend_time"]["total"], 0.7)     # 300 + 400 ns
check("fixture xnnpack gap us", x["overhead"]["total"], 0.3)               # 1000 - 700 ns
check("fixture xnnpack inner rows", x["inner_rows"], 2)
check("fixture int ids not inferred", (u["backend_name"], u["backend_source"]), (None, None))
ev = run_json("events", fx)["events"]
meta = {e["delegate_debug_id_int"]: (e["delegate_debug_metadata"], e["delegate_debug_metadata_text"])
        for e in ev if e.get("delegate_debug_id_int", -1) >= 0}
check("metadata json", meta[0], ("7b2261223a317d", '{"a":1}'))
check("metadata binary stays hex", meta[1], ("ff0007", None))
check("metadata text, trailing NUL dropped", meta[2], ("686900", "hi"))

# ---- the real XNNPACK dump ----
ext = os.path.join(shared, "corpus", "external")
dump = os.path.join(ext, "xnnpack_mobilenet_v2_tutorial.etdp")
csvp = os.path.join(ext, "xnnpack_mobilenet_v2_tutorial.inspector.csv")
if not (os.path.exists(dump) and os.path.exists(csvp)):
    print("SKIP real-dump part: %s absent (the shared corpus is not here)" % dump)
else:
    rows = list(csv.DictReader(open(csvp)))
    start = lambda r: int(r["start_time"].strip("[]"))
    ms = lambda r: float(r["p50 (ms)"])
    calls = sorted((r for r in rows if r["event_name"] == "DELEGATE_CALL"), key=start)
    inner = [r for r in rows if r["is_delegated_op"] == "True"]
    check("csv names XnnpackBackend", {r["delegate_backend_name"] for r in calls}, {"XnnpackBackend"})
    dl = run_json("summary", dump)["methods"][0]["delegates"]
    check("real delegates", len(dl), len(calls))
    for d, c in zip(dl, calls):
        check("real backend inferred", (d["backend_name"], d["backend_source"]), ("XnnpackBackend", "inferred"))
        check("real unit", d["unit"], "us")
        # inner ops of this DELEGATE_CALL: those starting inside its window (CSV start ticks, ns)
        lo, hi = start(c), start(c) + ms(c) * 1e6
        mine = [r for r in inner if lo <= start(r) <= hi]
        check("real inner rows", d["inner_rows"], len(mine))
        want_sum = sum(ms(r) for r in mine) * 1000.0
        check("real delegate p50 us", d["delegate_call"]["p50"], ms(c) * 1000.0)
        check("real inner sum us", d["backend_time"]["total"], want_sum, 1e-6)
        check("real gap us", d["overhead"]["total"], ms(c) * 1000.0 - want_sum, 1e-6)
    ops = run_json("ops", dump)["rows"]
    # a name can repeat across the two partitions ("... GEMM #1"): compare per name, sorted
    got, want = {}, {}
    for r in ops:
        if r["kind"] == "delegate_internal": got.setdefault(r["name"], []).append(r["p50"])
    for r in inner: want.setdefault(r["event_name"], []).append(ms(r) * 1000.0)
    check("real op rows", sum(map(len, got.values())), len(inner))
    check("real op names", sorted(got), sorted(want))
    for n in want:
        g, w = sorted(got.get(n, [])), sorted(want[n])
        if len(g) != len(w): fails.append("op %s: %d rows, want %d" % (n, len(g), len(w))); continue
        for a, b in zip(g, w): check("real op p50 us " + n, a, b, 1e-6)

for f in fails: print("FAIL", f)
print("%s: %d failure(s)" % ("FAIL" if fails else "ok", len(fails)))
sys.exit(1 if fails else 0)
