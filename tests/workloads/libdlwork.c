/*
 * libdlwork.so: the library tests/workloads/dlopen.c loads at run time.
 * dlwork_burn(MS) burns CPU for about MS milliseconds of wall-clock time
 * through dlwork_burn -> dlwork_leaf, so a profile of the dlopen workload
 * has most of its samples in libdlwork.so's dlwork_leaf: a symbol that only
 * a reader that follows the MMAP2 record of the dlopen() can name.
 */
#include <time.h>

static volatile unsigned long dl_sink;

static double dl_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) void dlwork_leaf(void)
{
	unsigned long i;

	for (i = 0; i < 40000; i++)
		dl_sink += i ^ (dl_sink >> 3);
}

__attribute__((noinline)) void dlwork_burn(double ms)
{
	double end = dl_now_ms() + ms;

	do
		dlwork_leaf();
	while (dl_now_ms() < end);
}
