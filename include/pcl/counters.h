/* SPDX-License-Identifier: MIT */
/*
 * Counters a program opens on itself: the self-measurement API.
 *
 *   struct pcl_counters *c = pcl_counters__new_open("task-clock,page-faults", NULL);
 *   pcl_counters__start(c);
 *   work();
 *   pcl_counters__stop(c);
 *   struct pcl_value v[2];
 *   pcl_counters__read(c, v);          // v[i].value scaled, v[i].raw/ena/run as counted
 *   pcl_counters__free(c);
 *
 * Events are written in pcl stat's syntax (event.h): kernel events,
 * tracepoints, breakpoints and user-space sources (tool/, proc/, psi/,
 * power/) mix freely. Events this machine cannot count (no hardware PMU)
 * open as unsupported: their pcl_value has status -ENODEV and the others
 * count on. In a group (opts.group or braces) that holds for the leader too:
 * a leader that cannot be opened hands the group to its first member that
 * can, which then leads the rest as one kernel group (read at one instant);
 * the open succeeds and pcl_last_error() (and the print callback, as a
 * warning) names the event left out and the new leader ("cycles: ...; the
 * group goes on without it, led by 'task-clock'"). pcl stat, like perf,
 * refuses such a group instead.
 *
 * Reads take the cheapest path the kernel offers: a group is read in one
 * read(2); a counter whose mmap page has cap_user_rdpmc is read in user
 * space with rdpmc under the page's seqlock, with its enabled/running times
 * computed from time_shift/time_mult/time_offset, and falls back to read(2)
 * by itself when the page says the counter is not on the PMU right now.
 *
 * Overflow: a counter can call a function every N events, with the sample
 * the kernel wrote to its ring decoded, either from a signal handler
 * (fcntl F_SETOWN_EX + F_SETSIG, in the thread that overflowed) or from
 * pcl_counters__poll(). Watchpoints (pcl_watch) are breakpoint counters
 * with such a function.
 *
 * A pcl_counters belongs to one thread at a time, except that overflow
 * functions run in signal context on whatever thread the signal goes to.
 */
#ifndef PCL_COUNTERS_H
#define PCL_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/hw_breakpoint.h> /* HW_BREAKPOINT_W ... for pcl_watch_opts */
#include <linux/perf_event.h>
#include <pcl/common.h>
#include <pcl/pmu.h> /* struct pcl_count */
#include <pcl/record.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pcl_counters;

/* What the counters follow. */
enum pcl_scope {
	/* The calling thread, and the threads and children it creates after open. */
	PCL_SCOPE_SELF = 0,
	/* One thread: opts.pid is its tid (0: the calling thread, without inheritance). */
	PCL_SCOPE_THREAD,
	/* Every thread of process opts.pid (0: this process), each counted and summed. */
	PCL_SCOPE_PROCESS,
	/* Everything that runs on CPU opts.cpu (needs privilege, see perf_event_paranoid). */
	PCL_SCOPE_CPU,
};

/* Zero-initialise; NULL options mean all zero. */
struct pcl_counters_opts {
	size_t sz; /* sizeof(struct pcl_counters_opts) */
	enum pcl_scope scope;
	pid_t pid; /* PCL_SCOPE_THREAD / PCL_SCOPE_PROCESS */
	int cpu;   /* PCL_SCOPE_CPU */
	/*
	 * Put every event in one group, so they are scheduled together and read
	 * in one read(2) at one instant. Braces in the spec make groups too.
	 */
	bool group;
	bool no_inherit; /* do not follow threads and children created after open */
	bool started;	 /* count from open; otherwise from pcl_counters__start() */
	bool no_rdpmc;	 /* always read with read(2) */
};

/* One counter's reading. */
struct pcl_value {
	int status;	 /* 0; -ENODEV: this machine cannot count it; -ENOENT: not open */
	uint64_t raw;	 /* what was counted while the counter was on the PMU */
	uint64_t ena;	 /* ns the counter was enabled */
	uint64_t run;	 /* ns it was actually counting (< ena when multiplexed) */
	double value;	 /* raw * ena / run, times the event's scale (Joules, ...); 0 if never ran */
	const char *unit; /* "msec", "Joules", "bytes" ... or NULL; borrowed */
};

/*
 * Parse @events (pcl stat's syntax) for @opts without opening anything, so
 * overflow functions and attributes can be set first. NULL with errno and
 * pcl_last_error() (the parser's message, with a suggestion for a typo).
 */
PCL_API struct pcl_counters *pcl_counters__new(const char *events,
					       const struct pcl_counters_opts *opts);
/* Open what pcl_counters__new() parsed. Returns 0 or a negative errno. */
PCL_API int pcl_counters__open(struct pcl_counters *c);
/* pcl_counters__new() and pcl_counters__open() in one call. */
PCL_API struct pcl_counters *pcl_counters__new_open(const char *events,
						    const struct pcl_counters_opts *opts);
/* Stop, close every fd, unmap, free. NULL-safe. */
PCL_API void pcl_counters__free(struct pcl_counters *c);

/* The events, in the order of the spec. */
PCL_API int pcl_counters__nr(const struct pcl_counters *c);
PCL_API const char *pcl_counters__name(const struct pcl_counters *c, int idx);
PCL_API const char *pcl_counters__unit(const struct pcl_counters *c, int idx);
/* false when this machine cannot count event @idx (or it is not open). */
PCL_API bool pcl_counters__supported(const struct pcl_counters *c, int idx);
/* The perf fd of event @idx (the first, for a process or CPU scope), or -1. */
PCL_API int pcl_counters__fd(const struct pcl_counters *c, int idx);
/*
 * true when event @idx is read with rdpmc from its mmap page: a kernel
 * counter alone (not in a group), with one fd and no inheritance (the
 * kernel maps no page for an inherited per-thread counter), no overflow
 * function, and a page that says cap_user_rdpmc.
 */
PCL_API bool pcl_counters__rdpmc(const struct pcl_counters *c, int idx);

/* Start, stop (counts are kept) and zero every counter. */
PCL_API int pcl_counters__start(struct pcl_counters *c);
PCL_API int pcl_counters__stop(struct pcl_counters *c);
PCL_API int pcl_counters__reset(struct pcl_counters *c);

/*
 * Read every counter into @vals (pcl_counters__nr() entries). Returns 0, or
 * a negative errno when a counter could not be read (its status says
 * which). A group's values come from one instant.
 */
PCL_API int pcl_counters__read(struct pcl_counters *c, struct pcl_value *vals);

/*
 * The ioctls of perf_event_open(2), on every fd of event @idx. Each
 * returns 0 or a negative errno.
 *  refresh: let the counter overflow @n more times, then disable it
 *           (PERF_EVENT_IOC_REFRESH; for a counter with an overflow function);
 *  set_period: a new overflow period from the next overflow on (IOC_PERIOD);
 *  set_filter: a tracepoint filter, as in the tracepoint's "filter" file
 *           ("common_pid == 42 && count > 10") (IOC_SET_FILTER);
 *  pause_output: stop (true) or resume (false) writing samples to the ring,
 *           counting goes on (IOC_PAUSE_OUTPUT);
 *  move_breakpoint: a breakpoint counter watches another address, length
 *           and type (HW_BREAKPOINT_W ...) without being reopened
 *           (IOC_MODIFY_ATTRIBUTES).
 */
PCL_API int pcl_counters__refresh(struct pcl_counters *c, int idx, int n);
PCL_API int pcl_counters__set_period(struct pcl_counters *c, int idx, uint64_t period);
PCL_API int pcl_counters__set_filter(struct pcl_counters *c, int idx, const char *filter);
PCL_API int pcl_counters__pause_output(struct pcl_counters *c, int idx, bool pause);
PCL_API int pcl_counters__move_breakpoint(struct pcl_counters *c, int idx, uint64_t addr,
					  uint64_t len, uint32_t bp_type);

/* ---- overflow ---- */

/*
 * Called for each sample of an overflowing counter: @idx is the event, @s
 * the decoded PERF_RECORD_SAMPLE (its pointers valid during the call). In
 * PCL_NOTIFY_SIGNAL mode it runs inside a signal handler: only
 * async-signal-safe work (no malloc, no stdio); record what you need.
 */
typedef void (*pcl_overflow_fn)(struct pcl_counters *c, int idx, const struct pcl_sample *s,
				void *arg);

enum pcl_notify {
	PCL_NOTIFY_SIGNAL = 0, /* a signal to the overflowing thread (F_SETOWN_EX, F_SETSIG) */
	PCL_NOTIFY_POLL,       /* samples wait in the ring for pcl_counters__poll() */
};

struct pcl_overflow {
	size_t sz;	  /* sizeof(struct pcl_overflow) */
	uint64_t period;  /* call @fn every @period events (sample_period), > 0 */
	/*
	 * What the sample carries; 0 means PERF_SAMPLE_IP | TID | TIME | ADDR |
	 * CALLCHAIN. PERF_SAMPLE_IDENTIFIER is always added.
	 */
	uint64_t sample_type;
	enum pcl_notify notify;
	int signo;		 /* PCL_NOTIFY_SIGNAL: the signal, 0 = SIGIO */
	unsigned int ring_pages; /* data pages of the ring, a power of two; 0 = 8 */
	pcl_overflow_fn fn;
	void *arg;
};

/*
 * Call @ov->fn on every overflow of event @idx. Before open. The kernel
 * maps no ring for an inherited per-thread counter, so a set with an
 * overflow function does not follow threads and children created after
 * open (no_inherit is implied). A process can
 * have at most 256 counters with overflow functions at once. Returns 0 or
 * -EINVAL (bad period, bad index, already open, a user-space source).
 */
PCL_API int pcl_counters__set_overflow(struct pcl_counters *c, int idx,
				       const struct pcl_overflow *ov);
/*
 * Deliver the samples waiting in the rings of every overflowing counter
 * (signal mode too, for samples the handler has not taken yet), waiting up
 * to @timeout_ms for the first (-1: forever, 0: no wait). Returns the number
 * of samples delivered, or a negative errno.
 */
PCL_API int pcl_counters__poll(struct pcl_counters *c, int timeout_ms);
/* Samples the kernel lost for event @idx because its ring was full. */
PCL_API uint64_t pcl_counters__lost(const struct pcl_counters *c, int idx);

/* ---- watchpoints ---- */

/* What a watchpoint reports: who touched the memory. */
struct pcl_watch_hit {
	uint64_t addr;		/* the watched address */
	uint64_t ip;		/* the instruction after the access (x86 traps after it) */
	uint32_t pid, tid;	/* the accessing thread */
	uint64_t nr_callchain;	/* call chain, PERF_CONTEXT_* markers included */
	const uint64_t *callchain;
};

typedef void (*pcl_watch_fn)(const struct pcl_watch_hit *hit, void *arg);

struct pcl_watch_opts {
	size_t sz;		/* sizeof(struct pcl_watch_opts) */
	uint32_t type;		/* HW_BREAKPOINT_W (0 = W), _R, _RW, _X */
	uint32_t len;		/* 1, 2, 4 or 8 bytes; 0 = 8 (_X: sizeof(long)) */
	enum pcl_scope scope;	/* threads watched, as for counters; pid for THREAD/PROCESS */
	pid_t pid;
	enum pcl_notify notify; /* signal (default) or poll */
	int signo;		/* 0 = SIGIO */
	pcl_watch_fn fn;
	void *arg;
};

/*
 * A hardware breakpoint on @addr calling @o->fn on every access, started.
 * The result is a pcl_counters with one event, so read (the number of
 * hits), poll, move_breakpoint and close apply. NULL with errno.
 */
PCL_API struct pcl_counters *pcl_watch(const void *addr, const struct pcl_watch_opts *o);
/*
 * The same on a variable found by name in this process's executable or
 * its shared libraries (.symtab, else .dynsym; static variables too when
 * the file has a .symtab). NULL with errno ENOENT when no such symbol.
 */
PCL_API struct pcl_counters *pcl_watch_symbol(const char *name, const struct pcl_watch_opts *o);

/* ---- this process's symbols ---- */

/*
 * The run-time address and size of symbol @name of this process (see
 * pcl_watch_symbol). Returns 0 or -ENOENT. Not async-signal-safe.
 */
PCL_API int pcl_self_symbol(const char *name, uint64_t *addr, uint64_t *size);
/*
 * The function of this process holding @addr, written to @buf as "name"
 * (demangled), and its offset in @off (may be NULL). Returns 0, or -ENOENT
 * when no symbol covers @addr. From the .symtab (else .dynsym) of the file
 * mapped there, read once per file; a file deleted or replaced on disk is
 * read through /proc/self/map_files. Not async-signal-safe; thread-safe.
 */
PCL_API int pcl_self_symbolize(uint64_t addr, char *buf, size_t len, uint64_t *off);

/* ---- the mmap page, for those who read it themselves ---- */

/*
 * One read of a counter's perf_event_mmap_page under its seqlock, as the
 * manual describes: the count (offset, plus rdpmc(index - 1) sign-extended
 * from pmc_width when cap_user_rdpmc and index != 0) and the enabled and
 * running times brought up to now with time_offset/time_mult/time_shift
 * (and time_cycles/time_mask when cap_user_time_short). Returns 0, or
 * -EAGAIN when the page cannot give the count without a syscall (no
 * cap_user_rdpmc, or the counter is not on the PMU: read(2) instead).
 */
PCL_API int pcl_mmap_page_read(const struct perf_event_mmap_page *pg, struct pcl_count *out);
/*
 * A TSC value @cyc as a perf timestamp (the clock of sample times), with
 * time_zero/time_mult/time_shift; 0 when the page lacks cap_user_time_zero.
 */
PCL_API uint64_t pcl_mmap_page_tsc_to_time(const struct perf_event_mmap_page *pg, uint64_t cyc);

#ifdef __cplusplus
}
#endif
#endif
