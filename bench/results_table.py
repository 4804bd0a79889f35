#!/usr/bin/env python3
"""bench/results_table.py: the Markdown table of bench/run.sh from bench/measure.py's results.

    results_table.py FILE.etdp RESULT.json [FILE.etdp RESULT.json ...]

One row per command and file: median wall and CPU seconds, GB/s (wall), events/s (from
etprof-gen's FILE.etdp.stats line), peak RSS, and the speed-up against the flatc + json.load
baseline measured in the same invocation, by wall time and by CPU time. Then the memory bound
(peak RSS <= file + 64 MiB) over the etprof rows.
"""
import os
import re
import sys


def fmt_rate(v):
    if v >= 1e6:
        return "%.1f M" % (v / 1e6)
    if v >= 1e3:
        return "%.1f k" % (v / 1e3)
    return "%.0f" % v


def main():
    args = sys.argv[1:]
    pairs = list(zip(args[0::2], args[1::2]))
    import json
    print("| file | size | tool / command | runs | median wall s | median CPU s | GB/s (wall) "
          "| CPU s/GB | events/s | peak RSS MiB | speed-up vs flatc+json.load (wall) | (CPU) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    linear = {}  # command (file name taken out) -> [(size, CPU s/GB)]
    over, checked, loads = [], 0, []
    for f, rj in pairs:
        with open(rj) as fh:
            res = json.load(fh)
        loads.append("%s: %s at start, %s at end" % (os.path.basename(f), res["load_start"],
                                                    res["load_end"]))
        size = os.path.getsize(f)
        events = None
        try:
            m = re.search(r"^events=(\d+)", open(f + ".stats").read(), re.M)
            events = int(m.group(1)) if m else None
        except OSError:
            pass
        base = next((c for c in res["commands"] if c["label"].startswith("flatc+json")
                     and c["wall_median_s"]), None)
        name = os.path.basename(f)
        for c in res["commands"]:
            label = c["label"]
            if c["wall_median_s"] is None:
                print("| %s | %.1f MB | `%s` | 0 | failed: exit %s | | | | | | | |"
                      % (name, size / 1e6, label, c["failed"]))
                continue
            w, u = c["wall_median_s"], c["cpu_median_s"]
            sw = "%.1fx" % (base["wall_median_s"] / w) if base else "n/a"
            su = "%.1fx" % (base["cpu_median_s"] / u) if base and u > 0 else "n/a"
            print("| %s | %.1f MB | `%s` | %d | %.3f | %.3f | %.3g | %.3f | %s | %.1f | %s | %s |"
                  % (name, size / 1e6, label, c["runs"], w, u, size / 1e9 / w, u / (size / 1e9),
                     fmt_rate(events / w) if events else "n/a", c["peak_rss_mib"], sw, su))
            style = re.sub(r"-[0-9.]+[kMG]i?$", "", os.path.splitext(name)[0])
            key = (style, re.sub(r"\S*" + re.escape(os.path.splitext(name)[0]) + r"\S*", "F", label))
            linear.setdefault(key, []).append((size, u / (size / 1e9)))
            if label.startswith("etprof "):
                checked += 1
                if c["peak_rss_mib"] > size / 1048576 + 64:
                    over.append("- memory bound exceeded: `%s` peak RSS %.1f MiB for a %.1f MiB "
                                "file" % (label, c["peak_rss_mib"], size / 1048576))
    print()
    print("Wall = elapsed seconds; CPU = user + system seconds of the command and its children")
    print("(both medians over the runs of one interleaved invocation of bench/measure.py); GB/s =")
    print("file bytes / 10^9 / median wall; events/s = ETDump events / median wall; speed-up =")
    print("the baseline's median / this median, measured in the same invocation.")
    print("Load average (1/5/15 min) around each file's measurement: " + "; ".join(loads) + ".")
    sizes = sorted({sz for v in linear.values() for sz, _ in v})
    if len(sizes) > 1:
        print()
        print("Linearity: CPU seconds per GB of each command at each size (the same figure at")
        print("every size = cost linear in the file size):")
        print()
        print("| style | command | " + " | ".join("%.0f MB" % (sz / 1e6) for sz in sizes) + " |")
        print("|---|---|" + "---|" * len(sizes))
        for (style, label), v in sorted(linear.items()):
            by = dict(v)
            print("| %s | `%s` | " % (style, label) +
                  " | ".join("%.3f" % by[sz] if sz in by else "" for sz in sizes) + " |")
    print()
    for line in over:
        print(line)
    if checked and not over:
        print("Memory bound (peak RSS <= file size + 64 MiB): met by all %d etprof rows." % checked)


if __name__ == "__main__":
    main()
