/* SPDX-License-Identifier: MIT */
/*
 * pcl top's live engine: the events sampled into one ring per CPU, each
 * batch of records put in time order and fed to the machine (COMM, FORK,
 * EXIT, MMAP) or, resolved, to one histogram; every -d seconds the
 * histogram is finished, shown, then decayed by 7/8 (or zeroed with -z),
 * and the machine drops the processes that are gone, keeping what the
 * histogram's entries still point at.
 *
 * What is shown at refresh k is perf top's: decay(shown at k-1) + the
 * samples of the last interval. One thread does it all: the rings are
 * read when one fills to a quarter or every 100 ms, whichever comes first.
 *
 * Like perf top, samples of an idle function of the kernel (its list of
 * names) are not shown, -K/-U leave out kernel/user samples (counted in the
 * header all the same), and with several events each has its histogram;
 * the active one is shown (the first at the start; perf's 'E' in --stdio,
 * TAB and shift-TAB in the browser switch).
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <pcl/pcl.h>
#include "cli.h"
#include "top.h"
#include "top-int.h"

static volatile sig_atomic_t done;

static void on_signal(int sig)
{
	(void)sig;
	done = 1;
}

static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

bool top_done(void)
{
	return done;
}

void top_stop(void)
{
	done = 1;
}

/* ---- events ---- */

static int add_events(struct top *t)
{
	const struct top_opts *o = t->o;
	struct pcl_parse_error err = { 0 };
	struct perf_event_attr cycles = { .type = PERF_TYPE_HARDWARE,
					  .config = PERF_COUNT_HW_CPU_CYCLES,
					  .size = sizeof(cycles),
					  .exclude_kernel = 1 };

	for (int i = 0; i < o->nr_events; i++)
		if (pcl_evlist__add(t->el, o->events[i], &err) < 0) {
			die_msg("%s", err.msg[0] ? err.msg : pcl_last_error());
			return -1;
		}
	if (!o->nr_events) {
		/*
		 * perf top's default, cycles:P; where it cannot open, perf falls
		 * back to cpu-clock with the same modifiers, saying so with -v only
		 */
		const char *def = "cycles:P";

		if (pcl_event_probe(&cycles)) {
			def = "cpu-clock:ppp";
			if (o->verbose)
				fprintf(stderr, "The cycles event is not supported, trying to fall "
						"back to cpu-clock-ticks\n");
		}
		if (pcl_evlist__add(t->el, def, &err) < 0) {
			die_msg("%s", err.msg[0] ? err.msg : pcl_last_error());
			return -1;
		}
	}
	if (pcl_evlist__user_only_fallback(t->el) > 0 && o->verbose)
		fprintf(stderr, "pcl: this user may not sample the kernel (perf_event_paranoid): "
				"sampling user space only (:u)\n");
	t->nev = pcl_evlist__nr(t->el);
	return 0;
}

/* perf top's sampling attrs: a rate, ip, tid, time, cpu, period; tracking on the first. */
static void setup_attrs(struct top *t)
{
	const struct top_opts *o = t->o;
	struct pcl_sys_caps caps = { .sz = sizeof(caps) };
	unsigned int hz = o->freq ? o->freq : 4000;
	size_t ring = (size_t)o->mmap_pages * (size_t)getpagesize();

	pcl_sys_probe(&caps);
	if (caps.max_sample_rate > 0 && (o->freq_max || hz > (unsigned int)caps.max_sample_rate)) {
		if (o->freq && !o->freq_max)
			fprintf(stderr,
				"pcl: -F %u is above perf_event_max_sample_rate: using %d Hz\n",
				o->freq, caps.max_sample_rate);
		hz = (unsigned int)caps.max_sample_rate;
	}
	for (int i = 0; i < t->nev; i++) {
		struct perf_event_attr *a = pcl_evlist__attr(t->el, i);

		if (!a->sample_period && !a->freq) {
			if (o->period) {
				a->sample_period = o->period;
			} else {
				a->freq = 1;
				a->sample_freq = hz;
			}
		}
		a->sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				  PERF_SAMPLE_PERIOD | PERF_SAMPLE_CPU;
		if (t->nev > 1)
			a->sample_type |= PERF_SAMPLE_IDENTIFIER;
		if (o->callchain)
			a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		a->sample_id_all = 1;
		/* wake at a quarter of the ring; the loop reads every 100 ms anyway */
		a->watermark = 1;
		a->wakeup_watermark = (uint32_t)(ring / 4);
		if (i == 0)
			a->mmap = a->mmap2 = a->comm = a->comm_exec = a->task = 1;
	}
}

static int cmp_id(const void *a, const void *b)
{
	uint64_t x = ((const struct top_id *)a)->id, y = ((const struct top_id *)b)->id;

	return x < y ? -1 : x > y;
}

/* One ring per CPU (or per thread when counters follow threads on any CPU). */
static int map_rings(struct top *t)
{
	int ncpu = pcl_evlist__nr_cpus(t->el), nthr = pcl_evlist__nr_threads(t->el);
	bool by_thread = ncpu == 1 && pcl_evlist__cpu(t->el, 0) < 0;
	int nr = by_thread ? nthr : ncpu;

	t->rings = calloc((size_t)nr, sizeof(*t->rings));
	t->attrs = calloc((size_t)t->nev, sizeof(*t->attrs));
	t->ids = calloc((size_t)(t->nev * ncpu * nthr) + 1, sizeof(*t->ids));
	/* every event fd is polled (and room for stdin): see the session's map_rings */
	t->pfds = calloc((size_t)(t->nev * ncpu * nthr) + 1, sizeof(*t->pfds));
	if (!t->rings || !t->attrs || !t->ids || !t->pfds)
	{
		die_msg("out of memory");
		return -1;
	}
	t->nrings = nr;
	for (int i = 0; i < t->nev; i++) {
		t->attrs[i] = pcl_evlist__event(t->el, i)->attr;
		for (int c = 0; c < ncpu; c++)
			for (int th = 0; th < nthr; th++) {
				int fd = pcl_evlist__fd(t->el, i, c, th), r = by_thread ? th : c, ret;
				uint64_t id;

				if (fd < 0)
					continue;
				if (ioctl(fd, PERF_EVENT_IOC_ID, &id) == 0)
					t->ids[t->nids++] = (struct top_id){ id, i };
				t->pfds[t->npfd++] = (struct pollfd){ .fd = fd, .events = POLLIN };
				if (t->rings[r]) {
					ret = pcl_ring_set_output(fd, pcl_ring__fd(t->rings[r]));
					if (ret) {
						die_msg("cannot share a ring buffer: %s",
							pcl_strerror(ret));
						return -1;
					}
					continue;
				}
				t->rings[r] = pcl_ring__mmap(fd, t->o->mmap_pages, false);
				if (!t->rings[r]) {
					die_msg("cannot map a %u-page ring buffer: %s (a smaller -m "
						"may fit perf_event_mlock_kb)",
						t->o->mmap_pages, strerror(errno));
					return -1;
				}
			}
	}
	qsort(t->ids, (size_t)t->nids, sizeof(*t->ids), cmp_id);
	return 0;
}

static int open_events(struct top *t)
{
	struct pcl_target target = t->o->target;
	int ret;

	/* inherited events can only be mapped per CPU: a task target gets a counter on each */
	target.per_cpu = !target.system_wide && !target.cpu_list;
	pcl_evlist__set_read_format(t->el, PERF_FORMAT_ID);
	ret = pcl_evlist__open(t->el, &target, NULL);
	if (ret) {
		die_msg("%s", pcl_last_error());
		return -1;
	}
	note_probe_no_inherit(t->el, target.no_inherit);
	for (int i = 0; i < t->nev; i++)
		if (pcl_evlist__state(t->el, i) != PCL_EVSEL_OK) {
			int st = pcl_evlist__open_status(t->el, i);
			const char *why = pcl_evlist__open_error(t->el, i);

			die_msg("cannot sample '%s' on this machine: %s",
				pcl_evlist__event(t->el, i)->name, why ? why : pcl_strerror(st));
			return -1;
		}
	return map_rings(t);
}

/* ---- records ---- */

int top_event_of(const struct top *t, const struct perf_event_header *h)
{
	struct top_id key, *e;

	if (t->nev == 1)
		return 0;
	key.id = pcl_record_identifier(h, h->size, true);
	e = bsearch(&key, t->ids, (size_t)t->nids, sizeof(key), cmp_id);
	return e ? e->ev : -1;
}

/* The synthesized state of what runs: straight into the machine. */
static int synth_sink(void *ctx, const struct perf_event_header *h)
{
	struct top *t = ctx;
	struct pcl_record rec;

	if (pcl_record_decode(h, h->size, &t->attrs[0], &rec) == 0)
		pcl_machine__process(t->m, &rec);
	return 0;
}

static void synthesize(struct top *t)
{
	const struct perf_event_attr *a = &t->attrs[0];
	const struct pcl_target *tg = &t->o->target;
	struct pcl_dso *k;

	pcl_synthesize_kernel_mmap(a, 0, synth_sink, t);
	pcl_synthesize_processes(tg->pid || tg->tid ? t->el : NULL, a, 0, false, synth_sink, t);
	/*
	 * perf top calls the kernel "[kernel]" (its kernel map is made from
	 * /proc/kallsyms, not from a recording's "[kernel.kallsyms]"): the
	 * kernel's DSO is made now if no map was given (kptr_restrict) so that
	 * every entry sees the one name
	 */
	pcl_machine__find_map(t->m, NULL, true, 0);
	k = pcl_machine__find_dso(t->m, "[kernel.kallsyms]");
	if (k && (k->short_name = pcl_machine__intern(t->m, "[kernel]")) == NULL)
		k->short_name = "[kernel]";
}

/* perf's idle functions of the kernel (symbol__is_idle): never shown by perf top. */
static bool is_idle(const struct pcl_frame *f)
{
	static const char *const idle[] = {
		"acpi_idle_do_entry",
		"acpi_processor_ffh_cstate_enter",
		"arch_cpu_idle",
		"cpu_idle",
		"cpu_startup_entry",
		"idle_cpu",
		"intel_idle",
		"intel_idle_ibrs",
		"default_idle",
		"native_safe_halt",
		"enter_idle",
		"exit_idle",
		"mwait_idle",
		"mwait_idle_with_hints",
		"mwait_idle_with_hints.constprop.0",
		"poll_idle",
		"ppc64_runlatch_off",
		"pseries_dedicated_idle_sleep",
		"psw_idle",
		"psw_idle_exit",
	};

	if (!f->sym || f->level != 'k')
		return false;
	for (size_t i = 0; i < sizeof(idle) / sizeof(idle[0]); i++)
		if (!strcmp(f->sym->name, idle[i]))
			return true;
	return false;
}

static void process_sample(struct top *t, const struct pcl_record *rec, int ev)
{
	unsigned int cpumode = rec->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	struct pcl_resolved rs;

	t->samples++;
	if (rec->misc & PERF_RECORD_MISC_EXACT_IP)
		t->exact_samples++;
	if (cpumode == PERF_RECORD_MISC_KERNEL) {
		t->kernel_samples++;
		if (t->hide_kernel)
			return;
	} else if (cpumode == PERF_RECORD_MISC_USER) {
		if (t->hide_user)
			return;
	} else {
		/* guest and hypervisor samples: perf top has no machine for them either */
		return;
	}
	if (ev < 0 || ev >= t->nev)
		return;
	if (pcl_resolver__sample(t->r, rec, &rs)) {
		t->failed++;
		return;
	}
	if (is_idle(&rs.ip))
		return;
	if (pcl_hists__add(t->hs[ev], &rs, rec->sample.cpu, rec->sample.period))
		t->failed++;
	if (ev == t->active && t->ann_cur &&
	    pcl_annotate__add(t->ann_cur, 0, &rs.ip, rec->sample.period))
		t->failed++;
}

static void process(struct top *t, const struct perf_event_header *h, int ev)
{
	struct pcl_record rec;

	if (ev < 0 || pcl_record_decode(h, h->size, &t->attrs[ev], &rec)) {
		t->undecoded++;
		return;
	}
	switch (rec.type) {
	case PERF_RECORD_SAMPLE:
		process_sample(t, &rec, ev);
		break;
	case PERF_RECORD_LOST:
		t->lost += rec.lost.lost;
		t->lost_total += rec.lost.lost;
		t->nr_lost_records++;
		break;
	case PERF_RECORD_LOST_SAMPLES:
		t->lost += rec.lost_samples.lost;
		t->lost_total += rec.lost_samples.lost;
		break;
	default:
		if (pcl_machine__process(t->m, &rec))
			t->failed++;
		break;
	}
}

static int cmp_pending(const void *a, const void *b)
{
	const struct top_pending *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A record's time: the sample's, or the sample_id_all trailer's. */
static uint64_t record_time(const struct top *t, const struct perf_event_header *h, int ev)
{
	struct pcl_record rec;

	if (ev < 0 || pcl_record_decode(h, h->size, &t->attrs[ev], &rec))
		return 0;
	if (rec.type == PERF_RECORD_SAMPLE)
		return rec.sample.time;
	return rec.has_id ? rec.id.time : 0;
}

static int stash(struct top_batch *b, const struct perf_event_header *h)
{
	if (b->buf_len + h->size > b->buf_cap) {
		size_t ncap = b->buf_cap ? b->buf_cap * 2 : 1 << 20;
		uint8_t *nb;

		while (ncap < b->buf_len + h->size)
			ncap *= 2;
		nb = realloc(b->buf, ncap);
		if (!nb)
			return -ENOMEM;
		b->buf = nb;
		b->buf_cap = ncap;
	}
	if (b->npend == b->cap_pend) {
		size_t ncap = b->cap_pend ? b->cap_pend * 2 : 4096;
		struct top_pending *np = realloc(b->pend, ncap * sizeof(*np));

		if (!np)
			return -ENOMEM;
		b->pend = np;
		b->cap_pend = ncap;
	}
	memcpy(b->buf + b->buf_len, h, h->size);
	b->pend[b->npend] = (struct top_pending){ .off = b->buf_len, .seq = (uint32_t)b->npend };
	b->npend++;
	b->buf_len += h->size;
	return 0;
}

int top_collect(struct top *t, struct top_batch *b)
{
	int ret = 0;

	for (int r = 0; r < t->nrings; r++) {
		const struct perf_event_header *h;

		if (!t->rings[r])
			continue;
		if (pcl_ring__read_begin(t->rings[r])) {
			pcl_ring__read_end(t->rings[r]);
			continue;
		}
		while (!ret && (h = pcl_ring__next(t->rings[r])))
			ret = stash(b, h);
		pcl_ring__read_end(t->rings[r]);
	}
	return ret;
}

/*
 * What the rings held, in time order: a process's MMAP on one CPU comes
 * before its samples on another.
 */
void top_process(struct top *t, struct top_batch *b)
{
	for (size_t i = 0; i < b->npend; i++) {
		const struct perf_event_header *h = (const void *)(b->buf + b->pend[i].off);

		b->pend[i].ev = top_event_of(t, h);
		b->pend[i].time = record_time(t, h, b->pend[i].ev);
	}
	if (t->nrings > 1 && b->npend > 1)
		qsort(b->pend, b->npend, sizeof(*b->pend), cmp_pending);
	for (size_t i = 0; i < b->npend; i++)
		process(t, (const void *)(b->buf + b->pend[i].off), b->pend[i].ev);
	b->buf_len = b->npend = 0;
}

void top_batch_free(struct top_batch *b)
{
	free(b->buf);
	free(b->pend);
	memset(b, 0, sizeof(*b));
}

int top_drain(struct top *t)
{
	if (top_collect(t, &t->batch)) {
		die_msg("out of memory");
		t->batch.buf_len = t->batch.npend = 0;
		return -ENOMEM;
	}
	top_process(t, &t->batch);
	return 0;
}

/* ---- refresh ---- */

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t) * (const void *const *)a, y = (uintptr_t) * (const void *const *)b;

	return x < y ? -1 : x > y;
}

/*
 * After a refresh: perf's decay (or -z's zero), then what exited processes
 * left in the machine, but for what the entries left still point at.
 */
void top_age(struct top *t)
{
	const void **refs = NULL;
	size_t nr = 0, entries = 0;
	bool ok = true;

	for (int e = 0; e < t->nev; e++) {
		const void **r;
		size_t n;

		pcl_hists__decay(t->hs[e], t->zero ? 0 : 7, t->zero ? 1 : 8);
		entries += pcl_hists__nr_entries(t->hs[e]);
		/* what every event's entries point at stays */
		if (!ok || pcl_hists__refs(t->hs[e], &r, &n)) {
			ok = false;
		} else if (!refs) {
			refs = r;
			nr = n;
		} else if (n) {
			const void **all = realloc(refs, (nr + n) * sizeof(*refs));

			if (all) {
				memcpy(all + nr, r, n * sizeof(*r));
				refs = all;
				nr += n;
			}
			ok = all != NULL;
			free(r);
		} else {
			free(r);
		}
	}
	if (ok && t->nev > 1 && nr > 1) {
		/* sorted and unique, as pcl_machine__prune takes them */
		size_t u = 0;

		qsort(refs, nr, sizeof(*refs), cmp_ptr);
		for (size_t i = 0; i < nr; i++)
			if (!u || refs[i] != refs[u - 1])
				refs[u++] = refs[i];
		nr = u;
	}
	if (ok)
		pcl_machine__prune(t->m, refs, nr);
	free(refs);
	if (t->debug)
		fprintf(stderr, "pcl top: threads %zu dsos %d entries %zu\n",
			pcl_machine__nr_threads(t->m), pcl_machine__nr_dsos(t->m), entries);
}

void top_finish(struct top *t)
{
	for (int e = 0; e < t->nev; e++)
		pcl_hists__finish(t->hs[e]);
}

void top_set_active(struct top *t, int ev)
{
	if (ev < 0 || ev >= t->nev || ev == t->active)
		return;
	t->active = ev;
	t->h = t->hs[ev];
	/* the annotation is of the event shown: start it again */
	if (t->ann_cur) {
		pcl_annotate__free(t->ann_cur);
		t->ann_cur = pcl_annotate__new();
	}
	pcl_annotate__free(t->ann_last);
	t->ann_last = NULL;
}

/* The header line perf top prints (perf_top__header_snprintf), counts reset after. */
void top_header(struct top *t, char *bf, size_t size)
{
	const struct pcl_target *tg = &t->o->target;
	float per_sec = 0, ksec = 0, exact = 0, kpct = 0;
	size_t n;

	if (t->samples) {
		per_sec = (float)(t->samples / (uint64_t)t->delay_secs);
		ksec = (float)(t->kernel_samples / (uint64_t)t->delay_secs);
		exact = (float)(100.0 * (double)t->exact_samples / (double)t->samples);
	}
	if (per_sec)
		kpct = (float)(100.0 * ksec / per_sec);
	n = (size_t)snprintf(bf, size,
			     "   PerfTop:%8.0f irqs/sec  kernel:%4.1f%%  exact: %4.1f%% lost: %" PRIu64
			     "/%" PRIu64 " drop: %" PRIu64 "/%" PRIu64 " [",
			     per_sec, kpct, exact, t->lost, t->lost_total, (uint64_t)0, (uint64_t)0);
	if (n < size && t->nev == 1)
		n += (size_t)snprintf(bf + n, size - n, "%" PRIu64 "%s ",
				      (uint64_t)(t->attrs[0].freq ? t->attrs[0].sample_freq
								  : t->attrs[0].sample_period),
				      t->attrs[0].freq ? "Hz" : "");
	if (n < size)
		n += (size_t)snprintf(bf + n, size - n, "%s], ",
				      pcl_evlist__event(t->el, t->active)->name);
	if (n < size) {
		if (tg->pid)
			n += (size_t)snprintf(bf + n, size - n, " (target_pid: %s", tg->pid);
		else if (tg->tid)
			n += (size_t)snprintf(bf + n, size - n, " (target_tid: %s", tg->tid);
		else
			n += (size_t)snprintf(bf + n, size - n, " (all");
	}
	if (n < size) {
		int ncpu = t->nr_user_cpus;

		if (tg->cpu_list)
			snprintf(bf + n, size - n, ", CPU%s: %s)", ncpu > 1 ? "s" : "",
				 tg->cpu_list);
		else if (tg->pid || tg->tid)
			snprintf(bf + n, size - n, ")");
		else
			snprintf(bf + n, size - n, ", %d CPU%s)", ncpu, ncpu > 1 ? "s" : "");
	}
	t->samples = t->kernel_samples = t->exact_samples = t->lost = 0;
}

/* ---- set-up ---- */

static int setup_view(struct top *t)
{
	const struct top_opts *o = t->o;
	struct pcl_hist_opts *ho = &t->ho;
	struct pcl_report_opts *ro = &t->ro;
	int n = 0;

	*ho = (struct pcl_hist_opts){ .sz = sizeof(*ho) };
	*ro = (struct pcl_report_opts){ .sz = sizeof(*ro) };
	if (o->sort) {
		n = pcl_sort_keys_parse(o->sort, ho->keys, PCL_SORT_MAX);
		if (n < 0) {
			die_msg("%s", pcl_last_error());
			return -1;
		}
	} else {
		/* perf top's default sort: dso,sym (no comm) */
		ho->keys[n++] = PCL_SORT_DSO;
		ho->keys[n++] = PCL_SORT_SYM;
	}
	ho->nr_keys = n;
	ho->callchain = o->callchain && o->graph != PCL_GRAPH_NONE;
	ho->children = o->callchain && o->children;
	ho->caller_order = o->caller_order;
	ho->tree_min_percent = o->graph_min_percent;
	memcpy(ro->keys, ho->keys, sizeof(ro->keys));
	ro->nr_keys = n;
	ro->children = ho->children;
	ro->self_title = ho->children;
	ro->sort_sym_first = o->sort && !strncmp(o->sort, "sym", 3);
	ro->graph = ho->callchain ? o->graph : PCL_GRAPH_NONE;
	ro->graph_value = o->graph_value;
	ro->graph_min_percent = o->graph_min_percent;
	ro->percent_limit = o->percent_limit;
	ro->quiet = true;
	if (o->show_nr_samples) {
		int f = 0;

		if (ho->children)
			ro->fields[f++] = (struct pcl_field){ PCL_HPP_OVERHEAD_CHILDREN, 0 };
		ro->fields[f++] = (struct pcl_field){ PCL_HPP_OVERHEAD, 0 };
		ro->fields[f++] = (struct pcl_field){ PCL_HPP_SAMPLE, 0 };
		for (int i = 0; i < n && f < PCL_FIELDS_MAX; i++)
			ro->fields[f++] = (struct pcl_field){ PCL_HPP_KEY, ho->keys[i] };
		ro->nr_fields = f;
	}
	t->hs = calloc((size_t)t->nev, sizeof(*t->hs));
	if (!t->hs) {
		die_msg("out of memory");
		return -1;
	}
	for (int e = 0; e < t->nev; e++) {
		t->hs[e] = pcl_hists__new(ho);
		if (!t->hs[e]) {
			die_msg("%s", pcl_last_error());
			return -1;
		}
	}
	t->h = t->hs[0];
	return 0;
}

static int setup(struct top *t)
{
	int *cpus = NULL;

	t->el = pcl_evlist__new();
	t->m = pcl_machine__new();
	t->syms = pcl_symbols__new(&t->o->so);
	if (!t->el || !t->m || !t->syms) {
		die_msg("%s", t->syms || !t->el || !t->m ? "out of memory" : pcl_last_error());
		return -1;
	}
	t->r = pcl_resolver__new(t->m, t->syms);
	if (!t->r) {
		die_msg("out of memory");
		return -1;
	}
	if (add_events(t) || setup_view(t))
		return -1;
	setup_attrs(t);
	if (open_events(t))
		return -1;
	t->nr_user_cpus = t->o->target.cpu_list ? pcl_parse_cpu_list(t->o->target.cpu_list, &cpus)
						: pcl_evlist__nr_cpus(t->el);
	free(cpus);
	synthesize(t);
	return 0;
}

static void teardown(struct top *t)
{
	for (int r = 0; r < t->nrings; r++)
		pcl_ring__munmap(t->rings[r]);
	free(t->rings);
	pcl_evlist__free(t->el);
	for (int e = 0; t->hs && e < t->nev; e++)
		pcl_hists__free(t->hs[e]);
	free(t->hs);
	pcl_resolver__free(t->r);
	pcl_symbols__free(t->syms);
	pcl_machine__free(t->m);
	free(t->attrs);
	free(t->ids);
	free(t->pfds);
	top_batch_free(&t->batch);
	pcl_annotate__free(t->ann_cur);
	pcl_annotate__free(t->ann_last);
}

int top_run(struct top_opts *o)
{
	struct top t = { .o = o, .delay_secs = o->delay_secs, .zero = o->zero,
			 .hide_kernel = o->hide_kernel, .hide_user = o->hide_user,
			 /* the model's size after each refresh (t-top-memory.sh watches it) */
			 .debug = getenv("PCL_TOP_DEBUG") != NULL };
	int ret;

	catch_signals();
	if (setup(&t)) {
		teardown(&t);
		return 1;
	}
	pcl_evlist__enable(t.el);
	if (top_want_tui(&t))
		ret = top_tui(&t);
	else
		ret = top_stdio(&t);
	pcl_evlist__disable(t.el);
	if (t.failed || t.undecoded)
		fprintf(stderr, "pcl top: %" PRIu64 " samples could not be resolved or added, %" PRIu64
				" records not decoded\n",
			t.failed, t.undecoded);
	teardown(&t);
	return ret;
}
