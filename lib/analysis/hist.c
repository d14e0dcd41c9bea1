/* SPDX-License-Identifier: MIT */
/*
 * Histograms and call trees (contract in include/pcl/analysis.h), with
 * perf report's rules for what makes two samples one entry.
 *
 * An entry is identified by the sort keys only: comm (the string), dso
 * (its short name), sym (the dso and the symbol's extent, or the address
 * when there is no symbol), pid/tid (the thread), cpu. Names are interned,
 * so keys compare by pointer.
 *
 * Samples are not turned into call-tree paths one by one: that costs
 * depth^2 per sample in children mode, which is what makes perf report slow
 * on deep stacks. Each sample is reduced to a unique chain (its own entry
 * plus its frames' identities, hashed), with the period and count of every
 * sample that had it. pcl_hists__finish then walks the unique chains once
 * to credit the children periods and to grow the trees.
 */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "srcpos.h"

struct hkey {
	const char *comm;
	const char *dso; /* short name, interned; NULL: no map */
	int32_t tid, cpu;
	uint64_t sym_start, sym_end, addr;
	bool has_sym;
	const struct pcl_symbol *inlined; /* an inline frame's own symbol (made per function) */
	const char *srcline, *srcfile;	  /* interned by the srcpos cache */
};

struct hentry {
	struct pcl_hist_entry e;
	struct hkey key;
	uint64_t hash;
	uint32_t stamp; /* the unique chain that last credited it (children mode) */
};

struct uchain {
	struct hentry *self;
	uint64_t hash, period, count;
	uint32_t n;
	struct pcl_frame frames[];
};

/* A sample whose resolved chain has an id skips hashing its frames. */
#define IDS_BITS 16

struct idslot {
	const struct hentry *self;
	uint64_t id;
	struct uchain *u;
};

struct pcl_hists {
	struct pcl_hist_opts opts;
	bool key_on[PCL_SORT_MAX];
	struct hentry **entries; /* in creation order, then sorted */
	int nr, alloc;
	struct hentry **table; /* open addressing */
	size_t cap;
	struct uchain **chains; /* open addressing */
	size_t nr_chains, cap_chains;
	struct idslot *ids; /* direct-mapped: (entry, resolver's chain id) -> unique chain */
	struct node_chunk *node_chunks;
	struct pcl_callnode **nodes; /* open addressing: every tree node, while finishing */
	size_t nr_nodes, cap_nodes;
	struct uchain **order; /* the unique chains in the order samples first had them */
	size_t alloc_order;
	uint64_t total_period, nr_samples;
	bool hiding; /* entries made now are hidden (the sample adding them was filtered) */
	bool from_chain; /* entries made now come from a chain's frames */
	struct srcpos_cache *srcpos; /* with the srcline or srcfile key */
};

PCL_API struct pcl_hists *pcl_hists__new(const struct pcl_hist_opts *opts)
{
	struct pcl_hists *h = calloc(1, sizeof(*h));

	int ret;

	if (!h)
		return pcl_err_null(ENOMEM, "pcl_hists__new: out of memory");
	ret = opts_copy(&h->opts, opts, "pcl_hist_opts");
	if (ret < 0) {
		free(h);
		return pcl_err_null(-ret, NULL);
	}
	if (!h->opts.nr_keys) {
		h->opts.keys[0] = PCL_SORT_COMM;
		h->opts.keys[1] = PCL_SORT_DSO;
		h->opts.keys[2] = PCL_SORT_SYM;
		h->opts.nr_keys = 3;
	}
	for (int i = 0; i < h->opts.nr_keys; i++)
		if (h->opts.keys[i] < PCL_SORT_MAX)
			h->key_on[h->opts.keys[i]] = true;
	if (h->key_on[PCL_SORT_TID])
		h->key_on[PCL_SORT_PID] = true;
	if ((h->key_on[PCL_SORT_SRCLINE] || h->key_on[PCL_SORT_SRCFILE]) &&
	    !(h->srcpos = srcpos_cache__new(h->opts.symbols, h->opts.full_source_path))) {
		free(h);
		return pcl_err_null(ENOMEM, "pcl_hists__new: out of memory");
	}
	return h;
}

/* Tree nodes are many and die together: they come from chunks of the hists. */
#define NODES_PER_CHUNK 4096

struct node_chunk {
	struct node_chunk *next;
	size_t used;
	struct pcl_callnode nodes[NODES_PER_CHUNK];
};

static struct pcl_callnode *node_new(struct pcl_hists *h)
{
	struct node_chunk *c = h->node_chunks;

	if (!c || c->used == NODES_PER_CHUNK) {
		c = malloc(sizeof(*c));
		if (!c)
			return NULL;
		c->next = h->node_chunks;
		c->used = 0;
		h->node_chunks = c;
	}
	memset(&c->nodes[c->used], 0, sizeof(c->nodes[0]));
	return &c->nodes[c->used++];
}

PCL_API void pcl_hists__free(struct pcl_hists *h)
{
	if (!h)
		return;
	while (h->node_chunks) {
		struct node_chunk *c = h->node_chunks;

		h->node_chunks = c->next;
		free(c);
	}
	for (int i = 0; i < h->nr; i++) {
		free(h->entries[i]->e.member_self);
		free(h->entries[i]);
	}
	for (size_t i = 0; i < h->cap_chains; i++)
		free(h->chains[i]);
	free(h->chains);
	free(h->ids);
	free(h->order);
	free(h->entries);
	free(h->table);
	srcpos_cache__free(h->srcpos);
	free(h);
}

/* The key of an entry for @f seen in a sample of @thread on @cpu. */
static void make_key(const struct pcl_hists *h, const struct pcl_thread *t, uint32_t cpu,
		     const struct pcl_frame *f, struct hkey *k)
{
	memset(k, 0, sizeof(*k));
	if (h->key_on[PCL_SORT_COMM])
		k->comm = t->comm;
	if (h->key_on[PCL_SORT_PID])
		k->tid = t->tid;
	if (h->key_on[PCL_SORT_CPU])
		k->cpu = (int32_t)cpu;
	if (h->key_on[PCL_SORT_DSO] || (h->key_on[PCL_SORT_SYM] && f->sym))
		k->dso = f->map ? f->map->dso->short_name : NULL;
	if (h->key_on[PCL_SORT_SYM]) {
		k->has_sym = f->sym != NULL;
		if (f->sym) {
			k->sym_start = f->sym->start;
			k->sym_end = f->sym->end;
		} else {
			k->addr = f->addr;
		}
		if (f->inlined)
			k->inlined = f->sym;
	}
	if (h->key_on[PCL_SORT_SRCLINE])
		k->srcline = srcpos_cache__get(h->srcpos, f, SRCPOS_SORT_LINE);
	if (h->key_on[PCL_SORT_SRCFILE])
		k->srcfile = srcpos_cache__get(h->srcpos, f, SRCPOS_SORT_FILE);
}

static uint64_t key_hash(const struct hkey *k)
{
	uint64_t x = hash_mix(0, (uintptr_t)k->comm);

	x = hash_mix(x, (uintptr_t)k->dso);
	x = hash_mix(x, ((uint64_t)(uint32_t)k->tid << 32) | (uint32_t)k->cpu);
	x = hash_mix(x, k->has_sym ? k->sym_start : k->addr);
	x = hash_mix(x, (uintptr_t)k->inlined ^ (uintptr_t)k->srcline ^ (uintptr_t)k->srcfile);
	return hash_mix(x, k->sym_end);
}

static bool key_eq(const struct hkey *a, const struct hkey *b)
{
	return a->comm == b->comm && a->dso == b->dso && a->tid == b->tid && a->cpu == b->cpu &&
	       a->has_sym == b->has_sym && a->sym_start == b->sym_start &&
	       a->sym_end == b->sym_end && a->addr == b->addr && a->inlined == b->inlined &&
	       a->srcline == b->srcline && a->srcfile == b->srcfile;
}

static int table_grow(struct pcl_hists *h)
{
	size_t ncap = h->cap ? h->cap * 2 : 1024;
	struct hentry **nt = calloc(ncap, sizeof(*nt));

	if (!nt)
		return -ENOMEM;
	for (int i = 0; i < h->nr; i++) {
		size_t j = h->entries[i]->hash & (ncap - 1);

		while (nt[j])
			j = (j + 1) & (ncap - 1);
		nt[j] = h->entries[i];
	}
	free(h->table);
	h->table = nt;
	h->cap = ncap;
	return 0;
}

/* @t gives the key's thread fields; @real is the thread the entry keeps. */
static struct hentry *entry_findnew(struct pcl_hists *h, const struct pcl_thread *t, uint32_t cpu,
				    const struct pcl_frame *f, const struct pcl_thread *real)
{
	struct hkey k;
	uint64_t hash;
	size_t j;
	struct hentry *e;

	make_key(h, t, cpu, f, &k);
	hash = key_hash(&k);
	if ((size_t)h->nr * 2 >= h->cap && table_grow(h))
		return NULL;
	j = hash & (h->cap - 1);
	while ((e = h->table[j])) {
		if (e->hash == hash && key_eq(&e->key, &k)) {
			if (h->srcpos && f->addr != e->e.frame.addr)
				e->e.many_addrs = true;
			return e;
		}
		j = (j + 1) & (h->cap - 1);
	}
	if (grow_array((void **)&h->entries, &h->alloc, h->nr + 1, sizeof(*h->entries)))
		return NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	if (h->opts.nr_members > 1 &&
	    !(e->e.member_self = calloc((size_t)h->opts.nr_members, sizeof(uint64_t)))) {
		free(e);
		return NULL;
	}
	e->key = k;
	e->hash = hash;
	e->e.hidden = h->hiding;
	e->e.comm = t->comm;
	e->e.thread = real;
	e->e.pid = t->pid;
	e->e.tid = t->tid;
	e->e.cpu = (int32_t)cpu;
	e->e.frame = *f;
	e->e.srcline = k.srcline;
	e->e.srcfile = k.srcfile;
	e->e.srcline_lazy = h->from_chain && !f->inline_level;
	h->table[j] = e;
	h->entries[h->nr++] = e;
	return e;
}

/*
 * What a call-tree node is merged by: perf's match_chain with the function
 * key, which falls back to the ip as recorded when there is no symbol. Not
 * the DSO-relative address: two processes of one stripped PIE put the same
 * offset at different ips, and perf keeps those apart (in the trees, and in
 * the entries children mode makes from chains).
 */
static uint64_t frame_ident(const struct pcl_frame *f)
{
	/* an inline frame: its function's own symbol (perf compares inlined ones by name) */
	if (f->inlined)
		return (uintptr_t)f->sym;
	return f->sym ? f->sym->start : f->ip;
}

static bool frame_same(const struct pcl_frame *a, const struct pcl_frame *b)
{
	const struct pcl_dso *da = a->map ? a->map->dso : NULL, *db = b->map ? b->map->dso : NULL;

	if (da != db || !a->sym != !b->sym || a->inlined != b->inlined)
		return false;
	return frame_ident(a) == frame_ident(b);
}

static uint64_t chain_hash(const struct hentry *self, const struct pcl_frame *f, size_t n)
{
	uint64_t x = hash_mix((uintptr_t)self, n);

	for (size_t i = 0; i < n; i++) {
		x = hash_mix(x, (uintptr_t)(f[i].map ? f[i].map->dso : NULL));
		x = hash_mix(x, frame_ident(&f[i]) ^ ((uint64_t)!f[i].sym << 63));
	}
	return x;
}

static bool chain_eq(const struct uchain *u, const struct hentry *self, const struct pcl_frame *f,
		     size_t n)
{
	if (u->self != self || u->n != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!frame_same(&u->frames[i], &f[i]))
			return false;
	return true;
}

/*
 * The srcline and srcfile keys of the entries a chain makes depend on each
 * frame's address, not just its function: such chains are one only if
 * their ips are the same too.
 */
static bool chain_ips_eq(const struct uchain *u, const struct pcl_frame *f)
{
	for (size_t i = 0; i < u->n; i++)
		if (u->frames[i].ip != f[i].ip)
			return false;
	return true;
}

static int chains_grow(struct pcl_hists *h)
{
	size_t ncap = h->cap_chains ? h->cap_chains * 2 : 1024;
	struct uchain **nt = calloc(ncap, sizeof(*nt));

	if (!nt)
		return -ENOMEM;
	for (size_t i = 0; i < h->cap_chains; i++) {
		size_t j;

		if (!h->chains[i])
			continue;
		j = h->chains[i]->hash & (ncap - 1);
		while (nt[j])
			j = (j + 1) & (ncap - 1);
		nt[j] = h->chains[i];
	}
	free(h->chains);
	h->chains = nt;
	h->cap_chains = ncap;
	return 0;
}

static int add_chain(struct pcl_hists *h, struct hentry *self, const struct pcl_frame *f, size_t n,
		     uint64_t id, uint64_t period)
{
	struct idslot *is = NULL;
	struct uchain *u;
	uint64_t hash;
	size_t j;

	if (id && !h->ids)
		h->ids = calloc(1u << IDS_BITS, sizeof(*h->ids)); /* NULL: hash the frames */
	if (id && h->ids) {
		is = &h->ids[hash_mix((uintptr_t)self, id) >> (64 - IDS_BITS)];
		if (is->self == self && is->id == id) {
			is->u->period += period;
			is->u->count++;
			return 0;
		}
	}
	hash = chain_hash(self, f, n);
	for (size_t i = 0; h->srcpos && i < n; i++)
		hash = hash_mix(hash, f[i].ip);
	if (h->nr_chains * 2 >= h->cap_chains && chains_grow(h))
		return -ENOMEM;
	j = hash & (h->cap_chains - 1);
	while ((u = h->chains[j])) {
		if (u->hash == hash && chain_eq(u, self, f, n) &&
		    (!h->srcpos || chain_ips_eq(u, f)))
			break;
		j = (j + 1) & (h->cap_chains - 1);
	}
	if (!u) {
		u = malloc(sizeof(*u) + n * sizeof(*f));
		if (!u)
			return -ENOMEM;
		u->self = self;
		u->hash = hash;
		u->period = u->count = 0;
		u->n = (uint32_t)n;
		if (n) /* a sample without a chain has f == NULL */
			memcpy(u->frames, f, n * sizeof(*f));
		if (h->nr_chains == h->alloc_order) {
			size_t na = h->alloc_order ? h->alloc_order * 2 : 1024;
			struct uchain **no = realloc(h->order, na * sizeof(*no));

			if (!no) {
				free(u);
				return -ENOMEM;
			}
			h->order = no;
			h->alloc_order = na;
		}
		h->chains[j] = u;
		h->order[h->nr_chains++] = u;
	}
	u->period += period;
	u->count++;
	if (is)
		*is = (struct idslot){ self, id, u };
	return 0;
}

PCL_API int pcl_hists__add_hidden(struct pcl_hists *h, const struct pcl_resolved *s,
				  uint32_t cpu, uint64_t period)
{
	int ret;

	if (!h)
		return pcl_err(EINVAL, "pcl_hists__add_hidden: invalid argument");
	h->hiding = true;
	ret = pcl_hists__add(h, s, cpu, period);
	h->hiding = false;
	return ret;
}

PCL_API int pcl_hists__add(struct pcl_hists *h, const struct pcl_resolved *s, uint32_t cpu,
			   uint64_t period)
{
	struct hentry *self;

	if (!h || !s)
		return pcl_err(EINVAL, "pcl_hists__add: invalid argument");
	self = entry_findnew(h, s->thread, cpu, &s->ip, s->thread);
	if (!self)
		return pcl_err(ENOMEM, "pcl_hists__add: out of memory");
	self->e.self += period;
	self->e.nr_samples++;
	if (self->e.member_self)
		self->e.member_self[0] += period;
	h->total_period += period;
	h->nr_samples++;
	if (!h->opts.children && !h->opts.callchain)
		return 0;
	if (!h->opts.children && !s->nr_chain)
		return 0;
	return add_chain(h, self, s->chain, s->nr_chain, s->chain_id, period);
}

/* ---- finishing: children periods and call trees ---- */

PCL_API int pcl_hists__add_member(struct pcl_hists *h, const struct pcl_resolved *s, uint32_t cpu,
				  uint64_t period, int member)
{
	struct hentry *e;

	if (!h || member < 0 || member >= h->opts.nr_members || h->opts.nr_members < 2)
		return pcl_err(EINVAL, "pcl_hists__add_member: invalid argument");
	if (!member)
		return pcl_hists__add(h, s, cpu, period);
	e = entry_findnew(h, s->thread, cpu, &s->ip, s->thread);
	if (!e)
		return pcl_err(ENOMEM, "pcl_hists__add_member: out of memory");
	e->e.member_self[member] += period;
	return 0;
}

/*
 * Children are found through one index of every node made while the trees
 * grow, by (parent, frame identity): a node can have thousands of children
 * (frames with no symbol are one child per address), too many to scan.
 */
static uint64_t node_hash(const struct pcl_callnode *parent, const struct pcl_frame *f)
{
	uint64_t x = hash_mix((uintptr_t)parent, (uintptr_t)(f->map ? f->map->dso : NULL));

	return hash_mix(x, frame_ident(f) ^ ((uint64_t)!f->sym << 63));
}

static int nodes_grow(struct pcl_hists *h)
{
	size_t ncap = h->cap_nodes ? h->cap_nodes * 2 : 4096;
	struct pcl_callnode **nt = calloc(ncap, sizeof(*nt));

	if (!nt)
		return -ENOMEM;
	for (size_t i = 0; i < h->cap_nodes; i++) {
		struct pcl_callnode *c = h->nodes[i];
		size_t j;

		if (!c)
			continue;
		j = node_hash(c->parent, &c->frame) & (ncap - 1);
		while (nt[j])
			j = (j + 1) & (ncap - 1);
		nt[j] = c;
	}
	free(h->nodes);
	h->nodes = nt;
	h->cap_nodes = ncap;
	return 0;
}

static struct pcl_callnode *child_findnew(struct pcl_hists *h, struct pcl_callnode *parent,
					  const struct pcl_frame *f)
{
	struct pcl_callnode *c = parent->hint;
	size_t j;

	if (c && frame_same(&c->frame, f))
		return c;
	if (h->nr_nodes * 2 >= h->cap_nodes && nodes_grow(h))
		return NULL;
	j = node_hash(parent, f) & (h->cap_nodes - 1);
	for (; (c = h->nodes[j]); j = (j + 1) & (h->cap_nodes - 1))
		if (c->parent == parent && frame_same(&c->frame, f))
			return parent->hint = c;
	c = node_new(h);
	if (!c)
		return NULL;
	c->frame = *f;
	c->parent = parent;
	c->next = parent->first;
	parent->first = c;
	parent->hint = c;
	h->nodes[j] = c;
	h->nr_nodes++;
	return c;
}

/* Append the path @f[0..n) (in display order) with @period to @e's tree. */
static int tree_add(struct pcl_hists *h, struct pcl_hist_entry *e, const struct pcl_frame *const *f,
		    size_t n, uint64_t period, uint64_t count)
{
	struct pcl_callnode *node;

	if (!e->root && !(e->root = node_new(h)))
		return -ENOMEM;
	node = e->root;
	node->total += period;
	node->count += count;
	for (size_t i = 0; i < n; i++) {
		node = child_findnew(h, node, f[i]);
		if (!node)
			return -ENOMEM;
		node->total += period;
		node->count += count;
	}
	node->self += period;
	return 0;
}

/*
 * A thread-like view of a self entry, to make the entries of its chain's
 * frames. @level: what perf's entry for a frame in no map shows, the level
 * of the frame before it in the chain's display order that has a map (or
 * of the sample): perf fills one location frame by frame, and a frame in
 * no map leaves its level as it was.
 */
static struct hentry *frame_entry(struct pcl_hists *h, const struct hentry *self,
				  const struct pcl_frame *f, char level)
{
	struct pcl_thread t = { .pid = self->e.pid, .tid = self->e.tid, .comm = self->e.comm };
	struct pcl_frame raw = *f;
	struct hentry *e;

	/* perf's entries made from a chain keep the ip itself as their address */
	raw.addr = f->ip;
	if (!f->map)
		raw.level = level;
	/* and those of a sample the filters left out stay hidden */
	h->hiding = self->e.hidden;
	h->from_chain = true;
	e = entry_findnew(h, &t, (uint32_t)self->e.cpu, &raw, self->e.thread);
	h->hiding = false;
	h->from_chain = false;
	return e;
}

/* The cursor: the chain in display order. */
static void chain_path(const struct pcl_hists *h, const struct uchain *u,
		       const struct pcl_frame **path)
{
	size_t n = u->n;

	for (size_t i = 0; i < n; i++)
		path[i] = &u->frames[h->opts.caller_order ? n - 1 - i : i];
}

/* Pass 1: children periods and tree depths, each entry once per chain. */
static int credit_chain(struct pcl_hists *h, struct uchain *u, uint32_t stamp,
			const struct pcl_frame **path)
{
	size_t n = u->n;
	char level = u->self->e.frame.level;

	if (n > u->self->e.max_depth)
		u->self->e.max_depth = (uint32_t)n;
	if (!h->opts.children)
		return 0;
	u->self->stamp = stamp;
	u->self->e.children += u->period;
	for (size_t p = 0; p < n; p++) {
		struct hentry *e;

		if (path[p]->map)
			level = path[p]->level;
		e = frame_entry(h, u->self, path[p], level);

		if (!e)
			return -ENOMEM;
		if (e->stamp == stamp)
			continue; /* recursion: each entry once per sample */
		e->stamp = stamp;
		e->e.children += u->period;
		if (n - p > e->e.max_depth)
			e->e.max_depth = (uint32_t)(n - p);
	}
	return 0;
}

static uint64_t entry_weight(const struct pcl_hists *h, const struct hentry *e)
{
	return h->opts.children ? e->e.children : e->e.self;
}

/*
 * Pass 2: the trees, for the entries heavy enough to show a branch: no
 * branch of an entry weighs more than the entry, so lighter ones need none.
 */
static int grow_trees(struct pcl_hists *h, struct uchain *u, uint32_t stamp,
		      const struct pcl_frame **path, uint64_t min)
{
	size_t n = u->n;

	if (n && entry_weight(h, u->self) >= min &&
	    tree_add(h, &u->self->e, path, n, u->period, u->count))
		return -ENOMEM;
	if (!h->opts.children)
		return 0;
	u->self->stamp = stamp;
	for (size_t p = 0; p < n; p++) {
		/* the entry exists (credit_chain made it): its level does not matter */
		struct hentry *e = frame_entry(h, u->self, path[p], path[p]->level);

		if (!e)
			return -ENOMEM;
		if (e->stamp == stamp)
			continue;
		e->stamp = stamp;
		if (entry_weight(h, e) >= min &&
		    tree_add(h, &e->e, path + p, n - p, u->period, u->count))
			return -ENOMEM;
	}
	return 0;
}

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
	return a > b ? -1 : a < b;
}

static int cmp_str(const char *a, const char *b)
{
	if (a == b)
		return 0;
	if (!a || !b)
		return a ? 1 : -1;
	return strcmp(a, b);
}

static int entry_cmp(const void *pa, const void *pb, void *arg)
{
	const struct hentry *a = *(struct hentry *const *)pa, *b = *(struct hentry *const *)pb;
	const struct pcl_hists *h = arg;
	int c;

	if (h->opts.children) {
		if ((c = cmp_u64_desc(a->e.children, b->e.children)))
			return c;
		/* perf puts callers above their callees: deeper trees first (caller order) */
		if (h->opts.callchain && a->e.max_depth != b->e.max_depth) {
			c = a->e.max_depth > b->e.max_depth ? -1 : 1;
			return h->opts.caller_order ? c : -c;
		}
	}
	if ((c = cmp_u64_desc(a->e.self, b->e.self)))
		return c;
	for (int i = 1; a->e.member_self && i < h->opts.nr_members; i++)
		if ((c = cmp_u64_desc(a->e.member_self[i], b->e.member_self[i])))
			return c;
	for (int i = 0; i < h->opts.nr_keys; i++) {
		switch (h->opts.keys[i]) {
		case PCL_SORT_COMM:
			c = cmp_str(a->e.comm, b->e.comm);
			break;
		case PCL_SORT_DSO:
			c = cmp_str(a->key.dso, b->key.dso);
			break;
		case PCL_SORT_SYM:
			if (a->e.frame.sym && b->e.frame.sym)
				c = strcmp(a->e.frame.sym->name, b->e.frame.sym->name);
			else if (a->e.frame.sym || b->e.frame.sym)
				c = a->e.frame.sym ? -1 : 1;
			else
				c = a->key.addr < b->key.addr ? -1 : a->key.addr > b->key.addr;
			break;
		case PCL_SORT_PID:
		case PCL_SORT_TID:
			c = a->e.tid - b->e.tid;
			break;
		case PCL_SORT_CPU:
			c = a->e.cpu - b->e.cpu;
			break;
		case PCL_SORT_SRCLINE:
			c = cmp_str(a->e.srcline, b->e.srcline);
			break;
		case PCL_SORT_SRCFILE:
			c = cmp_str(a->e.srcfile, b->e.srcfile);
			break;
		default:
			c = 0;
		}
		if (c)
			return c;
	}
	return 0;
}

struct node_pos {
	struct pcl_callnode *n;
	size_t pos; /* creation order, for ties */
};

static int node_cmp(const void *pa, const void *pb)
{
	const struct node_pos *a = pa, *b = pb;
	int c = cmp_u64_desc(a->n->total, b->n->total);

	return c ? c : (a->pos > b->pos) - (a->pos < b->pos);
}

/*
 * Children heaviest first; ties keep the order they were made in. Nodes
 * lighter than @min are never shown, nor is anything under them: their
 * children stay unsorted.
 */
static void sort_tree(struct pcl_callnode *n, uint64_t min)
{
	struct node_pos v[32], *arr = v;
	struct pcl_callnode *c;
	size_t k = 0;

	for (c = n->first; c; c = c->next)
		k++;
	if (k == 1) { /* most nodes: a chain goes on */
		if (n->first->total >= min)
			sort_tree(n->first, min);
		return;
	}
	if (k > 32 && !(arr = malloc(k * sizeof(*arr))))
		return;
	/* made newest first: the list runs against creation order */
	c = n->first;
	for (size_t i = 0; i < k; i++, c = c->next)
		arr[i] = (struct node_pos){ c, k - 1 - i };
	if (k <= 32) { /* insertion sort: no call per comparison */
		for (size_t i = 1; i < k; i++) {
			struct node_pos x = arr[i];
			size_t j = i;

			for (; j && node_cmp(&x, &arr[j - 1]) < 0; j--)
				arr[j] = arr[j - 1];
			arr[j] = x;
		}
	} else {
		qsort(arr, k, sizeof(*arr), node_cmp);
	}
	n->first = k ? arr[0].n : NULL;
	for (size_t i = 0; i < k; i++) {
		arr[i].n->next = i + 1 < k ? arr[i + 1].n : NULL;
		if (arr[i].n->total >= min)
			sort_tree(arr[i].n, min);
	}
	if (arr != v)
		free(arr);
}

PCL_API void pcl_hists__finish(struct pcl_hists *h)
{
	uint32_t stamp = 0;
	const struct pcl_frame **path = NULL;
	size_t path_alloc = 0;
	uint64_t min = 0;

	if (!h)
		return;
	/* in sample order: an entry takes its looks from the first sample that made it */
	for (size_t i = 0; i < h->nr_chains; i++) {
		struct uchain *u = h->order[i];

		if (u->n > path_alloc) {
			const struct pcl_frame **np = realloc(path, u->n * 2 * sizeof(*np));

			if (!np)
				goto out;
			path = np;
			path_alloc = u->n * 2;
		}
		chain_path(h, u, path);
		if (credit_chain(h, u, ++stamp, path))
			goto out;
	}
	min = (uint64_t)((double)h->total_period * h->opts.tree_min_percent / 100.0);
	for (size_t i = 0; h->opts.callchain && i < h->nr_chains; i++) {
		struct uchain *u = h->order[i];

		chain_path(h, u, path);
		if (grow_trees(h, u, ++stamp, path, min))
			break;
	}
out:
	free(path);
	free(h->nodes);
	h->nodes = NULL;
	h->nr_nodes = h->cap_nodes = 0;
	if (h->nr) /* no entries: h->entries is NULL, which qsort_r must not get */
		qsort_r(h->entries, (size_t)h->nr, sizeof(*h->entries), entry_cmp, h);
	for (int i = 0; i < h->nr; i++)
		if (h->entries[i]->e.root)
			sort_tree(h->entries[i]->e.root, min);
}

PCL_API size_t pcl_hists__nr_entries(const struct pcl_hists *h)
{
	return h ? (size_t)h->nr : 0;
}

PCL_API const struct pcl_hist_entry *pcl_hists__entry(const struct pcl_hists *h, size_t i)
{
	return h && i < (size_t)h->nr ? &h->entries[i]->e : NULL;
}

PCL_API uint64_t pcl_hists__total_period(const struct pcl_hists *h)
{
	return h ? h->total_period : 0;
}

PCL_API uint64_t pcl_hists__nr_samples(const struct pcl_hists *h)
{
	return h ? h->nr_samples : 0;
}

static const struct {
	const char *name;
	enum pcl_sort_key key;
} sort_names[] = {
	{ "comm", PCL_SORT_COMM },	 { "dso", PCL_SORT_DSO },
	{ "sym", PCL_SORT_SYM },	 { "symbol", PCL_SORT_SYM },
	{ "pid", PCL_SORT_PID },	 { "tid", PCL_SORT_TID },
	{ "cpu", PCL_SORT_CPU },	 { "srcline", PCL_SORT_SRCLINE },
	{ "srcfile", PCL_SORT_SRCFILE },
};

PCL_API int pcl_sort_keys_parse(const char *s, enum pcl_sort_key *keys, int max)
{
	int n = 0;

	if (!s || !keys)
		return pcl_err(EINVAL, "pcl_sort_keys_parse: invalid argument");
	while (*s) {
		size_t len = strcspn(s, ",");
		bool found = false;

		for (size_t i = 0; i < ARRAY_SIZE(sort_names) && len; i++)
			if (strlen(sort_names[i].name) == len && !strncmp(s, sort_names[i].name, len)) {
				if (n >= max)
					return pcl_err(EINVAL, "too many sort keys");
				keys[n++] = sort_names[i].key;
				found = true;
			}
		if (!found)
			return pcl_err(EINVAL,
				       "unknown sort key '%.*s' (known: comm, dso, sym, pid, tid, "
				       "cpu, srcline, srcfile)",
				       (int)len, s);
		s += len;
		if (*s == ',')
			s++;
	}
	return n ? n : pcl_err(EINVAL, "no sort key given");
}
