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

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
};

static const struct cmd commands[] = {
	{ "stat", cmd_stat }, { "record", cmd_record },	  { "list", cmd_list },
	{ "report", cmd_report },
	{ "script", cmd_script },
	{ "diff", cmd_diff },
	{ "annotate", cmd_annotate },
	{ "evlist", cmd_evlist },
	{ "data", cmd_data },
	{ "daemon", cmd_daemon },
	{ "help", cmd_help }, { "version", cmd_version },
};

void die_msg(const char *fmt, ...)
{
	va_list ap;

	fputs("pcl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
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

int main(int argc, char **argv)
{
	const char *name;

	/* numbers group by the locale's thousands separator, like perf's -B */
	setlocale(LC_NUMERIC, "");
	if (argc < 2) {
		print_usage(NULL, stdout);
		return EXIT_USAGE;
	}
	name = argv[1];
	if (!strcmp(name, "--version") || !strcmp(name, "-v"))
		return cmd_version(argc - 1, argv + 1);
	if (!strcmp(name, "--help") || !strcmp(name, "-h"))
		return cmd_help(argc - 1, argv + 1);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(name, commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	die_msg("'%s' is not a pcl command; see 'pcl help'", name);
	return EXIT_USAGE;
}
