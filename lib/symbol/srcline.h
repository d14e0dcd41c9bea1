/* SPDX-License-Identifier: MIT */
/*
 * Source lines and inline chains of a DSO's addresses, read with libdw
 * (internal: not part of include/pcl). See docs/srcline.md.
 *
 * An address here is what perf hands to addr2line: the ELF virtual address
 * in the DSO (perf's map__rip_2objdump), not a file offset.
 *
 * One struct srcline_dso per DSO file: it holds the debug file's DWARF
 * open and a cache keyed by address, so that a repeated lookup is one hash
 * probe. Results are borrowed from the object and live until it is closed.
 * An object is not thread-safe; use one per thread or lock around it.
 */
#ifndef PCL_SYMBOL_SRCLINE_H
#define PCL_SYMBOL_SRCLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* perf's SRCLINE_UNKNOWN: what addr2line prints for an address it cannot place. */
#define SRCLINE_UNKNOWN "??:0"

/*
 * One level of the inline chain: the function, and where in the source it
 * is at the address. Level 0 is the innermost: its file and line are the
 * line table's row for the address. Level k > 0 is the function that the
 * level k-1 function was inlined into, at the call site of that inlining
 * (the inlined subroutine's DW_AT_call_file and DW_AT_call_line). The last
 * level is the out-of-line function (the DW_TAG_subprogram). This is the
 * order and content of `addr2line -i -f`'s records.
 */
struct srcline_frame {
	const char *func; /* DW_AT_linkage_name, else DW_AT_name; NULL: unknown */
	const char *file; /* full path as the line table has it; NULL: unknown */
	unsigned int line;
	/* The function's DW_AT_decl_line (where it is defined); 0: unknown. */
	unsigned int decl_line;
};

/*
 * Found: a line table row, or, where no row covers the address, the symbol
 * table's function (what addr2line falls back to): then @line is 0 and
 * @file the STT_FILE name before the symbol, or NULL (perf's "??").
 */
struct srcline_info {
	const char *file; /* innermost file (frames[0].file); NULL: "??" */
	unsigned int line;
	int nframes; /* 0 when no function DIE covers the address */
	const struct srcline_frame *frames;
};

struct srcline_dso;

/*
 * Open the DSO file @path for lookups. The DWARF is read from @debug_path
 * when it is given (a debug file the caller found), else from the first
 * match, in perf's order, of: the .gnu_debuglink file (beside @path, in its
 * .debug/, under /usr/lib/debug/DIR/), /usr/lib/debug/.build-id/xx/rest.debug,
 * and @path itself. A debug file must carry @path's build id, or, when
 * @path has none, the debuglink's CRC.
 *
 * A DSO without debug info opens fine: lookups then answer from its symbol
 * table only (line 0), as addr2line does, or -ENOENT.
 * NULL with errno (ENOENT, EACCES, EBADMSG: not ELF, ENOMEM) and a message
 * for pcl_last_error() when @path itself cannot be read.
 */
struct srcline_dso *srcline_dso__open(const char *path, const char *debug_path);
/* NULL-safe. Every srcline_info it returned is freed. */
void srcline_dso__close(struct srcline_dso *d);
/* The file whose DWARF is read; NULL when there is none. Borrowed. */
const char *srcline_dso__debug_file(const struct srcline_dso *d);

/*
 * The source line and inline chain at @addr into *@out (borrowed from @d).
 * 0; -ENOENT when neither a line nor a function symbol covers it (what
 * addr2line prints as "??:0", perf's unknown); -ENOMEM. Found or not, the answer is cached.
 */
int srcline_dso__find(struct srcline_dso *d, uint64_t addr, const struct srcline_info **out);
/* Cache statistics: lookups answered from the cache, and computed. */
void srcline_dso__stats(const struct srcline_dso *d, uint64_t *hits, uint64_t *misses);

/*
 * perf's strings. Each writes a NUL-terminated string into @buf (truncated
 * to @size) and returns the length it wanted, as snprintf does. @full:
 * perf's --full-source-path (srcline_full_filename), else the basename.
 * @info NULL means not found.
 */

/* "FILE:LINE" (perf's srcline_from_fileline), or "??:0" when not found. */
int srcline_fileline(char *buf, size_t size, const struct srcline_info *info, bool full);
/*
 * The `--sort srcline` key (sort.c's hist_entry__get_srcline: get_srcline
 * with show_sym and show_addr): "FILE:LINE"; when not found, "SYM+OFF"
 * (@sym_off in decimal) when the address has a symbol @sym, else
 * "DSO[ADDR]" (@dso_short: the DSO's short name; @addr in hex).
 */
int srcline_sort_key(char *buf, size_t size, const struct srcline_info *info, bool full,
		     const char *sym, uint64_t sym_off, const char *dso_short, uint64_t addr);
/*
 * `perf script -F +srcline` (map__fprintf_srcline: the symbol is not
 * passed): "FILE:LINE", else "DSO[ADDR]". Returns 0 with @buf empty when
 * perf prints nothing (a string starting with "??:0"); else perf prints
 * "\n  " and the string after the sample line.
 */
int srcline_script_field(char *buf, size_t size, const struct srcline_info *info, bool full,
			 const char *dso_short, uint64_t addr);
/* The `--sort srcfile` key: FILE (basename unless @full), or "" when not found. */
int srcline_srcfile(char *buf, size_t size, const struct srcline_info *info, bool full);

#endif
