/* SPDX-License-Identifier: MIT */
/*
 * Folded stacks, the input of FlameGraph's flamegraph.pl and inferno: one
 * line per unique stack, "comm;outermost;...;innermost VALUE", in the name
 * order of the merged tree (what stackcollapse-perf | sort gives).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <pcl/export.h>
#include "internal.h"

static void print_path(FILE *fp, const struct pcl_flame *f, uint32_t n)
{
	if (f->nodes[n].parent) {
		print_path(fp, f, f->nodes[n].parent);
		fputc(';', fp);
	}
	fputs(f->nodes[n].name, fp);
}

int pcl_export_folded(FILE *fp, const struct pcl_profile *p, const struct pcl_export_opts *opts)
{
	struct pcl_export_opts o;
	struct pcl_flame f;
	uint32_t n;
	int ret = opts_copy(&o, opts, "pcl_export_opts");

	if (ret < 0)
		return ret;
	ret = pcl_flame__build(&f, p, o.by_period, -1);
	if (ret)
		return ret;
	/* depth first, children in name order */
	n = f.nodes[0].first;
	while (n) {
		if (f.nodes[n].self) {
			print_path(fp, &f, n);
			fprintf(fp, " %" PRIu64 "\n", f.nodes[n].self);
		}
		if (f.nodes[n].first) {
			n = f.nodes[n].first;
			continue;
		}
		while (n && !f.nodes[n].next)
			n = f.nodes[n].parent;
		n = n ? f.nodes[n].next : 0;
	}
	pcl_flame__free(&f);
	if (ferror(fp))
		return pcl_err(-EIO, "cannot write the folded stacks");
	return 0;
}
