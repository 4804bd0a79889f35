"""Hostile input through Python: every file of the fuzz corpus opens or raises InputError (a
crash would kill the interpreter and fail the run), and opening never leaks."""
import gc
import os

import pytest

import etprof
from conftest import CORPUS, SANITIZED, data


def corpus():
    if not os.path.isdir(CORPUS):
        return []
    return sorted(os.path.join(CORPUS, f) for f in os.listdir(CORPUS))


def test_fuzz_corpus_opens_or_raises_input_error():
    """Each file opens (then ops, summary with backend figures, tree, explain, repr) or raises
    InputError."""
    files = corpus()
    assert len(files) > 100, "fuzz corpus missing at %s" % CORPUS
    opened = rejected = 0
    for f in files:
        try:
            with etprof.open(f) as p:
                p.ops(as_dict=True)
                p.ops(all=True, as_dict=True)
                p.summary()
                p.tree()
                p.explain()
                repr(p)
            opened += 1
        except etprof.InputError as e:
            assert e.file == f and e.reason, f
            rejected += 1
    assert opened and rejected  # the corpus holds both kinds


def rss_kb():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)


def test_open_close_cycles_do_not_grow_rss():
    tracemalloc = pytest.importorskip("tracemalloc")
    dump, pte = data("real/add_pte_10x.etdp"), data("upstream/add.pte")
    bad = data("real/add_pte_10x.etdp") + ".missing"

    def cycle():
        with etprof.open(dump, pte) as p:
            p.ops(as_dict=True)
            p.summary()  # with backend_figures (a rendered document)
            p.tree()  # etp_tree_doc rendered in memory
            p.explain()  # etp_explain_doc (text and JSON) and the typed facts
            try:
                p.tree(stat="total")
            except etprof.UsageError:
                pass
        etprof.open(dump).ops(as_dict=True)  # closed by its destructor
        try:
            etprof.open(bad)
        except etprof.IOError:
            pass

    for _ in range(100):  # warm up allocator pools and caches
        cycle()
    gc.collect()
    tracemalloc.start()
    before_py = tracemalloc.get_traced_memory()[0]
    before = rss_kb()
    for _ in range(1000):
        cycle()
    gc.collect()
    after = rss_kb()
    after_py = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    # each cycle maps two files and allocates a model and an ops result in C, and the tree and
    # explain documents: a leak of any of them would be >= 4 KiB a cycle, 4 MB over 1000
    if not SANITIZED:  # under ASan, LSan at exit checks the C side instead
        assert after - before < 1024, "RSS grew by %d KiB over 1000 cycles" % (after - before)
    assert after_py - before_py < 64 * 1024, "Python objects grew by %d bytes" % (
        after_py - before_py)


def test_mutations_through_python():
    """Every truncation and every inverted byte of a small real dump, given as bytes (with its
    program, so the model and the program check run too): opens or raises InputError, never
    anything else."""
    raw = open(data("real/add_pte_1x.etdp"), "rb").read()
    pte = data("upstream/add.pte")
    outcomes = {"ok": 0, "input": 0}
    variants = [raw[:n] for n in range(len(raw))]
    variants += [raw[:i] + bytes([raw[i] ^ 0xFF]) + raw[i + 1:] for i in range(len(raw))]
    for v in variants:
        try:
            with etprof.open(v, pte) as p:
                p.ops(all=True, as_dict=True)
                p.summary()
                p.tree()
                p.explain()
            outcomes["ok"] += 1
        except etprof.InputError as e:
            assert e.file == "<bytes>" and e.reason
            outcomes["input"] += 1
    assert outcomes["ok"] and outcomes["input"]
    assert sum(outcomes.values()) == 2 * len(raw)


def _use_tensors(p, np):
    """Every tensor entry point on an open Profile that has a debug buffer."""
    rows = p.tensors(as_dict=True)
    for i in range(min(len(rows["entry"]), 4)):
        if np is not None:
            p.tensor(i)
    c = etprof.compare(p, p, as_dict=True)
    repr(c)


def test_tensor_entry_points_over_hostile_input():
    """The fuzz corpus with a real debug buffer, every truncation and inverted byte of a dump
    with logged tensors (as bytes), and every truncation of its debug buffer (as bytes):
    tensors(), tensor(i) and compare() return or raise InputError, never crash."""
    try:
        import numpy as np
    except ImportError:
        np = None
    stem = data("real/module_linear_intermediate_1x")
    raw, buf = open(stem + ".etdp", "rb").read(), open(stem + ".debug.bin", "rb").read()
    seen = {"ok": 0, "input": 0}

    def attempt(dump, dbuf, name):
        try:
            with etprof.open(dump, debug_buffer=dbuf) as p:
                _use_tensors(p, np)
            seen["ok"] += 1
        except etprof.InputError as e:
            assert e.reason and e.file in (name, "<debug_buffer>", None), (e.file, name)
            seen["input"] += 1

    for f in corpus():
        attempt(f, buf, f)
    variants = [raw[:n] for n in range(0, len(raw), 3)]
    variants += [raw[:i] + bytes([raw[i] ^ 0xFF]) + raw[i + 1:] for i in range(len(raw))]
    for v in variants:
        attempt(v, buf, "<bytes>")
    for n in range(len(buf) + 1):
        attempt(raw, buf[:n], "<bytes>")
    assert seen["ok"] and seen["input"]


def test_wrong_file_as_debug_buffer():
    """A program, an ETDump or a ZIP given as the debug buffer (a path or bytes) raises
    InputError at open naming the kind (its bytes are never read as tensors); a real debug
    buffer opens."""
    stem = data("real/add_pte_intermediate_1x")
    dump = stem + ".etdp"
    for path, kind in ((data("upstream/add.pte"), "an ExecuTorch program"),
                       (dump, "an ETDump")):
        for dbuf, name in ((path, path), (open(path, "rb").read(), "<debug_buffer>")):
            with pytest.raises(etprof.InputError) as ei:
                etprof.open(dump, debug_buffer=dbuf)
            assert ei.value.file == name and ei.value.offset == 0, (ei.value.file, name)
            assert f"not a debug buffer: this looks like {kind}" in ei.value.reason
    with pytest.raises(etprof.InputError, match="this looks like a ZIP"):
        etprof.open(dump, debug_buffer=b"PK\x03\x04" + bytes(60))
    with etprof.open(dump, debug_buffer=stem + ".debug.bin") as p:
        assert len(p.tensors(as_dict=True)["entry"]) == 2  # MANIFEST: two debug tensors


def test_etrecord_over_hostile_input(tmp_path):
    """open(etrecord=) + ops() over the ETRecord fuzz corpus, truncations of the corpus record
    and inverted bytes in it: a Profile, InputError or IOError (never a crash); the corpus's
    hand-made seed records (named *.bin / *.etrecord; the inputs fuzzing added are named by
    their hash) open."""
    dump = data("upstream/etdump.etdp")
    rdir = os.path.join(os.path.dirname(CORPUS), "etrecord")
    files = sorted(os.path.join(rdir, f) for f in os.listdir(rdir)) if os.path.isdir(rdir) else []
    seeds = [f for f in files if f.endswith((".bin", ".etrecord"))]
    assert seeds, "ETRecord corpus seeds missing at %s" % rdir
    for f in files:
        try:
            with etprof.open(dump, etrecord=f) as p:
                p.ops(all=True, as_dict=True)
        except (etprof.InputError, etprof.IOError) as e:
            assert f not in seeds, "seed record %s rejected: %s" % (f, e)
            assert e.file == f and e.reason
    raw = open(data("upstream/etrecord.bin"), "rb").read()
    variants = [raw[:n] for n in range(0, len(raw), 61)]
    variants += [raw[:i] + bytes([raw[i] ^ 0xFF]) + raw[i + 1:] for i in range(0, len(raw), 37)]
    seen = {"ok": 0, "rejected": 0}
    rec = tmp_path / "r.etrecord"
    for v in variants:
        rec.write_bytes(v)
        try:
            with etprof.open(dump, etrecord=str(rec)) as p:
                p.ops(all=True, as_dict=True)
            seen["ok"] += 1
        except (etprof.InputError, etprof.IOError) as e:
            assert e.file == str(rec) and e.reason
            seen["rejected"] += 1
    assert seen["ok"] and seen["rejected"]


def test_qnn_files_over_hostile_input():
    """Every file of fuzz/corpus/qnn given to open() as qhas=, optrace=, runtrace= and heap=
    (in turn) with the fake-QNN dump, then Profile.qnn(): a result, InputError or UsageError
    (never a crash)."""
    qdir = os.path.join(os.path.dirname(CORPUS), "qnn")
    files = sorted(os.path.join(qdir, f) for f in os.listdir(qdir)) if os.path.isdir(qdir) else []
    assert len(files) > 100, "QNN corpus missing at %s" % qdir
    dump = data("fake-qnn-backend/stories260k_qnn_kv_forward_1x.etdp")
    seen = {"ok": 0, "rejected": 0}
    with open(dump, "rb") as fh:
        raw = fh.read()  # one read; each Profile borrows the bytes
    for i, f in enumerate(files):
        key = ("qhas", "optrace", "runtrace", "heap")[i % 4]
        try:
            with etprof.open(raw, **{key: f}) as p:
                q = p.qnn(as_dict=True)
                repr(q)
            seen["ok"] += 1
        except etprof.InputError as e:
            assert e.file == f and e.reason
            seen["rejected"] += 1
    assert seen["ok"] and seen["rejected"]


def test_new_entry_points_do_not_leak():
    """150 cycles of the debug-buffer, ETRecord and QNN entry points (open with each, tensors,
    tensor, compare, ops with the ETRecord columns, qnn with the join, a failed open of each
    kind; explain with QNN files, modules, tree with a record, tensors(select=EXPR),
    check_outputs, and the errors of each), after 150 cycles that warm the allocator up (measured: RSS settles within about 200
    cycles, then stays flat), grow RSS by under 1 MiB (a leaked model, record or QNN bundle
    per cycle is far more) and traced Python memory by under 64 KiB."""
    tracemalloc = pytest.importorskip("tracemalloc")
    stem = data("real/module_linear_intermediate_1x")
    qdump = data("fake-qnn-backend/stories260k_qnn_kv_forward_1x.etdp")
    qhas = data("qnn-fixtures/stories260k_kv_qhas.json")
    bpte, bdump = data("upstream/bundled_program.bpte"), data(
        "real/bundled_program_intermediate_1x.etdp")
    bdbg = data("real/bundled_program_intermediate_1x.debug.bin")
    try:
        import numpy  # noqa: F401
        have_np = True
    except ImportError:
        have_np = False

    def cycle():
        with etprof.open(stem + ".etdp", debug_buffer=stem + ".debug.bin") as p:
            p.tensors(as_dict=True)
            if have_np:
                p.tensor(1)
            etprof.compare(p, p, as_dict=True)
        with etprof.open(data("upstream/etdump.etdp"),
                         etrecord=data("upstream/etrecord.bin")) as p:
            p.ops(as_dict=True, samples="list")
        with etprof.open(qdump, qhas=qhas) as p:
            p.qnn(as_dict=True)
            p.explain()  # joined to the QNN files
        with etprof.open(data("upstream/etdump.etdp"),
                         etrecord=data("upstream/etrecord.bin")) as p:
            p.modules(as_dict=True)
            p.tree()
            try:
                p.modules("nosuch")
            except etprof.UsageError:
                pass
        with etprof.open(bdump, bpte, debug_buffer=bdbg) as p:
            p.tensors(select="op=aten.add", as_dict=True)
            try:
                p.tensors(select="instr=x")
            except etprof.UsageError:
                pass
        etprof.check_outputs(bpte, bdump, bdbg)
        try:
            etprof.check_outputs(data("upstream/add.pte"), bdump, bdbg)
        except etprof.InputError:
            pass
        for kw in ({"debug_buffer": stem + ".missing"}, {"etrecord": stem + ".missing"},
                   {"qhas": stem + ".missing"}):
            try:
                etprof.open(stem + ".etdp", **kw)
            except etprof.IOError:
                pass

    for _ in range(150):
        cycle()
    gc.collect()
    before = rss_kb()  # RSS first, without tracemalloc (whose own traces cost RSS)
    for _ in range(150):
        cycle()
    gc.collect()
    after = rss_kb()
    tracemalloc.start()
    before_py = tracemalloc.get_traced_memory()[0]
    for _ in range(50):
        cycle()
    gc.collect()
    after_py = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    if not SANITIZED:
        assert after - before < 1024, "RSS grew by %d KiB over 150 cycles" % (after - before)
    assert after_py - before_py < 64 * 1024, "Python objects grew by %d bytes" % (
        after_py - before_py)
