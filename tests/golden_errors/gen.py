#!/usr/bin/env python3
"""gen.py - writes the golden error corpus of tests/golden_errors/.

Every crafted file is a valid corpus file (tests/data) with a few bytes patched, or cut, at an
offset this script finds by walking the FlatBuffer itself, in the order etprof's verifier visits
it. The expected message of each case is derived here from those offsets and from the rules of
docs/verifier.md (where each kind of error is reported), never copied from etprof's output.
tests/test_errors.sh then runs `etprof` on each case and compares exit code and stderr exactly.

usage: gen.py            rewrite the files and cases.txt in this directory
       gen.py --check    regenerate into a temporary directory; fail if anything differs
"""
import os
import struct
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, '..', 'data')


def load(rel):
    with open(os.path.join(DATA, rel), 'rb') as f:
        return bytearray(f.read())


class FB:
    """Read-only walk of a FlatBuffer that starts at `start` in `data` (file offsets)."""

    def __init__(self, data, start):
        self.d, self.s = data, start

    def u8(self, p): return self.d[self.s + p]
    def u16(self, p): return struct.unpack_from('<H', self.d, self.s + p)[0]
    def u32(self, p): return struct.unpack_from('<I', self.d, self.s + p)[0]
    def i32(self, p): return struct.unpack_from('<i', self.d, self.s + p)[0]

    def vtable(self, t): return t - self.i32(t)

    def slot(self, t, fid):
        """Buffer position of the vtable entry of field `fid` (None when the vtable is short)."""
        vt = self.vtable(t)
        s = 4 + 2 * fid
        return vt + s if s + 2 <= self.u16(vt) else None

    def field(self, t, fid):
        s = self.slot(t, fid)
        return self.u16(s) if s is not None else 0

    def ref(self, t, fid):
        o = self.field(t, fid)
        return t + o + self.u32(t + o) if o else 0

    def elem(self, vec, i):
        e = vec + 4 + 4 * i
        return e + self.u32(e)

    def file(self, p): return self.s + p


class Walk:
    """Records tables, strings and vectors by schema path, in verification order."""

    def __init__(self, fb):
        self.fb = fb
        self.tables = []   # (position, path) in the order the verifier checks them
        self.at = {}       # path -> position (tables, strings, vectors: their length word)

    def table(self, t, path):
        self.tables.append((t, path))
        self.at[path] = t

    def string(self, t, fid, path):
        p = self.fb.ref(t, fid)
        if p:
            self.at[path] = p

    def vector(self, t, fid, path):
        p = self.fb.ref(t, fid)
        if p:
            self.at[path] = p
        return (p, self.fb.u32(p)) if p else (0, 0)

    def first_user(self, t):
        """The first table (in verification order) sharing table t's vtable: a patched vtable
        is reported there."""
        vt = self.fb.vtable(t)
        for pos, path in self.tables:
            if self.fb.vtable(pos) == vt:
                return pos, path
        raise AssertionError('table not walked')


def walk_etdump(fb):
    w = Walk(fb)
    root = fb.u32(0)
    w.table(root, 'root')
    rd, n = w.vector(root, 1, 'run_data')
    for i in range(n):
        b = fb.elem(rd, i)
        bp = 'run_data[%d]' % i
        w.table(b, bp)
        w.string(b, 0, bp + '.name')
        av, na = w.vector(b, 2, bp + '.allocators')
        for k in range(na):
            a = fb.elem(av, k)
            w.table(a, '%s.allocators[%d]' % (bp, k))
            w.string(a, 0, '%s.allocators[%d].name' % (bp, k))
        ev, ne = w.vector(b, 3, bp + '.events')
        for k in range(ne):
            e = fb.elem(ev, k)
            ep = '%s.events[%d]' % (bp, k)
            w.table(e, ep)
            p = fb.ref(e, 0)
            if p:
                w.table(p, ep + '.profile_event')
                w.string(p, 0, ep + '.profile_event.name')
                w.string(p, 4, ep + '.profile_event.delegate_debug_id_str')
                w.vector(p, 5, ep + '.profile_event.delegate_debug_metadata')
            p = fb.ref(e, 1)
            if p:
                w.table(p, ep + '.allocation_event')
            p = fb.ref(e, 2)
            if p:
                dp = ep + '.debug_event'
                w.table(p, dp)
                v = fb.ref(p, 2)
                if v:
                    walk_value(w, v, dp + '.debug_entry')
                w.string(p, 4, dp + '.delegate_debug_id_str')
                w.string(p, 5, dp + '.name')
    return w


def walk_tensor(w, t, path):
    w.table(t, path)
    w.vector(t, 1, path + '.sizes')
    w.vector(t, 2, path + '.strides')


def walk_value(w, v, path):
    fb = w.fb
    w.table(v, path)
    t = fb.ref(v, 1)
    if t:
        walk_tensor(w, t, path + '.tensor')
    tl = fb.ref(v, 2)
    if tl:
        w.table(tl, path + '.tensor_list')
        vec, n = w.vector(tl, 0, path + '.tensor_list.tensors')
        for i in range(n):
            walk_tensor(w, fb.elem(vec, i), '%s.tensor_list.tensors[%d]' % (path, i))
    for fid, name in ((3, 'int_value'), (4, 'float_value'), (5, 'double_value'),
                      (6, 'bool_value'), (7, 'output')):
        b = fb.ref(v, fid)
        if b:
            w.table(b, path + '.' + name)


def walk_program(fb, prefix=''):
    w = Walk(fb)
    root = fb.u32(0)
    w.table(root, prefix + 'root')
    ep, n = w.vector(root, 1, prefix + 'execution_plan')
    for i in range(n):
        pl = fb.elem(ep, i)
        pp = '%sexecution_plan[%d]' % (prefix, i)
        w.table(pl, pp)
        w.string(pl, 0, pp + '.name')
        cv, nc = w.vector(pl, 5, pp + '.chains')
        for c in range(nc):
            ch = fb.elem(cv, c)
            cp = '%s.chains[%d]' % (pp, c)
            w.table(ch, cp)
            iv, ni = w.vector(ch, 2, cp + '.instructions')
            for k in range(ni):
                ins = fb.elem(iv, k)
                ip = '%s.instructions[%d]' % (cp, k)
                w.table(ins, ip)
                a = fb.ref(ins, 1)
                if a:
                    w.table(a, ip + '.instr_args')
            sv, ns = w.vector(ch, 3, cp + '.stacktrace')
            if ns:
                raise AssertionError('stack traces are not walked; pick another base file')
        ov, no = w.vector(pl, 6, pp + '.operators')
        for k in range(no):
            op = fb.elem(ov, k)
            w.table(op, '%s.operators[%d]' % (pp, k))
            w.string(op, 0, '%s.operators[%d].name' % (pp, k))
            w.string(op, 1, '%s.operators[%d].overload' % (pp, k))
    return w


def shared_tables_etdump(k):
    """A plain ETDump: root -> run_data[k] -> one RunData -> events[k] -> one Event -> one empty
    ProfileEvent. uoffsets point forward, so referrers are laid out before what they refer to;
    vtables come first (soffsets are signed)."""
    b = bytearray(8)
    b[4:8] = b'ED00'

    def put(fmt, *v):
        p = len(b)
        b.extend(struct.pack(fmt, *v))
        return p
    vt_root = put('<HHHH', 8, 8, 0, 4)             # ETDump: run_data (field 1) at +4
    vt_rd = put('<HHHHHH', 12, 8, 0, 0, 0, 4)      # RunData: events (field 3) at +4
    vt_ev = put('<HHH', 6, 8, 4)                   # Event: profile_event (field 0) at +4
    vt_pe = put('<HH', 4, 4)                       # ProfileEvent: every field absent
    root = put('<iI', 0, 0)
    rdvec = put('<I', k)
    b.extend(bytes(4 * k))
    blk = put('<iI', 0, 0)
    evvec = put('<I', k)
    b.extend(bytes(4 * k))
    ev = put('<iI', 0, 0)
    pe = put('<i', 0)
    struct.pack_into('<I', b, 0, root)
    for t, vt in ((root, vt_root), (blk, vt_rd), (ev, vt_ev), (pe, vt_pe)):
        struct.pack_into('<i', b, t, t - vt)
    for field, target in ((root + 4, rdvec), (blk + 4, evvec), (ev + 4, pe)):
        struct.pack_into('<I', b, field, target - field)
    for i in range(k):
        e = rdvec + 4 + 4 * i
        struct.pack_into('<I', b, e, blk - e)
        e = evvec + 4 + 4 * i
        struct.pack_into('<I', b, e, ev - e)
    return b, {'block': blk, 'event': ev, 'profile': pe}


def put32(d, off, v): struct.pack_into('<I', d, off, v & 0xFFFFFFFF)
def put16(d, off, v): struct.pack_into('<H', d, off, v)


def cases():
    """Yields (file name, bytes or None, exit code, command args, expected stderr line)."""
    E = 'etprof: '
    nf = 'not an ETDump: no file identifier ED00 at byte 8 (size-prefixed) or 4'
    base = load('flatc-built/all_kinds.etdp')
    assert base[8:12] == b'ED00' and struct.unpack_from('<I', base, 0)[0] == len(base) - 4
    fb = FB(base, 4)  # size-prefixed: the FlatBuffer starts at file offset 4
    w = walk_etdump(fb)
    at = w.at

    yield ('valid_all_kinds.etdp', bytes(base), None, None, None)

    # -- whole-file checks ----------------------------------------------------------------
    yield ('empty.etdp', b'', 1, 'info empty.etdp',
           E + 'empty.etdp: offset 0: file is empty; an ETDump starts with a size prefix and '
           'the identifier ED00')
    yield ('too_small.etdp', bytes(base[:10]), 1, 'info too_small.etdp',
           E + 'too_small.etdp: offset 0: file is too small to be an ETDump (10 bytes; at least '
           '12 needed)')
    d = bytearray(base)
    d[8:12] = b'XD00'
    yield ('bad_identifier.etdp', bytes(d), 1, 'info bad_identifier.etdp',
           E + 'bad_identifier.etdp: offset 8: ' + nf)
    cut = 1000
    yield ('truncated.etdp', bytes(base[:cut]), 1, 'info truncated.etdp',
           E + 'truncated.etdp: offset 0: size_prefix: size prefix says %d bytes follow but the '
           'file has %d: the file is truncated' % (len(base) - 4, cut - 4))
    d = bytearray(base)
    put32(d, 0, 4)
    yield ('size_prefix_too_small.etdp', bytes(d), 1, 'info size_prefix_too_small.etdp',
           E + 'size_prefix_too_small.etdp: offset 0: size_prefix: size prefix 4 is too small for '
           'a FlatBuffer')

    # -- offsets out of bounds ------------------------------------------------------------
    d = bytearray(base)
    put32(d, 4, 0x00FFFFFF)
    yield ('root_offset_out_of_bounds.etdp', bytes(d), 1, 'info root_offset_out_of_bounds.etdp',
           E + 'root_offset_out_of_bounds.etdp: offset 4: root: root offset 16777215 points '
           'outside the buffer')

    # A vector element (uoffset to a table) pointing past the end: reported at the element.
    d = bytearray(base)
    elem = at['run_data'] + 4 + 4 * 1
    put32(d, fb.file(elem), 0x00100000)
    yield ('table_offset_out_of_bounds.etdp', bytes(d), 1, 'info table_offset_out_of_bounds.etdp',
           E + 'table_offset_out_of_bounds.etdp: offset %d: run_data[1]: offset 1048576 points '
           'outside the buffer' % fb.file(elem))

    # A table's uoffset field pointing past the end: reported at the field.
    d = bytearray(base)
    ev = at['run_data[1].events[4]']
    fpos = ev + fb.field(ev, 2)  # Event.debug_event
    put32(d, fb.file(fpos), 0x7FFFFFF0)
    yield ('field_offset_out_of_bounds.etdp', bytes(d), 1, 'info field_offset_out_of_bounds.etdp',
           E + 'field_offset_out_of_bounds.etdp: offset %d: run_data[1].events[4].debug_event: '
           'offset 2147483632 points outside the buffer' % fb.file(fpos))

    # A table whose soffset puts its vtable before the start: reported at the table.
    d = bytearray(base)
    t = at['run_data[1].events[0].profile_event']
    so = t + 100  # vtable = t - soffset = -100
    put32(d, fb.file(t), so)
    yield ('vtable_out_of_bounds.etdp', bytes(d), 1, 'info vtable_out_of_bounds.etdp',
           E + 'vtable_out_of_bounds.etdp: offset %d: run_data[1].events[0].profile_event: '
           'vtable offset %d points outside the buffer' % (fb.file(t), so))

    # An odd vtable length: reported at the vtable, for the first table that uses it.
    d = bytearray(base)
    t, path = w.first_user(at['run_data[1].events[1].profile_event'])
    vt = fb.vtable(t)
    put16(d, fb.file(vt), 7)
    yield ('vtable_bad_length.etdp', bytes(d), 1, 'info vtable_bad_length.etdp',
           E + 'vtable_bad_length.etdp: offset %d: %s: vtable length 7 is invalid'
           % (fb.file(vt), path))

    # A field whose vtable entry puts it past the end of the buffer: reported at that entry.
    # (A field past the table's declared inline size but inside the buffer is accepted, as
    # FlatBuffers' reference verifier accepts it: docs/verifier.md.)
    d = bytearray(base)
    t, path = w.first_user(at['run_data[1].events[0].profile_event'])
    assert fb.field(t, 6), 'start_time must be present'
    size = struct.unpack_from('<I', base, 0)[0]  # the size prefix: bytes in the FlatBuffer
    s = fb.slot(t, 6)  # ProfileEvent.start_time, 8 bytes
    o = size - t - 4   # its 8 bytes would end 4 bytes past the buffer
    assert 0 < o < 0x10000
    put16(d, fb.file(s), o)
    yield ('field_outside_table.etdp', bytes(d), 1, 'info field_outside_table.etdp',
           E + 'field_outside_table.etdp: offset %d: %s.start_time: field at table byte %d '
           '(8 bytes) runs past the end of the buffer (%d bytes)' % (fb.file(s), path, o, size))

    # -- strings and vectors ----------------------------------------------------------------
    d = bytearray(base)
    sp = 'run_data[1].events[1].profile_event.delegate_debug_id_str'
    p = at[sp]
    n = fb.u32(p)
    assert d[fb.file(p + 4 + n)] == 0
    d[fb.file(p + 4 + n)] = ord('!')
    yield ('unterminated_string.etdp', bytes(d), 1, 'info unterminated_string.etdp',
           E + 'unterminated_string.etdp: offset %d: %s: string is not NUL-terminated'
           % (fb.file(p + 4 + n), sp))

    d = bytearray(base)
    p = at['run_data[0].name']
    put32(d, fb.file(p), 0x7FFFFFFF)
    yield ('string_length_past_end.etdp', bytes(d), 1, 'info string_length_past_end.etdp',
           E + 'string_length_past_end.etdp: offset %d: run_data[0].name: string length '
           '2147483647 runs past the end of the buffer' % fb.file(p))

    d = bytearray(base)
    p = at['run_data[1].events']
    put32(d, fb.file(p), 0xFFFFFFFF)
    yield ('vector_length_overflow.etdp', bytes(d), 1, 'info vector_length_overflow.etdp',
           E + 'vector_length_overflow.etdp: offset %d: run_data[1].events: vector of 4294967295 '
           'elements (4 bytes each) runs past the end of the buffer' % fb.file(p))

    d = bytearray(base)
    p = at['run_data[1].events[2].debug_event.debug_entry.tensor.sizes']
    put32(d, fb.file(p), 0x20000000)  # x 8 bytes = 4 GiB: must not wrap around in 32 bits
    yield ('vector_size_wraps.etdp', bytes(d), 1, 'info vector_size_wraps.etdp',
           E + 'vector_size_wraps.etdp: offset %d: '
           'run_data[1].events[2].debug_event.debug_entry.tensor.sizes: vector of 536870912 '
           'elements (8 bytes each) runs past the end of the buffer' % fb.file(p))

    # -- shared tables ------------------------------------------------------------------------
    # A plain (not size-prefixed) ETDump whose run_data vector points K times at one RunData,
    # whose events vector points K times at one Event: K*K events from a few K bytes. The
    # verifier stops after `size` table visits (docs/verifier.md), at visit size + 1.
    d, pos = shared_tables_etdump(64)
    budget = len(d)
    order = [(0, 'root')]  # tables in the order the verifier visits them (root offset: 0)
    for i in range(64):
        order.append((pos['block'], 'run_data[%d]' % i))
        for j in range(64):
            order.append((pos['event'], 'run_data[%d].events[%d]' % (i, j)))
            order.append((pos['profile'], 'run_data[%d].events[%d].profile_event' % (i, j)))
    where = order[budget]  # visit number budget + 1
    yield ('shared_tables.etdp', bytes(d), 1, 'info shared_tables.etdp',
           E + 'shared_tables.etdp: offset %d: %s: tables are referenced more than %d times in a '
           '%d-byte buffer (shared tables)' % (where[0], where[1], budget, budget))

    # -- enum / union values ------------------------------------------------------------------
    for name, val in (('unknown_value_type.etdp', 9), ('negative_value_type.etdp', -1)):
        d = bytearray(base)
        v = at['run_data[1].events[2].debug_event.debug_entry']
        vp = v + fb.field(v, 0)  # Value.val (byte)
        assert fb.field(v, 0) and d[fb.file(vp)] == 5  # Tensor
        d[fb.file(vp)] = val & 0xFF
        yield (name, bytes(d), 1, 'info ' + name,
               E + '%s: offset %d: run_data[1].events[2].debug_event.debug_entry.val: unknown '
               'value type %d (known: 0-7)' % (name, fb.file(vp), val))

    # -- wrong kinds of file ------------------------------------------------------------------
    js = b'{"version": 0, "run_data": []}\n'
    yield ('not_an_etdump.json', js, 1, 'info not_an_etdump.json',
           E + 'not_an_etdump.json: offset 8: ' + nf + '; this looks like a JSON document')
    pte = load('upstream/add.pte')
    yield ('valid_add.pte', bytes(pte), None, None, None)
    yield (None, None, 1, 'events valid_add.pte',
           E + 'valid_add.pte: offset 8: ' + nf + '; this looks like an ExecuTorch program (.pte)')
    # A .ptd (FlatTensor named data) built by hand from its documented header (ExecuTorch
    # docs/source/ptd-file-format.md): root offset, "FT01", the 40-byte "FH01" extended header
    # (flatbuffer offset and size, segment base offset and size), then an empty root table.
    ptd = bytearray(56)
    put32(ptd, 0, 52)                    # root table at 52
    ptd[4:8] = b'FT01'
    ptd[8:12] = b'FH01'
    put32(ptd, 12, 40)                   # extended header size
    struct.pack_into('<QQQQ', ptd, 16, 48, 8, 56, 0)
    put16(ptd, 48, 4)                    # vtable: 4 bytes, table 4 bytes, no fields
    put16(ptd, 50, 4)
    put32(ptd, 52, 4)                    # soffset to the vtable at 48
    ptd_what = ('an ExecuTorch data file (.ptd, FlatTensor named data such as weights kept '
                'outside the program; it holds no profiling events)')
    yield ('named_data.ptd', bytes(ptd), 1, 'summary named_data.ptd',
           E + 'named_data.ptd: offset 8: ' + nf + '; this looks like ' + ptd_what)
    yield (None, None, 1, 'info valid_all_kinds.etdp --pte named_data.ptd',
           E + 'named_data.ptd: offset 4: not an ExecuTorch program: no identifier ET12 (or '
           'BP08) at byte 4; this looks like ' + ptd_what)
    yield (None, None, 1, 'info valid_all_kinds.etdp --pte valid_all_kinds.etdp',
           E + 'valid_all_kinds.etdp: offset 4: not an ExecuTorch program: no identifier ET12 (or '
           'BP08) at byte 4; this looks like an ETDump (.etdp)')
    # A debug buffer has no header: a file with another kind's identifier is not one (its
    # bytes would be read as tensors), named before any output.
    nd = ('not a debug buffer: this looks like %s; a debug buffer is the raw tensor bytes of '
          'ETDumpGen::set_debug_buffer')
    yield (None, None, 1, 'tensors valid_all_kinds.etdp --debug-buffer valid_add.pte',
           E + 'valid_add.pte: offset 0: ' + nd % 'an ExecuTorch program (.pte)')
    yield (None, None, 1, 'tensors valid_all_kinds.etdp --debug-buffer valid_all_kinds.etdp',
           E + 'valid_all_kinds.etdp: offset 0: ' + nd % 'an ETDump (.etdp)')
    yield (None, None, 1, 'tensors valid_all_kinds.etdp --debug-buffer named_data.ptd',
           E + 'named_data.ptd: offset 0: ' + nd % ptd_what)
    # --runner-log: the Arm runner's log apart from the ETDump must hold its PMU report (an "NPU
    # Inferences" line) or VGF device times; a binary file is named by its kind.
    yield (None, None, 1, 'summary valid_all_kinds.etdp --runner-log valid_add.pte',
           E + 'valid_add.pte: offset 0: binary data (a NUL byte), not the Arm runner\'s serial log '
           'with its Ethos-U PMU report; this looks like an ExecuTorch program (.pte)')
    yield (None, None, 1, 'explain valid_all_kinds.etdp --runner-log not_an_etdump.json',
           E + 'not_an_etdump.json: offset 0: no Ethos-U PMU report ("NPU Inferences" lines) and '
           'no VGF device time (VGF_DATA_GRAPH_DEVICE_TIME lines) here: the runner logs them with '
           'its performance monitor or EXECUTORCH_VGF_ENABLE_TIMESTAMP_QUERIES; this looks like a '
           'JSON document')
    # The Arm runner's serial log (docs/formats.md "ETDumps in a serial log") holding add_pte_1x
    # with its one kernel renamed native_call_sub.out: the dump is sound, the program check with
    # --pte add.pte then rejects it. Exactly one line (issue 35.7): the warning that the log's
    # times are ticks, said before the check, is not printed when the command then fails.
    run = load('real/add_pte_1x.etdp')
    old, new_name = b'native_call_add.out', b'native_call_sub.out'
    assert run.count(old) == 1
    rfb = FB(run, 4)
    rw = walk_etdump(rfb)
    ev = [p for p, pos in rw.at.items() if p.endswith('.profile_event.name') and
          run[rfb.file(pos) + 4:rfb.file(pos) + 4 + len(old)] == old][0]
    pe = rw.at[ev[:-len('.name')]]
    def scalar(fb, t, fid, default):  # an int field, its schema default when absent
        o = fb.field(t, fid)
        return fb.i32(t + o) if o else default
    chain = scalar(rfb, pe, 1, 0)
    instr = scalar(rfb, pe, 2, -1)
    blk, evi = [int(x.split(']')[0]) for x in ev.split('[')[1:3]]
    run[run.index(old):run.index(old) + len(old)] = new_name
    # what add.pte has there: execution_plan[0].chains[chain].instructions[instr], a KernelCall
    pfb = FB(pte, 0)
    pw = walk_program(pfb)
    pname = pte[pw.at['execution_plan[0].name'] + 4:]
    pname = bytes(pname[:pname.index(0)]).decode()
    args = pw.at['execution_plan[0].chains[%d].instructions[%d].instr_args' % (chain, instr)]
    op = scalar(pfb, args, 0, 0)

    def pstr(path):
        q = pw.at[path]
        return bytes(pte[q + 4:q + 4 + pfb.u32(q)]).decode()
    opname = '%s.%s' % (pstr('execution_plan[0].operators[%d].name' % op),
                        pstr('execution_plan[0].operators[%d].overload' % op))
    import base64
    log = (b'I [executorch] Model run: 1\n#[RUN THIS]\n# Writing etdump.bin [base64]\necho "' +
           base64.b64encode(bytes(run)) + b'" | base64 -d >etdump.bin\n#[END]\n')
    yield ('mismatch_runner.log', log, 1, 'summary mismatch_runner.log --pte valid_add.pte',
           E + 'mismatch_runner.log: run_data[%d].events[%d]: block %d event %d (%s, chain %d '
           'instruction %d): method %s of the program has a KernelCall of %s there: not the '
           'program of this dump (check --pte, or --ignore-program-mismatch)'
           % (blk, evi, blk, evi, new_name.decode(), chain, instr, pname, opname))
    yield (None, None, 3, 'report valid_all_kinds.etdp --runner-log no_such_file.log',
           E + 'no_such_file.log: cannot open: No such file or directory')
    # The test creates a_directory/ itself (git does not keep empty directories).
    yield (None, None, 3, 'info a_directory', E + 'a_directory: is a directory, not a file')
    yield (None, None, 3, 'info no_such_file.etdp',
           E + 'no_such_file.etdp: cannot open: No such file or directory')
    yield (None, None, 3, 'info valid_all_kinds.etdp --pte no_such_file.pte',
           E + 'no_such_file.pte: cannot open: No such file or directory')

    # -- programs -----------------------------------------------------------------------------
    fbp = FB(pte, 0)
    wp = walk_program(fbp)
    pat = wp.at
    np_ = 'not an ExecuTorch program: no identifier ET12 (or BP08) at byte 4'

    d = bytearray(pte)
    d[4:8] = b'XT12'
    yield ('bad_identifier.pte', bytes(d), 1, 'info valid_all_kinds.etdp --pte bad_identifier.pte',
           E + 'bad_identifier.pte: offset 4: ' + np_)

    ins_path = 'execution_plan[0].chains[0].instructions[0]'
    d = bytearray(pte)
    ins = pat[ins_path]
    tp = ins + fbp.field(ins, 0)  # Instruction.instr_args_type (ubyte)
    assert fbp.field(ins, 0) and d[tp] == 1  # KernelCall
    d[tp] = 9
    yield ('unknown_instruction_type.pte', bytes(d), 1, 'info unknown_instruction_type.pte',
           E + 'unknown_instruction_type.pte: offset %d: %s.instr_args_type: unknown instruction '
           'type 9 (known: 1 KernelCall .. 5 FreeCall)' % (tp, ins_path))

    d = bytearray(pte)
    elem = pat['execution_plan[0].operators'] + 4
    put32(d, elem, 0x00100000)
    yield ('operator_offset_out_of_bounds.pte', bytes(d), 1,
           'info operator_offset_out_of_bounds.pte',
           E + 'operator_offset_out_of_bounds.pte: offset %d: execution_plan[0].operators[0]: '
           'offset 1048576 points outside the buffer' % elem)

    d = bytearray(pte)
    sp = 'execution_plan[0].operators[0].name'
    p = pat[sp]
    n = fbp.u32(p)
    d[p + 4 + n] = ord('!')
    yield ('unterminated_operator_name.pte', bytes(d), 1, 'info unterminated_operator_name.pte',
           E + 'unterminated_operator_name.pte: offset %d: %s: string is not NUL-terminated'
           % (p + 4 + n, sp))

    # Extended header (eh00): program and segments cut off.
    ard = load('upstream/arduino_add_model.pte')
    assert ard[8:12] == b'eh00'
    psize, sbase, ssize = struct.unpack_from('<QQQ', ard, 16)
    cut = psize - 40
    yield ('truncated_program.pte', bytes(ard[:cut]), 1, 'info truncated_program.pte',
           E + 'truncated_program.pte: offset 16: extended header says the program is %d bytes '
           'but only %d are present: the file is truncated' % (psize, cut))
    cut = sbase + ssize - 1
    yield ('truncated_segments.pte', bytes(ard[:cut]), 1, 'info truncated_segments.pte',
           E + 'truncated_segments.pte: offset 24: segments end at byte %d but the file has %d '
           'bytes: the file is truncated' % (sbase + ssize, cut))

    # A segment size so large that base + size wraps around 64 bits must not pass the check.
    d = bytearray(ard)
    struct.pack_into('<Q', d, 32, 0xFFFFFFFFFFFFFFFF)
    yield ('segments_size_wraps.pte', bytes(d), 1, 'info segments_size_wraps.pte',
           E + 'segments_size_wraps.pte: offset 24: segments at byte %d holding %d bytes end past '
           'the %d-byte file' % (sbase, 0xFFFFFFFFFFFFFFFF, len(ard)))

    # Bundled program: errors inside the embedded program are reported at file offsets, under
    # the path "program".
    bp = load('upstream/bundled_program.bpte')
    fbb = FB(bp, 0)
    broot = fbb.u32(0)
    pvec = fbb.ref(broot, 2)  # BundledProgram.program: [ubyte]
    inner = FB(bp, pvec + 4)
    wi = walk_program(inner, 'program.')
    d = bytearray(bp)
    ins = wi.at['program.' + ins_path]
    tp = ins + inner.field(ins, 0)
    assert d[inner.file(tp)] == 1
    d[inner.file(tp)] = 9
    yield ('bundled_unknown_instruction_type.bpte', bytes(d), 1,
           'info bundled_unknown_instruction_type.bpte',
           E + 'bundled_unknown_instruction_type.bpte: offset %d: program.%s.instr_args_type: '
           'unknown instruction type 9 (known: 1 KernelCall .. 5 FreeCall)'
           % (inner.file(tp), ins_path))
    d = bytearray(bp)
    d[pvec + 4 + 4:pvec + 4 + 8] = b'XT12'
    yield ('bundled_bad_identifier.bpte', bytes(d), 1, 'info valid_all_kinds.etdp --pte '
           'bundled_bad_identifier.bpte',
           E + 'bundled_bad_identifier.bpte: offset %d: program: embedded program has no '
           'identifier ET12 at byte 4' % (pvec + 4))


HEADER = """\
# Golden error corpus: written by gen.py (do not edit; run ./gen.py), checked by
# tests/test_errors.sh. One case per line, tab-separated:
#   exit code <TAB> etprof arguments (run in this directory) <TAB> exact stderr (one line)
# Every case runs twice: as is, and with "-o out.txt", which must not leave any file behind.
# Excessive nesting has no case: uoffsets only point forward, so no FlatBuffer can nest deeper
# than the schema, which is far below the verifier's bound (docs/verifier.md).
"""


def generate(out):
    lines = [HEADER]
    for name, data, code, args, msg in cases():
        if name is not None:
            with open(os.path.join(out, name), 'wb') as f:
                f.write(data)
        if args is not None:
            lines.append('%d\t%s\t%s\n' % (code, args, msg))
    with open(os.path.join(out, 'cases.txt'), 'w') as f:
        f.writelines(lines)


def main():
    if sys.argv[1:] == ['--check']:
        with tempfile.TemporaryDirectory() as tmp:
            generate(tmp)
            bad = 0
            for name in sorted(os.listdir(tmp)):
                with open(os.path.join(tmp, name), 'rb') as a:
                    want = a.read()
                try:
                    with open(os.path.join(HERE, name), 'rb') as b:
                        have = b.read()
                except OSError:
                    have = None
                if have != want:
                    print('gen.py: %s is stale or missing; run tests/golden_errors/gen.py' % name)
                    bad = 1
            sys.exit(bad)
    elif sys.argv[1:]:
        sys.exit(__doc__)
    generate(HERE)


if __name__ == '__main__':
    main()
