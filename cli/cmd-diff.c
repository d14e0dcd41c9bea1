/* SPDX-License-Identifier: MIT */
/*
 * pcl diff [OLD [NEW]]: where two recordings differ, laid out like perf
 * diff (6.1) prints it. Each file is read into one histogram per event
 * (sort keys dso,sym by default, the report's filters applied); each event
 * of OLD is matched with NEW's event of the same type and config, and the
 * entries of the two with the keys' text (dso short name, symbol name, ...).
 *
 * Rows: every entry of OLD (its pair in NEW or none), then NEW's entries
 * with no pair in OLD (perf's "dummy" entries: no baseline). Their order
 * is perf's: rows with a NEW side first, those with no baseline after the
 * others for ratio and wdiff (which need one), the computed value highest
 * first (delta-abs: its size), then the baseline's period, then the keys.
 *
 * --format=flamegraph draws NEW coloured by the change from OLD instead.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "export.h"
#include "input.h"

enum compute { COMPUTE_DELTA, COMPUTE_DELTA_ABS, COMPUTE_RATIO, COMPUTE_WDIFF };

enum {
	OPT_PERCENTAGE = 256,
	OPT_FORMAT,
	OPT_EVENT,
	OPT_SYMFS,
	OPT_KALLSYMS,
	OPT_NO_DEMANGLE,
	OPT_IGNORE_BUILD_IDS,
	OPT_STDIO,
};

struct diff_opts {
	const char *files[2]; /* OLD, NEW */
	enum compute compute;
	int64_t w1, w2; /* wdiff:W1,W2 */
	const char *sort;
	bool relative, quiet, period;
	bool force;		   /* -f: read files, and trust JIT maps, another user owns */
	struct sample_lists lists; /* no pid or tid options: those stay empty */
	struct pcl_symbol_opts so;
	const char *format, *output, *event;
	bool color; /* perf's colours: stdout is a terminal (cli_use_color) */
};

/* One event of one file. */
struct side {
	struct pcl_hists *h;
	uint64_t total; /* period of every sample */
	uint64_t shown; /* period of the samples the filters pass (--percentage relative) */
};

struct file {
	struct input in;
	struct side *ev; /* by attr index */
	int nr;
};

/* An entry of one side, under its matching key. */
struct keyed {
	char *key;
	const struct pcl_hist_entry *e;
	uint64_t period;
	size_t pos; /* order in the histogram, for ties */
};

/* A row of the table: an entry of OLD, of NEW, or both. */
struct row {
	const struct pcl_hist_entry *e[2]; /* NULL where that side has none */
	uint64_t period[2];
	double pct[2]; /* shares of each side's total */
	double value;  /* the computed column */
};

struct table {
	const struct diff_opts *o;
	enum pcl_sort_key keys[PCL_SORT_MAX]; /* as matched and sorted */
	int nr_keys;
	enum pcl_sort_key cols[PCL_SORT_MAX]; /* as shown (those a filter pins down left out) */
	int nr_cols;
	int width[PCL_SORT_MAX];
	struct row *rows;
	size_t nr_rows;
	char buf[4096];
};

/* ---- options ---- */

/* perf's -c: delta, delta-abs, ratio, wdiff:W1,W2 (both weights non-zero). */
static int parse_compute(struct diff_opts *o, const char *arg)
{
	char *end;

	if (!strcmp(arg, "delta")) {
		o->compute = COMPUTE_DELTA;
	} else if (!strcmp(arg, "delta-abs")) {
		o->compute = COMPUTE_DELTA_ABS;
	} else if (!strcmp(arg, "ratio")) {
		o->compute = COMPUTE_RATIO;
	} else if (!strncmp(arg, "wdiff:", 6)) {
		o->compute = COMPUTE_WDIFF;
		o->w1 = strtoll(arg + 6, &end, 10);
		if (end == arg + 6 || *end != ',' || !o->w1)
			goto bad_wdiff;
		o->w2 = strtoll(end + 1, &end, 10);
		if (*end || !o->w2)
			goto bad_wdiff;
	} else {
		die_msg("bad --compute '%s' (delta, delta-abs, ratio or wdiff:W1,W2)", arg);
		return -1;
	}
	return 0;
bad_wdiff:
	die_msg("bad weights in '%s' (wdiff:W1,W2, both non-zero integers)", arg);
	return -1;
}

static int parse_opt(struct diff_opts *o, int c)
{
	struct list *l;

	switch (c) {
	case 'c':
		return parse_compute(o, optarg);
	case 's':
		o->sort = optarg;
		return 0;
	case OPT_PERCENTAGE:
		if (strcmp(optarg, "relative") && strcmp(optarg, "absolute")) {
			die_msg("bad --percentage '%s' (relative or absolute)", optarg);
			return -1;
		}
		o->relative = !strcmp(optarg, "relative");
		return 0;
	case 'q':
		o->quiet = true;
		return 0;
	case 'p':
		o->period = true;
		return 0;
	case 'f':
		o->force = true;
		return 0;
	case 'C':
	case 'd':
	case 'S':
		l = c == 'C' ? &o->lists.comm : c == 'd' ? &o->lists.dso : &o->lists.symbols;
		return list_split(l, optarg);
	case OPT_FORMAT:
		if (strcmp(optarg, "flamegraph")) {
			die_msg("unknown format '%s' (pcl diff draws flamegraph)", optarg);
			return -1;
		}
		o->format = optarg;
		return 0;
	case 'o':
		o->output = optarg;
		return 0;
	case OPT_EVENT:
		o->event = optarg;
		return 0;
	case OPT_SYMFS:
		o->so.symfs = optarg;
		return 0;
	case 'k':
		o->so.vmlinux = optarg;
		return 0;
	case OPT_KALLSYMS:
		o->so.kallsyms = optarg;
		return 0;
	case OPT_NO_DEMANGLE:
		o->so.no_demangle = true;
		return 0;
	case OPT_IGNORE_BUILD_IDS:
		o->so.ignore_build_ids = true;
		return 0;
	case OPT_STDIO:
		return 0;
	default:
		return 1;
	}
}

static int parse_opts(int argc, char **argv, struct diff_opts *o)
{
	static const struct option longopts[] = {
		{ "compute", required_argument, NULL, 'c' },
		{ "sort", required_argument, NULL, 's' },
		{ "percentage", required_argument, NULL, OPT_PERCENTAGE },
		{ "quiet", no_argument, NULL, 'q' },
		{ "force", no_argument, NULL, 'f' },
		{ "period", no_argument, NULL, 'p' },
		{ "comm", required_argument, NULL, 'C' },
		{ "comms", required_argument, NULL, 'C' },
		{ "dso", required_argument, NULL, 'd' },
		{ "dsos", required_argument, NULL, 'd' },
		{ "symbols", required_argument, NULL, 'S' },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "output", required_argument, NULL, 'o' },
		{ "event", required_argument, NULL, OPT_EVENT },
		{ "symfs", required_argument, NULL, OPT_SYMFS },
		{ "vmlinux", required_argument, NULL, 'k' },
		{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
		{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
		{ "ignore-build-ids", no_argument, NULL, OPT_IGNORE_BUILD_IDS },
		{ "stdio", no_argument, NULL, OPT_STDIO },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum pcl_sort_key keys[PCL_SORT_MAX];
	int c, r;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:s:qpfC:d:S:o:k:h", longopts, NULL)) != -1) {
		if (c == 'h') {
			print_usage("diff", stdout);
			exit(0);
		}
		r = parse_opt(o, c);
		if (r > 0)
			return option_error("diff", c, argv);
		if (r < 0)
			return -1;
	}
	/* perf's: no file, OLD perf.data.old and NEW perf.data; one: NEW */
	if (argc - optind > 2) {
		die_msg("unexpected argument '%s' (pcl diff compares two files)", argv[optind + 2]);
		return -1;
	}
	if (argc - optind == 2)
		o->files[0] = argv[optind++];
	if (argc - optind == 1)
		o->files[1] = argv[optind];
	if (o->sort && pcl_sort_keys_parse(o->sort, keys, PCL_SORT_MAX) < 0) {
		die_msg("%s", pcl_last_error());
		return -1;
	}
	return 0;
}

/* ---- reading ---- */

/* Whether a sample passes --comm, --dso, --symbols. */
static bool passes(const void *ctx, const struct pcl_resolved *rs, uint32_t cpu)
{
	const struct diff_opts *o = ctx;

	(void)cpu;
	return sample_lists_pass(&o->lists, rs);
}

static struct side *side_of(struct file *f, int idx, const struct pcl_hist_opts *ho)
{
	if (idx >= f->nr) {
		struct side *n = realloc(f->ev, (size_t)(idx + 1) * sizeof(*n));

		if (!n)
			return NULL;
		memset(n + f->nr, 0, (size_t)(idx + 1 - f->nr) * sizeof(*n));
		f->ev = n;
		f->nr = idx + 1;
	}
	if (!f->ev[idx].h && !(f->ev[idx].h = pcl_hists__new(ho)))
		return NULL;
	return &f->ev[idx];
}

/* Read @f to its end into one histogram per event. 0, or -1 with the error printed. */
static int read_file(struct file *f, const struct diff_opts *o, const struct pcl_hist_opts *ho)
{
	int ret;

	while ((ret = input_next(&f->in)) > 0) {
		const struct pcl_data_event *ev = &f->in.ev;
		struct pcl_resolved rs;
		struct side *s;
		uint64_t period = ev->rec.sample.period;
		uint32_t cpu;

		if (!ev->decoded || ev->hdr->type != PERF_RECORD_SAMPLE || ev->attr_idx < 0)
			continue;
		s = side_of(f, ev->attr_idx, ho);
		if (!s || pcl_resolver__sample(f->in.resolver, &ev->rec, &rs))
			goto oom;
		cpu = ev->rec.sample.sample_type & PERF_SAMPLE_CPU ? ev->rec.sample.cpu
								   : UINT32_MAX;
		s->total += period;
		if (!passes(o, &rs, cpu)) {
			/* as perf: it still counts towards an entry that exists */
			if (pcl_hists__add_hidden(s->h, &rs, cpu, period))
				goto oom;
			continue;
		}
		s->shown += period;
		if (pcl_hists__add(s->h, &rs, cpu, period))
			goto oom;
	}
	if (ret < 0)
		return -1;
	input_finish(&f->in);
	for (int i = 0; i < f->nr; i++)
		pcl_hists__finish(f->ev[i].h);
	return 0;
oom:
	die_msg("out of memory");
	return -1;
}

/* NEW's event for OLD's event @idx: the same type and config (perf's match), or -1. */
static int match_event(const struct file *old, int idx, const struct file *new)
{
	const struct perf_event_attr *a = &pcl_data_reader__attr(old->in.reader, idx)->attr;

	for (int j = 0; j < pcl_data_reader__nr_attrs(new->in.reader); j++) {
		const struct perf_event_attr *b = &pcl_data_reader__attr(new->in.reader, j)->attr;

		if (events_pair(a, b))
			return j;
	}
	return -1;
}

/* ---- matching ---- */

static const char *dso_name(const struct pcl_frame *f)
{
	return f->map ? f->map->dso->short_name : "[unknown]";
}

/* The text entries of the two files are matched by: each key's value, '\x1f' apart. */
static char *entry_key(const struct table *t, const struct pcl_hist_entry *e)
{
	char *s = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&s, &len);

	if (!m)
		return NULL;
	for (int i = 0; i < t->nr_keys; i++) {
		switch (t->keys[i]) {
		case PCL_SORT_COMM:
			fputs(e->comm, m);
			break;
		case PCL_SORT_PID:
		case PCL_SORT_TID:
			fprintf(m, "%" PRId32, e->tid);
			break;
		case PCL_SORT_CPU:
			fprintf(m, "%" PRId32, e->cpu);
			break;
		case PCL_SORT_DSO:
			fputs(dso_name(&e->frame), m);
			break;
		case PCL_SORT_SYM:
			/*
			 * perf diff matches symbols by name (the files may come from
			 * different builds), and every address without one is the
			 * same "no symbol": one row per value of the other keys.
			 */
			if (e->frame.sym)
				fprintf(m, "=%s", e->frame.sym->name);
			break;
		case PCL_SORT_SRCLINE:
			fputs(e->srcline ? e->srcline : "", m);
			break;
		case PCL_SORT_SRCFILE:
			fputs(e->srcfile ? e->srcfile : "", m);
			break;
		default:
			break;
		}
		fputc('\x1f', m);
	}
	if (fclose(m)) {
		free(s);
		return NULL;
	}
	return s;
}

static int keyed_cmp(const void *pa, const void *pb)
{
	const struct keyed *a = pa, *b = pb;
	int c = strcmp(a->key, b->key);

	return c ? c : (a->pos > b->pos) - (a->pos < b->pos);
}

/*
 * The shown entries of @s by key, sorted, entries of equal key (a name
 * twice in one DSO, the addresses with no symbol) summed into the first.
 * The addresses with no symbol show as their lowest, as perf's do: the
 * first of them in its tree of entries. *@nr gets their number.
 */
static struct keyed *keyed_entries(const struct table *t, const struct side *s, size_t *nr)
{
	size_t n = s && s->h ? pcl_hists__nr_entries(s->h) : 0, k = 0;
	struct keyed *v = calloc(n ? n : 1, sizeof(*v));

	*nr = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const struct pcl_hist_entry *e = pcl_hists__entry(s->h, i);

		if (e->hidden || !e->self)
			continue;
		v[k] = (struct keyed){ entry_key(t, e), e, e->self, i };
		if (!v[k].key)
			goto oom;
		k++;
	}
	qsort(v, k, sizeof(*v), keyed_cmp);
	for (size_t i = 0; i < k; i++) {
		if (*nr && !strcmp(v[*nr - 1].key, v[i].key)) {
			struct keyed *u = &v[*nr - 1];

			u->period += v[i].period;
			if (!u->e->frame.sym && v[i].e->frame.addr < u->e->frame.addr)
				u->e = v[i].e;
			free(v[i].key);
		} else {
			v[(*nr)++] = v[i];
		}
	}
	return v;
oom:
	for (size_t i = 0; i < k; i++)
		free(v[i].key);
	free(v);
	return NULL;
}

static void free_keyed(struct keyed *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i].key);
	free(v);
}

static double pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

/* What the computed column holds for @r (perf's compute_delta, _ratio, _wdiff). */
static double compute(const struct diff_opts *o, const struct row *r)
{
	switch (o->compute) {
	case COMPUTE_RATIO:
		return (double)r->period[1] / (double)(r->period[0] ? r->period[0] : 1);
	case COMPUTE_WDIFF:
		return (double)((int64_t)r->period[1] * o->w2 - (int64_t)r->period[0] * o->w1);
	case COMPUTE_DELTA_ABS:
		return fabs(r->pct[1] - r->pct[0]);
	default:
		return r->pct[1] - r->pct[0];
	}
}

/* The rows of OLD's side @a against NEW's side @b (NULL: NEW has no such event). */
static int make_rows(struct table *t, const struct side *a, const struct side *b)
{
	size_t na, nb, i = 0, j = 0;
	struct keyed *ka = keyed_entries(t, a, &na), *kb = keyed_entries(t, b, &nb);
	uint64_t ta = a ? (t->o->relative ? a->shown : a->total) : 0;
	uint64_t tb = b ? (t->o->relative ? b->shown : b->total) : 0;
	int ret = -1;

	if (!ka || !kb || !(t->rows = calloc(na + nb + 1, sizeof(*t->rows))))
		goto out;
	while (i < na || j < nb) {
		int c = i >= na ? 1 : j >= nb ? -1 : strcmp(ka[i].key, kb[j].key);
		struct row *r = &t->rows[t->nr_rows++];

		if (c <= 0) {
			r->e[0] = ka[i].e;
			r->period[0] = ka[i++].period;
		}
		if (c >= 0) {
			r->e[1] = kb[j].e;
			r->period[1] = kb[j++].period;
		}
		r->pct[0] = pct(r->period[0], ta);
		r->pct[1] = pct(r->period[1], tb);
		r->value = compute(t->o, r);
	}
	ret = 0;
out:
	free_keyed(ka, na);
	free_keyed(kb, nb);
	if (ret)
		die_msg("out of memory");
	return ret;
}

/* ---- order ---- */

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

/* perf's order of the sort keys themselves: names and numbers ascending. */
static int key_cmp(enum pcl_sort_key k, const struct pcl_hist_entry *a,
		   const struct pcl_hist_entry *b)
{
	const struct pcl_frame *fa = &a->frame, *fb = &b->frame;

	switch (k) {
	case PCL_SORT_COMM:
		return cmp_str(a->comm, b->comm);
	case PCL_SORT_PID:
	case PCL_SORT_TID:
		return (a->tid > b->tid) - (a->tid < b->tid);
	case PCL_SORT_CPU:
		return (a->cpu > b->cpu) - (a->cpu < b->cpu);
	case PCL_SORT_DSO:
		return strcmp(dso_name(fa), dso_name(fb));
	case PCL_SORT_SYM:
		if (!fa->sym || !fb->sym) {
			if (fa->sym || fb->sym)
				return fa->sym ? -1 : 1;
			return (fa->addr > fb->addr) - (fa->addr < fb->addr);
		}
		return strcmp(fa->sym->name, fb->sym->name);
	case PCL_SORT_SRCLINE:
		return cmp_str(a->srcline, b->srcline);
	case PCL_SORT_SRCFILE:
		return cmp_str(a->srcfile, b->srcfile);
	default:
		return 0;
	}
}

static int row_cmp(const void *pa, const void *pb, void *arg)
{
	const struct row *a = pa, *b = pb;
	const struct table *t = arg;
	const struct pcl_hist_entry *ea, *eb;
	int c;

	/* rows with a NEW side first: a row of OLD alone has nothing to compute */
	if (!a->e[1] != !b->e[1])
		return a->e[1] ? -1 : 1;
	/* ratio and wdiff need a baseline: rows without one after the others */
	if (a->e[1] && t->o->compute >= COMPUTE_RATIO && !a->e[0] != !b->e[0])
		return a->e[0] ? -1 : 1;
	if (a->e[1] && a->value != b->value)
		return a->value > b->value ? -1 : 1;
	if (a->period[0] != b->period[0])
		return a->period[0] > b->period[0] ? -1 : 1;
	ea = a->e[0] ? a->e[0] : a->e[1];
	eb = b->e[0] ? b->e[0] : b->e[1];
	for (int i = 0; i < t->nr_keys; i++)
		if ((c = key_cmp(t->keys[i], ea, eb)))
			return c;
	return 0;
}

/* ---- printing ---- */

/* The text of cell @k of @e into t->buf (not padded), as pcl report shows it. */
static const char *cell(struct table *t, const struct pcl_hist_entry *e, enum pcl_sort_key k)
{
	const struct pcl_frame *f = &e->frame;

	switch (k) {
	case PCL_SORT_COMM:
		return e->comm;
	case PCL_SORT_DSO:
		return dso_name(f);
	case PCL_SORT_SYM:
		if (f->sym)
			snprintf(t->buf, sizeof(t->buf), "[%c] %s", f->level, f->sym->name);
		else
			snprintf(t->buf, sizeof(t->buf), "[%c] %-#.*llx", f->level, 16,
				 (unsigned long long)f->addr);
		return t->buf;
	case PCL_SORT_PID:
	case PCL_SORT_TID:
		snprintf(t->buf, sizeof(t->buf), "%7d:%s", e->tid,
			 e->thread ? e->thread->comm : e->comm);
		return t->buf;
	case PCL_SORT_CPU:
		snprintf(t->buf, sizeof(t->buf), "%3.3d", e->cpu);
		return t->buf;
	case PCL_SORT_SRCLINE:
		return e->srcline ? e->srcline : "";
	case PCL_SORT_SRCFILE:
		return e->srcfile ? e->srcfile : "";
	default:
		return "";
	}
}

static const char *compute_title(enum compute c)
{
	static const char *const titles[] = { "Delta", "Delta Abs", "Ratio", "Weighted diff" };

	return titles[c];
}

/* perf's widths: Delta 7, Ratio and Weighted diff 14, or the title's if wider. */
static int compute_width(enum compute c)
{
	int w = c <= COMPUTE_DELTA_ABS ? 7 : 14, tw = (int)strlen(compute_title(c));

	return tw > w ? tw : w;
}

static void print_header(struct table *t)
{
	int cw = compute_width(t->o->compute);

	printf("# Baseline");
	if (t->o->period)
		printf("  %14s", "Base period");
	printf("  %*s", cw, compute_title(t->o->compute));
	if (t->o->period)
		printf("  %14s", "Period");
	for (int i = 0; i < t->nr_cols; i++)
		printf("  %-*s", t->width[i], pcl_report__key_title(t->cols[i]));
	printf("\n# ........");
	if (t->o->period)
		printf("  ..............");
	printf("  %.*s", cw, "..............");
	if (t->o->period)
		printf("  ..............");
	for (int i = 0; i < t->nr_cols; i++) {
		fputs("  ", stdout);
		for (int k = 0; k < t->width[i]; k++)
			putchar('.');
	}
	printf("\n#\n");
}

/* "  " and @v right-aligned in @w columns, in colour @c (padding included, as perf) */
static void print_colored(const char *c, int w, const char *v)
{
	if (*c)
		printf("  %s%*s\033[m", c, w, v);
	else
		printf("  %*s", w, v);
}

/* The computed column of @r: blank without a NEW side; N/A for ratio and wdiff without OLD. */
static void print_value(const struct table *t, const struct row *r)
{
	int cw = compute_width(t->o->compute);
	char v[64] = "";
	double x = 0; /* perf colours the value by pcl_percent_color, whatever it is */

	if (r->e[1] && !r->e[0] && t->o->compute >= COMPUTE_RATIO) {
		snprintf(v, sizeof(v), "N/A");
	} else if (r->e[1] && t->o->compute == COMPUTE_RATIO) {
		snprintf(v, sizeof(v), "%.6f", x = r->value);
	} else if (r->e[1] && t->o->compute == COMPUTE_WDIFF) {
		int64_t w = (int64_t)r->period[1] * t->o->w2 - (int64_t)r->period[0] * t->o->w1;

		snprintf(v, sizeof(v), "%" PRId64, w);
		x = (double)w;
	} else if (r->e[1]) {
		snprintf(v, sizeof(v), "%+4.2f%%", x = r->pct[1] - r->pct[0]);
	}
	print_colored(t->o->color ? pcl_percent_color(x) : "", cw, v);
}

static void print_row(struct table *t, const struct row *r)
{
	const struct pcl_hist_entry *e = r->e[0] ? r->e[0] : r->e[1];
	char v[32] = "";

	if (r->e[0])
		snprintf(v, sizeof(v), "%6.2f%%", r->pct[0]);
	print_colored(t->o->color && r->e[0] ? pcl_percent_color(r->pct[0]) : "", 8, v);
	if (t->o->period)
		printf("  %14" PRIu64, r->period[0]);
	print_value(t, r);
	if (t->o->period) {
		if (r->e[1])
			printf("  %14" PRIu64, r->period[1]);
		else
			printf("  %14s", "");
	}
	for (int i = 0; i < t->nr_cols; i++) {
		const char *s = cell(t, e, t->cols[i]);

		if (i == t->nr_cols - 1 && (t->cols[i] == PCL_SORT_SYM || t->cols[i] == PCL_SORT_SRCLINE ||
					    t->cols[i] == PCL_SORT_SRCFILE))
			printf("  %s", s); /* perf pads every column but these */
		else
			printf("  %-*s", t->width[i], s);
	}
	putchar('\n');
}

static void set_widths(struct table *t)
{
	for (int i = 0; i < t->nr_cols; i++) {
		t->width[i] = (int)strlen(pcl_report__key_title(t->cols[i]));
		for (size_t r = 0; r < t->nr_rows && t->cols[i] != PCL_SORT_CPU; r++) {
			const struct row *row = &t->rows[r];
			int w = (int)strlen(cell(t, row->e[0] ? row->e[0] : row->e[1], t->cols[i]));

			if (w > t->width[i])
				t->width[i] = w;
		}
	}
}

/* The keys, and the columns: the keys without those a one-item filter pins down (as perf). */
static void setup_keys(struct table *t, const struct diff_opts *o)
{
	t->nr_keys = pcl_sort_keys_parse(o->sort ? o->sort : "dso,sym", t->keys, PCL_SORT_MAX);
	t->nr_cols = 0;
	for (int i = 0; i < t->nr_keys; i++) {
		if ((t->keys[i] == PCL_SORT_COMM && o->lists.comm.n == 1) ||
		    (t->keys[i] == PCL_SORT_DSO && o->lists.dso.n == 1) ||
		    (t->keys[i] == PCL_SORT_SYM && o->lists.symbols.n == 1))
			continue;
		t->cols[t->nr_cols++] = t->keys[i];
	}
	if (!t->nr_cols) {
		/* perf shows every column again rather than none */
		memcpy(t->cols, t->keys, sizeof(t->cols));
		t->nr_cols = t->nr_keys;
	}
}

/* One event's section: OLD's event @idx against NEW's match. */
static int print_event(struct file *f, const struct diff_opts *o, int idx, bool first)
{
	const struct pcl_data_attr *a = pcl_data_reader__attr(f[0].in.reader, idx);
	int j = match_event(&f[0], idx, &f[1]);
	struct table t = { .o = o };

	setup_keys(&t, o);
	if (make_rows(&t, idx < f[0].nr ? &f[0].ev[idx] : NULL,
		      j >= 0 && j < f[1].nr ? &f[1].ev[j] : NULL)) {
		free(t.rows);
		return -1;
	}
	qsort_r(t.rows, t.nr_rows, sizeof(*t.rows), row_cmp, &t);
	set_widths(&t);
	if (!o->quiet) {
		printf("%s# Event '%s'\n#\n", first ? "" : "\n",
		       a->name && a->name[0] ? a->name : "unknown");
		print_header(&t);
	}
	for (size_t i = 0; i < t.nr_rows; i++)
		print_row(&t, &t.rows[i]);
	free(t.rows);
	return 0;
}

/* ---- the differential flame graph ---- */

static int diff_flamegraph(struct file *f, const struct diff_opts *o)
{
	struct export_req x = {
		.format = "flamegraph", .event = o->event, .pass = passes, .pass_ctx = o
	};
	struct pcl_export_opts eo = { .sz = sizeof(eo) };
	struct pcl_profile *base = NULL, *p = NULL;
	const char *event, *base_event;
	struct perf_event_attr match;
	int ret = 1;

	/* NEW picks the event (the first with samples, or --event); OLD's is that one */
	if (export_read_profile(&f[1].in, &x, false, &p, &event))
		goto out;
	/* OLD's is the one that pairs with it, as in the text diff, whatever its name */
	x.event = event && event[0] ? event : o->event;
	for (int i = 0; i < pcl_data_reader__nr_attrs(f[1].in.reader); i++) {
		const struct pcl_data_attr *at = pcl_data_reader__attr(f[1].in.reader, i);

		if (x.event && at->name && !strcmp(at->name, x.event)) {
			match = at->attr;
			x.match = &match;
			break;
		}
	}
	if (export_read_profile(&f[0].in, &x, false, &base, &base_event))
		goto out;
	export_opts_fill(&eo, &f[1].in, event);
	eo.base = base;
	ret = export_write(o->output, pcl_export_flamegraph, p, &eo) ? 1 : 0;
	export_opts_release(&eo);
out:
	pcl_profile__free(base);
	pcl_profile__free(p);
	return ret;
}

static int diff(struct diff_opts *o)
{
	struct pcl_hist_opts ho = { .sz = sizeof(ho) };
	struct file f[2];
	int ret = 1;

	memset(f, 0, sizeof(f));
	o->so.sz = sizeof(o->so);
	if (!o->files[0])
		o->files[0] = "perf.data.old";
	if (!o->files[1])
		o->files[1] = "perf.data";
	if (!strcmp(o->files[0], "-") && !strcmp(o->files[1], "-")) {
		die_msg("only one of the files can be read from stdin");
		return EXIT_USAGE;
	}
	for (int i = 0; i < 2; i++)
		if (input_open(&f[i].in, o->files[i], &o->so, o->force))
			goto out;
	if (o->format) {
		ret = diff_flamegraph(f, o);
		goto out;
	}
	ho.nr_keys = pcl_sort_keys_parse(o->sort ? o->sort : "dso,sym", ho.keys, PCL_SORT_MAX);
	for (int i = 0; i < 2; i++) {
		ho.symbols = f[i].in.symbols; /* each file's source lines (srcline, srcfile keys) */
		if (read_file(&f[i], o, &ho))
			goto out;
	}
	for (int i = 0; i < pcl_data_reader__nr_attrs(f[0].in.reader); i++)
		if (print_event(f, o, i, i == 0))
			goto out;
	ret = fflush(stdout) ? 1 : 0;
out:
	for (int i = 0; i < 2; i++) {
		for (int k = 0; k < f[i].nr; k++)
			pcl_hists__free(f[i].ev[k].h);
		free(f[i].ev);
		input_close(&f[i].in);
	}
	return ret;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_opts o = { .compute = COMPUTE_DELTA_ABS };
	int ret;

	if (parse_opts(argc, argv, &o)) {
		ret = EXIT_USAGE;
	} else {
		o.color = !o.format && cli_use_color();
		ret = diff(&o);
	}
	sample_lists_free(&o.lists);
	return ret;
}
