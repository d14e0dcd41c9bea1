#!/usr/bin/env python3
"""Write a small, valid perf.data whose samples carry fields this machine
cannot record (no LBR, no PEBS): branch stacks, registers, memory-access
fields (addr, data_src, weight, phys_addr, page sizes), or a BTS-like
branch event. perf script and pcl script both read it, so the tests can
compare their lines on fields that no recording here produces.

    gen-perfdata.py OUT KIND ELF

KIND: branch, branch-hwidx, regs, mem, mem-struct, bts, mixed, bpf,
records (one of each side-band record type the kernel writes, for -D).
ELF: a position-independent executable whose function symbols the
samples point into; it is "mapped" at 0x555555554000 by an MMAP2 record.
The file has one event, no feature sections and records in time order.
"""
import os
import struct
import subprocess
import sys

BASE = 0x555555554000
KADDR = 0xFFFFFFFF81000010  # a kernel address no map covers

S = {n: 1 << i for i, n in enumerate(
    "IP TID TIME ADDR READ CALLCHAIN ID CPU PERIOD STREAM_ID RAW BRANCH_STACK "
    "REGS_USER STACK_USER WEIGHT DATA_SRC IDENTIFIER TRANSACTION REGS_INTR "
    "PHYS_ADDR AUX CGROUP DATA_PAGE_SIZE CODE_PAGE_SIZE WEIGHT_STRUCT".split())}
BRANCH_USER, BRANCH_ANY, BRANCH_HW_INDEX = 1 << 0, 1 << 3, 1 << 17


def functions(elf):
    """(address, size, name) of the ELF's defined functions, by address."""
    out = subprocess.run(["nm", "-S", "--defined-only", elf], check=True,
                         capture_output=True, text=True).stdout
    fns = []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in "Tt" and int(f[1], 16) >= 8:
            fns.append((int(f[0], 16), int(f[1], 16), f[3]))
    return sorted(fns)


def attr(typ, config, period, sample_type, branch_type=0, regs_user=0, regs_intr=0):
    # disabled, inherit, mmap, comm, sample_id_all, exclude_guest, mmap2, comm_exec
    flags = 1 | 2 | (1 << 8) | (1 << 9) | (1 << 18) | (1 << 20) | (1 << 23) | (1 << 24)
    a = struct.pack("<IIQQQQQIIQQQQIiQIHHII Q", typ, 128, config, period, sample_type, 0,
                    flags, 0, 0, 0, 0, branch_type, regs_user, 0, 0, regs_intr,
                    0, 0, 0, 0, 0, 0)
    assert len(a) == 128, len(a)
    return a


def pad8(b):
    return b + b"\0" * (-len(b) % 8)


def record(typ, misc, body):
    return struct.pack("<IHH", typ, misc, 8 + len(body)) + body


def trailer(pid, tid, time, cpu):
    # sample_id_all with sample_type TID|TIME|CPU
    return struct.pack("<IIQII", pid, tid, time, cpu, 0)


def branch_flags(i):
    mispred, predicted = (i % 3 == 1), (i % 3 == 2)
    in_tx, abort = (i % 5 == 3), (i % 7 == 4)
    cycles = (i * 37) % 1000
    btype = i % 12  # PERF_BR_UNKNOWN .. PERF_BR_NO_TX
    return (mispred | predicted << 1 | in_tx << 2 | abort << 3 | cycles << 4 | btype << 20)


def side_band(pid, tid, t):
    """One record of each kind the kernel writes besides samples, comm and mmap."""
    tr = lambda k: trailer(pid, tid, t + k, 1)
    r = b""
    r += record(2, 0, struct.pack("<QQ", 1, 7) + tr(0))  # LOST: id, lost
    r += record(5, 0, struct.pack("<QQQ", t, 1, 1) + tr(1))  # THROTTLE: time, id, stream_id
    r += record(6, 0, struct.pack("<QQQ", t + 9, 1, 1) + tr(2))  # UNTHROTTLE
    r += record(7, 0, struct.pack("<IIIIQ", pid + 1, pid, tid + 1, tid, t + 3) + tr(3))  # FORK
    r += record(8, 0, struct.pack("<IIQ", pid, tid, 12345) + tr(4))  # READ (read_format 0)
    r += record(11, 0, struct.pack("<QQQ", 0x1000, 0x200, 1) + tr(5))  # AUX: offset, size, flags
    r += record(11, 0, struct.pack("<QQQ", 0x1200, 0x80, 0x10e) + tr(5))
    r += record(12, 0, struct.pack("<II", pid, tid) + tr(6))  # ITRACE_START
    r += record(13, 0, struct.pack("<Q", 3) + tr(7))  # LOST_SAMPLES
    r += record(14, 0x2000, tr(8))  # SWITCH out
    r += record(14, 0, tr(9))  # SWITCH in
    r += record(15, 0x2000, struct.pack("<II", pid + 5, tid + 5) + tr(10))  # SWITCH_CPU_WIDE
    r += record(16, 0, struct.pack("<IIQ", pid, tid, 2) + struct.pack("<QQQQ", 3, 4026531836,
                                                                       4, 4026531840) + tr(11))
    r += record(17, 0, struct.pack("<QIHH", 0xffffffffa0001000, 0x80, 1, 0)
                + pad8(b"bpf_prog_123_foo\0") + tr(12))  # KSYMBOL
    r += record(18, 0, struct.pack("<HHI", 1, 0, 42) + bytes(range(20)) + b"\0" * 4 + tr(13))  # BPF_EVENT
    r += record(19, 0, struct.pack("<Q", 7) + pad8(b"/sys/fs/cgroup/user\0") + tr(14))  # CGROUP
    r += record(20, 0, struct.pack("<QHH", 0xffffffff81000100, 2, 2) + b"\x90\x90\xcc\xcc"
                + tr(15))  # TEXT_POKE: addr, old_len, new_len, the old and new bytes
    r += record(21, 0, struct.pack("<Q", 99) + tr(16))  # AUX_OUTPUT_HW_ID
    r += record(4, 0, struct.pack("<IIIIQ", pid + 1, pid, tid + 1, tid, t + 20) + tr(17))  # EXIT
    r += record(8, 0, struct.pack("<IIQ", pid, tid, 99999) + tr(18))  # READ again
    return r


def main():
    out, kind, elf = sys.argv[1:4]
    fns = functions(elf)
    if len(fns) < 4:
        sys.exit("gen-perfdata: %s has fewer than 4 function symbols" % elf)
    with open(elf, "rb") as f:
        ehdr = f.read(18)
    if ehdr[:4] != b"\x7fELF" or struct.unpack("<H", ehdr[16:18])[0] != 3:
        sys.exit("gen-perfdata: %s is not a position-independent executable" % elf)
    size = os.path.getsize(elf)

    pid = tid = 4242
    st = S["IP"] | S["TID"] | S["TIME"] | S["CPU"] | S["PERIOD"]
    typ, config, period, btype, ru, ri = 0, 0, 4000, 0, 0, 0  # cycles
    if kind.startswith("branch"):
        st |= S["BRANCH_STACK"]
        btype = BRANCH_USER | BRANCH_ANY | (BRANCH_HW_INDEX if kind == "branch-hwidx" else 0)
    elif kind == "regs":
        st |= S["REGS_USER"] | S["REGS_INTR"]
        ru = (1 << 0) | (1 << 6) | (1 << 7) | (1 << 8) | (1 << 16) | (1 << 23)  # AX BP SP IP R8 R15
        ri = (1 << 1) | (1 << 2) | (1 << 9) | (1 << 10)  # BX CX FLAGS CS
    elif kind.startswith("mem"):
        typ, config = 4, 0x1CD  # raw, as a PEBS load-latency event
        st |= S["ADDR"] | S["DATA_SRC"] | S["PHYS_ADDR"] | S["DATA_PAGE_SIZE"] | S["CODE_PAGE_SIZE"]
        st |= S["WEIGHT_STRUCT"] if kind == "mem-struct" else S["WEIGHT"]
    elif kind == "bts":
        config, period = 4, 1  # branches, every one: perf's BTS layout
        st |= S["ADDR"]
    elif kind == "bpf":
        typ, config, period = 1, 10, 1  # a BPF output event (software), raw payloads
        st |= S["RAW"]
    elif kind == "records":
        pass
    elif kind == "mixed":
        st |= S["ADDR"] | S["BRANCH_STACK"] | S["REGS_USER"] | S["WEIGHT"] | S["DATA_SRC"]
        btype = BRANCH_USER | BRANCH_ANY
        ru = (1 << 8) | (1 << 7)
    else:
        sys.exit("gen-perfdata: unknown kind '%s'" % kind)

    data = b""
    t = 1000000000
    # the kernel's map as perf record writes it, so that perf and pcl both
    # look kernel addresses up in this machine's /proc/kallsyms
    with open("/proc/kallsyms") as f:
        ktext = next((int(l.split()[0], 16) for l in f if l.split()[2:3] == ["_text"]), 0)
    if ktext:
        data += record(1, 1, struct.pack("<IIQQQ", 0xFFFFFFFF, 0, ktext, 0xFFFFFFFFFFFFFFFF - ktext,
                                          ktext) + pad8(b"[kernel.kallsyms]_text\0")
                       + trailer(0xFFFFFFFF, 0xFFFFFFFF, 0, 0))
    comm = pad8(b"gen-target\0")
    data += record(3, 0x2000, struct.pack("<II", pid, tid) + comm + trailer(pid, tid, t, 0))
    fname = pad8(elf.encode() + b"\0")
    mm = struct.pack("<IIQQQIIQQII", pid, tid, BASE, (size + 4095) & ~4095, 0, 8, 1, 1234, 0,
                     5, 2) + fname
    data += record(10, 2, mm + trailer(pid, tid, t + 1, 0))
    if kind == "records":
        data += side_band(pid, tid, t + 2)
    for i in range(24):
        t += 250000 + i * 17
        fn = fns[(i * 5) % len(fns)]
        ip = BASE + fn[0] + (i % max(1, fn[1]))
        kernel = kind != "bts" and i % 11 == 10
        if kernel:
            ip = KADDR + i
        b = struct.pack("<QIIQIIQ", ip, pid, tid, t, i % 2, 0, period)
        if st & S["ADDR"]:
            to = fns[(i * 3 + 1) % len(fns)]
            addr = BASE + to[0] if kind == "bts" else 0x7FFD00001000 + i * 64
            if kind == "bts" and i % 6 == 5:
                addr = 0
            b = struct.pack("<QIIQQIIQ", ip, pid, tid, t, addr, i % 2, 0, period)
        if st & S["RAW"]:
            payload = [b"hello, world\0\0\0\0", bytes(range(i, i + 13)), b"x" * 20 + b"\0",
                       b"ab\0c\0", b"", b"\0\0\0\0\0\0\0\0\0"][i % 6]
            raw = payload + b"\0" * (-(len(payload) + 4) % 8)
            b += struct.pack("<I", len(raw)) + raw
        if st & S["BRANCH_STACK"]:
            nr = i % 5
            b += struct.pack("<Q", nr)
            if btype & BRANCH_HW_INDEX:
                b += struct.pack("<Q", (i * 3) % 32)
            for j in range(nr):
                src = fns[(i + j) % len(fns)]
                dst = fns[(i + 2 * j + 1) % len(fns)]
                frm = BASE + src[0] + (j % max(1, src[1]))
                to = BASE + dst[0]
                if (i + j) % 9 == 8:
                    frm = KADDR + j * 16
                b += struct.pack("<QQQ", frm, to, branch_flags(i + j))
        if st & S["REGS_USER"]:
            if i % 6 == 5:
                b += struct.pack("<Q", 0)  # PERF_SAMPLE_REGS_ABI_NONE
            else:
                b += struct.pack("<Q", 2) + b"".join(
                    struct.pack("<Q", 0x1000 * i + r) for r in range(bin(ru).count("1")))
        if st & (S["WEIGHT"] | S["WEIGHT_STRUCT"]):
            if st & S["WEIGHT_STRUCT"]:
                b += struct.pack("<IHH", 100 + i, 7 * i, 3)
            else:
                b += struct.pack("<Q", 100 + i * 13)
        if st & S["DATA_SRC"]:
            # perf_mem_data_src: op 0, lvl 5, snoop 19, lock 24, dtlb 26,
            # lvl_num 33, remote 37, snoopx 38, blk 40, hops 43
            src = [0x68100142, 0x6a100842, 0x68200122, 0x1a40101042,
                   4 | (8 | 4) << 5 | 1 << 19 | 1 << 24 | 1 << 26,
                   8 | 2 << 5 | 0xC << 33 | 1 << 37 | 2 << 43,
                   16 | 16 << 19 | 2 << 38 | 6 << 40 | 2 << 24 | (32 | 64 | 4) << 26,
                   1, 0, 3 << 33 | 0x80 << 5 | 1 << 40,
                   9 << 33 | 1 << 37 | 0x1000 << 5 | 2 << 5 | 4 << 19,
                   0xF << 33 | 4 << 43 | 1 << 38, 2 | 0x10 << 5 | 0xA << 33 | 0x400 << 5][i % 13]
            b += struct.pack("<Q", src)
        if st & S["REGS_INTR"]:
            b += struct.pack("<Q", 2) + b"".join(
                struct.pack("<Q", 0xffff0000 + 0x100 * i + r) for r in range(bin(ri).count("1")))
        if st & S["PHYS_ADDR"]:
            b += struct.pack("<Q", 0x12345000 + i * 0x40)
        if st & S["DATA_PAGE_SIZE"]:
            b += struct.pack("<Q", [4096, 2 << 20, 1 << 30, 0][i % 4])
        if st & S["CODE_PAGE_SIZE"]:
            b += struct.pack("<Q", [4096, 0, 2 << 20][i % 3])
        data += record(9, 1 if kernel else 2, b)
    # no FINISHED_ROUND: perf -D dumps queued records at each round, pcl in file order

    a = attr(typ, config, period, st, btype, ru, ri)
    hdr_size, attr_off = 104, 104
    data_off = attr_off + len(a) + 16
    hdr = struct.pack("<8sQQQQQQQQ4Q", b"PERFILE2", hdr_size, 144, attr_off, len(a) + 16,
                      data_off, len(data), 0, 0, 0, 0, 0, 0)
    ids = struct.pack("<QQ", 0, 0)
    with open(out, "wb") as f:
        f.write(hdr + a + ids + data)


if __name__ == "__main__":
    main()
