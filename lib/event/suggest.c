/* SPDX-License-Identifier: MIT */
/*
 * "Did you mean": the known event name closest to a misspelt one, by edit
 * distance over generic and cache names, every PMU's aliases, and, for a
 * "sys:name" spelling, the tracepoints of that system.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include "internal.h"

struct best {
	char name[128];
	int dist;
};

static void consider(struct best *b, const char *want, const char *cand)
{
	int d;

	if (!cand)
		return;
	d = edit_distance(want, cand, b->dist - 1);
	if (d < b->dist) {
		b->dist = d;
		snprintf(b->name, sizeof(b->name), "%s", cand);
	}
}

static void consider_tracepoints(struct best *b, const char *want)
{
	const char *tfs = pcl_tracefs(false), *colon = strchr(want, ':');
	char path[384], full[256];
	struct dirent *de;
	DIR *d;

	if (!tfs || !colon || colon - want >= 128)
		return;
	snprintf(path, sizeof(path), "%s/events/%.*s", tfs, (int)(colon - want), want);
	d = opendir(path);
	if (!d) {
		/* suggest the system */
		snprintf(path, sizeof(path), "%s/events", tfs);
		d = opendir(path);
		if (!d)
			return;
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(full, sizeof(full), "%s:%s", de->d_name, colon + 1);
			consider(b, want, full);
		}
		closedir(d);
		return;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(full, sizeof(full), "%.*s:%s", (int)(colon - want), want, de->d_name);
		consider(b, want, full);
	}
	closedir(d);
}

/* at most a third of the name may differ, and never more than 3 edits */
static int suggest_limit(size_t len)
{
	int d = (int)(len / 3) + 1;

	return d > 4 ? 4 : d < 2 ? 2 : d;
}

const char *suggest_word(const char *word, const char *const *words)
{
	const char *best = NULL;
	int dist = suggest_limit(strlen(word)), d;

	for (; *words; words++) {
		d = edit_distance(word, *words, dist - 1);
		if (d < dist) {
			dist = d;
			best = *words;
		}
	}
	return best;
}

PCL_API const char *pcl_event_suggest(const char *name)
{
	static __thread char out[128];
	struct best b;
	const struct pcl_event_name *n;
	struct pcl_pmu *pmu = NULL;
	size_t len;

	if (!name || !*name)
		return NULL;
	len = strlen(name);
	b.dist = suggest_limit(len);
	b.name[0] = '\0';
	for (int i = 0; (n = pcl_event_names(i)); i++) {
		consider(&b, name, n->name);
		consider(&b, name, n->alias);
	}
	while ((pmu = pcl_pmu__next(pmu))) {
		int nr = pcl_pmu__nr_aliases(pmu);

		for (int i = 0; i < nr; i++)
			consider(&b, name, pcl_pmu__alias(pmu, i)->name);
	}
	if (strchr(name, ':'))
		consider_tracepoints(&b, name);
	if (!b.name[0])
		return NULL;
	snprintf(out, sizeof(out), "%s", b.name);
	return out;
}

PCL_API int pcl_event_probe(const struct perf_event_attr *attr)
{
	struct perf_event_attr a;
	int fd;

	if (!attr)
		return pcl_err(EINVAL, "pcl_event_probe: invalid argument");
	a = *attr;
	a.size = sizeof(a);
	a.disabled = 1;
	fd = pcl_perf_event_open(&a, 0, -1, -1, 0);
	if (fd < 0 && (fd == -EACCES || fd == -EPERM) && !a.exclude_kernel) {
		a.exclude_kernel = a.exclude_hv = 1;
		fd = pcl_perf_event_open(&a, 0, -1, -1, 0);
	}
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}
