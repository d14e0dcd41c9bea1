/* SPDX-License-Identifier: MIT */
/* What the export writers share about a profile's functions, beyond include/pcl/profile.h. */
#ifndef PCL_LIB_ANALYSIS_PROFILE_H
#define PCL_LIB_ANALYSIS_PROFILE_H

#include <stdbool.h>
#include <pcl/profile.h>

/*
 * Whether @f is kernel code: in the kernel's image or a module, or, in no
 * map, at a kernel address. Not perf's level, which an unmapped frame takes
 * from the sample's mode (a user frame of a sample taken in the kernel).
 * Kernel frames are drawn in the kernel's colour, and only they.
 */
bool profile_func_kernel(const struct pcl_profile_func *f);

#endif
