#!/usr/bin/env python3
"""srcpos-dump.py FORMAT FILE: the source positions an export carries, one
fact a line, for tests/e2e/t-export-srcline.sh to compare with addr2line.

  pprof DECODED   (protoc --decode=perftools.profiles.Profile text)
    func NAME<TAB>FILENAME<TAB>START_LINE
    loc ROLE<TAB>ADDRESS<TAB>MAPPING-FILE<TAB>FILE-OFFSET<TAB>FLAT<TAB>NAME:LINE;NAME:LINE...
        ROLE: leaf (first in a sample), ret (after a frame of the same
        mapping kind: a return address), other; ADDRESS and FILE-OFFSET in
        hex (the address moved into its mapping's file); FLAT the samples
        it is the leaf of; the lines innermost first ("-" for none).
    flags MAPPING-FILE<TAB>has_filenames has_line_numbers has_inline_frames
  firefox JSON
    location STRING
    frame NAME<TAB>LINE<TAB>LEAF-SAMPLES   (NAME: the location string up to " (")
  speedscope JSON
    frame NAME<TAB>FILE<TAB>LINE
"""
import json
import sys
from collections import defaultdict


def parse_text(path):
    """protoc's text format as nested dicts of lists."""
    root = {}
    stack = [root]
    with open(path, encoding="utf-8", errors="replace") as fh:
        for raw in fh:
            line = raw.strip()
            if not line:
                continue
            if line.endswith("{"):
                m = {}
                stack[-1].setdefault(line[:-1].strip(), []).append(m)
                stack.append(m)
            elif line == "}":
                stack.pop()
            else:
                k, _, v = line.partition(": ")
                if v.startswith('"'):
                    v = bytes(v[1:-1], "utf-8").decode("unicode_escape").encode("latin-1").decode(
                        "utf-8", "replace")
                stack[-1].setdefault(k, []).append(v)
    return root


def one(m, k, default="0"):
    return m.get(k, [default])[0]


def pprof(path):
    p = parse_text(path)
    st = p.get("string_table", [])
    s = lambda i: st[int(i)] if int(i) < len(st) else "?"
    funcs = {one(f, "id"): f for f in p.get("function", [])}
    maps = {one(m, "id"): m for m in p.get("mapping", [])}
    locs = {one(l, "id"): l for l in p.get("location", [])}
    for f in funcs.values():
        print(f"func {s(one(f, 'name'))}\t{s(one(f, 'filename'))}\t{one(f, 'start_line')}")
    for m in maps.values():
        flags = " ".join(k for k in ("has_filenames", "has_line_numbers", "has_inline_frames")
                         if one(m, k, "false") == "true")
        print(f"flags {s(one(m, 'filename'))}\t{flags}")
    flat = defaultdict(int)
    role = {}

    def kernel(lid):
        m = maps.get(one(locs[lid], "mapping_id"))
        return m is not None and s(one(m, "filename")).startswith("[")

    for sm in p.get("sample", []):
        ids = sm.get("location_id", [])
        if ids:
            flat[ids[0]] += int(sm.get("value", ["0"])[0])
            role[ids[0]] = "leaf"
        for i in range(1, len(ids)):
            if ids[i] in locs and ids[i - 1] in locs and ids[i] not in role:
                role[ids[i]] = "ret" if kernel(ids[i]) == kernel(ids[i - 1]) else "other"
    for lid, l in locs.items():
        m = maps.get(one(l, "mapping_id"))
        addr = int(one(l, "address"))
        off = addr - int(one(m, "memory_start")) + int(one(m, "file_offset")) if m else addr
        lines = ";".join(f"{s(one(funcs.get(one(ln, 'function_id'), {}), 'name'))}:{one(ln, 'line')}"
                         for ln in l.get("line", [])) or "-"
        print(f"loc {role.get(lid, 'other')}\t{addr:x}\t{s(one(m, 'filename')) if m else ''}\t"
              f"{off:x}\t{flat[lid]}\t{lines}")


def firefox(path):
    with open(path, encoding="utf-8") as fh:
        doc = json.load(fh)
    counts = defaultdict(int)
    for th in doc["threads"]:
        strings = th["stringTable"]
        fs, ss = th["frameTable"]["schema"], th["stackTable"]["schema"]
        frames, stacks = th["frameTable"]["data"], th["stackTable"]["data"]
        for loc in {strings[f[fs["location"]]] for f in frames}:
            print(f"location {loc}")
        for sm in th["samples"]["data"]:
            st = sm[th["samples"]["schema"]["stack"]]
            if st is None:
                continue
            fr = frames[stacks[st][ss["frame"]]]
            name = strings[fr[fs["location"]]].split(" (")[0]
            counts[(name, fr[fs["line"]])] += 1
    for (name, line), n in counts.items():
        print(f"frame {name}\t{line}\t{n}")


def speedscope(path):
    with open(path, encoding="utf-8") as fh:
        doc = json.load(fh)
    for f in doc["shared"]["frames"]:
        print(f"frame {f['name']}\t{f.get('file', '')}\t{f.get('line', '')}")


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("pprof", "firefox", "speedscope"):
        sys.exit(__doc__)
    {"pprof": pprof, "firefox": firefox, "speedscope": speedscope}[sys.argv[1]](sys.argv[2])
