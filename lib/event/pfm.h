/* SPDX-License-Identifier: MIT */
/*
 * libpfm4 behind a plain interface: libpfm ships its own copy of
 * <linux/perf_event.h>, which cannot be included next to the kernel's, so
 * lib/event/pfm.c includes nothing of pcl's and speaks in plain words.
 */
#ifndef PCL_EVENT_PFM_H
#define PCL_EVENT_PFM_H
#include <stdint.h>

/*
 * Encode @spec ("RETIRED_INSTRUCTIONS", "IC_TAG_HIT_MISS:IC_MISS") for this
 * CPU's PMUs: perf_event_attr's type and config, config1, config2. 0,
 * -ENOENT when libpfm does not know the event (or this CPU), or -EINVAL
 * (with the reason recorded for pcl_last_error()).
 */
int pfm_encode(const char *spec, uint32_t *type, uint64_t config[3]);
#endif
