/* SPDX-License-Identifier: MIT */
/*
 * Running a target for stat and record: the workload or pids whose end ends
 * the run, and the signals that end it early.
 */
#ifndef PCL_CLI_RUN_H
#define PCL_CLI_RUN_H

#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <pcl/pcl.h>

/* The signal (SIGINT/SIGTERM) that asked us to stop, or 0. */
extern volatile sig_atomic_t got_signal;

uint64_t now_ns(void);

/*
 * What ends the run: pidfds to poll (the workload's, or each -p process's),
 * and -t threads, which have no pidfd and are checked through /proc.
 */
struct watch {
	struct pollfd fds[64];	/* fd -1 once its process ended */
	int pidfds[64];
	int nfds;
	bool workload;		/* fds[0] is the workload's: its end is seen by reaping */
	pid_t tids[64];
	int ntids;
};

void watch_pidfd(struct watch *w, pid_t pid);
void watch_pids(struct watch *w, const char *list, bool threads);
/*
 * Every watched process and thread has ended. Reads the fds' revents; the
 * fd of a process that ended becomes -1 in w->fds, so that a poll over it
 * does not return at once for ever (and, a ppoll, without running the
 * handler of the signal that should end the run).
 */
bool watch_done(struct watch *w);
/* FDS, a copy of w->fds at the head of a larger poll set, takes those -1s. */
void watch_unpoll(const struct watch *w, struct pollfd *fds);
void watch_close(struct watch *w);
/*
 * Stop polling the ring fds among FDS that hung up (their task ended): they
 * poll ready for ever, and a ppoll that returns at once never runs the
 * handler of a signal it unblocks, so the loop would spin deaf to SIGTERM.
 * Their rings are still drained.
 */
void unpoll_hung_up(struct pollfd *fds, int n);

struct run {
	struct pcl_workload *wl;
	struct watch watch;
	int status;		/* waitpid status of the workload */
	bool exited;
	uint64_t start_ns;
	uint64_t last_ns;	/* stat -I: end of the last printed interval */
	bool intervals_done;	/* stat --interval-count: the counts stop at the last interval */
};

/* Reap the workload if it ended; true when it has. */
bool reap(struct run *r, int options);
/* The exit code for a reaped workload: its status, or 128+N for signal N (named on stderr). */
int run_exit_code(const struct run *r, const char *cmd);

/*
 * Catch SIGINT/SIGTERM into got_signal and block them outside ppoll():
 * @waitmask is the mask to give ppoll so they wake it, and only it.
 */
void run_signals_setup(sigset_t *waitmask);
/* If a signal stopped us, die by it as perf does (after output is flushed). */
void run_signals_reraise(void);

#endif
