/* SPDX-License-Identifier: MIT */
/*
 * The symbolizer (contract in include/pcl/symbol.h): finds, loads once and
 * attaches a symbol table to each DSO of a machine.
 *
 * Per DSO kind:
 *   user    the file (under symfs) if its build id is the recorded one,
 *           else perf's build-id cache copy of the recorded build
 *           (BUILDID_DIR/.build-id/xx/rest/elf); its symbols from the best
 *           file: the file itself when it has .symtab, else separate debug
 *           info by build id (/usr/lib/debug/.build-id/xx/rest.debug), by
 *           .gnu_debuglink (beside it, in .debug/, under
 *           /usr/lib/debug/DIR/), or at /usr/lib/debug/PATH[.debug], or
 *           the cache's BUILDID_DIR/.build-id/xx/rest/debug, or
 *           from $DEBUGINFOD_URLS (debuginfod.h), which also stands in for
 *           a missing file; else the file's .dynsym. A debug file must carry
 *           the expected build id, or, when none is known, match the
 *           debuglink's CRC.
 *   vdso    this process's own vDSO image (the same kernel), else the
 *           cached [vdso]/ID/vdso when the recorded build id differs.
 *   kernel  --vmlinux, else a vmlinux of the recorded build at perf's usual
 *           places (/boot/vmlinux-RELEASE, /usr/lib/debug/boot/...), else
 *           kallsyms: --kallsyms, or /proc/kallsyms when the running kernel
 *           is the recorded one, else the cached [kernel.kallsyms]/ID/kallsyms.
 *   module  kallsyms, the same table as the kernel's (a vmlinux has no
 *           module symbols); /proc/kallsyms when the module's build id in
 *           /sys/module/NAME/notes is the recorded one.
 *   jit     /tmp/perf-PID.map, read where perf reads it (not under symfs),
 *           if this user or root owns it (or any_owner says so).
 * With a symfs, as perf's --symfs, the kernel and vDSO take no local file:
 * only a vmlinux under it, the files given by hand, or its cache.
 *
 * State: each DSO goes from PCL_DSO_SYMS_UNTRIED to a final status on its
 * first look-up, success or not, and is never tried again. Tables are
 * reference counted: a DSO's sym_free drops its reference, so shared
 * kernel and vDSO tables outlive whichever of the symbolizer and the
 * machine is freed first.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "internal.h"
#include "debuginfod.h"
#include "files.h"
#include "symtab.h"

/* A table shared by several DSOs, loaded on first need. */
struct shared_tab {
	bool tried;
	struct pcl_symtab *t;
	int status; /* when !t */
	char *note;
	uint8_t build_id[20]; /* of the file it came from (vmlinux, vDSO) */
	int build_id_size;
	char *path;	      /* the vmlinux it came from */
	const void *image;    /* the vDSO image it came from (this process's) */
	size_t image_size;
};

struct pcl_symbols {
	struct pcl_symbol_opts o;
	char *symfs, *vmlinux, *kallsyms;
	char *buildid_dir;		/* perf's build-id cache; NULL: none */
	struct shared_tab vmlinux_tab;	/* --vmlinux, or one found at perf's places */
	struct shared_tab kallsyms_tab; /* the kernel without a vmlinux, and its modules */
	struct shared_tab vdso;
	/* Each DSO's files (files.h), by DSO pointer: open addressing. */
	struct dso_files **files;
	size_t cap_files, nr_files;
	struct debuginfod *dfd; /* asks $DEBUGINFOD_URLS after the local places */
	struct inline_sym **isyms; /* symbols_inline_sym's, open addressing */
	size_t cap_isyms, nr_isyms;
};

static char *note_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *note_fmt(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

static void hex(char *out, const uint8_t *id, int size)
{
	for (int i = 0; i < size; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * (size > 0 ? size : 0)] = '\0';
}

static int set_status(struct pcl_dso *dso, int status, struct pcl_symtab *t, char *note)
{
	dso->sym_status = status;
	if (t) {
		dso->sym_priv = t;
		dso->sym_free = symtab_put;
	}
	if (note) {
		free(dso->sym_note);
		dso->sym_note = note;
		pr_debug("symbols: %s: %s\n", dso->name, note);
	}
	return status;
}

static void shared_reset(struct shared_tab *st)
{
	symtab_put(st->t);
	free(st->note);
	free(st->path);
	memset(st, 0, sizeof(*st));
}

/* ---- the files behind each DSO (files.h) ---- */

struct dso_files {
	const struct pcl_dso *dso;
	struct symbols_dso_files f;
	char *path, *debug;
	struct srcline_dso *sl;
	bool sl_tried;
};

static void files_free(struct pcl_symbols *s)
{
	for (size_t i = 0; i < s->cap_files; i++) {
		struct dso_files *df = s->files[i];

		if (!df)
			continue;
		srcline_dso__close(df->sl);
		free(df->path);
		free(df->debug);
		free(df);
	}
	free(s->files);
	s->files = NULL;
	s->cap_files = s->nr_files = 0;
}

static size_t files_slot(const struct pcl_symbols *s, const struct pcl_dso *dso)
{
	size_t j = hash_mix((uintptr_t)dso, 0) & (s->cap_files - 1);

	while (s->files[j] && s->files[j]->dso != dso)
		j = (j + 1) & (s->cap_files - 1);
	return j;
}

static struct dso_files *files_find(const struct pcl_symbols *s, const struct pcl_dso *dso)
{
	return s->cap_files ? s->files[files_slot(s, dso)] : NULL;
}

/*
 * Remember the files @dso's symbols came from: @path (code), @debug
 * (separate debug file), @segs (NULL: none), or a vDSO @image. Best
 * effort: without memory the DSO just has no files.
 */
static void files_note(struct pcl_symbols *s, const struct pcl_dso *dso, const char *path,
		       const char *debug, const struct elf_segs *segs, const void *image,
		       size_t image_size)
{
	struct dso_files *df;
	size_t j;

	if (files_find(s, dso))
		return;
	if ((s->nr_files + 1) * 2 > s->cap_files) {
		size_t ncap = s->cap_files ? s->cap_files * 2 : 64;
		struct dso_files **nt = calloc(ncap, sizeof(*nt)), **old = s->files;
		size_t ocap = s->cap_files;

		if (!nt)
			return;
		s->files = nt;
		s->cap_files = ncap;
		for (size_t i = 0; i < ocap; i++) {
			if (old[i])
				nt[files_slot(s, old[i]->dso)] = old[i];
		}
		free(old);
	}
	df = calloc(1, sizeof(*df));
	if (!df)
		return;
	df->dso = dso;
	df->path = path ? strdup(path) : NULL;
	df->debug = debug ? strdup(debug) : NULL;
	if ((path && !df->path) || (debug && !df->debug)) {
		free(df->path);
		free(df->debug);
		free(df);
		return;
	}
	df->f.path = df->path;
	df->f.debug = df->debug;
	df->f.image = image;
	df->f.image_size = image_size;
	if (segs)
		df->f.segs = *segs;
	df->f.absolute = dso->kind != PCL_DSO_USER && dso->kind != PCL_DSO_VDSO;
	j = files_slot(s, dso);
	s->files[j] = df;
	s->nr_files++;
}

static char *dup_opt(const char *s, bool *oom)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*oom = true;
	return d;
}

/* perf's: as given, else SYMFS/.debug, else $PERF_BUILDID_DIR, else $HOME/.debug. */
static char *default_buildid_dir(const char *opt, const char *symfs, bool *oom)
{
	const char *home;
	char *d;

	if (opt)
		return dup_opt(*opt ? opt : NULL, oom);
	if (symfs) {
		if (asprintf(&d, "%s/.debug", symfs) < 0) {
			*oom = true;
			return NULL;
		}
		return d;
	}
	opt = getenv("PERF_BUILDID_DIR");
	if (opt && *opt)
		return dup_opt(opt, oom);
	home = getenv("HOME");
	if (!home || !*home)
		return NULL;
	if (asprintf(&d, "%s/.debug", home) < 0) {
		*oom = true;
		return NULL;
	}
	return d;
}

PCL_API struct pcl_symbols *pcl_symbols__new(const struct pcl_symbol_opts *opts)
{
	struct pcl_symbols *s = calloc(1, sizeof(*s));
	bool oom = false;

	if (!s)
		goto nomem;
	if (opts_copy(&s->o, opts, "pcl_symbol_opts") < 0) {
		free(s);
		return pcl_err_null(EINVAL, NULL);
	}
	/* An empty symfs is no symfs; "/" is the same as none too. */
	if (s->o.symfs && *s->o.symfs && strcmp(s->o.symfs, "/"))
		s->symfs = dup_opt(s->o.symfs, &oom);
	s->vmlinux = dup_opt(s->o.vmlinux && *s->o.vmlinux ? s->o.vmlinux : NULL, &oom);
	s->kallsyms = dup_opt(s->o.kallsyms && *s->o.kallsyms ? s->o.kallsyms : NULL, &oom);
	s->buildid_dir = default_buildid_dir(s->o.buildid_dir, s->symfs, &oom);
	s->o.symfs = s->symfs;
	s->o.vmlinux = s->vmlinux;
	s->o.kallsyms = s->kallsyms;
	s->o.buildid_dir = s->buildid_dir ? s->buildid_dir : "";
	s->dfd = debuginfod_new(s->o.debuginfod_cb, s->o.debuginfod_ctx);
	oom |= !s->dfd;
	if (!oom)
		return s;
	pcl_symbols__free(s);
nomem:
	return pcl_err_null(ENOMEM, "pcl_symbols__new: no memory for a symbolizer");
}

static void isyms_free(struct pcl_symbols *s);

PCL_API void pcl_symbols__free(struct pcl_symbols *s)
{
	if (!s)
		return;
	shared_reset(&s->vmlinux_tab);
	shared_reset(&s->kallsyms_tab);
	shared_reset(&s->vdso);
	files_free(s);
	debuginfod_free(s->dfd);
	isyms_free(s);
	free(s->symfs);
	free(s->vmlinux);
	free(s->kallsyms);
	free(s->buildid_dir);
	free(s);
}

/* @path under symfs into @buf; false when it does not fit. */
static bool symfs_path(const struct pcl_symbols *s, const char *path, char *buf, size_t size)
{
	int n;

	if (s->symfs)
		n = snprintf(buf, size, "%s%s%s", s->symfs, path[0] == '/' ? "" : "/", path);
	else
		n = snprintf(buf, size, "%s", path);
	return n >= 0 && (size_t)n < size;
}

/*
 * The build-id cache's copy of @dso, the file @file ("elf", "kallsyms",
 * "vdso") of its build id: .build-id/xx/rest/ for files, NAME/ID/ for the
 * kernel and the vDSO. False when there is no cache or no build id.
 */
static bool cache_path(const struct pcl_symbols *s, const struct pcl_dso *dso, const char *file,
		       char *buf, size_t size)
{
	char id[41];
	int n;

	if (!s->buildid_dir || dso->build_id_size < 2)
		return false;
	hex(id, dso->build_id, dso->build_id_size);
	if (dso->kind == PCL_DSO_USER)
		n = snprintf(buf, size, "%s/.build-id/%.2s/%s/%s", s->buildid_dir, id, id + 2,
			     file);
	else
		n = snprintf(buf, size, "%s/%s/%s/%s", s->buildid_dir, dso->name, id, file);
	return n > 0 && (size_t)n < size;
}

static unsigned int user_flags(const struct pcl_symbols *s)
{
	if (s->o.no_demangle)
		return 0;
	return PCL_SYMTAB_DEMANGLE | (s->o.demangle_params ? PCL_SYMTAB_DEMANGLE_PARAMS : 0);
}

/* ---- user DSOs ---- */

/* What a candidate debug file must match. */
struct expect {
	const uint8_t *build_id; /* NULL: unknown */
	int build_id_size;
	bool have_crc;
	uint32_t crc; /* from the runtime file's .gnu_debuglink */
	char *found;  /* PATH_MAX bytes: the debug file taken, or NULL */
};

/* Open @path as a debug file for @e; true (and @o open) when it is one. */
static bool try_debug(struct elf_obj *o, const char *path, const struct expect *e, bool use_crc)
{
	struct stat st;
	uint32_t crc;

	if (stat(path, &st) || !S_ISREG(st.st_mode) || elf_obj_open(o, path))
		return false;
	if (!o->symtab)
		goto reject;
	if (e->build_id) {
		if (o->build_id_size != e->build_id_size ||
		    memcmp(o->build_id, e->build_id, (size_t)e->build_id_size))
			goto reject;
	} else if (use_crc && e->have_crc) {
		if (file_crc32(path, &crc) || crc != e->crc)
			goto reject;
	}
	pr_debug("symbols: using debug file %s\n", path);
	if (e->found)
		snprintf(e->found, PATH_MAX, "%s", path);
	return true;
reject:
	pr_debug("symbols: %s does not match, not used\n", path);
	elf_obj_close(o);
	return false;
}

/* The debug file of build id @e->build_id under /usr/lib/debug/.build-id/. */
static bool find_build_id_debug(const struct pcl_symbols *s, const struct expect *e,
				struct elf_obj *o)
{
	char rel[128], hexid[41], path[PATH_MAX];

	if (!e->build_id || e->build_id_size < 2)
		return false;
	hex(hexid, e->build_id, e->build_id_size);
	snprintf(rel, sizeof(rel), "/usr/lib/debug/.build-id/%.2s/%s.debug", hexid, hexid + 2);
	if (symfs_path(s, rel, path, sizeof(path)) && try_debug(o, path, e, false))
		return true;
	/* the copy perf record (and pcl record, pcl archive) kept beside the cached file */
	return s->buildid_dir &&
	       (size_t)snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s/debug", s->buildid_dir,
				hexid, hexid + 2) < sizeof(path) &&
	       try_debug(o, path, e, false);
}

/* By .gnu_debuglink @link of @name, then by path under /usr/lib/debug. */
static bool find_linked_debug(const struct pcl_symbols *s, const char *name, const char *link,
			      const struct expect *e, struct elf_obj *o)
{
	char dir[PATH_MAX], rel[PATH_MAX], path[PATH_MAX];
	const char *slash = strrchr(name, '/');
	size_t dlen = slash ? (size_t)(slash - name) : 0;

	if (dlen >= sizeof(dir))
		return false;
	memcpy(dir, name, dlen);
	dir[dlen] = '\0';
	if (link) {
		const char *fmts[] = { "%s/%s", "%s/.debug/%s", "/usr/lib/debug%s/%s" };

		for (size_t i = 0; i < ARRAY_SIZE(fmts); i++) {
			int n = snprintf(rel, sizeof(rel), fmts[i], dir, link);

			if (n > 0 && (size_t)n < sizeof(rel) && strcmp(rel, name) &&
			    symfs_path(s, rel, path, sizeof(path)) && try_debug(o, path, e, true))
				return true;
		}
	}
	/* Fedora's /usr/lib/debug/PATH.debug and Ubuntu's /usr/lib/debug/PATH. */
	if (!e->build_id)
		return false;
	for (int i = 0; i < 2; i++) {
		int n = snprintf(rel, sizeof(rel), "/usr/lib/debug%s%s", name, i ? "" : ".debug");

		if (n > 0 && (size_t)n < sizeof(rel) && symfs_path(s, rel, path, sizeof(path)) &&
		    try_debug(o, path, e, false))
			return true;
	}
	return false;
}

static char *mismatch_note(const char *path, const struct pcl_dso *dso, const struct elf_obj *run)
{
	char want[41], got[41];

	hex(want, dso->build_id, dso->build_id_size);
	hex(got, run->build_id, run->build_id_size);
	return note_fmt("build id mismatch for %s (recorded %s, on disk %s)", path, want,
			run->build_id_size ? got : "none");
}

/* The runtime file of @dso; a name perf marks " (deleted)" is tried without it. */
static int open_runtime(const struct pcl_symbols *s, const struct pcl_dso *dso, struct elf_obj *run,
			char *path, size_t size)
{
	static const char deleted[] = " (deleted)";
	size_t len = strlen(dso->name), dl = sizeof(deleted) - 1;
	int err;

	memset(run, 0, sizeof(*run));
	run->fd = -1;
	if (!symfs_path(s, dso->name, path, size))
		return pcl_err(ENAMETOOLONG, "path too long: %s", dso->name);
	err = elf_obj_open(run, path);
	if (err == -ENOENT && len > dl && !strcmp(dso->name + len - dl, deleted) &&
	    len - dl < size) {
		char name[PATH_MAX];

		memcpy(name, dso->name, len - dl);
		name[len - dl] = '\0';
		if (symfs_path(s, name, path, size))
			err = elf_obj_open(run, path);
	}
	return err;
}

/*
 * @cpath, a copy of the recorded build (perf's build-id cache, debuginfod's
 * cache), replaces @run (closed if open) when it is that build; @path
 * becomes its path.
 */
static bool open_copy(const struct pcl_dso *dso, const char *cpath, struct elf_obj *run, char *path,
		      size_t size)
{
	struct elf_obj c;

	if (access(cpath, R_OK) || elf_obj_open(&c, cpath))
		return false;
	if (c.build_id_size != dso->build_id_size ||
	    memcmp(c.build_id, dso->build_id, dso->build_id_size) ||
	    (size_t)snprintf(path, size, "%s", cpath) >= size) {
		elf_obj_close(&c);
		return false;
	}
	pr_debug("symbols: %s from %s\n", dso->name, cpath);
	if (run->elf)
		elf_obj_close(run);
	*run = c;
	return true;
}

/* perf record's copy of the recorded build, else debuginfod's (debuginfod.h). */
static bool open_cached(const struct pcl_symbols *s, const struct pcl_dso *dso, struct elf_obj *run,
			char *path, size_t size)
{
	char cpath[PATH_MAX];

	if (cache_path(s, dso, "elf", cpath, sizeof(cpath)) &&
	    open_copy(dso, cpath, run, path, size))
		return true;
	return dso->build_id_size &&
	       !debuginfod_fetch(s->dfd, DEBUGINFOD_EXECUTABLE, dso->name, dso->build_id,
				 dso->build_id_size, cpath, sizeof(cpath)) &&
	       open_copy(dso, cpath, run, path, size);
}

/* The debug file of @e->build_id from debuginfod, checked as a local one is. */
static bool fetch_debug(const struct pcl_symbols *s, const struct pcl_dso *dso,
			const struct expect *e, struct elf_obj *o)
{
	char path[PATH_MAX];

	return e->build_id &&
	       !debuginfod_fetch(s->dfd, DEBUGINFOD_DEBUGINFO, dso->name, e->build_id,
				 e->build_id_size, path, sizeof(path)) &&
	       try_debug(o, path, e, false);
}

static int user_table(struct pcl_dso *dso, struct elf_obj *syms, const struct elf_segs *segs,
		      struct elf_obj *plt, unsigned int flags, const char *path)
{
	struct pcl_symtab *t =
		elf_obj_symtab(syms, segs && segs->n ? segs : NULL, plt, flags, path);

	if (!t)
		return set_status(dso, PCL_DSO_SYMS_ERROR, NULL, note_fmt("%s", pcl_last_error()));
	return set_status(dso, PCL_DSO_SYMS_OK, t, NULL);
}

static int load_user(struct pcl_symbols *s, struct pcl_dso *dso)
{
	char path[PATH_MAX], link[256], dbgpath[PATH_MAX] = "";
	struct elf_obj run, dbg;
	struct elf_segs segs;
	struct expect e = { .found = dbgpath };
	bool have_run, have_dbg = false, mismatch = false, has_link = false;
	int err, ret;

	if (dso->name[0] != '/')
		return set_status(dso, PCL_DSO_SYMS_NOT_FOUND, NULL,
				  note_fmt("%s is not a file", dso->name));
	err = open_runtime(s, dso, &run, path, sizeof(path));
	have_run = !err;
	if (have_run && dso->build_id_size &&
	    (run.build_id_size != dso->build_id_size ||
	     memcmp(run.build_id, dso->build_id, dso->build_id_size)))
		mismatch = true;
	if ((!have_run || mismatch) && open_cached(s, dso, &run, path, sizeof(path))) {
		have_run = true;
		mismatch = false;
	}
	/* Debug info matches the recording, else (forced) the file on disk. */
	if (dso->build_id_size && (!mismatch || !s->o.ignore_build_ids)) {
		e.build_id = dso->build_id;
		e.build_id_size = dso->build_id_size;
	} else if (have_run && run.build_id_size) {
		e.build_id = run.build_id;
		e.build_id_size = run.build_id_size;
	}
	if (have_run && !run.symtab)
		has_link = !elf_obj_debuglink(&run, link, sizeof(link), &e.crc);
	e.have_crc = has_link;
	/* A file that has its .symtab and is the recorded one is the best there is. */
	if (!(have_run && run.symtab && !mismatch)) {
		have_dbg = find_build_id_debug(s, &e, &dbg);
		if (!have_dbg && (have_run || e.build_id))
			have_dbg =
				find_linked_debug(s, dso->name, has_link ? link : NULL, &e, &dbg);
		if (!have_dbg)
			have_dbg = fetch_debug(s, dso, &e, &dbg);
	}
	if (have_dbg) {
		bool run_ok = have_run && (!mismatch || s->o.ignore_build_ids);

		elf_obj_segs(run_ok ? &run : &dbg, &segs);
		ret = user_table(dso, &dbg, &segs, run_ok ? &run : NULL, user_flags(s), path);
		files_note(s, dso, run_ok ? path : NULL, dbgpath[0] ? dbgpath : NULL, &segs, NULL, 0);
		elf_obj_close(&dbg);
	} else if (have_run && mismatch && !s->o.ignore_build_ids) {
		ret = set_status(dso, PCL_DSO_SYMS_BAD_BUILD_ID, NULL,
				 mismatch_note(path, dso, &run));
	} else if (have_run) {
		elf_obj_segs(&run, &segs);
		ret = user_table(dso, &run, &segs, &run, user_flags(s), path);
		files_note(s, dso, path, NULL, &segs, NULL, 0);
	} else {
		bool missing = err == -ENOENT || err == -ENOTDIR || err == -ENAMETOOLONG;

		ret = set_status(dso, missing ? PCL_DSO_SYMS_NOT_FOUND : PCL_DSO_SYMS_ERROR, NULL,
				 note_fmt("%s", pcl_last_error()));
	}
	if (have_run)
		elf_obj_close(&run);
	return ret;
}

/* ---- the vDSO ---- */

/* The size of the vDSO image at @base: its [vdso] map, else what its headers span. */
static size_t vdso_size(uintptr_t base)
{
	const GElf_Ehdr *eh64 = (const void *)base;
	FILE *f = fopen("/proc/self/maps", "re");
	unsigned long long lo, hi;
	char line[512];
	size_t size = 0;

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx", &lo, &hi) == 2 && lo == base && hi > lo) {
			size = (size_t)(hi - lo);
			break;
		}
	}
	if (f)
		fclose(f);
	if (!size && eh64->e_ident[EI_CLASS] == ELFCLASS64)
		size = eh64->e_shoff + (size_t)eh64->e_shnum * eh64->e_shentsize;
	return size > (1u << 20) ? 0 : size;
}

static void load_vdso_table(struct pcl_symbols *s)
{
	struct shared_tab *st = &s->vdso;
	uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	size_t size = base ? vdso_size(base) : 0;
	struct elf_obj o;
	struct elf_segs segs;

	st->tried = true;
	st->status = PCL_DSO_SYMS_NOT_FOUND;
	if (!base || !size) {
		st->note = note_fmt("this process has no vDSO to read [vdso] symbols from");
		return;
	}
	if (elf_obj_open_mem(&o, (const void *)base, size)) {
		st->status = PCL_DSO_SYMS_ERROR;
		st->note = note_fmt("[vdso]: %s", pcl_last_error());
		return;
	}
	memcpy(st->build_id, o.build_id, sizeof(st->build_id));
	st->build_id_size = o.build_id_size;
	st->image = (const void *)base;
	st->image_size = size;
	elf_obj_segs(&o, &segs);
	st->t = elf_obj_symtab(&o, segs.n ? &segs : NULL, &o, user_flags(s), "[vdso]");
	if (!st->t) {
		st->status = PCL_DSO_SYMS_ERROR;
		st->note = note_fmt("[vdso]: %s", pcl_last_error());
	}
	elf_obj_close(&o);
}

/* Is @have (@have_size bytes) another build than the one @dso recorded? */
static bool other_build(const struct pcl_symbols *s, const struct pcl_dso *dso, const uint8_t *have,
			int have_size)
{
	return dso->build_id_size && !s->o.ignore_build_ids &&
	       (have_size != dso->build_id_size || memcmp(have, dso->build_id, (size_t)have_size));
}

/* The mismatch status for @dso, with a note naming both build ids (@what has @have). */
static int refuse_build(struct pcl_dso *dso, const uint8_t *have, int have_size, const char *what)
{
	char want[41], got[41];

	hex(want, dso->build_id, dso->build_id_size);
	hex(got, have, have_size);
	return set_status(dso, PCL_DSO_SYMS_BAD_BUILD_ID, NULL,
			  note_fmt("build id mismatch for %s (recorded %s, %s %s)", dso->name, want,
				   what, have_size ? got : "none"));
}

/* @dso's table from the build-id cache's copy @file of its build; false when there is none. */
static bool attach_cached(const struct pcl_symbols *s, struct pcl_dso *dso, const char *file)
{
	char path[PATH_MAX];
	struct pcl_symtab *t;

	if (!cache_path(s, dso, file, path, sizeof(path)) || access(path, R_OK))
		return false;
	if (dso->kind == PCL_DSO_VDSO)
		t = pcl_symtab__load_elf(path, user_flags(s));
	else
		t = pcl_symtab__load_kallsyms(path, 0);
	if (!t)
		return false;
	if (dso->kind == PCL_DSO_VDSO) {
		struct elf_obj o;
		struct elf_segs segs = { 0 };

		if (!elf_obj_open(&o, path)) {
			elf_obj_segs(&o, &segs);
			elf_obj_close(&o);
		}
		files_note((struct pcl_symbols *)s, dso, path, NULL, &segs, NULL, 0);
	}
	pr_debug("symbols: %s from the build-id cache: %s\n", dso->name, path);
	set_status(dso, PCL_DSO_SYMS_OK, t, NULL);
	return true;
}

/* The shared table @st for @dso (a reference), or its failure. */
static int attach_shared(struct pcl_symbols *s, struct pcl_dso *dso, struct shared_tab *st)
{
	if (st->t && (st->path || st->image)) {
		struct elf_segs segs = { 0 };
		struct elf_obj o;

		if (st->image && !elf_obj_open_mem(&o, st->image, st->image_size)) {
			elf_obj_segs(&o, &segs);
			elf_obj_close(&o);
		}
		files_note(s, dso, st->path, NULL, st->image ? &segs : NULL, st->image,
			   st->image_size);
	}
	if (!st->t)
		return set_status(dso, st->status, NULL, st->note ? strdup(st->note) : NULL);
	return set_status(dso, PCL_DSO_SYMS_OK, symtab_get(st->t), NULL);
}

static int load_vdso(struct pcl_symbols *s, struct pcl_dso *dso)
{
	struct shared_tab *st = &s->vdso;

	/* As perf: with a symfs, only a copy in its build-id cache will do. */
	if (s->symfs) {
		if (attach_cached(s, dso, "vdso"))
			return dso->sym_status;
		return set_status(dso, PCL_DSO_SYMS_NOT_FOUND, NULL,
				  note_fmt("no [vdso] image under the symfs"));
	}
	if (!st->tried)
		load_vdso_table(s);
	/* A recording made on another kernel: perf record cached its vDSO. */
	if (st->t && other_build(s, dso, st->build_id, st->build_id_size)) {
		if (attach_cached(s, dso, "vdso"))
			return dso->sym_status;
		return refuse_build(dso, st->build_id, st->build_id_size, "this machine's vDSO");
	}
	return attach_shared(s, dso, st);
}

/* ---- the kernel and its modules ---- */

static void load_kallsyms_table(struct pcl_symbols *s, struct shared_tab *st)
{
	const char *p = s->kallsyms ? s->kallsyms : "/proc/kallsyms";

	st->tried = true;
	st->t = pcl_symtab__load_kallsyms(p, 0);
	if (!st->t) {
		st->status = errno == ENOENT ? PCL_DSO_SYMS_NOT_FOUND : PCL_DSO_SYMS_ERROR;
		st->note = note_fmt("%s", pcl_last_error());
	}
}

/* The table of the vmlinux open in @o (closed here) into @st. */
static void vmlinux_table(struct shared_tab *st, struct elf_obj *o, const char *path)
{
	st->status = PCL_DSO_SYMS_ERROR;
	free(st->path);
	st->path = strdup(path); /* NULL: the table, without its file */
	memcpy(st->build_id, o->build_id, sizeof(st->build_id));
	st->build_id_size = o->build_id_size;
	if (!o->symtab) {
		/* As perf: a stripped vmlinux is of no use. */
		st->note = note_fmt("%s has no symbol table (stripped vmlinux?)", path);
	} else {
		st->t = elf_obj_symtab(o, NULL, NULL, 0, path);
		if (!st->t)
			st->note = note_fmt("%s", pcl_last_error());
	}
	elf_obj_close(o);
}

/* --vmlinux (under symfs, as perf looks it up). */
static void load_vmlinux_opt(struct pcl_symbols *s, struct shared_tab *st)
{
	char path[PATH_MAX];
	struct elf_obj o;
	int err;

	st->tried = true;
	st->status = PCL_DSO_SYMS_NOT_FOUND;
	if (!symfs_path(s, s->vmlinux, path, sizeof(path))) {
		st->note = note_fmt("vmlinux path too long: %s", s->vmlinux);
		return;
	}
	err = elf_obj_open(&o, path);
	if (err) {
		st->status = err == -ENOENT ? PCL_DSO_SYMS_NOT_FOUND : PCL_DSO_SYMS_ERROR;
		st->note = note_fmt("%s", pcl_last_error());
		return;
	}
	vmlinux_table(st, &o, path);
}

/*
 * perf's vmlinux_path: where distributions and kernel builds leave a
 * vmlinux for release @rel. Relative "vmlinux" (perf's first, in the
 * current directory) is left out: a report should not depend on it.
 */
static const char *const vmlinux_places[] = {
	"/boot/vmlinux",
	"/boot/vmlinux-%s",
	"/usr/lib/debug/boot/vmlinux-%s",
	"/lib/modules/%s/build/vmlinux",
	"/usr/lib/debug/lib/modules/%s/vmlinux",
	"/usr/lib/debug/boot/vmlinux-%s.debug",
};

/*
 * The first vmlinux at perf's places (under symfs) that has symbols and,
 * when @dso recorded one, its build id; tried once. Nothing found leaves
 * @st untried-looking (no table, tried) and the caller goes to kallsyms.
 */
static bool find_vmlinux(struct pcl_symbols *s, const struct pcl_dso *dso, struct shared_tab *st)
{
	char rel[PATH_MAX], path[PATH_MAX];
	struct utsname u;
	struct elf_obj o;

	st->tried = true;
	if (uname(&u))
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(vmlinux_places); i++) {
		snprintf(rel, sizeof(rel), vmlinux_places[i], u.release);
		if (!symfs_path(s, rel, path, sizeof(path)) || access(path, R_OK) ||
		    elf_obj_open(&o, path))
			continue;
		if (o.symtab && (!dso->build_id_size ||
				 (o.build_id_size == dso->build_id_size &&
				  !memcmp(o.build_id, dso->build_id, dso->build_id_size)))) {
			pr_debug("symbols: kernel symbols from %s\n", path);
			vmlinux_table(st, &o, path);
			return st->t != NULL;
		}
		elf_obj_close(&o);
	}
	return false;
}

/* The GNU build id in raw ELF notes (sysfs); its size, or 0. */
static int notes_build_id(const uint8_t *p, size_t len, uint8_t id[20])
{
	size_t off = 0;

	while (off + 12 <= len) {
		uint32_t namesz, descsz, type;
		size_t desc_off;

		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		if (namesz > len || descsz > len)
			return 0;
		desc_off = off + 12 + ((namesz + 3) & ~3u);
		if (desc_off + descsz > len)
			return 0;
		if (type == 3 && namesz == 4 && !memcmp(p + off + 12, "GNU", 4) && descsz) {
			size_t n = descsz > 20 ? 20 : descsz;

			memcpy(id, p + desc_off, n);
			return (int)n;
		}
		off = desc_off + ((descsz + 3) & ~3u);
	}
	return 0;
}

/* The running module's build id (/sys/module/NAME/notes); size or 0. */
static int module_build_id(const char *dso_name, uint8_t id[20])
{
	char name[256], path[PATH_MAX];
	uint8_t buf[1024];
	size_t len = strlen(dso_name);
	FILE *f;
	size_t n;

	if (len < 3 || dso_name[0] != '[' || dso_name[len - 1] != ']' || len - 2 >= sizeof(name))
		return 0;
	memcpy(name, dso_name + 1, len - 2);
	name[len - 2] = '\0';
	if (strchr(name, '/'))
		return 0;
	snprintf(path, sizeof(path), "/sys/module/%s/notes/.note.gnu.build-id", name);
	f = fopen(path, "re");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	return notes_build_id(buf, n, id);
}

/*
 * The kernel: --vmlinux, else a vmlinux of its build at perf's places,
 * else kallsyms. Modules: kallsyms (a vmlinux has no module symbols).
 */
static int load_kernel(struct pcl_symbols *s, struct pcl_dso *dso)
{
	struct shared_tab *vt = &s->vmlinux_tab;
	bool module = dso->kind == PCL_DSO_MODULE;
	uint8_t id[20];
	int size;

	if (!module && s->vmlinux) {
		if (!vt->tried)
			load_vmlinux_opt(s, vt);
		if (vt->t && other_build(s, dso, vt->build_id, vt->build_id_size))
			return refuse_build(dso, vt->build_id, vt->build_id_size, "vmlinux");
		return attach_shared(s, dso, vt);
	}
	if (!module && (vt->t || (!vt->tried && find_vmlinux(s, dso, vt))))
		return attach_shared(s, dso, vt);
	/* As perf: with a symfs, no local file stands for the recorded kernel. */
	if (s->symfs && !s->kallsyms)
		return set_status(dso, PCL_DSO_SYMS_NOT_FOUND, NULL,
				  note_fmt("no symbols for %s under the symfs (give a vmlinux or "
					   "a kallsyms file)",
					   dso->name));
	/*
	 * This machine's kallsyms is the running kernel's: the recorded
	 * kernel (or module) must be that one, checked before reading it;
	 * else perf record's copy of the recorded kernel's kallsyms, when
	 * cached. A kallsyms file given by hand is trusted, as perf trusts
	 * --kallsyms.
	 */
	if (!s->kallsyms && dso->build_id_size) {
		size = module ? module_build_id(dso->name, id) : pcl_build_id_kernel(id);
		if (size > 0 && other_build(s, dso, id, size)) {
			if (!module && attach_cached(s, dso, "kallsyms"))
				return dso->sym_status;
			return refuse_build(dso, id, size,
					    module ? "running module" : "running kernel");
		}
	}
	if (!s->kallsyms_tab.tried)
		load_kallsyms_table(s, &s->kallsyms_tab);
	return attach_shared(s, dso, &s->kallsyms_tab);
}

/* ---- JIT maps ---- */

static int load_jit(struct pcl_symbols *s, struct pcl_dso *dso)
{
	char path[64];
	const char *p = dso->name;
	struct pcl_symtab *t;
	struct stat st;

	/* perf reads /tmp/perf-PID.map from /tmp itself, whatever symfs says. */
	if (!p || strncmp(p, "/tmp/perf-", 10)) {
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)dso->pid);
		p = path;
	}
	/*
	 * Anyone may create /tmp/perf-PID.map, for a pid to come too: trust one
	 * only when this user or root owns it (the link itself, if one): the
	 * rule older perf applied here and perf 6.1 still applies to its input.
	 * No map at the check is none at all, not one made just after it.
	 */
	if (lstat(p, &st)) {
		int e = errno;

		return set_status(dso, e == ENOENT ? PCL_DSO_SYMS_NOT_FOUND : PCL_DSO_SYMS_ERROR,
				  NULL, note_fmt("cannot open '%s': %s", p, strerror(e)));
	}
	if (!s->o.any_owner && st.st_uid && st.st_uid != geteuid())
		return set_status(dso, PCL_DSO_SYMS_NOT_OWNED, NULL,
				  note_fmt("'%s' is owned by uid %u, not by this user or root", p,
					   (unsigned int)st.st_uid));
	t = pcl_symtab__load_perf_map(p, 0);
	if (!t)
		return set_status(dso,
				  errno == ENOENT ? PCL_DSO_SYMS_NOT_FOUND : PCL_DSO_SYMS_ERROR,
				  NULL, note_fmt("%s", pcl_last_error()));
	return set_status(dso, PCL_DSO_SYMS_OK, t, NULL);
}

PCL_API int pcl_symbols__load(struct pcl_symbols *s, struct pcl_dso *dso)
{
	if (!s || !dso)
		return PCL_DSO_SYMS_ERROR;
	if (dso->sym_status != PCL_DSO_SYMS_UNTRIED)
		return dso->sym_status;
	if (!dso->name)
		return set_status(dso, PCL_DSO_SYMS_NOT_FOUND, NULL, NULL);
	switch (dso->kind) {
	case PCL_DSO_USER:
		return load_user(s, dso);
	case PCL_DSO_VDSO:
		return load_vdso(s, dso);
	case PCL_DSO_KERNEL:
	case PCL_DSO_MODULE:
		return load_kernel(s, dso);
	case PCL_DSO_JIT:
		return load_jit(s, dso);
	}
	return set_status(dso, PCL_DSO_SYMS_NOT_FOUND, NULL,
			  note_fmt("%s: unknown kind of object", dso->name));
}

PCL_API const struct pcl_symbol *pcl_symbols__find(struct pcl_symbols *s, struct pcl_dso *dso,
						   uint64_t addr)
{
	if (!dso)
		return NULL;
	if (dso->sym_status == PCL_DSO_SYMS_UNTRIED)
		pcl_symbols__load(s, dso);
	if (dso->sym_status != PCL_DSO_SYMS_OK)
		return NULL;
	return pcl_symtab__find(dso->sym_priv, addr);
}

const struct symbols_dso_files *symbols_dso_files(struct pcl_symbols *s, struct pcl_dso *dso)
{
	struct dso_files *df;

	if (!s || !dso)
		return NULL;
	if (dso->sym_status == PCL_DSO_SYMS_UNTRIED)
		pcl_symbols__load(s, dso);
	df = files_find(s, dso);
	return df ? &df->f : NULL;
}

uint64_t symbols_dso_vaddr(const struct symbols_dso_files *f, uint64_t addr)
{
	if (!f || f->absolute)
		return addr;
	for (int i = 0; i < f->segs.n; i++) {
		if (addr >= f->segs.s[i].offset && addr - f->segs.s[i].offset < f->segs.s[i].memsz)
			return addr - f->segs.s[i].offset + f->segs.s[i].vaddr;
	}
	return addr;
}

int symbols_srcline(struct pcl_symbols *s, struct pcl_dso *dso, uint64_t addr,
		    const struct srcline_info **out)
{
	struct dso_files *df;

	if (!symbols_dso_files(s, dso))
		return -ENOENT;
	df = files_find(s, dso);
	if (!df->sl_tried) {
		df->sl_tried = true;
		if (df->path || df->debug)
			df->sl = srcline_dso__open(df->path ? df->path : df->debug, df->debug);
	}
	if (!df->sl)
		return -ENOENT;
	return srcline_dso__find(df->sl, symbols_dso_vaddr(&df->f, addr), out);
}

/* ---- inline frames' symbols (files.h) ---- */

/*
 * One per (symbol inlined into, raw DWARF name): the raw name pointer is
 * stable (libdw's data, kept by the DSO's srcline object until @s is
 * freed), so it keys the table and demangling happens once per function.
 */
struct inline_sym {
	const struct pcl_symbol *base;
	const char *raw;
	const struct pcl_symbol *sym; /* base itself when the names are equal */
	struct pcl_symbol own;
	char name[];
};

static void isyms_free(struct pcl_symbols *s)
{
	for (size_t i = 0; i < s->cap_isyms; i++)
		free(s->isyms[i]);
	free(s->isyms);
}

static size_t isym_slot(struct inline_sym **t, size_t cap, const struct pcl_symbol *base,
			const char *raw)
{
	size_t j = hash_mix((uintptr_t)base, (uintptr_t)raw) & (cap - 1);

	while (t[j] && (t[j]->base != base || t[j]->raw != raw))
		j = (j + 1) & (cap - 1);
	return j;
}

int symbols_inline_mode(const struct pcl_symbols *s)
{
	return s ? s->o.inline_frames : PCL_INLINE_NONE;
}

const struct pcl_symbol *symbols_inline_sym(struct pcl_symbols *s, const struct pcl_symbol *base,
					    const char *raw)
{
	struct inline_sym *is;
	const char *name;
	char *dem;
	size_t j, len;

	if ((s->nr_isyms + 1) * 2 > s->cap_isyms) {
		size_t ncap = s->cap_isyms ? s->cap_isyms * 2 : 256;
		struct inline_sym **nt = calloc(ncap, sizeof(*nt));

		if (!nt)
			return NULL;
		for (size_t i = 0; i < s->cap_isyms; i++)
			if (s->isyms[i])
				nt[isym_slot(nt, ncap, s->isyms[i]->base, s->isyms[i]->raw)] =
					s->isyms[i];
		free(s->isyms);
		s->isyms = nt;
		s->cap_isyms = ncap;
	}
	j = isym_slot(s->isyms, s->cap_isyms, base, raw);
	if (s->isyms[j])
		return s->isyms[j]->sym;
	/* perf's new_inline_sym: "??" for no name, demangled as the symbol table is */
	dem = raw ? demangle_flags(raw, user_flags(s)) : NULL;
	name = dem ? dem : raw ? raw : "??";
	len = strlen(name);
	is = malloc(sizeof(*is) + len + 1);
	if (!is) {
		free(dem);
		return NULL;
	}
	memcpy(is->name, name, len + 1);
	free(dem);
	is->base = base;
	is->raw = raw;
	is->own = (struct pcl_symbol){ .start = base->start, .end = base->end, .name = is->name };
	is->sym = strcmp(is->name, base->name) ? &is->own : base;
	s->isyms[j] = is;
	s->nr_isyms++;
	return is->sym;
}
