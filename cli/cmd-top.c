/* SPDX-License-Identifier: MIT */
/*
 * pcl top: a live profile of the whole system (perf top's default -a), of
 * processes (-p), threads (-t) or CPUs (-C), refreshed every -d seconds.
 *
 * This file reads the command line into struct top_opts, with perf top's
 * defaults: 4000 Hz of cycles (cpu-clock where there is no PMU), sorted by
 * dso,sym, decayed by 7/8 at each refresh (-z: zeroed), -g with children
 * and a caller-ordered graph of 0.5%. Every option of perf top 6.1 that
 * pcl does not implement is refused by name, never taken and ignored.
 * top-run.c does the rest.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pcl/pcl.h>
#include "cli.h"
#include "top.h"

enum {
	OPT_CALL_GRAPH = 256,
	OPT_CHILDREN,
	OPT_NO_CHILDREN,
	OPT_STDIO,
	OPT_TUI,
	OPT_PERCENT_LIMIT,
	OPT_KALLSYMS,
	OPT_UNSUPPORTED,
};

/* perf top 6.1's options pcl top does not have: refused by name. */
static const struct option unsupported[] = {
	{ "branch-any", no_argument, NULL, OPT_UNSUPPORTED },
	{ "dump-symtab", no_argument, NULL, OPT_UNSUPPORTED },
	{ "count-filter", required_argument, NULL, OPT_UNSUPPORTED },
	{ "cgroup", required_argument, NULL, OPT_UNSUPPORTED },
	{ "branch-filter", required_argument, NULL, OPT_UNSUPPORTED },
	{ "disassembler-style", required_argument, NULL, OPT_UNSUPPORTED },
	{ "realtime", required_argument, NULL, OPT_UNSUPPORTED },
	{ "uid", required_argument, NULL, OPT_UNSUPPORTED },
	{ "column-widths", required_argument, NULL, OPT_UNSUPPORTED },
	{ "all-cgroups", no_argument, NULL, OPT_UNSUPPORTED },
	{ "asm-raw", no_argument, NULL, OPT_UNSUPPORTED },
	{ "comms", required_argument, NULL, OPT_UNSUPPORTED },
	{ "demangle-kernel", no_argument, NULL, OPT_UNSUPPORTED },
	{ "dsos", required_argument, NULL, OPT_UNSUPPORTED },
	{ "fields", required_argument, NULL, OPT_UNSUPPORTED },
	{ "force", no_argument, NULL, OPT_UNSUPPORTED },
	{ "group", no_argument, NULL, OPT_UNSUPPORTED },
	{ "group-sort-idx", required_argument, NULL, OPT_UNSUPPORTED },
	{ "hierarchy", no_argument, NULL, OPT_UNSUPPORTED },
	{ "ignore-callees", required_argument, NULL, OPT_UNSUPPORTED },
	{ "ignore-vmlinux", no_argument, NULL, OPT_UNSUPPORTED },
	{ "max-stack", required_argument, NULL, OPT_UNSUPPORTED },
	{ "namespaces", no_argument, NULL, OPT_UNSUPPORTED },
	{ "no-bpf-event", no_argument, NULL, OPT_UNSUPPORTED },
	{ "num-thread-synthesize", required_argument, NULL, OPT_UNSUPPORTED },
	{ "objdump", required_argument, NULL, OPT_UNSUPPORTED },
	{ "overwrite", no_argument, NULL, OPT_UNSUPPORTED },
	{ "percentage", required_argument, NULL, OPT_UNSUPPORTED },
	{ "prefix", required_argument, NULL, OPT_UNSUPPORTED },
	{ "prefix-strip", required_argument, NULL, OPT_UNSUPPORTED },
	{ "proc-map-timeout", required_argument, NULL, OPT_UNSUPPORTED },
	{ "raw-trace", no_argument, NULL, OPT_UNSUPPORTED },
	{ "show-on-off-events", no_argument, NULL, OPT_UNSUPPORTED },
	{ "show-total-period", no_argument, NULL, OPT_UNSUPPORTED },
	{ "source", no_argument, NULL, OPT_UNSUPPORTED },
	{ "stitch-lbr", no_argument, NULL, OPT_UNSUPPORTED },
	{ "switch-off", required_argument, NULL, OPT_UNSUPPORTED },
	{ "switch-on", required_argument, NULL, OPT_UNSUPPORTED },
	{ "sym-annotate", required_argument, NULL, OPT_UNSUPPORTED },
	{ "symbols", required_argument, NULL, OPT_UNSUPPORTED },
	{ "addr2line", required_argument, NULL, OPT_UNSUPPORTED },
	{ "branch-history", no_argument, NULL, OPT_UNSUPPORTED },
	{ "filter", required_argument, NULL, OPT_UNSUPPORTED },
	{ "pfm-events", required_argument, NULL, OPT_UNSUPPORTED },
};

/* The short options of those, and the long name they go by. */
static const struct {
	char c;
	const char *name;
} unsupported_short[] = {
	{ 'b', "--branch-any" },   { 'D', "--dump-symtab" }, { 'f', "--count-filter" },
	{ 'G', "--cgroup" },	   { 'j', "--branch-filter" }, { 'M', "--disassembler-style" },
	{ 'r', "--realtime" },	   { 'u', "--uid" },	       { 'w', "--column-widths" },
};

static int refuse(const char *name)
{
	die_msg("option '%s' of perf top is not supported by pcl top; see 'pcl top -h'", name);
	return -1;
}

static int parse_freq(struct top_opts *o, const char *arg)
{
	uint64_t v;

	if (!strcmp(arg, "max")) {
		o->freq_max = true;
		return 0;
	}
	if (!parse_uint(arg, 10, 1, UINT_MAX, &v)) {
		die_msg("bad frequency '%s' (expected Hz, or 'max')", arg);
		return -1;
	}
	o->freq = (unsigned int)v;
	return 0;
}

static int parse_int_opt(const char *opt, const char *arg, int min, int *out)
{
	uint64_t v;

	if (!parse_uint(arg, 10, (uint64_t)min, INT_MAX, &v)) {
		die_msg("bad %s '%s' (expected a whole number >= %d)", opt, arg, min);
		return -1;
	}
	*out = (int)v;
	return 0;
}

/*
 * --call-graph: perf's "record_mode[,record_size],print_type,threshold
 * [,print_limit],order,sort_key[,branch]", its words in any order. Only
 * frame pointers are recorded here (dwarf needs an unwinder fed with the
 * registers' layout, lbr a PMU).
 */
static int parse_call_graph(struct top_opts *o, const char *arg)
{
	char *s = strdup(arg), *tok, *save = NULL;
	int ret = 0;

	if (!s)
		return -1;
	o->callchain = true;
	for (tok = strtok_r(s, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		double v;

		if (!strcmp(tok, "fp") || !strcmp(tok, "function") || !strcmp(tok, "graph")) {
			if (!strcmp(tok, "graph"))
				o->graph = PCL_GRAPH_ABS;
		} else if (!strcmp(tok, "dwarf") || !strcmp(tok, "lbr")) {
			die_msg("--call-graph %s is not supported by pcl top (fp is)", tok);
			ret = -1;
		} else if (!strcmp(tok, "address") || !strcmp(tok, "branch")) {
			die_msg("--call-graph's '%s' is not supported by pcl top", tok);
			ret = -1;
		} else if (!strcmp(tok, "fractal")) {
			o->graph = PCL_GRAPH_REL;
		} else if (!strcmp(tok, "flat")) {
			o->graph = PCL_GRAPH_FLAT;
		} else if (!strcmp(tok, "folded")) {
			o->graph = PCL_GRAPH_FOLDED;
		} else if (!strcmp(tok, "none")) {
			o->graph = PCL_GRAPH_NONE;
		} else if (!strcmp(tok, "caller")) {
			o->caller_order = true;
		} else if (!strcmp(tok, "callee")) {
			o->caller_order = false;
		} else if (!strcmp(tok, "percent")) {
			o->graph_value = PCL_GRAPH_PERCENT;
		} else if (!strcmp(tok, "period")) {
			o->graph_value = PCL_GRAPH_PERIOD;
		} else if (!strcmp(tok, "count")) {
			o->graph_value = PCL_GRAPH_COUNT;
		} else if ((v = strtod(tok, &end)), *end == '\0' && end != tok && v >= 0) {
			o->graph_min_percent = v;
		} else {
			die_msg("bad --call-graph option '%s' (fp, graph, fractal, flat, folded, "
				"none, a minimum percentage, caller, callee, function, percent, "
				"period, count)",
				tok);
			ret = -1;
		}
	}
	free(s);
	return ret;
}

static int add_event(struct top_opts *o, const char *spec)
{
	char **n = realloc(o->events, (size_t)(o->nr_events + 1) * sizeof(*n));

	if (!n) {
		die_msg("out of memory");
		return -1;
	}
	o->events = n;
	o->events[o->nr_events++] = (char *)spec;
	return 0;
}

static int parse_mmap_pages(struct top_opts *o, const char *arg)
{
	uint64_t v;

	if (!parse_uint(arg, 10, 1, 1u << 20, &v) || (v & (v - 1))) {
		die_msg("bad -m '%s' (a power of two number of pages)", arg);
		return -1;
	}
	o->mmap_pages = (unsigned int)v;
	return 0;
}

static int parse_one(struct top_opts *o, int c, char **argv, const struct option *longopts,
		     int li)
{
	int ret;

	switch (c) {
	case 'e':
		return add_event(o, optarg);
	case 'F':
		return parse_freq(o, optarg);
	case 'c':
		if (!parse_uint(optarg, 0, 1, UINT64_MAX, &o->period)) {
			die_msg("bad sample period '%s' (expected a count >= 1)", optarg);
			return -1;
		}
		return 0;
	case 'g':
		o->callchain = true;
		return 0;
	case OPT_CALL_GRAPH:
		return parse_call_graph(o, optarg);
	case OPT_CHILDREN:
		o->children = 1;
		return 0;
	case OPT_NO_CHILDREN:
		o->children = 0;
		return 0;
	case 'K':
		o->hide_kernel = true;
		return 0;
	case 'U':
		o->hide_user = true;
		return 0;
	case 'd':
		return parse_int_opt("-d (seconds between refreshes)", optarg, 1, &o->delay_secs);
	case 'z':
		o->zero = true;
		return 0;
	case 'E':
		return parse_int_opt("-E (entries shown)", optarg, 1, &o->entries);
	case 's':
		o->sort = optarg;
		return 0;
	case 'n':
		o->show_nr_samples = true;
		return 0;
	case OPT_STDIO:
		o->ui = TOP_UI_STDIO;
		return 0;
	case OPT_TUI:
		o->ui = TOP_UI_TUI;
		return 0;
	case OPT_PERCENT_LIMIT:
		return cli_parse_percent(optarg, &o->percent_limit);
	case 'k':
		o->so.vmlinux = optarg;
		return 0;
	case OPT_KALLSYMS:
		o->so.kallsyms = optarg;
		return 0;
	case 'm':
		return parse_mmap_pages(o, optarg);
	case 'v':
		o->verbose++;
		return 0;
	case 'h':
		print_usage("top", stdout);
		exit(0);
	case OPT_UNSUPPORTED: {
		char name[64];

		snprintf(name, sizeof(name), "--%s", longopts[li].name);
		return refuse(name);
	}
	}
	for (size_t i = 0; i < sizeof(unsupported_short) / sizeof(unsupported_short[0]); i++)
		if (c == unsupported_short[i].c) {
			char name[64];

			snprintf(name, sizeof(name), "-%c (%s)", c, unsupported_short[i].name);
			return refuse(name);
		}
	ret = parse_target_opt(&o->target, c, optarg);
	return ret < 0 ? -1 : ret ? 0 : option_error("top", c, argv);
}

#define NR_UNSUPPORTED (sizeof(unsupported) / sizeof(unsupported[0]))

static int parse_opts(int argc, char **argv, struct top_opts *o)
{
	static const struct option known[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "count", required_argument, NULL, 'c' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "vmlinux", required_argument, NULL, 'k' },
		{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
		{ "hide_kernel_symbols", no_argument, NULL, 'K' },
		{ "hide_user_symbols", no_argument, NULL, 'U' },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "delay", required_argument, NULL, 'd' },
		{ "no-inherit", no_argument, NULL, 'i' },
		{ "zero", no_argument, NULL, 'z' },
		{ "freq", required_argument, NULL, 'F' },
		{ "entries", required_argument, NULL, 'E' },
		{ "stdio", no_argument, NULL, OPT_STDIO },
		{ "tui", no_argument, NULL, OPT_TUI },
		{ "verbose", no_argument, NULL, 'v' },
		{ "sort", required_argument, NULL, 's' },
		{ "show-nr-samples", no_argument, NULL, 'n' },
		{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
		{ "children", no_argument, NULL, OPT_CHILDREN },
		{ "no-children", no_argument, NULL, OPT_NO_CHILDREN },
		{ "percent-limit", required_argument, NULL, OPT_PERCENT_LIMIT },
		{ "help", no_argument, NULL, 'h' },
	};
	enum { NK = sizeof(known) / sizeof(known[0]) };
	struct option longopts[NK + NR_UNSUPPORTED + 1];
	int c, li;

	memcpy(longopts, known, sizeof(known));
	memcpy(longopts + NK, unsupported, sizeof(unsupported));
	longopts[NK + NR_UNSUPPORTED] = (struct option){ NULL, 0, NULL, 0 };
	optind = 1;
	opterr = 0;
	while ((li = -1), (c = getopt_long(argc, argv, ":e:c:p:t:aC:k:KUm:d:izF:E:vs:ngbDf:G:j:M:r:u:w:h",
					   longopts, &li)) != -1)
		if (parse_one(o, c, argv, longopts, li))
			return -1;
	if (optind < argc) {
		/* perf top takes no command: it watches what runs */
		die_msg("unexpected argument '%s': pcl top runs no command (use -p PID, -t TID, "
			"-C CPUS or -a)",
			argv[optind]);
		return -1;
	}
	return 0;
}

static int validate(struct top_opts *o)
{
	struct pcl_target *t = &o->target;

	if (o->period && (o->freq || o->freq_max)) {
		die_msg("give a frequency (-F) or a period (-c), not both");
		return -1;
	}
	if ((t->pid || t->tid) && (t->system_wide || t->cpu_list)) {
		die_msg("give -p/-t or -a/-C, not both");
		return -1;
	}
	if (o->hide_kernel && o->hide_user) {
		die_msg("-K and -U together hide every symbol");
		return -1;
	}
	/* perf top's default target: the whole system */
	if (!t->pid && !t->tid && !t->cpu_list)
		t->system_wide = true;
	if (o->children < 0)
		o->children = o->callchain;
	return 0;
}

int cmd_top(int argc, char **argv)
{
	struct top_opts o = {
		.target = { .sz = sizeof(struct pcl_target) },
		.children = -1,
		.graph = PCL_GRAPH_ABS,
		.graph_min_percent = 0.5,
		.caller_order = true,
		.delay_secs = 2,
		.mmap_pages = 128,
		.so = { .sz = sizeof(struct pcl_symbol_opts) },
	};
	int ret;

	if (parse_opts(argc, argv, &o) || validate(&o)) {
		free(o.events);
		return EXIT_USAGE;
	}
	ret = top_run(&o);
	free(o.events);
	return ret;
}
