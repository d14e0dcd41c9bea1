/* SPDX-License-Identifier: MIT */
/*
 * pcl buildid-list: the build ids a recording names, as perf buildid-list
 * prints them ("ID NAME", the id padded to 40 columns); of an ELF file
 * given as input, its own; of the running kernel with -k.
 *
 * As perf: a file's BUILD_ID table is printed as it is; with --with-hits,
 * or for a stream or a file without a table, the events are read and the
 * files that got samples are printed, table entries first, then the others
 * in the order they were mapped, each with the build id the recording gave
 * it (none: blank).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pcl/pcl.h>
#include "cli.h"
#include "input.h"

struct bl_opts {
	const char *input;
	bool with_hits, kernel, force;
};

static int parse_opts(int argc, char **argv, struct bl_opts *o)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "with-hits", no_argument, NULL, 'H' },
		{ "kernel", no_argument, NULL, 'k' },
		{ "force", no_argument, NULL, 'f' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:i:Hkfvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			o->input = optarg;
			break;
		case 'H':
			o->with_hits = true;
			break;
		case 'k':
			o->kernel = true;
			break;
		case 'f':
			o->force = true;
			break;
		case 'v':
			break;
		case 'h':
			print_usage("buildid-list", stdout);
			exit(0);
		default:
			return option_error("buildid-list", c, argv);
		}
	}
	if (optind < argc) {
		die_msg("unexpected argument '%s'; see 'pcl buildid-list -h'", argv[optind]);
		return -1;
	}
	if (!o->input)
		o->input = "perf.data";
	return 0;
}

typedef void (*emit_fn)(void *ctx, const uint8_t *id, int size, const char *name);

static void print_id(void *ctx, const uint8_t *id, int size, const char *name)
{
	char hex[41];

	(void)ctx;
	pcl_build_id_hex(id, size, hex);
	printf("%-40s %s\n", hex, name);
}

/* The table as it is, one line per file (a name listed twice once, as perf's DSOs). */
static void list_table(const void *tab, size_t len, emit_fn emit, void *ctx)
{
	struct pcl_build_id_entry e;
	size_t off = 0, prev;

	for (prev = 0; pcl_build_id_table__next(tab, len, &off, &e) > 0; prev = off) {
		struct pcl_build_id_entry o;
		size_t k = 0;
		bool dup = false;

		while (k < prev && pcl_build_id_table__next(tab, len, &k, &o) > 0)
			if (!strcmp(o.name, e.name))
				dup = true;
		if (!dup)
			emit(ctx, e.id, e.size, e.name);
	}
}

/* Mark the DSO each sample's ip falls in, as perf's build_id__mark_dso_hit. */
static void mark_hit(struct pcl_machine *m, const struct pcl_record *r)
{
	uint16_t mode = r->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	bool kernel = mode == PERF_RECORD_MISC_KERNEL || mode == PERF_RECORD_MISC_GUEST_KERNEL;
	struct pcl_thread *t;
	struct pcl_map *map;

	if (!(r->sample.sample_type & PERF_SAMPLE_IP))
		return;
	t = pcl_machine__thread(m, (int32_t)r->sample.pid, (int32_t)r->sample.tid);
	map = t ? pcl_machine__find_map(m, t, kernel, r->sample.ip) : NULL;
	if (map)
		map->dso->hit = true;
}

static int list_hits(struct input *in, const void *tab, size_t len, emit_fn emit, void *ctx)
{
	struct pcl_build_id_entry e;
	size_t off = 0;
	int ret;

	while ((ret = input_next(in)) > 0) {
		const struct perf_event_header *h = in->ev.hdr;

		if (h->type == PCL_RECORD_HEADER_BUILD_ID)
			pcl_machine__set_build_ids(in->machine, h, h->size);
		else if (h->type == PERF_RECORD_SAMPLE && in->ev.decoded)
			mark_hit(in->machine, &in->ev.rec);
	}
	if (ret < 0)
		return -1;
	/* perf's list of DSOs: the table's first, then as the maps made them */
	while (tab && pcl_build_id_table__next(tab, len, &off, &e) > 0) {
		struct pcl_dso *d = pcl_machine__find_dso(in->machine, e.name);

		if (d && d->hit) {
			emit(ctx, e.id, e.size, e.name);
			d->hit = false; /* printed */
		}
	}
	for (int i = 0; i < pcl_machine__nr_dsos(in->machine); i++) {
		struct pcl_dso *d = pcl_machine__dso(in->machine, i);

		if (d->hit)
			emit(ctx, d->build_id, d->build_id_size, d->name);
	}
	return 0;
}

int buildid_list_read(const char *path, bool with_hits, bool force, emit_fn emit, void *ctx)
{
	struct pcl_data_layout l;
	struct input in;
	const void *tab;
	size_t len = 0;
	int ret = 0;

	if (input_open(&in, path, NULL, force))
		return -1;
	tab = pcl_data_reader__feature(in.reader, PCL_FEAT_BUILD_ID, &len);
	pcl_data_reader__layout(in.reader, &l);
	/* no table (a stream, an old file): the hits are the only answer; AUX data: the table */
	if (with_hits || !tab || pcl_data_reader__is_pipe(in.reader)) {
		bool aux = l.features[0] & (1ULL << PCL_FEAT_AUXTRACE);

		if (aux && tab)
			list_table(tab, len, emit, ctx);
		else
			ret = list_hits(&in, tab, len, emit, ctx);
	} else {
		list_table(tab, len, emit, ctx);
	}
	input_close(&in);
	return ret;
}

int cmd_buildid_list(int argc, char **argv)
{
	struct bl_opts o = { 0 };
	uint8_t id[20];
	char hex[41];
	int n, ret;

	if (parse_opts(argc, argv, &o))
		return EXIT_USAGE;
	output_catch_sigpipe();
	if (o.kernel) {
		n = pcl_build_id_kernel(id);
		if (n <= 0) {
			die_msg("cannot read the kernel's build id: %s", pcl_strerror(n));
			return 1;
		}
	} else if (strcmp(o.input, "-")) {
		/* an ELF file: its own build id */
		n = pcl_build_id_read(o.input, id);
	} else {
		n = 0;
	}
	if (n > 0) {
		/* the id alone, as perf prints it */
		pcl_build_id_hex(id, n, hex);
		printf("%s\n", hex);
		return stdout_finish(0);
	}
	ret = buildid_list_read(o.input, o.with_hits, o.force, print_id, NULL);
	return stdout_finish(ret ? 1 : 0);
}
