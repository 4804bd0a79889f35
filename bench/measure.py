#!/usr/bin/env python3
"""bench/measure.py: time several commands interleaved, in one process, wall and CPU.

    measure.py SPEC.json ROUNDS OUT.json

SPEC.json is a list of {"label": str, "argv": [str, ...], "max_runs": int (optional)}.
Each round runs every command once (its stdout and stderr to /dev/null), in an order rotated by
one each round so that no command always follows the same one; a command with max_runs takes part
only in its first max_runs rounds (the slow baselines). Before the rounds, every command runs once
untimed (warm-up: page cache, dynamic loader). Per command the result holds the median, min and
max of the wall time (time.perf_counter around spawn..wait) and of the CPU time (user + system of
the child and every descendant it waited for, from wait4's rusage), the peak RSS of the warm-up
run (GNU time's %M), and the runs. A command that exits non-zero is recorded as failed with its exit
status and is not timed further. The load average is read before and after. Nothing is reused
from an earlier run: every number in OUT.json was measured by this invocation.
"""
import json
import os
import statistics
import sys
import tempfile
import time


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"


def run_once(argv):
    """One run: (exit status, wall seconds, cpu seconds, peak rss KiB). posix_spawn (vfork in
    glibc) so that the child's ru_maxrss is the command's own, not this Python process's copy."""
    devnull = os.open(os.devnull, os.O_RDWR)
    acts = [(os.POSIX_SPAWN_DUP2, devnull, 0), (os.POSIX_SPAWN_DUP2, devnull, 1),
            (os.POSIX_SPAWN_DUP2, devnull, 2)]
    t0 = time.perf_counter()
    try:
        pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=acts)
    finally:
        os.close(devnull)
    _, status, ru = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    return os.waitstatus_to_exitcode(status), wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss


def warm_up(argv):
    """The untimed first run: (exit status, peak RSS KiB). The RSS is GNU time's %M when
    /usr/bin/time exists: a child's own ru_maxrss also counts the memory of the process it was
    spawned from (the kernel keeps the pre-exec high-water mark), here this Python process."""
    if os.access("/usr/bin/time", os.X_OK):
        fd, path = tempfile.mkstemp()
        os.close(fd)
        try:
            rc, _, _, _ = run_once(["/usr/bin/time", "-f", "%M", "-o", path] + argv)
            with open(path) as f:
                last = f.read().split()
            return rc, int(last[-1]) if last and last[-1].isdigit() else 0
        finally:
            os.unlink(path)
    rc, _, _, rss = run_once(argv)
    return rc, rss


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        spec = json.load(f)
    rounds = int(sys.argv[2])
    res = [{"label": c["label"], "argv": c["argv"], "wall": [], "cpu": [], "rss_kib": 0,
            "failed": None} for c in spec]
    load_start = loadavg()
    for r in res:  # warm-up, untimed; the peak RSS
        rc, rss = warm_up(r["argv"])
        r["rss_kib"] = rss
        if rc != 0:
            r["failed"] = rc
    n = len(res)
    for k in range(rounds):
        for j in range(n):
            i = (j + k) % n
            r, c = res[i], spec[i]
            if r["failed"] is not None or len(r["wall"]) >= c.get("max_runs", rounds):
                continue
            rc, wall, cpu, rss = run_once(r["argv"])
            if rc != 0:
                r["failed"] = rc
                continue
            r["wall"].append(wall)
            r["cpu"].append(cpu)
    out = {"load_start": load_start, "load_end": loadavg(), "rounds": rounds, "commands": []}
    for r in res:
        row = {"label": r["label"], "argv": r["argv"], "runs": len(r["wall"]),
               "failed": r["failed"], "peak_rss_mib": r["rss_kib"] / 1024.0}
        for key in ("wall", "cpu"):
            v = r[key]
            row[key + "_median_s"] = statistics.median(v) if v else None
            row[key + "_min_s"] = min(v) if v else None
            row[key + "_max_s"] = max(v) if v else None
        out["commands"].append(row)
    with open(sys.argv[3], "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
