/* SPDX-License-Identifier: MIT */
/*
 * pcl record's run: events and notes, a libpcl recording session on the
 * target, then poll its rings and the target until the target ends or a
 * signal asks us to stop, and a summary like perf's.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "record.h"
#include "record-control.h"
#include "run.h"

struct recorder {
	struct record_opts *o;
	struct pcl_evlist *el;
	struct pcl_session *s;
	const char *notes[3]; /* said once recording starts, so an error stays one line */
	char rate_note[128];
	struct record_control ctl; /* --control */
	bool ctl_stop;		   /* a "stop" came through it */
	/* --switch-output: the rotated files kept (--switch-max-files), a ring */
	char **kept;
	unsigned int cur_kept;
	char last_name[PATH_MAX];
	uint64_t file_start_ns;		    /* when the current file began, for a switch by time */
	bool size_stop;			    /* --max-size ended the recording */
	uint64_t ztransferred, zcompressed; /* -z: the last file's bytes before and after */
	int *ev_end; /* -e number i added the events up to (not including) ev_end[i] */
};

/* SIGUSR2 with --switch-output: finish this file and start the next, as perf */
static volatile sig_atomic_t switch_requested;

static void on_usr2(int sig)
{
	(void)sig;
	switch_requested = 1;
}

/*
 * perf record ignores SIGUSR2 unless it switches output on it; we do the
 * same, after the workload was forked so that it keeps the default. Like
 * SIGINT it is blocked outside ppoll, so only the poll sees it.
 */
static void usr2_setup(const struct record_opts *o, sigset_t *waitmask)
{
	struct sigaction sa = { .sa_handler = o->switch_output ? on_usr2 : SIG_IGN };
	sigset_t block;

	sigaction(SIGUSR2, &sa, NULL);
	if (!o->switch_output)
		return;
	sigemptyset(&block);
	sigaddset(&block, SIGUSR2);
	sigprocmask(SIG_BLOCK, &block, NULL);
	sigdelset(waitmask, SIGUSR2);
}

/*
 * OUTPUT.<timestamp>: local time to the hundredth of a second, as perf
 * names its switched files. Two switches within one hundredth would give
 * the same name and the second would replace the first: wait for the next.
 */
static void timestamp_name(struct recorder *rc, char *buf, size_t sz)
{
	for (;;) {
		struct timeval tv;
		struct tm tm;
		char dt[32] = "";

		gettimeofday(&tv, NULL);
		localtime_r(&tv.tv_sec, &tm);
		strftime(dt, sizeof(dt), "%Y%m%d%H%M%S", &tm);
		snprintf(buf, sz, "%s.%s%02u", rc->o->output, dt, (unsigned int)tv.tv_usec / 10000);
		if (strcmp(buf, rc->last_name))
			break;
		nanosleep(&(struct timespec){ 0, 2000000 }, NULL);
	}
	snprintf(rc->last_name, sizeof(rc->last_name), "%s", buf);
}

/* --switch-max-files N: keep the N newest files, removing the one N switches old. */
static void keep_file(struct recorder *rc, const char *name)
{
	unsigned int n = rc->o->switch_max_files;

	if (!n)
		return;
	if (!rc->kept && !(rc->kept = calloc(n, sizeof(*rc->kept))))
		return;
	rc->cur_kept = (rc->cur_kept + 1) % n;
	if (rc->kept[rc->cur_kept]) {
		unlink(rc->kept[rc->cur_kept]);
		free(rc->kept[rc->cur_kept]);
	}
	rc->kept[rc->cur_kept] = strdup(name);
}

static void free_kept(struct recorder *rc)
{
	for (unsigned int i = 0; rc->kept && i < rc->o->switch_max_files; i++)
		free(rc->kept[i]);
	free(rc->kept);
}

/* Finish the file as OUTPUT.<timestamp> and record into a new one; 0 or the error. */
static int switch_output(struct recorder *rc)
{
	struct pcl_session_stats st;
	char name[PATH_MAX];
	int ret;

	pcl_session__stats(rc->s, &st);
	if (!rc->o->quiet)
		fprintf(stderr, "[ pcl record: dump data: Woken up %llu times ]\n",
			(unsigned long long)(st.wakeups ? st.wakeups : 1));
	timestamp_name(rc, name, sizeof(name));
	ret = pcl_session__switch_output(rc->s, name, &st);
	if (ret)
		return ret;
	if (!rc->o->quiet)
		fprintf(stderr, "[ pcl record: Dump %s ]\n", name);
	keep_file(rc, name);
	if (!rc->o->no_buildid_cache)
		buildid_cache_record(name);
	rc->file_start_ns = now_ns();
	return 0;
}

/*
 * --timestamp-filename, and the last file of --switch-output: OUTPUT.<timestamp>.
 * As perf, a failed rename leaves the file complete under its own name.
 */
static bool rename_last(struct recorder *rc, char *name)
{
	timestamp_name(rc, name, PATH_MAX);
	if (rename(rc->o->output, name)) {
		fprintf(stderr, "pcl: warning: cannot rename '%s' to '%s': %s\n", rc->o->output,
			name, strerror(errno));
		return false;
	}
	keep_file(rc, name);
	return true;
}

/* --max-size: the file holds that many bytes; stop as perf stops, saying so. */
static bool max_size_reached(struct recorder *rc)
{
	struct pcl_session_stats st;

	if (!rc->o->max_size)
		return false;
	pcl_session__stats(rc->s, &st);
	if (st.bytes < rc->o->max_size)
		return false;
	fprintf(stderr, "[ pcl record: pcl size limit reached (%llu KB), stopping session ]\n",
		(unsigned long long)(st.bytes >> 10));
	rc->size_stop = true;
	return true;
}

/*
 * A SIGUSR2 that came while the loop was busy (writing the last switch) is
 * still pending, as SIGUSR2 is blocked outside ppoll: take it, so that a
 * stop read in the same turn does not lose its file (perf's handler would
 * have noted it).
 */
static bool usr2_pending(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	return sigtimedwait(&set, NULL, &(struct timespec){ 0, 0 }) == SIGUSR2;
}

/* Whether a switch is due: SIGUSR2, the file's size, or its age. */
static bool switch_due(struct recorder *rc)
{
	const struct record_opts *o = rc->o;
	struct pcl_session_stats st;

	if (!o->switch_output)
		return false;
	if (switch_requested) {
		switch_requested = 0;
		return o->switch_signal;
	}
	if (o->switch_size) {
		pcl_session__stats(rc->s, &st);
		if (st.bytes >= o->switch_size)
			return true;
	}
	return o->switch_secs && now_ns() - rc->file_start_ns >= o->switch_secs * 1000000000ull;
}

static int add_events(struct recorder *rc)
{
	struct record_opts *o = rc->o;
	struct pcl_parse_error err;
	struct perf_event_attr cycles = { .type = PERF_TYPE_HARDWARE,
					  .config = PERF_COUNT_HW_CPU_CYCLES,
					  .size = sizeof(cycles),
					  .exclude_kernel = 1 };
	const char *def = "cycles";

	rc->ev_end = calloc((size_t)o->nr_events + 1, sizeof(int));
	if (!rc->ev_end) {
		die_msg("out of memory");
		return -1;
	}
	for (int i = 0; i < o->nr_events; i++) {
		if (pcl_evlist__add(rc->el, o->events[i], &err) < 0) {
			die_msg("%s", err.msg[0] ? err.msg : pcl_last_error());
			return -1;
		}
		rc->ev_end[i] = pcl_evlist__nr(rc->el);
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
	/* perf's --all-user / --all-kernel: every event, whatever its modifiers said */
	for (int i = 0; (o->all_user || o->all_kernel) && i < pcl_evlist__nr(rc->el); i++) {
		struct perf_event_attr *a = pcl_evlist__attr(rc->el, i);

		a->exclude_kernel = o->all_user;
		a->exclude_user = o->all_kernel;
	}
	/* -P: the session adds PERF_SAMPLE_PERIOD only where the period varies */
	for (int i = 0; o->sample_period && i < pcl_evlist__nr(rc->el); i++)
		pcl_evlist__attr(rc->el, i)->sample_type |= PERF_SAMPLE_PERIOD;
	if (pcl_evlist__user_only_fallback(rc->el) > 0)
		rc->notes[1] = "this user may not sample the kernel (perf_event_paranoid): "
			       "sampling user space only (:u)";
	return 0;
}

static void rate_note(struct recorder *rc)
{
	struct pcl_sys_caps caps = { .sz = sizeof(caps) };

	pcl_sys_probe(&caps);
	if (rc->o->freq && caps.max_sample_rate > 0 &&
	    rc->o->freq > (unsigned int)caps.max_sample_rate) {
		snprintf(rc->rate_note, sizeof(rc->rate_note),
			 "-F %u is above perf_event_max_sample_rate: using %d Hz", rc->o->freq,
			 caps.max_sample_rate);
		rc->notes[2] = rc->rate_note;
	}
}

/*
 * --filter, after open and before enable: on each event of the -e it
 * follows, several joined as perf joins them, "(first) && (second)".
 */
static int apply_filters(struct recorder *rc)
{
	const struct record_opts *o = rc->o;

	for (int k = 1; k <= o->nr_events; k++) {
		char *f = NULL, *next;

		for (int j = 0; j < o->nr_filters; j++) {
			if (o->filters[j].nr_events != k)
				continue;
			if (!f ? !(next = strdup(o->filters[j].filter))
			       : asprintf(&next, "(%s) && (%s)", f, o->filters[j].filter) < 0) {
				free(f);
				die_msg("out of memory");
				return -1;
			}
			free(f);
			f = next;
		}
		for (int i = k > 1 ? rc->ev_end[k - 2] : 0; f && i < rc->ev_end[k - 1]; i++) {
			const struct pcl_event *ev = pcl_evlist__event(rc->el, i);

			if (ev->attr.type != PERF_TYPE_TRACEPOINT) {
				die_msg("--filter: event '%s' is not a tracepoint (no address "
					"filtering PMU here either)",
					ev->name);
				free(f);
				return -1;
			}
			if (pcl_evlist__set_filter(rc->el, i, f)) {
				die_msg("%s", pcl_last_error());
				free(f);
				return -1;
			}
		}
		free(f);
	}
	return 0;
}

/* Sleep until a ring fills to its watermark, the target ends, or a signal; drain. */
static int record_loop(struct recorder *rc, struct run *r, const sigset_t *waitmask)
{
	int nr = 0, nw = r->watch.nfds, ret = 0, ci = -1, si;
	struct pollfd *fds = calloc((size_t)(nw + 1 + pcl_session__nr_fds(rc->s)), sizeof(*fds));

	if (!fds)
		return -ENOMEM;

	for (int i = 0; i < nw; i++)
		fds[nr++] = r->watch.fds[i];
	if (rc->ctl.ctl >= 0) {
		ci = nr;
		fds[nr++] = (struct pollfd){ .fd = rc->ctl.ctl, .events = POLLIN };
	}
	si = nr;
	for (int i = 0; i < pcl_session__nr_fds(rc->s); i++) {
		fds[nr].fd = pcl_session__fd(rc->s, i);
		fds[nr++].events = POLLIN;
	}
	while (!got_signal && !ret) {
		/* wake at least every 100 ms: rings below their watermark still get written */
		struct timespec tmo = { 0, 100000000 };

		ppoll(fds, (nfds_t)nr, &tmo, waitmask);
		for (int i = 0; i < nw; i++)
			r->watch.fds[i].revents = fds[i].revents;
		unpoll_hung_up(fds + si, nr - si);
		ret = pcl_session__drain(rc->s);
		if (!ret && switch_due(rc))
			ret = switch_output(rc);
		if (!ret && max_size_reached(rc))
			break;
		if (reap(r, WNOHANG) || watch_done(&r->watch))
			break;
		watch_unpoll(&r->watch, fds);
		if (record_control_process(&rc->ctl, rc->el)) {
			rc->ctl_stop = true;
			break;
		}
		/*
		 * A control fd at its end (a pipe whose writer is gone) polls ready
		 * forever: stop watching it, as perf does, or the loop spins.
		 */
		if (ci >= 0 && (rc->ctl.eof || (fds[ci].revents & (POLLERR | POLLNVAL))))
			fds[ci].fd = -1;
	}
	free(fds);
	/* --max-size ended it: no more files */
	if (!ret && !rc->size_stop && rc->o->switch_signal &&
	    (switch_requested || usr2_pending())) {
		switch_requested = 0;
		ret = switch_output(rc);
	}
	return ret;
}

/* --off-cpu: what could not be counted, once each, with its count */
static void offcpu_summary(struct recorder *rc, const struct pcl_offcpu_stats *os)
{
	if (!rc->o->off_cpu)
		return;
	if (os->unmatched)
		fprintf(stderr,
			"pcl: warning: %llu off-CPU intervals dropped: a switch-out with no "
			"switch-in (lost records; try a bigger buffer, -m)\n",
			(unsigned long long)os->unmatched);
	if (os->no_user && !rc->o->quiet)
		fprintf(stderr,
			"pcl: %llu off-CPU intervals without a user stack (kernel threads) not "
			"counted, as perf does\n",
			(unsigned long long)os->no_user);
}

static void summary(struct recorder *rc, const struct pcl_session_stats *st, const char *dumped)
{
	if (st->lost || st->lost_samples)
		fprintf(stderr,
			"pcl: warning: lost %llu samples in %llu chunks (and %llu dropped by the "
			"kernel); use a bigger buffer (-m) or a lower frequency (-F)\n",
			(unsigned long long)st->lost, (unsigned long long)st->lost_records,
			(unsigned long long)st->lost_samples);
	if (rc->o->quiet)
		return;
	fprintf(stderr, "[ pcl record: Woken up %llu times to write data ]\n",
		(unsigned long long)(st->wakeups ? st->wakeups : 1));
	if (dumped)
		fprintf(stderr, "[ pcl record: Dump %s ]\n", dumped);
	fprintf(stderr, "[ pcl record: Captured and wrote %.3f MB %s%s (%llu samples)",
		(double)st->bytes / (1024.0 * 1024.0), rc->o->output, dumped ? ".<timestamp>" : "",
		(unsigned long long)st->samples);
	if (rc->zcompressed)
		fprintf(stderr, ", compressed (original %.3f MB, ratio is %.3f)",
			(double)rc->ztransferred / (1024.0 * 1024.0),
			(double)rc->ztransferred / (double)rc->zcompressed);
	fprintf(stderr, " ]\n");
}

/*
 * Whether the command's standard output would land in the stream we write:
 * always for "-", and for a FIFO or character device -o that stdout is too.
 */
static bool stdout_is_stream(const char *output)
{
	struct stat o, s;

	if (!strcmp(output, "-"))
		return true;
	if (stat(output, &o) || fstat(STDOUT_FILENO, &s))
		return false;
	if (S_ISFIFO(o.st_mode))
		return S_ISFIFO(s.st_mode) && o.st_dev == s.st_dev && o.st_ino == s.st_ino;
	/* the null device keeps no stream to corrupt: output sent there stays there, as perf's */
	return S_ISCHR(o.st_mode) && S_ISCHR(s.st_mode) && o.st_rdev == s.st_rdev &&
	       o.st_rdev != makedev(1, 3);
}

/*
 * Start the command; like perf in pipe mode, its stdout goes to our stderr
 * when it would otherwise write into the data stream and corrupt it.
 */
static struct pcl_workload *prepare_workload(struct record_opts *o)
{
	struct pcl_workload *wl;
	int saved = -1, e;

	if (stdout_is_stream(o->output)) {
		fflush(stdout);
		saved = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
		if (saved < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
			if (saved >= 0)
				close(saved);
			return NULL;
		}
	}
	wl = pcl_workload__prepare(o->argv); /* forks: the child keeps this stdout */
	e = errno;
	if (saved >= 0) {
		dup2(saved, STDOUT_FILENO);
		close(saved);
	}
	errno = e;
	return wl;
}

/* Events, workload and session; on failure a message was printed. */
static int prepare(struct recorder *rc, struct run *r, int argc, char **argv)
{
	struct record_opts *o = rc->o;
	struct pcl_session_opts so = {
		.sz = sizeof(so),
		.freq = o->freq,
		.freq_max = o->freq_max,
		.period = o->period,
		.call_graph = o->call_graph,
		.stack_size = o->stack_size,
		.switch_events = o->switch_events,
		.inherit_stat = o->inherit_stat,
		.data_addr = o->data_addr,
		.sample_cpu = o->sample_cpu,
		.mmap_pages = (unsigned int)o->mmap_pages,
		.clockid = o->clockid,
		.leaf_stack_size = o->leaf_stack_size,
		.per_thread = o->per_thread,
		.no_buildid = o->no_buildid,
		.sample_regs_user = o->user_regs,
		.sample_regs_intr = o->intr_regs,
		.compression_level = o->compression_level,
		.overwrite = o->overwrite,
		.buildid_all = o->buildid_all,
		.off_cpu = o->off_cpu,
	};

	rc->el = pcl_evlist__new();
	if (!rc->el || add_events(rc))
		return EXIT_USAGE;
	rate_note(rc);
	if (o->argv && !(r->wl = prepare_workload(o))) {
		die_msg("cannot start '%s': %s", o->argv[0], strerror(errno));
		return 1;
	}
	rc->s = pcl_session__open(rc->el, &o->target, r->wl, &so, o->output, argc, argv);
	if (!rc->s) {
		die_msg("%s", pcl_last_error());
		return 1;
	}
	note_probe_no_inherit(rc->el, o->target.no_inherit);
	return apply_filters(rc) ? 1 : 0;
}

int record_run(struct record_opts *o, int argc, char **argv)
{
	struct recorder rc = { .o = o, .ctl = { -1, -1, false } };
	struct pcl_session_stats st;
	struct run r = { 0 };
	sigset_t waitmask;
	char last[PATH_MAX];
	int ret, code = 0;

	ret = prepare(&rc, &r, argc, argv);
	if (!ret && o->control && record_control_open(&rc.ctl, o->control))
		ret = EXIT_USAGE;
	if (ret)
		goto out;
	run_signals_setup(&waitmask);
	usr2_setup(o, &waitmask);
	rc.file_start_ns = now_ns();
	if (r.wl) {
		watch_pidfd(&r.watch, pcl_workload__pid(r.wl));
		r.watch.workload = true;
	} else if (o->target.pid) {
		watch_pids(&r.watch, o->target.pid, false);
	} else if (o->target.tid) {
		watch_pids(&r.watch, o->target.tid, true);
	}
	for (size_t i = 0; i < sizeof(rc.notes) / sizeof(rc.notes[0]) && !o->quiet; i++)
		if (rc.notes[i])
			fprintf(stderr, "pcl: %s\n", rc.notes[i]);
	pcl_evlist__enable(rc.el);
	if (r.wl && (ret = pcl_workload__start(r.wl))) {
		die_msg("cannot run '%s': %s", o->argv[0], pcl_strerror(ret));
		ret = 127;
		goto out;
	}
	ret = record_loop(&rc, &r, &waitmask);
	/* like perf record, a stop (a signal, --control "stop", --max-size) ends the workload too */
	if ((got_signal || rc.ctl_stop || rc.size_stop) && r.wl && !r.exited)
		kill(pcl_workload__pid(r.wl), SIGTERM);
	pcl_evlist__disable(rc.el);
	if (r.wl && !r.exited && !ret)
		reap(&r, 0);
	if (!ret && o->compression_level && !(ret = pcl_session__drain(rc.s)))
		pcl_session__compression(rc.s, &rc.ztransferred, &rc.zcompressed);
	if (!ret) {
		struct pcl_offcpu_stats os;

		if (o->off_cpu && !(ret = pcl_session__drain(rc.s)))
			pcl_session__offcpu_stats(rc.s, &os);
		else
			memset(&os, 0, sizeof(os));
		offcpu_summary(&rc, &os);
		ret = ret ? ret : pcl_session__close(rc.s, &st);
		rc.s = NULL;
		if (!ret) {
			bool renamed = o->timestamp_filename && rename_last(&rc, last);

			summary(&rc, &st, renamed ? last : NULL);
			/* as perf: the files with samples go into the build-id cache (-N: not) */
			if (!o->no_buildid_cache)
				buildid_cache_record(renamed ? last : o->output);
		}
	}
	if (ret) {
		die_msg("%s", pcl_last_error());
		ret = 1;
		goto out;
	}
	/* after a --control "stop" too: perf's status is then the SIGTERM'ed command's */
	if (r.exited)
		code = run_exit_code(&r, o->argv[0]);
	ret = code;
out:
	free_kept(&rc);
	free(rc.ev_end);
	watch_close(&r.watch);
	record_control_close(&rc.ctl);
	pcl_session__abort(rc.s);
	pcl_workload__free(r.wl);
	pcl_evlist__free(rc.el);
	if (!ret || ret == code)
		run_signals_reraise();
	return ret;
}
