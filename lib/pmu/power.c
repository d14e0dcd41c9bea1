/* SPDX-License-Identifier: MIT */
/*
 * The "power" source: energy from the RAPL zones of the powercap class
 * (/sys/class/powercap/intel-rapl:N[:M], which AMD's RAPL driver fills
 * too), with perf's event names:
 *
 *   energy-pkg    zones named package-N (summed over packages)
 *   energy-cores  core
 *   energy-gpu    uncore
 *   energy-ram    dram
 *   energy-psys   psys
 *
 * Counts are microjoules (energy_uj); the alias scale 1e-6 and unit
 * "Joules" make pcl stat print Joules, as perf does for its kernel power
 * PMU. The zones of the MSR interface (intel-rapl) are used; those of
 * another interface (intel-rapl-mmio, which duplicates package zones on
 * some laptops) only when there are none.
 *
 * energy_uj wraps to 0 after max_energy_range_uj: each read adds
 * max - prev + now when it went back. Two reads further apart than one wrap
 * (tens of minutes at full power) lose a wrap; print intervals (-I) avoid
 * that. Energy is system-wide: only the first counter of an event reports.
 *
 * When the kernel has a perf PMU named "power" (the RAPL perf driver on
 * bare-metal Intel), it keeps the name and this source is "powercap".
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"
#include "pmu/sources.h"

enum { PWR_PKG = 1, PWR_CORES, PWR_GPU, PWR_RAM, PWR_PSYS, PWR_NR };

static const struct {
	const char *event, *zone, *desc;
} power_events[] = {
	{ NULL, NULL, NULL },
	{ "energy-pkg", "package",
	  "Energy of the processor packages: cores, caches, memory controller (RAPL package "
	  "zones)" },
	{ "energy-cores", "core", "Energy of the processor cores (RAPL core zones)" },
	{ "energy-gpu", "uncore", "Energy of the integrated GPU (RAPL uncore zones)" },
	{ "energy-ram", "dram", "Energy of the memory (RAPL dram zones)" },
	{ "energy-psys", "psys", "Energy of the whole platform, SoC and more (RAPL psys zone)" },
};

#define POWER_MAX_ZONES 64
#define POWER_PRIMARY	"intel-rapl"

struct zone {
	char dir[64]; /* under POWERCAP_ROOT */
	bool primary; /* of the intel-rapl (MSR) interface */
	uint64_t max, prev, acc;
};

struct power_counter {
	struct src_counter base;
	int nzones;
	struct zone zones[];
};

/* Which event a zone name belongs to, or 0. */
static int zone_kind(const char *name)
{
	if (!strncmp(name, "package-", 8))
		return PWR_PKG;
	for (int k = PWR_CORES; k < PWR_NR; k++)
		if (!strcmp(name, power_events[k].zone))
			return k;
	return 0;
}

static int read_uj(const char *dir, const char *file, uint64_t *val)
{
	char path[160], buf[64];
	int ret;

	snprintf(path, sizeof(path), POWERCAP_ROOT "/%s/%s", dir, file);
	ret = read_small_file(path, buf, sizeof(buf));
	if (ret < 0)
		return ret;
	return parse_u64_text(buf, val);
}

/* A zone directory's kind (0 if none or not a RAPL zone). */
static int dir_kind(int dfd, const char *dir)
{
	char path[128], name[64];

	if (dir[0] == '.' || strlen(dir) >= sizeof(((struct zone *)0)->dir) ||
	    !strstr(dir, "rapl") || !strchr(dir, ':'))
		return 0;
	snprintf(path, sizeof(path), "%s/name", dir);
	if (read_small_fileat(dfd, path, name, sizeof(name)) <= 0)
		return 0;
	return zone_kind(name);
}

/*
 * The zones of @kind into @z (at most POWER_MAX_ZONES), their counters
 * read. Returns how many, or -errno; *kinds gets a bit per kind seen. On 0
 * or an error, @why says what is missing.
 */
static int power_scan(int kind, struct zone *z, unsigned int *kinds, char *why, size_t wlen)
{
	DIR *d = opendir(POWERCAP_ROOT);
	struct dirent *de;
	int n = 0, nprimary = 0, out = 0, ret = 0;

	*kinds = 0;
	snprintf(why, wlen, "no RAPL zone in " POWERCAP_ROOT " on this machine");
	if (!d)
		return 0;
	while ((de = readdir(d)) && n < POWER_MAX_ZONES) {
		int k = dir_kind(dirfd(d), de->d_name);

		if (!k)
			continue;
		*kinds |= 1u << k;
		if (k != kind)
			continue;
		memset(&z[n], 0, sizeof(z[n]));
		snprintf(z[n].dir, sizeof(z[n].dir), "%s", de->d_name);
		z[n].primary = !strncmp(de->d_name, POWER_PRIMARY ":", strlen(POWER_PRIMARY) + 1);
		nprimary += z[n].primary;
		n++;
	}
	closedir(d);
	if (kind && *kinds && !(*kinds & (1u << kind)))
		snprintf(why, wlen, "no '%s' RAPL zone in " POWERCAP_ROOT " on this machine",
			 power_events[kind].zone);
	for (int i = 0; i < n; i++) {
		if (nprimary && !z[i].primary)
			continue;
		ret = read_uj(z[i].dir, "energy_uj", &z[i].prev);
		if (ret == -EACCES || ret == -EPERM) {
			snprintf(why, wlen,
				 "cannot read " POWERCAP_ROOT "/%s/energy_uj: %s (root only since "
				 "Linux 5.10)",
				 z[i].dir, pcl_strerror(ret));
			return ret;
		}
		if (ret) {
			snprintf(why, wlen, POWERCAP_ROOT "/%s/energy_uj: %s", z[i].dir,
				 ret == -EINVAL ? "not a number" : pcl_strerror(ret));
			continue;
		}
		/* no usable range: a counter that goes back is then an error, not a wrap */
		if (read_uj(z[i].dir, "max_energy_range_uj", &z[i].max))
			z[i].max = 0;
		z[out++] = z[i];
	}
	return out;
}

static int power_value(struct src_counter *sc, uint64_t *val)
{
	struct power_counter *pc = (struct power_counter *)sc;
	uint64_t sum = 0, now;
	int ret = 0;

	for (int i = 0; i < pc->nzones; i++) {
		struct zone *z = &pc->zones[i];
		int r = read_uj(z->dir, "energy_uj", &now);

		if (!r && now >= z->prev)
			z->acc += now - z->prev;
		else if (!r && z->max >= z->prev)
			z->acc += z->max - z->prev + now; /* wrapped at max_energy_range_uj */
		else if (!r)
			r = -EINVAL;
		if (r)
			ret = -EIO; /* this zone keeps its last good count */
		else
			z->prev = now;
		sum += z->acc;
	}
	*val = sum;
	return ret;
}

static void power_free(struct src_counter *sc)
{
	free(sc);
}

static int power_event_init(struct pcl_pmu *pmu, struct perf_event_attr *attr)
{
	(void)pmu;
	return attr->config >= PWR_PKG && attr->config < PWR_NR ? 0 : -ENOENT;
}

static int power_add(struct pcl_counter *c)
{
	struct zone zones[POWER_MAX_ZONES];
	struct power_counter *pc;
	unsigned int kinds;
	char why[256];
	int n = power_scan((int)c->attr->config, zones, &kinds, why, sizeof(why));

	if (n < 0)
		return pcl_err(-n, "%s: %s", src_event_name(c), why);
	if (!n)
		return pcl_err(ENODEV, "%s: %s", src_event_name(c), why);
	pc = calloc(1, sizeof(*pc) + (size_t)n * sizeof(pc->zones[0]));
	if (!pc)
		return -ENOMEM;
	memcpy(pc->zones, zones, (size_t)n * sizeof(zones[0]));
	pc->nzones = n;
	pc->base.key = c->attr;
	pc->base.ident = 0;
	pc->base.value = power_value;
	pc->base.free = power_free;
	src_attach(c, &pc->base);
	return 0;
}

static const struct pcl_pmu_ops power_ops = {
	.sz = sizeof(struct pcl_pmu_ops),
	.event_init = power_event_init,
	.add = power_add,
	.del = src_del,
	.start = src_start,
	.stop = src_stop,
	.read = src_read,
};

void power_pmu_register(void)
{
	static struct pcl_pmu_alias aliases[PWR_NR - 1];
	static char terms[PWR_NR][16], descs[PWR_NR][384];
	struct zone zones[POWER_MAX_ZONES];
	struct pcl_pmu_desc desc = {
		.sz = sizeof(desc),
		.name = "power",
		.ops = &power_ops,
		.aliases = aliases,
		.nr_aliases = ARRAY_SIZE(aliases),
	};

	for (int k = PWR_PKG; k < PWR_NR; k++) {
		unsigned int kinds;
		char why[256];
		int n = power_scan(k, zones, &kinds, why, sizeof(why));

		snprintf(terms[k], sizeof(terms[k]), "config=%d", k);
		/* what pcl list shows: say up front when this machine lacks it */
		snprintf(descs[k], sizeof(descs[k]), "%s%s%s%s", power_events[k].desc,
			 n > 0 ? "" : " [not available here: ", n > 0 ? "" : why, n > 0 ? "" : "]");
		aliases[k - 1] = (struct pcl_pmu_alias){
			.name = power_events[k].event,
			.terms = terms[k],
			.unit = "Joules",
			.scale = 1e-6, /* energy_uj counts microjoules */
			.desc = descs[k],
		};
		if (!kinds)
			break; /* no zone at all: the same reason for every event */
	}
	for (int k = PWR_PKG; k < PWR_NR; k++) {
		if (aliases[k - 1].name)
			continue;
		snprintf(terms[k], sizeof(terms[k]), "config=%d", k);
		snprintf(descs[k], sizeof(descs[k]),
			 "%s [not available here: no RAPL zone in " POWERCAP_ROOT
			 " on this machine]",
			 power_events[k].desc);
		aliases[k - 1] = (struct pcl_pmu_alias){ power_events[k].event, terms[k], "Joules",
							 1e-6, descs[k] };
	}
	/* a kernel PMU called power (RAPL perf driver) keeps the name */
	if (!pmu_register_desc(&desc) && errno == EEXIST) {
		desc.name = "powercap";
		pmu_register_desc(&desc);
	}
}
