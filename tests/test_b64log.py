#!/usr/bin/env python3
"""ETDumps from a serial log (issue 14.3, docs/formats.md "ETDumps in a serial log").

The logs are made here from corpus dumps with Python's base64 (an independent encoder), in the
form the Arm bare-metal executor runner prints (#[RUN THIS], echo "<base64>" | base64 -d
>etdump.bin, #[END]) with console noise around it. Expected: `ops --format json` of the log is
byte-identical to that of the dump itself (ops JSON names no file); plain base64 files too;
several dumps: the first is analysed and a warning says so; truncated or corrupt base64: the
exact located error, whose line, column and byte offset are known by construction.

    test_b64log.py ETPROF DATA_DIR
"""
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile

E, D = sys.argv[1], sys.argv[2]
T = tempfile.mkdtemp(prefix="etprof-b64log-")
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)


def run(*args):
    return subprocess.run([E, *args], capture_output=True, text=True)


NOISE_BEFORE = [
    "I [executorch:arm_executor_runner.cpp:412 main()] Model run: 1",
    "I [executorch:arm_perf_monitor.cpp:180] NPU Inferences : 10",
    "I [executorch:arm_executor_runner.cpp:600] [base64] buffer size: 123",
]
NOISE_AFTER = ["I [executorch:arm_executor_runner.cpp:700] Program complete, exiting.",
               "Info: /OSCI/SystemC: Simulation stopped by user."]


def block(dump_bytes, debug=None):
    lines = ["#[RUN THIS]"]
    if debug is not None:
        lines += ["# Writing debug_buffer.bin [base64]",
                  'echo "%s" | base64 -d >debug_buffer.bin' % base64.b64encode(debug).decode()]
    lines += ["# Writing etdump.bin [base64]",
              'echo "%s" | base64 -d >etdump.bin' % base64.b64encode(dump_bytes).decode(),
              "# Generate cpu cycle table with:",
              "python3 -m devtools.inspector.inspector_cli --etdump_path etdump.bin  "
              "--source_time_scale cycles --target_time_scale cycles",
              "#[END]"]
    return lines


def write(name, lines, crlf=False):
    p = os.path.join(T, name)
    with open(p, "w", newline="") as f:
        f.write(("\r\n" if crlf else "\n").join(lines) + "\n")
    return p


CASES = [
    (os.path.join(D, "real", "add_pte_10x.etdp"), ["--pte", os.path.join(D, "upstream", "add.pte")]),
    (os.path.join(D, "fake-qnn-backend", "stories260k_qnn_kv_forward_10x.etdp"),
     ["--pte", os.path.join(D, "upstream", "stories260k_hybrid_llama_qnn.pte"), "--method", "kv_forward"]),
]
for dump, extra in CASES:
    raw = open(dump, "rb").read()
    ref = run("ops", dump, *extra, "--format", "json")
    check(ref.returncode == 0, f"{dump}: ops exit {ref.returncode}")
    name = os.path.basename(dump)
    logs = {
        "log": write(name + ".log", NOISE_BEFORE + block(raw) + NOISE_AFTER),
        "crlf log with a debug buffer": write(name + ".crlf.log", NOISE_BEFORE +
                                              block(raw, debug=b"\x01\x02\x03debug") + NOISE_AFTER,
                                              crlf=True),
        "plain base64 (wrapped at 76)": os.path.join(T, name + ".b64"),
    }
    open(logs["plain base64 (wrapped at 76)"], "wb").write(base64.encodebytes(raw))
    for what, p in logs.items():
        # the runner's log: its ticks are the Cortex-M cycle counter, so the dump's own numbers
        # only with a rate given (here the dump's real 1 ns/tick)
        runner = what != "plain base64 (wrapped at 76)"
        got = run("ops", p, *extra, "--format", "json", *(["--tick-ns", "1"] if runner else []))
        check(got.returncode == 0, f"{name} {what}: exit {got.returncode}: {got.stderr}")
        check(got.stdout == ref.stdout, f"{name} {what}: ops JSON differs from the dump's")
        check(got.stderr == "", f"{name} {what}: unexpected stderr {got.stderr!r}")
        if not runner:
            continue
        # without a rate: host times are ticks of unknown rate (a warning says why), the same
        # numbers as the dump's ns (1 ns per tick in this dump), never shown as time
        got = run("ops", p, *extra, "--format", "json")
        rows, want = json.loads(got.stdout)["rows"], json.loads(ref.stdout)["rows"]
        check(got.returncode == 0 and got.stderr.startswith(
            f"etprof: warning: {p}: read from the Arm bare-metal runner's serial log") and
            "--tick-hz" in got.stderr and got.stderr.count("\n") == 1,
            f"{name} {what}: the warning on ticks: {got.stderr!r}")
        check(len(rows) == len(want), f"{name} {what}: {len(rows)} rows, the dump {len(want)}")
        # and explain's units answer gives the rate it was read at: unknown (0), as with --ticks
        ej = json.loads(run("explain", p, *extra, "--format", "json").stdout)
        units = [f["facts"] for f in ej["findings"] if f["id"] == "units"]
        check(units and units[0].get("tick_ns") == 0, f"{name} {what}: explain's tick_ns {units}")
        ex = [r for r in rows if r["name"] == "Method::execute"]
        check(ex and all(r["unit"] == "ticks" for r in ex), f"{name} {what}: Method::execute not in ticks")
        for r, w in zip(rows, want):
            if r["unit"] == "ticks":
                check(w["unit"] == "us" and abs(r["total"] - w["total"] * 1000) <= 1e-6 * abs(r["total"]) + 1e-3,
                      f"{name} {what}: {r['name']}: {r['total']} ticks, the dump {w['total']} us")
            else:
                check(r["unit"] == w["unit"], f"{name} {what}: {r['name']}: unit {r['unit']}, the dump {w['unit']}")

# info: the ETDump's own size (the dump file's) and what the file was (a log, base64)
for what, p in [("log", os.path.join(T, "add_pte_10x.etdp.log")),
                ("base64", os.path.join(T, "add_pte_10x.etdp.b64"))]:
    dump_size = os.path.getsize(CASES[0][0])
    ij = json.loads(run("info", p, "--format", "json").stdout)
    kind = "arm_runner_log" if what == "log" else "base64"
    check(ij.get("size_bytes") == dump_size and ij.get("source") == {
        "kind": kind, "size_bytes": os.path.getsize(p),
        # the noise before the block holds an "NPU Inferences" line: a (short) report
        "pmu_report_line": next(i + 1 for i, l in enumerate(NOISE_BEFORE) if "NPU Inferences" in l)
        if what == "log" else None},
        f"info {what}: sizes {ij.get('size_bytes')} {ij.get('source')}")
    it = run("info", p).stdout
    check(f"version 0, {dump_size} bytes (decoded from " in it and f"of {os.path.getsize(p)} bytes)" in it,
          f"info {what}: the text's sizes")
check("source" not in json.loads(run("info", CASES[0][0], "--format", "json").stdout),
      "info: a dump file has a source member")

# several dumps in one log: the first one, and a warning naming every block's line
a = open(os.path.join(D, "real", "add_pte_1x.etdp"), "rb").read()
b = open(os.path.join(D, "real", "add_pte_10x.etdp"), "rb").read()
lines = NOISE_BEFORE + block(a) + NOISE_AFTER + block(b)
two = write("two.log", lines)
l1 = lines.index('echo "%s" | base64 -d >etdump.bin' % base64.b64encode(a).decode()) + 1
l2 = lines.index('echo "%s" | base64 -d >etdump.bin' % base64.b64encode(b).decode()) + 1
got = run("summary", two, "--format", "json")
check(got.returncode == 0, f"two dumps: exit {got.returncode}")
check(got.returncode == 0 and '"runs": 1,' in got.stdout, "two dumps: the first (1 run) is analysed")
check(got.stderr.startswith(f"etprof: warning: {two}: 2 ETDumps in the log (base64 at line {l1}, {l2}); "
      f"the first (line {l1}) is analysed: cut the log to analyse another\n"),
      f"two dumps: warning {got.stderr!r}")

# errors: located in the log, with its line number
lines = NOISE_BEFORE + block(b) + NOISE_AFTER
echo = next(i for i, s in enumerate(lines) if s.startswith('echo "'))
text = "\n".join(lines) + "\n"
line_off = text.index('echo "')

# truncated log (cut inside the base64): no closing quote
cut = write("cut.log", [text[:line_off + 500]])
got = run("summary", cut)
check(got.returncode == 1, f"truncated: exit {got.returncode}")
check(got.stderr == f"etprof: {cut}: offset {line_off}: line {echo + 1}: the base64 of this echo "
      "line has no closing '\"': the log is truncated\n", f"truncated: {got.stderr!r}")

# corrupt: a '*' in the base64
bad_at = line_off + 6 + 300
bad = os.path.join(T, "bad.log")
open(bad, "w").write(text[:bad_at] + "*" + text[bad_at + 1:])
got = run("ops", bad)
check(got.returncode == 1, f"corrupt: exit {got.returncode}")
check(got.stderr == f"etprof: {bad}: offset {bad_at}: line {echo + 1}, column {6 + 300 + 1}: invalid "
      "base64 character '*' in the ETDump's base64\n", f"corrupt: {got.stderr!r}")

# base64 that lost 1 character: not a whole number of 4-character groups
b64 = base64.b64encode(b).decode().rstrip("=")
n = len(b64) - (len(b64) % 4 or 4) + 1  # leaves one character in the last group
short = write("short.log", NOISE_BEFORE + ["#[RUN THIS]", 'echo "%s" | base64 -d >etdump.bin' % b64[:n],
                                             "#[END]"])
sl = len(NOISE_BEFORE) + 2
off = sum(len(s) + 1 for s in NOISE_BEFORE) + len("#[RUN THIS]\n") + 6
got = run("ops", short)
check(got.stderr == f"etprof: {short}: offset {off}: line {sl}: the ETDump's base64 is truncated or "
      f"corrupt: {n} characters (a whole number of 4-character groups expected)\n",
      f"short: {got.stderr!r}")

# base64 of a dump cut short: the reader's own error, the dump named by its place in the log
half = write("half.log", NOISE_BEFORE + block(b[:1200]))
got = run("ops", half)
hl = len(NOISE_BEFORE) + 3
check(got.returncode == 1 and got.stderr.startswith(
    f"etprof: {half} (ETDump 1 of 1, base64 at line {hl}): offset 0: size_prefix: size prefix says "),
    f"half: {got.stderr!r}")

# a marker block without the etdump line
empty = write("empty.log", NOISE_BEFORE + ["#[RUN THIS]", "# Writing etdump.bin [base64]"])
got = run("info", empty)
off = sum(len(s) + 1 for s in NOISE_BEFORE)
check(got.stderr == f"etprof: {empty}: offset {off}: line {len(NOISE_BEFORE) + 1}: this #[RUN THIS] "
      "block holds no `echo \"<base64>\" | base64 -d >etdump.bin` line: the log is truncated, or not "
      "an ETDump print of the Arm executor runner\n", f"empty block: {got.stderr!r}")

# from a pipe too
p = subprocess.run([E, "ops", "-", "--format", "json", "--tick-ns", "1", *CASES[0][1]], input=open(
    os.path.join(T, "add_pte_10x.etdp.log"), "rb").read(), capture_output=True)
ref = run("ops", CASES[0][0], *CASES[0][1], "--format", "json")
check(p.returncode == 0 and p.stdout.decode() == ref.stdout, f"pipe: exit {p.returncode} {p.stderr!r}")

# ---- the runner's Ethos-U PMU report in the same log (etprof_arm_pmu.h, docs/backends.md) ----
# Lines in the form the runner's performance monitor prints them, numbers chosen here; the dump
# ran 1 time (the corpus manifest: --num_executions 1). Expected: every number as written, the
# NPU share 100 * 1500000 / 2000000 = 75 %, per inference = total / inferences.
PM = "I [executorch:arm_perf_monitor.cpp:190 StopMeasurements()] "
EVENTS = ("Ethos-U PMU Events:[ETHOSU_PMU_AXI0_RD_DATA_BEAT_RECEIVED, ETHOSU_PMU_AXI1_RD_DATA_BEAT_RECEIVED, "
          "ETHOSU_PMU_AXI0_WR_DATA_BEAT_WRITTEN, ETHOSU_PMU_NPU_IDLE]")


def pmu_report(inferences):
    k = inferences
    return [PM + m for m in [
        "NPU Inferences : %d" % k, "NPU delegations: %d (1.00 per inference)" % k,
        "Profiler report, CPU cycles per operator:",
        "ethos-u : cycle_cnt : 1800000 cycles (%.2f per inference)" % (1800000 / k),
        "Operator(s) total: 1800000 CPU cycles (%.2f per inference)" % (1800000 / k),
        "Inference runtime: 2000000 CPU cycles total (%.2f per inference)" % (2000000 / k),
        "NOTE: CPU cycle values and ratio calculations require FPGA and identical CPU/NPU frequency",
        "Inference CPU ratio: 25.00 %", "Inference NPU ratio: 75.00 %",
        "cpu_wait_for_npu_cntr : 1500000 CPU cycles (%.2f per inference)" % (1500000 / k),
        "Ethos-U PMU report:", "ethosu_pmu_cycle_cntr :  1234560 (%.2f per inference)" % (1234560 / k),
        "ethosu_pmu_cntr0 : 4000 (x)", "ethosu_pmu_cntr1 : 2500 (x)", "ethosu_pmu_cntr2 : 1000 (x)",
        "ethosu_pmu_cntr3 : 30000 (x)", EVENTS]]


EU = os.path.join(D, "ethosu-partial-delegation", "mobilenet_v2_ethosu_single_1x.etdp")
eraw = open(EU, "rb").read()
head = ["I [executorch:arm_executor_runner.cpp:612 main()] Model executed successfully."]
plog = write("pmu.log", head + pmu_report(1) + block(eraw) + NOISE_AFTER)
got = run("summary", plog, "--format", "json")
check(got.returncode == 0, f"pmu: exit {got.returncode} {got.stderr!r}")
pj = json.loads(got.stdout) if got.returncode == 0 else {}
ap = pj.get("arm_pmu") or {}
check(ap.get("line") == len(head) + 1 and ap.get("reports") == 1 and ap.get("inferences") == 1
      and ap.get("etdump_runs") == 1 and ap.get("npu") == "Ethos-U55 or U65",
      f"pmu: the report's place and counts: {ap}")
want = [("NPU delegations", 1, "count"), ("ethosu_pmu_cycle_cntr", 1234560, "NPU cycles"),
        ("ethosu_pmu_cntr0", 4000, "beats"), ("ethosu_pmu_cntr1", 2500, "beats"),
        ("ethosu_pmu_cntr2", 1000, "beats"), ("ethosu_pmu_cntr3", 30000, "NPU cycles"),
        ("Inference runtime", 2000000, "CPU cycles"), ("ethos-u : cycle_cnt", 1800000, "CPU cycles"),
        ("cpu_wait_for_npu_cntr", 1500000, "CPU cycles")]
figs = [(f["source"], f["total"], f["unit"]) for f in ap.get("figures", [])]
check(figs == want, f"pmu: figures {figs}")
check([f["name"] for f in ap.get("figures", [])][2:6] == [
    "AXI0_RD_DATA_BEAT_RECEIVED", "AXI1_RD_DATA_BEAT_RECEIVED", "AXI0_WR_DATA_BEAT_WRITTEN", "NPU_IDLE"],
    "pmu: the counters named by the Events line")
check(ap.get("npu_share_percent") == 75.0, f"pmu: NPU share {ap.get('npu_share_percent')}")
notes = " ".join(pj.get("notes", []))
check("Corstone FVP" in notes and "data beats" in notes and "ETDump holds" not in notes,
      "pmu: the notes on CPU cycles and beats (and none on the run count)")
txt = run("summary", plog, "--wide").stdout
check("Arm Ethos-U PMU report (the runner's serial log, line 2: 1 inference(s), Ethos-U55 or U65)" in txt
      and "NPU share of the CPU cycles" in txt and "75.00" in txt, "pmu: the text table")
# explain says where the counters are (question 6), and its JSON is the dump's own
ex = " ".join(run("explain", plog).stdout.split())
check("This ETDump was read from the Arm runner's serial log, whose Ethos-U PMU report (line 2" in ex
      and "an NPU share of 75.00 %" in ex, "pmu: explain's answer")
ej = json.loads(run("explain", plog, "--format", "json").stdout)
dj = json.loads(run("explain", EU, "--format", "json", "--ticks").stdout)
# the report's facts stay out of explain's JSON facts (schema 1); only the answer gains a sentence
for fe, fd in zip(ej["findings"], dj["findings"]):
    same = fe["facts"] == fd["facts"] and (fe["answer"] == fd["answer"] or (
        fe["id"] == "cannot_tell" and fe["answer"].startswith(fd["answer"] + " This ETDump was read")))
    check(same, f"pmu: explain's {fe['id']} finding differs from the dump's")
# the rate of the log's ticks is unknown: every view says 0 ns/tick, as with --ticks
units = [f["facts"] for f in ej["findings"] if f["id"] == "units"]
check(units and units[0].get("tick_ns") == 0, f"pmu: explain's tick_ns for a runner's log: {units}")
# info names the report (the log's line 2, 1 inference)
check((json.loads(run("info", plog, "--format", "json").stdout).get("source") or {}).get(
    "pmu_report_line") == 2, "pmu: info's pmu_report_line")
check("pmu        the log's Ethos-U PMU report, line 2: 1 inference(s)" in run("info", plog).stdout,
      "pmu: info's text line")
# the HTML report: the same table (its data-v values are the totals written into the log)
import re
html_p = os.path.join(T, "pmu.html")
got = run("report", plog, "-o", html_p)
html = open(html_p).read() if got.returncode == 0 else ""
sec = html[html.find('<section id="arm-pmu">'):]
sec = sec[:sec.find("</section>")]
cells = re.findall(r'<tr><td>([^<]*)</td><td class="n" data-v="([^"]*)">', sec)
check([float(v) for _, v in cells] == [float(t) for _, t, _ in want] + [75.0],
      f"pmu: the report's table {cells}")
check('href="#arm-pmu"' in html and "Corstone FVP" in sec, "pmu: the report's link and notes")
dump_html = os.path.join(T, "dump.html")
run("report", EU, "-o", dump_html)
check('id="arm-pmu"' not in open(dump_html).read(), "pmu: a report section for a dump file")
# 4 inferences against 1 run: said; per inference divides by the report's count (1234560 / 4)
plog4 = write("pmu4.log", head + pmu_report(4) + block(eraw))
pj4 = json.loads(run("summary", plog4, "--format", "json").stdout)
cyc = [f for f in pj4["arm_pmu"]["figures"] if f["source"] == "ethosu_pmu_cycle_cntr"]
check(cyc and cyc[0]["per_inference"] == 308640.0, f"pmu: per inference {cyc}")
check(any("counts 4 inference(s) but the ETDump holds 1 run(s)" in n for n in pj4["notes"]),
      "pmu: the run-count mismatch note")
# a report after the ETDump's block is not this dump's; a log without one; a dump file: no member
after = write("pmu_after.log", head + block(eraw) + pmu_report(1))
check(json.loads(run("summary", after, "--format", "json").stdout).get("arm_pmu", 0) is None,
      "pmu: a report after the block is read")
check("arm_pmu" not in json.loads(run("summary", EU, "--format", "json").stdout),
      "pmu: a dump file has an arm_pmu member")
check("Ethos-U PMU report" not in run("summary", after).stdout, "pmu: a text section without a report")

# --runner-log F: the report of a log apart from the ETDump (a runner that wrote the ETDump to a
# file by semihosting): the same figures as the report inside the log, for the dump file itself
uart = write("uart.log", head + pmu_report(1) + NOISE_AFTER)
sj = json.loads(run("summary", EU, "--runner-log", uart, "--format", "json").stdout)
check(sj.get("arm_pmu") == dict(ap, line=2), f"runner-log: summary's arm_pmu {sj.get('arm_pmu')}")
ex2 = " ".join(run("explain", EU, "--runner-log", uart).stdout.split())
check("whose Ethos-U PMU report (line 2, 1 inference(s), Ethos-U55 or U65)" in ex2,
      "runner-log: explain's answer")
rep = os.path.join(T, "rl.html")
run("report", EU, "--runner-log", uart, "-o", rep)
check('id="arm-pmu-table"' in open(rep).read(), "runner-log: the report's section")
# a log that also prints an ETDump: the report before it, as when the log is the dump
both = write("both.log", head + pmu_report(4) + block(eraw) + pmu_report(9))
bj = json.loads(run("summary", EU, "--runner-log", both, "--format", "json").stdout)
bp = bj.get("arm_pmu") or {}
check(bp.get("inferences") == 4 and bp.get("reports") == 1,
      f"runner-log: the report before the log's ETDump {bp}")
# errors before any output, located, the kind of a wrong file named
out = os.path.join(T, "never.json")
got = run("summary", EU, "--runner-log", CASES[0][0], "-o", out)
check(got.returncode == 1 and got.stderr == f"etprof: {CASES[0][0]}: offset 0: binary data (a NUL "
      "byte), not the Arm runner's serial log with its Ethos-U PMU report; this looks like an "
      "ETDump (.etdp)\n" and not os.path.exists(out), f"runner-log: an ETDump given {got.stderr!r}")
noise = write("noise.log", NOISE_AFTER)
got = run("explain", EU, "--runner-log", noise)
check(got.returncode == 1 and got.stdout == "" and got.stderr == f"etprof: {noise}: offset 0: "
      "no Ethos-U PMU report (\"NPU Inferences\" lines) and no VGF device time "
      "(VGF_DATA_GRAPH_DEVICE_TIME lines) here: the runner logs them with its performance "
      "monitor or EXECUTORCH_VGF_ENABLE_TIMESTAMP_QUERIES\n",
      f"runner-log: no report {got.stderr!r}")
got = run("summary", EU, EU, "--runner-log", uart)
check(got.returncode == 2 and "--runner-log: applies to one FILE" in got.stderr,
      f"runner-log: several files {got.stderr!r}")

# diff of two runner logs: the PMU figures per inference side by side, the change by hand
# (plog: 1 inference, 1234560 NPU cycles; plog4: 4 inferences, the same totals -> a quarter)
dj = json.loads(run("diff", plog, plog4, "--format", "json").stdout)
dp = dj.get("arm_pmu") or {}
dcyc = [f for f in dp.get("figures", []) if f["source"] == "ethosu_pmu_cycle_cntr"]
check(dcyc and dcyc[0]["base_per_inference"] == 1234560 and dcyc[0]["new_per_inference"] == 308640
      and dcyc[0]["change_percent"] == -75.0, f"diff: the NPU cycles compared {dcyc}")
check(dp.get("base", {}).get("inferences") == 1 and dp.get("new", {}).get("inferences") == 4,
      f"diff: the two reports {dp.get('base')} {dp.get('new')}")
check(any("no verdict" in n for n in dj.get("notes", [])), "diff: the PMU note")
dt = run("diff", plog, plog4).stdout
check("Arm Ethos-U PMU report, per inference" in dt and "-75.00" in dt, "diff: the text table")
# two ETDump files with their logs apart (--runner-log, --runner-log-new): the same comparison
uart4 = write("uart4.log", head + pmu_report(4))
dj3 = json.loads(run("diff", EU, EU, "--ticks", "--runner-log", uart, "--runner-log-new", uart4,
                     "--format", "json").stdout)
d3 = [f for f in (dj3.get("arm_pmu") or {}).get("figures", []) if f["source"] == "ethosu_pmu_cycle_cntr"]
check(d3 and d3[0]["change_percent"] == -75.0, f"diff --runner-log(-new): {d3}")
got = run("diff", EU, EU, "--runner-log-new", noise)
check(got.returncode == 1 and got.stdout == "" and "no Ethos-U PMU report (" in got.stderr,
      f"diff --runner-log-new without a report: {got.returncode} {got.stderr!r}")
# a dump file against a log: only one side; two dump files: no member
dj2 = json.loads(run("diff", EU, plog, "--ticks", "--format", "json").stdout)
check((dj2.get("arm_pmu") or {}).get("base", 0) is None and any(
    "Only NEW was read" in n for n in dj2.get("notes", [])), "diff: a dump file against a log")
check("arm_pmu" not in json.loads(run("diff", EU, EU, "--format", "json").stdout),
      "diff: two dump files have an arm_pmu member")

# --runner-log with the VGF backend's device times (docs/backends.md "Arm VGF: device time"):
# the fixture's one VGF_EXECUTE lasts 1900 - 1100 = 800 ns (flatc-built/vgf.json); the log times
# three executions, 400, 500 and 600 ns: p50 500 ns = 0.5 us, 62.5 % of 800 ns
VG = os.path.join(D, "flatc-built", "vgf.etdp")
vfix = json.load(open(os.path.join(D, "flatc-built", "vgf.json")))
vexe = [e["profile_event"] for b in vfix["run_data"] for e in b["events"]
        if e.get("profile_event", {}).get("delegate_debug_id_str") == "VGF_EXECUTE"]
host_ns = vexe[0]["end_time"] - vexe[0]["start_time"]
vlog = write("vgf.log", ["I 00:00:00.001000 executorch:VGFSetup.cpp:700] VGF timestamp queries "
                         "enabled: queue_family=0 valid_bits=64 period_ns=1.000000"] +
             ["I 00:00:00.00%d000 executorch:VGFSetup.cpp:790] VGF_DATA_GRAPH_DEVICE_TIME "
              "ticks=%d duration_ns=%d.000 duration_ms=0.000%d" % (i + 2, v, v, v) for i, v in
              enumerate([400, 600, 500])])
vj = json.loads(run("summary", VG, "--runner-log", vlog, "--format", "json").stdout)
vd = vj.get("vgf_device_time") or {}
dt = vd.get("device_time") or {}
check(vd.get("lines") == 3 and vd.get("first_line") == 2 and vd.get("period_ns") == 1.0,
      f"vgf: the lines {vd}")
check(dt.get("p50") == 0.5 and dt.get("min") == 0.4 and dt.get("max") == 0.6 and dt.get("total") == 1.5
      and dt.get("unit") == "us", f"vgf: the device statistics {dt}")
check(vd.get("etdump_vgf_execute") == {"count": 1, "p50": host_ns / 1000, "unit": "us"},
      f"vgf: the ETDump's VGF_EXECUTE {vd.get('etdump_vgf_execute')}")
check(vd.get("device_share_of_host_p50_percent") == 100 * 500 / host_ns,
      f"vgf: the device share {vd.get('device_share_of_host_p50_percent')}")
check(any("times 3 VGF execution(s) but the ETDump holds 1 VGF_EXECUTE" in n for n in vj.get("notes", [])),
      "vgf: the count mismatch note")
vt = run("summary", VG, "--runner-log", vlog).stdout
check("Arm VGF device time (the runner's log: 3 VGF_DATA_GRAPH_DEVICE_TIME line(s) from line 2" in vt
      and "62.50" in vt, "vgf: the text table")
# host times in ticks: no share, and a note says why
vk = json.loads(run("summary", VG, "--runner-log", vlog, "--ticks", "--format", "json").stdout)
check(vk["vgf_device_time"]["device_share_of_host_p50_percent"] is None and any(
    "VGF_EXECUTE is in host ticks" in n for n in vk["notes"]), "vgf: ticks")
check("vgf_device_time" not in json.loads(run("summary", VG, "--format", "json").stdout),
      "vgf: a member without --runner-log")
# explain (question 6) and the report show the same figures; explain's JSON facts are unchanged
ve = " ".join(run("explain", VG, "--runner-log", vlog).stdout.split())
check("3 execution(s) timed on the device, p50 0.500 us, 62.50 % of VGF_EXECUTE's p50" in ve,
      "vgf: explain's answer")
ej1 = json.loads(run("explain", VG, "--runner-log", vlog, "--format", "json").stdout)
ej0 = json.loads(run("explain", VG, "--format", "json").stdout)
check([f["facts"] for f in ej1["findings"]] == [f["facts"] for f in ej0["findings"]],
      "vgf: explain's JSON facts changed")
vh = os.path.join(T, "vgf.html")
run("report", VG, "--runner-log", vlog, "-o", vh)
vsec = open(vh).read()
vsec = vsec[vsec.find('<section id="vgf-device">'):]
vsec = vsec[:vsec.find("</section>")]
vcells = re.findall(r'<tr><td>([^<]*)</td><td class="n" data-v="([^"]*)">', vsec)
# p90 by hand (linear, as numpy): index 0.9 x 2 = 1.8, 500 + 0.8 x (600 - 500) = 580 ns
check([float(v) for _, v in vcells] == [3, 0.4, 0.5, 0.5, 0.58, 0.6, 1.5, host_ns / 1000, 62.5]
      and "times 3 VGF execution(s)" in vsec, f"vgf: the report's table {vcells}")

shutil.rmtree(T, ignore_errors=True)
for f in fails:
    print("FAIL:", f)
print(f"{len(fails)} failure(s)")
sys.exit(1 if fails else 0)
