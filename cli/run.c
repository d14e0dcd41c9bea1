/* SPDX-License-Identifier: MIT */
/* Running a target for stat and record (see run.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "run.h"

volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The thread group (process) of thread @tid, from /proc; 0 if unknown. */
static pid_t tgid_of(pid_t tid)
{
	char path[64], line[128];
	pid_t tgid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

/*
 * -p PID names a process, perf's way: PID may be any of its threads (the
 * events go on all of them), so the run lasts as long as the process.
 * Without a pidfd (the process already ended and was reaped, as a target
 * can between its events being opened and this; or a kernel before 5.3) it
 * is watched through /proc like a thread: a target gone this early must
 * end the run, not leave it waiting for a signal.
 */
void watch_pidfd(struct watch *w, pid_t pid)
{
	int fd = -1;
	pid_t tgid;

	if (w->nfds >= 64)
		return;
	fd = (int)syscall(SYS_pidfd_open, pid, 0);
	/*
	 * not a thread group's leader (EINVAL, ENOENT since Linux 6.9): its
	 * process is what to watch
	 */
	if (fd < 0 && (errno == EINVAL || errno == ENOENT) && (tgid = tgid_of(pid)) > 0 &&
	    tgid != pid)
		fd = (int)syscall(SYS_pidfd_open, pid = tgid, 0);
	if (fd >= 0) {
		w->pidfds[w->nfds] = fd;
		w->fds[w->nfds].fd = fd;
		w->fds[w->nfds++].events = POLLIN;
	} else if (w->ntids < 64) {
		w->tids[w->ntids++] = pid;
	}
}

void watch_pids(struct watch *w, const char *list, bool threads)
{
	const char *s = list;

	while (s && *s) {
		long pid = strtol(s, NULL, 10);

		if (!threads)
			watch_pidfd(w, (pid_t)pid);
		else if (w->ntids < 64)
			w->tids[w->ntids++] = (pid_t)pid;
		s = strchr(s, ',');
		if (s)
			s++;
	}
}

bool watch_done(struct watch *w)
{
	char path[64];
	int alive = 0;

	if (w->workload)
		return false;
	for (int i = 0; i < w->nfds; i++) {
		/* an ended process's pidfd polls ready for ever: no longer polled */
		if (w->fds[i].revents & (POLLIN | POLLHUP | POLLERR))
			w->fds[i].fd = -1;
		alive += w->fds[i].fd >= 0;
	}
	for (int i = 0; i < w->ntids; i++) {
		snprintf(path, sizeof(path), "/proc/%d", (int)w->tids[i]);
		alive += access(path, F_OK) == 0;
	}
	return (w->nfds || w->ntids) && !alive;
}

void watch_unpoll(const struct watch *w, struct pollfd *fds)
{
	for (int i = 0; i < w->nfds; i++)
		fds[i].fd = w->fds[i].fd;
}

void unpoll_hung_up(struct pollfd *fds, int n)
{
	for (int i = 0; i < n; i++)
		if (fds[i].revents & (POLLHUP | POLLERR))
			fds[i].fd = -1;
}

void watch_close(struct watch *w)
{
	for (int i = 0; i < w->nfds; i++)
		close(w->pidfds[i]);
	w->nfds = 0;
}

bool reap(struct run *r, int options)
{
	int ret;

	if (!r->wl || r->exited)
		return r->exited;
	ret = pcl_workload__wait(r->wl, &r->status, options);
	if (ret > 0)
		r->exited = true;
	return r->exited;
}

int run_exit_code(const struct run *r, const char *cmd)
{
	if (WIFEXITED(r->status))
		return WEXITSTATUS(r->status);
	if (WIFSIGNALED(r->status)) {
		if (WTERMSIG(r->status) != SIGINT)
			fprintf(stderr, "%s: %s\n", cmd, strsignal(WTERMSIG(r->status)));
		return 128 + WTERMSIG(r->status);
	}
	return 1;
}

void run_signals_setup(sigset_t *waitmask)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, waitmask);
	sigdelset(waitmask, SIGINT);
	sigdelset(waitmask, SIGTERM);
}

void run_signals_reraise(void)
{
	sigset_t block;

	if (!got_signal)
		return;
	fflush(NULL);
	signal(got_signal, SIG_DFL);
	sigemptyset(&block);
	sigaddset(&block, got_signal);
	sigprocmask(SIG_UNBLOCK, &block, NULL);
	raise(got_signal);
}
