/* SPDX-License-Identifier: MIT */
/*
 * A group read: the entry and exit tracepoints of getppid(2) in one kernel
 * group, read while they count. libpcl reads a group with one read(2) of
 * its leader (PERF_FORMAT_GROUP), so every member's value comes from the
 * same instant and the members share one enabled/running time pair.
 * Without tracefs the group falls back to two software events,
 * page-faults and minor-faults, which agree too.
 *
 * Usage: group-read [CALLS]      (getppid calls, default 100000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <pcl/counters.h>

#define TRACEPOINTS "syscalls:sys_enter_getppid,syscalls:sys_exit_getppid"
#define SOFTWARE    "page-faults,minor-faults"

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 100000;
	PCL_OPTS(pcl_counters_opts, opts,
		 .scope = PCL_SCOPE_THREAD, /* this thread: one fd per event */
		 .group = true);	    /* the same as "{a,b}" */
	struct pcl_counters *c = pcl_counters__new_open(TRACEPOINTS, &opts);
	struct pcl_value v[2];

	if (!c || !pcl_counters__supported(c, 0)) {
		pcl_counters__free(c);
		c = pcl_counters__new_open(SOFTWARE, &opts);
	}
	if (!c) {
		fprintf(stderr, "group-read: %s\n", pcl_last_error());
		return 1;
	}
	pcl_counters__start(c);
	for (long i = 0; i < calls; i++)
		getppid();
	/* no stop: a group's members are read together even while counting */
	if (pcl_counters__read(c, v)) {
		fprintf(stderr, "group-read: %s\n", pcl_last_error());
		return 1;
	}
	printf("%ld getppid() calls, group led by fd %d, one read(2):\n", calls,
	       pcl_counters__fd(c, 0));
	for (int i = 0; i < 2; i++)
		printf("%12llu  %-28s enabled %llu ns, running %llu ns\n",
		       (unsigned long long)v[i].raw, pcl_counters__name(c, i),
		       (unsigned long long)v[i].ena, (unsigned long long)v[i].run);
	printf("values %s, times %s\n", v[0].raw == v[1].raw ? "equal" : "differ",
	       v[0].ena == v[1].ena && v[0].run == v[1].run ? "identical" : "differ");
	pcl_counters__free(c);
	return 0;
}
