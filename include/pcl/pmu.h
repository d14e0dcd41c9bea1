/* SPDX-License-Identifier: MIT */
/*
 * The pmu layer: the registry of event sources.
 *
 * Modelled on the kernel's struct pmu (seed 002): every source has ops
 * event_init, add, del, start, stop and read. Every kernel PMU under
 * /sys/bus/event_source/devices is one entry whose ops drive
 * perf_event_open(2); sources that live in user space register their own
 * ops with pcl_pmu_register() and are then usable everywhere a kernel event
 * is (the event parser, pcl_evlist, `pcl stat -e`).
 *
 * The registry is process-global, filled lazily on first use, and safe to
 * read from many threads. PMU pointers stay valid for the life of the
 * process.
 */
#ifndef PCL_PMU_H
#define PCL_PMU_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>
#include <pcl/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pcl_pmu;

/* Types handed to user-space sources start here; the kernel never sees them. */
#define PCL_PMU_TYPE_USER_BASE 0x40000000u

/* A named event of a PMU (sysfs events/ alias, or a user-space source's event). */
struct pcl_pmu_alias {
	const char *name;  /* "tsc" */
	const char *terms; /* "event=0x3c,umask=0" or "config=2" */
	const char *unit;  /* "Joules", "ns" or NULL */
	double scale;	   /* multiply raw counts by this; 0 means 1 */
	const char *desc;  /* one line, or NULL */
};

/* A format field: which bits of which config word a term sets. */
struct pcl_pmu_format {
	const char *name; /* "umask" */
	int config;	  /* 0..3 for config, config1, config2, config3 */
	uint64_t mask;	  /* the bits, possibly not contiguous */
};

/*
 * A count as read from a counter, before scaling. Each field but val comes
 * from its PERF_FORMAT_* bit of the counter's read_format, and is 0 when
 * the read_format lacks it (a user-space source sets the times itself).
 */
struct pcl_count {
	uint64_t val;
	uint64_t ena;  /* TOTAL_TIME_ENABLED: ns enabled */
	uint64_t run;  /* TOTAL_TIME_RUNNING: ns running */
	uint64_t id;   /* ID: the kernel's event id (PERF_EVENT_IOC_ID); 0 for user-space sources */
	uint64_t lost; /* LOST: samples the kernel lost for this counter (kernels >= 6.0) */
};

/* One opened instance of an event on one (cpu, thread); handed to the ops. */
struct pcl_counter {
	const struct perf_event_attr *attr;
	struct pcl_pmu *pmu;
	pid_t pid;	     /* thread/process, or -1 for all on @cpu (or a cgroup fd) */
	int cpu;	     /* cpu, or -1 for any */
	int group_fd;	     /* leader's fd, or -1 */
	unsigned long flags; /* perf_event_open flags (PERF_FLAG_PID_CGROUP) */
	int fd;		     /* kernel sources: the perf fd; -1 otherwise */
	void *priv;	     /* user-space sources: their own state */
};

struct pcl_pmu_ops {
	size_t sz; /* sizeof(struct pcl_pmu_ops) */
	/* Check @attr (type already set to the PMU's) and complete it; -ENOENT if unknown config.
	 */
	int (*event_init)(struct pcl_pmu *pmu, struct perf_event_attr *attr);
	/* Attach to c->pid / c->cpu, disabled unless attr says otherwise. */
	int (*add)(struct pcl_counter *c);
	/* Detach and free what add() made. */
	void (*del)(struct pcl_counter *c);
	int (*start)(struct pcl_counter *c);
	int (*stop)(struct pcl_counter *c);
	/* Current value with enabled/running times. */
	int (*read)(struct pcl_counter *c, struct pcl_count *out);
};

/* What a user-space source registers. Strings and arrays must outlive the process's use. */
struct pcl_pmu_desc {
	size_t sz;	  /* sizeof(struct pcl_pmu_desc) */
	const char *name; /* "tool", "proc": the prefix of "name/event/" */
	const struct pcl_pmu_ops *ops;
	const struct pcl_pmu_alias *aliases; /* events, with terms "config=N" */
	size_t nr_aliases;
	bool bare_names; /* aliases are also usable without "name/.../" */
	void *ctx;	 /* for the ops, via pcl_pmu__ctx() */
};

/*
 * Register a user-space source. Returns the PMU (owned by the registry) or
 * NULL with errno EEXIST (name taken) / EINVAL / ENOMEM. Thread-safe.
 */
PCL_API struct pcl_pmu *pcl_pmu_register(const struct pcl_pmu_desc *desc);

/* Look-ups; NULL with errno ENOENT when absent. Thread-safe. */
PCL_API struct pcl_pmu *pcl_pmu__find(const char *name);
PCL_API struct pcl_pmu *pcl_pmu__find_by_type(uint32_t type);

/* Iterate over every PMU: pass NULL first. Sorted by name. */
PCL_API struct pcl_pmu *pcl_pmu__next(struct pcl_pmu *prev);

PCL_API const char *pcl_pmu__name(const struct pcl_pmu *pmu);
PCL_API uint32_t pcl_pmu__type(const struct pcl_pmu *pmu);
PCL_API bool pcl_pmu__is_kernel(const struct pcl_pmu *pmu);
PCL_API void *pcl_pmu__ctx(const struct pcl_pmu *pmu);
PCL_API const struct pcl_pmu_ops *pcl_pmu__ops(const struct pcl_pmu *pmu);

/* Aliases (loaded from sysfs on first call for kernel PMUs), sorted by name. */
PCL_API int pcl_pmu__nr_aliases(struct pcl_pmu *pmu);
PCL_API const struct pcl_pmu_alias *pcl_pmu__alias(struct pcl_pmu *pmu, int idx);
PCL_API const struct pcl_pmu_alias *pcl_pmu__find_alias(struct pcl_pmu *pmu, const char *name);

/* Format fields; NULL when the PMU has no such field. */
PCL_API int pcl_pmu__nr_formats(struct pcl_pmu *pmu);
PCL_API const struct pcl_pmu_format *pcl_pmu__format(struct pcl_pmu *pmu, int idx);
PCL_API const struct pcl_pmu_format *pcl_pmu__find_format(struct pcl_pmu *pmu, const char *name);

/*
 * Scatter @value into the bits of @mask (lowest value bit to lowest mask
 * bit). Returns -ERANGE when @value does not fit.
 */
PCL_API int pcl_pmu_format_encode(uint64_t mask, uint64_t value, uint64_t *config);

#ifdef __cplusplus
}
#endif
#endif
