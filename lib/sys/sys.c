/* SPDX-License-Identifier: MIT */
/*
 * The sys layer: the perf_event_open(2) wrapper, prctl controls and probes
 * of what this kernel lets the calling user do. Probes never fail on a
 * missing file: they fall back to the most restrictive reading, which is
 * what the kernel would enforce anyway.
 */
#include <fcntl.h>
#include <linux/capability.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "internal.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif

PCL_API int pcl_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
				unsigned long flags)
{
	long fd;

	if (!attr)
		return pcl_err(EINVAL, "pcl_perf_event_open: invalid argument");
	fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags | PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return pcl_err(errno, "pcl_perf_event_open: %m");
	return (int)fd;
}

static bool has_cap(int cap)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data) < 0)
		return false;
	return data[cap / 32].effective & (1u << (cap % 32));
}

PCL_API int pcl_sys_probe(struct pcl_sys_caps *out)
{
	struct pcl_sys_caps all, *caps = &all;
	long long v;
	const char *tfs;
	size_t sz;

	if (!out)
		return pcl_err(EINVAL, "pcl_sys_probe: no struct pcl_sys_caps to fill");
	sz = out->sz;
	if (sz < sizeof(size_t))
		return pcl_err(EINVAL, "pcl_sys_probe: struct pcl_sys_caps has sz %zu (set it)",
			       sz);
	memset(caps, 0, sizeof(*caps));
	caps->perf_event_paranoid =
		read_int_file("/proc/sys/kernel/perf_event_paranoid", &v) ? 2 : (int)v;
	caps->kptr_restrict = read_int_file("/proc/sys/kernel/kptr_restrict", &v) ? 2 : (int)v;
	caps->max_sample_rate =
		read_int_file("/proc/sys/kernel/perf_event_max_sample_rate", &v) ? 0 : (int)v;
	caps->cap_perfmon = has_cap(CAP_PERFMON);
	caps->cap_sys_admin = has_cap(CAP_SYS_ADMIN);
	caps->can_profile_kernel =
		caps->cap_perfmon || caps->cap_sys_admin || caps->perf_event_paranoid <= 1;
	caps->can_profile_cpu =
		caps->cap_perfmon || caps->cap_sys_admin || caps->perf_event_paranoid <= 0;
	tfs = pcl_tracefs(false);
	if (tfs)
		snprintf(caps->tracefs, sizeof(caps->tracefs), "%s", tfs);
	/* an older caller's struct gets the fields it knows; a newer one's extra bytes zeroes */
	if (sz > sizeof(all))
		memset((char *)out + sizeof(all), 0, sz - sizeof(all));
	all.sz = sz < sizeof(all) ? sz : sizeof(all);
	memcpy(out, &all, all.sz);
	return 0;
}

static const char *const tracefs_dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

/* The first tracefs with an events/ directory; errno EACCES when one exists but is closed to us. */
static const char *tracefs_find(int *err)
{
	char path[128];
	size_t i;

	*err = ENOENT;
	for (i = 0; i < ARRAY_SIZE(tracefs_dirs); i++) {
		snprintf(path, sizeof(path), "%s/events", tracefs_dirs[i]);
		if (access(path, F_OK) == 0)
			return tracefs_dirs[i];
		if (errno == EACCES)
			*err = EACCES;
	}
	return NULL;
}

PCL_API const char *pcl_tracefs(bool do_mount)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static const char *found;
	const char *ret;
	int err = ENOENT;

	pthread_mutex_lock(&lock);
	if (!found)
		found = tracefs_find(&err);
	if (!found && err == ENOENT && do_mount && geteuid() == 0) {
		if (mount("nodev", tracefs_dirs[0], "tracefs", 0, NULL) == 0)
			found = tracefs_find(&err);
	}
	ret = found;
	pthread_mutex_unlock(&lock);
	if (!ret)
		errno = err;
	return ret;
}

PCL_API int pcl_nr_cpus(void)
{
	static int nr;
	int *cpus = NULL, n, max;

	if (nr > 0)
		return nr;
	{
		char buf[256];

		if (read_small_file("/sys/devices/system/cpu/possible", buf, sizeof(buf)) > 0 &&
		    (n = pcl_parse_cpu_list(buf, &cpus)) > 0) {
			max = cpus[n - 1];
			free(cpus);
			nr = max + 1;
			return nr;
		}
	}
	n = (int)sysconf(_SC_NPROCESSORS_CONF);
	nr = n > 0 ? n : 1;
	return nr;
}

PCL_API int pcl_cpu_topology(int cpu, struct pcl_cpu_topo *topo)
{
	static const char *const names[] = { "physical_package_id", "die_id", "core_id" };
	int *fields[3];
	char path[128];
	long long v;
	size_t i;

	if (!topo || cpu < 0)
		return pcl_err(EINVAL, "pcl_cpu_topology: invalid argument");
	fields[0] = &topo->socket;
	fields[1] = &topo->die;
	fields[2] = &topo->core;
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/%s", cpu,
			 names[i]);
		*fields[i] = read_int_file(path, &v) ? -1 : (int)v;
	}
	/* kernels without die_id have one die per socket */
	if (topo->die < 0)
		topo->die = 0;
	return 0;
}

PCL_API int pcl_task_events_enable(void)
{
	return prctl(PR_TASK_PERF_EVENTS_ENABLE, 0, 0, 0, 0) ? -errno : 0;
}

PCL_API int pcl_task_events_disable(void)
{
	return prctl(PR_TASK_PERF_EVENTS_DISABLE, 0, 0, 0, 0) ? -errno : 0;
}
