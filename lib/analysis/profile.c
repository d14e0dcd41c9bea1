/* SPDX-License-Identifier: MIT */
/*
 * Profiles for the export formats (see include/pcl/profile.h). Every table
 * is an append-only array with an open-addressing index of two 64-bit keys,
 * so a million samples cost a hash lookup per frame and no allocation once
 * the stacks repeat.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <pcl/machine.h>
#include <pcl/profile.h>
#include "../internal.h"
#include "symbol/files.h"
#include "profile.h"

struct slot {
	uint64_t k1, k2;
	uint32_t val; /* index + 1; 0: empty */
};

struct index {
	struct slot *slots;
	size_t cap, nr;
};

static uint64_t mix(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x7f4a7c159e3779b9ull + (a << 6) + (a >> 2));

	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 29);
}

static int index_grow(struct index *ix)
{
	size_t ncap = ix->cap ? ix->cap * 2 : 256;
	struct slot *ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	for (size_t i = 0; i < ix->cap; i++) {
		const struct slot *s = &ix->slots[i];
		size_t j;

		if (!s->val)
			continue;
		for (j = mix(s->k1, s->k2) & (ncap - 1); ns[j].val; j = (j + 1) & (ncap - 1))
			;
		ns[j] = *s;
	}
	free(ix->slots);
	ix->slots = ns;
	ix->cap = ncap;
	return 0;
}

/* The slot of (k1, k2): its val is 0 when new (the caller sets it). NULL on ENOMEM. */
static struct slot *index_slot(struct index *ix, uint64_t k1, uint64_t k2)
{
	size_t j;

	if ((ix->nr + 1) * 2 > ix->cap && index_grow(ix))
		return NULL;
	for (j = mix(k1, k2) & (ix->cap - 1); ix->slots[j].val; j = (j + 1) & (ix->cap - 1))
		if (ix->slots[j].k1 == k1 && ix->slots[j].k2 == k2)
			return &ix->slots[j];
	ix->slots[j].k1 = k1;
	ix->slots[j].k2 = k2;
	return &ix->slots[j];
}

/* The slot of (k1, k2) when it is there, else NULL. */
static struct slot *index_find(const struct index *ix, uint64_t k1, uint64_t k2)
{
	if (!ix->cap)
		return NULL;
	for (size_t j = mix(k1, k2) & (ix->cap - 1); ix->slots[j].val; j = (j + 1) & (ix->cap - 1))
		if (ix->slots[j].k1 == k1 && ix->slots[j].k2 == k2)
			return &ix->slots[j];
	return NULL;
}

/* Make room for one more element in a size_t-counted array. */
static int vec_room(void **arr, size_t *alloc, size_t nr, size_t elem)
{
	size_t n;
	void *p;

	if (nr < *alloc)
		return 0;
	n = *alloc ? *alloc * 2 : 64;
	p = realloc(*arr, n * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*alloc = n;
	return 0;
}

#define VEC(type, name) \
	type *name;     \
	size_t nr_##name, alloc_##name

struct pcl_profile {
	struct pcl_profile_opts opts;
	VEC(struct pcl_profile_func, funcs);
	VEC(struct pcl_profile_node, nodes);
	VEC(struct pcl_profile_thread, threads);
	VEC(struct pcl_profile_stack, stacks);
	VEC(struct pcl_profile_sample, samples);
	VEC(struct pcl_profile_switch, switches);
	VEC(uint32_t, path);
	VEC(struct pcl_profile_loc, locs);
	VEC(struct pcl_profile_line, lines);
	VEC(char *, owned); /* demangled names of inlined functions */
	struct index func_ix, unknown_ix, node_ix, thread_ix, stack_ix, loc_ix, inline_ix;
	struct id_node *ids; /* direct-mapped: resolver's chain id -> its leaf node */
	uint64_t nr_total, period_total, time_first, time_last;
	bool finished;
};

#define IDS_BITS 16

struct id_node {
	uint64_t id;
	uint32_t node;
};

#define ROOM(p, name) vec_room((void **)&(p)->name, &(p)->alloc_##name, (p)->nr_##name, \
			       sizeof(*(p)->name))

struct pcl_profile *pcl_profile__new(const struct pcl_profile_opts *opts)
{
	struct pcl_profile *p;

	int ret;

	p = calloc(1, sizeof(*p));
	if (!p)
		return pcl_err_null(ENOMEM, "pcl_profile__new: out of memory");
	ret = opts_copy(&p->opts, opts, "pcl_profile_opts");
	if (ret < 0) {
		free(p);
		return pcl_err_null(-ret, NULL);
	}
	if (ROOM(p, nodes)) {
		free(p);
		errno = ENOMEM;
		return NULL;
	}
	p->nodes[0] = (struct pcl_profile_node){ 0, UINT32_MAX, 0, UINT32_MAX };
	p->nr_nodes = 1;
	return p;
}

void pcl_profile__free(struct pcl_profile *p)
{
	if (!p)
		return;
	free(p->funcs);
	free(p->nodes);
	free(p->threads);
	free(p->stacks);
	free(p->samples);
	free(p->switches);
	free(p->path);
	free(p->locs);
	free(p->lines);
	for (size_t i = 0; i < p->nr_owned; i++)
		free(p->owned[i]);
	free(p->owned);
	free(p->loc_ix.slots);
	free(p->inline_ix.slots);
	free(p->ids);
	free(p->func_ix.slots);
	free(p->unknown_ix.slots);
	free(p->node_ix.slots);
	free(p->thread_ix.slots);
	free(p->stack_ix.slots);
	free(p);
}

/* ---- source positions (opts.symbols) ---- */

/*
 * The source line at @addr of @m's DSO with a line-table row, or NULL. Only
 * for files mapped in user space, as perf asks addr2line: not the kernel
 * and its modules (a vmlinux's DWARF would cost more than the export) nor
 * JIT maps or the vDSO.
 */
static const struct srcline_info *src_at(struct pcl_profile *p, const struct pcl_map *m,
					 uint64_t addr)
{
	const struct srcline_info *info;

	if (!p->opts.symbols || !m || !m->dso || m->dso->kind != PCL_DSO_USER ||
	    symbols_srcline(p->opts.symbols, m->dso, addr, &info) || !info->line)
		return NULL; /* not known, or only the symbol table's guess (line 0) */
	return info;
}

/*
 * Where @fn (a symbol) is in the source: the file of its first instruction
 * and the line its debug info declares it at (the outermost level of the
 * chain there: the function itself, should something be inlined at its
 * very start). No line without a function DIE.
 */
static void func_start_line(struct pcl_profile *p, struct pcl_profile_func *fn,
			    const struct pcl_map *m)
{
	const struct srcline_info *info = src_at(p, m, fn->start);

	if (!info)
		return;
	if (info->nframes > 0) {
		fn->file = info->frames[info->nframes - 1].file;
		fn->line = fn->file ? info->frames[info->nframes - 1].decl_line : 0;
	} else {
		fn->file = info->file;
	}
}

/* FNV-1a */
static uint64_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

/*
 * The function @name (raw, from the debug info) inlined in @m's DSO: one
 * per DSO, level and name, demangled as the symbolizer's names are.
 */
static int intern_inlined(struct pcl_profile *p, const struct pcl_map *m, char level,
			  const struct srcline_frame *sf, const char *file, uint64_t ip,
			  uint32_t *out)
{
	char *dem = pcl_demangle(sf->func);
	const char *shown = dem ? dem : sf->func;
	struct pcl_profile_func *fn;
	struct slot *s;

	s = index_slot(&p->inline_ix, (uint64_t)(uintptr_t)m->dso ^ (uint64_t)level,
		       str_hash(shown));
	if (!s || (!s->val && (ROOM(p, funcs) || (dem && ROOM(p, owned))))) {
		free(dem);
		return -ENOMEM;
	}
	if (s->val) {
		free(dem);
		*out = s->val - 1;
		if (!p->funcs[*out].file && file) {
			p->funcs[*out].file = file;
			p->funcs[*out].line = sf->decl_line;
		}
		return 0;
	}
	if (dem)
		p->owned[p->nr_owned++] = dem;
	fn = &p->funcs[p->nr_funcs];
	*fn = (struct pcl_profile_func){ .name = shown, .dso = m->dso, .map = m, .ip = ip,
					 .level = level, .file = file,
					 .line = file ? sf->decl_line : 0, .inlined = true };
	*out = (uint32_t)p->nr_funcs++;
	p->inline_ix.nr++;
	s->val = *out + 1;
	return 0;
}

/* The lines of @info as loc @l's: the inline chain, innermost first, @func last. */
static int add_lines(struct pcl_profile *p, struct pcl_profile_loc *l, const struct pcl_frame *f,
		     uint32_t func, const struct srcline_info *info)
{
	int n = info->nframes > 0 ? info->nframes : 1;

	l->first_line = (uint32_t)p->nr_lines;
	for (int k = 0; k < n; k++) {
		struct pcl_profile_line ln = { func, info->file, info->line };

		if (info->nframes > 0) {
			ln.file = info->frames[k].file;
			ln.line = ln.file ? info->frames[k].line : 0;
		}
		/* the levels above the last are functions inlined into it */
		if (k < n - 1 && info->frames[k].func &&
		    intern_inlined(p, f->map, f->level, &info->frames[k], ln.file, f->ip, &ln.func))
			return -ENOMEM;
		if (ROOM(p, lines))
			return -ENOMEM;
		p->lines[p->nr_lines++] = ln;
	}
	l->nr_lines = (uint32_t)n;
	return 0;
}

/* The function's own location (no address, no lines): new the first time. */
static int func_loc(struct pcl_profile *p, uint32_t func, uint64_t ip, uint32_t *out)
{
	struct slot *s = index_slot(&p->loc_ix, func, 0);

	if (!s || (!s->val && ROOM(p, locs)))
		return -ENOMEM;
	if (!s->val) {
		p->locs[p->nr_locs] = (struct pcl_profile_loc){ func, 0, ip, false, 0, 0 };
		s->val = (uint32_t)++p->nr_locs;
		p->loc_ix.nr++;
	}
	*out = s->val - 1;
	return 0;
}

/*
 * The location of frame @f of function @func: its address's own when the
 * debug info has a line for it, else the function's. @ret: @f is a return
 * address (a caller's frame), whose line is the call's, one byte before.
 * Each address is looked up once: its key then maps to whichever it got.
 */
static int intern_loc(struct pcl_profile *p, const struct pcl_frame *f, bool ret, uint32_t func,
		      uint32_t *out)
{
	uint64_t k1 = (uint64_t)func | (uint64_t)ret << 32 | 1ull << 33;
	const struct srcline_info *info;
	struct slot *s;

	if (!p->opts.symbols || !f->map || !f->map->dso || f->map->dso->kind != PCL_DSO_USER)
		return func_loc(p, func, f->ip, out);
	s = index_find(&p->loc_ix, k1, f->addr);
	if (s) {
		*out = s->val - 1;
		return 0;
	}
	info = src_at(p, f->map, ret && f->addr ? f->addr - 1 : f->addr);
	if (!info) {
		if (func_loc(p, func, f->ip, out))
			return -ENOMEM;
	} else {
		struct pcl_profile_loc l = { func, f->addr, f->ip, ret, 0, 0 };

		if (add_lines(p, &l, f, func, info) || ROOM(p, locs))
			return -ENOMEM;
		p->locs[p->nr_locs] = l;
		*out = (uint32_t)p->nr_locs++;
	}
	s = index_slot(&p->loc_ix, k1, f->addr);
	if (!s)
		return -ENOMEM;
	s->val = *out + 1;
	p->loc_ix.nr++;
	return 0;
}

static int intern_func(struct pcl_profile *p, const struct pcl_frame *f, uint32_t *out)
{
	const struct pcl_dso *dso = f->map ? f->map->dso : NULL;
	struct pcl_profile_func *fn;
	struct slot *s;

	/*
	 * A symbol is one function wherever it is hit; code no symbol covers is
	 * one "function" per address and map, so an export keeps where it was
	 * (pprof's locations, for symbolizing later).
	 */
	if (f->sym)
		s = index_slot(&p->func_ix, (uint64_t)(uintptr_t)dso ^ (uint64_t)f->level,
			       (uint64_t)(uintptr_t)f->sym);
	else
		s = index_slot(&p->unknown_ix, (uint64_t)(uintptr_t)f->map ^ (uint64_t)f->level,
			       f->ip);
	if (!s || (!s->val && ROOM(p, funcs)))
		return -ENOMEM;
	if (s->val) {
		*out = s->val - 1;
		return 0;
	}
	fn = &p->funcs[p->nr_funcs];
	fn->name = f->sym ? f->sym->name : "[unknown]";
	fn->dso = dso;
	fn->map = f->map;
	fn->start = f->sym ? f->sym->start : 0;
	fn->end = f->sym ? f->sym->end : 0;
	fn->ip = f->ip;
	fn->level = f->level;
	fn->file = NULL;
	fn->line = 0;
	fn->inlined = false;
	if (f->sym)
		func_start_line(p, fn, f->map);
	*out = (uint32_t)p->nr_funcs++;
	if (f->sym)
		p->func_ix.nr++;
	else
		p->unknown_ix.nr++;
	s->val = *out + 1;
	return 0;
}

/* The node of @loc called from @parent. */
static int intern_node(struct pcl_profile *p, uint32_t parent, uint32_t loc, uint32_t *out)
{
	struct slot *s = index_slot(&p->node_ix, parent, loc);

	if (!s || (!s->val && ROOM(p, nodes)))
		return -ENOMEM;
	if (!s->val) {
		p->nodes[p->nr_nodes] = (struct pcl_profile_node){
			parent, p->locs[loc].func, p->nodes[parent].depth + 1, loc
		};
		s->val = (uint32_t)++p->nr_nodes;
		p->node_ix.nr++;
	}
	*out = s->val - 1;
	return 0;
}

static int intern_thread(struct pcl_profile *p, const struct pcl_thread *t, uint32_t *out)
{
	struct slot *s = index_slot(&p->thread_ix, (uint64_t)(uintptr_t)t,
				    (uint64_t)(uintptr_t)t->comm);

	if (!s || (!s->val && ROOM(p, threads)))
		return -ENOMEM;
	if (!s->val) {
		p->threads[p->nr_threads] = (struct pcl_profile_thread){ t->pid, t->tid, t->comm };
		s->val = (uint32_t)++p->nr_threads;
		p->thread_ix.nr++;
	}
	*out = s->val - 1;
	return 0;
}

int pcl_profile__add(struct pcl_profile *p, const struct pcl_resolved *s, uint64_t time,
		     uint32_t cpu, uint64_t period)
{
	const struct pcl_frame *chain;
	size_t n;
	uint32_t node = 0, thread;
	struct slot *sl;

	struct id_node *in = NULL;

	if (!p || !s)
		return pcl_err(EINVAL, "pcl_profile__add: invalid argument");
	chain = s->nr_chain ? s->chain : &s->ip;
	n = s->nr_chain ? s->nr_chain : 1;
	if (intern_thread(p, s->thread, &thread))
		return pcl_err(-ENOMEM, "out of memory");
	/* the same chain id, the same frames: the same node, whatever the thread */
	if (s->chain_id && !p->ids)
		p->ids = calloc(1u << IDS_BITS, sizeof(*p->ids)); /* NULL: walk the frames */
	if (s->chain_id && p->ids) {
		in = &p->ids[(s->chain_id * 0x9e3779b97f4a7c15ULL) >> (64 - IDS_BITS)];
		if (in->id == s->chain_id) {
			node = in->node;
			n = 0;
		}
	}
	/* outermost caller first */
	for (size_t i = n; i-- > 0;) {
		size_t first = i;
		bool ret;
		uint32_t func, loc;

		/*
		 * With source positions, the inline frames of one address
		 * (--inline, lib/analysis/inline.c) are its location's lines:
		 * the address is one frame, the run's outermost.
		 */
		while (p->opts.symbols && first > 0 && chain[first].inline_level > 1 &&
		       chain[first - 1].ip == chain[first].ip &&
		       chain[first - 1].inline_level + 1 == chain[first].inline_level)
			first--;
		/*
		 * The resolver says which entries are return addresses: not the
		 * unwound ones of dwarf chains (minus 1 already), nor the exact
		 * PCs of signal frames, nor a user frame under kernel ones.
		 */
		ret = chain[i].return_address;
		if (intern_func(p, &chain[i], &func) || intern_loc(p, &chain[i], ret, func, &loc) ||
		    intern_node(p, node, loc, &node))
			return pcl_err(-ENOMEM, "out of memory");
		i = first;
	}
	if (in)
		*in = (struct id_node){ s->chain_id, node };
	sl = index_slot(&p->stack_ix, thread, node);
	if (!sl || (!sl->val && ROOM(p, stacks)))
		return pcl_err(-ENOMEM, "out of memory");
	if (!sl->val) {
		p->stacks[p->nr_stacks] = (struct pcl_profile_stack){ thread, node, 0, 0 };
		sl->val = (uint32_t)++p->nr_stacks;
		p->stack_ix.nr++;
	}
	p->stacks[sl->val - 1].count++;
	p->stacks[sl->val - 1].period += period;
	p->nr_total++;
	p->period_total += period;
	if (time && (!p->time_first || time < p->time_first))
		p->time_first = time;
	if (time > p->time_last)
		p->time_last = time;
	if (!p->opts.timeline)
		return 0;
	if (ROOM(p, samples))
		return pcl_err(-ENOMEM, "out of memory");
	p->samples[p->nr_samples++] = (struct pcl_profile_sample){ time, period, thread, node, cpu };
	return 0;
}

int pcl_profile__add_switch(struct pcl_profile *p, const struct pcl_thread *thread,
			    uint64_t time, bool out, bool preempt)
{
	uint32_t t;

	if (!p || !thread)
		return pcl_err(EINVAL, "pcl_profile__add_switch: invalid argument");
	if (!p->opts.timeline)
		return 0;
	if (intern_thread(p, thread, &t) || ROOM(p, switches))
		return pcl_err(-ENOMEM, "out of memory");
	p->switches[p->nr_switches++] = (struct pcl_profile_switch){ time, t, out, preempt };
	return 0;
}

static int cmp_stack(const void *a, const void *b)
{
	const struct pcl_profile_stack *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

static int cmp_sample(const void *a, const void *b)
{
	const struct pcl_profile_sample *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

static int cmp_switch(const void *a, const void *b)
{
	const struct pcl_profile_switch *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

static bool sorted_by_time(const void *arr, size_t n, size_t elem)
{
	const char *c = arr;

	/* time is each element's first member */
	for (size_t i = 1; i < n; i++) {
		uint64_t a, b;

		memcpy(&a, c + (i - 1) * elem, 8);
		memcpy(&b, c + i * elem, 8);
		if (b < a)
			return false;
	}
	return true;
}

void pcl_profile__finish(struct pcl_profile *p)
{
	if (p->finished)
		return;
	p->finished = true;
	/* the stack index points at positions that sorting moves: it is no longer needed */
	free(p->stack_ix.slots);
	p->stack_ix = (struct index){ 0 };
	if (p->nr_stacks > 1) /* qsort's array may not be NULL, even for none */
		qsort(p->stacks, p->nr_stacks, sizeof(*p->stacks), cmp_stack);
	/* the reader delivers in time order already; a stable check saves the sort */
	if (!sorted_by_time(p->samples, p->nr_samples, sizeof(*p->samples)))
		qsort(p->samples, p->nr_samples, sizeof(*p->samples), cmp_sample);
	if (!sorted_by_time(p->switches, p->nr_switches, sizeof(*p->switches)))
		qsort(p->switches, p->nr_switches, sizeof(*p->switches), cmp_switch);
}

#define ACCESSOR(type, name)                                                          \
	const struct pcl_profile_##type *pcl_profile__##name(const struct pcl_profile *p, \
							      size_t *n)                  \
	{                                                                             \
		*n = p->nr_##name;                                                    \
		return p->name;                                                       \
	}

ACCESSOR(func, funcs)
ACCESSOR(node, nodes)
ACCESSOR(thread, threads)
ACCESSOR(stack, stacks)
ACCESSOR(sample, samples)
ACCESSOR(switch, switches)
ACCESSOR(loc, locs)
ACCESSOR(line, lines)

uint64_t pcl_profile__nr_samples(const struct pcl_profile *p)
{
	return p->nr_total;
}

uint64_t pcl_profile__total_period(const struct pcl_profile *p)
{
	return p->period_total;
}

uint64_t pcl_profile__time_first(const struct pcl_profile *p)
{
	return p->time_first;
}

uint64_t pcl_profile__time_last(const struct pcl_profile *p)
{
	return p->time_last;
}

bool profile_func_kernel(const struct pcl_profile_func *f)
{
	if (f->dso)
		return f->dso->kind == PCL_DSO_KERNEL || f->dso->kind == PCL_DSO_MODULE;
	/*
	 * In no map: perf's level says where the sample was taken, not where
	 * this frame is; the address does (the upper half is the kernel's).
	 */
	return f->level == 'k' && (f->ip >> 63);
}

/* ---- merged trees ---- */

/* Interned names: the same text is the same id. */
struct names {
	struct index ix;
	const char **v;
	size_t nr, alloc;
};

static int name_id(struct names *nm, const char *s, uint32_t *out)
{
	uint64_t h = str_hash(s);
	uint64_t k2 = 0;
	struct slot *sl;

	/* k2 counts collisions of h between different texts */
	for (;;) {
		sl = index_slot(&nm->ix, h, k2);
		if (!sl)
			return -ENOMEM;
		if (!sl->val || !strcmp(nm->v[sl->val - 1], s))
			break;
		k2++;
	}
	if (!sl->val) {
		if (vec_room((void **)&nm->v, &nm->alloc, nm->nr, sizeof(*nm->v)))
			return -ENOMEM;
		nm->v[nm->nr] = s;
		sl->val = (uint32_t)++nm->nr;
		nm->ix.nr++;
	}
	*out = sl->val - 1;
	return 0;
}

struct flame_build {
	struct pcl_flame *f;
	size_t alloc;
	struct names names;
	struct index child;    /* (parent flame node, name id) -> flame node */
	struct index memo;     /* (comm flame node, profile node) -> flame node */
	uint32_t *func_name;   /* profile func -> name id */
};

static int flame_child(struct flame_build *b, uint32_t parent, uint32_t name, uint32_t func,
		       const char *text, uint32_t *out)
{
	struct slot *s = index_slot(&b->child, parent, name);
	struct pcl_flame *f = b->f;

	if (!s || (!s->val && vec_room((void **)&f->nodes, &b->alloc, f->nr_nodes,
				       sizeof(*f->nodes))))
		return -ENOMEM;
	if (!s->val) {
		struct pcl_flame_node *n = &f->nodes[f->nr_nodes];

		*n = (struct pcl_flame_node){ .func = func, .name = text, .parent = parent,
					      .depth = f->nodes[parent].depth + 1 };
		if (n->depth > f->max_depth)
			f->max_depth = n->depth;
		s->val = (uint32_t)++f->nr_nodes;
		b->child.nr++;
	}
	*out = s->val - 1;
	return 0;
}

static int add_stack(struct flame_build *b, const struct pcl_profile *p,
		     const struct pcl_profile_stack *st, uint64_t value, uint32_t **path,
		     size_t *alloc)
{
	const struct pcl_profile_thread *t = &p->threads[st->thread];
	uint32_t comm_name, at, n = 0, node = st->node;
	struct slot *s = NULL;

	if (name_id(&b->names, t->comm, &comm_name) ||
	    flame_child(b, 0, comm_name, UINT32_MAX, t->comm, &at))
		return -ENOMEM;
	/* walk up to the outermost caller or to a node already placed under this comm */
	while (node) {
		s = index_slot(&b->memo, at, node);
		if (!s)
			return -ENOMEM;
		if (s->val)
			break;
		if (vec_room((void **)path, alloc, n, sizeof(**path)))
			return -ENOMEM;
		(*path)[n++] = node;
		node = p->nodes[node].parent;
	}
	uint32_t cur = node && s ? s->val - 1 : at;

	while (n--) {
		uint32_t pn = (*path)[n], fn = p->nodes[pn].func;

		if (flame_child(b, cur, b->func_name[fn], fn, p->funcs[fn].name, &cur))
			return -ENOMEM;
		s = index_slot(&b->memo, at, pn);
		if (!s)
			return -ENOMEM;
		if (!s->val) {
			s->val = cur + 1;
			b->memo.nr++;
		}
	}
	b->f->nodes[cur].self += value;
	return 0;
}

static int cmp_child(const void *a, const void *b, void *arg)
{
	const struct pcl_flame_node *nodes = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = strcmp(nodes[x].name, nodes[y].name);

	return c ? c : (x < y ? -1 : x > y);
}

/* Link each node's children in name order and sum the totals up. */
static int flame_link(struct pcl_flame *f)
{
	uint32_t *order = malloc(f->nr_nodes * sizeof(*order));

	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < f->nr_nodes; i++) {
		order[i] = (uint32_t)i;
		f->nodes[i].total = f->nodes[i].self;
	}
	for (size_t i = f->nr_nodes; i-- > 1;)
		f->nodes[f->nodes[i].parent].total += f->nodes[i].total;
	/* sort all by name, then link backwards: each parent's children come out in order */
	if (f->nr_nodes > 2)
		qsort_r(order + 1, f->nr_nodes - 1, sizeof(*order), cmp_child, f->nodes);
	for (size_t i = f->nr_nodes; i-- > 1;) {
		struct pcl_flame_node *n = &f->nodes[order[i]], *par = &f->nodes[n->parent];

		n->next = par->first;
		par->first = order[i];
	}
	free(order);
	return 0;
}

int pcl_flame__build(struct pcl_flame *f, const struct pcl_profile *p, bool by_period,
		     int32_t thread)
{
	struct flame_build b = { .f = f };
	uint32_t *path = NULL;
	size_t path_alloc = 0;
	int ret = -ENOMEM;

	if (!f || !p)
		return pcl_err(EINVAL, "pcl_flame__build: invalid argument");
	memset(f, 0, sizeof(*f));
	b.func_name = malloc((p->nr_funcs + 1) * sizeof(*b.func_name));
	if (!b.func_name || vec_room((void **)&f->nodes, &b.alloc, 0, sizeof(*f->nodes)))
		goto out;
	f->nodes[0] = (struct pcl_flame_node){ .func = UINT32_MAX, .name = "all" };
	f->nr_nodes = 1;
	/* kernel and user code of one name are two frames: they are coloured apart */
	for (size_t i = 0; i < p->nr_funcs; i++) {
		if (name_id(&b.names, p->funcs[i].name, &b.func_name[i]))
			goto out;
		b.func_name[i] = b.func_name[i] << 1 | profile_func_kernel(&p->funcs[i]);
	}
	for (size_t i = 0; i < p->nr_stacks; i++) {
		const struct pcl_profile_stack *st = &p->stacks[i];

		if (thread >= 0 && st->thread != (uint32_t)thread)
			continue;
		if (add_stack(&b, p, st, by_period ? st->period : st->count, &path, &path_alloc))
			goto out;
	}
	ret = flame_link(f);
out:
	free(path);
	free(b.func_name);
	free(b.names.v);
	free(b.names.ix.slots);
	free(b.child.slots);
	free(b.memo.slots);
	if (ret) {
		pcl_flame__free(f);
		pcl_err(ret, "out of memory");
	}
	return ret;
}

void pcl_flame__free(struct pcl_flame *f)
{
	free(f->nodes);
	memset(f, 0, sizeof(*f));
}

uint32_t pcl_flame__child(const struct pcl_flame *f, uint32_t parent, const char *name)
{
	for (uint32_t c = f->nodes[parent].first; c; c = f->nodes[c].next)
		if (!strcmp(f->nodes[c].name, name))
			return c;
	return 0;
}
