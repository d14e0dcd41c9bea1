/* SPDX-License-Identifier: MIT */
/*
 * pcl inject: copy a recording (file or stream) into a file or stream that
 * perf reads, adding what perf inject adds.
 *
 * Flow: open the input; read up to its first data record, so that a
 * stream's attrs and features (which it sends ahead) are known; create the
 * output with those attrs, carry the features over (not COMPRESSED: records
 * come out expanded; not BUILD_ID: rebuilt), then copy each record, and
 * close. With -b the files that get samples are followed as the records go
 * (MMAP, FORK, SAMPLE) and each one's build id goes out just before the
 * first record that hits it: as a HEADER_BUILD_ID record in a stream, into
 * the BUILD_ID table of a file. Without -b the input's build ids (its table
 * or its HEADER_BUILD_ID records) are carried over the same way.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pcl/pcl.h>
#include "cli.h"
#include "input.h"

enum { OPT_BUILDID_ALL = 256 };

struct inject_opts {
	const char *input, *output;
	bool build_ids, buildid_all, force;
};

struct injector {
	struct inject_opts *o;
	struct pcl_data_reader *r;
	struct pcl_data_writer *w;
	struct pcl_dso_hits *hits;
	uint64_t nr_unsupported;
	uint32_t unsupported_type;
};

static int parse_opts(int argc, char **argv, struct inject_opts *o)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "build-ids", no_argument, NULL, 'b' },
		{ "buildid-all", no_argument, NULL, OPT_BUILDID_ALL },
		{ "force", no_argument, NULL, 'f' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:i:o:bfvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			o->input = optarg;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'b':
			o->build_ids = true;
			break;
		case OPT_BUILDID_ALL:
			o->buildid_all = true;
			break;
		case 'f':
			o->force = true;
			break;
		case 'v':
			break;
		case 'h':
			print_usage("inject", stdout);
			exit(0);
		default:
			return option_error("inject", c, argv);
		}
	}
	if (optind < argc) {
		die_msg("unexpected argument '%s'; see 'pcl inject -h'", argv[optind]);
		return -1;
	}
	if (!o->input)
		o->input = "-";
	if (!o->output)
		o->output = "-";
	return 0;
}

/* Features a copy keeps: not those the records or the writer stand for. */
static bool keep_feature(int f)
{
	return f != PCL_FEAT_BUILD_ID && f != PCL_FEAT_EVENT_DESC && f != PCL_FEAT_COMPRESSED &&
	       f != PCL_FEAT_AUXTRACE && f != PCL_FEAT_DIR_FORMAT;
}

/*
 * A build-id table (or one HEADER_BUILD_ID record) carried into the output;
 * with -b only the kernel's and the vDSO's, which -b cannot know (it reads
 * the files as they are now, and this machine's kernel may not be the one
 * recorded).
 */
static int copy_build_ids(struct injector *in, const void *tab, size_t len)
{
	struct pcl_build_id_entry e;
	size_t off = 0;
	int ret;

	while ((ret = pcl_build_id_table__next(tab, len, &off, &e)) > 0) {
		if (in->hits && e.name[0] == '/')
			continue;
		if (pcl_data_writer__add_build_id(in->w, e.pid, e.kernel, e.id, e.size, e.name))
			return -1;
	}
	return ret;
}

static int create_output(struct injector *in)
{
	int n = pcl_data_reader__nr_attrs(in->r);
	struct pcl_data_attr *attrs;
	const void *f;
	size_t len;

	if (n <= 0) {
		die_msg("'%s' has no events", in->o->input);
		return -1;
	}
	attrs = calloc((size_t)n, sizeof(*attrs));
	if (!attrs) {
		die_msg("out of memory");
		return -1;
	}
	for (int i = 0; i < n; i++)
		attrs[i] = *pcl_data_reader__attr(in->r, i);
	in->w = pcl_data_writer__create(in->o->output, attrs, n);
	free(attrs);
	if (!in->w) {
		die_msg("%s", pcl_last_error());
		return -1;
	}
	for (int feat = 1; feat < PCL_FEAT_MAX; feat++) {
		if (!keep_feature(feat) || !(f = pcl_data_reader__feature(in->r, feat, &len)))
			continue;
		if (pcl_data_writer__set_feature(in->w, feat, f, len)) {
			die_msg("%s", pcl_last_error());
			return -1;
		}
	}
	f = pcl_data_reader__feature(in->r, PCL_FEAT_BUILD_ID, &len);
	if (f && copy_build_ids(in, f, len)) {
		die_msg("'%s': %s", in->o->input, pcl_last_error());
		return -1;
	}
	return 0;
}

/* The event that wrote @h: the only one, else by the id the record carries. */
static const struct pcl_data_attr *attr_of(struct injector *in, const struct perf_event_header *h)
{
	const struct pcl_data_attr *a0 = pcl_data_reader__attr(in->r, 0), *a;
	uint64_t id;

	if (pcl_data_reader__nr_attrs(in->r) == 1)
		return a0;
	id = pcl_record_identifier(h, h->size, a0->attr.sample_id_all);
	a = id ? pcl_data_reader__attr_by_id(in->r, id) : NULL;
	return a ? a : a0;
}

/* Follow maps and samples for -b; the build ids due go out ahead of @h. */
static int track(struct injector *in, const struct perf_event_header *h)
{
	struct pcl_record rec;
	const struct pcl_data_attr *a;

	if (h->type != PERF_RECORD_SAMPLE && h->type != PERF_RECORD_MMAP &&
	    h->type != PERF_RECORD_MMAP2 && h->type != PERF_RECORD_FORK)
		return 0;
	a = attr_of(in, h);
	if (!a || pcl_record_decode(h, h->size, &a->attr, &rec))
		return 0;
	pcl_dso_hits__record(in->hits, &rec);
	if (pcl_dso_hits__pending(in->hits) && pcl_dso_hits__write_new(in->hits, in->w) < 0)
		return -1;
	return 0;
}

static int copy_record(struct injector *in, const struct perf_event_header *h)
{
	switch (h->type) {
	case PCL_RECORD_FINISHED_ROUND:
		return pcl_data_writer__finish_round(in->w);
	case PCL_RECORD_HEADER_BUILD_ID:
		/* the stream's go on (into the table of a file); -b makes the files' */
		return copy_build_ids(in, h, h->size);
	case PCL_RECORD_AUXTRACE:
	case PCL_RECORD_AUXTRACE_INFO:
	case PCL_RECORD_AUXTRACE_ERROR:
		/* AUX area data has bytes past its record that pcl does not carry */
		if (!in->nr_unsupported++)
			in->unsupported_type = h->type;
		return 0;
	}
	if (in->hits && track(in, h))
		return -1;
	return pcl_data_writer__write(in->w, h);
}

static int inject(struct injector *in)
{
	const struct perf_event_header *h = pcl_data_reader__next(in->r);

	if (!h && errno) {
		die_msg("%s", pcl_last_error());
		return -1;
	}
	if (create_output(in))
		return -1;
	for (; h; h = pcl_data_reader__next(in->r)) {
		if (copy_record(in, h)) {
			die_msg("%s", pcl_last_error());
			return -1;
		}
	}
	if (errno) {
		die_msg("%s", pcl_last_error());
		return -1;
	}
	if (pcl_data_reader__truncated(in->r))
		fprintf(stderr,
			"pcl: warning: '%s' is cut short; copied up to its last whole record\n",
			in->o->input);
	if (in->nr_unsupported)
		fprintf(stderr,
			"pcl: warning: left out %llu %s record%s (AUX area data is not "
			"supported)\n",
			(unsigned long long)in->nr_unsupported,
			pcl_record_type_name(in->unsupported_type),
			in->nr_unsupported > 1 ? "s" : "");
	if (in->hits && pcl_dso_hits__write_new(in->hits, in->w) < 0) {
		die_msg("%s", pcl_last_error());
		return -1;
	}
	/* a file takes a stream's features that came after its first record too */
	for (int feat = 1; !pcl_data_writer__is_pipe(in->w) && feat < PCL_FEAT_MAX; feat++) {
		const void *f;
		size_t len;

		if (keep_feature(feat) && (f = pcl_data_reader__feature(in->r, feat, &len)) &&
		    pcl_data_writer__set_feature(in->w, feat, f, len)) {
			die_msg("%s", pcl_last_error());
			return -1;
		}
	}
	return 0;
}

int cmd_inject(int argc, char **argv)
{
	struct inject_opts o = { 0 };
	struct injector in = { .o = &o };
	int ret = 0;

	if (parse_opts(argc, argv, &o))
		return EXIT_USAGE;
	if (input_check_owner(o.input, o.force))
		return 1;
	output_catch_sigpipe();
	in.r = pcl_data_reader__open(o.input);
	if (!in.r) {
		die_msg("%s", pcl_last_error());
		return 1;
	}
	if (o.build_ids || o.buildid_all) {
		in.hits = pcl_dso_hits__new();
		if (!in.hits) {
			die_msg("out of memory");
			ret = 1;
			goto out;
		}
		pcl_dso_hits__set_all(in.hits, o.buildid_all);
		/* as perf inject: build ids of the files as they are on disk now */
		pcl_dso_hits__set_files_only(in.hits, true);
	}
	ret = inject(&in) ? 1 : 0;
	if (!ret && pcl_data_writer__close(in.w)) {
		in.w = NULL;
		if (!output_reader_gone())
			die_msg("%s", pcl_last_error());
		ret = output_reader_gone() ? 0 : 1;
	}
	if (!ret)
		in.w = NULL;
out:
	pcl_data_writer__abort(in.w);
	pcl_dso_hits__free(in.hits);
	pcl_data_reader__close(in.r);
	return ret;
}
