/* SPDX-License-Identifier: MIT */
/*
 * The memory of traced processes, for the strings (paths) a syscall takes
 * by pointer: the raw_syscalls tracepoints record the pointer only, and
 * the bytes behind it may change once the call has returned. A string is
 * printed as exact only when its bytes are known as they were at the call:
 *
 *   - on the user stack: the sys_enter sample copied the stack from the
 *     stack pointer up (PERF_SAMPLE_STACK_USER), at the call;
 *   - in a mapping of a file that was never writable (string literals in
 *     .rodata; not RELRO, which is written and then made read-only): read
 *     from the file, when it is still the same file (device and inode of
 *     the mapping) and was not changed (ctime) since before the call. The
 *     mappings are those the process had at the time of the call: MMAP2
 *     records (sent for mmap, mprotect and brk, with attr.mmap_data)
 *     processed in time order, and /proc/PID/maps for a process that ran
 *     before pcl attached.
 *
 * Anything else is read from /proc/PID/mem when the record is processed,
 * after the call, and is marked late (TS_LATE); when that fails too, the
 * pointer is printed.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include "trace.h"

struct map {
	uint64_t start, end, pgoff, ino;
	uint32_t prot, maj, min;
	/*
	 * It was writable once: mprotect(PROT_READ) of a written private
	 * mapping (RELRO) sends an MMAP2 that says read-only, but the memory
	 * is no longer the file's.
	 */
	bool was_writable;
	char *path;
};

struct proc {
	pid_t pid;
	int nmaps, cap;
	struct map *maps; /* sorted by start, not overlapping */
	int mem_fd;	  /* /proc/PID/mem, -1 until opened, -2 when it failed */
	struct proc *next;
};

#define NR_BUCKETS 4096
#define NR_FILES   32

struct file_ent {
	dev_t dev;
	ino_t ino;
	int fd; /* -1: free */
};

struct trace_mem {
	struct proc *buckets[NR_BUCKETS];
	struct file_ent files[NR_FILES];
	unsigned int next_file;
};

struct trace_mem *trace_mem__new(void)
{
	struct trace_mem *m = calloc(1, sizeof(*m));

	if (m)
		for (int i = 0; i < NR_FILES; i++)
			m->files[i].fd = -1;
	return m;
}

static void clear_maps(struct proc *p)
{
	for (int i = 0; i < p->nmaps; i++)
		free(p->maps[i].path);
	p->nmaps = 0;
}

void trace_mem__free(struct trace_mem *m)
{
	if (!m)
		return;
	for (int b = 0; b < NR_BUCKETS; b++) {
		for (struct proc *p = m->buckets[b], *n; p; p = n) {
			n = p->next;
			clear_maps(p);
			free(p->maps);
			if (p->mem_fd >= 0)
				close(p->mem_fd);
			free(p);
		}
	}
	for (int i = 0; i < NR_FILES; i++)
		if (m->files[i].fd >= 0)
			close(m->files[i].fd);
	free(m);
}

static struct proc *find_proc(struct trace_mem *m, pid_t pid, bool create)
{
	unsigned int b = (unsigned int)pid % NR_BUCKETS;
	struct proc *p;

	for (p = m->buckets[b]; p; p = p->next)
		if (p->pid == pid)
			return p;
	if (!create || !(p = calloc(1, sizeof(*p))))
		return NULL;
	p->pid = pid;
	p->mem_fd = -1;
	p->next = m->buckets[b];
	m->buckets[b] = p;
	return p;
}

static int grow(struct proc *p, int need)
{
	struct map *n;
	int cap;

	if (need <= p->cap)
		return 0;
	cap = p->cap ? p->cap * 2 : 32;
	while (cap < need)
		cap *= 2;
	n = realloc(p->maps, (size_t)cap * sizeof(*n));
	if (!n)
		return -ENOMEM;
	p->maps = n;
	p->cap = cap;
	return 0;
}

/* Take [start, end) out of @p's maps: what overlaps is trimmed, split or dropped. */
static int punch(struct proc *p, uint64_t start, uint64_t end)
{
	for (int i = 0; i < p->nmaps; i++) {
		struct map *e = &p->maps[i];

		if (e->end <= start || e->start >= end)
			continue;
		if (e->start < start && e->end > end) { /* split in two */
			struct map tail = *e;

			if (grow(p, p->nmaps + 1))
				return -ENOMEM;
			e = &p->maps[i];
			tail.path = e->path ? strdup(e->path) : NULL;
			tail.pgoff += end - e->start;
			tail.start = end;
			e->end = start;
			memmove(&p->maps[i + 2], &p->maps[i + 1],
				(size_t)(p->nmaps - i - 1) * sizeof(*e));
			p->maps[i + 1] = tail;
			p->nmaps++;
			return 0;
		}
		if (e->start < start) {
			e->end = start;
		} else if (e->end > end) {
			e->pgoff += end - e->start;
			e->start = end;
		} else {
			free(e->path);
			memmove(e, e + 1, (size_t)(p->nmaps - i - 1) * sizeof(*e));
			p->nmaps--;
			i--;
		}
	}
	return 0;
}

/*
 * Whether the new mapping @e takes over memory of the same file at the same
 * offset that was writable: an mprotect, not a new mmap (which could not be
 * told apart, and is then not trusted either).
 */
static bool inherits_writable(const struct proc *p, const struct map *e)
{
	for (int i = 0; i < p->nmaps; i++) {
		const struct map *o = &p->maps[i];

		if (o->end <= e->start || o->start >= e->end || !o->was_writable)
			continue;
		if (o->ino == e->ino && o->maj == e->maj && o->min == e->min &&
		    o->pgoff + (e->start > o->start ? e->start - o->start : 0) ==
			    e->pgoff + (o->start > e->start ? o->start - e->start : 0))
			return true;
	}
	return false;
}

void trace_mem__map(struct trace_mem *m, pid_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		    uint32_t prot, uint32_t maj, uint32_t min, uint64_t ino, const char *path)
{
	struct proc *p = find_proc(m, pid, true);
	struct map e = { start, start + len, pgoff, ino, prot, maj, min, false, NULL };
	int i;

	if (!p || !len || e.end < start)
		return;
	e.was_writable = (prot & PROT_WRITE) || inherits_writable(p, &e);
	/* out of memory: forget the process's maps rather than keep a stale one */
	if (punch(p, e.end - len, e.end) || grow(p, p->nmaps + 1)) {
		clear_maps(p);
		return;
	}
	e.path = path && path[0] == '/' ? strdup(path) : NULL;
	for (i = 0; i < p->nmaps && p->maps[i].start < start; i++)
		;
	memmove(&p->maps[i + 1], &p->maps[i], (size_t)(p->nmaps - i) * sizeof(e));
	p->maps[i] = e;
	p->nmaps++;
}

void trace_mem__exec(struct trace_mem *m, pid_t pid)
{
	struct proc *p = find_proc(m, pid, false);

	if (!p)
		return;
	clear_maps(p);
	if (p->mem_fd >= 0)
		close(p->mem_fd);
	p->mem_fd = -1;
}

void trace_mem__exit(struct trace_mem *m, pid_t pid)
{
	trace_mem__exec(m, pid);
}

void trace_mem__fork(struct trace_mem *m, pid_t parent, pid_t child)
{
	struct proc *pp = find_proc(m, parent, false), *c;

	if (parent == child || !(c = find_proc(m, child, true)))
		return;
	/* a pid used again: nothing of the old process is this one's */
	clear_maps(c);
	if (c->mem_fd >= 0)
		close(c->mem_fd);
	c->mem_fd = -1;
	if (!pp || grow(c, pp->nmaps))
		return;
	for (int i = 0; i < pp->nmaps; i++) {
		c->maps[i] = pp->maps[i];
		c->maps[i].path = pp->maps[i].path ? strdup(pp->maps[i].path) : NULL;
	}
	c->nmaps = pp->nmaps;
}

/* The mapping a line of /proc/PID/smaps opens, into @e (path into @line). */
static bool smaps_header(char *line, struct map *e)
{
	unsigned long long start, end, off, ino;
	unsigned int maj, min;
	char perm[8];
	int n = 0;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perm, &off, &maj, &min,
		   &ino, &n) < 7)
		return false;
	line[strcspn(line, "\n")] = 0;
	*e = (struct map){ start, end, off, ino, 0, maj, min, false, n ? line + n : NULL };
	e->prot |= perm[0] == 'r' ? PROT_READ : 0;
	e->prot |= perm[1] == 'w' ? PROT_WRITE : 0;
	e->prot |= perm[2] == 'x' ? PROT_EXEC : 0;
	return true;
}

static void add_proc_map(struct trace_mem *m, pid_t pid, const struct map *e)
{
	struct proc *p;

	trace_mem__map(m, pid, e->start, e->end - e->start, e->pgoff, e->prot, e->maj, e->min,
		       e->ino, e->path ? e->path : "");
	/* pages of it were written (copied on write): not the file's any more */
	if (e->was_writable && (p = find_proc(m, pid, false))) {
		for (int i = 0; i < p->nmaps; i++)
			if (p->maps[i].start == e->start)
				p->maps[i].was_writable = true;
	}
}

/*
 * /proc/PID/smaps rather than maps: a read-only private file mapping whose
 * pages were written before it was made read-only (RELRO) shows as r--p
 * there too, but has Anonymous pages: those are not the file's bytes.
 */
void trace_mem__read_proc(struct trace_mem *m, pid_t pid)
{
	char path[64], line[4096 + 256], cur_line[4096 + 256];
	struct map cur;
	bool have = false;
	unsigned long long kb;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		struct map e;

		if (sscanf(line, "Anonymous: %llu kB", &kb) == 1) {
			if (have && kb)
				cur.was_writable = true;
			continue;
		}
		if (!smaps_header(line, &e))
			continue;
		if (have)
			add_proc_map(m, pid, &cur);
		memcpy(cur_line, line, sizeof(line));
		cur = e;
		if (e.path)
			cur.path = cur_line + (e.path - line);
		have = true;
	}
	if (have)
		add_proc_map(m, pid, &cur);
	fclose(f);
}

static const struct map *find_map(const struct proc *p, uint64_t addr)
{
	int lo = 0, hi = p->nmaps - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		const struct map *e = &p->maps[mid];

		if (addr < e->start)
			hi = mid - 1;
		else if (addr >= e->end)
			lo = mid + 1;
		else
			return e;
	}
	return NULL;
}

/* A cached fd of the file the mapping @e maps, if it is still that file; -1 if not. */
static int map_file(struct trace_mem *m, const struct map *e)
{
	dev_t dev = makedev(e->maj, e->min);
	struct stat st;
	int fd;

	for (int i = 0; i < NR_FILES; i++)
		if (m->files[i].fd >= 0 && m->files[i].dev == dev && m->files[i].ino == e->ino)
			return m->files[i].fd;
	fd = open(e->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || st.st_dev != dev || st.st_ino != e->ino) {
		close(fd);
		return -1;
	}
	struct file_ent *fe = &m->files[m->next_file++ % NR_FILES];
	if (fe->fd >= 0)
		close(fe->fd);
	*fe = (struct file_ent){ dev, (ino_t)e->ino, fd };
	return fd;
}

/* CLOCK_MONOTONIC ns of a CLOCK_REALTIME time. */
static uint64_t real_to_mono(const struct timespec *t)
{
	struct timespec r, mo;
	int64_t real_ns, off;

	clock_gettime(CLOCK_REALTIME, &r);
	clock_gettime(CLOCK_MONOTONIC, &mo);
	off = ((int64_t)r.tv_sec - mo.tv_sec) * 1000000000 + (r.tv_nsec - mo.tv_nsec);
	real_ns = (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
	return real_ns - off < 0 ? 0 : (uint64_t)(real_ns - off);
}

/* A NUL-terminated string of at most @size - 1 bytes read with pread from @fd at @off. */
static bool pread_string(int fd, uint64_t off, uint64_t limit, char *buf, size_t size)
{
	size_t got = 0;

	while (got + 1 < size && got < limit) {
		size_t want = size - 1 - got;
		ssize_t n;

		if (want > 256)
			want = 256;
		if (want > limit - got)
			want = limit - got;
		n = pread(fd, buf + got, want, (off_t)(off + got));
		if (n <= 0)
			return false;
		if (memchr(buf + got, 0, (size_t)n))
			return true;
		got += (size_t)n;
	}
	buf[got] = 0;
	return got + 1 >= size; /* truncated, still a string */
}

static bool from_file(struct trace_mem *m, const struct proc *p, const struct trace_user *u,
		      uint64_t addr, char *buf, size_t size)
{
	const struct map *e = find_map(p, addr);
	struct stat st;
	int fd;

	if (!e || (e->prot & PROT_WRITE) || e->was_writable || !e->path || !e->ino)
		return false;
	fd = map_file(m, e);
	/* changed since the call (or within a second of it): not known as the call saw it */
	if (fd < 0 || fstat(fd, &st) || real_to_mono(&st.st_ctim) + 1000000000ull >= u->time_ns)
		return false;
	return pread_string(fd, addr - e->start + e->pgoff, e->end - addr, buf, size);
}

static bool from_mem(struct proc *p, uint64_t addr, char *buf, size_t size)
{
	char path[64];

	if (p->mem_fd == -1) {
		snprintf(path, sizeof(path), "/proc/%d/mem", (int)p->pid);
		p->mem_fd = open(path, O_RDONLY | O_CLOEXEC);
		if (p->mem_fd < 0)
			p->mem_fd = -2;
	}
	return p->mem_fd >= 0 && pread_string(p->mem_fd, addr, UINT64_MAX, buf, size);
}

enum trace_str_src trace_mem__string(struct trace_mem *m, const struct trace_user *u, uint64_t addr,
				     char *buf, size_t size)
{
	struct proc *p;

	if (!addr || size < 2)
		return TS_NONE;
	if (u->stack && addr >= u->sp && addr - u->sp < u->stack_size) {
		const char *s = (const char *)u->stack + (addr - u->sp);
		size_t left = u->stack_size - (addr - u->sp);
		const char *nul = memchr(s, 0, left);

		if (nul) {
			size_t n = (size_t)(nul - s);

			if (n >= size)
				n = size - 1;
			memcpy(buf, s, n);
			buf[n] = 0;
			return TS_STACK;
		}
	}
	p = find_proc(m, u->pid, true);
	if (!p)
		return TS_NONE;
	if (from_file(m, p, u, addr, buf, size))
		return TS_FILE;
	if (from_mem(p, addr, buf, size))
		return TS_LATE;
	return TS_NONE;
}
