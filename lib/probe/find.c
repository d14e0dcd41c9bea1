/* SPDX-License-Identifier: MIT */
/*
 * A probe point found in a binary, the way perf's probe-finder.c finds it.
 *
 * The binary is opened with libdwfl (offline), which also finds its
 * separate debug file (/usr/lib/debug/.build-id, .gnu_debuglink). Then:
 *
 *   FUNC           the DWARF subprograms named FUNC that have code
 *                  (dwarf_getfuncs over every CU); with no DWARF, or no
 *                  such subprogram, the ELF symbols named FUNC (.symtab and
 *                  .dynsym, as dwfl merges them). The entry is the probe.
 *   FUNC:RLN       line decl_line(FUNC) + RLN of FUNC's file: every
 *                  is_stmt row of the line table at that line (perf probes
 *                  each one), as FUNC_L<RLN>.
 *   FILE:LINE      the same for the rows of FILE (its name's tail matched).
 *   FUNC+OFF       the entry plus OFF bytes.
 *
 * A point is an address in the binary's own layout (the symbol values);
 * uprobes want the file offset, found through the PT_LOAD program headers.
 *
 * Arguments become uprobe fetch args from the variable's DWARF location at
 * the probe address (dwarf_getlocation_addr): DW_OP_regN is %reg,
 * DW_OP_bregN is +off(%reg), DW_OP_fbreg goes through the frame base (and
 * its CFA from the CFI), DW_OP_addr is @+fileoffset. Fields add member
 * offsets, "->" adds a dereference. The type is perf's default (s or x,
 * then the byte size in bits) unless one is given. x86-64 only, as the
 * register names are.
 */
#include <ctype.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include "internal.h"
#include "probe/probe.h"

struct dbg {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf *dw; /* NULL: no DWARF */
	Dwarf_Addr dw_bias, elf_bias;
	Elf *elf;
	const char *path;
};

static char *debuginfo_path;
static const Dwfl_Callbacks offline_cb = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

static void dbg_close(struct dbg *d)
{
	if (d->dwfl)
		dwfl_end(d->dwfl);
	memset(d, 0, sizeof(*d));
}

static int dbg_open(struct dbg *d, const char *path)
{
	memset(d, 0, sizeof(*d));
	d->path = path;
	if (access(path, R_OK))
		return pcl_err(errno, "cannot read '%s': %s", path, strerror(errno));
	d->dwfl = dwfl_begin(&offline_cb);
	if (!d->dwfl)
		return pcl_err(ENOMEM, "libdwfl: %s", dwfl_errmsg(-1));
	d->mod = dwfl_report_offline(d->dwfl, "", path, -1);
	dwfl_report_end(d->dwfl, NULL, NULL);
	if (!d->mod || !(d->elf = dwfl_module_getelf(d->mod, &d->elf_bias))) {
		dbg_close(d);
		return pcl_err(EBADMSG, "'%s' is not an ELF file", path);
	}
	d->dw = dwfl_module_getdwarf(d->mod, &d->dw_bias);
	return 0;
}

/* A DWARF address as a symbol value of the main file. */
static uint64_t dw_to_vaddr(const struct dbg *d, Dwarf_Addr a)
{
	return a + d->dw_bias - d->elf_bias;
}

static int vaddr_to_offset(const struct dbg *d, uint64_t v, uint64_t *off)
{
	size_t n;
	GElf_Phdr ph;

	if (elf_getphdrnum(d->elf, &n))
		return -EBADMSG;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(d->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (v >= ph.p_vaddr && v < ph.p_vaddr + ph.p_memsz) {
			*off = v - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return pcl_err(ERANGE, "address 0x%" PRIx64 " is in no loadable segment of '%s'", v,
		       d->path);
}

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;

	return dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
}

/* Whether path @a ends with @b at a '/' boundary ("dir/x.c" matches "x.c"). */
static bool is_c_name_str(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	while (*++s)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

static bool tail_match(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (!a || lb > la)
		return false;
	return !strcmp(a + la - lb, b) && (la == lb || a[la - lb - 1] == '/');
}

/* ---- functions by name ---- */

struct func_hit {
	Dwarf_Die die;
	Dwarf_Addr entry;
};

struct func_search {
	const char *name, *file;
	struct func_hit *hits;
	int n, alloc, err;
	Dwarf_Off *abstract; /* abstract instances (DW_AT_inline) of the CU being read */
	int nabstract;
	bool no_inlines;
};

static int add_hit(struct func_search *s, Dwarf_Die *die, Dwarf_Addr entry)
{
	for (int i = 0; i < s->n; i++)
		if (s->hits[i].entry == entry)
			return 0;
	if (grow_array((void **)&s->hits, &s->alloc, s->n + 1, sizeof(*s->hits)))
		return s->err = -ENOMEM;
	s->hits[s->n].die = *die;
	s->hits[s->n++].entry = entry;
	return 0;
}

static int func_cb(Dwarf_Die *die, void *arg)
{
	struct func_search *s = arg;
	const char *name = die_name(die), *decl;
	Dwarf_Addr entry;

	if (!name || strcmp(name, s->name))
		return DWARF_CB_OK;
	decl = dwarf_decl_file(die);
	if (s->file && (!decl || !tail_match(decl, s->file)))
		return DWARF_CB_OK;
	if (dwarf_hasattr(die, DW_AT_inline)) {
		/* an abstract instance: its inlined copies are found by walk_inlined() */
		Dwarf_Off *o = realloc(s->abstract, (size_t)(s->nabstract + 1) * sizeof(*o));

		if (!o) {
			s->err = -ENOMEM;
			return DWARF_CB_ABORT;
		}
		s->abstract = o;
		o[s->nabstract++] = dwarf_dieoffset(die);
	}
	if (dwarf_entrypc(die, &entry))
		return DWARF_CB_OK;
	return add_hit(s, die, entry) ? DWARF_CB_ABORT : DWARF_CB_OK;
}

/* The DW_TAG_inlined_subroutine copies of the abstract instances found, under @die. */
static void walk_inlined(struct func_search *s, Dwarf_Die *die, int depth)
{
	Dwarf_Die child;

	if (depth > 64 || dwarf_child(die, &child))
		return;
	do {
		if (dwarf_tag(&child) == DW_TAG_inlined_subroutine) {
			Dwarf_Attribute a;
			Dwarf_Die origin;
			Dwarf_Addr entry;

			if (dwarf_attr(&child, DW_AT_abstract_origin, &a) &&
			    dwarf_formref_die(&a, &origin) && !dwarf_entrypc(&child, &entry))
				for (int i = 0; i < s->nabstract; i++)
					if (dwarf_dieoffset(&origin) == s->abstract[i] &&
					    add_hit(s, &child, entry))
						return;
		}
		walk_inlined(s, &child, depth + 1);
	} while (!s->err && dwarf_siblingof(&child, &child) == 0);
}

static int dwarf_find_funcs(struct dbg *d, struct func_search *s)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	Dwarf_Die cu;

	if (!d->dw)
		return 0;
	while (dwarf_nextcu(d->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(d->dw, off + hsize, &cu)) {
			s->nabstract = 0;
			dwarf_getfuncs(&cu, func_cb, s, 0);
			if (s->nabstract && !s->no_inlines && !s->err)
				walk_inlined(s, &cu, 0);
		}
		if (s->err)
			break;
		off = next;
	}
	free(s->abstract);
	s->abstract = NULL;
	return s->err;
}

/*
 * True when every .dynsym entry @name of value @value has a hidden version
 * (memcpy@GLIBC_2.2.5, kept for old binaries, beside memcpy@@GLIBC_2.14):
 * the dynamic linker binds no new program to it, perf probes only the default.
 */
static bool dynsym_hidden(Elf *elf, const char *name, GElf_Addr value)
{
	Elf_Scn *scn = NULL, *dyn = NULL, *ver = NULL;
	GElf_Shdr sh, dsh = { 0 };
	Elf_Data *dd, *vd;
	bool seen = false;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh)) {
			if (sh.sh_type == SHT_DYNSYM) {
				dyn = scn;
				dsh = sh;
			} else if (sh.sh_type == SHT_GNU_versym) {
				ver = scn;
			}
		}
	if (!dyn || !ver || !dsh.sh_entsize || !(dd = elf_getdata(dyn, NULL)) ||
	    !(vd = elf_getdata(ver, NULL)))
		return false;
	for (size_t i = 1; i < dsh.sh_size / dsh.sh_entsize; i++) {
		GElf_Sym sym;
		GElf_Versym vs;
		const char *sn;

		if (!gelf_getsym(dd, (int)i, &sym) || sym.st_value != value ||
		    !(sn = elf_strptr(elf, dsh.sh_link, sym.st_name)) || strcmp(sn, name) ||
		    !gelf_getversym(vd, (int)i, &vs))
			continue;
		if (!(vs & 0x8000)) /* VERSYM_HIDDEN */
			return false;
		seen = true;
	}
	return seen;
}

/*
 * ELF symbols named @name (a "name@@VERSION" matches too; a hidden
 * "name@VERSION" does not, as in perf): their values into @v. *@ifunc is set
 * when one of them is a GNU indirect function.
 */
static int elf_find_syms(struct dbg *d, const char *name, uint64_t *v, int max, bool *ifunc)
{
	int nsym = dwfl_module_getsymtab(d->mod), n = 0;
	size_t len = strlen(name);

	if (ifunc)
		*ifunc = false;

	for (int i = 1; i < nsym && n < max; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *sn = dwfl_module_getsym_info(d->mod, i, &sym, &addr, NULL, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);
		bool dup = false;

		if (!sn || (type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
		    strncmp(sn, name, len) || (sn[len] && sn[len] != '@') ||
		    (sn[len] == '@' && sn[len + 1] != '@') ||
		    (!sn[len] && dynsym_hidden(d->elf, sn, sym.st_value)))
			continue;
		addr -= d->elf_bias;
		for (int j = 0; j < n; j++)
			dup |= v[j] == addr;
		if (dup)
			continue;
		v[n++] = addr;
		if (ifunc && type == STT_GNU_IFUNC)
			*ifunc = true;
	}
	return n;
}

/* The ELF symbol holding @v: its name and the offset into it. */
static const char *elf_sym_at(struct dbg *d, uint64_t v, uint64_t *off)
{
	GElf_Sym sym;
	GElf_Off o = 0;
	const char *name = dwfl_module_addrinfo(d->mod, v + d->elf_bias, &o, &sym, NULL, NULL,
						NULL);

	*off = o;
	return name;
}

/*
 * perf's check of FUNC+OFF: an offset past the end of the function's symbol
 * (st_size) would probe the next function under FUNC's name. @v: the
 * function's entry as a symbol value. Unknown sizes pass.
 */
static int check_offset(struct dbg *d, const char *func, uint64_t v, uint64_t off)
{
	GElf_Sym sym;
	GElf_Off o = 0;

	if (!off || !dwfl_module_addrinfo(d->mod, v + d->elf_bias, &o, &sym, NULL, NULL, NULL) ||
	    o || !sym.st_size || off <= sym.st_size)
		return 0;
	return pcl_err(ERANGE, "offset %" PRIu64 " is bigger than the size of %s (%" PRIu64 ")",
		       off, func, (uint64_t)sym.st_size);
}

/*
 * The distinct entry addresses (vaddrs) of @func's copies: the symbol @sym
 * (0: none) and every DWARF definition and inlined copy in @s->hits.
 */
static int count_points(struct dbg *d, const struct func_search *s, uint64_t sym)
{
	int n = sym != 0;

	for (int i = 0; i < s->n; i++) {
		uint64_t v = dw_to_vaddr(d, s->hits[i].entry);
		bool seen = sym && v == sym;

		for (int j = 0; j < i && !seen; j++)
			seen = dw_to_vaddr(d, s->hits[j].entry) == v;
		n += !seen;
	}
	return n;
}

int probe_func_offset(const char *bin, const char *func, uint64_t add, bool exact,
		      uint64_t *offset)
{
	struct func_search s = { .name = func };
	uint64_t v[2], entry = 0;
	struct dbg d;
	bool ifunc;
	int n, copies, ret;

	ret = dbg_open(&d, bin);
	if (ret)
		return ret;
	n = elf_find_syms(&d, func, v, 1, &ifunc);
	if (n <= 0)
		v[0] = 0;
	ret = dwarf_find_funcs(&d, &s);
	if (!ret && n > 0 && ifunc) {
		/* its resolver runs once per process: counting it is no count of calls */
		ret = pcl_err(ENOTSUP,
			      "'%s' is a GNU indirect function: a probe counts its resolver, not "
			      "the calls (probe what it picks: pcl probe -x BIN -F '*%s*')",
			      func, func);
	} else if (!ret && n <= 0 && !s.n) {
		ret = pcl_err(ENOENT, "function '%s' not found in '%s'", func, bin);
	} else if (!ret && !exact && (copies = count_points(&d, &s, v[0])) > 1) {
		/*
		 * One event is one address: the calls through the other copies
		 * (inlined ones, mostly) would go uncounted without a word.
		 */
		ret = pcl_err(ENOTSUP,
			      "'%s' has %d copies (inlined ones too), an event probes one: use "
			      "pcl probe -x BIN %s and -e probe_BIN:%s, or %s+0 for the first",
			      func, copies, func, func, func);
	} else if (!ret) {
		entry = v[0] ? v[0] : dw_to_vaddr(&d, s.hits[0].entry);
		if (v[0])
			ret = check_offset(&d, func, entry, add);
		if (!ret)
			ret = vaddr_to_offset(&d, entry + add, offset);
	}
	free(s.hits);
	dbg_close(&d);
	return ret;
}

/* ---- lines ---- */

struct addrs {
	Dwarf_Addr *v;
	int n, alloc;
};

static int addrs_add(struct addrs *a, Dwarf_Addr x)
{
	for (int i = 0; i < a->n; i++)
		if (a->v[i] == x)
			return 0;
	if (grow_array((void **)&a->v, &a->alloc, a->n + 1, sizeof(*a->v)))
		return -ENOMEM;
	a->v[a->n++] = x;
	return 0;
}

/* perf's cu_getsrc_die: the first is_stmt row at @addr (not the last row, as libdw's). */
static Dwarf_Line *stmt_row_at(Dwarf_Die *cu, Dwarf_Addr addr)
{
	Dwarf_Lines *lines;
	size_t nlines, lo = 0, hi;
	Dwarf_Addr a;
	bool flag;

	if (dwarf_getsrclines(cu, &lines, &nlines) || !nlines)
		return NULL;
	hi = nlines;
	while (lo < hi) { /* the first row at or above addr */
		size_t mid = lo + (hi - lo) / 2;

		if (dwarf_lineaddr(dwarf_onesrcline(lines, mid), &a))
			return NULL;
		if (a < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < nlines; lo++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, lo);

		if (!l || dwarf_lineaddr(l, &a) || a != addr || dwarf_linebeginstatement(l, &flag))
			return NULL;
		if (flag)
			return l;
	}
	return NULL;
}

/* perf's cu_find_lineinfo: the line of @addr, the decl line at a function's entry. */
static int reverse_line(Dwarf_Die *cu, Dwarf_Addr addr, const char **file)
{
	Dwarf_Die *scopes = NULL;
	Dwarf_Line *l = stmt_row_at(cu, addr);
	Dwarf_Addr entry;
	int line = 0, n;

	if (l && dwarf_lineno(l, &line) == 0)
		*file = dwarf_linesrc(l, NULL, NULL);
	n = dwarf_getscopes(cu, addr, &scopes);
	for (int i = 0; i < n; i++) {
		if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram)
			continue;
		if (!dwarf_entrypc(&scopes[i], &entry) && entry == addr) {
			*file = dwarf_decl_file(&scopes[i]);
			dwarf_decl_line(&scopes[i], &line);
		}
		break;
	}
	free(scopes);
	return line;
}

struct funclines {
	const char *file;
	int (*cb)(int line, Dwarf_Addr addr, void *arg);
	void *arg;
	int ret;
};

static int funcline_cb(Dwarf_Die *die, void *arg)
{
	struct funclines *fl = arg;
	const char *decl = dwarf_decl_file(die);
	Dwarf_Addr entry;
	int line;

	if (!decl || dwarf_entrypc(die, &entry) || dwarf_decl_line(die, &line) ||
	    (fl->file && !tail_match(decl, fl->file)))
		return DWARF_CB_OK;
	fl->ret = fl->cb(line, entry, fl->arg);
	return fl->ret ? DWARF_CB_ABORT : DWARF_CB_OK;
}

/*
 * Calls @cb for each is_stmt row of @cu's line table from @file (tail
 * match) — inside @fn when it is not NULL — and for the declaration line of
 * each function (of @fn only, when given) at its entry, as perf's
 * die_walk_lines does. With @reversible, only rows whose address maps back
 * to their line (perf -L's rule).
 */
static int walk_lines(Dwarf_Die *cu, Dwarf_Die *fn, const char *file, bool reversible,
		      int (*cb)(int line, Dwarf_Addr addr, void *arg), void *arg)
{
	struct funclines fl = { file, cb, arg, 0 };
	Dwarf_Lines *lines;
	size_t nlines;
	int ret;

	if (dwarf_getsrclines(cu, &lines, &nlines))
		return 0;
	for (size_t i = 0; i < nlines; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr addr;
		bool flag;
		int lineno;
		const char *src, *rsrc = NULL;

		if (!l || dwarf_lineno(l, &lineno) || dwarf_lineaddr(l, &addr))
			continue;
		if (dwarf_lineendsequence(l, &flag) || flag || dwarf_linebeginstatement(l, &flag) ||
		    !flag)
			continue;
		if (fn && dwarf_haspc(fn, addr) <= 0)
			continue;
		src = dwarf_linesrc(l, NULL, NULL);
		if (!src || (file && !tail_match(src, file)))
			continue;
		if (reversible && (reverse_line(cu, addr, &rsrc) != lineno || !rsrc ||
				   strcmp(rsrc, src)))
			continue;
		ret = cb(lineno, addr, arg);
		if (ret)
			return ret;
	}
	if (fn)
		funcline_cb(fn, &fl);
	else
		dwarf_getfuncs(cu, funcline_cb, &fl, 0);
	return fl.ret;
}

struct line_want {
	int line;
	struct addrs *out;
};

static int line_cb(int line, Dwarf_Addr addr, void *arg)
{
	struct line_want *w = arg;

	return line == w->line ? addrs_add(w->out, addr) : 0;
}

/* Every CU: the rows of @file at @line. */
static int file_line_addrs(struct dbg *d, const char *file, int line, struct addrs *out)
{
	struct line_want w = { line, out };
	Dwarf_Off off = 0, next;
	size_t hsize;
	Dwarf_Die cu;
	int ret = 0;

	while (!ret && dwarf_nextcu(d->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(d->dw, off + hsize, &cu))
			ret = walk_lines(&cu, NULL, file, false, line_cb, &w);
		off = next;
	}
	return ret;
}

/* The subprogram (not an inline instance) holding @addr, and its CU. */
static bool func_at(struct dbg *d, Dwarf_Addr addr, Dwarf_Die *cu, Dwarf_Die *fn)
{
	Dwarf_Die *scopes = NULL;
	int n;

	if (!dwarf_addrdie(d->dw, addr, cu))
		return false;
	n = dwarf_getscopes(cu, addr, &scopes);
	for (int i = 0; i < n; i++) {
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
			*fn = scopes[i];
			free(scopes);
			return true;
		}
	}
	free(scopes);
	return false;
}

/* ---- arguments ---- */

static const char *const x86_64_regs[] = {
	"%ax", "%dx", "%cx", "%bx", "%si", "%di", "%bp", "%sp",
	"%r8", "%r9", "%r10", "%r11", "%r12", "%r13", "%r14", "%r15",
};

static const char *reg_name(unsigned int r)
{
	return r < ARRAY_SIZE(x86_64_regs) ? x86_64_regs[r] : NULL;
}

/*
 * A value as uprobes fetch it: in a register (@in_reg, expr "%di"), or in
 * memory at @off from the address that @expr evaluates to ("%sp",
 * "+8(%di)", or @abs for a file offset: "@+0x...").
 */
struct val {
	bool in_reg, abs;
	char expr[512];
	long off;
};

static int val_fetch(const struct val *v, char *buf, size_t size)
{
	int n;

	if (v->in_reg)
		n = snprintf(buf, size, "%s", v->expr);
	else if (v->abs)
		n = snprintf(buf, size, "@+0x%lx", v->off);
	else
		n = snprintf(buf, size, "%+ld(%s)", v->off, v->expr);
	return n < 0 || (size_t)n >= size ? pcl_err(E2BIG, "fetch argument too long") : 0;
}

/* The value @v holds is an address: the memory it points at, at @off. */
static int val_deref(struct val *v, long off)
{
	char f[512];
	int ret = val_fetch(v, f, sizeof(f));

	if (ret)
		return ret;
	snprintf(v->expr, sizeof(v->expr), "%s", f);
	v->in_reg = v->abs = false;
	v->off = off;
	return 0;
}

/* The frame base of @fn at @addr as a register and offset. */
static int frame_base(struct dbg *d, Dwarf_Die *fn, Dwarf_Addr addr, unsigned int *reg, long *off)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops, *cops;
	size_t nops, ncops;
	Dwarf_CFI *cfi;
	Dwarf_Frame *frame = NULL;
	Dwarf_Addr bias;
	int ret = -ENOTSUP;

	if (!dwarf_attr(fn, DW_AT_frame_base, &a) || dwarf_getlocation_addr(&a, addr, &ops, &nops, 1) <= 0 ||
	    nops != 1)
		return pcl_err(ENOTSUP, "no frame base at 0x%" PRIx64, (uint64_t)addr);
	if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		*reg = ops[0].atom - DW_OP_breg0;
		*off = (long)ops[0].number;
		return 0;
	}
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return pcl_err(ENOTSUP, "unsupported frame base (DW_OP 0x%x)", ops[0].atom);
	cfi = dwfl_module_eh_cfi(d->mod, &bias);
	if (!cfi || dwarf_cfi_addrframe(cfi, addr + d->dw_bias - bias, &frame)) {
		cfi = dwfl_module_dwarf_cfi(d->mod, &bias);
		if (!cfi || dwarf_cfi_addrframe(cfi, addr + d->dw_bias - bias, &frame))
			return pcl_err(ENOTSUP, "no CFI for the frame at 0x%" PRIx64, (uint64_t)addr);
	}
	/* libdw gives a CFA rule "reg + offset" as DW_OP_bregx */
	if (!dwarf_frame_cfa(frame, &cops, &ncops) && ncops == 1) {
		if (cops[0].atom >= DW_OP_breg0 && cops[0].atom <= DW_OP_breg31) {
			*reg = cops[0].atom - DW_OP_breg0;
			*off = (long)cops[0].number;
			ret = 0;
		} else if (cops[0].atom == DW_OP_bregx) {
			*reg = (unsigned int)cops[0].number;
			*off = (long)cops[0].number2;
			ret = 0;
		}
	}
	free(frame);
	return ret ? pcl_err(ENOTSUP, "the CFA at 0x%" PRIx64 " is not register+offset",
			     (uint64_t)addr)
		   : 0;
}

static int var_location(struct dbg *d, Dwarf_Die *fn, Dwarf_Die *var, Dwarf_Addr addr, struct val *v)
{
	const char *name = die_name(var);
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;
	unsigned int reg = 0;
	long fboff = 0;
	uint64_t foff;
	int ret;

	memset(v, 0, sizeof(*v));
	if (!dwarf_attr(var, DW_AT_location, &a) || dwarf_getlocation_addr(&a, addr, &ops, &nops, 1) <= 0 ||
	    !nops)
		return pcl_err(ENOENT, "variable '%s' is optimized out at this point", name);
	if (nops != 1)
		return pcl_err(ENOTSUP, "the location of '%s' is a DWARF expression pcl cannot fetch",
			       name);
	if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31) {
		if (!reg_name(ops[0].atom - DW_OP_reg0))
			return pcl_err(ENOTSUP, "'%s' is in a register uprobes cannot fetch", name);
		v->in_reg = true;
		snprintf(v->expr, sizeof(v->expr), "%s", reg_name(ops[0].atom - DW_OP_reg0));
		return 0;
	}
	if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31 &&
	    reg_name(ops[0].atom - DW_OP_breg0)) {
		snprintf(v->expr, sizeof(v->expr), "%s", reg_name(ops[0].atom - DW_OP_breg0));
		v->off = (long)ops[0].number;
		return 0;
	}
	if (ops[0].atom == DW_OP_bregx && ops[0].number < 16) {
		snprintf(v->expr, sizeof(v->expr), "%s", reg_name((unsigned int)ops[0].number));
		v->off = (long)ops[0].number2;
		return 0;
	}
	if (ops[0].atom == DW_OP_regx && ops[0].number < 16) {
		v->in_reg = true;
		snprintf(v->expr, sizeof(v->expr), "%s", reg_name((unsigned int)ops[0].number));
		return 0;
	}
	if (ops[0].atom == DW_OP_fbreg) {
		ret = frame_base(d, fn, addr, &reg, &fboff);
		if (ret)
			return ret;
		if (!reg_name(reg))
			return pcl_err(ENOTSUP, "frame base of '%s' in an unknown register", name);
		snprintf(v->expr, sizeof(v->expr), "%s", reg_name(reg));
		v->off = fboff + (long)ops[0].number;
		return 0;
	}
	if (ops[0].atom == DW_OP_addr) {
		ret = vaddr_to_offset(d, dw_to_vaddr(d, ops[0].number), &foff);
		if (ret)
			return ret;
		v->abs = true;
		v->off = (long)foff;
		return 0;
	}
	return pcl_err(ENOTSUP, "the location of '%s' (DW_OP 0x%x) is not one pcl can fetch", name,
		       ops[0].atom);
}

/* The type of @die with typedefs, const and volatile taken off. */
static bool real_type(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute a;

	if (!dwarf_attr_integrate(die, DW_AT_type, &a) || !dwarf_formref_die(&a, type))
		return false;
	return dwarf_peel_type(type, type) == 0;
}

/*
 * The scopes at @addr, innermost first. An inlined copy's entry_pc may lie
 * outside its own ranges: when @inl (the copy probed) is not among them,
 * the scopes are @inl and the CU, as perf searches them.
 */
static int get_scopes(Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die *inl, Dwarf_Die **scopes)
{
	int n = dwarf_getscopes(cu, addr, scopes);

	if (!inl)
		return n;
	for (int i = 0; i < n; i++)
		if (dwarf_dieoffset(&(*scopes)[i]) == dwarf_dieoffset(inl))
			return n;
	free(*scopes);
	*scopes = malloc(2 * sizeof(**scopes));
	if (!*scopes)
		return -1;
	(*scopes)[0] = *inl;
	(*scopes)[1] = *cu;
	return 2;
}

/* Look for @name in the scopes at @addr (innermost first), then the CU. */
static bool find_var(Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die *inl, const char *name,
		     Dwarf_Die *out)
{
	Dwarf_Die *scopes = NULL, child;
	int n = get_scopes(cu, addr, inl, &scopes);
	bool found = false;

	bool outside = false;

	for (int i = 0; i < n && !found; i++) {
		int stag = dwarf_tag(&scopes[i]);

		/* the function's (or inlined copy's) scopes, then the CU's globals */
		if (outside && stag != DW_TAG_compile_unit)
			continue;
		if (stag == DW_TAG_subprogram || stag == DW_TAG_inlined_subroutine)
			outside = true;
		if (dwarf_child(&scopes[i], &child))
			continue;
		do {
			int tag = dwarf_tag(&child);
			const char *cn;

			if (tag != DW_TAG_variable && tag != DW_TAG_formal_parameter)
				continue;
			cn = die_name(&child);
			if (cn && !strcmp(cn, name)) {
				*out = child;
				found = true;
				break;
			}
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	free(scopes);
	return found;
}

static bool find_member(Dwarf_Die *st, const char *name, Dwarf_Die *out, long *off)
{
	Dwarf_Die child;
	Dwarf_Attribute a;
	Dwarf_Word w;

	if (dwarf_child(st, &child))
		return false;
	do {
		const char *cn;

		if (dwarf_tag(&child) != DW_TAG_member)
			continue;
		cn = die_name(&child);
		if (!cn) {
			/* an anonymous struct or union: look inside */
			Dwarf_Die t;
			long inner;

			if (real_type(&child, &t) && find_member(&t, name, out, &inner)) {
				w = 0;
				if (dwarf_attr(&child, DW_AT_data_member_location, &a))
					dwarf_formudata(&a, &w);
				*off = (long)w + inner;
				return true;
			}
			continue;
		}
		if (strcmp(cn, name))
			continue;
		w = 0;
		if (dwarf_attr(&child, DW_AT_data_member_location, &a) && dwarf_formudata(&a, &w))
			return false;
		*off = (long)w;
		*out = child;
		return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* The fields of @arg applied to @v, whose type is @type (updated). */
static int apply_fields(const struct probe_arg *arg, struct val *v, Dwarf_Die *type)
{
	for (int i = 0; i < arg->nfields; i++) {
		const struct probe_field *f = &arg->fields[i];
		int tag = dwarf_tag(type);
		Dwarf_Die mem, elem;
		long off;
		int ret;

		if (!f->name) {
			Dwarf_Word sz;

			if ((tag != DW_TAG_pointer_type && tag != DW_TAG_array_type) ||
			    !real_type(type, &elem))
				return pcl_err(EINVAL, "'%s': indexing what is not an array or pointer",
					       arg->text);
			sz = (Dwarf_Word)dwarf_bytesize(&elem);
			if (tag == DW_TAG_pointer_type)
				ret = val_deref(v, (long)(f->index * (long)sz));
			else if (v->in_reg)
				ret = pcl_err(EINVAL, "'%s': an array in a register", arg->text);
			else
				v->off += f->index * (long)sz, ret = 0;
			if (ret)
				return ret;
			*type = elem;
			continue;
		}
		if (f->ref) {
			if (tag != DW_TAG_pointer_type || !real_type(type, type))
				return pcl_err(EINVAL, "'%s': '->%s' on what is not a pointer", arg->text,
					       f->name);
			tag = dwarf_tag(type);
		} else if (tag == DW_TAG_pointer_type) {
			return pcl_err(EINVAL, "'%s': '.%s' on a pointer (use '->')", arg->text, f->name);
		}
		if (tag != DW_TAG_structure_type && tag != DW_TAG_union_type)
			return pcl_err(EINVAL, "'%s': '%s' is a member of no struct", arg->text, f->name);
		if (!find_member(type, f->name, &mem, &off))
			return pcl_err(ENOENT, "'%s': no member '%s'", arg->text, f->name);
		if (dwarf_hasattr(&mem, DW_AT_bit_size))
			return pcl_err(ENOTSUP, "'%s': '%s' is a bitfield, which pcl cannot fetch yet",
				       arg->text, f->name);
		if (f->ref)
			ret = val_deref(v, off);
		else if (v->in_reg)
			ret = pcl_err(EINVAL, "'%s': a struct in a register", arg->text);
		else
			v->off += off, ret = 0;
		if (ret)
			return ret;
		if (!real_type(&mem, type))
			return pcl_err(ENOENT, "'%s': member '%s' has no type", arg->text, f->name);
	}
	return 0;
}

/* perf's default type: s or x, then the size in bits (at most 64). */
static int default_type(const struct probe_arg *arg, Dwarf_Die *type, const char *cast, char *buf,
			size_t size)
{
	Dwarf_Attribute a;
	Dwarf_Word enc = 0;
	int bytes = dwarf_bytesize(type), tag = dwarf_tag(type);
	char prefix;

	(void)arg;
	buf[0] = '\0';
	if (bytes <= 0)
		return 0;
	if (dwarf_attr(type, DW_AT_encoding, &a))
		dwarf_formudata(&a, &enc);
	/* perf's die_is_signed_type: floats are not, they print as hex */
	prefix = tag == DW_TAG_base_type && (enc == DW_ATE_signed || enc == DW_ATE_signed_char ||
					     enc == DW_ATE_signed_fixed)
			 ? 's'
			 : 'x';
	if (cast && !strcmp(cast, "u"))
		prefix = 'u';
	else if (cast && !strcmp(cast, "s"))
		prefix = 's';
	else if (cast && !strcmp(cast, "x"))
		prefix = 'x';
	snprintf(buf, size, "%c%d", prefix, bytes * 8 > 64 ? 64 : bytes * 8);
	return 0;
}

/* " name=FETCH:TYPE" of one argument, appended to @out. */
static int convert_arg(struct dbg *d, Dwarf_Die *cu, Dwarf_Die *fn, Dwarf_Die *inl, Dwarf_Addr addr,
		       const struct probe_arg *arg, int idx, bool ret, char **args, char **names)
{
	char fetch[600], type[32] = "", name[160], *s;
	const char *t = arg->type;
	struct val v;
	Dwarf_Die var, ty;
	int err;

	if (!is_c_name_str(arg->var)) {
		/* registers, $retval, @sym, +N(%reg): as written */
		if (!strcmp(arg->var, "$retval") && !ret)
			return pcl_err(EINVAL, "$retval is only for %%return probes");
		snprintf(fetch, sizeof(fetch), "%s", arg->var);
		if (arg->name)
			snprintf(name, sizeof(name), "%s", arg->name);
		else if (arg->var[0] == '$' && idx >= 0) /* perf names them when DWARF found the point */
			snprintf(name, sizeof(name), "arg%d", idx + 1);
		else
			name[0] = '\0';
		if (t)
			snprintf(type, sizeof(type), "%s", t);
		goto out;
	}
	if (!d->dw || !cu)
		return pcl_err(ENOENT, "no debug information in '%s' to find '%s' (install its debug "
				       "symbols, or fetch %%registers)",
			       d->path, arg->var);
	if (!find_var(cu, addr, inl, arg->var, &var))
		return pcl_err(ENOENT, "variable '%s' is not found at this point", arg->var);
	err = var_location(d, fn, &var, addr, &v);
	if (!err && !real_type(&var, &ty))
		err = pcl_err(ENOENT, "variable '%s' has no type", arg->var);
	if (!err)
		err = apply_fields(arg, &v, &ty);
	if (err)
		return err;
	if (t && (!strcmp(t, "string") || !strcmp(t, "ustring"))) {
		int tag = dwarf_tag(&ty);
		Dwarf_Die ch;
		const char *cn;

		if ((tag != DW_TAG_pointer_type && tag != DW_TAG_array_type) || !real_type(&ty, &ch) ||
		    !(cn = die_name(&ch)) || (strcmp(cn, "char") && strcmp(cn, "unsigned char")))
			return pcl_err(EINVAL, "cannot fetch '%s' as a string: it is not a char pointer "
					       "or array",
				       arg->text);
		if (tag == DW_TAG_pointer_type)
			err = val_deref(&v, 0);
		else if (v.in_reg)
			err = pcl_err(EINVAL, "'%s': an array in a register", arg->text);
		if (err)
			return err;
		/* an array's string starts at its address, which +off(base) reads from */
		snprintf(type, sizeof(type), "%s", t);
	} else if (t && strcmp(t, "u") && strcmp(t, "s") && strcmp(t, "x")) {
		snprintf(type, sizeof(type), "%s", t);
	} else {
		default_type(arg, &ty, t, type, sizeof(type));
	}
	err = val_fetch(&v, fetch, sizeof(fetch));
	if (err)
		return err;
	if (arg->name)
		snprintf(name, sizeof(name), "%s", arg->name);
	else if (arg->nfields && arg->fields[arg->nfields - 1].name)
		snprintf(name, sizeof(name), "%s", arg->fields[arg->nfields - 1].name);
	else {
		snprintf(name, sizeof(name), "%s", arg->text);
		probe_sanitize(name);
	}
out:
	if (asprintf(&s, "%s %s%s%s%s%s", *args ? *args : "", name, name[0] ? "=" : "", fetch,
		     type[0] ? ":" : "", type) < 0)
		return -ENOMEM;
	free(*args);
	*args = s;
	if (asprintf(&s, "%s %s", *names ? *names : "", name[0] ? name : arg->text) < 0)
		return -ENOMEM;
	free(*names);
	*names = s;
	return 0;
}

/* ---- points ---- */

/* Whether @cu was built with optimization (a -O other than -O0 in its producer). */
static bool cu_optimized(Dwarf_Die *cu)
{
	Dwarf_Attribute a;
	const char *prod = dwarf_formstring(dwarf_attr(cu, DW_AT_producer, &a)), *o, *last = NULL;

	for (o = prod; o && (o = strstr(o, " -O")); o += 3)
		last = o;
	return last && last[3] != '0';
}

static bool wants_vars(const struct probe_spec *sp)
{
	for (int i = 0; i < sp->nargs; i++)
		if (is_c_name_str(sp->args[i].var) || !strcmp(sp->args[i].var, "$params") ||
		    !strcmp(sp->args[i].var, "$vars"))
			return true;
	return false;
}

/*
 * perf's skip_prologue: a FUNC probe with variables, in a CU built without
 * optimization, goes after the prologue (the parameters are stored by
 * then): at the prologue_end row, else the row after the entry's.
 */
static Dwarf_Addr skip_prologue(struct dbg *d, const struct probe_spec *sp, Dwarf_Die *fn,
				Dwarf_Addr entry)
{
	Dwarf_Die cu;
	Dwarf_Lines *lines;
	Dwarf_Addr high, a = entry, prev = entry;
	size_t n, i;
	int entry_line = 0, line;
	bool pend;

	if (!d->dw || sp->has_line || sp->offset || sp->retprobe || !wants_vars(sp) ||
	    !dwarf_diecu(fn, &cu, NULL, NULL) || cu_optimized(&cu) || dwarf_highpc(fn, &high) ||
	    dwarf_getsrclines(&cu, &lines, &n))
		return entry;
	for (i = 0; i < n; i++)
		if (!dwarf_lineaddr(dwarf_onesrcline(lines, i), &a) && a == entry)
			break;
	if (i == n || dwarf_lineno(dwarf_onesrcline(lines, i), &entry_line))
		return entry;
	for (size_t j = i; j < n; j++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, j);

		if (dwarf_lineaddr(l, &a) || dwarf_lineno(l, &line) || dwarf_lineprologueend(l, &pend))
			return entry;
		if (a >= high || pend || line != entry_line || j != i)
			break;
		prev = a;
	}
	return a >= high ? prev : a;
}

static int add_loc(struct dbg *d, const struct probe_spec *sp, bool by_dwarf, Dwarf_Die *inl,
		   Dwarf_Addr dwaddr, uint64_t vaddr, struct probe_loc **locs, int *n, int *alloc)
{
	struct probe_loc *l;
	Dwarf_Die cu, fn, *cup = NULL, *fnp = NULL;
	uint64_t off;
	const char *name;
	int ret;

	if (grow_array((void **)locs, alloc, *n + 1, sizeof(**locs)))
		return -ENOMEM;
	l = &(*locs)[*n];
	memset(l, 0, sizeof(*l));
	l->addr = vaddr;
	l->inl = inl ? dwarf_dieoffset(inl) : 0;
	ret = vaddr_to_offset(d, vaddr, &l->offset);
	if (ret)
		return ret;
	if (d->dw && func_at(d, dwaddr, &cu, &fn)) {
		cup = &cu;
		fnp = &fn;
		name = die_name(&fn);
		snprintf(l->func, sizeof(l->func), "%s", name ? name : "");
	} else if ((name = elf_sym_at(d, vaddr, &off))) {
		snprintf(l->func, sizeof(l->func), "%s", name);
	}
	(*n)++;
	for (int i = 0; i < sp->nargs; i++) {
		const struct probe_arg *a = &sp->args[i];

		if (!strcmp(a->var, "$params") || !strcmp(a->var, "$vars")) {
			Dwarf_Die child;

			if (!fnp || dwarf_child(fnp, &child))
				continue;
			do {
				struct probe_arg pa = { .var = (char *)die_name(&child) };
				int tag = dwarf_tag(&child);

				if (!pa.var || (tag != DW_TAG_formal_parameter &&
						(tag != DW_TAG_variable || !strcmp(a->var, "$params"))))
					continue;
				pa.text = pa.var;
				/* a variable with no location here is left out, as perf does */
				if (convert_arg(d, cup, fnp, inl, dwaddr, &pa, i, sp->retprobe, &l->args,
						&l->argnames) == -ENOMEM)
					return -ENOMEM;
			} while (dwarf_siblingof(&child, &child) == 0);
			continue;
		}
		ret = convert_arg(d, cup, fnp, inl, dwaddr, a, by_dwarf ? i : -1, sp->retprobe, &l->args,
				  &l->argnames);
		if (ret)
			return ret;
	}
	return 0;
}

void probe_locs_free(struct probe_loc *locs, int n)
{
	for (int i = 0; locs && i < n; i++) {
		free(locs[i].args);
		free(locs[i].argnames);
	}
	free(locs);
}

int probe_find(const char *bin, const struct probe_spec *sp, struct probe_loc **locs, int *n)
{
	struct func_search s = { .name = sp->func, .file = sp->func ? sp->file : NULL,
				 .no_inlines = sp->no_inlines };
	struct addrs a = { 0 };
	struct dbg d;
	int alloc = 0, ret;

	*locs = NULL;
	*n = 0;
	ret = dbg_open(&d, bin);
	if (ret)
		return ret;
	if (sp->func)
		ret = dwarf_find_funcs(&d, &s);
	if (ret)
		goto out;
	if (sp->has_line) {
		/* FUNC:RLN is a line of FUNC's file; SRC:ALN one of SRC's */
		const char *file = sp->file;
		long line = sp->line;

		if (!d.dw) {
			ret = pcl_err(ENOENT, "'%s' has no debug information for line probes", bin);
			goto out;
		}
		if (sp->func) {
			int decl = 0;

			if (!s.n) {
				ret = pcl_err(ENOENT, "function '%s' not found in the DWARF of '%s'",
					      sp->func, bin);
				goto out;
			}
			file = dwarf_decl_file(&s.hits[0].die);
			dwarf_decl_line(&s.hits[0].die, &decl);
			line += decl;
		}
		if (!file || line > INT_MAX) {
			ret = pcl_err(ENOENT, "no source file for '%s'", sp->point);
			goto out;
		}
		ret = file_line_addrs(&d, file, (int)line, &a);
		if (!ret && !a.n)
			ret = pcl_err(ENOENT, "no code for line %ld of '%s' (try pcl probe -L)", line,
				      file);
		for (int i = 0; !ret && i < a.n; i++)
			ret = add_loc(&d, sp, true, NULL, a.v[i], dw_to_vaddr(&d, a.v[i]), locs, n, &alloc);
	} else if (s.n) {
		for (int i = 0; !ret && i < s.n; i++) {
			Dwarf_Addr at = skip_prologue(&d, sp, &s.hits[i].die, s.hits[i].entry);

			ret = check_offset(&d, sp->func, dw_to_vaddr(&d, s.hits[i].entry), sp->offset);
			if (ret)
				break;

			Dwarf_Die *inl = dwarf_tag(&s.hits[i].die) == DW_TAG_inlined_subroutine
						 ? &s.hits[i].die
						 : NULL;

			ret = add_loc(&d, sp, true, sp->offset ? NULL : inl, at + sp->offset,
				      dw_to_vaddr(&d, at) + sp->offset, locs, n, &alloc);
		}
	} else if (sp->file) {
		/* FUNC@SRC names a function of SRC: the symbol table knows no sources */
		ret = pcl_err(ENOENT, "function '%s' of '%s' not found in '%s'", sp->func, sp->file,
			      bin);
	} else {
		uint64_t v[16];
		bool ifunc;
		int nv = elf_find_syms(&d, sp->func, v, 16, &ifunc);

		if (!nv)
			ret = pcl_err(ENOENT, "function '%s' not found in '%s'", sp->func, bin);
		for (int i = 0; !ret && i < nv; i++) {
			ret = check_offset(&d, sp->func, v[i], sp->offset);
			if (!ret)
				ret = add_loc(&d, sp, false, NULL, v[i] + sp->offset + d.elf_bias - d.dw_bias,
				      v[i] + sp->offset, locs, n, &alloc);
			if (!ret)
				(*locs)[*n - 1].ifunc = ifunc;
		}
	}
out:
	if (ret) {
		probe_locs_free(*locs, *n);
		*locs = NULL;
		*n = 0;
	}
	free(a.v);
	free(s.hits);
	dbg_close(&d);
	return ret;
}

/* ---- listings: -L, -V, -F and -l's description ---- */

/* perf's die_get_typename: "int", "char*", "struct x", "(function_type)". */
static void type_name(Dwarf_Die *die, char *buf, size_t size)
{
	Dwarf_Die t;
	int tag;
	const char *name, *pfx = "";

	if (!real_type(die, &t)) {
		snprintf(buf, size, "void");
		return;
	}
	tag = dwarf_tag(&t);
	if (tag == DW_TAG_pointer_type || tag == DW_TAG_array_type) {
		char inner[256];

		type_name(&t, inner, sizeof(inner));
		snprintf(buf, size, "%s*", inner);
		return;
	}
	if (tag == DW_TAG_subroutine_type) {
		snprintf(buf, size, "(function_type)");
		return;
	}
	if (tag == DW_TAG_union_type)
		pfx = "union ";
	else if (tag == DW_TAG_structure_type)
		pfx = "struct ";
	else if (tag == DW_TAG_enumeration_type)
		pfx = "enum ";
	name = die_name(&t);
	snprintf(buf, size, "%s%s", pfx, name ? name : "");
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The variables of the scopes at @addr whose location covers it, sorted. */
static int list_vars(Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die *inl, FILE *out)
{
	Dwarf_Die *scopes = NULL, child;
	int n = get_scopes(cu, addr, inl, &scopes), nv = 0, alloc = 0, ret = 0;
	char **v = NULL;

	for (int i = 0; i < n; i++) {
		if (dwarf_child(&scopes[i], &child) == 0) {
			do {
				int tag = dwarf_tag(&child);
				Dwarf_Attribute a;
				Dwarf_Op *ops;
				size_t nops;
				const char *name = die_name(&child);
				char tn[256];

				if ((tag != DW_TAG_variable && tag != DW_TAG_formal_parameter) || !name ||
				    !dwarf_attr(&child, DW_AT_location, &a) ||
				    dwarf_getlocation_addr(&a, addr, &ops, &nops, 1) <= 0 || !nops)
					continue;
				type_name(&child, tn, sizeof(tn));
				if (grow_array((void **)&v, &alloc, nv + 1, sizeof(*v)) ||
				    asprintf(&v[nv], "%s\t%s", tn, name) < 0) {
					ret = -ENOMEM;
					goto out;
				}
				nv++;
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram ||
		    dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine)
			break;
	}
	if (!nv)
		fprintf(out, "\t\t(No matched variables)\n");
	if (nv)
		qsort(v, (size_t)nv, sizeof(*v), cmp_str);
	for (int i = 0; i < nv; i++)
		if (!i || strcmp(v[i], v[i - 1]))
			fprintf(out, "\t\t%s\n", v[i]);
out:
	for (int i = 0; i < nv; i++)
		free(v[i]);
	free(v);
	free(scopes);
	return ret;
}

int probe_show_vars(const char *bin, const struct probe_spec *sp, FILE *out)
{
	struct probe_spec bare = *sp;
	struct probe_loc *locs;
	struct dbg d;
	int n, ret;

	bare.nargs = 0;
	ret = probe_find(bin, &bare, &locs, &n);
	if (ret)
		return ret;
	ret = dbg_open(&d, bin);
	if (!ret && !d.dw)
		ret = pcl_err(ENOENT, "'%s' has no debug information", bin);
	if (ret)
		goto out;
	fprintf(out, "Available variables at %s%s\n", sp->func ? "" : "@", sp->point);
	for (int i = 0; i < n && !ret; i++) {
		Dwarf_Addr a = locs[i].addr + d.elf_bias - d.dw_bias;
		Dwarf_Die cu, fn;
		Dwarf_Addr entry = a;

		if (!func_at(&d, a, &cu, &fn))
			continue;
		dwarf_entrypc(&fn, &entry);
		fprintf(out, "\t@<%s+%" PRIu64 ">\n", die_name(&fn) ? die_name(&fn) : "",
			(uint64_t)(a - entry));
		Dwarf_Die inl;

		ret = list_vars(&cu, a, locs[i].inl && dwarf_offdie(d.dw, locs[i].inl, &inl) ? &inl : NULL,
				out);
	}
out:
	dbg_close(&d);
	probe_locs_free(locs, n);
	return ret;
}

/* Lines with code in [from, to] of the source, for -L. */
struct line_set {
	int from, to;
	unsigned char *has; /* indexed by line - from, cap entries */
	int cap;
	int last;
};

static int mark_cb(int line, Dwarf_Addr addr, void *arg)
{
	struct line_set *ls = arg;

	(void)addr;
	if (line >= ls->from && line <= ls->to && line - ls->from < ls->cap) {
		ls->has[line - ls->from] = 1;
		if (line > ls->last)
			ls->last = line;
	}
	return 0;
}

/* The source file of a DWARF name: as it is if absolute, else under the CU's comp_dir. */
static void source_path(Dwarf_Die *cu, const char *file, char *buf, size_t size)
{
	Dwarf_Attribute a;
	const char *dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a));

	if (file[0] == '/' || !dir)
		snprintf(buf, size, "%s", file);
	else
		snprintf(buf, size, "%s/%s", dir, file);
}

/* Print lines [from, to] of @path; numbered (relative to @base) where @ls has code. */
static int print_lines(const char *path, struct line_set *ls, int base, FILE *out)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	int no = 0;

	if (!f)
		return pcl_err(errno, "cannot read the source '%s': %s", path, strerror(errno));
	while (getline(&line, &cap, f) > 0) {
		no++;
		if (no < ls->from)
			continue;
		if (no > ls->to)
			break;
		line[strcspn(line, "\n")] = '\0';
		if (no - ls->from < ls->cap && ls->has[no - ls->from])
			fprintf(out, "%7d  %s\n", no - base, line);
		else
			fprintf(out, "         %s\n", line);
	}
	free(line);
	fclose(f);
	return 0;
}

/* At most this many lines are shown (and marked) by one -L. */
#define MAX_RANGE 100000

/* ":START[-END|+N]" of -L into @start and @end (-1: to the end). 0 or -EINVAL. */
static int parse_range(const char *range, const char *spec, long *start, long *end)
{
	char *e;

	*start = 0;
	*end = -1;
	if (!range)
		return 0;
	errno = 0;
	*start = strtol(range, &e, 10);
	if (*e == '-')
		*end = strtol(e + 1, &e, 10);
	else if (*e == '+')
		*end = *start + strtol(e + 1, &e, 10);
	if (errno || *e || *start < 0 || *start > INT_MAX / 2 || *end > INT_MAX / 2 ||
	    (*end >= 0 && (*end < *start || *end - *start >= MAX_RANGE)))
		return pcl_err(EINVAL, "bad line range '%s'", spec);
	return 0;
}

/* The full name of @file (a tail) as a CU that has rows of it names it. */
static bool file_path_in_cu(Dwarf_Die *cu, const char *file, char *path, size_t size)
{
	Dwarf_Files *files;
	size_t nf;

	if (dwarf_getsrcfiles(cu, &files, &nf))
		return false;
	for (size_t i = 0; i < nf; i++) {
		const char *fn = dwarf_filesrc(files, i, NULL, NULL);

		if (fn && tail_match(fn, file)) {
			source_path(cu, fn, path, size);
			return true;
		}
	}
	return false;
}

/* -L SRC[:START[-END]]: the lines with code in any CU's rows of SRC. */
static int show_file_range(struct dbg *d, const char *file, long start, long end, FILE *out)
{
	struct line_set ls = { 0 };
	Dwarf_Off off = 0, next;
	char path[PATH_MAX];
	bool seen = false;
	size_t hsize;
	Dwarf_Die cu;
	int ret;

	ls.from = start ? (int)start : 1;
	ls.to = end >= 0 ? (int)end : ls.from + MAX_RANGE - 1;
	ls.cap = ls.to - ls.from + 1;
	ls.has = calloc((size_t)ls.cap, 1);
	if (!ls.has)
		return -ENOMEM;
	while (dwarf_nextcu(d->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(d->dw, off + hsize, &cu)) {
			int before = ls.last;

			walk_lines(&cu, NULL, file, true, mark_cb, &ls);
			if (!seen && ls.last != before)
				seen = file_path_in_cu(&cu, file, path, sizeof(path));
		}
		off = next;
	}
	if (!seen) {
		ret = pcl_err(ENOENT, "no code of source '%s' in '%s'", file, d->path);
	} else {
		if (end < 0)
			ls.to = ls.last + 3;
		fprintf(out, "<%s:%ld>\n", path, start);
		ret = print_lines(path, &ls, 0, out);
	}
	free(ls.has);
	return ret;
}

/* -L FUNC[@SRC][:START[-END]]: lines relative to FUNC's declaration. */
static int show_func_range(struct dbg *d, const char *func, const char *src, long start, long end,
			   FILE *out)
{
	struct func_search s = { .name = func, .file = src, .no_inlines = true };
	struct line_set ls = { 0 };
	char path[PATH_MAX];
	const char *file;
	int ret, base = 0;
	Dwarf_Die cu, *fn;

	ret = dwarf_find_funcs(d, &s);
	if (!ret && !s.n)
		ret = pcl_err(ENOENT, "function '%s' not found in the DWARF of '%s'", func, d->path);
	if (ret)
		goto out;
	fn = &s.hits[0].die;
	file = dwarf_decl_file(fn);
	dwarf_decl_line(fn, &base);
	if (!file || !dwarf_diecu(fn, &cu, NULL, NULL)) {
		ret = pcl_err(ENOENT, "no source file for '%s'", func);
		goto out;
	}
	ls.from = base + (int)start;
	ls.to = ls.from + (end >= 0 ? (int)(end - start) : MAX_RANGE - 1);
	ls.cap = ls.to - ls.from + 1;
	ls.has = calloc((size_t)ls.cap, 1);
	if (!ls.has) {
		ret = -ENOMEM;
		goto out;
	}
	walk_lines(&cu, fn, file, true, mark_cb, &ls);
	if (end < 0)
		ls.to = (ls.last ? ls.last : ls.from) + 3;
	source_path(&cu, file, path, sizeof(path));
	fprintf(out, "<%s@%s:%ld>\n", func, path, start);
	ret = print_lines(path, &ls, base, out);
out:
	free(ls.has);
	free(s.hits);
	return ret;
}

/* -L FUNC[@SRC][:START[-END|+N]] or SRC[:START[-END|+N]]. */
int probe_show_lines(const char *bin, const char *spec, FILE *out)
{
	char *buf = strdup(spec), *range, *at;
	long start, end;
	struct dbg d = { 0 };
	int ret;

	if (!buf)
		return -ENOMEM;
	range = strchr(buf, ':');
	if (range)
		*range++ = '\0';
	at = strchr(buf, '@');
	if (at)
		*at++ = '\0';
	ret = parse_range(range, spec, &start, &end);
	if (!ret && !*buf)
		ret = pcl_err(EINVAL, "'%s' names no function or file", spec);
	if (!ret)
		ret = dbg_open(&d, bin);
	if (!ret && !d.dw)
		ret = pcl_err(ENOENT, "'%s' has no debug information", bin);
	if (!ret && !at && strchr(buf, '.'))
		ret = show_file_range(&d, buf, start, end, out);
	else if (!ret)
		ret = show_func_range(&d, buf, at, start, end, out);
	if (d.dwfl)
		dbg_close(&d);
	free(buf);
	return ret;
}

int probe_show_funcs(const char *bin, const char *filter, FILE *out)
{
	struct dbg d;
	char **v = NULL;
	int nsym, nv = 0, alloc = 0, ret;

	ret = dbg_open(&d, bin);
	if (ret)
		return ret;
	/* perf's list: the functions, objects and labels of the DSO, by name */
	nsym = dwfl_module_getsymtab(d.mod);
	for (int i = 1; i < nsym; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *sn = dwfl_module_getsym_info(d.mod, i, &sym, &addr, NULL, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);
		size_t len = sn ? strlen(sn) : 0;

		if (!len || sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_OBJECT &&
		     type != STT_NOTYPE) ||
		    (len > 4 && !strcmp(sn + len - 4, "@plt")))
			continue;
		if (filter ? fnmatch(filter, sn, 0) != 0 : sn[0] == '_')
			continue;
		if (grow_array((void **)&v, &alloc, nv + 1, sizeof(*v)) || !(v[nv] = strdup(sn))) {
			ret = -ENOMEM;
			break;
		}
		nv++;
	}
	if (nv)
		qsort(v, (size_t)nv, sizeof(*v), cmp_str);
	for (int i = 0; !ret && i < nv; i++)
		if (!i || strcmp(v[i], v[i - 1]))
			fprintf(out, "%s\n", v[i]);
	for (int i = 0; i < nv; i++)
		free(v[i]);
	free(v);
	dbg_close(&d);
	return ret;
}

/* The address of file offset @off, through the PT_LOAD headers. */
static bool offset_to_vaddr(const struct dbg *d, uint64_t off, uint64_t *v)
{
	size_t n;
	GElf_Phdr ph;

	if (elf_getphdrnum(d->elf, &n))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(d->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (off >= ph.p_offset && off < ph.p_offset + ph.p_filesz) {
			*v = off - ph.p_offset + ph.p_vaddr;
			return true;
		}
	}
	return false;
}

void probe_describe(const char *bin, uint64_t offset, bool ret, char *buf, size_t size)
{
	const char *rs = ret ? "%return" : "";
	struct dbg d;
	uint64_t v, symoff;
	const char *name;
	Dwarf_Die cu, fn;

	snprintf(buf, size, "0x%" PRIx64 "%s", offset, rs);
	if (dbg_open(&d, bin))
		return;
	if (!offset_to_vaddr(&d, offset, &v))
		goto out;
	if (d.dw && func_at(&d, v + d.elf_bias - d.dw_bias, &cu, &fn) && (name = die_name(&fn))) {
		/* perf's find_perf_probe_point: the line relative to the function */
		Dwarf_Addr entry = 0, a = v + d.elf_bias - d.dw_bias, ie;
		const char *file = dwarf_decl_file(&fn), *lfile = NULL, *base = name;
		Dwarf_Die *scopes = NULL;
		int decl = 0, line, n, i;
		char where[64] = "";

		dwarf_entrypc(&fn, &entry);
		dwarf_decl_line(&fn, &decl);
		line = reverse_line(&cu, a, &lfile);
		n = dwarf_getscopes(&cu, a, &scopes);
		for (i = 0; i < n && dwarf_dieoffset(&scopes[i]) != dwarf_dieoffset(&fn); i++)
			;
		/* the inlined copies around the address, outermost first */
		while (a != entry && --i >= 0) {
			Dwarf_Attribute at;
			Dwarf_Word w;

			if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
				continue;
			if (!dwarf_entrypc(&scopes[i], &ie) && ie == a) {
				/* at an inlined copy's entry: the call site's line */
				if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &at), &w) == 0)
					line = (int)w;
				lfile = file;
				break;
			}
			if (!die_name(&scopes[i]) || dwarf_decl_line(&scopes[i], &decl))
				break;
			name = die_name(&scopes[i]);
			file = dwarf_decl_file(&scopes[i]);
		}
		free(scopes);
		if (a == entry)
			where[0] = '\0';
		else if (line && lfile && file && !strcmp(lfile, file)) {
			/* perf's synthesize_perf_probe_point: a relative line 0 is not written */
			if (line != decl)
				snprintf(where, sizeof(where), ":%d", line - decl);
		} else
			snprintf(where, sizeof(where), "+%" PRIu64, (uint64_t)(a - entry)), name = base;
		snprintf(buf, size, "%s%s%s%s%s", name, where, rs, file ? "@" : "", file ? file : "");
	} else if ((name = elf_sym_at(&d, v, &symoff))) {
		if (symoff)
			snprintf(buf, size, "%s+%" PRIu64 "%s", name, symoff, rs);
		else
			snprintf(buf, size, "%s%s", name, rs);
	}
out:
	dbg_close(&d);
}

/* Whether @path starts with the ELF magic (libc.so is a linker script). */
static bool is_elf(const char *path)
{
	char magic[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = read(fd, magic, 4) == 4 && !memcmp(magic, ELFMAG, SELFMAG);
	close(fd);
	return ok;
}

int probe_resolve_bin(const char *name, char *out, size_t size)
{
	static const char *const dirs[] = {
		"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
		"/lib", "/usr/lib", "/usr/local/lib",
	};
	char cand[PATH_MAX], *path, *save = NULL, *dir;
	const char *env = getenv("PATH");

	if (strchr(name, '/')) {
		if (!realpath(name, cand))
			return pcl_err(errno, "'%s': %s", name, strerror(errno));
		snprintf(out, size, "%s", cand);
		return 0;
	}
	path = strdup(env ? env : "/usr/bin:/bin");
	for (dir = path ? strtok_r(path, ":", &save) : NULL; dir; dir = strtok_r(NULL, ":", &save)) {
		snprintf(cand, sizeof(cand), "%s/%s", dir, name);
		if (!access(cand, X_OK) && realpath(cand, out)) {
			free(path);
			return 0;
		}
	}
	free(path);
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		static const char *const forms[] = { "%s/%s", "%s/%s.so", "%s/%s.so.6", "%s/%s.so.1",
						     "%s/%s.so.0", "%s/%s.so.2" };

		for (size_t j = 0; j < ARRAY_SIZE(forms); j++) {
			char full[PATH_MAX];

			snprintf(cand, sizeof(cand), forms[j], dirs[i], name);
			if (!access(cand, R_OK) && is_elf(cand) && realpath(cand, full)) {
				snprintf(out, size, "%s", full);
				return 0;
			}
		}
	}
	return pcl_err(ENOENT, "'%s' is no file, no program on $PATH and no library", name);
}
