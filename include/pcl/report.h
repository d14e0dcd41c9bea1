/* SPDX-License-Identifier: MIT */
/*
 * The report output: histograms printed the way `perf report --stdio` lays
 * them out (columns sized to their contents, [k]/[.] markers, call graphs
 * in perf's graph, fractal, flat and folded forms), into a caller's FILE.
 */
#ifndef PCL_REPORT_H
#define PCL_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <pcl/analysis.h>
#include <pcl/common.h>

#ifdef __cplusplus
extern "C" {
#endif

enum pcl_graph_mode {
	PCL_GRAPH_NONE,
	PCL_GRAPH_ABS,	  /* perf's "graph": percentages of the total */
	PCL_GRAPH_REL,	  /* "fractal": percentages of the parent */
	PCL_GRAPH_FLAT,	  /* each chain from its root, with its share */
	PCL_GRAPH_FOLDED, /* each chain on one line, ';'-separated */
};

enum pcl_graph_value {
	PCL_GRAPH_PERCENT,
	PCL_GRAPH_PERIOD,
	PCL_GRAPH_COUNT,
};

struct pcl_report_opts {
	size_t sz; /* sizeof(struct pcl_report_opts) */
	enum pcl_sort_key keys[PCL_SORT_MAX];
	int nr_keys;	     /* 0: comm,dso,sym */
	bool children;	     /* Children and Self columns */
	bool sort_sym_first; /* --sort starts with sym: a chain's first entry is not repeated */
	enum pcl_graph_mode graph;
	enum pcl_graph_value graph_value;
	double graph_min_percent; /* branches below this share are not shown (perf: 0.5) */
	double percent_limit;	  /* entries below this share are not shown */
	uint64_t total_period;	  /* what percentages are of; 0: the histogram's total */
	bool quiet;		  /* no column header lines (perf report -q) */
	int nr_members;		  /* > 1: one Overhead column per group member (--group) */
	const uint64_t *member_totals; /* each member's total period */
	/*
	 * What graph, flat and folded call-graph percentages are of; 0: the
	 * same as the entries'. perf --percentage relative gives the entries
	 * the share of what the filters keep (total_period) and leaves the
	 * branches their share of the whole; branches are hidden by
	 * graph_min_percent of total_period all the same.
	 */
	uint64_t graph_total;
	/* The sample count pcl_report__json gives as "samples"; 0: the histogram's. */
	uint64_t nr_samples;
	/*
	 * --dso was given. Otherwise, as in perf, an entry with no symbol
	 * widens the Shared Object column to 16 (a raw address's digits).
	 */
	bool dso_filter;
	/*
	 * The columns, in order (perf's output fields, report -F): numbers
	 * (pcl_hpp) and sort keys. 0: perf's default, Overhead (or Children
	 * and Self) then @keys. A key among them is printed as its column,
	 * whatever @keys holds; @keys stays the sort keys' order.
	 */
	struct pcl_field fields[PCL_FIELDS_MAX];
	int nr_fields;
	bool self_title; /* the overhead field is titled "Self" (perf's in children mode) */
	/*
	 * Percentages in perf's colours (pcl_percent_color): the entries'
	 * and the call graphs'. For a terminal; the caller decides.
	 */
	bool color;
	/*
	 * perf report -t SEP: the columns joined by SEP, the keys unpadded
	 * and any SEP in them made '.', no dotted line under the titles.
	 * NULL: aligned columns.
	 */
	const char *field_sep;
};

/*
 * perf's colour of a percentage on a terminal: red from 5% (either sign),
 * green above 0.5%, else none: "\033[31m", "\033[32m" or "".
 */
PCL_API const char *pcl_percent_color(double percent);

/*
 * Print @fmt (one double: @percent, with its width and precision in the
 * format) to @fp, wrapped in pcl_percent_color(@percent) and perf's reset
 * "\033[m" when @color and the colour is not "". Returns what fprintf returns.
 */
PCL_API int pcl_percent_fprintf(FILE *fp, bool color, const char *fmt, double percent);

/*
 * Print the column header lines and the entries of @h (finished) to @fp.
 * Returns 0 or -errno (-EIO on a write error).
 */
PCL_API int pcl_report__print(FILE *fp, const struct pcl_hists *h,
			      const struct pcl_report_opts *opts);

/* The column title perf gives sort key @k ("Command", "Shared Object", "Symbol"...). */
PCL_API const char *pcl_report__key_title(enum pcl_sort_key k);

/* perf's sample count as shown in "# Samples: 1K of event ...": "1K", "12M", "999 ". */
PCL_API void pcl_report__count(char *buf, size_t len, uint64_t n);

/*
 * The report as JSON, for scripts: one object for event @event (its name,
 * may be NULL) whose histogram @h (finished) is laid out by @opts,
 *
 *   {"name", "samples", "event_count" (the total period percentages are
 *    of), "sort": [the keys], "entries": [...]}
 *
 * The entries are exactly those pcl_report__print shows, in its order: each
 * {"overhead" (the percentage the entry is sorted and limited by: children
 * with opts.children, else self), "self", "children" (with opts.children),
 * "members" (with opts.nr_members > 1: one percentage per member),
 * "period", "children_period", "samples", then the sort keys' fields:
 * "comm"; "pid", "tid", "thread"; "cpu"; "dso"; "symbol" and "level" ("k"
 * or "."), with "inlined": true for an inlined function's frame;
 * "srcline" and "srcfile" (perf's strings of those keys), and "callchain"
 * when the entry has a call tree and opts.graph is not PCL_GRAPH_NONE: its
 * nodes, each {"symbol", "dso", "level", "inlined" (only when true),
 * "period" (through it), "self" (ending in it), "samples", "children":
 * [nodes]}, heaviest first, without the branches -g's minimum hides}.
 * Percentages have 4 decimals; no number depends on the locale. Strings are
 * escaped (bad UTF-8 becomes U+FFFD). The caller writes the document around
 * it. Returns 0 or -errno (-EIO on a write error).
 */
PCL_API int pcl_report__json(FILE *fp, const char *event, const struct pcl_hists *h,
			     const struct pcl_report_opts *opts);

struct pcl_export_fact;
/*
 * The JSON report's "header" object: each fact (include/pcl/export.h) as a
 * string member named by the fact's name with non-alphanumerics as '_'
 * ("os release" -> "os_release"), then "total_lost_samples". 0 or -errno.
 */
PCL_API int pcl_report__json_header(FILE *fp, const struct pcl_export_fact *facts, size_t nr_facts,
				    uint64_t lost_samples);

/*
 * perf report --tasks: every thread of @m (the idle task added if absent)
 * as perf's tree by parent (pid, tid, ppid, comm); with @mmaps (perf's
 * --mmaps), each followed by its process's maps. @m is fed the COMM, FORK,
 * EXIT (and, for perf's --mmaps, MMAP and MMAP2) records only, as perf
 * feeds its own. 0, -ENOENT (a thread whose parent is not known, as perf
 * fails), -ENOMEM, or -EIO on a write error.
 */
struct pcl_machine;
PCL_API int pcl_report__tasks(FILE *fp, struct pcl_machine *m, bool mmaps);

#ifdef __cplusplus
}
#endif
#endif
