/* SPDX-License-Identifier: MIT */
/*
 * Counting sessions summarised the way `perf stat` prints them: aggregation
 * (global, per CPU, per core, per socket, per thread), repeated runs with
 * their variation, interval deltas, derived metrics (CPUs utilized, rates,
 * insn per cycle, miss ratios) and the three output formats (standard
 * columns, CSV with -x, JSON with -j) field for field as perf 6.1.
 *
 * Output goes to a FILE the caller owns. Not thread-safe.
 */
#ifndef PCL_STAT_H
#define PCL_STAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <pcl/common.h>
#include <pcl/evlist.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * <time.h> declares it only for POSIX or C11 users: declared here so that
 * a strict C99 user can include this header alone.
 */
struct timespec;

enum pcl_aggr_mode {
	PCL_AGGR_GLOBAL = 0, /* one row per event */
	PCL_AGGR_NONE,	     /* -A: one row per CPU */
	PCL_AGGR_CORE,	     /* --per-core */
	PCL_AGGR_SOCKET,     /* --per-socket */
	PCL_AGGR_THREAD,     /* --per-thread */
	PCL_AGGR_DIE,	     /* --per-die */
	PCL_AGGR_NODE,	     /* --per-node: NUMA node */
};

enum pcl_stat_format {
	PCL_STAT_STD = 0,
	PCL_STAT_CSV,
	PCL_STAT_JSON,
};

struct pcl_stat_config {
	size_t sz; /* sizeof(struct pcl_stat_config) */
	enum pcl_aggr_mode aggr;
	enum pcl_stat_format format;
	const char *csv_sep;	 /* -x SEP; "," when NULL */
	bool big_num;		 /* thousands grouping per the locale */
	int run_count;		 /* -r N; 0 or 1 for one run */
	const char *target_desc; /* "'true'", "process id '42'", "'system wide'" */
	bool workload;		 /* print user/sys times (a command was run) */
	bool csv_summary;	 /* CSV totals start with a "summary" column (--summary) */
	bool metric_only;	 /* --metric-only: the metrics alone, one column each */
};

struct pcl_stat;

/*
 * A summary over @el (which must stay alive and opened the same way for
 * every run). NULL with errno on failure.
 */
PCL_API struct pcl_stat *pcl_stat__new(const struct pcl_stat_config *cfg, struct pcl_evlist *el);
PCL_API void pcl_stat__free(struct pcl_stat *st);

/*
 * Fold the counts last read into @el into the statistics of a finished run
 * that lasted @wall_ns, with the workload's user and system CPU seconds.
 * Returns 0, or -ESTALE when @el's CPUs or threads are not those of the
 * first run (the rows were laid out for them).
 */
PCL_API int pcl_stat__add_run(struct pcl_stat *st, uint64_t wall_ns, double user_s, double sys_s);

/* Print the whole report (header, rows, footer) of the runs added so far. */
PCL_API int pcl_stat__print(struct pcl_stat *st, FILE *out);

/*
 * Print one interval: the change since the previous call (or since open) of
 * the counts last read into @el. @ts is the time since the start and
 * @interval_ns the wall time the interval covered.
 */
PCL_API int pcl_stat__print_interval(struct pcl_stat *st, FILE *out, const struct timespec *ts,
				     uint64_t interval_ns);

/*
 * Print the metric @name (formula @expr over event names, see
 * <pcl/metric.h>; @scale_unit as there, or NULL) next to the events of
 * @el it reads: @events[i] is the name of the formula that event index
 * @idx[i] counts, for @n names. The metric shows on the row of its first
 * event that carries no other metric, or on a line of its own. When one of
 * its events could not be counted it shows that ("<not supported>") with
 * the metric's name. The strings are copied. 0 or -errno.
 */
PCL_API int pcl_stat__add_metric(struct pcl_stat *st, const char *name, const char *expr,
				 const char *scale_unit, const char *const *events, const int *idx,
				 int n);

/*
 * A metric for a value of event @idx given the other rows of the same
 * aggregation: fills @value, @unit (static) and @fmt (printf format, static)
 * and returns 1, or returns 0 when the event has no metric here. Exposed so
 * that tests and other front ends derive the same numbers.
 */
struct pcl_stat_metric {
	double value;
	const char *unit;    /* "CPUs utilized", "K/sec", "insn per cycle", ... */
	const char *fmt;     /* "%8.3f" style, for the standard format */
	const char *csv_fmt; /* "%.3f" style */
	const char *status;  /* NULL, or "<not supported>" / "<not counted>" instead of a value */
};

#ifdef __cplusplus
}
#endif
#endif
