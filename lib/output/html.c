/* SPDX-License-Identifier: MIT */
/*
 * The html export: one self-contained page with the recording's facts, a
 * sortable table of functions, a flame graph drawn on a canvas, the callers
 * and callees of a chosen function, and a thread filter. CSS and script are
 * inline (lib/output/html/page.css and page.js, assembled into this object
 * with .incbin); a Content-Security-Policy forbids every request, so the
 * page works from file:// and never reaches the network.
 *
 * The profile is embedded aggregated, never one entry per sample, as one
 * JSON object in <script type="application/json" id="pcl-data"> (every
 * string through json_str_script, so no name can close the element):
 *   title, event, byPeriod, periodIsNs, icicle   as in pcl_export_opts
 *   samples, period, lost                        the profile's totals
 *   dsos: [short name...]
 *   fname: [name...], fdso: [dsos index...], flevel: "..k."  one per function
 *   nodes: [parent, func, ...]     stack tree nodes 1..n-1 (node 0 is the root)
 *   threads: [pid, tid, comm, ...]
 *   stacks: [thread, node, count, period, ...]
 *   ann: [{f, start, n, p, files, src, asm} or {f, err}, ...]   with
 *        opts.annotate: the source and assembly of the hottest functions
 *        whose code pcl can read (ANN_MAX of them, and of those it
 *        cannot, as many reasons): f the function, start its address (hex), n
 *        and p its samples and period (every thread's); files: [name...];
 *        src: per file [first line, text...], the lines its code spans
 *        and three before;
 *        asm: per instruction [addr (hex), text, count, period, target
 *        (the index of the instruction a jump lands on, or -1), file
 *        index, line (-1, 0: unknown)]; err says why there is no listing
 *        (no file holds the code).
 * Parents come before their children in nodes; the script relies on it and
 * builds each thread selection's trees once, in time linear in the nodes.
 *
 * Hooks for tests that drive the page in a browser (keep them stable):
 * - <table id="functions">: in its tbody one <tr data-name="NAME"> per
 *   function with samples in the selected threads (the first 500 in the
 *   current order; a button shows the rest), sorted by self samples,
 *   descending, after load. Clicking a <th data-key="name|dso|self|total">
 *   sorts; clicking a row chooses that function.
 * - id "flame": the flame graph's container; it holds one <canvas>.
 *   window.pclFlame.frames() returns the frames drawn, as
 *   [{name, x, y, w, h}] in CSS pixels relative to the canvas. A click on a
 *   frame zooms to it (it then spans the canvas: w equals the canvas's
 *   width) and chooses its function; window.pclFlame.reset() or the button
 *   id "reset" zooms out. The input id "search" highlights matching frames.
 * - <select id="thread">: option value "-1" is all threads, the others a
 *   thread's index, labelled "COMM PID/TID (N samples)". Changing it
 *   redraws the table (sorted by self again), the flame graph (zoomed
 *   out) and the callers and callees.
 * - <table id="callers"> and <table id="callees">: the chosen function's
 *   callers and callees, one <tr data-name="NAME"> each in their tbody,
 *   with the share of the function's total; "(root)" stands for no caller.
 *   The chosen function is in the element id "selected" (data-name too).
 * - <table id="source"> and <table id="asm"> (section id "annotate"): the
 *   chosen function's source lines (<tr data-line="N">, with their share
 *   of the function's samples) and instructions (<tr data-addr="HEX">,
 *   data-target="HEX" on a jump inside the function, class "target" on an
 *   instruction a jump lands on), each row's background by its share.
 *   The element id "ann-info" says whose they are, or why there are none.
 * - window.pclReady is true once the first draw is done.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <pcl/annotate.h>
#include <pcl/export.h>
#include "analysis/profile.h"
#include "internal.h"
#include "output/json.h"

/*
 * The page's stylesheet and script (no NUL), with their sizes in bytes as
 * the assembler counted them. It looks for the files along the compiler's
 * -I path (-Ilib), so the build works from any directory; the Makefile
 * rebuilds this object when they change.
 */
__asm__(".pushsection .rodata\n"
	"html_page_css:\n"
	".incbin \"output/html/page.css\"\n"
	"1:\n"
	"html_page_js:\n"
	".incbin \"output/html/page.js\"\n"
	"2:\n"
	".balign 8\n"
	"html_page_css_size:\n"
	".quad 1b - html_page_css\n"
	"html_page_js_size:\n"
	".quad 2b - html_page_js\n"
	".popsection\n");

#define HIDDEN __attribute__((visibility("hidden")))
extern const char html_page_css[] HIDDEN, html_page_js[] HIDDEN;
extern const uint64_t html_page_css_size HIDDEN, html_page_js_size HIDDEN;

/* Values per line in the JSON arrays: short lines for the tools that read the page. */
#define PER_LINE 24
/* Functions with a source and assembly view: the hottest, for a page of bounded size. */
#define ANN_MAX 50
/* Source lines shown per file of a function (from its first line with code). */
#define ANN_SRC_MAX 400
#define ANN_SRC_BEFORE 3

static void sep(FILE *fp, size_t i)
{
	if (!i)
		return;
	fputc(',', fp);
	if (i % PER_LINE == 0)
		fputc('\n', fp);
}

static const char *dso_name(const struct pcl_dso *d)
{
	if (!d)
		return "[unknown]";
	if (d->short_name)
		return d->short_name;
	return d->name ? d->name : "[unknown]";
}

static int cmp_ptr(const void *a, const void *b)
{
	const void *const *pa = a, *const *pb = b;
	uintptr_t x = (uintptr_t)*pa, y = (uintptr_t)*pb;

	return x < y ? -1 : x > y;
}

/*
 * The page's functions and stack nodes: the profile's, except that code no
 * symbol covers is one "[unknown]" function per DSO and side (the profile
 * keeps one per address, for pprof), a row of the table rather than one
 * per address; nodes that become equal are merged.
 */
struct view {
	uint32_t *fmap; /* profile function -> page function */
	uint32_t *fsrc; /* page function -> its first profile function */
	size_t nf;
	uint32_t *nmap;	       /* profile node -> page node */
	uint32_t *npar, *nfun; /* page node -> parent, function (node 0: the root) */
	size_t nn;
};

static bool unknown_code(const struct pcl_profile_func *f)
{
	return !f->start && !f->end && f->name && !strcmp(f->name, "[unknown]");
}

static void view_free(struct view *v)
{
	free(v->fmap);
	free(v->fsrc);
	free(v->nmap);
	free(v->npar);
	free(v->nfun);
}

static int view_build(struct view *v, const struct pcl_profile *p)
{
	size_t nf, nn, cap = 2;
	const struct pcl_profile_func *f = pcl_profile__funcs(p, &nf);
	const struct pcl_profile_node *n = pcl_profile__nodes(p, &nn);
	uint32_t *slots = NULL;
	int ret = -ENOMEM;

	memset(v, 0, sizeof(*v));
	while (cap < 2 * nn)
		cap *= 2;
	v->fmap = malloc((nf + 1) * sizeof(*v->fmap));
	v->fsrc = malloc((nf + 1) * sizeof(*v->fsrc));
	v->nmap = malloc((nn + 1) * sizeof(*v->nmap));
	v->npar = malloc((nn + 1) * sizeof(*v->npar));
	v->nfun = malloc((nn + 1) * sizeof(*v->nfun));
	slots = calloc(cap, sizeof(*slots));
	if (!v->fmap || !v->fsrc || !v->nmap || !v->npar || !v->nfun || !slots)
		goto out;
	for (size_t i = 0; i < nf; i++) {
		size_t j = v->nf;

		/* the unknown code of a DSO and side seen before (few: a linear search) */
		if (unknown_code(&f[i]))
			for (j = 0; j < v->nf; j++)
				if (unknown_code(&f[v->fsrc[j]]) && f[v->fsrc[j]].dso == f[i].dso &&
				    profile_func_kernel(&f[v->fsrc[j]]) ==
					    profile_func_kernel(&f[i]))
					break;
		if (j == v->nf)
			v->fsrc[v->nf++] = (uint32_t)i;
		v->fmap[i] = (uint32_t)j;
	}
	/* parents come first: each node's parent is mapped when it is reached */
	v->nmap[0] = 0;
	v->npar[0] = 0;
	v->nfun[0] = UINT32_MAX;
	v->nn = 1;
	for (size_t i = 1; i < nn; i++) {
		uint32_t par = v->nmap[n[i].parent], fn = v->fmap[n[i].func];
		uint64_t h = (((uint64_t)par << 32) | fn) * 0x9e3779b97f4a7c15ull;
		size_t k = (size_t)(h >> 32) & (cap - 1);

		for (; slots[k]; k = (k + 1) & (cap - 1))
			if (v->npar[slots[k]] == par && v->nfun[slots[k]] == fn)
				break;
		if (!slots[k]) {
			slots[k] = (uint32_t)v->nn;
			v->npar[v->nn] = par;
			v->nfun[v->nn++] = fn;
		}
		v->nmap[i] = slots[k];
	}
	ret = 0;
out:
	free(slots);
	if (ret)
		view_free(v);
	return ret ? pcl_err(ret, "out of memory") : 0;
}

/*
 * "dsos", "fname", "fdso" and "flevel": the DSOs are the distinct pointers
 * of the functions, sorted, so each function finds its index by bisection.
 */
static int write_funcs(FILE *fp, const struct pcl_profile *p, const struct view *v)
{
	size_t nf = v->nf, npf, nd = 0;
	const struct pcl_profile_func *pf = pcl_profile__funcs(p, &npf);
	const void **dsos = malloc((nf ? nf : 1) * sizeof(*dsos));

#define F(i) (&pf[v->fsrc[i]])
	if (!dsos)
		return pcl_err(-ENOMEM, "out of memory");
	for (size_t i = 0; i < nf; i++)
		dsos[i] = F(i)->dso;
	qsort(dsos, nf, sizeof(*dsos), cmp_ptr);
	for (size_t i = 0; i < nf; i++)
		if (!nd || dsos[nd - 1] != dsos[i])
			dsos[nd++] = dsos[i];
	fputs(",\n\"dsos\":[", fp);
	for (size_t i = 0; i < nd; i++) {
		sep(fp, i);
		json_str_script(fp, dso_name(dsos[i]));
	}
	fputs("],\n\"fname\":[", fp);
	for (size_t i = 0; i < nf; i++) {
		sep(fp, i);
		json_str_script(fp, F(i)->name ? F(i)->name : "[unknown]");
	}
	fputs("],\n\"fdso\":[", fp);
	for (size_t i = 0; i < nf; i++) {
		const void **at = bsearch(&F(i)->dso, dsos, nd, sizeof(*dsos), cmp_ptr);

		sep(fp, i);
		fprintf(fp, "%zu", (size_t)(at - dsos));
	}
	/* 'k' for kernel code, as the SVG colours it; 'H' hypervisor; else user code */
	fputs("],\n\"flevel\":\"", fp);
	for (size_t i = 0; i < nf; i++)
		fputc(profile_func_kernel(F(i)) ? 'k' : F(i)->level == 'H' ? 'H' : '.', fp);
#undef F
	fputc('"', fp);
	free(dsos);
	return 0;
}

static void write_tree(FILE *fp, const struct pcl_profile *p, const struct view *v)
{
	size_t nt, ns;
	const struct pcl_profile_thread *t = pcl_profile__threads(p, &nt);
	const struct pcl_profile_stack *s = pcl_profile__stacks(p, &ns);

	fputs(",\n\"nodes\":[", fp);
	for (size_t i = 1; i < v->nn; i++) {
		sep(fp, i - 1);
		fprintf(fp, "%" PRIu32 ",%" PRIu32, v->npar[i], v->nfun[i]);
	}
	fputs("],\n\"threads\":[", fp);
	for (size_t i = 0; i < nt; i++) {
		sep(fp, i);
		fprintf(fp, "%" PRId32 ",%" PRId32 ",", t[i].pid, t[i].tid);
		json_str_script(fp, t[i].comm ? t[i].comm : "[unknown]");
	}
	fputs("],\n\"stacks\":[", fp);
	for (size_t i = 0; i < ns; i++) {
		sep(fp, i);
		fprintf(fp, "%" PRIu32 ",%" PRIu32 ",%" PRIu64 ",%" PRIu64, s[i].thread,
			v->nmap[s[i].node], s[i].count, s[i].period);
	}
	fputs("]", fp);
}

/* The page function of annotated function @s: the same DSO and symbol start; -1 if none. */
static long ann_func(const struct pcl_profile *p, const struct view *v,
		     const struct pcl_annotate_sym *s)
{
	size_t npf;
	const struct pcl_profile_func *pf = pcl_profile__funcs(p, &npf);

	for (size_t i = 0; i < v->nf; i++) {
		const struct pcl_profile_func *f = &pf[v->fsrc[i]];

		if (!unknown_code(f) && f->dso == s->dso && f->start == s->sym->start &&
		    f->end == s->sym->end)
			return (long)i;
	}
	return -1;
}

/* A listing's source files (the distinct src_file pointers) and the line range of each. */
struct ann_files {
	const char *name[16];
	unsigned int lo[16], hi[16];
	int n;
};

static int ann_file(struct ann_files *af, const char *name, unsigned int line)
{
	int i;

	if (!name || !line)
		return -1;
	for (i = 0; i < af->n; i++)
		if (af->name[i] == name || !strcmp(af->name[i], name))
			break;
	if (i == af->n) {
		if (af->n == 16)
			return -1;
		af->name[af->n] = name;
		af->lo[af->n] = af->hi[af->n] = line;
		af->n++;
	}
	if (line < af->lo[i])
		af->lo[i] = line;
	if (line > af->hi[i])
		af->hi[i] = line;
	return i;
}

static void write_listing(FILE *fp, struct pcl_annotate_listing *l)
{
	struct ann_files af = { .n = 0 };
	size_t k = 0;

	for (size_t i = 0; i < l->nr_lines; i++)
		if (l->lines[i].insn)
			ann_file(&af, l->lines[i].src_file, l->lines[i].src_line);
	fputs(",\"files\":[", fp);
	for (int i = 0; i < af.n; i++) {
		sep(fp, (size_t)i);
		json_str_script(fp, af.name[i]);
	}
	/* a few lines before the first with code: the function's signature */
	for (int i = 0; i < af.n; i++)
		af.lo[i] = af.lo[i] > ANN_SRC_BEFORE ? af.lo[i] - ANN_SRC_BEFORE : 1;
	fputs("],\"src\":[", fp);
	for (int i = 0; i < af.n; i++) {
		unsigned int hi = af.hi[i] - af.lo[i] >= ANN_SRC_MAX ? af.lo[i] + ANN_SRC_MAX - 1
								     : af.hi[i];

		fprintf(fp, "%s\n[%u", i ? "," : "", af.lo[i]);
		for (unsigned int n = af.lo[i]; n <= hi; n++) {
			const char *t = pcl_annotate_listing__source_line(l, af.name[i], n);

			if (!t)
				break;
			fputc(',', fp);
			json_str_script(fp, t);
		}
		fputc(']', fp);
	}
	fputs("],\"asm\":[", fp);
	for (size_t i = 0; i < l->nr_lines; i++) {
		const struct pcl_annotate_line *ln = &l->lines[i];
		long target = -1;
		int file = -1;

		if (!ln->insn)
			continue;
		if (ln->jump) {
			size_t t = 0;

			for (size_t j = 0; j < l->nr_lines; j++) {
				if (!l->lines[j].insn)
					continue;
				if (l->lines[j].addr == ln->target) {
					target = (long)t;
					break;
				}
				t++;
			}
		}
		file = ann_file(&af, ln->src_file, ln->src_line);
		fprintf(fp, "%s\n[\"%" PRIx64 "\",", k++ ? "," : "", ln->addr);
		json_str_script(fp, ln->text);
		fprintf(fp, ",%" PRIu64 ",%" PRIu64 ",%ld,%d,%u]", ln->nr_samples, ln->period, target,
			file, file < 0 ? 0 : ln->src_line);
	}
	fputs("]", fp);
}

/* "ann": the source and assembly of the hottest functions the page shows. */
static int write_annotate(FILE *fp, const struct pcl_profile *p, const struct view *v,
			  const struct pcl_export_opts *o)
{
	size_t n = o->annotate ? pcl_annotate__nr_syms(o->annotate) : 0;
	size_t shown = 0, failed = 0, emitted = 0;

	fputs(",\n\"ann\":[", fp);
	for (size_t i = 0; i < n && shown < ANN_MAX; i++) {
		const struct pcl_annotate_sym *s = pcl_annotate__sym(o->annotate, i);
		struct pcl_annotate_listing l;
		long f = ann_func(p, v, s);
		int ret;

		if (f < 0)
			continue;
		ret = pcl_annotate__lines(o->annotate, i, o->symbols, NULL, &l);
		if (ret == -ENOMEM)
			return ret;
		/* code no file holds (the kernel from kallsyms) does not take a listing's place */
		if (ret && failed++ >= ANN_MAX)
			continue;
		fprintf(fp, "%s\n{\"f\":%ld", emitted++ ? "," : "", f);
		if (ret) {
			fputs(",\"err\":", fp);
			json_str_script(fp, pcl_last_error());
		} else {
			shown++;
			fprintf(fp, ",\"start\":\"%" PRIx64 "\",\"n\":%" PRIu64 ",\"p\":%" PRIu64,
				l.start, s->nr_samples, s->period);
			write_listing(fp, &l);
			pcl_annotate_listing__free(&l);
		}
		fputc('}', fp);
	}
	fputs("]", fp);
	return 0;
}

static int write_data(FILE *fp, const struct pcl_profile *p, const struct pcl_export_opts *o,
		      const char *title)
{
	struct view v;
	int ret;

	fputs("<script type=\"application/json\" id=\"pcl-data\">\n{\"title\":", fp);
	json_str_script(fp, title);
	fputs(",\"event\":", fp);
	json_str_script(fp, o->event ? o->event : "");
	fprintf(fp,
		",\"byPeriod\":%s,\"periodIsNs\":%s,\"icicle\":%s,\"samples\":%" PRIu64
		",\"period\":%" PRIu64 ",\"lost\":%" PRIu64,
		o->by_period ? "true" : "false", o->period_is_ns ? "true" : "false",
		o->icicle ? "true" : "false", pcl_profile__nr_samples(p),
		pcl_profile__total_period(p), o->lost_samples);
	ret = view_build(&v, p);
	if (ret)
		return ret;
	ret = write_funcs(fp, p, &v);
	if (!ret) {
		write_tree(fp, p, &v);
		ret = write_annotate(fp, p, &v, o);
	}
	view_free(&v);
	if (ret)
		return ret;
	fputs("}\n</script>\n", fp);
	return 0;
}

static void fact(FILE *fp, const char *name, const char *value)
{
	/* a long value (a command line) gets a row of its own */
	fputs(strlen(value) > 48 ? "<div class=\"wide\"><dt>" : "<div><dt>", fp);
	xml_str(fp, name);
	fputs("</dt><dd>", fp);
	xml_str(fp, value);
	fputs("</dd></div>\n", fp);
}

/* The header: what was sampled, how much, for how long, and the file's own facts. */
static void write_facts(FILE *fp, const struct pcl_profile *p, const struct pcl_export_opts *o)
{
	uint64_t first = pcl_profile__time_first(p), last = pcl_profile__time_last(p);
	uint64_t period = pcl_profile__total_period(p);
	char buf[96];

	fputs("<dl id=\"facts\">\n", fp);
	fact(fp, "event", o->event && o->event[0] ? o->event : "(unknown)");
	snprintf(buf, sizeof(buf), "%" PRIu64, pcl_profile__nr_samples(p));
	fact(fp, "samples", buf);
	if (o->period_is_ns)
		snprintf(buf, sizeof(buf), "%" PRIu64 " ns (%.3f s)", period, period / 1e9);
	else
		snprintf(buf, sizeof(buf), "%" PRIu64, period);
	fact(fp, "total period", buf);
	snprintf(buf, sizeof(buf), "%" PRIu64, o->lost_samples);
	fact(fp, "lost samples", buf);
	if (first && last >= first)
		snprintf(buf, sizeof(buf), "%.3f s", (last - first) / 1e9);
	else
		snprintf(buf, sizeof(buf), "(no times recorded)");
	fact(fp, "time span", buf);
	fact(fp, "values", o->by_period ? "event period" : "sample counts");
	for (size_t i = 0; i < o->nr_facts; i++)
		if (o->facts[i].name && o->facts[i].value)
			fact(fp, o->facts[i].name, o->facts[i].value);
	fputs("</dl>\n", fp);
}

static void write_head(FILE *fp, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n<title>",
	      fp);
	xml_str(fp, title);
	fputs("</title>\n<style>\n", fp);
	fwrite(html_page_css, 1, (size_t)html_page_css_size, fp);
	fputs("</style>\n</head>\n<body>\n<header>\n<h1>", fp);
	xml_str(fp, title);
	fputs("</h1>\n", fp);
}

/* The views' empty frames; the script fills them. */
static const char body[] =
	"</header>\n"
	"<nav id=\"controls\">\n"
	"<label>Thread <select id=\"thread\"><option value=\"-1\">all threads</option>"
	"</select></label>\n"
	"<label>Search <input id=\"search\" type=\"search\" placeholder=\"function name\" "
	"autocomplete=\"off\"></label>\n"
	"<button id=\"reset\" type=\"button\">Reset zoom</button>\n"
	"<span id=\"search-info\"></span>\n"
	"</nav>\n"
	"<section id=\"flame-section\">\n<h2>Flame graph</h2>\n"
	"<div id=\"flame\"><canvas></canvas></div>\n"
	"<div id=\"tooltip\" hidden></div>\n"
	"</section>\n"
	"<div id=\"lower\">\n"
	"<section id=\"functions-section\">\n<h2>Functions</h2>\n"
	"<div class=\"scroll\"><table id=\"functions\"><thead><tr>"
	"<th data-key=\"name\">Function</th><th data-key=\"dso\">DSO</th>"
	"<th data-key=\"self\" class=\"num\">Self</th>"
	"<th data-key=\"self\" class=\"num\">Self %</th>"
	"<th data-key=\"total\" class=\"num\">Total</th>"
	"<th data-key=\"total\" class=\"num\">Total %</th>"
	"</tr></thead><tbody></tbody></table></div>\n"
	"<p id=\"more\" hidden><button type=\"button\"></button></p>\n"
	"</section>\n"
	"<section id=\"calls-section\">\n<h2>Callers and callees</h2>\n"
	"<p id=\"selected\">Click a function in the table or the flame graph.</p>\n"
	"<h3>Callers</h3>\n"
	"<div class=\"scroll short\"><table id=\"callers\"><thead><tr><th>Function</th>"
	"<th>DSO</th><th class=\"num\">Samples</th><th class=\"num\">Share</th></tr></thead>"
	"<tbody></tbody></table></div>\n"
	"<h3>Callees</h3>\n"
	"<div class=\"scroll short\"><table id=\"callees\"><thead><tr><th>Function</th>"
	"<th>DSO</th><th class=\"num\">Samples</th><th class=\"num\">Share</th></tr></thead>"
	"<tbody></tbody></table></div>\n"
	"</section>\n"
	"</div>\n"
	"<section id=\"annotate\">\n<h2>Source and assembly</h2>\n"
	"<p id=\"ann-info\">Click a function in the table or the flame graph.</p>\n"
	"<div id=\"ann-views\">\n"
	"<div class=\"scroll code\"><table id=\"source\"><thead><tr><th class=\"num\">Share</th>"
	"<th class=\"num\">Line</th><th>Source</th></tr></thead><tbody></tbody></table></div>\n"
	"<div class=\"scroll code\"><table id=\"asm\"><thead><tr><th class=\"num\">Share</th>"
	"<th class=\"num\">Address</th><th></th><th>Instruction</th></tr></thead><tbody></tbody>"
	"</table></div>\n"
	"</div>\n"
	"</section>\n"
	"<noscript><p>The views of this page are drawn by its script.</p></noscript>\n";

int pcl_export_html(FILE *fp, const struct pcl_profile *p, const struct pcl_export_opts *opts)
{
	struct pcl_export_opts o = { .sz = sizeof(o) };
	const char *title;
	int ret;

	if (!fp || !p)
		return pcl_err(EINVAL, "pcl_export_html: no output or no profile");
	ret = opts_copy(&o, opts, "pcl_export_opts");
	if (ret < 0)
		return ret;
	title = o.title && o.title[0] ? o.title : "pcl report";
	write_head(fp, title);
	write_facts(fp, p, &o);
	fputs(body, fp);
	ret = write_data(fp, p, &o, title);
	if (ret)
		return ret;
	fputs("<script>\n", fp);
	fwrite(html_page_js, 1, (size_t)html_page_js_size, fp);
	fputs("</script>\n</body>\n</html>\n", fp);
	if (ferror(fp))
		return pcl_err(-EIO, "cannot write the html page");
	return 0;
}
