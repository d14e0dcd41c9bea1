/*
 * threads [N [MS [list]]]: start N threads (default 4, at most 8), each
 * named "wl-thread-K" (pthread_setname_np, so it is the thread's comm) and
 * burning CPU for about MS milliseconds (default 500) of wall-clock time in
 * its own function spin_tK, called as thread_main -> spin_tK -> burn_tK.
 * The main thread waits for them. With "list", each thread prints
 * "PID TID wl-thread-K" on stdout once it has named itself, and the main
 * thread prints "PID PID main" first, so a test knows every tid to expect.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static double run_ms = 500;
static int list;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* burn_tK is the leaf, spin_tK loops until the deadline: K distinct names. */
#define SPINNER(K)                                                                 \
	__attribute__((noinline)) void burn_t##K(void)                             \
	{                                                                          \
		unsigned long i;                                                   \
		for (i = 0; i < 20000; i++)                                        \
			sink += i ^ (sink >> 3);                                   \
	}                                                                          \
	__attribute__((noinline)) void spin_t##K(double end)                       \
	{                                                                          \
		do                                                                 \
			burn_t##K();                                               \
		while (now_ms() < end);                                            \
	}
SPINNER(0)
SPINNER(1)
SPINNER(2)
SPINNER(3)
SPINNER(4)
SPINNER(5)
SPINNER(6)
SPINNER(7)

static void (*const spinners[])(double) = {
	spin_t0, spin_t1, spin_t2, spin_t3, spin_t4, spin_t5, spin_t6, spin_t7,
};

static void *thread_main(void *arg)
{
	long k = (long)arg;
	char name[16];

	snprintf(name, sizeof(name), "wl-thread-%ld", k);
	pthread_setname_np(pthread_self(), name);
	if (list) {
		pthread_mutex_lock(&out_lock);
		printf("%d %ld %s\n", (int)getpid(), (long)syscall(SYS_gettid), name);
		fflush(stdout);
		pthread_mutex_unlock(&out_lock);
	}
	spinners[k](now_ms() + run_ms);
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 4;
	pthread_t tids[8];
	long k;

	if (argc > 2)
		run_ms = atof(argv[2]);
	list = argc > 3 && !strcmp(argv[3], "list");
	if (n < 1 || n > 8)
		n = n < 1 ? 1 : 8;
	if (list) {
		printf("%d %d main\n", (int)getpid(), (int)getpid());
		fflush(stdout);
	}
	for (k = 0; k < n; k++)
		if (pthread_create(&tids[k], NULL, thread_main, (void *)k))
			return 1;
	for (k = 0; k < n; k++)
		pthread_join(tids[k], NULL);
	return 0;
}
