#!/usr/bin/env python3
"""The layering rule (CONTRIBUTING.md): files under src/cli/ include headers from include/ and
src/cli/ only. The internal includes that remain are listed in tests/layering_debt.txt ("FILE
HEADER" per line); this fails on an internal include that is not listed, and on a listed one
that is gone (the list only shrinks).

    check_layering.py SOURCE_DIR
"""
import os
import re
import sys

src = sys.argv[1]
public = set(os.listdir(os.path.join(src, "include")))
cli_dir = os.path.join(src, "src", "cli")
own = {f for f in os.listdir(cli_dir) if f.endswith(".h")}
found = set()
for f in sorted(os.listdir(cli_dir)):
    if not f.endswith((".c", ".h")):
        continue
    for line in open(os.path.join(cli_dir, f), encoding="utf-8"):
        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
        if m and m.group(1) not in public and m.group(1) not in own:
            found.add((f"src/cli/{f}", m.group(1)))
debt = set()
for line in open(os.path.join(src, "tests", "layering_debt.txt"), encoding="utf-8"):
    line = line.split("#")[0].strip()
    if line:
        a, b = line.split()
        debt.add((a, b))
new = sorted(found - debt)
gone = sorted(debt - found)
for a, b in new:
    print(f"FAIL: {a} includes the internal header {b}: src/cli/ may use include/ only "
          "(CONTRIBUTING.md); make what it needs public API")
for a, b in gone:
    print(f"FAIL: tests/layering_debt.txt lists '{a} {b}', which is gone: remove the line")
print(f"{'FAIL' if new or gone else 'ok'}: {len(found)} internal include(s) left in src/cli/ "
      f"({len(new)} new, {len(gone)} stale)")
sys.exit(1 if new or gone else 0)
