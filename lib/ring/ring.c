/* SPDX-License-Identifier: MIT */
/*
 * The mmap ring buffer of a perf event.
 *
 * Protocol (perf_event_open(2), "MMAP layout"): the kernel advances
 * data_head after writing records; we read up to a head loaded with acquire
 * ordering (so the record bytes it covers are visible), then store
 * data_tail with release ordering (so the kernel does not reuse the space
 * before our reads of it are done). Both are free-running byte counters;
 * positions in the data area are counter & (size - 1).
 *
 * Records are 8-byte aligned and the data area is a power-of-two number of
 * pages, so a header never straddles the end; a record body may, and is
 * then copied into a bounce buffer (records are at most 64 KiB).
 *
 * Overwrite mode (mapped read-only, attr.write_backward): the kernel writes
 * backward from data_head and never waits; after pausing the output, the
 * newest records start at data_head and run forward until the buffer has
 * been read once around, a zeroed header shows the unwritten part, or the
 * head of the previous read is reached (read_end remembers it, so reads
 * between resumes do not repeat records). The record the buffer's wrap
 * cut, the oldest, is left out.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include "internal.h"

struct pcl_ring {
	int fd;
	bool overwrite;
	struct perf_event_mmap_page *page;
	size_t map_size;
	uint8_t *data;
	uint64_t size; /* data area bytes, a power of two */
	uint64_t mask;
	uint64_t head;	/* snapshot taken by read_begin */
	uint64_t pos;	/* next record to return */
	uint64_t start; /* overwrite mode: where this read began */
	uint64_t prev;	/* overwrite mode: the head of the last read (what it read ends there) */
	uint8_t bounce[65536];
	struct pcl_ring_stats stats;
};

static uint64_t load_head(const struct pcl_ring *r)
{
	/* pairs with the kernel's store of data_head after it wrote the records */
	return __atomic_load_n(&r->page->data_head, __ATOMIC_ACQUIRE);
}

PCL_API struct pcl_ring *pcl_ring__mmap(int fd, unsigned int data_pages, bool overwrite)
{
	long psize = sysconf(_SC_PAGESIZE);
	struct pcl_ring *r;
	void *map;

	if (fd < 0 || !data_pages || (data_pages & (data_pages - 1)))
		return pcl_err_null(EINVAL, "pcl_ring__mmap: invalid argument");
	r = calloc(1, sizeof(*r));
	if (!r)
		return pcl_err_null(ENOMEM, "pcl_ring__mmap: out of memory");
	r->map_size = (size_t)psize * (1 + data_pages);
	map = mmap(NULL, r->map_size, PROT_READ | (overwrite ? 0 : PROT_WRITE), MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		int e = errno;

		free(r);
		return pcl_err_null(e, "pcl_ring__mmap: cannot map %u data pages: %s", data_pages,
				    strerror(e));
	}
	r->fd = fd;
	r->overwrite = overwrite;
	r->page = map;
	r->prev = load_head(r);
	r->data = (uint8_t *)map + psize;
	r->size = (uint64_t)psize * data_pages;
	r->mask = r->size - 1;
	/*
	 * Fault every page in now: a ring read from a signal handler or inside
	 * a measured stretch must not add page faults of its own there.
	 */
	for (size_t off = 0; off < r->map_size; off += (size_t)psize)
		(void)*(volatile const uint8_t *)((uint8_t *)map + off);
	if (!overwrite) /* and the control page writable: data_tail is written back */
		*(volatile __u64 *)&r->page->data_tail = r->page->data_tail;
	for (size_t off = 0; off < sizeof(r->bounce); off += (size_t)psize)
		*(volatile uint8_t *)&r->bounce[off] = 0;
	return r;
}

PCL_API void pcl_ring__munmap(struct pcl_ring *r)
{
	if (!r)
		return;
	munmap(r->page, r->map_size);
	free(r);
}

PCL_API int pcl_ring_set_output(int fd, int target_fd)
{
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, target_fd))
		return pcl_err(errno, "pcl_ring_set_output: %s", strerror(errno));
	return 0;
}

PCL_API int pcl_ring__fd(const struct pcl_ring *r)
{
	return r ? r->fd : -1;
}

PCL_API const struct perf_event_mmap_page *pcl_ring__page(const struct pcl_ring *r)
{
	return r ? r->page : NULL;
}

PCL_API uint64_t pcl_ring__pending(const struct pcl_ring *r)
{
	if (!r || r->overwrite)
		return 0;
	return load_head(r) - r->page->data_tail;
}

PCL_API int pcl_ring__read_begin(struct pcl_ring *r)
{
	if (!r)
		return pcl_err(EINVAL, "pcl_ring__read_begin: invalid argument");
	r->head = load_head(r);
	if (r->overwrite) {
		/* newest first: from head, at most one buffer's worth */
		r->pos = r->start = r->head;
		return 0;
	}
	r->pos = r->page->data_tail;
	if (r->head - r->pos > r->size) {
		/* the kernel never passes the tail: a broken page; drop everything */
		r->pos = r->head;
		return pcl_err(EBADMSG, "pcl_ring__read_begin: malformed record");
	}
	return 0;
}

/* Copy @len bytes at counter @at out of the ring (wrapping) into @dst. */
static void ring_copy(const struct pcl_ring *r, uint64_t at, void *dst, size_t len)
{
	uint64_t off = at & r->mask;
	size_t first = (size_t)(r->size - off) < len ? (size_t)(r->size - off) : len;

	memcpy(dst, r->data + off, first);
	memcpy((uint8_t *)dst + first, r->data, len - first);
}

static void account(struct pcl_ring *r, const struct perf_event_header *h)
{
	uint64_t v;

	r->stats.records++;
	r->stats.bytes += h->size;
	switch (h->type) {
	case PERF_RECORD_LOST:
		if (h->size >= sizeof(*h) + 16) {
			memcpy(&v, (const uint8_t *)(h + 1) + 8, 8);
			r->stats.lost += v;
		}
		r->stats.lost_records++;
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (h->size >= sizeof(*h) + 8) {
			memcpy(&v, h + 1, 8);
			r->stats.lost_samples += v;
		}
		break;
	case PERF_RECORD_THROTTLE:
		r->stats.throttle++;
		break;
	case PERF_RECORD_UNTHROTTLE:
		r->stats.unthrottle++;
		break;
	}
}

/*
 * Overwrite mode: the bytes written since the last read (the kernel's head
 * moves down, so they lie from this head up to the last one), at most a
 * buffer's worth: a second dump does not repeat what the first one read.
 */
static uint64_t overwrite_span(const struct pcl_ring *r)
{
	uint64_t since = r->prev - r->start;

	return since < r->size ? since : r->size;
}

PCL_API const struct perf_event_header *pcl_ring__next(struct pcl_ring *r)
{
	struct perf_event_header h;
	uint64_t left;
	const struct perf_event_header *out;

	if (!r)
		return NULL;
	left = r->overwrite ? overwrite_span(r) - (r->pos - r->start) : r->head - r->pos;
	if (left < sizeof(h))
		return NULL;
	ring_copy(r, r->pos, &h, sizeof(h));
	if (r->overwrite && !h.size)
		return NULL; /* the part of the buffer never written yet */
	/* the oldest record, partly overwritten by the newest: the read ends before it */
	if (r->overwrite && h.size > left && h.size >= sizeof(h) && !(h.size & 7))
		return NULL;
	if (h.size < sizeof(h) || h.size > left || h.size & 7) {
		r->pos = r->overwrite ? r->start + overwrite_span(r) : r->head;
		return pcl_err_null(EBADMSG, "pcl_ring__next: malformed record");
	}
	if ((r->pos & r->mask) + h.size <= r->size) {
		out = (const void *)(r->data + (r->pos & r->mask));
	} else {
		ring_copy(r, r->pos, r->bounce, h.size);
		out = (const void *)r->bounce;
	}
	r->pos += h.size;
	account(r, out);
	return out;
}

PCL_API void pcl_ring__read_end(struct pcl_ring *r)
{
	if (!r)
		return;
	if (r->overwrite) {
		r->prev = r->head; /* the next read stops where this one began */
		return;
	}
	/* our reads of the records come before the kernel may overwrite them */
	__atomic_store_n(&r->page->data_tail, r->pos, __ATOMIC_RELEASE);
}

PCL_API int pcl_ring__pause(struct pcl_ring *r, bool pause)
{
	if (!r)
		return pcl_err(EINVAL, "pcl_ring__pause: invalid argument");
	if (ioctl(r->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, pause ? 1 : 0))
		return pcl_err(errno, "pcl_ring__pause: %s", strerror(errno));
	return 0;
}

PCL_API void pcl_ring__stats(const struct pcl_ring *r, struct pcl_ring_stats *out)
{
	if (r && out)
		*out = r->stats;
}
