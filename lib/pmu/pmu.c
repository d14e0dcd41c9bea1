/* SPDX-License-Identifier: MIT */
/*
 * The registry of event sources.
 *
 * Every kernel PMU under /sys/bus/event_source/devices is one entry with the
 * kernel ops; PERF_TYPE_HARDWARE and PERF_TYPE_HW_CACHE, which have no sysfs
 * directory of their own, get hidden entries so every parsed event has a
 * PMU. User-space sources join through pcl_pmu_register() with their own ops
 * and are then indistinguishable to the parser and evlist.
 *
 * Invariants: entries are never removed or moved (pointers handed out stay
 * valid); the array of pointers is kept sorted by name under `lock`;
 * aliases and formats of a kernel PMU are read from sysfs on first use,
 * once, under the same lock, so start-up does not pay for PMUs nobody uses.
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"

#define SYSFS_PMUS "/sys/bus/event_source/devices"

struct pcl_pmu {
	char *name;
	uint32_t type;
	bool kernel;
	bool hidden; /* not listed: hardware/hw_cache pseudo entries */
	bool bare_names;
	bool loaded; /* aliases and formats read */
	const struct pcl_pmu_ops *ops;
	struct pcl_pmu_ops own_ops; /* a user-space source's ops, at this library's size */
	void *ctx;
	struct pcl_pmu_alias *aliases;
	int nr_aliases;
	struct pcl_pmu_format *formats;
	int nr_formats;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct pcl_pmu **pmus;
static int nr_pmus, alloc_pmus;
static uint32_t next_user_type = PCL_PMU_TYPE_USER_BASE;

static int cmp_pmu(const void *a, const void *b)
{
	return strcmp((*(struct pcl_pmu *const *)a)->name, (*(struct pcl_pmu *const *)b)->name);
}

/* Caller holds lock. */
static struct pcl_pmu *find_locked(const char *name)
{
	int lo = 0, hi = nr_pmus - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2, c = strcmp(name, pmus[mid]->name);

		if (!c)
			return pmus[mid];
		if (c < 0)
			hi = mid - 1;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* Caller holds lock. */
static struct pcl_pmu *find_type_locked(uint32_t type)
{
	for (int i = 0; i < nr_pmus; i++)
		if (pmus[i]->type == type)
			return pmus[i];
	return NULL;
}

/* Caller holds lock. */
static struct pcl_pmu *add_locked(const char *name, uint32_t type, bool kernel)
{
	struct pcl_pmu *pmu;

	if (grow_array((void **)&pmus, &alloc_pmus, nr_pmus + 1, sizeof(*pmus)))
		return NULL;
	pmu = calloc(1, sizeof(*pmu));
	if (!pmu)
		return NULL;
	pmu->name = strdup(name);
	if (!pmu->name) {
		free(pmu);
		return NULL;
	}
	pmu->type = type;
	pmu->kernel = kernel;
	pmu->ops = kernel ? &pmu_kernel_ops : NULL;
	pmus[nr_pmus++] = pmu;
	qsort(pmus, (size_t)nr_pmus, sizeof(*pmus), cmp_pmu);
	return pmu;
}

static void scan_sysfs(void)
{
	DIR *dir = opendir(SYSFS_PMUS);
	struct dirent *de;
	char path[512], buf[32];
	struct pcl_pmu *pmu;

	if (dir) {
		while ((de = readdir(dir))) {
			long type;

			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), SYSFS_PMUS "/%s/type", de->d_name);
			if (read_small_file(path, buf, sizeof(buf)) <= 0)
				continue;
			type = strtol(buf, NULL, 0);
			add_locked(de->d_name, (uint32_t)type, true);
		}
		closedir(dir);
	}
	/* Generic types that sysfs does not list on every machine. */
	if (!find_type_locked(PERF_TYPE_SOFTWARE) && (pmu = add_locked("software", 1, true)))
		pmu->loaded = true;
	if ((pmu = add_locked("hardware", PERF_TYPE_HARDWARE, true))) {
		pmu->hidden = true;
		pmu->loaded = true;
	}
	if ((pmu = add_locked("hw_cache", PERF_TYPE_HW_CACHE, true))) {
		pmu->hidden = true;
		pmu->loaded = true;
	}
	if (!find_type_locked(PERF_TYPE_TRACEPOINT) && (pmu = add_locked("tracepoint", 2, true)))
		pmu->loaded = true;
	if (!find_type_locked(PERF_TYPE_BREAKPOINT) && (pmu = add_locked("breakpoint", 5, true)))
		pmu->loaded = true;
}

static void init_registry(void)
{
	pthread_mutex_lock(&lock);
	scan_sysfs();
	pthread_mutex_unlock(&lock);
	pmu_register_builtin();
}

static void ensure_init(void)
{
	pthread_once(&once, init_registry);
}

/* Parse "config1:0-7,32-35" into a format field. */
static int parse_format(const char *name, const char *spec, struct pcl_pmu_format *f)
{
	const char *p = spec;
	char *end;

	if (strncmp(p, "config", 6))
		return -EINVAL;
	p += 6;
	f->config = 0;
	if (*p >= '0' && *p <= '9')
		f->config = (int)strtol(p, (char **)&p, 10);
	if (*p++ != ':' || f->config > 3)
		return -EINVAL;
	f->mask = 0;
	while (*p) {
		long lo = strtol(p, &end, 10), hi = lo;

		if (end == p)
			return -EINVAL;
		p = end;
		if (*p == '-') {
			hi = strtol(p + 1, &end, 10);
			if (end == p + 1)
				return -EINVAL;
			p = end;
		}
		if (lo < 0 || hi > 63 || lo > hi)
			return -EINVAL;
		for (long b = lo; b <= hi; b++)
			f->mask |= 1ULL << b;
		if (*p == ',')
			p++;
		else if (*p)
			return -EINVAL;
	}
	f->name = strdup(name);
	return f->name ? 0 : -ENOMEM;
}

static void load_formats(struct pcl_pmu *pmu)
{
	char path[512], buf[256];
	DIR *dir;
	struct dirent *de;
	int dfd, alloc = 0;

	snprintf(path, sizeof(path), SYSFS_PMUS "/%s/format", pmu->name);
	dir = opendir(path);
	if (!dir)
		return;
	dfd = dirfd(dir);
	while ((de = readdir(dir))) {
		struct pcl_pmu_format f;

		if (de->d_name[0] == '.' ||
		    read_small_fileat(dfd, de->d_name, buf, sizeof(buf)) <= 0)
			continue;
		if (parse_format(de->d_name, buf, &f))
			continue;
		if (grow_array((void **)&pmu->formats, &alloc, pmu->nr_formats + 1, sizeof(f))) {
			free((char *)f.name);
			break;
		}
		pmu->formats[pmu->nr_formats++] = f;
	}
	closedir(dir);
}

static int cmp_alias(const void *a, const void *b)
{
	return strcmp(((const struct pcl_pmu_alias *)a)->name,
		      ((const struct pcl_pmu_alias *)b)->name);
}

static bool is_alias_meta(const char *name)
{
	static const char *const sfx[] = { ".scale", ".unit", ".per-pkg", ".snapshot" };
	size_t len = strlen(name);

	for (size_t i = 0; i < ARRAY_SIZE(sfx); i++) {
		size_t sl = strlen(sfx[i]);

		if (len > sl && !strcmp(name + len - sl, sfx[i]))
			return true;
	}
	return false;
}

static void load_aliases(struct pcl_pmu *pmu)
{
	char path[512], buf[512], meta[300];
	DIR *dir;
	struct dirent *de;
	int dfd, alloc = 0;

	snprintf(path, sizeof(path), SYSFS_PMUS "/%s/events", pmu->name);
	dir = opendir(path);
	if (!dir)
		return;
	dfd = dirfd(dir);
	while ((de = readdir(dir))) {
		struct pcl_pmu_alias a = { 0 };

		if (de->d_name[0] == '.' || is_alias_meta(de->d_name))
			continue;
		if (read_small_fileat(dfd, de->d_name, buf, sizeof(buf)) < 0)
			continue;
		a.name = strdup(de->d_name);
		a.terms = strdup(buf);
		a.scale = 1.0;
		snprintf(meta, sizeof(meta), "%s.scale", de->d_name);
		if (read_small_fileat(dfd, meta, buf, sizeof(buf)) > 0)
			a.scale = strtod(buf, NULL);
		snprintf(meta, sizeof(meta), "%s.unit", de->d_name);
		if (read_small_fileat(dfd, meta, buf, sizeof(buf)) > 0)
			a.unit = strdup(buf);
		if (!a.name || !a.terms ||
		    grow_array((void **)&pmu->aliases, &alloc, pmu->nr_aliases + 1, sizeof(a))) {
			free((char *)a.name);
			free((char *)a.terms);
			free((char *)a.unit);
			break;
		}
		pmu->aliases[pmu->nr_aliases++] = a;
	}
	closedir(dir);
	if (pmu->nr_aliases)
		qsort(pmu->aliases, (size_t)pmu->nr_aliases, sizeof(*pmu->aliases), cmp_alias);
}

static void ensure_loaded(struct pcl_pmu *pmu)
{
	pthread_mutex_lock(&lock);
	if (!pmu->loaded) {
		if (pmu->kernel) {
			load_aliases(pmu);
			load_formats(pmu);
		}
		pmu->loaded = true;
	}
	pthread_mutex_unlock(&lock);
}

PCL_API struct pcl_pmu *pcl_pmu_register(const struct pcl_pmu_desc *desc)
{
	ensure_init();
	return pmu_register_desc(desc);
}

/* Registration without the lazy init: the init itself registers the built-in sources. */
struct pcl_pmu *pmu_register_desc(const struct pcl_pmu_desc *desc)
{
	struct pcl_pmu_alias *aliases = NULL;
	struct pcl_pmu *pmu = NULL;
	struct pcl_pmu_desc d;
	struct pcl_pmu_ops ops;
	size_t n;
	int ret;

	if (!desc)
		return pcl_err_null(EINVAL, "pcl_pmu_register: no struct pcl_pmu_desc");
	ret = opts_copy(&d, desc, "pcl_pmu_desc");
	if (!ret && !d.ops)
		ret = pcl_err(EINVAL, "pcl_pmu_register: no ops");
	if (!ret)
		ret = opts_copy(&ops, d.ops, "pcl_pmu_ops");
	if (!ret && (!d.name || !*d.name || !ops.add || !ops.read))
		ret = pcl_err(EINVAL, "pcl_pmu_register: needs a name and the ops add and read");
	if (ret)
		return pcl_err_null(-ret, NULL);
	desc = &d;
	n = desc->nr_aliases;
	/* the alias copy comes first: a registered PMU cannot be taken back */
	if (n && !(aliases = calloc(n, sizeof(*aliases))))
		return pcl_err_null(ENOMEM, "pcl_pmu_register: out of memory");
	pthread_mutex_lock(&lock);
	if (find_locked(desc->name)) {
		pcl_err_null(EEXIST, "pcl_pmu_register: a PMU named '%s' exists", desc->name);
		goto out;
	}
	pmu = add_locked(desc->name, next_user_type, false);
	if (!pmu) {
		pcl_err_null(ENOMEM, "pcl_pmu_register: out of memory");
		goto out;
	}
	next_user_type++;
	pmu->own_ops = ops;
	pmu->ops = &pmu->own_ops;
	pmu->ctx = desc->ctx;
	pmu->bare_names = desc->bare_names;
	pmu->loaded = true;
	if (n) {
		memcpy(aliases, desc->aliases, n * sizeof(*aliases));
		qsort(aliases, n, sizeof(*aliases), cmp_alias);
		pmu->aliases = aliases;
		pmu->nr_aliases = (int)n;
		aliases = NULL;
	}
out:
	pthread_mutex_unlock(&lock);
	free(aliases);
	return pmu;
}

PCL_API struct pcl_pmu *pcl_pmu__find(const char *name)
{
	struct pcl_pmu *pmu;

	if (!name)
		return pcl_err_null(EINVAL, "pcl_pmu__find: no name");
	ensure_init();
	pthread_mutex_lock(&lock);
	pmu = find_locked(name);
	pthread_mutex_unlock(&lock);
	if (!pmu)
		return pcl_err_null(ENOENT, "pcl_pmu__find: no PMU named '%s'", name);
	return pmu;
}

PCL_API struct pcl_pmu *pcl_pmu__find_by_type(uint32_t type)
{
	struct pcl_pmu *pmu;

	ensure_init();
	pthread_mutex_lock(&lock);
	pmu = find_type_locked(type);
	pthread_mutex_unlock(&lock);
	if (!pmu)
		return pcl_err_null(ENOENT, "pcl_pmu__find_by_type: no PMU of type %u", type);
	return pmu;
}

PCL_API struct pcl_pmu *pcl_pmu__next(struct pcl_pmu *prev)
{
	struct pcl_pmu *next = NULL;
	int i = 0;

	ensure_init();
	pthread_mutex_lock(&lock);
	if (prev) {
		for (; i < nr_pmus; i++)
			if (pmus[i] == prev)
				break;
		i++;
	}
	for (; i < nr_pmus; i++) {
		if (!pmus[i]->hidden) {
			next = pmus[i];
			break;
		}
	}
	pthread_mutex_unlock(&lock);
	return next;
}

PCL_API const char *pcl_pmu__name(const struct pcl_pmu *pmu)
{
	return pmu ? pmu->name : NULL;
}

PCL_API uint32_t pcl_pmu__type(const struct pcl_pmu *pmu)
{
	return pmu ? pmu->type : 0;
}

PCL_API bool pcl_pmu__is_kernel(const struct pcl_pmu *pmu)
{
	return pmu && pmu->kernel;
}

PCL_API void *pcl_pmu__ctx(const struct pcl_pmu *pmu)
{
	return pmu ? pmu->ctx : NULL;
}

PCL_API const struct pcl_pmu_ops *pcl_pmu__ops(const struct pcl_pmu *pmu)
{
	return pmu ? pmu->ops : NULL;
}

PCL_API int pcl_pmu__nr_aliases(struct pcl_pmu *pmu)
{
	if (!pmu)
		return pcl_err(EINVAL, "pcl_pmu__nr_aliases: invalid argument");
	ensure_loaded(pmu);
	return pmu->nr_aliases;
}

PCL_API const struct pcl_pmu_alias *pcl_pmu__alias(struct pcl_pmu *pmu, int idx)
{
	if (!pmu)
		return NULL;
	ensure_loaded(pmu);
	return idx >= 0 && idx < pmu->nr_aliases ? &pmu->aliases[idx] : NULL;
}

PCL_API const struct pcl_pmu_alias *pcl_pmu__find_alias(struct pcl_pmu *pmu, const char *name)
{
	struct pcl_pmu_alias key = { .name = name };

	if (!pmu || !name)
		return NULL;
	ensure_loaded(pmu);
	if (!pmu->nr_aliases)
		return NULL;
	return bsearch(&key, pmu->aliases, (size_t)pmu->nr_aliases, sizeof(key), cmp_alias);
}

PCL_API int pcl_pmu__nr_formats(struct pcl_pmu *pmu)
{
	if (!pmu)
		return pcl_err(EINVAL, "pcl_pmu__nr_formats: invalid argument");
	ensure_loaded(pmu);
	return pmu->nr_formats;
}

PCL_API const struct pcl_pmu_format *pcl_pmu__format(struct pcl_pmu *pmu, int idx)
{
	if (!pmu)
		return NULL;
	ensure_loaded(pmu);
	return idx >= 0 && idx < pmu->nr_formats ? &pmu->formats[idx] : NULL;
}

PCL_API const struct pcl_pmu_format *pcl_pmu__find_format(struct pcl_pmu *pmu, const char *name)
{
	if (!pmu || !name)
		return NULL;
	ensure_loaded(pmu);
	for (int i = 0; i < pmu->nr_formats; i++)
		if (pmu->formats[i].name && !strcmp(pmu->formats[i].name, name))
			return &pmu->formats[i];
	return NULL;
}

PCL_API int pcl_pmu_format_encode(uint64_t mask, uint64_t value, uint64_t *config)
{
	uint64_t out = 0;
	int vbit = 0;

	for (int b = 0; b < 64; b++) {
		if (!(mask & (1ULL << b)))
			continue;
		if (vbit < 64 && (value >> vbit) & 1)
			out |= 1ULL << b;
		vbit++;
	}
	if (vbit < 64 && (value >> vbit))
		return pcl_err(ERANGE, "pcl_pmu_format_encode: value does not fit");
	*config = (*config & ~mask) | out;
	return 0;
}

struct pcl_pmu *pmu_software(void)
{
	return pcl_pmu__find_by_type(PERF_TYPE_SOFTWARE);
}

struct pcl_pmu *pmu_tracepoint(void)
{
	return pcl_pmu__find_by_type(PERF_TYPE_TRACEPOINT);
}

struct pcl_pmu *pmu_breakpoint(void)
{
	return pcl_pmu__find_by_type(PERF_TYPE_BREAKPOINT);
}

struct pcl_pmu *pmu_hardware(void)
{
	return pcl_pmu__find_by_type(PERF_TYPE_HARDWARE);
}

struct pcl_pmu *pmu_find_alias_anywhere(const char *name, const struct pcl_pmu_alias **alias)
{
	struct pcl_pmu *pmu = NULL;

	while ((pmu = pcl_pmu__next(pmu))) {
		const struct pcl_pmu_alias *a;

		if (!pmu->kernel && !pmu->bare_names)
			continue;
		a = pcl_pmu__find_alias(pmu, name);
		if (a) {
			*alias = a;
			return pmu;
		}
	}
	return NULL;
}
