/* SPDX-License-Identifier: MIT */
/*
 * A program counts its own events around a piece of work: the smallest use
 * of the self-measurement API (include/pcl/counters.h).
 *
 * Events this machine cannot count (cycles and instructions on a VM without
 * a hardware PMU) open as unsupported and print "<not supported>"; the
 * others count on. The last column is the multiplexing ratio: the share of
 * the enabled time the counter was really on the PMU (100% unless the
 * kernel had to rotate counters).
 *
 * Usage: self-count [PAGES]      (pages to touch, default 1000)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <pcl/counters.h>

#define EVENTS "task-clock,page-faults,context-switches,cycles,instructions"

static volatile unsigned long sink;

/* The work measured: fresh pages (one fault each), some arithmetic, a few sleeps. */
static void work(long pages)
{
	long ps = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, (size_t)(pages * ps), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return;
	madvise(p, (size_t)(pages * ps), MADV_NOHUGEPAGE); /* one fault per page */
	for (long i = 0; i < pages; i++)
		p[i * ps] = (char)i;
	for (unsigned long i = 0; i < 20000000; i++)
		sink += i * i;
	for (int i = 0; i < 5; i++)
		usleep(1000); /* each sleep is a context switch */
	munmap(p, (size_t)(pages * ps));
}

int main(int argc, char **argv)
{
	long pages = argc > 1 ? atol(argv[1]) : 1000;
	struct pcl_counters *c;
	struct pcl_value v[8];
	int n;

	/* The calling thread (and threads it creates), counting from start(). */
	c = pcl_counters__new_open(EVENTS, NULL);
	if (!c) {
		fprintf(stderr, "self-count: %s\n", pcl_last_error());
		return 1;
	}
	pcl_counters__start(c);
	work(pages);
	pcl_counters__stop(c);
	if (pcl_counters__read(c, v))
		fprintf(stderr, "self-count: %s\n", pcl_last_error());

	printf("counts for %ld pages touched, 20M multiply-adds, 5 sleeps:\n", pages);
	n = pcl_counters__nr(c);
	for (int i = 0; i < n; i++) {
		const char *unit = v[i].unit ? v[i].unit : "";

		if (v[i].status == -ENODEV)
			printf("%20s %-6s %-18s\n", "<not supported>", "",
			       pcl_counters__name(c, i));
		else if (v[i].status)
			printf("%20s %-6s %-18s (%s)\n", "<error>", "", pcl_counters__name(c, i),
			       strerror(-v[i].status));
		else
			printf("%20.0f %-6s %-18s (%.1f%% of the time counted)\n", v[i].value, unit,
			       pcl_counters__name(c, i),
			       v[i].ena ? 100.0 * (double)v[i].run / (double)v[i].ena : 0.0);
	}
	pcl_counters__free(c);
	return 0;
}
