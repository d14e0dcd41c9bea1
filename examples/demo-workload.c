/* SPDX-License-Identifier: MIT */
/*
 * The workload `make demo` profiles: small, deterministic, about 0.3 s.
 *
 * It does a known amount of each thing pcl can count without a hardware
 * PMU, so the numbers pcl prints can be checked by eye:
 *   - CPU work in three named hot functions (sum_primes, hash_bytes,
 *     mat_mul), noinline so profiles show each one;
 *   - DEMO_PAGES fresh anonymous pages, one write each (one minor fault
 *     per page: transparent huge pages are turned off for the mapping);
 *   - DEMO_WRITES write() calls to /dev/null, split between the parent
 *     and a forked child (pcl stat counts children by default);
 *   - one fork(), whose child runs hash_bytes while the parent runs the rest.
 * The work is fixed, not the time: a slower machine just takes longer.
 * One line on stderr says what was done, with a checksum that keeps the
 * compiler from dropping the work.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define DEMO_PAGES	  2000
#define DEMO_WRITES	  1000
#define DEMO_CHILD_WRITES 200
#define PRIME_LIMIT	  1300000
#define HASH_ROUNDS	  3000
#define MAT_N		  96
#define MAT_REPS	  400

/* Hot functions keep their own names in profiles: no inlining, no
 * ".constprop" clones. */
#if defined(__GNUC__) && !defined(__clang__)
#define NOINLINE __attribute__((noinline, noclone))
#else
#define NOINLINE __attribute__((noinline))
#endif

/* Results land here so the compiler cannot drop the work. */
static volatile uint64_t sink;

/* Trial division, on purpose: branchy integer work. */
NOINLINE static uint64_t sum_primes(uint32_t limit)
{
	uint64_t sum = 0;

	for (uint32_t n = 2; n < limit; n++) {
		int prime = 1;

		for (uint32_t d = 2; d * d <= n; d++) {
			if (n % d == 0) {
				prime = 0;
				break;
			}
		}
		if (prime)
			sum += n;
	}
	return sum;
}

/* FNV-1a over a buffer, many times: a tight dependent loop. */
NOINLINE static uint64_t hash_bytes(const unsigned char *buf, size_t len, int rounds)
{
	uint64_t h = 1469598103934665603ull;

	for (int r = 0; r < rounds; r++)
		for (size_t i = 0; i < len; i++)
			h = (h ^ buf[i]) * 1099511628211ull;
	return h;
}

/* Naive n^3 matrix product, @reps times: floating point work. Small
 * matrices, so they add few page faults of their own. */
NOINLINE static double mat_mul(int n, int reps)
{
	double *a = malloc(sizeof(double) * n * n);
	double *b = malloc(sizeof(double) * n * n);
	double *c = calloc((size_t)n * n, sizeof(double));
	double trace = 0;

	if (!a || !b || !c)
		goto out;
	for (int i = 0; i < n * n; i++) {
		a[i] = (i % 7) * 0.5;
		b[i] = (i % 11) * 0.25;
	}
	for (int r = 0; r < reps; r++)
		for (int i = 0; i < n; i++)
			for (int k = 0; k < n; k++)
				for (int j = 0; j < n; j++)
					c[i * n + j] += a[i * n + k] * b[k * n + j];
	for (int i = 0; i < n; i++)
		trace += c[i * n + i];
out:
	free(a);
	free(b);
	free(c);
	return trace;
}

/* Map DEMO_PAGES fresh pages and write one byte to each: one fault per page. */
static long touch_pages(void)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)page * DEMO_PAGES;
	unsigned char *p =
		mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long sum = 0;

	if (p == MAP_FAILED)
		return -1;
	/* A huge page would turn 512 faults into one. */
	madvise(p, len, MADV_NOHUGEPAGE);
	for (size_t off = 0; off < len; off += (size_t)page)
		p[off] = (unsigned char)(off / (size_t)page);
	for (size_t off = 0; off < len; off += (size_t)page)
		sum += p[off];
	munmap(p, len);
	return sum;
}

static int write_null(int fd, int n)
{
	static const char msg[] = "pcl demo\n";

	for (int i = 0; i < n; i++)
		if (write(fd, msg, sizeof(msg) - 1) != (ssize_t)(sizeof(msg) - 1))
			return -1;
	return 0;
}

int main(void)
{
	static unsigned char buf[64 * 1024];
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	int status = 0;
	pid_t child;

	if (fd < 0) {
		perror("demo-workload: /dev/null");
		return 1;
	}
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 31 + 7);

	/* Flush stdio first so the child does not inherit buffered output. */
	fflush(NULL);
	child = fork();
	if (child < 0) {
		perror("demo-workload: fork");
		return 1;
	}
	if (child == 0) {
		uint64_t h = hash_bytes(buf, sizeof(buf), HASH_ROUNDS);

		if (write_null(fd, DEMO_CHILD_WRITES))
			_exit(1);
		sink = h;
		_exit(0);
	}

	uint64_t primes = sum_primes(PRIME_LIMIT);
	double trace = mat_mul(MAT_N, MAT_REPS);
	long touched = touch_pages();
	int werr = write_null(fd, DEMO_WRITES - DEMO_CHILD_WRITES);

	if (waitpid(child, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "demo-workload: child failed\n");
		return 1;
	}
	close(fd);
	if (touched < 0 || werr) {
		perror("demo-workload");
		return 1;
	}
	fprintf(stderr,
		"demo-workload: ran sum_primes, hash_bytes (in 1 forked child) and mat_mul; "
		"touched %d fresh pages; %d write() calls to /dev/null; checksum %llx\n",
		DEMO_PAGES, DEMO_WRITES,
		(unsigned long long)(primes ^ (uint64_t)trace ^ (uint64_t)touched));
	return 0;
}
