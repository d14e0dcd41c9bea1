/* SPDX-License-Identifier: MIT */
/*
 * pcl report --format=NAME: read the recording into a profile of one event,
 * then hand it to libpcl's writer for the format. Output to a regular
 * file goes to a temporary file beside it, renamed into place only when
 * whole (see out_open).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "export.h"

static const struct {
	const char *name;
	export_writer write;
	bool timeline;
	bool lines; /* carries source positions: the profile looks them up */
} formats[] = {
	{ "folded", pcl_export_folded, false, false },
	{ "flamegraph", pcl_export_flamegraph, false, false },
	{ "html", pcl_export_html, false, false },
	{ "pprof", pcl_export_pprof, false, true },
	{ "firefox", pcl_export_firefox, true, true },
	{ "speedscope", pcl_export_speedscope, true, true },
};

const char export_formats[] = "folded, flamegraph, html, pprof, firefox, speedscope, json";

bool export_format_known(const char *name)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(formats[i].name, name))
			return true;
	return false;
}

/* Whether the format @name carries source positions. */
static bool format_lines(const char *name)
{
	for (size_t i = 0; name && i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(formats[i].name, name))
			return formats[i].lines;
	return false;
}

bool events_pair(const struct perf_event_attr *a, const struct perf_event_attr *b)
{
	return a->type == b->type && a->config == b->config;
}

/*
 * The event index to export: the one pairing with x->match, else by name
 * (-1 when there is none, or until a stream has declared it).
 */
static int pick_event(struct input *in, const struct export_req *x)
{
	for (int i = 0; i < pcl_data_reader__nr_attrs(in->reader); i++) {
		const struct pcl_data_attr *at = pcl_data_reader__attr(in->reader, i);

		if (x->match ? events_pair(&at->attr, x->match)
			     : at->name && !strcmp(at->name, x->event))
			return i;
	}
	return -1;
}

/*
 * A sample's period: its own, or with -c (no PERIOD in sample_type) the
 * event's fixed one, as perf script prints it.
 */
static uint64_t sample_period(struct input *in, const struct pcl_data_event *ev)
{
	const struct perf_event_attr *a = &pcl_data_reader__attr(in->reader, ev->attr_idx)->attr;

	if (ev->rec.sample.sample_type & PERF_SAMPLE_PERIOD)
		return ev->rec.sample.period;
	return a->freq ? 0 : a->sample_period;
}

const struct pcl_symbol wall_offcpu_sym = { 0, 1, "[off-CPU]" };

/*
 * Firefox: a weighed sample (off-CPU, --wall) longer than
 * PCL_FIREFOX_MAX_REPS intervals is cut there; said once, with a count.
 */
static void firefox_cut_warning(const struct pcl_profile *p, const struct pcl_export_opts *o)
{
	uint64_t step = o->interval ? o->interval : 1000000, cut = 0;
	const struct pcl_profile_sample *s;
	size_t n;

	if (!o->by_period || !o->period_is_ns)
		return;
	s = pcl_profile__samples(p, &n);
	for (size_t i = 0; i < n; i++)
		if (s[i].time && (s[i].period + step / 2) / step > PCL_FIREFOX_MAX_REPS)
			cut++;
	if (cut)
		fprintf(stderr,
			"pcl: warning: %" PRIu64 " off-CPU sample%s longer than %.3f s cut to it "
			"in the Firefox export (no sample weights in its format: one sample per "
			"%.3f ms interval, at most %u each)\n",
			cut, cut == 1 ? "" : "s", (double)step * PCL_FIREFOX_MAX_REPS / 1e9,
			(double)step / 1e6, PCL_FIREFOX_MAX_REPS);
}

int wall_events(struct input *in, int *on, int *off)
{
	*on = *off = -1;
	for (int i = 0; i < pcl_data_reader__nr_attrs(in->reader); i++) {
		const struct pcl_data_attr *at = pcl_data_reader__attr(in->reader, i);

		if (at->name && !strcmp(at->name, "offcpu-time"))
			*off = *off < 0 ? i : *off;
		else if (at->attr.type == PERF_TYPE_SOFTWARE &&
			 (at->attr.config == PERF_COUNT_SW_CPU_CLOCK ||
			  at->attr.config == PERF_COUNT_SW_TASK_CLOCK))
			*on = *on < 0 ? i : *on;
	}
	if (*off < 0) {
		die_msg("--wall: '%s' has no offcpu-time event (record with --off-cpu)", in->path);
		return -1;
	}
	if (*on < 0) {
		die_msg("--wall: '%s' has no cpu-clock or task-clock event to time the on-CPU "
			"part (record with -e cpu-clock)",
			in->path);
		return -1;
	}
	return 0;
}

/*
 * --wall: an off-CPU sample's frames with "[off-CPU]" as their leaf, in
 * @buf (grown as needed); the chain id is dropped, the frames differ.
 */
static int wall_offcpu(struct pcl_resolved *rs, struct pcl_frame **buf, size_t *cap)
{
	size_t n = rs->nr_chain ? rs->nr_chain : 1;

	if (n + 1 > *cap) {
		struct pcl_frame *b = realloc(*buf, (n + 1) * sizeof(*b));

		if (!b)
			return -1;
		*buf = b;
		*cap = n + 1;
	}
	memcpy(*buf + 1, rs->nr_chain ? rs->chain : &rs->ip, n * sizeof(**buf));
	(*buf)[0] = (struct pcl_frame){ .sym = &wall_offcpu_sym, .level = '.' };
	rs->ip = (*buf)[0];
	rs->chain = *buf;
	rs->nr_chain = n + 1;
	rs->chain_id = 0;
	return 0;
}

/*
 * The intervals the offcpu-time samples were blocked ([time - period,
 * time] of a thread), for the time-based formats' off-CPU markers when the
 * file has no switch records of its own (pcl record --off-cpu writes them
 * only with --switch-events).
 */
struct blocked {
	struct {
		const struct pcl_thread *t;
		uint64_t from, to;
	} *v;
	size_t n, cap;
	bool switches; /* the file has switch records: they make the markers */
};

static int blocked_note(struct blocked *b, const struct pcl_resolved *rs, uint64_t time,
			uint64_t period)
{
	if (b->switches || !rs->thread || !time || period > time)
		return 0;
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 256;
		void *v = realloc(b->v, cap * sizeof(*b->v));

		if (!v)
			return -1;
		b->v = v;
		b->cap = cap;
	}
	b->v[b->n].t = rs->thread;
	b->v[b->n].from = time - period;
	b->v[b->n++].to = time;
	return 0;
}

static int blocked_add(struct blocked *b, struct pcl_profile *p)
{
	for (size_t i = 0; i < b->n && !b->switches; i++)
		if (pcl_profile__add_switch(p, b->v[i].t, b->v[i].from, true, false) ||
		    pcl_profile__add_switch(p, b->v[i].t, b->v[i].to, false, false))
			return -1;
	return 0;
}

/* The offcpu-time event's index, or -1. */
/* the first time perf's off_cpu_write gives its samples (~0ull << 32) */
#define OFFCPU_DUMMY_TIME 0xffffffff00000000ull

static int offcpu_index(struct input *in)
{
	for (int i = 0; i < pcl_data_reader__nr_attrs(in->reader); i++) {
		const char *name = pcl_data_reader__attr(in->reader, i)->name;

		if (name && !strcmp(name, "offcpu-time"))
			return i;
	}
	return -1;
}

int export_read_profile(struct input *in, const struct export_req *x, bool timeline,
			struct pcl_profile **out, const char **event_name)
{
	struct pcl_frame *wbuf = NULL;
	struct blocked blk = { 0 };
	size_t wcap = 0;
	int won = -1, woff = -1;
	struct pcl_profile_opts po = { .sz = sizeof(po), .timeline = timeline,
				       .symbols = format_lines(x->format) ? in->symbols : NULL };
	struct pcl_profile *p = pcl_profile__new(&po);
	int want = -1, ret;
	uint64_t time, last_real = 0;
	bool dummy;

	*out = NULL;
	if (!p) {
		die_msg("out of memory");
		return -1;
	}
	if (x->wall && wall_events(in, &won, &woff))
		goto fail;
	if (!x->wall)
		woff = offcpu_index(in);
	while ((ret = input_next(in)) > 0) {
		const struct pcl_data_event *ev = &in->ev;
		const struct pcl_record *rec = &ev->rec;
		struct pcl_resolved rs;
		uint32_t cpu;

		if (!ev->decoded)
			continue;
		if ((ev->hdr->type == PERF_RECORD_SWITCH ||
		     ev->hdr->type == PERF_RECORD_SWITCH_CPU_WIDE) && timeline && rec->has_id) {
			struct pcl_thread *t = pcl_machine__thread(in->machine, (int32_t)rec->id.pid,
								   (int32_t)rec->id.tid);

			blk.switches = true;
			if (!t || pcl_profile__add_switch(p, t, rec->id.time,
							  rec->misc & PERF_RECORD_MISC_SWITCH_OUT,
							  rec->misc &
								  PERF_RECORD_MISC_SWITCH_OUT_PREEMPT))
				goto oom;
			continue;
		}
		if (ev->hdr->type != PERF_RECORD_SAMPLE || ev->attr_idx < 0)
			continue;
		/*
		 * perf's offcpu-time samples (BPF) have dummy times, ~0 << 32 and up,
		 * so that they sort last: among timed samples they go at the end of
		 * the recording (the newest real time), without a blocked marker
		 */
		time = rec->sample.sample_type & PERF_SAMPLE_TIME ? rec->sample.time : 0;
		dummy = ev->attr_idx == woff && time >= OFFCPU_DUMMY_TIME;
		if (dummy && last_real)
			time = last_real;
		else if (!dummy && time > last_real)
			last_real = time;
		if (x->wall)
			want = ev->attr_idx == woff ? woff : won;
		if (want < 0) {
			/* a stream declares its events as it goes: decide at the first sample */
			want = x->event || x->match ? pick_event(in, x) : ev->attr_idx;
			if (want < 0) {
				die_msg("'%s' has no event '%s'", in->path, x->event);
				goto fail;
			}
		}
		if (ev->attr_idx != want)
			continue;
		if (pcl_resolver__sample(in->resolver, rec, &rs))
			goto oom;
		cpu = rec->sample.sample_type & PERF_SAMPLE_CPU ? rec->sample.cpu : UINT32_MAX;
		if (x->pass && !x->pass(x->pass_ctx, &rs, cpu))
			continue;
		if (x->wall && ev->attr_idx == woff && wall_offcpu(&rs, &wbuf, &wcap))
			goto oom;
		if (timeline && ev->attr_idx == woff && !dummy &&
		    blocked_note(&blk, &rs, time, sample_period(in, ev)))
			goto oom;
		if (pcl_profile__add(p, &rs, time, cpu, sample_period(in, ev)))
			goto oom;
		if (x->annotate && pcl_annotate__add(x->annotate, 0, &rs.ip, sample_period(in, ev)))
			goto oom;
	}
	if (ret < 0)
		goto fail;
	input_finish(in);
	if (want < 0 && (x->event || x->match) && pick_event(in, x) < 0) {
		die_msg("'%s' has no event '%s'", in->path, x->event);
		goto fail;
	}
	if (blocked_add(&blk, p))
		goto oom;
	pcl_profile__finish(p);
	free(wbuf);
	free(blk.v);
	if (x->wall)
		want = won;
	/* no samples: still the event's name (the first), for the formats that carry it */
	if (want < 0)
		want = x->event || x->match ? pick_event(in, x) : 0;
	*event_name = want < pcl_data_reader__nr_attrs(in->reader) &&
			      pcl_data_reader__attr(in->reader, want)->name
			      ? pcl_data_reader__attr(in->reader, want)->name
			      : "";
	*out = p;
	return 0;
oom:
	die_msg("out of memory");
fail:
	free(wbuf);
	free(blk.v);
	pcl_profile__free(p);
	return -1;
}

/* A perf header string (u32 length, text padded with NULs) at @p of @len bytes, or NULL. */
static char *perf_string(const uint8_t *p, size_t len, size_t *used)
{
	uint32_t n;

	if (len < 4)
		return NULL;
	memcpy(&n, p, 4);
	if (n > len - 4)
		return NULL;
	*used = 4 + n;
	return strndup((const char *)p + 4, n);
}

static char *feature_string(struct input *in, int feat)
{
	size_t len, used;
	const uint8_t *p = pcl_data_reader__feature(in->reader, feat, &len);

	return p ? perf_string(p, len, &used) : NULL;
}

/* CMDLINE: u32 count, then that many strings, joined by spaces. */
static char *feature_cmdline(struct input *in)
{
	size_t len, used, at = 4, size = 0;
	const uint8_t *p = pcl_data_reader__feature(in->reader, PCL_FEAT_CMDLINE, &len);
	uint32_t n;
	char *out = NULL;
	FILE *m;

	if (!p || len < 4)
		return NULL;
	memcpy(&n, p, 4);
	m = open_memstream(&out, &size);
	if (!m)
		return NULL;
	for (uint32_t i = 0; i < n && at < len; i++) {
		char *s = perf_string(p + at, len - at, &used);

		if (!s)
			break;
		fprintf(m, "%s%s", i ? " " : "", s);
		free(s);
		at += used;
	}
	fclose(m);
	return out;
}

#define MAX_FACTS 8

void export_opts_fill(struct pcl_export_opts *o, struct input *in, const char *event_name)
{
	static const struct {
		const char *name;
		int feat;
	} strs[] = {
		{ "hostname", PCL_FEAT_HOSTNAME },   { "os release", PCL_FEAT_OSRELEASE },
		{ "arch", PCL_FEAT_ARCH },	     { "cpu", PCL_FEAT_CPUDESC },
		{ "recorder", PCL_FEAT_VERSION },
	};
	struct pcl_export_fact *f = calloc(MAX_FACTS, sizeof(*f));
	size_t n = 0;

	o->event = event_name;
	o->lost_samples = pcl_data_events__stats(in->events)->total_lost_samples;
	for (int i = 0; i < pcl_data_reader__nr_attrs(in->reader); i++) {
		const struct perf_event_attr *a = &pcl_data_reader__attr(in->reader, i)->attr;
		const char *name = pcl_data_reader__attr(in->reader, i)->name;

		if (!name || strcmp(name, event_name))
			continue;
		o->period_is_ns = a->type == PERF_TYPE_SOFTWARE &&
				  (a->config == PERF_COUNT_SW_CPU_CLOCK ||
				   a->config == PERF_COUNT_SW_TASK_CLOCK);
		/* off-CPU samples weigh the ns blocked: a count of them means nothing */
		if (!strcmp(name, "offcpu-time")) {
			o->period_is_ns = o->by_period = true;
			o->interval = 0;
			break;
		}
		/* -F: a rate; otherwise a fixed period */
		if (a->freq && a->sample_freq)
			o->interval = o->period_is_ns ? 1000000000ull / a->sample_freq : 0;
		else
			o->interval = a->sample_period;
		break;
	}
	if (!f)
		return;
	f[n++] = (struct pcl_export_fact){ "file", strdup(in->path) };
	f[n++] = (struct pcl_export_fact){ "command", feature_cmdline(in) };
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]) && n < MAX_FACTS; i++)
		f[n++] = (struct pcl_export_fact){ strs[i].name, feature_string(in, strs[i].feat) };
	/* keep the facts the file has */
	o->nr_facts = 0;
	for (size_t i = 0; i < n; i++) {
		if (f[i].value && f[i].value[0])
			f[o->nr_facts++] = f[i];
		else
			free((char *)f[i].value);
	}
	o->facts = f;
}

static int64_t ns_of(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#define MINUTE_NS (60 * 1000000000ll)

void export_opts_clock(struct pcl_export_opts *o, struct input *in, const struct pcl_profile *p)
{
	size_t len;
	const uint8_t *cd = pcl_data_reader__feature(in->reader, PCL_FEAT_CLOCK_DATA, &len);
	int64_t last = (int64_t)pcl_profile__time_last(p), now_off;
	uint32_t version;
	uint64_t tod, clk;
	struct stat st;

	o->has_wall_clock = false;
	/* -k: the recorder read the time of day and the sample clock at one moment */
	if (cd && len >= 24) {
		memcpy(&version, cd, 4);
		memcpy(&tod, cd + 8, 8);
		memcpy(&clk, cd + 16, 8);
		if (version == 1 && tod) {
			o->has_wall_clock = true;
			o->wall_clock_offset = (int64_t)(tod - clk);
			return;
		}
	}
	if (!last)
		return;
	/*
	 * Else the samples are on perf's clock, the kernel's time since boot
	 * (CLOCK_MONOTONIC's pace). Recorded since this machine booted, they are
	 * that far from now; the file's last write, just after its last sample,
	 * tells whether that is so, and stands in for it when not (another
	 * boot, another machine).
	 */
	now_off = ns_of(CLOCK_REALTIME) - ns_of(CLOCK_MONOTONIC);
	/* to the second: two exports of one file are the same bytes */
	now_off = (now_off + 500000000) / 1000000000 * 1000000000;
	if (in->path && strcmp(in->path, "-") && !stat(in->path, &st) && S_ISREG(st.st_mode)) {
		int64_t mtime = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
		int64_t d = last + now_off - mtime;

		o->has_wall_clock = true;
		o->wall_clock_offset = d > -MINUTE_NS && d < MINUTE_NS ? now_off : mtime - last;
	} else if (last <= ns_of(CLOCK_MONOTONIC)) {
		/* a pipe: being recorded now, most likely */
		o->has_wall_clock = true;
		o->wall_clock_offset = now_off;
	}
}

void export_opts_release(struct pcl_export_opts *o)
{
	for (size_t i = 0; i < o->nr_facts; i++)
		free((char *)o->facts[i].value);
	free((void *)o->facts);
	o->facts = NULL;
	o->nr_facts = 0;
}

/*
 * Where -o's bytes go. A regular file (or a new one) is written to a
 * temporary file beside it and renamed into place when whole; through a
 * symlink, beside and over its target, which keeps its mode, and the link
 * stays. Anything else (a device, a FIFO, a link to one) is not ours to
 * replace: it is written straight through.
 */
struct out_file {
	const char *name; /* for messages: -o as given */
	char *real;	  /* the regular file to replace, or NULL: straight through */
	char *tmp;
	mode_t mode;
};

/*
 * Straight into the device or FIFO @output was when checked: without O_CREAT
 * or O_TRUNC, and only if it still is one (a regular file put there since is
 * not overwritten in place).
 */
static FILE *open_through(const char *output)
{
	struct stat st;
	FILE *fp = NULL;
	int fd = open(output, O_WRONLY | O_CLOEXEC);

	if (fd >= 0 && (fstat(fd, &st) || S_ISREG(st.st_mode))) {
		die_msg("cannot write '%s': it changed while opened", output);
		close(fd);
		return NULL;
	}
	if (fd < 0 || !(fp = fdopen(fd, "w"))) {
		die_msg("cannot write '%s': %s", output, strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	return fp;
}

static FILE *out_open(struct out_file *f, const char *output)
{
	struct stat st;
	mode_t um = umask(0);
	FILE *fp;
	int fd;

	umask(um);
	f->name = output;
	f->mode = 0666 & ~um; /* mkstemp makes 0600; a picture is for sharing like any other */
	if (stat(output, &st) && errno == ENOENT && lstat(output, &st)) {
		f->real = strdup(output); /* nothing there yet */
	} else if (!stat(output, &st) && S_ISREG(st.st_mode)) {
		/*
		 * replaced by rename, which asks only for the directory: a file
		 * this user may not write (0444, another's in a shared directory)
		 * is refused, as '>' would refuse it
		 */
		if (faccessat(AT_FDCWD, output, W_OK, AT_EACCESS)) {
			die_msg("cannot write '%s': %s", output, strerror(errno));
			return NULL;
		}
		f->real = realpath(output, NULL);
		f->mode = st.st_mode & 07777;
	} else if (!stat(output, &st)) {
		return open_through(output);
	} else {
		/* a dangling link (its target is made), or the error the open says */
		fp = fopen(output, "we");
		if (!fp)
			die_msg("cannot write '%s': %s", output, strerror(errno));
		return fp;
	}
	if (!f->real || asprintf(&f->tmp, "%s.XXXXXX", f->real) < 0) {
		die_msg("cannot write '%s': %s", output, strerror(f->real ? ENOMEM : errno));
		free(f->real);
		f->real = f->tmp = NULL;
		return NULL;
	}
	fd = mkstemp(f->tmp);
	if (fd < 0 || !(fp = fdopen(fd, "w"))) {
		die_msg("cannot create '%s': %s", output, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(f->tmp);
		}
		free(f->tmp);
		free(f->real);
		f->real = f->tmp = NULL;
		return NULL;
	}
	return fp;
}

/* Close @fp, putting a whole output in place (@ok) or dropping a temporary one. */
static int out_close(struct out_file *f, FILE *fp, bool ok)
{
	int ret = ok ? 0 : -1;

	if (!f->tmp) {
		if (fclose(fp) && ok) {
			die_msg("cannot write '%s': %s", f->name, strerror(errno));
			ret = -1;
		}
	} else if (ok) {
		/* closed whatever fails: a failed fchmod left the FILE open */
		int e = fchmod(fileno(fp), f->mode) ? errno : 0;

		if (fclose(fp) && !e)
			e = errno;
		if (!e && rename(f->tmp, f->real))
			e = errno;
		if (e) {
			die_msg("cannot write '%s': %s", f->name, strerror(e));
			ret = -1;
		}
	} else {
		fclose(fp);
	}
	if (ret && f->tmp)
		unlink(f->tmp);
	free(f->tmp);
	free(f->real);
	return ret;
}

int export_write(const char *output, export_writer write, const struct pcl_profile *p,
		 const struct pcl_export_opts *opts)
{
	struct out_file f = { 0 };
	bool to_file = output && strcmp(output, "-");
	FILE *fp = stdout;
	int ret;

	if (to_file && !(fp = out_open(&f, output)))
		return -1;
	ret = write(fp, p, opts);
	if (ret) {
		die_msg("%s", pcl_last_error()[0] ? pcl_last_error() : strerror(-ret));
	} else if (fflush(fp) || ferror(fp)) {
		/* stdout's reader went away (| head): a quiet end, see stdout_finish */
		if (to_file || !output_reader_gone())
			die_msg("cannot write '%s': %s", to_file ? output : "stdout",
				strerror(errno));
		ret = to_file || !output_reader_gone() ? -1 : 0;
	}
	if (to_file)
		ret = out_close(&f, fp, !ret) ? -1 : ret;
	return ret ? -1 : 0;
}

/*
 * --wall: a header fact with the time on and off CPU (the [off-CPU]
 * leaves' periods are the time off), in the room export_opts_fill leaves.
 */
static void wall_fact(struct pcl_export_opts *o, const struct pcl_profile *p)
{
	const struct pcl_profile_stack *st;
	const struct pcl_profile_node *nodes;
	const struct pcl_profile_func *funcs;
	size_t ns, nn, nf;
	uint64_t on = 0, off = 0;
	char *v;

	st = pcl_profile__stacks(p, &ns);
	nodes = pcl_profile__nodes(p, &nn);
	funcs = pcl_profile__funcs(p, &nf);
	for (size_t i = 0; i < ns; i++) {
		uint32_t f = st[i].node < nn ? nodes[st[i].node].func : UINT32_MAX;
		bool blocked = st[i].node && f < nf && !funcs[f].dso &&
			       !strcmp(funcs[f].name, wall_offcpu_sym.name);

		*(blocked ? &off : &on) += st[i].period;
	}
	if (!o->facts || o->nr_facts >= MAX_FACTS ||
	    asprintf(&v, "%.3f ms: %.3f ms on CPU (%.1f%%), %.3f ms off CPU (%.1f%%)",
		     (double)(on + off) / 1e6, (double)on / 1e6,
		     on + off ? 100.0 * (double)on / (double)(on + off) : 0.0, (double)off / 1e6,
		     on + off ? 100.0 * (double)off / (double)(on + off) : 0.0) < 0)
		return;
	((struct pcl_export_fact *)o->facts)[o->nr_facts++] =
		(struct pcl_export_fact){ "wall time", v };
}

int report_export(struct input *in, const struct export_req *x)
{
	struct pcl_export_opts o = { .sz = sizeof(o), .icicle = x->icicle,
				     .by_period = x->by_period };
	struct export_req req = *x;
	struct pcl_profile *p;
	const char *event;
	size_t fi = 0;
	int ret;

	while (strcmp(formats[fi].name, x->format))
		fi++;
	/* the page's source and assembly view: samples per instruction */
	req.annotate = NULL;
	if (!strcmp(x->format, "html") && !(req.annotate = pcl_annotate__new())) {
		die_msg("out of memory");
		return 1;
	}
	if (export_read_profile(in, &req, formats[fi].timeline, &p, &event)) {
		pcl_annotate__free(req.annotate);
		return 1;
	}
	if (req.annotate) {
		pcl_annotate__finish(req.annotate);
		o.annotate = req.annotate;
		o.symbols = in->symbols;
	}
	export_opts_fill(&o, in, event);
	/* wall: on and off CPU both in ns, the on-CPU event's interval */
	if (x->wall) {
		o.by_period = o.period_is_ns = true;
		o.event = "wall-clock";
		wall_fact(&o, p);
	}
	export_opts_clock(&o, in, p);
	ret = export_write(x->output, formats[fi].write, p, &o) ? 1 : 0;
	if (!ret && formats[fi].write == pcl_export_firefox)
		firefox_cut_warning(p, &o);
	export_opts_release(&o);
	pcl_profile__free(p);
	pcl_annotate__free(req.annotate);
	return ret;
}
