/*
 * shift a|b [MS]: burn CPU for about MS milliseconds (default 500) of
 * wall-clock time in two functions whose shares swap with the first
 * argument, for the tests of pcl diff:
 *
 *   shift a    main -> func_a about 80%, main -> func_b about 20%
 *   shift b    main -> func_a about 20%, main -> func_b about 80%
 *
 * Both functions are noinline and run the same loop, so one unit of each
 * costs the same and the shares follow the unit counts (4 to 1).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* One unit of work: a few tens of microseconds. */
__attribute__((noinline)) void func_a(void)
{
	unsigned long i;

	for (i = 0; i < 40000; i++)
		sink += i ^ (sink >> 3);
}

/* The same cost as func_a; a different shift so no compiler folds the two into one. */
__attribute__((noinline)) void func_b(void)
{
	unsigned long i;

	for (i = 0; i < 40000; i++)
		sink += i ^ (sink >> 4);
}

int main(int argc, char **argv)
{
	int heavy_a = argc < 2 || strcmp(argv[1], "b");
	double ms = argc > 2 ? atof(argv[2]) : 500;
	double end = now_ms() + ms;
	int i;

	do {
		for (i = 0; i < 4; i++)
			heavy_a ? func_a() : func_b();
		heavy_a ? func_b() : func_a();
	} while (now_ms() < end);
	return 0;
}
