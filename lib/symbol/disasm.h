/* SPDX-License-Identifier: MIT */
/*
 * Disassembly of one function for annotate (internal to libpcl), through
 * capstone, in objdump's AT&T text: what `perf annotate` shows, since perf
 * runs objdump. See docs/annotate.md for where the text still differs.
 *
 * Addresses here are ELF virtual addresses (objdump's, perf's
 * map__rip_2objdump), not the DSO-relative ones of pcl_frame.addr.
 */
#ifndef PCL_SYMBOL_DISASM_H
#define PCL_SYMBOL_DISASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pcl/symbol.h>

struct disasm_insn {
	uint64_t addr;	 /* ELF virtual address */
	uint32_t size;	 /* bytes */
	bool jump;	 /* a jump (not a call) with a direct target */
	bool call;	 /* a call with a direct target */
	uint64_t target; /* with jump or call: the target's address */
	char text[160];	 /* "mov    $0x0,%edx", as objdump -d --no-show-raw-insn */
};

struct disasm_func {
	struct disasm_insn *insn;
	size_t n;
	char section[64]; /* the ELF section holding the code (".text"), "" unknown */
};

/*
 * Names an address for the "<sym+0xoff>" objdump appends to branch targets
 * and rip-relative operands: the name, with *@off the offset into it, or
 * NULL when nothing covers @vaddr.
 */
typedef const char *(*disasm_name_fn)(void *ctx, uint64_t vaddr, uint64_t *off);

/*
 * Disassemble @len bytes of x86-64 code at @vaddr into @out (appended to
 * nothing: @out is overwritten). Bytes that do not decode end the listing
 * with a "(bad)" entry, as objdump shows them. 0, -ENOMEM, or -ENOTSUP
 * when capstone cannot be opened; a message for pcl_last_error().
 */
int disasm_code(const uint8_t *code, size_t len, uint64_t vaddr, disasm_name_fn name, void *ctx,
		struct disasm_func *out);

/*
 * Disassemble @sym of @dso (its code read from the file symbols_dso_files
 * names, or the vDSO image). Branch targets and rip-relative operands are
 * named from the DSO's symbol table. 0; -ENOENT when there is no file
 * holding the code (kallsyms, a JIT map, a debug file only), -EIO,
 * -ENOMEM; a message for pcl_last_error().
 */
int disasm_symbol(struct pcl_symbols *s, struct pcl_dso *dso, const struct pcl_symbol *sym,
		  struct disasm_func *out);

/* NULL-safe; leaves @f empty. */
void disasm_func_free(struct disasm_func *f);

#endif
