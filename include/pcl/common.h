/* SPDX-License-Identifier: MIT */
/* Version, errors and diagnostics shared by every part of libpcl. */
#ifndef PCL_COMMON_H
#define PCL_COMMON_H

#include <stdarg.h>
#include <stddef.h>

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
