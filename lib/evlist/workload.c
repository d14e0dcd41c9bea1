/* SPDX-License-Identifier: MIT */
/*
 * A workload started by libpcl, counted from its exec.
 *
 * Protocol: prepare() forks a child that blocks reading a "go" socket, so the
 * parent can open counters on its pid with enable_on_exec before it runs
 * anything. start() sends the go byte (MSG_NOSIGNAL: a child that died
 * meanwhile is an error, not a SIGPIPE that kills the caller) and then reads an "exec error" pipe
 * that the child holds open with O_CLOEXEC: end-of-file means exec
 * succeeded (the pipe closed itself); an int means exec failed with that
 * errno, and the child exits 127 as a shell would.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include "internal.h"
#include "pmu/tool.h"
#include "pmu/sources.h"

struct pcl_workload {
	pid_t pid;
	int go_fd;  /* write end of the go pipe, -1 once started */
	int err_fd; /* read end of the exec-error pipe */
	bool started, reaped;
	struct rusage ru;
};

static void child(char *const argv[], int go_rd, int err_wr)
{
	char c;
	int e;
	ssize_t n;

	do {
		n = read(go_rd, &c, 1);
	} while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(127); /* the parent went away before starting us */
	close(go_rd);
	{
		/* the parent may block signals around its waits; the command must not inherit that
		 */
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
	}
	execvp(argv[0], argv);
	e = errno;
	if (write(err_wr, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

PCL_API struct pcl_workload *pcl_workload__prepare(char *const argv[])
{
	struct pcl_workload *wl;
	int go[2], err[2];

	if (!argv || !argv[0])
		return pcl_err_null(EINVAL, "pcl_workload__prepare: invalid argument");
	wl = calloc(1, sizeof(*wl));
	if (!wl)
		return pcl_err_null(ENOMEM, "pcl_workload__prepare: out of memory");
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, go)) {
		int e = errno;

		free(wl);
		return pcl_err_null(e, "pcl_workload__prepare: socketpair: %s", strerror(e));
	}
	if (pipe2(err, O_CLOEXEC)) {
		int e = errno;

		close(go[0]);
		close(go[1]);
		free(wl);
		return pcl_err_null(e, "pcl_workload__prepare: pipe: %s", strerror(e));
	}
	wl->pid = fork();
	if (wl->pid < 0) {
		int e = errno;

		close(go[0]);
		close(go[1]);
		close(err[0]);
		close(err[1]);
		free(wl);
		return pcl_err_null(e, "pcl_workload__prepare: fork: %s", strerror(e));
	}
	if (wl->pid == 0) {
		close(go[1]);
		close(err[0]);
		child(argv, go[0], err[1]);
	}
	close(go[0]);
	close(err[1]);
	wl->go_fd = go[1];
	wl->err_fd = err[0];
	return wl;
}

PCL_API pid_t pcl_workload__pid(const struct pcl_workload *wl)
{
	return wl ? wl->pid : -1;
}

PCL_API int pcl_workload__start(struct pcl_workload *wl)
{
	char c = 'g';
	int e = 0;
	ssize_t n;

	if (!wl || wl->started)
		return pcl_err(EINVAL, "pcl_workload__start: invalid argument");
	wl->started = true;
	n = send(wl->go_fd, &c, 1, MSG_NOSIGNAL);
	close(wl->go_fd);
	wl->go_fd = -1;
	if (n != 1)
		return pcl_err(ECHILD, "workload %d went away before it started", (int)wl->pid);
	do {
		n = read(wl->err_fd, &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	close(wl->err_fd);
	wl->err_fd = -1;
	if (n == (ssize_t)sizeof(e))
		return -(e ? e : ENOEXEC);
	return 0;
}

/*
 * Wait as wait4() with @options would, but leave the child unreaped
 * (WNOWAIT); if it has exited, let proc/ snapshot its /proc/PID/io, which
 * the reap removes. Returns 1 when wait4() will find something, 0 with
 * WNOHANG when nothing happened yet, or -errno.
 */
static int peek_exit(struct pcl_workload *wl, int options)
{
	siginfo_t si;
	int wopts = WEXITED | WNOWAIT | (options & (WNOHANG | WCONTINUED | __WALL | __WCLONE));

	if (options & WUNTRACED)
		wopts |= WSTOPPED;
	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)wl->pid, &si, wopts) < 0)
		return -errno;
	if (si.si_pid == 0)
		return 0;
	if (si.si_code == CLD_EXITED || si.si_code == CLD_KILLED || si.si_code == CLD_DUMPED)
		procfs_pmu_note_exit(wl->pid);
	return 1;
}

PCL_API int pcl_workload__wait(struct pcl_workload *wl, int *status, int options)
{
	pid_t r;
	int st = 0;

	if (!wl)
		return pcl_err(EINVAL, "pcl_workload__wait: invalid argument");
	if (wl->reaped)
		return pcl_err(ECHILD, "pcl_workload__wait: the workload was not reaped");
	r = peek_exit(wl, options);
	if (r <= 0)
		return r;
	r = wait4(wl->pid, &st, options, &wl->ru);
	if (r < 0)
		return pcl_err(errno, "pcl_workload__wait: %m");
	if (r == 0)
		return 0; /* WNOHANG and still running */
	if (WIFEXITED(st) || WIFSIGNALED(st)) {
		wl->reaped = true;
		tool_pmu_note_rusage(wl->pid, &wl->ru);
		procfs_pmu_note_rusage(wl->pid, &wl->ru);
	}
	if (status)
		*status = st;
	return (int)r;
}

PCL_API int pcl_workload__rusage(const struct pcl_workload *wl, struct rusage *ru)
{
	if (!wl || !ru)
		return pcl_err(EINVAL, "pcl_workload__rusage: invalid argument");
	if (!wl->reaped)
		return pcl_err(ECHILD, "pcl_workload__rusage: the workload was not reaped");
	*ru = wl->ru;
	return 0;
}

PCL_API void pcl_workload__free(struct pcl_workload *wl)
{
	if (!wl)
		return;
	if (wl->go_fd >= 0)
		close(wl->go_fd); /* an unstarted child reads EOF and exits 127 */
	if (wl->err_fd >= 0)
		close(wl->err_fd);
	if (!wl->reaped) {
		if (wl->started)
			kill(wl->pid, SIGKILL);
		while (waitpid(wl->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	free(wl);
}
