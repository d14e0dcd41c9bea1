/* SPDX-License-Identifier: MIT */
/*
 * Exports of a profile (include/pcl/profile.h) into the formats other tools
 * read, and pictures pcl draws itself. Each writer puts one whole document
 * on a caller's FILE and returns 0 or -errno (-EIO on a write error), with
 * a message for pcl_last_error().
 */
#ifndef PCL_EXPORT_H
#define PCL_EXPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <pcl/common.h>
#include <pcl/profile.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pcl_annotate;
struct pcl_symbols;

/* A fact about the recording, shown as "name: value" (hostname, command line...). */
struct pcl_export_fact {
	const char *name;
	const char *value;
};

struct pcl_export_opts {
	size_t sz;	   /* sizeof(struct pcl_export_opts) */
	const char *title; /* NULL: "Flame Graph", "pcl report"... as the format has it */
	const char *event; /* the sampled event's name ("cpu-clock") */
	bool by_period;	   /* values are the event's periods; else sample counts */
	bool period_is_ns; /* the event counts nanoseconds (cpu-clock, task-clock) */
	uint64_t interval; /* the sampling interval in the event's unit, 0: unknown */
	/* flamegraph */
	bool icicle;		       /* callers at the top, growing down */
	unsigned int width;	       /* pixels; 0: 1200 */
	double min_width;	       /* frames narrower than this many pixels are left out; 0: 0.1 */
	const struct pcl_profile *base; /* differential: coloured by change from this profile */
	/* header facts, in order, for the formats that carry them */
	const struct pcl_export_fact *facts;
	size_t nr_facts;
	uint64_t lost_samples;
	/*
	 * A sample's time + wall_clock_offset is when it was taken, in ns since
	 * the epoch (pprof's time_nanos, the Firefox Profiler's startTime); with
	 * !has_wall_clock the formats say nothing of the date.
	 */
	bool has_wall_clock;
	int64_t wall_clock_offset;
	/*
	 * html: the samples per instruction (include/pcl/annotate.h) and the
	 * symbolizer they were resolved with, for the page's source and
	 * assembly view of its hottest functions; NULL: no such view.
	 */
	const struct pcl_annotate *annotate;
	struct pcl_symbols *symbols;
};

/*
 * What `perf script | stackcollapse-perf.pl` gives for the profile's samples:
 * "comm;outer;...;inner VALUE" per distinct line, in byte order, VALUE the
 * sum of the samples' periods (opts->by_period does not apply).
 */
PCL_API int pcl_export_folded(FILE *fp, const struct pcl_profile *p,
			      const struct pcl_export_opts *opts);
/* A self-contained interactive SVG: hover, click to zoom, search, reset. */
PCL_API int pcl_export_flamegraph(FILE *fp, const struct pcl_profile *p,
				  const struct pcl_export_opts *opts);
/*
 * A self-contained HTML page: header facts, a sortable table of functions,
 * the flame graph, callers and callees of a clicked function, a thread filter.
 */
PCL_API int pcl_export_html(FILE *fp, const struct pcl_profile *p,
			    const struct pcl_export_opts *opts);
/* pprof: a gzipped perftools.profiles.Profile message. */
PCL_API int pcl_export_pprof(FILE *fp, const struct pcl_profile *p,
			     const struct pcl_export_opts *opts);
/*
 * The Firefox Profiler's Gecko profile JSON (needs a profile built with
 * opts.timeline). The format has no weights: with by_period and
 * period_is_ns a sample becomes one per interval of its period, at most
 * PCL_FIREFOX_MAX_REPS of them (longer ones are cut: the caller says so).
 */
#define PCL_FIREFOX_MAX_REPS 100000u
PCL_API int pcl_export_firefox(FILE *fp, const struct pcl_profile *p,
			       const struct pcl_export_opts *opts);
/* speedscope's file format: one sampled profile per thread (needs opts.timeline). */
PCL_API int pcl_export_speedscope(FILE *fp, const struct pcl_profile *p,
				  const struct pcl_export_opts *opts);

#ifdef __cplusplus
}
#endif
#endif
