/* SPDX-License-Identifier: MIT */
/*
 * pcl record: sample events into a perf.data file that Linux perf reads.
 *
 * Flow: parse, set the sampling attrs, open per-CPU counters on the target
 * (a task target too: inherited events can only be mmap'ed per CPU), map
 * one ring per CPU and point every other fd of that CPU at it
 * (SET_OUTPUT), create the file with the attrs and their ids, synthesize
 * what the kernel will not tell us (the kernel map; the threads and maps of
 * processes that already run), then drain the rings in rounds until the
 * target ends or a signal comes, and close the file with its features.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <pcl/pcl.h>
#include "cli.h"
#include "record.h"
#include "run.h"

enum {
	OPT_CALL_GRAPH = 256,
	OPT_FREQ,
	OPT_SWITCH_EVENTS,
	OPT_SAMPLE_CPU,
	OPT_FP_LEAF,
	OPT_NO_FP_LEAF,
	OPT_CONTROL,
	OPT_SWITCH_OUTPUT,
	OPT_SWITCH_MAX_FILES,
	OPT_TIMESTAMP_FILENAME,
	OPT_ALL_USER,
	OPT_ALL_KERNEL,
	OPT_FILTER,
	OPT_PER_THREAD,
	OPT_USER_REGS,
	OPT_MAX_SIZE,
	OPT_NO_COMPRESSION,
	OPT_OVERWRITE,
	OPT_BUILDID_ALL,
	OPT_OFF_CPU,
};

/* x86_64 registers perf samples, by their bit in sample_regs_user/intr (asm/perf_regs.h) */
static const struct {
	const char *name;
	int bit;
} sample_regs[] = {
	{ "AX", 0 },   { "BX", 1 },   { "CX", 2 },   { "DX", 3 },   { "SI", 4 },
	{ "DI", 5 },   { "BP", 6 },   { "SP", 7 },   { "IP", 8 },   { "FLAGS", 9 },
	{ "CS", 10 },  { "SS", 11 },  { "R8", 16 },  { "R9", 17 },  { "R10", 18 },
	{ "R11", 19 }, { "R12", 20 }, { "R13", 21 }, { "R14", 22 }, { "R15", 23 },
};
#define NR_SAMPLE_REGS (sizeof(sample_regs) / sizeof(sample_regs[0]))

/*
 * --user-regs / --intr-regs[=REG,...]: all of them without a list, as
 * perf; '?' lists the names (on stdout, exit 0: a listing is no error).
 */
static int parse_regs(const char *opt, const char *arg, uint64_t *mask)
{
	char *copy, *tok, *save = NULL;

	*mask = 0;
	if (!arg || !*arg) {
		for (size_t i = 0; i < NR_SAMPLE_REGS; i++)
			*mask |= 1ull << sample_regs[i].bit;
		return 0;
	}
	if (!strcmp(arg, "?")) {
		printf("available registers:");
		for (size_t i = 0; i < NR_SAMPLE_REGS; i++)
			printf(" %s", sample_regs[i].name);
		printf(" \n");
		exit(0);
	}
	copy = strdup(arg);
	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < NR_SAMPLE_REGS && strcasecmp(tok, sample_regs[i].name); i++)
			;
		if (i == NR_SAMPLE_REGS) {
			die_msg("unknown register '%s' ('pcl record %s=?' lists them)", tok, opt);
			free(copy);
			return -1;
		}
		*mask |= 1ull << sample_regs[i].bit;
	}
	free(copy);
	if (!*mask) {
		die_msg("no register in '%s'", arg);
		return -1;
	}
	return 0;
}

/* --filter: for the events of the -e before it, as perf's */
static int add_filter(struct record_opts *o, const char *arg)
{
	struct record_filter *f;

	if (!o->nr_events) {
		die_msg("--filter must follow a -e tracepoint event it applies to");
		return -1;
	}
	f = realloc(o->filters, (size_t)(o->nr_filters + 1) * sizeof(*f));
	if (!f) {
		die_msg("out of memory");
		return -1;
	}
	o->filters = f;
	f[o->nr_filters++] = (struct record_filter){ o->nr_events, arg };
	return 0;
}

/* -g: user stack bytes kept per sample to repair the leaf's caller (docs/fpleaf.md) */
#define FP_LEAF_DEFAULT 64

static int parse_call_graph(struct record_opts *o, const char *arg)
{
	if (!strcmp(arg, "fp")) {
		o->call_graph = PCL_CALLCHAIN_FP;
		return 0;
	}
	if (!strncmp(arg, "dwarf", 5) && (!arg[5] || arg[5] == ',')) {
		o->call_graph = PCL_CALLCHAIN_DWARF;
		o->stack_size = 8192;
		if (arg[5] == ',') {
			uint64_t v;

			/* the kernel takes at most 64 KiB less a page, in u64 steps */
			if (!parse_uint(arg + 6, 0, 1, 65528, &v)) {
				die_msg("bad dwarf stack size '%s' (1..65528 bytes)", arg + 6);
				return -1;
			}
			o->stack_size = (uint32_t)((v + 7) & ~7ull);
		}
		return 0;
	}
	die_msg("bad call graph mode '%s' (fp or dwarf[,SIZE])", arg);
	return -1;
}

static int parse_fp_leaf(struct record_opts *o, const char *arg)
{
	uint64_t v;

	/* perf's sample_stack_user limit, in u64 steps; 0 turns the repair data off */
	if (!parse_uint(arg, 0, 0, 65528, &v)) {
		die_msg("bad leaf stack size '%s' (0..65528 bytes)", arg);
		return -1;
	}
	o->leaf_stack_size = (uint32_t)((v + 7) & ~7ull);
	return 0;
}

static int parse_freq(struct record_opts *o, const char *arg)
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

struct unit {
	char tag;
	uint64_t mult;
};

/*
 * A number with one unit letter after it, as perf's record takes sizes
 * (B, K, M, G) and times (s, m, h, d); @units pairs each letter with its
 * multiplier. Without its letter a number is not taken (perf neither).
 */
static bool parse_with_unit(const char *arg, const struct unit *units, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!*arg || *arg < '0' || *arg > '9')
		return false;
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || !*end || end[1])
		return false;
	for (; units->tag; units++) {
		if (*end == units->tag) {
			if (v > UINT64_MAX / units->mult)
				return false;
			*out = v * units->mult;
			return true;
		}
	}
	return false;
}

static const struct unit size_units[] = {
	{ 'B', 1 }, { 'K', 1ull << 10 }, { 'M', 1ull << 20 }, { 'G', 1ull << 30 }, { 0, 0 },
};
static const struct unit time_units[] = {
	{ 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 }, { 0, 0 },
};

/*
 * -m: a power of two, capped as perf caps it: the ring's bytes must fit in
 * 32 bits (the session's wakeup watermark is computed in them). A size is
 * rounded up to a power of two of pages, as perf rounds it.
 */
static int parse_mmap_pages(struct record_opts *o, const char *arg)
{
	uint64_t max = UINT_MAX / (unsigned int)getpagesize(), bytes, psz = (uint64_t)getpagesize();

	o->mmap_rounded = NULL;

	/* a size (perf's -m 20M, as perf daemon configs write it): pages, up to a power of two */
	if (parse_with_unit(arg, size_units, &bytes) && bytes && bytes <= max * psz) {
		o->mmap_pages = (bytes + psz - 1) / psz;
		while (o->mmap_pages & (o->mmap_pages - 1))
			o->mmap_pages = (o->mmap_pages | (o->mmap_pages - 1)) + 1;
		if (o->mmap_pages <= max) {
			/* said in validate() (unless -q), as perf says it */
			o->mmap_rounded = o->mmap_pages * psz != bytes ? arg : NULL;
			return 0;
		}
	}

	if (!parse_uint(arg, 0, 1, max, &o->mmap_pages) ||
	    (o->mmap_pages & (o->mmap_pages - 1))) {
		die_msg("bad mmap size '%s' (a power of two number of pages, at most %llu, or a "
			"size with B, K, M or G)",
			arg, (unsigned long long)(max + 1) / 2);
		return -1;
	}
	return 0;
}

/* -k: perf's clock names, or a number. */
static int parse_clockid(struct record_opts *o, const char *arg)
{
	static const struct {
		const char *name;
		int id;
	} clocks[] = {
		{ "monotonic", CLOCK_MONOTONIC },
		{ "monotonic_raw", CLOCK_MONOTONIC_RAW },
		{ "realtime", CLOCK_REALTIME },
		{ "boottime", CLOCK_BOOTTIME },
		{ "tai", CLOCK_TAI },
		{ "mono", CLOCK_MONOTONIC },
		{ "raw", CLOCK_MONOTONIC_RAW },
		{ "real", CLOCK_REALTIME },
		{ "boot", CLOCK_BOOTTIME },
	};
	const char *name = strncasecmp(arg, "CLOCK_", 6) ? arg : arg + 6;
	uint64_t v;

	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
		if (!strcasecmp(name, clocks[i].name)) {
			o->clockid = clocks[i].id;
			return 0;
		}
	}
	if (!parse_uint(arg, 0, 0, 63, &v)) {
		die_msg("unknown clock '%s' (monotonic, monotonic_raw, realtime, boottime, tai)",
			arg);
		return -1;
	}
	o->clockid = (int)v;
	return 0;
}

/* --switch-output[=signal|SIZE|TIME]: perf's default is the signal. */
static int parse_switch_output(struct record_opts *o, const char *arg)
{
	o->switch_output = o->timestamp_filename = true;
	o->switch_signal = false;
	o->switch_size = o->switch_secs = 0;
	if (!arg || !strcmp(arg, "signal")) {
		o->switch_signal = true;
		return 0;
	}
	if (parse_with_unit(arg, size_units, &o->switch_size) && o->switch_size)
		return 0;
	if (parse_with_unit(arg, time_units, &o->switch_secs) && o->switch_secs)
		return 0;
	die_msg("bad --switch-output '%s' (signal, a size with B, K, M or G, or a time with "
		"s, m, h or d)",
		arg);
	return -1;
}

static int parse_opts(int argc, char **argv, struct record_opts *o)
{
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "freq", required_argument, NULL, 'F' },
		{ "count", required_argument, NULL, 'c' },
		{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "no-inherit", no_argument, NULL, 'i' },
		{ "switch-events", no_argument, NULL, OPT_SWITCH_EVENTS },
		{ "stat", no_argument, NULL, 's' },
		{ "data", no_argument, NULL, 'd' },
		{ "timestamp", no_argument, NULL, 'T' },
		{ "sample-cpu", no_argument, NULL, OPT_SAMPLE_CPU },
		{ "period", no_argument, NULL, 'P' },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "clockid", required_argument, NULL, 'k' },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "fp-leaf", required_argument, NULL, OPT_FP_LEAF },
		{ "no-fp-leaf", no_argument, NULL, OPT_NO_FP_LEAF },
		{ "control", required_argument, NULL, OPT_CONTROL },
		{ "switch-output", optional_argument, NULL, OPT_SWITCH_OUTPUT },
		{ "switch-max-files", required_argument, NULL, OPT_SWITCH_MAX_FILES },
		{ "timestamp-filename", no_argument, NULL, OPT_TIMESTAMP_FILENAME },
		{ "all-user", no_argument, NULL, OPT_ALL_USER },
		{ "all-kernel", no_argument, NULL, OPT_ALL_KERNEL },
		{ "filter", required_argument, NULL, OPT_FILTER },
		{ "per-thread", no_argument, NULL, OPT_PER_THREAD },
		{ "no-buildid", no_argument, NULL, 'B' },
		{ "user-regs", optional_argument, NULL, OPT_USER_REGS },
		{ "intr-regs", optional_argument, NULL, 'I' },
		{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
		{ "compression-level", optional_argument, NULL, 'z' },
		{ "overwrite", no_argument, NULL, OPT_OVERWRITE },
		{ "no-compression-level", no_argument, NULL, OPT_NO_COMPRESSION },
		{ "buildid-all", no_argument, NULL, OPT_BUILDID_ALL },
		{ "off-cpu", no_argument, NULL, OPT_OFF_CPU },
		{ "no-buildid-cache", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:e:F:c:gp:t:aC:isdTPm:o:qhk:BI::z::N", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'e':
			if (add_string(&o->events, &o->nr_events, optarg))
				return -1;
			break;
		case 'F':
			if (parse_freq(o, optarg))
				return -1;
			break;
		case 'c':
			if (!parse_uint(optarg, 0, 1, UINT64_MAX, &o->period)) {
				die_msg("bad sample period '%s' (expected a count >= 1)", optarg);
				return -1;
			}
			break;
		case 'g':
			o->call_graph = PCL_CALLCHAIN_FP;
			break;
		case OPT_CALL_GRAPH:
			if (parse_call_graph(o, optarg))
				return -1;
			break;
		case OPT_FP_LEAF:
			if (parse_fp_leaf(o, optarg))
				return -1;
			break;
		case OPT_NO_FP_LEAF:
			o->leaf_stack_size = 0;
			break;
		case OPT_BUILDID_ALL:
			o->buildid_all = true;
			break;
		case OPT_OFF_CPU:
			o->off_cpu = true;
			break;
		case 'N':
			o->no_buildid_cache = true;
			break;
		case OPT_CONTROL:
			o->control = optarg; /* opened by record_run (record-control.c) */
			break;
		case OPT_SWITCH_EVENTS:
			o->switch_events = true;
			break;
		case OPT_SWITCH_OUTPUT:
			if (parse_switch_output(o, optarg))
				return -1;
			break;
		case OPT_SWITCH_MAX_FILES: {
			uint64_t v;

			if (!parse_uint(optarg, 10, 0, 1u << 20, &v)) {
				die_msg("bad --switch-max-files '%s' (a number of files)", optarg);
				return -1;
			}
			o->switch_max_files = (unsigned int)v;
			break;
		}
		case OPT_TIMESTAMP_FILENAME:
			o->timestamp_filename = true;
			break;
		case OPT_ALL_USER:
			o->all_user = true;
			break;
		case OPT_ALL_KERNEL:
			o->all_kernel = true;
			break;
		case OPT_FILTER:
			if (add_filter(o, optarg))
				return -1;
			break;
		case OPT_PER_THREAD:
			o->per_thread = true;
			break;
		case 'B':
			o->no_buildid = true;
			break;
		case OPT_USER_REGS:
			if (parse_regs("--user-regs", optarg, &o->user_regs))
				return -1;
			break;
		case 'I':
			if (parse_regs("--intr-regs", optarg, &o->intr_regs))
				return -1;
			break;
		case 'z': {
			uint64_t v = 1;

			/* perf's: 0 means the default (1), above zstd's 22 means 22 */
			if (optarg && !parse_uint(optarg, 10, 0, 1000000, &v)) {
				die_msg("bad compression level '%s' (1 fastest .. 22 smallest)",
					optarg);
				return -1;
			}
			o->compression_level = v == 0 ? 1 : v > 22 ? 22 : (int)v;
			break;
		}
		case OPT_OVERWRITE:
			o->overwrite = true;
			break;
		case OPT_NO_COMPRESSION:
			o->compression_level = 0;
			break;
		case OPT_MAX_SIZE:
			if (!parse_with_unit(optarg, size_units, &o->max_size) &&
			    !parse_uint(optarg, 10, 0, UINT64_MAX, &o->max_size)) {
				die_msg("bad --max-size '%s' (bytes, or a size with B, K, M or G)",
					optarg);
				return -1;
			}
			break;
		case 's':
			o->inherit_stat = true;
			break;
		case 'd':
			o->data_addr = true;
			break;
		case 'T':
			o->timestamps = true;
			break;
		case OPT_SAMPLE_CPU:
			o->sample_cpu = true;
			break;
		case 'P':
			o->sample_period = true;
			break;
		case 'm':
			if (parse_mmap_pages(o, optarg))
				return -1;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'k':
			if (parse_clockid(o, optarg))
				return -1;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			print_usage("record", stdout);
			exit(0);
		default:
			ret = parse_target_opt(&o->target, c, optarg);
			if (ret <= 0)
				return ret < 0 ? -1 : option_error("record", c, argv);
			break;
		}
	}
	if (optind < argc)
		o->argv = argv + optind;
	return 0;
}

static int validate(struct record_opts *o)
{
	struct stat st;

	if (!o->argv && !o->target.pid && !o->target.tid && !o->target.system_wide &&
	    !o->target.cpu_list) {
		die_msg("nothing to record: give a command, -p PID, -t TID, -a or -C CPUS");
		print_usage("record", stderr);
		return -1;
	}
	if (o->all_user && o->all_kernel) {
		die_msg("give --all-user or --all-kernel, not both");
		return -1;
	}
	if (o->off_cpu && o->overwrite) {
		die_msg("--off-cpu and --overwrite do not go together (a flight recorder loses "
			"the switches that pair up)");
		return -1;
	}
	if (o->period && (o->freq || o->freq_max)) {
		die_msg("give a frequency (-F) or a period (-c), not both");
		return -1;
	}
	if (!o->output)
		o->output = "perf.data";
	if (!o->mmap_pages)
		o->mmap_pages = 128;
	if (o->mmap_rounded && !o->quiet)
		fprintf(stderr, "pcl: rounding mmap size '%s' up to %llu KiB (%llu pages)\n",
			o->mmap_rounded,
			(unsigned long long)(o->mmap_pages * (uint64_t)getpagesize() >> 10),
			(unsigned long long)o->mmap_pages);
	/* a stream has no file to rename (perf's switch fails on a pipe too) */
	if (o->timestamp_filename && (!strcmp(o->output, "-") || !stat(o->output, &st)) &&
	    (!strcmp(o->output, "-") || S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))) {
		die_msg("--switch-output and --timestamp-filename need a file, not a pipe (-o -)");
		return -1;
	}
	return 0;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o = {
		.target = { .sz = sizeof(struct pcl_target) },
		.clockid = -1,
		.leaf_stack_size = FP_LEAF_DEFAULT,
	};
	int ret;

	if (parse_opts(argc, argv, &o) || validate(&o)) {
		free(o.events);
		free(o.filters);
		return EXIT_USAGE;
	}
	ret = record_run(&o, argc + 1, argv - 1);
	free(o.events);
	free(o.filters);
	return ret;
}
