/* SPDX-License-Identifier: MIT */
/*
 * libpcl in thirty lines: count events for a command, the way `pcl stat`
 * does, and print them. Build against an installed libpcl with
 *   cc count-workload.c $(pkg-config --cflags --libs libpcl)
 * Usage: count-workload EVENTS COMMAND [ARGS...]
 */
#include <stdio.h>
#include <sys/wait.h>
#include <pcl/pcl.h>

int main(int argc, char **argv)
{
	PCL_OPTS(pcl_target, target); /* count the workload: no pid, tid or CPU */
	struct pcl_parse_error err;
	struct pcl_evlist *el;
	struct pcl_workload *wl;
	int status = 0, ret = 1;

	if (argc < 3) {
		fprintf(stderr, "usage: %s EVENTS COMMAND [ARGS...]\n", argv[0]);
		return 2;
	}
	el = pcl_evlist__new();
	if (!el || pcl_evlist__add(el, argv[1], &err) < 0) {
		fprintf(stderr, "bad events: %s\n", err.msg);
		goto out;
	}
	wl = pcl_workload__prepare(argv + 2);
	if (!wl || pcl_evlist__open(el, &target, wl) || pcl_evlist__enable(el) ||
	    pcl_workload__start(wl)) {
		fprintf(stderr, "cannot count '%s': %s\n", argv[2], pcl_last_error());
		pcl_workload__free(wl);
		goto out;
	}
	pcl_workload__wait(wl, &status, 0);
	pcl_evlist__disable(el);
	pcl_evlist__read(el);
	for (int i = 0; i < pcl_evlist__nr(el); i++) {
		struct pcl_count c;

		if (pcl_evlist__count(el, i, -1, -1, &c))
			printf("%20s  %s\n", "<not supported>", pcl_evlist__event(el, i)->name);
		else
			printf("%20.0f  %s\n", pcl_count__scaled(&c, pcl_evlist__event(el, i)->scale),
			       pcl_evlist__event(el, i)->name);
	}
	pcl_workload__free(wl);
	ret = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
out:
	pcl_evlist__free(el);
	return ret;
}
