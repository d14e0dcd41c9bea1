/* SPDX-License-Identifier: MIT */
/*
 * pprof: a perftools.profiles.Profile message (lib/output/profile.proto),
 * built with the structs protoc-c generates from it, packed by protobuf-c
 * and gzipped, as `pprof` and `go tool pprof` read it.
 *
 * What goes where:
 * - sample_type is [samples/count, EVENT/UNIT] (UNIT "nanoseconds" for
 *   cpu-clock and task-clock, else "count"); each Sample's values are the
 *   sample count and period sum of one profile stack (one thread's samples
 *   ending in one stack node). period_type is EVENT/UNIT, period the
 *   sampling interval. default_sample_type names EVENT, always: that is
 *   what pprof's own CPU profiles do (samples/count + cpu/nanoseconds,
 *   "cpu" shown) and what pprof falls back to without the field (the last
 *   type). The sample counts stay one -sample_index=samples away.
 * - Labels: "thread" (the command name), "pid" and "tid" (numbers).
 * - One Function per profile function and one Location per profile
 *   location (ids: index + 1), so a Sample's location_id list is its stack
 *   node's path to the root, innermost first. A location without source
 *   lines stands for its whole function: its address is the function's
 *   start in memory (the symbol's file offset moved through the map it was
 *   seen in), or the first address recorded in it when the symbol is
 *   unknown or starts outside that map; one Line, the function, line 0.
 * - Source positions (a profile built with opts.symbols): a location with
 *   lines is one address (as recorded, moved into its function's map when
 *   another process's map recorded it), its Lines the inline chain,
 *   innermost first, each naming its function (inlined functions are
 *   Functions of their own) and line. A Function's filename is its source
 *   file and start_line its declaration's line; without debug info both
 *   are left empty (a binary is no source for pprof -list). A Mapping
 *   holding a location with lines says has_filenames, has_line_numbers and
 *   has_inline_frames.
 * - One Mapping per distinct (DSO, start, limit, offset) the functions were
 *   seen through: usually one per DSO, but a DSO mapped at two places (two
 *   processes with ASLR) gets two, so each Location's address lies inside
 *   its Mapping. has_functions is set: names come with the file, pprof must
 *   not symbolize again. Functions in no known map have no Mapping (id 0).
 *   The main executable's Mappings come first, as pprof expects: the file
 *   holding "main", else the one named like the busiest command.
 * - Code that no symbol covers is one "[unknown]" Function and Location per
 *   address (the profile keeps them apart), at that address in its Mapping.
 * - time_nanos is when the first sample was taken, ns since the epoch
 *   (opts->wall_clock_offset; 0 when the recording does not tell),
 *   duration_nanos last - first.
 * - comments: the header facts, "name: value", and the lost samples.
 * - A profile without samples is still a whole, valid Profile (the two
 *   sample types, no Sample): what pprof itself writes for an idle program.
 *
 * Invariant: string_table[0] is "", every string is in it once (a hash
 * table of indices) and is valid UTF-8 (bytes that are not become U+FFFD:
 * protobuf's decoders refuse the message otherwise), and every string the
 * message points to lives until it is packed: borrowed from the profile,
 * or owned by the table.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <pcl/export.h>
#include <pcl/machine.h>
#include "internal.h"
#include "output/json.h"
#include "profile.pb-c.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;

/* ---- the string table ---- */

struct strtab {
	char **v;    /* string_table: v[0] = "" */
	bool *owned; /* v[i] is ours to free */
	size_t n, alloc;
	uint32_t *slots; /* open addressing over v: index + 1, 0 free */
	size_t nr_slots; /* a power of two, at least twice n */
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return h;
}

static int strtab_grow(struct strtab *t)
{
	size_t ns = t->nr_slots ? t->nr_slots * 2 : 256;
	uint32_t *slots = calloc(ns, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		size_t j = hash_str(t->v[i]) & (ns - 1);

		while (slots[j])
			j = (j + 1) & (ns - 1);
		slots[j] = (uint32_t)i + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->nr_slots = ns;
	return 0;
}

/* Append @s to the table (known not to be in it yet). */
static int strtab_append(struct strtab *t, char *s, bool owned)
{
	if (t->n == t->alloc) {
		size_t na = t->alloc ? t->alloc * 2 : 256;
		char **v = realloc(t->v, na * sizeof(*v));
		bool *o = v ? realloc(t->owned, na * sizeof(*o)) : NULL;

		if (v)
			t->v = v;
		if (!o)
			return -ENOMEM;
		t->owned = o;
		t->alloc = na;
	}
	if (t->n >= UINT32_MAX - 1)
		return -ENOMEM;
	t->v[t->n] = s;
	t->owned[t->n] = owned;
	t->n++;
	return 0;
}

/*
 * The index of @s, added if new. With @owned the table takes @s (and frees
 * it at once when the string is there already). -1 when out of memory.
 */
static int64_t strtab_index(struct strtab *t, const char *s, bool owned)
{
	size_t j;

	if (!s) /* an allocation that failed */
		return -1;
	if (2 * (t->n + 1) > t->nr_slots && strtab_grow(t))
		goto fail;
	j = hash_str(s) & (t->nr_slots - 1);
	for (; t->slots[j]; j = (j + 1) & (t->nr_slots - 1)) {
		if (!strcmp(t->v[t->slots[j] - 1], s)) {
			if (owned)
				free((char *)s);
			return t->slots[j] - 1;
		}
	}
	if (strtab_append(t, (char *)s, owned))
		goto fail;
	t->slots[j] = (uint32_t)t->n;
	return (int64_t)t->n - 1;
fail:
	if (owned)
		free((char *)s);
	return -1;
}

static void strtab_free(struct strtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->owned[i])
			free(t->v[i]);
	free(t->v);
	free(t->owned);
	free(t->slots);
}

/* ---- the message ---- */

struct builder {
	Profile prof;
	struct strtab st;
	bool oom; /* a string could not be interned */
	ValueType types[2], period_type;
	ValueType *type_ptrs[2];
	int64_t *comments;
	Function *funcs;
	Function **func_ptrs;
	Line *lines;
	Line **line_ptrs;
	Location *locs;
	Location **loc_ptrs;
	Mapping *maps;
	Mapping **map_ptrs;
	const struct pcl_map **map_keys; /* the map each Mapping was made from */
	uint32_t *map_slots;		 /* open addressing over maps: index + 1, 0 free */
	size_t nr_map_slots;
	Label *labels; /* three per thread: thread, pid, tid */
	Label **label_ptrs;
	Sample *samples;
	Sample **sample_ptrs;
	uint64_t *location_ids;
	int64_t *values;
};

static int64_t str_owned(struct builder *b, char *s);

/* The string table index of @s (borrowed: it lives as long as the builder). */
static int64_t str(struct builder *b, const char *s)
{
	char *fixed = utf8_fixed(s, &b->oom);
	int64_t i;

	if (fixed)
		return str_owned(b, fixed);
	i = strtab_index(&b->st, s, false);

	b->oom |= i < 0;
	return i < 0 ? 0 : i;
}

/* The index of @s, malloc'd (NULL: out of memory); the table takes it. */
static int64_t str_owned(struct builder *b, char *s)
{
	char *fixed = s ? utf8_fixed(s, &b->oom) : NULL;
	int64_t i;

	if (fixed) {
		free(s);
		s = fixed;
	}
	i = strtab_index(&b->st, s, true);

	b->oom |= i < 0;
	return i < 0 ? 0 : i;
}

static char *format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *format(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

static void add_header(struct builder *b, const struct pcl_profile *p,
		       const struct pcl_export_opts *o)
{
	const char *event = o && o->event && o->event[0] ? o->event : "events";
	const char *unit = o && o->period_is_ns ? "nanoseconds" : "count";
	uint64_t first = pcl_profile__time_first(p), last = pcl_profile__time_last(p);
	size_t nc = 0;

	b->types[0] = (ValueType)PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	b->types[0].type = str(b, "samples");
	b->types[0].unit = str(b, "count");
	b->types[1] = (ValueType)PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	b->types[1].type = str(b, event);
	b->types[1].unit = str(b, unit);
	b->period_type = b->types[1];
	b->type_ptrs[0] = &b->types[0];
	b->type_ptrs[1] = &b->types[1];
	b->prof.sample_type = b->type_ptrs;
	b->prof.n_sample_type = 2;
	b->prof.period_type = &b->period_type;
	b->prof.period = o ? (int64_t)o->interval : 0;
	b->prof.default_sample_type = b->types[1].type;
	if (first) {
		/* o is the full-size copy: an older caller's has_wall_clock reads 0 */
		if (o && o->has_wall_clock)
			b->prof.time_nanos = (int64_t)first + o->wall_clock_offset;
		b->prof.duration_nanos = (int64_t)(last - first);
	}
	for (size_t i = 0; o && i < o->nr_facts; i++)
		if (o->facts[i].name && o->facts[i].value)
			b->comments[nc++] =
				str_owned(b, format("%s: %s", o->facts[i].name, o->facts[i].value));
	if (o && o->lost_samples)
		b->comments[nc++] = str_owned(b, format("lost samples: %" PRIu64, o->lost_samples));
	b->prof.comment = b->comments;
	b->prof.n_comment = nc;
}

static uint64_t hash_map(const struct pcl_map *m)
{
	uint64_t h = (uint64_t)(uintptr_t)m->dso * 0x9e3779b97f4a7c15ull;

	h = (h ^ m->start) * 0x100000001b3ull;
	h = (h ^ m->end) * 0x100000001b3ull;
	return (h ^ m->pgoff) * 0x100000001b3ull;
}

static void fill_mapping(struct builder *b, Mapping *mp, const struct pcl_map *m, uint64_t id)
{
	const struct pcl_dso *d = m->dso;
	/* the kernel's "pgoff" is an address, a JIT map's a marker: no file offset */
	bool file = d->kind == PCL_DSO_USER && m->pgoff != UINT64_MAX;

	*mp = (Mapping)PERFTOOLS__PROFILES__MAPPING__INIT;
	mp->id = id;
	mp->memory_start = m->start;
	mp->memory_limit = m->end;
	mp->file_offset = file ? m->pgoff : 0;
	mp->filename = str(b, d->name ? d->name : "");
	mp->has_functions = true;
	if (d->build_id_size) {
		char hex[2 * sizeof(d->build_id) + 1];
		size_t n = d->build_id_size < sizeof(d->build_id) ? d->build_id_size
								  : sizeof(d->build_id);

		for (size_t i = 0; i < n; i++)
			snprintf(hex + 2 * i, 3, "%02x", d->build_id[i]);
		hex[2 * n] = '\0';
		mp->build_id = str_owned(b, strdup(hex));
	}
}

/* The Mapping id of @m: a new Mapping the first time this DSO and range are seen. */
static uint64_t mapping_id(struct builder *b, const struct pcl_map *m)
{
	size_t mask = b->nr_map_slots - 1, j = hash_map(m) & mask, n = b->prof.n_mapping;

	for (; b->map_slots[j]; j = (j + 1) & mask) {
		const struct pcl_map *k = b->map_keys[b->map_slots[j] - 1];

		if (k->dso == m->dso && k->start == m->start && k->end == m->end &&
		    k->pgoff == m->pgoff)
			return b->map_slots[j];
	}
	fill_mapping(b, &b->maps[n], m, n + 1);
	b->map_ptrs[n] = &b->maps[n];
	b->map_keys[n] = m;
	b->map_slots[j] = (uint32_t)(n + 1);
	b->prof.n_mapping = n + 1;
	return n + 1;
}

/*
 * The DSO-relative @addr (a file offset for a file map, the address itself
 * for the kernel, its modules and JIT maps; see machine.h) moved through
 * @m into memory; @other when it falls outside that map.
 */
static uint64_t map_address(const struct pcl_map *m, uint64_t addr, uint64_t other)
{
	uint64_t a;

	if (m->pgoff == UINT64_MAX ||
	    (m->dso->kind != PCL_DSO_USER && m->dso->kind != PCL_DSO_VDSO))
		a = addr;
	else if (addr >= m->pgoff && addr - m->pgoff < m->end - m->start)
		a = m->start + (addr - m->pgoff);
	else
		return other;
	return a >= m->start && a < m->end ? a : other;
}

/*
 * Where @f starts in memory: the symbol's start moved through @f's map. The
 * address recorded when there is no symbol or it starts outside that map.
 */
static uint64_t func_address(const struct pcl_profile_func *f)
{
	if (!f->map || !f->map->dso || f->end <= f->start)
		return f->ip;
	return map_address(f->map, f->start, f->ip);
}

/* Whether the file @d is named @comm (the kernel cuts a command name to 15 bytes). */
static bool named(const struct pcl_dso *d, const char *comm)
{
	const char *base = d->name ? strrchr(d->name, '/') : NULL;
	size_t n = comm ? strlen(comm) : 0;

	base = base ? base + 1 : d->name;
	return n && base && !strncmp(base, comm, n) && (n >= 15 || !base[n]);
}

/*
 * The main executable: the file holding "main", else the one named like
 * the command with the most samples. NULL when neither is known.
 */
static const struct pcl_dso *main_dso(const struct pcl_profile *p)
{
	size_t nf, nt, ns, nd = 0;
	const struct pcl_profile_func *f = pcl_profile__funcs(p, &nf);
	const struct pcl_profile_thread *t = pcl_profile__threads(p, &nt);
	const struct pcl_profile_stack *st = pcl_profile__stacks(p, &ns);
	const struct pcl_dso *best = NULL, **seen;
	uint64_t best_n = 0, *per_thread;

	for (size_t i = 0; i < nf; i++)
		if (f[i].dso && f[i].dso->kind == PCL_DSO_USER && f[i].name &&
		    !strcmp(f[i].name, "main"))
			return f[i].dso;
	per_thread = calloc(nt + 1, sizeof(*per_thread));
	seen = calloc(nf + 1, sizeof(*seen));
	if (!per_thread || !seen)
		goto out; /* only the order of the Mappings is lost */
	for (size_t k = 0; k < ns; k++)
		per_thread[st[k].thread] += st[k].count;
	for (size_t i = 0; i < nf; i++) {
		const struct pcl_dso *d = f[i].dso;
		uint64_t n = 0;
		size_t j;

		if (!d || d->kind != PCL_DSO_USER)
			continue;
		for (j = 0; j < nd && seen[j] != d; j++)
			;
		if (j < nd)
			continue;
		seen[nd++] = d;
		for (size_t k = 0; k < nt; k++)
			if (named(d, t[k].comm))
				n += per_thread[k];
		if (n > best_n) {
			best = d;
			best_n = n;
		}
	}
out:
	free(per_thread);
	free(seen);
	return best;
}

/*
 * Where location @l of @f is in memory: the address recorded, moved into
 * @f's map when it was recorded through another (the same DSO mapped by
 * another process); the function's address for a location without one.
 */
static uint64_t loc_address(const struct pcl_profile_func *f, const struct pcl_profile_loc *l)
{
	const struct pcl_map *m = f->map;

	if (!l->addr)
		return func_address(f);
	if (!m || !m->dso || (l->ip >= m->start && l->ip < m->end))
		return l->ip;
	return map_address(m, l->addr, l->ip);
}

static void add_functions(struct builder *b, const struct pcl_profile *p)
{
	size_t n;
	const struct pcl_profile_func *f = pcl_profile__funcs(p, &n);
	const struct pcl_dso *exe = main_dso(p);

	/* pprof takes the first Mapping for the main binary */
	for (size_t i = 0; exe && i < n; i++)
		if (f[i].dso == exe && f[i].map)
			mapping_id(b, f[i].map);
	for (size_t i = 0; i < n; i++) {
		Function *fn = &b->funcs[i];

		*fn = (Function)PERFTOOLS__PROFILES__FUNCTION__INIT;
		fn->id = i + 1;
		fn->name = str(b, f[i].name ? f[i].name : "[unknown]");
		fn->system_name = fn->name;
		/* the source file, for pprof -list; none without debug info */
		fn->filename = f[i].file ? str(b, f[i].file) : 0;
		fn->start_line = f[i].file ? f[i].line : 0;
		b->func_ptrs[i] = fn;
	}
	b->prof.function = b->func_ptrs;
	b->prof.n_function = n;
}

/*
 * One Location per profile location: the lines of its inline chain,
 * innermost first (pprof's order), or its function alone.
 */
static void add_locations(struct builder *b, const struct pcl_profile *p)
{
	size_t nf, nl, nln, used = 0;
	const struct pcl_profile_func *f = pcl_profile__funcs(p, &nf);
	const struct pcl_profile_loc *loc = pcl_profile__locs(p, &nl);
	const struct pcl_profile_line *ln = pcl_profile__lines(p, &nln);

	for (size_t i = 0; i < nl; i++) {
		const struct pcl_profile_func *fi = &f[loc[i].func];
		Location *l = &b->locs[i];
		size_t first = used;

		*l = (Location)PERFTOOLS__PROFILES__LOCATION__INIT;
		l->id = i + 1;
		l->mapping_id = fi->map && fi->map->dso ? mapping_id(b, fi->map) : 0;
		l->address = loc_address(fi, &loc[i]);
		for (uint32_t k = 0; k < loc[i].nr_lines && loc[i].first_line + k < nln; k++) {
			const struct pcl_profile_line *x = &ln[loc[i].first_line + k];

			b->lines[used] = (Line)PERFTOOLS__PROFILES__LINE__INIT;
			b->lines[used].function_id = (uint64_t)x->func + 1;
			b->lines[used].line = x->line;
			b->line_ptrs[used] = &b->lines[used];
			used++;
		}
		if (used == first) {
			b->lines[used] = (Line)PERFTOOLS__PROFILES__LINE__INIT;
			b->lines[used].function_id = (uint64_t)loc[i].func + 1;
			b->line_ptrs[used] = &b->lines[used];
			used++;
		} else if (l->mapping_id) {
			/* names, files, lines and inline frames come with the file */
			Mapping *mp = &b->maps[l->mapping_id - 1];

			mp->has_filenames = mp->has_line_numbers = mp->has_inline_frames = true;
		}
		l->n_line = used - first;
		l->line = &b->line_ptrs[first];
		b->loc_ptrs[i] = l;
	}
	b->prof.location = b->loc_ptrs;
	b->prof.n_location = nl;
	b->prof.mapping = b->map_ptrs;
}

static void add_labels(struct builder *b, const struct pcl_profile *p)
{
	size_t n;
	const struct pcl_profile_thread *t = pcl_profile__threads(p, &n);
	int64_t thread, pid, tid;

	if (!n)
		return;
	thread = str(b, "thread");
	pid = str(b, "pid");
	tid = str(b, "tid");
	for (size_t i = 0; i < n; i++) {
		Label *l = &b->labels[3 * i];

		for (int k = 0; k < 3; k++) {
			l[k] = (Label)PERFTOOLS__PROFILES__LABEL__INIT;
			b->label_ptrs[3 * i + k] = &l[k];
		}
		l[0].key = thread;
		l[0].str = str(b, t[i].comm ? t[i].comm : "");
		l[1].key = pid;
		l[1].num = t[i].pid;
		l[2].key = tid;
		l[2].num = t[i].tid;
	}
}

/* One Sample per profile stack; its thread's labels are shared by all its samples. */
static void add_samples(struct builder *b, const struct pcl_profile *p)
{
	size_t nn, ns;
	const struct pcl_profile_node *nodes = pcl_profile__nodes(p, &nn);
	const struct pcl_profile_stack *s = pcl_profile__stacks(p, &ns);
	uint64_t *ids = b->location_ids;

	add_labels(b, p);
	for (size_t i = 0; i < ns; i++) {
		Sample *sm = &b->samples[i];
		uint32_t node = s[i].node;

		*sm = (Sample)PERFTOOLS__PROFILES__SAMPLE__INIT;
		sm->location_id = ids;
		/* innermost first: up the tree to the root, at most depth steps */
		for (uint32_t d = node < nn ? nodes[node].depth : 0; d && node && node < nn; d--) {
			*ids++ = (uint64_t)nodes[node].loc + 1;
			node = nodes[node].parent;
		}
		sm->n_location_id = (size_t)(ids - sm->location_id);
		sm->value = &b->values[2 * i];
		sm->value[0] = (int64_t)s[i].count;
		sm->value[1] = (int64_t)s[i].period;
		sm->n_value = 2;
		sm->label = &b->label_ptrs[3 * s[i].thread];
		sm->n_label = 3;
		b->sample_ptrs[i] = sm;
	}
	b->prof.sample = b->sample_ptrs;
	b->prof.n_sample = ns;
}

/* Every array, sized from the profile; one spare element each so none is calloc(0). */
static int builder_alloc(struct builder *b, const struct pcl_profile *p, size_t nr_facts)
{
	size_t nf, nt, ns, nn, nl, nln, depths = 0;
	const struct pcl_profile_stack *s = pcl_profile__stacks(p, &ns);
	const struct pcl_profile_node *nodes = pcl_profile__nodes(p, &nn);

	pcl_profile__funcs(p, &nf);
	pcl_profile__locs(p, &nl);
	pcl_profile__lines(p, &nln);
	pcl_profile__threads(p, &nt);
	for (size_t i = 0; i < ns; i++)
		depths += s[i].node < nn ? nodes[s[i].node].depth : 0;
	for (b->nr_map_slots = 16; b->nr_map_slots < 2 * nf; b->nr_map_slots *= 2)
		;
	b->comments = calloc(nr_facts + 2, sizeof(*b->comments));
	b->funcs = calloc(nf + 1, sizeof(*b->funcs));
	b->func_ptrs = calloc(nf + 1, sizeof(*b->func_ptrs));
	/* a location has its lines, or one for its function */
	b->lines = calloc(nl + nln + 1, sizeof(*b->lines));
	b->line_ptrs = calloc(nl + nln + 1, sizeof(*b->line_ptrs));
	b->locs = calloc(nl + 1, sizeof(*b->locs));
	b->loc_ptrs = calloc(nl + 1, sizeof(*b->loc_ptrs));
	b->maps = calloc(nf + 1, sizeof(*b->maps));
	b->map_ptrs = calloc(nf + 1, sizeof(*b->map_ptrs));
	b->map_keys = calloc(nf + 1, sizeof(*b->map_keys));
	b->map_slots = calloc(b->nr_map_slots, sizeof(*b->map_slots));
	b->labels = calloc(3 * nt + 1, sizeof(*b->labels));
	b->label_ptrs = calloc(3 * nt + 1, sizeof(*b->label_ptrs));
	b->samples = calloc(ns + 1, sizeof(*b->samples));
	b->sample_ptrs = calloc(ns + 1, sizeof(*b->sample_ptrs));
	b->location_ids = calloc(depths + 1, sizeof(*b->location_ids));
	b->values = calloc(2 * ns + 1, sizeof(*b->values));
	if (!b->comments || !b->funcs || !b->func_ptrs || !b->lines || !b->line_ptrs || !b->locs ||
	    !b->loc_ptrs || !b->maps || !b->map_ptrs || !b->map_keys || !b->map_slots ||
	    !b->labels || !b->label_ptrs || !b->samples || !b->sample_ptrs || !b->location_ids ||
	    !b->values)
		return -ENOMEM;
	return 0;
}

static void builder_free(struct builder *b)
{
	strtab_free(&b->st);
	free(b->comments);
	free(b->funcs);
	free(b->func_ptrs);
	free(b->lines);
	free(b->line_ptrs);
	free(b->locs);
	free(b->loc_ptrs);
	free(b->maps);
	free(b->map_ptrs);
	free(b->map_keys);
	free(b->map_slots);
	free(b->labels);
	free(b->label_ptrs);
	free(b->samples);
	free(b->sample_ptrs);
	free(b->location_ids);
	free(b->values);
}

/* ---- gzip ---- */

/* @len bytes through deflate, gzip framed without name or time: one input, one file. */
static int write_gzip(FILE *fp, const uint8_t *buf, size_t len)
{
	static const size_t chunk = 1u << 30; /* avail_in is a uInt */
	uint8_t out[16384];
	z_stream z;
	int zr, ret = 0;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return pcl_err(-ENOMEM, "pprof: cannot start gzip: out of memory");
	z.next_in = (Bytef *)buf;
	do {
		size_t have;

		if (!z.avail_in && len) {
			z.avail_in = (uInt)(len < chunk ? len : chunk);
			len -= z.avail_in;
		}
		z.next_out = out;
		z.avail_out = sizeof(out);
		zr = deflate(&z, len || z.avail_in > 0 ? Z_NO_FLUSH : Z_FINISH);
		if (zr == Z_STREAM_ERROR) {
			ret = pcl_err(-EIO, "pprof: gzip failed");
			break;
		}
		have = sizeof(out) - z.avail_out;
		if (have && fwrite(out, 1, have, fp) != have) {
			ret = pcl_err(-EIO, "cannot write the pprof profile");
			break;
		}
	} while (zr != Z_STREAM_END);
	deflateEnd(&z);
	return ret;
}

int pcl_export_pprof(FILE *fp, const struct pcl_profile *p, const struct pcl_export_opts *opts)
{
	struct builder b;
	uint8_t *buf = NULL;
	size_t len;
	struct pcl_export_opts o;
	int ret;

	if (!fp || !p)
		return pcl_err(-EINVAL, "pprof: no output or no profile");
	if (opts_copy(&o, opts, "pcl_export_opts") < 0)
		return -EINVAL;
	opts = &o;
	memset(&b, 0, sizeof(b));
	b.prof = (Profile)PERFTOOLS__PROFILES__PROFILE__INIT;
	ret = builder_alloc(&b, p, opts ? opts->nr_facts : 0);
	if (ret || str(&b, "") != 0)
		goto oom;
	add_header(&b, p, opts);
	add_functions(&b, p);
	add_locations(&b, p);
	add_samples(&b, p);
	if (b.oom)
		goto oom;
	b.prof.string_table = b.st.v;
	b.prof.n_string_table = b.st.n;
	len = perftools__profiles__profile__get_packed_size(&b.prof);
	buf = malloc(len ? len : 1);
	if (!buf)
		goto oom;
	if (perftools__profiles__profile__pack(&b.prof, buf) != len) {
		ret = pcl_err(-EIO, "pprof: the profile did not pack to its size");
		goto out;
	}
	ret = write_gzip(fp, buf, len);
	if (!ret && ferror(fp))
		ret = pcl_err(-EIO, "cannot write the pprof profile");
	goto out;
oom:
	ret = pcl_err(-ENOMEM, "pprof: out of memory");
out:
	free(buf);
	builder_free(&b);
	return ret;
}
