/* SPDX-License-Identifier: MIT */
/*
 * pcl stat record and pcl stat report: counts in perf.data, the records of
 * perf stat record: THREAD_MAP, CPU_MAP, STAT_CONFIG, then per round one
 * STAT { id, cpu index, thread index, val, ena, run } per counter and a
 * STAT_ROUND { type, time }, and the (empty) STAT feature that marks the
 * file as a stat file.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "cli.h"
#include "input.h"
#include "stat-data.h"

enum { STAT_ROUND_INTERVAL = 0, STAT_ROUND_FINAL = 1 };
enum { TERM_AGGR_MODE = 0, TERM_INTERVAL = 1, TERM_SCALE = 2 };
/* perf's enum aggr_mode, indexed by ours (global, none, core, socket, thread, die, node) */
static const uint64_t perf_aggr[] = { 1, 0, 4, 2, 5, 3, 7 };

struct stat_writer {
	struct pcl_data_writer *w;
	struct pcl_evlist *el;
	uint64_t **ids; /* [event][cpu * nthreads + thread] */
	int nev;
};

static int put_rec(struct stat_writer *sw, uint32_t type, const void *body, size_t len)
{
	uint8_t rec[65536];
	struct perf_event_header h = { .type = type };
	size_t padded = (len + 7) & ~(size_t)7;

	if (sizeof(h) + padded > sizeof(rec))
		return -E2BIG;
	h.size = (uint16_t)(sizeof(h) + padded);
	memcpy(rec, &h, sizeof(h));
	memset(rec + sizeof(h), 0, padded);
	memcpy(rec + sizeof(h), body, len);
	return pcl_data_writer__write(sw->w, rec);
}

static int put_maps(struct stat_writer *sw, const struct pcl_stat_config *cfg, long interval_ms)
{
	int ncpu = pcl_evlist__nr_cpus(sw->el), nthr = pcl_evlist__nr_threads(sw->el), ret;
	uint8_t body[8 + 24 * 1024];
	uint64_t nr = (uint64_t)nthr, terms[7];
	size_t len = 8;

	memcpy(body, &nr, 8);
	for (int t = 0; t < nthr && len + 24 <= sizeof(body); t++) {
		uint64_t pid = (uint64_t)(int64_t)pcl_evlist__thread(sw->el, t);
		char comm[16] = "", path[64];
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
		if ((int64_t)pid > 0 && (f = fopen(path, "re"))) {
			if (fgets(comm, sizeof(comm), f))
				comm[strcspn(comm, "\n")] = '\0';
			fclose(f);
		}
		memcpy(body + len, &pid, 8);
		memcpy(body + len + 8, comm, 16);
		len += 24;
	}
	ret = put_rec(sw, PCL_RECORD_THREAD_MAP, body, len);
	/* CPU_MAP, type 0 (a list): u16 type, u16 nr, u16 cpu[nr]; -1 is 0xffff */
	{
		uint16_t cm[2 + 1024] = { 0, (uint16_t)ncpu };

		for (int c = 0; c < ncpu && c < 1024; c++)
			cm[2 + c] = (uint16_t)pcl_evlist__cpu(sw->el, c);
		ret = ret ? ret : put_rec(sw, PCL_RECORD_CPU_MAP, cm, 4 + 2 * (size_t)ncpu);
	}
	nr = 3;
	terms[0] = nr;
	terms[1] = TERM_AGGR_MODE;
	terms[2] = perf_aggr[cfg->aggr];
	terms[3] = TERM_INTERVAL;
	terms[4] = (uint64_t)interval_ms;
	terms[5] = TERM_SCALE;
	terms[6] = 1;
	return ret ? ret : put_rec(sw, PCL_RECORD_STAT_CONFIG, terms, sizeof(terms));
}

static int add_tracing(struct pcl_data_writer *w, const struct pcl_data_attr *attrs, int n)
{
	const struct perf_event_attr *a[256];

	for (int i = 0; i < n && i < 256; i++)
		a[i] = &attrs[i].attr;
	return pcl_data_writer__add_tracing_data(w, a, n < 256 ? n : 256);
}

struct stat_writer *stat_writer_create(const char *path, struct pcl_evlist *el,
				       const struct pcl_stat_config *cfg, long interval_ms,
				       int argc, char **argv)
{
	int ncpu = pcl_evlist__nr_cpus(el), nthr = pcl_evlist__nr_threads(el);
	struct stat_writer *sw = calloc(1, sizeof(*sw));
	struct pcl_data_attr *attrs;

	if (!sw)
		return NULL;
	sw->el = el;
	sw->nev = pcl_evlist__nr(el);
	sw->ids = calloc((size_t)sw->nev, sizeof(*sw->ids));
	attrs = calloc((size_t)sw->nev, sizeof(*attrs));
	if (!sw->ids || !attrs)
		goto err;
	for (int i = 0; i < sw->nev; i++) {
		sw->ids[i] = calloc((size_t)(ncpu * nthr), 8);
		if (!sw->ids[i])
			goto err;
		attrs[i].attr = pcl_evlist__event(el, i)->attr;
		/* perf finds an event's id through this; it refuses a file without it */
		attrs[i].attr.sample_type |= PERF_SAMPLE_IDENTIFIER;
		attrs[i].name = pcl_evlist__event(el, i)->name;
		attrs[i].ids = sw->ids[i];
		attrs[i].nr_ids = (uint32_t)(ncpu * nthr);
		for (int k = 0; k < ncpu * nthr; k++) {
			int fd = pcl_evlist__fd(el, i, k / nthr, k % nthr);

			/* a counter without an id (not opened) keeps a unique made-up one */
			if (fd < 0 || ioctl(fd, PERF_EVENT_IOC_ID, &sw->ids[i][k]))
				sw->ids[i][k] = (1ULL << 63) | ((uint64_t)i << 32) | (uint64_t)k;
		}
	}
	sw->w = pcl_data_writer__create(path, attrs, sw->nev);
	if (!sw->w || pcl_data_writer__add_host_features(sw->w, argc, argv) ||
	    add_tracing(sw->w, attrs, sw->nev) || put_maps(sw, cfg, interval_ms)) {
		die_msg("%s", pcl_last_error());
		goto err;
	}
	free(attrs);
	return sw;
err:
	free(attrs);
	if (sw->w)
		pcl_data_writer__abort(sw->w);
	for (int i = 0; i < sw->nev && sw->ids; i++)
		free(sw->ids[i]);
	free(sw->ids);
	free(sw);
	return NULL;
}

int stat_writer_round(struct stat_writer *sw, bool final, uint64_t time_ns)
{
	int ncpu = pcl_evlist__nr_cpus(sw->el), nthr = pcl_evlist__nr_threads(sw->el), ret = 0;
	uint64_t round[2] = { final ? STAT_ROUND_FINAL : STAT_ROUND_INTERVAL, time_ns };

	for (int i = 0; i < sw->nev && !ret; i++) {
		for (int k = 0; k < ncpu * nthr && !ret; k++) {
			struct pcl_count c;
			uint8_t body[40];
			/* the CPU itself (-1 for any), the thread's index: perf's convention */
			uint32_t ct[2] = { (uint32_t)pcl_evlist__cpu(sw->el, k / nthr),
					   (uint32_t)(k % nthr) };

			if (pcl_evlist__count(sw->el, i, k / nthr, k % nthr, &c))
				continue;
			memcpy(body, &sw->ids[i][k], 8);
			memcpy(body + 8, ct, 8);
			memcpy(body + 16, &c.val, 8);
			memcpy(body + 24, &c.ena, 8);
			memcpy(body + 32, &c.run, 8);
			ret = put_rec(sw, PCL_RECORD_STAT, body, sizeof(body));
		}
	}
	ret = ret ? ret : put_rec(sw, PCL_RECORD_STAT_ROUND, round, sizeof(round));
	return ret ? ret : pcl_data_writer__finish_round(sw->w);
}

int stat_writer_close(struct stat_writer *sw)
{
	int ret;

	if (!sw)
		return 0;
	pcl_data_writer__set_feature(sw->w, PCL_FEAT_STAT, "", 0);
	ret = pcl_data_writer__close(sw->w);
	if (ret)
		die_msg("%s", pcl_last_error());
	for (int i = 0; i < sw->nev; i++)
		free(sw->ids[i]);
	free(sw->ids);
	free(sw);
	return ret;
}

void stat_writer_abort(struct stat_writer *sw)
{
	if (!sw)
		return;
	/* a stream's reader has its start already: end it whole, as before */
	if (pcl_data_writer__is_pipe(sw->w)) {
		stat_writer_close(sw);
		return;
	}
	/* the file the writer made, whether -o named it or a link to it */
	pcl_data_writer__abort(sw->w);
	for (int i = 0; i < sw->nev; i++)
		free(sw->ids[i]);
	free(sw->ids);
	free(sw);
}

struct report {
	struct pcl_data_reader *rd;
	struct pcl_evlist *el;
	struct pcl_stat *st;
	struct pcl_stat_config cfg;
	int *cpus, ncpus;
	pid_t *threads;
	int nthreads;
	bool maps_set;
	uint64_t interval_ms, last_time;
	char *desc;
};

/* A name for an attr the file does not name: the generic event it is, else type:config. */
static void attr_name(const struct pcl_data_attr *a, char *buf, size_t size)
{
	const struct pcl_event_name *n;

	if (a->name && a->name[0]) {
		snprintf(buf, size, "%s", a->name);
		return;
	}
	for (int i = 0; (n = pcl_event_names(i)); i++) {
		if (n->type == a->attr.type && n->config == a->attr.config) {
			/* perf's names: "cycles", "branches"; "page-faults", not "faults" */
			bool hw = n->type == PERF_TYPE_HARDWARE;

			snprintf(buf, size, "%s", hw && n->alias ? n->alias : n->name);
			return;
		}
	}
	snprintf(buf, size, "%u:%#llx", a->attr.type, (unsigned long long)a->attr.config);
}

static int read_thread_map(struct report *rp, const uint8_t *b, size_t len)
{
	uint64_t nr;

	if (len < 8 || (memcpy(&nr, b, 8), nr > (len - 8) / 24) || !nr)
		return -EBADMSG;
	free(rp->threads);
	rp->threads = calloc((size_t)nr, sizeof(pid_t));
	if (!rp->threads)
		return -ENOMEM;
	for (uint64_t i = 0; i < nr; i++) {
		int64_t pid;

		memcpy(&pid, b + 8 + i * 24, 8);
		rp->threads[i] = (pid_t)pid;
	}
	rp->nthreads = (int)nr;
	return 0;
}

/* CPU_MAP: type 0 list { u16 nr, u16 cpu[] }, 1 mask { u16 nr, u16 long_size, longs }, 2 range. */
static int read_cpu_map(struct report *rp, const uint8_t *b, size_t len)
{
	uint16_t type, nr, lsz, lo, hi;
	int n = 0;

	if (len < 4)
		return -EBADMSG;
	memcpy(&type, b, 2);
	free(rp->cpus);
	rp->cpus = calloc(4096, sizeof(int));
	if (!rp->cpus)
		return -ENOMEM;
	if (type == 0) {
		memcpy(&nr, b + 2, 2);
		if (4 + 2 * (size_t)nr > len)
			return -EBADMSG;
		for (int i = 0; i < nr && n < 4096; i++) {
			uint16_t c;

			memcpy(&c, b + 4 + 2 * i, 2);
			rp->cpus[n++] = c == 0xffff ? -1 : c;
		}
	} else if (type == 1 && len >= 8) {
		memcpy(&nr, b + 2, 2);
		memcpy(&lsz, b + 4, 2);
		if ((lsz != 4 && lsz != 8) || 8 + (size_t)nr * lsz > len)
			return -EBADMSG;
		for (int i = 0; i < nr * lsz * 8 && n < 4096; i++)
			if (b[8 + i / 8] & (1u << (i % 8)))
				rp->cpus[n++] = i;
	} else if (type == 2 && len >= 8) {
		memcpy(&lo, b + 4, 2);
		memcpy(&hi, b + 6, 2);
		if (b[2])
			rp->cpus[n++] = -1;
		for (int c = lo; c <= hi && n < 4096; c++)
			rp->cpus[n++] = c;
	} else {
		return -EBADMSG;
	}
	rp->ncpus = n;
	return n ? 0 : -EBADMSG;
}

static int read_config(struct report *rp, const uint8_t *b, size_t len)
{
	uint64_t nr;

	if (len < 8 || (memcpy(&nr, b, 8), nr > (len - 8) / 16))
		return -EBADMSG;
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t tv[2];

		memcpy(tv, b + 8 + i * 16, 16);
		if (tv[0] == TERM_INTERVAL)
			rp->interval_ms = tv[1];
		else if (tv[0] == TERM_AGGR_MODE)
			for (size_t k = 0; k < sizeof(perf_aggr) / sizeof(perf_aggr[0]); k++)
				if (perf_aggr[k] == tv[1])
					rp->cfg.aggr = (enum pcl_aggr_mode)k;
	}
	return 0;
}

static int ensure_maps(struct report *rp)
{
	static const int any_cpu = -1;
	static const pid_t any_thread = -1;

	if (rp->maps_set)
		return 0;
	rp->maps_set = true;
	return pcl_evlist__set_maps(
		rp->el, rp->cpus ? rp->cpus : &any_cpu, rp->cpus ? rp->ncpus : 1,
		rp->threads ? rp->threads : &any_thread, rp->threads ? rp->nthreads : 1);
}

static int read_stat(struct report *rp, const uint8_t *b, size_t len)
{
	uint64_t id;
	uint32_t ct[2];
	struct pcl_count c = { 0 };
	const struct pcl_data_attr *a;
	int idx;

	if (len < 40)
		return -EBADMSG;
	memcpy(&id, b, 8);
	memcpy(ct, b + 8, 8);
	memcpy(&c.val, b + 16, 8);
	memcpy(&c.ena, b + 24, 8);
	memcpy(&c.run, b + 32, 8);
	a = pcl_data_reader__attr_by_id(rp->rd, id);
	if (!a || ensure_maps(rp))
		return 0; /* a count of an event the file does not describe: skip it */
	idx = (int)(a - pcl_data_reader__attr(rp->rd, 0));
	for (int ci = 0; ci < pcl_evlist__nr_cpus(rp->el); ci++)
		if (pcl_evlist__cpu(rp->el, ci) == (int)ct[0])
			pcl_evlist__set_count(rp->el, idx, ci, (int)ct[1], &c);
	return 0;
}

static char *cmdline_desc(struct pcl_data_reader *rd)
{
	size_t len, dl = 0;
	const void *f = pcl_data_reader__feature(rd, PCL_FEAT_CMDLINE, &len);
	char **v = NULL, *desc = NULL;
	FILE *m;
	int n;

	/* perf titles every stream 'pipe', whatever command line it carries: scripts grep for it */
	if (pcl_data_reader__is_pipe(rd))
		return strdup("'pipe'");
	if (!f || (n = pcl_feature_parse_strings(f, len, &v)) <= 0) {
		free(v); /* an empty list is still an array */
		return strdup("'<unknown>'");
	}
	m = open_memstream(&desc, &dl);
	if (m) {
		fputc('\'', m);
		for (int i = 0; i < n; i++)
			fprintf(m, "%s%s", i ? " " : "", v[i]);
		fputc('\'', m);
		fclose(m);
	}
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
	return desc;
}

static int read_round(struct report *rp, const uint8_t *b, size_t len)
{
	uint64_t rr[2];

	if (len < 16)
		return -EBADMSG;
	memcpy(rr, b, 16);
	if (ensure_maps(rp))
		return -ENOMEM;
	if (!rp->st) {
		/* a stream's features (the command line) may come after its first records */
		free(rp->desc);
		rp->desc = cmdline_desc(rp->rd);
		rp->cfg.sz = sizeof(rp->cfg);
		rp->cfg.target_desc = rp->desc;
		rp->st = pcl_stat__new(&rp->cfg, rp->el);
		if (!rp->st)
			return -ENOMEM;
	}
	if (rr[0] == STAT_ROUND_FINAL && !rp->interval_ms) {
		pcl_stat__add_run(rp->st, rr[1], 0, 0);
		return pcl_stat__print(rp->st, stderr);
	}
	if (rr[0] == STAT_ROUND_INTERVAL) {
		struct timespec ts = { (time_t)(rr[1] / 1000000000ull),
				       (long)(rr[1] % 1000000000ull) };
		uint64_t span = rr[1] > rp->last_time ? rr[1] - rp->last_time : rr[1];

		rp->last_time = rr[1];
		return pcl_stat__print_interval(rp->st, stderr, &ts, span);
	}
	return 0;
}

/* The file's events, once its attrs are known (at once for a file, after the first records of a
 * stream). */
static void add_report_events(struct report *rp)
{
	if (pcl_evlist__nr(rp->el) || rp->maps_set)
		return;
	for (int i = 0; i < pcl_data_reader__nr_attrs(rp->rd); i++) {
		char name[256];

		attr_name(pcl_data_reader__attr(rp->rd, i), name, sizeof(name));
		pcl_evlist__add_attr(rp->el, &pcl_data_reader__attr(rp->rd, i)->attr, name);
	}
}

static int report_records(struct report *rp)
{
	const struct perf_event_header *h;
	int ret = 0;

	while (!ret && (h = pcl_data_reader__next(rp->rd))) {
		add_report_events(rp);
		const uint8_t *b = (const uint8_t *)(h + 1);
		size_t len = h->size - sizeof(*h);

		switch (h->type) {
		case PCL_RECORD_THREAD_MAP:
			ret = read_thread_map(rp, b, len);
			break;
		case PCL_RECORD_CPU_MAP:
			ret = read_cpu_map(rp, b, len);
			break;
		case PCL_RECORD_STAT_CONFIG:
			ret = read_config(rp, b, len);
			break;
		case PCL_RECORD_STAT:
			ret = read_stat(rp, b, len);
			break;
		case PCL_RECORD_STAT_ROUND:
			ret = read_round(rp, b, len);
			break;
		}
		if (ret == -EBADMSG)
			die_msg("corrupt %s record at offset %#llx", pcl_record_type_name(h->type),
				(unsigned long long)pcl_data_reader__offset(rp->rd));
	}
	if (!ret && errno == EBADMSG) {
		die_msg("%s", pcl_last_error());
		ret = -EBADMSG;
	}
	return ret;
}

int cmd_stat_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "field-separator", required_argument, NULL, 'x' },
		{ "json", no_argument, NULL, 'j' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct report rp = { 0 };
	const char *input = "perf.data";
	bool force = false;
	int c, ret = 1;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+i:x:jfh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 'x':
			rp.cfg.format = PCL_STAT_CSV;
			rp.cfg.csv_sep = optarg;
			break;
		case 'j':
			rp.cfg.format = PCL_STAT_JSON;
			break;
		case 'f':
			force = true;
			break;
		case 'h':
			print_usage("stat", stdout);
			return 0;
		default:
			die_msg("unknown option '%s'; see 'pcl help stat'", argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	/* perf stat report refuses another user's file as perf report does */
	if (input_check_owner(input, force))
		return 1;
	rp.rd = pcl_data_reader__open(input);
	if (!rp.rd) {
		die_msg("%s", pcl_last_error());
		return 1;
	}
	rp.el = pcl_evlist__new();
	if (rp.el && !report_records(&rp)) {
		ret = 0;
		if (!rp.st) {
			die_msg("'%s' holds no counts (is it a 'pcl stat record' file?)", input);
			ret = 1;
		} else if (pcl_data_reader__truncated(rp.rd)) {
			fprintf(stderr,
				"pcl: warning: '%s' is cut short; these are the counts it holds\n",
				input);
		}
	}
	pcl_stat__free(rp.st);
	pcl_evlist__free(rp.el);
	pcl_data_reader__close(rp.rd);
	free(rp.cpus);
	free(rp.threads);
	free(rp.desc);
	return ret;
}
