/*
 * srcpos [MS]: burn CPU for about MS milliseconds (default 500) on known
 * source lines, for the tests of source positions (tests/e2e/t-export-srcline.sh):
 *
 *   main -> spin_leaf     its loop body, the line marked HOT-LEAF
 *   main -> spin_outer    into which step() is inlined (always_inline, even
 *                         at -O0 or with -fno-inline): the line marked
 *                         HOT-INLINE, called from the line marked CALL-INLINE
 *
 * The marked lines do most of the work of their function, so each is its
 * function's hottest line.
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

__attribute__((noinline)) void spin_leaf(void)
{
	for (unsigned long i = 0; i < 20000; i++)
		sink = (sink * 2862933555777941757ul + i) ^ (sink >> 7) ^ (sink * 3); /* HOT-LEAF */
}

static inline __attribute__((always_inline)) void step(unsigned long i)
{
	sink = (sink * 6364136223846793005ul + i) ^ (sink >> 5) ^ (sink * 5); /* HOT-INLINE */
}

__attribute__((noinline)) void spin_outer(void)
{
	for (unsigned long i = 0; i < 20000; i++)
		step(i); /* CALL-INLINE */
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 500;
	double end = now_ms() + ms;

	while (now_ms() < end) {
		spin_leaf();
		spin_outer();
	}
	return 0;
}
