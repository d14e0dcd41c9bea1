/* SPDX-License-Identifier: MIT */
#ifndef PCL_PMU_TOOL_H
#define PCL_PMU_TOOL_H
#include <sys/resource.h>
#include <sys/types.h>
/* Remember a reaped workload's CPU times for user_time / system_time. */
void tool_pmu_note_rusage(pid_t pid, const struct rusage *ru);
#endif
