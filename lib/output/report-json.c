/* SPDX-License-Identifier: MIT */
/*
 * The report as JSON (contract in include/pcl/report.h): the same entries
 * pcl_report__print shows, in the same order, with their numbers unrounded
 * and their call trees as nested objects, for scripts.
 *
 * Invariants: an entry is written exactly when the stdio report prints it
 * (not hidden by a filter, not empty, not under --percent-limit); a call
 * tree node is written exactly when the stdio graph would show its branch
 * (-g's minimum, of the total or, in fractal mode, of the parent). Numbers
 * are written without the locale (a decimal comma is not JSON).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <pcl/export.h>
#include <pcl/report.h>
#include "internal.h"
#include "output/json.h"

struct jwriter {
	FILE *fp;
	const struct pcl_report_opts *o;
	uint64_t total;	  /* percentages of this */
	uint64_t min_hit; /* graph: nodes lighter than this are left out */
};

static double pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

/* A percentage with 4 decimals, whatever LC_NUMERIC says. */
static void put_pct(FILE *fp, uint64_t v, uint64_t total)
{
	long long c = llround(pct(v, total) * 10000.0);

	fprintf(fp, "%lld.%04lld", c / 10000, c % 10000);
}

static bool group_mode(const struct jwriter *w)
{
	return w->o->nr_members > 1 && w->o->member_totals;
}

/* What pcl_report__print shows: the same test, so the two views never disagree. */
static bool shown(const struct jwriter *w, const struct pcl_hist_entry *e)
{
	bool any = e->self || (w->o->children && e->children);

	if (e->hidden)
		return false;
	for (int i = 1; group_mode(w) && e->member_self && i < w->o->nr_members; i++)
		any = any || e->member_self[i];
	if (!any)
		return false;
	return pct(w->o->children ? e->children : e->self, w->total) >= w->o->percent_limit;
}

static const char *dso_name(const struct pcl_frame *f)
{
	return f->map ? f->map->dso->short_name : "[unknown]";
}

static void put_level(FILE *fp, char level)
{
	char s[2] = { level ? level : '.', '\0' };

	json_str(fp, s);
}

/* ---- call trees ---- */

static bool node_shown(const struct jwriter *w, const struct pcl_callnode *n,
		       uint64_t parent_children)
{
	if (w->o->graph == PCL_GRAPH_REL)
		return (double)n->total >=
		       ceil((double)parent_children * w->o->graph_min_percent / 100.0);
	return n->total >= w->min_hit;
}

/* The children of @parent that are shown, as a JSON array. */
static void put_nodes(struct jwriter *w, const struct pcl_callnode *parent)
{
	FILE *fp = w->fp;
	uint64_t parent_children = parent->total - parent->self;
	bool first = true;
	char buf[32];

	fputc('[', fp);
	for (const struct pcl_callnode *n = parent->first; n; n = n->next) {
		if (!node_shown(w, n, parent_children))
			continue;
		fputs(first ? "{\"symbol\":" : ",{\"symbol\":", fp);
		first = false;
		if (n->frame.sym) {
			json_str(fp, n->frame.sym->name);
		} else {
			/* as the stdio graph names an unresolved frame: its ip */
			snprintf(buf, sizeof(buf), "%#llx", (unsigned long long)n->frame.ip);
			json_str(fp, buf);
		}
		fputs(",\"dso\":", fp);
		json_str(fp, dso_name(&n->frame));
		fputs(",\"level\":", fp);
		put_level(fp, n->frame.level);
		if (n->frame.inlined)
			fputs(",\"inlined\":true", fp);
		fprintf(fp,
			",\"period\":%" PRIu64 ",\"self\":%" PRIu64 ",\"samples\":%" PRIu64
			",\"children\":",
			n->total, n->self, n->count);
		put_nodes(w, n);
		fputc('}', fp);
	}
	fputc(']', fp);
}

/* ---- entries ---- */

static void put_keys(struct jwriter *w, const struct pcl_hist_entry *e)
{
	FILE *fp = w->fp;
	const struct pcl_frame *f = &e->frame;
	char buf[32];

	for (int i = 0; i < w->o->nr_keys; i++) {
		switch (w->o->keys[i]) {
		case PCL_SORT_COMM:
			fputs(",\"comm\":", fp);
			json_str(fp, e->comm);
			break;
		case PCL_SORT_PID:
		case PCL_SORT_TID:
			/* perf's pid key: the thread, shown with its comm now */
			fprintf(fp, ",\"pid\":%" PRId32 ",\"tid\":%" PRId32 ",\"thread\":", e->pid,
				e->tid);
			json_str(fp, e->thread ? e->thread->comm : e->comm);
			break;
		case PCL_SORT_CPU:
			fprintf(fp, ",\"cpu\":%" PRId32, e->cpu);
			break;
		case PCL_SORT_DSO:
			fputs(",\"dso\":", fp);
			json_str(fp, dso_name(f));
			break;
		case PCL_SORT_SYM:
			fputs(",\"symbol\":", fp);
			if (f->sym) {
				json_str(fp, f->sym->name);
			} else {
				/* the address as the stdio report's Symbol column shows it */
				snprintf(buf, sizeof(buf), "%#.*llx", 16,
					 (unsigned long long)f->addr);
				json_str(fp, buf);
			}
			fputs(",\"level\":", fp);
			put_level(fp, f->level);
			if (f->inlined)
				fputs(",\"inlined\":true", fp);
			break;
		case PCL_SORT_SRCLINE:
			fputs(",\"srcline\":", fp);
			json_str(fp, e->srcline ? e->srcline : "");
			break;
		case PCL_SORT_SRCFILE:
			fputs(",\"srcfile\":", fp);
			json_str(fp, e->srcfile ? e->srcfile : "");
			break;
		case PCL_SORT_PARENT:
			fputs(",\"parent\":", fp);
			json_str(fp, e->parent ? e->parent->name : "[other]");
			break;
		default:
			break;
		}
	}
}

static void put_entry(struct jwriter *w, const struct pcl_hist_entry *e)
{
	FILE *fp = w->fp;

	fputs("{\"overhead\":", fp);
	put_pct(fp, w->o->children ? e->children : e->self, w->total);
	fputs(",\"self\":", fp);
	put_pct(fp, e->self, w->total);
	if (w->o->children) {
		fputs(",\"children\":", fp);
		put_pct(fp, e->children, w->total);
	}
	if (group_mode(w)) {
		fputs(",\"members\":[", fp);
		for (int i = 0; i < w->o->nr_members; i++) {
			fputs(i ? "," : "", fp);
			put_pct(fp, e->member_self ? e->member_self[i] : 0, w->o->member_totals[i]);
		}
		fputc(']', fp);
	}
	fprintf(fp, ",\"period\":%" PRIu64, e->self);
	if (w->o->children)
		fprintf(fp, ",\"children_period\":%" PRIu64, e->children);
	fprintf(fp, ",\"samples\":%" PRIu64, e->nr_samples);
	put_keys(w, e);
	if (e->root && w->o->graph != PCL_GRAPH_NONE) {
		fputs(",\"callchain\":", fp);
		put_nodes(w, e->root);
	}
	fputc('}', fp);
}

static const char *key_name(enum pcl_sort_key k)
{
	static const char *const names[PCL_SORT_MAX] = {
		[PCL_SORT_COMM] = "comm",	[PCL_SORT_DSO] = "dso",
		[PCL_SORT_SYM] = "sym",		[PCL_SORT_PID] = "pid",
		[PCL_SORT_TID] = "tid",		[PCL_SORT_CPU] = "cpu",
		[PCL_SORT_SRCLINE] = "srcline", [PCL_SORT_SRCFILE] = "srcfile",
		[PCL_SORT_PARENT] = "parent",
	};

	return (unsigned int)k < PCL_SORT_MAX ? names[k] : "?";
}

PCL_API int pcl_report__json(FILE *fp, const char *event, const struct pcl_hists *h,
			     const struct pcl_report_opts *opts)
{
	struct pcl_report_opts o = { 0 };
	struct jwriter w = { .fp = fp, .o = &o };
	size_t n = pcl_hists__nr_entries(h);
	bool first = true;

	if (!fp || !h || !opts)
		return pcl_err(-EINVAL, "report json: no file, histogram or options");
	if (opts_copy(&o, opts, "pcl_report_opts") < 0)
		return -EINVAL; /* with opts_copy's message */
	if (o.nr_keys <= 0 || o.nr_keys > PCL_SORT_MAX) {
		o.keys[0] = PCL_SORT_COMM;
		o.keys[1] = PCL_SORT_DSO;
		o.keys[2] = PCL_SORT_SYM;
		o.nr_keys = 3;
	}
	w.total = o.total_period ? o.total_period : pcl_hists__total_period(h);
	w.min_hit = (uint64_t)((double)w.total * (o.graph_min_percent / 100.0));
	fputs("{\"name\":", fp);
	json_str(fp, event ? event : "");
	fprintf(fp, ",\"samples\":%" PRIu64 ",\"event_count\":%" PRIu64 ",\"sort\":[",
		o.nr_samples ? o.nr_samples : pcl_hists__nr_samples(h), w.total);
	for (int i = 0; i < o.nr_keys; i++) {
		fputs(i ? "," : "", fp);
		json_str(fp, key_name(o.keys[i]));
	}
	fputs("],\"entries\":[", fp);
	for (size_t i = 0; i < n; i++) {
		const struct pcl_hist_entry *e = pcl_hists__entry(h, i);

		if (!shown(&w, e))
			continue;
		fputs(first ? "\n" : ",\n", fp);
		first = false;
		put_entry(&w, e);
	}
	fputs("]}", fp);
	if (ferror(fp))
		return pcl_err(-EIO, "cannot write the JSON report");
	return 0;
}

/* A fact's name as a key: "os release" -> "os_release". */
static void put_key(FILE *fp, const char *name)
{
	char buf[64];
	size_t i;

	for (i = 0; name[i] && i < sizeof(buf) - 1; i++)
		buf[i] = (name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
					 (name[i] >= '0' && name[i] <= '9')
				 ? name[i]
				 : '_';
	buf[i] = '\0';
	json_str(fp, buf);
}

PCL_API int pcl_report__json_header(FILE *fp, const struct pcl_export_fact *facts, size_t nr_facts,
				    uint64_t lost_samples)
{
	if (!fp || (nr_facts && !facts))
		return pcl_err(-EINVAL, "report json: no file or facts");
	fputc('{', fp);
	for (size_t i = 0; i < nr_facts; i++) {
		if (!facts[i].name || !facts[i].value)
			continue;
		put_key(fp, facts[i].name);
		fputc(':', fp);
		json_str(fp, facts[i].value);
		fputc(',', fp);
	}
	fprintf(fp, "\"total_lost_samples\":%" PRIu64 "}", lost_samples);
	if (ferror(fp))
		return pcl_err(-EIO, "cannot write the JSON report");
	return 0;
}
