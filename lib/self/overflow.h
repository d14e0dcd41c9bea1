/* SPDX-License-Identifier: MIT */
/* Overflow functions of a pcl_counters: rings, signals, polling. Never installed. */
#ifndef PCL_SELF_OVERFLOW_H
#define PCL_SELF_OVERFLOW_H

#include <stdbool.h>
#include <stdint.h>
#include <pcl/counters.h>
#include <pcl/evlist.h>

struct overflow_set;

struct overflow_set *overflow_new(int nr_events);
int overflow_set(struct overflow_set *s, int idx, const struct pcl_overflow *ov);
bool overflow_has(const struct overflow_set *s, int idx);
/* After the evlist opened: a ring per fd of each overflowing event, signals armed. */
int overflow_open(struct overflow_set *s, struct pcl_counters *c, struct pcl_evlist *el);
int overflow_poll(struct overflow_set *s, int timeout_ms);
uint64_t overflow_lost(const struct overflow_set *s, int idx);
/* Disarm and unmap (before the fds close); NULL-safe. */
void overflow_free(struct overflow_set *s);

/* counters.c: hand @p to @c, freed at close. */
void counters_own(struct pcl_counters *c, void *p);
/* counters.c: close @c after @ret (negative errno), keeping the message; NULL with errno. */
struct pcl_counters *counters_fail(struct pcl_counters *c, int ret);

#endif
