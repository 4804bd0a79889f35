#!/usr/bin/env python3
"""docs/api.md from the public headers, so the manual cannot drift from them (test `api_doc`).

    gen_api_md.py SOURCE_DIR            print docs/api.md as the headers make it
    gen_api_md.py SOURCE_DIR --check    fail when docs/api.md differs (and say how to update it)
    gen_api_md.py SOURCE_DIR --write    rewrite docs/api.md
    gen_api_md.py SOURCE_DIR --check --so LIBETPROF.so
                                        also: every function listed is exported, and only those

Every function declared in include/*.h is listed under its header, with the first sentence of
the comment just above its declaration. The opening comment of each header is its summary.
"""
import os
import re
import subprocess
import sys

ORDER = [  # by what a caller does (etprof.h's manual index)
    ("Open and verify", ["etprof.h", "etprof_io.h"]),
    ("Analyze", ["etprof_runs.h", "etprof_figures.h", "etprof_modules.h", "etprof_inspector.h",
                 "etprof_backend.h", "etprof_explain.h", "etprof_fleet.h"]),
    ("Views and rendering", ["etprof_result.h", "etprof_tree.h", "etprof_explain_doc.h", "etprof_events.h"]),
    ("QNN and other side files", ["etprof_qnn.h", "etprof_etrecord.h", "etprof_arm_pmu.h",
                                  "etprof_bundled.h", "etprof_tensor.h"]),
]

PROTO = re.compile(r"^[A-Za-z_][\w \t\*]*?\b(etp_[a-z0-9_]+)\s*\(", re.M)


def first_sentence(comment):
    text = " ".join(l.strip().lstrip("*").strip() for l in comment.strip().strip("/").strip("*").splitlines())
    text = re.sub(r"\s+", " ", text).strip()
    m = re.match(r"(.+?[a-z0-9)`'\"]\.)(\s|$)", text)
    s = m.group(1) if m else text
    return s if len(s) <= 240 else s[:237].rstrip() + "..."


def header_summary(src):
    m = re.match(r"\s*/\*(.*?)\*/", src, re.S)
    if not m:
        return ""
    s = first_sentence(m.group(1))
    return re.sub(r"^[\w./]+\.h\s*-\s*", "", s)


def functions(src):
    body = src
    out = []
    for m in PROTO.finditer(body):
        name = m.group(1)
        start = m.start()
        line_start = body.rfind("\n", 0, start) + 1
        if body[line_start:start].strip().startswith(("#", "*", "/")):
            continue
        end = body.find(";", m.end())
        brace = body.find("{", m.end())
        if end < 0 or (0 <= brace < end and "static inline" not in body[line_start:m.end()]):
            continue
        decl = re.sub(r"\s+", " ", re.sub(r"#if.*?#endif", "", body[line_start:end], flags=re.S)).strip()
        if decl.startswith(("typedef", "return", "#define")):
            continue
        if "static inline" in decl:
            decl = decl.split("{")[0].strip()
        # the comment just above (ending on the line before)
        above = body[:line_start].rstrip()
        doc = ""
        if above.endswith("*/"):
            cstart = above.rfind("/*")
            doc = first_sentence(above[cstart + 2:-2])
        out.append((name, decl, doc))
    seen, uniq = set(), []
    for f in out:
        if f[0] not in seen:
            seen.add(f[0])
            uniq.append(f)
    return uniq


def generate(src_dir):
    inc = os.path.join(src_dir, "include")
    headers = sorted(h for h in os.listdir(inc) if h.endswith(".h"))
    placed = [h for _, hs in ORDER for h in hs]
    rest = [h for h in headers if h not in placed]
    groups = [(g, [h for h in hs if h in headers]) for g, hs in ORDER] + ([("Other", rest)] if rest else [])
    lines = ["# The C API (generated from include/*.h: do not edit)", "",
             "This page lists every function the public headers declare, by what a caller does, with",
             "the first sentence of its comment. It is made by `tests/tools/gen_api_md.py SOURCE --write`",
             "and checked by the `api_doc` test, so it always matches the headers; the headers hold the",
             "whole contract (ownership, errors, threads: see each header's opening comment).", "",
             "**Stability.** libetprof is 0.x: the SONAME (`libetprof.so.0`) changes with the ABI, and a",
             "minor version may change the API. Stable within 0.x: the errors and conventions of",
             "`etprof.h`, opening and verifying files (`etp_dump_*`, `etp_program_*`, `etp_blob_*`),",
             "the ops analysis and its rows (`etp_ops_*`), the result model and its renderer",
             "(`etp_doc_*`, `etp_doc_render`). Everything else may still move while the API is",
             "reduced to the handful of headers docs/architecture.md describes.", ""]
    total = 0
    body = []
    for g, hs in groups:
        if not hs:
            continue
        body.append(f"## {g}")
        body.append("")
        for h in hs:
            src = open(os.path.join(inc, h), encoding="utf-8").read()
            fs = functions(src)
            total += len(fs)
            body.append(f"### `{h}` ({len(fs)} functions)")
            body.append("")
            s = header_summary(src)
            if s:
                body.append(s)
                body.append("")
            for name, decl, doc in fs:
                body.append(f"- `{decl}`" + (f": {doc}" if doc else ""))
            body.append("")
    lines.append(f"{total} functions in {len(headers)} headers.")
    lines.append("")
    return "\n".join(lines + body).rstrip() + "\n", total, [f for h in headers for f in
                                                          functions(open(os.path.join(inc, h)).read())]


def main():
    src = sys.argv[1]
    text, total, fs = generate(src)
    path = os.path.join(src, "docs", "api.md")
    if "--write" in sys.argv:
        open(path, "w").write(text)
        print(f"wrote {path}: {total} functions")
        return 0
    if "--check" in sys.argv:
        ok = True
        cur = open(path).read() if os.path.exists(path) else ""
        if cur != text:
            print(f"FAIL: docs/api.md does not match the headers: run tests/tools/gen_api_md.py {src} --write")
            ok = False
        if "--so" in sys.argv:
            so = sys.argv[sys.argv.index("--so") + 1]
            out = subprocess.run(["nm", "-D", "--defined-only", so], capture_output=True, text=True, check=True).stdout
            exported = {l.split()[-1].split("@")[0] for l in out.splitlines() if len(l.split()) >= 3 and l.split()[1] == "T"}
            listed = {f[0] for f in fs if "static inline" not in f[1]}
            if listed - exported:
                print("FAIL: listed in docs/api.md but not exported:", " ".join(sorted(listed - exported)))
                ok = False
            if exported - listed:
                print("FAIL: exported but not in docs/api.md:", " ".join(sorted(exported - listed)))
                ok = False
            print(f"{'ok' if ok else 'FAIL'}: {len(listed)} functions listed, {len(exported)} exported")
        return 0 if ok else 1
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
