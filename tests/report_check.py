#!/usr/bin/env python3
"""report_check.py - checks of `etprof report` (docs/report.md), python3 standard library only.

  report_check.py static REPORT.html...          self-containment, well-formed markup, data block
  report_check.py make-qhas --etprof B --dump D --pte P --out Q.json
                                                 a QHAS file whose QNN ops are the dump's HTP nodes
                                                 (two left out, one extra), for the join
  report_check.py browser --etprof B --case C --data DIR [--shared DIR] --tmp DIR
                                                 generates a report, loads it in headless Chromium:
                                                 key numbers in the DOM (computed here from the raw
                                                 events, not from etprof's analyses), no console
                                                 errors, table sorting works, screenshot not blank
Exit 0 = pass, 1 = fail, 77 = skipped (no chromium, or the shared corpus is absent).
"""
import argparse
import html.parser
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

SKIP = 77
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}
# SVG elements may be self-closed (<rect .../>); the parser reports them as startendtag.


class Fail(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Fail(msg)


# ------------------------------------------------------------------------------------------------
# static checks


class Markup(html.parser.HTMLParser):
    """Balanced tags, unique ids, the raw text of script elements, every URL-bearing attribute."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.ids, self.scripts = [], [], {}, []
        self.attrs_with_refs = []
        self.in_script = None
        self.count = {}

    def handle_starttag(self, tag, attrs):
        self.count[tag] = self.count.get(tag, 0) + 1
        a = dict(attrs)
        if "id" in a:
            if a["id"] in self.ids:
                self.errors.append("duplicate id %r" % a["id"])
            self.ids[a["id"]] = tag
        for k, v in attrs:
            if k in ("src", "href", "xlink:href", "action", "data", "poster", "srcset"):
                self.attrs_with_refs.append((tag, k, v))
        if tag in VOID:
            return
        self.stack.append((tag, self.getpos()))
        if tag == "script":
            self.in_script = (a.get("type"), a.get("id"), [])

    def handle_startendtag(self, tag, attrs):
        self.count[tag] = self.count.get(tag, 0) + 1
        for k, v in attrs:
            if k in ("src", "href", "xlink:href"):
                self.attrs_with_refs.append((tag, k, v))
        a = dict(attrs)
        if "id" in a:
            if a["id"] in self.ids:
                self.errors.append("duplicate id %r" % a["id"])
            self.ids[a["id"]] = tag

    def handle_endtag(self, tag):
        if tag in VOID:
            self.errors.append("end tag of void element </%s> at %s" % (tag, self.getpos()))
            return
        if not self.stack:
            self.errors.append("</%s> closes nothing at %s" % (tag, self.getpos()))
            return
        top, pos = self.stack.pop()
        if top != tag:
            self.errors.append("</%s> at %s closes <%s> opened at %s" % (tag, self.getpos(), top, pos))
        if tag == "script" and self.in_script:
            self.scripts.append((self.in_script[0], self.in_script[1], "".join(self.in_script[2])))
            self.in_script = None

    def handle_data(self, data):
        if self.in_script is not None:
            self.in_script[2].append(data)


def static_check(path):
    raw = open(path, "rb").read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise Fail("%s: not UTF-8: %s" % (path, e))
    check(text.startswith("<!DOCTYPE html>"), "%s: no doctype" % path)
    low = text.lower()
    for bad in ("http://", "https://", "//cdn", "@import", "url(", "<link", "<img", "<iframe",
                "<object", "<embed", "fetch(", "xmlhttprequest", "websocket", "src="):
        check(bad not in low, "%s: external reference or loader %r" % (path, bad))
    p = Markup()
    p.feed(text)
    p.close()
    check(not p.errors, "%s: markup: %s" % (path, "; ".join(p.errors[:5])))
    check(not p.stack, "%s: unclosed: %s" % (path, p.stack[:5]))
    outside = [r for r in p.attrs_with_refs if not (r[1] == "href" and r[2].startswith("#") and r[2][1:] in p.ids)]
    check(not outside, "%s: references outside the page or to no element: %s" % (path, outside[:5]))
    for sec in ("summary", "placement", "runs", "hierarchy", "top-ops", "cpu-fallback", "notes"):
        check(sec in p.ids, "%s: section #%s missing" % (path, sec))
    data = [s for s in p.scripts if s[0] == "application/json"]
    check(len(data) == 1, "%s: expected one JSON data block" % path)
    doc = json.loads(data[0][2])
    check(doc.get("schema_version") == 1, "%s: data block schema_version" % path)
    check(p.count.get("svg", 0) >= 1, "%s: no SVG chart" % path)
    return text, p, doc


# ------------------------------------------------------------------------------------------------
# independent numbers (from the raw events: end_time - start_time, no etprof analysis)


def percentile(sorted_v, q):
    """numpy.percentile, method 'linear'."""
    n = len(sorted_v)
    if n == 0:
        return float("nan")
    pos = (n - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, n - 1)
    return sorted_v[lo] + (sorted_v[hi] - sorted_v[lo]) * (pos - lo)


def raw_events(etprof, dump, pte):
    cmd = [etprof, "events", dump, "--format", "json"] + (["--pte", pte] if pte else [])
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE).stdout
    return json.loads(out)["events"]


def method_latencies_us(events):
    """Method::execute durations in us (ns ticks), one per block, in block order."""
    v = []
    for e in events:
        if e.get("type") == "profile" and e.get("name") == "Method::execute":
            v.append((e["block"], (e["end_time"] - e["start_time"]) / 1000.0))
    v.sort()
    return [d for _, d in v]


def fmt3(x):
    return "%.3f" % x


# ------------------------------------------------------------------------------------------------
# PNG (decode enough to judge a screenshot)


def read_png(path):
    data = open(path, "rb").read()
    check(data[:8] == b"\x89PNG\r\n\x1a\n", "%s: not a PNG" % path)
    pos, idat = 8, b""
    w = h = bpp = None
    while pos < len(data):
        ln, typ = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + ln]
        pos += 12 + ln
        if typ == b"IHDR":
            w, h, bd, ct, _, _, il = struct.unpack(">IIBBBBB", body)
            check(bd == 8 and il == 0 and ct in (2, 6), "%s: unsupported PNG layout" % path)
            bpp = 3 if ct == 2 else 4
        elif typ == b"IDAT":
            idat += body
        elif typ == b"IEND":
            break
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        f = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        if f == 1:
            for x in range(bpp, stride):
                line[x] = (line[x] + line[x - bpp]) & 255
        elif f == 2:
            for x in range(stride):
                line[x] = (line[x] + prev[x]) & 255
        elif f == 3:
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0
                line[x] = (line[x] + ((a + prev[x]) >> 1)) & 255
        elif f == 4:
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0
                b = prev[x]
                c = prev[x - bpp] if x >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def judge_screenshot(path, must_colors):
    """Not blank: many distinct colours, a good part of the page not background, and the chart
    colours present (so the SVG really rendered)."""
    w, h, bpp, rows = read_png(path)
    colors, nonwhite, total = {}, 0, 0
    for y in range(0, h, 2):
        r = rows[y]
        for x in range(0, w * bpp, bpp * 2):
            c = r[x:x + 3]
            colors[c] = colors.get(c, 0) + 1
            total += 1
            if c != b"\xff\xff\xff" and c != b"\xf4\xf6\xf8":
                nonwhite += 1
    check(len(colors) > 50, "%s: only %d distinct colours: blank?" % (path, len(colors)))
    check(nonwhite > total * 0.08, "%s: %.1f%% of the page is not background: blank?"
          % (path, 100.0 * nonwhite / total))
    for hexc in must_colors:
        c = bytes.fromhex(hexc.lstrip("#"))
        near = sum(n for k, n in colors.items() if all(abs(k[i] - c[i]) <= 3 for i in range(3)))
        check(near >= 20, "%s: chart colour %s not on screen (%d px)" % (path, hexc, near))
    return len(colors), 100.0 * nonwhite / total


# ------------------------------------------------------------------------------------------------
# headless Chromium


def chromium_bin():
    for n in ("chromium", "chromium-browser"):
        p = shutil.which(n)
        if p:
            return p
    return None


def chromium(args, tmp, timeout=180):
    profile = tempfile.mkdtemp(prefix="chromium-profile-", dir=tmp)
    cmd = [chromium_bin(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--no-first-run", "--disable-background-networking", "--disable-component-update",
           "--disable-sync", "--disable-extensions", "--disable-dev-shm-usage",
           "--user-data-dir=" + profile, "--enable-logging=stderr", "--v=0"] + args
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    shutil.rmtree(profile, ignore_errors=True)
    return r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace")


def console_problems(stderr):
    """Console messages (any level: the report logs nothing) and uncaught errors."""
    bad = []
    for line in stderr.splitlines():
        if ":CONSOLE" in line or "Uncaught" in line or "console error" in line.lower():
            bad.append(line.strip())
    return bad


class Dom(html.parser.HTMLParser):
    """Text content by element id, attributes of <html> and <body>, counts by tag and id prefix."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.open_ids = []  # (id, depth)
        self.depth = 0
        self.text = {}
        self.root_attrs = {}
        self.count = {}
        self.in_runs = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("html", "body"):
            self.root_attrs.update(a)
        self.count[tag] = self.count.get(tag, 0) + 1
        if tag in VOID:
            return
        self.depth += 1
        if "id" in a:
            self.open_ids.append((a["id"], self.depth))
            self.text.setdefault(a["id"], "")

    def handle_startendtag(self, tag, attrs):
        self.count[tag] = self.count.get(tag, 0) + 1

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        while self.open_ids and self.open_ids[-1][1] >= self.depth:
            self.open_ids.pop()
        self.depth -= 1

    def handle_data(self, data):
        for i, _ in self.open_ids:
            self.text[i] += data


def dom_of(text):
    d = Dom()
    d.feed(text)
    d.close()
    return d


def table_rows(text, table_id):
    """Rows of cells (text) of the table with this id."""
    m = re.search(r'<table[^>]*id="%s".*?</table>' % re.escape(table_id), text, re.S)
    check(m, "table #%s not in the DOM" % table_id)
    body = m.group(0).split("<tbody>", 1)[1]
    rows = []
    for tr in re.findall(r"<tr>(.*?)</tr>", body, re.S):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)
        rows.append([html_text(c) for c in cells])
    return rows


def html_text(frag):
    t = re.sub(r"<[^>]+>", "", frag)
    return html.unescape(t).strip()




SELFTEST = r"""<script>
(function(){
  var out = document.createElement('div'); out.id = 'selftest';
  try {
    var t = document.getElementById('top-ops-table');
    if (!t) throw new Error('no top-ops-table');
    var ths = t.tHead.rows[0].cells, col = -1;
    for (var i = 0; i < ths.length; i++) if (/^total/.test(ths[i].textContent)) col = i;
    if (col < 0) throw new Error('no total column');
    function vals(){ return Array.prototype.map.call(t.tBodies[0].rows, function(r){
      return parseFloat(r.cells[col].getAttribute('data-v')); }); }
    ths[col].click();
    var a = vals();
    for (var k = 1; k < a.length; k++) if (a[k] > a[k-1]) throw new Error('not descending');
    ths[col].click();
    var b = vals();
    for (var k = 1; k < b.length; k++) if (b[k] < b[k-1]) throw new Error('not ascending');
    if (ths[col].getAttribute('aria-sort') !== 'ascending') throw new Error('aria-sort');
    var name = 1; ths[name].click();
    out.textContent = 'ok ' + a.length;
  } catch (e) { out.textContent = 'fail ' + e.message; }
  document.body.appendChild(out);
})();
</script>"""

ERRHOOK = ("<script>window.addEventListener('error',function(e){document.documentElement."
           "setAttribute('data-js-error',String(e.message));});</script>")


def load_in_browser(report, tmp, name, must_colors):
    """Returns the DOM text; raises Fail on console errors, a failing self-test or a blank
    screenshot."""
    url = "file://" + os.path.abspath(report)
    rc, dom, err = chromium(["--dump-dom", url], tmp)
    check(rc == 0, "chromium --dump-dom exited %d: %s" % (rc, err[-2000:]))
    check("<html" in dom and "</html>" in dom, "chromium returned no DOM")
    bad = console_problems(err)
    check(not bad, "console output while loading the report:\n  " + "\n  ".join(bad[:10]))
    # the same page with an error hook and a sorting self-test appended
    text = open(report, encoding="utf-8").read()
    probe = os.path.join(tmp, name + "-selftest.html")
    with open(probe, "w", encoding="utf-8") as f:
        f.write(text.replace("<head>", "<head>" + ERRHOOK, 1).replace("</body>", SELFTEST + "</body>", 1))
    rc, pdom, err = chromium(["--dump-dom", "file://" + os.path.abspath(probe)], tmp)
    check(rc == 0, "chromium (self-test) exited %d" % rc)
    d = dom_of(pdom)
    check("data-js-error" not in d.root_attrs, "uncaught error: %s" % d.root_attrs.get("data-js-error"))
    st = d.text.get("selftest", "")
    check(st.startswith("ok"), "table sorting self-test: %r" % st)
    check(not console_problems(err), "console output in the self-test page: %s" % console_problems(err)[:5])
    # screenshot
    png = os.path.join(tmp, name + ".png")
    if os.path.exists(png):
        os.unlink(png)
    # the whole page (up to 10000 CSS px) at half scale: every chart is on it, and it decodes fast
    rc, _, err = chromium(["--hide-scrollbars", "--force-device-scale-factor=0.5",
                           "--window-size=1280,10000", "--screenshot=" + png, url], tmp)
    check(rc == 0 and os.path.exists(png), "chromium --screenshot failed (%d)" % rc)
    ncol, pctbg = judge_screenshot(png, must_colors)
    print("  screenshot %s: %d colours, %.0f%% not background" % (png, ncol, pctbg))
    return dom


# ------------------------------------------------------------------------------------------------
# QHAS fixture made from the dump's own HTP nodes


def llround(x):
    return int(math.floor(x + 0.5)) if x >= 0 else -int(math.floor(-x + 0.5))


def make_qhas(etprof, dump, pte, out):
    rows = json.loads(subprocess.run(
        [etprof, "ops", dump, "--pte", pte, "--kind", "htp_node", "--format", "json"],
        check=True, stdout=subprocess.PIPE).stdout)["rows"]
    named = []
    for r in rows:
        m = re.match(r"^(.*):OpId_(\d+) \(cycles\)$", r["name"]) or \
            re.match(r"^(Input|Output) OpId_(\d+) \(cycles\)$", r["name"])
        if m and r["p50"] is not None:
            named.append((m.group(1), int(m.group(2)), llround(r["p50"])))
    check(len(named) > 10, "too few named HTP nodes in %s" % dump)
    dropped = [named[5], named[7]]                       # ETDump-only nodes
    kept = [n for n in named if n not in dropped]
    extra = ("not_in_the_etdump_op", 999999, 1234)        # QNN-file-only op
    nodes, inst = [], []
    for i, (op, oid, cyc) in enumerate(kept + [extra]):
        hmx = "conv" in op or "matmul" in op
        io = op in ("Input", "Output")
        nodes.append({"qnn_op": op, "qnn_op_type": "Conv2d" if "conv" in op else
                      "MatMul" if "matmul" in op else op if io else "ElementWise",
                      "cycles": cyc, "num_htp_ops": 1, "num_dominant_path_cycles_htp_0": cyc // 2,
                      "dram_read": 4096 * (i % 7), "dram_write": 1024 * (i % 3),
                      "vtcm_read": 8192, "vtcm_write": 8192})
        inst.append({"op_id": "0x%08x%08x" % (0x1215, oid), "qnn_op": op, "htp_op": "q::Op%d" % i,
                     "qnn_op_type": nodes[-1]["qnn_op_type"], "num_dominant_path_cycles": cyc // 2,
                     "cycles": cyc, "tid": 256 if hmx else 512, "hmx": hmx, "hvx": not hmx and not io,
                     "dma": io, "dram_read": 4096 * (i % 7), "dram_write": 1024 * (i % 3),
                     "vtcm_read": 8192, "vtcm_write": 8192})
    total = sum(n["cycles"] for n in nodes)  # one HMX and one HVX thread share the work
    doc = {"header": {"artifact_type": "QHAS", "version": {"major": 1, "minor": 0, "patch": 0}},
           "model_id": "etprof-report-test",
           "data": {"htp_overall_summary": {"data": [{
               "htp": 0, "percent_utilization": 87.5, "percent_idle": 12.5, "time_us": 400,
               "graph_execute_us": 200, "timeline_cycles": total,
               "total_dram_read": 7340032, "total_dram_write": 1048576, "total_dram": 8388608,
               "total_vtcm_read": 2 ** 22, "total_vtcm_write": 2 ** 22, "total_vtcm": 2 ** 23,
               "peak_vtcm_alloc": 3145728,
               "htp_resources": {"data": [
                   {"type": "HMX", "tid": 256, "cycles_used": total // 3},
                   {"type": "HVX", "tid": 512, "cycles_used": total // 2}]}}]},
               "qnn_op_instances_nodes": {"data": nodes},
               "htp_op_instances": {"data": inst}}}
    with open(out, "w") as f:
        json.dump(doc, f)
    return {"kept": kept, "dropped": dropped, "extra": extra, "named": named}


# ------------------------------------------------------------------------------------------------
# cases


def run_report(etprof, args, out):
    if os.path.exists(out):
        os.unlink(out)
    r = subprocess.run([etprof, "report"] + args + ["-o", out], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    check(r.returncode == 0, "etprof report %s: exit %d: %s" % (" ".join(args), r.returncode,
                                                              r.stderr.decode()))
    return out


def check_latency(dom, etprof, dump, pte, mi=0):
    lat = sorted(method_latencies_us(raw_events(etprof, dump, pte)))
    d = dom_of(dom)
    runs = d.text.get("m%d-runs" % mi, "")
    check(re.match(r"^runs\s*%d(\D|$)" % len(lat), runs), "run count %d not in #m%d-runs: %r" % (len(lat), mi, runs))
    p50, p90 = fmt3(percentile(lat, 50)), fmt3(percentile(lat, 90))
    check(p50 in d.text.get("m%d-p50" % mi, ""), "p50 %s us not in #m%d-p50: %r" % (p50, mi, d.text.get("m%d-p50" % mi)))
    check(p90 in d.text.get("m%d-p90" % mi, ""), "p90 %s us not in #m%d-p90" % (p90, mi))
    check("us" in d.text.get("m%d-p50" % mi, ""), "p50 without its unit")
    print("  runs %d, p50 %s us, p90 %s us: in the DOM" % (len(lat), p50, p90))
    return d, lat


def case_ethosu(a):
    dump = os.path.join(a.data, "ethosu-partial-delegation/mobilenet_v2_ethosu_N_partial_1x.etdp")
    pte = os.path.join(a.data, "ethosu-partial-delegation/pte/mobilenet_v2_ethosu_N.pte")
    rep = run_report(a.etprof, [dump, "--pte", pte], os.path.join(a.tmp, "ethosu.html"))
    static_check(rep)
    dom = load_in_browser(rep, a.tmp, "ethosu", ["#6f9be8", "#f0a35a"])
    d, _ = check_latency(dom, a.etprof, dump, pte)
    check("forward" in d.text.get("m0-method", ""), "method name not in the DOM")
    # CPU fallback: operator -> distinct kernel instructions, from the raw events
    want = {}
    for e in raw_events(a.etprof, dump, pte):
        if e.get("kind") == "operator_call":
            want.setdefault(e["operator"], set()).add(e["instruction_id"])
    check(sum(len(v) for v in want.values()) == 42, "expected 42 CPU kernel instructions")
    got = {r[0]: int(r[1]) for r in table_rows(dom, "cpu-table-0")}
    check(got == {k: len(v) for k, v in want.items()},
          "CPU fallback table %r != events %r" % (got, {k: len(v) for k, v in want.items()}))
    check(set(got) == {"cortex_m::quantize_per_tensor.out", "aten::add.out",
                       "cortex_m::dequantize_per_tensor.out"}, "CPU fallback operator names")
    delegate_calls = sum(1 for e in raw_events(a.etprof, dump, pte) if e.get("name") == "DELEGATE_CALL")
    check(delegate_calls == 11, "expected 11 DELEGATE_CALLs")
    check("11 delegate partition" in d.text.get("placement", ""), "11 partitions not stated")
    check("EthosUBackend" in d.text.get("placement", ""), "backend not named in the placement")
    print("  CPU fallback %s: in the DOM" % sorted(got.items()))


def case_qnn(a):
    dump = os.path.join(a.data, "fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp")
    pte = os.path.join(a.data, "upstream/stories260k_hybrid_llama_qnn.pte")
    rep = run_report(a.etprof, [dump, "--pte", pte], os.path.join(a.tmp, "qnn.html"))
    static_check(rep)
    # 1,518 HTP nodes: the node strip (#c7d3e3) gives way to the operator-type bars (#7fa6ea)
    dom = load_in_browser(rep, a.tmp, "qnn", ["#6f9be8", "#7fa6ea"])
    d, lat = check_latency(dom, a.etprof, dump, pte)
    check("kv_forward" in d.text.get("m0-method", ""), "method name not in the DOM")
    # one point per run in the latency chart, the first one marked
    runs_svg = re.search(r'<section id="runs">.*?</section>', dom, re.S).group(0)
    check(runs_svg.count("<circle") == len(lat) == 10, "expected 10 run points")
    check("run 1: %s us" % fmt3(lat_first(a, dump, pte)) in html_text(runs_svg), "first run not annotated")
    qnn = d.text.get("qnn", "")
    for needle in ("thread-aggregate", "19.2 MHz", "inflate", "aten_* rows are HTP nodes"):
        check(needle in qnn, "QNN caveat %r missing" % needle)
    nodes = sum(1 for e in raw_events(a.etprof, dump, pte)
                if e["block"] == 1 and (e.get("delegate_debug_id_str") or "").endswith("(cycles)")
                and "OpId_" in (e.get("delegate_debug_id_str") or ""))
    check("%d HTP node row" % nodes in qnn, "HTP node count %d not stated" % nodes)
    check("No CPU fallback" in d.text.get("cpu-fallback", ""), "QNN dump: no CPU fallback expected")
    check(len(table_rows(dom, "htp-nodes")) == 200, "HTP node table not capped at 200")
    # operators by type: the first bar is the ATen op with the most cycles, summed here from the
    # raw node events (regex grouping, independent of etprof's grouping code)
    per_op = {}
    for e in raw_events(a.etprof, dump, pte):
        n = e.get("delegate_debug_id_str") or ""
        m = re.match(r"aten_(_*[a-z]+(?:_(?!default|tensor|scalar|int|dims?|h|\d)[a-z]+)*)", n)
        if m and n.endswith("(cycles)") and e.get("end_time") is not None:
            per_op[m.group(1)] = per_op.get(m.group(1), 0) + e["end_time"] - e["start_time"]
    ot = re.search(r'<section id="op-types">.*?</section>', dom, re.S)
    check(ot is not None, "operator-type section missing")
    if ot and per_op:
        top = max(per_op, key=per_op.get)
        first = re.search(r'text-anchor="end">([^<]+)</text>', ot.group(0))
        check(first and first.group(1) == top, "first type bar %r, raw events say %r" % (first and first.group(1), top))
        check("cycles grouped by ATen op" in qnn, "the QNN section does not point to the type chart")
    print("  %d HTP nodes, table capped at 200, caveats present" % nodes)


def lat_first(a, dump, pte):
    return method_latencies_us(raw_events(a.etprof, dump, pte))[0]


def case_qnn_join(a):
    dump = os.path.join(a.data, "fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp")
    pte = os.path.join(a.data, "upstream/stories260k_hybrid_llama_qnn.pte")
    qhas = os.path.join(a.tmp, "join_qhas.json")
    fx = make_qhas(a.etprof, dump, pte, qhas)
    rep = run_report(a.etprof, [dump, "--pte", pte, "--qhas", qhas], os.path.join(a.tmp, "qnn-join.html"))
    static_check(rep)
    dom = load_in_browser(rep, a.tmp, "qnn-join", ["#a58be0", "#5cc0b0"])
    d = dom_of(dom)
    check("87.5" in d.text.get("qnn-util", ""), "utilization 87.5 % not shown")
    check("3145728" in d.text.get("qnn-vtcm-peak", ""), "peak VTCM not shown")
    check("7340032" in d.text.get("qnn-dram-read", ""), "DRAM read not shown")
    join = d.text.get("qnn-join", "")
    nk = len(fx["kept"])
    m = re.search(r"(\d+) of (\d+) ETDump node\(s\) matched", join)
    check(m and int(m.group(1)) == nk, "join: %r (want %d matched)" % (join, nk))
    check("1 QNN op(s) have no ETDump node" in join, "QNN-only op not reported: %r" % join)
    check("Cycles agree exactly for %d of %d" % (nk, nk) in join, "cycles agreement: %r" % join)
    ops = {r[0]: r for r in table_rows(dom, "qnn-ops")}
    conv = next(n for n in fx["kept"] if "conv" in n[0])
    check(conv[0] in ops and ops[conv[0]][6] == "yes", "HMX flag of %s" % conv[0])
    check(ops[conv[0]][3] == str(conv[2]), "cycles of %s" % conv[0])
    print("  join %d/%d matched, flags and QHAS figures in the DOM" % (nk, len(fx["named"])))


def case_qnn_shared(a):
    base = os.path.join(a.shared or "", "corpus/qnn/fc256_native")
    if not a.shared or not os.path.isdir(base):
        print("SKIP: %s not found (the real QNN samples are read in place from ../shared)" % base)
        return SKIP
    dump = os.path.join(a.data, "fake-qnn-backend/stories260k_qnn_kv_forward_1x.etdp")
    pte = os.path.join(a.data, "upstream/stories260k_hybrid_llama_qnn.pte")
    q = os.path.join(base, "chrometrace_qnn_htp_analysis_summary.json")
    rep = run_report(a.etprof, [dump, "--pte", pte, "--qhas", q,
                                "--optrace", os.path.join(base, "chrometrace.json"),
                                "--runtrace", os.path.join(base, "chrometrace_runtrace.json")],
                     os.path.join(a.tmp, "qnn-shared.html"))
    static_check(rep)
    dom = load_in_browser(rep, a.tmp, "qnn-shared", ["#a58be0", "#5cc0b0", "#e9b949"])
    d = dom_of(dom)
    ov = json.load(open(q))["data"]["htp_overall_summary"]["data"][0]
    check("%.1f" % ov["percent_utilization"] in d.text.get("qnn-util", ""), "utilization")
    check(str(ov["peak_vtcm_alloc"]) in d.text.get("qnn-vtcm-peak", ""), "peak VTCM")
    check(str(ov["total_dram_read"]) in d.text.get("qnn-dram-read", ""), "DRAM read")
    check(str(ov["total_dram_write"]) in d.text.get("qnn-dram-write", ""), "DRAM write")
    rt = json.load(open(os.path.join(base, "chrometrace_runtrace.json")))
    ghz = [e["args"]["summary_htp_frequency_ghz"] for e in rt["traceEvents"]
           if e.get("name") == "Graph Execute" and "summary_htp_frequency_ghz" in e.get("args", {})]
    check(ghz and "%.3f" % ghz[0] in d.text.get("qnn-clock", ""), "HTP clock from runtrace")
    inst = json.load(open(q))["data"]["htp_op_instances"]["data"]
    # the HMX thread's busy cycles and, apart, HMX compute (the instances flagged hmx)
    busy = sum(r["cycles_used"] for r in ov["htp_resources"]["data"] if r["type"] == "HMX")
    hmx = sum(i["cycles"] for i in inst if i.get("hmx") is True)
    check(str(busy) in d.text.get("qnn-hmx-busy", ""), "HMX thread busy %d" % busy)
    check(str(hmx) in d.text.get("qnn-hmx-compute", "") and hmx < busy,
          "HMX compute %d: %r" % (hmx, d.text.get("qnn-hmx-compute")))
    want = {}
    for i in inst:
        w = want.setdefault(i["qnn_op"], [False, False, False])
        w[0] |= bool(i.get("hmx"))
        w[1] |= bool(i.get("hvx"))
        w[2] |= bool(i.get("dma") or i.get("dma_set") or i.get("dma_wait"))
    ops = {r[0]: r for r in table_rows(dom, "qnn-ops")}
    for op, w in want.items():
        check(op in ops, "QNN op %s missing" % op)
        got = [ops[op][6] == "yes", ops[op][7] == "yes", ops[op][8] == "yes"]
        check(got == w, "HMX/HVX/DMA of %s: %r != %r" % (op, got, w))
    print("  real QHAS/optrace/runtrace: utilization, VTCM, DRAM, clock, %d ops' unit flags" % len(want))


CASES = {"ethosu": case_ethosu, "qnn": case_qnn, "qnn-join": case_qnn_join,
         "qnn-shared": case_qnn_shared}


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="mode", required=True)
    s = sub.add_parser("static")
    s.add_argument("files", nargs="+")
    q = sub.add_parser("make-qhas")
    for k in ("--etprof", "--dump", "--pte", "--out"):
        q.add_argument(k, required=True)
    b = sub.add_parser("browser")
    b.add_argument("--etprof", required=True)
    b.add_argument("--case", required=True, choices=sorted(CASES))
    b.add_argument("--data", required=True)
    b.add_argument("--shared")
    b.add_argument("--tmp", required=True)
    a = ap.parse_args()
    try:
        if a.mode == "static":
            for f in a.files:
                static_check(f)
                print("ok %s" % f)
            return 0
        if a.mode == "make-qhas":
            make_qhas(a.etprof, a.dump, a.pte, a.out)
            return 0
        if not chromium_bin():
            print("SKIP: chromium is not installed (scripts/install-deps.sh --test installs it)")
            return SKIP
        # one fixed folder per case, emptied first: the last run's report and screenshot stay
        # there for a look (e.g. report-tmp/qnn/qnn.png)
        a.tmp = os.path.join(a.tmp, a.case)
        shutil.rmtree(a.tmp, ignore_errors=True)
        os.makedirs(a.tmp)
        rc = CASES[a.case](a)
        if rc == SKIP:
            return SKIP
        print("ok %s (files in %s)" % (a.case, a.tmp))
        return 0
    except Fail as e:
        print("FAIL: %s" % e)
        return 1


if __name__ == "__main__":
    sys.exit(main())
