/* SPDX-License-Identifier: MIT */
/*
 * Resolving samples (contract in include/pcl/analysis.h), the way perf's
 * thread__resolve_callchain and thread__find_symbol do it: a sample's
 * cpumode says which address space its ip is in; in a call chain the
 * PERF_CONTEXT_* markers switch the space for the entries after them.
 * An entry in no map keeps the level of the sample, as perf shows it.
 */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "analysis/fpleaf.h"
#include "inline.h"

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

/*
 * Whole samples repeat too: most samples of a profile share their call
 * chain with many others. A resolved sample is kept by its raw form (the
 * thread's map set, cpumode, ip and raw chain) and handed out again with
 * an id that names the resolved chain, so that the histogram can skip its
 * own per-frame work as well. An entry is good for one machine generation:
 * a probe stops at the first slot of an older one, which a new entry may
 * take. The entries live in chunks; past MEMO_BYTES they are all dropped
 * and the memo starts again (ids are never reused in the process).
 */
#define MEMO_BYTES (16u << 20)
#define MEMO_CHUNK (1u << 20)
#define MEMO_MAX_CHAIN 512 /* longer chains are rare: resolved each time */

struct memo_ent {
	uint64_t hash, gen, id, ip;
	const void *space;
	uint32_t cpumode, nr_raw, nr_chain;
	struct pcl_frame ipf;
	struct pcl_frame *chain;
	uint64_t raw[];
};

struct memo_chunk {
	struct memo_chunk *next;
	size_t used;
	_Alignas(16) unsigned char data[];
};

struct pcl_resolver {
	struct pcl_machine *m;
	struct pcl_symbols *s;
	struct pcl_frame *chain;
	int alloc;
	struct cache_ent *cache;
	struct memo_ent **memo; /* open addressing, cap_memo slots */
	size_t cap_memo, nr_memo, memo_bytes;
	uint64_t memo_gen;
	struct memo_chunk *chunks;
	struct fpleaf *fpleaf; /* made on the first sample it repairs */
};

static uint64_t next_id;

static void memo_drop(struct pcl_resolver *r)
{
	while (r->chunks) {
		struct memo_chunk *c = r->chunks;

		r->chunks = c->next;
		free(c);
	}
	if (r->memo)
		memset(r->memo, 0, r->cap_memo * sizeof(*r->memo));
	r->nr_memo = 0;
	r->memo_bytes = 0;
}

static void *memo_alloc(struct pcl_resolver *r, size_t size)
{
	struct memo_chunk *c = r->chunks;
	void *p;

	size = (size + 15) & ~(size_t)15;
	if (!c || c->used + size > MEMO_CHUNK) {
		if (r->memo_bytes + MEMO_CHUNK > MEMO_BYTES)
			memo_drop(r);
		c = malloc(sizeof(*c) + MEMO_CHUNK);
		if (!c)
			return NULL;
		c->next = r->chunks;
		c->used = 0;
		r->chunks = c;
		r->memo_bytes += MEMO_CHUNK;
	}
	p = c->data + c->used;
	c->used += size;
	return p;
}

static uint64_t memo_hash(const void *space, unsigned int cpumode, uint64_t ip, const uint64_t *raw,
			  uint32_t nr)
{
	/* lighter per word than hash_mix: a chain is many words; mixed well at the end */
	uint64_t h = hash_mix((uintptr_t)space, ((uint64_t)cpumode << 32) | nr) ^ ip;

	for (uint32_t i = 0; i < nr; i++) {
		h = (h ^ raw[i]) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 29;
	}
	return hash_mix(h, 0);
}

/* The slot of the entry for this raw sample, or of the free slot it would take. */
static struct memo_ent **memo_slot(struct pcl_resolver *r, uint64_t hash, const void *space,
				   unsigned int cpumode, uint64_t ip, const uint64_t *raw, uint32_t nr)
{
	size_t j = hash & (r->cap_memo - 1);
	struct memo_ent *e;

	while ((e = r->memo[j]) && e->gen == r->memo_gen) {
		if (e->hash == hash && e->ip == ip && e->space == space && e->cpumode == cpumode &&
		    e->nr_raw == nr && (!nr || !memcmp(e->raw, raw, nr * sizeof(*raw))))
			break;
		j = (j + 1) & (r->cap_memo - 1);
	}
	return &r->memo[j];
}

static int memo_grow(struct pcl_resolver *r)
{
	size_t ncap = r->cap_memo ? r->cap_memo * 2 : 4096;
	struct memo_ent **nt = calloc(ncap, sizeof(*nt));

	if (!nt)
		return -ENOMEM;
	for (size_t i = 0; i < r->cap_memo; i++) {
		struct memo_ent *e = r->memo[i];
		size_t j;

		if (!e || e->gen != r->memo_gen)
			continue;
		j = e->hash & (ncap - 1);
		while (nt[j])
			j = (j + 1) & (ncap - 1);
		nt[j] = e;
	}
	free(r->memo);
	r->memo = nt;
	r->cap_memo = ncap;
	return 0;
}

PCL_API struct pcl_resolver *pcl_resolver__new(struct pcl_machine *m, struct pcl_symbols *s)
{
	struct pcl_resolver *r;

	if (!m) {
		return pcl_err_null(EINVAL, "pcl_resolver__new: invalid argument");
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
	memo_drop(r);
	fpleaf_free(r->fpleaf);
	free(r->memo);
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

	*f = (struct pcl_frame){ .ip = ip, .addr = ip, .level = cpumode_level(cpumode) };
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

/* Resolve @rec's ip and chain for out->thread, the chain into r->chain. */
static int resolve(struct pcl_resolver *r, const struct pcl_record *rec, struct pcl_resolved *out)
{
	const struct pcl_sample *s = &rec->sample;
	unsigned int cpumode = rec->misc & PERF_RECORD_MISC_CPUMODE_MASK, mode;
	size_t n = 0;

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
	/* the last step: inline frames (perf's --inline) for the chain as built */
	return inline_expand(r->s, out, &r->chain, &r->alloc);
}

static int resolve_sample(struct pcl_resolver *r, const struct pcl_record *rec,
			  struct pcl_resolved *out)
{
	const struct pcl_sample *s;
	unsigned int cpumode;
	uint32_t nr = 0;
	const void *space;
	struct memo_ent **slot, *e;
	uint64_t gen, hash;
	size_t size;
	int ret;

	if (!r || !rec || !out)
		return pcl_err(EINVAL, "pcl_resolver__sample: invalid argument");
	s = &rec->sample;
	cpumode = rec->misc & PERF_RECORD_MISC_CPUMODE_MASK;

	out->thread = pcl_machine__thread(r->m, (int32_t)s->pid, (int32_t)s->tid);
	if (!out->thread)
		return pcl_err(ENOMEM, "pcl_resolver__sample: out of memory");
	out->chain_id = 0;
	if (s->sample_type & PERF_SAMPLE_CALLCHAIN) {
		if (s->nr_callchain > MEMO_MAX_CHAIN)
			return resolve(r, rec, out);
		nr = (uint32_t)s->nr_callchain;
	}
	gen = pcl_machine__generation(r->m);
	if (gen != r->memo_gen) {
		r->memo_gen = gen; /* every entry is stale now */
		r->nr_memo = 0;
	}
	if (r->nr_memo * 2 >= r->cap_memo && memo_grow(r))
		return resolve(r, rec, out);
	space = out->thread->maps;
	hash = memo_hash(space, cpumode, s->ip, s->callchain, nr);
	slot = memo_slot(r, hash, space, cpumode, s->ip, s->callchain, nr);
	e = *slot;
	if (e && e->gen == gen) {
		out->ip = e->ipf;
		out->chain = e->chain;
		out->nr_chain = e->nr_chain;
		out->chain_id = e->id;
		return 0;
	}
	ret = resolve(r, rec, out);
	/* a map made while resolving (the kernel's, on first use) moved the generation */
	if (ret || pcl_machine__generation(r->m) != gen)
		return ret;
	size = sizeof(*e) + nr * sizeof(uint64_t);
	size = (size + 15) & ~(size_t)15;
	/* may drop every entry: the table is cleared, not freed, so *slot is still free */
	e = memo_alloc(r, size + out->nr_chain * sizeof(struct pcl_frame));
	if (!e)
		return 0; /* resolved all the same, just not kept */
	e->hash = hash;
	e->gen = gen;
	/* unique in the process, whichever resolver made it */
	e->id = __atomic_add_fetch(&next_id, 1, __ATOMIC_RELAXED);
	e->ip = s->ip;
	e->space = space;
	e->cpumode = cpumode;
	e->nr_raw = nr;
	e->nr_chain = (uint32_t)out->nr_chain;
	e->ipf = out->ip;
	e->chain = out->nr_chain ? (struct pcl_frame *)((unsigned char *)e + size) : NULL;
	if (nr)
		memcpy(e->raw, s->callchain, nr * sizeof(uint64_t));
	if (out->nr_chain)
		memcpy(e->chain, out->chain, out->nr_chain * sizeof(struct pcl_frame));
	*slot = e;
	r->nr_memo++;
	out->chain = e->chain;
	out->chain_id = e->id;
	return 0;
}

PCL_API int pcl_resolver__sample(struct pcl_resolver *r, const struct pcl_record *rec,
				 struct pcl_resolved *out)
{
	int ret = resolve_sample(r, rec, out);

	/*
	 * The last step, after the memo (it depends on the stack copy, which
	 * the memo does not key): the leaf's caller that a frame-pointer
	 * chain skips (fpleaf.c).
	 */
	return ret ? ret : fpleaf_repair(&r->fpleaf, r, r->s, rec, out);
}

PCL_API void pcl_resolver__fpleaf_stats(const struct pcl_resolver *r, struct pcl_fpleaf_stats *out)
{
	*out = *fpleaf_stats(r ? r->fpleaf : NULL);
}
