/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the event stream over a reader (lib/data/events.c) and of
 * what the reader does under it for compressed, piped and cut files
 * (lib/data/reader.c), against include/pcl/data.h.
 *
 * Every file is synthetic: records are built word by word and written with
 * pcl_data_writer. A sample's ip is its tag, so the order in which events
 * come out is a string of tags ("U79 5 10 20 25 30 ...") compared whole:
 * a failure prints what came out next to what should have.
 *
 * Round semantics checked (perf's ordered_events, OE_FLUSH__ROUND): at a
 * FINISHED_ROUND the queued records not later than the previous round's
 * newest timestamp are delivered, sorted; the rest wait. FINISHED_INIT and
 * the end deliver everything. Records without a time go straight through.
 *
 * Files go to a temporary directory, removed at the end.
 */
#include "unit.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <zstd.h>
#include <pcl/common.h>
#include <pcl/data.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

static char tmpdir[64];

static void tmp_path(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", tmpdir, name);
}

/* ---- building records ---- */

/* A record being built: header, then words. */
struct rb {
	uint8_t b[4096];
	size_t n;
};

static void rb_start(struct rb *r, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = 8 };

	memset(r, 0, sizeof(*r));
	memcpy(r->b, &h, 8);
	r->n = 8;
}

static void rb_u64(struct rb *r, uint64_t v)
{
	assert_true(r->n + 8 <= sizeof(r->b));
	memcpy(r->b + r->n, &v, 8);
	r->n += 8;
}

static void rb_u32x2(struct rb *r, uint32_t a, uint32_t b)
{
	rb_u64(r, a | (uint64_t)b << 32);
}

/* @s NUL-padded to @len bytes (a multiple of 8). */
static void rb_str(struct rb *r, const char *s, size_t len)
{
	assert_true(len % 8 == 0 && strlen(s) < len && r->n + len <= sizeof(r->b));
	memset(r->b + r->n, 0, len);
	memcpy(r->b + r->n, s, strlen(s));
	r->n += len;
}

/* Finish: set header.size; the record is r->b. */
static const void *rb_end(struct rb *r)
{
	uint16_t size = (uint16_t)r->n;

	memcpy(r->b + 6, &size, 2);
	return r->b;
}

/* ---- the event layouts used here ---- */

/* Layout A: one event, IP|TID|TIME|PERIOD, sample_id_all (trailer: pid/tid, time). */
#define ST_A (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)

static void attr_a(struct pcl_data_attr *a, bool sample_id_all, uint64_t sample_type)
{
	static const uint64_t ids[] = { 7 };

	memset(a, 0, sizeof(*a));
	a->attr.size = sizeof(a->attr);
	a->attr.type = PERF_TYPE_SOFTWARE;
	a->attr.config = PERF_COUNT_SW_CPU_CLOCK;
	a->attr.sample_type = sample_type;
	a->attr.sample_period = 1000;
	a->attr.sample_id_all = sample_id_all;
	a->attr.comm = a->attr.task = a->attr.mmap = 1;
	a->name = "cpu-clock";
	a->ids = ids;
	a->nr_ids = 1;
}

static void w_rec(struct pcl_data_writer *w, struct rb *r)
{
	assert_int_equal(pcl_data_writer__write(w, rb_end(r)), 0);
}

/* A layout-A sample tagged @ip at @time. */
static const void *sample_a(struct rb *r, uint64_t ip, uint64_t time)
{
	rb_start(r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	rb_u64(r, ip);
	rb_u32x2(r, 42, 42);
	rb_u64(r, time);
	rb_u64(r, 1000);
	return rb_end(r);
}

static void w_sample_a(struct pcl_data_writer *w, uint64_t ip, uint64_t time)
{
	struct rb r;

	assert_int_equal(pcl_data_writer__write(w, sample_a(&r, ip, time)), 0);
}

/* A COMM of pid 42 "@comm", with a layout-A trailer at @time when @trailer. */
static const void *comm_a(struct rb *r, const char *comm, bool trailer, uint64_t time)
{
	rb_start(r, PERF_RECORD_COMM, 0);
	rb_u32x2(r, 42, 42);
	rb_str(r, comm, 16);
	if (trailer) {
		rb_u32x2(r, 42, 42);
		rb_u64(r, time);
	}
	return rb_end(r);
}

/* One of perf's own records (no time): its type is its tag. */
static void w_user(struct pcl_data_writer *w, uint32_t type)
{
	struct rb r;

	rb_start(&r, type, 0);
	rb_u64(&r, 0);
	w_rec(w, &r);
}

static void w_type(struct pcl_data_writer *w, uint32_t type)
{
	struct perf_event_header h = { .type = type, .size = 8 };

	assert_int_equal(pcl_data_writer__write(w, &h), 0);
}

static struct pcl_data_writer *w_create(const char *name, char *path, size_t size,
					const struct pcl_data_attr *a, int n)
{
	struct pcl_data_writer *w;

	tmp_path(path, size, name);
	w = pcl_data_writer__create(path, a, n);
	if (!w)
		print_message("create '%s': %s\n", path, pcl_last_error());
	assert_non_null(w);
	return w;
}

/* ---- reading: events as a string of tags ---- */

struct run {
	char tags[1024];
	int ret;	  /* what next() returned last: 0 at the end, or -errno */
	char err[256];	  /* pcl_last_error() when ret < 0 */
	int attr_idx[32]; /* of each event */
	uint64_t period[32];
	uint64_t offset[32];
	int n;
	struct pcl_data_stats st;
	bool truncated;
	uint64_t nr_compressed;
};

static void tag(struct run *run, const struct pcl_data_event *ev)
{
	char t[32];
	size_t len = strlen(run->tags);

	if (ev->hdr->type == PERF_RECORD_SAMPLE && ev->decoded)
		snprintf(t, sizeof(t), "%" PRIu64, ev->rec.sample.ip);
	else if (ev->hdr->type == PERF_RECORD_COMM && ev->decoded)
		snprintf(t, sizeof(t), "C:%s", ev->rec.comm.comm);
	else if (ev->hdr->type >= PCL_RECORD_USER_TYPE_START)
		snprintf(t, sizeof(t), "U%u", ev->hdr->type);
	else
		snprintf(t, sizeof(t), "%s", pcl_record_type_name(ev->hdr->type));
	snprintf(run->tags + len, sizeof(run->tags) - len, "%s%s", len ? " " : "", t);
}

/* Every test runs twice: reading on this thread, then ahead on a second one. */
static bool prefetching;

/* Read every event of @path into @run. */
static void read_events(const char *path, bool ordered, struct run *run)
{
	struct pcl_data_reader *r;
	struct pcl_data_events *e;
	struct pcl_data_event ev;
	int ret;

	memset(run, 0, sizeof(*run));
	r = pcl_data_reader__open(path);
	if (!r)
		print_message("open '%s': %s\n", path, pcl_last_error());
	assert_non_null(r);
	e = pcl_data_events__new(r, ordered);
	assert_non_null(e);
	if (prefetching) {
		ret = pcl_data_events__prefetch(e);
		/* a stream stays on one thread */
		assert_int_equal(ret, pcl_data_reader__is_pipe(r) ? -EOPNOTSUPP : 0);
	}
	while ((ret = pcl_data_events__next(e, &ev)) == 1) {
		if (run->n < (int)ARRAY_SIZE(run->attr_idx)) {
			run->attr_idx[run->n] = ev.attr_idx;
			run->period[run->n] =
				ev.hdr->type == PERF_RECORD_SAMPLE && ev.decoded &&
						(ev.rec.sample.sample_type & PERF_SAMPLE_PERIOD)
					? ev.rec.sample.period
					: 0;
			run->offset[run->n] = ev.offset;
		}
		run->n++;
		tag(run, &ev);
	}
	run->ret = ret;
	if (ret < 0)
		snprintf(run->err, sizeof(run->err), "%s", pcl_last_error());
	run->st = *pcl_data_events__stats(e);
	run->truncated = pcl_data_reader__truncated(r);
	run->nr_compressed = pcl_data_reader__nr_compressed(r);
	pcl_data_events__free(e);
	pcl_data_reader__close(r);
}

static uint64_t data_offset(const char *path)
{
	struct pcl_data_layout l;
	struct pcl_data_reader *r = pcl_data_reader__open(path);

	assert_non_null(r);
	pcl_data_reader__layout(r, &l);
	pcl_data_reader__close(r);
	return l.data_offset;
}

/* ---- ordering ---- */

/*
 * Three rounds, out of order within and across them, with perf's own
 * records (no time) between:
 *   round 1: 30 10 20                 FINISHED_ROUND: nothing is <= 0
 *   round 2: 25 5 40 U79              FINISHED_ROUND: 5..30 (<= round 1's 30)
 *   round 3: 15 U73 50 35             end: all
 * U79 passes straight through, before anything queued; 15 comes after 30,
 * which was delivered already: it is the one record out of order.
 */
static void write_rounds(struct pcl_data_writer *w)
{
	w_sample_a(w, 30, 30);
	w_sample_a(w, 10, 10);
	w_sample_a(w, 20, 20);
	assert_int_equal(pcl_data_writer__finish_round(w), 0);
	w_sample_a(w, 25, 25);
	w_sample_a(w, 5, 5);
	w_sample_a(w, 40, 40);
	w_user(w, PCL_RECORD_TIME_CONV);
	assert_int_equal(pcl_data_writer__finish_round(w), 0);
	w_sample_a(w, 15, 15);
	w_user(w, PCL_RECORD_THREAD_MAP);
	w_sample_a(w, 50, 50);
	w_sample_a(w, 35, 35);
}

static void test_rounds_ordered(void **state)
{
	struct pcl_data_attr a;
	struct pcl_data_writer *w;
	char path[256];
	struct run run;

	(void)state;
	attr_a(&a, true, ST_A);
	w = w_create("rounds", path, sizeof(path), &a, 1);
	write_rounds(w);
	assert_int_equal(pcl_data_writer__close(w), 0);

	read_events(path, true, &run);
	assert_int_equal(run.ret, 0);
	assert_string_equal(run.tags, "U79 5 10 20 25 30 U73 15 35 40 50");
	assert_int_equal(run.n, 11);
	/* perf's own records have no attr; the samples have the only one */
	assert_int_equal(run.attr_idx[0], -1);
	assert_int_equal(run.attr_idx[1], 0);
	assert_int_equal(run.period[1], 1000);
	assert_int_equal(run.st.nr[PERF_RECORD_SAMPLE], 9);
	assert_int_equal(run.st.nr[PCL_RECORD_FINISHED_ROUND], 2);
	assert_int_equal(run.st.nr[PCL_RECORD_TIME_CONV], 1);
	assert_int_equal(run.st.nr_unknown_id, 0);
	assert_int_equal(run.st.nr_undecodable, 0);
	assert_false(run.truncated);
}

/* Unordered: file order, FINISHED_ROUNDs consumed. */
static void test_rounds_unordered(void **state)
{
	struct pcl_data_attr a;
	struct pcl_data_writer *w;
	char path[256];
	struct run run;

	(void)state;
	attr_a(&a, true, ST_A);
	w = w_create("rounds-unordered", path, sizeof(path), &a, 1);
	write_rounds(w);
	assert_int_equal(pcl_data_writer__close(w), 0);

	read_events(path, false, &run);
	assert_int_equal(run.ret, 0);
	assert_string_equal(run.tags, "30 10 20 25 5 40 U79 15 U73 50 35");
	assert_int_equal(run.st.nr_unordered, 0);
}

/*
 * nr_unordered counts records "delivered after a later timestamp had
 * been": in the rounds above only 15 (30 was out before it came). 25 and 5
 * arrive below round 1's newest time, but nothing had been delivered then
 * and they come out in order.
 */
static void test_unordered_count(void **state)
{
	struct pcl_data_attr a;
	struct pcl_data_writer *w;
	char path[256];
	struct run run;

	(void)state;
	attr_a(&a, true, ST_A);
	w = w_create("rounds-count", path, sizeof(path), &a, 1);
	write_rounds(w);
	assert_int_equal(pcl_data_writer__close(w), 0);

	read_events(path, true, &run);
	assert_string_equal(run.tags, "U79 5 10 20 25 30 U73 15 35 40 50");
	if (run.st.nr_unordered != 1)
		print_message("nr_unordered = %" PRIu64 ", expected 1 (only '15' came after a "
			      "later time, 30, had been delivered)\n",
			      run.st.nr_unordered);
	assert_int_equal(run.st.nr_unordered, 1);
}

/* Equal times keep file order, within a round and across rounds. */
static void test_equal_times(void **state)
{
	struct pcl_data_attr a;
	struct pcl_data_writer *w;
	char path[256];
	struct run run;

	(void)state;
	attr_a(&a, true, ST_A);
	w = w_create("equal", path, sizeof(path), &a, 1);
	w_sample_a(w, 1, 100);
	w_sample_a(w, 2, 50);
	w_sample_a(w, 7, 60);
	w_sample_a(w, 6, 60);
	w_sample_a(w, 5, 60);
	assert_int_equal(pcl_data_writer__finish_round(w), 0);
	w_sample_a(w, 3, 100);
	w_sample_a(w, 4, 50);
	assert_int_equal(pcl_data_writer__finish_round(w), 0);
	/* delivered at the second round: everything <= 100 */
	w_user(w, PCL_RECORD_TIME_CONV);
	w_sample_a(w, 9, 100);
	w_sample_a(w, 8, 100);
	assert_int_equal(pcl_data_writer__close(w), 0);

	read_events(path, true, &run);
	assert_int_equal(run.ret, 0);
	assert_string_equal(run.tags, "2 4 7 6 5 1 3 U79 9 8");
}

/* FINISHED_INIT delivers everything queued before it. */
static void test_finished_init(void **state)
{
	struct pcl_data_attr a;
	struct pcl_data_writer *w;
	char path[256];
	struct run run;

	(void)state;
	attr_a(&a, true, ST_A);
	w = w_create("init", path, sizeof(path), &a, 1);
	w_sample_a(w, 30, 30);
	w_sample_a(w, 10, 10);
	w_type(w, PCL_RECORD_FINISHED_INIT);
	w_sample_a(w, 5, 5);
	w_sample_a(w, 1, 1);
	assert_int_equal(pcl_data_writer__close(w), 0);

	read_events(path, true, &run);
	assert_int_equal(run.ret, 0);
	assert_string_equal(run.tags, "10 30 1 5");
	assert_int_equal(run.st.nr[PCL_RECORD_FINISHED_INIT], 1);
}

/*
 * Records without a time go straight through: a COMM with no trailer
 * (sample_id_all off) overtakes the samples queued before it; with no
 * PERF_SAMPLE_TIME at all, everything is in file order.
 */
static void test_no_time(void **state)
{
	struct pcl_data_attr a;
	struct pcl_data_writer *w;
	char path[256];
	struct run run;
	struct rb r;

	(void)state;
	attr_a(&a, false, ST_A);
	w = w_create("no-trailer", path, sizeof(path), &a, 1);
	w_sample_a(w, 30, 30);
	assert_int_equal(pcl_data_writer__write(w, comm_a(&r, "hot", false, 0)), 0);
	w_sample_a(w, 10, 10);
	assert_int_equal(pcl_data_writer__finish_round(w), 0);
	assert_int_equal(pcl_data_writer__close(w), 0);
	read_events(path, true, &run);
	assert_int_equal(run.ret, 0);
	assert_string_equal(run.tags, "C:hot 10 30");

	/* with a trailer the COMM is ordered with the samples */
	attr_a(&a, true, ST_A);
	w = w_create("trailer", path, sizeof(path), &a, 1);
	w_sample_a(w, 30, 30);
	assert_int_equal(pcl_data_writer__write(w, comm_a(&r, "hot", true, 20)), 0);
	w_sample_a(w, 10, 10);
	assert_int_equal(pcl_data_writer__close(w), 0);
	read_events(path, true, &run);
	assert_string_equal(run.tags, "10 C:hot 30");

	/* no time at all: file order */
	attr_a(&a, true, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD);
	w = w_create("timeless", path, sizeof(path), &a, 1);
	for (uint64_t ip = 3; ip > 0; ip--) {
		rb_start(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
		rb_u64(&r, ip);
		rb_u32x2(&r, 42, 42);
		rb_u64(&r, 500 + ip);
		w_rec(w, &r);
	}
	assert_int_equal(pcl_data_writer__finish_round(w), 0);
	assert_int_equal(pcl_data_writer__close(w), 0);
	read_events(path, true, &run);
	assert_string_equal(run.tags, "3 2 1");
	assert_int_equal(run.period[0], 503);
}

/* ---- sorting a round: runs ---- */

/*
 * A round holds one sorted run per CPU buffer the recorder copied; the
 * queue merges the runs (64 at most) or falls back to qsort (more). Either
 * way the order is (time, then file order).
 */

/* Sorted runs in @t: one more than the descents. */
static int nr_runs(const uint64_t *t, int n)
{
	int runs = 1;

	for (int i = 1; i < n; i++)
		runs += t[i] < t[i - 1];
	return runs;
}

/*
 * One round of samples at times @t, tagged 1..n in file order, then two
 * FINISHED_ROUNDs (the second delivers it all) and a TIME_CONV. What must
 * come out is the tags stably sorted by time (insertion sort: equal times
 * stay in file order), then U79: none lost, none twice.
 */
static void check_round_sorted(const char *name, const uint64_t *t, int n)
{
	struct pcl_data_attr a;
	struct pcl_data_writer *w;
	char path[256], want[sizeof(((struct run *)0)->tags)];
	int order[256];
	struct run run;
	size_t len = 0;

	assert_true(n > 0 && n <= (int)ARRAY_SIZE(order));
	attr_a(&a, true, ST_A);
	w = w_create(name, path, sizeof(path), &a, 1);
	for (int i = 0; i < n; i++)
		w_sample_a(w, (uint64_t)i + 1, t[i]);
	assert_int_equal(pcl_data_writer__finish_round(w), 0);
	assert_int_equal(pcl_data_writer__finish_round(w), 0);
	w_user(w, PCL_RECORD_TIME_CONV);
	assert_int_equal(pcl_data_writer__close(w), 0);

	for (int i = 0; i < n; i++) {
		int j = i;

		for (; j > 0 && t[order[j - 1]] > t[i]; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(want + len, sizeof(want) - len, "%d ", order[i] + 1);
	len += (size_t)snprintf(want + len, sizeof(want) - len, "U79");
	assert_true(len < sizeof(want));

	read_events(path, true, &run);
	assert_int_equal(run.ret, 0);
	assert_string_equal(run.tags, want);
	assert_int_equal(run.n, n + 1);
	assert_int_equal(run.st.nr[PERF_RECORD_SAMPLE], n);
	assert_int_equal(run.st.nr_unordered, 0);
	assert_int_equal(run.st.nr_undecodable, 0);
}

/* Few runs: merged. */
static void test_many_runs(void **state)
{
	/* three CPUs one after another, overlapping, 20 and 40 on each, 30 twice on cpu 0 */
	static const uint64_t cpus[] = {
		10, 20, 30, 30, 40, 50, 60, 70, /* cpu 0 */
		5,  20, 35, 40, 65, 90,		/* cpu 1 */
		15, 20, 25, 40, 45, 95,		/* cpu 2 */
	};
	/* runs of 1, 2, 3, 1 and 4, odd in number: the last one waits a pass */
	static const uint64_t uneven[] = { 50, 10, 60, 20, 20, 70, 3, 1, 30, 40, 80 };
	uint64_t t[128];

	(void)state;
	assert_int_equal(nr_runs(cpus, ARRAY_SIZE(cpus)), 3);
	check_round_sorted("runs-3", cpus, ARRAY_SIZE(cpus));
	assert_int_equal(nr_runs(uneven, ARRAY_SIZE(uneven)), 5);
	check_round_sorted("runs-uneven", uneven, ARRAY_SIZE(uneven));

	/* 64 runs of two, the most that are merged; 100..102 on most of them */
	for (int r = 0; r < 64; r++) {
		t[2 * r] = 100 - (uint64_t)r;
		t[2 * r + 1] = 100 + (uint64_t)r % 3;
	}
	assert_int_equal(nr_runs(t, 128), 64);
	check_round_sorted("runs-64", t, 128);
}

/* More than 64 runs: qsort, which must keep file order for equal times too. */
static void test_many_runs_qsort(void **state)
{
	uint64_t t[200];

	(void)state;
	/* 200 in descending time */
	for (int i = 0; i < 200; i++)
		t[i] = 1000 - (uint64_t)i;
	assert_int_equal(nr_runs(t, 200), 200);
	check_round_sorted("runs-desc", t, 200);

	/* a saw of 10 11 12: 67 runs, each time 66 or 67 times over */
	for (int i = 0; i < 200; i++)
		t[i] = 10 + (uint64_t)i % 3;
	assert_int_equal(nr_runs(t, 200), 67);
	check_round_sorted("runs-saw", t, 200);

	/* 65 runs of two: one past the merge's limit */
	for (int r = 0; r < 65; r++) {
		t[2 * r] = 100 - (uint64_t)r;
		t[2 * r + 1] = 100 + (uint64_t)r % 3;
	}
	assert_int_equal(nr_runs(t, 130), 65);
	check_round_sorted("runs-65", t, 130);
}

/*
 * What a flush leaves (newer than the round's limit) is merged with the
 * next round's runs. A tag is time * 10 + k, k counting the records at that
 * time in file order, so equal times must come out as ...0 ...1 ...2.
 *   round 1: cpu0 10 30 50, cpu1 20 40 60          FR: nothing (<= 0)
 *   round 2: cpu0 55 60 70 90, cpu1 45 65 70       FR: <= 60; left 65 70 70 90
 *   round 3: cpu0 70 75 95, cpu1 66 90 100         FR: <= 90; left 95 100
 * A TIME_CONV after each of the last two rounds marks where the flush ended.
 */
static void test_runs_across_flushes(void **state)
{
	static const uint64_t rounds[3][2][4] = {
		{ { 100, 300, 500 }, { 200, 400, 600 } },
		{ { 550, 601, 700, 900 }, { 450, 650, 701 } },
		{ { 702, 750, 950 }, { 660, 901, 1000 } },
	};
	struct pcl_data_attr a;
	struct pcl_data_writer *w;
	char path[256];
	struct run run;

	(void)state;
	attr_a(&a, true, ST_A);
	w = w_create("runs-flushes", path, sizeof(path), &a, 1);
	for (int i = 0; i < 3; i++) {
		for (int cpu = 0; cpu < 2; cpu++)
			for (int k = 0; k < 4 && rounds[i][cpu][k]; k++)
				w_sample_a(w, rounds[i][cpu][k], rounds[i][cpu][k] / 10);
		assert_int_equal(pcl_data_writer__finish_round(w), 0);
		if (i)
			w_user(w, PCL_RECORD_TIME_CONV);
	}
	assert_int_equal(pcl_data_writer__close(w), 0);

	read_events(path, true, &run);
	assert_int_equal(run.ret, 0);
	assert_string_equal(run.tags, "100 200 300 400 450 500 550 600 601 U79 "
				      "650 660 700 701 702 750 900 901 U79 950 1000");
	assert_int_equal(run.st.nr_unordered, 0);
}

/* ---- samples that do not decode ---- */

#define ST_CC (ST_A | PERF_SAMPLE_CALLCHAIN)

/*
 * An ST_CC sample tagged @ip at @time, period 1000 + @ip, whose callchain
 * claims @nr ips and holds @have; @words, when not 0, cuts it to that many
 * words after the header.
 */
static void w_sample_cc(struct pcl_data_writer *w, uint64_t ip, uint64_t time, uint64_t nr,
			uint64_t have, size_t words)
{
	struct rb r;

	rb_start(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	rb_u64(&r, ip);
	rb_u32x2(&r, 42, 42);
	rb_u64(&r, time);
	rb_u64(&r, 1000 + ip);
	rb_u64(&r, nr);
	for (uint64_t k = 0; k < have; k++)
		rb_u64(&r, 0xffffffff81000000ull + k);
	if (words)
		r.n = 8 + 8 * words;
	w_rec(w, &r);
}

/*
 * Ordered, a sample is queued on its time alone and decoded when it is
 * delivered: one that does not decode then is skipped and counted, and the
 * samples around it come out in order, decoded from their own bytes. Those
 * too short for their time are skipped when read.
 */
static void test_sample_undecodable(void **state)
{
	struct pcl_data_attr a;
	struct pcl_data_writer *w;
	char path[256];
	struct run run;

	(void)state;
	attr_a(&a, true, ST_CC);
	w = w_create("undecodable", path, sizeof(path), &a, 1);
	w_sample_cc(w, 3, 30, 1, 1, 0);
	w_sample_cc(w, 66, 20, 5, 1, 0); /* claims 5 ips, holds 1 */
	w_sample_cc(w, 1, 10, 2, 2, 0);
	w_sample_cc(w, 77, 15, 0, 0, 3);	  /* ends right after the time */
	w_sample_cc(w, 99, 12, UINT64_MAX, 2, 0); /* nr * 8 wraps */
	w_sample_cc(w, 4, 40, 0, 0, 0);
	w_sample_cc(w, 88, 5, 0, 0, 2); /* ip, pid/tid: no time */
	w_sample_cc(w, 89, 5, 0, 0, 1); /* ip only */
	w_sample_cc(w, 2, 20, 1, 1, 0); /* after the corrupt one at 20 */
	assert_int_equal(pcl_data_writer__finish_round(w), 0);
	assert_int_equal(pcl_data_writer__finish_round(w), 0);
	w_user(w, PCL_RECORD_TIME_CONV);
	assert_int_equal(pcl_data_writer__close(w), 0);

	read_events(path, true, &run);
	assert_int_equal(run.ret, 0);
	assert_string_equal(run.tags, "1 2 3 4 U79");
	for (int i = 0; i < 4; i++)
		assert_int_equal(run.period[i], 1000 + i + 1);
	assert_int_equal(run.st.nr[PERF_RECORD_SAMPLE], 9);
	if (run.st.nr_undecodable != 5)
		print_message("nr_undecodable = %" PRIu64 ", expected 5 (66, 77, 99, 88, 89)\n",
			      run.st.nr_undecodable);
	assert_int_equal(run.st.nr_undecodable, 5);
	assert_int_equal(run.st.nr_unordered, 0);

	/* unordered, they are skipped when read: the same count */
	read_events(path, false, &run);
	assert_int_equal(run.ret, 0);
	assert_string_equal(run.tags, "3 1 4 2 U79");
	assert_int_equal(run.st.nr_undecodable, 5);
}

/*
 * A sample one word too short for its time must not be queued on what lies
 * past its end. Here that is the COMM read before it, whose name puts a
 * huge word where the time would be: taken for a time, it would raise the
 * round's limit and 5 would come out with round 2 instead of round 3.
 */
static void test_sample_too_short(void **state)
{
	struct pcl_data_attr a;
	struct pcl_data_writer *w;
	char path[256];
	struct run run;
	struct rb r;

	(void)state;
	attr_a(&a, true, ST_CC);
	w = w_create("too-short", path, sizeof(path), &a, 1);
	w_sample_cc(w, 1, 10, 0, 0, 0);
	assert_int_equal(pcl_data_writer__write(w, comm_a(&r, "abcdefghijklmn", true, 20)), 0);
	w_sample_cc(w, 88, 5, 0, 0, 2); /* ip, pid/tid: one word short of the time */
	w_sample_cc(w, 3, 30, 0, 0, 0);
	assert_int_equal(pcl_data_writer__finish_round(w), 0);
	w_sample_cc(w, 5, 50, 0, 0, 0);
	assert_int_equal(pcl_data_writer__finish_round(w), 0);
	w_user(w, PCL_RECORD_TIME_CONV);
	w_sample_cc(w, 6, 60, 0, 0, 0);
	assert_int_equal(pcl_data_writer__finish_round(w), 0);
	w_user(w, PCL_RECORD_TIME_CONV);
	assert_int_equal(pcl_data_writer__close(w), 0);

	read_events(path, true, &run);
	assert_int_equal(run.ret, 0);
	assert_string_equal(run.tags, "1 C:abcdefghijklmn 3 U79 5 U79 6");
	assert_int_equal(run.st.nr_undecodable, 1);
}

/* ---- attrs by id ---- */

static const uint64_t ids_x[] = { 101, 102 }, ids_y[] = { 201 };

static void two_attrs(struct pcl_data_attr a[2], uint64_t st0, uint64_t st1)
{
	memset(a, 0, 2 * sizeof(*a));
	for (int i = 0; i < 2; i++) {
		a[i].attr.size = sizeof(a[i].attr);
		a[i].attr.type = PERF_TYPE_SOFTWARE;
		a[i].attr.sample_period = 1000;
		a[i].attr.sample_id_all = 1;
		a[i].attr.comm = i == 0;
	}
	a[0].attr.config = PERF_COUNT_SW_CPU_CLOCK;
	a[0].attr.sample_type = st0;
	a[0].name = "cpu-clock";
	a[0].ids = ids_x;
	a[0].nr_ids = 2;
	a[1].attr.config = PERF_COUNT_SW_PAGE_FAULTS;
	a[1].attr.sample_type = st1;
	a[1].name = "page-faults";
	a[1].ids = ids_y;
	a[1].nr_ids = 1;
}

#define ST_ID0 (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME)

/* IDENTIFIER layout: identifier, ip, pid/tid, time[, period for attr 1]. */
static void w_sample_ident(struct pcl_data_writer *w, uint64_t id, uint64_t ip, uint64_t time,
			   bool period)
{
	struct rb r;

	rb_start(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	rb_u64(&r, id);
	rb_u64(&r, ip);
	rb_u32x2(&r, 42, 42);
	rb_u64(&r, time);
	if (period)
		rb_u64(&r, 3000 + ip);
	w_rec(w, &r);
}

static void write_ident_file(struct pcl_data_writer *w)
{
	struct rb r;

	w_sample_ident(w, 201, 3, 30, true);
	w_sample_ident(w, 101, 1, 10, false);
	w_sample_ident(w, 999, 9, 5, false); /* no such id: skipped */
	/* a COMM of attr 1: trailer pid/tid, time, identifier */
	rb_start(&r, PERF_RECORD_COMM, 0);
	rb_u32x2(&r, 42, 42);
	rb_str(&r, "ident", 16);
	rb_u32x2(&r, 42, 42);
	rb_u64(&r, 20);
	rb_u64(&r, 201);
	w_rec(w, &r);
	/* a LOST of 7 and a LOST_SAMPLES of 3, of attr 0 */
	rb_start(&r, PERF_RECORD_LOST, 0);
	rb_u64(&r, 101);
	rb_u64(&r, 7);
	rb_u32x2(&r, 42, 42);
	rb_u64(&r, 25);
	rb_u64(&r, 101);
	w_rec(w, &r);
	rb_start(&r, PERF_RECORD_LOST_SAMPLES, 0);
	rb_u64(&r, 3);
	rb_u32x2(&r, 42, 42);
	rb_u64(&r, 26);
	rb_u64(&r, 102);
	w_rec(w, &r);
	/* a sample of attr 0 cut short (identifier, ip): does not decode */
	rb_start(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	rb_u64(&r, 102);
	rb_u64(&r, 8);
	w_rec(w, &r);
	w_sample_ident(w, 102, 2, 15, false);
	assert_int_equal(pcl_data_writer__finish_round(w), 0);
}

static void check_ident_run(const struct run *run)
{
	assert_int_equal(run->ret, 0);
	assert_string_equal(run->tags, "1 2 C:ident LOST LOST_SAMPLES 3");
	assert_int_equal(run->attr_idx[0], 0);
	assert_int_equal(run->attr_idx[1], 0);
	assert_int_equal(run->attr_idx[2], 1);
	assert_int_equal(run->attr_idx[3], 0);
	assert_int_equal(run->attr_idx[4], 0);
	assert_int_equal(run->attr_idx[5], 1);
	/* decoded with attr 1's sample_type: the period is there */
	assert_int_equal(run->period[5], 3003);
	assert_int_equal(run->st.nr_unknown_id, 1);
	assert_int_equal(run->st.nr_undecodable, 1);
	assert_int_equal(run->st.total_lost, 7);
	assert_int_equal(run->st.total_lost_samples, 3);
	assert_int_equal(run->st.nr[PERF_RECORD_SAMPLE], 5);
	assert_int_equal(run->st.nr[PERF_RECORD_COMM], 1);
	assert_int_equal(run->st.nr[PERF_RECORD_LOST], 1);
}

static void test_attr_by_identifier(void **state)
{
	struct pcl_data_attr a[2];
	struct pcl_data_writer *w;
	char path[256];
	struct run run;

	(void)state;
	two_attrs(a, ST_ID0, ST_ID0 | PERF_SAMPLE_PERIOD);
	w = w_create("ident", path, sizeof(path), a, 2);
	write_ident_file(w);
	assert_int_equal(pcl_data_writer__close(w), 0);
	read_events(path, true, &run);
	check_ident_run(&run);
}

/*
 * Without IDENTIFIER the id is found at its position: the 4th word of a
 * sample (after ip, pid/tid, time), the 2nd word from the end of a trailer
 * (before cpu). A kernel record whose id is unknown goes to attr 0; a
 * sample whose id is unknown is skipped.
 */
#define ST_POS                                                                                     \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_CPU)

static void w_sample_pos(struct pcl_data_writer *w, uint64_t id, uint64_t ip, uint64_t time,
			 bool period)
{
	struct rb r;

	rb_start(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	rb_u64(&r, ip);
	rb_u32x2(&r, 42, 42);
	rb_u64(&r, time);
	rb_u64(&r, id);
	rb_u32x2(&r, 3, 0);
	if (period)
		rb_u64(&r, 4000 + ip);
	w_rec(w, &r);
}

static void w_comm_pos(struct pcl_data_writer *w, const char *comm, uint64_t id, uint64_t time)
{
	struct rb r;

	rb_start(&r, PERF_RECORD_COMM, 0);
	rb_u32x2(&r, 42, 42);
	rb_str(&r, comm, 16);
	rb_u32x2(&r, 42, 42);
	rb_u64(&r, time);
	rb_u64(&r, id);
	rb_u32x2(&r, 3, 0);
	w_rec(w, &r);
}

static void test_attr_by_id_position(void **state)
{
	struct pcl_data_attr a[2];
	struct pcl_data_writer *w;
	char path[256];
	struct run run;

	(void)state;
	two_attrs(a, ST_POS, ST_POS | PERF_SAMPLE_PERIOD);
	w = w_create("idpos", path, sizeof(path), a, 2);
	w_sample_pos(w, 201, 4, 40, true);
	w_sample_pos(w, 102, 2, 20, false);
	w_sample_pos(w, 555, 9, 25, false); /* unknown: skipped */
	w_comm_pos(w, "y", 201, 30);
	w_comm_pos(w, "unknown", 555, 35); /* unknown: attr 0 */
	w_sample_pos(w, 101, 1, 10, false);
	assert_int_equal(pcl_data_writer__finish_round(w), 0);
	assert_int_equal(pcl_data_writer__close(w), 0);

	read_events(path, true, &run);
	assert_int_equal(run.ret, 0);
	assert_string_equal(run.tags, "1 2 C:y C:unknown 4");
	assert_int_equal(run.attr_idx[0], 0);
	assert_int_equal(run.attr_idx[1], 0);
	assert_int_equal(run.attr_idx[2], 1);
	assert_int_equal(run.attr_idx[3], 0);
	assert_int_equal(run.attr_idx[4], 1);
	assert_int_equal(run.period[4], 4004);
	assert_int_equal(run.st.nr_unknown_id, 1);
	assert_int_equal(run.st.nr_undecodable, 0);
}

/* ---- pipe mode ---- */

static void test_pipe(void **state)
{
	struct pcl_data_attr a[2];
	struct pcl_data_writer *w;
	struct pcl_data_reader *r;
	const struct pcl_data_attr *ra;
	char path[256];
	struct run run;
	int fd, saved;

	(void)state;
	two_attrs(a, ST_ID0, ST_ID0 | PERF_SAMPLE_PERIOD);
	tmp_path(path, sizeof(path), "pipe");
	fflush(stdout);
	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	assert_true(fd >= 0);
	saved = dup(STDOUT_FILENO);
	dup2(fd, STDOUT_FILENO);
	close(fd);
	w = pcl_data_writer__create("-", a, 2);
	if (w) {
		write_ident_file(w);
		assert_int_equal(pcl_data_writer__close(w), 0);
	}
	dup2(saved, STDOUT_FILENO);
	close(saved);
	assert_non_null(w);

	/* the events are known when open returns */
	r = pcl_data_reader__open(path);
	assert_non_null(r);
	assert_true(pcl_data_reader__is_pipe(r));
	assert_int_equal(pcl_data_reader__nr_attrs(r), 2);
	ra = pcl_data_reader__attr(r, 0);
	assert_int_equal(ra->nr_ids, 2);
	assert_int_equal(ra->ids[1], 102);
	assert_int_equal(ra->attr.sample_type, ST_ID0);
	ra = pcl_data_reader__attr(r, 1);
	assert_int_equal(ra->nr_ids, 1);
	assert_int_equal(ra->ids[0], 201);
	assert_ptr_equal(pcl_data_reader__attr_by_id(r, 201), ra);
	assert_int_equal(pcl_data_reader__count(r, PCL_RECORD_HEADER_ATTR), 2);
	pcl_data_reader__close(r);

	read_events(path, true, &run);
	check_ident_run(&run);
	assert_int_equal(run.st.nr[PCL_RECORD_HEADER_ATTR], 2);
}

/* ---- compressed records ---- */

/*
 * The inner records: a COMM at time 1 and four samples (ip 1..4 at times
 * 40, 10, 30, 20). Sizes 48, 40, 40, 40, 40: 208 bytes.
 */
static size_t inner_records(uint8_t *out, size_t *ends)
{
	static const uint64_t times[] = { 40, 10, 30, 20 };
	struct rb r;
	size_t n = 0;

	comm_a(&r, "zhot", true, 1);
	memcpy(out + n, r.b, r.n);
	n += r.n;
	ends[0] = n;
	for (int i = 0; i < 4; i++) {
		sample_a(&r, (uint64_t)i + 1, times[i]);
		memcpy(out + n, r.b, r.n);
		n += r.n;
		ends[i + 1] = n;
	}
	return n;
}

/* A PERF_RECORD_COMPRESSED around @len bytes of @z. */
static void w_compressed(struct pcl_data_writer *w, const void *z, size_t len)
{
	uint8_t rec[8 + 4096];
	struct perf_event_header h = { .type = PCL_RECORD_COMPRESSED, .size = (uint16_t)(8 + len) };

	assert_true(len <= 4096);
	memcpy(rec, &h, 8);
	memcpy(rec + 8, z, len);
	assert_int_equal(pcl_data_writer__write(w, rec), 0);
}

static size_t zcompress(void *dst, size_t cap, const void *src, size_t len)
{
	size_t z = ZSTD_compress(dst, cap, src, len, 3);

	assert_false(ZSTD_isError(z));
	return z;
}

/*
 * Two zstd frames: records 0..1 and half of record 2, then the rest. The
 * second frame is itself split over two compressed records. Then a plain
 * sample (ip 5, time 50) and a type >= 128 record.
 */
static void write_compressed(const char *name, char *path, size_t size, uint64_t *comp_off)
{
	struct pcl_data_attr a;
	struct pcl_data_writer *w;
	uint8_t raw[512], z1[1024], z2[1024];
	size_t ends[5], n, cut, l1, l2;

	attr_a(&a, true, ST_A);
	n = inner_records(raw, ends);
	assert_int_equal(n, 208);
	cut = ends[1] + 20; /* inside record 2 (ip 2) */
	l1 = zcompress(z1, sizeof(z1), raw, cut);
	l2 = zcompress(z2, sizeof(z2), raw + cut, n - cut);
	assert_true(l2 >= 2);
	w = w_create(name, path, size, &a, 1);
	w_compressed(w, z1, l1);
	w_compressed(w, z2, l2 / 2);
	w_compressed(w, z2 + l2 / 2, l2 - l2 / 2);
	w_sample_a(w, 5, 50);
	w_type(w, 200);
	assert_int_equal(pcl_data_writer__close(w), 0);
	comp_off[0] = data_offset(path);
	/* compressed records are not padded: each is 8 + its bytes */
	comp_off[1] = comp_off[0] + 8 + l1;
	comp_off[2] = comp_off[1] + 8 + l2 / 2;
}

/* The reader expands them: the inner records byte for byte, counted. */
static void test_compressed_reader(void **state)
{
	struct pcl_data_reader *r;
	const struct perf_event_header *h;
	uint8_t raw[512];
	size_t ends[5], start = 0;
	uint64_t off[3];
	char path[256];
	int i = 0;

	(void)state;
	write_compressed("zstd", path, sizeof(path), off);
	inner_records(raw, ends);
	r = pcl_data_reader__open(path);
	assert_non_null(r);
	while ((h = pcl_data_reader__next(r))) {
		if (i < 5) {
			assert_int_equal(h->size, ends[i] - start);
			assert_memory_equal(h, raw + start, h->size);
			/* an inner record is at its compressed record's offset */
			if (i < 2)
				assert_int_equal(pcl_data_reader__offset(r), off[0]);
			else
				assert_true(pcl_data_reader__offset(r) == off[1] ||
					    pcl_data_reader__offset(r) == off[2]);
			start = ends[i];
		} else if (i == 5) {
			assert_int_equal(h->type, PERF_RECORD_SAMPLE);
		} else {
			assert_int_equal(h->type, 200);
		}
		i++;
	}
	assert_int_equal(errno, 0);
	assert_int_equal(i, 7);
	assert_false(pcl_data_reader__truncated(r));
	assert_int_equal(pcl_data_reader__nr_compressed(r), 3);
	assert_int_equal(pcl_data_reader__count(r, PCL_RECORD_COMPRESSED), 3);
	assert_int_equal(pcl_data_reader__count(r, PERF_RECORD_SAMPLE), 5);
	assert_int_equal(pcl_data_reader__count(r, PERF_RECORD_COMM), 1);
	assert_int_equal(pcl_data_reader__count(r, PERF_RECORD_MMAP), 0);
	/* a type >= 128 is counted as 0 */
	assert_int_equal(pcl_data_reader__count(r, 0), 1);
	pcl_data_reader__close(r);
}

/* And the events layer orders what came out of them. */
static void test_compressed_events(void **state)
{
	uint64_t off[3];
	char path[256];
	struct run run;

	(void)state;
	write_compressed("zstd-events", path, sizeof(path), off);
	read_events(path, true, &run);
	assert_int_equal(run.ret, 0);
	assert_string_equal(run.tags, "U200 C:zhot 2 4 3 1 5");
	assert_int_equal(run.nr_compressed, 3);
	assert_int_equal(run.st.nr[PCL_RECORD_COMPRESSED], 3);
	assert_int_equal(run.st.nr[PERF_RECORD_SAMPLE], 5);
	assert_int_equal(run.offset[1], off[0]);
	read_events(path, false, &run);
	assert_string_equal(run.tags, "C:zhot 1 2 3 4 5 U200");
}

/* A compressed record that is not zstd: -EBADMSG naming its offset. */
static void test_compressed_corrupt(void **state)
{
	struct pcl_data_attr a;
	struct pcl_data_writer *w;
	uint8_t junk[24];
	char path[256], want[128];
	struct run run;
	uint64_t off;

	(void)state;
	attr_a(&a, true, ST_A);
	memset(junk, 0xaa, sizeof(junk));
	w = w_create("zstd-corrupt", path, sizeof(path), &a, 1);
	w_sample_a(w, 1, 10);
	w_compressed(w, junk, sizeof(junk));
	w_sample_a(w, 2, 20);
	assert_int_equal(pcl_data_writer__close(w), 0);
	off = data_offset(path) + 40;
	snprintf(want, sizeof(want), "corrupt compressed record at offset %#" PRIx64, off);

	read_events(path, false, &run);
	assert_string_equal(run.tags, "1");
	assert_int_equal(run.ret, -EBADMSG);
	if (!strstr(run.err, want))
		print_message("message '%s' lacks '%s'\n", run.err, want);
	assert_non_null(strstr(run.err, want));

	read_events(path, true, &run);
	assert_int_equal(run.ret, -EBADMSG);
	assert_non_null(strstr(run.err, want));
}

/* Valid zstd whose content is a record of size 4: -EBADMSG, same offset. */
static void test_compressed_bad_inner(void **state)
{
	struct pcl_data_attr a;
	struct pcl_data_writer *w;
	struct perf_event_header bad = { .type = PERF_RECORD_SAMPLE, .size = 4 };
	uint8_t raw[64], z[256];
	size_t ends[5], zl;
	char path[256], want[128];
	struct run run;
	struct rb r;

	(void)state;
	attr_a(&a, true, ST_A);
	sample_a(&r, 1, 10);
	memcpy(raw, r.b, r.n);
	memcpy(raw + r.n, &bad, 8);
	zl = zcompress(z, sizeof(z), raw, r.n + 8);
	(void)ends;
	w = w_create("zstd-bad-inner", path, sizeof(path), &a, 1);
	w_sample_a(w, 7, 5);
	w_compressed(w, z, zl);
	assert_int_equal(pcl_data_writer__close(w), 0);
	snprintf(want, sizeof(want), "inside the compressed record at offset %#" PRIx64,
		 data_offset(path) + 40);

	read_events(path, false, &run);
	assert_string_equal(run.tags, "7 1");
	assert_int_equal(run.ret, -EBADMSG);
	if (!strstr(run.err, want))
		print_message("message '%s' lacks '%s'\n", run.err, want);
	assert_non_null(strstr(run.err, want));
}

/* A zstd stream that stops inside a record, at the end of the file: cut, not corrupt. */
static void test_compressed_cut(void **state)
{
	struct pcl_data_attr a;
	struct pcl_data_writer *w;
	uint8_t raw[512], z[1024];
	size_t ends[5], zl;
	char path[256];
	struct run run;

	(void)state;
	attr_a(&a, true, ST_A);
	inner_records(raw, ends);
	zl = zcompress(z, sizeof(z), raw, ends[1] + 20);
	w = w_create("zstd-cut", path, sizeof(path), &a, 1);
	w_compressed(w, z, zl);
	assert_int_equal(pcl_data_writer__close(w), 0);
	read_events(path, true, &run);
	assert_int_equal(run.ret, 0);
	assert_string_equal(run.tags, "C:zhot 1");
	assert_true(run.truncated);
}

/* ---- truncated files ---- */

/*
 * The rounds file cut 4 bytes into its 10th record (sample 15, the first of
 * round 3): the records before the cut come out, in order; the end is
 * clean, with truncated() set.
 */
static void test_truncated(void **state)
{
	struct pcl_data_attr a;
	struct pcl_data_writer *w;
	char path[256];
	struct run run;
	uint64_t cut;

	(void)state;
	attr_a(&a, true, ST_A);
	w = w_create("cut", path, sizeof(path), &a, 1);
	write_rounds(w);
	assert_int_equal(pcl_data_writer__close(w), 0);
	/* 30 10 20 FR 25 5 40 U79 FR | 15: 6 samples of 40, 2 rounds of 8, U79 of 16 */
	cut = data_offset(path) + 6 * 40 + 2 * 8 + 16;
	assert_int_equal(truncate(path, (off_t)cut + 4), 0);
	read_events(path, true, &run);
	assert_int_equal(run.ret, 0);
	assert_string_equal(run.tags, "U79 5 10 20 25 30 40");
	assert_true(run.truncated);

	/* cut exactly between two records: the same records, still cut */
	assert_int_equal(truncate(path, (off_t)cut), 0);
	read_events(path, true, &run);
	assert_int_equal(run.ret, 0);
	assert_string_equal(run.tags, "U79 5 10 20 25 30 40");
	assert_true(run.truncated);

	/* the whole file is not truncated */
	w = w_create("whole", path, sizeof(path), &a, 1);
	write_rounds(w);
	assert_int_equal(pcl_data_writer__close(w), 0);
	read_events(path, true, &run);
	assert_false(run.truncated);
}

/* ---- counts ---- */

static void test_count(void **state)
{
	struct pcl_data_attr a;
	struct pcl_data_writer *w;
	struct pcl_data_reader *r;
	struct pcl_data_events *e;
	struct pcl_data_event ev;
	char path[256];
	struct rb rec;

	(void)state;
	attr_a(&a, true, ST_A);
	w = w_create("count", path, sizeof(path), &a, 1);
	write_rounds(w);
	assert_int_equal(pcl_data_writer__write(w, comm_a(&rec, "c", true, 60)), 0);
	w_type(w, PCL_RECORD_FINISHED_INIT);
	assert_int_equal(pcl_data_writer__close(w), 0);

	assert_int_equal(pcl_data_reader__count(NULL, PERF_RECORD_SAMPLE), 0);
	r = pcl_data_reader__open(path);
	assert_non_null(r);
	e = pcl_data_events__new(r, true);
	assert_non_null(e);
	assert_int_equal(pcl_data_reader__count(r, PERF_RECORD_SAMPLE), 0);
	/* the first event (U79) comes after 3 samples, a round, 3 samples */
	assert_int_equal(pcl_data_events__next(e, &ev), 1);
	assert_int_equal(ev.hdr->type, PCL_RECORD_TIME_CONV);
	assert_int_equal(pcl_data_reader__count(r, PERF_RECORD_SAMPLE), 6);
	assert_int_equal(pcl_data_reader__count(r, PCL_RECORD_FINISHED_ROUND), 1);
	while (pcl_data_events__next(e, &ev) == 1)
		;
	assert_int_equal(pcl_data_reader__count(r, PERF_RECORD_SAMPLE), 9);
	assert_int_equal(pcl_data_reader__count(r, PERF_RECORD_COMM), 1);
	assert_int_equal(pcl_data_reader__count(r, PCL_RECORD_FINISHED_ROUND), 2);
	assert_int_equal(pcl_data_reader__count(r, PCL_RECORD_FINISHED_INIT), 1);
	assert_int_equal(pcl_data_reader__count(r, PCL_RECORD_THREAD_MAP), 1);
	assert_int_equal(pcl_data_reader__count(r, PERF_RECORD_MMAP2), 0);
	assert_int_equal(pcl_data_events__stats(e)->nr[PERF_RECORD_SAMPLE], 9);
	assert_int_equal(pcl_data_events__stats(e)->nr[PCL_RECORD_FINISHED_INIT], 1);
	pcl_data_events__free(e);
	pcl_data_reader__close(r);
}

static void test_bad_args(void **state)
{
	struct pcl_data_event ev;

	(void)state;
	errno = 0;
	assert_null(pcl_data_events__new(NULL, true));
	assert_int_equal(errno, EINVAL);
	assert_int_equal(pcl_data_events__next(NULL, &ev), -EINVAL);
	assert_null(pcl_data_events__stats(NULL));
	pcl_data_events__free(NULL);
}

static void remove_tmpdir(void)
{
	unit_remove_dir(tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		UNIT_TEST(test_rounds_ordered),
		UNIT_TEST(test_rounds_unordered),
		UNIT_TEST(test_unordered_count),
		UNIT_TEST(test_equal_times),
		UNIT_TEST(test_finished_init),
		UNIT_TEST(test_no_time),
		UNIT_TEST(test_many_runs),
		UNIT_TEST(test_many_runs_qsort),
		UNIT_TEST(test_runs_across_flushes),
		UNIT_TEST(test_sample_undecodable),
		UNIT_TEST(test_sample_too_short),
		UNIT_TEST(test_attr_by_identifier),
		UNIT_TEST(test_attr_by_id_position),
		UNIT_TEST(test_pipe),
		UNIT_TEST(test_compressed_reader),
		UNIT_TEST(test_compressed_events),
		UNIT_TEST(test_compressed_corrupt),
		UNIT_TEST(test_compressed_bad_inner),
		UNIT_TEST(test_compressed_cut),
		UNIT_TEST(test_truncated),
		UNIT_TEST(test_count),
		UNIT_TEST(test_bad_args),
	};
	int ret;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/pcl-test-events-XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	ret = cmocka_run_group_tests_name("read here", tests, NULL, NULL);
	prefetching = true;
	ret |= cmocka_run_group_tests_name("read ahead", tests, NULL, NULL);
	remove_tmpdir();
	return ret;
}
