/*
 * crunch [N [UNITS]]: N threads (default 2, at most 64) each do a fixed
 * amount of CPU work, UNITS units (default 20000, about 20 us each on a
 * 2020s core), through the call chain
 *
 *   thread_main -> crunch_outer -> crunch_middle -> crunch_leaf
 *
 * then exit. The work is fixed, not the time, so the wall and CPU time it
 * takes under a profiler against a bare run is the profiler's cost
 * (bench/record.sh). Built with clang and leaf frame pointers there, so -g
 * unwinds four frames deep.
 */
#include <pthread.h>
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) void crunch_leaf(void)
{
	unsigned long i, s = 0;

	for (i = 0; i < 20000; i++)
		s += i ^ (s >> 3);
	sink += s;
}

__attribute__((noinline)) void crunch_middle(long k)
{
	crunch_leaf();
	if (k % 4 == 0)
		crunch_leaf();
}

__attribute__((noinline)) void crunch_outer(long units)
{
	long k;

	for (k = 0; k < units; k++)
		crunch_middle(k);
}

static void *thread_main(void *arg)
{
	crunch_outer((long)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2;
	long units = argc > 2 ? atol(argv[2]) : 20000;
	pthread_t tids[64];
	long k;

	if (n < 1 || n > 64)
		n = n < 1 ? 1 : 64;
	for (k = 0; k < n; k++)
		if (pthread_create(&tids[k], NULL, thread_main, (void *)units))
			return 1;
	for (k = 0; k < n; k++)
		pthread_join(tids[k], NULL);
	return 0;
}
