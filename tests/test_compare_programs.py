#!/usr/bin/env python3
"""etprof compare across different programs, against expectations computed here:

BASE is the corpus run real/bundled_program_intermediate_1x.etdp of upstream/bundled_program.bpte
(mul, add, add). NEW is a program rebuilt here with flatc from that program's JSON with its
chain cut to the first two instructions (mul, add) -- other bytes, so a different program -- and
a dump built with flatc that logged mul = the base's values, add = 3 everywhere and the method
output = 3 everywhere. Expected rows are computed here from the flatc/struct decodings:

* by operator order (no ETRecords): mul<->mul identical, add(1)<->add(1), add(2) only in base,
  output<->output; MSE / max |diff| / SNR computed here;
* by debug handle (crafted ETRecords: base {0:[1], 1:[2], 2:[3]}, new {0:[1], 1:[2, 3]}, the new
  add fusing both nodes, its highest handle 3): mul<->mul, add(1) (handle 2) only in base,
  add(2) (handle 3) <-> new add(1), output<->output;
* --pte-new with the same bytes as --pte: the same output as without it (same program).

usage: test_compare_programs.py ETPROF DATA_DIR SCHEMA_DIR TMP (exit 77 without flatc)"""
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import zipfile

E, DATA, S, T = sys.argv[1:5]
shutil.rmtree(T, ignore_errors=True)
os.makedirs(T)
fails = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        fails.append(what)


if not shutil.which("flatc"):
    print("skip: flatc not found")
    sys.exit(77)


def flatc(args):
    r = subprocess.run(["flatc"] + args, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def decode(schema, path, extra=()):
    flatc(["--json", "--strict-json", "--raw-binary"] + list(extra) +
          ["-o", T, os.path.join(S, schema), "--", path])
    return json.load(open(os.path.join(T, os.path.splitext(os.path.basename(path))[0] + ".json")))


bpte = os.path.join(DATA, "upstream", "bundled_program.bpte")
bdump = os.path.join(DATA, "real", "bundled_program_intermediate_1x.etdp")
bbuf = os.path.join(DATA, "real", "bundled_program_intermediate_1x.debug.bin")
bp = decode("bundled_program.fbs", bpte)
open(os.path.join(T, "orig.pte"), "wb").write(bytes(bp["program"]))
prog = decode("program.fbs", os.path.join(T, "orig.pte"))
prog["execution_plan"][0]["chains"][0]["instructions"] = \
    prog["execution_plan"][0]["chains"][0]["instructions"][:2]
json.dump(prog, open(os.path.join(T, "newprog.json"), "w"))
flatc(["-b", "-o", T, os.path.join(S, "program.fbs"), os.path.join(T, "newprog.json")])
npte = [os.path.join(T, f) for f in os.listdir(T) if f.startswith("newprog.") and
        not f.endswith(".json")][0]

# BASE's logged tensors, decoded here
bd = decode("etdump.fbs", bdump, ["--size-prefixed"])
raw = open(bbuf, "rb").read()
base = []  # (instruction, output, values)
for ev in bd["run_data"][1]["events"]:
    de = ev.get("debug_event")
    if de:
        t = de["debug_entry"]["tensor"]
        base.append((de["instruction_id"], "output" in de["debug_entry"],
                     list(struct.unpack_from("<4i", raw, t["offset"]))))

# NEW's dump and buffer
buf = bytearray(256)
newvals = [base[0][2], [3] * 4, [3] * 4]
for k, v in enumerate(newvals):
    struct.pack_into("<4i", buf, 64 * k, *v)
nb = os.path.join(T, "new.debug.bin")
open(nb, "wb").write(bytes(buf))


def tev(instr, off, out=False):
    e = {"instruction_id": instr, "debug_entry": {"val": "Tensor", "tensor": {
        "scalar_type": "INT", "sizes": [2, 2], "strides": [2, 1], "offset": off}}}
    if out:
        e["chain_index"] = 2 ** 64 - 1
        e["debug_entry"]["output"] = {"bool_val": True}
    return {"debug_event": e}


json.dump({"version": 0, "run_data": [{"name": "Execute", "events": [
    tev(0, 0), tev(1, 64), tev(0, 128, True)]}]}, open(os.path.join(T, "new.json"), "w"))
flatc(["-b", "--size-prefixed", "-o", T, os.path.join(S, "etdump.fbs"),
       os.path.join(T, "new.json")])
ndump = [os.path.join(T, f) for f in os.listdir(T) if f.startswith("new.") and
         f.endswith(".etdp")][0]


def figures(a, b):
    se = sum((x - y) ** 2 for x, y in zip(a, b))
    sa = sum(x * x for x in a)
    return se / len(a), max(abs(x - y) for x, y in zip(a, b)), \
        (math.inf if se == 0 else 10 * math.log10(sa / se))


def compare(*extra):
    r = subprocess.run([E, "compare", bdump, ndump, "--debug-buffer", bbuf, "--debug-buffer-new",
                        nb, "--pte", bpte, "--pte-new", npte, "-f", "json"] + list(extra),
                       capture_output=True, text=True)
    return r.returncode, (json.loads(r.stdout) if r.returncode == 0 else None), r.stderr


def expect_rows(doc, want, label):
    rows = doc["tensors"] if doc else []
    got = [(x["status"], x["instruction_id"], x.get("instruction_id_new")) for x in rows]
    check([w[:3] for w in want] == got, "%s: rows %s (got %s)" % (label, [w[:3] for w in want],
                                                                  got))
    for w, x in zip(want, rows):
        if w[0] != "matched":
            continue
        mse, mx, snr = figures(w[3], w[4])
        xs = x["snr_db"]
        xs = math.inf if xs == "Infinity" else xs
        check(x["mse"] == mse and x["max_abs"] == mx and
              (xs == snr if math.isinf(snr) else abs(xs - snr) < 1e-9),
              "%s: instr %d: MSE %g, max |diff| %g, SNR %g dB" % (label, w[1], mse, mx, snr))


# by operator order
rc, doc, err = compare()
check(rc == 0 and doc["matching"] == "op order" and doc["matched"] == 3 and
      doc["only_base"] == 1 and doc["only_new"] == 0,
      "op order: matching named, 3 matched, 1 only in base, 0 only in new (%s)" % err.strip())
expect_rows(doc, [("matched", 0, 0, base[0][2], newvals[0]),
                  ("matched", 1, 1, base[1][2], newvals[1]),
                  ("only in base", 2, -1),
                  ("matched", 0, 0, base[3][2], newvals[2])], "op order")
check(doc is not None and any("operator order" in n for n in doc["notes"]),
      "op order: a note says how tensors were matched")
r = subprocess.run([E, "compare", bdump, ndump, "--debug-buffer", bbuf, "--debug-buffer-new", nb,
                    "--pte", bpte, "--pte-new", npte], capture_output=True, text=True)
check(r.returncode == 0 and "matched by operator order" in r.stdout and
      "1 only in base, 0 only in new" in r.stdout, "op order: the table's note")


# by debug handle
def record(path, hmap):
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("ETRECORD_V0", b"")
        z.writestr("debug_handle_map", json.dumps({"forward": hmap}))
        z.writestr("delegate_map", "{}")


rb, rn = os.path.join(T, "base.etrecord"), os.path.join(T, "new.etrecord")
record(rb, {"0": [1], "1": [2], "2": [3]})
record(rn, {"0": [1], "1": [2, 3]})
rc, doc, err = compare("--etrecord", rb, "--etrecord-new", rn)
check(rc == 0 and doc["matching"] == "debug handle" and doc["matched"] == 3 and
      doc["only_base"] == 1 and doc["only_new"] == 0,
      "debug handle: matching named, 3 matched, 1 only in base (%s)" % err.strip())
expect_rows(doc, [("matched", 0, 0, base[0][2], newvals[0]),
                  ("only in base", 1, -1),
                  ("matched", 2, 1, base[2][2], newvals[1]),
                  ("matched", 0, 0, base[3][2], newvals[2])], "debug handle")
if doc:
    check([x["debug_handle"] for x in doc["tensors"]] == [1, 2, 3, None],
          "debug handle: the handles matched on (highest of each instruction)")
rc, doc, err = compare("--etrecord", rb)
check(rc == 2 and "both programs" in err, "one ETRecord only: usage error")

# the same program given twice: as without --pte-new
same = subprocess.run([E, "compare", bdump, bdump, "--debug-buffer", bbuf, "--debug-buffer-new",
                       bbuf, "--pte", bpte, "--pte-new", bpte, "-f", "json"],
                      capture_output=True, text=True)
plain = subprocess.run([E, "compare", bdump, bdump, "--debug-buffer", bbuf, "--debug-buffer-new",
                        bbuf, "--pte", bpte, "-f", "json"], capture_output=True, text=True)
check(same.returncode == 0 and same.stdout == plain.stdout and '"matching"' not in same.stdout,
      "--pte-new with the same bytes: the same-program output")

# --html: one self-contained page, one bar per matched tensor (3), the first divergence (add,
# instruction 1) in red, the threshold line, no reference outside the file
import html.parser


class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.rects, self.refs, self.stack, self.bad = [], [], [], False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "rect":
            self.rects.append(a)
        for k in ("href", "src"):
            if k in a and not a[k].startswith("#"):
                self.refs.append(a[k])
        if tag not in ("meta", "path", "line", "rect", "br", "col", "input"):
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag in ("path", "line", "rect"):
            return
        if not self.stack or self.stack.pop() != tag:
            self.bad = True


hp = os.path.join(T, "cmp.html")
r = subprocess.run([E, "compare", bdump, ndump, "--debug-buffer", bbuf, "--debug-buffer-new", nb,
                    "--pte", bpte, "--pte-new", npte, "--html", hp, "--fail-below-snr", "20",
                    "-o", os.devnull], capture_output=True, text=True)
page = open(hp).read() if os.path.exists(hp) else ""
p = P()
p.feed(page)
red = [x for x in p.rects if x.get("fill") == "#d64545"]
check(r.returncode == 7 and len(p.rects) == 3 and len(red) == 2 and not p.refs and not p.bad
      and not p.stack and "http" not in page.replace("http://www.w3.org", "") and
      "threshold 20 dB" in page and "run 1, instruction 1, aten::add" in page,
      "--html: 3 bars (2 below 20 dB in red), threshold line, nested, no external reference")

print("%d failure(s)" % len(fails))
sys.exit(1 if fails else 0)
