"""Profile.arm_pmu(): the Arm runner's Ethos-U PMU report of the serial log a dump was read from
(etprof_arm_pmu.h), the same object as `etprof summary --format json`'s "arm_pmu" member.

The log is written here in the form the runner prints it (its performance monitor's lines, then
the #[RUN THIS] block with the dump's base64); the numbers are chosen here, the dump ran once
(the corpus manifest: --num_executions 1)."""
import base64
import json
import subprocess
import warnings

import pytest

import etprof

from conftest import BIN, child_env, data

PM = "I [executorch:arm_perf_monitor.cpp:190 StopMeasurements()] "
REPORT = [PM + m for m in [
    "NPU Inferences : 2", "NPU delegations: 2 (1.00 per inference)",
    "ethos-u : cycle_cnt : 900 cycles (450.00 per inference)",
    "Inference runtime: 1000 CPU cycles total (500.00 per inference)",
    "cpu_wait_for_npu_cntr : 600 CPU cycles (300.00 per inference)",
    "Ethos-U PMU report:", "ethosu_pmu_cycle_cntr :  500 (250.00 per inference)",
    "ethosu_pmu_cntr0 : 40 (20.00 per inference)", "ethosu_pmu_cntr1 : 8 (4.00 per inference)",
    "Ethos-U PMU Events:[ETHOSU_PMU_SRAM_RD_DATA_BEAT_RECEIVED, ETHOSU_PMU_NPU_IDLE]"]]
DUMP = data("ethosu-partial-delegation", "mobilenet_v2_ethosu_single_1x.etdp")


def _log(tmp_path, report):
    raw = open(DUMP, "rb").read()
    p = tmp_path / "run.log"
    p.write_text("\n".join(report + ["#[RUN THIS]", "# Writing etdump.bin [base64]",
                                     'echo "%s" | base64 -d >etdump.bin'
                                     % base64.b64encode(raw).decode(), "#[END]"]) + "\n")
    return str(p)


def _open(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the ticks warning of a runner's log
        return etprof.open(path)


def test_report_figures(tmp_path):
    got = _open(_log(tmp_path, REPORT)).arm_pmu()
    r = got["report"]
    assert r["line"] == 1 and r["inferences"] == 2 and r["etdump_runs"] == 1
    assert r["npu"] == "Ethos-U85"  # SRAM events
    by = {f["source"]: f for f in r["figures"]}
    assert by["ethosu_pmu_cycle_cntr"]["total"] == 500
    assert by["ethosu_pmu_cycle_cntr"]["per_inference"] == 250.0  # 500 / 2
    assert by["ethosu_pmu_cntr0"]["name"] == "SRAM_RD_DATA_BEAT_RECEIVED"
    assert by["ethosu_pmu_cntr0"]["unit"] == "beats"
    assert by["ethosu_pmu_cntr1"]["unit"] == "NPU cycles"
    assert r["npu_share_percent"] == 60.0  # 100 * 600 / 1000
    # 2 inferences against the dump's 1 run: said
    assert any("counts 2 inference(s) but the ETDump holds 1 run(s)" in n for n in got["notes"])


def test_same_as_the_command(tmp_path):
    log = _log(tmp_path, REPORT)
    cmd = subprocess.run([BIN, "summary", log, "--format", "json"], capture_output=True,
                         text=True, env=child_env())
    assert cmd.returncode == 0, cmd.stderr
    s = json.loads(cmd.stdout)
    got = _open(log).arm_pmu()
    assert got["report"] == s["arm_pmu"]
    assert all(n in s["notes"] for n in got["notes"])


def test_no_report(tmp_path):
    assert _open(_log(tmp_path, [])).arm_pmu() == {"report": None, "notes": []}
    assert _open(DUMP).arm_pmu() is None  # not read from a log


def test_runner_log_apart(tmp_path):
    """runner_log=: the report of a log apart from the ETDump, as --runner-log."""
    log = tmp_path / "uart.log"
    log.write_text("\n".join(REPORT) + "\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = etprof.open(DUMP, runner_log=str(log)).arm_pmu()
    cmd = subprocess.run([BIN, "summary", DUMP, "--runner-log", str(log), "--format", "json"],
                         capture_output=True, text=True, env=child_env())
    assert cmd.returncode == 0, cmd.stderr
    assert got["report"] == json.loads(cmd.stdout)["arm_pmu"]
    assert got["report"]["inferences"] == 2
    empty = tmp_path / "empty.log"
    empty.write_text("nothing here\n")
    with pytest.raises(etprof.InputError) as e:
        etprof.open(DUMP, runner_log=str(empty))
    assert e.value.offset == 0 and "no Ethos-U PMU report" in str(e.value)


def test_diff(tmp_path):
    """etprof.diff(): the reports compared as `etprof diff` does (its arm_pmu member and notes)."""
    base = tmp_path / "base.log"
    base.write_text("\n".join(REPORT) + "\n")
    new = tmp_path / "new.log"
    new.write_text("\n".join(r.replace("ethosu_pmu_cycle_cntr :  500", "ethosu_pmu_cycle_cntr :  400")
                             for r in REPORT) + "\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = etprof.open(DUMP, runner_log=str(base), ticks=True)
        b = etprof.open(DUMP, runner_log=str(new), ticks=True)
    d = etprof.diff(a, b)
    cyc = [f for f in d.arm_pmu["arm_pmu"]["figures"] if f["source"] == "ethosu_pmu_cycle_cntr"]
    assert cyc[0]["base_per_inference"] == 250.0 and cyc[0]["new_per_inference"] == 200.0
    assert cyc[0]["change_percent"] == -20.0  # 100 * (200 - 250) / 250
    cmd = subprocess.run([BIN, "diff", DUMP, DUMP, "--ticks", "--runner-log", str(base),
                          "--runner-log-new", str(new), "--format", "json"],
                         capture_output=True, text=True, env=child_env())
    assert cmd.returncode == 0, cmd.stderr
    assert d.arm_pmu["arm_pmu"] == json.loads(cmd.stdout)["arm_pmu"]
    plain = etprof.open(DUMP, ticks=True)
    assert etprof.diff(plain, plain).arm_pmu is None


def test_vgf_device_time(tmp_path):
    """runner_log= with the VGF backend's device times: the command's vgf_device_time member."""
    log = tmp_path / "vgf.log"
    log.write_text("VGF_DATA_GRAPH_DEVICE_TIME ticks=4 duration_ns=400.000 duration_ms=0.0004\n"
                   "VGF_DATA_GRAPH_DEVICE_TIME ticks=6 duration_ns=600.000 duration_ms=0.0006\n")
    vgf = data("flatc-built", "vgf.etdp")
    got = etprof.open(vgf, runner_log=str(log)).vgf_device_time(time_unit="ns")
    assert got["device_time"]["device_time"]["p50"] == 500.0  # the median of 400 and 600
    cmd = subprocess.run([BIN, "summary", vgf, "--runner-log", str(log), "--time-unit", "ns",
                          "--format", "json"], capture_output=True, text=True, env=child_env())
    assert cmd.returncode == 0, cmd.stderr
    assert got["device_time"] == json.loads(cmd.stdout)["vgf_device_time"]
    assert etprof.open(vgf).vgf_device_time() is None


def test_report_and_explain(tmp_path):
    """runner_log= reaches report() and explain() as --runner-log reaches the commands."""
    pmu = tmp_path / "uart.log"
    pmu.write_text("\n".join(REPORT) + "\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = etprof.open(DUMP, runner_log=str(pmu), ticks=True)
    html = tmp_path / "r.html"
    p.report(str(html))
    assert 'id="arm-pmu-table"' in html.read_text()
    cannot = [f for f in p.explain() if f.id == "cannot_tell"][0]
    assert "Ethos-U PMU report (line 1, 2 inference(s), Ethos-U85)" in " ".join(cannot.answer.split())
