/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the perf.data reader (lib/data/reader.c) against the
 * contract of include/pcl/data.h, with files made by the writer.
 *
 * The reference file: two attrs with ids and names, hand-built MMAP2, COMM
 * and SAMPLE records in two rounds, the hostname, cmdline and build id
 * features. It is read back whole (attrs, ids, names, features, records
 * byte for byte and in order), in file and pipe mode; then cut at every
 * length (no crash, records a prefix of the original, truncated() when the
 * cut is inside the data); then corrupted one number at a time (a table of
 * patches, each with the error it must give). A file whose writer was never
 * closed (a child that _exits between rounds) and a stream that arrives
 * through a real pipe in pieces come last, with pcl_feature_parse_strings.
 * A file's records point into its mapping and stay valid past the next
 * call; a file larger than what the reader keeps mapped is read with its
 * pages given back behind it, and its first record still reads right.
 *
 * Files go to a temporary directory, removed at the end.
 */
#include "unit.h"
#include "data/reader.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include <pcl/common.h>
#include <pcl/data.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif
#define MAX_RECS 64
#define HDR_SIZE 104

static char tmpdir[64];

/* ---- the reference file ---- */

struct recs {
	int n;
	uint8_t *rec[MAX_RECS];
	uint64_t off[MAX_RECS]; /* where the reader found them (full read) */
};

static void recs_free(struct recs *rs)
{
	for (int i = 0; i < rs->n; i++)
		free(rs->rec[i]);
	rs->n = 0;
}

static void recs_add(struct recs *rs, const void *rec)
{
	const struct perf_event_header *h = rec;

	assert_true(rs->n < MAX_RECS);
	rs->rec[rs->n] = malloc(h->size);
	assert_non_null(rs->rec[rs->n]);
	memcpy(rs->rec[rs->n++], rec, h->size);
}

/* A record of @type: header, then @blen bytes of @body, then zeros to a multiple of 8. */
static void *make_rec(uint32_t type, uint16_t misc, const void *body, size_t blen)
{
	size_t size = (8 + blen + 7) & ~(size_t)7;
	struct perf_event_header h = { .type = type, .misc = misc, .size = (uint16_t)size };
	uint8_t *r = calloc(1, size);

	assert_non_null(r);
	memcpy(r, &h, 8);
	memcpy(r + 8, body, blen);
	return r;
}

static const uint64_t ids0[] = { 101, 102 }, ids1[] = { 201 };
static const char *const cmdline[] = { "pcl", "record", "-e", "task-clock", "true" };
static const uint8_t bid[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6 };

static void ref_attrs(struct pcl_data_attr a[2])
{
	memset(a, 0, 2 * sizeof(*a));
	a[0].attr.type = PERF_TYPE_SOFTWARE;
	a[0].attr.config = PERF_COUNT_SW_TASK_CLOCK;
	a[0].attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_IDENTIFIER;
	a[0].attr.sample_period = 100000;
	a[0].name = "task-clock";
	a[0].ids = ids0;
	a[0].nr_ids = 2;
	a[1].attr.type = PERF_TYPE_SOFTWARE;
	a[1].attr.config = PERF_COUNT_SW_PAGE_FAULTS;
	a[1].attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_IDENTIFIER;
	a[1].attr.sample_period = 1;
	a[1].name = "page-faults";
	a[1].ids = ids1;
	a[1].nr_ids = 1;
}

/* The records of round @round (0 or 1), appended to @rs and written to @w (if any). */
static void write_round(struct pcl_data_writer *w, struct recs *rs, int round)
{
	struct {
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
		uint32_t maj, min;
		uint64_t ino, ino_gen;
		uint32_t prot, flags;
		char filename[16];
	} mmap2 = { 42, 42, 0x400000, 0x1000, 0, 8, 1, 1234, 0, 5, 2, "/usr/bin/true" };
	struct {
		uint32_t pid, tid;
		char comm[16];
	} comm = { 42, 42 + (uint32_t)round, "true" };
	struct {
		uint64_t identifier, ip;
		uint32_t pid, tid;
	} sample = { 101, 0x401000, 42, 42 };
	void *r[4];

	r[0] = make_rec(PERF_RECORD_COMM, round ? PERF_RECORD_MISC_COMM_EXEC : 0, &comm,
			sizeof(comm));
	r[1] = make_rec(PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, &mmap2, sizeof(mmap2));
	r[2] = make_rec(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, &sample, sizeof(sample));
	sample.identifier = round ? 201 : 102;
	sample.ip += 0x10;
	r[3] = make_rec(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, &sample, sizeof(sample));
	for (int i = 0; i < 4; i++) {
		if (w)
			assert_int_equal(pcl_data_writer__write(w, r[i]), 0);
		recs_add(rs, r[i]);
		free(r[i]);
	}
}

static void add_finished_round(struct recs *rs)
{
	struct perf_event_header h = { .type = PCL_RECORD_FINISHED_ROUND, .size = 8 };

	recs_add(rs, &h);
}

/*
 * The HEADER_BUILD_ID record (or BUILD_ID feature entry) the writer makes
 * for bid: perf's build_id_event, 36 bytes then the name padded to 64, so
 * 100 bytes, not a multiple of 8.
 */
static void *build_id_rec(bool pipe)
{
	struct perf_event_header h = { .type = pipe ? PCL_RECORD_HEADER_BUILD_ID : 0,
				       .misc = PERF_RECORD_MISC_USER | (1 << 15),
				       .size = 8 + 4 + 24 + 64 };
	uint8_t *r = calloc(1, h.size);
	int32_t pid = 42;

	assert_non_null(r);
	memcpy(r, &h, 8);
	memcpy(r + 8, &pid, 4);
	memcpy(r + 12, bid, 10);
	r[12 + 20] = 10;
	strcpy((char *)r + 36, "/usr/bin/true");
	return r;
}

/*
 * Write the reference file to @path (file mode) or, with @pipe, as a stream
 * to @path through stdout. @rs gets the records the reader must return.
 */
static void write_ref(const char *path, bool pipe, struct recs *rs)
{
	struct pcl_data_attr a[2];
	struct pcl_data_writer *w;
	size_t len;
	void *s;
	int saved = -1, fd;

	ref_attrs(a);
	if (pipe) {
		fflush(stdout);
		fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
		assert_true(fd >= 0);
		saved = dup(STDOUT_FILENO);
		dup2(fd, STDOUT_FILENO);
		close(fd);
	}
	w = pcl_data_writer__create(pipe ? "-" : path, a, 2);
	assert_non_null(w);
	s = pcl_feature_string("testhost", &len);
	assert_int_equal(pcl_data_writer__set_feature(w, PCL_FEAT_HOSTNAME, s, len), 0);
	free(s);
	s = pcl_feature_strings(cmdline, ARRAY_SIZE(cmdline), &len);
	assert_int_equal(pcl_data_writer__set_feature(w, PCL_FEAT_CMDLINE, s, len), 0);
	free(s);
	write_round(w, rs, 0);
	assert_int_equal(pcl_data_writer__finish_round(w), 0);
	add_finished_round(rs);
	write_round(w, rs, 1);
	assert_int_equal(pcl_data_writer__add_build_id(w, 42, false, bid, 10, "/usr/bin/true"), 0);
	if (pipe) {
		s = build_id_rec(true);
		recs_add(rs, s);
		free(s);
	}
	assert_int_equal(pcl_data_writer__finish_round(w), 0);
	add_finished_round(rs);
	assert_int_equal(pcl_data_writer__close(w), 0);
	if (pipe) {
		dup2(saved, STDOUT_FILENO);
		close(saved);
	}
}

static void tmp_path(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", tmpdir, name);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *b;
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	b = malloc((size_t)st.st_size + 1);
	assert_non_null(b);
	assert_int_equal(pread(fd, b, (size_t)st.st_size, 0), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return b;
}

static void spit(const char *path, const void *b, size_t len)
{
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, b, len), (ssize_t)len);
	close(fd);
}

/* ---- reading ---- */

struct result {
	bool opened;
	int open_errno;
	int n;	       /* records read */
	int n_bad;     /* records that are not the expected one at their index */
	int end_errno; /* errno when next() returned NULL */
	bool truncated, offsets_ok;
	char msg[256]; /* pcl_last_error() after a failed open or read */
	uint64_t off[MAX_RECS];
};

/*
 * Open @path, read every record, compare each with @want in order.
 * A reader of a stream does not close its descriptor (see test_no_fd_leak):
 * close what it leaves so that the sweeps do not run out of descriptors.
 */
static void read_file(const char *path, const struct recs *want, struct result *res)
{
	struct pcl_data_reader *r;
	const struct perf_event_header *h;
	uint64_t end = 0;
	int next_fd = dup(0);

	if (next_fd >= 0)
		close(next_fd);
	memset(res, 0, sizeof(*res));
	res->offsets_ok = true;
	errno = 0;
	r = pcl_data_reader__open(path);
	if (!r) {
		res->open_errno = errno;
		snprintf(res->msg, sizeof(res->msg), "%s", pcl_last_error());
		return;
	}
	res->opened = true;
	for (;;) {
		errno = 0;
		h = pcl_data_reader__next(r);
		if (!h)
			break;
		if (res->n < MAX_RECS)
			res->off[res->n] = pcl_data_reader__offset(r);
		if (pcl_data_reader__offset(r) < end)
			res->offsets_ok = false;
		end = pcl_data_reader__offset(r) + h->size;
		if (res->n >= want->n || memcmp(h, want->rec[res->n], h->size) ||
		    h->size != ((const struct perf_event_header *)want->rec[res->n])->size)
			res->n_bad++;
		res->n++;
		if (res->n > 10 * MAX_RECS)
			break;
	}
	res->end_errno = errno;
	if (errno)
		snprintf(res->msg, sizeof(res->msg), "%s", pcl_last_error());
	res->truncated = pcl_data_reader__truncated(r);
	pcl_data_reader__close(r);
	if (next_fd >= 0 && fcntl(next_fd, F_GETFD) >= 0)
		close(next_fd);
}

static void check_features(struct pcl_data_reader *r, bool pipe)
{
	const void *p;
	size_t len, wlen;
	void *want;
	char **v = NULL;
	int n;

	p = pcl_data_reader__feature(r, PCL_FEAT_HOSTNAME, &len);
	want = pcl_feature_string("testhost", &wlen);
	assert_non_null(p);
	/* a HEADER_FEATURE record pads its section to 8 bytes */
	assert_int_equal(len, pipe ? (wlen + 7) & ~(size_t)7 : wlen);
	assert_memory_equal(p, want, wlen);
	free(want);

	p = pcl_data_reader__feature(r, PCL_FEAT_CMDLINE, &len);
	assert_non_null(p);
	n = pcl_feature_parse_strings(p, len, &v);
	assert_int_equal(n, ARRAY_SIZE(cmdline));
	for (int i = 0; i < n; i++) {
		assert_string_equal(v[i], cmdline[i]);
		free(v[i]);
	}
	free(v);

	/* a file has the BUILD_ID feature; a stream has HEADER_BUILD_ID records */
	p = pcl_data_reader__feature(r, PCL_FEAT_BUILD_ID, &len);
	if (pipe) {
		assert_null(p);
	} else {
		want = build_id_rec(false);
		assert_non_null(p);
		assert_int_equal(len, ((struct perf_event_header *)want)->size);
		assert_memory_equal(p, want, len);
		free(want);
	}
	assert_non_null(pcl_data_reader__feature(r, PCL_FEAT_EVENT_DESC, &len));
	assert_null(pcl_data_reader__feature(r, PCL_FEAT_NUMA_TOPOLOGY, &len));
	assert_null(pcl_data_reader__feature(r, 0, &len));
	assert_null(pcl_data_reader__feature(r, PCL_FEAT_MAX, &len));
}

static void check_attrs(struct pcl_data_reader *r)
{
	struct pcl_data_attr a[2];

	ref_attrs(a);
	assert_int_equal(pcl_data_reader__nr_attrs(r), 2);
	for (int i = 0; i < 2; i++) {
		const struct pcl_data_attr *got = pcl_data_reader__attr(r, i);

		assert_non_null(got);
		assert_int_equal(got->attr.type, a[i].attr.type);
		assert_int_equal(got->attr.config, a[i].attr.config);
		assert_int_equal(got->attr.sample_type, a[i].attr.sample_type);
		assert_int_equal(got->attr.sample_period, a[i].attr.sample_period);
		assert_int_equal(got->nr_ids, a[i].nr_ids);
		assert_memory_equal(got->ids, a[i].ids, a[i].nr_ids * 8);
		assert_string_equal(got->name, a[i].name);
	}
	assert_null(pcl_data_reader__attr(r, 2));
	assert_null(pcl_data_reader__attr(r, -1));
	assert_ptr_equal(pcl_data_reader__attr_by_id(r, 102), pcl_data_reader__attr(r, 0));
	assert_ptr_equal(pcl_data_reader__attr_by_id(r, 201), pcl_data_reader__attr(r, 1));
	assert_null(pcl_data_reader__attr_by_id(r, 999));
}

static void round_trip(bool pipe)
{
	char path[128];
	struct recs rs = { 0 };
	struct pcl_data_reader *r;
	const struct perf_event_header *h, *kept[MAX_RECS];
	uint64_t last = 0;
	int n = 0;

	tmp_path(path, sizeof(path), pipe ? "rt-pipe.data" : "rt.data");
	write_ref(path, pipe, &rs);
	r = pcl_data_reader__open(path);
	assert_non_null(r);
	assert_int_equal(pcl_data_reader__is_pipe(r), pipe);
	if (!pipe) {
		check_attrs(r);
		check_features(r, pipe);
	}
	while ((h = pcl_data_reader__next(r))) {
		assert_true(n < rs.n);
		assert_int_equal(h->size, ((struct perf_event_header *)rs.rec[n])->size);
		assert_memory_equal(h, rs.rec[n], h->size);
		assert_true(pcl_data_reader__offset(r) > last);
		last = pcl_data_reader__offset(r);
		/* a file's records are in its mapping; a stream's are copies */
		assert_int_equal(pcl_data_reader_stable(r, h), !pipe);
		kept[n++] = h;
	}
	assert_int_equal(errno, 0);
	assert_int_equal(n, rs.n);
	for (int i = 0; !pipe && i < n; i++)
		assert_memory_equal(kept[i], rs.rec[i], kept[i]->size);
	assert_false(pcl_data_reader__truncated(r));
	/* a stream's attrs and features are there once their records have gone by */
	if (pipe) {
		check_attrs(r);
		check_features(r, pipe);
	}
	/* the end stays the end */
	assert_null(pcl_data_reader__next(r));
	assert_int_equal(errno, 0);
	pcl_data_reader__close(r);
	recs_free(&rs);
}

static void test_round_trip_file(void **state)
{
	(void)state;
	round_trip(false);
}

static void test_round_trip_pipe(void **state)
{
	(void)state;
	round_trip(true);
}

/*
 * -z: records of many sizes, in rounds, written compressed (two data pages
 * per chunk, so a round spans several COMPRESSED records and a chunk
 * boundary cuts a record's bytes) read back as they were written, with the
 * COMPRESSED feature perf reads: version 1, zstd, the level, the ratio,
 * mmap_len.
 */
static void test_compressed_round_trip(void **state)
{
	enum { NR = 3000 };
	struct pcl_data_attr a[2];
	struct pcl_data_writer *w;
	struct pcl_data_reader *r;
	const struct perf_event_header *h;
	uint8_t rec[1024];
	const uint32_t *feat;
	uint64_t in, out;
	char path[PATH_MAX];
	size_t len;
	int n = 0, rounds = 0;

	(void)state;
	tmp_path(path, sizeof(path), "z.data");
	ref_attrs(a);
	w = pcl_data_writer__create(path, a, 2);
	assert_non_null(w);
	assert_int_equal(pcl_data_writer__set_compression(w, 0, 3 * 4096), -EINVAL);
	assert_int_equal(pcl_data_writer__set_compression(w, 3, 3 * 4096), 0);
	for (int i = 0; i < NR; i++) {
		struct perf_event_header hh = { .type = PERF_RECORD_SAMPLE,
						.size = (uint16_t)(16 + (i % 100) * 8) };

		memset(rec, 0, sizeof(rec));
		memcpy(rec, &hh, sizeof(hh));
		memcpy(rec + 8, &i, sizeof(i));
		assert_int_equal(pcl_data_writer__write(w, rec), 0);
		if (i % 500 == 499)
			assert_int_equal(pcl_data_writer__finish_round(w), 0);
	}
	pcl_data_writer__compression(w, &in, &out);
	assert_true(out > 0 && out * 3 < in);
	assert_int_equal(pcl_data_writer__close(w), 0);

	r = pcl_data_reader__open(path);
	assert_non_null(r);
	while ((h = pcl_data_reader__next(r))) {
		int i;

		if (h->type == PCL_RECORD_FINISHED_ROUND) {
			rounds++;
			continue;
		}
		assert_int_equal(h->type, PERF_RECORD_SAMPLE);
		memcpy(&i, h + 1, sizeof(i));
		assert_int_equal(i, n);
		assert_int_equal(h->size, 16 + (n % 100) * 8);
		n++;
	}
	assert_int_equal(errno, 0);
	assert_int_equal(n, NR);
	assert_int_equal(rounds, NR / 500);
	assert_true(pcl_data_reader__nr_compressed(r) > (uint64_t)NR / 500);
	feat = pcl_data_reader__feature(r, PCL_FEAT_COMPRESSED, &len);
	assert_non_null(feat);
	assert_int_equal(len, 20);
	assert_int_equal(feat[0], 1);
	assert_int_equal(feat[1], 1);
	assert_int_equal(feat[2], 3);
	assert_int_equal(feat[3], (uint32_t)((double)in / (double)out + 0.5));
	assert_int_equal(feat[4], 3 * 4096);
	pcl_data_reader__close(r);
}

/* kB of the process's resident file pages (RssFile), or -1 */
static long rss_file_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "RssFile: %ld", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

/*
 * 48 MiB of 8 KiB samples, each filled with its number: read through, the
 * pages behind are given back (the resident file pages grow by much less
 * than the file), and the first record, kept, still reads right after its
 * pages went.
 */
static void test_mapped_large(void **state)
{
	enum { NR = 6144, BODY = 8192 - 8 };
	struct pcl_data_attr a[2];
	struct pcl_data_writer *w;
	struct pcl_data_reader *r;
	const struct perf_event_header *h, *first = NULL;
	uint64_t *body = malloc(BODY);
	char path[128];
	long before, most = 0;
	int n = 0, bad = 0;

	(void)state;
	assert_non_null(body);
	ref_attrs(a);
	tmp_path(path, sizeof(path), "large.data");
	w = pcl_data_writer__create(path, a, 2);
	assert_non_null(w);
	for (int i = 0; i < NR; i++) {
		void *rec;

		for (int k = 0; k < BODY / 8; k++)
			body[k] = (uint64_t)i << 32 | (uint64_t)k;
		body[0] = 101;
		rec = make_rec(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, body, BODY);
		assert_int_equal(pcl_data_writer__write(w, rec), 0);
		free(rec);
	}
	assert_int_equal(pcl_data_writer__close(w), 0);
	r = pcl_data_reader__open(path);
	assert_non_null(r);
	before = rss_file_kb();
	while ((h = pcl_data_reader__next(r))) {
		const uint64_t *b = (const uint64_t *)(h + 1);

		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		assert_true(pcl_data_reader_stable(r, h));
		if (!first)
			first = h;
		bad += h->size != 8192 || b[1] != ((uint64_t)n << 32 | 1) ||
		       b[BODY / 8 - 1] != ((uint64_t)n << 32 | (BODY / 8 - 1));
		n++;
		if (n % 256 == 0 && rss_file_kb() - before > most)
			most = rss_file_kb() - before;
	}
	assert_int_equal(errno, 0);
	assert_int_equal(n, NR);
	assert_int_equal(bad, 0);
	/* given back: at most about twice the 16 MiB kept behind, not the 48 read */
	if (before >= 0)
		assert_true(most < 40 * 1024);
	for (int k = 1; k < BODY / 8; k++)
		bad += ((const uint64_t *)(first + 1))[k] != (uint64_t)k;
	assert_int_equal(bad, 0);
	pcl_data_reader__close(r);
	unlink(path);
	free(body);
}

/* ---- truncation ---- */

/* Offsets of the records a stream holds, absorbed ones included, from byte 16. */
static int stream_bounds(const uint8_t *b, size_t len, uint64_t *ends, int max)
{
	uint64_t o = 16;
	int n = 0;

	while (o + 8 <= len && n < max) {
		uint16_t sz;

		memcpy(&sz, b + o + 6, 2);
		assert_true(sz >= 8);
		o += sz;
		ends[n++] = o;
	}
	assert_int_equal(o, len);
	return n;
}

static void sweep(bool pipe)
{
	char path[128], cut[128];
	struct recs rs = { 0 };
	struct result full, res;
	uint64_t data_off = 16, data_end, ends[256];
	size_t len;
	uint8_t *b;
	int fails = 0, nends = 0;

	tmp_path(path, sizeof(path), pipe ? "sweep-pipe.data" : "sweep.data");
	tmp_path(cut, sizeof(cut), pipe ? "cut-pipe.data" : "cut.data");
	write_ref(path, pipe, &rs);
	b = slurp(path, &len);
	read_file(path, &rs, &full);
	assert_int_equal(full.n, rs.n);
	if (pipe) {
		nends = stream_bounds(b, len, ends, ARRAY_SIZE(ends));
		data_end = len;
	} else {
		memcpy(&data_off, b + 40, 8);
		memcpy(&data_end, b + 48, 8);
		data_end += data_off;
	}
	for (size_t l = 0; l < len; l++) {
		char row[64];
		int want_n = 0;
		bool in_data = l < data_end, at_boundary = !pipe || l == 16;

		snprintf(row, sizeof(row), "%s cut at %zu of %zu", pipe ? "stream" : "file", l,
			 len);
		spit(cut, b, l);
		read_file(cut, &rs, &res);
		if (l < data_off) {
			/* the header or the attrs are cut: a clean error */
			fails += differ(row, "opened", res.opened, 0);
			fails += differ(row, "errno", res.open_errno, EBADMSG);
			continue;
		}
		while (want_n < rs.n &&
		       full.off[want_n] + ((struct perf_event_header *)rs.rec[want_n])->size <= l)
			want_n++;
		for (int i = 0; pipe && i < nends; i++)
			at_boundary |= ends[i] == l;
		fails += differ(row, "opened", res.opened, 1);
		fails += differ(row, "records", res.n, want_n);
		fails += differ(row, "records not in the original", res.n_bad, 0);
		fails += differ(row, "errno at the end", res.end_errno, 0);
		/* a file cut anywhere is cut, features included; a stream only inside a record */
		if (!pipe)
			fails += differ(row, "truncated", res.truncated, 1);
		else if (!at_boundary)
			fails += differ(row, "truncated", res.truncated, in_data);
	}
	free(b);
	recs_free(&rs);
	assert_int_equal(fails, 0);
}

static void test_truncation_file(void **state)
{
	(void)state;
	sweep(false);
}

static void test_truncation_pipe(void **state)
{
	(void)state;
	sweep(true);
}

/* ---- corruption ---- */

enum where {
	ABS,	   /* @at is a file offset */
	ATTR0_IDS, /* @at is an offset into the ids section of attr 0 (offset, size) */
	REC,	   /* @at is the index of a record; the patch goes to its size */
	TRUNC,	   /* cut the file @at bytes after the data section */
	STREAM,	   /* replace the file by a 16-byte pipe header of size @val */
};

enum outcome {
	OPEN_FAILS,  /* NULL, errno EBADMSG, the message holds @msg */
	BAD_RECORD,  /* records up to record @at, then NULL, EBADMSG, the offset in hex */
	ALL_RECORDS, /* every record, not truncated; the hostname feature iff @feat */
};

static const struct corruption {
	const char *name;
	enum where where;
	uint64_t at, val;
	int width;
	enum outcome outcome;
	const char *msg;
	bool feat;
} corruptions[] = {
	{ "bad magic", ABS, 0, 0x32454c4946524551ULL, 8, OPEN_FAILS, "magic" },
	{ "header size 112", ABS, 8, 112, 8, OPEN_FAILS, "header size" },
	{ "header size 16 (a stream's)", STREAM, 0, 16, 8, ALL_RECORDS, NULL, false },
	{ "pipe header size 24", STREAM, 0, 24, 8, OPEN_FAILS, "" },
	{ "attr_size 0", ABS, 16, 0, 8, OPEN_FAILS, "attr" },
	{ "attr_size 8", ABS, 16, 8, 8, OPEN_FAILS, "attr" },
	{ "attr_size huge", ABS, 16, 1ULL << 40, 8, OPEN_FAILS, "attr" },
	{ "attr_size -1", ABS, 16, ~0ULL, 8, OPEN_FAILS, "attr" },
	{ "attr section past EOF", ABS, 24, 1ULL << 20, 8, OPEN_FAILS, "attr" },
	{ "attr section size past EOF", ABS, 32, 1ULL << 40, 8, OPEN_FAILS, "attr" },
	{ "attr section wraps", ABS, 32, ~0ULL - 100, 8, OPEN_FAILS, "attr" },
	{ "ids section past EOF", ATTR0_IDS, 0, 1ULL << 20, 8, OPEN_FAILS, "ids" },
	{ "ids size past EOF", ATTR0_IDS, 8, 1ULL << 20, 8, OPEN_FAILS, "ids" },
	{ "ids size wraps", ATTR0_IDS, 8, ~0ULL - 7, 8, OPEN_FAILS, "ids" },
	{ "data offset past EOF", ABS, 40, 1ULL << 20, 8, OPEN_FAILS, "data offset" },
	{ "record size 0", REC, 5, 0, 2, BAD_RECORD },
	{ "record size 3", REC, 5, 3, 2, BAD_RECORD },
	{ "record size 7", REC, 2, 7, 2, BAD_RECORD },
	{ "record size huge", REC, 5, 0xfff8, 2, BAD_RECORD },
	{ "record size past the data", REC, 5, 0x400, 2, BAD_RECORD },
	{ "feature table past EOF", TRUNC, 8, 0, 0, ALL_RECORDS, NULL, false },
	{ "feature section past EOF", TRUNC, 16 * 4 + 8, 0, 0, ALL_RECORDS, NULL, false },
	{ "unknown feature bit 200", ABS, 72 + 24, 1ULL << 8, 8, ALL_RECORDS, NULL, true },
	{ "unknown feature bit 255", ABS, 72 + 24, 1ULL << 63, 8, ALL_RECORDS, NULL, true },
};

static void test_corruptions(void **state)
{
	char path[128], bad[128];
	struct recs rs = { 0 };
	struct result full, res;
	uint64_t data_off, data_end, ids_field;
	size_t len;
	uint8_t *b, *c;
	int fails = 0;

	(void)state;
	tmp_path(path, sizeof(path), "ref.data");
	tmp_path(bad, sizeof(bad), "bad.data");
	write_ref(path, false, &rs);
	b = slurp(path, &len);
	read_file(path, &rs, &full);
	assert_int_equal(full.n, rs.n);
	memcpy(&data_off, b + 40, 8);
	memcpy(&data_end, b + 48, 8);
	data_end += data_off;
	{
		uint64_t attrs_off, attr_size;

		memcpy(&attr_size, b + 16, 8);
		memcpy(&attrs_off, b + 24, 8);
		ids_field = attrs_off + attr_size - 16;
	}
	c = malloc(len);
	assert_non_null(c);
	for (size_t i = 0; i < ARRAY_SIZE(corruptions); i++) {
		const struct corruption *t = &corruptions[i];
		size_t clen = len;
		uint64_t at = t->at;

		memcpy(c, b, len);
		switch (t->where) {
		case ABS:
			break;
		case ATTR0_IDS:
			at += ids_field;
			break;
		case REC:
			at = full.off[t->at] + 6;
			break;
		case TRUNC:
			clen = (size_t)(data_end + t->at);
			break;
		case STREAM:
			/* the data section behind a stream's header: a stream of the same records
			 */
			memcpy(c + 8, &t->val, 8);
			memcpy(c + 16, b + data_off, (size_t)(data_end - data_off));
			clen = (size_t)(16 + data_end - data_off);
			break;
		}
		if (t->where == ABS || t->where == ATTR0_IDS || t->where == REC) {
			uint64_t v = t->val;

			if (t->where == ABS && at == 72 + 24)
				memcpy(&v, b + at, 8), v |= t->val;
			memcpy(c + at, &v, (size_t)t->width);
		}
		spit(bad, c, clen);
		read_file(bad, &rs, &res);
		switch (t->outcome) {
		case OPEN_FAILS:
			fails += differ(t->name, "opened", res.opened, 0);
			fails += differ(t->name, "errno", res.open_errno, EBADMSG);
			if (!res.opened && !strstr(res.msg, t->msg)) {
				print_message("'%s': message '%s' does not say '%s'\n", t->name,
					      res.msg, t->msg);
				fails++;
			}
			break;
		case BAD_RECORD: {
			char hex[32];

			snprintf(hex, sizeof(hex), "%#llx", (unsigned long long)full.off[t->at]);
			fails += differ(t->name, "opened", res.opened, 1);
			fails += differ(t->name, "records before the bad one", res.n, t->at);
			fails += differ(t->name, "records not in the original", res.n_bad, 0);
			fails += differ(t->name, "errno", res.end_errno, EBADMSG);
			if (!strstr(res.msg, hex)) {
				print_message("'%s': message '%s' does not name offset %s\n",
					      t->name, res.msg, hex);
				fails++;
			}
			break;
		}
		case ALL_RECORDS: {
			struct pcl_data_reader *r = pcl_data_reader__open(bad);
			size_t flen;

			fails += differ(t->name, "opened", res.opened, 1);
			fails += differ(t->name, "records", res.n, rs.n);
			fails += differ(t->name, "records not in the original", res.n_bad, 0);
			fails += differ(t->name, "errno", res.end_errno, 0);
			/* a cut feature table or section is a cut file: one warning, all records */
			fails += differ(t->name, "truncated", res.truncated, t->where == TRUNC);
			if (r && t->where != STREAM)
				fails += differ(
					t->name, "has hostname",
					!!pcl_data_reader__feature(r, PCL_FEAT_HOSTNAME, &flen),
					t->feat);
			if (r && t->feat)
				check_features(r, false);
			pcl_data_reader__close(r);
			break;
		}
		}
	}
	free(c);
	free(b);
	recs_free(&rs);
	assert_int_equal(fails, 0);
}

/* ---- a writer that never closed ---- */

static void test_never_closed(void **state)
{
	char path[128];
	struct recs rs = { 0 };
	struct result res;
	pid_t pid;
	int status;

	(void)state;
	tmp_path(path, sizeof(path), "killed.data");
	fflush(stdout);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct pcl_data_attr a[2];
		struct pcl_data_writer *w;
		struct recs junk = { 0 };

		ref_attrs(a);
		w = pcl_data_writer__create(path, a, 2);
		if (!w)
			_exit(1);
		write_round(w, &junk, 0);
		pcl_data_writer__finish_round(w);
		write_round(w, &junk, 1);
		pcl_data_writer__finish_round(w);
		write_round(w, &junk, 0); /* buffered, never flushed */
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	/* what the parent expects: the two rounds, each with its FINISHED_ROUND */
	write_round(NULL, &rs, 0);
	add_finished_round(&rs);
	write_round(NULL, &rs, 1);
	add_finished_round(&rs);
	read_file(path, &rs, &res);
	assert_true(res.opened);
	assert_int_equal(res.n, rs.n);
	assert_int_equal(res.n_bad, 0);
	assert_int_equal(res.end_errno, 0);
	assert_true(res.truncated);
	assert_true(res.offsets_ok);
	{
		struct pcl_data_reader *r = pcl_data_reader__open(path);
		size_t flen;

		assert_non_null(r);
		assert_int_equal(pcl_data_reader__nr_attrs(r), 2);
		assert_null(pcl_data_reader__feature(r, PCL_FEAT_EVENT_DESC, &flen));
		assert_string_equal(pcl_data_reader__attr(r, 0)->name, "");
		pcl_data_reader__close(r);
	}
	recs_free(&rs);
}

/* ---- streams from a real pipe, and file descriptors ---- */

/*
 * The reference stream, written into a pipe by a child in three pieces with
 * a pause after each: [0, split), [split, split + 1), the rest. A reader
 * of a pipe gets what read(2) has, and a record may straddle three reads.
 */
static void pipe_in_pieces(size_t split)
{
	char path[128], fdpath[64];
	struct recs rs = { 0 };
	struct result res;
	size_t len;
	uint8_t *b;
	int p[2], want_n;
	pid_t pid;

	tmp_path(path, sizeof(path), "stream.data");
	write_ref(path, true, &rs);
	b = slurp(path, &len);
	assert_true(split < len);
	assert_int_equal(pipe(p), 0);
	fflush(stdout);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		if (write(p[1], b, split) != (ssize_t)split)
			_exit(1);
		usleep(200 * 1000);
		if (write(p[1], b + split, 1) != 1)
			_exit(1);
		usleep(200 * 1000);
		if (write(p[1], b + split + 1, len - split - 1) != (ssize_t)(len - split - 1))
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", p[0]);
	read_file(fdpath, &rs, &res);
	close(p[0]);
	waitpid(pid, NULL, 0);
	if (!res.opened)
		print_message("split at %zu: open failed: %s\n", split, res.msg);
	else if (res.n != rs.n || res.truncated)
		print_message("split at %zu: %d of %d records, truncated %d\n", split, res.n, rs.n,
			      res.truncated);
	want_n = rs.n;
	free(b);
	recs_free(&rs);
	assert_true(res.opened);
	assert_int_equal(res.n, want_n);
	assert_int_equal(res.n_bad, 0);
	assert_false(res.truncated);
}

static void test_pipe_split_between_records(void **state)
{
	char path[128];
	struct recs rs = { 0 };
	uint64_t ends[256];
	size_t len;
	uint8_t *b;
	int n;

	(void)state;
	tmp_path(path, sizeof(path), "stream.data");
	write_ref(path, true, &rs);
	b = slurp(path, &len);
	n = stream_bounds(b, len, ends, ARRAY_SIZE(ends));
	free(b);
	recs_free(&rs);
	pipe_in_pieces(ends[n / 2]);
}

static void test_pipe_split_inside_record(void **state)
{
	char path[128];
	struct recs rs = { 0 };
	uint64_t ends[256];
	size_t len;
	uint8_t *b;
	int n;

	(void)state;
	tmp_path(path, sizeof(path), "stream.data");
	write_ref(path, true, &rs);
	b = slurp(path, &len);
	n = stream_bounds(b, len, ends, ARRAY_SIZE(ends));
	free(b);
	recs_free(&rs);
	pipe_in_pieces(ends[n / 2] + 12); /* inside the record after, past its header */
}

static void test_pipe_split_inside_header(void **state)
{
	char path[128];
	struct recs rs = { 0 };
	uint64_t ends[256];
	size_t len;
	uint8_t *b;
	int n;

	(void)state;
	tmp_path(path, sizeof(path), "stream.data");
	write_ref(path, true, &rs);
	b = slurp(path, &len);
	n = stream_bounds(b, len, ends, ARRAY_SIZE(ends));
	free(b);
	recs_free(&rs);
	pipe_in_pieces(ends[n / 2] + 3); /* inside the next record's 8-byte header */
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Opening and closing a reader leaves no descriptor open, for a file and a saved stream. */
static void test_no_fd_leak(void **state)
{
	const bool modes[] = { false, true };

	(void)state;
	for (size_t m = 0; m < ARRAY_SIZE(modes); m++) {
		char path[128];
		struct recs rs = { 0 };
		int before, after;

		tmp_path(path, sizeof(path), modes[m] ? "fd-pipe.data" : "fd.data");
		write_ref(path, modes[m], &rs);
		recs_free(&rs);
		before = count_fds();
		for (int i = 0; i < 10; i++) {
			struct pcl_data_reader *r = pcl_data_reader__open(path);

			assert_non_null(r);
			assert_int_equal(pcl_data_reader__is_pipe(r), modes[m]);
			while (pcl_data_reader__next(r))
				;
			pcl_data_reader__close(r);
		}
		after = count_fds();
		if (after != before)
			print_message("%s: %d descriptors before 10 open/close, %d after\n",
				      modes[m] ? "saved stream" : "file", before, after);
		assert_int_equal(after, before);
	}
}

/* ---- pcl_feature_parse_strings ---- */

static void test_parse_strings(void **state)
{
	static const char *const good[] = { "a", "",
					    "a string longer than sixty-four bytes, "
					    "so that it takes two blocks of padding" };
	struct {
		const char *name;
		uint32_t words[8];
		size_t len;
	} lies[] = {
		{ "shorter than the count", { 0 }, 3 },
		{ "count above what fits", { 1000, 4, 'a' }, 12 },
		{ "count 2, one string", { 2, 4, 'a' }, 12 },
		{ "string past the end", { 1, 64, 'a' }, 12 },
		{ "string length -1", { 1, 0xffffffff, 'a' }, 12 },
		{ "no NUL in the string", { 1, 4, 0x61616161 }, 12 },
		{ "string length 0", { 1, 0 }, 8 },
	};
	char **v = NULL;
	size_t len;
	void *s;
	int n, fails = 0;

	(void)state;
	s = pcl_feature_strings(good, ARRAY_SIZE(good), &len);
	assert_non_null(s);
	n = pcl_feature_parse_strings(s, len, &v);
	assert_int_equal(n, ARRAY_SIZE(good));
	for (int i = 0; i < n; i++) {
		assert_string_equal(v[i], good[i]);
		free(v[i]);
	}
	assert_null(v[n]);
	free(v);
	/* the same cut short anywhere is a lie */
	for (size_t l = 0; l < len; l++) {
		char row[32];

		snprintf(row, sizeof(row), "cut at %zu", l);
		v = NULL;
		fails += differ(row, "result",
				(uint64_t)(int64_t)pcl_feature_parse_strings(s, l, &v),
				(uint64_t)(int64_t)-EBADMSG);
	}
	free(s);

	s = pcl_feature_strings(NULL, 0, &len);
	assert_non_null(s);
	v = NULL;
	assert_int_equal(pcl_feature_parse_strings(s, len, &v), 0);
	free(v);
	free(s);

	for (size_t i = 0; i < ARRAY_SIZE(lies); i++) {
		v = NULL;
		n = pcl_feature_parse_strings(lies[i].words, lies[i].len, &v);
		fails += differ(lies[i].name, "result", (uint64_t)(int64_t)n,
				(uint64_t)(int64_t)-EBADMSG);
		if (n >= 0) {
			for (int k = 0; k < n; k++)
				free(v[k]);
			free(v);
		}
	}
	assert_int_equal(pcl_feature_parse_strings(NULL, 8, &v), -EBADMSG);
	assert_int_equal(fails, 0);
}

static void test_bad_paths(void **state)
{
	char path[128];

	(void)state;
	errno = 0;
	assert_null(pcl_data_reader__open(NULL));
	assert_int_equal(errno, EINVAL);
	tmp_path(path, sizeof(path), "does-not-exist");
	assert_null(pcl_data_reader__open(path));
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(pcl_last_error(), "does-not-exist"));
	tmp_path(path, sizeof(path), "empty.data");
	spit(path, "", 0);
	assert_null(pcl_data_reader__open(path));
	assert_int_equal(errno, EBADMSG);
	/* NULL-safe accessors */
	pcl_data_reader__close(NULL);
	assert_null(pcl_data_reader__next(NULL));
	assert_int_equal(pcl_data_reader__nr_attrs(NULL), 0);
	assert_false(pcl_data_reader__truncated(NULL));
}

/*
 * What -o names decides the mode: a FIFO or a character device takes a
 * stream and is neither renamed nor removed (abort included); a symlink
 * stays, its non-empty target is kept as TARGET.old and replaced; an empty
 * regular file is reused with no .old; a directory is refused.
 */
static void test_writer_targets(void **state)
{
	char path[128], old[160], target[128], buf[16];
	struct pcl_data_attr a[2];
	struct pcl_data_writer *w;
	struct stat st;
	int fd;

	(void)state;
	ref_attrs(a);
	/* a FIFO: open it for reading first, so the writer's open does not block */
	tmp_path(path, sizeof(path), "stream.fifo");
	assert_int_equal(mkfifo(path, 0600), 0);
	fd = open(path, O_RDONLY | O_NONBLOCK);
	assert_true(fd >= 0);
	w = pcl_data_writer__create(path, a, 2);
	assert_non_null(w);
	assert_true(pcl_data_writer__is_pipe(w));
	assert_int_equal(pcl_data_writer__close(w), 0);
	assert_int_equal(read(fd, buf, 8), 8);
	assert_memory_equal(buf, "PERFILE2", 8);
	w = pcl_data_writer__create(path, a, 2);
	assert_non_null(w);
	pcl_data_writer__abort(w); /* a stream given up: the FIFO stays */
	close(fd);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	snprintf(old, sizeof(old), "%s.old", path);
	assert_int_equal(access(old, F_OK), -1);
	/* a character device (a /dev/null of our own, when we may make one) */
	tmp_path(path, sizeof(path), "null");
	if (!mknod(path, S_IFCHR | 0600, makedev(1, 3))) {
		w = pcl_data_writer__create(path, a, 2);
		assert_non_null(w);
		assert_true(pcl_data_writer__is_pipe(w));
		assert_int_equal(pcl_data_writer__close(w), 0);
		assert_int_equal(lstat(path, &st), 0);
		assert_true(S_ISCHR(st.st_mode));
	}
	/* a symlink to a non-empty file */
	tmp_path(target, sizeof(target), "target.data");
	spit(target, "old bytes", 9);
	tmp_path(path, sizeof(path), "link.data");
	assert_int_equal(symlink(target, path), 0);
	w = pcl_data_writer__create(path, a, 2);
	assert_non_null(w);
	assert_false(pcl_data_writer__is_pipe(w));
	assert_int_equal(pcl_data_writer__close(w), 0);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	snprintf(old, sizeof(old), "%s.old", target);
	assert_int_equal(stat(old, &st), 0);
	assert_int_equal(st.st_size, 9);
	snprintf(old, sizeof(old), "%s.old", path);
	assert_int_equal(access(old, F_OK), -1);
	/* an empty regular file: reused, no .old */
	tmp_path(path, sizeof(path), "empty-out.data");
	spit(path, "", 0);
	w = pcl_data_writer__create(path, a, 2);
	assert_non_null(w);
	assert_int_equal(pcl_data_writer__close(w), 0);
	snprintf(old, sizeof(old), "%s.old", path);
	assert_int_equal(access(old, F_OK), -1);
	/* a directory */
	tmp_path(path, sizeof(path), "a-dir");
	assert_int_equal(mkdir(path, 0700), 0);
	assert_null(pcl_data_writer__create(path, a, 2));
	assert_int_equal(errno, EISDIR);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
}

/*
 * abort removes the file this writer made, and only it: when another file
 * has taken its name since (a second pcl record to the same -o moved ours
 * to .old and wrote its own), that one stays.
 */
static void test_writer_abort_own_file(void **state)
{
	char path[128], moved[160];
	struct pcl_data_attr a[2];
	struct pcl_data_writer *w;
	struct stat st;
	size_t len;
	uint8_t *b;

	(void)state;
	ref_attrs(a);
	tmp_path(path, sizeof(path), "taken.data");
	w = pcl_data_writer__create(path, a, 2);
	assert_non_null(w);
	snprintf(moved, sizeof(moved), "%s.mine", path);
	assert_int_equal(rename(path, moved), 0);
	spit(path, "another run's", 13);
	pcl_data_writer__abort(w);
	b = slurp(path, &len);
	assert_non_null(b);
	assert_int_equal(len, 13);
	assert_memory_equal(b, "another run's", 13);
	free(b);
	assert_int_equal(unlink(path), 0);
	/* ours, where abort finds it, goes */
	w = pcl_data_writer__create(path, a, 2);
	assert_non_null(w);
	pcl_data_writer__abort(w);
	assert_int_equal(lstat(path, &st), -1);
	assert_int_equal(errno, ENOENT);
}

static void remove_tmpdir(void)
{
	unit_remove_dir(tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		UNIT_TEST(test_round_trip_file),
		UNIT_TEST(test_round_trip_pipe),
		UNIT_TEST(test_compressed_round_trip),
		UNIT_TEST(test_mapped_large),
		UNIT_TEST(test_truncation_file),
		UNIT_TEST(test_truncation_pipe),
		UNIT_TEST(test_corruptions),
		UNIT_TEST(test_never_closed),
		UNIT_TEST(test_pipe_split_between_records),
		UNIT_TEST(test_pipe_split_inside_record),
		UNIT_TEST(test_pipe_split_inside_header),
		UNIT_TEST(test_no_fd_leak),
		UNIT_TEST(test_parse_strings),
		UNIT_TEST(test_bad_paths),
		UNIT_TEST(test_writer_targets),
		UNIT_TEST(test_writer_abort_own_file),
	};
	int ret;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/pcl-test-data-XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	remove_tmpdir();
	return ret;
}
