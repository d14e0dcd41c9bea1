/* SPDX-License-Identifier: MIT */
/*
 * Reading a counter from its perf_event_mmap_page without a syscall.
 *
 * The kernel bumps page->lock before and after it rewrites the page (on
 * sched-in/out of the counter, in the thread being measured), so a reader
 * that sees the same even lock before and after its reads saw one
 * consistent version. The count is offset plus the live hardware counter
 * (rdpmc of index - 1, sign-extended from pmc_width); the times are
 * time_enabled/time_running brought up to now by the TSC delta converted
 * with time_mult/time_shift/time_offset, as perf_event.h spells out.
 */
#include <string.h>
#include "internal.h"
#include "self/self.h"

/* Tries before giving up on a page that keeps changing (then read(2) is used). */
#define PAGE_READ_TRIES 64

#define barrier() __asm__ __volatile__("" ::: "memory")

#if defined(__x86_64__) || defined(__i386__)
static uint64_t hw_rdpmc(unsigned int counter, void *ctx)
{
	uint32_t lo, hi;

	(void)ctx;
	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
	return (uint64_t)hi << 32 | lo;
}

static uint64_t hw_rdtsc(void *ctx)
{
	uint32_t lo, hi;

	(void)ctx;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}
#define HAVE_HW_READS 1
#else
#define HAVE_HW_READS 0
#endif

uint64_t mmap_page_cyc_to_ns(const struct perf_event_mmap_page *pg, uint64_t cyc, uint64_t mult,
			     uint16_t shift, uint64_t offset)
{
	uint64_t quot, rem;

	if (pg->cap_user_time_short)
		cyc = pg->time_cycles + ((cyc - pg->time_cycles) & pg->time_mask);
	if (shift >= 64)
		return offset;
	quot = cyc >> shift;
	rem = cyc & (((uint64_t)1 << shift) - 1);
	return offset + quot * mult + ((rem * mult) >> shift);
}

int mmap_page_read_hw(const struct perf_event_mmap_page *pg, const struct page_hw *hw,
		      struct pcl_count *out)
{
	const volatile struct perf_event_mmap_page *p = pg;

	if (!pg || !out)
		return -EINVAL;
	for (int tries = 0; tries < PAGE_READ_TRIES; tries++) {
		uint32_t seq, idx;
		uint64_t enabled, running, count, delta = 0;
		bool timed;

		seq = p->lock;
		barrier();
		if (seq & 1)
			continue; /* the kernel is rewriting it right now */
		if (!p->cap_user_rdpmc)
			return -EAGAIN;
		enabled = p->time_enabled;
		running = p->time_running;
		timed = p->cap_user_time && hw->rdtsc;
		if (timed) {
			uint64_t cyc = hw->rdtsc(hw->ctx);

			delta = mmap_page_cyc_to_ns(pg, cyc, p->time_mult, p->time_shift,
						    p->time_offset);
		}
		idx = p->index;
		count = (uint64_t)p->offset;
		if (idx) {
			unsigned int width = p->pmc_width;
			uint64_t pmc = hw->rdpmc(idx - 1, hw->ctx);

			if (width > 0 && width < 64)
				pmc = (uint64_t)((int64_t)(pmc << (64 - width)) >> (64 - width));
			count += pmc;
		}
		barrier();
		if (p->lock != seq)
			continue;
		if (!idx)
			return -EAGAIN; /* not on the PMU now: only read(2) knows the count */
		out->val = count;
		out->ena = enabled + delta;
		out->run = running + delta;
		out->id = 0;
		return 0;
	}
	return -EAGAIN;
}

int mmap_page_read(const struct perf_event_mmap_page *pg, struct pcl_count *out)
{
#if HAVE_HW_READS
	static const struct page_hw hw = { hw_rdpmc, hw_rdtsc, NULL };

	return mmap_page_read_hw(pg, &hw, out);
#else
	(void)pg;
	(void)out;
	return -EAGAIN;
#endif
}

PCL_API int pcl_mmap_page_read(const struct perf_event_mmap_page *pg, struct pcl_count *out)
{
	int ret = mmap_page_read(pg, out);

	if (ret == -EINVAL)
		return pcl_err(EINVAL, "pcl_mmap_page_read: no page or no output");
	if (ret < 0)
		return pcl_err(-ret,
			       "pcl_mmap_page_read: the page cannot give the count now "
			       "(no cap_user_rdpmc, or the counter is off the PMU): use read(2)");
	return ret;
}

PCL_API uint64_t pcl_mmap_page_tsc_to_time(const struct perf_event_mmap_page *pg, uint64_t cyc)
{
	if (!pg || !pg->cap_user_time_zero)
		return 0;
	return mmap_page_cyc_to_ns(pg, cyc, pg->time_mult, pg->time_shift, pg->time_zero);
}
