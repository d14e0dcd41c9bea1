/* SPDX-License-Identifier: MIT */
/*
 * pcl script: one line per sample of a perf.data file, as perf script
 * prints it (the formatting is lib/output/script.c). This file parses the
 * options, runs the shared reading loop (input.c) and filters samples.
 *
 * Output goes through a large stdio buffer without locking; SIGPIPE is
 * ignored so that a reader that goes away (pcl script | head) shows up as
 * EPIPE on a write, which ends the run quietly with status 0.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <pcl/pcl.h>
#include "cli.h"
#include "input.h"
#include "sample-read.h"

#define OUTBUF_SIZE    (1u << 20)
#define MAX_FIELD_ARGS 64

enum {
	OPT_SHOW_TASK = 256,
	OPT_SHOW_MMAP,
	OPT_SHOW_SWITCH,
	OPT_SHOW_LOST,
	OPT_NS,
	OPT_RELTIME,
	OPT_DELTATIME,
	OPT_MAX_STACK,
	OPT_SYMFS,
	OPT_KALLSYMS,
	OPT_PID,
	OPT_TID,
	OPT_NO_DEMANGLE,
	OPT_DEMANGLE,
	OPT_FULL_SOURCE_PATH,
	OPT_INLINE,
	OPT_NO_INLINE,
	OPT_HEADER,
	OPT_HEADER_ONLY,
};

struct script_opts {
	const char *input;
	const char *fields[MAX_FIELD_ARGS];
	int nr_fields;
	struct pcl_script_opts so;
	struct pcl_symbol_opts sym;
	const char *cpu_list, *comm_list, *pid_list, *tid_list;
	const char *sym_list; /* -S */
	bool header, header_only, dump;
	bool force; /* -f: read a file, and trust JIT maps, another user owns */
};

static int parse_opts(int argc, char **argv, struct script_opts *o)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "fields", required_argument, NULL, 'F' },
		{ "show-task-events", no_argument, NULL, OPT_SHOW_TASK },
		{ "show-mmap-events", no_argument, NULL, OPT_SHOW_MMAP },
		{ "show-switch-events", no_argument, NULL, OPT_SHOW_SWITCH },
		{ "show-lost-events", no_argument, NULL, OPT_SHOW_LOST },
		{ "hide-call-graph", no_argument, NULL, 'G' },
		{ "ns", no_argument, NULL, OPT_NS },
		{ "reltime", no_argument, NULL, OPT_RELTIME },
		{ "deltatime", no_argument, NULL, OPT_DELTATIME },
		{ "max-stack", required_argument, NULL, OPT_MAX_STACK },
		{ "symfs", required_argument, NULL, OPT_SYMFS },
		{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
		{ "vmlinux", required_argument, NULL, 'k' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "comms", required_argument, NULL, 'c' },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "tid", required_argument, NULL, OPT_TID },
		{ "demangle", no_argument, NULL, OPT_DEMANGLE },
		{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
		{ "force", no_argument, NULL, 'f' },
		{ "full-source-path", no_argument, NULL, OPT_FULL_SOURCE_PATH },
		{ "inline", no_argument, NULL, OPT_INLINE },
		{ "no-inline", no_argument, NULL, OPT_NO_INLINE },
		{ "header", no_argument, NULL, OPT_HEADER },
		{ "header-only", no_argument, NULL, OPT_HEADER_ONLY },
		{ "symbols", required_argument, NULL, 'S' },
		{ "dump-raw-trace", no_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:i:F:Gk:C:c:fhS:D", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			o->input = optarg;
			break;
		case 'F':
			if (o->nr_fields == MAX_FIELD_ARGS) {
				die_msg("too many -F options (at most %d)", MAX_FIELD_ARGS);
				return -1;
			}
			o->fields[o->nr_fields++] = optarg;
			break;
		case OPT_SHOW_TASK:
			o->so.show_task_events = true;
			break;
		case OPT_SHOW_MMAP:
			o->so.show_mmap_events = true;
			break;
		case OPT_SHOW_SWITCH:
			o->so.show_switch_events = true;
			break;
		case OPT_SHOW_LOST:
			o->so.show_lost_events = true;
			break;
		case 'G':
			o->so.hide_call_graph = true;
			break;
		case OPT_NS:
			o->so.ns = true;
			break;
		case OPT_RELTIME:
			o->so.reltime = true;
			break;
		case OPT_DELTATIME:
			o->so.deltatime = true;
			break;
		case OPT_MAX_STACK:
			if (!parse_uint(optarg, 0, 0, 1u << 20, &v)) {
				die_msg("bad --max-stack '%s' (a number of frames)", optarg);
				return -1;
			}
			/* 0: perf prints no frame; the library's 0 is the default */
			o->so.max_stack = v ? (int)v : -1;
			break;
		case OPT_SYMFS:
			o->sym.symfs = optarg;
			break;
		case OPT_FULL_SOURCE_PATH:
			o->so.full_source_path = true;
			break;
		case OPT_INLINE:
			o->sym.inline_frames = PCL_INLINE_ALL;
			break;
		case OPT_NO_INLINE:
			o->sym.inline_frames = PCL_INLINE_NONE;
			break;
		case OPT_KALLSYMS:
			o->sym.kallsyms = optarg;
			break;
		case 'k':
			o->sym.vmlinux = optarg;
			break;
		case 'C':
			o->cpu_list = optarg;
			break;
		case 'c':
			o->comm_list = optarg;
			break;
		case OPT_PID:
			o->pid_list = optarg;
			break;
		case OPT_TID:
			o->tid_list = optarg;
			break;
		case OPT_DEMANGLE:
			o->sym.no_demangle = false;
			break;
		case OPT_NO_DEMANGLE:
			o->sym.no_demangle = true;
			break;
		case 'f':
			o->force = true;
			break;
		case OPT_HEADER:
			o->header = true;
			break;
		case OPT_HEADER_ONLY:
			o->header_only = true;
			break;
		case 'S':
			o->sym_list = optarg;
			break;
		case 'D':
			o->dump = true;
			break;
		case 'h':
			print_usage("script", stdout);
			exit(0);
		default:
			return option_error("script", c, argv);
		}
	}
	if (optind < argc) {
		die_msg("'%s': pcl script runs no scripts; it prints the samples of -i FILE "
			"(see 'pcl help script')",
			argv[optind]);
		return -1;
	}
	/* as perf does: a symbol file that is not there is an error, not silent [unknown]s */
	if ((o->sym.kallsyms && access(o->sym.kallsyms, R_OK)) ||
	    (o->sym.vmlinux && access(o->sym.vmlinux, R_OK))) {
		const char *bad = o->sym.kallsyms && access(o->sym.kallsyms, R_OK) ? o->sym.kallsyms
										   : o->sym.vmlinux;

		die_msg("cannot read '%s': %s", bad, strerror(errno));
		return -1;
	}
	if (o->so.reltime && o->so.deltatime) {
		die_msg("--reltime and --deltatime do not go together; give one");
		return -1;
	}
	return 0;
}

/* The thread filters of --comms, --pid and --tid, and the CPUs of -C. */
struct filter {
	char *comms; /* a copy of the list, its commas NULs */
	int nr_comms;
	char *syms; /* -S, likewise */
	int nr_syms;
	int *pids, nr_pids;
	int *tids, nr_tids;
	bool *cpus;
	int nr_cpus;
	/* not a filter: the last value read of each event id (PERF_SAMPLE_READ) */
	struct read_deltas rd;
};

static void filter_free(struct filter *f)
{
	free(f->comms);
	free(f->syms);
	free(f->pids);
	free(f->tids);
	free(f->cpus);
	read_deltas_free(&f->rd);
}

/* A comma list of numbers into *v. 0, or -1 (printed). */
static int parse_ints(const char *opt, const char *list, int **v, int *n)
{
	const char *p = list;

	while (*p) {
		char *end;
		long x = strtol(p, &end, 10);
		int *nv;

		if (end == p || (*end && *end != ',') || x < 0 || x > INT32_MAX) {
			die_msg("bad %s list '%s' (numbers separated by commas)", opt, list);
			return -1;
		}
		nv = realloc(*v, sizeof(*nv) * (size_t)(*n + 1));
		if (!nv) {
			die_msg("out of memory");
			return -1;
		}
		*v = nv;
		(*v)[(*n)++] = (int)x;
		p = *end ? end + 1 : end;
	}
	return 0;
}

/* A comma list into NUL-separated names; 0 or -1 (printed). */
static int split_list(const char *list, char **names, int *n)
{
	*names = strdup(list);
	if (!*names) {
		die_msg("out of memory");
		return -1;
	}
	*n = 1;
	for (char *p = *names; *p; p++)
		if (*p == ',')
			*p = '\0', (*n)++;
	return 0;
}

static bool in_list(const char *names, int n, const char *s)
{
	for (int i = 0; i < n; i++, names += strlen(names) + 1)
		if (!strcmp(names, s))
			return true;
	return false;
}

static int filter_parse(const struct script_opts *o, struct filter *f)
{
	if (o->comm_list && split_list(o->comm_list, &f->comms, &f->nr_comms))
		return -1;
	if (o->sym_list && split_list(o->sym_list, &f->syms, &f->nr_syms))
		return -1;
	if ((o->pid_list && parse_ints("--pid", o->pid_list, &f->pids, &f->nr_pids)) ||
	    (o->tid_list && parse_ints("--tid", o->tid_list, &f->tids, &f->nr_tids)))
		return -1;
	if (o->cpu_list) {
		int *cpus = NULL, n = pcl_parse_cpu_list(o->cpu_list, &cpus), max = 0;

		if (n < 0) {
			die_msg("%s", pcl_last_error());
			return -1;
		}
		for (int i = 0; i < n; i++)
			max = cpus[i] > max ? cpus[i] : max;
		f->cpus = calloc((size_t)max + 1, sizeof(*f->cpus));
		if (!f->cpus) {
			free(cpus);
			die_msg("out of memory");
			return -1;
		}
		f->nr_cpus = max + 1;
		for (int i = 0; i < n; i++)
			f->cpus[cpus[i]] = true;
		free(cpus);
	}
	return 0;
}

static bool has_int(const int *v, int n, int x)
{
	for (int i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

/* perf 6.1's -S: the sample's symbol is named in the list; one without a symbol is dropped. */
static bool sym_filtered(const struct filter *f, const struct pcl_frame *ip)
{
	return f->syms && (!ip->sym || !in_list(f->syms, f->nr_syms, ip->sym->name));
}

/* perf's thread__is_filtered. */
static bool filtered(const struct filter *f, const struct pcl_thread *t)
{
	if (f->comms && (!t || !in_list(f->comms, f->nr_comms, t->comm)))
		return true;
	if (f->pids && (!t || !has_int(f->pids, f->nr_pids, t->pid)))
		return true;
	if (f->tids && (!t || !has_int(f->tids, f->nr_tids, t->tid)))
		return true;
	return false;
}

/*
 * perf's native_arch: a stream, or a file whose ARCH feature names this
 * machine (an i386 file on x86_64 too); only then it reads instructions.
 */
static bool native_arch(struct pcl_data_reader *r)
{
	const uint8_t *d;
	struct utsname u;
	uint32_t len;
	size_t size;
	char arch[64];

	if (pcl_data_reader__is_pipe(r))
		return true;
	d = pcl_data_reader__feature(r, PCL_FEAT_ARCH, &size);
	if (!d || size < 4 || uname(&u))
		return false;
	memcpy(&len, d, 4);
	if (len > size - 4)
		len = (uint32_t)(size - 4);
	snprintf(arch, sizeof(arch), "%.*s", (int)strnlen((const char *)d + 4, len), d + 4);
	return !strcmp(arch, u.machine) || (!strcmp(u.machine, "x86_64") && !strcmp(arch, "i386"));
}

/* Settle the fields against the events known so far; 0 or -1 (printed). */
static int setup_events(struct pcl_script *s, struct input *in, const struct filter *f, int *nr)
{
	int n = pcl_data_reader__nr_attrs(in->reader), ret;
	const struct pcl_data_attr **attrs;
	bool cpu = false;

	if (n == *nr)
		return 0;
	attrs = calloc((size_t)n + 1, sizeof(*attrs));
	if (!attrs) {
		die_msg("out of memory");
		return -1;
	}
	for (int i = 0; i < n; i++) {
		attrs[i] = pcl_data_reader__attr(in->reader, i);
		cpu |= !!(attrs[i]->attr.sample_type & PERF_SAMPLE_CPU);
	}
	{
		size_t len;
		const void *cd = pcl_data_reader__feature(in->reader, PCL_FEAT_CLOCK_DATA, &len);

		if (pcl_script__set_clock_data(s, cd, len))
			fprintf(stderr, "pcl: warning: '%s': %s; no time of day\n", in->path,
				pcl_last_error());
	}
	pcl_script__set_native_arch(s, native_arch(in->reader));
	ret = pcl_script__setup(s, attrs, n, pcl_data_reader__is_pipe(in->reader));
	free(attrs);
	if (ret) {
		die_msg("%s", ret == -ENOMEM ? "out of memory" : pcl_last_error());
		return -1;
	}
	if (f->cpus && n && !cpu) {
		die_msg("'%s' has no CPU in its samples: -C cannot select any", in->path);
		return -1;
	}
	*nr = n;
	return 0;
}

/*
 * A kernel function for a tracepoint's print fmt (%pS, function fields),
 * from the session's kernel maps and symbols, as perf's
 * machine__resolve_kernel_addr gives it to libtraceevent.
 */
static const char *tp_kernel_func(void *ctx, uint64_t *addr, const char **mod)
{
	struct input *in = ctx;
	struct pcl_frame fr;

	pcl_resolver__frame(in->resolver, NULL, true, *addr, &fr);
	if (!fr.sym || !fr.map)
		return NULL;
	*addr -= fr.addr - fr.sym->start;
	*mod = fr.map->dso->kind == PCL_DSO_MODULE ? fr.map->dso->short_name : NULL;
	return fr.sym->name;
}

/* The formats of the file's tracepoints, if it has them. */
static struct pcl_tracepoints *load_tracepoints(struct input *in)
{
	size_t len, n;
	const void *d = pcl_data_reader__feature(in->reader, PCL_FEAT_TRACING_DATA, &len);
	struct pcl_tracepoints *tp;

	if (!d)
		return NULL;
	tp = pcl_tracepoints__parse(d, len);
	if (!tp) {
		fprintf(stderr, "pcl: warning: '%s': %s; tracepoint payloads not shown\n", in->path,
			errno == ENOMEM ? "out of memory" : pcl_last_error());
		return NULL;
	}
	if (pcl_tracepoints__set_func_resolver(tp, tp_kernel_func, in))
		fprintf(stderr, "pcl: warning: out of memory; kernel functions in tracepoint "
				"payloads shown as addresses\n");
	n = pcl_tracepoints__nr_unformatted(tp);
	if (n)
		fprintf(stderr,
			"pcl: warning: '%s': libtraceevent cannot parse the format of %zu "
			"tracepoint%s; %s payload%s printed as name=value fields\n",
			in->path, n, n == 1 ? "" : "s", n == 1 ? "its" : "their",
			n == 1 ? "" : "s");
	return tp;
}

/*
 * perf 6.1's delivery of a sample (sample-read.h): the last values per id
 * even for inherited counters, so periods wrap as in perf script. 0, 1 on a
 * write error, -1 on another (printed).
 */
static int each_sample(struct input *in, struct filter *f, const struct pcl_data_attr *a,
		       const struct pcl_record *rec, sample_fn fn, void *ctx)
{
	int ret = each_read_sample(in->reader, &f->rd, false, a, rec, fn, ctx);

	if (ret == -ENOMEM) {
		die_msg("out of memory");
		return -1;
	}
	return ret;
}

struct line_ctx {
	struct pcl_script *s;
	struct input *in;
	struct filter *f;
};

/* A sample's line, after the filters. 0, 1 on a write error, -1 on another (printed). */
static int sample_line(void *ctx, const struct pcl_data_attr *a, const struct pcl_record *rec)
{
	struct line_ctx *x = ctx;
	const struct filter *f = x->f;
	struct pcl_resolved res;

	if (f->cpus && (rec->sample.sample_type & PERF_SAMPLE_CPU) &&
	    (rec->sample.cpu >= (uint32_t)f->nr_cpus || !f->cpus[rec->sample.cpu]))
		return 0;
	if (pcl_resolver__sample(x->in->resolver, rec, &res)) {
		die_msg("out of memory");
		return -1;
	}
	if (filtered(f, res.thread) || sym_filtered(f, &res.ip))
		return 0;
	return pcl_script__sample(x->s, stdout, a, rec, &res) < 0;
}

/* One event: its line, if it has one. 0, 1 on a write error, -1 on another (printed). */
static int one_event(struct pcl_script *s, struct input *in, struct filter *f)
{
	struct pcl_data_event *ev = &in->ev;
	struct line_ctx x = { s, in, f };

	if (!ev->decoded)
		return 0;
	if (ev->hdr->type != PERF_RECORD_SAMPLE)
		return pcl_script__event(s, stdout, ev->attr, &ev->rec, in->machine) < 0;
	if (!ev->attr)
		return 0;
	return each_sample(in, f, ev->attr, &ev->rec, sample_line, &x);
}

/* The attr of a record read in file order: by its id where the file has several. */
static const struct pcl_data_attr *record_attr(struct pcl_data_reader *r,
					       const struct perf_event_header *h, int n)
{
	const struct pcl_data_attr *a0 = pcl_data_reader__attr(r, 0), *a;
	struct pcl_record rec;
	uint64_t id;

	if (n == 1 || !a0)
		return a0;
	/* the id's place is the same in every attr's records (perf checks so at open) */
	id = (a0->attr.sample_type & PERF_SAMPLE_IDENTIFIER)
		     ? pcl_record_identifier(h, h->size, a0->attr.sample_id_all)
		     : 0;
	if (!id && !pcl_record_decode(h, h->size, &a0->attr, &rec))
		id = h->type == PERF_RECORD_SAMPLE ? rec.sample.id : rec.has_id ? rec.id.id : 0;
	a = id ? pcl_data_reader__attr_by_id(r, id) : NULL;
	return a ? a : a0;
}

/*
 * perf's -D. perf dumps a record when it delivers it: its own records
 * (type >= 64) as it reads them, the kernel's through its ordered queue,
 * which each FINISHED_ROUND flushes up to the newest time seen at the round
 * before, and the end of the file entirely; a record without a time goes
 * out at once. struct dump keeps that queue (copies of the records) and
 * the counts that perf report -D ends with.
 */
#define DUMP_NR_TYPES 128u /* record types counted for report -D */

struct queued {
	uint64_t time, seq, offset;
	struct perf_event_header *hdr; /* a copy */
};

struct dump {
	struct input *in;
	struct pcl_script *s; /* NULL: pcl report -D */
	struct filter *f;     /* script's filters (and read values); report: an empty one */
	struct queued *q;
	size_t nq, alloc;
	uint64_t seq, next_flush, max_time;
	uint64_t sample_type, nr[DUMP_NR_TYPES];
	uint64_t *samples; /* per attr */
	bool id_all;
	int nr_attrs, nr_setup;
};

static int cmp_queued(const void *a, const void *b)
{
	const struct queued *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The attrs known so far (a pipe brings them in the stream). 0 or -1 (printed). */
static int dump_attrs(struct dump *d)
{
	struct pcl_data_reader *r = d->in->reader;
	int n = pcl_data_reader__nr_attrs(r);
	uint64_t *ns;

	if (n == d->nr_attrs)
		return 0;
	ns = realloc(d->samples, sizeof(*ns) * (size_t)(n ? n : 1));
	if (!ns) {
		die_msg("out of memory");
		return -1;
	}
	d->samples = ns;
	for (int i = d->nr_attrs < 0 ? 0 : d->nr_attrs; i < n; i++)
		d->samples[i] = 0;
	d->sample_type = 0;
	for (int i = 0; i < n; i++)
		d->sample_type |= pcl_data_reader__attr(r, i)->attr.sample_type;
	d->id_all = n && pcl_data_reader__attr(r, 0)->attr.sample_id_all;
	d->nr_attrs = n;
	return d->s ? setup_events(d->s, d->in, d->f, &d->nr_setup) : 0;
}

/* A kernel symbol for the dump of a TEXT_POKE record. */
static const char *dump_kernel_sym(void *ctx, uint64_t addr, uint64_t *off)
{
	struct input *in = ctx;
	struct pcl_frame fr;

	pcl_resolver__frame(in->resolver, NULL, true, addr, &fr);
	if (!fr.map || !fr.sym)
		return NULL;
	*off = fr.addr - fr.sym->start;
	return fr.sym->name;
}

/* After a sample's dump: its thread and DSO, and its line (pcl script). As sample_line. */
static int dump_sample_line(void *ctx, const struct pcl_data_attr *a, const struct pcl_record *rec)
{
	struct dump *d = ctx;
	struct pcl_resolved res;

	for (int i = 0; i < d->nr_attrs; i++)
		if (pcl_data_reader__attr(d->in->reader, i) == a)
			d->samples[i]++;
	if (pcl_resolver__sample(d->in->resolver, rec, &res)) {
		die_msg("out of memory");
		return -1;
	}
	if (res.thread)
		printf(" ... thread: %s:%d\n", res.thread->comm, res.thread->tid);
	printf(" ...... dso: %s\n",
	       res.ip.map && res.ip.map->dso ? res.ip.map->dso->name : "<not found>");
	/* perf resolves (and dumps) before it filters */
	if (!d->s || filtered(d->f, res.thread) || sym_filtered(d->f, &res.ip) ||
	    (d->f->cpus && (rec->sample.sample_type & PERF_SAMPLE_CPU) &&
	     (rec->sample.cpu >= (uint32_t)d->f->nr_cpus || !d->f->cpus[rec->sample.cpu])))
		return 0;
	return pcl_script__sample(d->s, stdout, a, rec, &res) < 0;
}

/* Dump one record, then update the machine or show the sample. 0, 1 to stop, -1 (printed). */
static int dump_one(struct dump *d, const struct perf_event_header *h, uint64_t offset)
{
	struct pcl_data_reader *r = d->in->reader;
	/* perf names a stream "pipe" and counts its offsets after the stream's header */
	bool pipe = pcl_data_reader__is_pipe(r);
	struct pcl_dump_record dr = { pipe ? "pipe" : d->in->path,
				      pipe && offset >= 16 ? offset - 16 : offset,
				      h,
				      NULL,
				      NULL,
				      d->sample_type,
				      d->id_all,
				      !d->s,
				      dump_kernel_sym,
				      d->in };
	const struct pcl_data_attr *a = NULL;
	struct pcl_record rec;

	d->nr[h->type < DUMP_NR_TYPES ? h->type : 0]++;
	if (h->type < PCL_RECORD_USER_TYPE_START && d->nr_attrs > 0 &&
	    (a = record_attr(r, h, d->nr_attrs)) &&
	    !pcl_record_decode(h, h->size, &a->attr, &rec)) {
		dr.rec = &rec;
		dr.attr = a;
	}
	if (pcl_dump__record(stdout, &dr))
		return 1;
	if (!dr.rec)
		return 0;
	if (rec.type != PERF_RECORD_SAMPLE) {
		if (pcl_machine__process(d->in->machine, &rec)) {
			die_msg("out of memory");
			return -1;
		}
		return 0;
	}
	return each_sample(d->in, d->f, a, &rec, dump_sample_line, d);
}

/* Deliver the queued records up to @limit, in time order. As dump_one. */
static int dump_flush(struct dump *d, uint64_t limit)
{
	size_t n = 0, k = 0;
	int ret = 0;

	qsort(d->q, d->nq, sizeof(*d->q), cmp_queued);
	while (n < d->nq && d->q[n].time <= limit && !ret) {
		ret = dump_one(d, d->q[n].hdr, d->q[n].offset);
		free(d->q[n].hdr);
		n++;
	}
	for (size_t i = n; i < d->nq; i++) {
		if (ret)
			free(d->q[i].hdr);
		else
			d->q[k++] = d->q[i];
	}
	d->nq = ret ? 0 : k;
	return ret;
}

/* The time perf orders a kernel record by, or UINT64_MAX for none. */
static uint64_t record_time(struct dump *d, const struct perf_event_header *h)
{
	const struct pcl_data_attr *a = record_attr(d->in->reader, h, d->nr_attrs);
	struct pcl_record rec;

	if (!a || !(a->attr.sample_type & PERF_SAMPLE_TIME) ||
	    (h->type != PERF_RECORD_SAMPLE && !a->attr.sample_id_all) ||
	    pcl_record_decode(h, h->size, &a->attr, &rec))
		return UINT64_MAX;
	if (h->type == PERF_RECORD_SAMPLE)
		return rec.sample.time;
	return rec.has_id ? rec.id.time : UINT64_MAX;
}

static int dump_queue(struct dump *d, const struct perf_event_header *h, uint64_t offset,
		      uint64_t t)
{
	struct queued *nq;

	if (d->nq == d->alloc) {
		size_t na = d->alloc ? d->alloc * 2 : 1024;

		nq = realloc(d->q, sizeof(*nq) * na);
		if (!nq)
			goto oom;
		d->q = nq;
		d->alloc = na;
	}
	nq = &d->q[d->nq];
	nq->hdr = malloc(h->size);
	if (!nq->hdr)
		goto oom;
	memcpy(nq->hdr, h, h->size);
	nq->time = t;
	nq->seq = d->seq++;
	nq->offset = offset;
	d->nq++;
	if (t > d->max_time)
		d->max_time = t;
	return 0;
oom:
	die_msg("out of memory");
	return -1;
}

/*
 * perf's -D of pcl script (@s: each sample's line after its dump, if @f
 * keeps it) and of pcl report (@s NULL: the record counts at the end).
 * The exit status.
 */
static int dump_run(struct input *in, struct pcl_script *s, struct filter *f)
{
	struct filter none = { 0 };
	struct dump d = { .in = in, .s = s, .f = f ? f : &none, .nr_attrs = -1, .nr_setup = -1 };
	const struct perf_event_header *h;
	int ret = 0;

	if (!s)
		printf("# To display the perf.data header info, please use --header/--header-only "
		       "options.\n#\n");
	while (!ret && (h = pcl_data_reader__next(in->reader))) {
		uint64_t off = pcl_data_reader__offset(in->reader), t;

		if (dump_attrs(&d)) {
			ret = -1;
			break;
		}
		if (h->type >= PCL_RECORD_USER_TYPE_START) {
			ret = dump_one(&d, h, off);
			if (!ret && h->type == PCL_RECORD_FINISHED_ROUND) {
				ret = dump_flush(&d, d.next_flush);
				d.next_flush = d.max_time;
			}
			continue;
		}
		t = record_time(&d, h);
		/* perf delivers a record of time 0 or none at once, as it comes */
		ret = !t || t == UINT64_MAX ? dump_one(&d, h, off) : dump_queue(&d, h, off, t);
	}
	if (!ret && errno && !h) {
		die_msg("%s", pcl_last_error());
		ret = -1;
	}
	if (!ret)
		ret = dump_flush(&d, UINT64_MAX);
	/* the reader expands COMPRESSED records itself; perf counts them too */
	d.nr[PCL_RECORD_COMPRESSED] += pcl_data_reader__nr_compressed(in->reader);
	if (!ret && !s) {
		const char **names =
			calloc((size_t)(d.nr_attrs > 0 ? d.nr_attrs : 1), sizeof(*names));
		char buf[256];

		if (!names) {
			die_msg("out of memory");
			ret = -1;
		}
		for (int i = 0; names && i < d.nr_attrs; i++)
			names[i] =
				strdup(pcl_script_event_name(pcl_data_reader__attr(in->reader, i),
							     NULL, buf, sizeof(buf))
					       ?: "");
		printf("\n");
		if (names)
			pcl_dump__stats(stdout, d.nr, DUMP_NR_TYPES, names, d.samples, d.nr_attrs);
		for (int i = 0; names && i < d.nr_attrs; i++)
			free((char *)names[i]);
		free(names);
	}
	for (size_t i = 0; i < d.nq; i++)
		free(d.q[i].hdr);
	free(d.q);
	free(d.samples);
	filter_free(&none);
	if (fflush(stdout) || ferror(stdout)) {
		if (errno == EPIPE)
			return 0;
		die_msg("cannot write the output: %s", strerror(errno));
		return 1;
	}
	return ret < 0;
}

int dump_raw_trace(struct input *in, struct pcl_script *s)
{
	return dump_run(in, s, NULL);
}

/* perf's warnings about what the recorder lost, at the end of a run. */
static void warn_lost(struct input *in, bool lost_shown)
{
	const struct pcl_data_stats *st = pcl_data_events__stats(in->events);
	uint64_t total = 0, nsamples;

	if (!st)
		return;
	for (size_t i = 0; i < sizeof(st->nr) / sizeof(st->nr[0]); i++)
		total += st->nr[i];
	if (!lost_shown && st->nr[PERF_RECORD_LOST])
		fprintf(stderr,
			"pcl: warning: '%s': the recorder lost %" PRIu64 " chunks of events "
			"(%" PRIu64 " records read); check I/O or CPU overload\n",
			in->path, st->nr[PERF_RECORD_LOST], total);
	nsamples = st->nr[PERF_RECORD_SAMPLE];
	if (st->total_lost_samples &&
	    (double)st->total_lost_samples / (double)(nsamples + st->total_lost_samples) > 0.05)
		fprintf(stderr,
			"pcl: warning: '%s': %.2f%% of the samples were lost (%" PRIu64 " read)\n",
			in->path,
			100.0 * (double)st->total_lost_samples /
				(double)(nsamples + st->total_lost_samples),
			nsamples);
}

/* The reading loop; the exit status. */
static int run(struct pcl_script *s, struct input *in, struct filter *f, bool lost_shown)
{
	bool pipe = pcl_data_reader__is_pipe(in->reader);
	int nr = -1, ret = 0, r;

	if (!pipe && setup_events(s, in, f, &nr))
		return 1;
	while ((r = input_next(in)) > 0) {
		if (pipe && setup_events(s, in, f, &nr))
			return 1;
		r = one_event(s, in, f);
		if (r)
			break;
	}
	if (r < 0) {
		ret = 1;
	} else if (r > 0 || fflush(stdout) || ferror(stdout)) {
		/* a reader that went away (| head) ends the run, quietly */
		if (errno != EPIPE) {
			die_msg("cannot write the output: %s", strerror(errno));
			ret = 1;
		}
		return ret;
	}
	warn_lost(in, lost_shown);
	if (f->rd.nr_wrapped)
		fprintf(stderr,
			"pcl: warning: %" PRIu64 " period%s of PERF_SAMPLE_READ values went below "
			"zero and wrapped, as in perf 6.1 (threads of inherited counters share "
			"an id; pcl report follows each thread)\n",
			f->rd.nr_wrapped, f->rd.nr_wrapped == 1 ? "" : "s");
	input_finish(in);
	return ret;
}

int cmd_script(int argc, char **argv)
{
	static char outbuf[OUTBUF_SIZE];
	struct script_opts o = {
		.so = { .sz = sizeof(struct pcl_script_opts) },
		.sym = { .sz = sizeof(struct pcl_symbol_opts) },
	};
	struct filter f = { 0 };
	struct pcl_tracepoints *tp = NULL;
	struct pcl_script *s = NULL;
	struct input in;
	int ret = EXIT_USAGE;

	memset(&in, 0, sizeof(in));
	if (parse_opts(argc, argv, &o))
		return EXIT_USAGE;
	s = pcl_script__new(&o.so);
	if (!s) {
		die_msg("out of memory");
		return 1;
	}
	for (int i = 0; i < o.nr_fields; i++) {
		if (pcl_script__parse_fields(s, o.fields[i], stderr)) {
			die_msg("%s", pcl_last_error());
			goto out;
		}
	}
	if (filter_parse(&o, &f))
		goto out;
	ret = 1;
	if (input_open(&in, o.input, &o.sym, o.force))
		goto out;
	/*
	 * as perf script: the header of perf report --header-only, then the
	 * lines; of a stream, --header-only stops before its features (perf
	 * script reads none, unlike perf report)
	 */
	if (o.header || o.header_only) {
		if (pcl_header__print(stdout, in.reader, in.path,
				      o.header_only ? PCL_HEADER_NO_FEATURES : 0)) {
			die_msg("%s", pcl_last_error()[0] ? pcl_last_error()
							  : "cannot describe the file");
			goto out;
		}
		if (o.header_only) {
			ret = 0;
			goto out;
		}
	}
	tp = load_tracepoints(&in);
	pcl_script__set_tracepoints(s, tp);
	pcl_script__set_symbols(s, in.symbols);
	pcl_script__set_resolver(s, in.resolver);
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	__fsetlocking(stdout, FSETLOCKING_BYCALLER);
	ret = o.dump ? dump_run(&in, s, &f) : run(s, &in, &f, o.so.show_lost_events);
out:
	input_close(&in);
	pcl_tracepoints__free(tp);
	pcl_script__free(s);
	filter_free(&f);
	return ret;
}
