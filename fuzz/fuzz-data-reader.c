/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the perf.data reader (lib/data/reader.c,
 * include/pcl/data.h): files and pipe-mode streams from disk, which may be
 * cut, corrupt or hostile.
 *
 * Input: the bytes of a file. They go to a memfd opened by its
 * /proc/self/fd/N path, so the reader sees a regular file of exactly that
 * size: an input that starts with the file header is read as a file, one
 * that starts with the 16-byte pipe header as a saved stream (the reader
 * takes a file whose header says size 16 for a stream). An input that does
 * not start with the magic is also read a second time as a stream body: the
 * pipe header is put in front of it, so the fuzzer need not find the magic
 * to reach the record loop.
 *
 * Everything the reader hands out is read byte by byte (attrs, names, ids,
 * feature sections, records within header.size), so ASan checks its
 * bounds, and each record is decoded with its attr (found by id) or the
 * first one. Besides what ASan and UBSan catch, it traps when a contract
 * of include/pcl/data.h is broken:
 *   - open fails only with errno set;
 *   - every record lies inside the input, at an offset past the previous
 *     record's end, and its bytes are the input's bytes there (the reader
 *     never returns a record that is not in the file);
 *   - the read ends with errno 0 or EBADMSG, and EBADMSG comes with a
 *     message that names the offset;
 *   - attr_by_id() finds an attr holding the id it was asked for;
 *   - the build-id table (what buildid-list, buildid-cache and inject
 *     read) walks forward inside its section, ends with 0 or -EBADMSG,
 *     and each entry's name is a NUL-terminated string inside it.
 * At most MAX_RECORDS records per input are read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <pcl/common.h>
#include <pcl/buildid.h>
#include <pcl/data.h>
#include <pcl/record.h>

#define MAX_RECORDS 10000
#define PERF_MAGIC2 0x32454c4946524550ULL

#include "fuzz.h"

static volatile uint8_t sink;

static void touch(const void *p, size_t n)
{
	const uint8_t *q = p;
	uint8_t x = 0;

	if (!n)
		return;
	require(q != NULL);
	for (size_t i = 0; i < n; i++)
		x ^= q[i];
	sink ^= x;
}

/* A memfd holding @n bytes of @data; the fd is reused from input to input. */
static int load(int *fd, const char *name, const void *data, size_t n)
{
	if (*fd < 0)
		*fd = memfd_create(name, MFD_CLOEXEC);
	if (*fd < 0 || ftruncate(*fd, 0))
		return -1;
	return n && pwrite(*fd, data, n, 0) != (ssize_t)n ? -1 : 0;
}

static void check_attrs(const struct pcl_data_reader *r)
{
	int n = pcl_data_reader__nr_attrs(r);

	require(n >= 0);
	require(pcl_data_reader__attr(r, n) == NULL && pcl_data_reader__attr(r, -1) == NULL);
	for (int i = 0; i < n; i++) {
		const struct pcl_data_attr *a = pcl_data_reader__attr(r, i), *b;
		int found = 0;

		require(a != NULL && a->name != NULL);
		touch(&a->attr, sizeof(a->attr));
		touch(a->name, strlen(a->name) + 1);
		touch(a->ids, (size_t)a->nr_ids * 8);
		if (a->nr_ids) {
			b = pcl_data_reader__attr_by_id(r, a->ids[0]);
			require(b != NULL);
			for (uint32_t k = 0; k < b->nr_ids; k++)
				found |= b->ids[k] == a->ids[0];
			require(found);
		}
	}
}

static void check_build_ids(const uint8_t *tab, size_t len)
{
	struct pcl_build_id_entry e;
	size_t off = 0, prev = 0;
	char hex[41];
	int ret;

	while ((ret = pcl_build_id_table__next(tab, len, &off, &e)) > 0) {
		require(off > prev && off <= len);
		require(e.size <= sizeof(e.id));
		require(e.name >= (const char *)tab && e.name < (const char *)tab + len);
		require(memchr(e.name, '\0', len - (size_t)(e.name - (const char *)tab)));
		pcl_build_id_hex(e.id, e.size, hex);
		touch(hex, strlen(hex) + 1);
		prev = off;
	}
	require(ret == 0 || ret == -EBADMSG);
}

static void check_features(const struct pcl_data_reader *r)
{
	for (int f = 0; f < PCL_FEAT_MAX; f++) {
		size_t len = 0;
		const void *p = pcl_data_reader__feature(r, f, &len);

		if (!p)
			continue;
		touch(p, len);
		if (f == PCL_FEAT_BUILD_ID)
			check_build_ids(p, len);
		if (f == PCL_FEAT_CMDLINE || f == PCL_FEAT_CPU_TOPOLOGY) {
			char **v = NULL;
			int k = pcl_feature_parse_strings(p, len, &v);

			require(k >= 0 || k == -EBADMSG || k == -ENOMEM);
			for (int i = 0; i < k; i++) {
				if (v[i])
					touch(v[i], strlen(v[i]) + 1);
				free(v[i]);
			}
			if (k >= 0)
				free(v);
		}
	}
}

static void decode(const struct pcl_data_reader *r, const struct perf_event_header *h)
{
	const struct pcl_data_attr *a = pcl_data_reader__attr(r, 0);
	struct pcl_record rec;
	uint64_t id;

	if (!a)
		return;
	id = pcl_record_identifier(h, h->size, a->attr.sample_id_all);
	if (id && pcl_data_reader__attr_by_id(r, id))
		a = pcl_data_reader__attr_by_id(r, id);
	if (pcl_record_decode(h, h->size, &a->attr, &rec) == 0)
		sink ^= (uint8_t)(rec.type ^ rec.size);
}

/*
 * Read @path, whose bytes are @file[0..@n). The reader of a saved stream
 * does not close its fd (reported bug); close what it left open so that a
 * long run does not end in EMFILE.
 */
static void read_all(const char *path, const uint8_t *file, size_t n)
{
	struct pcl_data_reader *r;
	const struct perf_event_header *h;
	uint64_t end = 0;
	int next_fd = dup(0), count = 0;

	if (next_fd >= 0)
		close(next_fd);
	errno = 0;
	r = pcl_data_reader__open(path);
	if (!r) {
		require(errno != 0);
		return;
	}
	check_attrs(r);
	check_features(r);
	while (count < MAX_RECORDS) {
		uint64_t off;

		errno = 0;
		h = pcl_data_reader__next(r);
		if (!h) {
			require(errno == 0 || errno == EBADMSG);
			if (errno == EBADMSG)
				require(strstr(pcl_last_error(), "offset 0x") != NULL);
			break;
		}
		count++;
		off = pcl_data_reader__offset(r);
		require(h->size >= sizeof(*h));
		require(off >= end && off <= n && h->size <= n - off);
		require(!memcmp(h, file + off, h->size));
		end = off + h->size;
		touch(h, h->size);
		decode(r, h);
	}
	sink ^= (uint8_t)pcl_data_reader__truncated(r);
	sink ^= (uint8_t)pcl_data_reader__is_pipe(r);
	pcl_data_reader__close(r);
	if (next_fd >= 0 && fcntl(next_fd, F_GETFD) >= 0)
		close(next_fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int file_fd = -1, stream_fd = -1;
	static const uint64_t pipe_hdr[2] = { PERF_MAGIC2, 16 };
	char path[64];
	uint64_t magic = 0;
	uint8_t *stream;

	if (load(&file_fd, "fuzz-data", data, size))
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", file_fd);
	read_all(path, data, size);

	if (size >= 8)
		memcpy(&magic, data, 8);
	if (magic == PERF_MAGIC2 || size > SIZE_MAX - 16)
		return 0;
	stream = malloc(size + 16);
	if (!stream)
		return 0;
	memcpy(stream, pipe_hdr, 16);
	memcpy(stream + 16, data, size);
	if (!load(&stream_fd, "fuzz-stream", stream, size + 16)) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", stream_fd);
		read_all(path, stream, size + 16);
	}
	free(stream);
	return 0;
}
