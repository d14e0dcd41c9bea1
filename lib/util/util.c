/* SPDX-License-Identifier: MIT */
/* Small helpers shared across libpcl: file reads, growable arrays, edit distance. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"

static int read_fd_all(int fd, char *buf, size_t size)
{
	size_t len = 0;

	while (len + 1 < size) {
		ssize_t n = read(fd, buf + len, size - 1 - len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		buf[--len] = '\0';
	return (int)len;
}

int read_small_fileat(int dirfd, const char *name, char *buf, size_t size)
{
	int fd, ret;

	if (!size)
		return -EINVAL;
	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = read_fd_all(fd, buf, size);
	close(fd);
	return ret;
}

int read_small_file(const char *path, char *buf, size_t size)
{
	return read_small_fileat(AT_FDCWD, path, buf, size);
}

int read_int_file(const char *path, long long *val)
{
	char buf[64], *end;
	int ret = read_small_file(path, buf, sizeof(buf));

	if (ret < 0)
		return ret;
	errno = 0;
	*val = strtoll(buf, &end, 0);
	if (errno || end == buf)
		return -EINVAL;
	return 0;
}

int grow_array(void **arr, int *alloc, int need, size_t elem)
{
	int n = *alloc ? *alloc : 8;
	void *p;

	if (need <= *alloc)
		return 0;
	while (n < need)
		n *= 2;
	p = realloc(*arr, (size_t)n * elem);
	if (!p)
		return -ENOMEM;
	memset((char *)p + (size_t)*alloc * elem, 0, (size_t)(n - *alloc) * elem);
	*arr = p;
	*alloc = n;
	return 0;
}

int edit_distance(const char *a, const char *b, int cap)
{
	size_t la = strlen(a), lb = strlen(b);
	int rows[3][128], *r2 = rows[0], *r1 = rows[1], *r0 = rows[2], *t, i, j;

	if (lb >= ARRAY_SIZE(rows[0]) || la >= 256)
		return cap + 1;
	/* r1: the row of a's first i-1 letters, r2 the one before, r0 this one */
	for (j = 0; j <= (int)lb; j++)
		r1[j] = j;
	for (i = 1; i <= (int)la; i++) {
		int best = r0[0] = i;

		for (j = 1; j <= (int)lb; j++) {
			int sub = r1[j - 1] + (a[i - 1] != b[j - 1]);
			int del = r1[j] + 1, ins = r0[j - 1] + 1;
			int d = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);

			/* two letters swapped ("lsit") are one slip, not two */
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    r2[j - 2] + 1 < d)
				d = r2[j - 2] + 1;
			r0[j] = d;
			if (d < best)
				best = d;
		}
		if (best > cap)
			return cap + 1;
		t = r2;
		r2 = r1;
		r1 = r0;
		r0 = t;
	}
	return r1[lb];
}

void bytebuf_put(struct bytebuf *b, const void *data, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n > b->alloc) {
		size_t a = b->alloc ? b->alloc : 256;
		uint8_t *np;

		while (a < b->len + n)
			a *= 2;
		np = realloc(b->p, a);
		if (!np) {
			b->oom = true;
			return;
		}
		b->p = np;
		b->alloc = a;
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
}
