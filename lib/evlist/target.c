/* SPDX-License-Identifier: MIT */
/* Targets: CPU lists, online CPUs, the threads of a process, cgroup paths. */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"
#include "evlist/target.h"

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/* Sort and drop duplicates; returns the new count. */
static int sort_unique(int *v, int n)
{
	int out = 0;

	qsort(v, (size_t)n, sizeof(*v), cmp_int);
	for (int i = 0; i < n; i++)
		if (!out || v[out - 1] != v[i])
			v[out++] = v[i];
	return out;
}

static int parse_num(const char **p, long *v)
{
	char *end;

	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	errno = 0;
	*v = strtol(*p, &end, 10);
	if (errno || *v > 1000000)
		return -EINVAL;
	*p = end;
	return 0;
}

PCL_API int pcl_parse_cpu_list(const char *list, int **cpus)
{
	const char *p = list;
	int *v = NULL, n = 0, alloc = 0;

	if (!list || !cpus)
		return pcl_err(EINVAL, "pcl_parse_cpu_list: invalid argument");
	*cpus = NULL;
	while (*p) {
		long lo, hi;

		if (parse_num(&p, &lo))
			goto bad;
		hi = lo;
		if (*p == '-') {
			p++;
			if (parse_num(&p, &hi) || hi < lo)
				goto bad;
		}
		if (hi - lo > 65536)
			goto bad;
		for (long c = lo; c <= hi; c++) {
			if (grow_array((void **)&v, &alloc, n + 1, sizeof(*v))) {
				free(v);
				return pcl_err(ENOMEM, "pcl_parse_cpu_list: out of memory");
			}
			v[n++] = (int)c;
		}
		if (*p == ',' && p[1])
			p++;
		else if (*p == '\n' && !p[1])
			break; /* sysfs files end with one newline; nothing may follow it */
		else if (*p)
			goto bad;
	}
	if (!n)
		goto bad;
	*cpus = v;
	return sort_unique(v, n);
bad:
	free(v);
	return pcl_err(EINVAL, "bad CPU list '%s' (expected e.g. '0-3,6')", list);
}

int online_cpus(int **cpus)
{
	char buf[1024];
	int n;

	if (read_small_file("/sys/devices/system/cpu/online", buf, sizeof(buf)) > 0 &&
	    (n = pcl_parse_cpu_list(buf, cpus)) > 0)
		return n;
	n = pcl_nr_cpus();
	*cpus = calloc((size_t)n, sizeof(int));
	if (!*cpus)
		return -ENOMEM;
	for (int i = 0; i < n; i++)
		(*cpus)[i] = i;
	return n;
}

static int parse_pid(const char *s, size_t len, pid_t *pid)
{
	char buf[24], *end;
	long v;

	if (!len || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || *end || v <= 0 || v > 0x3fffffff)
		return -EINVAL;
	*pid = (pid_t)v;
	return 0;
}

static int add_tid(pid_t **tids, int *n, int *alloc, pid_t tid)
{
	if (grow_array((void **)tids, alloc, *n + 1, sizeof(**tids)))
		return -ENOMEM;
	(*tids)[(*n)++] = tid;
	return 0;
}

/* Every thread of @pid from /proc/PID/task. */
static int add_process_threads(pid_t pid, pid_t **tids, int *n, int *alloc)
{
	char path[64];
	DIR *d;
	struct dirent *de;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return pcl_err(ESRCH, "process '%d' not found", (int)pid);
	while (!ret && (de = readdir(d))) {
		pid_t tid;

		if (de->d_name[0] == '.' || parse_pid(de->d_name, strlen(de->d_name), &tid))
			continue;
		ret = add_tid(tids, n, alloc, tid);
	}
	closedir(d);
	return ret;
}

int target_threads(const char *list, bool whole_process, bool ignore_missing, pid_t **tids)
{
	const char *s = list;
	int n = 0, alloc = 0, ret = 0;

	*tids = NULL;
	while (*s && !ret) {
		const char *c = strchr(s, ',');
		size_t len = c ? (size_t)(c - s) : strlen(s);
		pid_t pid;
		char path[64];

		if (parse_pid(s, len, &pid)) {
			ret = pcl_err(EINVAL, "bad %s '%.*s' (expected a number)",
				      whole_process ? "pid" : "tid", (int)len, s);
			break;
		}
		if (whole_process) {
			ret = add_process_threads(pid, tids, &n, &alloc);
		} else {
			snprintf(path, sizeof(path), "/proc/%d", (int)pid);
			if (access(path, F_OK))
				ret = pcl_err(ESRCH, "thread '%d' not found", (int)pid);
			else
				ret = add_tid(tids, &n, &alloc, pid);
		}
		if (ret == -ESRCH && ignore_missing)
			ret = 0; /* it exited after the list was made */
		s += len + (c ? 1 : 0);
	}
	if (!ret && !n)
		ret = pcl_err(EINVAL, "empty %s list", whole_process ? "pid" : "tid");
	if (ret) {
		free(*tids);
		*tids = NULL;
		return ret;
	}
	return n;
}

/* Open a cgroup directory: a path, or a name under the cgroup2 mount. */
int cgroup_open(const char *name)
{
	char path[4096], line[4096], mnt[2048] = "";
	FILE *f;
	int fd;

	if (name[0] == '/' && (fd = open(name, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0)
		return fd;
	f = fopen("/proc/self/mounts", "re");
	if (f) {
		/* a v1 perf_event hierarchy wins; else cgroup2, where perf_event is implicit */
		while (fgets(line, sizeof(line), f)) {
			char dev[256], dir[2048], type[64], opts[1024];

			if (sscanf(line, "%255s %2047s %63s %1023s", dev, dir, type, opts) != 4)
				continue;
			if (!strcmp(type, "cgroup") && strstr(opts, "perf_event")) {
				snprintf(mnt, sizeof(mnt), "%s", dir);
				break;
			}
			if (!strcmp(type, "cgroup2") && !mnt[0])
				snprintf(mnt, sizeof(mnt), "%s", dir);
		}
		fclose(f);
	}
	if (!mnt[0])
		return pcl_err(ENOENT, "cgroup '%s': no perf_event or cgroup2 hierarchy is mounted",
			       name);
	snprintf(path, sizeof(path), "%s/%s", mnt, name[0] == '/' ? name + 1 : name);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return pcl_err(errno, "cgroup '%s' not found (looked for '%s')", name, path);
	return fd;
}
