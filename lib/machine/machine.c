/* SPDX-License-Identifier: MIT */
/*
 * The machine model (contract in include/pcl/machine.h).
 *
 * Threads live in a hash table keyed by tid (as perf keys them). Each
 * process has one map set (struct pcl_maps), shared by its threads through
 * a reference count: a thread created by FORK with the parent's pid shares
 * it, a new process gets a copy. A map set is an array sorted by start with
 * no overlaps: a new map cuts the parts of older maps it covers, as perf's
 * maps__fixup_overlappings does, so lookups are a binary search. The kernel
 * and its modules have their own map set.
 *
 * DSOs are unique by name (a hash table) and owned by the machine; maps
 * point at them. Strings a report compares (comms) are interned so that
 * equal names are equal pointers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "internal.h"

struct pcl_maps {
	struct pcl_map **v; /* sorted by start, no overlaps */
	int n, alloc;
	int refcnt;
	/*
	 * The machine's generation when this set's code last changed (made,
	 * cloned, an executable map added or cut): a per-process version for
	 * caches of one address space (the unwinder's), unique across sets.
	 */
	uint64_t generation;
};

struct strtab {
	char **slot;
	size_t n, cap; /* cap: power of two */
};

struct pcl_machine {
	struct pcl_thread **threads; /* open addressing by tid */
	size_t nr_threads, cap_threads;
	struct pcl_dso **dsos; /* creation order */
	int nr_dsos, alloc_dsos;
	struct pcl_dso **dso_hash; /* open addressing by name */
	size_t cap_dso_hash;
	struct pcl_maps kmaps;
	bool have_kernel_map;
	/* every map ever made: frames keep pointing at maps that were since cut */
	struct pcl_map **all_maps;
	int nr_all_maps, alloc_all_maps;
	uint64_t generation; /* bumped by every change to a map set */
	/*
	 * The generation of the last change that can move what an address of
	 * code resolves to: a map set made (its address may be an old one's),
	 * an executable map added or cut. A data map (mmap_data's [heap] as
	 * it grows, thousands of times in a --call-graph dwarf recording) does
	 * not move it.
	 */
	uint64_t code_generation;
	struct strtab strings;
	/* BUILD_ID feature entries not yet matched to a DSO */
	struct pending_bid {
		char *name;
		uint8_t size, id[20];
	} *bids;
	int nr_bids, alloc_bids;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ULL;
	return h;
}

static uint64_t hash_int(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

PCL_API struct pcl_machine *pcl_machine__new(void)
{
	struct pcl_machine *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->kmaps.refcnt = 1;
	return m;
}

static void maps_put(struct pcl_maps *maps)
{
	if (maps && --maps->refcnt == 0) {
		free(maps->v);
		free(maps);
	}
}

static void dso_free(struct pcl_dso *d)
{
	if (d->sym_free && d->sym_priv)
		d->sym_free(d->sym_priv);
	free(d->sym_note);
	free(d->name);
	free(d);
}

PCL_API void pcl_machine__free(struct pcl_machine *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->cap_threads; i++)
		if (m->threads[i]) {
			maps_put(m->threads[i]->maps);
			free(m->threads[i]);
		}
	free(m->threads);
	for (int i = 0; i < m->nr_dsos; i++)
		dso_free(m->dsos[i]);
	free(m->dsos);
	free(m->dso_hash);
	free(m->kmaps.v);
	for (int i = 0; i < m->nr_all_maps; i++)
		free(m->all_maps[i]);
	free(m->all_maps);
	for (size_t i = 0; i < m->strings.cap; i++)
		free(m->strings.slot[i]);
	free(m->strings.slot);
	for (int i = 0; i < m->nr_bids; i++)
		free(m->bids[i].name);
	free(m->bids);
	free(m);
}

PCL_API const char *pcl_machine__intern(struct pcl_machine *m, const char *s)
{
	struct strtab *t = &m->strings;
	size_t i;

	if (t->n * 2 >= t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 256;
		char **ns = calloc(ncap, sizeof(*ns));

		if (!ns)
			return NULL;
		for (size_t k = 0; k < t->cap; k++) {
			if (!t->slot[k])
				continue;
			i = hash_str(t->slot[k]) & (ncap - 1);
			while (ns[i])
				i = (i + 1) & (ncap - 1);
			ns[i] = t->slot[k];
		}
		free(t->slot);
		t->slot = ns;
		t->cap = ncap;
	}
	i = hash_str(s) & (t->cap - 1);
	while (t->slot[i]) {
		if (!strcmp(t->slot[i], s))
			return t->slot[i];
		i = (i + 1) & (t->cap - 1);
	}
	t->slot[i] = strdup(s);
	if (!t->slot[i])
		return NULL;
	t->n++;
	return t->slot[i];
}

/* ---- DSOs ---- */

static const char *dso_short_name(const char *name, enum pcl_dso_kind kind, char *buf, size_t len)
{
	const char *b = strrchr(name, '/');
	int pid;

	if (kind == PCL_DSO_MODULE && name[0] == '/') {
		/* /lib/modules/.../e1000e.ko.xz -> [e1000e], with '-' as '_' as the kernel names it */
		size_t n = strcspn(b + 1, ".");

		snprintf(buf, len, "[%.*s]", (int)n, b + 1);
		for (char *p = buf; *p; p++)
			if (*p == '-')
				*p = '_';
		return buf;
	}
	/* perf names a JIT region's /tmp/perf-PID.map "[JIT] tid PID", map file or not */
	if (kind == PCL_DSO_JIT && sscanf(name, "/tmp/perf-%d.map", &pid) == 1) {
		snprintf(buf, len, "[JIT] tid %d", pid);
		return buf;
	}
	return b && name[0] != '[' ? b + 1 : name;
}

static int dso_hash_insert(struct pcl_machine *m, struct pcl_dso *d)
{
	size_t i;

	if ((size_t)m->nr_dsos * 2 >= m->cap_dso_hash) {
		size_t ncap = m->cap_dso_hash ? m->cap_dso_hash * 2 : 64;
		struct pcl_dso **nh = calloc(ncap, sizeof(*nh));

		if (!nh)
			return -ENOMEM;
		free(m->dso_hash);
		m->dso_hash = nh;
		m->cap_dso_hash = ncap;
		for (int k = 0; k < m->nr_dsos; k++) {
			i = hash_str(m->dsos[k]->name) & (ncap - 1);
			while (nh[i])
				i = (i + 1) & (ncap - 1);
			nh[i] = m->dsos[k];
		}
	}
	i = hash_str(d->name) & (m->cap_dso_hash - 1);
	while (m->dso_hash[i])
		i = (i + 1) & (m->cap_dso_hash - 1);
	m->dso_hash[i] = d;
	return 0;
}

PCL_API struct pcl_dso *pcl_machine__find_dso(struct pcl_machine *m, const char *name)
{
	size_t i;

	if (!m || !m->cap_dso_hash)
		return NULL;
	i = hash_str(name) & (m->cap_dso_hash - 1);
	while (m->dso_hash[i]) {
		if (!strcmp(m->dso_hash[i]->name, name))
			return m->dso_hash[i];
		i = (i + 1) & (m->cap_dso_hash - 1);
	}
	return NULL;
}

static void apply_pending_build_id(struct pcl_machine *m, struct pcl_dso *d)
{
	for (int i = 0; i < m->nr_bids; i++)
		if (!strcmp(m->bids[i].name, d->name) && !d->build_id_size) {
			d->build_id_size = m->bids[i].size;
			memcpy(d->build_id, m->bids[i].id, m->bids[i].size);
		}
}

static struct pcl_dso *dso_findnew(struct pcl_machine *m, const char *name,
				   enum pcl_dso_kind kind, int32_t pid)
{
	struct pcl_dso *d = pcl_machine__find_dso(m, name);
	char sbuf[256];

	if (d)
		return d;
	d = calloc(1, sizeof(*d));
	if (!d || !(d->name = strdup(name)))
		goto err;
	d->kind = kind;
	d->pid = pid;
	d->short_name = pcl_machine__intern(m, dso_short_name(d->name, kind, sbuf, sizeof(sbuf)));
	if (!d->short_name ||
	    grow_array((void **)&m->dsos, &m->alloc_dsos, m->nr_dsos + 1, sizeof(*m->dsos)))
		goto err;
	d->seq = (uint32_t)m->nr_dsos;
	m->dsos[m->nr_dsos++] = d;
	if (dso_hash_insert(m, d)) {
		m->nr_dsos--;
		goto err;
	}
	apply_pending_build_id(m, d);
	return d;
err:
	if (d)
		free(d->name);
	free(d);
	return NULL;
}

PCL_API int pcl_machine__nr_dsos(const struct pcl_machine *m)
{
	return m ? m->nr_dsos : 0;
}

PCL_API struct pcl_dso *pcl_machine__dso(const struct pcl_machine *m, int i)
{
	return m && i >= 0 && i < m->nr_dsos ? m->dsos[i] : NULL;
}

/* ---- map sets ---- */

/* Index of the first map with end > @addr. */
static int maps_lower(const struct pcl_maps *ms, uint64_t addr)
{
	int lo = 0, hi = ms->n;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (ms->v[mid]->end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct pcl_map *maps_find(const struct pcl_maps *ms, uint64_t addr)
{
	int i = maps_lower(ms, addr);

	return i < ms->n && ms->v[i]->start <= addr ? ms->v[i] : NULL;
}

/* A map object that lives as long as the machine. */
static struct pcl_map *map_new(struct pcl_machine *m, const struct pcl_map *src)
{
	struct pcl_map *map;

	if (grow_array((void **)&m->all_maps, &m->alloc_all_maps, m->nr_all_maps + 1,
		       sizeof(*m->all_maps)))
		return NULL;
	map = malloc(sizeof(*map));
	if (!map)
		return NULL;
	*map = *src;
	m->all_maps[m->nr_all_maps++] = map;
	return map;
}

/*
 * Insert @nm, cutting what it covers out of the maps there: an older map
 * that straddles its start keeps its head, one that straddles its end keeps
 * its tail (with pgoff moved along), and ones inside it go. Cut maps are new
 * objects: the old ones stay valid for whoever points at them.
 */
static int maps_insert(struct pcl_machine *m, struct pcl_maps *ms, const struct pcl_map *nm)
{
	int i = maps_lower(ms, nm->start), j = i;
	struct pcl_map head = { 0 }, tail = { 0 };
	struct pcl_map *hp = NULL, *tp = NULL, *np;
	int add;

	if (nm->end <= nm->start)
		return 0;
	bool code = nm->prot & PROT_EXEC;

	while (j < ms->n && ms->v[j]->start < nm->end) {
		const struct pcl_map *o = ms->v[j];

		code |= o->prot & PROT_EXEC;
		if (o->start < nm->start) {
			head = *o;
			head.end = nm->start;
			if (!(hp = map_new(m, &head)))
				return -ENOMEM;
		}
		if (o->end > nm->end) {
			tail = *o;
			if (tail.pgoff != UINT64_MAX)
				tail.pgoff += nm->end - o->start;
			tail.start = nm->end;
			if (!(tp = map_new(m, &tail)))
				return -ENOMEM;
		}
		j++;
	}
	np = map_new(m, nm);
	if (!np)
		return -ENOMEM;
	m->generation++;
	if (code) {
		m->code_generation = m->generation;
		ms->generation = m->generation;
	}
	/* [i, j) are replaced by head? + nm + tail? */
	add = !!hp + 1 + !!tp - (j - i);
	if (grow_array((void **)&ms->v, &ms->alloc, ms->n + (add > 0 ? add : 0), sizeof(*ms->v)))
		return -ENOMEM;
	memmove(&ms->v[j + add], &ms->v[j], (size_t)(ms->n - j) * sizeof(*ms->v));
	ms->n += add;
	if (hp)
		ms->v[i++] = hp;
	ms->v[i++] = np;
	if (tp)
		ms->v[i] = tp;
	return 0;
}

static struct pcl_maps *maps_new(void)
{
	struct pcl_maps *ms = calloc(1, sizeof(*ms));

	if (ms)
		ms->refcnt = 1;
	return ms;
}

static struct pcl_maps *maps_clone(const struct pcl_maps *src)
{
	struct pcl_maps *ms = maps_new();

	if (!ms || !src->n)
		return ms;
	ms->v = malloc((size_t)src->n * sizeof(*ms->v));
	if (!ms->v) {
		free(ms);
		return NULL;
	}
	memcpy(ms->v, src->v, (size_t)src->n * sizeof(*ms->v));
	ms->n = ms->alloc = src->n;
	return ms;
}

/* ---- threads ---- */

static struct pcl_thread *thread_find(struct pcl_machine *m, int32_t tid)
{
	size_t i;

	if (!m->cap_threads)
		return NULL;
	i = hash_int((uint32_t)tid) & (m->cap_threads - 1);
	while (m->threads[i]) {
		if (m->threads[i]->tid == tid)
			return m->threads[i];
		i = (i + 1) & (m->cap_threads - 1);
	}
	return NULL;
}

static int thread_insert(struct pcl_machine *m, struct pcl_thread *t)
{
	size_t i;

	if (m->nr_threads * 2 >= m->cap_threads) {
		size_t ncap = m->cap_threads ? m->cap_threads * 2 : 256;
		struct pcl_thread **nt = calloc(ncap, sizeof(*nt));

		if (!nt)
			return -ENOMEM;
		for (size_t k = 0; k < m->cap_threads; k++) {
			if (!m->threads[k])
				continue;
			i = hash_int((uint32_t)m->threads[k]->tid) & (ncap - 1);
			while (nt[i])
				i = (i + 1) & (ncap - 1);
			nt[i] = m->threads[k];
		}
		free(m->threads);
		m->threads = nt;
		m->cap_threads = ncap;
	}
	i = hash_int((uint32_t)t->tid) & (m->cap_threads - 1);
	while (m->threads[i])
		i = (i + 1) & (m->cap_threads - 1);
	m->threads[i] = t;
	m->nr_threads++;
	return 0;
}

/*
 * A thread as the machine keeps it: what pcl_machine__prune needs beside
 * the public part (which comes first: a thread's address is its mthread's).
 */
struct mthread {
	struct pcl_thread t;
	uint32_t exited_prunes; /* prunes it has been seen exited at */
};

/* @comm: the thread's (interned) name; NULL: perf's ":TID" (or swapper). */
static struct pcl_thread *thread_new(struct pcl_machine *m, int32_t pid, int32_t tid,
				     struct pcl_maps *maps, const char *comm)
{
	struct mthread *mt = calloc(1, sizeof(*mt));
	struct pcl_thread *t = &mt->t;
	char name[32];

	if (!mt)
		return NULL;
	t->pid = pid;
	t->tid = tid;
	/* perf names the idle task swapper */
	snprintf(name, sizeof(name), tid ? ":%d" : "swapper", tid);
	t->comm = comm ? comm : pcl_machine__intern(m, name);
	t->maps = maps;
	t->ppid = -1;
	if (!t->comm || !maps || thread_insert(m, t)) {
		free(t);
		return NULL;
	}
	return t;
}

PCL_API struct pcl_thread *pcl_machine__thread(struct pcl_machine *m, int32_t pid, int32_t tid)
{
	struct pcl_thread *t, *leader;
	struct pcl_maps *maps;

	if (!m)
		return NULL;
	if (pid == -1)
		pid = tid = 0;
	t = thread_find(m, tid);
	if (t) {
		if (t->pid == -1 && pid != -1)
			t->pid = pid;
		return t;
	}
	/* a thread first seen in a sample shares its process's maps, as in perf */
	if (pid != tid && pid > 0 && (leader = pcl_machine__thread(m, pid, pid))) {
		maps = leader->maps;
		maps->refcnt++;
	} else {
		maps = maps_new();
		m->code_generation = ++m->generation;
		if (maps)
			maps->generation = m->generation;
	}
	t = thread_new(m, pid, tid, maps, NULL);
	if (!t)
		maps_put(maps);
	return t;
}

static int process_fork(struct pcl_machine *m, const struct pcl_record *rec)
{
	struct pcl_thread *parent, *child;
	struct pcl_maps *maps;
	int32_t pid = (int32_t)rec->task.pid, tid = (int32_t)rec->task.tid;

	parent = pcl_machine__thread(m, (int32_t)rec->task.ppid, (int32_t)rec->task.ptid);
	if (!parent)
		return -ENOMEM;
	/* map sets may be freed and made: their addresses are reused */
	m->code_generation = ++m->generation;
	child = thread_find(m, tid);
	if (child && child != parent) {
		/* a reused tid: the new thread starts afresh */
		maps_put(child->maps);
		child->maps = NULL;
	} else if (child == parent) {
		return 0;
	}
	if (pid == parent->pid) {
		maps = parent->maps;
		maps->refcnt++;
	} else {
		maps = maps_clone(parent->maps);
		if (!maps)
			return -ENOMEM;
		maps->generation = m->generation;
	}
	if (child) {
		child->maps = maps;
		child->pid = pid;
		child->exited = false;
		((struct mthread *)child)->exited_prunes = 0;
	} else if (!(child = thread_new(m, pid, tid, maps,
					/* no ":TID" string per child of a named parent */
					parent->comm_set ? parent->comm : NULL))) {
		maps_put(maps);
		return -ENOMEM;
	}
	child->ppid = parent->tid;
	/* perf: a child takes its parent's name only when the parent has one */
	if (parent->comm_set) {
		child->comm = parent->comm;
		child->comm_set = true;
	}
	return 0;
}

static int process_comm(struct pcl_machine *m, const struct pcl_record *rec)
{
	struct pcl_thread *t = pcl_machine__thread(m, (int32_t)rec->comm.pid, (int32_t)rec->comm.tid);
	const char *c;

	if (!t)
		return -ENOMEM;
	c = pcl_machine__intern(m, rec->comm.comm);
	if (!c)
		return -ENOMEM;
	t->comm = c;
	t->comm_set = true;
	t->comm_exec = rec->misc & PERF_RECORD_MISC_COMM_EXEC;
	return 0;
}

/* ---- maps from records ---- */

static bool is_anon(const char *f)
{
	return !strcmp(f, "//anon") || !strncmp(f, "/dev/zero", 9) ||
	       !strncmp(f, "/anon_hugepage", 14);
}

static bool is_no_dso(const char *f)
{
	return !strncmp(f, "[stack", 6) || !strncmp(f, "/SYSV", 5) || !strcmp(f, "[heap]");
}

static int kernel_mmap(struct pcl_machine *m, const struct pcl_record *rec)
{
	const char *f = rec->mmap.filename;
	struct pcl_map map = { .start = rec->mmap.addr, .pgoff = rec->mmap.pgoff };
	struct pcl_dso *d;

	if (!strncmp(f, "[kernel.kallsyms]", 17) || !strncmp(f, "[guest.kernel.kallsyms", 22)) {
		d = dso_findnew(m, "[kernel.kallsyms]", PCL_DSO_KERNEL, -1);
		/* the kernel map runs to the top: what the modules do not cover is the kernel's */
		map.end = UINT64_MAX;
		m->have_kernel_map = true;
	} else if (f[0] == '/') {
		d = dso_findnew(m, f, PCL_DSO_MODULE, -1);
		map.end = rec->mmap.addr + rec->mmap.len;
	} else {
		d = dso_findnew(m, f, PCL_DSO_KERNEL, -1); /* [bpf_prog], [kernel.kallsyms]... */
		map.end = rec->mmap.addr + rec->mmap.len;
	}
	if (!d)
		return -ENOMEM;
	map.dso = d;
	if (map.end == UINT64_MAX) {
		/* keep modules: the kernel map only fills the space below the first one */
		for (int i = 0; i < m->kmaps.n; i++)
			if (m->kmaps.v[i]->start > map.start &&
			    m->kmaps.v[i]->dso->kind == PCL_DSO_MODULE) {
				map.end = m->kmaps.v[i]->start;
				break;
			}
	}
	return maps_insert(m, &m->kmaps, &map);
}

static int process_mmap(struct pcl_machine *m, const struct pcl_record *rec)
{
	const char *f = rec->mmap.filename;
	unsigned int cpumode = rec->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	struct pcl_thread *t;
	struct pcl_map map = { .start = rec->mmap.addr, .end = rec->mmap.addr + rec->mmap.len };
	enum pcl_dso_kind kind = PCL_DSO_USER;
	char jit[64];
	struct pcl_dso *d;

	if (cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL)
		return kernel_mmap(m, rec);
	t = pcl_machine__thread(m, (int32_t)rec->mmap.pid, (int32_t)rec->mmap.tid);
	if (!t)
		return -ENOMEM;
	if (rec->type == PERF_RECORD_MMAP2) {
		map.prot = rec->mmap.prot;
		map.flags = rec->mmap.flags;
	} else {
		map.prot = rec->misc & PERF_RECORD_MISC_MMAP_DATA ? PROT_READ : PROT_READ | PROT_EXEC;
	}
	map.pgoff = rec->mmap.pgoff;
	if ((is_anon(f) || is_no_dso(f)) && (map.prot & PROT_EXEC)) {
		snprintf(jit, sizeof(jit), "/tmp/perf-%d.map", (int)rec->mmap.pid);
		f = jit;
		kind = PCL_DSO_JIT;
	} else if (!strcmp(f, "[vdso]")) {
		kind = PCL_DSO_VDSO;
		map.pgoff = 0;
	}
	d = dso_findnew(m, f, kind, (int32_t)rec->mmap.pid);
	if (!d)
		return -ENOMEM;
	if (rec->type == PERF_RECORD_MMAP2 && !(rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) &&
	    !d->ino)
		d->ino = rec->mmap.ino;
	if (rec->type == PERF_RECORD_MMAP2 && (rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) &&
	    rec->mmap.build_id_size && !d->build_id_size) {
		d->build_id_size = rec->mmap.build_id_size > 20 ? 20 : rec->mmap.build_id_size;
		memcpy(d->build_id, rec->mmap.build_id, d->build_id_size);
	}
	map.dso = d;
	if (kind == PCL_DSO_JIT || is_anon(rec->mmap.filename) || is_no_dso(rec->mmap.filename))
		map.pgoff = UINT64_MAX; /* identity: map_ip gives the ip itself */
	return maps_insert(m, t->maps, &map);
}

PCL_API int pcl_machine__process(struct pcl_machine *m, const struct pcl_record *rec)
{
	if (!m || !rec)
		return pcl_err(EINVAL, "pcl_machine__process: invalid argument");
	switch (rec->type) {
	case PERF_RECORD_COMM:
		return process_comm(m, rec);
	case PERF_RECORD_FORK:
		return process_fork(m, rec);
	case PERF_RECORD_EXIT: {
		struct pcl_thread *t = thread_find(m, (int32_t)rec->task.tid);

		if (t)
			t->exited = true;
		return 0;
	}
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return process_mmap(m, rec);
	default:
		return 0;
	}
}

PCL_API struct pcl_map *pcl_machine__find_map(struct pcl_machine *m, struct pcl_thread *thread,
					      bool kernel, uint64_t ip)
{
	if (!m)
		return NULL;
	if (kernel) {
		if (!m->have_kernel_map) {
			/* a file without the kernel's map: the kernel is still the kernel */
			struct pcl_record rec = { .type = PERF_RECORD_MMAP,
						  .misc = PERF_RECORD_MISC_KERNEL };

			rec.mmap.filename = "[kernel.kallsyms]";
			if (kernel_mmap(m, &rec))
				return NULL;
		}
		return maps_find(&m->kmaps, ip);
	}
	return thread && thread->maps ? maps_find(thread->maps, ip) : NULL;
}

PCL_API size_t pcl_machine__nr_threads(const struct pcl_machine *m)
{
	return m ? m->nr_threads : 0;
}

PCL_API size_t pcl_machine__threads(const struct pcl_machine *m, struct pcl_thread **out, size_t n)
{
	size_t got = 0;

	for (size_t k = 0; m && out && k < m->cap_threads && got < n; k++)
		if (m->threads[k])
			out[got++] = m->threads[k];
	return got;
}

PCL_API int pcl_thread__nr_maps(const struct pcl_thread *t)
{
	return t && t->maps ? t->maps->n : 0;
}

PCL_API const struct pcl_map *pcl_thread__map(const struct pcl_thread *t, int i)
{
	return t && t->maps && i >= 0 && i < t->maps->n ? t->maps->v[i] : NULL;
}

PCL_API uint64_t pcl_machine__generation(const struct pcl_machine *m)
{
	return m ? m->generation : 0;
}

uint64_t machine_code_generation(const struct pcl_machine *m)
{
	return m ? m->code_generation : 0;
}

uint64_t maps_generation(const struct pcl_maps *ms)
{
	return ms ? ms->generation : 0;
}

PCL_API uint64_t pcl_map__map_ip(const struct pcl_map *map, uint64_t ip)
{
	if (map->dso->kind != PCL_DSO_USER && map->dso->kind != PCL_DSO_VDSO)
		return ip;
	if (map->pgoff == UINT64_MAX)
		return ip;
	return ip - map->start + map->pgoff;
}

/*
 * BUILD_ID feature: records { perf_event_header, pid (s32), build_id[24]
 * (with the size in the header's misc when PERF_RECORD_MISC_BUILD_ID_SIZE),
 * filename (NUL-padded to the record's size) }.
 */
PCL_API int pcl_machine__set_build_ids(struct pcl_machine *m, const void *data, size_t len)
{
	const uint8_t *p = data, *end = p + len;

	if (!m || (!data && len))
		return pcl_err(EINVAL, "pcl_machine__set_build_ids: invalid argument");
	while (end - p >= 8) {
		struct perf_event_header h;
		uint8_t size = 20;
		const char *fname;
		struct pcl_dso *d;
		struct pending_bid *b;

		memcpy(&h, p, sizeof(h));
		if (h.size < 8 + 4 + 24 + 1 || h.size > (size_t)(end - p))
			return pcl_err(EBADMSG, "pcl_machine__set_build_ids: malformed record");
		if (h.misc & (1 << 15)) /* PERF_RECORD_MISC_BUILD_ID_SIZE */
			size = p[8 + 4 + 20];
		if (size > 20)
			size = 20;
		fname = (const char *)p + 8 + 4 + 24;
		if (!memchr(fname, '\0', h.size - (8 + 4 + 24)))
			return pcl_err(EBADMSG, "pcl_machine__set_build_ids: malformed record");
		d = pcl_machine__find_dso(m, fname);
		if (d && !d->build_id_size) {
			d->build_id_size = size;
			memcpy(d->build_id, p + 12, size);
		} else if (!d) {
			if (grow_array((void **)&m->bids, &m->alloc_bids, m->nr_bids + 1,
				       sizeof(*m->bids)))
				return pcl_err(ENOMEM, "pcl_machine__set_build_ids: out of memory");
			b = &m->bids[m->nr_bids];
			b->name = strdup(fname);
			if (!b->name)
				return pcl_err(ENOMEM, "pcl_machine__set_build_ids: out of memory");
			b->size = size;
			memcpy(b->id, p + 12, size);
			m->nr_bids++;
		}
		p += h.size;
	}
	return 0;
}

/* ---- pruning (pcl top): what exited processes leave behind ---- */

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t) * (const void *const *)a, y = (uintptr_t) * (const void *const *)b;

	return x < y ? -1 : x > y;
}

static bool in_set(const void *const *v, size_t n, const void *p)
{
	return n && bsearch(&p, v, n, sizeof(*v), cmp_ptr);
}

/* Drop the exited threads that @keep does not name; returns how many. */
static size_t prune_threads(struct pcl_machine *m, const void *const *keep, size_t nr_keep)
{
	size_t dropped = 0, k = 0;
	struct pcl_thread **live;

	if (!m->nr_threads)
		return 0;
	live = malloc(m->nr_threads * sizeof(*live));
	if (!live)
		return 0; /* nothing dropped: the next prune tries again */
	for (size_t i = 0; i < m->cap_threads; i++) {
		struct pcl_thread *t = m->threads[i];
		struct mthread *mt = (struct mthread *)t;

		if (!t)
			continue;
		/*
		 * Gone at the second prune that sees it exited: a sample of it
		 * may still sit in another CPU's ring after its EXIT record.
		 */
		if (t->exited && ++mt->exited_prunes >= 2) {
			if (!in_set(keep, nr_keep, t)) {
				maps_put(t->maps);
				free(mt);
				dropped++;
				continue;
			}
			/*
			 * kept for what it is (pid, tid, comm), not for its
			 * address space: an empty one (a reused tid can still
			 * get maps), so that its maps can go
			 */
			if (t->maps && t->maps->n) {
				struct pcl_maps *empty = maps_new();

				if (empty) {
					maps_put(t->maps);
					t->maps = empty;
					empty->generation = m->code_generation = ++m->generation;
				}
			}
		}
		live[k++] = t;
	}
	/* the table again, from the threads left (open addressing has no simple delete) */
	memset(m->threads, 0, m->cap_threads * sizeof(*m->threads));
	m->nr_threads = 0;
	for (size_t i = 0; i < k; i++) {
		size_t j = hash_int((uint32_t)live[i]->tid) & (m->cap_threads - 1);

		while (m->threads[j])
			j = (j + 1) & (m->cap_threads - 1);
		m->threads[j] = live[i];
		m->nr_threads++;
	}
	free(live);
	return dropped;
}

/* Free the maps no map set holds and @keep does not name; returns how many. */
static size_t prune_maps(struct pcl_machine *m, const void *const *keep, size_t nr_keep)
{
	const void **held = NULL;
	size_t nh = 0, cap = (size_t)m->kmaps.n, freed = 0;
	int kept = 0;

	for (size_t i = 0; i < m->cap_threads; i++)
		if (m->threads[i] && m->threads[i]->maps)
			cap += (size_t)m->threads[i]->maps->n;
	held = malloc((cap ? cap : 1) * sizeof(*held));
	if (!held)
		return 0;
	for (int i = 0; i < m->kmaps.n; i++)
		held[nh++] = m->kmaps.v[i];
	for (size_t i = 0; i < m->cap_threads; i++) {
		const struct pcl_maps *ms = m->threads[i] ? m->threads[i]->maps : NULL;

		for (int j = 0; ms && j < ms->n; j++)
			held[nh++] = ms->v[j];
	}
	if (nh)
		qsort(held, nh, sizeof(*held), cmp_ptr);
	for (int i = 0; i < m->nr_all_maps; i++) {
		struct pcl_map *map = m->all_maps[i];

		if (in_set(held, nh, map) || in_set(keep, nr_keep, map)) {
			m->all_maps[kept++] = map;
			continue;
		}
		free(map);
		freed++;
	}
	m->nr_all_maps = kept;
	free(held);
	return freed;
}

PCL_API int pcl_machine__prune(struct pcl_machine *m, const void *const *keep, size_t nr_keep)
{
	size_t threads, maps;

	if (!m || (nr_keep && !keep))
		return pcl_err(EINVAL, "pcl_machine__prune: invalid argument");
	threads = prune_threads(m, keep, nr_keep);
	maps = prune_maps(m, keep, nr_keep);
	/*
	 * Map sets and maps were freed: their addresses may come back for new
	 * ones, so whatever was cached by them (the resolver's frames) must go.
	 */
	if (threads || maps)
		m->code_generation = ++m->generation;
	return threads > INT32_MAX ? INT32_MAX : (int)threads;
}
