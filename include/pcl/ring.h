/* SPDX-License-Identifier: MIT */
/*
 * The ring layer: the mmap ring buffer of a perf event.
 *
 * A ring is 1 + 2^n pages mapped on a perf fd: the first page is struct
 * perf_event_mmap_page (data_head written by the kernel, data_tail by us),
 * the rest the data area. Records are read in place, or copied into a
 * bounce buffer when one wraps around the end. In overwrite mode (mapped
 * read-only) the kernel writes backward and never waits for us; the newest
 * records are read from data_head after pausing the buffer.
 *
 * A ring belongs to one thread at a time.
 */
#ifndef PCL_RING_H
#define PCL_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include <pcl/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pcl_ring;

/* Records and samples the ring saw lost or throttled (from the records it returned). */
struct pcl_ring_stats {
	uint64_t records;	       /* records returned */
	uint64_t bytes;		       /* bytes returned */
	uint64_t lost;		       /* sum of PERF_RECORD_LOST counts */
	uint64_t lost_records;	       /* PERF_RECORD_LOST records */
	uint64_t lost_samples;	       /* sum of PERF_RECORD_LOST_SAMPLES counts */
	uint64_t throttle, unthrottle; /* PERF_RECORD_THROTTLE / UNTHROTTLE records */
};

/*
 * Map a ring of @data_pages (a power of two, >= 1) on perf fd @fd; read-only
 * (overwrite mode) when @overwrite. NULL with errno (EINVAL: not a power of
 * two; EPERM: over perf_event_mlock_kb for this user).
 */
PCL_API struct pcl_ring *pcl_ring__mmap(int fd, unsigned int data_pages, bool overwrite);
/* Unmap and free; NULL-safe. Does not close the fd. */
PCL_API void pcl_ring__munmap(struct pcl_ring *r);

/* Send the records of perf fd @fd into the ring of @target_fd (same CPU). */
PCL_API int pcl_ring_set_output(int fd, int target_fd);

PCL_API int pcl_ring__fd(const struct pcl_ring *r);
/* The perf_event_mmap_page (for cap_user_rdpmc, time_*); valid while mapped. */
PCL_API const struct perf_event_mmap_page *pcl_ring__page(const struct pcl_ring *r);
/* Bytes written by the kernel and not yet consumed. */
PCL_API uint64_t pcl_ring__pending(const struct pcl_ring *r);

/*
 * Reading: begin() snapshots data_head; next() returns each record up to
 * it (in place, or copied if it wraps; valid until the next call) and NULL
 * at the end; end() gives the space back to the kernel (data_tail).
 * A record whose size is below a header, or runs past the snapshot, stops
 * the read with errno EBADMSG (the buffer is then consumed to the head).
 */
PCL_API int pcl_ring__read_begin(struct pcl_ring *r);
PCL_API const struct perf_event_header *pcl_ring__next(struct pcl_ring *r);
PCL_API void pcl_ring__read_end(struct pcl_ring *r);

/*
 * Overwrite mode: pause the kernel's writes (PERF_EVENT_IOC_PAUSE_OUTPUT),
 * and read the newest records backward-written from data_head up to a full
 * buffer; resume with @pause false.
 */
PCL_API int pcl_ring__pause(struct pcl_ring *r, bool pause);

PCL_API void pcl_ring__stats(const struct pcl_ring *r, struct pcl_ring_stats *out);

#ifdef __cplusplus
}
#endif
#endif
