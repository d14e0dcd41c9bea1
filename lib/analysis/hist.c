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
 * to credit the children periods, and grows the trees from them (in
 * children mode, by merging each sampled entry's chains first: see
 * grow_children_trees).
 */
#include <regex.h>
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
	const struct pcl_symbol *parent;  /* the parent key's */
};

struct hentry {
	struct pcl_hist_entry e;
	struct hkey key;
	uint64_t hash;
	uint32_t stamp; /* the unique chain that last credited it (children mode) */
	/* children trees (pass 2): */
	uint32_t on_path; /* its frames among the nodes above the one being walked */
	struct pcl_callnode *chains_root; /* every chain of this self entry, as a tree */
	size_t sources;			  /* its tree's sources (struct links) */
	bool cut; /* hidden by pcl_hists__hide_after, not by a filter */
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
	struct node_chunk *chain_chunks; /* the chains_root trees, freed when finished */
	struct pcl_callnode **nodes;	 /* open addressing: every tree node, while finishing */
	size_t nr_nodes, cap_nodes;
	struct uchain **order; /* the unique chains in the order samples first had them */
	size_t alloc_order;
	uint64_t total_period, nr_samples;
	bool hiding; /* entries made now are hidden (the sample adding them was filtered) */
	bool from_chain; /* entries made now come from a chain's frames */
	struct srcpos_cache *srcpos; /* with the srcline or srcfile key */
	regex_t parent_re;	     /* with the parent key */
	bool has_parent_re;
	const struct pcl_symbol *cur_parent; /* the parent of the sample whose entries are made */
	/* entries the last pcl_hists__decay dropped: readable until the next one */
	struct hentry **grave;
	int nr_grave, alloc_grave;
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
	if (!h->opts.nr_keys && !h->opts.nr_order) {
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
	if (h->key_on[PCL_SORT_PARENT]) {
		const char *re =
			h->opts.parent_regex ? h->opts.parent_regex : "^sys_|^do_page_fault";

		if (regcomp(&h->parent_re, re, REG_EXTENDED | REG_NOSUB)) {
			free(h);
			return pcl_err_null(EINVAL, "bad parent regex '%s'", re);
		}
		h->has_parent_re = true;
	}
	if ((h->key_on[PCL_SORT_SRCLINE] || h->key_on[PCL_SORT_SRCFILE]) &&
	    !(h->srcpos = srcpos_cache__new(h->opts.symbols, h->opts.full_source_path))) {
		free(h);
		return pcl_err_null(ENOMEM, "pcl_hists__new: out of memory");
	}
	return h;
}

/*
 * Tree nodes are many and die together: they come from chunks of the hists.
 * Each carries the index (in h->order) of the first unique chain that went
 * through it: siblings of equal weight are shown in that order.
 */
#define NODES_PER_CHUNK 4096

/* What frame_same compares, taken once (fkey_of). */
struct fkey {
	uintptr_t dso;
	uint64_t ident; /* frame_ident */
	bool nosym, inlined;
};

struct xnode {
	struct pcl_callnode n; /* first: a node's address is its xnode's */
	uint32_t seq;
	uint32_t nr_children;
	struct fkey key; /* of n.frame */
};

struct node_chunk {
	struct node_chunk *next;
	size_t used;
	struct xnode nodes[NODES_PER_CHUNK];
};

static uint32_t node_seq(const struct pcl_callnode *n)
{
	return ((const struct xnode *)n)->seq;
}

static struct pcl_callnode *node_new(struct node_chunk **chunks, uint32_t seq)
{
	struct node_chunk *c = *chunks;

	if (!c || c->used == NODES_PER_CHUNK) {
		c = malloc(sizeof(*c));
		if (!c)
			return NULL;
		c->next = *chunks;
		c->used = 0;
		*chunks = c;
	}
	memset(&c->nodes[c->used], 0, sizeof(c->nodes[0]));
	c->nodes[c->used].seq = seq;
	return &c->nodes[c->used++].n;
}

static void chunks_free(struct node_chunk **chunks)
{
	while (*chunks) {
		struct node_chunk *c = *chunks;

		*chunks = c->next;
		free(c);
	}
}

PCL_API void pcl_hists__free(struct pcl_hists *h)
{
	if (!h)
		return;
	chunks_free(&h->node_chunks);
	chunks_free(&h->chain_chunks);
	for (int i = 0; i < h->nr; i++) {
		free(h->entries[i]->e.member_self);
		free(h->entries[i]);
	}
	for (int i = 0; i < h->nr_grave; i++) {
		free(h->grave[i]->e.member_self);
		free(h->grave[i]);
	}
	free(h->grave);
	for (size_t i = 0; i < h->cap_chains; i++)
		free(h->chains[i]);
	free(h->chains);
	free(h->ids);
	free(h->order);
	free(h->entries);
	free(h->table);
	srcpos_cache__free(h->srcpos);
	if (h->has_parent_re)
		regfree(&h->parent_re);
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
	if (h->key_on[PCL_SORT_PARENT])
		k->parent = h->cur_parent;
}

static uint64_t key_hash(const struct hkey *k)
{
	uint64_t x = hash_mix(0, (uintptr_t)k->comm);

	x = hash_mix(x, (uintptr_t)k->dso);
	x = hash_mix(x, ((uint64_t)(uint32_t)k->tid << 32) | (uint32_t)k->cpu);
	x = hash_mix(x, k->has_sym ? k->sym_start : k->addr);
	x = hash_mix(x, (uintptr_t)k->inlined ^ (uintptr_t)k->srcline ^ (uintptr_t)k->srcfile ^
				(uintptr_t)k->parent);
	return hash_mix(x, k->sym_end);
}

static bool key_eq(const struct hkey *a, const struct hkey *b)
{
	return a->comm == b->comm && a->dso == b->dso && a->tid == b->tid && a->cpu == b->cpu &&
	       a->has_sym == b->has_sym && a->sym_start == b->sym_start &&
	       a->sym_end == b->sym_end && a->addr == b->addr && a->inlined == b->inlined &&
	       a->srcline == b->srcline && a->srcfile == b->srcfile && a->parent == b->parent;
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
	    !(e->e.member_self = calloc((size_t)h->opts.nr_members * 4, sizeof(uint64_t)))) {
		free(e);
		return NULL;
	}
	if (e->e.member_self) {
		e->e.member_samples = e->e.member_self + h->opts.nr_members;
		e->e.member_sys = e->e.member_samples + h->opts.nr_members;
		e->e.member_us = e->e.member_sys + h->opts.nr_members;
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
	e->e.parent = k.parent;
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
	/* the cheap tests first: the maps' DSOs are a load further away */
	if (!a->sym != !b->sym || a->inlined != b->inlined || frame_ident(a) != frame_ident(b))
		return false;
	return (a->map ? a->map->dso : NULL) == (b->map ? b->map->dso : NULL);
}

static struct fkey fkey_of(const struct pcl_frame *f)
{
	return (struct fkey){ (uintptr_t)(f->map ? f->map->dso : NULL), frame_ident(f), !f->sym,
			      f->inlined };
}

static bool fkey_eq(const struct fkey *a, const struct fkey *b)
{
	return a->ident == b->ident && a->dso == b->dso && a->nosym == b->nosym &&
	       a->inlined == b->inlined;
}

static const struct fkey *node_key(const struct pcl_callnode *n)
{
	return &((const struct xnode *)n)->key;
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

/* perf's parent: the first symbol of the chain, in the order shown, that the regex matches */
static const struct pcl_symbol *find_parent(const struct pcl_hists *h, const struct pcl_resolved *s)
{
	for (size_t i = 0; i < s->nr_chain; i++) {
		const struct pcl_frame *f =
			&s->chain[h->opts.caller_order ? s->nr_chain - 1 - i : i];

		if (f->sym && !regexec(&h->parent_re, f->sym->name, 0, NULL, 0))
			return f->sym;
	}
	return NULL;
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

static void member_add(struct pcl_hist_entry *e, int m, const struct pcl_resolved *s,
		       uint64_t period)
{
	e->member_self[m] += period;
	e->member_samples[m]++;
	if (s->ip.level == 'k')
		e->member_sys[m] += period;
	else if (s->ip.level == '.')
		e->member_us[m] += period;
}

PCL_API int pcl_hists__add(struct pcl_hists *h, const struct pcl_resolved *s, uint32_t cpu,
			   uint64_t period)
{
	struct hentry *self;

	if (!h || !s)
		return pcl_err(EINVAL, "pcl_hists__add: invalid argument");
	if (h->has_parent_re)
		h->cur_parent = find_parent(h, s);
	self = entry_findnew(h, s->thread, cpu, &s->ip, s->thread);
	if (!self)
		return pcl_err(ENOMEM, "pcl_hists__add: out of memory");
	self->e.self += period;
	self->e.nr_samples++;
	if (s->ip.level == 'k')
		self->e.period_sys += period;
	else if (s->ip.level == '.')
		self->e.period_us += period;
	if (self->e.member_self)
		member_add(&self->e, 0, s, period);
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
	if (h->has_parent_re)
		h->cur_parent = find_parent(h, s);
	e = entry_findnew(h, s->thread, cpu, &s->ip, s->thread);
	if (!e)
		return pcl_err(ENOMEM, "pcl_hists__add_member: out of memory");
	member_add(&e->e, member, s, period);
	return 0;
}

/*
 * Children are found by scanning a node's list while it is short (most
 * nodes have one child), and through one index by (parent, frame identity)
 * once a node has more than WIDE: a node can have thousands of children
 * (frames with no symbol are one child per address), too many to scan.
 */
#define WIDE 8

static uint64_t node_hash(const struct pcl_callnode *parent, const struct pcl_frame *f)
{
	uint64_t x = hash_mix((uintptr_t)parent, (uintptr_t)(f->map ? f->map->dso : NULL));

	return hash_mix(x, frame_ident(f) ^ ((uint64_t)!f->sym << 63));
}

static void nodes_insert(struct pcl_callnode **t, size_t cap, struct pcl_callnode *c)
{
	size_t j = node_hash(c->parent, &c->frame) & (cap - 1);

	while (t[j])
		j = (j + 1) & (cap - 1);
	t[j] = c;
}

/* Room in the index for @more nodes. */
static int nodes_reserve(struct pcl_hists *h, size_t more)
{
	size_t ncap = h->cap_nodes ? h->cap_nodes : 4096;
	struct pcl_callnode **nt;

	while ((h->nr_nodes + more) * 2 >= ncap)
		ncap *= 2;
	if (ncap == h->cap_nodes)
		return 0;
	nt = calloc(ncap, sizeof(*nt));
	if (!nt)
		return -ENOMEM;
	for (size_t i = 0; i < h->cap_nodes; i++)
		if (h->nodes[i])
			nodes_insert(nt, ncap, h->nodes[i]);
	free(h->nodes);
	h->nodes = nt;
	h->cap_nodes = ncap;
	return 0;
}

static struct pcl_callnode *child_find(const struct pcl_hists *h, struct pcl_callnode *parent,
				       const struct pcl_frame *f, const struct fkey *k)
{
	struct pcl_callnode *c = parent->hint;

	if (c && fkey_eq(node_key(c), k))
		return c;
	if (((struct xnode *)parent)->nr_children <= WIDE) {
		for (c = parent->first; c; c = c->next)
			if (fkey_eq(node_key(c), k))
				return parent->hint = c;
		return NULL;
	}
	for (size_t j = node_hash(parent, f) & (h->cap_nodes - 1); (c = h->nodes[j]);
	     j = (j + 1) & (h->cap_nodes - 1))
		if (c->parent == parent && fkey_eq(node_key(c), k))
			return parent->hint = c;
	return NULL;
}

/* The child of @parent for @f, made (from @chunks, first seen by chain @seq) if new. */
static struct pcl_callnode *child_findnew(struct pcl_hists *h, struct node_chunk **chunks,
					  struct pcl_callnode *parent, const struct pcl_frame *f,
					  uint32_t seq)
{
	struct xnode *xp = (struct xnode *)parent;
	struct fkey k = fkey_of(f);
	struct pcl_callnode *c = child_find(h, parent, f, &k);

	if (c)
		return c;
	/* the index takes the children of a node that gets wide, and all it gets after */
	if (xp->nr_children >= WIDE && nodes_reserve(h, xp->nr_children == WIDE ? WIDE + 1 : 1))
		return NULL;
	c = node_new(chunks, seq);
	if (!c)
		return NULL;
	((struct xnode *)c)->key = k;
	c->frame = *f;
	c->parent = parent;
	c->next = parent->first;
	parent->first = c;
	parent->hint = c;
	if (++xp->nr_children == WIDE + 1) {
		for (struct pcl_callnode *sib = c; sib; sib = sib->next)
			nodes_insert(h->nodes, h->cap_nodes, sib);
		h->nr_nodes += WIDE + 1;
	} else if (xp->nr_children > WIDE) {
		nodes_insert(h->nodes, h->cap_nodes, c);
		h->nr_nodes++;
	}
	return c;
}

/*
 * Append the path @f[0..n) (in display order) of unique chain @seq, with
 * @period, to the tree at @root (made from @chunks if there is none yet).
 */
static int tree_add(struct pcl_hists *h, struct node_chunk **chunks, struct pcl_callnode **root,
		    const struct pcl_frame *const *f, size_t n, uint64_t period, uint64_t count,
		    uint32_t seq)
{
	struct pcl_callnode *node;

	if (!*root && !(*root = node_new(chunks, seq)))
		return -ENOMEM;
	node = *root;
	node->total += period;
	node->count += count;
	for (size_t i = 0; i < n; i++) {
		node = child_findnew(h, chunks, node, f[i], seq);
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
	h->cur_parent = self->e.parent; /* perf: a chain's entries are the sample's parent's */
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
 * Pass 2 chain by chain, for the entries heavy enough to show a branch (no
 * branch of an entry weighs more than the entry): without children (the
 * sampled entries' trees), and with the srcline or srcfile key, where the
 * entry a chain's frame makes depends on its address, which the merged
 * trees of grow_children_trees do not keep apart.
 */
static int grow_trees(struct pcl_hists *h, struct uchain *u, uint32_t seq, uint32_t stamp,
		      const struct pcl_frame **path, uint64_t min)
{
	size_t n = u->n;

	if (n && entry_weight(h, u->self) >= min &&
	    tree_add(h, &h->node_chunks, &u->self->e.root, path, n, u->period, u->count, seq))
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
		if (entry_weight(h, e) >= min && tree_add(h, &h->node_chunks, &e->e.root, path + p,
							  n - p, u->period, u->count, seq))
			return -ENOMEM;
	}
	return 0;
}

/*
 * Pass 2 in children mode. The tree of an entry is, for each unique chain
 * it is on, the chain from that entry's frame down (from its first frame
 * in display order, once per chain), or the whole chain if it is the
 * sample's own entry. Adding chain by chain costs the chain's length for
 * every entry on it: depth^2 per unique chain, most of a report's time on
 * deep stacks, and it makes every node of every tree when most weigh too
 * little to be shown.
 *
 * Instead, the unique chains of each self entry are first merged into one
 * tree (chains_root: common callers shared). An entry's tree is then the
 * merge of the subtrees of those trees rooted at the entry's first frames
 * (its sources), done top down: the sources' nodes for one frame make one
 * node, and only a node heavy enough to be shown (at least min) gets
 * children. A lighter one is kept, childless, with its sums: the graph
 * reads the weights and counts of all of a shown node's children, never
 * anything under one too light to show (analysis.h: tree_min_percent).
 *
 * What is built is node for node what adding each chain gives: a node's
 * total, count and self are the sums over the chains through it, and its
 * frame and its place among equal siblings those of the first chain (in
 * sample order) through it: the lowest seq of its sources.
 */
/* A node of a chains_root tree with what frame_same compares, to sort by. */
struct src {
	struct fkey key;
	uint32_t seq;
	const struct pcl_callnode *x;
};

struct srcs {
	struct src *v;
	int n, alloc;
};

static int srcs_push(struct srcs *s, const struct pcl_callnode *x)
{
	if (grow_array((void **)&s->v, &s->alloc, s->n + 1, sizeof(*s->v)))
		return -ENOMEM;
	s->v[s->n++] = (struct src){ *node_key(x), node_seq(x), x };
	return 0;
}

static bool src_same(const struct src *a, const struct src *b)
{
	return fkey_eq(&a->key, &b->key);
}

/* The order frame_same groups by: DSO, symbol or not, inline or not, identity; then seq. */
static int src_cmp(const struct src *a, const struct src *b)
{
	if (a->key.dso != b->key.dso)
		return a->key.dso < b->key.dso ? -1 : 1;
	if (a->key.nosym != b->key.nosym)
		return a->key.nosym ? 1 : -1;
	if (a->key.inlined != b->key.inlined)
		return a->key.inlined ? 1 : -1;
	if (a->key.ident != b->key.ident)
		return a->key.ident < b->key.ident ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

static int src_qcmp(const void *a, const void *b)
{
	return src_cmp(a, b);
}

static void srcs_sort(struct src *v, size_t n)
{
	if (n > 16) {
		qsort(v, n, sizeof(*v), src_qcmp);
		return;
	}
	for (size_t i = 1; i < n; i++) { /* few: insertion sort */
		struct src x = v[i];
		size_t j = i;

		for (; j && src_cmp(&x, &v[j - 1]) < 0; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* The children of @dst from the sources @s->v[base..base+n), sorted by src_cmp here. */
static int build_level(struct pcl_hists *h, struct srcs *s, struct pcl_callnode *dst, int base,
		       int n, uint64_t min)
{
	int end = base + n;

	srcs_sort(s->v + base, (size_t)n);
	for (int i = base, j; i < end; i = j) {
		const struct pcl_callnode *x = s->v[i].x; /* the group's lowest seq */
		struct pcl_callnode *c = node_new(&h->node_chunks, s->v[i].seq);
		int top = s->n;

		if (!c)
			return -ENOMEM;
		((struct xnode *)c)->key = s->v[i].key;
		c->frame = x->frame;
		c->parent = dst;
		c->next = dst->first;
		dst->first = c;
		for (j = i; j < end && src_same(&s->v[j], &s->v[i]); j++) {
			c->total += s->v[j].x->total;
			c->count += s->v[j].x->count;
			c->self += s->v[j].x->self;
		}
		if (c->total < min)
			continue;
		for (int k = i; k < j; k++)
			for (const struct pcl_callnode *y = s->v[k].x->first; y; y = y->next)
				if (srcs_push(s, y))
					return -ENOMEM;
		if (s->n > top && build_level(h, s, c, top, s->n - top, min))
			return -ENOMEM;
		s->n = top;
	}
	return 0;
}

/* The sources of every entry's tree: a list per entry (hentry.sources), linked by index. */
struct links {
	struct link {
		const struct pcl_callnode *x;
		size_t next; /* 1 + index of the entry's next source; 0: none */
	} * v;
	int n, alloc;
};

/*
 * Walk @self's chains_root tree below @x, noting each node that is the
 * first frame of an entry (on no node above it, and not @self) as a source
 * of that entry's tree, if it is heavy enough to have one.
 */
static int walk_chains(struct pcl_hists *h, struct hentry *self, const struct pcl_callnode *x,
		       uint64_t min, struct links *l)
{
	for (const struct pcl_callnode *c = x->first; c; c = c->next) {
		/* the entry exists (credit_chain made it): its level does not matter */
		struct hentry *e = frame_entry(h, self, &c->frame, c->frame.level);

		if (!e)
			return -ENOMEM;
		if (e != self && !e->on_path && entry_weight(h, e) >= min) {
			if (grow_array((void **)&l->v, &l->alloc, l->n + 1, sizeof(*l->v)))
				return -ENOMEM;
			l->v[l->n] = (struct link){ c, e->sources };
			e->sources = (size_t)++l->n;
		}
		e->on_path++;
		if (walk_chains(h, self, c, min, l))
			return -ENOMEM;
		e->on_path--;
	}
	return 0;
}

/* @e's tree from its sources: its own chains (if it is a sample's entry) and @l's. */
static int build_tree(struct pcl_hists *h, struct hentry *e, const struct links *l, struct srcs *s,
		      uint64_t min)
{
	const struct pcl_callnode *own = e->chains_root;
	struct pcl_callnode *root;

	if (!e->sources && !own)
		return 0;
	root = node_new(&h->node_chunks, 0);
	if (!root)
		return -ENOMEM;
	e->e.root = root;
	s->n = 0;
	if (own) {
		root->total += own->total;
		root->count += own->count;
		for (const struct pcl_callnode *c = own->first; c; c = c->next)
			if (srcs_push(s, c))
				return -ENOMEM;
	}
	for (size_t i = e->sources; i; i = l->v[i - 1].next) {
		const struct pcl_callnode *x = l->v[i - 1].x;

		root->total += x->total;
		root->count += x->count;
		if (srcs_push(s, x))
			return -ENOMEM;
	}
	return s->n ? build_level(h, s, root, 0, s->n, min) : 0;
}

static int grow_children_trees(struct pcl_hists *h, const struct pcl_frame **path, uint64_t min)
{
	struct links l = { 0 };
	struct srcs s = { 0 };
	int ret = 0;

	for (size_t i = 0; i < h->nr_chains; i++) {
		struct uchain *u = h->order[i];

		if (!u->n)
			continue;
		chain_path(h, u, path);
		if (tree_add(h, &h->chain_chunks, &u->self->chains_root, path, u->n, u->period,
			     u->count, (uint32_t)i))
			return -ENOMEM;
	}
	for (int i = 0; i < h->nr && !ret; i++)
		if (h->entries[i]->chains_root)
			ret = walk_chains(h, h->entries[i], h->entries[i]->chains_root, min, &l);
	for (int i = 0; i < h->nr && !ret; i++)
		if (entry_weight(h, h->entries[i]) >= min)
			ret = build_tree(h, h->entries[i], &l, &s, min);
	free(l.v);
	free(s.v);
	return ret;
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

static int key_cmp(const struct hentry *a, const struct hentry *b, enum pcl_sort_key k);

/*
 * Equal children totals: perf puts callers above their callees, deeper
 * trees first (caller order), but only between two entries of one thread
 * (the thread of each entry's first sample); entries of two threads go by
 * their self overhead and keys, as in perf.
 */
static int depth_cmp(const struct pcl_hists *h, const struct hentry *a, const struct hentry *b)
{
	int c;

	if (!h->opts.callchain || a->e.max_depth == b->e.max_depth)
		return 0;
	if (a->e.pid != b->e.pid || a->e.tid != b->e.tid)
		return 0;
	c = a->e.max_depth > b->e.max_depth ? -1 : 1;
	return h->opts.caller_order ? c : -c;
}

/* the leader's value, then (a group) the other members' */
static int members_cmp(const struct pcl_hists *h, uint64_t a, uint64_t b, const uint64_t *ma,
		       const uint64_t *mb)
{
	int c = cmp_u64_desc(a, b);

	for (int i = 1; !c && ma && mb && i < h->opts.nr_members; i++)
		c = cmp_u64_desc(ma[i], mb[i]);
	return c;
}

/* perf's sort of a number column: heaviest first */
static int hpp_cmp(const struct pcl_hists *h, const struct hentry *a, const struct hentry *b,
		   enum pcl_hpp f)
{
	int c;

	switch (f) {
	case PCL_HPP_OVERHEAD:
	case PCL_HPP_PERIOD:
		if ((c = cmp_u64_desc(a->e.self, b->e.self)))
			return c;
		for (int i = 1; a->e.member_self && i < h->opts.nr_members; i++)
			if ((c = cmp_u64_desc(a->e.member_self[i], b->e.member_self[i])))
				return c;
		return 0;
	case PCL_HPP_OVERHEAD_SYS:
		return members_cmp(h, a->e.period_sys, b->e.period_sys, a->e.member_sys,
				   b->e.member_sys);
	case PCL_HPP_OVERHEAD_US:
		return members_cmp(h, a->e.period_us, b->e.period_us, a->e.member_us,
				   b->e.member_us);
	case PCL_HPP_SAMPLE:
		return members_cmp(h, a->e.nr_samples, b->e.nr_samples, a->e.member_samples,
				   b->e.member_samples);
	case PCL_HPP_OVERHEAD_CHILDREN:
		if (!h->opts.children)
			return 0;
		if ((c = cmp_u64_desc(a->e.children, b->e.children)))
			return c;
		if ((c = depth_cmp(h, a, b)))
			return c;
		return 0;
	default:
		return 0;
	}
}

/* -F / --sort with numbers: the order given */
static int entry_cmp_order(const struct hentry *a, const struct hentry *b,
			   const struct pcl_hists *h)
{
	int c;

	for (int i = 0; i < h->opts.nr_order; i++) {
		const struct pcl_field *f = &h->opts.order[i];

		c = f->hpp == PCL_HPP_KEY ? key_cmp(a, b, f->key) : hpp_cmp(h, a, b, f->hpp);
		if (c)
			return c;
	}
	return 0;
}

static int entry_cmp(const void *pa, const void *pb, void *arg)
{
	const struct hentry *a = *(struct hentry *const *)pa, *b = *(struct hentry *const *)pb;
	const struct pcl_hists *h = arg;
	int c;

	if (h->opts.nr_order)
		return entry_cmp_order(a, b, h);

	if (h->opts.children) {
		if ((c = cmp_u64_desc(a->e.children, b->e.children)))
			return c;
		if ((c = depth_cmp(h, a, b)))
			return c;
	}
	if ((c = cmp_u64_desc(a->e.self, b->e.self)))
		return c;
	for (int i = 1; a->e.member_self && i < h->opts.nr_members; i++)
		if ((c = cmp_u64_desc(a->e.member_self[i], b->e.member_self[i])))
			return c;
	for (int i = 0; i < h->opts.nr_keys; i++)
		if ((c = key_cmp(a, b, h->opts.keys[i])))
			return c;
	return 0;
}

static int key_cmp(const struct hentry *a, const struct hentry *b, enum pcl_sort_key k)
{
	int c;

	switch (k) {
	case PCL_SORT_COMM:
		c = cmp_str(a->e.comm, b->e.comm);
		break;
	case PCL_SORT_DSO:
		/* perf's cmp_null: an address in no map ([unknown]) after the DSOs */
		if (!a->key.dso || !b->key.dso)
			c = (a->key.dso == NULL) - (b->key.dso == NULL);
		else
			c = strcmp(a->key.dso, b->key.dso);
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
	case PCL_SORT_PARENT:
		/* perf's cmp_null: [other] after the named ones */
		if (!a->e.parent || !b->e.parent)
			c = (a->e.parent == NULL) - (b->e.parent == NULL);
		else
			c = strcmp(a->e.parent->name, b->e.parent->name);
		break;
	default:
		c = 0;
	}

	return c;
}

/*
 * Heaviest first. Ties in perf's order: perf keeps a node's children in a
 * tree ordered by (DSO object, symbol start or ip; an inlined function by
 * name) and walks it from the greatest key down while sorting by weight,
 * a tie going after the nodes already placed. So ties come by DSO, then
 * address (name), each descending. perf compares its DSO objects by their
 * addresses, which follow the order it made them in; here that order
 * itself is compared (no DSO first), so that the output does not depend on
 * where malloc puts things. Left over: the order the nodes were first
 * reached.
 */
static int64_t dso_rank(const struct fkey *k)
{
	return k->dso ? (int64_t)((const struct pcl_dso *)k->dso)->seq : -1;
}

static int node_cmp(const void *pa, const void *pb)
{
	const struct pcl_callnode *a = *(struct pcl_callnode *const *)pa,
				  *b = *(struct pcl_callnode *const *)pb;
	const struct fkey *ka = node_key(a), *kb = node_key(b);
	int c = cmp_u64_desc(a->total, b->total);

	if (c)
		return c;
	if (ka->dso != kb->dso)
		return dso_rank(ka) > dso_rank(kb) ? -1 : 1;
	if (ka->inlined && kb->inlined && a->frame.sym && b->frame.sym &&
	    (c = strcmp(b->frame.sym->name, a->frame.sym->name)))
		return c;
	if (!ka->inlined && !kb->inlined && ka->ident != kb->ident)
		return ka->ident > kb->ident ? -1 : 1;
	return (node_seq(a) > node_seq(b)) - (node_seq(a) < node_seq(b));
}

/* Relink @n's @k children in the order @cmp gives; false without memory. */
static bool sort_children(struct pcl_callnode *n, size_t k, int (*cmp)(const void *, const void *))
{
	struct pcl_callnode *v[32], **arr = v, *c;

	if (k < 2)
		return true;
	if (k > 32 && !(arr = malloc(k * sizeof(*arr))))
		return false;
	c = n->first;
	for (size_t i = 0; i < k; i++, c = c->next)
		arr[i] = c;
	if (k <= 32) { /* insertion sort: few calls per comparison */
		for (size_t i = 1; i < k; i++) {
			struct pcl_callnode *x = arr[i];
			size_t j = i;

			for (; j && cmp(&x, &arr[j - 1]) < 0; j--)
				arr[j] = arr[j - 1];
			arr[j] = x;
		}
	} else {
		qsort(arr, k, sizeof(*arr), cmp);
	}
	n->first = arr[0];
	for (size_t i = 0; i < k; i++)
		arr[i]->next = i + 1 < k ? arr[i + 1] : NULL;
	if (arr != v)
		free(arr);
	return true;
}

static size_t nr_children(const struct pcl_callnode *n)
{
	size_t k = 0;

	for (const struct pcl_callnode *c = n->first; c; c = c->next)
		k++;
	return k;
}

/*
 * Children heaviest first; ties keep the order they were first reached in.
 * Nodes lighter than @min are never shown, nor is anything under them:
 * their children stay unsorted.
 */
static void sort_tree(struct pcl_callnode *n, uint64_t min)
{
	size_t k = nr_children(n);

	if (k > 1 && !sort_children(n, k, node_cmp))
		return;
	for (struct pcl_callnode *c = n->first; c; c = c->next)
		if (c->total >= min)
			sort_tree(c, min);
}

PCL_API void pcl_hists__finish(struct pcl_hists *h)
{
	uint32_t stamp = 0;
	const struct pcl_frame **path = NULL;
	size_t path_alloc = 0;
	uint64_t min = 0;
	/* the entries of a chain's frames are by function: the chains can be merged */
	bool merged = h && h->opts.callchain && h->opts.children && !h->srcpos;

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
	/*
	 * computed as the report's printer computes its own minimum (a
	 * product rounded otherwise could come out one lower): nothing it
	 * shows is below a node left childless here
	 */
	min = (uint64_t)((double)h->total_period * (h->opts.tree_min_percent / 100.0));
	if (merged) {
		grow_children_trees(h, path, min);
		goto out;
	}
	for (size_t i = 0; h->opts.callchain && i < h->nr_chains; i++) {
		struct uchain *u = h->order[i];

		chain_path(h, u, path);
		if (grow_trees(h, u, (uint32_t)i, ++stamp, path, min))
			break;
	}
out:
	free(path);
	free(h->nodes);
	h->nodes = NULL;
	h->nr_nodes = h->cap_nodes = 0;
	chunks_free(&h->chain_chunks);
	for (int i = 0; i < h->nr; i++)
		h->entries[i]->chains_root = NULL;
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

static const struct {
	const char *name;
	enum pcl_hpp hpp;
} hpp_names[] = {
	{ "overhead", PCL_HPP_OVERHEAD },
	{ "overhead_sys", PCL_HPP_OVERHEAD_SYS },
	{ "overhead_us", PCL_HPP_OVERHEAD_US },
	{ "overhead_guest_sys", PCL_HPP_OVERHEAD_GUEST_SYS },
	{ "overhead_guest_us", PCL_HPP_OVERHEAD_GUEST_US },
	{ "overhead_children", PCL_HPP_OVERHEAD_CHILDREN },
	{ "sample", PCL_HPP_SAMPLE },
	{ "period", PCL_HPP_PERIOD },
};

PCL_API int pcl_field_parse(const char *name, size_t len, struct pcl_field *f)
{
	if (!name || !f)
		return pcl_err(EINVAL, "pcl_field_parse: invalid argument");
	for (size_t i = 0; i < ARRAY_SIZE(hpp_names); i++)
		if (strlen(hpp_names[i].name) == len && !strncmp(name, hpp_names[i].name, len)) {
			*f = (struct pcl_field){ hpp_names[i].hpp, 0 };
			return 0;
		}
	for (size_t i = 0; i < ARRAY_SIZE(sort_names); i++)
		if (strlen(sort_names[i].name) == len && !strncmp(name, sort_names[i].name, len)) {
			*f = (struct pcl_field){ PCL_HPP_KEY, sort_names[i].key };
			return 0;
		}
	if (len == 6 && !strncmp(name, "parent", 6)) {
		*f = (struct pcl_field){ PCL_HPP_KEY, PCL_SORT_PARENT };
		return 0;
	}
	return pcl_err(EINVAL, "unknown field '%.*s'", (int)len, name);
}

PCL_API int pcl_sort_keys_parse(const char *s, enum pcl_sort_key *keys, int max)
{
	int n = 0;

	if (!s || !keys)
		return pcl_err(EINVAL, "pcl_sort_keys_parse: invalid argument");
	while (*s) {
		size_t len = strcspn(s, ",");
		bool found = false;

		for (size_t i = 0; i < ARRAY_SIZE(sort_names) && len; i++)
			if (strlen(sort_names[i].name) == len &&
			    !strncmp(s, sort_names[i].name, len)) {
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

/* ---- live histograms (pcl top): decay and the pointers entries hold ---- */

static uint64_t scale(uint64_t v, uint64_t num, uint64_t den)
{
	/* v * num / den without overflow for any period a histogram sums */
	return (uint64_t)(((unsigned __int128)v * num) / den);
}

static void entry_scale(struct pcl_hists *h, struct hentry *e, uint64_t num, uint64_t den)
{
	struct pcl_hist_entry *x = &e->e;

	x->self = scale(x->self, num, den);
	x->nr_samples = scale(x->nr_samples, num, den);
	x->period_sys = scale(x->period_sys, num, den);
	x->period_us = scale(x->period_us, num, den);
	for (int m = 0; x->member_self && m < h->opts.nr_members; m++) {
		x->member_self[m] = scale(x->member_self[m], num, den);
		x->member_samples[m] = scale(x->member_samples[m], num, den);
		x->member_sys[m] = scale(x->member_sys[m], num, den);
		x->member_us[m] = scale(x->member_us[m], num, den);
	}
	/* what finish computes is computed again from what is left */
	x->children = 0;
	x->root = NULL;
	x->max_depth = 0;
	e->stamp = 0;
	e->on_path = 0;
	e->sources = 0;
	e->chains_root = NULL;
	if (e->cut)
		x->hidden = e->cut = false;
}

/* Keep the unique chains that still weigh something and whose entry stays. */
static void chains_decay(struct pcl_hists *h, uint64_t num, uint64_t den)
{
	size_t kept = 0;

	for (size_t i = 0; i < h->nr_chains; i++) {
		struct uchain *u = h->order[i];

		u->period = scale(u->period, num, den);
		u->count = scale(u->count, num, den);
		if (!u->period || !u->self->e.self) {
			free(u);
			continue;
		}
		h->order[kept++] = u;
	}
	h->nr_chains = kept;
	if (!h->chains)
		return; /* no chain was ever added */
	memset(h->chains, 0, h->cap_chains * sizeof(*h->chains));
	for (size_t i = 0; i < kept; i++) {
		size_t j = h->order[i]->hash & (h->cap_chains - 1);

		while (h->chains[j])
			j = (j + 1) & (h->cap_chains - 1);
		h->chains[j] = h->order[i];
	}
	/* the chain-id shortcut may name a chain just freed */
	if (h->ids)
		memset(h->ids, 0, (1u << IDS_BITS) * sizeof(*h->ids));
}

PCL_API int pcl_hists__decay(struct pcl_hists *h, uint64_t num, uint64_t den)
{
	int kept = 0;

	if (!h || !den || num > den)
		return pcl_err(EINVAL, "pcl_hists__decay: invalid argument");
	for (int i = 0; i < h->nr_grave; i++) {
		free(h->grave[i]->e.member_self);
		free(h->grave[i]);
	}
	h->nr_grave = 0;
	/* the most the dropped ones can be: every entry */
	if (h->nr && grow_array((void **)&h->grave, &h->alloc_grave, h->nr, sizeof(*h->grave)))
		return pcl_err(ENOMEM, "pcl_hists__decay: out of memory");
	chunks_free(&h->node_chunks);
	h->total_period = h->nr_samples = 0;
	for (int i = 0; i < h->nr; i++)
		entry_scale(h, h->entries[i], num, den);
	/* before the entries go: a chain is dropped with its entry */
	chains_decay(h, num, den);
	for (int i = 0; i < h->nr; i++) {
		struct hentry *e = h->entries[i];

		if (!e->e.self) {
			/* a live view may still read what it showed, until the next decay */
			h->grave[h->nr_grave++] = e;
			continue;
		}
		h->total_period += e->e.self;
		h->nr_samples += e->e.nr_samples;
		h->entries[kept++] = e;
	}
	h->nr = kept;
	if (h->table) {
		memset(h->table, 0, h->cap * sizeof(*h->table));
		for (int i = 0; i < h->nr; i++) {
			size_t j = h->entries[i]->hash & (h->cap - 1);

			while (h->table[j])
				j = (j + 1) & (h->cap - 1);
			h->table[j] = h->entries[i];
		}
	}
	return 0;
}

static int refs_push(const void ***v, size_t *n, size_t *alloc, const void *p)
{
	if (!p)
		return 0;
	if (*n == *alloc) {
		size_t na = *alloc ? *alloc * 2 : 256;
		const void **nv = realloc(*v, na * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*alloc = na;
	}
	(*v)[(*n)++] = p;
	return 0;
}

static int node_refs(const struct pcl_callnode *n, const void ***v, size_t *nr, size_t *alloc)
{
	for (const struct pcl_callnode *c = n->first; c; c = c->next)
		if (refs_push(v, nr, alloc, c->frame.map) || node_refs(c, v, nr, alloc))
			return -ENOMEM;
	return 0;
}

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t) * (const void *const *)a, y = (uintptr_t) * (const void *const *)b;

	return x < y ? -1 : x > y;
}

PCL_API int pcl_hists__refs(const struct pcl_hists *h, const void ***out, size_t *nr)
{
	const void **v = NULL;
	size_t n = 0, alloc = 0, k = 0;
	int ret = 0;

	if (!h || !out || !nr)
		return pcl_err(EINVAL, "pcl_hists__refs: invalid argument");
	for (int i = 0; i < h->nr && !ret; i++) {
		const struct pcl_hist_entry *e = &h->entries[i]->e;

		ret = refs_push(&v, &n, &alloc, e->thread);
		ret = ret ? ret : refs_push(&v, &n, &alloc, e->frame.map);
		if (!ret && e->root)
			ret = node_refs(e->root, &v, &n, &alloc);
	}
	for (int i = 0; i < h->nr_grave && !ret; i++) {
		ret = refs_push(&v, &n, &alloc, h->grave[i]->e.thread);
		ret = ret ? ret : refs_push(&v, &n, &alloc, h->grave[i]->e.frame.map);
	}
	for (size_t i = 0; i < h->nr_chains && !ret; i++)
		for (uint32_t f = 0; f < h->order[i]->n && !ret; f++)
			ret = refs_push(&v, &n, &alloc, h->order[i]->frames[f].map);
	if (ret) {
		free(v);
		return pcl_err(ENOMEM, "pcl_hists__refs: out of memory");
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_ptr);
	for (size_t i = 0; i < n; i++)
		if (!k || v[k - 1] != v[i])
			v[k++] = v[i];
	*out = v;
	*nr = k;
	return 0;
}

PCL_API void pcl_hists__hide_after(struct pcl_hists *h, size_t n)
{
	size_t seen = 0;

	for (int i = 0; h && i < h->nr; i++) {
		struct hentry *e = h->entries[i];

		if (e->cut)
			e->e.hidden = e->cut = false;
		if (e->e.hidden)
			continue;
		if (seen++ >= n)
			e->e.hidden = e->cut = true;
	}
}
