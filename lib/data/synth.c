/* SPDX-License-Identifier: MIT */
/*
 * Synthesized records: the kernel map and the state of processes that ran
 * before recording started, as perf synthesizes them, so a report of an
 * attached process or a system-wide recording can symbolize.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <pcl/evlist.h>
#include "internal.h"

#define REC_MAX 4096

struct rec {
	union {
		struct perf_event_header h;
		uint8_t b[REC_MAX];
	};
	size_t len;
};

static void rec_init(struct rec *r, uint32_t type, uint16_t misc)
{
	memset(&r->h, 0, sizeof(r->h));
	r->h.type = type;
	r->h.misc = misc;
	r->len = sizeof(r->h);
}

static void rec_put(struct rec *r, const void *p, size_t n)
{
	if (r->len + n <= REC_MAX - 64) {
		memcpy(r->b + r->len, p, n);
		r->len += n;
	}
}

static void rec_u32x2(struct rec *r, uint32_t a, uint32_t b)
{
	uint32_t v[2] = { a, b };

	rec_put(r, v, 8);
}

static void rec_u64(struct rec *r, uint64_t v)
{
	rec_put(r, &v, 8);
}

/* A NUL-terminated string padded to 8 bytes, as the kernel writes names. */
static void rec_str(struct rec *r, const char *s)
{
	static const char zeros[8];
	size_t n = strlen(s) + 1;

	if (n > REC_MAX - 256)
		n = REC_MAX - 256;
	rec_put(r, s, n - 1);
	rec_put(r, zeros, 1 + ((8 - n % 8) % 8));
}

/* The sample_id_all trailer in sample_type order; time, cpu and stream id are 0. */
static void rec_trailer(struct rec *r, const struct perf_event_attr *a, uint32_t pid, uint32_t tid,
			uint64_t id)
{
	uint64_t st = a->sample_type;

	if (!a->sample_id_all)
		return;
	if (st & PERF_SAMPLE_TID)
		rec_u32x2(r, pid, tid);
	if (st & PERF_SAMPLE_TIME)
		rec_u64(r, 0);
	if (st & PERF_SAMPLE_ID)
		rec_u64(r, id);
	if (st & PERF_SAMPLE_STREAM_ID)
		rec_u64(r, 0);
	if (st & PERF_SAMPLE_CPU)
		rec_u32x2(r, 0, 0);
	if (st & PERF_SAMPLE_IDENTIFIER)
		rec_u64(r, id);
}

static int rec_emit(struct rec *r, pcl_record_sink_t sink, void *ctx)
{
	r->h.size = (uint16_t)r->len;
	return sink(ctx, &r->h);
}

/* The kernel text starts at _text; perf names its map [kernel.kallsyms]_text. */
static uint64_t kernel_text_start(void)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], name[256], type;
	unsigned long long addr;
	uint64_t start = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) == 3 &&
		    !strcmp(name, "_text")) {
			start = addr;
			break;
		}
	}
	fclose(f);
	return start;
}

PCL_API int pcl_synthesize_kernel_mmap(const struct perf_event_attr *attr, uint64_t id,
				       pcl_record_sink_t sink, void *ctx)
{
	struct rec r;
	uint64_t start = kernel_text_start();

	if (!attr || !sink)
		return pcl_err(EINVAL, "pcl_synthesize_kernel_mmap: invalid argument");
	if (!start) /* kptr_restrict hides kernel addresses from us */
		return pcl_err(EACCES, "pcl_synthesize_kernel_mmap: kernel addresses are hidden");
	rec_init(&r, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL);
	rec_u32x2(&r, (uint32_t)-1, 0);
	rec_u64(&r, start);
	rec_u64(&r, ~0ULL - start);
	rec_u64(&r, start);
	rec_str(&r, "[kernel.kallsyms]_text");
	rec_trailer(&r, attr, (uint32_t)-1, 0, id);
	return rec_emit(&r, sink, ctx);
}

static int synth_comm(pid_t pid, pid_t tid, const struct perf_event_attr *a, uint64_t id,
		      pcl_record_sink_t sink, void *ctx)
{
	char path[64], comm[32];
	struct rec r;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	if (read_small_file(path, comm, sizeof(comm)) < 0)
		return 0; /* gone meanwhile */
	rec_init(&r, PERF_RECORD_COMM, 0);
	rec_u32x2(&r, (uint32_t)pid, (uint32_t)tid);
	rec_str(&r, comm);
	rec_trailer(&r, a, (uint32_t)pid, (uint32_t)tid, id);
	return rec_emit(&r, sink, ctx);
}

static int synth_fork(pid_t pid, pid_t tid, const struct perf_event_attr *a, uint64_t id,
		      pcl_record_sink_t sink, void *ctx)
{
	struct rec r;

	rec_init(&r, PERF_RECORD_FORK, 0);
	rec_u32x2(&r, (uint32_t)pid, (uint32_t)pid);
	rec_u32x2(&r, (uint32_t)tid, (uint32_t)pid);
	rec_u64(&r, 0);
	rec_trailer(&r, a, (uint32_t)pid, (uint32_t)tid, id);
	return rec_emit(&r, sink, ctx);
}

/* One line of /proc/PID/maps as an MMAP2 record. */
static int synth_map(pid_t pid, const char *line, const struct perf_event_attr *a, uint64_t id,
		     bool data_maps, pcl_record_sink_t sink, void *ctx)
{
	unsigned long long start, end, pgoff, ino;
	unsigned int maj, min;
	char perms[8], name[4096] = "";
	uint32_t prot = 0, flags;
	struct rec r;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4095[^\n]", &start, &end, perms, &pgoff,
		   &maj, &min, &ino, name) < 7)
		return 0;
	prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
	       (perms[2] == 'x' ? PROT_EXEC : 0);
	if (!(prot & PROT_EXEC) && !(data_maps && name[0] == '/'))
		return 0;
	flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	{
		char *n = name;

		while (*n == ' ')
			n++;
		memmove(name, n, strlen(n) + 1);
	}
	if (!name[0])
		snprintf(name, sizeof(name), "//anon");
	rec_init(&r, PERF_RECORD_MMAP2,
		 PERF_RECORD_MISC_USER | ((prot & PROT_EXEC) ? 0 : PERF_RECORD_MISC_MMAP_DATA));
	rec_u32x2(&r, (uint32_t)pid, (uint32_t)pid);
	rec_u64(&r, start);
	rec_u64(&r, end - start);
	rec_u64(&r, pgoff);
	rec_u32x2(&r, maj, min);
	rec_u64(&r, ino);
	rec_u64(&r, 0);
	rec_u32x2(&r, prot, flags);
	rec_str(&r, name);
	rec_trailer(&r, a, (uint32_t)pid, (uint32_t)pid, id);
	return rec_emit(&r, sink, ctx);
}

PCL_API int pcl_synthesize_process(pid_t pid, const struct perf_event_attr *attr, uint64_t id,
				   bool data_maps, pcl_record_sink_t sink, void *ctx)
{
	char path[64], line[4300];
	struct dirent *de;
	DIR *d;
	FILE *f;
	int ret = 0;

	if (!attr || !sink || pid <= 0)
		return pcl_err(EINVAL, "pcl_synthesize_process: invalid argument");
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return pcl_err(ESRCH, "pcl_synthesize_process: no process %d", (int)pid);
	/* the main thread first, so its COMM names the process */
	ret = synth_comm(pid, pid, attr, id, sink, ctx);
	while (!ret && (de = readdir(d))) {
		pid_t tid = (pid_t)atoi(de->d_name);

		if (tid <= 0 || tid == pid)
			continue;
		ret = synth_fork(pid, tid, attr, id, sink, ctx);
		if (!ret)
			ret = synth_comm(pid, tid, attr, id, sink, ctx);
	}
	closedir(d);
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return ret;
	while (!ret && fgets(line, sizeof(line), f))
		ret = synth_map(pid, line, attr, id, data_maps, sink, ctx);
	fclose(f);
	return ret;
}

/* The process a thread belongs to (Tgid in /proc/TID/status), or the tid itself. */
static pid_t thread_group(pid_t tid)
{
	char path[64], line[256];
	FILE *f;
	int tgid = (int)tid;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return tid;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return (pid_t)tgid;
}

PCL_API int pcl_synthesize_processes(const struct pcl_evlist *el,
				     const struct perf_event_attr *attr, uint64_t id,
				     bool data_maps, pcl_record_sink_t sink, void *ctx)
{
	int ret = 0, n = el ? pcl_evlist__nr_threads(el) : 0;
	struct dirent *de;
	pid_t *done;
	DIR *d;

	if (!attr || !sink)
		return pcl_err(EINVAL, "pcl_synthesize_processes: invalid argument");
	if (!el) {
		d = opendir("/proc");
		if (!d)
			return pcl_err(errno, "/proc: %s", strerror(errno));
		while (!ret && (de = readdir(d))) {
			pid_t pid = (pid_t)atoi(de->d_name);

			if (pid > 0)
				ret = pcl_synthesize_process(pid, attr, id, data_maps, sink, ctx);
			if (ret == -ESRCH)
				ret = 0;
		}
		closedir(d);
		return ret;
	}
	done = calloc((size_t)n + 1, sizeof(*done));
	if (!done)
		return pcl_err(ENOMEM, "out of memory");
	/* each process once, however many of its threads are targets */
	for (int i = 0, nd = 0; i < n && !ret; i++) {
		pid_t tgid = thread_group(pcl_evlist__thread(el, i));
		int j = 0;

		while (j < nd && done[j] != tgid)
			j++;
		if (j < nd || tgid <= 0)
			continue;
		done[nd++] = tgid;
		ret = pcl_synthesize_process(tgid, attr, id, data_maps, sink, ctx);
		if (ret == -ESRCH)
			ret = 0;
	}
	free(done);
	return ret;
}
