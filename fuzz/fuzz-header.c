/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the header description (lib/output/header.c,
 * include/pcl/header.h): every feature section of a perf.data file or
 * stream, parsed from bytes that may be cut, corrupt or hostile.
 *
 * Input: the bytes of a file, put in a memfd opened by its /proc/self/fd/N
 * path (see fuzz-data-reader.c). A file header is read as a file, the
 * 16-byte pipe header as a saved stream. What the reader opens is printed
 * twice, without and with PCL_HEADER_FULL (and, for a stream, with
 * PCL_HEADER_READ_STREAM), into a memory stream. Besides what ASan and
 * UBSan catch, it traps when a promise of include/pcl/header.h is broken:
 *   - the return is 0, or -EBADMSG for a stream (a section perf cannot
 *     process, or a corrupt record), or -ENOMEM;
 *   - the text starts with perf's "# ========\n# captured on    : ", and a
 *     file's (whatever its sections hold) ends with a "# missing features: "
 *     line and "# ========\n#\n";
 *   - a NUL never reaches the text (each string is checked for its NUL).
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <pcl/common.h>
#include <pcl/data.h>
#include <pcl/header.h>

#include "fuzz.h"

static int load(int *fd, const void *data, size_t n)
{
	if (*fd < 0)
		*fd = memfd_create("fuzz-header", MFD_CLOEXEC);
	if (*fd < 0 || ftruncate(*fd, 0))
		return -1;
	return n && pwrite(*fd, data, n, 0) != (ssize_t)n ? -1 : 0;
}

static bool ends_with(const char *s, size_t len, const char *end)
{
	size_t n = strlen(end);

	return len >= n && !memcmp(s + len - n, end, n);
}

static void print_once(const char *path, unsigned int flags)
{
	struct pcl_data_reader *r = pcl_data_reader__open(path);
	char *text = NULL;
	size_t len = 0;
	FILE *m;
	bool pipe;
	int ret;

	if (!r)
		return;
	pipe = pcl_data_reader__is_pipe(r);
	m = open_memstream(&text, &len);
	require(m != NULL);
	ret = pcl_header__print(m, r, path, pipe ? flags | PCL_HEADER_READ_STREAM : flags);
	fclose(m);
	pcl_data_reader__close(r);
	require(ret == 0 || ret == -ENOMEM || (pipe && ret == -EBADMSG));
	require(!strncmp(text, "# ========\n# captured on    : ", 30));
	require(strlen(text) == len);
	if (!pipe && !ret) {
		/* the lines of a section may say anything: look at the last ones only */
		const char *tail = "\n# ========\n#\n", *last;

		require(ends_with(text, len, tail));
		text[len - strlen(tail)] = '\0';
		last = strrchr(text, '\n');
		last = last ? last + 1 : text;
		require(!strncmp(last, "# missing features: ", 20));
	}
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	char path[64];

	if (load(&fd, data, size))
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	print_once(path, 0);
	print_once(path, PCL_HEADER_FULL);
	return 0;
}
