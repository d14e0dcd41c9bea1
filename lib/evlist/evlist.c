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
#include "evlist/read-format.h"
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
	uint64_t read_format; /* set by pcl_evlist__set_read_format (0 is a format too) */
	bool has_read_format; /* else the counting default, READ_FORMAT (+ GROUP in groups) */
	bool regroup; /* an unsupported leader hands its group on (evlist_set_regroup) */
	/* group reads: one read(2) of the biggest group, and its decoded counts */
	void *rbuf;
	size_t rbuf_len;
	struct pcl_count *rcounts;
	int rcounts_nr;
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
	free(el->rbuf);
	free(el->rcounts);
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

static bool is_probe_pmu(const struct evsel *e)
{
	return e->ev.pmu && (!strcmp(pcl_pmu__name(e->ev.pmu), "uprobe") ||
			     !strcmp(pcl_pmu__name(e->ev.pmu), "kprobe"));
}

/* Whether @l's group (@l alone if it leads none) holds a uprobe or kprobe PMU event. */
static bool group_has_probe(const struct pcl_evlist *el, const struct evsel *l)
{
	int n = l->ev.nr_members > 1 ? l->ev.nr_members : 1;

	for (int m = l->ev.leader; m < l->ev.leader + n && m < el->nr; m++)
		if (is_probe_pmu(&el->evsels[m]))
			return true;
	return false;
}

static void setup_attr(struct pcl_evlist *el, struct evsel *e, const struct pcl_target *t)
{
	struct perf_event_attr *a = &e->ev.attr;
	bool leader = kernel_leads(el, e);
	struct evsel *l = &el->evsels[e->ev.leader];

	a->size = sizeof(*a);
	a->read_format = el->has_read_format ? el->read_format : READ_FORMAT;
	if (l->ev.nr_members > 1 && pcl_pmu__is_kernel(l->ev.pmu) &&
	    pcl_pmu__is_kernel(e->ev.pmu) && !el->has_read_format)
		a->read_format |= PERF_FORMAT_GROUP;
	a->inherit = !(t && t->no_inherit);
	/*
	 * The kernel makes an inherited uprobe/kprobe PMU event again at every
	 * fork and clone of the target, reading its path (config1) from the
	 * forking process's memory, where pcl's pointer means nothing: the
	 * fork fails (EFAULT), and the program cannot start a thread or a
	 * process ("Cannot fork"). Such an event counts the threads there are
	 * when it opens (note_probe_no_inherit in the CLI says so).
	 */
	/* (the kernel wants one inherit in a group: a probe's group goes without) */
	if (a->inherit && el->threads[0] != -1 && e->cgroup_fd < 0 && group_has_probe(el, l))
		a->inherit = 0;
	/*
	 * Sampling with the counts (:S, PERF_SAMPLE_READ): in a group the
	 * sample's read holds every member's count (GROUP). Inherited, as perf
	 * 6.12+ records it (open_counter() drops inherit where the kernel
	 * refuses it with PERF_SAMPLE_READ, as perf 6.1 always does); but not
	 * on whole CPUs, where a counter has no children and a reader that saw
	 * inherit would follow the CPU's one value per thread.
	 */
	if ((a->sample_type & PERF_SAMPLE_READ) && el->threads[0] == -1)
		a->inherit = 0;
	if ((a->sample_type & PERF_SAMPLE_READ) && l->ev.nr_members > 1 &&
	    pcl_pmu__is_kernel(l->ev.pmu) && pcl_pmu__is_kernel(e->ev.pmu))
		a->read_format |= PERF_FORMAT_GROUP;
	a->disabled = leader;
	a->enable_on_exec = leader && el->workload;
	/*
	 * A counting open (no caller asked for sample fields) has no period, as
	 * perf stat clears it: the period 1 that parsing gives tracepoints and
	 * breakpoints for record makes a sampling event, which some events
	 * refuse (irq_vectors:irq_work_exit answers EPERM: sampling it would
	 * raise the irq_work it traces).
	 */
	if (!a->sample_type) {
		a->sample_period = 0;
		a->freq = 0;
	}
}

/* Set inherit on every event of @l's group (@l alone if it leads none). */
static void group_inherit(struct pcl_evlist *el, const struct evsel *l, unsigned int v)
{
	int n = l->ev.nr_members > 1 ? l->ev.nr_members : 1;

	for (int m = l->ev.leader; m < l->ev.leader + n && m < el->nr; m++)
		el->evsels[m].ev.attr.inherit = v;
}

/* Open one event at (cpu, thread) index; the leader of its group is already open. */
static int open_counter(struct pcl_evlist *el, struct evsel *e, int ci, int ti)
{
	struct pcl_counter *c = &e->ctr[ci * el->nthreads + ti];
	const struct pcl_pmu_ops *ops = pcl_pmu__ops(e->ev.pmu);
	struct evsel *l = &el->evsels[e->ev.leader];
	bool read_inherit;
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
	/*
	 * kernels before 6.12 refuse inherit with PERF_SAMPLE_READ: the group
	 * then follows the threads it starts on, as perf does there. Tried
	 * first, as the retries below would clear flags that did not matter
	 * (GROUP above all); put back if it did not help, and tried again
	 * after them (a kernel before 6.0 refuses PERF_FORMAT_LOST too).
	 */
	read_inherit = ret == -EINVAL && l == e && e->ev.attr.inherit &&
		       (e->ev.attr.sample_type & PERF_SAMPLE_READ);
	if (read_inherit) {
		group_inherit(el, l, 0);
		ret = ops->add(c);
		if (ret == -EINVAL)
			group_inherit(el, l, 1);
		read_inherit = ret == -EINVAL;
	}
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
		/*
		 * A leader that refuses GROUP: the whole group then reads member
		 * by member. A member's refusal is its own: its leader's fd is
		 * open with GROUP and reads the group in that layout still, so
		 * its read_format must stay as the kernel has it.
		 */
		for (int m = e->ev.leader;
		     l == e && m < e->ev.leader + l->ev.nr_members && m < el->nr; m++)
			el->evsels[m].ev.attr.read_format &= ~(uint64_t)PERF_FORMAT_GROUP;
		e->ev.attr.read_format &= ~(uint64_t)PERF_FORMAT_GROUP;
		ret = ops->add(c);
	}
	if (ret == -EINVAL && read_inherit) {
		group_inherit(el, l, 0);
		ret = ops->add(c);
	}
	return ret;
}

/*
 * Why the kernel answered EACCES or EPERM to @e. perf_event_paranoid is
 * named only when its level forbids what this open asks for and the
 * process lacks CAP_PERFMON and CAP_SYS_ADMIN (the kernel's
 * perf_allow_kernel/cpu/tracepoint checks, and Debian's level 3); a
 * capable process is never refused for the level, so the cause is then
 * the event itself, a security module, or ptrace rules for another user's
 * process.
 */
static void perm_hint(const struct pcl_evlist *el, const struct evsel *e, char *buf, size_t size)
{
	struct pcl_sys_caps caps = { .sz = sizeof(caps) };
	const struct perf_event_attr *a = &e->ev.attr;
	bool cpu_wide = el->threads[0] == -1 || e->cgroup_fd >= 0;
	bool tp = a->type == PERF_TYPE_TRACEPOINT;
	int lvl;

	buf[0] = 0;
	/* perf_event_open was not called for a user-space source */
	if (!pcl_pmu__is_kernel(e->ev.pmu))
		return;
	pcl_sys_probe(&caps);
	lvl = caps.perf_event_paranoid;
	if (!caps.cap_perfmon && !caps.cap_sys_admin) {
		/* perf_uprobe/kprobe_event_init refuse without perfmon_capable(), at any level */
		if (is_probe_pmu(e))
			snprintf(buf, size,
				 "; the %s PMU needs CAP_PERFMON or CAP_SYS_ADMIN, whatever "
				 "perf_event_paranoid says (root can add a probe with pcl probe "
				 "for -e probe_BIN:FUNC)",
				 pcl_pmu__name(e->ev.pmu));
		else if (lvl > 2)
			snprintf(buf, size,
				 "; perf_event_paranoid is %d: perf events are closed to users "
				 "without CAP_PERFMON (a level of 2 or less opens them)",
				 lvl);
		else if (cpu_wide && lvl > 0)
			snprintf(buf, size,
				 "; perf_event_paranoid is %d: counting a whole CPU needs "
				 "CAP_PERFMON or a level of 0 or less",
				 lvl);
		else if (!a->exclude_kernel && lvl > 1)
			snprintf(buf, size,
				 "; perf_event_paranoid is %d: the kernel side of an event needs "
				 "CAP_PERFMON or a level of 1 or less (or :u counts user space "
				 "only)",
				 lvl);
		else if (tp && (a->sample_type & PERF_SAMPLE_RAW) && lvl > -1)
			snprintf(buf, size,
				 "; perf_event_paranoid is %d: raw tracepoint data needs "
				 "CAP_PERFMON or a level of -1",
				 lvl);
		if (buf[0])
			return;
	}
	if (tp && a->sample_period)
		snprintf(buf, size,
			 "; not perf_event_paranoid (%d allows this user): the kernel refuses to "
			 "sample this tracepoint, it can only be counted (pcl stat)",
			 lvl);
	else
		snprintf(buf, size,
			 "; not perf_event_paranoid (%d allows this user): the event itself, a "
			 "security module, or ptrace rules for another user's process refuse it",
			 lvl);
}

/* A hint for the errno of a failed open, after "cannot open event 'x': strerror". */
static void open_hint(const struct pcl_evlist *el, const struct evsel *e, int err, char *buf,
		      size_t size)
{
	switch (err) {
	case EACCES:
	case EPERM:
		perm_hint(el, e, buf, size);
		break;
	case EMFILE:
		snprintf(buf, size, "; too many open files (raise 'ulimit -n')");
		break;
	case ESRCH:
		snprintf(buf, size, "; the target process is gone");
		break;
	default:
		buf[0] = 0;
	}
}

/* Events in @e's group, itself included (a lone event is a group of one). */
static int group_size(const struct evsel *e)
{
	return e->ev.nr_members > 0 ? e->ev.nr_members : 1;
}

/*
 * The leader of @e's group could not be opened: @e, its first member left,
 * leads the rest instead. Their attrs are made again for the new group (the
 * leader starts disabled, a group of one reads without PERF_FORMAT_GROUP),
 * and the old leader's message says what became of its group.
 */
static void regroup(struct pcl_evlist *el, struct evsel *e)
{
	struct evsel *l = &el->evsels[e->ev.leader];
	int old = e->ev.leader, idx = (int)(e - el->evsels), end = old + group_size(l);
	char *msg = NULL;

	for (int m = idx; m < end && m < el->nr; m++)
		el->evsels[m].ev.leader = idx;
	e->ev.nr_members = end - idx;
	l->ev.nr_members = idx - old;
	for (int m = idx; m < end && m < el->nr; m++) {
		struct perf_event_attr *a = &el->evsels[m].ev.attr;
		unsigned int inherit = a->inherit;

		setup_attr(el, &el->evsels[m], NULL);
		a->inherit = inherit;
	}
	if (asprintf(&msg, "%s; the group goes on without it, led by '%s'",
		     l->open_msg ? l->open_msg : l->ev.name, e->ev.name) >= 0) {
		free(l->open_msg);
		l->open_msg = msg;
	}
	/* the open succeeds: this is the caller's only word on what became of the group */
	pcl_err(ENODEV, "%s", l->open_msg ? l->open_msg : l->ev.name);
	pr_warn("%s\n", l->open_msg ? l->open_msg : l->ev.name);
}

static int open_evsel(struct pcl_evlist *el, struct evsel *e)
{
	int n = el->ncpus * el->nthreads, ret = 0;
	struct evsel *l = &el->evsels[e->ev.leader];
	char hint[256];

	if (l != e && l->state != PCL_EVSEL_OK && el->regroup) {
		regroup(el, e);
		l = e;
	}

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
	/* a user-space source says why itself (a closed file, not perf_event_paranoid) */
	if (!pcl_pmu__is_kernel(e->ev.pmu) && strstr(pcl_last_error(), e->ev.name)) {
		char why[256];

		snprintf(why, sizeof(why), "%s", pcl_last_error());
		return pcl_err(-ret, "cannot open event %s", why);
	}
	open_hint(el, e, -ret, hint, sizeof(hint));
	return pcl_err(-ret, "cannot open event '%s': %s%s", e->ev.name, pcl_strerror(ret), hint);
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
	/* a bit the manual does not define would change a layout we cannot parse */
	if (!el || el->opened || (read_format & ~(uint64_t)READ_FORMAT_KNOWN))
		return pcl_err(EINVAL, "pcl_evlist__set_read_format: invalid argument");
	el->read_format = read_format;
	el->has_read_format = true;
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

PCL_API int pcl_evlist__set_filter(struct pcl_evlist *el, int idx, const char *filter)
{
	const struct evsel *e;
	int n = 0;

	if (!el || idx < 0 || idx >= el->nr || !filter)
		return pcl_err(EINVAL, "pcl_evlist__set_filter: invalid argument");
	e = &el->evsels[idx];
	if (e->state != PCL_EVSEL_OK)
		return pcl_err(EINVAL, "event '%s' is not open", e->ev.name);
	for (int c = 0; c < el->ncpus; c++) {
		for (int t = 0; t < el->nthreads; t++) {
			int fd = pcl_evlist__fd(el, idx, c, t), err;

			if (fd < 0)
				continue;
			if (ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter)) {
				err = errno;
				return pcl_err(err, "cannot set filter \"%s\" on event '%s': %s",
					       filter, e->ev.name, strerror(err));
			}
			n++;
		}
	}
	return n ? 0 : pcl_err(ENODEV, "event '%s' has no kernel counter to filter", e->ev.name);
}

PCL_API const char *pcl_evlist__cgroup(const struct pcl_evlist *el, int idx)
{
	return el && idx >= 0 && idx < el->nr ? el->evsels[idx].cgroup : NULL;
}

/* Size the group read buffer from each group leader's read_format and its group. */
static int size_read_buffers(struct pcl_evlist *el)
{
	size_t len = 0;
	int nr = 0;

	for (int i = 0; i < el->nr; i++) {
		const struct evsel *e = &el->evsels[i];
		size_t sz;

		if (e->state != PCL_EVSEL_OK || !e->group_read)
			continue;
		sz = read_format_size(e->ev.attr.read_format, group_size(e));
		if (!sz)
			return pcl_err(EINVAL, "'%s': read_format %#llx cannot be read", e->ev.name,
				       (unsigned long long)e->ev.attr.read_format);
		if (sz > len)
			len = sz;
		if (group_size(e) > nr)
			nr = group_size(e);
	}
	if (len > el->rbuf_len) {
		void *b = realloc(el->rbuf, len);

		if (!b)
			return pcl_err(ENOMEM, "out of memory");
		el->rbuf = b;
		el->rbuf_len = len;
	}
	if (nr > el->rcounts_nr) {
		struct pcl_count *c = realloc(el->rcounts, sizeof(*c) * (size_t)nr);

		if (!c)
			return pcl_err(ENOMEM, "out of memory");
		el->rcounts = c;
		el->rcounts_nr = nr;
	}
	return 0;
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
	ret = size_read_buffers(el);
	if (ret) {
		pcl_evlist__close_counters(el);
		return ret;
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
 * One read() on a group leader with PERF_FORMAT_GROUP fills every member,
 * in the order the members joined the group, in the layout its read_format
 * makes (read-format.c). Members that failed to open or that live in user
 * space never joined, so the k-th count belongs to the k-th member that did.
 */
static int read_group(struct pcl_evlist *el, int leader, int c)
{
	struct evsel *l = &el->evsels[leader];
	int nr = group_size(l), m = leader, got;
	ssize_t n;

	if (!el->rbuf || nr > el->rcounts_nr)
		return -EIO;
	n = read_format_read(l->ctr[c].fd, el->rbuf, el->rbuf_len);
	if (n < 0)
		return (int)n;
	got = read_format_parse(l->ev.attr.read_format, el->rbuf, (size_t)n, el->rcounts, nr);
	if (got < 0)
		return got;
	for (int k = 0; k < got; k++, m++) {
		while (m < leader + nr &&
		       (!in_kernel_group(el, &el->evsels[m]) || !el->evsels[m].live[c]))
			m++;
		if (m >= leader + nr)
			return -EIO;
		el->evsels[m].counts[c] = el->rcounts[k];
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
			out->lost += c->lost;
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
 * Whether a group whose leader cannot be opened is re-formed under its first
 * member that can (the self-measurement API's promise that the others count
 * on), instead of every member being unsupported with it (perf stat's way).
 * Before open.
 */
void evlist_set_regroup(struct pcl_evlist *el, bool on)
{
	if (el && !el->opened)
		el->regroup = on;
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
