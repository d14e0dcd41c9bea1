/* SPDX-License-Identifier: MIT */
/* The metric table's CPU entries and named events, inside libpcl. */
#ifndef PCL_EVENT_METRICS_H
#define PCL_EVENT_METRICS_H
#include <stddef.h>
#include <linux/perf_event.h>
#include <pcl/metric.h>
#include <pcl/pmu.h>

/* A named hardware event: perf's name, and a libpfm4 spec or a "pmu/terms/" spec. */
struct metric_event {
	const char *name;
	const char *spec;
};

struct metric_cpu {
	const char *name; /* "AMD family 19h" */
	const char *vendor;
	int family, model_lo, model_hi;
	const struct pcl_metric *metrics; /* sorted by name */
	size_t nr_metrics;
	const struct metric_event *events;
	size_t nr_events;
};

/* The entry for this CPU (PCL_CPUID or /proc/cpuinfo), or NULL. */
const struct metric_cpu *metric_this_cpu(void);
const struct metric_cpu *metric_cpu_match(const char *vendor, int family, int model);
size_t metric_cpu_table_size(void);
const struct metric_cpu *metric_cpu_entry(size_t i);
/* This CPU's event named @name, or NULL. */
const struct metric_event *metric_event_find(const char *name);

/* perf_event_attr.type of an event whose PMU this machine lacks: no kernel PMU has it. */
#define PCL_TYPE_ABSENT_PMU 0xfffffff0u

#endif
