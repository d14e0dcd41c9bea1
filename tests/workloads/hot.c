/*
 * hot [MS]: burn CPU for about MS milliseconds (default 500) of wall-clock
 * time in two functions with known shares, for sampling tests:
 *
 *   main -> outer -> middle -> hot_leaf    about 80% of the samples
 *   main -> warm_helper                    about 20%
 *
 * Every function is noinline and does its own work, so a profile's top
 * symbol is hot_leaf and its call chain is exactly the one above (when the
 * binary keeps frame pointers in leaf functions: the tests build it with
 * clang -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer
 * -fno-optimize-sibling-calls).
 */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* One unit of work: a few tens of microseconds. */
__attribute__((noinline)) void hot_leaf(void)
{
	unsigned long i;

	for (i = 0; i < 40000; i++)
		sink += i ^ (sink >> 3);
}

__attribute__((noinline)) void middle(void)
{
	hot_leaf();
	sink++;
}

__attribute__((noinline)) void outer(void)
{
	middle();
	sink++;
}

/* The same loop as hot_leaf, so a unit costs the same: 1 unit per 4 hot. */
__attribute__((noinline)) void warm_helper(void)
{
	unsigned long i;

	for (i = 0; i < 40000; i++)
		sink += i ^ (sink >> 3);
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 500;
	double end = now_ms() + ms;
	int i;

	do {
		for (i = 0; i < 4; i++)
			outer();
		warm_helper();
	} while (now_ms() < end);
	return 0;
}
