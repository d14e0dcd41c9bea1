/* SPDX-License-Identifier: MIT */
/*
 * What the cmocka unit tests share: the cmocka includes, row comparisons
 * for table-driven tests (print the row, count the mismatch, go on, so one
 * bug does not hide the next), and a watchdog that turns a hung test (a
 * deadlock in the library, a workload that never exits) into a TAP failure
 * instead of a run that never ends.
 *
 * Register tests with UNIT_TEST(fn): it arms the watchdog around each one.
 */
#ifndef PCL_TESTS_UNIT_H
#define PCL_TESTS_UNIT_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <pcl/pcl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef UNIT_TIMEOUT_S
#define UNIT_TIMEOUT_S 60
#endif

static inline int unit_remove_entry(const char *path, const struct stat *sb, int flag,
				    struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Remove directory @dir and everything below it (a test's scratch directory). */
static inline void unit_remove_dir(const char *dir)
{
	nftw(dir, unit_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/*
 * Run the shell command made from @fmt: its exit status, 128 when a signal
 * ended it, -1 when it could not run.
 */
static inline int unit_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline int unit_sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	return rc == -1 ? -1 : WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

/* The directory of the running test binary (BUILD/tests) into @buf. */
static inline void unit_exe_dir(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	char *slash;

	buf[n > 0 ? n : 0] = '\0';
	slash = strrchr(buf, '/');
	if (slash)
		*slash = '\0';
}

/* Write @text to @root/@rel, making the directories on the way (fake sysfs trees). */
static inline int unit_write_file(const char *root, const char *rel, const char *text)
{
	char path[512];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *s = strchr(path + strlen(root) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			return -1;
		*s = '/';
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* A finished run: the evlist opened on a workload, read after it exited. */
struct unit_run {
	struct pcl_evlist *el;
	struct pcl_workload *wl;
	int status;
};

/* The one run a test has going; freed by the next run or after the test, failed or not. */
static struct unit_run unit_cur_run;

static inline void unit_run_free(void)
{
	pcl_evlist__free(unit_cur_run.el);
	pcl_workload__free(unit_cur_run.wl);
	memset(&unit_cur_run, 0, sizeof(unit_cur_run));
}

/*
 * Count @spec on the prepared workload @wl from exec to exit, the way
 * `pcl stat` does, read after libpcl reaped it.
 */
static inline struct unit_run *run_prepared(const char *spec, struct pcl_workload *wl)
{
	struct pcl_target t = { .sz = sizeof(t) };
	struct pcl_parse_error err;
	struct unit_run *r = &unit_cur_run;
	int ret;

	unit_run_free();
	r->wl = wl;
	assert_non_null(r->wl);
	r->el = pcl_evlist__new();
	assert_non_null(r->el);
	ret = pcl_evlist__add(r->el, spec, &err);
	if (ret < 0)
		fail_msg("'%s': %d: %s", spec, ret, err.msg);
	ret = pcl_evlist__open(r->el, &t, r->wl);
	if (ret)
		fail_msg("open '%s': %d: %s", spec, ret, pcl_last_error());
	assert_int_equal(pcl_evlist__enable(r->el), 0);
	assert_int_equal(pcl_workload__start(r->wl), 0);
	assert_int_equal(pcl_workload__wait(r->wl, &r->status, 0), pcl_workload__pid(r->wl));
	assert_int_equal(pcl_evlist__disable(r->el), 0);
	ret = pcl_evlist__read(r->el);
	if (ret)
		fail_msg("read '%s': %d: %s", spec, ret, pcl_last_error());
	return r;
}

/* Compare one value of row @row; prints it and returns 1 on mismatch. */
static inline int differ(const char *row, const char *what, uint64_t got, uint64_t want)
{
	if (got == want)
		return 0;
	print_message("'%s': %s = %#llx, expected %#llx\n", row, what, (unsigned long long)got,
		      (unsigned long long)want);
	return 1;
}

/* Strings; NULL equals only NULL. */
static inline int differ_str(const char *row, const char *what, const char *got, const char *want)
{
	if ((!got && !want) || (got && want && !strcmp(got, want)))
		return 0;
	print_message("'%s': %s = '%s', expected '%s'\n", row, what, got ? got : "(null)",
		      want ? want : "(null)");
	return 1;
}

/* Set by a test file: frees what a failed test left behind (called after every test). */
static void (*unit_cleanup)(void);

static char unit_hung_msg[256];
static size_t unit_hung_len;

static inline void unit_on_alarm(int sig)
{
	ssize_t n;

	(void)sig;
	n = write(STDOUT_FILENO, unit_hung_msg, unit_hung_len);
	(void)n;
	_exit(3);
}

static inline int unit_watchdog_arm(void **state)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = unit_on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	snprintf(unit_hung_msg, sizeof(unit_hung_msg),
		 "\nnot ok 0 - %s: still running after %d s (deadlock?)\n",
		 *state ? (const char *)*state : "a test", UNIT_TIMEOUT_S);
	unit_hung_len = strlen(unit_hung_msg);
	fflush(stdout);
	alarm(UNIT_TIMEOUT_S);
	return 0;
}

static inline int unit_watchdog_disarm(void **state)
{
	(void)state;
	alarm(0);
	if (unit_cleanup)
		unit_cleanup();
	return 0;
}

#define UNIT_TEST(f) { #f, f, unit_watchdog_arm, unit_watchdog_disarm, (void *)#f }

#endif
