/* SPDX-License-Identifier: MIT */
/*
 * The "tool" source: perf's tool events duration_time, user_time and
 * system_time, living in user space and registered through the same
 * pcl_pmu_register() any outside source uses.
 *
 * duration_time is wall time between start and stop. user_time and
 * system_time are the target's CPU times: from the rusage of a reaped
 * workload when libpcl reaped it (microsecond precision, like perf), else
 * from /proc/PID/stat of the live or zombie process (clock ticks), or from
 * /proc/stat for a CPU when counting system-wide.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "internal.h"
#include "pmu/tool.h"
#include "pmu/sources.h"

enum { TOOL_DURATION = 1, TOOL_USER = 2, TOOL_SYSTEM = 3 };

struct tool_state {
	uint64_t start; /* value when started */
	uint64_t acc;	/* accumulated over earlier start/stop spans */
	bool running;
};

/* Workloads reaped by libpcl: pid -> CPU times, so reads after the reap stay exact. */
static pthread_mutex_t reaped_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	pid_t pid;
	uint64_t user_ns, sys_ns;
} reaped[16];
static unsigned int reaped_next;

void tool_pmu_note_rusage(pid_t pid, const struct rusage *ru)
{
	pthread_mutex_lock(&reaped_lock);
	reaped[reaped_next % ARRAY_SIZE(reaped)].pid = pid;
	reaped[reaped_next % ARRAY_SIZE(reaped)].user_ns =
		(uint64_t)ru->ru_utime.tv_sec * 1000000000ull +
		(uint64_t)ru->ru_utime.tv_usec * 1000;
	reaped[reaped_next % ARRAY_SIZE(reaped)].sys_ns =
		(uint64_t)ru->ru_stime.tv_sec * 1000000000ull +
		(uint64_t)ru->ru_stime.tv_usec * 1000;
	reaped_next++;
	pthread_mutex_unlock(&reaped_lock);
}

static bool reaped_times(pid_t pid, uint64_t *user, uint64_t *sys)
{
	bool found = false;

	pthread_mutex_lock(&reaped_lock);
	for (size_t i = 0; i < ARRAY_SIZE(reaped); i++) {
		if (reaped[i].pid == pid && pid > 0) {
			*user = reaped[i].user_ns;
			*sys = reaped[i].sys_ns;
			found = true;
		}
	}
	pthread_mutex_unlock(&reaped_lock);
	return found;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t ticks_to_ns(unsigned long long t)
{
	long hz = sysconf(_SC_CLK_TCK);

	return (uint64_t)t * (1000000000ull / (uint64_t)(hz > 0 ? hz : 100));
}

/* utime+cutime / stime+cstime of a process, from /proc/PID/stat. */
static int proc_times(pid_t pid, uint64_t *user, uint64_t *sys)
{
	char path[64], buf[1024], *p;
	unsigned long long ut, st, cut, cst;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_small_file(path, buf, sizeof(buf)) < 0)
		return -ESRCH;
	p = strrchr(buf, ')'); /* comm may hold spaces and parentheses */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %llu %llu",
			 &ut, &st, &cut, &cst) != 4)
		return -EINVAL;
	*user = ticks_to_ns(ut + cut);
	*sys = ticks_to_ns(st + cst);
	return 0;
}

/* user / system time of one CPU (or all when cpu < 0), from /proc/stat. */
static int cpu_times(int cpu, uint64_t *user, uint64_t *sys)
{
	char want[32], line[512];
	unsigned long long u, n, s;
	FILE *f = fopen("/proc/stat", "re");
	int ret = -ENOENT;

	if (!f)
		return -errno;
	if (cpu < 0)
		snprintf(want, sizeof(want), "cpu ");
	else
		snprintf(want, sizeof(want), "cpu%d ", cpu);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, want, strlen(want)))
			continue;
		if (sscanf(line + strlen(want), "%llu %llu %llu", &u, &n, &s) == 3) {
			*user = ticks_to_ns(u + n);
			*sys = ticks_to_ns(s);
			ret = 0;
		}
		break;
	}
	fclose(f);
	return ret;
}

static int tool_value(struct pcl_counter *c, uint64_t *val)
{
	uint64_t user = 0, sys = 0;
	int ret = 0;

	if (c->attr->config == TOOL_DURATION) {
		*val = now_ns();
		return 0;
	}
	if (c->pid > 0) {
		if (!reaped_times(c->pid, &user, &sys))
			ret = proc_times(c->pid, &user, &sys);
	} else {
		ret = cpu_times(c->cpu, &user, &sys);
	}
	*val = c->attr->config == TOOL_USER ? user : sys;
	return ret;
}

static int tool_event_init(struct pcl_pmu *pmu, struct perf_event_attr *attr)
{
	(void)pmu;
	return attr->config >= TOOL_DURATION && attr->config <= TOOL_SYSTEM ? 0 : -ENOENT;
}

static int tool_add(struct pcl_counter *c)
{
	struct tool_state *st = calloc(1, sizeof(*st));

	if (!st)
		return -ENOMEM;
	c->priv = st;
	c->fd = -1;
	return 0;
}

static void tool_del(struct pcl_counter *c)
{
	free(c->priv);
	c->priv = NULL;
}

static int tool_start(struct pcl_counter *c)
{
	struct tool_state *st = c->priv;
	uint64_t v = 0;

	if (st->running)
		return 0;
	/* a workload that has not exec'ed yet has used no time worth a base */
	if (tool_value(c, &v) && c->attr->config != TOOL_DURATION)
		v = 0;
	st->start = v;
	st->running = true;
	return 0;
}

static int tool_stop(struct pcl_counter *c)
{
	struct tool_state *st = c->priv;
	uint64_t v;

	if (!st->running)
		return 0;
	if (tool_value(c, &v) == 0 && v >= st->start)
		st->acc += v - st->start;
	st->running = false;
	return 0;
}

static int tool_read(struct pcl_counter *c, struct pcl_count *out)
{
	struct tool_state *st = c->priv;
	uint64_t v, total = st->acc;

	if (st->running && tool_value(c, &v) == 0 && v >= st->start)
		total += v - st->start;
	out->val = total;
	/* perf reports a tool event as enabled and running for its own length */
	out->ena = out->run = total;
	out->id = 0;
	return 0;
}

static const struct pcl_pmu_ops tool_ops = {
	.sz = sizeof(struct pcl_pmu_ops),
	.event_init = tool_event_init,
	.add = tool_add,
	.del = tool_del,
	.start = tool_start,
	.stop = tool_stop,
	.read = tool_read,
};

static const struct pcl_pmu_alias tool_aliases[] = {
	{ "duration_time", "config=1", "ns", 1.0, "Wall clock interval time in nanoseconds" },
	{ "user_time", "config=2", "ns", 1.0, "User (utime) time in nanoseconds" },
	{ "system_time", "config=3", "ns", 1.0, "System/kernel (stime) time in nanoseconds" },
};

void pmu_register_builtin(void)
{
	struct pcl_pmu_desc desc = {
		.sz = sizeof(desc),
		.name = "tool",
		.ops = &tool_ops,
		.aliases = tool_aliases,
		.nr_aliases = ARRAY_SIZE(tool_aliases),
		.bare_names = true,
	};

	pmu_register_desc(&desc);
	pmu_register_sources(); /* proc/, psi/, power/ (lib/pmu/sources.c) */
}
