/* SPDX-License-Identifier: MIT */
/*
 * Frame-pointer leaf repair (lib/analysis/fpleaf.c, docs/fpleaf.md):
 * putting back the caller that a kernel frame-pointer chain skips when the
 * sample lands in a function that has not set up its frame (a leaf
 * compiled without one, a prologue or epilogue). Internal to libpcl: the
 * resolver calls it as the last step of resolving a sample.
 */
#ifndef PCL_LIB_ANALYSIS_FPLEAF_H
#define PCL_LIB_ANALYSIS_FPLEAF_H

#include <stdint.h>
#include <pcl/analysis.h>
#include <pcl/record.h>
#include <pcl/symbol.h>

struct fpleaf;

/*
 * The repair, on a sample resolved into @out (its chain callee first, the
 * context markers dropped). It acts only on frame-pointer samples that
 * carry PERF_SAMPLE_STACK_USER without PERF_SAMPLE_REGS_USER (pcl record
 * -g): when the CFI of the first user frame (the leaf) finds its return
 * address from the SP alone, that address is read from the copy and, if
 * the chain does not already have it right after the leaf, inserted there,
 * resolved in @r. Every other sample, and every file Linux perf wrote, is
 * left as it is. *@flp is made on first use; @s (NULL: no symbolizer) is
 * the resolver's. On a repair @out->chain points to an array of *@flp,
 * valid until the next call, and @out->chain_id is a new id for the
 * repaired chain (0 when the unrepaired one had none). Returns 0, or
 * -ENOMEM (then @out is left as it was).
 */
int fpleaf_repair(struct fpleaf **flp, struct pcl_resolver *r, struct pcl_symbols *s,
		  const struct pcl_record *rec, struct pcl_resolved *out);

/* The counters of @fl (NULL: none yet, all zero). */
const struct pcl_fpleaf_stats *fpleaf_stats(const struct fpleaf *fl);

/* Accepts NULL. */
void fpleaf_free(struct fpleaf *fl);

#endif
