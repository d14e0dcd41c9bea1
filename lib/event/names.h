/* SPDX-License-Identifier: MIT */
#ifndef PCL_EVENT_NAMES_H
#define PCL_EVENT_NAMES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pcl/event.h>

/* A generic hardware/software event by name or perf alias; NULL if none. */
const struct pcl_event_name *generic_event_lookup(const char *name);
/* "L1-dcache-load-misses" -> config; -ENOENT not a cache name, -EOPNOTSUPP invalid combo. */
int cache_event_parse(const char *name, uint64_t *config);
bool cache_op_valid(int cache, int op);
void cache_event_name(int cache, int op, int result, char *buf, size_t size);
#endif
