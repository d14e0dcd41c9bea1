/* SPDX-License-Identifier: MIT */
/*
 * pcl bench: perf bench's scheduler benchmarks, with its output.
 *
 *   sched messaging   hackbench: groups of 20 senders and 20 receivers
 *                     (processes, or threads with -t) over socketpairs
 *                     (or pipes with -p); each sender writes -l messages
 *                     of 100 bytes to each receiver of its group. The time
 *                     runs from the moment every worker is ready (they
 *                     wait on one pipe) to the last one's end.
 *   sched pipe        two processes (threads with -T) pass a word back
 *                     and forth over two pipes -l times.
 *
 * Workloads for pcl lock and pcl stat (perf's lock_contention.sh runs
 * `perf bench sched messaging` under perf lock): they load the kernel's
 * socket, pipe and scheduler locks.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli.h"

#define MSG_FDS 20	 /* senders and receivers per group */
#define MSG_SIZE 100	 /* bytes per message */

enum { FMT_DEFAULT, FMT_SIMPLE };

struct bench_common {
	int format;
	unsigned int repeat;
};

/* ---- sched messaging ---- */

struct msg_opts {
	unsigned int groups, loops;
	bool pipes, threads;
};

/* What one worker needs: the start pipe and its fds. */
struct msg_worker {
	int ready_fd, wakeup_fd;
	bool sender;
	unsigned int loops;
	int in_fd;		/* receiver */
	int out_fds[MSG_FDS];	/* sender */
	pthread_t tid;
};

static int msg_fail(const char *what)
{
	die_msg("bench sched messaging: %s: %s", what, strerror(errno));
	return -1;
}

/* Tell the main one this worker is ready, and wait for the start. */
static void msg_ready(const struct msg_worker *w)
{
	struct pollfd p = { .fd = w->wakeup_fd, .events = POLLIN };
	char c = 0;

	if (write(w->ready_fd, &c, 1) != 1)
		_exit(1);
	while (poll(&p, 1, -1) < 0 && errno == EINTR)
		;
}

static void *msg_work(void *arg)
{
	struct msg_worker *w = arg;
	char data[MSG_SIZE];

	msg_ready(w);
	if (w->sender) {
		memset(data, 'S', sizeof(data));
		for (unsigned int i = 0; i < w->loops; i++)
			for (int j = 0; j < MSG_FDS; j++) {
				size_t done = 0;

				while (done < sizeof(data)) {
					ssize_t n = write(w->out_fds[j], data + done,
							  sizeof(data) - done);
					if (n < 0 && errno == EINTR)
						continue;
					if (n <= 0)
						_exit(1);
					done += (size_t)n;
				}
			}
	} else {
		size_t left = (size_t)w->loops * MSG_FDS * MSG_SIZE;

		while (left) {
			ssize_t n = read(w->in_fd, data, left < sizeof(data) ? left : sizeof(data));

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				_exit(1);
			left -= (size_t)n;
		}
	}
	return NULL;
}

static int msg_pair(bool pipes, int fds[2])
{
	return pipes ? pipe(fds) : socketpair(AF_UNIX, SOCK_STREAM, 0, fds);
}

/* Start one worker; in process mode @closefds are closed in the child. */
static int msg_start(const struct msg_opts *o, struct msg_worker *w, pid_t *pid)
{
	if (o->threads)
		return pthread_create(&w->tid, NULL, msg_work, w) ? (errno = EAGAIN, -1) : 0;
	*pid = fork();
	if (*pid < 0)
		return -1;
	if (*pid == 0) {
		msg_work(w);
		_exit(0);
	}
	return 0;
}

/*
 * One group: receivers then senders. Their fds are closed here in process
 * mode. *nstarted counts the workers started, also when one fails to start.
 */
static int msg_group(const struct msg_opts *o, struct msg_worker *ws, pid_t *pids,
		     int ready, int wakeup, size_t *nstarted)
{
	int snd[MSG_FDS];

	for (int i = 0; i < MSG_FDS; i++) {
		struct msg_worker *r = &ws[i];
		int fds[2];

		if (msg_pair(o->pipes, fds))
			return msg_fail(o->pipes ? "pipe" : "socketpair");
		*r = (struct msg_worker){ .ready_fd = ready, .wakeup_fd = wakeup,
					  .loops = o->loops, .in_fd = fds[0] };
		snd[i] = fds[1];
		if (msg_start(o, r, &pids[i]))
			return msg_fail("cannot start a receiver");
		(*nstarted)++;
		if (!o->threads)
			close(fds[0]);
	}
	for (int i = 0; i < MSG_FDS; i++) {
		struct msg_worker *s = &ws[MSG_FDS + i];

		*s = (struct msg_worker){ .ready_fd = ready, .wakeup_fd = wakeup,
					  .loops = o->loops, .sender = true };
		memcpy(s->out_fds, snd, sizeof(snd));
		if (msg_start(o, s, &pids[MSG_FDS + i]))
			return msg_fail("cannot start a sender");
		(*nstarted)++;
	}
	if (!o->threads)
		for (int i = 0; i < MSG_FDS; i++)
			close(snd[i]);
	return 0;
}

static void msg_close_fds(struct msg_worker *ws, size_t n)
{
	for (size_t g = 0; g < n; g += 2 * MSG_FDS) {
		for (int i = 0; i < MSG_FDS; i++) {
			close(ws[g + i].in_fd);
			close(ws[g + MSG_FDS].out_fds[i]);
		}
	}
}

/* Run once; the time taken into @tv. 0 or -1 (printed). */
static int msg_run(const struct msg_opts *o, struct timeval *tv)
{
	size_t n = (size_t)o->groups * 2 * MSG_FDS, started = 0;
	struct msg_worker *ws = calloc(n, sizeof(*ws));
	pid_t *pids = calloc(n, sizeof(*pids));
	int ready[2] = { -1, -1 }, wakeup[2] = { -1, -1 }, ret = -1, failed = 0;
	struct timeval start, stop;
	char c = 0;

	if (!ws || !pids) {
		die_msg("out of memory");
		goto out;
	}
	if (pipe(ready) || pipe(wakeup)) {
		msg_fail("pipe");
		goto out;
	}
	for (unsigned int g = 0; g < o->groups && !failed; g++)
		failed = msg_group(o, ws + started, pids + started, ready[1], wakeup[0], &started);
	/* wait until every one started is ready, even after a failure */
	for (size_t i = 0; i < started; i++)
		if (read(ready[0], &c, 1) != 1) {
			msg_fail("read");
			break;
		}
	if (failed) {
		/*
		 * The others of a group that did not start would wait for it
		 * for ever: stop them where they wait for the start (poll is a
		 * cancellation point), before their memory goes.
		 */
		for (size_t i = 0; i < started; i++) {
			if (o->threads) {
				pthread_cancel(ws[i].tid);
				pthread_join(ws[i].tid, NULL);
			} else {
				kill(pids[i], SIGKILL);
				waitpid(pids[i], NULL, 0);
			}
		}
		goto out;
	}
	gettimeofday(&start, NULL);
	if (write(wakeup[1], &c, 1) != 1)
		msg_fail("write");
	for (size_t i = 0; i < started; i++) {
		int st;

		if (o->threads)
			pthread_join(ws[i].tid, NULL);
		else if (waitpid(pids[i], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			started = 0;
	}
	gettimeofday(&stop, NULL);
	if (o->threads)
		msg_close_fds(ws, started);
	timersub(&stop, &start, tv);
	if (started == n)
		ret = 0;
	else
		die_msg("bench sched messaging: a worker failed");
out:
	for (int i = 0; i < 2; i++) {
		if (ready[i] >= 0)
			close(ready[i]);
		if (wakeup[i] >= 0)
			close(wakeup[i]);
	}
	free(ws);
	free(pids);
	return ret;
}

static int bench_messaging(const struct bench_common *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "group", required_argument, NULL, 'g' },
		{ "nr_loops", required_argument, NULL, 'l' },
		{ "pipe", no_argument, NULL, 'p' },
		{ "thread", no_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct msg_opts o = { .groups = 10, .loops = 100 };
	struct timeval tv;
	uint64_t v;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "+:g:l:pth", longopts, NULL)) != -1) {
		switch (opt) {
		case 'g':
		case 'l':
			if (!parse_uint(optarg, 10, 1, 100000, &v)) {
				die_msg("bad %s '%s' (1..100000)", opt == 'g' ? "group count" : "loop count",
					optarg);
				return EXIT_USAGE;
			}
			*(opt == 'g' ? &o.groups : &o.loops) = (unsigned int)v;
			break;
		case 'p': o.pipes = true; break;
		case 't': o.threads = true; break;
		case 'h': print_usage("bench", stdout); return 0;
		default: option_error("bench sched messaging", opt, argv); return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		die_msg("unexpected argument '%s'; see 'pcl bench -h'", argv[optind]);
		return EXIT_USAGE;
	}
	if (c->format == FMT_DEFAULT) {
		printf("# %d sender and receiver %s per group\n", MSG_FDS,
		       o.threads ? "threads" : "processes");
		printf("# %u groups == %u %s run\n\n", o.groups, o.groups * MSG_FDS * 2,
		       o.threads ? "threads" : "processes");
	}
	fflush(stdout);
	if (msg_run(&o, &tv))
		return 1;
	if (c->format == FMT_DEFAULT)
		printf(" %14s: %lu.%03lu [sec]\n", "Total time", (unsigned long)tv.tv_sec,
		       (unsigned long)(tv.tv_usec / 1000));
	else
		printf("%lu.%03lu\n", (unsigned long)tv.tv_sec, (unsigned long)(tv.tv_usec / 1000));
	return 0;
}

/* ---- sched pipe ---- */

struct pipe_side {
	int in, out;
	unsigned int loops;
	bool first; /* writes before it reads */
};

static void *pipe_work(void *arg)
{
	struct pipe_side *s = arg;
	int m = 0;

	for (unsigned int i = 0; i < s->loops; i++) {
		if (s->first && write(s->out, &m, sizeof(m)) != sizeof(m))
			return (void *)1;
		if (read(s->in, &m, sizeof(m)) != sizeof(m))
			return (void *)1;
		if (!s->first && write(s->out, &m, sizeof(m)) != sizeof(m))
			return (void *)1;
	}
	return NULL;
}

/* Run the two sides -l times; the time taken into @tv. 0 or -1 (printed). */
static int pipe_run(unsigned int loops, bool threads, struct timeval *tv)
{
	struct timeval start, stop;
	struct pipe_side a, b;
	int p1[2], p2[2], ret = 0;

	if (pipe(p1) || pipe(p2)) {
		die_msg("bench sched pipe: pipe: %s", strerror(errno));
		return -1;
	}
	a = (struct pipe_side){ .in = p2[0], .out = p1[1], .loops = loops, .first = true };
	b = (struct pipe_side){ .in = p1[0], .out = p2[1], .loops = loops };
	gettimeofday(&start, NULL);
	if (threads) {
		pthread_t t1, t2;
		void *r1 = NULL, *r2 = NULL;

		if (pthread_create(&t1, NULL, pipe_work, &a)) {
			ret = -1;
		} else if (pthread_create(&t2, NULL, pipe_work, &b)) {
			/* the first side waits for the second: give it an end of file */
			close(p2[1]);
			p2[1] = -1;
			pthread_join(t1, NULL);
			ret = -1;
		} else {
			pthread_join(t1, &r1);
			pthread_join(t2, &r2);
			ret = (r1 || r2) ? -1 : 0;
		}
	} else {
		pid_t pid = fork();
		int st;

		if (pid == 0)
			_exit(pipe_work(&b) ? 1 : 0);
		ret = pid < 0 || pipe_work(&a) != NULL ? -1 : 0;
		if (pid > 0 && (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)))
			ret = -1;
	}
	gettimeofday(&stop, NULL);
	for (int i = 0; i < 2; i++) {
		close(p1[i]);
		if (p2[i] >= 0)
			close(p2[i]);
	}
	if (ret)
		die_msg("bench sched pipe: a side failed");
	timersub(&stop, &start, tv);
	return ret;
}

static int bench_pipe(const struct bench_common *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "loop", required_argument, NULL, 'l' },
		{ "threaded", no_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	unsigned int loops = 1000000;
	bool threads = false;
	struct timeval tv;
	uint64_t v;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "+:l:Th", longopts, NULL)) != -1) {
		switch (opt) {
		case 'l':
			if (!parse_uint(optarg, 10, 1, 1000000000, &v)) {
				die_msg("bad loop count '%s'", optarg);
				return EXIT_USAGE;
			}
			loops = (unsigned int)v;
			break;
		case 'T': threads = true; break;
		case 'h': print_usage("bench", stdout); return 0;
		default: option_error("bench sched pipe", opt, argv); return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		die_msg("unexpected argument '%s'; see 'pcl bench -h'", argv[optind]);
		return EXIT_USAGE;
	}
	if (pipe_run(loops, threads, &tv))
		return 1;
	if (c->format == FMT_DEFAULT) {
		uint64_t us = (uint64_t)tv.tv_sec * 1000000 + (uint64_t)tv.tv_usec;
		double per = (double)us / loops;

		printf("# Executed %u pipe operations between two %s\n\n", loops,
		       threads ? "threads" : "processes");
		printf(" %14s: %lu.%03lu [sec]\n\n", "Total time", (unsigned long)tv.tv_sec,
		       (unsigned long)(tv.tv_usec / 1000));
		printf(" %14lf usecs/op\n", per);
		printf(" %14d ops/sec\n", (int)(1000000.0 / per));
	} else {
		printf("%lu.%03lu\n", (unsigned long)tv.tv_sec, (unsigned long)(tv.tv_usec / 1000));
	}
	return 0;
}

/* ---- the command ---- */

static const struct {
	const char *name, *summary;
	int (*fn)(const struct bench_common *c, int argc, char **argv);
} sched_benches[] = {
	{ "messaging", "Benchmark for scheduling and IPC", bench_messaging },
	{ "pipe", "Benchmark for pipe() between two processes", bench_pipe },
};
#define NR_SCHED (sizeof(sched_benches) / sizeof(sched_benches[0]))

static void list_sched(FILE *out)
{
	fprintf(out, "\n        # List of available benchmarks for collection 'sched':\n\n");
	for (size_t i = 0; i < NR_SCHED; i++)
		fprintf(out, "%14s: %s\n", sched_benches[i].name, sched_benches[i].summary);
	fprintf(out, "%14s: %s\n", "all", "Run all scheduler benchmarks");
	fprintf(out, "\n");
}

static int run_one(const struct bench_common *c, size_t i, int argc, char **argv)
{
	int ret = 0;

	for (unsigned int r = 0; r < c->repeat && !ret; r++) {
		if (c->format == FMT_DEFAULT)
			printf("# Running 'sched/%s' benchmark:\n", sched_benches[i].name);
		fflush(stdout);
		ret = sched_benches[i].fn(c, argc, argv);
	}
	return ret;
}

int cmd_bench(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct bench_common c = { .format = FMT_DEFAULT, .repeat = 1 };
	uint64_t v;
	int opt;

	while ((opt = getopt_long(argc, argv, "+:f:r:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			if (!strcmp(optarg, "default")) {
				c.format = FMT_DEFAULT;
			} else if (!strcmp(optarg, "simple")) {
				c.format = FMT_SIMPLE;
			} else {
				die_msg("unknown format '%s' (default or simple)", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'r':
			if (!parse_uint(optarg, 10, 1, 1000000, &v)) {
				die_msg("bad repeat count '%s'", optarg);
				return EXIT_USAGE;
			}
			c.repeat = (unsigned int)v;
			break;
		case 'h': print_usage("bench", stdout); return 0;
		default: option_error("bench", opt, argv); return EXIT_USAGE;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1) {
		print_usage("bench", stdout);
		return 0;
	}
	if (strcmp(argv[0], "sched") && strcmp(argv[0], "all")) {
		die_msg("bench collection '%s' is not supported by pcl (only 'sched'); "
			"see 'pcl bench -h'", argv[0]);
		return EXIT_USAGE;
	}
	if (argc < 2 && strcmp(argv[0], "all")) {
		list_sched(stdout);
		return 0;
	}
	if (!strcmp(argv[0], "all") || !strcmp(argv[1], "all")) {
		int ret = 0;

		for (size_t i = 0; i < NR_SCHED && !ret; i++) {
			char *none[] = { (char *)sched_benches[i].name, NULL };

			ret = run_one(&c, i, 1, none);
			printf("\n");
		}
		return ret;
	}
	for (size_t i = 0; i < NR_SCHED; i++)
		if (!strcmp(argv[1], sched_benches[i].name))
			return run_one(&c, i, argc - 1, argv + 1);
	die_msg("bench 'sched %s' is not supported by pcl (messaging, pipe); see 'pcl bench -h'",
		argv[1]);
	return EXIT_USAGE;
}
