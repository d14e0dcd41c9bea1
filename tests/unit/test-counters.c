/* SPDX-License-Identifier: MIT */
/*
 * The self-measurement API (include/pcl/counters.h) on real counters, with
 * events this VM counts exactly:
 *   - the tracepoint syscalls:sys_enter_getppid, which counts each
 *     syscall(SYS_getppid) (never cached by libc) of the measured threads;
 *   - page-faults, which counts each first write to a fresh anonymous page
 *     (MADV_NOHUGEPAGE: one fault per page). The code path of a measurement
 *     is run once before it is measured, so that lazy binding and stack
 *     growth fault outside the window and the count is exact.
 * Every API call: open/read/close on each scope, start/stop/reset, groups,
 * unsupported events (no hardware PMU here: cycles gives -ENODEV), the
 * ioctls, overflow functions (signal and poll), watchpoints, and this
 * process's symbols.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <linux/hw_breakpoint.h>
#include <pcl/pcl.h>
#include <pcl/counters.h>
#include "unit.h"

#define TP_ENTER "syscalls:sys_enter_getppid"
#define TP_EXIT	 "syscalls:sys_exit_getppid"
#define K	 1000
#define MAXV	 8

#define NOINLINE      __attribute__((noinline, noclone))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static bool have_tp;
static size_t pgsz;

/* ---- helpers ---- */

static pid_t tid_now(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* @k getppid() syscalls, never cached by libc. */
static void getppid_n(int k)
{
	for (int i = 0; i < k; i++)
		syscall(SYS_getppid);
}

static void need_tp(void)
{
	if (!have_tp) {
		print_message("no tracepoint " TP_ENTER " (tracefs)\n");
		skip();
	}
}

/* Counters a failed test leaves open are closed by cleanup(). */
static struct pcl_counters *live[16];

static struct pcl_counters *track(struct pcl_counters *c)
{
	for (size_t i = 0; i < ARRAY_SIZE(live); i++) {
		if (!live[i]) {
			live[i] = c;
			return c;
		}
	}
	fail_msg("more than %zu counters open in one test", ARRAY_SIZE(live));
	return c;
}

static void drop(struct pcl_counters *c)
{
	for (size_t i = 0; i < ARRAY_SIZE(live); i++)
		if (live[i] == c)
			live[i] = NULL;
	pcl_counters__free(c);
}

static void cleanup(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(live); i++) {
		pcl_counters__free(live[i]);
		live[i] = NULL;
	}
}

static struct pcl_counters *open_ok(const char *events, const struct pcl_counters_opts *o)
{
	struct pcl_counters *c = pcl_counters__new_open(events, o);

	if (!c)
		print_message("'%s' does not open: %s (%s)\n", events, strerror(errno),
			      pcl_last_error());
	assert_non_null(c);
	return track(c);
}

/* Read every counter into @v, which must all read. */
static void read_ok(struct pcl_counters *c, struct pcl_value *v)
{
	int ret;

	assert_true(pcl_counters__nr(c) <= MAXV);
	ret = pcl_counters__read(c, v);
	if (ret)
		print_message("read: %s (%s)\n", pcl_strerror(ret), pcl_last_error());
	assert_int_equal(ret, 0);
}

/* The raw count of counter @idx, which must read. */
static uint64_t raw_of(struct pcl_counters *c, int idx)
{
	struct pcl_value v[MAXV];

	read_ok(c, v);
	assert_int_equal(v[idx].status, 0);
	return v[idx].raw;
}

static void expect_raw(struct pcl_counters *c, int idx, uint64_t want, const char *what)
{
	uint64_t got = raw_of(c, idx);

	if (got != want)
		print_message("%s: %s counted %llu, expected %llu\n", what,
			      pcl_counters__name(c, idx), (unsigned long long)got,
			      (unsigned long long)want);
	assert_int_equal(got, want);
}

/* @n fresh anonymous pages, one fault each on first write. */
static char *fresh_pages(int n)
{
	char *p = mmap(NULL, (size_t)n * pgsz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	assert_true(p != MAP_FAILED);
	assert_int_equal(madvise(p, (size_t)n * pgsz, MADV_NOHUGEPAGE), 0);
	return p;
}

/*
 * One write per page: @n page faults, each at an instruction of this
 * function. Not instrumented by ASan, whose shadow reads would fault too.
 */
static NOINLINE __attribute__((no_sanitize_address)) void touch_pages(char *p, int n)
{
	for (int i = 0; i < n; i++)
		((volatile char *)p)[(size_t)i * pgsz] = 1;
}

/* Reset, start, touch @n fresh pages, stop: the page-faults count of event @idx. */
static uint64_t fault_round(struct pcl_counters *c, int idx, int n)
{
	char *p = fresh_pages(n);
	uint64_t got;

	assert_int_equal(pcl_counters__reset(c), 0);
	assert_int_equal(pcl_counters__start(c), 0);
	touch_pages(p, n);
	assert_int_equal(pcl_counters__stop(c), 0);
	got = raw_of(c, idx);
	munmap(p, (size_t)n * pgsz);
	return got;
}

/* ---- open, start, stop, reset, read ---- */

/* Counts between start and stop only; stop keeps them, reset zeroes, start resumes. */
static void check_start_stop(enum pcl_scope scope)
{
	struct pcl_counters_opts o = { .sz = sizeof(o), .scope = scope };
	struct pcl_counters *c;
	struct pcl_value v[MAXV];

	need_tp();
	c = open_ok(TP_ENTER, &o);
	assert_int_equal(pcl_counters__nr(c), 1);
	assert_true(pcl_counters__supported(c, 0));
	getppid_n(5);
	expect_raw(c, 0, 0, "before start");
	assert_int_equal(pcl_counters__start(c), 0);
	getppid_n(K);
	assert_int_equal(pcl_counters__stop(c), 0);
	getppid_n(7);
	expect_raw(c, 0, K, "start, K calls, stop, 7 calls");
	/* a second read of a stopped counter: the same */
	read_ok(c, v);
	assert_int_equal(v[0].status, 0);
	assert_int_equal(v[0].raw, K);
	assert_true(v[0].value == K);
	assert_true(v[0].ena > 0);
	assert_int_equal(v[0].run, v[0].ena);

	assert_int_equal(pcl_counters__reset(c), 0);
	expect_raw(c, 0, 0, "after reset");
	assert_int_equal(pcl_counters__start(c), 0);
	getppid_n(300);
	assert_int_equal(pcl_counters__stop(c), 0);
	expect_raw(c, 0, 300, "after reset, 300 calls");
	getppid_n(11);
	assert_int_equal(pcl_counters__start(c), 0);
	getppid_n(200);
	assert_int_equal(pcl_counters__stop(c), 0);
	expect_raw(c, 0, 500, "start again, 200 more calls");
	/* read while running */
	assert_int_equal(pcl_counters__start(c), 0);
	getppid_n(50);
	expect_raw(c, 0, 550, "running, 50 more calls");
	getppid_n(50);
	expect_raw(c, 0, 600, "running, 50 more calls");
	assert_int_equal(pcl_counters__stop(c), 0);
	drop(c);
}

static void test_thread_tracepoint(void **state)
{
	(void)state;
	check_start_stop(PCL_SCOPE_THREAD);
}

static void test_self_tracepoint(void **state)
{
	(void)state;
	check_start_stop(PCL_SCOPE_SELF);
}

static void check_page_faults(enum pcl_scope scope)
{
	struct pcl_counters_opts o = { .sz = sizeof(o), .scope = scope };
	struct pcl_counters *c = open_ok("page-faults", &o);
	char *p;

	/* warm up: the code of a round faults in its stack and bindings here */
	fault_round(c, 0, 1);
	for (int n = 1; n <= 64; n *= 4) {
		uint64_t got = fault_round(c, 0, n);

		if (got != (uint64_t)n)
			print_message("%d fresh pages: %llu page-faults\n", n,
				      (unsigned long long)got);
		assert_int_equal(got, n);
	}
	/* faults after stop are not counted */
	p = fresh_pages(8);
	touch_pages(p, 8);
	expect_raw(c, 0, 64, "8 pages touched after stop");
	munmap(p, 8 * pgsz);
	drop(c);
}

static void test_thread_page_faults(void **state)
{
	(void)state;
	check_page_faults(PCL_SCOPE_THREAD);
}

static void test_self_page_faults(void **state)
{
	(void)state;
	check_page_faults(PCL_SCOPE_SELF);
}

/* opts.started: counting from open. */
static void test_started(void **state)
{
	struct pcl_counters_opts o = { .sz = sizeof(o), .started = true };
	struct pcl_counters *c;

	(void)state;
	need_tp();
	c = open_ok(TP_ENTER, &o);
	getppid_n(K);
	expect_raw(c, 0, K, "started at open, K calls");
	assert_int_equal(pcl_counters__stop(c), 0);
	getppid_n(K);
	expect_raw(c, 0, K, "stopped, K more calls");
	drop(c);
}

/* Events this machine cannot count open as unsupported; the others count on. */
static void test_unsupported(void **state)
{
	struct pcl_counters *c;
	struct pcl_value v[MAXV];

	(void)state;
	need_tp();
	c = open_ok("cycles," TP_ENTER ",page-faults,instructions", NULL);
	if (pcl_counters__supported(c, 0)) {
		drop(c);
		print_message("this machine has a hardware PMU: cycles opens\n");
		skip();
	}
	assert_int_equal(pcl_counters__nr(c), 4);
	assert_false(pcl_counters__supported(c, 0));
	assert_true(pcl_counters__supported(c, 1));
	assert_true(pcl_counters__supported(c, 2));
	assert_false(pcl_counters__supported(c, 3));
	assert_int_equal(pcl_counters__fd(c, 0), -1);
	assert_true(pcl_counters__fd(c, 1) >= 0);
	assert_string_equal(pcl_counters__name(c, 0), "cycles");
	assert_int_equal(pcl_counters__start(c), 0);
	getppid_n(K);
	assert_int_equal(pcl_counters__stop(c), 0);
	read_ok(c, v);
	assert_int_equal(v[0].status, -ENODEV);
	assert_int_equal(v[0].raw, 0);
	assert_true(v[0].value == 0.0);
	assert_int_equal(v[3].status, -ENODEV);
	assert_int_equal(v[1].status, 0);
	assert_int_equal(v[1].raw, K);
	assert_int_equal(v[2].status, 0);
	/* the ioctls refuse it by name */
	assert_true(pcl_counters__set_period(c, 0, 100) < 0);
	assert_non_null(strstr(pcl_last_error(), "cycles"));
	drop(c);

	/* in a group: the group counts without it */
	struct pcl_counters_opts o = { .sz = sizeof(o), .group = true };

	c = open_ok(TP_ENTER ",cycles," TP_EXIT, &o);
	assert_false(pcl_counters__supported(c, 1));
	assert_int_equal(pcl_counters__start(c), 0);
	getppid_n(K);
	assert_int_equal(pcl_counters__stop(c), 0);
	read_ok(c, v);
	assert_int_equal(v[0].raw, K);
	assert_int_equal(v[1].status, -ENODEV);
	assert_int_equal(v[2].raw, K);
	drop(c);
}

/* Bad specs and misuse: NULL with errno and a message, or a negative errno. */
static void test_bad_specs(void **state)
{
	static const struct {
		const char *spec;
		int err;
		const char *msg; /* in pcl_last_error(), or NULL */
	} rows[] = {
		{ NULL, EINVAL, NULL },
		{ "", EINVAL, NULL },
		{ "page-fautls", ENOENT, "page-faults" },
		{ "no-such-event", ENOENT, "no-such-event" },
		{ "nosuchpmu/config=1/", ENOENT, "nosuchpmu" },
	};
	struct pcl_counters_opts o = { .sz = sizeof(o) };
	struct pcl_counters *c;
	struct pcl_value v[2];
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		const char *name = rows[i].spec ? rows[i].spec : "(null)";

		errno = 0;
		c = pcl_counters__new_open(rows[i].spec, NULL);
		if (c) {
			print_message("'%s' opened\n", name);
			drop(track(c));
			bad++;
			continue;
		}
		bad += differ(name, "errno", (uint64_t)errno, (uint64_t)rows[i].err);
		bad += differ(name, "message", strlen(pcl_last_error()) > 0, 1);
		if (rows[i].msg && !strstr(pcl_last_error(), rows[i].msg)) {
			print_message("'%s': message '%s' does not name '%s'\n", name,
				      pcl_last_error(), rows[i].msg);
			bad++;
		}
	}
	assert_int_equal(bad, 0);

	/* options: too small, a CPU scope without a CPU, no such scope */
	o.sz = 4;
	assert_null(pcl_counters__new_open("page-faults", &o));
	assert_int_equal(errno, EINVAL);
	o.sz = sizeof(o);
	o.scope = PCL_SCOPE_CPU;
	o.cpu = -1;
	assert_null(pcl_counters__new_open("page-faults", &o));
	assert_int_equal(errno, EINVAL);
	o.scope = (enum pcl_scope)99;
	assert_null(pcl_counters__new_open("page-faults", &o));
	assert_int_equal(errno, EINVAL);

	/* before open: nothing runs, reads say not open */
	c = track(pcl_counters__new("page-faults", NULL));
	assert_non_null(c);
	assert_int_equal(pcl_counters__nr(c), 1);
	assert_false(pcl_counters__supported(c, 0));
	assert_int_equal(pcl_counters__fd(c, 0), -1);
	assert_int_equal(pcl_counters__start(c), -EINVAL);
	assert_int_equal(pcl_counters__stop(c), -EINVAL);
	assert_int_equal(pcl_counters__reset(c), -EINVAL);
	assert_int_equal(pcl_counters__poll(c, 0), -EINVAL);
	pcl_counters__read(c, v);
	assert_int_equal(v[0].status, -ENOENT);
	assert_int_equal(pcl_counters__open(c), 0);
	assert_true(pcl_counters__supported(c, 0));
	/* open twice */
	assert_true(pcl_counters__open(c) < 0);
	drop(c);

	/* NULL and bad indices */
	pcl_counters__free(NULL);
	assert_int_equal(pcl_counters__nr(NULL), 0);
	assert_int_equal(pcl_counters__open(NULL), -EINVAL);
	assert_int_equal(pcl_counters__start(NULL), -EINVAL);
	assert_int_equal(pcl_counters__read(NULL, v), -EINVAL);
	c = open_ok("page-faults", NULL);
	assert_null(pcl_counters__name(c, 1));
	assert_null(pcl_counters__name(c, -1));
	assert_null(pcl_counters__unit(c, 1));
	assert_false(pcl_counters__supported(c, 1));
	assert_int_equal(pcl_counters__fd(c, -1), -1);
	assert_int_equal(pcl_counters__read(c, NULL), -EINVAL);
	assert_int_equal(pcl_counters__refresh(c, 1, 1), -EINVAL);
	assert_int_equal(pcl_counters__set_filter(c, 0, NULL), -EINVAL);
	drop(c);
}

static int64_t ns_between(const struct timespec *a, const struct timespec *b)
{
	return (int64_t)(b->tv_sec - a->tv_sec) * 1000000000 + (b->tv_nsec - a->tv_nsec);
}

static void test_names_units(void **state)
{
	struct pcl_counters *c;
	struct pcl_value v[MAXV];
	struct timespec t0, t1;

	(void)state;
	need_tp();
	c = open_ok("task-clock,page-faults," TP_ENTER ",duration_time", NULL);
	assert_int_equal(pcl_counters__nr(c), 4);
	assert_string_equal(pcl_counters__name(c, 0), "task-clock");
	assert_string_equal(pcl_counters__name(c, 1), "page-faults");
	assert_string_equal(pcl_counters__name(c, 2), TP_ENTER);
	assert_string_equal(pcl_counters__name(c, 3), "duration_time");
	assert_string_equal(pcl_counters__unit(c, 0), "ns");
	assert_null(pcl_counters__unit(c, 1));
	assert_null(pcl_counters__unit(c, 2));
	assert_string_equal(pcl_counters__unit(c, 3), "ns");
	for (int i = 0; i < 3; i++) {
		assert_true(pcl_counters__fd(c, i) >= 0);
		/* no hardware PMU, and software counters never offer rdpmc */
		assert_false(pcl_counters__rdpmc(c, i));
	}
	/* a user-space source has no fd */
	assert_int_equal(pcl_counters__fd(c, 3), -1);

	assert_int_equal(pcl_counters__start(c), 0);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		getppid_n(10);
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	} while (ns_between(&t0, &t1) < 20000000);
	assert_int_equal(pcl_counters__stop(c), 0);
	read_ok(c, v);
	for (int i = 0; i < 4; i++)
		assert_int_equal(v[i].status, 0);
	assert_string_equal(v[0].unit, "ns");
	assert_string_equal(v[3].unit, "ns");
	assert_null(v[1].unit);
	/*
	 * 20 ms of this thread's CPU time: as much task time (to 5%: two
	 * clocks read at slightly different moments on a loaded VM), and as
	 * much wall time (duration_time starts and stops just after it)
	 */
	if (v[0].raw < 19000000ull || v[3].raw + 1000000ull < v[0].raw)
		print_message("20 ms of CPU: task-clock %llu ns, duration_time %llu ns\n",
			      (unsigned long long)v[0].raw, (unsigned long long)v[3].raw);
	assert_true(v[0].raw >= 19000000ull);
	assert_true(v[3].raw + 1000000ull >= v[0].raw);
	assert_true(v[0].value == (double)v[0].raw);
	assert_true(v[2].raw > 0 && v[2].raw % 10 == 0);
	drop(c);
}

/* ---- groups ---- */

/* Counters @a and @b of one group: K each, read at one instant. */
static void check_pair(const struct pcl_value *v, int a, int b, uint64_t want)
{
	assert_int_equal(v[a].status, 0);
	assert_int_equal(v[b].status, 0);
	assert_int_equal(v[a].raw, want);
	assert_int_equal(v[b].raw, want);
	assert_true(v[a].ena > 0);
	assert_int_equal(v[a].ena, v[b].ena);
	assert_int_equal(v[a].run, v[b].run);
}

static void check_group_opt(enum pcl_scope scope)
{
	struct pcl_counters_opts o = { .sz = sizeof(o), .scope = scope, .group = true };
	struct pcl_counters *c;
	struct pcl_value v[MAXV];

	need_tp();
	c = open_ok(TP_ENTER "," TP_EXIT, &o);
	assert_int_equal(pcl_counters__nr(c), 2);
	assert_int_equal(pcl_counters__start(c), 0);
	getppid_n(K);
	/* while running too: a group is read at one instant */
	read_ok(c, v);
	check_pair(v, 0, 1, K);
	getppid_n(K);
	assert_int_equal(pcl_counters__stop(c), 0);
	read_ok(c, v);
	check_pair(v, 0, 1, 2 * K);
	assert_int_equal(pcl_counters__reset(c), 0);
	read_ok(c, v);
	check_pair(v, 0, 1, 0);
	drop(c);
}

static void test_group_opt(void **state)
{
	(void)state;
	check_group_opt(PCL_SCOPE_THREAD);
	check_group_opt(PCL_SCOPE_SELF);
}

static void test_group_braces(void **state)
{
	struct pcl_counters *c;
	struct pcl_value v[MAXV];

	(void)state;
	need_tp();
	c = open_ok("page-faults,{" TP_ENTER "," TP_EXIT "},{" TP_EXIT ",task-clock}", NULL);
	assert_int_equal(pcl_counters__nr(c), 5);
	assert_int_equal(pcl_counters__start(c), 0);
	getppid_n(K);
	assert_int_equal(pcl_counters__stop(c), 0);
	read_ok(c, v);
	check_pair(v, 1, 2, K);
	assert_int_equal(v[3].raw, K);
	assert_int_equal(v[3].ena, v[4].ena);
	assert_int_equal(v[3].run, v[4].run);
	assert_true(v[4].raw > 0);
	assert_int_equal(v[0].status, 0);
	drop(c);
}

/*
 * counters.h promises that the events this machine can count go on when
 * others cannot, also in a group whose leader is the one missing: the first
 * member left leads the rest, still one kernel group read at one instant.
 */
static void check_unsupported_leader(enum pcl_scope scope)
{
	struct pcl_counters_opts o = { .sz = sizeof(o), .scope = scope, .group = true };
	struct pcl_counters *c;
	struct pcl_value v[MAXV];
	char *p = fresh_pages(64);

	c = open_ok("cycles,task-clock,page-faults", &o);
	assert_false(pcl_counters__supported(c, 0));
	assert_true(pcl_counters__supported(c, 1));
	assert_true(pcl_counters__supported(c, 2));
	/* the open succeeded, and says what became of the group */
	assert_non_null(strstr(pcl_last_error(), "cycles"));
	assert_non_null(strstr(pcl_last_error(), "led by 'task-clock'"));
	assert_int_equal(pcl_counters__start(c), 0);
	touch_pages(p, 64);
	/* while running: members read in separate read(2)s would see different times */
	read_ok(c, v);
	assert_int_equal(v[0].status, -ENODEV);
	assert_int_equal(v[0].raw, 0);
	assert_int_equal(v[1].status, 0);
	assert_int_equal(v[2].status, 0);
	assert_true(v[1].raw > 0);
	assert_true(v[2].raw >= 64);
	assert_true(v[1].ena > 0);
	assert_int_equal(v[1].ena, v[2].ena);
	assert_int_equal(v[1].run, v[2].run);
	assert_int_equal(pcl_counters__stop(c), 0);
	/* stop and reset reach the new leader's group */
	assert_int_equal(pcl_counters__reset(c), 0);
	read_ok(c, v);
	assert_int_equal(v[2].raw, 0);
	drop(c);
	munmap(p, 64 * pgsz);
}

static void test_group_unsupported_leader(void **state)
{
	struct pcl_counters *c;
	struct pcl_value v[MAXV];

	(void)state;
	c = open_ok("cycles", NULL);
	if (pcl_counters__supported(c, 0)) {
		drop(c);
		print_message("this machine has a hardware PMU: cycles opens\n");
		skip();
	}
	drop(c);
	check_unsupported_leader(PCL_SCOPE_THREAD);
	check_unsupported_leader(PCL_SCOPE_SELF);
	check_unsupported_leader(PCL_SCOPE_PROCESS);

	/* two missing in a row, and a group of one left: it reads alone */
	need_tp();
	c = open_ok("{cycles,instructions," TP_ENTER "," TP_EXIT "},{cycles,task-clock}", NULL);
	assert_int_equal(pcl_counters__nr(c), 6);
	assert_int_equal(pcl_counters__start(c), 0);
	getppid_n(K);
	assert_int_equal(pcl_counters__stop(c), 0);
	read_ok(c, v);
	assert_int_equal(v[0].status, -ENODEV);
	assert_int_equal(v[1].status, -ENODEV);
	check_pair(v, 2, 3, K);
	assert_int_equal(v[4].status, -ENODEV);
	assert_int_equal(v[5].status, 0);
	assert_true(v[5].raw > 0);
	drop(c);
}

/*
 * A member the kernel refuses with EINVAL (only a leader may be pinned, :D)
 * is left out of its group. Its leader's fd was opened with
 * PERF_FORMAT_GROUP before, and reads the group in that layout still: the
 * others read, in one read(2) (the same times), their counts exact.
 */
static void test_group_member_einval(void **state)
{
	struct pcl_counters *c;
	struct pcl_value v[MAXV];
	char *p;

	(void)state;
	need_tp();
	p = fresh_pages(64);
	c = open_ok("{" TP_ENTER "," TP_EXIT ":D,page-faults}", NULL);
	assert_true(pcl_counters__supported(c, 0));
	assert_false(pcl_counters__supported(c, 1));
	assert_true(pcl_counters__supported(c, 2));
	assert_int_equal(pcl_counters__start(c), 0);
	getppid_n(K);
	touch_pages(p, 64);
	assert_int_equal(pcl_counters__stop(c), 0);
	read_ok(c, v);
	assert_int_equal(v[0].status, 0);
	assert_int_equal(v[0].raw, K);
	assert_true(v[1].status < 0);
	assert_int_equal(v[2].status, 0);
	assert_true(v[2].raw >= 64);
	assert_true(v[0].ena > 0);
	assert_int_equal(v[0].ena, v[2].ena);
	assert_int_equal(v[0].run, v[2].run);
	drop(c);
	munmap(p, 64 * pgsz);
}

static void test_group_and_braces(void **state)
{
	struct pcl_counters_opts o = { .sz = sizeof(o), .group = true };

	(void)state;
	errno = 0;
	assert_null(pcl_counters__new_open("{page-faults,task-clock}", &o));
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(pcl_last_error(), "braces"));
}

/* ---- scopes ---- */

struct worker {
	pthread_barrier_t *go, *done, *leave;
	int k;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	pthread_barrier_wait(w->go);
	getppid_n(w->k);
	pthread_barrier_wait(w->done);
	pthread_barrier_wait(w->leave);
	return NULL;
}

/*
 * Every thread of this process, started before open: the sum of theirs,
 * read as a group (one read per thread, summed) or one event at a time.
 */
static void check_process(bool group)
{
	enum { NT = 4 };
	struct pcl_counters_opts o = { .sz = sizeof(o),
				       .scope = PCL_SCOPE_PROCESS,
				       .group = group };
	pthread_barrier_t go, done, leave;
	struct worker w = { &go, &done, &leave, K };
	pthread_t th[NT];
	struct pcl_counters *c;
	struct pcl_value v[MAXV];

	pthread_barrier_init(&go, NULL, NT + 1);
	pthread_barrier_init(&done, NULL, NT + 1);
	pthread_barrier_init(&leave, NULL, NT + 1);
	for (int i = 0; i < NT; i++)
		assert_int_equal(pthread_create(&th[i], NULL, worker_main, &w), 0);
	c = open_ok(TP_ENTER "," TP_EXIT, &o);
	assert_int_equal(pcl_counters__start(c), 0);
	pthread_barrier_wait(&go);
	pthread_barrier_wait(&done);
	assert_int_equal(pcl_counters__stop(c), 0);
	read_ok(c, v);
	if (group) {
		check_pair(v, 0, 1, NT * K);
	} else {
		assert_int_equal(v[0].raw, NT * K);
		assert_int_equal(v[1].raw, NT * K);
	}
	pthread_barrier_wait(&leave);
	for (int i = 0; i < NT; i++)
		pthread_join(th[i], NULL);
	/* the threads are gone: their counts stay */
	read_ok(c, v);
	assert_int_equal(v[0].raw, NT * K);
	assert_int_equal(v[1].raw, NT * K);
	drop(c);
	pthread_barrier_destroy(&go);
	pthread_barrier_destroy(&done);
	pthread_barrier_destroy(&leave);
}

static void test_process(void **state)
{
	(void)state;
	need_tp();
	check_process(false);
	check_process(true);
}

static void *k_calls(void *arg)
{
	getppid_n(*(int *)arg);
	return NULL;
}

/* SELF follows the threads created after open, unless no_inherit. */
static void test_self_inherit_thread(void **state)
{
	struct pcl_counters_opts o = { .sz = sizeof(o), .scope = PCL_SCOPE_SELF };
	int k = K;

	(void)state;
	need_tp();
	for (int no_inherit = 0; no_inherit <= 1; no_inherit++) {
		struct pcl_counters *c;
		pthread_t th;

		o.no_inherit = no_inherit;
		c = open_ok(TP_ENTER, &o);
		assert_int_equal(pcl_counters__start(c), 0);
		assert_int_equal(pthread_create(&th, NULL, k_calls, &k), 0);
		assert_int_equal(pthread_join(th, NULL), 0);
		getppid_n(7);
		assert_int_equal(pcl_counters__stop(c), 0);
		expect_raw(c, 0, no_inherit ? 7 : K + 7,
			   no_inherit ? "no_inherit, thread K, self 7" : "thread K, self 7");
		drop(c);
	}
}

/* SELF follows a child process forked after open, unless no_inherit. */
static void test_self_inherit_fork(void **state)
{
	struct pcl_counters_opts o = { .sz = sizeof(o), .scope = PCL_SCOPE_SELF };

	(void)state;
	need_tp();
	for (int no_inherit = 0; no_inherit <= 1; no_inherit++) {
		struct pcl_counters *c;
		int status;
		pid_t pid;

		o.no_inherit = no_inherit;
		c = open_ok(TP_ENTER, &o);
		assert_int_equal(pcl_counters__start(c), 0);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			getppid_n(K);
			_exit(0);
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		assert_int_equal(pcl_counters__stop(c), 0);
		expect_raw(c, 0, no_inherit ? 0 : K,
			   no_inherit ? "no_inherit, child K" : "child K");
		drop(c);
	}
}

/* THREAD with a tid: another thread of this process, and only it. */
struct waiting {
	pthread_barrier_t ready, go, done;
	pid_t tid;
};

static void *waiting_main(void *arg)
{
	struct waiting *w = arg;

	w->tid = tid_now();
	pthread_barrier_wait(&w->ready);
	pthread_barrier_wait(&w->go);
	getppid_n(K);
	pthread_barrier_wait(&w->done);
	return NULL;
}

static void test_thread_other(void **state)
{
	struct pcl_counters_opts o = { .sz = sizeof(o), .scope = PCL_SCOPE_THREAD };
	struct waiting w;
	struct pcl_counters *c;
	pthread_t th;

	(void)state;
	need_tp();
	pthread_barrier_init(&w.ready, NULL, 2);
	pthread_barrier_init(&w.go, NULL, 2);
	pthread_barrier_init(&w.done, NULL, 2);
	assert_int_equal(pthread_create(&th, NULL, waiting_main, &w), 0);
	pthread_barrier_wait(&w.ready);
	o.pid = w.tid;
	c = open_ok(TP_ENTER, &o);
	assert_int_equal(pcl_counters__start(c), 0);
	getppid_n(5); /* this thread: not counted */
	pthread_barrier_wait(&w.go);
	pthread_barrier_wait(&w.done);
	assert_int_equal(pcl_counters__stop(c), 0);
	expect_raw(c, 0, K, "the other thread's K calls");
	drop(c);
	pthread_join(th, NULL);
	pthread_barrier_destroy(&w.ready);
	pthread_barrier_destroy(&w.go);
	pthread_barrier_destroy(&w.done);
}

static void test_cpu(void **state)
{
	struct pcl_counters_opts o = {
		.sz = sizeof(o), .scope = PCL_SCOPE_CPU, .cpu = 0, .started = true
	};
	struct pcl_counters *c;
	struct pcl_value v[MAXV];

	(void)state;
	if (geteuid() != 0) {
		print_message("a CPU scope needs privilege\n");
		skip();
	}
	c = open_ok("cpu-clock", &o);
	assert_true(pcl_counters__supported(c, 0));
	usleep(20000);
	assert_int_equal(pcl_counters__stop(c), 0);
	read_ok(c, v);
	assert_int_equal(v[0].status, 0);
	/* cpu-clock counts the CPU's time, idle or not: about the 20 ms slept */
	assert_true(v[0].raw >= 10000000ull);
	assert_true(v[0].ena >= 10000000ull);
	assert_string_equal(v[0].unit, "ns");
	drop(c);
}

/* ---- enable and disable ---- */

/* prctl(PR_TASK_PERF_EVENTS_DISABLE/ENABLE) stops and restarts the counters this thread opened. */
static void test_prctl(void **state)
{
	struct pcl_counters *c;

	(void)state;
	need_tp();
	c = open_ok(TP_ENTER, NULL);
	assert_int_equal(pcl_counters__start(c), 0);
	getppid_n(100);
	assert_int_equal(pcl_task_events_disable(), 0);
	getppid_n(K);
	assert_int_equal(pcl_task_events_enable(), 0);
	getppid_n(20);
	assert_int_equal(pcl_counters__stop(c), 0);
	expect_raw(c, 0, 120, "100 calls, K disabled by prctl, 20 calls");
	drop(c);
}

/* ---- ioctls ---- */

static void test_set_filter(void **state)
{
	const int k1 = 300, k2 = 200;
	static const char buf[8] = "abcdefg";
	struct pcl_counters *c;
	struct pcl_value v[MAXV];
	int fd;

	(void)state;
	need_tp();
	c = open_ok("syscalls:sys_enter_write,syscalls:sys_enter_write", NULL);
	assert_int_equal(pcl_counters__set_filter(c, 0, "count == 3"), 0);
	/* a filter the kernel does not understand */
	assert_true(pcl_counters__set_filter(c, 1, "count === ") < 0);
	assert_true(strlen(pcl_last_error()) > 0);
	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(pcl_counters__start(c), 0);
	for (int i = 0; i < k1; i++)
		assert_int_equal(write(fd, buf, 3), 3);
	for (int i = 0; i < k2; i++)
		assert_int_equal(write(fd, buf, 5), 5);
	assert_int_equal(pcl_counters__stop(c), 0);
	close(fd);
	read_ok(c, v);
	/* the filtered one sees the 3-byte writes only; the other all of them */
	assert_int_equal(v[0].raw, k1);
	assert_int_equal(v[1].raw, k1 + k2);
	drop(c);

	/* not a tracepoint */
	c = open_ok("page-faults", NULL);
	assert_true(pcl_counters__set_filter(c, 0, "count == 3") < 0);
	drop(c);
}

/* What overflow functions saw: filled in signal context, so plain stores only. */
#define MAX_SAMPLES 256
struct ov_log {
	volatile int n;
	struct pcl_counters *c;
	int idx[MAX_SAMPLES];
	pid_t handler_tid[MAX_SAMPLES]; /* the thread the function ran on */
	pid_t pid[MAX_SAMPLES], tid[MAX_SAMPLES];
	uint64_t ip[MAX_SAMPLES], addr[MAX_SAMPLES], nr_callchain[MAX_SAMPLES];
};

static void ov_fn(struct pcl_counters *c, int idx, const struct pcl_sample *s, void *arg)
{
	struct ov_log *l = arg;
	int n = l->n;

	if (n < MAX_SAMPLES) {
		l->c = c;
		l->idx[n] = idx;
		l->handler_tid[n] = tid_now();
		l->pid[n] = (pid_t)s->pid;
		l->tid[n] = (pid_t)s->tid;
		l->ip[n] = s->ip;
		l->addr[n] = s->addr;
		l->nr_callchain[n] = s->nr_callchain;
	}
	l->n = n + 1;
}

/* @events, opened with an overflow function on event @idx every @period events. */
static struct pcl_counters *open_overflow(const char *events, int idx,
					  const struct pcl_counters_opts *o, uint64_t period,
					  enum pcl_notify notify, int signo, struct ov_log *log)
{
	struct pcl_overflow ov = {
		.sz = sizeof(ov),
		.period = period,
		.notify = notify,
		.signo = signo,
		.fn = ov_fn,
		.arg = log,
	};
	struct pcl_counters *c = pcl_counters__new(events, o);
	int ret;

	assert_non_null(c);
	track(c);
	memset(log, 0, sizeof(*log));
	ret = pcl_counters__set_overflow(c, idx, &ov);
	if (!ret)
		ret = pcl_counters__open(c);
	if (ret)
		print_message("overflow on '%s': %s (%s)\n", events, pcl_strerror(ret),
			      pcl_last_error());
	assert_int_equal(ret, 0);
	return c;
}

/* Wait up to a second for *@n to reach @want (signals are asynchronous). */
static void wait_count(volatile int *n, int want)
{
	for (int i = 0; i < 1000 && *n < want; i++)
		usleep(1000);
}

/* Touch @n fresh pages between start and stop. */
static void fault_window(struct pcl_counters *c, char *p, int n)
{
	assert_int_equal(pcl_counters__start(c), 0);
	touch_pages(p, n);
	assert_int_equal(pcl_counters__stop(c), 0);
}

static void test_pause_output(void **state)
{
	const int n = 16;
	struct ov_log log;
	struct pcl_counters *c, *plain;
	char *p;

	(void)state;
	c = open_overflow("page-faults", 0, NULL, 1, PCL_NOTIFY_POLL, 0, &log);
	p = fresh_pages(1);
	fault_window(c, p, 1); /* warm-up */
	munmap(p, pgsz);
	assert_int_equal(pcl_counters__poll(c, 0), 1);
	assert_int_equal(pcl_counters__reset(c), 0);
	log.n = 0;

	assert_int_equal(pcl_counters__pause_output(c, 0, true), 0);
	p = fresh_pages(n);
	fault_window(c, p, n);
	munmap(p, (size_t)n * pgsz);
	assert_int_equal(pcl_counters__poll(c, 0), 0);
	assert_int_equal(log.n, 0);
	/* the count goes on */
	expect_raw(c, 0, n, "n faults while paused");

	assert_int_equal(pcl_counters__pause_output(c, 0, false), 0);
	p = fresh_pages(n);
	fault_window(c, p, n);
	munmap(p, (size_t)n * pgsz);
	assert_int_equal(pcl_counters__poll(c, 0), n);
	assert_int_equal(log.n, n);
	expect_raw(c, 0, 2 * n, "n faults paused, n resumed");
	/* the samples not written while paused are lost ones */
	assert_int_equal(pcl_counters__lost(c, 0), n);
	drop(c);

	/* a counter without a ring: refused */
	plain = open_ok("page-faults", NULL);
	assert_true(pcl_counters__pause_output(plain, 0, true) < 0);
	drop(plain);
}

static void test_set_period(void **state)
{
	const int n = 12, m = 5;
	struct ov_log log;
	struct pcl_counters *c;
	char *p;

	(void)state;
	c = open_overflow("page-faults", 0, NULL, 1, PCL_NOTIFY_POLL, 0, &log);
	p = fresh_pages(1);
	fault_window(c, p, 1); /* warm-up */
	munmap(p, pgsz);
	assert_int_equal(pcl_counters__poll(c, 0), 1);

	p = fresh_pages(n);
	fault_window(c, p, n);
	munmap(p, (size_t)n * pgsz);
	assert_int_equal(pcl_counters__poll(c, 0), n);

	/* every 4th fault from now on */
	assert_int_equal(pcl_counters__set_period(c, 0, 4), 0);
	p = fresh_pages(4 * m);
	fault_window(c, p, 4 * m);
	munmap(p, (size_t)4 * m * pgsz);
	assert_int_equal(pcl_counters__poll(c, 0), m);
	assert_int_equal(log.n, 1 + n + m);
	assert_int_equal(pcl_counters__set_period(c, 0, 0), -EINVAL);
	drop(c);
}

/* refresh(n): n more overflows, then the counter disables itself. */
static void test_refresh(void **state)
{
	const uint64_t period = 2;
	struct ov_log log;
	struct pcl_counters *c, *plain;
	uint64_t after;
	char *p;

	(void)state;
	c = open_overflow("page-faults", 0, NULL, period, PCL_NOTIFY_POLL, 0, &log);
	p = fresh_pages(40);
	/* refresh enables: 3 overflows in 10 periods' faults, then off */
	assert_int_equal(pcl_counters__refresh(c, 0, 3), 0);
	touch_pages(p, 20);
	assert_int_equal(pcl_counters__poll(c, 0), 3);
	/* it disabled itself at the third overflow: the 6th fault */
	after = raw_of(c, 0);
	if (after != 3 * period)
		print_message("refresh(3), period 2: disabled after %llu faults\n",
			      (unsigned long long)after);
	assert_int_equal(after, 3 * period);
	/* off: more faults neither count nor call */
	touch_pages(p + 20 * pgsz, 10);
	assert_int_equal(pcl_counters__poll(c, 0), 0);
	assert_int_equal(raw_of(c, 0), after);
	/* and once more */
	assert_int_equal(pcl_counters__refresh(c, 0, 2), 0);
	touch_pages(p + 30 * pgsz, 10);
	assert_int_equal(pcl_counters__poll(c, 0), 2);
	assert_int_equal(log.n, 5);
	assert_int_equal(pcl_counters__refresh(c, 0, 0), -EINVAL);
	munmap(p, 40 * pgsz);
	drop(c);

	/* a counter without an overflow function cannot be refreshed */
	plain = open_ok("page-faults", NULL);
	assert_true(pcl_counters__refresh(plain, 0, 1) < 0);
	drop(plain);
}

/* ---- overflow ---- */

/* What an overflow round checks. */
enum round_check {
	WARM_UP, /* nothing: it only runs the code once */
	CALLS,	 /* exactly m samples, each from this thread */
	EXACT,	 /* and the page-faults count and the faults sampled exact */
};

/*
 * Fresh counters "task-clock,page-faults" with an overflow function every
 * @period page faults, and @m * @period faults between start and stop: @m
 * samples in @log. A warm-up round runs the same code first, so that the
 * signal handler's stack and the sample decoder fault in outside the
 * measured round.
 */
static void overflow_round(const struct pcl_counters_opts *o, enum pcl_notify notify, int signo,
			   uint64_t period, int m, struct ov_log *log, char **pages,
			   enum round_check check)
{
	struct pcl_counters *c;
	int n = (int)period * m, got = 0;

	c = open_overflow("task-clock,page-faults", 1, o, period, notify, signo, log);
	*pages = fresh_pages(n);
	fault_window(c, *pages, n);
	if (notify == PCL_NOTIFY_SIGNAL) {
		wait_count(&log->n, m);
	} else {
		/* nothing comes before poll */
		assert_int_equal(log->n, 0);
		got = pcl_counters__poll(c, 0);
	}
	if (check >= CALLS) {
		if (log->n != m)
			print_message("%d faults, period %llu: %d samples\n", n,
				      (unsigned long long)period, log->n);
		assert_int_equal(log->n, m);
		if (notify == PCL_NOTIFY_POLL)
			assert_int_equal(got, m);
		/* all taken: nothing left for poll */
		assert_int_equal(pcl_counters__poll(c, 0), 0);
		assert_int_equal(pcl_counters__lost(c, 1), 0);
		assert_ptr_equal(log->c, c);
	}
	if (check == EXACT)
		expect_raw(c, 1, (uint64_t)n, "page-faults with an overflow function");
	drop(c);
	munmap(*pages, (size_t)n * pgsz);
}

/* The @m samples of @log: from this thread, in touch_pages; with @exact, at the right pages. */
static void check_samples(const struct ov_log *log, int m, uint64_t period, const char *pages,
			  bool exact)
{
	pid_t me = tid_now();
	int bad = 0;

	for (int i = 0; i < m && i < MAX_SAMPLES; i++) {
		char fn[128] = "";
		char row[32];

		snprintf(row, sizeof(row), "sample %d", i);
		bad += differ(row, "idx", (uint64_t)log->idx[i], 1);
		bad += differ(row, "pid", (uint64_t)log->pid[i], (uint64_t)getpid());
		bad += differ(row, "tid", (uint64_t)log->tid[i], (uint64_t)me);
		bad += differ(row, "handler tid", (uint64_t)log->handler_tid[i], (uint64_t)me);
		/* the period-th, 2 * period-th ... fault: its page */
		if (exact)
			bad += differ(row, "addr", log->addr[i],
				      (uint64_t)(uintptr_t)(pages +
							    ((size_t)(i + 1) * period - 1) * pgsz));
		bad += differ(row, "callchain", log->nr_callchain[i] > 0, 1);
		if (pcl_self_symbolize(log->ip[i], fn, sizeof(fn), NULL))
			print_message("%s: ip %#llx: %s\n", row, (unsigned long long)log->ip[i],
				      pcl_last_error());
		bad += differ_str(row, "function", fn, "touch_pages");
	}
	assert_int_equal(bad, 0);
}

/* Signal mode: M callbacks in the overflowing thread, while it runs (no poll). */
static void test_overflow_signal(void **state)
{
	const int m = 6;
	const uint64_t period = 4;
	struct pcl_counters_opts o = { .sz = sizeof(o), .scope = PCL_SCOPE_SELF };
	static struct ov_log log;
	char *pages;

	(void)state;
	overflow_round(&o, PCL_NOTIFY_SIGNAL, 0, period, 1, &log, &pages, WARM_UP);
	overflow_round(&o, PCL_NOTIFY_SIGNAL, 0, period, m, &log, &pages, CALLS);
	check_samples(&log, m, period, pages, false);
}

/*
 * Signal mode does not disturb what it measures: the page-faults count is
 * the pages touched, and the samples are at every period-th of them.
 */
static void test_overflow_signal_exact(void **state)
{
	const int m = 6;
	const uint64_t period = 4;
	struct pcl_counters_opts o = { .sz = sizeof(o), .scope = PCL_SCOPE_THREAD };
	static struct ov_log log;
	char *pages;

	(void)state;
	overflow_round(&o, PCL_NOTIFY_SIGNAL, 0, period, 1, &log, &pages, WARM_UP);
	overflow_round(&o, PCL_NOTIFY_SIGNAL, 0, period, m, &log, &pages, EXACT);
	check_samples(&log, m, period, pages, true);
}

/*
 * Signal mode with a one-page ring and a sample per fault: records wrap
 * around the ring's end again and again, and each is still delivered once,
 * with no fault of the library's own counted or sampled.
 */
static void test_overflow_signal_wrap(void **state)
{
	const int n = 300;
	struct pcl_counters_opts o = { .sz = sizeof(o), .scope = PCL_SCOPE_THREAD };
	struct pcl_overflow ov = { .sz = sizeof(ov), .period = 1, .ring_pages = 1, .fn = ov_fn };
	static struct ov_log log;
	struct pcl_counters *c;
	char *p;

	(void)state;
	ov.arg = &log;
	for (int round = 0; round < 2; round++) {
		memset(&log, 0, sizeof(log));
		c = track(pcl_counters__new("page-faults", &o));
		assert_int_equal(pcl_counters__set_overflow(c, 0, &ov), 0);
		assert_int_equal(pcl_counters__open(c), 0);
		p = fresh_pages(n);
		fault_window(c, p, n);
		wait_count(&log.n, n);
		if (round == 1) {
			if (log.n != n)
				print_message("%d faults, period 1: %d samples\n", n, log.n);
			assert_int_equal(log.n, n);
			assert_int_equal(pcl_counters__lost(c, 0), 0);
			expect_raw(c, 0, (uint64_t)n, "page-faults, a sample each, one-page ring");
			for (int i = 0; i < n && i < MAX_SAMPLES; i++)
				assert_int_equal(log.addr[i],
						 (uint64_t)(uintptr_t)(p + (size_t)i * pgsz));
		}
		drop(c);
		munmap(p, (size_t)n * pgsz);
	}
}

/* Poll mode: nothing until pcl_counters__poll, which delivers M. */
static void test_overflow_poll(void **state)
{
	const int m = 5;
	const uint64_t period = 3;
	struct pcl_counters_opts o = { .sz = sizeof(o), .scope = PCL_SCOPE_THREAD };
	static struct ov_log log;
	char *pages;

	(void)state;
	overflow_round(&o, PCL_NOTIFY_POLL, 0, period, 1, &log, &pages, WARM_UP);
	overflow_round(&o, PCL_NOTIFY_POLL, 0, period, m, &log, &pages, EXACT);
	check_samples(&log, m, period, pages, true);
}

static void test_overflow_signo(void **state)
{
	const int m = 4;
	const uint64_t period = 2;
	int sig = SIGRTMIN + 1;
	struct pcl_counters_opts o = { .sz = sizeof(o) };
	static struct ov_log log;
	struct sigaction sa;
	char *pages;

	(void)state;
	overflow_round(&o, PCL_NOTIFY_SIGNAL, sig, period, 1, &log, &pages, WARM_UP);
	overflow_round(&o, PCL_NOTIFY_SIGNAL, sig, period, m, &log, &pages, CALLS);
	check_samples(&log, m, period, pages, false);
	/* the library's handler took that signal */
	assert_int_equal(sigaction(sig, NULL, &sa), 0);
	assert_true(sa.sa_flags & SA_SIGINFO);
	assert_non_null(sa.sa_sigaction);
}

static void test_overflow_errors(void **state)
{
	struct pcl_overflow ov = { .sz = sizeof(ov), .period = 10, .fn = ov_fn };
	struct ov_log log;
	struct pcl_counters *c;

	(void)state;
	ov.arg = &log;
	c = track(pcl_counters__new("page-faults,duration_time", NULL));
	assert_non_null(c);
	ov.period = 0;
	assert_int_equal(pcl_counters__set_overflow(c, 0, &ov), -EINVAL);
	ov.period = 10;
	/* a user-space source cannot overflow */
	assert_int_equal(pcl_counters__set_overflow(c, 1, &ov), -EINVAL);
	assert_non_null(strstr(pcl_last_error(), "duration_time"));
	assert_int_equal(pcl_counters__set_overflow(c, 2, &ov), -EINVAL);
	assert_int_equal(pcl_counters__set_overflow(c, -1, &ov), -EINVAL);
	assert_int_equal(pcl_counters__set_overflow(c, 0, NULL), -EINVAL);
	ov.fn = NULL;
	assert_int_equal(pcl_counters__set_overflow(c, 0, &ov), -EINVAL);
	ov.fn = ov_fn;
	ov.ring_pages = 3;
	assert_int_equal(pcl_counters__set_overflow(c, 0, &ov), -EINVAL);
	ov.ring_pages = 0;
	ov.signo = SIGKILL;
	assert_int_equal(pcl_counters__set_overflow(c, 0, &ov), -EINVAL);
	ov.signo = 0;
	assert_int_equal(pcl_counters__set_overflow(c, 0, &ov), 0);
	assert_int_equal(pcl_counters__open(c), 0);
	/* after open: refused */
	assert_true(pcl_counters__set_overflow(c, 0, &ov) < 0);
	drop(c);
}

/* The header promises -EINVAL for set_overflow after open. */
static void test_overflow_after_open_einval(void **state)
{
	struct pcl_overflow ov = { .sz = sizeof(ov), .period = 10, .fn = ov_fn };
	struct ov_log log;
	struct pcl_counters *c;

	(void)state;
	ov.arg = &log;
	c = open_ok("page-faults", NULL);
	assert_int_equal(pcl_counters__set_overflow(c, 0, &ov), -EINVAL);
	drop(c);
}

/* ---- watchpoints ---- */

volatile long watched_var;
static volatile long static_watched;
static volatile long other_var;

struct hit_log {
	volatile int n;
	uint64_t addr[MAX_SAMPLES], ip[MAX_SAMPLES], nr_callchain[MAX_SAMPLES];
	pid_t pid[MAX_SAMPLES], tid[MAX_SAMPLES];
};

static void hit_fn(const struct pcl_watch_hit *h, void *arg)
{
	struct hit_log *l = arg;
	int n = l->n;

	if (n < MAX_SAMPLES) {
		l->addr[n] = h->addr;
		l->ip[n] = h->ip;
		l->nr_callchain[n] = h->nr_callchain;
		l->pid[n] = (pid_t)h->pid;
		l->tid[n] = (pid_t)h->tid;
	}
	l->n = n + 1;
}

static NOINLINE void write_var(volatile long *v, int k)
{
	for (int i = 0; i < k; i++)
		*v = i;
}

static NOINLINE void write_var_elsewhere(volatile long *v, int k)
{
	for (int i = 0; i < k; i++)
		*v = -i;
}

static NOINLINE long read_var(volatile long *v, int k)
{
	long sum = 0;

	for (int i = 0; i < k; i++)
		sum += *v;
	return sum;
}

/* Hits @from..@to of @l: at @addr, by this thread, in function @fn. */
static int check_hits(const struct hit_log *l, int from, int to, const volatile void *addr,
		      const char *fn)
{
	int bad = 0;

	for (int i = from; i < to && i < MAX_SAMPLES; i++) {
		char name[128] = "", row[32];

		snprintf(row, sizeof(row), "hit %d", i);
		bad += differ(row, "addr", l->addr[i], (uint64_t)(uintptr_t)addr);
		bad += differ(row, "pid", (uint64_t)l->pid[i], (uint64_t)getpid());
		bad += differ(row, "tid", (uint64_t)l->tid[i], (uint64_t)tid_now());
		bad += differ(row, "callchain", l->nr_callchain[i] > 0, 1);
		pcl_self_symbolize(l->ip[i], name, sizeof(name), NULL);
		bad += differ_str(row, "function", name, fn);
	}
	return bad;
}

static struct pcl_counters *watch_ok(struct pcl_counters *c)
{
	if (!c)
		print_message("watch: %s (%s)\n", strerror(errno), pcl_last_error());
	assert_non_null(c);
	return track(c);
}

static void test_watch_symbol(void **state)
{
	static struct hit_log log;
	struct pcl_watch_opts o = { .sz = sizeof(o), .fn = hit_fn, .arg = &log };
	struct pcl_counters *c;

	(void)state;
	memset((void *)&log, 0, sizeof(log));
	c = watch_ok(pcl_watch_symbol("watched_var", &o));
	write_var(&watched_var, K);
	wait_count(&log.n, K);
	assert_int_equal(log.n, K);
	assert_int_equal(
		check_hits(&log, 0, K < MAX_SAMPLES ? K : MAX_SAMPLES, &watched_var, "write_var"),
		0);
	expect_raw(c, 0, K, "watchpoint hits");

	/* another writer is named as such */
	log.n = 0;
	write_var_elsewhere(&watched_var, 10);
	wait_count(&log.n, 10);
	assert_int_equal(log.n, 10);
	assert_int_equal(check_hits(&log, 0, 10, &watched_var, "write_var_elsewhere"), 0);

	/* a W watchpoint does not see reads */
	log.n = 0;
	assert_int_equal(read_var(&watched_var, K), -9L * K);
	usleep(2000);
	assert_int_equal(log.n, 0);
	expect_raw(c, 0, K + 10, "watchpoint hits after reads");
	drop(c);

	/* a static variable, found in .symtab */
	memset((void *)&log, 0, sizeof(log));
	c = watch_ok(pcl_watch_symbol("static_watched", &o));
	write_var(&static_watched, 20);
	wait_count(&log.n, 20);
	assert_int_equal(log.n, 20);
	assert_int_equal(check_hits(&log, 0, 20, &static_watched, "write_var"), 0);
	drop(c);

	/* no such symbol */
	errno = 0;
	assert_null(pcl_watch_symbol("no_such_variable_here", &o));
	assert_int_equal(errno, ENOENT);
}

static void test_watch_heap(void **state)
{
	static struct hit_log log;
	struct pcl_watch_opts o = { .sz = sizeof(o), .fn = hit_fn, .arg = &log };
	volatile long *h = malloc(4 * sizeof(long));
	struct pcl_counters *c;

	(void)state;
	assert_non_null(h);
	memset((void *)&log, 0, sizeof(log));
	c = watch_ok(pcl_watch((const void *)&h[1], &o));
	write_var(&h[0], 50); /* the neighbours are not watched */
	write_var(&h[2], 50);
	write_var(&h[1], 100);
	wait_count(&log.n, 100);
	assert_int_equal(log.n, 100);
	assert_int_equal(check_hits(&log, 0, 100, (const void *)&h[1], "write_var"), 0);
	expect_raw(c, 0, 100, "heap watchpoint hits");
	drop(c);

	/* poll mode: hits wait for pcl_counters__poll */
	memset((void *)&log, 0, sizeof(log));
	o.notify = PCL_NOTIFY_POLL;
	c = watch_ok(pcl_watch((const void *)&h[1], &o));
	write_var(&h[1], 30);
	assert_int_equal(log.n, 0);
	assert_int_equal(pcl_counters__poll(c, 0), 30);
	assert_int_equal(log.n, 30);
	assert_int_equal(check_hits(&log, 0, 30, (const void *)&h[1], "write_var"), 0);
	drop(c);

	/* bad arguments */
	assert_null(pcl_watch(NULL, &o));
	assert_int_equal(errno, EINVAL);
	o.len = 3;
	assert_null(pcl_watch((const void *)&h[1], &o));
	assert_int_equal(errno, EINVAL);
	o.len = 0;
	o.fn = NULL;
	assert_null(pcl_watch((const void *)&h[1], &o));
	assert_int_equal(errno, EINVAL);
	free((void *)h);
}

static void test_move_breakpoint(void **state)
{
	static struct hit_log log;
	struct pcl_watch_opts o = { .sz = sizeof(o), .fn = hit_fn, .arg = &log };
	struct pcl_counters *c;

	(void)state;
	memset((void *)&log, 0, sizeof(log));
	c = watch_ok(pcl_watch((const void *)&watched_var, &o));
	write_var(&watched_var, 10);
	wait_count(&log.n, 10);
	assert_int_equal(log.n, 10);
	assert_int_equal(pcl_counters__move_breakpoint(c, 0, (uint64_t)(uintptr_t)&other_var, 8,
						       HW_BREAKPOINT_W),
			 0);
	write_var(&watched_var, 10);
	usleep(2000);
	assert_int_equal(log.n, 10);
	write_var(&other_var, 7);
	wait_count(&log.n, 17);
	assert_int_equal(log.n, 17);
	/* the hits name the new address (PERF_SAMPLE_ADDR) */
	assert_int_equal(check_hits(&log, 10, 17, (const void *)&other_var, "write_var"), 0);
	expect_raw(c, 0, 17, "hits before and after the move");
	drop(c);

	/* not a breakpoint */
	c = open_ok("page-faults", NULL);
	assert_int_equal(pcl_counters__move_breakpoint(c, 0, (uint64_t)(uintptr_t)&other_var, 8,
						       HW_BREAKPOINT_W),
			 -EINVAL);
	drop(c);
}

/* ---- this process's symbols ---- */

static void test_self_symbol(void **state)
{
	uint64_t addr = 0, size = 0, off = 1;
	char name[128];

	(void)state;
	assert_int_equal(pcl_self_symbol("write_var", &addr, &size), 0);
	assert_int_equal(addr, (uint64_t)(uintptr_t)write_var);
	assert_true(size > 0);
	assert_int_equal(pcl_self_symbol("watched_var", &addr, &size), 0);
	assert_int_equal(addr, (uint64_t)(uintptr_t)&watched_var);
	assert_int_equal(size, sizeof(long));
	assert_int_equal(pcl_self_symbol("static_watched", &addr, &size), 0);
	assert_int_equal(addr, (uint64_t)(uintptr_t)&static_watched);
	/* in libc, through its .dynsym */
	assert_int_equal(pcl_self_symbol("getppid", &addr, NULL), 0);
	assert_int_equal(addr, (uint64_t)(uintptr_t)getppid);
	assert_int_equal(pcl_self_symbol("no_such_symbol_anywhere", &addr, &size), -ENOENT);

	assert_int_equal(
		pcl_self_symbolize((uint64_t)(uintptr_t)write_var + 1, name, sizeof(name), &off),
		0);
	assert_string_equal(name, "write_var");
	assert_int_equal(off, 1);
	assert_int_equal(
		pcl_self_symbolize((uint64_t)(uintptr_t)touch_pages, name, sizeof(name), &off), 0);
	assert_string_equal(name, "touch_pages");
	assert_int_equal(off, 0);
	assert_int_equal(pcl_self_symbolize((uint64_t)(uintptr_t)getppid, name, sizeof(name), NULL),
			 0);
	/* glibc defines getppid as an alias of __getppid: either name is right */
	if (strcmp(name, "getppid") && strcmp(name, "__getppid"))
		fail_msg("getppid symbolizes as '%s'", name);
	assert_int_equal(pcl_self_symbolize(0, name, sizeof(name), NULL), -ENOENT);
}

/* In a copy of this binary that removed itself: find a variable, name a function. */
static int deleted_exe_child(const char *path)
{
	uint64_t addr = 0;
	char name[128] = "";

	if (unlink(path))
		return 3;
	if (pcl_self_symbol("watched_var", &addr, NULL) ||
	    addr != (uint64_t)(uintptr_t)&watched_var)
		return 1;
	if (pcl_self_symbolize((uint64_t)(uintptr_t)write_var, name, sizeof(name), NULL) ||
	    strcmp(name, "write_var"))
		return 2;
	return 0;
}

/*
 * A program whose executable was rebuilt or removed while it runs
 * (/proc/self/maps says "PATH (deleted)") still knows its own symbols.
 */
static void test_self_symbol_deleted_exe(void **state)
{
	char tmp[] = "/tmp/pcl-test-counters.XXXXXX";
	char buf[65536];
	int in, out, status;
	ssize_t n;
	pid_t pid;

	(void)state;
	in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	assert_true(in >= 0);
	out = mkstemp(tmp);
	assert_true(out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	close(in);
	assert_int_equal(fchmod(out, 0700), 0);
	close(out);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execl(tmp, tmp, "deleted-exe-child", (char *)NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	unlink(tmp);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		print_message("a copy of this binary that removed itself: exit %d "
			      "(1: pcl_self_symbol, 2: pcl_self_symbolize failed)\n",
			      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		UNIT_TEST(test_thread_tracepoint),
		UNIT_TEST(test_self_tracepoint),
		UNIT_TEST(test_thread_page_faults),
		UNIT_TEST(test_self_page_faults),
		UNIT_TEST(test_started),
		UNIT_TEST(test_unsupported),
		UNIT_TEST(test_bad_specs),
		UNIT_TEST(test_names_units),
		UNIT_TEST(test_group_opt),
		UNIT_TEST(test_group_braces),
		UNIT_TEST(test_group_and_braces),
		UNIT_TEST(test_group_unsupported_leader),
		UNIT_TEST(test_group_member_einval),
		UNIT_TEST(test_process),
		UNIT_TEST(test_self_inherit_thread),
		UNIT_TEST(test_self_inherit_fork),
		UNIT_TEST(test_thread_other),
		UNIT_TEST(test_cpu),
		UNIT_TEST(test_prctl),
		UNIT_TEST(test_set_filter),
		UNIT_TEST(test_pause_output),
		UNIT_TEST(test_set_period),
		UNIT_TEST(test_refresh),
		UNIT_TEST(test_overflow_signal),
		UNIT_TEST(test_overflow_signal_exact),
		UNIT_TEST(test_overflow_signal_wrap),
		UNIT_TEST(test_overflow_poll),
		UNIT_TEST(test_overflow_signo),
		UNIT_TEST(test_overflow_errors),
		UNIT_TEST(test_overflow_after_open_einval),
		UNIT_TEST(test_watch_symbol),
		UNIT_TEST(test_watch_heap),
		UNIT_TEST(test_move_breakpoint),
		UNIT_TEST(test_self_symbol),
		UNIT_TEST(test_self_symbol_deleted_exe),
	};
	const char *tfs;
	char path[512];

	if (argc > 1 && !strcmp(argv[1], "deleted-exe-child"))
		return deleted_exe_child(argv[0]);
	pgsz = (size_t)sysconf(_SC_PAGESIZE);
	tfs = pcl_tracefs(true);
	snprintf(path, sizeof(path), "%s/events/syscalls/sys_enter_getppid", tfs ? tfs : "");
	have_tp = tfs && access(path, F_OK) == 0;
	unit_cleanup = cleanup;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
