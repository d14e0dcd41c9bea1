#!/usr/bin/env bash
# pcl report --format=html: one self-contained page (lib/output/html.c),
# checked without a browser (tests/browser/check-page.js drives one). For
# recordings of the hot and threads workloads by pcl and of hot by perf:
# nothing on the page reaches outside the file; the embedded profile
# parses, is consistent, and counts exactly the samples perf counts in the
# file, with the periods the folded export sums; hot_leaf is the hottest function; each
# thread of the threads workload is there with its own burn_tK on top. A
# function whose symbol is HTML ("</script><b x='1'>&amp;{q}") comes
# through as data, not markup. -o into a missing directory fails cleanly.
# A function has the colour its SVG frames have (the page's pclColour), kernel
# frames teal and only they.
. "$(dirname "$0")/lib.sh"

if [ ! -x "$PCL" ]; then
	not_ok export-html-pcl-built "no executable at $PCL"
	exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
	skip export-html "python3 is needed to parse the page's JSON"
	exit 0
fi
HOT=$(workload hot) || { not_ok export-html-workload "cannot build tests/workloads/hot.c"; exit 0; }
THREADS=$(workload threads) || { not_ok export-html-workload "cannot build tests/workloads/threads.c"; exit 0; }

# page_facts PAGE: what the page holds, as "key value" lines (key "error"
# for each problem found): its external references, its elements, and the
# embedded profile's totals, hottest functions and threads.
page_facts() {
	python3 - "$1" <<'PY'
import json, re, sys
html = open(sys.argv[1], encoding='utf-8').read()
def out(k, v):
    print(k, v)
def err(msg):
    out('error', msg)
# nothing outside the file: no URL, no attribute or CSS that loads something
for pat, what in [(r'(?i)https?://', 'an http(s) URL'), (r'(?i)<link\b', 'a <link>'),
                  (r'(?i)<script\b[^>]*\bsrc\s*=', 'a <script src>'),
                  (r'(?i)<(img|iframe|object|embed|video|audio|source|base)\b', 'a loading element'),
                  (r'(?i)\s(src|href|srcset|action|poster|formaction)\s*=', 'a src/href attribute'),
                  (r'(?i)@import|url\s*\(', 'a CSS import or url()')]:
    m = re.search(pat, html)
    if m:
        err('%s: ...%s...' % (what, html[max(0, m.start() - 40):m.end() + 40].replace('\n', ' ')))
out('scripts', len(re.findall(r'(?i)<script\b', html)))
out('script_ends', len(re.findall(r'(?i)</script', html)))
for hook in ['<table id="functions">', 'id="flame"', '<select id="thread">', '<table id="callers">',
             '<table id="callees">', 'window.pclReady = true', 'window.pclFlame']:
    if hook not in html:
        err('no %r on the page' % hook)
m = re.search(r'<dt>samples</dt><dd>(\d+)</dd>', html)
out('fact_samples', m.group(1) if m else '-')
out('fact_event', 'yes' if '<dt>event</dt><dd>cpu-clock</dd>' in html else 'no')
out('fact_hostname', 'yes' if '<dt>hostname</dt>' in html else 'no')
out('title', 'yes' if '<title>pcl report</title>' in html else 'no')
m = re.search(r'<script type="application/json" id="pcl-data">(.*?)</script>', html, re.S)
if not m:
    err('no <script type="application/json" id="pcl-data">')
    sys.exit(0)
try:
    d = json.loads(m.group(1))
except ValueError as e:
    err('the embedded JSON does not parse: %s' % e)
    sys.exit(0)
fn, nodes, th, st = d['fname'], d['nodes'], d['threads'], d['stacks']
nf, nn, nt = len(fn), len(nodes) // 2 + 1, len(th) // 3
if len(d['fdso']) != nf or len(d['flevel']) != nf or any(not 0 <= x < len(d['dsos']) for x in d['fdso']):
    err('fdso/flevel do not match fname')
parent, func = [0] * nn, [-1] * nn
for i in range(1, nn):
    parent[i], func[i] = nodes[2 * i - 2], nodes[2 * i - 1]
    if not (0 <= parent[i] < i and 0 <= func[i] < nf):
        err('node %d: parent %d, func %d' % (i, parent[i], func[i]))
        sys.exit(0)
if len(st) % 4 or len(th) % 3:
    err('stacks or threads are not whole records')
count = period = 0
self_f = {}
tself = [dict() for _ in range(nt)]
tcount = [0] * nt
for k in range(0, len(st) - 3, 4):
    t, n, c, p = st[k:k + 4]
    if not (0 <= t < nt and 0 < n < nn and c > 0):
        err('stack %d: thread %d node %d count %d' % (k // 4, t, n, c))
        continue
    count += c
    period += p
    tcount[t] += c
    self_f[func[n]] = self_f.get(func[n], 0) + c
    tself[t][func[n]] = tself[t].get(func[n], 0) + c
out('samples', d['samples'])
out('sum_count', count)
out('period', d['period'])
out('sum_period', period)
out('icicle', d['icicle'])
top = max(self_f, key=self_f.get) if self_f else None
out('top', fn[top] if top is not None else '-')
out('top_pct', '%d' % (100 * self_f[top] // count) if count else '0')
out('funcs', '|'.join(fn))
# per thread: "comm:samples:hottest"
for t in range(nt):
    h = max(tself[t], key=tself[t].get) if tself[t] else None
    out('thread', '%s:%d:%s' % (th[3 * t + 2], tcount[t], fn[h] if h is not None else '-'))
PY
}
# fact KEY: the first value of KEY in $TMP/facts; facts_all KEY: every one.
fact() { awk -v k="$1" '$1 == k { sub(/^[^ ]* /, ""); print; exit }' "$TMP/facts"; }
facts_all() { awk -v k="$1" '$1 == k { sub(/^[^ ]* /, ""); print }' "$TMP/facts"; }
folded_sum() { awk '{ s += $NF } END { print s + 0 }' "$1"; }

# export_page NAME DATA [OPTIONS...]: export DATA as $TMP/NAME.html, parse it
# into $TMP/facts; false after a not ok line if that failed.
export_page() {
	local name=$1 data=$2
	shift 2
	run_long "html-$name" 60 "$PCL" report -i "$data" --format=html -o "$TMP/$name.html" "$@"
	if [ "$RC" -ne 0 ] || crashed "$TMP/html-$name.err" "$RC" || [ ! -s "$TMP/$name.html" ] ||
		[ -s "$TMP/html-$name.err" ]; then
		not_ok "export-html-$name-writes" "pcl report -i $data --format=html $*: exit $RC (want 0, no stderr)," \
			"page $(wc -c <"$TMP/$name.html" 2>/dev/null || echo 0) bytes" "$(show "$TMP/html-$name.err")"
		return 1
	fi
	page_facts "$TMP/$name.html" >"$TMP/facts" 2>"$TMP/facts.err"
	if [ -s "$TMP/facts.err" ]; then
		not_ok "export-html-$name-self-contained" "the page's parser failed:" "$(show "$TMP/facts.err")"
		return 1
	fi
	if ! grep -q '^error ' "$TMP/facts" && [ "$(fact scripts)" = 2 ] && [ "$(fact script_ends)" = 2 ]; then
		ok "export-html-$name-self-contained"
	else
		not_ok "export-html-$name-self-contained" "$(grep '^error ' "$TMP/facts")" \
			"want exactly the page's 2 <script> elements (data, code): <script: $(fact scripts)," \
			"</script: $(fact script_ends)"
	fi
	# without the embedded profile there is nothing more to check
	[ -n "$(fact samples)" ]
}

# check_counts NAME DATA: the page's totals against the folded export and perf's count.
check_counts() {
	local name=$1 data=$2 perf_n=-
	"$PCL" report -i "$data" --format=folded >"$TMP/$name.folded" 2>/dev/null
	local folded
	folded=$(folded_sum "$TMP/$name.folded")
	have_perf && perf_n=$(perf_samples "$data")
	if [ "$(fact samples)" = "$(fact sum_count)" ] && [ "$(fact period)" = "$folded" ] &&
		[ "$(fact period)" = "$(fact sum_period)" ] && [ "$(fact fact_samples)" = "$(fact samples)" ] &&
		[ "$(fact sum_count)" -gt 0 ] && { [ "$perf_n" = - ] || [ "$perf_n" = "$(fact samples)" ]; }; then
		ok "export-html-$name-counts"
	else
		not_ok "export-html-$name-counts" \
			"samples: JSON $(fact samples), its stacks sum $(fact sum_count), header fact $(fact fact_samples)," \
			"perf report --stats counts $perf_n (all equal, > 0);" \
			"period: JSON $(fact period), stacks sum $(fact sum_period), folded export sums $folded (all equal)"
	fi
}

# ---- pcl's recording of hot -------------------------------------------------
if record_to export-html pcl hot -g -F 2000 -o "$TMP/hot.data" -- "$HOT" 400 &&
	export_page hot "$TMP/hot.data"; then
	check_counts hot "$TMP/hot.data"
	if [ "$(fact top)" = hot_leaf ] && [ "$(fact top_pct)" -ge 50 ]; then
		ok export-html-hot-leaf
	else
		not_ok export-html-hot-leaf "hottest function by self samples: $(fact top) ($(fact top_pct)%)," \
			"want hot_leaf (~80%)"
	fi
	if [ "$(fact title)" = yes ] && [ "$(fact fact_event)" = yes ] && [ "$(fact fact_hostname)" = yes ]; then
		ok export-html-hot-facts
	else
		not_ok export-html-hot-facts "want <title>pcl report</title> (got: $(fact title))," \
			"the facts event: cpu-clock ($(fact fact_event)) and hostname ($(fact fact_hostname))"
	fi
	# the page is the data of the recording only: the same file, the same bytes
	run_long html-again 60 "$PCL" report -i "$TMP/hot.data" --format=html -o "$TMP/again.html"
	if [ "$RC" -eq 0 ] && cmp -s "$TMP/hot.html" "$TMP/again.html"; then
		ok export-html-reproducible
	else
		not_ok export-html-reproducible "two exports of $TMP/hot.data differ (exit $RC)"
	fi
	# stdout by default, the same page
	run_long html-stdout 60 "$PCL" report -i "$TMP/hot.data" --format=html
	if [ "$RC" -eq 0 ] && cmp -s "$TMP/hot.html" "$TMP/html-stdout.out"; then
		ok export-html-stdout
	else
		not_ok export-html-stdout "without -o the page goes to stdout: exit $RC, differs from -o's" \
			"$(show "$TMP/html-stdout.err")"
	fi
	run_long html-icicle 60 "$PCL" report -i "$TMP/hot.data" --format=html --icicle -o "$TMP/icicle.html"
	page_facts "$TMP/icicle.html" >"$TMP/facts" 2>/dev/null
	if [ "$RC" -eq 0 ] && [ "$(fact icicle)" = True ]; then
		ok export-html-icicle
	else
		not_ok export-html-icicle "--icicle: exit $RC, embedded icicle '$(fact icicle)' (want True)"
	fi
	# -o into a directory that does not exist: one line, non-zero, no file
	run_long html-nodir 60 "$PCL" report -i "$TMP/hot.data" --format=html -o "$TMP/no/such/dir/p.html"
	if [ "$RC" -ne 0 ] && ! crashed "$TMP/html-nodir.err" "$RC" && [ "$(wc -l <"$TMP/html-nodir.err")" -eq 1 ] &&
		grep -q "$TMP/no/such/dir/p.html" "$TMP/html-nodir.err" && [ ! -e "$TMP/no" ]; then
		ok export-html-missing-dir
	else
		not_ok export-html-missing-dir "-o into a missing directory: exit $RC (want non-zero)," \
			"stderr (want one line naming the path):" "$(show "$TMP/html-nodir.err")"
	fi
fi

# ---- perf's recording of hot ------------------------------------------------
if ! have_perf; then
	skip export-html-perf "no perf"
elif record_to export-html perf perfhot -g -F 2000 -o "$TMP/perfhot.data" -- "$HOT" 400 &&
	export_page perfhot "$TMP/perfhot.data"; then
	check_counts perfhot "$TMP/perfhot.data"
	if [ "$(fact top)" = hot_leaf ]; then
		ok export-html-perfhot-leaf
	else
		not_ok export-html-perfhot-leaf "hottest function of perf's recording: $(fact top), want hot_leaf"
	fi
fi

# ---- threads: every thread with its own hottest function ---------------------
if record_to export-html pcl threads -g -F 2000 -o "$TMP/threads.data" -- "$THREADS" 4 300 &&
	export_page threads "$TMP/threads.data"; then
	check_counts threads "$TMP/threads.data"
	bad=()
	for k in 0 1 2 3; do
		line=$(facts_all thread | grep "^wl-thread-$k:" | head -1)
		IFS=: read -r _ n top <<<"$line"
		if [ -z "$line" ] || [ "$n" -lt 20 ] || [ "$top" != "burn_t$k" ]; then
			bad+=("wl-thread-$k: '${line:-absent}' (want samples >= 20, hottest burn_t$k)")
		fi
	done
	if [ ${#bad[@]} -eq 0 ]; then
		ok export-html-threads
	else
		not_ok export-html-threads "${bad[@]}" "threads (comm:samples:hottest):" "$(facts_all thread)"
	fi
fi

# ---- a symbol that is HTML: data on the page, never markup --------------------
cat >"$TMP/evil.c" <<'EOF'
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) void evil(void) __asm__("\"</script><b x='1'>&amp;{q}\"");
void evil(void)
{
	for (unsigned long i = 0; i < 100000; i++)
		sink += i ^ (sink >> 3);
}
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	for (long i = 0; i < n; i++)
		evil();
	return 0;
}
EOF
EVIL="</script><b x='1'>&amp;{q}"
if ! cc -std=gnu11 -O1 -g -fno-omit-frame-pointer -o "$TMP/evil" "$TMP/evil.c" 2>"$TMP/evil-cc.err"; then
	skip export-html-escaping "this assembler takes no quoted symbol name: $(head -1 "$TMP/evil-cc.err")"
elif record_to export-html pcl evil -F 2000 -o "$TMP/evil.data" -- "$TMP/evil" 600 &&
	export_page evil "$TMP/evil.data"; then
	# the name round-trips through the JSON; the page holds it only escaped
	if [ "$(fact top)" = "$EVIL" ] && ! grep -qF "$EVIL" "$TMP/evil.html" && ! grep -q '<b x=' "$TMP/evil.html"; then
		ok export-html-escaping
	else
		not_ok export-html-escaping "hottest function: '$(fact top)', want '$EVIL' (from the JSON)," \
			"and the name never raw on the page: $(grep -cF "$EVIL" "$TMP/evil.html") raw copies" \
			"$(grep -n '<b x=' "$TMP/evil.html" | head -3)"
	fi
fi

# ---- one function, one colour: the SVG's fill is the page's pclColour ---------
# A recording with kernel frames (the kernel-time workload, -g): every frame
# the SVG draws for a function name of the page is filled with what the
# page's own colour function (pclColour, run in node without a browser)
# gives that name; kernel frames are teal, and only they.
KTIME=$(workload kernel-time) || KTIME=
if ! command -v node >/dev/null 2>&1; then
	skip export-html-colours "node is not installed (it runs the page's colour function)"
elif [ -z "$KTIME" ]; then
	not_ok export-html-colours "cannot build tests/workloads/kernel-time.c"
elif record_to export-html pcl kt -g -F 2000 -o "$TMP/kt.data" -- "$KTIME" 300 &&
	export_page kt "$TMP/kt.data" &&
	"$PCL" report -i "$TMP/kt.data" --format=flamegraph -o "$TMP/kt.svg" 2>"$TMP/kt-svg.err"; then
	node - "$TMP/kt.html" "$TMP/kt.svg" >"$TMP/colours.out" 2>&1 <<'JS'
const fs = require('fs');
const html = fs.readFileSync(process.argv[2], 'utf8'), svg = fs.readFileSync(process.argv[3], 'utf8');
const src = html.match(/function pclColour[\s\S]*?\/\* end of pclColour \*\//);
if (!src) { console.log('error no pclColour on the page'); process.exit(0); }
const pclColour = new Function(src[0] + '\nreturn pclColour;')();
const D = JSON.parse(html.match(/<script type="application\/json" id="pcl-data">([\s\S]*?)<\/script>/)[1]);
const kernel = new Map(); /* name -> true/false, null when both */
D.fname.forEach((n, i) => {
	const k = D.flevel[i] === 'k';
	kernel.set(n, kernel.has(n) && kernel.get(n) !== k ? null : k);
});
const unesc = (s) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"')
	.replace(/&#39;/g, "'").replace(/&apos;/g, "'").replace(/&amp;/g, '&');
const teal = (c) => { const v = c.match(/\d+/g).map(Number); return v[0] < 120 && v[1] >= 170 && v[2] >= 160; };
let same = 0, kern = 0, bad = 0;
for (const m of svg.matchAll(/<g class="frame" data-name="([^"]*)">[\s\S]*?<rect [^>]*fill="([^"]*)"/g)) {
	const name = unesc(m[1]), fill = m[2];
	if (!kernel.has(name) || kernel.get(name) === null)
		continue;
	const want = pclColour(name, kernel.get(name));
	if (want !== fill) { bad++; console.log('error', name, 'svg', fill, 'page', want); }
	else same++;
	if (kernel.get(name)) { kern++; if (!teal(fill)) { bad++; console.log('error kernel frame not teal:', name, fill); } }
	else if (teal(fill)) { bad++; console.log('error user frame teal:', name, fill); }
}
console.log('same', same, 'kernel', kern, 'bad', bad);
JS
	if grep -q '^same [1-9][0-9]* kernel [1-9][0-9]* bad 0$' "$TMP/colours.out"; then
		ok export-html-colours
	else
		not_ok export-html-colours "want every SVG frame filled as the page's pclColour, kernel frames (some) teal and no other:" \
			"$(show "$TMP/colours.out")"
	fi
fi
