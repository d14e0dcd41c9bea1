/* SPDX-License-Identifier: MIT */
/*
 * Dynamic probes (internal to libpcl; the CLI's `pcl probe` and the event
 * parser's u:BIN:FUNC use it).
 *
 *   spec.c    perf probe's point and argument syntax, parsed (untrusted input:
 *             fuzz/fuzz-probe-spec.c feeds it);
 *   find.c    a point resolved in a binary to file offsets: DWARF (libdw)
 *             first, the ELF symbol tables (libelf) when there is no DWARF
 *             or the name is only a symbol; arguments turned into uprobe
 *             fetch args; the -L line listing and the -V variables;
 *   tracefs.c the uprobe_events lines: write, list, delete.
 *
 * Nothing here prints: errors are a negative errno with pcl_err's message.
 */
#ifndef PCL_PROBE_PROBE_H
#define PCL_PROBE_PROBE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define PROBE_MAX_ARGS 128

/* One argument as written: [NAME=]VAR[->f|.f|[i]]...[:TYPE], or %REG, $retval, @SYM. */
struct probe_arg {
	char *name; /* NAME= given, else the last member's name, else NULL */
	bool name_derived; /* name is the last member's */
	char *var;  /* the variable, register, $retval ... without fields or type */
	char *type; /* after ':' or NULL */
	char *text; /* the argument as written (for messages and listings) */
	int nfields;
	struct probe_field {
		char *name; /* member name, or NULL for an index */
		bool ref;   /* reached through "->" (a pointer) */
		long index; /* for [i] */
	} *fields;
};

/*
 * A probe point as perf probe writes it:
 *   [[GROUP:]EVENT=]FUNC[@SRC][:RLN|+OFF|%return] [ARG ...]
 *   [[GROUP:]EVENT=]SRC:ALN [ARG ...]
 */
struct probe_spec {
	char *group, *event; /* NULL when not given */
	char *func;	     /* NULL for SRC:ALN */
	char *file;	     /* @SRC or SRC of SRC:ALN, else NULL */
	long line;	     /* ALN (file) or RLN (func), when has_line */
	bool has_line;
	uint64_t offset; /* +OFF */
	bool retprobe;
	char *point; /* the point as written, without the event and arguments */
	bool no_inlines; /* not the inlined copies of FUNC (--no-inlines); set by the caller */
	int nargs;
	struct probe_arg *args;
};

/* Parse @s (the words of one probe joined by spaces). 0, or -EINVAL with a message. */
int probe_spec_parse(const char *s, struct probe_spec *sp);
void probe_spec_free(struct probe_spec *sp);
/* perf's name of a group/event: characters other than [A-Za-z0-9_] become '_'. */
void probe_sanitize(char *s);

/* One place a point resolved to. */
struct probe_loc {
	uint64_t addr;	 /* the address in the binary's own layout (symbol value) */
	uint64_t offset; /* the file offset uprobes want */
	char func[256];	 /* the function holding it ("" if none known) */
	uint64_t inl;	 /* the DIE offset of the inlined copy probed, or 0 */
	char *args;	 /* the fetch args, " name=%di:s64 ...", or NULL */
	char *argnames;	 /* the names of the args, " a b", or NULL */
	bool ifunc;	 /* on a GNU indirect function's symbol (its resolver) */
};

/* Resolve @sp in @bin (a path). On success *locs has *n >= 1 entries (probe_locs_free). */
int probe_find(const char *bin, const struct probe_spec *sp, struct probe_loc **locs, int *n);
void probe_locs_free(struct probe_loc *locs, int n);

/*
 * The file offset of function @func (ELF symbol, else DWARF) in @bin, plus
 * @add bytes; an address outside the loadable segments is an error. Unless
 * @exact (an offset was written), a function with more than one copy
 * (inlined copies, several definitions) is refused with -ENOTSUP: one
 * address would miss the calls through the others. 0 or -errno.
 */
int probe_func_offset(const char *bin, const char *func, uint64_t add, bool exact,
		      uint64_t *offset);

/*
 * The path of a -x target as perf resolves it: a path as it is (made
 * absolute), else a program on $PATH, else a shared library by name
 * ("libc", "libc.so.6") in the usual library folders. 0 or -ENOENT.
 */
int probe_resolve_bin(const char *name, char *out, size_t size);

/* perf probe -L: the source of @sp's function (or file range) with probe-able lines numbered. */
int probe_show_lines(const char *bin, const char *spec, FILE *out);
/* perf probe -V: the variables available at @sp. */
int probe_show_vars(const char *bin, const struct probe_spec *sp, FILE *out);
/* perf probe -F: the function names of @bin matching the glob @filter (NULL: all but _*). */
int probe_show_funcs(const char *bin, const char *filter, FILE *out);

/* "FUNC[+0xOFF|:LINE][%return]@FILE" for the listing (-l), into @buf. */
void probe_describe(const char *bin, uint64_t offset, bool ret, char *buf, size_t size);

/*
 * A copy of @s that lives as long as the process (the uprobe PMU's config1
 * points at the path, and pcl_event is copied by value everywhere).
 * Equal strings share one copy. NULL with errno ENOMEM. Thread-safe.
 */
const char *probe_intern(const char *s);

/* ---- tracefs (tracefs.c) ---- */

/* One line of uprobe_events (or kprobe_events), split. */
struct probe_event {
	char type; /* 'p' or 'r' */
	bool kprobe;
	char group[128], event[128];
	char path[4096]; /* uprobe: the binary; kprobe: "SYMBOL[+OFF]" or "0xADDR" */
	uint64_t offset; /* uprobe: the file offset */
	char args[2048]; /* the fetch args as the kernel shows them, " a=%di:s64" */
};

/* The uprobe_events file (or kprobe_events with @kprobe); NULL with errno. */
const char *probe_events_path(bool kprobe, char *buf, size_t size);
/*
 * All the events of uprobe_events and kprobe_events (each file where it
 * exists; uprobe_events must), sorted as perf lists them; *n of them in
 * *evs (free()).
 */
int probe_events_read(struct probe_event **evs, int *n);
/*
 * Whether the kernel appends a probe to an event of the same name (its
 * README says "Create/append/"): then the points of one definition are one
 * event, as perf makes them.
 */
bool probe_multiprobe(void);
/* Whether GROUP/EVENT exists. */
bool probe_event_exists(const char *group, const char *event);
/* Append one line to uprobe_events (kprobe_events). 0 or -errno with the kernel's error_log line. */
int probe_event_write(bool kprobe, const char *line);
/* Delete GROUP/EVENT from uprobe_events (kprobe_events). */
int probe_event_delete(bool kprobe, const char *group, const char *event);

#endif
