/* SPDX-License-Identifier: MIT */
/*
 * Resolving samples (contract in include/pcl/analysis.h), the way perf's
 * thread__resolve_callchain and thread__find_symbol do it: a sample's
 * cpumode says which address space its ip is in; in a call chain the
 * PERF_CONTEXT_* markers switch the space for the entries after them.
 * An entry in no map keeps the level of the sample, as perf shows it.
 */
#include <stdlib.h>
#include "internal.h"

/*
 * A sample's frames repeat (a hot loop, the same callers): resolved frames
 * are cached by (address space, cpumode, ip), direct-mapped, and forgotten
 * when the machine's generation moves (a map changed somewhere).
 */
#define CACHE_BITS 16

struct cache_ent {
	const void *space; /* the thread's map set; NULL for the kernel */
	uint64_t ip, gen;
	unsigned int cpumode;
	struct pcl_frame f;
};

struct pcl_resolver {
	struct pcl_machine *m;
	struct pcl_symbols *s;
	struct pcl_frame *chain;
	int alloc;
	struct cache_ent *cache;
};

PCL_API struct pcl_resolver *pcl_resolver__new(struct pcl_machine *m, struct pcl_symbols *s)
{
	struct pcl_resolver *r;

	if (!m) {
		errno = EINVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->m = m;
	r->s = s;
	r->cache = calloc(1u << CACHE_BITS, sizeof(*r->cache)); /* NULL: no cache */
	return r;
}

PCL_API void pcl_resolver__free(struct pcl_resolver *r)
{
	if (!r)
		return;
	free(r->chain);
	free(r->cache);
	free(r);
}

static char cpumode_level(unsigned int cpumode)
{
	switch (cpumode) {
	case PERF_RECORD_MISC_KERNEL:
		return 'k';
	case PERF_RECORD_MISC_USER:
		return '.';
	default:
		return 'H';
	}
}

static void frame_lookup(struct pcl_resolver *r, struct pcl_thread *t, unsigned int cpumode,
			 uint64_t ip, struct pcl_frame *f)
{
	bool kernel = cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL;

	f->ip = ip;
	f->addr = ip;
	f->sym = NULL;
	f->level = cpumode_level(cpumode);
	f->map = cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_USER
			 ? pcl_machine__find_map(r->m, t, kernel, ip)
			 : NULL;
	if (!f->map)
		return;
	f->addr = pcl_map__map_ip(f->map, ip);
	if (r->s)
		f->sym = pcl_symbols__find(r->s, f->map->dso, f->addr);
}

static void frame(struct pcl_resolver *r, struct pcl_thread *t, unsigned int cpumode, uint64_t ip,
		  struct pcl_frame *f)
{
	bool kernel = cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL;
	const void *space = kernel ? NULL : (const void *)t->maps;
	uint64_t gen = pcl_machine__generation(r->m), h;
	struct cache_ent *c;

	if (!r->cache) {
		frame_lookup(r, t, cpumode, ip, f);
		return;
	}
	h = (ip ^ (ip >> 17) ^ ((uintptr_t)space >> 4) ^ cpumode) * 0x9e3779b97f4a7c15ULL;
	c = &r->cache[h >> (64 - CACHE_BITS)];
	if (c->ip == ip && c->space == space && c->gen == gen && c->cpumode == cpumode &&
	    c->f.ip == ip) {
		*f = c->f;
		return;
	}
	frame_lookup(r, t, cpumode, ip, f);
	c->space = space;
	c->ip = ip;
	c->gen = gen;
	c->cpumode = cpumode;
	c->f = *f;
}

PCL_API void pcl_resolver__frame(struct pcl_resolver *r, struct pcl_thread *thread, bool kernel,
				 uint64_t ip, struct pcl_frame *out)
{
	frame(r, thread, kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER, ip, out);
}

PCL_API int pcl_resolver__sample(struct pcl_resolver *r, const struct pcl_record *rec,
				 struct pcl_resolved *out)
{
	const struct pcl_sample *s = &rec->sample;
	unsigned int cpumode = rec->misc & PERF_RECORD_MISC_CPUMODE_MASK, mode;
	size_t n = 0;

	out->thread = pcl_machine__thread(r->m, (int32_t)s->pid, (int32_t)s->tid);
	if (!out->thread)
		return -ENOMEM;
	frame(r, out->thread, cpumode, s->ip, &out->ip);
	out->chain = NULL;
	out->nr_chain = 0;
	if (!(s->sample_type & PERF_SAMPLE_CALLCHAIN) || !s->nr_callchain)
		return 0;
	if (s->nr_callchain > (uint64_t)r->alloc &&
	    grow_array((void **)&r->chain, &r->alloc, (int)s->nr_callchain, sizeof(*r->chain)))
		return -ENOMEM;
	mode = cpumode;
	for (uint64_t i = 0; i < s->nr_callchain; i++) {
		uint64_t ip = s->callchain[i];
		struct pcl_frame *f;

		if (ip >= PERF_CONTEXT_MAX) {
			if (ip == PERF_CONTEXT_KERNEL) {
				mode = PERF_RECORD_MISC_KERNEL;
			} else if (ip == PERF_CONTEXT_USER) {
				mode = PERF_RECORD_MISC_USER;
			} else if (ip == PERF_CONTEXT_HV) {
				mode = PERF_RECORD_MISC_HYPERVISOR;
			} else {
				/*
				 * Any other marker (the kernel may end a chain with -1):
				 * perf takes the chain for corrupt and drops all of it.
				 */
				n = 0;
				break;
			}
			continue;
		}
		f = &r->chain[n++];
		frame(r, out->thread, mode, ip, f);
		if (!f->map)
			f->level = out->ip.level;
	}
	out->chain = r->chain;
	out->nr_chain = n;
	return 0;
}
