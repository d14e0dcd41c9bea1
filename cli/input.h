/* SPDX-License-Identifier: MIT */
/*
 * Reading a recording for report and script: the file, its events in time
 * order, the machine they rebuild and the symbolizer, wired together; a
 * progress bar on a terminal, and the one warning a cut file deserves.
 */
#ifndef PCL_CLI_INPUT_H
#define PCL_CLI_INPUT_H

#include <pcl/pcl.h>

struct input {
	const char *path;
	struct pcl_data_reader *reader;
	struct pcl_data_events *events;
	struct pcl_machine *machine;
	struct pcl_symbols *symbols;
	struct pcl_resolver *resolver;
	struct pcl_data_event ev;
	uint64_t file_size, nr_read;
	bool progress; /* stderr is a terminal and the file is large */
	bool shown;    /* the bar is on screen */
	bool failed;   /* input_next reported an error */
	bool unwind_shown; /* the caller prints the unwinding counts itself: no warning */
	/* debuginfod look-ups: the first file no server had, how many, a server failure */
	char *dfd_miss, *dfd_failure;
	int dfd_missed;
	long dfd_shown_kib; /* the progress line on screen (-1: none) */
};

/*
 * Open @path ("-": stdin, NULL: perf.data) with @so. As perf, a file that
 * neither this user (euid) nor root owns is refused unless @force, which
 * also trusts JIT maps whoever owns them. 0, or -1 with the error printed.
 */
int input_open(struct input *in, const char *path, const struct pcl_symbol_opts *so, bool force);
/* input_open's owner rule alone, for a reader of its own: 0, or -1 with the refusal printed. */
int input_check_owner(const char *path, bool force);
/*
 * The next event (in->ev), with the machine already updated by it: 1, 0 at
 * the end, -1 on an error (printed). Samples are not resolved here.
 */
int input_next(struct input *in);
/*
 * Print the truncation warning if the file was cut, the JIT maps not
 * trusted, and what debuginfod did not find ($DEBUGINFOD_URLS).
 */
void input_finish(struct input *in);
void input_close(struct input *in);

/*
 * DWARF unwinding's counts (cli/unwind.c): "#" lines for report's header,
 * a block for --stats, and the one stderr warning (with the counts, and
 * the --call-graph dwarf,SIZE hint) when any sample stopped early, which
 * input_finish prints unless in->unwind_shown.
 */
void unwind_print_header(FILE *fp, const struct input *in);
void unwind_print_stats(FILE *fp, const struct input *in);
void unwind_warn(const struct input *in);

#endif
