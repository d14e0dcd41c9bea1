/* SPDX-License-Identifier: MIT */
/*
 * The contract of the public API as a whole (pcl.h, common.h): every failure
 * sets its own message naming the function or what failed, and every
 * option struct follows one size policy (PCL_OPTS; older smaller structs
 * accepted, unknown non-zero bytes refused, sz 0 refused, NULL = defaults).
 */
#include "unit.h"
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "internal.h"

#define SENTINEL "sentinel: an older failure"

static void set_sentinel(void)
{
	pcl_err(EPERM, "%s", SENTINEL);
}

/*
 * After a failing call: the message is not the sentinel and contains @want.
 * Returns 1 (and prints the row) when not.
 */
static int msg_check(const char *row, const char *want)
{
	const char *m = pcl_last_error();

	if (!strcmp(m, SENTINEL) || !strstr(m, want)) {
		print_message("%s: pcl_last_error() is '%s', want a message naming '%s'\n", row, m,
			      want);
		return 1;
	}
	return 0;
}

/* A failing int call: negative, and its own message. */
#define FAILS(expr, want)                                                                          \
	do {                                                                                       \
		int r_;                                                                            \
		set_sentinel();                                                                    \
		r_ = (expr);                                                                       \
		if (r_ >= 0) {                                                                     \
			print_message("%s: returned %d, want a negative errno\n", #expr, r_);      \
			bad++;                                                                     \
		} else {                                                                           \
			bad += msg_check(#expr, want);                                             \
		}                                                                                  \
	} while (0)

/* A failing pointer call: NULL, errno set (positive), and its own message. */
#define FAILS_NULL(expr, want)                                                                     \
	do {                                                                                       \
		const void *p_;                                                                    \
		set_sentinel();                                                                    \
		errno = 0;                                                                         \
		p_ = (expr);                                                                       \
		if (p_ || errno <= 0) {                                                            \
			print_message("%s: returned %p with errno %d, want NULL and errno\n",      \
				      #expr, p_, errno);                                           \
			bad++;                                                                     \
		} else {                                                                           \
			bad += msg_check(#expr, want);                                             \
		}                                                                                  \
	} while (0)

static void test_failures_set_their_message(void **state)
{
	struct pcl_evlist *el = pcl_evlist__new();
	struct pcl_parse_error perr;
	struct pcl_count cnt;
	struct pcl_record rec;
	struct perf_event_header hdr = { .type = PERF_RECORD_SAMPLE, .size = 4 };
	struct perf_event_attr attr = { .size = sizeof(attr) };
	struct pcl_sys_caps caps = { .sz = 0 };
	struct pcl_value vals[1];
	uint64_t cfg, addr, size;
	int *cpus = NULL;
	char **strs = NULL;
	struct pcl_flame flame;
	int bad = 0, null_fd;

	(void)state;
	assert_non_null(el);
	/* evlist */
	FAILS(pcl_evlist__add(NULL, "task-clock", NULL), "pcl_evlist__add");
	FAILS(pcl_evlist__add(el, "cyclez", &perr), "cyclez");
	FAILS(pcl_evlist__open(NULL, NULL, NULL), "pcl_evlist__open");
	FAILS(pcl_evlist__open(el, NULL, NULL), "no events");
	FAILS(pcl_evlist__read(NULL), "pcl_evlist__read");
	FAILS(pcl_evlist__enable(NULL), "pcl_evlist__enable");
	FAILS(pcl_evlist__count(el, 7, -1, -1, &cnt), "pcl_evlist__count");
	FAILS(pcl_evlist__set_read_format(NULL, 0), "pcl_evlist__set_read_format");
	FAILS(pcl_parse_cpu_list(NULL, &cpus), "pcl_parse_cpu_list");
	FAILS_NULL(pcl_workload__prepare(NULL), "pcl_workload__prepare");
	FAILS(pcl_workload__start(NULL), "pcl_workload__start");
	/* self-measurement */
	FAILS_NULL(pcl_counters__new(NULL, NULL), "events");
	FAILS_NULL(pcl_counters__new_open("cyclez", NULL), "cyclez");
	FAILS(pcl_counters__read(NULL, vals), "pcl_counters__read");
	FAILS(pcl_counters__start(NULL), "pcl_counters__start");
	FAILS(pcl_counters__set_overflow(NULL, 0, NULL), "pcl_counters__set_overflow");
	FAILS(pcl_counters__poll(NULL, 0), "pcl_counters__poll");
	FAILS_NULL(pcl_watch(NULL, NULL), "pcl_watch");
	FAILS(pcl_self_symbol(NULL, &addr, &size), "pcl_self_symbol");
	FAILS(pcl_mmap_page_read(NULL, &cnt), "pcl_mmap_page_read");
	/* sys, pmu, events */
	FAILS(pcl_sys_probe(NULL), "pcl_sys_probe");
	FAILS(pcl_sys_probe(&caps), "pcl_sys_caps");
	FAILS(pcl_perf_event_open(NULL, 0, -1, -1, 0), "pcl_perf_event_open");
	FAILS_NULL(pcl_pmu__find("no-such-pmu"), "no-such-pmu");
	FAILS_NULL(pcl_pmu__find_by_type(0x7ffffff0u), "pcl_pmu__find_by_type");
	FAILS_NULL(pcl_pmu_register(NULL), "pcl_pmu_register");
	FAILS(pcl_pmu_format_encode(0x1, 5, &cfg), "pcl_pmu_format_encode");
	FAILS(pcl_event_probe(NULL), "pcl_event_probe");
	/* rings, records, perf.data */
	FAILS_NULL(pcl_ring__mmap(-1, 3, false), "pcl_ring__mmap");
	/* failures of the system calls behind the arguments: their own message too */
	null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	assert_true(null_fd >= 0);
	FAILS_NULL(pcl_ring__mmap(null_fd, 4, false), "pcl_ring__mmap");
	FAILS(pcl_ring_set_output(null_fd, null_fd), "pcl_ring_set_output");
	close(null_fd);
	FAILS(pcl_ring__read_begin(NULL), "pcl_ring__read_begin");
	FAILS(pcl_record_decode(&hdr, sizeof(hdr), &attr, &rec), "pcl_record_decode");
	FAILS(pcl_record_decode(NULL, 0, NULL, &rec), "pcl_record_decode");
	FAILS_NULL(pcl_data_reader__open("/nonexistent/perf.data"), "/nonexistent/perf.data");
	FAILS_NULL(pcl_data_writer__create(NULL, NULL, 0), "pcl_data_writer__create");
	FAILS(pcl_data_writer__write(NULL, NULL), "pcl_data_writer__write");
	FAILS(pcl_data_writer__close(NULL), "pcl_data_writer__close");
	FAILS_NULL(pcl_data_events__new(NULL, false), "pcl_data_events__new");
	FAILS(pcl_feature_parse_strings("\x05\0\0\0", 4, &strs), "pcl_feature_parse_strings");
	FAILS(pcl_build_id_read("/nonexistent/file", (uint8_t[20]){ 0 }), "pcl_build_id_read");
	FAILS_NULL(pcl_session__open(NULL, NULL, NULL, NULL, NULL, 0, NULL), "pcl_session__open");
	FAILS(pcl_session__close(NULL, NULL), "pcl_session__close");
	FAILS_NULL(pcl_stat__new(NULL, NULL), "pcl_stat__new");
	FAILS(pcl_region_begin(NULL), "pcl_region_begin");
	FAILS(pcl_synthesize_process(-1, &attr, 0, false, NULL, NULL), "pcl_synthesize_process");
	FAILS(pcl_synthesize_processes(NULL, &attr, 0, false, NULL, NULL), "pcl_synthesize_processes");
	/* the analysis, without its object */
	FAILS(pcl_resolver__sample(NULL, &rec, NULL), "pcl_resolver__sample");
	FAILS(pcl_hists__add(NULL, NULL, 0, 1), "pcl_hists__add");
	FAILS(pcl_profile__add(NULL, NULL, 0, 0, 1), "pcl_profile__add");
	FAILS(pcl_profile__add_switch(NULL, NULL, 0, false, false), "pcl_profile__add_switch");
	FAILS(pcl_flame__build(&flame, NULL, false, -1), "pcl_flame__build");
	/* the exports, without a profile */
	FAILS(pcl_export_folded(stdout, NULL, NULL), "pcl_export_folded");
	FAILS(pcl_export_flamegraph(stdout, NULL, NULL), "pcl_export_flamegraph");
	FAILS(pcl_export_html(stdout, NULL, NULL), "pcl_export_html");
	FAILS(pcl_export_firefox(stdout, NULL, NULL), "pcl_export_firefox");
	FAILS(pcl_export_speedscope(stdout, NULL, NULL), "pcl_export_speedscope");
	FAILS(pcl_export_pprof(stdout, NULL, NULL), "pprof");
	pcl_evlist__free(el);
	assert_int_equal(bad, 0);
}

/*
 * ---- the option-struct policy ----
 * Each row calls one function with an option struct of a given size taken
 * from a buffer larger than the library's struct; returns < 0 on failure.
 */
union big {
	unsigned char b[512];
	size_t sz;
	max_align_t align;
};

static int call_counters(const void *o)
{
	struct pcl_counters *c = pcl_counters__new("task-clock", o);

	pcl_counters__free(c);
	return c ? 0 : -errno;
}

static int call_target(const void *o)
{
	struct pcl_evlist *el = pcl_evlist__new();
	char tid[16];
	union big t;
	int ret;

	/* the target names this thread; the rest of the caller's bytes are the row's */
	memcpy(&t, o ? o : &(union big){ .sz = 0 }, sizeof(t));
	snprintf(tid, sizeof(tid), "%d", (int)gettid());
	if (t.sz >= offsetof(struct pcl_target, tid) + sizeof(char *))
		((struct pcl_target *)&t)->tid = tid;
	ret = pcl_evlist__add(el, "task-clock", NULL);
	if (ret >= 0)
		ret = pcl_evlist__open(el, o ? (const struct pcl_target *)&t : NULL, NULL);
	pcl_evlist__free(el);
	return ret;
}

static void ov_fn(struct pcl_counters *c, int idx, const struct pcl_sample *s, void *arg)
{
	(void)c;
	(void)idx;
	(void)s;
	(void)arg;
}

static int call_overflow(const void *o)
{
	struct pcl_counters *c = pcl_counters__new("task-clock", NULL);
	union big ov;
	int ret;

	memcpy(&ov, o ? o : &(union big){ .sz = 0 }, sizeof(ov));
	/* the fields every valid call needs, when the row's size covers them */
	if (ov.sz >= offsetof(struct pcl_overflow, arg)) {
		((struct pcl_overflow *)&ov)->period = 1000;
		((struct pcl_overflow *)&ov)->fn = ov_fn;
	}
	ret = pcl_counters__set_overflow(c, 0, o ? (const struct pcl_overflow *)&ov : NULL);
	pcl_counters__free(c);
	return ret;
}

static int call_session(const void *o)
{
	struct pcl_target t = { .sz = sizeof(t) };
	struct pcl_evlist *el = pcl_evlist__new();
	struct pcl_session *s;
	char path[] = "/tmp/pcl-test-api-XXXXXX";
	int fd = mkstemp(path), ret;
	char tid[16];

	close(fd);
	snprintf(tid, sizeof(tid), "%d", (int)gettid());
	t.tid = tid;
	pcl_evlist__add(el, "task-clock", NULL);
	s = pcl_session__open(el, &t, NULL, o, path, 0, NULL);
	ret = s ? 0 : -errno;
	if (s)
		pcl_session__abort(s);
	pcl_evlist__free(el);
	unlink(path);
	return ret;
}

static int call_stat(const void *o)
{
	struct pcl_evlist *el = pcl_evlist__new();
	struct pcl_stat *st = pcl_stat__new(o, el);
	int ret = st ? 0 : -errno;

	pcl_stat__free(st);
	pcl_evlist__free(el);
	return ret;
}

static void watch_fn(const struct pcl_watch_hit *hit, void *arg)
{
	(void)hit;
	(void)arg;
}

static int call_watch_symbol(const void *o)
{
	union big w;

	/* a missing function makes a call fail after the options are taken: EINVAL too,
	 * so the function is set whenever the row's size covers it */
	memcpy(&w, o ? o : &(union big){ .sz = 0 }, sizeof(w));
	if (w.sz >= offsetof(struct pcl_watch_opts, arg))
		((struct pcl_watch_opts *)&w)->fn = watch_fn;
	/* no such symbol: -ENOENT once the options passed, -EINVAL when refused */
	if (!pcl_watch_symbol("pcl_test_api_no_such_symbol", o ? (void *)&w : NULL))
		return errno == ENOENT ? 0 : -errno;
	return -EPROTO;
}

static int call_hists(const void *o)
{
	struct pcl_hists *h = pcl_hists__new(o);

	pcl_hists__free(h);
	return h ? 0 : -errno;
}

struct opts_row {
	const char *type;
	size_t size;  /* this library's sizeof */
	size_t older; /* a smaller size an older caller may pass */
	bool null_ok; /* NULL means defaults */
	int (*call)(const void *o);
};

static void test_opts_policy(void **state)
{
	const struct opts_row rows[] = {
		{ "pcl_counters_opts", sizeof(struct pcl_counters_opts),
		  offsetof(struct pcl_counters_opts, no_rdpmc), true, call_counters },
		/* a NULL target is the defaults, which name nothing to count without a workload */
		{ "pcl_target", sizeof(struct pcl_target),
		  offsetof(struct pcl_target, ignore_missing), false, call_target },
		{ "pcl_overflow", sizeof(struct pcl_overflow), sizeof(struct pcl_overflow), false,
		  call_overflow },
		{ "pcl_session_opts", sizeof(struct pcl_session_opts),
		  offsetof(struct pcl_session_opts, clockid), true, call_session },
		{ "pcl_stat_config", sizeof(struct pcl_stat_config),
		  offsetof(struct pcl_stat_config, workload), true, call_stat },
		{ "pcl_watch_opts", sizeof(struct pcl_watch_opts), sizeof(struct pcl_watch_opts),
		  true, call_watch_symbol },
		{ "pcl_hist_opts", sizeof(struct pcl_hist_opts), sizeof(size_t), true, call_hists },
	};
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		const struct opts_row *r = &rows[i];
		union big o;
		int ret;

		/* this library's size, zero-filled: accepted */
		memset(&o, 0, sizeof(o));
		o.sz = r->size;
		bad += differ(r->type, "own size", (uint64_t)r->call(&o), 0);
		/* an older, smaller struct: accepted */
		o.sz = r->older;
		bad += differ(r->type, "older size", (uint64_t)r->call(&o), 0);
		/* a newer, larger struct with zero trailing bytes: accepted */
		o.sz = r->size + 16;
		bad += differ(r->type, "larger, zero tail", (uint64_t)r->call(&o), 0);
		/* ... with a non-zero byte past the library's struct: refused, and said so */
		o.b[r->size + 9] = 1;
		set_sentinel();
		ret = r->call(&o);
		bad += differ(r->type, "larger, non-zero tail", (uint64_t)ret, (uint64_t)-EINVAL);
		if (ret == -EINVAL)
			bad += msg_check(r->type, r->type);
		o.b[r->size + 9] = 0;
		/* sz 0 (not set up with PCL_OPTS): refused */
		o.sz = 0;
		set_sentinel();
		ret = r->call(&o);
		bad += differ(r->type, "sz 0", (uint64_t)ret, (uint64_t)-EINVAL);
		if (ret == -EINVAL)
			bad += msg_check(r->type, "sz 0");
		/* NULL: the defaults, or -EINVAL where the struct is required */
		bad += differ(r->type, "NULL", (uint64_t)r->call(NULL),
			      r->null_ok ? 0 : (uint64_t)-EINVAL);
	}
	assert_int_equal(bad, 0);
}

/* A struct the library fills: filled up to the caller's sz, nothing past it. */
static void test_opts_filled(void **state)
{
	union big o;
	size_t older = offsetof(struct pcl_sys_caps, tracefs);

	(void)state;
	memset(&o, 0xa5, sizeof(o));
	o.sz = older;
	assert_int_equal(pcl_sys_probe((struct pcl_sys_caps *)&o), 0);
	assert_int_equal(o.sz, older);
	for (size_t i = older; i < sizeof(o); i++)
		if (o.b[i] != 0xa5)
			fail_msg("byte %zu past an older caller's struct was written", i);
	memset(&o, 0xa5, sizeof(o));
	o.sz = sizeof(struct pcl_sys_caps) + 8;
	assert_int_equal(pcl_sys_probe((struct pcl_sys_caps *)&o), 0);
	assert_int_equal(o.sz, sizeof(struct pcl_sys_caps));
	for (size_t i = sizeof(struct pcl_sys_caps); i < sizeof(struct pcl_sys_caps) + 8; i++)
		assert_int_equal(o.b[i], 0);
	assert_int_equal(o.b[sizeof(struct pcl_sys_caps) + 8], 0xa5);
}

/* PCL_OPTS: sz set, named fields set, everything else zero (padding too). */
static void test_opts_macro(void **state)
{
	(void)state;
	{
		PCL_OPTS(pcl_overflow, ov, .period = 7, .notify = PCL_NOTIFY_POLL);
		const unsigned char *b = (const unsigned char *)&ov;
		struct pcl_overflow want;

		assert_int_equal(ov.sz, sizeof(struct pcl_overflow));
		assert_int_equal(ov.period, 7);
		assert_int_equal(ov.notify, PCL_NOTIFY_POLL);
		memset(&want, 0, sizeof(want));
		want.sz = sizeof(want);
		want.period = 7;
		want.notify = PCL_NOTIFY_POLL;
		assert_memory_equal(b, &want, sizeof(want));
	}
	{
		PCL_OPTS(pcl_counters_opts, co);

		assert_int_equal(co.sz, sizeof(struct pcl_counters_opts));
		assert_int_equal(co.scope, PCL_SCOPE_SELF);
		assert_false(co.group);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		UNIT_TEST(test_failures_set_their_message),
		UNIT_TEST(test_opts_policy),
		UNIT_TEST(test_opts_filled),
		UNIT_TEST(test_opts_macro),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
