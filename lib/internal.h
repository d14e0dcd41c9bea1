/* SPDX-License-Identifier: MIT */
/* What crosses files inside libpcl. Never installed. */
#ifndef PCL_INTERNAL_H
#define PCL_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pcl/pcl.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Record a failure message for pcl_last_error() and return -err (err > 0). */
int pcl_err(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * For functions that return a pointer: set errno to @err (> 0), the message
 * (a NULL @fmt keeps the one a callee set), and return NULL.
 */
void *pcl_err_null(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * The option-struct policy of common.h, in one place: copy the caller's
 * struct @src (NULL: all defaults) into @dst, which has this library's
 * size; @dst is zeroed first, so fields an older caller lacks are zero, and
 * its sz is set to its own size. -EINVAL (with a message naming @func and
 * @type) when sz is below sizeof(size_t) or a byte beyond this library's
 * struct is set.
 */
int pcl_opts_copy(void *dst, size_t dst_sz, const void *src, const char *type, const char *func);
#define opts_copy(dst, src, type) pcl_opts_copy((dst), sizeof(*(dst)), (src), (type), __func__)
/* Diagnostics through the user's print callback. */
void pcl_pr(enum pcl_print_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define pr_warn(...)  pcl_pr(PCL_WARN, __VA_ARGS__)
#define pr_debug(...) pcl_pr(PCL_DEBUG, __VA_ARGS__)

/* Small file helpers: read a whole small file (sysfs, procfs) into buf, NUL-terminated,
 * trailing newline stripped. Return length or -errno. */
int read_small_file(const char *path, char *buf, size_t size);
int read_small_fileat(int dirfd, const char *name, char *buf, size_t size);
/* Read an integer from a file; -errno on failure. */
int read_int_file(const char *path, long long *val);

/* Growable arrays: grow *arr to hold at least @need elements of @elem bytes. */
int grow_array(void **arr, int *alloc, int need, size_t elem);

/* A growable byte buffer; on allocation failure it stops growing and sets oom. */
struct bytebuf {
	uint8_t *p;
	size_t len, alloc;
	bool oom;
};
void bytebuf_put(struct bytebuf *b, const void *data, size_t n);

/* Hash one more word into @h (hash tables keyed by several words). */
static inline uint64_t hash_mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdULL;
}

/*
 * Edit distance (insertions, deletions, substitutions and swaps of two
 * adjacent letters), capped: returns a value > @cap as soon as it exceeds @cap.
 */
int edit_distance(const char *a, const char *b, int cap);
/*
 * The word of NULL-terminated @words closest to @word by the rule of
 * pcl_event_suggest() (event/suggest.c), or NULL when none is close enough.
 * The command's "did you mean" for its own names (cli/main.c) uses it too.
 */
const char *suggest_word(const char *word, const char *const *words);

/* Append modifier letters to an event's name so that it still parses. */
void event_name_add_mods(struct pcl_event *ev, const char *mods, size_t mlen);

/* pmu internals used by the parser and evlist */
struct pcl_pmu *pmu_tracepoint(void);
struct pcl_pmu *pmu_breakpoint(void);
struct pcl_pmu *pmu_software(void);
struct pcl_pmu *pmu_hardware(void); /* the core PMU behind PERF_TYPE_HARDWARE (cpu), may be NULL */
/* Search every PMU's aliases, including bare-named user-space ones; first match. */
struct pcl_pmu *pmu_find_alias_anywhere(const char *name, const struct pcl_pmu_alias **alias);
/* The ops that drive perf_event_open(2). */
extern const struct pcl_pmu_ops pmu_kernel_ops;
void pmu_register_builtin(void);
struct pcl_pmu *pmu_register_desc(const struct pcl_pmu_desc *desc);

/* tracepoint id for "sys:name" via tracefs; -errno. */
int tracepoint_id(const char *sys, const char *name, uint64_t *id);

/* evlist internals for the self-measurement API (lib/self) */
int evlist_read_one(struct pcl_evlist *el, int idx);
int evlist_restart_user(struct pcl_evlist *el, int idx, bool running);
void evlist_set_regroup(struct pcl_evlist *el, bool on);

/*
 * Versions of the machine's maps (lib/machine) for caches of what code
 * addresses resolve to: machine_code_generation moves when a map set is
 * made or an executable map is added or cut anywhere (not for data maps,
 * whose churn would empty the caches); maps_generation when that happens
 * to one process's set, and differs between sets.
 */
uint64_t machine_code_generation(const struct pcl_machine *m);
uint64_t maps_generation(const struct pcl_maps *ms);

/* Read one kernel counter opened with @read_format (any of perf_event_open(2)'s). */
int kernel_counter_read(int fd, uint64_t read_format, struct pcl_count *out);

/* output/script.c: perf_event__fprintf's "PERF_RECORD_NAME ..." line of a side-band record; false for other types. */
bool script_record_text(FILE *fp, const struct pcl_record *rec);
/* output/script.c: perf's name of a branch's type ("COND", "CALL", ...; "" for none). */
const char *script_branch_type(const struct perf_branch_entry *e);

/* data/offcpu.c: offcpu-time samples from sched_switch samples and switch records */
struct offcpu;
typedef int (*offcpu_emit_fn)(void *ctx, const struct perf_event_header *h);
/* @sw: the sched_switch attr; @out: offcpu-time's, @out_id its id; prev_state's place in raw */
struct offcpu *offcpu__new(const struct perf_event_attr *sw, const struct perf_event_attr *out,
			   uint64_t out_id, uint32_t state_off, uint32_t state_size);
void offcpu__free(struct offcpu *oc);
/* Take a record: a sched_switch sample (@switch_sample), a switch record, an EXIT. 0 or -ENOMEM */
int offcpu__add(struct offcpu *oc, const struct perf_event_header *h, const struct pcl_record *r,
		bool switch_sample);
/* Count the workload @pid's time only from its exec on (its COMM exec record). */
void offcpu__set_workload(struct offcpu *oc, uint32_t pid);
/* The time of any record read (for the cut, see offcpu.c). */
void offcpu__time(struct offcpu *oc, uint64_t time);
/* At a drain's end: pair, oldest first, what is old enough, writing samples through @fn. */
int offcpu__flush(struct offcpu *oc, offcpu_emit_fn fn, void *ctx);
/* flush, then the threads still off CPU, counted up to @end (or the newest time seen) */
int offcpu__finish(struct offcpu *oc, uint64_t end, offcpu_emit_fn fn, void *ctx);
void offcpu__stats(const struct offcpu *oc, struct pcl_offcpu_stats *st);

#endif
