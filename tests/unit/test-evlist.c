/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the evlist layer (lib/evlist): CPU lists, count scaling,
 * workloads, and real counting on this VM (software events, tracepoints,
 * breakpoints, a user-space source), including what must fail: hardware
 * events (no PMU here), dead pids, commands that do not exist.
 *
 * Workloads whose counts are asserted exactly are this binary re-executed
 * with "--write K": it makes exactly K write(2) calls and _exit()s, so
 * syscalls:sys_enter_write must count K.
 */
#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "internal.h"
#include "evlist/read-format.h"

/* ---- pcl_parse_cpu_list ---- */

struct cpu_list_case {
	const char *list;
	int n;			/* expected count, or the negative errno */
	int cpus[8];
};

static const struct cpu_list_case cpu_list_cases[] = {
	{ "0", 1, { 0 } },
	{ "0-3", 4, { 0, 1, 2, 3 } },
	{ "3,1,2", 3, { 1, 2, 3 } },
	{ "0-2,1-3", 4, { 0, 1, 2, 3 } },
	{ "5,5,5", 1, { 5 } },
	{ "7-7", 1, { 7 } },
	{ "0-3\n", 4, { 0, 1, 2, 3 } },	/* as read from /sys/devices/system/cpu/online */
	{ "1,3-4,8", 4, { 1, 3, 4, 8 } },
	{ "8,0-1", 3, { 0, 1, 8 } },
	{ "", -EINVAL, { 0 } },
	{ "a", -EINVAL, { 0 } },
	{ "-1", -EINVAL, { 0 } },
	{ "3-1", -EINVAL, { 0 } },
	{ "1,", -EINVAL, { 0 } },
	{ ",1", -EINVAL, { 0 } },
	{ "1,,2", -EINVAL, { 0 } },
	{ "1-", -EINVAL, { 0 } },
	{ "1--2", -EINVAL, { 0 } },
	{ "1-2-3", -EINVAL, { 0 } },
	{ "1 2", -EINVAL, { 0 } },
	{ " 1", -EINVAL, { 0 } },
	{ "0x1", -EINVAL, { 0 } },
	{ "0-99999999", -EINVAL, { 0 } },
	{ "99999999999999999999", -EINVAL, { 0 } },
};

static int check_cpu_list(const struct cpu_list_case *c)
{
	int *cpus = (int *)1;
	int n = pcl_parse_cpu_list(c->list, &cpus), bad = 0;

	bad += differ(c->list, "return", (uint64_t)(int64_t)n, (uint64_t)(int64_t)c->n);
	if (n < 0) {
		bad += differ(c->list, "cpus after failure", (uintptr_t)cpus, 0);
		if (!strstr(pcl_last_error(), "CPU list")) {
			print_message("'%s': last error '%s'\n", c->list, pcl_last_error());
			bad++;
		}
		return bad;
	}
	for (int i = 0; i < n && i < c->n; i++)
		bad += differ(c->list, "cpu", (uint64_t)cpus[i], (uint64_t)c->cpus[i]);
	free(cpus);
	return bad;
}

static void test_parse_cpu_list(void **state)
{
	int bad = 0, *cpus;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cpu_list_cases); i++)
		bad += check_cpu_list(&cpu_list_cases[i]);
	assert_int_equal(bad, 0);
	assert_int_equal(pcl_parse_cpu_list(NULL, &cpus), -EINVAL);
	assert_int_equal(pcl_parse_cpu_list("0", NULL), -EINVAL);
	/* a large range is fine */
	assert_int_equal(pcl_parse_cpu_list("0-4095", &cpus), 4096);
	assert_int_equal(cpus[4095], 4095);
	free(cpus);
}

/* ---- pcl_count__scaled ---- */

struct scaled_case {
	const char *what;
	uint64_t val, ena, run;
	double scale, want;
};

static const struct scaled_case scaled_cases[] = {
	{ "not multiplexed", 100, 10, 10, 1.0, 100 },
	{ "ran half the time", 100, 20, 10, 1.0, 200 },
	{ "ran a third, scale 0.5", 100, 30, 10, 0.5, 150 },
	{ "never ran", 100, 10, 0, 1.0, 0 },
	{ "never enabled", 0, 0, 0, 1.0, 0 },
	{ "scale 0 means 1", 100, 10, 10, 0, 100 },
	{ "unit scale", 1000, 1, 1, 1e-3, 1 },
	{ "energy scale", 1ull << 32, 5, 5, 2.3283064365386962890625e-10, 1 },
	{ "run > ena is not scaled down", 100, 5, 10, 1.0, 100 },
	{ "big counts", 1ull << 60, 4, 2, 1.0, 2.305843009213694e18 },
};

static void test_count_scaled(void **state)
{
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(scaled_cases); i++) {
		const struct scaled_case *c = &scaled_cases[i];
		struct pcl_count cnt = { .val = c->val, .ena = c->ena, .run = c->run };
		double got = pcl_count__scaled(&cnt, c->scale);

		if (fabs(got - c->want) > 1e-9 * (fabs(c->want) + 1)) {
			print_message("'%s': %.17g, expected %.17g\n", c->what, got, c->want);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
	assert_true(pcl_count__scaled(NULL, 1.0) == 0);
}

/* ---- workloads ---- */

/* Prepare @argv with its stdout on /dev/null, so it does not mix with TAP. */
static struct pcl_workload *prepare_quiet(char *const argv[])
{
	struct pcl_workload *wl;
	int saved, devnull;

	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (saved < 0 || devnull < 0)
		return NULL;
	dup2(devnull, STDOUT_FILENO);
	wl = pcl_workload__prepare(argv);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	close(devnull);
	return wl;
}

/* Count @spec on @argv from exec to exit, the way `pcl stat` does. */
static struct unit_run *run_workload(const char *spec, char *const argv[])
{
	return run_prepared(spec, prepare_quiet(argv));
}

static struct pcl_count count_of(const struct unit_run *r, int idx)
{
	struct pcl_count c;
	int ret = pcl_evlist__count(r->el, idx, -1, -1, &c);

	if (ret)
		fail_msg("count of event %d ('%s'): %d", idx, pcl_evlist__event(r->el, idx)->name,
			 ret);
	return c;
}

static char *const true_argv[] = { "/bin/true", NULL };

static void test_count_true(void **state)
{
	struct unit_run *r;
	struct pcl_count tc, pf;

	(void)state;
	r = run_workload("task-clock,page-faults", true_argv);
	assert_true(WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0);
	assert_int_equal(pcl_evlist__nr(r->el), 2);
	assert_int_equal(pcl_evlist__state(r->el, 0), PCL_EVSEL_OK);
	assert_int_equal(pcl_evlist__state(r->el, 1), PCL_EVSEL_OK);
	assert_int_equal(pcl_evlist__open_status(r->el, 0), 0);
	assert_int_equal(pcl_evlist__nr_cpus(r->el), 1);
	assert_int_equal(pcl_evlist__cpu(r->el, 0), -1);
	assert_int_equal(pcl_evlist__nr_threads(r->el), 1);
	assert_int_equal(pcl_evlist__thread(r->el, 0), pcl_workload__pid(r->wl));
	tc = count_of(r, 0);
	pf = count_of(r, 1);
	assert_true(tc.val > 0);
	assert_true(pf.val > 0);
	assert_true(tc.ena > 0);
	assert_int_equal(tc.ena, tc.run);
	assert_int_equal(pf.ena, pf.run);
	/* task-clock counts the time the task ran: at most the time it was enabled */
	assert_true(tc.val <= tc.ena + 1000000);
	/* the per-(cpu, thread) cell is the same as the sum */
	{
		struct pcl_count cell;

		assert_int_equal(pcl_evlist__count(r->el, 1, 0, 0, &cell), 0);
		assert_int_equal(cell.val, pf.val);
	}
	unit_run_free();
}

static void test_workload_rusage(void **state)
{
	struct pcl_workload *wl = prepare_quiet(true_argv);
	struct rusage ru;
	int status;

	(void)state;
	assert_non_null(wl);
	assert_true(pcl_workload__pid(wl) > 0);
	assert_int_equal(pcl_workload__rusage(wl, &ru), -ECHILD);
	assert_int_equal(pcl_workload__start(wl), 0);
	assert_int_equal(pcl_workload__start(wl), -EINVAL); /* only once */
	assert_int_equal(pcl_workload__wait(wl, &status, 0), pcl_workload__pid(wl));
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(pcl_workload__rusage(wl, &ru), 0);
	assert_int_equal(pcl_workload__wait(wl, &status, 0), -ECHILD);
	pcl_workload__free(wl);
	pcl_workload__free(NULL);
}

struct bad_cmd_case {
	const char *cmd;
	int err;
};

static const struct bad_cmd_case bad_cmd_cases[] = {
	{ "/nonexistent/command", -ENOENT },
	{ "pcl-no-such-command-xyz", -ENOENT },
	{ "/etc/passwd", -EACCES },
	{ "/", -EACCES },
};

static void test_workload_bad_command(void **state)
{
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad_cmd_cases); i++) {
		char *argv[] = { (char *)bad_cmd_cases[i].cmd, NULL };
		struct pcl_workload *wl = prepare_quiet(argv);
		int status = 0, ret;

		assert_non_null(wl);
		ret = pcl_workload__start(wl);
		bad += differ(argv[0], "start", (uint64_t)(int64_t)ret,
			      (uint64_t)(int64_t)bad_cmd_cases[i].err);
		assert_int_equal(pcl_workload__wait(wl, &status, 0), pcl_workload__pid(wl));
		bad += differ(argv[0], "exit status", (uint64_t)WEXITSTATUS(status), 127);
		pcl_workload__free(wl);
	}
	assert_int_equal(bad, 0);
	errno = 0;
	assert_null(pcl_workload__prepare(NULL));
	assert_int_equal(errno, EINVAL);
}

/* A prepared workload that is never started is killed and reaped by free(). */
static void test_workload_never_started(void **state)
{
	struct pcl_workload *wl = prepare_quiet(true_argv);
	pid_t pid;

	(void)state;
	assert_non_null(wl);
	pid = pcl_workload__pid(wl);
	pcl_workload__free(wl);
	errno = 0;
	assert_int_equal(waitpid(pid, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

/* ---- exact counts ---- */

static const char *self_exe;

static void require_tracepoint(const char *sys, const char *name)
{
	uint64_t id;

	if (!pcl_tracefs(true) || tracepoint_id(sys, name, &id)) {
		print_message("tracepoint %s:%s not available (tracefs not mounted?)\n", sys,
			      name);
		skip();
	}
}

static void test_tracepoint_count_echo(void **state)
{
	char *argv[] = { "/bin/echo", "hi", NULL };
	struct unit_run *r;

	(void)state;
	require_tracepoint("syscalls", "sys_enter_write");
	r = run_workload("syscalls:sys_enter_write", argv);
	/* strace -e write /bin/echo hi: exactly one write(1, "hi\n", 3) */
	assert_int_equal(count_of(r, 0).val, 1);
	unit_run_free();
}

static void test_tracepoint_count_exact(void **state)
{
	static const int ks[] = { 0, 1, 7, 100 };

	(void)state;
	require_tracepoint("syscalls", "sys_enter_write");
	for (size_t i = 0; i < ARRAY_SIZE(ks); i++) {
		char k[16];
		char *argv[] = { (char *)self_exe, "--write", k, NULL };
		struct unit_run *r;
		struct pcl_count c;

		snprintf(k, sizeof(k), "%d", ks[i]);
		r = run_workload("syscalls:sys_enter_write,syscalls:sys_exit_write", argv);
		assert_true(WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0);
		c = count_of(r, 0);
		if (c.val != (uint64_t)ks[i])
			fail_msg("%d writes counted as %llu", ks[i], (unsigned long long)c.val);
		assert_int_equal(count_of(r, 1).val, ks[i]);
		unit_run_free();
	}
}

static volatile long watched;

/* A breakpoint on a variable of this process counts each write to it. */
static void test_breakpoint_count_self(void **state)
{
	char spec[64], pid[16];
	struct pcl_target t = { .sz = sizeof(t), .tid = pid };
	struct pcl_evlist *el = pcl_evlist__new();
	struct pcl_count c;
	int ret;

	(void)state;
	snprintf(spec, sizeof(spec), "mem:%p/8:w", (void *)&watched);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	assert_true(pcl_evlist__add(el, spec, NULL) >= 0);
	ret = pcl_evlist__open(el, &t, NULL);
	if (ret || pcl_evlist__state(el, 0) != PCL_EVSEL_OK) {
		print_message("breakpoint '%s' does not open here: %d %s\n", spec, ret,
			      pcl_last_error());
		pcl_evlist__free(el);
		skip();
	}
	assert_int_equal(pcl_evlist__enable(el), 0);
	for (int i = 0; i < 5; i++)
		watched = i;
	(void)watched;
	assert_int_equal(pcl_evlist__disable(el), 0);
	watched = 99; /* not counted: disabled */
	assert_int_equal(pcl_evlist__read(el), 0);
	assert_int_equal(pcl_evlist__count(el, 0, -1, -1, &c), 0);
	assert_int_equal(c.val, 5);
	pcl_evlist__free(el);
}

/* ---- counting this process ---- */

static struct pcl_evlist *open_self(const char *spec)
{
	char pid[16];
	struct pcl_target t = { .sz = sizeof(t), .pid = pid };
	struct pcl_evlist *el = pcl_evlist__new();
	struct pcl_parse_error err;
	int ret;

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	assert_non_null(el);
	ret = pcl_evlist__add(el, spec, &err);
	if (ret < 0)
		fail_msg("'%s': %s", spec, err.msg);
	ret = pcl_evlist__open(el, &t, NULL);
	if (ret)
		fail_msg("open '%s' on self: %d %s", spec, ret, pcl_last_error());
	return el;
}

static void touch_pages(int n)
{
	long psz = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, (size_t)(n * psz), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(p != MAP_FAILED);
	for (int i = 0; i < n; i++)
		p[i * psz] = 1;
	munmap(p, (size_t)(n * psz));
}

static void test_count_self(void **state)
{
	struct pcl_evlist *el = open_self("task-clock,page-faults");
	struct pcl_count tc, pf;

	(void)state;
	assert_int_equal(pcl_evlist__thread(el, 0), getpid());
	assert_int_equal(pcl_evlist__enable(el), 0);
	touch_pages(64);
	assert_int_equal(pcl_evlist__disable(el), 0);
	assert_int_equal(pcl_evlist__read(el), 0);
	assert_int_equal(pcl_evlist__count(el, 0, -1, -1, &tc), 0);
	assert_int_equal(pcl_evlist__count(el, 1, -1, -1, &pf), 0);
	assert_true(tc.val > 0);
	assert_true(pf.val >= 64);
	/* reset zeroes the counters; disabled, they stay at zero */
	assert_int_equal(pcl_evlist__reset(el), 0);
	assert_int_equal(pcl_evlist__read(el), 0);
	assert_int_equal(pcl_evlist__count(el, 1, -1, -1, &pf), 0);
	assert_int_equal(pf.val, 0);
	pcl_evlist__free(el);
}

/*
 * A counting open has no sample period, as perf stat clears it: the kernel
 * refuses to sample irq_vectors:irq_work_exit (EPERM) but counts it. A caller
 * that asks for sample fields keeps its period.
 */
static void test_count_no_period(void **state)
{
	struct pcl_evlist *el;
	struct pcl_parse_error err;
	char pid[16];
	struct pcl_target t = { .sz = sizeof(t), .pid = pid };

	(void)state;
	require_tracepoint("syscalls", "sys_enter_write");
	el = open_self("syscalls:sys_enter_write");
	assert_int_equal(pcl_evlist__state(el, 0), PCL_EVSEL_OK);
	assert_int_equal(pcl_evlist__attr(el, 0)->sample_period, 0);
	pcl_evlist__free(el);

	el = pcl_evlist__new();
	assert_non_null(el);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	assert_true(pcl_evlist__add(el, "syscalls:sys_enter_write", &err) > 0);
	pcl_evlist__attr(el, 0)->sample_type = PERF_SAMPLE_IP;
	assert_int_equal(pcl_evlist__open(el, &t, NULL), 0);
	assert_int_equal(pcl_evlist__attr(el, 0)->sample_period, 1);
	pcl_evlist__free(el);

	require_tracepoint("irq_vectors", "irq_work_exit");
	el = open_self("irq_vectors:irq_work_exit");
	assert_int_equal(pcl_evlist__state(el, 0), PCL_EVSEL_OK);
	pcl_evlist__free(el);
}

/* One read() of the group: every member has the leader's times exactly. */
static void test_group_reads_consistently(void **state)
{
	struct pcl_evlist *el = open_self("{task-clock,page-faults,cs}");
	struct pcl_count c[3];

	(void)state;
	assert_int_equal(pcl_evlist__event(el, 0)->nr_members, 3);
	assert_int_equal(pcl_evlist__enable(el), 0);
	for (int round = 0; round < 3; round++) {
		touch_pages(16);
		/* read while counting: separate reads would see different times */
		assert_int_equal(pcl_evlist__read(el), 0);
		for (int i = 0; i < 3; i++)
			assert_int_equal(pcl_evlist__count(el, i, -1, -1, &c[i]), 0);
		assert_true(c[0].val > 0);
		assert_true(c[1].val >= 16);
		for (int i = 1; i < 3; i++) {
			assert_int_equal(c[i].ena, c[0].ena);
			assert_int_equal(c[i].run, c[0].run);
		}
	}
	pcl_evlist__free(el);
}

static void test_group_on_workload(void **state)
{
	struct unit_run *r;
	struct pcl_count tc, pf;

	(void)state;
	r = run_workload("{task-clock,page-faults}", true_argv);
	tc = count_of(r, 0);
	pf = count_of(r, 1);
	assert_true(tc.val > 0);
	assert_true(pf.val > 0);
	assert_int_equal(tc.ena, pf.ena);
	assert_int_equal(tc.run, pf.run);
	assert_int_equal(tc.ena, tc.run);
	unit_run_free();
}

/* ---- read_format: every layout of perf_event_open(2) ---- */

#define RF_ENA	PERF_FORMAT_TOTAL_TIME_ENABLED
#define RF_RUN	PERF_FORMAT_TOTAL_TIME_RUNNING
#define RF_ID	PERF_FORMAT_ID
#define RF_GRP	PERF_FORMAT_GROUP
#define RF_LOST PERF_FORMAT_LOST

struct rf_case {
	const char *name;
	uint64_t fmt;
	uint64_t words[12];
	int nwords;
	int max;		   /* room for this many counts */
	int want;		   /* counts decoded, or the negative errno */
	struct pcl_count out[3]; /* val, ena, run, id, lost */
};

/* Synthetic read(2) results: the manual's two layouts, and what must be refused. */
static const struct rf_case rf_cases[] = {
	{ "value", 0, { 42 }, 1, 1, 1, { { 42, 0, 0, 0, 0 } } },
	{ "ena", RF_ENA, { 42, 100 }, 2, 1, 1, { { 42, 100, 0, 0, 0 } } },
	{ "run", RF_RUN, { 42, 90 }, 2, 1, 1, { { 42, 0, 90, 0, 0 } } },
	{ "times", RF_ENA | RF_RUN, { 42, 100, 90 }, 3, 1, 1, { { 42, 100, 90, 0, 0 } } },
	{ "id", RF_ID, { 42, 7 }, 2, 1, 1, { { 42, 0, 0, 7, 0 } } },
	{ "lost", RF_LOST, { 42, 3 }, 2, 1, 1, { { 42, 0, 0, 0, 3 } } },
	{ "id|lost", RF_ID | RF_LOST, { 42, 7, 3 }, 3, 1, 1, { { 42, 0, 0, 7, 3 } } },
	{ "run|id", RF_RUN | RF_ID, { 42, 90, 7 }, 3, 1, 1, { { 42, 0, 90, 7, 0 } } },
	{ "default", RF_ENA | RF_RUN | RF_ID, { 42, 100, 90, 7 }, 4, 1, 1,
	  { { 42, 100, 90, 7, 0 } } },
	{ "all but group", RF_ENA | RF_RUN | RF_ID | RF_LOST, { 42, 100, 90, 7, 3 }, 5, 1, 1,
	  { { 42, 100, 90, 7, 3 } } },
	{ "group of one", RF_GRP, { 1, 42 }, 2, 1, 1, { { 42, 0, 0, 0, 0 } } },
	{ "group", RF_GRP, { 3, 10, 20, 30 }, 4, 3, 3,
	  { { 10, 0, 0, 0, 0 }, { 20, 0, 0, 0, 0 }, { 30, 0, 0, 0, 0 } } },
	{ "group times", RF_GRP | RF_ENA | RF_RUN, { 2, 100, 90, 10, 20 }, 5, 3, 2,
	  { { 10, 100, 90, 0, 0 }, { 20, 100, 90, 0, 0 } } },
	{ "group run", RF_GRP | RF_RUN, { 2, 90, 10, 20 }, 4, 3, 2,
	  { { 10, 0, 90, 0, 0 }, { 20, 0, 90, 0, 0 } } },
	{ "group id", RF_GRP | RF_ID, { 2, 10, 7, 20, 8 }, 5, 3, 2,
	  { { 10, 0, 0, 7, 0 }, { 20, 0, 0, 8, 0 } } },
	{ "group lost", RF_GRP | RF_LOST, { 2, 10, 1, 20, 2 }, 5, 3, 2,
	  { { 10, 0, 0, 0, 1 }, { 20, 0, 0, 0, 2 } } },
	{ "group all", RF_GRP | RF_ENA | RF_RUN | RF_ID | RF_LOST,
	  { 3, 100, 90, 10, 7, 1, 20, 8, 2, 30, 9, 3 }, 12, 3, 3,
	  { { 10, 100, 90, 7, 1 }, { 20, 100, 90, 8, 2 }, { 30, 100, 90, 9, 3 } } },
	/* refused: the length is not what the format makes, or the group does not fit */
	{ "short", RF_ENA | RF_RUN | RF_ID, { 42, 100, 90 }, 3, 1, -EIO },
	{ "long", 0, { 42, 1 }, 2, 1, -EIO },
	{ "lost missing", RF_ID | RF_LOST, { 42, 7 }, 2, 1, -EIO },
	{ "empty", RF_ID, { 0 }, 0, 1, -EIO },
	{ "group of none", RF_GRP, { 0 }, 1, 3, -EIO },
	{ "group too big", RF_GRP, { 3, 1, 2, 3 }, 4, 2, -EIO },
	{ "group short", RF_GRP | RF_ID, { 2, 10, 7, 20 }, 4, 3, -EIO },
	{ "group long", RF_GRP, { 1, 10, 20 }, 3, 3, -EIO },
	{ "group no header", RF_GRP | RF_ENA | RF_RUN, { 1, 100 }, 2, 3, -EIO },
	{ "unknown bit", 1u << 5, { 42 }, 1, 1, -EIO },
};

static int check_rf_case(const struct rf_case *c)
{
	struct pcl_count out[3];
	int bad = 0, n;

	memset(out, 0xa5, sizeof(out));
	n = read_format_parse(c->fmt, c->words, (size_t)c->nwords * sizeof(uint64_t), out, c->max);
	bad += differ(c->name, "return", (uint64_t)(int64_t)n, (uint64_t)(int64_t)c->want);
	for (int k = 0; k < c->want && n == c->want; k++) {
		bad += differ(c->name, "val", out[k].val, c->out[k].val);
		bad += differ(c->name, "ena", out[k].ena, c->out[k].ena);
		bad += differ(c->name, "run", out[k].run, c->out[k].run);
		bad += differ(c->name, "id", out[k].id, c->out[k].id);
		bad += differ(c->name, "lost", out[k].lost, c->out[k].lost);
	}
	if (c->want > 0)
		bad += differ(c->name, "read_format_size",
			      read_format_size(c->fmt, c->want),
			      (uint64_t)c->nwords * sizeof(uint64_t));
	return bad;
}

static void test_read_format_parse(void **state)
{
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(rf_cases) / sizeof(rf_cases[0]); i++)
		bad += check_rf_case(&rf_cases[i]);
	assert_int_equal(bad, 0);
}

/*
 * Every combination of the five bits, groups of 1 to 4: encode counts the
 * way the manual lays them out (written here independently of the parser),
 * decode, compare; the same bytes one word shorter or longer are refused.
 */
static void test_read_format_every_combination(void **state)
{
	int bad = 0;

	(void)state;
	for (uint64_t fmt = 0; fmt < 32; fmt++) {
		for (int nr = 1; nr <= 4; nr++) {
			bool grp = fmt & RF_GRP;
			uint64_t w[32], *p = w;
			struct pcl_count out[5];
			char row[64];
			int n, len;

			if (!grp && nr > 1)
				continue;
			snprintf(row, sizeof(row), "fmt %#llx nr %d", (unsigned long long)fmt, nr);
			if (grp) {
				*p++ = (uint64_t)nr;
				if (fmt & RF_ENA)
					*p++ = 1000;
				if (fmt & RF_RUN)
					*p++ = 900;
			}
			for (int k = 0; k < nr; k++) {
				*p++ = 10 + (uint64_t)k;
				if (!grp && (fmt & RF_ENA))
					*p++ = 1000;
				if (!grp && (fmt & RF_RUN))
					*p++ = 900;
				if (fmt & RF_ID)
					*p++ = 70 + (uint64_t)k;
				if (fmt & RF_LOST)
					*p++ = 5 + (uint64_t)k;
			}
			len = (int)((p - w) * (int)sizeof(uint64_t));
			bad += differ(row, "size", read_format_size(fmt, nr), (uint64_t)len);
			n = read_format_parse(fmt, w, (size_t)len, out, 5);
			bad += differ(row, "nr", (uint64_t)n, (uint64_t)nr);
			for (int k = 0; k < nr && n == nr; k++) {
				bad += differ(row, "val", out[k].val, 10 + (uint64_t)k);
				bad += differ(row, "ena", out[k].ena, fmt & RF_ENA ? 1000 : 0);
				bad += differ(row, "run", out[k].run, fmt & RF_RUN ? 900 : 0);
				bad += differ(row, "id", out[k].id, fmt & RF_ID ? 70 + (uint64_t)k : 0);
				bad += differ(row, "lost", out[k].lost,
					      fmt & RF_LOST ? 5 + (uint64_t)k : 0);
			}
			bad += differ(row, "one word short",
				      (uint64_t)read_format_parse(fmt, w, (size_t)len - 8, out, 5),
				      (uint64_t)-EIO);
			bad += differ(row, "one word long",
				      (uint64_t)read_format_parse(fmt, w, (size_t)len + 8, out, 5),
				      (uint64_t)-EIO);
		}
	}
	assert_int_equal(bad, 0);
}

/* The id the kernel gives the counter behind @fd. */
static uint64_t ioc_id(int fd)
{
	uint64_t id = 0;

	assert_int_equal(ioctl(fd, PERF_EVENT_IOC_ID, &id), 0);
	return id;
}

/* Read @spec on this process with @fmt; count what is not sane. */
static int check_read_format_real(const char *spec, uint64_t fmt)
{
	static const char *names[] = { "task-clock", "page-faults", "context-switches" };
	struct pcl_evlist *el = pcl_evlist__new();
	char pid[16], row[96];
	struct pcl_target t = { .sz = sizeof(t), .pid = pid };
	struct pcl_count c[3];
	int bad = 0, ret;

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	snprintf(row, sizeof(row), "%s fmt %#llx", spec, (unsigned long long)fmt);
	assert_non_null(el);
	assert_true(pcl_evlist__add(el, spec, NULL) >= 0);
	assert_int_equal(pcl_evlist__set_read_format(el, fmt), 0);
	ret = pcl_evlist__open(el, &t, NULL);
	if (ret)
		fail_msg("%s: open: %d %s", row, ret, pcl_last_error());
	assert_int_equal(pcl_evlist__enable(el), 0);
	touch_pages(32);
	usleep(2000); /* sleeping switches context */
	assert_int_equal(pcl_evlist__disable(el), 0);
	ret = pcl_evlist__read(el);
	bad += differ(row, "read", (uint64_t)ret, 0);
	for (int i = 0; i < 3 && !ret; i++) {
		int fd = pcl_evlist__fd(el, i, 0, 0);
		char what[64];

		bad += differ(row, "read_format as opened", pcl_evlist__attr(el, i)->read_format,
			      fmt);
		assert_int_equal(pcl_evlist__count(el, i, -1, -1, &c[i]), 0);
		snprintf(what, sizeof(what), "%s counted", names[i]);
		bad += differ(row, what, c[i].val >= (i == 1 ? 32u : 1u), 1);
		snprintf(what, sizeof(what), "%s id", names[i]);
		bad += differ(row, what, c[i].id, fmt & RF_ID ? ioc_id(fd) : 0);
		snprintf(what, sizeof(what), "%s time enabled present", names[i]);
		bad += differ(row, what, c[i].ena > 0, !!(fmt & RF_ENA));
		snprintf(what, sizeof(what), "%s time running present", names[i]);
		bad += differ(row, what, c[i].run > 0, !!(fmt & RF_RUN));
		snprintf(what, sizeof(what), "%s lost", names[i]);
		bad += differ(row, what, c[i].lost, 0);
		if ((fmt & RF_ENA) && (fmt & RF_RUN))
			bad += differ(row, "run <= ena", c[i].run <= c[i].ena, 1);
	}
	/* one read(2) of a group: every member has the leader's times exactly */
	if (!ret && spec[0] == '{' && (fmt & RF_GRP)) {
		for (int i = 1; i < 3; i++) {
			bad += differ(row, "member ena = leader's", c[i].ena, c[0].ena);
			bad += differ(row, "member run = leader's", c[i].run, c[0].run);
		}
	}
	pcl_evlist__free(el);
	return bad;
}

/* Real counters, each of the 32 read_formats, alone and in a group. */
static void test_read_format_real(void **state)
{
	int bad = 0;

	(void)state;
	for (uint64_t fmt = 0; fmt < 32; fmt++) {
		bad += check_read_format_real("task-clock,page-faults,context-switches", fmt);
		bad += check_read_format_real("{task-clock,page-faults,context-switches}", fmt);
	}
	assert_int_equal(bad, 0);
}

/* The group buffer is sized from the group: no fixed cap on members. */
static void test_read_big_group(void **state)
{
	char spec[100 * 12 + 8], *p = spec;
	struct pcl_evlist *el;
	struct pcl_count c;

	(void)state;
	*p++ = '{';
	for (int i = 0; i < 100; i++)
		p += sprintf(p, "%spage-faults", i ? "," : "");
	strcpy(p, "}");
	el = open_self(spec);
	assert_int_equal(pcl_evlist__set_read_format(el, RF_GRP), -EINVAL); /* opened */
	assert_int_equal(pcl_evlist__enable(el), 0);
	touch_pages(8);
	assert_int_equal(pcl_evlist__disable(el), 0);
	assert_int_equal(pcl_evlist__read(el), 0);
	for (int i = 0; i < 100; i++) {
		assert_int_equal(pcl_evlist__count(el, i, -1, -1, &c), 0);
		assert_true(c.val >= 8);
		assert_int_equal(c.id, ioc_id(pcl_evlist__fd(el, i, 0, 0)));
	}
	/*
	 * A member read by itself with PERF_FORMAT_GROUP gets the whole group:
	 * the buffer grows past its first guess, and the member is found by id.
	 */
	struct pcl_count all;
	uint64_t fmt = pcl_evlist__attr(el, 50)->read_format;

	assert_true(fmt & RF_GRP);
	assert_int_equal(kernel_counter_read(pcl_evlist__fd(el, 50, 0, 0), fmt, &c), 0);
	assert_int_equal(c.id, ioc_id(pcl_evlist__fd(el, 50, 0, 0)));
	assert_int_equal(pcl_evlist__count(el, 50, -1, -1, &all), 0);
	assert_int_equal(c.val, all.val);
	/* decoding with a read_format that is not the fd's: the length tells, refused */
	assert_int_equal(kernel_counter_read(pcl_evlist__fd(el, 50, 0, 0), fmt & ~(uint64_t)RF_ID,
					     &c),
			 -EIO);
	pcl_evlist__free(el);
}

/* ---- what cannot be counted here ---- */

static bool have_hw_cycles(void)
{
	struct perf_event_attr a = { .type = PERF_TYPE_HARDWARE,
				     .config = PERF_COUNT_HW_CPU_CYCLES };

	return pcl_event_probe(&a) == 0;
}

static void test_hw_not_supported(void **state)
{
	struct unit_run *r;
	struct pcl_count c;

	(void)state;
	if (have_hw_cycles()) {
		print_message("this machine has a hardware PMU: cycles opens\n");
		skip();
	}
	r = run_workload("cycles,task-clock,instructions:u", true_argv);
	assert_int_equal(pcl_evlist__state(r->el, 0), PCL_EVSEL_NOT_SUPPORTED);
	assert_true(pcl_evlist__open_status(r->el, 0) < 0);
	assert_int_equal(pcl_evlist__count(r->el, 0, -1, -1, &c), -ENOENT);
	assert_int_equal(pcl_evlist__state(r->el, 1), PCL_EVSEL_OK);
	assert_true(count_of(r, 1).val > 0);
	assert_int_equal(pcl_evlist__state(r->el, 2), PCL_EVSEL_NOT_SUPPORTED);
	unit_run_free();
}

static void test_hw_group_member_not_supported(void **state)
{
	struct unit_run *r;

	(void)state;
	if (have_hw_cycles()) {
		print_message("this machine has a hardware PMU: cycles opens\n");
		skip();
	}
	r = run_workload("{task-clock,cycles,page-faults}", true_argv);
	assert_int_equal(pcl_evlist__state(r->el, 0), PCL_EVSEL_OK);
	assert_int_equal(pcl_evlist__state(r->el, 1), PCL_EVSEL_NOT_SUPPORTED);
	assert_int_equal(pcl_evlist__state(r->el, 2), PCL_EVSEL_OK);
	assert_true(count_of(r, 0).val > 0);
	assert_true(count_of(r, 2).val > 0);
	unit_run_free();
}

/* Nothing opens: open fails and says which event and why. */
static void test_nothing_opens(void **state)
{
	struct pcl_evlist *el = pcl_evlist__new();
	struct pcl_workload *wl;
	struct pcl_target t = { .sz = sizeof(t) };
	int ret;

	(void)state;
	if (have_hw_cycles()) {
		print_message("this machine has a hardware PMU: cycles opens\n");
		pcl_evlist__free(el);
		skip();
	}
	assert_true(pcl_evlist__add(el, "{cycles,instructions}", NULL) >= 0);
	wl = prepare_quiet(true_argv);
	/* like perf, nothing countable is not an error: every row says <not supported> */
	ret = pcl_evlist__open(el, &t, wl);
	assert_int_equal(ret, 0);
	assert_int_equal(pcl_evlist__enable(el), 0);
	assert_int_equal(pcl_evlist__read(el), 0);
	assert_true(pcl_evlist__open_status(el, 0) < 0);
	assert_int_equal(pcl_evlist__state(el, 0), PCL_EVSEL_NOT_SUPPORTED);
	assert_int_equal(pcl_evlist__state(el, 1), PCL_EVSEL_NOT_SUPPORTED);
	pcl_evlist__free(el);
	pcl_workload__free(wl);
}

struct bad_target_case {
	const char *what;
	const char *pid, *tid, *cpu_list, *cgroup;
	int err;
	const char *msg;	/* in pcl_last_error() */
};

static const struct bad_target_case bad_target_cases[] = {
	{ "dead pid", "999999999", NULL, NULL, NULL, -ESRCH, "999999999" },
	{ "dead tid", NULL, "999999999", NULL, NULL, -ESRCH, "999999999" },
	{ "live and dead pid", "1,999999998", NULL, NULL, NULL, -ESRCH, "999999998" },
	{ "bad pid", "abc", NULL, NULL, NULL, -EINVAL, "abc" },
	{ "pid 0", "0", NULL, NULL, NULL, -EINVAL, NULL },
	{ "empty pid list", "", NULL, NULL, NULL, -EINVAL, NULL },
	{ "pid and tid", "1", "1", NULL, NULL, -EINVAL, NULL },
	{ "offline cpu", NULL, NULL, "4095", NULL, -EINVAL, "4095" },
	{ "bad cpu list", NULL, NULL, "0-", NULL, -EINVAL, "0-" },
	{ "missing cgroup", NULL, NULL, "0", "pcl-no-such-cgroup", -ENOENT, "pcl-no-such-cgroup" },
};

static void test_bad_targets(void **state)
{
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad_target_cases); i++) {
		const struct bad_target_case *c = &bad_target_cases[i];
		struct pcl_target t = { .sz = sizeof(t), .pid = c->pid, .tid = c->tid,
					.cpu_list = c->cpu_list, .cgroup = c->cgroup };
		struct pcl_evlist *el = pcl_evlist__new();
		int ret;

		assert_true(pcl_evlist__add(el, "task-clock", NULL) >= 0);
		ret = pcl_evlist__open(el, &t, NULL);
		bad += differ(c->what, "open", (uint64_t)(int64_t)ret, (uint64_t)(int64_t)c->err);
		if (c->msg && !strstr(pcl_last_error(), c->msg)) {
			print_message("'%s': message '%s' does not name '%s'\n", c->what,
				      pcl_last_error(), c->msg);
			bad++;
		}
		pcl_evlist__free(el);
	}
	assert_int_equal(bad, 0);
}

/* A pid that exited: a child that is reaped. */
static pid_t gone_pid(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (!pid)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	return pid;
}

/*
 * A pid list with one that is gone: an error naming it, or skipped with
 * ignore_missing (perf stat -a --per-thread lists every pid first); an
 * older caller's struct without the field is taken as before.
 */
static void test_ignore_missing(void **state)
{
	char list[64];
	struct pcl_target t = { .sz = sizeof(t), .pid = list };
	struct pcl_evlist *el = pcl_evlist__new();
	struct pcl_parse_error err;
	pid_t gone = gone_pid();

	(void)state;
	assert_non_null(el);
	assert_true(pcl_evlist__add(el, "task-clock", &err) >= 0);
	snprintf(list, sizeof(list), "%d,%d", (int)gone, (int)getpid());
	assert_int_equal(pcl_evlist__open(el, &t, NULL), -ESRCH);
	assert_non_null(strstr(pcl_last_error(), "not found"));
	t.ignore_missing = true;
	assert_int_equal(pcl_evlist__open(el, &t, NULL), 0);
	assert_int_equal(pcl_evlist__nr_threads(el), 1);
	assert_int_equal(pcl_evlist__thread(el, 0), getpid());
	pcl_evlist__close_counters(el);
	/* a tid list the same way */
	t.pid = NULL;
	t.tid = list;
	assert_int_equal(pcl_evlist__open(el, &t, NULL), 0);
	assert_int_equal(pcl_evlist__thread(el, 0), getpid());
	pcl_evlist__close_counters(el);
	/* all gone: still an error */
	snprintf(list, sizeof(list), "%d", (int)gone);
	assert_true(pcl_evlist__open(el, &t, NULL) < 0);
	/* the struct as it was before ignore_missing: accepted, the field taken as false */
	t.sz = offsetof(struct pcl_target, ignore_missing);
	snprintf(list, sizeof(list), "%d,%d", (int)gone, (int)getpid());
	assert_int_equal(pcl_evlist__open(el, &t, NULL), -ESRCH);
	/* sz below sizeof(size_t): not a struct set up with PCL_OPTS */
	t.sz = sizeof(size_t) - 1;
	assert_int_equal(pcl_evlist__open(el, &t, NULL), -EINVAL);
	pcl_evlist__free(el);
}

static void test_api_misuse(void **state)
{
	struct pcl_evlist *el = pcl_evlist__new();
	struct pcl_target t = { .sz = sizeof(t) }, small = { .sz = 4 };
	struct pcl_parse_error err;
	struct pcl_count c;
	char pid[16];

	(void)state;
	assert_int_equal(pcl_evlist__nr(el), 0);
	assert_int_equal(pcl_evlist__open(el, &t, NULL), -EINVAL); /* no events */
	assert_int_equal(pcl_evlist__add(el, "cyclez", &err), -ENOENT);
	assert_int_equal(pcl_evlist__nr(el), 0);
	assert_true(pcl_evlist__add(el, "task-clock", &err) >= 0);
	assert_int_equal(pcl_evlist__state(el, 0), PCL_EVSEL_NOT_OPENED);
	assert_null(pcl_evlist__event(el, 1));
	assert_null(pcl_evlist__event(el, -1));
	assert_int_equal(pcl_evlist__enable(el), -EINVAL);
	assert_int_equal(pcl_evlist__read(el), -EINVAL);
	assert_int_equal(pcl_evlist__reset(el), -EINVAL);
	assert_int_equal(pcl_evlist__open(el, &t, NULL), -EINVAL); /* no target */
	assert_int_equal(pcl_evlist__open(el, &small, NULL), -EINVAL);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	t.pid = pid;
	assert_int_equal(pcl_evlist__open(el, &t, NULL), 0);
	assert_int_equal(pcl_evlist__open(el, &t, NULL), -EINVAL); /* twice */
	assert_int_equal(pcl_evlist__add(el, "page-faults", &err), -EINVAL); /* after open */
	assert_int_equal(pcl_evlist__count(el, 1, -1, -1, &c), -EINVAL);
	assert_int_equal(pcl_evlist__count(el, 0, 1, -1, &c), -EINVAL);
	assert_int_equal(pcl_evlist__count(el, 0, -1, 1, &c), -EINVAL);
	assert_int_equal(pcl_evlist__count(el, 0, -1, -1, NULL), -EINVAL);
	assert_int_equal(pcl_evlist__cpu(el, 5), -1);
	assert_int_equal(pcl_evlist__thread(el, 5), -1);
	pcl_evlist__close_counters(el);
	pcl_evlist__close_counters(el); /* twice is fine */
	pcl_evlist__free(el);
	pcl_evlist__free(NULL);
	pcl_evlist__close_counters(NULL);
	assert_int_equal(pcl_evlist__nr(NULL), 0);
	assert_int_equal(pcl_evlist__enable(NULL), -EINVAL);
	assert_int_equal(pcl_evlist__add(NULL, "task-clock", NULL), -EINVAL);
}

/* ---- per-CPU targets ---- */

static void test_cpu_target(void **state)
{
	struct pcl_target t = { .sz = sizeof(t), .cpu_list = "0" };
	struct pcl_evlist *el = pcl_evlist__new();
	struct pcl_count c;
	int ret;

	(void)state;
	assert_true(pcl_evlist__add(el, "cpu-clock,duration_time", NULL) >= 0);
	ret = pcl_evlist__open(el, &t, NULL);
	if (ret)
		fail_msg("open on CPU 0: %d %s", ret, pcl_last_error());
	assert_int_equal(pcl_evlist__nr_cpus(el), 1);
	assert_int_equal(pcl_evlist__cpu(el, 0), 0);
	assert_int_equal(pcl_evlist__nr_threads(el), 1);
	assert_int_equal(pcl_evlist__thread(el, 0), -1);
	assert_int_equal(pcl_evlist__enable(el), 0);
	usleep(20000);
	assert_int_equal(pcl_evlist__disable(el), 0);
	assert_int_equal(pcl_evlist__read(el), 0);
	assert_int_equal(pcl_evlist__count(el, 0, 0, 0, &c), 0);
	assert_true(c.val >= 10000000); /* cpu-clock counts wall time on its CPU: >= 10 ms */
	assert_int_equal(pcl_evlist__count(el, 1, -1, -1, &c), 0);
	assert_true(c.val >= 10000000);
	pcl_evlist__free(el);
}

static void test_system_wide(void **state)
{
	struct pcl_target t = { .sz = sizeof(t), .system_wide = true };
	struct pcl_evlist *el = pcl_evlist__new();
	int *online = NULL, n;
	char buf[256];

	(void)state;
	assert_true(read_small_file("/sys/devices/system/cpu/online", buf, sizeof(buf)) > 0);
	n = pcl_parse_cpu_list(buf, &online);
	assert_true(n > 0);
	assert_true(pcl_evlist__add(el, "cs", NULL) >= 0);
	assert_int_equal(pcl_evlist__open(el, &t, NULL), 0);
	assert_int_equal(pcl_evlist__nr_cpus(el), n);
	for (int i = 0; i < n; i++)
		assert_int_equal(pcl_evlist__cpu(el, i), online[i]);
	assert_int_equal(pcl_evlist__enable(el), 0);
	usleep(1000);
	assert_int_equal(pcl_evlist__read(el), 0);
	free(online);
	pcl_evlist__free(el);
}

/* ---- user-space sources through pcl_evlist ---- */

struct ucount {
	int add, del, start, stop, read;
	pid_t pid;
	int cpu;
	uint64_t config;
	bool ctx_ok;
};

static struct ucount uc;

static int u_add(struct pcl_counter *c)
{
	struct ucount *u = pcl_pmu__ctx(c->pmu);

	/* u3 stands for a source whose file is closed to this user */
	if (c->attr->config == 3)
		return -EACCES;
	uc.ctx_ok = u == &uc;
	u->add++;
	u->pid = c->pid;
	u->cpu = c->cpu;
	u->config = c->attr->config;
	c->priv = u;
	c->fd = -1;
	return 0;
}

static void u_del(struct pcl_counter *c)
{
	((struct ucount *)c->priv)->del++;
	c->priv = NULL;
}

static int u_start(struct pcl_counter *c)
{
	((struct ucount *)c->priv)->start++;
	return 0;
}

static int u_stop(struct pcl_counter *c)
{
	((struct ucount *)c->priv)->stop++;
	return 0;
}

/* Runs half the time it is enabled: pcl_count__scaled doubles it. */
static int u_read(struct pcl_counter *c, struct pcl_count *out)
{
	((struct ucount *)c->priv)->read++;
	out->val = 1000 + c->attr->config;
	out->ena = 2000;
	out->run = 1000;
	out->id = 0;
	return 0;
}

static const struct pcl_pmu_ops u_ops = {
	.sz = sizeof(struct pcl_pmu_ops),
	.add = u_add,
	.del = u_del,
	.start = u_start,
	.stop = u_stop,
	.read = u_read,
};

static const struct pcl_pmu_alias u_aliases[] = {
	{ "u1", "config=1", "widgets", 0.25, NULL },
	{ "u2", "config=2", NULL, 0, NULL },
	{ "u3", "config=3", NULL, 0, NULL },
};

static int register_ucount(void **state)
{
	static const struct pcl_pmu_desc d = {
		.sz = sizeof(d), .name = "ucount", .ops = &u_ops,
		.aliases = u_aliases, .nr_aliases = 3, .ctx = &uc,
	};

	(void)state;
	return pcl_pmu_register(&d) ? 0 : -1;
}

static void test_user_source(void **state)
{
	struct unit_run *r;
	struct pcl_count c;
	const struct pcl_event *ev;

	(void)state;
	memset(&uc, 0, sizeof(uc));
	r = run_workload("ucount/u1/,task-clock", true_argv);
	assert_int_equal(pcl_evlist__state(r->el, 0), PCL_EVSEL_OK);
	assert_true(uc.ctx_ok);
	assert_int_equal(uc.add, 1);
	assert_int_equal(uc.start, 1);
	assert_int_equal(uc.stop, 1);
	assert_int_equal(uc.read, 1);
	assert_int_equal(uc.del, 0);
	assert_int_equal(uc.pid, pcl_workload__pid(r->wl));
	assert_int_equal(uc.cpu, -1);
	assert_int_equal(uc.config, 1);
	c = count_of(r, 0);
	assert_int_equal(c.val, 1001);
	assert_int_equal(c.ena, 2000);
	assert_int_equal(c.run, 1000);
	ev = pcl_evlist__event(r->el, 0);
	assert_true(ev->scale == 0.25);
	assert_string_equal(ev->unit, "widgets");
	assert_true(fabs(pcl_count__scaled(&c, ev->scale) - 500.5) < 1e-9);
	assert_true(count_of(r, 1).val > 0);
	unit_run_free();
	assert_int_equal(uc.del, 1);
}

/* perf_event_open was never called: a refusal by a user-space source does not blame paranoid. */
static void test_user_source_eacces(void **state)
{
	char pid[16];
	struct pcl_target t = { .sz = sizeof(t), .pid = pid };
	struct pcl_evlist *el = pcl_evlist__new();
	struct pcl_parse_error err;

	(void)state;
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	assert_non_null(el);
	assert_true(pcl_evlist__add(el, "ucount/u3/", &err) > 0);
	assert_int_equal(pcl_evlist__open(el, &t, NULL), -EACCES);
	print_message("%s\n", pcl_last_error());
	assert_non_null(strstr(pcl_last_error(), "'ucount/u3/'"));
	assert_null(strstr(pcl_last_error(), "paranoid"));
	pcl_evlist__free(el);
}

static void test_user_source_per_cpu(void **state)
{
	struct pcl_target t = { .sz = sizeof(t), .cpu_list = "0" };
	struct pcl_evlist *el = pcl_evlist__new();
	struct pcl_count c;

	(void)state;
	memset(&uc, 0, sizeof(uc));
	assert_true(pcl_evlist__add(el, "ucount/u2/", NULL) >= 0);
	assert_int_equal(pcl_evlist__open(el, &t, NULL), 0);
	assert_int_equal(uc.pid, -1);
	assert_int_equal(uc.cpu, 0);
	assert_int_equal(pcl_evlist__enable(el), 0);
	assert_int_equal(pcl_evlist__read(el), 0);
	assert_int_equal(pcl_evlist__count(el, 0, -1, -1, &c), 0);
	assert_int_equal(c.val, 1002);
	pcl_evlist__free(el);
	assert_int_equal(uc.add, 1);
	assert_int_equal(uc.del, 1);
}

/*
 * A user-space source inside a kernel-led group: it has no place in the
 * kernel's group read, so it must still be read through its own ops, and the
 * kernel members after it must get their own values.
 */
static void test_user_source_in_group(void **state)
{
	struct unit_run *r;
	struct pcl_count u, pf, cs;

	(void)state;
	memset(&uc, 0, sizeof(uc));
	r = run_workload("{task-clock,ucount/u1/,page-faults,cs}", true_argv);
	assert_int_equal(pcl_evlist__state(r->el, 1), PCL_EVSEL_OK);
	u = count_of(r, 1);
	pf = count_of(r, 2);
	cs = count_of(r, 3);
	assert_int_equal(u.val, 1001);
	assert_int_equal(uc.read, 1);
	assert_true(pf.val > 0);
	assert_true(cs.val < pf.val); /* /bin/true faults dozens of times, switches a few */
	unit_run_free();
}

static void test_tool_events(void **state)
{
	struct unit_run *r;
	struct pcl_count d;

	(void)state;
	r = run_workload("duration_time,user_time,system_time,tool/duration_time/", true_argv);
	for (int i = 0; i < 4; i++)
		assert_int_equal(pcl_evlist__state(r->el, i), PCL_EVSEL_OK);
	d = count_of(r, 0);
	assert_true(d.val > 0);
	assert_int_equal(d.ena, d.val);
	assert_int_equal(d.run, d.val);
	assert_true(d.val < 10ull * 1000 * 1000 * 1000);
	assert_true(count_of(r, 3).val > 0);
	unit_run_free();
}

/* ---- user-only fallback ---- */

struct fallback_row {
	char name[256];
	struct perf_event_attr attr;
};

static const char *const fallback_spec =
	"task-clock,page-faults:k,cs:u,duration_time,msr/tsc/,sched:sched_switch,mem:0x1000:w";

/* In a child that dropped root: apply the fallback, send the events back. */
static void fallback_child(int fd)
{
	struct pcl_evlist *el = pcl_evlist__new();
	int ret;

	/* parse while still root: tracefs is root-only */
	if (!el || pcl_evlist__add(el, fallback_spec, NULL) < 0)
		_exit(10);
	if (setgid(65534) || setuid(65534))
		_exit(11);
	ret = pcl_evlist__user_only_fallback(el);
	if (ret != 1)
		_exit(12);
	for (int i = 0; i < pcl_evlist__nr(el); i++) {
		struct fallback_row row;

		memset(&row, 0, sizeof(row));
		snprintf(row.name, sizeof(row.name), "%s", pcl_evlist__event(el, i)->name);
		row.attr = pcl_evlist__event(el, i)->attr;
		if (write(fd, &row, sizeof(row)) != sizeof(row))
			_exit(13);
	}
	_exit(0);
}

static int check_fallback_row(const struct fallback_row *row)
{
	struct pcl_events l = { 0 };
	int bad = 0;

	if (pcl_parse_events(&l, row->name, NULL) != 1) {
		print_message("after the fallback, '%s' does not parse back\n", row->name);
		return 1;
	}
	bad += differ(row->name, "re-parsed exclude_user", l.ev[0].attr.exclude_user,
		      row->attr.exclude_user);
	bad += differ(row->name, "re-parsed exclude_kernel", l.ev[0].attr.exclude_kernel,
		      row->attr.exclude_kernel);
	bad += differ(row->name, "re-parsed exclude_hv", l.ev[0].attr.exclude_hv,
		      row->attr.exclude_hv);
	bad += differ(row->name, "re-parsed config", l.ev[0].attr.config, row->attr.config);
	pcl_events__clear(&l);
	return bad;
}

static void test_user_only_fallback(void **state)
{
	struct pcl_sys_caps caps = { .sz = sizeof(caps) };
	struct fallback_row rows[8];
	int p[2], status, n = 0, bad = 0;
	ssize_t got;
	pid_t pid;

	(void)state;
	require_tracepoint("sched", "sched_switch");
	assert_int_equal(pcl_sys_probe(&caps), 0);
	if (getuid() != 0 || caps.perf_event_paranoid < 2 || !pcl_pmu__find("msr")) {
		print_message("needs root, perf_event_paranoid >= 2 and the msr PMU\n");
		skip();
	}
	assert_int_equal(pipe(p), 0);
	fflush(stdout);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		fallback_child(p[1]);
	}
	close(p[1]);
	while ((got = read(p[0], &rows[n], sizeof(rows[n]))) == sizeof(rows[n]) && n < 7)
		n++;
	close(p[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fail_msg("fallback child failed: status %#x", status);
	assert_int_equal(n, 7);
	assert_string_equal(rows[0].name, "task-clock:u");
	assert_true(rows[0].attr.exclude_kernel && rows[0].attr.exclude_hv);
	assert_false(rows[0].attr.exclude_user);
	assert_string_equal(rows[1].name, "page-faults:k"); /* chose already */
	assert_string_equal(rows[2].name, "cs:u");
	assert_string_equal(rows[3].name, "duration_time"); /* not a kernel PMU */
	assert_true(rows[4].attr.exclude_kernel);
	assert_true(rows[5].attr.exclude_kernel);
	assert_true(rows[6].attr.exclude_kernel);
	for (int i = 0; i < n; i++)
		bad += check_fallback_row(&rows[i]);
	assert_int_equal(bad, 0);
}

static void test_user_only_fallback_root(void **state)
{
	struct pcl_sys_caps caps = { .sz = sizeof(caps) };
	struct pcl_evlist *el = pcl_evlist__new();

	(void)state;
	assert_int_equal(pcl_sys_probe(&caps), 0);
	if (!caps.can_profile_kernel) {
		print_message("this user may not profile the kernel\n");
		pcl_evlist__free(el);
		skip();
	}
	assert_true(pcl_evlist__add(el, "task-clock", NULL) >= 0);
	assert_int_equal(pcl_evlist__user_only_fallback(el), 0);
	assert_string_equal(pcl_evlist__event(el, 0)->name, "task-clock");
	assert_false(pcl_evlist__event(el, 0)->attr.exclude_kernel);
	pcl_evlist__free(el);
	assert_int_equal(pcl_evlist__user_only_fallback(NULL), -EINVAL);
}

/* The --write K workload: exactly K write(2) calls, then _exit. */
static int write_k(const char *arg)
{
	int k = atoi(arg);

	for (int i = 0; i < k; i++)
		if (write(STDOUT_FILENO, "x", 1) != 1)
			_exit(2);
	_exit(0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		UNIT_TEST(test_parse_cpu_list),
		UNIT_TEST(test_count_scaled),
		UNIT_TEST(test_count_true),
		UNIT_TEST(test_workload_rusage),
		UNIT_TEST(test_workload_bad_command),
		UNIT_TEST(test_workload_never_started),
		UNIT_TEST(test_tracepoint_count_echo),
		UNIT_TEST(test_tracepoint_count_exact),
		UNIT_TEST(test_breakpoint_count_self),
		UNIT_TEST(test_count_self),
		UNIT_TEST(test_count_no_period),
		UNIT_TEST(test_group_reads_consistently),
		UNIT_TEST(test_group_on_workload),
		UNIT_TEST(test_read_format_parse),
		UNIT_TEST(test_read_format_every_combination),
		UNIT_TEST(test_read_format_real),
		UNIT_TEST(test_read_big_group),
		UNIT_TEST(test_hw_not_supported),
		UNIT_TEST(test_hw_group_member_not_supported),
		UNIT_TEST(test_nothing_opens),
		UNIT_TEST(test_bad_targets),
		UNIT_TEST(test_ignore_missing),
		UNIT_TEST(test_api_misuse),
		UNIT_TEST(test_cpu_target),
		UNIT_TEST(test_system_wide),
		UNIT_TEST(test_user_source),
		UNIT_TEST(test_user_source_eacces),
		UNIT_TEST(test_user_source_per_cpu),
		UNIT_TEST(test_user_source_in_group),
		UNIT_TEST(test_tool_events),
		UNIT_TEST(test_user_only_fallback),
		UNIT_TEST(test_user_only_fallback_root),
	};

	if (argc > 2 && !strcmp(argv[1], "--write"))
		return write_k(argv[2]);
	self_exe = "/proc/self/exe";
	unit_cleanup = unit_run_free;
	return cmocka_run_group_tests(tests, register_ucount, NULL);
}
