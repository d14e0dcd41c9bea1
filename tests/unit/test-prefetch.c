/* SPDX-License-Identifier: MIT */
/*
 * Reading ahead (lib/data/prefetch.c): a made-up source of events, whose
 * records live in one buffer it overwrites at every call (as a reader's
 * buffer is), handed over by the thread in order, byte for byte, decoded
 * over the copies; records the source calls stable (kept till the end, as
 * the mapped file's are) handed over in place, not copied; the source's
 * error and its message; a stop while the thread waits for room; records of
 * every size up to the largest. The
 * stream through pcl_data_events__prefetch is tested by test-events (each
 * of its tests runs a second time reading ahead).
 *
 * Built under ThreadSanitizer too (build/tsan, make check): the queue
 * between the two threads is its matter.
 */
#include <errno.h>
#include <stdlib.h>
#include "unit.h"
#include "internal.h"
#include "data/prefetch.h"

#define WORDS_MAX ((65535 - 8) / 8) /* a record's size is a u16 */

struct source {
	int n, next; /* events to make, the next one's number */
	int fail_at; /* -1: none; else return -EIO instead of this event */
	int calls;   /* how many times the thread called */
	struct perf_event_attr attr;
	struct pcl_data_attr dattr;
	uint64_t *kept; /* stable: every third short record has its own place here */
	uint64_t buf[1 + WORDS_MAX]; /* the one record, rewritten each call */
};

/* Words of event @i's call chain: mostly short, now and then the largest record. */
static uint64_t chain_len(int i)
{
	if (i % 997 == 3)
		return WORDS_MAX - 5; /* header + ip, tid, time, nr: 5 words beside */
	return (uint64_t)(i * 7919) % 200;
}

#define KEPT_WORDS (1 + 5 + 200) /* header, 5 words beside a chain of < 200 */

/* Whether the source hands event @i out as stable, in s->kept. */
static bool is_kept(const struct source *s, int i)
{
	return s->kept && i % 3 == 1 && chain_len(i) < 200;
}

/* Event @i: every 10th a user-type record (not decoded), else a sample. */
static int src_next(void *arg, struct pcl_data_event *ev, bool *stable)
{
	struct source *s = arg;
	int i = s->next;
	uint64_t *rec = is_kept(s, i) ? s->kept + (size_t)i * KEPT_WORDS : s->buf;
	struct perf_event_header *h = (struct perf_event_header *)rec;
	uint64_t *w = rec + 1;

	s->calls++;
	if (i == s->fail_at)
		return pcl_err(EIO, "source: cannot read event %d", i);
	if (i == s->n)
		return 0;
	s->next++;
	memset(ev, 0, sizeof(*ev));
	memset(s->buf, 0xa5, sizeof(s->buf)); /* what the last record was is gone */
	*stable = rec != s->buf;
	ev->offset = 1000 + (uint64_t)i;
	if (i % 10 == 9) {
		h->type = PCL_RECORD_USER_TYPE_START + 1;
		h->misc = 0;
		h->size = 16;
		w[0] = (uint64_t)i;
		ev->hdr = h;
		ev->attr_idx = -1;
		return 1;
	}
	uint64_t nr = chain_len(i);

	h->type = PERF_RECORD_SAMPLE;
	h->misc = PERF_RECORD_MISC_USER;
	h->size = (uint16_t)(8 * (5 + nr));
	w[0] = 0x1000 + (uint64_t)i;		/* ip */
	w[1] = (uint64_t)i << 32 | (uint64_t)i; /* pid, tid */
	w[2] = (uint64_t)i;			/* time */
	w[3] = nr;
	for (uint64_t k = 0; k < nr; k++)
		w[4 + k] = (uint64_t)i * 1000003 + k;
	ev->hdr = h;
	ev->attr = &s->dattr;
	ev->attr_idx = 0;
	ev->decoded = !pcl_record_decode(h, h->size, &s->attr, &ev->rec);
	assert_true(ev->decoded);
	return 1;
}

static struct source *source_new(int n, int fail_at)
{
	struct source *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	s->n = n;
	s->fail_at = fail_at;
	s->attr.size = sizeof(s->attr);
	s->attr.sample_type =
		PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN;
	s->dattr.attr = s->attr;
	return s;
}

static void source_free(struct source *s)
{
	free(s->kept);
	free(s);
}

/* A thread reading @s (freed by the caller after prefetch_stop). */
static struct prefetch *start(struct source *s)
{
	struct prefetch *p = prefetch_start(src_next, s);

	assert_non_null(p);
	return p;
}

/* Event @i of @src as the caller gets it: its bytes and its decoded fields. */
static int check_event_of(const struct source *src, const struct pcl_data_event *ev, int i)
{
	int bad = 0;
	char row[32];

	snprintf(row, sizeof(row), "event %d", i);
	bad += differ(row, "offset", ev->offset, 1000 + (uint64_t)i);
	/* a stable record comes as the source gave it, not copied */
	if (src && is_kept(src, i) != (ev->hdr == (const void *)(src->kept + (size_t)i * KEPT_WORDS)))
		bad += differ(row, "handed over in place", !is_kept(src, i), is_kept(src, i));
	if (i % 10 == 9) {
		bad += differ(row, "type", ev->hdr->type, PCL_RECORD_USER_TYPE_START + 1);
		bad += differ(row, "word", ((const uint64_t *)(ev->hdr + 1))[0], (uint64_t)i);
		bad += differ(row, "decoded", ev->decoded, 0);
		bad += differ(row, "attr_idx", (uint64_t)(int64_t)ev->attr_idx, (uint64_t)-1);
		return bad;
	}
	bad += differ(row, "decoded", ev->decoded, 1);
	if (!ev->decoded)
		return bad;
	bad += differ(row, "size", ev->hdr->size, 8 * (5 + chain_len(i)));
	bad += differ(row, "ip", ev->rec.sample.ip, 0x1000 + (uint64_t)i);
	bad += differ(row, "tid", ev->rec.sample.tid, (uint64_t)i);
	bad += differ(row, "nr", ev->rec.sample.nr_callchain, chain_len(i));
	/* the decoded pointers point into the copy the event came with */
	if (ev->rec.sample.nr_callchain &&
	    ((const uint8_t *)ev->rec.sample.callchain < (const uint8_t *)ev->hdr ||
	     (const uint8_t *)ev->rec.sample.callchain >= (const uint8_t *)ev->hdr + ev->hdr->size))
		bad += differ(row, "callchain in the copy", 0, 1);
	for (uint64_t k = 0; k < ev->rec.sample.nr_callchain && k < chain_len(i); k++)
		if (ev->rec.sample.callchain[k] != (uint64_t)i * 1000003 + k) {
			bad += differ(row, "chain word", ev->rec.sample.callchain[k],
				      (uint64_t)i * 1000003 + k);
			break;
		}
	return bad;
}

static int check_event(const struct pcl_data_event *ev, int i)
{
	return check_event_of(NULL, ev, i);
}

/* Many batches' worth, the largest records among them: all, in order, intact. */
static void test_in_order(void **state)
{
	struct source *s = source_new(20000, -1);
	struct prefetch *p = start(s);
	struct pcl_data_event ev;
	int i = 0, bad = 0, ret;

	(void)state;
	while ((ret = prefetch_next(p, &ev)) == 1)
		bad += check_event(&ev, i++);
	assert_int_equal(ret, 0);
	assert_int_equal(i, 20000);
	assert_int_equal(bad, 0);
	/* the end stays the end; the thread has ended and called no more */
	assert_int_equal(prefetch_next(p, &ev), 0);
	assert_int_equal(s->calls, 20001);
	prefetch_stop(p);
	free(s);
}

/* Stable records among copied ones: the same order and bytes, those in place. */
static void test_stable(void **state)
{
	struct source *s = source_new(20000, -1);
	struct prefetch *p;
	struct pcl_data_event ev;
	int i = 0, bad = 0, ret;

	(void)state;
	s->kept = calloc((size_t)s->n * KEPT_WORDS, sizeof(uint64_t));
	assert_non_null(s->kept);
	p = start(s);
	while ((ret = prefetch_next(p, &ev)) == 1)
		bad += check_event_of(s, &ev, i++);
	assert_int_equal(ret, 0);
	assert_int_equal(i, 20000);
	assert_int_equal(bad, 0);
	prefetch_stop(p);
	source_free(s);
}

/* The source's error after what came before it, with its message, here. */
static void test_error(void **state)
{
	struct source *s = source_new(5000, 3333);
	struct prefetch *p = start(s);
	struct pcl_data_event ev;
	int i = 0, bad = 0, ret;

	(void)state;
	while ((ret = prefetch_next(p, &ev)) == 1)
		bad += check_event(&ev, i++);
	assert_int_equal(bad, 0);
	assert_int_equal(i, 3333);
	assert_int_equal(ret, -EIO);
	assert_string_equal(pcl_last_error(), "source: cannot read event 3333");
	pcl_err(EINVAL, "something else");
	assert_int_equal(prefetch_next(p, &ev), -EIO);
	assert_string_equal(pcl_last_error(), "source: cannot read event 3333");
	prefetch_stop(p);
	free(s);
}

/* Stopped early, with the queue full and the thread waiting for room. */
static void test_stop_early(void **state)
{
	struct source *s = source_new(1000000, -1);
	struct prefetch *p = start(s);
	struct pcl_data_event ev;

	(void)state;
	for (int i = 0; i < 10; i++) {
		assert_int_equal(prefetch_next(p, &ev), 1);
		assert_int_equal(check_event(&ev, i), 0);
	}
	usleep(20000); /* time to fill the queue */
	prefetch_stop(p);
	assert_true(s->calls < 1000000);
	free(s);
	/* never started: stopping nothing is fine */
	prefetch_stop(NULL);
}

/* Nothing at all, and the end straight away. */
static void test_empty(void **state)
{
	struct source *s = source_new(0, -1);
	struct prefetch *p = start(s);
	struct pcl_data_event ev;

	(void)state;
	assert_int_equal(prefetch_next(p, &ev), 0);
	assert_int_equal(prefetch_next(p, &ev), 0);
	prefetch_stop(p);
	free(s);
	assert_null(prefetch_start(NULL, NULL));
	assert_int_equal(errno, EINVAL);
	assert_int_equal(pcl_data_events__prefetch(NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		UNIT_TEST(test_in_order),
		UNIT_TEST(test_stable),
		UNIT_TEST(test_error),
		UNIT_TEST(test_stop_early),
		UNIT_TEST(test_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
