/* SPDX-License-Identifier: MIT */
/*
 * Feature sections describing the machine and the run, in perf's layouts:
 * strings are { u32 len; char s[len] } with len = strlen + 1 rounded up to
 * 64 and zero padding; lists are a u32 count followed by their items.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "internal.h"

/* Sections are built in a struct bytebuf (internal.h). */

static void put(struct bytebuf *b, const void *data, size_t n)
{
	bytebuf_put(b, data, n);
}

static void put_u32(struct bytebuf *b, uint32_t v)
{
	put(b, &v, 4);
}

static void put_string(struct bytebuf *b, const char *s)
{
	static const char zeros[64];
	size_t olen = strlen(s) + 1, len = (olen + 63) & ~(size_t)63;

	put_u32(b, (uint32_t)len);
	put(b, s, olen);
	put(b, zeros, len - olen);
}

PCL_API void *pcl_feature_string(const char *s, size_t *len)
{
	struct bytebuf b = { 0 };

	put_string(&b, s ? s : "");
	if (b.oom) {
		free(b.p);
		return NULL;
	}
	*len = b.len;
	return b.p;
}

PCL_API void *pcl_feature_strings(const char *const *v, int n, size_t *len)
{
	struct bytebuf b = { 0 };

	put_u32(&b, (uint32_t)n);
	for (int i = 0; i < n; i++)
		put_string(&b, v[i]);
	if (b.oom) {
		free(b.p);
		return NULL;
	}
	*len = b.len;
	return b.p;
}

static int set_sbuf(struct pcl_data_writer *w, int feat, struct bytebuf *b)
{
	int ret = b->oom ? -ENOMEM : pcl_data_writer__set_feature(w, feat, b->p, b->len);

	free(b->p);
	return ret;
}

static int set_string(struct pcl_data_writer *w, int feat, const char *s)
{
	struct bytebuf b = { 0 };

	put_string(&b, s);
	return set_sbuf(w, feat, &b);
}

/* "key : value" of the first matching line of /proc/cpuinfo. */
static bool cpuinfo(const char *key, char *out, size_t size)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[512];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!colon || strncmp(line, key, strlen(key)) || !strchr(" \t", line[strlen(key)]))
			continue;
		colon++;
		while (*colon == ' ')
			colon++;
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(out, size, "%s", colon);
		found = true;
	}
	fclose(f);
	return found;
}

static int add_cpu_features(struct pcl_data_writer *w)
{
	char desc[256] = "unknown", vendor[64] = "", fam[16] = "0", model[16] = "0", step[16] = "0";
	char id[160];
	int online = (int)sysconf(_SC_NPROCESSORS_ONLN), ret;
	struct bytebuf b = { 0 };

	put_u32(&b, (uint32_t)pcl_nr_cpus());
	put_u32(&b, (uint32_t)(online > 0 ? online : 1));
	ret = set_sbuf(w, PCL_FEAT_NRCPUS, &b);
	if (!cpuinfo("model name", desc, sizeof(desc)))
		cpuinfo("cpu model", desc, sizeof(desc));
	ret = ret ? ret : set_string(w, PCL_FEAT_CPUDESC, desc);
	/* perf's x86 cpuid: vendor,family,model,stepping */
	if (cpuinfo("vendor_id", vendor, sizeof(vendor))) {
		cpuinfo("cpu family", fam, sizeof(fam));
		cpuinfo("model", model, sizeof(model));
		cpuinfo("stepping", step, sizeof(step));
		snprintf(id, sizeof(id), "%s,%s,%s,%s", vendor, fam, model, step);
		ret = ret ? ret : set_string(w, PCL_FEAT_CPUID, id);
	}
	return ret;
}

/* Distinct sysfs topology lists ("0-1") over every possible CPU. */
static void put_sibling_lists(struct bytebuf *b, const char *file)
{
	int n = pcl_nr_cpus(), nr = 0;
	char(*seen)[64] = calloc((size_t)n, 64);
	char path[128], buf[64];

	if (!seen) {
		b->oom = true;
		return;
	}
	for (int c = 0; c < n; c++) {
		bool dup = false;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/%s", c, file);
		if (read_small_file(path, buf, sizeof(buf)) <= 0)
			continue;
		for (int k = 0; k < nr && !dup; k++)
			dup = !strcmp(seen[k], buf);
		if (!dup)
			snprintf(seen[nr++], 64, "%s", buf);
	}
	put_u32(b, (uint32_t)nr);
	for (int k = 0; k < nr; k++)
		put_string(b, seen[k]);
	free(seen);
}

/* CPU_TOPOLOGY: core and thread sibling lists, per-CPU core/socket ids, then dies. */
static int add_topology(struct pcl_data_writer *w)
{
	struct bytebuf b = { 0 };
	int n = pcl_nr_cpus();

	put_sibling_lists(&b, "core_siblings_list");
	put_sibling_lists(&b, "thread_siblings_list");
	for (int c = 0; c < n; c++) {
		struct pcl_cpu_topo t;

		pcl_cpu_topology(c, &t);
		put_u32(&b, (uint32_t)(t.core < 0 ? 0 : t.core));
		put_u32(&b, (uint32_t)(t.socket < 0 ? 0 : t.socket));
	}
	put_sibling_lists(&b, "die_cpus_list");
	for (int c = 0; c < n; c++) {
		struct pcl_cpu_topo t;

		pcl_cpu_topology(c, &t);
		put_u32(&b, (uint32_t)(t.die < 0 ? 0 : t.die));
	}
	return set_sbuf(w, PCL_FEAT_CPU_TOPOLOGY, &b);
}

/* PMU_MAPPINGS: u32 nr, then { u32 type; string name } for each kernel PMU. */
static int add_pmu_mappings(struct pcl_data_writer *w)
{
	struct bytebuf b = { 0 };
	struct pcl_pmu *pmu = NULL;
	uint32_t nr = 0;

	put_u32(&b, 0);
	while ((pmu = pcl_pmu__next(pmu))) {
		if (!pcl_pmu__is_kernel(pmu))
			continue;
		put_u32(&b, pcl_pmu__type(pmu));
		put_string(&b, pcl_pmu__name(pmu));
		nr++;
	}
	if (!b.oom)
		memcpy(b.p, &nr, 4);
	return set_sbuf(w, PCL_FEAT_PMU_MAPPINGS, &b);
}

static int add_cmdline(struct pcl_data_writer *w, int argc, char *const argv[])
{
	char exe[4096];
	const char **v = calloc((size_t)argc + 1, sizeof(*v));
	void *data;
	size_t len;
	ssize_t n;
	int ret;

	if (!v)
		return -ENOMEM;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	for (int i = 0; i < argc; i++)
		v[i] = argv[i];
	if (argc && n > 0)
		v[0] = exe;
	data = pcl_feature_strings(v, argc, &len);
	free(v);
	if (!data)
		return -ENOMEM;
	ret = pcl_data_writer__set_feature(w, PCL_FEAT_CMDLINE, data, len);
	free(data);
	return ret;
}

PCL_API int pcl_data_writer__add_host_features(struct pcl_data_writer *w, int argc,
					       char *const argv[])
{
	struct utsname u;
	long long kb = 0;
	char line[256];
	FILE *f;
	int ret = 0;

	if (!w)
		return pcl_err(EINVAL, "pcl_data_writer__add_host_features: invalid argument");
	if (uname(&u) == 0) {
		ret = set_string(w, PCL_FEAT_HOSTNAME, u.nodename);
		ret = ret ? ret : set_string(w, PCL_FEAT_OSRELEASE, u.release);
		ret = ret ? ret : set_string(w, PCL_FEAT_ARCH, u.machine);
	}
	ret = ret ? ret : set_string(w, PCL_FEAT_VERSION, pcl_version());
	ret = ret ? ret : add_cpu_features(w);
	f = fopen("/proc/meminfo", "re");
	if (f) {
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "MemTotal: %lld kB", &kb) == 1)
				break;
		fclose(f);
	}
	if (!ret) {
		uint64_t mem = (uint64_t)kb;

		ret = pcl_data_writer__set_feature(w, PCL_FEAT_TOTAL_MEM, &mem, sizeof(mem));
	}
	ret = ret ? ret : add_cmdline(w, argc, argv);
	ret = ret ? ret : add_topology(w);
	return ret ? ret : add_pmu_mappings(w);
}
