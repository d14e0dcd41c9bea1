/* SPDX-License-Identifier: MIT */
/*
 * A recording session: the events of an evlist sampled into a perf.data
 * file, the way perf record does it.
 *
 * open() gives every event perf's sampling attrs (frequency or period,
 * sample_type, the tracking bits on the first event), opens them per CPU
 * on the target (inherited events can only be mmap'ed per CPU), maps one
 * ring per CPU and points the other fds of that CPU at it, creates the file
 * with the attrs, ids and features, and writes the records the kernel will
 * not give (the kernel map; threads and maps of processes already running).
 * The caller then enables the evlist, polls the fds and calls drain() until
 * the target ends, and closes, which adds the build ids of the files that
 * got samples. Not thread-safe.
 */
#ifndef PCL_SESSION_H
#define PCL_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <pcl/common.h>
#include <pcl/evlist.h>

#ifdef __cplusplus
extern "C" {
#endif

enum pcl_callchain {
	PCL_CALLCHAIN_NONE = 0,
	PCL_CALLCHAIN_FP,    /* frame pointers, walked by the kernel */
	PCL_CALLCHAIN_DWARF, /* user registers and stack, for unwinding later */
};

struct pcl_session_opts {
	size_t sz;	   /* sizeof(struct pcl_session_opts) */
	unsigned int freq; /* Hz; 0: 4000 (capped at perf_event_max_sample_rate) */
	bool freq_max;	   /* the highest rate this kernel allows */
	uint64_t period;   /* a sample every N events instead of a frequency */
	enum pcl_callchain call_graph;
	uint32_t stack_size;	 /* DWARF: user stack bytes per sample (multiple of 8) */
	bool switch_events;	 /* context switch records */
	bool inherit_stat;	 /* per-thread counts */
	bool data_addr;		 /* data addresses and sources */
	bool sample_cpu;	 /* the CPU in every sample (on with CPU targets) */
	unsigned int mmap_pages; /* data pages per CPU ring, a power of two; 0: 128 */
	int clockid;		 /* sample times from this clock; -1: perf's clock */
	/*
	 * Frame pointers: also copy this many bytes of the user stack from
	 * the SP (PERF_SAMPLE_STACK_USER alone, a multiple of 8, < 65535), so
	 * that a report can put back the caller of a leaf function that had
	 * not set up its frame. 0: none. Linux perf reads such files as
	 * plain frame-pointer ones (it unwinds only with the registers too).
	 */
	uint32_t leaf_stack_size;
	/* perf record --per-thread: a counter and a ring per thread, children not followed */
	bool per_thread;
	bool no_buildid;	   /* no BUILD_ID feature (perf record -B) */
	uint64_t sample_regs_user; /* these user registers in each sample (--user-regs) */
	uint64_t sample_regs_intr; /* these registers at the interrupt (--intr-regs) */
	int compression_level;	   /* perf record -z: zstd level 1..22 (0: no compression) */
	/*
	 * perf record --overwrite, a flight recorder: the events write backward
	 * into rings the kernel overwrites, and only the newest records (a
	 * ring's worth per CPU) reach the file, when it is finished (close,
	 * switch_output). The threads' maps and names come from a "dummy:u"
	 * event added to the list, in forward rings, so that the samples of
	 * the dump resolve (perf keeps those in the overwritten rings too).
	 */
	bool overwrite;
	/* The BUILD_ID feature names every mapped file, not only those with samples. */
	bool buildid_all;
	/*
	 * perf record --off-cpu without BPF (docs/offcpu.md): sched:sched_switch
	 * is sampled on every switch with the call chain and context-switch
	 * records say when a thread comes back; each time a thread was blocked
	 * (state S or D) becomes an "offcpu-time" sample (an event added last,
	 * in perf's layout): its user call chain at the switch-out, time = the
	 * switch-in, period = the nanoseconds off CPU. The sched_switch samples
	 * themselves are not written (nor the switch records, unless
	 * switch_events). Not with overwrite. Its counts: pcl/offcpu.h.
	 */
	bool off_cpu;
};


struct pcl_session_stats {
	uint64_t samples;
	uint64_t bytes;	       /* records written */
	uint64_t wakeups;      /* drains that found records */
	uint64_t lost;	       /* samples the kernel could not write (LOST records) */
	uint64_t lost_records; /* LOST records */
	uint64_t lost_samples; /* LOST_SAMPLES counts */
};

struct pcl_session;

/*
 * Start recording @el's events (added, not opened) on @target (with @wl, a
 * prepared workload, or NULL) into @path ("-" streams to stdout); @argc and
 * @argv are the recorder's command line for the file (kept, not copied: they
 * must live as long as the session). NULL with errno and
 * pcl_last_error() on failure; every event must be countable here.
 */
PCL_API struct pcl_session *pcl_session__open(struct pcl_evlist *el,
					      const struct pcl_target *target,
					      struct pcl_workload *wl,
					      const struct pcl_session_opts *opts, const char *path,
					      int argc, char *const argv[]);
/*
 * The fds to poll for POLLIN (valid while open): every event fd that writes
 * into a forward ring, as perf polls them. One whose task ended polls
 * POLLHUP from then on: drop it from the poll set; its ring's other
 * writers still wake the poll.
 */
PCL_API int pcl_session__nr_fds(const struct pcl_session *s);
PCL_API int pcl_session__fd(const struct pcl_session *s, int i);
/* Write what every ring holds, as one round. 0 or the write error. */
PCL_API int pcl_session__drain(struct pcl_session *s);
PCL_API void pcl_session__stats(const struct pcl_session *s, struct pcl_session_stats *out);
/*
 * Drain, add the build ids and sample times, close the file and free. 0, or
 * the write error (the file is then removed). @stats, if given, is filled.
 */
PCL_API int pcl_session__close(struct pcl_session *s, struct pcl_session_stats *stats);
/*
 * perf record --switch-output: finish the file as close() does (@stats, if
 * given, says what it got), rename it to @rename_to, and go on recording
 * into a new file at the session's path, with the features and the state
 * of what runs (and the workload's process) synthesized again. Not in pipe
 * mode. 0 or -errno; after an error only abort() is left.
 */
PCL_API int pcl_session__switch_output(struct pcl_session *s, const char *rename_to,
				       struct pcl_session_stats *stats);
/*
 * With compression_level: the record bytes given to zstd so far and the
 * COMPRESSED record bytes they became (0 and 0 without). Drain first for
 * the whole of a recording.
 */
PCL_API void pcl_session__compression(const struct pcl_session *s, uint64_t *transferred,
				      uint64_t *compressed);
/* Give up: remove the file and free. NULL-safe. */
PCL_API void pcl_session__abort(struct pcl_session *s);

#ifdef __cplusplus
}
#endif
#endif
