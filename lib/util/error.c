/* SPDX-License-Identifier: MIT */
/*
 * Error messages and diagnostics. The library never prints: a failure leaves
 * a thread-local message for pcl_last_error(), and warnings go through the
 * caller's print callback, which is NULL (silent) by default.
 */
#include <errno.h>
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

void *pcl_err_null(int err, const char *fmt, ...)
{
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(last_error, sizeof(last_error), fmt, ap);
		va_end(ap);
	}
	errno = err < 0 ? -err : err;
	return NULL;
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

int pcl_opts_copy(void *dst, size_t dst_sz, const void *src, const char *type, const char *func)
{
	const unsigned char *p = src;
	size_t sz, i;

	memset(dst, 0, dst_sz);
	if (!src) {
		*(size_t *)dst = dst_sz;
		return 0;
	}
	sz = *(const size_t *)src;
	if (sz < sizeof(size_t))
		return pcl_err(EINVAL, "%s: struct %s has sz %zu (declare it with PCL_OPTS)", func,
			       type, sz);
	/* a newer caller's struct: what this library does not know must be unset */
	for (i = dst_sz; i < sz; i++)
		if (p[i])
			return pcl_err(
				EINVAL,
				"%s: struct %s sets byte %zu, beyond the %zu this libpcl knows",
				func, type, i, dst_sz);
	memcpy(dst, src, sz < dst_sz ? sz : dst_sz);
	*(size_t *)dst = dst_sz;
	return 0;
}
