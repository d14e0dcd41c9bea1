/* SPDX-License-Identifier: MIT */
/*
 * How long one read of a counter takes, three ways, in one run:
 *   read(2)  a perf fd opened by hand, read with a bare read(2) syscall:
 *            the floor for a counter the kernel must be asked about;
 *   libpcl   pcl_counters__read() on PCL_SCOPE_THREAD counters (one fd per
 *            event, a group in one read(2) of its leader, rdpmc when the
 *            mmap page allows it);
 *   PAPI     PAPI_read() on an event set of the perf_event component's
 *            native events (when built with -DHAVE_PAPI and PAPI can open
 *            them).
 * Each for one counter (task-clock) and for a group of four software
 * events (task-clock, page-faults, context-switches, cpu-migrations): the
 * same events everywhere, software ones because the development VM has no
 * hardware PMU. read(2) uses libpcl's read_format (enabled and running
 * times, ids), so both ask the kernel the same question.
 *
 * Each case runs ITERS reads timed with CLOCK_MONOTONIC; the cases are
 * interleaved RUNS times and the best run of each is kept. Printed, not
 * asserted. Usage: read [ITERS [RUNS]]   (default 1000000 5)
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <pcl/counters.h>
#if HAVE_PAPI
#include <papi.h>
#endif

#define MAX_EV 4

static const uint64_t sw_config[MAX_EV] = {
	PERF_COUNT_SW_TASK_CLOCK,
	PERF_COUNT_SW_PAGE_FAULTS,
	PERF_COUNT_SW_CONTEXT_SWITCHES,
	PERF_COUNT_SW_CPU_MIGRATIONS,
};
static const char *const pcl_names[2] = {
	"task-clock",
	"task-clock,page-faults,context-switches,cpu-migrations",
};
#if HAVE_PAPI
static const char *const papi_names[MAX_EV] = {
	"perf::TASK-CLOCK",
	"perf::PAGE-FAULTS",
	"perf::CONTEXT-SWITCHES",
	"perf::CPU-MIGRATIONS",
};
#endif

/* One way of reading nr counters; read() returns 0 or non-zero on failure. */
struct method {
	const char *name;
	int nr;
	int (*read)(struct method *m);
	int (*begin)(struct method *m), (*end)(struct method *m); /* around each run, or NULL */
	double best_ns; /* per read; 0 when not measured */
	char why[256];	/* why it could not run, or "" */
	/* state */
	int fd;
	uint64_t buf[3 + 2 * MAX_EV];
	struct pcl_counters *c;
	struct pcl_value vals[MAX_EV];
	int papi_set;
	long long papi_vals[MAX_EV];
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* ---- read(2) on fds opened by hand ---- */

static int bare_read(struct method *m)
{
	return read(m->fd, m->buf, sizeof(m->buf)) <= 0;
}

static int bare_open(struct method *m)
{
	int lead = -1;

	for (int i = 0; i < m->nr; i++) {
		struct perf_event_attr a = {
			.size = sizeof(a),
			.type = PERF_TYPE_SOFTWARE,
			.config = sw_config[i],
			.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				       PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID |
				       (m->nr > 1 ? PERF_FORMAT_GROUP : 0),
		};
		int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, lead, PERF_FLAG_FD_CLOEXEC);

		if (fd < 0) {
			snprintf(m->why, sizeof(m->why), "perf_event_open: %s", strerror(errno));
			return -1;
		}
		if (lead < 0)
			lead = fd;
	}
	m->fd = lead;
	return 0;
}

/* ---- libpcl ---- */

static int pcl_read(struct method *m)
{
	return pcl_counters__read(m->c, m->vals);
}

static int pcl_open(struct method *m)
{
	struct pcl_counters_opts o = {
		.sz = sizeof(o),
		.scope = PCL_SCOPE_THREAD,
		.group = m->nr > 1,
		.started = true,
	};

	m->c = pcl_counters__new_open(pcl_names[m->nr > 1], &o);
	if (!m->c) {
		snprintf(m->why, sizeof(m->why), "%s", pcl_last_error());
		return -1;
	}
	for (int i = 0; i < m->nr; i++) {
		if (!pcl_counters__supported(m->c, i)) {
			snprintf(m->why, sizeof(m->why), "'%s' not supported",
				 pcl_counters__name(m->c, i));
			return -1;
		}
	}
	return 0;
}

/* ---- PAPI ---- */

#if HAVE_PAPI
static int papi_read(struct method *m)
{
	return PAPI_read(m->papi_set, m->papi_vals) != PAPI_OK;
}

static int papi_open(struct method *m)
{
	static int inited;
	int ret;

	if (!inited) {
		ret = PAPI_library_init(PAPI_VER_CURRENT);
		if (ret != PAPI_VER_CURRENT) {
			snprintf(m->why, sizeof(m->why), "cannot open PAPI: %s",
				 ret < 0 ? PAPI_strerror(ret) : "version mismatch");
			return -1;
		}
		inited = 1;
	}
	m->papi_set = PAPI_NULL;
	ret = PAPI_create_eventset(&m->papi_set);
	for (int i = 0; ret == PAPI_OK && i < m->nr; i++) {
		ret = PAPI_add_named_event(m->papi_set, papi_names[i]);
		if (ret != PAPI_OK) {
			snprintf(m->why, sizeof(m->why), "cannot open %s: %s", papi_names[i],
				 PAPI_strerror(ret));
			return -1;
		}
	}
	if (ret != PAPI_OK) {
		snprintf(m->why, sizeof(m->why), "cannot create an event set: %s",
			 PAPI_strerror(ret));
		return -1;
	}
	return 0;
}

/* A thread runs one PAPI event set at a time: each is started for its runs only. */
static int papi_begin(struct method *m)
{
	int ret = PAPI_start(m->papi_set);

	if (ret != PAPI_OK)
		snprintf(m->why, sizeof(m->why), "cannot start: %s", PAPI_strerror(ret));
	return ret != PAPI_OK;
}

static int papi_end(struct method *m)
{
	return PAPI_stop(m->papi_set, m->papi_vals) != PAPI_OK;
}
#endif

/* One timed run of @iters reads; ns per read, or -1 when a read failed. */
static double time_run(struct method *m, long iters)
{
	double t0, t1;

	if (m->begin && m->begin(m))
		return -1;
	t0 = now_ns();
	for (long i = 0; i < iters; i++) {
		if (m->read(m)) {
			snprintf(m->why, sizeof(m->why), "a read failed");
			if (m->end)
				m->end(m);
			return -1;
		}
	}
	t1 = now_ns();
	if (m->end)
		m->end(m);
	return (t1 - t0) / (double)iters;
}

static void print_cell(const struct method *m, const struct method *base)
{
	if (!m->best_ns)
		printf(" %10s %10s", "-", "-");
	else
		printf(" %10.1f %9.2fx", m->best_ns,
		       base->best_ns ? m->best_ns / base->best_ns : 0);
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 1000000;
	int runs = argc > 2 ? atoi(argv[2]) : 5;
	/* [0..2]: one counter; [3..5]: a group of four */
	struct method ms[6] = {
		{ .name = "read(2)", .nr = 1, .read = bare_read },
		{ .name = "libpcl", .nr = 1, .read = pcl_read },
		{ .name = "PAPI", .nr = 1 },
		{ .name = "read(2)", .nr = 4, .read = bare_read },
		{ .name = "libpcl", .nr = 4, .read = pcl_read },
		{ .name = "PAPI", .nr = 4 },
	};
	bool ok[6];

	if (iters < 1 || runs < 1) {
		fprintf(stderr, "usage: read [ITERS [RUNS]]\n");
		return 2;
	}
	for (int k = 0; k < 6; k++) {
		struct method *m = &ms[k];

		switch (k % 3) {
		case 0:
			ok[k] = bare_open(m) == 0;
			break;
		case 1:
			ok[k] = pcl_open(m) == 0;
			break;
		default:
#if HAVE_PAPI
			m->read = papi_read;
			m->begin = papi_begin;
			m->end = papi_end;
			ok[k] = papi_open(m) == 0;
#else
			snprintf(m->why, sizeof(m->why), "not built with PAPI (papi.h, -lpapi)");
			ok[k] = false;
#endif
		}
	}
	/* interleaved: drift in frequency or noise hits every case alike */
	for (int r = 0; r < runs; r++) {
		for (int k = 0; k < 6; k++) {
			double ns;

			if (!ok[k])
				continue;
			ns = time_run(&ms[k], iters);
			if (ns < 0) {
				ok[k] = false;
				ms[k].best_ns = 0;
				continue;
			}
			if (!ms[k].best_ns || ns < ms[k].best_ns)
				ms[k].best_ns = ns;
		}
	}

	printf("ns per read, best of %d runs of %ld reads (CLOCK_MONOTONIC)\n", runs, iters);
	printf("%-10s %21s   %21s\n", "", "one counter", "group of four");
	printf("%-10s %10s %10s   %10s %10s\n", "", "ns/read", "vs read()", "ns/read", "vs read()");
	for (int k = 0; k < 3; k++) {
		printf("%-10s", ms[k].name);
		print_cell(&ms[k], &ms[0]);
		printf("  ");
		print_cell(&ms[k + 3], &ms[3]);
		printf("\n");
	}
	for (int k = 0; k < 6; k++)
		if (ms[k].why[0])
			printf("%s (%s): %s\n", ms[k].name,
			       ms[k].nr > 1 ? "group of four" : "one counter", ms[k].why);
	if (ms[1].c)
		printf("libpcl reads task-clock %s\n",
		       pcl_counters__rdpmc(ms[1].c, 0) ? "with rdpmc from its mmap page"
						       : "with read(2) (no rdpmc for this event)");
	for (int g = 0; g < 2; g++) {
		const struct method *b = &ms[3 * g], *p = &ms[3 * g + 1], *x = &ms[3 * g + 2];
		const char *what = g ? "group of four" : "one counter";

		if (b->best_ns && p->best_ns)
			printf("%s: libpcl %+.1f%% vs bare read(2) (aim: within 10%%)", what,
			       100.0 * (p->best_ns / b->best_ns - 1));
		if (p->best_ns && x->best_ns)
			printf(", %.2fx %s than PAPI (aim: faster)",
			       p->best_ns < x->best_ns ? x->best_ns / p->best_ns
						       : p->best_ns / x->best_ns,
			       p->best_ns < x->best_ns ? "faster" : "slower");
		printf("\n");
	}
	for (int k = 0; k < 6; k++)
		pcl_counters__free(ms[k].c); /* the hand-opened fds close at exit */
	return 0;
}
