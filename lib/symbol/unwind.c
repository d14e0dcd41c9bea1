// SPDX-License-Identifier: MIT
/*
 * DWARF unwinding of user stacks with libdwfl (see unwind.h and
 * docs/unwinding.md).
 *
 * libdwfl does the CFI work: .eh_frame, .debug_frame, separate debug files
 * (build id, debuglink), signal frames. This file only feeds it: the
 * sample's registers in DWARF numbering, reads from the stack copy, and the
 * modules, reported lazily when a PC first lands in a file. A Dwfl lives as
 * long as its address space's generation, so the ELF and CFI loading of a
 * file happens once per process, not once per sample as in perf.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <asm/perf_regs.h>
#include <dwarf.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <sys/mman.h>
#include <linux/perf_event.h>

#include "internal.h"
#include "symbol/unwind.h"

/* Address spaces kept at once; the least recently used one is dropped. */
#define NR_SPACES 16
/* Mappings whose file could not be reported, per space: not retried. */
#define NR_FAILED 32
/* The DWARF registers of x86-64 that CFI can name: rax..r15 and rip. */
#define NR_DWARF_REGS 17
/* A read this far above the SP is a truncated copy; beyond, garbage. */
#define STACK_GUESS_MAX (256ULL << 20)
/* The one thread of each Dwfl: samples are unwound one at a time. */
#define UNWIND_TID 1

/*
 * What libdw's CFI says about one PC, kept so that a PC seen again costs a
 * hash lookup instead of libdw's FDE search and CFI program run (libdwfl
 * redoes both for every frame of every sample). Only the rules the fast
 * path applies exactly as libdwfl would are kept; any other PC is marked
 * and its samples go through libdwfl.
 */
enum rule_kind {
	RULE_UNDEF, /* undefined: the caller's value is lost */
	RULE_SAME,  /* same value */
	RULE_AT,    /* saved at CFA + off */
	RULE_VAL,   /* is CFA + off */
	RULE_REG,   /* is register off's value */
};

struct rule {
	uint64_t pc;  /* the frame's PC */
	bool initial; /* the sample's own PC: looked up as is, a caller's minus 1 */
	bool used;
	bool simple;	 /* the fast path can apply it */
	bool entry;	 /* no .eh_frame CFI, at its file's ELF entry point (ld.so's _start) */
	uint8_t cfa_reg; /* CFA = register cfa_reg + cfa_off */
	uint8_t kind[NR_DWARF_REGS];
	int32_t cfa_off; /* offsets beyond 32 bits: not simple */
	int32_t off[NR_DWARF_REGS];
};

/* Rules kept per space at most (about 100 bytes each); past that the table starts again. */
#define MAX_RULES (1u << 15)

struct space {
	bool used;
	bool attached; /* dwfl_attach_state done (needs a module first) */
	uint64_t id, generation, last_use;
	Dwfl *dwfl;
	struct sample_ctx *cur; /* the sample being unwound */
	uint64_t failed[NR_FAILED];
	unsigned int nr_failed, next_failed;
	struct rule *rules; /* open addressing by pc, cap_rules slots */
	size_t cap_rules, nr_rules;
};

struct unwinder {
	struct space spaces[NR_SPACES];
	uint64_t clock;
	bool no_fast; /* tests: libdwfl for every sample */
	struct unwind_stats stats;
};

struct sample_ctx {
	struct unwinder *uw;
	struct space *sp;
	const struct unwind_space *as;
	const struct unwind_stack *stack;
	Dwarf_Word dregs[NR_DWARF_REGS];
	uint32_t dmask; /* bit n: DWARF register n present */
	uint64_t *ips;
	unsigned int max, nr;
	bool stopped; /* the frame callback set status */
	enum unwind_status status;
	/*
	 * Failed reads since the last frame, in the step that ended the chain:
	 * libdwfl takes a return address it cannot read for an undefined one,
	 * the mark of the outermost frame, so without these a truncated copy
	 * would look complete.
	 */
	bool beyond;   /* above the SP, past the end of the copy */
	bool bad_read; /* anywhere else: no mapping, no file */
	uint64_t needed;
	uint64_t used; /* the end of the highest word read from the copy */
	uint64_t exact[UNWIND_EXACT_MAX / 64]; /* unwind_result.exact */
};

static const char *const status_names[UNWIND__NR] = {
	[UNWIND_COMPLETE] = "complete",
	[UNWIND_NO_CFI] = "no CFI",
	[UNWIND_STACK_TOO_SMALL] = "stack copy too small",
	[UNWIND_NOT_MAPPED] = "address not mapped",
	[UNWIND_MAX_DEPTH] = "max depth",
	[UNWIND_NO_REGS] = "no user registers",
	[UNWIND_ERROR] = "unwind error",
};

const char *unwind_status_name(enum unwind_status status)
{
	if ((unsigned int)status >= UNWIND__NR)
		return "unknown";
	return status_names[status];
}

static void set_exact(struct sample_ctx *c, unsigned int i)
{
	if (i < UNWIND_EXACT_MAX)
		c->exact[i / 64] |= 1ULL << (i % 64);
}

/* The address of frame @i to look up CFI at: a return address minus 1, an exact PC as is. */
static uint64_t lookup_pc(const struct sample_ctx *c, unsigned int i)
{
	bool exact = i < UNWIND_EXACT_MAX && (c->exact[i / 64] >> (i % 64) & 1);

	return c->ips[i] - !exact;
}

/* DWARF register n of x86-64 (System V psABI numbering) -> PERF_REG_X86_*. */
static const unsigned char dwarf_to_perf[NR_DWARF_REGS] = {
	PERF_REG_X86_AX,  PERF_REG_X86_DX,  PERF_REG_X86_CX,  PERF_REG_X86_BX,	PERF_REG_X86_SI,
	PERF_REG_X86_DI,  PERF_REG_X86_BP,  PERF_REG_X86_SP,  PERF_REG_X86_R8,	PERF_REG_X86_R9,
	PERF_REG_X86_R10, PERF_REG_X86_R11, PERF_REG_X86_R12, PERF_REG_X86_R13, PERF_REG_X86_R14,
	PERF_REG_X86_R15, PERF_REG_X86_IP,
};

/* The value of perf register @r in the packed sample registers, if present. */
static bool perf_reg(const struct unwind_regs *regs, unsigned int r, uint64_t *val)
{
	uint64_t bit = 1ULL << r;

	if (!(regs->mask & bit))
		return false;
	*val = regs->regs[__builtin_popcountll(regs->mask & (bit - 1))];
	return true;
}

/*
 * A module's separate debug file: the one the caller found (kept in the
 * module's userdata, a malloc'd path), else the standard search: next to
 * the file, in .debug/, and under /usr/lib/debug, by build id first.
 */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	const char *debug = *userdata;

	if (debug) {
		int fd = open(debug, O_RDONLY | O_CLOEXEC);

		if (fd >= 0) {
			*debuginfo_file_name = strdup(debug);
			return fd;
		}
	}
	return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
					    debuglink_file, debuglink_crc, debuginfo_file_name);
}

/* A NULL path is libdwfl's default list. libdwfl keeps a pointer to this, so it lives forever. */
static char *debuginfo_path;
static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

static int free_userdata(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start,
			 void *arg)
{
	(void)mod;
	(void)name;
	(void)start;
	(void)arg;
	free(*userdata);
	*userdata = NULL;
	return DWARF_CB_OK;
}

static bool is_file(const char *path)
{
	return path && path[0] && path[0] != '[' && strncmp(path, "//anon", 6) != 0;
}

static bool failed_before(const struct space *s, uint64_t start)
{
	for (unsigned int i = 0; i < s->nr_failed; i++)
		if (s->failed[i] == start)
			return true;
	return false;
}

static void remember_failed(struct space *s, uint64_t start)
{
	s->failed[s->next_failed] = start;
	s->next_failed = (s->next_failed + 1) % NR_FAILED;
	if (s->nr_failed < NR_FAILED)
		s->nr_failed++;
}

/* An fd on the bytes of @m: its file, or a memfd holding its image. -1 on failure. */
static int map_fd(const struct unwind_map *m)
{
	const char *p = m->image;
	size_t left = m->image_size;
	int fd;

	if (!m->image)
		return open(m->path, O_RDONLY | O_CLOEXEC);
	fd = memfd_create("pcl-unwind-image", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	while (left) {
		ssize_t n = write(fd, p, left);

		if (n <= 0) {
			close(fd);
			return -1;
		}
		p += n;
		left -= (size_t)n;
	}
	return fd;
}

/* Whether the ELF file on @fd has the build id the map names (none named: yes). */
static bool build_id_matches(int fd, const struct unwind_map *m)
{
	const void *bid = NULL;
	Elf *elf;
	ssize_t n;
	bool ok;

	if (!m->build_id_size)
		return true;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return false;
	n = dwelf_elf_gnu_build_id(elf, &bid);
	ok = n > 0 && (size_t)n == m->build_id_size && !memcmp(bid, m->build_id, (size_t)n);
	elf_end(elf);
	return ok;
}

static bool has_bytes(const struct unwind_map *m)
{
	return m->image ? m->image_size > 0 : is_file(m->path);
}

/*
 * Make sure a module covers @pc: report the file of its mapping the first
 * time a PC lands there. One report covers all the file's segments.
 */
static bool ensure_module(struct sample_ctx *c, uint64_t pc)
{
	struct space *s = c->sp;
	struct unwind_map m = { 0 };
	Dwfl_Module *mod = NULL;
	Dwarf_Addr lo, hi;
	void **ud = NULL;
	int fd;

	if (dwfl_addrmodule(s->dwfl, pc))
		return true;
	if (c->as->find_map(c->as->arg, pc, &m) != 0 || !has_bytes(&m) || pc < m.start ||
	    pc >= m.end || m.pgoff > m.start)
		return false;
	if (failed_before(s, m.start))
		return false;
	fd = map_fd(&m);
	if (fd >= 0 && build_id_matches(fd, &m)) {
		/* The bias: where the file's first PT_LOAD is, as perf computes it. */
		dwfl_report_begin_add(s->dwfl);
		mod = dwfl_report_elf(s->dwfl, m.path ? m.path : "[image]",
				      m.path ? m.path : "[image]", fd, m.start - m.pgoff, false);
		dwfl_report_end(s->dwfl, NULL, NULL);
	}
	/* On success libdwfl owns the fd. */
	if (!mod && fd >= 0)
		close(fd);
	if (mod && dwfl_module_info(mod, &ud, &lo, &hi, NULL, NULL, NULL, NULL) && pc >= lo &&
	    pc < hi) {
		/* libdwfl asks for the debug file later, if ever: keep the caller's */
		if (m.debug_path && !*ud)
			*ud = strdup(m.debug_path);
		c->uw->stats.modules++;
		return true;
	}
	remember_failed(s, m.start);
	return false;
}

static bool read_map_word(const struct unwind_map *m, uint64_t addr, Dwarf_Word *out)
{
	uint64_t off = addr - m->start + m->pgoff;
	ssize_t n;
	int fd;

	if (m->image) {
		if (off > m->image_size || m->image_size - off < sizeof(*out))
			return false;
		memcpy(out, (const char *)m->image + off, sizeof(*out));
		return true;
	}
	fd = open(m->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = pread(fd, out, sizeof(*out), (off_t)off);
	close(fd);
	return n == (ssize_t)sizeof(*out);
}

static pid_t next_thread(Dwfl *dwfl, void *dwfl_arg, void **thread_argp)
{
	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = dwfl_arg;
	return UNWIND_TID;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *dwfl_arg, void **thread_argp)
{
	(void)dwfl;
	*thread_argp = dwfl_arg;
	return tid == UNWIND_TID;
}

/* A word of the stack copy, if @addr is inside it. */
static bool stack_word(struct sample_ctx *c, uint64_t addr, Dwarf_Word *result)
{
	const struct unwind_stack *st = c->stack;
	uint64_t off = addr - st->sp;

	if (addr < st->sp || off >= st->size || st->size - off < sizeof(*result))
		return false;
	memcpy(result, (const char *)st->data + off, sizeof(*result));
	if (off + sizeof(*result) > c->used)
		c->used = off + sizeof(*result);
	return true;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *dwfl_arg)
{
	struct sample_ctx *c = ((struct space *)dwfl_arg)->cur;
	const struct unwind_stack *st = c->stack;
	struct unwind_map m = { 0 };
	uint64_t off = addr - st->sp;

	(void)dwfl;
	if (stack_word(c, addr, result))
		return true;
	/* Not the stack: a file's bytes (a DW_OP_deref into a table), as perf reads them. */
	if (c->as->find_map(c->as->arg, addr, &m) == 0 && has_bytes(&m) && addr >= m.start &&
	    addr < m.end && m.end - addr >= sizeof(*result) && read_map_word(&m, addr, result))
		return true;
	if (addr >= st->sp && off < STACK_GUESS_MAX) {
		c->beyond = true;
		if (off + sizeof(*result) > c->needed)
			c->needed = off + sizeof(*result);
	} else {
		c->bad_read = true;
	}
	return false;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
	struct sample_ctx *c = ((struct space *)thread_arg)->cur;
	unsigned int i = 0;

	/* libdwfl takes registers in runs of consecutive numbers. */
	while (i < NR_DWARF_REGS) {
		unsigned int first;

		if (!(c->dmask & (1U << i))) {
			i++;
			continue;
		}
		first = i;
		while (i < NR_DWARF_REGS && (c->dmask & (1U << i)))
			i++;
		if (!dwfl_thread_state_registers(thread, (int)first, i - first, &c->dregs[first]))
			return false;
	}
	dwfl_thread_state_register_pc(thread, c->dregs[16]);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static bool cfi_has(Dwarf_CFI *cfi, Dwarf_Addr bias, Dwarf_Addr pc)
{
	Dwarf_Frame *fr = NULL;

	if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &fr) != 0)
		return false;
	free(fr);
	return true;
}

/* Whether the file of the last frame has CFI for it (else the stop was "no CFI"). */
static bool has_cfi(Dwfl *dwfl, Dwarf_Addr pc)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, pc);
	Dwarf_Addr bias = 0;
	Dwarf_CFI *cfi;

	if (!mod)
		return false;
	/* Separate statements: the bias must be read after the call sets it. */
	cfi = dwfl_module_eh_cfi(mod, &bias);
	if (cfi_has(cfi, bias, pc))
		return true;
	cfi = dwfl_module_dwarf_cfi(mod, &bias);
	return cfi_has(cfi, bias, pc);
}

static int frame_cb(Dwfl_Frame *frame, void *arg)
{
	struct sample_ctx *c = arg;
	bool activation = false;
	Dwarf_Addr pc;

	if (!dwfl_frame_pc(frame, &pc, NULL)) {
		c->stopped = true;
		c->status = UNWIND_ERROR;
		return DWARF_CB_ABORT;
	}
	if (c->nr >= c->max) {
		/* A frame beyond the limit exists: the chain was cut. */
		c->stopped = true;
		c->status = UNWIND_MAX_DEPTH;
		return DWARF_CB_ABORT;
	}
	c->ips[c->nr++] = pc;
	c->beyond = false;
	c->bad_read = false;
	c->needed = 0;
	/* libdwfl unwinds this frame once we return: its module must be known. */
	if (!ensure_module(c, pc)) {
		c->stopped = true;
		c->status = UNWIND_NOT_MAPPED;
		/*
		 * A caller found without CFI (libdwfl's frame-pointer guess, in
		 * code without frame pointers) is garbage, often in [stack]: the
		 * missing CFI is the cause.
		 */
		if (c->nr > 1 && !has_cfi(c->sp->dwfl, lookup_pc(c, c->nr - 2)))
			c->status = UNWIND_NO_CFI;
		return DWARF_CB_ABORT;
	}
	/*
	 * libdwfl's activation: the IP, a signal trampoline (its PC the
	 * pushed sa_restorer) or the frame the signal interrupted (its PC the
	 * interrupted instruction); not a return address. Asked once the
	 * module is known: libdwfl unwinds the next frame to answer, and its
	 * failed reads then count for this step, as without the question.
	 */
	if (dwfl_frame_pc(frame, &pc, &activation) && activation)
		set_exact(c, c->nr - 1);
	return DWARF_CB_OK;
}

/*
 * Whether @pc (a caller's, minus 1) is in the first bytes of its file's
 * ELF entry point: the dynamic linker's _start, which calls _dl_start and
 * has no CFI. The outermost frame of a process's start-up, not an early
 * stop (the program's own _start has CFI that ends the chain).
 */
static bool at_entry_point(Dwfl *dwfl, Dwarf_Addr pc)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, pc);
	Dwarf_Addr bias = 0;
	GElf_Ehdr ehdr;
	Elf *elf;

	if (!mod || !(elf = dwfl_module_getelf(mod, &bias)) || !gelf_getehdr(elf, &ehdr))
		return false;
	return ehdr.e_entry && pc - bias >= ehdr.e_entry && pc - bias < ehdr.e_entry + 16;
}

static void space_reset(struct space *s)
{
	free(s->rules);
	if (s->dwfl) {
		dwfl_getmodules(s->dwfl, free_userdata, NULL, 0);
		dwfl_end(s->dwfl);
	}
	memset(s, 0, sizeof(*s));
}

/* The cached Dwfl of @as, rebuilt if its generation moved on. */
static struct space *get_space(struct unwinder *uw, const struct unwind_space *as)
{
	struct space *s = NULL, *lru = &uw->spaces[0];

	for (unsigned int i = 0; i < NR_SPACES; i++) {
		struct space *t = &uw->spaces[i];

		if (t->used && t->id == as->id) {
			s = t;
			break;
		}
		if (!t->used || (lru->used && t->last_use < lru->last_use))
			lru = t;
	}
	if (s && s->generation != as->generation)
		space_reset(s);
	else if (!s) {
		s = lru;
		space_reset(s);
	}
	if (!s->used) {
		s->dwfl = dwfl_begin(&dwfl_callbacks);
		if (!s->dwfl)
			return pcl_err_null(ENOMEM, "libdw: %s", dwfl_errmsg(-1));
		s->used = true;
		s->id = as->id;
		s->generation = as->generation;
		uw->stats.dwfl_builds++;
	}
	s->last_use = ++uw->clock;
	return s;
}

/* ---- the fast path: cached CFI rules applied as libdwfl applies them ---- */

/* The rule of a CFI frame state, as libdwfl's handle_cfi reads it. */
static void rule_from_frame(struct rule *ru, Dwarf_Frame *fr)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;
	bool signal = false;

	if (dwarf_frame_info(fr, NULL, NULL, &signal) != 16 || signal)
		return; /* a signal frame's caller is not a call: libdwfl's business */
	if (dwarf_frame_cfa(fr, &ops, &nops) != 0 || nops != 1 || ops[0].atom != DW_OP_bregx ||
	    ops[0].number >= NR_DWARF_REGS)
		return;
	if ((int64_t)ops[0].number2 != (int32_t)ops[0].number2)
		return;
	ru->cfa_reg = (uint8_t)ops[0].number;
	ru->cfa_off = (int32_t)ops[0].number2;
	for (int r = 0; r < NR_DWARF_REGS; r++) {
		if (dwarf_frame_register(fr, r, mem, &ops, &nops) != 0)
			return;
		if (nops == 0) {
			ru->kind[r] = ops ? RULE_UNDEF : RULE_SAME;
		} else if (ops[0].atom == DW_OP_call_frame_cfa) {
			size_t i = 1;

			ru->kind[r] = RULE_AT;
			ru->off[r] = 0;
			if (i < nops && ops[i].atom == DW_OP_plus_uconst) {
				if ((int64_t)ops[i].number != (int32_t)ops[i].number)
					return;
				ru->off[r] = (int32_t)ops[i++].number;
			}
			if (i < nops && ops[i].atom == DW_OP_stack_value) {
				ru->kind[r] = RULE_VAL;
				i++;
			}
			if (i != nops)
				return;
		} else if (nops == 1 && ops[0].atom == DW_OP_regx && ops[0].number < NR_DWARF_REGS) {
			ru->kind[r] = RULE_REG;
			ru->off[r] = (int32_t)ops[0].number;
		} else {
			return;
		}
	}
	ru->simple = true;
}

/* Look up the CFI of @pc as libdwfl does: .eh_frame first, then .debug_frame. */
static void rule_compute(Dwfl *dwfl, uint64_t pc, struct rule *ru)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, pc);
	Dwarf_Frame *fr = NULL;
	Dwarf_Addr bias = 0;
	Dwarf_CFI *cfi;

	if (!mod)
		return;
	cfi = dwfl_module_eh_cfi(mod, &bias);
	if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &fr) != 0) {
		/*
		 * The dynamic linker's _start has no CFI: looking in .debug_frame
		 * would load (and decompress) its debug file again in every
		 * process, for nothing. fast_unwind ends the chain there when
		 * libdwfl's frame-pointer guess would fail too.
		 */
		if (at_entry_point(dwfl, pc)) {
			ru->entry = true;
			return;
		}
		fr = NULL;
		cfi = dwfl_module_dwarf_cfi(mod, &bias);
		if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &fr) != 0)
			return;
	}
	rule_from_frame(ru, fr);
	free(fr);
}

static bool rules_grow(struct space *s)
{
	size_t ncap = s->cap_rules ? s->cap_rules * 2 : 1024;
	struct rule *nt;

	if (s->nr_rules >= MAX_RULES) {
		/* a process with this many distinct PCs: start again */
		memset(s->rules, 0, s->cap_rules * sizeof(*s->rules));
		s->nr_rules = 0;
		return true;
	}
	nt = calloc(ncap, sizeof(*nt));
	if (!nt)
		return false;
	for (size_t i = 0; i < s->cap_rules; i++) {
		size_t j;

		if (!s->rules[i].used)
			continue;
		j = hash_mix(s->rules[i].initial, s->rules[i].pc) & (ncap - 1);
		while (nt[j].used)
			j = (j + 1) & (ncap - 1);
		nt[j] = s->rules[i];
	}
	free(s->rules);
	s->rules = nt;
	s->cap_rules = ncap;
	return true;
}

/*
 * The rule of a frame at @pc, computed on first use: its module reported
 * (as the frame callback does), the CFI looked up at @pc, or @pc - 1 for a
 * caller (its return address is after the call). NULL when memory runs out.
 */
static const struct rule *rule_get(struct sample_ctx *c, uint64_t pc, bool initial)
{
	struct space *s = c->sp;
	struct rule *ru;
	size_t j;

	if (s->nr_rules * 2 >= s->cap_rules && !rules_grow(s))
		return NULL;
	j = hash_mix(initial, pc) & (s->cap_rules - 1);
	while (s->rules[j].used) {
		if (s->rules[j].pc == pc && s->rules[j].initial == initial)
			return &s->rules[j];
		j = (j + 1) & (s->cap_rules - 1);
	}
	ru = &s->rules[j];
	memset(ru, 0, sizeof(*ru));
	ru->used = true;
	ru->pc = pc;
	ru->initial = initial;
	s->nr_rules++;
	/* modules are never taken back: a PC whose module is known stays so */
	if (ensure_module(c, pc))
		rule_compute(s->dwfl, pc - !initial, ru);
	return ru;
}

/*
 * Unwind @c with the cached rules, frame by frame as libdwfl would: the
 * initial PC looked up as is, a caller's minus 1; the new registers all
 * computed from the old ones; the chain ends where the return address is
 * undefined or 0. True with c->nr and c->status set; false whenever
 * anything is not plain (no module or no simple rule for a PC, a read
 * outside the stack copy, a register needed but lost): the caller then
 * starts again with libdwfl, which has the fallbacks and says why it
 * stopped.
 */
static bool fast_unwind(struct sample_ctx *c)
{
	Dwarf_Word regs[NR_DWARF_REGS], next[NR_DWARF_REGS];
	uint32_t valid = c->dmask, nvalid;
	bool initial = true;

	memcpy(regs, c->dregs, sizeof(regs));
	set_exact(c, 0); /* no signal frame here: its rule is never simple */
	for (;;) {
		uint64_t pc = regs[16];
		const struct rule *ru;
		Dwarf_Word cfa;

		if (c->nr >= c->max) {
			c->status = UNWIND_MAX_DEPTH;
			return true;
		}
		c->ips[c->nr++] = pc;
		ru = rule_get(c, pc, initial);
		/*
		 * The outermost frame of a process's start-up: without CFI libdwfl
		 * guesses from rbp, which the kernel zeroes at exec; a guess from
		 * a zero or unknown rbp fails, and the chain ends here, complete.
		 */
		if (ru && ru->entry && (!(valid & (1U << 6)) || regs[6] == 0)) {
			c->status = UNWIND_COMPLETE;
			return true;
		}
		if (!ru || !ru->simple || !(valid & (1U << ru->cfa_reg)))
			return false;
		cfa = regs[ru->cfa_reg] + (uint64_t)ru->cfa_off;
		nvalid = 0;
		for (int r = 0; r < NR_DWARF_REGS; r++) {
			switch (ru->kind[r]) {
			case RULE_UNDEF:
				continue;
			case RULE_SAME:
				if (!(valid & (1U << r)))
					continue;
				next[r] = regs[r];
				break;
			case RULE_AT:
				if (!stack_word(c, cfa + (uint64_t)ru->off[r], &next[r]))
					return false;
				break;
			case RULE_VAL:
				next[r] = cfa + (uint64_t)ru->off[r];
				break;
			default: /* RULE_REG */
				if (!(valid & (1U << ru->off[r])))
					return false;
				next[r] = regs[ru->off[r]];
				break;
			}
			nvalid |= 1U << r;
		}
		/* the outermost frame: an undefined return address, or 0 */
		if (!(nvalid & (1U << 16)) && ru->kind[16] != RULE_UNDEF)
			return false;
		if (!(nvalid & (1U << 16)) || next[16] == 0) {
			c->status = UNWIND_COMPLETE;
			return true;
		}
		memcpy(regs, next, sizeof(regs));
		valid = nvalid;
		initial = false;
	}
}

void unwinder_set_fast(struct unwinder *uw, bool on)
{
	if (uw)
		uw->no_fast = !on;
}

struct unwinder *unwinder_new(void)
{
	struct unwinder *uw;

	/* libelf (build-id checks) needs its version set once per process. */
	if (elf_version(EV_CURRENT) == EV_NONE)
		return pcl_err_null(ENOSYS, "libelf: %s", elf_errmsg(-1));
	uw = calloc(1, sizeof(*uw));
	if (!uw)
		return pcl_err_null(ENOMEM, "out of memory");
	return uw;
}

void unwinder_free(struct unwinder *uw)
{
	if (!uw)
		return;
	for (unsigned int i = 0; i < NR_SPACES; i++)
		space_reset(&uw->spaces[i]);
	free(uw);
}

const struct unwind_stats *unwinder_stats(const struct unwinder *uw)
{
	return uw ? &uw->stats : NULL;
}

/* The sample's registers in DWARF numbering; false without IP or SP. */
static bool load_regs(struct sample_ctx *c, const struct unwind_regs *regs)
{
	if (regs->abi != PERF_SAMPLE_REGS_ABI_64 || !regs->regs)
		return false;
	for (unsigned int i = 0; i < NR_DWARF_REGS; i++) {
		uint64_t v;

		if (perf_reg(regs, dwarf_to_perf[i], &v)) {
			c->dregs[i] = v;
			c->dmask |= 1U << i;
		}
	}
	return (c->dmask & (1U << 7)) && (c->dmask & (1U << 16));
}

static void finish(struct unwinder *uw, struct sample_ctx *c, struct unwind_result *res)
{
	res->nr = c->nr;
	res->status = c->status;
	res->needed = c->status == UNWIND_STACK_TOO_SMALL ? c->needed : 0;
	res->used = c->used;
	memcpy(res->exact, c->exact, sizeof(res->exact));
	uw->stats.status[c->status]++;
	if (res->needed > uw->stats.max_needed)
		uw->stats.max_needed = res->needed;
}

int unwind_sample(struct unwinder *uw, const struct unwind_space *as,
		  const struct unwind_regs *regs, const struct unwind_stack *stack, uint64_t *ips,
		  unsigned int max, struct unwind_result *res)
{
	struct sample_ctx c = { 0 };
	struct space *s;
	int ret;

	if (!uw || !as || !as->find_map || !regs || !stack || (!ips && max) || !res ||
	    (!stack->data && stack->size))
		return pcl_err(EINVAL, "unwind_sample: NULL argument");
	memset(res, 0, sizeof(*res));
	uw->stats.samples++;
	c.uw = uw;
	c.as = as;
	c.stack = stack;
	c.ips = ips;
	c.max = max;
	if (!load_regs(&c, regs)) {
		c.status = UNWIND_NO_REGS;
		finish(uw, &c, res);
		return 0;
	}
	s = get_space(uw, as);
	if (!s)
		return -errno;
	c.sp = s;
	s->cur = &c;
	if (!s->attached) {
		/* libdwfl takes the architecture from a module: report the IP's first. */
		if (!ensure_module(&c, c.dregs[16])) {
			if (max) {
				set_exact(&c, 0);
				ips[c.nr++] = c.dregs[16];
			}
			c.status = UNWIND_NOT_MAPPED;
			goto out;
		}
		if (!dwfl_attach_state(s->dwfl, NULL, UNWIND_TID, &thread_callbacks, s)) {
			s->cur = NULL;
			ret = pcl_err(ENOTSUP, "libdw: cannot unwind: %s", dwfl_errmsg(-1));
			space_reset(s);
			return ret;
		}
		s->attached = true;
	}
	if (!uw->no_fast) {
		if (fast_unwind(&c)) {
			uw->stats.fast++;
			goto out;
		}
		/* start again with libdwfl: the same frames, and why it stops */
		c.nr = 0;
		c.used = 0;
		memset(c.exact, 0, sizeof(c.exact));
	}
	ret = dwfl_getthread_frames(s->dwfl, UNWIND_TID, frame_cb, &c);
	/*
	 * A PC without CFI explains the stop first: libdwfl's frame-pointer
	 * fallback then reads wherever rbp points, and its failed reads are a
	 * consequence, not the cause.
	 */
	if (c.stopped)
		; /* the frame callback said why */
	else if (ret == 0 && !c.beyond && !c.bad_read)
		c.status = UNWIND_COMPLETE;
	else if (c.nr && !has_cfi(s->dwfl, lookup_pc(&c, c.nr - 1)))
		c.status = at_entry_point(s->dwfl, lookup_pc(&c, c.nr - 1)) ? UNWIND_COMPLETE
									     : UNWIND_NO_CFI;
	else if (c.beyond)
		c.status = UNWIND_STACK_TOO_SMALL;
	else if (c.bad_read)
		c.status = UNWIND_NOT_MAPPED;
	else
		c.status = UNWIND_ERROR;
out:
	s->cur = NULL;
	finish(uw, &c, res);
	return 0;
}

/* ---- one step with the stack alone (unwind_step, for lib/analysis/fpleaf.c) ---- */

/*
 * The frames of a step: the IP as unwind_sample takes it (its module
 * reported), then only the caller's PC: no module for it, no frame beyond.
 */
static int step_cb(Dwfl_Frame *frame, void *arg)
{
	struct sample_ctx *c = arg;
	Dwarf_Addr pc;

	if (!c->nr)
		return frame_cb(frame, arg);
	if (dwfl_frame_pc(frame, &pc, NULL))
		c->ips[c->nr++] = pc;
	return DWARF_CB_ABORT;
}

/* Attach @s to its thread callbacks once; libdwfl takes the architecture from the IP's module. */
static int step_attach(struct sample_ctx *c, struct space *s, bool *mapped)
{
	int ret;

	*mapped = true;
	if (s->attached)
		return 0;
	if (!ensure_module(c, c->dregs[16])) {
		*mapped = false;
		return 0;
	}
	if (!dwfl_attach_state(s->dwfl, NULL, UNWIND_TID, &thread_callbacks, s)) {
		ret = pcl_err(ENOTSUP, "libdw: cannot unwind: %s", dwfl_errmsg(-1));
		s->cur = NULL;
		space_reset(s);
		return ret;
	}
	s->attached = true;
	return 0;
}

/* Whether the DWARF operations @ops name rbp (DWARF register 6). */
static bool ops_use_rbp(const Dwarf_Op *ops, size_t nops)
{
	for (size_t i = 0; i < nops; i++) {
		unsigned int a = ops[i].atom;

		if (a == DW_OP_breg6 || a == DW_OP_reg6 ||
		    ((a == DW_OP_bregx || a == DW_OP_regx) && ops[i].number == 6))
			return true;
	}
	return false;
}

/*
 * What the .eh_frame rule at @pc says before stepping: UNWIND_STEP_OK when
 * its CFA does not need rbp and it has a return address. Deciding here
 * keeps libdwfl from its fallbacks when the step cannot work: after a
 * failed .eh_frame step it loads the module's separate debug file for
 * .debug_frame (100 ms for libc here), then tries frame pointers, which
 * need rbp. Code whose CFI is only in .debug_frame is not stepped.
 */
static enum unwind_step_status step_rule(Dwfl *dwfl, Dwarf_Addr pc)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, pc);
	enum unwind_step_status st = UNWIND_STEP_OK;
	Dwarf_Op ops_mem[3], *ops;
	Dwarf_Frame *fr = NULL;
	Dwarf_Addr bias = 0;
	Dwarf_CFI *cfi;
	size_t nops;

	if (!mod)
		return UNWIND_STEP_NOT_MAPPED;
	/* separate statements: the bias must be read after the call sets it */
	cfi = dwfl_module_eh_cfi(mod, &bias);
	if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &fr) != 0)
		return UNWIND_STEP_NO_CFI;
	if (dwarf_frame_cfa(fr, &ops, &nops) != 0 || ops_use_rbp(ops, nops))
		st = UNWIND_STEP_NEEDS_REGS;
	/* an undefined return address (the outermost frame) has no caller to find */
	else if (dwarf_frame_register(fr, 16, ops_mem, &ops, &nops) != 0 || !nops ||
		 ops_use_rbp(ops, nops))
		st = UNWIND_STEP_NEEDS_REGS;
	free(fr);
	return st;
}

int unwind_step(struct unwinder *uw, const struct unwind_space *as, uint64_t ip,
		const struct unwind_stack *stack, uint64_t *ra, uint64_t *needed,
		enum unwind_step_status *status)
{
	struct sample_ctx c = { 0 };
	uint64_t ips[2];
	struct space *s;
	bool mapped;
	int ret;

	if (!uw || !as || !as->find_map || !stack || (!stack->data && stack->size) || !ra ||
	    !needed || !status)
		return pcl_err(EINVAL, "unwind_step: NULL argument");
	*needed = 0;
	*status = UNWIND_STEP_NOT_MAPPED;
	c.uw = uw;
	c.as = as;
	c.stack = stack;
	c.ips = ips;
	c.max = 2;
	/* DWARF 7 is rsp, 16 the return address column (rip): nothing else is known */
	c.dregs[7] = stack->sp;
	c.dregs[16] = ip;
	c.dmask = (1U << 7) | (1U << 16);
	s = get_space(uw, as);
	if (!s)
		return -errno;
	c.sp = s;
	s->cur = &c;
	ret = step_attach(&c, s, &mapped);
	if (!ret && mapped && !ensure_module(&c, ip))
		mapped = false;
	if (ret || !mapped) {
		s->cur = NULL;
		return ret;
	}
	*status = step_rule(s->dwfl, ip);
	if (*status != UNWIND_STEP_OK) {
		s->cur = NULL;
		return 0;
	}
	dwfl_getthread_frames(s->dwfl, UNWIND_TID, step_cb, &c);
	s->cur = NULL;
	if (c.nr == 2) {
		*ra = ips[1];
	} else if (c.stopped && c.status == UNWIND_NOT_MAPPED) {
		*status = UNWIND_STEP_NOT_MAPPED;
	} else if (c.beyond) {
		/* libdwfl takes an unreadable return address for the end of the stack */
		*status = UNWIND_STEP_STACK_TOO_SMALL;
		*needed = c.needed;
	} else {
		*status = UNWIND_STEP_NEEDS_REGS; /* the rule wants another register */
	}
	return 0;
}
