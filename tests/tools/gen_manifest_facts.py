#!/usr/bin/env python3
"""Turn the corpus MANIFEST.md into tests/data/manifest_facts.json.

manifest_facts.json is an *independent* source of expected values for the ETDump tests: it is
produced by reading the text of MANIFEST.md (written when the corpus was generated, from a decoder
that is neither etprof nor flatc), never by decoding the .etdp files. The tests then hold both
flatc (tests/tools/check_flatc_vs_manifest.py) and etprof against it.

What is recorded, per .etdp entry (paths relative to tests/data):
  file, size, sha256, version, size_prefixed, size_prefix (null when the manifest omits it),
  debug_buffer {file, size, sha256} or null,
  block_count, block_names (expanded: "N x `Execute`" becomes N entries),
  blocks[]: {name, events, events_by_type (null if not given), allocators (null if not given),
             profile_names (per-block label counts, null if the manifest only gives a count),
             distinct_profile_names (int, or null)},
  total_events, total_events_by_type (null if not given),
  events_with_nonempty_metadata (null if not given),
  profile_names: total label counts ("profile event names (total counts)"), or null;
  qnn_labels: for entries that give "N distinct profile event labels; non-node labels: {...};
             plus M HTP node labels (e.g. ...)": {distinct_labels, non_node_labels,
             node_label_count, node_label_examples}, else null;
  debug_events: [{label, value_type, output, count}] or null;
  first_debug_tensors: [{dtype, offset, sizes, first_values}] or null;
  instruction_pattern: the "K0 D1 ..." string or null.
Labels are kept exactly as the manifest spells them: a profile event's name, or for a nameless
delegate event "delegate_str:<delegate_debug_id_str>" / "delegate_int:<delegate_debug_id_int>".
Other files the manifest lists with a size and sha256 (programs, ETRecord) go to other_files.

The parser is strict: an unrecognised bullet inside an entry is an error, so a change of the
manifest's format cannot silently drop facts.

Usage: gen_manifest_facts.py [MANIFEST.md] [-o OUT.json]
Defaults: tests/data/MANIFEST.md -> tests/data/manifest_facts.json (relative to the repo root).
Python 3 standard library only.
"""

import argparse
import ast
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


class ManifestError(Exception):
    pass


def fail(lineno, msg):
    raise ManifestError("MANIFEST.md:%d: %s" % (lineno, msg))


def py_literal(text, lineno):
    """Parse a Python-repr dict/list as printed in the manifest ({'profile': 2}, ['a', 'b'])."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError) as e:
        fail(lineno, "cannot parse %r: %s" % (text, e))


def json_literal(text, lineno):
    try:
        return json.loads(text)
    except ValueError as e:
        fail(lineno, "cannot parse JSON %r: %s" % (text[:80], e))


def new_entry(path, lineno):
    return {
        "file": path,
        "manifest_line": lineno,
        "size": None,
        "sha256": None,
        "version": None,
        "size_prefixed": None,
        "size_prefix": None,
        "debug_buffer": None,
        "block_count": None,
        "block_names": [],
        "blocks": [],
        "total_events": None,
        "total_events_by_type": None,
        "events_with_nonempty_metadata": None,
        "profile_names": None,
        "qnn_labels": None,
        "debug_events": None,
        "first_debug_tensors": None,
        "instruction_pattern": None,
    }


RE_SIZE = re.compile(r"^- size: (\d+) bytes, sha256 `([0-9a-f]{64})`$")
RE_DEBUG_BUF = re.compile(r"^- debug buffer: `([^`]+)` \((\d+) bytes, sha256 `([0-9a-f]{64})`\)$")
RE_VERSION = re.compile(
    r"^- version (\d+), size_prefixed (True|False) \(prefix (\d+)\), run_data blocks: \*\*(\d+)\*\*, "
    r"total events (\d+) (\{[^}]*\}), events with non-empty metadata: (\d+)$")
RE_BLOCK = re.compile(r"^  - (?:(\d+) x )?`([^`]*)`: (\d+) events (\{[^}]*\})(.*)$")
RE_BLOCK_ALLOC = re.compile(r"^, allocators (\[[^\]]*\])(.*)$")
RE_BLOCK_NAMES = re.compile(r"^, names (\{.*\})$")
RE_BLOCK_DISTINCT = re.compile(r"^, (\d+) distinct profile names$")
RE_TOTAL_NAMES = re.compile(r"^- profile event names \(total counts\): (\{.*\})$")
RE_QNN_LABELS = re.compile(
    r"^- (\d+) distinct profile event labels; non-node labels: (\{.*\}); plus (\d+) HTP node labels "
    r"\(e\.g\. (.*)\)$")
RE_FIRST_TENSORS = re.compile(
    r"^- first debug tensors \(type@offset\[sizes\]=first values, from the \.debug\.bin\): (.*)$")
RE_ONE_TENSOR = re.compile(r"^(\w+)@(-?\d+)\[([-\d, ]*)\]=\[([^\]]*)\]$")
RE_DEBUG_EVENTS = re.compile(r"^- debug events \(label, value type, output flag\) -> count: (.*)$")
RE_PATTERN = re.compile(r"^- \*\*instruction pattern\*\* \([^)]*\): `([^`]*)`$")
RE_INPUT = re.compile(r"^- input `([^`]+)`: (\d+) bytes, sha256 `([0-9a-f]{64})`$")
RE_TABLE_ROW = re.compile(
    r"^\| `([^`]+)` \| `([^`]+)` \| (\d+) \| `([0-9a-f]{64})` \| (.*) \|$")
RE_UPSTREAM_DECODED = re.compile(
    r"^Decoded facts for upstream (\S+): version (\d+), size_prefixed (True|False), (\d+) run_data: "
    r"(.*); names (\{.*\})$")
RE_UPSTREAM_BLOCK = re.compile(r"^(\S+)\((\d+) events\)$")

# Bullets that carry no countable fact (free-text results of other checkers, commands).
IGNORED_BULLETS = ("- command", "- **QNN check**", "- **partial-delegation check**")


def parse_block_line(entry, line, lineno):
    m = RE_BLOCK.match(line)
    if not m:
        fail(lineno, "unrecognised block line: %r" % line)
    repeat = int(m.group(1)) if m.group(1) else 1
    block = {
        "name": m.group(2),
        "events": int(m.group(3)),
        "events_by_type": py_literal(m.group(4), lineno),
        "allocators": None,
        "profile_names": None,
        "distinct_profile_names": None,
    }
    rest = m.group(5)
    ma = RE_BLOCK_ALLOC.match(rest)
    if ma:
        block["allocators"] = py_literal(ma.group(1), lineno)
        rest = ma.group(2)
    mn = RE_BLOCK_NAMES.match(rest)
    md = RE_BLOCK_DISTINCT.match(rest)
    if mn:
        block["profile_names"] = json_literal(mn.group(1), lineno)
    elif md:
        block["distinct_profile_names"] = int(md.group(1))
    elif rest:
        fail(lineno, "unrecognised tail of block line: %r" % rest)
    for _ in range(repeat):
        entry["blocks"].append(dict(block))


def parse_entry_bullet(entry, line, lineno, folder):
    if line.startswith(IGNORED_BULLETS):
        return
    m = RE_SIZE.match(line)
    if m:
        entry["size"], entry["sha256"] = int(m.group(1)), m.group(2)
        return
    m = RE_DEBUG_BUF.match(line)
    if m:
        entry["debug_buffer"] = {"file": folder + m.group(1), "size": int(m.group(2)),
                                 "sha256": m.group(3)}
        return
    m = RE_VERSION.match(line)
    if m:
        entry["version"] = int(m.group(1))
        entry["size_prefixed"] = m.group(2) == "True"
        entry["size_prefix"] = int(m.group(3))
        entry["block_count"] = int(m.group(4))
        entry["total_events"] = int(m.group(5))
        entry["total_events_by_type"] = py_literal(m.group(6), lineno)
        entry["events_with_nonempty_metadata"] = int(m.group(7))
        return
    if line.startswith("- blocks (consecutive identical blocks collapsed):"):
        return
    if line.startswith("  - "):
        parse_block_line(entry, line, lineno)
        return
    m = RE_TOTAL_NAMES.match(line)
    if m:
        entry["profile_names"] = json_literal(m.group(1), lineno)
        return
    m = RE_QNN_LABELS.match(line)
    if m:
        entry["qnn_labels"] = {
            "distinct_labels": int(m.group(1)),
            "non_node_labels": json_literal(m.group(2), lineno),
            "node_label_count": int(m.group(3)),
            "node_label_examples": re.findall(r"`([^`]*)`", m.group(4)),
        }
        return
    m = RE_FIRST_TENSORS.match(line)
    if m:
        tensors = []
        for item in m.group(1).split("; "):
            mt = RE_ONE_TENSOR.match(item.strip())
            if not mt:
                fail(lineno, "unrecognised debug tensor %r" % item)
            sizes = [int(x) for x in mt.group(3).split(",") if x.strip()]
            values = [float(x) if "." in x or "e" in x else int(x)
                      for x in (v.strip() for v in mt.group(4).split(",")) if x]
            tensors.append({"dtype": mt.group(1), "offset": int(mt.group(2)), "sizes": sizes,
                            "first_values": values})
        entry["first_debug_tensors"] = tensors
        return
    m = RE_DEBUG_EVENTS.match(line)
    if m:
        events = []
        for item in m.group(1).split("; "):
            key, _, count = item.rpartition(": ")
            label, vtype, output = key.rsplit("|", 2)
            if output not in ("True", "False") or not count.isdigit():
                fail(lineno, "unrecognised debug event summary %r" % item)
            events.append({"label": label, "value_type": vtype, "output": output == "True",
                           "count": int(count)})
        entry["debug_events"] = events
        return
    m = RE_PATTERN.match(line)
    if m:
        entry["instruction_pattern"] = m.group(1)
        return
    fail(lineno, "unrecognised bullet in entry %s: %r" % (entry["file"], line[:100]))


def finish_entry(entry):
    lineno = entry["manifest_line"]
    if entry["size"] is None or entry["block_count"] is None:
        fail(lineno, "entry %s lacks its size or version line" % entry["file"])
    if len(entry["blocks"]) != entry["block_count"]:
        fail(lineno, "entry %s: %d blocks listed, %d announced"
             % (entry["file"], len(entry["blocks"]), entry["block_count"]))
    if entry["profile_names"] is None and entry["qnn_labels"] is None:
        fail(lineno, "entry %s gives no profile name counts" % entry["file"])
    entry["block_names"] = [b["name"] for b in entry["blocks"]]
    total = sum(b["events"] for b in entry["blocks"])
    if total != entry["total_events"]:
        fail(lineno, "entry %s: block events sum to %d, total says %d"
             % (entry["file"], total, entry["total_events"]))


def parse(text):
    etdumps, other_files = [], []
    folder = ""
    entry = None
    upstream_rows = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        if line.startswith("## "):
            if entry:
                finish_entry(entry)
                etdumps.append(entry)
                entry = None
            m = re.match(r"^## (\S+/) ", line)
            folder = m.group(1) if m else ""
            continue
        if line.startswith("### "):
            if entry:
                finish_entry(entry)
                etdumps.append(entry)
            m = re.match(r"^### `([^`]+\.etdp)`$", line)
            if not m:
                fail(lineno, "entry heading is not an .etdp path: %r" % line)
            entry = new_entry(m.group(1), lineno)
            continue
        if entry is not None:
            if line.startswith("- ") or line.startswith("  - "):
                parse_entry_bullet(entry, line, lineno, folder)
            elif line.strip():
                fail(lineno, "unexpected text inside entry %s: %r" % (entry["file"], line[:80]))
            continue
        m = RE_INPUT.match(line)
        if m:
            other_files.append({"file": m.group(1), "size": int(m.group(2)),
                                "sha256": m.group(3), "manifest_line": lineno})
            continue
        m = RE_TABLE_ROW.match(line)
        if m:
            row = {"file": m.group(1), "repo_path": m.group(2), "size": int(m.group(3)),
                   "sha256": m.group(4), "notes": m.group(5), "manifest_line": lineno}
            upstream_rows[row["file"]] = row
            if not row["file"].endswith(".etdp"):
                other_files.append(row)
            continue
        m = RE_UPSTREAM_DECODED.match(line)
        if m:
            path = folder + m.group(1)
            row = upstream_rows.get(path)
            if row is None:
                fail(lineno, "decoded facts for %s but no table row gives its size" % path)
            e = new_entry(path, lineno)
            e["size"], e["sha256"] = row["size"], row["sha256"]
            e["version"] = int(m.group(2))
            e["size_prefixed"] = m.group(3) == "True"
            e["block_count"] = int(m.group(4))
            for part in m.group(5).split(", "):
                mb = RE_UPSTREAM_BLOCK.match(part)
                if not mb:
                    fail(lineno, "unrecognised block %r" % part)
                e["blocks"].append({"name": mb.group(1), "events": int(mb.group(2)),
                                    "events_by_type": None, "allocators": None,
                                    "profile_names": None, "distinct_profile_names": None})
            e["profile_names"] = json_literal(m.group(6), lineno)
            # The line gives no total; the per-block counts are the manifest's own numbers.
            e["total_events"] = sum(b["events"] for b in e["blocks"])
            finish_entry(e)
            etdumps.append(e)
            continue
    if entry:
        finish_entry(entry)
        etdumps.append(entry)
    for e in etdumps:
        if e["debug_buffer"]:
            other_files.append(dict(e["debug_buffer"], manifest_line=e["manifest_line"]))
    return etdumps, other_files


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("manifest", nargs="?", default=os.path.join(ROOT, "tests", "data", "MANIFEST.md"))
    ap.add_argument("-o", "--output",
                    default=os.path.join(ROOT, "tests", "data", "manifest_facts.json"))
    args = ap.parse_args(argv)
    with open(args.manifest, encoding="utf-8") as f:
        text = f.read()
    try:
        etdumps, other_files = parse(text)
    except ManifestError as e:
        print("gen_manifest_facts: error: %s" % e, file=sys.stderr)
        return 1
    doc = {
        "schema_version": 1,
        "generator": "tests/tools/gen_manifest_facts.py",
        "source": "tests/data/MANIFEST.md (copy of ../shared/corpus/MANIFEST.md)",
        "note": "Parsed from the manifest text, not decoded from the files. Paths are relative "
                "to tests/data. null = the manifest does not give this fact.",
        "etdumps": etdumps,
        "other_files": other_files,
    }
    out = json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    if args.output == "-":
        sys.stdout.write(out)
    else:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(out)
        print("gen_manifest_facts: %d .etdp entries, %d other files -> %s"
              % (len(etdumps), len(other_files), args.output), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
