/* SPDX-License-Identifier: MIT */
/*
 * pcl_session through the library alone: record a workload's page faults
 * (one sample each) into a file, read it back with pcl_data_reader, and
 * find what perf report would need: the attr with its ids, the COMM and
 * MMAP2 of the exec, samples decoded with the right pid, the features and
 * the build id of the program that got samples.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <pcl/pcl.h>
#include "unit.h"

static char path[] = "/tmp/pcl-test-session.XXXXXX";

static void record_true(const char *events, struct pcl_session_stats *st, int *status)
{
	char *argv[] = { "/bin/true", NULL };
	struct pcl_target t = { .sz = sizeof(t) };
	/* a sample per page fault: the count is known to be more than a handful */
	struct pcl_session_opts o = { .sz = sizeof(o), .clockid = -1, .period = 1 };
	struct pcl_evlist *el = pcl_evlist__new();
	struct pcl_workload *wl = pcl_workload__prepare(argv);
	struct pcl_session *s;
	char *pargv[] = { "test-session", NULL };

	assert_non_null(el);
	assert_non_null(wl);
	assert_true(pcl_evlist__add(el, events, NULL) > 0);
	s = pcl_session__open(el, &t, wl, &o, path, 1, pargv);
	if (!s)
		print_message("open: %s\n", pcl_last_error());
	assert_non_null(s);
	assert_true(pcl_session__nr_fds(s) >= 1);
	assert_true(pcl_session__fd(s, 0) >= 0);
	assert_int_equal(pcl_evlist__enable(el), 0);
	assert_int_equal(pcl_workload__start(wl), 0);
	assert_true(pcl_workload__wait(wl, status, 0) > 0);
	assert_int_equal(pcl_session__close(s, st), 0);
	pcl_workload__free(wl);
	pcl_evlist__free(el);
}

static void test_record_and_read_back(void **state)
{
	struct pcl_session_stats st;
	struct pcl_data_reader *r;
	const struct perf_event_header *h;
	const struct pcl_data_attr *a;
	int status, samples = 0, comm = 0, mmap_true = 0, fd;
	size_t len;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	record_true("page-faults:u", &st, &status);
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_true(st.samples > 10);
	r = pcl_data_reader__open(path);
	assert_non_null(r);
	assert_false(pcl_data_reader__is_pipe(r));
	assert_int_equal(pcl_data_reader__nr_attrs(r), 1);
	a = pcl_data_reader__attr(r, 0);
	assert_true(a->nr_ids >= 1);
	assert_int_equal(a->attr.sample_period, 1);
	assert_true(a->attr.mmap2 && a->attr.comm && a->attr.task && a->attr.sample_id_all);
	assert_string_equal(a->name, "page-faults:u");
	while ((h = pcl_data_reader__next(r))) {
		struct pcl_record rec;

		if (h->type >= 64)
			continue;
		assert_int_equal(pcl_record_decode(h, h->size, &a->attr, &rec), 0);
		if (rec.type == PERF_RECORD_SAMPLE)
			samples++;
		if (rec.type == PERF_RECORD_COMM && !strcmp(rec.comm.comm, "true"))
			comm++;
		if (rec.type == PERF_RECORD_MMAP2 && strstr(rec.mmap.filename, "/true"))
			mmap_true++;
	}
	assert_int_equal(errno, 0);
	assert_false(pcl_data_reader__truncated(r));
	assert_int_equal((uint64_t)samples, st.samples);
	assert_true(comm >= 1);
	assert_true(mmap_true >= 1);
	assert_non_null(pcl_data_reader__feature(r, PCL_FEAT_HOSTNAME, &len));
	assert_non_null(pcl_data_reader__feature(r, PCL_FEAT_CMDLINE, &len));
	assert_non_null(pcl_data_reader__feature(r, PCL_FEAT_SAMPLE_TIME, &len));
	assert_int_equal(len, 16);
	/* the program that got the samples has its build id in the file */
	assert_non_null(pcl_data_reader__feature(r, PCL_FEAT_BUILD_ID, &len));
	pcl_data_reader__close(r);
	unlink(path);
}

/*
 * A leader-sampled group ({a,b}:S): written as a group (GROUP_DESC: one
 * group, leader 0, two members), the members do not sample, both read the
 * group; every sample is the leader's and carries both counts.
 */
static void test_group_leader_sampling(void **state)
{
	struct pcl_session_stats st;
	struct pcl_data_reader *r;
	const struct perf_event_header *h;
	const struct pcl_data_attr *a0, *a1;
	const uint8_t *g;
	uint32_t v[3];
	int status, samples = 0, fd;
	size_t len;

	(void)state;
	memcpy(path + sizeof(path) - 7, "XXXXXX", 6); /* a new name from the template */
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	record_true("{page-faults:u,minor-faults:u}:S", &st, &status);
	assert_int_equal(WEXITSTATUS(status), 0);
	r = pcl_data_reader__open(path);
	assert_non_null(r);
	assert_int_equal(pcl_data_reader__nr_attrs(r), 2);
	a0 = pcl_data_reader__attr(r, 0);
	a1 = pcl_data_reader__attr(r, 1);
	assert_int_equal(a0->attr.sample_period, 1);
	assert_int_equal(a1->attr.sample_period, 0);
	assert_int_equal(a1->attr.freq, 0);
	for (int i = 0; i < 2; i++) {
		const struct pcl_data_attr *a = i ? a1 : a0;

		assert_true(a->attr.sample_type & PERF_SAMPLE_READ);
		assert_true(a->attr.read_format & PERF_FORMAT_GROUP);
		assert_true(a->attr.read_format & PERF_FORMAT_ID);
	}
	g = pcl_data_reader__feature(r, PCL_FEAT_GROUP_DESC, &len);
	assert_non_null(g);
	assert_true(len > 12);
	memcpy(v, g, 4);
	assert_int_equal(v[0], 1);
	/* after the name (a perf string: u32 length, then the padded bytes) */
	memcpy(v, g + 4, 4);
	assert_true(len == 4 + 4 + v[0] + 8);
	memcpy(v + 1, g + 8 + v[0], 8);
	assert_int_equal(v[1], 0);
	assert_int_equal(v[2], 2);
	while ((h = pcl_data_reader__next(r))) {
		struct pcl_record rec;

		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		assert_int_equal(pcl_record_decode(h, h->size, &a0->attr, &rec), 0);
		assert_int_equal(rec.sample.read.nr, 2);
		assert_true(pcl_data_reader__attr_by_id(r, rec.sample.identifier) == a0);
		samples++;
	}
	assert_int_equal((uint64_t)samples, st.samples);
	assert_true(samples > 10);
	pcl_data_reader__close(r);
	unlink(path);
}

static void test_bad_args(void **state)
{
	struct pcl_target t = { .sz = sizeof(t) };
	struct pcl_session_opts o = { .sz = sizeof(o) };
	struct pcl_evlist *el = pcl_evlist__new();

	(void)state;
	assert_null(pcl_session__open(NULL, &t, NULL, &o, "/tmp/x", 0, NULL));
	assert_null(pcl_session__open(el, &t, NULL, &o, "/tmp/x", 0, NULL)); /* no events */
	assert_int_equal(errno, EINVAL);
	pcl_session__abort(NULL);
	pcl_evlist__free(el);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		UNIT_TEST(test_record_and_read_back),
		UNIT_TEST(test_group_leader_sampling),
		UNIT_TEST(test_bad_args),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
