/*
 * offcpu [MS] [ROUNDS] [THREADS] [libc]: each of THREADS threads (1: the
 * main one) runs ROUNDS rounds of spinning MS ms of its CPU time in
 * spin_here() and then sleeping MS ms in sleep_here(), so that about half
 * of its wall time is on CPU under spin_here and half off CPU under
 * sleep_here, however busy the machine. sleep_here makes the nanosleep
 * system call itself (x86_64), so that frame pointers name it; with "libc"
 * it calls libc's nanosleep (whose frames only DWARF unwinds). For the
 * off-CPU and wall-clock tests (t-offcpu.sh).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double ms = 20;
static int rounds = 10;

static int use_libc;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static volatile unsigned long sink;

__attribute__((noinline)) static void spin_here(void)
{
	double end = now_ms() + ms;

	while (now_ms() < end)
		for (int i = 0; i < 50000; i++)
			sink += (unsigned long)i;
}

__attribute__((noinline)) static void sleep_here(void)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)((ms - (int)(ms / 1000) * 1000) * 1e6) };

#if defined(__x86_64__)
	if (!use_libc) {
		long ret;

		__asm__ volatile("syscall"
				 : "=a"(ret)
				 : "0"((long)SYS_nanosleep), "D"(&ts), "S"(0L)
				 : "rcx", "r11", "memory");
		return;
	}
#endif
	nanosleep(&ts, NULL);
}

static void *worker(void *arg)
{
	(void)arg;
	for (int r = 0; r < rounds; r++) {
		spin_here();
		sleep_here();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 3 ? atoi(argv[3]) : 1;
	pthread_t t[16];

	if (argc > 1)
		ms = atof(argv[1]);
	if (argc > 2)
		rounds = atoi(argv[2]);
	use_libc = argc > 4 && !strcmp(argv[4], "libc");
	if (threads < 1 || threads > 16)
		threads = 1;
	for (int i = 1; i < threads; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	worker(NULL);
	for (int i = 1; i < threads; i++)
		pthread_join(t[i], NULL);
	return 0;
}
