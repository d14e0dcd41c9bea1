#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Copy a perf.data file without its PERF_SAMPLE_STACK_USER data.

    fpleaf-strip.py IN OUT

For t-fpleaf.sh: the copy of a `pcl record -g` file (which carries a few
bytes of user stack per sample for the leaf repair) is the file a plain
frame-pointer recording of the same run would have been, so that what perf
prints for the two can be compared exactly. Each attr loses the
STACK_USER bit and its sample_stack_user; each sample loses its
size/data/dyn_size fields; the data section shrinks and the feature
sections after it move up by as much. Only the sample fields pcl record
writes before the stack are known (no READ or BRANCH_STACK): anything else
is refused.
"""
import struct
import sys

S = {name: 1 << bit for bit, name in enumerate(
    "IP TID TIME ADDR READ CALLCHAIN ID CPU PERIOD STREAM_ID RAW BRANCH_STACK "
    "REGS_USER STACK_USER WEIGHT DATA_SRC IDENTIFIER".split())}
RECORD_SAMPLE = 9
FEAT_EVENT_DESC = 12
HEADER_SIZE = 104


def die(msg):
    sys.exit("fpleaf-strip: " + msg)


def strip_sample(rec, stype, regs_mask):
    """The sample record @rec without its stack fields."""
    p = 8
    if stype & (S["READ"] | S["BRANCH_STACK"]):
        die("samples with READ or BRANCH_STACK are not handled")
    for f in ("IDENTIFIER", "IP", "TID", "TIME", "ADDR", "ID", "STREAM_ID", "CPU", "PERIOD"):
        if stype & S[f]:
            p += 8
    if stype & S["CALLCHAIN"]:
        (n,) = struct.unpack_from("<Q", rec, p)
        p += 8 + 8 * n
    if stype & S["RAW"]:
        (n,) = struct.unpack_from("<I", rec, p)
        p += 4 + n
    if stype & S["REGS_USER"]:
        (abi,) = struct.unpack_from("<Q", rec, p)
        p += 8 + (8 * bin(regs_mask).count("1") if abi else 0)
    if not stype & S["STACK_USER"]:
        return rec
    (size,) = struct.unpack_from("<Q", rec, p)
    end = p + 8 + (size + 8 if size else 0)
    out = bytearray(rec[:p] + rec[end:])
    struct.pack_into("<H", out, 6, len(out))
    return bytes(out)


def strip_attr(data, off):
    """The attr at @off without STACK_USER; its sample_type and sample_regs_user."""
    (stype,) = struct.unpack_from("<Q", data, off + 24)
    (regs,) = struct.unpack_from("<Q", data, off + 80)
    struct.pack_into("<Q", data, off + 24, stype & ~S["STACK_USER"])
    struct.pack_into("<I", data, off + 88, 0)
    return stype, regs


def strip_event_desc(data, feats, end):
    """The copies of the attrs in the EVENT_DESC feature (what perf --header prints)."""
    if not feats[0] >> FEAT_EVENT_DESC & 1:
        return
    idx = bin(feats[0] & ((1 << FEAT_EVENT_DESC) - 1)).count("1")
    (off, _) = struct.unpack_from("<QQ", data, end + 16 * idx)
    nr, size = struct.unpack_from("<II", data, off)
    p = off + 8
    for _ in range(nr):
        strip_attr(data, p)
        (nids,) = struct.unpack_from("<I", data, p + size)
        (slen,) = struct.unpack_from("<I", data, p + size + 4)
        p += size + 8 + slen + 8 * nids


def main():
    if len(sys.argv) != 3:
        die("usage: fpleaf-strip.py IN OUT")
    data = bytearray(open(sys.argv[1], "rb").read())
    magic, hsize, attr_size = struct.unpack_from("<8sQQ", data, 0)
    if magic != b"PERFILE2" or hsize != HEADER_SIZE:
        die("not a perf.data file in file mode")
    a_off, a_size, d_off, d_size = struct.unpack_from("<QQQQ", data, 24)
    feats = struct.unpack_from("<4Q", data, 72)
    # the attrs: sample_type at 24, sample_regs_user at 80, sample_stack_user at 88
    attrs = []
    # each entry: the perf_event_attr, then the file section of its ids
    for off in range(a_off, a_off + a_size, attr_size):
        stype, regs = strip_attr(data, off)
        ids_off, ids_size = struct.unpack_from("<QQ", data, off + attr_size - 16)
        ids = struct.unpack_from("<%dQ" % (ids_size // 8), data, ids_off)
        attrs.append((stype, regs, ids))
    by_id = {i: (t, r) for t, r, ids in attrs for i in ids}
    out = bytearray()
    p, end = d_off, d_off + d_size
    while p < end:
        typ, misc, size = struct.unpack_from("<IHH", data, p)
        if size < 8:
            die("bad record size at %d" % p)
        rec = bytes(data[p:p + size])
        if typ == RECORD_SAMPLE:
            stype, regs = attrs[0][:2]
            if len(attrs) > 1:
                if not stype & S["IDENTIFIER"]:
                    die("several attrs but no IDENTIFIER")
                stype, regs = by_id[struct.unpack_from("<Q", rec, 8)[0]]
            rec = strip_sample(rec, stype, regs)
        out += rec
        p += size
    strip_event_desc(data, feats, end)
    delta = d_size - len(out)
    # the feature section table after the data, and the sections it points at
    nfeat = sum(bin(w).count("1") for w in feats)
    table = bytearray(data[end:end + 16 * nfeat])
    for i in range(nfeat):
        off, size = struct.unpack_from("<QQ", table, 16 * i)
        struct.pack_into("<QQ", table, 16 * i, off - delta if off >= end else off, size)
    rest = data[end + 16 * nfeat:]
    struct.pack_into("<QQ", data, 40, d_off, len(out))
    result = data[:d_off] + out + table + rest
    open(sys.argv[2], "wb").write(result)


main()
