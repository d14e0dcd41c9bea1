/* SPDX-License-Identifier: MIT */
/*
 * pcl annotate: each instruction's share of a function's samples, with its
 * source lines, laid out like perf annotate --stdio. Parse the options,
 * read the file through input.c, count each sample's ip per function
 * (lib/output/annotate.c), print the functions asked for, hottest first.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "input.h"

enum {
	OPT_STDIO = 256,
	OPT_SYMFS,
	OPT_KALLSYMS,
	OPT_PERCENT_TYPE,
	OPT_SOURCE,
	OPT_NO_SOURCE,
	OPT_NO_DEMANGLE,
	OPT_IGNORE_BUILD_IDS,
	OPT_SKIP_MISSING,
	OPT_PERCENT_LIMIT,
	OPT_STDIO_COLOR,
};

struct annotate_opts {
	const char *input;
	const char *symbol;	   /* NULL: every function with samples */
	struct sample_lists lists; /* only .dso is set */
	struct pcl_symbol_opts so;
	struct pcl_annotate_opts ao;
	double percent_limit; /* functions under this share of their event are not shown */
	bool force, quiet, skip_missing;
	int color; /* --stdio-color: 1 always, 0 never, -1 auto (a terminal) */
};

static int parse_opts(int argc, char **argv, struct annotate_opts *o)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "symbol", required_argument, NULL, 's' },
		{ "dsos", required_argument, NULL, 'd' },
		{ "stdio", no_argument, NULL, OPT_STDIO },
		{ "symfs", required_argument, NULL, OPT_SYMFS },
		{ "vmlinux", required_argument, NULL, 'k' },
		{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
		{ "percent-type", required_argument, NULL, OPT_PERCENT_TYPE },
		{ "source", no_argument, NULL, OPT_SOURCE },
		{ "no-source", no_argument, NULL, OPT_NO_SOURCE },
		{ "show-nr-samples", no_argument, NULL, 'n' },
		{ "print-line", no_argument, NULL, 'l' },
		{ "full-paths", no_argument, NULL, 'P' },
		{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
		{ "ignore-build-ids", no_argument, NULL, OPT_IGNORE_BUILD_IDS },
		{ "skip-missing", no_argument, NULL, OPT_SKIP_MISSING },
		{ "percent-limit", required_argument, NULL, OPT_PERCENT_LIMIT },
		{ "stdio-color", required_argument, NULL, OPT_STDIO_COLOR },
		{ "force", no_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:s:d:k:nlPfqh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			o->input = optarg;
			break;
		case 's':
			o->symbol = optarg;
			break;
		case 'd':
			if (list_split(&o->lists.dso, optarg))
				return -1;
			break;
		case OPT_STDIO:
			break;
		case OPT_SYMFS:
			o->so.symfs = optarg;
			break;
		case 'k':
			o->so.vmlinux = optarg;
			break;
		case OPT_KALLSYMS:
			o->so.kallsyms = optarg;
			break;
		case OPT_PERCENT_TYPE:
			if (pcl_percent_type_parse(optarg, &o->ao.percent_type)) {
				die_msg("%s", pcl_last_error());
				return -1;
			}
			break;
		case OPT_SOURCE:
			o->ao.no_source = false;
			break;
		case OPT_NO_SOURCE:
			o->ao.no_source = true;
			break;
		case 'n':
			o->ao.show_nr_samples = true;
			break;
		case 'P':
			o->ao.full_paths = true;
			break;
		case 'l':
			o->ao.print_line = true;
			break;
		case OPT_NO_DEMANGLE:
			o->so.no_demangle = true;
			break;
		case OPT_IGNORE_BUILD_IDS:
			o->so.ignore_build_ids = true;
			break;
		case OPT_SKIP_MISSING:
			o->skip_missing = true;
			break;
		case OPT_PERCENT_LIMIT: {
			char *end;

			o->percent_limit = strtod(optarg, &end);
			if (end == optarg || *end ||
			    !(o->percent_limit >= 0 && o->percent_limit <= 100)) {
				die_msg("bad --percent-limit '%s' (a percentage, 0 to 100)",
					optarg);
				return -1;
			}
			break;
		}
		case OPT_STDIO_COLOR:
			if (cli_color_mode(optarg, &o->color))
				return -1;
			break;
		case 'f':
			o->force = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			print_usage("annotate", stdout);
			exit(0);
		default:
			return option_error("annotate", c, argv);
		}
	}
	if (optind < argc && !o->symbol)
		o->symbol = argv[optind++];
	if (optind < argc) {
		die_msg("unexpected argument '%s'", argv[optind]);
		return -1;
	}
	return 0;
}

static int read_samples(struct input *in, const struct annotate_opts *o, struct pcl_annotate *a)
{
	int ret;

	while ((ret = input_next(in)) > 0) {
		const struct pcl_data_event *ev = &in->ev;
		struct pcl_resolved rs;
		struct pcl_record rec;

		if (!ev->decoded || ev->hdr->type != PERF_RECORD_SAMPLE || ev->attr_idx < 0)
			continue;
		/*
		 * Only the sample's own address counts here: its chain is not
		 * resolved, unwound nor repaired (work for nothing, and a
		 * warning about cut chains that would mean nothing).
		 */
		rec = ev->rec;
		rec.sample.sample_type &=
			~(uint64_t)(PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
		rec.sample.nr_callchain = 0;
		if (pcl_resolver__sample(in->resolver, &rec, &rs))
			goto oom;
		if (rs.ip.map)
			rs.ip.map->dso->hit = true;
		/* as perf: a filtered sample is left out, of the totals too (global percents) */
		if ((o->symbol && (!rs.ip.sym || strcmp(rs.ip.sym->name, o->symbol))) ||
		    !sample_lists_pass(&o->lists, &rs))
			continue;
		if (pcl_annotate__add(a, ev->attr_idx, &rs.ip, ev->rec.sample.period))
			goto oom;
	}
	return ret;
oom:
	die_msg("out of memory");
	return -1;
}

static const char *event_name(const struct input *in, int idx)
{
	const char *n = idx < pcl_data_reader__nr_attrs(in->reader)
				? pcl_data_reader__attr(in->reader, idx)->name
				: NULL;

	return n && n[0] ? n : "unknown";
}

static int print_all(struct input *in, const struct annotate_opts *o, struct pcl_annotate *a)
{
	size_t n = pcl_annotate__nr_syms(a), failed = 0;
	uint64_t failed_samples = 0;
	char first[512] = "";

	for (size_t i = 0; i < n && !output_reader_gone(); i++) {
		const struct pcl_annotate_sym *s = pcl_annotate__sym(a, i);
		uint64_t total, nr;
		int ret;

		pcl_annotate__event_totals(a, s->event, &total, &nr);
		if (o->percent_limit > 0 &&
		    100.0 * (double)s->period < o->percent_limit * (double)total)
			continue;
		ret = pcl_annotate__print(stdout, a, i, in->symbols, event_name(in, s->event),
					  &o->ao);
		if (ret == -ENOMEM || ret == -EIO) {
			die_msg("%s", pcl_last_error());
			return 1;
		}
		if (ret) {
			if (!failed++)
				snprintf(first, sizeof(first), "%s", pcl_last_error());
			failed_samples += s->nr_samples;
			if (o->symbol) {
				die_msg("cannot annotate '%s': %s", o->symbol, first);
				return 1;
			}
		}
	}
	if (failed && !o->quiet && !o->skip_missing)
		die_msg("%zu function%s with %" PRIu64 " sample%s not annotated (first: %s)%s",
			failed, failed > 1 ? "s" : "", failed_samples,
			failed_samples > 1 ? "s" : "", first,
			strstr(first, "kernel") ? "; give the kernel image with -k" : "");
	return 0;
}

static int annotate(struct annotate_opts *o)
{
	struct pcl_annotate *a = NULL;
	struct input in;
	int ret = 1;

	memset(&in, 0, sizeof(in));
	o->so.sz = sizeof(o->so);
	o->ao.sz = sizeof(o->ao);
	o->ao.color = cli_color(o->color);
	if (input_open(&in, o->input, &o->so, o->force))
		goto out;
	if (!(a = pcl_annotate__new())) {
		die_msg("out of memory");
		goto out;
	}
	if (read_samples(&in, o, a) < 0)
		goto out;
	pcl_annotate__finish(a);
	if (!o->quiet)
		input_finish(&in);
	if (pcl_annotate__nr_syms(a) == 0) {
		if (o->symbol)
			die_msg("no samples in symbol '%s' in '%s'", o->symbol, in.path);
		else
			die_msg("no samples with a symbol in '%s'", in.path);
		goto out;
	}
	ret = print_all(&in, o, a);
out:
	pcl_annotate__free(a);
	input_close(&in);
	return ret;
}

int cmd_annotate(int argc, char **argv)
{
	struct annotate_opts o = { .color = -1 };
	int ret;

	if (parse_opts(argc, argv, &o)) {
		sample_lists_free(&o.lists);
		return EXIT_USAGE;
	}
	output_catch_sigpipe();
	ret = stdout_finish(annotate(&o));
	sample_lists_free(&o.lists);
	return ret;
}
