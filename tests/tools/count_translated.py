#!/usr/bin/env python3
"""count_translated.py DUMP.etdp [EXPECTED] - a second decoder for tests/test_readers.c's
check_repeated_blocks: prints the blocks whose every object (events vector, Event and
ProfileEvent/AllocationEvent tables, name and delegate id strings, metadata vector) lies at one
common distance from the corresponding object of the block before, with the same string, vector
and integer contents (the times may differ). Written with the struct module only; it shares no
code with etprof. With EXPECTED, exits 1 unless it finds that many (tests/readers.cmake runs it
on the dumps whose counts test_readers.c asserts)."""
import struct
import sys


def main(path):
    d = open(path, 'rb').read()
    u32 = lambda p: struct.unpack_from('<I', d, p)[0]
    i32 = lambda p: struct.unpack_from('<i', d, p)[0]
    u16 = lambda p: struct.unpack_from('<H', d, p)[0]

    def field(t, i):
        vt = t - i32(t)
        n = u16(vt)
        return u16(vt + 4 + 2 * i) if 4 + 2 * i < n else 0

    def ref(t, i):
        o = field(t, i)
        return t + o + u32(t + o) if o else None

    def tables(vec):
        return [vec + 4 + 4 * k + u32(vec + 4 + 4 * k) for k in range(u32(vec))]

    def objects(rd):
        """Positions of a block's objects and their contents, or None (a debug event)."""
        ev = ref(rd, 3)
        if ev is None:
            return [], []
        pos, content = [ev], []
        for e in tables(ev):
            pos.append(e)
            pe, ae = ref(e, 0), ref(e, 1)
            if ref(e, 2) is not None:
                return None, None
            if pe is not None:
                pos.append(pe)
                for fi in (0, 4, 5):  # name, delegate_debug_id_str, delegate_debug_metadata
                    r = ref(pe, fi)
                    if r is not None:
                        pos.append(r)
                        content.append(d[r:r + 4 + u32(r)])
                    else:
                        content.append(None)
                for fi in (1, 2, 3):  # chain_index, instruction_id, delegate_debug_id_int
                    o = field(pe, fi)
                    content.append(d[pe + o:pe + o + 4] if o else None)
            elif ae is not None:
                pos.append(ae)
                content.append(d[ae:ae + 4])
        return pos, content

    root = 4 + u32(4)  # size-prefixed
    blocks = tables(ref(root, 1))
    prev, found = None, []
    for bi, rd in enumerate(blocks):
        pos, content = objects(rd)
        if prev and pos and prev[0] and len(pos) == len(prev[0]) and content == prev[1]:
            if len({b - a for a, b in zip(prev[0], pos)}) == 1:
                found.append(bi)
        prev = (pos, content)
    print('%d blocks, %d translated: %s' % (len(blocks), len(found), found))
    return len(found)


if __name__ == '__main__':
    n = main(sys.argv[1])
    if len(sys.argv) > 2 and n != int(sys.argv[2]):
        print('count_translated.py: %d translated blocks, %s expected' % (n, sys.argv[2]))
        sys.exit(1)
