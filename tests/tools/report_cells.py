#!/usr/bin/env python3
"""report_cells.py OLD_ETPROF NEW_ETPROF DATA_DIR [TMP_DIR] - the table cells of `etprof report`
before and after a change, compared: for every dump in DATA_DIR (tests/data) with its program as
tests/tools/snapshot_all.sh's pte_for() pairs them (and without one), plus the QNN fixture
invocation of tests/test_report.sh (QHAS, optrace, runtrace, heap), both binaries write the
report; every <table> (in document order, with its id) is read with the standard library's HTML
parser and each cell's text content (th and td, whitespace-normalised) is compared. Prints the
differences and a count; exit 1 when any cell differs. Byte identity is not required."""
import html.parser
import os
import subprocess
import sys
import tempfile


class Tables(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables = []   # [(id, [[cell text, ...], ...])]
        self.cell = None
        self.depth = 0

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append((dict(attrs).get("id"), []))
            self.depth += 1
        elif tag == "tr" and self.depth:
            self.tables[-1][1].append([])
        elif tag in ("td", "th") and self.depth:
            self.cell = []

    def handle_endtag(self, tag):
        if tag == "table":
            self.depth -= 1
        elif tag in ("td", "th") and self.cell is not None:
            self.tables[-1][1][-1].append(" ".join("".join(self.cell).split()))
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


def pte_for(data, dump):  # as tests/tools/snapshot_all.sh
    p = dump.replace(os.sep, "/")
    if "/real/add_pte_" in p or "/real/executor_runner_add_pte_" in p:
        return f"{data}/upstream/add.pte"
    if "/fake-qnn-backend/" in p or "/synthetic/synth_qnn_" in p:
        return f"{data}/upstream/stories260k_hybrid_llama_qnn.pte"
    if "/mobilenet_v2_ethosu_N_partial_" in p:
        return f"{data}/ethosu-partial-delegation/pte/mobilenet_v2_ethosu_N.pte"
    if "/mobilenet_v2_ethosu_single_" in p:
        return f"{data}/ethosu-partial-delegation/pte/mobilenet_v2_ethosu.pte"
    return None


def cases(data):
    for root, _, files in os.walk(data):
        for f in sorted(files):
            if f.endswith(".etdp"):
                dump = os.path.join(root, f)
                yield [dump]
                p = pte_for(data, dump)
                if p:
                    yield [dump, "--pte", p]
    fx = f"{data}/qnn-fixtures"
    yield [f"{data}/fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp", "--pte",
           f"{data}/upstream/stories260k_hybrid_llama_qnn.pte", "--qhas", f"{fx}/qhas_small.json",
           "--optrace", f"{fx}/optrace_small.json", "--runtrace", f"{fx}/runtrace_small.json",
           "--heap", f"{fx}/heap_ok.txt"]


def tables_of(etprof, args, out):
    r = subprocess.run([etprof, "report", *args, "-o", out], capture_output=True)
    if r.returncode != 0:
        return None, r.returncode
    p = Tables()
    with open(out, encoding="utf-8") as f:
        p.feed(f.read())
    return p.tables, 0


def main():
    old, new, data = sys.argv[1:4]
    tmp = sys.argv[4] if len(sys.argv) > 4 else tempfile.mkdtemp()
    data = os.path.abspath(data)
    ncases = ntables = ncells = ndiff = 0
    for args in sorted(cases(data)):
        ncases += 1
        a, ra = tables_of(old, args, os.path.join(tmp, "old.html"))
        b, rb = tables_of(new, args, os.path.join(tmp, "new.html"))
        name = " ".join(os.path.relpath(x, data) if x.startswith(data) else x for x in args)
        if a is None or b is None:
            if ra != rb:
                print(f"DIFF {name}: exit {ra} before, {rb} after")
                ndiff += 1
            continue
        if [t[0] for t in a] != [t[0] for t in b]:
            print(f"DIFF {name}: tables {[t[0] for t in a]} before, {[t[0] for t in b]} after")
            ndiff += 1
            continue
        for ti, ((tid, ra_), (_, rb_)) in enumerate(zip(a, b)):
            ntables += 1
            if len(ra_) != len(rb_):
                print(f"DIFF {name}: table {ti} ({tid}): {len(ra_)} rows before, {len(rb_)} after")
                ndiff += 1
                continue
            for ri, (x, y) in enumerate(zip(ra_, rb_)):
                if len(x) != len(y):
                    print(f"DIFF {name}: table {ti} ({tid}) row {ri}: {x} / {y}")
                    ndiff += 1
                    continue
                for ci, (u, v) in enumerate(zip(x, y)):
                    ncells += 1
                    if u != v:
                        ndiff += 1
                        print(f"DIFF {name}: table {ti} ({tid}) row {ri} col {ci}: {u!r} -> {v!r}")
    print(f"{ncases} reports, {ntables} tables, {ncells} cells compared, {ndiff} difference(s)")
    return 1 if ndiff else 0


if __name__ == "__main__":
    sys.exit(main())
