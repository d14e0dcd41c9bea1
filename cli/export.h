/* SPDX-License-Identifier: MIT */
/*
 * pcl report --format=NAME: a recording's samples into a profile
 * (include/pcl/profile.h) and out through one of libpcl's exporters, to a
 * file that appears whole or not at all. pcl diff reads through it too.
 */
#ifndef PCL_CLI_EXPORT_H
#define PCL_CLI_EXPORT_H

#include <stdbool.h>
#include "input.h"

/* Whether a resolved sample on @cpu passes the command's filters. */
typedef bool (*sample_filter)(const void *ctx, const struct pcl_resolved *rs, uint32_t cpu);

struct export_req {
	const char *format; /* folded flamegraph html pprof firefox speedscope */
	const char *output; /* NULL or "-": stdout */
	const char *event;  /* NULL: the first event with samples */
	/* not NULL: the event that pairs with this one (events_pair), named @event in errors */
	const struct perf_event_attr *match;
	bool icicle;
	bool by_period;
	/*
	 * --wall (docs/offcpu.md): the on-CPU event (cpu-clock or task-clock)
	 * and offcpu-time in one profile weighed in ns, each off-CPU sample
	 * with a leaf frame "[off-CPU]" under its stack
	 */
	bool wall;
	sample_filter pass; /* NULL: every sample */
	const void *pass_ctx;
	struct pcl_annotate *annotate; /* not NULL: the samples kept are also counted here */
};

/*
 * Whether two files' events are the same event, whatever each recorder
 * named it ("cpu-clock:ppp" and "cpu-clock"): the same type and config,
 * perf diff's match.
 */
bool events_pair(const struct perf_event_attr *a, const struct perf_event_attr *b);
/* Whether @name is an export format (json is report's own, not here). */
bool export_format_known(const char *name);
/* The formats, for messages: "folded, flamegraph, ..." */
extern const char export_formats[];

/*
 * Read @in to its end into *@out (a finished profile of the chosen event).
 * @timeline keeps each sample and context switch. *@event_name gets the
 * event's name. 0, or -1 with the error printed.
 */
int export_read_profile(struct input *in, const struct export_req *x, bool timeline,
			struct pcl_profile **out, const char **event_name);
/* Fill @o (already sized) with what the file says: event, facts, interval. */
void export_opts_fill(struct pcl_export_opts *o, struct input *in, const char *event_name);
/*
 * Fill @o's wall clock: from the recording's CLOCK_DATA (pcl or perf record
 * -k), else from perf's clock against this machine's and the file's time.
 */
void export_opts_clock(struct pcl_export_opts *o, struct input *in, const struct pcl_profile *p);
/* Free what export_opts_fill allocated. */
void export_opts_release(struct pcl_export_opts *o);
/*
 * Run @write into x->output (a temporary file renamed into place when it
 * is whole) or stdout. 0, or -1 with the error printed.
 */
typedef int (*export_writer)(FILE *fp, const struct pcl_profile *p,
			     const struct pcl_export_opts *opts);
int export_write(const char *output, export_writer write, const struct pcl_profile *p,
		 const struct pcl_export_opts *opts);

/*
 * --wall: the file's on-CPU event (cpu-clock or task-clock: periods in ns)
 * and its offcpu-time event, as attr indexes. 0, or -1 with the error printed.
 */
int wall_events(struct input *in, int *on, int *off);
/* The "[off-CPU]" leaf of off-CPU samples in a wall profile. */
extern const struct pcl_symbol wall_offcpu_sym;

/* pcl report --wall (text): per thread on and off CPU, and the histogram. Exit status. */
int report_wall(struct input *in, bool children, double percent_limit, sample_filter pass,
		const void *pass_ctx);

/* pcl report --format=NAME for an open input. Exit status. */
int report_export(struct input *in, const struct export_req *x);

#endif
