/* SPDX-License-Identifier: MIT */
/*
 * Off-CPU time without BPF (pcl record --off-cpu; docs/offcpu.md).
 *
 * The session samples sched:sched_switch on every switch (period 1) with
 * the call chain: for a task's events the tracepoint fires in the context
 * of the task going off CPU, so each such sample is a thread leaving the
 * CPU, its state (prev_state) and where it was. Context-switch records
 * (attr.context_switch) say when each thread comes back. Paired per thread,
 * an out in state S or D (blocked, as perf's BPF program counts) and the
 * next in make one "offcpu-time" sample in perf's layout: the thread, its
 * user call chain at the switch-out, time = the switch-in, period = the
 * nanoseconds it was off CPU. A preemption (state R) or any other state
 * ends nothing and counts nothing, and neither does the workload before
 * its exec (pcl's fork waiting to exec it: perf enables its events only
 * at the exec).
 *
 * Order: the rings of the CPUs are drained one after another, so a thread
 * that migrates may show its switch-in before its switch-out, even in an
 * earlier drain. The switch events are therefore kept (the batch) and
 * paired in time order, as perf orders a file by its rounds: at the end of
 * drain N those up to the newest time of any record read by drain N-1
 * (@cut) are taken, since a record read later is newer than that. The
 * samples made then have times (their switch-ins) after the newest time
 * read by drain N-2, which a reader that orders by rounds (perf) has not
 * flushed yet when it reads them at the end of drain N: they stay in order.
 *
 * At the end, a thread still off CPU is counted up to the end of the
 * recording (the newest time seen); perf 6.1's BPF program counts an
 * interval only when the thread comes back.
 */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

enum item_kind { IT_OUT, IT_IN, IT_EXIT, IT_EXEC };

struct item {
	uint64_t time;
	uint32_t pid, tid;
	enum item_kind kind;
	bool blocked;  /* IT_OUT: prev_state S or D */
	uint64_t *rec; /* IT_OUT: a copy of the sched_switch sample (malloc'd) */
};

struct thread_state {
	uint32_t tid, pid;
	bool used;
	uint64_t out_time; /* 0: not off CPU (as far as we know) */
	uint64_t *out_rec;
};

struct offcpu {
	struct perf_event_attr sw, out;
	uint64_t out_id;
	uint32_t state_off, state_size;
	struct item *batch;
	size_t nbatch, abatch;
	struct thread_state *tab; /* open addressing on tid */
	size_t ntab, atab;
	uint64_t last_time; /* the newest record time seen */
	uint64_t cut;	    /* the newest time seen when the last drain ended */
	uint64_t *buf;	    /* the sample being built */
	uint32_t wl_pid;    /* the workload, counted from its exec on; 0: none */
	bool wl_exec;
	struct pcl_offcpu_stats st;
};

struct offcpu *offcpu__new(const struct perf_event_attr *sw, const struct perf_event_attr *out,
			   uint64_t out_id, uint32_t state_off, uint32_t state_size)
{
	struct offcpu *oc = calloc(1, sizeof(*oc));

	if (!oc)
		return NULL;
	oc->sw = *sw;
	oc->out = *out;
	oc->out_id = out_id;
	oc->state_off = state_off;
	oc->state_size = state_size;
	oc->atab = 256;
	oc->tab = calloc(oc->atab, sizeof(*oc->tab));
	oc->buf = malloc(65536 + 512); /* a sample of one record (< 64 KiB) and a few words */
	if (!oc->tab || !oc->buf) {
		offcpu__free(oc);
		return NULL;
	}
	return oc;
}

void offcpu__free(struct offcpu *oc)
{
	if (!oc)
		return;
	for (size_t i = 0; i < oc->nbatch; i++)
		free(oc->batch[i].rec);
	for (size_t i = 0; oc->tab && i < oc->atab; i++)
		free(oc->tab[i].out_rec);
	free(oc->batch);
	free(oc->tab);
	free(oc->buf);
	free(oc);
}

void offcpu__stats(const struct offcpu *oc, struct pcl_offcpu_stats *st)
{
	if (oc)
		*st = oc->st;
	else
		memset(st, 0, sizeof(*st));
}

static struct thread_state *lookup(struct offcpu *oc, uint32_t tid, bool create);

static int grow_tab(struct offcpu *oc)
{
	struct thread_state *old = oc->tab;
	size_t n = oc->atab;

	oc->tab = calloc(n * 2, sizeof(*oc->tab));
	if (!oc->tab) {
		oc->tab = old;
		return -ENOMEM;
	}
	oc->atab = n * 2;
	oc->ntab = 0;
	for (size_t i = 0; i < n; i++) {
		if (old[i].used) {
			struct thread_state *t = lookup(oc, old[i].tid, true);

			*t = old[i];
		}
	}
	free(old);
	return 0;
}

static struct thread_state *lookup(struct offcpu *oc, uint32_t tid, bool create)
{
	size_t i;

	if (create && (oc->ntab + 1) * 2 > oc->atab && grow_tab(oc))
		return NULL;
	for (i = (tid * 2654435761u) & (oc->atab - 1); oc->tab[i].used;
	     i = (i + 1) & (oc->atab - 1))
		if (oc->tab[i].tid == tid)
			return &oc->tab[i];
	if (!create)
		return NULL;
	oc->tab[i].used = true;
	oc->tab[i].tid = tid;
	oc->ntab++;
	return &oc->tab[i];
}

static int push(struct offcpu *oc, const struct item *it)
{
	if (oc->nbatch == oc->abatch) {
		size_t n = oc->abatch ? oc->abatch * 2 : 1024;
		struct item *b = realloc(oc->batch, n * sizeof(*b));

		if (!b)
			return -ENOMEM;
		oc->batch = b;
		oc->abatch = n;
	}
	oc->batch[oc->nbatch++] = *it;
	return 0;
}

/* prev_state of a sched_switch sample's raw data: S (1) or D (2) is blocked. */
static bool blocked_state(const struct offcpu *oc, const struct pcl_sample *s)
{
	uint64_t v = 0;

	if (!s->raw || oc->state_size > 8 || oc->state_off + oc->state_size > s->raw_size)
		return false;
	memcpy(&v, (const uint8_t *)s->raw + oc->state_off, oc->state_size);
	return (v & 0xff) == 1 || (v & 0xff) == 2;
}

int offcpu__add(struct offcpu *oc, const struct perf_event_header *h, const struct pcl_record *r,
		bool switch_sample)
{
	struct item it = { 0 };

	if (switch_sample) {
		it.kind = IT_OUT;
		it.time = r->sample.time;
		it.pid = r->sample.pid;
		it.tid = r->sample.tid;
		it.blocked = blocked_state(oc, &r->sample);
		if (it.blocked) {
			it.rec = malloc(h->size);
			if (!it.rec)
				return -ENOMEM;
			memcpy(it.rec, h, h->size);
		}
	} else if (r->type == PERF_RECORD_SWITCH || r->type == PERF_RECORD_SWITCH_CPU_WIDE) {
		if ((r->misc & PERF_RECORD_MISC_SWITCH_OUT) || !r->has_id)
			return 0;
		it.kind = IT_IN;
		it.time = r->id.time;
		it.pid = r->id.pid;
		it.tid = r->id.tid;
	} else if (r->type == PERF_RECORD_COMM && (r->misc & PERF_RECORD_MISC_COMM_EXEC) &&
		   oc->wl_pid && r->comm.pid == oc->wl_pid && r->has_id) {
		it.kind = IT_EXEC;
		it.time = r->id.time;
		it.pid = it.tid = r->comm.pid;
	} else if (r->type == PERF_RECORD_EXIT) {
		it.kind = IT_EXIT;
		it.time = r->task.time;
		it.pid = r->task.pid;
		it.tid = r->task.tid;
	} else {
		return 0;
	}
	if (it.time > oc->last_time)
		oc->last_time = it.time;
	if (push(oc, &it)) {
		free(it.rec);
		return -ENOMEM;
	}
	return 0;
}

static int cmp_item(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return (int)x->kind - (int)y->kind;
}

static int popcount64(uint64_t v)
{
	return __builtin_popcountll(v);
}

/*
 * The offcpu-time sample for the switch-out sample @rec (a record of the
 * sched_switch attr) that came back at @in: in the out attr's layout.
 * 0 and *h set; 1: nothing to write (no user stack: a kernel thread).
 */
static int build(struct offcpu *oc, const uint64_t *rec, uint64_t in,
		 const struct perf_event_header **h)
{
	const struct perf_event_header *src = (const void *)rec;
	struct perf_event_header hdr;
	uint64_t t = oc->out.sample_type, *p = oc->buf + 1, ip = 0;
	struct pcl_record r;
	const uint64_t *chain = NULL;
	uint64_t nr = 0;
	bool has_regs;
	size_t size;

	if (pcl_record_decode(src, src->size, &oc->sw, &r) || r.type != PERF_RECORD_SAMPLE)
		return 1;
	/* the user part of the chain, from its PERF_CONTEXT_USER marker, as perf's */
	for (uint64_t i = 0; i < r.sample.nr_callchain; i++) {
		if (r.sample.callchain[i] == PERF_CONTEXT_USER) {
			chain = r.sample.callchain + i;
			nr = r.sample.nr_callchain - i;
			break;
		}
	}
	if (nr > 1)
		ip = chain[1];
	has_regs = (t & PERF_SAMPLE_REGS_USER) && r.sample.user_abi && r.sample.user_regs;
	/* DWARF: the user IP is the registers' (bit 8 of the mask), the chain is the kernel's only
	 */
	if (!ip && has_regs && (oc->out.sample_regs_user & (1ull << 8)))
		ip = r.sample.user_regs[popcount64(oc->out.sample_regs_user & 0xff)];
	if (!ip)
		return 1;
	if (t & PERF_SAMPLE_IDENTIFIER)
		*p++ = oc->out_id;
	if (t & PERF_SAMPLE_IP)
		*p++ = ip;
	if (t & PERF_SAMPLE_TID)
		*p++ = (uint64_t)r.sample.tid << 32 | r.sample.pid;
	if (t & PERF_SAMPLE_TIME)
		*p++ = in;
	if (t & PERF_SAMPLE_ID)
		*p++ = oc->out_id;
	if (t & PERF_SAMPLE_CPU)
		*p++ = r.sample.cpu;
	if (t & PERF_SAMPLE_PERIOD)
		*p++ = in - r.sample.time;
	if (t & PERF_SAMPLE_CALLCHAIN) {
		/* the copy is no bigger than the source record: it fits the 64 KiB buffer */
		*p++ = nr;
		if (nr)
			memcpy(p, chain, nr * sizeof(*p));
		p += nr;
	}
	if (t & PERF_SAMPLE_REGS_USER) {
		int n = popcount64(oc->out.sample_regs_user);

		*p++ = has_regs ? r.sample.user_abi : 0;
		if (has_regs) {
			memcpy(p, r.sample.user_regs, (size_t)n * sizeof(*p));
			p += n;
		}
	}
	if (t & PERF_SAMPLE_STACK_USER) {
		*p++ = r.sample.user_stack ? r.sample.user_stack_size : 0;
		if (r.sample.user_stack && r.sample.user_stack_size) {
			memcpy(p, r.sample.user_stack, r.sample.user_stack_size);
			p += (r.sample.user_stack_size + 7) / 8;
			*p++ = r.sample.user_stack_dyn_size;
		}
	}
	size = (size_t)((uint8_t *)p - (uint8_t *)oc->buf);
	if (size > 65535)
		return 1;
	hdr = (struct perf_event_header){
		.type = PERF_RECORD_SAMPLE,
		.misc = PERF_RECORD_MISC_USER,
		.size = (uint16_t)size,
	};
	memcpy(oc->buf, &hdr, sizeof(hdr));
	*h = (const void *)oc->buf;
	return 0;
}

static int emit(struct offcpu *oc, struct thread_state *ts, uint64_t in, offcpu_emit_fn fn,
		void *ctx)
{
	const struct perf_event_header *h;
	int ret = 0;

	if (in < ts->out_time) {
		oc->st.unmatched++;
	} else if (build(oc, ts->out_rec, in, &h) == 0) {
		ret = fn(ctx, h);
		oc->st.samples++;
		oc->st.nsecs += in - ts->out_time;
	} else {
		oc->st.no_user++;
	}
	free(ts->out_rec);
	ts->out_rec = NULL;
	ts->out_time = 0;
	return ret;
}

static int process(struct offcpu *oc, struct item *it, offcpu_emit_fn fn, void *ctx)
{
	struct thread_state *ts;
	int ret = 0;

	/* the workload's exec counts whether or not its thread was seen before */
	if (it->kind == IT_EXEC)
		oc->wl_exec = true;
	ts = lookup(oc, it->tid, it->kind == IT_OUT);
	if (!ts)
		return it->kind == IT_OUT ? -ENOMEM : 0;
	switch (it->kind) {
	case IT_OUT:
		if (ts->out_rec) { /* two outs in a row: the in between was lost */
			oc->st.unmatched++;
			free(ts->out_rec);
			ts->out_rec = NULL;
			ts->out_time = 0;
		}
		ts->pid = it->pid;
		/* the workload before its exec is pcl's fork waiting to become it */
		if (oc->wl_pid && it->pid == oc->wl_pid && !oc->wl_exec)
			it->blocked = false;
		if (it->blocked) {
			ts->out_rec = it->rec;
			ts->out_time = it->time;
			it->rec = NULL;
		}
		break;
	case IT_IN:
		/* no out before it: blocked since before the start, or preempted */
		if (ts->out_rec)
			ret = emit(oc, ts, it->time, fn, ctx);
		break;
	case IT_EXEC:
	case IT_EXIT:
		/* what blocked before an exec ends there (the workload's: not counted) */
		free(ts->out_rec);
		ts->out_rec = NULL;
		ts->out_time = 0;
		break;
	}
	return ret;
}

void offcpu__set_workload(struct offcpu *oc, uint32_t pid)
{
	oc->wl_pid = pid;
	oc->wl_exec = false;
}

void offcpu__time(struct offcpu *oc, uint64_t time)
{
	if (time > oc->last_time)
		oc->last_time = time;
}

/* Pair the batch's events up to @upto, oldest first; keep the newer ones. */
static int take(struct offcpu *oc, uint64_t upto, offcpu_emit_fn fn, void *ctx)
{
	size_t i, kept = 0;
	int ret = 0;

	if (oc->nbatch)
		qsort(oc->batch, oc->nbatch, sizeof(*oc->batch), cmp_item);
	for (i = 0; i < oc->nbatch && oc->batch[i].time <= upto; i++) {
		if (!ret)
			ret = process(oc, &oc->batch[i], fn, ctx);
		free(oc->batch[i].rec);
	}
	for (; i < oc->nbatch; i++)
		oc->batch[kept++] = oc->batch[i];
	oc->nbatch = kept;
	return ret;
}

int offcpu__flush(struct offcpu *oc, offcpu_emit_fn fn, void *ctx)
{
	int ret = take(oc, oc->cut, fn, ctx);

	oc->cut = oc->last_time;
	return ret;
}

int offcpu__finish(struct offcpu *oc, uint64_t end, offcpu_emit_fn fn, void *ctx)
{
	int ret = take(oc, UINT64_MAX, fn, ctx);

	if (end < oc->last_time)
		end = oc->last_time;
	for (size_t i = 0; i < oc->atab && !ret; i++) {
		struct thread_state *ts = &oc->tab[i];

		if (ts->used && ts->out_rec) {
			oc->st.at_end++;
			ret = emit(oc, ts, end, fn, ctx);
		}
	}
	return ret;
}
