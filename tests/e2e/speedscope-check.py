#!/usr/bin/env python3
"""speedscope-check.py FILE [--schema SCHEMA] [--frame NAME]: check a speedscope
file-format document.

With --schema, FILE must validate against that JSON schema (speedscope's
file-format-schema.json) with python3's jsonschema module. Always checked:
every profile is "sampled", its samples and weights are as many, its
samples' frame indices are in shared.frames, endValue - startValue is the
sum of its weights (what speedscope takes as the profile's total), its unit
"nanoseconds" or "none" (then every weight is 1), and activeProfileIndex
names a profile with the most samples.

On success prints a line of words "key=value": profiles= samples= (all
profiles) units= (the units used, comma-separated) and, with --frame, pct= (the percentage of samples whose stack
holds a frame named NAME, one decimal); then one line per profile,
"profile<TAB>NAME<TAB>SAMPLES". On failure prints the problems (at most 20)
and exits 1; exits 2 when --schema is given and jsonschema is missing.
"""
import argparse
import json
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--schema")
    ap.add_argument("--frame")
    a = ap.parse_args()
    try:
        with open(a.file, encoding="utf-8") as fh:
            doc = json.load(fh)
    except (OSError, ValueError) as e:
        print(f"{a.file}: not JSON: {e}")
        return 1
    problems = []
    if a.schema:
        try:
            import jsonschema
        except ImportError:
            print("python3 has no jsonschema module")
            return 2
        with open(a.schema, encoding="utf-8") as fh:
            schema = json.load(fh)
        v = jsonschema.Draft7Validator(schema)
        for e in list(v.iter_errors(doc))[:10]:
            problems.append(f"schema: at {'/'.join(map(str, e.absolute_path))}: {e.message[:200]}")
    if not isinstance(doc, dict) or not isinstance(doc.get("profiles"), list) or \
            not isinstance(doc.get("shared"), dict) or not isinstance(doc["shared"].get("frames"), list):
        problems.append("not a speedscope file: no profiles or shared.frames")
        print("\n".join(problems))
        return 1
    frames = doc["shared"]["frames"]
    want = {i for i, f in enumerate(frames) if isinstance(f, dict) and f.get("name") == a.frame}
    total = hits = 0
    counts = []
    for n, p in enumerate(doc["profiles"]):
        where = f"profiles[{n}] ({p.get('name')!r})"
        s, w = p.get("samples"), p.get("weights")
        if p.get("type") != "sampled" or not isinstance(s, list) or not isinstance(w, list):
            problems.append(f"{where}: not a sampled profile with samples and weights")
            continue
        if len(s) != len(w):
            problems.append(f"{where}: {len(s)} samples but {len(w)} weights")
        for i, st in enumerate(s):
            if not all(isinstance(x, int) and 0 <= x < len(frames) for x in st):
                problems.append(f"{where}: sample {i}: a frame index out of 0..{len(frames) - 1}: {st}")
                break
        if p.get("unit") not in ("nanoseconds", "none"):
            problems.append(f"{where}: unit {p.get('unit')!r}")
        elif p["unit"] == "none" and any(x != 1 for x in w):
            problems.append(f"{where}: unit none with weights other than 1")
        if p.get("endValue", 0) - p.get("startValue", 0) != sum(w):
            problems.append(f"{where}: endValue - startValue = {p.get('endValue', 0) - p.get('startValue', 0)},"
                            f" the weights sum to {sum(w)}")
        total += len(s)
        hits += sum(1 for st in s if want.intersection(st))
        counts.append((p.get("name", ""), len(s)))
    ai = doc.get("activeProfileIndex", 0)
    if counts and (not isinstance(ai, int) or not 0 <= ai < len(counts) or
                   counts[ai][1] != max(c for _, c in counts)):
        problems.append(f"activeProfileIndex {ai!r} is not a profile with the most samples")
    if problems:
        print("\n".join(problems[:20]))
        return 1
    units = sorted({p.get("unit") for p in doc["profiles"]})
    words = [f"profiles={len(counts)}", f"samples={total}", "units=" + ",".join(units)]
    if a.frame:
        words.append(f"pct={100.0 * hits / total if total else 0:.1f}")
    print(" ".join(words))
    for name, c in counts:
        print(f"profile\t{name}\t{c}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
