/* SPDX-License-Identifier: MIT */
/* pcl top: options (cmd-top.c) and the live engine (top-run.c). */
#ifndef PCL_CLI_TOP_H
#define PCL_CLI_TOP_H

#include <stdbool.h>
#include <stdint.h>
#include <pcl/pcl.h>

enum top_ui {
	TOP_UI_AUTO, /* the browser on a terminal, else stdio (perf's choice) */
	TOP_UI_STDIO,
	TOP_UI_TUI,
};

struct top_opts {
	char **events; /* -e, in order */
	int nr_events;
	struct pcl_target target;
	unsigned int freq; /* -F HZ; 0: 4000 */
	bool freq_max;	   /* -F max */
	uint64_t period;   /* -c N */
	bool callchain;	   /* -g / --call-graph fp */
	int children;	   /* --children / --no-children; -1: perf's default (on with -g) */
	enum pcl_graph_mode graph;
	enum pcl_graph_value graph_value;
	double graph_min_percent;
	bool caller_order;
	bool hide_kernel, hide_user; /* -K, -U */
	int delay_secs;		     /* -d */
	bool zero;		     /* -z */
	int entries;		     /* -E; 0: the terminal's rows less the header's */
	const char *sort;	     /* -s */
	enum top_ui ui;
	bool show_nr_samples; /* -n */
	double percent_limit; /* --percent-limit */
	unsigned int mmap_pages;
	struct pcl_symbol_opts so; /* -k/--vmlinux, --kallsyms */
	int verbose;
};

/* Run pcl top as @o says until a signal or 'q'. Exit code. */
int top_run(struct top_opts *o);

#endif
