#!/usr/bin/env python3
"""firefox-check.py FILE VERSION [NAME]: check FILE against the Gecko profile
format (the Firefox Profiler's import format) of version VERSION, as
firefox-devtools/profiler documents it (src/types/gecko-profile.ts,
docs-developer/gecko-profile-format.md).

Checked: the top-level keys; meta (version, interval, startTime, the
categories with a grey default one, the marker schemas); libs; and in every
thread the tables' schemas and that each index points where it should: a
stack's prefix is null or an earlier stack, its frame a frame; a frame's
location a string, its category and subcategory listed in meta; a sample's
stack a stack, sample times non-decreasing; a marker's name a string, its
start <= end, its data type a schema in meta.markerSchema.

On success prints one line of words "key=value": threads= samples= (all
threads) markers= blocked= (markers with data.preempted false) offcpu=
(samples whose leaf frame is in the category named Off-CPU: pcl report
--wall's off-CPU time, one sample per sampling interval) and, with
NAME, in= (the comma-separated names of the threads whose string table holds
NAME as a function: "NAME", "NAME (in LIB)" or "NAME (FILE:LINE)"); then one line per thread,
"thread<TAB>PID/TID<TAB>SAMPLES<TAB>NAME". On failure prints the problems
found (at most 20) and exits 1.
"""
import json
import sys

problems = []


def bad(msg):
    problems.append(msg)
    if len(problems) >= 20:
        finish()


def finish():
    if problems:
        print("\n".join(problems))
        sys.exit(1)


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def table(thread, key, want, where):
    """The rows of thread[key] as dicts by schema name; checks the schema holds @want."""
    t = thread.get(key)
    if not isinstance(t, dict) or not isinstance(t.get("schema"), dict) or not isinstance(t.get("data"), list):
        bad(f"{where}: {key} is not a {{schema, data}} table")
        return []
    schema = t["schema"]
    missing = [k for k in want if k not in schema]
    if missing:
        bad(f"{where}: {key}.schema lacks {missing}")
        return []
    if not all(is_int(i) and i >= 0 for i in schema.values()):
        bad(f"{where}: {key}.schema has a non-index value: {schema}")
        return []
    rows = []
    for n, row in enumerate(t["data"]):
        if not isinstance(row, list):
            bad(f"{where}: {key}.data[{n}] is not an array")
            return []
        # a row may be short: the missing entries are null
        rows.append({k: (row[i] if i < len(row) else None) for k, i in schema.items()})
    return rows


def check_meta(meta, version):
    if not isinstance(meta, dict):
        bad("meta is not an object")
        finish()
    if meta.get("version") != version:
        bad(f"meta.version is {meta.get('version')!r}, want {version}")
    for k in ("interval", "startTime"):
        if not is_num(meta.get(k)):
            bad(f"meta.{k} is not a number: {meta.get(k)!r}")
    if is_num(meta.get("interval")) and meta["interval"] <= 0:
        bad(f"meta.interval is {meta['interval']}, want > 0")
    if meta.get("stackwalk") not in (0, 1):
        bad(f"meta.stackwalk is {meta.get('stackwalk')!r}")
    if not is_int(meta.get("processType")):
        bad(f"meta.processType is {meta.get('processType')!r}")
    cats = meta.get("categories")
    if not isinstance(cats, list) or not cats:
        bad("meta.categories is missing or empty")
        cats = []
    for i, c in enumerate(cats):
        if not (isinstance(c, dict) and isinstance(c.get("name"), str) and isinstance(c.get("color"), str)
                and isinstance(c.get("subcategories"), list) and c["subcategories"]):
            bad(f"meta.categories[{i}] is not {{name, color, subcategories: [...]}}: {c!r}")
    if cats and not any(isinstance(c, dict) and c.get("color") == "grey" for c in cats):
        bad("meta.categories has no grey (default) category")
    schemas = meta.get("markerSchema")
    if not isinstance(schemas, list):
        bad("meta.markerSchema is not an array")
        schemas = []
    names = set()
    for s in schemas:
        if not (isinstance(s, dict) and isinstance(s.get("name"), str) and isinstance(s.get("display"), list)
                and isinstance(s.get("data"), list)):
            bad(f"a marker schema is not {{name, display, data}}: {s!r}")
            continue
        names.add(s["name"])
        for fld in s["data"]:
            if not (isinstance(fld, dict) and (("key" in fld and "format" in fld) or ("label" in fld and "value" in fld))):
                bad(f"marker schema {s['name']}: a field is neither {{key, format}} nor {{label, value}}: {fld!r}")
    return cats, names


def check_libs(libs):
    if not isinstance(libs, list):
        bad("libs is not an array")
        return
    for i, lib in enumerate(libs):
        if not isinstance(lib, dict):
            bad(f"libs[{i}] is not an object")
            continue
        for k in ("name", "path", "debugName", "debugPath", "breakpadId", "arch"):
            if not isinstance(lib.get(k), str):
                bad(f"libs[{i}].{k} is not a string: {lib.get(k)!r}")
        for k in ("start", "end", "offset"):
            if not is_num(lib.get(k)):
                bad(f"libs[{i}].{k} is not a number: {lib.get(k)!r}")
        if is_num(lib.get("start")) and is_num(lib.get("end")) and lib["start"] > lib["end"]:
            bad(f"libs[{i}]: start > end")


def check_thread(th, n, cats, schema_names, counts, hot):
    where = f"threads[{n}]"
    if not isinstance(th, dict):
        bad(f"{where} is not an object")
        return
    where = f"threads[{n}] ({th.get('name')!r})"
    if not isinstance(th.get("name"), str) or not isinstance(th.get("processType"), str):
        bad(f"{where}: name or processType is not a string")
    for k in ("pid", "tid"):
        if not is_int(th.get(k)):
            bad(f"{where}: {k} is not an integer: {th.get(k)!r}")
    if not is_num(th.get("registerTime")):
        bad(f"{where}: registerTime is not a number")
    if th.get("unregisterTime") is not None and not is_num(th.get("unregisterTime")):
        bad(f"{where}: unregisterTime is neither null nor a number")
    strings = th.get("stringTable")
    if not isinstance(strings, list) or not all(isinstance(s, str) for s in strings):
        bad(f"{where}: stringTable is not an array of strings")
        return
    frames = table(th, "frameTable", ("location", "relevantForJS", "innerWindowID", "implementation",
                                      "line", "column", "category", "subcategory"), where)
    stacks = table(th, "stackTable", ("prefix", "frame"), where)
    samples = table(th, "samples", ("stack", "time"), where)
    markers = table(th, "markers", ("name", "startTime", "endTime", "phase", "category", "data"), where)
    sschema = th["samples"]["schema"] if isinstance(th.get("samples"), dict) else {}
    if "eventDelay" not in sschema and "responsiveness" not in sschema:
        bad(f"{where}: samples.schema has neither eventDelay nor responsiveness")
    for i, f in enumerate(frames):
        if not (is_int(f["location"]) and 0 <= f["location"] < len(strings)):
            bad(f"{where}: frame {i}: location {f['location']!r} is not in the string table ({len(strings)})")
        c, sc = f["category"], f["subcategory"]
        if c is not None:
            if not (is_int(c) and 0 <= c < len(cats)):
                bad(f"{where}: frame {i}: category {c!r} is not in meta.categories")
            elif not (is_int(sc) and 0 <= sc < len(cats[c].get("subcategories", []))):
                bad(f"{where}: frame {i}: subcategory {sc!r} is not in category {c}")
        if not isinstance(f["relevantForJS"], bool):
            bad(f"{where}: frame {i}: relevantForJS is not a boolean")
    for i, s in enumerate(stacks):
        p = s["prefix"]
        if p is not None and not (is_int(p) and 0 <= p < i):
            bad(f"{where}: stack {i}: prefix {p!r} is neither null nor an earlier stack")
        if not (is_int(s["frame"]) and 0 <= s["frame"] < len(frames)):
            bad(f"{where}: stack {i}: frame {s['frame']!r} is not in the frame table ({len(frames)})")
    off = [i for i, c in enumerate(cats) if isinstance(c, dict) and c.get("name") == "Off-CPU"]
    last = None
    for i, s in enumerate(samples):
        st = s["stack"]
        if (off and is_int(st) and 0 <= st < len(stacks) and is_int(stacks[st]["frame"])
                and 0 <= stacks[st]["frame"] < len(frames)
                and frames[stacks[st]["frame"]]["category"] in off):
            counts["offcpu"] += 1
        if st is not None and not (is_int(st) and 0 <= st < len(stacks)):
            bad(f"{where}: sample {i}: stack {st!r} is not in the stack table ({len(stacks)})")
        t = s["time"]
        if not is_num(t):
            bad(f"{where}: sample {i}: time {t!r} is not a number")
        elif last is not None and t < last:
            bad(f"{where}: sample {i}: time {t} goes back from {last}")
        else:
            last = t
    for i, m in enumerate(markers):
        if not (is_int(m["name"]) and 0 <= m["name"] < len(strings)):
            bad(f"{where}: marker {i}: name {m['name']!r} is not in the string table")
        if m["phase"] not in (0, 1, 2, 3):
            bad(f"{where}: marker {i}: phase {m['phase']!r}")
        st, en = m["startTime"], m["endTime"]
        if m["phase"] == 1:
            if not (is_num(st) and is_num(en)) or st > en:
                bad(f"{where}: marker {i}: interval from {st!r} to {en!r}")
        if not (is_int(m["category"]) and 0 <= m["category"] < len(cats)):
            bad(f"{where}: marker {i}: category {m['category']!r} is not in meta.categories")
        d = m["data"]
        if d is not None:
            if not isinstance(d, dict):
                bad(f"{where}: marker {i}: data is not an object")
            elif "type" in d and d["type"] not in schema_names:
                bad(f"{where}: marker {i}: data.type {d['type']!r} has no marker schema")
            elif d.get("preempted") is False:
                counts["blocked"] += 1
    counts["threads"].append(f"thread\t{th.get('pid')}/{th.get('tid')}\t{len(samples)}\t{th.get('name')}")
    counts["samples"] += len(samples)
    counts["markers"] += len(markers)
    if hot and any(s == hot or s.startswith(hot + " (") for s in strings):
        counts["in"].append(th.get("name", ""))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    try:
        with open(sys.argv[1], encoding="utf-8") as fh:
            doc = json.load(fh)
    except (OSError, ValueError) as e:
        print(f"{sys.argv[1]}: not JSON: {e}")
        sys.exit(1)
    version = int(sys.argv[2])
    hot = sys.argv[3] if len(sys.argv) > 3 else None
    if not isinstance(doc, dict):
        print("the document is not an object")
        sys.exit(1)
    for k, typ in (("meta", dict), ("libs", list), ("threads", list), ("processes", list), ("pausedRanges", list)):
        if not isinstance(doc.get(k), typ):
            bad(f"top level: {k} is missing or not a{'n object' if typ is dict else 'n array'}")
    finish()
    cats, names = check_meta(doc["meta"], version)
    check_libs(doc["libs"])
    counts = {"samples": 0, "markers": 0, "blocked": 0, "offcpu": 0, "in": [], "threads": []}
    for n, th in enumerate(doc["threads"]):
        check_thread(th, n, cats, names, counts, hot)
    finish()
    words = [f"threads={len(doc['threads'])}", f"samples={counts['samples']}",
             f"markers={counts['markers']}", f"blocked={counts['blocked']}",
             f"offcpu={counts['offcpu']}"]
    if hot:
        words.append("in=" + ",".join(counts["in"]))
    print(" ".join(words))
    for line in counts["threads"]:
        print(line)


if __name__ == "__main__":
    main()
