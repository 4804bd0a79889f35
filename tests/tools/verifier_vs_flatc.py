#!/usr/bin/env python3
"""Cross-checks etprof's verifier against flatc's on the fuzz corpus (issue 16.5).

  verifier_vs_flatc.py ETPROF FLATC SCHEMA_DIR DIR...

Every file of the given directories is decoded twice: by Debian's flatc (a second, independent
FlatBuffers verifier: `flatc --json --raw-binary` against schema/etdump.fbs, size-prefixed, or
schema/program.fbs) and by `etprof info FILE`. The rule checked is one-directional:

  flatc rejects the file's FlatBuffer  =>  etprof rejects it too (exit 1, one located line).

etprof's verifier is stricter than flatc's by design (it also rejects what the FlatBuffer layout
allows but the format forbids: a string without its NUL, a program whose indexes point nowhere,
a time past the end, ...), so "etprof rejects, flatc accepts" is allowed and counted. Any other
exit status of etprof (a crash, 4 = internal) fails. flatc 2.0.8 decodes without verifying and
crashes (SIGSEGV) on some hostile buffers; such a file gives no verdict and is only counted. Files whose kind neither reader takes
(JSON, text) are skipped. Prints one line per disagreement and a summary of the counts.
"""
import os
import subprocess
import sys
import tempfile


def kind_of(path):
    with open(path, "rb") as f:
        head = f.read(12)
    if len(head) >= 8 and head[4:8] in (b"ET12", b"BP08", b"BP07"):
        return "pte"
    if len(head) >= 12 and head[8:12] == b"ED00":
        return "etdump"
    if len(head) >= 8 and head[4:8] == b"ED00":
        return "etdump_plain"  # the plain (not size-prefixed) form etprof also reads
    name = path.lower()
    if name.endswith(".etdp"):
        return "etdump"
    if name.endswith((".pte", ".bpte")):
        return "pte"
    return None


def flatc_accepts(flatc, schema_dir, path, kind, tmp):
    # --allow-non-utf8: the FlatBuffers verifier does not require UTF-8 (etprof escapes such
    # names when it shows them); without it flatc's JSON writer refuses them.
    if kind in ("etdump", "etdump_plain"):
        prefix = ["--size-prefixed"] if kind == "etdump" else []
        args = [flatc, "--json", "--strict-json", "--allow-non-utf8", *prefix, "--raw-binary",
                "-o", tmp, os.path.join(schema_dir, "etdump.fbs"), "--", path]
    else:
        with open(path, "rb") as f:
            head = f.read(8)
        schema = "bundled_program.fbs" if head[4:8] in (b"BP08", b"BP07") else "program.fbs"
        args = [flatc, "--json", "--strict-json", "--allow-non-utf8", "--raw-binary", "-o", tmp,
                os.path.join(schema_dir, schema), "--", path]
    try:
        r = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
    except subprocess.TimeoutExpired:
        return None
    if r.returncode < 0 or r.returncode >= 128:
        return None  # flatc crashed: it reads without verifying, so this says nothing
    return r.returncode == 0


def main():
    if len(sys.argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    etprof, flatc, schema_dir = sys.argv[1:4]
    files = []
    for d in sys.argv[4:]:
        for root, _, names in os.walk(d):
            files += [os.path.join(root, n) for n in sorted(names)]
    counts = {"both_accept": 0, "both_reject": 0, "stricter": 0, "skipped": 0, "flatc_crash": 0}
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for p in sorted(files):
            kind = kind_of(p)
            if kind is None:
                counts["skipped"] += 1
                continue
            fa = flatc_accepts(flatc, schema_dir, p, kind, tmp)
            r = subprocess.run([etprof, "info", p], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, timeout=60)
            err = r.stderr.decode("utf-8", "replace").strip().splitlines()
            if r.returncode not in (0, 1):
                print(f"FAIL: {p}: etprof info exit {r.returncode}: {err[:3]}")
                bad += 1
                continue
            if r.returncode == 1 and len(err) != 1:
                print(f"FAIL: {p}: a rejection must be one line, got {len(err)}")
                bad += 1
                continue
            ea = r.returncode == 0
            if fa is None:
                counts["flatc_crash"] += 1
            elif fa and ea:
                counts["both_accept"] += 1
            elif not fa and not ea:
                counts["both_reject"] += 1
            elif fa and not ea:
                counts["stricter"] += 1
            else:
                print(f"FAIL: {p}: flatc rejects this {kind} but etprof accepts it")
                bad += 1
    total = sum(counts.values()) - counts["skipped"]
    print(f"verifier_vs_flatc: {total} files: {counts['both_accept']} accepted by both, "
          f"{counts['both_reject']} rejected by both, {counts['stricter']} rejected by etprof "
          f"only (stricter than the FlatBuffer layout), {counts['flatc_crash']} that crash flatc "
          f"(no verdict), {counts['skipped']} not FlatBuffers; "
          f"{bad} disagreement(s)")
    if total == 0:
        print("FAIL: no FlatBuffer files found")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
