/* SPDX-License-Identifier: MIT */
/*
 * Regions: name a stretch of code and get its counts, per thread, with no
 * output code of your own.
 *
 *   pcl_region_begin("parse");
 *   parse(input);
 *   pcl_region_end("parse");
 *
 * Each thread opens its own counters (the events of PCL_REGION_EVENTS, or
 * of pcl_regions_set_events(), default "task-clock,context-switches,
 * page-faults,cycles,instructions"; events the machine cannot count are
 * left out) on its first pcl_region_begin(). A region accumulates, per
 * thread and per name, the number of times it ran and the counts between
 * its begin and its end. Regions nest (a region's counts include those of
 * the regions inside it) and must end in the reverse order they began.
 *
 * With PCL_REGIONS=text or PCL_REGIONS=json in the environment, the
 * accumulated counts are written at exit (atexit, registered by the first
 * pcl_region_begin()) to the file PCL_REGIONS_FILE (default: standard
 * error; "%p" in it is replaced by the process id): the one place libpcl
 * writes output itself, and only when asked. Both formats are those of
 * pcl_regions_write():
 *
 *   text: per region, in the order regions first ended, the total over
 *   threads and then each thread, as perf stat prints counts:
 *
 *     Region 'parse': 2,000 calls in 2 threads
 *
 *                 512      page-faults               #        0.256 /call
 *           8,123,456 ns   task-clock                #     4061.728 ns/call
 *
 *        thread 4321: 1,000 calls
 *                   ...
 *
 *   json: one object,
 *     {"pid":N,"events":["page-faults",...],"units":[null,"ns",...],
 *      "regions":[{"name":"parse","calls":N,"values":[...],
 *                  "threads":[{"tid":N,"calls":N,"values":[...]},...]},...]}
 *   where values[i] is for events[i]: integers for counts, null for an
 *   event that no thread of the region counted.
 *
 * Cost: begin and end each read the thread's counters once (one read(2)
 * for the software and tracepoint events, which are opened as one group,
 * about 1 us on a VM); end then adds into the thread's own table under the
 * thread's own mutex. Nothing is allocated after a name's first end, and
 * no global lock is taken. Regions of exited threads are kept until
 * pcl_regions_reset(). In a child made by fork() the regions start empty
 * and the thread opens new counters.
 *
 * Every function here is thread-safe; none is async-signal-safe.
 */
#ifndef PCL_REGION_H
#define PCL_REGION_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <pcl/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Begin region @name (a string that lives as long as the process, as a
 * literal does) on the calling thread. Names are compared by address, then
 * by content: two copies of one string are one region. Returns 0, or a
 * negative errno: the counters could not be opened (then no region is
 * begun, and the open is not tried again until pcl_regions_set_events()),
 * -E2BIG when nesting deeper than 64.
 */
PCL_API int pcl_region_begin(const char *name);
/*
 * End the innermost region of the calling thread, which must be @name
 * (-EINVAL otherwise, and nothing is ended).
 */
PCL_API int pcl_region_end(const char *name);

/*
 * Events for the threads that begin their first region after this call
 * (NULL: PCL_REGION_EVENTS or the default again). The spec is parsed here:
 * 0, or a negative errno with pcl_last_error() for a spec that does not
 * parse. A thread keeps the events it started with.
 */
PCL_API int pcl_regions_set_events(const char *events);

/* One region of one thread. */
struct pcl_region_stats {
	const char *name;
	pid_t tid;
	uint64_t calls;		   /* begin/end pairs completed */
	int nr_events;
	const char *const *events; /* names */
	const char *const *units;  /* units or NULL each */
	const double *values;	   /* summed counts, scaled */
};

/*
 * Call @fn for every (thread, region) pair seen so far, threads that have
 * exited included, in the order threads began their first region and
 * regions first ended. Stops at and returns the first non-zero @fn return.
 */
PCL_API int pcl_regions_foreach(int (*fn)(const struct pcl_region_stats *s, void *arg),
				void *arg);

/*
 * The totals of region @name over every thread into @values (room for
 * @nr); returns the number of calls, or -ENOENT when the region never
 * ended. @values[i] is for event i of pcl_regions_event(), 0 when no
 * thread counted it.
 */
PCL_API int64_t pcl_region_total(const char *name, double *values, int nr);
/*
 * Name of event @i of the region counters, or NULL: the events counted by
 * any thread, in the order they were first seen (a static string).
 */
PCL_API const char *pcl_regions_event(int i);
PCL_API int pcl_regions_nr_events(void);

enum pcl_regions_format {
	PCL_REGIONS_TEXT,
	PCL_REGIONS_JSON,
};
/* Write every region, per thread and in total, to @f. 0 or -errno. */
PCL_API int pcl_regions_write(FILE *f, enum pcl_regions_format fmt);

/*
 * Forget every region's counts, and the threads that have exited (threads
 * keep their counters, and their open regions end as usual).
 */
PCL_API void pcl_regions_reset(void);

#ifdef __cplusplus
}
#endif
#endif
