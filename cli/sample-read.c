// SPDX-License-Identifier: MIT
/*
 * PERF_SAMPLE_READ samples split into one sample per value read (see
 * sample-read.h). The last values live in an open-addressing table keyed by
 * (id, tid), tid 0 where values are not kept per thread; id 0 marks a free
 * slot (the kernel never hands out id 0). A slot (id, UINT32_MAX) holds
 * the first thread that read id, to tell when threads share it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sample-read.h"

void read_deltas_free(struct read_deltas *rd)
{
	free(rd->id);
	free(rd->val);
	free(rd->tid);
	*rd = (struct read_deltas){ 0 };
}

static size_t slot_of(const struct read_deltas *rd, uint64_t id, uint32_t tid)
{
	uint64_t h = (id ^ ((uint64_t)tid << 32 | tid)) * 0x9e3779b97f4a7c15ULL;
	size_t j;

	for (j = (size_t)(h >> 32) & (rd->cap - 1); rd->id[j] && (rd->id[j] != id || rd->tid[j] != tid);
	     j = (j + 1) & (rd->cap - 1))
		;
	return j;
}

static int grow(struct read_deltas *rd)
{
	struct read_deltas n = { .cap = rd->cap ? rd->cap * 2 : 64 };

	n.id = calloc(n.cap, sizeof(*n.id));
	n.val = calloc(n.cap, sizeof(*n.val));
	n.tid = calloc(n.cap, sizeof(*n.tid));
	if (!n.id || !n.val || !n.tid) {
		read_deltas_free(&n);
		return -ENOMEM;
	}
	for (size_t i = 0; i < rd->cap; i++) {
		size_t j;

		if (!rd->id[i])
			continue;
		j = slot_of(&n, rd->id[i], rd->tid[i]);
		n.id[j] = rd->id[i];
		n.tid[j] = rd->tid[i];
		n.val[j] = rd->val[i];
	}
	n.n = rd->n;
	n.nr_per_thread = rd->nr_per_thread;
	n.nr_wrapped = rd->nr_wrapped;
	n.threads_mixed = rd->threads_mixed;
	read_deltas_free(rd);
	*rd = n;
	return 0;
}

/* The slot of (@id, @tid) in *@j, made (value 0, *@fresh) if new; 0 or -ENOMEM. */
static int slot_take(struct read_deltas *rd, uint64_t id, uint32_t tid, size_t *j, bool *fresh)
{
	if ((rd->n + 1) * 2 > rd->cap && grow(rd))
		return -ENOMEM;
	*j = slot_of(rd, id, tid);
	*fresh = !rd->id[*j];
	if (*fresh) {
		rd->id[*j] = id;
		rd->tid[*j] = tid;
		rd->n++;
	}
	return 0;
}

/* The growth of @id's value (for @tid) since its last read, in *@d (perf's sid->period). */
static int read_delta(struct read_deltas *rd, uint64_t id, uint32_t tid, uint64_t value,
		      uint64_t *d)
{
	size_t j;
	bool fresh;

	if (slot_take(rd, id, tid, &j, &fresh))
		return -ENOMEM;
	*d = value - rd->val[j];
	rd->val[j] = value;
	return 0;
}

/*
 * Note whether @id's values come from more than one thread: the slot
 * (id, NO_TID) holds the first thread's tid.
 */
#define NO_TID UINT32_MAX
static int note_thread(struct read_deltas *rd, uint64_t id, uint32_t tid)
{
	size_t j;
	bool fresh;

	if (rd->threads_mixed)
		return 0;
	if (slot_take(rd, id, NO_TID, &j, &fresh))
		return -ENOMEM;
	if (fresh)
		rd->val[j] = tid;
	else if (rd->val[j] != tid)
		rd->threads_mixed = true;
	return 0;
}

int each_read_sample(const struct pcl_data_reader *r, struct read_deltas *rd, bool per_thread,
		     const struct pcl_data_attr *a, const struct pcl_record *rec, sample_fn fn,
		     void *ctx)
{
	const struct pcl_sample *sm = &rec->sample;
	uint64_t rf = a->attr.read_format;
	uint32_t tid = 0;

	if (!(sm->sample_type & PERF_SAMPLE_READ))
		return fn(ctx, a, rec);
	if (per_thread && a->attr.inherit && (sm->sample_type & PERF_SAMPLE_TID)) {
		tid = sm->tid;
		rd->nr_per_thread++;
	}
	for (uint64_t i = 0; i < sm->read.nr; i++) {
		struct pcl_read_value v = pcl_read__value(&sm->read, i, rf);
		const struct pcl_data_attr *ma;
		struct pcl_record copy;
		uint64_t d;
		int ret;

		if (!(rf & PERF_FORMAT_ID) || !v.id || !(ma = pcl_data_reader__attr_by_id(r, v.id)))
			continue;
		if (read_delta(rd, v.id, tid, v.value, &d) ||
		    (tid && note_thread(rd, v.id, tid)))
			return -ENOMEM;
		if (!d)
			continue;
		if (d > INT64_MAX)
			rd->nr_wrapped++;
		copy = *rec;
		copy.sample.period = d;
		copy.sample.sample_type |= PERF_SAMPLE_PERIOD;
		copy.sample.id = v.id;
		ret = fn(ctx, ma, &copy);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * What one record command line's token @t says of the target: 1 whole CPUs
 * (-a, -C), -1 tasks (-p, -t, -u: perf lets them override -a), 0 nothing;
 * *@skip: @t takes the next token as its value.
 */
static int target_token(const char *t, bool *skip)
{
	/* perf record's (and pcl record's) short options that take a value */
	static const char with_value[] = "cCDeFGjkmoprtu";
	static const char *const long_with_value[] = {
		"--event",	  "--freq",	     "--count",		"--output",  "--pid",
		"--tid",	  "--mmap-pages",    "--clockid",	"--cgroup",  "--delay",
		"--realtime",	  "--branch-filter", "--uid",		"--call-graph", "--filter",
		"--control",	  "--max-size",	     "--affinity",	"--mmap-flush",
		"--switch-max-files", "--fp-leaf",   "--proc-map-timeout",
		"--synth",	  "--switch-output-event", "--num-thread-synthesize",
		"--vmlinux",	  "--clang-path",    "--clang-opt",
	};
	int what = 0;

	*skip = false;
	if (!strcmp(t, "--all-cpus") || !strcmp(t, "--cpu") || !strncmp(t, "--cpu=", 6))
		return 1;
	if (!strcmp(t, "--pid") || !strcmp(t, "--tid") || !strcmp(t, "--uid") ||
	    !strncmp(t, "--pid=", 6) || !strncmp(t, "--tid=", 6) || !strncmp(t, "--uid=", 6))
		what = -1;
	if (!strncmp(t, "--", 2)) {
		for (size_t i = 0; i < sizeof(long_with_value) / sizeof(long_with_value[0]); i++)
			*skip |= !strcmp(t, long_with_value[i]);
		return what;
	}
	/* a cluster of short options: -ag, -aF 99, -Fmax */
	for (const char *c = t + 1; *c; c++) {
		if (*c == 'a' || *c == 'C')
			what = what < 0 ? what : 1;
		if (*c == 'p' || *c == 't' || *c == 'u')
			what = -1;
		if (strchr(with_value, *c)) {
			*skip = !c[1];
			break;
		}
	}
	return what;
}

bool recorded_cpu_wide(const struct pcl_data_reader *r)
{
	size_t len;
	const void *f = pcl_data_reader__feature(r, PCL_FEAT_CMDLINE, &len);
	char **v = NULL;
	bool skip = false, rec = false, cpus = false, tasks = false;
	int n = f ? pcl_feature_parse_strings(f, len, &v) : -1;

	for (int i = 1; i < n; i++) {
		int what;

		if (!rec) {
			rec = !strcmp(v[i], "record");
			continue;
		}
		if (skip) {
			skip = false;
			continue;
		}
		if (!strcmp(v[i], "--") || v[i][0] != '-')
			break; /* the command */
		what = target_token(v[i], &skip);
		cpus |= what > 0;
		tasks |= what < 0;
	}
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
	if (rec)
		return cpus && !tasks;
	/*
	 * no record command line (perf inject writes its own): perf record
	 * samples the CPU on whole CPUs, and only there unless asked
	 */
	for (int i = 0; i < pcl_data_reader__nr_attrs(r); i++)
		if (pcl_data_reader__attr(r, i)->attr.sample_type & PERF_SAMPLE_CPU)
			return true;
	return false;
}
