/* SPDX-License-Identifier: MIT */
/*
 * perf script's text: one line per sample (with its call chain, one line
 * per frame, when the file has them), and lines for the side-band records
 * (COMM, FORK, EXIT, MMAP, MMAP2, SWITCH, LOST) when asked for, laid out
 * byte for byte as Linux perf 6.1's perf script lays them out, so that the
 * tools that parse perf script's output (FlameGraph's stackcollapse-perf,
 * speedscope, gprof2dot, ...) read pcl's.
 *
 * The fields of a line are chosen per class of event, as perf's -F does:
 * hardware, software, tracepoint, hardware cache, raw, breakpoint, synth
 * and other PMUs each have defaults, which "-F list" replaces for every
 * class, "-F class:list" for one class, and "-F +field,-field" edits.
 * Fields the file's samples do not carry are dropped from the defaults,
 * and are an error when asked for by name (pcl_script__setup).
 *
 * A tracepoint's payload is its format's print fmt run through
 * libtraceevent, as perf runs it (pcl_tracepoints__fprint); a format that
 * libtraceevent cannot parse prints field by field, "name=value ..."
 * (pcl_tp_format__fprint), where perf prints "[FAILED TO PARSE]" and its
 * own field list.
 *
 * The formatter writes to a FILE* its caller gives; it never prints on its
 * own. Not thread-safe: a formatter belongs to one thread.
 */
#ifndef PCL_SCRIPT_H
#define PCL_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <pcl/common.h>
#include <pcl/analysis.h>
#include <pcl/data.h>
#include <pcl/machine.h>
#include <pcl/record.h>
#include <pcl/tracepoint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Output fields, perf script's -F names in comments. */
#define PCL_SCRIPT_COMM		  0x0001u     /* comm */
#define PCL_SCRIPT_TID		  0x0002u     /* tid */
#define PCL_SCRIPT_PID		  0x0004u     /* pid */
#define PCL_SCRIPT_TIME		  0x0008u     /* time */
#define PCL_SCRIPT_CPU		  0x0010u     /* cpu */
#define PCL_SCRIPT_EVENT	  0x0020u     /* event */
#define PCL_SCRIPT_TRACE	  0x0040u     /* trace: a tracepoint's payload */
#define PCL_SCRIPT_IP		  0x0080u     /* ip (and the call chain) */
#define PCL_SCRIPT_SYM		  0x0100u     /* sym */
#define PCL_SCRIPT_DSO		  0x0200u     /* dso */
#define PCL_SCRIPT_ADDR		  0x0400u     /* addr */
#define PCL_SCRIPT_SYMOFF	  0x0800u     /* symoff */
#define PCL_SCRIPT_PERIOD	  0x1000u     /* period */
#define PCL_SCRIPT_MISC		  0x2000u     /* misc: the record's cpumode and flags as letters */
#define PCL_SCRIPT_SRCLINE	  0x4000u     /* srcline: FILE:LINE of the ip and of each frame */
#define PCL_SCRIPT_IREGS	  0x8000u     /* iregs: PERF_SAMPLE_REGS_INTR */
#define PCL_SCRIPT_UREGS	  0x10000u    /* uregs: PERF_SAMPLE_REGS_USER */
#define PCL_SCRIPT_BRSTACK	  0x20000u    /* brstack: FROM/TO/flags of the branch stack */
#define PCL_SCRIPT_BRSTACKSYM	  0x40000u    /* brstacksym: as symbols */
#define PCL_SCRIPT_BRSTACKOFF	  0x80000u    /* brstackoff: as offsets in their DSOs */
#define PCL_SCRIPT_WEIGHT	  0x100000u   /* weight */
#define PCL_SCRIPT_PHYS_ADDR	  0x200000u   /* phys_addr */
#define PCL_SCRIPT_DATA_PAGE_SIZE 0x400000u   /* data_page_size */
#define PCL_SCRIPT_CODE_PAGE_SIZE 0x800000u   /* code_page_size */
#define PCL_SCRIPT_INS_LAT	  0x1000000u  /* ins_lat: PERF_SAMPLE_WEIGHT_STRUCT's var2 */
#define PCL_SCRIPT_CALLINDENT	  0x2000000u  /* callindent (branch-trace events only) */
#define PCL_SCRIPT_BPF_OUTPUT	  0x4000000u  /* bpf-output: a BPF output event's raw data */
#define PCL_SCRIPT_DATA_SRC	  0x10000000u /* data_src, decoded as perf decodes it */
#define PCL_SCRIPT_TOD		  0x20000000u /* tod: wall-clock time, from CLOCK_DATA (record -k) */
#define PCL_SCRIPT_SRCCODE	  0x80000000u	 /* srccode: the source line of the ip, read */
#define PCL_SCRIPT_INSNLEN	  0x8000000u	 /* insnlen: the ip's instruction's length */
#define PCL_SCRIPT_INSN		  0x100000000ull /* insn: its bytes */
#define PCL_SCRIPT_BRSTACKINSN	  0x200000000ull /* brstackinsn: the code between the branches */
#define PCL_SCRIPT_BRSTACKINSNLEN 0x400000000ull /* brstackinsnlen: with each length */
/*
 * Fields perf 6.1 prints nothing for in the samples of a file without
 * instruction-trace decoding or guest data: ipc, machine_pid, vcpu, synth
 * (but for synthesized events, which pcl_script__setup refuses), metric
 * (but for hardware event groups, refused likewise). Accepted, shown empty.
 */
#define PCL_SCRIPT_QUIET 0x40000000u

/* perf script's classes of events, the TYPE of "-F TYPE:fields". */
enum pcl_script_class {
	PCL_SCRIPT_HW,	     /* "hw": PERF_TYPE_HARDWARE */
	PCL_SCRIPT_SW,	     /* "sw": PERF_TYPE_SOFTWARE */
	PCL_SCRIPT_TRACEPT,  /* "trace": PERF_TYPE_TRACEPOINT */
	PCL_SCRIPT_HW_CACHE, /* PERF_TYPE_HW_CACHE (no -F name, as in perf) */
	PCL_SCRIPT_RAW,	     /* "raw": PERF_TYPE_RAW */
	PCL_SCRIPT_BREAK,    /* "break": PERF_TYPE_BREAKPOINT */
	PCL_SCRIPT_SYNTH,    /* "synth": perf's synthesized events */
	PCL_SCRIPT_OTHER,    /* any other PMU type */
	PCL_SCRIPT_NR_CLASSES,
};

struct pcl_script_opts {
	size_t sz;		 /* sizeof(struct pcl_script_opts) */
	bool show_task_events;	 /* COMM, FORK and EXIT lines */
	bool show_mmap_events;	 /* MMAP and MMAP2 lines */
	bool show_switch_events; /* SWITCH and SWITCH_CPU_WIDE lines */
	bool show_lost_events;	 /* LOST lines */
	bool hide_call_graph;	 /* perf's -G: no call chains */
	bool ns;		 /* times with nanoseconds (perf's --ns) */
	bool reltime;		 /* times relative to the first line's */
	bool deltatime;		 /* times relative to the previous line's */
	int max_stack;		 /* frames printed per chain; 0: 127 (perf's default); < 0: none */
	bool full_source_path;	 /* the srcline field: whole paths (perf's --full-source-path) */
};

struct pcl_script;
/* A formatter with @opts (copied; NULL for defaults). NULL with errno. */
PCL_API struct pcl_script *pcl_script__new(const struct pcl_script_opts *opts);
/* NULL-safe. */
PCL_API void pcl_script__free(struct pcl_script *s);

/*
 * The formats of the file's tracepoints (borrowed; they must outlive @s),
 * for their names and the payload of their samples; without them a
 * tracepoint sample's line has no payload. Call before setup.
 */
PCL_API void pcl_script__set_tracepoints(struct pcl_script *s, const struct pcl_tracepoints *tp);

/*
 * The symbolizer the srcline field finds source lines with (borrowed; it
 * must outlive @s). Without one, srcline prints what perf prints for an
 * address it cannot place. Call before the first line.
 */
PCL_API void pcl_script__set_symbols(struct pcl_script *s, struct pcl_symbols *symbols);

/*
 * The resolver that finds the maps and symbols of the addresses a sample
 * carries besides its ip (brstack, brstacksym, brstackoff, and addr for
 * page faults and branch events), borrowed; without one they show as
 * unknown. Call before the first line.
 */
PCL_API void pcl_script__set_resolver(struct pcl_script *s, struct pcl_resolver *r);

/*
 * The file's CLOCK_DATA feature (@len bytes at @data; NULL when it has
 * none), which the tod field converts sample times to the time of day
 * with. Call before setup. 0, or -EBADMSG for a section perf would not read.
 */
PCL_API int pcl_script__set_clock_data(struct pcl_script *s, const void *data, size_t len);

/*
 * Whether the file was recorded on a machine like this one (its ARCH
 * feature is this machine's, or it is a stream), as perf decides before it
 * reads instruction bytes for the insn and insnlen fields; without, they
 * show none (" ilen: 0"), as perf's do.
 */
PCL_API void pcl_script__set_native_arch(struct pcl_script *s, bool native);

/*
 * Apply one -F argument, as perf does: "f1,f2" sets the fields of every
 * class (a field a class cannot show is skipped with a warning to @warn,
 * which may be NULL), "class:f1,f2" one class's, "+f" and "-f" add to and
 * remove from the current ones. Repeatable; later ones override. 0, or
 * -EINVAL with pcl_last_error() naming the bad field, class or mix; a
 * field perf has and pcl does not print would be -ENOTSUP (pcl prints
 * every field of perf 6.1's; metric and synth are refused by setup where
 * perf would print what pcl does not compute).
 */
PCL_API int pcl_script__parse_fields(struct pcl_script *s, const char *spec, FILE *warn);

/*
 * Check the fields against the events of the file (@nr attrs, borrowed
 * until free) and settle them, as perf script does before the first line:
 * a default field whose data the samples lack is dropped, a field asked
 * for by name is an error (-EINVAL, the message names the event and the
 * field); tracepoints with call chains get ip, sym, symoff and dso. @pipe:
 * the file is a pipe-mode stream (perf settles call-chain fields per event
 * there). Call once, before any line; it may be called again only with the
 * same attrs plus new ones.
 */
PCL_API int pcl_script__setup(struct pcl_script *s, const struct pcl_data_attr *const *attrs,
			      int nr, bool pipe);

/* The fields that lines of events of class @cls show, after setup. */
PCL_API uint64_t pcl_script__fields(const struct pcl_script *s, enum pcl_script_class cls);
/* The class of an event. */
PCL_API enum pcl_script_class pcl_script_class_of(const struct perf_event_attr *attr);

/*
 * The name perf shows for an event: @a->name when the file names it, else
 * one made from the attr as perf makes it ("cpu-clock:ppp", "sched:foo"
 * from @tp, "r1a8", ...). Into @buf (@size bytes); returns @buf.
 */
PCL_API const char *pcl_script_event_name(const struct pcl_data_attr *a,
					  const struct pcl_tracepoints *tp, char *buf, size_t size);

/*
 * Print the line of a sample: @rec (decoded PERF_RECORD_SAMPLE) of event
 * @attr, resolved into @res, then its call chain when the line shows ip and
 * the event has one. Nothing when the event's class shows no field.
 * Returns 0, -EIO when @out has an error (a reader gone away included:
 * errno says EPIPE), or -ENOMEM.
 */
PCL_API int pcl_script__sample(struct pcl_script *s, FILE *out, const struct pcl_data_attr *attr,
			       const struct pcl_record *rec, const struct pcl_resolved *res);

/*
 * Print the line of a side-band record @rec (decoded, of event @attr, NULL
 * when the file does not tell which: the line then has no prefix), if the
 * options ask for its kind; its thread is found (or created) in @m, which
 * should already have been updated by the record. 1 when
 * a line was printed, 0 when not, -EIO on a write error, -ENOMEM.
 */
PCL_API int pcl_script__event(struct pcl_script *s, FILE *out, const struct pcl_data_attr *attr,
			      const struct pcl_record *rec, struct pcl_machine *m);

/* ---- perf's -D (--dump-raw-trace) ---- */

/* One record to dump, in file order. */
struct pcl_dump_record {
	const char *path;		     /* the file's name, as perf shows it */
	uint64_t offset;		     /* where the record is in the file */
	const struct perf_event_header *hdr; /* its bytes (hdr->size of them) */
	const struct pcl_record *rec;	     /* decoded, or NULL when it could not be */
	const struct pcl_data_attr *attr;    /* its event; NULL for perf's own records */
	uint64_t sample_type;		     /* the OR of every attr's sample_type */
	bool sample_id_all;		     /* the file's events have the sample_id trailer */
	bool report;			     /* perf report's -D: its "unhandled!" notes */
	/*
	 * The kernel symbol at an address (its name, *@off the offset into
	 * it), for TEXT_POKE records; NULL, or returning NULL: none.
	 */
	const char *(*kernel_sym)(void *ctx, uint64_t addr, uint64_t *off);
	void *ctx;
};

/*
 * Print @d as perf 6.1's -D prints a record: its offset, size and type, a
 * hex dump, then "[CPU ]TIME OFFSET [SIZE]: PERF_RECORD_NAME" and its
 * fields (a sample's as perf's dump_sample). 0 or -EIO.
 */
PCL_API int pcl_dump__record(FILE *fp, const struct pcl_dump_record *d);

/*
 * perf report -D's closing counts: "Aggregated stats:", the records of
 * each type (@nr[type], @nr_types entries) with their share of the total,
 * then "NAME stats:" and the samples of each of @nr_events events. 0 or -EIO.
 */
PCL_API int pcl_dump__stats(FILE *fp, const uint64_t *nr, size_t nr_types, const char *const *names,
			    const uint64_t *samples, int nr_events);

#ifdef __cplusplus
}
#endif
#endif
