/* SPDX-License-Identifier: MIT */
/*
 * Inline frames (perf's --inline): a frame whose address is in code that
 * the compiler inlined becomes one frame per function of the address's
 * inline chain, innermost first, ending with the function it was inlined
 * into. Each keeps the frame's ip, address and map; its symbol is the
 * function's (symbols_inline_sym: the real one when the names agree, as
 * perf reuses it) and its source position is its level's (inline_level).
 *
 * Which frames: with pcl_symbol_opts.inline_frames PCL_INLINE_ALL (pcl's
 * --inline), every user-space frame that has a map and a symbol. perf 6.1
 * does it by default, but only for the frames of its DWARF unwinder
 * (machine.c's append_inlines is reached from the unwinder's callback
 * alone): on --call-graph dwarf files the two agree, and on frame-pointer
 * files pcl shows inline frames where perf shows none. Kernel frames are
 * never expanded, nor is the sample's own ip (its histogram entry): perf's
 * entry is the real symbol's too. Off by default: on the unwinding
 * benchmark's file the debug files' first read costs 15-18% of the
 * report (docs/srcline.md).
 *
 * The resolver memoizes whole resolved chains, so an expansion is done
 * once per distinct raw chain, and each address's inline chain is one
 * lookup in the DSO's srcline cache.
 */
#include <string.h>
#include "internal.h"
#include "inline.h"
#include "srcpos.h"
#include "symbol/files.h"

#define MAX_LEVELS 255 /* pcl_frame.inline_level is a byte (perf stops at 1024) */

/* The inline chain to put in place of @f, or NULL to keep it as it is. */
static const struct srcline_info *frame_info(struct pcl_symbols *s, const struct pcl_frame *f)
{
	const struct srcline_info *info;

	struct pcl_frame at = *f;

	if (f->level != '.' || !f->map || !f->sym || f->inlined)
		return NULL;
	/* a return address is after the call: the inline chain is the call's */
	at.addr -= f->return_address;
	if (srcpos_lookup(s, &at, &info) < 0)
		return NULL;
	return info;
}

static int nr_levels(const struct srcline_info *info)
{
	if (!info)
		return 1;
	/* a symbol-table answer is one record: the function itself */
	if (info->nframes <= 0)
		return 1;
	return info->nframes < MAX_LEVELS ? info->nframes : MAX_LEVELS;
}

/* Write the frames of @f's expansion at @dst (nr_levels of them). */
static int put_levels(struct pcl_symbols *s, const struct pcl_frame *f,
		      const struct srcline_info *info, struct pcl_frame *dst)
{
	int n = nr_levels(info);

	for (int k = 0; k < n; k++) {
		const struct pcl_symbol *sym = f->sym;

		if (info->nframes > 0) {
			sym = symbols_inline_sym(s, f->sym, info->frames[k].func);
			if (!sym)
				return -ENOMEM;
		}
		dst[k] = *f;
		dst[k].sym = sym;
		dst[k].inlined = sym != f->sym;
		dst[k].inline_level = (uint8_t)(k + 1);
	}
	return 0;
}

int inline_expand(struct pcl_symbols *s, struct pcl_resolved *out, struct pcl_frame **buf,
		  int *alloc)
{
	size_t n = out->nr_chain, total = 0;
	bool any = false;
	struct pcl_frame *f;

	if (!n || !s || symbols_inline_mode(s) != PCL_INLINE_ALL)
		return 0;
	for (size_t i = 0; i < n; i++) {
		const struct srcline_info *info = frame_info(s, &out->chain[i]);

		/* a one-level chain still renames the frame, or gives it its line */
		any |= info != NULL;
		total += (size_t)nr_levels(info);
	}
	if (!any)
		return 0;
	if (total > (size_t)INT32_MAX / 2 ||
	    (total > (size_t)*alloc && grow_array((void **)buf, alloc, (int)total, sizeof(**buf))))
		return pcl_err(ENOMEM, "inline frames: out of memory");
	f = *buf;
	/* in place, from the end: a frame's expansion never starts before it */
	for (size_t i = n, j = total; i-- > 0;) {
		struct pcl_frame cur = f[i];
		const struct srcline_info *info = frame_info(s, &cur);
		int k = nr_levels(info);

		j -= (size_t)k;
		if (!info) {
			f[j] = cur;
			continue;
		}
		if (put_levels(s, &cur, info, &f[j]))
			return pcl_err(ENOMEM, "inline frames: out of memory");
	}
	out->chain = f;
	out->nr_chain = total;
	return 0;
}
