#!/bin/sh
# bench/trace_formats.sh - the trace's two formats on the 300-run QNN LLM dump (issue 34):
# .pftrace size against the JSON's, and `trace --format perfetto` time against `ops` (and the
# JSON trace), all measured in one interleaved bench/measure.py invocation.
# Usage: bench/trace_formats.sh BUILD_DIR [ROUNDS]   (writes in BUILD_DIR/bench-trace)
set -eu
build=${1:?usage: bench/trace_formats.sh BUILD_DIR [ROUNDS]}
rounds=${2:-9}
here=$(cd "$(dirname "$0")" && pwd)
out=$build/bench-trace
mkdir -p "$out"
e=$build/etprof
d=$out/qnn-llm-42M.etdp
p=$out/qnn-llm-42M.pte
# the issue's 42 MB dump: 318 blocks (317 runs of kv_forward), 479,306 events
"$build/bench/etprof-gen" --style qnn-llm --size 42M --seed 1 --pte "$p" -o "$d"
"$e" trace "$d" --pte "$p" -q -o "$out/t.json"
"$e" trace "$d" --pte "$p" -q -o "$out/t.pftrace"
cat > "$out/spec.json" <<EOF
[{"label": "ops", "argv": ["$e", "ops", "$d", "--pte", "$p", "--format", "json", "-o", "/dev/null"]},
 {"label": "trace (perfetto)", "argv": ["$e", "trace", "$d", "--pte", "$p", "-q", "-o", "$out/r.pftrace"]},
 {"label": "trace (json)", "argv": ["$e", "trace", "$d", "--pte", "$p", "-q", "-o", "$out/r.json"]}]
EOF
python3 "$here/measure.py" "$out/spec.json" "$rounds" "$out/result.json"
python3 - "$out" <<'EOF'
import json, os, sys
out = sys.argv[1]
r = json.load(open(os.path.join(out, "result.json")))
c = {x["label"]: x for x in r["commands"]}
js, pf = os.path.getsize(os.path.join(out, "t.json")), os.path.getsize(os.path.join(out, "t.pftrace"))
print("dump: %d bytes" % os.path.getsize(os.path.join(out, "qnn-llm-42M.etdp")))
print("size: JSON %d bytes, .pftrace %d bytes: %.1fx smaller" % (js, pf, js / pf))
for k in ("ops", "trace (perfetto)", "trace (json)"):
    x = c[k]
    print("%-17s wall median %.3f s (min %.3f), CPU median %.3f s, peak RSS %.1f MiB, %d runs" % (
        k, x["wall_median_s"], x["wall_min_s"], x["cpu_median_s"], x["peak_rss_mib"], x["runs"]))
o, p, j = c["ops"], c["trace (perfetto)"], c["trace (json)"]
print("trace-perfetto / ops: %.2fx wall (median), %.2fx CPU; trace-json / ops: %.2fx wall, %.2fx CPU"
      % (p["wall_median_s"] / o["wall_median_s"], p["cpu_median_s"] / o["cpu_median_s"],
         j["wall_median_s"] / o["wall_median_s"], j["cpu_median_s"] / o["cpu_median_s"]))
print("load average: %s at start, %s at end" % (r.get("load_start", "?"), r.get("load_end", "?")))
EOF
