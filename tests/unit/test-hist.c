/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the analysis layer (lib/analysis/resolve.c, hist.c) and of
 * the report printer (lib/output/report.c), against include/pcl/analysis.h
 * and include/pcl/report.h.
 *
 * The fixture is a machine built from hand-made records: process 100
 * "hot" with /usr/bin/hot at 0x400000 and libc at 0x7f0000000000, the
 * kernel at 0xffffffff81000000. Symbols come from perf-map files written to
 * a temporary directory, loaded with pcl_symtab__load_perf_map and attached
 * to the DSOs (file offsets for hot and libc, absolute for the kernel):
 *
 *   hot   main 0x1000  foo 0x1100  bar 0x1200  (0x100 each)
 *   libc  __libc_start_call_main 0x2000
 *   kernel do_syscall_64 0xffffffff81001000  asm_exc_page_fault ...2000
 *
 * Samples are decoded records resolved by the resolver and added to
 * histograms; reports are printed into a memstream and compared whole
 * with what perf report --stdio prints for the same histogram.
 */
#include "unit.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <pcl/analysis.h>
#include <pcl/common.h>
#include <pcl/machine.h>
#include <pcl/report.h>
#include <pcl/symbol.h>

#define HOT  0x400000ULL
#define LIBC 0x7f0000000000ULL
#define KTXT 0xffffffff81000000ULL

#define MAIN	 (HOT + 0x1000)
#define FOO	 (HOT + 0x1100)
#define BAR	 (HOT + 0x1200)
#define LSTART	 (LIBC + 0x2000)
#define KSYSCALL 0xffffffff81001000ULL
#define KFAULT	 0xffffffff81002000ULL

static char tmpdir[64];

/* ---- the fixture ---- */

static struct fx {
	struct pcl_machine *m;
	struct pcl_symbols *syms;
	struct pcl_resolver *r;
	struct pcl_hists *h;
	char *out; /* memstream buffer */
	size_t outlen;
} fx;

static void cleanup(void)
{
	pcl_hists__free(fx.h);
	pcl_resolver__free(fx.r);
	pcl_symbols__free(fx.syms);
	pcl_machine__free(fx.m);
	free(fx.out);
	memset(&fx, 0, sizeof(fx));
}

static void symtab_free(void *p)
{
	pcl_symtab__free(p);
}

/* Attach the perf-map lines @text to @dso as its symbol table. */
static void attach_syms(struct pcl_dso *dso, const char *file, const char *text)
{
	char path[256];
	struct pcl_symtab *t;
	FILE *f;

	assert_non_null(dso);
	snprintf(path, sizeof(path), "%s/%s", tmpdir, file);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	t = pcl_symtab__load_perf_map(path, 0);
	assert_non_null(t);
	dso->sym_status = PCL_DSO_SYMS_OK;
	dso->sym_priv = t;
	dso->sym_free = symtab_free;
}

static void process(const struct pcl_record *r)
{
	assert_int_equal(pcl_machine__process(fx.m, r), 0);
}

static void rec_comm(uint32_t pid, uint32_t tid, const char *name)
{
	struct pcl_record r = { .type = PERF_RECORD_COMM, .misc = PERF_RECORD_MISC_COMM_EXEC };

	r.comm.pid = pid;
	r.comm.tid = tid;
	r.comm.comm = name;
	process(&r);
}

static void rec_fork(uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid)
{
	struct pcl_record r = { .type = PERF_RECORD_FORK };

	r.task.pid = pid;
	r.task.ppid = ppid;
	r.task.tid = tid;
	r.task.ptid = ptid;
	process(&r);
}

static void rec_mmap(uint16_t misc, int32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		     const char *file)
{
	struct pcl_record r = { .type = PERF_RECORD_MMAP2, .misc = misc };

	r.mmap.pid = r.mmap.tid = (uint32_t)pid;
	r.mmap.addr = start;
	r.mmap.len = len;
	r.mmap.pgoff = pgoff;
	r.mmap.prot = PROT_READ | PROT_EXEC;
	r.mmap.filename = file;
	process(&r);
}

/* The machine, symbols and a resolver (over @with_syms symbols or none). */
static void setup_machine(bool with_syms)
{
	fx.m = pcl_machine__new();
	assert_non_null(fx.m);
	rec_comm(100, 100, "hot");
	rec_mmap(PERF_RECORD_MISC_USER, 100, HOT, 0x10000, 0, "/usr/bin/hot");
	rec_mmap(PERF_RECORD_MISC_USER, 100, LIBC, 0x100000, 0,
		 "/usr/lib/x86_64-linux-gnu/libc.so.6");
	rec_mmap(PERF_RECORD_MISC_KERNEL, -1, KTXT, ~0ULL - KTXT, KTXT, "[kernel.kallsyms]_text");
	attach_syms(pcl_machine__find_dso(fx.m, "/usr/bin/hot"), "hot.map",
		    "1000 100 main\n1100 100 foo\n1200 100 bar\n");
	attach_syms(pcl_machine__find_dso(fx.m, "/usr/lib/x86_64-linux-gnu/libc.so.6"), "libc.map",
		    "2000 100 __libc_start_call_main\n");
	attach_syms(
		pcl_machine__find_dso(fx.m, "[kernel.kallsyms]"), "kernel.map",
		"ffffffff81001000 100 do_syscall_64\nffffffff81002000 100 asm_exc_page_fault\n");
	if (with_syms) {
		fx.syms = pcl_symbols__new(NULL);
		assert_non_null(fx.syms);
	}
	fx.r = pcl_resolver__new(fx.m, fx.syms);
	assert_non_null(fx.r);
}

static void new_hists(const struct pcl_hist_opts *o)
{
	pcl_hists__free(fx.h);
	fx.h = pcl_hists__new(o);
	assert_non_null(fx.h);
}

/* A decoded sample of @tid (of @pid) on @cpu. */
static void make_sample(struct pcl_record *rec, uint16_t misc, uint32_t pid, uint32_t tid,
			uint32_t cpu, uint64_t ip, const uint64_t *chain, size_t n, uint64_t period)
{
	memset(rec, 0, sizeof(*rec));
	rec->type = PERF_RECORD_SAMPLE;
	rec->misc = misc;
	rec->sample.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CPU |
				  PERF_SAMPLE_PERIOD | (chain ? PERF_SAMPLE_CALLCHAIN : 0);
	rec->sample.ip = ip;
	rec->sample.pid = pid;
	rec->sample.tid = tid;
	rec->sample.cpu = cpu;
	rec->sample.period = period;
	rec->sample.nr_callchain = n;
	rec->sample.callchain = chain;
}

static void add(uint16_t misc, uint32_t pid, uint32_t tid, uint32_t cpu, uint64_t ip,
		const uint64_t *chain, size_t n, uint64_t period)
{
	struct pcl_record rec;
	struct pcl_resolved rs;

	make_sample(&rec, misc, pid, tid, cpu, ip, chain, n, period);
	assert_int_equal(pcl_resolver__sample(fx.r, &rec, &rs), 0);
	assert_int_equal(pcl_hists__add(fx.h, &rs, cpu, period), 0);
}

static void add_user(uint64_t ip, uint64_t period)
{
	add(PERF_RECORD_MISC_USER, 100, 100, 0, ip, NULL, 0, period);
}

/* Print the histogram with @o into fx.out. */
static void print_report(const struct pcl_report_opts *o)
{
	FILE *f;

	free(fx.out);
	fx.out = NULL;
	f = open_memstream(&fx.out, &fx.outlen);
	assert_non_null(f);
	assert_int_equal(pcl_report__print(f, fx.h, o), 0);
	fclose(f);
}

static void expect_report(const char *want)
{
	if (strcmp(fx.out, want))
		print_message("got:\n%s\nexpected:\n%s\n", fx.out, want);
	assert_string_equal(fx.out, want);
}

static const char *sym_name(const struct pcl_frame *f)
{
	return f->sym ? f->sym->name : NULL;
}

static const char *dso_name(const struct pcl_frame *f)
{
	return f->map ? f->map->dso->short_name : "[unknown]";
}

/* ---- the resolver ---- */

static void test_resolve_user(void **state)
{
	struct pcl_record rec;
	struct pcl_resolved rs;

	(void)state;
	setup_machine(true);
	make_sample(&rec, PERF_RECORD_MISC_USER, 100, 100, 0, MAIN + 0x10, NULL, 0, 1);
	assert_int_equal(pcl_resolver__sample(fx.r, &rec, &rs), 0);
	assert_int_equal(rs.thread->pid, 100);
	assert_string_equal(rs.thread->comm, "hot");
	assert_int_equal(rs.ip.ip, MAIN + 0x10);
	assert_int_equal(rs.ip.addr, 0x1010);
	assert_string_equal(dso_name(&rs.ip), "hot");
	assert_string_equal(sym_name(&rs.ip), "main");
	assert_int_equal(rs.ip.sym->start, 0x1000);
	assert_int_equal(rs.ip.sym->end, 0x1100);
	assert_int_equal(rs.ip.level, '.');
	assert_int_equal(rs.nr_chain, 0);

	/* in hot but in no symbol */
	make_sample(&rec, PERF_RECORD_MISC_USER, 100, 100, 0, HOT + 0x1800, NULL, 0, 1);
	assert_int_equal(pcl_resolver__sample(fx.r, &rec, &rs), 0);
	assert_string_equal(dso_name(&rs.ip), "hot");
	assert_null(rs.ip.sym);
	assert_int_equal(rs.ip.addr, 0x1800);

	/* in no map */
	make_sample(&rec, PERF_RECORD_MISC_USER, 100, 100, 0, 0xdead, NULL, 0, 1);
	assert_int_equal(pcl_resolver__sample(fx.r, &rec, &rs), 0);
	assert_null(rs.ip.map);
	assert_null(rs.ip.sym);
	assert_int_equal(rs.ip.addr, 0xdead);
	assert_int_equal(rs.ip.level, '.');

	/* a thread never seen: its default name */
	make_sample(&rec, PERF_RECORD_MISC_USER, 555, 556, 0, MAIN, NULL, 0, 1);
	assert_int_equal(pcl_resolver__sample(fx.r, &rec, &rs), 0);
	assert_string_equal(rs.thread->comm, ":556");
	assert_int_equal(rs.thread->pid, 555);
	assert_null(rs.ip.map);
}

static void test_resolve_kernel(void **state)
{
	struct pcl_record rec;
	struct pcl_resolved rs;
	struct pcl_frame f;

	(void)state;
	setup_machine(true);
	make_sample(&rec, PERF_RECORD_MISC_KERNEL, 100, 100, 0, KSYSCALL + 0x20, NULL, 0, 1);
	assert_int_equal(pcl_resolver__sample(fx.r, &rec, &rs), 0);
	assert_string_equal(dso_name(&rs.ip), "[kernel.kallsyms]");
	assert_string_equal(sym_name(&rs.ip), "do_syscall_64");
	assert_int_equal(rs.ip.addr, KSYSCALL + 0x20);
	assert_int_equal(rs.ip.level, 'k');

	/* hypervisor and guest samples: no map here, level H */
	make_sample(&rec, PERF_RECORD_MISC_HYPERVISOR, 100, 100, 0, KSYSCALL, NULL, 0, 1);
	assert_int_equal(pcl_resolver__sample(fx.r, &rec, &rs), 0);
	assert_null(rs.ip.map);
	assert_int_equal(rs.ip.level, 'H');
	make_sample(&rec, PERF_RECORD_MISC_GUEST_KERNEL, 100, 100, 0, KSYSCALL, NULL, 0, 1);
	assert_int_equal(pcl_resolver__sample(fx.r, &rec, &rs), 0);
	assert_null(rs.ip.map);
	assert_int_equal(rs.ip.level, 'H');

	/* one address on demand */
	pcl_resolver__frame(fx.r, rs.thread, true, KFAULT + 4, &f);
	assert_string_equal(sym_name(&f), "asm_exc_page_fault");
	assert_int_equal(f.level, 'k');
	pcl_resolver__frame(fx.r, rs.thread, false, FOO + 4, &f);
	assert_string_equal(sym_name(&f), "foo");
	assert_int_equal(f.addr, 0x1104);
	assert_int_equal(f.level, '.');
}

/*
 * A kernel sample's chain: the markers switch the space of what follows
 * and are dropped; an entry in no map takes the sample's level.
 */
static void test_resolve_chain(void **state)
{
	const uint64_t chain[] = { PERF_CONTEXT_KERNEL, KSYSCALL + 0x10, KFAULT + 0x10,
				   PERF_CONTEXT_USER,	BAR + 0x10,	 FOO + 0x10,
				   MAIN + 0x10,		LSTART + 0x10,	 0x1234 };
	static const struct {
		const char *sym, *dso;
		char level;
		uint64_t addr;
	} want[] = {
		{ "do_syscall_64", "[kernel.kallsyms]", 'k', KSYSCALL + 0x10 },
		{ "asm_exc_page_fault", "[kernel.kallsyms]", 'k', KFAULT + 0x10 },
		{ "bar", "hot", '.', 0x1210 },
		{ "foo", "hot", '.', 0x1110 },
		{ "main", "hot", '.', 0x1010 },
		{ "__libc_start_call_main", "libc.so.6", '.', 0x2010 },
		{ NULL, "[unknown]", 'k', 0x1234 },
	};
	struct pcl_record rec;
	struct pcl_resolved rs;
	int bad = 0;

	(void)state;
	setup_machine(true);
	make_sample(&rec, PERF_RECORD_MISC_KERNEL, 100, 100, 0, KSYSCALL + 0x10, chain,
		    sizeof(chain) / 8, 1);
	assert_int_equal(pcl_resolver__sample(fx.r, &rec, &rs), 0);
	assert_int_equal(rs.nr_chain, 7);
	for (size_t i = 0; i < rs.nr_chain; i++) {
		char row[16];

		snprintf(row, sizeof(row), "chain[%zu]", i);
		bad += differ_str(row, "sym", sym_name(&rs.chain[i]), want[i].sym);
		bad += differ_str(row, "dso", dso_name(&rs.chain[i]), want[i].dso);
		bad += differ(row, "level", (uint64_t)rs.chain[i].level, (uint64_t)want[i].level);
		bad += differ(row, "addr", rs.chain[i].addr, want[i].addr);
	}
	assert_int_equal(bad, 0);
	assert_int_equal(rs.chain[6].ip, 0x1234);

	/* a user sample's chain without markers is in user space */
	make_sample(&rec, PERF_RECORD_MISC_USER, 100, 100, 0, BAR, chain + 4, 2, 1);
	assert_int_equal(pcl_resolver__sample(fx.r, &rec, &rs), 0);
	assert_int_equal(rs.nr_chain, 2);
	assert_string_equal(sym_name(&rs.chain[0]), "bar");
	assert_string_equal(sym_name(&rs.chain[1]), "foo");
	/* an unmapped entry of a user sample is user level */
	make_sample(&rec, PERF_RECORD_MISC_USER, 100, 100, 0, BAR, chain + 7, 2, 1);
	assert_int_equal(pcl_resolver__sample(fx.r, &rec, &rs), 0);
	assert_int_equal(rs.chain[1].level, '.');
	assert_null(rs.chain[1].map);

	/* nr_callchain without PERF_SAMPLE_CALLCHAIN: no chain */
	make_sample(&rec, PERF_RECORD_MISC_USER, 100, 100, 0, BAR, chain, sizeof(chain) / 8, 1);
	rec.sample.sample_type &= ~(uint64_t)PERF_SAMPLE_CALLCHAIN;
	assert_int_equal(pcl_resolver__sample(fx.r, &rec, &rs), 0);
	assert_int_equal(rs.nr_chain, 0);
	/* only markers: an empty chain */
	make_sample(&rec, PERF_RECORD_MISC_USER, 100, 100, 0, BAR, chain, 1, 1);
	assert_int_equal(pcl_resolver__sample(fx.r, &rec, &rs), 0);
	assert_int_equal(rs.nr_chain, 0);
}

static void test_resolve_no_symbols(void **state)
{
	struct pcl_record rec;
	struct pcl_resolved rs;

	(void)state;
	setup_machine(false);
	make_sample(&rec, PERF_RECORD_MISC_USER, 100, 100, 0, FOO + 8, NULL, 0, 1);
	assert_int_equal(pcl_resolver__sample(fx.r, &rec, &rs), 0);
	assert_non_null(rs.ip.map);
	assert_string_equal(dso_name(&rs.ip), "hot");
	assert_null(rs.ip.sym);
	assert_int_equal(rs.ip.addr, 0x1108);
	assert_null(pcl_resolver__new(NULL, NULL));
	assert_int_equal(errno, EINVAL);
	pcl_resolver__free(NULL);
}

/*
 * Whole samples are remembered: the same raw sample resolves to the same
 * frames with the same nonzero chain id; another chain, another process's
 * maps or a map change since give another id and their own resolution.
 */
static void test_resolve_memo(void **state)
{
	const uint64_t chain[] = { BAR + 0x10, FOO + 0x10, MAIN + 0x10 };
	const uint64_t other[] = { BAR + 0x10, FOO + 0x10, LSTART + 0x10 };
	struct pcl_resolver *fresh;
	struct pcl_record rec;
	struct pcl_resolved rs, rs2;
	uint64_t id, id2;

	(void)state;
	setup_machine(true);
	make_sample(&rec, PERF_RECORD_MISC_USER, 100, 100, 0, BAR + 0x10, chain, 3, 1);
	assert_int_equal(pcl_resolver__sample(fx.r, &rec, &rs), 0);
	id = rs.chain_id;
	assert_true(id != 0);
	assert_int_equal(rs.nr_chain, 3);
	assert_string_equal(sym_name(&rs.ip), "bar");
	assert_string_equal(sym_name(&rs.chain[2]), "main");
	/* again: the same id and frames */
	memset(&rs, 0xa5, sizeof(rs));
	assert_int_equal(pcl_resolver__sample(fx.r, &rec, &rs), 0);
	assert_int_equal(rs.chain_id, id);
	assert_int_equal(rs.nr_chain, 3);
	assert_int_equal(rs.thread->tid, 100);
	assert_string_equal(sym_name(&rs.ip), "bar");
	assert_string_equal(sym_name(&rs.chain[0]), "bar");
	assert_string_equal(sym_name(&rs.chain[1]), "foo");
	assert_string_equal(sym_name(&rs.chain[2]), "main");
	assert_int_equal(rs.chain[2].addr, 0x1010);
	/* another chain, another ip: other ids */
	make_sample(&rec, PERF_RECORD_MISC_USER, 100, 100, 0, BAR + 0x10, other, 3, 1);
	assert_int_equal(pcl_resolver__sample(fx.r, &rec, &rs), 0);
	assert_true(rs.chain_id != 0 && rs.chain_id != id);
	assert_string_equal(sym_name(&rs.chain[2]), "__libc_start_call_main");
	make_sample(&rec, PERF_RECORD_MISC_USER, 100, 100, 0, BAR + 0x14, chain, 3, 1);
	assert_int_equal(pcl_resolver__sample(fx.r, &rec, &rs), 0);
	assert_true(rs.chain_id != id);
	/* the same raw sample in another process, which has no maps */
	make_sample(&rec, PERF_RECORD_MISC_USER, 200, 200, 0, BAR + 0x10, chain, 3, 1);
	assert_int_equal(pcl_resolver__sample(fx.r, &rec, &rs), 0);
	assert_true(rs.chain_id != id);
	assert_null(rs.ip.map);
	assert_null(rs.chain[2].map);
	/* a thread of process 100 shares its maps, and its resolution */
	rec_fork(100, 100, 101, 100);
	make_sample(&rec, PERF_RECORD_MISC_USER, 100, 101, 0, BAR + 0x10, chain, 3, 1);
	assert_int_equal(pcl_resolver__sample(fx.r, &rec, &rs), 0);
	assert_string_equal(sym_name(&rs.chain[2]), "main");
	id2 = rs.chain_id;
	/* a new map over main's address: resolved anew, with a new id */
	rec_mmap(PERF_RECORD_MISC_USER, 100, HOT + 0x1000, 0x100, 0x2000,
		 "/usr/lib/x86_64-linux-gnu/libc.so.6");
	assert_int_equal(pcl_resolver__sample(fx.r, &rec, &rs), 0);
	assert_true(rs.chain_id != id && rs.chain_id != id2);
	assert_string_equal(dso_name(&rs.chain[2]), "libc.so.6");
	assert_string_equal(sym_name(&rs.chain[1]), "foo");
	/* as a resolver that never saw the old maps has it */
	fresh = pcl_resolver__new(fx.m, fx.syms);
	assert_non_null(fresh);
	assert_int_equal(pcl_resolver__sample(fresh, &rec, &rs2), 0);
	assert_int_equal(rs2.nr_chain, rs.nr_chain);
	for (size_t i = 0; i < rs.nr_chain; i++) {
		assert_ptr_equal(rs.chain[i].map, rs2.chain[i].map);
		assert_ptr_equal(rs.chain[i].sym, rs2.chain[i].sym);
		assert_int_equal(rs.chain[i].addr, rs2.chain[i].addr);
	}
	pcl_resolver__free(fresh);
}

/* Past the memo's limits (many chains, long chains) samples still resolve right. */
static void test_resolve_memo_limits(void **state)
{
	enum { LONG = 600, MANY = 3000, DEPTH = 500 };
	uint64_t *chain = calloc(LONG, sizeof(*chain));
	uint64_t *ids = calloc(MANY, sizeof(*ids));
	struct pcl_record rec;
	struct pcl_resolved rs;
	int bad = 0;

	(void)state;
	assert_non_null(chain);
	assert_non_null(ids);
	setup_machine(true);
	/* too long to keep: no id, resolved all the same */
	for (int i = 0; i < LONG; i++)
		chain[i] = i % 2 ? FOO + 4 : BAR + 4;
	make_sample(&rec, PERF_RECORD_MISC_USER, 100, 100, 0, BAR, chain, LONG, 1);
	assert_int_equal(pcl_resolver__sample(fx.r, &rec, &rs), 0);
	assert_int_equal(rs.chain_id, 0);
	assert_int_equal(rs.nr_chain, LONG);
	assert_string_equal(sym_name(&rs.chain[LONG - 1]), "foo");
	/*
	 * MANY chains of DEPTH frames, each told apart by its last frame: more
	 * than the memo holds (it starts again), with its table grown on the way
	 */
	for (int i = 0; i < DEPTH; i++)
		chain[i] = MAIN + (uint64_t)(i % 0x100);
	for (int k = 0; k < 2; k++) {
		for (int i = 0; i < MANY; i++) {
			chain[DEPTH - 2] = 0x20000 + (uint64_t)i; /* unmapped, makes it unique */
			chain[DEPTH - 1] = i % 2 ? FOO + (uint64_t)(i % 0x100) : 0x10000 + (uint64_t)i;
			make_sample(&rec, PERF_RECORD_MISC_USER, 100, 100, 0, BAR, chain, DEPTH, 1);
			assert_int_equal(pcl_resolver__sample(fx.r, &rec, &rs), 0);
			bad += differ("chain", "nr", rs.nr_chain, DEPTH);
			bad += differ("chain", "has id", rs.chain_id != 0, 1);
			bad += differ_str("chain", "first", sym_name(&rs.chain[0]), "main");
			if (i % 2)
				bad += differ_str("chain", "last", sym_name(&rs.chain[DEPTH - 1]),
						  "foo");
			else
				bad += differ("chain", "last ip", rs.chain[DEPTH - 1].ip,
					      0x10000 + (uint64_t)i);
			/* ids are never reused: the second pass has new ones once dropped */
			if (k == 0)
				ids[i] = rs.chain_id;
			else
				bad += differ("chain", "id not older", rs.chain_id >= ids[i], 1);
			for (int j = 0; k == 0 && j < i; j += 97)
				bad += differ("chain", "id unique", ids[j] != rs.chain_id, 1);
			if (bad)
				break;
		}
	}
	assert_int_equal(bad, 0);
	/* the first chain was dropped on the way and kept again: a newer id */
	chain[DEPTH - 2] = 0x20000;
	chain[DEPTH - 1] = 0x10000;
	make_sample(&rec, PERF_RECORD_MISC_USER, 100, 100, 0, BAR, chain, DEPTH, 1);
	assert_int_equal(pcl_resolver__sample(fx.r, &rec, &rs), 0);
	assert_true(rs.chain_id > ids[0]);
	free(chain);
	free(ids);
}

/*
 * A histogram fed resolved samples with their chain ids equals one fed the
 * same samples without them (the ids only skip work), in both modes.
 */
static void report_of(bool use_ids, bool children, char **out)
{
	const uint64_t c1[] = { BAR + 0x10, FOO + 0x10, MAIN + 0x10 };
	const uint64_t c2[] = { FOO + 0x20, MAIN + 0x20 };
	const uint64_t c3[] = { BAR + 0x10, FOO + 0x10, BAR + 0x10, MAIN + 0x10 };
	/* by thread too: one chain id makes entries of two threads */
	struct pcl_hist_opts o = { .sz = sizeof(o),
				   .keys = { PCL_SORT_PID, PCL_SORT_DSO, PCL_SORT_SYM },
				   .nr_keys = 3,
				   .children = children,
				   .callchain = true };
	struct pcl_report_opts ro = { .sz = sizeof(ro), .graph = PCL_GRAPH_ABS };
	const uint64_t *chains[] = { c1, c2, c3, c1, c1, c3, c2, c1 };
	const size_t lens[] = { 3, 2, 4, 3, 3, 4, 2, 3 };
	const uint32_t tids[] = { 100, 100, 101, 101, 100, 100, 100, 101 };

	setup_machine(true);
	rec_fork(100, 100, 101, 100);
	new_hists(&o);
	for (int rep = 0; rep < 3; rep++) {
		for (size_t i = 0; i < sizeof(chains) / sizeof(chains[0]); i++) {
			struct pcl_record rec;
			struct pcl_resolved rs;

			make_sample(&rec, PERF_RECORD_MISC_USER, 100, tids[i], 0, chains[i][0],
				    chains[i], lens[i], 10 + i);
			assert_int_equal(pcl_resolver__sample(fx.r, &rec, &rs), 0);
			assert_true(rs.chain_id != 0);
			if (!use_ids)
				rs.chain_id = 0;
			assert_int_equal(pcl_hists__add(fx.h, &rs, 0, 10 + i), 0);
		}
	}
	pcl_hists__finish(fx.h);
	print_report(&ro);
	*out = strdup(fx.out);
	assert_non_null(*out);
	cleanup();
}

static void test_hist_chain_ids(void **state)
{
	char *with, *without;

	(void)state;
	for (int children = 0; children < 2; children++) {
		report_of(true, children, &with);
		report_of(false, children, &without);
		if (strcmp(with, without))
			print_message("with ids:\n%s\nwithout:\n%s\n", with, without);
		assert_string_equal(with, without);
		assert_non_null(strstr(with, "main"));
		free(with);
		free(without);
	}
}

/* ---- histograms ---- */

/*
 * The flat profile (no chains): what goes in one entry and the order.
 *   main x3 (100 each), foo twice at two offsets, the kernel's
 *   do_syscall_64 (200), 0x1234 in no map twice (50 each), 0x1238 in no map
 *   (30), 0x1800 in hot but no symbol (40), and main in process 200
 *   "other" (100). Total 970 in 11 samples.
 */
static void add_flat(void)
{
	add_user(MAIN + 0x10, 100);
	add_user(MAIN + 0x10, 100);
	add_user(FOO + 0x10, 100);
	add(PERF_RECORD_MISC_KERNEL, 100, 100, 0, KSYSCALL + 8, NULL, 0, 200);
	add_user(0x1234, 50);
	add_user(MAIN + 0x20, 100);
	add_user(FOO + 0x20, 100);
	add_user(0x1234, 50);
	add_user(0x1238, 30);
	add_user(HOT + 0x1800, 40);
	add(PERF_RECORD_MISC_USER, 200, 200, 0, MAIN + 0x10, NULL, 0, 100);
}

static void setup_flat(void)
{
	struct pcl_hist_opts o = { .sz = sizeof(o) };

	setup_machine(true);
	rec_fork(200, 100, 200, 100);
	rec_comm(200, 200, "other");
	new_hists(&o);
	add_flat();
	pcl_hists__finish(fx.h);
}

static const struct entry_want {
	const char *comm, *dso, *sym;
	uint64_t addr, self, children, nr_samples;
	char level;
} flat_want[] = {
	{ "hot", "hot", "main", 0x1010, 300, 0, 3, '.' },
	{ "hot", "[kernel.kallsyms]", "do_syscall_64", KSYSCALL + 8, 200, 0, 1, 'k' },
	{ "hot", "hot", "foo", 0x1110, 200, 0, 2, '.' },
	{ "hot", "[unknown]", NULL, 0x1234, 100, 0, 2, '.' },
	{ "other", "hot", "main", 0x1010, 100, 0, 1, '.' },
	{ "hot", "hot", NULL, 0x1800, 40, 0, 1, '.' },
	{ "hot", "[unknown]", NULL, 0x1238, 30, 0, 1, '.' },
};

/* Compare the entries with @want, field by field; the number of mismatches. */
static int check_entries(const struct entry_want *want, size_t n, bool check_addr)
{
	int bad = 0;

	if (pcl_hists__nr_entries(fx.h) != n) {
		print_message("%zu entries, expected %zu\n", pcl_hists__nr_entries(fx.h), n);
		bad++;
	}
	for (size_t i = 0; i < n && i < pcl_hists__nr_entries(fx.h); i++) {
		const struct pcl_hist_entry *e = pcl_hists__entry(fx.h, i);
		char row[64];

		snprintf(row, sizeof(row), "entry %zu (%s)", i, want[i].sym ? want[i].sym : "-");
		bad += differ_str(row, "comm", e->comm, want[i].comm);
		bad += differ_str(row, "dso", dso_name(&e->frame), want[i].dso);
		bad += differ_str(row, "sym", sym_name(&e->frame), want[i].sym);
		if (check_addr)
			bad += differ(row, "addr", e->frame.addr, want[i].addr);
		bad += differ(row, "self", e->self, want[i].self);
		bad += differ(row, "children", e->children, want[i].children);
		bad += differ(row, "nr_samples", e->nr_samples, want[i].nr_samples);
		bad += differ(row, "level", (uint64_t)e->frame.level, (uint64_t)want[i].level);
	}
	return bad;
}

static void test_hist_flat(void **state)
{
	const struct pcl_hist_entry *e;

	(void)state;
	setup_flat();
	assert_int_equal(pcl_hists__total_period(fx.h), 970);
	assert_int_equal(pcl_hists__nr_samples(fx.h), 11);
	assert_int_equal(check_entries(flat_want, sizeof(flat_want) / sizeof(flat_want[0]), true),
			 0);
	e = pcl_hists__entry(fx.h, 0);
	assert_ptr_equal(e->comm, pcl_machine__intern(fx.m, "hot"));
	assert_int_equal(e->pid, 100);
	assert_int_equal(e->tid, 100);
	assert_null(e->root);
	assert_int_equal(e->max_depth, 0);
	assert_int_equal(pcl_hists__entry(fx.h, 4)->pid, 200);
	assert_null(pcl_hists__entry(fx.h, 7));
}

/* Other sort keys merge and split differently. */
static void test_hist_keys(void **state)
{
	struct pcl_hist_opts o = { .sz = sizeof(o),
				   .nr_keys = 2,
				   .keys = { PCL_SORT_COMM, PCL_SORT_DSO } };
	static const struct entry_want by_dso[] = {
		{ "hot", "hot", "main", 0, 540, 0, 6, '.' },
		{ "hot", "[kernel.kallsyms]", "do_syscall_64", 0, 200, 0, 1, 'k' },
		{ "hot", "[unknown]", NULL, 0, 130, 0, 3, '.' },
		{ "other", "hot", "main", 0, 100, 0, 1, '.' },
	};
	const struct pcl_hist_entry *e;

	(void)state;
	setup_machine(true);
	rec_fork(200, 100, 200, 100);
	rec_comm(200, 200, "other");
	new_hists(&o);
	add_flat();
	pcl_hists__finish(fx.h);
	/* an entry shows the first sample's frame */
	assert_int_equal(check_entries(by_dso, 4, false), 0);

	/* sym alone: main of both processes is one entry; a symbol-less address is
	 * one entry whatever its map (0x1800 in hot, 0x1800 in no map) */
	o.nr_keys = 1;
	o.keys[0] = PCL_SORT_SYM;
	new_hists(&o);
	add_user(MAIN, 10);
	add(PERF_RECORD_MISC_USER, 200, 200, 0, MAIN + 4, NULL, 0, 20);
	add_user(HOT + 0x1800, 5);
	add_user(0x1800, 6);
	add_user(0x1804, 1);
	pcl_hists__finish(fx.h);
	assert_int_equal(pcl_hists__nr_entries(fx.h), 3);
	e = pcl_hists__entry(fx.h, 0);
	assert_string_equal(sym_name(&e->frame), "main");
	assert_int_equal(e->self, 30);
	assert_int_equal(e->nr_samples, 2);
	e = pcl_hists__entry(fx.h, 1);
	assert_null(e->frame.sym);
	assert_int_equal(e->frame.addr, 0x1800);
	assert_int_equal(e->self, 11);
	assert_int_equal(pcl_hists__entry(fx.h, 2)->frame.addr, 0x1804);

	/* pid: one entry per thread, ties by tid */
	o.keys[0] = PCL_SORT_PID;
	new_hists(&o);
	rec_fork(100, 100, 101, 100);
	add(PERF_RECORD_MISC_USER, 100, 101, 0, MAIN, NULL, 0, 7);
	add(PERF_RECORD_MISC_USER, 100, 100, 0, FOO, NULL, 0, 3);
	add(PERF_RECORD_MISC_USER, 100, 100, 0, MAIN, NULL, 0, 4);
	add(PERF_RECORD_MISC_USER, 200, 200, 0, MAIN, NULL, 0, 7);
	pcl_hists__finish(fx.h);
	assert_int_equal(pcl_hists__nr_entries(fx.h), 3);
	assert_int_equal(pcl_hists__entry(fx.h, 0)->tid, 100);
	assert_int_equal(pcl_hists__entry(fx.h, 0)->self, 7);
	assert_int_equal(pcl_hists__entry(fx.h, 1)->tid, 101);
	assert_int_equal(pcl_hists__entry(fx.h, 2)->tid, 200);

	/* cpu */
	o.keys[0] = PCL_SORT_CPU;
	new_hists(&o);
	add(PERF_RECORD_MISC_USER, 100, 100, 3, MAIN, NULL, 0, 5);
	add(PERF_RECORD_MISC_USER, 100, 100, 1, FOO, NULL, 0, 5);
	add(PERF_RECORD_MISC_USER, 100, 100, 3, FOO, NULL, 0, 1);
	pcl_hists__finish(fx.h);
	assert_int_equal(pcl_hists__nr_entries(fx.h), 2);
	assert_int_equal(pcl_hists__entry(fx.h, 0)->cpu, 3);
	assert_int_equal(pcl_hists__entry(fx.h, 0)->self, 6);
	assert_int_equal(pcl_hists__entry(fx.h, 1)->cpu, 1);
}

/*
 * Chains (callee first, as recorded):
 *   S1 bar <- foo <- main                 100
 *   S2 foo <- main                        50
 *   S3 bar <- foo <- bar <- main          10 (bar recursive: counted once)
 */
static const uint64_t chain1[] = { PERF_CONTEXT_USER, BAR + 0x10, FOO + 0x10, MAIN + 0x10 };
static const uint64_t chain2[] = { PERF_CONTEXT_USER, FOO + 0x20, MAIN + 0x20 };
static const uint64_t chain3[] = { PERF_CONTEXT_USER, BAR + 0x20, FOO + 0x30, BAR + 0x30,
				   MAIN + 0x30 };

static void add_chains(bool children, bool callchain, bool caller)
{
	struct pcl_hist_opts o = { .sz = sizeof(o),
				   .children = children,
				   .callchain = callchain,
				   .caller_order = caller };

	setup_machine(true);
	new_hists(&o);
	add(PERF_RECORD_MISC_USER, 100, 100, 0, BAR + 0x10, chain1, 4, 100);
	add(PERF_RECORD_MISC_USER, 100, 100, 0, FOO + 0x20, chain2, 3, 50);
	add(PERF_RECORD_MISC_USER, 100, 100, 0, BAR + 0x20, chain3, 5, 10);
	pcl_hists__finish(fx.h);
}

static const struct pcl_hist_entry *entry_of(const char *sym)
{
	for (size_t i = 0; i < pcl_hists__nr_entries(fx.h); i++) {
		const struct pcl_hist_entry *e = pcl_hists__entry(fx.h, i);

		if (e->frame.sym && !strcmp(e->frame.sym->name, sym))
			return e;
	}
	fail_msg("no entry for '%s'", sym);
	return NULL;
}

/* Node checks: its symbol, total, self, count. */
static int node_is(const struct pcl_callnode *n, const char *sym, uint64_t total, uint64_t self,
		   uint64_t count)
{
	char row[64];
	int bad = 0;

	snprintf(row, sizeof(row), "node %s", sym);
	if (!n) {
		print_message("'%s': missing\n", row);
		return 1;
	}
	bad += differ_str(row, "sym", sym_name(&n->frame), sym);
	bad += differ(row, "total", n->total, total);
	bad += differ(row, "self", n->self, self);
	bad += differ(row, "count", n->count, count);
	return bad;
}

static void test_children(void **state)
{
	static const struct entry_want want[] = {
		{ "hot", "hot", "main", 0, 0, 160, 0, '.' },
		{ "hot", "hot", "foo", 0, 50, 160, 1, '.' },
		{ "hot", "hot", "bar", 0, 110, 110, 2, '.' },
	};
	const struct pcl_hist_entry *e;
	const struct pcl_callnode *n;
	int bad = 0;

	(void)state;
	add_chains(true, true, false);
	assert_int_equal(pcl_hists__total_period(fx.h), 160);
	assert_int_equal(pcl_hists__nr_samples(fx.h), 3);
	/* main and foo tie at 160: the caller (the shallower tree, callee order) first */
	assert_int_equal(check_entries(want, 3, false), 0);
	assert_int_equal(entry_of("main")->max_depth, 1);
	assert_int_equal(entry_of("foo")->max_depth, 3);
	assert_int_equal(entry_of("bar")->max_depth, 4);

	/* main: every chain ends in it */
	e = entry_of("main");
	assert_non_null(e->root);
	bad += node_is(e->root->first, "main", 160, 160, 3);
	bad += e->root->first->next != NULL;
	bad += e->root->first->first != NULL;
	/* foo: its callers, heaviest first */
	e = entry_of("foo");
	n = e->root->first;
	bad += node_is(n, "foo", 160, 0, 3);
	bad += node_is(n->first, "main", 150, 150, 2);
	bad += node_is(n->first->next, "bar", 10, 0, 1);
	bad += node_is(n->first->next->first, "main", 10, 10, 1);
	bad += n->first->next->next != NULL;
	/* bar: its own samples' whole chains, the recursion once */
	e = entry_of("bar");
	n = e->root->first;
	bad += node_is(n, "bar", 110, 0, 2);
	bad += n->next != NULL;
	bad += node_is(n->first, "foo", 110, 0, 2);
	bad += node_is(n->first->first, "main", 100, 100, 1);
	bad += node_is(n->first->first->next, "bar", 10, 0, 1);
	bad += node_is(n->first->first->next->first, "main", 10, 10, 1);
	bad += n->first->first->next->first->parent != n->first->first->next;
	assert_int_equal(bad, 0);
}

/* Caller order: trees root at the outermost caller; deeper trees first on ties. */
static void test_children_caller(void **state)
{
	static const struct entry_want want[] = {
		{ "hot", "hot", "main", 0, 0, 160, 0, '.' },
		{ "hot", "hot", "foo", 0, 50, 160, 1, '.' },
		{ "hot", "hot", "bar", 0, 110, 110, 2, '.' },
	};
	const struct pcl_callnode *n;
	int bad = 0;

	(void)state;
	add_chains(true, true, true);
	assert_int_equal(check_entries(want, 3, false), 0);
	assert_int_equal(entry_of("main")->max_depth, 4);
	assert_int_equal(entry_of("foo")->max_depth, 2);
	assert_int_equal(entry_of("bar")->max_depth, 4);
	n = entry_of("main")->root->first;
	bad += node_is(n, "main", 160, 0, 3);
	bad += node_is(n->first, "foo", 150, 50, 2);
	bad += node_is(n->first->first, "bar", 100, 100, 1);
	bad += node_is(n->first->next, "bar", 10, 0, 1);
	bad += node_is(n->first->next->first, "foo", 10, 0, 1);
	bad += node_is(n->first->next->first->first, "bar", 10, 10, 1);
	/* foo's tree: its own sample's chain from main, and its callees */
	n = entry_of("foo")->root->first;
	bad += node_is(n, "foo", 110, 0, 2);
	bad += node_is(n->first, "bar", 110, 110, 2);
	bad += node_is(n->next, "main", 50, 0, 1);
	bad += node_is(n->next->first, "foo", 50, 50, 1);
	assert_int_equal(bad, 0);
}

/* Children without call trees: the same sums, ties by self. */
static void test_children_no_callchain(void **state)
{
	static const struct entry_want want[] = {
		{ "hot", "hot", "foo", 0, 50, 160, 1, '.' },
		{ "hot", "hot", "main", 0, 0, 160, 0, '.' },
		{ "hot", "hot", "bar", 0, 110, 110, 2, '.' },
	};

	(void)state;
	add_chains(true, false, false);
	assert_int_equal(check_entries(want, 3, false), 0);
	for (size_t i = 0; i < 3; i++)
		assert_null(pcl_hists__entry(fx.h, i)->root);
}

/* Children mode with samples that have no chain (a file recorded without -g). */
static void test_children_without_chains(void **state)
{
	struct pcl_hist_opts o = { .sz = sizeof(o), .children = true, .callchain = true };

	(void)state;
	setup_machine(true);
	new_hists(&o);
	add_user(MAIN, 30);
	add_user(FOO, 20);
	add_user(MAIN + 1, 5);
	pcl_hists__finish(fx.h);
	assert_int_equal(pcl_hists__nr_entries(fx.h), 2);
	assert_string_equal(sym_name(&pcl_hists__entry(fx.h, 0)->frame), "main");
	assert_int_equal(pcl_hists__entry(fx.h, 0)->self, 35);
	assert_int_equal(pcl_hists__entry(fx.h, 0)->children, 35);
	assert_null(pcl_hists__entry(fx.h, 0)->root);
	assert_int_equal(pcl_hists__entry(fx.h, 1)->children, 20);
}

/* tree_min_percent: no tree for lighter entries; their depth and order stay. */
static void test_tree_min_percent(void **state)
{
	struct pcl_hist_opts o = {
		.sz = sizeof(o), .children = true, .callchain = true, .tree_min_percent = 80
	};

	(void)state;
	setup_machine(true);
	new_hists(&o);
	add(PERF_RECORD_MISC_USER, 100, 100, 0, BAR + 0x10, chain1, 4, 100);
	add(PERF_RECORD_MISC_USER, 100, 100, 0, FOO + 0x20, chain2, 3, 50);
	add(PERF_RECORD_MISC_USER, 100, 100, 0, BAR + 0x20, chain3, 5, 10);
	pcl_hists__finish(fx.h);
	assert_int_equal(pcl_hists__nr_entries(fx.h), 3);
	/* 160 of 160 >= 80%: trees */
	assert_string_equal(sym_name(&pcl_hists__entry(fx.h, 0)->frame), "main");
	assert_string_equal(sym_name(&pcl_hists__entry(fx.h, 1)->frame), "foo");
	assert_int_equal(node_is(entry_of("main")->root->first, "main", 160, 160, 3), 0);
	assert_int_equal(node_is(entry_of("foo")->root->first, "foo", 160, 0, 3), 0);
	/* 110 of 160 < 80%: none, but the same depth and sums */
	assert_string_equal(sym_name(&pcl_hists__entry(fx.h, 2)->frame), "bar");
	assert_null(entry_of("bar")->root);
	assert_int_equal(entry_of("bar")->max_depth, 4);
	assert_int_equal(entry_of("bar")->children, 110);
}

/* Call trees without children: only the sampled entries, no children sums. */
static void test_callchain_no_children(void **state)
{
	static const struct entry_want want[] = {
		{ "hot", "hot", "bar", 0, 110, 0, 2, '.' },
		{ "hot", "hot", "foo", 0, 50, 0, 1, '.' },
	};
	const struct pcl_callnode *n;
	int bad = 0;

	(void)state;
	add_chains(false, true, false);
	assert_int_equal(check_entries(want, 2, false), 0);
	n = entry_of("foo")->root->first;
	bad += node_is(n, "foo", 50, 0, 1);
	bad += node_is(n->first, "main", 50, 50, 1);
	assert_int_equal(entry_of("bar")->max_depth, 4);
	assert_int_equal(bad, 0);
}

enum { WIDE = 3000 };

/* Samples of main calling one of WIDE unknown frames, each twice, weights 1..WIDE. */
static void add_wide(void)
{
	uint64_t chain[2];

	for (int rep = 0; rep < 2; rep++) {
		for (uint64_t i = 0; i < WIDE; i++) {
			chain[0] = 0x900000 + i * 16;
			chain[1] = MAIN + 0x10;
			add(PERF_RECORD_MISC_USER, 100, 100, 0, chain[0], chain, 2, i + 1);
		}
	}
}

/* A node with thousands of children (frames with no symbol, one per address). */
static void test_tree_wide(void **state)
{
	struct pcl_hist_opts o = { .sz = sizeof(o), .callchain = true, .caller_order = true };
	const struct pcl_hist_entry *e;
	const struct pcl_callnode *n, *c;
	uint64_t sum = 0, prev = UINT64_MAX, kids = 0;
	int bad = 0;

	(void)state;
	setup_machine(true);
	new_hists(&o);
	add_wide();
	pcl_hists__finish(fx.h);
	assert_int_equal(pcl_hists__total_period(fx.h), (uint64_t)WIDE * (WIDE + 1));
	/* the entry of the heaviest unknown frame: its tree is main > it */
	e = pcl_hists__entry(fx.h, 0);
	assert_null(e->frame.sym);
	assert_int_equal(e->self, 2 * WIDE);
	n = e->root->first;
	bad += node_is(n, "main", 2 * WIDE, 0, 2);
	bad += n->first == NULL || n->first->next != NULL ||
	       n->first->frame.ip != 0x900000 + (WIDE - 1) * 16;
	assert_int_equal(bad, 0);
	/* every unknown frame its own entry with one branch, heaviest first */
	for (size_t i = 0; i < pcl_hists__nr_entries(fx.h); i++) {
		e = pcl_hists__entry(fx.h, i);
		bad += e->self > prev;
		prev = e->self;
		sum += e->self;
		kids++;
		c = e->root ? e->root->first : NULL;
		bad += !c || c->total != e->self || !c->first || c->first->frame.ip != e->frame.ip;
	}
	assert_int_equal(kids, WIDE);
	assert_int_equal(sum, (uint64_t)WIDE * (WIDE + 1));
	assert_int_equal(bad, 0);
}

/* The same in callee order from main's side: main's tree has WIDE children. */
static void test_tree_wide_children(void **state)
{
	struct pcl_hist_opts o = { .sz = sizeof(o), .children = true, .callchain = true,
				   .caller_order = true };
	const struct pcl_callnode *n, *c;
	uint64_t prev = UINT64_MAX, kids = 0, sum = 0;
	int bad = 0;

	(void)state;
	setup_machine(true);
	new_hists(&o);
	add_wide();
	pcl_hists__finish(fx.h);
	n = entry_of("main")->root->first;
	bad += node_is(n, "main", (uint64_t)WIDE * (WIDE + 1), 0, 2 * WIDE);
	for (c = n ? n->first : NULL; c; c = c->next) {
		bad += c->total > prev || c->count != 2 || c->first != NULL;
		prev = c->total;
		sum += c->total;
		kids++;
	}
	bad += kids != WIDE || sum != (uint64_t)WIDE * (WIDE + 1);
	assert_int_equal(bad, 0);
}

/* A chain through one function many times: one credit per sample. */
static void test_recursion(void **state)
{
	const uint64_t deep[] = { PERF_CONTEXT_USER, FOO, FOO + 1, FOO + 2, FOO + 3, MAIN };
	struct pcl_hist_opts o = { .sz = sizeof(o), .children = true, .callchain = true };
	const struct pcl_callnode *n;

	(void)state;
	setup_machine(true);
	new_hists(&o);
	add(PERF_RECORD_MISC_USER, 100, 100, 0, FOO, deep, 6, 7);
	add(PERF_RECORD_MISC_USER, 100, 100, 0, FOO, deep, 6, 5);
	pcl_hists__finish(fx.h);
	assert_int_equal(pcl_hists__nr_entries(fx.h), 2);
	assert_int_equal(entry_of("foo")->children, 12);
	assert_int_equal(entry_of("foo")->self, 12);
	assert_int_equal(entry_of("foo")->nr_samples, 2);
	assert_int_equal(entry_of("main")->children, 12);
	/* the tree keeps the recursion: foo foo foo foo main */
	n = entry_of("foo")->root->first;
	for (int i = 0; i < 4; i++) {
		assert_int_equal(node_is(n, "foo", 12, 0, 2), 0);
		n = n->first;
	}
	assert_int_equal(node_is(n, "main", 12, 12, 2), 0);
	assert_int_equal(entry_of("foo")->max_depth, 5);
}

/*
 * Children trees are merged from the chains of each sampled entry: shared
 * callers once, equal siblings in first-sample order, and a node too light
 * to show (under tree_min_percent) kept with its sums but nothing below it.
 */
static void test_tree_merged(void **state)
{
	/* callee first: main -> foo -> bar, main -> foo, main -> bar -> foo, main -> bar */
	const uint64_t mfb[] = { PERF_CONTEXT_USER, BAR + 0x10, FOO + 0x10, MAIN + 0x10 };
	const uint64_t mf[] = { PERF_CONTEXT_USER, FOO + 0x20, MAIN + 0x20 };
	const uint64_t mbf[] = { PERF_CONTEXT_USER, FOO + 0x30, BAR + 0x30, MAIN + 0x30 };
	const uint64_t mb[] = { PERF_CONTEXT_USER, BAR + 0x40, MAIN + 0x40 };
	struct pcl_hist_opts o = { .sz = sizeof(o), .children = true, .callchain = true,
				   .caller_order = true, .tree_min_percent = 10 };
	const struct pcl_callnode *m, *n;

	(void)state;
	setup_machine(true);
	new_hists(&o);
	add(PERF_RECORD_MISC_USER, 100, 100, 0, BAR + 0x10, mfb, 4, 40);
	add(PERF_RECORD_MISC_USER, 100, 100, 0, FOO + 0x20, mf, 3, 45);
	add(PERF_RECORD_MISC_USER, 100, 100, 0, BAR + 0x18, mfb, 4, 10); /* bar again, by symbol */
	add(PERF_RECORD_MISC_USER, 100, 100, 0, FOO + 0x30, mbf, 4, 3);
	add(PERF_RECORD_MISC_USER, 100, 100, 0, BAR + 0x40, mb, 3, 2);
	pcl_hists__finish(fx.h);
	/* main's tree: main 100 -> foo 95 (self 45) -> bar 50; main -> bar 5, too light: no foo */
	m = entry_of("main")->root->first;
	assert_int_equal(node_is(m, "main", 100, 0, 5), 0);
	assert_null(m->first->next->next);
	n = m->first;
	assert_int_equal(node_is(n, "foo", 95, 45, 3), 0);
	assert_int_equal(node_is(n->first, "bar", 50, 50, 2), 0);
	assert_null(n->first->next);
	n = n->next;
	assert_int_equal(node_is(n, "bar", 5, 2, 2), 0);
	assert_null(n->first);
	/* foo's: the chains through it from foo down, and its own samples' whole chains */
	m = entry_of("foo")->root->first;
	assert_int_equal(node_is(m, "foo", 50, 0, 2), 0);
	assert_int_equal(node_is(m->first, "bar", 50, 50, 2), 0);
	m = m->next;
	assert_int_equal(node_is(m, "main", 48, 0, 2), 0);
	assert_null(m->next);
	assert_int_equal(node_is(m->first, "foo", 45, 45, 1), 0);
	assert_int_equal(node_is(m->first->next, "bar", 3, 0, 1), 0);
	assert_null(m->first->next->first); /* 3 < 10: childless */
	/* bar's: whole chains of its samples first-sample first, then from bar down */
	assert_int_equal(entry_of("bar")->children, 55);
	m = entry_of("bar")->root->first;
	assert_int_equal(node_is(m, "main", 52, 0, 3), 0);
	assert_int_equal(node_is(m->first, "foo", 50, 0, 2), 0);
	assert_int_equal(node_is(m->first->next, "bar", 2, 2, 1), 0);
	assert_int_equal(node_is(m->next, "bar", 3, 0, 1), 0);
	assert_null(m->next->first); /* 3 < 10: childless */
}

/*
 * The srcline and srcfile keys. The fixture's DSOs have no files, so every
 * address gets perf's not-found forms: SYM+OFF (decimal), DSO[ADDR] for an
 * address with no symbol, ??:0 outside every map; srcfile is then empty.
 */
static void test_hist_srcline(void **state)
{
	static const struct {
		const char *srcline;
		uint64_t self;
	} want[] = {
		{ "main+16", 300 }, { "do_syscall_64+8", 200 }, { "??:0", 130 }, { "foo+16", 100 },
		{ "foo+32", 100 },  { "main+32", 100 },		  { "hot[1800]", 40 },
	};
	struct pcl_hist_opts o = { .sz = sizeof(o), .nr_keys = 1, .keys = { PCL_SORT_SRCLINE } };
	const struct pcl_hist_entry *e;

	(void)state;
	setup_machine(true);
	rec_fork(200, 100, 200, 100);
	rec_comm(200, 200, "other");
	o.symbols = fx.syms;
	new_hists(&o);
	add_flat();
	pcl_hists__finish(fx.h);
	assert_int_equal(pcl_hists__nr_entries(fx.h), sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		e = pcl_hists__entry(fx.h, i);
		if (strcmp(e->srcline, want[i].srcline) || e->self != want[i].self)
			print_message("entry %zu: %s %llu, want %s %llu\n", i, e->srcline,
				      (unsigned long long)e->self, want[i].srcline,
				      (unsigned long long)want[i].self);
		assert_string_equal(e->srcline, want[i].srcline);
		assert_int_equal(e->self, want[i].self);
		assert_null(e->srcfile);
	}
	/* two addresses, one string: one entry, which knows it had several */
	assert_true(pcl_hists__entry(fx.h, 2)->many_addrs);
	assert_false(pcl_hists__entry(fx.h, 0)->many_addrs);

	/* srcfile: every not-found answer is the one empty file */
	o.keys[0] = PCL_SORT_SRCFILE;
	new_hists(&o);
	add_flat();
	pcl_hists__finish(fx.h);
	assert_int_equal(pcl_hists__nr_entries(fx.h), 1);
	assert_string_equal(pcl_hists__entry(fx.h, 0)->srcfile, "");
	assert_int_equal(pcl_hists__entry(fx.h, 0)->self, 970);
	cleanup();
}

static void test_sort_keys_parse(void **state)
{
	enum pcl_sort_key k[PCL_SORT_MAX];

	(void)state;
	assert_int_equal(pcl_sort_keys_parse("comm,dso,sym", k, PCL_SORT_MAX), 3);
	assert_int_equal(k[0], PCL_SORT_COMM);
	assert_int_equal(k[1], PCL_SORT_DSO);
	assert_int_equal(k[2], PCL_SORT_SYM);
	assert_int_equal(pcl_sort_keys_parse("symbol,pid,tid,cpu", k, PCL_SORT_MAX), 4);
	assert_int_equal(k[0], PCL_SORT_SYM);
	assert_int_equal(k[1], PCL_SORT_PID);
	assert_int_equal(k[2], PCL_SORT_TID);
	assert_int_equal(k[3], PCL_SORT_CPU);
	assert_int_equal(pcl_sort_keys_parse("dso", k, PCL_SORT_MAX), 1);
	assert_int_equal(k[0], PCL_SORT_DSO);
	assert_int_equal(pcl_sort_keys_parse("srcline,srcfile", k, PCL_SORT_MAX), 2);
	assert_int_equal(k[0], PCL_SORT_SRCLINE);
	assert_int_equal(k[1], PCL_SORT_SRCFILE);

	assert_int_equal(pcl_sort_keys_parse("dso,bogus", k, PCL_SORT_MAX), -EINVAL);
	assert_non_null(strstr(pcl_last_error(), "unknown sort key 'bogus'"));
	assert_int_equal(pcl_sort_keys_parse("com", k, PCL_SORT_MAX), -EINVAL);
	assert_non_null(strstr(pcl_last_error(), "'com'"));
	assert_int_equal(pcl_sort_keys_parse("commx", k, PCL_SORT_MAX), -EINVAL);
	assert_int_equal(pcl_sort_keys_parse("comm,,dso", k, PCL_SORT_MAX), -EINVAL);
	assert_int_equal(pcl_sort_keys_parse("", k, PCL_SORT_MAX), -EINVAL);
	assert_non_null(strstr(pcl_last_error(), "no sort key"));
	assert_int_equal(pcl_sort_keys_parse("comm,dso,sym", k, 2), -EINVAL);
	assert_non_null(strstr(pcl_last_error(), "too many sort keys"));
	assert_int_equal(pcl_sort_keys_parse(NULL, k, PCL_SORT_MAX), -EINVAL);
	assert_int_equal(pcl_sort_keys_parse("comm", NULL, PCL_SORT_MAX), -EINVAL);
}

static void test_hists_null(void **state)
{
	(void)state;
	assert_int_equal(pcl_hists__nr_entries(NULL), 0);
	assert_null(pcl_hists__entry(NULL, 0));
	assert_int_equal(pcl_hists__total_period(NULL), 0);
	assert_int_equal(pcl_hists__nr_samples(NULL), 0);
	pcl_hists__finish(NULL);
	pcl_hists__free(NULL);
	/* NULL options: the defaults */
	fx.h = pcl_hists__new(NULL);
	assert_non_null(fx.h);
	pcl_hists__finish(fx.h);
	assert_int_equal(pcl_hists__nr_entries(fx.h), 0);
}

/* ---- the report ---- */

static void test_report_flat(void **state)
{
	struct pcl_report_opts o = { .sz = sizeof(o) };

	(void)state;
	setup_flat();
	print_report(&o);
	expect_report("# Overhead  Command  Shared Object      Symbol                \n"
		      "# ........  .......  .................  ......................\n"
		      "#\n"
		      "    30.93%  hot      hot                [.] main\n"
		      "    20.62%  hot      [kernel.kallsyms]  [k] do_syscall_64\n"
		      "    20.62%  hot      hot                [.] foo\n"
		      "    10.31%  hot      [unknown]          [.] 0x0000000000001234\n"
		      "    10.31%  other    hot                [.] main\n"
		      "     4.12%  hot      hot                [.] 0x0000000000001800\n"
		      "     3.09%  hot      [unknown]          [.] 0x0000000000001238\n");

	/* a limit hides entries but not their share of the column widths */
	o.percent_limit = 15;
	print_report(&o);
	expect_report("# Overhead  Command  Shared Object      Symbol                \n"
		      "# ........  .......  .................  ......................\n"
		      "#\n"
		      "    30.93%  hot      hot                [.] main\n"
		      "    20.62%  hot      [kernel.kallsyms]  [k] do_syscall_64\n"
		      "    20.62%  hot      hot                [.] foo\n");

	/* percentages of a given total */
	o.percent_limit = 0;
	o.total_period = 1940;
	o.nr_keys = 1;
	o.keys[0] = PCL_SORT_COMM;
	print_report(&o);
	expect_report("# Overhead  Command\n"
		      "# ........  .......\n"
		      "#\n"
		      "    15.46%  hot    \n"
		      "    10.31%  hot    \n"
		      "    10.31%  hot    \n"
		      "     5.15%  hot    \n"
		      "     5.15%  other  \n"
		      "     2.06%  hot    \n"
		      "     1.55%  hot    \n");
}

static void test_report_keys(void **state)
{
	struct pcl_report_opts o = { .sz = sizeof(o),
				     .nr_keys = 2,
				     .keys = { PCL_SORT_COMM, PCL_SORT_DSO } };
	struct pcl_hist_opts ho = { .sz = sizeof(ho),
				    .nr_keys = 2,
				    .keys = { PCL_SORT_COMM, PCL_SORT_DSO } };

	(void)state;
	setup_machine(true);
	rec_fork(200, 100, 200, 100);
	rec_comm(200, 200, "other");
	new_hists(&ho);
	add_flat();
	pcl_hists__finish(fx.h);
	print_report(&o);
	/* a last column that is not the symbol is padded, as in perf */
	expect_report("# Overhead  Command  Shared Object    \n"
		      "# ........  .......  .................\n"
		      "#\n"
		      "    55.67%  hot      hot              \n"
		      "    20.62%  hot      [kernel.kallsyms]\n"
		      "    13.40%  hot      [unknown]        \n"
		      "    10.31%  other    hot              \n");

	/* pid: "%7d:%-*s" under a 15-wide "    Pid:Command" */
	ho.keys[0] = o.keys[0] = PCL_SORT_PID;
	ho.keys[1] = o.keys[1] = PCL_SORT_SYM;
	new_hists(&ho);
	rec_fork(100, 100, 101, 100);
	add(PERF_RECORD_MISC_USER, 100, 100, 0, MAIN, NULL, 0, 60);
	add(PERF_RECORD_MISC_USER, 100, 101, 0, MAIN, NULL, 0, 40);
	pcl_hists__finish(fx.h);
	print_report(&o);
	expect_report("# Overhead      Pid:Command  Symbol  \n"
		      "# ........  ...............  ........\n"
		      "#\n"
		      "    60.00%      100:hot      [.] main\n"
		      "    40.00%      101:hot      [.] main\n");

	/* cpu: 3 wide */
	ho.keys[0] = o.keys[0] = PCL_SORT_CPU;
	ho.nr_keys = o.nr_keys = 1;
	new_hists(&ho);
	add(PERF_RECORD_MISC_USER, 100, 100, 2, MAIN, NULL, 0, 3);
	add(PERF_RECORD_MISC_USER, 100, 100, 11, MAIN, NULL, 0, 1);
	pcl_hists__finish(fx.h);
	print_report(&o);
	expect_report("# Overhead  CPU\n"
		      "# ........  ...\n"
		      "#\n"
		      "    75.00%  002\n"
		      "    25.00%  011\n");
}

/* Address 0 prints as perf prints it with "%-#.*llx": no 0x. */
static void test_report_zero_address(void **state)
{
	struct pcl_report_opts o = { .sz = sizeof(o) };
	struct pcl_hist_opts ho = { .sz = sizeof(ho) };

	(void)state;
	setup_machine(true);
	new_hists(&ho);
	add(PERF_RECORD_MISC_KERNEL, 100, 100, 0, 0, NULL, 0, 1);
	add_user(0x7fffffffe000ULL, 1);
	pcl_hists__finish(fx.h);
	print_report(&o);
	/* a kernel address below the kernel's map is in no map */
	/* and with no --dso, perf gives Shared Object a raw address's 16 columns */
	expect_report("# Overhead  Command  Shared Object     Symbol                \n"
		      "# ........  .......  ................  ......................\n"
		      "#\n"
		      "    50.00%  hot      [unknown]         [k] 0000000000000000\n"
		      "    50.00%  hot      [unknown]         [.] 0x00007fffffffe000\n");
}

/* An entry with no symbol makes the Symbol column 22 wide, as perf's, even at address 0. */
static void test_report_zero_address_width(void **state)
{
	struct pcl_report_opts o = { .sz = sizeof(o) };
	struct pcl_hist_opts ho = { .sz = sizeof(ho) };

	(void)state;
	setup_machine(true);
	new_hists(&ho);
	add(PERF_RECORD_MISC_KERNEL, 100, 100, 0, 0, NULL, 0, 1);
	pcl_hists__finish(fx.h);
	print_report(&o);
	expect_report("# Overhead  Command  Shared Object     Symbol                \n"
		      "# ........  .......  ................  ......................\n"
		      "#\n"
		      "   100.00%  hot      [unknown]         [k] 0000000000000000\n");
	/* --dso given: perf leaves Shared Object its own width */
	o.dso_filter = true;
	print_report(&o);
	expect_report("# Overhead  Command  Shared Object  Symbol                \n"
		      "# ........  .......  .............  ......................\n"
		      "#\n"
		      "   100.00%  hot      [unknown]      [k] 0000000000000000\n");
}

/* Children columns and perf's graph: "---" for a single root, "|--XX.XX%--" branches. */
static void test_report_children_graph(void **state)
{
	struct pcl_report_opts o = { .sz = sizeof(o), .children = true, .graph = PCL_GRAPH_ABS };

	(void)state;
	add_chains(true, true, false);
	print_report(&o);
	expect_report("# Children      Self  Command  Shared Object  Symbol  \n"
		      "# ........  ........  .......  .............  ........\n"
		      "#\n"
		      "   100.00%     0.00%  hot      hot            [.] main\n"
		      "            |\n"
		      "            ---main\n"
		      "\n"
		      "   100.00%    31.25%  hot      hot            [.] foo\n"
		      "            |\n"
		      "            ---foo\n"
		      "               |          \n"
		      "               |--93.75%--main\n"
		      "               |          \n"
		      "                --6.25%--bar\n"
		      "                          main\n"
		      "\n"
		      "    68.75%    68.75%  hot      hot            [.] bar\n"
		      "            |\n"
		      "            ---bar\n"
		      "               foo\n"
		      "               |          \n"
		      "               |--62.50%--main\n"
		      "               |          \n"
		      "                --6.25%--bar\n"
		      "                          main\n"
		      "\n");

	/* branches under graph_min_percent are not shown */
	o.graph_min_percent = 10;
	o.percent_limit = 90;
	print_report(&o);
	expect_report("# Children      Self  Command  Shared Object  Symbol  \n"
		      "# ........  ........  .......  .............  ........\n"
		      "#\n"
		      "   100.00%     0.00%  hot      hot            [.] main\n"
		      "            |\n"
		      "            ---main\n"
		      "\n"
		      "   100.00%    31.25%  hot      hot            [.] foo\n"
		      "            |\n"
		      "            ---foo\n"
		      "               |          \n"
		      "                --93.75%--main\n"
		      "\n");
}

/*
 * A graph that branches at every one of 41 levels is printed whole: every
 * level, past the 32 that perf's int mask holds, whose bars then repeat
 * the first 32 levels' pattern (x86 shifts take the count modulo 32).
 * Chain d is X, A1..Ad, Bd: at each level a heavy A and a light B.
 */
static void test_report_deep_graph(void **state)
{
	struct pcl_hist_opts ho = { .sz = sizeof(ho), .callchain = true };
	struct pcl_report_opts o = { .sz = sizeof(o), .graph = PCL_GRAPH_ABS };
	enum { DEPTH = 41 };
	uint64_t chain[DEPTH + 2];
	char name[32];
	const char *line;

	(void)state;
	setup_machine(false);
	new_hists(&ho);
	for (int d = 0; d < DEPTH; d++) {
		size_t n = 0;

		chain[n++] = 0x100000;
		for (int k = 1; k <= d; k++)
			chain[n++] = 0x200000 + 0x10 * (uint64_t)k;
		chain[n++] = 0x300000 + 0x10 * (uint64_t)d;
		add(PERF_RECORD_MISC_USER, 100, 100, 0, 0x100000, chain, n, 1);
	}
	pcl_hists__finish(fx.h);
	print_report(&o);
	for (int d = 0; d < DEPTH; d++) {
		snprintf(name, sizeof(name), "%x", 0x300000 + 0x10 * d);
		if (!strstr(fx.out, name))
			fail_msg("level %d's branch %s is not printed:\n%s", d, name, fx.out);
	}
	/* 41 levels of branches, each with its blank line and its branch line */
	line = fx.out;
	for (int i = 0; (line = strstr(line, "--2.44%--")); i++, line++)
		assert_true(i < DEPTH);
}

/*
 * Ties in perf's order. Entries of equal weight: by DSO name, an address in
 * no map last (perf's cmp_null). Branches of equal weight: by DSO, then
 * symbol address, descending, whatever order the samples came in.
 */
static void test_ties_perf_order(void **state)
{
	struct pcl_hist_opts ho = { .sz = sizeof(ho), .callchain = true };
	struct pcl_report_opts o = { .sz = sizeof(o), .graph = PCL_GRAPH_ABS };
	/* main called from foo, bar and main itself, once each, in address order */
	const uint64_t c1[] = { PERF_CONTEXT_USER, MAIN + 0x10, FOO + 0x10 };
	const uint64_t c2[] = { PERF_CONTEXT_USER, MAIN + 0x10, MAIN + 0x40 };
	const uint64_t c3[] = { PERF_CONTEXT_USER, MAIN + 0x10, BAR + 0x10 };
	const char *pf, *pb, *pm, *unk, *libc;

	(void)state;
	setup_machine(true);
	new_hists(&ho);
	add(PERF_RECORD_MISC_USER, 100, 100, 0, MAIN + 0x10, c2, 3, 10);
	add(PERF_RECORD_MISC_USER, 100, 100, 0, MAIN + 0x10, c1, 3, 10);
	add(PERF_RECORD_MISC_USER, 100, 100, 0, MAIN + 0x10, c3, 3, 10);
	add(PERF_RECORD_MISC_USER, 100, 100, 0, 0x5000, NULL, 0, 30);
	add(PERF_RECORD_MISC_USER, 100, 100, 0, LSTART + 0x10, NULL, 0, 30);
	pcl_hists__finish(fx.h);
	print_report(&o);
	pb = strstr(fx.out, "%--bar");
	pf = strstr(fx.out, "%--foo");
	pm = strstr(fx.out, "%--main");
	assert_true(pb && pf && pm);
	assert_true(pb < pf && pf < pm);
	unk = strstr(fx.out, "[unknown]");
	libc = strstr(fx.out, "libc.so.6");
	assert_true(unk && libc);
	assert_true(libc < unk);
}

/* No children: one Overhead column; the entry's tree is its own samples'. */
static void test_report_self_graph(void **state)
{
	struct pcl_report_opts o = { .sz = sizeof(o), .graph = PCL_GRAPH_ABS };

	(void)state;
	add_chains(false, true, false);
	print_report(&o);
	expect_report("# Overhead  Command  Shared Object  Symbol \n"
		      "# ........  .......  .............  .......\n"
		      "#\n"
		      "    68.75%  hot      hot            [.] bar\n"
		      "            |\n"
		      "            ---bar\n"
		      "               foo\n"
		      "               |          \n"
		      "               |--62.50%--main\n"
		      "               |          \n"
		      "                --6.25%--bar\n"
		      "                          main\n"
		      "\n"
		      "    31.25%  hot      hot            [.] foo\n"
		      "            |\n"
		      "            ---foo\n"
		      "               main\n"
		      "\n");
}

static void test_report_folded(void **state)
{
	struct pcl_report_opts o = { .sz = sizeof(o),
				     .children = true,
				     .graph = PCL_GRAPH_FOLDED };
	const uint64_t chain[] = { PERF_CONTEXT_USER, MAIN + 1, LSTART + 1, 0xdead };
	struct pcl_hist_opts ho = { .sz = sizeof(ho), .callchain = true };

	(void)state;
	add_chains(true, true, false);
	print_report(&o);
	expect_report("# Children      Self  Command  Shared Object  Symbol  \n"
		      "# ........  ........  .......  .............  ........\n"
		      "#\n"
		      "   100.00%     0.00%  hot      hot            [.] main\n"
		      "100.00% main\n"
		      "   100.00%    31.25%  hot      hot            [.] foo\n"
		      "93.75% foo;main\n"
		      "6.25% foo;bar;main\n"
		      "    68.75%    68.75%  hot      hot            [.] bar\n"
		      "62.50% bar;foo;main\n"
		      "6.25% bar;foo;bar;main\n");

	o.graph_value = PCL_GRAPH_PERIOD;
	o.percent_limit = 90;
	print_report(&o);
	expect_report("# Children      Self  Command  Shared Object  Symbol  \n"
		      "# ........  ........  .......  .............  ........\n"
		      "#\n"
		      "   100.00%     0.00%  hot      hot            [.] main\n"
		      "160 main\n"
		      "   100.00%    31.25%  hot      hot            [.] foo\n"
		      "150 foo;main\n"
		      "10 foo;bar;main\n");

	o.graph_value = PCL_GRAPH_COUNT;
	o.graph = PCL_GRAPH_FLAT;
	o.percent_limit = 99;
	print_report(&o);
	expect_report("# Children      Self  Command  Shared Object  Symbol  \n"
		      "# ........  ........  .......  .............  ........\n"
		      "#\n"
		      "   100.00%     0.00%  hot      hot            [.] main\n"
		      "           3\n"
		      "                main\n"
		      "\n"
		      "   100.00%    31.25%  hot      hot            [.] foo\n"
		      "           2\n"
		      "                foo\n"
		      "                main\n"
		      "\n"
		      "           1\n"
		      "                foo\n"
		      "                bar\n"
		      "                main\n"
		      "\n");

	/* an address in no symbol prints as %#llx in a chain */
	cleanup();
	setup_machine(true);
	new_hists(&ho);
	add(PERF_RECORD_MISC_USER, 100, 100, 0, MAIN + 1, chain, 4, 1);
	pcl_hists__finish(fx.h);
	o.children = false;
	o.graph = PCL_GRAPH_FOLDED;
	o.graph_value = PCL_GRAPH_PERCENT;
	o.percent_limit = 0;
	print_report(&o);
	expect_report("# Overhead  Command  Shared Object  Symbol  \n"
		      "# ........  .......  .............  ........\n"
		      "#\n"
		      "   100.00%  hot      hot            [.] main\n"
		      "100.00% main;__libc_start_call_main;0xdead\n");
}

/* An entry whose every chain is under graph_min_percent prints no chain line. */
static void test_report_folded_hidden_leaves(void **state)
{
	struct pcl_report_opts o = { .sz = sizeof(o),
				     .children = true,
				     .graph = PCL_GRAPH_FOLDED,
				     .graph_min_percent = 70 };

	(void)state;
	add_chains(true, true, false);
	print_report(&o);
	/* 70% of 160 is 112: bar's chains (100 and 10) are both under it */
	expect_report("# Children      Self  Command  Shared Object  Symbol  \n"
		      "# ........  ........  .......  .............  ........\n"
		      "#\n"
		      "   100.00%     0.00%  hot      hot            [.] main\n"
		      "100.00% main\n"
		      "   100.00%    31.25%  hot      hot            [.] foo\n"
		      "93.75% foo;main\n"
		      "    68.75%    68.75%  hot      hot            [.] bar\n");
}

static void test_report_errors(void **state)
{
	struct pcl_report_opts o = { .sz = sizeof(o) };
	FILE *ro;

	(void)state;
	setup_flat();
	assert_int_equal(pcl_report__print(NULL, fx.h, &o), -EINVAL);
	assert_int_equal(pcl_report__print(stdout, NULL, &o), -EINVAL);
	assert_int_equal(pcl_report__print(stdout, fx.h, NULL), -EINVAL);
	/* a stream that cannot be written */
	ro = fopen("/dev/null", "r");
	assert_non_null(ro);
	assert_int_equal(pcl_report__print(ro, fx.h, &o), -EIO);
	fclose(ro);
}

static void test_report_count(void **state)
{
	static const struct {
		uint64_t n;
		const char *s;
	} rows[] = {
		{ 0, "0 " },
		{ 39, "39 " },
		{ 999, "999 " },
		{ 1000, "1000 " },
		{ 1001, "1K" },
		{ 1999, "1K" },
		{ 12345, "12K" },
		{ 999999, "999K" },
		{ 1000000, "1000K" },
		{ 1000001, "1000K" },
		{ 1001000, "1M" },
		{ 12345678, "12M" },
		{ 4000000000ULL, "4G" },
		{ 5000000000000ULL, "5000G" },
	};
	char buf[32], row[32];
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		snprintf(row, sizeof(row), "%llu", (unsigned long long)rows[i].n);
		pcl_report__count(buf, sizeof(buf), rows[i].n);
		bad += differ_str(row, "count", buf, rows[i].s);
	}
	assert_int_equal(bad, 0);
}

static void remove_tmpdir(void)
{
	unit_remove_dir(tmpdir);
}

/*
 * -g fractal under a lone root with chains ending in it (perf's [...]): the
 * shares are of the entry, the chains that end in the root the remainder.
 */
static void test_report_fractal_remainder(void **state)
{
	static const uint64_t alone[] = { PERF_CONTEXT_USER, FOO + 0x10 };
	static const uint64_t called[] = { PERF_CONTEXT_USER, FOO + 0x10, MAIN + 0x10 };
	struct pcl_hist_opts ho = { .sz = sizeof(ho), .callchain = true };
	struct pcl_report_opts o = { .sz = sizeof(o), .graph = PCL_GRAPH_REL };

	(void)state;
	setup_machine(true);
	new_hists(&ho);
	add(PERF_RECORD_MISC_USER, 100, 100, 0, FOO + 0x10, alone, 2, 30);
	add(PERF_RECORD_MISC_USER, 100, 100, 0, FOO + 0x10, called, 3, 10);
	pcl_hists__finish(fx.h);
	print_report(&o);
	expect_report("# Overhead  Command  Shared Object  Symbol \n"
		      "# ........  .......  .............  .......\n"
		      "#\n"
		      "   100.00%  hot      hot            [.] foo\n"
		      "            |\n"
		      "            ---foo\n"
		      "               |          \n"
		      "               |--25.00%--main\n"
		      "                --75.00%--[...]\n"
		      "\n");

	/*
	 * counting samples, perf's remainder is the hidden branches': none
	 * here; its '|' stays, as perf decides it by the periods
	 */
	o.graph_value = PCL_GRAPH_COUNT;
	print_report(&o);
	expect_report("# Overhead  Command  Shared Object  Symbol \n"
		      "# ........  .......  .............  .......\n"
		      "#\n"
		      "   100.00%  hot      hot            [.] foo\n"
		      "            |\n"
		      "            ---foo\n"
		      "               |          \n"
		      "               |--1--main\n"
		      "\n");
}

/*
 * Frames with no symbol are told apart by their ip, as perf's: one offset
 * of one DSO at two load addresses (two processes) is two children
 * entries. Such a frame in no map takes the level of the mapped frame
 * before it (the user part of a kernel sample's chain: '.').
 */
static void test_children_unresolved(void **state)
{
	static const uint64_t c1[] = { PERF_CONTEXT_USER, MAIN + 0x10, HOT + 0x3000 };
	static const uint64_t c2[] = { PERF_CONTEXT_USER, 0x501010, 0x503000 };
	static const uint64_t ck[] = { PERF_CONTEXT_KERNEL, KSYSCALL + 0x10, PERF_CONTEXT_USER,
				       MAIN + 0x10, 0x10 };
	struct pcl_hist_opts ho = { .sz = sizeof(ho), .children = true, .callchain = true };
	int unresolved = 0;
	char zero_level = 0;

	(void)state;
	setup_machine(true);
	rec_comm(200, 200, "hot");
	rec_mmap(PERF_RECORD_MISC_USER, 200, 0x500000, 0x10000, 0, "/usr/bin/hot");
	new_hists(&ho);
	add(PERF_RECORD_MISC_USER, 100, 100, 0, MAIN + 0x10, c1, 3, 10);
	add(PERF_RECORD_MISC_USER, 200, 200, 0, 0x501010, c2, 3, 10);
	add(PERF_RECORD_MISC_KERNEL, 100, 100, 0, KSYSCALL + 0x10, ck, 5, 10);
	pcl_hists__finish(fx.h);
	for (size_t i = 0; i < pcl_hists__nr_entries(fx.h); i++) {
		const struct pcl_hist_entry *e = pcl_hists__entry(fx.h, i);

		if (e->frame.sym)
			continue;
		if (e->frame.map)
			unresolved++;
		else if (e->frame.addr == 0x10)
			zero_level = e->frame.level;
	}
	assert_int_equal(unresolved, 2);
	assert_int_equal(zero_level, '.');
}

/* ---- live histograms (pcl top): decay, zero, the pointers they hold ---- */

static char *report_text(void)
{
	struct pcl_report_opts ro = { .sz = sizeof(ro),
				      .graph = PCL_GRAPH_ABS,
				      .children = true,
				      .graph_min_percent = 0.5 };

	print_report(&ro);
	return strdup(fx.out);
}

static bool has_ref(const void **v, size_t n, const void *p)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == p)
			return true;
	return false;
}

static void test_decay(void **state)
{
	char *before, *after;
	const void **refs = NULL;
	size_t nr = 0;

	(void)state;
	add_chains(true, true, false);
	before = report_text();
	/* 1/1 changes nothing, and a second finish gives the same report */
	assert_int_equal(pcl_hists__decay(fx.h, 1, 1), 0);
	pcl_hists__finish(fx.h);
	after = report_text();
	assert_string_equal(after, before);
	free(after);
	free(before);

	/* perf top's 7/8: bar 110 -> 96, foo 50 -> 43; chains 100, 50, 10 -> 87, 43, 8 */
	assert_int_equal(pcl_hists__decay(fx.h, 7, 8), 0);
	assert_int_equal(pcl_hists__total_period(fx.h), 96 + 43);
	pcl_hists__finish(fx.h);
	assert_int_equal(pcl_hists__nr_entries(fx.h), 3);
	assert_int_equal(entry_of("bar")->self, 96);
	assert_int_equal(entry_of("bar")->nr_samples, 1);
	assert_int_equal(entry_of("foo")->self, 43);
	assert_int_equal(entry_of("main")->self, 0);
	/* children from the decayed chains, computed once (not added to the old) */
	assert_int_equal(entry_of("main")->children, 87 + 43 + 8);
	assert_int_equal(entry_of("bar")->children, 87 + 8);
	assert_non_null(entry_of("main")->root);

	/* perf top's rows: only the first n entries are shown, until the next decay */
	pcl_hists__hide_after(fx.h, 1);
	assert_false(pcl_hists__entry(fx.h, 0)->hidden);
	assert_true(pcl_hists__entry(fx.h, 1)->hidden);
	assert_true(pcl_hists__entry(fx.h, 2)->hidden);
	pcl_hists__hide_after(fx.h, 2);
	assert_false(pcl_hists__entry(fx.h, 1)->hidden);
	assert_true(pcl_hists__entry(fx.h, 2)->hidden);
	pcl_hists__hide_after(fx.h, 1);

	/* what the entries point at, for the machine's pruning */
	assert_int_equal(pcl_hists__refs(fx.h, &refs, &nr), 0);
	assert_true(nr >= 2);
	for (size_t i = 1; i < nr; i++)
		assert_true((uintptr_t)refs[i - 1] < (uintptr_t)refs[i]);
	assert_true(has_ref(refs, nr, entry_of("bar")->thread));
	assert_true(has_ref(refs, nr, entry_of("bar")->frame.map));
	free(refs);

	/* a decay shows every entry again; main (no self period) is dropped but readable */
	{
		const struct pcl_hist_entry *gone = entry_of("main");

		assert_int_equal(pcl_hists__decay(fx.h, 1, 1), 0);
		assert_string_equal(gone->frame.sym->name, "main");
		assert_string_equal(gone->comm, "hot");
		assert_int_equal(pcl_hists__refs(fx.h, &refs, &nr), 0);
		assert_true(has_ref(refs, nr, gone->frame.map));
		free(refs);
	}
	pcl_hists__finish(fx.h);
	for (size_t i = 0; i < pcl_hists__nr_entries(fx.h); i++)
		assert_false(pcl_hists__entry(fx.h, i)->hidden);

	/* entries decay away: foo's 43 reaches 0 after enough refreshes */
	for (int i = 0; i < 40; i++)
		assert_int_equal(pcl_hists__decay(fx.h, 7, 8), 0);
	pcl_hists__finish(fx.h);
	assert_int_equal(pcl_hists__nr_entries(fx.h), 0);
	assert_int_equal(pcl_hists__total_period(fx.h), 0);

	/* zeroing (perf top -z), then the histogram takes samples again */
	add(PERF_RECORD_MISC_USER, 100, 100, 0, BAR + 0x10, chain1, 4, 100);
	assert_int_equal(pcl_hists__decay(fx.h, 0, 1), 0);
	assert_int_equal(pcl_hists__nr_entries(fx.h), 0);
	assert_int_equal(pcl_hists__nr_samples(fx.h), 0);
	add(PERF_RECORD_MISC_USER, 100, 100, 0, BAR + 0x10, chain1, 4, 100);
	pcl_hists__finish(fx.h);
	assert_int_equal(pcl_hists__nr_entries(fx.h), 3);
	assert_int_equal(entry_of("main")->children, 100);
	assert_int_equal(pcl_hists__refs(fx.h, &refs, &nr), 0);
	free(refs);

	assert_int_equal(pcl_hists__decay(fx.h, 2, 1), -EINVAL);
	assert_int_equal(pcl_hists__decay(fx.h, 0, 0), -EINVAL);
	assert_int_equal(pcl_hists__decay(NULL, 7, 8), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		UNIT_TEST(test_resolve_user),
		UNIT_TEST(test_resolve_kernel),
		UNIT_TEST(test_resolve_chain),
		UNIT_TEST(test_resolve_no_symbols),
		UNIT_TEST(test_resolve_memo),
		UNIT_TEST(test_resolve_memo_limits),
		UNIT_TEST(test_hist_chain_ids),
		UNIT_TEST(test_tree_wide),
		UNIT_TEST(test_tree_wide_children),
		UNIT_TEST(test_hist_flat),
		UNIT_TEST(test_hist_keys),
		UNIT_TEST(test_children),
		UNIT_TEST(test_children_caller),
		UNIT_TEST(test_children_no_callchain),
		UNIT_TEST(test_callchain_no_children),
		UNIT_TEST(test_children_without_chains),
		UNIT_TEST(test_tree_min_percent),
		UNIT_TEST(test_recursion),
		UNIT_TEST(test_tree_merged),
		UNIT_TEST(test_hist_srcline),
		UNIT_TEST(test_sort_keys_parse),
		UNIT_TEST(test_hists_null),
		UNIT_TEST(test_report_flat),
		UNIT_TEST(test_report_keys),
		UNIT_TEST(test_report_zero_address),
		UNIT_TEST(test_report_zero_address_width),
		UNIT_TEST(test_report_children_graph),
		UNIT_TEST(test_report_deep_graph),
		UNIT_TEST(test_ties_perf_order),
		UNIT_TEST(test_report_self_graph),
		UNIT_TEST(test_report_folded),
		UNIT_TEST(test_report_errors),
		UNIT_TEST(test_report_count),
		UNIT_TEST(test_report_fractal_remainder),
		UNIT_TEST(test_children_unresolved),
		/* last: under UBSan it stops the run while report.c passes qsort a NULL */
		UNIT_TEST(test_report_folded_hidden_leaves),
			UNIT_TEST(test_decay),
	};
	int ret;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/pcl-test-hist-XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	unit_cleanup = cleanup;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	remove_tmpdir();
	return ret;
}
