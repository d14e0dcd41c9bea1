/* SPDX-License-Identifier: MIT */
/*
 * Source positions of resolved frames as perf's strings (srcpos.h).
 *
 * perf computes a string per histogram entry or per printed frame, each
 * through a pipe to addr2line; here the srcline module answers from its
 * own cache and this file keeps the finished strings: a table keyed by
 * (DSO, address, symbol, inline level, kind) gives the interned string,
 * so that a sample's key is one hash probe once its address was seen.
 *
 * The strings follow docs/srcline.md: the address looked up is the
 * frame's DSO-relative one, which for the entries perf makes from call
 * chains is the ip itself (perf looks that up too, and finds nothing).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "srcpos.h"
#include "symbol/files.h"

struct pos_ent {
	const struct pcl_dso *dso;
	const struct pcl_symbol *sym;
	uint64_t addr;
	uint64_t look; /* the address whose line is looked up (an inline level's own) */
	uint32_t kind_level; /* kind << 8 | inline level */
	const char *str;
};

struct str_ent {
	uint64_t hash;
	char s[];
};

struct srcpos_cache {
	struct pcl_symbols *s;
	bool full;
	struct pos_ent *pos; /* open addressing; empty: str == NULL */
	size_t cap_pos, nr_pos;
	struct str_ent **strs; /* the interned strings, open addressing */
	size_t cap_strs, nr_strs;
};

int srcpos_lookup(struct pcl_symbols *s, const struct pcl_frame *f, const struct srcline_info **out)
{
	if (!s || !f->map)
		return -ENOENT;
	/* perf never gives addr2line a JIT map (is_perf_pid_map_name) */
	if (!strncmp(f->map->dso->name, "/tmp/perf-", 10))
		return -ENOENT;
	return symbols_srcline(s, f->map->dso, f->addr, out);
}

struct srcpos_cache *srcpos_cache__new(struct pcl_symbols *s, bool full)
{
	struct srcpos_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return pcl_err_null(ENOMEM, "srcpos: out of memory");
	c->s = s;
	c->full = full;
	return c;
}

void srcpos_cache__free(struct srcpos_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->cap_strs; i++)
		free(c->strs[i]);
	free(c->strs);
	free(c->pos);
	free(c);
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

static size_t str_slot(struct str_ent **t, size_t cap, uint64_t hash, const char *s)
{
	size_t j = hash & (cap - 1);

	while (t[j] && (t[j]->hash != hash || strcmp(t[j]->s, s)))
		j = (j + 1) & (cap - 1);
	return j;
}

static const char *intern(struct srcpos_cache *c, const char *s)
{
	uint64_t hash = str_hash(s);
	size_t j, len;

	if ((c->nr_strs + 1) * 2 > c->cap_strs) {
		size_t ncap = c->cap_strs ? c->cap_strs * 2 : 256;
		struct str_ent **nt = calloc(ncap, sizeof(*nt));

		if (!nt)
			return NULL;
		for (size_t i = 0; i < c->cap_strs; i++)
			if (c->strs[i])
				nt[str_slot(nt, ncap, c->strs[i]->hash, c->strs[i]->s)] =
					c->strs[i];
		free(c->strs);
		c->strs = nt;
		c->cap_strs = ncap;
	}
	j = str_slot(c->strs, c->cap_strs, hash, s);
	if (c->strs[j])
		return c->strs[j]->s;
	len = strlen(s);
	c->strs[j] = malloc(sizeof(*c->strs[j]) + len + 1);
	if (!c->strs[j])
		return NULL;
	c->strs[j]->hash = hash;
	memcpy(c->strs[j]->s, s, len + 1);
	c->nr_strs++;
	return c->strs[j]->s;
}

/* The inline level's own position: perf's srcline_from_fileline of its record. */
static void level_fileline(char *buf, size_t size, const struct srcline_info *info, int level,
			   bool full)
{
	struct srcline_info one = { .file = info->file, .line = info->line };

	if (level < info->nframes) {
		one.file = info->frames[level].file;
		one.line = info->frames[level].line;
	}
	srcline_fileline(buf, size, &one, full);
}

/*
 * The address whose source position @f shows: its own, but an inline
 * frame's is its level's at the frame's own address, also in an entry made
 * from a chain (whose address is the ip: perf keeps the chain node's line
 * there), a return address minus 1.
 */
static uint64_t look_addr(const struct pcl_frame *f, enum srcpos_kind kind)
{
	if (f->map && f->inline_level && kind != SRCPOS_SORT_FILE)
		return pcl_map__map_ip(f->map, f->ip) - f->return_address;
	return f->addr;
}

static void make(struct srcpos_cache *c, const struct pcl_frame *f, enum srcpos_kind kind,
		 uint64_t look, char *buf, size_t size)
{
	const struct srcline_info *info = NULL;
	const struct pcl_dso *dso = f->map ? f->map->dso : NULL;
	uint64_t vaddr = f->addr;
	struct pcl_frame at = *f;

	at.addr = look;
	if (dso && srcpos_lookup(c->s, &at, &info) < 0)
		info = NULL;
	if (dso && !info)
		vaddr = symbols_dso_vaddr(symbols_dso_files(c->s, f->map->dso), f->addr);
	switch (kind) {
	case SRCPOS_SORT_LINE:
		if (!dso)
			snprintf(buf, size, "%s", SRCLINE_UNKNOWN);
		else if (f->inline_level && info)
			/* perf's entries from inline frames keep the frame's own line */
			level_fileline(buf, size, info, f->inline_level - 1, c->full);
		else
			srcline_sort_key(buf, size, info, c->full, f->sym ? f->sym->name : NULL,
					 f->sym ? f->addr - f->sym->start : 0, dso->short_name,
					 vaddr);
		break;
	case SRCPOS_SORT_FILE:
		srcline_srcfile(buf, size, info, c->full);
		break;
	case SRCPOS_SCRIPT:
		if (!dso)
			buf[0] = '\0';
		else if (f->inline_level && info)
			level_fileline(buf, size, info, f->inline_level - 1, c->full);
		else
			srcline_script_field(buf, size, info, c->full, dso->short_name, vaddr);
		break;
	default:
		buf[0] = '\0';
	}
}

static uint64_t pos_hash(const struct pos_ent *k)
{
	return hash_mix(hash_mix(hash_mix(hash_mix((uintptr_t)k->dso, k->addr), (uintptr_t)k->sym),
				 k->look),
			k->kind_level);
}

static size_t pos_slot(const struct pos_ent *t, size_t cap, const struct pos_ent *k)
{
	size_t j = pos_hash(k) & (cap - 1);

	while (t[j].str && (t[j].dso != k->dso || t[j].addr != k->addr || t[j].sym != k->sym ||
			    t[j].look != k->look || t[j].kind_level != k->kind_level))
		j = (j + 1) & (cap - 1);
	return j;
}

static int pos_grow(struct srcpos_cache *c)
{
	size_t ncap = c->cap_pos ? c->cap_pos * 2 : 1024;
	struct pos_ent *nt = calloc(ncap, sizeof(*nt));

	if (!nt)
		return -ENOMEM;
	for (size_t i = 0; i < c->cap_pos; i++) {
		const struct pos_ent *e = &c->pos[i];

		if (e->str)
			nt[pos_slot(nt, ncap, e)] = *e;
	}
	free(c->pos);
	c->pos = nt;
	c->cap_pos = ncap;
	return 0;
}

const char *srcpos_cache__get(struct srcpos_cache *c, const struct pcl_frame *f,
			      enum srcpos_kind kind)
{
	const struct pcl_dso *dso = f->map ? f->map->dso : NULL;
	/* the inline level changes what script prints and an inline frame's srcline */
	uint32_t kl = (uint32_t)kind << 8 | (kind != SRCPOS_SORT_FILE ? f->inline_level : 0);
	struct pos_ent k;
	char buf[4096];
	size_t j;

	/* an inline level's line is looked up at a return address minus 1 */
	if (kind != SRCPOS_SORT_FILE && f->inline_level && f->return_address)
		kl |= 1u << 16;

	if ((c->nr_pos + 1) * 2 > c->cap_pos && pos_grow(c))
		return NULL;
	/* keyed by the looked-up address too: maps of one DSO at other bases differ there */
	k = (struct pos_ent){ dso, f->sym, f->addr, look_addr(f, kind), kl, NULL };
	j = pos_slot(c->pos, c->cap_pos, &k);
	if (c->pos[j].str)
		return c->pos[j].str;
	make(c, f, kind, k.look, buf, sizeof(buf));
	k.str = intern(c, buf);
	c->pos[j] = k;
	if (!c->pos[j].str)
		return NULL;
	c->nr_pos++;
	return c->pos[j].str;
}
