/* SPDX-License-Identifier: MIT */
/* Version, errors and diagnostics shared by every part of libpcl. */
#ifndef PCL_COMMON_H
#define PCL_COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef PCL_API
#define PCL_API __attribute__((visibility("default")))
#endif

#define PCL_VERSION_MAJOR 0
#define PCL_VERSION_MINOR 1
#define PCL_VERSION_PATCH 0

/* The library's version as "MAJOR.MINOR.PATCH"; a static string. */
PCL_API const char *pcl_version(void);

/*
 * The message of the last failure on the calling thread, or "" when none.
 * The string is owned by libpcl and valid until the next failing call on the
 * same thread. Thread-safe.
 */
PCL_API const char *pcl_last_error(void);

/* A message for a negative errno returned by libpcl; a static or TLS string. */
PCL_API const char *pcl_strerror(int err);

/*
 * Option structs. Every struct a caller hands to libpcl to configure a call
 * (pcl_counters_opts, pcl_target, pcl_session_opts, pcl_overflow, ...) or
 * to describe something (pcl_pmu_desc, pcl_pmu_ops) or to be filled
 * (pcl_sys_caps) starts with `size_t sz`, the size of the struct as the
 * caller's program was compiled. Declare one with PCL_OPTS, which zeroes the
 * whole struct (padding included) and sets sz:
 *
 *   PCL_OPTS(pcl_counters_opts, opts, .scope = PCL_SCOPE_PROCESS, .group = true);
 *   c = pcl_counters__new_open("task-clock,page-faults", &opts);
 *
 * The rules, the same for every function that takes such a struct:
 *   - a NULL pointer means every option at its default (all zero), except
 *     where the struct is the subject of the call (pcl_pmu_register,
 *     pcl_sys_probe), which then fails with -EINVAL;
 *   - sz smaller than sizeof(size_t) (sz 0: a struct not set up with
 *     PCL_OPTS) is refused with -EINVAL;
 *   - sz smaller than this library's struct (a program built against an
 *     older libpcl) is accepted: the fields it lacks are zero;
 *   - sz larger (a program built against a newer libpcl) is accepted when
 *     every byte this library does not know is zero, and refused with
 *     -EINVAL otherwise: an option the caller set is never ignored silently;
 *   - a struct the library fills (pcl_sys_caps) is filled up to sz bytes.
 */
#define PCL_OPTS(TYPE, NAME, ...)                                                                  \
	struct TYPE NAME = ({                                                                      \
		memset(&NAME, 0, sizeof(struct TYPE));                                             \
		(struct TYPE){ .sz = sizeof(struct TYPE), __VA_ARGS__ };                           \
	})

enum pcl_print_level {
	PCL_WARN,
	PCL_INFO,
	PCL_DEBUG,
};

typedef int (*pcl_print_fn_t)(enum pcl_print_level level, const char *fmt, va_list ap);

/*
 * Set the diagnostics callback; NULL (the default) silences the library.
 * Returns the previous callback. Not thread-safe against concurrent calls.
 */
PCL_API pcl_print_fn_t pcl_set_print(pcl_print_fn_t fn);

#ifdef __cplusplus
}
#endif
#endif
