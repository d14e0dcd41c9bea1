/* SPDX-License-Identifier: MIT */
/*
 * Error messages and diagnostics. The library never prints: a failure leaves
 * a thread-local message for pcl_last_error(), and warnings go through the
 * caller's print callback, which is NULL (silent) by default.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "internal.h"

static __thread char last_error[512];
static pcl_print_fn_t print_fn;

PCL_API const char *pcl_version(void)
{
	return PCL_VERSION_STRING;
}

PCL_API const char *pcl_last_error(void)
{
	return last_error;
}

PCL_API const char *pcl_strerror(int err)
{
	static __thread char buf[128];

	if (err < 0)
		err = -err;
	/* strerror_r (GNU) may return a static string instead of filling buf */
	return strerror_r(err, buf, sizeof(buf));
}

PCL_API pcl_print_fn_t pcl_set_print(pcl_print_fn_t fn)
{
	pcl_print_fn_t old = print_fn;

	print_fn = fn;
	return old;
}

int pcl_err(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	return err > 0 ? -err : err;
}

void pcl_pr(enum pcl_print_level level, const char *fmt, ...)
{
	va_list ap;

	if (!print_fn)
		return;
	va_start(ap, fmt);
	print_fn(level, fmt, ap);
	va_end(ap);
}
