/* SPDX-License-Identifier: MIT */
/*
 * perf report --stdio's layout (contract in include/pcl/report.h).
 *
 * Columns: "Overhead" (or "Children" and "Self"), each 8 wide with the
 * percentage right-aligned, then one column per sort key, two spaces apart,
 * as wide as the widest of its title and its cells; the last column is not
 * padded on entry lines.
 *
 * Call graphs follow perf's radix tree: a run of frames with one child and
 * no chain ending inside it prints as one block, and a branch point prints
 * each branch as "|--XX.XX%--name". The trees here are tries (one frame per
 * node), so a block is a run of nodes ending at the first node that has
 * samples ending in it or not exactly one child.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

struct col {
	struct pcl_field f;
	const char *title;
	int width;
};

struct printer {
	FILE *fp;
	const struct pcl_report_opts *o;
	uint64_t total;	      /* percentages of this */
	uint64_t graph_total; /* call-graph (not fractal) percentages of this */
	uint64_t min_hit;     /* graph: branches lighter than this are hidden */
	struct col cols[PCL_FIELDS_MAX];
	int nr_cols;
	char *buf;
	size_t buflen;
	size_t lines; /* call-graph lines printed for the current entry */
};

PCL_API void pcl_report__count(char *buf, size_t len, uint64_t n)
{
	char unit = ' ';

	/* perf's convert_unit */
	if (n > 1000) {
		n /= 1000;
		unit = 'K';
	}
	if (n > 1000) {
		n /= 1000;
		unit = 'M';
	}
	if (n > 1000) {
		n /= 1000;
		unit = 'G';
	}
	snprintf(buf, len, "%" PRIu64 "%c", n, unit);
}

const char *pcl_report__key_title(enum pcl_sort_key k)
{
	switch (k) {
	case PCL_SORT_COMM:
		return "Command";
	case PCL_SORT_DSO:
		return "Shared Object";
	case PCL_SORT_SYM:
		return "Symbol";
	case PCL_SORT_PID:
	case PCL_SORT_TID:
		return "    Pid:Command";
	case PCL_SORT_CPU:
		return "CPU";
	case PCL_SORT_SRCLINE:
		return "Source:Line";
	case PCL_SORT_SRCFILE:
		return "Source File";
	case PCL_SORT_PARENT:
		return "Parent symbol";
	default:
		return "?";
	}
}

/* The text of cell @k of @e into p->buf (not padded). */
static const char *cell(struct printer *p, const struct pcl_hist_entry *e, enum pcl_sort_key k)
{
	const struct pcl_frame *f = &e->frame;
	int w = 0;

	switch (k) {
	case PCL_SORT_COMM:
		return e->comm;
	case PCL_SORT_DSO:
		return f->map ? f->map->dso->short_name : "[unknown]";
	case PCL_SORT_SYM:
		if (f->sym)
			snprintf(p->buf, p->buflen, "[%c] %s%s", f->level, f->sym->name,
				 f->inlined ? " (inlined)" : "");
		else
			snprintf(p->buf, p->buflen, "[%c] %-#.*llx", f->level, 16,
				 (unsigned long long)f->addr);
		return p->buf;
	case PCL_SORT_PID:
	case PCL_SORT_TID:
		for (int i = 0; i < p->nr_cols; i++)
			if (p->cols[i].f.hpp == PCL_HPP_KEY && p->cols[i].f.key == k)
				w = p->cols[i].width - 8;
		snprintf(p->buf, p->buflen, "%7d:%-*s", e->tid, w > 0 ? w : 0,
			 e->thread ? e->thread->comm : e->comm);
		return p->buf;
	case PCL_SORT_CPU:
		/* perf's "%*.*d" in a 3-wide column: a file without CPUs shows -001 */
		snprintf(p->buf, p->buflen, "%3.3d", e->cpu);
		return p->buf;
	case PCL_SORT_SRCLINE:
		return e->srcline ? e->srcline : "";
	case PCL_SORT_SRCFILE:
		return e->srcfile ? e->srcfile : "";
	case PCL_SORT_PARENT:
		return e->parent ? e->parent->name : "[other]";
	default:
		return "";
	}
}

PCL_API const char *pcl_percent_color(double percent)
{
	/* perf's MIN_RED and MIN_GREEN */
	if (fabs(percent) >= 5.0)
		return "\033[31m";
	if (fabs(percent) > 0.5)
		return "\033[32m";
	return "";
}

PCL_API int pcl_percent_fprintf(FILE *fp, bool color, const char *fmt, double percent)
{
	const char *c = color ? pcl_percent_color(percent) : "";
	char buf[64];

	snprintf(buf, sizeof(buf), fmt, percent);
	return *c ? fprintf(fp, "%s%s\033[m", c, buf) : fputs(buf, fp) < 0 ? -1 : (int)strlen(buf);
}

static double pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

/* The value an entry is shown and limited by. */
static uint64_t entry_value(const struct printer *p, const struct pcl_hist_entry *e)
{
	return p->o->children ? e->children : e->self;
}

static bool group_mode(const struct printer *p)
{
	return p->o->nr_members > 1 && p->o->member_totals;
}

static bool shown(const struct printer *p, const struct pcl_hist_entry *e)
{
	bool any = e->self || (p->o->children && e->children);

	if (e->hidden)
		return false;
	for (int i = 1; group_mode(p) && e->member_self && i < p->o->nr_members; i++)
		any = any || e->member_self[i];
	if (!any)
		return false;
	return pct(entry_value(p, e), p->total) >= p->o->percent_limit;
}

/* perf's width of number field @f, and its title */
static int hpp_width(const struct printer *p, enum pcl_hpp f)
{
	int w = f == PCL_HPP_OVERHEAD_GUEST_SYS || f == PCL_HPP_OVERHEAD_GUEST_US ? 9
		: f == PCL_HPP_SAMPLE || f == PCL_HPP_PERIOD			  ? 12
										  : 8;

	if (group_mode(p) && f != PCL_HPP_OVERHEAD_CHILDREN)
		w *= p->o->nr_members;
	return w;
}

static const char *hpp_title(const struct printer *p, enum pcl_hpp f)
{
	switch (f) {
	case PCL_HPP_OVERHEAD:
		return p->o->self_title || (!p->o->nr_fields && p->o->children) ? "Self"
										: "Overhead";
	case PCL_HPP_OVERHEAD_SYS:
		return "sys";
	case PCL_HPP_OVERHEAD_US:
		return "usr";
	case PCL_HPP_OVERHEAD_GUEST_SYS:
		return "guest sys";
	case PCL_HPP_OVERHEAD_GUEST_US:
		return "guest usr";
	case PCL_HPP_OVERHEAD_CHILDREN:
		return "Children";
	case PCL_HPP_SAMPLE:
		return "Samples";
	case PCL_HPP_PERIOD:
		return "Period";
	default:
		return "?";
	}
}

/* Numbers right-aligned, keys left; "# " where the entries have their first "  ". */
static void print_header(struct printer *p)
{
	FILE *fp = p->fp;

	fputc('#', fp);
	for (int i = 0; i < p->nr_cols; i++) {
		const struct col *c = &p->cols[i];

		fputs(i ? (p->o->field_sep ? p->o->field_sep : "  ") : " ", fp);
		if (c->f.hpp == PCL_HPP_KEY)
			fprintf(fp, "%-*s", c->width, c->title);
		else
			fprintf(fp, "%*s", c->width, c->title);
	}
	if (p->o->field_sep) {
		fputc('\n', fp);
		return;
	}
	fputs("\n#", fp);
	for (int i = 0; i < p->nr_cols; i++) {
		fputs(i ? "  " : " ", fp);
		for (int k = 0; k < p->cols[i].width; k++)
			fputc('.', fp);
	}
	fputs("\n#\n", fp);
}

/* ---- call graphs ---- */

/* The last node of the block starting at @n. */
static const struct pcl_callnode *block_end(const struct pcl_callnode *n)
{
	while (!n->self && n->first && !n->first->next)
		n = n->first;
	return n;
}

static const char *frame_name(struct printer *p, const struct pcl_frame *f)
{
	if (f->sym && f->inlined) {
		snprintf(p->buf, p->buflen, "%s (inlined)", f->sym->name);
		return p->buf;
	}
	if (f->sym)
		return f->sym->name;
	/* perf's call-graph lines show an unresolved frame's ip itself */
	snprintf(p->buf, p->buflen, "%#llx", (unsigned long long)f->ip);
	return p->buf;
}

static void margin(struct printer *p, int left)
{
	p->lines++;
	fprintf(p->fp, "            %*s", left, "");
}

static void print_value(struct printer *p, uint64_t period, uint64_t count, uint64_t total)
{
	switch (p->o->graph_value) {
	case PCL_GRAPH_PERIOD:
		fprintf(p->fp, "%" PRIu64, period);
		break;
	case PCL_GRAPH_COUNT:
		fprintf(p->fp, "%" PRIu64, count);
		break;
	default:
		pcl_percent_fprintf(p->fp, p->o->color, "%.2f%%", pct(period, total));
	}
}

/* Is block @n heavy enough to show under a parent whose chains weigh @parent_children? */
static bool block_shown(const struct printer *p, const struct pcl_callnode *n,
			uint64_t parent_children)
{
	if (p->o->graph == PCL_GRAPH_REL)
		return (double)n->total >= ceil((double)parent_children * p->o->graph_min_percent / 100.0);
	return n->total >= p->min_hit;
}

static const struct pcl_callnode *next_shown(const struct printer *p, const struct pcl_callnode *n,
					     uint64_t parent_children)
{
	while (n && !block_shown(p, n, parent_children))
		n = n->next;
	return n;
}

/* Children weight of a block: what goes on below its last node. */
static uint64_t block_children(const struct pcl_callnode *n)
{
	const struct pcl_callnode *end = block_end(n);

	return end->total - end->self;
}

/*
 * Bit @i of a graph's level mask. perf keeps the mask in an int and
 * shifts by the level unchecked, which on x86-64 takes the count modulo
 * 32: beyond 32 levels its bars repeat the first 32 levels' pattern. So do
 * these, so that deep graphs print as perf prints them, every level shown.
 */
static unsigned int level_bit(int i)
{
	return 1u << (i & 31);
}

static void graph_line(struct printer *p, int depth, unsigned int mask, int left)
{
	margin(p, left);
	for (int i = 0; i < depth; i++)
		fputs(mask & level_bit(i) ? "|          " : "           ", p->fp);
	fputc('\n', p->fp);
}

static void graph_frame(struct printer *p, const char *name, uint64_t period, uint64_t count,
			int depth, unsigned int mask, int idx, uint64_t total, int left)
{
	margin(p, left);
	for (int i = 0; i < depth; i++) {
		fputc(mask & level_bit(i) ? '|' : ' ', p->fp);
		if (!idx && i == depth - 1) {
			fputs("--", p->fp);
			print_value(p, period, count, total);
			fputs("--", p->fp);
		} else {
			fputs("          ", p->fp);
		}
	}
	fputs(name, p->fp);
	fputc('\n', p->fp);
}

static void graph_level(struct printer *p, const struct pcl_callnode *first, uint64_t total,
			uint64_t parent_children, int depth, unsigned int mask, int left)
{
	const struct pcl_callnode *c = next_shown(p, first, parent_children);
	uint64_t remaining = total, shown_count = 0;
	unsigned int new_mask = mask;

	while (c) {
		const struct pcl_callnode *next = next_shown(p, c->next, parent_children), *end, *n;
		int idx = 0;

		remaining -= c->total;
		shown_count += c->count;
		if (!next && (p->o->graph != PCL_GRAPH_REL || !remaining))
			new_mask &= ~level_bit(depth - 1);
		graph_line(p, depth, mask, left);
		end = block_end(c);
		for (n = c;; n = n->first) {
			graph_frame(p, frame_name(p, &n->frame), c->total, c->count, depth, new_mask,
				    idx++, total, left);
			if (n == end)
				break;
		}
		graph_level(p, end->first,
			    p->o->graph == PCL_GRAPH_REL ? block_children(c) : total,
			    block_children(c), depth + 1, new_mask | level_bit(depth), left);
		c = next;
	}
	if (p->o->graph == PCL_GRAPH_REL && remaining && remaining != total) {
		uint64_t all_count = 0;

		/*
		 * perf counts the remainder's samples as those of the parent's
		 * hidden branches, and with -g ...,count shows none if that is 0
		 */
		for (c = first; c; c = c->next)
			all_count += c->count;
		if (p->o->graph_value == PCL_GRAPH_COUNT && all_count <= shown_count)
			return;
		new_mask &= ~level_bit(depth - 1);
		/* perf 6.1 sometimes adds " (inlined)" here: an unset flag, not data */
		graph_frame(p, "[...]", remaining, all_count - shown_count, depth, new_mask, 0,
			    total, left);
	}
}

static void print_graph(struct printer *p, const struct pcl_hist_entry *e)
{
	const struct pcl_callnode *root = e->root, *top, *end, *n;
	uint64_t total = p->o->graph == PCL_GRAPH_REL ? entry_value(p, e) : p->graph_total;
	bool printed = false;
	int left = 0, i = 0;

	p->lines = 0;

	top = next_shown(p, root->first, root->total - root->self);
	/* one root carrying the whole entry: its percentage would only repeat the entry's */
	if (top && !next_shown(p, top->next, root->total - root->self) &&
	    top->total == entry_value(p, e)) {
		/* one root: print its block after "---", without its percentage */
		end = block_end(top);
		for (n = top;; n = n->first) {
			if (!(i++ == 0 && p->o->sort_sym_first)) {
				margin(p, left);
				if (!printed) {
					fputs("|\n", p->fp);
					margin(p, left);
					fputs("---", p->fp);
					left += 3;
					printed = true;
				}
				fprintf(p->fp, "%s\n", frame_name(p, &n->frame));
			}
			if (n == end)
				break;
		}
		/*
		 * perf's fractal shares under the one root are of the entry, not of
		 * the root's children: the chains that end in the root block are the
		 * "[...]" remainder. Its branches are pruned against the block's
		 * children all the same.
		 */
		graph_level(p, end->first, total, block_children(top), 1, 1, left);
	} else {
		graph_level(p, root->first, total, root->total - root->self, 1, 1, left);
	}
	if (p->lines)
		fputc('\n', p->fp);
}

/*
 * Every node with chains ending in it, heaviest first: flat and folded
 * output. perf (sort_chain_flat) visits its call tree depth first, a node
 * after its children, the children in the order of its rb-tree of them
 * (rb_root_in: the greatest frame key first, see child_key_cmp), and
 * inserts each node with hits into a tree by those hits where an equal one
 * goes after: the heaviest first, equal ones in that visiting order. The
 * tree's children here are heaviest first (for graphs), so a flat chain of
 * equal hits would come in another order: walk them in perf's instead.
 */
struct leaf {
	const struct pcl_callnode *n;
	size_t seq; /* the visiting order */
};

/* perf's match_chain (function key) order of two sibling frames: < 0 if @a's key is less. */
static int child_key_cmp(const struct pcl_frame *a, const struct pcl_frame *b)
{
	const struct pcl_dso *da = a->map ? a->map->dso : NULL, *db = b->map ? b->map->dso : NULL;
	uint64_t ka, kb;

	/* perf compares the DSOs' addresses: pcl's creation order stands for that */
	if (da != db) {
		int64_t ra = da ? (int64_t)da->seq : -1, rb = db ? (int64_t)db->seq : -1;

		return ra < rb ? -1 : 1;
	}
	if (a->sym && b->sym) {
		if (a->inlined || b->inlined) {
			int c = strcmp(a->sym->name, b->sym->name);

			return c < 0 ? -1 : c > 0;
		}
		ka = a->sym->start;
		kb = b->sym->start;
	} else {
		ka = a->ip; /* no symbol on one side: perf compares the ips */
		kb = b->ip;
	}
	return ka < kb ? -1 : ka > kb;
}

static int child_qcmp(const void *pa, const void *pb)
{
	const struct pcl_callnode *a = *(const struct pcl_callnode *const *)pa,
				  *b = *(const struct pcl_callnode *const *)pb;

	return -child_key_cmp(&a->frame, &b->frame); /* the greatest first */
}

static void collect_leaves(const struct pcl_callnode *n, uint64_t min_hit, struct leaf **v,
			   size_t *nr, size_t *alloc)
{
	const struct pcl_callnode *one[8], **kids = one;
	size_t k = 0;

	for (const struct pcl_callnode *c = n->first; c; c = c->next)
		k++;
	if (k > 8 && !(kids = malloc(k * sizeof(*kids)))) {
		/* no memory: every chain still, in the tree's order */
		for (const struct pcl_callnode *c = n->first; c; c = c->next)
			collect_leaves(c, min_hit, v, nr, alloc);
		k = 0;
		kids = one;
	} else {
		k = 0;
		for (const struct pcl_callnode *c = n->first; c; c = c->next)
			kids[k++] = c;
	}
	if (k > 1)
		qsort(kids, k, sizeof(*kids), child_qcmp);
	for (size_t i = 0; i < k; i++)
		collect_leaves(kids[i], min_hit, v, nr, alloc);
	if (kids != one)
		free(kids);
	if (!n->parent || !n->self || n->self < min_hit)
		return;
	if (*nr == *alloc) {
		size_t na = *alloc ? *alloc * 2 : 16;
		struct leaf *nv = realloc(*v, na * sizeof(*nv));

		if (!nv)
			return;
		*v = nv;
		*alloc = na;
	}
	(*v)[*nr].n = n;
	(*v)[*nr].seq = *nr;
	(*nr)++;
}

/* heaviest first; equal ones in the order visited (qsort alone is not stable) */
static int leaf_cmp(const void *a, const void *b)
{
	const struct leaf *x = a, *y = b;

	if (x->n->self != y->n->self)
		return x->n->self < y->n->self ? 1 : -1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void print_path(struct printer *p, const struct pcl_callnode *n, bool folded, bool *first)
{
	if (!n->parent)
		return;
	print_path(p, n->parent, folded, first);
	if (folded) {
		fprintf(p->fp, "%s%s", *first ? "" : ";", frame_name(p, &n->frame));
		*first = false;
	} else {
		fprintf(p->fp, "                %s\n", frame_name(p, &n->frame));
	}
}

static void print_leaves(struct printer *p, const struct pcl_hist_entry *e)
{
	struct leaf *v = NULL;
	size_t nr = 0, alloc = 0;
	bool folded = p->o->graph == PCL_GRAPH_FOLDED;

	collect_leaves(e->root, p->min_hit, &v, &nr, &alloc);
	if (nr)
		qsort(v, nr, sizeof(*v), leaf_cmp);
	for (size_t i = 0; i < nr; i++) {
		const struct pcl_callnode *n = v[i].n;
		bool first = true;

		if (folded) {
			print_value(p, n->self, n->count, p->graph_total);
			fputc(' ', p->fp);
		} else {
			fputs("           ", p->fp);
			print_value(p, n->total, n->count, p->graph_total);
			fputc('\n', p->fp);
		}
		print_path(p, n, folded, &first);
		fputc('\n', p->fp);
	}
	free(v);
}

static double hpp_pct(const struct printer *p, const struct pcl_hist_entry *e, enum pcl_hpp f)
{
	switch (f) {
	case PCL_HPP_OVERHEAD:
		return pct(e->self, p->total);
	case PCL_HPP_OVERHEAD_SYS:
		return pct(e->period_sys, p->total);
	case PCL_HPP_OVERHEAD_US:
		return pct(e->period_us, p->total);
	case PCL_HPP_OVERHEAD_CHILDREN:
		return pct(e->children, p->total);
	default:
		return 0.0;
	}
}

/* --group: each member's value in turn, at the field's own width */
static void print_members(struct printer *p, const struct pcl_hist_entry *e, enum pcl_hpp f)
{
	int w = hpp_width(p, f) / p->o->nr_members;

	for (int i = 0; i < p->o->nr_members; i++) {
		const uint64_t *v =
			f == PCL_HPP_SAMPLE	    ? e->member_samples
			: f == PCL_HPP_OVERHEAD_SYS ? e->member_sys
			: f == PCL_HPP_OVERHEAD_US  ? e->member_us
			: f == PCL_HPP_OVERHEAD_GUEST_SYS || f == PCL_HPP_OVERHEAD_GUEST_US
				? NULL
				: e->member_self;
		uint64_t x = v ? v[i] : 0;
		char fmt[16];

		if (f == PCL_HPP_SAMPLE || f == PCL_HPP_PERIOD) {
			fprintf(p->fp, " %*" PRIu64, w - 1, x);
			continue;
		}
		snprintf(fmt, sizeof(fmt), " %%%d.2f%%%%", w - 2);
		pcl_percent_fprintf(p->fp, p->o->color, fmt, pct(x, p->o->member_totals[i]));
	}
}

static void print_hpp(struct printer *p, const struct pcl_hist_entry *e, enum pcl_hpp f)
{
	FILE *fp = p->fp;

	if (group_mode(p) && f != PCL_HPP_OVERHEAD_CHILDREN) {
		print_members(p, e, f);
	} else if (f == PCL_HPP_SAMPLE) {
		fprintf(fp, " %11" PRIu64, e->nr_samples);
	} else if (f == PCL_HPP_PERIOD) {
		fprintf(fp, " %11" PRIu64, e->self);
	} else if (f == PCL_HPP_OVERHEAD_CHILDREN && !p->o->children) {
		fprintf(fp, " %7s", "N/A"); /* perf: no children without a call graph */
	} else {
		char fmt[16];

		snprintf(fmt, sizeof(fmt), " %%%d.2f%%%%", hpp_width(p, f) - 2);
		pcl_percent_fprintf(fp, p->o->color, fmt, hpp_pct(p, e, f));
	}
}

static void print_entry(struct printer *p, const struct pcl_hist_entry *e)
{
	FILE *fp = p->fp;

	for (int i = 0; i < p->nr_cols; i++) {
		const struct col *col = &p->cols[i];
		enum pcl_sort_key k = col->f.key;
		const char *s;
		int cut;

		if (p->o->field_sep && i)
			fputs(p->o->field_sep, fp);
		else if (!p->o->field_sep)
			fputs("  ", fp);
		if (col->f.hpp != PCL_HPP_KEY) {
			print_hpp(p, e, col->f.hpp);
			continue;
		}
		s = cell(p, e, k);
		if (p->o->field_sep) {
			/* perf's -t: the separator inside a value becomes '.' */
			for (; *s; s++)
				fputc(*p->o->field_sep && *s == *p->o->field_sep ? '.' : *s, fp);
			continue;
		}
		/* perf cuts a srcfile or srcline to the column's width (see srcpos_known) */
		cut = k == PCL_SORT_SRCFILE || k == PCL_SORT_SRCLINE ? col->width : INT32_MAX;
		if (i == p->nr_cols - 1 &&
		    (k == PCL_SORT_SYM || k == PCL_SORT_SRCLINE || k == PCL_SORT_SRCFILE))
			fprintf(fp, "%.*s", cut, s); /* perf pads every column but these */
		else if (cut != INT32_MAX)
			fprintf(fp, "%-*.*s", col->width, cut, s);
		else
			fprintf(fp, "%-*s", col->width, s);
	}
	fputc('\n', fp);
	if (!e->root || p->o->graph == PCL_GRAPH_NONE)
		return;
	if (p->o->graph == PCL_GRAPH_FLAT || p->o->graph == PCL_GRAPH_FOLDED)
		print_leaves(p, e);
	else
		print_graph(p, e);
}

/*
 * perf computes an entry's srcfile only when a comparison reaches that
 * key: its entries are kept apart by address until they are collapsed by
 * the keys' strings, and only then is the srcfile string made, for the
 * entries that have the same values for every key before it. So an entry
 * counts towards the column's width when another entry shares those
 * values or its samples were at several addresses; the others are cut to
 * the width when printed ("dl-get-cpu-" under "Source File"). Marks the
 * counted ones in @known.
 */
static uint64_t prefix_val(const struct pcl_hist_entry *e, enum pcl_sort_key k)
{
	const struct pcl_frame *f = &e->frame;

	switch (k) {
	case PCL_SORT_COMM:
		return (uintptr_t)e->comm;
	case PCL_SORT_DSO:
		return (uintptr_t)(f->map ? f->map->dso->short_name : NULL);
	case PCL_SORT_SYM:
		return f->sym ? (uintptr_t)f->sym : f->addr;
	case PCL_SORT_PID:
	case PCL_SORT_TID:
		return (uint32_t)e->tid;
	case PCL_SORT_CPU:
		return (uint32_t)e->cpu;
	case PCL_SORT_SRCLINE:
		return (uintptr_t)e->srcline;
	case PCL_SORT_PARENT:
		return (uintptr_t)e->parent;
	default:
		return 0;
	}
}

struct prefix_ctx {
	const struct pcl_hists *h;
	const enum pcl_sort_key *keys;
	int nr; /* the keys before srcfile */
};

static int prefix_cmp(const void *pa, const void *pb, void *arg)
{
	const struct prefix_ctx *x = arg;
	const struct pcl_hist_entry *a = pcl_hists__entry(x->h, *(const size_t *)pa);
	const struct pcl_hist_entry *b = pcl_hists__entry(x->h, *(const size_t *)pb);

	for (int i = 0; i < x->nr; i++) {
		uint64_t va = prefix_val(a, x->keys[i]), vb = prefix_val(b, x->keys[i]);

		if (va != vb)
			return va < vb ? -1 : 1;
	}
	return 0;
}

static bool *srcpos_known(const struct pcl_hists *h, const struct pcl_report_opts *o, size_t n,
			  enum pcl_sort_key key)
{
	struct prefix_ctx x = { h, o->keys, 0 };
	size_t *idx;
	bool *known;

	while (x.nr < o->nr_keys && o->keys[x.nr] != key)
		x.nr++;
	if (x.nr == o->nr_keys || !n)
		return NULL;
	idx = malloc(n * sizeof(*idx));
	known = calloc(n, sizeof(*known));
	if (!idx || !known) {
		free(idx);
		free(known);
		return NULL; /* every entry counts, as if perf had compared them all */
	}
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	qsort_r(idx, n, sizeof(*idx), prefix_cmp, &x);
	/* a srcline is made at once, but for the entries of chain frames */
	for (size_t i = 0; i < n; i++)
		known[i] = pcl_hists__entry(h, i)->many_addrs ||
			   (key == PCL_SORT_SRCLINE && !pcl_hists__entry(h, i)->srcline_lazy);
	for (size_t i = 0; i + 1 < n; i++)
		if (!prefix_cmp(&idx[i], &idx[i + 1], &x))
			known[idx[i]] = known[idx[i + 1]] = true;
	free(idx);
	return known;
}

/* The columns: opts.fields, or perf's default (Overhead, or Children and Self; the keys). */
static void setup_cols(struct printer *p)
{
	const struct pcl_report_opts *o = p->o;
	struct pcl_field def[PCL_FIELDS_MAX];
	const struct pcl_field *f = o->fields;
	int n = o->nr_fields;

	if (!n) {
		if (o->children)
			def[n++] = (struct pcl_field){ PCL_HPP_OVERHEAD_CHILDREN, 0 };
		def[n++] = (struct pcl_field){ PCL_HPP_OVERHEAD, 0 };
		for (int i = 0; i < o->nr_keys && n < PCL_FIELDS_MAX; i++)
			def[n++] = (struct pcl_field){ PCL_HPP_KEY, o->keys[i] };
		f = def;
	}
	p->nr_cols = n;
	for (int i = 0; i < n; i++) {
		struct col *c = &p->cols[i];

		c->f = f[i];
		if (f[i].hpp == PCL_HPP_KEY) {
			c->title = pcl_report__key_title(f[i].key);
			c->width = (int)strlen(c->title);
		} else {
			c->title = hpp_title(p, f[i].hpp);
			c->width = hpp_width(p, f[i].hpp);
			if (c->width < (int)strlen(c->title))
				c->width = (int)strlen(c->title);
		}
	}
}

PCL_API int pcl_report__print(FILE *fp, const struct pcl_hists *h,
			      const struct pcl_report_opts *opts)
{
	struct pcl_report_opts o = { 0 };
	struct printer p = { .fp = fp, .o = &o };
	size_t n = pcl_hists__nr_entries(h);
	bool unresolved = false; /* an entry with no symbol */
	bool *known = NULL, *known_line = NULL; /* srcfile, srcline made: srcpos_known() */
	char buf[4096];

	if (!fp || !h || !opts)
		return pcl_err(EINVAL, "pcl_report__print: invalid argument");
	if (opts_copy(&o, opts, "pcl_report_opts") < 0)
		return -EINVAL; /* with opts_copy's message */
	if (!o.nr_keys) {
		o.keys[0] = PCL_SORT_COMM;
		o.keys[1] = PCL_SORT_DSO;
		o.keys[2] = PCL_SORT_SYM;
		o.nr_keys = 3;
	}
	p.buf = buf;
	p.buflen = sizeof(buf);
	p.total = o.total_period ? o.total_period : pcl_hists__total_period(h);
	p.graph_total = o.graph_total ? o.graph_total : p.total;
	/* perf: of the entries' total, the one --percentage relative makes smaller */
	p.min_hit = (uint64_t)((double)p.total * (o.graph_min_percent / 100.0));
	setup_cols(&p);
	known = srcpos_known(h, &o, n, PCL_SORT_SRCFILE);
	known_line = srcpos_known(h, &o, n, PCL_SORT_SRCLINE);
	/* widths count the entries --percent-limit hides, as perf's do */
	for (size_t i = 0; i < n; i++) {
		const struct pcl_hist_entry *e = pcl_hists__entry(h, i);

		if (e->hidden)
			continue;
		unresolved |= !e->frame.sym;
		for (int c = 0; c < p.nr_cols; c++) {
			enum pcl_sort_key k = p.cols[c].f.key;
			int w;

			if (p.cols[c].f.hpp != PCL_HPP_KEY)
				continue;
			if (k == PCL_SORT_CPU || (k == PCL_SORT_SRCFILE && known && !known[i]) ||
			    (k == PCL_SORT_SRCLINE && known_line && !known_line[i]))
				continue; /* 3 wide, always; a string perf has not made yet */
			if (k == PCL_SORT_PID || k == PCL_SORT_TID)
				w = 8 + (int)strlen(e->thread ? e->thread->comm : e->comm);
			else if (k == PCL_SORT_COMM)
				/* perf sizes it by the thread's last comm (thread__comm_len) */
				w = (int)strlen(e->thread ? e->thread->comm : e->comm);
			else
				w = (int)strlen(cell(&p, e, k));
			/*
			 * perf sizes an entry with no symbol for a raw 64-bit
			 * address, "[x] 0x" and 16 digits, whatever it prints:
			 * address 0 prints as 16 zeros, 2 narrower.
			 */
			if (k == PCL_SORT_SYM && !e->frame.sym && w < 22)
				w = 22;
			/* and an inlined function's by its name, without " (inlined)" */
			if (k == PCL_SORT_SYM && e->frame.inlined)
				w -= (int)strlen(" (inlined)");
			if (w > p.cols[c].width)
				p.cols[c].width = w;
		}
	}
	/* perf's hists__set_unres_dso_col_len */
	for (int c = 0; c < p.nr_cols; c++)
		if (p.cols[c].f.hpp == PCL_HPP_KEY && p.cols[c].f.key == PCL_SORT_DSO &&
		    unresolved && !o.dso_filter && p.cols[c].width < 16)
			p.cols[c].width = 16;
	if (!o.quiet)
		print_header(&p);
	free(known);
	free(known_line);
	for (size_t i = 0; i < n; i++) {
		const struct pcl_hist_entry *e = pcl_hists__entry(h, i);

		if (shown(&p, e))
			print_entry(&p, e);
	}
	return ferror(fp) ? -EIO : 0;
}
