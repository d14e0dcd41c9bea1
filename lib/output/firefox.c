/* SPDX-License-Identifier: MIT */
/*
 * The Firefox Profiler's Gecko profile format: the JSON Firefox itself
 * emits, which profiler.firefox.com imports (and upgrades from older
 * versions). Written as version 32, the GECKO_PROFILE_VERSION of
 * firefox-devtools/profiler (src/app-logic/constants.ts), with the fields
 * that src/types/gecko-profile.ts gives a GeckoProfile and that
 * src/profile-logic/process-profile.ts reads; docs-developer/
 * gecko-profile-format.md describes the layout and CHANGELOG-formats.md
 * the changes up to it. The profiler refuses a version newer than it
 * knows and upgrades an older one, so the number must not run ahead.
 *
 * What goes where:
 * - meta: version, interval (ms: the sampling interval of an event that
 *   counts nanoseconds, else 1), startTime (ms since the epoch of the first
 *   event, by opts->wall_clock_offset; on the perf clock, since boot, when
 *   the recording does not tell), profilingStartTime/EndTime, processType 0, product "pcl",
 *   stackwalk 1, presymbolicated (names come with the file: no symbol
 *   server is asked), categories (Other, grey, first: the default one; User;
 *   Kernel) and markerSchema (the one marker type written: ContextSwitch).
 * - libs: one per DSO a function was sampled in, with the map it was first
 *   seen through (start, end, offset = the map's file offset), breakpadId
 *   (the build id's first 16 bytes as a GUID, plus age 0) and codeId (the
 *   whole build id in hex) when the build id is known.
 * - threads: one per pid/tid (the profile's threads that differ only by
 *   name, after an exec or a thread naming itself, are one; it takes the
 *   name most of its samples had), the threads of every process in one
 *   list (processType "default", processName its main thread's name),
 *   registerTime/unregisterTime its first and last event. Each has the
 *   samples, stacks, frames, strings and markers of its own (indices are
 *   per thread). A frame is one profile location (a function, or one
 *   address of it with source lines), its location string "symbol (in
 *   dso)" (the form the profiler parses into a function and a library
 *   resource; a bare name for code in no known map; "0xADDR (in dso)" for
 *   code no symbol covers, one frame per address); its category Kernel
 *   for kernel code, else User. With source positions (the profile built
 *   with opts.symbols), a function whose file and declaration line are
 *   known is "symbol (FILE:LINE)": process-profile.ts fills a function's
 *   fileName and lineNumber from that form only (it takes it for a script
 *   function, and the file stands where the library would), and a C++
 *   form's position is dropped. The frame's line column is the line in its
 *   function (the outermost level of the location's inline chain: the call
 *   of what is inlined there); null without one. A stack
 *   is one node of the profile's stack tree, made in the order the samples
 *   reach it, so its prefix (the caller's stack) always comes first.
 * - samples: [stack, time (ms since meta.startTime), eventDelay 0] in time
 *   order (the processor insists on an eventDelay or responsiveness
 *   column). A file without sample times gets one interval per sample.
 *   Weighed samples (opts by_period with period_is_ns: off-CPU time and
 *   pcl report --wall) become one sample per interval of their period,
 *   spread back from their time, as the Gecko format has no weights; the
 *   "[off-CPU]" leaf of the wall view is in its own category, Off-CPU.
 * - markers: per thread, an interval marker "Off-CPU" from each switch out
 *   to the thread's next switch in (data: type ContextSwitch, preempted and
 *   reason), when the recording has context switches (or off-CPU
 *   intervals, which pcl report gives as switches: docs/offcpu.md). A switch out with no
 *   switch in after it (the thread's exit) makes none.
 * - processes and pausedRanges are empty.
 *
 * Needs a profile built with opts.timeline.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <pcl/export.h>
#include "analysis/profile.h"
#include "internal.h"
#include "output/json.h"

#define GECKO_PROFILE_VERSION 32

enum { CAT_OTHER, CAT_USER, CAT_KERNEL, CAT_OFFCPU };

struct ff {
	FILE *fp;
	const struct pcl_export_opts *opts;
	const struct pcl_profile_func *funcs;
	const struct pcl_profile_node *nodes;
	const struct pcl_profile_loc *locs;
	const struct pcl_profile_line *lines;
	size_t nr_locs, nr_lines;
	const struct pcl_profile_thread *threads;
	const struct pcl_profile_sample *samples;
	const struct pcl_profile_switch *switches;
	size_t nr_funcs, nr_nodes, nr_threads, nr_samples, nr_switches;
	bool has_time;
	uint64_t t0;   /* perf clock of meta.startTime, ns */
	uint64_t step; /* ns between samples when the file has no times */
	/*
	 * One Gecko thread per pid/tid: the profile's threads that differ only
	 * by their name (an exec, a thread naming itself) are merged into the
	 * first of them, which gets the name most of their samples had.
	 */
	uint32_t *rep;		   /* profile thread -> the one it is merged into */
	const char **name;	   /* by merged thread */
	size_t *s_order, *s_start; /* sample indices by merged thread (see group_by_thread) */
	size_t *w_order, *w_start; /* switch indices by merged thread */
	/* one thread's tables, rebuilt for each; the maps hold index + 1, 0: none yet */
	uint32_t *node_stack; /* node -> stack */
	uint32_t *loc_frame;  /* location -> frame */
	uint32_t *stack_node; /* stack -> node */
	uint32_t *frame_loc;  /* frame -> location */
	uint32_t *path;	      /* scratch: nodes on the way to the root */
	size_t nr_stacks, nr_frames;
};

/* @ns nanoseconds as milliseconds, exact (no binary floating point on the way). */
static void put_ms(FILE *fp, uint64_t ns)
{
	uint64_t frac = ns % 1000000;
	char b[8];
	int n;

	put_u64(fp, ns / 1000000);
	if (!frac)
		return;
	n = snprintf(b, sizeof(b), ".%06" PRIu64, frac);
	while (n > 1 && b[n - 1] == '0')
		n--;
	fwrite(b, 1, (size_t)n, fp);
}

/*
 * Indices 0..n-1 of @n elements of @size bytes, whose thread index is at
 * @off, grouped by map[thread] (a counting sort, stable: each group keeps
 * the elements' order): group t is order[start[t]] .. order[start[t + 1] - 1].
 */
static int group_by_thread(const void *arr, size_t n, size_t size, size_t off, const uint32_t *map,
			   size_t nt, size_t **order_out, size_t **start_out)
{
	size_t *order = malloc((n ? n : 1) * sizeof(*order));
	size_t *start = calloc(nt + 2, sizeof(*start));
	const char *c = arr;
	uint32_t t;

	if (!order || !start) {
		free(order);
		free(start);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		memcpy(&t, c + i * size + off, sizeof(t));
		start[map[t] + 2]++;
	}
	for (size_t i = 2; i < nt + 2; i++)
		start[i] += start[i - 1];
	/* start[t + 1] is where group t begins; filling it moves it to the group's end */
	for (size_t i = 0; i < n; i++) {
		memcpy(&t, c + i * size + off, sizeof(t));
		order[start[map[t] + 1]++] = i;
	}
	*order_out = order;
	*start_out = start;
	return 0;
}

/* Nanoseconds from meta.startTime to sample @i. */
static uint64_t sample_ns(const struct ff *f, size_t i)
{
	if (!f->has_time)
		return i * f->step;
	return f->samples[i].time > f->t0 ? f->samples[i].time - f->t0 : 0;
}

static uint64_t switch_ns(const struct ff *f, size_t i)
{
	if (!f->has_time)
		return 0;
	return f->switches[i].time > f->t0 ? f->switches[i].time - f->t0 : 0;
}

static const char *fact(const struct pcl_export_opts *o, const char *name)
{
	for (size_t i = 0; i < o->nr_facts; i++)
		if (o->facts[i].name && o->facts[i].value && !strcmp(o->facts[i].name, name))
			return o->facts[i].value;
	return NULL;
}

static const char *arch(const struct pcl_export_opts *o)
{
	const char *a = fact(o, "arch");

	if (a)
		return a;
#if defined(__x86_64__)
	return "x86_64";
#elif defined(__aarch64__)
	return "aarch64";
#elif defined(__i386__)
	return "x86";
#else
	return "";
#endif
}

static int func_category(const struct pcl_profile_func *fn)
{
	/* kernel code as the flame graphs colour it (perf's level is the sample's) */
	if (profile_func_kernel(fn))
		return CAT_KERNEL;
	/* the leaf pcl report --wall gives off-CPU samples (docs/offcpu.md) */
	if (!fn->dso && fn->name && !strcmp(fn->name, "[off-CPU]"))
		return CAT_OFFCPU;
	return fn->level == '.' || fn->level == 'k' ? CAT_USER : CAT_OTHER;
}

/* ---- meta ---- */

static void put_meta(struct ff *f, uint64_t end_ns)
{
	FILE *fp = f->fp;
	const struct pcl_export_opts *o = f->opts;
	const char *s;

	fputs("\"meta\":{\"version\":", fp);
	put_u64(fp, GECKO_PROFILE_VERSION);
	fputs(",\"interval\":", fp);
	if (o->period_is_ns && o->interval)
		put_ms(fp, o->interval);
	else
		fputc('1', fp);
	fputs(",\"startTime\":", fp);
	if (o->has_wall_clock && (int64_t)f->t0 + o->wall_clock_offset > 0)
		put_ms(fp, (uint64_t)((int64_t)f->t0 + o->wall_clock_offset));
	else
		put_ms(fp, f->t0);
	fputs(",\"profilingStartTime\":0,\"profilingEndTime\":", fp);
	put_ms(fp, end_ns);
	fputs(",\"shutdownTime\":null,\"processType\":0,\"product\":\"pcl\",", fp);
	fputs("\"stackwalk\":1,\"debug\":0,\"gcpoison\":0,\"asyncstack\":0,", fp);
	fputs("\"presymbolicated\":true,\"platform\":\"Linux\",\"abi\":", fp);
	json_str(fp, arch(o));
	if ((s = fact(o, "os release"))) {
		fputs(",\"oscpu\":", fp);
		json_str(fp, s);
	}
	if ((s = fact(o, "cpu"))) {
		fputs(",\"CPUName\":", fp);
		json_str(fp, s);
	}
	/* Other first and grey: the profiler's default category */
	fputs(",\n\"categories\":["
	      "{\"name\":\"Other\",\"color\":\"grey\",\"subcategories\":[\"Other\"]},"
	      "{\"name\":\"User\",\"color\":\"yellow\",\"subcategories\":[\"Other\"]},"
	      "{\"name\":\"Kernel\",\"color\":\"orange\",\"subcategories\":[\"Other\"]},"
	      "{\"name\":\"Off-CPU\",\"color\":\"blue\",\"subcategories\":[\"Other\"]}],\n",
	      fp);
	fputs("\"markerSchema\":[{\"name\":\"ContextSwitch\","
	      "\"tooltipLabel\":\"Off-CPU ({marker.data.reason})\","
	      "\"tableLabel\":\"{marker.data.reason}\","
	      "\"chartLabel\":\"{marker.data.reason}\","
	      "\"display\":[\"marker-chart\",\"marker-table\",\"timeline-overview\"],"
	      "\"data\":[{\"key\":\"reason\",\"label\":\"Reason\",\"format\":\"string\","
	      "\"searchable\":true},"
	      "{\"label\":\"Description\",\"value\":\"The thread was off the CPU, from a "
	      "context switch out to the next switch back in: preempted while runnable, "
	      "or blocked (sleeping, waiting).\"}]}]},\n",
	      fp);
}

/* ---- libs ---- */

static void put_hex(FILE *fp, const uint8_t *b, size_t n, bool upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		fputc(digits[b[i] >> 4], fp);
		fputc(digits[b[i] & 15], fp);
	}
}

/*
 * Breakpad's id of an ELF file: the build id's first 16 bytes (zero-padded)
 * read as a GUID, whose first three fields are little-endian, then the age, 0.
 */
static void put_breakpad_id(FILE *fp, const struct pcl_dso *d)
{
	uint8_t g[16] = { 0 };
	static const uint8_t swap[16] = { 3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15 };
	uint8_t out[16];

	memcpy(g, d->build_id, d->build_id_size < 16 ? d->build_id_size : 16);
	for (size_t i = 0; i < 16; i++)
		out[i] = g[swap[i]];
	fputc('"', fp);
	put_hex(fp, out, 16, true);
	fputs("0\"", fp);
}

static void put_lib(FILE *fp, const struct pcl_profile_func *fn, const char *arch)
{
	const struct pcl_dso *d = fn->dso;
	const char *name = d->short_name ? d->short_name : d->name;

	fputs("{\"name\":", fp);
	json_str(fp, name);
	fputs(",\"path\":", fp);
	json_str(fp, d->name);
	fputs(",\"debugName\":", fp);
	json_str(fp, name);
	fputs(",\"debugPath\":", fp);
	json_str(fp, d->name);
	fputs(",\"breakpadId\":", fp);
	if (d->build_id_size) {
		put_breakpad_id(fp, d);
		fputs(",\"codeId\":\"", fp);
		put_hex(fp, d->build_id, d->build_id_size, false);
		fputc('"', fp);
	} else {
		fputs("\"\"", fp);
	}
	fputs(",\"arch\":", fp);
	json_str(fp, arch);
	fputs(",\"start\":", fp);
	put_u64(fp, fn->map ? fn->map->start : 0);
	fputs(",\"end\":", fp);
	put_u64(fp, fn->map ? fn->map->end : 0);
	fputs(",\"offset\":", fp);
	put_u64(fp, fn->map && d->kind == PCL_DSO_USER ? fn->map->pgoff : 0);
	fputc('}', fp);
}

static int cmp_lib(const void *a, const void *b)
{
	const struct pcl_profile_func *x = *(const struct pcl_profile_func *const *)a;
	const struct pcl_profile_func *y = *(const struct pcl_profile_func *const *)b;
	uint64_t s = x->map ? x->map->start : 0, t = y->map ? y->map->start : 0;

	return s < t ? -1 : s > t;
}

/*
 * One lib per DSO, described through the first function sampled in it,
 * in address order (the profiler looks addresses up by bisection).
 */
static int put_libs(struct ff *f)
{
	const struct pcl_profile_func **lib = calloc(f->nr_funcs ? f->nr_funcs : 1, sizeof(*lib));
	const char *a = arch(f->opts);
	size_t n = 0;

	if (!lib)
		return -ENOMEM;
	for (size_t i = 0; i < f->nr_funcs; i++) {
		const struct pcl_dso *d = f->funcs[i].dso;
		size_t j = 0;

		if (!d)
			continue;
		while (j < n && lib[j]->dso != d)
			j++;
		if (j == n)
			lib[n++] = &f->funcs[i];
	}
	qsort(lib, n, sizeof(*lib), cmp_lib);
	fputs("\"libs\":[", f->fp);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",\n" : "\n", f->fp);
		put_lib(f->fp, lib[i], a);
	}
	fputs("],\n", f->fp);
	free(lib);
	return 0;
}

/* ---- threads ---- */

/* The thread's stack for @node (creating it, its callers' and their frames), or -1 for none. */
static int64_t stack_of(struct ff *f, uint32_t node)
{
	size_t n = 0;

	if (!node)
		return -1;
	while (node && !f->node_stack[node]) {
		f->path[n++] = node;
		node = f->nodes[node].parent;
	}
	/* outermost first, so each prefix exists before the stacks that extend it */
	while (n--) {
		uint32_t nd = f->path[n], l = f->nodes[nd].loc;

		if (!f->loc_frame[l]) {
			f->frame_loc[f->nr_frames++] = l;
			f->loc_frame[l] = (uint32_t)f->nr_frames;
		}
		f->stack_node[f->nr_stacks++] = nd;
		f->node_stack[nd] = (uint32_t)f->nr_stacks;
		node = nd;
	}
	return f->node_stack[node] - 1;
}

/*
 * How many samples of one interval sample @i stands for: with by_period
 * (off-CPU time, the wall view) its period in ns over the interval, as
 * the Gecko format has no weights (process-profile.ts sets weight null);
 * 1 otherwise. Capped, so that a thread blocked for hours stays a file.
 */
static uint64_t sample_reps(const struct ff *f, size_t i)
{
	uint64_t n;

	if (!f->opts->by_period || !f->opts->period_is_ns || !f->has_time || !f->step)
		return 1;
	n = (f->samples[i].period + f->step / 2) / f->step;
	return n < 1 ? 1 : n > PCL_FIREFOX_MAX_REPS ? PCL_FIREFOX_MAX_REPS : n;
}

static void put_samples(struct ff *f, size_t t)
{
	FILE *fp = f->fp;
	uint64_t last = 0;
	bool first = true;

	fputs("\"samples\":{\"schema\":{\"stack\":0,\"time\":1,\"eventDelay\":2},\"data\":[", fp);
	for (size_t k = f->s_start[t]; k < f->s_start[t + 1]; k++) {
		size_t i = f->s_order[k];
		int64_t st = stack_of(f, f->samples[i].node);
		uint64_t n = sample_reps(f, i), end = sample_ns(f, i), p = f->samples[i].period;

		/* a weighed sample ends at its time and spreads back over its period */
		for (uint64_t j = 0; j < n; j++) {
			uint64_t at = n == 1 ? end : end - (p < end ? p : end) + (j + 1) * (p / n);

			at = at < last ? last : at > end ? end : at;
			last = at;
			fputs(first ? "\n[" : ",\n[", fp);
			first = false;
			if (st < 0)
				fputs("null", fp);
			else
				put_u64(fp, (uint64_t)st);
			fputc(',', fp);
			put_ms(fp, at);
			fputs(",0]", fp);
		}
	}
	fputs("]},\n", fp);
}

static void put_stack_table(struct ff *f)
{
	FILE *fp = f->fp;

	fputs("\"stackTable\":{\"schema\":{\"prefix\":0,\"frame\":1},\"data\":[", fp);
	for (size_t i = 0; i < f->nr_stacks; i++) {
		const struct pcl_profile_node *nd = &f->nodes[f->stack_node[i]];

		fputs(i ? ",[" : "[", fp);
		if (nd->parent)
			put_u64(fp, f->node_stack[nd->parent] - 1);
		else
			fputs("null", fp);
		fputc(',', fp);
		put_u64(fp, f->loc_frame[nd->loc] - 1);
		fputc(']', fp);
	}
	fputs("]},\n", fp);
}

/*
 * A frame's line: where in its function the location is (the last level of
 * its inline chain: the function itself, at the call of what is inlined
 * there), 0 when unknown.
 */
static unsigned int frame_line(const struct ff *f, const struct pcl_profile_loc *l)
{
	size_t last = (size_t)l->first_line + l->nr_lines - 1;

	return l->nr_lines && last < f->nr_lines ? f->lines[last].line : 0;
}

/* Frame i's location is string i. */
static void put_frame_table(struct ff *f)
{
	FILE *fp = f->fp;

	fputs("\"frameTable\":{\"schema\":{\"location\":0,\"relevantForJS\":1,"
	      "\"innerWindowID\":2,\"implementation\":3,\"line\":4,\"column\":5,"
	      "\"category\":6,\"subcategory\":7},\"data\":[",
	      fp);
	for (size_t i = 0; i < f->nr_frames; i++) {
		fputs(i ? ",\n[" : "\n[", fp);
		const struct pcl_profile_loc *l = &f->locs[f->frame_loc[i]];
		unsigned int line = frame_line(f, l);

		put_u64(fp, i);
		fputs(",false,null,null,", fp);
		if (line)
			put_u64(fp, line);
		else
			fputs("null", fp);
		fputs(",null,", fp);
		put_u64(fp, (uint64_t)func_category(&f->funcs[l->func]));
		fputs(",0]", fp);
	}
	fputs("]},\n", fp);
}

/*
 * "symbol (in dso)": what the profiler splits into a function and its
 * library. "symbol (FILE:LINE)" for a function whose source is known: the
 * only form from which it fills the function's fileName and lineNumber.
 */
static void put_location(FILE *fp, const struct pcl_profile_func *fn)
{
	const struct pcl_dso *d = fn->dso;
	const char *lib = d ? (d->short_name ? d->short_name : d->name) : NULL;
	char *s = NULL;

	if (fn->file && fn->line) {
		if (asprintf(&s, "%s (%s:%u)", fn->name, fn->file, fn->line) < 0) {
			json_str(fp, fn->name);
			return;
		}
	} else if (!fn->start && !fn->end && !strcmp(fn->name, "[unknown]")) {
		/* code no symbol covers: one frame per address, named by it as the profiler does */
		if (lib ? asprintf(&s, "0x%" PRIx64 " (in %s)", fn->ip, lib) < 0
			: asprintf(&s, "0x%" PRIx64, fn->ip) < 0) {
			json_str(fp, fn->name);
			return;
		}
	} else if (!lib || asprintf(&s, "%s (in %s)", fn->name, lib) < 0) {
		json_str(fp, fn->name);
		return;
	}
	json_str(fp, s);
	free(s);
}

/* Off-CPU intervals of thread @t; the marker name is string @name. */
static size_t put_markers(struct ff *f, size_t t, size_t name)
{
	FILE *fp = f->fp;
	size_t n = 0, out = SIZE_MAX;

	fputs("\"markers\":{\"schema\":{\"name\":0,\"startTime\":1,\"endTime\":2,\"phase\":3,"
	      "\"category\":4,\"data\":5},\"data\":[",
	      fp);
	for (size_t k = f->w_start[t]; f->has_time && k < f->w_start[t + 1]; k++) {
		size_t i = f->w_order[k];
		const struct pcl_profile_switch *w = &f->switches[i];

		if (w->out) {
			if (out == SIZE_MAX)
				out = i;
			continue;
		}
		if (out == SIZE_MAX)
			continue; /* back in without having been seen to leave */
		fputs(n++ ? ",\n[" : "\n[", fp);
		put_u64(fp, name);
		fputc(',', fp);
		put_ms(fp, switch_ns(f, out));
		fputc(',', fp);
		put_ms(fp, switch_ns(f, i));
		fputs(",1,0,{\"type\":\"ContextSwitch\",", fp);
		fputs(f->switches[out].preempt ? "\"preempted\":true,\"reason\":\"preempted\"}]"
					       : "\"preempted\":false,\"reason\":\"blocked\"}]",
		      fp);
		out = SIZE_MAX;
	}
	fputs("]},\n", fp);
	return n;
}

/* The name of merged thread @t's process: its main thread's (tid == pid), else its own. */
static const char *process_name(const struct ff *f, size_t t)
{
	int32_t pid = f->threads[t].pid;

	for (size_t i = 0; i < f->nr_threads; i++)
		if (f->rep[i] == i && f->threads[i].tid == pid && f->threads[i].pid == pid)
			return f->name[i];
	return f->name[t];
}

/* Merge the threads that share a pid and tid; name each after most of its samples. */
static int merge_threads(struct ff *f)
{
	uint64_t *count = calloc(f->nr_threads + 1, sizeof(*count));
	uint64_t *best = calloc(f->nr_threads + 1, sizeof(*best));

	if (!count || !best) {
		free(count);
		free(best);
		return -ENOMEM;
	}
	for (size_t i = 0; i < f->nr_samples; i++)
		count[f->samples[i].thread]++;
	for (size_t t = 0; t < f->nr_threads; t++) {
		size_t r = 0;

		while (f->threads[r].pid != f->threads[t].pid ||
		       f->threads[r].tid != f->threads[t].tid)
			r++;
		f->rep[t] = (uint32_t)r;
		/* ties go to the later name: the one the thread ended with */
		if (r == t || count[t] >= best[r]) {
			best[r] = count[t];
			f->name[r] = f->threads[t].comm ? f->threads[t].comm : "";
		}
	}
	free(count);
	free(best);
	return 0;
}

/* First and last event of thread @t, ns since meta.startTime. */
static void thread_span(const struct ff *f, size_t t, uint64_t *first, uint64_t *last)
{
	bool any = false;

	*first = *last = 0;
	if (f->s_start[t] < f->s_start[t + 1]) {
		*first = sample_ns(f, f->s_order[f->s_start[t]]);
		*last = sample_ns(f, f->s_order[f->s_start[t + 1] - 1]);
		any = true;
	}
	if (f->w_start[t] < f->w_start[t + 1]) {
		uint64_t a = switch_ns(f, f->w_order[f->w_start[t]]);
		uint64_t b = switch_ns(f, f->w_order[f->w_start[t + 1] - 1]);

		*first = any && *first < a ? *first : a;
		*last = any && *last > b ? *last : b;
	}
}

static void put_thread(struct ff *f, size_t t)
{
	FILE *fp = f->fp;
	const struct pcl_profile_thread *th = &f->threads[t];
	uint64_t first, last;
	size_t markers;

	thread_span(f, t, &first, &last);
	fputs("{\"name\":", fp);
	json_str(fp, f->name[t]);
	fputs(",\"processType\":\"default\",\"processName\":", fp);
	json_str(fp, process_name(f, t));
	fprintf(fp, ",\"pid\":%" PRId32 ",\"tid\":%" PRId32 ",\"registerTime\":", th->pid, th->tid);
	put_ms(fp, first);
	fputs(",\"unregisterTime\":", fp);
	put_ms(fp, last);
	fputs(",\n", fp);
	f->nr_stacks = f->nr_frames = 0;
	put_samples(f, t);
	put_stack_table(f);
	put_frame_table(f);
	markers = put_markers(f, t, f->nr_frames);
	fputs("\"stringTable\":[", fp);
	for (size_t i = 0; i < f->nr_frames; i++) {
		fputs(i ? ",\n" : "\n", fp);
		put_location(fp, &f->funcs[f->locs[f->frame_loc[i]].func]);
	}
	if (markers)
		fputs(f->nr_frames ? ",\n\"Off-CPU\"" : "\"Off-CPU\"", fp);
	fputs("]}", fp);
	/* leave the maps empty for the next thread */
	for (size_t i = 0; i < f->nr_stacks; i++)
		f->node_stack[f->stack_node[i]] = 0;
	for (size_t i = 0; i < f->nr_frames; i++)
		f->loc_frame[f->frame_loc[i]] = 0;
}

/* ---- the document ---- */

static int ff_init(struct ff *f, FILE *fp, const struct pcl_profile *p,
		   const struct pcl_export_opts *opts)
{
	uint32_t max_depth = 0;

	f->fp = fp;
	f->opts = opts;
	f->funcs = pcl_profile__funcs(p, &f->nr_funcs);
	f->nodes = pcl_profile__nodes(p, &f->nr_nodes);
	f->locs = pcl_profile__locs(p, &f->nr_locs);
	f->lines = pcl_profile__lines(p, &f->nr_lines);
	f->threads = pcl_profile__threads(p, &f->nr_threads);
	f->samples = pcl_profile__samples(p, &f->nr_samples);
	f->switches = pcl_profile__switches(p, &f->nr_switches);
	for (size_t i = 0; i < f->nr_nodes; i++)
		if (f->nodes[i].depth > max_depth)
			max_depth = f->nodes[i].depth;
	/* meta.startTime: the first sample or switch, whichever came first */
	f->t0 = pcl_profile__time_first(p);
	f->has_time = f->t0 != 0;
	/* switches are sorted by time: the first one decides */
	if (f->has_time && f->nr_switches && f->switches[0].time && f->switches[0].time < f->t0)
		f->t0 = f->switches[0].time;
	f->step = opts->period_is_ns && opts->interval ? opts->interval : 1000000;
	f->node_stack = calloc(f->nr_nodes, sizeof(*f->node_stack));
	f->stack_node = calloc(f->nr_nodes, sizeof(*f->stack_node));
	f->loc_frame = calloc(f->nr_locs ? f->nr_locs : 1, sizeof(*f->loc_frame));
	f->frame_loc = calloc(f->nr_locs ? f->nr_locs : 1, sizeof(*f->frame_loc));
	f->path = calloc(max_depth + 1, sizeof(*f->path));
	f->rep = calloc(f->nr_threads + 1, sizeof(*f->rep));
	f->name = calloc(f->nr_threads + 1, sizeof(*f->name));
	if (!f->node_stack || !f->stack_node || !f->loc_frame || !f->frame_loc || !f->path ||
	    !f->rep || !f->name || merge_threads(f))
		return -ENOMEM;
	if (group_by_thread(f->samples, f->nr_samples, sizeof(*f->samples),
			    offsetof(struct pcl_profile_sample, thread), f->rep, f->nr_threads,
			    &f->s_order, &f->s_start) ||
	    group_by_thread(f->switches, f->nr_switches, sizeof(*f->switches),
			    offsetof(struct pcl_profile_switch, thread), f->rep, f->nr_threads,
			    &f->w_order, &f->w_start))
		return -ENOMEM;
	return 0;
}

static void ff_release(struct ff *f)
{
	free(f->node_stack);
	free(f->stack_node);
	free(f->loc_frame);
	free(f->frame_loc);
	free(f->path);
	free(f->rep);
	free(f->name);
	free(f->s_order);
	free(f->s_start);
	free(f->w_order);
	free(f->w_start);
}

/* ns from meta.startTime to the last sample or switch. */
static uint64_t profile_end(const struct ff *f)
{
	uint64_t end = f->nr_samples ? sample_ns(f, f->nr_samples - 1) : 0;

	if (f->nr_switches && switch_ns(f, f->nr_switches - 1) > end)
		end = switch_ns(f, f->nr_switches - 1);
	return end;
}

int pcl_export_firefox(FILE *fp, const struct pcl_profile *p, const struct pcl_export_opts *opts)
{
	struct pcl_export_opts o;
	struct ff f = { 0 };
	int ret;

	if (!fp || !p)
		return pcl_err(EINVAL, "pcl_export_firefox: no output or no profile");
	if (opts_copy(&o, opts, "pcl_export_opts") < 0)
		return -EINVAL;
	opts = &o;
	if (!pcl_profile__samples(p, &f.nr_samples) && pcl_profile__nr_samples(p))
		return pcl_err(-EINVAL, "firefox: the profile was built without its timeline");
	ret = ff_init(&f, fp, p, opts);
	if (ret)
		goto out;
	fputc('{', fp);
	put_meta(&f, profile_end(&f));
	ret = put_libs(&f);
	if (ret)
		goto out;
	fputs("\"threads\":[", fp);
	for (size_t t = 0, n = 0; t < f.nr_threads; t++) {
		if (f.rep[t] != t)
			continue; /* merged into an earlier one */
		fputs(n++ ? ",\n" : "\n", fp);
		put_thread(&f, t);
	}
	fputs("],\n\"processes\":[],\"pausedRanges\":[]}\n", fp);
out:
	ff_release(&f);
	if (ret)
		return pcl_err(ret, "out of memory");
	if (ferror(fp))
		return pcl_err(-EIO, "cannot write the Firefox profile");
	return 0;
}
