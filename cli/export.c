/* SPDX-License-Identifier: MIT */
/*
 * pcl report --format=NAME: read the recording into a profile of one event,
 * then hand it to libpcl's writer for the format. Output goes to a
 * temporary file next to -o's path, renamed into place only when whole.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "export.h"

static const struct {
	const char *name;
	export_writer write;
	bool timeline;
} formats[] = {
	{ "folded", pcl_export_folded, false },
	{ "flamegraph", pcl_export_flamegraph, false },
	{ "html", pcl_export_html, false },
	{ "pprof", pcl_export_pprof, false },
	{ "firefox", pcl_export_firefox, true },
	{ "speedscope", pcl_export_speedscope, true },
};

const char export_formats[] = "folded, flamegraph, html, pprof, firefox, speedscope, json";

bool export_format_known(const char *name)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(formats[i].name, name))
			return true;
	return false;
}

/* The event index to export: by name, or the first with samples (-1 until one is seen). */
static int pick_event(struct input *in, const char *want)
{
	for (int i = 0; i < pcl_data_reader__nr_attrs(in->reader); i++) {
		const char *n = pcl_data_reader__attr(in->reader, i)->name;

		if (n && !strcmp(n, want))
			return i;
	}
	return -1;
}

int export_read_profile(struct input *in, const struct export_req *x, bool timeline,
			struct pcl_profile **out, const char **event_name)
{
	struct pcl_profile_opts po = { .sz = sizeof(po), .timeline = timeline };
	struct pcl_profile *p = pcl_profile__new(&po);
	int want = -1, ret;

	*out = NULL;
	if (!p) {
		die_msg("out of memory");
		return -1;
	}
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

			if (!t || pcl_profile__add_switch(p, t, rec->id.time,
							  rec->misc & PERF_RECORD_MISC_SWITCH_OUT,
							  rec->misc &
								  PERF_RECORD_MISC_SWITCH_OUT_PREEMPT))
				goto oom;
			continue;
		}
		if (ev->hdr->type != PERF_RECORD_SAMPLE || ev->attr_idx < 0)
			continue;
		if (want < 0) {
			/* a stream declares its events as it goes: decide at the first sample */
			want = x->event ? pick_event(in, x->event) : ev->attr_idx;
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
		if (pcl_profile__add(p, &rs,
				     rec->sample.sample_type & PERF_SAMPLE_TIME ? rec->sample.time : 0,
				     cpu, rec->sample.period))
			goto oom;
	}
	if (ret < 0)
		goto fail;
	input_finish(in);
	if (want < 0 && x->event && pick_event(in, x->event) < 0) {
		die_msg("'%s' has no event '%s'", in->path, x->event);
		goto fail;
	}
	pcl_profile__finish(p);
	/* no samples: still the event's name (the first), for the formats that carry it */
	if (want < 0)
		want = x->event ? pick_event(in, x->event) : 0;
	*event_name = want < pcl_data_reader__nr_attrs(in->reader) &&
			      pcl_data_reader__attr(in->reader, want)->name
			      ? pcl_data_reader__attr(in->reader, want)->name
			      : "";
	*out = p;
	return 0;
oom:
	die_msg("out of memory");
fail:
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

void export_opts_release(struct pcl_export_opts *o)
{
	for (size_t i = 0; i < o->nr_facts; i++)
		free((char *)o->facts[i].value);
	free((void *)o->facts);
	o->facts = NULL;
	o->nr_facts = 0;
}

int export_write(const char *output, export_writer write, const struct pcl_profile *p,
		 const struct pcl_export_opts *opts)
{
	char *tmp = NULL;
	FILE *fp = stdout;
	int ret;

	if (output && strcmp(output, "-")) {
		int fd;

		if (asprintf(&tmp, "%s.XXXXXX", output) < 0) {
			die_msg("out of memory");
			return -1;
		}
		fd = mkstemp(tmp);
		if (fd < 0 || !(fp = fdopen(fd, "w"))) {
			die_msg("cannot create '%s': %s", output, strerror(errno));
			if (fd >= 0)
				close(fd);
			free(tmp);
			return -1;
		}
	}
	ret = write(fp, p, opts);
	if (ret) {
		die_msg("%s", pcl_last_error()[0] ? pcl_last_error() : strerror(-ret));
	} else if (fflush(fp) || ferror(fp)) {
		die_msg("cannot write '%s': %s", tmp ? output : "stdout", strerror(errno));
		ret = -1;
	}
	if (tmp) {
		/* mkstemp makes it 0600; the picture is for sharing like any other output */
		mode_t um = umask(0);

		umask(um);
		if (!ret && (fchmod(fileno(fp), 0666 & ~um) || fclose(fp) || rename(tmp, output))) {
			die_msg("cannot write '%s': %s", output, strerror(errno));
			ret = -1;
		} else if (ret) {
			fclose(fp);
		}
		if (ret)
			unlink(tmp);
		free(tmp);
	}
	return ret ? -1 : 0;
}

int report_export(struct input *in, const struct export_req *x)
{
	struct pcl_export_opts o = { .sz = sizeof(o), .icicle = x->icicle,
				     .by_period = x->by_period };
	struct pcl_profile *p;
	const char *event;
	size_t fi = 0;
	int ret;

	while (strcmp(formats[fi].name, x->format))
		fi++;
	if (export_read_profile(in, x, formats[fi].timeline, &p, &event))
		return 1;
	export_opts_fill(&o, in, event);
	ret = export_write(x->output, formats[fi].write, p, &o) ? 1 : 0;
	export_opts_release(&o);
	pcl_profile__free(p);
	return ret;
}
