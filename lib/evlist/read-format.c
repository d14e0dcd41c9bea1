/* SPDX-License-Identifier: MIT */
/*
 * The layouts of read(2) on a perf fd, as perf_event_open(2) defines them.
 *
 * Without PERF_FORMAT_GROUP, one counter:
 *   { value; time_enabled (TOTAL_TIME_ENABLED); time_running (TOTAL_TIME_RUNNING);
 *     id (ID); lost (LOST) }
 * With PERF_FORMAT_GROUP, the whole group of the fd's leader:
 *   { nr; time_enabled; time_running; { value; id; lost } [nr] }
 * Each bracketed field is there only when its bit is set, so every word's
 * position depends on the read_format: nothing here assumes the default.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "evlist/read-format.h"

/* Words of the header (GROUP: nr and the times) and of each counter's entry. */
static void layout(uint64_t fmt, size_t *head, size_t *entry)
{
	size_t times =
		!!(fmt & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(fmt & PERF_FORMAT_TOTAL_TIME_RUNNING);
	size_t tail = !!(fmt & PERF_FORMAT_ID) + !!(fmt & PERF_FORMAT_LOST);

	if (fmt & PERF_FORMAT_GROUP) {
		*head = 1 + times;
		*entry = 1 + tail;
	} else {
		*head = 0;
		*entry = 1 + times + tail;
	}
}

size_t read_format_size(uint64_t read_format, int nr)
{
	size_t head, entry;

	if (read_format & ~(uint64_t)READ_FORMAT_KNOWN)
		return 0;
	if (!(read_format & PERF_FORMAT_GROUP))
		nr = 1;
	else if (nr <= 0 || nr > (1 << 20))
		return 0;
	layout(read_format, &head, &entry);
	return (head + entry * (size_t)nr) * sizeof(uint64_t);
}

int read_format_parse(uint64_t read_format, const void *buf, size_t len, struct pcl_count *out,
		      int max)
{
	uint64_t w[3], ena = 0, run = 0, nr = 1;
	const unsigned char *p = buf;
	size_t head, entry, k = 0;

	if (read_format & ~(uint64_t)READ_FORMAT_KNOWN || len % sizeof(uint64_t) || max <= 0)
		return -EIO;
	layout(read_format, &head, &entry);
	if (read_format & PERF_FORMAT_GROUP) {
		if (len < head * sizeof(uint64_t))
			return -EIO;
		/* the buffer may be unaligned (a file's bytes): copy words out */
		memcpy(w, p, head * sizeof(uint64_t));
		nr = w[k++];
		if (read_format & PERF_FORMAT_TOTAL_TIME_ENABLED)
			ena = w[k++];
		if (read_format & PERF_FORMAT_TOTAL_TIME_RUNNING)
			run = w[k++];
		if (!nr || nr > (uint64_t)max)
			return -EIO;
	}
	if (len != (head + entry * nr) * sizeof(uint64_t))
		return -EIO;
	p += head * sizeof(uint64_t);
	for (uint64_t i = 0; i < nr; i++) {
		struct pcl_count *c = &out[i];
		uint64_t v[5];

		memcpy(v, p, entry * sizeof(uint64_t));
		p += entry * sizeof(uint64_t);
		k = 0;
		memset(c, 0, sizeof(*c));
		c->val = v[k++];
		c->ena = ena;
		c->run = run;
		if (!(read_format & PERF_FORMAT_GROUP)) {
			if (read_format & PERF_FORMAT_TOTAL_TIME_ENABLED)
				c->ena = v[k++];
			if (read_format & PERF_FORMAT_TOTAL_TIME_RUNNING)
				c->run = v[k++];
		}
		if (read_format & PERF_FORMAT_ID)
			c->id = v[k++];
		if (read_format & PERF_FORMAT_LOST)
			c->lost = v[k++];
	}
	return (int)nr;
}

ssize_t read_format_read(int fd, void *buf, size_t cap)
{
	ssize_t n;

	do {
		n = read(fd, buf, cap);
	} while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}
