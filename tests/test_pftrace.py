#!/usr/bin/env python3
"""test_pftrace.py - `etprof trace --format perfetto` (docs/trace.md), decoded by protoc.

For every dump given (DUMP or DUMP::PROGRAM), writes the JSON trace and the Perfetto trace, has
Google's protoc decode the .pftrace against schema/perfetto_trace.proto (a decoder independent of
the libprotobuf-c that wrote it), and checks:
  - the slice count and nesting of every track equal the JSON trace's (same names, same ns
    times, same depths), leaving out the JSON's QNN node slices, whose durations are cycle shares;
  - no slice carries a value in cycles, counts, bytes or raw units (no duration from a non-time);
  - every slice a flow ends at lies inside the slice the flow starts at, and every backend value
    laid out without timestamps ends a flow from its DELEGATE_CALL; flows exist when delegates do;
  - QNN node cycles are arguments of their call, equal to the JSON's node values;
  - counter tracks have a unit, and hold the JSON's count/byte/raw instants;
  - every interned string is written once, and every iid used is defined.
--optrace F --htp-clock-ghz G: the same with the HTP process. Exit 0 ok, 1 failure.
"""
import argparse
import codecs
import json
import os
import re
import subprocess
import sys

NODE_LAYOUTS = ("back to back, sized by share of the node-cycle total",
                "span the nodes are spread over")
NON_TIME = ("cycles", "count", "bytes", "raw")

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg, file=sys.stderr)


# ---- protobuf text format (protoc --decode output) ------------------------------------------

def parse_text(text):
    """Nested dicts: field -> list of values (sub-messages are dicts)."""
    root = {}
    stack = [root]
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if line == "}":
            stack.pop()
            continue
        if line.endswith("{"):
            key = line[:-1].strip()
            msg = {}
            stack[-1].setdefault(key, []).append(msg)
            stack.append(msg)
            continue
        key, _, val = line.partition(": ")
        if val.startswith('"'):
            raw = val[1:-1].encode("latin-1", "backslashreplace")
            val = codecs.escape_decode(raw)[0].decode("utf-8", "replace")
        elif re.fullmatch(r"-?\d+", val):
            val = int(val)
        elif re.fullmatch(r"-?[\d.]+(e[-+]?\d+)?", val):
            val = float(val)
        stack[-1].setdefault(key, []).append(val)
    return root


def one(msg, key, default=None):
    v = msg.get(key)
    return v[0] if v else default


def decode(etprof_dir, proto, path):
    with open(path, "rb") as f:
        r = subprocess.run(["protoc", "--decode=perfetto.protos.Trace", "-I",
                            os.path.dirname(proto), proto], stdin=f, capture_output=True)
    if r.returncode != 0:
        fail("%s: protoc --decode failed: %s" % (path, r.stderr.decode(errors="replace")[:300]))
        return {}
    return parse_text(r.stdout.decode("utf-8", "replace"))


# ---- the Perfetto trace, replayed ------------------------------------------------------------

def replay(where, trace):
    tables = {k: {} for k in ("event_names", "event_categories", "debug_annotation_names",
                              "debug_annotation_string_values")}
    tracks = {}
    stacks = {}
    slices = []       # dicts: track, name, cat, ts, end, depth, args, flows_out, flows_in
    instants = []
    counters = {}     # track uuid -> [(ts, value)]
    for pk in trace.get("packet", []):
        if one(pk, "trusted_packet_sequence_id") != 1:
            fail("%s: a packet outside sequence 1" % where)
        for idata in pk.get("interned_data", []):
            for tab, entries in idata.items():
                for e in entries:
                    iid = one(e, "iid")
                    name = one(e, "name", one(e, "str"))
                    if iid in tables[tab]:
                        fail("%s: %s iid %s defined twice" % (where, tab, iid))
                    if name in tables[tab].values():
                        fail("%s: %s %r interned twice" % (where, tab, name))
                    tables[tab][iid] = name
        for td in pk.get("track_descriptor", []):
            uuid = one(td, "uuid")
            if uuid in tracks:
                fail("%s: track uuid %s described twice" % (where, uuid))
            tracks[uuid] = {"name": one(td, "name"), "parent": one(td, "parent_uuid"),
                            "counter": one(td, "counter")}
        for te in pk.get("track_event", []):
            ts = one(pk, "timestamp")
            typ = one(te, "type")
            tr = one(te, "track_uuid")
            if tr not in tracks:
                fail("%s: event on undescribed track %s" % (where, tr))
                continue
            if typ == "TYPE_COUNTER":
                if not tracks[tr]["counter"]:
                    fail("%s: counter value on a track without CounterDescriptor" % where)
                v = one(te, "counter_value", one(te, "double_counter_value"))
                counters.setdefault(tr, []).append((ts, v))
                continue
            if typ == "TYPE_SLICE_END":
                st = stacks.get(tr)
                if not st:
                    fail("%s: SLICE_END without a begin on %s" % (where, tracks[tr]["name"]))
                    continue
                s = st.pop()
                s["end"] = ts
                if ts < s["ts"]:
                    fail("%s: %s ends before it begins" % (where, s["name"]))
                continue
            name_iid = one(te, "name_iid")
            if name_iid not in tables["event_names"]:
                fail("%s: name iid %s undefined" % (where, name_iid))
            cats = [tables["event_categories"].get(c) for c in te.get("category_iids", [])]
            if None in cats:
                fail("%s: category iid undefined" % where)
            args = {}
            for a in te.get("debug_annotations", []):
                an = tables["debug_annotation_names"].get(one(a, "name_iid"))
                if an is None:
                    fail("%s: annotation name iid undefined" % where)
                if "dict_entries" in a:
                    d = {}
                    for de in a["dict_entries"]:
                        dn = tables["debug_annotation_names"].get(one(de, "name_iid"))
                        d[dn] = one(de, "uint_value", one(de, "int_value",
                                                          one(de, "double_value")))
                    args[an] = d
                elif "string_value_iid" in a:
                    sv = tables["debug_annotation_string_values"].get(one(a, "string_value_iid"))
                    if sv is None:
                        fail("%s: string value iid undefined" % where)
                    args[an] = sv
                else:
                    for k in ("int_value", "uint_value", "double_value", "bool_value",
                              "string_value"):
                        if k in a:
                            args[an] = one(a, k)
            ev = {"track": tr, "name": tables["event_names"].get(name_iid),
                  "cat": cats[0] if cats else None, "ts": ts, "args": args,
                  "flows_out": te.get("flow_ids", []), "flows_in": te.get("terminating_flow_ids", [])}
            if typ == "TYPE_INSTANT":
                instants.append(ev)
                continue
            st = stacks.setdefault(tr, [])
            ev["depth"] = len(st)
            ev["parent"] = st[-1] if st else None
            st.append(ev)
            slices.append(ev)
    for tr, st in stacks.items():
        if st:
            fail("%s: %d slices never end on %s" % (where, len(st), tracks[tr]["name"]))
    return tables, tracks, slices, instants, counters


def group_of(tracks, uuid):
    """(top-level group name: the method / load / HTP track, track name)."""
    name = tracks[uuid]["name"]
    chain = []
    u = uuid
    while u is not None and u in tracks:
        chain.append(tracks[u]["name"])
        u = tracks[u]["parent"]
    # chain: [track, ..., group, file]
    return (chain[-2] if len(chain) >= 2 else None, name)


# ---- the JSON trace --------------------------------------------------------------------------

def ns(us):
    return int(round(float(us) * 1000))


def json_tracks(doc):
    procs, threads = {}, {}
    per = {}
    insts = []
    for e in doc["traceEvents"]:
        ph = e["ph"]
        if ph == "M" and e["name"] == "process_name":
            procs[e["pid"]] = e["args"]["name"]
        elif ph == "M" and e["name"] == "thread_name":
            threads[(e["pid"], e["tid"])] = e["args"]["name"]
        elif ph == "X":
            per.setdefault((e["pid"], e["tid"]), []).append(e)
        elif ph == "i":
            insts.append(e)
    out = {}
    nodes = []
    for key, evs in per.items():
        st = []
        rows = []
        for e in evs:
            t0, t1 = ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])
            while st and not (t0 >= st[-1][0] and t1 <= st[-1][1]):
                st.pop()
            layout = e.get("args", {}).get("layout")
            if layout in NODE_LAYOUTS:
                nodes.append(e)
                continue
            rows.append((e["name"], t0, t1 - t0, len(st)))
            st.append((t0, t1))
        if rows:
            out[(procs.get(key[0]), threads.get(key))] = rows
    return out, nodes, insts


# ---- one dump --------------------------------------------------------------------------------

def run(cmd):
    return subprocess.run(cmd, capture_output=True)


def check_dump(a, dump, pte, extra=(), tag=""):
    base = os.path.join(a.tmp, re.sub(r"[^\w.-]", "_", os.path.basename(dump)) + tag)
    where = os.path.basename(dump) + (" --pte" if pte else "") + tag
    common = [a.etprof, "trace", dump, "-q"] + (["--pte", pte] if pte else []) + list(extra)
    r1 = run(common + ["-o", base + ".json"])
    r2 = run(common + ["-o", base + ".pftrace"])  # the extension chooses the format
    if r1.returncode or r2.returncode:
        fail("%s: etprof trace exit %d / %d: %s" % (where, r1.returncode, r2.returncode,
                                                     (r1.stderr + r2.stderr).decode()[:300]))
        return
    with open(base + ".json") as f:
        doc = json.load(f)
    jt, jnodes, jinsts = json_tracks(doc)
    tables, tracks, slices, instants, counters = replay(where, decode(a.etprof, a.proto,
                                                                      base + ".pftrace"))
    # 1. slices and nesting per track = the JSON's (node share slices left out)
    pt = {}
    for s in slices:
        pt.setdefault(group_of(tracks, s["track"]), []).append(
            (s["name"], s["ts"], s["end"] - s["ts"], s["depth"]))
    nj = sum(len(v) for v in jt.values())
    np_ = sum(len(v) for v in pt.values())
    if set(jt) != set(pt):
        fail("%s: tracks differ: JSON only %s, Perfetto only %s" % (
            where, sorted(set(jt) - set(pt), key=str)[:5], sorted(set(pt) - set(jt), key=str)[:5]))
    for k in jt:
        if k in pt and jt[k] != pt[k]:
            diff = next(i for i, (x, y) in enumerate(zip(jt[k] + [None], pt[k] + [None])) if x != y)
            fail("%s: track %s: slice %d: JSON %s, Perfetto %s" % (
                where, k, diff, (jt[k] + [None])[diff], (pt[k] + [None])[diff]))
    if nj != np_:
        fail("%s: %d slices in the JSON (without node shares), %d in the Perfetto trace" % (
            where, nj, np_))
    # 2. no duration from a value that is not a time
    for s in slices:
        if s["args"].get("unit") in NON_TIME:
            fail("%s: slice %s has a %s value as its duration" % (where, s["name"],
                                                                 s["args"]["unit"]))
    # 3. flows: each ends inside the slice it starts at
    src = {}
    for s in slices:
        for fid in s["flows_out"]:
            if fid in src:
                fail("%s: flow %s starts twice" % (where, fid))
            src[fid] = s
    ended = 0
    for s in slices:
        for fid in s["flows_in"]:
            o = src.get(fid)
            if o is None:
                fail("%s: flow %s ends at %s without a start" % (where, fid, s["name"]))
                continue
            ended += 1
            if not (o["ts"] <= s["ts"] and s["end"] <= o["end"]):
                fail("%s: %s [%d, %d] outside its call %s [%d, %d]" % (
                    where, s["name"], s["ts"], s["end"], o["name"], o["ts"], o["end"]))
        if s["cat"] == "synthetic" and not s["flows_in"]:
            fail("%s: backend value %s has no flow from its call" % (where, s["name"]))
    dc_with_kids = [s for s in slices if s["cat"] == "delegate_call" and s["flows_out"]]
    if any(s["cat"] == "synthetic" for s in slices) and not dc_with_kids:
        fail("%s: no flow from a DELEGATE_CALL" % where)
    # 4. node cycles: arguments of their call, the JSON's values
    pnodes = {}
    for s in slices:
        d = s["args"].get("qnn_node_cycles")
        if d:
            for k, v in d.items():
                pnodes[k] = pnodes.get(k, 0) + v
    jn = {}
    for e in jnodes:
        if e["args"].get("layout") == NODE_LAYOUTS[0]:
            jn[e["name"]] = jn.get(e["name"], 0) + e["args"]["value"]
    jn_named = {}
    for k, v in pnodes.items():
        jn_named[k[:-len(" (cycles)")] if k.endswith(" (cycles)") else k] = v
    if jn != jn_named:
        fail("%s: node cycles differ: JSON %d nodes (sum %s), Perfetto %d (sum %s)" % (
            where, len(jn), sum(jn.values()), len(jn_named), sum(jn_named.values())))
    # 5. counters: every counter track has a unit; the JSON's value instants are counters
    for u, t in tracks.items():
        c = t["counter"]
        if c is not None and not (one(c, "unit") or one(c, "unit_name")):
            fail("%s: counter track %s has no unit" % (where, t["name"]))
    cnames = {tracks[u]["name"] for u in counters}
    dkeys = set()
    for s in slices:
        for k, d in s["args"].items():
            if k.startswith("values_") and isinstance(d, dict):
                dkeys.update(d)
    for e in jinsts:
        if "container_event" not in e["args"]:
            continue
        unit = e["args"].get("unit")
        if unit in ("count", "bytes") and e["name"] not in cnames:
            fail("%s: value %s (%s) is not a counter" % (where, e["name"], unit))
            break
        if e["name"] not in cnames and e["name"] not in dkeys:
            fail("%s: value %s (%s) is neither a counter nor an argument of its call" % (
                where, e["name"], unit))
            break
    # allocations stay instants
    jalloc = sum(1 for e in jinsts if "container_event" not in e["args"])
    if jalloc != len(instants):
        fail("%s: %d allocation instants in the JSON, %d in the Perfetto trace" % (
            where, jalloc, len(instants)))
    print("ok: %s: %d slices (%d node shares as arguments), %d flows, %d counter tracks, "
          "%d interned names" % (where, np_, len(jnodes), ended, len(counters),
                                 sum(len(t) for t in tables.values())))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--etprof", required=True)
    ap.add_argument("--proto", required=True)
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--optrace", nargs=3, metavar=("DUMP::PTE", "OPTRACE", "GHZ"))
    ap.add_argument("dumps", nargs="*", help="DUMP or DUMP::PROGRAM")
    a = ap.parse_args()
    os.makedirs(a.tmp, exist_ok=True)
    for d in a.dumps:
        dump, _, pte = d.partition("::")
        check_dump(a, dump, pte or None)
    if a.optrace:
        dump, _, pte = a.optrace[0].partition("::")
        check_dump(a, dump, pte or None,
                   ["--optrace", a.optrace[1], "--htp-clock-ghz", a.optrace[2]], ".optrace")
    # --max-runs as the JSON; --format perfetto without the extension; a bad format: exit 2
    if a.dumps:
        dump, _, pte = a.dumps[-1].partition("::")
        check_dump(a, dump, pte or None, ["--max-runs", "1"], ".max1")
        out = os.path.join(a.tmp, "fmt.bin")
        r = run([a.etprof, "trace", dump, "--format", "perfetto", "-o", out, "-q"])
        with open(out, "rb") as f:
            if r.returncode != 0 or f.read(1) != b"\x0a":
                fail("--format perfetto -o fmt.bin: exit %d, not a Trace" % r.returncode)
        r = run([a.etprof, "trace", dump, "--format", "xml", "-o", out])
        if r.returncode != 2 or r.stderr.decode().count("\n") != 1:
            fail("--format xml: exit %d (want 2, one line): %r" % (r.returncode, r.stderr))
        bad = os.path.join(a.tmp, "no-such-dir", "t.pftrace")
        r = run([a.etprof, "trace", dump, "-o", bad])
        if r.returncode != 3 or os.path.exists(bad):
            fail("-o in a missing directory: exit %d (want 3, no file)" % r.returncode)
    if failures:
        print("%d failures" % len(failures), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
