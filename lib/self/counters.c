/* SPDX-License-Identifier: MIT */
/*
 * The self-measurement API: an evlist opened on the caller (or a thread, a
 * process, a CPU), with a read path planned once at open.
 *
 * When every event has one counter (a thread target), reads go straight to
 * the fds: a kernel group in one read(2) of its leader, a lone kernel event
 * by rdpmc from its mmap page when the page allows it (else read(2)), and a
 * user-space source through its ops. Process and CPU targets, with a
 * counter per thread or CPU, read through the evlist and sum.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include "internal.h"
#include "self/self.h"
#include "self/overflow.h"
#include "evlist/read-format.h"

/* One event's place in the read plan. */
struct slot {
	bool ok;	   /* opened and countable */
	bool kernel;	   /* a kernel PMU's */
	bool group_lead;   /* leads a kernel group read with PERF_FORMAT_GROUP */
	bool in_group;	   /* its value comes from its leader's group read */
	int fd;		   /* single-counter plans: the counter's fd */
	int *members;	   /* group_lead: event indices in the order the kernel returns them */
	int nr_members;
	struct perf_event_mmap_page *page; /* rdpmc page, or NULL */
	const char *unit;
	double scale;
};

struct pcl_counters {
	struct pcl_evlist *el;
	struct pcl_counters_opts opts;
	struct pcl_target target;
	char tid[24], cpu[24];
	int nr;
	struct slot *slots;
	bool opened;
	bool running;
	bool single; /* one counter per event */
	uint64_t *buf; /* single-counter reads: one read(2) of the biggest layout */
	size_t buf_words;
	struct pcl_count *cnts; /* a group read, decoded */
	int cnts_nr;
	struct overflow_set *ovs; /* overflow state, or NULL */
	void *owned;		  /* freed at close (a watchpoint's context) */
};

static long page_size(void)
{
	long ps = sysconf(_SC_PAGESIZE);

	return ps > 0 ? ps : 4096;
}

static int fill_target(struct pcl_counters *c)
{
	const struct pcl_counters_opts *o = &c->opts;
	pid_t self = gettid();

	memset(&c->target, 0, sizeof(c->target));
	c->target.sz = sizeof(c->target);
	switch (o->scope) {
	case PCL_SCOPE_SELF:
		snprintf(c->tid, sizeof(c->tid), "%d", (int)self);
		c->target.tid = c->tid;
		c->target.no_inherit = o->no_inherit;
		return 0;
	case PCL_SCOPE_THREAD:
		snprintf(c->tid, sizeof(c->tid), "%d", (int)(o->pid > 0 ? o->pid : self));
		c->target.tid = c->tid;
		c->target.no_inherit = o->no_inherit || o->pid <= 0;
		return 0;
	case PCL_SCOPE_PROCESS:
		snprintf(c->tid, sizeof(c->tid), "%d", (int)(o->pid > 0 ? o->pid : getpid()));
		c->target.pid = c->tid;
		c->target.no_inherit = o->no_inherit;
		return 0;
	case PCL_SCOPE_CPU:
		if (o->cpu < 0)
			return pcl_err(EINVAL, "PCL_SCOPE_CPU needs a CPU number, not %d", o->cpu);
		snprintf(c->cpu, sizeof(c->cpu), "%d", o->cpu);
		c->target.cpu_list = c->cpu;
		return 0;
	}
	return pcl_err(EINVAL, "unknown scope %d", (int)o->scope);
}

PCL_API struct pcl_counters *pcl_counters__new(const char *events,
					       const struct pcl_counters_opts *opts)
{
	struct pcl_counters *c;
	struct pcl_parse_error perr;
	char *spec = NULL;
	int ret;

	if (!events || !*events) {
		errno = EINVAL;
		pcl_err(EINVAL, "no events given");
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		goto oom;
	ret = opts_copy(&c->opts, opts, "pcl_counters_opts");
	if (ret < 0)
		goto fail;
	c->el = pcl_evlist__new();
	if (!c->el)
		goto oom;
	if (c->opts.group) {
		if (strchr(events, '{')) {
			ret = pcl_err(EINVAL, "'group' with braces in '%s': use one or the other",
				      events);
			goto fail;
		}
		if (asprintf(&spec, "{%s}", events) < 0)
			goto oom;
	}
	memset(&perr, 0, sizeof(perr));
	ret = pcl_evlist__add(c->el, spec ? spec : events, &perr);
	free(spec);
	spec = NULL;
	if (ret < 0) {
		if (perr.msg[0])
			pcl_err(-ret, "%s", perr.msg); /* with the parser's suggestion in it */
		goto fail;
	}
	/* counters.h's promise: an event this machine lacks never stops the others */
	evlist_set_regroup(c->el, true);
	c->nr = pcl_evlist__nr(c->el);
	c->slots = calloc((size_t)c->nr, sizeof(*c->slots));
	if (!c->slots)
		goto oom;
	for (int i = 0; i < c->nr; i++) {
		const struct pcl_event *ev = pcl_evlist__event(c->el, i);

		c->slots[i].fd = -1;
		c->slots[i].unit = ev->unit;
		if (!ev->unit && ev->attr.type == PERF_TYPE_SOFTWARE &&
		    (ev->attr.config == PERF_COUNT_SW_CPU_CLOCK ||
		     ev->attr.config == PERF_COUNT_SW_TASK_CLOCK))
			c->slots[i].unit = "ns";
		c->slots[i].scale = ev->scale ? ev->scale : 1.0;
	}
	ret = fill_target(c);
	if (ret)
		goto fail;
	return c;
oom:
	ret = pcl_err(ENOMEM, "out of memory");
fail:
	free(spec);
	pcl_counters__free(c);
	errno = -ret;
	return NULL;
}

/* Map the counter's first page for rdpmc when the kernel offers it. */
static void map_rdpmc_page(struct slot *s)
{
	void *p = mmap(NULL, (size_t)page_size(), PROT_READ, MAP_SHARED, s->fd, 0);

	if (p == MAP_FAILED)
		return;
	if (!((struct perf_event_mmap_page *)p)->cap_user_rdpmc) {
		munmap(p, (size_t)page_size());
		return;
	}
	s->page = p;
}

/* Work out, once, how each event is read. */
static int plan_reads(struct pcl_counters *c)
{
	size_t words = read_format_size(READ_FORMAT_KNOWN & ~(uint64_t)PERF_FORMAT_GROUP, 1) / 8;
	int most = 1;

	c->single = pcl_evlist__nr_cpus(c->el) == 1 && pcl_evlist__nr_threads(c->el) == 1;
	for (int i = 0; i < c->nr; i++) {
		struct slot *s = &c->slots[i];
		const struct pcl_event *ev = pcl_evlist__event(c->el, i);

		s->ok = pcl_evlist__state(c->el, i) == PCL_EVSEL_OK;
		s->kernel = pcl_pmu__is_kernel(ev->pmu);
		s->fd = pcl_evlist__fd(c->el, i, 0, 0);
	}
	for (int i = 0; i < c->nr; i++) {
		struct slot *s = &c->slots[i];
		const struct pcl_event *ev = pcl_evlist__event(c->el, i);
		const struct perf_event_attr *a = pcl_evlist__attr(c->el, i);

		if (!s->ok || !s->kernel || ev->leader != i || !(a->read_format & PERF_FORMAT_GROUP))
			continue;
		s->group_lead = true;
		s->members = calloc((size_t)ev->nr_members, sizeof(int));
		if (!s->members)
			return -ENOMEM;
		/* the kernel returns the members that joined, in the order they did */
		for (int m = i; m < i + ev->nr_members && m < c->nr; m++) {
			if (!c->slots[m].ok || !c->slots[m].kernel)
				continue;
			s->members[s->nr_members++] = m;
			c->slots[m].in_group = m != i;
		}
		if (read_format_size(a->read_format, s->nr_members) / 8 > words)
			words = read_format_size(a->read_format, s->nr_members) / 8;
		if (s->nr_members > most)
			most = s->nr_members;
	}
	c->buf = calloc(words, sizeof(uint64_t));
	c->cnts = calloc((size_t)most, sizeof(*c->cnts));
	if (!c->buf || !c->cnts)
		return -ENOMEM;
	c->buf_words = words;
	c->cnts_nr = most;
	if (!c->single || c->opts.no_rdpmc)
		return 0;
	for (int i = 0; i < c->nr; i++) {
		struct slot *s = &c->slots[i];

		if (s->ok && s->kernel && !s->group_lead && !s->in_group && s->fd >= 0 &&
		    !overflow_has(c->ovs, i))
			map_rdpmc_page(s);
	}
	return 0;
}

PCL_API int pcl_counters__open(struct pcl_counters *c)
{
	int ret;

	if (!c)
		return pcl_err(EINVAL, "pcl_counters__open: invalid argument");
	if (c->opened)
		return pcl_err(EBUSY, "counters already open");
	/* the kernel maps no ring of an inherited per-thread counter */
	if (c->ovs)
		c->target.no_inherit = true;
	ret = pcl_evlist__open(c->el, &c->target, NULL);
	if (ret)
		return ret;
	c->opened = true;
	ret = plan_reads(c);
	if (!ret && c->ovs)
		ret = overflow_open(c->ovs, c, c->el);
	if (!ret && c->opts.started)
		ret = pcl_counters__start(c);
	if (ret) {
		pcl_evlist__close_counters(c->el);
		c->opened = false;
		return ret < 0 ? ret : -ret;
	}
	return 0;
}

PCL_API struct pcl_counters *pcl_counters__new_open(const char *events,
						    const struct pcl_counters_opts *opts)
{
	struct pcl_counters *c = pcl_counters__new(events, opts);
	int ret;

	if (!c)
		return NULL;
	ret = pcl_counters__open(c);
	return ret ? counters_fail(c, ret) : c;
}

/* Close @c after @ret (negative errno), keeping the failure's message; NULL with errno. */
struct pcl_counters *counters_fail(struct pcl_counters *c, int ret)
{
	char msg[512];

	snprintf(msg, sizeof(msg), "%s", pcl_last_error());
	pcl_counters__free(c);
	pcl_err(-ret, "%s", msg);
	errno = -ret;
	return NULL;
}

PCL_API void pcl_counters__free(struct pcl_counters *c)
{
	if (!c)
		return;
	overflow_free(c->ovs);
	if (c->slots) {
		for (int i = 0; i < c->nr; i++) {
			if (c->slots[i].page)
				munmap(c->slots[i].page, (size_t)page_size());
			free(c->slots[i].members);
		}
	}
	pcl_evlist__free(c->el);
	free(c->slots);
	free(c->buf);
	free(c->cnts);
	free(c->owned);
	free(c);
}

PCL_API int pcl_counters__nr(const struct pcl_counters *c)
{
	return c ? c->nr : 0;
}

static bool bad_idx(const struct pcl_counters *c, int idx)
{
	return !c || idx < 0 || idx >= c->nr;
}

PCL_API const char *pcl_counters__name(const struct pcl_counters *c, int idx)
{
	return bad_idx(c, idx) ? NULL : pcl_evlist__event(c->el, idx)->name;
}

PCL_API const char *pcl_counters__unit(const struct pcl_counters *c, int idx)
{
	return bad_idx(c, idx) ? NULL : c->slots[idx].unit;
}

PCL_API bool pcl_counters__supported(const struct pcl_counters *c, int idx)
{
	return !bad_idx(c, idx) && c->opened && c->slots[idx].ok;
}

PCL_API int pcl_counters__fd(const struct pcl_counters *c, int idx)
{
	return bad_idx(c, idx) || !c->opened ? -1 : c->slots[idx].fd;
}

PCL_API bool pcl_counters__rdpmc(const struct pcl_counters *c, int idx)
{
	return !bad_idx(c, idx) && c->slots[idx].page;
}

PCL_API int pcl_counters__start(struct pcl_counters *c)
{
	int ret;

	if (!c || !c->opened)
		return pcl_err(EINVAL, "pcl_counters__start: invalid argument");
	ret = pcl_evlist__enable(c->el);
	if (!ret)
		c->running = true;
	return ret;
}

PCL_API int pcl_counters__stop(struct pcl_counters *c)
{
	int ret;

	if (!c || !c->opened)
		return pcl_err(EINVAL, "pcl_counters__stop: invalid argument");
	ret = pcl_evlist__disable(c->el);
	c->running = false;
	return ret;
}

PCL_API int pcl_counters__reset(struct pcl_counters *c)
{
	if (!c || !c->opened)
		return pcl_err(EINVAL, "pcl_counters__reset: invalid argument");
	return pcl_evlist__reset(c->el);
}

static void set_value(struct pcl_value *v, const struct slot *s, uint64_t raw, uint64_t ena,
		      uint64_t run)
{
	v->status = 0;
	v->raw = raw;
	v->ena = ena;
	v->run = run;
	v->unit = s->unit;
	if (!run)
		v->value = 0.0;
	else if (run < ena)
		v->value = (double)raw * ((double)ena / (double)run) * s->scale;
	else
		v->value = (double)raw * s->scale;
}

/* One read(2) of slot @i's fd, decoded with its read_format into c->cnts; count or -errno. */
static int read_fd(struct pcl_counters *c, int i)
{
	ssize_t n = read_format_read(c->slots[i].fd, c->buf, c->buf_words * sizeof(uint64_t));

	if (n < 0)
		return (int)n;
	return read_format_parse(pcl_evlist__attr(c->el, i)->read_format, c->buf, (size_t)n,
				 c->cnts, c->cnts_nr);
}

/* Every member of a group from one read of its leader. */
static int read_group_fast(struct pcl_counters *c, int i, struct pcl_value *vals)
{
	const struct slot *s = &c->slots[i];
	int n = read_fd(c, i);

	if (n < 0)
		return n;
	if (n != s->nr_members)
		return -EIO;
	for (int k = 0; k < s->nr_members; k++)
		set_value(&vals[s->members[k]], &c->slots[s->members[k]], c->cnts[k].val,
			  c->cnts[k].ena, c->cnts[k].run);
	return 0;
}

static int read_one_fast(struct pcl_counters *c, int i, struct pcl_value *v)
{
	const struct slot *s = &c->slots[i];
	struct pcl_count cnt;
	int n;

	if (s->page && mmap_page_read(s->page, &cnt) == 0) {
		set_value(v, s, cnt.val, cnt.ena, cnt.run);
		return 0;
	}
	n = read_fd(c, i);
	if (n < 0)
		return n;
	if (n != 1)
		return -EIO;
	set_value(v, s, c->cnts[0].val, c->cnts[0].ena, c->cnts[0].run);
	return 0;
}

/* Through the evlist, summed over threads/CPUs; a group member's counts came with its leader. */
static int read_slow(struct pcl_counters *c, int i, struct pcl_value *v)
{
	struct pcl_count cnt;
	int ret = c->slots[i].in_group ? 0 : evlist_read_one(c->el, i);

	if (!ret)
		ret = pcl_evlist__count(c->el, i, -1, -1, &cnt);
	if (!ret)
		set_value(v, &c->slots[i], cnt.val, cnt.ena, cnt.run);
	return ret;
}

PCL_API int pcl_counters__read(struct pcl_counters *c, struct pcl_value *vals)
{
	int ret = 0;

	if (!c || !vals)
		return pcl_err(EINVAL, "pcl_counters__read: invalid argument");
	for (int i = 0; i < c->nr; i++) {
		const struct slot *s = &c->slots[i];
		struct pcl_value *v = &vals[i];
		int r;

		if (!c->opened || !s->ok) {
			memset(v, 0, sizeof(*v));
			v->unit = s->unit;
			v->status = c->opened ? -ENODEV : -ENOENT;
			continue;
		}
		if (s->in_group && c->single)
			continue; /* filled by its leader, which comes first */
		if (!c->single || !s->kernel)
			r = read_slow(c, i, v);
		else if (s->group_lead)
			r = read_group_fast(c, i, vals);
		else
			r = read_one_fast(c, i, v);
		if (r) {
			v->status = r;
			if (!ret)
				ret = pcl_err(-r, "cannot read '%s': %s", pcl_counters__name(c, i),
					      pcl_strerror(r));
		}
	}
	return ret;
}

/* ---- ioctls ---- */

/* Apply @req with @arg to every fd of event @idx. */
static int ioctl_all(struct pcl_counters *c, int idx, unsigned long req, unsigned long arg,
		     const char *what)
{
	int ncpu, nthr, ret = 0;

	if (bad_idx(c, idx) || !c->opened)
		return -EINVAL;
	if (!c->slots[idx].ok || !c->slots[idx].kernel)
		return pcl_err(EOPNOTSUPP, "%s: '%s' is not an open kernel counter", what,
			       pcl_counters__name(c, idx));
	ncpu = pcl_evlist__nr_cpus(c->el);
	nthr = pcl_evlist__nr_threads(c->el);
	for (int ci = 0; ci < ncpu; ci++) {
		for (int ti = 0; ti < nthr; ti++) {
			int fd = pcl_evlist__fd(c->el, idx, ci, ti);

			if (fd < 0)
				continue;
			if (ioctl(fd, req, arg) < 0 && !ret)
				ret = pcl_err(errno, "%s on '%s': %s", what,
					      pcl_counters__name(c, idx), strerror(errno));
		}
	}
	return ret;
}

PCL_API int pcl_counters__refresh(struct pcl_counters *c, int idx, int n)
{
	if (n <= 0)
		return pcl_err(EINVAL, "pcl_counters__refresh: invalid argument");
	return ioctl_all(c, idx, PERF_EVENT_IOC_REFRESH, (unsigned long)n, "refresh");
}

PCL_API int pcl_counters__set_period(struct pcl_counters *c, int idx, uint64_t period)
{
	if (!period)
		return pcl_err(EINVAL, "pcl_counters__set_period: invalid argument");
	return ioctl_all(c, idx, PERF_EVENT_IOC_PERIOD, (unsigned long)&period, "set period");
}

PCL_API int pcl_counters__set_filter(struct pcl_counters *c, int idx, const char *filter)
{
	if (!filter)
		return pcl_err(EINVAL, "pcl_counters__set_filter: invalid argument");
	return ioctl_all(c, idx, PERF_EVENT_IOC_SET_FILTER, (unsigned long)filter, "set filter");
}

PCL_API int pcl_counters__pause_output(struct pcl_counters *c, int idx, bool pause)
{
	return ioctl_all(c, idx, PERF_EVENT_IOC_PAUSE_OUTPUT, pause ? 1 : 0, "pause output");
}

PCL_API int pcl_counters__move_breakpoint(struct pcl_counters *c, int idx, uint64_t addr,
					  uint64_t len, uint32_t bp_type)
{
	struct perf_event_attr a;

	if (bad_idx(c, idx))
		return pcl_err(EINVAL, "pcl_counters__move_breakpoint: invalid argument");
	a = *pcl_evlist__attr(c->el, idx);
	if (a.type != PERF_TYPE_BREAKPOINT)
		return pcl_err(EINVAL, "'%s' is not a breakpoint", pcl_counters__name(c, idx));
	a.bp_addr = addr;
	a.bp_len = len;
	a.bp_type = bp_type;
	/* the kernel takes 'disabled' from these attributes too */
	a.disabled = !c->running;
	return ioctl_all(c, idx, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, (unsigned long)&a,
			 "move breakpoint");
}

/* ---- overflow (lib/self/overflow.c does the work) ---- */

PCL_API int pcl_counters__set_overflow(struct pcl_counters *c, int idx,
				       const struct pcl_overflow *ov)
{
	struct perf_event_attr *a;
	struct pcl_overflow o;
	int ret;

	if (!ov)
		return pcl_err(EINVAL, "pcl_counters__set_overflow: no struct pcl_overflow");
	ret = opts_copy(&o, ov, "pcl_overflow");
	if (ret < 0)
		return ret;
	ov = &o;
	if (bad_idx(c, idx) || !ov->fn || !ov->period)
		return pcl_err(
			EINVAL,
			"pcl_counters__set_overflow: needs a counter, a period and a function");
	if (c->opened)
		return pcl_err(EINVAL, "set overflow functions before open");
	if (!pcl_pmu__is_kernel(pcl_evlist__event(c->el, idx)->pmu))
		return pcl_err(EINVAL, "'%s' lives in user space and cannot overflow",
			       pcl_counters__name(c, idx));
	if (!c->ovs) {
		c->ovs = overflow_new(c->nr);
		if (!c->ovs)
			return pcl_err(ENOMEM, "pcl_counters__set_overflow: out of memory");
	}
	a = pcl_evlist__attr(c->el, idx);
	a->sample_period = ov->period;
	a->freq = 0;
	a->sample_type = (ov->sample_type ? ov->sample_type
					  : PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
						    PERF_SAMPLE_ADDR | PERF_SAMPLE_CALLCHAIN) |
			 PERF_SAMPLE_IDENTIFIER;
	a->wakeup_events = 1;
	a->watermark = 0;
	return overflow_set(c->ovs, idx, ov);
}

PCL_API int pcl_counters__poll(struct pcl_counters *c, int timeout_ms)
{
	if (!c || !c->opened)
		return pcl_err(EINVAL, "pcl_counters__poll: invalid argument");
	if (!c->ovs)
		return 0;
	return overflow_poll(c->ovs, timeout_ms);
}

PCL_API uint64_t pcl_counters__lost(const struct pcl_counters *c, int idx)
{
	return bad_idx(c, idx) ? 0 : overflow_lost(c->ovs, idx);
}

/* A watchpoint hands its context here to be freed with the counters. */
void counters_own(struct pcl_counters *c, void *p)
{
	free(c->owned);
	c->owned = p;
}
