/*
 * forks [N [MS [list]]]: fork N children one after another (default 3),
 * each burning CPU for about MS milliseconds (default 150), and wait for
 * them all. Even children stay in this program and rename themselves
 * "fk-child-K" (prctl PR_SET_NAME); odd children exec this program again
 * as "forks --burn MS K", which renames itself "fk-exec-K" after the exec.
 * With "list", the parent prints "PARENT_PID main" then "CHILD_PID COMM"
 * for each child on stdout, so a test knows every pid and comm to expect.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) void child_burn(double ms)
{
	double end = now_ms() + ms;
	unsigned long i;

	do
		for (i = 0; i < 20000; i++)
			sink += i ^ (sink >> 3);
	while (now_ms() < end);
}

static void rename_self(const char *prefix, long k)
{
	char name[16];

	snprintf(name, sizeof(name), "%s-%ld", prefix, k);
	prctl(PR_SET_NAME, name, 0, 0, 0);
}

int main(int argc, char **argv)
{
	char self[4096], ms_arg[32], k_arg[32];
	long n, k;
	double ms;
	ssize_t len;
	int list, status, rc = 0;
	pid_t pid;

	if (argc > 3 && !strcmp(argv[1], "--burn")) {
		rename_self("fk-exec", atol(argv[3]));
		child_burn(atof(argv[2]));
		return 0;
	}
	n = argc > 1 ? atol(argv[1]) : 3;
	ms = argc > 2 ? atof(argv[2]) : 150;
	list = argc > 3 && !strcmp(argv[3], "list");
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len < 0)
		return 1;
	self[len] = 0;
	if (list) {
		printf("%d main\n", (int)getpid());
		fflush(stdout);
	}
	for (k = 0; k < n; k++) {
		pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0) {
			if (k % 2) {
				snprintf(ms_arg, sizeof(ms_arg), "%g", ms);
				snprintf(k_arg, sizeof(k_arg), "%ld", k);
				execl(self, self, "--burn", ms_arg, k_arg, (char *)NULL);
				_exit(127);
			}
			rename_self("fk-child", k);
			child_burn(ms);
			_exit(0);
		}
		if (list) {
			printf("%d %s-%ld\n", (int)pid, k % 2 ? "fk-exec" : "fk-child", k);
			fflush(stdout);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
			rc = 1;
	}
	return rc;
}
