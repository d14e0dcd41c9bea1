/* SPDX-License-Identifier: MIT */
/*
 * The resolver on --call-graph dwarf samples (lib/analysis/resolve.c): perf
 * records tests/workloads/hot-nofp (no frame pointers) with --call-graph
 * dwarf once, and each test reads the file through the machine, the
 * symbolizer and the resolver, as pcl report does.
 *   - with the reader: user chains unwound, hot_leaf's callers are middle,
 *     outer, main; samples with one chain id have the same frames;
 *   - without it: nothing unwound, and every such sample counted;
 *   - perf's rules for the recorded part: a chain with a frame-pointer user
 *     part keeps it, then the unwound part follows; a chain with an unknown
 *     context marker is dropped, the unwound part still there.
 */
#include "unit.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <pcl/analysis.h>
#include <pcl/data.h>

#define MAX_IDS	  4096
#define MAX_DEPTH 160
/* enough samples for the shares below to mean something */
#define MIN_SAMPLES 50

static char dir[] = "/tmp/pcl-resolve-dwarf-XXXXXX";
static char file[sizeof(dir) + 16];

/* The number of samples in @path (0 when it cannot be read). */
static unsigned int count_samples(const char *path)
{
	struct pcl_data_reader *r = pcl_data_reader__open(path);
	struct pcl_data_events *evs = r ? pcl_data_events__new(r, true) : NULL;
	struct pcl_data_event ev;
	unsigned int n = 0;

	while (evs && pcl_data_events__next(evs, &ev) > 0)
		n += ev.decoded && ev.rec.type == PERF_RECORD_SAMPLE;
	pcl_data_events__free(evs);
	if (r)
		pcl_data_reader__close(r);
	return n;
}

static int setup(void **state)
{
	char exe[PATH_MAX], wl[PATH_MAX + 32];

	(void)state;
	unit_exe_dir(exe, sizeof(exe));
	snprintf(wl, sizeof(wl), "%s/workloads/hot-nofp", exe);
	if (access(wl, X_OK) != 0 || system("perf --version >/dev/null 2>&1") != 0)
		return 0; /* each test skips */
	if (!mkdtemp(dir))
		return -1;
	snprintf(file, sizeof(file), "%s/perf.data", dir);
	/*
	 * hot-nofp runs for a wall-clock time; on a loaded machine it gets a
	 * small share of a CPU and so few samples. Record longer until the
	 * file has the MIN_SAMPLES test_unwound needs (300 ms is plenty on an
	 * idle machine).
	 */
	for (int ms = 300; ms <= 4800; ms *= 4) {
		if (unit_sh("PERF_BUILDID_DIR=%s perf record -q -N -e task-clock -c 1000000 "
			    "--call-graph dwarf -o %s %s %d >/dev/null 2>&1",
			    dir, file, wl, ms) != 0) {
			file[0] = '\0';
			break;
		}
		if (count_samples(file) >= MIN_SAMPLES)
			break;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (strcmp(dir, "/tmp/pcl-resolve-dwarf-XXXXXX"))
		unit_remove_dir(dir);
	return 0;
}

struct session {
	struct pcl_data_reader *r;
	struct pcl_data_events *evs;
	struct pcl_machine *m;
	struct pcl_symbols *s;
	struct pcl_resolver *res;
};

static void open_session(struct session *ss, bool reader)
{
	if (!file[0]) {
		print_message("# skip: no perf, or no hot-nofp (make tests builds it)\n");
		skip();
	}
	ss->r = pcl_data_reader__open(file);
	assert_non_null(ss->r);
	ss->evs = pcl_data_events__new(ss->r, true);
	ss->m = pcl_machine__new();
	ss->s = pcl_symbols__new(NULL);
	ss->res = pcl_resolver__new(ss->m, ss->s);
	assert_true(ss->evs && ss->m && ss->s && ss->res);
	if (reader)
		pcl_resolver__set_reader(ss->res, ss->r);
}

/* The next sample, the machine fed with what comes before it; false at the end. */
static bool next_sample(struct session *ss, struct pcl_data_event *ev)
{
	while (pcl_data_events__next(ss->evs, ev) > 0) {
		if (!ev->decoded)
			continue;
		if (ev->rec.type == PERF_RECORD_SAMPLE)
			return true;
		assert_int_equal(pcl_machine__process(ss->m, &ev->rec), 0);
	}
	return false;
}

static void close_session(struct session *ss)
{
	pcl_resolver__free(ss->res);
	pcl_symbols__free(ss->s);
	pcl_machine__free(ss->m);
	pcl_data_events__free(ss->evs);
	pcl_data_reader__close(ss->r);
}

static const char *sym(const struct pcl_frame *f)
{
	return f->sym ? f->sym->name : "?";
}

/* The user frames of @rs: those after its kernel ones. */
static size_t first_user(const struct pcl_resolved *rs)
{
	size_t i = 0;

	while (i < rs->nr_chain && rs->chain[i].level == 'k')
		i++;
	return i;
}

static void test_unwound(void **state)
{
	static struct {
		uint64_t id, ip;
		size_t nr;
		uint64_t ips[MAX_DEPTH];
	} seen[MAX_IDS];
	struct session ss;
	struct pcl_data_event ev;
	struct pcl_unwind_stats st;
	unsigned int n = 0, hot = 0, nseen = 0, same = 0;

	(void)state;
	open_session(&ss, true);
	while (next_sample(&ss, &ev)) {
		struct pcl_resolved rs;
		size_t u;

		assert_int_equal(pcl_resolver__sample(ss.res, &ev.rec, &rs), 0);
		n++;
		u = first_user(&rs);
		if (u < rs.nr_chain && !strcmp(sym(&rs.chain[u]), "hot_leaf")) {
			assert_true(rs.nr_chain - u >= 4);
			assert_string_equal(sym(&rs.chain[u + 1]), "middle");
			assert_string_equal(sym(&rs.chain[u + 2]), "outer");
			assert_string_equal(sym(&rs.chain[u + 3]), "main");
			hot++;
		}
		assert_true(rs.chain_id != 0 && rs.nr_chain <= MAX_DEPTH);
		/* one id, one chain: the memo is keyed by the chain built, not the recorded one */
		for (unsigned int i = 0; i < nseen; i++) {
			if (seen[i].id != rs.chain_id)
				continue;
			assert_int_equal(seen[i].ip, rs.ip.ip);
			assert_int_equal(seen[i].nr, rs.nr_chain);
			for (size_t k = 0; k < rs.nr_chain; k++)
				assert_int_equal(seen[i].ips[k], rs.chain[k].ip);
			same++;
			goto next;
		}
		if (nseen < MAX_IDS) {
			seen[nseen].id = rs.chain_id;
			seen[nseen].ip = rs.ip.ip;
			seen[nseen].nr = rs.nr_chain;
			for (size_t k = 0; k < rs.nr_chain; k++)
				seen[nseen].ips[k] = rs.chain[k].ip;
			nseen++;
		}
next:;
	}
	pcl_resolver__unwind_stats(ss.res, &st);
	print_message("# %u samples, %u in hot_leaf, %u chain ids, %u repeated; unwound %" PRIu64
		      ", %" PRIu64 " complete, %" PRIu64 " from cached rules\n",
		      n, hot, nseen, same, st.samples, st.status[PCL_UNWIND_COMPLETE], st.fast);
	assert_true(n >= MIN_SAMPLES);
	assert_true(hot * 2 >= n);
	assert_int_equal(st.samples + st.no_user_stack, n);
	assert_true(st.status[PCL_UNWIND_COMPLETE] * 10 >= st.samples * 9);
	assert_int_equal(st.no_reader, 0);
	close_session(&ss);
}

static void test_no_reader(void **state)
{
	struct session ss;
	struct pcl_data_event ev;
	struct pcl_unwind_stats st;
	unsigned int n = 0;

	(void)state;
	open_session(&ss, false);
	while (next_sample(&ss, &ev)) {
		struct pcl_resolved rs;

		assert_int_equal(pcl_resolver__sample(ss.res, &ev.rec, &rs), 0);
		/* perf's dwarf mode records no user part: nothing but the kernel's */
		assert_int_equal(first_user(&rs), rs.nr_chain);
		n++;
	}
	pcl_resolver__unwind_stats(ss.res, &st);
	assert_int_equal(st.samples, 0);
	assert_int_equal(st.no_reader + st.no_user_stack, n);
	assert_true(st.no_reader > 0);
	close_session(&ss);
}

/*
 * Resolve @rec as recorded, then with @raw as its callchain: the second
 * chain must be @keep frames of @raw (resolved) followed by the first one.
 */
static void check_rechained(struct session *ss, const struct pcl_record *rec, const uint64_t *raw,
			    uint64_t nr, size_t keep)
{
	uint64_t want[MAX_DEPTH];
	struct pcl_record copy = *rec;
	struct pcl_resolved a, b;

	assert_int_equal(pcl_resolver__sample(ss->res, rec, &a), 0);
	assert_true(a.nr_chain > 1 && a.nr_chain <= MAX_DEPTH);
	for (size_t k = 0; k < a.nr_chain; k++)
		want[k] = a.chain[k].ip;
	copy.sample.sample_type |= PERF_SAMPLE_CALLCHAIN;
	copy.sample.callchain = raw;
	copy.sample.nr_callchain = nr;
	assert_int_equal(pcl_resolver__sample(ss->res, &copy, &b), 0);
	assert_int_equal(b.nr_chain, keep + a.nr_chain);
	for (size_t k = 0; k < a.nr_chain; k++)
		assert_int_equal(b.chain[keep + k].ip, want[k]);
	assert_true(keep == 0 || b.chain_id != a.chain_id);
}

static void test_recorded_part(void **state)
{
	struct session ss;
	struct pcl_data_event ev;
	bool found = false;

	(void)state;
	open_session(&ss, true);
	while (!found && next_sample(&ss, &ev)) {
		const struct pcl_sample *s = &ev.rec.sample;
		uint64_t fp[3], bad[3];
		struct pcl_resolved rs;

		if ((ev.rec.misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_USER ||
		    !s->user_stack_dyn_size) {
			assert_int_equal(pcl_resolver__sample(ss.res, &ev.rec, &rs), 0);
			continue;
		}
		/* a frame-pointer user part (the IP and one caller): kept, then the unwound */
		fp[0] = PERF_CONTEXT_USER;
		fp[1] = s->ip;
		fp[2] = s->ip + 1;
		check_rechained(&ss, &ev.rec, fp, 3, 2);
		/* an unknown context marker: perf drops the recorded chain, not the unwound */
		bad[0] = PERF_CONTEXT_KERNEL;
		bad[1] = s->ip;
		bad[2] = (uint64_t)-1;
		check_rechained(&ss, &ev.rec, bad, 3, 0);
		found = true;
	}
	assert_true(found);
	close_session(&ss);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		UNIT_TEST(test_unwound),
		UNIT_TEST(test_no_reader),
		UNIT_TEST(test_recorded_part),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
