/* SPDX-License-Identifier: MIT */
/*
 * speedscope's file format (https://www.speedscope.app/file-format-schema.json,
 * the JSON schema speedscope ships in its npm package): one document with
 *
 * - shared.frames: one frame per profile function, in the profile's order,
 *   so a frame index is a function index. "name" is the symbol ("[unknown]
 *   0xADDR" for code no symbol covers: a frame per address). "file" and
 *   "line" are where the function's source starts (the line of its first
 *   instruction), from the debug info; without it "file" is the DSO's path
 *   as recorded, with no line (left out for code in no known map). The
 *   functions only met inlined (see pcl_profile_line) are frames too, with
 *   their file, but no sample's stack names them.
 * - profiles: one "sampled" profile per thread with samples, in the order
 *   the profile met the threads, named "comm pid/tid". Its samples are its
 *   thread's samples in time order, each the list of frame indices of its
 *   stack, outermost caller first.
 * - weights: for an event that counts nanoseconds (cpu-clock, task-clock)
 *   each sample weighs its period, in unit "nanoseconds", so the views show
 *   CPU time; for any other event each sample weighs 1, unit "none" (a count
 *   of samples: the periods of a frequency-driven hardware event are not a
 *   quantity worth adding up across its ramp-up).
 * - startValue is 0 and endValue the sum of the weights: speedscope takes
 *   endValue - startValue as the profile's total weight, and lays sampled
 *   profiles out one sample after the other (it has no notion of gaps), so
 *   the wall-clock span of the samples would leave a misleading blank tail.
 * - activeProfileIndex: the profile of the thread with the most samples.
 *
 * Needs a profile built with opts.timeline (the samples one by one).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <pcl/export.h>
#include "internal.h"
#include "output/json.h"

/*
 * The samples' indices grouped by thread, each group in time order (a
 * counting sort, stable): group t is order[start[t]] .. order[start[t + 1] - 1].
 */
static int group_by_thread(const struct pcl_profile_sample *s, size_t ns, size_t nt,
			   size_t **order_out, size_t **start_out)
{
	size_t *order = malloc((ns ? ns : 1) * sizeof(*order));
	size_t *start = calloc(nt + 2, sizeof(*start));

	if (!order || !start) {
		free(order);
		free(start);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ns; i++)
		start[s[i].thread + 2]++;
	for (size_t t = 2; t < nt + 2; t++)
		start[t] += start[t - 1];
	/* start[t + 1] is now where group t begins; filling moves it to its end */
	for (size_t i = 0; i < ns; i++)
		order[start[s[i].thread + 1]++] = i;
	*order_out = order;
	*start_out = start;
	return 0;
}

static void put_frames(FILE *fp, const struct pcl_profile *p)
{
	size_t nf;
	const struct pcl_profile_func *f = pcl_profile__funcs(p, &nf);

	fputs("\"shared\":{\"frames\":[", fp);
	for (size_t i = 0; i < nf; i++) {
		fputs(i ? ",\n{\"name\":" : "\n{\"name\":", fp);
		if (!f[i].start && !f[i].end && !strcmp(f[i].name, "[unknown]")) {
			/* code no symbol covers: one frame per address, named by it */
			char a[32];

			snprintf(a, sizeof(a), "[unknown] 0x%" PRIx64, f[i].ip);
			json_str(fp, a);
		} else {
			json_str(fp, f[i].name);
		}
		if (f[i].file) {
			/* the source: the function's file and the line it starts at */
			fputs(",\"file\":", fp);
			json_str(fp, f[i].file);
			if (f[i].line) {
				fputs(",\"line\":", fp);
				put_u64(fp, f[i].line);
			}
		} else if (f[i].dso) {
			fputs(",\"file\":", fp);
			json_str(fp, f[i].dso->name);
		}
		fputc('}', fp);
	}
	fputs("]},\n", fp);
}

/* The sample's stack as frame indices, outermost first, through @path (max depth long). */
static void put_stack(FILE *fp, const struct pcl_profile_node *nodes, uint32_t node, uint32_t *path)
{
	uint32_t depth = nodes[node].depth;

	for (uint32_t d = depth; d > 0; d--) {
		path[d - 1] = nodes[node].func;
		node = nodes[node].parent;
	}
	fputc('[', fp);
	for (uint32_t d = 0; d < depth; d++) {
		if (d)
			fputc(',', fp);
		put_u64(fp, path[d]);
	}
	fputc(']', fp);
}

/* "comm pid/tid", the name speedscope shows for a thread's profile. */
static void put_thread_name(FILE *fp, const struct pcl_profile_thread *t)
{
	char name[256];

	snprintf(name, sizeof(name), "%s %" PRId32 "/%" PRId32, t->comm ? t->comm : "", t->pid,
		 t->tid);
	json_str(fp, name);
}

/* The profile of one thread: its samples are order[from .. to - 1]. */
static void put_profile(FILE *fp, const struct pcl_profile *p, const struct pcl_profile_thread *t,
			const size_t *order, size_t from, size_t to, bool ns, uint32_t *path)
{
	size_t n;
	const struct pcl_profile_sample *s = pcl_profile__samples(p, &n);
	const struct pcl_profile_node *nodes = pcl_profile__nodes(p, &n);
	uint64_t total = 0;

	fputs("{\"type\":\"sampled\",\"name\":", fp);
	put_thread_name(fp, t);
	fputs(ns ? ",\"unit\":\"nanoseconds\"" : ",\"unit\":\"none\"", fp);
	for (size_t i = from; i < to; i++)
		total += ns ? s[order[i]].period : 1;
	fputs(",\"startValue\":0,\"endValue\":", fp);
	put_u64(fp, total);
	fputs(",\n\"samples\":[", fp);
	for (size_t i = from; i < to; i++) {
		if (i > from)
			fputs(i % 16 ? "," : ",\n", fp);
		put_stack(fp, nodes, s[order[i]].node, path);
	}
	fputs("],\n\"weights\":[", fp);
	for (size_t i = from; i < to; i++) {
		if (i > from)
			fputs(i % 32 ? "," : ",\n", fp);
		put_u64(fp, ns ? s[order[i]].period : 1);
	}
	fputs("]}", fp);
}

/* A name for the whole document: the title, else the command recorded, else the event. */
static const char *doc_name(const struct pcl_export_opts *opts)
{
	if (opts->title)
		return opts->title;
	for (size_t i = 0; i < opts->nr_facts; i++)
		if (opts->facts[i].name && opts->facts[i].value &&
		    !strcmp(opts->facts[i].name, "command"))
			return opts->facts[i].value;
	return opts->event && opts->event[0] ? opts->event : "pcl";
}

int pcl_export_speedscope(FILE *fp, const struct pcl_profile *p, const struct pcl_export_opts *opts)
{
	struct pcl_export_opts o;
	size_t ns, nt, nn, *order = NULL, *start = NULL, best = 0, nprof = 0, active = 0;
	const struct pcl_profile_sample *s;
	const struct pcl_profile_thread *t;
	const struct pcl_profile_node *nodes;
	uint32_t max_depth = 0, *path;

	if (!fp || !p)
		return pcl_err(EINVAL, "pcl_export_speedscope: no output or no profile");
	s = pcl_profile__samples(p, &ns);
	t = pcl_profile__threads(p, &nt);
	nodes = pcl_profile__nodes(p, &nn);
	if (opts_copy(&o, opts, "pcl_export_opts") < 0)
		return -EINVAL;
	opts = &o;
	if (!ns && pcl_profile__nr_samples(p))
		return pcl_err(-EINVAL, "speedscope: the profile was built without its timeline");
	for (size_t i = 0; i < nn; i++)
		if (nodes[i].depth > max_depth)
			max_depth = nodes[i].depth;
	path = malloc((max_depth + 1) * sizeof(*path));
	if (!path || group_by_thread(s, ns, nt, &order, &start)) {
		free(path);
		return pcl_err(-ENOMEM, "out of memory");
	}
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n", fp);
	fputs("\"exporter\":\"pcl " PCL_VERSION_STRING "\",\"name\":", fp);
	json_str(fp, doc_name(opts));
	fputs(",\n", fp);
	put_frames(fp, p);
	fputs("\"profiles\":[\n", fp);
	for (size_t i = 0; i < nt; i++) {
		size_t from = start[i], to = start[i + 1];

		if (from == to)
			continue; /* a thread seen only switching: nothing to draw */
		if (to - from > best) {
			best = to - from;
			active = nprof;
		}
		if (nprof++)
			fputs(",\n", fp);
		put_profile(fp, p, &t[i], order, from, to, opts->period_is_ns, path);
	}
	fputs("],\n\"activeProfileIndex\":", fp);
	put_u64(fp, active);
	fputs("}\n", fp);
	free(order);
	free(start);
	free(path);
	if (ferror(fp))
		return pcl_err(-EIO, "cannot write the speedscope profile");
	return 0;
}
