/* SPDX-License-Identifier: MIT */
/*
 * The ring buffer on real records: page-fault samples of this process,
 * read through wrap-around in a small ring, in overwrite (backward) mode,
 * with two events sharing one ring (SET_OUTPUT), and lost records counted.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <pcl/pcl.h>
#include "unit.h"

static int open_faults(uint64_t config, bool backward)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(a),
		.config = config,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_IDENTIFIER,
		.disabled = 1,
		.exclude_kernel = 1,
		.write_backward = backward,
	};

	return pcl_perf_event_open(&a, 0, -1, -1, 0);
}

/* Touch @n fresh pages: n page faults (and minor faults). */
static void touch(int n)
{
	long ps = getpagesize();
	char *p = mmap(NULL, (size_t)n * (size_t)ps, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(p != MAP_FAILED);
	for (int i = 0; i < n; i++)
		p[(long)i * ps] = 1;
	munmap(p, (size_t)n * (size_t)ps);
}

static const struct perf_event_attr sample_attr = {
	.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_IDENTIFIER,
};

/* Read what the ring holds; count our samples, check each decodes as ours. */
static int drain(struct pcl_ring *r, uint64_t want_id, int *other)
{
	const struct perf_event_header *h;
	struct pcl_record rec;
	int n = 0;

	assert_int_equal(pcl_ring__read_begin(r), 0);
	while ((h = pcl_ring__next(r))) {
		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		assert_int_equal(pcl_record_decode(h, h->size, &sample_attr, &rec), 0);
		assert_int_equal(rec.sample.pid, getpid());
		if (!want_id || rec.sample.identifier == want_id)
			n++;
		else if (other)
			(*other)++;
	}
	pcl_ring__read_end(r);
	return n;
}

/* A one-page ring read in rounds: records wrap around its end many times. */
static void test_wraparound(void **state)
{
	int fd = open_faults(PERF_COUNT_SW_PAGE_FAULTS, false), total = 0;
	struct pcl_ring *r;

	(void)state;
	assert_true(fd >= 0);
	r = pcl_ring__mmap(fd, 1, false);
	assert_non_null(r);
	for (int round = 0; round < 40; round++) {
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		touch(20);
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		total += drain(r, 0, NULL);
		assert_int_equal(pcl_ring__pending(r), 0);
	}
	/* 40 rounds of 32-byte samples pass a 4 KiB ring several times over */
	assert_true(total >= 40 * 20);
	pcl_ring__munmap(r);
	close(fd);
}

static void test_bad_sizes(void **state)
{
	(void)state;
	assert_null(pcl_ring__mmap(-1, 8, false));
	assert_null(pcl_ring__mmap(0, 3, false)); /* not a power of two */
	assert_int_equal(errno, EINVAL);
}

/* Overwrite mode: the kernel writes backward; we pause and read the newest records. */
static void test_overwrite(void **state)
{
	int fd = open_faults(PERF_COUNT_SW_PAGE_FAULTS, true), n;
	struct pcl_ring *r;

	(void)state;
	assert_true(fd >= 0);
	r = pcl_ring__mmap(fd, 1, true);
	assert_non_null(r);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	touch(500); /* far more than one page holds: old records are overwritten */
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	assert_int_equal(pcl_ring__pause(r, true), 0);
	n = drain(r, 0, NULL);
	assert_int_equal(pcl_ring__pause(r, false), 0);
	print_message("overwrite ring held %d of 500 samples\n", n);
	assert_true(n > 10 && n < 500);
	/* a second read gives what came since the first, not the first's again */
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	touch(5);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	assert_int_equal(pcl_ring__pause(r, true), 0);
	n = drain(r, 0, NULL);
	assert_int_equal(pcl_ring__pause(r, false), 0);
	print_message("then %d new samples for 5 pages touched\n", n);
	assert_true(n >= 5 && n < 10);
	/* and nothing when nothing came */
	assert_int_equal(drain(r, 0, NULL), 0);
	pcl_ring__munmap(r);
	close(fd);
}

/* Two events, one ring: the second's records arrive through SET_OUTPUT. */
static void test_set_output(void **state)
{
	int a = open_faults(PERF_COUNT_SW_PAGE_FAULTS, false);
	int b = open_faults(PERF_COUNT_SW_PAGE_FAULTS_MIN, false), others = 0, mine;
	struct pcl_ring *r;
	uint64_t ida;

	(void)state;
	assert_true(a >= 0 && b >= 0);
	r = pcl_ring__mmap(a, 8, false);
	assert_non_null(r);
	assert_int_equal(pcl_ring_set_output(b, a), 0);
	assert_int_equal(ioctl(a, PERF_EVENT_IOC_ID, &ida), 0);
	ioctl(a, PERF_EVENT_IOC_ENABLE, 0);
	ioctl(b, PERF_EVENT_IOC_ENABLE, 0);
	touch(50);
	ioctl(a, PERF_EVENT_IOC_DISABLE, 0);
	ioctl(b, PERF_EVENT_IOC_DISABLE, 0);
	mine = drain(r, ida, &others);
	assert_true(mine >= 50);
	assert_true(others >= 50);
	pcl_ring__munmap(r);
	close(b);
	close(a);
}

/* A ring never read while records pour in: the kernel reports what it dropped. */
static void test_lost(void **state)
{
	int fd = open_faults(PERF_COUNT_SW_PAGE_FAULTS, false);
	struct pcl_ring_stats st;
	struct pcl_ring *r;

	(void)state;
	assert_true(fd >= 0);
	r = pcl_ring__mmap(fd, 1, false);
	assert_non_null(r);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	touch(1000);
	drain(r, 0, NULL); /* frees the space the LOST record needs */
	touch(10);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	drain(r, 0, NULL);
	pcl_ring__stats(r, &st);
	print_message("lost %llu samples in %llu LOST records\n", (unsigned long long)st.lost,
		      (unsigned long long)st.lost_records);
	assert_true(st.lost_records >= 1);
	assert_true(st.lost > 500);
	assert_true(st.records > 0 && st.bytes > 0);
	pcl_ring__munmap(r);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		UNIT_TEST(test_wraparound), UNIT_TEST(test_bad_sizes), UNIT_TEST(test_overwrite),
		UNIT_TEST(test_set_output), UNIT_TEST(test_lost),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
