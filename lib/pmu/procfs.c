/* SPDX-License-Identifier: MIT */
/*
 * The "proc" source: per-process counters from procfs.
 *
 *   rchar ... cancelled_write_bytes   /proc/PID/io                  cumulative
 *   voluntary-ctxt-switches,          status of each thread under   cumulative
 *   nonvoluntary-ctxt-switches        /proc/PID/task
 *   rss-hwm                           VmHWM of /proc/PID/status, kB  a gauge
 *
 * What a counter on pid P counts:
 * - P a process (its main thread; pid 0 means the calling process): the
 *   whole process. I/O as the kernel sums it: live threads, exited threads
 *   and reaped children. Context switches: every thread seen while counting
 *   (one that starts and ends between two reads is missed).
 * - P a thread other than the main one: that thread alone.
 * - P = -1 (system-wide on a CPU): not supported.
 * `pcl stat -p PID` opens one counter per thread of PID on the same event;
 * the process's counter then leaves out what its threads' counters report
 * (their last read values, kept when a thread exits), so the cells add up
 * to the process's total exactly, as perf's per-thread counters do.
 *
 * A workload that libpcl reaps (pcl_workload__wait) is snapshotted twice:
 * its /proc/PID/io once it has exited but before the reap (waitid WNOWAIT),
 * and its rusage at the reap; from then on its counters read those, so the
 * final counts are exact although /proc/PID is gone. The rusage (like GNU
 * time's) includes exited threads and reaped children, and its maxrss the
 * image before exec (a copy of the caller's).
 */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"
#include "pmu/sources.h"

enum {
	PROC_RCHAR = 1,
	PROC_CANCELLED = 7, /* last of the /proc/PID/io fields */
	PROC_VCSW = 8,
	PROC_NIVCSW = 9,
	PROC_HWM = 10,
};

static const char *const io_keys[] = {
	NULL,	 "rchar",      "wchar",	      "syscr",
	"syscw", "read_bytes", "write_bytes", "cancelled_write_bytes",
};

#define PROC_FILE_MAX 4096 /* /proc/PID/status is about 1.5 kB */
#define PROC_SEEN_MAX 65536

/* Workloads reaped by libpcl: their last counts, newest by gen. */
static pthread_mutex_t reaped_lock = PTHREAD_MUTEX_INITIALIZER;
struct reaped {
	pid_t pid;
	uint64_t gen;
	bool have_io, have_ru;
	uint64_t io[PROC_CANCELLED + 1];
	uint64_t nvcsw, nivcsw, maxrss_kb;
};
static struct reaped reaped[16];
static uint64_t reaped_gen;
static unsigned int reaped_next;

struct tid_val {
	pid_t tid;
	uint64_t v;
};

struct proc_counter {
	struct src_counter base;
	pid_t pid, tgid;
	bool thread; /* counts thread pid of process tgid alone */
	int cfg;
	uint64_t gen;	      /* reaped_gen when added: older notes are another process */
	struct tid_val *seen; /* context switches: last count of each thread seen */
	int nseen, aseen;
};

static bool is_io(int cfg)
{
	return cfg >= PROC_RCHAR && cfg <= PROC_CANCELLED;
}

void procfs_pmu_note_exit(pid_t pid)
{
	struct reaped r = { .pid = pid };
	char path[64], buf[PROC_FILE_MAX];

	snprintf(path, sizeof(path), "/proc/%d/io", (int)pid);
	if (read_small_file(path, buf, sizeof(buf)) >= 0) {
		r.have_io = true;
		for (int k = PROC_RCHAR; k <= PROC_CANCELLED; k++)
			if (procfs_parse_field(buf, io_keys[k], &r.io[k]))
				r.have_io = false;
	}
	pthread_mutex_lock(&reaped_lock);
	r.gen = ++reaped_gen;
	reaped[reaped_next++ % ARRAY_SIZE(reaped)] = r;
	pthread_mutex_unlock(&reaped_lock);
}

/* Caller holds reaped_lock. The newest note of @pid newer than @gen, or NULL. */
static struct reaped *reaped_find_locked(pid_t pid, uint64_t gen)
{
	struct reaped *best = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(reaped); i++)
		if (reaped[i].pid == pid && pid > 0 && reaped[i].gen > gen &&
		    (!best || reaped[i].gen > best->gen))
			best = &reaped[i];
	return best;
}

void procfs_pmu_note_rusage(pid_t pid, const struct rusage *ru)
{
	struct reaped *r;

	pthread_mutex_lock(&reaped_lock);
	r = reaped_find_locked(pid, 0);
	if (!r) {
		r = &reaped[reaped_next++ % ARRAY_SIZE(reaped)];
		memset(r, 0, sizeof(*r));
		r->pid = pid;
		r->gen = ++reaped_gen;
	}
	r->have_ru = true;
	r->nvcsw = (uint64_t)ru->ru_nvcsw;
	r->nivcsw = (uint64_t)ru->ru_nivcsw;
	r->maxrss_kb = (uint64_t)ru->ru_maxrss;
	pthread_mutex_unlock(&reaped_lock);
}

static bool reaped_get(pid_t pid, uint64_t gen, struct reaped *out)
{
	struct reaped *r;

	pthread_mutex_lock(&reaped_lock);
	r = reaped_find_locked(pid, gen);
	if (r)
		*out = *r;
	pthread_mutex_unlock(&reaped_lock);
	return r != NULL;
}

/* /proc/PID/NAME of a process, or /proc/TGID/task/TID/NAME of one thread. */
static void proc_path(char *buf, size_t size, const struct proc_counter *pc, const char *name)
{
	if (pc->thread)
		snprintf(buf, size, "/proc/%d/task/%d/%s", (int)pc->tgid, (int)pc->pid, name);
	else
		snprintf(buf, size, "/proc/%d/%s", (int)pc->pid, name);
}

/* One field of one file; -ESRCH when the file is gone (so is the task). */
static int read_field(const char *path, const char *key, uint64_t *val)
{
	char buf[PROC_FILE_MAX];
	int ret = read_small_file(path, buf, sizeof(buf));

	if (ret == -ENOENT || ret == -ESRCH)
		return -ESRCH;
	if (ret < 0)
		return ret;
	/* a zombie's status has no Vm* lines: it has no memory any more */
	ret = procfs_parse_field(buf, key, val);
	return ret == -ENOENT ? -ESRCH : ret;
}

static const char *field_key(int cfg)
{
	if (is_io(cfg))
		return io_keys[cfg];
	if (cfg == PROC_VCSW)
		return "voluntary_ctxt_switches";
	if (cfg == PROC_NIVCSW)
		return "nonvoluntary_ctxt_switches";
	return "VmHWM";
}

static bool is_thread_sibling(const struct proc_counter *pc, const struct src_counter *s)
{
	const struct proc_counter *o = (const struct proc_counter *)s;

	return o->thread && o->tgid == pc->tgid;
}

/* The process's I/O less what its threads' own counters report. */
static int io_value(struct proc_counter *pc, uint64_t whole, uint64_t *val)
{
	const char *key = io_keys[pc->cfg];
	struct src_counter *s = NULL;
	uint64_t sub = 0, v;
	char path[96];

	while ((s = src_next_sibling(&pc->base, s))) {
		struct proc_counter *o = (struct proc_counter *)s;

		if (!is_thread_sibling(pc, s) || s->dup)
			continue;
		proc_path(path, sizeof(path), o, "io");
		if (read_field(path, key, &v) == 0 && v > s->last)
			s->last = v;
		sub += s->last;
	}
	*val = whole > sub ? whole - sub : 0;
	return 0;
}

static int seen_update(struct proc_counter *pc, pid_t tid, uint64_t v)
{
	for (int i = 0; i < pc->nseen; i++) {
		if (pc->seen[i].tid == tid) {
			if (v > pc->seen[i].v)
				pc->seen[i].v = v;
			return 0;
		}
	}
	if (pc->nseen >= PROC_SEEN_MAX ||
	    grow_array((void **)&pc->seen, &pc->aseen, pc->nseen + 1, sizeof(*pc->seen)))
		return -ENOMEM;
	pc->seen[pc->nseen].tid = tid;
	pc->seen[pc->nseen++].v = v;
	return 0;
}

static bool has_own_counter(const struct proc_counter *pc, pid_t tid)
{
	struct src_counter *s = NULL;

	while ((s = src_next_sibling(&pc->base, s)))
		if (is_thread_sibling(pc, s) && ((struct proc_counter *)s)->pid == tid)
			return true;
	return false;
}

/* Context switches of every thread of the process seen so far (but those counted apart). */
static int process_ctxt(struct proc_counter *pc, uint64_t *val)
{
	const char *key = field_key(pc->cfg);
	char path[96];
	struct dirent *de;
	uint64_t v, sum = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pc->pid);
	d = opendir(path);
	if (!d)
		return -ESRCH;
	while ((de = readdir(d))) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);

		if (de->d_name[0] < '1' || de->d_name[0] > '9' || *end || tid > 0x3fffffff ||
		    has_own_counter(pc, (pid_t)tid))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%ld/status", (int)pc->pid, tid);
		if (read_field(path, key, &v) == 0)
			seen_update(pc, (pid_t)tid, v);
	}
	closedir(d);
	for (int i = 0; i < pc->nseen; i++)
		sum += pc->seen[i].v;
	*val = sum;
	return 0;
}

static int proc_value(struct src_counter *sc, uint64_t *val)
{
	struct proc_counter *pc = (struct proc_counter *)sc;
	struct reaped r;
	char path[96];
	uint64_t whole = 0;
	int ret;

	if (!pc->thread && reaped_get(pc->pid, pc->gen, &r)) {
		if (is_io(pc->cfg) && r.have_io)
			return io_value(pc, r.io[pc->cfg], val);
		if (r.have_ru && pc->cfg != PROC_HWM) {
			*val = pc->cfg == PROC_VCSW ? r.nvcsw : r.nivcsw;
			return 0;
		}
		if (r.have_ru) {
			*val = r.maxrss_kb;
			return 0;
		}
	}
	if (is_io(pc->cfg)) {
		proc_path(path, sizeof(path), pc, "io");
		ret = read_field(path, io_keys[pc->cfg], &whole);
		if (ret || pc->thread) {
			*val = whole;
			return ret;
		}
		return io_value(pc, whole, val);
	}
	if (pc->cfg != PROC_HWM && !pc->thread)
		return process_ctxt(pc, val);
	proc_path(path, sizeof(path), pc, "status");
	return read_field(path, field_key(pc->cfg), val);
}

static void proc_free(struct src_counter *sc)
{
	struct proc_counter *pc = (struct proc_counter *)sc;

	free(pc->seen);
	free(pc);
}

static int proc_event_init(struct pcl_pmu *pmu, struct perf_event_attr *attr)
{
	(void)pmu;
	return attr->config >= PROC_RCHAR && attr->config <= PROC_HWM ? 0 : -ENOENT;
}

/* Whether the task is still there (its status file is). */
static bool access_status(const struct proc_counter *pc)
{
	char path[96];

	proc_path(path, sizeof(path), pc, "status");
	return access(path, F_OK) == 0;
}

/* Can this machine and user read what @pc needs? 0, or -errno with the reason set. */
static int proc_probe(const struct pcl_counter *c, const struct proc_counter *pc)
{
	const char *file = is_io(pc->cfg) ? "io" : "status";
	char path[96], buf[PROC_FILE_MAX];
	uint64_t v;
	int ret;

	proc_path(path, sizeof(path), pc, file);
	ret = read_small_file(path, buf, sizeof(buf));
	if (ret == -ENOENT && is_io(pc->cfg) && access_status(pc))
		return pcl_err(EOPNOTSUPP,
			       "%s: no %s on this machine (kernel without "
			       "CONFIG_TASK_IO_ACCOUNTING)",
			       src_event_name(c), path);
	if (ret == -ENOENT || ret == -ESRCH)
		return -ESRCH;
	if (ret < 0)
		return pcl_err(-ret, "%s: cannot read %s: %s", src_event_name(c), path,
			       pcl_strerror(ret));
	ret = procfs_parse_field(buf, field_key(pc->cfg), &v);
	if (ret == -ENOENT && pc->cfg == PROC_HWM)
		return pcl_err(EOPNOTSUPP, "%s: task %d has no memory of its own (no VmHWM in %s)",
			       src_event_name(c), (int)pc->pid, path);
	if (ret)
		return pcl_err(EOPNOTSUPP, "%s: no readable '%s' field in %s", src_event_name(c),
			       field_key(pc->cfg), path);
	return 0;
}

static int proc_add(struct pcl_counter *c)
{
	pid_t pid = c->pid == 0 ? getpid() : c->pid;
	struct proc_counter *pc;
	char path[64];
	uint64_t tgid;
	int ret;

	if (c->pid < 0 || (c->flags & PERF_FLAG_PID_CGROUP))
		return pcl_err(EOPNOTSUPP,
			       "%s: counts a process or a thread; give a command, -p or -t "
			       "(not system-wide -a, -C or -G alone)",
			       src_event_name(c));
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	ret = read_field(path, "Tgid", &tgid);
	if (ret)
		return ret == -ESRCH ? -ESRCH
				     : pcl_err(-ret, "%s: cannot read %s: %s", src_event_name(c),
					       path, pcl_strerror(ret));
	pc = calloc(1, sizeof(*pc));
	if (!pc)
		return -ENOMEM;
	pc->pid = pid;
	pc->tgid = (pid_t)tgid;
	pc->thread = pc->tgid != pid;
	pc->cfg = (int)c->attr->config;
	ret = proc_probe(c, pc);
	if (ret) {
		free(pc);
		return ret;
	}
	pthread_mutex_lock(&reaped_lock);
	pc->gen = reaped_gen;
	pthread_mutex_unlock(&reaped_lock);
	pc->base.key = c->attr;
	/* the peak RSS belongs to the memory, which all threads share: report it once */
	pc->base.ident = pc->cfg == PROC_HWM ? pc->tgid : pid;
	pc->base.gauge = pc->cfg == PROC_HWM;
	pc->base.value = proc_value;
	pc->base.free = proc_free;
	src_attach(c, &pc->base);
	return 0;
}

static const struct pcl_pmu_ops proc_ops = {
	.sz = sizeof(struct pcl_pmu_ops),
	.event_init = proc_event_init,
	.add = proc_add,
	.del = src_del,
	.start = src_start,
	.stop = src_stop,
	.read = src_read,
};

static const struct pcl_pmu_alias proc_aliases[] = {
	{ "rchar", "config=1", "bytes", 1.0,
	  "Bytes read by read(2) and similar calls, from any file or socket (/proc/PID/io rchar)" },
	{ "wchar", "config=2", "bytes", 1.0,
	  "Bytes written by write(2) and similar calls, to any file or socket (/proc/PID/io "
	  "wchar)" },
	{ "syscr", "config=3", NULL, 1.0,
	  "Read system calls: read(2), pread(2), readv(2)... (syscr)" },
	{ "syscw", "config=4", NULL, 1.0,
	  "Write system calls: write(2), pwrite(2), writev(2)... (syscw)" },
	{ "read_bytes", "config=5", "bytes", 1.0,
	  "Bytes the process caused to be fetched from storage (read_bytes)" },
	{ "write_bytes", "config=6", "bytes", 1.0,
	  "Bytes the process caused to be sent to storage (write_bytes)" },
	{ "cancelled_write_bytes", "config=7", "bytes", 1.0,
	  "Bytes of dirty page cache the process kept from being written, e.g. by truncating "
	  "(cancelled_write_bytes)" },
	{ "voluntary-ctxt-switches", "config=8", NULL, 1.0,
	  "Context switches because the task blocked or slept (/proc/PID/status "
	  "voluntary_ctxt_switches)" },
	{ "nonvoluntary-ctxt-switches", "config=9", NULL, 1.0,
	  "Context switches because the task was preempted (nonvoluntary_ctxt_switches)" },
	{ "rss-hwm", "config=10", "kB", 1.0,
	  "Peak resident set size, a gauge: the high-water mark now (/proc/PID/status VmHWM)" },
};

void procfs_pmu_register(void)
{
	struct pcl_pmu_desc desc = {
		.sz = sizeof(desc),
		.name = "proc",
		.ops = &proc_ops,
		.aliases = proc_aliases,
		.nr_aliases = ARRAY_SIZE(proc_aliases),
	};

	pmu_register_desc(&desc);
}
