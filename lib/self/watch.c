/* SPDX-License-Identifier: MIT */
/*
 * Watchpoints: a hardware breakpoint counter with an overflow function on
 * every hit, whose samples become pcl_watch_hit (who, where, and the call
 * chain). And this process's symbols, both ways: a name to its run-time
 * address (for watching a variable by name) and an address to its
 * function (for naming the writer).
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>
#include "internal.h"
#include "self/overflow.h"

struct watch_ctx {
	pcl_watch_fn fn;
	void *arg;
	uint64_t addr;
};

static void watch_hit(struct pcl_counters *c, int idx, const struct pcl_sample *s, void *arg)
{
	const struct watch_ctx *w = arg;
	struct pcl_watch_hit hit = {
		.addr = (s->sample_type & PERF_SAMPLE_ADDR) ? s->addr : w->addr,
		.ip = s->ip,
		.pid = s->pid,
		.tid = s->tid,
		.nr_callchain = s->nr_callchain,
		.callchain = s->callchain,
	};

	(void)c;
	(void)idx;
	w->fn(&hit, w->arg);
}

PCL_API struct pcl_counters *pcl_watch(const void *addr, const struct pcl_watch_opts *o)
{
	struct pcl_watch_opts opt;
	struct pcl_counters_opts copts = { .sz = sizeof(copts) };
	struct pcl_overflow ov = { .sz = sizeof(ov) };
	struct pcl_counters *c;
	struct watch_ctx *w;
	char spec[96];
	const char *rwx;
	int ret;

	ret = opts_copy(&opt, o, "pcl_watch_opts");
	if (ret < 0) {
		errno = -ret;
		return NULL;
	}
	if (!addr || !opt.fn) {
		errno = EINVAL;
		pcl_err(EINVAL, "pcl_watch: a watchpoint needs an address and a function");
		return NULL;
	}
	switch (opt.type ? opt.type : HW_BREAKPOINT_W) {
	case HW_BREAKPOINT_W:
		rwx = "w";
		break;
	case HW_BREAKPOINT_R:
		rwx = "r";
		break;
	case HW_BREAKPOINT_RW:
		rwx = "rw";
		break;
	case HW_BREAKPOINT_X:
		rwx = "x";
		break;
	default:
		errno = EINVAL;
		pcl_err(EINVAL, "watchpoint type %u is not W, R, RW or X", opt.type);
		return NULL;
	}
	if (!opt.len)
		opt.len = opt.type == HW_BREAKPOINT_X ? sizeof(long) : 8;
	if (opt.len != 1 && opt.len != 2 && opt.len != 4 && opt.len != 8) {
		errno = EINVAL;
		pcl_err(EINVAL, "watchpoint length %u is not 1, 2, 4 or 8", opt.len);
		return NULL;
	}
	snprintf(spec, sizeof(spec), "mem:%#llx/%u:%s", (unsigned long long)(uintptr_t)addr, opt.len,
		 rwx);
	copts.scope = opt.scope;
	copts.pid = opt.pid;
	copts.started = true;
	c = pcl_counters__new(spec, &copts);
	if (!c)
		return NULL;
	w = calloc(1, sizeof(*w));
	if (!w) {
		pcl_counters__free(c);
		errno = ENOMEM;
		pcl_err(ENOMEM, "pcl_watch: out of memory");
		return NULL;
	}
	w->fn = opt.fn;
	w->arg = opt.arg;
	w->addr = (uint64_t)(uintptr_t)addr;
	counters_own(c, w);
	ov.period = 1;
	ov.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR | PERF_SAMPLE_CALLCHAIN;
	ov.notify = opt.notify;
	ov.signo = opt.signo;
	ov.fn = watch_hit;
	ov.arg = w;
	ret = pcl_counters__set_overflow(c, 0, &ov);
	if (!ret)
		ret = pcl_counters__open(c);
	if (!ret && !pcl_counters__supported(c, 0))
		ret = pcl_err(ENODEV, "this machine has no hardware breakpoint for %s",
			      pcl_counters__name(c, 0));
	return ret ? counters_fail(c, ret) : c;
}

PCL_API struct pcl_counters *pcl_watch_symbol(const char *name, const struct pcl_watch_opts *o)
{
	uint64_t addr, size;
	struct pcl_watch_opts opt;
	int ret;

	ret = opts_copy(&opt, o, "pcl_watch_opts");
	if (!ret)
		ret = name ? pcl_self_symbol(name, &addr, &size)
			   : pcl_err(EINVAL, "pcl_watch_symbol: no symbol name");
	if (ret) {
		errno = -ret;
		return NULL;
	}
	if (!opt.len && size && size < 8 && (size & (size - 1)) == 0)
		opt.len = (uint32_t)size;
	opt.sz = sizeof(opt);
	return pcl_watch((const void *)(uintptr_t)addr, &opt);
}

/* ---- this process's mappings ---- */

struct self_map {
	uint64_t start, end, pgoff;
	char name[512]; /* as maps shows it: one per file */
	char path[512]; /* where to open it: /proc/self/map_files/.. once deleted or replaced */
};

/* The file-backed mappings of /proc/self/maps into @maps (caller frees); count or -errno. */
static int self_maps(struct self_map **maps)
{
	FILE *f = fopen("/proc/self/maps", "re");
	struct self_map *v = NULL, m;
	int n = 0, alloc = 0;
	char line[1024];

	*maps = NULL;
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		int pos = 0;

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &s, &e, &off, &pos) < 3 || !pos)
			continue;
		line[strcspn(line, "\n")] = 0;
		if (line[pos] != '/')
			continue;
		m.start = s;
		m.end = e;
		m.pgoff = off;
		snprintf(m.name, sizeof(m.name), "%s", line + pos);
		snprintf(m.path, sizeof(m.path), "%s", m.name);
		if (strlen(m.name) > 10 && !strcmp(m.name + strlen(m.name) - 10, " (deleted)"))
			snprintf(m.path, sizeof(m.path), "/proc/self/map_files/%llx-%llx", s, e);
		if (grow_array((void **)&v, &alloc, n + 1, sizeof(*v))) {
			free(v);
			fclose(f);
			return -ENOMEM;
		}
		v[n++] = m;
	}
	fclose(f);
	*maps = v;
	return n;
}

/* The lowest PT_LOAD p_vaddr, page-aligned down, of an ELF; 0 on failure. */
static uint64_t elf_load_base(Elf *e)
{
	size_t n = 0;
	uint64_t lo = UINT64_MAX;

	if (elf_getphdrnum(e, &n))
		return 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_vaddr < lo)
			lo = ph.p_vaddr;
	}
	return lo == UINT64_MAX ? 0 : lo & ~(uint64_t)0xfff;
}

/* Symbol @name in section type @type (SHT_SYMTAB / SHT_DYNSYM) of @e. */
static bool elf_find_symbol(Elf *e, Elf64_Word type, const char *name, GElf_Sym *out)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *s;
			int t;

			if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
				continue;
			t = GELF_ST_TYPE(sym.st_info);
			if (t != STT_OBJECT && t != STT_FUNC && t != STT_NOTYPE && t != STT_GNU_IFUNC)
				continue;
			s = elf_strptr(e, sh.sh_link, sym.st_name);
			if (s && !strcmp(s, name)) {
				*out = sym;
				return true;
			}
		}
	}
	return false;
}

PCL_API int pcl_self_symbol(const char *name, uint64_t *addr, uint64_t *size)
{
	struct self_map *maps;
	int n, ret = -ENOENT;

	if (!name || !addr)
		return pcl_err(EINVAL, "pcl_self_symbol: invalid argument");
	n = self_maps(&maps);
	if (n < 0)
		return pcl_err(-n, "cannot read /proc/self/maps: %s", pcl_strerror(n));
	elf_version(EV_CURRENT);
	for (int i = 0; i < n && ret == -ENOENT; i++) {
		GElf_Sym sym;
		GElf_Ehdr eh;
		Elf *e;
		int fd;
		bool seen = false;

		/* each file once, at its first mapping (offset 0: the load base) */
		for (int j = 0; j < i; j++)
			seen |= !strcmp(maps[j].name, maps[i].name);
		if (seen || maps[i].pgoff != 0)
			continue;
		fd = open(maps[i].path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		if (e && gelf_getehdr(e, &eh) &&
		    (elf_find_symbol(e, SHT_SYMTAB, name, &sym) ||
		     elf_find_symbol(e, SHT_DYNSYM, name, &sym))) {
			uint64_t bias = eh.e_type == ET_DYN ? maps[i].start - elf_load_base(e) : 0;

			*addr = sym.st_value + bias;
			if (size)
				*size = sym.st_size;
			ret = 0;
		}
		elf_end(e);
		close(fd);
	}
	free(maps);
	if (ret)
		pcl_err(ENOENT, "no symbol '%s' in this process", name);
	return ret;
}

/* Symbol tables of this process's files (by their maps name), loaded once each. */
static pthread_mutex_t symtab_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	char *path;
	struct pcl_symtab *tab;
} symtabs[64];
static int nsymtabs;

static struct pcl_symtab *symtab_for(const struct self_map *m)
{
	struct pcl_symtab *t;

	for (int i = 0; i < nsymtabs; i++)
		if (!strcmp(symtabs[i].path, m->name))
			return symtabs[i].tab;
	t = pcl_symtab__load_elf(m->path, PCL_SYMTAB_DEMANGLE);
	if (nsymtabs < (int)ARRAY_SIZE(symtabs)) {
		symtabs[nsymtabs].path = strdup(m->name);
		if (symtabs[nsymtabs].path)
			symtabs[nsymtabs++].tab = t;
	}
	return t;
}

PCL_API int pcl_self_symbolize(uint64_t addr, char *buf, size_t len, uint64_t *off)
{
	struct self_map *maps;
	int n, ret = -ENOENT;

	if (!buf || !len)
		return pcl_err(EINVAL, "pcl_self_symbolize: invalid argument");
	n = self_maps(&maps);
	if (n < 0)
		return pcl_err(-n, "cannot read /proc/self/maps: %s", pcl_strerror(n));
	for (int i = 0; i < n; i++) {
		const struct pcl_symbol *sym;
		struct pcl_symtab *t;
		uint64_t fo;

		if (addr < maps[i].start || addr >= maps[i].end)
			continue;
		fo = addr - maps[i].start + maps[i].pgoff;
		pthread_mutex_lock(&symtab_lock);
		t = symtab_for(&maps[i]);
		sym = t ? pcl_symtab__find(t, fo) : NULL;
		if (sym) {
			snprintf(buf, len, "%s", sym->name);
			if (off)
				*off = fo - sym->start;
			ret = 0;
		}
		pthread_mutex_unlock(&symtab_lock);
		break;
	}
	free(maps);
	if (ret)
		pcl_err(ENOENT, "no symbol holds %#llx", (unsigned long long)addr);
	return ret;
}
