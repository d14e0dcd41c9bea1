/* SPDX-License-Identifier: MIT */
/*
 * pcl report: histograms of a recording, laid out like perf report --stdio.
 * Parse the options, read the file in time order through input.c, add each
 * sample that passes the filters to its event's histogram, print.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "export.h"
#include "input.h"
#include "sample-read.h"
#include "tui.h"

enum {
	OPT_CHILDREN = 256,
	OPT_NO_CHILDREN,
	OPT_PERCENT_LIMIT,
	OPT_COMM,
	OPT_PID,
	OPT_TID,
	OPT_DSO,
	OPT_SYMBOLS,
	OPT_CPU,
	OPT_STATS,
	OPT_HEADER,
	OPT_HEADER_ONLY,
	OPT_GROUP,
	OPT_NO_GROUP,
	OPT_SHOW_INFO,
	OPT_SYMFS,
	OPT_KALLSYMS,
	OPT_STDIO,
	OPT_NO_DEMANGLE,
	OPT_IGNORE_BUILD_IDS,
	OPT_PERCENTAGE,
	OPT_FORMAT,
	OPT_ICICLE,
	OPT_EVENT,
	OPT_FULL_SOURCE_PATH,
	OPT_INLINE,
	OPT_NO_INLINE,
	/* issue 13 */
	OPT_MAX_STACK,
	OPT_TASKS,
	OPT_MMAPS,
	OPT_STDIO_COLOR,
	OPT_WALL,
	/* issue 14 */
	OPT_TUI,
	OPT_NO_TUI,
};

struct report_opts {
	const char *input;
	int children; /* -1: as the file says (children when it has call chains) */
	const char *sort;
	const char *graph; /* -g's argument */
	bool inverted;	   /* -G: caller order, whatever -g says (as perf applies it last) */
	bool graph_off;
	double percent_limit;
	/*
	 * --percent-limit given, and after the last -g: perf's limit is also
	 * the call graph's minimum, unless a later -g names its own.
	 */
	bool has_percent_limit, limit_after_graph;
	struct sample_lists lists;
	bool cpus[4096];
	bool has_cpu_filter;
	int group; /* -1: as the file says (its event groups shown together) */
	bool stats, header, header_only, quiet, relative, show_info;
	bool dump; /* -D: the records, dumped (dump_raw_trace in cmd-script.c) */
	bool force; /* -f: read a file, and trust JIT maps, another user owns */
	struct pcl_symbol_opts so;
	const char *format; /* --format: an export, or json */
	struct export_req x;
	bool full_source_path; /* srcline and srcfile keys: whole paths */
	/* issue 13 */
	bool show_nr_samples; /* -n: a Samples column */
	const char *fields;   /* -F: perf's output fields */
	int max_stack;	      /* --max-stack: frames of a chain used (-1: all) */
	bool threads;	      /* -T: the per-thread counters of pcl/perf record -s */
	bool tasks, mmaps;    /* --tasks, --mmaps: the task tree instead of a report */
	const char *parent;   /* -p: the parent regex of -s parent */
	int color;	      /* --stdio-color: 1 always, 0 never, -1 auto (a terminal) */
	const char *field_sep; /* -t: perf's field separator */
	/* issue 14: the browser (cli/tui.c) */
	bool stdio, tui, no_tui;       /* --stdio, --tui, --no-tui */
	bool browse;		       /* decided in report(): the browser, not text */
	struct pcl_annotate *annotate; /* with browse: each sample's ip, for 'a' */
};

struct event_hist {
	struct pcl_hists *h;
	uint64_t nr_samples, total_period; /* filtered samples included (perf's absolute mode) */
	/* --group: this event's group (leader index, member number, members) */
	int leader, member, nr_members;
	char *group_name;
	uint64_t member_totals[16];
};

#define MAX_MEMBERS 16

static int parse_cpus(struct report_opts *o, const char *arg)
{
	int *cpus = NULL, n = pcl_parse_cpu_list(arg, &cpus);

	for (int i = 0; i < n; i++) {
		if (cpus[i] < 0 || cpus[i] >= 4096) {
			n = -ERANGE;
			break;
		}
		o->cpus[cpus[i]] = true;
	}
	free(cpus);
	if (n < 0) {
		die_msg("bad CPU list '%s' (expected e.g. 0,2-3)", arg);
		return -1;
	}
	o->has_cpu_filter = true;
	return 0;
}

/* what perf report's -g means without a value (perf's callchain_default_opt) */
#define PERF_G_DEFAULT "graph,0.5,caller,function,percent"

static int parse_opts(int argc, char **argv, struct report_opts *o)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "stdio", no_argument, NULL, OPT_STDIO },
		{ "tui", no_argument, NULL, OPT_TUI },
		{ "no-tui", no_argument, NULL, OPT_NO_TUI },
		{ "children", no_argument, NULL, OPT_CHILDREN },
		{ "no-children", no_argument, NULL, OPT_NO_CHILDREN },
		{ "sort", required_argument, NULL, 's' },
		{ "call-graph", required_argument, NULL, 'g' },
		{ "percent-limit", required_argument, NULL, OPT_PERCENT_LIMIT },
		{ "percentage", required_argument, NULL, OPT_PERCENTAGE },
		{ "comm", required_argument, NULL, OPT_COMM },
		{ "comms", required_argument, NULL, OPT_COMM },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "tid", required_argument, NULL, OPT_TID },
		{ "dso", required_argument, NULL, OPT_DSO },
		{ "dsos", required_argument, NULL, OPT_DSO },
		{ "symbols", required_argument, NULL, OPT_SYMBOLS },
		{ "cpu", required_argument, NULL, OPT_CPU },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "header", no_argument, NULL, OPT_HEADER },
		{ "header-only", no_argument, NULL, OPT_HEADER_ONLY },
		{ "dump-raw-trace", no_argument, NULL, 'D' },
		{ "group", no_argument, NULL, OPT_GROUP },
		{ "no-group", no_argument, NULL, OPT_NO_GROUP },
		{ "show-info", no_argument, NULL, 'I' },
		{ "symfs", required_argument, NULL, OPT_SYMFS },
		{ "vmlinux", required_argument, NULL, 'k' },
		{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
		{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
		{ "ignore-build-ids", no_argument, NULL, OPT_IGNORE_BUILD_IDS },
		{ "quiet", no_argument, NULL, 'q' },
		{ "force", no_argument, NULL, 'f' },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "output", required_argument, NULL, 'o' },
		{ "icicle", no_argument, NULL, OPT_ICICLE },
		{ "wall", no_argument, NULL, OPT_WALL },
		{ "event", required_argument, NULL, OPT_EVENT },
		{ "full-source-path", no_argument, NULL, OPT_FULL_SOURCE_PATH },
		{ "inline", no_argument, NULL, OPT_INLINE },
		{ "no-inline", no_argument, NULL, OPT_NO_INLINE },
		{ "show-nr-samples", no_argument, NULL, 'n' },
		{ "fields", required_argument, NULL, 'F' },
		{ "max-stack", required_argument, NULL, OPT_MAX_STACK },
		{ "threads", no_argument, NULL, 'T' },
		{ "tasks", no_argument, NULL, OPT_TASKS },
		{ "mmaps", no_argument, NULL, OPT_MMAPS },
		{ "parent", required_argument, NULL, 'p' },
		{ "stdio-color", required_argument, NULL, OPT_STDIO_COLOR },
		{ "field-separator", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:s:g:Gk:qfhIo:nF:Tp:Dt:c:d:S:", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			o->input = optarg;
			break;
		case OPT_STDIO:
			o->stdio = true;
			break;
		case OPT_TUI:
			o->tui = true;
			o->no_tui = false;
			break;
		case OPT_NO_TUI:
			o->no_tui = true;
			o->tui = false;
			break;
		case OPT_CHILDREN:
			o->children = 1;
			break;
		case OPT_NO_CHILDREN:
			o->children = 0;
			break;
		case 's':
			o->sort = optarg;
			break;
		case 'g':
			/*
			 * perf's -g takes the next word only when it is not an
			 * option: "-g --stdio" is -g with perf's default, as is a
			 * -g at the end (below, ':').
			 */
			if (optarg == argv[optind - 1] && optarg[0] == '-' && optarg[1]) {
				optind--;
				optarg = (char *)PERF_G_DEFAULT;
			}
			o->graph = optarg;
			o->limit_after_graph = false;
			break;
		case 'G':
			o->inverted = true;
			break;
		case OPT_PERCENT_LIMIT:
			if (cli_parse_percent(optarg, &o->percent_limit))
				return -1;
			o->has_percent_limit = o->limit_after_graph = true;
			break;
		case OPT_PERCENTAGE:
			if (strcmp(optarg, "relative") && strcmp(optarg, "absolute")) {
				die_msg("bad --percentage '%s' (relative or absolute)", optarg);
				return -1;
			}
			o->relative = !strcmp(optarg, "relative");
			break;
		case 'c': /* perf's -c, --comms */
		case OPT_COMM:
			if (list_split(&o->lists.comm, optarg))
				return -1;
			break;
		case OPT_PID:
			if (list_split(&o->lists.pid, optarg))
				return -1;
			break;
		case OPT_TID:
			if (list_split(&o->lists.tid, optarg))
				return -1;
			break;
		case 'd':
		case OPT_DSO:
			if (list_split(&o->lists.dso, optarg))
				return -1;
			break;
		case 'S':
		case OPT_SYMBOLS:
			if (list_split(&o->lists.symbols, optarg))
				return -1;
			break;
		case OPT_CPU:
			if (parse_cpus(o, optarg))
				return -1;
			break;
		case OPT_STATS:
			o->stats = true;
			break;
		case OPT_HEADER:
			o->header = true;
			break;
		case OPT_HEADER_ONLY:
			o->header_only = true;
			break;
		case OPT_GROUP:
			o->group = 1;
			break;
		case OPT_NO_GROUP:
			o->group = 0;
			break;
		case OPT_SYMFS:
			o->so.symfs = optarg;
			break;
		case 'k':
			o->so.vmlinux = optarg;
			break;
		case OPT_KALLSYMS:
			o->so.kallsyms = optarg;
			break;
		case OPT_NO_DEMANGLE:
			o->so.no_demangle = true;
			break;
		case OPT_FULL_SOURCE_PATH:
			o->full_source_path = true;
			break;
		case OPT_INLINE:
			o->so.inline_frames = PCL_INLINE_ALL;
			break;
		case OPT_NO_INLINE:
			o->so.inline_frames = PCL_INLINE_NONE;
			break;
		case OPT_IGNORE_BUILD_IDS:
			o->so.ignore_build_ids = true;
			break;
		case 'D':
			o->dump = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'f':
			o->force = true;
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "json") && !export_format_known(optarg)) {
				die_msg("unknown format '%s' (%s)", optarg, export_formats);
				return -1;
			}
			o->format = optarg;
			break;
		case 'o':
			o->x.output = optarg;
			break;
		case OPT_ICICLE:
			o->x.icicle = true;
			break;
		case OPT_EVENT:
			o->x.event = optarg;
			break;
		case 't':
			o->field_sep = optarg;
			break;
		case OPT_WALL: /* on and off CPU per thread (docs/offcpu.md) */
			o->x.wall = true;
			break;
		case 'I':
			o->show_info = true;
			break;
		case 'n':
			o->show_nr_samples = true;
			break;
		case 'F':
			o->fields = optarg;
			break;
		case OPT_MAX_STACK: {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (*end || end == optarg || v < 0 || v > INT32_MAX) {
				die_msg("bad --max-stack '%s' (expected a number of frames)",
					optarg);
				return -1;
			}
			o->max_stack = (int)v;
			break;
		}
		case 'T':
			o->threads = true;
			break;
		case OPT_TASKS:
			o->tasks = true;
			break;
		case OPT_MMAPS:
			o->mmaps = true;
			break;
		case 'p':
			o->parent = optarg;
			break;
		case OPT_STDIO_COLOR:
			if (cli_color_mode(optarg, &o->color))
				return -1;
			break;
		case 'h':
			print_usage("report", stdout);
			exit(0);
		default:
			if (c == ':' && optopt == 'g') { /* a -g at the end: perf's default */
				o->graph = PERF_G_DEFAULT;
				o->limit_after_graph = false;
				break;
			}
			return option_error("report", c, argv);
		}
	}
	if (optind < argc) {
		die_msg("unexpected argument '%s'", argv[optind]);
		return -1;
	}
	return 0;
}

/*
 * -g: perf's "mode[,min_percent[,order[,key[,value]]]]" in any order of
 * the words it knows: graph fractal flat folded none, caller callee,
 * function address, percent period count, and a number.
 */
static int parse_graph(const char *arg, struct pcl_report_opts *ro, struct pcl_hist_opts *ho,
		       bool *off)
{
	char *s = strdup(arg), *tok, *save = NULL;

	if (!s)
		return -1;
	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		double v;

		if (!strcmp(tok, "graph")) {
			ro->graph = PCL_GRAPH_ABS;
		} else if (!strcmp(tok, "fractal")) {
			ro->graph = PCL_GRAPH_REL;
		} else if (!strcmp(tok, "flat")) {
			ro->graph = PCL_GRAPH_FLAT;
		} else if (!strcmp(tok, "folded")) {
			ro->graph = PCL_GRAPH_FOLDED;
		} else if (!strcmp(tok, "none")) {
			*off = true;
		} else if (!strcmp(tok, "caller")) {
			ho->caller_order = true;
		} else if (!strcmp(tok, "callee")) {
			ho->caller_order = false;
		} else if (!strcmp(tok, "function") || !strcmp(tok, "address")) {
			/* the function key is the one built here */
		} else if (!strcmp(tok, "percent")) {
			ro->graph_value = PCL_GRAPH_PERCENT;
		} else if (!strcmp(tok, "period")) {
			ro->graph_value = PCL_GRAPH_PERIOD;
		} else if (!strcmp(tok, "count")) {
			ro->graph_value = PCL_GRAPH_COUNT;
		} else if ((v = strtod(tok, &end)), *end == '\0' && end != tok && v >= 0) {
			ro->graph_min_percent = v;
		} else {
			die_msg("bad call-graph option '%s' (graph, fractal, flat, folded, none, "
				"caller, callee, a minimum percentage, percent, period, count)",
				tok);
			free(s);
			return -1;
		}
	}
	free(s);
	return 0;
}

static bool has_callchain(struct pcl_data_reader *r)
{
	for (int i = 0; i < pcl_data_reader__nr_attrs(r); i++)
		if (pcl_data_reader__attr(r, i)->attr.sample_type & PERF_SAMPLE_CALLCHAIN)
			return true;
	return false;
}

/* Whether a sample passes --comm, --pid, --tid, --dso, --symbols, --cpu. */
static bool passes(const struct report_opts *o, const struct pcl_resolved *rs, uint32_t cpu)
{
	if (!sample_lists_pass(&o->lists, rs))
		return false;
	if (o->has_cpu_filter && (cpu >= 4096 || !o->cpus[cpu]))
		return false;
	return true;
}

static bool export_passes(const void *ctx, const struct pcl_resolved *rs, uint32_t cpu)
{
	return passes(ctx, rs, cpu);
}

/* The -g leaf repair's counts (docs/fpleaf.md), for files that carry its stack copies. */
static void print_fpleaf_stats(const struct input *in)
{
	struct pcl_fpleaf_stats st;

	pcl_resolver__fpleaf_stats(in->resolver, &st);
	if (!st.samples)
		return;
	printf("frame-pointer leaf repair (pcl record -g), samples:\n");
	printf("%16s: %10" PRIu64 "\n", "with a copy", st.samples);
	printf("%16s: %10" PRIu64 "\n", "repaired", st.repaired);
	printf("%16s: %10" PRIu64 "\n", "rbp-based", st.rbp_based);
	printf("%16s: %10" PRIu64 "\n", "already there", st.present);
	printf("%16s: %10" PRIu64 "  (largest needed: %" PRIu64 " bytes)\n", "copy too small",
	       st.too_small, st.max_needed);
	printf("%16s: %10" PRIu64 "\n", "no CFI", st.no_cfi);
}

static void print_stats(const struct input *in, struct event_hist *eh, int nr)
{
	const struct pcl_data_stats *st = pcl_data_events__stats(in->events);
	uint64_t total = 0;

	for (int t = 0; t < 128; t++)
		total += st->nr[t];
	printf("\nAggregated stats:\n");
	printf("%16s events: %10" PRIu64 "\n", "TOTAL", total);
	for (int t = 1; t < 128; t++) {
		const char *name = pcl_record_type_name((uint32_t)t);

		if (!st->nr[t])
			continue;
		printf("%16s events: %10" PRIu64 "  (%4.1f%%)\n", name, st->nr[t],
		       100.0 * (double)st->nr[t] / (double)total);
	}
	for (int i = 0; i < nr; i++) {
		printf("%s stats:\n", pcl_data_reader__attr(in->reader, i)->name);
		if (eh[i].nr_samples)
			printf("%16s events: %10" PRIu64 "\n", "SAMPLE", eh[i].nr_samples);
	}
	print_fpleaf_stats(in);
}

static bool has_key(const struct pcl_hist_opts *ho, enum pcl_sort_key k)
{
	for (int i = 0; i < ho->nr_keys; i++)
		if (ho->keys[i] == k)
			return true;
	return false;
}

/* A one-item filter of a sort key's column, which perf then leaves out: it says so here. */
static void print_filters(const struct report_opts *o, const struct pcl_hist_opts *ho)
{
	if (o->lists.comm.n == 1 && has_key(ho, PCL_SORT_COMM))
		printf("# comm: %s\n", o->lists.comm.v[0]);
	if (o->lists.dso.n == 1 && has_key(ho, PCL_SORT_DSO))
		printf("# dso: %s\n", o->lists.dso.v[0]);
	if (o->lists.symbols.n == 1 && has_key(ho, PCL_SORT_SYM))
		printf("# symbol: %s\n", o->lists.symbols.v[0]);
}

/*
 * --percentage relative: perf's totals are those of the entries the filters
 * keep (each entry's own samples and period), in the header as in the
 * entries' percentages.
 */
static void kept_totals(const struct pcl_hists *h, uint64_t *nr, uint64_t *period)
{
	*nr = *period = 0;
	for (size_t i = 0; i < pcl_hists__nr_entries(h); i++) {
		const struct pcl_hist_entry *e = pcl_hists__entry(h, i);

		if (!e->hidden) {
			*nr += e->nr_samples;
			*period += e->self;
		}
	}
}

/* Percentages of @eh (finished) into @ro: of all its samples, or with @relative of those kept. */
static void set_totals(const struct event_hist *eh, bool relative, struct pcl_report_opts *ro,
		       uint64_t *nr)
{
	ro->total_period = eh->total_period;
	ro->graph_total = 0;
	ro->nr_samples = 0;
	*nr = eh->nr_samples;
	if (relative && ro->nr_members <= 1) {
		kept_totals(eh->h, nr, &ro->total_period);
		ro->graph_total = eh->total_period; /* perf: branches keep their share of all */
		ro->nr_samples = *nr;
	}
}

static int print_section(const struct input *in, const struct event_hist *eh, int idx,
			 const struct pcl_report_opts *ro, uint64_t nr)
{
	const struct pcl_data_attr *a = pcl_data_reader__attr(in->reader, idx);
	char cnt[32];
	uint64_t total = ro->total_period;

	if (ro->quiet)
		goto body;
	if (ro->nr_members > 1) {
		/* a group: its members' samples together, named as perf names it */
		bool anon = !eh->group_name || !strcmp(eh->group_name, "{anon_group}");
		bool forced = eh->group_name && !eh->group_name[0]; /* --group, no groups */

		for (int m = 1; m < ro->nr_members; m++) {
			nr += eh[m].nr_samples;
			total += eh[m].total_period;
		}
		pcl_report__count(cnt, sizeof(cnt), nr);
		printf("# Samples: %s of events '", cnt);
		if (!forced)
			printf("%s { ", anon ? "anon group" : eh->group_name);
		for (int m = 0; m < ro->nr_members; m++)
			printf("%s%s", m ? ", " : "", pcl_data_reader__attr(in->reader, idx + m)->name);
		printf("%s'\n", forced ? "" : " }");
	} else {
		pcl_report__count(cnt, sizeof(cnt), nr);
		/* perf says "events" for a group leader shown alone (--no-group) */
		printf("# Samples: %s of event%s '%s'\n", cnt, eh->nr_members > 1 ? "s" : "",
		       a->name[0] ? a->name : "unknown");
	}
	printf("# Event count (approx.): %" PRIu64 "\n#\n", total);
body:
	if (pcl_report__print(stdout, eh->h, ro))
		return -1;
	printf("\n\n");
	return 0;
}

/* A comma-separated list of perf's field names into @v (*@n of them so far). */
static int parse_fields(const char *s, const char *what, struct pcl_field *v, int *n)
{
	while (*s) {
		size_t len = strcspn(s, ",");
		struct pcl_field f;

		if (len && pcl_field_parse(s, len, &f)) {
			die_msg("unknown %s key '%.*s' (overhead, overhead_sys, overhead_us, "
				"overhead_guest_sys, overhead_guest_us, overhead_children, sample, "
				"period, comm, dso, sym, pid, tid, cpu, srcline, srcfile)",
				what, (int)len, s);
			return -1;
		}
		if (len) {
			if (*n >= PCL_FIELDS_MAX) {
				die_msg("too many %s keys", what);
				return -1;
			}
			v[(*n)++] = f;
		}
		s += len;
		if (*s == ',')
			s++;
	}
	return 0;
}

static bool field_in(const struct pcl_field *v, int n, struct pcl_field f)
{
	for (int i = 0; i < n; i++)
		if (v[i].hpp == f.hpp && (f.hpp != PCL_HPP_KEY || v[i].key == f.key))
			return true;
	return false;
}

static void field_add(struct pcl_field *v, int *n, struct pcl_field f)
{
	if (*n < PCL_FIELDS_MAX && !field_in(v, *n, f))
		v[(*n)++] = f;
}

static bool elided(const struct report_opts *o, enum pcl_sort_key k)
{
	return (k == PCL_SORT_COMM && o->lists.comm.n == 1) ||
	       (k == PCL_SORT_DSO && o->lists.dso.n == 1) ||
	       (k == PCL_SORT_SYM && o->lists.symbols.n == 1);
}

/*
 * perf's sort list and output fields from --sort, -F and -n. The sort list
 * is --sort's (comm,dso,sym if not given; "+KEYS" adds to those), with
 * overhead (and overhead_children in children mode) in front unless -F
 * names the fields (a list not starting with '+'), then the output fields
 * it lacks. The output fields are -F's; without it (or with "+FIELDS"),
 * [Children,] Overhead/Self[, Samples with -n][, the '+' ones]; then the
 * sort keys they lack. An entry is one per value of the sort list's keys.
 */
static int setup_order(const struct report_opts *o, bool children, struct pcl_field *order,
		       int *nr_order, struct pcl_field *fields, int *nr_fields)
{
	bool strict = o->fields && o->fields[0] != '+';
	struct pcl_field sort[PCL_FIELDS_MAX], head[2];
	int ns = 0, nh = 0;

	*nr_order = *nr_fields = 0;
	if (!o->sort && !strict) {
		if (parse_fields("comm,dso,sym", "--sort", sort, &ns))
			return -1;
	} else if (o->sort && o->sort[0] == '+') {
		if (parse_fields("comm,dso,sym", "--sort", sort, &ns) ||
		    parse_fields(o->sort + 1, "--sort", sort, &ns))
			return -1;
	} else if (o->sort && parse_fields(o->sort, "--sort", sort, &ns)) {
		return -1;
	}
	if (!strict) {
		/* perf's setup_overhead: each put in front if the list lacks it */
		if (children &&
		    !field_in(sort, ns, (struct pcl_field){ PCL_HPP_OVERHEAD_CHILDREN, 0 }))
			head[nh++] = (struct pcl_field){ PCL_HPP_OVERHEAD_CHILDREN, 0 };
		if (!field_in(sort, ns, (struct pcl_field){ PCL_HPP_OVERHEAD, 0 }))
			head[nh++] = (struct pcl_field){ PCL_HPP_OVERHEAD, 0 };
	}
	for (int i = 0; i < nh; i++)
		field_add(order, nr_order, head[i]);
	for (int i = 0; i < ns; i++)
		field_add(order, nr_order, sort[i]);
	/* -p: perf adds the parent key after the others */
	if (o->parent)
		field_add(order, nr_order, (struct pcl_field){ PCL_HPP_KEY, PCL_SORT_PARENT });
	if (strict) {
		if (parse_fields(o->fields, "--fields", fields, nr_fields))
			return -1;
	} else {
		struct pcl_field plus[PCL_FIELDS_MAX];
		int np = 0;

		if (children)
			field_add(fields, nr_fields,
				  (struct pcl_field){ PCL_HPP_OVERHEAD_CHILDREN, 0 });
		field_add(fields, nr_fields, (struct pcl_field){ PCL_HPP_OVERHEAD, 0 });
		if (o->show_nr_samples)
			field_add(fields, nr_fields, (struct pcl_field){ PCL_HPP_SAMPLE, 0 });
		if (o->fields && parse_fields(o->fields + 1, "--fields", plus, &np))
			return -1;
		for (int i = 0; i < np; i++)
			field_add(fields, nr_fields, plus[i]);
	}
	for (int i = 0; i < *nr_order; i++)
		field_add(fields, nr_fields, order[i]);
	for (int i = 0; i < *nr_fields; i++)
		field_add(order, nr_order, fields[i]);
	return 0;
}

/*
 * The columns and the entries' keys and order. A key that a one-item
 * filter pins down is not shown (as perf elides it), unless that leaves
 * no key column.
 */
static int setup_keys(const struct report_opts *o, bool children, struct pcl_hist_opts *ho,
		      struct pcl_report_opts *ro)
{
	struct pcl_field order[PCL_FIELDS_MAX], fields[PCL_FIELDS_MAX];
	int no, nf, n = 0, shown_keys = 0;
	bool custom = o->fields || o->show_nr_samples;

	if (setup_order(o, children, order, &no, fields, &nf))
		return -1;
	for (int i = 0; i < no; i++) {
		if (order[i].hpp != PCL_HPP_KEY) {
			custom |= order[i].hpp != PCL_HPP_OVERHEAD &&
				  order[i].hpp != PCL_HPP_OVERHEAD_CHILDREN;
			continue;
		}
		ho->keys[n++] = order[i].key;
	}
	/* the default order (perf's overhead first, then the keys) is the histogram's own */
	custom |=
		no < 1 || order[0].hpp != (children ? PCL_HPP_OVERHEAD_CHILDREN : PCL_HPP_OVERHEAD);
	custom |= !n; /* no key: one entry of everything (perf's -s overhead) */
	ho->nr_keys = n;
	ro->nr_keys = 0;
	for (int i = 0; i < n; i++)
		if (!elided(o, ho->keys[i]))
			ro->keys[ro->nr_keys++] = ho->keys[i];
	if (!ro->nr_keys) { /* perf: eliding every column makes no sense, it shows them all */
		memcpy(ro->keys, ho->keys, sizeof(ro->keys));
		ro->nr_keys = n;
	}
	/* and it sorts the entries without the keys it elides */
	custom |= ro->nr_keys != n;
	if (custom) {
		ho->nr_order = 0;
		for (int i = 0; i < no; i++)
			if (order[i].hpp != PCL_HPP_KEY || ro->nr_keys == n ||
			    !elided(o, order[i].key))
				ho->order[ho->nr_order++] = order[i];
	}
	for (int i = 0; i < nf; i++)
		shown_keys += fields[i].hpp == PCL_HPP_KEY && !elided(o, fields[i].key);
	ro->nr_fields = 0;
	for (int i = 0; i < nf; i++)
		if (fields[i].hpp != PCL_HPP_KEY || !elided(o, fields[i].key) || !shown_keys)
			ro->fields[ro->nr_fields++] = fields[i];
	ro->self_title = children && !(o->fields && o->fields[0] != '+');
	/* perf: only without -F, and by --sort's text */
	ro->sort_sym_first = !o->fields && o->sort && !strncmp(o->sort, "sym", 3);
	return 0;
}

/* Room for event @idx, each event its own leader until groups say otherwise. */
static struct event_hist *event_hist_array(struct event_hist **eh, int *nr, int idx)
{
	if (idx >= *nr) {
		struct event_hist *n = realloc(*eh, (size_t)(idx + 1) * sizeof(*n));

		if (!n)
			return NULL;
		memset(n + *nr, 0, (size_t)(idx + 1 - *nr) * sizeof(*n));
		for (int i = *nr; i <= idx; i++)
			n[i].leader = i;
		*eh = n;
		*nr = idx + 1;
	}
	return *eh;
}

/* The histogram of event @idx, made on first use (a pipe declares its events as it goes). */
static struct event_hist *event_hist(struct event_hist **eh, int *nr, int idx,
				     const struct pcl_hist_opts *ho)
{
	if (!event_hist_array(eh, nr, idx))
		return NULL;
	if (!(*eh)[idx].h) {
		struct pcl_hist_opts go = *ho;

		go.nr_members = ho->nr_members ? (*eh)[idx].nr_members : 0;
		if (!((*eh)[idx].h = pcl_hists__new(&go)))
			return NULL;
	}
	return &(*eh)[idx];
}

/*
 * GROUP_DESC: u32 nr, then per group a perf string (u32 len, bytes), u32
 * leader index, u32 members. With --group, each member's samples go to its
 * leader's histogram as that member.
 */
static int setup_groups(struct input *in, struct event_hist **eh, int *nr, bool force)
{
	size_t len;
	const uint8_t *p = pcl_data_reader__feature(in->reader, PCL_FEAT_GROUP_DESC, &len), *end;
	int nattrs = pcl_data_reader__nr_attrs(in->reader);
	uint32_t ng;

	if (nattrs <= 0)
		return 0;
	if (!event_hist_array(eh, nr, nattrs - 1))
		return -1;
	if (!p || len < 4) {
		/* --group on a file without groups: perf shows all its events as one */
		if (force && nattrs > 1 && nattrs <= MAX_MEMBERS) {
			for (int m = 0; m < nattrs; m++) {
				(*eh)[m].leader = 0;
				(*eh)[m].member = m;
			}
			(*eh)[0].nr_members = nattrs;
			(*eh)[0].group_name = strdup("");
		}
		return 0;
	}
	end = p + len;
	memcpy(&ng, p, 4);
	p += 4;
	for (uint32_t g = 0; g < ng; g++) {
		uint32_t sl, leader, members;

		if (end - p < 4 || (memcpy(&sl, p, 4), sl > (size_t)(end - p - 4)) ||
		    end - p - 4 - sl < 8 || !memchr(p + 4, '\0', sl))
			return 0; /* malformed: no groups */
		memcpy(&leader, p + 4 + sl, 4);
		memcpy(&members, p + 8 + sl, 4);
		if (leader < (uint32_t)nattrs && members > 1 && members <= MAX_MEMBERS &&
		    leader + members <= (uint32_t)nattrs) {
			(*eh)[leader].group_name = strdup((const char *)p + 4);
			for (uint32_t m = 0; m < members; m++) {
				(*eh)[leader + m].leader = (int)leader;
				(*eh)[leader + m].member = (int)m;
			}
			(*eh)[leader].nr_members = (int)members;
		}
		p += 12 + sl;
	}
	return 0;
}

/*
 * --max-stack N: perf uses N frames of a chain in the order it shows them:
 * the innermost N (the sample's ip first) in callee order, the outermost N
 * in caller order (children's default).
 */
static void cap_chain(const struct report_opts *o, bool caller_order, struct pcl_resolved *rs)
{
	if (o->max_stack >= 0 && rs->nr_chain > (size_t)o->max_stack) {
		if (caller_order)
			rs->chain += rs->nr_chain - (size_t)o->max_stack;
		rs->nr_chain = (size_t)o->max_stack;
		rs->chain_id = 0; /* another chain than the resolver's id stands for */
	}
}

/*
 * -T: the counts of PERF_RECORD_READ records (pcl record -s, perf record
 * -s: each thread's counters when it exits), per thread and event, summed,
 * in the order first seen, as perf's read values table.
 */
struct thread_id {
	int32_t pid, tid;
};

struct thread_values {
	struct thread_id *thr;
	int *ctr;	 /* the events' indexes */
	uint64_t *value; /* [thread * MAX_COUNTERS + counter] */
	int nr_thr, nr_ctr, alloc_thr;
};

#define MAX_COUNTERS 64

static int values_add(struct thread_values *tv, const struct input *in,
		      const struct pcl_data_event *ev)
{
	int idx = ev->attr_idx < 0 ? 0 : ev->attr_idx, t, c;
	uint64_t rf = pcl_data_reader__nr_attrs(in->reader) > idx
			      ? pcl_data_reader__attr(in->reader, idx)->attr.read_format
			      : 0;

	for (t = 0; t < tv->nr_thr; t++)
		if (tv->thr[t].pid == (int32_t)ev->rec.read.pid &&
		    tv->thr[t].tid == (int32_t)ev->rec.read.tid)
			break;
	if (t == tv->nr_thr) {
		if (t == tv->alloc_thr) {
			int na = tv->alloc_thr ? tv->alloc_thr * 2 : 16;
			void *nt = realloc(tv->thr, (size_t)na * sizeof(*tv->thr));
			uint64_t *nv;

			if (!nt)
				return -ENOMEM;
			tv->thr = nt;
			nv = realloc(tv->value, (size_t)na * MAX_COUNTERS * sizeof(*nv));
			if (!nv)
				return -ENOMEM;
			tv->value = nv;
			tv->alloc_thr = na;
		}
		tv->thr[t].pid = (int32_t)ev->rec.read.pid;
		tv->thr[t].tid = (int32_t)ev->rec.read.tid;
		memset(&tv->value[(size_t)t * MAX_COUNTERS], 0, MAX_COUNTERS * sizeof(uint64_t));
		tv->nr_thr++;
	}
	for (c = 0; c < tv->nr_ctr; c++)
		if (tv->ctr[c] == idx)
			break;
	if (c == tv->nr_ctr) {
		int *nc;

		if (c == MAX_COUNTERS)
			return 0; /* more events than any recording has */
		if (!(nc = realloc(tv->ctr, (size_t)(c + 1) * sizeof(*nc))))
			return -ENOMEM;
		tv->ctr = nc;
		tv->ctr[tv->nr_ctr++] = idx;
	}
	if (ev->rec.read.values.nr)
		tv->value[(size_t)t * MAX_COUNTERS + (size_t)c] +=
			pcl_read__value(&ev->rec.read.values, 0, rf).value;
	return 0;
}

static int digits(uint64_t v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

static int sdigits(int32_t v)
{
	int64_t x = v;

	return x < 0 ? 1 + digits((uint64_t)(-x)) : digits((uint64_t)x);
}

/* perf's read values table: "# PID  TID  EVENT...", columns as wide as their widest cell */
static void values_print(const struct thread_values *tv, const struct input *in)
{
	int pw = 3, tw = 3, cw[MAX_COUNTERS];

	for (int c = 0; c < tv->nr_ctr; c++)
		cw[c] = (int)strlen(pcl_data_reader__attr(in->reader, tv->ctr[c])->name);
	for (int t = 0; t < tv->nr_thr; t++) {
		if (sdigits(tv->thr[t].pid) > pw)
			pw = sdigits(tv->thr[t].pid);
		if (sdigits(tv->thr[t].tid) > tw)
			tw = sdigits(tv->thr[t].tid);
		for (int c = 0; c < tv->nr_ctr; c++)
			if (digits(tv->value[(size_t)t * MAX_COUNTERS + (size_t)c]) > cw[c])
				cw[c] = digits(tv->value[(size_t)t * MAX_COUNTERS + (size_t)c]);
	}
	printf("# %*s  %*s", pw, "PID", tw, "TID");
	for (int c = 0; c < tv->nr_ctr; c++)
		printf("  %*s", cw[c], pcl_data_reader__attr(in->reader, tv->ctr[c])->name);
	printf("\n");
	for (int t = 0; t < tv->nr_thr; t++) {
		printf("  %*d  %*d", pw, tv->thr[t].pid, tw, tv->thr[t].tid);
		for (int c = 0; c < tv->nr_ctr; c++)
			printf("  %*" PRIu64, cw[c],
			       tv->value[(size_t)t * MAX_COUNTERS + (size_t)c]);
		printf("\n");
	}
}

struct sample_ctx {
	struct input *in;
	const struct report_opts *o;
	struct event_hist **eh;
	int *nr;
	const struct pcl_hist_opts *ho;
};

/* The index of @a among the file's attrs, or -1. */
static int attr_index(const struct pcl_data_reader *r, const struct pcl_data_attr *a)
{
	int n = pcl_data_reader__nr_attrs(r);

	for (int i = 0; i < n; i++)
		if (pcl_data_reader__attr(r, i) == a)
			return i;
	return -1;
}

/*
 * For the browser's 'a': the sample's own address (resolved as without its
 * chain), counted as pcl annotate counts it: every sample, whatever the
 * report's filters.
 */
static int annotate_add(const struct report_opts *o, int idx, const struct pcl_resolved *rs,
			uint64_t period)
{
	return o->annotate ? pcl_annotate__add(o->annotate, idx, &rs->ip, period) : 0;
}

/* One sample of event @a into its histogram: 0, or -ENOMEM. */
static int add_sample(void *ctx, const struct pcl_data_attr *a, const struct pcl_record *rec)
{
	struct sample_ctx *x = ctx;
	const struct report_opts *o = x->o;
	const struct pcl_hist_opts *ho = x->ho;
	uint64_t period = rec->sample.period;
	int idx = attr_index(x->in->reader, a);
	struct pcl_resolved rs;
	struct event_hist *e;
	uint32_t cpu;

	if (idx < 0)
		return 0;
	e = event_hist(x->eh, x->nr, idx, ho);
	if (e && o->group && e->leader != idx) {
		int member = e->member;

		e->nr_samples++;
		e->total_period += period;
		e = event_hist(x->eh, x->nr, e->leader, ho);
		if (!e || pcl_resolver__sample(x->in->resolver, rec, &rs) ||
		    annotate_add(o, idx, &rs, period))
			return -ENOMEM;
		cap_chain(o, ho->caller_order, &rs);
		e->member_totals[member] += period;
		cpu = rec->sample.sample_type & PERF_SAMPLE_CPU ? rec->sample.cpu : UINT32_MAX;
		if (passes(o, &rs, cpu) && pcl_hists__add_member(e->h, &rs, cpu, period, member))
			return -ENOMEM;
		return 0;
	}
	if (!e || pcl_resolver__sample(x->in->resolver, rec, &rs) ||
	    annotate_add(o, idx, &rs, period))
		return -ENOMEM;
	cap_chain(o, ho->caller_order, &rs);
	if (o->group && e->nr_members > 1)
		e->member_totals[0] += period;
	cpu = rec->sample.sample_type & PERF_SAMPLE_CPU ? rec->sample.cpu : UINT32_MAX;
	/* perf drops other CPUs' samples from the totals too */
	if (o->has_cpu_filter && (cpu >= 4096 || !o->cpus[cpu]))
		return 0;
	e->nr_samples++;
	e->total_period += period;
	if (rs.ip.map)
		rs.ip.map->dso->hit = true;
	if (!passes(o, &rs, cpu)) {
		if (!(o->group && e->nr_members > 1) &&
		    pcl_hists__add_hidden(e->h, &rs, cpu, period))
			return -ENOMEM;
		return 0;
	}
	if (o->group && e->nr_members > 1 ? pcl_hists__add_member(e->h, &rs, cpu, period, 0)
					  : pcl_hists__add(e->h, &rs, cpu, period))
		return -ENOMEM;
	return 0;
}

/*
 * The file's samples into the histograms. Samples with PERF_SAMPLE_READ
 * count as perf counts them, one per value read (a group leader's sample
 * also weighs its members); inherited counters' values are followed per
 * thread (perf 6.1 wraps them), which a warning says with the count.
 */
static int read_samples(struct input *in, const struct report_opts *o, struct event_hist **eh,
			int *nr, const struct pcl_hist_opts *ho, struct thread_values *tv)
{
	struct sample_ctx x = { in, o, eh, nr, ho };
	struct read_deltas rd = { 0 };
	/* inherited counters' values per thread, as perf 6.12+; not those of whole CPUs */
	bool per_thread = !recorded_cpu_wide(in->reader);
	int ret;

	while ((ret = input_next(in)) > 0) {
		const struct pcl_data_event *ev = &in->ev;

		if (o->threads && ev->decoded && ev->hdr->type == PERF_RECORD_READ &&
		    values_add(tv, in, ev))
			goto oom;

		if (!ev->decoded || ev->hdr->type != PERF_RECORD_SAMPLE || ev->attr_idx < 0)
			continue;
		if (each_read_sample(in->reader, &rd, per_thread, ev->attr, &ev->rec, add_sample, &x))
			goto oom;
	}
	/* said only where perf 6.1's answer differs: values of several threads under one id */
	if (rd.nr_per_thread && rd.threads_mixed)
		fprintf(stderr,
			"pcl: warning: %" PRIu64 " sample%s of inherited counters with "
			"PERF_SAMPLE_READ: periods are each thread's growth (as perf 6.12+); "
			"perf 6.1 subtracts different threads' counts and wraps\n",
			rd.nr_per_thread, rd.nr_per_thread == 1 ? "" : "s");
	read_deltas_free(&rd);
	return ret;
oom:
	read_deltas_free(&rd);
	die_msg("out of memory");
	return -1;
}

static void warn_symbols(const struct input *in)
{
	for (int i = 0; i < pcl_machine__nr_dsos(in->machine); i++) {
		const struct pcl_dso *d = pcl_machine__dso(in->machine, i);

		if (d->hit && d->sym_status == PCL_DSO_SYMS_BAD_BUILD_ID && d->sym_note)
			fprintf(stderr, "pcl: warning: %s\n", d->sym_note);
	}
}

static int print_header(struct input *in, const struct report_opts *o)
{
	unsigned int flags = o->show_info ? PCL_HEADER_FULL : 0;

	if (o->header_only)
		flags |= PCL_HEADER_READ_STREAM;
	if (pcl_header__print(stdout, in->reader, in->path, flags)) {
		die_msg("%s", pcl_last_error()[0] ? pcl_last_error() : "cannot describe the file");
		return -1;
	}
	return 0;
}

/*
 * --format=json: the document around libpcl's objects, {"header": {...},
 * "events": [one per event with samples]}, written through export_write
 * (whole or not at all), which hands this back as the writer's options.
 */
struct json_doc {
	struct pcl_export_opts x; /* first: json_write gets a pointer to it */
	const struct input *in;
	const struct event_hist *eh;
	int nr;
	struct pcl_report_opts *ro;
	bool relative;
};

static int json_write(FILE *fp, const struct pcl_profile *p, const struct pcl_export_opts *x)
{
	const struct json_doc *d = (const struct json_doc *)x;
	bool first = true;
	int ret;

	(void)p;
	fputs("{\"header\":", fp);
	ret = pcl_report__json_header(fp, x->facts, x->nr_facts, x->lost_samples);
	if (ret)
		return ret;
	fputs(",\n\"events\":[", fp);
	for (int i = 0; i < d->nr; i++) {
		const char *name = pcl_data_reader__attr(d->in->reader, i)->name;
		uint64_t nr;

		if (!d->eh[i].nr_samples)
			continue;
		set_totals(&d->eh[i], d->relative, d->ro, &nr);
		fputs(first ? "\n" : ",\n", fp);
		first = false;
		ret = pcl_report__json(fp, name && name[0] ? name : "unknown", d->eh[i].h, d->ro);
		if (ret)
			return ret;
	}
	fputs("\n]}\n", fp);
	return 0; /* export_write checks the stream */
}

static int report_json(struct input *in, const struct report_opts *o, struct event_hist *eh, int nr,
		       struct pcl_report_opts *ro)
{
	struct json_doc d = {
		.x = { .sz = sizeof(d.x) }, .in = in, .eh = eh, .nr = nr, .ro = ro,
		.relative = o->relative,
	};
	const char *event = "";
	int ret;

	for (int i = 0; i < nr; i++) {
		const char *name = pcl_data_reader__attr(in->reader, i)->name;

		if (!eh[i].nr_samples)
			continue;
		pcl_hists__finish(eh[i].h);
		if (!event[0] && name)
			event = name; /* the facts' event: the first with samples */
	}
	export_opts_fill(&d.x, in, event);
	ret = export_write(o->x.output, json_write, NULL, &d.x) ? 1 : 0;
	export_opts_release(&d.x);
	return ret;
}

/*
 * --tasks, --mmaps: a machine of the file's COMM, FORK and EXIT records
 * (and MMAP, MMAP2 for --mmaps), as perf builds its own for them: threads
 * seen only in samples are not tasks.
 */
static int report_tasks(struct input *in, bool mmaps)
{
	struct pcl_machine *m = pcl_machine__new();
	int ret = 1, r;

	if (!m) {
		die_msg("out of memory");
		return 1;
	}
	while ((r = input_next(in)) > 0) {
		uint32_t type = in->ev.hdr->type;

		if (!in->ev.decoded)
			continue;
		if (type == PERF_RECORD_COMM || type == PERF_RECORD_FORK ||
		    type == PERF_RECORD_EXIT ||
		    (mmaps && (type == PERF_RECORD_MMAP || type == PERF_RECORD_MMAP2))) {
			if (pcl_machine__process(m, &in->ev.rec)) {
				die_msg("out of memory");
				goto out;
			}
		}
	}
	if (r < 0)
		goto out;
	input_finish(in);
	if (pcl_report__tasks(stdout, m, mmaps)) {
		die_msg("%s", pcl_last_error());
		goto out;
	}
	ret = fflush(stdout) ? 1 : 0;
out:
	pcl_machine__free(m);
	return ret;
}

/*
 * perf's choice of the interface: the browser by default when the output
 * is a terminal; --stdio (or --no-tui) for text; --tui into a pipe falls
 * back to text, as perf's does. What only text shows (-D, --header,
 * --header-only, --stats, --tasks, --mmaps, -T, --format, --wall, -t) and a stream
 * read from stdin ("-i -") are text too.
 */
static bool use_browser(const struct report_opts *o)
{
	if (o->stdio || o->no_tui)
		return false;
	if (o->dump || o->header || o->header_only || o->stats || o->tasks || o->mmaps ||
	    o->threads || o->format || o->x.wall || o->field_sep)
		return false;
	if (o->input && !strcmp(o->input, "-"))
		return false;
	return tui_usable();
}

/* ---- the browser over the file (cli/tui.c) ---- */

struct browse_ctx {
	struct input *in;
	const struct report_opts *o;
	struct event_hist *eh;
	int nr;
	struct pcl_report_opts *ro;
	int *events; /* the events shown (leaders with samples) */
	int nr_events, cur;
	char title[1024];
};

/* Event @cur's totals into the report options, as the text report sets them. */
static void browse_select(struct browse_ctx *b)
{
	int i = b->events[b->cur];
	uint64_t nr_shown, total;
	const struct pcl_data_attr *a = pcl_data_reader__attr(b->in->reader, i);
	const struct event_hist *eh = &b->eh[i];
	char cnt[32], name[512];

	b->ro->nr_members = b->o->group ? eh->nr_members : 0;
	b->ro->member_totals = eh->member_totals;
	set_totals(eh, b->o->relative, b->ro, &nr_shown);
	total = b->ro->total_period;
	if (b->ro->nr_members > 1) {
		bool anon = !eh->group_name || !strcmp(eh->group_name, "{anon_group}");
		bool forced = eh->group_name && !eh->group_name[0];
		size_t n = 0;

		for (int m = 1; m < b->ro->nr_members; m++) {
			nr_shown += eh[m].nr_samples;
			total += eh[m].total_period;
		}
		if (!forced)
			n += (size_t)snprintf(name, sizeof(name), "%s { ",
					      anon ? "anon group" : eh->group_name);
		for (int m = 0; m < b->ro->nr_members && n < sizeof(name); m++)
			n += (size_t)snprintf(name + n, sizeof(name) - n, "%s%s", m ? ", " : "",
					      pcl_data_reader__attr(b->in->reader, i + m)->name);
		if (!forced && n < sizeof(name))
			snprintf(name + n, sizeof(name) - n, " }");
	} else {
		snprintf(name, sizeof(name), "%s", a->name[0] ? a->name : "unknown");
	}
	pcl_report__count(cnt, sizeof(cnt), nr_shown);
	/* perf's hists browser title */
	snprintf(b->title, sizeof(b->title),
		 "Samples: %s of event%s '%s', Event count (approx.): %" PRIu64, cnt,
		 eh->nr_members > 1 ? "s" : "", name, total);
	if (b->nr_events > 1) {
		size_t n = strlen(b->title);

		snprintf(b->title + n, sizeof(b->title) - n, "  [event %d of %d: TAB for the next]",
			 b->cur + 1, b->nr_events);
	}
}

static const struct pcl_hists *browse_get(void *ctx)
{
	struct browse_ctx *b = ctx;

	return b->eh[b->events[b->cur]].h;
}

static const char *browse_title(void *ctx)
{
	return ((struct browse_ctx *)ctx)->title;
}

/* Entry @e's symbol as pcl annotate --stdio SYM prints it. */
static int browse_annotate(void *ctx, const struct pcl_hist_entry *e, FILE *fp)
{
	struct browse_ctx *b = ctx;
	const struct pcl_annotate *a = b->o->annotate;
	struct pcl_annotate_opts ao = { .sz = sizeof(ao) };
	int ev = b->events[b->cur];

	if (!a || !e->frame.sym || !e->frame.map)
		return -ENOTSUP;
	for (size_t i = 0; i < pcl_annotate__nr_syms(a); i++) {
		const struct pcl_annotate_sym *s = pcl_annotate__sym(a, i);
		const char *name = pcl_data_reader__attr(b->in->reader, s->event)->name;

		if (s->event != ev || s->sym != e->frame.sym || s->dso != e->frame.map->dso)
			continue;
		return pcl_annotate__print(fp, a, i, b->in->symbols,
					   name && name[0] ? name : "unknown", &ao);
	}
	return -ENODATA; /* no sample in it itself: its period is its callees' */
}

/* perf's 'i': the file's header, as --header-only prints it. */
static int browse_info(void *ctx, FILE *fp)
{
	struct browse_ctx *b = ctx;

	return pcl_header__print(fp, b->in->reader, b->in->path, 0);
}

/* TAB and shift-TAB: the next and previous event, as in perf. */
static int browse_key(void *ctx, int key)
{
	struct browse_ctx *b = ctx;

	if (b->nr_events < 2 || (key != '\t' && key != TUI_KEY_BTAB))
		return 0;
	b->cur = (b->cur + (key == '\t' ? 1 : b->nr_events - 1)) % b->nr_events;
	browse_select(b);
	return 0;
}

/*
 * The browser over event @eh's histograms: 0, 1 (an error, printed), or -1
 * when the terminal could not take it after all (the caller prints text).
 */
static int report_browse(struct input *in, const struct report_opts *o, struct event_hist *eh,
			 int nr, struct pcl_report_opts *ro)
{
	struct browse_ctx b = { .in = in, .o = o, .eh = eh, .nr = nr, .ro = ro };
	struct tui_source src = {
		.ctx = &b,
		.get = browse_get,
		.ropts = ro,
		.title = browse_title,
		.annotate = browse_annotate,
		.key = browse_key,
		.info = browse_info,
	};
	int ret;

	if (!(b.events = calloc((size_t)nr, sizeof(*b.events)))) {
		die_msg("out of memory");
		return 1;
	}
	for (int i = 0; i < nr; i++) {
		if (!eh[i].nr_samples || (o->group && eh[i].leader != i))
			continue;
		pcl_hists__finish(eh[i].h);
		b.events[b.nr_events++] = i;
	}
	pcl_annotate__finish(o->annotate);
	ro->quiet = o->quiet;
	ro->color = false;
	browse_select(&b);
	ret = tui_browse(&src);
	free(b.events);
	if (ret == -ENOTTY)
		return -1; /* no browser after all: the text report */
	if (ret == -EINTR)
		return 1; /* a signal ended it */
	if (ret == -EPROTO) {
		die_msg("the browser's rows do not match the report's entries (a bug); "
			"--stdio prints the report");
		return 1;
	}
	if (ret) {
		die_msg("the browser failed: %s", strerror(-ret));
		return 1;
	}
	return 0;
}

static int report(struct report_opts *o)
{
	struct input in;
	struct pcl_hist_opts ho = { .sz = sizeof(ho) };
	struct pcl_report_opts ro = { .sz = sizeof(ro), .graph = PCL_GRAPH_ABS,
				      .graph_min_percent = 0.5 };
	struct event_hist *eh = NULL;
	struct thread_values tv = { 0 };
	bool chains, graph_off = false, any = false;
	bool json = o->format && !strcmp(o->format, "json");
	int nr = 0, ret = 1;

	o->so.sz = sizeof(o->so);
	o->browse = use_browser(o);
	if (!o->browse && cli_pager_wanted)
		setup_pager(); /* text, on a terminal: through the pager (main.c) */
	if (input_open(&in, o->input, &o->so, o->force))
		goto out;
	if (o->dump) {
		ret = dump_raw_trace(&in, NULL);
		goto out;
	}
	if (o->header || o->header_only) {
		if (print_header(&in, o))
			goto out;
		if (o->header_only) {
			ret = 0;
			goto out;
		}
	}
	if (o->tasks || o->mmaps) {
		ret = report_tasks(&in, o->mmaps);
		goto out;
	}
	/* before --wall and the exports too: else --cpu quietly leaves them empty */
	if (o->has_cpu_filter && pcl_data_reader__nr_attrs(in.reader) > 0 &&
	    !(pcl_data_reader__attr(in.reader, 0)->attr.sample_type & PERF_SAMPLE_CPU)) {
		die_msg("'%s' has no CPU numbers for --cpu (record with -a, -C or --sample-cpu)",
			in.path);
		goto out;
	}
	if (o->x.wall && o->format && !strcmp(o->format, "json")) {
		die_msg("--wall has no json form: the json report shows offcpu-time as its own "
			"event");
		goto out;
	}
	if (o->x.wall && (o->sort || o->fields || o->graph || o->inverted || o->show_nr_samples)) {
		die_msg("--wall has its own columns: no -s, -F, -g or -n with it");
		goto out;
	}
	if (o->x.wall && !o->format) {
		ret = report_wall(&in, o->children > 0, o->percent_limit, export_passes, o);
		goto out;
	}
	if (o->format && strcmp(o->format, "json")) {
		o->x.format = o->format;
		o->x.pass = export_passes;
		o->x.pass_ctx = o;
		ret = report_export(&in, &o->x);
		goto out;
	}
	chains = has_callchain(in.reader);
	/*
	 * perf: caller order with children, callee without, unless -g says. For
	 * a stream perf decides before the events are declared: no children
	 * (even with --children, which pcl honours), yet the caller order.
	 */
	ho.caller_order = o->children != 0 && (chains || pcl_data_reader__is_pipe(in.reader));
	if (o->children < 0)
		o->children = chains && !pcl_data_reader__is_pipe(in.reader);
	if (o->has_percent_limit && !o->limit_after_graph)
		ro.graph_min_percent = o->percent_limit; /* a -g after it may name its own */
	if (o->graph && parse_graph(o->graph, &ro, &ho, &graph_off))
		goto out;
	if (o->inverted)
		ho.caller_order = true;
	if (o->has_percent_limit && o->limit_after_graph)
		ro.graph_min_percent = o->percent_limit;
	if (setup_keys(o, o->children && chains, &ho, &ro))
		goto out;
	if (json) {
		/* data, not columns: a key one filter pins down is still a field */
		memcpy(ro.keys, ho.keys, sizeof(ro.keys));
		ro.nr_keys = ho.nr_keys;
		o->group = 0; /* one object per event */
	}
	ho.children = o->children && chains;
	ho.callchain = chains && !graph_off;
	ho.symbols = in.symbols;
	ho.full_source_path = o->full_source_path;
	ho.parent_regex = o->parent;
	if (has_key(&ho, PCL_SORT_PARENT) && !chains) {
		die_msg("--sort parent needs call chains: '%s' has none (record with -g)", in.path);
		goto out;
	}
	ro.children = ho.children;
	if (!ho.callchain)
		ro.graph = PCL_GRAPH_NONE;
	ro.percent_limit = o->percent_limit;
	ro.dso_filter = o->lists.dso.n > 0;
	/*
	 * fractal shares are of the parent: a light entry can show its
	 * branches; and a relative share of an entry is larger than the
	 * absolute one the histogram would gate trees by
	 */
	if (ro.graph != PCL_GRAPH_REL && !o->relative)
		ho.tree_min_percent = ro.graph_min_percent;
	if (o->group < 0) {
		size_t glen = 0;

		o->group = pcl_data_reader__feature(in.reader, PCL_FEAT_GROUP_DESC, &glen) && glen > 4;
	}
	if (setup_groups(&in, &eh, &nr, o->group))
		goto oom;
	if (o->browse && !(o->annotate = pcl_annotate__new()))
		goto oom;
	ho.nr_members = o->group; /* a flag here: each leader's hists take its member count */
	if (read_samples(&in, o, &eh, &nr, &ho, &tv) < 0)
		goto out;
	/* in the header; the browser has none: the warning says it */
	in.unwind_shown = o->stats || (!json && !o->quiet && !o->browse);
	input_finish(&in);
	warn_symbols(&in);
	if (o->stats) {
		print_stats(&in, eh, nr);
		unwind_print_stats(stdout, &in);
		ret = 0;
		goto out;
	}
	if (json) {
		ret = report_json(&in, o, eh, nr, &ro);
		goto out;
	}
	for (int i = 0; i < nr; i++)
		any |= eh[i].nr_samples != 0;
	if (o->browse && any) {
		ret = report_browse(&in, o, eh, nr, &ro);
		if (ret >= 0)
			goto out;
		ret = 1;
		if (cli_pager_wanted)
			setup_pager();
	}
	/* where perf's browser says so: not two comment lines and silence */
	if (o->browse && !any)
		fprintf(stderr, "pcl: '%s' has no samples: nothing to browse\n", in.path);
	else if (!any && !pcl_data_reader__truncated(in.reader)) /* a cut file: that warning says it */
		fprintf(stderr, "pcl: '%s' has no samples\n", in.path); /* perf: "... has no samples!" */
	if (o->quiet)
		goto sections;
	if (!o->header)
		printf("# To display the perf.data header info, please use --header/--header-only "
		       "options.\n#\n");
	if (!any) {
		ret = fflush(stdout) ? 1 : 0; /* perf prints no more for a file without samples */
		goto out;
	}
	print_filters(o, &ho);
	printf("#\n# Total Lost Samples: %" PRIu64 "\n#\n",
	       pcl_data_events__stats(in.events)->total_lost_samples);
	unwind_print_header(stdout, &in);
sections:
	ro.quiet = o->quiet;
	ro.field_sep = o->field_sep;
	ro.color = cli_color(o->color);
	for (int i = 0; i < nr; i++) {
		if (!eh[i].nr_samples || (o->group && eh[i].leader != i))
			continue;
		uint64_t nr_shown;

		pcl_hists__finish(eh[i].h);
		ro.nr_members = o->group ? eh[i].nr_members : 0;
		ro.member_totals = eh[i].member_totals;
		set_totals(&eh[i], o->relative, &ro, &nr_shown);
		if (print_section(&in, &eh[i], i, &ro, nr_shown))
			goto out;
	}
	if (o->threads)
		values_print(&tv, &in);
	ret = fflush(stdout) ? 1 : 0;
	goto out;
oom:
	die_msg("out of memory");
out:
	for (int i = 0; i < nr; i++) {
		pcl_hists__free(eh[i].h);
		free(eh[i].group_name);
	}
	free(eh);
	pcl_annotate__free(o->annotate);
	o->annotate = NULL;
	free(tv.thr);
	free(tv.ctr);
	free(tv.value);
	input_close(&in);
	return ret;
}

/* Bad --sort and -g values are usage errors, found before the file is read. */
static int validate(const struct report_opts *o)
{
	struct pcl_field order[PCL_FIELDS_MAX], fields[PCL_FIELDS_MAX];
	struct pcl_report_opts ro = { 0 };
	struct pcl_hist_opts ho = { 0 };
	int no, nf;
	bool off;

	if (setup_order(o, false, order, &no, fields, &nf))
		return -1;
	if (o->parent) {
		regex_t re;

		if (regcomp(&re, o->parent, REG_EXTENDED | REG_NOSUB)) {
			die_msg("bad --parent regex '%s'", o->parent);
			return -1;
		}
		regfree(&re);
	}
	return o->graph ? parse_graph(o->graph, &ro, &ho, &off) : 0;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o = { .children = -1, .group = -1, .max_stack = -1, .color = -1 };
	int ret;

	if (parse_opts(argc, argv, &o) || validate(&o)) {
		ret = EXIT_USAGE;
	} else {
		/* | head: ends quietly, as pcl script does */
		output_catch_sigpipe();
		ret = stdout_finish(report(&o));
	}

	sample_lists_free(&o.lists);
	return ret;
}
