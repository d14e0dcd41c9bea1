/* SPDX-License-Identifier: MIT */
/*
 * pcl data convert --to-json: a perf.data file as the JSON of perf 6.1's
 * perf data convert --to-json, byte for byte:
 *
 *   { "linux-perf-json-version": 1,
 *     "headers": { header-version, captured-on (the file's mtime, UTC),
 *                  data-offset, data-size, feat-offset, hostname,
 *                  os-release, arch, [cpu-desc], cpuid, nrcpus-online,
 *                  nrcpus-avail, [clockid, clock-time, real-time],
 *                  perf-version, cmdline: [...] },
 *     "samples": [ { timestamp, pid, tid, [cpu], comm,
 *                    callchain: [ { ip: "0x...", [symbol, [dso]] } ] } ] }
 *
 * Tabs indent, one value a line, as perf prints it. Samples come in time
 * order. "cpu" is there when any event records PERF_SAMPLE_CPU (-1 for a
 * sample whose own event does not). A sample with a call chain lists its
 * entries as recorded (context markers only switch between kernel and
 * user space; addresses are looked up as they are, not minus one), one
 * without lists its ip. Tracepoint payloads are not written (perf 6.1
 * writes none).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "input.h"

enum { OPT_TO_JSON = 256, OPT_TO_CTF, OPT_ALL, OPT_TOD };

struct convert_opts {
	const char *input, *to_json, *to_ctf;
	bool force, all, tod;
};

struct convert {
	FILE *out;
	uint64_t samples, skipped;
	uint64_t sample_type; /* of every event together: whether "cpu" is written */
	bool first;
};

/* perf's JSON string: the escapes RFC 8259 requires, other bytes as they are. */
static void json_str(FILE *o, const char *s)
{
	fputc('"', o);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '"':
			fputs("\\\"", o);
			break;
		case '\\':
			fputs("\\\\", o);
			break;
		case '\b':
			fputs("\\b", o);
			break;
		case '\f':
			fputs("\\f", o);
			break;
		case '\n':
			fputs("\\n", o);
			break;
		case '\r':
			fputs("\\r", o);
			break;
		case '\t':
			fputs("\\t", o);
			break;
		default:
			if (c <= 0x1f)
				fprintf(o, "\\u%04x", c);
			else
				fputc(c, o);
		}
	}
	fputc('"', o);
}

/* A new line at @depth tabs, after a comma when @comma. */
static void nl(FILE *o, bool comma, int depth)
{
	if (comma)
		fputc(',', o);
	fputc('\n', o);
	while (depth-- > 0)
		fputc('\t', o);
}

static void key(FILE *o, bool comma, int depth, const char *k)
{
	nl(o, comma, depth);
	json_str(o, k);
	fputs(": ", o);
}

static void key_str(FILE *o, bool comma, int depth, const char *k, const char *v)
{
	key(o, comma, depth, k);
	json_str(o, v);
}

static void key_u64(FILE *o, bool comma, int depth, const char *k, uint64_t v)
{
	key(o, comma, depth, k);
	fprintf(o, "%" PRIu64, v);
}

/* ---- headers ---- */

static const uint8_t *feature(struct input *in, int feat, size_t *len)
{
	*len = 0;
	return pcl_data_reader__feature(in->reader, feat, len);
}

/* A perf string section: u32 len, then the string. NULL when absent or malformed. */
static const char *feat_str(struct input *in, int feat)
{
	size_t len;
	const uint8_t *p = feature(in, feat, &len);
	uint32_t n;

	if (!p || len < 4)
		return NULL;
	memcpy(&n, p, 4);
	if (n > len - 4 || !memchr(p + 4, '\0', n))
		return NULL;
	return (const char *)p + 4;
}

static void headers(struct input *in, FILE *o)
{
	struct pcl_data_layout l;
	struct stat st;
	size_t len;
	const uint8_t *p;
	uint32_t nr[2] = { 0, 0 }, n;
	bool pipe = pcl_data_reader__is_pipe(in->reader);
	const char *desc;

	pcl_data_reader__layout(in->reader, &l);
	key_u64(o, false, 2, "header-version", 1);
	if (!(pipe && !strcmp(in->path, "-") ? fstat(STDIN_FILENO, &st) : stat(in->path, &st))) {
		char buf[64];
		struct tm tm;

		strftime(buf, sizeof(buf), "%FT%TZ", gmtime_r(&st.st_mtime, &tm));
		key_str(o, true, 2, "captured-on", buf);
	}
	key_u64(o, true, 2, "data-offset", l.data_offset);
	key_u64(o, true, 2, "data-size", l.data_size);
	key_u64(o, true, 2, "feat-offset", l.feat_offset);
	key_str(o, true, 2, "hostname", feat_str(in, PCL_FEAT_HOSTNAME));
	key_str(o, true, 2, "os-release", feat_str(in, PCL_FEAT_OSRELEASE));
	key_str(o, true, 2, "arch", feat_str(in, PCL_FEAT_ARCH));
	desc = feat_str(in, PCL_FEAT_CPUDESC);
	if (desc)
		key_str(o, true, 2, "cpu-desc", desc);
	key_str(o, true, 2, "cpuid", feat_str(in, PCL_FEAT_CPUID));
	p = feature(in, PCL_FEAT_NRCPUS, &len);
	if (p && len >= 8)
		memcpy(nr, p, 8); /* available, then online */
	key_u64(o, true, 2, "nrcpus-online", nr[1]);
	key_u64(o, true, 2, "nrcpus-avail", nr[0]);
	p = feature(in, PCL_FEAT_CLOCK_DATA, &len);
	if (p && len >= 24) {
		uint32_t version, clockid;
		uint64_t tod, clk;

		memcpy(&version, p, 4);
		memcpy(&clockid, p + 4, 4);
		memcpy(&tod, p + 8, 8);
		memcpy(&clk, p + 16, 8);
		if (version == 1) {
			key_u64(o, true, 2, "clockid", clockid);
			key_u64(o, true, 2, "clock-time", clk);
			key_u64(o, true, 2, "real-time", tod);
		}
	}
	key_str(o, true, 2, "perf-version", feat_str(in, PCL_FEAT_VERSION));
	key(o, true, 2, "cmdline");
	fputc('[', o);
	/* CMDLINE: u32 nr, then nr perf strings */
	p = feature(in, PCL_FEAT_CMDLINE, &len);
	if (p && len >= 4) {
		const uint8_t *end = p + len;

		memcpy(&n, p, 4);
		p += 4;
		for (uint32_t i = 0; i < n && end - p >= 4; i++) {
			uint32_t sl;

			memcpy(&sl, p, 4);
			if (sl > (size_t)(end - p - 4) || !memchr(p + 4, '\0', sl))
				break;
			nl(o, i != 0, 3);
			json_str(o, (const char *)p + 4);
			p += 4 + sl;
		}
	}
	nl(o, false, 2);
	fputc(']', o);
}

/* ---- samples ---- */

static void chain_entry(FILE *o, const struct pcl_frame *f, bool resolved)
{
	nl(o, false, 4);
	fputc('{', o);
	key(o, false, 5, "ip");
	fprintf(o, "\"0x%" PRIx64 "\"", f->ip);
	if (resolved && f->sym && f->sym->name && f->sym->name[0]) {
		fputc(',', o);
		key_str(o, false, 5, "symbol", f->sym->name);
		if (f->map && f->map->dso && f->map->dso->short_name &&
		    f->map->dso->short_name[0]) {
			fputc(',', o);
			key_str(o, false, 5, "dso", f->map->dso->short_name);
		}
	}
	nl(o, false, 4);
	fputc('}', o);
}

static int sample(struct convert *c, struct input *in)
{
	const struct pcl_sample *s = &in->ev.rec.sample;
	struct pcl_resolved res;
	FILE *o = c->out;
	bool kernel = false, hv = false;

	if (pcl_resolver__sample(in->resolver, &in->ev.rec, &res)) {
		die_msg("out of memory");
		return -1;
	}
	c->samples++;
	if (!c->first)
		fputc(',', o);
	c->first = false;
	nl(o, false, 2);
	fputc('{', o);
	key(o, false, 3, "timestamp");
	fprintf(o, "%" PRIi64, (s->sample_type & PERF_SAMPLE_TIME) ? (int64_t)s->time : -1);
	key(o, true, 3, "pid");
	fprintf(o, "%i", res.thread ? res.thread->pid : -1);
	key(o, true, 3, "tid");
	fprintf(o, "%i", res.thread ? res.thread->tid : -1);
	if (c->sample_type & PERF_SAMPLE_CPU) {
		key(o, true, 3, "cpu");
		fprintf(o, "%i", (s->sample_type & PERF_SAMPLE_CPU) ? (int)s->cpu : -1);
	}
	key_str(o, true, 3, "comm", res.thread ? res.thread->comm : NULL);
	key(o, true, 3, "callchain");
	fputc('[', o);
	if (s->sample_type & PERF_SAMPLE_CALLCHAIN) {
		bool first = true;

		for (uint64_t i = 0; i < s->nr_callchain; i++) {
			uint64_t ip = s->callchain[i];
			struct pcl_frame f = { .ip = ip };

			if (ip >= PERF_CONTEXT_MAX) {
				/* as perf: user space until a marker says otherwise (guest:
				 * ignored) */
				if (ip == PERF_CONTEXT_KERNEL || ip == PERF_CONTEXT_USER ||
				    ip == PERF_CONTEXT_HV) {
					kernel = ip == PERF_CONTEXT_KERNEL;
					hv = ip == PERF_CONTEXT_HV;
				}
				continue;
			}
			if (!first)
				fputc(',', o);
			first = false;
			if (!hv && res.thread)
				pcl_resolver__frame(in->resolver, res.thread, kernel, ip, &f);
			f.ip = ip;
			chain_entry(o, &f, res.thread != NULL);
		}
	} else {
		chain_entry(o, &res.ip, true);
	}
	nl(o, false, 3);
	fputc(']', o);
	nl(o, false, 2);
	fputc('}', o);
	return 0;
}

static int samples(struct convert *c, struct input *in)
{
	int r;

	while ((r = input_next(in)) > 0) {
		if (!in->ev.decoded || in->ev.hdr->type != PERF_RECORD_SAMPLE)
			continue;
		if (!in->ev.attr) {
			c->skipped++;
			continue;
		}
		if (sample(c, in))
			return -1;
	}
	return r;
}

/* ---- the command ---- */

static int parse_opts(int argc, char **argv, struct convert_opts *o)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "force", no_argument, NULL, 'f' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "to-json", required_argument, NULL, OPT_TO_JSON },
		{ "to-ctf", required_argument, NULL, OPT_TO_CTF },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "tod", no_argument, NULL, OPT_TOD },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	/* options alone (-h, --help, --list-opts) are answered without the subcommand */
	bool convert = argc >= 2 && !strcmp(argv[1], "convert");

	if (!convert && argc >= 2 && argv[1][0] != '-') {
		die_msg("unknown 'pcl data' subcommand '%s' (convert); see 'pcl data -h'", argv[1]);
		return -1;
	}
	if (convert) {
		argc--;
		argv++;
	}
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:fvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			o->input = optarg;
			break;
		case 'f':
			o->force = true;
			break;
		case 'v':
			break;
		case OPT_TO_JSON:
			o->to_json = optarg;
			break;
		case OPT_TO_CTF:
			o->to_ctf = optarg;
			break;
		case OPT_ALL:
			o->all = true;
			break;
		case OPT_TOD:
			o->tod = true;
			break;
		case 'h':
			print_usage("data", stdout);
			exit(0);
		default:
			return option_error("data convert", c, argv);
		}
	}
	if (optind < argc) {
		die_msg("unexpected argument '%s'; see 'pcl data -h'", argv[optind]);
		return -1;
	}
	if (!convert) {
		die_msg("'pcl data' wants a subcommand: convert; see 'pcl data -h'");
		return -1;
	}
	if (o->to_ctf) {
		die_msg("--to-ctf: pcl does not write CTF; --to-json writes JSON");
		return -1;
	}
	if (!o->to_json) {
		die_msg("give --to-json FILE; see 'pcl data -h'");
		return -1;
	}
	if (o->all || o->tod) {
		die_msg("%s is not supported for JSON output (as perf)",
			o->all ? "--all" : "--tod");
		return -1;
	}
	return 0;
}

static FILE *open_output(const struct convert_opts *o)
{
	int fd = open(o->to_json, O_CREAT | O_WRONLY | O_CLOEXEC | (o->force ? O_TRUNC : O_EXCL),
		      0666);
	FILE *f;

	if (fd < 0) {
		if (errno == EEXIST)
			die_msg("'%s' exists; use --force to overwrite it", o->to_json);
		else
			die_msg("cannot create '%s': %s", o->to_json, strerror(errno));
		return NULL;
	}
	f = fdopen(fd, "w");
	if (!f) {
		die_msg("cannot create '%s': %s", o->to_json, strerror(errno));
		close(fd);
	}
	return f;
}

int cmd_data(int argc, char **argv)
{
	struct convert_opts o = { 0 };
	struct convert c = { .first = true };
	struct input in;
	long size;
	int ret = 1, r;

	memset(&in, 0, sizeof(in));
	if (parse_opts(argc, argv, &o))
		return EXIT_USAGE;
	if (!o.input)
		o.input = default_input();
	/* the input first: a file that cannot be read leaves no empty output behind */
	if (input_open(&in, o.input, NULL, o.force))
		return 1;
	for (int i = 0; i < pcl_data_reader__nr_attrs(in.reader); i++)
		c.sample_type |= pcl_data_reader__attr(in.reader, i)->attr.sample_type;
	c.out = open_output(&o);
	if (!c.out)
		goto out;
	fputc('{', c.out);
	nl(c.out, false, 1);
	fputs("\"linux-perf-json-version\": 1", c.out);
	nl(c.out, true, 1);
	fputs("\"headers\": {", c.out);
	headers(&in, c.out);
	nl(c.out, false, 1);
	fputc('}', c.out);
	nl(c.out, true, 1);
	fputs("\"samples\": [", c.out);
	r = samples(&c, &in);
	nl(c.out, false, 1);
	fputc(']', c.out);
	nl(c.out, false, 0);
	fputs("}\n", c.out);
	size = ftell(c.out);
	if (fflush(c.out) || ferror(c.out)) {
		die_msg("cannot write '%s': %s", o.to_json, strerror(errno));
		goto out;
	}
	if (r < 0)
		goto out;
	input_finish(&in);
	if (c.skipped)
		fprintf(stderr,
			"pcl: warning: skipped %" PRIu64 " samples of no event in the file\n",
			c.skipped);
	fprintf(stderr, "[ pcl data convert: Converted '%s' into JSON data '%s' ]\n", in.path,
		o.to_json);
	fprintf(stderr, "[ pcl data convert: Converted and wrote %.3f MB (%" PRIu64 " samples) ]\n",
		(double)(size > 0 ? size : 0) / 1024.0 / 1024.0, c.samples);
	ret = 0;
out:
	if (c.out && fclose(c.out) && !ret) {
		die_msg("cannot write '%s': %s", o.to_json, strerror(errno));
		ret = 1;
	}
	input_close(&in);
	return ret;
}
