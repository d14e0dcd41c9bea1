/* SPDX-License-Identifier: MIT */
/*
 * Symbol tables (contract in include/pcl/symbol.h): the builder every
 * source feeds, the look-up, demangling, and the two text sources
 * (kallsyms and perf's JIT maps).
 *
 * Invariants of a finished table: syms[] sorted by start (ties cannot
 * happen: equal starts were resolved to one symbol, as perf does); names
 * point into one pool owned by the table. A look-up is one binary search
 * and never allocates; a table never changes once built.
 *
 * Perf's fix-ups are reproduced step for step, because their order decides
 * names: zero-sized symbols first get the next symbol's start as their end
 * (so of several unsized aliases only the last one gets a size), then each
 * run of equal starts is folded left to right with choose_best_symbol. The
 * name that wins is therefore the one perf shows.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "internal.h"
#include "symtab.h"

/* libiberty's demangler; its header clashes with glibc's basename(). */
extern char *cplus_demangle(const char *mangled, int options);
#define DMGL_NO_OPTS 0
#define DMGL_PARAMS  (1 << 0)
#define DMGL_ANSI    (1 << 1)
#define DMGL_GNU_V3  (1 << 14)

/* Names longer than this are not names (kallsyms' limit is 512). */
#define MAX_NAME 4096

struct pcl_symtab {
	struct pcl_symbol *syms;
	size_t n;
	char *pool;
	int refs;
};

/* ---- demangling ---- */

/* Might @name be a legacy Rust symbol, whose last component is "h" and 16 hex digits? */
static bool maybe_rust_legacy(const char *name)
{
	for (const char *p = strstr(name, "17h"); p; p = strstr(p + 1, "17h")) {
		int i = 0;

		while (i < 16 && isxdigit((unsigned char)p[3 + i]))
			i++;
		if (i == 16 && p[19] == 'E')
			return true;
	}
	return false;
}

/*
 * cplus_demangle() in its automatic style, as perf calls it: Rust first
 * (legacy and v0), then the C++ ABI. The result is the same, only faster,
 * when names that cannot be Rust go to the C++ demangler directly (the
 * failed Rust attempt was a sixth of a large table's load) and names that
 * neither demangler accepts are not offered.
 */
char *demangle_flags(const char *name, unsigned int flags)
{
	int opts = DMGL_NO_OPTS;

	if (!name || !(flags & PCL_SYMTAB_DEMANGLE) || name[0] != '_')
		return NULL;
	/* perf prints names without parameters unless verbose. */
	if (flags & PCL_SYMTAB_DEMANGLE_PARAMS)
		opts = DMGL_PARAMS | DMGL_ANSI;
	if (name[1] == 'Z' && !maybe_rust_legacy(name))
		opts |= DMGL_GNU_V3;
	else if (name[1] != 'Z' && name[1] != 'R' && strncmp(name, "_GLOBAL_", 8))
		return NULL;
	return cplus_demangle(name, opts);
}

PCL_API char *pcl_demangle(const char *name)
{
	return demangle_flags(name, PCL_SYMTAB_DEMANGLE);
}

/* ---- the builder ---- */

void builder_init(struct symtab_builder *b, unsigned int flags)
{
	memset(b, 0, sizeof(*b));
	b->flags = flags;
}

void builder_release(struct symtab_builder *b)
{
	free(b->v);
	free(b->pool);
	builder_init(b, b->flags);
}

static bool pool_reserve(struct symtab_builder *b, size_t need)
{
	size_t na;
	char *np;

	if (b->palloc - b->plen >= need)
		return true;
	na = b->palloc ? b->palloc : 4096;
	while (na - b->plen < need) {
		if (na > SIZE_MAX / 2)
			return false;
		na *= 2;
	}
	np = realloc(b->pool, na);
	if (!np)
		return false;
	b->pool = np;
	b->palloc = na;
	return true;
}

void builder_add(struct symtab_builder *b, uint64_t start, uint64_t end, uint8_t binding,
		 bool module, bool late, const char *name, const char *suffix)
{
	char *dem = demangle_flags(name, b->flags);
	const char *nm = dem ? dem : name;
	size_t nlen = strlen(nm), slen = suffix ? strlen(suffix) : 0;
	struct rawsym *r;

	if (b->oom || b->n >= UINT32_MAX)
		goto out;
	if (b->n == b->alloc) {
		size_t na = b->alloc ? b->alloc * 2 : 256;
		struct rawsym *nv = realloc(b->v, na * sizeof(*nv));

		if (!nv) {
			b->oom = true;
			goto out;
		}
		b->v = nv;
		b->alloc = na;
	}
	if (!pool_reserve(b, nlen + slen + 1)) {
		b->oom = true;
		goto out;
	}
	r = &b->v[b->n];
	r->start = start;
	r->end = end < start ? UINT64_MAX : end;
	r->name = b->plen;
	r->seq = (uint32_t)b->n++;
	r->binding = binding;
	r->module = module;
	r->late = late;
	memcpy(b->pool + b->plen, nm, nlen);
	if (slen)
		memcpy(b->pool + b->plen + nlen, suffix, slen);
	b->pool[b->plen + nlen + slen] = '\0';
	b->plen += nlen + slen + 1;
out:
	free(dem);
}

static int cmp_start(const void *pa, const void *pb)
{
	const struct rawsym *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Main symbols first, then the late ones; each part by start, then arrival. */
static int cmp_late_start(const void *pa, const void *pb)
{
	const struct rawsym *a = pa, *b = pb;

	if (a->late != b->late)
		return a->late ? 1 : -1;
	return cmp_start(pa, pb);
}

/* Saturating: an end must never wrap below its start. */
static uint64_t page_roundup(uint64_t x)
{
	return x > UINT64_MAX - 4095 ? UINT64_MAX : (x + 4095) & ~4095ull;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* perf's symbols__fixup_end(): unsized symbols end where the next starts. */
static void fixup_end(struct rawsym *v, size_t n, bool kallsyms)
{
	for (size_t i = 1; i < n; i++) {
		struct rawsym *prev = &v[i - 1], *curr = &v[i];

		if (prev->end != prev->start)
			continue;
		/*
		 * Between the kernel's text and the modules lies a wide gap:
		 * the last symbol before it gets a page, not the gap.
		 */
		if (kallsyms && prev->module != curr->module)
			prev->end = page_roundup(sat_add(prev->start, 4096));
		else
			prev->end = curr->start;
	}
	if (n && v[n - 1].end == v[n - 1].start)
		v[n - 1].end = sat_add(page_roundup(v[n - 1].start), 4096);
}

static size_t leading_underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* perf's choose_best_symbol(): true when @b is to replace @a. */
static bool prefer_second(const struct symtab_builder *bl, const struct rawsym *a,
			  const struct rawsym *b)
{
	const char *na = bl->pool + a->name, *nb = bl->pool + b->name;
	bool sa = a->end != a->start, sb = b->end != b->start;
	size_t ua, ub, la, lb;

	if (sa != sb)
		return sb;
	if ((a->binding == STB_WEAK) != (b->binding == STB_WEAK))
		return a->binding == STB_WEAK;
	if ((a->binding == STB_GLOBAL) != (b->binding == STB_GLOBAL))
		return b->binding == STB_GLOBAL;
	ua = leading_underscores(na);
	ub = leading_underscores(nb);
	if (ua != ub)
		return ua > ub;
	la = strlen(na);
	lb = strlen(nb);
	if (la != lb)
		return lb > la;
	/* perf's generic arch__choose_best_symbol: avoid the kernel's SyS aliases. */
	return !strncmp(na, "SyS", 3) || !strncmp(na, "compat_SyS", 10);
}

/* Fold each run of equal starts into one symbol; returns the new count. */
static size_t fold_duplicates(const struct symtab_builder *bl, struct rawsym *v, size_t n,
			      enum symtab_fixup fixup)
{
	size_t out = 0;

	for (size_t i = 0; i < n; i++) {
		if (out && v[out - 1].start == v[i].start) {
			/* A JIT map's later entry is newer code at the same place. */
			if (fixup == FIXUP_MAP || prefer_second(bl, &v[out - 1], &v[i]))
				v[out - 1] = v[i];
			continue;
		}
		v[out++] = v[i];
	}
	return out;
}

/* Merge the late symbols (sorted after the @n main ones); one at a taken start is dropped. */
static size_t merge_late(struct rawsym *v, size_t n, size_t total)
{
	size_t out = 0;

	if (total == n)
		return n;
	/* total > n >= 0: v is non-NULL */
	qsort(v, total, sizeof(*v), cmp_start);
	for (size_t i = 0; i < total; i++) {
		if (out && v[out - 1].start == v[i].start) {
			if (v[out - 1].late && !v[i].late)
				v[out - 1] = v[i];
			continue;
		}
		v[out++] = v[i];
	}
	return out;
}

static struct pcl_symtab *table_from(struct symtab_builder *b, size_t n)
{
	struct pcl_symtab *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->n = n;
	t->refs = 1;
	t->syms = malloc((n ? n : 1) * sizeof(*t->syms));
	if (!t->syms) {
		free(t);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		t->syms[i].start = b->v[i].start;
		t->syms[i].end = b->v[i].end;
		t->syms[i].name = b->pool + b->v[i].name;
	}
	/* The names stay where they are: the pool moves to the table. */
	t->pool = b->pool;
	b->pool = NULL;
	return t;
}

struct pcl_symtab *builder_finish(struct symtab_builder *b, enum symtab_fixup fixup)
{
	struct pcl_symtab *t = NULL;
	size_t main_n = 0, n;

	if (b->oom)
		goto out;
	/* /proc/kallsyms and many symbol tables come sorted already: qsort would
	 * keep them as they are (the order is total), at n log n */
	for (size_t i = 1; i < b->n; i++) {
		if (cmp_late_start(&b->v[i - 1], &b->v[i]) > 0) {
			qsort(b->v, b->n, sizeof(*b->v), cmp_late_start);
			break;
		}
	}
	while (main_n < b->n && !b->v[main_n].late)
		main_n++;
	if (fixup != FIXUP_MAP)
		fixup_end(b->v, main_n, fixup == FIXUP_KALLSYMS);
	n = fold_duplicates(b, b->v, main_n, fixup);
	if (n < main_n)
		memmove(b->v + n, b->v + main_n, (b->n - main_n) * sizeof(*b->v));
	n = merge_late(b->v, n, n + (b->n - main_n));
	t = table_from(b, n);
out:
	builder_release(b);
	if (!t)
		errno = ENOMEM;
	return t;
}

/* ---- tables ---- */

struct pcl_symtab *symtab_get(struct pcl_symtab *t)
{
	if (t)
		__atomic_add_fetch(&t->refs, 1, __ATOMIC_RELAXED);
	return t;
}

void symtab_put(void *p)
{
	struct pcl_symtab *t = p;

	if (!t || __atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL) > 0)
		return;
	free(t->syms);
	free(t->pool);
	free(t);
}

PCL_API void pcl_symtab__free(struct pcl_symtab *t)
{
	symtab_put(t);
}

PCL_API size_t pcl_symtab__count(const struct pcl_symtab *t)
{
	return t ? t->n : 0;
}

PCL_API const struct pcl_symbol *pcl_symtab__at(const struct pcl_symtab *t, size_t i)
{
	return t && i < t->n ? &t->syms[i] : NULL;
}

static bool holds(const struct pcl_symbol *s, uint64_t addr)
{
	/* As perf's symbols__find: [start, end), an unsized symbol only at its start. */
	return addr >= s->start && (addr < s->end || (addr == s->start && s->end == s->start));
}

PCL_API const struct pcl_symbol *pcl_symtab__find(const struct pcl_symtab *t, uint64_t addr)
{
	size_t lo = 0, hi;

	if (!t || !t->n)
		return NULL;
	hi = t->n;
	/* The first symbol starting after addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/*
	 * Only the nearest start below is asked. Where symbols overlap (an
	 * unsized _init stretched over the PLT entries perf adds after the
	 * fix-ups, nested asm entry points) perf's answer depends on the
	 * shape of its tree; checked against perf 6.1 on real recordings,
	 * this is the answer it gives: an address past the PLT entries but
	 * inside the stretched _init (in .plt.got) is unknown to both.
	 */
	if (lo && holds(&t->syms[lo - 1], addr))
		return &t->syms[lo - 1];
	return NULL;
}

/* ---- kallsyms ---- */

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Hex digits at *p (at most 16, an optional 0x before them when @prefix); advances *p. */
static bool parse_hex(char **p, uint64_t *val, bool prefix)
{
	char *s = *p;
	uint64_t v = 0;
	int nd = 0, d;

	if (prefix && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && hexval(s[2]) >= 0)
		s += 2;
	while ((d = hexval(*s)) >= 0) {
		if (++nd > 16)
			return false;
		v = v << 4 | (uint64_t)d;
		s++;
	}
	if (!nd)
		return false;
	*val = v;
	*p = s;
	return true;
}

/* The types perf's symbol_type__filter keeps. */
static bool kallsyms_type_kept(char type)
{
	int t = toupper((unsigned char)type);

	return t == 'T' || t == 'W' || t == 'D' || t == 'B';
}

static uint8_t kallsyms_binding(char type)
{
	if (type == 'W')
		return STB_WEAK;
	return isupper((unsigned char)type) ? STB_GLOBAL : STB_LOCAL;
}

/* One line "addr type name[\t[module]]", NUL-terminated without its newline. */
static void kallsyms_line(struct symtab_builder *b, char *line, size_t *zeros)
{
	char *p = line, *name, *tab;
	uint64_t addr;
	char type;

	if (!parse_hex(&p, &addr, false) || *p++ != ' ')
		return;
	type = *p++;
	if (!type || *p++ != ' ')
		return;
	name = p;
	if (!kallsyms_type_kept(type) || !*name || *name == '$' || *name == '\t')
		return;
	if (!addr) {
		(*zeros)++;
		return;
	}
	tab = strchr(name, '\t');
	/* perf tells module symbols by a '[' anywhere in the rest of the line. */
	if (tab)
		*tab = '\0';
	builder_add(b, addr, addr, kallsyms_binding(type), tab && strchr(tab + 1, '['), false, name,
		    NULL);
}

struct pcl_symtab *symtab_read_kallsyms(FILE *f, unsigned int flags, const char *what)
{
	struct symtab_builder b;
	char *line = NULL;
	size_t cap = 0, zeros = 0;
	ssize_t len;

	builder_init(&b, flags);
	while ((len = getline(&line, &cap, f)) >= 0) {
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if ((size_t)len <= MAX_NAME + 32 && strlen(line) == (size_t)len)
			kallsyms_line(&b, line, &zeros);
	}
	free(line);
	if (!b.n && zeros) {
		builder_release(&b);
		pcl_err(EACCES,
			"'%s': every kernel address is zero: kptr_restrict hides them (run as "
			"root, or set /proc/sys/kernel/kptr_restrict to 0)",
			what);
		errno = EACCES;
		return NULL;
	}
	return builder_finish(&b, FIXUP_KALLSYMS);
}

static FILE *open_text(const char *path)
{
	struct stat st;
	FILE *f = NULL;
	int fd, err;

	if (!path) {
		pcl_err(EINVAL, "no path given");
		errno = EINVAL;
		return NULL;
	}
	/* Non-blocking: anyone may create /tmp/perf-PID.map, as a FIFO too. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		err = errno;
		pcl_err(err, "cannot open '%s': %s", path, strerror(err));
		errno = err;
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		err = EINVAL;
		pcl_err(err, "'%s' is not a regular file", path);
	} else if (!(f = fdopen(fd, "r"))) {
		err = errno;
		pcl_err(err, "cannot read '%s': %s", path, strerror(err));
	}
	if (!f) {
		close(fd);
		errno = err;
	}
	return f;
}

static struct pcl_symtab *load_text(const char *path, unsigned int flags,
				    struct pcl_symtab *(*rd)(FILE *, unsigned int, const char *))
{
	FILE *f = open_text(path);
	struct pcl_symtab *t;
	int err;

	if (!f)
		return NULL;
	t = rd(f, flags, path);
	err = errno;
	if (!t && err == ENOMEM)
		pcl_err(ENOMEM, "'%s': out of memory for its symbols", path);
	fclose(f);
	errno = err;
	return t;
}

PCL_API struct pcl_symtab *pcl_symtab__load_kallsyms(const char *path, unsigned int flags)
{
	return load_text(path, flags, symtab_read_kallsyms);
}

/* ---- perf maps: "START SIZE name", hex ---- */

static void perf_map_line(struct symtab_builder *b, char *line)
{
	char *p = line;
	uint64_t start, size;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!parse_hex(&p, &start, true) || (*p != ' ' && *p != '\t'))
		return;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!parse_hex(&p, &size, true) || (*p != ' ' && *p != '\t'))
		return;
	p++;
	if (!*p)
		return;
	builder_add(b, start, sat_add(start, size), STB_GLOBAL, false, false, p, NULL);
}

struct pcl_symtab *symtab_read_perf_map(FILE *f, unsigned int flags, const char *what)
{
	struct symtab_builder b;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;

	(void)what;
	builder_init(&b, flags);
	while ((len = getline(&line, &cap, f)) >= 0) {
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if ((size_t)len <= MAX_NAME + 64 && strlen(line) == (size_t)len)
			perf_map_line(&b, line);
	}
	free(line);
	return builder_finish(&b, FIXUP_MAP);
}

PCL_API struct pcl_symtab *pcl_symtab__load_perf_map(const char *path, unsigned int flags)
{
	return load_text(path, flags, symtab_read_perf_map);
}
