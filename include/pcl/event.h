/* SPDX-License-Identifier: MIT */
/*
 * The event layer: perf's event syntax parsed into perf_event_attr.
 *
 * Accepted forms (comma-separated, any mix):
 *   cycles, cpu-clock, page-faults ...   generic hardware and software names, perf's aliases
 *   L1-dcache-load-misses, LLC-loads ... HW cache events: type-op-result (manual's formula)
 *   r1a8, r0x1a8                          raw PERF_TYPE_RAW config (hex)
 *   pmu/term=val,term,alias/             PMU format fields, config*, sysfs aliases, name=...
 *   tool/duration_time/, duration_time   user-space sources by PMU or bare name
 *   sched:sched_switch, sched:*          tracepoints, with shell globs
 *   mem:ADDR[/LEN][:rwx], mem:ADDR[:rwx][/LEN]  hardware breakpoints
 *   u:BIN:FUNC[+OFF][%return]            a uprobe through the uprobe PMU (config1 is a
 *                                        pointer to the path, which lives as long as
 *                                        the process; config2 the file offset)
 *   sys:name/terms/                      a tracepoint with terms (max-stack=3 ...)
 *   {a,b,c}:mods                         groups; group modifiers apply to every member
 *   name:mods                            modifiers u k h G H p pp ppp P S D I W e
 */
#ifndef PCL_EVENT_H
#define PCL_EVENT_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include <pcl/common.h>
#include <pcl/pmu.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One parsed event. */
struct pcl_event {
	struct perf_event_attr attr;
	char name[256];	     /* as perf shows it: "cycles:u", "sched:sched_switch", "msr/tsc/" */
	struct pcl_pmu *pmu; /* borrowed from the registry */
	int leader;	     /* index (in the same list) of the group leader; own index if alone */
	int nr_members;	     /* on a leader: events in its group including itself; else 0 */
	bool weak_group;     /* W modifier: the group may be split if it cannot be scheduled */
	const char *unit;    /* from the alias, or NULL; borrowed */
	double scale;	     /* from the alias, 1.0 otherwise */
	char modifiers[16];  /* the modifier letters given, own and group's ("u", "pp") */
};

/* A growable list of parsed events, owned by libpcl. */
struct pcl_events {
	struct pcl_event *ev;
	int nr;
	int alloc;
};

/* What went wrong in a spec. */
struct pcl_parse_error {
	int pos;	/* byte offset of the bad token in the spec, or -1 */
	char token[64]; /* the bad token */
	char msg[192];	/* "event 'cyclez' not found" */
	char hint[64];	/* closest known event name, or "" */
};

/*
 * Parse @spec and append its events to @list. On failure nothing is
 * appended, @err (if non-NULL) says why, and a negative errno is returned:
 * -EINVAL for syntax, -ENOENT for an unknown name (err->hint may suggest
 * one). Thread-safe.
 */
PCL_API int pcl_parse_events(struct pcl_events *list, const char *spec,
			     struct pcl_parse_error *err);

/* Free what a list holds (not the struct itself); leaves it empty. NULL-safe. */
PCL_API void pcl_events__clear(struct pcl_events *list);

/*
 * The closest known event name to @name (edit distance), or NULL when none
 * is close enough. Static string. Thread-safe.
 */
PCL_API const char *pcl_event_suggest(const char *name);

/* Names of the generic and cache events, for listings. Iterate until NULL. */
struct pcl_event_name {
	const char *name;
	const char *alias; /* perf's other spelling, or NULL */
	uint32_t type;	   /* PERF_TYPE_HARDWARE, _SOFTWARE or _HW_CACHE */
	uint64_t config;
};
PCL_API const struct pcl_event_name *pcl_event_names(int idx);

/*
 * Whether this machine can open @attr for the calling process (a quick
 * perf_event_open on self, closed at once). Returns 0, or the negative errno.
 */
PCL_API int pcl_event_probe(const struct perf_event_attr *attr);

#ifdef __cplusplus
}
#endif
#endif
