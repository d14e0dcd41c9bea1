/* SPDX-License-Identifier: MIT */
/*
 * pcl stat: count events for a command, pids/tids, CPUs or a cgroup, and
 * print them as perf stat does. Parse, validate, run each repeat (open,
 * start, wait, read, close), print, and exit with the command's status.
 *
 * Waiting is one ppoll() loop for every target: a pidfd per process to
 * watch, a timeout for interval printing, and SIGINT/SIGTERM unblocked only
 * inside ppoll so a signal can never slip in between a check and the sleep.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <pcl/pcl.h>
#include "cli.h"
#include "run.h"
#include "stat-data.h"

#define DEFAULT_EVENTS                                                                             \
	"task-clock,context-switches,cpu-migrations,page-faults,cycles,instructions,branches,"     \
	"branch-misses"
#define DEFAULT_EVENTS_CPU                                                                         \
	"cpu-clock,context-switches,cpu-migrations,page-faults,cycles,instructions,branches,"      \
	"branch-misses"

#define MAX_METRICS	  64
#define MAX_METRIC_EVENTS 32

/* A -M metric and the evlist indexes of its formula's events. */
struct stat_metric_use {
	const struct pcl_metric *m;
	char names[MAX_METRIC_EVENTS][128];
	int idx[MAX_METRIC_EVENTS];
	int n;
};

struct stat_opts {
	char **events;
	int nr_events;
	char **metric_args; /* -M NAME|GROUP,... as given */
	int nr_metric_args;
	struct stat_metric_use metrics[MAX_METRICS];
	int nr_metrics;
	bool metric_only;
	bool metric_no_merge; /* each metric counts its own events */
	struct pcl_target target;
	struct pcl_stat_config cfg;
	int repeat;
	long interval_ms;
	long interval_count; /* --interval-count: stop printing after this many, 0 for no end */
	bool summary;	     /* --summary: the totals after the intervals too */
	bool no_csv_summary; /* --no-csv-summary: without the "summary" CSV column */
	const char *output;
	bool null_run;
	bool big_num_set;
	char *all_threads; /* -a --per-thread: every pid on the system */
	char **argv;	   /* the command, or NULL */
	bool record;	   /* pcl stat record: also write counts to data_path */
	const char *data_path;
	struct stat_writer *sw;
	int pcl_argc; /* pcl's own command line, for the file's cmdline */
	char **pcl_argv;
};

enum {
	OPT_PER_CORE = 256,
	OPT_PER_SOCKET,
	OPT_PER_THREAD,
	OPT_NO_BIG_NUM,
	OPT_INTERVAL_COUNT,
	OPT_SUMMARY,
	OPT_NO_CSV_SUMMARY,
	OPT_PER_NODE,
	OPT_PER_DIE,
	OPT_NO_MERGE,
	OPT_METRIC_ONLY,
	OPT_METRIC_NO_GROUP,
	OPT_METRIC_NO_MERGE,
};

static int parse_opts(int argc, char **argv, struct stat_opts *o)
{
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "metrics", required_argument, NULL, 'M' },
		{ "metric-only", no_argument, NULL, OPT_METRIC_ONLY },
		{ "metric-no-group", no_argument, NULL, OPT_METRIC_NO_GROUP },
		{ "metric-no-merge", no_argument, NULL, OPT_METRIC_NO_MERGE },
		{ "repeat", required_argument, NULL, 'r' },
		{ "interval-print", required_argument, NULL, 'I' },
		{ "field-separator", required_argument, NULL, 'x' },
		{ "json", no_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "cgroup", required_argument, NULL, 'G' },
		{ "no-inherit", no_argument, NULL, 'i' },
		{ "no-aggr", no_argument, NULL, 'A' },
		{ "per-core", no_argument, NULL, OPT_PER_CORE },
		{ "per-socket", no_argument, NULL, OPT_PER_SOCKET },
		{ "per-die", no_argument, NULL, OPT_PER_DIE },
		{ "per-node", no_argument, NULL, OPT_PER_NODE },
		{ "interval-count", required_argument, NULL, OPT_INTERVAL_COUNT },
		{ "summary", no_argument, NULL, OPT_SUMMARY },
		{ "no-merge", no_argument, NULL, OPT_NO_MERGE },
		{ "no-csv-summary", no_argument, NULL, OPT_NO_CSV_SUMMARY },
		{ "per-thread", no_argument, NULL, OPT_PER_THREAD },
		{ "big-num", no_argument, NULL, 'B' },
		{ "no-big-num", no_argument, NULL, OPT_NO_BIG_NUM },
		{ "null", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;
	uint64_t v;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:e:M:r:I:x:jo:p:t:aC:G:iABnh", longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (add_string(&o->events, &o->nr_events, optarg))
				return -1;
			break;
		case 'M':
			if (add_string(&o->metric_args, &o->nr_metric_args, optarg))
				return -1;
			break;
		case OPT_METRIC_NO_GROUP:
			/* pcl never groups a metric's events (see add_metric_events) */
			break;
		case OPT_METRIC_NO_MERGE:
			o->metric_no_merge = true;
			break;
		case OPT_METRIC_ONLY:
			o->metric_only = true;
			o->cfg.metric_only = true;
			break;
		case 'r':
			if (!parse_uint(optarg, 10, 1, 100000, &v)) {
				die_msg("bad repeat count '%s' (expected a number >= 1)", optarg);
				return -1;
			}
			o->repeat = (int)v;
			break;
		case 'I':
			if (!parse_uint(optarg, 10, 10, INT_MAX, &v)) {
				die_msg("bad interval '%s' (expected milliseconds >= 10)", optarg);
				return -1;
			}
			o->interval_ms = v;
			break;
		case OPT_INTERVAL_COUNT:
			/* 0: no end, as perf takes it (a script may pass its default through) */
			if (!parse_uint(optarg, 10, 0, INT_MAX, &v)) {
				die_msg("bad interval count '%s' (expected a number, 0 for no end)",
					optarg);
				return -1;
			}
			o->interval_count = (long)v;
			break;
		case OPT_NO_MERGE:
			/* each event already prints as its own row: pcl merges no aliases */
			break;
		case OPT_SUMMARY:
			o->summary = true;
			break;
		case OPT_NO_CSV_SUMMARY:
			o->no_csv_summary = true;
			break;
		case 'x':
			if (!*optarg) {
				die_msg("empty field separator given to -x");
				return -1;
			}
			o->cfg.format = PCL_STAT_CSV;
			o->cfg.csv_sep = optarg;
			break;
		case 'j':
			o->cfg.format = PCL_STAT_JSON;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'G':
			o->target.cgroup = optarg;
			break;
		case 'A':
			o->cfg.aggr = PCL_AGGR_NONE;
			break;
		case OPT_PER_CORE:
			o->cfg.aggr = PCL_AGGR_CORE;
			break;
		case OPT_PER_SOCKET:
			o->cfg.aggr = PCL_AGGR_SOCKET;
			break;
		case OPT_PER_DIE:
			o->cfg.aggr = PCL_AGGR_DIE;
			break;
		case OPT_PER_NODE:
			o->cfg.aggr = PCL_AGGR_NODE;
			break;
		case OPT_PER_THREAD:
			o->cfg.aggr = PCL_AGGR_THREAD;
			break;
		case 'B':
			o->cfg.big_num = true;
			o->big_num_set = true;
			break;
		case OPT_NO_BIG_NUM:
			o->cfg.big_num = false;
			o->big_num_set = true;
			break;
		case 'n':
			o->null_run = true;
			break;
		case 'h':
			print_usage("stat", stdout);
			exit(0);
		default:
			ret = parse_target_opt(&o->target, c, optarg);
			if (ret <= 0)
				return ret < 0 ? -1 : option_error("stat", c, argv);
			break;
		}
	}
	if (optind < argc)
		o->argv = argv + optind;
	return 0;
}

/* "1,2,3..." of every process in /proc, or NULL. */
static char *all_pids(void)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	DIR *d = opendir("/proc");
	struct dirent *de;
	int n = 0;

	if (!f || !d) {
		if (f)
			fclose(f);
		free(s);
		if (d)
			closedir(d);
		return NULL;
	}
	while ((de = readdir(d)))
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9')
			fprintf(f, "%s%s", n++ ? "," : "", de->d_name);
	closedir(d);
	fclose(f);
	return s;
}

static bool has_cpus(const struct stat_opts *o)
{
	return o->target.system_wide || o->target.cpu_list || o->target.cgroup;
}

static int validate(struct stat_opts *o)
{

	/* as perf: nothing named to count means the whole system, until Ctrl-C (or -I's count) */
	if (!o->argv && !o->target.pid && !o->target.tid && !has_cpus(o))
		o->target.system_wide = true;
	if (o->target.cgroup && !o->target.cpu_list)
		o->target.system_wide = true; /* a cgroup is counted per CPU */
	if (o->cfg.aggr != PCL_AGGR_GLOBAL && o->cfg.aggr != PCL_AGGR_THREAD && !has_cpus(o)) {
		die_msg("per-CPU, per-core, per-die, per-socket and per-node counts need CPUs to "
			"count on (-a or -C)");
		return -1;
	}
	if (o->cfg.aggr == PCL_AGGR_THREAD && !o->target.pid && !o->target.tid &&
	    !o->target.system_wide) {
		die_msg("--per-thread needs -p, -t or -a");
		return -1;
	}
	if (o->cfg.aggr == PCL_AGGR_THREAD && o->target.system_wide) {
		/* like perf: every thread on the system, each counted on any CPU */
		o->all_threads = all_pids();
		if (!o->all_threads) {
			die_msg("cannot list the processes in /proc: %s", strerror(errno));
			return -1;
		}
		o->target.system_wide = false;
		o->target.pid = o->all_threads;
		o->target.ignore_missing = true; /* some will exit before they are opened */
	}
	if (o->interval_count && !o->interval_ms) {
		die_msg("--interval-count needs -I (the interval to count)");
		return -1;
	}
	if (o->interval_ms && o->repeat > 1) {
		die_msg("-I and -r cannot be used together");
		return -1;
	}
	if (o->null_run && o->nr_events) {
		die_msg("-n counts nothing; drop it or the -e events");
		return -1;
	}
	if (!o->repeat)
		o->repeat = 1;
	if (o->record) {
		if (o->repeat > 1) {
			die_msg("stat record writes one run: drop -r");
			return -1;
		}
		/* as in perf stat record, -o names the data file; counts still print */
		o->data_path = o->output ? o->output : "perf.data";
		o->output = NULL;
	}
	if (!o->big_num_set)
		o->cfg.big_num = o->cfg.format == PCL_STAT_STD;
	o->cfg.run_count = o->repeat;
	/* perf marks the totals' CSV rows with a "summary" column unless told not to */
	o->cfg.csv_summary = o->summary && !o->no_csv_summary;
	return 0;
}

static char *target_desc(const struct stat_opts *o)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	if (o->target.system_wide || o->all_threads)
		fprintf(f, "'system wide'");
	else if (o->target.cpu_list)
		fprintf(f, "'CPU(s) %s'", o->target.cpu_list);
	else if (o->target.pid)
		fprintf(f, "process id '%s'", o->target.pid);
	else if (o->target.tid)
		fprintf(f, "thread id '%s'", o->target.tid);
	else {
		fputc('\'', f);
		for (char **a = o->argv; *a; a++)
			fprintf(f, "%s%s", a == o->argv ? "" : " ", *a);
		fputc('\'', f);
	}
	fclose(f);
	return s;
}

static int add_events(struct stat_opts *o, struct pcl_evlist *el)
{
	struct pcl_parse_error err;
	const char *def =
		o->target.system_wide || o->target.cpu_list ? DEFAULT_EVENTS_CPU : DEFAULT_EVENTS;

	for (int i = 0; i < o->nr_events; i++) {
		if (pcl_evlist__add(el, o->events[i], &err) < 0) {
			die_msg("%s", err.msg[0] ? err.msg : pcl_last_error());
			return -1;
		}
	}
	if (!o->nr_events && !o->nr_metric_args && pcl_evlist__add(el, def, &err) < 0) {
		die_msg("%s", err.msg);
		return -1;
	}
	if (pcl_evlist__user_only_fallback(el) > 0) {
		struct pcl_sys_caps caps = { .sz = sizeof(caps) };

		pcl_sys_probe(&caps);
		fprintf(stderr,
			"pcl: perf_event_paranoid is %d and this user may not count the kernel: "
			"counting user space only (:u)\n",
			caps.perf_event_paranoid);
	}
	return 0;
}

/* Add metric @m (once) to @o->metrics. */
static int use_metric(struct stat_opts *o, const struct pcl_metric *m)
{
	for (int i = 0; i < o->nr_metrics; i++)
		if (o->metrics[i].m == m)
			return 0;
	if (o->nr_metrics == MAX_METRICS) {
		die_msg("too many metrics (at most %d)", MAX_METRICS);
		return -1;
	}
	o->metrics[o->nr_metrics++].m = m;
	return 0;
}

/*
 * Each -M word: a metric, every metric of a group, or "all"; matched
 * without regard to case, as perf matches them. Unknown names are an error.
 */
static int resolve_metric_word(struct stat_opts *o, const char *w)
{
	const struct pcl_metric *m;
	int found = 0;

	for (int i = 0; (m = pcl_metrics(i)); i++) {
		if (strcasecmp(w, "all") && strcasecmp(m->name, w) && strcasecmp(m->group, w))
			continue;
		found++;
		if (use_metric(o, m))
			return -1;
	}
	if (found)
		return 0;
	if (pcl_metric_table())
		die_msg("metric or metric group '%s' not found (see 'pcl list metrics')", w);
	else
		die_msg("metric '%s' not found: pcl has no metrics for this CPU", w);
	return -1;
}

static int resolve_metric_args(struct stat_opts *o)
{
	for (int a = 0; a < o->nr_metric_args; a++) {
		char *list = strdup(o->metric_args[a]), *rest = list, *w;
		int ret = 0;

		if (!list) {
			die_msg("out of memory");
			return -1;
		}
		/* an empty name ('-M a,,b', '-M ""') is a typo, not "no metric" */
		while (!ret && (w = strsep(&rest, ","))) {
			if (!*w) {
				die_msg("-M '%s': empty metric name (see 'pcl list metrics')",
					o->metric_args[a]);
				ret = -1;
			} else {
				ret = resolve_metric_word(o, w);
			}
		}
		free(list);
		if (ret)
			return -1;
	}
	return 0;
}

struct metric_add_ctx {
	struct stat_opts *o;
	struct stat_metric_use *u;
	struct pcl_evlist *el;
};

/* The first line of a small file, without its newline; -1 if it cannot be read. */
static int read_file_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return -1;
	ok = fgets(buf, (int)size, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/*
 * A package-wide (uncore) PMU, such as amd_l3 or amd_df: sysfs gives it a
 * cpumask, the one CPU per package that reads it. The kernel serves an
 * open on any CPU of the package from that one counter, so counting such
 * an event on every CPU would add the package's count once per CPU; pcl's
 * counting does not yet follow the cpumask, so it refuses rather than
 * print a multiple of the truth.
 */
static int check_uncore(const struct stat_opts *o, const struct pcl_event *ev)
{
	char path[256], mask[256];

	if (!o->target.system_wide && !o->target.cpu_list)
		return 0; /* per task: the kernel refuses it, and it shows <not supported> */
	if (!ev->pmu || !pcl_pmu__is_kernel(ev->pmu) || !pcl_pmu__find(pcl_pmu__name(ev->pmu)))
		return 0;
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/cpumask",
		 pcl_pmu__name(ev->pmu));
	if (read_file_line(path, mask, sizeof(mask)) < 0)
		return 0;
	if (o->target.cpu_list && !strcmp(o->target.cpu_list, mask))
		return 0;
	die_msg("event '%s' counts per package on PMU '%s': give -C %s (its cpumask), "
		"pcl does not yet pick those CPUs itself",
		ev->name, pcl_pmu__name(ev->pmu), mask);
	return -EINVAL;
}

/* One event of a formula: counted once for all the metrics that read it. */
static int add_metric_event(void *ctx, const char *name)
{
	struct metric_add_ctx *c = ctx;
	struct pcl_parse_error err;
	int idx = -1;

	if (c->u->n == MAX_METRIC_EVENTS) {
		die_msg("metric '%s' reads too many events", c->u->m->name);
		return -E2BIG;
	}
	for (int i = 0; i < c->o->nr_metrics && idx < 0 && !c->o->metric_no_merge; i++) {
		const struct stat_metric_use *u = &c->o->metrics[i];

		for (int k = 0; k < u->n; k++)
			if (!strcmp(u->names[k], name))
				idx = u->idx[k];
	}
	if (idx < 0) {
		idx = pcl_evlist__nr(c->el);
		if (pcl_evlist__add(c->el, name, &err) < 0) {
			die_msg("metric '%s': %s", c->u->m->name,
				err.msg[0] ? err.msg : pcl_last_error());
			return -EINVAL;
		}
		if (check_uncore(c->o, pcl_evlist__event(c->el, idx)))
			return -EINVAL;
	}
	snprintf(c->u->names[c->u->n], sizeof(c->u->names[0]), "%s", name);
	c->u->idx[c->u->n++] = idx;
	return 0;
}

/*
 * The events of every -M metric, ungrouped: perf puts each metric's events
 * in a weak group, which pcl does not split when the PMU is short of
 * counters; ungrouped, the kernel multiplexes them and the counts are
 * scaled by their running time.
 */
static int add_metric_events(struct stat_opts *o, struct pcl_evlist *el)
{
	if (resolve_metric_args(o))
		return -1;
	for (int i = 0; i < o->nr_metrics; i++) {
		struct metric_add_ctx c = { o, &o->metrics[i], el };

		if (pcl_metric_expr_events(o->metrics[i].m->expr, add_metric_event, &c))
			return -1;
	}
	return 0;
}

static int attach_metrics(struct stat_opts *o, struct pcl_stat *st)
{
	for (int i = 0; i < o->nr_metrics; i++) {
		const struct stat_metric_use *u = &o->metrics[i];
		const char *names[MAX_METRIC_EVENTS];

		for (int k = 0; k < u->n; k++)
			names[k] = u->names[k];
		if (pcl_stat__add_metric(st, u->m->name, u->m->expr, u->m->scale_unit, names,
					 u->idx, u->n)) {
			die_msg("%s", pcl_last_error());
			return -1;
		}
	}
	return 0;
}

/*
 * perf stat record into a pipe prints no counts: the stream carries them to
 * 'stat report -i -', and a terminal would show them twice.
 */
static bool prints_counts(const struct stat_opts *o)
{
	return !o->record || strcmp(o->data_path, "-");
}

/* Print the interval that ends now. */
static void interval_tick(struct stat_opts *o, struct run *r, struct pcl_evlist *el,
			  struct pcl_stat *st, FILE *out, uint64_t now)
{
	struct timespec ts = {
		.tv_sec = (time_t)((now - r->start_ns) / 1000000000ull),
		.tv_nsec = (long)((now - r->start_ns) % 1000000000ull),
	};

	pcl_evlist__read(el);
	if (prints_counts(o))
		pcl_stat__print_interval(st, out, &ts, now - r->last_ns);
	if (o->sw)
		stat_writer_round(o->sw, false, now - r->start_ns);
	r->last_ns = now;
}

/*
 * How long ppoll may sleep: until the next interval; at most 100 ms when
 * something can only be checked by looking (-t threads, a workload without a
 * pidfd); for ever (NULL) when only a pidfd or a signal can end the wait.
 */
static struct timespec *poll_timeout(const struct run *r, uint64_t interval_ns, uint64_t next,
				     uint64_t now, struct timespec *tmo)
{
	bool look = r->watch.ntids || (r->wl && !r->watch.nfds);
	uint64_t wait = interval_ns ? next - now : 100000000ull;

	if (!interval_ns && !look)
		return NULL;
	if (look && wait > 100000000ull)
		wait = 100000000ull;
	tmo->tv_sec = (time_t)(wait / 1000000000ull);
	tmo->tv_nsec = (long)(wait % 1000000000ull);
	return tmo;
}

/* Wait until the target is done or a signal came, printing intervals. */
static void wait_loop(struct stat_opts *o, struct run *r, struct pcl_evlist *el,
		      struct pcl_stat *st, FILE *out, const sigset_t *waitmask)
{
	uint64_t interval = (uint64_t)o->interval_ms * 1000000ull, next = r->start_ns + interval;
	struct timespec tmo;
	long ticks = 0;

	r->last_ns = r->start_ns;
	while (!got_signal) {
		uint64_t now = now_ns();

		if (interval && now >= next) {
			interval_tick(o, r, el, st, out, now);
			while (next <= now)
				next += interval;
			if (o->interval_count && ++ticks >= o->interval_count) {
				/*
				 * as perf: no more intervals; a command still runs to its end,
				 * but --summary totals what the intervals showed
				 */
				interval = 0;
				r->intervals_done = true;
				if (!r->wl)
					break;
				continue;
			}
		}
		if (reap(r, WNOHANG) || watch_done(&r->watch))
			break;
		ppoll(r->watch.fds, (nfds_t)r->watch.nfds,
		      poll_timeout(r, interval, next, now, &tmo), waitmask);
	}
	/*
	 * After Ctrl-C the workload got the signal too (same process group) and
	 * ends by itself; a signal sent to pcl alone must still end it, so give
	 * it a moment and then pass SIGTERM on, as perf does.
	 */
	if (r->wl && !r->exited && got_signal) {
		struct timespec grace = { 0, 500000000 };

		if (r->watch.nfds)
			ppoll(r->watch.fds, 1, &grace, waitmask);
		if (!reap(r, WNOHANG))
			kill(pcl_workload__pid(r->wl), SIGTERM);
	}
	if (r->wl && !r->exited)
		reap(r, 0);
	/* the last, partial interval, as perf prints it */
	if (interval && !got_signal && now_ns() > r->last_ns + 1000000ull)
		interval_tick(o, r, el, st, out, now_ns());
}

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static int run_once(struct stat_opts *o, struct pcl_evlist *el, struct pcl_stat **st, FILE *out,
		    const sigset_t *waitmask, int *exit_code)
{
	struct run r = { 0 };
	struct rusage ru = { 0 };
	uint64_t wall;
	int ret;

	if (o->argv) {
		r.wl = pcl_workload__prepare(o->argv);
		if (!r.wl) {
			die_msg("cannot start '%s': %s", o->argv[0], strerror(errno));
			return -1;
		}
	}
	if (!o->null_run) {
		ret = pcl_evlist__open(el, &o->target,
				       has_cpus(o) || o->target.pid || o->target.tid ? NULL : r.wl);
		if (ret) {
			die_msg("%s", pcl_last_error());
			pcl_workload__free(r.wl);
			return -1;
		}
		note_probe_no_inherit(el, o->target.no_inherit);
		/*
		 * perf 6.1 fails when a group's leader cannot be counted ("The cycles
		 * event is not supported."): its members would all read nothing.
		 */
		for (int i = 0; i < pcl_evlist__nr(el); i++) {
			const struct pcl_event *ev = pcl_evlist__event(el, i);

			if (ev->leader == i && ev->nr_members > 1 &&
			    pcl_evlist__state(el, i) == PCL_EVSEL_NOT_SUPPORTED) {
				die_msg("event '%s' is not supported, and the group it leads cannot "
					"be counted without it (take it out of the braces)",
					ev->name);
				pcl_evlist__close_counters(el);
				pcl_workload__free(r.wl);
				return -1;
			}
		}
		/* a user-space source this machine lacks says why, once (the kernel's are silent) */
		for (int i = 0; i < pcl_evlist__nr(el) && !*st; i++) {
			const char *why = pcl_evlist__open_error(el, i);

			if (why && pcl_evlist__state(el, i) == PCL_EVSEL_NOT_SUPPORTED &&
			    !pcl_pmu__is_kernel(pcl_evlist__event(el, i)->pmu))
				die_msg("%s", why);
		}
	}
	if (o->record && !o->sw) {
		o->sw = stat_writer_create(o->data_path, el, &o->cfg, o->interval_ms, o->pcl_argc,
					   o->pcl_argv);
		if (!o->sw) {
			pcl_workload__free(r.wl);
			return -1;
		}
	}
	if (!*st) {
		o->cfg.sz = sizeof(o->cfg);
		*st = pcl_stat__new(&o->cfg, el);
		if (!*st || attach_metrics(o, *st)) {
			if (!*st)
				die_msg("out of memory");
			pcl_workload__free(r.wl);
			return -1;
		}
	}
	if (r.wl) {
		watch_pidfd(&r.watch, pcl_workload__pid(r.wl));
		r.watch.workload = true;
	}
	if (o->target.pid && !o->all_threads)
		watch_pids(&r.watch, o->target.pid, false);
	if (o->target.tid)
		watch_pids(&r.watch, o->target.tid, true);
	r.start_ns = now_ns();
	if (!o->null_run)
		pcl_evlist__enable(el);
	if (r.wl) {
		ret = pcl_workload__start(r.wl);
		if (ret) {
			die_msg("cannot run '%s': %s", o->argv[0], pcl_strerror(ret));
			pcl_workload__free(r.wl);
			watch_close(&r.watch);
			*exit_code = 127;
			return -1;
		}
	}
	wait_loop(o, &r, el, *st, out, waitmask);
	wall = now_ns() - r.start_ns;
	if (!o->null_run) {
		pcl_evlist__disable(el);
		if (!r.intervals_done)
			pcl_evlist__read(el);
	}
	if (r.wl)
		pcl_workload__rusage(r.wl, &ru);
	if (pcl_stat__add_run(*st, wall, tv_s(ru.ru_utime), tv_s(ru.ru_stime))) {
		die_msg("%s", pcl_last_error());
		pcl_workload__free(r.wl);
		return -1;
	}
	if (o->sw && !o->interval_ms && stat_writer_round(o->sw, true, wall)) {
		die_msg("%s", pcl_last_error());
		pcl_workload__free(r.wl);
		return -1;
	}
	if (!o->null_run)
		pcl_evlist__close_counters(el);
	watch_close(&r.watch);
	if (r.exited) {
		if (WIFEXITED(r.status)) {
			*exit_code = WEXITSTATUS(r.status);
		} else if (WIFSIGNALED(r.status)) {
			*exit_code = 128 + WTERMSIG(r.status);
			if (WTERMSIG(r.status) != SIGINT)
				fprintf(stderr, "%s: %s\n", o->argv[0],
					strsignal(WTERMSIG(r.status)));
		}
	}
	pcl_workload__free(r.wl);
	return 0;
}

/* -o's file: a write that failed (a full disk) is an error, not a silent loss. */
static int close_output(const struct stat_opts *o, FILE *out)
{
	int err = fflush(out) || ferror(out) ? (errno ? errno : EIO) : 0;

	if (fclose(out) && !err)
		err = errno;
	if (err)
		die_msg("cannot write '%s': %s", o->output, strerror(err));
	return err ? -1 : 0;
}

static FILE *open_output(const struct stat_opts *o)
{
	FILE *out;
	time_t now;

	if (!o->output)
		return stderr;
	out = fopen(o->output, "we");
	if (!out) {
		die_msg("cannot write '%s': %s", o->output, strerror(errno));
		return NULL;
	}
	now = time(NULL);
	fprintf(out, "# started on %s\n", ctime(&now));
	return out;
}

int cmd_stat(int argc, char **argv)
{
	struct stat_opts o = { .target = { .sz = sizeof(struct pcl_target) } };
	struct pcl_evlist *el = NULL;
	struct pcl_stat *st = NULL;
	sigset_t waitmask;
	char *desc = NULL;
	FILE *out = NULL;
	int exit_code = 0;

	if (argc > 1 && !strcmp(argv[1], "report"))
		return cmd_stat_report(argc - 1, argv + 1);
	o.pcl_argc = argc + 1;
	o.pcl_argv = argv - 1;
	if (argc > 1 && !strcmp(argv[1], "record")) {
		o.record = true;
		argc--;
		argv++;
	}
	if (parse_opts(argc, argv, &o) || validate(&o)) {
		free(o.events);
		free(o.metric_args);
		free(o.all_threads);
		return EXIT_USAGE;
	}
	el = pcl_evlist__new();
	if (!el || (!o.null_run && (add_events(&o, el) || add_metric_events(&o, el)))) {
		exit_code = EXIT_USAGE;
		goto out;
	}
	desc = target_desc(&o);
	o.cfg.target_desc = desc;
	o.cfg.workload = o.argv && !has_cpus(&o) && !o.target.pid && !o.target.tid;
	out = open_output(&o);
	if (!out) {
		exit_code = 1;
		goto out;
	}
	run_signals_setup(&waitmask);
	for (int i = 0; i < o.repeat && !got_signal; i++) {
		if (run_once(&o, el, &st, out, &waitmask, &exit_code)) {
			if (!exit_code)
				exit_code = 1;
			goto out;
		}
	}
	if ((!o.interval_ms || o.summary) && prints_counts(&o))
		pcl_stat__print(st, out);
	if (o.sw) {
		if (stat_writer_close(o.sw) && !exit_code)
			exit_code = 1;
		o.sw = NULL;
	}
	run_signals_reraise();
out:
	if (o.sw) {
		/* a run that failed leaves no file that looks whole */
		stat_writer_abort(o.sw);
	}
	if (out && out != stderr && close_output(&o, out) && !exit_code)
		exit_code = 1;
	pcl_stat__free(st);
	pcl_evlist__free(el);
	free(desc);
	free(o.events);
	free(o.metric_args);
	free(o.all_threads);
	return exit_code;
}
