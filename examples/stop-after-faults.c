/* SPDX-License-Identifier: MIT */
/*
 * A program that stops itself after N page faults and prints where it was.
 *
 * page-faults gets an overflow function with period N, delivered by a
 * signal to this thread. The counter is opened disabled and armed with
 * PERF_EVENT_IOC_REFRESH 1 (pcl_counters__refresh): the kernel enables it,
 * and disables it again by itself at its first overflow, so the count stops
 * at exactly N. The handler runs in signal context: it only copies the
 * sample's ip and tid and raises a flag (async-signal-safe). The main loop
 * touches fresh pages until it sees the flag, then names the function the
 * Nth fault happened in, outside the handler.
 *
 * Usage: stop-after-faults [N]      (default 1000)
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include <pcl/counters.h>

/* Named functions stay themselves in symbols: no inlining, no clones. */
#if defined(__GNUC__) && !defined(__clang__)
#define NOINLINE __attribute__((noinline, noclone))
#else
#define NOINLINE __attribute__((noinline))
#endif

static volatile sig_atomic_t stopped;
static volatile uint64_t stop_ip;
static volatile uint32_t stop_tid;

/* Signal context: record, do not print. */
static void on_overflow(struct pcl_counters *c, int idx, const struct pcl_sample *s, void *arg)
{
	(void)c;
	(void)idx;
	(void)arg;
	stop_ip = s->ip;
	stop_tid = s->tid;
	stopped = 1;
}

/* Touch one byte of each page of @p (one minor fault per page) until stopped. */
NOINLINE static long touch_pages(char *p, long npages, long ps)
{
	long i;

	for (i = 0; i < npages && !stopped; i++)
		p[i * ps] = 1;
	return i;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, ps = sysconf(_SC_PAGESIZE), touched = 0;
	PCL_OPTS(pcl_overflow, ov, .period = (uint64_t)(n > 0 ? n : 1000),
		 .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID,
		 .notify = PCL_NOTIFY_SIGNAL, /* SIGIO, to the thread that faulted */
		 .fn = on_overflow);
	struct pcl_counters *c = pcl_counters__new("page-faults", NULL);
	struct pcl_value v;
	char func[256];
	uint64_t off = 0;

	if (!c || pcl_counters__set_overflow(c, 0, &ov) || pcl_counters__open(c) ||
	    pcl_counters__refresh(c, 0, 1)) {
		fprintf(stderr, "stop-after-faults: %s\n", pcl_last_error());
		return 1;
	}
	/* 2N fresh pages at a time: enough unless other code faults a lot */
	while (!stopped) {
		size_t len = (size_t)(2 * ov.period) * (size_t)ps;
		char *p =
			mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		madvise(p, len, MADV_NOHUGEPAGE);
		touched += touch_pages(p, (long)(2 * ov.period), ps);
	}
	pcl_counters__read(c, &v);
	if (pcl_self_symbolize(stop_ip, func, sizeof(func), &off))
		snprintf(func, sizeof(func), "[unknown]");
	printf("stopped after %llu page faults (period %llu), %ld pages touched\n",
	       (unsigned long long)v.raw, (unsigned long long)ov.period, touched);
	printf("thread %u was in %s+%#llx (ip %#llx)\n", (unsigned)stop_tid, func,
	       (unsigned long long)off, (unsigned long long)stop_ip);
	pcl_counters__free(c);
	return 0;
}
