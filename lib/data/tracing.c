/* SPDX-License-Identifier: MIT */
/*
 * The TRACING_DATA feature: what perf needs to decode tracepoint events,
 * copied from tracefs in perf's layout:
 *   "\027\010\104tracing" "0.6\0" endian(u8) sizeof(long)(u8) page_size(u32)
 *   "header_page\0" u64 size, bytes; "header_event\0" u64 size, bytes
 *   u32 nr ftrace formats { u64 size, bytes }
 *   u32 nr systems { "system\0" u32 nr { u64 size, bytes } }
 *   u32 kallsyms size (0: none, as perf writes it), u32 printk size, bytes,
 *   u64 saved_cmdlines size, bytes
 * Only the formats of the tracepoints in the file are copied. The printk
 * formats (tracefs printk_formats: the strings that trace_printk and
 * tracepoint_string fields point at, e.g. rcu:rcu_utilization's) and the
 * saved cmdlines are copied whole, as perf copies them, so that perf's
 * libtraceevent prints those fields as text; a file missing is size 0.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"

static void put(struct bytebuf *b, const void *d, size_t n)
{
	bytebuf_put(b, d, n);
}

/* A whole tracefs file (they are small text files whose size stat() does not know). */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t size = 0;
	FILE *m;
	char chunk[4096];
	size_t n;

	if (!f)
		return NULL;
	m = open_memstream(&buf, &size);
	if (!m) {
		fclose(f);
		return NULL;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, n, m);
	fclose(f);
	fclose(m);
	*len = size;
	return buf;
}

/* u64 size + the file's bytes; @named puts "name\0" first. */
static int put_file(struct bytebuf *b, const char *path, const char *named)
{
	size_t len;
	char *d = slurp(path, &len);
	uint64_t sz;

	if (!d)
		return -errno ? -errno : -ENOENT;
	if (named)
		put(b, named, strlen(named) + 1);
	sz = len;
	put(b, &sz, 8);
	put(b, d, len);
	free(d);
	return 0;
}

/* tracefs file @name with a size of @width (4 or 8) bytes first; size 0 when unreadable. */
static void put_sized_file(struct bytebuf *b, const char *tfs, const char *name, int width)
{
	char path[1024];
	size_t len = 0;
	char *d;
	uint32_t s32;
	uint64_t s64;

	snprintf(path, sizeof(path), "%s/%s", tfs, name);
	d = slurp(path, &len);
	if (!d || (width == 4 && len > UINT32_MAX))
		len = 0;
	s32 = (uint32_t)len;
	s64 = len;
	if (width == 4)
		put(b, &s32, 4);
	else
		put(b, &s64, 8);
	if (len)
		put(b, d, len);
	free(d);
}

/* The format file of tracepoint @id: search events/SYS/NAME/id. */
static bool find_tracepoint(const char *tfs, uint64_t id, char *sys, char *name, size_t size)
{
	char path[1024], buf[64];
	struct dirent *se, *ne;
	DIR *sd, *nd;
	bool found = false;

	snprintf(path, sizeof(path), "%s/events", tfs);
	sd = opendir(path);
	while (sd && !found && (se = readdir(sd))) {
		if (se->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/events/%s", tfs, se->d_name);
		nd = opendir(path);
		while (nd && !found && (ne = readdir(nd))) {
			snprintf(path, sizeof(path), "%s/events/%s/%s/id", tfs, se->d_name,
				 ne->d_name);
			if (ne->d_name[0] != '.' && read_small_file(path, buf, sizeof(buf)) > 0 &&
			    strtoull(buf, NULL, 10) == id) {
				snprintf(sys, size, "%s", se->d_name);
				snprintf(name, size, "%s", ne->d_name);
				found = true;
			}
		}
		if (nd)
			closedir(nd);
	}
	if (sd)
		closedir(sd);
	return found;
}

struct tp {
	char sys[256], name[256];
};

static int cmp_tp(const void *a, const void *b)
{
	return strcmp(((const struct tp *)a)->sys, ((const struct tp *)b)->sys);
}

static void put_systems(struct bytebuf *b, const char *tfs, struct tp *tps, int n)
{
	char path[1024];
	uint32_t nsys = 0;

	qsort(tps, (size_t)n, sizeof(*tps), cmp_tp);
	for (int i = 0; i < n; i++)
		nsys += !i || strcmp(tps[i].sys, tps[i - 1].sys);
	put(b, &nsys, 4);
	for (int i = 0; i < n;) {
		int j = i;
		uint32_t cnt;

		while (j < n && !strcmp(tps[j].sys, tps[i].sys))
			j++;
		cnt = (uint32_t)(j - i);
		put(b, tps[i].sys, strlen(tps[i].sys) + 1);
		put(b, &cnt, 4);
		for (; i < j; i++) {
			snprintf(path, sizeof(path), "%s/events/%s/%s/format", tfs, tps[i].sys,
				 tps[i].name);
			put_file(b, path, NULL);
		}
	}
}

PCL_API int pcl_data_writer__add_tracing_data(struct pcl_data_writer *w,
					      const struct perf_event_attr *const *attrs, int nr)
{
	static const uint8_t magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	const char *tfs = pcl_tracefs(false);
	struct bytebuf b = { 0 };
	struct tp *tps;
	char path[1024];
	uint8_t endian = 0, lsize = sizeof(long);
	uint32_t page = (uint32_t)getpagesize(), zero32 = 0;
	int n = 0, ret;

	if (!w || !attrs)
		return pcl_err(EINVAL, "pcl_data_writer__add_tracing_data: invalid argument");
	tps = calloc((size_t)nr + 1, sizeof(*tps));
	if (!tps)
		return pcl_err(ENOMEM, "pcl_data_writer__add_tracing_data: out of memory");
	for (int i = 0; tfs && i < nr; i++)
		if (attrs[i]->type == PERF_TYPE_TRACEPOINT &&
		    find_tracepoint(tfs, attrs[i]->config, tps[n].sys, tps[n].name, 256))
			n++;
	if (!n) {
		free(tps);
		return 0;
	}
	put(&b, magic, sizeof(magic));
	put(&b, "0.6", 4);
	put(&b, &endian, 1);
	put(&b, &lsize, 1);
	put(&b, &page, 4);
	snprintf(path, sizeof(path), "%s/events/header_page", tfs);
	put_file(&b, path, "header_page");
	snprintf(path, sizeof(path), "%s/events/header_event", tfs);
	put_file(&b, path, "header_event");
	put(&b, &zero32, 4); /* no ftrace-internal formats */
	put_systems(&b, tfs, tps, n);
	put(&b, &zero32, 4); /* kallsyms: perf resolves kernel addresses itself */
	put_sized_file(&b, tfs, "printk_formats", 4);
	put_sized_file(&b, tfs, "saved_cmdlines", 8);
	ret = b.oom ? -ENOMEM : pcl_data_writer__set_feature(w, PCL_FEAT_TRACING_DATA, b.p, b.len);
	free(b.p);
	free(tps);
	return ret;
}
