/* SPDX-License-Identifier: MIT */
/* What read(2) on a perf fd returns, for every read_format of perf_event_open(2). */
#ifndef PCL_EVLIST_READ_FORMAT_H
#define PCL_EVLIST_READ_FORMAT_H
#include <stddef.h>
#include <stdint.h>
#include <pcl/pmu.h>

/* The read_format bits this parser knows: every one the manual defines. */
#define READ_FORMAT_KNOWN                                                                          \
	(PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID |        \
	 PERF_FORMAT_GROUP | PERF_FORMAT_LOST)

/*
 * Bytes one read(2) returns with @read_format for a group of @nr counters
 * (without PERF_FORMAT_GROUP, @nr is ignored: one counter); 0 for unknown
 * bits or a bad @nr.
 */
size_t read_format_size(uint64_t read_format, int nr);

/*
 * Decode the @len bytes at @buf that one read(2) returned with @read_format
 * into @out: one count without PERF_FORMAT_GROUP, else one per counter of
 * the group, in the order the kernel gives them (leader first, then members
 * in the order they joined). Fields the read_format lacks are 0; with
 * GROUP every count gets the group's times. Returns the number of counts,
 * or -EIO when @len is not the size the read_format and the group's nr
 * make, or the group has more than @max counters (or none).
 */
int read_format_parse(uint64_t read_format, const void *buf, size_t len, struct pcl_count *out,
		      int max);

/*
 * read(2) @fd into @buf (@cap bytes), retrying on EINTR. The byte count,
 * or a negative errno (-ENOSPC: @cap is below what the read_format needs).
 */
ssize_t read_format_read(int fd, void *buf, size_t cap);
#endif
