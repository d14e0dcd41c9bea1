/* SPDX-License-Identifier: MIT */
/* pcl: dispatch to a subcommand. */
#include <getopt.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pcl/pcl.h>
#include "cli.h"
/* suggest_word(): the event suggester's rule, for command names */
#include "internal.h"

/* Command flags: PAGED commands write through the pager on a terminal (pager.c). */
enum { PAGED = 1, LATE_PAGER = 2 };

/* LATE_PAGER: main.c's verdict, for the command to act on (cli.h) */
bool cli_pager_wanted;

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	unsigned flags;
};

/* One line per command: others' additions merge line by line. */
/* clang-format off */
static const struct cmd commands[] = {
	{ "stat", cmd_stat },
	{ "record", cmd_record },
	{ "list", cmd_list, PAGED },
	{ "report", cmd_report, PAGED | LATE_PAGER },
	{ "script", cmd_script, PAGED },
	{ "diff", cmd_diff, PAGED },
	{ "annotate", cmd_annotate, PAGED },
	{ "evlist", cmd_evlist },
	{ "data", cmd_data },
	{ "daemon", cmd_daemon },
	{ "help", cmd_help }, /* pages its own text; man(1) pages the manual */
	{ "version", cmd_version },
	{ "buildid-list", cmd_buildid_list, PAGED },
	{ "buildid-cache", cmd_buildid_cache, PAGED },
	{ "inject", cmd_inject },
	{ "archive", cmd_archive },
	{ "probe", cmd_probe },
	{ "top", cmd_top },
	{ "trace", cmd_trace },
	{ "lock", cmd_lock },
	{ "bench", cmd_bench },
};
/* clang-format on */
#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

/* The command line, for PCL_ERROR_LOG. */
static int main_argc;
static char **main_argv;

/*
 * PCL_ERROR_LOG=FILE: every error pcl prints is also appended to FILE, after
 * the command line that printed it. A script written for perf that runs pcl
 * many times (perf's own shell tests, with pcl as perf) can then be checked
 * for calls pcl refused, even where the script hides their stderr.
 */
static void log_error(const char *fmt, va_list ap)
{
	const char *path = getenv("PCL_ERROR_LOG");
	FILE *f;

	if (!path || !*path || !(f = fopen(path, "ae")))
		return;
	for (int i = 0; i < main_argc; i++)
		fprintf(f, "%s%s", i ? " " : "", main_argv[i]);
	fputs("\n\tpcl: ", f);
	vfprintf(f, fmt, ap);
	fputc('\n', f);
	fclose(f);
}

void die_msg(const char *fmt, ...)
{
	va_list ap;

	fputs("pcl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	va_start(ap, fmt);
	log_error(fmt, ap);
	va_end(ap);
}

int add_string(char ***v, int *n, char *s)
{
	char **p = realloc(*v, sizeof(*p) * (size_t)(*n + 1));

	if (!p) {
		die_msg("out of memory");
		return -1;
	}
	*v = p;
	(*v)[(*n)++] = s;
	return 0;
}

int parse_target_opt(struct pcl_target *t, int c, char *arg)
{
	int *cpus = NULL, n;

	switch (c) {
	case 'p':
		t->pid = arg;
		return 1;
	case 't':
		t->tid = arg;
		return 1;
	case 'a':
		t->system_wide = true;
		return 1;
	case 'C':
		/* checked here, once for every command: a bad list is a usage error */
		n = pcl_parse_cpu_list(arg, &cpus);
		free(cpus);
		if (n < 0) {
			die_msg("%s", pcl_last_error());
			return -1;
		}
		t->cpu_list = arg;
		return 1;
	case 'i':
		t->no_inherit = true;
		return 1;
	}
	return 0;
}

int list_split(struct list *l, const char *arg)
{
	char *s, *tok, *save = NULL;

	list_free(l);
	l->arg = s = strdup(arg);
	if (!s) {
		die_msg("out of memory");
		return -1;
	}
	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (add_string(&l->v, &l->n, tok)) {
			die_msg("out of memory");
			return -1;
		}
	}
	return 0;
}

bool list_has(const struct list *l, const char *s)
{
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return true;
	return false;
}

bool list_has_int(const struct list *l, long v)
{
	for (int i = 0; i < l->n; i++)
		if (strtol(l->v[i], NULL, 0) == v)
			return true;
	return false;
}

void list_free(struct list *l)
{
	free(l->v);
	free(l->arg);
	l->v = NULL;
	l->arg = NULL;
	l->n = 0;
}

bool sample_lists_pass(const struct sample_lists *l, const struct pcl_resolved *rs)
{
	const struct pcl_frame *f = &rs->ip;

	if (l->comm.n && !list_has(&l->comm, rs->thread->comm))
		return false;
	if (l->pid.n && !list_has_int(&l->pid, rs->thread->pid))
		return false;
	if (l->tid.n && !list_has_int(&l->tid, rs->thread->tid))
		return false;
	if (l->dso.n && (!f->map || (!list_has(&l->dso, f->map->dso->short_name) &&
				     !list_has(&l->dso, f->map->dso->name))))
		return false;
	if (l->symbols.n && (!f->sym || !list_has(&l->symbols, f->sym->name)))
		return false;
	return true;
}

void sample_lists_free(struct sample_lists *l)
{
	list_free(&l->comm);
	list_free(&l->pid);
	list_free(&l->tid);
	list_free(&l->dso);
	list_free(&l->symbols);
}

int option_error(const char *cmd, int c, char **argv)
{
	if (c == ':')
		die_msg("option '%s' needs a value; see 'pcl %s -h'", argv[optind - 1], cmd);
	else
		die_msg("unknown option '%s'; see 'pcl %s -h'", argv[optind - 1], cmd);
	return -1;
}

int cmd_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("pcl version %s\n", pcl_version());
	return 0;
}

/* pcl --list-cmds: the command names on one line, for shell completion (as perf). */
static int list_cmds(void)
{
	for (size_t i = 0; i < NR_COMMANDS; i++)
		printf("%s%s", i ? " " : "", commands[i].name);
	putchar('\n');
	return 0;
}

static const struct cmd *find_cmd(const char *name)
{
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

/* An unknown command: the closest known one, as git's "did you mean". */
static int unknown_cmd(const char *name)
{
	const char *names[NR_COMMANDS + 1];
	const char *best;

	for (size_t i = 0; i < NR_COMMANDS; i++)
		names[i] = commands[i].name;
	names[NR_COMMANDS] = NULL;
	best = suggest_word(name, names);
	if (best)
		die_msg("'%s' is not a pcl command; did you mean '%s'?", name, best);
	else
		die_msg("'%s' is not a pcl command; see 'pcl help'", name);
	return EXIT_USAGE;
}

/*
 * Whether ARGS leave the terminal to something else: --help (man(1) brings
 * its own pager), or -o FILE (report's and diff's exports write there, and
 * an empty pager screen would only be in the way).
 */
static bool args_want_no_pager(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-o") ||
		    !strncmp(argv[i], "--output", 8))
			return true;
	return false;
}

/*
 * The global options, before the command's name: -1 to go on to the
 * command (argv[*next] is its name), or the exit status. Read by hand, not
 * with getopt_long: glibc's getopt keeps the ordering ('+') of its first
 * scan, which would then be the commands' too.
 */
static int global_options(int argc, char **argv, int *pager, int *next)
{
	/* clang-format off */
	static const struct option global[] = {
		{ "version", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "no-pager", no_argument, NULL, 'P' },
		{ "paginate", no_argument, NULL, 'p' },
		{ "list-cmds", no_argument, NULL, 'L' },
		{ NULL, 0, NULL, 0 },
	};
	/* clang-format on */
	int i;

	if (argc == 2 && !strcmp(argv[1], "--list-opts")) {
		/* the wrapper prints the table and exits */
		cli_list_opts = true;
		getopt_long(argc, argv, "", global, NULL);
	}
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--version") || !strcmp(a, "-v"))
			return cmd_version(0, NULL);
		if (!strcmp(a, "--help") || !strcmp(a, "-h"))
			return cmd_help(argc - i, argv + i);
		if (!strcmp(a, "--list-cmds"))
			return list_cmds();
		if (!strcmp(a, "--no-pager")) {
			*pager = 0;
			pager_disable();
		} else if (!strcmp(a, "--paginate") || !strcmp(a, "-p")) {
			*pager = 1;
		} else if (!strncmp(a, "--buildid-dir", 13) && (!a[13] || a[13] == '=')) {
			/* perf's: the build-id cache every command uses */
			if (buildid_dir_set(a[13] ? a + 14 : i + 1 < argc ? argv[++i] : NULL))
				return EXIT_USAGE;
		} else {
			die_msg("unknown option '%s'; see 'pcl help'", a);
			return EXIT_USAGE;
		}
	}
	if (i >= argc) {
		print_usage(NULL, stdout);
		return EXIT_USAGE;
	}
	*next = i;
	return -1;
}

int main(int argc, char **argv)
{
	int pager = -1, next = 1, ret;
	const struct cmd *cmd;

	main_argc = argc;
	main_argv = argv;
	/* numbers group by the locale's thousands separator, like perf's -B */
	setlocale(LC_NUMERIC, "");
	ret = global_options(argc, argv, &pager, &next);
	if (ret >= 0)
		return ret;
	buildid_dir_export();
	argc -= next;
	argv += next;
	cmd = find_cmd(argv[0]);
	if (!cmd)
		return unknown_cmd(argv[0]);
	cli_cmd = cmd->name;
	if (argc > 1 && !strcmp(argv[1], "--list-opts")) {
		/* the command's first getopt_long prints its options and exits */
		cli_list_opts = true;
		if (cmd->fn == cmd_help || cmd->fn == cmd_version)
			return 0;
		argc = 2;
	}
	if (pager < 0 && (cmd->flags & LATE_PAGER)) {
		/* the command decides once it knows whether it writes text */
		cli_pager_wanted = !args_want_no_pager(argc, argv) && !cli_list_opts;
		pager = 0;
	}
	if (pager < 0)
		pager = (cmd->flags & PAGED) && !args_want_no_pager(argc, argv);
	if (pager && !cli_list_opts)
		setup_pager();
	return cmd->fn(argc, argv);
}
