/* SPDX-License-Identifier: MIT */
/*
 * The mmap-page reader (lib/self/mmap-page.c) on synthetic pages: the count
 * (offset plus rdpmc sign-extended from pmc_width), the time arithmetic of
 * perf_event.h (time_offset + quot * time_mult + ((rem * time_mult) >>
 * time_shift), with time_cycles/time_mask when cap_user_time_short), the
 * seqlock (a version that changes under the reader is read again; a lock
 * that stays odd gives up), and pcl_mmap_page_tsc_to_time(). The hardware
 * reads are test functions handed in through struct page_hw, so every
 * expected value is computed by hand and written down.
 *
 * Then real pages: a software counter's page never offers rdpmc, and an
 * `instructions` counter's page, when it does, agrees with read(2).
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include <pcl/pcl.h>
#include "internal.h"
#include "self/self.h"
#include "unit.h"

/* The "hardware" of a synthetic page, and what the reader asked of it. */
struct fake {
	struct perf_event_mmap_page *pg;
	uint64_t pmc, tsc;
	int rdpmc_calls, rdtsc_calls;
	unsigned int counter; /* the argument of the last rdpmc */
	/*
	 * bump > 0: the first @bump rdpmc calls each act as the kernel
	 * rewriting the page under the reader: lock += 2 and the page takes
	 * the values of version @next.
	 */
	int bump;
	int64_t next_offset;
	uint64_t next_enabled, next_running, next_pmc;
};

static uint64_t fake_rdpmc(unsigned int counter, void *ctx)
{
	struct fake *f = ctx;
	uint64_t v = f->pmc;

	f->rdpmc_calls++;
	f->counter = counter;
	if (f->bump > 0) {
		f->bump--;
		f->pg->lock += 2;
		f->pg->offset = f->next_offset;
		f->pg->time_enabled = f->next_enabled;
		f->pg->time_running = f->next_running;
		f->pmc = f->next_pmc;
	}
	return v;
}

static uint64_t fake_rdtsc(void *ctx)
{
	struct fake *f = ctx;

	f->rdtsc_calls++;
	return f->tsc;
}

static struct perf_event_mmap_page *new_page(void)
{
	struct perf_event_mmap_page *pg = calloc(1, sizeof(*pg));

	assert_non_null(pg);
	return pg;
}

static int read_fake(struct perf_event_mmap_page *pg, struct fake *f, struct pcl_count *out)
{
	struct page_hw hw = { fake_rdpmc, fake_rdtsc, f };

	f->pg = pg;
	memset(out, 0xa5, sizeof(*out));
	return mmap_page_read_hw(pg, &hw, out);
}

/* ---- the count ---- */

static const struct count_row {
	const char *name;
	int64_t offset;
	uint32_t index;
	uint16_t width;
	uint64_t pmc;
	uint64_t want;
} count_rows[] = {
	{ "width 48, all ones is -1", 1000, 1, 48, 0xffffffffffffull, 999 },
	{ "width 48, top bit clear", 1000, 3, 48, 0x7fffffffffffull, 1000 + 0x7fffffffffffull },
	{ "width 48, top bit alone", 0x1000000000000ll, 2, 48, 0x800000000000ull,
	  0x800000000000ull },
	{ "width 48, bits above ignored", 7, 1, 48, 0xabcd000000000005ull, 12 },
	{ "width 40, -256", 10000, 1, 40, 0xffffffff00ull, 9744 },
	{ "width 64, no extension", 5, 1, 64, 0xffffffffffffffffull, 4 },
	{ "negative offset", -100, 1, 48, 150, 50 },
	{ "index 5 is counter 4", 0, 5, 48, 42, 42 },
};

static void test_count(void **state)
{
	struct perf_event_mmap_page *pg = new_page();
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(count_rows); i++) {
		const struct count_row *r = &count_rows[i];
		struct fake f = { .pmc = r->pmc };
		struct pcl_count out;
		int ret;

		memset(pg, 0, sizeof(*pg));
		pg->lock = 4;
		pg->cap_user_rdpmc = 1;
		pg->index = r->index;
		pg->offset = r->offset;
		pg->pmc_width = r->width;
		pg->time_enabled = 111;
		pg->time_running = 99;
		ret = read_fake(pg, &f, &out);
		bad += differ(r->name, "return", (uint64_t)ret, 0);
		bad += differ(r->name, "count", out.val, r->want);
		bad += differ(r->name, "rdpmc counter", f.counter, r->index - 1);
		bad += differ(r->name, "rdpmc calls", (uint64_t)f.rdpmc_calls, 1);
		/* no cap_user_time: the page's times as they are, no TSC read */
		bad += differ(r->name, "ena", out.ena, 111);
		bad += differ(r->name, "run", out.run, 99);
		bad += differ(r->name, "rdtsc calls", (uint64_t)f.rdtsc_calls, 0);
		bad += differ(r->name, "id", out.id, 0);
	}
	free(pg);
	assert_int_equal(bad, 0);
}

/* index 0 (not on the PMU now) or no cap_user_rdpmc: only read(2) knows the count. */
static void test_no_count(void **state)
{
	struct perf_event_mmap_page *pg = new_page();
	struct fake f = { .pmc = 5 };
	struct pcl_count out;
	struct page_hw hw = { fake_rdpmc, fake_rdtsc, &f };

	(void)state;
	pg->cap_user_rdpmc = 1;
	pg->index = 0;
	pg->pmc_width = 48;
	assert_int_equal(read_fake(pg, &f, &out), -EAGAIN);
	assert_int_equal(f.rdpmc_calls, 0);

	memset(&f, 0, sizeof(f));
	pg->cap_user_rdpmc = 0;
	pg->index = 1;
	assert_int_equal(read_fake(pg, &f, &out), -EAGAIN);
	assert_int_equal(f.rdpmc_calls, 0);

	assert_int_equal(mmap_page_read_hw(NULL, &hw, &out), -EINVAL);
	assert_int_equal(mmap_page_read_hw(pg, &hw, NULL), -EINVAL);
	free(pg);
}

/* ---- the times ---- */

/*
 * Expected deltas computed by hand from the manual's formula:
 *   cyc = time_cycles + ((cyc - time_cycles) & time_mask)   (short only)
 *   quot = cyc >> shift, rem = cyc & ((1 << shift) - 1)
 *   delta = time_offset + quot * mult + ((rem * mult) >> shift)
 */
static const struct time_row {
	const char *name;
	uint64_t tsc;
	uint32_t mult;
	uint16_t shift;
	uint64_t offset;
	bool short_;
	uint64_t cycles, mask;
	uint64_t delta;
} time_rows[] = {
	/* quot 976, rem 576: 12345 + 976 * 500 + (576 * 500 >> 10 = 281) */
	{ "small", 1000000, 500, 10, 12345, false, 0, 0, 500626 },
	/* quot 610839793, rem 448585456: cyc * mult would overflow 64 bits */
	{ "large cyc", 0x123456789abcdef0ull, 0x2aaaaaab, 31, 0, false, 0, 0,
	  437256156024876704ull },
	/* time_offset is "negative": the sum wraps */
	{ "negative offset", 0x00ffffffffffffffull, 3, 1, (uint64_t)-1000, false, 0, 0,
	  108086391056890902ull },
	/* shift 0: no remainder */
	{ "shift 0", 12345, 7, 0, 5, false, 0, 0, 86420 },
	/* short: cyc 0x123456 -> 0x1000 + (0x122456 & 0xffff) = 0x3456 = 13398; quot 1674, rem 6 */
	{ "short", 0x123456, 1000, 3, 7, true, 0x1000, 0xffff, 1674757 },
	/* short, wrapped below time_cycles: 0x1000 + (-1 & 0xffff) = 0x10fff; quot 8703, rem 7 */
	{ "short wrapped", 0x0fff, 1000, 3, 7, true, 0x1000, 0xffff, 8703882 },
};

static void test_time(void **state)
{
	struct perf_event_mmap_page *pg = new_page();
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(time_rows); i++) {
		const struct time_row *r = &time_rows[i];
		struct fake f = { .pmc = 10, .tsc = r->tsc };
		struct pcl_count out;
		int ret;

		memset(pg, 0, sizeof(*pg));
		pg->cap_user_rdpmc = 1;
		pg->cap_user_time = 1;
		pg->cap_user_time_short = r->short_;
		pg->index = 1;
		pg->offset = 1;
		pg->pmc_width = 48;
		pg->time_enabled = 1000;
		pg->time_running = 500;
		pg->time_mult = r->mult;
		pg->time_shift = r->shift;
		pg->time_offset = r->offset;
		pg->time_cycles = r->cycles;
		pg->time_mask = r->mask;
		ret = read_fake(pg, &f, &out);
		bad += differ(r->name, "return", (uint64_t)ret, 0);
		bad += differ(r->name, "count", out.val, 11);
		bad += differ(r->name, "ena", out.ena, 1000 + r->delta);
		bad += differ(r->name, "run", out.run, 500 + r->delta);
		bad += differ(r->name, "rdtsc calls", (uint64_t)f.rdtsc_calls, 1);
		bad += differ(r->name, "cyc_to_ns",
			      mmap_page_cyc_to_ns(pg, r->tsc, r->mult, r->shift, r->offset),
			      r->delta);
	}
	free(pg);
	assert_int_equal(bad, 0);
}

/* A page with cap_user_time and no TSC reader: the times as they are. */
static void test_time_no_rdtsc(void **state)
{
	struct perf_event_mmap_page *pg = new_page();
	struct fake f = { .pmc = 3 };
	struct page_hw hw = { fake_rdpmc, NULL, &f };
	struct pcl_count out;

	(void)state;
	f.pg = pg;
	pg->cap_user_rdpmc = 1;
	pg->cap_user_time = 1;
	pg->index = 2;
	pg->pmc_width = 48;
	pg->time_enabled = 70;
	pg->time_running = 60;
	pg->time_mult = 1;
	pg->time_offset = 1000;
	assert_int_equal(mmap_page_read_hw(pg, &hw, &out), 0);
	assert_int_equal(out.val, 3);
	assert_int_equal(out.ena, 70);
	assert_int_equal(out.run, 60);
	free(pg);
}

/* ---- the seqlock ---- */

/* The page changes while the reader is at it: it reads again and returns the new version. */
static void test_seqlock_retry(void **state)
{
	struct perf_event_mmap_page *pg = new_page();
	struct fake f = {
		.pmc = 100,
		.tsc = 1000000,
		.bump = 1,
		.next_offset = 5000,
		.next_enabled = 7000,
		.next_running = 6000,
		.next_pmc = 200,
	};
	struct pcl_count out;

	(void)state;
	pg->lock = 10;
	pg->cap_user_rdpmc = 1;
	pg->cap_user_time = 1;
	pg->index = 1;
	pg->pmc_width = 48;
	pg->offset = 1;
	pg->time_enabled = 2;
	pg->time_running = 3;
	pg->time_mult = 500;
	pg->time_shift = 10;
	pg->time_offset = 12345;
	assert_int_equal(read_fake(pg, &f, &out), 0);
	assert_int_equal(f.rdpmc_calls, 2);
	assert_int_equal(pg->lock, 12);
	/* the second version only: offset 5000 + pmc 200, its times + delta 500626 */
	assert_int_equal(out.val, 5200);
	assert_int_equal(out.ena, 7000 + 500626);
	assert_int_equal(out.run, 6000 + 500626);

	/* three rewrites in a row: still the last version */
	memset(&f, 0, sizeof(f));
	f.pmc = 1;
	f.bump = 3;
	f.next_offset = 40;
	f.next_pmc = 2;
	f.next_enabled = 9;
	f.next_running = 8;
	pg->cap_user_time = 0;
	assert_int_equal(read_fake(pg, &f, &out), 0);
	assert_int_equal(f.rdpmc_calls, 4);
	assert_int_equal(out.val, 42);
	assert_int_equal(out.ena, 9);
	assert_int_equal(out.run, 8);
	free(pg);
}

/* A lock that never settles: bounded tries, then -EAGAIN (the caller falls back to read(2)). */
static void test_seqlock_gives_up(void **state)
{
	struct perf_event_mmap_page *pg = new_page();
	struct fake f = { .pmc = 1 };
	struct pcl_count out;

	(void)state;
	/* odd: the kernel is "always" rewriting it */
	pg->lock = 1;
	pg->cap_user_rdpmc = 1;
	pg->index = 1;
	pg->pmc_width = 48;
	assert_int_equal(read_fake(pg, &f, &out), -EAGAIN);
	assert_int_equal(f.rdpmc_calls, 0);

	/* even, but rewritten under every read */
	memset(&f, 0, sizeof(f));
	pg->lock = 2;
	f.bump = 1000000;
	f.next_pmc = 1;
	assert_int_equal(read_fake(pg, &f, &out), -EAGAIN);
	print_message("# a page rewritten under every read: gave up after %d reads\n",
		      f.rdpmc_calls);
	assert_true(f.rdpmc_calls >= 2 && f.rdpmc_calls <= 1000);
	free(pg);
}

/* ---- TSC to perf time ---- */

static void test_tsc_to_time(void **state)
{
	struct perf_event_mmap_page *pg = new_page();

	(void)state;
	pg->time_mult = 500;
	pg->time_shift = 10;
	pg->time_zero = 12345;
	pg->time_offset = 999; /* not used: time_zero is the origin of sample times */
	/* no cap_user_time_zero: 0 */
	assert_int_equal(pcl_mmap_page_tsc_to_time(pg, 1000000), 0);
	assert_int_equal(pcl_mmap_page_tsc_to_time(NULL, 1000000), 0);
	pg->cap_user_time_zero = 1;
	/* quot 976, rem 576: 12345 + 488000 + 281 */
	assert_int_equal(pcl_mmap_page_tsc_to_time(pg, 1000000), 500626);
	assert_int_equal(pcl_mmap_page_tsc_to_time(pg, 0), 12345);
	pg->time_mult = 0x2aaaaaab;
	pg->time_shift = 31;
	pg->time_zero = 0;
	assert_int_equal(pcl_mmap_page_tsc_to_time(pg, 0x123456789abcdef0ull),
			 437256156024876704ull);
	/* short counters (arm64) wrap the same way as for the times */
	pg->time_mult = 1000;
	pg->time_shift = 3;
	pg->time_zero = 7;
	pg->cap_user_time_short = 1;
	pg->time_cycles = 0x1000;
	pg->time_mask = 0xffff;
	assert_int_equal(pcl_mmap_page_tsc_to_time(pg, 0x123456), 1674757);
	free(pg);
}

/* ---- real pages ---- */

static long page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

/* A software counter's page: the kernel never offers rdpmc for it. */
static void test_software_page(void **state)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING,
	};
	struct perf_event_mmap_page *pg;
	struct pcl_count out;
	int fd;

	(void)state;
	fd = pcl_perf_event_open(&a, 0, -1, -1, 0);
	if (fd < 0)
		print_message("task-clock does not open: %s\n", pcl_strerror(fd));
	assert_true(fd >= 0);
	pg = mmap(NULL, (size_t)page_size(), PROT_READ, MAP_SHARED, fd, 0);
	assert_true(pg != MAP_FAILED);
	assert_int_equal(pg->cap_user_rdpmc, 0);
	assert_int_equal(pcl_mmap_page_read(pg, &out), -EAGAIN);
	munmap(pg, (size_t)page_size());
	close(fd);
}

static void burn(int n)
{
	volatile unsigned long x = 0;

	for (int i = 0; i < n; i++)
		x += (unsigned long)i * 3;
}

/*
 * With a hardware PMU that lets user space read it: each rdpmc read lies
 * between the read(2) before it and the one after it, times included.
 */
static void test_rdpmc_real(void **state)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_INSTRUCTIONS,
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	struct perf_event_mmap_page *pg = MAP_FAILED;
	int fd, bad = 0;

	(void)state;
	fd = pcl_perf_event_open(&a, 0, -1, -1, 0);
	if (fd >= 0)
		pg = mmap(NULL, (size_t)page_size(), PROT_READ, MAP_SHARED, fd, 0);
	if (fd < 0 || pg == MAP_FAILED || !pg->cap_user_rdpmc) {
		if (pg != MAP_FAILED)
			munmap(pg, (size_t)page_size());
		if (fd >= 0)
			close(fd);
		print_message("no cap_user_rdpmc on this machine (no hardware PMU)\n");
		skip();
	}
	for (int i = 0; i < 100; i++) {
		uint64_t before[3], after[3];
		struct pcl_count mid;
		int ret;

		assert_int_equal(read(fd, before, sizeof(before)), sizeof(before));
		ret = pcl_mmap_page_read(pg, &mid);
		assert_int_equal(read(fd, after, sizeof(after)), sizeof(after));
		burn(1000);
		if (ret == -EAGAIN)
			continue; /* off the PMU at that instant: allowed, read(2) then */
		assert_int_equal(ret, 0);
		bad += mid.val < before[0] || mid.val > after[0];
		bad += mid.ena < before[1] || mid.ena > after[1];
		bad += mid.run < before[2] || mid.run > after[2];
		if (bad) {
			print_message("read(2) %llu, rdpmc %llu, read(2) %llu\n",
				      (unsigned long long)before[0], (unsigned long long)mid.val,
				      (unsigned long long)after[0]);
			break;
		}
	}
	munmap(pg, (size_t)page_size());
	close(fd);
	assert_int_equal(bad, 0);
}

int main(void)
{
	/* clang-format off */
	const struct CMUnitTest tests[] = {
		UNIT_TEST(test_count),
		UNIT_TEST(test_no_count),
		UNIT_TEST(test_time),
		UNIT_TEST(test_time_no_rdtsc),
		UNIT_TEST(test_seqlock_retry),
		UNIT_TEST(test_seqlock_gives_up),
		UNIT_TEST(test_tsc_to_time),
		UNIT_TEST(test_software_page),
		UNIT_TEST(test_rdpmc_real),
	};
	/* clang-format on */

	return cmocka_run_group_tests(tests, NULL, NULL);
}
