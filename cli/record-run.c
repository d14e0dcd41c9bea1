/* SPDX-License-Identifier: MIT */
/*
 * The recording session of pcl record (see cmd-record.c for the flow).
 *
 * With several events every record starts (samples) or ends (others) with
 * its event's identifier, which picks the attr to decode it with; the first
 * event also carries the tracking bits (mmap, comm, task ...), as perf's
 * does. Rings are drained in rounds: all of them, then
 * a FINISHED_ROUND, which also makes the file's header cover what is on
 * disk.
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "record.h"
#include "run.h"

#define DEFAULT_FREQ 4000
/* x86_64 user registers perf samples for DWARF unwinding: all but the segment registers */
#define DWARF_REGS_MASK 0xff0fffULL

struct recorder {
	struct record_opts *o;
	struct pcl_evlist *el;
	int nev;
	struct pcl_ring **rings; /* one per CPU index */
	int nrings;
	struct pcl_data_writer *w;
	struct pcl_data_attr *attrs;
	uint64_t **ids;
	struct pcl_dso_hits *hits;
	uint64_t samples, first_time, last_time, wakeups;
	int max_rate;
	const char *notes[2]; /* said once recording starts, so an error stays one line */
};

static int add_events(struct recorder *rc)
{
	struct record_opts *o = rc->o;
	struct pcl_parse_error err;
	struct perf_event_attr cycles = { .type = PERF_TYPE_HARDWARE,
					  .config = PERF_COUNT_HW_CPU_CYCLES,
					  .size = sizeof(cycles),
					  .exclude_kernel = 1 };
	const char *def = "cycles";

	for (int i = 0; i < o->nr_events; i++) {
		if (pcl_evlist__add(rc->el, o->events[i], &err) < 0) {
			die_msg("%s", err.msg[0] ? err.msg : pcl_last_error());
			return -1;
		}
	}
	if (!o->nr_events) {
		/* perf's default: cycles, or cpu-clock where there is no hardware PMU */
		if (pcl_event_probe(&cycles)) {
			def = "cpu-clock";
			rc->notes[0] = "no hardware 'cycles' event on this machine: sampling "
				       "'cpu-clock' instead";
		}
		if (pcl_evlist__add(rc->el, def, &err) < 0) {
			die_msg("%s", err.msg);
			return -1;
		}
	}
	rc->nev = pcl_evlist__nr(rc->el);
	if (pcl_evlist__user_only_fallback(rc->el) > 0)
		rc->notes[1] = "this user may not sample the kernel (perf_event_paranoid): "
			       "sampling user space only (:u)";
	return 0;
}

static void set_rate(struct recorder *rc, struct perf_event_attr *a)
{
	struct record_opts *o = rc->o;
	unsigned int hz = o->freq ? o->freq : DEFAULT_FREQ;

	if (a->sample_period || a->freq)
		return; /* the event spec chose (period=, freq=, tracepoints) */
	if (o->period) {
		a->sample_period = o->period;
		return;
	}
	if (o->freq_max || (rc->max_rate > 0 && hz > (unsigned int)rc->max_rate))
		hz = rc->max_rate > 0 ? (unsigned int)rc->max_rate : hz;
	a->freq = 1;
	a->sample_freq = hz;
}

/* The sampling attrs every event gets, and the tracking bits on the first. */
static void setup_attrs(struct recorder *rc)
{
	struct record_opts *o = rc->o;
	struct pcl_sys_caps caps = { .sz = sizeof(caps) };

	pcl_sys_probe(&caps);
	rc->max_rate = caps.max_sample_rate;
	if (o->freq && rc->max_rate > 0 && o->freq > (unsigned int)rc->max_rate && !o->quiet)
		fprintf(stderr, "pcl: -F %u is above perf_event_max_sample_rate: using %d Hz\n",
			o->freq, rc->max_rate);
	for (int i = 0; i < rc->nev; i++) {
		struct perf_event_attr *a = pcl_evlist__attr(rc->el, i);

		set_rate(rc, a);
		a->sample_type |=
			PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
		/* several events: the id first in every record tells whose it is */
		if (rc->nev > 1)
			a->sample_type |= PERF_SAMPLE_IDENTIFIER;
		/* tracepoints carry their fields as raw data, as perf records them */
		if (a->type == PERF_TYPE_TRACEPOINT)
			a->sample_type |= PERF_SAMPLE_RAW;
		if (o->sample_cpu || o->target.system_wide || o->target.cpu_list)
			a->sample_type |= PERF_SAMPLE_CPU;
		/* perf samples data sources with -d, and both for DWARF unwinding */
		if (o->data_addr || o->call_graph == CG_DWARF)
			a->sample_type |= PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
		if (o->call_graph != CG_NONE)
			a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		if (o->call_graph == CG_DWARF) {
			a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
			a->sample_regs_user = DWARF_REGS_MASK;
			a->sample_stack_user = o->stack_size;
			a->exclude_callchain_user = 1;
		}
		a->sample_id_all = 1;
		a->inherit_stat = o->inherit_stat;
		if (o->clockid >= 0) {
			a->use_clockid = 1;
			a->clockid = o->clockid;
		}
		a->watermark = 1;
		a->wakeup_watermark = (uint32_t)(o->mmap_pages * (unsigned long)getpagesize() / 4);
		if (i == 0) {
			a->mmap = a->mmap2 = a->comm = a->comm_exec = a->task = 1;
			a->mmap_data = o->data_addr || o->call_graph == CG_DWARF;
			a->context_switch = o->switch_events;
		}
	}
}

/* One ring per CPU: the first fd on a CPU maps it, the others write into it. */
static int map_rings(struct recorder *rc)
{
	int ncpu = pcl_evlist__nr_cpus(rc->el), nthr = pcl_evlist__nr_threads(rc->el), ret;

	rc->rings = calloc((size_t)ncpu, sizeof(*rc->rings));
	rc->ids = calloc((size_t)rc->nev, sizeof(*rc->ids));
	rc->attrs = calloc((size_t)rc->nev, sizeof(*rc->attrs));
	if (!rc->rings || !rc->ids || !rc->attrs) {
		die_msg("out of memory");
		return -1;
	}
	rc->nrings = ncpu;
	for (int i = 0; i < rc->nev; i++) {
		const struct pcl_event *ev = pcl_evlist__event(rc->el, i);

		rc->ids[i] = calloc((size_t)(ncpu * nthr), sizeof(uint64_t));
		if (!rc->ids[i]) {
			die_msg("out of memory");
			return -1;
		}
		rc->attrs[i].attr = ev->attr;
		rc->attrs[i].name = ev->name;
		rc->attrs[i].ids = rc->ids[i];
		for (int c = 0; c < ncpu; c++) {
			for (int t = 0; t < nthr; t++) {
				int fd = pcl_evlist__fd(rc->el, i, c, t);
				uint64_t id;

				if (fd < 0)
					continue;
				if (ioctl(fd, PERF_EVENT_IOC_ID, &id) == 0)
					rc->ids[i][rc->attrs[i].nr_ids++] = id;
				if (!rc->rings[c]) {
					rc->rings[c] = pcl_ring__mmap(
						fd, (unsigned int)rc->o->mmap_pages, false);
					if (!rc->rings[c]) {
						die_msg("cannot map a %lu-page ring buffer: %s (a "
							"smaller -m may fit perf_event_mlock_kb)",
							rc->o->mmap_pages, strerror(errno));
						return -1;
					}
				} else if ((ret = pcl_ring_set_output(
						    fd, pcl_ring__fd(rc->rings[c])))) {
					die_msg("cannot share a ring buffer: %s",
						pcl_strerror(ret));
					return -1;
				}
			}
		}
	}
	return 0;
}

/* The attr of the event that wrote @h: by its identifier when there are several. */
static const struct perf_event_attr *attr_of(struct recorder *rc, const struct perf_event_header *h)
{
	uint64_t id;

	if (rc->nev == 1)
		return &rc->attrs[0].attr;
	id = pcl_record_identifier(h, h->size, true);
	for (int i = 0; i < rc->nev; i++)
		for (uint32_t k = 0; k < rc->attrs[i].nr_ids; k++)
			if (rc->ids[i][k] == id)
				return &rc->attrs[i].attr;
	return &rc->attrs[0].attr;
}

/* Write one record and account for it (samples, times, maps for build ids). */
static int sink(void *ctx, const struct perf_event_header *h)
{
	struct recorder *rc = ctx;
	struct pcl_record r;

	if (pcl_record_decode(h, h->size, attr_of(rc, h), &r) == 0) {
		pcl_dso_hits__record(rc->hits, &r);
		if (r.type == PERF_RECORD_SAMPLE) {
			rc->samples++;
			if (!rc->first_time || r.sample.time < rc->first_time)
				rc->first_time = r.sample.time;
			if (r.sample.time > rc->last_time)
				rc->last_time = r.sample.time;
		}
	}
	return pcl_data_writer__write(rc->w, h);
}

/* Drain every ring once; a round ends when all are read. */
static int drain(struct recorder *rc)
{
	uint64_t before = pcl_data_writer__data_size(rc->w);
	int ret = 0;

	for (int c = 0; c < rc->nrings && !ret; c++) {
		const struct perf_event_header *h;

		if (!rc->rings[c] || pcl_ring__read_begin(rc->rings[c]))
			continue;
		while (!ret && (h = pcl_ring__next(rc->rings[c])))
			ret = sink(rc, h);
		pcl_ring__read_end(rc->rings[c]);
	}
	if (!ret && pcl_data_writer__data_size(rc->w) != before)
		ret = pcl_data_writer__finish_round(rc->w);
	return ret;
}

/* The process a thread belongs to (Tgid in /proc/TID/status), or the tid itself. */
static pid_t thread_group(pid_t tid)
{
	char path[64], line[256];
	FILE *f;
	int tgid = (int)tid;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return tid;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return (pid_t)tgid;
}

static int synthesize_all(struct recorder *rc)
{
	struct record_opts *o = rc->o;
	const struct perf_event_attr *a = &rc->attrs[0].attr;
	uint64_t id = rc->attrs[0].nr_ids ? rc->ids[0][0] : 0;
	struct perf_event_header fin = { .type = PCL_RECORD_FINISHED_INIT, .size = sizeof(fin) };
	int ret = 0;

	/* without kernel addresses (kptr_restrict) there is no kernel map to give */
	pcl_synthesize_kernel_mmap(a, id, sink, rc);
	if (o->target.pid || o->target.tid) {
		for (int t = 0; t < pcl_evlist__nr_threads(rc->el) && !ret; t++) {
			pid_t tid = pcl_evlist__thread(rc->el, t), tgid = thread_group(tid);

			if (tgid == tid || o->target.tid)
				ret = pcl_synthesize_process(tgid, a, id, a->mmap_data, sink, rc);
		}
	} else if (o->target.system_wide || o->target.cpu_list) {
		DIR *d = opendir("/proc");
		struct dirent *de;

		while (d && !ret && (de = readdir(d))) {
			pid_t pid = (pid_t)atoi(de->d_name);

			if (pid > 0 &&
			    pcl_synthesize_process(pid, a, id, a->mmap_data, sink, rc) == -EIO)
				ret = -EIO;
		}
		if (d)
			closedir(d);
	}
	if (!ret)
		ret = pcl_data_writer__write(rc->w, &fin);
	return ret ? ret : pcl_data_writer__finish_round(rc->w);
}

/* Sleep until a ring fills to its watermark, the target ends, or a signal; drain. */
static int record_loop(struct recorder *rc, struct run *r, const sigset_t *waitmask)
{
	struct pollfd fds[64 + 1024];
	int nr = 0, nw = r->watch.nfds, ret = 0;

	for (int i = 0; i < nw; i++)
		fds[nr++] = r->watch.fds[i];
	for (int c = 0; c < rc->nrings && nr < (int)(sizeof(fds) / sizeof(fds[0])); c++) {
		if (!rc->rings[c])
			continue;
		fds[nr].fd = pcl_ring__fd(rc->rings[c]);
		fds[nr++].events = POLLIN;
	}
	while (!got_signal && !ret) {
		/* wake at least every 100 ms: rings below their watermark still get written */
		struct timespec tmo = { 0, 100000000 };
		int n = ppoll(fds, (nfds_t)nr, &tmo, waitmask);

		for (int i = 0; i < nw; i++)
			r->watch.fds[i].revents = fds[i].revents;
		for (int i = nw; n > 0 && i < nr; i++) {
			if (fds[i].revents & POLLIN) {
				rc->wakeups++;
				break;
			}
		}
		ret = drain(rc);
		if (reap(r, WNOHANG) || watch_done(&r->watch))
			break;
	}
	return ret;
}

static void summary(struct recorder *rc)
{
	struct pcl_ring_stats st, sum = { 0 };
	double mb = (double)pcl_data_writer__data_size(rc->w) / (1024.0 * 1024.0);

	for (int c = 0; c < rc->nrings; c++) {
		if (!rc->rings[c])
			continue;
		pcl_ring__stats(rc->rings[c], &st);
		sum.lost += st.lost;
		sum.lost_records += st.lost_records;
		sum.lost_samples += st.lost_samples;
	}
	if (sum.lost || sum.lost_samples)
		fprintf(stderr,
			"pcl: warning: lost %llu samples in %llu chunks (and %llu dropped by the "
			"kernel); use a bigger buffer (-m) or a lower frequency (-F)\n",
			(unsigned long long)sum.lost, (unsigned long long)sum.lost_records,
			(unsigned long long)sum.lost_samples);
	if (rc->o->quiet)
		return;
	fprintf(stderr, "[ pcl record: Woken up %llu times to write data ]\n",
		(unsigned long long)(rc->wakeups ? rc->wakeups : 1));
	fprintf(stderr, "[ pcl record: Captured and wrote %.3f MB %s (%llu samples) ]\n", mb,
		rc->o->output, (unsigned long long)rc->samples);
}

/* Build ids, sample times, close. Returns 0 or the write error. */
static int finish_file(struct recorder *rc)
{
	uint64_t times[2] = { rc->first_time, rc->last_time };
	struct pcl_data_writer *w = rc->w;

	pcl_dso_hits__write_build_ids(rc->hits, w);
	if (rc->samples)
		pcl_data_writer__set_feature(w, PCL_FEAT_SAMPLE_TIME, times, sizeof(times));
	summary(rc);
	rc->w = NULL;
	return pcl_data_writer__close(w);
}

static void free_recorder(struct recorder *rc)
{
	for (int c = 0; c < rc->nrings && rc->rings; c++)
		pcl_ring__munmap(rc->rings[c]);
	for (int i = 0; i < rc->nev && rc->ids; i++)
		free(rc->ids[i]);
	free(rc->rings);
	free(rc->ids);
	free(rc->attrs);
	pcl_dso_hits__free(rc->hits);
	pcl_data_writer__abort(rc->w);
	pcl_evlist__free(rc->el);
}

/* CLOCKID: the resolution (ns) of the clock -k chose, as perf writes it. */
static int add_clockid(struct recorder *rc)
{
	struct timespec res;
	uint64_t ns;

	if (rc->o->clockid < 0 || clock_getres(rc->o->clockid, &res))
		return 0;
	ns = (uint64_t)res.tv_sec * 1000000000ull + (uint64_t)res.tv_nsec;
	return pcl_data_writer__set_feature(rc->w, PCL_FEAT_CLOCKID, &ns, sizeof(ns));
}

/* Tracepoint formats, so perf can decode the tracepoint samples. */
static int add_tracing(struct recorder *rc)
{
	const struct perf_event_attr *a[256];
	int n = rc->nev < 256 ? rc->nev : 256;

	for (int i = 0; i < n; i++)
		a[i] = &rc->attrs[i].attr;
	return pcl_data_writer__add_tracing_data(rc->w, a, n);
}

/* Open everything; on failure a message was printed. */
static int prepare(struct recorder *rc, struct run *r, int argc, char **argv)
{
	struct record_opts *o = rc->o;
	bool task = !o->target.system_wide && !o->target.cpu_list;

	rc->el = pcl_evlist__new();
	rc->hits = pcl_dso_hits__new();
	if (!rc->el || !rc->hits || add_events(rc))
		return EXIT_USAGE;
	setup_attrs(rc);
	if (o->argv && !(r->wl = pcl_workload__prepare(o->argv))) {
		die_msg("cannot start '%s': %s", o->argv[0], strerror(errno));
		return 1;
	}
	o->target.per_cpu = task;
	/* perf's read_format for sampling: ids (and lost counts); times only with -s */
	pcl_evlist__set_read_format(
		rc->el, PERF_FORMAT_ID | PERF_FORMAT_LOST |
				(o->inherit_stat ? PERF_FORMAT_TOTAL_TIME_ENABLED |
							   PERF_FORMAT_TOTAL_TIME_RUNNING
						 : 0));
	if (pcl_evlist__open(rc->el, &o->target, o->target.pid || o->target.tid ? NULL : r->wl)) {
		die_msg("%s", pcl_last_error());
		return 1;
	}
	for (int i = 0; i < rc->nev; i++) {
		if (pcl_evlist__state(rc->el, i) != PCL_EVSEL_OK) {
			die_msg("cannot sample '%s' on this machine: %s",
				pcl_evlist__event(rc->el, i)->name,
				pcl_strerror(pcl_evlist__open_errno(rc->el, i)));
			return 1;
		}
	}
	if (map_rings(rc))
		return 1;
	rc->w = pcl_data_writer__create(o->output, rc->attrs, rc->nev);
	if (!rc->w) {
		die_msg("%s", pcl_last_error());
		return 1;
	}
	if (pcl_data_writer__add_host_features(rc->w, argc, argv) || add_tracing(rc) ||
	    add_clockid(rc) || synthesize_all(rc)) {
		die_msg("%s", pcl_last_error());
		return 1;
	}
	return 0;
}

int record_run(struct record_opts *o, int argc, char **argv)
{
	struct recorder rc = { .o = o };
	struct run r = { 0 };
	sigset_t waitmask;
	int ret, code = 0;

	ret = prepare(&rc, &r, argc, argv);
	if (ret)
		goto out;
	run_signals_setup(&waitmask);
	if (r.wl) {
		watch_pidfd(&r.watch, pcl_workload__pid(r.wl));
		r.watch.workload = true;
	} else if (o->target.pid) {
		watch_pids(&r.watch, o->target.pid, false);
	} else if (o->target.tid) {
		watch_pids(&r.watch, o->target.tid, true);
	}
	for (int i = 0; i < 2 && !o->quiet; i++)
		if (rc.notes[i])
			fprintf(stderr, "pcl: %s\n", rc.notes[i]);
	pcl_evlist__enable(rc.el);
	if (r.wl && (ret = pcl_workload__start(r.wl))) {
		die_msg("cannot run '%s': %s", o->argv[0], pcl_strerror(ret));
		ret = 127;
		goto out;
	}
	ret = record_loop(&rc, &r, &waitmask);
	/* like perf record, a stop request ends the workload too */
	if (got_signal && r.wl && !r.exited)
		kill(pcl_workload__pid(r.wl), SIGTERM);
	pcl_evlist__disable(rc.el);
	if (!ret)
		ret = drain(&rc);
	if (r.wl && !r.exited && !ret)
		reap(&r, 0);
	if (!ret)
		ret = finish_file(&rc);
	if (ret) {
		die_msg("%s", pcl_last_error());
		ret = 1;
		goto out;
	}
	if (r.exited)
		code = run_exit_code(&r, o->argv[0]);
	ret = code;
out:
	watch_close(&r.watch);
	pcl_workload__free(r.wl);
	free_recorder(&rc);
	if (!ret || ret == code)
		run_signals_reraise();
	return ret;
}
