/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the frame-pointer leaf repair (lib/analysis/fpleaf.c).
 *
 * The code is this binary's own: three functions in assembly with their
 * CFI, as a compiler lays them out,
 *
 *   fpl_outer  rbp-based frame, calls fpl_frame       (return: fpl_outer_ret)
 *   fpl_frame  rbp-based frame, calls fpl_leaf twice  (returns: fpl_frame_ret, _ret2)
 *   fpl_leaf   no frame: pushes rbx, so its CFA is rsp+16 and its return
 *              address is 8 bytes above the SP (at fpl_leaf_body)
 *   fpl_nocfi  no CFI at all
 *
 * and a machine whose process 100 maps this binary where it is mapped, so
 * that samples can be made by hand: a sample in fpl_leaf_body gets from
 * the kernel the chain [fpl_leaf_body, fpl_outer_ret] (rbp is still
 * fpl_frame's), and a stack copy whose second word is fpl_frame_ret.
 */
#include "unit.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <pcl/analysis.h>
#include <pcl/machine.h>
#include <pcl/symbol.h>
#include <linux/perf_event.h>

#include "analysis/fpleaf.h"

/* Never run: only their addresses and CFI matter. */
__asm__(".text\n"
	"	.globl fpl_leaf, fpl_frame, fpl_outer\n"
	"	.type fpl_leaf, @function\n"
	"fpl_leaf:\n"
	"	.cfi_startproc\n"
	"	push %rbx\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	.cfi_offset %rbx, -16\n"
	"	/* fpl_leaf_body */\n"
	"	nop\n"
	"	pop %rbx\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	ret\n"
	"	.cfi_endproc\n"
	"	.size fpl_leaf, .-fpl_leaf\n"
	"	.type fpl_frame, @function\n"
	"fpl_frame:\n"
	"	.cfi_startproc\n"
	"	push %rbp\n"
	"	.cfi_def_cfa_offset 16\n"
	"	.cfi_offset %rbp, -16\n"
	"	mov %rsp, %rbp\n"
	"	.cfi_def_cfa_register %rbp\n"
	"	/* fpl_frame_body */\n"
	"	call fpl_leaf\n"
	"	/* fpl_frame_ret */\n"
	"	call fpl_leaf\n"
	"	/* fpl_frame_ret2 */\n"
	"	pop %rbp\n"
	"	.cfi_def_cfa %rsp, 8\n"
	"	ret\n"
	"	.cfi_endproc\n"
	"	.size fpl_frame, .-fpl_frame\n"
	"	.type fpl_outer, @function\n"
	"fpl_outer:\n"
	"	.cfi_startproc\n"
	"	push %rbp\n"
	"	.cfi_def_cfa_offset 16\n"
	"	.cfi_offset %rbp, -16\n"
	"	mov %rsp, %rbp\n"
	"	.cfi_def_cfa_register %rbp\n"
	"	call fpl_frame\n"
	"	/* fpl_outer_ret */\n"
	"	pop %rbp\n"
	"	.cfi_def_cfa %rsp, 8\n"
	"	ret\n"
	"	.cfi_endproc\n"
	"	.size fpl_outer, .-fpl_outer\n"
	"	.globl fpl_nocfi\n"
	"	.type fpl_nocfi, @function\n"
	"fpl_nocfi:\n"
	"	nop\n"
	"	ret\n"
	"	.size fpl_nocfi, .-fpl_nocfi\n");

extern const char fpl_leaf[], fpl_frame[], fpl_outer[], fpl_nocfi[];

/*
 * The places named in the comments above, by their offsets in the code
 * (push %rbx/%rbp: 1 byte, mov %rsp,%rbp: 3, call: 5): labels would be
 * symbols of their own.
 */
#define fpl_leaf_body  (fpl_leaf + 1)
#define fpl_frame_body (fpl_frame + 4)
#define fpl_frame_ret  (fpl_frame + 9)
#define fpl_frame_ret2 (fpl_frame + 14)
#define fpl_outer_ret  (fpl_outer + 9)

#define A(sym)	 ((uint64_t)(uintptr_t)(sym))
#define KADDR	 0xffffffff81001000ULL
#define COPY_MAX 64

static struct fx {
	struct pcl_machine *m;
	struct pcl_symbols *syms;
	struct pcl_resolver *r;
	struct fpleaf *fl;
	uint64_t chain[8];
	uint64_t stack[COPY_MAX / 8];
	struct pcl_record rec;
	struct pcl_resolved rs; /* what a test resolved, */
	uint64_t ips[8];	/* and its chain's ips */
} fx;

/* Process 100 maps this binary's file mappings where they are mapped here. */
static void map_self(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512], exe[512];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int nr = 0;

	assert_non_null(f);
	assert_true(n > 0);
	exe[n] = '\0';
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		char path[256] = "";
		struct pcl_record r = { .type = PERF_RECORD_MMAP2, .misc = PERF_RECORD_MISC_USER };

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %255s", &s, &e, &off, path) < 4 ||
		    strcmp(path, exe))
			continue;
		r.mmap.pid = r.mmap.tid = 100;
		r.mmap.addr = s;
		r.mmap.len = e - s;
		r.mmap.pgoff = off;
		r.mmap.prot = PROT_READ | PROT_EXEC;
		r.mmap.filename = path;
		assert_int_equal(pcl_machine__process(fx.m, &r), 0);
		nr++;
	}
	fclose(f);
	assert_true(nr > 0);
}

static int setup(void **state)
{
	struct pcl_record c = { .type = PERF_RECORD_COMM, .misc = PERF_RECORD_MISC_COMM_EXEC };

	unit_watchdog_arm(state);
	memset(&fx, 0, sizeof(fx));
	fx.m = pcl_machine__new();
	assert_non_null(fx.m);
	c.comm.pid = c.comm.tid = 100;
	c.comm.comm = "fpl";
	assert_int_equal(pcl_machine__process(fx.m, &c), 0);
	map_self();
	fx.syms = pcl_symbols__new(NULL);
	assert_non_null(fx.syms);
	fx.r = pcl_resolver__new(fx.m, fx.syms);
	assert_non_null(fx.r);
	return 0;
}

static int teardown(void **state)
{
	unit_watchdog_disarm(state);
	fpleaf_free(fx.fl);
	pcl_resolver__free(fx.r);
	pcl_symbols__free(fx.syms);
	pcl_machine__free(fx.m);
	memset(&fx, 0, sizeof(fx));
	return 0;
}

/*
 * fx.rec: a -g sample (misc @misc, ip @ip) with the raw chain @chain (@n
 * entries, markers included) and a stack copy of @dyn valid bytes whose
 * word i is @words[i] (@nw of them).
 */
static void make(uint16_t misc, uint64_t ip, const uint64_t *chain, size_t n, const uint64_t *words,
		 size_t nw, uint64_t dyn)
{
	struct pcl_sample *s = &fx.rec.sample;

	assert_true(n <= 8 && nw <= COPY_MAX / 8 && dyn <= COPY_MAX);
	memset(&fx.rec, 0, sizeof(fx.rec));
	memset(fx.stack, 0, sizeof(fx.stack));
	memcpy(fx.chain, chain, n * sizeof(*chain));
	memcpy(fx.stack, words, nw * sizeof(*words));
	fx.rec.type = PERF_RECORD_SAMPLE;
	fx.rec.misc = misc;
	s->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD |
			 PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_STACK_USER;
	s->ip = ip;
	s->pid = s->tid = 100;
	s->period = 1;
	s->nr_callchain = n;
	s->callchain = fx.chain;
	s->user_stack_size = COPY_MAX;
	s->user_stack = fx.stack;
	s->user_stack_dyn_size = dyn;
}

/* A user sample in fpl_leaf_body with the kernel's chain and a copy of @dyn bytes. */
static void make_leaf(uint64_t ra, uint64_t dyn)
{
	const uint64_t chain[] = { PERF_CONTEXT_USER, A(fpl_leaf_body), A(fpl_outer_ret) };
	const uint64_t words[] = { 0x1234 /* saved rbx */, ra, 0 };

	make(PERF_RECORD_MISC_USER, A(fpl_leaf_body), chain, 3, words, 3, dyn);
}

/*
 * Resolve fx.rec without the repair (as a perf file would be), then
 * repair it with fx.fl: the chain's ips into @ips, its length returned.
 */
static size_t repair(struct pcl_resolved *rs, uint64_t *ips)
{
	uint64_t type = fx.rec.sample.sample_type;

	fx.rec.sample.sample_type &= ~(uint64_t)PERF_SAMPLE_STACK_USER;
	assert_int_equal(pcl_resolver__sample(fx.r, &fx.rec, rs), 0);
	fx.rec.sample.sample_type = type;
	assert_int_equal(fpleaf_repair(&fx.fl, fx.r, fx.syms, &fx.rec, rs), 0);
	for (size_t i = 0; i < rs->nr_chain; i++)
		ips[i] = rs->chain[i].ip;
	return rs->nr_chain;
}

/* make_leaf(@ra, @dyn), then repair(). */
static size_t repair_leaf(uint64_t ra, uint64_t dyn, struct pcl_resolved *rs, uint64_t *ips)
{
	make_leaf(ra, dyn);
	return repair(rs, ips);
}

static const char *sym(const struct pcl_frame *f)
{
	return f->sym ? f->sym->name : "?";
}

/* The leaf's caller, 8 bytes above the SP, goes between the leaf and fpl_outer. */
static void test_repair(void **state)
{
	(void)state;
	assert_int_equal(repair_leaf(A(fpl_frame_ret), 24, &fx.rs, fx.ips), 3);
	assert_true(fx.ips[0] == A(fpl_leaf_body));
	assert_true(fx.ips[1] == A(fpl_frame_ret));
	assert_true(fx.ips[2] == A(fpl_outer_ret));
	assert_string_equal(sym(&fx.rs.chain[0]), "fpl_leaf");
	assert_string_equal(sym(&fx.rs.chain[1]), "fpl_frame");
	assert_string_equal(sym(&fx.rs.chain[2]), "fpl_outer");
	assert_int_equal(fx.rs.chain[1].level, '.');
	assert_non_null(fx.rs.chain[1].map);
	assert_int_equal(fpleaf_stats(fx.fl)->samples, 1);
	assert_int_equal(fpleaf_stats(fx.fl)->repaired, 1);
}

/* Through the resolver's own hook, with chain ids that tell repaired chains apart. */
static void test_resolver_hook(void **state)
{
	struct pcl_resolved a, b, c;
	struct pcl_fpleaf_stats st;

	(void)state;
	make_leaf(A(fpl_frame_ret), 24);
	assert_int_equal(pcl_resolver__sample(fx.r, &fx.rec, &a), 0);
	assert_int_equal(a.nr_chain, 3);
	assert_string_equal(sym(&a.chain[1]), "fpl_frame");
	assert_true(a.chain[1].ip == A(fpl_frame_ret));
	/* the same raw chain from the other call site: another inserted address, another id */
	make_leaf(A(fpl_frame_ret2), 24);
	assert_int_equal(pcl_resolver__sample(fx.r, &fx.rec, &b), 0);
	assert_int_equal(b.nr_chain, 3);
	assert_true(b.chain[1].ip == A(fpl_frame_ret2));
	assert_true(a.chain_id != 0 && b.chain_id != 0);
	assert_true(a.chain_id != b.chain_id);
	/* the first one again: its id again */
	make_leaf(A(fpl_frame_ret), 24);
	assert_int_equal(pcl_resolver__sample(fx.r, &fx.rec, &c), 0);
	assert_true(c.chain_id == a.chain_id);
	assert_true(c.chain[1].ip == A(fpl_frame_ret));
	/* what pcl report --stats prints */
	pcl_resolver__fpleaf_stats(fx.r, &st);
	assert_int_equal(st.samples, 3);
	assert_int_equal(st.repaired, 3);
}

/* An rbp-based frame: the kernel's chain is right, nothing is inserted. */
static void test_rbp_based(void **state)
{
	const uint64_t chain[] = { PERF_CONTEXT_USER, A(fpl_frame_body), A(fpl_outer_ret) };
	const uint64_t words[] = { 0x5555, A(fpl_frame_ret), A(fpl_frame_ret) };

	(void)state;
	make(PERF_RECORD_MISC_USER, A(fpl_frame_body), chain, 3, words, 3, 24);
	assert_int_equal(repair(&fx.rs, fx.ips), 2);
	assert_true(fx.ips[1] == A(fpl_outer_ret));
	assert_int_equal(fpleaf_stats(fx.fl)->rbp_based, 1);
	assert_int_equal(fpleaf_stats(fx.fl)->repaired, 0);
}

/* The return address is already right after the leaf: no second copy of it. */
static void test_no_duplicate(void **state)
{
	const uint64_t chain[] = { PERF_CONTEXT_USER, A(fpl_leaf_body), A(fpl_frame_ret),
				   A(fpl_outer_ret) };
	const uint64_t words[] = { 0x1234, A(fpl_frame_ret) };

	(void)state;
	make(PERF_RECORD_MISC_USER, A(fpl_leaf_body), chain, 4, words, 2, 16);
	assert_int_equal(repair(&fx.rs, fx.ips), 3);
	assert_true(fx.ips[1] == A(fpl_frame_ret) && fx.ips[2] == A(fpl_outer_ret));
	assert_int_equal(fpleaf_stats(fx.fl)->present, 1);
	assert_int_equal(fpleaf_stats(fx.fl)->repaired, 0);
}

/* A copy that ends before the return address: left alone, and the size it needed counted. */
static void test_truncated(void **state)
{
	(void)state;
	assert_int_equal(repair_leaf(A(fpl_frame_ret), 8, &fx.rs, fx.ips), 2);
	assert_true(fx.ips[1] == A(fpl_outer_ret));
	assert_int_equal(fpleaf_stats(fx.fl)->too_small, 1);
	assert_int_equal(fpleaf_stats(fx.fl)->max_needed, 16);
	/* exactly enough */
	assert_int_equal(repair_leaf(A(fpl_frame_ret), 16, &fx.rs, fx.ips), 3);
	/* nothing copied (a kernel thread, an unreadable stack) */
	assert_int_equal(repair_leaf(A(fpl_frame_ret), 0, &fx.rs, fx.ips), 2);
	assert_int_equal(fpleaf_stats(fx.fl)->repaired, 1);
}

/* A sample in the kernel: the leaf is the first user entry, after the kernel's. */
static void test_kernel_sample(void **state)
{
	const uint64_t chain[] = { PERF_CONTEXT_KERNEL, KADDR,
				   KADDR + 0x10,	PERF_CONTEXT_USER,
				   A(fpl_leaf_body),	A(fpl_outer_ret) };
	const uint64_t words[] = { 0x1234, A(fpl_frame_ret) };

	(void)state;
	make(PERF_RECORD_MISC_KERNEL, KADDR, chain, 6, words, 2, 64);
	assert_int_equal(repair(&fx.rs, fx.ips), 5);
	assert_true(fx.ips[2] == A(fpl_leaf_body));
	assert_true(fx.ips[3] == A(fpl_frame_ret));
	assert_true(fx.ips[4] == A(fpl_outer_ret));
	assert_string_equal(sym(&fx.rs.chain[3]), "fpl_frame");
}

/* perf's files (no stack copy) and DWARF samples (registers too) are not touched. */
static void test_not_for_others(void **state)
{
	(void)state;
	make_leaf(A(fpl_frame_ret), 24);
	fx.rec.sample.sample_type &= ~(uint64_t)PERF_SAMPLE_STACK_USER;
	assert_int_equal(repair(&fx.rs, fx.ips), 2);
	make_leaf(A(fpl_frame_ret), 24);
	fx.rec.sample.sample_type |= PERF_SAMPLE_REGS_USER;
	assert_int_equal(repair(&fx.rs, fx.ips), 2);
	/* a chain the resolver dropped (an unknown context marker) */
	make_leaf(A(fpl_frame_ret), 24);
	fx.chain[2] = PERF_CONTEXT_MAX + 7;
	assert_int_equal(repair(&fx.rs, fx.ips), 0);
	assert_int_equal(fpleaf_stats(fx.fl)->repaired, 0);
	assert_int_equal(fpleaf_stats(fx.fl)->samples, 0);
}

/* A leaf in no map: counted, left alone. */
static void test_unmapped_leaf(void **state)
{
	const uint64_t chain[] = { PERF_CONTEXT_USER, 0x1000, A(fpl_outer_ret) };
	const uint64_t words[] = { A(fpl_frame_ret) };

	(void)state;
	make(PERF_RECORD_MISC_USER, 0x1000, chain, 3, words, 1, 8);
	assert_int_equal(repair(&fx.rs, fx.ips), 2);
	assert_int_equal(fpleaf_stats(fx.fl)->no_cfi, 1);
}

/* UNIT_TEST's watchdog, with the fixture */
/* A leaf without CFI: nobody can say where its return address is. */
static void test_no_cfi(void **state)
{
	const uint64_t chain[] = { PERF_CONTEXT_USER, A(fpl_nocfi), A(fpl_outer_ret) };
	const uint64_t words[] = { A(fpl_frame_ret), A(fpl_frame_ret) };

	(void)state;
	make(PERF_RECORD_MISC_USER, A(fpl_nocfi), chain, 3, words, 2, 16);
	assert_int_equal(repair(&fx.rs, fx.ips), 2);
	assert_int_equal(fpleaf_stats(fx.fl)->no_cfi, 1);
	/* the answer is kept: the second sample does not ask libdw again, and gets the same */
	assert_int_equal(repair(&fx.rs, fx.ips), 2);
	assert_int_equal(fpleaf_stats(fx.fl)->no_cfi, 2);
	assert_int_equal(fpleaf_stats(fx.fl)->repaired, 0);
}

#define T(fn)                                                                                      \
	{                                                                                          \
#fn, fn, setup, teardown, (void *)#fn                                              \
	}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_repair),		T(test_resolver_hook), T(test_rbp_based),
		T(test_no_duplicate),	T(test_truncated),     T(test_kernel_sample),
		T(test_not_for_others), T(test_unmapped_leaf), T(test_no_cfi),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
