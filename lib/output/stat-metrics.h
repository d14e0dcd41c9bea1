/* SPDX-License-Identifier: MIT */
#ifndef PCL_OUTPUT_STAT_METRICS_H
#define PCL_OUTPUT_STAT_METRICS_H
#include <pcl/event.h>
#include <pcl/stat.h>

/* The values of one aggregation that other rows' metrics are computed from. */
enum shadow_kind {
	SH_CLOCK_NS,	/* task-clock or cpu-clock */
	SH_CYCLES,
	SH_INSTRUCTIONS,
	SH_BRANCHES,
	SH_CACHE_REFS,
	SH_L1D_LOADS,
	SH_L1I_LOADS,
	SH_LL_LOADS,
	SH_DTLB_LOADS,
	SH_ITLB_LOADS,
	SH_MAX,
};

struct stat_shadow {
	double v[SH_MAX];
	bool have[SH_MAX];
	double wall_ns;
};

void stat_shadow_add(struct stat_shadow *sh, const struct pcl_event *ev, double value);
/* 1 and *m filled when @ev has a metric given the shadow values, else 0. */
int stat_metric(const struct stat_shadow *sh, const struct pcl_event *ev, double value,
		struct pcl_stat_metric *m);
#endif
