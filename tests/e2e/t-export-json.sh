#!/usr/bin/env bash
# pcl report --format=json holds the report's own rows: for the hot
# workload recorded by pcl and by perf, the JSON entries (overhead, comm,
# dso, symbol) are the rows of pcl report --stdio and of perf report
# --stdio with the same options (overheads within 0.01; a PLT slot is one
# name whatever each tool calls it), with --no-children and --children; the
# call tree of hot_leaf runs through middle, outer and main; the header says
# which file it is; filters and --percent-limit apply; -o writes the same
# document whole, and a bad -o fails cleanly.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/report-lib.sh"

if ! command -v python3 >/dev/null 2>&1; then
	skip export-json "python3 is not installed (it parses the JSON)"
	exit 0
fi
if ! have_perf; then
	skip export-json "perf is not installed"
	exit 0
fi

# table.py JSON OUT: the JSON report as 'report --stdio' text that rows.pl
# reads: per event a '# Samples' line, the column names, the dots, then one
# line per entry. Exit 1 (with the reason) if it is not the document it
# should be: an object with a header and events, each entry with its fields.
cat >"$TMP/table.py" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
    assert isinstance(d, dict), "not an object"
    assert isinstance(d.get("header"), dict), "no header object"
    assert isinstance(d.get("events"), list), "no events array"
except Exception as e:
    sys.exit("%s: %s" % (sys.argv[1], e))
titles = {"comm": "Command", "dso": "Shared Object", "sym": "Symbol"}
out = open(sys.argv[2], "w")
for ev in d["events"]:
    for k in ("name", "samples", "event_count", "sort", "entries"):
        if k not in ev:
            sys.exit("event without '%s'" % k)
    keys = [k for k in ev["sort"] if k in titles]
    children = any("children" in e for e in ev["entries"])
    nums = ["Children", "Self"] if children else ["Overhead"]
    rows = []
    for e in ev["entries"]:
        cells = [e["children"], e["self"]] if children else [e["overhead"]]
        row = ["%7.2f%%" % v for v in cells]
        for k in keys:
            row.append("[%s] %s" % (e["level"], e["symbol"]) if k == "sym" else e[k])
        rows.append(row)
    cols = nums + [titles[k] for k in keys]
    w = [max([len(c)] + [len(r[i]) for r in rows]) for i, c in enumerate(cols)]
    out.write("# Samples: %d of event '%s'\n" % (ev["samples"], ev["name"]))
    out.write("# " + "  ".join(c.ljust(w[i]) for i, c in enumerate(cols)) + "\n")
    out.write("# " + "  ".join("." * x for x in w) + "\n#\n")
    for r in rows:
        out.write("  " + "  ".join(v.rjust(w[i]) if i < len(nums) else v.ljust(w[i])
                                    for i, v in enumerate(r)) + "\n")
    out.write("\n")
PY

# tree.py JSON SYM: the heaviest path down the call tree of entry SYM, one name a line.
cat >"$TMP/tree.py" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for ev in d["events"]:
    for e in ev["entries"]:
        if e.get("symbol") != sys.argv[2]:
            continue
        nodes = e.get("callchain", [])
        while nodes:
            n = max(nodes, key=lambda n: n["period"])
            print(n["symbol"])
            nodes = n["children"]
        sys.exit(0)
sys.exit("no entry '%s'" % sys.argv[2])
PY

plt() { sed -i -E 's/(^|[ -])(_init|[^ -]+@plt)( *)$/\1[plt slot]\3/' "$@"; }

# rows_vs NAME ORACLE_OUT JSON_TABLE DESC: the entries of the two within 0.01.
rows_vs() {
	local name=$1 a=$2 b=$3 desc=$4 rc
	perl "$TMP/rows.pl" cmp "$a" "$b" 0.01 >"$TMP/$name.cmp" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		ok "$name"
	elif [ $rc -eq 2 ]; then
		not_ok "$name" "oracle: $desc shows no entry:" "$(show "$a" 20)"
	else
		perl "$TMP/rows.pl" table "$a" >"$TMP/$name.a.rows"
		perl "$TMP/rows.pl" table "$b" >"$TMP/$name.b.rows"
		not_ok "$name" "JSON entries differ from $desc (overheads within 0.01):" "$(cat "$TMP/$name.cmp")" \
			"$(diff -u --label "$desc" --label json "$TMP/$name.a.rows" "$TMP/$name.b.rows" | head -30)"
	fi
}

# check_json ID FILE OPTS...: the JSON report of FILE with OPTS against pcl's
# and perf's --stdio reports with the same OPTS.
check_json() {
	local id=$1 f=$2
	shift 2
	run_long "$id.json" 60 "$PCL" report -i "$f" --format=json "$@"
	if [ "$RC" -ne 0 ] || crashed "$TMP/$id.json.err" "$RC"; then
		not_ok "export-json-$id" "pcl report --format=json $*: exit $RC (want 0)" "$(show "$TMP/$id.json.err")"
		return 1
	fi
	if ! python3 "$TMP/table.py" "$TMP/$id.json.out" "$TMP/$id.table" 2>"$TMP/$id.table.err"; then
		not_ok "export-json-$id" "pcl report --format=json $*: not the JSON document it should be:" \
			"$(show "$TMP/$id.table.err")" "$(head -c 600 "$TMP/$id.json.out")"
		return 1
	fi
	ok "export-json-$id"
	report_pair "$id" "$f" "$@"
	if [ "$PRC" -ne 0 ] || [ "$CRC" -ne 0 ]; then
		not_ok "export-json-$id-rows" "perf report exit $PRC, pcl report exit $CRC (want 0, 0)" \
			"$(show "$TMP/$id.perf.err")" "$(show "$TMP/$id.pcl.err")"
		return 1
	fi
	plt "$TMP/$id.perf.out" "$TMP/$id.pcl.out" "$TMP/$id.table"
	rows_vs "export-json-$id-vs-pcl" "$TMP/$id.pcl.out" "$TMP/$id.table" "pcl report --stdio $*"
	rows_vs "export-json-$id-vs-perf" "$TMP/$id.perf.out" "$TMP/$id.table" "perf report --stdio $*"
}

fp=1
if ! hot=$(workload_fp hot); then
	skip export-json-tree "clang is not installed (scripts/deps.sh): no exact call chains"
	hot=$(workload hot)
	fp=
fi
for by in pcl perf; do
	F=$TMP/hot-$by.data
	record_to export-json "$by" "hot-$by" -g -F 2000 -o "$F" -- "$hot" 300 || continue
	check_json "$by-self" "$F" --no-children
	check_json "$by-children" "$F" --children
	check_json "$by-limit" "$F" --no-children --sort dso,sym --percent-limit 5
	if [ -n "$fp" ] && [ -s "$TMP/$by-self.json.out" ]; then
		python3 "$TMP/tree.py" "$TMP/$by-self.json.out" hot_leaf >"$TMP/$by.tree" 2>&1
		got=$(tr '\n' ' ' <"$TMP/$by.tree")
		if [[ "$got" == "hot_leaf middle outer main "* ]]; then
			ok "export-json-$by-tree"
		else
			not_ok "export-json-$by-tree" "hot_leaf's heaviest call path (callee first): want" \
				"hot_leaf middle outer main ..., got: $got"
		fi
	fi
done

J=$TMP/pcl-self.json.out
if [ -s "$J" ]; then
	# the header: the file read, its host, no lost samples
	hdr=$(python3 -c '
import json, sys
h = json.load(open(sys.argv[1]))["header"]
print(h.get("file"), h.get("hostname") is not None, h.get("total_lost_samples"))' "$J" 2>&1)
	if [ "$hdr" = "$TMP/hot-pcl.data True 0" ]; then ok export-json-header; else
		not_ok export-json-header "want '$TMP/hot-pcl.data True 0' (file, has hostname, lost), got '$hdr'"
	fi
	# a filter that leaves nothing: no entries, still one event object
	run jf "$PCL" report -i "$TMP/hot-pcl.data" --format=json --comm=nosuchcomm
	n=$(python3 -c 'import json, sys; print(sum(len(e["entries"]) for e in json.load(open(sys.argv[1]))["events"]))' \
		"$TMP/jf.out" 2>&1)
	if [ "$RC" -eq 0 ] && [ "$n" = 0 ]; then ok export-json-filter; else
		not_ok export-json-filter "--comm=nosuchcomm: exit $RC, entries '$n' (want 0, 0)" "$(show "$TMP/jf.err")"
	fi
	# -o: the same document, written whole; a bad -o: one line, non-zero, no file
	run jo "$PCL" report -i "$TMP/hot-pcl.data" --format=json --no-children -o "$TMP/out.json"
	if [ "$RC" -eq 0 ] && [ ! -s "$TMP/jo.out" ] && cmp -s "$TMP/out.json" "$J" &&
		[ -z "$(ls "$TMP"/out.json.* 2>/dev/null)" ]; then
		ok export-json-output
	else
		not_ok export-json-output "-o: exit $RC, stdout $(wc -c <"$TMP/jo.out") bytes (want 0)," \
			"file equal to stdout's: $(cmp -s "$TMP/out.json" "$J" && echo yes || echo no)" "$(show "$TMP/jo.err")"
	fi
	run jb "$PCL" report -i "$TMP/hot-pcl.data" --format=json -o "$TMP/no/such/dir/x.json"
	if [ "$RC" -ne 0 ] && ! crashed "$TMP/jb.err" "$RC" && [ "$(wc -l <"$TMP/jb.err")" -eq 1 ] &&
		grep -q "no/such/dir" "$TMP/jb.err"; then
		ok export-json-bad-output
	else
		not_ok export-json-bad-output "-o into a missing directory: exit $RC, want one line naming it:" \
			"$(show "$TMP/jb.err")"
	fi
fi
