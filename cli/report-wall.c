/* SPDX-License-Identifier: MIT */
/*
 * pcl report --wall: where the threads' wall-clock time went, on CPU and
 * off it together, as hotspot's off-CPU view puts them (docs/offcpu.md).
 *
 * On-CPU time is the periods of the cpu-clock or task-clock samples (ns);
 * off-CPU time the periods of the offcpu-time samples (ns blocked, from
 * pcl record --off-cpu). A thread's wall time here is the sum of the two:
 * time it waited runnable (preempted) is in neither, as perf's off-CPU
 * counts only blocked time. Two tables: per thread (wall, on, off, with
 * the shares of that thread's wall), and per function, every entry's
 * share of the whole wall time, split into on and off columns. Self by
 * default (the sample's leaf); with --children each function counts
 * every sample it is on the stack of, once.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "export.h"

struct wall_entry {
	const char *comm;
	const struct pcl_dso *dso;
	const struct pcl_symbol *sym;
	char level;
	uint64_t on, off;
};

struct wall_thread {
	int32_t pid, tid;
	const char *comm;
	uint64_t on, off;
};

struct wall {
	struct wall_entry *e;
	size_t nr, cap; /* open addressing, cap a power of two */
	struct wall_thread *t;
	size_t nt, tcap;
	uint64_t on, off, nr_on, nr_off;
};

static size_t entry_hash(const char *comm, const struct pcl_dso *dso, const struct pcl_symbol *sym)
{
	uint64_t h = (uint64_t)(uintptr_t)comm * 0x9e3779b97f4a7c15ull;

	h ^= (uint64_t)(uintptr_t)dso * 0xc2b2ae3d27d4eb4full;
	/* by name: inline frames come with symbols made for them, one per site */
	for (const char *c = sym ? sym->name : ""; *c; c++)
		h = (h ^ (uint8_t)*c) * 0x100000001b3ull;
	return (size_t)(h ^ (h >> 29));
}

static int entries_grow(struct wall *w)
{
	struct wall_entry *old = w->e;
	size_t ocap = w->cap, cap = ocap ? ocap * 2 : 1024;

	w->e = calloc(cap, sizeof(*w->e));
	if (!w->e) {
		w->e = old;
		return -1;
	}
	w->cap = cap;
	for (size_t i = 0; i < ocap; i++) {
		size_t k;

		if (!old[i].comm)
			continue;
		k = entry_hash(old[i].comm, old[i].dso, old[i].sym) & (cap - 1);
		while (w->e[k].comm)
			k = (k + 1) & (cap - 1);
		w->e[k] = old[i];
	}
	free(old);
	return 0;
}

static struct wall_entry *entry(struct wall *w, const char *comm, const struct pcl_frame *f)
{
	const struct pcl_dso *dso = f->map ? f->map->dso : NULL;
	size_t k;

	if ((w->nr + 1) * 2 > w->cap && entries_grow(w))
		return NULL;
	k = entry_hash(comm, dso, f->sym) & (w->cap - 1);
	while (w->e[k].comm) {
		if (w->e[k].comm == comm && w->e[k].dso == dso && w->e[k].level == f->level &&
		    (w->e[k].sym == f->sym ||
		     (w->e[k].sym && f->sym && !strcmp(w->e[k].sym->name, f->sym->name))))
			return &w->e[k];
		k = (k + 1) & (w->cap - 1);
	}
	w->e[k] = (struct wall_entry){ .comm = comm, .dso = dso, .sym = f->sym, .level = f->level };
	w->nr++;
	return &w->e[k];
}

static struct wall_thread *thread(struct wall *w, const struct pcl_thread *t)
{
	for (size_t i = 0; i < w->nt; i++)
		if (w->t[i].tid == t->tid && w->t[i].pid == t->pid) {
			w->t[i].comm = t->comm;
			return &w->t[i];
		}
	if (w->nt == w->tcap) {
		size_t n = w->tcap ? w->tcap * 2 : 64;
		struct wall_thread *b = realloc(w->t, n * sizeof(*b));

		if (!b)
			return NULL;
		w->t = b;
		w->tcap = n;
	}
	w->t[w->nt] = (struct wall_thread){ t->pid, t->tid, t->comm, 0, 0 };
	return &w->t[w->nt++];
}

/* One sample: @off says which side; its leaf, or every function of its stack once. */
static int add(struct wall *w, const struct pcl_resolved *rs, uint64_t period, bool off,
	       bool children)
{
	const struct pcl_frame *chain = rs->nr_chain ? rs->chain : &rs->ip;
	size_t n = children && rs->nr_chain ? rs->nr_chain : 1;
	const char *comm = rs->thread && rs->thread->comm ? rs->thread->comm : "[unknown]";
	struct wall_thread *t = rs->thread ? thread(w, rs->thread) : NULL;

	if (rs->thread && !t)
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct wall_entry *e;
		bool seen = false;

		/* recursion: a function counts once per sample */
		for (size_t j = 0; j < i && !seen; j++)
			seen = chain[j].map == chain[i].map &&
			       (chain[i].sym ? chain[j].sym && !strcmp(chain[j].sym->name,
								       chain[i].sym->name)
					     : !chain[j].sym);
		if (seen)
			continue;
		e = entry(w, comm, &chain[i]);
		if (!e)
			return -1;
		*(off ? &e->off : &e->on) += period;
	}
	if (t)
		*(off ? &t->off : &t->on) += period;
	*(off ? &w->off : &w->on) += period;
	(*(off ? &w->nr_off : &w->nr_on))++;
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct wall_entry *x = a, *y = b;
	uint64_t wx = x->on + x->off, wy = y->on + y->off;

	if (wx != wy)
		return wx > wy ? -1 : 1;
	return strcmp(x->sym ? x->sym->name : "", y->sym ? y->sym->name : "");
}

static int cmp_thread(const void *a, const void *b)
{
	const struct wall_thread *x = a, *y = b;
	uint64_t wx = x->on + x->off, wy = y->on + y->off;

	if (wx != wy)
		return wx > wy ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static double pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

static void print(struct wall *w, const char *on_name, bool children, double limit)
{
	uint64_t total = w->on + w->off;
	size_t n = 0;

	printf("# Wall-clock time: on-CPU from '%s' (%" PRIu64 " samples), off-CPU from "
	       "'offcpu-time' (%" PRIu64 " samples)\n",
	       on_name, w->nr_on, w->nr_off);
	printf("# Wall time (on + off CPU): %.3f ms: %.3f ms on CPU (%.2f%%), %.3f ms off CPU "
	       "(%.2f%%)\n#\n",
	       (double)total / 1e6, (double)w->on / 1e6, pct(w->on, total), (double)w->off / 1e6,
	       pct(w->off, total));
	qsort(w->t, w->nt, sizeof(*w->t), cmp_thread);
	printf("# Per thread (shares of the thread's wall time):\n#\n");
	printf("# %12s  %12s %7s  %12s %7s  %15s  %s\n", "Wall ms", "On-CPU ms", "", "Off-CPU ms",
	       "", "Pid/Tid", "Command");
	for (size_t i = 0; i < w->nt; i++) {
		const struct wall_thread *t = &w->t[i];
		char id[32];

		snprintf(id, sizeof(id), "%d/%d", (int)t->pid, (int)t->tid);
		printf("  %12.3f  %12.3f %6.2f%%  %12.3f %6.2f%%  %15s  %s\n",
		       (double)(t->on + t->off) / 1e6, (double)t->on / 1e6,
		       pct(t->on, t->on + t->off), (double)t->off / 1e6,
		       pct(t->off, t->on + t->off), id, t->comm ? t->comm : "[unknown]");
	}
	printf("#\n# %s (shares of the wall time):\n#\n", children ? "Children" : "Self");
	printf("# %7s  %7s  %7s  %-15s  %-20s  %s\n", "Wall", "On-CPU", "Off-CPU", "Command",
	       "Shared Object", "Symbol");
	for (size_t i = 0; i < w->cap; i++)
		if (w->e[i].comm)
			w->e[n++] = w->e[i];
	qsort(w->e, n, sizeof(*w->e), cmp_entry);
	for (size_t i = 0; i < n; i++) {
		const struct wall_entry *e = &w->e[i];

		if (pct(e->on + e->off, total) < limit)
			continue;
		printf("  %6.2f%%  %6.2f%%  %6.2f%%  %-15s  %-20s  [%c] %s\n",
		       pct(e->on + e->off, total), pct(e->on, total), pct(e->off, total), e->comm,
		       e->dso ? e->dso->short_name : "[unknown]", e->level ? e->level : '.',
		       e->sym ? e->sym->name : "[unknown]");
	}
}

int report_wall(struct input *in, bool children, double percent_limit, sample_filter pass,
		const void *pass_ctx)
{
	struct wall w = { 0 };
	int on, off, ret;

	if (pcl_data_reader__is_pipe(in->reader)) {
		die_msg("--wall needs a file, not a stream (its events are known only as they "
			"come)");
		return 1;
	}
	if (wall_events(in, &on, &off))
		return 1;
	while ((ret = input_next(in)) > 0) {
		const struct pcl_data_event *ev = &in->ev;
		const struct pcl_record *rec = &ev->rec;
		struct pcl_resolved rs;
		uint32_t cpu;

		if (!ev->decoded || ev->hdr->type != PERF_RECORD_SAMPLE ||
		    (ev->attr_idx != on && ev->attr_idx != off))
			continue;
		if (pcl_resolver__sample(in->resolver, rec, &rs))
			goto oom;
		cpu = rec->sample.sample_type & PERF_SAMPLE_CPU ? rec->sample.cpu : UINT32_MAX;
		if (pass && !pass(pass_ctx, &rs, cpu))
			continue;
		if (add(&w, &rs, rec->sample.period, ev->attr_idx == off, children))
			goto oom;
	}
	if (ret < 0)
		goto fail;
	input_finish(in);
	/* what the rings lost is missing from both sides: said once, with a count */
	if (pcl_data_events__stats(in->events)->total_lost)
		fprintf(stderr,
			"pcl: warning: %" PRIu64 " records were lost in the recording (the rings "
			"were full): on- and off-CPU time is missing from this view; record with "
			"a bigger buffer (-m)\n",
			pcl_data_events__stats(in->events)->total_lost);
	print(&w, pcl_data_reader__attr(in->reader, on)->name, children, percent_limit);
	free(w.e);
	free(w.t);
	return 0;
oom:
	die_msg("out of memory");
fail:
	free(w.e);
	free(w.t);
	return 1;
}
