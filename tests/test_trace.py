#!/usr/bin/env python3
"""Validator for `etprof trace` output (Chrome Trace Event Format JSON), python3 stdlib only.

Usage:
  test_trace.py --etprof BIN DUMP [--pte P] [--tmp DIR] [expectations]   run etprof, then validate
  test_trace.py --json TRACE.json [expectations]                          validate a file
  test_trace.py --etprof BIN --errors DUMP --tmp DIR                      error paths (exit codes)
  test_trace.py --etprof BIN --scale DUMP --tmp DIR                       --tick-ns scales time
  test_trace.py --etprof BIN --wrap DUMP --tmp DIR                        a 32-bit counter that
                                                                          wraps mid-file: same trace
  test_trace.py --etprof BIN --self-test DUMP --tmp DIR                   the validator catches
                                                                          broken traces

Rules checked on every trace (the Trace Event Format as Perfetto and chrome://tracing read it,
plus what docs/trace.md promises):
  - strict JSON (no NaN/Infinity), an object with a `traceEvents` array;
  - required keys per phase: X name/ph/ts/dur/pid/tid, M name/ph/pid/args.name (or
    args.sort_index), i name/ph/ts/pid/tid(thread scope)/s, C name/ph/ts/pid/args of numbers;
  - dur >= 0; X slices of one (pid, tid) in non-decreasing ts order and properly nested;
  - every pid/tid used is named by metadata;
  - every X carries args placement, backend, operator, instruction, chain, kind, unit, value,
    synthetic; synthetic slices say so (args.synthetic true, cat "synthetic"), real ones don't;
  - counts, bytes and raw values are never slices; cycles only as synthetic slices;
  - every synthetic slice/instant lies inside the span of its container event (a real slice);
  - QNN node slices are back to back and sum to their parent's span; the QNN µs chain nests
    QNN (execute) ⊇ RPC ⊇ QNN accelerator ⊇ Accelerator ⊇ excl. wait;
  - real slices in ns: dur equals args.value (unless clamped).
"""
import argparse
import json
import os
import subprocess
import sys

EPS = 5e-4  # µs: the writer emits exact multiples of 0.001 µs, so any real error is >= 0.001

ARG_KEYS = ("placement", "backend", "operator", "instruction", "chain", "kind", "unit", "value",
            "synthetic")
CHAIN = ["QNN (execute) time (us)", "RPC (execute) time (us)",
         "QNN accelerator (execute) time (us)", "Accelerator (execute) time (us)",
         "Accelerator (execute excluding wait) time (us)"]
NODE_CLASSES = ("node", "node_io", "node_sys")
HTP_PROCESS = "HTP (optrace)"


class Checker:
    def __init__(self, label):
        self.label = label
        self.errors = []

    def err(self, msg):
        if len(self.errors) < 50:
            self.errors.append(msg)
        elif len(self.errors) == 50:
            self.errors.append("... (more errors not shown)")

    def check(self, cond, msg):
        if not cond:
            self.err(msg)
        return cond


def reject_constant(name):
    raise ValueError("non-standard JSON constant %s" % name)


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def validate(doc, c, expect):
    if not c.check(isinstance(doc, dict), "top level is not an object"):
        return
    evs = doc.get("traceEvents")
    if not c.check(isinstance(evs, list), "no traceEvents array"):
        return
    proc_named, thread_named = set(), set()
    htp_pids, thread_names = set(), {}
    used_pids, used_tracks = set(), set()
    tracks = {}       # (pid, tid) -> list of X events in file order
    instants = []
    counters = {}
    for n, e in enumerate(evs):
        where = "traceEvents[%d]" % n
        if not c.check(isinstance(e, dict), where + ": not an object"):
            continue
        ph = e.get("ph")
        if not c.check(isinstance(ph, str), where + ": no ph"):
            continue
        if "args" in e:
            c.check(isinstance(e["args"], dict), where + ": args is not an object")
        if ph != "M" or "name" in e:
            c.check(isinstance(e.get("name"), str), where + ": no name")
        if ph == "X":
            for k in ("ts", "dur"):
                c.check(is_num(e.get(k)), where + ": X without numeric " + k)
            for k in ("pid", "tid"):
                c.check(isinstance(e.get(k), int), where + ": X without integer " + k)
            if not (is_num(e.get("ts")) and is_num(e.get("dur"))):
                continue
            c.check(e["dur"] >= 0, where + ": negative dur")
            used_pids.add(e.get("pid"))
            used_tracks.add((e.get("pid"), e.get("tid")))
            tracks.setdefault((e.get("pid"), e.get("tid")), []).append(e)
        elif ph == "M":
            c.check(isinstance(e.get("pid"), int), where + ": M without pid")
            args = e.get("args") if isinstance(e.get("args"), dict) else {}
            name = e.get("name")
            if name in ("process_name", "thread_name"):
                c.check(isinstance(args.get("name"), str), where + ": %s without args.name" % name)
            elif name in ("process_sort_index", "thread_sort_index"):
                c.check(isinstance(args.get("sort_index"), int),
                        where + ": %s without integer args.sort_index" % name)
            else:
                c.err(where + ": unexpected metadata %r" % name)
            if name and name.startswith("thread_"):
                c.check(isinstance(e.get("tid"), int), where + ": thread metadata without tid")
            if name == "process_name":
                proc_named.add(e.get("pid"))
                if args.get("name") == HTP_PROCESS:
                    htp_pids.add(e.get("pid"))
            if name == "thread_name":
                thread_named.add((e.get("pid"), e.get("tid")))
                thread_names[(e.get("pid"), e.get("tid"))] = args.get("name")
        elif ph in ("i", "I"):
            c.check(is_num(e.get("ts")), where + ": instant without ts")
            c.check(isinstance(e.get("pid"), int), where + ": instant without pid")
            s = e.get("s", "t")
            c.check(s in ("g", "p", "t"), where + ": bad instant scope %r" % s)
            if s == "t":
                c.check(isinstance(e.get("tid"), int), where + ": thread instant without tid")
                used_tracks.add((e.get("pid"), e.get("tid")))
            used_pids.add(e.get("pid"))
            instants.append(e)
        elif ph == "C":
            c.check(is_num(e.get("ts")), where + ": counter without ts")
            c.check(isinstance(e.get("pid"), int), where + ": counter without pid")
            args = e.get("args")
            c.check(isinstance(args, dict) and args and all(is_num(v) for v in args.values()),
                    where + ": counter args must be numbers")
            key = (e.get("pid"), e.get("name"))
            if key in counters and is_num(e.get("ts")):
                c.check(e["ts"] >= counters[key] - EPS, where + ": counter ts goes back")
            counters[key] = e.get("ts")
        else:
            c.err(where + ": unexpected phase %r" % ph)
    for p in used_pids:
        c.check(p in proc_named, "pid %r has no process_name" % (p,))
    for t in used_tracks:
        c.check(t in thread_named, "track %r has no thread_name" % (t,))

    # Per track: order, nesting, parents.
    real_by_event = {}   # (pid, block, event) -> X
    parent_of = {}       # id(X) -> parent X or None
    children = {}        # id(X) -> [X]
    for key, xs in tracks.items():
        stack = []
        last_ts = None
        for x in xs:
            ts, end = x["ts"], x["ts"] + x["dur"]
            if last_ts is not None:
                c.check(ts >= last_ts - EPS,
                        "track %r: %r at ts %s comes after ts %s" % (key, x["name"], ts, last_ts))
            last_ts = ts
            # Perfetto's rule: a slice ends before one that starts at its end, except that
            # zero-length slices at the same instant stack.
            while stack:
                top_end = stack[-1]["ts"] + stack[-1]["dur"]
                if top_end < ts - EPS or (abs(top_end - ts) <= EPS and
                                          not (stack[-1]["dur"] == 0 and x["dur"] == 0)):
                    stack.pop()
                else:
                    break
            if stack:
                top = stack[-1]
                c.check(ts >= top["ts"] - EPS and end <= top["ts"] + top["dur"] + EPS,
                        "track %r: %r [%s, %s] overlaps %r [%s, %s] without nesting"
                        % (key, x["name"], ts, end, top["name"], top["ts"], top["ts"] + top["dur"]))
            parent_of[id(x)] = stack[-1] if stack else None
            if stack:
                children.setdefault(id(stack[-1]), []).append(x)
            stack.append(x)
            a = x.get("args", {})
            if not a.get("synthetic") and "event" in a:
                real_by_event[(x["pid"], a.get("block"), a.get("event"))] = x

    n_synth = n_nodes = n_node_parents = n_chain_checked = 0
    node_groups, node_parents = {}, {}
    for xs in tracks.values():
        for x in xs:
            if x.get("pid") in htp_pids:  # checked by validate_htp
                continue
            a = x.get("args")
            if not c.check(isinstance(a, dict), "%r: X without args" % x["name"]):
                continue
            for k in ARG_KEYS:
                c.check(k in a, "%r: args.%s missing" % (x["name"], k))
            synth = a.get("synthetic")
            c.check(isinstance(synth, bool), "%r: args.synthetic is not a bool" % x["name"])
            c.check((x.get("cat") == "synthetic") == bool(synth),
                    "%r: cat %r disagrees with args.synthetic %r" % (x["name"], x.get("cat"), synth))
            unit = a.get("unit")
            c.check(unit not in ("count", "bytes", "raw"),
                    "%r: a %s value drawn as a slice" % (x["name"], unit))
            if unit == "cycles" or "no_timestamps" in (a.get("flags") or []):
                c.check(synth is True, "%r: value without timestamps not marked synthetic"
                        % x["name"])
            if synth:
                n_synth += 1
                ctr = real_by_event.get((x["pid"], a.get("block"), a.get("container_event")))
                if c.check(ctr is not None, "%r: synthetic slice without a real container"
                           % x["name"]):
                    c.check(x["ts"] >= ctr["ts"] - EPS and
                            x["ts"] + x["dur"] <= ctr["ts"] + ctr["dur"] + EPS,
                            "%r: synthetic slice outside its container %r"
                            % (x["name"], ctr["name"]))
            elif unit == "ns" and not a.get("clamped") and is_num(a.get("value")) \
                    and "tick_ns" in expect and expect["tick_ns"] == 1:
                c.check(abs(x["dur"] * 1000.0 - a["value"]) <= 1.0 + 1e-9 * a["value"],
                        "%r: dur %s us but value %s ns" % (x["name"], x["dur"], a["value"]))
            # HTP nodes (cycles) are spread over their container by cycle share; the LPAI/GPU
            # nodes logged under the EXECUTE event carry durations (us) and are laid out like
            # the backend's other durations (issue 36 item 9), so only cycle nodes are grouped
            if a.get("qnn_class") in NODE_CLASSES and a.get("unit") == "cycles":
                n_nodes += 1
                c.check(synth is True, "%r: QNN node not synthetic" % x["name"])
                node_groups.setdefault((x["pid"], x["tid"], a.get("block"), a.get("container_event")),
                                       []).append(x)
            if "nodes" in a:
                n_node_parents += 1
                key = (x["pid"], x["tid"], a.get("block"), a.get("container_event"))
                c.check(key not in node_parents, "%r: two node containers for one call" % x["name"])
                node_parents[key] = x
            if x["name"] in CHAIN and synth:
                k = CHAIN.index(x["name"])
                par = parent_of.get(id(x))
                # the nearest enclosing chain member must be an earlier one
                while par is not None and par["name"] not in CHAIN:
                    par = parent_of.get(id(par))
                if par is not None:
                    n_chain_checked += 1
                    c.check(CHAIN.index(par["name"]) < k,
                            "%r nested inside %r against the documented order" % (x["name"], par["name"]))

    # QNN nodes: back to back from their container's start, summing to its span.
    for key, nodes in node_groups.items():
        par = node_parents.get(key)
        if not c.check(par is not None, "QNN nodes of call %r without a node container" % (key,)):
            continue
        pa = par["args"]
        c.check(len(nodes) == pa["nodes"], "%r: %d node slices, args.nodes = %r"
                % (par["name"], len(nodes), pa["nodes"]))
        at = par["ts"]
        for k in nodes:
            c.check(abs(k["ts"] - at) <= EPS,
                    "%r: node %r starts at %s, the previous one ended at %s"
                    % (par["name"], k["name"], k["ts"], at))
            at = k["ts"] + k["dur"]
            c.check(parent_of.get(id(k)) is par or k["dur"] == 0,
                    "%r: node %r is not nested in it" % (par["name"], k["name"]))
        total = sum(k["dur"] for k in nodes)
        c.check(abs(total - par["dur"]) <= EPS or pa.get("node_sum_cycles") == 0,
                "%r: node slices sum to %s us, parent span %s us" % (par["name"], total, par["dur"]))
        if pa.get("node_sum_cycles"):
            shares = sum(k["args"].get("share", 0) for k in nodes)
            c.check(abs(shares - 1.0) < 1e-6, "%r: node shares sum to %s" % (par["name"], shares))
            cyc = sum(k["args"].get("value", 0) for k in nodes)
            c.check(abs(cyc - pa["node_sum_cycles"]) <= 0.5 + 1e-12 * abs(cyc),
                    "%r: node cycles sum to %s, node_sum_cycles %s" % (par["name"], cyc, pa["node_sum_cycles"]))
    for key, par in node_parents.items():
        c.check(key in node_groups or par["args"]["nodes"] == 0, "%r: node container without nodes"
                % par["name"])

    for e in instants:
        a = e.get("args", {})
        if "container_event" in a:
            ctr = real_by_event.get((e["pid"], a.get("block"), a.get("container_event")))
            if c.check(ctr is not None, "%r: instant without a real container" % e["name"]):
                c.check(ctr["ts"] - EPS <= e["ts"] <= ctr["ts"] + ctr["dur"] + EPS,
                        "%r: instant outside its container" % e["name"])
        c.check(a.get("synthetic") is True, "%r: instant without timestamp not marked synthetic"
                % e["name"])

    # Expectations for specific dumps.
    allx = [x for xs in tracks.values() for x in xs]
    if "delegate_calls" in expect:
        dcs = [x for x in allx if x["name"] == "DELEGATE_CALL"]
        c.check(len(dcs) == expect["delegate_calls"],
                "%d DELEGATE_CALL slices, expected %d" % (len(dcs), expect["delegate_calls"]))
        for dc in dcs:
            c.check(dc["args"].get("synthetic") is False, "DELEGATE_CALL marked synthetic")
            par = parent_of.get(id(dc))
            c.check(par is not None and par["name"] == "Method::execute",
                    "DELEGATE_CALL at %s not inside Method::execute" % dc["ts"])
            if "child" in expect:
                kids = [k["name"] for k in children.get(id(dc), [])]
                c.check(expect["child"] in kids,
                        "DELEGATE_CALL at %s does not contain %r (children: %r)"
                        % (dc["ts"], expect["child"], kids[:5]))
    if expect.get("qnn"):
        c.check(n_nodes > 0 and n_node_parents > 0, "no QNN node slices")
        c.check(n_chain_checked > 0, "no QNN µs chain nesting found")
    if "runs" in expect:
        runs = {(x["pid"], x["tid"]) for x in allx if x["name"] == "Method::execute"}
        c.check(len(runs) == expect["runs"], "%d runs with Method::execute, expected %d"
                % (len(runs), expect["runs"]))
    other = doc.get("otherData", {})
    c.check(isinstance(other, dict), "otherData is not an object")
    n_htp = validate_htp(evs, c, expect, tracks, thread_names, htp_pids, allx)
    return {"htp_slices": n_htp, "events": len(evs), "slices": len(allx), "synthetic": n_synth, "nodes": n_nodes,
            "instants": len(instants), "tracks": len(tracks)}


def _first(evs, pred):
    for e in evs:
        if pred(e):
            return e
    raise AssertionError("no event for this mutation")


def _x(name_part=None, **args):
    def pred(e):
        if e.get("ph") != "X":
            return False
        if name_part is not None and name_part not in e.get("name", ""):
            return False
        a = e.get("args", {})
        return all(a.get(k) == v for k, v in args.items())
    return pred


def _m_overlap(evs):      # a child that ends after its parent
    e = _first(evs, _x("OPERATOR_CALL") if any(_x("OPERATOR_CALL")(x) for x in evs)
               else _x("DELEGATE_CALL"))
    e["dur"] += 1e6


def _m_node_sum(evs):     # a QNN node made longer: nodes no longer sum to the parent
    e = _first(evs, lambda x: x.get("ph") == "X" and x.get("args", {}).get("qnn_class") == "node"
               and x["dur"] > 0)
    e["dur"] += 0.5


def _m_unmark(evs):       # a synthetic slice not marked synthetic
    e = _first(evs, _x(synthetic=True))
    e["args"]["synthetic"] = False


def _m_no_dur(evs):
    del _first(evs, _x())["dur"]


def _m_neg_dur(evs):
    _first(evs, _x())["dur"] = -1


def _m_no_pname(evs):
    evs.remove(_first(evs, lambda e: e.get("ph") == "M" and e.get("name") == "process_name"))


def _m_no_tname(evs):
    evs.remove(_first(evs, lambda e: e.get("ph") == "M" and e.get("name") == "thread_name"))


def _m_order(evs):        # a slice of a track moved to the end of the file
    e = _first(evs, _x("Method::execute"))
    evs.remove(e)
    evs.append(e)


def _m_count_as_time(evs):  # a count drawn as a duration
    e = _first(evs, lambda x: x.get("ph") == "i" and x.get("args", {}).get("unit") == "count")
    e["ph"] = "X"
    e["dur"] = 1.0
    e["cat"] = "synthetic"


def _m_outside(evs):      # a synthetic slice moved outside its DELEGATE_CALL
    e = _first(evs, _x("QNN (execute)"))
    e["ts"] += 1e6


def _m_missing_arg(evs):
    del _first(evs, _x())["args"]["placement"]


def _m_chain_order(evs):  # RPC made longer than QNN (execute): the chain nests the wrong way
    q = _first(evs, _x("QNN (execute)"))
    r = _first(evs, _x("RPC (execute)"))
    r["ts"], r["dur"] = q["ts"], q["dur"]
    evs.remove(r)
    evs.insert(evs.index(q), r)


def _m_bad_phase(evs):
    _first(evs, _x())["ph"] = "Q"


MUTATIONS = [
    ("partial overlap", _m_overlap), ("node sum", _m_node_sum), ("unmarked synthetic", _m_unmark),
    ("missing dur", _m_no_dur), ("negative dur", _m_neg_dur), ("no process_name", _m_no_pname),
    ("no thread_name", _m_no_tname), ("ts order", _m_order), ("count as time", _m_count_as_time),
    ("outside container", _m_outside), ("missing arg", _m_missing_arg),
    ("chain order", _m_chain_order), ("bad phase", _m_bad_phase),
]


def opid_int(v):
    if isinstance(v, str):
        return int(v, 16) if v.lower().startswith("0x") else int(v)
    return int(v)


def optrace_ops(path):
    """The optrace's HTP ops de-duplicated by args.ID (first copy kept, as etprof's reader)."""
    with open(path) as f:
        doc = json.load(f)
    ops = {}
    for e in doc.get("traceEvents", []):
        if e.get("ph") != "X" or "ID" not in e.get("args", {}):
            continue
        k = opid_int(e["args"]["ID"])
        if k not in ops:
            ops[k] = {"dur": e["dur"], "qnn_op": e["args"].get("QNN Op Name"), "tid": e["tid"]}
    return ops


def validate_htp(evs, c, expect, tracks, thread_names, htp_pids, allx):
    """The "HTP (optrace)" process of `etprof trace --optrace` (docs/trace.md)."""
    if "optrace" not in expect:
        c.check(not htp_pids, "an HTP (optrace) process without --optrace")
        return 0
    if not c.check(len(htp_pids) == 1, "%d HTP (optrace) processes, expected 1" % len(htp_pids)):
        return 0
    pid = next(iter(htp_pids))
    ghz = expect.get("clock_ghz")
    xs = [x for (p, _), lst in tracks.items() if p == pid for x in lst]
    ops = optrace_ops(expect["optrace"])
    c.check(len(xs) == len(ops), "%d HTP slices, the optrace has %d ops" % (len(xs), len(ops)))
    by_qnn = {}
    seen = set()
    for x in xs:
        a = x.get("args", {})
        for k in ("htp_op", "qnn_op", "op_id", "cycles", "hmx", "hvx", "dma", "clock_ghz",
                  "clock_source"):
            c.check(k in a, "HTP %r: args.%s missing" % (x["name"], k))
        c.check(a.get("synthetic_time") is True, "HTP %r: args.synthetic_time is not true"
                % x["name"])
        c.check(x.get("cat") == "htp", "HTP %r: cat %r" % (x["name"], x.get("cat")))
        g = a.get("clock_ghz")
        if ghz is not None:
            c.check(g == ghz, "HTP %r: clock_ghz %r, expected %r" % (x["name"], g, ghz))
        if is_num(g) and g > 0 and is_num(a.get("cycles")):
            want = a["cycles"] / (g * 1000.0)
            c.check(abs(x["dur"] - want) <= 0.001 + EPS,
                    "HTP %r: dur %s us, cycles / clock = %s us" % (x["name"], x["dur"], want))
        try:
            oid = opid_int(a.get("op_id"))
        except (TypeError, ValueError):
            c.err("HTP %r: bad op_id %r" % (x["name"], a.get("op_id")))
            continue
        c.check(oid not in seen, "HTP op %s drawn twice" % a.get("op_id"))
        seen.add(oid)
        op = ops.get(oid)
        if c.check(op is not None, "HTP op %s is not in the optrace" % a.get("op_id")):
            c.check(a.get("cycles") == op["dur"], "HTP op %s: cycles %r, optrace dur %r"
                    % (a.get("op_id"), a.get("cycles"), op["dur"]))
            c.check(x["tid"] % 1000000 == op["tid"], "HTP op %s on tid %r, optrace tid %r"
                    % (a.get("op_id"), x["tid"], op["tid"]))
        if a.get("qnn_op") is not None:
            by_qnn[a["qnn_op"]] = by_qnn.get(a["qnn_op"], 0) + a.get("cycles", 0)
    want_qnn = {}
    for op in ops.values():
        if op["qnn_op"] is not None:
            want_qnn[op["qnn_op"]] = want_qnn.get(op["qnn_op"], 0) + op["dur"]
    c.check(by_qnn == want_qnn, "HTP cycles per QNN op differ from the optrace: %r" %
            sorted((k, by_qnn.get(k), want_qnn.get(k)) for k in set(by_qnn) | set(want_qnn)
                   if by_qnn.get(k) != want_qnn.get(k))[:5])
    if expect.get("qhas"):
        with open(expect["qhas"]) as f:
            nodes = json.load(f)["data"]["qnn_op_instances_nodes"]["data"]
        for n in nodes:
            c.check(by_qnn.get(n["qnn_op"]) == n["cycles"], "QNN op %r: HTP slices sum to %r "
                    "cycles, QHAS says %r" % (n["qnn_op"], by_qnn.get(n["qnn_op"]), n["cycles"]))
    # Thread names: one per hardware thread (+ overflow lanes).
    for (p, tid) in tracks:
        if p != pid:
            continue
        name = thread_names.get((p, tid), "")
        hw = tid % 1000000
        if hw == 256:
            c.check(name.startswith("HMX (tid 256)"), "HTP tid 256 named %r" % name)
        elif hw >= 512 and hw < 1024:
            c.check(name.startswith("HVX (tid %d)" % hw), "HTP tid %d named %r" % (hw, name))
        c.check((tid >= 1000000) == ("(overlap" in name), "HTP tid %d named %r" % (tid, name))
    # Origin: the first QnnBackend DELEGATE_CALL, else 0.
    dcs = [x["ts"] for x in allx if x["name"] == "DELEGATE_CALL" and x.get("pid") not in htp_pids
           and x.get("args", {}).get("backend") == "QnnBackend"]
    origin = min(dcs) if dcs else 0
    ctrs = [e for e in evs if e.get("ph") == "C" and e.get("pid") == pid]
    starts = [x["ts"] for x in xs] + [e["ts"] for e in ctrs]
    if starts:
        c.check(abs(min(starts) - origin) <= EPS, "the HTP process starts at %s, expected %s "
                "(first QnnBackend DELEGATE_CALL, else 0)" % (min(starts), origin))
    if "htp_origin_dc" in expect:
        c.check(bool(dcs) == expect["htp_origin_dc"], "QnnBackend DELEGATE_CALL present: %r"
                % bool(dcs))
    # Counters: C events with args.bytes for VTCM/DRAM.
    names = {e["name"] for e in ctrs}
    c.check(all(e.get("ph") == "C" for e in evs if e.get("pid") == pid and
                e.get("name", "").endswith("(bytes)")), "an HTP counter that is not a C event")
    for e in ctrs:
        if e["name"].startswith(("VTCM", "DRAM")):
            c.check(e["name"].endswith(" (bytes)") and is_num(e.get("args", {}).get("bytes")),
                    "HTP counter %r without args.bytes" % e["name"])
    for n in expect.get("htp_counters", []):
        c.check(n in names, "HTP counter %r missing (have %r)" % (n, sorted(names)))
    if "htp_overlap" in expect:
        lanes = [x for x in xs if x["tid"] >= 1000000]
        c.check(len(lanes) == expect["htp_overlap"], "%d HTP slices on overlap lanes, expected %d"
                % (len(lanes), expect["htp_overlap"]))
    return len(xs)


def htp_args(o):
    """The etprof options of the HTP run."""
    a = ["--optrace", o.optrace]
    for flag, v in (("--runtrace", o.runtrace), ("--qhas", o.qhas),
                    ("--htp-clock-ghz", o.htp_clock_ghz)):
        if v:
            a += [flag, v]
    return a


def htp_extra(o, c, base, expect):
    """--optrace without a known clock is refused; overlapping ops go to an overflow lane."""
    out = base + ".noclock.json"
    cmd = [o.etprof, "trace", o.dump, "--optrace", o.optrace, "-o", out]
    r = run(cmd)
    err = r.stderr.decode(errors="replace")
    c.check(r.returncode == 2, "--optrace without a clock: exit %d, expected 2" % r.returncode)
    c.check(all(f in err for f in ("--runtrace", "--qhas", "--htp-clock-ghz")),
            "--optrace without a clock: the message does not name the clock options: %r" % err)
    if os.path.exists(out):
        os.unlink(out)
    r = run([o.etprof, "trace", o.dump, "--htp-clock-ghz", "1", "-o", out])
    c.check(r.returncode == 2, "--htp-clock-ghz without --optrace: exit %d, expected 2"
            % r.returncode)
    if os.path.exists(out):
        os.unlink(out)
    # The HTP checks catch broken HTP slices (a validator self-test on this trace).
    cmd = [o.etprof, "trace", o.dump, "-q", "-o", out] + htp_args(o)
    if o.pte:
        cmd += ["--pte", o.pte]
    r = run(cmd)
    if c.check(r.returncode == 0, "HTP self-test: exit %d" % r.returncode):
        with open(out) as f:
            text = f.read()
        os.unlink(out)

        def htp_x(evs):
            pids = {e["pid"] for e in evs if e.get("name") == "process_name"
                    and e["args"]["name"] == HTP_PROCESS}
            return [e for e in evs if e.get("ph") == "X" and e.get("pid") in pids]

        def m_cycles(evs):
            htp_x(evs)[0]["args"]["cycles"] += 1

        def m_overlap(evs):
            xs = htp_x(evs)
            a = xs[0]
            b = next((x for x in xs[1:] if x["tid"] == a["tid"] and x["ts"] > a["ts"]), None)
            if b is not None:  # a now ends inside b without containing it
                a["dur"] = b["ts"] - a["ts"] + b["dur"] / 2 if b["dur"] > 0 else a["dur"] + 1
            else:
                a["args"]["cycles"] = -1

        def m_time(evs):
            del htp_x(evs)[-1]["args"]["synthetic_time"]

        def m_counter(evs):
            e = next(e for e in evs if e.get("ph") == "C" and e.get("cat") == "htp")
            e["ph"] = "X"
            e["dur"] = 0
        for what, mutate in (("HTP cycles", m_cycles), ("HTP overlap", m_overlap),
                             ("HTP synthetic_time", m_time), ("HTP counter as X", m_counter)):
            doc = json.loads(text)
            mutate(doc["traceEvents"])
            b = Checker(what)
            validate(doc, b, expect)
            c.check(b.errors, "mutation not caught: " + what)
    if not o.htp_overlap:
        return
    # Generated optrace: on tid 256, B overlaps A without nesting -> B on "HMX (tid 256)
    # (overlap)"; C nests in A and stays on the thread's own track.
    def op(name, i, tid, ts, dur, qnn):
        return {"name": name, "ph": "X", "pid": 0, "tid": tid, "ts": ts, "dur": dur,
                "args": {"ID": "0x%016x" % i, "QNN Op Name": qnn, "Flags": ["uses_hmx"]}}
    gen = {"header": {"header_version": {"major": 1, "minor": 0, "patch": 0},
                      "version": {"major": 1, "minor": 1, "patch": 0}, "artifact_type": "OP_TRACE"},
           "traceEvents": [
               {"ph": "M", "pid": 0, "tid": 256, "name": "thread_name", "args": {"name": "Type: HMX"}},
               op("A", 1, 256, 0, 1000, "Q1"), op("C", 2, 256, 100, 200, "Q1"),
               op("B", 3, 256, 500, 1000, "Q2"), op("D", 4, 256, 2000, 10, "Q2")]}
    gpath = base + ".overlap_optrace.json"
    with open(gpath, "w") as f:
        json.dump(gen, f)
    r = run([o.etprof, "trace", o.dump, "--optrace", gpath, "--htp-clock-ghz", "2", "-q",
             "-o", out])
    if c.check(r.returncode == 0, "generated overlap optrace: exit %d: %s"
               % (r.returncode, r.stderr.decode(errors="replace"))):
        d = load(out, c)
        if d is not None:
            validate(d, c, {"optrace": gpath, "clock_ghz": 2.0, "htp_overlap": 1})
            names = [e["args"]["name"] for e in d["traceEvents"]
                     if e.get("name") == "thread_name" and "overlap" in e["args"].get("name", "")]
            c.check(names == ["HMX (tid 256) (overlap)"], "overlap lane names: %r" % names)
            b = [e for e in d["traceEvents"] if e.get("ph") == "X" and e.get("name") == "B"]
            c.check(len(b) == 1 and b[0]["tid"] == 256 + 1000000 and abs(b[0]["dur"] - 0.5) <= EPS,
                "B not on the overlap lane with 1000 cycles / 2 GHz = 0.5 us: %r" % b)
    for pth in (out, gpath):
        if os.path.exists(pth):
            os.unlink(pth)


def load(path, c):
    with open(path, "rb") as f:
        raw = f.read()
    try:
        return json.loads(raw.decode("utf-8"), parse_constant=reject_constant)
    except (ValueError, UnicodeDecodeError) as ex:
        c.err("not valid JSON: %s" % ex)
        return None


def run(cmd):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dump", nargs="?")
    ap.add_argument("--etprof")
    ap.add_argument("--pte")
    ap.add_argument("--json")
    ap.add_argument("--tmp", default=os.environ.get("TMPDIR", "/tmp"))
    ap.add_argument("--delegate-calls", type=int)
    ap.add_argument("--child")
    ap.add_argument("--qnn", action="store_true")
    ap.add_argument("--runs", type=int)
    ap.add_argument("--errors", action="store_true")
    ap.add_argument("--scale", action="store_true")
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("--wrap", action="store_true")
    # --optrace: the HTP (optrace) process; the clock options are passed on to etprof.
    ap.add_argument("--optrace")
    ap.add_argument("--runtrace")
    ap.add_argument("--qhas")
    ap.add_argument("--htp-clock-ghz")
    ap.add_argument("--check-qhas", help="QHAS whose per-QNN-op cycles the HTP slices must sum to")
    ap.add_argument("--htp-counters", help="comma-separated C event names expected")
    ap.add_argument("--htp-origin-dc", choices=("yes", "no"))
    ap.add_argument("--htp-overlap", action="store_true",
                    help="also check the overflow lane with a generated optrace whose ops overlap")
    ap.add_argument("--skip-missing", help="exit 77 (skipped) when this path does not exist")
    o = ap.parse_args()
    expect = {"tick_ns": 1}
    if o.delegate_calls is not None:
        expect["delegate_calls"] = o.delegate_calls
    if o.child:
        expect["child"] = o.child
    if o.qnn:
        expect["qnn"] = True
    if o.runs is not None:
        expect["runs"] = o.runs
    if o.skip_missing and not os.path.exists(o.skip_missing):
        print("skipped: %s is absent" % o.skip_missing)
        return 77
    htp_cmd = []
    if o.optrace:
        expect["optrace"] = o.optrace
        htp_cmd = htp_args(o)
        if o.htp_clock_ghz:
            expect["clock_ghz"] = float(o.htp_clock_ghz)
        if o.check_qhas:
            expect["qhas"] = o.check_qhas
        if o.htp_counters:
            expect["htp_counters"] = o.htp_counters.split(",")
        if o.htp_origin_dc:
            expect["htp_origin_dc"] = o.htp_origin_dc == "yes"
        expect["htp_overlap"] = 0
    label = o.json or o.dump
    c = Checker(label)
    os.makedirs(o.tmp, exist_ok=True)
    base = os.path.join(o.tmp, "trace_%d_%s" % (os.getpid(), os.path.basename(label or "x")))

    if o.errors:
        missing = base + ".missing.json"
        r = run([o.etprof, "trace", base + ".does-not-exist.etdp", "-o", missing])
        c.check(r.returncode == 3, "missing input: exit %d, expected 3" % r.returncode)
        c.check(not os.path.exists(missing), "missing input: output file was created")
        bad = base + ".truncated.etdp"
        with open(o.dump, "rb") as f:
            data = f.read()
        with open(bad, "wb") as f:
            f.write(data[: len(data) // 2])
        out = base + ".bad.json"
        r = run([o.etprof, "trace", bad, "-o", out])
        c.check(r.returncode == 1, "truncated input: exit %d, expected 1" % r.returncode)
        c.check(not os.path.exists(out), "truncated input: output file was created")
        os.unlink(bad)
        r = run([o.etprof, "trace", o.dump, "--format", "csv"])
        c.check(r.returncode == 2, "--format csv: exit %d, expected 2" % r.returncode)
        # stdout works too and is the same document as -o
        r = run([o.etprof, "trace", o.dump, "-q"])
        c.check(r.returncode == 0 and r.stdout.startswith(b'{"traceEvents":['),
                "stdout output: exit %d" % r.returncode)
        c.check(r.stderr == b"", "-q still printed on stderr: %r" % r.stderr[:200])
        summary = "error paths"
    elif o.self_test:
        out = base + ".good.json"
        r = run([o.etprof, "trace", o.dump, "-q", "-o", out])
        c.check(r.returncode == 0, "etprof exit %d" % r.returncode)
        with open(out, "rb") as f:
            text = f.read().decode()
        os.unlink(out)
        good = json.loads(text)
        g = Checker("good")
        validate(good, g, {"qnn": True})
        c.check(not g.errors, "the unmodified trace fails: %r" % g.errors[:3])
        n_cases = 0
        for what, mutate in MUTATIONS:
            doc = json.loads(text)
            mutate(doc["traceEvents"])
            b = Checker(what)
            validate(doc, b, {"qnn": True})
            n_cases += 1
            c.check(b.errors, "mutation not caught: " + what)
        b = Checker("nan")
        try:
            json.loads(text.replace('"dur":', '"dur":NaN,"x":', 1), parse_constant=reject_constant)
            b.err("accepted")
        except ValueError:
            pass
        c.check(b.errors == [], "NaN in the JSON not rejected")
        summary = "%d mutations caught" % (n_cases + 1)
    elif o.wrap:
        # Rewrite every timestamp t as (t + K) mod 2^32 with K chosen so that the counter wraps
        # in the middle of the file: the trace must come out the same (times are relative).
        r = run([o.etprof, "events", o.dump, "-f", "json"])
        c.check(r.returncode == 0, "events: exit %d" % r.returncode)
        evs = json.loads(r.stdout)["events"]
        times = sorted({e[k] for e in evs if e["type"] == "profile" for k in ("start_time", "end_time")
                        if e[k]})
        mid = times[len(times) // 2]
        k = (1 << 32) - mid
        with open(o.dump, "rb") as f:
            data = f.read()
        for t in times:
            old = t.to_bytes(8, "little")
            c.check(data.count(old) >= 1, "timestamp %d not found in the file" % t)
            data = data.replace(old, ((t + k) % (1 << 32)).to_bytes(8, "little"))
        wrapped = base + ".wrapped.etdp"
        with open(wrapped, "wb") as f:
            f.write(data)
        outs = []
        for src in (o.dump, wrapped):
            out = base + ".w%d.json" % len(outs)
            r = run([o.etprof, "trace", src, "-q", "-o", out])
            c.check(r.returncode == 0, "trace %s: exit %d" % (src, r.returncode))
            outs.append(load(out, c) if r.returncode == 0 else None)
            if os.path.exists(out):
                os.unlink(out)
        os.unlink(wrapped)
        if outs[0] and outs[1]:
            validate(outs[1], c, {})
            x0 = [(e["name"], e["ts"], e["dur"]) for e in outs[0]["traceEvents"] if e["ph"] == "X"]
            x1 = [(e["name"], e["ts"], e["dur"]) for e in outs[1]["traceEvents"] if e["ph"] == "X"]
            c.check(x0 == x1, "the wrapped counter changed the trace: %r" %
                    [(a, b) for a, b in zip(x0, x1) if a != b][:3])
            c.check(outs[1]["otherData"].get("counter_unwrapped_32bit") is True,
                    "otherData.counter_unwrapped_32bit is not true")
            c.check(any("wrapped" in (e.get("args", {}).get("flags") or [])
                        for e in outs[1]["traceEvents"]), "no event flagged wrapped")
        summary = "32-bit wrap at tick %d" % mid
    elif o.scale:
        docs = []
        for tick in ("1", "2"):
            out = "%s.tick%s.json" % (base, tick)
            r = run([o.etprof, "trace", o.dump, "--tick-ns", tick, "-q", "-o", out])
            c.check(r.returncode == 0, "--tick-ns %s: exit %d" % (tick, r.returncode))
            docs.append(load(out, c) if r.returncode == 0 else None)
            if os.path.exists(out):
                os.unlink(out)
        if docs[0] and docs[1]:
            d1 = [e for e in docs[0]["traceEvents"] if e.get("ph") == "X"]
            d2 = [e for e in docs[1]["traceEvents"] if e.get("ph") == "X"]
            c.check(len(d1) == len(d2) > 0, "different slice counts")
            for a, b in zip(d1, d2):
                c.check(abs(b["dur"] - 2 * a["dur"]) <= 0.0011 and abs(b["ts"] - 2 * a["ts"]) <= 0.0011,
                        "%r: --tick-ns 2 did not double ts/dur" % a["name"])
        out = base + ".ticks.json"
        r = run([o.etprof, "trace", o.dump, "--ticks", "-q", "-o", out])
        c.check(r.returncode == 0, "--ticks: exit %d" % r.returncode)
        if r.returncode == 0:
            d = load(out, c)
            if d:
                c.check("ticks" in d.get("otherData", {}).get("time_base", ""),
                        "--ticks: otherData.time_base does not say ticks")
                validate(d, c, {})
            os.unlink(out)
        summary = "tick scaling"
    else:
        if o.json:
            path = o.json
        else:
            path = base + ".json"
            cmd = [o.etprof, "trace", o.dump, "-o", path] + htp_cmd
            if o.pte:
                cmd += ["--pte", o.pte]
            r = run(cmd)
            if r.returncode != 0:
                print("FAIL %s: etprof exit %d: %s" % (label, r.returncode,
                                                        r.stderr.decode(errors="replace")))
                return 1
        doc = load(path, c)
        stats = validate(doc, c, expect) if doc is not None else None
        if o.optrace and o.etprof:
            htp_extra(o, c, base, expect)
        if not o.json and not c.errors:
            os.unlink(path)
        summary = ", ".join("%s %d" % kv for kv in (stats or {}).items())
    if c.errors:
        print("FAIL %s" % label)
        for m in c.errors:
            print("  " + m)
        return 1
    print("ok %s%s: %s" % (label, " --pte " + o.pte if o.pte else "", summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
