/* SPDX-License-Identifier: MIT */
/*
 * A sample of this process's own stack, as PERF_SAMPLE_REGS_USER and
 * PERF_SAMPLE_STACK_USER would give it: for tests/unit/test-unwind.c and
 * fuzz/fuzz-unwind.c.
 */
#ifndef PCL_TESTS_UNWIND_SNAP_H
#define PCL_TESTS_UNWIND_SNAP_H

#include <stdint.h>
#include <stdio.h>

struct map_ent {
	uint64_t start, end, pgoff;
	char path[256];
};

/* This process's mappings (/proc/self/maps) into @maps: how many, at most @max. */
static unsigned int unwind_snap_maps(struct map_ent *maps, unsigned int max)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned int n = 0;
	char line[512];

	if (!f)
		return 0;
	while (n < max && fgets(line, sizeof(line), f)) {
		struct map_ent *m = &maps[n];
		unsigned long long s, e, off;
		char path[256] = "";

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %255s", &s, &e, &off, path) < 3)
			continue;
		m->start = s;
		m->end = e;
		m->pgoff = off;
		snprintf(m->path, sizeof(m->path), "%s", path);
		n++;
	}
	fclose(f);
	return n;
}

/*
 * Store rbx, rbp, rsp, rip, r12, r13, r14, r15 in r[0..7], as they are
 * where rip is taken (rax only is clobbered). A macro: the registers are
 * the calling function's.
 */
#define UNWIND_SNAP_REGS(r)                                                                \
	__asm__ volatile("mov %%rbx, 0(%0)\n\t"                                            \
			 "mov %%rbp, 8(%0)\n\t"                                            \
			 "mov %%rsp, 16(%0)\n\t"                                           \
			 "mov %%r12, 32(%0)\n\t"                                           \
			 "mov %%r13, 40(%0)\n\t"                                           \
			 "mov %%r14, 48(%0)\n\t"                                           \
			 "mov %%r15, 56(%0)\n\t"                                           \
			 "lea 1f(%%rip), %%rax\n\t"                                        \
			 "mov %%rax, 24(%0)\n"                                             \
			 "1:\n\t"                                                          \
			 :                                                                 \
			 : "r"(r)                                                          \
			 : "rax", "memory")

/* Copy the live stack without ASan's checks: it crosses other frames' redzones. */
__attribute__((noinline, no_sanitize_address)) static void unwind_snap_copy(uint8_t *dst,
									    uint64_t src,
									    uint64_t n)
{
	const volatile uint8_t *s = (const volatile uint8_t *)(uintptr_t)src;

	for (uint64_t i = 0; i < n; i++)
		dst[i] = s[i];
}

#endif
