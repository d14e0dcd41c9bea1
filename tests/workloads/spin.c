/*
 * spin MS [report]: burn CPU in a busy loop for MS milliseconds of wall-clock
 * time, then exit. Used to check task-clock against user+sys time. With a
 * second argument, print the CPU time used (user+sys, in ms) on stdout at
 * the end, for tests that cannot get it from pcl's footer (-a, -G).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static volatile unsigned long sink;

static void burn(void)
{
	unsigned long i;

	for (i = 0; i < 10000; i++)
		sink += i;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 100;
	double end = now_ms() + ms;

	while (now_ms() < end)
		burn();
	if (argc > 2) {
		struct rusage ru;

		getrusage(RUSAGE_SELF, &ru);
		printf("%.3f\n", ru.ru_utime.tv_sec * 1e3 + ru.ru_utime.tv_usec / 1e3 +
					  ru.ru_stime.tv_sec * 1e3 + ru.ru_stime.tv_usec / 1e3);
	}
	return 0;
}
