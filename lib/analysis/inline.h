/* SPDX-License-Identifier: MIT */
/* Inline frames in resolved call chains (internal; see lib/analysis/inline.c). */
#ifndef PCL_ANALYSIS_INLINE_H
#define PCL_ANALYSIS_INLINE_H

#include <pcl/analysis.h>

/*
 * Expand the frames of @out's chain that sit in inlined code into one
 * frame per function of the inline chain, innermost first, as perf's
 * --inline does, when pcl_symbol_opts.inline_frames of @s asks for it.
 * @out->chain must be *@buf, an array of *@alloc frames (grow_array), which
 * may be grown; @out->chain and nr_chain are updated. The last step of
 * resolving a sample. 0 or -ENOMEM (the chain is then not to be used).
 */
int inline_expand(struct pcl_symbols *s, struct pcl_resolved *out, struct pcl_frame **buf,
		  int *alloc);

#endif
