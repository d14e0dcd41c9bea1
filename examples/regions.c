/* SPDX-License-Identifier: MIT */
/*
 * Regions (include/pcl/region.h): name stretches of code, get their counts
 * per thread with no output code of your own.
 *
 * The main thread runs "main" around everything and "setup" inside it; four
 * workers each run "worker" once, with "alloc" and "compute" nested inside
 * it ROUNDS times. Run it with
 *   PCL_REGIONS=text ./regions      (or PCL_REGIONS=json)
 * and libpcl writes every region's counts, per thread and in total, to
 * standard error at exit (to PCL_REGIONS_FILE if set). On its own the
 * program prints one line per region from pcl_region_total().
 *
 * Usage: regions
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pcl/region.h>

#define NR_WORKERS 4
#define ROUNDS	   10

static volatile unsigned long sink;

static void *worker(void *arg)
{
	(void)arg;
	pcl_region_begin("worker");
	for (int r = 0; r < ROUNDS; r++) {
		char *buf;

		pcl_region_begin("alloc");
		buf = malloc(1 << 20);
		if (buf)
			memset(buf, r, 1 << 20); /* page faults land in "alloc" */
		pcl_region_end("alloc");

		pcl_region_begin("compute");
		for (unsigned long i = 0; i < 2000000; i++)
			sink += i ^ (i >> 3);
		pcl_region_end("compute");
		free(buf);
	}
	pcl_region_end("worker");
	return NULL;
}

int main(void)
{
	static const char *const names[] = { "main", "setup", "worker", "alloc", "compute" };
	pthread_t t[NR_WORKERS];
	double vals[32];

	pcl_region_begin("main");
	pcl_region_begin("setup");
	for (unsigned long i = 0; i < 1000000; i++)
		sink += i;
	pcl_region_end("setup");
	for (int i = 0; i < NR_WORKERS; i++)
		if (pthread_create(&t[i], NULL, worker, NULL))
			return 1;
	for (int i = 0; i < NR_WORKERS; i++)
		pthread_join(t[i], NULL);
	pcl_region_end("main");

	/* Totals over every thread; event 0 is task-clock (ns) by default. */
	printf("%-8s %6s  %s\n", "region", "calls",
	       pcl_regions_event(0) ? pcl_regions_event(0) : "");
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		int64_t calls = pcl_region_total(names[k], vals, 32);

		if (calls < 0)
			printf("%-8s %6s\n", names[k], "-");
		else
			printf("%-8s %6lld  %.0f\n", names[k], (long long)calls, vals[0]);
	}
	if (!getenv("PCL_REGIONS"))
		printf("(run with PCL_REGIONS=text or PCL_REGIONS=json for the per-thread dump)\n");
	return 0;
}
