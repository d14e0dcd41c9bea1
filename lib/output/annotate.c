/* SPDX-License-Identifier: MIT */
/*
 * Annotate: samples per instruction of each function, and the listing
 * perf annotate shows for one function.
 *
 * Gathering: functions live in an array, found through a hash on (event,
 * DSO, symbol); each sample's offset in its function is counted in an
 * open-addressing table keyed by (function, offset). finish() sorts the
 * offsets by function then offset, so a listing walks its function's
 * offsets once alongside its instructions.
 *
 * A listing is what `objdump -d -l -S` prints for the function, the way
 * perf reads it: instructions, and before the first instruction of each
 * new source line, the function's name when it changes, the line's
 * location, and the source lines objdump -S would print (the line itself,
 * with up to five lines before it that were not printed yet). perf numbers
 * every line it keeps from a counter that objdump's "/abs/file:LINE" lines
 * reset and hide; pcl shows that counter on the lines perf does (headings,
 * a relative location), but a source line's own number on source lines,
 * where perf's counter is off by the context lines (docs/annotate.md).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <pcl/annotate.h>
#include "internal.h"
#include "symbol/disasm.h"
#include "symbol/files.h"
#include "symbol/symtab.h"

/* objdump -S: lines of context shown before a source line the first time. */
#define PRECEDING_CONTEXT 5
/* Source files larger than this are not shown. */
#define MAX_SOURCE_BYTES (64u << 20)

struct addr_ent {
	uint32_t sym; /* index + 1; 0: empty slot */
	uint64_t off;
	uint64_t period, count;
};

struct sym_ent {
	struct pcl_annotate_sym pub;
	size_t first, n; /* after finish: its offsets in a->sorted */
};

struct ev_total {
	uint64_t period, count;
};

struct pcl_annotate {
	struct sym_ent *syms;
	size_t nr_syms, cap_syms;
	uint32_t *sym_slots; /* index + 1 */
	size_t cap_slots;
	struct addr_ent *addrs; /* hash table */
	size_t nr_addrs, cap_addrs;
	struct addr_ent *sorted;
	size_t *order; /* functions, heaviest first */
	struct ev_total *ev;
	int nr_ev;
};

static const char *const percent_names[][2] = {
	[PCL_PERCENT_LOCAL_PERIOD] = { "local-period", "local period" },
	[PCL_PERCENT_GLOBAL_PERIOD] = { "global-period", "global period" },
	[PCL_PERCENT_LOCAL_HITS] = { "local-hits", "local hits" },
	[PCL_PERCENT_GLOBAL_HITS] = { "global-hits", "global hits" },
};

int pcl_percent_type_parse(const char *s, enum pcl_percent_type *out)
{
	for (size_t i = 0; i < sizeof(percent_names) / sizeof(percent_names[0]); i++) {
		if (!strcmp(s, percent_names[i][0])) {
			*out = (enum pcl_percent_type)i;
			return 0;
		}
	}
	return pcl_err(EINVAL,
		       "bad percent type '%s' (local-period, global-period, local-hits, "
		       "global-hits)",
		       s);
}

const char *pcl_percent_type_name(enum pcl_percent_type t)
{
	return (unsigned int)t < sizeof(percent_names) / sizeof(percent_names[0])
		       ? percent_names[t][1]
		       : "?";
}

struct pcl_annotate *pcl_annotate__new(void)
{
	struct pcl_annotate *a = calloc(1, sizeof(*a));

	if (!a)
		return pcl_err_null(ENOMEM, "out of memory");
	return a;
}

void pcl_annotate__free(struct pcl_annotate *a)
{
	if (!a)
		return;
	free(a->syms);
	free(a->sym_slots);
	free(a->addrs);
	free(a->sorted);
	free(a->order);
	free(a->ev);
	free(a);
}

static size_t sym_hash(int event, const void *dso, const void *sym)
{
	return hash_mix(hash_mix((uint64_t)event, (uintptr_t)dso), (uintptr_t)sym);
}

static int sym_rehash(struct pcl_annotate *a)
{
	size_t cap = a->cap_slots ? a->cap_slots * 2 : 256;
	uint32_t *s = calloc(cap, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < a->nr_syms; i++) {
		const struct pcl_annotate_sym *p = &a->syms[i].pub;
		size_t j = sym_hash(p->event, p->dso, p->sym) & (cap - 1);

		while (s[j])
			j = (j + 1) & (cap - 1);
		s[j] = (uint32_t)i + 1;
	}
	free(a->sym_slots);
	a->sym_slots = s;
	a->cap_slots = cap;
	return 0;
}

/* The index of (@event, @dso, @sym), added if new; -ENOMEM. */
static long sym_index(struct pcl_annotate *a, int event, struct pcl_dso *dso,
		      const struct pcl_symbol *sym)
{
	size_t j;

	if ((a->nr_syms + 1) * 2 > a->cap_slots && sym_rehash(a))
		return -ENOMEM;
	j = sym_hash(event, dso, sym) & (a->cap_slots - 1);
	for (; a->sym_slots[j]; j = (j + 1) & (a->cap_slots - 1)) {
		const struct pcl_annotate_sym *p = &a->syms[a->sym_slots[j] - 1].pub;

		if (p->event == event && p->dso == dso && p->sym == sym)
			return a->sym_slots[j] - 1;
	}
	if (a->nr_syms == a->cap_syms) {
		size_t cap = a->cap_syms ? a->cap_syms * 2 : 64;
		struct sym_ent *n = realloc(a->syms, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		a->syms = n;
		a->cap_syms = cap;
	}
	memset(&a->syms[a->nr_syms], 0, sizeof(a->syms[0]));
	a->syms[a->nr_syms].pub = (struct pcl_annotate_sym){ event, dso, sym, 0, 0 };
	a->sym_slots[j] = (uint32_t)a->nr_syms + 1;
	return (long)a->nr_syms++;
}

static int addr_rehash(struct pcl_annotate *a)
{
	size_t cap = a->cap_addrs ? a->cap_addrs * 2 : 1024;
	struct addr_ent *t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < a->cap_addrs; i++) {
		size_t j;

		if (!a->addrs[i].sym)
			continue;
		j = hash_mix(a->addrs[i].sym, a->addrs[i].off) & (cap - 1);
		while (t[j].sym)
			j = (j + 1) & (cap - 1);
		t[j] = a->addrs[i];
	}
	free(a->addrs);
	a->addrs = t;
	a->cap_addrs = cap;
	return 0;
}

static int count_addr(struct pcl_annotate *a, uint32_t sym, uint64_t off, uint64_t period)
{
	size_t j;

	if ((a->nr_addrs + 1) * 2 > a->cap_addrs && addr_rehash(a))
		return -ENOMEM;
	j = hash_mix(sym, off) & (a->cap_addrs - 1);
	while (a->addrs[j].sym && (a->addrs[j].sym != sym || a->addrs[j].off != off))
		j = (j + 1) & (a->cap_addrs - 1);
	if (!a->addrs[j].sym) {
		a->addrs[j] = (struct addr_ent){ sym, off, 0, 0 };
		a->nr_addrs++;
	}
	a->addrs[j].period += period;
	a->addrs[j].count++;
	return 0;
}

int pcl_annotate__add(struct pcl_annotate *a, int event, const struct pcl_frame *ip,
		      uint64_t period)
{
	long i;

	if (event < 0)
		return pcl_err(EINVAL, "bad event index %d", event);
	if (event >= a->nr_ev) {
		struct ev_total *n = realloc(a->ev, (size_t)(event + 1) * sizeof(*n));

		if (!n)
			return pcl_err(ENOMEM, "out of memory");
		memset(n + a->nr_ev, 0, (size_t)(event + 1 - a->nr_ev) * sizeof(*n));
		a->ev = n;
		a->nr_ev = event + 1;
	}
	a->ev[event].period += period;
	a->ev[event].count++;
	if (!ip->map || !ip->sym || ip->addr < ip->sym->start)
		return 0;
	if ((i = sym_index(a, event, ip->map->dso, ip->sym)) < 0 ||
	    count_addr(a, (uint32_t)i + 1, ip->addr - ip->sym->start, period))
		return pcl_err(ENOMEM, "out of memory");
	a->syms[i].pub.period += period;
	a->syms[i].pub.nr_samples++;
	return 0;
}

static int addr_cmp(const void *x, const void *y)
{
	const struct addr_ent *p = x, *q = y;

	if (p->sym != q->sym)
		return p->sym < q->sym ? -1 : 1;
	return p->off < q->off ? -1 : p->off > q->off;
}

static int order_cmp(const void *x, const void *y, void *ctx)
{
	const struct pcl_annotate *a = ctx;
	const struct pcl_annotate_sym *p = &a->syms[*(const size_t *)x].pub;
	const struct pcl_annotate_sym *q = &a->syms[*(const size_t *)y].pub;

	if (p->event != q->event)
		return p->event < q->event ? -1 : 1;
	if (p->period != q->period)
		return p->period > q->period ? -1 : 1;
	if (p->nr_samples != q->nr_samples)
		return p->nr_samples > q->nr_samples ? -1 : 1;
	return strcmp(p->sym->name, q->sym->name);
}

void pcl_annotate__finish(struct pcl_annotate *a)
{
	size_t n = 0;

	free(a->sorted);
	free(a->order);
	a->sorted = malloc((a->nr_addrs ? a->nr_addrs : 1) * sizeof(*a->sorted));
	a->order = malloc((a->nr_syms ? a->nr_syms : 1) * sizeof(*a->order));
	if (!a->sorted || !a->order) {
		/* no memory to sort in: the functions show no samples rather than wrong ones */
		free(a->sorted);
		free(a->order);
		a->sorted = NULL;
		a->order = NULL;
		a->nr_syms = 0;
		return;
	}
	for (size_t i = 0; i < a->cap_addrs; i++)
		if (a->addrs[i].sym)
			a->sorted[n++] = a->addrs[i];
	qsort(a->sorted, n, sizeof(*a->sorted), addr_cmp);
	for (size_t i = 0; i < n; i++) {
		struct sym_ent *e = &a->syms[a->sorted[i].sym - 1];

		if (!e->n)
			e->first = i;
		e->n++;
	}
	for (size_t i = 0; i < a->nr_syms; i++)
		a->order[i] = i;
	qsort_r(a->order, a->nr_syms, sizeof(*a->order), order_cmp, a);
}

size_t pcl_annotate__nr_syms(const struct pcl_annotate *a)
{
	return a->order ? a->nr_syms : 0;
}

const struct pcl_annotate_sym *pcl_annotate__sym(const struct pcl_annotate *a, size_t i)
{
	return i < pcl_annotate__nr_syms(a) ? &a->syms[a->order[i]].pub : NULL;
}

void pcl_annotate__event_totals(const struct pcl_annotate *a, int event, uint64_t *period,
				uint64_t *nr_samples)
{
	bool in = event >= 0 && event < a->nr_ev;

	*period = in ? a->ev[event].period : 0;
	*nr_samples = in ? a->ev[event].count : 0;
}

/* ---- listings ---- */

/* A source file, read whole, split into lines (NUL-terminated in place). */
struct source {
	char *path;
	char *text;
	char **lines;
	unsigned int nr_lines;
	unsigned int max_printed, last_line; /* objdump -S's state per file */
	bool first;
};

struct listing_priv {
	struct disasm_func df;
	struct source *src;
	size_t nr_src;
	char **strs; /* names and locations the lines point to */
	size_t nr_strs;
	size_t cap_lines;
};

static void source_load(struct source *s)
{
	FILE *f = fopen(s->path, "re");
	long size;
	size_t n = 0, cap = 0;

	if (!f)
		return;
	if (fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 ||
	    (unsigned long)size > MAX_SOURCE_BYTES || fseek(f, 0, SEEK_SET) ||
	    !(s->text = malloc((size_t)size + 1)))
		goto out;
	size = (long)fread(s->text, 1, (size_t)size, f);
	s->text[size] = 0;
	for (char *p = s->text; p < s->text + size;) {
		char *nl = strchr(p, '\n');

		if (n == cap) {
			char **l = realloc(s->lines, (cap = cap ? cap * 2 : 256) * sizeof(*l));

			if (!l)
				break;
			s->lines = l;
		}
		s->lines[n++] = p;
		if (!nl)
			break;
		*nl = 0;
		p = nl + 1;
	}
	s->nr_lines = (unsigned int)n;
out:
	fclose(f);
}

static struct source *source_get(struct listing_priv *p, const char *path)
{
	struct source *s;

	for (size_t i = 0; i < p->nr_src; i++)
		if (!strcmp(p->src[i].path, path))
			return &p->src[i];
	s = realloc(p->src, (p->nr_src + 1) * sizeof(*s));
	if (!s)
		return NULL;
	p->src = s;
	s = &p->src[p->nr_src];
	memset(s, 0, sizeof(*s));
	if (!(s->path = strdup(path)))
		return NULL;
	s->first = true;
	p->nr_src++;
	source_load(s);
	return s;
}

static const char *keep_str(struct listing_priv *p, char *s)
{
	char **n;

	if (!s)
		return NULL;
	n = realloc(p->strs, (p->nr_strs + 1) * sizeof(*n));
	if (!n) {
		free(s);
		return NULL;
	}
	p->strs = n;
	p->strs[p->nr_strs++] = s;
	return s;
}

static struct pcl_annotate_line *new_line(struct pcl_annotate_listing *l)
{
	struct listing_priv *p = l->priv;

	if (l->nr_lines == p->cap_lines) {
		size_t cap = p->cap_lines ? p->cap_lines * 2 : 128;
		struct pcl_annotate_line *n = realloc(l->lines, cap * sizeof(*n));

		if (!n)
			return NULL;
		l->lines = n;
		p->cap_lines = cap;
	}
	memset(&l->lines[l->nr_lines], 0, sizeof(l->lines[0]));
	return &l->lines[l->nr_lines++];
}

/* Skip the blanks perf strips from the lines it shows. */
static const char *trim_left(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static int add_text(struct pcl_annotate_listing *l, const char *text, const char *file,
		    unsigned int nr)
{
	struct pcl_annotate_line *ln = new_line(l);

	if (!ln)
		return -ENOMEM;
	ln->text = text;
	ln->file = file;
	ln->line_nr = nr;
	return 0;
}

/* State of the objdump -l -S stream being imitated. */
struct stream {
	const char *func, *file;
	unsigned int line;
	unsigned int counter; /* perf's line counter */
};

/* The source lines objdump -S shows before an instruction of @file:@line (its show_line). */
static int add_source(struct pcl_annotate_listing *l, struct source *s, unsigned int line,
		      struct stream *st)
{
	unsigned int from;

	if (line == s->last_line)
		return 0;
	from = line > PRECEDING_CONTEXT ? line - PRECEDING_CONTEXT : 1;
	if (s->max_printed >= from)
		from = s->max_printed < line ? s->max_printed + 1 : line;
	for (unsigned int n = from; n <= line && n <= s->nr_lines; n++, st->counter++)
		if (add_text(l, pcl_annotate_listing__source_line(l, s->path, n), s->path, n))
			return -ENOMEM;
	if (s->max_printed < line)
		s->max_printed = line;
	s->last_line = line;
	s->first = false;
	return 0;
}

/*
 * objdump -C -l's line for function @f (a DWARF linkage name or plain
 * name): "NAME(PARAMS):" for a demangled C++ or Rust name, else "NAME():".
 */
static char *func_heading(const char *f)
{
	char *d = demangle_flags(f, PCL_SYMTAB_DEMANGLE | PCL_SYMTAB_DEMANGLE_PARAMS), *r;
	int n = d ? asprintf(&r, "%s:", d) : asprintf(&r, "%s():", f);

	free(d);
	return n < 0 ? NULL : r;
}

/* What objdump -l -S prints before an instruction whose source is @info. */
static int add_location(struct pcl_annotate_listing *l, const struct srcline_info *info,
			bool no_source, struct stream *st)
{
	struct listing_priv *p = l->priv;
	const char *func = info->nframes ? info->frames[0].func : NULL;
	char *loc;

	if (!info->file || !info->line)
		return 0;
	if (func && (!st->func || strcmp(func, st->func))) {
		char *h = func_heading(func);

		if (!h || add_text(l, keep_str(p, h), NULL, st->counter++))
			return -ENOMEM;
		st->func = func;
	}
	if (st->file && st->line == info->line && !strcmp(st->file, info->file))
		return 0;
	st->file = info->file;
	st->line = info->line;
	if (info->file[0] == '/') {
		st->counter = info->line; /* perf hides "/abs/path:LINE" and restarts its count */
	} else {
		if (asprintf(&loc, "%s:%u", info->file, info->line) < 0 ||
		    add_text(l, keep_str(p, loc), NULL, st->counter++))
			return -ENOMEM;
	}
	if (!no_source) {
		struct source *s = source_get(p, info->file);

		if (!s)
			return -ENOMEM;
		if (s->nr_lines && add_source(l, s, info->line, st))
			return -ENOMEM;
	}
	return 0;
}

/*
 * objdump -C names targets inside the function with its parameters too
 * ("<ns::f(int)+0x11>"): give @df's branches into [start, end) @name
 * where the symbol table's @sym_name (no parameters) is.
 */
static void rename_targets(struct disasm_func *df, uint64_t start, uint64_t end,
			   const char *sym_name, const char *name)
{
	size_t sl = strlen(sym_name);

	for (size_t j = 0; j < df->n; j++) {
		struct disasm_insn *di = &df->insn[j];
		char *at, buf[sizeof(di->text)];

		if (!(di->jump || di->call) || di->target < start || di->target >= end ||
		    !(at = strstr(di->text, " <")) || strncmp(at + 2, sym_name, sl) ||
		    (at[2 + sl] != '+' && at[2 + sl] != '>'))
			continue;
		snprintf(buf, sizeof(buf), "%.*s <%s%s", (int)(at - di->text), di->text, name,
			 at + 2 + sl);
		memcpy(di->text, buf, sizeof(buf));
	}
}

/* Mark the instructions jumps land on; a jump into the middle of one marks nothing. */
static int mark_jumps(struct pcl_annotate_listing *l)
{
	size_t *at = malloc((l->nr_insn ? l->nr_insn : 1) * sizeof(*at)), n = 0;

	if (!at)
		return -ENOMEM;
	for (size_t i = 0; i < l->nr_lines; i++)
		if (l->lines[i].insn)
			at[n++] = i; /* in address order */
	for (size_t i = 0; i < n; i++) {
		struct pcl_annotate_line *ln = &l->lines[at[i]];
		size_t lo = 0, hi = n;

		if (!ln->jump)
			continue;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (l->lines[at[mid]].addr < ln->target)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < n && l->lines[at[lo]].addr == ln->target)
			l->lines[at[lo]].is_target = true;
		else
			ln->jump = false;
	}
	free(at);
	return 0;
}

int pcl_annotate__lines(const struct pcl_annotate *a, size_t i, struct pcl_symbols *s,
			const struct pcl_annotate_opts *opts, struct pcl_annotate_listing *out)
{
	struct pcl_annotate_opts o;
	const struct sym_ent *e;
	const struct symbols_dso_files *f;
	struct listing_priv *p;
	struct stream st = { .counter = 6 };
	size_t k;
	uint64_t end;
	int ret;

	memset(out, 0, sizeof(*out));
	if ((ret = opts_copy(&o, opts, "pcl_annotate_opts")))
		return ret;
	if (i >= pcl_annotate__nr_syms(a))
		return pcl_err(EINVAL, "no function %zu to annotate", i);
	e = &a->syms[a->order[i]];
	if (!(p = calloc(1, sizeof(*p))))
		return pcl_err(ENOMEM, "out of memory");
	out->priv = p;
	if ((ret = disasm_symbol(s, e->pub.dso, e->pub.sym, &p->df)))
		goto err;
	f = symbols_dso_files(s, e->pub.dso);
	out->start = symbols_dso_vaddr(f, e->pub.sym->start);
	out->section = p->df.section;
	end = out->start + (e->pub.sym->end - e->pub.sym->start);
	k = e->first;
	for (size_t j = 0; j < p->df.n; j++) {
		const struct disasm_insn *di = &p->df.insn[j];
		const struct srcline_info *info = NULL;
		uint64_t off = di->addr - out->start;
		struct pcl_annotate_line *ln;

		if (symbols_srcline(s, e->pub.dso, e->pub.sym->start + off, &info))
			info = NULL;
		if (j == 0 && info && info->nframes && info->frames[info->nframes - 1].func)
			out->name = keep_str(p, demangle_flags(info->frames[info->nframes - 1].func,
							       PCL_SYMTAB_DEMANGLE |
								       PCL_SYMTAB_DEMANGLE_PARAMS));
		if (info && add_location(out, info, o.no_source, &st))
			goto oom;
		if (!(ln = new_line(out)))
			goto oom;
		st.counter++;
		ln->insn = true;
		ln->addr = di->addr;
		ln->text = di->text;
		ln->jump = di->jump && di->target >= out->start && di->target < end;
		ln->target = di->target;
		if (info && info->line) {
			ln->src_file = info->file;
			ln->src_line = info->line;
		}
		for (; k < e->first + e->n && a->sorted[k].off < off + di->size; k++) {
			ln->period += a->sorted[k].period;
			ln->nr_samples += a->sorted[k].count;
		}
		out->nr_insn++;
	}
	if (!out->name)
		out->name = e->pub.sym->name;
	else
		rename_targets(&p->df, out->start, end, e->pub.sym->name, out->name);
	if (mark_jumps(out))
		goto oom;
	return 0;
oom:
	ret = pcl_err(ENOMEM, "out of memory");
err:
	pcl_annotate_listing__free(out);
	return ret;
}

void pcl_annotate_listing__free(struct pcl_annotate_listing *l)
{
	struct listing_priv *p;

	if (!l)
		return;
	if ((p = l->priv)) {
		disasm_func_free(&p->df);
		for (size_t i = 0; i < p->nr_src; i++) {
			free(p->src[i].path);
			free(p->src[i].text);
			free(p->src[i].lines);
		}
		free(p->src);
		for (size_t i = 0; i < p->nr_strs; i++)
			free(p->strs[i]);
		free(p->strs);
		free(p);
	}
	free(l->lines);
	memset(l, 0, sizeof(*l));
}

const char *pcl_annotate_listing__source_line(struct pcl_annotate_listing *l, const char *file,
					      unsigned int line)
{
	struct source *s;
	char *t;
	size_t len;

	if (!l->priv || !file || !line || !(s = source_get(l->priv, file)) || line > s->nr_lines)
		return NULL;
	t = s->lines[line - 1];
	len = strlen(t);
	while (len && (t[len - 1] == '\r' || t[len - 1] == ' ' || t[len - 1] == '\t'))
		t[--len] = 0;
	return trim_left(t);
}

/* ---- perf annotate --stdio ---- */

static unsigned int hex_width(uint64_t v)
{
	unsigned int w = 1;

	while (v >>= 4)
		w++;
	return w;
}

static double percent(const struct pcl_annotate *a, const struct sym_ent *e,
		      const struct pcl_annotate_line *ln, enum pcl_percent_type t)
{
	uint64_t tp, tn, num, den;

	pcl_annotate__event_totals(a, e->pub.event, &tp, &tn);
	switch (t) {
	case PCL_PERCENT_GLOBAL_PERIOD:
		num = ln->period, den = tp;
		break;
	case PCL_PERCENT_LOCAL_HITS:
		num = ln->nr_samples, den = e->pub.nr_samples;
		break;
	case PCL_PERCENT_GLOBAL_HITS:
		num = ln->nr_samples, den = tn;
		break;
	default:
		num = ln->period, den = e->pub.period;
		break;
	}
	return den ? 100.0 * (double)num / (double)den : 0.0;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* perf's -l: an instruction's source line is shown when it holds more than this share. */
#define PRINT_LINE_MIN 0.5

struct line_sum {
	const char *file;
	unsigned int line;
	double percent;
	char key[256]; /* "FILE:LINE" as printed */
};

/* hottest first; perf's ties come in descending order of their text */
static int line_sum_cmp(const void *x, const void *y)
{
	const struct line_sum *p = x, *q = y;

	if (p->percent != q->percent)
		return p->percent > q->percent ? -1 : 1;
	return -strcmp(p->key, q->key);
}

static void print_srcline(FILE *fp, const char *file, unsigned int line, bool full)
{
	fprintf(fp, "%s:%u", full ? file : base_name(file), line);
}

/* perf's -l summary: the source lines of the instructions over PRINT_LINE_MIN, summed. */
static int print_summary(FILE *fp, const struct pcl_annotate *a, const struct sym_ent *e,
			 const struct pcl_annotate_listing *l, const struct pcl_annotate_opts *o)
{
	struct line_sum *v = calloc(l->nr_insn ? l->nr_insn : 1, sizeof(*v));
	size_t n = 0;

	if (!v)
		return pcl_err(ENOMEM, "out of memory");
	for (size_t i = 0; i < l->nr_lines; i++) {
		const struct pcl_annotate_line *ln = &l->lines[i];
		double pc = ln->insn ? percent(a, e, ln, o->percent_type) : 0;
		size_t j;

		if (!ln->insn || !ln->src_file || pc <= PRINT_LINE_MIN)
			continue;
		for (j = 0; j < n; j++)
			if (v[j].line == ln->src_line && !strcmp(v[j].file, ln->src_file))
				break;
		if (j == n) {
			v[n] = (struct line_sum){ .file = ln->src_file, .line = ln->src_line };
			snprintf(v[n].key, sizeof(v[n].key), "%s:%u",
				 o->full_paths ? ln->src_file : base_name(ln->src_file),
				 ln->src_line);
			n++;
		}
		v[j].percent += pc;
	}
	qsort(v, n, sizeof(*v), line_sum_cmp);
	fprintf(fp, "\nSorted summary for file %s\n", e->pub.dso->name);
	fprintf(fp, "----------------------------------------------\n\n");
	for (size_t j = 0; j < n; j++) {
		const char *c = o->color ? pcl_percent_color(v[j].percent) : "";

		if (*c) /* perf colours the number and the line apart, the newline inside */
			fprintf(fp, "%s %7.2f\033[m%s %s\n\033[m", c, v[j].percent, c, v[j].key);
		else
			fprintf(fp, " %7.2f %s\n", v[j].percent, v[j].key);
	}
	free(v);
	return 0;
}

static void print_line(FILE *fp, const struct pcl_annotate *a, const struct sym_ent *e,
		       const struct pcl_annotate_line *ln, unsigned int aw,
		       const struct pcl_annotate_opts *o, const struct pcl_annotate_line **last)
{
	char addr[40];
	const char *c;
	double pc;
	int n;

	if (!ln->insn) {
		if (!ln->text[0])
			fprintf(fp, " %8s:\n", "");
		else
			fprintf(fp, " %8s: %-*u %s\n", "", (int)aw, ln->line_nr, ln->text);
		return;
	}
	pc = percent(a, e, ln, o->percent_type);
	c = o->color ? pcl_percent_color(pc) : "";
	fputs(c, fp);
	if (o->show_nr_samples)
		fprintf(fp, " %7" PRIu64, ln->nr_samples);
	else
		fprintf(fp, " %7.2f", pc);
	if (*c)
		fputs("\033[m", fp);
	/* the mnemonic starts ten columns after the " : ", as objdump's tab put it */
	n = snprintf(addr, sizeof(addr), "  %*" PRIx64 ":", (int)aw, ln->addr);
	if (o->color) /* perf's: the address magenta, the instruction blue */
		fprintf(fp, " : \033[35m%s\033[m\033[34m%*s%s\033[m", addr, n < 10 ? 10 - n : 1, "",
			ln->text);
	else
		fprintf(fp, " : %s%*s%s", addr, n < 10 ? 10 - n : 1, "", ln->text);
	if (o->print_line && ln->src_file && pc > PRINT_LINE_MIN &&
	    (!*last || (*last)->src_line != ln->src_line ||
	     strcmp((*last)->src_file, ln->src_file))) {
		fprintf(fp, "%s // ", c);
		print_srcline(fp, ln->src_file, ln->src_line, o->full_paths);
		if (*c)
			fputs("\033[m", fp);
		*last = ln;
	}
	fputc('\n', fp);
}

int pcl_annotate__print(FILE *fp, const struct pcl_annotate *a, size_t i, struct pcl_symbols *s,
			const char *event_name, const struct pcl_annotate_opts *opts)
{
	const struct pcl_annotate_line *last = NULL;
	struct pcl_annotate_listing l;
	struct pcl_annotate_opts o;
	const struct sym_ent *e;
	unsigned int aw = 1;
	int ret, n;

	if ((ret = opts_copy(&o, opts, "pcl_annotate_opts")))
		return ret;
	if ((ret = pcl_annotate__lines(a, i, s, &o, &l)))
		return ret;
	e = &a->syms[a->order[i]];
	for (size_t j = l.nr_lines; j-- > 0;) {
		if (l.lines[j].insn) {
			aw = hex_width(l.lines[j].addr);
			break;
		}
	}
	if (o.print_line && (ret = print_summary(fp, a, e, &l, &o))) {
		pcl_annotate_listing__free(&l);
		return ret;
	}
	n = fprintf(fp,
		    " %-8.8s|\tSource code & Disassembly of %s for %s (%" PRIu64
		    " samples, percent: %s)\n",
		    o.show_nr_samples ? "Samples" : "Percent",
		    o.full_paths ? e->pub.dso->name : base_name(e->pub.dso->name), event_name,
		    e->pub.nr_samples, pcl_percent_type_name(o.percent_type));
	/* perf's rule: as many dashes as the heading's bytes (its newline too), plus 4 */
	for (int j = 0; j < n + 4; j++)
		fputc('-', fp);
	fputc('\n', fp);
	fprintf(fp, " %8s:\n %8s:\n %8s:\n", "", "", "");
	fprintf(fp, " %8s: %-*u Disassembly of section %s:\n", "", (int)aw, 3u,
		l.section && l.section[0] ? l.section : ".text");
	fprintf(fp, " %8s:\n", "");
	fprintf(fp, " %8s: %-*u %016" PRIx64 " <%s>:\n", "", (int)aw, 5u, l.start, l.name);
	for (size_t j = 0; j < l.nr_lines; j++)
		print_line(fp, a, e, &l.lines[j], aw, &o, &last);
	pcl_annotate_listing__free(&l);
	return ferror(fp) ? pcl_err(EIO, "cannot write the annotation") : 0;
}
