/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the DWARF unwinder (lib/symbol/unwind.c): the
 * registers and stack copy of a --call-graph dwarf sample come from the
 * file, so both may be hostile; the CFI comes from real files.
 *
 * The address space is this process's own (/proc/self/maps: the fuzzer,
 * libc, libdw..., the vDSO read from memory). At the first input the
 * target takes a real sample of itself: the registers and a copy of the
 * stack in a chain a() -> b() -> c(), down to _start. An input is a change
 * to that sample, so that the empty input is a real, complete unwind and
 * small inputs stay near real ones:
 *   byte 0      flags: 1 the 32-bit ABI, 2 no IP, 4 no SP, 8 a depth limit of 3
 *   bytes 1-2   the stack copy's size (little endian; larger: the whole copy)
 *   next 136    XORed onto the 17 registers (perf's AX..R15 and IP, 8 bytes each)
 *   the rest    XORed onto the stack copy, from its start
 *
 * Each input is unwound twice, by an unwinder with the fast path (cached
 * CFI rules) and by one without (libdwfl for every frame); both keep their
 * caches across inputs. It traps when a contract of unwind.h is broken:
 *   - unwind_sample() returns 0, a status below UNWIND__NR, at most the
 *     depth limit of frames, the IP first (when there are frames);
 *   - `needed` only with "stack copy too small", then above the copy size;
 *   - both unwinders give the same status, frames, needed and bytes read.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <asm/perf_regs.h>
#include <linux/perf_event.h>

#include "symbol/unwind.h"
#include "fuzz.h"
#include "../tests/unit/unwind-snap.h"

#define MAX_MAPS  512
#define STACK_MAX 65528 /* the most perf records */
#define NR_REGS	  17	/* perf's AX..R15 without the segment registers, and IP */
#define DEPTH	  128

static struct map_ent maps[MAX_MAPS];
static unsigned int nr_maps;
static const void *vdso;
static size_t vdso_size;

/* perf's register numbers of the 17 registers, in bit order */
static const unsigned char reg_nr[NR_REGS] = {
	PERF_REG_X86_AX,  PERF_REG_X86_BX,  PERF_REG_X86_CX,  PERF_REG_X86_DX,	PERF_REG_X86_SI,
	PERF_REG_X86_DI,  PERF_REG_X86_BP,  PERF_REG_X86_SP,  PERF_REG_X86_IP,	PERF_REG_X86_R8,
	PERF_REG_X86_R9,  PERF_REG_X86_R10, PERF_REG_X86_R11, PERF_REG_X86_R12, PERF_REG_X86_R13,
	PERF_REG_X86_R14, PERF_REG_X86_R15,
};

static struct {
	uint64_t regs[NR_REGS]; /* indexed like reg_nr */
	uint8_t stack[STACK_MAX];
	uint64_t size;
} snap;

static void load_maps(void)
{
	uint64_t base = getauxval(AT_SYSINFO_EHDR);

	nr_maps = unwind_snap_maps(maps, MAX_MAPS);
	require(nr_maps > 0);
	for (unsigned int i = 0; i < nr_maps; i++) {
		if (maps[i].start == base && !strcmp(maps[i].path, "[vdso]")) {
			vdso = (const void *)(uintptr_t)base;
			vdso_size = maps[i].end - maps[i].start;
		}
	}
}

static const struct map_ent *find_ent(uint64_t addr)
{
	for (unsigned int i = 0; i < nr_maps; i++)
		if (addr >= maps[i].start && addr < maps[i].end)
			return &maps[i];
	return NULL;
}

static int find_map(void *arg, uint64_t addr, struct unwind_map *m)
{
	const struct map_ent *e = find_ent(addr);

	(void)arg;
	if (!e)
		return -ENOENT;
	m->path = e->path;
	m->start = e->start;
	m->end = e->end;
	m->pgoff = e->pgoff;
	if (!strcmp(e->path, "[vdso]") && vdso) {
		m->image = vdso;
		m->image_size = vdso_size;
	}
	return 0;
}

/* The sample: callee-saved registers, SP and IP at label 1 (rax is clobbered). */
__attribute__((noinline)) static int c(void)
{
	uint64_t r[8];
	const struct map_ent *st;

	UNWIND_SNAP_REGS(r);
	snap.regs[1] = r[0];  /* bx */
	snap.regs[6] = r[1];  /* bp */
	snap.regs[7] = r[2];  /* sp */
	snap.regs[8] = r[3];  /* ip */
	snap.regs[13] = r[4]; /* r12 */
	snap.regs[14] = r[5];
	snap.regs[15] = r[6];
	snap.regs[16] = r[7];
	st = find_ent(r[2]);
	snap.size = st ? st->end - r[2] : 0;
	if (snap.size > STACK_MAX)
		snap.size = STACK_MAX;
	unwind_snap_copy(snap.stack, r[2], snap.size);
	return (int)snap.size;
}

__attribute__((noinline)) static int b(void)
{
	return c() + 1;
}

__attribute__((noinline)) static int a(void)
{
	return b() + 1;
}

static uint64_t get_u64(const uint8_t *p, size_t left)
{
	uint64_t v = 0;

	memcpy(&v, p, left < 8 ? left : 8);
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct unwinder *fast, *slow;
	static uint8_t stack[STACK_MAX];
	struct unwind_space as = { .id = 1, .find_map = find_map };
	uint64_t regs[NR_REGS], packed[NR_REGS], mask = 0, ips[DEPTH], sips[DEPTH];
	struct unwind_result res, sres;
	struct unwind_regs ur;
	struct unwind_stack st;
	unsigned int n = 0, max = DEPTH;
	uint8_t flags = size ? data[0] : 0;
	uint64_t copy;

	if (!fast) {
		load_maps();
		require(a() > 0);
		fast = unwinder_new();
		slow = unwinder_new();
		require(fast && slow);
		unwinder_set_fast(slow, false);
	}
	copy = size >= 3 ? (uint64_t)data[1] | (uint64_t)data[2] << 8 : snap.size;
	if (copy > snap.size)
		copy = snap.size;
	data += size < 3 ? size : 3;
	size -= size < 3 ? size : 3;
	for (int i = 0; i < NR_REGS; i++) {
		size_t off = (size_t)i * 8;

		regs[i] = snap.regs[i] ^ (off < size ? get_u64(data + off, size - off) : 0);
	}
	data += size < NR_REGS * 8 ? size : NR_REGS * 8;
	size -= size < NR_REGS * 8 ? size : NR_REGS * 8;
	memcpy(stack, snap.stack, copy);
	for (size_t i = 0; i < size && i < copy; i++)
		stack[i] ^= data[i];
	/* pack the registers the flags keep, in perf's bit order */
	for (unsigned int r = 0; r < 64; r++) {
		for (int i = 0; i < NR_REGS; i++) {
			if (reg_nr[i] != r || (r == PERF_REG_X86_IP && (flags & 2)) ||
			    (r == PERF_REG_X86_SP && (flags & 4)))
				continue;
			mask |= 1ULL << r;
			packed[n++] = regs[i];
		}
	}
	if (flags & 8)
		max = 3;
	ur = (struct unwind_regs){ .abi = flags & 1 ? PERF_SAMPLE_REGS_ABI_32 : PERF_SAMPLE_REGS_ABI_64,
				   .mask = mask,
				   .regs = packed };
	st = (struct unwind_stack){ .data = stack, .size = copy, .sp = regs[7] };

	require(unwind_sample(fast, &as, &ur, &st, ips, max, &res) == 0);
	require(unwind_sample(slow, &as, &ur, &st, sips, max, &sres) == 0);
	require((unsigned int)res.status < UNWIND__NR);
	require(res.nr <= max);
	require(!res.nr || ips[0] == regs[8]);
	require(res.status == UNWIND_STACK_TOO_SMALL ? res.needed > copy : res.needed == 0);
	require(res.used <= copy);
	require(sres.status == res.status);
	require(sres.nr == res.nr);
	require(!memcmp(sips, ips, res.nr * sizeof(*ips)));
	require(sres.needed == res.needed);
	require(sres.used == res.used);
	require(!memcmp(sres.exact, res.exact, sizeof(res.exact)));
	require(unwinder_stats(fast)->samples == unwinder_stats(slow)->samples);
	return 0;
}
