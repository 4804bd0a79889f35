#!/bin/sh
# Installs the build into a temporary prefix and builds tests/install/consumer.c against it, with
# pkg-config and with find_package(etprof), each against the shared and the static library
# (issue 11.5). Every consumer must print the same values, and they must equal tests/data's
# MANIFEST and the installed etprof's own JSON for the same file:
#   real/add_pte_10x.etdp (tests/data/MANIFEST.md): 32 events, 11 blocks, 10 Execute blocks;
#   method-level events have chain_index -1, instruction_id 0.
# usage: test_install.sh BUILD_DIR SOURCE_DIR LIBDIR VERSION CC [CFLAGS [LDFLAGS]]
set -eu
build=$1 src=$2 libdir=$3 version=$4 cc=$5 cflags=${6:-} ldflags=${7:-}
data=$src/tests/data
dump=$data/real/add_pte_10x.etdp
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
fail=0
bad() { echo "FAIL: $*"; fail=1; }

cmake --install "$build" --prefix "$prefix" > "$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; echo "FAIL: cmake --install"; exit 1; }
soversion=${version%%.*}
for f in bin/etprof "$libdir/libetprof.so.$version" "$libdir/libetprof.a" include/etprof.h \
         "$libdir/pkgconfig/etprof.pc" "$libdir/cmake/etprof/etprofConfig.cmake" \
         "$libdir/cmake/etprof/etprofConfigVersion.cmake" "$libdir/cmake/etprof/etprofTargets.cmake"; do
    [ -f "$prefix/$f" ] || bad "not installed: $f"
done
for l in "libetprof.so.$soversion:libetprof.so.$version" "libetprof.so:libetprof.so.$soversion"; do
    name=${l%%:*} target=${l#*:}
    [ "$(readlink "$prefix/$libdir/$name" 2>/dev/null)" = "$target" ] || bad "$libdir/$name is not a symlink to $target"
done
if [ -n "${ETPROF_MANDIR:-}" ]; then # built with ETPROF_GEN_DOCS
    for f in "$ETPROF_MANDIR/man1/etprof.1" "$ETPROF_MANDIR/man1/etprof-ops.1" \
             "$ETPROF_DATADIR/bash-completion/completions/etprof" "$ETPROF_DATADIR/zsh/site-functions/_etprof"; do
        [ -f "$prefix/$f" ] || bad "not installed: $f"
    done
    n=$("$prefix/bin/etprof" --help | sed -n '/^commands:$/,/^$/p' | awk 'NF > 1' | wc -l)
    m=$(ls "$prefix/$ETPROF_MANDIR/man1" | grep -c '^etprof-.*\.1$')
    [ "$n" -eq "$m" ] || bad "$m etprof-CMD.1 pages installed for $n commands"
fi
[ "$fail" -eq 0 ] || exit 1
echo "ok: installed into $prefix"
# the installed libraries export the public API only
sh "$src/tests/install/check_symbols.sh" "$prefix/include" "$prefix/$libdir/libetprof.so" \
   "$prefix/$libdir/libetprof.a" "libetprof.so.$soversion" || fail=1

# the installed command's JSON for the same file
"$prefix/bin/etprof" info "$dump" --format json > "$tmp/info.json"
"$prefix/bin/etprof" ops "$dump" --format json > "$tmp/ops.json"
qhas="$src/tests/data/qnn-fixtures/qhas_small.json"
"$prefix/bin/etprof" qnn --qhas "$qhas" --format json > "$tmp/qnn.json"
[ -f "$prefix/include/etprof_qnn.h" ] || bad "include/etprof_qnn.h not installed"

# 1. pkg-config
export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig"
got=$(pkg-config --modversion etprof) || bad "pkg-config cannot find etprof.pc"
[ "$got" = "$version" ] || bad "pkg-config --modversion etprof: $got, expected $version"
pkg-config --print-requires-private etprof | grep -qw jansson || bad "etprof.pc: Requires.private lacks jansson"
# libzip is opened at run time (src/base/zipload.c): a static link must not need its -lbz2 -lcrypto
if pkg-config --print-requires-private etprof | grep -qw libzip; then bad "etprof.pc: Requires.private lists libzip (dlopened, not linked)"; fi
# shellcheck disable=SC2046,SC2086
$cc $cflags -o "$tmp/pc_shared" "$src/tests/install/consumer.c" $(pkg-config --cflags --libs etprof) \
    -Wl,-rpath,"$prefix/$libdir" $ldflags || bad "pkg-config shared build"
# shellcheck disable=SC2046,SC2086
$cc $cflags -o "$tmp/pc_static" "$src/tests/install/consumer.c" $(pkg-config --cflags etprof) \
    $(pkg-config --static --libs etprof | sed 's/-letprof\b/-l:libetprof.a/') $ldflags || bad "pkg-config static build"

# 2. find_package(etprof)
for v in shared static; do
    if [ $v = static ]; then st=ON; else st=OFF; fi
    if cmake -S "$src/tests/install" -B "$tmp/cm_$v" -DCMAKE_PREFIX_PATH="$prefix" \
            -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$cflags" -DCMAKE_EXE_LINKER_FLAGS="$ldflags" \
            -DETPROF_CONSUMER_STATIC=$st > "$tmp/cm_$v.log" 2>&1 &&
       cmake --build "$tmp/cm_$v" >> "$tmp/cm_$v.log" 2>&1; then
        cp "$tmp/cm_$v/consumer" "$tmp/cmake_$v"
    else
        cat "$tmp/cm_$v.log"; bad "find_package(etprof) $v build"
    fi
done
[ "$fail" -eq 0 ] || exit 1

# linked the way each claims: NEEDED libetprof.so.N or not at all
for c in pc_shared cmake_shared; do
    readelf -d "$tmp/$c" | grep -q "NEEDED.*\[libetprof.so.$soversion\]" || bad "$c does not load libetprof.so.$soversion"
done
for c in pc_static cmake_static; do
    if readelf -d "$tmp/$c" | grep -q "NEEDED.*libetprof"; then bad "$c loads libetprof.so (should be static)"; fi
done

for c in pc_shared pc_static cmake_shared cmake_static; do
    "$tmp/$c" "$dump" "$qhas" > "$tmp/$c.out" || { bad "$c exited $?"; continue; }
done
[ "$fail" -eq 0 ] || exit 1
for c in pc_static cmake_shared cmake_static; do
    cmp -s "$tmp/pc_shared.out" "$tmp/$c.out" || { bad "$c prints other values than pc_shared:"; diff "$tmp/pc_shared.out" "$tmp/$c.out" || true; }
done
cat "$tmp/pc_shared.out"

# the values: MANIFEST and the command's JSON
python3 - "$tmp/pc_shared.out" "$tmp/info.json" "$tmp/ops.json" "$tmp/qnn.json" <<'PY' || fail=1
import json, sys
vals = dict(l.split(None, 1) for l in open(sys.argv[1]).read().splitlines())
info = json.load(open(sys.argv[2]))
ops = json.load(open(sys.argv[3]))
qnn = json.load(open(sys.argv[4]))
ok = True
def check(what, got, want):
    global ok
    if got != want:
        print("FAIL: %s: consumer %r, expected %r" % (what, got, want)); ok = False
    else:
        print("ok: %s = %r" % (what, got))
# tests/data/MANIFEST.md, real/add_pte_10x.etdp
check("events (MANIFEST)", int(vals["events"]), 32)
check("blocks (MANIFEST)", int(vals["blocks"]), 11)
check("Method::execute runs (MANIFEST: 10 Execute blocks)", int(vals["method_execute_runs"]), 10)
check("Method::execute chain_index (MANIFEST)", int(vals["method_execute_chain"]), -1)
check("Method::execute instruction_id (MANIFEST)", int(vals["method_execute_instr"]), 0)
# the installed command's JSON
check("events (etprof info JSON)", int(vals["events"]), info["events"]["total"])
row = [r for r in ops["rows"] if r["name"] == "Method::execute" and r["kind"] == "framework"]
if len(row) != 1:
    print("FAIL: etprof ops JSON has %d Method::execute rows" % len(row)); sys.exit(1)
row = row[0]
check("unit", vals["method_execute_unit"], "ns")
check("Method::execute count (etprof ops JSON)", int(vals["method_execute_runs"]), row["count"])
avg_us = float(vals["method_execute_avg"]) / 1000.0
if not (row["unit"] == "us" and abs(avg_us - row["avg"]) <= 1e-9 * max(1.0, abs(row["avg"]))):
    print("FAIL: Method::execute mean: consumer %r us, etprof ops JSON %r %s" % (avg_us, row["avg"], row["unit"])); ok = False
else:
    print("ok: Method::execute mean %r us = etprof ops JSON avg" % avg_us)
# <etprof_qnn.h> on tests/data/qnn-fixtures/qhas_small.json: by hand from the file
# (dominant_path_htp_0: Input 100, idle 10, Conv_1 300, Output 200; timeline 1000; HMX: Conv_1;
# DMA: Input (dma), Conv_1 (dma_wait)), and the installed command's JSON
dp = qnn["summary"]["dominant_path"]
check("QNN critical path cycles (hand)", int(vals["qnn_path_cycles"]), 600)
check("QNN critical path cycles (etprof qnn JSON)", int(vals["qnn_path_cycles"]), dp["path_cycles"])
check("QNN idle cycles (etprof qnn JSON)", int(vals["qnn_path_idle_cycles"]), dp["idle_cycles"])
check("QNN critical path top op (hand)", vals["qnn_path_top_op"], "Conv_1")
check("QNN critical path top op (etprof qnn JSON)", vals["qnn_path_top_op"], dp["top_ops"][0]["qnn_op"])
check("QNN top op share (etprof qnn JSON)", float(vals["qnn_path_top_share"]), dp["top_ops"][0]["share"])
check("QNN ops using HMX (hand)", int(vals["qnn_ops_using_hmx"]), 1)
check("QNN ops using DMA (etprof qnn JSON)", int(vals["qnn_ops_using_dma"]), qnn["summary"]["ops_using_dma"])
sys.exit(0 if ok else 1)
PY
# The Python package, when the build has it: installed under lib/python3.X/dist-packages (where
# Debian's python3 searches under /usr/local: checked against its sys.path) with a run path
# relative to itself, it must load the installed libetprof (not the build tree's, which must not
# be the one mapped: /proc/self/maps says which libetprof the process loaded) and give the
# installed command's Method::execute mean.
pydir=$prefix/lib/python3/dist-packages
for d in "$prefix"/lib/python3*/*-packages; do
    [ -d "$d/etprof" ] && pydir=$d
done
if [ -d "$pydir/etprof" ]; then
    rel=${pydir#"$prefix"/}
    if env -u PYTHONPATH /usr/bin/python3 -c 'import sys; sys.exit(0 if "/usr/local/" + sys.argv[1] in sys.path else 1)' "$rel"; then
        echo "ok: the Python package goes to PREFIX/$rel, which Debian's python3 searches for /usr/local"
    else
        echo "FAIL: the Python package goes to PREFIX/$rel, not on Debian's python3 sys.path for /usr/local"; fail=1
    fi
fi
case "$cflags" in *sanitize*) sanitized=1 ;; *) sanitized=0 ;; esac
if [ -d "$pydir/etprof" ] && [ "$sanitized" = 1 ]; then
    # the module is instrumented and Debian's python3 is not: the python test covers it with the
    # sanitizer runtime preloaded; the install layout is the same as in the plain build
    echo "note: sanitizer build: the installed Python package is not imported here (ctest python does, preloaded)"
elif [ -d "$pydir/etprof" ]; then
    rc=0
    out=$(env -u LD_LIBRARY_PATH PYTHONPATH="$pydir" /usr/bin/python3 -c '
import json, os, sys, etprof
ops = json.load(open(sys.argv[2]))
row = [r for r in ops["rows"] if r["name"] == "Method::execute" and r["kind"] == "framework"][0]
df = etprof.open(sys.argv[1]).ops(as_dict=True)
i = [k for k, n in enumerate(df["name"]) if n == "Method::execute" and df["kind"][k] == "framework"][0]
assert etprof.__file__.startswith(sys.argv[3]), etprof.__file__
libs = set(l.split()[-1] for l in open("/proc/self/maps") if "libetprof.so" in l)
assert libs and all(os.path.realpath(p).startswith(os.path.realpath(sys.argv[4])) for p in libs), libs
assert abs(df["avg"][i] - row["avg"]) <= 1e-9 * max(1.0, abs(row["avg"])), (df["avg"][i], row["avg"])
print("ok")' "$dump" "$tmp/ops.json" "$pydir" "$prefix" 2>&1) || rc=$?
    if [ $rc -eq 0 ] && [ "$out" = ok ]; then
        echo "ok: the installed Python package loads the installed libetprof (\$ORIGIN run path) and gives the installed command's Method::execute mean"
    else
        echo "FAIL: installed Python package: $out"; fail=1
    fi
else
    echo "note: no Python package in this build (ETPROF_PYTHON off): its install is not checked"
fi
[ "$fail" -eq 0 ] && echo "install: ok (pkg-config and find_package, shared and static)"
exit "$fail"
