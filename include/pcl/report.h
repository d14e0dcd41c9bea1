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
	size_t size; /* sizeof(struct pcl_report_opts) */
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
};

/*
 * Print the column header lines and the entries of @h (finished) to @fp.
 * Returns 0 or -errno (-EIO on a write error).
 */
PCL_API int pcl_report__print(FILE *fp, const struct pcl_hists *h,
			      const struct pcl_report_opts *opts);

/* perf's sample count as shown in "# Samples: 1K of event ...": "1K", "12M", "999 ". */
PCL_API void pcl_report__count(char *buf, size_t len, uint64_t n);

#ifdef __cplusplus
}
#endif
#endif
