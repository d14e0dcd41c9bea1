/* SPDX-License-Identifier: MIT */
/*
 * A tiny self-profiler: sample this thread's own cpu-clock every
 * millisecond and print the functions that got the most samples.
 *
 * With PCL_NOTIFY_POLL, no signal is involved: the kernel writes samples
 * to the counter's ring, and pcl_counters__poll() hands them to the
 * function in the caller's own context, so it may do anything (here it
 * only stores the ip; symbols are looked up once at the end). The work is
 * three functions doing 1, 2 and 4 units of the same loop per round, so
 * heavy_work should get about four times the samples of light_work.
 *
 * Usage: poll-samples [MSEC]      (CPU time to run, default 400)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pcl/counters.h>

#if defined(__GNUC__) && !defined(__clang__)
#define NOINLINE __attribute__((noinline, noclone))
#else
#define NOINLINE __attribute__((noinline))
#endif

#define MAX_SAMPLES 100000
#define UNIT	    200000

static uint64_t ips[MAX_SAMPLES];
static int nr_ips;
static volatile uint64_t sink;

/* Poll context, not a signal handler: anything goes, but keep it cheap. */
static void on_sample(struct pcl_counters *c, int idx, const struct pcl_sample *s, void *arg)
{
	(void)c;
	(void)idx;
	(void)arg;
	if (nr_ips < MAX_SAMPLES)
		ips[nr_ips++] = s->ip;
}

static inline __attribute__((always_inline)) void spin(int units)
{
	uint64_t x = sink;

	for (long i = 0; i < (long)units * UNIT; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	sink = x;
}

NOINLINE static void light_work(void)
{
	spin(1);
}

NOINLINE static void medium_work(void)
{
	spin(2);
}

NOINLINE static void heavy_work(void)
{
	spin(4);
}

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

struct func {
	char name[128];
	int samples;
};

static int by_samples(const void *a, const void *b)
{
	return ((const struct func *)b)->samples - ((const struct func *)a)->samples;
}

int main(int argc, char **argv)
{
	double msec = argc > 1 ? atof(argv[1]) : 400, t0;
	PCL_OPTS(pcl_overflow, ov, .period = 1000000, /* cpu-clock counts ns: a sample per ms */
		 .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID, .notify = PCL_NOTIFY_POLL,
		 .fn = on_sample);
	PCL_OPTS(pcl_counters_opts, opts, .scope = PCL_SCOPE_THREAD);
	struct pcl_counters *c = pcl_counters__new("cpu-clock", &opts);
	static struct func funcs[256];
	int nf = 0, delivered = 0;

	if (!c || pcl_counters__set_overflow(c, 0, &ov) || pcl_counters__open(c) ||
	    pcl_counters__start(c)) {
		fprintf(stderr, "poll-samples: %s\n", pcl_last_error());
		return 1;
	}
	t0 = cpu_ms();
	while (cpu_ms() - t0 < msec) {
		light_work();
		medium_work();
		heavy_work();
		delivered += pcl_counters__poll(c, 0); /* drain the ring, no waiting */
	}
	pcl_counters__stop(c);
	delivered += pcl_counters__poll(c, 0);

	/* Symbolize once per sample, outside any hot path, and count per function. */
	for (int i = 0; i < nr_ips; i++) {
		char name[128];
		int f;

		if (pcl_self_symbolize(ips[i], name, sizeof(name), NULL))
			snprintf(name, sizeof(name), "[unknown]");
		for (f = 0; f < nf && strcmp(funcs[f].name, name); f++)
			;
		if (f == nf) {
			if (nf == 256)
				continue;
			snprintf(funcs[nf++].name, sizeof(funcs[0].name), "%s", name);
		}
		funcs[f].samples++;
	}
	qsort(funcs, (size_t)nf, sizeof(funcs[0]), by_samples);
	printf("%d samples (%d delivered by poll, %llu lost) in %.0f ms of CPU\n", nr_ips,
	       delivered, (unsigned long long)pcl_counters__lost(c, 0), cpu_ms() - t0);
	for (int f = 0; f < nf && f < 8; f++)
		printf("%6.1f%% %6d  %s\n", 100.0 * funcs[f].samples / (nr_ips ? nr_ips : 1),
		       funcs[f].samples, funcs[f].name);
	pcl_counters__free(c);
	return 0;
}
