/* SPDX-License-Identifier: MIT */
/*
 * pcl list: every event this machine offers, in perf list's groups and
 * layout ("  %-50s [%s]"), with a glob filter and --json. Generic hardware
 * and cache events are probed with a quick open on pcl itself and marked
 * when this machine cannot count them (perf hides them instead).
 *
 * --raw-dump prints the names alone, space-separated on one line, for
 * scripts and shell completion, byte for byte as perf 6.1 does: only the
 * events this machine can count, each name followed by a space; metric
 * names joined by spaces and ended by a newline; metric groups each
 * followed by a space.
 */
#include <dirent.h>
#include <fnmatch.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pcl/pcl.h>
#include "cli.h"

enum list_kind {
	LIST_HW = 1,
	LIST_SW = 2, /* software and tool events, as perf list sw */
	LIST_CACHE = 4,
	LIST_PMU = 8,
	LIST_SYNTAX = 16, /* raw and breakpoint descriptors */
	LIST_TRACEPOINT = 32,
	LIST_METRIC = 64,
	LIST_METRICGROUP = 128,
	LIST_ALL = 255,
};

struct list_opts {
	bool json;
	bool raw_dump; /* names only, space-separated */
	bool details;  /* metrics: their formulas too */
	const char *glob;
	unsigned int kinds;
	int printed;
};

/* perf list's type words. */
static const struct {
	const char *word;
	unsigned int kinds;
} kind_words[] = {
	{ "hw", LIST_HW },
	{ "hardware", LIST_HW },
	{ "sw", LIST_SW },
	{ "software", LIST_SW },
	{ "cache", LIST_CACHE },
	{ "hwcache", LIST_CACHE },
	{ "pmu", LIST_PMU },
	{ "tracepoint", LIST_TRACEPOINT },
	{ "metric", LIST_METRIC },
	{ "metrics", LIST_METRIC },
	{ "metricgroup", LIST_METRICGROUP },
	{ "metricgroups", LIST_METRICGROUP },
};

static void json_escape(const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		if ((unsigned char)*s >= 0x20)
			putchar(*s);
	}
}

static bool wanted(const struct list_opts *o, const char *name, const char *alias)
{
	if (!o->glob)
		return true;
	return !fnmatch(o->glob, name, 0) || (alias && !fnmatch(o->glob, alias, 0));
}

static void emit(struct list_opts *o, const char *name, const char *alias, const char *kind,
		 bool supported, const char *desc)
{
	char shown[160];

	if (!wanted(o, name, alias))
		return;
	if (o->raw_dump) {
		/* perf's raw dump leaves out what this machine cannot count, and aliases */
		if (supported) {
			printf("%s ", name);
			o->printed++;
		}
		return;
	}
	if (o->json) {
		printf("%s\n  {\"name\": \"", o->printed ? "," : "");
		json_escape(name);
		printf("\"");
		if (alias) {
			printf(", \"alias\": \"");
			json_escape(alias);
			printf("\"");
		}
		printf(", \"kind\": \"%s\", \"supported\": %s", kind, supported ? "true" : "false");
		if (desc) {
			printf(", \"description\": \"");
			json_escape(desc);
			printf("\"");
		}
		printf("}");
	} else {
		snprintf(shown, sizeof(shown), "%s%s%s", name, alias ? " OR " : "",
			 alias ? alias : "");
		printf("  %-50s [%s%s]\n", shown, kind, supported ? "" : ", not supported");
	}
	o->printed++;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_str_ptr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool probe(uint32_t type, uint64_t config)
{
	struct perf_event_attr attr = { .type = type, .config = config, .size = sizeof(attr) };

	return pcl_event_probe(&attr) == 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp((*(const struct pcl_event_name *const *)a)->name,
		      (*(const struct pcl_event_name *const *)b)->name);
}

/* One kind of generic event; hardware and software sorted by name as perf lists them. */
static void list_generic(struct list_opts *o, uint32_t type, const char *kind)
{
	const struct pcl_event_name *n, *sel[256];
	size_t nr = 0;

	for (int i = 0; (n = pcl_event_names(i)) && nr < 256; i++)
		if (n->type == type)
			sel[nr++] = n;
	if (type != PERF_TYPE_HW_CACHE)
		qsort(sel, nr, sizeof(*sel), cmp_name);
	for (size_t i = 0; i < nr; i++)
		emit(o, sel[i]->name, sel[i]->alias, kind, probe(sel[i]->type, sel[i]->config),
		     NULL);
}

static void list_pmus(struct list_opts *o)
{
	struct pcl_pmu *pmu = NULL;
	char name[256];

	while ((pmu = pcl_pmu__next(pmu))) {
		int nr = pcl_pmu__nr_aliases(pmu);
		bool kernel = pcl_pmu__is_kernel(pmu);

		for (int i = 0; i < nr; i++) {
			const struct pcl_pmu_alias *a = pcl_pmu__alias(pmu, i);

			if (!kernel && !strcmp(pcl_pmu__name(pmu), "tool"))
				continue; /* listed as tool events */
			/* perf's dump has kernel PMUs only; pcl list pmu shows all */
			if (!kernel && o->raw_dump)
				continue;
			snprintf(name, sizeof(name), "%s/%s/", pcl_pmu__name(pmu), a->name);
			emit(o, name, NULL, kernel ? "Kernel PMU event" : "User-space event", true,
			     a->desc);
		}
	}
}

/* The groups of this CPU's metrics, sorted, each once; their number. */
static int metric_groups(const char **groups, int max)
{
	const struct pcl_metric *m;
	int n = 0;

	for (int i = 0; (m = pcl_metrics(i)); i++) {
		int k;

		for (k = 0; k < n && strcmp(groups[k], m->group); k++)
			;
		if (k == n && n < max)
			groups[n++] = m->group;
	}
	qsort(groups, (size_t)n, sizeof(*groups), cmp_str_ptr);
	return n;
}

static void list_one_metric(struct list_opts *o, const struct pcl_metric *m)
{
	if (o->json) {
		printf("%s\n  {\"name\": \"", o->printed ? "," : "");
		json_escape(m->name);
		printf("\", \"kind\": \"Metric\", \"group\": \"");
		json_escape(m->group);
		printf("\", \"description\": \"");
		json_escape(m->desc);
		printf("\", \"expression\": \"");
		json_escape(m->expr);
		printf("\"}");
	} else {
		printf("  %s\n       [%s]\n", m->name, m->desc);
		if (o->details)
			printf("       [%s]\n", m->expr);
	}
	o->printed++;
}

/* Says once, on stderr, that this CPU has no metrics: better than guessing a neighbour's. */
static void no_metrics_note(struct list_opts *o)
{
	if (!pcl_metric_table() && !o->json && !o->raw_dump)
		fprintf(stderr, "pcl: no metrics for this CPU (pcl's metric table does not know "
				"it)\n");
}

static void list_metrics(struct list_opts *o)
{
	const struct pcl_metric *m;
	int n = 0;

	if (o->raw_dump) {
		for (int i = 0; (m = pcl_metrics(i)); i++)
			if (wanted(o, m->name, NULL))
				printf("%s%s", n++ ? " " : "", m->name);
		if (n)
			putchar('\n');
		o->printed += n;
		return;
	}
	if (!o->json)
		printf("\nMetrics:\n\n");
	for (int i = 0; (m = pcl_metrics(i)); i++)
		if (wanted(o, m->name, NULL))
			list_one_metric(o, m);
	no_metrics_note(o);
}

/* Group names alone (pcl list metricgroups), or each group with its metrics (pcl list). */
static void list_metricgroups(struct list_opts *o, bool with_metrics)
{
	const char *groups[64];
	int n = metric_groups(groups, 64);

	bool heading = false;

	if (!o->raw_dump && !o->json && !with_metrics) {
		printf("\nMetric Groups:\n\n");
		heading = true;
	}
	for (int g = 0; g < n; g++) {
		const struct pcl_metric *m;
		bool group_shown = false;

		if (!with_metrics) {
			if (!wanted(o, groups[g], NULL))
				continue;
			if (o->json) {
				printf("%s\n  {\"name\": \"", o->printed ? "," : "");
				json_escape(groups[g]);
				printf("\", \"kind\": \"Metric group\"}");
			} else {
				printf(o->raw_dump ? "%s " : "%s\n", groups[g]);
			}
			o->printed++;
			continue;
		}
		for (int i = 0; (m = pcl_metrics(i)); i++) {
			/* a glob keeps the metrics it names, or all of a group it names */
			if (strcmp(m->group, groups[g]) ||
			    (!wanted(o, m->name, NULL) && !wanted(o, m->group, NULL)))
				continue;
			if (o->raw_dump) {
				/* perf ends its whole dump with "group metric ..." lines */
				if (!group_shown)
					printf("%s", groups[g]);
				printf(" %s", m->name);
				group_shown = true;
				o->printed++;
				continue;
			}
			if (!heading && !o->json)
				printf("\nMetric Groups:\n\n");
			if (!group_shown && !o->json)
				printf("%s:\n", groups[g]);
			heading = group_shown = true;
			list_one_metric(o, m);
		}
		if (o->raw_dump && group_shown)
			putchar('\n');
	}
	if (!with_metrics)
		no_metrics_note(o);
}

static void list_tool(struct list_opts *o)
{
	struct pcl_pmu *tool = pcl_pmu__find("tool");
	int nr = tool ? pcl_pmu__nr_aliases(tool) : 0;
	static const char *const order[] = { "duration_time", "user_time", "system_time" };

	/* perf's order, then anything else the source has */
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (tool && pcl_pmu__find_alias(tool, order[i]))
			emit(o, order[i], NULL, "Tool event", true,
			     pcl_pmu__find_alias(tool, order[i])->desc);
	(void)nr;
}

/*
 * Tracepoints as sys:name, sorted like perf list. Like perf, only events
 * with an id file: ftrace's own events (ftrace:bprint, ftrace:funcgraph_entry
 * ...) have a format but no id, and perf_event_open cannot open them.
 */
static void list_tracepoints(struct list_opts *o)
{
	const char *tfs = pcl_tracefs(true);
	char path[512], **names = NULL;
	size_t n = 0, alloc = 0;
	struct dirent *se, *ne;
	DIR *sd, *nd;

	if (!tfs)
		return;
	snprintf(path, sizeof(path), "%s/events", tfs);
	sd = opendir(path);
	if (!sd)
		return;
	while ((se = readdir(sd))) {
		if (se->d_name[0] == '.' || se->d_type != DT_DIR)
			continue;
		snprintf(path, sizeof(path), "%s/events/%s", tfs, se->d_name);
		nd = opendir(path);
		if (!nd)
			continue;
		while ((ne = readdir(nd))) {
			char *full;

			if (ne->d_name[0] == '.' || ne->d_type != DT_DIR)
				continue;
			snprintf(path, sizeof(path), "%s/events/%s/%s/id", tfs, se->d_name,
				 ne->d_name);
			if (access(path, R_OK))
				continue;
			if (n == alloc) {
				char **p = realloc(names,
						   (alloc = alloc ? alloc * 2 : 1024) * sizeof(*p));

				if (!p)
					break;
				names = p;
			}
			if (asprintf(&full, "%s:%s", se->d_name, ne->d_name) < 0)
				break;
			names[n++] = full;
		}
		closedir(nd);
	}
	closedir(sd);
	qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		emit(o, names[i], NULL, "Tracepoint event", true, NULL);
		free(names[i]);
	}
	free(names);
}

int cmd_list(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "raw-dump", no_argument, NULL, 'R' },
		{ "details", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct list_opts o = { 0 };
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+jdh", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			o.json = true;
			break;
		case 'R':
			o.raw_dump = true;
			break;
		case 'd':
			o.details = true;
			break;
		case 'h':
			print_usage("list", stdout);
			return 0;
		default:
			option_error("list", c, argv);
			return EXIT_USAGE;
		}
	}
	output_catch_sigpipe();
	o.kinds = LIST_ALL;
	if (optind < argc) {
		o.glob = argv[optind];
		for (size_t i = 0; i < sizeof(kind_words) / sizeof(kind_words[0]); i++) {
			if (!strcmp(o.glob, kind_words[i].word)) {
				o.kinds = kind_words[i].kinds;
				o.glob = NULL;
				break;
			}
		}
	}
	if (optind + 1 < argc) {
		die_msg("list takes one filter, got '%s' too", argv[optind + 1]);
		return EXIT_USAGE;
	}
	if (o.json && o.raw_dump) {
		die_msg("--json and --raw-dump are two different outputs: pick one");
		return EXIT_USAGE;
	}
	if (o.json)
		printf("[");
	else if (!o.glob && o.kinds == LIST_ALL && !o.raw_dump)
		printf("\nList of pre-defined events (to be used in -e):\n\n");
	if (o.kinds & LIST_HW)
		list_generic(&o, PERF_TYPE_HARDWARE, "Hardware event");
	if (o.kinds & LIST_SW) {
		list_generic(&o, PERF_TYPE_SOFTWARE, "Software event");
		list_tool(&o);
	}
	if (o.kinds & LIST_CACHE)
		list_generic(&o, PERF_TYPE_HW_CACHE, "Hardware cache event");
	if (o.kinds & LIST_PMU)
		list_pmus(&o);
	if ((o.kinds & LIST_SYNTAX) && !o.raw_dump) {
		emit(&o, "rNNN", NULL, "Raw hardware event descriptor", true, NULL);
		emit(&o, "cpu/t1=v1[,t2=v2,t3 ...]/modifier", NULL, "Raw hardware event descriptor",
		     true, NULL);
		emit(&o, "mem:<addr>[/len][:access]", NULL, "Hardware breakpoint", true, NULL);
	}
	if (o.kinds & LIST_TRACEPOINT)
		list_tracepoints(&o);
	if (o.kinds == LIST_METRICGROUP)
		list_metricgroups(&o, false);
	else if (o.kinds == LIST_METRIC)
		list_metrics(&o);
	else if (o.kinds & LIST_METRIC)
		list_metricgroups(&o, true);
	if (o.json)
		printf("%s]\n", o.printed ? "\n" : "");
	if (o.glob && !o.printed && !o.json && !o.raw_dump) {
		die_msg("no event matches '%s'", o.glob);
		return 1;
	}
	/* a full disk is an error; | head is not */
	return stdout_finish(0);
}
