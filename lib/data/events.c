/* SPDX-License-Identifier: MIT */
/*
 * Events of a perf.data file in timestamp order (contract in data.h).
 *
 * The kernel writes each CPU's ring buffer in time order, but the recorder
 * copies the buffers one after another, so the file interleaves CPUs. perf
 * record ends each pass over the buffers with FINISHED_ROUND; everything
 * written in a later pass is newer than what was seen by the end of the
 * previous one. So at each FINISHED_ROUND the queue is sorted and the
 * records up to the previous round's newest timestamp are delivered (perf's
 * ordered_events with OE_FLUSH__ROUND).
 *
 * A record in the mapped file (pcl_data_reader_stable) is queued as the
 * pointer to it; any other is copied into chunks of an arena, and a chunk is
 * freed when its last record has been delivered. Queue entries are (time,
 * seq, bytes): seq keeps records of equal time in file order.
 *
 * After pcl_data_events__prefetch all of this (events_next) runs on the
 * thread of prefetch.c, and pcl_data_events__next takes its events from
 * there, in the same order.
 */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "data/prefetch.h"
#include "data/reader.h"

#define CHUNK_SIZE (1u << 20)
/* Past this many queued bytes the older half is delivered (perf: OE_FLUSH__HALF). */
#define QUEUE_CAP (256u << 20)

struct chunk {
	struct chunk *prev, *next; /* every live chunk, for the final free */
	size_t used, live;
	uint8_t data[];
};

struct qent {
	uint64_t time, seq, offset;
	uint8_t *rec;
	struct chunk *chunk; /* NULL: rec points into the mapped file */
	int attr_idx;
};

struct pcl_data_events {
	struct pcl_data_reader *r;
	bool ordered, eof;
	bool identifier;      /* every attr has PERF_SAMPLE_IDENTIFIER */
	int sample_id_pos;    /* words before ID in a sample, -1 if no ID */
	int trailer_id_pos;   /* words from the end of a trailer to ID, -1 if none */
	struct qent *q;
	size_t nq, aq, qhead, ready;
	struct qent *tmp; /* room for merging runs */
	size_t atmp;
	uint64_t next_flush, max_time, seq, queued_bytes;
	uint64_t last_delivered; /* time of the last record delivered from the queue */
	struct chunk *cur, *chunks;
	struct qent released; /* the entry delivered last, released at the next call */
	bool have_released;
	struct pcl_data_stats stats;
	struct prefetch *pf; /* reading ahead: the stream runs on its thread */
	/* the caller's thread: the newest file offset delivered, and pages given back */
	uint64_t max_offset, dropped;
};

PCL_API struct pcl_data_events *pcl_data_events__new(struct pcl_data_reader *r, bool ordered)
{
	struct pcl_data_events *e;

	if (!r)
		return pcl_err_null(EINVAL, "pcl_data_events__new: invalid argument");
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->r = r;
	e->ordered = ordered;
	pcl_data_reader_lend(r);
	e->sample_id_pos = e->trailer_id_pos = -1;
	return e;
}

static void chunk_free(struct pcl_data_events *e, struct chunk *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		e->chunks = c->next;
	if (c->next)
		c->next->prev = c->prev;
	free(c);
}

static void free_chunks(struct pcl_data_events *e)
{
	while (e->chunks)
		chunk_free(e, e->chunks);
}

PCL_API void pcl_data_events__free(struct pcl_data_events *e)
{
	if (!e)
		return;
	prefetch_stop(e->pf);
	free_chunks(e);
	free(e->q);
	free(e->tmp);
	free(e);
}

PCL_API const struct pcl_data_stats *pcl_data_events__stats(const struct pcl_data_events *e)
{
	struct pcl_data_stats *st;

	if (!e)
		return NULL;
	st = (struct pcl_data_stats *)&e->stats;
	for (uint32_t t = 0; t < 128; t++)
		st->nr[t] = pcl_data_reader__count(e->r, t);
	return st;
}

/* perf's id_pos / is_pos: where the id sits when not every event has IDENTIFIER. */
static void id_positions(struct pcl_data_events *e)
{
	const struct pcl_data_attr *a = pcl_data_reader__attr(e->r, 0);
	int n = pcl_data_reader__nr_attrs(e->r);
	uint64_t st;

	e->identifier = n > 0;
	for (int i = 0; i < n; i++)
		if (!(pcl_data_reader__attr(e->r, i)->attr.sample_type & PERF_SAMPLE_IDENTIFIER))
			e->identifier = false;
	if (!a)
		return;
	st = a->attr.sample_type;
	if (st & PERF_SAMPLE_ID) {
		e->sample_id_pos = !!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID) +
				   !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ADDR);
		e->trailer_id_pos = 1 + !!(st & PERF_SAMPLE_STREAM_ID) + !!(st & PERF_SAMPLE_CPU);
	}
}

/* The attr index of the event that wrote @h; -1 when it cannot be told. */
static int find_attr(struct pcl_data_events *e, const struct perf_event_header *h)
{
	int n = pcl_data_reader__nr_attrs(e->r);
	const struct pcl_data_attr *a0 = pcl_data_reader__attr(e->r, 0), *a;
	uint64_t id = 0;

	if (n <= 1)
		return n == 1 ? 0 : -1;
	if (e->sample_id_pos < 0 && !e->identifier)
		id_positions(e);
	if (e->identifier) {
		id = pcl_record_identifier(h, h->size, a0->attr.sample_id_all);
	} else if (h->type == PERF_RECORD_SAMPLE && e->sample_id_pos >= 0) {
		if (h->size < sizeof(*h) + 8u * (unsigned)(e->sample_id_pos + 1))
			return -1;
		memcpy(&id, (const uint8_t *)(h + 1) + 8 * e->sample_id_pos, 8);
	} else if (e->trailer_id_pos >= 0 && a0->attr.sample_id_all) {
		if (h->size < sizeof(*h) + 8u * (unsigned)e->trailer_id_pos)
			return -1;
		memcpy(&id, (const uint8_t *)h + h->size - 8 * e->trailer_id_pos, 8);
	} else {
		return h->type == PERF_RECORD_SAMPLE ? -1 : 0;
	}
	a = pcl_data_reader__attr_by_id(e->r, id);
	if (!a)
		return h->type == PERF_RECORD_SAMPLE ? -1 : 0;
	return (int)(a - a0);
}

/* Decode @h into @ev; false when it does not decode. */
static bool fill(struct pcl_data_events *e, const struct perf_event_header *h, int attr_idx,
		 uint64_t offset, struct pcl_data_event *ev)
{
	ev->hdr = h;
	ev->offset = offset;
	ev->attr_idx = attr_idx;
	ev->attr = attr_idx >= 0 ? pcl_data_reader__attr(e->r, attr_idx) : NULL;
	ev->decoded = false;
	if (h->type >= PCL_RECORD_USER_TYPE_START)
		return true;
	if (!ev->attr)
		return false;
	ev->decoded = !pcl_record_decode(h, h->size, &ev->attr->attr, &ev->rec);
	return ev->decoded;
}

static int qent_cmp(const void *a, const void *b)
{
	const struct qent *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static bool qent_before(const struct qent *x, const struct qent *y)
{
	return x->time < y->time || (x->time == y->time && x->seq < y->seq);
}

/*
 * Sort q[0..n): a round holds one sorted run per CPU buffer the recorder
 * copied (and what the last flush left, sorted too), so the runs are found
 * and merged pairwise, n log(runs) instead of n log(n). Many short runs, or
 * no memory for the merge, fall back to qsort; the order is the same
 * (time, then file order, is a total order).
 */
static void sort_queue(struct pcl_data_events *e, struct qent *q, size_t n)
{
	size_t nruns = 1, w;
	struct qent *src = q, *dst, *t;

	for (size_t i = 1; i < n; i++)
		nruns += qent_before(&q[i], &q[i - 1]);
	if (nruns == 1)
		return;
	if (nruns > 64 || n > e->atmp) {
		t = nruns > 64 ? NULL : realloc(e->tmp, n * sizeof(*t));
		if (!t) {
			qsort(q, n, sizeof(*q), qent_cmp);
			return;
		}
		e->tmp = t;
		e->atmp = n;
	}
	dst = e->tmp;
	/* bottom-up: merge neighbouring runs until one is left */
	while (nruns > 1) {
		size_t i = 0;

		nruns = 0;
		while (i < n) {
			size_t a = i, m, b, c;

			for (m = a + 1; m < n && !qent_before(&src[m], &src[m - 1]); m++)
				;
			for (c = m; c < n && (c == m || !qent_before(&src[c], &src[c - 1])); c++)
				;
			for (w = a, b = m; w < c; w++) {
				if (b >= c || (a < m && !qent_before(&src[b], &src[a])))
					dst[w] = src[a++];
				else
					dst[w] = src[b++];
			}
			i = c;
			nruns++;
		}
		t = src;
		src = dst;
		dst = t;
	}
	if (src != q)
		memcpy(q, src, n * sizeof(*q));
}

/* Make the queued records up to @limit deliverable (sorted). */
static void flush(struct pcl_data_events *e, uint64_t limit, bool half)
{
	size_t lo = e->qhead, hi = e->nq, k;

	sort_queue(e, e->q + lo, hi - lo);
	if (half) {
		k = lo + (hi - lo) / 2;
	} else {
		/* first entry past the limit */
		size_t a = lo, b = hi;

		while (a < b) {
			size_t mid = a + (b - a) / 2;

			if (e->q[mid].time <= limit)
				a = mid + 1;
			else
				b = mid;
		}
		k = a;
	}
	e->ready = k;
}

static void release(struct pcl_data_events *e)
{
	struct chunk *c = e->released.chunk;

	if (!e->have_released)
		return;
	e->have_released = false;
	e->queued_bytes -= ((const struct perf_event_header *)e->released.rec)->size;
	if (!c || --c->live)
		return;
	if (c == e->cur)
		c->used = 0;
	else
		chunk_free(e, c);
}

static int enqueue(struct pcl_data_events *e, const struct perf_event_header *h, uint64_t time,
		   int attr_idx)
{
	bool stable = pcl_data_reader_stable(e->r, h);
	struct qent *q;

	if (!stable && (!e->cur || CHUNK_SIZE - e->cur->used < h->size)) {
		struct chunk *c = malloc(sizeof(*c) + CHUNK_SIZE);

		if (!c)
			return -ENOMEM;
		c->used = c->live = 0;
		c->prev = NULL;
		c->next = e->chunks;
		if (e->chunks)
			e->chunks->prev = c;
		e->chunks = c;
		if (e->cur && !e->cur->live)
			chunk_free(e, e->cur);
		e->cur = c;
	}
	if (e->nq == e->aq) {
		size_t na = e->aq ? e->aq * 2 : 4096;

		q = realloc(e->q, na * sizeof(*q));
		if (!q)
			return -ENOMEM;
		e->q = q;
		e->aq = na;
	}
	q = &e->q[e->nq++];
	if (stable) {
		q->rec = (uint8_t *)h;
		q->chunk = NULL;
	} else {
		q->rec = e->cur->data + e->cur->used;
		memcpy(q->rec, h, h->size);
		e->cur->used += (h->size + 7u) & ~7u;
		e->cur->live++;
		q->chunk = e->cur;
	}
	q->time = time;
	q->seq = e->seq++;
	q->offset = pcl_data_reader__offset(e->r);
	q->attr_idx = attr_idx;
	e->queued_bytes += h->size;
	if (time < e->last_delivered)
		e->stats.nr_unordered++; /* too late: newer records are out already */
	if (time > e->max_time)
		e->max_time = time;
	if (e->queued_bytes > QUEUE_CAP)
		flush(e, 0, true);
	return 0;
}

static uint64_t record_time(const struct pcl_data_event *ev, bool *has)
{
	const struct pcl_record *rec = &ev->rec;
	uint64_t st = ev->attr->attr.sample_type;

	*has = false;
	if (!(st & PERF_SAMPLE_TIME))
		return 0;
	if (rec->type == PERF_RECORD_SAMPLE) {
		*has = true;
		return rec->sample.time;
	}
	*has = rec->has_id;
	return rec->id.time;
}

/*
 * A sample's time without decoding it: the words before PERF_SAMPLE_TIME
 * are IDENTIFIER, IP and TID, one each. Queued samples are decoded once,
 * when delivered. False if the sample has no time (or is too short for it:
 * left to the decoder to reject).
 */
static bool sample_time(const struct pcl_data_attr *a, const struct perf_event_header *h,
			uint64_t *t)
{
	uint64_t st = a->attr.sample_type;
	unsigned int pos;

	if (!(st & PERF_SAMPLE_TIME))
		return false;
	pos = !!(st & PERF_SAMPLE_IDENTIFIER) + !!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID);
	if (h->size < sizeof(*h) + (pos + 1) * sizeof(uint64_t))
		return false;
	memcpy(t, (const uint8_t *)(h + 1) + pos * sizeof(uint64_t), sizeof(*t));
	return true;
}

/* One record from the reader: delivered now (1), queued or skipped (0), or -errno. */
static int take(struct pcl_data_events *e, const struct perf_event_header *h,
		struct pcl_data_event *ev)
{
	int idx;
	bool has_time;
	uint64_t t;

	if (h->type >= PCL_RECORD_USER_TYPE_START) {
		if (h->type == PCL_RECORD_FINISHED_ROUND) {
			if (e->ordered && e->nq > e->qhead)
				flush(e, e->next_flush, false);
			e->next_flush = e->max_time;
			return 0;
		}
		if (h->type == PCL_RECORD_FINISHED_INIT) {
			if (e->ordered && e->nq > e->qhead)
				flush(e, UINT64_MAX, false);
			return 0;
		}
		fill(e, h, -1, pcl_data_reader__offset(e->r), ev);
		return 1;
	}
	idx = find_attr(e, h);
	if (idx < 0) {
		e->stats.nr_unknown_id++;
		return 0;
	}
	if (e->ordered && h->type == PERF_RECORD_SAMPLE) {
		const struct pcl_data_attr *a = pcl_data_reader__attr(e->r, idx);

		if (a && sample_time(a, h, &t))
			return enqueue(e, h, t, idx);
	}
	if (!fill(e, h, idx, pcl_data_reader__offset(e->r), ev)) {
		e->stats.nr_undecodable++;
		return 0;
	}
	if (h->type == PERF_RECORD_LOST)
		e->stats.total_lost += ev->rec.lost.lost;
	else if (h->type == PERF_RECORD_LOST_SAMPLES)
		e->stats.total_lost_samples += ev->rec.lost_samples.lost;
	t = record_time(ev, &has_time);
	if (!e->ordered || !has_time)
		return 1;
	return enqueue(e, h, t, idx);
}

/* The stream itself (on the prefetch thread while there is one). */
static int events_next(void *arg, struct pcl_data_event *ev)
{
	struct pcl_data_events *e = arg;

	release(e);
	for (;;) {
		const struct perf_event_header *h;
		int ret;

		if (e->qhead < e->ready) {
			struct qent *q = &e->q[e->qhead++];

			e->released = *q;
			e->have_released = true;
			if (!fill(e, (const struct perf_event_header *)q->rec, q->attr_idx,
				  q->offset, ev)) {
				e->stats.nr_undecodable++; /* a sample, queued undecoded */
				release(e);
				continue;
			}
			e->last_delivered = q->time;
			return 1;
		}
		if (e->qhead && e->qhead == e->ready) {
			memmove(e->q, e->q + e->qhead, (e->nq - e->qhead) * sizeof(*e->q));
			e->nq -= e->qhead;
			e->qhead = e->ready = 0;
		}
		if (e->eof) {
			if (e->nq > e->qhead) {
				flush(e, UINT64_MAX, false);
				continue;
			}
			return 0;
		}
		h = pcl_data_reader__next(e->r);
		if (!h) {
			if (errno)
				return -errno; /* the reader's message stands */
			e->eof = true;
			continue;
		}
		ret = take(e, h, ev);
		if (ret)
			return ret;
	}
}

/* The stream for the prefetch thread: a record in the mapped file is not copied again. */
static int events_next_stable(void *arg, struct pcl_data_event *ev, bool *stable)
{
	struct pcl_data_events *e = arg;
	int ret = events_next(e, ev);

	*stable = ret > 0 && pcl_data_reader_stable(e->r, ev->hdr);
	return ret;
}

PCL_API int pcl_data_events__next(struct pcl_data_events *e, struct pcl_data_event *ev)
{
	int ret;

	if (!e || !ev)
		return pcl_err(EINVAL, "pcl_data_events__next: invalid argument");
	ret = e->pf ? prefetch_next(e->pf, ev) : events_next(e, ev);
	/*
	 * Records come out in time order, a round or so away from file order:
	 * the mapped pages well behind the newest one delivered are done with.
	 */
	if (ret > 0 && ev->offset > e->max_offset) {
		e->max_offset = ev->offset;
		pcl_data_reader_drop(e->r, ev->offset, &e->dropped);
	}
	return ret;
}

PCL_API int pcl_data_events__prefetch(struct pcl_data_events *e)
{
	if (!e)
		return pcl_err(EINVAL, "pcl_data_events__prefetch: invalid argument");
	if (e->pf)
		return 0;
	/* a stream declares its events and features as they come: the reader changes */
	if (pcl_data_reader__is_pipe(e->r))
		return pcl_err(EOPNOTSUPP, "a stream is read on one thread");
	e->pf = prefetch_start(events_next_stable, e);
	return e->pf ? 0 : -errno;
}
