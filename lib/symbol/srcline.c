/* SPDX-License-Identifier: MIT */
/*
 * Source lines and inline chains through libdw, answering what perf asks
 * `addr2line -e FILE -i -f ADDR` (perf 6.1 without libbfd shells out to
 * it), in process and cached.
 *
 * Per lookup: the CU from every CU's own ranges (read once, sorted; not
 * dwarf_addrdie(), which knows only .debug_aranges), the line table row
 * from dwarf_getsrc_die() (libdw reads a CU's table once), and the chain
 * from the CU's function index: its subprograms and inlined subroutines
 * read once into a tree of sorted address ranges, descended by binary
 * search (dwarf_getscopes() would walk the DIEs on every call, and follows
 * an inlined subroutine into its abstract definition instead of its
 * callers). Level k of the chain takes its position from the call site
 * recorded on level k-1. Where no row covers the address, the symbol
 * table answers as bfd's does for addr2line (line 0).
 *
 * Cache: an open-addressed table of entry pointers keyed by address, grown
 * at half load. Entries are allocated one by one, so a pointer handed out
 * stays valid across growth until srcline_dso__close(). Names and paths
 * point into libdw's data (.debug_str, the line table's file list) or the
 * ELF string tables, which live as long as the object, or into its table
 * of comp_dir-joined paths, so entries copy no strings.
 * Unknown answers are cached as well: perf asks the same unknown address
 * as often as a known one.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include "internal.h"
#include "symtab.h"
#include "srcline.h"

/* perf's MAX_INLINE_NEST: deeper chains are cut there. */
#define MAX_INLINE_NEST 1024

struct entry {
	uint64_t addr;
	int status; /* 0 or -ENOENT */
	struct srcline_info info;
	struct srcline_frame frames[]; /* info.nframes of them */
};

struct cu_range {
	uint64_t lo, hi;
	int cu; /* in srcline_dso.cux */
};

/* A function DIE with code: a subprogram or an inlined subroutine. */
struct fnode {
	Dwarf_Die die;
	int cfirst, clast; /* its children's ranges in cu_index.ranges */
};

struct frange {
	uint64_t lo, hi;
	int node, parent; /* parent: the enclosing fnode, -1 at the top */
};

/*
 * A CU's functions as a tree of address ranges, built by one walk of its
 * DIEs at its first lookup: a lookup then descends it by binary search
 * instead of walking the DIEs again (dwarf_getscopes does, each time).
 */
struct cu_index {
	Dwarf_Die die;
	Dwarf_Half version;
	bool built, rows_read, decoded;
	Dwarf_Lines *lines;
	size_t nlines;
	uint8_t *default_file; /* per row: file number 1 from the register's default */
	struct fnode *nodes;
	int nnodes, nodes_alloc;
	struct frange *ranges; /* sorted by (parent, lo) */
	int nranges, ranges_alloc;
	int rfirst, rlast; /* the top-level ranges */
};

struct joined {
	const char *file, *dir; /* libdw's */
	char *full;
};

struct sec {
	uint64_t lo, hi;
	uint16_t idx;
};

struct fsym;

struct srcline_dso {
	struct elf_obj run;   /* the DSO file */
	struct elf_obj dbg;   /* a separate debug file, when one is used */
	Dwarf *dwarf;	      /* NULL: no debug info */
	char *debug_file;     /* the file @dwarf reads */
	struct entry **slots; /* nslots, a power of two; NULL: empty slot */
	size_t nslots, used;
	uint64_t hits, misses;
	struct cu_range *cus; /* sorted by lo, read at the first lookup */
	int ncus, cus_alloc;
	struct cu_index *cux;
	int ncux, cux_alloc;
	struct cu_range *seqs; /* sequences of the line tables read so far */
	int nseqs, seqs_alloc;
	bool seqs_dirty; /* not sorted since the last addition */
	bool cus_read;
	struct joined *joined; /* comp_dir-joined file names */
	int njoined, joined_alloc;
	int *jslots; /* index + 1 into joined, by hash of the two pointers */
	size_t njslots;
	Elf *sym_elf;	    /* the file whose symbols stand in for DWARF */
	struct fsym *fsyms; /* function symbols, sorted by value */
	int nfsyms, fsyms_alloc;
	struct sec *secs; /* allocated sections, in header order */
	int nsecs, secs_alloc;
	bool fsyms_read;
};

/* ---- finding the debug info ---- */

/* @o open on @path when it has DWARF and matches @run (build id, else CRC when @crc). */
static bool try_debug(struct elf_obj *o, const char *path, const struct elf_obj *run,
		      const uint32_t *crc)
{
	struct stat st;
	uint32_t c;

	if (stat(path, &st) || !S_ISREG(st.st_mode) || elf_obj_open(o, path))
		return false;
	if (run->build_id_size) {
		if (o->build_id_size != run->build_id_size ||
		    memcmp(o->build_id, run->build_id, (size_t)run->build_id_size))
			goto reject;
	} else if (crc && (file_crc32(path, &c) || c != *crc)) {
		goto reject;
	}
	return true;
reject:
	elf_obj_close(o);
	return false;
}

static void hexid(char *out, const uint8_t *id, int size)
{
	static const char digits[] = "0123456789abcdef";

	for (int i = 0; i < size; i++) {
		out[2 * i] = digits[id[i] >> 4];
		out[2 * i + 1] = digits[id[i] & 15];
	}
	out[2 * (size > 0 ? size : 0)] = '\0';
}

/* Open DWARF from @o; true when it has some. */
static bool dwarf_from(struct srcline_dso *d, struct elf_obj *o, const char *path)
{
	Dwarf *dw = dwarf_begin_elf(o->elf, DWARF_C_READ, NULL);

	if (!dw)
		return false;
	d->debug_file = strdup(path);
	if (!d->debug_file) {
		dwarf_end(dw);
		return false;
	}
	d->dwarf = dw;
	return true;
}

/* A separate debug file of @path, in perf's order (dso__load's binary types). */
static bool find_separate(struct srcline_dso *d, const char *path)
{
	char link[256], dir[PATH_MAX], cand[PATH_MAX], id[41];
	const char *slash = strrchr(path, '/');
	size_t dlen = slash ? (size_t)(slash - path) : 0;
	uint32_t crc;

	if (dlen < sizeof(dir) && !elf_obj_debuglink(&d->run, link, sizeof(link), &crc)) {
		const char *fmts[] = { "%s/%s", "%s/.debug/%s", "/usr/lib/debug%s/%s" };

		memcpy(dir, path, dlen);
		dir[dlen] = '\0';
		for (size_t i = 0; i < ARRAY_SIZE(fmts); i++) {
			int n = snprintf(cand, sizeof(cand), fmts[i], dir, link);

			if (n <= 0 || (size_t)n >= sizeof(cand) || !strcmp(cand, path))
				continue;
			if (try_debug(&d->dbg, cand, &d->run, &crc)) {
				if (dwarf_from(d, &d->dbg, cand))
					return true;
				elf_obj_close(&d->dbg);
			}
		}
	}
	if (d->run.build_id_size >= 2) {
		hexid(id, d->run.build_id, d->run.build_id_size);
		snprintf(cand, sizeof(cand), "/usr/lib/debug/.build-id/%.2s/%s.debug", id, id + 2);
		if (try_debug(&d->dbg, cand, &d->run, NULL)) {
			if (dwarf_from(d, &d->dbg, cand))
				return true;
			elf_obj_close(&d->dbg);
		}
	}
	return false;
}

struct srcline_dso *srcline_dso__open(const char *path, const char *debug_path)
{
	struct srcline_dso *d;
	int err;

	if (!path)
		return pcl_err_null(EINVAL, "srcline_dso__open: no path");
	d = calloc(1, sizeof(*d));
	if (!d)
		return pcl_err_null(ENOMEM, "no memory for the source lines of '%s'", path);
	d->run.fd = d->dbg.fd = -1;
	err = elf_obj_open(&d->run, path);
	if (err) {
		free(d);
		return pcl_err_null(-err, NULL);
	}
	if (debug_path) {
		if (!elf_obj_open(&d->dbg, debug_path) && !dwarf_from(d, &d->dbg, debug_path))
			elf_obj_close(&d->dbg);
	} else if (!find_separate(d, path)) {
		dwarf_from(d, &d->run, path);
	}
	/* addr2line reads the symbols of the file it is given: the debug file if any. */
	d->sym_elf = d->dbg.elf ? d->dbg.elf : d->run.elf;
	return d;
}

void srcline_dso__close(struct srcline_dso *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nslots; i++)
		free(d->slots[i]);
	free(d->slots);
	free(d->cus);
	free(d->seqs);
	for (int i = 0; i < d->ncux; i++) {
		free(d->cux[i].nodes);
		free(d->cux[i].ranges);
		free(d->cux[i].default_file);
	}
	free(d->cux);
	for (int i = 0; i < d->njoined; i++)
		free(d->joined[i].full);
	free(d->joined);
	free(d->jslots);
	free(d->fsyms);
	free(d->secs);
	if (d->dwarf)
		dwarf_end(d->dwarf);
	free(d->debug_file);
	elf_obj_close(&d->dbg);
	elf_obj_close(&d->run);
	free(d);
}

const char *srcline_dso__debug_file(const struct srcline_dso *d)
{
	return d ? d->debug_file : NULL;
}

void srcline_dso__stats(const struct srcline_dso *d, uint64_t *hits, uint64_t *misses)
{
	*hits = d ? d->hits : 0;
	*misses = d ? d->misses : 0;
}

/* ---- the CUs by address ---- */

/*
 * Every CU's address ranges, sorted, read once. Not .debug_aranges
 * (dwarf_addrdie): a CU it leaves out would be unknown, while addr2line
 * scans the CUs' own ranges.
 */
static int cu_range_cmp(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int add_range(struct cu_range **v, int *n, int *alloc, uint64_t lo, uint64_t hi, int cu)
{
	if (grow_array((void **)v, alloc, *n + 1, sizeof(**v)))
		return -ENOMEM;
	(*v)[(*n)++] = (struct cu_range){ .lo = lo, .hi = hi, .cu = cu };
	return 0;
}

static int add_cu_range(struct srcline_dso *d, uint64_t lo, uint64_t hi)
{
	return add_range(&d->cus, &d->ncus, &d->cus_alloc, lo, hi, d->ncux);
}

/* The sequences of CU @cu's line table, as ranges into @v. */
static int ranges_from_lines(Dwarf_Die *die, int cu, struct cu_range **v, int *n, int *alloc)
{
	Dwarf_Lines *lines;
	size_t nl;
	bool open = false, ended = false;
	Dwarf_Addr start = 0, end_addr = 0;

	if (dwarf_getsrclines(die, &lines, &nl))
		return 0;
	for (size_t i = 0; i < nl; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		bool end;

		if (!l || dwarf_lineaddr(l, &a) || dwarf_lineendsequence(l, &end))
			continue;
		/*
		 * libdw sorts rows by address, and the rows of one sequence at
		 * one address in no fixed order: a row of the sequence that
		 * ended may come after its end row. It starts no sequence.
		 */
		if (ended && a == end_addr && !end)
			continue;
		ended = false;
		if (!open) {
			start = a;
			open = true;
		}
		if (end) {
			if (a > start && add_range(v, n, alloc, start, a, cu))
				return -ENOMEM;
			open = false;
			ended = true;
			end_addr = a;
		}
	}
	return 0;
}

static int read_cu_ranges(struct srcline_dso *d)
{
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Die cudie;
	uint8_t type;
	Dwarf_Half ver;

	d->cus_read = true;
	while (dwarf_get_units(d->dwarf, cu, &next, &ver, &type, &cudie, NULL) == 0) {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;
		int n0;

		cu = next;
		if (dwarf_tag(&cudie) != DW_TAG_compile_unit &&
		    dwarf_tag(&cudie) != DW_TAG_partial_unit)
			continue;
		if (grow_array((void **)&d->cux, &d->cux_alloc, d->ncux + 1, sizeof(*d->cux)))
			return -ENOMEM;
		d->cux[d->ncux] = (struct cu_index){ .die = cudie, .version = ver };
		n0 = d->ncus;
		while ((off = dwarf_ranges(&cudie, off, &base, &lo, &hi)) > 0) {
			if (hi > lo && add_cu_range(d, lo, hi))
				return -ENOMEM;
		}
		/* No ranges on the CU: its line table's sequences, as bfd reads them then. */
		if (d->ncus == n0 &&
		    ranges_from_lines(&cudie, d->ncux, &d->cus, &d->ncus, &d->cus_alloc))
			return -ENOMEM;
		d->ncux++;
	}
	if (d->ncus > 1) /* NULL when none: qsort's array may not be */
		qsort(d->cus, (size_t)d->ncus, sizeof(*d->cus), cu_range_cmp);
	return 0;
}

/* The CU of the range among @v[0, @n) (sorted by lo) that holds @addr. */
static struct cu_index *range_cu(struct srcline_dso *d, const struct cu_range *v, int n,
				 uint64_t addr)
{
	int lo = 0, hi = n;

	while (lo < hi) { /* the first range starting above @addr */
		int mid = lo + (hi - lo) / 2;

		if (v[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Ranges rarely overlap; look back a little in case they do. */
	for (int i = lo - 1; i >= 0 && i >= lo - 8; i--) {
		if (addr < v[i].hi)
			return &d->cux[v[i].cu];
	}
	return NULL;
}

/*
 * The CU of @addr: by the CUs' ranges, else by the line table sequences of
 * the CUs that earlier lookups read. That is bfd's state in addr2line: it
 * adds a CU's sequences to its address ranges when it decodes the CU's
 * line table, so an address in padding after a function (outside the
 * CU's DW_AT_ranges, inside a sequence) gets the sequence's last row only
 * if that CU was asked before. perf asks each distinct address once, in
 * the order it meets them, as this object computes them: the same state.
 */
static struct cu_index *find_cu(struct srcline_dso *d, uint64_t addr)
{
	struct cu_index *x;

	if (!d->cus_read && read_cu_ranges(d))
		return NULL;
	x = range_cu(d, d->cus, d->ncus, addr);
	if (x)
		return x;
	if (d->seqs_dirty) {
		qsort(d->seqs, (size_t)d->nseqs, sizeof(*d->seqs), cu_range_cmp);
		d->seqs_dirty = false;
	}
	return range_cu(d, d->seqs, d->nseqs, addr);
}

/* @x's line table has been read: its sequences now place addresses too. */
static void cu_decoded(struct srcline_dso *d, struct cu_index *x)
{
	if (x->decoded)
		return;
	x->decoded = true;
	if (!ranges_from_lines(&x->die, (int)(x - d->cux), &d->seqs, &d->nseqs, &d->seqs_alloc))
		d->seqs_dirty = true;
}

/* ---- file names ---- */

/*
 * A line table's file name as addr2line prints it: a relative one is
 * joined to the CU's DW_AT_comp_dir. The joined strings are kept in a
 * small table keyed by the two pointers (libdw's strings do not move).
 */
/* The slot of (@file, @dir): its own, or the empty one where it would go. */
static size_t joined_slot(const struct srcline_dso *d, const char *file, const char *dir)
{
	size_t mask = d->njslots - 1, i;

	if (!d->njslots)
		return 0;
	i = (size_t)hash_mix(hash_mix(0, (uintptr_t)file), (uintptr_t)dir) & mask;
	for (; d->jslots[i]; i = (i + 1) & mask) {
		const struct joined *j = &d->joined[d->jslots[i] - 1];

		if (j->file == file && j->dir == dir)
			break;
	}
	return i;
}

static int joined_grow(struct srcline_dso *d)
{
	size_t n = d->njslots ? d->njslots * 2 : 64;
	int *old = d->jslots;

	d->jslots = calloc(n, sizeof(*d->jslots));
	if (!d->jslots) {
		d->jslots = old;
		return -ENOMEM;
	}
	free(old);
	d->njslots = n;
	for (int k = 0; k < d->njoined; k++)
		d->jslots[joined_slot(d, d->joined[k].file, d->joined[k].dir)] = k + 1;
	return 0;
}

static const char *full_name(struct srcline_dso *d, Dwarf_Die *cu, const char *file)
{
	Dwarf_Attribute a;
	const char *dir;
	char *joined;
	size_t h;

	if (!file || file[0] == '/' || !dwarf_attr(cu, DW_AT_comp_dir, &a) ||
	    !(dir = dwarf_formstring(&a)) || !dir[0])
		return file;
	h = joined_slot(d, file, dir);
	if (h < d->njslots && d->jslots[h])
		return d->joined[d->jslots[h] - 1].full;
	if (((size_t)d->njoined + 1) * 2 > d->njslots && joined_grow(d))
		return file;
	if (grow_array((void **)&d->joined, &d->joined_alloc, d->njoined + 1, sizeof(*d->joined)) ||
	    asprintf(&joined, "%s/%s", dir, file) < 0)
		return file;
	d->joined[d->njoined++] = (struct joined){ .file = file, .dir = dir, .full = joined };
	d->jslots[joined_slot(d, file, dir)] = d->njoined;
	return joined;
}

/*
 * binutils 2.40 (addr2line, so perf) names a DWARF 5 row's file wrongly in
 * one case: before the first DW_LNS_set_file of a sequence the file
 * register holds its default, 1, and binutils names entry 0 (the primary
 * file) instead. gcc usually repeats the primary file as entry 1, so this
 * shows only where entry 1 is another file (glibc's CUs whose first code
 * comes from a header). readelf -wL and libdw name entry 1. To print what
 * perf prints, the rows that still have the default file are marked once
 * per CU (the assembler writes DW_LNS_set_file only when the file changes,
 * so they are the rows of file 1 before the first other file of their
 * sequence), and named by entry 0.
 */
static void mark_default_files(struct cu_index *x)
{
	bool changed = false, ended = false;
	Dwarf_Addr end_addr = 0;

	x->rows_read = true;
	if (x->version < 5 || dwarf_getsrclines(&x->die, &x->lines, &x->nlines) || !x->nlines)
		return;
	x->default_file = calloc(x->nlines, 1);
	if (!x->default_file)
		return;
	for (size_t i = 0; i < x->nlines; i++) {
		Dwarf_Line *l = dwarf_onesrcline(x->lines, i);
		Dwarf_Files *files;
		Dwarf_Addr a;
		size_t idx = 1;
		bool end = false;

		if (!l || dwarf_line_file(l, &files, &idx) || dwarf_lineendsequence(l, &end) ||
		    dwarf_lineaddr(l, &a))
			continue;
		/*
		 * libdw sorts rows by address, and the rows of one sequence
		 * at one address in no fixed order: a row of the sequence
		 * that ended may come after its end row. Such a row (another
		 * file at the end address) does not start the next sequence.
		 */
		if (ended) {
			if (a == end_addr && idx != 1)
				continue;
			ended = changed = false;
		}
		x->default_file[i] = !changed && idx == 1;
		if (idx != 1)
			changed = true;
		if (end) {
			ended = true;
			end_addr = a;
		}
	}
}

/* Does @row (at @addr) of @x name file 1 by the register's default? */
static bool default_file_row(struct cu_index *x, Dwarf_Line *row, uint64_t addr)
{
	size_t lo = 0, hi;

	if (!x->rows_read)
		mark_default_files(x);
	if (!x->default_file)
		return false;
	hi = x->nlines;
	while (lo < hi) { /* the first row above @addr */
		size_t mid = lo + (hi - lo) / 2;
		Dwarf_Addr a = 0;

		dwarf_lineaddr(dwarf_onesrcline(x->lines, mid), &a);
		if (a <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = lo; k-- > 0 && lo - k <= 64;)
		if (dwarf_onesrcline(x->lines, k) == row)
			return x->default_file[k];
	return false;
}

/* ---- the symbol table, where DWARF has nothing ---- */

/*
 * binutils' addr2line falls back to the ELF symbol table when no line
 * covers an address (bfd's _bfd_elf_find_function): the function is the
 * closest symbol at or below the address in its section, the file is the
 * STT_FILE symbol before it (for a global symbol only when no STT_FILE
 * came after another symbol), the line 0. perf shows that as "FILE:0",
 * or "??:0" without a file. The candidates are kept sorted by address.
 */
struct fsym {
	uint64_t value, size; /* size 0 counts as 1, as bfd does */
	const char *name, *file;
	uint32_t order;
	uint16_t shndx;
	uint8_t type;
};

static int fsym_cmp(const void *a, const void *b)
{
	const struct fsym *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static bool maybe_function(const GElf_Sym *s, int type, int bind)
{
	if (type == STT_OBJECT || type == STT_TLS || type == STT_SECTION || type == STT_FILE ||
	    s->st_shndx == SHN_UNDEF || s->st_shndx >= SHN_LORESERVE)
		return false;
	/* annobin's markers: local hidden untyped labels of size 0. */
	return !(s->st_size == 0 && bind == STB_LOCAL && type == STT_NOTYPE &&
		 GELF_ST_VISIBILITY(s->st_other) == STV_HIDDEN);
}

static int read_fsyms(struct srcline_dso *d, Elf *elf)
{
	enum { NOTHING_SEEN, SYMBOL_SEEN, FILE_AFTER_SYMBOL } state = NOTHING_SEEN;
	Elf_Scn *scn = NULL, *tab = NULL;
	const char *file = NULL;
	GElf_Shdr sh, tsh = { 0 };
	Elf_Data *data;
	size_t n;

	d->fsyms_read = true;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB || (sh.sh_type == SHT_DYNSYM && !tab)) {
			tab = scn;
			tsh = sh;
		}
		if ((sh.sh_flags & SHF_ALLOC) && sh.sh_size &&
		    !grow_array((void **)&d->secs, &d->secs_alloc, d->nsecs + 1, sizeof(*d->secs)))
			d->secs[d->nsecs++] = (struct sec){ .lo = sh.sh_addr,
							    .hi = sh.sh_addr + sh.sh_size,
							    .idx = (uint16_t)elf_ndxscn(scn) };
	}
	if (!tab || !tsh.sh_entsize || !(data = elf_getdata(tab, NULL)))
		return 0;
	n = data->d_size / tsh.sh_entsize;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym sym;
		const char *name;
		int type, bind;

		if (!gelf_getsym(data, (int)i, &sym))
			break;
		name = elf_strptr(elf, tsh.sh_link, sym.st_name);
		type = GELF_ST_TYPE(sym.st_info);
		bind = GELF_ST_BIND(sym.st_info);
		if (type == STT_FILE) {
			file = name; /* "" too: the linker's separator, printed as ":?" */
			if (state == SYMBOL_SEEN)
				state = FILE_AFTER_SYMBOL;
			continue;
		}
		if (state == NOTHING_SEEN)
			state = SYMBOL_SEEN;
		if (!name || !maybe_function(&sym, type, bind))
			continue;
		if (grow_array((void **)&d->fsyms, &d->fsyms_alloc, d->nfsyms + 1,
			       sizeof(*d->fsyms)))
			return -ENOMEM;
		d->fsyms[d->nfsyms++] = (struct fsym){
			.value = sym.st_value,
			.size = sym.st_size ? sym.st_size : 1,
			.name = name,
			.file = bind == STB_LOCAL || state != FILE_AFTER_SYMBOL ? file : NULL,
			.order = (uint32_t)i,
			.shndx = sym.st_shndx,
			.type = (uint8_t)type,
		};
	}
	if (d->nfsyms > 1) /* qsort's array may not be NULL, even for none (a stripped file) */
		qsort(d->fsyms, (size_t)d->nfsyms, sizeof(*d->fsyms), fsym_cmp);
	return 0;
}

/* bfd's better_fit: should @c replace @best for @addr (both at or below it)? */
static bool better_fit(const struct fsym *best, const struct fsym *c, uint64_t addr)
{
	if (!best || c->value > best->value)
		return true;
	if (c->value < best->value)
		return false;
	if (best->value + best->size <= addr)
		return c->size > best->size;
	if (c->value + c->size <= addr)
		return false;
	if (best->type == STT_FUNC && c->type == STT_NOTYPE)
		return false;
	if (c->type == STT_FUNC && best->type == STT_NOTYPE)
		return true;
	return c->size < best->size;
}

static const struct fsym *symtab_function(struct srcline_dso *d, uint64_t addr)
{
	const struct fsym *best = NULL;
	const struct sec *sec = NULL;
	int lo = 0, hi, first;

	if (!d->fsyms_read && read_fsyms(d, d->sym_elf))
		return NULL;
	/* The first allocated section that holds @addr, as addr2line picks it. */
	for (int i = 0; i < d->nsecs && !sec; i++)
		if (addr >= d->secs[i].lo && addr < d->secs[i].hi)
			sec = &d->secs[i];
	if (!sec)
		return NULL;
	hi = d->nfsyms;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (d->fsyms[mid].value <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* The highest value at or below @addr among the section's symbols. */
	for (first = lo - 1; first >= 0; first--)
		if (d->fsyms[first].shndx == sec->idx)
			break;
	if (first < 0)
		return NULL;
	/* Then bfd's tie rules over the symbols at that value, in table order. */
	while (first > 0 && d->fsyms[first - 1].value == d->fsyms[first].value)
		first--;
	for (int i = first; i < lo; i++) {
		const struct fsym *c = &d->fsyms[i];

		if (c->shndx == sec->idx && c->value == d->fsyms[lo - 1].value &&
		    better_fit(best, c, addr))
			best = c;
	}
	return best;
}

/* ---- one lookup through libdw ---- */

/* What addr2line -f names a function: the linkage name when there is one. */
static const char *die_func_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *s;

	if ((dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	     dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a)) &&
	    (s = dwarf_formstring(&a)))
		return s;
	if (dwarf_attr_integrate(die, DW_AT_name, &a) && (s = dwarf_formstring(&a)))
		return s;
	return NULL;
}

/* The lowest address of @die's first range (bfd's arange.low); false when none. */
static bool die_low(Dwarf_Die *die, uint64_t *low)
{
	Dwarf_Addr lo, hi, base;

	if (dwarf_lowpc(die, &lo) == 0 || dwarf_ranges(die, 0, &base, &lo, &hi) > 0) {
		*low = lo;
		return true;
	}
	return false;
}

static bool has_linkage_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	       dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a);
}

/*
 * bfd's mangle_style() is 0 for these languages: their DW_AT_name counts
 * as a linkage name, and addr2line prints it as it is. (Assembly too: on
 * libc, addr2line names gas's DIE, not a symbol-table alias.)
 */
static bool name_is_linkage(Dwarf_Die *cu)
{
	Dwarf_Attribute a;
	Dwarf_Word lang;

	if (!dwarf_attr(cu, DW_AT_language, &a) || dwarf_formudata(&a, &lang))
		return false;
	switch (lang) {
	case DW_LANG_C89:
	case DW_LANG_C:
	case DW_LANG_C99:
	case DW_LANG_C11:
	case DW_LANG_Fortran77:
	case DW_LANG_Fortran90:
	case DW_LANG_Fortran95:
	case DW_LANG_Fortran03:
	case DW_LANG_Fortran08:
	case DW_LANG_Mips_Assembler:
		return true;
	default:
		return false;
	}
}

/*
 * In other languages (C++ without a linkage name, ...), binutils names the
 * innermost function by the symbol table when the symbol that covers the
 * address starts where the function does.
 */
static void symbol_name(struct srcline_dso *d, Dwarf_Die *cu, uint64_t addr, Dwarf_Die *fn,
			struct srcline_frame *frame)
{
	const struct fsym *f;
	uint64_t low;

	if (has_linkage_name(fn) || name_is_linkage(cu) || !die_low(fn, &low))
		return;
	f = symtab_function(d, addr);
	if (f && f->value == low)
		frame->func = f->name;
}

/* The call site of inlined subroutine @die: file and line into @f. */
static void call_site(struct srcline_dso *d, Dwarf_Die *cu, Dwarf_Die *die, Dwarf_Files *files,
		      size_t nfiles, struct srcline_frame *f)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	f->file = NULL;
	f->line = 0;
	if (files && dwarf_attr(die, DW_AT_call_file, &a) && !dwarf_formudata(&a, &w) && w < nfiles)
		f->file = full_name(d, cu, dwarf_filesrc(files, w, NULL, NULL));
	if (dwarf_attr(die, DW_AT_call_line, &a) && !dwarf_formudata(&a, &w) && w <= UINT_MAX)
		f->line = (unsigned int)w;
}

/* Only these can hold functions with code (types and variables cannot). */
static bool may_hold_functions(int tag)
{
	switch (tag) {
	case DW_TAG_subprogram:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_lexical_block:
	case DW_TAG_namespace:
	case DW_TAG_module:
	case DW_TAG_compile_unit:
	case DW_TAG_partial_unit:
		return true;
	default:
		return false;
	}
}

static int index_walk(struct cu_index *x, Dwarf_Die *die, int parent, int depth)
{
	Dwarf_Die child;

	if (depth > MAX_INLINE_NEST || dwarf_child(die, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child), me = parent;

		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
			Dwarf_Addr base, lo, hi;
			ptrdiff_t off = 0;

			while ((off = dwarf_ranges(&child, off, &base, &lo, &hi)) > 0) {
				if (hi <= lo)
					continue;
				if (me == parent) {
					if (grow_array((void **)&x->nodes, &x->nodes_alloc,
						       x->nnodes + 1, sizeof(*x->nodes)))
						return -ENOMEM;
					x->nodes[x->nnodes] = (struct fnode){ .die = child };
					me = x->nnodes++;
				}
				if (grow_array((void **)&x->ranges, &x->ranges_alloc,
					       x->nranges + 1, sizeof(*x->ranges)))
					return -ENOMEM;
				x->ranges[x->nranges++] = (struct frange){
					.lo = lo, .hi = hi, .node = me, .parent = parent
				};
			}
		}
		if (may_hold_functions(tag) && index_walk(x, &child, me, depth + 1))
			return -ENOMEM;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

static int frange_cmp(const void *a, const void *b)
{
	const struct frange *x = a, *y = b;

	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int index_build(struct cu_index *x)
{
	x->built = true;
	if (index_walk(x, &x->die, -1, 0))
		return -ENOMEM;
	if (x->nranges > 1) /* NULL when the CU has no function */
		qsort(x->ranges, (size_t)x->nranges, sizeof(*x->ranges), frange_cmp);
	x->rfirst = x->rlast = 0;
	for (int i = 0; i < x->nnodes; i++)
		x->nodes[i].cfirst = x->nodes[i].clast = 0;
	for (int i = 0; i < x->nranges;) {
		int p = x->ranges[i].parent, j = i;

		while (j < x->nranges && x->ranges[j].parent == p)
			j++;
		if (p < 0) {
			x->rfirst = i;
			x->rlast = j;
		} else {
			x->nodes[p].cfirst = i;
			x->nodes[p].clast = j;
		}
		i = j;
	}
	return 0;
}

/*
 * The range among [first, last) (sorted by lo) that holds @addr, or -1.
 * When several do (assembly: one DIE per alias, same range), bfd's choice:
 * the shortest, and of equal ones the later DIE.
 */
static int range_at(const struct frange *r, int first, int last, uint64_t addr)
{
	int best = -1;

	int lo = first, hi = last;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (r[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (int i = lo - 1; i >= first && i >= lo - 8; i--) {
		uint64_t len = r[i].hi - r[i].lo;

		if (addr >= r[i].hi)
			continue;
		if (best < 0 || len < r[best].hi - r[best].lo ||
		    (len == r[best].hi - r[best].lo && r[i].node > r[best].node))
			best = i;
	}
	return best;
}

/*
 * The function DIEs that contain @addr in @x, innermost first, up to and
 * including the out-of-line function (the first subprogram from the
 * inside), into *@fn (malloc'ed, pointing into @x); their count, or
 * -ENOMEM. The concrete chain: an inlined subroutine's callers are the
 * DIEs around it, not its abstract definition's.
 */
static int function_scopes(struct cu_index *x, uint64_t addr, Dwarf_Die ***fn)
{
	int path[64], depth = 0, first, last, n = 0;

	*fn = NULL;
	if (!x->built && index_build(x))
		return -ENOMEM;
	first = x->rfirst;
	last = x->rlast;
	while (depth < (int)ARRAY_SIZE(path)) {
		int i = range_at(x->ranges, first, last, addr);

		if (i < 0)
			break;
		path[depth++] = x->ranges[i].node;
		first = x->nodes[x->ranges[i].node].cfirst;
		last = x->nodes[x->ranges[i].node].clast;
	}
	if (!depth)
		return 0;
	*fn = malloc((size_t)depth * sizeof(**fn));
	if (!*fn)
		return -ENOMEM;
	for (int k = depth - 1; k >= 0; k--) {
		Dwarf_Die *die = &x->nodes[path[k]].die;

		(*fn)[n++] = die;
		if (dwarf_tag(die) == DW_TAG_subprogram)
			break;
	}
	return n;
}

static struct entry *entry_new(uint64_t addr, int status, int nframes)
{
	struct entry *e = calloc(1, sizeof(*e) + (size_t)nframes * sizeof(e->frames[0]));

	if (e) {
		e->addr = addr;
		e->status = status;
		e->info.nframes = nframes;
		e->info.frames = e->frames;
	}
	return e;
}

/* No line for @addr: the symbol table's answer, or perf's unknown. */
static struct entry *lookup_symtab(struct srcline_dso *d, uint64_t addr)
{
	const struct fsym *f = symtab_function(d, addr);
	struct entry *e = entry_new(addr, f ? 0 : -ENOENT, f ? 1 : 0);

	if (e && f) {
		e->info.file = f->file;
		e->frames[0] = (struct srcline_frame){ .func = f->name, .file = f->file };
	}
	return e;
}

/* Compute the entry of @addr (status set); NULL on ENOMEM. */
static struct entry *lookup(struct srcline_dso *d, uint64_t addr)
{
	Dwarf_Die cu, **fn = NULL;
	struct cu_index *x;
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;
	struct entry *e = NULL;
	Dwarf_Line *row;
	const char *file;
	int nfn, line = 0;

	if (!d->dwarf || !(x = find_cu(d, addr)))
		return lookup_symtab(d, addr);
	cu = x->die;
	cu_decoded(d, x);
	if (!(row = dwarf_getsrc_die(&cu, addr)) || !(file = dwarf_linesrc(row, NULL, NULL)) ||
	    dwarf_lineno(row, &line))
		return lookup_symtab(d, addr);
	nfn = function_scopes(x, addr, &fn);
	if (nfn < 0)
		goto out;
	if (dwarf_getsrcfiles(&cu, &files, &nfiles))
		files = NULL;
	e = entry_new(addr, 0, nfn ? nfn : 1);
	if (!e)
		goto out;
	if (default_file_row(x, row, addr) && files && nfiles)
		file = dwarf_filesrc(files, 0, NULL, NULL) ?: file;
	e->info.file = full_name(d, &cu, file);
	e->info.line = line > 0 ? (unsigned int)line : 0;
	if (!nfn) {
		/* A line but no function DIE (assembly): addr2line names the symbol. */
		const struct fsym *f = symtab_function(d, addr);

		e->frames[0].func = f ? f->name : NULL;
	}
	for (int k = 0; k < nfn; k++) {
		int decl = 0;

		e->frames[k].func = die_func_name(fn[k]);
		if (!dwarf_decl_line(fn[k], &decl) && decl > 0)
			e->frames[k].decl_line = (unsigned int)decl;
	}
	if (nfn)
		symbol_name(d, &cu, addr, fn[0], &e->frames[0]);
	e->frames[0].file = e->info.file;
	e->frames[0].line = e->info.line;
	for (int k = 1; k < nfn; k++)
		call_site(d, &cu, fn[k - 1], files, nfiles, &e->frames[k]);
out:
	free(fn);
	return e;
}

/* ---- the cache ---- */

static size_t slot_of(uint64_t addr, size_t mask)
{
	return (size_t)(hash_mix(0, addr) & mask);
}

static int grow(struct srcline_dso *d)
{
	size_t n = d->nslots ? d->nslots * 2 : 256;
	struct entry **s = calloc(n, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < d->nslots; i++) {
		struct entry *e = d->slots[i];
		size_t j;

		if (!e)
			continue;
		for (j = slot_of(e->addr, n - 1); s[j]; j = (j + 1) & (n - 1))
			;
		s[j] = e;
	}
	free(d->slots);
	d->slots = s;
	d->nslots = n;
	return 0;
}

int srcline_dso__find(struct srcline_dso *d, uint64_t addr, const struct srcline_info **out)
{
	struct entry *e;
	size_t j = 0;

	*out = NULL;
	if (!d)
		return pcl_err(EINVAL, "srcline_dso__find: no object");
	if (d->nslots) {
		for (j = slot_of(addr, d->nslots - 1); (e = d->slots[j]);
		     j = (j + 1) & (d->nslots - 1)) {
			if (e->addr == addr) {
				d->hits++;
				goto found;
			}
		}
	}
	if ((d->used + 1) * 2 > d->nslots) {
		if (grow(d))
			return pcl_err(ENOMEM, "no memory for the source line cache");
		for (j = slot_of(addr, d->nslots - 1); d->slots[j]; j = (j + 1) & (d->nslots - 1))
			;
	}
	e = lookup(d, addr);
	if (!e)
		return pcl_err(ENOMEM, "no memory for the source line of %#llx",
			       (unsigned long long)addr);
	d->slots[j] = e;
	d->used++;
	d->misses++;
found:
	if (e->status)
		return e->status;
	*out = &e->info;
	return 0;
}

/* ---- perf's strings ---- */

static const char *shown_file(const char *file, bool full)
{
	const char *slash;

	if (full)
		return file;
	/* basename(3) as perf calls it (the GNU one): what follows the last '/'. */
	slash = strrchr(file, '/');
	return slash ? slash + 1 : file;
}

int srcline_fileline(char *buf, size_t size, const struct srcline_info *info, bool full)
{
	if (!info)
		return snprintf(buf, size, "%s", SRCLINE_UNKNOWN);
	/* A symbol-table answer without a STT_FILE: addr2line's "??:?", perf's "??:0". */
	return snprintf(buf, size, "%s:%u", info->file ? shown_file(info->file, full) : "??",
			info->line);
}

int srcline_sort_key(char *buf, size_t size, const struct srcline_info *info, bool full,
		     const char *sym, uint64_t sym_off, const char *dso_short, uint64_t addr)
{
	if (info)
		return srcline_fileline(buf, size, info, full);
	if (sym)
		return snprintf(buf, size, "%s+%llu", sym, (unsigned long long)sym_off);
	return snprintf(buf, size, "%s[%llx]", dso_short ? dso_short : "",
			(unsigned long long)addr);
}

int srcline_script_field(char *buf, size_t size, const struct srcline_info *info, bool full,
			 const char *dso_short, uint64_t addr)
{
	int n = srcline_sort_key(buf, size, info, full, NULL, 0, dso_short, addr);

	/* perf compares the first four bytes, so "??:0" with anything after it too. */
	if (n >= 4 && size > 4 && !strncmp(buf, SRCLINE_UNKNOWN, 4)) {
		buf[0] = '\0';
		return 0;
	}
	return n;
}

int srcline_srcfile(char *buf, size_t size, const struct srcline_info *info, bool full)
{
	const char *f;

	/* perf's get_srcfile: "" for its unknown string, else the part before the first ':'. */
	if (!info || (!info->file && !info->line))
		return snprintf(buf, size, "%s", "");
	f = info->file ? shown_file(info->file, full) : "??";
	return snprintf(buf, size, "%.*s", (int)strcspn(f, ":"), f);
}
