#!/bin/sh
# bench/python.sh [BUILD_DIR]: the Python package against the Inspector's first two steps, in one
# run, interleaved (issue 12's figure).
#
# On a generated QNN LLM-style dump (etprof-gen --style qnn --size ${BENCH_SIZE:-50M} --seed 1), N
# rounds (BENCH_ROUNDS, default 5), each running in turn:
#   baseline    flatc -> JSON + json.load in Debian's python3 (what the Inspector does before it
#               even builds its objects: deserialize_from_etdump_flatcc)
#   ops         python3: import etprof; etprof.open(F, P).ops()         -> a pandas DataFrame
#   inspector   python3: etprof.Inspector(etdump_path=F, pte=P).to_dataframe()
# The times are taken in one interpreter that has already imported etprof and pandas (as a
# notebook has), wall (perf_counter) and CPU (getrusage, flatc's included); medians, printed as a
# markdown table with the ratios to the baseline. Peak RSS comes from running each step once in
# its own process under /usr/bin/time. Nothing is reused from an earlier run. Needs flatc (flatbuffers-compiler), python3-pandas, the build's
# python/ module (-DETPROF_PYTHON=ON) and bench/etprof-gen (built with the tests).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build-test}
case $BUILD in /*) ;; *) BUILD=$(pwd)/$BUILD ;; esac
SIZE=${BENCH_SIZE:-50M}
ROUNDS=${BENCH_ROUNDS:-5}
PY=/usr/bin/python3
OUT=$ROOT/bench/out
GEN=${ETPROF_GEN:-$BUILD/bench/etprof-gen}
SCHEMA=$ROOT/schema/etdump.fbs
mkdir -p "$OUT"
for t in "$GEN" /usr/bin/time "$PY"; do [ -x "$t" ] || { echo "bench/python.sh: missing $t" >&2; exit 1; }; done
command -v flatc >/dev/null || { echo "bench/python.sh: flatc missing (apt-get install flatbuffers-compiler)" >&2; exit 1; }
[ -d "$BUILD/python/etprof" ] || { echo "bench/python.sh: no Python module in $BUILD/python (configure with -DETPROF_PYTHON=ON)" >&2; exit 1; }
F=$OUT/py-qnn-$SIZE.etdp
P=$OUT/py-qnn-$SIZE.pte
[ -s "$F" ] || "$GEN" --style qnn --size "$SIZE" --seed 1 --pte "$P" -o "$F" >/dev/null 2>&1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT INT TERM
export PYTHONPATH="$BUILD/python"

run() { # name command...: one timed run, appended to $TMP/name
  name=$1
  shift
  /usr/bin/time -f '%e %U %S %M' -o "$TMP/t" "$@" >/dev/null 2>"$TMP/err" || {
    echo "bench/python.sh: $name failed:" >&2
    cat "$TMP/err" >&2
    exit 1
  }
  cat "$TMP/t" >>"$TMP/$name"
}

load0=$(cut -d' ' -f1-3 /proc/loadavg)
# peak RSS: each step once in its own process
run ops "$PY" -c 'import sys, etprof; df = etprof.open(sys.argv[1], sys.argv[2]).ops(); assert len(df) > 0' "$F" "$P"
run inspector "$PY" -c 'import sys, etprof; df = etprof.Inspector(etdump_path=sys.argv[1], pte=sys.argv[2]).to_dataframe(); assert len(df) > 0' "$F" "$P"
run import "$PY" -c 'import etprof, pandas'
# time: in one interpreter that has imported etprof and pandas (a notebook), the steps
# interleaved round by round; CPU = this process + its children (flatc)
"$PY" - "$TMP" "$(stat -c %s "$F")" "$F" "$P" "$SCHEMA" "$ROUNDS" "$load0" <<'EOF2'
import json, os, resource, statistics, subprocess, sys, time
import etprof, pandas  # noqa: F401
tmp, size, f, p, schema, rounds, l0 = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6]), sys.argv[7]
def cpu():
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime
def baseline():
    d = os.path.join(tmp, "json")
    subprocess.run(["rm", "-rf", d], check=True)
    os.makedirs(d)
    subprocess.run(["flatc", "--json", "--strict-json", "--defaults-json", "--size-prefixed",
                    "--raw-binary", "-o", d, schema, "--", f], check=True)
    with open(os.path.join(d, os.listdir(d)[0])) as fh:
        json.load(fh)
def ops():
    assert len(etprof.open(f, p).ops()) > 0
def inspector():
    assert len(etprof.Inspector(etdump_path=f, pte=p).to_dataframe()) > 0
steps = [("baseline", baseline), ("ops", ops), ("inspector", inspector)]
res = {k: [] for k, _ in steps}
for _ in range(rounds):
    for k, fn in steps:
        w0, c0 = time.perf_counter(), cpu()
        fn()
        res[k].append((time.perf_counter() - w0, cpu() - c0))
l1 = " ".join(open("/proc/loadavg").read().split()[:3])
def rss(k):
    path = os.path.join(tmp, k)
    return float(open(path).read().split()[3]) / 1024 if os.path.exists(path) else float("nan")
print("- file: %s, %.1f MB (%s); %d interleaved rounds in one python3 that has imported etprof "
      "and pandas; load average %s at start, %s at end" % (os.path.basename(f), size / 1e6,
      "etprof-gen --style qnn --seed 1", rounds, l0, l1))
print()
print("| step | median wall s | median CPU s | wall vs baseline | CPU vs baseline | peak RSS MiB (own process) |")
print("|---|---|---|---|---|---|")
names = {"baseline": "flatc + json.load (the Inspector's first two steps)",
         "ops": "etprof.open(F, P).ops() -> DataFrame",
         "inspector": "etprof.Inspector(etdump_path=F, pte=P).to_dataframe()"}
bw = statistics.median(w for w, _ in res["baseline"])
bc = statistics.median(c for _, c in res["baseline"])
for k, _ in steps:
    w = statistics.median(x for x, _ in res[k])
    c = statistics.median(y for _, y in res[k])
    print("| %s | %.4f | %.4f | %.1fx | %.1fx | %s |" % (names[k], w, c, bw / w, bc / c,
          "n/a (flatc + python)" if k == "baseline" else "%.1f" % rss(k)))
print()
print("peak RSS of `python3 -c 'import etprof, pandas'` alone: %.1f MiB; of the ops() process: "
      "file + %.1f MiB (target: file + 100 MB)" % (rss("import"), rss("ops") - size / 2**20))
EOF2
