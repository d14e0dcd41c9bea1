/* SPDX-License-Identifier: MIT */
/*
 * Derived metrics of perf stat ("shadow stats"): each row may be explained
 * by another row of the same aggregation: task-clock by the wall time
 * (CPUs utilized), instructions by cycles (insn per cycle), a miss count by
 * its access count (percent), cycles by task-clock (GHz), and any other
 * count by task-clock as a rate per second.
 */
#include <string.h>
#include "internal.h"
#include "output/stat-metrics.h"

#define CACHE_CFG(c, op, res) ((uint64_t)(c) | ((uint64_t)(op) << 8) | ((uint64_t)(res) << 16))

static bool is_hw(const struct pcl_event *ev, uint64_t config)
{
	return ev->attr.type == PERF_TYPE_HARDWARE && ev->attr.config == config;
}

static bool is_cache(const struct pcl_event *ev, int cache, int result)
{
	return ev->attr.type == PERF_TYPE_HW_CACHE &&
	       ev->attr.config == CACHE_CFG(cache, PERF_COUNT_HW_CACHE_OP_READ, result);
}

static int shadow_kind_of(const struct pcl_event *ev)
{
	static const int caches[][2] = {
		{ PERF_COUNT_HW_CACHE_L1D, SH_L1D_LOADS },
		{ PERF_COUNT_HW_CACHE_L1I, SH_L1I_LOADS },
		{ PERF_COUNT_HW_CACHE_LL, SH_LL_LOADS },
		{ PERF_COUNT_HW_CACHE_DTLB, SH_DTLB_LOADS },
		{ PERF_COUNT_HW_CACHE_ITLB, SH_ITLB_LOADS },
	};

	if (ev->attr.type == PERF_TYPE_SOFTWARE && (ev->attr.config == PERF_COUNT_SW_TASK_CLOCK ||
						    ev->attr.config == PERF_COUNT_SW_CPU_CLOCK))
		return SH_CLOCK_NS;
	if (is_hw(ev, PERF_COUNT_HW_CPU_CYCLES))
		return SH_CYCLES;
	if (is_hw(ev, PERF_COUNT_HW_INSTRUCTIONS))
		return SH_INSTRUCTIONS;
	if (is_hw(ev, PERF_COUNT_HW_BRANCH_INSTRUCTIONS))
		return SH_BRANCHES;
	if (is_hw(ev, PERF_COUNT_HW_CACHE_REFERENCES))
		return SH_CACHE_REFS;
	for (size_t i = 0; i < ARRAY_SIZE(caches); i++)
		if (is_cache(ev, caches[i][0], PERF_COUNT_HW_CACHE_RESULT_ACCESS))
			return caches[i][1];
	return -1;
}

void stat_shadow_add(struct stat_shadow *sh, const struct pcl_event *ev, double value)
{
	int k = shadow_kind_of(ev);

	if (k < 0)
		return;
	sh->v[k] += value;
	sh->have[k] = true;
}

static int ratio(struct pcl_stat_metric *m, double num, double den, const char *unit,
		 const char *fmt, const char *csv_fmt)
{
	m->value = den ? num / den : 0.0;
	m->unit = unit;
	m->fmt = fmt;
	m->csv_fmt = csv_fmt;
	return 1;
}

static int miss_ratio(const struct stat_shadow *sh, int k, double value, const char *unit,
		      struct pcl_stat_metric *m)
{
	if (!sh->have[k] || !sh->v[k])
		return 0;
	return ratio(m, 100.0 * value, sh->v[k], unit, "%7.2f%%", "%.2f");
}

static int rate(const struct stat_shadow *sh, double value, struct pcl_stat_metric *m)
{
	static const char *const units[] = { "/sec", "K/sec", "M/sec", "G/sec" };
	double r;
	int u = 0;

	if (!sh->have[SH_CLOCK_NS] || !sh->v[SH_CLOCK_NS])
		return 0;
	r = 1e9 * value / sh->v[SH_CLOCK_NS];
	while (u < 3 && r > 1000.0) {
		r /= 1000.0;
		u++;
	}
	return ratio(m, r, 1.0, units[u], "%8.3f", "%.3f");
}

int stat_metric(const struct stat_shadow *sh, const struct pcl_event *ev, double value,
		struct pcl_stat_metric *m)
{
	static const struct {
		int cache, shadow;
		const char *unit;
	} misses[] = {
		{ PERF_COUNT_HW_CACHE_L1D, SH_L1D_LOADS, "of all L1-dcache accesses" },
		{ PERF_COUNT_HW_CACHE_L1I, SH_L1I_LOADS, "of all L1-icache accesses" },
		{ PERF_COUNT_HW_CACHE_LL, SH_LL_LOADS, "of all LL-cache accesses" },
		{ PERF_COUNT_HW_CACHE_DTLB, SH_DTLB_LOADS, "of all dTLB cache accesses" },
		{ PERF_COUNT_HW_CACHE_ITLB, SH_ITLB_LOADS, "of all iTLB cache accesses" },
	};

	memset(m, 0, sizeof(*m));
	if (shadow_kind_of(ev) == SH_CLOCK_NS)
		return sh->wall_ns > 0
			       ? ratio(m, value, sh->wall_ns, "CPUs utilized", "%8.3f", "%.3f")
			       : 0;
	if (is_hw(ev, PERF_COUNT_HW_CPU_CYCLES))
		return sh->have[SH_CLOCK_NS] && sh->v[SH_CLOCK_NS]
			       ? ratio(m, value, sh->v[SH_CLOCK_NS], "GHz", "%8.3f", "%.3f")
			       : 0;
	if (is_hw(ev, PERF_COUNT_HW_INSTRUCTIONS))
		return sh->have[SH_CYCLES] && sh->v[SH_CYCLES]
			       ? ratio(m, value, sh->v[SH_CYCLES], "insn per cycle", "%7.2f ",
				       "%.2f")
			       : 0;
	if (is_hw(ev, PERF_COUNT_HW_BRANCH_MISSES))
		return miss_ratio(sh, SH_BRANCHES, value, "of all branches", m);
	if (is_hw(ev, PERF_COUNT_HW_CACHE_MISSES))
		return miss_ratio(sh, SH_CACHE_REFS, value, "of all cache refs", m);
	if (is_hw(ev, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND))
		return miss_ratio(sh, SH_CYCLES, value, "frontend cycles idle", m);
	if (is_hw(ev, PERF_COUNT_HW_STALLED_CYCLES_BACKEND))
		return miss_ratio(sh, SH_CYCLES, value, "backend cycles idle", m);
	for (size_t i = 0; i < ARRAY_SIZE(misses); i++)
		if (is_cache(ev, misses[i].cache, PERF_COUNT_HW_CACHE_RESULT_MISS))
			return miss_ratio(sh, misses[i].shadow, value, misses[i].unit, m);
	return rate(sh, value, m);
}
