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
#define CTRL(c) ((c) & 0x1f)

/* What an entry is, by the sort keys' values: kept across a live source's ticks. */
struct ekey {
	char *comm, *dso, *sym, *srcline, *srcfile;
	uint64_t addr;
	int32_t tid, cpu;
	const void *parent;
};

struct tent {
	const struct pcl_hist_entry *e;
	const char *line;    /* its stdio line, in model.text */
	const char **chain;  /* its call-graph lines, in model.gtext (once built) */
	int nr_chain;
	bool expanded;
	bool visible; /* passes the zooms and the search */
};

struct model {
	const struct pcl_hists *h;
	char *text;	     /* the stdio report, no call graph */
	const char *colhdr;  /* its column title line, '#' blanked */
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
	struct ekey *exp;
	int nr_exp;
	/* selection: row index and the first row shown */
	int sel, top;
	struct ekey sel_key; /* the selected entry, to find it again after a tick */
	int sel_line;	     /* the selected row inside its entry (0: the entry) */
	bool has_sel_key;
	char status[256];
	bool color;
	struct pcl_report_opts vro; /* the columns shown (view_opts) */
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
	for (int i = 0; i < m->nr; i++)
		free(m->ents[i].chain);
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
	for (int i = 1; o->nr_members > 1 && o->member_totals && e->member_self &&
			i < o->nr_members;
	     i++)
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
	free(lines);
	return 0;
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
			t->chain = malloc((size_t)(end - start) * sizeof(*t->chain));
			if (!t->chain) {
				free(lines);
				return -ENOMEM;
			}
			for (int k = start; k < end; k++)
				t->chain[k - start] = lines[k];
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

static bool is_expanded(const struct browser *b, const struct pcl_hist_entry *e)
{
	for (int i = 0; i < b->nr_exp; i++)
		if (ekey_match(&b->exp[i], e, b->src->ropts))
			return true;
	return false;
}

static void set_expanded(struct browser *b, const struct pcl_hist_entry *e, bool on)
{
	for (int i = 0; i < b->nr_exp; i++) {
		if (ekey_match(&b->exp[i], e, b->src->ropts)) {
			if (!on) {
				ekey_free(&b->exp[i]);
				b->exp[i] = b->exp[--b->nr_exp];
			}
			return;
		}
	}
	if (on) {
		struct ekey *nv = realloc(b->exp, (size_t)(b->nr_exp + 1) * sizeof(*nv));

		if (!nv)
			return;
		b->exp = nv;
		ekey_set(&b->exp[b->nr_exp++], e);
	}
}

static void clear_expanded(struct browser *b)
{
	for (int i = 0; i < b->nr_exp; i++)
		ekey_free(&b->exp[i]);
	b->nr_exp = 0;
}

/* Visibility and expansion of the model's entries from the browser's state. */
static void apply_state(struct browser *b)
{
	for (int i = 0; i < b->m.nr; i++) {
		struct tent *t = &b->m.ents[i];

		t->visible = entry_visible(b, t->e);
		t->expanded = b->nr_exp && is_expanded(b, t->e) && has_chain(t, b->src->ropts);
	}
	if (b->nr_exp && model_chains(&b->m, &b->vro))
		snprintf(b->status, sizeof(b->status), "out of memory for the call graphs");
}

/* Rows: the visible entries and the chain lines of the expanded ones. */
static int nr_rows(const struct browser *b)
{
	int n = 0;

	for (int i = 0; i < b->m.nr; i++)
		if (b->m.ents[i].visible)
			n += 1 + (b->m.ents[i].expanded ? b->m.ents[i].nr_chain : 0);
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
		n = 1 + (t->expanded ? t->nr_chain : 0);
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
			return row + (u->expanded && line <= u->nr_chain ? line : 0);
		row += 1 + (u->expanded ? u->nr_chain : 0);
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

/* A new histogram from the source: rebuild the rows, keep the state. */
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
#define ELIDED(k)                                                                          \
	((b->zoomed[ZOOM_DSO] && (k) == PCL_SORT_DSO) ||                                   \
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
	if (b->zoomed[ZOOM_THREAD] && (ro_has_key(b->src->ropts, PCL_SORT_PID) ||
				       ro_has_key(b->src->ropts, PCL_SORT_TID)))
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

static int header_rows;

static int page_rows(void)
{
	int n = LINES - header_rows - 1;

	return n > 1 ? n : 1;
}

static void draw(struct browser *b)
{
	char title[2048];
	int y = 0, rows = nr_rows(b), page;
	const struct pcl_report_opts *ro = b->src->ropts;

	erase();
	title_text(b, title, sizeof(title));
	for (char *s = title, *nl; s && y < LINES - 2; s = nl ? nl + 1 : NULL, y++) {
		nl = strchr(s, '\n');
		if (nl)
			*nl = '\0';
		attron(b->color ? COLOR_PAIR(PAIR_TITLE) | A_BOLD : A_REVERSE);
		mvhline(y, 0, ' ', COLS);
		mvaddnstr(y, 0, s, COLS);
		attroff(b->color ? COLOR_PAIR(PAIR_TITLE) | A_BOLD : A_REVERSE);
	}
	if (b->m.colhdr && y < LINES - 1) {
		attron(A_BOLD);
		mvaddnstr(y, 1, b->m.colhdr + 1, COLS - 1);
		attroff(A_BOLD);
		y++;
	}
	header_rows = y;
	page = page_rows();
	if (b->sel >= rows)
		b->sel = rows ? rows - 1 : 0;
	if (b->sel < b->top)
		b->top = b->sel;
	if (b->sel >= b->top + page)
		b->top = b->sel - page + 1;
	if (b->top > 0 && b->top + page > rows)
		b->top = rows > page ? rows - page : 0;
	for (int r = b->top; r < rows && y < LINES - 1; r++, y++) {
		int line = 0;
		struct tent *t = row_entry(b, r, &line);
		bool sel = r == b->sel;

		if (!t)
			break;
		if (sel) {
			attron(b->color ? COLOR_PAIR(PAIR_SEL) : A_REVERSE);
			mvhline(y, 0, ' ', COLS);
		}
		if (line == 0) {
			/* perf's fold sign: '+' folded, '-' unfolded, nothing without a chain */
			mvaddstr(y, 0, !has_chain(t, ro) ? " " : t->expanded ? "-" : "+");
			draw_text(b, y, 1, t->line[0] ? t->line + 1 : t->line, sel);
		} else {
			draw_text(b, y, 1, t->chain[line - 1][0] ? t->chain[line - 1] + 1 : "", sel);
		}
		if (sel)
			attroff(b->color ? COLOR_PAIR(PAIR_SEL) : A_REVERSE);
	}
	if (!rows && y < LINES - 1)
		mvaddnstr(y, 2, b->search || b->nr_stack ? "no entries match" : "no samples",
			  COLS - 2);
	attron(b->color ? COLOR_PAIR(PAIR_STATUS) : A_REVERSE);
	mvhline(LINES - 1, 0, ' ', COLS);
	mvaddnstr(LINES - 1, 0,
		  b->status[0]	 ? b->status
		  : b->nr_stack ? "To zoom out press ESC, or the zoom's key (t, d, s) again"
				 : "Press '?' for help on key bindings",
		  COLS);
	attroff(b->color ? COLOR_PAIR(PAIR_STATUS) : A_REVERSE);
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

/* Show @text (lines) under @title, scrollable, until q, ESC or left. */
static void pager(struct browser *b, const char *title, char *text)
{
	int nr = 0, top = 0;
	char **lines = split_lines(text, &nr);

	if (!lines)
		return;
	for (;;) {
		int page = LINES - 2 > 1 ? LINES - 2 : 1, c;

		erase();
		attron(b->color ? COLOR_PAIR(PAIR_TITLE) | A_BOLD : A_REVERSE);
		mvhline(0, 0, ' ', COLS);
		mvaddnstr(0, 0, title, COLS);
		attroff(b->color ? COLOR_PAIR(PAIR_TITLE) | A_BOLD : A_REVERSE);
		for (int i = 0; i < page && top + i < nr; i++) {
			/* tabs as the terminal would show them */
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
		attron(b->color ? COLOR_PAIR(PAIR_STATUS) : A_REVERSE);
		mvhline(LINES - 1, 0, ' ', COLS);
		mvaddnstr(LINES - 1, 0, "UP/DOWN/PGUP/PGDN/HOME/END scroll, q/ESC/LEFT back", COLS);
		attroff(b->color ? COLOR_PAIR(PAIR_STATUS) : A_REVERSE);
		refresh();
		c = getch();
		if (tui_signal)
			break;
		switch (c) {
		case ERR:
			continue;
		case 'q':
		case KEY_ESC:
		case KEY_LEFT:
		case CTRL('c'):
			free(lines);
			return;
		case KEY_DOWN:
		case 'j':
			top++;
			break;
		case KEY_UP:
		case 'k':
			top--;
			break;
		case KEY_NPAGE:
		case ' ':
			top += page;
			break;
		case KEY_PPAGE:
			top -= page;
			break;
		case KEY_HOME:
			top = 0;
			break;
		case KEY_END:
			top = nr - page;
			break;
		default:
			break;
		}
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
	"+ / ENTER     Expand/Collapse the selected entry's call chain\n"
	"e             Expand/Collapse the selected entry's call chain\n"
	"c             Collapse the selected entry's call chain\n"
	"E             Expand all call chains\n"
	"C             Collapse all call chains\n"
	"t             Zoom into the selected entry's thread (again: zoom out)\n"
	"d             Zoom into the selected entry's DSO (again: zoom out)\n"
	"s             Zoom into the selected entry's symbol (again: zoom out)\n"
	"/             Filter by symbol name (a substring; empty: no filter)\n"
	"a             Annotate the selected symbol\n"
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
			 b->src->ropts->graph == PCL_GRAPH_NONE
				 ? "no call chains (record with -g)"
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

/* 1: quit; 0: go on. */
static int handle_key(struct browser *b, int c)
{
	int rows = nr_rows(b), page = page_rows();

	switch (c) {
	case KEY_DOWN:
		if (b->sel + 1 < rows)
			b->sel++;
		break;
	case KEY_UP:
		if (b->sel > 0)
			b->sel--;
		break;
	case KEY_NPAGE:
	case ' ':
		b->sel += page;
		b->top += page;
		if (b->sel >= rows)
			b->sel = rows ? rows - 1 : 0;
		break;
	case KEY_PPAGE:
		b->sel -= page;
		b->top -= page;
		if (b->sel < 0)
			b->sel = 0;
		if (b->top < 0)
			b->top = 0;
		break;
	case KEY_HOME:
		b->sel = b->top = 0;
		break;
	case KEY_END:
		b->sel = rows ? rows - 1 : 0;
		break;
	case '+':
	case '\n':
	case '\r':
	case KEY_ENTER:
	case 'e':
		toggle(b, -1);
		break;
	case 'c':
		toggle(b, 0);
		break;
	case 'E':
		expand_all(b, true);
		break;
	case 'C':
		expand_all(b, false);
		break;
	case 't':
		zoom(b, ZOOM_THREAD);
		break;
	case 'd':
		zoom(b, ZOOM_DSO);
		break;
	case 's':
		zoom(b, ZOOM_SYM);
		break;
	case '/': {
		char buf[256];

		snprintf(buf, sizeof(buf), "%s", b->search ? b->search : "");
		if (prompt(b, "Symbol to show: ", buf, sizeof(buf))) {
			free(b->search);
			b->search = buf[0] ? strdup(buf) : NULL;
			b->top = 0;
			refilter(b);
		}
		break;
	}
	case 'a':
		annotate(b);
		break;
	case 'h':
	case '?':
	case KEY_F(1):
		help(b, NULL);
		break;
	case KEY_ESC:
	case KEY_LEFT:
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
		break;
	case 'q':
	case CTRL('c'):
		return 1;
	case KEY_RESIZE:
		break;
	default:
		if (b->src->key) {
			int ret = b->src->key(b->src->ctx, c);

			if (ret < 0) {
				snprintf(b->status, sizeof(b->status), "%s",
					 pcl_last_error()[0] ? pcl_last_error() : strerror(-ret));
			} else if ((ret = reload(b))) {
				snprintf(b->status, sizeof(b->status), "cannot reload: %s",
					 strerror(-ret));
			}
		}
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

int tui_browse(const struct tui_source *src)
{
	struct browser b = { .src = src };
	struct sigaction sa = { .sa_handler = on_signal }, old[3];
	static const int sigs[3] = { SIGTERM, SIGHUP, SIGINT };
	SCREEN *scr;
	int64_t next_tick = 0;
	int ret = 0;
	char *ctype;

	if (!src || !src->get || !src->ropts)
		return -EINVAL;
	/* the terminal's character set, for ncursesw; given back at the end */
	ctype = xstrdup(setlocale(LC_CTYPE, NULL));
	setlocale(LC_CTYPE, "");
	/* ESC alone is ESC after 25 ms, not the start of a sequence for a second */
	if (!getenv("ESCDELAY"))
		set_escdelay(25);
	if (!(scr = newterm(NULL, stdout, stdin))) {
		if (ctype)
			setlocale(LC_CTYPE, ctype);
		free(ctype);
		return -ENOTTY;
	}
	tui_signal = 0;
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, &old[i]);
	raw();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	if (has_colors() && start_color() == OK) {
		use_default_colors();
		init_pair(PAIR_RED, COLOR_RED, -1);
		init_pair(PAIR_GREEN, COLOR_GREEN, -1);
		init_pair(PAIR_TITLE, COLOR_WHITE, COLOR_BLUE);
		init_pair(PAIR_SEL, COLOR_BLACK, COLOR_CYAN);
		init_pair(PAIR_STATUS, COLOR_BLACK, COLOR_WHITE);
		b.color = true;
	}
	if ((ret = reload(&b)))
		goto out;
	if (src->tick && src->refresh_ms > 0)
		next_tick = now_ms() + src->refresh_ms;
	for (;;) {
		int c, wait = 500;

		draw(&b);
		if (next_tick) {
			int64_t left = next_tick - now_ms();

			wait = left < 0 ? 0 : left < 500 ? (int)left : 500;
		}
		timeout(wait);
		c = getch();
		if (tui_signal)
			break;
		if (c != ERR) {
			b.status[0] = '\0';
			if (handle_key(&b, c))
				break;
			if (tui_signal)
				break;
		}
		if (next_tick && now_ms() >= next_tick) {
			int r = src->tick(src->ctx);

			if (r < 0) {
				ret = r;
				break;
			}
			if ((r = reload(&b))) {
				ret = r;
				break;
			}
			next_tick = now_ms() + src->refresh_ms;
		}
	}
out:
	endwin();
	delscreen(scr);
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
	fflush(stdout);
	browser_free(&b);
	if (ctype)
		setlocale(LC_CTYPE, ctype);
	free(ctype);
	/* SIGINT is CTRL-C, a key here: quitting; TERM and HUP ended the browser */
	if (!ret && tui_signal && tui_signal != SIGINT)
		ret = -EINTR;
	return ret;
}
