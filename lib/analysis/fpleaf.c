/* SPDX-License-Identifier: MIT */
/*
 * Frame-pointer leaf repair (fpleaf.h, docs/fpleaf.md).
 *
 * The kernel's frame-pointer walker stores the user IP, then the return
 * addresses it finds by following rbp. In a function that has not pushed
 * rbp and pointed it at its own frame (a gcc leaf, any prologue or
 * epilogue), rbp is still its caller's frame pointer, so the first return
 * address stored is the caller's own: the caller itself is missing. pcl
 * record -g also copies a few bytes of the user stack from the SP
 * (PERF_SAMPLE_STACK_USER without the registers, which Linux perf ignores);
 * where the CFI says the frame at the IP finds its return address from the
 * SP alone, that address is in the copy.
 *
 * Where the return address is depends only on the file and the IP, so it
 * is asked of libdw once per (DSO, address) and kept: the CFI is stepped
 * (unwind_step) over a stack of markers, word i holding MARKER | i, at a
 * made-up SP with rbp and every other register undefined; the marker that
 * comes back as the return address is the slot. A frame that needs rbp
 * (rbp-based, the chain is right) or has no CFI gives no marker and is left
 * alone. Each DSO is its own unwinder address space, with its file mapped
 * at the load base of the first mapping seen, so the CFI of a file is
 * loaded once however many processes map it.
 *
 * Invariants: a chain is changed only by inserting one return address
 * (with its inline frames, under --inline, as the resolver expands the others)
 * right after the first user entry, only when the slot lies inside the
 * copy's valid bytes, and only when that address is not already the next
 * entry. Repaired chains get ids of their own (top bit set, never made by
 * the resolver), one per (unrepaired id, inserted address).
 */
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "internal.h"
#include "analysis/fpleaf.h"
#include "inline.h"
#include "symbol/files.h"
#include "symbol/unwind.h"

/* The marker stack: as long as the longest copy the kernel gives. */
#define MARKER_BYTES 65528u
#define MARKER	     0xfd1e000000000000ULL
#define MARKER_MASK  0xffff000000000000ULL
/* Its made-up SP: not a user address, so no file mapping answers reads there. */
#define MARKER_SP (1ULL << 62)
/* Where a DSO's mapping may reach in its own address space. */
#define USER_END (1ULL << 47)

/* What the CFI says of an address, as kept in the slot cache (>= 0: the slot). */
#define SLOT_RBP    (-1LL) /* needs rbp (or another register): rbp-based */
#define SLOT_NO_CFI (-2LL) /* no CFI, or the file cannot be read */
/* The load base of a DSO's space is kept under this address key. */
#define BASE_KEY UINT64_MAX

/* Chains kept past this many repaired ids start afresh (ids stay unique). */
#define MAX_IDS (1u << 20)
#define ID_BIT	(1ULL << 63)

/* A map of two words to one; k1 == 0 is an empty slot. */
struct map2 {
	struct map2_ent {
		uint64_t k1, k2, val;
	} * ents;
	size_t cap, nr;
};

struct fpleaf {
	struct unwinder *uw;
	uint64_t *markers;
	struct map2 slots; /* (dso, addr) -> slot offset or SLOT_*; (dso, BASE_KEY) -> base */
	struct map2 ids;   /* (unrepaired chain id, inserted address) -> repaired id */
	struct pcl_frame *chain;
	int alloc;
	struct pcl_frame *ins; /* the inserted frame, with its inline frames */
	int alloc_ins;
	struct pcl_fpleaf_stats st;
};

/* The file of the DSO being asked about, for the unwinder's map look-up. */
struct dso_file {
	const char *path;
	const void *image;
	size_t image_size;
	uint64_t base;
};

static uint64_t next_id;

static size_t map2_pos(const struct map2 *t, uint64_t k1, uint64_t k2)
{
	size_t j = hash_mix(hash_mix(0, k1), k2) & (t->cap - 1);

	while (t->ents[j].k1 && (t->ents[j].k1 != k1 || t->ents[j].k2 != k2))
		j = (j + 1) & (t->cap - 1);
	return j;
}

static bool map2_get(const struct map2 *t, uint64_t k1, uint64_t k2, uint64_t *val)
{
	size_t j;

	if (!t->cap)
		return false;
	j = map2_pos(t, k1, k2);
	if (!t->ents[j].k1)
		return false;
	*val = t->ents[j].val;
	return true;
}

static int map2_put(struct map2 *t, uint64_t k1, uint64_t k2, uint64_t val)
{
	size_t j;

	if ((t->nr + 1) * 2 > t->cap) {
		struct map2 n = { .cap = t->cap ? t->cap * 2 : 1024 };

		n.ents = calloc(n.cap, sizeof(*n.ents));
		if (!n.ents)
			return -ENOMEM;
		for (size_t i = 0; i < t->cap; i++)
			if (t->ents[i].k1)
				n.ents[map2_pos(&n, t->ents[i].k1, t->ents[i].k2)] = t->ents[i];
		n.nr = t->nr;
		free(t->ents);
		*t = n;
	}
	j = map2_pos(t, k1, k2);
	if (!t->ents[j].k1)
		t->nr++;
	t->ents[j] = (struct map2_ent){ k1, k2, val };
	return 0;
}

static void map2_clear(struct map2 *t)
{
	free(t->ents);
	memset(t, 0, sizeof(*t));
}

static int find_dso_map(void *arg, uint64_t addr, struct unwind_map *m)
{
	const struct dso_file *f = arg;

	if (addr < f->base || addr >= USER_END)
		return -ENOENT;
	m->path = f->path;
	m->image = f->image;
	m->image_size = f->image_size;
	m->start = f->base;
	m->end = USER_END;
	m->pgoff = 0;
	return 0;
}

/*
 * Ask libdw where the frame at @f (a leaf frame of a user map) finds its
 * return address: a slot offset from the SP, or SLOT_*. 0 or -ENOMEM.
 */
static int ask_slot(struct fpleaf *fl, struct pcl_symbols *s, const struct pcl_frame *f,
		    int64_t *slot)
{
	const struct symbols_dso_files *files = s ? symbols_dso_files(s, f->map->dso) : NULL;
	struct dso_file df = { .path = files ? files->path : f->map->dso->name };
	struct unwind_space as = { .id = (uintptr_t)f->map->dso,
				   .find_map = find_dso_map,
				   .arg = &df };
	struct unwind_stack st = { .size = MARKER_BYTES, .sp = MARKER_SP };
	enum unwind_step_status status;
	uint64_t ra, needed, base;
	int ret;

	*slot = SLOT_NO_CFI;
	if (files && files->image) {
		df.image = files->image;
		df.image_size = files->image_size;
	}
	if (!fl->uw && !(fl->uw = unwinder_new()))
		return -errno;
	if (!fl->markers) {
		fl->markers = malloc(MARKER_BYTES);
		if (!fl->markers)
			return -ENOMEM;
		for (uint64_t i = 0; i < MARKER_BYTES / 8; i++)
			fl->markers[i] = MARKER | i;
	}
	st.data = fl->markers;
	/* the DSO's space maps its file at the first base seen: the same CFI for every process */
	if (!map2_get(&fl->slots, (uintptr_t)f->map->dso, BASE_KEY, &base)) {
		base = f->map->start - f->map->pgoff;
		if (map2_put(&fl->slots, (uintptr_t)f->map->dso, BASE_KEY, base))
			return -ENOMEM;
	}
	df.base = base;
	ret = unwind_step(fl->uw, &as, base + f->addr, &st, &ra, &needed, &status);
	if (ret == -ENOMEM)
		return ret;
	if (ret)
		*slot = SLOT_NO_CFI; /* libdw cannot unwind this file at all */
	else if (status == UNWIND_STEP_OK && (ra & MARKER_MASK) == MARKER)
		*slot = (int64_t)((ra & ~MARKER_MASK) * 8);
	else if (status == UNWIND_STEP_OK || status == UNWIND_STEP_NEEDS_REGS ||
		 status == UNWIND_STEP_STACK_TOO_SMALL)
		*slot = SLOT_RBP; /* a return address from anything but the stack */
	else
		*slot = SLOT_NO_CFI;
	return 0;
}

/* The slot of @f's return address, from the cache or libdw. 0 or -ENOMEM. */
static int leaf_slot(struct fpleaf *fl, struct pcl_symbols *s, const struct pcl_frame *f,
		     int64_t *slot)
{
	uint64_t key = (uintptr_t)f->map->dso, v;
	int ret;

	if (map2_get(&fl->slots, key, f->addr, &v)) {
		*slot = (int64_t)v;
		return 0;
	}
	ret = ask_slot(fl, s, f, slot);
	if (ret)
		return ret;
	return map2_put(&fl->slots, key, f->addr, (uint64_t)*slot);
}

/*
 * The index in the resolved chain of the first user entry, the leaf whose
 * SP the copy starts at; -1 when there is none or the resolver dropped or
 * reshaped the chain.
 */
static long leaf_index(const struct pcl_sample *s, size_t nr_chain)
{
	long leaf = -1;
	size_t n = 0;
	bool user = false;

	for (uint64_t i = 0; i < s->nr_callchain; i++) {
		uint64_t ip = s->callchain[i];

		if (ip >= PERF_CONTEXT_MAX) {
			if (ip == PERF_CONTEXT_USER)
				user = true;
			else if (ip == PERF_CONTEXT_KERNEL || ip == PERF_CONTEXT_HV)
				user = false;
			else
				return -1;
			continue;
		}
		if (user && leaf < 0)
			leaf = (long)n;
		n++;
	}
	return n == nr_chain ? leaf : -1;
}

/*
 * With inline frames (inline.c), one raw frame became a run of frames
 * with inline levels 1, 2, ...: the index in @out's chain of raw frame
 * @raw's first frame (@last: its last one), or -1; *@nr_raw: how many raw
 * frames the chain holds.
 */
static long expanded_index(const struct pcl_resolved *out, long raw, bool last, size_t *nr_raw)
{
	long found = -1;
	size_t n = 0;

	for (size_t i = 0; i < out->nr_chain; i++) {
		bool starts = out->chain[i].inline_level <= 1;

		if (starts)
			n++;
		if ((long)n - 1 == raw && (last || (starts && found < 0)))
			found = (long)i;
	}
	*nr_raw = n;
	return found;
}

/* The id of the repaired chain: one per (unrepaired id, inserted address). */
static uint64_t repaired_id(struct fpleaf *fl, uint64_t id, uint64_t ra)
{
	uint64_t v;

	if (!id)
		return 0;
	if (map2_get(&fl->ids, id, ra, &v))
		return v;
	if (fl->ids.nr >= MAX_IDS)
		map2_clear(&fl->ids);
	v = ID_BIT | __atomic_add_fetch(&next_id, 1, __ATOMIC_RELAXED);
	return map2_put(&fl->ids, id, ra, v) ? 0 : v;
}

/*
 * @out's chain with @ra resolved and inserted after entry @leaf: a return
 * address, expanded into its inline frames as the resolver expands the
 * chain's other entries (--inline). 0 or -ENOMEM.
 */
static int insert(struct fpleaf *fl, struct pcl_resolver *r, struct pcl_symbols *s,
		  struct pcl_resolved *out, size_t leaf, uint64_t ra)
{
	struct pcl_resolved one = { .thread = out->thread, .ip = out->ip };
	size_t n = out->nr_chain, k;

	if (!fl->alloc_ins && grow_array((void **)&fl->ins, &fl->alloc_ins, 1, sizeof(*fl->ins)))
		return -ENOMEM;
	pcl_resolver__frame(r, out->thread, false, ra, &fl->ins[0]);
	fl->ins[0].return_address = true;
	/* as the resolver does: an entry in no map takes the sample's level */
	if (!fl->ins[0].map)
		fl->ins[0].level = out->ip.level;
	one.chain = fl->ins;
	one.nr_chain = 1;
	if (inline_expand(s, &one, &fl->ins, &fl->alloc_ins))
		return -ENOMEM;
	k = one.nr_chain;
	if (n + k > (size_t)fl->alloc &&
	    grow_array((void **)&fl->chain, &fl->alloc, (int)(n + k), sizeof(*fl->chain)))
		return -ENOMEM;
	/* out->chain may be fl->chain only if the resolver handed it back: it never does */
	memcpy(fl->chain, out->chain, (leaf + 1) * sizeof(*fl->chain));
	memcpy(fl->chain + leaf + 1, one.chain, k * sizeof(*fl->chain));
	memcpy(fl->chain + leaf + 1 + k, out->chain + leaf + 1,
	       (n - leaf - 1) * sizeof(*fl->chain));
	out->chain = fl->chain;
	out->nr_chain = n + k;
	out->chain_id = repaired_id(fl, out->chain_id, ra);
	return 0;
}

static bool wants_repair(const struct pcl_sample *s)
{
	uint64_t t = s->sample_type;

	/* with the registers too, it is a DWARF sample: the unwinder's */
	return (t & PERF_SAMPLE_CALLCHAIN) && (t & PERF_SAMPLE_STACK_USER) &&
	       !(t & PERF_SAMPLE_REGS_USER) && s->user_stack && s->user_stack_dyn_size;
}

int fpleaf_repair(struct fpleaf **flp, struct pcl_resolver *r, struct pcl_symbols *s,
		  const struct pcl_record *rec, struct pcl_resolved *out)
{
	const struct pcl_sample *smp = &rec->sample;
	const struct pcl_frame *f;
	struct fpleaf *fl = *flp;
	uint64_t ra, size;
	int64_t slot;
	long leaf, leaf_last;
	size_t nr_raw;
	int ret;

	if (!wants_repair(smp) || !out->chain)
		return 0;
	expanded_index(out, 0, false, &nr_raw);
	leaf = leaf_index(smp, nr_raw);
	if (leaf < 0)
		return 0;
	/* the leaf's inline frames, if any, stay together: the caller goes after the last */
	leaf_last = expanded_index(out, leaf, true, &nr_raw);
	leaf = expanded_index(out, leaf, false, &nr_raw);
	if (!fl) {
		fl = calloc(1, sizeof(*fl));
		if (!fl)
			return -ENOMEM;
		*flp = fl;
	}
	fl->st.samples++;
	f = &out->chain[leaf];
	if (!f->map || !f->map->dso) {
		fl->st.no_cfi++;
		return 0;
	}
	ret = leaf_slot(fl, s, f, &slot);
	if (ret)
		return ret;
	if (slot == SLOT_RBP || slot == SLOT_NO_CFI) {
		if (slot == SLOT_RBP)
			fl->st.rbp_based++;
		else
			fl->st.no_cfi++;
		return 0;
	}
	size = smp->user_stack_dyn_size;
	if ((uint64_t)slot + sizeof(ra) > size) {
		fl->st.too_small++;
		if ((uint64_t)slot + sizeof(ra) > fl->st.max_needed)
			fl->st.max_needed = (uint64_t)slot + sizeof(ra);
		return 0;
	}
	memcpy(&ra, (const char *)smp->user_stack + slot, sizeof(ra));
	if (!ra) {
		/* no return address: the outermost frame, or a copy the kernel could not fill */
		fl->st.no_cfi++;
		return 0;
	}
	if ((size_t)leaf_last + 1 < out->nr_chain && out->chain[leaf_last + 1].ip == ra) {
		fl->st.present++;
		return 0;
	}
	ret = insert(fl, r, s, out, (size_t)leaf_last, ra);
	if (!ret)
		fl->st.repaired++;
	return ret;
}

const struct pcl_fpleaf_stats *fpleaf_stats(const struct fpleaf *fl)
{
	static const struct pcl_fpleaf_stats none;

	return fl ? &fl->st : &none;
}

void fpleaf_free(struct fpleaf *fl)
{
	if (!fl)
		return;
	unwinder_free(fl->uw);
	free(fl->markers);
	map2_clear(&fl->slots);
	map2_clear(&fl->ids);
	free(fl->chain);
	free(fl->ins);
	free(fl);
}
