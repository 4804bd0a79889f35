#!/usr/bin/env python3
"""Writes an ETDump (schema/etdump.fbs) whose blocks' `events` vectors all point at ONE Event
table: a small file that stands for many events (a shared-table bomb within the verifier's visit
cap, issue 16.2). Laid out by hand, front to back, every uoffset pointing forward:

  [0] size prefix  [4] root uoffset  [8] "ED00"
  ETDump:  vtable, table {version, run_data}
  run_data vector: BLOCKS uoffsets, each to its own RunData
  per block: RunData vtable/table {name, events}, events vector of EVENTS uoffsets -> the Event
  the Event: vtable/table {profile_event} -> ProfileEvent {name, chain_index, instruction_id,
  start_time, end_time}, and the strings

usage: shared_event_dump.py OUT BLOCKS EVENTS_PER_BLOCK [--shared-blocks]
  --shared-blocks: the run_data vector's BLOCKS uoffsets all point at ONE RunData (an Execute
  block of EVENTS_PER_BLOCK events, each its own Event table): 2^20 runs in 4 MB (issue 35.2)
"""
import struct
import sys

out, nblocks, nevents = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
shared_blocks = "--shared-blocks" in sys.argv[4:]
buf = bytearray()


def pos():
    return len(buf)


def align(a):
    while len(buf) % a:
        buf.append(0)


def put(b):
    p = pos()
    buf.extend(b)
    return p


def patch_uoff(slot, target):
    assert target > slot
    struct.pack_into("<I", buf, slot, target - slot)


def table(fields):
    """fields: list of (id, kind, value) with kind 'u32','i32','u64','off'. Writes the vtable then
    the table right after it; returns (table position, {id: offset slot position})."""
    # table layout: soffset (4), then fields in order, 8-byte ones aligned
    layout, off = [], 4
    for fid, kind, val in fields:
        size = 8 if kind == "u64" else 4
        if off % size:
            off += size - off % size
        layout.append((fid, kind, val, off))
        off += size
    tsize = off
    nf = max(f[0] for f in fields) + 1
    vt = struct.pack("<HH", 4 + 2 * nf, tsize) + b"".join(
        struct.pack("<H", next((o for fid, _, _, o in layout if fid == i), 0)) for i in range(nf))
    align(2)
    vtp = put(vt)
    align(8)
    tp = pos()
    body = bytearray(tsize)
    struct.pack_into("<i", body, 0, tp - vtp)
    slots = {}
    for fid, kind, val, o in layout:
        if kind == "u64":
            struct.pack_into("<Q", body, o, val)
        elif kind == "i32":
            struct.pack_into("<i", body, o, val)
        elif kind == "u32":
            struct.pack_into("<I", body, o, val)
        else:
            slots[fid] = tp + o
    put(bytes(body))
    return tp, slots


def string(s):
    align(4)
    p = put(struct.pack("<I", len(s)) + s + b"\0")
    return p


def vector_slots(n):
    align(4)
    p = put(struct.pack("<I", n))
    put(bytes(4 * n))
    return p, [p + 4 + 4 * i for i in range(n)]


put(bytes(4))                 # size prefix
root_slot = put(bytes(4))     # root uoffset
put(b"ED00")
tp, s = table([(0, "u32", 0), (1, "off", None)])
patch_uoff(root_slot, tp)
rd_vec, rd_slots = vector_slots(nblocks)
patch_uoff(s[1], rd_vec)
ev_slots = []
if shared_blocks:
    tp, s = table([(0, "off", None), (3, "off", None)])
    for slot in rd_slots:
        patch_uoff(slot, tp)
    patch_uoff(s[0], string(b"Execute"))
    vec, slots = vector_slots(nevents)
    patch_uoff(s[3], vec)
    for i, slot in enumerate(slots):
        ev, es = table([(0, "off", None)])
        patch_uoff(slot, ev)
        pe, ps = table([(0, "off", None), (1, "i32", 0), (2, "i32", i), (6, "u64", 1000 + 10 * i),
                        (7, "u64", 1005 + 10 * i)])
        patch_uoff(es[0], pe)
        patch_uoff(ps[0], string(b"native_call_add.out"))
for b in range(0 if shared_blocks else nblocks):
    tp, s = table([(0, "off", None), (3, "off", None)])
    patch_uoff(rd_slots[b], tp)
    patch_uoff(s[0], string(b"Execute"))
    vec, slots = vector_slots(nevents)
    patch_uoff(s[3], vec)
    ev_slots.extend(slots)
ev, s = table([(0, "off", None)]) if ev_slots else (None, None)
for slot in ev_slots:
    patch_uoff(slot, ev)
if ev_slots:
    pe, ps = table([(0, "off", None), (1, "i32", 0), (2, "i32", 1), (6, "u64", 1000),
                    (7, "u64", 2000)])
    patch_uoff(s[0], pe)
    patch_uoff(ps[0], string(b"native_call_add.out"))
align(8)
struct.pack_into("<I", buf, 0, len(buf) - 4)
with open(out, "wb") as f:
    f.write(buf)
print("%s: %d blocks x %d events%s, %d bytes" % (out, nblocks, nevents,
                                                 " (one shared block)" if shared_blocks else "",
                                                 len(buf)))
