#!/usr/bin/env python3
"""etprof tensors against independent sources:

* every corpus dump with a debug buffer in tests/data/MANIFEST.md: each tensor's dtype, byte
  offset, shape and first values equal the MANIFEST's "first debug tensors" line (decoded there
  by an independent decoder);
* dumps built here with flatc (schema/etdump.fbs) and a debug buffer written here with struct:
  one tensor per dtype (HALF, BFLOAT16, BOOL, UINT16, UINT64, INT8, FLOAT8E4M3FN, FLOAT8E5M2,
  DOUBLE), a transposed (strided) tensor, inline Int/Double/Bool values and a TensorList; the
  expected values come from Python's struct ('e', 'f', 'd', ints) and the float8 formulas;
* errors: a tensor past the end of the buffer, and a missing --debug-buffer, are located errors
  (file, byte offset, field path; exit 1), never zeros.

usage: test_tensors.py ETPROF DATA_DIR SCHEMA_DIR TMP (exit 77 without flatc)"""
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys

E, DATA, S, T = sys.argv[1:5]
shutil.rmtree(T, ignore_errors=True)
os.makedirs(T)
fails = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        fails.append(what)


def tensors(dump, buf, *extra):
    r = subprocess.run([E, "tensors", dump] + (["--debug-buffer", buf] if buf else []) +
                       list(extra) + ["--format", "json"], capture_output=True, text=True)
    return r.returncode, (json.loads(r.stdout) if r.returncode == 0 else None), r.stderr


# -- the MANIFEST --------------------------------------------------------------------------------
manifest = open(os.path.join(DATA, "MANIFEST.md")).read()
DT = {"f32": "FLOAT", "i32": "INT", "i64": "LONG", "f64": "DOUBLE", "u8": "BYTE", "bool": "BOOL"}
sections = re.split(r"^### `", manifest, flags=re.M)
seen = 0
for sec in sections[1:]:
    name = sec.split("`", 1)[0]
    m = re.search(r"first debug tensors \(type@offset\[sizes\]=first values, from the "
                  r"\.debug\.bin\): (.*)", sec)
    b = re.search(r"debug buffer: `([^`]+)`", sec)
    if not m or not b:
        continue
    dump = os.path.join(DATA, name)
    buf = os.path.join(os.path.dirname(dump), b.group(1))
    if not os.path.exists(dump) or not os.path.exists(buf):
        continue
    want = []
    for item in m.group(1).split("; "):
        mm = re.match(r"(\w+)@(\d+)\[([\d, ]*)\]=\[(.*)\]", item.strip())
        sizes = [int(x) for x in mm.group(3).split(",") if x.strip()]
        vals = [float(x) for x in mm.group(4).split(",") if x.strip() and x.strip() != "..."]
        want.append((DT.get(mm.group(1), mm.group(1)), int(mm.group(2)), sizes, vals))
    rc, doc, err = tensors(dump, buf)
    check(rc == 0, "%s: exit 0 (%s)" % (name, err.strip()))
    if rc:
        continue
    # matched by byte offset (the MANIFEST lists a selection of each file's tensors)
    got = {t["offset"]: t for t in doc["tensors"] if t["entry"] == "tensor"}
    for dt, off, sizes, vals in want:
        g = got.get(off, {"dtype": None, "offset": None, "shape": None, "values": []})
        check(g["dtype"] == dt and g["offset"] == off and g["shape"] == sizes and
              g["values"][:len(vals)] == vals,
              "%s: %s@%d%s = %s (got %s@%s%s = %s)" % (name, dt, off, sizes, vals, g["dtype"],
                                                       g["offset"], g["shape"], g["values"]))
    seen += 1
check(seen >= 3, "%d corpus dumps with a debug buffer checked" % seen)

if not shutil.which("flatc"):
    print("skip: flatc not found (apt install flatbuffers-compiler): the dtype cases")
    sys.exit(1 if fails else 77)


# -- dtype and stride cases built here -----------------------------------------------------------
def f8(b, eb, bias, fn):
    """An 8-bit float from its bits: `eb` exponent bits; fn: e4m3fn rules (no inf, S.1111.111
    NaN), else IEEE-like e5m2 (all-ones exponent: inf / NaN)."""
    mb = 7 - eb
    e, m, s = (b >> mb) & ((1 << eb) - 1), b & ((1 << mb) - 1), -1.0 if b & 0x80 else 1.0
    if fn and e == (1 << eb) - 1 and m == (1 << mb) - 1:
        return math.nan
    if not fn and e == (1 << eb) - 1:
        return math.nan if m else s * math.inf
    if e == 0:
        return s * m * 2.0 ** (1 - bias - mb)
    return s * (1 + m / 2.0 ** mb) * 2.0 ** (e - bias)


def bf16(x):
    return struct.unpack("<f", struct.pack("<I", struct.unpack("<I", struct.pack("<f", x))[0]
                                           & 0xFFFF0000))[0]


buf = bytearray()
cases = []  # (name, ScalarType, sizes, strides, bytes, expected logical values)


def add(name, st, sizes, raw, expect, strides=None):
    while len(buf) % 16:
        buf.append(0)
    off = len(buf)
    buf.extend(raw)
    cases.append((name, st, sizes, strides, off, expect))


add("half", "HALF", [4], struct.pack("<4e", 1.5, -2.0, 65504.0, 0.000061035156),
    [1.5, -2.0, 65504.0, struct.unpack("<e", struct.pack("<e", 0.000061035156))[0]])
bvals = [1.0, -3.140625, 1e10, 0.5]
add("bfloat16", "BFLOAT16", [2, 2],
    b"".join(struct.pack("<I", struct.unpack("<I", struct.pack("<f", v))[0])[2:] for v in bvals),
    [bf16(v) for v in bvals])
add("bool", "BOOL", [3], bytes([1, 0, 1]), [1.0, 0.0, 1.0])
add("uint16", "UINT16", [2], struct.pack("<2H", 65535, 7), [65535.0, 7.0])
add("uint64", "UINT64", [1], struct.pack("<Q", 2 ** 40 + 3), [float(2 ** 40 + 3)])
add("int8", "CHAR", [3], struct.pack("<3b", -128, 5, 127), [-128.0, 5.0, 127.0])
f8bytes = bytes([0x38, 0xB8, 0x7E, 0x7F, 0x01])
add("float8_e4m3fn", "FLOAT8E4M3FN", [5], f8bytes, [f8(b, 4, 7, True) for b in f8bytes])
add("float8_e5m2", "FLOAT8E5M2", [4], bytes([0x3C, 0x7C, 0xFC, 0x01]),
    [f8(b, 5, 15, False) for b in (0x3C, 0x7C, 0xFC, 0x01)])
add("double", "DOUBLE", [2], struct.pack("<2d", math.pi, -0.0), [math.pi, -0.0])
# a 2x3 tensor stored transposed (column-major): strides [1, 2]; storage 0..5 holds
# column-major order, so logical [i][j] = storage[j * 2 + i]
store = [10.0, 11.0, 12.0, 13.0, 14.0, 15.0]
add("strided", "FLOAT", [2, 3], struct.pack("<6f", *store),
    [store[j * 2 + i] for i in range(2) for j in range(3)], strides=[1, 2])

events = []
for name, st, sizes, strides, off, _ in cases:
    events.append({"debug_event": {"instruction_id": len(events), "chain_index": 0,
                                   "debug_entry": {"val": "Tensor", "tensor": {
                                       "scalar_type": st, "sizes": sizes,
                                       "strides": strides or [], "offset": off}}}})
events.append({"debug_event": {"instruction_id": 90, "debug_entry": {"val": "Int",
                                                                        "int_value": {"int_val": -7}}}})
events.append({"debug_event": {"instruction_id": 91, "debug_entry": {
    "val": "Double", "double_value": {"double_val": 2.5}}}})
events.append({"debug_event": {"instruction_id": 92, "debug_entry": {"val": "Bool",
                                                                        "bool_value": {"bool_val": True}}}})
lo = cases[0][4]
events.append({"debug_event": {"instruction_id": 93, "debug_entry": {
    "val": "TensorList", "tensor_list": {"tensors": [
        {"scalar_type": "HALF", "sizes": [4], "offset": lo},
        {"scalar_type": "BOOL", "sizes": [3], "offset": cases[2][4]}]}}}})
doc = {"version": 0, "run_data": [{"name": "Execute", "events": events}]}
src = os.path.join(T, "dtypes.json")
json.dump(doc, open(src, "w"))
r = subprocess.run(["flatc", "-b", "--size-prefixed", "-o", T, os.path.join(S, "etdump.fbs"), src],
                   capture_output=True, text=True)
check(r.returncode == 0, "flatc builds the dtype dump (%s)" % r.stderr.strip())
dump = [os.path.join(T, f) for f in os.listdir(T) if f.startswith("dtypes.") and not f.endswith(".json")][0]
bpath = os.path.join(T, "dtypes.debug.bin")
open(bpath, "wb").write(bytes(buf))
rc, out, err = tensors(dump, bpath)
check(rc == 0, "dtype dump: exit 0 (%s)" % err.strip())
rows = out["tensors"] if out else []


def same(a, b):  # NaN equals NaN; the JSON writer does not keep the sign of zero
    return (math.isnan(a) and math.isnan(b)) if math.isnan(a) else a == b


def num(v):  # JSON has no NaN/Inf: etprof writes them as strings
    return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}.get(v, v)


for (name, st, sizes, strides, off, expect), g in zip(cases, rows):
    vals = [num(v) for v in g["values"]]
    check(g["dtype"] == st and g["shape"] == sizes and g["offset"] == off and
          len(vals) == len(expect) and all(same(float(a), float(b)) for a, b in zip(expect, vals)),
          "%s: %s%s = %s (got %s)" % (name, st, sizes, expect, g["values"]))
    fin = [v for v in expect if math.isfinite(v)]
    if fin:
        check(g["min"] == min(fin) and g["max"] == max(fin) and
              g["nan"] == sum(1 for v in expect if isinstance(v, float) and math.isnan(v)) and
              g["inf"] == sum(1 for v in expect if math.isinf(v)),
              "%s: min/max/NaN/Inf over the values" % name)
inline = {g["instruction_id"]: g for g in rows if g["entry"] in ("int", "double", "bool")}
check(inline.get(90, {}).get("values") == [-7] and inline.get(91, {}).get("values") == [2.5] and
      inline.get(92, {}).get("values") == [1], "inline Int/Double/Bool values")
tl = [g for g in rows if g["entry"].startswith("tensor_list[")]
check(len(tl) == 2 and tl[0]["values"] == cases[0][5] and tl[1]["values"] == [1, 0, 1],
      "TensorList: both tensors decoded")

# -- --dump DIR: .npy files, read back with NumPy when it is installed ----------------------------
npd = os.path.join(T, "npy")
r = subprocess.run([E, "-q", "tensors", dump, "--debug-buffer", bpath, "--dump", npd, "-o",
                    os.devnull], capture_output=True, text=True)
check(r.returncode == 0, "--dump: exit 0 (%s)" % r.stderr.strip())
files = sorted(os.listdir(npd)) if os.path.isdir(npd) else []
check(len(files) == len(cases) + 2, "--dump: one .npy per tensor (%d files)" % len(files))
try:
    import numpy
except ImportError:
    numpy = None
    print("skip: numpy is not installed (python3-numpy): the .npy contents are not read back")
if numpy is not None:
    for idx, (name, st, sizes, strides, off, expect) in enumerate(cases):
        arr = numpy.load(os.path.join(npd, "b0_e%d_i%d.npy" % (idx, idx)))
        got = [float(x) for x in arr.reshape(-1)]
        check(list(arr.shape) == sizes and len(got) == len(expect) and
              all(same(float(a), b) for a, b in zip(expect, got)),
              "--dump %s: numpy.load gives shape %s and the values" % (name, sizes))
    check(numpy.load(os.path.join(npd, "b0_e0_i0.npy")).dtype == numpy.float16 and
          numpy.load(os.path.join(npd, "b0_e2_i2.npy")).dtype == numpy.bool_,
          "--dump: HALF is float16, BOOL is bool")

# -- errors --------------------------------------------------------------------------------------
short = os.path.join(T, "short.bin")
open(short, "wb").write(bytes(buf[:cases[3][4] + 1]))
rc, _, err = tensors(dump, short)
check(rc == 1 and len(err.strip().splitlines()) == 1 and short in err and
      "offset %d" % cases[3][4] in err and "outside the debug buffer" in err and
      "run_data[0].events[3].debug_event.debug_entry.tensor" in err,
      "bytes past the end: one located line, exit 1: %r" % err)
rc, _, err = tensors(dump, None)
check(rc == 1 and "--debug-buffer" in err, "no debug buffer: says to give it: %r" % err)
# nothing written on exit 1 (issue 35): the tensors before the bad one were sound, yet no row of
# them reaches stdout (any format), no .npy file nor --dump directory is made, and -o leaves
# nothing
for fmt in ("json", "table", "csv"):
    r = subprocess.run([E, "tensors", dump, "--debug-buffer", short, "-f", fmt],
                       capture_output=True, text=True)
    check(r.returncode == 1 and r.stdout == "" and len(r.stderr.splitlines()) == 1,
          "bytes past the end, -f %s: exit 1, nothing on stdout, one line (%d, %d bytes)"
          % (fmt, r.returncode, len(r.stdout)))
npd_bad = os.path.join(T, "npy_bad")
before = sorted(os.listdir(T))
r = subprocess.run([E, "tensors", dump, "--debug-buffer", short, "--dump", npd_bad, "-o",
                    os.path.join(T, "bad.json")], capture_output=True, text=True)
check(r.returncode == 1 and len(r.stderr.splitlines()) == 1 and sorted(os.listdir(T)) == before,
      "bytes past the end with --dump and -o: exit 1, no .npy, no directory, no output file "
      "(%d, new: %s)" % (r.returncode, sorted(set(os.listdir(T)) - set(before))))
os.makedirs(npd_bad)
r = subprocess.run([E, "tensors", dump, "--debug-buffer", short, "--dump", npd_bad],
                   capture_output=True, text=True)
check(r.returncode == 1 and os.listdir(npd_bad) == [] and r.stdout == "",
      "bytes past the end, --dump into an existing directory: no .npy file in it (%s)"
      % os.listdir(npd_bad))


# hostile shapes: sizes whose product overflows once a zero is skipped (the row-major strides
# multiply the non-zero sizes), and a view whose strides wrap 64 bits so that its reach would look
# small: each is one located line, exit 1 (a fuzz finding, then the same arithmetic by hand);
# like every tensor error it names the buffer, the tensor's offset there and the event's path
def one_tensor_dump(name, tensor):
    src = os.path.join(T, name + ".json")
    json.dump({"version": 0, "run_data": [{"name": "Execute", "events": [{"debug_event": {
        "instruction_id": 0, "chain_index": 0, "debug_entry": {"val": "Tensor",
                                                               "tensor": tensor}}}]}]},
              open(src, "w"))
    subprocess.run(["flatc", "-b", "--size-prefixed", "-o", T, os.path.join(S, "etdump.fbs"),
                    src], check=True)
    return [os.path.join(T, f) for f in os.listdir(T)
            if f.startswith(name + ".") and not f.endswith(".json")][0]


z = one_tensor_dump("zero_huge", {"scalar_type": "FLOAT", "sizes": [0, 2 ** 40, 2 ** 40],
                                  "offset": 0})
rc, _, err = tensors(z, bpath)
check(rc == 1 and len(err.strip().splitlines()) == 1 and bpath in err and
      "negative or too large" in err and "debug_entry.tensor" in err,
      "sizes [0, 2^40, 2^40]: refused on one located line: %r" % err)
# 2^24 + 1 elements, each 2^40 elements apart: (2^24) * 2^40 = 2^64 wraps to 0 in 64 bits
n = 2 ** 24 + 1
big = os.path.join(T, "big.bin")
with open(big, "wb") as f:  # sparse: the elements' storage (n x 4 bytes) fits
    f.truncate(n * 4 + 64)
w = one_tensor_dump("wrap", {"scalar_type": "FLOAT", "sizes": [n], "strides": [2 ** 40],
                             "offset": 0})
rc, _, err = tensors(w, big)
check(rc == 1 and len(err.strip().splitlines()) == 1 and big in err and
      "stride" in err and "debug_entry.tensor" in err,
      "a stride whose reach wraps 64 bits: refused on one located line: %r" % err)
sys.exit(1 if fails else 0)
