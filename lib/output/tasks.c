/* SPDX-License-Identifier: MIT */
/*
 * perf report --tasks and --mmaps (contract in include/pcl/report.h): the
 * machine's threads as a tree of who forked whom, each with its process's
 * maps when asked.
 *
 * The order is perf 6.1's: it walks its threads table (256 buckets by
 * tid, each ordered by tid) and links each thread under its parent (the
 * thread its FORK came from), then that parent under its own, and so on
 * up to a thread with no parent, which becomes a root. So a thread's
 * children come in the order that walk first reached them, and the roots
 * likewise.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "internal.h"

struct task {
	struct pcl_thread *t;
	struct task *first, *last, *next; /* children, in the order linked; siblings */
	bool listed;
};

static int bucket_cmp(const void *pa, const void *pb)
{
	const struct task *a = pa, *b = pb;
	uint32_t ba = (uint32_t)a->t->tid % 256, bb = (uint32_t)b->t->tid % 256;

	if (ba != bb)
		return ba < bb ? -1 : 1;
	return (a->t->tid > b->t->tid) - (a->t->tid < b->t->tid);
}

static struct task *task_find(struct task *v, size_t n, int32_t tid)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].t->tid == tid)
			return &v[i];
	return NULL;
}

static void add_child(struct task *parent, struct task *c)
{
	if (parent->last)
		parent->last->next = c;
	else
		parent->first = c;
	parent->last = c;
	c->listed = true;
}

static void print_task(FILE *fp, const struct task *k, int level, bool mmaps)
{
	const struct pcl_thread *t = k->t;
	int indent = fprintf(fp, "  %8d %8d %8d |%*s", t->pid, t->tid, t->ppid, level, "");

	fprintf(fp, "%s\n", t->comm);
	for (int i = 0; mmaps && i < pcl_thread__nr_maps(t); i++) {
		const struct pcl_map *m = pcl_thread__map(t, i);
		/* an anonymous map keeps its ips (pgoff marks it): the kernel's is start / page */
		uint64_t pgoff = m->pgoff == UINT64_MAX ? m->start >> 12 : m->pgoff;

		fprintf(fp, "%*s  %" PRIx64 "-%" PRIx64 " %c%c%c%c %08" PRIx64 " %" PRIu64 " %s\n",
			indent < 0 ? 0 : indent, "", m->start, m->end,
			m->prot & PROT_READ ? 'r' : '-', m->prot & PROT_WRITE ? 'w' : '-',
			m->prot & PROT_EXEC ? 'x' : '-', m->flags & MAP_SHARED ? 's' : 'p', pgoff,
			m->dso->ino, m->dso->name);
	}
	for (const struct task *c = k->first; c; c = c->next)
		print_task(fp, c, level + 1, mmaps);
}

PCL_API int pcl_report__tasks(FILE *fp, struct pcl_machine *m, bool mmaps)
{
	struct task root = { 0 };
	struct task *v;
	size_t n;
	int ret = 0;

	if (!fp || !m)
		return pcl_err(EINVAL, "pcl_report__tasks: invalid argument");
	/* perf always has the idle task */
	if (!pcl_machine__thread(m, -1, 0))
		return pcl_err(ENOMEM, "pcl_report__tasks: out of memory");
	n = pcl_machine__nr_threads(m);
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		return pcl_err(ENOMEM, "pcl_report__tasks: out of memory");
	{
		struct pcl_thread **t = calloc(n ? n : 1, sizeof(*t));

		if (!t) {
			free(v);
			return pcl_err(ENOMEM, "pcl_report__tasks: out of memory");
		}
		n = pcl_machine__threads(m, t, n);
		for (size_t i = 0; i < n; i++)
			v[i].t = t[i];
		free(t);
	}
	qsort(v, n, sizeof(*v), bucket_cmp);
	for (size_t i = 0; i < n; i++) {
		struct task *k = &v[i];

		/* link k under its parent, the parent under its own, up to one listed or a root */
		while (!k->listed) {
			struct task *p;

			if (k->t->ppid == -1) {
				add_child(&root, k);
				break;
			}
			p = task_find(v, n, k->t->ppid);
			if (!p) {
				ret = pcl_err(ENOENT, "thread %d: its parent %d is not known",
					      k->t->tid, k->t->ppid);
				goto out;
			}
			add_child(p, k);
			k = p;
		}
	}
	fprintf(fp, "# %8s %8s %8s  %s\n", "pid", "tid", "ppid", "comm");
	for (const struct task *c = root.first; c; c = c->next)
		print_task(fp, c, 0, mmaps);
	if (ferror(fp))
		ret = -EIO;
out:
	free(v);
	return ret;
}
