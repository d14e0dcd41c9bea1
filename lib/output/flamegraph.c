/* SPDX-License-Identifier: MIT */
/*
 * The flame graph: one self-contained SVG document (inline <style> and
 * <script>, nothing fetched) drawn from the merged tree of
 * pcl_flame__build. The root "all" spans the graph, the comm level sits on
 * it, each function on its caller; children run left to right in name
 * order from their parent's left edge, the caller's self time is the gap
 * left at the right.
 *
 * Invariants:
 * - A frame narrower than opts->min_width pixels is left out with all it
 *   calls (its callees are no wider), so the document grows with the frames
 *   drawn, not with the samples.
 * - Frames are written in depth-first pre-order: a frame's callees follow
 *   it, up to the next frame of its depth or shallower. The script rebuilds
 *   the tree from that order and each rect's y, and nothing else.
 * - Numbers are written with integer arithmetic, never printf's %f: the
 *   CLI sets LC_NUMERIC from the environment and SVG wants a dot.
 * - Colours are a hash of the name, so a function has the same colour in
 *   every graph and in the HTML page (pclColour in html/page.js computes
 *   the same): teal for kernel code (profile_func_kernel) and only it, grey
 *   for user code no symbol covers, blue for the "[off-CPU]" leaf of pcl
 *   report --wall, FlameGraph's warm palette for the rest. Differential graphs (opts->base) colour by the change in a
 *   frame's share of the total instead: red grew, blue shrank, white
 *   unchanged, the deepest shade for the largest change drawn. Frames are
 *   matched between the two trees by their path of names; a frame that is
 *   not in the base grew from 0.
 *
 * Hooks for browser tests (stable; change them with the tests):
 * - every frame is <g class="frame" data-name="NAME"> holding, in order,
 *   <title>NAME (N samples, P%)</title> (differential: "...; +D points)"),
 *   <rect x y width height fill> and <text> (the name trimmed to fit, with
 *   "..." when cut). The root is data-name="all"; its rect width is the
 *   full graph width, and so is a zoomed frame's after a click.
 * - click a frame: zoom to it (it fills the width, its callers stay at full
 *   width with class "parent" (dimmed), all other frames get class "hide").
 *   Clicking the root resets.
 * - #reset (text): "Reset Zoom", class "off" when not zoomed.
 * - #search (text): "Search", prompts for a regular expression (Ctrl-F
 *   too, Escape clears); matching frames' rects get fill rgb(230,0,230);
 *   #matched shows "Matched: X%" of the total (nested matches counted once).
 *   An empty answer clears the search.
 * - #details (text): the hovered frame's title text.
 * - window.pclFlame = { zoom(nameOrIndex), reset(), search(regex) }: the
 *   same without clicks and prompts.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <pcl/export.h>
#include "analysis/profile.h"
#include "internal.h"
#include "output/json.h"

#define XPAD	  10  /* pixels left and right of the graph */
#define FRAME_H	  16  /* pixels per level */
#define CHAR_W	  7.2 /* width of a 12px monospace character */
#define NONE	  UINT32_MAX
#define MIN_WIDTH 100u /* the smallest image that still has room for the controls */
#define MAX_WIDTH 100000u

/* A frame to draw: a node of the tree, its match in the base tree, its left edge. */
struct drawn {
	uint32_t node;
	uint32_t old; /* NONE: not in the base (or no base) */
	double x;
};

/* The depth-first walk over both trees at once. */
struct walk {
	uint32_t node, old; /* node of the new tree, its match in the base (NONE: none) */
	uint32_t child;	    /* next child of node to visit */
	uint32_t oldc;	    /* the base's children of old, up to where child's name would be */
	double nx;	    /* left edge of the next child */
};

struct fg {
	FILE *fp;
	struct pcl_export_opts o;
	struct pcl_flame f, b; /* the profile's tree, the base's (diff) */
	bool diff;
	const struct pcl_profile_func *funcs;
	size_t nr_funcs;
	struct drawn *d;
	size_t nr, alloc;
	uint32_t levels;  /* levels drawn (deepest drawn depth + 1; 0 when nothing is) */
	double gw;	  /* graph width in pixels */
	double scale;	  /* pixels per unit of value */
	double maxdelta;  /* largest |change of share| drawn, in points */
	unsigned int top; /* y of the graph's top edge */
	char *buf;	  /* scratch for trimmed names */
	size_t buflen;
};

/* @v with 2 decimals ("-1.50", "+0.00" with @plus), locale-independent; @trim drops ".00"/"0". */
static const char *fixed(char *buf, size_t len, double v, bool plus, bool trim)
{
	long long c = (long long)(v * 100 + (v < 0 ? -0.5 : 0.5));
	unsigned long long a = c < 0 ? -(unsigned long long)c : (unsigned long long)c;
	size_t n;

	snprintf(buf, len, "%s%llu.%02llu", c < 0 ? "-" : plus ? "+" : "", a / 100, a % 100);
	if (trim) {
		n = strlen(buf);
		while (buf[n - 1] == '0')
			buf[--n] = '\0';
		if (buf[n - 1] == '.')
			buf[--n] = '\0';
	}
	return buf;
}

/* @v as it is written into the document (2 decimals), so C and the script trim alike. */
static double rounded(double v)
{
	return (double)(long long)(v * 100 + 0.5) / 100;
}

static void put_num(FILE *fp, double v)
{
	char b[40];

	fputs(fixed(b, sizeof(b), v, false, true), fp);
}

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h ^ h >> 15;
}

/* ---- layout ---- */

static int drawn_add(struct fg *g, uint32_t node, uint32_t old, double x)
{
	if (g->nr == g->alloc) {
		size_t n = g->alloc ? g->alloc * 2 : 256;
		struct drawn *d = realloc(g->d, n * sizeof(*d));

		if (!d)
			return -ENOMEM;
		g->d = d;
		g->alloc = n;
	}
	g->d[g->nr++] = (struct drawn){ node, old, x };
	if (g->f.nodes[node].depth + 1 > g->levels)
		g->levels = g->f.nodes[node].depth + 1;
	return 0;
}

/* Change of a drawn frame's share of the total, base to new, in percentage points. */
static double delta(const struct fg *g, const struct drawn *d)
{
	double now = (double)g->f.nodes[d->node].total / (double)g->f.nodes[0].total;
	double was = 0;

	if (d->old != NONE && g->b.nodes[0].total)
		was = (double)g->b.nodes[d->old].total / (double)g->b.nodes[0].total;
	return (now - was) * 100;
}

/* The child of @w->old named like @name in the base, by the merge of two name-ordered lists. */
static uint32_t match_child(const struct fg *g, struct walk *w, const char *name)
{
	int c = 1;

	while (w->oldc && (c = strcmp(g->b.nodes[w->oldc].name, name)) < 0)
		w->oldc = g->b.nodes[w->oldc].next;
	if (!w->oldc || c)
		return NONE;
	c = (int)w->oldc;
	w->oldc = g->b.nodes[w->oldc].next;
	return (uint32_t)c;
}

/* Walk the tree depth first, children in order, keeping the frames wide enough to draw. */
static int collect(struct fg *g)
{
	struct walk *st = malloc((g->f.max_depth + 2) * sizeof(*st));
	size_t sp = 0;
	int ret = -ENOMEM;

	if (!st)
		return ret;
	if (g->f.nodes[0].total && g->gw >= g->o.min_width) {
		if (drawn_add(g, 0, g->diff ? 0 : NONE, XPAD))
			goto out;
		st[sp++] = (struct walk){ 0, g->diff ? 0 : NONE, g->f.nodes[0].first,
					  g->diff ? g->b.nodes[0].first : 0, XPAD };
	}
	while (sp) {
		struct walk *w = &st[sp - 1];
		uint32_t c = w->child, old;
		double x = w->nx, width;

		if (!c) {
			sp--;
			continue;
		}
		w->child = g->f.nodes[c].next;
		width = (double)g->f.nodes[c].total * g->scale;
		w->nx += width;
		if (width < g->o.min_width)
			continue;
		old = w->old != NONE ? match_child(g, w, g->f.nodes[c].name) : NONE;
		if (drawn_add(g, c, old, x))
			goto out;
		st[sp++] = (struct walk){ c, old, g->f.nodes[c].first,
					  old != NONE ? g->b.nodes[old].first : 0, x };
	}
	for (size_t i = 0; g->diff && i < g->nr; i++) {
		double dl = delta(g, &g->d[i]);

		if (dl < 0)
			dl = -dl;
		if (dl > g->maxdelta)
			g->maxdelta = dl;
	}
	ret = 0;
out:
	free(st);
	return ret;
}

/* ---- colours ---- */

static void colour(const struct fg *g, const struct drawn *d, char *out, size_t len)
{
	const struct pcl_flame_node *n = &g->f.nodes[d->node];
	uint32_t h = name_hash(n->name);
	unsigned int v1 = h & 0xff, v2 = h >> 8 & 0xff, v3 = h >> 16 & 0xff;

	if (g->diff) {
		double dl = delta(g, d),
		       i = g->maxdelta > 0 ? (dl < 0 ? -dl : dl) / g->maxdelta : 0;
		unsigned int v = 255 - (unsigned int)(i * 200 + 0.5);

		if (dl > 0)
			snprintf(out, len, "rgb(255,%u,%u)", v, v);
		else if (dl < 0)
			snprintf(out, len, "rgb(%u,%u,255)", v, v);
		else
			snprintf(out, len, "rgb(255,255,255)");
	} else if (!d->node) {
		snprintf(out, len, "rgb(205,205,205)");
	} else if (n->func == NONE) {
		/* a command name: lavender */
		snprintf(out, len, "rgb(%u,%u,%u)", 175 + v1 * 35 / 255, 165 + v1 * 35 / 255,
			 220 + v2 * 35 / 255);
	} else if (n->func < g->nr_funcs && profile_func_kernel(&g->funcs[n->func])) {
		/* kernel: teal (pclColour in html/page.js is the same function) */
		snprintf(out, len, "rgb(%u,%u,%u)", 50 + v3 * 60 / 255, 170 + v1 * 50 / 255,
			 160 + v2 * 50 / 255);
	} else if (!strcmp(n->name, "[unknown]")) {
		snprintf(out, len, "rgb(200,200,200)");
	} else if (!strcmp(n->name, "[off-CPU]")) {
		/* pcl report --wall's leaf of the time blocked (docs/offcpu.md): blue */
		snprintf(out, len, "rgb(110,150,230)");
	} else {
		/* user: warm, red to yellow */
		snprintf(out, len, "rgb(%u,%u,%u)", 205 + v3 * 50 / 255, v1 * 230 / 255,
			 v2 * 55 / 255);
	}
}

/* ---- the document ---- */

static const char style[] = "<style type=\"text/css\"><![CDATA[\n"
			    "text { font-family: monospace; font-size: 12px; fill: #000; }\n"
			    "#title { font-size: 17px; }\n"
			    ".sub { fill: #444; }\n"
			    ".ctl { fill: #0645ad; cursor: pointer; }\n"
			    ".ctl:hover { text-decoration: underline; }\n"
			    ".off { opacity: 0.35; }\n"
			    "g.frame { cursor: pointer; }\n"
			    "g.frame text { pointer-events: none; }\n"
			    "g.frame:hover rect { stroke: #000; stroke-width: 0.5; }\n"
			    ".diff g.frame rect { stroke: #aaa; stroke-width: 0.3; }\n"
			    ".parent { opacity: 0.5; }\n"
			    ".hide { display: none; }\n"
			    "]]></style>\n";

static const char *unit(const struct fg *g)
{
	if (!g->o.by_period)
		return "samples";
	return g->o.period_is_ns ? "ns" : "events";
}

static void put_subtitle(struct fg *g, const struct pcl_profile *p)
{
	FILE *fp = g->fp;

	fprintf(fp, "<text class=\"sub\" x=\"%u\" y=\"42\" text-anchor=\"middle\">",
		g->o.width / 2);
	if (g->o.event && g->o.event[0]) {
		xml_str(fp, g->o.event);
		fputs(": ", fp);
	}
	fprintf(fp, "%" PRIu64 " samples", pcl_profile__nr_samples(p));
	if (g->diff)
		fprintf(fp, " (base: %" PRIu64 ")", pcl_profile__nr_samples(g->o.base));
	if (g->o.by_period)
		fprintf(fp, ", widths by %s", g->o.period_is_ns ? "time" : "period");
	if (g->o.lost_samples)
		fprintf(fp, ", %" PRIu64 " lost", g->o.lost_samples);
	fputs("</text>\n", fp);
	if (g->diff) {
		char b[40];

		fprintf(fp,
			"<text class=\"sub\" x=\"%u\" y=\"58\" text-anchor=\"middle\">"
			"share of the total against the base: red grew, blue shrank, white "
			"unchanged"
			" (deepest: %s points)</text>\n",
			g->o.width / 2, fixed(b, sizeof(b), g->maxdelta, true, false));
	}
}

static void put_head(struct fg *g, const struct pcl_profile *p, unsigned int height)
{
	FILE *fp = g->fp;
	const char *title = g->o.title && g->o.title[0] ? g->o.title : NULL;

	fprintf(fp,
		"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\"%s"
		" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\">\n",
		g->diff ? " class=\"diff\"" : "", g->o.width, height, g->o.width, height);
	fputs(style, fp);
	fprintf(fp, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"#f6f6ee\"/>\n",
		g->o.width, height);
	fprintf(fp, "<text id=\"title\" x=\"%u\" y=\"24\" text-anchor=\"middle\">", g->o.width / 2);
	xml_str(fp, title ? title : g->diff ? "Differential Flame Graph" : "Flame Graph");
	if (title && g->diff)
		fputs(" (differential)", fp);
	fputs("</text>\n", fp);
	put_subtitle(g, p);
	fprintf(fp,
		"<text id=\"reset\" class=\"ctl off\" x=\"%d\" y=\"24\">Reset Zoom</text>\n"
		"<text id=\"search\" class=\"ctl\" x=\"%u\" y=\"24\" text-anchor=\"end\">"
		"Search</text>\n",
		XPAD, g->o.width - XPAD);
	if (!g->levels)
		fprintf(fp, "<text x=\"%u\" y=\"%u\" text-anchor=\"middle\">%s</text>\n",
			g->o.width / 2, g->top + 12,
			g->f.nodes[0].total ? "no frame as wide as the minimum width"
					    : "no samples");
}

/* @name fitted into @w pixels: whole, cut with "...", or nothing. The script's fit() does the same.
 */
static int put_label(struct fg *g, const char *name, double w)
{
	double fit = (w - 6) / CHAR_W;
	size_t chars = 0, cut = 0, n;

	if (fit < 3)
		return 0;
	n = (size_t)fit;
	for (const char *s = name; *s; s++) {
		if (((unsigned char)*s & 0xc0) == 0x80)
			continue;
		if (chars == n - 3)
			cut = (size_t)(s - name);
		chars++;
	}
	if (chars <= n) {
		xml_str(g->fp, name);
		return 0;
	}
	if (n <= 3)
		return 0;
	if (cut + 1 > g->buflen) {
		char *b = realloc(g->buf, cut + 1);

		if (!b)
			return -ENOMEM;
		g->buf = b;
		g->buflen = cut + 1;
	}
	memcpy(g->buf, name, cut);
	g->buf[cut] = '\0';
	xml_str(g->fp, g->buf);
	fputs("...", g->fp);
	return 0;
}

static int put_frame(struct fg *g, const struct drawn *d)
{
	const struct pcl_flame_node *n = &g->f.nodes[d->node];
	double w = rounded((double)n->total * g->scale), x = rounded(d->x);
	unsigned int level = g->o.icicle ? n->depth : g->levels - 1 - n->depth;
	char fill[40], pct[40], dl[40];
	FILE *fp = g->fp;

	if (!d->node)
		w = g->gw;
	colour(g, d, fill, sizeof(fill));
	fixed(pct, sizeof(pct), (double)n->total * 100 / (double)g->f.nodes[0].total, false, false);
	fputs("<g class=\"frame\" data-name=\"", fp);
	xml_str(fp, n->name);
	fputs("\"><title>", fp);
	xml_str(fp, n->name);
	fprintf(fp, " (%" PRIu64 " %s, %s%%", n->total, unit(g), pct);
	if (g->diff)
		fprintf(fp, "; %s points", fixed(dl, sizeof(dl), delta(g, d), true, false));
	fputs(")</title><rect x=\"", fp);
	put_num(fp, x);
	fprintf(fp, "\" y=\"%u\" width=\"", g->top + level * FRAME_H);
	put_num(fp, w);
	fprintf(fp, "\" height=\"%d\" rx=\"2\" ry=\"2\" fill=\"%s\"/><text x=\"", FRAME_H - 1,
		fill);
	put_num(fp, x + 3);
	fprintf(fp, "\" y=\"%u\">", g->top + level * FRAME_H + 11);
	if (put_label(g, n->name, w))
		return -ENOMEM;
	fputs("</text></g>\n", fp);
	return 0;
}

/*
 * The script: rebuilds the tree from the frames' order and depths (see the
 * top of this file), zooms, searches, shows details. No external reference,
 * no "]]>" inside.
 */
static const char script[] =
	"(function () {\n"
	"'use strict';\n"
	"var frames = [], zoomed = -1, term = '', HL = 'rgb(230,0,230)';\n"
	"var box, details, matched, resetBtn, searchBtn;\n"
	"function fit(s, w) {\n"
	"  var n = Math.floor((w - 6) / 7.2);\n"
	"  if (n < 3) return '';\n"
	"  if (s.length <= n) return s;\n"
	"  return n > 3 ? s.slice(0, n - 3) + '...' : '';\n"
	"}\n"
	"function place(f, x, w) {\n"
	"  f.r.setAttribute('x', x);\n"
	"  f.r.setAttribute('width', w);\n"
	"  f.t.setAttribute('x', x + 3);\n"
	"  f.t.textContent = fit(f.name, w);\n"
	"}\n"
	"function setClass(f, hide, parent) {\n"
	"  f.g.classList.toggle('hide', hide);\n"
	"  f.g.classList.toggle('parent', parent);\n"
	"}\n"
	"function reset() {\n"
	"  for (var k = 0; k < frames.length; k++) {\n"
	"    setClass(frames[k], false, false);\n"
	"    place(frames[k], frames[k].x, frames[k].w);\n"
	"  }\n"
	"  zoomed = -1;\n"
	"  resetBtn.classList.add('off');\n"
	"}\n"
	"function zoom(i) {\n"
	"  var f = frames[i], k, s;\n"
	"  if (!f) return;\n"
	"  if (f.parent < 0) { reset(); return; }\n"
	"  s = CFG.gw / f.w;\n"
	"  for (k = 0; k < frames.length; k++) setClass(frames[k], k < i || k >= f.end, false);\n"
	"  for (k = f.parent; k >= 0; k = frames[k].parent) {\n"
	"    setClass(frames[k], false, true);\n"
	"    place(frames[k], CFG.xpad, CFG.gw);\n"
	"  }\n"
	"  place(f, CFG.xpad, CFG.gw);\n"
	"  for (k = i + 1; k < f.end; k++)\n"
	"    place(frames[k], CFG.xpad + (frames[k].x - f.x) * s, frames[k].w * s);\n"
	"  zoomed = i;\n"
	"  resetBtn.classList.remove('off');\n"
	"}\n"
	"function search(t) {\n"
	"  var re = null, sum = 0, upto = 0, k, f, m;\n"
	"  term = t ? String(t) : '';\n"
	"  if (term) {\n"
	"    try { re = new RegExp(term); } catch (e) {\n"
	"      details.textContent = 'not a regular expression: ' + term;\n"
	"      term = '';\n"
	"    }\n"
	"  }\n"
	"  for (k = 0; k < frames.length; k++) {\n"
	"    f = frames[k];\n"
	"    m = re !== null && re.test(f.name);\n"
	"    f.r.setAttribute('fill', m ? HL : f.fill);\n"
	"    if (m && k >= upto) { sum += f.w; upto = f.end; }\n"
	"  }\n"
	"  matched.textContent = re ? 'Matched: ' + (100 * sum / CFG.gw).toFixed(1) + '%' : '';\n"
	"}\n"
	"function ask() {\n"
	"  var t = window.prompt('Search for functions (a regular expression; empty: clear)', "
	"term);\n"
	"  if (t !== null) search(t);\n"
	"}\n"
	"function index(el) {\n"
	"  for (; el && el !== box; el = el.parentNode)\n"
	"    if (typeof el.pclIndex === 'number') return el.pclIndex;\n"
	"  return -1;\n"
	"}\n"
	"function init() {\n"
	"  var gs = document.querySelectorAll('g.frame'), open = [], i, g, r, lv, f;\n"
	"  box = document.getElementById('frames');\n"
	"  details = document.getElementById('details');\n"
	"  matched = document.getElementById('matched');\n"
	"  resetBtn = document.getElementById('reset');\n"
	"  searchBtn = document.getElementById('search');\n"
	"  for (i = 0; i < gs.length; i++) {\n"
	"    g = gs[i];\n"
	"    r = g.querySelector('rect');\n"
	"    lv = Math.round((parseFloat(r.getAttribute('y')) - CFG.top) / CFG.fh);\n"
	"    f = { g: g, r: r, t: g.querySelector('text'), name: g.getAttribute('data-name') || "
	"'',\n"
	"          title: g.querySelector('title').textContent, fill: r.getAttribute('fill'),\n"
	"          x: parseFloat(r.getAttribute('x')), w: parseFloat(r.getAttribute('width')),\n"
	"          d: CFG.icicle ? lv : CFG.levels - 1 - lv, parent: -1, end: gs.length };\n"
	"    while (open.length && frames[open[open.length - 1]].d >= f.d)\n"
	"      frames[open.pop()].end = i;\n"
	"    f.parent = open.length ? open[open.length - 1] : -1;\n"
	"    g.pclIndex = i;\n"
	"    frames.push(f);\n"
	"    open.push(i);\n"
	"  }\n"
	"  box.addEventListener('click', function (e) { var k = index(e.target); if (k >= 0) "
	"zoom(k); });\n"
	"  box.addEventListener('mouseover', function (e) {\n"
	"    var k = index(e.target);\n"
	"    if (k >= 0) details.textContent = frames[k].title;\n"
	"  });\n"
	"  box.addEventListener('mouseout', function () { details.textContent = ' '; });\n"
	"  resetBtn.addEventListener('click', reset);\n"
	"  searchBtn.addEventListener('click', ask);\n"
	"  document.addEventListener('keydown', function (e) {\n"
	"    if ((e.ctrlKey || e.metaKey) && (e.key === 'f' || e.key === 'F')) {\n"
	"      e.preventDefault();\n"
	"      ask();\n"
	"    } else if (e.key === 'Escape') {\n"
	"      search('');\n"
	"    }\n"
	"  });\n"
	"  window.pclFlame = {\n"
	"    zoom: function (which) {\n"
	"      var k;\n"
	"      if (typeof which === 'number') { zoom(which); return; }\n"
	"      for (k = 0; k < frames.length; k++)\n"
	"        if (frames[k].name === which) { zoom(k); return; }\n"
	"    },\n"
	"    reset: reset,\n"
	"    search: search\n"
	"  };\n"
	"  /* a graph taller than the window opens at its base, where the root is */\n"
	"  if (!CFG.icicle && window.scrollTo)\n"
	"    window.scrollTo(0, document.documentElement.scrollHeight);\n"
	"}\n"
	"if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', "
	"init);\n"
	"else init();\n"
	"})();\n";

static void put_tail(struct fg *g, unsigned int height)
{
	FILE *fp = g->fp;
	char gw[40];

	fputs("</g>\n", fp);
	fprintf(fp, "<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n", XPAD, height - 12);
	fprintf(fp, "<text id=\"matched\" x=\"%u\" y=\"%u\" text-anchor=\"end\"></text>\n",
		g->o.width - XPAD, height - 12);
	fprintf(fp,
		"<script type=\"text/ecmascript\"><![CDATA[\n"
		"var CFG = { xpad: %d, gw: %s, top: %u, fh: %d, levels: %u, icicle: %s };\n",
		XPAD, fixed(gw, sizeof(gw), g->gw, false, true), g->top, FRAME_H, g->levels,
		g->o.icicle ? "true" : "false");
	fputs(script, fp);
	fputs("]]></script>\n</svg>\n", fp);
}

/* Options with their defaults filled in; only the fields @opts's size covers are read. */
static int fg_init(struct fg *g, FILE *fp, const struct pcl_profile *p,
		   const struct pcl_export_opts *opts)
{
	int ret;

	memset(g, 0, sizeof(*g));
	g->fp = fp;
	ret = opts_copy(&g->o, opts, "pcl_export_opts");
	if (ret < 0)
		return ret;
	if (!g->o.width)
		g->o.width = 1200;
	if (g->o.width < MIN_WIDTH || g->o.width > MAX_WIDTH)
		return pcl_err(-EINVAL, "flame graph width %u is out of range (%u to %u pixels)",
			       g->o.width, MIN_WIDTH, MAX_WIDTH);
	if (!(g->o.min_width > 0))
		g->o.min_width = 0.1;
	g->gw = g->o.width - 2 * XPAD;
	g->diff = g->o.base != NULL;
	g->top = g->diff ? 72 : 56;
	g->funcs = pcl_profile__funcs(p, &g->nr_funcs);
	return 0;
}

int pcl_export_flamegraph(FILE *fp, const struct pcl_profile *p, const struct pcl_export_opts *opts)
{
	unsigned int height;
	struct fg g;
	int ret;

	if (!fp || !p)
		return pcl_err(EINVAL, "pcl_export_flamegraph: no output or no profile");
	ret = fg_init(&g, fp, p, opts);
	if (ret)
		return ret;
	ret = pcl_flame__build(&g.f, p, g.o.by_period, -1);
	if (ret)
		return ret;
	if (g.diff && (ret = pcl_flame__build(&g.b, g.o.base, g.o.by_period, -1)))
		goto out;
	g.scale = g.f.nodes[0].total ? g.gw / (double)g.f.nodes[0].total : 0;
	ret = collect(&g);
	if (ret)
		goto out;
	height = g.top + (g.levels ? g.levels : 1) * FRAME_H + 34;
	put_head(&g, p, height);
	fputs("<g id=\"frames\">\n", fp);
	for (size_t i = 0; i < g.nr && !ret; i++)
		ret = put_frame(&g, &g.d[i]);
	if (ret)
		goto out;
	put_tail(&g, height);
	if (ferror(fp))
		ret = pcl_err(-EIO, "cannot write the flame graph");
out:
	if (ret == -ENOMEM)
		pcl_err(ret, "out of memory");
	pcl_flame__free(&g.f);
	pcl_flame__free(&g.b);
	free(g.d);
	free(g.buf);
	return ret;
}
