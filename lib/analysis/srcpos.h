/* SPDX-License-Identifier: MIT */
/*
 * Source positions of resolved frames as perf prints them (internal: the
 * analysis and output layers share it). The strings are perf's, built by
 * lib/symbol/srcline.h from the answers of symbols_srcline().
 *
 * A srcpos_cache turns a frame into an interned string: equal strings are
 * one pointer (histogram keys compare them so), and a frame's string is
 * made once per (DSO, address, symbol, inline level, kind). Strings live
 * until the cache is freed. Not thread-safe.
 */
#ifndef PCL_ANALYSIS_SRCPOS_H
#define PCL_ANALYSIS_SRCPOS_H

#include <stdbool.h>
#include <stdint.h>
#include <pcl/analysis.h>

struct srcline_info;

enum srcpos_kind {
	/*
	 * `--sort srcline`: "FILE:LINE"; not found: "SYM+OFF" (OFF the
	 * frame's address less the symbol's start, in decimal), else
	 * "DSO[ADDR]", "??:0" without a map. A frame of an inline expansion
	 * gives its level's FILE:LINE (perf's entries keep the chain node's).
	 */
	SRCPOS_SORT_LINE,
	SRCPOS_SORT_FILE, /* `--sort srcfile`: FILE, or "" */
	/*
	 * `script -F srcline`: "FILE:LINE", else "DSO[ADDR]"; "" when perf
	 * prints nothing. An inline frame (pcl_frame.inline_level) gives its
	 * own level's position, as perf's inline frames carry it.
	 */
	SRCPOS_SCRIPT,
	SRCPOS_NR_KINDS,
};

/*
 * The srcline answer for @f (which must have a map) at its address: 0 with
 * *@out, -ENOENT when perf would print a not-found form: no file, no line
 * nor function symbol, or a DSO perf never gives addr2line.
 */
int srcpos_lookup(struct pcl_symbols *s, const struct pcl_frame *f,
		  const struct srcline_info **out);

struct srcpos_cache;
/* @s borrowed; @full: perf's --full-source-path. NULL with errno. */
struct srcpos_cache *srcpos_cache__new(struct pcl_symbols *s, bool full);
void srcpos_cache__free(struct srcpos_cache *c);
/* The interned string of @kind for @f; NULL only without memory. */
const char *srcpos_cache__get(struct srcpos_cache *c, const struct pcl_frame *f,
			      enum srcpos_kind kind);

#endif
