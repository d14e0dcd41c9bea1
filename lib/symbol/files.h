/* SPDX-License-Identifier: MIT */
/*
 * The files behind a DSO, as the symbolizer found them (internal to
 * libpcl): the code to disassemble and unwind with, the separate debug
 * file, and the DSO's source lines.
 *
 * Everything here is owned by the pcl_symbols object and lives until it is
 * freed. Like the symbolizer, not thread-safe.
 */
#ifndef PCL_SYMBOL_FILES_H
#define PCL_SYMBOL_FILES_H

#include <stddef.h>
#include <stdint.h>
#include <pcl/symbol.h>
#include "srcline.h"
#include "symtab.h"

struct symbols_dso_files {
	/*
	 * The file holding the DSO's code: the file on disk (under symfs), or
	 * perf's build-id cache copy of the recorded build; a vmlinux for the
	 * kernel. NULL when there is none (kallsyms, a JIT map, a vDSO image).
	 */
	const char *path;
	/* The separate debug file (build id, debuglink), else NULL. */
	const char *debug;
	/* The vDSO read from this process: its image (path is then NULL). */
	const void *image;
	size_t image_size;
	/* PT_LOAD segments of @path (else the debug file's, offsets guessed). */
	struct elf_segs segs;
	/* Addresses are absolute (kernel, modules, JIT): no segment mapping. */
	bool absolute;
};

/*
 * The files of @dso (its symbols are loaded first if that was not tried).
 * NULL when the symbolizer found no file for it.
 */
const struct symbols_dso_files *symbols_dso_files(struct pcl_symbols *s, struct pcl_dso *dso);

/*
 * A DSO-relative address (pcl_frame.addr: a file offset for a user ELF
 * object) as the ELF virtual address that addr2line, objdump and the DWARF
 * use (perf's map__rip_2objdump). Identity for absolute DSOs.
 */
uint64_t symbols_dso_vaddr(const struct symbols_dso_files *f, uint64_t addr);

/*
 * The source line and inline chain of @addr (DSO-relative) in @dso, from
 * its debug info (srcline.h; the DSO's srcline object is opened on first
 * use and cached). 0 with *@out borrowed until @s is freed; -ENOENT when
 * there is no file or nothing covers the address; -ENOMEM.
 */
int symbols_srcline(struct pcl_symbols *s, struct pcl_dso *dso, uint64_t addr,
		    const struct srcline_info **out);

/* pcl_symbol_opts.inline_frames of @s (PCL_INLINE_NONE for NULL). */
int symbols_inline_mode(const struct pcl_symbols *s);

/*
 * The symbol of an inline frame: the function named @raw (a DWARF name as
 * srcline.h gives it, NULL: unknown) at an address of @base. @base itself
 * when the (demangled) names are equal, as perf reuses the real symbol;
 * else one made for it (that name, @base's extent), the same pointer for
 * the same @base and @raw. Owned by @s. NULL without memory.
 */
const struct pcl_symbol *symbols_inline_sym(struct pcl_symbols *s, const struct pcl_symbol *base,
					    const char *raw);

#endif
