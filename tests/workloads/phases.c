/*
 * phases MS1 MS2: burn CPU in phase_one for MS1 milliseconds of wall-clock
 * time, then in phase_two for MS2 milliseconds, then exit. For live views
 * (pcl top): once the first phase is over its samples stop, and what is
 * shown of it tells decaying (perf top's default) from zeroing (-z).
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

__attribute__((noinline)) void phase_one(void)
{
	for (unsigned long i = 0; i < 20000; i++)
		sink += i ^ (sink >> 3);
}

__attribute__((noinline)) void phase_two(void)
{
	for (unsigned long i = 0; i < 20000; i++)
		sink += i ^ (sink >> 5);
}

int main(int argc, char **argv)
{
	double ms1 = argc > 1 ? atof(argv[1]) : 2000, ms2 = argc > 2 ? atof(argv[2]) : 2000;
	double start = now_ms();

	while (now_ms() - start < ms1)
		phase_one();
	start = now_ms();
	while (now_ms() - start < ms2)
		phase_two();
	return 0;
}
