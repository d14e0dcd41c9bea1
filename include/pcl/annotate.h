/* SPDX-License-Identifier: MIT */
/*
 * Annotate: each instruction's share of a function's samples, with the
 * function's disassembly and source lines, as `perf annotate` shows them.
 *
 * A pcl_annotate gathers resolved sample addresses per (event, DSO,
 * symbol); pcl_annotate__lines then builds one function's listing (the
 * disassembly through capstone, source lines from the DWARF interleaved the
 * way objdump -S does, jumps and their targets marked), which
 * pcl_annotate__print writes as perf annotate --stdio does and the HTML
 * export shows as its annotated view.
 *
 * DSOs and symbols are borrowed from the machine and symbolizer the
 * samples were resolved against: keep them alive while the object is used.
 * Not thread-safe.
 */
#ifndef PCL_ANNOTATE_H
#define PCL_ANNOTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <pcl/analysis.h>
#include <pcl/common.h>
#include <pcl/symbol.h>

#ifdef __cplusplus
extern "C" {
#endif

/* perf annotate's --percent-type. */
enum pcl_percent_type {
	PCL_PERCENT_LOCAL_PERIOD,  /* of the function's period (perf's default) */
	PCL_PERCENT_GLOBAL_PERIOD, /* of the event's whole period */
	PCL_PERCENT_LOCAL_HITS,	   /* of the function's samples */
	PCL_PERCENT_GLOBAL_HITS,   /* of the event's samples */
};

/* "local-period", "global-hits"... into *@out: 0, or -EINVAL. */
PCL_API int pcl_percent_type_parse(const char *s, enum pcl_percent_type *out);
/* perf's words for it in the header line: "local period", "global hits"... */
PCL_API const char *pcl_percent_type_name(enum pcl_percent_type t);

/* A function with samples. */
struct pcl_annotate_sym {
	int event; /* the caller's event index */
	struct pcl_dso *dso;
	const struct pcl_symbol *sym;
	uint64_t period, nr_samples;
};

struct pcl_annotate;
/* NULL with errno. */
PCL_API struct pcl_annotate *pcl_annotate__new(void);
PCL_API void pcl_annotate__free(struct pcl_annotate *a);
/*
 * Add a sample of @event at @ip (pcl_resolved.ip) with @period. Samples in
 * no symbol count towards the event's totals only. 0 or -ENOMEM.
 */
PCL_API int pcl_annotate__add(struct pcl_annotate *a, int event, const struct pcl_frame *ip,
			      uint64_t period);
/* Done adding: functions sorted by event, then period (heaviest first), then samples. */
PCL_API void pcl_annotate__finish(struct pcl_annotate *a);
PCL_API size_t pcl_annotate__nr_syms(const struct pcl_annotate *a);
PCL_API const struct pcl_annotate_sym *pcl_annotate__sym(const struct pcl_annotate *a, size_t i);
/* An event's total period and samples, every sample counted. */
PCL_API void pcl_annotate__event_totals(const struct pcl_annotate *a, int event, uint64_t *period,
					uint64_t *nr_samples);

/* One line of a listing: an instruction, or a source or heading line. */
struct pcl_annotate_line {
	bool insn;		     /* an instruction; else source text or a heading */
	uint64_t addr;		     /* insn: its ELF virtual address (objdump's) */
	const char *text;	     /* the instruction ("mov    $0x0,%edx") or the source text */
	const char *file;	     /* source: its file as the line table names it; else NULL */
	unsigned int line_nr;	     /* source: its line; 0 for a heading */
	uint64_t period, nr_samples; /* insn: the samples in it */
	bool jump;		     /* insn: a jump with a target inside the function */
	uint64_t target;	     /* with jump: the target's address */
	bool is_target;		     /* insn: some jump of the function lands here */
	/* insn: the source line it belongs to (line table; 0, NULL: unknown) */
	const char *src_file;
	unsigned int src_line;
};

struct pcl_annotate_listing {
	struct pcl_annotate_line *lines;
	size_t nr_lines;
	uint64_t start; /* the function's first address (ELF virtual) */
	unsigned int nr_insn;
	const char *section; /* the ELF section of the code (".text"), "" unknown */
	/* objdump -C's name of the function: with its parameters when the DWARF has them */
	const char *name;
	void *priv;	     /* what the lines point into */
};

struct pcl_annotate_opts {
	size_t sz;	      /* sizeof(struct pcl_annotate_opts) */
	bool no_source;	      /* no source lines (perf's --no-source) */
	bool full_paths;      /* perf's -P: the DSO's full path in the header */
	bool show_nr_samples; /* perf's -n: a column of samples instead of percents */
	/*
	 * perf's -l: first a summary of the source lines holding instructions
	 * over 0.5%, hottest first, and each such instruction ends with
	 * " // FILE:LINE" where that changes
	 */
	bool print_line;
	enum pcl_percent_type percent_type;
	/*
	 * perf's colours for a terminal: each percentage (and -l's source
	 * line) by pcl_percent_color, addresses magenta, instructions blue.
	 */
	bool color;
};

/*
 * The listing of function @i of @a: 0, -ENOENT when its code cannot be
 * read (no file holds it: kallsyms, a JIT map), -EIO, -ENOMEM, with a
 * message for pcl_last_error(). Free with pcl_annotate_listing__free.
 */
PCL_API int pcl_annotate__lines(const struct pcl_annotate *a, size_t i, struct pcl_symbols *s,
				const struct pcl_annotate_opts *opts,
				struct pcl_annotate_listing *out);
PCL_API void pcl_annotate_listing__free(struct pcl_annotate_listing *l);
/*
 * Line @line (from 1) of source file @file as the listing read it (blanks
 * at its ends trimmed), for a view of the whole function's source; NULL
 * when the file cannot be read or is shorter. Borrowed from @l.
 */
PCL_API const char *pcl_annotate_listing__source_line(struct pcl_annotate_listing *l,
						      const char *file, unsigned int line);

/*
 * Function @i as `perf annotate --stdio` prints it, @event_name in its
 * header. 0, an error of pcl_annotate__lines (nothing printed), or -EIO.
 */
PCL_API int pcl_annotate__print(FILE *fp, const struct pcl_annotate *a, size_t i,
				struct pcl_symbols *s, const char *event_name,
				const struct pcl_annotate_opts *opts);

#ifdef __cplusplus
}
#endif
#endif
