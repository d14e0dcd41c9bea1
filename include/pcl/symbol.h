/* SPDX-License-Identifier: MIT */
/*
 * The symbol layer: addresses to names.
 *
 * A symbol table (pcl_symtab) is the sorted, de-duplicated function symbols
 * of one object, looked up in O(log n). Tables come from ELF files (.symtab,
 * else .dynsym, through libelf), from /proc/kallsyms, and from JIT maps
 * (/tmp/perf-PID.map). Addresses in a table are in the DSO's address space
 * of machine.h: file offsets for an ELF object mapped in user space (a
 * symbol's value moved by its PT_LOAD segment's p_offset - p_vaddr), absolute
 * addresses for the kernel, its modules and JIT maps.
 *
 * The symbolizer (pcl_symbols) attaches a table to each DSO of a machine the
 * first time it is asked, finding the best file for it: separate debug info
 * by build id (/usr/lib/debug/.build-id/xx/rest.debug) and by
 * .gnu_debuglink, else the file itself; the vDSO from this process's own
 * image; the kernel from a vmlinux or kallsyms. Every path is looked up
 * under symfs when one is set. A DSO whose recorded build id differs from
 * the file's gets no symbols and a note saying so, unless perf's build-id
 * cache (~/.debug) holds a copy of the recorded build. When
 * $DEBUGINFOD_URLS is set and no local file has the symbols, the debug file
 * (and the executable, when the file itself is gone) of the recorded build
 * id is fetched from those debuginfod servers through libdebuginfod, which
 * is loaded on first need and keeps its own cache (docs/debuginfod.md).
 *
 * Symbol tables are immutable once built, and may be shared between threads.
 * A symbolizer belongs to one thread.
 */
#ifndef PCL_SYMBOL_H
#define PCL_SYMBOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pcl/common.h>
#include <pcl/machine.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One function: [start, end) in its table's address space. */
struct pcl_symbol {
	uint64_t start, end;
	const char *name; /* demangled unless the table was loaded with demangling off */
};

struct pcl_symtab;

/* Loading flags. */
#define PCL_SYMTAB_DEMANGLE 0x1u /* C++ and Rust names demangled (libiberty) */
/*
 * With PCL_SYMTAB_DEMANGLE: keep the parameters ("ns::f(int)"), as perf
 * does with -v; without it names print as perf's default ("ns::f").
 */
#define PCL_SYMTAB_DEMANGLE_PARAMS 0x2u
/* ELF: keep symbol values as they are (a vmlinux), no move to file offsets. */
#define PCL_SYMTAB_ABSOLUTE 0x4u

/*
 * The function symbols of the ELF file at @path: .symtab, else .dynsym.
 * Symbols with no size end where the next one starts. NULL with errno
 * (ENOENT, EBADMSG for a file that is not ELF or is malformed, ENOMEM) and
 * pcl_last_error().
 *
 * What is kept is what perf keeps: STT_FUNC, STT_GNU_IFUNC and STT_OBJECT
 * symbols, and untyped labels in sections named *text* or *data*, all
 * defined and in allocated sections; plus a "name@plt" entry per PLT slot.
 * Symbols at one address are resolved as perf's choose_best_symbol does
 * (sized over unsized, then global over weak and local, fewer leading
 * underscores, longer name, first seen).
 */
PCL_API struct pcl_symtab *pcl_symtab__load_elf(const char *path, unsigned int flags);
/* The same from @len bytes of an ELF image in memory (copied as needed). */
PCL_API struct pcl_symtab *pcl_symtab__load_elf_mem(const void *image, size_t len,
						    unsigned int flags);
/*
 * Text, weak, data and bss symbols (T, W, D, B in either case) of a
 * kallsyms file (absolute addresses), a module's without its " [module]".
 * Each ends where the next starts. EACCES when every address is zero
 * (kptr_restrict).
 */
PCL_API struct pcl_symtab *pcl_symtab__load_kallsyms(const char *path, unsigned int flags);
/*
 * A JIT map: lines "START SIZE name" in hex (perf's /tmp/perf-PID.map);
 * other lines are skipped. An entry of size 0 holds only its start (as in
 * perf); of entries at one start the last (newest code) wins.
 */
PCL_API struct pcl_symtab *pcl_symtab__load_perf_map(const char *path, unsigned int flags);
PCL_API void pcl_symtab__free(struct pcl_symtab *t);

/*
 * The symbol holding @addr, or NULL: the one with the greatest start <=
 * @addr, if @addr is inside it (perf's answer, also where symbols overlap).
 * O(log n), no allocation.
 */
PCL_API const struct pcl_symbol *pcl_symtab__find(const struct pcl_symtab *t, uint64_t addr);
/* Number of symbols, and symbol @i in address order. */
PCL_API size_t pcl_symtab__count(const struct pcl_symtab *t);
PCL_API const struct pcl_symbol *pcl_symtab__at(const struct pcl_symtab *t, size_t i);

/*
 * A demangled C++ or Rust @name (malloc'd), or NULL when it is not mangled.
 * As perf prints it by default: without parameters ("ns::Box<long>::spin").
 */
PCL_API char *pcl_demangle(const char *name);

/*
 * What one debuginfod look-up tells pcl_symbol_opts.debuginfod_cb: zero or
 * more PCL_DEBUGINFOD_PROGRESS calls while it runs, then one FOUND or
 * FAILED. Every pointer is borrowed for the call only.
 */
enum pcl_debuginfod_state {
	PCL_DEBUGINFOD_PROGRESS,
	PCL_DEBUGINFOD_FOUND,
	PCL_DEBUGINFOD_FAILED,
};

struct pcl_debuginfod_event {
	enum pcl_debuginfod_state state;
	const char *dso;      /* the DSO's name */
	const char *what;     /* "debuginfo" or "executable" */
	const char *build_id; /* in hex */
	long done, total;     /* PROGRESS: bytes so far, and in all (<= 0: not known yet) */
	/*
	 * FAILED: a negative errno: -ENOENT when no server has the file;
	 * anything else means the servers failed (-ECONNREFUSED, -ETIME, ...)
	 * or libdebuginfod could not be loaded (-ELIBACC), and the symbolizer
	 * then asks nothing more.
	 */
	int err;
	const char *message; /* FAILED: what went wrong, one line */
	const char *path;    /* FOUND: the file, in libdebuginfod's cache */
};

typedef void (*pcl_debuginfod_fn)(void *ctx, const struct pcl_debuginfod_event *ev);

/* pcl_symbol_opts.inline_frames */
enum pcl_inline_mode {
	PCL_INLINE_NONE, /* perf's --no-inline */
	PCL_INLINE_ALL,
};

/* Where the symbolizer looks. Zeroed fields take the defaults. */
struct pcl_symbol_opts {
	size_t sz; /* sizeof(struct pcl_symbol_opts) */
	/*
	 * Directory every path is looked up under; NULL: /. As with perf's
	 * --symfs, the kernel and the vDSO then take no local file (no
	 * /proc/kallsyms, not this machine's vDSO): only a vmlinux found under
	 * it, --vmlinux, --kallsyms, or the build-id cache SYMFS/.debug.
	 */
	const char *symfs;
	const char *vmlinux;  /* kernel image; NULL: one at perf's places, else kallsyms */
	const char *kallsyms; /* NULL: /proc/kallsyms */
	bool no_demangle;
	bool ignore_build_ids; /* use files whose build id differs (perf's --force-ish) */
	bool demangle_params;  /* PCL_SYMTAB_DEMANGLE_PARAMS for user DSOs (perf -v) */
	/*
	 * perf's build-id cache, where perf record keeps a copy of every file
	 * that got samples (.build-id/xx/rest/elf, [kernel.kallsyms]/ID/kallsyms,
	 * [vdso]/ID/vdso): used when the file on disk is gone or another
	 * build, as perf does. NULL: SYMFS/.debug with a symfs, else
	 * $PERF_BUILDID_DIR, else $HOME/.debug; "": none.
	 */
	const char *buildid_dir;
	/*
	 * Trust a JIT map (/tmp/perf-PID.map) whoever owns it. By default one
	 * owned by neither this user (euid) nor root is refused
	 * (PCL_DSO_SYMS_NOT_OWNED): anyone may write a file of that name in
	 * /tmp, and its names would be shown as the profiled program's.
	 */
	bool any_owner;
	/*
	 * Told about each debuginfod look-up (progress, result) with @debuginfod_ctx,
	 * from the thread that asked for the symbols; NULL: nobody is told.
	 * The look-ups themselves happen whenever $DEBUGINFOD_URLS is set and
	 * not empty.
	 */
	pcl_debuginfod_fn debuginfod_cb;
	void *debuginfod_ctx;
	/*
	 * Inline frames in resolved call chains (pcl_resolver__sample):
	 * PCL_INLINE_ALL expands every user-space frame in inlined code into
	 * a frame per function, as perf's --inline does with DWARF-unwound
	 * frames (perf's default; it never expands frame-pointer chains);
	 * PCL_INLINE_NONE (0, the default: it costs the debug files' reading)
	 * none.
	 */
	int inline_frames;
};

struct pcl_symbols;
/* A symbolizer with @opts (copied; NULL for defaults). NULL with errno. */
PCL_API struct pcl_symbols *pcl_symbols__new(const struct pcl_symbol_opts *opts);
/* NULL-safe. DSOs keep their tables (freed with their machine). */
PCL_API void pcl_symbols__free(struct pcl_symbols *s);

/*
 * Load @dso's table if that was not tried yet (setting dso->sym_status,
 * and dso->sym_note when it fails). Returns the status.
 */
PCL_API int pcl_symbols__load(struct pcl_symbols *s, struct pcl_dso *dso);

/*
 * The symbol of @dso holding @addr (a DSO-relative address, see
 * pcl_map__map_ip), loading the DSO first if needed; NULL when none.
 */
PCL_API const struct pcl_symbol *pcl_symbols__find(struct pcl_symbols *s, struct pcl_dso *dso,
						   uint64_t addr);

#ifdef __cplusplus
}
#endif
#endif
