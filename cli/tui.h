/* SPDX-License-Identifier: MIT */
/*
 * The interactive histogram browser (ncurses), in the spirit of perf's
 * hists browser: `pcl report` on a terminal over a file, `pcl top` over
 * a live histogram. CLI only: libpcl never links curses.
 *
 * Keys (docs/tui.md): arrows, PgUp/PgDn, Home/End move; +, Enter, e, E,
 * c, C expand and collapse call chains; t, d, s zoom into the selected
 * entry's thread, DSO or symbol (again: zoom out); / filters by symbol
 * substring; a annotates the selected symbol; h, ? help; q, ESC back or
 * quit.
 */
#ifndef PCL_CLI_TUI_H
#define PCL_CLI_TUI_H

#include <stdbool.h>
#include <stdio.h>
#include <pcl/analysis.h>
#include <pcl/report.h>

struct tui_source {
	void *ctx;
	/* the histogram to show (finished); called at start and after
	   each tick; may return a new pointer each time; NULL = error */
	const struct pcl_hists *(*get)(void *ctx);
	/* live sources (top): called about every refresh_ms to take in
	   new samples; NULL for a file (report). 0 or -errno. */
	int (*tick)(void *ctx);
	int refresh_ms;			     /* 0: static */
	const struct pcl_report_opts *ropts; /* keys, columns, graph */
	/* the header lines (event, samples, target); may change per tick */
	const char *(*title)(void *ctx);
	/* perf annotate --stdio text for entry e into fp; NULL or
	   -ENOTSUP: annotation not available; -ENODATA: no sample in the
	   symbol itself (a caller's entry in children mode) */
	int (*annotate)(void *ctx, const struct pcl_hist_entry *e, FILE *fp);
	/* a key the browser does not handle (top: 'z'); 0 or -errno */
	int (*key)(void *ctx, int key);
	/* perf's 'i': the source's header information (report: the file's
	   --header-only text) into fp; NULL: none. 0 or -errno */
	int (*info)(void *ctx, FILE *fp);
	/* lines added to the help window for the source's own keys
	   ("z             Toggle zeroing the histogram\n"); NULL: none */
	const char *help;
};

/* curses' KEY_BTAB (shift-TAB), for a key callback that does not include curses */
#define TUI_KEY_BTAB 0541

/* true when stdin and stdout are terminals and curses can start */
bool tui_usable(void);

/* browse until the user quits (q, ESC at the top level, Ctrl-C);
   0 or -errno (the terminal is restored in every case) */
int tui_browse(const struct tui_source *src);

#endif
