/* SPDX-License-Identifier: MIT */
/*
 * Regions (pcl_region_begin/end) counted with events this VM really counts,
 * so the numbers are exact: page-faults (a region touching N fresh pages),
 * and the tracepoint syscalls:sys_enter_getppid (a region calling getppid()
 * K times). Nesting, many threads, threads that exit, misuse, and the dumps
 * at exit (PCL_REGIONS=json/text in a child process that runs this binary
 * again as "dump-child").
 *
 * Built under ThreadSanitizer too (build/tsan, make check): the threads
 * tests are its matter.
 */
#include <errno.h>
#include <ctype.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <pcl/pcl.h>
#include <pcl/counters.h>
#include <pcl/region.h>
#include "unit.h"

#define TP "syscalls:sys_enter_getppid"
#define EVENTS "page-faults," TP ",cycles"

static bool have_tp;
static char self_exe[4096];

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* K getppid() syscalls, never cached by libc. */
static void getppid_n(int k)
{
	for (int i = 0; i < k; i++)
		syscall(SYS_getppid);
}

static int event_index(const char *name)
{
	for (int i = 0; i < pcl_regions_nr_events(); i++)
		if (!strcmp(pcl_regions_event(i), name))
			return i;
	return -1;
}

/* The values of region @name of thread @tid, by event name. */
struct find {
	const char *name;
	pid_t tid;
	int found;
	uint64_t calls;
	double pf, tp;
	bool has_pf, has_tp;
};

static int find_cb(const struct pcl_region_stats *s, void *arg)
{
	struct find *f = arg;

	if (strcmp(s->name, f->name) || s->tid != f->tid)
		return 0;
	f->found++;
	f->calls = s->calls;
	for (int i = 0; i < s->nr_events; i++) {
		if (!strcmp(s->events[i], "page-faults")) {
			f->pf = s->values[i];
			f->has_pf = true;
		} else if (!strcmp(s->events[i], TP)) {
			f->tp = s->values[i];
			f->has_tp = true;
		}
	}
	return 0;
}

static struct find find_region(const char *name, pid_t tid)
{
	struct find f = { .name = name, .tid = tid };

	assert_int_equal(pcl_regions_foreach(find_cb, &f), 0);
	return f;
}

static void need_tp(void)
{
	if (!have_tp) {
		print_message("no tracepoint " TP " (tracefs)\n");
		skip();
	}
}

/* ---- events ---- */

static void test_events(void **state)
{
	(void)state;
	assert_int_equal(pcl_region_begin("events"), 0);
	assert_int_equal(pcl_region_end("events"), 0);
	/* cycles opens only with a hardware PMU; unsupported events are left out */
	assert_true(event_index("page-faults") >= 0);
	assert_int_equal(event_index(TP) >= 0, have_tp);
	{
		struct pcl_counters_opts o = { .sz = sizeof(o), .scope = PCL_SCOPE_THREAD };
		struct pcl_counters *c = pcl_counters__new_open("cycles", &o);
		bool hw = c && pcl_counters__supported(c, 0);

		pcl_counters__free(c);
		assert_int_equal(event_index("cycles") >= 0, hw);
	}
	assert_null(pcl_regions_event(pcl_regions_nr_events()));
	assert_null(pcl_regions_event(-1));
	/* a typo fails at set time, with the parser's message */
	assert_true(pcl_regions_set_events("page-fautls") < 0);
	assert_true(strlen(pcl_last_error()) > 0);
}

/* ---- exact counts ---- */

static void test_page_faults(void **state)
{
	const int n = 64;
	long pg = sysconf(_SC_PAGESIZE);
	int idx = event_index("page-faults");
	double v[8];
	char *p;

	(void)state;
	if (idx < 0) {
		assert_int_equal(pcl_region_begin("warm"), 0);
		assert_int_equal(pcl_region_end("warm"), 0);
		idx = event_index("page-faults");
	}
	assert_true(idx >= 0 && idx < 8);
	p = mmap(NULL, (size_t)(n + 2) * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	assert_true(p != MAP_FAILED);
	madvise(p, (size_t)(n + 2) * pg, MADV_NOHUGEPAGE);
	/* warm the code path (lazy binding, stack) once on a page of its own */
	assert_int_equal(pcl_region_begin("pf-warm"), 0);
	p[(size_t)(n + 1) * pg] = 1;
	assert_int_equal(pcl_region_end("pf-warm"), 0);

	assert_int_equal(pcl_region_begin("pf"), 0);
	for (int i = 0; i < n; i++)
		((volatile char *)p)[(size_t)i * pg] = 1;
	assert_int_equal(pcl_region_end("pf"), 0);
	assert_int_equal(pcl_region_total("pf", v, 8), 1);
	print_message("# %d fresh pages: %.0f page-faults\n", n, v[idx]);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	/* the sanitizer's shadow of the pages faults in too (ASan n/8, TSan ~2n) */
	assert_true(v[idx] >= n && v[idx] <= 4 * n);
#else
	/* exact: the library takes no fault of its own between its two reads */
	assert_true(v[idx] == n);
#endif
	munmap(p, (size_t)(n + 2) * pg);
}

static void test_tracepoint(void **state)
{
	const int k = 1234;
	double v[8];

	(void)state;
	need_tp();
	for (int r = 1; r <= 3; r++) {
		assert_int_equal(pcl_region_begin("tp"), 0);
		getppid_n(k);
		assert_int_equal(pcl_region_end("tp"), 0);
		assert_int_equal(pcl_region_total("tp", v, 8), r);
		assert_true(v[event_index(TP)] == (double)k * r);
	}
	/* the thread's view agrees with the total */
	struct find f = find_region("tp", gettid_());

	assert_int_equal(f.found, 1);
	assert_int_equal(f.calls, 3);
	assert_true(f.has_tp && f.tp == 3.0 * k);
}

static void test_nested(void **state)
{
	double v[8];
	int tp;

	(void)state;
	need_tp();
	tp = event_index(TP);
	for (int r = 0; r < 2; r++) {
		assert_int_equal(pcl_region_begin("outer"), 0);
		getppid_n(10);
		assert_int_equal(pcl_region_begin("inner"), 0);
		getppid_n(20);
		assert_int_equal(pcl_region_begin("innermost"), 0);
		getppid_n(5);
		assert_int_equal(pcl_region_end("innermost"), 0);
		assert_int_equal(pcl_region_end("inner"), 0);
		getppid_n(30);
		assert_int_equal(pcl_region_end("outer"), 0);
	}
	assert_int_equal(pcl_region_total("innermost", v, 8), 2);
	assert_true(v[tp] == 2 * 5);
	assert_int_equal(pcl_region_total("inner", v, 8), 2);
	assert_true(v[tp] == 2 * 25);
	assert_int_equal(pcl_region_total("outer", v, 8), 2);
	assert_true(v[tp] == 2 * 65);
	/* regions are listed in the order they first ended */
	assert_int_equal(pcl_region_total("never", v, 8), -ENOENT);
}

/* ---- threads ---- */

#define NR_THREADS 8
#define PAIRS 1000

struct worker {
	int id;
	pid_t tid;
	int err;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	w->tid = gettid_();
	for (int i = 0; i < PAIRS && !w->err; i++) {
		w->err = pcl_region_begin("mt");
		if (w->err)
			break;
		/* thread id getppid calls per pair, so each thread's count is its own */
		getppid_n(w->id + 1);
		if (i % 10 == 0) {
			w->err = pcl_region_begin("mt-inner");
			getppid_n(1);
			if (!w->err)
				w->err = pcl_region_end("mt-inner");
		}
		if (!w->err)
			w->err = pcl_region_end("mt");
	}
	return NULL;
}

/* Reads all along while the workers count, so TSan sees readers and writers meet. */
static void *reader_main(void *arg)
{
	volatile int *stop = arg;
	double v[8];

	while (!__atomic_load_n(stop, __ATOMIC_ACQUIRE)) {
		struct find f = { .name = "mt", .tid = 0 };
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);

		pcl_regions_foreach(find_cb, &f);
		pcl_region_total("mt", v, 8);
		pcl_regions_write(m, PCL_REGIONS_JSON);
		fclose(m);
		free(buf);
		usleep(1000);
	}
	return NULL;
}

static void test_threads(void **state)
{
	struct worker w[NR_THREADS];
	pthread_t th[NR_THREADS], rd;
	int stop = 0, tp = event_index(TP);
	double v[8];
	uint64_t want_tp = 0;

	(void)state;
	assert_int_equal(pthread_create(&rd, NULL, reader_main, &stop), 0);
	for (int i = 0; i < NR_THREADS; i++) {
		w[i] = (struct worker){ .id = i };
		assert_int_equal(pthread_create(&th[i], NULL, worker_main, &w[i]), 0);
	}
	for (int i = 0; i < NR_THREADS; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(rd, NULL), 0);

	/* the threads have exited: their counts stay */
	for (int i = 0; i < NR_THREADS; i++) {
		struct find f = find_region("mt", w[i].tid), g = find_region("mt-inner", w[i].tid);
		double want = (double)PAIRS * (i + 1) + PAIRS / 10;

		assert_int_equal(w[i].err, 0);
		assert_int_equal(f.found, 1);
		assert_int_equal(f.calls, PAIRS);
		assert_int_equal(g.calls, PAIRS / 10);
		if (have_tp) {
			if (f.tp != want)
				print_message("thread %d: %.0f getppid, expected %.0f\n", i, f.tp,
					      want);
			assert_true(f.tp == want);
			assert_true(g.tp == PAIRS / 10);
		}
		want_tp += (uint64_t)want;
	}
	assert_int_equal(pcl_region_total("mt", v, 8), NR_THREADS * PAIRS);
	if (have_tp)
		assert_true(v[tp] == (double)want_tp);
}

static void *exiting_main(void *arg)
{
	pid_t *tid = arg;

	*tid = gettid_();
	pcl_region_begin("gone");
	getppid_n(7);
	pcl_region_end("gone");
	/* left open at exit: dropped, not counted */
	pcl_region_begin("open-at-exit");
	return NULL;
}

static void test_thread_exit(void **state)
{
	pthread_t th;
	pid_t tid = 0;

	(void)state;
	assert_int_equal(pthread_create(&th, NULL, exiting_main, &tid), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	struct find f = find_region("gone", tid);

	assert_int_equal(f.found, 1);
	assert_int_equal(f.calls, 1);
	if (have_tp)
		assert_true(f.tp == 7);
	assert_int_equal(find_region("open-at-exit", tid).found, 0);
}

/* A thread begun after pcl_regions_set_events() counts the new list. */
static void *one_event_main(void *arg)
{
	pid_t *tid = arg;

	*tid = gettid_();
	pcl_region_begin("one-event");
	getppid_n(3);
	pcl_region_end("one-event");
	return NULL;
}

static int events_of_cb(const struct pcl_region_stats *s, void *arg)
{
	struct find *f = arg;

	if (s->tid == f->tid && !strcmp(s->name, f->name))
		f->found = s->nr_events;
	return 0;
}

static void test_set_events(void **state)
{
	struct find f = { .name = "one-event" };
	pthread_t th;
	double v[8];

	(void)state;
	need_tp();
	assert_int_equal(pcl_regions_set_events(TP), 0);
	assert_int_equal(pthread_create(&th, NULL, one_event_main, &f.tid), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(pcl_regions_set_events(EVENTS), 0);
	assert_int_equal(pcl_regions_foreach(events_of_cb, &f), 0);
	assert_int_equal(f.found, 1);
	assert_int_equal(pcl_region_total("one-event", v, 8), 1);
	assert_true(v[event_index(TP)] == 3);
	assert_true(v[event_index("page-faults")] == 0);
}

/* ---- misuse ---- */

static void test_mismatch(void **state)
{
	char *copy = strdup("mm-a");
	double v[8];

	(void)state;
	assert_int_equal(pcl_region_end("mm-a"), -EINVAL); /* nothing open */
	assert_int_equal(pcl_region_begin("mm-a"), 0);
	assert_int_equal(pcl_region_begin("mm-b"), 0);
	assert_int_equal(pcl_region_end("mm-a"), -EINVAL); /* not the innermost */
	assert_non_null(strstr(pcl_last_error(), "mm-b"));
	assert_int_equal(pcl_region_end("mm-b"), 0);
	/* the same string at another address is the same region */
	assert_int_equal(pcl_region_end(copy), 0);
	assert_int_equal(pcl_region_end("mm-a"), -EINVAL);
	assert_int_equal(pcl_region_total("mm-a", v, 8), 1);
	assert_int_equal(pcl_region_total(copy, v, 8), 1);
	assert_int_equal(pcl_region_total("mm-b", v, 8), 1);
	assert_int_equal(pcl_region_begin(NULL), -EINVAL);
	assert_int_equal(pcl_region_end(NULL), -EINVAL);
	free(copy);
}

static void test_depth(void **state)
{
	static const char *names[] = { "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7" };
	double v[8];

	(void)state;
	for (int i = 0; i < 64; i++)
		assert_int_equal(pcl_region_begin(names[i % 8]), 0);
	assert_int_equal(pcl_region_begin("d-too-deep"), -E2BIG);
	for (int i = 63; i >= 0; i--)
		assert_int_equal(pcl_region_end(names[i % 8]), 0);
	assert_int_equal(pcl_region_end("d0"), -EINVAL);
	assert_int_equal(pcl_region_total("d0", v, 8), 8);
	assert_int_equal(pcl_region_total("d-too-deep", v, 8), -ENOENT);
}

/* Many names in one thread: the per-thread table grows, every name keeps its own counts. */
static void test_many_names(void **state)
{
	static char names[300][16];
	double v[8];

	(void)state;
	for (int i = 0; i < 300; i++)
		snprintf(names[i], sizeof(names[i]), "many-%d", i);
	for (int r = 0; r < 3; r++)
		for (int i = 0; i < 300; i++) {
			assert_int_equal(pcl_region_begin(names[i]), 0);
			assert_int_equal(pcl_region_end(names[i]), 0);
		}
	for (int i = 0; i < 300; i += 37)
		assert_int_equal(pcl_region_total(names[i], v, 8), 3);
}

/* ---- fork ---- */

static void test_fork(void **state)
{
	pid_t pid;
	int st;

	(void)state;
	need_tp();
	assert_int_equal(pcl_region_begin("before-fork"), 0);
	assert_int_equal(pcl_region_end("before-fork"), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		double v[8];
		int bad = 0;

		/* the child starts with no regions, and new counters of its own */
		bad |= pcl_region_total("before-fork", v, 8) != -ENOENT;
		bad |= pcl_region_begin("in-child") != 0;
		getppid_n(11);
		bad |= pcl_region_end("in-child") != 0;
		bad |= pcl_region_total("in-child", v, 8) != 1;
		bad |= v[event_index(TP)] != 11;
		_exit(bad ? 1 : 0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_int_equal(find_region("in-child", gettid_()).found, 0);
}

/* ---- the dump at exit ---- */

#define DUMP_NAME "dump \"q\" \\ x"

static void *dump_thread(void *arg)
{
	(void)arg;
	for (int i = 0; i < 5; i++) {
		pcl_region_begin(DUMP_NAME);
		getppid_n(2);
		pcl_region_end(DUMP_NAME);
	}
	pcl_region_begin("dump-thread-only");
	pcl_region_end("dump-thread-only");
	return NULL;
}

/* The child: 3 threads × 5 calls × 2 getppid, then exit() writes the dump. */
static int dump_child(void)
{
	pthread_t th[2];

	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, dump_thread, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < 5; i++) {
		pcl_region_begin(DUMP_NAME);
		getppid_n(2);
		pcl_region_end(DUMP_NAME);
	}
	return 0;
}

/* Run "self dump-child" with PCL_REGIONS=@fmt; the file's content (caller frees). */
static char *run_dump_child(const char *fmt)
{
	char path[] = "/tmp/pcl-region-XXXXXX";
	int fd = mkstemp(path), st;
	pid_t pid;
	char *buf;
	FILE *f;
	long len;

	assert_true(fd >= 0);
	close(fd);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		setenv("PCL_REGIONS", fmt, 1);
		setenv("PCL_REGIONS_FILE", path, 1);
		setenv("PCL_REGION_EVENTS", "page-faults," TP, 1);
		execl(self_exe, self_exe, "dump-child", (char *)NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	f = fopen(path, "r");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)len + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	unlink(path);
	return buf;
}

/*
 * A small JSON reader: enough to check the dump's structure. Values are
 * kept as a tree of nodes in one array.
 */
enum jtype { J_NULL, J_NUM, J_STR, J_ARR, J_OBJ, J_BOOL };

struct jnode {
	enum jtype type;
	double num;
	char str[128];	 /* J_STR: the decoded string */
	char key[64];	 /* an object's member: its key */
	int first, next; /* child list (J_ARR, J_OBJ) and sibling, -1 = none */
	int nr;		 /* children */
};

struct jparser {
	const char *p;
	struct jnode n[4096];
	int used;
	bool bad;
};

static void jws(struct jparser *j)
{
	while (isspace((unsigned char)*j->p))
		j->p++;
}

static int jnew(struct jparser *j, enum jtype t)
{
	if (j->used == 4096) {
		j->bad = true;
		return 0;
	}
	j->n[j->used] = (struct jnode){ .type = t, .first = -1, .next = -1 };
	return j->used++;
}

static void jstring(struct jparser *j, char *out, size_t len)
{
	size_t o = 0;

	if (*j->p != '"') {
		j->bad = true;
		return;
	}
	for (j->p++; *j->p && *j->p != '"'; j->p++) {
		char ch = *j->p;

		if ((unsigned char)ch < 0x20) {
			j->bad = true;
			return;
		}
		if (ch == '\\') {
			j->p++;
			switch (*j->p) {
			case '"': case '\\': case '/': ch = *j->p; break;
			case 'n': ch = '\n'; break;
			case 't': ch = '\t'; break;
			case 'b': ch = '\b'; break;
			case 'f': ch = '\f'; break;
			case 'r': ch = '\r'; break;
			case 'u':
				for (int k = 1; k <= 4; k++) {
					if (!isxdigit((unsigned char)j->p[k])) {
						j->bad = true;
						return;
					}
				}
				ch = (char)strtol((char[]){ j->p[3], j->p[4], 0 }, NULL, 16);
				j->p += 4;
				break;
			default: j->bad = true; return;
			}
		}
		if (o + 1 < len)
			out[o++] = ch;
	}
	out[o] = 0;
	if (*j->p != '"')
		j->bad = true;
	else
		j->p++;
}

static int jvalue(struct jparser *j)
{
	int id, last = -1;

	jws(j);
	if (j->bad)
		return 0;
	if (*j->p == '{' || *j->p == '[') {
		bool obj = *j->p == '{';
		char key[128];

		id = jnew(j, obj ? J_OBJ : J_ARR);
		j->p++;
		jws(j);
		if (*j->p == (obj ? '}' : ']')) {
			j->p++;
			return id;
		}
		for (;;) {
			int c;

			jws(j);
			if (obj) {
				jstring(j, key, sizeof(key));
				jws(j);
				if (*j->p == ':')
					j->p++;
				else
					j->bad = true;
			}
			if (j->bad)
				return id;
			c = jvalue(j);
			if (j->bad)
				return id;
			if (obj)
				snprintf(j->n[c].key, sizeof(j->n[c].key), "%s", key);
			if (last < 0)
				j->n[id].first = c;
			else
				j->n[last].next = c;
			last = c;
			j->n[id].nr++;
			jws(j);
			if (*j->p == ',') {
				j->p++;
				continue;
			}
			if (*j->p == (obj ? '}' : ']'))
				j->p++;
			else
				j->bad = true;
			return id;
		}
	}
	if (*j->p == '"') {
		id = jnew(j, J_STR);
		jstring(j, j->n[id].str, sizeof(j->n[id].str));
		return id;
	}
	if (!strncmp(j->p, "null", 4)) {
		j->p += 4;
		return jnew(j, J_NULL);
	}
	if (!strncmp(j->p, "true", 4) || !strncmp(j->p, "false", 5)) {
		j->p += *j->p == 't' ? 4 : 5;
		return jnew(j, J_BOOL);
	}
	{
		char *end;
		double d = strtod(j->p, &end);

		if (end == j->p || !(isdigit((unsigned char)*j->p) || *j->p == '-')) {
			j->bad = true;
			return 0;
		}
		id = jnew(j, J_NUM);
		j->n[id].num = d;
		j->p = end;
		return id;
	}
}

/* Member @key of object @obj, or -1. */
static int jget(struct jparser *j, int obj, const char *key)
{
	for (int c = j->n[obj].first; c >= 0; c = j->n[c].next)
		if (!strcmp(j->n[c].key, key))
			return c;
	return -1;
}

static int jat(struct jparser *j, int arr, int i)
{
	int c = j->n[arr].first;

	while (c >= 0 && i--)
		c = j->n[c].next;
	return c;
}

static void test_dump_json(void **state)
{
	static struct jparser j;
	char *buf;
	int root, ev, regions, tp = -1, pf = -1, r = -1;

	(void)state;
	need_tp();
	buf = run_dump_child("json");
	memset(&j, 0, sizeof(j));
	j.p = buf;
	root = jvalue(&j);
	jws(&j);
	if (j.bad || *j.p)
		print_message("bad JSON near offset %ld:\n%s\n", (long)(j.p - buf), buf);
	assert_false(j.bad);
	assert_int_equal(*j.p, 0);
	assert_int_equal(j.n[root].type, J_OBJ);

	ev = jget(&j, root, "events");
	assert_true(ev >= 0 && j.n[ev].type == J_ARR);
	assert_int_equal(j.n[ev].nr, 2); /* PCL_REGION_EVENTS */
	for (int i = 0; i < j.n[ev].nr; i++) {
		const char *name = j.n[jat(&j, ev, i)].str;

		if (!strcmp(name, TP))
			tp = i;
		if (!strcmp(name, "page-faults"))
			pf = i;
	}
	assert_true(tp >= 0 && pf >= 0);
	assert_int_equal(j.n[jget(&j, root, "units")].nr, 2);
	regions = jget(&j, root, "regions");
	assert_true(regions >= 0 && j.n[regions].type == J_ARR);
	assert_int_equal(j.n[regions].nr, 2);
	for (int i = 0; i < j.n[regions].nr; i++) {
		int reg = jat(&j, regions, i), nm = jget(&j, reg, "name");

		assert_true(nm >= 0);
		if (!strcmp(j.n[nm].str, DUMP_NAME))
			r = reg;
	}
	assert_true(r >= 0); /* the name, escaped and read back */
	assert_true(j.n[jget(&j, r, "calls")].num == 15);
	int vals = jget(&j, r, "values"), threads = jget(&j, r, "threads");

	assert_true(j.n[jat(&j, vals, tp)].num == 30);
	assert_true(j.n[jat(&j, vals, pf)].type == J_NUM);
	assert_int_equal(j.n[threads].nr, 3);
	for (int i = 0; i < 3; i++) {
		int t = jat(&j, threads, i);

		assert_true(j.n[jget(&j, t, "tid")].num > 0);
		assert_true(j.n[jget(&j, t, "calls")].num == 5);
		assert_true(j.n[jat(&j, jget(&j, t, "values"), tp)].num == 10);
	}
	free(buf);
}

static void test_dump_text(void **state)
{
	char *buf, *reg, *line;

	(void)state;
	need_tp();
	buf = run_dump_child("text");
	reg = strstr(buf, "Region '" DUMP_NAME "': 15 calls in 3 threads");
	if (!reg)
		print_message("%s", buf);
	assert_non_null(reg);
	line = strstr(reg, TP);
	assert_non_null(line);
	/* "                30      syscalls:sys_enter_getppid  #  2.000 /call" */
	while (line > reg && line[-1] == ' ')
		line--;
	assert_true(line - reg > 2 && line[-1] == '0' && line[-2] == '3' && line[-3] == ' ');
	assert_non_null(strstr(reg, "thread "));
	assert_non_null(strstr(reg, ": 5 calls"));
	assert_non_null(strstr(buf, "Region 'dump-thread-only': 2 calls in 2 threads"));
	free(buf);
}

/* pcl_regions_write() to a memory stream, and reset. */
static void test_write_reset(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	double v[8];

	(void)state;
	assert_int_equal(pcl_region_begin("w"), 0);
	assert_int_equal(pcl_region_end("w"), 0);
	assert_int_equal(pcl_regions_write(m, PCL_REGIONS_TEXT), 0);
	fclose(m);
	assert_non_null(strstr(buf, "Region 'w': 1 call in 1 thread"));
	free(buf);
	assert_int_equal(pcl_regions_write(NULL, PCL_REGIONS_TEXT), -EINVAL);

	pcl_regions_reset();
	assert_int_equal(pcl_region_total("w", v, 8), -ENOENT);
	assert_int_equal(pcl_region_total("mt", v, 8), -ENOENT);
	/* the thread keeps its counters: regions go on */
	assert_int_equal(pcl_region_begin("w"), 0);
	assert_int_equal(pcl_region_end("w"), 0);
	assert_int_equal(pcl_region_total("w", v, 8), 1);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		UNIT_TEST(test_events),
		UNIT_TEST(test_page_faults),
		UNIT_TEST(test_tracepoint),
		UNIT_TEST(test_nested),
		UNIT_TEST(test_threads),
		UNIT_TEST(test_thread_exit),
		UNIT_TEST(test_set_events),
		UNIT_TEST(test_mismatch),
		UNIT_TEST(test_depth),
		UNIT_TEST(test_many_names),
		UNIT_TEST(test_fork),
		UNIT_TEST(test_dump_json),
		UNIT_TEST(test_dump_text),
		UNIT_TEST(test_write_reset),
	};
	ssize_t n;

	if (argc > 1 && !strcmp(argv[1], "dump-child"))
		return dump_child();
	n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
	if (n > 0)
		self_exe[n] = 0;
	{
		char path[512];
		const char *tfs = pcl_tracefs(true);

		snprintf(path, sizeof(path), "%s/events/syscalls/sys_enter_getppid", tfs ? tfs : "");
		have_tp = tfs && access(path, F_OK) == 0;
	}
	if (pcl_regions_set_events(have_tp ? EVENTS : "page-faults,cycles")) {
		print_message("cannot set region events: %s\n", pcl_last_error());
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
