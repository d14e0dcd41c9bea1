/* SPDX-License-Identifier: MIT */
/*
 * The user-space event sources proc/ (procfs.c), psi/ (psi.c) and power/
 * (power.c), and the counter core they share (sources.c). Private to libpcl.
 */
#ifndef PCL_PMU_SOURCES_H
#define PCL_PMU_SOURCES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>
#include "internal.h"

/* Register proc/, psi/ and power/ (or powercap/ when the kernel has a power PMU). */
void pmu_register_sources(void);
void procfs_pmu_register(void);
void psi_pmu_register(void);
void power_pmu_register(void);

/*
 * Reap hooks of pcl_workload__wait(): @pid has exited and is not reaped yet
 * (its /proc entry still holds its final I/O counts); then it was reaped
 * with @ru. proc/ counters on @pid read these from then on.
 */
void procfs_pmu_note_exit(pid_t pid);
void procfs_pmu_note_rusage(pid_t pid, const struct rusage *ru);

/*
 * One counter of a user-space source. Every source embeds this first. The
 * core keeps all of them in one list, under one lock, so that counters of
 * the same event (same attr) can see each other: a system-wide value is
 * reported by the first counter of its event only, and a process's counter
 * can leave out what the counters of its threads report.
 *
 * Cumulative counters report the sum of (value at stop - value at start)
 * over their start/stop spans; gauges report the value now (or at the last
 * stop). Enabled and running times are the lengths of those spans.
 */
struct src_counter {
	struct src_counter *next;
	const struct perf_event_attr *key; /* the event: counters of one evsel share it */
	long ident;			   /* same key and ident: a duplicate, reports 0 */
	int cpu;			   /* the counter's cpu and pid: who reports first */
	pid_t pid;
	bool dup;
	bool gauge;
	bool running;
	uint64_t start, acc, last; /* raw values: at start, of earlier spans, last good one */
	uint64_t t_start, t_acc;   /* ns */
	/* The current raw value; called with the core lock held. 0 or -errno. */
	int (*value)(struct src_counter *sc, uint64_t *val);
	void (*free)(struct src_counter *sc);
};

/*
 * Attach @sc (allocated by the source, value/free/key/ident/gauge set) to
 * @c and to the list. Cannot fail.
 */
void src_attach(struct pcl_counter *c, struct src_counter *sc);
/* The ops every source shares; del() calls sc->free after unlinking. */
void src_del(struct pcl_counter *c);
int src_start(struct pcl_counter *c);
int src_stop(struct pcl_counter *c);
int src_read(struct pcl_counter *c, struct pcl_count *out);
/* Walk the counters of @sc's event other than @sc; core lock held (from a value()). */
struct src_counter *src_next_sibling(const struct src_counter *sc, struct src_counter *prev);

/* "pmu/alias/" of @c's event, for messages; a thread-local buffer. */
const char *src_event_name(const struct pcl_counter *c);

/*
 * Parsers, exposed for the unit tests. They take NUL-terminated file text,
 * trust nothing in it and return 0, -ENOENT (no such field) or -EINVAL.
 */
/* "key: value" / "key:\tvalue kB" lines (/proc/PID/io, /proc/PID/status). */
int procfs_parse_field(const char *text, const char *key, uint64_t *val);
/* "some|full avg10=.. avg60=.. avg300=.. total=N" (/proc/pressure/RES). */
int psi_parse_total(const char *text, bool full, uint64_t *total);
/* A decimal u64, blanks and one newline around it allowed. */
int parse_u64_text(const char *text, uint64_t *val);

/* Where power/ looks for zones; the unit tests mount a fake tree there. */
#define POWERCAP_ROOT "/sys/class/powercap"

#endif
