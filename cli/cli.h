/* SPDX-License-Identifier: MIT */
/* What the subcommands share: their entry points, usage text and messages. */
#ifndef PCL_CLI_H
#define PCL_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Exit status of a bad command line. perf uses 129, which reads as "killed
 * by SIGHUP" next to the 128+N that pcl stat returns for a command killed
 * by signal N; 2 is the usual status of a usage error.
 */
#define EXIT_USAGE 2

int cmd_stat(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_script(int argc, char **argv);
struct input;
struct pcl_script;
/* -D of pcl script and pcl report (cmd-script.c): the exit status. */
int dump_raw_trace(struct input *in, struct pcl_script *s);
int cmd_diff(int argc, char **argv);
int cmd_annotate(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_version(int argc, char **argv);

/* Print a subcommand's usage to @out; returns 0, or -1 for an unknown command. */
int print_usage(const char *cmd, FILE *out);

/* Append @s to a growable array of strings (not copied). 0 or -1 (out of memory). */
int add_string(char ***v, int *n, char *s);

/* A comma-separated list given to an option (--comm a,b): its items point into arg. */
struct list {
	char **v;
	int n;
	char *arg;
};
/* Replace @l's items with those of @arg. 0, or -1 with the error printed. */
int list_split(struct list *l, const char *arg);
bool list_has(const struct list *l, const char *s);
/* Whether an item, read as a number (strtol base 0), is @v. */
bool list_has_int(const struct list *l, long v);
void list_free(struct list *l);

/* The sample filters report and diff share: --comm, --pid, --tid, --dso, --symbols. */
struct sample_lists {
	struct list comm, pid, tid, dso, symbols;
};
struct pcl_resolved;
/* Whether @rs passes every non-empty list (a DSO by short or full name). */
bool sample_lists_pass(const struct sample_lists *l, const struct pcl_resolved *rs);
void sample_lists_free(struct sample_lists *l);

/*
 * The target options stat and record share: -p, -t, -a, -C, -i. Returns 1
 * when @c was one of them (and @t took it), 0 when it was not, -1 for a bad
 * value (the message is printed).
 */
struct pcl_target;
int parse_target_opt(struct pcl_target *t, int c, char *arg);
/* The message for getopt's ':' (missing value) or '?' (unknown option); returns -1. */
int option_error(const char *cmd, int c, char **argv);

/*
 * A whole number option in [@min, @max] (@base as strtoull's; no sign, no
 * spaces, no junk, no overflow) into @out. false, with @out unset, if not:
 * the caller says what it wanted.
 */
bool parse_uint(const char *arg, int base, uint64_t min, uint64_t max, uint64_t *out);

/*
 * Output to stdout: after output_catch_sigpipe(), a reader that goes away
 * (| head) makes writes fail instead of killing pcl, and
 * output_reader_gone() says so. stdout_finish(@ret) flushes stdout and
 * returns the exit status: @ret, 0 instead of 1 when the reader went away
 * (a quiet end), or 1 after printing the write error (a full disk).
 */
void output_catch_sigpipe(void);
bool output_reader_gone(void);
int stdout_finish(int ret);

/* "pcl: " + message + newline on stderr. */
void die_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
