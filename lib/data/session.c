/* SPDX-License-Identifier: MIT */
/*
 * A recording session (contract in include/pcl/session.h).
 *
 * With several events every record starts (samples) or ends (others) with
 * its event's identifier, which picks the attr to decode it with; the first
 * event carries the tracking bits (mmap, comm, task ...), as perf's does.
 * Rings are drained in rounds: all of them, then a FINISHED_ROUND.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include "internal.h"

#define DEFAULT_FREQ  4000
#define DEFAULT_PAGES 128
/* x86_64 user registers perf samples for DWARF unwinding: all but the segment registers */
#define DWARF_REGS_MASK 0xff0fffULL

struct pcl_session {
	struct pcl_session_opts o;
	struct pcl_evlist *el;
	bool cpu_target, task_target, tid_target;
	int nev;
	struct pcl_ring **rings; /* one per CPU index (or thread); then the backward ones */
	int nrings;
	int nfwd; /* rings[0..nfwd) are read forward; the rest (--overwrite) only on a dump */
	int *fds; /* the mapped rings' fds */
	int nfds;
	struct pcl_data_writer *w;
	struct pcl_data_attr *attrs;
	uint64_t **ids;
	struct id_entry {
		uint64_t id;
		int ev;
	} * index; /* every id, sorted, for the record -> attr look-up */
	int nr_index;
	struct pcl_dso_hits *hits;
	struct pcl_session_stats st;
	struct pcl_session_stats lost_base; /* the rings' lost counts when this file began */
	uint64_t first_time, last_time;
	int max_rate;
	/* what a new file after a switch needs: its name, the command line, the workload */
	char *path;
	int argc;
	char *const *argv; /* borrowed: the caller's, as open() says */
	pid_t wl_pid;
	/* off_cpu: the sched_switch event, the offcpu-time one, and the pairing (offcpu.c) */
	int sw_ev, oc_ev;
	struct offcpu *oc;
};

static void set_rate(struct pcl_session *s, struct perf_event_attr *a)
{
	unsigned int hz = s->o.freq ? s->o.freq : DEFAULT_FREQ;

	if (a->sample_period || a->freq)
		return; /* the event spec chose (period=, freq=, tracepoints) */
	if (s->o.period) {
		a->sample_period = s->o.period;
		return;
	}
	if (s->max_rate > 0 && (s->o.freq_max || hz > (unsigned int)s->max_rate))
		hz = (unsigned int)s->max_rate;
	a->freq = 1;
	a->sample_freq = hz;
}

/* perf record's sample_type for the options, and the tracking bits on the first event. */
static void setup_attr(struct pcl_session *s, struct perf_event_attr *a, bool first)
{
	bool dwarf = s->o.call_graph == PCL_CALLCHAIN_DWARF;

	set_rate(s, a);
	a->sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	/*
	 * the period where it varies (a frequency), and for tracepoints, as
	 * perf records it; a fixed one (-c, period=, breakpoints) is the attr's,
	 * unless the caller set the bit (record -P)
	 */
	if (a->freq || a->type == PERF_TYPE_TRACEPOINT)
		a->sample_type |= PERF_SAMPLE_PERIOD;
	/* several events: the id first in every record tells whose it is */
	if (s->nev > 1)
		a->sample_type |= PERF_SAMPLE_IDENTIFIER;
	/* tracepoints carry their fields as raw data, as perf records them */
	/* (and the CPU: perf records it with every tracepoint, and perf script prints it) */
	if (a->type == PERF_TYPE_TRACEPOINT)
		a->sample_type |= PERF_SAMPLE_RAW | PERF_SAMPLE_CPU;
	if (s->o.sample_cpu || s->cpu_target)
		a->sample_type |= PERF_SAMPLE_CPU;
	/* perf samples data sources with -d, and both for DWARF unwinding */
	if (s->o.data_addr || dwarf)
		a->sample_type |= PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
	if (s->o.call_graph != PCL_CALLCHAIN_NONE)
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (dwarf) {
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = DWARF_REGS_MASK;
		/* an event's own stack-size= term stands */
		if (!a->sample_stack_user)
			a->sample_stack_user = s->o.stack_size ? s->o.stack_size : 8192;
		a->exclude_callchain_user = 1;
	}
	/*
	 * the stack alone, not the registers: perf would then unwind it on top
	 * of the chain. For -g, and for an event whose own terms ask for frame
	 * pointer chains (call-graph=fp, max-stack=N) without -g.
	 */
	if ((s->o.call_graph == PCL_CALLCHAIN_FP ||
	     (s->o.call_graph == PCL_CALLCHAIN_NONE && (a->sample_type & PERF_SAMPLE_CALLCHAIN))) &&
	    s->o.leaf_stack_size &&
	    !(a->sample_type & PERF_SAMPLE_REGS_USER)) { /* not an event's own call-graph=dwarf */
		a->sample_type |= PERF_SAMPLE_STACK_USER;
		a->sample_stack_user = s->o.leaf_stack_size;
	}
	/* an event's own call-graph=dwarf without stack-size= */
	if ((a->sample_type & PERF_SAMPLE_STACK_USER) && !a->sample_stack_user)
		a->sample_stack_user = s->o.stack_size ? s->o.stack_size : 8192;
	if (s->o.sample_regs_user) {
		a->sample_type |= PERF_SAMPLE_REGS_USER;
		a->sample_regs_user |= s->o.sample_regs_user;
	}
	if (s->o.sample_regs_intr) {
		a->sample_type |= PERF_SAMPLE_REGS_INTR;
		a->sample_regs_intr = s->o.sample_regs_intr;
	}
	a->sample_id_all = 1;
	a->inherit_stat = s->o.inherit_stat;
	if (s->o.clockid >= 0) {
		a->use_clockid = 1;
		a->clockid = s->o.clockid;
	}
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(s->o.mmap_pages * (unsigned int)getpagesize() / 4);
	/* overwrite: every event but the tracking dummy (the last) writes backward */
	if (s->o.overwrite && !first) {
		a->write_backward = 1;
		a->watermark = 0;
		a->wakeup_events = 0;
	}
	if (first) {
		a->mmap = a->mmap2 = a->comm = a->comm_exec = a->task = 1;
		a->mmap_data = s->o.data_addr || dwarf;
		a->context_switch = s->o.switch_events || s->o.off_cpu;
	}
}

/*
 * --off-cpu: sched:sched_switch on every switch, and "offcpu-time" as perf
 * makes it (a bpf-output software event that never fires by itself: its
 * samples are written by offcpu.c), last in the list.
 */
static int add_offcpu_events(struct pcl_session *s, struct pcl_evlist *el)
{
	struct perf_event_attr oc = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_BPF_OUTPUT,
		.size = sizeof(oc),
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_PERIOD, /* the time blocked */
	};
	struct pcl_parse_error err;

	if (pcl_evlist__add(el, "sched:sched_switch", &err) < 0)
		return pcl_err(ENOENT,
			       "--off-cpu needs the sched:sched_switch tracepoint: %s (is tracefs "
			       "mounted and readable?)",
			       err.msg);
	s->sw_ev = pcl_evlist__nr(el) - 1;
	if (pcl_evlist__add_attr(el, &oc, "offcpu-time"))
		return -ENOMEM;
	s->oc_ev = pcl_evlist__nr(el) - 1;
	return 0;
}

/* perf's OFFCPU_SAMPLE_TYPES, and the user registers and stack to unwind them later */
#define OFFCPU_SAMPLE_TYPES                                                                        \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN |           \
	 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)

/*
 * The switch-out samples always carry the call chain (perf: "off-cpu
 * analysis depends on stack trace"), with or without -g, and only its
 * user part is kept: the kernel's is not asked for.
 */
static void setup_offcpu_attrs(struct perf_event_attr *sw, struct perf_event_attr *a)
{
	sw->sample_type |= PERF_SAMPLE_CALLCHAIN;
	sw->exclude_callchain_kernel = 1;
	a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	a->sample_type &= OFFCPU_SAMPLE_TYPES;
	a->freq = 0;
	a->sample_period = 1;
	a->mmap_data = 0;
}

/* Where prev_state sits in sched_switch's raw data (tracefs' format file). */
static int prev_state_field(uint32_t *off, uint32_t *size)
{
	const char *tfs = pcl_tracefs(true);
	char path[512], *text = NULL;
	size_t len = 0;
	struct pcl_tp_format *f;
	FILE *fp;
	int ret = -ENOENT;

	snprintf(path, sizeof(path), "%s/events/sched/sched_switch/format", tfs ? tfs : "");
	fp = tfs ? fopen(path, "re") : NULL;
	if (!fp)
		return pcl_err(ENOENT, "--off-cpu: cannot read '%s'", path);
	text = malloc(65536);
	if (text)
		len = fread(text, 1, 65535, fp);
	fclose(fp);
	f = text ? pcl_tp_format__parse("sched", text, len, 8) : NULL;
	free(text);
	for (int i = 0; f && i < f->nr_fields; i++) {
		if (!strcmp(f->fields[i].name, "prev_state") && f->fields[i].size <= 8) {
			*off = f->fields[i].offset;
			*size = f->fields[i].size;
			ret = 0;
		}
	}
	pcl_tp_format__free(f);
	return ret ? pcl_err(ENOENT, "--off-cpu: no prev_state in '%s'", path) : 0;
}

static int start_offcpu(struct pcl_session *s)
{
	uint32_t off = 0, size = 0;
	int ret;

	if (!s->o.off_cpu)
		return 0;
	ret = prev_state_field(&off, &size);
	if (ret)
		return ret;
	s->oc = offcpu__new(&s->attrs[s->sw_ev].attr, &s->attrs[s->oc_ev].attr,
			    s->attrs[s->oc_ev].nr_ids ? s->ids[s->oc_ev][0] : 0, off, size);
	return s->oc ? 0 : pcl_err(ENOMEM, "pcl_session: out of memory");
}

/*
 * One ring per CPU: the first fd on a CPU maps it, the others write into
 * it; all of them are polled (a backward ring wakes no one: it is read on
 * a dump). Counters on any CPU (--per-thread) cannot share a ring between tasks
 * (the kernel refuses SET_OUTPUT across contexts): one ring per thread.
 */
static int map_rings(struct pcl_session *s)
{
	int ncpu = pcl_evlist__nr_cpus(s->el), nthr = pcl_evlist__nr_threads(s->el), ret;
	bool by_thread = s->o.per_thread && !s->cpu_target;
	int nr = by_thread ? nthr : ncpu;

	s->rings = calloc((size_t)nr * 2, sizeof(*s->rings));
	s->fds = calloc((size_t)(s->nev * ncpu * nthr) + 1, sizeof(*s->fds));
	s->ids = calloc((size_t)s->nev, sizeof(*s->ids));
	s->attrs = calloc((size_t)s->nev, sizeof(*s->attrs));
	if (!s->rings || !s->fds || !s->ids || !s->attrs)
		return -ENOMEM;
	s->nrings = s->o.overwrite ? 2 * nr : nr;
	s->nfwd = nr;
	for (int i = 0; i < s->nev; i++) {
		const struct pcl_event *ev = pcl_evlist__event(s->el, i);
		/* the kernel will not mix write directions in one ring */
		bool bw = ev->attr.write_backward;

		s->ids[i] = calloc((size_t)(ncpu * nthr), sizeof(uint64_t));
		if (!s->ids[i])
			return -ENOMEM;
		s->attrs[i].attr = ev->attr;
		s->attrs[i].name = ev->name;
		s->attrs[i].ids = s->ids[i];
		for (int c = 0; c < ncpu; c++) {
			for (int t = 0; t < nthr; t++) {
				int fd = pcl_evlist__fd(s->el, i, c, t),
				    r = (by_thread ? t : c) + (bw ? nr : 0);
				uint64_t id;

				if (fd < 0)
					continue;
				if (ioctl(fd, PERF_EVENT_IOC_ID, &id) == 0)
					s->ids[i][s->attrs[i].nr_ids++] = id;
				/*
				 * every fd that writes into a forward ring is polled, as
				 * perf does: when one's task ends it hangs up, and the
				 * ring's other writers must still wake the recorder
				 */
				if (!bw)
					s->fds[s->nfds++] = fd;
				if (s->rings[r]) {
					ret = pcl_ring_set_output(fd, pcl_ring__fd(s->rings[r]));
					if (ret)
						return pcl_err(-ret,
							       "cannot share a ring buffer: %s",
							       pcl_strerror(ret));
					continue;
				}
				s->rings[r] = pcl_ring__mmap(fd, s->o.mmap_pages, bw);
				if (!s->rings[r])
					return pcl_err(
						errno,
						"cannot map a %u-page ring buffer: %s (a smaller "
						"-m may fit perf_event_mlock_kb)",
						s->o.mmap_pages, strerror(errno));
			}
		}
	}
	return 0;
}

static int cmp_id(const void *a, const void *b)
{
	uint64_t x = ((const struct id_entry *)a)->id, y = ((const struct id_entry *)b)->id;

	return x < y ? -1 : x > y;
}

/* Every event's ids in one sorted array: each record looks its event up in O(log n). */
static int build_index(struct pcl_session *s)
{
	int n = 0;

	for (int i = 0; i < s->nev; i++)
		n += (int)s->attrs[i].nr_ids;
	s->index = calloc((size_t)(n ? n : 1), sizeof(*s->index));
	if (!s->index)
		return -ENOMEM;
	for (int i = 0; i < s->nev; i++)
		for (uint32_t k = 0; k < s->attrs[i].nr_ids; k++)
			s->index[s->nr_index++] = (struct id_entry){ s->ids[i][k], i };
	qsort(s->index, (size_t)s->nr_index, sizeof(*s->index), cmp_id);
	return 0;
}

/* The attr of the event that wrote @h: by its identifier when there are several. */
static const struct perf_event_attr *attr_of(struct pcl_session *s,
					     const struct perf_event_header *h)
{
	struct id_entry key, *e;

	if (s->nev == 1)
		return &s->attrs[0].attr;
	key.id = pcl_record_identifier(h, h->size, true);
	e = bsearch(&key, s->index, (size_t)s->nr_index, sizeof(key), cmp_id);
	return &s->attrs[e ? e->ev : 0].attr;
}

/* An offcpu-time sample from offcpu.c: written and counted as the rings' are. */
/* A sample written: counted, and its time in the recording's span. */
static void count_sample(struct pcl_session *s, uint64_t time)
{
	s->st.samples++;
	if (!s->first_time || time < s->first_time)
		s->first_time = time;
	if (time > s->last_time)
		s->last_time = time;
}

static int write_synth(void *ctx, const struct perf_event_header *h)
{
	struct pcl_session *s = ctx;
	struct pcl_record r;

	if (pcl_record_decode(h, h->size, &s->attrs[s->oc_ev].attr, &r) == 0) {
		pcl_dso_hits__record(s->hits, &r);
		count_sample(s, r.sample.time);
	}
	return pcl_data_writer__write(s->w, h);
}

/*
 * --off-cpu: the sched_switch samples and switch records go to offcpu.c;
 * true when the record is not to be written (the samples, and the switch
 * records unless they were asked for).
 */
static bool offcpu_take(struct pcl_session *s, const struct perf_event_header *h,
			const struct pcl_record *r, const struct perf_event_attr *a, int *ret)
{
	bool sw = r->type == PERF_RECORD_SAMPLE && a == &s->attrs[s->sw_ev].attr;
	bool sb = r->type == PERF_RECORD_EXIT || r->type == PERF_RECORD_COMM; /* written */

	if (!sw && !sb && r->type != PERF_RECORD_SWITCH && r->type != PERF_RECORD_SWITCH_CPU_WIDE)
		return false;
	*ret = offcpu__add(s->oc, h, r, sw);
	return sw || (!sb && !s->o.switch_events);
}

/* Write one record and account for it (samples, times, maps for build ids). */
static int sink(void *ctx, const struct perf_event_header *h)
{
	struct pcl_session *s = ctx;
	const struct perf_event_attr *a = attr_of(s, h);
	struct pcl_record r;
	int ret = 0;

	if (pcl_record_decode(h, h->size, a, &r) == 0) {
		if (s->oc)
			offcpu__time(s->oc, r.type == PERF_RECORD_SAMPLE ? r.sample.time
					    : r.has_id			 ? r.id.time
									 : 0);
		if (s->oc && offcpu_take(s, h, &r, a, &ret))
			return ret;
		if (ret)
			return ret;
		pcl_dso_hits__record(s->hits, &r);
		if (r.type == PERF_RECORD_SAMPLE)
			count_sample(s, r.sample.time);
	}
	return pcl_data_writer__write(s->w, h);
}

PCL_API int pcl_session__drain(struct pcl_session *s)
{
	uint64_t before;
	int ret = 0;

	if (!s)
		return pcl_err(EINVAL, "pcl_session__drain: invalid argument");
	before = pcl_data_writer__data_size(s->w);
	for (int c = 0; c < s->nfwd && !ret; c++) {
		const struct perf_event_header *h;

		if (!s->rings[c])
			continue;
		if (pcl_ring__read_begin(s->rings[c])) {
			/* a broken page: give the space back rather than wedge the ring */
			pcl_ring__read_end(s->rings[c]);
			continue;
		}
		while (!ret && (h = pcl_ring__next(s->rings[c])))
			ret = sink(s, h);
		pcl_ring__read_end(s->rings[c]);
	}
	if (!ret && s->oc)
		ret = offcpu__flush(s->oc, write_synth, s);
	if (!ret && pcl_data_writer__data_size(s->w) != before) {
		s->st.wakeups++;
		/*
		 * overwrite: no round ends before the dump, so a reader sorts the
		 * tracking records and the dumped samples, older ones too, as one
		 */
		if (!s->o.overwrite)
			ret = pcl_data_writer__finish_round(s->w);
	}
	return ret;
}

/*
 * --overwrite: pause each backward ring, take what it holds since the last
 * dump (newest first) and write it oldest first, then end the round.
 * @resume: let the kernel write again (a switch; not at the end).
 */
static int dump_backward(struct pcl_session *s, bool resume)
{
	uint8_t *buf = NULL;
	size_t cap = (size_t)s->o.mmap_pages * (size_t)getpagesize();
	int ret = 0;

	if (!s->o.overwrite)
		return 0;
	buf = malloc(cap);
	if (!buf)
		return pcl_err(ENOMEM, "pcl_session: out of memory");
	for (int c = s->nfwd; c < s->nrings && !ret; c++) {
		const struct perf_event_header *h;
		size_t used = 0, n = 0, *offs;

		if (!s->rings[c])
			continue;
		pcl_ring__pause(s->rings[c], true);
		if (pcl_ring__read_begin(s->rings[c]) == 0) {
			while ((h = pcl_ring__next(s->rings[c])) && used + h->size <= cap) {
				memcpy(buf + used, h, h->size);
				used += h->size;
				n++;
			}
		}
		pcl_ring__read_end(s->rings[c]);
		if (resume)
			pcl_ring__pause(s->rings[c], false);
		offs = malloc((n ? n : 1) * sizeof(*offs));
		if (!offs) {
			ret = pcl_err(ENOMEM, "pcl_session: out of memory");
			break;
		}
		n = 0;
		for (size_t off = 0; off < used;
		     off += ((struct perf_event_header *)(buf + off))->size)
			offs[n++] = off;
		while (n && !ret)
			ret = sink(s, (const struct perf_event_header *)(buf + offs[--n]));
		free(offs);
	}
	free(buf);
	if (!ret)
		ret = pcl_data_writer__finish_round(s->w);
	return ret;
}

/* The state of what already runs: the processes of the target, or all of them. */
static int synthesize_all(struct pcl_session *s)
{
	const struct perf_event_attr *a = &s->attrs[0].attr;
	uint64_t id = s->attrs[0].nr_ids ? s->ids[0][0] : 0;
	struct perf_event_header fin = { .type = PCL_RECORD_FINISHED_INIT, .size = sizeof(fin) };
	int ret = 0;

	/* without kernel addresses (kptr_restrict) there is no kernel map to give */
	pcl_synthesize_kernel_mmap(a, id, sink, s);
	if (s->task_target || s->cpu_target)
		ret = pcl_synthesize_processes(s->task_target ? s->el : NULL, a, id, a->mmap_data,
					       sink, s);
	if (!ret)
		ret = pcl_data_writer__write(s->w, &fin);
	return ret ? ret : pcl_data_writer__finish_round(s->w);
}

/*
 * GROUP_DESC, for event groups as perf writes it: u32 nr, then per group of
 * more than one event a string name (perf's "{anon_group}"), u32 leader
 * index, u32 nr members. Readers show the group as one, with report --group.
 */
static int add_group_desc(struct pcl_session *s)
{
	size_t nl, len = 4, off = 4;
	uint32_t nr = 0;
	uint8_t *b, *name = pcl_feature_string("{anon_group}", &nl);
	int ret;

	if (!name)
		return -ENOMEM;
	for (int i = 0; i < s->nev; i++)
		nr += pcl_evlist__event(s->el, i)->leader == i &&
		      pcl_evlist__event(s->el, i)->nr_members > 1;
	if (!nr) {
		free(name);
		return 0;
	}
	len += nr * (nl + 8);
	b = malloc(len);
	if (!b) {
		free(name);
		return -ENOMEM;
	}
	memcpy(b, &nr, 4);
	for (int i = 0; i < s->nev; i++) {
		const struct pcl_event *ev = pcl_evlist__event(s->el, i);
		uint32_t v[2] = { (uint32_t)i, (uint32_t)ev->nr_members };

		if (ev->leader != i || ev->nr_members < 2)
			continue;
		memcpy(b + off, name, nl);
		memcpy(b + off + nl, v, 8);
		off += nl + 8;
	}
	ret = pcl_data_writer__set_feature(s->w, PCL_FEAT_GROUP_DESC, b, off);
	free(b);
	free(name);
	return ret;
}

/* CLOCKID: the resolution (ns) of the chosen clock, as perf writes it. */
static int add_clockid(struct pcl_session *s)
{
	struct timespec res;
	uint64_t ns;

	if (s->o.clockid < 0 || clock_getres(s->o.clockid, &res))
		return 0;
	ns = (uint64_t)res.tv_sec * 1000000000ull + (uint64_t)res.tv_nsec;
	return pcl_data_writer__set_feature(s->w, PCL_FEAT_CLOCKID, &ns, sizeof(ns));
}

/*
 * CLOCK_DATA with -k, as perf writes it: u32 version 1, u32 clockid, then
 * the time of day and the clock's time read at one moment (ns), so a
 * reader can put sample times on the calendar.
 */
static int add_clock_data(struct pcl_session *s)
{
	struct timespec tod, clk;
	uint8_t buf[24];
	uint32_t version = 1, id;
	uint64_t tod_ns, clk_ns;

	if (s->o.clockid < 0 || clock_gettime(CLOCK_REALTIME, &tod) ||
	    clock_gettime(s->o.clockid, &clk))
		return 0;
	id = (uint32_t)s->o.clockid;
	tod_ns = (uint64_t)tod.tv_sec * 1000000000ull + (uint64_t)tod.tv_nsec;
	clk_ns = (uint64_t)clk.tv_sec * 1000000000ull + (uint64_t)clk.tv_nsec;
	memcpy(buf, &version, 4);
	memcpy(buf + 4, &id, 4);
	memcpy(buf + 8, &tod_ns, 8);
	memcpy(buf + 16, &clk_ns, 8);
	return pcl_data_writer__set_feature(s->w, PCL_FEAT_CLOCK_DATA, buf, sizeof(buf));
}

/* Tracepoint formats, so perf can decode the tracepoint samples. */
static int add_tracing(struct pcl_session *s)
{
	const struct perf_event_attr *a[256];
	int n = s->nev < 256 ? s->nev : 256;

	for (int i = 0; i < n; i++)
		a[i] = &s->attrs[i].attr;
	return pcl_data_writer__add_tracing_data(s->w, a, n);
}

static void free_session(struct pcl_session *s)
{
	for (int c = 0; c < s->nrings && s->rings; c++)
		pcl_ring__munmap(s->rings[c]);
	for (int i = 0; i < s->nev && s->ids; i++)
		free(s->ids[i]);
	free(s->rings);
	free(s->fds);
	free(s->ids);
	free(s->index);
	free(s->attrs);
	free(s->path);
	pcl_dso_hits__free(s->hits);
	offcpu__free(s->oc);
	free(s);
}

/*
 * Create the file at s->path with the attrs, features and the state of what
 * runs. A file after a switch also gets the workload's process, which
 * announced itself (exec) in the first file only (a CPU target synthesizes
 * every process anyway).
 */
static int open_file(struct pcl_session *s, bool again)
{
	int ret;

	s->w = pcl_data_writer__create(s->path, s->attrs, s->nev);
	if (!s->w)
		return -errno;
	ret = pcl_data_writer__add_host_features(s->w, s->argc, s->argv);
	ret = ret ? ret : add_tracing(s);
	ret = ret ? ret : add_clockid(s);
	ret = ret ? ret : add_clock_data(s);
	ret = ret ? ret : add_group_desc(s);
	if (!ret && again && s->wl_pid > 0 && !s->cpu_target && !s->task_target)
		ret = pcl_synthesize_process(s->wl_pid, &s->attrs[0].attr,
					     s->attrs[0].nr_ids ? s->ids[0][0] : 0,
					     s->attrs[0].attr.mmap_data, sink, s) == -EIO
			      ? -EIO
			      : 0;
	ret = ret ? ret : synthesize_all(s);
	/* as perf's, the synthesized state stays plain: only the rings' records are compressed */
	if (!ret && s->o.compression_level)
		ret = pcl_data_writer__set_compression(s->w, s->o.compression_level,
						       (s->o.mmap_pages + 1) *
							       (uint32_t)getpagesize());
	return ret;
}

/* Open the events, map the rings, create the file; 0 or -errno with a message. */
static int start(struct pcl_session *s, const struct pcl_target *target, struct pcl_workload *wl,
		 const char *path, int argc, char *const argv[])
{
	struct pcl_target t = *target;
	int ret;

	/* perf --per-thread: the kernel maps an inherited event per CPU only, so no children */
	t.per_cpu = !s->cpu_target && !s->o.per_thread;
	if (s->o.per_thread && !s->cpu_target)
		t.no_inherit = true;
	/* perf's read_format for sampling: ids (and lost counts); times only for -s */
	pcl_evlist__set_read_format(s->el, PERF_FORMAT_ID | PERF_FORMAT_LOST |
						   (s->o.inherit_stat
							    ? PERF_FORMAT_TOTAL_TIME_ENABLED |
								      PERF_FORMAT_TOTAL_TIME_RUNNING
							    : 0));
	ret = pcl_evlist__open(s->el, &t, s->task_target ? NULL : wl);
	if (ret)
		return ret;
	for (int i = 0; i < s->nev; i++)
		if (pcl_evlist__state(s->el, i) != PCL_EVSEL_OK)
			return pcl_err(-pcl_evlist__open_status(s->el, i),
				       "cannot sample '%s' on this machine: %s",
				       pcl_evlist__event(s->el, i)->name,
				       pcl_strerror(pcl_evlist__open_status(s->el, i)));
	ret = map_rings(s);
	ret = ret ? ret : build_index(s);
	ret = ret ? ret : start_offcpu(s);
	if (ret)
		return ret;
	s->path = strdup(path);
	if (!s->path)
		return -ENOMEM;
	s->argc = argc;
	s->argv = argv;
	s->wl_pid = wl ? pcl_workload__pid(wl) : 0;
	/* --off-cpu: the workload counts from its exec on, as perf enables it then */
	if (s->oc && s->wl_pid > 0)
		offcpu__set_workload(s->oc, (uint32_t)s->wl_pid);
	return open_file(s, false);
}

PCL_API struct pcl_session *pcl_session__open(struct pcl_evlist *el,
					      const struct pcl_target *target,
					      struct pcl_workload *wl,
					      const struct pcl_session_opts *opts, const char *path,
					      int argc, char *const argv[])
{
	struct pcl_sys_caps caps = { .sz = sizeof(caps) };
	struct pcl_session_opts o;
	struct pcl_target t;
	struct pcl_session *s;
	int ret;

	ret = opts_copy(&o, opts, "pcl_session_opts");
	if (!ret)
		ret = opts_copy(&t, target, "pcl_target");
	if (!ret && (!el || !target || !path || !pcl_evlist__nr(el)))
		ret = pcl_err(
			EINVAL,
			"pcl_session__open: needs an evlist with events, a target and a path");
	/* the kernel's limits on sample_stack_user */
	if (!ret && o.off_cpu && o.overwrite)
		ret = pcl_err(EINVAL, "--off-cpu and --overwrite do not go together: a flight "
				      "recorder loses the switches that pair up");
	if (!ret && (o.leaf_stack_size % 8 || o.leaf_stack_size >= 65535))
		ret = pcl_err(
			EINVAL,
			"pcl_session__open: leaf stack size %u is not a multiple of 8 below 65535",
			o.leaf_stack_size);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	/* clockid 0 is CLOCK_REALTIME: a caller that did not know the field meant perf's clock */
	if (!opts || opts->sz < offsetof(struct pcl_session_opts, clockid) + sizeof(o.clockid))
		o.clockid = -1;
	target = &t;
	s = calloc(1, sizeof(*s));
	if (!s) {
		errno = ENOMEM;
		pcl_err(ENOMEM, "pcl_session__open: out of memory");
		return NULL;
	}
	s->o = o;
	if (!s->o.mmap_pages)
		s->o.mmap_pages = DEFAULT_PAGES;
	s->el = el;
	if (o.off_cpu && (ret = add_offcpu_events(s, el))) {
		free(s);
		errno = -ret;
		return NULL;
	}
	/* overwrite: the maps and names go through a forward ring of their own */
	if (o.overwrite && pcl_evlist__add(el, "dummy:u", NULL) < 0) {
		free(s);
		errno = EINVAL;
		return NULL;
	}
	s->nev = pcl_evlist__nr(el);
	s->cpu_target = target->system_wide || target->cpu_list || target->cgroup;
	s->task_target = target->pid || target->tid;
	s->tid_target = target->tid != NULL;
	s->hits = pcl_dso_hits__new();
	pcl_dso_hits__set_all(s->hits, s->o.buildid_all);
	pcl_sys_probe(&caps);
	s->max_rate = caps.max_sample_rate;
	for (int i = 0; i < s->nev; i++) {
		const struct pcl_event *ev = pcl_evlist__event(el, i);
		const struct pcl_event *l = pcl_evlist__event(el, ev->leader);
		struct perf_event_attr *a = pcl_evlist__attr(el, i);
		/* a rate of its own (period=N, freq=N; not the 1 of tracepoints and probes) */
		bool own_rate = a->freq || a->sample_period > 1;

		setup_attr(s, a, i == (o.overwrite ? s->nev - 1 : 0));
		/*
		 * :S, a group's leader sampling: each leader sample carries the
		 * whole group's counts (group read), so the members do not sample
		 * themselves, as perf records them (perf's rule: the leader's
		 * PERF_SAMPLE_READ decides; and only in a kernel group, a member of
		 * a tool event's group leads itself); a member's own period= or
		 * freq= term stands, as perf applies terms last
		 */
		if (ev->leader != i && !own_rate && (l->attr.sample_type & PERF_SAMPLE_READ) &&
		    l->nr_members > 1 && pcl_pmu__is_kernel(l->pmu) &&
		    pcl_pmu__is_kernel(ev->pmu)) {
			a->freq = 0;
			a->sample_freq = 0;
			a->write_backward = 0;
		}
	}
	if (o.off_cpu)
		setup_offcpu_attrs(pcl_evlist__attr(el, s->sw_ev), pcl_evlist__attr(el, s->oc_ev));
	ret = s->hits ? start(s, target, wl, path, argc, argv) : -ENOMEM;
	if (ret) {
		pcl_session__abort(s);
		errno = -ret;
		return NULL;
	}
	return s;
}

PCL_API int pcl_session__nr_fds(const struct pcl_session *s)
{
	return s ? s->nfds : 0;
}

PCL_API int pcl_session__fd(const struct pcl_session *s, int i)
{
	return s && i >= 0 && i < s->nfds ? s->fds[i] : -1;
}

PCL_API void pcl_session__compression(const struct pcl_session *s, uint64_t *transferred,
				      uint64_t *compressed)
{
	pcl_data_writer__compression(s ? s->w : NULL, transferred, compressed);
}

PCL_API void pcl_session__stats(const struct pcl_session *s, struct pcl_session_stats *out)
{
	struct pcl_ring_stats rs;

	if (!s || !out)
		return;
	*out = s->st;
	out->bytes = pcl_data_writer__data_size(s->w);
	for (int c = 0; c < s->nrings; c++) {
		if (!s->rings[c])
			continue;
		pcl_ring__stats(s->rings[c], &rs);
		out->lost += rs.lost;
		out->lost_records += rs.lost_records;
		out->lost_samples += rs.lost_samples;
	}
	/* the rings count from the start; a file after a switch says what it lost */
	out->lost -= s->lost_base.lost;
	out->lost_records -= s->lost_base.lost_records;
	out->lost_samples -= s->lost_base.lost_samples;
}

/*
 * Now, on the clock of the sample times: -k's clock; else perf's, from a
 * ring's page (TSC to perf time) where the kernel gives its time_zero, or
 * CLOCK_MONOTONIC, which perf's clock (local_clock) follows closely on
 * Linux. 0 when nothing tells; the caller keeps the newest time seen.
 */
static uint64_t session_now(const struct pcl_session *s)
{
	struct timespec ts;
	int clk = s->o.clockid >= 0 ? s->o.clockid : CLOCK_MONOTONIC;

#if defined(__x86_64__) || defined(__i386__)
	for (int c = 0; s->o.clockid < 0 && c < s->nfwd; c++) {
		uint64_t t;

		if (!s->rings[c])
			continue;
		t = pcl_mmap_page_tsc_to_time(pcl_ring__page(s->rings[c]), __builtin_ia32_rdtsc());
		if (t)
			return t;
		break;
	}
#endif
	return clock_gettime(clk, &ts) ? 0
				       : (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Drain and finish the current file: build ids, sample times, features. */
static int finish_file(struct pcl_session *s, struct pcl_session_stats *stats, bool resume)
{
	uint64_t times[2];
	int ret;

	ret = pcl_session__drain(s);
	ret = ret ? ret : dump_backward(s, resume);
	/* the threads still off CPU at the end count up to it (not at a switch: they go on) */
	if (!ret && s->oc && !resume) {
		uint64_t now = session_now(s);

		ret = offcpu__finish(s->oc, now > s->last_time ? now : s->last_time, write_synth,
				     s);
		ret = ret ? ret : pcl_data_writer__finish_round(s->w);
	}
	if (ret)
		return ret;
	if (!s->o.no_buildid)
		pcl_dso_hits__write_build_ids(s->hits, s->w);
	times[0] = s->first_time;
	times[1] = s->last_time;
	if (s->st.samples)
		pcl_data_writer__set_feature(s->w, PCL_FEAT_SAMPLE_TIME, times, sizeof(times));
	pcl_session__stats(s, stats);
	ret = pcl_data_writer__close(s->w);
	s->w = NULL;
	return ret;
}

PCL_API int pcl_session__close(struct pcl_session *s, struct pcl_session_stats *stats)
{
	int ret;

	if (!s)
		return pcl_err(EINVAL, "pcl_session__close: invalid argument");
	ret = finish_file(s, stats, false);
	if (ret) {
		pcl_session__abort(s);
		return ret;
	}
	free_session(s);
	return 0;
}

PCL_API int pcl_session__switch_output(struct pcl_session *s, const char *rename_to,
				       struct pcl_session_stats *stats)
{
	struct pcl_session_stats base;
	int ret, e;

	if (!s || !s->w || !rename_to || pcl_data_writer__is_pipe(s->w))
		return pcl_err(EINVAL, "pcl_session__switch_output: invalid argument");
	ret = finish_file(s, stats, true);
	if (ret)
		return ret;
	if (rename(s->path, rename_to)) {
		e = errno;
		return pcl_err(e, "cannot rename '%s' to '%s': %s", s->path, rename_to,
			       strerror(e));
	}
	/* the next file counts its own samples, times and the files they hit (maps stay) */
	pcl_dso_hits__reset(s->hits);
	memset(&s->st, 0, sizeof(s->st));
	memset(&s->lost_base, 0, sizeof(s->lost_base));
	pcl_session__stats(s, &base); /* not into lost_base: stats() subtracts it */
	s->lost_base = base;
	s->first_time = s->last_time = 0;
	return open_file(s, true);
}

PCL_API void pcl_session__offcpu_stats(const struct pcl_session *s, struct pcl_offcpu_stats *out)
{
	if (out)
		offcpu__stats(s ? s->oc : NULL, out);
}

PCL_API void pcl_session__abort(struct pcl_session *s)
{
	if (!s)
		return;
	pcl_data_writer__abort(s->w);
	free_session(s);
}
