/* SPDX-License-Identifier: MIT */
/*
 * pcl probe: add, list and delete uprobe events in tracefs, as perf probe
 * does, with its syntax, names and messages (perf-probe(1)):
 *
 *   pcl probe -x BIN [-a] 'FUNC[%return] [ARG...]'   add (also FUNC:RLN, FILE:LINE)
 *   pcl probe -l [FILTER]                          list
 *   pcl probe -d [GROUP:]EVENT                     delete (globs)
 *   pcl probe -x BIN -L FUNC | -V POINT | -F [FILTER]   lines, variables, functions
 *
 * The events are named probe_<BIN's name> and <FUNC> (<FUNC>__return,
 * <FUNC>_L<RLN>, then _1, _2 ... for duplicates), so that -e
 * probe_BIN:FUNC works in stat, record and the rest as a tracepoint.
 * Without -x the probe is a kprobe; a kernel without kprobe_events (or
 * without a vmlinux with DWARF) gets perf's message, and nothing is done.
 */
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pcl/pcl.h>
#include "cli.h"
#include "probe/probe.h"

/* perf's --max-probes default */
#define MAX_POINTS 128

struct probe_opts {
	const char *exec, *line, *vars, *funcs_filter, *list_filter;
	const char **adds, **dels;
	int nadds, ndels;
	bool list, funcs, force, dry_run, quiet, definition, no_inlines;
	char bin[PATH_MAX];
};

static int push(const char ***v, int *n, const char *s)
{
	const char **nv = realloc(*v, (size_t)(*n + 1) * sizeof(*nv));

	if (!nv)
		return -1;
	nv[(*n)++] = s;
	*v = nv;
	return 0;
}

static int parse_opts(int argc, char **argv, struct probe_opts *o, char **joined)
{
	static const struct option longopts[] = {
		{ "add", required_argument, NULL, 'a' },
		{ "definition", required_argument, NULL, 'D' },
		{ "del", required_argument, NULL, 'd' },
		{ "list", optional_argument, NULL, 'l' },
		{ "line", required_argument, NULL, 'L' },
		{ "vars", required_argument, NULL, 'V' },
		{ "funcs", optional_argument, NULL, 'F' },
		{ "exec", required_argument, NULL, 'x' },
		{ "force", no_argument, NULL, 'f' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "module", required_argument, NULL, 'm' },
		{ "vmlinux", required_argument, NULL, 'k' },
		{ "source", required_argument, NULL, 's' },
		{ "max-probes", required_argument, NULL, 1 },
		{ "no-inlines", no_argument, NULL, 2 },
		{ "externs", no_argument, NULL, 3 },
		{ "filter", required_argument, NULL, 4 },
		{ "demangle", no_argument, NULL, 5 },
		{ "no-demangle", no_argument, NULL, 5 },
		{ "demangle-kernel", no_argument, NULL, 5 },
		{ "range", no_argument, NULL, 6 },
		{ "bootconfig", no_argument, NULL, 7 },
		{ "cache", no_argument, NULL, 8 },
		{ "symfs", required_argument, NULL, 9 },
		{ "target-ns", required_argument, NULL, 10 },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":a:D:d:l::L:V:F::x:fnqvm:k:s:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'D':
			o->definition = true;
			/* fall through */
		case 'a':
			if (push(&o->adds, &o->nadds, optarg))
				return -1;
			break;
		case 'd':
			if (push(&o->dels, &o->ndels, optarg))
				return -1;
			break;
		case 'l':
			o->list = true;
			o->list_filter = optarg;
			break;
		case 'L':
			o->line = optarg;
			break;
		case 'V':
			o->vars = optarg;
			break;
		case 'F':
			o->funcs = true;
			o->funcs_filter = optarg;
			break;
		case 'x':
			o->exec = optarg;
			break;
		case 'f':
			o->force = true;
			break;
		case 'n':
			o->dry_run = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'm':
			die_msg("probe: -m: kernel modules are probed through kprobes, which this "
				"kernel does not have (no kprobe_events)");
			return -1;
		case 2:
			o->no_inlines = true;
			break;
		case 6: case 7: case 8: case 9: case 10:
			die_msg("probe: %s is not supported by pcl", argv[optind - 1]);
			return -1;
		case 'v': case 'k': case 's': case 1: case 3: case 4: case 5:
			break;
		case 'h':
			print_usage("probe", stdout);
			exit(0);
		default:
			return option_error("probe", c, argv);
		}
	}
	/* the words left are one probe definition (or the filter of -l and -F) */
	if (optind < argc) {
		size_t len = 0;

		for (int i = optind; i < argc; i++)
			len += strlen(argv[i]) + 1;
		*joined = calloc(1, len + 1);
		if (!*joined)
			return -1;
		for (int i = optind; i < argc; i++) {
			if (i > optind)
				strcat(*joined, " ");
			strcat(*joined, argv[i]);
		}
		if (o->funcs && !o->funcs_filter)
			o->funcs_filter = *joined;
		else if (o->list && !o->list_filter)
			o->list_filter = *joined;
		else if (o->ndels)
			push(&o->dels, &o->ndels, *joined);
		else if (push(&o->adds, &o->nadds, *joined))
			return -1;
	}
	if (o->list && o->exec) {
		die_msg("probe: don't use --list with --exec");
		return -1;
	}
	if (!o->list && !o->funcs && !o->line && !o->vars && !o->nadds && !o->ndels) {
		die_msg("probe: nothing to do; see 'pcl probe -h'");
		return -1;
	}
	if (o->exec && probe_resolve_bin(o->exec, o->bin, sizeof(o->bin))) {
		die_msg("probe: target '%s' not found: %s", o->exec, pcl_last_error());
		return -1;
	}
	return 0;
}

/* Without -x everything is about the kernel: perf's message, as perf gives it. */
static int no_kernel(const char *what)
{
	char path[256];

	if (!probe_events_path(true, path, sizeof(path)))
		fprintf(stderr, "Failed to find the path for the kernel: %s\n", pcl_last_error());
	else
		fprintf(stderr, "Failed to find the path for the kernel: pcl reads no kernel "
				"debug information (vmlinux)\n");
	die_msg("probe: failed to %s: kernel probes need kprobe events and the kernel's DWARF", what);
	return 1;
}

/* probe_<basename>, perf's group of a uprobe. */
static void group_of(const char *bin, char *buf, size_t size)
{
	const char *base = strrchr(bin, '/');
	char name[256];
	char *dot;

	snprintf(name, sizeof(name), "%s", base ? base + 1 : bin);
	/* perf cuts the name at the first '.': libc.so.6 is probe_libc */
	dot = strchr(name, '.');
	if (dot)
		*dot = '\0';
	probe_sanitize(name);
	snprintf(buf, size, "probe_%s", name);
}

/* A free event name: @base, else base_1, base_2 ... (with -f), among @taken too. */
static int event_name(const char *group, const char *base, bool force, char taken[][128],
		      int ntaken, char *out, size_t size)
{
	for (int i = 0; i < 1000; i++) {
		bool used;

		if (i)
			snprintf(out, size, "%s_%d", base, i);
		else
			snprintf(out, size, "%s", base);
		used = probe_event_exists(group, out);
		for (int j = 0; taken && j < ntaken && !used; j++)
			used = !strcmp(taken[j], out);
		if (!used)
			return 0;
		if (!force && i == 0 && ntaken == 0) {
			fprintf(stderr, "Error: event \"%s\" already exists.\n"
					" Hint: Remove existing event by 'perf probe -d'\n"
					"       or force duplicates by 'perf probe -f'\n",
				out);
			return -1;
		}
	}
	return -1;
}

static int add_one(struct probe_opts *o, const char *def, int *nadded, char *last, size_t lsize)
{
	struct probe_spec sp;
	struct probe_loc *locs = NULL;
	char group[160], base[300], taken[MAX_POINTS][128];
	bool multi = probe_multiprobe();
	int n = 0, ret;

	if (probe_spec_parse(def, &sp)) {
		die_msg("probe: '%s': %s", def, pcl_last_error());
		return -1;
	}
	sp.no_inlines = o->no_inlines;
	ret = probe_find(o->bin, &sp, &locs, &n);
	if (ret) {
		fprintf(stderr, "Probe point '%s' not found.\n", sp.point);
		die_msg("probe: %s", pcl_last_error());
		goto out;
	}
	/* perf's warning: a probe on an IFUNC symbol hits its resolver, not the calls */
	for (int i = 0; i < n && !o->quiet; i++)
		if (locs[i].ifunc) {
			fprintf(stderr,
				"Warning: The probe function (%s) is a GNU indirect function.\n"
				"Consider identifying the final function used at run time and set "
				"the probe directly on that.\n",
				sp.func);
			break;
		}
	if (sp.group)
		snprintf(group, sizeof(group), "%s", sp.group);
	else
		group_of(o->bin, group, sizeof(group));
	if (n > MAX_POINTS) {
		die_msg("probe: '%s' is %d probe points; at most %d are added", sp.point, n, MAX_POINTS);
		ret = -1;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		char line[8192], ev[128];

		if (sp.event)
			snprintf(base, sizeof(base), "%s", sp.event);
		else if (sp.func && sp.has_line)
			snprintf(base, sizeof(base), "%s_L%ld", sp.func, sp.line);
		else
			snprintf(base, sizeof(base), "%s%s",
				 sp.func ? sp.func : locs[i].func[0] ? locs[i].func : "probe",
				 sp.retprobe ? "__return" : "");
		probe_sanitize(base);
		if (i > 0 && multi) {
			/* the kernel appends this point to the first's event */
			snprintf(ev, sizeof(ev), "%s", taken[0]);
		} else if (event_name(group, base, o->force || i > 0, taken, i, ev, sizeof(ev))) {
			ret = -1;
			break;
		}
		snprintf(taken[i], sizeof(taken[i]), "%s", ev);
		snprintf(line, sizeof(line), "%c:%s/%s %s:0x%" PRIx64 "%s", sp.retprobe ? 'r' : 'p',
			 group, ev, o->bin, locs[i].offset, locs[i].args ? locs[i].args : "");
		if (o->definition) {
			printf("%s\n", line);
			continue;
		}
		if (!o->dry_run && probe_event_write(false, line)) {
			die_msg("probe: %s", pcl_last_error());
			ret = -1;
			break;
		}
		if (!o->quiet) {
			if (!*nadded)
				fprintf(stderr, "Added new event%s:\n", n > 1 || o->nadds > 1 ? "s" : "");
			char full[300];

			snprintf(full, sizeof(full), "%s:%s", group, ev);
			if (sp.func)
				fprintf(stderr, "  %-20s (on %s in %s%s", full, sp.point, o->bin,
					sp.nargs ? " with" : "");
			else
				fprintf(stderr, "  %-20s (on @%s in %s%s", full, sp.point, o->bin,
					sp.nargs ? " with" : "");
			for (int a = 0; a < sp.nargs; a++)
				fprintf(stderr, " %s%s%s", sp.args[a].name_derived ? sp.args[a].name : "",
					sp.args[a].name_derived ? "=" : "", sp.args[a].text);
			fprintf(stderr, ")\n");
		}
		snprintf(last, lsize, "%s:%s", group, ev);
		(*nadded)++;
	}
out:
	probe_locs_free(locs, n);
	probe_spec_free(&sp);
	return ret ? -1 : 0;
}

/* The address of text symbol @sym of /proc/kallsyms, and of _text; false if absent. */
static bool kernel_symbol(const char *sym, uint64_t *addr, uint64_t *text)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], name[256], type;
	unsigned long long a;
	bool found = false;

	*text = 0;
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &a, &type, name) != 3 ||
		    (type != 't' && type != 'T'))
			continue;
		if (!strcmp(name, "_text"))
			*text = a;
		if (!found && !strcmp(name, sym)) {
			*addr = a;
			found = true;
		}
	}
	fclose(f);
	return found && *text && *addr >= *text;
}

/*
 * A kprobe, where the kernel has kprobe_events: FUNC[+OFF][%return] with
 * registers, $retval and raw fetch args, as perf adds one without the
 * kernel's DWARF. Lines, files and variables need that DWARF, which pcl
 * does not read: perf's message then.
 */
static int add_kprobe(struct probe_opts *o, const char *def, int *nadded, char *last, size_t lsize)
{
	struct probe_spec sp;
	char line[4096], ev[128], base[300], full[300];
	uint64_t addr = 0, text = 0;
	size_t len;
	int ret = -1;

	if (probe_spec_parse(def, &sp)) {
		die_msg("probe: '%s': %s", def, pcl_last_error());
		return -1;
	}
	for (int i = 0; i < sp.nargs; i++)
		if (sp.args[i].nfields || (sp.args[i].var[0] != '%' && sp.args[i].var[0] != '$' &&
					   sp.args[i].var[0] != '+' && sp.args[i].var[0] != '-' &&
					   sp.args[i].var[0] != '@'))
			sp.has_line = true; /* a variable: needs DWARF as a line does */
	if (sp.has_line || sp.file || !sp.func) {
		fprintf(stderr, "Failed to find the path for the kernel: pcl reads no kernel debug "
				"information (vmlinux)\n");
		die_msg("probe: '%s' needs the kernel's DWARF", def);
		goto out;
	}
	if (!kernel_symbol(sp.func, &addr, &text)) {
		fprintf(stderr, "Probe point '%s' not found.\n", sp.point);
		die_msg("probe: '%s' is no function of /proc/kallsyms", sp.func);
		goto out;
	}
	snprintf(base, sizeof(base), "%s%s", sp.event ? sp.event : sp.func,
		 sp.retprobe && !sp.event ? "__return" : "");
	probe_sanitize(base);
	if (event_name(sp.group ? sp.group : "probe", base, o->force, NULL, 0, ev, sizeof(ev)))
		goto out;
	/* perf's places: _text+N for an entry (KASLR moves both), SYM+OFF for a return */
	if (sp.retprobe)
		len = (size_t)snprintf(line, sizeof(line), "r:%s/%s %s+%" PRIu64,
				       sp.group ? sp.group : "probe", ev, sp.func, sp.offset);
	else
		len = (size_t)snprintf(line, sizeof(line), "p:%s/%s _text+%" PRIu64,
				       sp.group ? sp.group : "probe", ev, addr - text + sp.offset);
	for (int i = 0; i < sp.nargs && len < sizeof(line); i++) {
		const struct probe_arg *a = &sp.args[i];

		len += (size_t)snprintf(line + len, sizeof(line) - len, " %s%s%s%s%s",
					a->name ? a->name : "", a->name ? "=" : "", a->var,
					a->type ? ":" : "", a->type ? a->type : "");
	}
	if (o->definition) {
		printf("%s\n", line);
		ret = 0;
		goto out;
	}
	if (!o->dry_run && probe_event_write(true, line)) {
		die_msg("probe: %s", pcl_last_error());
		goto out;
	}
	snprintf(full, sizeof(full), "%s:%s", sp.group ? sp.group : "probe", ev);
	if (!o->quiet) {
		if (!*nadded)
			fprintf(stderr, "Added new event%s:\n", o->nadds > 1 ? "s" : "");
		fprintf(stderr, "  %-20s (on %s%s", full, sp.point, sp.nargs ? " with" : "");
		for (int i = 0; i < sp.nargs; i++)
			fprintf(stderr, " %s", sp.args[i].text);
		fprintf(stderr, ")\n");
	}
	snprintf(last, lsize, "%s", full);
	(*nadded)++;
	ret = 0;
out:
	probe_spec_free(&sp);
	return ret;
}

static int cmd_add(struct probe_opts *o)
{
	char last[300] = "", path[256];
	int nadded = 0;

	/* -D only prints the line: it needs no kprobe_events */
	if (!o->exec && !o->definition && !probe_events_path(true, path, sizeof(path)))
		return no_kernel("add events");
	for (int i = 0; i < o->nadds; i++) {
		if (o->exec ? add_one(o, o->adds[i], &nadded, last, sizeof(last))
			    : add_kprobe(o, o->adds[i], &nadded, last, sizeof(last))) {
			fprintf(stderr, "  Error: Failed to add events.\n");
			return 1;
		}
	}
	if (nadded && !o->quiet)
		fprintf(stderr, "\nYou can now use it in all perf tools, such as:\n\n"
				"\tperf record -e %s -aR sleep 1\n\n",
			last);
	return 0;
}

/* "[GROUP:]EVENT" with globs against one event; no group matches any. */
static bool del_match(const char *pat, const struct probe_event *e)
{
	const char *colon = strchr(pat, ':');
	char group[256];

	if (!colon)
		return !fnmatch(pat, e->event, 0);
	snprintf(group, sizeof(group), "%.*s", (int)(colon - pat), pat);
	return !fnmatch(group, e->group, 0) && !fnmatch(colon + 1, e->event, 0);
}

static int cmd_del(struct probe_opts *o)
{
	struct probe_event *evs;
	int n, ret = 0;

	if (probe_events_read(&evs, &n)) {
		die_msg("probe: %s", pcl_last_error());
		return 1;
	}
	for (int d = 0; d < o->ndels; d++) {
		int hits = 0;

		for (int i = 0; i < n; i++) {
			if (!evs[i].event[0] || !del_match(o->dels[d], &evs[i]))
				continue;
			hits++;
			if (probe_event_delete(evs[i].kprobe, evs[i].group, evs[i].event)) {
				die_msg("probe: %s", pcl_last_error());
				ret = 1;
				continue;
			}
			if (!o->quiet)
				fprintf(stderr, "Removed event: %s:%s\n", evs[i].group, evs[i].event);
			/* the other probes of a multiprobe event went with it */
			for (int j = i + 1; j < n; j++)
				if (!strcmp(evs[j].group, evs[i].group) &&
				    !strcmp(evs[j].event, evs[i].event))
					evs[j].event[0] = '\0';
			evs[i].event[0] = '\0';
		}
		if (!hits && o->quiet) {
			die_msg("probe: '%s' does not hit any event", o->dels[d]);
			ret = 1;
		} else if (!hits) {
			fprintf(stderr, "\"%s\" does not hit any event.\n", o->dels[d]);
			ret = 1;
		}
	}
	free(evs);
	if (ret && !o->quiet)
		fprintf(stderr, "  Error: Failed to delete events.\n");
	return ret;
}

static int cmd_list_probes(struct probe_opts *o)
{
	struct probe_event *evs;
	int n;

	if (probe_events_read(&evs, &n)) {
		die_msg("probe: %s", pcl_last_error());
		return 1;
	}
	for (int i = 0; i < n; i++) {
		const struct probe_event *e = &evs[i];
		char where[600], full[300];
		const char *a;

		snprintf(full, sizeof(full), "%s:%s", e->group, e->event);
		if (o->list_filter && !del_match(o->list_filter, e))
			continue;
		if (e->kprobe) {
			printf("  %-20s (on %s%s", full, e->path, e->type == 'r' ? "%return" : "");
		} else {
			probe_describe(e->path, e->offset, e->type == 'r', where, sizeof(where));
			printf("  %-20s (on %s in %s", full, where, e->path);
		}
		/* the args' names: "name=fetch" words */
		if (e->args[0])
			printf(" with");
		for (a = e->args; *a;) {
			size_t wl;

			while (*a == ' ')
				a++;
			wl = strcspn(a, " ");
			if (!wl)
				break;
			printf(" %.*s", (int)strcspn(a, "= "), a);
			a += wl;
		}
		printf(")\n");
	}
	free(evs);
	return 0;
}

int cmd_probe(int argc, char **argv)
{
	struct probe_opts o = { 0 };
	char *joined = NULL;
	int ret = 1;

	if (parse_opts(argc, argv, &o, &joined)) {
		ret = EXIT_USAGE;
		goto out;
	}
	if (o.list) {
		ret = cmd_list_probes(&o);
	} else if (o.funcs) {
		if (!o.exec) {
			ret = no_kernel("list functions");
		} else if (probe_show_funcs(o.bin, o.funcs_filter, stdout)) {
			die_msg("probe: %s", pcl_last_error());
		} else {
			ret = 0;
		}
	} else if (o.line) {
		if (!o.exec)
			ret = no_kernel("show lines");
		else if (probe_show_lines(o.bin, o.line, stdout))
			die_msg("probe: -L '%s': %s", o.line, pcl_last_error());
		else
			ret = 0;
	} else if (o.vars) {
		struct probe_spec sp;

		if (!o.exec) {
			ret = no_kernel("show variables");
		} else if (probe_spec_parse(o.vars, &sp)) {
			die_msg("probe: '%s': %s", o.vars, pcl_last_error());
		} else {
			if (probe_show_vars(o.bin, &sp, stdout))
				die_msg("probe: -V '%s': %s", o.vars, pcl_last_error());
			else
				ret = 0;
			probe_spec_free(&sp);
		}
	} else {
		ret = 0;
		if (o.ndels)
			ret = cmd_del(&o);
		if (!ret && o.nadds)
			ret = cmd_add(&o);
	}
out:
	free(o.adds);
	free(o.dels);
	free(joined);
	return ret;
}
