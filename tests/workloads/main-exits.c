/*
 * main-exits MAIN_MS WORKER_MS: the main thread starts a worker that spins
 * for WORKER_MS milliseconds, sleeps MAIN_MS, then leaves with
 * pthread_exit: the process lives on in the worker alone. With -p, a
 * profiler's events on the main thread hang up halfway while the worker's
 * still write into the same per-CPU rings.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long worker_ms = 3000;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) static void *spin(void *arg)
{
	volatile unsigned long x = 0;
	double end = now_ms() + (double)worker_ms;

	(void)arg;
	while (now_ms() < end)
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i;
	return NULL;
}

int main(int argc, char **argv)
{
	long main_ms = argc > 1 ? atol(argv[1]) : 500;
	pthread_t t;

	if (argc > 2)
		worker_ms = atol(argv[2]);
	if (pthread_create(&t, NULL, spin, NULL))
		return 1;
	usleep((useconds_t)(main_ms * 1000));
	pthread_exit(NULL);
}
