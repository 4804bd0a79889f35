#!/usr/bin/env python3
"""Each backend decoder (src/analyze/backends/*.c, issue 14.2) on its fixture, expected values computed
here from the fixture's flatc JSON (tests/data/flatc-built/{coreml,vulkan,neutron,vgf}.json,
built with `flatc -b --size-prefixed schema/etdump.fbs X.json`), and the Ethos-U figures on the
real dumps of tests/data/ethosu-partial-delegation against flatc's decode of them
(tests/tools/flatc_events.py, a second decoder).

usage: test_backend_decoders.py ETPROF DATA_DIR SCHEMA_DIR   (exit 77 when flatc is missing)"""
import base64, json, os, shutil, subprocess, sys

E, D, S = sys.argv[1:4]
if not shutil.which("flatc"):
    print("skip: flatc not found (apt install flatbuffers-compiler)")
    sys.exit(77)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "tools"))
import flatc_events  # noqa: E402

FX = os.path.join(D, "flatc-built")
fails = []


def check(what, got, want, tol=1e-9):
    if isinstance(want, float) or isinstance(got, float):
        ok = got is not None and want is not None and abs(got - want) <= tol * max(1.0, abs(want))
    else:
        ok = got == want
    if not ok:
        fails.append("%s: got %r, want %r" % (what, got, want))


def run(*args):
    p = subprocess.run([E, *args], capture_output=True, text=True)
    if p.returncode != 0:
        fails.append("%s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.strip()))
        return ""
    return p.stdout


def summary_json(path, *extra):
    out = run("summary", path, "--format", "json", *extra)
    return json.loads(out) if out else {"backend_figures": {}, "methods": []}


def fixture(name):
    """(events of every Execute block, per block), the .etdp path"""
    doc = json.load(open(os.path.join(FX, name + ".json")))
    blocks = [[e["profile_event"] for e in b["events"] if "profile_event" in e]
              for b in doc["run_data"]]
    return blocks, os.path.join(FX, name + ".etdp")


def dur_us(p):  # 1 tick = 1 ns at the default rate; shown in us
    return (p["end_time"] - p["start_time"]) / 1000.0


def meta_bytes(p):
    return bytes(p.get("delegate_debug_metadata", []))


# ---- Core ML: compute units from the metadata JSON, times are estimates, ANE share ----------
blocks, path = fixture("coreml")
by_cu, total = {}, 0.0
for b in blocks:
    for p in b:
        m = meta_bytes(p).rstrip(b"\0")
        if not m:
            continue
        j = json.loads(m)
        cu = j["preferredComputeUnit"]
        by_cu.setdefault(cu, [0, 0.0, 0.0])
        by_cu[cu][0] += 1
        by_cu[cu][1] += dur_us(p)
        by_cu[cu][2] += j["estimatedCost"]
        total += dur_us(p)
c = summary_json(path)["backend_figures"]["coreml"]
check("coreml ops", c["ops"], sum(v[0] for v in by_cu.values()))
check("coreml times labelled", c["times"], "estimate")
check("coreml estimated total us", c["estimated_time"]["total"], total)
got = {u["preferred_compute_unit"]: u for u in c["by_compute_unit"]}
check("coreml units", sorted(got), sorted(by_cu))
for cu, (n, t, cost) in by_cu.items():
    check("coreml %s ops" % cu, got[cu]["ops"], n)
    check("coreml %s us" % cu, got[cu]["estimated_time"]["total"], t)
    check("coreml %s cost" % cu, got[cu]["estimated_cost"], cost)
check("coreml ANE share %", c["ane_share"], 100.0 * by_cu["NE"][1] / total)
check("coreml several supported units", c["ops_with_several_supported_units"], 2)
txt = run("summary", path)
check("coreml text: estimate label", "estimate (model time split by estimatedCost)" in txt, True)
check("coreml text: ANE share row",
      any("share on the ANE" in l and "%.3f" % (100.0 * by_cu["NE"][1] / total) in l
          for l in txt.splitlines()), True)

for cmd in ("ops", "tree"):
    check("coreml %s text: estimate note" % cmd, "times of its %d op event(s) are ESTIMATES"
          % sum(v[0] for v in by_cu.values()) in run(cmd, path), True)

# ---- Vulkan: JSON-object dispatch names grouped by operator, GPU clock apart from ETVK_* ----
blocks, path = fixture("vulkan")
ops, gpu, disp, execute = {}, 0.0, 0, 0.0
for b in blocks:
    for p in b:
        s = p.get("delegate_debug_id_str", "")
        if s.startswith("{"):
            j = json.loads(s)
            op = j.get("operator", {}).get("name") or j["kernel_name"]
            ops[op] = ops.get(op, 0.0) + dur_us(p)
            gpu += dur_us(p)
            disp += 1
        elif s == "ETVK_EXECUTE":
            execute += dur_us(p)
v = summary_json(path)["backend_figures"]["vulkan"]
check("vulkan dispatches", v["dispatches"], disp)
check("vulkan gpu us", v["gpu_time"]["total"], gpu)
check("vulkan gpu clock named", v["gpu_clock"].startswith("device"), True)
check("vulkan by operator", {o["operator"]: o["gpu_time"]["total"] for o in v["by_operator"]}, ops)
check("vulkan by operator order", [o["operator"] for o in v["by_operator"]],
      sorted(ops, key=lambda k: -ops[k]))
check("vulkan ETVK_EXECUTE us (host)", v["execute_time"]["total"], execute)
s = summary_json(path)["methods"][0]["delegates"][0]
check("vulkan inferred", (s["backend_name"], s["backend_source"]), ("VulkanBackend", "inferred"))
for cmd in ("summary", "ops", "tree"):
    check("vulkan text %s names the inferred backend" % cmd,
          "VulkanBackend (inferred)" in run(cmd, path), True)
check("vulkan ops text: device clock note", "dispatch event(s) are GPU durations in the device clock"
      in run("ops", path), True)
ops_txt = run("ops", path).splitlines()
check("vulkan ops text: dispatch rows labelled device clock",
      sum(1 for l in ops_txt if "(device clock)" in l and '{"' in l), disp)
check("vulkan ops text: ETVK_* rows are host time",
      any("(device clock)" in l for l in ops_txt if "ETVK_" in l), False)
# every format names the inferred backend as the text views do (issue 31: one value per figure)
check("vulkan csv placement names the inferred backend",
      "VulkanBackend (inferred)" in run("ops", path, "--format", "csv"), True)

# trace: the GPU-clock dispatches on their own track, at their GPU offsets from the first
# dispatch, from the DELEGATE_CALL's start; the host ETVK_* phases stay on the host track
import tempfile
tr_path = os.path.join(tempfile.mkdtemp(prefix="etprof-be-"), "vk.json")
run("trace", path, "-o", tr_path)
tev = json.load(open(tr_path)) if os.path.exists(tr_path) else {"traceEvents": []}
tev = tev["traceEvents"] if isinstance(tev, dict) else tev
xs = [e for e in tev if e.get("ph") == "X"]
dc = [e for e in xs if e["name"] == "DELEGATE_CALL"]
dsp = [e for e in xs if e["name"].startswith("{")]
phs = [e for e in xs if e["name"].startswith("ETVK_")]
check("vulkan trace slices", (len(dc), len(dsp), len(phs)), (1, 3, 4))
if dc and dsp and phs:
    check("vulkan trace: phases on the host track", {e["tid"] for e in phs}, {dc[0]["tid"]})
    check("vulkan trace: dispatches on their own track",
          len({e["tid"] for e in dsp}) == 1 and dsp[0]["tid"] != dc[0]["tid"], True)
    g0 = min(p["start_time"] for b in blocks for p in b if p.get("delegate_debug_id_str", "").startswith("{"))
    want_off = sorted((p["start_time"] - g0) / 1000.0 for b in blocks for p in b
                      if p.get("delegate_debug_id_str", "").startswith("{"))
    check("vulkan trace: GPU offsets kept", [round(e["ts"] - dc[0]["ts"], 6) for e in sorted(dsp, key=lambda e: e["ts"])],
          [round(x, 6) for x in want_off])

# ---- Neutron: int ids, function codes, the profiling dump excluded from op time -------------
blocks, path = fixture("neutron")
op_t, dump_t, nops, ndump = 0.0, 0.0, 0, 0
for b in blocks:
    for p in b:
        m = meta_bytes(p)
        if p.get("delegate_debug_id_int", -1) >= 0 and len(m) == 1:
            if m[0] == 0:
                dump_t += dur_us(p)
                ndump += 1
            else:
                op_t += dur_us(p)
                nops += 1
x = summary_json(path)["backend_figures"]["neutron"]
check("neutron ops", x["ops"], nops)
check("neutron dump events", x["profiling_dump_events"], ndump)
check("neutron op us", x["op_time"]["total"], op_t)
check("neutron op us per run", x["op_time"]["per_run"], op_t / len(blocks))
check("neutron dump overhead us", x["profiling_dump_overhead"]["total"], dump_t)
txt = run("summary", path)
check("neutron text: overhead row", "profiling-dump overhead" in txt, True)
check("neutron text: op time row", "op time (profiling dump excluded)" in txt, True)
check("neutron ops text: overhead note", "with function code 0 are the profiling dump's overhead"
      in run("ops", path), True)
ev = json.loads(run("events", path, "--format", "json") or '{"events": []}')["events"]
check("neutron events keep the hex", [e["delegate_debug_metadata"] for e in ev
                                      if e.get("delegate_debug_id_int", -1) >= 0][:3],
      ["03", "05", "00"])

# ---- VGF: VGF_* phases and the neural statistics JSON with base64 blobs ---------------------
blocks, path = fixture("vgf")
want = dict(events=0, segments=0, blobs=0, avail=0, ok=0, bad=0, nbytes=0)
execute = 0.0
for b in blocks:
    for p in b:
        s = p.get("delegate_debug_id_str", "")
        if s == "VGF_EXECUTE":
            execute += dur_us(p)
        if s != "VGF_NEURAL_STATISTICS":
            continue
        want["events"] += 1
        j = json.loads(meta_bytes(p))
        for seg in j["segments"]:
            want["segments"] += 1
            for k in ("debug_database", "statistics_info", "statistics_memory"):
                bl = seg[k]
                want["blobs"] += 1
                if not bl["available"]:
                    continue
                want["avail"] += 1
                try:
                    d = base64.b64decode(bl["data"] + "=" * (-len(bl["data"]) % 4), validate=True)
                    good = len(d) == bl["size"]
                except Exception:
                    good = False
                if good:
                    want["ok"] += 1
                    want["nbytes"] += len(d)
                else:
                    want["bad"] += 1
g = summary_json(path)["backend_figures"]["vgf"]
ns = g["neural_statistics"]
check("vgf stats events", ns["events"], want["events"])
check("vgf segments", ns["segments"], want["segments"])
check("vgf blobs", ns["blobs"], want["blobs"])
check("vgf blobs available", ns["blobs_available"], want["avail"])
check("vgf blobs decoded", ns["blobs_decoded"], want["ok"])
check("vgf blobs bad", ns["blobs_bad"], want["bad"])
check("vgf decoded bytes", ns["decoded_bytes"], want["nbytes"])
check("vgf VGF_EXECUTE us", g["execute_time"]["total"], execute)
check("vgf inferred", summary_json(path)["methods"][0]["delegates"][0]["backend_name"], "VgfBackend")

# ---- no figures where no backend logs any: the XNNPACK/int-id fixture ------------------------
bf = summary_json(os.path.join(FX, "backends.etdp"))["backend_figures"]
check("backends.etdp: no figures", [bf[k] for k in ("coreml", "vulkan", "ethosu", "vgf", "neutron")],
      [None] * 5)

# ---- Ethos-U: the real dumps, against flatc's decode ----------------------------------------
ED = os.path.join(D, "ethosu-partial-delegation")
for name in ("mobilenet_v2_ethosu_single_1x", "mobilenet_v2_ethosu_N_partial_1x"):
    path = os.path.join(ED, name + ".etdp")
    doc, _ = flatc_events.load_flatc_json(path)
    evs = flatc_events.flatten(doc, path)["events"]
    # the runs only: the "Execute" blocks (init-time scopes sit in the "Default" load block)
    named = [e for e in evs if e["type"] == "profile" and e["block_name"] == "Execute" and
             (e["name"] or "").lstrip("+").startswith("EthosUBackend::")]
    npu = [e for e in named if e["name"] == "+EthosUBackend::execute()NPU"]
    ticks = sum(e["end_time"] - e["start_time"] for e in npu)
    for hz in (None, 1e8):
        extra = ("--tick-hz", "%g" % hz) if hz else ()
        eu = summary_json(path, *extra)["backend_figures"]["ethosu"]
        check(name + " scopes", eu["scopes"], sum(1 for e in named if not e["name"].startswith("+")))
        check(name + " sub-scopes", eu["sub_scopes"], sum(1 for e in named if e["name"].startswith("+")))
        check(name + " NPU scopes", eu["npu_scopes"], len(npu))
        ns_per_tick = 1e9 / hz if hz else 1.0
        check(name + " NPU us (tick-hz %s)" % hz, eu["npu_time"]["total"], ticks * ns_per_tick / 1000.0,
              1e-9)
    dl = summary_json(path)["methods"][0]["delegates"]
    check(name + " inferred Ethos-U", {(d["backend_name"], d["backend_source"]) for d in dl},
          {("EthosUBackend", "inferred")})
    # the split table of the summary text: DELEGATE_CALL, the outermost backend scope, the gap
    calls = {e["instruction_id"]: (e["end_time"] - e["start_time"]) / 1000.0 for e in evs
             if e["type"] == "profile" and e["block_name"] == "Execute" and e["name"] == "DELEGATE_CALL"}
    outer = {e["instruction_id"]: (e["end_time"] - e["start_time"]) / 1000.0 for e in named
             if e["name"] == "EthosUBackend::execute()"}
    txt = run("summary", path).splitlines()
    k = next((i for i, l in enumerate(txt) if l.startswith("DELEGATE_CALLs vs the ops")), None)
    got = {}
    if k is not None:
        for l in txt[k + 4:]:
            f = l.split()
            if len(f) != 8 or f[1] != "EthosUBackend":
                break
            got[int(f[0])] = (float(f[3]), float(f[4]), float(f[5]))
    check(name + " split rows", sorted(got), sorted(calls))
    for i, (dc, bo, gap) in got.items():
        check(name + " split DELEGATE_CALL %d" % i, dc, round(calls[i], 3), 1e-12)
        check(name + " split backend ops %d" % i, bo, round(outer.get(i, -1), 3), 1e-12)
        check(name + " split gap %d" % i, gap, round(calls[i] - outer.get(i, 0), 3), 1e-12)
    tree = run("tree", path)
    # a '+' sub-scope is a child of its scope: one level deeper in the tree
    lines = [l for l in tree.splitlines() if "EthosUBackend::execute()" in l]
    depth = {}
    for l in lines:
        f = l.split()
        depth.setdefault(f[2].lstrip("+").replace("EthosUBackend::execute()", "") or "(scope)",
                         set()).add(int(f[1]))
    check(name + " sub-scopes one level below their scope",
          all(d == {min(depth["(scope)"]) + 1} for k, d in depth.items() if k != "(scope)"), True)

for f in fails:
    print("FAIL", f)
print("%s: %d failure(s)" % ("FAIL" if fails else "ok", len(fails)))
sys.exit(1 if fails else 0)
