/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the machine model (lib/machine/machine.c) against
 * include/pcl/machine.h, fed decoded records built by hand: threads from
 * COMM, FORK and EXIT (who shares whose maps, inherited and default
 * comms), maps from MMAP and MMAP2 (overlap cutting, kernel and module
 * maps, JIT and vdso maps, map_ip), DSOs and their build ids, interning.
 */
#include "unit.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <pcl/common.h>
#include <pcl/data.h>
#include <pcl/machine.h>
#include "internal.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

static struct pcl_machine *mach;

static void cleanup(void)
{
	pcl_machine__free(mach);
	mach = NULL;
}

static struct pcl_machine *new_machine(void)
{
	mach = pcl_machine__new();
	assert_non_null(mach);
	return mach;
}

/* ---- records ---- */

static void comm(struct pcl_machine *m, uint32_t pid, uint32_t tid, const char *name, bool exec)
{
	struct pcl_record r = { .type = PERF_RECORD_COMM,
				.misc = exec ? PERF_RECORD_MISC_COMM_EXEC : 0 };

	r.comm.pid = pid;
	r.comm.tid = tid;
	r.comm.comm = name;
	assert_int_equal(pcl_machine__process(m, &r), 0);
}

static void task(struct pcl_machine *m, uint32_t type, uint32_t pid, uint32_t ppid, uint32_t tid,
		 uint32_t ptid)
{
	struct pcl_record r = { .type = type };

	r.task.pid = pid;
	r.task.ppid = ppid;
	r.task.tid = tid;
	r.task.ptid = ptid;
	assert_int_equal(pcl_machine__process(m, &r), 0);
}

static void fork_(struct pcl_machine *m, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid)
{
	task(m, PERF_RECORD_FORK, pid, ppid, tid, ptid);
}

/* An MMAP2 of @file in @pid at [@start, @start + @len), file offset @pgoff. */
static void mmap2(struct pcl_machine *m, int32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		  uint32_t prot, const char *file)
{
	struct pcl_record r = { .type = PERF_RECORD_MMAP2, .misc = PERF_RECORD_MISC_USER };

	r.mmap.pid = (uint32_t)pid;
	r.mmap.tid = (uint32_t)pid;
	r.mmap.addr = start;
	r.mmap.len = len;
	r.mmap.pgoff = pgoff;
	r.mmap.prot = prot;
	r.mmap.flags = MAP_PRIVATE;
	r.mmap.filename = file;
	assert_int_equal(pcl_machine__process(m, &r), 0);
}

/* A kernel MMAP (pid -1), as perf record writes for the kernel and its modules. */
static void kmmap(struct pcl_machine *m, uint64_t start, uint64_t len, uint64_t pgoff,
		  const char *file)
{
	struct pcl_record r = { .type = PERF_RECORD_MMAP, .misc = PERF_RECORD_MISC_KERNEL };

	r.mmap.pid = (uint32_t)-1;
	r.mmap.tid = 0;
	r.mmap.addr = start;
	r.mmap.len = len;
	r.mmap.pgoff = pgoff;
	r.mmap.filename = file;
	assert_int_equal(pcl_machine__process(m, &r), 0);
}

static struct pcl_thread *thread(struct pcl_machine *m, int32_t pid, int32_t tid)
{
	struct pcl_thread *t = pcl_machine__thread(m, pid, tid);

	assert_non_null(t);
	return t;
}

static struct pcl_map *umap(struct pcl_machine *m, struct pcl_thread *t, uint64_t ip)
{
	return pcl_machine__find_map(m, t, false, ip);
}

#define RX (PROT_READ | PROT_EXEC)

/* ---- threads ---- */

static void test_comm(void **state)
{
	struct pcl_machine *m = new_machine();
	struct pcl_thread *t;

	(void)state;
	comm(m, 100, 100, "bash", false);
	t = thread(m, 100, 100);
	assert_int_equal(t->pid, 100);
	assert_int_equal(t->tid, 100);
	assert_string_equal(t->comm, "bash");
	assert_ptr_equal(t->comm, pcl_machine__intern(m, "bash"));
	assert_false(t->comm_exec);
	assert_false(t->exited);
	assert_non_null(t->maps);
	/* an exec renames the thread, the same object */
	comm(m, 100, 100, "hot", true);
	assert_ptr_equal(thread(m, 100, 100), t);
	assert_string_equal(t->comm, "hot");
	assert_true(t->comm_exec);
}

static void test_default_comm(void **state)
{
	struct pcl_machine *m = new_machine();
	struct pcl_thread *t, *leader, *idle;

	(void)state;
	t = thread(m, 300, 300);
	assert_string_equal(t->comm, ":300");
	assert_int_equal(t->pid, 300);
	/* a thread first seen in a sample: its leader is made too, with the same maps */
	t = thread(m, 400, 401);
	assert_string_equal(t->comm, ":401");
	assert_int_equal(t->pid, 400);
	leader = thread(m, 400, 400);
	assert_string_equal(leader->comm, ":400");
	assert_ptr_equal(t->maps, leader->maps);
	/* pid -1: the idle thread, pid 0 */
	idle = thread(m, -1, -1);
	assert_int_equal(idle->pid, 0);
	assert_int_equal(idle->tid, 0);
	assert_string_equal(idle->comm, "swapper"); /* as perf names it */
	assert_ptr_equal(thread(m, 0, 0), idle);
}

/* A thread first seen in a sample maps what its process maps. */
static void test_sample_thread_shares_maps(void **state)
{
	struct pcl_machine *m = new_machine();
	struct pcl_thread *leader, *t;
	struct pcl_map *map;

	(void)state;
	comm(m, 100, 100, "hot", true);
	mmap2(m, 100, 0x400000, 0x10000, 0, RX, "/usr/bin/hot");
	leader = thread(m, 100, 100);
	t = thread(m, 100, 105);
	assert_ptr_equal(t->maps, leader->maps);
	assert_string_equal(t->comm, ":105");
	map = umap(m, t, 0x401000);
	assert_non_null(map);
	assert_string_equal(map->dso->name, "/usr/bin/hot");
	/* and what the process maps later */
	mmap2(m, 100, 0x7f0000000000, 0x1000, 0, RX, "/lib/libc.so.6");
	assert_non_null(umap(m, t, 0x7f0000000800));
}

static void test_fork(void **state)
{
	struct pcl_machine *m = new_machine();
	struct pcl_thread *p, *th, *child;
	struct pcl_map *exe;

	(void)state;
	comm(m, 100, 100, "hot", true);
	mmap2(m, 100, 0x400000, 0x10000, 0, RX, "/usr/bin/hot");
	p = thread(m, 100, 100);
	exe = umap(m, p, 0x400000);
	assert_non_null(exe);

	/* a new thread of the process: same maps, the comm inherited */
	fork_(m, 100, 100, 101, 100);
	th = thread(m, 100, 101);
	assert_int_equal(th->pid, 100);
	assert_ptr_equal(th->maps, p->maps);
	assert_ptr_equal(th->comm, p->comm);
	assert_false(th->comm_exec);

	/* a new process: a copy of the maps */
	fork_(m, 200, 100, 200, 100);
	child = thread(m, 200, 200);
	assert_int_equal(child->pid, 200);
	assert_ptr_equal(child->comm, p->comm);
	assert_ptr_not_equal(child->maps, p->maps);
	assert_ptr_equal(umap(m, child, 0x400000), exe);

	/* after the fork, each maps on its own */
	mmap2(m, 200, 0x500000, 0x1000, 0, RX, "/usr/bin/child-only");
	mmap2(m, 100, 0x600000, 0x1000, 0, RX, "/usr/bin/parent-only");
	assert_non_null(umap(m, child, 0x500000));
	assert_null(umap(m, p, 0x500000));
	assert_null(umap(m, th, 0x500000));
	assert_null(umap(m, child, 0x600000));
	assert_non_null(umap(m, th, 0x600000));
	/* the child's exec gives it its own name; the parent keeps its own */
	comm(m, 200, 200, "child", true);
	assert_string_equal(child->comm, "child");
	assert_string_equal(p->comm, "hot");

	/* a fork from a thread (ptid 101) of a new process copies the process's maps */
	fork_(m, 300, 100, 300, 101);
	assert_non_null(umap(m, thread(m, 300, 300), 0x600000));
	assert_ptr_not_equal(thread(m, 300, 300)->maps, p->maps);
}

/*
 * perf's thread__fork copies the parent's comm only when one was set
 * (parent->comm_set): the child of a parent never named keeps its own
 * default, ":CHILD_TID", not the parent's ":PARENT_TID".
 */
static void test_fork_unknown_parent(void **state)
{
	struct pcl_machine *m = new_machine();
	struct pcl_thread *c;

	(void)state;
	fork_(m, 501, 500, 501, 500);
	c = thread(m, 501, 501);
	assert_string_equal(thread(m, 500, 500)->comm, ":500");
	if (strcmp(c->comm, ":501"))
		print_message("child of an unnamed parent: comm '%s', perf shows ':501'\n",
			      c->comm);
	assert_string_equal(c->comm, ":501");
	/* once the parent is named, its children take the name */
	comm(m, 500, 500, "named", false);
	fork_(m, 502, 500, 502, 500);
	assert_string_equal(thread(m, 502, 502)->comm, "named");
}

static void test_exit(void **state)
{
	struct pcl_machine *m = new_machine();
	struct pcl_thread *t, *again;

	(void)state;
	comm(m, 100, 100, "hot", false);
	fork_(m, 100, 100, 101, 100);
	t = thread(m, 100, 101);
	task(m, PERF_RECORD_EXIT, 100, 100, 101, 100);
	assert_true(t->exited);
	assert_false(thread(m, 100, 100)->exited);
	/* EXIT of a thread never seen: nothing */
	task(m, PERF_RECORD_EXIT, 700, 700, 700, 700);
	/* the tid reused by a later fork: alive again, of its new process */
	comm(m, 800, 800, "new", false);
	fork_(m, 800, 800, 101, 800);
	again = thread(m, 800, 101);
	assert_int_equal(again->pid, 800);
	assert_false(again->exited);
	assert_ptr_equal(again->maps, thread(m, 800, 800)->maps);
	assert_string_equal(again->comm, "new");
}

static void test_many_threads(void **state)
{
	struct pcl_machine *m = new_machine();
	char name[32];

	(void)state;
	for (int i = 1; i <= 2000; i++) {
		snprintf(name, sizeof(name), "t%d", i);
		comm(m, (uint32_t)i, (uint32_t)i, name, false);
	}
	for (int i = 1; i <= 2000; i++) {
		struct pcl_thread *t = thread(m, i, i);

		snprintf(name, sizeof(name), "t%d", i);
		if (differ_str(name, "comm", t->comm, name) ||
		    differ(name, "tid", (uint64_t)t->tid, (uint64_t)i))
			fail();
	}
}

/* ---- maps ---- */

static void test_overlap(void **state)
{
	struct pcl_machine *m = new_machine();
	struct pcl_thread *t;
	struct pcl_map *a, *head, *b, *tail, *c;
	struct pcl_dso *da;

	(void)state;
	mmap2(m, 100, 0x400000, 0x10000, 0x2000, RX, "/bin/a");
	t = thread(m, 100, 100);
	a = umap(m, t, 0x400000);
	assert_non_null(a);
	da = a->dso;
	assert_int_equal(a->start, 0x400000);
	assert_int_equal(a->end, 0x410000);
	assert_int_equal(a->pgoff, 0x2000);
	assert_int_equal(a->prot, RX);
	assert_int_equal(a->flags, MAP_PRIVATE);
	assert_ptr_equal(umap(m, t, 0x40ffff), a);
	assert_null(umap(m, t, 0x410000));
	assert_null(umap(m, t, 0x3fffff));
	assert_int_equal(pcl_map__map_ip(a, 0x409000), 0xb000);

	/* b in the middle of a: a's head and tail stay */
	mmap2(m, 100, 0x404000, 0x4000, 0x1000, RX, "/lib/b");
	head = umap(m, t, 0x400000);
	b = umap(m, t, 0x404000);
	tail = umap(m, t, 0x408000);
	assert_non_null(head);
	assert_non_null(b);
	assert_non_null(tail);
	assert_ptr_equal(head->dso, da);
	assert_int_equal(head->start, 0x400000);
	assert_int_equal(head->end, 0x404000);
	assert_int_equal(head->pgoff, 0x2000);
	assert_string_equal(b->dso->name, "/lib/b");
	assert_int_equal(b->end, 0x408000);
	assert_ptr_equal(umap(m, t, 0x407fff), b);
	assert_ptr_equal(tail->dso, da);
	assert_int_equal(tail->start, 0x408000);
	assert_int_equal(tail->end, 0x410000);
	assert_int_equal(tail->pgoff, 0x2000 + 0x8000);
	/* the tail maps its addresses to the same file offsets as before */
	assert_int_equal(pcl_map__map_ip(tail, 0x409000), 0xb000);
	assert_int_equal(pcl_map__map_ip(head, 0x401000), 0x3000);
	/* the old map object is still valid and unchanged */
	assert_int_equal(a->start, 0x400000);
	assert_int_equal(a->end, 0x410000);
	assert_int_equal(a->pgoff, 0x2000);
	assert_ptr_equal(a->dso, da);

	/* c over all three, from below a to above it */
	mmap2(m, 100, 0x3f0000, 0x30000, 0, RX, "/bin/c");
	c = umap(m, t, 0x405000);
	assert_non_null(c);
	assert_string_equal(c->dso->name, "/bin/c");
	assert_ptr_equal(umap(m, t, 0x3f0000), c);
	assert_ptr_equal(umap(m, t, 0x41ffff), c);
	assert_null(umap(m, t, 0x420000));
	assert_int_equal(b->end, 0x408000); /* still readable */

	/* d over c's end only: c keeps its head */
	mmap2(m, 100, 0x418000, 0x10000, 0, RX, "/bin/d");
	assert_ptr_equal(umap(m, t, 0x417fff)->dso, c->dso);
	assert_int_equal(umap(m, t, 0x417fff)->end, 0x418000);
	assert_string_equal(umap(m, t, 0x418000)->dso->name, "/bin/d");
	assert_int_equal(umap(m, t, 0x427fff)->end, 0x428000);

	/* e over c's start only: c keeps its tail, pgoff moved */
	mmap2(m, 100, 0x3e0000, 0x20000, 0, RX, "/bin/e");
	assert_string_equal(umap(m, t, 0x3fffff)->dso->name, "/bin/e");
	assert_ptr_equal(umap(m, t, 0x400000)->dso, c->dso);
	assert_int_equal(umap(m, t, 0x400000)->start, 0x400000);
	assert_int_equal(umap(m, t, 0x400000)->pgoff, 0x10000);
	assert_int_equal(pcl_map__map_ip(umap(m, t, 0x400000), 0x400010), 0x10010);

	/* the same range again replaces it exactly */
	mmap2(m, 100, 0x3e0000, 0x20000, 0x5000, RX, "/bin/f");
	assert_string_equal(umap(m, t, 0x3e0000)->dso->name, "/bin/f");
	assert_string_equal(umap(m, t, 0x3fffff)->dso->name, "/bin/f");
	assert_ptr_equal(umap(m, t, 0x400000)->dso, c->dso);
	assert_null(umap(m, t, 0x3dffff));
	/* a map of no length changes nothing */
	mmap2(m, 100, 0x3e1000, 0, 0, RX, "/bin/empty");
	assert_string_equal(umap(m, t, 0x3e1000)->dso->name, "/bin/f");
}

/* Many maps inserted out of order: every lookup lands in its own. */
static void test_many_maps(void **state)
{
	struct pcl_machine *m = new_machine();
	struct pcl_thread *t;
	char name[64];
	int bad = 0;

	(void)state;
	for (int i = 0; i < 500; i++) {
		int k = (i * 7919) % 500; /* a permutation of 0..499 */

		snprintf(name, sizeof(name), "/lib/l%d.so", k);
		mmap2(m, 100, 0x10000000 + (uint64_t)k * 0x10000, 0x8000, (uint64_t)k * 0x1000, RX,
		      name);
	}
	t = thread(m, 100, 100);
	for (int k = 0; k < 500; k++) {
		uint64_t s = 0x10000000 + (uint64_t)k * 0x10000;
		struct pcl_map *map = umap(m, t, s + 0x7fff);

		snprintf(name, sizeof(name), "/lib/l%d.so", k);
		if (!map) {
			print_message("'%s': no map at %#llx\n", name, (unsigned long long)s);
			bad++;
			continue;
		}
		bad += differ_str(name, "dso", map->dso->name, name);
		bad += differ(name, "map_ip", pcl_map__map_ip(map, s + 0x10),
			      (uint64_t)k * 0x1000 + 0x10);
		bad += umap(m, t, s + 0x8000) != NULL;
	}
	assert_int_equal(bad, 0);
	assert_int_equal(pcl_machine__nr_dsos(m), 500);
}

static void test_kernel_maps(void **state)
{
	struct pcl_machine *m = new_machine();
	struct pcl_map *k, *mod, *mod2, *top;
	const uint64_t ktext = 0xffffffff81000000ULL;

	(void)state;
	kmmap(m, ktext, ~0ULL - ktext, ktext, "[kernel.kallsyms]_text");
	kmmap(m, 0xffffffffc0000000ULL, 0x10000, 0,
	      "/lib/modules/6.1.0-13-amd64/kernel/drivers/net/ethernet/intel/e1000e/e1000e.ko");
	kmmap(m, 0xffffffffc0020000ULL, 0x8000, 0,
	      "/lib/modules/6.1.0-13-amd64/kernel/net/netfilter/nf-conntrack.ko.xz");

	k = pcl_machine__find_map(m, NULL, true, 0xffffffff81234567ULL);
	assert_non_null(k);
	assert_string_equal(k->dso->name, "[kernel.kallsyms]");
	assert_string_equal(k->dso->short_name, "[kernel.kallsyms]");
	assert_int_equal(k->dso->kind, PCL_DSO_KERNEL);
	assert_int_equal(k->start, ktext);
	assert_int_equal(pcl_map__map_ip(k, 0xffffffff81234567ULL), 0xffffffff81234567ULL);
	assert_null(pcl_machine__find_map(m, NULL, true, ktext - 1));

	mod = pcl_machine__find_map(m, NULL, true, 0xffffffffc0001234ULL);
	assert_non_null(mod);
	assert_int_equal(mod->dso->kind, PCL_DSO_MODULE);
	assert_string_equal(mod->dso->short_name, "[e1000e]");
	assert_int_equal(mod->start, 0xffffffffc0000000ULL);
	assert_int_equal(mod->end, 0xffffffffc0010000ULL);
	assert_int_equal(pcl_map__map_ip(mod, 0xffffffffc0001234ULL), 0xffffffffc0001234ULL);
	mod2 = pcl_machine__find_map(m, NULL, true, 0xffffffffc0027fffULL);
	assert_non_null(mod2);
	assert_string_equal(mod2->dso->short_name, "[nf_conntrack]");

	/* between and above the modules: the kernel, which runs to the top */
	top = pcl_machine__find_map(m, NULL, true, 0xffffffffc0010000ULL);
	assert_non_null(top);
	assert_int_equal(top->dso->kind, PCL_DSO_KERNEL);
	top = pcl_machine__find_map(m, NULL, true, 0xfffffffffffff000ULL);
	assert_non_null(top);
	assert_int_equal(top->dso->kind, PCL_DSO_KERNEL);
	assert_int_equal(top->end, ~0ULL);

	/* kernel addresses are not a process's, and the other way round */
	assert_null(pcl_machine__find_map(m, thread(m, 100, 100), false, 0xffffffff81234567ULL));
	assert_int_equal(pcl_machine__nr_dsos(m), 3);
}

/* Modules first, then the kernel: the kernel fills up to the first module. */
static void test_kernel_after_modules(void **state)
{
	struct pcl_machine *m = new_machine();
	struct pcl_map *k;
	const uint64_t ktext = 0xffffffff81000000ULL;

	(void)state;
	kmmap(m, 0xffffffffc0000000ULL, 0x10000, 0, "/lib/modules/x/kernel/fs/ext4/ext4.ko");
	kmmap(m, ktext, ~0ULL - ktext, ktext, "[kernel.kallsyms]_text");
	assert_string_equal(
		pcl_machine__find_map(m, NULL, true, 0xffffffffc0000010ULL)->dso->short_name,
		"[ext4]");
	k = pcl_machine__find_map(m, NULL, true, 0xffffffff90000000ULL);
	assert_non_null(k);
	assert_int_equal(k->dso->kind, PCL_DSO_KERNEL);
	assert_int_equal(k->end, 0xffffffffc0000000ULL);
}

/* No kernel MMAP in the file: kernel addresses still land in the kernel. */
static void test_kernel_without_mmap(void **state)
{
	struct pcl_machine *m = new_machine();
	struct pcl_map *k;

	(void)state;
	assert_int_equal(pcl_machine__nr_dsos(m), 0);
	k = pcl_machine__find_map(m, NULL, true, 0xffffffff81000010ULL);
	assert_non_null(k);
	assert_string_equal(k->dso->name, "[kernel.kallsyms]");
	assert_int_equal(k->dso->kind, PCL_DSO_KERNEL);
	assert_int_equal(pcl_map__map_ip(k, 0xffffffff81000010ULL), 0xffffffff81000010ULL);
	assert_int_equal(pcl_machine__nr_dsos(m), 1);
}

static void test_special_maps(void **state)
{
	struct pcl_machine *m = new_machine();
	struct pcl_thread *t;
	struct pcl_map *map;
	struct pcl_record r = { .type = PERF_RECORD_MMAP, .misc = PERF_RECORD_MISC_USER };

	(void)state;
	/* an anonymous executable map: perf's JIT map of its process */
	mmap2(m, 100, 0x7f0000000000ULL, 0x10000, 0x1234, RX, "//anon");
	t = thread(m, 100, 100);
	map = umap(m, t, 0x7f0000000100ULL);
	assert_non_null(map);
	assert_string_equal(map->dso->name, "/tmp/perf-100.map");
	assert_string_equal(map->dso->short_name, "[JIT] tid 100");
	assert_int_equal(map->dso->kind, PCL_DSO_JIT);
	assert_int_equal(map->dso->pid, 100);
	assert_int_equal(pcl_map__map_ip(map, 0x7f0000000100ULL), 0x7f0000000100ULL);
	/* executable [heap] too, into the same DSO */
	mmap2(m, 100, 0x1000000, 0x21000, 0, PROT_READ | PROT_WRITE | PROT_EXEC, "[heap]");
	map = umap(m, t, 0x1000010);
	assert_non_null(map);
	assert_int_equal(map->dso->kind, PCL_DSO_JIT);
	assert_ptr_equal(map->dso, umap(m, t, 0x7f0000000100ULL)->dso);
	assert_int_equal(pcl_map__map_ip(map, 0x1000010), 0x1000010);

	/* not executable: no JIT map, the address itself */
	mmap2(m, 100, 0x7e0000000000ULL, 0x10000, 0, PROT_READ | PROT_WRITE, "//anon");
	map = umap(m, t, 0x7e0000000010ULL);
	assert_non_null(map);
	assert_string_equal(map->dso->name, "//anon");
	assert_int_equal(map->dso->kind, PCL_DSO_USER);
	assert_int_equal(pcl_map__map_ip(map, 0x7e0000000010ULL), 0x7e0000000010ULL);

	/* the vDSO: the offset from its start */
	mmap2(m, 100, 0x7fff00000000ULL, 0x2000, 0x7fff00000000ULL, RX, "[vdso]");
	map = umap(m, t, 0x7fff00000ab0ULL);
	assert_non_null(map);
	assert_string_equal(map->dso->name, "[vdso]");
	assert_string_equal(map->dso->short_name, "[vdso]");
	assert_int_equal(map->dso->kind, PCL_DSO_VDSO);
	assert_int_equal(pcl_map__map_ip(map, 0x7fff00000ab0ULL), 0xab0);

	/* MMAP (not MMAP2): executable unless MMAP_DATA */
	r.mmap.pid = r.mmap.tid = 100;
	r.mmap.addr = 0x500000;
	r.mmap.len = 0x1000;
	r.mmap.pgoff = 0x3000;
	r.mmap.filename = "/usr/lib/x86_64-linux-gnu/libm.so.6";
	assert_int_equal(pcl_machine__process(m, &r), 0);
	map = umap(m, t, 0x500010);
	assert_non_null(map);
	assert_int_equal(map->prot, RX);
	assert_string_equal(map->dso->short_name, "libm.so.6");
	assert_int_equal(pcl_map__map_ip(map, 0x500010), 0x3010);
	r.misc |= PERF_RECORD_MISC_MMAP_DATA;
	r.mmap.addr = 0x600000;
	r.mmap.filename = "/data/file";
	assert_int_equal(pcl_machine__process(m, &r), 0);
	assert_int_equal(umap(m, t, 0x600000)->prot, PROT_READ);
	r.misc = PERF_RECORD_MISC_USER;
	r.mmap.addr = 0x700000;
	r.mmap.filename = "//anon";
	assert_int_equal(pcl_machine__process(m, &r), 0);
	assert_int_equal(umap(m, t, 0x700000)->dso->kind, PCL_DSO_JIT);
}

/* One DSO per file, shared by every map of it, in order of creation. */
static void test_dsos(void **state)
{
	struct pcl_machine *m = new_machine();
	struct pcl_dso *libc;

	(void)state;
	mmap2(m, 100, 0x400000, 0x1000, 0, RX, "/usr/bin/hot");
	mmap2(m, 100, 0x7f0000000000ULL, 0x1000, 0, RX, "/usr/lib/libc.so.6");
	mmap2(m, 200, 0x7f1000000000ULL, 0x1000, 0x1000, RX, "/usr/lib/libc.so.6");
	assert_int_equal(pcl_machine__nr_dsos(m), 2);
	assert_string_equal(pcl_machine__dso(m, 0)->name, "/usr/bin/hot");
	assert_string_equal(pcl_machine__dso(m, 0)->short_name, "hot");
	libc = pcl_machine__dso(m, 1);
	assert_string_equal(libc->name, "/usr/lib/libc.so.6");
	assert_int_equal(libc->kind, PCL_DSO_USER);
	assert_int_equal(libc->build_id_size, 0);
	assert_false(libc->hit);
	assert_int_equal(libc->sym_status, PCL_DSO_SYMS_UNTRIED);
	assert_null(pcl_machine__dso(m, 2));
	assert_null(pcl_machine__dso(m, -1));
	assert_ptr_equal(pcl_machine__find_dso(m, "/usr/lib/libc.so.6"), libc);
	assert_null(pcl_machine__find_dso(m, "/usr/lib/libm.so.6"));
	assert_ptr_equal(umap(m, thread(m, 200, 200), 0x7f1000000000ULL)->dso, libc);
	assert_ptr_equal(umap(m, thread(m, 100, 100), 0x7f0000000000ULL)->dso, libc);
	/* short names are interned */
	assert_ptr_equal(libc->short_name, pcl_machine__intern(m, "libc.so.6"));
}

/* ---- build ids ---- */

/* One BUILD_ID feature entry: perf's { header, pid, build_id[24], filename } padded to 8. */
static size_t bid_entry(uint8_t *out, int32_t pid, bool kernel, const uint8_t *id, int size,
			const char *name)
{
	size_t len = (36 + strlen(name) + 1 + 7) & ~(size_t)7;
	struct perf_event_header h = { .type = 0,
				       .misc = (uint16_t)(kernel ? PERF_RECORD_MISC_KERNEL
								 : PERF_RECORD_MISC_USER),
				       .size = (uint16_t)len };

	if (size >= 0)
		h.misc |= 1 << 15; /* PERF_RECORD_MISC_BUILD_ID_SIZE */
	memset(out, 0, len);
	memcpy(out, &h, 8);
	memcpy(out + 8, &pid, 4);
	memcpy(out + 12, id, 20);
	if (size >= 0)
		out[12 + 20] = (uint8_t)size;
	strcpy((char *)out + 36, name);
	return len;
}

static void test_build_ids(void **state)
{
	struct pcl_machine *m = new_machine();
	uint8_t sec[1024], id1[20], id2[20], id3[20];
	size_t len = 0;
	struct pcl_dso *d;
	struct pcl_record r = { .type = PERF_RECORD_MMAP2,
				.misc = PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID };

	(void)state;
	for (int i = 0; i < 20; i++) {
		id1[i] = (uint8_t)(0x10 + i);
		id2[i] = (uint8_t)(0x80 + i);
		id3[i] = (uint8_t)(0xc0 + i);
	}
	mmap2(m, 100, 0x400000, 0x1000, 0, RX, "/usr/bin/hot");
	len += bid_entry(sec + len, 100, false, id1, 10, "/usr/bin/hot");
	len += bid_entry(sec + len, 100, false, id2, -1, "/usr/lib/later.so");
	len += bid_entry(sec + len, -1, true, id3, 20, "[kernel.kallsyms]");
	assert_int_equal(pcl_machine__set_build_ids(m, sec, len), 0);

	/* present: set now, with the size the entry gives */
	d = pcl_machine__find_dso(m, "/usr/bin/hot");
	assert_int_equal(d->build_id_size, 10);
	assert_memory_equal(d->build_id, id1, 10);
	/* later: set when the DSO appears; no size in the entry means 20 */
	mmap2(m, 100, 0x7f0000000000ULL, 0x1000, 0, RX, "/usr/lib/later.so");
	d = pcl_machine__find_dso(m, "/usr/lib/later.so");
	assert_int_equal(d->build_id_size, 20);
	assert_memory_equal(d->build_id, id2, 20);
	kmmap(m, 0xffffffff81000000ULL, 0x1000000, 0, "[kernel.kallsyms]_text");
	d = pcl_machine__find_dso(m, "[kernel.kallsyms]");
	assert_int_equal(d->build_id_size, 20);
	assert_memory_equal(d->build_id, id3, 20);
	/* a DSO the section does not name has none */
	mmap2(m, 100, 0x500000, 0x1000, 0, RX, "/usr/lib/other.so");
	assert_int_equal(pcl_machine__find_dso(m, "/usr/lib/other.so")->build_id_size, 0);

	/* an MMAP2 that carries a build id gives it to a DSO that has none */
	r.mmap.pid = r.mmap.tid = 100;
	r.mmap.addr = 0x800000;
	r.mmap.len = 0x1000;
	r.mmap.prot = RX;
	r.mmap.build_id_size = 8;
	memcpy(r.mmap.build_id, id3, 8);
	r.mmap.filename = "/usr/lib/mmap2-bid.so";
	assert_int_equal(pcl_machine__process(m, &r), 0);
	d = pcl_machine__find_dso(m, "/usr/lib/mmap2-bid.so");
	assert_int_equal(d->build_id_size, 8);
	assert_memory_equal(d->build_id, id3, 8);

	/* an empty section and a tail shorter than a header are fine */
	assert_int_equal(pcl_machine__set_build_ids(m, NULL, 0), 0);
	assert_int_equal(pcl_machine__set_build_ids(m, sec, 7), 0);
}

static void test_build_ids_malformed(void **state)
{
	struct pcl_machine *m = new_machine();
	uint8_t sec[256], id[20] = { 1, 2, 3 };
	struct perf_event_header h;
	size_t len;

	(void)state;
	len = bid_entry(sec, 1, false, id, 20, "/bin/x");
	/* size past the section */
	assert_int_equal(pcl_machine__set_build_ids(m, sec, len - 8), -EBADMSG);
	/* size below the fixed part: also no endless loop on size 0 */
	memcpy(&h, sec, 8);
	h.size = 0;
	memcpy(sec, &h, 8);
	assert_int_equal(pcl_machine__set_build_ids(m, sec, len), -EBADMSG);
	h.size = 36;
	memcpy(sec, &h, 8);
	assert_int_equal(pcl_machine__set_build_ids(m, sec, len), -EBADMSG);
	/* a name with no NUL in the record */
	len = bid_entry(sec, 1, false, id, 20, "/bin/abcdefghijk");
	assert_int_equal(len, 56);
	memset(sec + 36, 'a', 20);
	assert_int_equal(pcl_machine__set_build_ids(m, sec, len), -EBADMSG);
	assert_int_equal(pcl_machine__set_build_ids(NULL, sec, len), -EINVAL);
	assert_int_equal(pcl_machine__nr_dsos(m), 0);
}

/* ---- interning ---- */

static void test_intern(void **state)
{
	struct pcl_machine *m = new_machine();
	char a[16] = "worker", b[16] = "worker";
	const char *p[3000];
	char buf[32];
	int bad = 0;

	(void)state;
	p[0] = pcl_machine__intern(m, a);
	assert_non_null(p[0]);
	assert_ptr_not_equal(p[0], a);
	assert_ptr_equal(pcl_machine__intern(m, b), p[0]);
	assert_ptr_not_equal(pcl_machine__intern(m, "worker2"), p[0]);
	assert_string_equal(pcl_machine__intern(m, ""), "");
	/* enough strings to grow the table several times */
	for (int i = 0; i < 3000; i++) {
		snprintf(buf, sizeof(buf), "s%d", i);
		p[i] = pcl_machine__intern(m, buf);
	}
	for (int i = 0; i < 3000; i++) {
		snprintf(buf, sizeof(buf), "s%d", i);
		bad += pcl_machine__intern(m, buf) != p[i];
		bad += differ_str(buf, "interned", p[i], buf);
	}
	assert_int_equal(bad, 0);
	assert_ptr_equal(pcl_machine__intern(m, "worker"), pcl_machine__intern(m, b));
}

static void test_other_records(void **state)
{
	struct pcl_machine *m = new_machine();
	struct pcl_record r = { .type = PERF_RECORD_SAMPLE };

	(void)state;
	assert_int_equal(pcl_machine__process(m, &r), 0);
	r.type = PERF_RECORD_LOST;
	assert_int_equal(pcl_machine__process(m, &r), 0);
	assert_int_equal(pcl_machine__nr_dsos(m), 0);
	assert_int_equal(pcl_machine__process(NULL, &r), -EINVAL);
	assert_int_equal(pcl_machine__process(m, NULL), -EINVAL);
	pcl_machine__free(NULL);
}

/*
 * The caches of what code addresses resolve to (the resolver's, the
 * unwinder's) key on the code generations: a data map ([heap] as it grows,
 * thousands of times in a --call-graph dwarf recording) moves neither; an
 * executable map moves the machine's and its own process's; a data map
 * over code moves both.
 */
static void test_code_generation(void **state)
{
	struct pcl_machine *m = pcl_machine__new();
	struct pcl_thread *t;
	uint64_t g, pg, all;

	(void)state;
	assert_non_null(m);
	mmap2(m, 10, 0x400000, 0x1000, 0, PROT_READ | PROT_EXEC, "/bin/true");
	t = pcl_machine__thread(m, 10, 10);
	assert_non_null(t);
	assert_non_null(pcl_machine__thread(m, 11, 11)); /* a new map set moves it too */
	g = machine_code_generation(m);
	pg = maps_generation(t->maps);
	all = pcl_machine__generation(m);
	mmap2(m, 10, 0x600000, 0x21000, 0, PROT_READ | PROT_WRITE, "[heap]");
	mmap2(m, 10, 0x600000, 0x42000, 0, PROT_READ | PROT_WRITE, "[heap]");
	assert_true(pcl_machine__generation(m) != all);
	assert_int_equal(machine_code_generation(m), g);
	assert_int_equal(maps_generation(t->maps), pg);
	mmap2(m, 11, 0x400000, 0x1000, 0, PROT_READ | PROT_EXEC, "/bin/false");
	assert_true(machine_code_generation(m) != g);
	assert_int_equal(maps_generation(t->maps), pg);
	g = machine_code_generation(m);
	mmap2(m, 10, 0x400000, 0x1000, 0, PROT_READ | PROT_WRITE, "//anon");
	assert_true(machine_code_generation(m) != g);
	assert_true(maps_generation(t->maps) != pg);
	pcl_machine__free(m);
}

/* ---- pruning (pcl top) ---- */

static void test_prune(void **state)
{
	struct pcl_machine *m = new_machine();
	struct pcl_thread *keep_t, *t;
	const struct pcl_map *keep_map;
	const void *keep[2];
	uint64_t gen;

	(void)state;
	comm(m, 100, 100, "shell", true);
	mmap2(m, 100, 0x400000, 0x1000, 0, RX, "/bin/sh");
	/* 1000 short-lived children, each exec'ing and mapping its program */
	for (uint32_t pid = 1000; pid < 2000; pid++) {
		fork_(m, pid, 100, pid, 100);
		comm(m, pid, pid, "true", true);
		mmap2(m, pid, 0x500000, 0x1000, 0, RX, "/bin/true");
		task(m, PERF_RECORD_EXIT, pid, 100, pid, 100);
	}
	assert_int_equal(pcl_machine__nr_threads(m), 1001);
	keep_t = thread(m, 1500, 1500);
	keep_map = umap(m, keep_t, 0x500000);
	assert_non_null(keep_map);
	keep[0] = (uintptr_t)keep_t < (uintptr_t)keep_map ? (const void *)keep_t : keep_map;
	keep[1] = keep[0] == keep_t ? (const void *)keep_map : keep_t;
	/* the first prune that sees them exited keeps them: their samples may follow */
	assert_int_equal(pcl_machine__prune(m, keep, 2), 0);
	assert_int_equal(pcl_machine__nr_threads(m), 1001);
	gen = pcl_machine__generation(m);
	assert_int_equal(pcl_machine__prune(m, keep, 2), 999);
	assert_true(pcl_machine__generation(m) != gen);
	assert_int_equal(pcl_machine__nr_threads(m), 2);
	/* what was kept is intact and found by its tid, without its address space */
	assert_ptr_equal(thread(m, 1500, 1500), keep_t);
	assert_string_equal(keep_t->comm, "true");
	assert_int_equal(pcl_thread__nr_maps(keep_t), 0);
	assert_null(umap(m, keep_t, 0x500000));
	assert_string_equal(keep_map->dso->name, "/bin/true");
	assert_int_equal(keep_map->start, 0x500000);
	/* the live process is untouched */
	t = thread(m, 100, 100);
	assert_false(t->exited);
	assert_non_null(umap(m, t, 0x400000));
	/* the DSOs stay: one per file, not per process */
	assert_int_equal(pcl_machine__nr_dsos(m), 2);
	/* unpinned, the last exited one goes too */
	assert_int_equal(pcl_machine__prune(m, NULL, 0), 1);
	assert_int_equal(pcl_machine__nr_threads(m), 1);
	assert_int_equal(pcl_machine__prune(m, NULL, 0), 0);
	/* a tid reused after the prune is a new thread */
	fork_(m, 1500, 100, 1500, 100);
	t = thread(m, 1500, 1500);
	assert_false(t->exited);
	assert_string_equal(t->comm, "shell");
	assert_int_equal(pcl_machine__prune(NULL, NULL, 0), -EINVAL);
	assert_int_equal(pcl_machine__prune(m, NULL, 3), -EINVAL);
	pcl_machine__free(m);
	mach = NULL;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		UNIT_TEST(test_comm),
		UNIT_TEST(test_default_comm),
		UNIT_TEST(test_sample_thread_shares_maps),
		UNIT_TEST(test_fork),
		UNIT_TEST(test_fork_unknown_parent),
		UNIT_TEST(test_exit),
		UNIT_TEST(test_many_threads),
		UNIT_TEST(test_overlap),
		UNIT_TEST(test_many_maps),
		UNIT_TEST(test_kernel_maps),
		UNIT_TEST(test_kernel_after_modules),
		UNIT_TEST(test_kernel_without_mmap),
		UNIT_TEST(test_special_maps),
		UNIT_TEST(test_dsos),
		UNIT_TEST(test_build_ids),
		UNIT_TEST(test_build_ids_malformed),
		UNIT_TEST(test_intern),
		UNIT_TEST(test_other_records),
		UNIT_TEST(test_code_generation),
		UNIT_TEST(test_prune),
	};

	unit_cleanup = cleanup;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
