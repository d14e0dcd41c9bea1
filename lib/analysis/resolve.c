/* SPDX-License-Identifier: MIT */
/*
 * Resolving samples (contract in include/pcl/analysis.h), the way perf's
 * thread__resolve_callchain and thread__find_symbol do it: a sample's
 * cpumode says which address space its ip is in; in a call chain the
 * PERF_CONTEXT_* markers switch the space for the entries after them.
 * An entry in no map keeps the level of the sample, as perf shows it.
 *
 * A sample goes through three steps (pcl_resolver__sample):
 *   1. its raw chain: the recorded one, or for a --call-graph dwarf sample
 *      one built here (dwarf_chain): the recorded chain, PERF_CONTEXT_USER,
 *      then the unwound user addresses. Every later step sees only this raw
 *      chain, so the memo's key (below) stays exact: the same raw chain
 *      resolves to the same frames.
 *   2. the memo: a sample seen before in this generation is handed out again;
 *   3. resolve(): each entry to a frame;
 *   4. after the memo, frame-pointer leaf repair (fpleaf.c), which depends
 *      on the stack copy of a -g sample.
 */
#include <stdlib.h>
#include <string.h>
#include <asm/perf_regs.h>
#include "internal.h"
#include "symbol/files.h"
#include "symbol/unwind.h"
#include "analysis/fpleaf.h"
#include "inline.h"

/*
 * A sample's frames repeat (a hot loop, the same callers): resolved frames
 * are cached by (address space, cpumode, ip), direct-mapped, and forgotten
 * when the machine's code generation moves (a map set made, an executable
 * map changed somewhere). Data maps (mmap_data) do not move it: the ips
 * and return addresses resolved here are code; a garbage address in a
 * data map that changed keeps the data map it was first found in.
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
#define MEMO_STALE_BYTES (2 * MEMO_CHUNK) /* kept across a generation change */
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

/* perf's default --max-stack: user frames unwound per sample at most. */
#define UNWIND_DEPTH 127

/*
 * Per thread (and comm: an exec gives it a new stack), for the
 * --call-graph dwarf,SIZE hint: where its stack ends
 * for unwinding (SP + bytes read, of its complete unwinds), and the lowest
 * SP of its samples whose copy was too small. The difference is the copy
 * that would have been enough for all of them; the unwinder alone only
 * knows what the failing step lacked.
 */
struct stack_ent {
	int32_t tid;
	bool used;
	const char *comm; /* interned: an exec (a new stack) changes it */
	uint64_t end, low_sp;
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
	/* DWARF unwinding: made on the first sample that needs it */
	const struct pcl_data_reader *reader;
	struct unwinder *uw;
	struct pcl_thread *uw_thread; /* the sample being unwound, for the map lookup */
	uint64_t *raw;		      /* the raw chain built for it */
	int alloc_raw;
	struct pcl_unwind_stats ust; /* the counts the unwinder does not keep */
	struct stack_ent *stacks;    /* open addressing by tid, cap_stacks slots */
	size_t cap_stacks, nr_stacks;
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
	unwinder_free(r->uw);
	free(r->stacks);
	free(r->raw);
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
	uint64_t gen = machine_code_generation(r->m), h;
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

/*
 * Resolve @rec's ip and the raw chain @raw for out->thread, the chain into
 * r->chain. Entries from @adjusted on are minus 1 already (the unwound
 * ones); before it, an entry that is not the first of its context is a
 * return address.
 */
static int resolve(struct pcl_resolver *r, const struct pcl_record *rec, const uint64_t *raw,
		   uint64_t nr, uint64_t adjusted, struct pcl_resolved *out)
{
	const struct pcl_sample *s = &rec->sample;
	unsigned int cpumode = rec->misc & PERF_RECORD_MISC_CPUMODE_MASK, mode;
	bool first = true;
	size_t n = 0;

	frame(r, out->thread, cpumode, s->ip, &out->ip);
	out->chain = NULL;
	out->nr_chain = 0;
	if (!nr)
		return 0;
	if (nr > (uint64_t)r->alloc &&
	    grow_array((void **)&r->chain, &r->alloc, (int)nr, sizeof(*r->chain)))
		return -ENOMEM;
	mode = cpumode;
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t ip = raw[i];
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
			first = true;
			continue;
		}
		f = &r->chain[n++];
		frame(r, out->thread, mode, ip, f);
		if (!f->map)
			f->level = out->ip.level;
		f->return_address = !first && i < adjusted;
		first = false;
	}
	out->chain = r->chain;
	out->nr_chain = n;
	/* the last step: inline frames (perf's --inline) for the chain as built */
	return inline_expand(r->s, out, &r->chain, &r->alloc);
}

/* ---- DWARF unwinding: step 1 for --call-graph dwarf samples ---- */

PCL_API void pcl_resolver__set_reader(struct pcl_resolver *r, const struct pcl_data_reader *reader)
{
	if (r)
		r->reader = reader;
}

/* The sample_regs_user of @s's event, or 0 when it cannot be known. */
static uint64_t regs_mask(const struct pcl_resolver *r, const struct pcl_sample *s)
{
	const struct pcl_data_attr *a = NULL;

	if (pcl_data_reader__nr_attrs(r->reader) == 1)
		a = pcl_data_reader__attr(r->reader, 0);
	else if (s->sample_type & PERF_SAMPLE_IDENTIFIER)
		a = pcl_data_reader__attr_by_id(r->reader, s->identifier);
	else if (s->sample_type & PERF_SAMPLE_ID)
		a = pcl_data_reader__attr_by_id(r->reader, s->id);
	return a ? a->attr.sample_regs_user : 0;
}

/* The unwinder's map lookup: the thread's maps, the symbolizer's files. */
static int unwind_find_map(void *arg, uint64_t addr, struct unwind_map *um)
{
	struct pcl_resolver *r = arg;
	struct pcl_map *map = pcl_machine__find_map(r->m, r->uw_thread, false, addr);
	const struct symbols_dso_files *f;
	struct pcl_dso *dso;

	if (!map)
		return -ENOENT;
	dso = map->dso;
	memset(um, 0, sizeof(*um));
	um->start = map->start;
	um->end = map->end;
	um->pgoff = map->pgoff == UINT64_MAX ? 0 : map->pgoff;
	if (dso->kind != PCL_DSO_USER && dso->kind != PCL_DSO_VDSO)
		return 0; /* a JIT map: no file, its PCs are "not mapped" */
	if (dso->build_id_size) {
		um->build_id = dso->build_id;
		um->build_id_size = dso->build_id_size;
	}
	if (!r->s) {
		um->path = dso->kind == PCL_DSO_USER ? dso->name : NULL;
		return 0;
	}
	f = symbols_dso_files(r->s, dso);
	if (!f)
		return 0;
	/* a debug file alone (the stripped file gone) still has the CFI */
	um->path = f->path ? f->path : f->debug;
	um->debug_path = f->path ? f->debug : NULL;
	um->image = f->image;
	um->image_size = f->image_size;
	if (f->image && !um->path)
		um->path = dso->name;
	return 0;
}

/* The value of perf register @reg in @s's registers (laid out by @mask), or 0. */
static uint64_t user_reg(const struct pcl_sample *s, uint64_t mask, unsigned int reg)
{
	uint64_t bit = 1ULL << reg;

	return mask & bit ? s->user_regs[__builtin_popcountll(mask & (bit - 1))] : 0;
}

/* The stack entry of @tid, made if new; NULL when memory runs out. */
static struct stack_ent *stack_find(struct pcl_resolver *r, int32_t tid, const char *comm)
{
	size_t j;

	if (r->nr_stacks * 2 >= r->cap_stacks) {
		size_t ncap = r->cap_stacks ? r->cap_stacks * 2 : 64;
		struct stack_ent *nt = calloc(ncap, sizeof(*nt));

		if (!nt)
			return NULL;
		for (size_t i = 0; i < r->cap_stacks; i++) {
			if (!r->stacks[i].used)
				continue;
			j = hash_mix((uintptr_t)r->stacks[i].comm, (uint32_t)r->stacks[i].tid) &
			    (ncap - 1);
			while (nt[j].used)
				j = (j + 1) & (ncap - 1);
			nt[j] = r->stacks[i];
		}
		free(r->stacks);
		r->stacks = nt;
		r->cap_stacks = ncap;
	}
	j = hash_mix((uintptr_t)comm, (uint32_t)tid) & (r->cap_stacks - 1);
	while (r->stacks[j].used && (r->stacks[j].tid != tid || r->stacks[j].comm != comm))
		j = (j + 1) & (r->cap_stacks - 1);
	if (!r->stacks[j].used) {
		r->stacks[j] = (struct stack_ent){
			.tid = tid, .used = true, .comm = comm, .low_sp = UINT64_MAX
		};
		r->nr_stacks++;
	}
	return &r->stacks[j];
}

/* Learn where @t's stack ends, or how low a too-small copy started. */
static void stack_note(struct pcl_resolver *r, const struct pcl_thread *t, uint64_t sp,
		       const struct unwind_result *res)
{
	struct stack_ent *e;

	if (res->status != UNWIND_COMPLETE && res->status != UNWIND_STACK_TOO_SMALL)
		return;
	e = stack_find(r, t->tid, t->comm);
	if (!e)
		return; /* only the hint is less precise */
	if (res->status == UNWIND_COMPLETE && sp + res->used > e->end)
		e->end = sp + res->used;
	else if (res->status == UNWIND_STACK_TOO_SMALL && sp < e->low_sp)
		e->low_sp = sp;
}

/* Room for @nr words in r->raw. */
static int raw_room(struct pcl_resolver *r, uint64_t nr)
{
	if (nr > INT32_MAX)
		return -ENOMEM;
	if (nr <= (uint64_t)r->alloc_raw)
		return 0;
	return grow_array((void **)&r->raw, &r->alloc_raw, (int)nr, sizeof(*r->raw));
}

/*
 * perf's chain for a sample with user registers and a stack copy: its
 * recorded callchain (all of it: perf appends the unwound part even after
 * a frame-pointer user part), then the unwound user addresses, callers
 * minus 1. A recorded chain with an unknown context marker is dropped, as
 * perf drops it, and the unwound part still follows. Into r->raw.
 */
static int dwarf_chain(struct pcl_resolver *r, const struct pcl_sample *s, struct pcl_thread *t,
		       uint64_t mask, const uint64_t **raw, uint64_t *nr, uint64_t *adjusted)
{
	struct unwind_space as = {
		.id = (uint64_t)(uint32_t)t->pid,
		.generation = maps_generation(t->maps),
		.find_map = unwind_find_map,
		.arg = r,
	};
	struct unwind_regs regs = { .abi = s->user_abi, .mask = mask, .regs = s->user_regs };
	struct unwind_stack st = {
		.data = s->user_stack,
		.size = s->user_stack_dyn_size,
		.sp = user_reg(s, mask, PERF_REG_X86_SP),
	};
	struct unwind_result res;
	uint64_t keep = *nr, *out;
	int ret;

	for (uint64_t i = 0; i < keep; i++) {
		uint64_t ip = (*raw)[i];

		if (ip >= PERF_CONTEXT_MAX && ip != PERF_CONTEXT_KERNEL && ip != PERF_CONTEXT_USER &&
		    ip != PERF_CONTEXT_HV) {
			keep = 0;
			break;
		}
	}
	if (!r->uw && !(r->uw = unwinder_new()))
		return -errno;
	if (raw_room(r, keep + 1 + UNWIND_DEPTH))
		return -ENOMEM;
	memcpy(r->raw, *raw, keep * sizeof(*r->raw));
	r->raw[keep] = PERF_CONTEXT_USER;
	out = r->raw + keep + 1;
	r->uw_thread = t;
	ret = unwind_sample(r->uw, &as, &regs, &st, out, UNWIND_DEPTH, &res);
	r->uw_thread = NULL;
	if (ret)
		return ret;
	stack_note(r, t, st.sp, &res);
	/*
	 * callers' return addresses point after the call: minus 1 lands in
	 * it, as perf. Not an exact PC: a signal trampoline's (perf 6.1's
	 * libunwind keeps it too) or the instruction a signal interrupted
	 * (as libdwfl's dwfl_frame_pc says; perf 6.1 subtracts 1 there).
	 */
	for (unsigned int i = 1; i < res.nr; i++)
		if (!unwind_result_exact(&res, i))
			out[i]--;
	*raw = r->raw;
	*nr = keep + 1 + res.nr;
	*adjusted = keep + 1;
	return 0;
}

/*
 * Step 1: the raw chain of @s, in *@raw and *@nr. The recorded one, or
 * one built here. A sample whose event has no callchain has none.
 */
static int raw_chain(struct pcl_resolver *r, const struct pcl_sample *s, struct pcl_thread *t,
		     const uint64_t **raw, uint64_t *nr, uint64_t *adjusted)
{
	const uint64_t want = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	uint64_t mask;

	*raw = s->callchain;
	*nr = s->sample_type & PERF_SAMPLE_CALLCHAIN ? s->nr_callchain : 0;
	*adjusted = *nr;
	if ((s->sample_type & want) != want)
		return 0;
	/* perf's test: registers and a non-empty copy, else the recorded chain alone */
	if (!s->user_abi || !s->user_regs || !s->user_stack || !s->user_stack_dyn_size) {
		r->ust.no_user_stack++;
		return 0;
	}
	if (!r->reader || !(mask = regs_mask(r, s))) {
		r->ust.no_reader++;
		return 0;
	}
	return dwarf_chain(r, s, t, mask, raw, nr, adjusted);
}

/* The public statuses are the unwinder's, in its order. */
_Static_assert((int)PCL_UNWIND__NR == (int)UNWIND__NR &&
		       (int)PCL_UNWIND_STACK_TOO_SMALL == (int)UNWIND_STACK_TOO_SMALL &&
		       (int)PCL_UNWIND_NOT_MAPPED == (int)UNWIND_NOT_MAPPED &&
		       (int)PCL_UNWIND_ERROR == (int)UNWIND_ERROR,
	       "enum pcl_unwind_status follows enum unwind_status");

PCL_API const char *pcl_unwind_status_name(enum pcl_unwind_status status)
{
	return unwind_status_name((enum unwind_status)status);
}

PCL_API void pcl_resolver__unwind_stats(const struct pcl_resolver *r, struct pcl_unwind_stats *out)
{
	const struct unwind_stats *u;

	memset(out, 0, sizeof(*out));
	if (!r)
		return;
	*out = r->ust;
	u = unwinder_stats(r->uw);
	if (!u)
		return;
	out->samples = u->samples;
	for (int i = 0; i < PCL_UNWIND__NR && i < UNWIND__NR; i++)
		out->status[i] = u->status[i];
	out->max_needed = u->max_needed;
	out->max_needed_exact = true;
	/* a thread that also unwound fully says how much its too-small copies lacked */
	for (size_t i = 0; i < r->cap_stacks; i++) {
		const struct stack_ent *e = &r->stacks[i];

		if (!e->used || e->low_sp == UINT64_MAX)
			continue;
		if (!e->end || e->low_sp >= e->end)
			out->max_needed_exact = false;
		else if (e->end - e->low_sp > out->max_needed)
			out->max_needed = e->end - e->low_sp;
	}
	out->spaces_built = u->dwfl_builds;
	out->modules = u->modules;
	out->fast = u->fast;
}

PCL_API uint64_t pcl_unwind_stats__suggest_size(const struct pcl_unwind_stats *st)
{
	uint64_t n;

	if (!st || !st->samples || st->status[PCL_UNWIND_STACK_TOO_SMALL] * 20 <= st->samples)
		return 0;
	/*
	 * One word more: perf's libunwind reader takes the copy's last word
	 * for outside it, and would end the chain there with a bogus frame.
	 */
	n = (st->max_needed + 8 + 7) & ~7ULL;
	return n > 65528 ? 65528 : n;
}

static int resolve_sample(struct pcl_resolver *r, const struct pcl_record *rec,
			  struct pcl_resolved *out)
{
	const struct pcl_sample *s;
	unsigned int cpumode;
	const uint64_t *raw;
	uint64_t nr64, adjusted;
	uint32_t nr;
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
	ret = raw_chain(r, s, out->thread, &raw, &nr64, &adjusted);
	if (ret)
		return ret;
	if (nr64 > MEMO_MAX_CHAIN)
		return resolve(r, rec, raw, nr64, adjusted, out);
	nr = (uint32_t)nr64;
	gen = machine_code_generation(r->m);
	if (gen != r->memo_gen) {
		r->memo_gen = gen; /* every entry is stale now */
		r->nr_memo = 0;
		/*
		 * and so is the memory they fill: let go of it once it is more
		 * than a little, or a long run whose maps keep changing (pcl
		 * top over processes that come and go) grows to MEMO_BYTES
		 */
		if (r->memo_bytes > MEMO_STALE_BYTES)
			memo_drop(r);
	}
	if (r->nr_memo * 2 >= r->cap_memo && memo_grow(r))
		return resolve(r, rec, raw, nr, adjusted, out);
	space = out->thread->maps;
	hash = memo_hash(space, cpumode, s->ip, raw, nr);
	slot = memo_slot(r, hash, space, cpumode, s->ip, raw, nr);
	e = *slot;
	if (e && e->gen == gen) {
		out->ip = e->ipf;
		out->chain = e->chain;
		out->nr_chain = e->nr_chain;
		out->chain_id = e->id;
		return 0;
	}
	ret = resolve(r, rec, raw, nr, adjusted, out);
	/* a map made while resolving (the kernel's, on first use) moved the generation */
	if (ret || machine_code_generation(r->m) != gen)
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
		memcpy(e->raw, raw, nr * sizeof(uint64_t));
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
