/* SPDX-License-Identifier: MIT */
/*
 * Samples that carry PERF_SAMPLE_READ, delivered as perf does: once per
 * value read, as a sample of that value's event (found by its id) whose
 * period is the value's growth since the last read of the same id.
 */
#ifndef PCL_CLI_SAMPLE_READ_H
#define PCL_CLI_SAMPLE_READ_H

#include <pcl/pcl.h>

/* The last value read of each id (or each id and thread); zero it to start. */
struct read_deltas {
	uint64_t *id, *val;
	uint32_t *tid;
	size_t cap, n;
	/* samples of inherited counters whose growth was taken per thread */
	uint64_t nr_per_thread;
	/* some id's values came from more than one thread: per thread mattered */
	bool threads_mixed;
	/* periods below zero, wrapped (values of different threads under one id) */
	uint64_t nr_wrapped;
};

void read_deltas_free(struct read_deltas *rd);

typedef int (*sample_fn)(void *ctx, const struct pcl_data_attr *a, const struct pcl_record *rec);

/*
 * Call @fn for @rec: as it is without PERF_SAMPLE_READ, else once per value
 * of a known id that grew (a copy with that period and id, and the value's
 * attr). perf 6.1 keeps one last value per id, which an inherited counter
 * shares between threads, so its periods are the difference between two
 * threads' counts and wrap below zero; with @per_thread the last value of
 * an attr with inherit and PERF_SAMPLE_TID is kept per thread, as perf does
 * since 6.12, rd->nr_per_thread counts those samples, and
 * rd->threads_mixed says whether that changed anything; rd->nr_wrapped
 * counts the periods that still went below zero. Returns @fn's
 * first non-zero result, 0, or -ENOMEM (nothing printed).
 */
int each_read_sample(const struct pcl_data_reader *r, struct read_deltas *rd, bool per_thread,
		     const struct pcl_data_attr *a, const struct pcl_record *rec, sample_fn fn,
		     void *ctx);

/*
 * Whether the file was recorded on whole CPUs (-a, -C), as its command line
 * (CMDLINE) says. A CPU-wide counter counts whatever ran on its CPU, one
 * value for all threads: its values are not to be followed per thread,
 * whatever inherit says (perf 6.1 sets inherit with -a).
 */
bool recorded_cpu_wide(const struct pcl_data_reader *r);

#endif
