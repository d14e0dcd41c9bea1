/* SPDX-License-Identifier: MIT */
#ifndef PCL_EVLIST_TARGET_H
#define PCL_EVLIST_TARGET_H
#include <stdbool.h>
#include <sys/types.h>
/* Online CPUs, sorted; caller frees. Count or -errno. */
int online_cpus(int **cpus);
/* "1,2,3": every thread of each process (whole_process) or the tids themselves. */
int target_threads(const char *list, bool whole_process, bool ignore_missing, pid_t **tids);
/* fd of a cgroup directory, or -errno. */
int cgroup_open(const char *name);
#endif
