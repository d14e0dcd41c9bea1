/* SPDX-License-Identifier: MIT */
/*
 * Off-CPU time of a recording session (pcl_session_opts.off_cpu;
 * docs/offcpu.md): what the pairing of switch-outs and switch-ins made,
 * for the recorder's summary and warnings. Not part of the stable API
 * (abi/stable-headers): it may change. Not thread-safe, as the session.
 */
#ifndef PCL_OFFCPU_H
#define PCL_OFFCPU_H

#include <stdint.h>
#include <pcl/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pcl_session;

/* What off_cpu made so far. */
struct pcl_offcpu_stats {
	uint64_t samples;   /* offcpu-time samples written */
	uint64_t nsecs;	    /* the time they weigh */
	uint64_t no_user;   /* blocked intervals without a user stack (kernel threads): dropped */
	uint64_t unmatched; /* switch-outs with no switch-in (a lost record): dropped */
	uint64_t at_end;    /* threads off CPU at the end, counted up to it (at close) */
};

/*
 * With off_cpu: the offcpu-time samples made so far (all zero without, or
 * for a NULL session); the threads still off CPU are written by
 * pcl_session__close(), after this is read.
 */
PCL_API void pcl_session__offcpu_stats(const struct pcl_session *s, struct pcl_offcpu_stats *out);

#ifdef __cplusplus
}
#endif
#endif
