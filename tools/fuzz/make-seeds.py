#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# make-seeds.py DIR: write the seed corpus of neuron_fuzz (tools/fuzz/corpus)
# into DIR. Each seed is a program in the harness's encoding (the op_*
# functions of neuron_fuzz.c read their bytes in the order written here):
# a valid path through each group of calls, so the bounded run of
# `make check` starts past the argument checks. Keep in step with
# neuron_fuzz.c: a change of the decoding order there changes what these
# bytes mean (the seeds stay valid inputs, they only reach less).
import os
import sys

OPEN, CLOSE, DUP, QUERY, ALLOC, FREE, COPY, MEMSET, WAIT, NSETUP, NWAIT, \
    NTEAR, RESERVE, RELEASE, SEM, LOAD, UNLOAD, EXEC, MMAP, MUNMAP, NL, \
    FORK, REMOVE, RAW = range(24)

FD0, FD1 = 0, 1          # the read-write files of the two devices (v2, v3)


def query(op, fd):       # size index 7: 4096 bytes of room
    return [QUERY, op, 0, 7, 0, 0, 0, 0, fd]


def alloc(size_idx, kind, nc, fd, chan=0):
    # sizes 1, 4096, 8192, 65536, 1M, 4M, 0, ~0, 12345; align 0; channel any
    return [ALLOC, size_idx, 0, kind, nc, chan, 0, 0, fd]


def free(obj, fd):
    return [FREE, obj, 0, fd]


def copy_to(obj, fd, size_idx=3):     # user buffer -> memory object
    return [COPY, 2, obj, 0, 0, 0, 0, 0, size_idx, 0, 0, fd]


def copy_from(obj, fd, size_idx=3):   # memory object -> user buffer
    return [COPY, 1, obj, 0, 0, 0, 0, 0, size_idx, 0, 0, fd]


def copy_async(src, dst, fd):         # memory -> memory, NEURON_COPY_ASYNC
    return [COPY, 0x13, src, dst, 0, 0, 3, 0, fd]


def memset(obj, fd, asynchronous):
    return [MEMSET, obj, 0x5a, 0, 3] + ([1] if asynchronous else [0, 0]) + [0, fd]


def wait(seq, fd, ms=10):
    return [WAIT, seq, 3, ms, 0, 0, fd]


def nsetup(nc, typ, fd, efd=0):       # 16 entries; efd 0: the eventfd
    return [NSETUP, nc, typ, 0, 0, efd, 0, fd]


def nwait(ring, fd):
    return [NWAIT, ring, 0, 0, 2, fd]


def ntear(ring, fd):
    return [NTEAR, ring, 0, 0, fd]


def reserve(mask, fd, release=False):
    return [RELEASE if release else RESERVE, mask, 0, 0, fd]


def sem(nc, kind, index, op, value, fd):
    b = [SEM, nc, kind, index, op, value, 0]
    return b + ([3, 2] if op == 4 else [0]) + [fd]


def insn(opcode_idx, last, m=0, k=0, n=0, dst=(0, 0), a=(0, 0), b=(0, 0), index=0):
    """One instruction; opcode_idx into the harness's table (0: END)."""
    out = [0] if last and opcode_idx == 0 else ([0xe0, opcode_idx] if last else [opcode_idx])
    out += [0, 0, 0, 0, m, k, n, index]
    for region, off in (dst, a, b):
        out += [region, off & 0xff, off >> 8]
    return out


def load(blocks, slots, nc, fd, data_blocks=0, scratch_kb=0):
    """blocks: [(engine, [insn bytes...])]; slots: [(size/64, kind, ndim, s0, s1)]."""
    out = [LOAD, len(blocks) - 1, len(slots)]
    for engine, insns in blocks:
        out += [len(insns) - 1]
        for i in insns:
            out += i
        out += [len(insns) & 0xff, engine]
    for size, kind, ndim, s0, s1 in slots:
        out += [size, kind, 0, ndim, s0, s1, 1, 0, 0, 0]
    out += [nc, 0, 0, len(blocks), len(slots), data_blocks, scratch_kb, 0, fd]
    return out


def unload(model, fd):
    return [UNLOAD, model, 0, fd]


def execute(model, binds, fd, wait_flag=True):
    out = [EXEC, len(binds), model] + binds + ([1] if wait_flag else [2, 0])
    if not binds:
        out += [0]
    return out + [0, 0, 0, fd]


def mmap(slot, ring, obj, prot, fd, touch=True):
    s = 1 if ring else 0
    out = [MMAP, slot, s, obj, prot, fd]
    return out + ([0, 0] if touch and prot in (0, 1, 3) else [])


def munmap(slot):
    return [MUNMAP, slot]


def nl(cmd, dump, attrs):
    out = [NL, cmd, 1 if dump else 0, len(attrs)]
    for typ, v in attrs:
        out += [typ, v, 0]
    return out


def fork(mem, model, fd):
    return [FORK, mem, model, fd]


SEEDS = {
    'query': query(0, FD0) + query(1, FD0) + query(2, FD1) + query(3, FD1),
    'mem': alloc(1, 0, 0, FD0) + alloc(3, 1, 1, FD0) + copy_to(0, FD0) + copy_from(0, FD0) +
    copy_to(1, FD0) + query(1, FD0) + free(0, FD0) + free(1, FD0) + free(1, FD0),
    'mem-async': alloc(3, 1, 0, FD1) + alloc(3, 0, 0, FD1) + copy_async(0, 1, FD1) +
    wait(0, FD1) + memset(1, FD1, True) + wait(1, FD1) + memset(0, FD1, False) +
    wait(0, FD1),
    'mmap': alloc(2, 0, 0, FD0) + alloc(2, 1, 0, FD0) + mmap(0, False, 0, 1, FD0) +
    mmap(1, False, 1, 1, FD0) + mmap(2, False, 0, 0, FD0) + munmap(0) + free(0, FD0) +
    munmap(2),
    'notify': nsetup(0, 0, FD0) + nsetup(0, 1, FD0, efd=3) + mmap(0, True, 0, 0, FD0) +
    nwait(0, FD0) + ntear(1, FD0) + ntear(0, FD0) + nsetup(1, 2, FD1) + nsetup(1, 3, FD1),
    'reserve-sem': reserve(3, FD0) + sem(0, 0, 1, 1, 5, FD0) + sem(0, 0, 1, 2, 1, FD0) +
    sem(0, 0, 1, 3, 1, FD0) + sem(0, 0, 1, 0, 0, FD0) + sem(0, 1, 2, 4, 1, FD0) +
    query(2, FD0) + reserve(3, FD0, release=True),
    'model-end': reserve(1, FD0) + load([(0, [insn(0, True)])], [], 0, FD0) +
    execute(0, [], FD0) + unload(0, FD0) + reserve(1, FD0, release=True),
    'model-matmul': reserve(1, FD1) + alloc(1, 0, 0, FD1) + alloc(1, 0, 0, FD1) +
    load([(0, [insn(3, False, 8, 8, 8, dst=(3, 0), a=(2, 0), b=(0, 0)), insn(0, True)])],
         [(4, 0, 2, 8, 8), (4, 1, 2, 8, 8)], 0, FD1, data_blocks=1, scratch_kb=4) +
    execute(0, [0, 1], FD1) + execute(0, [0, 1], FD1, wait_flag=False) + wait(0, FD1, 50) +
    unload(0, FD1) + free(0, FD1) + free(1, FD1),
    'netlink': nl(1, True, []) + nl(1, False, [(1, 0)]) + nl(2, True, []) +
    nl(2, False, [(1, 1), (13, 0)]) + nl(0, False, []) + nl(3, False, []) + nl(4, True, []),
    'fork': alloc(1, 0, 0, FD0) + reserve(1, FD0) + load([(0, [insn(0, True)])], [], 0, FD0) +
    fork(0, 0, FD0) + query(1, FD0) + fork(0, 0, 2),
    'files': [OPEN, 0, 2, 1, OPEN, 1, 3, 0] + query(0, 2) + alloc(1, 0, 0, 3) +
    [DUP, 0, 2, CLOSE, 0] + alloc(1, 0, 0, 2) + [CLOSE, 2, CLOSE, 1],
    'remove': alloc(1, 0, 0, FD1) + mmap(0, False, 0, 1, FD1) + [REMOVE, 1, 0xc0] +
    query(0, FD1) + free(0, FD1) + munmap(0) + [OPEN, 1, 2, 0],
    'raw-ioctl': [RAW, 6, 8] + [3] + [0] * 8 + [0, FD0] + [RAW, 7, 0, 0, 0, FD0] +
    [RAW, 0x11, 16, 1] + [0] * 16 + [0, FD0] + [RAW, 0, 4, 3, 1, 2, 3, 4, 0, FD0],
}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(out, name), 'wb') as f:
            f.write(bytes(b & 0xff for b in data))


main()
