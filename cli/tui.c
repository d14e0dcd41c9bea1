/* SPDX-License-Identifier: MIT */
/*
 * The interactive histogram browser (cli/tui.h, docs/tui.md), on ncurses.
 *
 * The rows are the stdio report's own lines: the histogram is printed by
 * pcl_report__print (no call graph) into memory and each entry line is
 * shown as it is, so the columns, widths and contents are those of
 * `pcl report --stdio`. An expanded entry shows the lines the same printer
 * writes under it with the call graph on (-g), printed once per histogram
 * when the first entry is expanded. The browser only chooses which entries
 * to show (zoom, search) and where the selection is.
 */
#include <curses.h>
#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pcl/machine.h>
#include <pcl/symbol.h>
#include "tui.h"

#define KEY_ESC 27
#define CTRL(c) ((c)&0x1f)

/* What an entry is, by the sort keys' values: kept across a live source's ticks. */
struct ekey {
	char *comm, *dso, *sym, *srcline, *srcfile;
	uint64_t addr;
	int32_t tid, cpu;
	const void *parent;
};

/* An open chain: its entry, and the branches folded in it (their first line) */
struct expn {
	struct ekey k;
	int *folds;
	int nr_folds;
};

struct tent {
	const struct pcl_hist_entry *e;
	const char *line;   /* its stdio line, in model.text */
	const char **chain; /* its call-graph lines, in model.gtext (once built) */
	int nr_chain;
	/*
	 * Each chain line's name column (-1: bars only) and whether it starts
	 * a branch ("--12.34%--name", "---name"): the tree the lines draw,
	 * for folding a branch. @vis: the lines not folded away, @nr_vis of them.
	 */
	int *col;
	bool *branch;
	int *vis, nr_vis;
	bool expanded;
	bool visible; /* passes the zooms and the search */
};

struct model {
	const struct pcl_hists *h;
	char *text;	    /* the stdio report, no call graph */
	const char *colhdr; /* its column title line, '#' blanked */
	struct tent *ents;
	int nr;
	char *gtext; /* the stdio report with the call graph */
	bool chains_built, chains_failed;
};

enum zoom { ZOOM_THREAD, ZOOM_DSO, ZOOM_SYM, ZOOM__NR };

struct browser {
	const struct tui_source *src;
	struct model m;
	/* zooms: thread by tid, DSO and symbol by name (pointers may not last a tick) */
	bool zoomed[ZOOM__NR];
	int32_t z_tid;
	char *z_comm, *z_dso, *z_sym;
	enum zoom stack[ZOOM__NR];
	int nr_stack;
	char *search; /* symbol substring, NULL: none */
	/* expanded entries, by key */
	struct expn *exp;
	int nr_exp;
	/* selection: row index and the first row shown */
	int sel, top;
	struct ekey sel_key; /* the selected entry, to find it again after a tick */
	int sel_line;	     /* the selected row inside its entry (0: the entry) */
	bool has_sel_key;
	char status[256];
	bool color;
	struct pcl_report_opts vro; /* the columns shown (view_opts) */
	int header_rows;	    /* the title's and column titles' rows on screen */
};

static volatile sig_atomic_t tui_signal;

static void on_signal(int sig)
{
	tui_signal = sig;
}

/* ---- entry keys ---- */

static char *xstrdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

static void ekey_free(struct ekey *k)
{
	free(k->comm);
	free(k->dso);
	free(k->sym);
	free(k->srcline);
	free(k->srcfile);
	memset(k, 0, sizeof(*k));
}

static const char *dso_name(const struct pcl_hist_entry *e)
{
	return e->frame.map ? e->frame.map->dso->short_name : "[unknown]";
}

static void ekey_set(struct ekey *k, const struct pcl_hist_entry *e)
{
	memset(k, 0, sizeof(*k));
	k->comm = xstrdup(e->comm);
	k->dso = xstrdup(dso_name(e));
	k->sym = xstrdup(e->frame.sym ? e->frame.sym->name : NULL);
	k->srcline = xstrdup(e->srcline);
	k->srcfile = xstrdup(e->srcfile);
	k->addr = e->frame.sym ? 0 : e->frame.addr;
	k->tid = e->tid;
	k->cpu = e->cpu;
	k->parent = e->parent;
}

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static bool ekey_match(const struct ekey *k, const struct pcl_hist_entry *e,
		       const struct pcl_report_opts *ro)
{
	static const enum pcl_sort_key def[] = { PCL_SORT_COMM, PCL_SORT_DSO, PCL_SORT_SYM };
	const enum pcl_sort_key *keys = ro && ro->nr_keys ? ro->keys : def;
	int n = ro && ro->nr_keys ? ro->nr_keys : 3;

	for (int i = 0; i < n; i++) {
		switch (keys[i]) {
		case PCL_SORT_COMM:
			if (!str_eq(k->comm, e->comm))
				return false;
			break;
		case PCL_SORT_DSO:
			if (!str_eq(k->dso, dso_name(e)))
				return false;
			break;
		case PCL_SORT_SYM:
			if (!str_eq(k->sym, e->frame.sym ? e->frame.sym->name : NULL) ||
			    (!e->frame.sym && k->addr != e->frame.addr))
				return false;
			break;
		case PCL_SORT_PID:
		case PCL_SORT_TID:
			if (k->tid != e->tid)
				return false;
			break;
		case PCL_SORT_CPU:
			if (k->cpu != e->cpu)
				return false;
			break;
		case PCL_SORT_SRCLINE:
			if (!str_eq(k->srcline, e->srcline))
				return false;
			break;
		case PCL_SORT_SRCFILE:
			if (!str_eq(k->srcfile, e->srcfile))
				return false;
			break;
		case PCL_SORT_PARENT:
			if (k->parent != e->parent)
				return false;
			break;
		default:
			break;
		}
	}
	return true;
}

/* ---- the model: the stdio report's lines ---- */

static void model_free(struct model *m)
{
	for (int i = 0; i < m->nr; i++) {
		free(m->ents[i].chain);
		free(m->ents[i].col);
		free(m->ents[i].branch);
		free(m->ents[i].vis);
	}
	free(m->ents);
	free(m->text);
	free(m->gtext);
	memset(m, 0, sizeof(*m));
}

static double pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

/* pcl_report__print's rule for the entries it prints (lib/output/report.c shown()) */
static bool entry_printed(const struct pcl_report_opts *o, const struct pcl_hists *h,
			  const struct pcl_hist_entry *e)
{
	uint64_t total = o->total_period ? o->total_period : pcl_hists__total_period(h);
	bool any = e->self || (o->children && e->children);

	if (e->hidden)
		return false;
	for (int i = 1;
	     o->nr_members > 1 && o->member_totals && e->member_self && i < o->nr_members; i++)
		any = any || e->member_self[i];
	if (!any)
		return false;
	return pct(o->children ? e->children : e->self, total) >= o->percent_limit;
}

/* Print @h by @ro (graph as @graph) into a string: NULL on failure. */
static char *print_report(const struct pcl_hists *h, const struct pcl_report_opts *ro,
			  enum pcl_graph_mode graph)
{
	struct pcl_report_opts o = *ro;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	int ret;

	if (!fp)
		return NULL;
	o.sz = sizeof(o);
	o.graph = graph;
	o.quiet = false;
	o.color = false;
	ret = pcl_report__print(fp, h, &o);
	if (fclose(fp) || ret) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Split @s into its lines in place; *@nr of them, NULL on ENOMEM. */
static char **split_lines(char *s, int *nr)
{
	int n = 0, alloc = 64;
	char **v = malloc((size_t)alloc * sizeof(*v));

	if (!v)
		return NULL;
	while (*s) {
		char *nl = strchr(s, '\n');

		if (n == alloc) {
			char **nv = realloc(v, (size_t)(alloc *= 2) * sizeof(*v));

			if (!nv) {
				free(v);
				return NULL;
			}
			v = nv;
		}
		v[n++] = s;
		if (!nl)
			break;
		*nl = '\0';
		s = nl + 1;
	}
	*nr = n;
	return v;
}

static int model_build(struct model *m, const struct pcl_hists *h, const struct pcl_report_opts *ro)
{
	char **lines;
	int nr_lines = 0, li = 0, n = 0;
	size_t nr_h = pcl_hists__nr_entries(h);

	memset(m, 0, sizeof(*m));
	m->h = h;
	if (!(m->text = print_report(h, ro, PCL_GRAPH_NONE)))
		return -ENOMEM;
	if (!(lines = split_lines(m->text, &nr_lines)))
		return -ENOMEM;
	/* "# Overhead  Command ...", "# .....", "#": the first is the columns' titles */
	while (li < nr_lines && lines[li][0] == '#') {
		if (!m->colhdr && lines[li][1]) {
			lines[li][0] = ' ';
			m->colhdr = lines[li];
		}
		li++;
	}
	m->ents = calloc(nr_h ? nr_h : 1, sizeof(*m->ents));
	if (!m->ents) {
		free(lines);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nr_h && li < nr_lines; i++) {
		const struct pcl_hist_entry *e = pcl_hists__entry(h, i);

		if (!entry_printed(ro, h, e))
			continue;
		m->ents[n].e = e;
		m->ents[n].line = lines[li++];
		m->ents[n].visible = true;
		n++;
	}
	m->nr = n;
	/*
	 * Every line an entry's, every entry shown a line: else a row would be
	 * taken for another entry (zoom, annotate): an error, not a guess.
	 */
	for (size_t i = 0; i < nr_h; i++)
		n -= entry_printed(ro, h, pcl_hists__entry(h, i));
	while (li < nr_lines && !lines[li][0])
		li++;
	free(lines);
	return li != nr_lines || n ? -EPROTO : 0;
}

/*
 * Where a call-graph line's frame name starts, -1 for a line of bars;
 * *@branch: the line starts a branch, "|--12.34%--name" or "---name" (its
 * other lines are the block's next frames, "|          name", in the same
 * column). A branch's children are the lines in deeper columns under it.
 */
static int name_col(const char *s, bool *branch)
{
	int p = (int)strspn(s, " |");
	const char *q;

	*branch = false;
	if (!s[p])
		return -1;
	if (!strncmp(s + p, "---", 3)) {
		*branch = true;
		return p + 3;
	}
	if (!strncmp(s + p, "--", 2) && (q = strstr(s + p + 2, "--"))) {
		*branch = true;
		return (int)(q + 2 - s);
	}
	return p;
}

/*
 * Each entry's call-graph lines: the -g report is each entry's line (the
 * same as without the graph) followed by its graph lines and a blank line.
 */
static int model_chains(struct model *m, const struct pcl_report_opts *ro)
{
	char **lines;
	int nr_lines = 0, li = 0;

	if (m->chains_built || m->chains_failed)
		return m->chains_failed ? -ENOMEM : 0;
	m->chains_failed = true;
	if (ro->graph == PCL_GRAPH_NONE) {
		m->chains_built = true;
		m->chains_failed = false;
		return 0;
	}
	if (!(m->gtext = print_report(m->h, ro, ro->graph)))
		return -ENOMEM;
	if (!(lines = split_lines(m->gtext, &nr_lines)))
		return -ENOMEM;
	while (li < nr_lines && lines[li][0] == '#')
		li++;
	for (int i = 0; i < m->nr; i++) {
		struct tent *t = &m->ents[i];
		int start, end;

		if (li >= nr_lines || strcmp(lines[li], t->line))
			break; /* not the layout expected: no chains rather than wrong ones */
		start = ++li;
		while (li < nr_lines && (i + 1 >= m->nr || strcmp(lines[li], m->ents[i + 1].line)))
			li++;
		end = li;
		while (end > start && !lines[end - 1][strspn(lines[end - 1], " ")])
			end--; /* the blank line after a graph */
		if (end > start) {
			size_t n = (size_t)(end - start);

			t->chain = malloc(n * sizeof(*t->chain));
			t->col = malloc(n * sizeof(*t->col));
			t->branch = malloc(n * sizeof(*t->branch));
			t->vis = malloc(n * sizeof(*t->vis));
			if (!t->chain || !t->col || !t->branch || !t->vis) {
				free(lines);
				return -ENOMEM;
			}
			for (int k = start; k < end; k++) {
				t->chain[k - start] = lines[k];
				t->col[k - start] = name_col(lines[k], &t->branch[k - start]);
			}
			t->nr_chain = end - start;
		}
	}
	free(lines);
	m->chains_built = true;
	m->chains_failed = false;
	return 0;
}

static bool has_chain(const struct tent *t, const struct pcl_report_opts *ro)
{
	if (ro->graph == PCL_GRAPH_NONE || !t->e->root)
		return false;
	return t->e->root->first != NULL;
}

/* ---- zoom, search, expansion ---- */

static bool entry_visible(const struct browser *b, const struct pcl_hist_entry *e)
{
	if (b->zoomed[ZOOM_THREAD] && e->tid != b->z_tid)
		return false;
	if (b->zoomed[ZOOM_DSO] && !str_eq(dso_name(e), b->z_dso))
		return false;
	if (b->zoomed[ZOOM_SYM] && (!e->frame.sym || !str_eq(e->frame.sym->name, b->z_sym)))
		return false;
	/* perf's symbol filter: entries without a symbol go too */
	if (b->search && (!e->frame.sym || !strstr(e->frame.sym->name, b->search)))
		return false;
	return true;
}

static struct expn *find_exp(const struct browser *b, const struct pcl_hist_entry *e)
{
	for (int i = 0; i < b->nr_exp; i++)
		if (ekey_match(&b->exp[i].k, e, b->src->ropts))
			return &b->exp[i];
	return NULL;
}

static void expn_free(struct expn *x)
{
	ekey_free(&x->k);
	free(x->folds);
	x->folds = NULL;
	x->nr_folds = 0;
}

/* Open (every branch unfolded) or close entry @e's chain. */
static void set_expanded(struct browser *b, const struct pcl_hist_entry *e, bool on)
{
	struct expn *x = find_exp(b, e), *nv;

	if (x && !on) {
		expn_free(x);
		*x = b->exp[--b->nr_exp];
		return;
	}
	if (x) {
		free(x->folds);
		x->folds = NULL;
		x->nr_folds = 0;
		return;
	}
	if (!on || !(nv = realloc(b->exp, (size_t)(b->nr_exp + 1) * sizeof(*nv))))
		return;
	b->exp = nv;
	memset(&b->exp[b->nr_exp], 0, sizeof(*b->exp));
	ekey_set(&b->exp[b->nr_exp++].k, e);
}

static void clear_expanded(struct browser *b)
{
	for (int i = 0; i < b->nr_exp; i++)
		expn_free(&b->exp[i]);
	b->nr_exp = 0;
}

/* The first line of the block line @i of @t is in (-1: a line of bars). */
static int block_start(const struct tent *t, int i)
{
	if (t->col[i] < 0)
		return -1;
	while (!t->branch[i] && i > 0 && t->col[i - 1] == t->col[i])
		i--;
	return i;
}

/*
 * The lines a fold of the block starting at line @s hides: [*@from, *@to),
 * what is under its last frame up to the next line at its depth or above,
 * the bars before that line kept. Empty: nothing to fold.
 */
static void fold_range(const struct tent *t, int s, int *from, int *to)
{
	int c = t->col[s], e = s, r;

	while (e + 1 < t->nr_chain && !t->branch[e + 1] && t->col[e + 1] == c)
		e++;
	for (r = e + 1; r < t->nr_chain; r++)
		if (t->col[r] >= 0 && t->col[r] <= c)
			break;
	if (r < t->nr_chain)
		while (r - 1 > e && t->col[r - 1] < 0)
			r--;
	*from = e + 1;
	*to = r;
}

static bool is_folded(const struct expn *x, int s)
{
	for (int i = 0; x && i < x->nr_folds; i++)
		if (x->folds[i] == s)
			return true;
	return false;
}

/* Fold or unfold the branch line @line of @t is in. */
static void toggle_fold(struct browser *b, struct tent *t, int line)
{
	struct expn *x = find_exp(b, t->e);
	int s = block_start(t, line), from, to;

	if (!x || s < 0) {
		snprintf(b->status, sizeof(b->status), "nothing to fold here");
		return;
	}
	fold_range(t, s, &from, &to);
	if (from >= to) {
		snprintf(b->status, sizeof(b->status), "nothing under this branch");
		return;
	}
	for (int i = 0; i < x->nr_folds; i++) {
		if (x->folds[i] == s) {
			x->folds[i] = x->folds[--x->nr_folds];
			return;
		}
	}
	int *nv = realloc(x->folds, (size_t)(x->nr_folds + 1) * sizeof(*nv));

	if (!nv)
		return;
	x->folds = nv;
	x->folds[x->nr_folds++] = s;
}

/* The chain lines of @t that its folds leave, into t->vis. */
static void chain_visible(struct tent *t, const struct expn *x)
{
	int hide_to = -1;

	t->nr_vis = 0;
	for (int i = 0; i < t->nr_chain; i++) {
		int from, to;

		if (i < hide_to)
			continue;
		t->vis[t->nr_vis++] = i;
		if (x && x->nr_folds && block_start(t, i) == i && is_folded(x, i)) {
			fold_range(t, i, &from, &to);
			/* the block's own lines stay; what is under it goes */
			for (int k = i + 1; k < from; k++)
				t->vis[t->nr_vis++] = k;
			hide_to = to;
			i = from - 1;
		}
	}
}

/* Visibility and expansion of the model's entries from the browser's state. */
static void apply_state(struct browser *b)
{
	for (int i = 0; i < b->m.nr; i++) {
		struct tent *t = &b->m.ents[i];

		t->visible = entry_visible(b, t->e);
		t->expanded = b->nr_exp && has_chain(t, b->src->ropts) && find_exp(b, t->e);
	}
	if (b->nr_exp && model_chains(&b->m, &b->vro))
		snprintf(b->status, sizeof(b->status), "out of memory for the call graphs");
	for (int i = 0; i < b->m.nr; i++) {
		struct tent *t = &b->m.ents[i];

		if (t->expanded && t->nr_chain)
			chain_visible(t, find_exp(b, t->e));
		else
			t->nr_vis = 0;
	}
}

/* Rows: the visible entries and the chain lines of the expanded ones. */
static int nr_rows(const struct browser *b)
{
	int n = 0;

	for (int i = 0; i < b->m.nr; i++)
		if (b->m.ents[i].visible)
			n += 1 + (b->m.ents[i].expanded ? b->m.ents[i].nr_vis : 0);
	return n;
}

/* The entry of row @row, and the row's line in it (0: the entry line). */
static struct tent *row_entry(struct browser *b, int row, int *line)
{
	for (int i = 0; i < b->m.nr; i++) {
		struct tent *t = &b->m.ents[i];
		int n;

		if (!t->visible)
			continue;
		n = 1 + (t->expanded ? t->nr_vis : 0);
		if (row < n) {
			if (line)
				*line = row;
			return t;
		}
		row -= n;
	}
	return NULL;
}

/* The row of entry @t's line @line. */
static int entry_row(const struct browser *b, const struct tent *t, int line)
{
	int row = 0;

	for (int i = 0; i < b->m.nr; i++) {
		const struct tent *u = &b->m.ents[i];

		if (!u->visible)
			continue;
		if (u == t)
			return row + (u->expanded && line <= u->nr_vis ? line : 0);
		row += 1 + (u->expanded ? u->nr_vis : 0);
	}
	return 0;
}

static void remember_sel(struct browser *b)
{
	int line = 0;
	struct tent *t = row_entry(b, b->sel, &line);

	if (b->has_sel_key)
		ekey_free(&b->sel_key);
	b->has_sel_key = false;
	if (t) {
		ekey_set(&b->sel_key, t->e);
		b->sel_line = line;
		b->has_sel_key = true;
	}
}

/* After the rows change: the selection on the same entry if it is still shown. */
static void restore_sel(struct browser *b)
{
	int rows = nr_rows(b);

	if (b->has_sel_key) {
		for (int i = 0; i < b->m.nr; i++) {
			struct tent *t = &b->m.ents[i];

			if (t->visible && ekey_match(&b->sel_key, t->e, b->src->ropts)) {
				b->sel = entry_row(b, t, b->sel_line);
				return;
			}
		}
	}
	if (b->sel >= rows)
		b->sel = rows ? rows - 1 : 0;
	if (b->sel < 0)
		b->sel = 0;
}

/*
 * The columns shown: the source's, without the DSO column while zoomed
 * into a DSO and the pid column while zoomed into a thread, as perf elides
 * them (unless that would leave no key column).
 */
static void view_opts(struct browser *b)
{
	const struct pcl_report_opts *ro = b->src->ropts;
	struct pcl_report_opts *v = &b->vro;
	static const enum pcl_sort_key def[] = { PCL_SORT_COMM, PCL_SORT_DSO, PCL_SORT_SYM };
	int n = 0, keys = 0;

	*v = *ro;
	v->sz = sizeof(*v);
	if (!b->zoomed[ZOOM_DSO] && !b->zoomed[ZOOM_THREAD])
		return;
	if (!v->nr_keys) {
		memcpy(v->keys, def, sizeof(def));
		v->nr_keys = 3;
	}
#define ELIDED(k)                                                                                  \
	((b->zoomed[ZOOM_DSO] && (k) == PCL_SORT_DSO) ||                                           \
	 (b->zoomed[ZOOM_THREAD] && ((k) == PCL_SORT_PID || (k) == PCL_SORT_TID)))
	if (v->nr_fields) {
		for (int i = 0; i < v->nr_fields; i++)
			keys += v->fields[i].hpp == PCL_HPP_KEY && !ELIDED(v->fields[i].key);
		if (!keys)
			return;
		for (int i = 0; i < ro->nr_fields; i++)
			if (ro->fields[i].hpp != PCL_HPP_KEY || !ELIDED(ro->fields[i].key))
				v->fields[n++] = ro->fields[i];
		v->nr_fields = n;
		return;
	}
	for (int i = 0; i < v->nr_keys; i++)
		keys += !ELIDED(v->keys[i]);
	if (!keys)
		return;
	for (int i = 0, m = v->nr_keys; i < m; i++)
		if (!ELIDED(v->keys[i]))
			v->keys[n++] = v->keys[i];
	v->nr_keys = n;
#undef ELIDED
}

/* The rows of histogram @h again (the same or a new one), the state kept. */
static int rebuild(struct browser *b, const struct pcl_hists *h)
{
	int ret;

	remember_sel(b);
	model_free(&b->m);
	view_opts(b);
	if ((ret = model_build(&b->m, h, &b->vro)))
		return ret;
	apply_state(b);
	restore_sel(b);
	return 0;
}

/* A new histogram from the source. */
static int reload(struct browser *b)
{
	const struct pcl_hists *h = b->src->get(b->src->ctx);

	return h ? rebuild(b, h) : -EIO;
}

static void refilter(struct browser *b)
{
	remember_sel(b);
	apply_state(b);
	restore_sel(b);
}

/* ---- drawing ---- */

enum { PAIR_RED = 1, PAIR_GREEN, PAIR_TITLE, PAIR_SEL, PAIR_STATUS };

/* The length of a percentage "12.34%" starting at @s (after a non-digit), else 0. */
static int pct_token(const char *s, const char *start)
{
	const char *p = s;

	if (s > start && (s[-1] == '.' || (s[-1] >= '0' && s[-1] <= '9') || s[-1] == '-'))
		return 0;
	if (*p == '-')
		p++;
	if (*p < '0' || *p > '9')
		return 0;
	while (*p >= '0' && *p <= '9')
		p++;
	if (p[0] != '.' || p[1] < '0' || p[1] > '9' || p[2] < '0' || p[2] > '9' || p[3] != '%')
		return 0;
	return (int)(p + 4 - s);
}

/* Line @s at row @y from column @x, percentages in perf's colours unless @sel. */
static void draw_text(struct browser *b, int y, int x, const char *s, bool sel)
{
	int w = COLS - x;
	const char *p = s;

	move(y, x);
	if (!b->color || sel) {
		addnstr(s, w > 0 ? w : 0);
		return;
	}
	while (*p && w > 0) {
		int n = pct_token(p, s);

		if (n) {
			double v = strtod(p, NULL);
			const char *c = pcl_percent_color(v);
			int pair = c[0] && c[3] == '1' ? PAIR_RED : c[0] ? PAIR_GREEN : 0;

			if (pair)
				attron(COLOR_PAIR(pair));
			addnstr(p, n < w ? n : w);
			if (pair)
				attroff(COLOR_PAIR(pair));
			p += n;
			w -= n;
			continue;
		}
		n = 1;
		while (p[n] && !pct_token(p + n, s))
			n++;
		addnstr(p, n < w ? n : w);
		p += n;
		w -= n;
	}
}

static bool ro_has_key(const struct pcl_report_opts *ro, enum pcl_sort_key k)
{
	for (int i = 0; i < ro->nr_keys; i++)
		if (ro->keys[i] == k)
			return true;
	for (int i = 0; i < ro->nr_fields; i++)
		if (ro->fields[i].hpp == PCL_HPP_KEY && ro->fields[i].key == k)
			return true;
	return false;
}

/* The title's lines, then the zooms, as perf's title line says them. */
static void title_text(struct browser *b, char *buf, size_t len)
{
	const char *t = b->src->title ? b->src->title(b->src->ctx) : NULL;
	size_t n;

	snprintf(buf, len, "%s", t ? t : "");
	n = strlen(buf);
	while (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	/* perf's: the tid only when the entries are by thread (the pid key) */
	if (b->zoomed[ZOOM_THREAD] &&
	    (ro_has_key(b->src->ropts, PCL_SORT_PID) || ro_has_key(b->src->ropts, PCL_SORT_TID)))
		n += (size_t)snprintf(buf + n, n < len ? len - n : 0, ", Thread: %s(%d)",
				      b->z_comm ? b->z_comm : "", b->z_tid);
	else if (b->zoomed[ZOOM_THREAD])
		n += (size_t)snprintf(buf + n, n < len ? len - n : 0, ", Thread: %s",
				      b->z_comm ? b->z_comm : "");
	if (n < len && b->zoomed[ZOOM_DSO])
		n += (size_t)snprintf(buf + n, len - n, ", DSO: %s", b->z_dso);
	if (n < len && b->zoomed[ZOOM_SYM])
		n += (size_t)snprintf(buf + n, len - n, ", Symbol: %s", b->z_sym);
	if (n < len && b->search)
		snprintf(buf + n, len - n, ", Symbol filter: %s", b->search);
}

static int page_rows(const struct browser *b)
{
	int n = LINES - b->header_rows - 1;

	return n > 1 ? n : 1;
}

/* The title's lines and the column titles; the number of rows they take. */
static int draw_title(struct browser *b)
{
	char title[2048];
	int y = 0;
	attr_t attr = b->color ? COLOR_PAIR(PAIR_TITLE) | A_BOLD : A_REVERSE;

	title_text(b, title, sizeof(title));
	for (char *s = title, *nl; s && y < LINES - 2; s = nl ? nl + 1 : NULL, y++) {
		nl = strchr(s, '\n');
		if (nl)
			*nl = '\0';
		attron(attr);
		mvhline(y, 0, ' ', COLS);
		mvaddnstr(y, 0, s, COLS);
		attroff(attr);
	}
	if (b->m.colhdr && y < LINES - 1) {
		attron(A_BOLD);
		mvaddnstr(y, 1, b->m.colhdr + 1, COLS - 1);
		attroff(A_BOLD);
		y++;
	}
	return y;
}

/* Line @line (0: the entry's own) of entry @t at screen row @y. */
static void draw_row(struct browser *b, int y, struct tent *t, int line, bool sel)
{
	attr_t attr = b->color ? COLOR_PAIR(PAIR_SEL) : A_REVERSE;

	if (sel) {
		attron(attr);
		mvhline(y, 0, ' ', COLS);
	}
	if (line == 0) {
		/* perf's fold sign: '+' folded, '-' unfolded, nothing without a chain */
		mvaddstr(y, 0, !has_chain(t, b->src->ropts) ? " " : t->expanded ? "-" : "+");
		draw_text(b, y, 1, t->line[0] ? t->line + 1 : t->line, sel);
	} else {
		int k = t->vis[line - 1], from, to;
		const char *s = t->chain[k];

		/* a branch with something under it: its fold sign too */
		if (block_start(t, k) == k) {
			fold_range(t, k, &from, &to);
			if (from < to)
				mvaddstr(y, 0, is_folded(find_exp(b, t->e), k) ? "+" : "-");
		}
		draw_text(b, y, 1, s[0] ? s + 1 : "", sel);
	}
	if (sel)
		attroff(attr);
}

static void draw_status(struct browser *b)
{
	attr_t attr = b->color ? COLOR_PAIR(PAIR_STATUS) : A_REVERSE;
	const char *s = b->status[0]  ? b->status
			: b->nr_stack ? "To zoom out press ESC, or the zoom's key (t, d, s) again"
				      : "Press '?' for help on key bindings";

	attron(attr);
	mvhline(LINES - 1, 0, ' ', COLS);
	mvaddnstr(LINES - 1, 0, s, COLS);
	attroff(attr);
}

/* The selection kept on the page, the page on the rows. */
static void scroll_to_sel(struct browser *b, int rows)
{
	int page = page_rows(b);

	if (b->sel >= rows)
		b->sel = rows ? rows - 1 : 0;
	if (b->sel < b->top)
		b->top = b->sel;
	if (b->sel >= b->top + page)
		b->top = b->sel - page + 1;
	if (b->top > 0 && b->top + page > rows)
		b->top = rows > page ? rows - page : 0;
}

static void draw(struct browser *b)
{
	int y, rows = nr_rows(b), line = 0, r;
	struct tent *t;

	erase();
	y = b->header_rows = draw_title(b);
	scroll_to_sel(b, rows);
	/* from the first row shown, entry by entry (not a search per row) */
	t = row_entry(b, b->top, &line);
	for (r = b->top; t && r < rows && y < LINES - 1; r++, y++) {
		draw_row(b, y, t, line, r == b->sel);
		if (++line > (t->expanded ? t->nr_vis : 0)) {
			line = 0;
			while (++t < b->m.ents + b->m.nr && !t->visible)
				;
			if (t == b->m.ents + b->m.nr)
				t = NULL;
		}
	}
	if (!rows && y < LINES - 1)
		mvaddnstr(y, 2, b->search || b->nr_stack ? "no entries match" : "no samples",
			  COLS - 2);
	draw_status(b);
	refresh();
}

/* ---- text views: help, annotation ---- */

/*
 * An annotation line's percentage ("   34.34 :   1201:  mov ..."), drawn
 * again in perf's colour for it.
 */
static void annotate_color(struct browser *b, int y, const char *s)
{
	size_t lead = strspn(s, " "), n = strspn(s + lead, "0123456789.");
	const char *c;
	int pair;

	if (!b->color || !n || strncmp(s + lead + n, " :", 2) || (int)(lead + n) > COLS)
		return;
	c = pcl_percent_color(strtod(s + lead, NULL));
	pair = c[0] && c[3] == '1' ? PAIR_RED : c[0] ? PAIR_GREEN : 0;
	if (!pair)
		return;
	attron(COLOR_PAIR(pair));
	mvaddnstr(y, (int)lead, s + lead, (int)n);
	attroff(COLOR_PAIR(pair));
}

/* Lines [@top, @top + @page) of @lines under @title, tabs expanded. */
static void pager_draw(struct browser *b, const char *title, char **lines, int nr, int top,
		       int page)
{
	attr_t tattr = b->color ? COLOR_PAIR(PAIR_TITLE) | A_BOLD : A_REVERSE;
	attr_t sattr = b->color ? COLOR_PAIR(PAIR_STATUS) : A_REVERSE;

	erase();
	attron(tattr);
	mvhline(0, 0, ' ', COLS);
	mvaddnstr(0, 0, title, COLS);
	attroff(tattr);
	for (int i = 0; i < page && top + i < nr; i++) {
		char buf[1024];
		size_t o = 0;

		for (const char *s = lines[top + i]; *s && o < sizeof(buf) - 9; s++) {
			if (*s == '\t') {
				do
					buf[o++] = ' ';
				while (o % 8);
			} else {
				buf[o++] = *s;
			}
		}
		buf[o] = '\0';
		draw_text(b, 1 + i, 0, buf, false);
		annotate_color(b, 1 + i, buf);
	}
	attron(sattr);
	mvhline(LINES - 1, 0, ' ', COLS);
	mvaddnstr(LINES - 1, 0, "UP/DOWN/PGUP/PGDN/HOME/END scroll, q/ESC/LEFT back", COLS);
	attroff(sattr);
	refresh();
}

/* Show @text (lines) under @title, scrollable, until q, ESC or LEFT. */
static void pager(struct browser *b, const char *title, char *text)
{
	int nr = 0, top = 0;
	char **lines = split_lines(text, &nr);
	bool done = false;

	while (lines && !done && !tui_signal) {
		int page = LINES - 2 > 1 ? LINES - 2 : 1, c;

		pager_draw(b, title, lines, nr, top, page);
		c = getch();
		if (c == 'q' || c == KEY_ESC || c == KEY_LEFT || c == CTRL('c'))
			done = true;
		else if (c == KEY_DOWN || c == 'j')
			top++;
		else if (c == KEY_UP || c == 'k')
			top--;
		else if (c == KEY_NPAGE || c == ' ')
			top += page;
		else if (c == KEY_PPAGE)
			top -= page;
		else if (c == KEY_HOME)
			top = 0;
		else if (c == KEY_END)
			top = nr - page;
		if (top > nr - page)
			top = nr - page;
		if (top < 0)
			top = 0;
	}
	free(lines);
}

static const char help_text[] =
	"UP/DOWN/PGUP/PGDN/HOME/END  Navigate\n"
	"SPACE         Page down\n"
	"+ / ENTER     Expand/Collapse the selected entry's call chain,\n"
	"              or on a chain line the branch it is in\n"
	"e             Expand/Collapse the selected entry's whole call chain\n"
	"c             Collapse the selected entry's call chain\n"
	"E             Expand all call chains\n"
	"C             Collapse all call chains\n"
	"t             Zoom into the selected entry's thread (again: zoom out)\n"
	"d             Zoom into the selected entry's DSO (again: zoom out)\n"
	"s             Zoom into the selected entry's symbol (again: zoom out)\n"
	"/             Filter by symbol name (a substring; empty: no filter)\n"
	"a             Annotate the selected symbol\n"
	"i             Show the header information\n"
	"TAB/UNTAB     Switch events (several in the file)\n"
	"h/?/F1        Show this window\n"
	"ESC           Zoom out (at the top level: exit)\n"
	"q/CTRL+C      Exit\n";

static void help(struct browser *b, const char *extra)
{
	size_t n = strlen(help_text) + (extra ? strlen(extra) + 2 : 0) + 1;
	char *text = malloc(n);

	if (!text)
		return;
	snprintf(text, n, "%s%s%s", help_text, extra ? "\n" : "", extra ? extra : "");
	pager(b, "Help", text);
	free(text);
}

/* perf's 'i': the source's header information, in the pager view. */
static void info(struct browser *b)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;
	int ret;

	if (!b->src->info) {
		snprintf(b->status, sizeof(b->status), "no header information here");
		return;
	}
	if (!(fp = open_memstream(&buf, &len)))
		return;
	ret = b->src->info(b->src->ctx, fp);
	if (fclose(fp) && !ret)
		ret = -ENOMEM;
	if (ret || !buf || !len)
		snprintf(b->status, sizeof(b->status), "cannot show the header: %s",
			 ret && pcl_last_error()[0] ? pcl_last_error()
						    : strerror(ret ? -ret : ENODATA));
	else
		pager(b, "Header information", buf);
	free(buf);
}

static void annotate(struct browser *b)
{
	struct tent *t = row_entry(b, b->sel, NULL);
	char *buf = NULL, title[512];
	size_t len = 0;
	FILE *fp;
	int ret;

	if (!t)
		return;
	if (!t->e->frame.sym) {
		snprintf(b->status, sizeof(b->status), "no symbol to annotate here");
		return;
	}
	if (!b->src->annotate) {
		snprintf(b->status, sizeof(b->status), "annotation is not available here");
		return;
	}
	if (!(fp = open_memstream(&buf, &len)))
		return;
	ret = b->src->annotate(b->src->ctx, t->e, fp);
	if (fclose(fp))
		ret = ret ? ret : -ENOMEM;
	if (ret || !buf || !len) {
		const char *err = pcl_last_error();

		if (ret == -ENODATA)
			snprintf(b->status, sizeof(b->status),
				 "nothing to annotate: no sample in %s itself",
				 t->e->frame.sym->name);
		else if (ret == -ENOTSUP || !ret)
			snprintf(b->status, sizeof(b->status), "cannot annotate %s here",
				 t->e->frame.sym->name);
		else
			snprintf(b->status, sizeof(b->status), "cannot annotate %s: %s",
				 t->e->frame.sym->name, err && err[0] ? err : strerror(-ret));
		free(buf);
		return;
	}
	snprintf(title, sizeof(title), "Annotate %s (%s)", t->e->frame.sym->name, dso_name(t->e));
	pager(b, title, buf);
	free(buf);
}

/* ---- the prompt ---- */

/* A line typed at the bottom after @prompt into @buf: true when entered, false on ESC. */
static bool prompt(struct browser *b, const char *what, char *buf, size_t len)
{
	size_t n = strlen(buf);

	curs_set(1);
	for (;;) {
		int c;

		attron(b->color ? COLOR_PAIR(PAIR_STATUS) : A_REVERSE);
		mvhline(LINES - 1, 0, ' ', COLS);
		mvprintw(LINES - 1, 0, "%s%s", what, buf);
		attroff(b->color ? COLOR_PAIR(PAIR_STATUS) : A_REVERSE);
		refresh();
		c = getch();
		if (tui_signal) {
			curs_set(0);
			return false;
		}
		if (c == ERR)
			continue;
		if (c == '\n' || c == '\r' || c == KEY_ENTER)
			break;
		if (c == KEY_ESC || c == CTRL('c')) {
			curs_set(0);
			return false;
		}
		if ((c == KEY_BACKSPACE || c == 127 || c == CTRL('h')) && n)
			buf[--n] = '\0';
		else if (c == CTRL('u'))
			buf[n = 0] = '\0';
		else if (c >= ' ' && c < 256 && c != 127 && n + 1 < len) {
			buf[n++] = (char)c;
			buf[n] = '\0';
		}
	}
	curs_set(0);
	return true;
}

/* ---- keys ---- */

static void zoom_pop(struct browser *b, enum zoom z)
{
	int j = 0;

	b->zoomed[z] = false;
	for (int i = 0; i < b->nr_stack; i++)
		if (b->stack[i] != z)
			b->stack[j++] = b->stack[i];
	b->nr_stack = j;
}

/* After a zoom in or out: the columns may change (view_opts), the rows do. */
static void rezoom(struct browser *b)
{
	int ret = rebuild(b, b->m.h);

	if (ret)
		snprintf(b->status, sizeof(b->status), "cannot show the entries: %s",
			 strerror(-ret));
}

static void zoom(struct browser *b, enum zoom z)
{
	struct tent *t = row_entry(b, b->sel, NULL);

	if (b->zoomed[z]) {
		zoom_pop(b, z);
		rezoom(b);
		return;
	}
	if (!t)
		return;
	switch (z) {
	case ZOOM_THREAD:
		b->z_tid = t->e->tid;
		free(b->z_comm);
		b->z_comm = xstrdup(t->e->thread ? t->e->thread->comm : t->e->comm);
		break;
	case ZOOM_DSO:
		free(b->z_dso);
		b->z_dso = xstrdup(dso_name(t->e));
		break;
	case ZOOM_SYM:
		if (!t->e->frame.sym) {
			snprintf(b->status, sizeof(b->status), "no symbol to zoom into");
			return;
		}
		free(b->z_sym);
		b->z_sym = xstrdup(t->e->frame.sym->name);
		break;
	default:
		return;
	}
	b->zoomed[z] = true;
	b->stack[b->nr_stack++] = z;
	rezoom(b);
}

static void toggle(struct browser *b, int mode /* 1 on, 0 off, -1 flip */)
{
	struct tent *t = row_entry(b, b->sel, NULL);

	if (!t)
		return;
	if (!has_chain(t, b->src->ropts)) {
		snprintf(b->status, sizeof(b->status),
			 b->src->ropts->graph == PCL_GRAPH_NONE ? "no call chains (record with -g)"
								: "this entry has no call chain");
		return;
	}
	set_expanded(b, t->e, mode < 0 ? !t->expanded : mode);
	b->sel = entry_row(b, t, 0);
	refilter(b);
}

static void expand_all(struct browser *b, bool on)
{
	remember_sel(b);
	if (b->has_sel_key)
		b->sel_line = 0;
	clear_expanded(b);
	for (int i = 0; on && i < b->m.nr; i++)
		if (has_chain(&b->m.ents[i], b->src->ropts))
			set_expanded(b, b->m.ents[i].e, true);
	apply_state(b);
	restore_sel(b);
}

/* The moving keys: true if @c is one. */
static bool move_key(struct browser *b, int c)
{
	int rows = nr_rows(b), page = page_rows(b), last = rows ? rows - 1 : 0;

	if (c == KEY_DOWN) {
		b->sel += b->sel < last;
	} else if (c == KEY_UP) {
		b->sel -= b->sel > 0;
	} else if (c == KEY_NPAGE || c == ' ') {
		b->sel = b->sel + page < last ? b->sel + page : last;
		b->top += page;
	} else if (c == KEY_PPAGE) {
		b->sel = b->sel > page ? b->sel - page : 0;
		b->top = b->top > page ? b->top - page : 0;
	} else if (c == KEY_HOME) {
		b->sel = b->top = 0;
	} else if (c == KEY_END) {
		b->sel = last;
	} else {
		return false;
	}
	return true;
}

/* perf's '+': the entry's chain on its row, the branch on a chain's row */
static void plus_key(struct browser *b)
{
	int line = 0;
	struct tent *t = row_entry(b, b->sel, &line);

	if (t && line > 0) {
		toggle_fold(b, t, t->vis[line - 1]);
		refilter(b);
	} else {
		toggle(b, -1);
	}
}

static void search_key(struct browser *b)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "%s", b->search ? b->search : "");
	if (!prompt(b, "Symbol to show: ", buf, sizeof(buf)))
		return;
	free(b->search);
	b->search = buf[0] ? strdup(buf) : NULL;
	b->top = 0;
	refilter(b);
}

/* ESC, LEFT: the symbol filter off, else the last zoom out; 1: quit (ESC) */
static int escape_key(struct browser *b, int c)
{
	if (b->search) {
		free(b->search);
		b->search = NULL;
		refilter(b);
	} else if (b->nr_stack) {
		zoom_pop(b, b->stack[b->nr_stack - 1]);
		rezoom(b);
	} else if (c == KEY_ESC) {
		return 1;
	}
	return 0;
}

/* A key for the source (TAB for report's next event, top's own), then its histogram. */
static void source_key(struct browser *b, int c)
{
	int ret;

	if (!b->src->key)
		return;
	ret = b->src->key(b->src->ctx, c);
	if (ret < 0)
		snprintf(b->status, sizeof(b->status), "%s",
			 pcl_last_error()[0] ? pcl_last_error() : strerror(-ret));
	else if ((ret = reload(b)))
		snprintf(b->status, sizeof(b->status), "cannot reload: %s", strerror(-ret));
}

/* 1: quit; 0: go on. */
static int handle_key(struct browser *b, int c)
{
	if (move_key(b, c))
		return 0;
	switch (c) {
	case '+':
	case '\n':
	case '\r':
	case KEY_ENTER:
		plus_key(b);
		break;
	case 'e':
	case 'c':
		toggle(b, c == 'e' ? -1 : 0);
		break;
	case 'E':
	case 'C':
		expand_all(b, c == 'E');
		break;
	case 't':
	case 'd':
	case 's':
		zoom(b, c == 't' ? ZOOM_THREAD : c == 'd' ? ZOOM_DSO : ZOOM_SYM);
		break;
	case '/':
		search_key(b);
		break;
	case 'a':
		annotate(b);
		break;
	case 'i':
		info(b);
		break;
	case 'h':
	case '?':
	case KEY_F(1):
		help(b, b->src->help);
		break;
	case KEY_ESC:
	case KEY_LEFT:
		return escape_key(b, c);
	case 'q':
	case CTRL('c'):
		return 1;
	case KEY_RESIZE:
		break; /* ncurses has the new size: the next draw uses it */
	default:
		source_key(b, c);
		break;
	}
	return 0;
}

/* ---- the terminal ---- */

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void browser_free(struct browser *b)
{
	model_free(&b->m);
	clear_expanded(b);
	free(b->exp);
	if (b->has_sel_key)
		ekey_free(&b->sel_key);
	free(b->z_comm);
	free(b->z_dso);
	free(b->z_sym);
	free(b->search);
}

/* Keys, colours: after newterm. */
static void term_setup(struct browser *b)
{
	/*
	 * HOME and END as terminals send them whatever TERM says (tmux, screen
	 * and rxvt differ from xterm's terminfo): not as ESC and letters.
	 */
	static const char *const home[] = { "\033[1~", "\033[7~", "\033[H", "\033OH" };
	static const char *const end[] = { "\033[4~", "\033[8~", "\033[F", "\033OF" };

	raw(); /* CTRL-C is a key: quit */
	noecho();
	keypad(stdscr, TRUE);
	for (size_t i = 0; i < sizeof(home) / sizeof(home[0]); i++) {
		if (!key_defined(home[i]))
			define_key(home[i], KEY_HOME);
		if (!key_defined(end[i]))
			define_key(end[i], KEY_END);
	}
	curs_set(0);
	if (has_colors() && start_color() == OK) {
		use_default_colors();
		init_pair(PAIR_RED, COLOR_RED, -1);
		init_pair(PAIR_GREEN, COLOR_GREEN, -1);
		init_pair(PAIR_TITLE, COLOR_WHITE, COLOR_BLUE);
		init_pair(PAIR_SEL, COLOR_BLACK, COLOR_CYAN);
		init_pair(PAIR_STATUS, COLOR_BLACK, COLOR_WHITE);
		b->color = true;
	}
}

/*
 * Draw, wait for a key at most until the next tick of a live source, act
 * on it, tick when due; until a quit key or a signal. 0 or -errno.
 */
static int browse_loop(struct browser *b)
{
	const struct tui_source *src = b->src;
	int64_t next_tick = 0;
	int ret;

	if ((ret = reload(b)))
		return ret;
	if (src->tick && src->refresh_ms > 0)
		next_tick = now_ms() + src->refresh_ms;
	while (!tui_signal) {
		int c, wait = 500;

		draw(b);
		if (next_tick) {
			int64_t left = next_tick - now_ms();

			wait = left < 0 ? 0 : left < 500 ? (int)left : 500;
		}
		timeout(wait);
		c = getch();
		if (tui_signal)
			break;
		if (c != ERR) {
			b->status[0] = '\0';
			if (handle_key(b, c))
				break;
		}
		if (next_tick && now_ms() >= next_tick && !tui_signal) {
			if ((ret = src->tick(src->ctx)) < 0 || (ret = reload(b)))
				return ret;
			next_tick = now_ms() + src->refresh_ms;
		}
	}
	return 0;
}

int tui_browse(const struct tui_source *src)
{
	struct browser b = { .src = src };
	struct sigaction sa = { .sa_handler = on_signal }, old[3];
	static const int sigs[3] = { SIGTERM, SIGHUP, SIGINT };
	SCREEN *scr;
	int ret = -ENOTTY;
	char *ctype;

	if (!src || !src->get || !src->ropts)
		return -EINVAL;
	/* the terminal's character set, for ncursesw; given back at the end */
	ctype = xstrdup(setlocale(LC_CTYPE, NULL));
	setlocale(LC_CTYPE, "");
	/* ESC alone is ESC after 25 ms, not the start of a sequence for a second */
	if (!getenv("ESCDELAY"))
		set_escdelay(25);
	if ((scr = newterm(NULL, stdout, stdin))) {
		tui_signal = 0;
		for (int i = 0; i < 3; i++)
			sigaction(sigs[i], &sa, &old[i]);
		term_setup(&b);
		ret = browse_loop(&b);
		endwin();
		delscreen(scr);
		for (int i = 0; i < 3; i++)
			sigaction(sigs[i], &old[i], NULL);
		fflush(stdout);
		/* SIGINT is CTRL-C, a key here: quitting; TERM and HUP ended the browser */
		if (!ret && tui_signal && tui_signal != SIGINT)
			ret = -EINTR;
	}
	browser_free(&b);
	if (ctype)
		setlocale(LC_CTYPE, ctype);
	free(ctype);
	return ret;
}
