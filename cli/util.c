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
