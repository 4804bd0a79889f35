#!/bin/sh
# python_pip.sh - the Python package installed as a Python user installs it (docs/python.md),
# offline, with Debian's python3, pip, venv and setuptools, from a copy of the source tree (so
# that the in-tree build never writes into the checkout):
#   1. a fresh `python3 -m venv --system-site-packages` and, in it,
#      `pip install --no-build-isolation --no-index ./python`;
#   2. `pip install --no-build-isolation --no-index --target DIR ./python`, imported with
#      PYTHONPATH=DIR.
# Each time `import etprof` must load the module installed there (the library compiled into it:
# no libetprof.so mapped, no run path, no cmake --install), and its figures must be the
# MANIFEST's (tests/data/MANIFEST.md: real/add_pte_10x.etdp holds 11 blocks, 32 profile events,
# 10 runs of Method::execute and of native_call_add.out).
# Usage: python_pip.sh SOURCE_DIR [PYTHON]   Exit 0 ok, 1 failed, 77 skipped (no pip/venv).
set -u
src=$1
py=${2:-/usr/bin/python3}
PATH=/usr/bin:/bin:$PATH
export PATH PIP_NO_INPUT=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
"$py" -m pip --version >/dev/null 2>&1 || { echo "SKIP: no pip for $py (apt-get install python3-pip)"; exit 77; }
"$py" -c 'import ensurepip' >/dev/null 2>&1 || { echo "SKIP: no venv for $py (apt-get install python3-venv)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/etprof-pip.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/tree"
cp -r "$src/python" "$src/src" "$src/include" "$src/schema" "$src/CMakeLists.txt" "$tmp/tree/" || exit 1
rm -rf "$tmp/tree/python/build" "$tmp/tree/python"/*.egg-info
dump=$src/tests/data/real/add_pte_10x.etdp
fail=0

check() { # $1 route, $2 python, $3 directory the package must be in, [env...]
    route=$1 ipy=$2 where=$3
    shift 3
    out=$(cd "$tmp" && env -u LD_LIBRARY_PATH "$@" "$ipy" -c '
import os, sys, etprof
where, dump = sys.argv[1], sys.argv[2]
assert os.path.realpath(etprof.__file__).startswith(os.path.realpath(where)), etprof.__file__
maps = [l.split()[-1] for l in open("/proc/self/maps") if "libetprof" in l]
assert not maps, maps  # the library is inside the module
p = etprof.open(dump)
ev = p.events(as_dict=True)
assert len(ev["index"]) == 32, len(ev["index"])
assert len(set(ev["block"])) == 11, sorted(set(ev["block"]))
ops = p.ops(as_dict=True)
n = {nm: c for nm, c in zip(ops["name"], ops["count"])}
assert n["Method::execute"] == 10 and n["native_call_add.out"] == 10, n
print("ok")' "$where" "$dump" 2>&1)
    if [ "$out" = ok ]; then
        echo "ok: $route: import etprof from $where, 32 events in 11 blocks, 10 runs (MANIFEST)"
    else
        echo "FAIL: $route: $out"; fail=1
    fi
}

# 1. pip install into a fresh venv
"$py" -m venv --system-site-packages "$tmp/venv" || { echo "FAIL: python3 -m venv"; exit 1; }
if (cd "$tmp/tree" && "$tmp/venv/bin/python" -m pip install -q --no-build-isolation --no-index ./python) \
        >"$tmp/venv.log" 2>&1; then
    site=$("$tmp/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("platlib"))')
    check "pip install into a venv" "$tmp/venv/bin/python" "$site"
else
    tail -20 "$tmp/venv.log"; echo "FAIL: pip install --no-build-isolation --no-index ./python (venv)"; fail=1
fi

# 2. pip install --target DIR (setuptools reuses the objects of step 1's in-tree build)
if (cd "$tmp/tree" && "$py" -m pip install -q --no-build-isolation --no-index --target "$tmp/target" \
        ./python) >"$tmp/target.log" 2>&1; then
    check "pip install --target" "$py" "$tmp/target" PYTHONPATH="$tmp/target"
else
    tail -20 "$tmp/target.log"; echo "FAIL: pip install --target DIR ./python"; fail=1
fi
exit $fail
