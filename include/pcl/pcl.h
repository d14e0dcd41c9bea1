/* SPDX-License-Identifier: MIT */
/*
 * libpcl: the user-space half of Linux's performance-counter system.
 *
 * This umbrella header pulls in every public header. Conventions that hold
 * for the whole API:
 *   - int functions return 0 (or a count) on success and a negative errno on
 *     failure; pointer functions return NULL and set errno.
 *   - after a failure, pcl_last_error() holds a one-line message with
 *     context (thread-local, valid until the next failing call on the same
 *     thread).
 *   - the library never prints to stdout/stderr and never exits; diagnostics
 *     go through the callback set with pcl_set_print() (off by default).
 *   - constructors (__new/__open) pair with destructors (__free/__close),
 *     and every destructor accepts NULL.
 */
#ifndef PCL_PCL_H
#define PCL_PCL_H

#include <pcl/common.h>
#include <pcl/sys.h>
#include <pcl/pmu.h>
#include <pcl/event.h>
#include <pcl/evlist.h>
#include <pcl/stat.h>
#include <pcl/record.h>
#include <pcl/ring.h>
#include <pcl/data.h>
#include <pcl/session.h>
#include <pcl/machine.h>
#include <pcl/symbol.h>
#include <pcl/analysis.h>
#include <pcl/profile.h>
#include <pcl/export.h>
#include <pcl/report.h>
#include <pcl/header.h>
#include <pcl/tracepoint.h>
#include <pcl/script.h>
#include <pcl/counters.h>
#include <pcl/region.h>

#endif
