/* SPDX-License-Identifier: MIT */
/*
 * Reading ahead on a second thread (contract in prefetch.h): while the
 * caller resolves and counts one batch of events, the thread reads,
 * decompresses, orders and decodes the next ones.
 *
 * The queue is a ring of NR_BATCHES batches, each holding up to
 * BATCH_EVENTS events and BATCH_BYTES of copies of their records. The
 * thread fills the batch at tail, the caller empties the one at head;
 * filled counts the batches handed over and not yet given back. A batch
 * changes hands only through filled, under the lock: the thread writes a
 * batch only after taking it while filled < NR_BATCHES, the caller reads
 * one only after taking it while filled > 0, and gives it back only on the
 * call after it returned the batch's last event (so that event's record is
 * still there until then). The batch that ends the stream carries its
 * status (0, or -errno and the message) after its events; the thread
 * returns after handing it over, and the caller joins it when it gets
 * there. prefetch_stop raises stop, which the thread sees when it waits for
 * room or takes a batch, and joins it. A thread waiting for room is woken
 * when half the ring is free (it sleeps only when all of it is full, so the
 * caller always reaches that point before it would wait itself).
 *
 * A stable record (in the mapped file: it outlives the thread) is handed
 * over as the source gave it, pointers and all. Any other is copied into
 * the batch and decoded again over the copy (decoding is a pure function of
 * the bytes and the attr), so the pointers of the decoded record point into
 * the batch, not into the source's buffers.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "data/prefetch.h"

#define NR_BATCHES   8
#define BATCH_EVENTS 512
/* room for at least one record of the largest size (u16: 64 KiB) */
#define BATCH_BYTES (512u << 10)

struct batch {
	int n;	     /* events */
	size_t used; /* bytes of their records */
	bool last;   /* the stream ends after these events, with status */
	int status;
	char msg[512];
	struct pcl_data_event ev[BATCH_EVENTS];
	uint64_t bytes[BATCH_BYTES / 8]; /* the records, each 8-aligned */
};

struct prefetch {
	prefetch_source_fn next;
	void *src;
	pthread_t thread;
	bool joined;
	pthread_mutex_t lock;
	pthread_cond_t more; /* filled went up */
	pthread_cond_t room; /* filled went down, or stop */
	int head, tail, filled;
	bool stop;
	/* the caller's side */
	struct batch *cur;
	int at;
	bool done;
	int status;
	char msg[512];
	struct batch batches[NR_BATCHES];
};

/* Put @ev into @b, its record copied unless @stable; false when it does not fit. */
static bool put(struct batch *b, const struct pcl_data_event *ev, bool stable)
{
	size_t size = ev->hdr->size;
	struct perf_event_header *copy;
	struct pcl_data_event *d;

	/*
	 * a stable record counts too, though not copied: it bounds how far the
	 * reading runs ahead in the mapped file (its pages, resident)
	 */
	if (b->used + size > BATCH_BYTES)
		return false;
	if (stable) {
		b->used += size;
		b->ev[b->n++] = *ev;
		return true;
	}
	copy = (struct perf_event_header *)((uint8_t *)b->bytes + b->used);
	memcpy(copy, ev->hdr, size);
	b->used += (size + 7) & ~(size_t)7;
	d = &b->ev[b->n++];
	/* field by field: the record is written once, by decoding it again or zeroed */
	d->hdr = copy;
	d->attr = ev->attr;
	d->attr_idx = ev->attr_idx;
	d->offset = ev->offset;
	d->decoded = ev->decoded && !pcl_record_decode(copy, size, &ev->attr->attr, &d->rec);
	if (!d->decoded)
		memset(&d->rec, 0, sizeof(d->rec)); /* nothing pointing into the source */
	return true;
}

/* The next empty batch, or NULL when stopped. */
static struct batch *take_empty(struct prefetch *p)
{
	struct batch *b = NULL;

	pthread_mutex_lock(&p->lock);
	while (p->filled == NR_BATCHES && !p->stop)
		pthread_cond_wait(&p->room, &p->lock);
	if (!p->stop)
		b = &p->batches[p->tail];
	pthread_mutex_unlock(&p->lock);
	return b;
}

static void hand_over(struct prefetch *p)
{
	pthread_mutex_lock(&p->lock);
	p->tail = (p->tail + 1) % NR_BATCHES;
	p->filled++;
	pthread_cond_signal(&p->more);
	pthread_mutex_unlock(&p->lock);
}

static void *run(void *arg)
{
	struct prefetch *p = arg;
	struct pcl_data_event ev;
	bool held = false; /* ev did not fit the last batch: it opens the next */
	bool stable = false;
	struct batch *b;

	while ((b = take_empty(p))) {
		b->n = 0;
		b->used = 0;
		b->last = false;
		while (b->n < BATCH_EVENTS) {
			int ret = held ? 1 : p->next(p->src, &ev, &stable);

			if (ret <= 0) {
				b->last = true;
				b->status = ret;
				snprintf(b->msg, sizeof(b->msg), "%s",
					 ret < 0 ? pcl_last_error() : "");
				break;
			}
			held = !put(b, &ev, stable);
			if (held)
				break;
		}
		hand_over(p);
		if (b->last)
			break;
	}
	return NULL;
}

struct prefetch *prefetch_start(prefetch_source_fn next, void *src)
{
	struct prefetch *p;
	sigset_t all, old;
	int err;

	if (!next)
		return pcl_err_null(EINVAL, "prefetch_start: invalid argument");
	/* calloc: the batches' pages are touched only as they fill */
	p = calloc(1, sizeof(*p));
	if (!p)
		return pcl_err_null(ENOMEM, "prefetch_start: out of memory");
	p->next = next;
	p->src = src;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->more, NULL);
	pthread_cond_init(&p->room, NULL);
	/* signals stay the caller's thread's business */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&p->thread, NULL, run, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		pthread_cond_destroy(&p->room);
		pthread_cond_destroy(&p->more);
		pthread_mutex_destroy(&p->lock);
		free(p);
		return pcl_err_null(err, "cannot start the reading thread: %s", pcl_strerror(err));
	}
	return p;
}

static void join(struct prefetch *p)
{
	if (!p->joined)
		pthread_join(p->thread, NULL);
	p->joined = true;
}

int prefetch_next(struct prefetch *p, struct pcl_data_event *ev)
{
	for (;;) {
		if (p->cur && p->at < p->cur->n) {
			*ev = p->cur->ev[p->at++];
			return 1;
		}
		if (p->cur && p->cur->last) {
			/* the thread has returned: the batch stays ours */
			p->status = p->cur->status;
			memcpy(p->msg, p->cur->msg, sizeof(p->msg));
			p->cur = NULL;
			p->done = true;
			join(p);
		}
		if (p->done)
			return p->status < 0 ? pcl_err(p->status, "%s", p->msg) : 0;
		pthread_mutex_lock(&p->lock);
		if (p->cur) { /* past its last event: give it back */
			p->head = (p->head + 1) % NR_BATCHES;
			/*
			 * a thread waiting for room is woken once half the ring
			 * is free, not for each batch: waking it costs more than
			 * a batch
			 */
			if (--p->filled <= NR_BATCHES / 2)
				pthread_cond_signal(&p->room);
		}
		while (!p->filled)
			pthread_cond_wait(&p->more, &p->lock);
		p->cur = &p->batches[p->head];
		pthread_mutex_unlock(&p->lock);
		p->at = 0;
	}
}

void prefetch_stop(struct prefetch *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_signal(&p->room);
	pthread_mutex_unlock(&p->lock);
	join(p);
	pthread_cond_destroy(&p->room);
	pthread_cond_destroy(&p->more);
	pthread_mutex_destroy(&p->lock);
	free(p);
}
