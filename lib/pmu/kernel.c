/* SPDX-License-Identifier: MIT */
/*
 * The ops of every kernel PMU: add opens a perf_event fd, start/stop are the
 * ENABLE/DISABLE ioctls, read decodes read_format
 * TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING | ID for a single counter.
 */
#include <sys/ioctl.h>
#include <unistd.h>
#include "internal.h"

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

int kernel_counter_read(int fd, struct pcl_count *out)
{
	uint64_t buf[4];
	ssize_t n;

	do {
		n = read(fd, buf, sizeof(buf));
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n < (ssize_t)sizeof(buf))
		return -EIO;
	out->val = buf[0];
	out->ena = buf[1];
	out->run = buf[2];
	out->id = buf[3];
	return 0;
}

static int kernel_read(struct pcl_counter *c, struct pcl_count *out)
{
	return kernel_counter_read(c->fd, out);
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
