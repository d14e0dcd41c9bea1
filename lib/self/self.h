/* SPDX-License-Identifier: MIT */
/* What the self-measurement files share. Never installed. */
#ifndef PCL_SELF_H
#define PCL_SELF_H

#include <stdint.h>
#include <linux/perf_event.h>
#include <pcl/pmu.h>

/*
 * Where the mmap-page reader gets its hardware values: rdpmc and rdtsc on
 * a real page, functions of a test's choosing on a synthetic one.
 */
struct page_hw {
	uint64_t (*rdpmc)(unsigned int counter, void *ctx);
	uint64_t (*rdtsc)(void *ctx);
	void *ctx;
};

/* pcl_mmap_page_read() with the hardware reads of @hw. */
int mmap_page_read_hw(const struct perf_event_mmap_page *pg, const struct page_hw *hw,
		      struct pcl_count *out);
/* pcl_mmap_page_read() without the message: -EAGAIN is routine on the read path. */
int mmap_page_read(const struct perf_event_mmap_page *pg, struct pcl_count *out);

/* The cycle count @cyc as a delta in ns with the page's time_mult/shift/offset (short too). */
uint64_t mmap_page_cyc_to_ns(const struct perf_event_mmap_page *pg, uint64_t cyc,
			     uint64_t mult, uint16_t shift, uint64_t offset);

#endif
