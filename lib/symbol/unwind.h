/* SPDX-License-Identifier: MIT */
/*
 * DWARF unwinding of user stacks (--call-graph dwarf samples) with elfutils'
 * libdwfl. Internal to libpcl: report and script wire it in (docs/unwinding.md).
 *
 * A sample gives the user registers (perf's x86-64 layout, the ones its mask
 * names, packed in bit order) and a copy of the user stack starting at the
 * stack pointer. The unwinder turns them into the user return addresses,
 * the IP first, and says why it stopped.
 *
 * libdw's work (opening each ELF file, finding its separate debug file,
 * indexing .eh_frame/.debug_frame) is kept across samples: one Dwfl per
 * address space, keyed by the caller's id and generation, with each file
 * reported once, when a PC first lands in it.
 */
#ifndef PCL_SYMBOL_UNWIND_H
#define PCL_SYMBOL_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Why an unwind stopped. */
enum unwind_status {
	UNWIND_COMPLETE,	/* reached the outermost frame (the CFI ends the chain) */
	UNWIND_NO_CFI,		/* no CFI (and no usable fallback) for a PC */
	UNWIND_STACK_TOO_SMALL, /* a read beyond the end of the stack copy */
	UNWIND_NOT_MAPPED,	/* a PC in no mapping, or in one whose file cannot be read */
	UNWIND_MAX_DEPTH,	/* the caller's maximum number of frames */
	UNWIND_NO_REGS,		/* no user registers (ABI none or 32-bit), or no IP or SP */
	UNWIND_ERROR,		/* libdw failed otherwise (bad CFI, garbage registers) */
	UNWIND__NR,
};

/* Short lowercase name of @status ("complete", "no CFI", ...), for --stats. */
const char *unwind_status_name(enum unwind_status status);

/* One mapping of the sampled process, as the caller's map lookup found it. */
struct unwind_map {
	/*
	 * File to read the code and CFI from. NULL, empty or "[...]" (anon,
	 * [stack], [heap]) means no file: a PC there is not mapped, a read
	 * there is not served. Must stay valid until unwind_sample returns.
	 */
	const char *path;
	uint64_t start, end; /* [start, end) in the process */
	uint64_t pgoff;	     /* file offset mapped at start */
	/*
	 * When known (MMAP2 with a build id, the file's build-id table): the
	 * file at @path must have this NT_GNU_BUILD_ID, else the mapping is
	 * taken for not mapped rather than unwound with another file's CFI.
	 */
	const uint8_t *build_id;
	size_t build_id_size;
	/*
	 * An ELF image in memory instead of @path (the vDSO: perf saves it in
	 * its build-id cache, a live session can read its own): @path is then
	 * only its name. Copied when the module is first reported.
	 */
	const void *image;
	size_t image_size;
	/*
	 * The separate debug file the caller found for it (build id,
	 * debuglink, --symfs, debuginfod), or NULL: libdw then searches the
	 * standard places. Its .debug_frame serves PCs that .eh_frame lacks.
	 * Copied when the module is first reported.
	 */
	const char *debug_path;
};

/*
 * Find the mapping holding @addr: fill *@map and return 0, or return
 * -ENOENT. Called at most once per new module and per read outside the
 * stack copy, never per frame of a module already known.
 */
typedef int (*unwind_find_map_fn)(void *arg, uint64_t addr, struct unwind_map *map);

/*
 * The sampled address space. @id (a pid) and @generation key the cached
 * Dwfl: the caller bumps @generation when the map set changes (an munmap, a
 * new mmap over an old range), which makes the next sample rebuild it.
 */
struct unwind_space {
	uint64_t id;
	uint64_t generation;
	unwind_find_map_fn find_map;
	void *arg;
};

/* The sample's user registers, as PERF_SAMPLE_REGS_USER carries them. */
struct unwind_regs {
	uint64_t abi;	      /* PERF_SAMPLE_REGS_ABI_*: only _64 is unwound */
	uint64_t mask;	      /* sample_regs_user: bit PERF_REG_X86_* set = present */
	const uint64_t *regs; /* one value per set bit, in bit order */
};

/* The sample's PERF_SAMPLE_STACK_USER copy: @size bytes from @sp upwards. */
struct unwind_stack {
	const void *data;
	uint64_t size;
	uint64_t sp; /* address of data[0]: the user SP of the sample */
};

/* Frames whose exactness unwind_result records. */
#define UNWIND_EXACT_MAX 256

struct unwind_result {
	/*
	 * Return addresses found, the IP first: ips[0..nr). Callers' entries
	 * are the return addresses themselves (perf's libdw unwinder prints
	 * them minus 1, to land inside the call).
	 */
	unsigned int nr;
	enum unwind_status status;
	/* UNWIND_STACK_TOO_SMALL: stack copy bytes that the failed read needed. */
	uint64_t needed;
	/*
	 * Bytes of the copy the unwind read (the highest word read, from the
	 * SP). For a complete unwind, SP + used is where this thread's stack
	 * ends for unwinding: a caller can tell how much copy a too-small
	 * sample of the same thread lacked.
	 */
	uint64_t used;
	/*
	 * Which ips[i] are exact PCs rather than return addresses: bit i % 64
	 * of exact[i / 64], for i < UNWIND_EXACT_MAX (deeper frames are
	 * return addresses). The IP; a signal trampoline's frame (its PC is
	 * the sa_restorer the kernel pushed, the start of __restore_rt); and
	 * the frame the signal interrupted (libdwfl's "activation": its PC is
	 * the interrupted instruction, as dwfl_frame_pc says). Only the other
	 * entries are looked up minus 1: the address minus 1 of an exact PC
	 * can be in the previous instruction's line or the previous function.
	 */
	uint64_t exact[UNWIND_EXACT_MAX / 64];
};

/* Whether ips[@i] of @res is an exact PC (see unwind_result.exact). */
static inline bool unwind_result_exact(const struct unwind_result *res, unsigned int i)
{
	return i < UNWIND_EXACT_MAX && (res->exact[i / 64] >> (i % 64) & 1);
}

/* Counters over all the samples unwound so far, for --stats. */
struct unwind_stats {
	uint64_t samples;
	uint64_t status[UNWIND__NR];
	uint64_t max_needed;  /* largest `needed` of the STACK_TOO_SMALL samples */
	uint64_t dwfl_builds; /* address spaces (re)built */
	uint64_t modules;     /* files reported to libdw */
	uint64_t fast;	      /* samples unwound from cached rules alone */
};

struct unwinder;

/* One per session. NULL with errno and the message set on failure. */
struct unwinder *unwinder_new(void);
void unwinder_free(struct unwinder *uw);

/*
 * Unwind one sample into @ips (room for @max entries; @max is the depth
 * limit). Returns 0 with *@res filled whatever the status (an early stop
 * is a status, not a failure, and the frames found before it are kept),
 * or a negative errno with the message set on misuse (NULL arguments) or
 * when memory runs out.
 */
int unwind_sample(struct unwinder *uw, const struct unwind_space *space,
		  const struct unwind_regs *regs, const struct unwind_stack *stack, uint64_t *ips,
		  unsigned int max, struct unwind_result *res);

const struct unwind_stats *unwinder_stats(const struct unwinder *uw);

/*
 * The fast path (on by default): each PC's CFI rules are kept after the
 * first lookup and applied directly; a sample with anything unusual (a
 * rule the fast path does not apply, a read outside the copy, a PC in no
 * module) goes through libdwfl, which gives the same frames. Off: every
 * sample through libdwfl (tests compare the two).
 */
void unwinder_set_fast(struct unwinder *uw, bool on);

/* ---- one step with the stack alone (frame-pointer leaf repair, lib/analysis/fpleaf.c) ---- */

enum unwind_step_status {
	UNWIND_STEP_OK,		/* *ra is the return address of the frame at the IP */
	UNWIND_STEP_NEEDS_REGS, /* the CFI needs a register besides the SP (an rbp-based frame) */
	UNWIND_STEP_NO_CFI,	/* no CFI for the IP */
	UNWIND_STEP_STACK_TOO_SMALL, /* the return address lies past the end of the copy */
	UNWIND_STEP_NOT_MAPPED, /* the IP is in no mapping, or in one whose file cannot be read */
};

/*
 * One step of the CFI from @ip when nothing is known but the stack copy
 * @stack (from the SP, stack->sp; rbp and every other register are
 * undefined): the frame at @ip must find its CFA and return address from
 * the SP and the copy alone. Sets *@status and, when it is
 * UNWIND_STEP_OK, *@ra; with UNWIND_STEP_STACK_TOO_SMALL, *@needed is the
 * copy size the step wanted. The address space's Dwfl is the one
 * unwind_sample() uses; unwinder_stats() does not count steps.
 * Returns 0, or a negative errno with the message set on misuse or when
 * memory runs out.
 */
int unwind_step(struct unwinder *uw, const struct unwind_space *space, uint64_t ip,
		const struct unwind_stack *stack, uint64_t *ra, uint64_t *needed,
		enum unwind_step_status *status);

#endif
