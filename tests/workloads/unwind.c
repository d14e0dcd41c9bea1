/*
 * unwind [MS] [deep]: burn CPU for about MS milliseconds (default 500) in
 * known call chains, for the DWARF unwinding tests (tests/e2e/t-unwind*.sh).
 * The Makefile builds it without frame pointers, as distributions build
 * programs, four ways: unwind-nofp, unwind-inline (stage2 inlined into
 * stage1), unwind-stripped (its debug file found by build id) and
 * unwind-debuglink (found by .gnu_debuglink).
 *
 *   main -> run -> stage1 -> stage2 -> hot_work    about 75% of the samples
 *   main -> run -> cool_work                       about 25%
 *
 * With "deep": half of the time main -> deep -> deep ... (24 levels of
 * 1 KiB frames) -> hot_work, a stack deeper than a small --call-graph dwarf
 * copy, half main -> stage1 -> stage2 -> hot_work, a shallow one.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef UNWIND_INLINE
#define STAGE static inline __attribute__((always_inline))
#else
#define STAGE __attribute__((noinline))
#endif

static volatile unsigned long sink;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* One unit of work: a few tens of microseconds. */
__attribute__((noinline)) void hot_work(void)
{
	for (unsigned long i = 0; i < 40000; i++)
		sink += i ^ (sink >> 3);
}

/* The same loop: a unit costs the same. */
__attribute__((noinline)) void cool_work(void)
{
	for (unsigned long i = 0; i < 40000; i++)
		sink += i ^ (sink >> 5);
}

STAGE void stage2(void)
{
	hot_work();
	sink++; /* no tail call: stage2 stays on the stack */
}

__attribute__((noinline)) void stage1(void)
{
	volatile char pad[200];

	memset((char *)pad, (int)sink, sizeof(pad));
	stage2();
	sink += pad[sink % sizeof(pad)];
}

__attribute__((noinline)) void run(double ms)
{
	double end = now_ms() + ms;

	while (now_ms() < end) {
		for (int i = 0; i < 3; i++)
			stage1();
		cool_work();
	}
}

__attribute__((noinline)) void deep(int depth)
{
	volatile char frame[1024];

	memset((char *)frame, depth, sizeof(frame));
	if (depth > 0)
		deep(depth - 1);
	else
		hot_work();
	sink += frame[sink % sizeof(frame)];
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 500;
	double end = now_ms() + ms;

	if (argc > 2 && !strcmp(argv[2], "deep")) {
		while (now_ms() < end) {
			deep(24);
			stage1();
		}
		return 0;
	}
	run(ms);
	return 0;
}
