/* SPDX-License-Identifier: MIT */
/*
 * Tracepoint formats: the layout of a tracepoint's raw sample data
 * (PERF_SAMPLE_RAW), as tracefs describes it in events/SYS/NAME/format and
 * as perf copies those files into a perf.data file's TRACING_DATA feature
 * section (perf's tools/perf/util/trace-event-read.c reads the same bytes).
 *
 * A format is a list of fields, each at a byte offset of the raw data with
 * a size, a C type, and whether it is signed. A sample's data prints as
 * perf prints it: the format's "print fmt" (C code for the kernel's
 * printk) run by libtraceevent over the fields (pcl_tracepoints__fprint).
 * Where libtraceevent cannot follow a format, the fields print one by one
 * (pcl_tp_format__fprint): name=value after the common_* header, strings
 * for char arrays and __data_loc strings, hex for pointers, decimal
 * otherwise.
 *
 * Formats are immutable once parsed, and may be shared between threads;
 * pcl_tracepoints__fprint serializes its callers on a lock of the set.
 */
#ifndef PCL_TRACEPOINT_H
#define PCL_TRACEPOINT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <pcl/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* pcl_tp_field.flags */
#define PCL_TP_SIGNED	0x01u /* signed:1 */
#define PCL_TP_POINTER	0x02u /* the type has a '*' (elements of an array too) */
#define PCL_TP_STRING	0x04u /* char array, static or dynamic: printed as a string */
#define PCL_TP_ARRAY	0x08u /* a static array: nr elements of elem_size bytes */
#define PCL_TP_DYNAMIC	0x10u /* __data_loc: a u32 (offset | length << 16) to the data */
#define PCL_TP_RELATIVE 0x20u /* __rel_loc: that offset counts from the field's end */
#define PCL_TP_COMMON	0x40u /* common_* header field, not printed */

/* One field of a format. */
struct pcl_tp_field {
	char *name;
	char *type;	    /* the declaration without the name: "char[16]", "__data_loc char[]" */
	uint32_t offset;    /* in the raw data */
	uint32_t size;	    /* bytes at offset (4 for a __data_loc) */
	uint32_t elem_size; /* bytes per element of an array (static or dynamic); size otherwise */
	uint32_t nr;	    /* elements of a static array; 0 otherwise */
	unsigned int flags; /* PCL_TP_* */
};

/* A tracepoint's format. */
struct pcl_tp_format {
	char *system; /* "sched" */
	char *name;   /* "sched_switch" */
	uint64_t id;  /* the tracepoint's id: perf_event_attr.config */
	int nr_fields;
	struct pcl_tp_field *fields;
};

/*
 * Parse a format file's text (@len bytes; "name:", "ID:", "format:" and
 * its field lines) of a tracepoint of @system. @long_size is the recording
 * machine's sizeof(long) (8 if 0), for the element size of dynamic arrays
 * of longs. NULL with errno (EBADMSG: no name, no ID or a malformed field
 * line; ENOMEM) and pcl_last_error(). Free with pcl_tp_format__free().
 */
PCL_API struct pcl_tp_format *pcl_tp_format__parse(const char *system, const char *text, size_t len,
						   int long_size);
/* NULL-safe. */
PCL_API void pcl_tp_format__free(struct pcl_tp_format *f);

/*
 * Print the fields of @raw (@size bytes of a sample's raw data, as written
 * by tracepoint @f) to @out: "name=value" for each field that is not a
 * common_* one, separated by one space, no newline. A field that does not
 * fit in @size is left out; a dynamic field whose data lies outside @raw
 * prints as "name=?". Returns 0, or -EIO when @out has an error.
 */
PCL_API int pcl_tp_format__fprint(const struct pcl_tp_format *f, const void *raw, size_t size,
				  FILE *out);

/* The formats of a TRACING_DATA section, by id. */
struct pcl_tracepoints;
/*
 * Parse a TRACING_DATA feature section (or the bytes that follow a pipe's
 * HEADER_TRACING_DATA record): perf's "\027\010\104tracing" layout, little
 * or big endian. Formats of the "ftrace" system and a malformed single
 * format are skipped; a section that is itself malformed (bad magic, sizes
 * past its end, up to the event formats) fails. libtraceevent reads the
 * same bytes (header page, formats, printk formats, saved cmdlines) for
 * pcl_tracepoints__fprint; its messages go to the print callback. NULL
 * with errno (EBADMSG, ENOMEM) and pcl_last_error().
 */
PCL_API struct pcl_tracepoints *pcl_tracepoints__parse(const void *data, size_t len);
/* NULL-safe. Frees the formats too. */
PCL_API void pcl_tracepoints__free(struct pcl_tracepoints *t);
/* Number of formats, and format @i (in id order); valid until free. */
PCL_API size_t pcl_tracepoints__count(const struct pcl_tracepoints *t);
PCL_API const struct pcl_tp_format *pcl_tracepoints__at(const struct pcl_tracepoints *t, size_t i);
/* The format of tracepoint @id, or NULL. O(log n). NULL-safe. */
PCL_API const struct pcl_tp_format *pcl_tracepoints__find(const struct pcl_tracepoints *t,
							  uint64_t id);

/*
 * Print @raw (@size bytes of a sample's raw data, recorded on @cpu) of
 * tracepoint @id to @out as perf script does: the event's print fmt, run
 * by libtraceevent with the printk formats and saved cmdlines of the
 * section, no newline. libtraceevent reads a zero-padded copy of @raw:
 * fields and __data_loc data past @size read as zeros (a length taken
 * from the record by __print_hex or __print_array may still reach past
 * the 128 KiB of padding, as in perf). Returns 0; -ENOENT when
 * libtraceevent could not parse this tracepoint's format, or pcl kept a
 * malformed one from it (print it with pcl_tp_format__fprint then); -EIO
 * when @out has an error; -ENOMEM; -EINVAL. Thread-safe (callers are
 * serialized).
 */
PCL_API int pcl_tracepoints__fprint(const struct pcl_tracepoints *t, uint64_t id, int cpu,
				    const void *raw, size_t size, FILE *out);
/* How many of the formats pcl_tracepoints__fprint cannot print (-ENOENT). NULL-safe. */
PCL_API size_t pcl_tracepoints__nr_unformatted(const struct pcl_tracepoints *t);

/*
 * The kernel function that covers *@addr, for the %pS/%ps arguments and
 * function fields of print fmts: its name, with *@addr set to its start
 * and *@mod to its module's name (NULL: vmlinux), or NULL when none does.
 * The name and module must stay valid until the set is freed.
 */
typedef const char *(*pcl_tp_func_resolver_t)(void *ctx, uint64_t *addr, const char **mod);
/*
 * Resolve kernel functions with @fn (called with @ctx, under the set's
 * lock, from pcl_tracepoints__fprint); NULL: print them as addresses.
 * perf resolves them with the kernel symbols of its session. 0, -EINVAL,
 * -ENOMEM.
 */
PCL_API int pcl_tracepoints__set_func_resolver(struct pcl_tracepoints *t, pcl_tp_func_resolver_t fn,
					       void *ctx);

#ifdef __cplusplus
}
#endif
#endif
