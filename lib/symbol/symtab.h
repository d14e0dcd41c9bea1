/* SPDX-License-Identifier: MIT */
/*
 * What the files of the symbol layer share: the table builder (symtab.c),
 * the ELF reader (elf.c) and the symbolizer (symbols.c).
 *
 * A table is built in two steps: raw symbols are added in the order their
 * source lists them, then builder_finish() sorts them and applies perf's
 * fix-ups (symbols__fixup_end, then symbols__fixup_duplicate) so that the
 * same name wins at an address as in perf. "Late" symbols (the synthesized
 * name@plt entries) are merged after the fix-ups, as perf inserts them.
 */
#ifndef PCL_SYMBOL_SYMTAB_H
#define PCL_SYMBOL_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <gelf.h>
#include <pcl/symbol.h>

/* One symbol while a table is built. */
struct rawsym {
	uint64_t start, end;
	size_t name;	 /* offset of the NUL-terminated name in the builder's pool */
	uint32_t seq;	 /* order of arrival: perf's rbtree keeps equal starts in it */
	uint8_t binding; /* STB_LOCAL, STB_GLOBAL, STB_WEAK */
	uint8_t module;	 /* kallsyms: a module's symbol ("name\t[mod]") */
	uint8_t late;	 /* merged after the fix-ups (name@plt) */
};

struct symtab_builder {
	struct rawsym *v;
	size_t n, alloc;
	char *pool;
	size_t plen, palloc;
	unsigned int flags; /* PCL_SYMTAB_* */
	bool oom;
};

/* How builder_finish() completes the ends and resolves equal starts. */
enum symtab_fixup {
	FIXUP_ELF,	/* perf's dso__load_sym: fixup_end, then fixup_duplicate */
	FIXUP_KALLSYMS, /* the same, with the kernel/module boundary rule */
	FIXUP_MAP,	/* perf maps: sizes as given, the last entry at a start wins */
};

void builder_init(struct symtab_builder *b, unsigned int flags);
/* Free what the builder holds (after a failure; builder_finish() consumes it). */
void builder_release(struct symtab_builder *b);
/*
 * Add [start, end) named @name followed by @suffix (may be NULL), @name
 * demangled first when the builder's flags ask for it. An allocation
 * failure sets b->oom, reported by builder_finish().
 */
void builder_add(struct symtab_builder *b, uint64_t start, uint64_t end, uint8_t binding,
		 bool module, bool late, const char *name, const char *suffix);
/* The finished table (the builder is emptied either way); NULL with errno ENOMEM. */
struct pcl_symtab *builder_finish(struct symtab_builder *b, enum symtab_fixup fixup);

/* A demangled @name as the PCL_SYMTAB_DEMANGLE* bits of @flags ask, or NULL. */
char *demangle_flags(const char *name, unsigned int flags);

/* Tables are reference counted so that the kernel's can be shared by DSOs. */
struct pcl_symtab *symtab_get(struct pcl_symtab *t);
/* Drop a reference (a pcl_dso.sym_free); frees on the last one. NULL-safe. */
void symtab_put(void *t);

/* ---- ELF objects (elf.c) ---- */

#define ELF_MAX_SEGS 32

/* The PT_LOAD segments that turn a symbol's value into a file offset. */
struct elf_segs {
	int n;
	struct {
		uint64_t vaddr, memsz, offset;
	} s[ELF_MAX_SEGS];
};

/* An open ELF file or image. */
struct elf_obj {
	int fd;	   /* -1 for an image in memory */
	void *mem; /* our copy of an image in memory */
	Elf *elf;
	GElf_Ehdr ehdr;
	Elf_Scn *symtab, *dynsym; /* NULL when absent */
	size_t dynsym_idx;
	uint8_t build_id[20];
	int build_id_size; /* 0: no build id note */
};

/* 0, -errno from open(2), or -EBADMSG (not ELF, or malformed). Messages via pcl_err. */
int elf_obj_open(struct elf_obj *o, const char *path);
int elf_obj_open_mem(struct elf_obj *o, const void *image, size_t len);
void elf_obj_close(struct elf_obj *o);
/*
 * The .gnu_debuglink of @o: the file name into @name (NUL-terminated) and
 * its CRC. 0, or -ENOENT when there is none (or it is malformed).
 */
int elf_obj_debuglink(struct elf_obj *o, char *name, size_t size, uint32_t *crc);
/*
 * The PT_LOAD segments of @o. A separate debug file's segments carry no
 * bytes (p_filesz 0) and their offsets mean nothing: for those, the offset
 * is guessed as the distance from the first segment (the usual layout).
 */
void elf_obj_segs(struct elf_obj *o, struct elf_segs *segs);
/*
 * The table of @syms (its .symtab, else .dynsym), values moved by @segs
 * (NULL: values kept), plus name@plt entries from @plt (NULL: none).
 * NULL with errno (EBADMSG, ENOMEM) and a message.
 */
struct pcl_symtab *elf_obj_symtab(struct elf_obj *syms, const struct elf_segs *segs,
				  struct elf_obj *plt, unsigned int flags, const char *what);

/* The gnu_debuglink CRC-32 of a whole file; 0 or -errno. */
int file_crc32(const char *path, uint32_t *crc);

/* ---- text tables (symtab.c), from a stream so the fuzzer can feed them ---- */

/* @what names the source in messages. NULL with errno (EACCES, ENOMEM). */
struct pcl_symtab *symtab_read_kallsyms(FILE *f, unsigned int flags, const char *what);
struct pcl_symtab *symtab_read_perf_map(FILE *f, unsigned int flags, const char *what);

#endif
