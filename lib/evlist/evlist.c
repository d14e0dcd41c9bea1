/* SPDX-License-Identifier: MIT */
/*
 * A set of events opened on a target.
 *
 * Counters form a matrix per event: one per (cpu, thread) of the target's
 * CPU map and thread map, where a per-task target has the single CPU -1 and
 * a per-CPU target the single thread -1 (or the cgroup fd). Group members
 * are opened right after their leader at the same (cpu, thread) with the
 * leader's fd. A group whose leader reads with PERF_FORMAT_GROUP is read in
 * one read() on the leader, so its members' numbers come from the same
 * instant.
 *
 * Every counter goes through its PMU's ops, so kernel PMUs and user-space
 * sources are handled by the same code. Kernel counters of a workload are
 * armed with enable_on_exec; everything else is started by enable().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "internal.h"
#include "evlist/target.h"

#define READ_FORMAT                                                                                \
	(PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID)

struct evsel {
	struct pcl_event ev;
	enum pcl_evsel_state state;
	int open_errno;
	char *open_msg; /* why it is not supported, or NULL */
	bool group_read; /* leader: read the whole group with PERF_FORMAT_GROUP */
	char *cgroup;	 /* -G name for this event, or NULL */
	int cgroup_fd;
	struct pcl_counter *ctr; /* [cpu * nthreads + thread] */
	unsigned char *live;	 /* ctr[i] is open (its thread did not vanish) */
	struct pcl_count *counts;
};

struct pcl_evlist {
	struct pcl_events parsed;
	struct evsel *evsels;
	int nr, alloc;
	int *cpus;
	int ncpus;
	pid_t *threads;
	int nthreads;
	bool workload;
	bool opened;
	bool enabled; /* between enable() and disable() */
	uint64_t read_format; /* set by pcl_evlist__set_read_format, else 0 for the default */
};

PCL_API struct pcl_evlist *pcl_evlist__new(void)
{
	return calloc(1, sizeof(struct pcl_evlist));
}

PCL_API void pcl_evlist__free(struct pcl_evlist *el)
{
	if (!el)
		return;
	pcl_evlist__close_counters(el);
	for (int i = 0; i < el->nr; i++) {
		free(el->evsels[i].ctr);
		free(el->evsels[i].live);
		free(el->evsels[i].counts);
		free(el->evsels[i].cgroup);
		free(el->evsels[i].open_msg);
	}
	free(el->evsels);
	free(el->cpus);
	free(el->threads);
	free(el);
}

PCL_API int pcl_evlist__add(struct pcl_evlist *el, const char *spec, struct pcl_parse_error *err)
{
	struct pcl_events tmp = { 0 };
	int ret, base;

	if (!el || el->opened)
		return pcl_err(EINVAL, "pcl_evlist__add: invalid argument");
	ret = pcl_parse_events(&tmp, spec, err);
	if (ret < 0)
		return ret;
	if (grow_array((void **)&el->evsels, &el->alloc, el->nr + tmp.nr, sizeof(*el->evsels))) {
		pcl_events__clear(&tmp);
		return pcl_err(ENOMEM, "pcl_evlist__add: out of memory");
	}
	base = el->nr;
	for (int i = 0; i < tmp.nr; i++) {
		struct evsel *e = &el->evsels[el->nr++];

		memset(e, 0, sizeof(*e));
		e->ev = tmp.ev[i];
		e->ev.leader += base;
		e->state = PCL_EVSEL_NOT_OPENED;
		e->cgroup_fd = -1;
	}
	pcl_events__clear(&tmp);
	return ret;
}

PCL_API int pcl_evlist__nr(const struct pcl_evlist *el)
{
	return el ? el->nr : 0;
}

PCL_API const struct pcl_event *pcl_evlist__event(const struct pcl_evlist *el, int idx)
{
	return el && idx >= 0 && idx < el->nr ? &el->evsels[idx].ev : NULL;
}

PCL_API enum pcl_evsel_state pcl_evlist__state(const struct pcl_evlist *el, int idx)
{
	return el && idx >= 0 && idx < el->nr ? el->evsels[idx].state : PCL_EVSEL_NOT_OPENED;
}

PCL_API const char *pcl_evlist__open_error(const struct pcl_evlist *el, int idx)
{
	return el && idx >= 0 && idx < el->nr ? el->evsels[idx].open_msg : NULL;
}

PCL_API int pcl_evlist__open_status(const struct pcl_evlist *el, int idx)
{
	return el && idx >= 0 && idx < el->nr ? -el->evsels[idx].open_errno : 0;
}

PCL_API int pcl_evlist__user_only_fallback(struct pcl_evlist *el)
{
	struct pcl_sys_caps caps = { .sz = sizeof(caps) };
	int changed = 0;

	if (!el)
		return pcl_err(EINVAL, "pcl_evlist__user_only_fallback: invalid argument");
	pcl_sys_probe(&caps);
	if (caps.can_profile_kernel)
		return 0;
	for (int i = 0; i < el->nr; i++) {
		struct pcl_event *ev = &el->evsels[i].ev;
		struct perf_event_attr *a = &ev->attr;

		if (!pcl_pmu__is_kernel(ev->pmu) || a->exclude_user || a->exclude_kernel ||
		    a->exclude_hv)
			continue;
		a->exclude_kernel = a->exclude_hv = 1;
		event_name_add_mods(ev, "u", 1);
		changed = 1;
	}
	return changed;
}

static bool is_unsupported_errno(int err, const struct pcl_event *ev)
{
	switch (err) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
	case ENXIO:
	case ENOSYS:
		return true;
	case EINVAL:
		/* a missing hardware PMU rejects the config; software events never should */
		return ev->attr.type != PERF_TYPE_SOFTWARE;
	case EBUSY:
		return ev->attr.type == PERF_TYPE_BREAKPOINT;
	default:
		return false;
	}
}

static int build_maps(struct pcl_evlist *el, const struct pcl_target *t, struct pcl_workload *wl)
{
	int ret;

	if (t && (t->system_wide || t->cpu_list || t->cgroup || t->per_cpu)) {
		ret = t->cpu_list ? pcl_parse_cpu_list(t->cpu_list, &el->cpus)
				  : online_cpus(&el->cpus);
		if (ret < 0)
			return ret;
		el->ncpus = ret;
		if (t->cpu_list) {
			int *online = NULL, nonline = online_cpus(&online);

			if (nonline < 0)
				return nonline;
			for (int i = 0; i < el->ncpus; i++) {
				bool ok = false;

				for (int j = 0; j < nonline; j++)
					ok |= online[j] == el->cpus[i];
				if (!ok) {
					free(online);
					return pcl_err(EINVAL, "CPU '%d' is not online",
						       el->cpus[i]);
				}
			}
			free(online);
		}
	} else {
		el->cpus = malloc(sizeof(int));
		if (!el->cpus)
			return -ENOMEM;
		el->cpus[0] = -1;
		el->ncpus = 1;
	}
	if (t && (t->pid || t->tid)) {
		if (t->pid && t->tid)
			return pcl_err(EINVAL, "give either pids or tids, not both");
		ret = target_threads(t->pid ? t->pid : t->tid, t->pid != NULL, t->ignore_missing,
				     &el->threads);
		if (ret < 0)
			return ret;
		el->nthreads = ret;
		return 0;
	}
	el->threads = malloc(sizeof(pid_t));
	if (!el->threads)
		return -ENOMEM;
	el->nthreads = 1;
	if (wl && !(t && (t->system_wide || t->cpu_list || t->cgroup))) {
		/* the workload, on any CPU or on each (per_cpu) */
		el->threads[0] = pcl_workload__pid(wl);
		el->workload = true;
	} else if (el->cpus[0] >= 0) {
		el->threads[0] = -1;
	} else {
		return pcl_err(EINVAL, "no target: give a command, pids, tids or CPUs");
	}
	return 0;
}

static void close_evsel(struct evsel *e, int n)
{
	const struct pcl_pmu_ops *ops = pcl_pmu__ops(e->ev.pmu);

	for (int i = 0; i < n && e->ctr; i++) {
		if (e->live && e->live[i] && ops && ops->del)
			ops->del(&e->ctr[i]);
		e->ctr[i].fd = -1;
		e->ctr[i].priv = NULL;
		if (e->live)
			e->live[i] = 0;
	}
}

/*
 * Whether @e leads its kernel group: a real leader, or a kernel event whose
 * leader lives in user space (the kernel cannot group them, so it stands
 * alone: armed, enabled and disabled like a leader).
 */
static bool kernel_leads(const struct pcl_evlist *el, const struct evsel *e)
{
	const struct evsel *l = &el->evsels[e->ev.leader];

	return l == e || !pcl_pmu__is_kernel(l->ev.pmu);
}

static void setup_attr(struct pcl_evlist *el, struct evsel *e, const struct pcl_target *t)
{
	struct perf_event_attr *a = &e->ev.attr;
	bool leader = kernel_leads(el, e);
	struct evsel *l = &el->evsels[e->ev.leader];

	a->size = sizeof(*a);
	a->read_format = el->read_format ? el->read_format : READ_FORMAT;
	if (l->ev.nr_members > 1 && pcl_pmu__is_kernel(l->ev.pmu) &&
	    pcl_pmu__is_kernel(e->ev.pmu) && !el->read_format)
		a->read_format |= PERF_FORMAT_GROUP;
	a->inherit = !(t && t->no_inherit);
	a->disabled = leader;
	a->enable_on_exec = leader && el->workload;
}

/* Open one event at (cpu, thread) index; the leader of its group is already open. */
static int open_counter(struct pcl_evlist *el, struct evsel *e, int ci, int ti)
{
	struct pcl_counter *c = &e->ctr[ci * el->nthreads + ti];
	const struct pcl_pmu_ops *ops = pcl_pmu__ops(e->ev.pmu);
	struct evsel *l = &el->evsels[e->ev.leader];
	int ret;

	c->attr = &e->ev.attr;
	c->pmu = e->ev.pmu;
	c->cpu = el->cpus[ci];
	c->pid = el->threads[ti];
	c->flags = 0;
	c->fd = -1;
	c->group_fd =
		l != e && pcl_pmu__is_kernel(e->ev.pmu) ? l->ctr[ci * el->nthreads + ti].fd : -1;
	if (e->cgroup_fd >= 0 && pcl_pmu__is_kernel(e->ev.pmu)) {
		c->pid = e->cgroup_fd;
		c->flags = PERF_FLAG_PID_CGROUP;
	}
	if (!ops || !ops->add)
		return -EOPNOTSUPP;
	ret = ops->add(c);
	if (ret == -EINVAL && e->ev.attr.exclude_guest) {
		/* older kernels and some PMUs refuse exclude_guest: retry as perf does */
		e->ev.attr.exclude_guest = 0;
		ret = ops->add(c);
	}
	if (ret == -EINVAL && (e->ev.attr.read_format & PERF_FORMAT_LOST)) {
		e->ev.attr.read_format &= ~(uint64_t)PERF_FORMAT_LOST;
		ret = ops->add(c);
	}
	if (ret == -EINVAL && (e->ev.attr.read_format & PERF_FORMAT_GROUP)) {
		/* the whole group then reads member by member */
		for (int m = e->ev.leader; m < e->ev.leader + l->ev.nr_members && m < el->nr; m++)
			el->evsels[m].ev.attr.read_format &= ~(uint64_t)PERF_FORMAT_GROUP;
		e->ev.attr.read_format &= ~(uint64_t)PERF_FORMAT_GROUP;
		ret = ops->add(c);
	}
	return ret;
}

static const char *target_hint(int err)
{
	switch (err) {
	case EACCES:
	case EPERM:
		return "; perf_event_paranoid forbids this for this user (try as root, or lower "
		       "/proc/sys/kernel/perf_event_paranoid)";
	case EMFILE:
		return "; too many open files (raise 'ulimit -n')";
	case ESRCH:
		return "; the target process is gone";
	default:
		return "";
	}
}

static int open_evsel(struct pcl_evlist *el, struct evsel *e)
{
	int n = el->ncpus * el->nthreads, ret = 0;
	struct evsel *l = &el->evsels[e->ev.leader];

	e->ctr = calloc((size_t)n, sizeof(*e->ctr));
	e->live = calloc((size_t)n, 1);
	e->counts = calloc((size_t)n, sizeof(*e->counts));
	if (!e->ctr || !e->live || !e->counts)
		return pcl_err(ENOMEM, "out of memory opening '%s'", e->ev.name);
	for (int i = 0; i < n; i++)
		e->ctr[i].fd = -1;
	if (l != e && l->state != PCL_EVSEL_OK) {
		e->state = PCL_EVSEL_NOT_SUPPORTED;
		e->open_errno = l->open_errno;
		return 0;
	}
	int gone = 0;

	for (int ci = 0; ci < el->ncpus && !ret; ci++) {
		for (int ti = 0; ti < el->nthreads && !ret; ti++) {
			ret = open_counter(el, e, ci, ti);
			e->live[ci * el->nthreads + ti] = ret == 0;
			/* a thread that exited since the map was made just drops out */
			if (ret == -ESRCH && el->nthreads > 1) {
				gone++;
				ret = 0;
			}
		}
	}
	if (!ret && gone == el->ncpus * el->nthreads)
		ret = -ESRCH;
	if (!ret) {
		e->state = PCL_EVSEL_OK;
		e->group_read = l == e && (e->ev.attr.read_format & PERF_FORMAT_GROUP);
		return 0;
	}
	close_evsel(e, n);
	e->open_errno = -ret;
	if (ret == -ESRCH && el->threads[0] > 0)
		return pcl_err(ESRCH, "cannot open event '%s': process '%d' is gone (it exited)",
			       e->ev.name, (int)el->threads[0]);
	if (is_unsupported_errno(-ret, &e->ev)) {
		e->state = PCL_EVSEL_NOT_SUPPORTED;
		free(e->open_msg);
		/* a user-space source says why itself; the kernel only gives an errno */
		if (!pcl_pmu__is_kernel(e->ev.pmu) && strstr(pcl_last_error(), e->ev.name))
			e->open_msg = strdup(pcl_last_error());
		else if (asprintf(&e->open_msg, "%s: %s", e->ev.name, pcl_strerror(ret)) < 0)
			e->open_msg = NULL;
		return 0;
	}
	return pcl_err(-ret, "cannot open event '%s': %s%s", e->ev.name, pcl_strerror(ret),
		       target_hint(-ret));
}

/*
 * perf's -G: one name applies to every event; a comma list applies
 * positionally (first cgroup to the first event ...), an empty name meaning
 * no cgroup, and events past the list count everywhere.
 */
static int open_cgroups(struct pcl_evlist *el, const char *list)
{
	bool one = !strchr(list, ',');
	const char *s = list;

	for (int i = 0; i < el->nr; i++) {
		struct evsel *e = &el->evsels[i];
		const char *c = one || !s ? NULL : strchr(s, ',');
		size_t len = one ? strlen(list) : !s ? 0 : c ? (size_t)(c - s) : strlen(s);

		free(e->cgroup);
		e->cgroup = NULL;
		if (len) {
			e->cgroup = strndup(one ? list : s, len);
			if (!e->cgroup)
				return pcl_err(ENOMEM, "out of memory");
			e->cgroup_fd = cgroup_open(e->cgroup);
			if (e->cgroup_fd < 0) {
				int ret = e->cgroup_fd;

				pcl_evlist__close_counters(el);
				return ret;
			}
		}
		/* past the end of the list, events count in every cgroup */
		if (!one && s)
			s = c ? c + 1 : NULL;
	}
	return 0;
}

PCL_API struct perf_event_attr *pcl_evlist__attr(struct pcl_evlist *el, int idx)
{
	return el && idx >= 0 && idx < el->nr ? &el->evsels[idx].ev.attr : NULL;
}

PCL_API int pcl_evlist__set_read_format(struct pcl_evlist *el, uint64_t read_format)
{
	if (!el || el->opened || !read_format)
		return pcl_err(EINVAL, "pcl_evlist__set_read_format: invalid argument");
	el->read_format = read_format;
	return 0;
}

PCL_API int pcl_evlist__fd(const struct pcl_evlist *el, int idx, int cpu_idx, int thread_idx)
{
	const struct evsel *e;
	int c;

	if (!el || idx < 0 || idx >= el->nr || cpu_idx < 0 || cpu_idx >= el->ncpus ||
	    thread_idx < 0 || thread_idx >= el->nthreads)
		return -1;
	e = &el->evsels[idx];
	c = cpu_idx * el->nthreads + thread_idx;
	if (e->state != PCL_EVSEL_OK || !e->live || !e->live[c] || !pcl_pmu__is_kernel(e->ev.pmu))
		return -1;
	return e->ctr[c].fd;
}

PCL_API const char *pcl_evlist__cgroup(const struct pcl_evlist *el, int idx)
{
	return el && idx >= 0 && idx < el->nr ? el->evsels[idx].cgroup : NULL;
}

PCL_API int pcl_evlist__open(struct pcl_evlist *el, const struct pcl_target *target,
			     struct pcl_workload *wl)
{
	struct pcl_target t;
	int ret, nok = 0;

	if (!el)
		return pcl_err(EINVAL, "pcl_evlist__open: no evlist");
	if (el->opened)
		return pcl_err(EINVAL, "pcl_evlist__open: already open");
	ret = opts_copy(&t, target, "pcl_target");
	if (ret < 0)
		return ret;
	target = target ? &t : NULL;
	if (!el->nr)
		return pcl_err(EINVAL, "no events to open");
	/* a closed list may be opened again (perf stat -r): start from clean maps */
	free(el->cpus);
	free(el->threads);
	el->cpus = NULL;
	el->threads = NULL;
	el->ncpus = el->nthreads = 0;
	el->workload = false;
	for (int i = 0; i < el->nr; i++) {
		free(el->evsels[i].ctr);
		free(el->evsels[i].live);
		free(el->evsels[i].counts);
		el->evsels[i].ctr = NULL;
		el->evsels[i].live = NULL;
		el->evsels[i].counts = NULL;
		el->evsels[i].state = PCL_EVSEL_NOT_OPENED;
		el->evsels[i].open_errno = 0;
	}
	ret = build_maps(el, target, wl);
	if (ret)
		return ret;
	if (target && target->cgroup) {
		ret = open_cgroups(el, target->cgroup);
		if (ret)
			return ret;
	}
	el->opened = true;
	for (int i = 0; i < el->nr; i++)
		setup_attr(el, &el->evsels[i], target);
	for (int i = 0; i < el->nr; i++) {
		ret = open_evsel(el, &el->evsels[i]);
		if (ret) {
			pcl_evlist__close_counters(el);
			return ret;
		}
		nok += el->evsels[i].state == PCL_EVSEL_OK;
	}
	/* every event unsupported is not an error: perf still runs and says so per row */
	if (!nok)
		pcl_err(ENODEV, "no event can be counted on this machine");
	return 0;
}

/* Apply start or stop to every leader (and every user-space counter). */
static int for_each_leader(struct pcl_evlist *el, bool start, bool skip_armed)
{
	int ret = 0;

	for (int i = 0; i < el->nr; i++) {
		struct evsel *e = &el->evsels[i];
		const struct pcl_pmu_ops *ops = pcl_pmu__ops(e->ev.pmu);
		bool kernel = pcl_pmu__is_kernel(e->ev.pmu);
		int (*fn)(struct pcl_counter *);

		if (e->state != PCL_EVSEL_OK || (kernel && !kernel_leads(el, e)))
			continue;
		if (skip_armed && kernel && el->workload)
			continue;
		fn = start ? ops->start : ops->stop;
		if (!fn)
			continue;
		for (int c = 0; c < el->ncpus * el->nthreads; c++) {
			int r = e->live[c] ? fn(&e->ctr[c]) : 0;

			if (r && !ret)
				ret = r;
		}
	}
	return ret;
}

PCL_API int pcl_evlist__enable(struct pcl_evlist *el)
{
	if (!el || !el->opened)
		return pcl_err(EINVAL, "pcl_evlist__enable: invalid argument");
	el->enabled = true;
	return for_each_leader(el, true, true);
}

PCL_API int pcl_evlist__disable(struct pcl_evlist *el)
{
	if (!el || !el->opened)
		return pcl_err(EINVAL, "pcl_evlist__disable: invalid argument");
	el->enabled = false;
	return for_each_leader(el, false, false);
}

PCL_API int pcl_evlist__reset(struct pcl_evlist *el)
{
	if (!el || !el->opened)
		return pcl_err(EINVAL, "pcl_evlist__reset: invalid argument");
	int ret = 0;

	for (int i = 0; i < el->nr; i++) {
		struct evsel *e = &el->evsels[i];

		if (e->state != PCL_EVSEL_OK)
			continue;
		if (!pcl_pmu__is_kernel(e->ev.pmu)) {
			/* a user-space source has no reset: it starts again from zero */
			int r = evlist_restart_user(el, i, el->enabled);

			if (r && !ret)
				ret = r;
			continue;
		}
		for (int c = 0; c < el->ncpus * el->nthreads; c++)
			if (e->live[c] && e->ctr[c].fd >= 0)
				ioctl(e->ctr[c].fd, PERF_EVENT_IOC_RESET, 0);
	}
	return ret;
}

PCL_API void pcl_evlist__close_counters(struct pcl_evlist *el)
{
	if (!el)
		return;
	/* members before leaders: a leader's fd must outlive its group */
	for (int i = el->nr - 1; i >= 0; i--)
		close_evsel(&el->evsels[i], el->ncpus * el->nthreads);
	for (int i = 0; i < el->nr; i++) {
		if (el->evsels[i].cgroup_fd >= 0)
			close(el->evsels[i].cgroup_fd);
		el->evsels[i].cgroup_fd = -1;
	}
	el->opened = false;
	el->enabled = false;
}

PCL_API int pcl_evlist__nr_cpus(const struct pcl_evlist *el)
{
	return el ? el->ncpus : 0;
}

PCL_API int pcl_evlist__cpu(const struct pcl_evlist *el, int idx)
{
	return el && idx >= 0 && idx < el->ncpus ? el->cpus[idx] : -1;
}

PCL_API int pcl_evlist__nr_threads(const struct pcl_evlist *el)
{
	return el ? el->nthreads : 0;
}

PCL_API pid_t pcl_evlist__thread(const struct pcl_evlist *el, int idx)
{
	return el && idx >= 0 && idx < el->nthreads ? el->threads[idx] : -1;
}

/* A member whose count comes from its leader's group read (it is in the kernel group). */
static bool in_kernel_group(const struct pcl_evlist *el, const struct evsel *e)
{
	const struct evsel *l = &el->evsels[e->ev.leader];

	return l->group_read && e->state == PCL_EVSEL_OK && pcl_pmu__is_kernel(e->ev.pmu);
}

/*
 * One read() on a group leader with PERF_FORMAT_GROUP fills every member:
 * { nr, time_enabled, time_running, { value, id } [nr] }, the values in the
 * order the members joined the group. Members that failed to open or that
 * live in user space never joined, so the k-th value belongs to the k-th
 * member that did.
 */
static int read_group(struct pcl_evlist *el, int leader, int c)
{
	struct evsel *l = &el->evsels[leader];
	int nr = l->ev.nr_members, m = leader;
	uint64_t buf[3 + 2 * 64];
	ssize_t n;

	if (nr > 64)
		return -E2BIG;
	do {
		n = read(l->ctr[c].fd, buf, sizeof(buf));
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n < (ssize_t)(3 * sizeof(uint64_t)) || buf[0] > (uint64_t)nr ||
	    n < (ssize_t)((3 + 2 * buf[0]) * sizeof(uint64_t)))
		return -EIO;
	for (uint64_t k = 0; k < buf[0]; k++, m++) {
		struct evsel *e;

		while (m < leader + nr &&
		       (!in_kernel_group(el, &el->evsels[m]) || !el->evsels[m].live[c]))
			m++;
		if (m >= leader + nr)
			return -EIO;
		e = &el->evsels[m];
		e->counts[c].val = buf[3 + 2 * k];
		e->counts[c].id = buf[4 + 2 * k];
		e->counts[c].ena = buf[1];
		e->counts[c].run = buf[2];
	}
	return 0;
}

PCL_API int pcl_evlist__read(struct pcl_evlist *el)
{
	int ret = 0;

	if (!el || !el->opened)
		return pcl_err(EINVAL, "pcl_evlist__read: invalid argument");
	for (int i = 0; i < el->nr; i++) {
		struct evsel *e = &el->evsels[i];
		struct evsel *l = &el->evsels[e->ev.leader];
		const struct pcl_pmu_ops *ops = pcl_pmu__ops(e->ev.pmu);

		if (e->state != PCL_EVSEL_OK)
			continue;
		for (int c = 0; c < el->ncpus * el->nthreads; c++) {
			int r;

			if (!e->live[c])
				continue;
			if (in_kernel_group(el, e)) {
				if (l != e)
					continue; /* filled by the leader's read */
				r = read_group(el, i, c);
			} else {
				r = ops->read(&e->ctr[c], &e->counts[c]);
			}
			if (r && !ret)
				ret = pcl_err(-r, "cannot read event '%s': %s", e->ev.name,
					      pcl_strerror(r));
		}
	}
	return ret;
}

PCL_API int pcl_evlist__count(const struct pcl_evlist *el, int idx, int cpu_idx, int thread_idx,
			      struct pcl_count *out)
{
	const struct evsel *e;

	if (!el || idx < 0 || idx >= el->nr || !out || cpu_idx >= el->ncpus ||
	    thread_idx >= el->nthreads)
		return pcl_err(EINVAL, "pcl_evlist__count: invalid argument");
	e = &el->evsels[idx];
	memset(out, 0, sizeof(*out));
	if (e->state != PCL_EVSEL_OK || !e->counts)
		return pcl_err(ENOENT, "pcl_evlist__count: event %d is not open", idx);
	for (int ci = 0; ci < el->ncpus; ci++) {
		if (cpu_idx >= 0 && ci != cpu_idx)
			continue;
		for (int ti = 0; ti < el->nthreads; ti++) {
			const struct pcl_count *c = &e->counts[ci * el->nthreads + ti];

			if (thread_idx >= 0 && ti != thread_idx)
				continue;
			out->val += c->val;
			out->ena += c->ena;
			out->run += c->run;
			out->id = c->id;
		}
	}
	return 0;
}

PCL_API double pcl_count__scaled(const struct pcl_count *c, double scale)
{
	double v;

	if (!c || !c->run)
		return 0.0;
	v = (double)c->val;
	if (c->run < c->ena)
		v = v * ((double)c->ena / (double)c->run);
	return v * (scale ? scale : 1.0);
}

PCL_API int pcl_evlist__add_attr(struct pcl_evlist *el, const struct perf_event_attr *attr,
				 const char *name)
{
	struct evsel *e;

	if (!el || !attr || el->opened)
		return pcl_err(EINVAL, "pcl_evlist__add_attr: invalid argument");
	if (grow_array((void **)&el->evsels, &el->alloc, el->nr + 1, sizeof(*el->evsels)))
		return pcl_err(ENOMEM, "pcl_evlist__add_attr: out of memory");
	e = &el->evsels[el->nr];
	memset(e, 0, sizeof(*e));
	e->ev.attr = *attr;
	e->ev.leader = el->nr;
	e->ev.scale = 1.0;
	e->ev.pmu = pcl_pmu__find_by_type(attr->type);
	snprintf(e->ev.name, sizeof(e->ev.name), "%s", name ? name : "");
	e->state = PCL_EVSEL_NOT_OPENED;
	e->cgroup_fd = -1;
	el->nr++;
	return 0;
}

PCL_API int pcl_evlist__set_maps(struct pcl_evlist *el, const int *cpus, int ncpus,
				 const pid_t *threads, int nthreads)
{
	int n;

	if (!el || el->opened || ncpus <= 0 || nthreads <= 0 || ncpus > 65536 ||
	    nthreads > (1 << 22))
		return pcl_err(EINVAL, "pcl_evlist__set_maps: invalid argument");
	free(el->cpus);
	free(el->threads);
	el->cpus = malloc(sizeof(int) * (size_t)ncpus);
	el->threads = malloc(sizeof(pid_t) * (size_t)nthreads);
	if (!el->cpus || !el->threads)
		return pcl_err(ENOMEM, "pcl_evlist__set_maps: out of memory");
	memcpy(el->cpus, cpus, sizeof(int) * (size_t)ncpus);
	memcpy(el->threads, threads, sizeof(pid_t) * (size_t)nthreads);
	el->ncpus = ncpus;
	el->nthreads = nthreads;
	n = ncpus * nthreads;
	for (int i = 0; i < el->nr; i++) {
		struct evsel *e = &el->evsels[i];

		/* counters of an earlier open are gone: close_evsel must not walk them */
		free(e->ctr);
		e->ctr = NULL;
		free(e->counts);
		free(e->live);
		e->counts = calloc((size_t)n, sizeof(*e->counts));
		e->live = calloc((size_t)n, 1);
		if (!e->counts || !e->live)
			return pcl_err(ENOMEM, "pcl_evlist__set_maps: out of memory");
	}
	return 0;
}

PCL_API int pcl_evlist__set_count(struct pcl_evlist *el, int idx, int cpu_idx, int thread_idx,
				  const struct pcl_count *count)
{
	struct evsel *e;

	if (!el || idx < 0 || idx >= el->nr || cpu_idx < 0 || cpu_idx >= el->ncpus ||
	    thread_idx < 0 || thread_idx >= el->nthreads || !count)
		return pcl_err(EINVAL, "pcl_evlist__set_count: invalid argument");
	e = &el->evsels[idx];
	if (!e->counts)
		return pcl_err(EINVAL, "pcl_evlist__set_count: invalid argument");
	e->counts[cpu_idx * el->nthreads + thread_idx] = *count;
	e->state = PCL_EVSEL_OK;
	return 0;
}

/*
 * Read event @idx alone into its counts (a member of a kernel group read
 * as one: the whole group). For callers that read one event often.
 */
int evlist_read_one(struct pcl_evlist *el, int idx)
{
	struct evsel *e;
	const struct pcl_pmu_ops *ops;
	int ret = 0;

	if (!el || !el->opened || idx < 0 || idx >= el->nr)
		return -EINVAL;
	e = &el->evsels[idx];
	ops = pcl_pmu__ops(e->ev.pmu);
	if (e->state != PCL_EVSEL_OK)
		return -ENOENT;
	for (int c = 0; c < el->ncpus * el->nthreads; c++) {
		int r;

		if (!e->live[c])
			continue;
		if (in_kernel_group(el, e))
			r = read_group(el, e->ev.leader, c);
		else
			r = ops->read(&e->ctr[c], &e->counts[c]);
		if (r && !ret)
			ret = r;
	}
	return ret;
}

/*
 * Start event @idx's user-space counters from zero again (their sources
 * have no reset of their own): del, add, and start when @running.
 */
int evlist_restart_user(struct pcl_evlist *el, int idx, bool running)
{
	struct evsel *e;
	const struct pcl_pmu_ops *ops;
	int ret = 0;

	if (!el || !el->opened || idx < 0 || idx >= el->nr)
		return -EINVAL;
	e = &el->evsels[idx];
	ops = pcl_pmu__ops(e->ev.pmu);
	if (e->state != PCL_EVSEL_OK || pcl_pmu__is_kernel(e->ev.pmu))
		return 0;
	for (int c = 0; c < el->ncpus * el->nthreads; c++) {
		int r;

		if (!e->live[c])
			continue;
		if (ops->del)
			ops->del(&e->ctr[c]);
		r = ops->add(&e->ctr[c]);
		if (!r && running && ops->start)
			r = ops->start(&e->ctr[c]);
		e->live[c] = r == 0;
		if (r && !ret)
			ret = r;
	}
	return ret;
}
