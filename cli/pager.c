/* SPDX-License-Identifier: MIT */
/*
 * The pager: on a terminal, the reading commands (report, script, list,
 * annotate, diff, help) write through a pager, as perf and git do.
 *
 * Which one: PCL_PAGER, then PERF_PAGER (a perf user's setting carries
 * over), then PAGER, then "less"; an empty value or "cat" means none. LESS
 * defaults to FRX as in git: quit when the output fits on a screen (F), pass
 * colours (R), leave the screen as it is on exit (X).
 *
 * Protocol: setup_pager() runs the pager through "sh -c" with a pipe on its
 * stdin and makes that pipe pcl's stdout. stderr stays on the terminal, so
 * errors and warnings are never lost in a pager that discards them. At exit
 * (atexit) and on a fatal signal, pcl closes its end of the pipe and waits
 * for the pager: the shell prompt comes back only when the pager is done,
 * and pcl's exit status is its own. A pager that quits early makes pcl's
 * writes fail with EPIPE, which the commands take as a quiet end (util.c).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli.h"

static pid_t pager_pid = -1;
static bool disabled;

void pager_disable(void)
{
	disabled = true;
}

bool pager_active(void)
{
	return pager_pid > 0;
}

/* The pager to run, or NULL for none. */
static const char *pager_command(void)
{
	static const char *const vars[] = { "PCL_PAGER", "PERF_PAGER", "PAGER" };
	const char *p = NULL;

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]) && !p; i++)
		p = getenv(vars[i]);
	if (!p)
		p = "less";
	p += strspn(p, " \t");
	if (!*p || !strcmp(p, "cat"))
		return NULL;
	return p;
}

static void wait_for_pager(void)
{
	int status;

	if (pager_pid <= 0)
		return;
	/* EOF for the pager: it shows the rest and waits for the user */
	fflush(stdout);
	close(STDOUT_FILENO);
	while (waitpid(pager_pid, &status, 0) < 0 && errno == EINTR)
		;
	pager_pid = -1;
}

static void wait_for_pager_atexit(void)
{
	wait_for_pager();
}

static void wait_for_pager_signal(int sig)
{
	int status;

	/* only what is async-signal-safe: no stdio */
	if (pager_pid > 0) {
		close(STDOUT_FILENO);
		while (waitpid(pager_pid, &status, 0) < 0 && errno == EINTR)
			;
		pager_pid = -1;
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

int setup_pager(void)
{
	static const int sigs[] = { SIGINT, SIGHUP, SIGTERM, SIGQUIT };
	const char *cmd;
	int fd[2];
	pid_t pid;

	if (disabled || pager_pid > 0 || !isatty(STDOUT_FILENO))
		return 0;
	cmd = pager_command();
	if (!cmd)
		return 0;
	if (pipe(fd))
		return -errno;
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return -errno;
	}
	if (!pid) {
		dup2(fd[0], STDIN_FILENO);
		close(fd[0]);
		close(fd[1]);
		setenv("LESS", "FRX", 0);
		/* lv, another pager: let it pass colours as less -R does */
		setenv("LV", "-c", 0);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		fprintf(stderr, "pcl: cannot run the pager '%s': %s\n", cmd, strerror(errno));
		_exit(127);
	}
	dup2(fd[1], STDOUT_FILENO);
	close(fd[0]);
	close(fd[1]);
	pager_pid = pid;
	atexit(wait_for_pager_atexit);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old, sa = { .sa_handler = wait_for_pager_signal };

		/* a command's own handler (set later) takes precedence */
		if (!sigaction(sigs[i], NULL, &old) && old.sa_handler == SIG_DFL)
			sigaction(sigs[i], &sa, NULL);
	}
	return 0;
}
