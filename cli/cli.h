/* SPDX-License-Identifier: MIT */
/* What the subcommands share: their entry points, usage text and messages. */
#ifndef PCL_CLI_H
#define PCL_CLI_H

#include <getopt.h>
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
int cmd_evlist(int argc, char **argv);
int cmd_data(int argc, char **argv);
int cmd_daemon(int argc, char **argv);
/* perf's input when no -i: "-" when standard input is a pipe, else "perf.data" (cmd-evlist.c). */
const char *default_input(void);
int cmd_help(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_buildid_list(int argc, char **argv);
int cmd_buildid_cache(int argc, char **argv);
int cmd_inject(int argc, char **argv);
int cmd_archive(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_lock(int argc, char **argv);
int cmd_bench(int argc, char **argv);

/*
 * The build-id cache (cli/cmd-buildid-cache.c): the global --buildid-dir
 * option (0, or -1 with the error printed) and the default handed on as
 * $PERF_BUILDID_DIR; the directory in use into @buf (0 or -1); and
 * record's fill of the cache from the BUILD_ID table of the file it wrote.
 */
int buildid_dir_set(const char *dir);
void buildid_dir_export(void);
int buildid_dir(char *buf, size_t size);
void buildid_cache_record(const char *path);
/*
 * What pcl buildid-list prints for the recording @path, one @emit call per
 * file: its BUILD_ID table, or (@with_hits, or no table) the files with
 * samples. 0, or -1 with the error printed.
 */
int buildid_list_read(const char *path, bool with_hits, bool force,
		      void (*emit)(void *ctx, const uint8_t *id, int size, const char *name),
		      void *ctx);

/* Print a subcommand's usage to @out; returns 0, or -1 for an unknown command. */
int print_usage(const char *cmd, FILE *out);

/*
 * Every command parses its options with getopt_long, which this routes
 * through cli_getopt_long (cmd-help.c) so that all of them, with no code of
 * their own, answer two requests as perf's do:
 *   pcl CMD --list-opts   print the long options of CMD's table on one line
 *                         and exit 0 (main.c sets cli_list_opts; for shell
 *                         completion, scripts/pcl-completion.bash)
 *   pcl CMD --help        show the man page pcl-CMD(1) when one is installed
 *                         (-h, and --help without a page, print the usage)
 * cli_cmd is the command main.c dispatched to ("stat" for "stat record").
 */
extern const char *cli_cmd;
extern bool cli_list_opts;
int cli_getopt_long(int argc, char *const argv[], const char *optstring,
		    const struct option *longopts, int *longindex);
#define getopt_long cli_getopt_long
/* Run man(1) on pcl-@cmd (pcl for NULL) if that page is installed; returns if not. */
void show_man_page(const char *cmd);

/*
 * The pager (pager.c): on a terminal, start PCL_PAGER / PERF_PAGER / PAGER /
 * less and make stdout its pipe; pcl waits for it at exit. 0, or a negative
 * errno when it could not start (output then goes to the terminal).
 * pager_active(): whether output goes through one (so colours are wanted).
 */
int setup_pager(void);
bool pager_active(void);
/* --no-pager: setup_pager() does nothing from now on. */
void pager_disable(void);
/*
 * A LATE_PAGER command (report: not under its browser) starts the pager
 * itself, when it writes text and this is true (main.c: a PAGED command's rule).
 */
extern bool cli_pager_wanted;

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

/*
 * Whether stdout gets perf's colours (report, annotate, diff): not when
 * NO_COLOR is set to anything but "" (no-color.org), else when stdout is a
 * terminal or goes through the pager. Commands with perf's --stdio-color always|never|auto ask this
 * for auto (and without the option).
 */
bool cli_use_color(void);
/* --stdio-color's MODE (NULL: always, perf's default) into *@out: 0, or -1 with the error said. */
int cli_color_mode(const char *arg, int *out);
/* A percentage, 0 to 100, with or without '%' (--percent-limit); 0, or -1 after die_msg. */
int cli_parse_percent(const char *arg, double *v);
/* The colour decision for a mode from cli_color_mode (-1: auto). */
bool cli_color(int mode);

/* "pcl: " + message + newline on stderr. */
void die_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
