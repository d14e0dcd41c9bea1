/* SPDX-License-Identifier: MIT */
/*
 * Counting sessions printed the way perf stat 6.1 prints them.
 *
 * Rows: the counters of an evlist are summed into aggregation ids (one id
 * for global counting; one per CPU, core, socket or thread otherwise).
 * Each (event, id) pair keeps a running mean and variance of its scaled
 * value over the runs (-r) by Welford's method, and a snapshot for interval
 * deltas (-I).
 *
 * Layout of a standard row, measured against perf 6.1:
 *   [prefix] %18s value, ' ', %-4s unit, ' ', %-32s name, metric (35 wide:
 *   " # " fmt " " %-23s unit), then "  ( +-%6.2f%% )" noise and
 *   "  (%.2f%%)" running share. Rows that did not count use %-25s for the
 *   name and 35 blanks for the metric, as perf does.
 * CSV fields: [interval,][aggr,]value,unit,event,[variance,]run,pcnt,
 *   metric,metric-unit. JSON keys: the same names perf uses.
 */
#include <dirent.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "internal.h"
#include "output/json.h"
#include "output/stat-metrics.h"
#include <pcl/metric.h>

struct welford {
	int n;
	double mean, m2;
};

struct row {
	struct welford val; /* count over runs (multiplex-scaled, not unit-scaled) */
	double sum;	    /* exact sum of those counts, for the printed mean */
	struct welford ena, run;
	bool counted;	       /* run > 0 in the last run */
	struct pcl_count last; /* raw sum of the last run */
	struct pcl_count prev; /* interval snapshot */
};

struct aggr_id {
	int socket, die, core, cpu;
	int node;	/* NUMA node, -1 when sysfs does not say */
	int nr;		/* CPUs in it */
	int thread_idx; /* per-thread mode */
	char comm[32];
	pid_t tid;
};

/* A formula metric (-M) and the events it reads. */
struct user_metric {
	char *name, *expr;
	char unit[192]; /* what the metric column shows after the value: "%  name" or "name" */
	double scale;
	bool scaled;  /* it has a scale unit: one decimal, as perf prints those */
	char **names; /* the formula's event names ... */
	int *idx;     /* ... and the evlist index counting each */
	int n;
	int anchor;    /* the event whose row shows it */
	bool own_line; /* that row already shows another metric */
};

struct pcl_stat {
	struct pcl_stat_config cfg;
	struct user_metric *um;
	int nr_um;
	struct pcl_evlist *el;
	int nr_ev;
	int nr_aggr;
	struct aggr_id *ids;
	int *cpu_aggr;	  /* cpu index -> aggregation id */
	struct row *rows; /* [ev * nr_aggr + aggr] */
	struct welford wall;
	double user_s, sys_s;
	int intervals;
	int ncpus, nthreads; /* the evlist's maps when the rows were laid out */
	bool cgroups;	     /* some event counts in a cgroup: print the column */
};

static const char *cgroup_of(const struct pcl_stat *st, int idx)
{
	const char *cg = pcl_evlist__cgroup(st->el, idx);

	return cg ? cg : "";
}

static void welford_add(struct welford *w, double x)
{
	double d = x - w->mean;

	w->n++;
	w->mean += d / w->n;
	w->m2 += d * (x - w->mean);
}

/* Standard deviation of the mean, as perf's stddev_stats(). */
static double welford_stddev_mean(const struct welford *w)
{
	double var;

	if (w->n < 2)
		return 0.0;
	var = w->m2 / (w->n - 1);
	return sqrt(var / w->n);
}

static double rel_stddev(const struct welford *w)
{
	return w->mean ? 100.0 * welford_stddev_mean(w) / w->mean : 0.0;
}

static int same_id(const struct aggr_id *a, const struct aggr_id *b, enum pcl_aggr_mode m)
{
	if (m == PCL_AGGR_SOCKET)
		return a->socket == b->socket;
	if (m == PCL_AGGR_DIE)
		return a->socket == b->socket && a->die == b->die;
	if (m == PCL_AGGR_NODE)
		return a->node == b->node;
	return a->socket == b->socket && a->die == b->die && a->core == b->core;
}

static int cmp_aggr(const void *pa, const void *pb)
{
	const struct aggr_id *a = pa, *b = pb;

	if (a->node != b->node)
		return a->node - b->node; /* equal but for --per-node */
	if (a->socket != b->socket)
		return a->socket - b->socket;
	if (a->die != b->die)
		return a->die - b->die;
	if (a->core != b->core)
		return a->core - b->core;
	return a->cpu - b->cpu;
}

static void read_comm(pid_t tid, char *buf, size_t size)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)tid);
	if (read_small_file(path, buf, size) <= 0)
		snprintf(buf, size, "%s", "<unknown>");
}

/*
 * The NUMA node holding @cpu: the nodeN directory with a cpuM entry, as
 * perf's cpu map reads it; -1 when sysfs has none.
 */
static int cpu_node(int cpu)
{
	DIR *d = opendir("/sys/devices/system/node");
	struct dirent *de;
	int node = -1;

	while (d && node < 0 && (de = readdir(d))) {
		char path[300];
		struct stat sb;
		int n;

		if (sscanf(de->d_name, "node%d", &n) != 1 || n < 0)
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/node/%s/cpu%d", de->d_name, cpu);
		if (!stat(path, &sb))
			node = n;
	}
	if (d)
		closedir(d);
	return node;
}

/* The socket/die/core (and, for --per-node, node) of a CPU, with sysfs gaps filled as perf does. */
static struct aggr_id cpu_id(int cpu, enum pcl_aggr_mode m)
{
	struct aggr_id id = { .cpu = cpu, .nr = 1 };
	struct pcl_cpu_topo topo;

	id.node = m == PCL_AGGR_NODE ? cpu_node(cpu) : 0;
	pcl_cpu_topology(cpu, &topo);
	id.socket = topo.socket < 0 ? 0 : topo.socket;
	id.die = topo.die;
	id.core = topo.core < 0 ? cpu : topo.core;
	return id;
}

static bool id_matches(const struct aggr_id *a, const struct aggr_id *b, enum pcl_aggr_mode m)
{
	return m == PCL_AGGR_NONE ? a->cpu == b->cpu : same_id(a, b, m);
}

/* One id per CPU (-A), core or socket, sorted, and each CPU index mapped to its id. */
static void build_cpu_aggr(struct pcl_stat *st, int ncpu, enum pcl_aggr_mode m)
{
	for (int c = 0; c < ncpu; c++) {
		struct aggr_id id = cpu_id(pcl_evlist__cpu(st->el, c), m);
		int k;

		for (k = 0; k < st->nr_aggr && !id_matches(&st->ids[k], &id, m); k++)
			;
		if (k == st->nr_aggr)
			st->ids[st->nr_aggr++] = id;
		else
			st->ids[k].nr++;
	}
	/* -A keeps CPU order (the CPU map is sorted); the others sort by topology */
	if (m != PCL_AGGR_NONE)
		qsort(st->ids, (size_t)st->nr_aggr, sizeof(*st->ids), cmp_aggr);
	for (int c = 0; c < ncpu; c++) {
		struct aggr_id id = cpu_id(pcl_evlist__cpu(st->el, c), m);

		for (int k = 0; k < st->nr_aggr; k++) {
			if (id_matches(&st->ids[k], &id, m)) {
				st->cpu_aggr[c] = k;
				break;
			}
		}
	}
}

/* Build the aggregation ids and the CPU -> id map for the configured mode. */
static int build_aggr(struct pcl_stat *st)
{
	int ncpu = pcl_evlist__nr_cpus(st->el), nthr = pcl_evlist__nr_threads(st->el);
	enum pcl_aggr_mode m = st->cfg.aggr;

	st->cpu_aggr = calloc((size_t)(ncpu > 0 ? ncpu : 1), sizeof(int));
	st->ids = calloc((size_t)(ncpu > nthr ? ncpu : nthr) + 1, sizeof(*st->ids));
	if (!st->cpu_aggr || !st->ids)
		return -ENOMEM;
	if (m == PCL_AGGR_THREAD) {
		for (int t = 0; t < nthr; t++) {
			st->ids[t].thread_idx = t;
			st->ids[t].tid = pcl_evlist__thread(st->el, t);
			if (st->ids[t].tid > 0)
				read_comm(st->ids[t].tid, st->ids[t].comm, sizeof(st->ids[t].comm));
		}
		st->nr_aggr = nthr;
	} else if (m == PCL_AGGR_GLOBAL || pcl_evlist__cpu(st->el, 0) < 0) {
		/* counting per task: there is nothing to split by CPU */
		st->cfg.aggr = PCL_AGGR_GLOBAL;
		st->nr_aggr = 1;
		st->ids[0].nr = ncpu;
	} else {
		build_cpu_aggr(st, ncpu, m);
	}
	return 0;
}

PCL_API struct pcl_stat *pcl_stat__new(const struct pcl_stat_config *cfg, struct pcl_evlist *el)
{
	struct pcl_stat_config c;
	struct pcl_stat *st;
	int ret;

	ret = opts_copy(&c, cfg, "pcl_stat_config");
	if (!ret && !el)
		ret = pcl_err(EINVAL, "pcl_stat__new: no evlist");
	if (ret) {
		errno = -ret;
		return NULL;
	}
	st = calloc(1, sizeof(*st));
	if (!st) {
		errno = ENOMEM;
		pcl_err(ENOMEM, "pcl_stat__new: out of memory");
		return NULL;
	}
	st->cfg = c;
	if (!st->cfg.csv_sep)
		st->cfg.csv_sep = ",";
	st->el = el;
	st->nr_ev = pcl_evlist__nr(el);
	if (build_aggr(st))
		goto err;
	for (int i = 0; i < st->nr_ev; i++)
		st->cgroups |= pcl_evlist__cgroup(el, i) != NULL;
	st->ncpus = pcl_evlist__nr_cpus(el);
	st->nthreads = pcl_evlist__nr_threads(el);
	st->rows = calloc((size_t)(st->nr_ev ? st->nr_ev : 1) * (size_t)st->nr_aggr,
			  sizeof(*st->rows));
	if (!st->rows)
		goto err;
	return st;
err:
	pcl_stat__free(st);
	return pcl_err_null(ENOMEM, "pcl_stat__new: out of memory");
}

PCL_API void pcl_stat__free(struct pcl_stat *st)
{
	if (!st)
		return;
	for (int i = 0; i < st->nr_um; i++) {
		for (int k = 0; k < st->um[i].n; k++)
			free(st->um[i].names[k]);
		free(st->um[i].names);
		free(st->um[i].idx);
		free(st->um[i].name);
		free(st->um[i].expr);
	}
	free(st->um);
	free(st->rows);
	free(st->ids);
	free(st->cpu_aggr);
	free(st);
}

static bool anchors(const struct pcl_stat *st, int ev)
{
	for (int i = 0; i < st->nr_um; i++)
		if (st->um[i].anchor == ev && !st->um[i].own_line)
			return true;
	return false;
}

PCL_API int pcl_stat__add_metric(struct pcl_stat *st, const char *name, const char *expr,
				 const char *scale_unit, const char *const *events, const int *idx,
				 int n)
{
	struct user_metric *um, *grown;
	const char *unit;
	double scale;

	if (!st || !name || !expr || n <= 0 || !events || !idx)
		return pcl_err(EINVAL, "pcl_stat__add_metric: invalid argument");
	for (int i = 0; i < n; i++)
		if (idx[i] < 0 || idx[i] >= st->nr_ev)
			return pcl_err(EINVAL, "pcl_stat__add_metric: event index %d out of range",
				       idx[i]);
	if (pcl_metric_scale(scale_unit, &scale, &unit))
		return -EINVAL;
	grown = realloc(st->um, sizeof(*st->um) * (size_t)(st->nr_um + 1));
	if (!grown)
		return pcl_err(ENOMEM, "pcl_stat__add_metric: out of memory");
	st->um = grown;
	um = &st->um[st->nr_um];
	memset(um, 0, sizeof(*um));
	um->name = strdup(name);
	um->expr = strdup(expr);
	um->names = calloc((size_t)n, sizeof(*um->names));
	um->idx = calloc((size_t)n, sizeof(*um->idx));
	if (!um->name || !um->expr || !um->names || !um->idx)
		goto nomem;
	for (int i = 0; i < n; i++) {
		if (!(um->names[i] = strdup(events[i])))
			goto nomem;
		um->idx[i] = idx[i];
	}
	um->n = n;
	um->scale = scale;
	um->scaled = scale_unit != NULL;
	/* perf's layout: "%8.1f unit  name" with a scale unit, "%8.2f name" without */
	if (scale_unit)
		snprintf(um->unit, sizeof(um->unit), "%s  %s", unit, name);
	else
		snprintf(um->unit, sizeof(um->unit), "%s", name);
	um->anchor = -1;
	for (int i = 0; i < n && um->anchor < 0; i++)
		if (!anchors(st, idx[i]))
			um->anchor = idx[i];
	if (um->anchor < 0) {
		um->anchor = idx[0];
		um->own_line = true;
	}
	st->nr_um++;
	return 0;
nomem:
	for (int i = 0; um->names && i < n; i++)
		free(um->names[i]);
	free(um->names);
	free(um->idx);
	free(um->name);
	free(um->expr);
	return pcl_err(ENOMEM, "pcl_stat__add_metric: out of memory");
}

/* Sum of the last read counts of event @ev over aggregation id @a. */
static void aggr_count(struct pcl_stat *st, int ev, int a, struct pcl_count *out)
{
	int ncpu = pcl_evlist__nr_cpus(st->el);

	memset(out, 0, sizeof(*out));
	if (st->cfg.aggr == PCL_AGGR_THREAD) {
		pcl_evlist__count(st->el, ev, -1, st->ids[a].thread_idx, out);
		return;
	}
	if (st->cfg.aggr == PCL_AGGR_GLOBAL) {
		pcl_evlist__count(st->el, ev, -1, -1, out);
		return;
	}
	for (int c = 0; c < ncpu; c++) {
		struct pcl_count one;

		if (st->cpu_aggr[c] != a || pcl_evlist__count(st->el, ev, c, -1, &one))
			continue;
		out->val += one.val;
		out->ena += one.ena;
		out->run += one.run;
	}
}

static double event_scale(const struct pcl_event *ev)
{
	return ev->scale ? ev->scale : 1.0;
}

PCL_API int pcl_stat__add_run(struct pcl_stat *st, uint64_t wall_ns, double user_s, double sys_s)
{
	if (!st)
		return pcl_err(EINVAL, "pcl_stat__add_run: invalid argument");
	/* rows were laid out for the first run's CPUs and threads */
	if (pcl_evlist__nr_cpus(st->el) != st->ncpus ||
	    pcl_evlist__nr_threads(st->el) != st->nthreads)
		return pcl_err(ESTALE, "the target's CPUs or threads changed between runs");
	for (int e = 0; e < st->nr_ev; e++) {
		for (int a = 0; a < st->nr_aggr; a++) {
			struct row *r = &st->rows[e * st->nr_aggr + a];

			aggr_count(st, e, a, &r->last);
			r->counted = r->last.run > 0;
			/* counts, not unit-scaled values: perf keeps u64 counts per run */
			welford_add(&r->val, floor(pcl_count__scaled(&r->last, 1.0)));
			r->sum += floor(pcl_count__scaled(&r->last, 1.0));
			welford_add(&r->ena, (double)r->last.ena);
			welford_add(&r->run, (double)r->last.run);
		}
	}
	welford_add(&st->wall, (double)wall_ns);
	st->user_s = user_s;
	st->sys_s = sys_s;
	return 0;
}

/* What one printed row needs. */
struct line {
	const struct pcl_event *ev;
	int idx, aggr;
	double value; /* scaled, in the event's display unit */
	double raw;   /* scaled, in the counter's unit (ns for clocks) */
	uint64_t ena, run;
	bool supported, counted;
	bool fractional;       /* printed with two decimals (msec, scaled units) */
	double noise;	       /* relative stddev %, or -1 when one run */
	const char *prefix_ts; /* interval timestamp text, or NULL */
};

static bool is_clock(const struct pcl_event *ev)
{
	return ev->attr.type == PERF_TYPE_SOFTWARE &&
	       (ev->attr.config == PERF_COUNT_SW_TASK_CLOCK ||
		ev->attr.config == PERF_COUNT_SW_CPU_CLOCK);
}

static const char *display_unit(const struct pcl_event *ev)
{
	if (is_clock(ev))
		return "msec";
	return ev->unit ? ev->unit : "";
}

/* The aggregation prefix in the standard, CSV or JSON form. */
static void print_prefix(struct pcl_stat *st, FILE *out, int a)
{
	const struct aggr_id *id = &st->ids[a];
	const char *sep = st->cfg.csv_sep;
	enum pcl_stat_format f = st->cfg.format;
	char core[64];

	snprintf(core, sizeof(core), "S%d-D%d-C%d", id->socket, id->die, id->core);
	switch (st->cfg.aggr) {
	case PCL_AGGR_NONE:
		if (f == PCL_STAT_JSON)
			fprintf(out, "\"cpu\" : \"%d\", ", id->cpu);
		else if (f == PCL_STAT_CSV)
			fprintf(out, "CPU%d%s", id->cpu, sep);
		else
			fprintf(out, "CPU%-7d ", id->cpu);
		break;
	case PCL_AGGR_CORE:
		if (f == PCL_STAT_JSON)
			fprintf(out, "\"core\" : \"%s\", \"aggregate-number\" : %d, ", core,
				id->nr);
		else if (f == PCL_STAT_CSV)
			fprintf(out, "%s%s%d%s", core, sep, id->nr, sep);
		else
			fprintf(out, "S%d-D%d-C%-8d %4d ", id->socket, id->die, id->core, id->nr);
		break;
	case PCL_AGGR_SOCKET:
		if (f == PCL_STAT_JSON)
			fprintf(out, "\"socket\" : \"S%d\", \"aggregate-number\" : %d, ",
				id->socket, id->nr);
		else if (f == PCL_STAT_CSV)
			fprintf(out, "S%d%s%d%s", id->socket, sep, id->nr, sep);
		else
			fprintf(out, "S%-5d %4d ", id->socket, id->nr);
		break;
	case PCL_AGGR_DIE:
		if (f == PCL_STAT_JSON)
			fprintf(out, "\"die\" : \"S%d-D%d\", \"aggregate-number\" : %d, ",
				id->socket, id->die, id->nr);
		else if (f == PCL_STAT_CSV)
			fprintf(out, "S%d-D%d%s%d%s", id->socket, id->die, sep, id->nr, sep);
		else
			fprintf(out, "S%d-D%-8d %4d ", id->socket, id->die, id->nr);
		break;
	case PCL_AGGR_NODE:
		if (f == PCL_STAT_JSON)
			fprintf(out, "\"node\" : \"N%d\", \"aggregate-number\" : %d, ", id->node,
				id->nr);
		else if (f == PCL_STAT_CSV)
			fprintf(out, "N%d%s%d%s", id->node, sep, id->nr, sep);
		else
			fprintf(out, "N%-5d %4d ", id->node, id->nr);
		break;
	case PCL_AGGR_THREAD:
		if (f == PCL_STAT_JSON) {
			char t[64];

			snprintf(t, sizeof(t), "%s-%d", id->comm, (int)id->tid);
			fprintf(out, "\"thread\" : ");
			json_str(out, t);
			fprintf(out, ", ");
		} else if (f == PCL_STAT_CSV) {
			fprintf(out, "%s-%d%s", id->comm, (int)id->tid, sep);
		} else {
			fprintf(out, "%16s-%-8d ", id->comm, (int)id->tid);
		}
		break;
	case PCL_AGGR_GLOBAL:
		break;
	}
}

static void print_value_std(struct pcl_stat *st, FILE *out, const struct line *l)
{
	if (st->cfg.big_num)
		fprintf(out, l->fractional ? "%'18.2f" : "%'18.0f", l->value);
	else
		fprintf(out, l->fractional ? "%18.2f" : "%18.0f", l->value);
}

static void print_line_std(struct pcl_stat *st, FILE *out, const struct line *l,
			   const struct pcl_stat_metric *m, bool has_metric)
{
	const char *unit = display_unit(l->ev);

	if (l->prefix_ts)
		fprintf(out, "%s ", l->prefix_ts);
	print_prefix(st, out, l->aggr);
	if ((!l->supported || !l->counted) && has_metric) {
		/* a formula metric over it: say so, with the metric's name */
		fprintf(out, "%18s %-4s %-32s # %s %s",
			l->supported ? "<not counted>" : "<not supported>", unit, l->ev->name,
			m->status ? m->status : "", m->unit);
	} else if (!l->supported || !l->counted) {
		fprintf(out, "%18s %-4s %-25s%-35s",
			l->supported ? "<not counted>" : "<not supported>", unit, l->ev->name, "");
	} else {
		print_value_std(st, out, l);
		fprintf(out, " %-4s %-32s", unit, l->ev->name);
		if (st->cgroups)
			fprintf(out, " %s", cgroup_of(st, l->idx));
		if (has_metric) {
			char num[64];
			int n;

			if (m->status)
				n = snprintf(num, sizeof(num), "%s", m->status);
			else
				n = snprintf(num, sizeof(num), m->fmt, m->value);
			fprintf(out, " # %s %-*s", num, 35 - 3 - n - 1 > 0 ? 35 - 3 - n - 1 : 0,
				m->unit);
		} else {
			fprintf(out, "%-35s", "");
		}
	}
	if (l->noise > 0)
		fprintf(out, "  ( +-%6.2f%% )", l->noise);
	if (l->supported && l->counted && l->run < l->ena)
		fprintf(out, "  (%.2f%%)", 100.0 * (double)l->run / (double)l->ena);
	fputc('\n', out);
}

static double pcnt_running(const struct line *l)
{
	return l->run != l->ena && l->ena ? 100.0 * (double)l->run / (double)l->ena : 100.0;
}

static void print_line_csv(struct pcl_stat *st, FILE *out, const struct line *l,
			   const struct pcl_stat_metric *m, bool has_metric)
{
	const char *sep = st->cfg.csv_sep;

	if (l->prefix_ts)
		fprintf(out, "%s%s", l->prefix_ts, sep);
	else if (st->cfg.csv_summary)
		fprintf(out, "%16s%s", "summary", sep);
	print_prefix(st, out, l->aggr);
	if (!l->supported || !l->counted)
		fprintf(out, "%s", l->supported ? "<not counted>" : "<not supported>");
	else
		fprintf(out, l->fractional ? "%.2f" : "%.0f", l->value);
	fprintf(out, "%s%s%s%s%s", sep, display_unit(l->ev), sep, l->ev->name, sep);
	if (st->cgroups)
		fprintf(out, "%s%s", cgroup_of(st, l->idx), sep);
	if (l->noise >= 0)
		fprintf(out, "%.2f%%%s", l->noise, sep);
	fprintf(out, "%llu%s%.2f%s", (unsigned long long)l->run, sep, pcnt_running(l), sep);
	if (has_metric && (m->status || (l->supported && l->counted))) {
		if (m->status)
			fprintf(out, "%s", m->status);
		else
			fprintf(out, m->csv_fmt, m->value);
		fprintf(out, "%s%s", sep, m->unit);
	} else {
		fprintf(out, "%s", sep);
	}
	fputc('\n', out);
}

static void print_line_json(struct pcl_stat *st, FILE *out, const struct line *l,
			    const struct pcl_stat_metric *m, bool has_metric)
{
	bool ok = l->supported && l->counted;

	fputc('{', out);
	if (l->prefix_ts)
		fprintf(out, "\"interval\" : %s, ", l->prefix_ts);
	print_prefix(st, out, l->aggr);
	if (ok)
		fprintf(out, "\"counter-value\" : \"%f\", ", l->value);
	else
		fprintf(out, "\"counter-value\" : \"%s\", ",
			l->supported ? "<not counted>" : "<not supported>");
	fprintf(out, "\"unit\" : ");
	json_str(out, display_unit(l->ev));
	fprintf(out, ", \"event\" : ");
	json_str(out, l->ev->name);
	if (st->cgroups) {
		fprintf(out, ", \"cgroup\" : ");
		json_str(out, cgroup_of(st, l->idx));
	}
	if (l->noise >= 0)
		fprintf(out, ", \"variance\" : %.2f", l->noise);
	fprintf(out, ", \"event-runtime\" : %llu, \"pcnt-running\" : %.2f, ",
		(unsigned long long)l->run, pcnt_running(l));
	/* perf prints "(null)" for an event without a metric; an empty unit is what it means */
	if (has_metric && m->status) {
		fprintf(out, "\"metric-value\" : ");
		json_str(out, m->status);
		fprintf(out, ", \"metric-unit\" : ");
		json_str(out, m->unit);
	} else {
		fprintf(out, "\"metric-value\" : %f, \"metric-unit\" : ",
			has_metric && ok ? m->value : 0.0);
		json_str(out, has_metric && ok ? m->unit : "");
	}
	fprintf(out, "}\n");
}

/* Fill the values the rows of aggregation @a in the same cgroup as event @idx need for metrics. */
static void gather_shadow(struct pcl_stat *st, struct line *lines, int a, int idx,
			  struct stat_shadow *sh)
{
	memset(sh, 0, sizeof(*sh));
	for (int e = 0; e < st->nr_ev; e++) {
		const struct line *l = &lines[e * st->nr_aggr + a];

		if (strcmp(cgroup_of(st, e), cgroup_of(st, idx)))
			continue;
		if (l->supported && l->counted)
			stat_shadow_add(sh, l->ev, l->raw);
	}
}

struct um_ctx {
	const struct pcl_stat *st;
	const struct line *lines;
	const struct user_metric *um;
	int aggr;
};

static int um_lookup(void *ctx, const char *name, double *v)
{
	const struct um_ctx *c = ctx;

	for (int k = 0; k < c->um->n; k++) {
		const struct line *l;

		if (strcmp(c->um->names[k], name))
			continue;
		l = &c->lines[c->um->idx[k] * c->st->nr_aggr + c->aggr];
		if (!l->supported)
			return -EOPNOTSUPP;
		if (!l->counted)
			return -ENODATA;
		*v = l->raw;
		return 0;
	}
	return -ENOENT;
}

/* The value of formula metric @um on aggregation @a, or why there is none, into @m. */
static void eval_user_metric(const struct pcl_stat *st, const struct line *lines,
			     const struct user_metric *um, int a, struct pcl_stat_metric *m)
{
	struct um_ctx c = { st, lines, um, a };
	double v = 0;
	int ret = pcl_metric_expr_eval(um->expr, um_lookup, &c, &v);

	memset(m, 0, sizeof(*m));
	m->unit = um->unit;
	m->fmt = um->scaled ? "%8.1f" : "%8.2f";
	m->csv_fmt = um->scaled ? "%.1f" : "%.2f";
	if (ret == -EOPNOTSUPP)
		m->status = "<not supported>";
	else if (ret == -ENODATA || ret == -ENOENT)
		m->status = "<not counted>";
	else
		m->value = ret ? NAN : v * um->scale; /* NAN: a division by zero */
}

/* A formula metric that shares its row's event with another: a line of its own, as perf. */
static void print_metric_line(struct pcl_stat *st, FILE *out, const struct line *l,
			      const struct pcl_stat_metric *m)
{
	const char *sep = st->cfg.csv_sep;
	char num[64];

	if (st->cfg.format == PCL_STAT_JSON) {
		fputc('{', out);
		if (l->prefix_ts)
			fprintf(out, "\"interval\" : %s, ", l->prefix_ts);
		print_prefix(st, out, l->aggr);
		fprintf(out, "\"metric-value\" : ");
		if (m->status)
			json_str(out, m->status);
		else
			fprintf(out, "%f", m->value);
		fprintf(out, ", \"metric-unit\" : ");
		json_str(out, m->unit);
		fprintf(out, "}\n");
		return;
	}
	if (m->status)
		snprintf(num, sizeof(num), "%s", m->status);
	else
		snprintf(num, sizeof(num), st->cfg.format == PCL_STAT_CSV ? m->csv_fmt : m->fmt,
			 m->value);
	if (st->cfg.format == PCL_STAT_CSV) {
		if (l->prefix_ts)
			fprintf(out, "%s%s", l->prefix_ts, sep);
		print_prefix(st, out, l->aggr);
		fprintf(out, "%s%s%s%s%s%s%s%s%s\n", sep, sep, sep, sep, sep, num, sep, m->unit,
			"");
		return;
	}
	if (l->prefix_ts)
		fprintf(out, "%s ", l->prefix_ts);
	print_prefix(st, out, l->aggr);
	fprintf(out, "%18s %-4s %-32s # %s %s\n", "", "", "", num, m->unit);
}

static void print_line(struct pcl_stat *st, FILE *out, struct line *lines, int idx, double wall_ns)
{
	struct line *l = &lines[idx];
	struct stat_shadow sh;
	struct pcl_stat_metric m = { 0 };
	bool has;

	gather_shadow(st, lines, l->aggr, l->idx, &sh);
	sh.wall_ns = wall_ns;
	has = l->supported && l->counted && stat_metric(&sh, l->ev, l->raw, &m);
	for (int i = 0; i < st->nr_um; i++) {
		if (st->um[i].anchor == l->idx && !st->um[i].own_line) {
			eval_user_metric(st, lines, &st->um[i], l->aggr, &m);
			has = true;
			break;
		}
	}
	if (st->cfg.format == PCL_STAT_CSV)
		print_line_csv(st, out, l, &m, has);
	else if (st->cfg.format == PCL_STAT_JSON)
		print_line_json(st, out, l, &m, has);
	else
		print_line_std(st, out, l, &m, has);
	for (int i = 0; i < st->nr_um; i++) {
		if (st->um[i].anchor == l->idx && st->um[i].own_line) {
			eval_user_metric(st, lines, &st->um[i], l->aggr, &m);
			print_metric_line(st, out, l, &m);
		}
	}
}

/*
 * --metric-only: one column per metric, one row per aggregation. The
 * columns are the metrics the first aggregation has (the derived metrics
 * of its events: CPUs utilized, insn per cycle ...) and every -M metric.
 */
struct mcol {
	const char *head;
	int ev; /* the event it hangs on */
	int um; /* index of a -M metric, or -1 for the event's derived metric */
};

static bool derived_metric(struct pcl_stat *st, struct line *lines, int e, int a, double wall_ns,
			   struct pcl_stat_metric *m)
{
	struct line *l = &lines[e * st->nr_aggr + a];
	struct stat_shadow sh;

	if (!l->supported || !l->counted)
		return false;
	gather_shadow(st, lines, a, e, &sh);
	sh.wall_ns = wall_ns;
	return stat_metric(&sh, l->ev, l->raw, m);
}

static int metric_cols(struct pcl_stat *st, struct line *lines, double wall_ns, struct mcol *cols,
		       int max)
{
	int n = 0;

	for (int e = 0; e < st->nr_ev; e++) {
		struct pcl_stat_metric m;

		if (n < max && derived_metric(st, lines, e, 0, wall_ns, &m))
			cols[n++] = (struct mcol){ m.unit, e, -1 };
		for (int i = 0; i < st->nr_um && n < max; i++)
			if (st->um[i].anchor == e)
				cols[n++] = (struct mcol){ st->um[i].unit, e, i };
	}
	return n;
}

/* The text of column @c on aggregation @a: a number, "<not supported>", or "". */
static void mcol_text(struct pcl_stat *st, struct line *lines, double wall_ns, const struct mcol *c,
		      int a, char *buf, size_t size)
{
	struct pcl_stat_metric m;

	buf[0] = '\0';
	if (c->um >= 0)
		eval_user_metric(st, lines, &st->um[c->um], a, &m);
	else if (!derived_metric(st, lines, c->ev, a, wall_ns, &m))
		return;
	if (m.status) {
		snprintf(buf, size, "%s", m.status);
	} else {
		int n = snprintf(buf, size, m.csv_fmt, m.value);

		/* a rate picks its unit by size (K/sec, M/sec): name it when not the column's */
		if (n > 0 && (size_t)n < size && strcmp(m.unit, c->head))
			snprintf(buf + n, size - (size_t)n, " %s", m.unit);
	}
}

static int col_width(const struct mcol *c)
{
	int w = (int)strlen(c->head);

	return w < 15 ? 15 : w;
}

/* The aggregation (and time) prefix of row @a as text, for measuring and printing. */
static void prefix_text(struct pcl_stat *st, int a, const char *ts, char *buf, size_t size)
{
	FILE *f = fmemopen(buf, size, "w");

	buf[0] = '\0';
	if (!f)
		return;
	if (ts)
		fprintf(f, st->cfg.format == PCL_STAT_CSV ? "%s%s" : "%s ", ts, st->cfg.csv_sep);
	print_prefix(st, f, a);
	fclose(f);
}

static void print_metric_only(struct pcl_stat *st, FILE *out, struct line *lines, double wall_ns,
			      const char *ts, bool head)
{
	enum pcl_stat_format f = st->cfg.format;
	const char *sep = st->cfg.csv_sep;
	struct mcol cols[128];
	int nc = metric_cols(st, lines, wall_ns, cols, 128);
	char pre[256], txt[64];

	if (head && f != PCL_STAT_JSON) {
		prefix_text(st, 0, ts, pre, sizeof(pre));
		if (f == PCL_STAT_CSV) {
			/* empty fields where the rows have their time and aggregation */
			for (const char *p = pre; *p; p++)
				if (!strncmp(p, sep, strlen(sep)))
					fputs(sep, out);
		} else {
			fprintf(out, "%s%*s", ts ? "#" : "", (int)strlen(pre) - (ts ? 1 : 0), "");
		}
		for (int c = 0; c < nc; c++) {
			if (f == PCL_STAT_CSV)
				fprintf(out, "%s%s", cols[c].head, sep);
			else
				fprintf(out, " %*s", col_width(&cols[c]), cols[c].head);
		}
		fputc('\n', out);
	}
	for (int a = 0; a < st->nr_aggr; a++) {
		prefix_text(st, a, ts, pre, sizeof(pre));
		if (f == PCL_STAT_JSON) {
			fputc('{', out);
			if (ts)
				fprintf(out, "\"interval\" : %s, ", ts);
			print_prefix(st, out, a);
		} else {
			fputs(pre, out);
		}
		for (int c = 0; c < nc; c++) {
			mcol_text(st, lines, wall_ns, &cols[c], a, txt, sizeof(txt));
			if (f == PCL_STAT_JSON) {
				fprintf(out, "%s", c ? ", " : "");
				json_str(out, cols[c].head);
				fprintf(out, " : ");
				json_str(out, txt);
			} else if (f == PCL_STAT_CSV) {
				fprintf(out, "%s%s", txt, sep);
			} else {
				fprintf(out, " %*s", col_width(&cols[c]), txt);
			}
		}
		fputs(f == PCL_STAT_JSON ? "}\n" : "\n", out);
	}
}

static int cmp_thread_lines(const void *pa, const void *pb)
{
	const struct line *a = *(const struct line *const *)pa,
			  *b = *(const struct line *const *)pb;

	return a->value < b->value ? 1 : a->value > b->value ? -1 : 0;
}

/* Print every row in perf's order. */
static void print_lines(struct pcl_stat *st, FILE *out, struct line *lines, double wall_ns)
{
	int nr = st->nr_ev * st->nr_aggr;

	if (st->cfg.aggr == PCL_AGGR_CORE || st->cfg.aggr == PCL_AGGR_SOCKET ||
	    st->cfg.aggr == PCL_AGGR_DIE || st->cfg.aggr == PCL_AGGR_NODE) {
		/* by aggregation id, then event */
		for (int a = 0; a < st->nr_aggr; a++)
			for (int e = 0; e < st->nr_ev; e++)
				print_line(st, out, lines, e * st->nr_aggr + a, wall_ns);
		return;
	}
	for (int e = 0; e < st->nr_ev; e++) {
		struct line **order = malloc(sizeof(*order) * (size_t)st->nr_aggr);

		if (!order)
			return;
		for (int a = 0; a < st->nr_aggr; a++)
			order[a] = &lines[e * st->nr_aggr + a];
		if (st->cfg.aggr == PCL_AGGR_THREAD)
			qsort(order, (size_t)st->nr_aggr, sizeof(*order), cmp_thread_lines);
		for (int a = 0; a < st->nr_aggr; a++) {
			/* perf leaves out threads that never ran */
			if (st->cfg.aggr == PCL_AGGR_THREAD && !order[a]->ena && nr > 1 &&
			    order[a]->supported)
				continue;
			print_line(st, out, lines, (int)(order[a] - lines), wall_ns);
		}
		free(order);
	}
}

static struct line *make_lines(struct pcl_stat *st)
{
	struct line *lines =
		calloc((size_t)(st->nr_ev ? st->nr_ev : 1) * (size_t)st->nr_aggr, sizeof(*lines));

	if (!lines)
		return NULL;
	for (int e = 0; e < st->nr_ev; e++) {
		for (int a = 0; a < st->nr_aggr; a++) {
			struct line *l = &lines[e * st->nr_aggr + a];

			l->ev = pcl_evlist__event(st->el, e);
			l->idx = e;
			l->aggr = a;
			l->supported = pcl_evlist__state(st->el, e) == PCL_EVSEL_OK;
			l->noise = -1;
		}
	}
	return lines;
}

/*
 * @count is the (mean) count, @shown the whole count to print: perf keeps
 * counts as u64, so a mean over -r runs prints truncated to a whole count
 * (perf 6.5 and later store avg_stats() into the u64 count; 6.1 printed the
 * last run's count, a bug). Metrics use the exact mean.
 */
static void set_value(struct line *l, double count, double shown)
{
	double scale = event_scale(l->ev);

	l->raw = count * scale;
	l->value = shown * scale;
	if (is_clock(l->ev))
		l->value /= 1e6;
	/* perf picks %.0f or %.2f by the event's scale, not by the value */
	l->fractional = is_clock(l->ev) || floor(scale) != scale;
}

static void print_header(struct pcl_stat *st, FILE *out)
{
	fprintf(out, "\n Performance counter stats for %s",
		st->cfg.target_desc ? st->cfg.target_desc : "'system wide'");
	if (st->cfg.run_count > 1)
		fprintf(out, " (%d runs)", st->cfg.run_count);
	fprintf(out, ":\n\n");
}

static int precision_for(double num)
{
	if (num > 1 || num <= 0)
		return 0;
	return (int)lround(ceil(-log10(num)));
}

static void print_footer(struct pcl_stat *st, FILE *out)
{
	double avg = st->wall.mean / 1e9;

	if (st->nr_ev)
		fputc('\n', out);
	if (st->wall.n <= 1) {
		fprintf(out, " %17.9f seconds time elapsed", avg);
		if (st->cfg.workload) {
			fprintf(out, "\n\n");
			fprintf(out, " %17.9f seconds user\n", st->user_s);
			fprintf(out, " %17.9f seconds sys\n", st->sys_s);
		}
	} else {
		double sd = welford_stddev_mean(&st->wall) / 1e9;
		int prec = precision_for(sd) + 2;

		fprintf(out, " %17.*f +- %.*f seconds time elapsed", prec, avg, prec, sd);
		if (rel_stddev(&st->wall) > 0)
			fprintf(out, "  ( +-%6.2f%% )", rel_stddev(&st->wall));
	}
	fprintf(out, "\n\n");
}

PCL_API int pcl_stat__print(struct pcl_stat *st, FILE *out)
{
	struct line *lines;

	if (!st || !out)
		return pcl_err(EINVAL, "pcl_stat__print: invalid argument");
	lines = make_lines(st);
	if (!lines)
		return pcl_err(ENOMEM, "pcl_stat__print: out of memory");
	for (int i = 0; i < st->nr_ev * st->nr_aggr; i++) {
		struct row *r = &st->rows[i];

		set_value(&lines[i], r->val.mean, r->val.n ? floor(r->sum / r->val.n) : 0.0);
		lines[i].ena = (uint64_t)llround(r->ena.mean);
		lines[i].run = (uint64_t)llround(r->run.mean);
		lines[i].counted = r->counted;
		if (st->wall.n > 1)
			lines[i].noise = st->cfg.format == PCL_STAT_STD ? rel_stddev(&r->val)
									: rel_stddev(&r->val);
	}
	if (st->cfg.format == PCL_STAT_STD)
		print_header(st, out);
	if (st->cfg.metric_only)
		print_metric_only(st, out, lines, st->wall.mean, NULL, true);
	else
		print_lines(st, out, lines, st->wall.mean);
	if (st->cfg.format == PCL_STAT_STD)
		print_footer(st, out);
	free(lines);
	fflush(out);
	return 0;
}

static void print_interval_header(struct pcl_stat *st, FILE *out)
{
	switch (st->cfg.aggr) {
	case PCL_AGGR_SOCKET:
		fprintf(out, "#           time socket cpus             counts %*s events\n", 4,
			"unit");
		break;
	case PCL_AGGR_CORE:
		fprintf(out,
			"#           time core            cpus             counts %*s events\n", 4,
			"unit");
		break;
	case PCL_AGGR_DIE:
		fprintf(out, "#           time die          cpus             counts %*s events\n",
			4, "unit");
		break;
	case PCL_AGGR_NODE:
		fprintf(out, "#           time node   cpus             counts %*s events\n", 4,
			"unit");
		break;
	case PCL_AGGR_NONE:
		fprintf(out, "#           time CPU                    counts %*s events\n", 4,
			"unit");
		break;
	case PCL_AGGR_THREAD:
		fprintf(out,
			"#           time             comm-pid                  counts %*s "
			"events\n",
			4, "unit");
		break;
	case PCL_AGGR_GLOBAL:
		fprintf(out, "#           time             counts %*s events\n", 4, "unit");
		break;
	}
}

PCL_API int pcl_stat__print_interval(struct pcl_stat *st, FILE *out, const struct timespec *ts,
				     uint64_t interval_ns)
{
	struct line *lines;
	char tsbuf[48];

	if (!st || !out || !ts)
		return pcl_err(EINVAL, "pcl_stat__print_interval: invalid argument");
	lines = make_lines(st);
	if (!lines)
		return pcl_err(ENOMEM, "pcl_stat__print_interval: out of memory");
	if (st->cfg.format == PCL_STAT_JSON)
		snprintf(tsbuf, sizeof(tsbuf), "%lu.%09lu", (unsigned long)ts->tv_sec,
			 (unsigned long)ts->tv_nsec);
	else
		snprintf(tsbuf, sizeof(tsbuf), "%6lu.%09lu", (unsigned long)ts->tv_sec,
			 (unsigned long)ts->tv_nsec);
	for (int e = 0; e < st->nr_ev; e++) {
		for (int a = 0; a < st->nr_aggr; a++) {
			struct row *r = &st->rows[e * st->nr_aggr + a];
			struct line *l = &lines[e * st->nr_aggr + a];
			struct pcl_count now, d;

			aggr_count(st, e, a, &now);
			d.val = now.val - r->prev.val;
			d.ena = now.ena - r->prev.ena;
			d.run = now.run - r->prev.run;
			r->prev = now;
			set_value(l, pcl_count__scaled(&d, 1.0), floor(pcl_count__scaled(&d, 1.0)));
			l->ena = d.ena;
			l->run = d.run;
			l->counted = d.run > 0;
			l->prefix_ts = tsbuf;
		}
	}
	if (st->cfg.metric_only) {
		print_metric_only(st, out, lines, (double)interval_ns, tsbuf,
				  st->intervals % 25 == 0);
		st->intervals++;
		free(lines);
		fflush(out);
		return 0;
	}
	if (st->cfg.format == PCL_STAT_STD && st->intervals % 25 == 0)
		print_interval_header(st, out);
	st->intervals++;
	print_lines(st, out, lines, (double)interval_ns);
	free(lines);
	fflush(out);
	return 0;
}
