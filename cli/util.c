/* SPDX-License-Identifier: MIT */
/*
 * What the commands share besides main.c's helpers: reading a number
 * option without truncating it, and ending stdout's output the same way
 * everywhere (a write error is an error; a reader that went away is not).
 */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stdio.h>
#include <pcl/evlist.h>
#include <pcl/pmu.h>
#include "cli.h"

bool parse_uint(const char *arg, int base, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	/* strtoull takes "-1" as its wrap-around and skips spaces: neither is a count */
	if (!arg || !isdigit((unsigned char)arg[0]))
		return false;
	errno = 0;
	v = strtoull(arg, &end, base);
	if (*end || errno || v < min || v > max)
		return false;
	*out = v;
	return true;
}

static volatile sig_atomic_t reader_gone;

static void on_sigpipe(int sig)
{
	(void)sig;
	reader_gone = 1;
}

void output_catch_sigpipe(void)
{
	struct sigaction sa = { .sa_handler = on_sigpipe };

	/* a write into a closed pipe fails with EPIPE instead of killing us */
	sigaction(SIGPIPE, &sa, NULL);
}

bool output_reader_gone(void)
{
	return reader_gone;
}

int stdout_finish(int ret)
{
	if (!fflush(stdout) && !ferror(stdout))
		return ret;
	/* | head: the reader has what it wanted, and that is no failure */
	if (reader_gone)
		return ret == 1 ? 0 : ret;
	die_msg("cannot write the output: %s", strerror(errno ? errno : EIO));
	return ret ? ret : 1;
}

bool cli_use_color(void)
{
	const char *nc = getenv("NO_COLOR");

	if (nc && nc[0])
		return false;
	/* a pager on a terminal shows them too, as perf's */
	return pager_active() || isatty(STDOUT_FILENO);
}

int cli_color_mode(const char *arg, int *out)
{
	if (!arg || !strcmp(arg, "always")) {
		*out = 1;
	} else if (!strcmp(arg, "never")) {
		*out = 0;
	} else if (!strcmp(arg, "auto")) {
		*out = -1;
	} else {
		die_msg("bad --stdio-color '%s' (always, never or auto)", arg);
		return -1;
	}
	return 0;
}

bool cli_color(int mode)
{
	return mode < 0 ? cli_use_color() : mode > 0;
}

/*
 * The uprobe/kprobe PMU events of @el that the library opened without
 * inherit (evlist.c's setup_attr: the kernel would fail every fork of the
 * target): one note each, since threads and children started later are
 * not counted. Nothing when the user asked for that (-i).
 */
void note_probe_no_inherit(const struct pcl_evlist *el, bool no_inherit)
{
	if (no_inherit)
		return;
	for (int i = 0; i < pcl_evlist__nr(el); i++) {
		const struct pcl_event *ev = pcl_evlist__event(el, i);
		const char *pn = ev && ev->pmu ? pcl_pmu__name(ev->pmu) : NULL;
		struct perf_event_attr *a = pcl_evlist__attr((struct pcl_evlist *)el, i);

		if (!pn || !a || a->inherit || (strcmp(pn, "uprobe") && strcmp(pn, "kprobe")) ||
		    pcl_evlist__nr_threads(el) < 1 || pcl_evlist__thread(el, 0) == -1)
			continue;
		fprintf(stderr,
			"pcl: note: '%s': the %s PMU cannot follow the threads and processes "
			"started after it opens (the kernel would fail their fork): only the "
			"threads there are now are counted; for all of them add a probe with "
			"pcl probe and use -e probe_BIN:FUNC\n",
			ev->name, pn);
	}
}

int cli_parse_percent(const char *arg, double *v)
{
	char *end;

	*v = strtod(arg, &end);
	if (*end == '%')
		end++;
	if (*end || end == arg || *v < 0 || *v > 100) {
		die_msg("bad percentage '%s' (expected 0 to 100)", arg);
		return -1;
	}
	return 0;
}
