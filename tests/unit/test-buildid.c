/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the build-id table reader and perf's build-id cache
 * (include/pcl/buildid.h, lib/data/buildid-cache.c): a table written by the
 * writer reads back entry by entry; every cut and a table of corruptions
 * give -EBADMSG or a clean end, never a read past the bytes; the cache adds
 * this test binary in perf's layout, lists, names and removes it, and
 * refuses a build that is not the file's. Scratch files in a temporary
 * directory, removed at the end.
 */
#include "unit.h"

#include <limits.h>
#include <pcl/buildid.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

static char tmpdir[64];

/* A BUILD_ID table of two entries, as the writer lays it out. */
static uint8_t *make_table(size_t *len)
{
	static const uint8_t id1[20] = { 1,  2,	 3,  4,	 5,  6,	 7,  8,	 9,  10,
					 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 };
	static const uint8_t id2[16] = { 0xaa, 0xbb, 0xcc, 0xdd, 1, 2,	3,  4,
					 5,    6,    7,	   8,	 9, 10, 11, 12 };
	struct perf_event_attr attr = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(attr) };
	struct pcl_data_attr a = { .attr = attr, .name = "x" };
	struct pcl_data_writer *w;
	struct pcl_data_reader *r;
	char path[128];
	const void *f;
	uint8_t *copy = NULL;

	snprintf(path, sizeof(path), "%s/t.data", tmpdir);
	w = pcl_data_writer__create(path, &a, 1);
	assert_non_null(w);
	assert_int_equal(pcl_data_writer__add_build_id(w, -1, true, id1, 20, "[kernel.kallsyms]"),
			 0);
	assert_int_equal(pcl_data_writer__add_build_id(w, -1, false, id2, 16, "/usr/bin/some-tool"),
			 0);
	assert_int_equal(pcl_data_writer__close(w), 0);
	r = pcl_data_reader__open(path);
	assert_non_null(r);
	f = pcl_data_reader__feature(r, PCL_FEAT_BUILD_ID, len);
	assert_non_null(f);
	copy = malloc(*len);
	memcpy(copy, f, *len);
	pcl_data_reader__close(r);
	return copy;
}

static void test_table_round_trip(void **state)
{
	struct pcl_build_id_entry e;
	size_t len, off = 0;
	uint8_t *t = make_table(&len);
	char hex[41];

	(void)state;
	assert_int_equal(pcl_build_id_table__next(t, len, &off, &e), 1);
	assert_true(e.kernel);
	assert_int_equal(e.size, 20);
	assert_string_equal(e.name, "[kernel.kallsyms]");
	pcl_build_id_hex(e.id, e.size, hex);
	assert_string_equal(hex, "0102030405060708090a0b0c0d0e0f1011121314");
	assert_int_equal(pcl_build_id_table__next(t, len, &off, &e), 1);
	assert_false(e.kernel);
	assert_int_equal(e.size, 16);
	assert_string_equal(e.name, "/usr/bin/some-tool");
	pcl_build_id_hex(e.id, e.size, hex);
	assert_string_equal(hex, "aabbccdd0102030405060708090a0b0c");
	assert_int_equal(pcl_build_id_table__next(t, len, &off, &e), 0);
	assert_int_equal(off, len);
	free(t);
}

/* Every cut: whole entries, then a clean end or -EBADMSG; never past @cut bytes (ASan). */
static void test_table_cuts(void **state)
{
	size_t len;
	uint8_t *t = make_table(&len);

	(void)state;
	for (size_t cut = 0; cut <= len; cut++) {
		uint8_t *c = malloc(cut ? cut : 1);
		struct pcl_build_id_entry e;
		size_t off = 0;
		int ret, n = 0;

		memcpy(c, t, cut);
		while ((ret = pcl_build_id_table__next(c, cut, &off, &e)) > 0)
			n++;
		assert_true(ret == 0 || ret == -EBADMSG);
		assert_true(off <= cut);
		if (cut == len)
			assert_int_equal(n, 2);
		free(c);
	}
	free(t);
}

static void test_table_corrupt(void **state)
{
	static const struct {
		const char *what;
		size_t at;
		uint16_t value;
	} patches[] = {
		{ "size below an entry", 6, 8 },
		{ "size past the table", 6, 0xfff0 },
		{ "size 0", 6, 0 },
	};
	size_t len;
	uint8_t *t = make_table(&len);

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(patches); i++) {
		uint8_t *c = malloc(len);
		struct pcl_build_id_entry e;
		size_t off = 0;

		memcpy(c, t, len);
		memcpy(c + patches[i].at, &patches[i].value, 2);
		if (pcl_build_id_table__next(c, len, &off, &e) != -EBADMSG) {
			print_error("%s: not refused\n", patches[i].what);
			fail();
		}
		free(c);
	}
	/* a name without its NUL inside the entry */
	{
		uint8_t *c = malloc(len);
		struct pcl_build_id_entry e;
		size_t off = 0;
		uint16_t size;

		memcpy(c, t, len);
		memcpy(&size, c + 6, 2);
		memset(c + 8 + 4 + 24, 'x', size - (8 + 4 + 24));
		assert_int_equal(pcl_build_id_table__next(c, len, &off, &e), -EBADMSG);
		free(c);
	}
	free(t);
}

static void test_cache(void **state)
{
	char dir[128], self[PATH_MAX], ln[PATH_MAX + 64], hex[41], *orig, **ids;
	uint8_t id[20], other[20];
	ssize_t n;
	int size;

	(void)state;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(n > 0);
	self[n] = '\0';
	size = pcl_build_id_read(self, id);
	if (size <= 0)
		skip(); /* built without a build id */
	pcl_build_id_hex(id, size, hex);
	snprintf(dir, sizeof(dir), "%s/cache", tmpdir);
	assert_int_equal(pcl_buildid_cache__list(dir, false, &ids), 0); /* no cache yet */
	pcl_strings_free(ids, 0);
	assert_int_equal(pcl_buildid_cache__add(dir, self, id, size), 0);
	assert_int_equal(pcl_buildid_cache__add(dir, self, id, size), 0); /* again: kept */
	snprintf(ln, sizeof(ln), "%s/.build-id/%.2s/%s/elf", dir, hex, hex + 2);
	assert_int_equal(access(ln, R_OK), 0);
	assert_true(pcl_buildid_cache__has(dir, hex));
	orig = pcl_buildid_cache__origname(dir, hex);
	assert_non_null(orig);
	assert_string_equal(orig, self);
	free(orig);
	assert_int_equal(pcl_buildid_cache__list(dir, true, &ids), 1);
	assert_string_equal(ids[0], hex);
	pcl_strings_free(ids, -1);
	assert_int_equal(pcl_buildid_cache__path_ids(dir, self, &ids), 1);
	pcl_strings_free(ids, 1);
	/* another build under this name is not what the file is */
	memcpy(other, id, sizeof(other));
	other[0] ^= 0xff;
	assert_int_equal(pcl_buildid_cache__add(dir, self, other, size), -ESTALE);
	assert_int_equal(pcl_buildid_cache__remove(dir, hex), 0);
	assert_false(pcl_buildid_cache__has(dir, hex));
	assert_int_equal(pcl_buildid_cache__remove(dir, hex), -ENOENT);
	assert_int_equal(pcl_buildid_cache__list(dir, false, &ids), 0);
	pcl_strings_free(ids, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		UNIT_TEST(test_table_round_trip),
		UNIT_TEST(test_table_cuts),
		UNIT_TEST(test_table_corrupt),
		UNIT_TEST(test_cache),
	};
	int ret;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/pcl-test-buildid-XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	unit_remove_dir(tmpdir);
	return ret;
}
