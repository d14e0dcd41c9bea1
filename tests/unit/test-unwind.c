/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the DWARF unwinder (lib/symbol/unwind.c) on this process's
 * own stack: a chain a() -> b() -> c() built without frame pointers, where
 * c() takes a snapshot of its registers and copies its stack the way
 * PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER would. The unwinder must
 * find c's IP, then the return addresses each function saw with
 * __builtin_return_address(0), then the test's callers down to _start.
 * Then the early stops: a truncated copy (with the bytes that would have
 * been enough), an IP or a caller in no mapping, the depth limit, no
 * registers; and the cache: the same sample again reports no new module.
 *
 * Last, the oracle: perf records the hot workload built without frame
 * pointers (tests/workloads/hot-nofp) with --call-graph dwarf, and every
 * sample's user chain, unwound here from the file's registers and stack
 * copies, must equal the one `perf script` prints for it.
 */
#include "unit.h"

#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <ucontext.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <time.h>
#include <sys/mman.h>
#include <elfutils/libdwelf.h>
#include <gelf.h>
#include <pcl/data.h>
#include <asm/perf_regs.h>
#include <linux/perf_event.h>

#include "symbol/unwind.h"
#include "unwind-snap.h"

#define MAX_MAPS  512
#define STACK_MAX (256 * 1024)
#define DEPTH	  64

static struct map_ent maps[MAX_MAPS];
static unsigned int nr_maps;

/* This process's mappings, from /proc/self/maps. */
static void load_maps(void)
{
	nr_maps = unwind_snap_maps(maps, MAX_MAPS);
	assert_true(nr_maps > 0);
}

static const struct map_ent *find_ent(uint64_t addr)
{
	for (unsigned int i = 0; i < nr_maps; i++)
		if (addr >= maps[i].start && addr < maps[i].end)
			return &maps[i];
	return NULL;
}

/* This process's vDSO image: the same kernel's as the workloads' ones. */
static const void *vdso_image(size_t *size)
{
	uint64_t base = getauxval(AT_SYSINFO_EHDR);
	const struct map_ent *e = base ? find_ent(base) : NULL;

	if (!e || e->start != base || strcmp(e->path, "[vdso]"))
		return NULL;
	*size = e->end - e->start;
	return (const void *)base;
}

/* The find_map callback: @arg, when set, is a path substring to hide. */
static int find_map(void *arg, uint64_t addr, struct unwind_map *m)
{
	const struct map_ent *e = find_ent(addr);

	if (!e || (arg && strstr(e->path, (const char *)arg)))
		return -ENOENT;
	m->path = e->path;
	m->start = e->start;
	m->end = e->end;
	m->pgoff = e->pgoff;
	return 0;
}

/* One sample: perf's register layout and the stack copy. */
enum { R_BX, R_BP, R_SP, R_IP, R_R12, R_R13, R_R14, R_R15, NR_R };
static const uint64_t sample_mask = (1ULL << PERF_REG_X86_BX) | (1ULL << PERF_REG_X86_BP) |
				    (1ULL << PERF_REG_X86_SP) | (1ULL << PERF_REG_X86_IP) |
				    (1ULL << PERF_REG_X86_R12) | (1ULL << PERF_REG_X86_R13) |
				    (1ULL << PERF_REG_X86_R14) | (1ULL << PERF_REG_X86_R15);

struct snap {
	uint64_t regs[NR_R];	   /* in perf's bit order: the mask above packs them so */
	uint64_t ra_c, ra_b, ra_a; /* what each function's return address was */
	uint8_t stack[STACK_MAX];
	uint64_t size;
};

static struct snap snap;

#define NOFP __attribute__((noipa, optimize("omit-frame-pointer")))

NOFP static int c(struct snap *s)
{
	const struct map_ent *st;
	uint64_t *r = s->regs;

	UNWIND_SNAP_REGS(r);
	s->ra_c = (uint64_t)__builtin_return_address(0);
	st = find_ent(r[R_SP]);
	s->size = st ? st->end - r[R_SP] : 0;
	if (s->size > STACK_MAX)
		s->size = STACK_MAX;
	unwind_snap_copy(s->stack, r[R_SP], s->size);
	return (int)s->size;
}

NOFP static int b(struct snap *s)
{
	int v = c(s);

	s->ra_b = (uint64_t)__builtin_return_address(0);
	return v + 1;
}

NOFP static int a(struct snap *s)
{
	int v = b(s);

	s->ra_a = (uint64_t)__builtin_return_address(0);
	return v + 1;
}

static void take_snapshot(void)
{
	load_maps();
	assert_true(a(&snap) > 0);
	load_maps(); /* the same, unless a library was loaded in between */
}

static struct unwind_space space_of(uint64_t id, void *hide)
{
	return (struct unwind_space){ .id = id, .find_map = find_map, .arg = hide };
}

static int unwind(struct unwinder *uw, const struct unwind_space *as, const uint64_t *regs,
		  uint64_t size, uint64_t *ips, unsigned int max, struct unwind_result *res)
{
	struct unwind_regs r = { .abi = PERF_SAMPLE_REGS_ABI_64,
				 .mask = sample_mask,
				 .regs = regs };
	struct unwind_stack st = { .data = snap.stack, .size = size, .sp = regs[R_SP] };

	return unwind_sample(uw, as, &r, &st, ips, max, res);
}

static bool in_file(uint64_t addr, const char *name)
{
	const struct map_ent *e = find_ent(addr);

	return e && strstr(e->path, name);
}

static void test_full_chain(void **state)
{
	struct unwinder *uw = unwinder_new();
	struct unwind_space as = space_of(1, NULL);
	struct unwind_result res;
	uint64_t ips[DEPTH];
	bool libc = false;

	(void)state;
	assert_non_null(uw);
	take_snapshot();
	assert_int_equal(unwind(uw, &as, snap.regs, snap.size, ips, DEPTH, &res), 0);
	for (unsigned int i = 0; i < res.nr; i++) {
		const struct map_ent *e = find_ent(ips[i]);

		print_message("# %2u %#" PRIx64 " %s\n", i, ips[i], e ? e->path : "?");
		libc |= in_file(ips[i], "libc.so");
	}
	assert_int_equal(res.status, UNWIND_COMPLETE);
	assert_true(res.nr > 4);
	assert_int_equal(ips[0], snap.regs[R_IP]);
	assert_int_equal(ips[1], snap.ra_c);
	assert_int_equal(ips[2], snap.ra_b);
	assert_int_equal(ips[3], snap.ra_a);
	/* The outer frames: cmocka's runner, main, then libc's start code. */
	assert_true(libc);
	assert_true(in_file(ips[res.nr - 1], "test-unwind") || in_file(ips[res.nr - 1], "libc.so"));
	unwinder_free(uw);
}

/* A short copy stops with the bytes that would have been enough; given them, it goes on. */
static void test_stack_too_small(void **state)
{
	struct unwinder *uw = unwinder_new();
	struct unwind_space as = space_of(1, NULL);
	struct unwind_result res;
	uint64_t ips[DEPTH], size = 0;
	unsigned int prev_nr = 0, rounds = 0;

	(void)state;
	take_snapshot();
	for (;;) {
		assert_int_equal(unwind(uw, &as, snap.regs, size, ips, DEPTH, &res), 0);
		print_message("# size %" PRIu64 ": %s, %u frames, needed %" PRIu64 "\n", size,
			      unwind_status_name(res.status), res.nr, res.needed);
		if (res.status != UNWIND_STACK_TOO_SMALL)
			break;
		/* The frames found before the stop are kept, and are right. */
		assert_true(res.nr >= 1);
		assert_int_equal(ips[0], snap.regs[R_IP]);
		if (res.nr > 1)
			assert_int_equal(ips[1], snap.ra_c);
		assert_true(res.needed > size);
		assert_true(res.needed <= snap.size);
		assert_true(res.nr >= prev_nr);
		prev_nr = res.nr;
		size = res.needed;
		rounds++;
		assert_true(rounds < 1000);
	}
	assert_true(rounds >= 2); /* at least: c's return address, then b's */
	assert_int_equal(res.status, UNWIND_COMPLETE);
	assert_int_equal(unwinder_stats(uw)->status[UNWIND_STACK_TOO_SMALL], rounds);
	assert_true(unwinder_stats(uw)->max_needed <= size);
	unwinder_free(uw);
}

static void test_not_mapped(void **state)
{
	struct unwinder *uw = unwinder_new();
	struct unwind_space as = space_of(1, NULL), hidden = space_of(2, (void *)"libcmocka");
	struct unwind_result res;
	uint64_t ips[DEPTH], regs[NR_R];

	(void)state;
	take_snapshot();
	/* An IP in no mapping, on a fresh space (nothing reported yet) and on a used one. */
	memcpy(regs, snap.regs, sizeof(regs));
	regs[R_IP] = 0x10;
	assert_int_equal(unwind(uw, &as, regs, snap.size, ips, DEPTH, &res), 0);
	assert_int_equal(res.status, UNWIND_NOT_MAPPED);
	assert_int_equal(res.nr, 1);
	assert_int_equal(ips[0], 0x10);
	assert_int_equal(unwind(uw, &as, snap.regs, snap.size, ips, DEPTH, &res), 0);
	assert_int_equal(res.status, UNWIND_COMPLETE);
	assert_int_equal(unwind(uw, &as, regs, snap.size, ips, DEPTH, &res), 0);
	assert_int_equal(res.status, UNWIND_NOT_MAPPED);
	assert_int_equal(res.nr, 1);

	/* A caller in a file the map set does not know: the chain stops there. */
	assert_int_equal(unwind(uw, &hidden, snap.regs, snap.size, ips, DEPTH, &res), 0);
	assert_int_equal(res.status, UNWIND_NOT_MAPPED);
	assert_true(res.nr > 4);
	assert_int_equal(ips[3], snap.ra_a);
	assert_true(in_file(ips[res.nr - 1], "libcmocka"));
	for (unsigned int i = 0; i + 1 < res.nr; i++)
		assert_false(in_file(ips[i], "libcmocka"));
	unwinder_free(uw);
}

static void test_max_depth(void **state)
{
	struct unwinder *uw = unwinder_new();
	struct unwind_space as = space_of(1, NULL);
	struct unwind_result res;
	uint64_t ips[DEPTH];

	(void)state;
	take_snapshot();
	assert_int_equal(unwind(uw, &as, snap.regs, snap.size, ips, 3, &res), 0);
	assert_int_equal(res.status, UNWIND_MAX_DEPTH);
	assert_int_equal(res.nr, 3);
	assert_int_equal(ips[2], snap.ra_b);
	assert_int_equal(unwind(uw, &as, snap.regs, snap.size, NULL, 0, &res), 0);
	assert_int_equal(res.status, UNWIND_MAX_DEPTH);
	assert_int_equal(res.nr, 0);
	unwinder_free(uw);
}

static void test_no_regs(void **state)
{
	struct unwinder *uw = unwinder_new();
	struct unwind_space as = space_of(1, NULL);
	struct unwind_regs r = { .abi = PERF_SAMPLE_REGS_ABI_NONE };
	struct unwind_stack st = { .data = snap.stack, .size = 0 };
	struct unwind_result res;
	uint64_t ips[DEPTH];

	(void)state;
	assert_int_equal(unwind_sample(uw, &as, &r, &st, ips, DEPTH, &res), 0);
	assert_int_equal(res.status, UNWIND_NO_REGS);
	assert_int_equal(res.nr, 0);
	/* 64-bit, but no SP */
	r.abi = PERF_SAMPLE_REGS_ABI_64;
	r.mask = 1ULL << PERF_REG_X86_IP;
	r.regs = snap.regs;
	assert_int_equal(unwind_sample(uw, &as, &r, &st, ips, DEPTH, &res), 0);
	assert_int_equal(res.status, UNWIND_NO_REGS);
	/* misuse */
	assert_int_equal(unwind_sample(uw, NULL, &r, &st, ips, DEPTH, &res), -EINVAL);
	assert_int_equal(unwind_sample(NULL, &as, &r, &st, ips, DEPTH, &res), -EINVAL);
	assert_string_equal(unwind_status_name(UNWIND_STACK_TOO_SMALL), "stack copy too small");
	unwinder_free(uw);
}

/* The second sample of a space reports no module again; a new generation rebuilds. */
static void test_cache(void **state)
{
	struct unwinder *uw = unwinder_new();
	struct unwind_space as = space_of(7, NULL);
	const struct unwind_stats *stats = unwinder_stats(uw);
	struct unwind_result res;
	uint64_t ips[DEPTH], modules;
	struct timespec t0, t1;

	(void)state;
	take_snapshot();
	assert_int_equal(unwind(uw, &as, snap.regs, snap.size, ips, DEPTH, &res), 0);
	assert_int_equal(res.status, UNWIND_COMPLETE);
	modules = stats->modules;
	assert_true(modules >= 2); /* this test, libcmocka, libc */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < 1000; i++) {
		assert_int_equal(unwind(uw, &as, snap.regs, snap.size, ips, DEPTH, &res), 0);
		assert_int_equal(res.status, UNWIND_COMPLETE);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* Printed, not asserted: the cost of a cached unwind of a ~10-frame chain. */
	print_message("# 1000 cached unwinds of %u frames: %.1f us each\n", res.nr,
		      ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 1e6);
	assert_int_equal(stats->modules, modules);
	assert_int_equal(stats->dwfl_builds, 1);
	assert_int_equal(stats->samples, 1001);
	assert_int_equal(stats->status[UNWIND_COMPLETE], 1001);
	as.generation++;
	assert_int_equal(unwind(uw, &as, snap.regs, snap.size, ips, DEPTH, &res), 0);
	assert_int_equal(res.status, UNWIND_COMPLETE);
	assert_int_equal(stats->dwfl_builds, 2);
	assert_int_equal(stats->modules, 2 * modules);
	/* What perf pays: a new Dwfl for every sample (printed, not asserted). */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < 100; i++) {
		as.generation++;
		assert_int_equal(unwind(uw, &as, snap.regs, snap.size, ips, DEPTH, &res), 0);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	print_message("# 100 unwinds, each with a new Dwfl: %.1f us each\n",
		      ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 1e5);
	/* More spaces than the cache holds: the oldest is dropped, and all still unwind. */
	for (uint64_t id = 100; id < 140; id++) {
		struct unwind_space other = space_of(id, NULL);

		assert_int_equal(unwind(uw, &other, snap.regs, snap.size, ips, DEPTH, &res), 0);
		assert_int_equal(res.status, UNWIND_COMPLETE);
	}
	unwinder_free(uw);
}

/* What find_map_with adds to the process's mappings. */
struct map_extra {
	bool vdso;	    /* give the [vdso] mapping this process's image */
	const uint8_t *bid; /* this build id for the test binary's mappings */
	size_t bid_size;
};

static int find_map_with(void *arg, uint64_t addr, struct unwind_map *m)
{
	const struct map_extra *x = arg;
	char exe[PATH_MAX];
	ssize_t n;
	int ret = find_map(NULL, addr, m);

	if (ret)
		return ret;
	if (x->vdso && !strcmp(m->path, "[vdso]"))
		m->image = vdso_image(&m->image_size);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (x->bid && n > 0) {
		exe[n] = 0;
		if (!strcmp(m->path, exe)) {
			m->build_id = x->bid;
			m->build_id_size = x->bid_size;
		}
	}
	return 0;
}

/* The address of the vDSO's @name, from its dynamic symbols. */
static uint64_t vdso_sym(const void *image, size_t size, const char *name)
{
	Elf *elf = elf_memory((char *)image, size);
	uint64_t base = (uint64_t)image, load = UINT64_MAX, addr = 0;
	Elf_Scn *scn = NULL;
	size_t nph = 0;
	GElf_Phdr ph;

	assert_non_null(elf);
	assert_int_equal(elf_getphdrnum(elf, &nph), 0);
	for (size_t i = 0; i < nph; i++)
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_vaddr < load)
			load = ph.p_vaddr;
	while ((scn = elf_nextscn(elf, scn)) && !addr) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *nm;

			if (!gelf_getsym(d, (int)i, &sym))
				continue;
			nm = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (nm && !strcmp(nm, name) && sym.st_value)
				addr = base + sym.st_value - load;
		}
	}
	elf_end(elf);
	return addr;
}

/*
 * A sample in the vDSO: c() "calls" __vdso_clock_gettime and the sample
 * lands on its first instruction (return address on top of the stack).
 * With the image the unwinder goes through it to c, b, a; without, the
 * vDSO is no file and the chain stops there, not mapped.
 */
static void test_vdso(void **state)
{
	static uint8_t vstack[8 + STACK_MAX];
	struct unwinder *uw = unwinder_new();
	struct map_extra with = { .vdso = true }, without = { 0 };
	struct unwind_space as = { .id = 1, .find_map = find_map_with, .arg = &with };
	struct unwind_space bare = { .id = 2, .find_map = find_map_with, .arg = &without };
	struct unwind_regs r = { .abi = PERF_SAMPLE_REGS_ABI_64, .mask = sample_mask };
	struct unwind_stack st = { .data = vstack };
	struct unwind_result res;
	uint64_t regs[NR_R], ips[DEPTH], fn;
	const void *image;
	size_t size = 0;

	(void)state;
	take_snapshot();
	image = vdso_image(&size);
	assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
	if (!image) {
		print_message("# skip: no vDSO in this process\n");
		unwinder_free(uw);
		skip();
	}
	fn = vdso_sym(image, size, "__vdso_clock_gettime");
	assert_true(fn > (uint64_t)image && fn < (uint64_t)image + size);
	memcpy(regs, snap.regs, sizeof(regs));
	regs[R_IP] = fn;
	regs[R_SP] = snap.regs[R_SP] - 8;
	memcpy(vstack, &snap.regs[R_IP], 8);
	memcpy(vstack + 8, snap.stack, snap.size);
	r.regs = regs;
	st.size = snap.size + 8;
	st.sp = regs[R_SP];

	assert_int_equal(unwind_sample(uw, &as, &r, &st, ips, DEPTH, &res), 0);
	assert_int_equal(res.status, UNWIND_COMPLETE);
	assert_true(res.nr > 5);
	assert_int_equal(ips[0], fn);
	assert_int_equal(ips[1], snap.regs[R_IP]);
	assert_int_equal(ips[2], snap.ra_c);
	assert_int_equal(ips[3], snap.ra_b);
	assert_int_equal(ips[4], snap.ra_a);

	assert_int_equal(unwind_sample(uw, &bare, &r, &st, ips, DEPTH, &res), 0);
	assert_int_equal(res.status, UNWIND_NOT_MAPPED);
	assert_int_equal(res.nr, 1);
	unwinder_free(uw);
}

/* A build id that is not the file's: the file is not used, its PCs are not mapped. */
static void test_build_id(void **state)
{
	struct unwinder *uw = unwinder_new();
	uint8_t bid[64];
	struct map_extra right = { 0 }, wrong;
	struct unwind_space as = { .id = 1, .find_map = find_map_with, .arg = &right };
	struct unwind_space bad = { .id = 2, .find_map = find_map_with, .arg = &wrong };
	struct unwind_result res;
	uint64_t ips[DEPTH];
	const void *p = NULL;
	ssize_t n;
	Elf *elf;
	int fd;

	(void)state;
	take_snapshot();
	assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
	fd = open("/proc/self/exe", O_RDONLY);
	assert_true(fd >= 0);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	n = dwelf_elf_gnu_build_id(elf, &p);
	assert_true(n > 0 && (size_t)n <= sizeof(bid));
	memcpy(bid, p, (size_t)n);
	elf_end(elf);
	close(fd);
	right.bid = bid;
	right.bid_size = (size_t)n;
	assert_int_equal(unwind(uw, &as, snap.regs, snap.size, ips, DEPTH, &res), 0);
	assert_int_equal(res.status, UNWIND_COMPLETE);
	assert_int_equal(ips[3], snap.ra_a);

	wrong = right;
	wrong.bid_size = (size_t)n - 1; /* a prefix is not the build id */
	assert_int_equal(unwind(uw, &bad, snap.regs, snap.size, ips, DEPTH, &res), 0);
	assert_int_equal(res.status, UNWIND_NOT_MAPPED);
	assert_int_equal(res.nr, 1);
	unwinder_free(uw);
}

/* A mapping of nocfi.so (no .eh_frame, no .debug_frame) at a made-up address. */
static char nocfi_path[PATH_MAX];
#define NOCFI_BASE 0x10000000ULL

static int find_nocfi(void *arg, uint64_t addr, struct unwind_map *m)
{
	(void)arg;
	if (addr >= NOCFI_BASE && addr < NOCFI_BASE + 0x10000) {
		m->path = nocfi_path;
		m->start = NOCFI_BASE;
		m->end = NOCFI_BASE + 0x10000;
		m->pgoff = 0;
		return 0;
	}
	return find_map(NULL, addr, m);
}

/* Whether @f has a section named @name. */
static bool elf_has_section(const char *f, const char *name)
{
	int fd = open(f, O_RDONLY);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool found = false;

	assert_non_null(elf);
	assert_int_equal(elf_getshdrstrndx(elf, &shstrndx), 0);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *nm;

		if (gelf_getshdr(scn, &sh) && (nm = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    !strcmp(nm, name))
			found = true;
	}
	elf_end(elf);
	close(fd);
	return found;
}

/*
 * A PC in a file with no CFI at all stops as "no CFI", even though
 * libdwfl's frame-pointer fallback then fails on a read at rbp = 0.
 */
static void test_no_cfi(void **state)
{
	char dir[] = "/tmp/pcl-unwind-XXXXXX", src[PATH_MAX], cmd[3 * PATH_MAX];
	struct unwinder *uw = unwinder_new();
	struct unwind_space as = { .id = 1, .find_map = find_nocfi };
	struct unwind_result res;
	uint64_t regs[NR_R], ips[DEPTH];
	FILE *f;

	(void)state;
	if (system("cc --version >/dev/null 2>&1") != 0) {
		print_message("# skip: no cc to build a file without CFI\n");
		unwinder_free(uw);
		skip();
	}
	take_snapshot();
	assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
	assert_non_null(mkdtemp(dir));
	snprintf(src, sizeof(src), "%s/nocfi.c", dir);
	snprintf(nocfi_path, sizeof(nocfi_path), "%s/nocfi.so", dir);
	f = fopen(src, "w");
	assert_non_null(f);
	fputs("int f(int x) { return x * 3 + 1; }\n", f);
	fclose(f);
	snprintf(
		cmd, sizeof(cmd),
		"cc -O2 -shared -fPIC -nostdlib -fno-asynchronous-unwind-tables -fno-unwind-tables "
		"-Wl,--no-ld-generated-unwind-info -o %s %s",
		nocfi_path, src);
	assert_int_equal(system(cmd), 0);
	assert_false(elf_has_section(nocfi_path, ".eh_frame"));
	assert_false(elf_has_section(nocfi_path, ".debug_frame"));

	memcpy(regs, snap.regs, sizeof(regs));
	regs[R_IP] = NOCFI_BASE + 0x1000; /* the text segment of a small -shared file */
	regs[R_BP] = 0;
	assert_int_equal(unwind(uw, &as, regs, snap.size, ips, DEPTH, &res), 0);
	assert_int_equal(res.status, UNWIND_NO_CFI);
	assert_int_equal(res.nr, 1);
	assert_int_equal(ips[0], NOCFI_BASE + 0x1000);
	assert_int_equal(unwinder_stats(uw)->status[UNWIND_NO_CFI], 1);

	unlink(src);
	unlink(nocfi_path);
	rmdir(dir);
	unwinder_free(uw);
}

/*
 * Hostile samples: random registers (some pointing into real code and into
 * the copy) and random stack bytes. Whatever the status, no crash, no
 * read outside the copy (ASan), nr within max, and each sample counted once.
 */
static void test_garbage(void **state)
{
	static uint8_t junk[4096];
	struct unwinder *uw = unwinder_new();
	struct unwind_space as = space_of(1, NULL);
	struct unwind_regs r = { .abi = PERF_SAMPLE_REGS_ABI_64, .mask = sample_mask };
	struct unwind_result res;
	uint64_t regs[NR_R], ips[DEPTH], total = 0;
	unsigned int seed = 12345;

	(void)state;
	take_snapshot();
	r.regs = regs;
	for (int it = 0; it < 2000; it++) {
		struct unwind_stack st = { .data = junk, .size = (uint64_t)(rand_r(&seed) % 4097) };

		for (size_t i = 0; i < sizeof(junk); i += 4) {
			uint32_t v = (uint32_t)rand_r(&seed);

			memcpy(junk + i, &v, 4);
		}
		/* Some stack words are real return addresses, to get further. */
		for (int i = 0; i < 8; i++) {
			size_t at = (size_t)(rand_r(&seed) % (sizeof(junk) / 8)) * 8;

			memcpy(junk + at, &snap.ra_b, 8);
		}
		for (int i = 0; i < NR_R; i++)
			regs[i] = ((uint64_t)rand_r(&seed) << 32) | (uint64_t)rand_r(&seed);
		regs[R_SP] = snap.regs[R_SP];
		if (it % 2)
			regs[R_IP] = snap.regs[R_IP] + (uint64_t)(rand_r(&seed) % 64);
		if (it % 3 == 0)
			regs[R_BP] = regs[R_SP] + (uint64_t)(rand_r(&seed) % 4096);
		st.sp = regs[R_SP];
		assert_int_equal(unwind_sample(uw, &as, &r, &st, ips, DEPTH, &res), 0);
		assert_true(res.nr <= DEPTH);
		assert_true(res.status < UNWIND__NR);
	}
	for (int i = 0; i < UNWIND__NR; i++)
		total += unwinder_stats(uw)->status[i];
	assert_int_equal(total, 2000);
	assert_int_equal(unwinder_stats(uw)->samples, 2000);
	unwinder_free(uw);
}

/* ---- perf's --call-graph dwarf file against perf script ---- */

/* The file's mappings, from its MMAP/MMAP2 records. */
static struct map_ent fmaps[MAX_MAPS];
static unsigned int nr_fmaps;

static int find_file_map(void *arg, uint64_t addr, struct unwind_map *m)
{
	(void)arg;
	/* The newest mapping wins, as in the process. */
	for (unsigned int i = nr_fmaps; i-- > 0;) {
		if (addr >= fmaps[i].start && addr < fmaps[i].end) {
			m->path = fmaps[i].path;
			m->start = fmaps[i].start;
			m->end = fmaps[i].end;
			m->pgoff = fmaps[i].pgoff;
			/* perf reads its saved copy of the vDSO; this one is the same kernel's. */
			if (!strcmp(m->path, "[vdso]"))
				m->image = vdso_image(&m->image_size);
			return 0;
		}
	}
	return -ENOENT;
}

/* perf script -F ip prints user addresses as map-relative, as objdump would. */
static uint64_t map_ip(uint64_t addr)
{
	for (unsigned int i = nr_fmaps; i-- > 0;)
		if (addr >= fmaps[i].start && addr < fmaps[i].end)
			return addr - fmaps[i].start + fmaps[i].pgoff;
	return addr;
}

struct chain {
	unsigned int nr;
	uint64_t ips[DEPTH * 2];
};

/* The chains of `perf script -F ip`: hex lines, a blank line after each sample. */
static struct chain *read_script(const char *path, unsigned int *nr)
{
	FILE *f = fopen(path, "r");
	struct chain *ch = calloc(100000, sizeof(*ch));
	unsigned int n = 0;
	bool in = false;
	char line[256];

	assert_non_null(f);
	assert_non_null(ch);
	while (fgets(line, sizeof(line), f) && n < 100000) {
		unsigned long long v;

		if (sscanf(line, " %llx", &v) != 1) {
			if (in)
				n++;
			in = false;
			continue;
		}
		in = true;
		if (ch[n].nr < sizeof(ch[n].ips) / sizeof(ch[n].ips[0]))
			ch[n].ips[ch[n].nr++] = v;
	}
	if (in)
		n++;
	fclose(f);
	*nr = n;
	return ch;
}

static void test_perf_dwarf_file(void **state)
{
	char dir[] = "/tmp/pcl-unwind-XXXXXX", exe[PATH_MAX], wl[PATH_MAX + 32], cmd[3 * PATH_MAX];
	struct unwinder *uw = unwinder_new(), *slow = unwinder_new();
	struct unwind_space as = { .id = 0, .find_map = find_file_map };
	struct pcl_data_reader *r;
	struct pcl_data_events *evs;
	struct pcl_data_event ev;
	struct chain *want;
	unsigned int nr_want, k = 0, same = 0, full = 0, leaf = 0, vdso = 0;
	ssize_t n;

	(void)state;
	unwinder_set_fast(slow, false);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = 0;
	snprintf(wl, sizeof(wl), "%s/workloads/hot-nofp", dirname(exe));
	if (access(wl, X_OK) != 0 || system("perf --version >/dev/null 2>&1") != 0) {
		print_message("# skip: no perf or no %s (make tests builds it)\n", wl);
		unwinder_free(uw);
		unwinder_free(slow);
		skip();
	}
	load_maps(); /* this process's vDSO stands for the workload's */
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd),
		 "perf record -q -e task-clock -c 1000000 --call-graph dwarf,8192 -o %s/perf.data "
		 "%s 300 >/dev/null 2>&1 && perf script -i %s/perf.data -F ip --no-inline "
		 ">%s/script.txt 2>/dev/null",
		 dir, wl, dir, dir);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s/script.txt", dir);
	want = read_script(cmd, &nr_want);
	snprintf(cmd, sizeof(cmd), "%s/perf.data", dir);
	r = pcl_data_reader__open(cmd);
	assert_non_null(r);
	evs = pcl_data_events__new(r, true);
	assert_non_null(evs);
	nr_fmaps = 0;
	while (pcl_data_events__next(evs, &ev) > 0) {
		const struct pcl_sample *s = &ev.rec.sample;
		struct unwind_regs regs;
		struct unwind_stack st;
		struct unwind_result res, sres;
		uint64_t ips[DEPTH], sips[DEPTH], sp;
		const struct chain *w;
		bool ok;

		if (!ev.decoded)
			continue;
		if ((ev.rec.type == PERF_RECORD_MMAP || ev.rec.type == PERF_RECORD_MMAP2) &&
		    nr_fmaps < MAX_MAPS) {
			struct map_ent *m = &fmaps[nr_fmaps++];

			m->start = ev.rec.mmap.addr;
			m->end = ev.rec.mmap.addr + ev.rec.mmap.len;
			m->pgoff = ev.rec.mmap.pgoff;
			snprintf(m->path, sizeof(m->path), "%s", ev.rec.mmap.filename);
			as.generation++; /* the map set changed */
			continue;
		}
		if (ev.rec.type != PERF_RECORD_SAMPLE || !ev.attr)
			continue;
		assert_true(k < nr_want);
		w = &want[k++];
		regs = (struct unwind_regs){ .abi = s->user_abi,
					     .mask = ev.attr->attr.sample_regs_user,
					     .regs = s->user_regs };
		sp = s->user_abi && (regs.mask & (1ULL << PERF_REG_X86_SP))
			     ? s->user_regs[__builtin_popcountll(regs.mask &
								 ((1ULL << PERF_REG_X86_SP) - 1))]
			     : 0;
		st = (struct unwind_stack){ .data = s->user_stack,
					    .size = s->user_stack_dyn_size,
					    .sp = sp };
		as.id = s->pid;
		assert_int_equal(unwind_sample(uw, &as, &regs, &st, ips, DEPTH, &res), 0);
		/* the cached rules give what libdwfl gives, frame for frame */
		assert_int_equal(unwind_sample(slow, &as, &regs, &st, sips, DEPTH, &sres), 0);
		assert_int_equal(sres.status, res.status);
		assert_int_equal(sres.nr, res.nr);
		assert_memory_equal(sips, ips, res.nr * sizeof(*ips));
		assert_int_equal(sres.used, res.used);
		full += res.status == UNWIND_COMPLETE;
		/*
		 * perf prints the kernel part first: the user part is its tail.
		 * Callers are their return address minus 1, in the call.
		 */
		ok = res.nr && w->nr >= res.nr;
		for (unsigned int i = 0; ok && i < res.nr; i++)
			ok = w->ips[w->nr - res.nr + i] == map_ip(ips[i] - (i > 0));
		if (!ok && k - same < 5) {
			print_message("# sample %u: %s, %u frames; perf has %u:", k,
				      unwind_status_name(res.status), res.nr, w->nr);
			for (unsigned int i = 0; i < res.nr; i++)
				print_message(" %" PRIx64, map_ip(ips[i] - (i > 0)));
			print_message(" | perf:");
			for (unsigned int i = 0; i < w->nr; i++)
				print_message(" %" PRIx64, w->ips[i]);
			print_message("\n");
		}
		same += ok;
		/* hot_leaf <- middle <- outer <- main: at least 4 user frames */
		leaf += res.nr >= 4;
		for (unsigned int i = nr_fmaps; res.nr && i-- > 0;) {
			if (ips[0] >= fmaps[i].start && ips[0] < fmaps[i].end) {
				vdso += !strcmp(fmaps[i].path, "[vdso]");
				break;
			}
		}
	}
	print_message("# %u samples, %u as perf script, %u complete, %u with 4+ frames, "
		      "%u in the vDSO\n",
		      k, same, full, leaf, vdso);
	assert_int_equal(k, nr_want);
	assert_true(k >= 50);
	assert_int_equal(same, k);
	assert_true(full * 10 >= k * 9);
	assert_true(leaf * 10 >= k * 9);
	print_message("# %" PRIu64 " from cached rules (and none with them off: %" PRIu64 ")\n",
		      unwinder_stats(uw)->fast, unwinder_stats(slow)->fast);
	assert_true(unwinder_stats(uw)->fast * 10 >= (uint64_t)k * 9);
	assert_int_equal(unwinder_stats(slow)->fast, 0);
	pcl_data_events__free(evs);
	pcl_data_reader__close(r);
	free(want);
	unwinder_free(uw);
	unwinder_free(slow);
	snprintf(cmd, sizeof(cmd), "%s/perf.data", dir);
	unlink(cmd);
	snprintf(cmd, sizeof(cmd), "%s/script.txt", dir);
	unlink(cmd);
	rmdir(dir);
}

/*
 * A function whose first instruction traps: the signal interrupts it at
 * its very first byte, so its PC minus 1 is in whatever precedes it.
 */
__asm__(".text\n"
	".p2align 4\n"
	".globl pcl_test_trap_fn\n"
	".type pcl_test_trap_fn, @function\n"
	"pcl_test_trap_fn:\n"
	".cfi_startproc\n"
	"ud2\n"
	"ret\n"
	".cfi_endproc\n"
	".size pcl_test_trap_fn, .-pcl_test_trap_fn\n");
void pcl_test_trap_fn(void);

static void on_sigill(int sig, siginfo_t *si, void *uc)
{
	ucontext_t *u = uc;

	(void)sig;
	(void)si;
	if (u->uc_mcontext.gregs[REG_RIP] != (greg_t)(uintptr_t)pcl_test_trap_fn)
		abort();
	assert_true(a(&snap) > 0);
	u->uc_mcontext.gregs[REG_RIP] += 2; /* past the ud2, to its ret */
}

/*
 * A sample in a signal handler: the frames of the signal trampoline and of
 * the interrupted function are exact PCs, not return addresses (a caller
 * must not look them up minus 1); the ordinary callers are not exact.
 */
static void test_signal_frame(void **state)
{
	struct sigaction sa = { .sa_sigaction = on_sigill, .sa_flags = SA_SIGINFO }, old;
	struct unwinder *uw = unwinder_new();
	struct unwind_space as = space_of(1, NULL);
	struct unwind_result res;
	uint64_t ips[DEPTH];
	unsigned int k = 0;

	(void)state;
	assert_non_null(uw);
	load_maps();
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGILL, &sa, &old), 0);
	pcl_test_trap_fn();
	assert_int_equal(sigaction(SIGILL, &old, NULL), 0);
	assert_int_equal(unwind(uw, &as, snap.regs, snap.size, ips, DEPTH, &res), 0);
	for (unsigned int i = 0; i < res.nr; i++) {
		print_message("# %2u %#" PRIx64 " %s%s\n", i, ips[i],
			      find_ent(ips[i]) ? find_ent(ips[i])->path : "?",
			      unwind_result_exact(&res, i) ? " (exact)" : "");
		if (ips[i] == (uint64_t)(uintptr_t)pcl_test_trap_fn && !k)
			k = i;
	}
	assert_int_equal(res.status, UNWIND_COMPLETE);
	assert_true(unwind_result_exact(&res, 0));
	assert_int_equal(ips[1], snap.ra_c);
	assert_false(unwind_result_exact(&res, 1));
	assert_false(unwind_result_exact(&res, 2));
	/* c, b, a, the handler, then the trampoline and the interrupted function */
	assert_true(k > 4);
	assert_true(unwind_result_exact(&res, k));
	assert_true(unwind_result_exact(&res, k - 1));
	assert_false(unwind_result_exact(&res, k - 2)); /* the handler */
	assert_false(unwind_result_exact(&res, k + 1));
	unwinder_free(uw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		UNIT_TEST(test_full_chain),
		UNIT_TEST(test_stack_too_small),
		UNIT_TEST(test_not_mapped),
		UNIT_TEST(test_max_depth),
		UNIT_TEST(test_no_regs),
		UNIT_TEST(test_cache),
		UNIT_TEST(test_vdso),
		UNIT_TEST(test_build_id),
		UNIT_TEST(test_no_cfi),
		UNIT_TEST(test_garbage),
		UNIT_TEST(test_perf_dwarf_file),
		UNIT_TEST(test_signal_frame),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
