#!/usr/bin/env python3
"""Check that flatc + schema/etdump.fbs agree with the corpus manifest, file by file.

Usage: check_flatc_vs_manifest.py [--data tests/data] [--facts manifest_facts.json]
                                  [--schema schema/etdump.fbs] [--flatc flatc] [-v]

For every .etdp entry of manifest_facts.json (made from MANIFEST.md text by
gen_manifest_facts.py, i.e. from a third decoder), decode the file with flatc_events.py and
compare everything the manifest states:
  size and sha256 of the file; version; size prefix (the u32 at byte 0); block count and block
  names in order; per block: event count, counts by type, allocator names, profile label counts
  (or the number of distinct labels); totals by type; the number of profile events with a
  non-empty delegate_debug_metadata vector; total profile label counts, or for QNN-style entries
  the non-node label counts plus the number of other ("node") labels and the manifest's examples;
  debug events grouped by (label, value type, output flag); the first debug tensors (dtype,
  offset, sizes, and their first values read from the .debug.bin); the OPERATOR_CALL /
  DELEGATE_CALL instruction pattern of the first Execute block.
A profile event's label is its name, or "delegate_str:<id>" / "delegate_int:<id>" when it has
none (the manifest's spelling). A debug event's label is its delegate_debug_id_str, else
"int:<delegate_debug_id_int>" when that is not -1, else its name, else "-".
The manifest writes only some dtypes in its "first debug tensors" list (f32, i32, u8, ...);
tensors of other dtypes (e.g. UINT16) are skipped in that comparison and reported as a note.

Also checked: the size and sha256 of every other file the manifest lists (a listed file that is
not in tests/data is a note, not a failure: MANIFEST.md lists one duplicate .pte that the corpus
does not carry), that every .etdp in tests/data is covered, and, for flatc-built/all_kinds.etdp
(not in the manifest), that it decodes to the same JSON as its source all_kinds.json after flatc
itself rebuilds that JSON with our schema.

Exit status: 0 all agree, 1 any mismatch, 2 setup error (flatc missing, files unreadable).
Python 3 standard library only.
"""

import argparse
import collections
import hashlib
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.dont_write_bytecode = True  # keep tests/tools free of __pycache__
sys.path.insert(0, HERE)
import flatc_events  # noqa: E402

# Manifest dtype spelling -> (ETDump ScalarType name, struct format of one element).
DTYPES = {
    "f32": ("FLOAT", "<f"), "f64": ("DOUBLE", "<d"), "i8": ("CHAR", "<b"), "u8": ("BYTE", "<B"),
    "i16": ("SHORT", "<h"), "i32": ("INT", "<i"), "i64": ("LONG", "<q"), "bool": ("BOOL", "<?"),
}
SCALAR_TO_DTYPE = {v[0]: k for k, v in DTYPES.items()}


class Report:
    def __init__(self, verbose):
        self.verbose = verbose
        self.failures = 0
        self.notes = []

    def check(self, where, what, got, want):
        if got != want:
            self.failures += 1
            print("FAIL %s: %s: flatc %s, manifest %s"
                  % (where, what, json.dumps(got, sort_keys=True)[:400],
                     json.dumps(want, sort_keys=True)[:400]))
            return False
        if self.verbose:
            print("ok   %s: %s" % (where, what))
        return True

    def note(self, where, msg):
        self.notes.append("%s: %s" % (where, msg))


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def profile_label(e):
    if e.get("name") is not None:
        return e["name"]
    if e.get("delegate_debug_id_str") is not None:
        return "delegate_str:" + e["delegate_debug_id_str"]
    return "delegate_int:%d" % e["delegate_debug_id_int"]


def debug_label(e):
    if e.get("delegate_debug_id_str") is not None:
        return e["delegate_debug_id_str"]
    if e.get("delegate_debug_id_int", -1) != -1:
        return "int:%d" % e["delegate_debug_id_int"]
    if e.get("name") is not None:
        return e["name"]
    return "-"


def debug_tensors(events):
    """Every tensor of every debug event, in file order (tensor lists expanded)."""
    for e in events:
        if e["type"] != "debug" or not e.get("debug_entry"):
            continue
        v = e["debug_entry"]
        if v.get("tensor"):
            yield v["tensor"]
        for t in ((v.get("tensor_list") or {}).get("tensors") or []):
            yield t


def check_first_tensors(rep, where, entry, events, data_dir):
    want = entry["first_debug_tensors"]
    got, skipped = [], []
    for t in debug_tensors(events):
        if len(got) == len(want):
            break
        if t.get("scalar_type") not in SCALAR_TO_DTYPE:
            skipped.append("%s@%s" % (t.get("scalar_type"), t.get("offset")))
            continue
        got.append(t)
    if skipped:
        rep.note(where, "first debug tensors: skipped dtype(s) the manifest does not list: %s"
                 % ", ".join(skipped))
    got_desc = [{"dtype": SCALAR_TO_DTYPE[t["scalar_type"]], "offset": t.get("offset"),
                 "sizes": t.get("sizes")} for t in got]
    want_desc = [{k: w[k] for k in ("dtype", "offset", "sizes")} for w in want]
    if not rep.check(where, "first debug tensors (dtype, offset, sizes)", got_desc, want_desc):
        return
    buf_info = entry.get("debug_buffer")
    if not buf_info:
        return
    with open(os.path.join(data_dir, buf_info["file"]), "rb") as f:
        buf = f.read()
    values = []
    for w in want:
        fmt = DTYPES[w["dtype"]][1]
        n = len(w["first_values"])
        size = struct.calcsize(fmt)
        vals = [struct.unpack_from(fmt, buf, w["offset"] + i * size)[0] for i in range(n)]
        values.append([float(x) if isinstance(w["first_values"][0], float) else x for x in vals])
    rep.check(where, "first debug tensor values (from the .debug.bin at flatc's offsets)",
              values, [w["first_values"] for w in want])


def instruction_pattern(events):
    first_exec = next((e["block"] for e in events if e["block_name"] == "Execute"), None)
    marks = []
    for e in events:
        if e["block"] != first_exec or e["type"] != "profile":
            continue
        if e.get("name") == "OPERATOR_CALL":
            marks.append("K%d" % e["instruction_id"])
        elif e.get("name") == "DELEGATE_CALL":
            marks.append("D%d" % e["instruction_id"])
    return " ".join(marks)


def check_entry(rep, entry, data_dir, schema, flatc):
    where = entry["file"]
    path = os.path.join(data_dir, entry["file"])
    if not os.path.exists(path):
        rep.check(where, "file present", False, True)
        return
    rep.check(where, "size", os.path.getsize(path), entry["size"])
    rep.check(where, "sha256", sha256_of(path), entry["sha256"])

    doc, size_prefixed = flatc_events.load_flatc_json(path, schema, flatc)
    events = flatc_events.flatten(doc, entry["file"])["events"]
    run_data = doc.get("run_data") or []

    rep.check(where, "version", doc.get("version"), entry["version"])
    rep.check(where, "size_prefixed", size_prefixed, entry["size_prefixed"])
    if entry["size_prefix"] is not None:
        with open(path, "rb") as f:
            prefix = struct.unpack("<I", f.read(4))[0]
        rep.check(where, "size prefix", prefix, entry["size_prefix"])
    rep.check(where, "block count", len(run_data), entry["block_count"])
    rep.check(where, "block names", [rd.get("name") for rd in run_data], entry["block_names"])

    by_block = collections.defaultdict(list)
    for e in events:
        by_block[e["block"]].append(e)
    for bi, want in enumerate(entry["blocks"]):
        if bi >= len(run_data):
            break
        bw = "%s block %d (%s)" % (where, bi, want["name"])
        evs = by_block[bi]
        rep.check(bw, "events", len(evs), want["events"])
        if want["events_by_type"] is not None:
            rep.check(bw, "events by type", dict(collections.Counter(e["type"] for e in evs)),
                      want["events_by_type"])
        if want["allocators"] is not None:
            rep.check(bw, "allocators",
                      [a.get("name") for a in (run_data[bi].get("allocators") or [])],
                      want["allocators"])
        labels = collections.Counter(profile_label(e) for e in evs if e["type"] == "profile")
        if want["profile_names"] is not None:
            rep.check(bw, "profile label counts", dict(labels), want["profile_names"])
        if want["distinct_profile_names"] is not None:
            rep.check(bw, "distinct profile labels", len(labels), want["distinct_profile_names"])
        if want["allocators"] is None and run_data[bi].get("allocators"):
            rep.check(bw, "allocators (manifest lists none)",
                      [a.get("name") for a in run_data[bi]["allocators"]], None)

    rep.check(where, "total events", len(events), entry["total_events"])
    if entry["total_events_by_type"] is not None:
        rep.check(where, "total events by type",
                  dict(collections.Counter(e["type"] for e in events)),
                  entry["total_events_by_type"])
    if entry["events_with_nonempty_metadata"] is not None:
        rep.check(where, "events with non-empty metadata",
                  sum(1 for e in events if e["type"] == "profile"
                      and e.get("delegate_debug_metadata")),
                  entry["events_with_nonempty_metadata"])

    labels = collections.Counter(profile_label(e) for e in events if e["type"] == "profile")
    if entry["profile_names"] is not None:
        rep.check(where, "total profile label counts", dict(labels), entry["profile_names"])
        if entry["total_events_by_type"] is None:
            # The manifest gives no per-type counts here; its name counts cover all events.
            rep.check(where, "profile events (= sum of the manifest's name counts)",
                      sum(labels.values()), sum(entry["profile_names"].values()))
    q = entry["qnn_labels"]
    if q is not None:
        rep.check(where, "distinct profile labels", len(labels), q["distinct_labels"])
        rep.check(where, "non-node label counts",
                  {k: labels.get(k, 0) for k in q["non_node_labels"]}, q["non_node_labels"])
        node = {k: n for k, n in labels.items() if k not in q["non_node_labels"]}
        rep.check(where, "node label count", len(node), q["node_label_count"])
        rep.check(where, "node label examples present",
                  [x for x in q["node_label_examples"] if x not in node], [])

    if entry["debug_events"] is not None:
        groups = collections.Counter()
        for e in events:
            if e["type"] != "debug":
                continue
            v = e.get("debug_entry") or {}
            out = bool((v.get("output") or {}).get("bool_val"))
            groups[(debug_label(e), v.get("val"), out)] += 1
        got = sorted([k[0], k[1], k[2], n] for k, n in groups.items())
        want = sorted([d["label"], d["value_type"], d["output"], d["count"]]
                      for d in entry["debug_events"])
        rep.check(where, "debug events (label, value type, output, count)", got, want)
    if entry["first_debug_tensors"] is not None:
        check_first_tensors(rep, where, entry, events, data_dir)
    if entry["instruction_pattern"] is not None:
        rep.check(where, "instruction pattern of the first Execute block",
                  instruction_pattern(events), entry["instruction_pattern"])


def check_all_kinds(rep, data_dir, schema, flatc, stem="all_kinds", types=None):
    """flatc-built/STEM.etdp vs its source JSON, both through flatc and our schema."""
    where = "flatc-built/%s.etdp" % stem
    etdp = os.path.join(data_dir, "flatc-built", stem + ".etdp")
    src = os.path.join(data_dir, "flatc-built", stem + ".json")
    if not (os.path.exists(etdp) and os.path.exists(src)):
        rep.check(where, "all_kinds.etdp and all_kinds.json present", False, True)
        return
    tmp = tempfile.mkdtemp(prefix="etprof-allkinds-")
    try:
        exe = flatc_events.find_flatc(flatc)
        proc = subprocess.run([exe, "-b", "--size-prefixed", "-o", tmp, schema, src],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if proc.returncode != 0:
            rep.check(where, "flatc rebuilds all_kinds.json", proc.stderr.decode(errors="replace"),
                      "")
            return
        rebuilt = os.path.join(tmp, stem + ".etdp")
        from_file, _ = flatc_events.load_flatc_json(etdp, schema, flatc)
        from_src, _ = flatc_events.load_flatc_json(rebuilt, schema, flatc)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    rep.check(where, "decodes to its source all_kinds.json (defaults applied)", from_file,
              from_src)
    events = flatc_events.flatten(from_file, where)["events"]
    rep.check(where, "event types", dict(collections.Counter(e["type"] for e in events)),
              types or {"allocation": 1, "profile": 5, "debug": 6})


def main(argv):
    ap = argparse.ArgumentParser(description="flatc vs MANIFEST.md facts for every corpus .etdp")
    ap.add_argument("--data", default=os.path.join(ROOT, "tests", "data"))
    ap.add_argument("--facts", default=None, help="default: DATA/manifest_facts.json")
    ap.add_argument("--schema", default=flatc_events.DEFAULT_SCHEMA)
    ap.add_argument("--flatc", default=None)
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    facts_path = args.facts or os.path.join(args.data, "manifest_facts.json")
    try:
        flatc_events.find_flatc(args.flatc)
        with open(facts_path, encoding="utf-8") as f:
            facts = json.load(f)
    except (flatc_events.HarnessError, OSError, ValueError) as e:
        print("check_flatc_vs_manifest: error: %s" % e, file=sys.stderr)
        return 2

    rep = Report(args.verbose)
    covered = set()
    try:
        for entry in facts["etdumps"]:
            covered.add(entry["file"])
            before = rep.failures
            check_entry(rep, entry, args.data, args.schema, args.flatc)
            print("%s %s" % ("PASS" if rep.failures == before else "FAIL", entry["file"]))
        for other in facts["other_files"]:
            path = os.path.join(args.data, other["file"])
            if not os.path.exists(path):
                rep.note(other["file"], "listed in MANIFEST.md but not in tests/data (%s)"
                         % other.get("notes", "no note"))
                continue
            rep.check(other["file"], "size", os.path.getsize(path), other["size"])
            rep.check(other["file"], "sha256", sha256_of(path), other["sha256"])
        before = rep.failures
        check_all_kinds(rep, args.data, args.schema, args.flatc)
        covered.add("flatc-built/all_kinds.etdp")
        print("%s flatc-built/all_kinds.etdp (vs all_kinds.json)"
              % ("PASS" if rep.failures == before else "FAIL"))
        # the data-quality dump (tests/test_data_quality.py): 2 + 6 + 6 + 1 profile events
        before = rep.failures
        check_all_kinds(rep, args.data, args.schema, args.flatc, "odd_blocks", {"profile": 15})
        covered.add("flatc-built/odd_blocks.etdp")
        print("%s flatc-built/odd_blocks.etdp (vs odd_blocks.json)"
              % ("PASS" if rep.failures == before else "FAIL"))
        # the backend-decoder dump (tests/test_backends.py): 8 profile events
        before = rep.failures
        check_all_kinds(rep, args.data, args.schema, args.flatc, "backends", {"profile": 8})
        covered.add("flatc-built/backends.etdp")
        print("%s flatc-built/backends.etdp (vs backends.json)"
              % ("PASS" if rep.failures == before else "FAIL"))
        # the backend decoders' fixtures (tests/test_backend_decoders.py), profile events each
        # the two-thread merge's dump (tests/test_threads_identical.sh), profile events each;
        # nesting that varies between runs (tests/test_data_quality.py): 4 runs of 4 events;
        # an event whose unit varies between runs: 3 runs of 3; QNN GPU/LPAI-style node events
        # under the EXECUTE event (tests/test_qnn_cli.sh): 3 runs of 6
        for fx, n in (("coreml", 6), ("vulkan", 9), ("neutron", 10), ("vgf", 8),
                      ("threads_split", 45), ("host_scopes", 16), ("host_scopes_halves", 16),
                      ("units_vary", 9), ("qnn_gpu", 18)):
            before = rep.failures
            check_all_kinds(rep, args.data, args.schema, args.flatc, fx, {"profile": n})
            covered.add("flatc-built/%s.etdp" % fx)
            print("%s flatc-built/%s.etdp (vs %s.json)"
                  % ("PASS" if rep.failures == before else "FAIL", fx, fx))
    except (flatc_events.HarnessError, OSError) as e:
        print("check_flatc_vs_manifest: error: %s" % e, file=sys.stderr)
        return 2

    on_disk = set()
    for dirpath, _, names in os.walk(args.data):
        for n in names:
            if n.endswith(".etdp"):
                on_disk.add(os.path.relpath(os.path.join(dirpath, n), args.data))
    rep.check("tests/data", ".etdp files without expected facts", sorted(on_disk - covered), [])

    for n in rep.notes:
        print("note: " + n)
    print("check_flatc_vs_manifest: %d manifest .etdp entries + all_kinds.etdp, %d failure(s)"
          % (len(facts["etdumps"]), rep.failures))
    return 1 if rep.failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
