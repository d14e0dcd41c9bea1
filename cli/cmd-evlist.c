/* SPDX-License-Identifier: MIT */
/*
 * pcl evlist: the events of a perf.data file, one a line, as perf evlist
 * prints them: the names; with -v every non-zero attr field; with -F the
 * sampling frequency or period; with -g the groups ({a,b} on one line);
 * with --trace-fields a tracepoint's fields. Only the file's header is
 * read (and, for a stream, what comes before its first data record).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <pcl/pcl.h>
#include <pcl/header.h>
#include <pcl/tracepoint.h>
#include "cli.h"
#include "input.h"

enum { OPT_TRACE_FIELDS = 256 };

struct evlist_opts {
	const char *input;
	bool verbose, freq, group, trace_fields, force;
};

/* The groups of GROUP_DESC: per event, its leader's index and its members (leader only). */
struct groups {
	int *leader;
	int *nr_members;
	char **name;
};

/* perf's ":"-then-","-separated list after the event's name. */
struct line {
	FILE *out;
	bool first;
};

static void sep(struct line *l)
{
	fputc(l->first ? ':' : ',', l->out);
	l->first = false;
}

static void attr_field(void *ctx, const char *name, const char *val)
{
	struct line *l = ctx;

	sep(l);
	fprintf(l->out, " %s: %s", name, val);
}

static int parse_opts(int argc, char **argv, struct evlist_opts *o)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "force", no_argument, NULL, 'f' },
		{ "freq", no_argument, NULL, 'F' },
		{ "group", no_argument, NULL, 'g' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "trace-fields", no_argument, NULL, OPT_TRACE_FIELDS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:fFgvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			o->input = optarg;
			break;
		case 'f':
			o->force = true;
			break;
		case 'F':
			o->freq = true;
			break;
		case 'g':
			o->group = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case OPT_TRACE_FIELDS:
			o->trace_fields = true;
			break;
		case 'h':
			print_usage("evlist", stdout);
			exit(0);
		default:
			return option_error("evlist", c, argv);
		}
	}
	if (optind < argc) {
		die_msg("unexpected argument '%s'; see 'pcl evlist -h'", argv[optind]);
		return -1;
	}
	if (o->group && (o->verbose || o->freq)) {
		die_msg("--group cannot be combined with -v or -F (as perf)");
		return -1;
	}
	return 0;
}

/* perf's default input: perf.data, or standard input when that is a pipe. */
const char *default_input(void)
{
	struct stat st;

	if (!fstat(STDIN_FILENO, &st) && S_ISFIFO(st.st_mode))
		return "-";
	return "perf.data";
}

static bool rd_u32(const uint8_t **p, const uint8_t *end, uint32_t *v)
{
	if ((size_t)(end - *p) < 4)
		return false;
	memcpy(v, *p, 4);
	*p += 4;
	return true;
}

/*
 * GROUP_DESC: u32 nr, per group: perf string (u32 len, len bytes), u32
 * leader index, u32 members. A section that does not parse, or names events
 * the file lacks, leaves every event on its own (as no section would) and
 * says so.
 */
static int read_groups(struct pcl_data_reader *r, struct groups *g, int nr)
{
	size_t len = 0;
	const uint8_t *p = pcl_data_reader__feature(r, PCL_FEAT_GROUP_DESC, &len), *end = p + len;
	uint32_t n, slen, leader, members;

	g->leader = calloc((size_t)nr + 1, sizeof(*g->leader));
	g->nr_members = calloc((size_t)nr + 1, sizeof(*g->nr_members));
	g->name = calloc((size_t)nr + 1, sizeof(*g->name));
	if (!g->leader || !g->nr_members || !g->name) {
		die_msg("out of memory");
		return -1;
	}
	for (int i = 0; i < nr; i++) {
		g->leader[i] = i;
		g->nr_members[i] = 1;
	}
	if (!p || !rd_u32(&p, end, &n))
		return 0;
	for (uint32_t i = 0; i < n; i++) {
		const char *name;

		if (!rd_u32(&p, end, &slen) || slen > (size_t)(end - p))
			goto bad;
		name = (const char *)p;
		p += slen;
		if (!rd_u32(&p, end, &leader) || !rd_u32(&p, end, &members) || !slen ||
		    !memchr(name, '\0', slen) || leader >= (uint32_t)nr ||
		    members > (uint32_t)nr - leader || !members)
			goto bad;
		g->nr_members[leader] = (int)members;
		if (strcmp(name, "{anon_group}"))
			g->name[leader] = (char *)name;
		for (uint32_t m = 1; m < members; m++)
			g->leader[leader + m] = (int)leader;
	}
	return 0;
bad:
	fprintf(stderr, "pcl: warning: malformed event groups (GROUP_DESC) ignored\n");
	for (int i = 0; i < nr; i++) {
		g->leader[i] = i;
		g->nr_members[i] = 1;
		g->name[i] = NULL;
	}
	return 0;
}

static void print_trace_fields(struct line *l, const struct pcl_data_attr *a,
			       const struct pcl_tracepoints *tps)
{
	const struct pcl_tp_format *f;
	bool any = false;

	if (a->attr.type != PERF_TYPE_TRACEPOINT) {
		sep(l);
		fputs(" (not a tracepoint)", l->out);
		return;
	}
	f = pcl_tracepoints__find(tps, a->attr.config);
	for (int i = 0; f && i < f->nr_fields; i++) {
		if (f->fields[i].flags & PCL_TP_COMMON)
			continue;
		sep(l);
		fprintf(l->out, "%s%s", any ? "" : " trace_fields: ", f->fields[i].name);
		any = true;
	}
	if (!any) {
		sep(l);
		fputs(" (no trace field)", l->out);
	}
}

static void print_event(const struct evlist_opts *o, struct pcl_data_reader *r, int i,
			const struct groups *g, const struct pcl_tracepoints *tps)
{
	const struct pcl_data_attr *a = pcl_data_reader__attr(r, i);
	struct line l = { stdout, true };
	char buf[256];

	if (o->group) {
		if (g->leader[i] != i)
			return;
		if (g->nr_members[i] > 1)
			printf("%s{", g->name[i] ? g->name[i] : "");
		for (int m = 0; m < g->nr_members[i]; m++)
			printf("%s%s", m ? "," : "",
			       pcl_header__event_name(pcl_data_reader__attr(r, i + m), buf,
						      sizeof(buf)));
		if (g->nr_members[i] > 1)
			putchar('}');
		putchar('\n');
		return;
	}
	fputs(pcl_header__event_name(a, buf, sizeof(buf)), stdout);
	if (o->verbose) {
		pcl_header__attr_fields(&a->attr, attr_field, &l);
	} else if (o->freq) {
		sep(&l);
		printf(" %s=%llu", a->attr.freq ? "sample_freq" : "sample_period",
		       (unsigned long long)a->attr.sample_period);
	}
	if (o->trace_fields)
		print_trace_fields(&l, a, tps);
	putchar('\n');
}

/* perf's own name, when pcl stands in for it through a link named perf. */
static const char *tool_name(void)
{
	return strcmp(program_invocation_short_name, "perf") ? "pcl" : "perf";
}

int cmd_evlist(int argc, char **argv)
{
	struct evlist_opts o = { 0 };
	struct groups g = { 0 };
	struct pcl_data_reader *r = NULL;
	struct pcl_tracepoints *tps = NULL;
	bool any_tp = false;
	int nr, ret = 1;

	if (parse_opts(argc, argv, &o))
		return EXIT_USAGE;
	if (!o.input)
		o.input = default_input();
	if (input_check_owner(o.input, o.force))
		return 1;
	r = pcl_data_reader__open(o.input);
	if (!r) {
		die_msg("%s", pcl_last_error()[0] ? pcl_last_error() : strerror(errno));
		return 1;
	}
	output_catch_sigpipe();
	nr = pcl_data_reader__nr_attrs(r);
	if (read_groups(r, &g, nr))
		goto out;
	if (o.trace_fields) {
		size_t len = 0;
		const void *td = pcl_data_reader__feature(r, PCL_FEAT_TRACING_DATA, &len);

		tps = td ? pcl_tracepoints__parse(td, len) : NULL;
	}
	for (int i = 0; i < nr; i++) {
		print_event(&o, r, i, &g, tps);
		any_tp |= pcl_data_reader__attr(r, i)->attr.type == PERF_TYPE_TRACEPOINT;
	}
	if (any_tp && !o.trace_fields)
		printf("# Tip: use '%s evlist --trace-fields' to show fields for tracepoint "
		       "events\n",
		       tool_name());
	ret = 0;
out:
	pcl_tracepoints__free(tps);
	pcl_data_reader__close(r);
	free(g.leader);
	free(g.nr_members);
	free(g.name);
	return stdout_finish(ret);
}
