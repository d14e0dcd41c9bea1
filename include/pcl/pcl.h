/* SPDX-License-Identifier: MIT */
/*
 * libpcl: the user-space half of Linux's performance-counter system.
 *
 * This umbrella header pulls in every public header. Conventions that hold
 * for the whole API:
 *   - int functions return 0 on success, or a count where their header says
 *     so (always >= 0), and a negative errno on failure: ret < 0 is the one
 *     test for failure. Pointer functions return NULL and set errno (to a
 *     positive value, as libc does). Functions that report a status of
 *     something else (pcl_evlist__open_status, pcl_value.status) give 0 or
 *     a negative errno too. bool functions answer a question and do not fail.
 *   - every failure of a public function sets its own message for
 *     pcl_last_error(): one line naming the function or what failed, never a
 *     leftover of an earlier failure (thread-local, valid until the next
 *     failing call on the same thread).
 *   - option structs start with size_t sz and are declared with PCL_OPTS;
 *     common.h has the rules (older, smaller structs are accepted; unknown
 *     non-zero bytes are refused with -EINVAL).
 *   - the library never prints to stdout/stderr and never exits; diagnostics
 *     go through the callback set with pcl_set_print() (off by default).
 *   - an object made by X__new is freed by X__free; one made by X__open or
 *     X__create is freed by X__close (which first finishes what it writes, a
 *     perf.data header, and so may fail) or X__abort. __close always frees;
 *     every destructor accepts NULL. Methods that close an object's
 *     counters but keep the object have another name
 *     (pcl_evlist__close_counters).
 *   - no two public names differ only by underscores.
 *
 * Stable and unstable: the headers of abi/stable-headers (common, sys, pmu,
 * event, evlist, record, ring, data, session, counters, region) are the
 * stable API, exported symbol by symbol under the version node PCL_0.1 and
 * checked against abi/libpcl.abi. The others (analysis, profile, export,
 * report, script, stat, header, machine, symbol, tracepoint) are the pcl
 * command's own layers, exported under PCL_UNSTABLE_0.1: usable, but they
 * may change in any release.
 */
#ifndef PCL_PCL_H
#define PCL_PCL_H

#include <pcl/common.h>
#include <pcl/sys.h>
#include <pcl/pmu.h>
#include <pcl/event.h>
#include <pcl/evlist.h>
#include <pcl/stat.h>
#include <pcl/metric.h>
#include <pcl/record.h>
#include <pcl/ring.h>
#include <pcl/data.h>
#include <pcl/buildid.h>
#include <pcl/session.h>
#include <pcl/offcpu.h>
#include <pcl/machine.h>
#include <pcl/symbol.h>
#include <pcl/analysis.h>
#include <pcl/profile.h>
#include <pcl/export.h>
#include <pcl/report.h>
#include <pcl/annotate.h>
#include <pcl/header.h>
#include <pcl/tracepoint.h>
#include <pcl/script.h>
#include <pcl/counters.h>
#include <pcl/region.h>

#endif
