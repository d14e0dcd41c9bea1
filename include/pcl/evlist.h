/* SPDX-License-Identifier: MIT */
/*
 * The evlist layer: a set of events opened on a target.
 *
 * Life cycle:
 *   pcl_evlist__new -> pcl_evlist__add -> pcl_evlist__open(target)
 *   -> [pcl_evlist__enable] -> pcl_evlist__read ... -> pcl_evlist__free
 *
 * A target is a workload started by libpcl (counting from exec through
 * enable_on_exec), existing pids/tids, a list of CPUs, all CPUs, or a
 * cgroup (with CPUs). Children are counted by inheritance unless
 * no_inherit. Events the kernel refuses for lack of hardware are marked
 * PCL_EVSEL_NOT_SUPPORTED and the rest go on. Not thread-safe: one evlist
 * belongs to one thread at a time.
 */
#ifndef PCL_EVLIST_H
#define PCL_EVLIST_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <pcl/common.h>
#include <pcl/event.h>
#include <pcl/pmu.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pcl_evlist;
struct pcl_workload;

/* Where to count. Zero-initialise, set sz, fill what applies. */
struct pcl_target {
	size_t sz;	      /* sizeof(struct pcl_target) */
	const char *pid;      /* "PID[,PID..]": every thread of each process */
	const char *tid;      /* "TID[,TID..]" */
	const char *cpu_list; /* "0-3,6": these CPUs (implies per-CPU counting) */
	bool system_wide;     /* all online CPUs */
	const char *cgroup;   /* -G: a cgroup for every event, or a comma list applied to the
			       * events in order ("" = none); names are under the perf_event
			       * (v1) or cgroup2 mount, or absolute paths; needs CPUs */
	bool no_inherit;      /* do not count children created after open */
	bool per_cpu;	      /* a task target gets a counter on each online CPU (needed to
			       * mmap inherited events); CPU targets are per CPU anyway */
	bool ignore_missing;  /* a listed pid or tid that is gone by open is skipped, not an
			       * error (perf stat -a --per-thread: every pid on the system) */
};

enum pcl_evsel_state {
	PCL_EVSEL_OK = 0,
	PCL_EVSEL_NOT_SUPPORTED, /* this machine cannot count it (no hardware, ...) */
	PCL_EVSEL_NOT_OPENED,	 /* not opened yet, or closed */
};

/* New, empty list. NULL with errno on failure. */
PCL_API struct pcl_evlist *pcl_evlist__new(void);
/* Close everything and free. NULL-safe. */
PCL_API void pcl_evlist__free(struct pcl_evlist *el);

/*
 * Parse @spec (event.h syntax) and append its events; see
 * pcl_parse_events(). Returns the number of events appended (>= 1), or a
 * negative errno with nothing appended (-EINVAL also when @el is open).
 */
PCL_API int pcl_evlist__add(struct pcl_evlist *el, const char *spec, struct pcl_parse_error *err);

/* Events in the list; pointers live as long as @el. */
PCL_API int pcl_evlist__nr(const struct pcl_evlist *el);
PCL_API const struct pcl_event *pcl_evlist__event(const struct pcl_evlist *el, int idx);
PCL_API enum pcl_evsel_state pcl_evlist__state(const struct pcl_evlist *el, int idx);
/*
 * The attr of event @idx, to adjust sampling fields before open (changes
 * after open have no effect). NULL for a bad index.
 */
PCL_API struct perf_event_attr *pcl_evlist__attr(struct pcl_evlist *el, int idx);
/*
 * Use @read_format for every event instead of the counting default
 * (TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING | ID, plus GROUP for groups):
 * any combination of the PERF_FORMAT_* bits perf_event_open(2) defines,
 * 0 (the value alone) included. pcl_evlist__read then decodes that layout:
 * each pcl_count field the format lacks reads 0. With GROUP, an event in a
 * group is read with its leader in one read(2); an event alone is a group
 * of one. Call before open. Returns 0, or -EINVAL for an unknown bit or an
 * opened list.
 */
PCL_API int pcl_evlist__set_read_format(struct pcl_evlist *el, uint64_t read_format);
/* The perf fd of event @idx at (@cpu_idx, @thread_idx), or -1 (not open, or a user-space source).
 */
PCL_API int pcl_evlist__fd(const struct pcl_evlist *el, int idx, int cpu_idx, int thread_idx);
/*
 * Set a tracepoint filter (PERF_EVENT_IOC_SET_FILTER, the tracefs filter
 * syntax) on every counter of the open event @idx; call before enabling.
 * 0, or -errno with a message naming the filter (-EINVAL: the kernel
 * refused its syntax or fields).
 */
PCL_API int pcl_evlist__set_filter(struct pcl_evlist *el, int idx, const char *filter);
/*
 * Replaying counts read elsewhere (a perf.data stat file): add an event
 * from its attr without parsing or opening it, give the CPU and thread maps
 * the counts refer to, then set each count; the list then reads like an
 * opened one (pcl_evlist__count, pcl_stat). Returns 0 or -errno.
 */
PCL_API int pcl_evlist__add_attr(struct pcl_evlist *el, const struct perf_event_attr *attr,
				 const char *name);
PCL_API int pcl_evlist__set_maps(struct pcl_evlist *el, const int *cpus, int ncpus,
				 const pid_t *threads, int nthreads);
PCL_API int pcl_evlist__set_count(struct pcl_evlist *el, int idx, int cpu_idx, int thread_idx,
				  const struct pcl_count *count);
/* The cgroup event @idx counts in (after open with a target cgroup), or NULL. */
PCL_API const char *pcl_evlist__cgroup(const struct pcl_evlist *el, int idx);
/*
 * Why event @idx did not open: 0 (it opened, or was not tried), or the
 * negative errno that made it unsupported (-ENODEV, -EOPNOTSUPP, ...), as
 * every libpcl status is. Not a failure of this call: pcl_last_error() is
 * left alone.
 */
PCL_API int pcl_evlist__open_status(const struct pcl_evlist *el, int idx);
/*
 * Why event @idx is not supported, in one line ("power/energy-pkg/: no RAPL
 * zone in /sys/class/powercap on this machine"), or NULL.
 */
PCL_API const char *pcl_evlist__open_error(const struct pcl_evlist *el, int idx);

/*
 * When the kernel forbids counting kernel events for this user
 * (perf_event_paranoid), exclude kernel and hypervisor from every event that
 * did not choose, add ":u" to its name, and return 1; 0 when nothing was
 * changed. Call before open.
 */
PCL_API int pcl_evlist__user_only_fallback(struct pcl_evlist *el);

/*
 * Open every event on @target; @wl (may be NULL) is a prepared workload to
 * count from its exec. Events this machine cannot count are marked
 * PCL_EVSEL_NOT_SUPPORTED and do not fail the call, even when none is left;
 * threads of a multi-thread target that exit meanwhile drop out. Returns 0,
 * or a negative errno (with pcl_last_error()) when the target is bad or an
 * event failed for another reason (permissions, limits).
 */
PCL_API int pcl_evlist__open(struct pcl_evlist *el, const struct pcl_target *target,
			     struct pcl_workload *wl);
/* Start counting everything not armed to start at exec. */
PCL_API int pcl_evlist__enable(struct pcl_evlist *el);
PCL_API int pcl_evlist__disable(struct pcl_evlist *el);
/* Zero every counter (a user-space source's counters start again from zero). */
PCL_API int pcl_evlist__reset(struct pcl_evlist *el);
/* Close every counter (counts read so far stay readable). */
PCL_API void pcl_evlist__close_counters(struct pcl_evlist *el);

/* The CPUs and threads the counters were opened on (after open). */
PCL_API int pcl_evlist__nr_cpus(const struct pcl_evlist *el);
/* CPU number at @idx, or -1 when counters follow threads on any CPU. */
PCL_API int pcl_evlist__cpu(const struct pcl_evlist *el, int idx);
PCL_API int pcl_evlist__nr_threads(const struct pcl_evlist *el);
/* Thread id at @idx, or -1 when counters are per CPU only. */
PCL_API pid_t pcl_evlist__thread(const struct pcl_evlist *el, int idx);

/* Read every opened counter now. */
PCL_API int pcl_evlist__read(struct pcl_evlist *el);

/*
 * Last read count of event @idx on (@cpu_idx, @thread_idx); -1 for either
 * index sums over it. Returns 0, or -ENOENT for an event that did not open.
 */
PCL_API int pcl_evlist__count(const struct pcl_evlist *el, int idx, int cpu_idx, int thread_idx,
			      struct pcl_count *out);

/*
 * val scaled for multiplexing (val * ena / run) and by the event's scale.
 * Returns 0 when run is 0 (not counted).
 */
PCL_API double pcl_count__scaled(const struct pcl_count *c, double scale);

/*
 * Prepare a workload: fork a child that waits until pcl_workload__start()
 * and then execs @argv (PATH searched). NULL with errno on failure.
 */
PCL_API struct pcl_workload *pcl_workload__prepare(char *const argv[]);
PCL_API pid_t pcl_workload__pid(const struct pcl_workload *wl);
/*
 * Let the child exec. Returns 0 once exec succeeded, or the negative errno
 * exec failed with (the child has then exited with 127).
 */
PCL_API int pcl_workload__start(struct pcl_workload *wl);
/* waitpid() for the child; @status as waitpid's. -EINTR when interrupted. */
PCL_API int pcl_workload__wait(struct pcl_workload *wl, int *status, int options);
/* CPU times of a workload reaped by pcl_workload__wait(); -ECHILD before. */
PCL_API int pcl_workload__rusage(const struct pcl_workload *wl, struct rusage *ru);
/* Kill a child that never started, reap it, free. NULL-safe. */
PCL_API void pcl_workload__free(struct pcl_workload *wl);

/* Parse a CPU list "0-3,6" into a sorted array (caller frees). Count or -errno. */
PCL_API int pcl_parse_cpu_list(const char *list, int **cpus);

#ifdef __cplusplus
}
#endif
#endif
