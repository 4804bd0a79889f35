#!/usr/bin/env python3
"""Writes a program (.pte, schema/program.fbs) of N methods (issue 35.3): each ExecutionPlan a
table holding only its name ("m0000000", "m0000001", ... sorted as the schema says), all sharing
one vtable. Laid out by hand, front to back, every uoffset pointing forward:

  [0] root uoffset  [4] "ET12"
  Program: vtable, table {version 0, execution_plan}
  execution_plan vector: N uoffsets, each to its plan
  per plan: table {soffset to the shared vtable, name uoffset}, then its name

usage: many_methods_pte.py OUT N
"""
import struct
import sys

out, n = sys.argv[1], int(sys.argv[2])
buf = bytearray()
buf += bytes(4) + b"ET12"
# Program vtable: 2 fields (version at 4, execution_plan at 8), table size 12
pvt = len(buf)
buf += struct.pack("<HHHH", 8, 12, 4, 8)
prog = len(buf)
buf += struct.pack("<iII", prog - pvt, 0, 0)
struct.pack_into("<I", buf, 0, prog)
# the plans' shared vtable: 1 field (name at 4), table size 8
evt = len(buf)
buf += struct.pack("<HHH", 6, 8, 4) + bytes(2)
vec = len(buf)
struct.pack_into("<I", buf, prog + 8, vec - (prog + 8))
buf += struct.pack("<I", n) + bytes(4 * n)
for i in range(n):
    t = len(buf)
    struct.pack_into("<I", buf, vec + 4 + 4 * i, t - (vec + 4 + 4 * i))
    name = b"m%07d" % i
    buf += struct.pack("<iI", t - evt, 4)  # the name follows the table at t + 8
    buf += struct.pack("<I", len(name)) + name + b"\0"
    while len(buf) % 4:
        buf.append(0)
with open(out, "wb") as f:
    f.write(buf)
print("%s: %d methods, %d bytes" % (out, n, len(buf)))
