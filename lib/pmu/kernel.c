/* SPDX-License-Identifier: MIT */
/*
 * The ops of every kernel PMU: add opens a perf_event fd, start/stop are the
 * ENABLE/DISABLE ioctls, read decodes any read_format of a single counter.
 */
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "internal.h"
#include "evlist/read-format.h"

static int kernel_event_init(struct pcl_pmu *pmu, struct perf_event_attr *attr)
{
	(void)pmu;
	(void)attr;
	return 0;
}

static int kernel_add(struct pcl_counter *c)
{
	struct perf_event_attr attr = *c->attr;
	int fd = pcl_perf_event_open(&attr, c->pid, c->cpu, c->group_fd, c->flags);

	if (fd < 0)
		return fd;
	c->fd = fd;
	return 0;
}

static void kernel_del(struct pcl_counter *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

static int kernel_start(struct pcl_counter *c)
{
	return ioctl(c->fd, PERF_EVENT_IOC_ENABLE, 0) ? -errno : 0;
}

static int kernel_stop(struct pcl_counter *c)
{
	return ioctl(c->fd, PERF_EVENT_IOC_DISABLE, 0) ? -errno : 0;
}

/*
 * The count of one counter, whatever its read_format. With PERF_FORMAT_GROUP
 * a read returns the whole group of the fd's leader: a counter alone (or
 * the leader) is its first entry; a member read by itself is found by its
 * id, which needs PERF_FORMAT_ID.
 */
int kernel_counter_read(int fd, uint64_t read_format, struct pcl_count *out)
{
	uint64_t stack[64], *buf = stack, id = 0;
	struct pcl_count one[1], *all = one;
	size_t cap = sizeof(stack);
	ssize_t n;
	int nr, maxn = 1, ret = -EIO;

	for (;;) {
		n = read_format_read(fd, buf, cap);
		if (n != -ENOSPC || cap >= ((size_t)1 << 24))
			break;
		/* a group bigger than the stack buffer: grow until its read fits */
		if (buf != stack)
			free(buf);
		cap *= 4;
		buf = malloc(cap);
		if (!buf)
			return -ENOMEM;
	}
	if (n < 0) {
		ret = (int)n;
		goto out;
	}
	if (read_format & PERF_FORMAT_GROUP) {
		maxn = (int)(cap / sizeof(uint64_t));
		all = calloc((size_t)maxn, sizeof(*all));
		if (!all) {
			ret = -ENOMEM;
			goto out;
		}
	}
	nr = read_format_parse(read_format, buf, (size_t)n, all, maxn);
	if (nr < 0) {
		ret = nr;
		goto out;
	}
	if (nr == 1) {
		*out = all[0];
		ret = 0;
		goto out;
	}
	if (!(read_format & PERF_FORMAT_ID) || ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0)
		goto out;
	for (int k = 0; k < nr; k++) {
		if (all[k].id == id) {
			*out = all[k];
			ret = 0;
		}
	}
out:
	if (all != one)
		free(all);
	if (buf != stack)
		free(buf);
	return ret;
}

static int kernel_read(struct pcl_counter *c, struct pcl_count *out)
{
	return kernel_counter_read(c->fd, c->attr->read_format, out);
}

const struct pcl_pmu_ops pmu_kernel_ops = {
	.sz = sizeof(struct pcl_pmu_ops),
	.event_init = kernel_event_init,
	.add = kernel_add,
	.del = kernel_del,
	.start = kernel_start,
	.stop = kernel_stop,
	.read = kernel_read,
};
