#!/usr/bin/env python3
"""Second decoder for ETDump files: flatc + our schema, flattened into etprof's `events` JSON.

Usage: flatc_events.py FILE.etdp [--schema schema/etdump.fbs] [--flatc flatc] [-o OUT.json]

Runs Debian's flatc (never etprof code) as
    flatc --json --strict-json --defaults-json [--size-prefixed] --raw-binary -o TMPDIR SCHEMA -- FILE
and prints the document that `etprof events FILE --format json` is specified to print:

    {"schema_version": 1, "file": FILE, "events": [EVENT, ...]}

in file order (run_data block by block, events in vector order). Every EVENT has
    block (run_data index), block_name (string|null), index (index in the block's events),
    type ("profile" | "allocation" | "debug" | "none")
and then, by type:
    profile:    name, chain_index, instruction_id, delegate_debug_id_int, delegate_debug_id_str,
                delegate_debug_metadata, start_time, end_time
    allocation: allocator_id, allocation_size, allocator_name
    debug:      chain_index, instruction_id, delegate_debug_id_int, delegate_debug_id_str, name,
                debug_entry
etprof also writes "kind" (its own classification); this harness does not, and compare_events.py
ignores it.

Normalisation applied to flatc's output (all of it documented here, nothing else is changed):
  * a key missing from flatc's output means the field is absent: it becomes null. (With
    --defaults-json flatc prints every scalar, defaults applied, so only strings, vectors and
    tables can be missing.)
  * delegate_debug_metadata: flatc prints an array of ints; it becomes a lower-case hex string
    ("" for an empty vector, null when absent).
  * allocator_name: run_data[block].allocators[allocator_id - 1].name when 1 <= allocator_id <=
    len(allocators), else null (also null when that allocator has no name).
  * debug_entry: flatc's object as printed (val is the enum name, or an integer flatc could not
    name), keeping only the sub-tables that are present; inside `tensor` (and each element of
    tensor_list.tensors) sizes/strides become null when absent; tensor_list.tensors becomes null
    when absent.
  * an Event table with none of its three fields set has type "none"; one with several set (never
    written by ExecuTorch) is typed by the first present in field order: profile, allocation, debug.
  * flatc prints float/double values in fixed notation rounded to 6 (float) / 12 (double) decimal
    places. They are passed through as flatc printed them; compare_events.py compares floats
    exactly after parsing and, for float_val/double_val only, also accepts a value that equals the
    other side rounded the way flatc rounds (documented there).
Size-prefix detection: ExecuTorch writes size-prefixed files (identifier "ED00" at bytes 8..11);
a plain FlatBuffer has it at bytes 4..7. The harness reads those 4 bytes only, to choose
--size-prefixed, and refuses a file with neither (because --raw-binary disables flatc's own
identifier check).

Python 3 standard library only. Importable: load_flatc_json() and flatten() are used by
check_flatc_vs_manifest.py.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SCHEMA = os.path.normpath(os.path.join(HERE, "..", "..", "schema", "etdump.fbs"))

PROFILE_KEYS = ("name", "chain_index", "instruction_id", "delegate_debug_id_int",
                "delegate_debug_id_str", "delegate_debug_metadata", "start_time", "end_time")
DEBUG_KEYS = ("chain_index", "instruction_id", "delegate_debug_id_int", "delegate_debug_id_str",
              "name", "debug_entry")
VALUE_SUBTABLES = ("tensor", "tensor_list", "int_value", "float_value", "double_value",
                   "bool_value", "output")


class HarnessError(Exception):
    pass


def detect_size_prefixed(path):
    with open(path, "rb") as f:
        head = f.read(12)
    if len(head) >= 12 and head[8:12] == b"ED00":
        return True
    if len(head) >= 8 and head[4:8] == b"ED00":
        return False
    raise HarnessError("%s: no ETDump identifier \"ED00\" at byte 8 (size-prefixed) or 4" % path)


def find_flatc(flatc=None):
    exe = flatc or os.environ.get("FLATC") or shutil.which("flatc")
    if not exe:
        raise HarnessError("flatc not found (install Debian's flatbuffers-compiler, or set FLATC)")
    return exe


def load_flatc_json(path, schema=DEFAULT_SCHEMA, flatc=None):
    """Decode PATH with flatc; return (flatc's JSON as a Python object, size_prefixed)."""
    exe = find_flatc(flatc)
    size_prefixed = detect_size_prefixed(path)
    tmp = tempfile.mkdtemp(prefix="etprof-flatc-")
    try:
        cmd = [exe, "--json", "--strict-json", "--defaults-json"]
        if size_prefixed:
            cmd.append("--size-prefixed")
        cmd += ["--raw-binary", "-o", tmp, schema, "--", path]
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        outs = [n for n in os.listdir(tmp) if n.endswith(".json")]
        if proc.returncode != 0 or len(outs) != 1:
            raise HarnessError("flatc failed on %s (exit %d): %s"
                               % (path, proc.returncode,
                                  (proc.stderr or proc.stdout).decode(errors="replace").strip()))
        with open(os.path.join(tmp, outs[0]), "rb") as f:
            raw = f.read()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    try:
        return json.loads(raw.decode("utf-8")), size_prefixed
    except ValueError as e:
        raise HarnessError("flatc printed invalid JSON for %s: %s" % (path, e))


def hex_bytes(arr):
    if arr is None:
        return None
    return "".join("%02x" % (b & 0xFF) for b in arr)


def norm_tensor(t):
    if t is None:
        return None
    return {
        "scalar_type": t.get("scalar_type"),
        "sizes": t.get("sizes"),
        "strides": t.get("strides"),
        "offset": t.get("offset"),
    }


def norm_value(v):
    if v is None:
        return None
    out = {"val": v.get("val")}
    for key in VALUE_SUBTABLES:
        if key not in v:
            continue
        sub = v[key]
        if key == "tensor":
            sub = norm_tensor(sub)
        elif key == "tensor_list":
            tensors = sub.get("tensors") if sub is not None else None
            sub = {"tensors": None if tensors is None else [norm_tensor(t) for t in tensors]}
        out[key] = sub
    return out


def flatten(doc, file_label):
    """flatc's ETDump JSON -> etprof's events document."""
    events = []
    for bi, rd in enumerate(doc.get("run_data") or []):
        allocators = rd.get("allocators") or []
        for ei, ev in enumerate(rd.get("events") or []):
            out = {"block": bi, "block_name": rd.get("name"), "index": ei}
            if ev.get("profile_event") is not None:
                p = ev["profile_event"]
                out["type"] = "profile"
                for k in PROFILE_KEYS:
                    out[k] = p.get(k)
                out["delegate_debug_metadata"] = hex_bytes(p.get("delegate_debug_metadata"))
            elif ev.get("allocation_event") is not None:
                a = ev["allocation_event"]
                out["type"] = "allocation"
                out["allocator_id"] = a.get("allocator_id")
                out["allocation_size"] = a.get("allocation_size")
                aid = a.get("allocator_id")
                name = None
                if isinstance(aid, int) and 1 <= aid <= len(allocators):
                    name = (allocators[aid - 1] or {}).get("name")
                out["allocator_name"] = name
            elif ev.get("debug_event") is not None:
                d = ev["debug_event"]
                out["type"] = "debug"
                for k in DEBUG_KEYS:
                    out[k] = d.get(k)
                out["debug_entry"] = norm_value(d.get("debug_entry"))
            else:
                out["type"] = "none"
            events.append(out)
    return {"schema_version": 1, "file": file_label, "events": events}


def main(argv):
    ap = argparse.ArgumentParser(description="flatc-based ETDump decoder printing etprof's "
                                             "`events` JSON contract")
    ap.add_argument("file")
    ap.add_argument("--schema", default=DEFAULT_SCHEMA)
    ap.add_argument("--flatc", default=None, help="flatc executable (default: $FLATC or PATH)")
    ap.add_argument("-o", "--output", default="-")
    args = ap.parse_args(argv)
    try:
        doc, _ = load_flatc_json(args.file, args.schema, args.flatc)
    except (HarnessError, OSError) as e:
        print("flatc_events: error: %s" % e, file=sys.stderr)
        return 1
    text = json.dumps(flatten(doc, args.file), indent=1) + "\n"
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
