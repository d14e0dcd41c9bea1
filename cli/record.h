/* SPDX-License-Identifier: MIT */
/* pcl record: options (cmd-record.c) and the run over a libpcl session (record-run.c). */
#ifndef PCL_CLI_RECORD_H
#define PCL_CLI_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <pcl/pcl.h>

struct record_opts {
	char **events;
	int nr_events;
	struct pcl_target target;
	unsigned int freq;		/* -F HZ */
	bool freq_max;			/* -F max / --freq=max */
	uint64_t period;		/* -c N */
	enum pcl_callchain call_graph;
	uint32_t stack_size;		/* dwarf: user stack bytes per sample */
	uint32_t leaf_stack_size;	/* fp: stack bytes for the leaf repair (0: none) */
	bool switch_events, inherit_stat, data_addr, timestamps, sample_cpu, quiet;
	bool sample_period; /* -P: the period in every sample, also a fixed one */
	uint64_t mmap_pages;		/* data pages per CPU ring (fits: -m checks) */
	const char *mmap_rounded;	/* -m SIZE that was rounded up to mmap_pages, or NULL */
	int clockid;			/* -k: sample times from this clock; -1 = perf's clock */
	const char *output;
	char **argv;			/* the command, or NULL */
	const char *control;		/* --control fifo:CTL[,ACK] or fd:CTL[,ACK] */
	/* --switch-output: rotate the file on SIGUSR2, at a size or every so often */
	bool switch_output, switch_signal;
	uint64_t switch_size;		/* bytes; 0: not by size */
	uint64_t switch_secs;		/* seconds; 0: not by time */
	unsigned int switch_max_files;	/* keep the newest N rotated files; 0: all */
	bool timestamp_filename;	/* name the final file FILE.<timestamp> */
	bool all_user, all_kernel;	/* --all-user / --all-kernel: every event's exclude bits */
	struct record_filter {
		int nr_events;		/* given after this many -e: applies to the last one's events */
		const char *filter;
	} *filters;			/* --filter, in command-line order */
	int nr_filters;
	bool per_thread;		/* --per-thread */
	bool no_buildid;		/* -B: no BUILD_ID feature (and no build-id cache) */
	uint64_t user_regs, intr_regs;	/* --user-regs / -I masks */
	uint64_t max_size;		/* --max-size: stop when the file has this many bytes */
	int compression_level;		/* -z[N]: zstd level; 0: none */
	bool overwrite;			/* --overwrite: a flight recorder, dumped at the end/switch */
	bool buildid_all, no_buildid_cache; /* --buildid-all, -N */
	bool off_cpu;			/* --off-cpu: offcpu-time samples (docs/offcpu.md) */
};

/* Record as @o says; @argc/@argv are pcl's own (for the cmdline feature). Exit code. */
int record_run(struct record_opts *o, int argc, char **argv);

#endif
