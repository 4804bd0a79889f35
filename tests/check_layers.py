#!/usr/bin/env python3
"""The library's layers, held at link level (CONTRIBUTING.md, docs/architecture.md).

    check_layers.py OBJECT_DIR SOURCE_DIR [--graph] [--extra LAYER:OBJECT]

OBJECT_DIR is the library's object directory (build/CMakeFiles/etprof.dir); its objects sit under
src/<layer>/. Objects whose source is no longer in SOURCE_DIR (left by an earlier build) are
ignored. --extra adds an object as a file of LAYER (the test seeds a violation with it: a
read-layer object calling an analysis must fail). For every object, `nm` gives the symbols it defines and the ones it needs; each
needed symbol is mapped to the object that defines it. The rule:

    base <- read <- model <- analyze <- view <- write

a file may call only files of its own layer or of a layer before it. This fails on any call to a
later layer, and on any cycle of files that crosses two layers (a cycle inside one layer is
allowed). It reads the built objects, not #include lines: a call through a declaration copied
by hand, or through a header of the wrong layer, is seen all the same.
"""
import os
import subprocess
import sys

LAYERS = ["base", "read", "model", "analyze", "view", "write"]


def layer_of(rel):
    parts = rel.split(os.sep)
    i = parts.index("src") if "src" in parts else -1
    return parts[i + 1] if i >= 0 and i + 1 < len(parts) else None


def nm(path):
    out = subprocess.run(["nm", path], check=True, capture_output=True, text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == "U":
            undefined.add(f[1])
        elif len(f) == 3 and f[1] in "TDBRtdbrC" and f[1].isupper():
            defined.add(f[2])
    return defined, undefined


def main():
    argv = sys.argv[1:]
    extra = []
    while "--extra" in argv:
        i = argv.index("--extra")
        extra.append(argv[i + 1].split(":", 1))
        del argv[i:i + 2]
    args = [a for a in argv if not a.startswith("--")]
    if len(args) < 2:
        print(__doc__)
        return 2
    root, source = args[0], args[1]
    objs = {}
    for d, _, files in os.walk(root):
        for f in files:
            if f.endswith(".o"):
                p = os.path.join(d, f)
                rel = os.path.relpath(p, root)
                if layer_of(rel) in LAYERS and os.path.exists(os.path.join(source, rel[:-2])):
                    objs[rel[:-2]] = p
    for layer, p in extra:
        objs[os.path.join("src", layer, os.path.basename(p))] = p
    if len(objs) < 20:
        print(f"FAIL: only {len(objs)} library objects under {root}: is it the library's object directory?")
        return 1
    defs, needs = {}, {}
    for name, p in objs.items():
        d, u = nm(p)
        needs[name] = u
        for s in d:
            defs[s] = name
    edges = {}
    bad = []
    for a, us in needs.items():
        la = LAYERS.index(layer_of(a))
        for s in sorted(us):
            b = defs.get(s)
            if b is None or b == a:
                continue
            edges.setdefault(a, set()).add(b)
            lb = LAYERS.index(layer_of(b))
            if lb > la:
                bad.append((a, b, s))
    # strongly connected components (Tarjan), to find cycles that cross layers
    index, low, stack, on, comps = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(10000)

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            comps.append(comp)

    for v in objs:
        if v not in index:
            strong(v)
    crossing = [sorted(c) for c in comps if len({layer_of(x) for x in c}) > 1]
    for a, b, s in bad:
        print(f"FAIL: {a} ({layer_of(a)}) calls {s} of {b} ({layer_of(b)}): "
              f"a layer calls only layers before it ({' <- '.join(LAYERS)})")
    for c in crossing:
        print(f"FAIL: a cycle crosses layers: {' '.join(c)}")
    if "--graph" in sys.argv:
        for a in sorted(edges):
            print(a, "->", " ".join(sorted(edges[a])))
    n_edges = sum(len(v) for v in edges.values())
    print(f"{'FAIL' if bad or crossing else 'ok'}: {len(objs)} objects, {n_edges} file-to-file "
          f"calls, {len(bad)} against the layers, {len(crossing)} cycle(s) across layers")
    return 1 if bad or crossing else 0


if __name__ == "__main__":
    sys.exit(main())
