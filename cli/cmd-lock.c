/* SPDX-License-Identifier: MIT */
/*
 * pcl lock: kernel lock contention, as perf lock prints it.
 *
 *   record       pcl record of lock:contention_begin and lock:contention_end,
 *                every event (-c 1), kernel call chains (frame pointers).
 *   contention   reads such a file (pcl's or perf's) and prints the table of
 *                perf lock contention, on stderr as perf does. With a
 *                command or a target instead of a file (live mode), a
 *                child runs pcl record into a pipe and the table is built
 *                from that stream as it comes (perf's -b aggregates in the
 *                kernel with BPF; pcl has none, and takes -b for this).
 *   report       perf lock report's table from the same events: a line per
 *                lock address, named after the caller of its first wait.
 *   info         -t the threads that waited, -m the locks and their names.
 *
 * The aggregation is perf 6.1's (builtin-lock.c), so that the table is the
 * same line for line on the same file:
 *   - a contention_begin starts a wait of thread TID on lock ADDR; one end
 *     of that (TID, ADDR) closes it, and the time between is the wait. A
 *     second begin while waiting (a mutex spinning, then sleeping) is not
 *     a new wait; an end without a begin is a "bad" sequence, counted.
 *   - a wait counts towards an entry: by default the caller, the call
 *     chain (at most --max-stack frames) past the first --stack-skip
 *     frames and past lock functions (the kernel's sched and lock text
 *     sections), its key a hash of those addresses and its name the first
 *     such function with a symbol (FUNC+0xOFF); -t: the thread; -l: the
 *     lock's address. The end's own chain finds its entry, as in perf.
 *   - entries live in perf's 4096-bucket hash (newest first in a bucket);
 *     the table is that walk stably sorted by -k, biggest first, so ties
 *     come out in perf's order too.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <pcl/pcl.h>
#include "cli.h"
#include "input.h"

#define LOCKHASH_BITS 12
#define LOCKHASH_SIZE (1u << LOCKHASH_BITS)
#define SEQHASH_SIZE 65536u
#define GOLDEN_RATIO_64 0x61C8864680B583EBull

/* The contention_begin flags (include/trace/events/lock.h) */
#define LCB_F_SPIN (1u << 0)
#define LCB_F_READ (1u << 1)
#define LCB_F_WRITE (1u << 2)
#define LCB_F_RT (1u << 3)
#define LCB_F_PERCPU (1u << 4)
#define LCB_F_MUTEX (1u << 5)

enum aggr { AGGR_CALLER, AGGR_TASK, AGGR_ADDR };
enum key { K_CONTENDED, K_WAIT_TOTAL, K_WAIT_MAX, K_WAIT_MIN, K_AVG_WAIT, K_ACQUIRED, K__NR };
enum mode { M_CONTENTION, M_REPORT, M_INFO };

static const struct {
	const char *name, *header;
	int len;
} keys[K__NR] = {
	[K_ACQUIRED] = { "acquired", "acquired", 10 }, /* report only */
	[K_CONTENDED] = { "contended", "contended", 10 },
	[K_WAIT_TOTAL] = { "wait_total", "total wait", 12 },
	[K_WAIT_MAX] = { "wait_max", "max wait", 12 },
	[K_WAIT_MIN] = { "wait_min", "min wait", 12 },
	[K_AVG_WAIT] = { "avg_wait", "avg wait", 12 },
};

struct lock_opts {
	enum mode mode;
	const char *input;
	bool sort_set, fields_set;
	bool combine;		       /* report -c: lines of the same name as one */
	bool info_threads, info_map;   /* info -t, -m */
	enum key sort;
	enum key fields[K__NR];
	int nr_fields;
	long entries;
	enum aggr aggr;
	bool quiet, verbose, force;
	int max_stack, stack_skip;
	struct pcl_symbol_opts sym;
	/* live mode */
	bool live;
	bool system_wide;
	const char *cpus, *pids, *tids;
	char **argv;
	int argc;
};

/* One line of the table (perf's struct lock_stat). */
struct lstat {
	struct lstat *next; /* in its bucket, newest first */
	uint64_t key;
	char *name;
	unsigned int flags;
	unsigned int nr_contended, nr_acquired;
	uint64_t total, min, max, avg;
	bool broken;
	size_t pos; /* in perf's walk of the hash: ties keep this order */
	uint64_t *stack; /* -v: the first max_stack addresses of the chain */
	int nr_stack;
};

enum seq_state { SEQ_UNINIT, SEQ_ACQUIRED, SEQ_CONTENDED };

/* Where thread @tid stands on lock @addr (perf's lock_seq_stat). */
struct seq {
	struct seq *next;
	uint32_t tid;
	uint64_t addr;
	enum seq_state state;
	uint64_t prev_time;
};

/* A thread's name from its last COMM record (perf lock follows no FORK). */
struct comm {
	struct comm *next;
	uint32_t tid;
	char name[16];
};

struct lock_ctx {
	const struct lock_opts *o;
	struct comm *comms[LOCKHASH_SIZE];
	struct input *in;
	struct lstat *hash[LOCKHASH_SIZE];
	size_t nr_stats;
	struct seq **seqs;
	uint64_t begin_id, end_id; /* tracepoint ids */
	uint32_t begin_addr_off, begin_flags_off, end_addr_off;
	uint32_t begin_addr_size, begin_flags_size, end_addr_size;
	/* the kernel's sched and lock text sections (0: not known) */
	uint64_t sched_start, sched_end, lock_start, lock_end;
	bool tp_found, tp_tried; /* find_tracepoints succeeded; was called */
	unsigned int bad_contended, bad_acquired;
	uint64_t nr_samples;
};

/* perf's hash_long (tools/include/linux/hash.h): a u32, even for 64 bits */
static uint32_t hash_bits(uint64_t v, unsigned int bits)
{
	return (uint32_t)((v * GOLDEN_RATIO_64) >> (64 - bits));
}

/* ---- the kernel's lock functions ---- */

/*
 * The bounds of the kernel's sched and lock text sections, from kallsyms'
 * marker symbols. Scanned for by name: a symbol table drops a marker that
 * shares its address with a function (__pfx_...), and the scan reads the
 * file once where a table would be built for four names.
 */
static void find_lock_text(struct lock_ctx *c)
{
	static const char *const names[] = { "__sched_text_start", "__sched_text_end",
					     "__lock_text_start", "__lock_text_end" };
	uint64_t *dst[] = { &c->sched_start, &c->sched_end, &c->lock_start, &c->lock_end };
	FILE *f = fopen(c->o->sym.kallsyms ? c->o->sym.kallsyms : "/proc/kallsyms", "r");
	char line[512];
	int found = 0;

	while (f && found < 4 && fgets(line, sizeof(line), f)) {
		char *p, *name;
		uint64_t addr = strtoull(line, &p, 16);

		/* "ADDR TYPE NAME[\t[MODULE]]\n" */
		if (p == line || p[0] != ' ' || !p[1] || p[2] != ' ')
			continue;
		name = p + 3;
		name[strcspn(name, "\t\n")] = '\0';
		for (int j = 0; j < 4; j++)
			if (!*dst[j] && !strcmp(name, names[j])) {
				*dst[j] = addr;
				found++;
			}
	}
	if (f)
		fclose(f);
	if (found < 4 || !c->sched_start || !c->lock_start)
		c->sched_start = c->sched_end = c->lock_start = c->lock_end = 0;
}

static bool is_lock_function(const struct lock_ctx *c, uint64_t ip)
{
	if (!c->sched_start)
		return false;
	return (ip >= c->sched_start && ip < c->sched_end) ||
	       (ip >= c->lock_start && ip < c->lock_end);
}

/* ---- entries and waits ---- */

static struct lstat *stat_find(struct lock_ctx *c, uint64_t key)
{
	for (struct lstat *s = c->hash[hash_bits(key, LOCKHASH_BITS)]; s; s = s->next)
		if (s->key == key)
			return s;
	return NULL;
}

static struct lstat *stat_new(struct lock_ctx *c, uint64_t key, const char *name,
			      unsigned int flags)
{
	struct lstat *s = calloc(1, sizeof(*s)), **b = &c->hash[hash_bits(key, LOCKHASH_BITS)];

	if (!s || !(s->name = strdup(name))) {
		free(s);
		return NULL;
	}
	s->key = key;
	s->flags = flags;
	s->min = UINT64_MAX;
	s->next = *b;
	*b = s;
	c->nr_stats++;
	return s;
}

static struct seq *seq_get(struct lock_ctx *c, uint32_t tid, uint64_t addr, bool create)
{
	struct seq **b = &c->seqs[hash_bits(addr ^ ((uint64_t)tid << 32 | tid), 16)], *q;

	for (q = *b; q; q = q->next)
		if (q->tid == tid && q->addr == addr)
			return q;
	if (!create)
		return NULL;
	q = calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	q->tid = tid;
	q->addr = addr;
	q->next = *b;
	*b = q;
	return q;
}

/* The frames perf looks at: the chain, at most max_stack of them. */
static size_t usable_frames(const struct lock_ctx *c, const struct pcl_resolved *r)
{
	return r->nr_chain < (size_t)c->o->max_stack ? r->nr_chain : (size_t)c->o->max_stack;
}

/* perf's callchain_id: a hash of the addresses past the skipped and lock frames. */
static uint64_t caller_key(const struct lock_ctx *c, const struct pcl_resolved *r)
{
	uint64_t h = 0;

	for (size_t i = 0, n = usable_frames(c, r); i < n; i++) {
		const struct pcl_frame *f = &r->chain[i];

		if ((int)i < c->o->stack_skip || (f->sym && is_lock_function(c, f->ip)))
			continue;
		h ^= hash_bits(f->ip, 64);
	}
	return h;
}

/* perf's lock_contention_caller: FUNC+0xOFF of the first frame that is not a lock's. */
static bool caller_name(const struct lock_ctx *c, const struct pcl_resolved *r, char *buf,
			size_t size)
{
	for (size_t i = 0, n = usable_frames(c, r); i < n; i++) {
		const struct pcl_frame *f = &r->chain[i];

		if ((int)i < c->o->stack_skip || !f->sym || is_lock_function(c, f->ip))
			continue;
		snprintf(buf, size, "%s+%#" PRIx64, f->sym->name, f->addr - f->sym->start);
		return true;
	}
	return false;
}

/* The lock's own symbol, for -l (a static lock: its variable). */
static void addr_name(struct lock_ctx *c, uint64_t addr, char *buf, size_t size)
{
	struct pcl_frame f;

	buf[0] = '\0';
	pcl_resolver__frame(c->in->resolver, NULL, true, addr, &f);
	if (f.sym)
		snprintf(buf, size, "%s", f.sym->name);
}

static int entry_key(const struct lock_ctx *c, const struct pcl_record *rec, uint64_t addr,
		     const struct pcl_resolved *r, uint64_t *key)
{
	switch (c->o->aggr) {
	case AGGR_TASK: *key = rec->sample.tid; break;
	case AGGR_ADDR: *key = addr; break;
	default: *key = caller_key(c, r); break;
	}
	return 0;
}

static uint64_t raw_field(const struct pcl_record *rec, uint32_t off, uint32_t size)
{
	const unsigned char *p = rec->sample.raw;
	uint64_t v = 0;

	if (!p || (uint64_t)off + size > rec->sample.raw_size || size > 8)
		return 0;
	memcpy(&v, p + off, size); /* little-endian host, as the recorder */
	return v;
}

/* perf lock report and info name a lock after the caller of its first wait */
static bool names_by_caller(const struct lock_opts *o)
{
	return o->aggr == AGGR_CALLER || (o->mode != M_CONTENTION && o->aggr == AGGR_ADDR);
}

/* A new line's name: its caller, its lock's symbol, or none (threads). */
static int entry_name(struct lock_ctx *c, const struct pcl_record *rec, uint64_t addr,
		      struct pcl_resolved *r, bool *resolved, char *buf, size_t size)
{
	if (names_by_caller(c->o)) {
		if (!*resolved && pcl_resolver__sample(c->in->resolver, rec, r))
			return -ENOMEM;
		*resolved = true;
		if (!caller_name(c, r, buf, size))
			snprintf(buf, size, "Unknown");
	} else if (c->o->aggr == AGGR_ADDR) {
		addr_name(c, addr, buf, size);
	} else if (c->o->mode != M_CONTENTION) {
		snprintf(buf, size, "Unknown");
	}
	return 0;
}

static int on_begin(struct lock_ctx *c, const struct pcl_record *rec, struct pcl_resolved *r,
		    bool resolved)
{
	uint64_t addr = raw_field(rec, c->begin_addr_off, c->begin_addr_size), key;
	unsigned int flags = (unsigned int)raw_field(rec, c->begin_flags_off, c->begin_flags_size);
	struct lstat *s;
	struct seq *q;

	entry_key(c, rec, addr, r, &key);
	s = stat_find(c, key);
	if (!s) {
		char buf[128] = "";

		if (entry_name(c, rec, addr, r, &resolved, buf, sizeof(buf)))
			return -ENOMEM;
		s = stat_new(c, key, buf, flags);
		if (!s)
			return -ENOMEM;
		if (c->o->verbose && c->o->aggr == AGGR_CALLER) {
			size_t n = 0;

			s->stack = calloc((size_t)c->o->max_stack, sizeof(*s->stack));
			if (!s->stack)
				return -ENOMEM;
			for (uint64_t i = 0; i < rec->sample.nr_callchain && n < (size_t)c->o->max_stack;
			     i++)
				if (rec->sample.callchain[i] < PERF_CONTEXT_MAX)
					s->stack[n++] = rec->sample.callchain[i];
			s->nr_stack = (int)n;
		}
	}
	q = seq_get(c, rec->sample.tid, addr, true);
	if (!q)
		return -ENOMEM;
	/* a second begin while waiting (mutex spinning then sleeping) is the same wait */
	if (q->state != SEQ_CONTENDED) {
		q->state = SEQ_CONTENDED;
		q->prev_time = rec->sample.time;
		s->nr_contended++;
	}
	return 0;
}

static int on_end(struct lock_ctx *c, const struct pcl_record *rec, const struct pcl_resolved *r)
{
	uint64_t addr = raw_field(rec, c->end_addr_off, c->end_addr_size), key, t;
	struct lstat *s;
	struct seq *q;

	entry_key(c, rec, addr, r, &key);
	s = stat_find(c, key);
	if (!s)
		return 0;
	q = seq_get(c, rec->sample.tid, addr, false);
	if (!q || q->state == SEQ_UNINIT)
		return 0;
	if (q->state == SEQ_ACQUIRED) {
		/* an end with no begin since the last end: a broken sequence */
		if (!s->broken) {
			s->broken = true;
			c->bad_acquired++;
		}
		q->state = SEQ_UNINIT;
		return 0;
	}
	t = rec->sample.time - q->prev_time;
	s->total += t;
	if (t < s->min)
		s->min = t;
	if (t > s->max)
		s->max = t;
	q->state = SEQ_ACQUIRED;
	s->nr_acquired++;
	s->avg = s->total / s->nr_acquired;
	return 0;
}

/* ---- reading ---- */

static const struct pcl_tp_field *tp_field(const struct pcl_tp_format *f, const char *name)
{
	for (int i = 0; f && i < f->nr_fields; i++)
		if (!strcmp(f->fields[i].name, name))
			return &f->fields[i];
	return NULL;
}

/*
 * The ids and field offsets of the two tracepoints, from the file's formats
 * (a stream's come before its samples). false when there is no
 * contention_begin event.
 */
static bool find_tracepoints(struct lock_ctx *c)
{
	size_t len;
	const void *d = pcl_data_reader__feature(c->in->reader, PCL_FEAT_TRACING_DATA, &len);
	struct pcl_tracepoints *tp = d ? pcl_tracepoints__parse(d, len) : NULL;
	bool have_begin = false, have_end = false;

	for (int i = 0; tp && i < pcl_data_reader__nr_attrs(c->in->reader); i++) {
		const struct pcl_data_attr *a = pcl_data_reader__attr(c->in->reader, i);
		const struct pcl_tp_format *f;
		const struct pcl_tp_field *fa, *ff;

		if (a->attr.type != PERF_TYPE_TRACEPOINT)
			continue;
		f = pcl_tracepoints__find(tp, a->attr.config);
		if (!f || strcmp(f->system, "lock"))
			continue;
		fa = tp_field(f, "lock_addr");
		if (!fa)
			continue;
		if (!strcmp(f->name, "contention_begin") && (ff = tp_field(f, "flags"))) {
			c->begin_id = f->id;
			c->begin_addr_off = fa->offset;
			c->begin_addr_size = fa->size;
			c->begin_flags_off = ff->offset;
			c->begin_flags_size = ff->size;
			have_begin = true;
		} else if (!strcmp(f->name, "contention_end")) {
			c->end_id = f->id;
			c->end_addr_off = fa->offset;
			c->end_addr_size = fa->size;
			have_end = true;
		}
	}
	pcl_tracepoints__free(tp);
	if (!have_end)
		c->end_id = UINT64_MAX;
	c->tp_found = have_begin;
	return have_begin;
}

static void no_lock_events(void)
{
	fprintf(stderr, "No trace sample to read. Did you call 'perf lock record'?\n");
}

static int note_comm(struct lock_ctx *c, const struct pcl_record *rec)
{
	struct comm **b = &c->comms[hash_bits(rec->comm.tid, LOCKHASH_BITS)], *m;

	for (m = *b; m; m = m->next)
		if (m->tid == rec->comm.tid)
			break;
	if (!m) {
		m = calloc(1, sizeof(*m));
		if (!m)
			return -ENOMEM;
		m->tid = rec->comm.tid;
		m->next = *b;
		*b = m;
	}
	snprintf(m->name, sizeof(m->name), "%s", rec->comm.comm);
	return 0;
}

static int process(struct lock_ctx *c)
{
	int ret;

	while ((ret = input_next(c->in)) > 0) {
		const struct pcl_data_event *ev = &c->in->ev;
		const struct pcl_record *rec = &ev->rec;
		struct pcl_resolved r;
		bool begin;

		if (ev->decoded && ev->hdr->type == PERF_RECORD_COMM && note_comm(c, rec))
			return -ENOMEM;
		if (!ev->decoded || ev->hdr->type != PERF_RECORD_SAMPLE || !ev->attr ||
		    ev->attr->attr.type != PERF_TYPE_TRACEPOINT)
			continue;
		if (!c->tp_tried) {
			c->tp_tried = true;
			find_tracepoints(c);
		}
		if (!c->tp_found)
			continue;
		if (ev->attr->attr.config == c->begin_id)
			begin = true;
		else if (ev->attr->attr.config == c->end_id)
			begin = false;
		else
			continue;
		c->nr_samples++;
		memset(&r, 0, sizeof(r));
		if (c->o->aggr == AGGR_CALLER && pcl_resolver__sample(c->in->resolver, rec, &r))
			return -ENOMEM;
		ret = begin ? on_begin(c, rec, &r, c->o->aggr == AGGR_CALLER) : on_end(c, rec, &r);
		if (ret)
			return ret;
	}
	return ret < 0 ? -EIO : 0;
}

/* ---- the table ---- */

static uint64_t key_value(const struct lstat *s, enum key k)
{
	switch (k) {
	case K_CONTENDED: return s->nr_contended;
	case K_WAIT_TOTAL: return s->total;
	case K_WAIT_MAX: return s->max;
	case K_WAIT_MIN: return s->min == UINT64_MAX ? 0 : s->min;
	case K_ACQUIRED: return s->nr_acquired;
	default: return s->avg;
	}
}

static enum key sort_key;

static int cmp_stat(const void *a, const void *b)
{
	const struct lstat *x = *(struct lstat *const *)a, *y = *(struct lstat *const *)b;
	uint64_t vx = key_value(x, sort_key), vy = key_value(y, sort_key);

	if (vx != vy)
		return vx < vy ? 1 : -1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/*
 * perf lock report -c: the lines of the same name add up into the first
 * of them in @v's order; the others leave. Returns how many are left.
 */
static size_t combine_stats(struct lstat **v, size_t n)
{
	size_t kept = 0;

	for (size_t i = 0; i < n; i++) {
		struct lstat *s = v[i], *p = NULL;

		for (size_t j = 0; j < kept && !p; j++)
			if (!strcmp(v[j]->name, s->name))
				p = v[j];
		if (!p) {
			v[kept++] = s;
			continue;
		}
		p->nr_acquired += s->nr_acquired;
		p->nr_contended += s->nr_contended;
		p->total += s->total;
		if (p->nr_contended)
			p->avg = p->total / p->nr_contended;
		if (s->min < p->min)
			p->min = s->min;
		if (s->max > p->max)
			p->max = s->max;
		p->broken |= s->broken;
	}
	return kept;
}

/* perf's time column: the float arithmetic of lock_stat_key_print_time */
static void print_time(FILE *out, uint64_t ns, int len)
{
	static const struct {
		float base;
		const char *unit;
	} units[] = {
		{ 1e9 * 3600, "h " }, { 1e9 * 60, "m " }, { 1e9, "s " }, { 1e6, "ms" }, { 1e3, "us" },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if ((float)ns < units[i].base)
			continue;
		fprintf(out, "%*.2f %s", len - 3, (double)((float)ns / units[i].base), units[i].unit);
		return;
	}
	fprintf(out, "%*" PRIu64 " %s", len - 3, ns, "ns");
}

static const char *type_name(unsigned int flags)
{
	static const struct {
		unsigned int flags;
		const char *name;
	} types[] = {
		{ 0, "semaphore" },
		{ LCB_F_SPIN, "spinlock" },
		{ LCB_F_SPIN | LCB_F_READ, "rwlock:R" },
		{ LCB_F_SPIN | LCB_F_WRITE, "rwlock:W" },
		{ LCB_F_READ, "rwsem:R" },
		{ LCB_F_WRITE, "rwsem:W" },
		{ LCB_F_RT, "rtmutex" },
		{ LCB_F_RT | LCB_F_READ, "rwlock-rt:R" },
		{ LCB_F_RT | LCB_F_WRITE, "rwlock-rt:W" },
		{ LCB_F_PERCPU | LCB_F_READ, "pcpu-sem:R" },
		{ LCB_F_PERCPU | LCB_F_WRITE, "pcpu-sem:W" },
		{ LCB_F_MUTEX, "mutex" },
		{ LCB_F_MUTEX | LCB_F_SPIN, "mutex" },
	};

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (types[i].flags == flags)
			return types[i].name;
	return "unknown";
}

static void print_stack(struct lock_ctx *c, FILE *out, const struct lstat *s)
{
	for (int i = 0; i < s->nr_stack && s->stack[i]; i++) {
		struct pcl_frame f;
		char buf[160] = "";

		pcl_resolver__frame(c->in->resolver, NULL, true, s->stack[i], &f);
		if (f.sym && f.addr != f.sym->start)
			snprintf(buf, sizeof(buf), "%s+%#" PRIx64, f.sym->name, f.addr - f.sym->start);
		else if (f.sym)
			snprintf(buf, sizeof(buf), "%s", f.sym->name);
		fprintf(out, "\t\t\t%#" PRIx64 "  %s\n", s->stack[i], buf);
	}
}

/*
 * perf lock's name of a thread: that of its last COMM record, else ":TID"
 * (perf lock does not follow FORK records: forked children have no name).
 */
static const char *thread_comm(struct lock_ctx *c, uint32_t tid, char *buf, size_t size)
{
	for (struct comm *m = c->comms[hash_bits(tid, LOCKHASH_BITS)]; m; m = m->next)
		if (m->tid == tid)
			return m->name;
	snprintf(buf, size, ":%u", tid);
	return buf;
}

/*
 * The lines in perf's order: its walk of the hash, bucket by bucket and
 * newest first, stably sorted by the key, biggest first (perf inserts
 * into an rbtree, equal keys to the right). Report -c first merges the
 * lines of the same name into the first one of the walk. NULL on ENOMEM.
 */
static struct lstat **sorted_stats(struct lock_ctx *c, size_t *nr)
{
	struct lstat **v = calloc(c->nr_stats ? c->nr_stats : 1, sizeof(*v));
	size_t n = 0;

	if (!v)
		return NULL;
	for (unsigned int b = 0; b < LOCKHASH_SIZE; b++)
		for (struct lstat *s = c->hash[b]; s; s = s->next)
			v[n++] = s;
	if (c->o->combine)
		n = combine_stats(v, n);
	for (size_t i = 0; i < n; i++)
		v[i]->pos = i;
	sort_key = c->o->sort;
	qsort(v, n, sizeof(*v), cmp_stat);
	*nr = n;
	return v;
}

static void print_columns(FILE *out, const struct lock_opts *o, const struct lstat *s)
{
	for (int f = 0; f < o->nr_fields; f++) {
		enum key k = o->fields[f];

		if (k == K_CONTENDED || k == K_ACQUIRED)
			fprintf(out, "%*" PRIu64, keys[k].len, key_value(s, k));
		else
			print_time(out, key_value(s, k), keys[k].len);
		fputc(' ', out);
	}
}

/* perf's "=== output for debug===" section, when a sequence was broken (or -v). */
static void print_bad(struct lock_ctx *c, FILE *out, unsigned int bad, unsigned int total)
{
	static const char *const names[] = { "acquire", "acquired", "contended", "release" };
	unsigned int hist[] = { 0, c->bad_acquired, c->bad_contended, 0 };

	if (c->o->quiet || (!c->bad_contended && !c->bad_acquired && !c->o->verbose))
		return;
	fprintf(out, "\n=== output for debug===\n\n");
	fprintf(out, "bad: %u, total: %u\n", bad, total);
	fprintf(out, "bad rate: %.2f %%\n", (double)bad / (double)total * 100);
	fprintf(out, "histogram of events caused bad sequence\n");
	for (int i = 0; i < 4; i++)
		fprintf(out, " %10s: %u\n", names[i], hist[i]);
}

static void print_contention_head(FILE *out, const struct lock_opts *o)
{
	for (int i = 0; i < o->nr_fields; i++)
		fprintf(out, "%*s ", keys[o->fields[i]].len, keys[o->fields[i]].header);
	if (o->aggr == AGGR_TASK)
		fprintf(out, "  %10s   %s\n\n", "pid", "comm");
	else if (o->aggr == AGGR_ADDR)
		fprintf(out, "  %16s   %s\n\n", "address", "symbol");
	else
		fprintf(out, "  %10s   %s\n\n", "type", "caller");
}

/* perf lock contention's table. 0 or -ENOMEM. */
static int print_contention(struct lock_ctx *c, FILE *out)
{
	const struct lock_opts *o = c->o;
	size_t n;
	struct lstat **v = sorted_stats(c, &n);
	unsigned int bad = 0, total = 0;
	long printed = 0;

	if (!v)
		return -ENOMEM;
	if (!o->quiet)
		print_contention_head(out, o);
	for (size_t i = 0; i < n; i++) {
		const struct lstat *s = v[i];
		char buf[32];

		total++;
		bad += s->broken;
		print_columns(out, o, s);
		if (o->aggr == AGGR_TASK) {
			fprintf(out, "  %10d   %s\n", (int)s->key,
				thread_comm(c, (uint32_t)s->key, buf, sizeof(buf)));
		} else if (o->aggr == AGGR_ADDR) {
			fprintf(out, "  %016" PRIx64 "   %s\n", s->key, s->name);
		} else {
			fprintf(out, "  %10s   %s\n", type_name(s->flags), s->name);
			if (o->verbose)
				print_stack(c, out, s);
		}
		/* as perf: -E 0 still prints one */
		if (++printed >= o->entries)
			break;
	}
	free(v);
	print_bad(c, out, bad, total);
	return 0;
}

/* perf lock report's table: a lock per line, named after a caller. 0 or -ENOMEM. */
static int print_report(struct lock_ctx *c, FILE *out)
{
	const struct lock_opts *o = c->o;
	size_t n;
	struct lstat **v = sorted_stats(c, &n);
	unsigned int bad = 0, total = 0;
	long printed = 0;

	if (!v)
		return -ENOMEM;
	if (!o->quiet) {
		fprintf(out, "%20s ", "Name");
		for (int i = 0; i < o->nr_fields; i++)
			fprintf(out, "%*s ", keys[o->fields[i]].len, keys[o->fields[i]].header);
		fprintf(out, "\n\n");
	}
	for (size_t i = 0; i < n; i++) {
		const struct lstat *s = v[i];
		char buf[32];

		total++;
		bad += s->broken;
		if (!s->nr_acquired)
			continue;
		if (strlen(s->name) < 20) {
			fprintf(out, "%20s ",
				o->aggr == AGGR_TASK ? thread_comm(c, (uint32_t)s->key, buf, sizeof(buf))
						     : s->name);
		} else { /* cut to 16 characters and "...", as perf */
			snprintf(buf, sizeof(buf), "%.16s...", s->name);
			fprintf(out, "%20s ", buf);
		}
		print_columns(out, o, s);
		fputc('\n', out);
		if (++printed >= o->entries)
			break;
	}
	free(v);
	print_bad(c, out, bad, total);
	return 0;
}

static int cmp_tid(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_map(const void *a, const void *b)
{
	const struct lstat *x = *(struct lstat *const *)a, *y = *(struct lstat *const *)b;
	int r = strcmp(x->name, y->name);

	if (r)
		return r;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* perf lock info: -t the threads that waited, -m each lock and its name. 0 or -ENOMEM. */
static int print_info(struct lock_ctx *c, FILE *out)
{
	size_t n = 0, cap = 64;
	uint32_t *tids;
	struct lstat **v;

	if (c->o->info_threads) {
		if (!(tids = malloc(cap * sizeof(*tids))))
			return -ENOMEM;
		for (unsigned int b = 0; b < SEQHASH_SIZE; b++)
			for (struct seq *q = c->seqs[b]; q; q = q->next) {
				uint32_t *t = n == cap ? realloc(tids, (cap *= 2) * sizeof(*tids)) : tids;

				if (!t) {
					free(tids);
					return -ENOMEM;
				}
				tids = t;
				tids[n++] = q->tid;
			}
		qsort(tids, n, sizeof(*tids), cmp_tid);
		fprintf(out, "%10s: comm\n", "Thread ID");
		for (size_t i = 0; i < n; i++) {
			char buf[32];

			if (i && tids[i] == tids[i - 1])
				continue;
			fprintf(out, "%10d: %s\n", (int)tids[i], thread_comm(c, tids[i], buf, sizeof(buf)));
		}
		free(tids);
		return 0;
	}
	if (!(v = calloc(c->nr_stats ? c->nr_stats : 1, sizeof(*v))))
		return -ENOMEM;
	for (unsigned int b = 0; b < LOCKHASH_SIZE; b++)
		for (struct lstat *s = c->hash[b]; s; s = s->next)
			v[n++] = s;
	qsort(v, n, sizeof(*v), cmp_map);
	fprintf(out, "Address of instance: name of class\n");
	for (size_t i = 0; i < n; i++)
		fprintf(out, " %#" PRIx64 ": %s\n", v[i]->key, v[i]->name);
	free(v);
	return 0;
}

static void ctx_free(struct lock_ctx *c)
{
	for (unsigned int b = 0; b < LOCKHASH_SIZE; b++) {
		struct lstat *s = c->hash[b], *next;

		for (; s; s = next) {
			next = s->next;
			free(s->name);
			free(s->stack);
			free(s);
		}
	}
	for (unsigned int b = 0; b < LOCKHASH_SIZE; b++) {
		struct comm *m = c->comms[b], *next;

		for (; m; m = next) {
			next = m->next;
			free(m);
		}
	}
	for (unsigned int b = 0; c->seqs && b < SEQHASH_SIZE; b++) {
		struct seq *q = c->seqs[b], *next;

		for (; q; q = next) {
			next = q->next;
			free(q);
		}
	}
	free(c->seqs);
}

/* Read @path and print the table. The exit status. */
static int contention_file(const struct lock_opts *o, const char *path)
{
	struct lock_ctx *c = calloc(1, sizeof(*c));
	struct input in;
	int ret = 1, err;

	memset(&in, 0, sizeof(in));
	if (!c || !(c->seqs = calloc(SEQHASH_SIZE, sizeof(*c->seqs)))) {
		die_msg("out of memory");
		goto out;
	}
	c->o = o;
	c->in = &in;
	if (input_open(&in, path, &o->sym, o->force))
		goto out;
	/* a file's formats are known now; a stream's come with its first records */
	if (!pcl_data_reader__is_pipe(in.reader)) {
		c->tp_tried = true;
		if (!find_tracepoints(c)) {
			if (pcl_data_reader__truncated(in.reader))
				/* not "did you record?": the formats were in the lost tail */
				die_msg("'%s' is cut short (the recorder did not finish it) and has "
					"lost the lock events' formats", path);
			else
				no_lock_events();
			goto out;
		}
	}
	if (names_by_caller(o))
		find_lock_text(c);
	err = process(c);
	if (err == -ENOMEM) {
		die_msg("out of memory");
		goto out;
	}
	if (err)
		goto out;
	input_finish(&in);
	if (!c->tp_tried)
		find_tracepoints(c);
	/* live, we know what we recorded: no sample is an empty table */
	if (!c->tp_found && !o->live) {
		no_lock_events();
		goto out;
	}
	if (!o->quiet && c->tp_found && c->end_id == UINT64_MAX)
		/* perf prints the same table of 0 ns waits, and says nothing */
		fprintf(stderr, "pcl: warning: '%s' has no lock:contention_end event: no wait "
				"ends, its times are 0 (record both: pcl lock record)\n",
			path);
	if (!o->quiet && pcl_data_events__stats(in.events)->total_lost)
		fprintf(stderr, "pcl: warning: %" PRIu64 " lock events were lost (the rings were "
				"full): waits are missing from the table\n",
			pcl_data_events__stats(in.events)->total_lost);
	if ((o->mode == M_CONTENTION ? print_contention
	     : o->mode == M_REPORT   ? print_report
				     : print_info)(c, stderr)) {
		die_msg("out of memory");
		goto out;
	}
	ret = 0;
out:
	input_close(&in);
	if (c)
		ctx_free(c);
	free(c);
	return ret;
}

/* ---- recording ---- */

/* The arguments of pcl record that perf lock record passes to perf record. */
static const char *const record_args[] = {
	"-e", "lock:contention_begin", "-e", "lock:contention_end", "-c", "1", "-m", "1024",
	"--call-graph", "fp", "--no-fp-leaf",
};
#define NR_RECORD_ARGS (sizeof(record_args) / sizeof(record_args[0]))

/* pcl record with perf lock record's events, then @extra (options, --, command). */
static int run_record(int nr_pre, const char *const *pre, int argc, char **argv)
{
	char **v = calloc(2 + NR_RECORD_ARGS + (size_t)nr_pre + (size_t)argc + 1, sizeof(*v));
	int n = 0, ret;

	if (!v) {
		die_msg("out of memory");
		return 1;
	}
	/* cmd_record reads argv[-1], the program, for the file's command line */
	v[n++] = "pcl";
	v[n++] = "record";
	for (size_t i = 0; i < NR_RECORD_ARGS; i++)
		v[n++] = (char *)record_args[i];
	for (int i = 0; i < nr_pre; i++)
		v[n++] = (char *)pre[i];
	for (int i = 0; i < argc; i++)
		v[n++] = argv[i];
	v[n] = NULL;
	optind = 0; /* a fresh getopt for record's own parse */
	ret = cmd_record(n - 1, v + 1);
	free(v);
	return ret;
}

/* pcl record's options for live mode: quiet, into @wpath, on o's target. */
static int live_args(const struct lock_opts *o, const char *wpath, const char **pre)
{
	int n = 0;

	pre[n++] = "-q";
	pre[n++] = "-N";
	pre[n++] = "-o";
	pre[n++] = wpath;
	if (o->system_wide)
		pre[n++] = "-a";
	if (o->cpus) {
		pre[n++] = "-C";
		pre[n++] = o->cpus;
	}
	if (o->pids) {
		pre[n++] = "-p";
		pre[n++] = o->pids;
	}
	if (o->tids) {
		pre[n++] = "-t";
		pre[n++] = o->tids;
	}
	if (o->argc)
		pre[n++] = "--";
	return n;
}

/* Whether pipe @fd was closed by its writer with nothing in it (waits for either). */
static bool stream_empty(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int avail = 0;

	while (poll(&p, 1, -1) < 0)
		if (errno != EINTR)
			return false;
	return (p.revents & POLLHUP) && !ioctl(fd, FIONREAD, &avail) && avail == 0;
}

/*
 * Live mode: pcl record writes the target's events as a stream into a pipe
 * (a child process), and we read them as they come, so that nothing but
 * the ring buffers and the tables holds them. Ctrl-C stops the recorder
 * (and the command); the table is printed when the stream ends. The exit
 * status is the recorder's (the command's), unless the table fails.
 */
static int contention_live(const struct lock_opts *o)
{
	char wpath[64], rpath[64];
	const char *pre[12];
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_term;
	int n, fds[2], st, ret;
	pid_t pid;

	if (pipe(fds)) {
		die_msg("cannot create a pipe: %s", strerror(errno));
		return 1;
	}
	snprintf(wpath, sizeof(wpath), "/proc/self/fd/%d", fds[1]);
	snprintf(rpath, sizeof(rpath), "/proc/self/fd/%d", fds[0]);
	n = live_args(o, wpath, pre);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		die_msg("cannot fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return 1;
	}
	if (pid == 0) {
		close(fds[0]);
		ret = run_record(n, pre, o->argc, o->argv);
		fflush(NULL);
		_exit(ret);
	}
	close(fds[1]);
	/* Ctrl-C is the recorder's to handle: it ends the stream, then we print */
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGTERM, &ign, &old_term);
	/*
	 * A recorder that failed before its first byte (no such process, an
	 * event it cannot open) said why: no "not a perf.data stream" after it.
	 */
	ret = stream_empty(fds[0]) ? -1 : contention_file(o, rpath);
	close(fds[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (ret < 0) /* the recorder wrote nothing: its status, never 0 */
		return WIFEXITED(st) && WEXITSTATUS(st) ? WEXITSTATUS(st) : 1;
	if (ret)
		return ret;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* ---- options ---- */

enum {
	OPT_MAX_STACK = 256,
	OPT_STACK_SKIP,
	OPT_KALLSYMS,
	OPT_STDIO,
	OPT_TID,
	OPT_MAP_NR,
};

static int parse_key(const char *arg, enum mode mode, enum key *k, const char *what)
{
	for (int i = 0; i < K__NR; i++)
		if (!strcmp(arg, keys[i].name) && (i != K_ACQUIRED || mode == M_REPORT)) {
			*k = (enum key)i;
			return 0;
		}
	die_msg("unknown %s '%s' (%scontended, wait_total, wait_max, wait_min or avg_wait)", what,
		arg, mode == M_REPORT ? "acquired, " : "");
	return -1;
}

static int parse_fields(struct lock_opts *o, const char *arg)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	int ret = 0;

	if (!copy) {
		die_msg("out of memory");
		return -1;
	}
	o->nr_fields = 0;
	o->fields_set = true;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		enum key k;
		bool dup = false;

		if (parse_key(tok, o->mode, &k, "output field")) {
			ret = -1;
			break;
		}
		for (int i = 0; i < o->nr_fields; i++)
			dup |= o->fields[i] == k;
		if (!dup)
			o->fields[o->nr_fields++] = k;
	}
	if (!ret && !o->nr_fields) {
		/* perf: "Unknown output field"; not the sort key's column alone */
		die_msg("no output field in '%s' (%scontended, wait_total, wait_max, wait_min or "
			"avg_wait)", arg, o->mode == M_REPORT ? "acquired, " : "");
		ret = -1;
	}
	free(copy);
	return ret;
}

static int parse_int(const char *arg, const char *what, long min, long max, long *out)
{
	uint64_t v;

	if (!parse_uint(arg, 10, (uint64_t)min, (uint64_t)max, &v)) {
		die_msg("bad %s '%s' (%ld..%ld)", what, arg, min, max);
		return -1;
	}
	*out = (long)v;
	return 0;
}

/* perf lock's options before a subcommand, and each subcommand's own. */
static const char *const optstrings[] = {
	[M_CONTENTION] = "+:i:qvfk:F:E:tlaC:p:bh",
	[M_REPORT] = "+:i:qvfk:F:E:tch",
	[M_INFO] = "+:i:qvftmh",
};
#define GLOBAL_OPTS "+:i:qvfh"

static bool allowed(int c, const char *optstring, bool global, enum mode mode)
{
	if (c == ':' || c == '?')
		return true;
	if (c < 256)
		return strchr(optstring, c) != NULL;
	return c == OPT_KALLSYMS || (!global && mode == M_CONTENTION);
}

/* A value option of contention, report or info. 0 or -1 (printed). */
static int parse_value(struct lock_opts *o, int c, const char *arg)
{
	long v;

	switch (c) {
	case 'k':
		o->sort_set = true;
		return parse_key(arg, o->mode, &o->sort, "compare key");
	case 'F': return parse_fields(o, arg);
	case 'E':
		if (parse_int(arg, "entry count", 0, INT_MAX / 2, &v))
			return -1;
		o->entries = v;
		return 0;
	case OPT_MAX_STACK:
		if (parse_int(arg, "stack depth", 1, 127, &v))
			return -1;
		o->max_stack = (int)v;
		return 0;
	case OPT_STACK_SKIP:
		if (parse_int(arg, "stack skip", 0, 127, &v))
			return -1;
		o->stack_skip = (int)v;
		return 0;
	default: /* --map-nr-entries: checked, not used */
		return parse_int(arg, "map entry count", 1, INT_MAX, &v);
	}
}

/*
 * The options of perf lock (@global: before the subcommand) and of the
 * subcommand o->mode. 1 for -h (usage printed), 0, or -1 (printed).
 */
static int parse_opts(int argc, char **argv, struct lock_opts *o, bool global)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "force", no_argument, NULL, 'f' },
		{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
		{ "key", required_argument, NULL, 'k' },
		{ "field", required_argument, NULL, 'F' },
		{ "entries", required_argument, NULL, 'E' },
		{ "threads", no_argument, NULL, 't' },
		{ "lock-addr", no_argument, NULL, 'l' },
		{ "combine-locks", no_argument, NULL, 'c' },
		{ "map", no_argument, NULL, 'm' },
		{ "max-stack", required_argument, NULL, OPT_MAX_STACK },
		{ "stack-skip", required_argument, NULL, OPT_STACK_SKIP },
		{ "stdio", no_argument, NULL, OPT_STDIO },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, OPT_TID },
		{ "use-bpf", no_argument, NULL, 'b' },
		{ "map-nr-entries", required_argument, NULL, OPT_MAP_NR },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *optstring = global ? GLOBAL_OPTS : optstrings[o->mode];
	int c;

	while ((c = getopt_long(argc, argv, optstring, longopts, NULL)) != -1) {
		if (!allowed(c, optstring, global, o->mode)) {
			die_msg("unknown option '%s' %s; see 'pcl lock -h'", argv[optind - 1],
				global ? "before the subcommand"
				: o->mode == M_REPORT ? "of pcl lock report"
				: o->mode == M_INFO ? "of pcl lock info" : "of pcl lock contention");
			return -1;
		}
		switch (c) {
		case 'i': o->input = optarg; break;
		case 'q': o->quiet = true; break;
		case 'v': o->verbose = true; break;
		case 'f': o->force = true; break;
		case OPT_KALLSYMS:
			/* not silent "Unknown" callers (perf's): a file that is not there is an error */
			if (access(optarg, R_OK)) {
				die_msg("cannot read '%s': %s", optarg, strerror(errno));
				return -1;
			}
			o->sym.kallsyms = optarg;
			break;
		case 't': o->aggr = AGGR_TASK; o->info_threads = true; break;
		case 'l': o->aggr = AGGR_ADDR; break;
		case 'c': o->combine = true; break;
		case 'm': o->info_map = true; break;
		case OPT_STDIO: break;
		case 'a': o->system_wide = o->live = true; break;
		case 'C': o->cpus = optarg; o->live = true; break;
		case 'p': o->pids = optarg; o->live = true; break;
		case OPT_TID: o->tids = optarg; o->live = true; break;
		case 'b': o->live = true; break;
		case 'h': print_usage("lock", stdout); return 1;
		case '?':
		case ':': return option_error("lock", c, argv);
		default:
			if (parse_value(o, c, optarg))
				return -1;
		}
	}
	return 0;
}

/* The sort key is a column too, after the others (perf's select_key). */
static void add_sort_column(struct lock_opts *o)
{
	for (int i = 0; i < o->nr_fields; i++)
		if (o->fields[i] == o->sort)
			return;
	o->fields[o->nr_fields++] = o->sort;
}

static int cmd_sub(struct lock_opts *o, int argc, char **argv)
{
	static const enum key report_fields[] = { K_ACQUIRED, K_CONTENDED, K_AVG_WAIT,
						  K_WAIT_TOTAL, K_WAIT_MAX, K_WAIT_MIN };
	int r;

	/* report's defaults differ; an -F or -k before the subcommand was contention's */
	if (o->mode == M_REPORT) {
		o->sort = K_ACQUIRED;
		memcpy(o->fields, report_fields, sizeof(report_fields));
		o->nr_fields = 6;
	}
	if (o->mode != M_CONTENTION)
		o->aggr = AGGR_ADDR;
	optind = 1;
	r = parse_opts(argc, argv, o, false);
	if (r)
		return r > 0 ? 0 : EXIT_USAGE;
	add_sort_column(o);
	if (optind < argc && o->mode != M_CONTENTION) {
		die_msg("unexpected argument '%s'; see 'pcl lock -h'", argv[optind]);
		return EXIT_USAGE;
	}
	if (o->mode == M_INFO && !o->info_threads && !o->info_map) {
		die_msg("pcl lock info needs -t (threads) or -m (locks); see 'pcl lock -h'");
		return EXIT_USAGE;
	}
	if (optind < argc) {
		o->live = true;
		o->argv = argv + optind;
		o->argc = argc - optind;
	}
	if (o->live && !o->argc && !o->system_wide && !o->cpus && !o->pids && !o->tids) {
		die_msg("live mode (-b) needs a command or a target (-a, -C, -p, --tid); "
			"see 'pcl lock -h'");
		return EXIT_USAGE;
	}
	if (o->live && o->input) {
		die_msg("-i reads a file; a command or a target runs live: not both");
		return EXIT_USAGE;
	}
	if (o->live)
		return contention_live(o);
	return contention_file(o, o->input ? o->input : "perf.data");
}

int cmd_lock(int argc, char **argv)
{
	struct lock_opts o = {
		.sort = K_WAIT_TOTAL,
		.fields = { K_CONTENDED, K_WAIT_TOTAL, K_WAIT_MAX, K_AVG_WAIT },
		.nr_fields = 4,
		.entries = INT_MAX / 2,
		.max_stack = 8,
		.stack_skip = 3,
		.sym = { .sz = sizeof(struct pcl_symbol_opts) },
	};
	const char *sub;
	int r;

	optind = 1;
	r = parse_opts(argc, argv, &o, true);
	if (r)
		return r > 0 ? 0 : EXIT_USAGE;
	if (optind >= argc) {
		print_usage("lock", stderr);
		return EXIT_USAGE;
	}
	sub = argv[optind];
	argc -= optind;
	argv += optind;
	if (!strncmp(sub, "rec", 3) && !strncmp("record", sub, strlen(sub)))
		return run_record(0, NULL, argc - 1, argv + 1);
	if (!strcmp(sub, "contention") || !strcmp(sub, "con"))
		o.mode = M_CONTENTION;
	else if (!strncmp(sub, "rep", 3) && !strncmp("report", sub, strlen(sub)))
		o.mode = M_REPORT;
	else if (!strcmp(sub, "info"))
		o.mode = M_INFO;
	else if (!strcmp(sub, "script")) {
		die_msg("'pcl lock script' is not supported by pcl: use 'pcl script' (perf lock "
			"script runs perf script)");
		return EXIT_USAGE;
	} else {
		die_msg("unknown subcommand '%s' of pcl lock (record, contention, report, info); "
			"see 'pcl lock -h'", sub);
		return EXIT_USAGE;
	}
	return cmd_sub(&o, argc, argv);
}
