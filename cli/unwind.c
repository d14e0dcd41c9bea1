/* SPDX-License-Identifier: MIT */
/*
 * What the user is told about DWARF unwinding (--call-graph dwarf samples):
 * never silent. pcl report puts it in its header and in --stats; script,
 * diff and the exports print one warning on stderr when any sample's
 * unwinding stopped early, with the counts by cause. When more than 5%
 * stopped because the stack copy was too small, all of them say which
 * `--call-graph dwarf,SIZE` would have been enough.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "input.h"

/* The samples that did not unwind to the outermost frame. */
static uint64_t stopped_early(const struct pcl_unwind_stats *st)
{
	return st->samples - st->status[PCL_UNWIND_COMPLETE];
}

/* ", no CFI: 3, stack copy too small: 12" for each cause with samples. */
static void print_causes(FILE *fp, const struct pcl_unwind_stats *st)
{
	const char *sep = "";

	for (int i = PCL_UNWIND_COMPLETE + 1; i < PCL_UNWIND__NR; i++) {
		if (!st->status[i])
			continue;
		fprintf(fp, "%s%s: %" PRIu64, sep, pcl_unwind_status_name(i), st->status[i]);
		sep = ", ";
	}
}

static void print_hint(FILE *fp, const char *prefix, const struct pcl_unwind_stats *st)
{
	uint64_t size = pcl_unwind_stats__suggest_size(st);

	if (size)
		fprintf(fp,
			"%s%.1f%% stopped at the end of the stack copy: record with "
			"--call-graph dwarf,%" PRIu64 "%s\n",
			prefix,
			100.0 * (double)st->status[PCL_UNWIND_STACK_TOO_SMALL] /
				(double)st->samples,
			size,
			st->max_needed > 65528 ? " (the most perf takes; some stacks are deeper)"
			: st->max_needed_exact ? " for whole stacks"
					       : " (at least) for deeper stacks");
}

/* "DWARF unwinding: N samples, N complete, N stopped early (causes)" */
static void print_summary(FILE *fp, const struct pcl_unwind_stats *st)
{
	fprintf(fp, "DWARF unwinding: %" PRIu64 " samples, %" PRIu64 " complete", st->samples,
		st->status[PCL_UNWIND_COMPLETE]);
	if (stopped_early(st)) {
		fprintf(fp, ", %" PRIu64 " stopped early (", stopped_early(st));
		print_causes(fp, st);
		fputc(')', fp);
	}
	if (st->no_reader)
		fprintf(fp, ", %" PRIu64 " not unwound (register layout unknown)", st->no_reader);
}

void unwind_print_header(FILE *fp, const struct input *in)
{
	struct pcl_unwind_stats st;

	pcl_resolver__unwind_stats(in->resolver, &st);
	if (!st.samples && !st.no_reader)
		return;
	fputs("# ", fp);
	print_summary(fp, &st);
	fputc('\n', fp);
	print_hint(fp, "# ", &st);
	fputs("#\n", fp);
}

void unwind_print_stats(FILE *fp, const struct input *in)
{
	struct pcl_unwind_stats st;

	pcl_resolver__unwind_stats(in->resolver, &st);
	if (!st.samples && !st.no_user_stack && !st.no_reader)
		return;
	fprintf(fp, "DWARF unwind stats:\n");
	fprintf(fp, "%24s: %10" PRIu64 "\n", "samples unwound", st.samples);
	for (int i = 0; i < PCL_UNWIND__NR; i++)
		fprintf(fp, "%24s: %10" PRIu64 "  (%5.1f%%)\n", pcl_unwind_status_name(i),
			st.status[i],
			st.samples ? 100.0 * (double)st.status[i] / (double)st.samples : 0.0);
	if (st.status[PCL_UNWIND_STACK_TOO_SMALL])
		fprintf(fp, "%24s: %10" PRIu64 " bytes\n", "largest copy lacking", st.max_needed);
	fprintf(fp, "%24s: %10" PRIu64 "\n", "no user stack", st.no_user_stack);
	if (st.no_reader)
		fprintf(fp, "%24s: %10" PRIu64 "\n", "layout unknown", st.no_reader);
	fprintf(fp, "%24s: %10" PRIu64 "\n", "address spaces loaded", st.spaces_built);
	fprintf(fp, "%24s: %10" PRIu64 "\n", "files loaded", st.modules);
	fprintf(fp, "%24s: %10" PRIu64 "\n", "from cached CFI rules", st.fast);
	print_hint(fp, "", &st);
}

void unwind_warn(const struct input *in)
{
	struct pcl_unwind_stats st;

	pcl_resolver__unwind_stats(in->resolver, &st);
	if (!stopped_early(&st) && !st.no_reader)
		return;
	fprintf(stderr, "pcl: warning: '%s': ", in->path);
	print_summary(stderr, &st);
	fputs("; those call chains are cut there (see 'pcl help report')\n", stderr);
	print_hint(stderr, "pcl: hint: ", &st);
}
