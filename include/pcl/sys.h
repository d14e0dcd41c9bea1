/* SPDX-License-Identifier: MIT */
/*
 * The sys layer: the perf_event_open(2) wrapper and probes of what this
 * kernel lets this user do.
 */
#ifndef PCL_SYS_H
#define PCL_SYS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>
#include <pcl/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * perf_event_open(2) with PERF_FLAG_FD_CLOEXEC always added to @flags.
 * Returns the new fd, or a negative errno. Thread-safe.
 */
PCL_API int pcl_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
				unsigned long flags);

/* What this kernel and this user may do; filled by pcl_sys_probe(). */
struct pcl_sys_caps {
	size_t sz;		 /* sizeof(struct pcl_sys_caps), set by the caller */
	int perf_event_paranoid; /* /proc/sys/kernel/perf_event_paranoid; 2 if unreadable */
	int kptr_restrict;	 /* /proc/sys/kernel/kptr_restrict; 2 if unreadable */
	int max_sample_rate;	 /* perf_event_max_sample_rate in Hz; 0 if unreadable */
	bool cap_perfmon;	 /* effective CAP_PERFMON */
	bool cap_sys_admin;	 /* effective CAP_SYS_ADMIN */
	bool can_profile_kernel; /* counting kernel/hv events is allowed */
	bool can_profile_cpu;	 /* system-wide (pid == -1) counting is allowed */
	char tracefs[256];	 /* tracefs mount point, "" when none */
};

/*
 * Read the caps of the calling process into @caps (whose sz the caller sets).
 * Never fails on a missing file: the conservative value is used instead.
 * Returns 0 or -EINVAL when @caps is NULL or too small.
 */
PCL_API int pcl_sys_probe(struct pcl_sys_caps *caps);

/*
 * The tracefs mount point ("/sys/kernel/tracing" or the debugfs one). When
 * none is mounted and @mount is true and the caller is privileged, mount
 * tracefs at /sys/kernel/tracing. Returns a static string, or NULL with
 * errno set (ENOENT when absent). Thread-safe after the first call.
 */
PCL_API const char *pcl_tracefs(bool mount);

/* Number of configured CPUs (the highest possible CPU number + 1). */
PCL_API int pcl_nr_cpus(void);

/* CPU topology ids, read from sysfs; -1 where sysfs does not say. */
struct pcl_cpu_topo {
	int socket;
	int die;
	int core;
};
PCL_API int pcl_cpu_topology(int cpu, struct pcl_cpu_topo *topo);

/* Enable/disable every counter of the calling process (prctl). */
PCL_API int pcl_task_events_enable(void);
PCL_API int pcl_task_events_disable(void);

#ifdef __cplusplus
}
#endif
#endif
