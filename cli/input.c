/* SPDX-License-Identifier: MIT */
/* The shared reading loop of pcl report and pcl script (see input.h). */
#include <inttypes.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "input.h"

#define PROGRESS_MIN (64u << 20) /* files smaller than this read too fast to need a bar */

/* Feature sections newer than pcl are skipped, and said so once. */
static void note_unknown_features(const struct input *in)
{
	struct pcl_data_layout l;
	int n = 0, first = -1;

	pcl_data_reader__layout(in->reader, &l);
	for (int f = PCL_FEAT_PMU_CAPS + 1; f < PCL_FEAT_MAX; f++)
		if (l.features[f / 64] & (1ULL << (f % 64))) {
			if (first < 0)
				first = f;
			n++;
		}
	if (n)
		fprintf(stderr,
			"pcl: note: '%s': skipping %d feature section%s pcl does not know "
			"(first: bit %d)\n",
			in->path, n, n > 1 ? "s" : "", first);
}

/*
 * perf's rule for its input: a recording another user made may be crafted
 * (to mislead, or to attack the reader), so only this user's (euid) or
 * root's is read without -f. A stream on stdin is the caller's own choice.
 */
int input_check_owner(const char *path, bool force)
{
	struct stat st;

	if (force || !strcmp(path, "-") || stat(path, &st))
		return 0; /* a missing file: the open says so */
	if (!st.st_uid || st.st_uid == geteuid())
		return 0;
	die_msg("'%s' is owned by another user (uid %u), not by you or root: not reading it "
		"(use -f to override)",
		path, (unsigned int)st.st_uid);
	return -1;
}

static void on_debuginfod(void *ctx, const struct pcl_debuginfod_event *ev);

int input_open(struct input *in, const char *path, const struct pcl_symbol_opts *so, bool force)
{
	struct pcl_symbol_opts sym = { .sz = sizeof(sym) };
	const void *bids;
	size_t len;
	struct stat st;
	unsigned long long min;

	memset(in, 0, sizeof(*in));
	in->path = path ? path : "perf.data";
	if (input_check_owner(in->path, force))
		return -1;
	if (so)
		memcpy(&sym, so, so->sz && so->sz < sizeof(sym) ? so->sz : sizeof(sym));
	sym.sz = sizeof(sym);
	sym.any_owner |= force;
	in->dfd_shown_kib = -1;
	if (!sym.debuginfod_cb) {
		sym.debuginfod_cb = on_debuginfod;
		sym.debuginfod_ctx = in;
	}
	in->reader = pcl_data_reader__open(in->path);
	if (!in->reader) {
		die_msg("%s", pcl_last_error()[0] ? pcl_last_error() : strerror(errno));
		return -1;
	}
	in->machine = pcl_machine__new();
	in->symbols = pcl_symbols__new(&sym);
	in->resolver = in->machine ? pcl_resolver__new(in->machine, in->symbols) : NULL;
	in->events = pcl_data_events__new(in->reader, true);
	/* the event attrs say how a --call-graph dwarf sample's registers are laid out */
	if (in->resolver)
		pcl_resolver__set_reader(in->resolver, in->reader);
	if (!in->machine || !in->symbols || !in->resolver || !in->events) {
		die_msg("out of memory");
		return -1;
	}
	bids = pcl_data_reader__feature(in->reader, PCL_FEAT_BUILD_ID, &len);
	if (bids && pcl_machine__set_build_ids(in->machine, bids, len) == -EBADMSG)
		fprintf(stderr, "pcl: warning: '%s': malformed build-id table ignored\n", in->path);
	note_unknown_features(in);
	if (!pcl_data_reader__is_pipe(in->reader) && !stat(in->path, &st))
		in->file_size = (uint64_t)st.st_size;
	/* PCL_PROGRESS_MIN (bytes) moves the threshold: the tests use it on small files */
	min = getenv("PCL_PROGRESS_MIN") ? strtoull(getenv("PCL_PROGRESS_MIN"), NULL, 0)
					 : PROGRESS_MIN;
	in->progress = isatty(STDERR_FILENO) && in->file_size >= min;
	return 0;
}

static void progress(struct input *in)
{
	uint64_t off = in->ev.offset; /* the reader's own belongs to the prefetch thread */
	int pct = in->file_size ? (int)(off * 100 / in->file_size) : 0;
	char bar[41];

	memset(bar, ' ', 40);
	memset(bar, '#', (size_t)(pct * 40 / 100));
	bar[40] = '\0';
	fprintf(stderr, "\rreading %s [%s] %3d%%", in->path, bar, pct);
	in->shown = true;
}

static void progress_clear(struct input *in)
{
	if (in->shown)
		fprintf(stderr, "\r\033[K");
	in->shown = false;
}

/*
 * The symbolizer's debuginfod look-ups: progress on a terminal only, on the
 * line the reading bar uses; what was not found is kept for input_finish.
 */
static void on_debuginfod(void *ctx, const struct pcl_debuginfod_event *ev)
{
	struct input *in = ctx;
	long kib = ev->done > 0 ? ev->done / 1024 : 0;

	if (ev->state == PCL_DEBUGINFOD_PROGRESS) {
		if (!isatty(STDERR_FILENO) || kib == in->dfd_shown_kib)
			return;
		progress_clear(in);
		if (ev->total > 0)
			fprintf(stderr, "\rdebuginfod: %s of %s: %ld/%ld KiB\033[K", ev->what,
				ev->dso, kib, ev->total / 1024);
		else
			fprintf(stderr, "\rdebuginfod: asking for the %s of %s\033[K", ev->what,
				ev->dso);
		in->dfd_shown_kib = kib;
		return;
	}
	if (in->dfd_shown_kib >= 0)
		fprintf(stderr, "\r\033[K");
	in->dfd_shown_kib = -1;
	if (ev->state != PCL_DEBUGINFOD_FAILED)
		return;
	if (ev->err != -ENOENT) {
		if (!in->dfd_failure)
			in->dfd_failure = strdup(ev->message);
	} else if (!in->dfd_missed++) {
		if (asprintf(&in->dfd_miss, "the %s of %s (build id %s)", ev->what, ev->dso,
			     ev->build_id) < 0)
			in->dfd_miss = NULL;
	}
}

int input_next(struct input *in)
{
	int ret;

	/*
	 * Reading and decoding on a second thread, resolving and counting on
	 * this one; from the first event on, not before: --header-only reads
	 * the stream itself. A stream, or no thread, is read here
	 * (PCL_PREFETCH=0 too: for comparing the two).
	 */
	if (!in->prefetch_tried) {
		in->prefetch_tried = true;
		if (!getenv("PCL_PREFETCH") || strcmp(getenv("PCL_PREFETCH"), "0"))
			pcl_data_events__prefetch(in->events);
	}
	ret = pcl_data_events__next(in->events, &in->ev);

	if (ret <= 0) {
		progress_clear(in);
		if (ret < 0) {
			const char *msg = pcl_last_error();

			in->failed = true;
			die_msg("%s", msg[0] ? msg : strerror(-ret));
			return -1;
		}
		return 0;
	}
	if (in->progress && (in->nr_read++ & 0xffff) == 0)
		progress(in);
	/* a stream's build ids (perf inject -b puts them ahead of the first sample in a file) */
	if (in->ev.hdr->type == PCL_RECORD_HEADER_BUILD_ID)
		pcl_machine__set_build_ids(in->machine, in->ev.hdr, in->ev.hdr->size);
	if (in->ev.decoded && in->ev.hdr->type != PERF_RECORD_SAMPLE &&
	    pcl_machine__process(in->machine, &in->ev.rec)) {
		progress_clear(in);
		die_msg("out of memory");
		return -1;
	}
	return 1;
}

/* JIT maps refused for their owner: one line for them all, with the first. */
static void note_untrusted_maps(const struct input *in)
{
	const struct pcl_dso *first = NULL;
	int n = 0;

	for (int i = 0; i < pcl_machine__nr_dsos(in->machine); i++) {
		const struct pcl_dso *d = pcl_machine__dso(in->machine, i);

		if (d->sym_status != PCL_DSO_SYMS_NOT_OWNED)
			continue;
		if (!first)
			first = d;
		n++;
	}
	if (n)
		fprintf(stderr,
			"pcl: warning: ignored %d JIT symbol map%s owned by another user (%s); "
			"use -f to trust %s\n",
			n, n > 1 ? "s" : "", first->sym_note ? first->sym_note : first->name,
			n > 1 ? "them" : "it");
}

/*
 * -g leaf repair (docs/fpleaf.md): when the stack copy was too short for
 * more than 5% of the samples it could repair, say so, with the size that
 * would have done (at most the kernel's).
 */
static void note_fpleaf(const struct input *in)
{
	struct pcl_fpleaf_stats st;
	uint64_t size;

	pcl_resolver__fpleaf_stats(in->resolver, &st);
	if (!st.too_small || st.too_small * 20 <= st.samples)
		return;
	size = (st.max_needed + 7) & ~7ull;
	fprintf(stderr,
		"pcl: note: %" PRIu64 " of %" PRIu64 " frame-pointer samples keep a chain without "
		"their leaf's caller: its return address lies past the recorded stack copy; "
		"record with --fp-leaf %" PRIu64 " to put it back\n",
		st.too_small, st.samples, size < 65528 ? size : 65528);
}

void input_finish(struct input *in)
{
	/* after an error, its message is the one line the user gets */
	if (!in->failed && pcl_data_reader__truncated(in->reader))
		fprintf(stderr,
			"pcl: warning: '%s' is cut short (the recorder did not finish it); "
			"read up to its last whole record\n",
			in->path);
	if (!in->failed)
		note_untrusted_maps(in);
	if (!in->failed && in->resolver)
		note_fpleaf(in);
	if (in->dfd_failure)
		fprintf(stderr, "pcl: warning: %s\n", in->dfd_failure);
	if (in->dfd_missed > 1)
		fprintf(stderr,
			"pcl: warning: debuginfod: no server in $DEBUGINFOD_URLS has %s, nor %d "
			"other file%s asked for\n",
			in->dfd_miss ? in->dfd_miss : "a file", in->dfd_missed - 1,
			in->dfd_missed > 2 ? "s" : "");
	else if (in->dfd_missed)
		fprintf(stderr, "pcl: warning: debuginfod: no server in $DEBUGINFOD_URLS has %s\n",
			in->dfd_miss ? in->dfd_miss : "a file asked for");
	free(in->dfd_failure);
	free(in->dfd_miss);
	in->dfd_failure = in->dfd_miss = NULL;
	in->dfd_missed = 0;
	if (!in->failed && !in->unwind_shown)
		unwind_warn(in);
}

void input_close(struct input *in)
{
	pcl_data_events__free(in->events);
	pcl_resolver__free(in->resolver);
	pcl_symbols__free(in->symbols);
	pcl_machine__free(in->machine);
	pcl_data_reader__close(in->reader);
	free(in->dfd_failure);
	free(in->dfd_miss);
	memset(in, 0, sizeof(*in));
}
