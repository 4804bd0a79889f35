#!/usr/bin/env python3
"""Compare two etprof `events` JSON documents field by field.

Usage: compare_events.py A.json B.json [--max-diffs N] [--ignore-file]

Typically A is `etprof events FILE --format json` and B is `flatc_events.py FILE`. Exit status:
0 equal, 1 different (the first differences are printed, at most --max-diffs, default 20),
2 usage or unreadable input.

What is compared (the documented contract, nothing else):
  top level: schema_version, file (skipped with --ignore-file), the number of events;
  every event: block, block_name, index, type, and by type
    profile:    name, chain_index, instruction_id, delegate_debug_id_int, delegate_debug_id_str,
                delegate_debug_metadata, start_time, end_time
    allocation: allocator_id, allocation_size, allocator_name
    debug:      chain_index, instruction_id, delegate_debug_id_int, delegate_debug_id_str, name,
                debug_entry (compared recursively: every key of either side)
  "kind" and any other key are ignored.
Rules:
  * a missing key equals null;
  * numbers compare by value after JSON parsing (1 == 1.0, exact for floats); booleans are not
    numbers (true != 1); strings compare exactly; lists element by element;
  * flatc rounding: flatc 2.x prints floats in fixed notation with 6 decimals and doubles with 12,
    so for the keys float_val and double_val two unequal numbers are also accepted when one of
    them equals the other rounded that way (e.g. 0.333333333333 vs 0.3333333333333333).
    Such matches are counted and reported on stderr, never silent.
Python 3 standard library only.
"""

import argparse
import json
import sys

COMMON_KEYS = ("block", "block_name", "index", "type")
TYPE_KEYS = {
    "profile": ("name", "chain_index", "instruction_id", "delegate_debug_id_int",
                "delegate_debug_id_str", "delegate_debug_metadata", "start_time", "end_time"),
    "allocation": ("allocator_id", "allocation_size", "allocator_name"),
    "debug": ("chain_index", "instruction_id", "delegate_debug_id_int", "delegate_debug_id_str",
              "name", "debug_entry"),
    "none": (),
}
FLATC_DECIMALS = {"float_val": 6, "double_val": 12}


class Comparer:
    def __init__(self, max_diffs):
        self.max_diffs = max_diffs
        self.diffs = []
        self.ndiffs = 0
        self.rounded_matches = 0

    def diff(self, path, a, b):
        self.ndiffs += 1
        if len(self.diffs) < self.max_diffs:
            self.diffs.append("%s: %s != %s" % (path, json.dumps(a), json.dumps(b)))

    @staticmethod
    def is_num(x):
        return isinstance(x, (int, float)) and not isinstance(x, bool)

    def rounded_equal(self, key, a, b):
        places = FLATC_DECIMALS.get(key)
        if places is None:
            return False
        for x, y in ((a, b), (b, a)):
            try:
                if float("%.*f" % (places, x)) == float(y):
                    return True
            except (OverflowError, ValueError):
                pass
        return False

    def value(self, path, key, a, b):
        if self.is_num(a) and self.is_num(b):
            if a == b:
                return
            if self.rounded_equal(key, a, b):
                self.rounded_matches += 1
                return
            self.diff(path, a, b)
        elif isinstance(a, dict) and isinstance(b, dict):
            for k in list(a) + [k for k in b if k not in a]:
                self.value("%s.%s" % (path, k), k, a.get(k), b.get(k))
        elif isinstance(a, list) and isinstance(b, list):
            if len(a) != len(b):
                self.diff(path + " (length)", len(a), len(b))
                return
            for i, (x, y) in enumerate(zip(a, b)):
                self.value("%s[%d]" % (path, i), key, x, y)
        elif type(a) is not type(b) or a != b:
            self.diff(path, a, b)

    def documents(self, a, b, ignore_file):
        self.value("schema_version", "schema_version", a.get("schema_version"),
                   b.get("schema_version"))
        if not ignore_file:
            self.value("file", "file", a.get("file"), b.get("file"))
        ea, eb = a.get("events"), b.get("events")
        if not isinstance(ea, list) or not isinstance(eb, list):
            self.diff("events (not a list)", type(ea).__name__, type(eb).__name__)
            return
        if len(ea) != len(eb):
            self.diff("events (count)", len(ea), len(eb))
        for i, (x, y) in enumerate(zip(ea, eb)):
            if not isinstance(x, dict) or not isinstance(y, dict):
                self.diff("events[%d] (not an object)" % i, type(x).__name__, type(y).__name__)
                continue
            where = "events[%d] (block %s index %s)" % (i, x.get("block"), x.get("index"))
            for k in COMMON_KEYS:
                self.value("%s.%s" % (where, k), k, x.get(k), y.get(k))
            keys = TYPE_KEYS.get(x.get("type"), ())
            if x.get("type") != y.get("type"):
                continue
            for k in keys:
                self.value("%s.%s" % (where, k), k, x.get(k), y.get(k))


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def main(argv):
    ap = argparse.ArgumentParser(description="compare two etprof events JSON documents")
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--max-diffs", type=int, default=20)
    ap.add_argument("--ignore-file", action="store_true", help="do not compare the 'file' key")
    args = ap.parse_args(argv)
    try:
        a, b = load(args.a), load(args.b)
    except (OSError, ValueError) as e:
        print("compare_events: error: %s" % e, file=sys.stderr)
        return 2
    if not isinstance(a, dict) or not isinstance(b, dict):
        print("compare_events: error: a document is not a JSON object", file=sys.stderr)
        return 2
    c = Comparer(args.max_diffs)
    c.documents(a, b, args.ignore_file)
    n = len(a.get("events") or [])
    if c.rounded_matches:
        print("compare_events: note: %d float/double values matched only after flatc-style "
              "rounding" % c.rounded_matches, file=sys.stderr)
    if c.ndiffs:
        print("compare_events: %s vs %s: %d difference(s); first %d:"
              % (args.a, args.b, c.ndiffs, len(c.diffs)))
        for d in c.diffs:
            print("  " + d)
        return 1
    print("compare_events: %s vs %s: %d events equal" % (args.a, args.b, n))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
