/* SPDX-License-Identifier: MIT */
/*
 * The one place libpcl calls libpfm4: it knows the core PMU events of each
 * CPU model by name, with their unit masks, and gives the perf_event_attr
 * words for them (pfm_get_os_event_encoding). pcl uses it for the named
 * events of its metric table and for libpfm's own names given to -e.
 * libpfm is initialised once, on first use; after that its calls only read
 * its tables.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <perfmon/pfmlib_perf_event.h>
#include "event/pfm.h"

/* from internal.h, which cannot be included here (see pfm.h) */
int pcl_err(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int pfm_state = -ENODEV;
static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;

static void pfm_init(void)
{
	pfm_state = pfm_initialize() == PFM_SUCCESS ? 0 : -ENODEV;
}

int pfm_encode(const char *spec, uint32_t *type, uint64_t config[3])
{
	struct perf_event_attr a;
	pfm_perf_encode_arg_t arg;
	int ret;

	pthread_once(&pfm_once, pfm_init);
	if (pfm_state)
		return -ENOENT;
	memset(&a, 0, sizeof(a));
	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	arg.attr = &a;
	/* both privilege levels: the event's modifiers (:u, :k) decide, as for any event */
	ret = pfm_get_os_event_encoding(spec, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT, &arg);
	if (ret == PFM_ERR_NOTFOUND)
		return -ENOENT;
	if (ret != PFM_SUCCESS)
		return pcl_err(EINVAL, "libpfm4 cannot encode '%s': %s", spec, pfm_strerror(ret));
	*type = a.type;
	config[0] = a.config;
	config[1] = a.config1;
	config[2] = a.config2;
	return 0;
}
