/* SPDX-License-Identifier: MIT */
/*
 * Source lines and inline chains through libdw, answering what perf asks
 * `addr2line -e FILE -i -f ADDR` (perf 6.1 without libbfd shells out to
 * it), in process and cached.
 *
 * Per lookup: dwarf_addrdie() finds the CU, dwarf_getsrc_die() the line
 * table row (libdw reads a CU's table once and keeps it), dwarf_getscopes()
 * the DIEs that contain the address, innermost first. The functions among
 * them (inlined subroutines, then the subprogram) make the chain; level k
 * takes its position from the call site recorded on level k-1.
 *
 * Cache: an open-addressed table of entry pointers keyed by address, grown
 * at half load. Entries are allocated one by one, so a pointer handed out
 * stays valid across growth until srcline_dso__close(). Names and paths
 * point into libdw's data (.debug_str, the line table's file list), which
 * lives as long as the Dwarf handle, so entries copy no strings.
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

struct srcline_dso {
	struct elf_obj run;   /* the DSO file */
	struct elf_obj dbg;   /* a separate debug file, when one is used */
	Dwarf *dwarf;	      /* NULL: no debug info */
	char *debug_file;     /* the file @dwarf reads */
	struct entry **slots; /* nslots, a power of two; NULL: empty slot */
	size_t nslots, used;
	uint64_t hits, misses;
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
	return d;
}

void srcline_dso__close(struct srcline_dso *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nslots; i++)
		free(d->slots[i]);
	free(d->slots);
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

/* The call site of inlined subroutine @die: file and line into @f. */
static void call_site(Dwarf_Die *die, Dwarf_Files *files, size_t nfiles, struct srcline_frame *f)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	f->file = NULL;
	f->line = 0;
	if (files && dwarf_attr(die, DW_AT_call_file, &a) && !dwarf_formudata(&a, &w) &&
	    w < nfiles)
		f->file = dwarf_filesrc(files, w, NULL, NULL);
	if (dwarf_attr(die, DW_AT_call_line, &a) && !dwarf_formudata(&a, &w) && w <= UINT_MAX)
		f->line = (unsigned int)w;
}

/* The function DIEs among @scopes, innermost first, into @fn; their count. */
static int function_scopes(Dwarf_Die *scopes, int nscopes, Dwarf_Die **fn)
{
	int n = 0;

	for (int i = 0; i < nscopes && n < MAX_INLINE_NEST; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_inlined_subroutine) {
			fn[n++] = &scopes[i];
		} else if (tag == DW_TAG_subprogram) {
			fn[n++] = &scopes[i];
			break;
		}
	}
	return n;
}

/* Compute the entry of @addr (status set); NULL on ENOMEM. */
static struct entry *lookup(struct srcline_dso *d, uint64_t addr)
{
	Dwarf_Die cu, *scopes = NULL, **fn = NULL;
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;
	struct entry *e = NULL;
	Dwarf_Line *row;
	const char *file;
	int nscopes = 0, nfn = 0, line = 0;

	if (!d->dwarf || !dwarf_addrdie(d->dwarf, addr, &cu) ||
	    !(row = dwarf_getsrc_die(&cu, addr)) || !(file = dwarf_linesrc(row, NULL, NULL)) ||
	    dwarf_lineno(row, &line)) {
		e = calloc(1, sizeof(*e));
		if (e) {
			e->addr = addr;
			e->status = -ENOENT;
		}
		return e;
	}
	nscopes = dwarf_getscopes(&cu, addr, &scopes);
	if (nscopes > 0) {
		fn = malloc((size_t)nscopes * sizeof(*fn));
		if (!fn)
			goto out;
		nfn = function_scopes(scopes, nscopes, fn);
	}
	if (nfn > 1 && dwarf_getsrcfiles(&cu, &files, &nfiles))
		files = NULL;
	e = calloc(1, sizeof(*e) + (size_t)nfn * sizeof(e->frames[0]));
	if (!e)
		goto out;
	e->addr = addr;
	e->info.file = file;
	e->info.line = line > 0 ? (unsigned int)line : 0;
	e->info.nframes = nfn;
	e->info.frames = e->frames;
	for (int k = 0; k < nfn; k++) {
		e->frames[k].func = die_func_name(fn[k]);
		if (k == 0) {
			e->frames[k].file = e->info.file;
			e->frames[k].line = e->info.line;
		} else {
			call_site(fn[k - 1], files, nfiles, &e->frames[k]);
		}
	}
out:
	free(fn);
	free(scopes);
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
		for (j = slot_of(addr, d->nslots - 1); (e = d->slots[j]); j = (j + 1) & (d->nslots - 1)) {
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

static bool known(const struct srcline_info *info)
{
	return info && info->file;
}

int srcline_fileline(char *buf, size_t size, const struct srcline_info *info, bool full)
{
	if (!known(info))
		return snprintf(buf, size, "%s", SRCLINE_UNKNOWN);
	return snprintf(buf, size, "%s:%u", shown_file(info->file, full), info->line);
}

int srcline_sort_key(char *buf, size_t size, const struct srcline_info *info, bool full,
		     const char *sym, uint64_t sym_off, const char *dso_short, uint64_t addr)
{
	if (known(info))
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
		if (size)
			buf[0] = '\0';
		return 0;
	}
	return n;
}

int srcline_srcfile(char *buf, size_t size, const struct srcline_info *info, bool full)
{
	const char *f;

	if (!known(info))
		return snprintf(buf, size, "%s", "");
	/* perf cuts its "FILE:LINE" string at the first ':', even one in the path. */
	f = shown_file(info->file, full);
	return snprintf(buf, size, "%.*s", (int)strcspn(f, ":"), f);
}
