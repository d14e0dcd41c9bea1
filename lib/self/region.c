/* SPDX-License-Identifier: MIT */
/*
 * Regions (include/pcl/region.h): per thread, per name, how often a stretch
 * of code ran and what the thread's counters counted inside it.
 *
 * State:
 *   - a struct thread_data per thread that ever began a region, reached from
 *     the thread itself through the __thread pointer t_td and from readers
 *     through the registry g_threads (a list in order of registration). It
 *     outlives its thread, so the counts of exited threads stay readable.
 *   - in it, owned by the thread alone: its pcl_counters (opened on the
 *     first begin with the event list of that moment, closed by the pthread
 *     key destructor at thread exit) and the stack of open regions, each
 *     with the reading taken at its begin.
 *   - in it, under td->lock: the regions that ended at least once (slots,
 *     in order of first end), each with its calls and summed deltas, and a
 *     pointer-keyed cache mapping a name's address to its slot.
 *   - global, under g_lock: the registry, the event spec for new threads,
 *     and the union of the names of every thread's counted events
 *     (g_events, append-only, never freed, so pcl_regions_event() can hand
 *     out its strings).
 *
 * Locking: g_lock is taken before a td->lock, never after. begin takes no
 * lock; end takes only its own thread's td->lock, which no one else holds
 * except a reader copying the counts (pcl_regions_foreach/_total/_write/
 * _reset), so it is uncontended in the steady state. Readers copy what they
 * need into a snapshot under the locks and call back or print without them.
 *
 * Steady-state cost: begin is one pcl_counters__read() plus copying the
 * values; end is one read, a pointer-hash lookup and an uncontended mutex.
 * Nothing is allocated unless a name is new to the thread.
 *
 * Page faults: the thread's tables are touched when allocated, so that the
 * first use of a stack level does not fault inside the measured window.
 *
 * fork(): the child starts with no regions and no counters (the inherited
 * ones count the parent's thread); its first begin opens new ones.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <pcl/counters.h>
#include <pcl/region.h>
#include "internal.h"

#define REGION_MAX_DEPTH      64
#define REGION_MAX_EVENTS     32 /* counted events per thread */
#define REGION_MAX_GEVENTS    64 /* distinct event names over all threads */
#define REGION_DEFAULT_EVENTS "task-clock,context-switches,page-faults,cycles,instructions"

struct region_frame {
	const char *name;
	uint64_t valid; /* bit j: event j was read at begin */
	double begin[REGION_MAX_EVENTS];
};

struct region_slot {
	const char *name;
	uint64_t calls;
	double sums[REGION_MAX_EVENTS];
};

struct ptr_entry {
	const char *key;
	int slot;
};

struct thread_data {
	struct thread_data *next;
	pid_t tid;

	/* Owner thread only. */
	struct pcl_counters *c;
	int nr_all;		    /* pcl_counters__nr(c) */
	int idx[REGION_MAX_EVENTS]; /* counter index of local event j */
	struct pcl_value *vals;	    /* nr_all, scratch for reads */
	int depth;
	struct region_frame stack[REGION_MAX_DEPTH];

	/* Set before registration, constant after. */
	int nr;			     /* events counted */
	int gmap[REGION_MAX_EVENTS]; /* g_events index of local event j */

	/* Under lock. */
	pthread_mutex_t lock;
	bool exited;
	struct region_slot *slots;
	int nr_slots, alloc_slots;
	struct ptr_entry *pc; /* open addressing, size pc_mask + 1 */
	int pc_mask, pc_used;
};

struct gevent {
	char *name;
	char *unit;
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct thread_data *g_threads, **g_threads_tail = &g_threads;
static char *g_spec;	   /* NULL: PCL_REGION_EVENTS or the default */
static unsigned int g_gen; /* bumped by pcl_regions_set_events() */
static struct gevent g_events[REGION_MAX_GEVENTS];
static int g_nr_events;

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static pthread_key_t g_key;
static bool g_key_ok;

static __thread struct thread_data *t_td;
static __thread int t_open_err;		 /* the last failure to open, 0 if none */
static __thread unsigned int t_open_gen; /* g_gen at that failure */

static void regions_at_exit(void);

/* ---- thread life ---- */

static void thread_exit(void *p)
{
	struct thread_data *td = p;

	if (t_td == td)
		t_td = NULL;
	pcl_counters__free(td->c);
	td->c = NULL;
	free(td->vals);
	td->vals = NULL;
	td->depth = 0;
	pthread_mutex_lock(&td->lock);
	td->exited = true;
	pthread_mutex_unlock(&td->lock);
}

static void atfork_prepare(void)
{
	pthread_mutex_lock(&g_lock);
}

static void atfork_parent(void)
{
	pthread_mutex_unlock(&g_lock);
}

/*
 * In the child only the forking thread exists, and its counters count its
 * twin in the parent: drop every thread's data, start afresh. Other
 * threads' td->lock may be held by threads that are not here any more, so
 * the tables are freed without taking them.
 */
static void atfork_child(void)
{
	struct thread_data *td = g_threads, *next;

	for (; td; td = next) {
		next = td->next;
		if (td == t_td)
			pcl_counters__free(td->c);
		free(td->vals);
		free(td->slots);
		free(td->pc);
		free(td);
	}
	g_threads = NULL;
	g_threads_tail = &g_threads;
	t_td = NULL;
	t_open_err = 0;
	if (g_key_ok)
		pthread_setspecific(g_key, NULL);
	pthread_mutex_unlock(&g_lock);
}

static void regions_init_once(void)
{
	g_key_ok = pthread_key_create(&g_key, thread_exit) == 0;
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
	atexit(regions_at_exit);
}

/* Index of event @name in g_events, added if new; -1 when the table is full. Under g_lock. */
static int gevent_index(const char *name, const char *unit)
{
	int i;

	for (i = 0; i < g_nr_events; i++)
		if (!strcmp(g_events[i].name, name))
			return i;
	if (g_nr_events == REGION_MAX_GEVENTS)
		return -1;
	g_events[i].name = strdup(name);
	g_events[i].unit = unit ? strdup(unit) : NULL;
	if (!g_events[i].name || (unit && !g_events[i].unit)) {
		free(g_events[i].name);
		free(g_events[i].unit);
		return -1;
	}
	g_nr_events++;
	return i;
}

/* Write to every page of @p, so the thread's first regions do not fault on it. */
static void touch_pages(void *p, size_t len)
{
	volatile char *b = p;
	size_t pg = 4096, off;

	for (off = 0; off < len; off += pg)
		b[off] = 0;
	if (len)
		b[len - 1] = 0;
}

static int nr_supported(const struct pcl_counters *c)
{
	int i, n = 0;

	for (i = 0; i < pcl_counters__nr(c); i++)
		n += pcl_counters__supported(c, i);
	return n;
}

/*
 * The thread's counters, in one group when the spec has none of its own:
 * one read(2) then gives every kernel event, at one instant (a begin/end
 * pair with three software events costs half as much as three reads). A
 * group loses every member when its leader cannot count (cycles on a VM),
 * so when grouping leaves events out, the ungrouped open is tried too and
 * the one counting more events wins.
 */
static struct pcl_counters *open_counters(const char *spec)
{
	struct pcl_counters_opts o = {
		.sz = sizeof(o),
		.scope = PCL_SCOPE_THREAD,
		.pid = 0,
		.no_inherit = true,
		.started = true,
		.group = !strchr(spec, '{'),
	};
	struct pcl_counters *c = pcl_counters__new_open(spec, &o), *alt;

	if (!o.group || (c && nr_supported(c) == pcl_counters__nr(c)))
		return c;
	o.group = false;
	alt = pcl_counters__new_open(spec, &o);
	if (!c || (alt && nr_supported(alt) > nr_supported(c))) {
		pcl_counters__free(c);
		return alt;
	}
	pcl_counters__free(alt);
	return c;
}

/* The calling thread's data, created with its counters on first use. */
static int td_get(struct thread_data **out)
{
	struct thread_data *td = t_td;
	struct pcl_counters *c = NULL;
	char *spec = NULL;
	const char *env;
	unsigned int gen;
	int err, i, n;

	if (td) {
		*out = td;
		return 0;
	}
	pthread_once(&g_once, regions_init_once);

	pthread_mutex_lock(&g_lock);
	gen = g_gen;
	env = getenv("PCL_REGION_EVENTS");
	spec = strdup(g_spec ? g_spec : env && *env ? env : REGION_DEFAULT_EVENTS);
	pthread_mutex_unlock(&g_lock);
	if (!spec)
		return pcl_err(ENOMEM, "regions: out of memory");
	/* Do not retry a failed open on every begin: only after new events are set. */
	if (t_open_err && t_open_gen == gen) {
		free(spec);
		return t_open_err;
	}

	td = calloc(1, sizeof(*td));
	if (!td) {
		err = pcl_err(ENOMEM, "regions: out of memory");
		goto err_out;
	}
	pthread_mutex_init(&td->lock, NULL);
	td->tid = (pid_t)syscall(SYS_gettid);
	c = open_counters(spec);
	if (!c) {
		err = errno > 0 ? -errno : -EINVAL;
		goto err_out;
	}
	n = pcl_counters__nr(c);
	td->vals = calloc(n > 0 ? n : 1, sizeof(*td->vals));
	if (!td->vals) {
		err = pcl_err(ENOMEM, "regions: out of memory");
		goto err_out;
	}
	td->c = c;
	td->nr_all = n;
	touch_pages(td, sizeof(*td));
	touch_pages(td->vals, (n > 0 ? n : 1) * sizeof(*td->vals));

	pthread_mutex_lock(&g_lock);
	for (i = 0; i < n && td->nr < REGION_MAX_EVENTS; i++) {
		int g;

		if (!pcl_counters__supported(c, i))
			continue;
		g = gevent_index(pcl_counters__name(c, i), pcl_counters__unit(c, i));
		if (g < 0)
			continue;
		td->idx[td->nr] = i;
		td->gmap[td->nr] = g;
		td->nr++;
	}
	*g_threads_tail = td;
	g_threads_tail = &td->next;
	pthread_mutex_unlock(&g_lock);

	if (g_key_ok)
		pthread_setspecific(g_key, td);
	t_td = td;
	t_open_err = 0;
	free(spec);
	*out = td;
	return 0;

err_out:
	pcl_counters__free(c);
	if (td) {
		free(td->vals);
		pthread_mutex_destroy(&td->lock);
		free(td);
	}
	free(spec);
	t_open_err = err;
	t_open_gen = gen;
	return err;
}

static void free_td(struct thread_data *td)
{
	pthread_mutex_destroy(&td->lock);
	free(td->slots);
	free(td->pc);
	free(td);
}

/* ---- begin / end ---- */

static inline bool same_name(const char *a, const char *b)
{
	return a == b || !strcmp(a, b);
}

static inline size_t ptr_hash(const char *p)
{
	uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 32);
}

static void pc_insert(struct thread_data *td, const char *key, int slot)
{
	size_t h;

	if ((td->pc_used + 1) * 2 > td->pc_mask + 1) {
		int size = td->pc ? (td->pc_mask + 1) * 2 : 16;
		struct ptr_entry *pc = calloc(size, sizeof(*pc)), *old = td->pc;
		int i, old_size = td->pc ? td->pc_mask + 1 : 0;

		if (!pc)
			return; /* slower lookups, nothing lost */
		td->pc = pc;
		td->pc_mask = size - 1;
		td->pc_used = 0;
		for (i = 0; i < old_size; i++)
			if (old[i].key)
				pc_insert(td, old[i].key, old[i].slot);
		free(old);
	}
	for (h = ptr_hash(key) & td->pc_mask; td->pc[h].key; h = (h + 1) & td->pc_mask)
		;
	td->pc[h].key = key;
	td->pc[h].slot = slot;
	td->pc_used++;
}

/* The slot of region @name, created on its first end. Under td->lock. */
static struct region_slot *slot_get(struct thread_data *td, const char *name)
{
	struct region_slot *s;
	int i;

	if (td->pc) {
		size_t h;

		for (h = ptr_hash(name) & td->pc_mask; td->pc[h].key; h = (h + 1) & td->pc_mask)
			if (td->pc[h].key == name)
				return &td->slots[td->pc[h].slot];
	}
	/* A name not seen at this address: the same string elsewhere, or new. */
	for (i = 0; i < td->nr_slots; i++)
		if (!strcmp(td->slots[i].name, name))
			break;
	if (i == td->nr_slots) {
		if (grow_array((void **)&td->slots, &td->alloc_slots, i + 1, sizeof(*s)))
			return NULL;
		s = &td->slots[i];
		memset(s, 0, sizeof(*s));
		s->name = name;
		td->nr_slots++;
	}
	pc_insert(td, name, i);
	return &td->slots[i];
}

/* Read the thread's counters; bit j of the result: local event j was read. */
static inline uint64_t td_read(struct thread_data *td)
{
	uint64_t valid = 0;
	int j;

	pcl_counters__read(td->c, td->vals);
	for (j = 0; j < td->nr; j++)
		if (td->vals[td->idx[j]].status == 0)
			valid |= 1ull << j;
	return valid;
}

PCL_API int pcl_region_begin(const char *name)
{
	struct thread_data *td = NULL;
	struct region_frame *f;
	uint64_t valid;
	int err, j;

	if (!name)
		return pcl_err(EINVAL, "pcl_region_begin: no region name");
	err = td_get(&td);
	if (err)
		return err;
	if (td->depth == REGION_MAX_DEPTH)
		return pcl_err(E2BIG, "region '%s': nested deeper than %d", name, REGION_MAX_DEPTH);
	f = &td->stack[td->depth];
	f->name = name;
	/* The read is the last thing begin does: what follows is the region's. */
	valid = td_read(td);
	for (j = 0; j < td->nr; j++)
		f->begin[j] = td->vals[td->idx[j]].value;
	f->valid = valid;
	td->depth++;
	return 0;
}

PCL_API int pcl_region_end(const char *name)
{
	struct thread_data *td = t_td;
	struct region_frame *f;
	struct region_slot *s;
	uint64_t valid = 0;
	int j;

	/* The read comes first: what precedes it is the region's. */
	if (td && td->depth > 0 && name)
		valid = td_read(td);
	if (!name)
		return pcl_err(EINVAL, "pcl_region_end: no region name");
	if (!td || td->depth == 0)
		return pcl_err(EINVAL, "region '%s' ended, but no region is open on this thread",
			       name);
	f = &td->stack[td->depth - 1];
	if (!same_name(f->name, name))
		return pcl_err(EINVAL, "region '%s' ended, but the innermost open region is '%s'",
			       name, f->name);
	valid &= f->valid;
	td->depth--;

	pthread_mutex_lock(&td->lock);
	s = slot_get(td, f->name);
	if (s) {
		s->calls++;
		for (j = 0; j < td->nr; j++)
			if (valid & (1ull << j))
				s->sums[j] += td->vals[td->idx[j]].value - f->begin[j];
	}
	pthread_mutex_unlock(&td->lock);
	return s ? 0 : pcl_err(ENOMEM, "region '%s': out of memory", name);
}

PCL_API int pcl_regions_set_events(const char *events)
{
	struct pcl_counters *c;
	char *copy = NULL;

	if (events) {
		/* Parse only, so a typo fails here and not in every thread. */
		struct pcl_counters_opts o = { .sz = sizeof(o), .scope = PCL_SCOPE_THREAD };

		c = pcl_counters__new(events, &o);
		if (!c)
			return errno > 0 ? -errno : -EINVAL;
		pcl_counters__free(c);
		copy = strdup(events);
		if (!copy)
			return pcl_err(ENOMEM, "regions: out of memory");
	}
	pthread_mutex_lock(&g_lock);
	free(g_spec);
	g_spec = copy;
	g_gen++;
	pthread_mutex_unlock(&g_lock);
	return 0;
}

/* ---- readers ---- */

struct snap_thread {
	pid_t tid;
	int nr;
	int gmap[REGION_MAX_EVENTS];
	const char *events[REGION_MAX_EVENTS];
	const char *units[REGION_MAX_EVENTS];
};

struct snap_region {
	const char *name;
	int thread;
	uint64_t calls;
	double values[REGION_MAX_EVENTS]; /* local order of its thread */
};

struct snapshot {
	int nr_events; /* g_events[0..nr_events) */
	int nr_threads, nr_regions;
	struct snap_thread *threads;
	struct snap_region *regions;
};

static void snapshot_free(struct snapshot *sn)
{
	free(sn->threads);
	free(sn->regions);
}

/* Copy every thread's regions, with @name only when not NULL. 0 or -ENOMEM. */
static int snapshot_take(struct snapshot *sn, const char *name)
{
	struct thread_data *td;
	int nt = 0, nr = 0, at = 0, ar = 0, err = 0;

	memset(sn, 0, sizeof(*sn));
	pthread_mutex_lock(&g_lock);
	sn->nr_events = g_nr_events;
	for (td = g_threads; td && !err; td = td->next) {
		struct snap_thread *st;
		int i, j;

		if (grow_array((void **)&sn->threads, &at, nt + 1, sizeof(*st))) {
			err = -ENOMEM;
			break;
		}
		st = &sn->threads[nt];
		st->tid = td->tid;
		st->nr = td->nr;
		for (j = 0; j < td->nr; j++) {
			st->gmap[j] = td->gmap[j];
			st->events[j] = g_events[td->gmap[j]].name;
			st->units[j] = g_events[td->gmap[j]].unit;
		}
		pthread_mutex_lock(&td->lock);
		for (i = 0; i < td->nr_slots; i++) {
			struct region_slot *s = &td->slots[i];
			struct snap_region *r;

			if (name && !same_name(s->name, name))
				continue;
			if (grow_array((void **)&sn->regions, &ar, nr + 1, sizeof(*r))) {
				err = -ENOMEM;
				break;
			}
			r = &sn->regions[nr++];
			r->name = s->name;
			r->thread = nt;
			r->calls = s->calls;
			memcpy(r->values, s->sums, sizeof(r->values));
		}
		pthread_mutex_unlock(&td->lock);
		nt++;
	}
	pthread_mutex_unlock(&g_lock);
	sn->nr_threads = nt;
	sn->nr_regions = nr;
	if (err) {
		snapshot_free(sn);
		return pcl_err(ENOMEM, "regions: out of memory");
	}
	return 0;
}

PCL_API int pcl_regions_foreach(int (*fn)(const struct pcl_region_stats *s, void *arg), void *arg)
{
	struct snapshot sn;
	int err, i, ret = 0;

	if (!fn)
		return pcl_err(EINVAL, "regions: NULL function");
	err = snapshot_take(&sn, NULL);
	if (err)
		return err;
	for (i = 0; i < sn.nr_regions && !ret; i++) {
		struct snap_region *r = &sn.regions[i];
		struct snap_thread *t = &sn.threads[r->thread];
		struct pcl_region_stats s = {
			.name = r->name,
			.tid = t->tid,
			.calls = r->calls,
			.nr_events = t->nr,
			.events = t->events,
			.units = t->units,
			.values = r->values,
		};

		ret = fn(&s, arg);
	}
	snapshot_free(&sn);
	return ret;
}

PCL_API int64_t pcl_region_total(const char *name, double *values, int nr)
{
	struct snapshot sn;
	uint64_t calls = 0;
	int err, i, j;

	if (!name || nr < 0 || (nr > 0 && !values))
		return pcl_err(EINVAL, "region total: bad arguments");
	err = snapshot_take(&sn, name);
	if (err)
		return err;
	for (i = 0; i < nr; i++)
		values[i] = 0;
	for (i = 0; i < sn.nr_regions; i++) {
		struct snap_region *r = &sn.regions[i];
		struct snap_thread *t = &sn.threads[r->thread];

		calls += r->calls;
		for (j = 0; j < t->nr; j++)
			if (t->gmap[j] < nr)
				values[t->gmap[j]] += r->values[j];
	}
	i = sn.nr_regions;
	snapshot_free(&sn);
	if (!i)
		return pcl_err(ENOENT, "region '%s' never ended", name);
	return (int64_t)calls;
}

PCL_API const char *pcl_regions_event(int i)
{
	const char *name = NULL;

	pthread_mutex_lock(&g_lock);
	if (i >= 0 && i < g_nr_events)
		name = g_events[i].name;
	pthread_mutex_unlock(&g_lock);
	return name;
}

PCL_API int pcl_regions_nr_events(void)
{
	int n;

	pthread_mutex_lock(&g_lock);
	n = g_nr_events;
	pthread_mutex_unlock(&g_lock);
	return n;
}

PCL_API void pcl_regions_reset(void)
{
	struct thread_data *td, **pp;

	pthread_mutex_lock(&g_lock);
	for (pp = &g_threads; (td = *pp);) {
		bool gone;

		pthread_mutex_lock(&td->lock);
		td->nr_slots = 0;
		if (td->pc)
			memset(td->pc, 0, (td->pc_mask + 1) * sizeof(*td->pc));
		td->pc_used = 0;
		gone = td->exited;
		pthread_mutex_unlock(&td->lock);
		if (gone) {
			/* Its thread is gone and so are its counts: nothing refers to it. */
			*pp = td->next;
			free_td(td);
		} else {
			pp = &td->next;
		}
	}
	g_threads_tail = pp;
	pthread_mutex_unlock(&g_lock);
}

/* ---- output ---- */

/* Per-region totals over threads, regions in order of first appearance. */
struct total {
	const char *name;
	uint64_t calls;
	int nr_threads;
	double values[REGION_MAX_GEVENTS];
	bool counted[REGION_MAX_GEVENTS];
};

static struct total *totals_make(const struct snapshot *sn, int *nr_out)
{
	struct total *t = calloc(sn->nr_regions ? sn->nr_regions : 1, sizeof(*t));
	int n = 0, i, j, k;

	if (!t)
		return NULL;
	for (i = 0; i < sn->nr_regions; i++) {
		const struct snap_region *r = &sn->regions[i];
		const struct snap_thread *th = &sn->threads[r->thread];

		for (k = 0; k < n; k++)
			if (same_name(t[k].name, r->name))
				break;
		if (k == n)
			t[n++].name = r->name;
		t[k].calls += r->calls;
		t[k].nr_threads++;
		for (j = 0; j < th->nr; j++) {
			t[k].values[th->gmap[j]] += r->values[j];
			t[k].counted[th->gmap[j]] = true;
		}
	}
	*nr_out = n;
	return t;
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch == '\n')
			fputs("\\n", f);
		else if (ch == '\t')
			fputs("\\t", f);
		else if (ch < 0x20 || ch == 0x7f)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static void json_num(FILE *f, double v)
{
	if (!isfinite(v))
		fputs("null", f);
	else if (v == floor(v) && fabs(v) < 9007199254740992.0)
		fprintf(f, "%.0f", v);
	else
		fprintf(f, "%.6f", v);
}

static void write_json(FILE *f, const struct snapshot *sn, const struct total *t, int nt)
{
	int i, j, k, n;

	fprintf(f, "{\"pid\":%d,\"events\":[", (int)getpid());
	for (j = 0; j < sn->nr_events; j++) {
		fputs(j ? "," : "", f);
		json_str(f, g_events[j].name);
	}
	fputs("],\"units\":[", f);
	for (j = 0; j < sn->nr_events; j++) {
		fputs(j ? "," : "", f);
		if (g_events[j].unit)
			json_str(f, g_events[j].unit);
		else
			fputs("null", f);
	}
	fputs("],\"regions\":[", f);
	for (k = 0; k < nt; k++) {
		fputs(k ? ",\n{\"name\":" : "\n{\"name\":", f);
		json_str(f, t[k].name);
		fprintf(f, ",\"calls\":%llu,\"values\":[", (unsigned long long)t[k].calls);
		for (j = 0; j < sn->nr_events; j++) {
			fputs(j ? "," : "", f);
			if (t[k].counted[j])
				json_num(f, t[k].values[j]);
			else
				fputs("null", f);
		}
		fputs("],\"threads\":[", f);
		for (i = 0, n = 0; i < sn->nr_regions; i++) {
			const struct snap_region *r = &sn->regions[i];
			const struct snap_thread *th = &sn->threads[r->thread];
			int g;

			if (!same_name(r->name, t[k].name))
				continue;
			fprintf(f, "%s{\"tid\":%d,\"calls\":%llu,\"values\":[", n++ ? "," : "",
				(int)th->tid, (unsigned long long)r->calls);
			for (g = 0; g < sn->nr_events; g++) {
				fputs(g ? "," : "", f);
				for (j = 0; j < th->nr && th->gmap[j] != g; j++)
					;
				if (j < th->nr)
					json_num(f, r->values[j]);
				else
					fputs("null", f);
			}
			fputs("]}", f);
		}
		fputs("]}", f);
	}
	fputs("\n]}\n", f);
}

/* @v with thousands separators, two decimals when @frac or not integral. */
static const char *fmt_num(char *buf, size_t len, double v, bool frac)
{
	char tmp[64], *dot;
	size_t n, i, o = 0, int_len;
	bool neg = v < 0;

	if (!frac && v != floor(v))
		frac = true;
	snprintf(tmp, sizeof(tmp), frac ? "%.2f" : "%.0f", fabs(v));
	dot = strchr(tmp, '.');
	int_len = dot ? (size_t)(dot - tmp) : strlen(tmp);
	n = strlen(tmp);
	if (neg && o + 1 < len)
		buf[o++] = '-';
	for (i = 0; i < n && o + 2 < len; i++) {
		if (i && i < int_len && (int_len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = 0;
	return buf;
}

static void text_value(FILE *f, const char *indent, double v, bool counted, const char *event,
		       const char *unit, uint64_t calls)
{
	char num[80];

	if (!counted) {
		fprintf(f, "%s%18s %-4s %-25s\n", indent, "<not counted>", "", event);
		return;
	}
	fprintf(f, "%s%18s %-4s %-25s # %12.3f %s/call\n", indent,
		fmt_num(num, sizeof(num), v, false), unit ? unit : "", event,
		calls ? v / calls : 0.0, unit ? unit : "");
}

static void write_text(FILE *f, const struct snapshot *sn, const struct total *t, int nt)
{
	char num[80];
	int i, j, k;

	fprintf(f, "\n Regions of process %d (%d region%s, %d thread%s):\n", (int)getpid(), nt,
		nt == 1 ? "" : "s", sn->nr_threads, sn->nr_threads == 1 ? "" : "s");
	for (k = 0; k < nt; k++) {
		fprintf(f, "\n Region '%s': %s call%s in %d thread%s\n\n", t[k].name,
			fmt_num(num, sizeof(num), (double)t[k].calls, false),
			t[k].calls == 1 ? "" : "s", t[k].nr_threads,
			t[k].nr_threads == 1 ? "" : "s");
		for (j = 0; j < sn->nr_events; j++)
			text_value(f, "", t[k].values[j], t[k].counted[j], g_events[j].name,
				   g_events[j].unit, t[k].calls);
		for (i = 0; i < sn->nr_regions; i++) {
			const struct snap_region *r = &sn->regions[i];
			const struct snap_thread *th = &sn->threads[r->thread];
			int g;

			if (!same_name(r->name, t[k].name))
				continue;
			fprintf(f, "\n   thread %d: %s call%s\n", (int)th->tid,
				fmt_num(num, sizeof(num), (double)r->calls, false),
				r->calls == 1 ? "" : "s");
			for (g = 0; g < sn->nr_events; g++) {
				for (j = 0; j < th->nr && th->gmap[j] != g; j++)
					;
				text_value(f, "  ", j < th->nr ? r->values[j] : 0, j < th->nr,
					   g_events[g].name, g_events[g].unit, r->calls);
			}
		}
	}
	fputc('\n', f);
}

PCL_API int pcl_regions_write(FILE *f, enum pcl_regions_format fmt)
{
	struct snapshot sn;
	struct total *t;
	int err, nt;

	if (!f || (fmt != PCL_REGIONS_TEXT && fmt != PCL_REGIONS_JSON))
		return pcl_err(EINVAL, "regions: bad arguments to write");
	err = snapshot_take(&sn, NULL);
	if (err)
		return err;
	t = totals_make(&sn, &nt);
	if (!t) {
		snapshot_free(&sn);
		return pcl_err(ENOMEM, "regions: out of memory");
	}
	if (fmt == PCL_REGIONS_JSON)
		write_json(f, &sn, t, nt);
	else
		write_text(f, &sn, t, nt);
	free(t);
	snapshot_free(&sn);
	if (fflush(f) || ferror(f))
		return pcl_err(EIO, "regions: write failed");
	return 0;
}

/*
 * PCL_REGIONS_FILE with "%p" replaced by the process id, so that a program
 * whose children (fork) use regions too can give each its own file.
 */
static void expand_path(char *out, size_t len, const char *path)
{
	size_t o = 0;

	for (; *path && o + 1 < len; path++) {
		if (path[0] == '%' && path[1] == 'p') {
			o += snprintf(out + o, len - o, "%d", (int)getpid());
			if (o >= len)
				o = len - 1;
			path++;
		} else {
			out[o++] = *path;
		}
	}
	out[o] = 0;
}

static void regions_at_exit(void)
{
	const char *fmt = getenv("PCL_REGIONS"), *path = getenv("PCL_REGIONS_FILE");
	enum pcl_regions_format f;
	char buf[4096];
	FILE *out = stderr;

	if (!fmt || !*fmt)
		return;
	if (!strcmp(fmt, "text"))
		f = PCL_REGIONS_TEXT;
	else if (!strcmp(fmt, "json"))
		f = PCL_REGIONS_JSON;
	else {
		pr_warn("PCL_REGIONS='%s': expected 'text' or 'json'\n", fmt);
		return;
	}
	if (path && *path) {
		expand_path(buf, sizeof(buf), path);
		out = fopen(buf, "w");
		if (!out) {
			pr_warn("PCL_REGIONS_FILE '%s': %s\n", buf, strerror(errno));
			return;
		}
	}
	pcl_regions_write(out, f);
	if (out != stderr)
		fclose(out);
}
