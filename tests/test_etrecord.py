#!/usr/bin/env python3
"""ETRecord reader and join (issue 13.1; docs/formats.md "ETRecord", docs/cli.md).

1. Facts of the corpus record tests/data/upstream/etrecord.bin (old layout, no _constants):
   entries, programs, node aten_mul_tensor, op aten.mul.Tensor, debug handle 2, stack trace,
   tensor meta -- the expected values are read here from the JSON inside the zip with Python's
   zipfile + json (an independent decoder).
2. Crafted records written here with zipfile: new multi-method layout, DEFLATE, ZIP64 (force_zip64),
   graph_map extras and pickles (listed as skipped), and broken ones with exact one-line errors
   and exit codes (docs/cli.md: 1 = rejected input, 3 = I/O).
3. `ops --etrecord` on real/add_pte_1x.etdp + add.pte with a record consistent with add.pte:
   op_types, module, module_class, stack_trace equal to what this script derives from its JSON.
   Without --etrecord no ETRecord field appears.
4. QNN: a record whose edge-graph node names are HTP node names of the fake-qnn-backend
   stories260k dump: the note says how many HTP node rows matched by name (counted here from the
   dump's bytes and the suffix list of ../shared/docs/qnn-profiling.md 4.1).
5. `etprof modules` on the 10-run stories260k dump with a record whose nodes carry module stacks
   this script assigns: per module the HTP cycles and host time expected from the raw events
   (each event's own value from `etprof events`, grouped by the paths written here), the
   DELEGATE_CALL's time once (the domain total is Method::execute), "(no module)", --module,
   and exit 2 without --etrecord.

usage: test_etrecord.py ETPROF DATA_DIR
"""
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import zipfile

etprof, data = sys.argv[1], sys.argv[2]
fails = 0


def check(cond, what):
    global fails
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        fails += 1


def run(*args):
    p = subprocess.run([etprof, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def info_json(path):
    rc, out, err = run("-f", "json", "info", path)
    if rc != 0:
        print(err)
        return None
    return json.loads(out)


# ---- 1. the corpus record ----
corpus = os.path.join(data, "upstream", "etrecord.bin")
zf = zipfile.ZipFile(corpus)
names = [i.filename for i in zf.infolist()]
d = info_json(corpus)
check(d is not None and d["kind"] == "etrecord", "info sniffs etrecord.bin as an ETRecord")
if d:
    check([e["name"] for e in d["entries"]] == names, "entries in central-directory order")
    check([e["size_bytes"] for e in d["entries"]] == [i.file_size for i in zf.infolist()],
          "entry sizes")
    check(all(e["compression"] == "stored" for e in d["entries"]), "every entry STORED")
    pickles = [n for n in names if n.endswith("_state_dict")]
    check(d["skipped"] == pickles, "the state-dict pickles are reported skipped: %s" % d["skipped"])
    edge = json.loads(zf.read("edge_dialect_exported_program"))
    node = edge["graph_module"]["graph"]["nodes"][0]
    name = node["outputs"][0]["as_tensor"]["name"]
    op = node["target"][len("executorch.exir.dialects.edge.ops."):]
    progs = {p["entry"]: p for p in d["programs"]}
    check(set(progs) == {"edge_dialect_exported_program", "aten_dialect_output/forward"},
          "two programs: the old edge name and the old aten_dialect_output/forward")
    e = progs["edge_dialect_exported_program"]
    check(e["method"] == "forward" and e["nodes"] == len(edge["graph_module"]["graph"]["nodes"]),
          "edge program: method forward, node count")
    n = e["node_list"][0]
    check(name == "aten_mul_tensor" and n["name"] == name, "node name aten_mul_tensor")
    check(op == "aten.mul.Tensor" and n["op"] == op, "op aten.mul.Tensor")
    check(n["debug_handle"] == int(node["metadata"]["debug_handle"]) == 2, "debug handle 2")
    check(n["stack_trace"] == node["metadata"]["stack_trace"], "stack trace text")
    check("line 18" in n["stack_trace"] and "return input * other" in n["stack_trace"],
          "the stack trace names model.py line 18")
    check(n["source_fn_stack"] == node["metadata"]["source_fn_stack"], "source_fn_stack")
    meta = edge["graph_module"]["graph"]["tensor_values"][name]["meta"]
    check(n["dtype"] == meta["dtype"] and n["sizes"] == [s["as_int"] for s in meta["sizes"]],
          "output tensor meta: dtype %s sizes %s" % (n["dtype"], n["sizes"]))
    aten = json.loads(zf.read("aten_dialect_output/forward"))
    an = progs["aten_dialect_output/forward"]["node_list"][0]
    check(an["op"] == aten["graph_module"]["graph"]["nodes"][0]["target"][len("torch.ops."):],
          "aten program op (torch.ops. prefix stripped): %s" % an["op"])
rc, out, err = run("info", corpus)
check(rc == 0 and "ETRecord" in out and "edge_dialect_exported_program" in out,
      "info table on the corpus record")


# ---- 2. crafted records ----
def prog_json(nodes, tensors=None):
    """A torch.export serde JSON with the given nodes (name, target, metadata)."""
    out = []
    for nm, target, md in nodes:
        out.append({"target": target, "inputs": [],
                    "outputs": [{"as_none": None, "as_tensor": {"name": nm}}], "metadata": md})
    tv = {nm: {"meta": {"dtype": 7, "sizes": [{"as_int": 4}, {"as_expr": None, "as_int": 8}]}}
          for nm, _, _ in nodes}
    return json.dumps({"graph_module": {"graph": {"inputs": [], "outputs": [], "nodes": out,
                                                   "tensor_values": tv}},
                       "schema_version": {"major": 3, "minor": 0}}).encode()


EDGE = "executorch.exir.dialects.edge.ops."
TRACE = ('  File "/home/u/model.py", line 40, in forward\n    x = self.block(x)\n'
         '  File "/home/u/blocks.py", line 12, in forward\n    return a + b\n')
# an fqn with commas and brackets inside: split with bracket awareness
NN = ("L__self__,,__main__.Net;L__self___block,block,blocks.Block;"
      "L__self___block_layers_0,block.layers[0],torch.nn.modules.container.ModuleDict[a,b]")


def write_zip(path, entries, comp=zipfile.ZIP_STORED, zip64=False):
    with zipfile.ZipFile(path, "w", compression=comp) as z:
        for n, b in entries:
            if zip64:
                zi = zipfile.ZipInfo(n)
                zi.compress_type = comp
                with z.open(zi, "w", force_zip64=True) as f:
                    f.write(b)
            else:
                z.writestr(zipfile.ZipInfo(n) if comp == zipfile.ZIP_STORED else n, b)


def patch_sizes(raw, name, csize=None, usize=None):
    """Rewrites an entry's sizes in its local header and its central-directory entry."""
    b, n = bytearray(raw), name.encode()
    for sig, noff, coff, uoff, base in ((b"PK\x03\x04", 26, 18, 22, 30),
                                        (b"PK\x01\x02", 28, 20, 24, 46)):
        i = 0
        while (i := b.find(sig, i)) >= 0:
            ln = struct.unpack_from("<H", b, i + noff)[0]
            if b[i + base:i + base + ln] == n:
                if csize is not None:
                    struct.pack_into("<I", b, i + coff, csize)
                if usize is not None:
                    struct.pack_into("<I", b, i + uoff, usize)
            i += 4
    return bytes(b)


add_nodes = [("aten_add_tensor", EDGE + "aten.add.Tensor",
              {"debug_handle": "1", "stack_trace": TRACE, "nn_module_stack": NN,
               "source_fn_stack": "add,operator.add"})]
new_layout = [
    ("ETRECORD_V0", b""),
    ("edge_dialect_exported_program/forward", prog_json(add_nodes)),
    ("edge_dialect_exported_program/forward_state_dict", b"PK-not-read"),
    ("edge_dialect_exported_program/forward_constants", b"PK-not-read"),
    ("edge_dialect_exported_program/forward_example_inputs", b"PK-not-read"),
    ("edge_dialect_exported_program/other", prog_json([("aten_sub_tensor", EDGE + "aten.sub.Tensor",
                                                        {"debug_handle": "5"})])),
    ("exported_program", prog_json([("add", "torch.ops.aten.add.Tensor", {})])),
    ("mymodule/forward", prog_json([("aten_add_tensor", EDGE + "aten.add.Tensor", {})])),
    ("debug_handle_map", json.dumps({"forward": {"0": 1}, "other": {"0": [5]}}).encode()),
    ("delegate_map", b"{}"),
    ("instruction_id_to_num_outs_map", b'{"forward": {}}'),
    ("export_graph_id", b"140000000"),
    ("reference_outputs", b"PK-not-read"),
]

with tempfile.TemporaryDirectory() as tmp:
    def p(n):
        return os.path.join(tmp, n)

    for label, comp, z64 in (("stored", zipfile.ZIP_STORED, False),
                             ("deflate", zipfile.ZIP_DEFLATED, False),
                             ("zip64", zipfile.ZIP_STORED, True),
                             ("zip64+deflate", zipfile.ZIP_DEFLATED, True)):
        f = p(label + ".etrecord")
        write_zip(f, new_layout, comp, z64)
        zi = {i.filename: i for i in zipfile.ZipFile(f).infolist()}
        d = info_json(f)
        check(d is not None, "%s: new layout opens" % label)
        if not d:
            continue
        check([e["name"] for e in d["entries"]] == [n for n, _ in new_layout],
              "%s: every entry listed" % label)
        check(all(e["compression"] == ("deflate" if comp == zipfile.ZIP_DEFLATED else "stored")
                  for e in d["entries"] if e["size_bytes"]), "%s: compression named" % label)
        check(all(e["compressed_bytes"] == zi[e["name"]].compress_size for e in d["entries"]),
              "%s: compressed sizes" % label)
        kinds = {e["name"]: e["kind"] for e in d["entries"]}
        check(kinds["mymodule/forward"] == "graph_map" and kinds["exported_program"] ==
              "aten_program" and kinds["reference_outputs"] == "pickle",
              "%s: graph_map extra, aten program, pickles classified" % label)
        check(sorted(d["skipped"]) == sorted(n for n, _ in new_layout if "not-read" in repr(_) or
                                             n == "export_graph_id"),
              "%s: pickles and export_graph_id skipped, never read: %s" % (label, d["skipped"]))
        pm = {x["entry"]: x for x in d["programs"]}
        check(pm["edge_dialect_exported_program/other"]["method"] == "other" and
              pm["edge_dialect_exported_program/other"]["node_list"][0]["debug_handle"] == 5,
              "%s: second method's edge program" % label)
        nd = pm["edge_dialect_exported_program/forward"]["node_list"][0]
        check([m["fqn"] for m in nd["nn_module_stack"]] == ["", "block", "block.layers[0]"] and
              nd["nn_module_stack"][2]["type"] == "torch.nn.modules.container.ModuleDict[a,b]",
              "%s: nn_module_stack split with bracket awareness" % label)
        check(nd["sizes"] == [4, 8] and nd["dtype"] == 7, "%s: tensor meta" % label)
        check(sorted(d["map_methods"]) == ["forward", "other"], "%s: map methods" % label)

    # the old layout without _constants loads (what the current Inspector cannot do)
    old = p("old.etrecord")
    write_zip(old, [("ETRECORD_V0", b""), ("edge_dialect_exported_program", prog_json(add_nodes)),
                    ("edge_dialect_exported_program_state_dict", b"x"),
                    ("debug_handle_map", b'{"forward": {"0": 1}}'), ("delegate_map", b"{}")])
    d = info_json(old)
    check(d is not None and d["programs"][0]["method"] == "forward", "old layout opens")

    # broken records: exact one-line errors (written out by hand from docs/formats.md)
    good = open(p("stored.etrecord"), "rb").read()
    cases = []

    def case(fname, content, code, msg):
        with open(p(fname), "wb") as fh:
            fh.write(content)
        cases.append((fname, code, msg))

    write_zip(p("nomarker.etrecord"), [("debug_handle_map", b"{}")])
    cases.append(("nomarker.etrecord", 1,
                  "not an ETRecord: no ETRECORD_V0 entry (a ZIP of 1 entries)"))
    write_zip(p("badjson.etrecord"), [("ETRECORD_V0", b""), ("debug_handle_map",
                                                               b'{"forward": {"0": 1}')])
    cases.append(("badjson.etrecord", 1, "entry debug_handle_map: malformed JSON at line 1, "
                  "column 20 (byte 20 of the entry): '}' expected near end of file"))
    write_zip(p("badhandle.etrecord"), [("ETRECORD_V0", b""), ("debug_handle_map",
                                                                 b'{"forward": {"3": "x"}}')])
    cases.append(("badhandle.etrecord", 1, "entry debug_handle_map: forward.3: expected a debug "
                  "handle (an integer) or a list of them, got a string"))
    write_zip(p("badnode.etrecord"), [("ETRECORD_V0", b""), (
        "edge_dialect_exported_program/forward",
        prog_json([("a", EDGE + "aten.add.Tensor", {"debug_handle": "two"})]))])
    cases.append(("badnode.etrecord", 1, "entry edge_dialect_exported_program/forward: "
                  "graph_module.graph.nodes[0].metadata.debug_handle: expected a decimal "
                  "integer, got a string \"two\""))
    write_zip(p("deep.etrecord"), [("ETRECORD_V0", b""), ("delegate_map", b"[" * 200 + b"]" * 200)])
    cases.append(("deep.etrecord", 1, "entry delegate_map: JSON nested deeper than 128 levels at "
                  "byte 128 of the entry"))
    case("bomb.etrecord", patch_sizes(good, "debug_handle_map", usize=0xF0000000), 1,
         "entry debug_handle_map: claims 4026531840 bytes uncompressed, over the limit of "
         "1073741824 bytes for a JSON entry (a zip bomb or not an ETRecord)")
    case("past_end.etrecord", patch_sizes(good, "debug_handle_map", csize=0x100000,
                                          usize=0x100000), 1,
         "damaged ZIP archive: an entry's data runs past the end of the file or into the "
         "central directory (the sizes or offsets in the central directory are wrong)")
    case("notzip.etrecord", b"PK\x03\x04" + b"not a zip" * 10, 1,
         "not an ETRecord: not a ZIP archive (no end of central directory record)")
    for fname, code, msg in cases:
        rc, out, err = run("info", p(fname))
        want = "etprof: %s: %s" % (p(fname), msg)
        check(rc == code and out == "" and err.rstrip("\n") == want and err.count("\n") == 1,
              "%s: exit %d and exactly: %s%s" % (fname, code, msg,
                                                 "" if err.rstrip("\n") == want else
                                                 "\n     got (exit %d): %s" % (rc, err)))
    # the same errors from --etrecord on ops
    dump = os.path.join(data, "real", "add_pte_1x.etdp")
    pte = os.path.join(data, "upstream", "add.pte")
    rc, out, err = run("ops", dump, "--pte", pte, "--etrecord", p("bomb.etrecord"))
    check(rc == 1 and out == "" and "claims 4026531840 bytes" in err, "ops --etrecord: bomb rejected")
    rc, out, err = run("ops", dump, "--pte", pte, "--etrecord", p("missing.etrecord"))
    check(rc == 3 and err.startswith("etprof: %s: cannot open: " % p("missing.etrecord")),
          "ops --etrecord of a missing file: exit 3")

    # ---- 3. ops --etrecord on add.pte's dump ----
    rc, out, err = run("-f", "json", "ops", dump, "--pte", pte, "--etrecord", old)
    check(rc == 0, "ops --etrecord runs: %s" % err.strip())
    if rc == 0:
        rows = json.loads(out)["rows"]
        k = [r for r in rows if r["instruction_id"] == 0 and r["kind"] == "kernel"]
        check(len(k) == 1, "the add kernel row")
        node = json.loads(prog_json(add_nodes))["graph_module"]["graph"]["nodes"][0]
        frames = re.findall(r'File "([^"]+)", line (\d+)', node["metadata"]["stack_trace"])
        innermost = "%s:%s" % frames[-1]
        last_mod = node["metadata"]["nn_module_stack"].split(";")[-1]
        # the innermost entry: key, then fqn up to the last comma outside brackets, then type
        fqn, cls = "block.layers[0]", "torch.nn.modules.container.ModuleDict[a,b]"
        check(last_mod == "L__self___block_layers_0," + fqn + "," + cls, "test's own split")
        if k:
            r = k[0]
            check(r["op_types"] == node["target"][len(EDGE):], "op_types %s" % r["op_types"])
            check(r["module"] == fqn and r["module_class"] == cls,
                  "module %s (%s)" % (r["module"], r["module_class"]))
            check(r["stack_trace"] == innermost == "/home/u/blocks.py:12",
                  "stack_trace %s (innermost frame)" % r["stack_trace"])
            check(r["stack_trace_full"] == TRACE, "stack_trace_full is the whole trace")
            check(r["debug_handles"] == "1", "debug_handles")
        fw = [r for r in rows if r["kind"] == "framework"]
        check(fw and all(r["op_types"] is None for r in fw), "framework rows are not joined")
        notes = json.loads(out)["notes"]
        check(any("1 of 1 instruction rows joined" in n for n in notes), "join note")
        check(not any("from another program" in n for n in notes),
              "a record that joins is not called one of another program")
    rc, out, err = run("ops", dump, "--pte", pte, "--etrecord", old)
    check(rc == 0 and "aten.add.Tensor" in out and "/home/u/blocks.py:12" in out,
          "ops table shows op types and the source line")
    rc, out, err = run("-f", "json", "tree", dump, "--pte", pte, "--etrecord", old)
    check(rc == 0, "tree --etrecord runs: %s" % err.strip())
    if rc == 0:
        def nodes(n):
            yield n
            for ch in n["children"]:
                yield from nodes(ch)
        allnodes = [x for m in json.loads(out)["methods"] for r in m["roots"] for x in nodes(r)]
        kern = [x for x in allnodes if x["kind"] == "kernel"]
        check(len(kern) == 1 and kern[0]["op_types"] == "aten.add.Tensor" and
              kern[0]["module"] == "block.layers[0]" and
              kern[0]["stack_trace"] == "/home/u/blocks.py:12" and
              kern[0]["stack_trace_full"] == TRACE, "tree JSON: the kernel node's ETRecord fields")
        check(all(x["op_types"] is None for x in allnodes if x["kind"] == "framework"),
              "tree JSON: framework node not joined")
    # without --etrecord: no ETRecord field, and exactly one note saying what a record would add
    # and how to produce one (issue 13.1: "say what it would add")
    for cmd in ("ops", "tree", "summary"):
        rc, out, err = run("-f", "json", cmd, dump, "--pte", pte)
        notes = json.loads(out)["notes"] if rc == 0 else []
        miss = [n for n in notes if n.startswith("no --etrecord: ")]
        # summary's methods[].op_types is the operators by type (issue 14.1), not a record field
        body = json.dumps([m.get("top_ops") for m in json.loads(out)["methods"]]) \
            if rc == 0 and cmd == "summary" else out
        check(rc == 0 and "op_types" not in body and "stack_trace" not in out and
              "module_class" not in out and len(miss) == 1 and
              "generate_etrecord=True" in miss[0] and "nn.Module" in miss[0],
              "%s without --etrecord: no ETRecord field, one note naming generate_etrecord" % cmd)
        rc, out, err = run(cmd, dump, "--pte", pte)
        check(rc == 0 and out.count("no --etrecord: ") == 1, "%s table: the note once" % cmd)
        rc, out, err = run("-f", "json", cmd, dump, "--pte", pte, "--etrecord", old)
        check(rc == 0 and "no --etrecord" not in out, "%s with --etrecord: no such note" % cmd)

    # ---- 4. QNN: join HTP node names to edge-program nodes ----
    qdump = os.path.join(data, "fake-qnn-backend", "stories260k_qnn_kv_forward_1x.etdp")
    qpte = os.path.join(data, "upstream", "stories260k_hybrid_llama_qnn.pte")
    raw = open(qdump, "rb").read()
    strings = set(re.findall(rb"(?:[\x21-\x7e][\x20-\x7e]*?)?OpId_\d+ \(cycles\)", raw))
    qnames = sorted(s.decode().split(":OpId_")[0] for s in strings if b":OpId_" in s)
    plain = [n for n in qnames if not re.search(r"_h_\d+$", n)][:40]
    edge_names = plain + ["aten__softmax_default_1"]
    suffixes = ["_sha_concat", "_alpha", "_beta", "_cast", "_convert", "_concat", "_value_tile",
                "_value_reshape", "_target_index_reshape", "_shape", "_updates_value",
                "_pre_reshape", "_post_reshape", "_identity"]

    def matches(n):
        for _ in range(8):
            if n in edge_names:
                return True
            m = re.match(r"(.*)(_indices_tile_|_h_|_tile_|_reshape_)\d+$", n)
            s = next((x for x in suffixes if n.endswith(x) and len(n) > len(x)), None)
            if s:
                n = n[:-len(s)]
            elif m:
                n = m.group(1)
            else:
                return False
        return False

    want = sum(matches(s.decode().split(":OpId_")[0]) for s in strings if b":OpId_" in s)
    qrec = p("qnn.etrecord")
    write_zip(qrec, [("ETRECORD_V0", b""),
                     ("edge_dialect_exported_program/kv_forward",
                      prog_json([(n, EDGE + "aten.x.default", {"debug_handle": str(i + 1)})
                                 for i, n in enumerate(edge_names)])),
                     ("debug_handle_map", b'{"kv_forward": {}}'),
                     ("delegate_map", b'{"kv_forward": {"0": {"name": "QnnBackend", '
                                      b'"delegate_map": {}}}}')], zipfile.ZIP_DEFLATED)
    rc, out, err = run("-f", "json", "ops", qdump, "--pte", qpte, "--method", "kv_forward",
                       "--etrecord", qrec, "--kind", "htp_node")
    check(rc == 0, "QNN ops --etrecord runs: %s" % err.strip())
    if rc == 0:
        notes = json.loads(out)["notes"]
        note = [n for n in notes if n.startswith("QNN: ")]
        print("     expected %d of %d HTP node rows matched" % (want, len(strings)))
        check(len(note) == 1 and note[0].startswith("QNN: %d of %d HTP node rows matched" %
                                                    (want, len(strings))),
              "QNN note: %s" % (note[0] if note else None))
        rows = json.loads(out)["rows"]
        sm = [r for r in rows if r["name"].startswith("aten__softmax_default_1_h_")]
        check(len(sm) == 8 and all(r["op_types"] == "aten.x.default" and r["debug_handles"] ==
                                   str(len(edge_names)) for r in sm),
              "the 8 _h_<k> softmax heads join to aten__softmax_default_1")

    # ---- 5. etprof modules on the QNN dump: the module tree written here, expected sums from
    # the raw events (etprof events: each event's own value, no aggregation) ----
    def stack_of(i):
        """the nn_module_stack this test gives edge node i (None: no stack)"""
        if i % 5 == 4:
            return None
        layer = "layers.%d" % (i % 2)
        st = [("L__self___layers_%d" % (i % 2), layer, "llama.TransformerBlock")]
        if i % 3 == 0:
            st.append(("L__self___layers_%d_attention" % (i % 2), layer + ".attention",
                       "llama.Attention"))
        return st

    def nn_text(st):
        return ";".join("%s,%s,%s" % e for e in st)

    nodes_md = []
    for i, n in enumerate(edge_names):
        md = {"debug_handle": str(i + 1)}
        if stack_of(i):
            md["nn_module_stack"] = nn_text(stack_of(i))
        nodes_md.append((n, EDGE + "aten.x.default", md))
    # the DELEGATE_CALL (instruction 0) maps to two nodes: one of layers.0, one of
    # layers.0.attention: their common module is layers.0
    h0 = next(i + 1 for i in range(len(edge_names)) if stack_of(i) and len(stack_of(i)) == 1
              and stack_of(i)[0][1] == "layers.0")
    h1 = next(i + 1 for i in range(len(edge_names)) if stack_of(i) and len(stack_of(i)) == 2
              and stack_of(i)[0][1] == "layers.0")
    mrec = p("modules.etrecord")
    write_zip(mrec, [("ETRECORD_V0", b""),
                     ("edge_dialect_exported_program/kv_forward", prog_json(nodes_md)),
                     ("debug_handle_map", json.dumps({"kv_forward": {"0": [h0, h1]}}).encode()),
                     ("delegate_map", b'{"kv_forward": {"0": {"name": "QnnBackend", '
                                      b'"delegate_map": {}}}}')], zipfile.ZIP_DEFLATED)

    def node_index(qname):
        """the edge node a QNN name joins to (the test's own suffix rule), or None"""
        n = qname.split(":OpId_")[0]
        for _ in range(8):
            if n in edge_names:
                return edge_names.index(n)
            m = re.match(r"(.*)(_indices_tile_|_h_|_tile_|_reshape_)\d+$", n)
            sfx = next((x for x in suffixes if n.endswith(x) and len(n) > len(x)), None)
            if sfx:
                n = n[:-len(sfx)]
            elif m:
                n = m.group(1)
            else:
                return None
        return None

    mdump = os.path.join(data, "fake-qnn-backend", "stories260k_qnn_kv_forward_10x.etdp")
    rc, out, err = run("-f", "jsonl", "events", mdump)
    evs = [json.loads(x) for x in out.splitlines()]
    runs = {e["block"] for e in evs if e["name"] == "Method::execute"}
    evs = [e for e in evs if e["block"] in runs]
    incl = {}       # (domain, module path) -> expected inclusive
    cnt = {}        # (domain, module path) -> rows (distinct HTP node names / host rows)
    nomod = {"htp_cycles": 0.0, "time": 0.0}
    node_names = set()
    htp_claimed = 0.0

    def add(dom, st, v):
        for k in range(len(st)):
            incl[(dom, st[k][1])] = incl.get((dom, st[k][1]), 0.0) + v

    for e in evs:
        nm = e["delegate_debug_id_str"] or ""
        if e["unit"] == "cycles" and re.search(r"OpId_\d+ \(cycles\)$", nm):
            i = node_index(nm[:-len(" (cycles)")])
            node_names.add(nm)
            if i is not None and stack_of(i):
                add("htp_cycles", stack_of(i), e["value"])
                htp_claimed += e["value"]
            else:
                nomod["htp_cycles"] += e["value"]
    accel = sum(e["value"] for e in evs if e["delegate_debug_id_str"] ==
                "Accelerator (execute) time (cycles)")
    node_sum = sum(e["value"] for e in evs if e["unit"] == "cycles" and
                   re.search(r"OpId_\d+ \(cycles\)$", e["delegate_debug_id_str"] or ""))
    # the cycles parent's own part (parent - its nodes) is inside the DELEGATE_CALL: layers.0
    add("htp_cycles", [("", "layers.0", "")], accel - node_sum)
    dcall = sum(e["value"] for e in evs if e["kind"] == "delegate_call")
    mexec = sum(e["value"] for e in evs if e["name"] == "Method::execute")
    add("time", [("", "layers.0", "")], dcall)
    nomod["time"] = mexec - dcall
    rc, out, err = run("-f", "json", "modules", mdump, "--pte", qpte, "--method", "kv_forward",
                       "--etrecord", mrec, "--time-unit", "ns")
    check(rc == 0, "modules on the QNN dump runs: %s" % err.strip())
    if rc == 0:
        doc = json.loads(out)
        doms = {d["domain"]: d for d in doc["domains"]}
        check(sorted(doms) == ["htp_cycles", "time"] and doms["htp_cycles"]["unit"] == "cycles"
              and doms["time"]["unit"] == "ns", "two domains: time (ns) and htp_cycles (cycles)")
        got = {}

        def walk(dom, ms, depth, parent):
            for mm in ms:
                got[(dom, mm["module"])] = (mm, depth, parent)
                walk(dom, mm["children"], depth + 1, mm["module"])
        for dn, dd in doms.items():
            walk(dn, dd["modules"], 0, None)
        for key, v in sorted(incl.items()):
            g = got.get(key)
            check(g is not None and abs(g[0]["inclusive"] - v) <= 1e-6 * max(1.0, abs(v)),
                  "%s %s inclusive %.1f (expected %.1f)" % (key[0], key[1],
                                                           g[0]["inclusive"] if g else -1, v))
        for dn in ("htp_cycles", "time"):
            g = got.get((dn, "(no module)"))
            check(g is not None and abs(g[0]["inclusive"] - nomod[dn]) <= 1e-6 * max(1, nomod[dn])
                  and g[0]["no_module"], "%s (no module) %.1f (expected %.1f)" %
                  (dn, g[0]["inclusive"] if g else -1, nomod[dn]))
            tot = sum(m["inclusive"] for m in doms[dn]["modules"])
            check(abs(tot - doms[dn]["total"]) <= 1e-6 * doms[dn]["total"],
                  "%s: top-level rows add up to the domain total" % dn)
        check(abs(doms["htp_cycles"]["total"] - accel) <= 1e-6 * accel,
              "htp_cycles total = Accelerator (execute) time (cycles) over the runs: %.0f" % accel)
        check(abs(doms["time"]["total"] - mexec) <= 1e-6 * mexec,
              "time total = Method::execute over the runs (no DELEGATE_CALL counted twice): %.0f"
              % mexec)
        g = got.get(("htp_cycles", "layers.0.attention"))
        check(g is not None and g[1] == 1 and g[2] == "layers.0",
              "layers.0.attention is a child of layers.0")
        check(abs(got[("htp_cycles", "layers.0")][0]["share"] -
                  100 * incl[("htp_cycles", "layers.0")] / accel) < 1e-6, "share of the domain")
        qn = [n for n in doc["notes"] if n.startswith("QNN: ")]
        check(doc["joins"]["htp_rows"] == len(node_names) and
              doc["joins"]["htp_rows_matched"] == want and len(qn) == 1 and
              qn[0].startswith("QNN: %d of %d HTP node rows matched" % (want, len(node_names))),
              "modules says how many HTP nodes matched by name: %s" % (qn[0] if qn else None))
    rc, out, err = run("-f", "csv", "modules", mdump, "--pte", qpte, "--method", "kv_forward",
                       "--etrecord", mrec, "--module", "layers.0.attention")
    rows = out.splitlines()
    # layers.0.attention has HTP nodes only (the DELEGATE_CALL's host time is layers.0's)
    cells = rows[1].split(",") if len(rows) == 2 else []
    check(rc == 0 and rows[0].startswith("method,domain,depth,module,class,inclusive") and
          cells[1:4] == ["htp_cycles", "0", "layers.0.attention"] and
          abs(float(cells[5]) - incl[("htp_cycles", "layers.0.attention")]) < 0.5,
          "--module keeps that module only, as a top-level row: %s" % rows[1:])
    rc, out, err = run("modules", mdump, "--pte", qpte, "--etrecord", mrec, "--module", "nope")
    check(rc == 2 and out == "" and "--module nope: no module" in err, "--module of no module: exit 2")
    rc, out, err = run("modules", mdump, "--pte", qpte)
    check(rc == 2 and out == "" and "generate_etrecord=True" in err and err.count("\n") == 1,
          "modules without --etrecord: exit 2 naming generate_etrecord")

    # ---- 6. --etrecord on summary, explain, report, trace and diff: the same join (the
    # DELEGATE_CALL's two nodes share layers.0; HTP nodes carry the module this script gave) ----
    common = ("--pte", qpte, "--method", "kv_forward", "--etrecord", mrec)
    rc, out, err = run("-f", "json", "summary", mdump, *common)
    check(rc == 0, "summary --etrecord runs: %s" % err.strip())
    if rc == 0:
        mm = json.loads(out)["methods"][0]
        top = mm["top_ops"]
        check(top and top[0]["kind"] == "delegate_call" and top[0]["module"] == "layers.0" and
              top[0]["module_class"] == "llama.TransformerBlock" and
              top[0]["debug_handles"] == "%d,%d" % (h0, h1),
              "summary JSON: the DELEGATE_CALL's module is the common module of its nodes")
        ht = [x for x in mm["htp_nodes"]["top"] if node_index(x["name"][:-len(" (cycles)")])
              is not None]
        check(all(x["module"] == (stack_of(node_index(x["name"][:-9]))[-1][1]
                                  if stack_of(node_index(x["name"][:-9])) else None) for x in ht),
              "summary JSON: HTP nodes' modules as written (%d joined among the top)" % len(ht))
    rc, out, err = run("summary", mdump, *common)
    check(rc == 0 and re.search(r"DELEGATE_CALL \[QnnBackend\].*layers\.0", out) is not None,
          "summary table: module column")
    rc, out, err = run("explain", mdump, *common)
    check(rc == 0 and "module layers.0 (llama.TransformerBlock)" in out.replace("\n  ", " "),
          "explain names the top operator's module")
    rc, out, err = run("report", mdump, *common, "-o", p("r.html"))
    html = open(p("r.html")).read() if rc == 0 else ""
    check(rc == 0 and "<h2>Time per nn.Module</h2>" in html and
          "layers.0.attention" in html and "<th>module</th><th>source</th>" in html,
          "report: module/source columns and the modules section")
    rc, out, err = run("trace", mdump, *common, "-o", p("t.json"))
    if rc == 0:
        tev = json.load(open(p("t.json")))["traceEvents"]
        dc = [e for e in tev if e.get("name") == "DELEGATE_CALL"]
        nodes = [e for e in tev if e.get("args", {}).get("qnn_class") == "node"]
        good = all(e["args"].get("module") == (stack_of(node_index(e["name"]))[-1][1]
                                               if node_index(e["name"]) is not None and
                                               stack_of(node_index(e["name"])) else None)
                   for e in nodes)
        check(dc and all(e["args"]["module"] == "layers.0" for e in dc) and good and
              sum("module" in e["args"] for e in nodes) > 0,
              "trace args: module of the DELEGATE_CALL and of each joined HTP node")
    else:
        check(False, "trace --etrecord runs: %s" % err.strip())
    d1 = os.path.join(data, "fake-qnn-backend", "stories260k_qnn_kv_forward_1x.etdp")
    rc, out, err = run("-f", "json", "diff", d1, mdump, *common)
    if rc == 0:
        ops = json.loads(out)["ops"]
        dc = [o for o in ops if o["kind"] == "delegate_call"]
        check(dc and dc[0]["module"] == "layers.0", "diff rows gain module")
    else:
        check(False, "diff --etrecord runs: %s" % err.strip())

sys.exit(1 if fails else 0)
