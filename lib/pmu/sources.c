/* SPDX-License-Identifier: MIT */
/*
 * The counter core of the user-space sources proc/, psi/ and power/, and
 * their registration.
 *
 * A source only knows how to read one raw value now (value()); the core
 * turns that into perf's counter semantics: nothing counts until start(),
 * stop() freezes, a later start() adds a new span, read() gives the sum of
 * the spans (or, for a gauge, the value now) with the spans' length as
 * time enabled and running.
 *
 * Every counter is on one list under one lock. Counters of the same event
 * (the same attr: one evsel of one evlist) and the same ident are
 * duplicates: a system-wide source opened on every CPU by `pcl stat -a`, or
 * a process counted on every CPU. Only the first (lowest CPU, then lowest
 * pid) reports; the others read 0, so that summing the cells of an evsel,
 * as evlist does, counts once.
 * value() runs with the lock held, so a source may look at its siblings
 * (procfs.c does, to leave out threads that have counters of their own).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "internal.h"
#include "pmu/sources.h"

static pthread_mutex_t src_lock = PTHREAD_MUTEX_INITIALIZER;
static struct src_counter *src_list; /* in the order added */

static uint64_t src_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Whether @a comes before @b in its evsel's matrix: by CPU, then by thread. */
static bool ranks_before(const struct src_counter *a, const struct src_counter *b)
{
	return a->cpu < b->cpu || (a->cpu == b->cpu && a->pid < b->pid);
}

void src_attach(struct pcl_counter *c, struct src_counter *sc)
{
	struct src_counter **pp;

	sc->cpu = c->cpu;
	sc->pid = c->pid;
	pthread_mutex_lock(&src_lock);
	sc->dup = false;
	/*
	 * The reporter is the first counter by rank, not by the order of
	 * add(): evlist may re-add one counter of an evsel (a reset of a
	 * user-space source is del + add), which must not make it a duplicate
	 * of the others, nor the others duplicates of it.
	 */
	for (pp = &src_list; *pp; pp = &(*pp)->next) {
		struct src_counter *o = *pp;

		if (o->key != sc->key || o->ident != sc->ident)
			continue;
		if (ranks_before(sc, o))
			o->dup = true;
		else
			sc->dup = true;
	}
	sc->next = NULL;
	*pp = sc;
	pthread_mutex_unlock(&src_lock);
	c->priv = sc;
	c->fd = -1;
}

void src_del(struct pcl_counter *c)
{
	struct src_counter *sc = c->priv, **pp;

	if (!sc)
		return;
	pthread_mutex_lock(&src_lock);
	for (pp = &src_list; *pp; pp = &(*pp)->next) {
		if (*pp == sc) {
			*pp = sc->next;
			break;
		}
	}
	pthread_mutex_unlock(&src_lock);
	c->priv = NULL;
	sc->free(sc);
}

struct src_counter *src_next_sibling(const struct src_counter *sc, struct src_counter *prev)
{
	struct src_counter *s = prev ? prev->next : src_list;

	for (; s; s = s->next)
		if (s != sc && s->key == sc->key)
			return s;
	return NULL;
}

/* The value now into *val (the last good one when reading fails). Lock held. */
static int get_value(struct src_counter *sc, uint64_t *val)
{
	uint64_t v = 0;
	int ret;

	if (sc->dup) {
		*val = 0;
		return 0;
	}
	ret = sc->value(sc, &v);
	if (ret) {
		*val = sc->last;
		return ret;
	}
	/*
	 * Every value here only grows: totals, and the one gauge, a high-water
	 * mark. A read racing a thread's exit may dip, and so may VmHWM (the
	 * kernel folds per-CPU RSS counts in lazily): keep the highest seen.
	 */
	if (v < sc->last)
		v = sc->last;
	sc->last = v;
	*val = v;
	return 0;
}

int src_start(struct pcl_counter *c)
{
	struct src_counter *sc = c->priv;
	uint64_t v;

	pthread_mutex_lock(&src_lock);
	if (!sc->running) {
		get_value(sc, &v);
		sc->start = v;
		sc->t_start = src_now();
		sc->running = true;
	}
	pthread_mutex_unlock(&src_lock);
	return 0;
}

int src_stop(struct pcl_counter *c)
{
	struct src_counter *sc = c->priv;
	uint64_t v;

	pthread_mutex_lock(&src_lock);
	if (sc->running) {
		/* a target gone since the last read keeps what was read then */
		get_value(sc, &v);
		if (!sc->gauge && v >= sc->start)
			sc->acc += v - sc->start;
		sc->t_acc += src_now() - sc->t_start;
		sc->running = false;
	}
	pthread_mutex_unlock(&src_lock);
	return 0;
}

int src_read(struct pcl_counter *c, struct pcl_count *out)
{
	struct src_counter *sc = c->priv;
	uint64_t v, total, t;
	int ret = 0;

	pthread_mutex_lock(&src_lock);
	total = sc->acc;
	t = sc->t_acc;
	if (sc->running) {
		ret = get_value(sc, &v);
		/* a process that is gone has its final counts: not an error */
		if (ret == -ESRCH)
			ret = 0;
		if (!sc->gauge && v >= sc->start)
			total += v - sc->start;
		t += src_now() - sc->t_start;
	}
	if (sc->gauge)
		total = sc->last;
	pthread_mutex_unlock(&src_lock);
	out->val = total;
	out->ena = out->run = t;
	out->id = 0;
	return ret;
}

const char *src_event_name(const struct pcl_counter *c)
{
	static __thread char buf[128];
	struct pcl_pmu *pmu = c->pmu;
	char terms[32];
	int nr = pcl_pmu__nr_aliases(pmu);

	snprintf(terms, sizeof(terms), "config=%llu", (unsigned long long)c->attr->config);
	for (int i = 0; i < nr; i++) {
		const struct pcl_pmu_alias *a = pcl_pmu__alias(pmu, i);

		if (a && a->terms && !strcmp(a->terms, terms)) {
			snprintf(buf, sizeof(buf), "%s/%s/", pcl_pmu__name(pmu), a->name);
			return buf;
		}
	}
	snprintf(buf, sizeof(buf), "%s/%s/", pcl_pmu__name(pmu), terms);
	return buf;
}

/* Digits at *p into *val; advances *p. -EINVAL when none or on overflow. */
static int scan_u64(const char **p, uint64_t *val)
{
	const char *s = *p;
	uint64_t v = 0;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned int d = (unsigned int)(*s - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	*p = s;
	*val = v;
	return 0;
}

int parse_u64_text(const char *text, uint64_t *val)
{
	const char *p = text;
	uint64_t v;

	while (*p == ' ' || *p == '\t')
		p++;
	if (scan_u64(&p, &v))
		return -EINVAL;
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	if (*p)
		return -EINVAL;
	*val = v;
	return 0;
}

int procfs_parse_field(const char *text, const char *key, uint64_t *val)
{
	size_t klen = strlen(key);
	const char *line = text;

	while (line && *line) {
		const char *p = line;

		line = strchr(line, '\n');
		if (line)
			line++;
		if (strncmp(p, key, klen) || p[klen] != ':')
			continue;
		p += klen + 1;
		while (*p == ' ' || *p == '\t')
			p++;
		if (scan_u64(&p, val))
			return -EINVAL;
		/* "1234", "1234 kB": anything but blanks and a unit glued to the number is bad */
		if (*p && *p != '\n' && *p != ' ')
			return -EINVAL;
		return 0;
	}
	return -ENOENT;
}

int psi_parse_total(const char *text, bool full, uint64_t *total)
{
	const char *want = full ? "full" : "some", *line = text;

	while (line && *line) {
		const char *p = line, *end;

		line = strchr(line, '\n');
		end = line ? line : p + strlen(p);
		if (line)
			line++;
		if (strncmp(p, want, 4) || (p + 4 < end && p[4] != ' '))
			continue;
		for (p += 4; p < end; p++) {
			if (*p == ' ' && !strncmp(p + 1, "total=", 6)) {
				p += 7;
				if (p >= end || scan_u64(&p, total) || (p != end && *p != ' '))
					return -EINVAL;
				return 0;
			}
		}
		return -EINVAL;
	}
	return -ENOENT;
}

void pmu_register_sources(void)
{
	procfs_pmu_register();
	psi_pmu_register();
	power_pmu_register();
}
