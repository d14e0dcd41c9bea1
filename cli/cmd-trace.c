/* SPDX-License-Identifier: MIT */
/*
 * pcl trace: the syscalls of a command, of pids or threads, or of the whole
 * system, one line per call with its duration, the way perf trace prints
 * them; or (-s) a summary per thread.
 *
 * It works from the raw_syscalls:sys_enter and sys_exit tracepoints (no
 * ptrace: the traced program is not stopped at each call). Three events
 * share one ring per CPU:
 *   0 sys_exit, which also carries the side band (COMM, FORK, EXIT, MMAP2
 *     of code and data) that names threads and tells which memory was a
 *     read-only file mapping at the time of a call;
 *   1 sys_enter of the calls that take no path;
 *   2 sys_enter of the calls that take a path, with the user stack pointer
 *     and a copy of the stack above it, so that a path on the stack is read
 *     as it was at the call (trace-mem.c).
 * The kernel filters the calls by number (-e), and, system wide, our own.
 *
 * A number names a call in the ABI of the process that made it: x86-64,
 * i386 (a 32-bit program) or x32 (numbers with __X32_SYSCALL_BIT). Both
 * sys_enter events sample the user registers' ABI for it (trace-abi.c
 * keeps each process's); an exit takes its entry's. The kernel's filter
 * cannot tell the ABIs apart, so it keeps the numbers -e selects in any of
 * them, and the calls another ABI's name selected are dropped here.
 *
 * The rings are drained every 100 ms or when a quarter full; records are
 * put in time order (CLOCK_MONOTONIC, so that what is older than the drain
 * by a margin is known to be complete) and then processed: an enter is
 * formatted and kept in its thread until its exit prints the line. Like
 * perf, an enter followed by another thread's enter prints first with
 * "...", and its exit then as "[continued]".
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <fnmatch.h>
#include <linux/perf_event.h>
#include <asm/perf_regs.h>
#include <pcl/pcl.h>
#include <pcl/evlist.h>
#include <pcl/record.h>
#include <pcl/ring.h>
#include "cli.h"
#include "run.h"
#include "trace.h"

#define STACK_BYTES 8192
#define ALIGNMENT   70
#define HOLD_NS	    20000000ull /* records younger than this at a drain may still be coming */

enum { EV_EXIT, EV_ENTER, EV_ENTER_PATH, NR_EV };

struct trace_opts {
	struct pcl_target target;
	char **argv;
	const char *events; /* -e */
	double duration_ms;
	bool summary, summary_only, failure_only;
	const char *output;
	unsigned int mmap_pages;
};

struct sc_stats {
	uint64_t calls, errors;
	uint64_t n, min, max; /* of the n calls with a duration */
	double mean, m2;
};

struct thr {
	pid_t tid, pid;
	char comm[17];
	bool comm_known;
	bool entry_pending;
	long entry_nr; /* as the tracepoint gives it (x32: with its bit) */
	enum trace_abi entry_abi;
	uint64_t entry_time;
	/*
	 * A call -e did not select, whose exit is to be dropped too, without
	 * touching the entry above (a signal handler's calls come between a
	 * call's entry and its exit).
	 */
	bool skip;
	long skip_nr;
	bool execd; /* exec'ed, and no call of it seen since */
	char *entry_str;
	uint64_t nr_events;
	struct sc_stats *stats[NR_TRACE_ABI]; /* by ABI and syscall nr, with -s */
	struct thr *next;
};

struct pending {
	uint64_t time, seq;
	int ev;
	uint32_t size;
	uint64_t data[]; /* the record, 8-byte aligned */
};

struct tracer {
	struct trace_opts *o;
	bool auto_pages; /* no -m: as big as the kernel lets us */
	struct pcl_evlist *el;
	int evidx[NR_EV]; /* index in el, -1: not opened */
	struct perf_event_attr attr[NR_EV];
	struct {
		uint64_t id;
		int ev;
	} * ids;
	int nids;
	struct pcl_ring **rings;
	int nrings;
	int *evfds; /* every event fd that writes into a ring: what is polled */
	int nevfds;
	struct pending **pend;
	size_t npend, cap;
	uint64_t seq;
	struct thr *threads[4096];
	struct thr *current;
	struct trace_mem *mem;
	struct trace_abis *abis;
	uint64_t unsure; /* calls named as x86-64 ones without knowing their ABI */
	FILE *out;
	uint64_t base_time, nr_events, lost;
	char *selected[NR_TRACE_ABI]; /* by ABI and nr: traced */
	bool select_others;	      /* numbers past the tables: traced (no -e, or "!") */
	bool sigreturn;		      /* rt_sigreturn or sigreturn is traced */
	/*
	 * Lines name their thread (comm/tid) unless the target is one thread
	 * that has no children traced: -p or -t of a single thread, as perf
	 * trace prints them.
	 */
	bool multiple_threads;
};

static const char *const trace_usage_hint = "see 'pcl trace -h'";

/* ---- threads ---- */

static struct thr *thread_get(struct tracer *t, pid_t pid, pid_t tid)
{
	unsigned int b = (unsigned int)tid % 4096;
	struct thr *th;

	for (th = t->threads[b]; th; th = th->next)
		if (th->tid == tid)
			break;
	if (!th) {
		th = calloc(1, sizeof(*th));
		if (!th)
			return NULL;
		th->tid = tid;
		th->pid = pid;
		th->next = t->threads[b];
		t->threads[b] = th;
	}
	if (pid > 0)
		th->pid = pid;
	return th;
}

static const char *thread_comm(struct thr *th)
{
	char path[64];
	FILE *f;

	if (th->comm_known)
		return th->comm;
	/* not named by a COMM record: it ran before we started; /proc says */
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)th->pid, (int)th->tid);
	f = fopen(path, "r");
	if (f) {
		if (fgets(th->comm, sizeof(th->comm), f))
			th->comm[strcspn(th->comm, "\n")] = 0;
		fclose(f);
	}
	if (!th->comm[0])
		snprintf(th->comm, sizeof(th->comm), ":%d", (int)th->tid);
	th->comm_known = true;
	return th->comm;
}

/* ---- printing, perf trace's layout ---- */

static void print_head(struct tracer *t, struct thr *th, uint64_t tstamp, uint64_t duration,
		       bool calculated)
{
	if (tstamp)
		fprintf(t->out, "%10.3f ", (double)(tstamp - t->base_time) / 1e6);
	else
		fprintf(t->out, "         ? ");
	if (calculated)
		fprintf(t->out, "(%6.3f ms): ", (double)duration / 1e6);
	else
		fprintf(t->out, "(         ): ");
	if (t->multiple_threads)
		fprintf(t->out, "%.14s/%d ", thread_comm(th), (int)th->tid);
}

static bool printing_lines(const struct trace_opts *o)
{
	return !(o->duration_ms > 0 || o->summary_only || o->failure_only);
}

/* The entry of the thread @th, cut short by another's call or by its end. */
static void print_entry_only(struct tracer *t, struct thr *th)
{
	int len;

	if (!th || !th->entry_pending)
		return;
	print_head(t, th, th->entry_time, 0, false);
	len = fprintf(t->out, "%s)", th->entry_str);
	if (len < ALIGNMENT - 4)
		fprintf(t->out, "%-*s", ALIGNMENT - 4 - len, " ");
	fprintf(t->out, " ...\n");
	th->entry_pending = false;
}

/* The entry of the thread that made the last call, cut short by another's call. */
static void print_interrupted(struct tracer *t)
{
	print_entry_only(t, t->current);
}

/*
 * The kernel's own errnos (include/linux/errno.h): never seen by a program,
 * but at sys_exit a call interrupted by a signal returns one of them before
 * it is restarted or turned into EINTR. strace's names and texts.
 */
static const char *const kernel_errno[][2] = {
	{ "ERESTARTSYS", "To be restarted if SA_RESTART is set" },
	{ "ERESTARTNOINTR", "To be restarted" },
	{ "ERESTARTNOHAND", "To be restarted if no handler" },
	{ "ENOIOCTLCMD", "No ioctl command" },
	{ "ERESTART_RESTARTBLOCK", "Interrupted by signal" },
	{ "EPROBE_DEFER", "Driver requests probe retry" },
	{ "EOPENSTALE", "Open found a stale dentry" },
	{ "ENOPARAM", "Parameter not supported" },
};

static void print_ret(struct tracer *t, const struct trace_sc *sc, long ret)
{
	if (ret <= -512 && ret > -512 - (long)(sizeof(kernel_errno) / sizeof(kernel_errno[0]))) {
		fprintf(t->out, "-1 %s (%s)", kernel_errno[-ret - 512][0],
			kernel_errno[-ret - 512][1]);
	} else if (ret < 0 && ret >= -4095) {
		const char *name = strerrorname_np((int)-ret);

		if (name)
			fprintf(t->out, "-1 %s (%s)", name, strerror((int)-ret));
		else
			fprintf(t->out, "-1 %ld (Unknown error)", -ret);
	} else if (sc && sc->ret == TR_HEX) {
		fprintf(t->out, "%#lx", ret);
	} else if (sc && sc->ret == TR_PID && ret > 0) {
		unsigned int b = (unsigned int)ret % 4096;
		struct thr *c;

		for (c = t->threads[b]; c && c->tid != (pid_t)ret; c = c->next)
			;
		fprintf(t->out, "%ld", ret);
		if (c && c->comm_known)
			fprintf(t->out, " (%s)", c->comm);
	} else {
		fprintf(t->out, "%ld", ret);
	}
}

/* ---- the stats of -s ---- */

/*
 * A call whose entry was not seen (made before the trace began: the
 * command's execve, a call blocked at -p; or lost) is counted, but has no
 * duration: not a 0 in total, min, avg and max.
 */
static void stats_update(struct thr *th, enum trace_abi abi, long nr, long ret, bool timed,
			 uint64_t duration)
{
	struct sc_stats *s;
	double delta;

	if (nr < 0 || nr >= trace_sc_max(abi))
		return;
	if (!th->stats[abi] &&
	    !(th->stats[abi] = calloc((size_t)trace_sc_max(abi), sizeof(*th->stats[abi]))))
		return;
	s = &th->stats[abi][nr];
	s->calls++;
	if (ret < 0)
		s->errors++;
	if (!timed)
		return;
	/* Welford, as perf's update_stats */
	s->n++;
	delta = (double)duration - s->mean;
	s->mean += delta / (double)s->n;
	s->m2 += delta * ((double)duration - s->mean);
	if (s->n == 1 || duration < s->min)
		s->min = duration;
	if (duration > s->max)
		s->max = duration;
}

/* ---- the ABI of a call ---- */

static bool selected(const struct tracer *t, enum trace_abi abi, long nr)
{
	if (nr < 0 || nr >= trace_sc_max(abi))
		return t->select_others;
	return t->selected[abi][nr];
}

/*
 * The ABI of call @nr of a process whose ABI is @abi: x32 when a 64-bit
 * process sets TRACE_X32_BIT (cleared in *@nr then); in an i386 process
 * the bit makes no x32 call, only a number i386 does not have.
 */
static enum trace_abi call_abi(enum trace_abi abi, long *nr)
{
	if (abi != TRACE_ABI_64 || *nr < 0 || !(*nr & TRACE_X32_BIT))
		return abi;
	*nr &= ~TRACE_X32_BIT;
	return TRACE_ABI_X32;
}

/*
 * The ABI of the call @nr (made to) enter in sample @s: as the user
 * registers' ABI says (the mode the thread ran in), which is then the
 * process's; *@nr becomes the number in its table.
 */
static enum trace_abi enter_abi(struct tracer *t, const struct pcl_sample *s, long *nr,
				bool *certain)
{
	enum trace_abi abi;

	*certain = true;
	if (s->user_abi == PERF_SAMPLE_REGS_ABI_32 || s->user_abi == PERF_SAMPLE_REGS_ABI_64) {
		abi = s->user_abi == PERF_SAMPLE_REGS_ABI_32 ? TRACE_ABI_I386 : TRACE_ABI_64;
		trace_abis__set(t->abis, (pid_t)s->pid, abi);
	} else {
		abi = trace_abis__get(t->abis, (pid_t)s->pid, certain);
	}
	return call_abi(abi, nr);
}

/* The ABI of the call @nr that @th exits (@matched: the entry it had is this call's). */
static enum trace_abi exit_abi(struct tracer *t, struct thr *th, long *nr, bool matched,
			       bool *certain)
{
	*certain = true;
	if (matched)
		return call_abi(th->entry_abi == TRACE_ABI_X32 ? TRACE_ABI_64 : th->entry_abi, nr);
	/*
	 * The first exit after an exec is the exec's own, numbered in the ABI
	 * of the program that called it (the command's execve, entered before
	 * the trace began); no ABI has its execve or execveat at another's.
	 */
	if (th->execd) {
		for (int a = TRACE_ABI_64; a <= TRACE_ABI_I386; a++) {
			struct trace_sc *sc = trace_sc((enum trace_abi)a, *nr);

			if (sc && (!strcmp(sc->name, "execve") || !strcmp(sc->name, "execveat")))
				return (enum trace_abi)a;
		}
	}
	return call_abi(trace_abis__get(t->abis, th->pid, certain), nr);
}

/* ---- sys_enter / sys_exit ---- */

static void on_enter(struct tracer *t, const struct pcl_record *r, bool with_stack)
{
	const struct pcl_sample *s = &r->sample;
	const uint8_t *raw = s->raw;
	struct trace_user u = { .pid = (pid_t)s->pid, .time_ns = s->time };
	enum trace_abi abi;
	struct trace_sc *sc;
	struct thr *th;
	uint64_t args[6];
	int64_t id;
	long nr;
	bool certain;

	if (s->raw_size < 64)
		return;
	memcpy(&id, raw + 8, 8);
	memcpy(args, raw + 16, sizeof(args));
	th = thread_get(t, (pid_t)s->pid, (pid_t)s->tid);
	if (!th)
		return;
	nr = (long)id;
	abi = enter_abi(t, s, &nr, &certain);
	th->execd = false;
	if (!selected(t, abi, nr)) { /* the kernel kept it for another ABI's call */
		th->skip = true;
		th->skip_nr = (long)id;
		return;
	}
	t->unsure += !certain;
	th->nr_events++;
	t->nr_events++;
	if (printing_lines(t->o))
		print_interrupted(t);
	sc = trace_sc(abi, nr);
	if (!t->o->summary_only) {
		if (!th->entry_str && !(th->entry_str = malloc(8192)))
			return;
		if (with_stack && s->user_abi && s->user_regs && s->user_stack) {
			u.sp = s->user_regs[0];
			u.stack = s->user_stack;
			u.stack_size = s->user_stack_dyn_size;
		}
		trace_fmt_args(th->entry_str, 8192, abi, sc, nr, args, t->mem, &u);
	}
	th->entry_time = s->time;
	th->entry_nr = (long)id;
	th->entry_abi = abi;
	if (sc && sc->is_exit) {
		if (printing_lines(t->o)) {
			int len, pad = 0;

			print_head(t, th, th->entry_time, 0, false);
			len = fprintf(t->out, "%s)", th->entry_str);
			if (ALIGNMENT > len)
				pad = ALIGNMENT - len;
			fprintf(t->out, "%*s= ?\n", pad, " ");
		}
		/* it does not return: not in the summary, as neither perf's nor strace -c's */
		th->entry_time = 0;
	} else {
		th->entry_pending = !t->o->summary_only;
	}
	t->current = th;
}

static void on_exit_(struct tracer *t, const struct pcl_record *r)
{
	const struct pcl_sample *s = &r->sample;
	const struct trace_opts *o = t->o;
	enum trace_abi abi;
	struct trace_sc *sc;
	struct thr *th;
	int64_t id, ret;
	long nr;
	uint64_t duration = 0;
	bool calculated = false, matched, certain;
	int printed, pad;

	if (s->raw_size < 24)
		return;
	memcpy(&id, (const uint8_t *)s->raw + 8, 8);
	memcpy(&ret, (const uint8_t *)s->raw + 16, 8);
	th = thread_get(t, (pid_t)s->pid, (pid_t)s->tid);
	if (!th)
		return;
	/*
	 * rt_sigreturn restores the registers of the interrupted code, the
	 * syscall nr among them as -1: its exit says -1. It is the exit of
	 * the thread's last entry; without one it cannot be named.
	 */
	if (id == -1) {
		/* (the kernel's filter may have let it through: too long, or "id != ...") */
		if (!th->entry_time || !t->sigreturn)
			return;
		id = th->entry_nr;
	}
	/* (any other negative id names no syscall) */
	if (id < 0) {
		th->nr_events++;
		t->nr_events++;
		return;
	}
	matched = th->entry_time && th->entry_nr == id && s->time >= th->entry_time;
	if (!matched && th->skip && th->skip_nr == id) {
		th->skip = false;
		return;
	}
	nr = (long)id;
	abi = exit_abi(t, th, &nr, matched, &certain);
	th->execd = false;
	if (!selected(t, abi, nr))
		return;
	/*
	 * An i386 call returns eax: the kernel sign-extends an error, but a
	 * sigreturn restores the interrupted call's 32 bits as they were
	 * (-EINTR as 0xfffffffc). An error of 32 bits is one of 64 here.
	 */
	if (abi == TRACE_ABI_I386 && (uint64_t)ret >> 32 == 0 && (uint32_t)ret >= (uint32_t)-4095)
		ret = (int32_t)ret;
	t->unsure += !certain;
	th->nr_events++;
	t->nr_events++;
	sc = trace_sc(abi, nr);
	if (matched) {
		duration = s->time - th->entry_time;
		calculated = true;
	}
	if (o->summary)
		stats_update(th, abi, nr, (long)ret, calculated, duration);
	if (o->summary_only)
		goto out;
	if (o->duration_ms > 0 && (!calculated || (double)duration < o->duration_ms * 1e6))
		goto out;
	if (o->failure_only && ret >= 0)
		goto out;
	print_head(t, th, matched ? th->entry_time : 0, duration, calculated);
	if (th->entry_pending && matched) {
		printed = fprintf(t->out, "%s", th->entry_str);
	} else {
		printed = fprintf(t->out, " ... [continued]: %s()", sc ? sc->name : "?");
	}
	printed++;
	pad = ALIGNMENT > printed ? ALIGNMENT - printed : 0;
	fprintf(t->out, ")%*s= ", pad, " ");
	print_ret(t, sc, (long)ret);
	fputc('\n', t->out);
out:
	th->entry_pending = false;
	th->entry_time = 0;
}

/* ---- records ---- */

static int ev_of(const struct tracer *t, uint64_t id)
{
	for (int i = 0; i < t->nids; i++)
		if (t->ids[i].id == id)
			return t->ids[i].ev;
	return -1;
}

static void process(struct tracer *t, struct pending *p)
{
	const struct perf_event_header *h = (const void *)p->data;
	struct pcl_record r;

	if (pcl_record_decode(h, p->size, &t->attr[p->ev], &r))
		return;
	switch (r.type) {
	case PERF_RECORD_SAMPLE:
		if (!t->base_time)
			t->base_time = r.sample.time;
		if (p->ev == EV_EXIT)
			on_exit_(t, &r);
		else
			on_enter(t, &r, p->ev == EV_ENTER_PATH);
		break;
	case PERF_RECORD_MMAP2:
		trace_mem__map(t->mem, (pid_t)r.mmap.pid, r.mmap.addr, r.mmap.len, r.mmap.pgoff,
			       r.mmap.prot,
			       (r.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) ? 0 : r.mmap.maj,
			       (r.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) ? 0 : r.mmap.min,
			       (r.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) ? 0 : r.mmap.ino,
			       r.mmap.filename);
		break;
	case PERF_RECORD_COMM: {
		struct thr *th = thread_get(t, (pid_t)r.comm.pid, (pid_t)r.comm.tid);

		if (th) {
			snprintf(th->comm, sizeof(th->comm), "%s", r.comm.comm);
			th->comm_known = true;
		}
		if (r.misc & PERF_RECORD_MISC_COMM_EXEC) {
			trace_mem__exec(t->mem, (pid_t)r.comm.pid);
			trace_abis__exec(t->abis, (pid_t)r.comm.pid);
			if (th)
				th->execd = true;
		}
		break;
	}
	case PERF_RECORD_FORK: {
		struct thr *parent = thread_get(t, (pid_t)r.task.ppid, (pid_t)r.task.ptid);
		struct thr *child = thread_get(t, (pid_t)r.task.pid, (pid_t)r.task.tid);

		if (parent && child && !child->comm_known) {
			memcpy(child->comm, thread_comm(parent), sizeof(child->comm));
			child->comm_known = true;
		}
		if (r.task.pid != r.task.ppid) {
			trace_mem__fork(t->mem, (pid_t)r.task.ppid, (pid_t)r.task.pid);
			trace_abis__fork(t->abis, (pid_t)r.task.ppid, (pid_t)r.task.pid);
		}
		break;
	}
	case PERF_RECORD_EXIT: {
		/*
		 * A thread ended: its entry buffer goes (-a sees many threads
		 * come and go); a process ended: its memory's file descriptor
		 * and mappings go too (else one fd per process is kept, until
		 * open fails and paths print as pointers).
		 */
		struct thr *th = thread_get(t, (pid_t)r.task.pid, (pid_t)r.task.tid);

		if (th) {
			if (th->entry_pending && printing_lines(t->o))
				print_entry_only(t, th);
			th->entry_pending = false;
			free(th->entry_str);
			th->entry_str = NULL;
		}
		if (r.task.pid == r.task.tid) {
			trace_mem__exit(t->mem, (pid_t)r.task.pid);
			trace_abis__exit(t->abis, (pid_t)r.task.pid);
		}
		break;
	}
	case PERF_RECORD_LOST:
		/*
		 * Records were dropped before this one: a thread's next exit may
		 * not be its entry's (that exit and the next entry of the same
		 * call lost), so no entry seen so far is paired with an exit;
		 * those calls count untimed. Which threads lost records the
		 * kernel does not say.
		 */
		t->lost += r.lost.lost;
		for (int b = 0; b < 4096; b++) {
			for (struct thr *th = t->threads[b]; th; th = th->next) {
				if (th->entry_pending && printing_lines(t->o))
					print_entry_only(t, th);
				th->entry_pending = false;
				th->entry_time = 0;
			}
		}
		break;
	}
}

static int cmp_pending(const void *a, const void *b)
{
	const struct pending *x = *(struct pending *const *)a, *y = *(struct pending *const *)b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Copy every record of the rings; process, in time order, those older than @upto. */
static int drain(struct tracer *t, uint64_t upto)
{
	size_t n = 0;

	for (int i = 0; i < t->nrings; i++) {
		const struct perf_event_header *h;

		if (pcl_ring__read_begin(t->rings[i]))
			continue;
		while ((h = pcl_ring__next(t->rings[i]))) {
			struct pcl_record r;
			struct pending *p;
			uint64_t id = pcl_record_identifier(h, h->size, true);
			int ev = ev_of(t, id);

			if (ev < 0)
				ev = EV_EXIT; /* LOST and friends without a known id */
			if (pcl_record_decode(h, h->size, &t->attr[ev], &r))
				continue;
			if (t->npend == t->cap) {
				size_t cap = t->cap ? t->cap * 2 : 4096;
				struct pending **np = realloc(t->pend, cap * sizeof(*np));

				if (!np)
					return -ENOMEM;
				t->pend = np;
				t->cap = cap;
			}
			p = malloc(sizeof(*p) + ((h->size + 7u) & ~7u));
			if (!p)
				return -ENOMEM;
			p->time = r.type == PERF_RECORD_SAMPLE ? r.sample.time
				  : r.has_id		       ? r.id.time
							       : 0;
			p->seq = t->seq++;
			p->ev = ev;
			p->size = h->size;
			memcpy(p->data, h, h->size);
			t->pend[t->npend++] = p;
		}
		pcl_ring__read_end(t->rings[i]);
	}
	if (!t->npend)
		return 0;
	qsort(t->pend, t->npend, sizeof(*t->pend), cmp_pending);
	while (n < t->npend && t->pend[n]->time <= upto) {
		process(t, t->pend[n]);
		free(t->pend[n]);
		n++;
	}
	memmove(t->pend, t->pend + n, (t->npend - n) * sizeof(*t->pend));
	t->npend -= n;
	return 0;
}

/* ---- set-up ---- */

static bool sc_matches(const char *pat, enum trace_abi abi, int nr)
{
	struct trace_sc *sc = trace_sc(abi, nr);

	return sc && !fnmatch(pat, sc->name, 0);
}

/* Select (or, @neg, drop) the calls named @pat in every ABI. Whether one matched. */
static bool select_name(struct tracer *t, const char *pat, bool neg)
{
	bool any = false;

	for (int abi = 0; abi < NR_TRACE_ABI; abi++) {
		for (int i = 0; i < trace_sc_max((enum trace_abi)abi); i++) {
			if (sc_matches(pat, (enum trace_abi)abi, i)) {
				t->selected[abi][i] = !neg;
				any = true;
			}
		}
	}
	return any;
}

/* -e: the syscalls to trace (all by default); "!" first negates the list. 0 or -1. */
static int select_syscalls(struct tracer *t)
{
	bool neg = false;
	char *list, *tok, *save = NULL;

	t->select_others = !t->o->events || t->o->events[0] == '!';
	for (int abi = 0; abi < NR_TRACE_ABI; abi++) {
		size_t max = (size_t)trace_sc_max((enum trace_abi)abi);

		t->selected[abi] = calloc(max ? max : 1, 1);
		if (!t->selected[abi])
			return -1;
		/* all by default, and all but some with "!" */
		if (!t->o->events || t->o->events[0] == '!')
			memset(t->selected[abi], 1, max);
	}
	if (!t->o->events)
		return 0;
	list = strdup(t->o->events);
	if (!list)
		return -1;
	tok = list;
	if (*tok == '!') {
		neg = true;
		tok++;
	}
	if (!tok[strspn(tok, ", ")]) {
		/* no name: nothing (or everything) would be traced without a word */
		die_msg("-e wants syscall names, not '%s'; %s", t->o->events, trace_usage_hint);
		free(list);
		return -1;
	}
	for (tok = strtok_r(tok, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!select_name(t, tok, neg)) {
			die_msg("'%s' is not a syscall this kernel has; %s", tok, trace_usage_hint);
			free(list);
			return -1;
		}
	}
	free(list);
	return 0;
}

/*
 * The ids the tracepoints give: 0.. for x86-64 and i386 calls (each
 * numbers them from 0), then x32's, with their bit.
 */
static int low_ids(void)
{
	int a = trace_sc_max(TRACE_ABI_64), b = trace_sc_max(TRACE_ABI_I386);

	return a > b ? a : b;
}

static int nr_ids(void)
{
	return low_ids() + trace_sc_max(TRACE_ABI_X32);
}

static long id_at(int i)
{
	return i < low_ids() ? i : TRACE_X32_BIT + (i - low_ids());
}

/*
 * The kernel copies a filter of at most a page (strndup_user(PAGE_SIZE)):
 * past that it says EINVAL. A longer one is left out, and the calls it
 * would have dropped are dropped here instead (on_enter, on_exit_).
 */
#define FILTER_MAX 4095

/*
 * A tracepoint filter for @want: the ids wanted ("id == a || (id >= b &&
 * id <= c) || ..."), or those not ("id != x && (id < y || id > z) && ..."),
 * the fewer; runs of consecutive ids as ranges, so that the x32 numbers
 * (each table's gaps apart, one run) keep it short. Only the process
 * filter when the ids' part would not fit.
 */
static char *id_filter(struct tracer *t, bool (*want)(struct tracer *, long), bool minus1,
		       pid_t self)
{
	int max = nr_ids(), yes = 0;
	size_t cap = 128 + (size_t)max * 48, len = 0;
	char *f = malloc(cap);
	bool eq;

	if (!f)
		return NULL;
	for (int i = 0; i < max; i++)
		yes += want(t, id_at(i));
	eq = yes <= max - yes;
	f[0] = 0;
	if (yes < max) {
		len += (size_t)snprintf(f + len, cap - len, "(");
		for (int i = 0, first = 1; i < max; i++) {
			long a = id_at(i), b = a;
			const char *sep = first ? "" : eq ? " || " : " && ";

			if (want(t, a) != eq)
				continue;
			while (i + 1 < max && id_at(i + 1) == b + 1 && want(t, id_at(i + 1)) == eq)
				b = id_at(++i);
			if (a == b)
				len += (size_t)snprintf(f + len, cap - len, "%sid %s %ld", sep,
							eq ? "==" : "!=", a);
			else if (eq)
				len += (size_t)snprintf(f + len, cap - len,
							"%s(id >= %ld && id <= %ld)", sep, a, b);
			else
				len += (size_t)snprintf(f + len, cap - len,
							"%s(id < %ld || id > %ld)", sep, a, b);
			first = 0;
		}
		if (!yes)
			len += (size_t)snprintf(f + len, cap - len, "id == -1");
		else if (eq && minus1) /* rt_sigreturn's exit (on_exit_) */
			len += (size_t)snprintf(f + len, cap - len, " || id == -1");
		len += (size_t)snprintf(f + len, cap - len, ")");
		if (len + 40 > FILTER_MAX) /* and room for the process filter */
			len = 0;
	}
	f[len] = 0;
	if (self)
		snprintf(f + len, cap - len, "%scommon_pid != %d", len ? " && " : "", (int)self);
	return f;
}

/* The id is the number of a call -e selected, in some ABI. */
static bool want_all(struct tracer *t, long id)
{
	long nr = id;

	if (call_abi(TRACE_ABI_64, &nr) == TRACE_ABI_X32)
		return selected(t, TRACE_ABI_X32, nr);
	return selected(t, TRACE_ABI_64, id) || selected(t, TRACE_ABI_I386, id);
}

/*
 * The calls that take a path get their stack copied (8 KB a call), by the
 * x86-64 table: an i386 call's path is on that copy only where x86-64's
 * call of the same number takes one too, or is not traced (-e), so that a
 * 64-bit program's mmap (i386's link) costs no more than before. Else it is
 * read from a read-only file mapping, or late (trace-mem.c).
 */
static bool takes_path(struct tracer *t, long id)
{
	struct trace_sc *sc64 = trace_sc(TRACE_ABI_64, id), *sc32 = trace_sc(TRACE_ABI_I386, id);

	if (id & TRACE_X32_BIT)
		return false;
	if (sc64 && selected(t, TRACE_ABI_64, id))
		return sc64->has_path;
	return sc32 && selected(t, TRACE_ABI_I386, id) && sc32->has_path;
}

static bool want_path(struct tracer *t, long id)
{
	return want_all(t, id) && takes_path(t, id);
}

static bool want_plain(struct tracer *t, long id)
{
	return want_all(t, id) && !takes_path(t, id);
}

static void setup_attr(struct perf_event_attr *a, int ev, unsigned int ring_bytes)
{
	a->sample_period = 1;
	a->sample_type =
		PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->watermark = 1;
	a->wakeup_watermark = ring_bytes / 4;
	if (ev == EV_EXIT) {
		a->mmap = a->mmap2 = a->comm = a->comm_exec = a->task = 1;
		a->mmap_data = 1;
	}
	/* the user registers' ABI tells a 32-bit program's calls (i386 numbers) */
	if (ev == EV_ENTER || ev == EV_ENTER_PATH) {
		a->sample_type |= PERF_SAMPLE_REGS_USER;
		a->sample_regs_user = 1ull << PERF_REG_X86_SP;
	}
	if (ev == EV_ENTER_PATH) {
		a->sample_type |= PERF_SAMPLE_STACK_USER;
		a->sample_stack_user = STACK_BYTES;
	}
}

static int add_event(struct tracer *t, int ev, const char *spec, unsigned int ring_bytes)
{
	struct pcl_parse_error perr = { 0 };
	int idx = pcl_evlist__nr(t->el);

	if (pcl_evlist__add(t->el, spec, &perr) < 0) {
		die_msg("cannot use '%s': %s (is tracefs mounted?)", spec, pcl_last_error());
		return -1;
	}
	setup_attr(pcl_evlist__attr(t->el, idx), ev, ring_bytes);
	t->evidx[ev] = idx;
	return 0;
}

static int map_rings(struct tracer *t)
{
	int ncpu = pcl_evlist__nr_cpus(t->el), nthr = pcl_evlist__nr_threads(t->el);

	t->rings = calloc((size_t)ncpu, sizeof(*t->rings));
	t->ids = calloc((size_t)(ncpu * nthr * NR_EV), sizeof(*t->ids));
	t->evfds = calloc((size_t)(ncpu * nthr * NR_EV), sizeof(*t->evfds));
	if (!t->rings || !t->ids || !t->evfds)
		return -1;
	for (int ev = 0; ev < NR_EV; ev++) {
		if (t->evidx[ev] < 0)
			continue;
		t->attr[ev] = *pcl_evlist__attr(t->el, t->evidx[ev]);
		for (int c = 0; c < ncpu; c++) {
			for (int th = 0; th < nthr; th++) {
				int fd = pcl_evlist__fd(t->el, t->evidx[ev], c, th), ret;
				uint64_t id;

				if (fd < 0)
					continue;
				if (ioctl(fd, PERF_EVENT_IOC_ID, &id) == 0) {
					t->ids[t->nids].id = id;
					t->ids[t->nids++].ev = ev;
				}
				t->evfds[t->nevfds++] = fd;
				if (t->rings[c]) {
					ret = pcl_ring_set_output(fd, pcl_ring__fd(t->rings[c]));
					if (ret) {
						die_msg("cannot share a ring buffer: %s",
							pcl_strerror(ret));
						return -1;
					}
					continue;
				}
				t->rings[c] = pcl_ring__mmap(fd, t->o->mmap_pages, false);
				/* the default is big (a syscall-heavy program fills rings fast):
				 * less if refused */
				while (!t->rings[c] && t->auto_pages && t->o->mmap_pages > 8 &&
				       (errno == EPERM || errno == ENOMEM)) {
					t->o->mmap_pages /= 2;
					t->rings[c] = pcl_ring__mmap(fd, t->o->mmap_pages, false);
				}
				if (!t->rings[c]) {
					die_msg("cannot map a %u-page ring buffer: %s (a smaller "
						"-m "
						"may fit perf_event_mlock_kb)",
						t->o->mmap_pages, strerror(errno));
					return -1;
				}
				t->nrings = c + 1 > t->nrings ? c + 1 : t->nrings;
			}
		}
	}
	/* rings are per CPU in order; a CPU with none leaves a hole: close it up */
	int n = 0;
	for (int c = 0; c < t->nrings; c++)
		if (t->rings[c])
			t->rings[n++] = t->rings[c];
	t->nrings = n;
	return 0;
}

/*
 * The mappings of the processes that run already: only with them is a
 * string exact. And their ABI, while their exe is there to tell: the exit
 * of a call made before the trace began has no entry to take it from.
 */
static void existing_proc(struct tracer *t, pid_t pid)
{
	bool certain;

	trace_mem__read_proc(t->mem, pid);
	trace_abis__get(t->abis, pid, &certain);
}

static void read_existing(struct tracer *t)
{
	const struct pcl_target *tg = &t->o->target;
	const char *list = tg->pid ? tg->pid : tg->tid;
	DIR *d;
	struct dirent *de;

	if (list) {
		for (const char *s = list; s && *s;) {
			pid_t pid = (pid_t)strtol(s, NULL, 10), tgid = pid;
			char path[64], line[256];
			FILE *f;

			if (tg->tid) { /* a thread's process */
				snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
				if ((f = fopen(path, "r"))) {
					while (fgets(line, sizeof(line), f))
						if (sscanf(line, "Tgid: %d", &tgid) == 1)
							break;
					fclose(f);
				}
			}
			existing_proc(t, tgid);
			s = strchr(s, ',');
			s = s ? s + 1 : NULL;
		}
		return;
	}
	if (!tg->system_wide && !tg->cpu_list)
		return;
	d = opendir("/proc");
	if (!d)
		return;
	while ((de = readdir(d)))
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9')
			existing_proc(t, (pid_t)atoi(de->d_name));
	closedir(d);
}

/* A call that returns to the code a signal interrupted is traced: its exit's id is -1. */
static bool sigreturn_selected(const struct tracer *t)
{
	static const char *const names[] = { "rt_sigreturn", "sigreturn" };

	for (int abi = 0; abi < NR_TRACE_ABI; abi++)
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (selected(t, (enum trace_abi)abi,
				     trace_sc_lookup((enum trace_abi)abi, names[i])))
				return true;
	return false;
}

static int setup(struct tracer *t, struct pcl_workload *wl)
{
	unsigned int ring_bytes = t->o->mmap_pages * (unsigned int)getpagesize();
	bool cpu_target = t->o->target.system_wide || t->o->target.cpu_list;
	struct pcl_target tg = t->o->target;
	pid_t self = cpu_target ? getpid() : 0;
	bool any_path = false, any_plain = false;
	int ret;

	for (int ev = 0; ev < NR_EV; ev++)
		t->evidx[ev] = -1;
	t->sigreturn = sigreturn_selected(t);
	for (int i = 0; i < nr_ids(); i++) {
		any_path |= want_path(t, id_at(i));
		any_plain |= want_plain(t, id_at(i));
	}
	t->el = pcl_evlist__new();
	if (!t->el || add_event(t, EV_EXIT, "raw_syscalls:sys_exit", ring_bytes) ||
	    (any_plain && add_event(t, EV_ENTER, "raw_syscalls:sys_enter", ring_bytes)) ||
	    (any_path && add_event(t, EV_ENTER_PATH, "raw_syscalls:sys_enter", ring_bytes)))
		return -1;
	tg.per_cpu = !cpu_target;
	/* LOST: the samples dropped, readable at the end (lost_samples) */
	pcl_evlist__set_read_format(t->el, PERF_FORMAT_ID | PERF_FORMAT_LOST);
	ret = pcl_evlist__open(t->el, &tg, wl);
	if (ret) {
		die_msg("%s", pcl_last_error());
		return -1;
	}
	t->multiple_threads =
		!(tg.pid || tg.tid) || cpu_target || pcl_evlist__nr_threads(t->el) > 1;
	for (int ev = 0; ev < NR_EV; ev++) {
		bool (*want)(struct tracer *, long) = ev == EV_EXIT    ? want_all
						      : ev == EV_ENTER ? want_plain
								       : want_path;
		char *f;

		if (t->evidx[ev] < 0)
			continue;
		if (pcl_evlist__state(t->el, t->evidx[ev]) != PCL_EVSEL_OK) {
			const char *why = pcl_evlist__open_error(t->el, t->evidx[ev]);

			die_msg("cannot open raw_syscalls tracepoints: %s",
				why ? why
				    : pcl_strerror(pcl_evlist__open_status(t->el, t->evidx[ev])));
			return -1;
		}
		f = id_filter(t, want, ev == EV_EXIT && t->sigreturn, self);
		if (!f)
			return -1;
		if (f[0] && (ret = pcl_evlist__set_filter(t->el, t->evidx[ev], f))) {
			die_msg("%s", pcl_last_error());
			free(f);
			return -1;
		}
		free(f);
	}
	if (map_rings(t))
		return -1;
	t->mem = trace_mem__new();
	t->abis = trace_abis__new();
	return t->mem && t->abis ? 0 : -1;
}

/* ---- the summary ---- */

static int cmp_thr(const void *a, const void *b)
{
	const struct thr *x = *(struct thr *const *)a, *y = *(struct thr *const *)b;

	/* perf's order: fewest events first */
	if (x->nr_events != y->nr_events)
		return x->nr_events < y->nr_events ? -1 : 1;
	return x->tid - y->tid;
}

struct row {
	const char *name; /* NULL: a number with no name */
	int key;	  /* ABI and number of its first call: the order of equal times */
	struct sc_stats s;
	double msecs;
};

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->msecs != y->msecs)
		return x->msecs > y->msecs ? -1 : 1;
	return x->key - y->key;
}

/*
 * Fold @b into @a: one syscall's calls in two ABIs, by a thread that
 * exec'ed a program of the other class (Chan et al.'s pairwise Welford).
 */
static void stats_merge(struct sc_stats *a, const struct sc_stats *b)
{
	double delta = b->mean - a->mean;
	uint64_t n = a->n + b->n;

	a->calls += b->calls;
	a->errors += b->errors;
	if (!b->n)
		return;
	if (!a->n || b->min < a->min)
		a->min = b->min;
	if (b->max > a->max)
		a->max = b->max;
	a->mean += delta * (double)b->n / (double)n;
	a->m2 += b->m2 + delta * delta * (double)a->n * (double)b->n / (double)n;
	a->n = n;
}

/* The rows of @th's table, one per name whatever the ABIs it was called in. */
static int thread_rows(struct thr *th, struct row *rows)
{
	int n = 0;

	for (int abi = 0; abi < NR_TRACE_ABI; abi++) {
		for (int i = 0; th->stats[abi] && i < trace_sc_max((enum trace_abi)abi); i++) {
			const struct sc_stats *s = &th->stats[abi][i];
			struct trace_sc *sc = trace_sc((enum trace_abi)abi, i);
			const char *name = sc ? sc->name : NULL;
			int r;

			if (!s->calls)
				continue;
			for (r = 0; r < n && !(name && rows[r].name && !strcmp(rows[r].name, name));
			     r++)
				;
			if (r == n)
				rows[n++] = (struct row){ name, abi << 16 | i, *s, 0 };
			else
				stats_merge(&rows[r].s, s);
		}
	}
	for (int r = 0; r < n; r++)
		rows[r].msecs = (double)rows[r].s.n * rows[r].s.mean / 1e6;
	return n;
}

static void print_thread_stats(struct tracer *t, struct thr *th, struct row *rows)
{
	uint64_t untimed = 0;
	int n = thread_rows(th, rows);

	fprintf(t->out, " %s (%d), %llu events, %.1f%%\n", thread_comm(th), (int)th->tid,
		(unsigned long long)th->nr_events,
		t->nr_events ? (double)th->nr_events / (double)t->nr_events * 100.0 : 0.0);
	fprintf(t->out, "\n");
	fprintf(t->out, "   syscall            calls  errors  total       min       avg       max"
			"       stddev\n");
	fprintf(t->out, "                                     (msec)    (msec)    (msec)    (msec)"
			"        (%%)\n");
	fprintf(t->out, "   --------------- --------  ------ -------- --------- --------- ---------"
			"     ------\n");
	qsort(rows, (size_t)n, sizeof(*rows), cmp_row);
	for (int i = 0; i < n; i++) {
		const struct sc_stats *s = &rows[i].s;
		double sd = s->n > 1 ? sqrt(s->m2 / (double)(s->n - 1) / (double)s->n) : 0.0;
		double pct = s->mean ? 100.0 * sd / s->mean : 0.0;

		fprintf(t->out, "   %-15s", rows[i].name ? rows[i].name : "?");
		fprintf(t->out, " %8llu %6llu", (unsigned long long)s->calls,
			(unsigned long long)s->errors);
		untimed += s->calls - s->n;
		if (!s->n) { /* no duration known */
			fprintf(t->out, " %9s %9s %9s %9s %10s\n", "?", "?", "?", "?", "?");
			continue;
		}
		fprintf(t->out, " %9.3f %9.3f %9.3f", rows[i].msecs, (double)s->min / 1e6,
			s->mean / 1e6);
		fprintf(t->out, " %9.3f %9.2f%%\n", (double)s->max / 1e6, pct);
	}
	if (untimed)
		fprintf(t->out,
			"\n   %llu call%s without a duration (entered before the trace began, or "
			"the entry missing): counted, not timed\n",
			(unsigned long long)untimed, untimed == 1 ? "" : "s");
	fprintf(t->out, "\n\n");
}

static void print_summary(struct tracer *t)
{
	struct thr **v = NULL;
	struct row *rows =
		calloc((size_t)(trace_sc_max(TRACE_ABI_64) + trace_sc_max(TRACE_ABI_I386) +
				trace_sc_max(TRACE_ABI_X32)),
		       sizeof(*rows));
	size_t n = 0, cap = 0;

	for (int b = 0; b < 4096; b++) {
		for (struct thr *th = t->threads[b]; th; th = th->next) {
			if (!th->stats[TRACE_ABI_64] && !th->stats[TRACE_ABI_I386] &&
			    !th->stats[TRACE_ABI_X32])
				continue;
			if (n == cap) {
				struct thr **nv =
					realloc(v, (cap = cap ? cap * 2 : 64) * sizeof(*v));

				if (!nv)
					goto out;
				v = nv;
			}
			v[n++] = th;
		}
	}
	if (!rows)
		goto out;
	qsort(v, n, sizeof(*v), cmp_thr);
	fprintf(t->out, "\n Summary of events:\n\n");
	for (size_t i = 0; i < n; i++)
		print_thread_stats(t, v[i], rows);
out:
	free(v);
	free(rows);
}

/* ---- the run ---- */

static void trace_loop(struct tracer *t, struct run *r, const sigset_t *waitmask)
{
	int nr = 0, nw = r->watch.nfds;
	struct pollfd *fds = calloc((size_t)(nw + t->nevfds), sizeof(*fds));

	if (!fds) {
		die_msg("out of memory");
		return;
	}
	for (int i = 0; i < nw; i++)
		fds[nr++] = r->watch.fds[i];
	/* every fd that writes into a ring, as perf polls them: one's task may end */
	for (int i = 0; i < t->nevfds; i++) {
		fds[nr].fd = t->evfds[i];
		fds[nr++].events = POLLIN;
	}
	while (!got_signal) {
		struct timespec tmo = { 0, 100000000 };
		uint64_t now;

		ppoll(fds, (nfds_t)nr, &tmo, waitmask);
		for (int i = 0; i < nw; i++)
			r->watch.fds[i].revents = fds[i].revents;
		unpoll_hung_up(fds + nw, nr - nw);
		now = now_ns();
		if (drain(t, now > HOLD_NS ? now - HOLD_NS : 0))
			break;
		if (reap(r, WNOHANG) || watch_done(&r->watch))
			break;
		watch_unpoll(&r->watch, fds);
		if (output_reader_gone())
			break;
	}
	free(fds);
}

/*
 * The samples the kernel dropped, by the events' own count. A LOST record
 * is written only once the ring has room again and something is written
 * after it: records dropped at the end of a run (the program made its last
 * calls while pcl was slow) are in no record, only in this count (kernels
 * from 6.0; 0 before, or for the threads of inherited events).
 */
static uint64_t read_lost_samples(struct tracer *t)
{
	int ncpu = pcl_evlist__nr_cpus(t->el), nthr = pcl_evlist__nr_threads(t->el);
	uint64_t total = 0;

	for (int ev = 0; ev < NR_EV; ev++) {
		const struct perf_event_attr *a;

		if (t->evidx[ev] < 0)
			continue;
		a = pcl_evlist__attr(t->el, t->evidx[ev]);
		if (!(a->read_format & PERF_FORMAT_LOST) || (a->read_format & PERF_FORMAT_GROUP))
			continue;
		for (int c = 0; c < ncpu; c++) {
			for (int th = 0; th < nthr; th++) {
				int fd = pcl_evlist__fd(t->el, t->evidx[ev], c, th);
				uint64_t v[8];
				ssize_t n;
				int i = 1;

				if (fd < 0)
					continue;
				n = read(fd, v, sizeof(v));
				if (a->read_format & PERF_FORMAT_TOTAL_TIME_ENABLED)
					i++;
				if (a->read_format & PERF_FORMAT_TOTAL_TIME_RUNNING)
					i++;
				if (a->read_format & PERF_FORMAT_ID)
					i++;
				if (n >= (ssize_t)((i + 1) * sizeof(uint64_t)))
					total += v[i];
			}
		}
	}
	return total;
}

static void free_tracer(struct tracer *t)
{
	for (size_t i = 0; i < t->npend; i++)
		free(t->pend[i]);
	free(t->pend);
	for (int i = 0; i < t->nrings; i++)
		pcl_ring__munmap(t->rings[i]);
	free(t->rings);
	free(t->ids);
	free(t->evfds);
	for (int b = 0; b < 4096; b++) {
		for (struct thr *th = t->threads[b], *n; th; th = n) {
			n = th->next;
			free(th->entry_str);
			for (int abi = 0; abi < NR_TRACE_ABI; abi++)
				free(th->stats[abi]);
			free(th);
		}
	}
	trace_mem__free(t->mem);
	trace_abis__free(t->abis);
	pcl_evlist__free(t->el);
	for (int abi = 0; abi < NR_TRACE_ABI; abi++)
		free(t->selected[abi]);
}

static int parse_opts(struct trace_opts *o, int argc, char **argv)
{
	enum { OPT_DURATION = 256, OPT_FAILURE };
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "expr", required_argument, NULL, 'e' },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "summary", no_argument, NULL, 's' },
		{ "with-summary", no_argument, NULL, 'S' },
		{ "failure", no_argument, NULL, OPT_FAILURE },
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c, ret;
	uint64_t v;
	char *end;

	while ((c = getopt_long(argc, argv, "+:e:sSo:p:t:aC:m:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			o->events = optarg;
			break;
		case OPT_DURATION:
			errno = 0;
			o->duration_ms = strtod(optarg, &end);
			if (errno || end == optarg || *end || o->duration_ms < 0 ||
			    !isfinite(o->duration_ms)) {
				die_msg("--duration wants milliseconds, not '%s'", optarg);
				return -1;
			}
			break;
		case 's':
			o->summary = o->summary_only = true;
			break;
		case 'S':
			o->summary = true;
			break;
		case OPT_FAILURE:
			o->failure_only = true;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'm':
			if (!parse_uint(optarg, 10, 1, 1u << 20, &v) || (v & (v - 1))) {
				die_msg("-m wants a power of two of pages, not '%s'", optarg);
				return -1;
			}
			o->mmap_pages = (unsigned int)v;
			break;
		case 'h':
			print_usage("trace", stdout);
			exit(0);
		default:
			ret = parse_target_opt(&o->target, c, optarg);
			if (ret < 0)
				return -1;
			if (!ret)
				return option_error("trace", c, argv);
		}
	}
	if (optind < argc)
		o->argv = argv + optind;
	/* -a and -C may run a command: the whole system is traced while it runs */
	if (!!o->target.pid + !!o->target.tid + !!(o->target.system_wide || o->target.cpu_list) +
		    !!(o->argv && !o->target.system_wide && !o->target.cpu_list) !=
	    1) {
		die_msg("trace a command, or -p PID, -t TID, -a or -C CPUS (one of them); %s",
			trace_usage_hint);
		return -1;
	}
	return 0;
}

int cmd_trace(int argc, char **argv)
{
	struct trace_opts o = { .target = { .sz = sizeof(struct pcl_target) } };
	struct tracer t = { .o = &o };
	struct run r = { 0 };
	sigset_t waitmask;
	int ret = 1, code = 0;

	if (parse_opts(&o, argc, argv))
		return EXIT_USAGE;
	if (!o.mmap_pages) {
		o.mmap_pages = 1024;
		t.auto_pages = true;
	}
	t.out = stderr; /* as perf trace: the command keeps stdout */
	if (o.output && !(t.out = fopen(o.output, "w"))) {
		die_msg("cannot write '%s': %s", o.output, strerror(errno));
		return 1;
	}
	if (trace_sc_load_all()) {
		die_msg("cannot read the syscall formats: tracefs is not mounted, or not readable "
			"by this user");
		goto out;
	}
	if (select_syscalls(&t)) {
		ret = EXIT_USAGE;
		goto out;
	}
	if (o.argv && !(r.wl = pcl_workload__prepare(o.argv))) {
		die_msg("cannot start '%s': %s", o.argv[0], strerror(errno));
		goto out;
	}
	if (setup(&t, r.wl))
		goto out;
	run_signals_setup(&waitmask);
	if (r.wl) {
		watch_pidfd(&r.watch, pcl_workload__pid(r.wl));
		r.watch.workload = true;
	} else if (o.target.pid) {
		watch_pids(&r.watch, o.target.pid, false);
	} else if (o.target.tid) {
		watch_pids(&r.watch, o.target.tid, true);
	}
	pcl_evlist__enable(t.el);
	/*
	 * After enabling: a change of the mappings from now on comes as an
	 * MMAP2 record, applied in time order on top of what smaps said.
	 */
	read_existing(&t);
	if (r.wl && (ret = pcl_workload__start(r.wl))) {
		die_msg("cannot run '%s': %s", o.argv[0], pcl_strerror(ret));
		ret = 127;
		goto out;
	}
	trace_loop(&t, &r, &waitmask);
	if (got_signal && r.wl && !r.exited)
		kill(pcl_workload__pid(r.wl), SIGTERM);
	pcl_evlist__disable(t.el);
	if (r.wl && !r.exited)
		reap(&r, 0);
	drain(&t, UINT64_MAX);
	/* calls still in progress (-p, -a: the trace ends, they go on): their entries */
	if (printing_lines(&o))
		for (int b = 0; b < 4096; b++)
			for (struct thr *th = t.threads[b]; th; th = th->next)
				print_entry_only(&t, th);
	{
		uint64_t dropped = read_lost_samples(&t);

		if (dropped > t.lost)
			t.lost = dropped;
	}
	if (o.summary)
		print_summary(&t);
	if (t.lost)
		fprintf(stderr,
			"pcl: warning: lost %llu events: calls are missing from the output and "
			"counts; use a bigger buffer (-m) or fewer syscalls (-e)\n",
			(unsigned long long)t.lost);
	if (t.unsure)
		fprintf(stderr,
			"pcl: note: %llu call%s named by the x86-64 table without knowing the "
			"process's ABI (it had exited when its exe was read); a 32-bit program's "
			"names would be wrong\n",
			(unsigned long long)t.unsure, t.unsure == 1 ? " was" : "s were");
	ret = 0;
	if (r.exited)
		code = run_exit_code(&r, o.argv[0]);
	ret = code;
out:
	if (t.out && t.out != stderr && fclose(t.out) && !ret) {
		die_msg("cannot write '%s': %s", o.output, strerror(errno));
		ret = 1;
	}
	free_tracer(&t);
	watch_close(&r.watch);
	pcl_workload__free(r.wl);
	if (!ret || ret == code)
		run_signals_reraise();
	return ret;
}
