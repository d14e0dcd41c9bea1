/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the user-space sources proc/, psi/ and power/
 * (lib/pmu/procfs.c, psi.c, power.c, sources.c), on the real procfs and on
 * a fake powercap tree.
 *
 * Workloads are this binary re-executed in a mode:
 *   --writer K B FILE   exactly K write(2) calls of B bytes each to FILE
 *   --sleeper N         N sleeps of 1 ms (N voluntary context switches)
 *   --toucher MB        touches MB MiB of fresh memory
 *   --spinner T MS      T threads spinning MS ms (CPU pressure)
 * so proc/syscw/ and proc/wchar/ must count K and K*B exactly, and they
 * must still be exact after libpcl reaped the workload.
 *
 * power/ is tested in a child re-executed in its own mount namespace with a
 * tmpfs over /sys/class holding fake RAPL zones (--fake-powercap), once more
 * with a fake kernel PMU named "power" (--fake-powercap-kernel-power), so
 * that this source must register as "powercap".
 */
#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include "internal.h"
#include "pmu/sources.h"

#define SYSFS_PMUS "/sys/bus/event_source/devices"

static const char *self_exe = "/proc/self/exe";
static char scratch[64]; /* a directory for the writers' files */

/* ---- workload modes ---- */

static int mode_writer(char **argv)
{
	long k = atol(argv[0]), b = atol(argv[1]);
	char *buf = calloc(1, (size_t)(b > 0 ? b : 1));
	int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0 || !buf)
		_exit(2);
	for (long i = 0; i < k; i++)
		if (write(fd, buf, (size_t)b) != b)
			_exit(3);
	_exit(0);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int mode_sleeper(char **argv)
{
	for (long i = atol(argv[0]); i > 0; i--)
		sleep_ms(1);
	_exit(0);
}

static int mode_toucher(char **argv)
{
	size_t len = (size_t)atol(argv[0]) << 20;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		_exit(2);
	for (size_t i = 0; i < len; i += 4096)
		p[i] = 1;
	_exit(0);
}

static long spin_ms;

static void *spin(void *arg)
{
	struct timespec t0, t;

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < spin_ms);
	return NULL;
}

static int mode_spinner(char **argv)
{
	int n = atoi(argv[0]);
	pthread_t th[64];

	spin_ms = atol(argv[1]);
	for (int i = 0; i < n && i < 64; i++)
		if (pthread_create(&th[i], NULL, spin, NULL))
			_exit(2);
	for (int i = 0; i < n && i < 64; i++)
		pthread_join(th[i], NULL);
	_exit(0);
}

/* ---- running a workload, as pcl stat does ---- */

/* Count @spec on @argv from exec to exit (which must succeed); read after libpcl reaped it. */
static struct unit_run *run_workload(const char *spec, char *const argv[])
{
	struct unit_run *r = run_prepared(spec, pcl_workload__prepare(argv));

	assert_true(WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0);
	return r;
}

static struct pcl_count count_of(struct pcl_evlist *el, int idx)
{
	struct pcl_count c;
	int ret = pcl_evlist__count(el, idx, -1, -1, &c);

	if (ret)
		fail_msg("count of event %d ('%s'): %d", idx, pcl_evlist__event(el, idx)->name,
			 ret);
	return c;
}

/* ---- parsers ---- */

struct field_case {
	const char *text, *key;
	int ret;
	uint64_t val;
};

static const struct field_case field_cases[] = {
	{ "rchar: 6976\nwchar: 0\nsyscr: 10\n", "rchar", 0, 6976 },
	{ "rchar: 6976\nwchar: 17\nsyscr: 10\n", "wchar", 0, 17 },
	{ "rchar: 6976\nwchar: 17\nsyscr: 10", "syscr", 0, 10 },
	{ "voluntary_ctxt_switches:\t12\nnonvoluntary_ctxt_switches:\t3\n",
	  "voluntary_ctxt_switches", 0, 12 },
	{ "nonvoluntary_ctxt_switches:\t3\nvoluntary_ctxt_switches:\t12\n",
	  "voluntary_ctxt_switches", 0, 12 },
	{ "nonvoluntary_ctxt_switches:\t3\n", "voluntary_ctxt_switches", -ENOENT, 0 },
	{ "VmPeak:\t   10 kB\nVmHWM:\t    2160 kB\n", "VmHWM", 0, 2160 },
	{ "Tgid:\t42\n", "Tgid", 0, 42 },
	{ "rchar: 18446744073709551615\n", "rchar", 0, UINT64_MAX },
	{ "rchar: 18446744073709551616\n", "rchar", -EINVAL, 0 },
	{ "rchar: -1\n", "rchar", -EINVAL, 0 },
	{ "rchar: \n", "rchar", -EINVAL, 0 },
	{ "rchar: 12abc\n", "rchar", -EINVAL, 0 },
	{ "rchar 12\n", "rchar", -ENOENT, 0 },
	{ "xrchar: 12\n", "rchar", -ENOENT, 0 },
	{ "", "rchar", -ENOENT, 0 },
	{ "\n\n\n", "rchar", -ENOENT, 0 },
	{ "\x01\xff\x80garbage:::\n:rchar\n", "rchar", -ENOENT, 0 },
};

static void test_parse_procfs_fields(void **state)
{
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(field_cases); i++) {
		const struct field_case *c = &field_cases[i];
		uint64_t v = 0;
		int ret = procfs_parse_field(c->text, c->key, &v);

		bad += differ(c->text, "return", (uint64_t)(int64_t)ret, (uint64_t)(int64_t)c->ret);
		if (!c->ret)
			bad += differ(c->text, c->key, v, c->val);
	}
	assert_int_equal(bad, 0);
}

struct psi_case {
	const char *text;
	bool full;
	int ret;
	uint64_t total;
};

static const struct psi_case psi_cases[] = {
	{ "some avg10=2.04 avg60=3.76 avg300=3.40 total=2741682006\n"
	  "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
	  false, 0, 2741682006ull },
	{ "some avg10=2.04 avg60=3.76 avg300=3.40 total=2741682006\n"
	  "full avg10=0.00 avg60=0.00 avg300=0.00 total=77\n",
	  true, 0, 77 },
	{ "full avg10=0.00 avg60=0.00 avg300=0.00 total=5", true, 0, 5 },
	{ "some avg10=0.00 avg60=0.00 avg300=0.00 total=5\n", true, -ENOENT, 0 },
	{ "some avg10=0.00 avg60=0.00 avg300=0.00\n", false, -EINVAL, 0 },
	{ "some avg10=0.00 total=\n", false, -EINVAL, 0 },
	{ "some total=12x\n", false, -EINVAL, 0 },
	{ "some total=99999999999999999999999\n", false, -EINVAL, 0 },
	{ "some total=-3\n", false, -EINVAL, 0 },
	{ "some\n", false, -EINVAL, 0 },
	{ "", false, -ENOENT, 0 },
	{ "garbage\x01\x02\nsome", false, -EINVAL, 0 },
	{ "somex total=3\n", false, -ENOENT, 0 },
};

static void test_parse_psi(void **state)
{
	int bad = 0;
	uint64_t v;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(psi_cases); i++) {
		const struct psi_case *c = &psi_cases[i];
		int ret;

		v = 0;
		ret = psi_parse_total(c->text, c->full, &v);
		bad += differ(c->text, "return", (uint64_t)(int64_t)ret, (uint64_t)(int64_t)c->ret);
		if (!c->ret)
			bad += differ(c->text, "total", v, c->total);
	}
	assert_int_equal(bad, 0);
	assert_int_equal(parse_u64_text(" 123\n", &v), 0);
	assert_int_equal(v, 123);
	assert_int_equal(parse_u64_text("123 456", &v), -EINVAL);
	assert_int_equal(parse_u64_text("", &v), -EINVAL);
	assert_int_equal(parse_u64_text("0x10", &v), -EINVAL);
}

/* ---- proc/ on workloads: exact after the reap ---- */

struct writer_case {
	long k, b;
};

static const struct writer_case writer_cases[] = {
	{ 0, 1 }, { 1, 1 }, { 7, 100 }, { 100, 4096 }, { 1000, 3 },
};

static void test_proc_workload_writes_exact(void **state)
{
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(writer_cases); i++) {
		const struct writer_case *c = &writer_cases[i];
		char k[24], b[24], file[128], row[64];
		char *argv[] = { (char *)self_exe, "--writer", k, b, file, NULL };
		struct unit_run *r;
		struct pcl_count syscw, wchar;

		snprintf(k, sizeof(k), "%ld", c->k);
		snprintf(b, sizeof(b), "%ld", c->b);
		snprintf(file, sizeof(file), "%s/w%zu", scratch, i);
		snprintf(row, sizeof(row), "%ld writes of %ld bytes", c->k, c->b);
		r = run_workload("proc/syscw/,proc/wchar/", argv);
		syscw = count_of(r->el, 0);
		wchar = count_of(r->el, 1);
		bad += differ(row, "proc/syscw/", syscw.val, (uint64_t)c->k);
		bad += differ(row, "proc/wchar/", wchar.val, (uint64_t)(c->k * c->b));
		/* counted: enabled and running for the span */
		bad += differ(row, "time running > 0", syscw.run > 0, 1);
		bad += differ(row, "enabled == running", syscw.ena, syscw.run);
		unit_run_free();
	}
	assert_int_equal(bad, 0);
}

static void test_proc_event_units(void **state)
{
	static const struct {
		const char *spec, *unit;
	} cases[] = {
		{ "proc/rchar/", "bytes" },
		{ "proc/wchar/", "bytes" },
		{ "proc/syscr/", NULL },
		{ "proc/syscw/", NULL },
		{ "proc/read_bytes/", "bytes" },
		{ "proc/write_bytes/", "bytes" },
		{ "proc/cancelled_write_bytes/", "bytes" },
		{ "proc/voluntary-ctxt-switches/", NULL },
		{ "proc/nonvoluntary-ctxt-switches/", NULL },
		{ "proc/rss-hwm/", "kB" },
		{ "psi/cpu-some/", "us" },
		{ "psi/irq-full/", "us" },
	};
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct pcl_events l = { 0 };
		struct pcl_parse_error err;

		if (pcl_parse_events(&l, cases[i].spec, &err) < 0 || l.nr != 1) {
			print_message("'%s': %s\n", cases[i].spec, err.msg);
			bad++;
			continue;
		}
		bad += differ_str(cases[i].spec, "unit", l.ev[0].unit, cases[i].unit);
		bad += differ(cases[i].spec, "scale", l.ev[0].scale == 1.0, 1);
		bad += differ(cases[i].spec, "user-space type",
			      l.ev[0].attr.type >= PCL_PMU_TYPE_USER_BASE, 1);
		pcl_events__clear(&l);
	}
	assert_int_equal(bad, 0);
}

static void test_proc_bad_names(void **state)
{
	static const char *const specs[] = { "proc/bogus/",	"proc/config=11/",
					     "proc/config=0/",	"psi/cpu-sum/",
					     "psi/config=8/",	"power/energy/",
					     "power/config=6/", "wchar" };
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(specs); i++) {
		struct pcl_events l = { 0 };
		struct pcl_parse_error err;
		int ret = pcl_parse_events(&l, specs[i], &err);

		if (ret >= 0 || !err.msg[0]) {
			print_message("'%s' parsed (%d), expected an error\n", specs[i], ret);
			bad++;
		}
		pcl_events__clear(&l);
	}
	assert_int_equal(bad, 0);
}

static void test_proc_workload_sleeps(void **state)
{
	char *argv[] = { (char *)self_exe, "--sleeper", "25", NULL };
	struct unit_run *r;
	struct pcl_count v;

	(void)state;
	r = run_workload("proc/voluntary-ctxt-switches/,proc/nonvoluntary-ctxt-switches/", argv);
	v = count_of(r->el, 0);
	if (v.val < 25)
		fail_msg("25 sleeps: %llu voluntary context switches", (unsigned long long)v.val);
	assert_true(count_of(r->el, 1).run > 0);
	unit_run_free();
}

static void test_proc_workload_rss(void **state)
{
	char *argv[] = { (char *)self_exe, "--toucher", "64", NULL };
	struct unit_run *r;
	struct pcl_count v;

	(void)state;
	r = run_workload("proc/rss-hwm/", argv);
	v = count_of(r->el, 0);
	if (v.val * 1024 < 64ull << 20)
		fail_msg("touched 64 MiB: rss-hwm %llu kB", (unsigned long long)v.val);
	/* a gauge: the peak, not a sum over spans; no more than what is plausible */
	assert_true(v.val < 1024 * 1024);
	unit_run_free();
}

/* ---- proc/ on the calling process through the ops: pid 0 ---- */

struct self_ctr {
	struct pcl_events l;
	struct pcl_counter c;
	const struct pcl_pmu_ops *ops;
};

static void self_open(struct self_ctr *s, const char *spec, pid_t pid)
{
	struct pcl_parse_error err;

	memset(s, 0, sizeof(*s));
	if (pcl_parse_events(&s->l, spec, &err) < 0 || s->l.nr != 1)
		fail_msg("'%s': %s", spec, err.msg);
	s->c.attr = &s->l.ev[0].attr;
	s->c.pmu = s->l.ev[0].pmu;
	s->c.pid = pid;
	s->c.cpu = -1;
	s->c.group_fd = -1;
	s->c.fd = -1;
	s->ops = pcl_pmu__ops(s->c.pmu);
	assert_non_null(s->ops);
}

static uint64_t self_read(struct self_ctr *s)
{
	struct pcl_count cnt;

	assert_int_equal(s->ops->read(&s->c, &cnt), 0);
	return cnt.val;
}

static void write_n(int fd, int n, size_t b)
{
	char buf[64] = { 0 };

	for (int i = 0; i < n; i++)
		assert_int_equal(write(fd, buf, b), (ssize_t)b);
}

static void test_proc_self_spans(void **state)
{
	struct self_ctr s;
	struct pcl_count cnt;
	char file[128];
	int fd;

	(void)state;
	snprintf(file, sizeof(file), "%s/self", scratch);
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	self_open(&s, "proc/syscw/", 0);
	assert_int_equal(s.ops->add(&s.c), 0);
	assert_int_equal(s.c.fd, -1);
	/* not started: nothing counts, and it has not run */
	write_n(fd, 3, 1);
	assert_int_equal(s.ops->read(&s.c, &cnt), 0);
	assert_int_equal(cnt.val, 0);
	assert_int_equal(cnt.run, 0);
	assert_int_equal(s.ops->start(&s.c), 0);
	write_n(fd, 5, 2);
	assert_int_equal(self_read(&s), 5); /* read while running */
	write_n(fd, 2, 2);
	assert_int_equal(s.ops->stop(&s.c), 0);
	assert_int_equal(self_read(&s), 7);
	write_n(fd, 10, 1); /* stopped: not counted */
	assert_int_equal(self_read(&s), 7);
	assert_int_equal(s.ops->start(&s.c), 0);
	assert_int_equal(s.ops->start(&s.c), 0); /* a second start changes nothing */
	write_n(fd, 4, 1);
	assert_int_equal(s.ops->stop(&s.c), 0);
	assert_int_equal(s.ops->stop(&s.c), 0);
	assert_int_equal(s.ops->read(&s.c, &cnt), 0);
	assert_int_equal(cnt.val, 11); /* accumulated over both spans */
	assert_true(cnt.run > 0 && cnt.ena == cnt.run);
	/* a new counter (what a reset amounts to for a user-space source) starts at 0 */
	s.ops->del(&s.c);
	assert_null(s.c.priv);
	assert_int_equal(s.ops->add(&s.c), 0);
	assert_int_equal(self_read(&s), 0);
	assert_int_equal(s.ops->start(&s.c), 0);
	write_n(fd, 6, 3);
	assert_int_equal(s.ops->stop(&s.c), 0);
	assert_int_equal(self_read(&s), 6);
	s.ops->del(&s.c);
	pcl_events__clear(&s.l);
	close(fd);
}

static void test_proc_self_rss_and_sleeps(void **state)
{
	struct self_ctr hwm, vcs;
	size_t len = 48u << 20;
	char *p;
	uint64_t v;

	(void)state;
	self_open(&hwm, "proc/rss-hwm/", 0);
	self_open(&vcs, "proc/voluntary-ctxt-switches/", getpid());
	assert_int_equal(hwm.ops->add(&hwm.c), 0);
	assert_int_equal(vcs.ops->add(&vcs.c), 0);
	assert_int_equal(hwm.ops->start(&hwm.c), 0);
	assert_int_equal(vcs.ops->start(&vcs.c), 0);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(p != MAP_FAILED);
	for (size_t i = 0; i < len; i += 4096)
		p[i] = 1;
	for (int i = 0; i < 10; i++)
		sleep_ms(1);
	v = self_read(&hwm);
	if (v * 1024 < len)
		fail_msg("touched %zu bytes: rss-hwm %llu kB", len, (unsigned long long)v);
	munmap(p, len);
	/* a gauge keeps the peak once the memory is gone */
	assert_true(self_read(&hwm) >= v);
	v = self_read(&vcs);
	if (v < 10)
		fail_msg("10 sleeps: %llu voluntary switches", (unsigned long long)v);
	hwm.ops->stop(&hwm.c);
	vcs.ops->stop(&vcs.c);
	hwm.ops->del(&hwm.c);
	vcs.ops->del(&vcs.c);
	pcl_events__clear(&hwm.l);
	pcl_events__clear(&vcs.l);
}

/* The self-measurement API: a program counts its own writes, resets, counts again. */
static void test_proc_self_api(void **state)
{
	struct pcl_counters *c;
	struct pcl_value v[3];
	char file[128];
	int fd;

	(void)state;
	snprintf(file, sizeof(file), "%s/api", scratch);
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	c = pcl_counters__new_open("proc/syscw/,proc/wchar/,task-clock", NULL);
	if (!c)
		fail_msg("pcl_counters__new_open: %s", pcl_last_error());
	assert_int_equal(pcl_counters__nr(c), 3);
	assert_true(pcl_counters__supported(c, 0));
	assert_string_equal(pcl_counters__unit(c, 1), "bytes");
	assert_int_equal(pcl_counters__start(c), 0);
	write_n(fd, 12, 5);
	assert_int_equal(pcl_counters__stop(c), 0);
	assert_int_equal(pcl_counters__read(c, v), 0);
	assert_int_equal(v[0].status, 0);
	assert_int_equal(v[0].raw, 12);
	assert_int_equal(v[1].raw, 60);
	assert_true(v[1].value == 60.0);
	assert_string_equal(v[1].unit, "bytes");
	write_n(fd, 3, 1); /* stopped */
	assert_int_equal(pcl_counters__reset(c), 0);
	assert_int_equal(pcl_counters__read(c, v), 0);
	assert_int_equal(v[0].raw, 0);
	assert_int_equal(pcl_counters__start(c), 0);
	write_n(fd, 4, 2);
	assert_int_equal(pcl_counters__stop(c), 0);
	assert_int_equal(pcl_counters__read(c, v), 0);
	assert_int_equal(v[0].raw, 4);
	assert_int_equal(v[1].raw, 8);
	pcl_counters__free(c);
	close(fd);
}

/* ---- proc/ on a process's threads (pcl stat -p): the cells add up ---- */

struct writer_thread {
	pthread_barrier_t go, done, exit;
	int fd, k;
	size_t b;
	pid_t tid;
	bool wait_exit;
};

static void *thread_writer(void *arg)
{
	struct writer_thread *w = arg;
	char buf[64] = { 0 };

	w->tid = (pid_t)syscall(SYS_gettid);
	pthread_barrier_wait(&w->go); /* tid known */
	pthread_barrier_wait(&w->go); /* counting */
	for (int i = 0; i < w->k; i++)
		if (write(w->fd, buf, w->b) != (ssize_t)w->b)
			break;
	for (int i = 0; i < 5; i++)
		sleep_ms(1);
	pthread_barrier_wait(&w->done);
	if (w->wait_exit)
		pthread_barrier_wait(&w->exit);
	return NULL;
}

static struct pcl_evlist *open_pid(const char *spec, pid_t pid)
{
	char p[16];
	struct pcl_target t = { .sz = sizeof(t), .pid = p };
	struct pcl_evlist *el = pcl_evlist__new();
	struct pcl_parse_error err;
	int ret;

	snprintf(p, sizeof(p), "%d", (int)pid);
	assert_non_null(el);
	ret = pcl_evlist__add(el, spec, &err);
	if (ret < 0)
		fail_msg("'%s': %s", spec, err.msg);
	ret = pcl_evlist__open(el, &t, NULL);
	if (ret)
		fail_msg("open '%s' on %d: %d %s", spec, (int)pid, ret, pcl_last_error());
	return el;
}

static int thread_idx(struct pcl_evlist *el, pid_t tid)
{
	for (int i = 0; i < pcl_evlist__nr_threads(el); i++)
		if (pcl_evlist__thread(el, i) == tid)
			return i;
	return -1;
}

static void run_thread_case(bool thread_alive_at_read)
{
	struct writer_thread w = { .k = 37, .b = 11, .wait_exit = thread_alive_at_read };
	struct pcl_count cell, sum;
	struct pcl_evlist *el;
	pthread_t th;
	char file[128];
	int ti;

	snprintf(file, sizeof(file), "%s/threads", scratch);
	w.fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(w.fd >= 0);
	pthread_barrier_init(&w.go, NULL, 2);
	pthread_barrier_init(&w.done, NULL, 2);
	pthread_barrier_init(&w.exit, NULL, 2);
	assert_int_equal(pthread_create(&th, NULL, thread_writer, &w), 0);
	pthread_barrier_wait(&w.go);
	/* every thread of this process, the writer among them */
	el = open_pid("proc/syscw/,proc/wchar/,proc/voluntary-ctxt-switches/", getpid());
	ti = thread_idx(el, w.tid);
	assert_true(ti >= 0);
	assert_int_equal(pcl_evlist__enable(el), 0);
	pthread_barrier_wait(&w.go);
	pthread_barrier_wait(&w.done);
	if (!thread_alive_at_read)
		pthread_join(th, NULL); /* its counter can no longer read it */
	assert_int_equal(pcl_evlist__disable(el), 0);
	assert_int_equal(pcl_evlist__read(el), 0);
	sum = count_of(el, 0);
	assert_int_equal(sum.val, w.k);
	assert_int_equal(count_of(el, 1).val, (uint64_t)w.k * w.b);
	if (thread_alive_at_read) {
		/* the writer's own cell has its writes, the process's cell the rest (none) */
		assert_int_equal(pcl_evlist__count(el, 0, 0, ti, &cell), 0);
		assert_int_equal(cell.val, w.k);
		assert_int_equal(pcl_evlist__count(el, 1, 0, ti, &cell), 0);
		assert_int_equal(cell.val, (uint64_t)w.k * w.b);
		assert_int_equal(pcl_evlist__count(el, 2, 0, ti, &cell), 0);
		if (cell.val < 5)
			fail_msg("5 sleeps of the thread: %llu voluntary switches in its cell",
				 (unsigned long long)cell.val);
		pthread_barrier_wait(&w.exit);
		pthread_join(th, NULL);
	}
	pcl_evlist__free(el);
	pthread_barrier_destroy(&w.go);
	pthread_barrier_destroy(&w.done);
	pthread_barrier_destroy(&w.exit);
	close(w.fd);
}

static void test_proc_threads_add_up(void **state)
{
	(void)state;
	run_thread_case(true);
}

static void test_proc_thread_exited(void **state)
{
	(void)state;
	run_thread_case(false);
}

/* A process that ends while counted (not reaped by libpcl): the counts read so far stay. */
static void test_proc_target_gone(void **state)
{
	int go[2];
	pid_t pid;
	struct pcl_evlist *el;
	char c = 'g';

	(void)state;
	assert_int_equal(pipe(go), 0);
	fflush(stdout);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char buf[8] = { 0 };
		int fd = open("/dev/null", O_WRONLY);

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		for (int i = 0; i < 9; i++)
			if (write(fd, buf, sizeof(buf)) < 0)
				_exit(3);
		pause();
		_exit(0);
	}
	close(go[0]);
	el = open_pid("proc/syscw/", pid);
	assert_int_equal(pcl_evlist__enable(el), 0);
	assert_int_equal(write(go[1], &c, 1), 1);
	for (int i = 0; i < 2000; i++) {
		assert_int_equal(pcl_evlist__read(el), 0);
		if (count_of(el, 0).val >= 9)
			break;
		sleep_ms(1);
	}
	assert_int_equal(count_of(el, 0).val, 9);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	assert_int_equal(pcl_evlist__read(el), 0); /* gone: not an error */
	assert_int_equal(count_of(el, 0).val, 9);
	assert_int_equal(pcl_evlist__disable(el), 0);
	assert_int_equal(count_of(el, 0).val, 9);
	pcl_evlist__free(el);
	close(go[1]);
	/* a pid that does not exist cannot be opened */
	el = pcl_evlist__new();
	assert_true(pcl_evlist__add(el, "proc/wchar/", NULL) > 0);
	{
		char p[16];
		struct pcl_target t = { .sz = sizeof(t), .pid = p };

		snprintf(p, sizeof(p), "%d", (int)pid);
		assert_true(pcl_evlist__open(el, &t, NULL) < 0);
	}
	pcl_evlist__free(el);
}

/* System-wide (-a): proc/ is not supported there, and says why. */
static void test_proc_not_supported_system_wide(void **state)
{
	struct pcl_target t = { .sz = sizeof(t), .cpu_list = "0" };
	struct pcl_evlist *el = pcl_evlist__new();
	struct self_ctr s;

	(void)state;
	assert_true(pcl_evlist__add(el, "proc/wchar/,cpu-clock", NULL) > 0);
	assert_int_equal(pcl_evlist__open(el, &t, NULL), 0);
	assert_int_equal(pcl_evlist__state(el, 0), PCL_EVSEL_NOT_SUPPORTED);
	assert_int_equal(pcl_evlist__open_status(el, 0), -EOPNOTSUPP);
	assert_int_equal(pcl_evlist__state(el, 1), PCL_EVSEL_OK);
	if (!strstr(pcl_last_error(), "proc/wchar/") || !strstr(pcl_last_error(), "system-wide"))
		fail_msg("reason: '%s'", pcl_last_error());
	pcl_evlist__free(el);
	/* the same through the ops */
	self_open(&s, "proc/rchar/", -1);
	s.c.cpu = 0;
	assert_int_equal(s.ops->add(&s.c), -EOPNOTSUPP);
	assert_null(s.c.priv);
	assert_non_null(strstr(pcl_last_error(), "proc/rchar/: "));
	pcl_events__clear(&s.l);
}

/* ---- psi/ ---- */

static bool have_psi(const char *res)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/pressure/%s", res);
	return access(path, R_OK) == 0;
}

static void test_psi_cpu_pressure(void **state)
{
	char threads[16];
	char *argv[] = { (char *)self_exe, "--spinner", threads, "300", NULL };
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct unit_run *r;
	struct pcl_count some, io;

	(void)state;
	if (!have_psi("cpu")) {
		print_message(
			"no /proc/pressure/cpu on this machine (kernel without CONFIG_PSI)\n");
		skip();
	}
	/* more runnable threads than CPUs: some of them always wait */
	snprintf(threads, sizeof(threads), "%ld", ncpu * 2 + 1 > 64 ? 64 : ncpu * 2 + 1);
	r = run_workload("psi/cpu-some/,psi/io-some/,psi/memory-some/,psi/memory-full/", argv);
	for (int i = 0; i < 4; i++)
		assert_int_equal(pcl_evlist__state(r->el, i), PCL_EVSEL_OK);
	some = count_of(r->el, 0);
	io = count_of(r->el, 1);
	if (some.val == 0)
		fail_msg("%s spinning threads on %ld CPUs for 300 ms: psi/cpu-some/ is 0", threads,
			 ncpu);
	/* stall time is wall time, microseconds: never more than the span */
	assert_true(some.val <= some.ena / 1000 + 1000);
	assert_true(io.val <= io.ena / 1000 + 1000);
	assert_true(some.run > 0);
	unit_run_free();
}

/* With -a, one counter per CPU: the first reports, the sum counts once. */
static void test_psi_per_cpu_once(void **state)
{
	struct pcl_target t = { .sz = sizeof(t), .system_wide = true };
	struct pcl_evlist *el;
	struct pcl_count sum, cell;

	(void)state;
	if (!have_psi("cpu")) {
		print_message(
			"no /proc/pressure/cpu on this machine (kernel without CONFIG_PSI)\n");
		skip();
	}
	el = pcl_evlist__new();
	assert_true(pcl_evlist__add(el, "psi/cpu-some/", NULL) > 0);
	assert_int_equal(pcl_evlist__open(el, &t, NULL), 0);
	assert_int_equal(pcl_evlist__state(el, 0), PCL_EVSEL_OK);
	assert_int_equal(pcl_evlist__enable(el), 0);
	/* twice: the second time after a reset (del + add of each counter, in order) */
	for (int round = 0; round < 2; round++) {
		pid_t pid;

		if (round)
			assert_int_equal(evlist_restart_user(el, 0, true), 0);
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			char threads[16];
			char *argv[] = { threads, "200", NULL };

			snprintf(threads, sizeof(threads), "%ld",
				 sysconf(_SC_NPROCESSORS_ONLN) * 2 + 1);
			mode_spinner(argv);
		}
		assert_true(pid > 0);
		waitpid(pid, NULL, 0);
		assert_int_equal(pcl_evlist__read(el), 0);
		sum = count_of(el, 0);
		for (int ci = 1; ci < pcl_evlist__nr_cpus(el); ci++) {
			assert_int_equal(pcl_evlist__count(el, 0, ci, -1, &cell), 0);
			assert_int_equal(cell.val, 0);
		}
		assert_int_equal(pcl_evlist__count(el, 0, 0, -1, &cell), 0);
		assert_int_equal(cell.val, sum.val);
		if (sum.val == 0)
			fail_msg("round %d: spinning threads, but psi/cpu-some/ is 0", round);
		assert_true(sum.val <= cell.ena / 1000 + 1000);
	}
	assert_int_equal(pcl_evlist__disable(el), 0);
	pcl_evlist__free(el);
}

static void test_psi_missing_resource(void **state)
{
	struct pcl_target t = { .sz = sizeof(t), .cpu_list = "0" };
	struct pcl_evlist *el;

	(void)state;
	if (have_psi("irq")) {
		print_message("this machine has /proc/pressure/irq: nothing is missing\n");
		skip();
	}
	el = pcl_evlist__new();
	assert_true(pcl_evlist__add(el, "psi/irq-full/,cpu-clock", NULL) > 0);
	assert_int_equal(pcl_evlist__open(el, &t, NULL), 0);
	assert_int_equal(pcl_evlist__state(el, 0), PCL_EVSEL_NOT_SUPPORTED);
	if (!strstr(pcl_last_error(), "psi/irq-full/: ") ||
	    !strstr(pcl_last_error(), "/proc/pressure"))
		fail_msg("reason: '%s'", pcl_last_error());
	pcl_evlist__free(el);
	/* pcl list's description says so too */
	{
		const struct pcl_pmu_alias *a =
			pcl_pmu__find_alias(pcl_pmu__find("psi"), "irq-full");

		assert_non_null(a);
		assert_non_null(strstr(a->desc, "not available here"));
		a = pcl_pmu__find_alias(pcl_pmu__find("psi"), "cpu-some");
		assert_non_null(a);
		if (have_psi("cpu"))
			assert_null(strstr(a->desc, "not available"));
	}
}

/* ---- power/ on this machine ---- */

static bool have_rapl(void)
{
	DIR *d = opendir(POWERCAP_ROOT);
	struct dirent *de;
	bool found = false;

	while (d && (de = readdir(d)))
		found |= strstr(de->d_name, "rapl:") != NULL;
	if (d)
		closedir(d);
	return found;
}

/* The user-space power source's name: power, or powercap next to a kernel power PMU. */
static const char *power_name(void)
{
	struct pcl_pmu *k = pcl_pmu__find("power");

	return k && pcl_pmu__is_kernel(k) ? "powercap" : "power";
}

static void test_power_here(void **state)
{
	struct pcl_target t = { .sz = sizeof(t), .cpu_list = "0" };
	struct pcl_evlist *el = pcl_evlist__new();
	char spec[128], want[256];
	struct pcl_pmu *pmu = pcl_pmu__find(power_name());

	(void)state;
	assert_non_null(pmu);
	assert_false(pcl_pmu__is_kernel(pmu));
	assert_int_equal(pcl_pmu__nr_aliases(pmu), 5);
	snprintf(spec, sizeof(spec), "%s/energy-pkg/,cpu-clock", power_name());
	assert_true(pcl_evlist__add(el, spec, NULL) > 0);
	assert_string_equal(pcl_evlist__event(el, 0)->unit, "Joules");
	assert_true(pcl_evlist__event(el, 0)->scale == 1e-6);
	assert_int_equal(pcl_evlist__open(el, &t, NULL), 0);
	if (have_rapl()) {
		/* a machine with RAPL: it counts */
		if (pcl_evlist__state(el, 0) != PCL_EVSEL_OK)
			fail_msg("RAPL zones here, but: %s", pcl_last_error());
		pcl_evlist__free(el);
		return;
	}
	assert_int_equal(pcl_evlist__state(el, 0), PCL_EVSEL_NOT_SUPPORTED);
	assert_int_equal(pcl_evlist__open_status(el, 0), -ENODEV);
	snprintf(want, sizeof(want),
		 "%s/energy-pkg/: no RAPL zone in /sys/class/powercap on this machine",
		 power_name());
	assert_string_equal(pcl_last_error(), want);
	assert_non_null(strstr(pcl_pmu__find_alias(pmu, "energy-pkg")->desc,
			       "[not available here: no RAPL zone"));
	pcl_evlist__free(el);
}

/* ---- power/ on a fake powercap tree ---- */

static const char *const fake_zones[][2] = {
	{ "intel-rapl/enabled", "1\n" }, /* the control type: no zone */
	{ "intel-rapl:0/name", "package-0\n" },
	{ "intel-rapl:0/energy_uj", "1000\n" },
	{ "intel-rapl:0/max_energy_range_uj", "262143328850\n" },
	{ "intel-rapl:0:0/name", "core\n" },
	{ "intel-rapl:0:0/energy_uj", "500\n" },
	{ "intel-rapl:0:0/max_energy_range_uj", "262143328850\n" },
	{ "intel-rapl:0:1/name", "dram\n" },
	{ "intel-rapl:0:1/energy_uj", "garbage\x01\xff\n" }, /* malformed */
	{ "intel-rapl:0:1/max_energy_range_uj", "65712999613\n" },
	{ "intel-rapl:1/name", "package-1\n" },
	{ "intel-rapl:1/energy_uj", "999990\n" },
	{ "intel-rapl:1/max_energy_range_uj", "1000000\n" },
	{ "intel-rapl:2/name", "psys\n" },
	{ "intel-rapl:2/energy_uj", "0\n" },
	{ "intel-rapl:2/max_energy_range_uj", "1000\n" },
	/* the MMIO interface repeats package-0: not counted twice */
	{ "intel-rapl-mmio:0/name", "package-0\n" },
	{ "intel-rapl-mmio:0/energy_uj", "5\n" },
	{ "intel-rapl-mmio:0/max_energy_range_uj", "262143328850\n" },
	{ "intel-rapl:9/name", "\x01\x02\xfe not a zone name \n" },
	{ "intel-rapl:9/energy_uj", "7\n" },
	{ "dtpm/name", "package-7\n" },
	{ "junk:0/name", "package-8\n" },
	{ "junk:0/energy_uj", "1\n" },
};

static const char *const fake_kernel_power[][2] = {
	{ "power/type", "4242\n" },
	{ "power/format/event", "config:0-7\n" },
	{ "power/events/energy-pkg", "event=0x02\n" },
	{ "power/events/energy-pkg.scale", "2.3283064365386962890625e-10\n" },
	{ "power/events/energy-pkg.unit", "Joules\n" },
	{ "software/type", "1\n" },
};

static void fake_powercap_exec(bool kernel_power)
{
	char *argv[] = { "test-sources",
			 kernel_power ? "--fake-powercap-kernel-power" : "--fake-powercap", NULL };

	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("tmpfs", "/sys/class", "tmpfs", 0, "mode=0755"))
		_exit(77);
	if (mkdir(POWERCAP_ROOT, 0755))
		_exit(78);
	for (size_t i = 0; i < ARRAY_SIZE(fake_zones); i++)
		if (unit_write_file(POWERCAP_ROOT, fake_zones[i][0], fake_zones[i][1]))
			_exit(78);
	if (kernel_power) {
		if (mount("tmpfs", SYSFS_PMUS, "tmpfs", 0, "mode=0755"))
			_exit(77);
		for (size_t i = 0; i < ARRAY_SIZE(fake_kernel_power); i++)
			if (unit_write_file(SYSFS_PMUS, fake_kernel_power[i][0],
					    fake_kernel_power[i][1]))
				_exit(78);
	}
	execv("/proc/self/exe", argv);
	_exit(79);
}

static int set_uj(const char *zone, uint64_t v)
{
	char rel[128], text[32];

	snprintf(rel, sizeof(rel), "%s/energy_uj", zone);
	snprintf(text, sizeof(text), "%llu\n", (unsigned long long)v);
	return unit_write_file(POWERCAP_ROOT, rel, text);
}

/* Counts of the five power events, raw (microjoules). */
static int fake_read(struct pcl_evlist *el, uint64_t v[5])
{
	int ret = pcl_evlist__read(el);

	for (int i = 0; i < 5; i++) {
		struct pcl_count c = { 0 };

		pcl_evlist__count(el, i, -1, -1, &c);
		v[i] = c.val;
	}
	return ret;
}

static int fake_alias_checks(struct pcl_pmu *pmu)
{
	static const char *const names[] = { "energy-cores", "energy-gpu", "energy-pkg",
					     "energy-psys", "energy-ram" };
	int bad = 0;

	bad += differ("powercap", "nr_aliases", (uint64_t)pcl_pmu__nr_aliases(pmu), 5);
	for (int i = 0; i < 5 && i < pcl_pmu__nr_aliases(pmu); i++) {
		const struct pcl_pmu_alias *a = pcl_pmu__alias(pmu, i);
		bool missing = !strcmp(names[i], "energy-gpu") || !strcmp(names[i], "energy-ram");

		bad += differ_str(names[i], "name", a->name, names[i]);
		bad += differ_str(names[i], "unit", a->unit, "Joules");
		bad += differ(names[i], "scale 1e-6", a->scale == 1e-6, 1);
		bad += differ(names[i], "described unavailable",
			      a->desc && strstr(a->desc, "not available here"), missing);
	}
	return bad;
}

/* Runs in the re-executed child; the exit status is the number of mismatches. */
static int fake_powercap_checks(bool kernel_power)
{
	const char *name = kernel_power ? "powercap" : power_name();
	struct pcl_target t = { .sz = sizeof(t), .cpu_list = "0" };
	struct pcl_pmu *pmu = pcl_pmu__find(name);
	struct pcl_evlist *el = pcl_evlist__new();
	char spec[256], want[256];
	uint64_t v[5];
	int bad = 0, ret;

	if (!pmu || pcl_pmu__is_kernel(pmu)) {
		print_message("fake powercap: no user-space '%s'\n", name);
		return 1;
	}
	bad += fake_alias_checks(pmu);
	if (kernel_power) {
		struct pcl_pmu *k = pcl_pmu__find("power");
		struct pcl_events l = { 0 };

		bad += differ("power", "kernel", k && pcl_pmu__is_kernel(k), 1);
		bad += differ("power", "type", pcl_pmu__type(k), 4242);
		if (pcl_parse_events(&l, "power/energy-pkg/", NULL) >= 0 && l.nr == 1) {
			bad += differ("power/energy-pkg/", "type", l.ev[0].attr.type, 4242);
			bad += differ("power/energy-pkg/", "kernel scale",
				      l.ev[0].scale == 2.3283064365386962890625e-10, 1);
		} else {
			bad++;
		}
		pcl_events__clear(&l);
	}
	snprintf(spec, sizeof(spec),
		 "%1$s/energy-pkg/,%1$s/energy-cores/,%1$s/energy-psys/,%1$s/energy-ram/,"
		 "%1$s/energy-gpu/",
		 name);
	if (pcl_evlist__add(el, spec, NULL) < 0 || pcl_evlist__open(el, &t, NULL)) {
		print_message("fake powercap: '%s': %s\n", spec, pcl_last_error());
		pcl_evlist__free(el);
		return bad + 1;
	}
	bad += differ_str("pkg", "unit", pcl_evlist__event(el, 0)->unit, "Joules");
	bad += differ("pkg", "scale", pcl_evlist__event(el, 0)->scale == 1e-6, 1);
	for (int i = 0; i < 3; i++)
		bad += differ(pcl_evlist__event(el, i)->name, "state", pcl_evlist__state(el, i),
			      PCL_EVSEL_OK);
	/* the malformed dram zone and the missing uncore one: not supported, with a reason */
	bad += differ("energy-ram", "state", pcl_evlist__state(el, 3), PCL_EVSEL_NOT_SUPPORTED);
	bad += differ("energy-gpu", "state", pcl_evlist__state(el, 4), PCL_EVSEL_NOT_SUPPORTED);
	bad += differ("energy-gpu", "errno", (uint64_t)-pcl_evlist__open_status(el, 4), ENODEV);
	snprintf(want, sizeof(want),
		 "%s/energy-gpu/: no 'uncore' RAPL zone in /sys/class/powercap on this machine",
		 name);
	bad += differ_str("energy-gpu", "reason", pcl_last_error(), want);

	pcl_evlist__enable(el);
	/* pkg: package-0 +3 J; package-1 wraps at 1000000: +10 to the top, +10 after */
	bad += set_uj("intel-rapl:0", 3001000) + set_uj("intel-rapl:1", 10);
	bad += set_uj("intel-rapl:0:0", 1000500) + set_uj("intel-rapl-mmio:0", 900000);
	bad += set_uj("intel-rapl:2", 600);
	ret = fake_read(el, v);
	bad += differ("first read", "return", (uint64_t)ret, 0);
	bad += differ("first read", "energy-pkg", v[0], 3000020);
	bad += differ("first read", "energy-cores", v[1], 1000000);
	bad += differ("first read", "energy-psys", v[2], 600);
	/* psys wraps at 1000: 600 -> 100 is +500 */
	bad += set_uj("intel-rapl:2", 100);
	fake_read(el, v);
	bad += differ("psys wrap", "energy-psys", v[2], 1100);
	/* stopped: nothing counts; started again: spans add up */
	pcl_evlist__disable(el);
	bad += set_uj("intel-rapl:0", 4001000);
	fake_read(el, v);
	bad += differ("stopped", "energy-pkg", v[0], 3000020);
	pcl_evlist__enable(el);
	bad += set_uj("intel-rapl:0", 4001007);
	fake_read(el, v);
	bad += differ("second span", "energy-pkg", v[0], 3000027);
	/* garbage in a counter file: an error, the last good count, no crash */
	bad += unit_write_file(POWERCAP_ROOT, "intel-rapl:0/energy_uj", "zzz\n");
	ret = fake_read(el, v);
	bad += differ("garbage", "return is an error", ret < 0, 1);
	bad += differ("garbage", "energy-pkg", v[0], 3000027);
	bad += unit_write_file(POWERCAP_ROOT, "intel-rapl:0/energy_uj", "");
	fake_read(el, v);
	bad += differ("empty", "energy-pkg", v[0], 3000027);
	bad += set_uj("intel-rapl:0", 4001010);
	bad += differ("recovered", "return", (uint64_t)fake_read(el, v), 0);
	bad += differ("recovered", "energy-pkg", v[0], 3000030);
	{
		struct pcl_count c;

		pcl_evlist__count(el, 0, -1, -1, &c);
		bad += differ(
			"recovered", "Joules * 1e6",
			(uint64_t)(pcl_count__scaled(&c, pcl_evlist__event(el, 0)->scale) * 1e6 +
				   0.5),
			3000030);
	}
	pcl_evlist__free(el);
	return bad;
}

static void run_fake_powercap(bool kernel_power)
{
	pid_t pid;
	int status;

	fflush(stdout);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		fake_powercap_exec(kernel_power);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77) {
		print_message("cannot mount a tmpfs over /sys/class in a new mount namespace "
			      "(not root?)\n");
		skip();
	}
	if (WEXITSTATUS(status))
		fail_msg("fake powercap child: %d mismatches (or set-up error 78/79)",
			 WEXITSTATUS(status));
}

static void test_power_fake_tree(void **state)
{
	(void)state;
	run_fake_powercap(false);
}

static void test_power_fake_tree_kernel_power(void **state)
{
	(void)state;
	run_fake_powercap(true);
}

static int setup(void **state)
{
	(void)state;
	snprintf(scratch, sizeof(scratch), "/tmp/pcl-sources.XXXXXX");
	return mkdtemp(scratch) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	unit_remove_dir(scratch);
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		UNIT_TEST(test_parse_procfs_fields),
		UNIT_TEST(test_parse_psi),
		UNIT_TEST(test_proc_event_units),
		UNIT_TEST(test_proc_bad_names),
		UNIT_TEST(test_proc_workload_writes_exact),
		UNIT_TEST(test_proc_workload_sleeps),
		UNIT_TEST(test_proc_workload_rss),
		UNIT_TEST(test_proc_self_spans),
		UNIT_TEST(test_proc_self_rss_and_sleeps),
		UNIT_TEST(test_proc_self_api),
		UNIT_TEST(test_proc_threads_add_up),
		UNIT_TEST(test_proc_thread_exited),
		UNIT_TEST(test_proc_target_gone),
		UNIT_TEST(test_proc_not_supported_system_wide),
		UNIT_TEST(test_psi_cpu_pressure),
		UNIT_TEST(test_psi_per_cpu_once),
		UNIT_TEST(test_psi_missing_resource),
		UNIT_TEST(test_power_here),
		UNIT_TEST(test_power_fake_tree),
		UNIT_TEST(test_power_fake_tree_kernel_power),
	};

	if (argc > 4 && !strcmp(argv[1], "--writer"))
		return mode_writer(argv + 2);
	if (argc > 2 && !strcmp(argv[1], "--sleeper"))
		return mode_sleeper(argv + 2);
	if (argc > 2 && !strcmp(argv[1], "--toucher"))
		return mode_toucher(argv + 2);
	if (argc > 3 && !strcmp(argv[1], "--spinner"))
		return mode_spinner(argv + 2);
	if (argc > 1 && !strcmp(argv[1], "--fake-powercap"))
		return fake_powercap_checks(false);
	if (argc > 1 && !strcmp(argv[1], "--fake-powercap-kernel-power"))
		return fake_powercap_checks(true);
	unit_cleanup = unit_run_free;
	return cmocka_run_group_tests(tests, setup, teardown);
}
