/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the symbol layer (lib/symbol) against the contract of
 * include/pcl/symbol.h and perf's behaviour.
 *
 * ELF tables are checked on real files against nm: the hot workload (a
 * PIE), and small programs compiled here with cc when there is one (a
 * non-PIE, aliases that exercise perf's choose_best_symbol, a size-0 asm
 * label, and stripped/debug-file pairs for the build-id directory, the
 * .gnu_debuglink with its CRC, and symfs). kallsyms and perf-map tables
 * come from synthetic files written to a temporary directory; the vDSO
 * from this process. Corrupt and truncated ELF files must fail with
 * EBADMSG, never crash.
 *
 * Files go to a temporary directory, removed at the end.
 */
#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <gelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <pcl/common.h>
#include <pcl/data.h>
#include <pcl/machine.h>
#include <pcl/symbol.h>
#include "symbol/files.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

static char tmpdir[64];
static char hot[PATH_MAX];  /* the hot workload, next to this binary */
static bool have_cc;	    /* the test programs below were built */
static char prog[PATH_MAX]; /* PIE with build id */
static char prog_nopie[PATH_MAX];
static char prog_nobid[PATH_MAX]; /* PIE, no build id: debuglink needs the CRC */

/* ---- helpers ---- */

static void tpath(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", tmpdir, name);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* @name's value and size as nm prints them; false when absent. */
static bool nm_lookup(const char *path, const char *name, uint64_t *value, uint64_t *size)
{
	char cmd[PATH_MAX + 64], line[1024];
	bool found = false;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -S --defined-only '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	if (!p)
		return false;
	while (!found && fgets(line, sizeof(line), p)) {
		unsigned long long v, s = 0;
		char t, n[512];

		if (sscanf(line, "%llx %llx %c %511s", &v, &s, &t, n) == 4 ||
		    (s = 0, sscanf(line, "%llx %c %511s", &v, &t, n) == 3)) {
			if (!strcmp(n, name)) {
				*value = v;
				*size = s;
				found = true;
			}
		}
	}
	pclose(p);
	return found;
}

/* An independent reading of the PT_LOAD that holds @vaddr: its file offset. */
static uint64_t file_offset(const char *path, uint64_t vaddr)
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	size_t n;
	uint64_t off = UINT64_MAX;

	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(e);
	assert_int_equal(elf_getphdrnum(e, &n), 0);
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && vaddr >= ph.p_vaddr &&
		    vaddr < ph.p_vaddr + ph.p_memsz)
			off = vaddr - ph.p_vaddr + ph.p_offset;
	}
	elf_end(e);
	close(fd);
	assert_true(off != UINT64_MAX);
	return off;
}

static const struct pcl_symbol *by_name(const struct pcl_symtab *t, const char *name)
{
	for (size_t i = 0; i < pcl_symtab__count(t); i++) {
		const struct pcl_symbol *s = pcl_symtab__at(t, i);

		if (!strcmp(s->name, name))
			return s;
	}
	return NULL;
}

static const char *find_name(const struct pcl_symtab *t, uint64_t addr)
{
	const struct pcl_symbol *s = pcl_symtab__find(t, addr);

	return s ? s->name : NULL;
}

/* Every symbol of @t: sorted, distinct starts, names set. */
static void check_invariants(const struct pcl_symtab *t)
{
	for (size_t i = 0; i < pcl_symtab__count(t); i++) {
		const struct pcl_symbol *s = pcl_symtab__at(t, i);

		assert_non_null(s->name);
		assert_true(s->end >= s->start);
		if (i)
			assert_true(pcl_symtab__at(t, i - 1)->start < s->start);
	}
	assert_null(pcl_symtab__at(t, pcl_symtab__count(t)));
}

static void need_hot(void)
{
	if (access(hot, R_OK)) {
		print_message("no workload at %s (make tests builds it)\n", hot);
		skip();
	}
}

static void need_cc(void)
{
	if (!have_cc) {
		print_message("no cc/objcopy/strip to build test programs\n");
		skip();
	}
}

static void dso_done(struct pcl_dso *d)
{
	if (d->sym_free)
		d->sym_free(d->sym_priv);
	free(d->sym_note);
	memset(d, 0, sizeof(*d));
}

/* ---- ELF ---- */

/* The hot workload's functions, where nm and the PT_LOAD segments put them. */
static void test_elf_hot(void **state)
{
	static const char *const fns[] = { "main", "hot_leaf", "warm_helper", "outer", "middle" };
	struct pcl_symtab *t;
	int bad = 0;

	(void)state;
	need_hot();
	t = pcl_symtab__load_elf(hot, PCL_SYMTAB_DEMANGLE);
	assert_non_null(t);
	check_invariants(t);
	for (size_t i = 0; i < ARRAY_SIZE(fns); i++) {
		uint64_t v, size, off;
		const struct pcl_symbol *s;

		assert_true(nm_lookup(hot, fns[i], &v, &size));
		off = file_offset(hot, v);
		s = pcl_symtab__find(t, off);
		if (!s) {
			print_message("'%s': not found at %#llx\n", fns[i],
				      (unsigned long long)off);
			bad++;
			continue;
		}
		bad += differ_str(fns[i], "name", s->name, fns[i]);
		bad += differ(fns[i], "start", s->start, off);
		bad += differ(fns[i], "end", s->end, off + size);
		bad += differ_str(fns[i], "name at end-1", find_name(t, off + size - 1), fns[i]);
	}
	assert_int_equal(bad, 0);
	pcl_symtab__free(t);
}

/* perf's name@plt entries, where objdump puts them. */
static void test_elf_plt(void **state)
{
	char cmd[PATH_MAX + 64], line[512];
	struct pcl_symtab *t;
	int seen = 0, bad = 0;
	FILE *p;

	(void)state;
	need_hot();
	t = pcl_symtab__load_elf(hot, 0);
	assert_non_null(t);
	snprintf(cmd, sizeof(cmd), "objdump -d -j .plt '%s' 2>/dev/null", hot);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		unsigned long long a;
		char name[256];

		/* "0000000000001030 <atof@plt>:" (the vaddr is the offset in this PIE) */
		if (sscanf(line, "%llx <%255[^>]>:", &a, name) == 2 && strstr(name, "@plt") &&
		    !strchr(name, '-')) {
			seen++;
			bad += differ_str(name, "symbol", find_name(t, file_offset(hot, a)), name);
		}
	}
	pclose(p);
	if (!seen) {
		pcl_symtab__free(t);
		print_message("objdump shows no .plt entries in %s\n", hot);
		skip();
	}
	assert_non_null(by_name(t, "clock_gettime@plt"));
	assert_int_equal(bad, 0);
	pcl_symtab__free(t);
}

/* A non-PIE executable: symbols move from 0x40xxxx to file offsets. */
static void test_elf_nonpie(void **state)
{
	struct pcl_symtab *t;
	uint64_t v, size, off;
	const struct pcl_symbol *s;

	(void)state;
	need_cc();
	t = pcl_symtab__load_elf(prog_nopie, 0);
	assert_non_null(t);
	assert_true(nm_lookup(prog_nopie, "spin_here", &v, &size));
	off = file_offset(prog_nopie, v);
	assert_true(v >= 0x400000 && off < 0x400000);
	s = pcl_symtab__find(t, off + 1);
	assert_non_null(s);
	assert_string_equal(s->name, "spin_here");
	assert_int_equal(s->start, off);
	assert_int_equal(s->end, off + size);
	/* The unmoved value is nothing in this table. */
	assert_null(pcl_symtab__find(t, v));
	pcl_symtab__free(t);

	/* PCL_SYMTAB_ABSOLUTE keeps values (a vmlinux). */
	t = pcl_symtab__load_elf(prog_nopie, PCL_SYMTAB_ABSOLUTE);
	assert_non_null(t);
	assert_string_equal(find_name(t, v), "spin_here");
	pcl_symtab__free(t);
}

/*
 * Aliases at one address resolve as perf's choose_best_symbol: global over
 * weak, fewer leading underscores, longer name; a local loses to a global.
 * A size-0 asm label ends where the next symbol starts.
 */
static void test_elf_duplicates(void **state)
{
	static const struct {
		const char *member, *winner;
	} cases[] = {
		{ "__underscored", "plain_name" },
		{ "weak_name", "plain_name" },
		{ "local_impl", "global_alias" },
		{ "ab", "abcdef" },
	};
	struct pcl_symtab *t;
	uint64_t v, size, v2, size2;
	int bad = 0;

	(void)state;
	need_cc();
	t = pcl_symtab__load_elf(prog, 0);
	assert_non_null(t);
	check_invariants(t);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_true(nm_lookup(prog, cases[i].member, &v, &size));
		bad += differ_str(cases[i].member, "winner", find_name(t, file_offset(prog, v)),
				  cases[i].winner);
		if (strcmp(cases[i].member, cases[i].winner))
			bad += differ(cases[i].member, "dropped",
				      by_name(t, cases[i].member) != NULL, 0);
	}
	assert_true(nm_lookup(prog, "zs_a", &v, &size));
	assert_true(nm_lookup(prog, "zs_b", &v2, &size2));
	assert_int_equal(size, 0);
	bad += differ_str("zs_a", "name at +1", find_name(t, file_offset(prog, v) + 1), "zs_a");
	bad += differ("zs_a", "end", by_name(t, "zs_a")->end, file_offset(prog, v2));
	assert_int_equal(bad, 0);
	pcl_symtab__free(t);
}

static void expect_bad_elf(const char *what, struct pcl_symtab *t)
{
	if (t) {
		print_message("'%s': loaded %zu symbols from a bad file\n", what,
			      pcl_symtab__count(t));
		pcl_symtab__free(t);
		fail();
	}
	if (errno != EBADMSG)
		print_message("'%s': errno %d (%s)\n", what, errno, pcl_last_error());
	assert_int_equal(errno, EBADMSG);
	assert_true(strlen(pcl_last_error()) > 0);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* Not ELF, cut short, headers pointing nowhere: EBADMSG; every cut: no crash. */
static void test_elf_corrupt(void **state)
{
	char path[PATH_MAX];
	uint8_t *img, *cp;
	size_t len;
	struct pcl_symtab *t;
	FILE *f;

	(void)state;
	need_hot();
	img = slurp(hot, &len);
	tpath(path, sizeof(path), "not-elf");
	write_file(path, "this is not an ELF file\n");
	expect_bad_elf("text file", pcl_symtab__load_elf(path, 0));
	expect_bad_elf("empty image", pcl_symtab__load_elf_mem(img, 0, 0));
	expect_bad_elf("ELF header only", pcl_symtab__load_elf_mem(img, 64, 0));
	expect_bad_elf("first half", pcl_symtab__load_elf_mem(img, len / 2, 0));

	tpath(path, sizeof(path), "cut.elf");
	f = fopen(path, "wb");
	assert_non_null(f);
	fwrite(img, 1, len - 100, f);
	fclose(f);
	expect_bad_elf("file cut 100 bytes short", pcl_symtab__load_elf(path, 0));

	/* Section headers far past the end. */
	cp = malloc(len);
	assert_non_null(cp);
	memcpy(cp, img, len);
	memset(cp + 0x28, 0x7f, 8); /* e_shoff */
	expect_bad_elf("e_shoff past the end", pcl_symtab__load_elf_mem(cp, len, 0));
	free(cp);

	/* Every length: a table or EBADMSG, nothing else. */
	for (size_t cut = 0; cut < len; cut += 61) {
		t = pcl_symtab__load_elf_mem(img, cut, PCL_SYMTAB_DEMANGLE);
		if (t) {
			check_invariants(t);
			pcl_symtab__free(t);
		} else {
			assert_int_equal(errno, EBADMSG);
		}
	}
	errno = 0;
	assert_null(pcl_symtab__load_elf("/nonexistent/file", 0));
	assert_int_equal(errno, ENOENT);
	free(img);
}

/* ---- kallsyms ---- */

static const char kallsyms_text[] = "ffffffff81000000 T _stext\n"
				    "ffffffff81000000 T _text\n"
				    "ffffffff81000100 t helper_a\n"
				    "ffffffff81000200 W weak_fn\n"
				    "ffffffff81000300 d some_data\n"
				    "ffffffff81000400 r rodata_thing\n"
				    "ffffffff81000500 A abs_thing\n"
				    "ffffffff81000600 T last_kernel_fn\n"
				    "ffffffffc0001000 t mod_fn_a\t[mymod]\n"
				    "ffffffffc0001000 t mod_alias\t[mymod]\n"
				    "ffffffffc0001080 T mod_fn_b\t[mymod]\n"
				    "bad line here\n"
				    "ffffffffzz T broken\n"
				    "ffffffff81000700 U undefined_thing\n"
				    "ffffffff81000800 t $x\n"
				    "ffffffff81000900\n"
				    "ffffffff81000a00 T\n";

static void test_kallsyms(void **state)
{
	static const struct {
		uint64_t addr;
		const char *name;
	} cases[] = {
		/* unsized aliases: only the last gets a size, so it wins, as in perf */
		{ 0xffffffff81000000, "_text" },
		{ 0xffffffff810000ff, "_text" },
		{ 0xffffffff81000100, "helper_a" },
		{ 0xffffffff81000250, "weak_fn" },
		/* r and A are dropped: some_data reaches the next kept symbol */
		{ 0xffffffff81000450, "some_data" },
		/* the last kernel symbol before the modules gets a page, not the gap */
		{ 0xffffffff81001fff, "last_kernel_fn" },
		{ 0xffffffff81002000, NULL },
		{ 0xffffffffc0000fff, NULL },
		{ 0xffffffffc0001000, "mod_alias" },
		{ 0xffffffffc0001080, "mod_fn_b" },
		/* the very last: up to the end of the next page */
		{ 0xffffffffc0002fff, "mod_fn_b" },
		{ 0xffffffffc0003000, NULL },
		{ 0x1000, NULL },
	};
	char path[PATH_MAX], row[64];
	struct pcl_symtab *t;
	int bad = 0;

	(void)state;
	tpath(path, sizeof(path), "kallsyms");
	write_file(path, kallsyms_text);
	t = pcl_symtab__load_kallsyms(path, 0);
	assert_non_null(t);
	check_invariants(t);
	assert_int_equal(pcl_symtab__count(t), 7);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(row, sizeof(row), "%#llx", (unsigned long long)cases[i].addr);
		bad += differ_str(row, "symbol", find_name(t, cases[i].addr), cases[i].name);
	}
	assert_int_equal(bad, 0);
	assert_null(by_name(t, "rodata_thing"));
	assert_null(by_name(t, "$x"));
	pcl_symtab__free(t);
}

/* Lines out of address order (aliases kept in their order) give the same table. */
static void test_kallsyms_any_order(void **state)
{
	static const char shuffled[] = "ffffffffc0001080 T mod_fn_b\t[mymod]\n"
				       "ffffffff81000600 T last_kernel_fn\n"
				       "ffffffffc0001000 t mod_fn_a\t[mymod]\n"
				       "ffffffff81000300 d some_data\n"
				       "ffffffffc0001000 t mod_alias\t[mymod]\n"
				       "ffffffff81000000 T _stext\n"
				       "ffffffff81000200 W weak_fn\n"
				       "ffffffff81000000 T _text\n"
				       "ffffffff81000100 t helper_a\n";
	char path[PATH_MAX], spath[PATH_MAX];
	struct pcl_symtab *t, *u;
	int bad = 0;

	(void)state;
	tpath(path, sizeof(path), "kallsyms");
	write_file(path, kallsyms_text);
	tpath(spath, sizeof(spath), "kallsyms-shuffled");
	write_file(spath, shuffled);
	t = pcl_symtab__load_kallsyms(path, 0);
	u = pcl_symtab__load_kallsyms(spath, 0);
	assert_non_null(t);
	assert_non_null(u);
	check_invariants(u);
	assert_int_equal(pcl_symtab__count(u), pcl_symtab__count(t));
	for (size_t i = 0; i < pcl_symtab__count(t); i++) {
		const struct pcl_symbol *a = pcl_symtab__at(t, i), *b = pcl_symtab__at(u, i);

		bad += differ_str("symbol", "name", b->name, a->name);
		bad += differ("symbol", "start", b->start, a->start);
		bad += differ("symbol", "end", b->end, a->end);
	}
	assert_int_equal(bad, 0);
	pcl_symtab__free(t);
	pcl_symtab__free(u);
}

static void test_kallsyms_restricted(void **state)
{
	char path[PATH_MAX];

	(void)state;
	tpath(path, sizeof(path), "kallsyms-zero");
	write_file(path, "0000000000000000 T _stext\n"
			 "0000000000000000 t helper\n"
			 "0000000000000000 T foo\t[mod]\n");
	errno = 0;
	assert_null(pcl_symtab__load_kallsyms(path, 0));
	assert_int_equal(errno, EACCES);
	assert_non_null(strstr(pcl_last_error(), "kptr_restrict"));
	errno = 0;
	assert_null(pcl_symtab__load_kallsyms("/nonexistent/kallsyms", 0));
	assert_int_equal(errno, ENOENT);
	/* Nothing kept but not hidden: an empty table. */
	tpath(path, sizeof(path), "kallsyms-empty");
	write_file(path, "");
	struct pcl_symtab *t = pcl_symtab__load_kallsyms(path, 0);
	assert_non_null(t);
	assert_int_equal(pcl_symtab__count(t), 0);
	assert_null(pcl_symtab__find(t, 0));
	pcl_symtab__free(t);
}

/* ---- perf maps ---- */

static void test_perf_map(void **state)
{
	static const struct {
		uint64_t addr;
		const char *name;
	} cases[] = {
		{ 0x7f0000001000, "jitted_fn_a" },
		{ 0x7f00000010ff, "jitted_fn_a" },
		{ 0x7f0000001100, "LazyCompile:~foo bar.js:12" },
		{ 0x7f0000001180, NULL },
		{ 0x7f0000002000, "zero_size" }, /* perf: an unsized entry holds its start only */
		{ 0x7f0000002001, NULL },
		{ 0x7f0000004010, "new_code" }, /* the later entry at a start is the newer code */
		{ 0x7f0000004030, NULL },
		{ 0x7f0000005000, "outer" },
		{ 0x7f0000005015, "inner" },
		/* Past a nested entry: the nearest start below decides (see pcl_symtab__find). */
		{ 0x7f0000005050, NULL },
		{ 0x7f0000005100, NULL },
		{ 0, NULL },
		{ UINT64_MAX, NULL },
	};
	char path[PATH_MAX], row[64];
	struct pcl_symtab *t;
	int bad = 0;

	(void)state;
	tpath(path, sizeof(path), "perf-1.map");
	write_file(path, "7f0000001000 100 jitted_fn_a\n"
			 "0x7f0000001100 0x80 LazyCompile:~foo bar.js:12\n"
			 "7f0000002000 0 zero_size\n"
			 "garbage line\n"
			 "7f0000003000 zz badsize\n"
			 "7f0000003000\n"
			 "7f0000003000 10\n"
			 "7f0000003000 10 \n"
			 "7f0000004000 40 old_code\n"
			 "7f0000004000 20 new_code\n"
			 "7f0000005000 100 outer\n"
			 "7f0000005010 10 inner\n"
			 "7f0000006000 10 no newline at the end");
	t = pcl_symtab__load_perf_map(path, 0);
	assert_non_null(t);
	check_invariants(t);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(row, sizeof(row), "%#llx", (unsigned long long)cases[i].addr);
		bad += differ_str(row, "symbol", find_name(t, cases[i].addr), cases[i].name);
	}
	bad += differ_str("last", "symbol", find_name(t, 0x7f0000006000), "no newline at the end");
	assert_int_equal(bad, 0);
	assert_int_equal(pcl_symtab__count(t), 7);
	pcl_symtab__free(t);
}

/* ---- demangling ---- */

static void test_demangle(void **state)
{
	static const struct {
		const char *mangled, *plain, *params;
	} cases[] = {
		{ "_ZN2ns3BoxIlE4spinEi", "ns::Box<long>::spin", "ns::Box<long>::spin(int)" },
		{ "_ZNSt6vectorIiSaIiEE9push_backERKi",
		  "std::vector<int, std::allocator<int> >::push_back",
		  "std::vector<int, std::allocator<int> >::push_back(int const&)" },
		{ "_ZN3FooC1Ev", "Foo::Foo", "Foo::Foo()" },
		/* Rust legacy: the hash goes */
		{ "_ZN4core3fmt5write17h0123456789abcdefE", "core::fmt::write",
		  "core::fmt::write" },
		/* Rust v0 */
		{ "_RNvCs1234_7mycrate3foo", "mycrate::foo", "mycrate::foo" },
		{ "_RNvNtCs1234_7mycrate3bar3baz", "mycrate::bar::baz", "mycrate::bar::baz" },
		{ "main", NULL, NULL },
		{ "_Zfoo", NULL, NULL },
		{ "", NULL, NULL },
	};
	char path[PATH_MAX], text[2048] = "";
	struct pcl_symtab *plain, *params, *raw;
	int bad = 0;

	(void)state;
	assert_null(pcl_demangle(NULL));
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *d = pcl_demangle(cases[i].mangled);

		bad += differ_str(cases[i].mangled, "pcl_demangle", d, cases[i].plain);
		free(d);
		if (*cases[i].mangled)
			snprintf(text + strlen(text), sizeof(text) - strlen(text), "%zx 10 %s\n",
				 0x1000 + 0x10 * i, cases[i].mangled);
	}
	/* Tables demangle once, at load, as their flags ask. */
	tpath(path, sizeof(path), "perf-mangled.map");
	write_file(path, text);
	plain = pcl_symtab__load_perf_map(path, PCL_SYMTAB_DEMANGLE);
	params = pcl_symtab__load_perf_map(path, PCL_SYMTAB_DEMANGLE | PCL_SYMTAB_DEMANGLE_PARAMS);
	raw = pcl_symtab__load_perf_map(path, 0);
	assert_non_null(plain);
	assert_non_null(params);
	assert_non_null(raw);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		uint64_t a = 0x1000 + 0x10 * i;

		if (!*cases[i].mangled)
			continue;
		bad += differ_str(cases[i].mangled, "table", find_name(plain, a),
				  cases[i].plain ? cases[i].plain : cases[i].mangled);
		bad += differ_str(cases[i].mangled, "table+params", find_name(params, a),
				  cases[i].params ? cases[i].params : cases[i].mangled);
		bad += differ_str(cases[i].mangled, "raw", find_name(raw, a), cases[i].mangled);
	}
	assert_int_equal(bad, 0);
	pcl_symtab__free(plain);
	pcl_symtab__free(params);
	pcl_symtab__free(raw);
}

/* ---- the symbolizer ---- */

static struct pcl_symbols *symbols_new(const char *symfs, bool ignore)
{
	/* No build-id cache: results must not depend on what perf cached here. */
	struct pcl_symbol_opts o = {
		.sz = sizeof(o), .symfs = symfs, .ignore_build_ids = ignore, .buildid_dir = ""
	};
	struct pcl_symbols *s = pcl_symbols__new(&o);

	assert_non_null(s);
	return s;
}

static void test_symbols_build_id(void **state)
{
	struct pcl_symbols *s;
	struct pcl_dso d = { 0 };
	uint8_t id[20];
	int size;
	uint64_t v, sz;
	const struct pcl_symbol *sym;

	(void)state;
	need_hot();
	size = pcl_build_id_read(hot, id);
	assert_true(size > 0);
	assert_true(nm_lookup(hot, "hot_leaf", &v, &sz));

	/* The recorded build id is the file's: symbols. */
	s = symbols_new(NULL, false);
	d.name = hot;
	d.kind = PCL_DSO_USER;
	memcpy(d.build_id, id, (size_t)size);
	d.build_id_size = (uint8_t)size;
	sym = pcl_symbols__find(s, &d, file_offset(hot, v));
	assert_int_equal(d.sym_status, PCL_DSO_SYMS_OK);
	assert_non_null(sym);
	assert_string_equal(sym->name, "hot_leaf");
	dso_done(&d);

	/* Another build: none, and a note that says why. */
	d.name = hot;
	d.kind = PCL_DSO_USER;
	memcpy(d.build_id, id, (size_t)size);
	d.build_id[0] ^= 0xff;
	d.build_id_size = (uint8_t)size;
	assert_int_equal(pcl_symbols__load(s, &d), PCL_DSO_SYMS_BAD_BUILD_ID);
	assert_null(pcl_symbols__find(s, &d, file_offset(hot, v)));
	assert_non_null(d.sym_note);
	assert_non_null(strstr(d.sym_note, "build id mismatch"));
	assert_non_null(strstr(d.sym_note, hot));
	assert_null(d.sym_priv);
	dso_done(&d);
	pcl_symbols__free(s);

	/* Forced. */
	s = symbols_new(NULL, true);
	d.name = hot;
	d.kind = PCL_DSO_USER;
	memcpy(d.build_id, id, (size_t)size);
	d.build_id[0] ^= 0xff;
	d.build_id_size = (uint8_t)size;
	assert_int_equal(pcl_symbols__load(s, &d), PCL_DSO_SYMS_OK);
	assert_string_equal(pcl_symbols__find(s, &d, file_offset(hot, v))->name, "hot_leaf");
	dso_done(&d);
	pcl_symbols__free(s);
}

/* Missing files: NOT_FOUND with a note, tried once only. */
static void test_symbols_missing(void **state)
{
	struct pcl_symbols *s = symbols_new(NULL, false);
	struct pcl_dso d = { .name = "", .kind = PCL_DSO_USER };
	char path[PATH_MAX];

	(void)state;
	tpath(path, sizeof(path), "appears-later");
	d.name = path;
	assert_int_equal(pcl_symbols__load(s, &d), PCL_DSO_SYMS_NOT_FOUND);
	assert_non_null(d.sym_note);
	assert_non_null(strstr(d.sym_note, path));
	need_hot();
	assert_int_equal(unit_sh("cp '%s' '%s'", hot, path), 0);
	/* The file exists now, but the DSO was tried: not again. */
	assert_int_equal(pcl_symbols__load(s, &d), PCL_DSO_SYMS_NOT_FOUND);
	assert_null(pcl_symbols__find(s, &d, 0x1000));
	dso_done(&d);

	d.name = "[heap]";
	d.kind = PCL_DSO_USER;
	assert_int_equal(pcl_symbols__load(s, &d), PCL_DSO_SYMS_NOT_FOUND);
	dso_done(&d);
	pcl_symbols__free(s);
}

/* Every path under symfs. */
static void test_symbols_symfs(void **state)
{
	char root[PATH_MAX];
	struct pcl_symbols *s;
	struct pcl_dso d = { .name = "/usr/bin/hot-in-symfs", .kind = PCL_DSO_USER };
	uint64_t v, sz;
	const struct pcl_symbol *sym;

	(void)state;
	need_hot();
	tpath(root, sizeof(root), "symfs");
	assert_int_equal(
		unit_sh("mkdir -p '%s/usr/bin' && cp '%s' '%s/usr/bin/hot-in-symfs'", root, hot, root),
		0);
	assert_true(nm_lookup(hot, "warm_helper", &v, &sz));
	s = symbols_new(root, false);
	sym = pcl_symbols__find(s, &d, file_offset(hot, v) + 4);
	assert_int_equal(d.sym_status, PCL_DSO_SYMS_OK);
	assert_non_null(sym);
	assert_string_equal(sym->name, "warm_helper");
	dso_done(&d);
	pcl_symbols__free(s);

	/* Without symfs the path does not exist. */
	s = symbols_new(NULL, false);
	d.name = "/usr/bin/hot-in-symfs";
	d.kind = PCL_DSO_USER;
	assert_int_equal(pcl_symbols__load(s, &d), PCL_DSO_SYMS_NOT_FOUND);
	dso_done(&d);
	pcl_symbols__free(s);
}

/* The symbol a stripped copy of @binary shows for static_fn through @symfs. */
static const char *stripped_lookup(const char *symfs, const char *binary, bool with_id, int *status)
{
	static char name[256];
	struct pcl_symbols *s = symbols_new(symfs, false);
	struct pcl_dso d = { .name = "/opt/app/prog", .kind = PCL_DSO_USER };
	uint64_t v, sz;
	const struct pcl_symbol *sym;

	if (with_id) {
		d.build_id_size = (uint8_t)pcl_build_id_read(binary, d.build_id);
		assert_true(d.build_id_size > 0);
	}
	assert_true(nm_lookup(binary, "static_fn", &v, &sz));
	sym = pcl_symbols__find(s, &d, file_offset(binary, v) + 1);
	*status = d.sym_status;
	snprintf(name, sizeof(name), "%s", sym ? sym->name : "(none)");
	dso_done(&d);
	pcl_symbols__free(s);
	return name;
}

/* Stripped file + debug file: by build id, by debuglink (with the CRC check). */
static void test_symbols_debug_files(void **state)
{
	char root[PATH_MAX], dbg[PATH_MAX];
	uint8_t id[20];
	char hexid[41];
	int status, n;

	(void)state;
	need_cc();
	/* /usr/lib/debug/.build-id/xx/rest.debug under symfs */
	n = pcl_build_id_read(prog, id);
	assert_true(n > 1);
	for (int i = 0; i < n; i++)
		sprintf(hexid + 2 * i, "%02x", id[i]);
	tpath(root, sizeof(root), "symfs-bid");
	assert_int_equal(
		unit_sh("set -e; mkdir -p '%s/opt/app' '%s/usr/lib/debug/.build-id/%.2s'; "
		   "strip -s -o '%s/opt/app/prog' '%s'; "
		   "objcopy --only-keep-debug '%s' '%s/usr/lib/debug/.build-id/%.2s/%s.debug'",
		   root, root, hexid, root, prog, prog, root, hexid, hexid + 2),
		0);
	assert_string_equal(stripped_lookup(root, prog, true, &status), "static_fn");
	assert_int_equal(status, PCL_DSO_SYMS_OK);
	/* Without the debug file only .dynsym is left: no static_fn. */
	snprintf(dbg, sizeof(dbg), "%s/usr/lib/debug/.build-id/%.2s/%s.debug", root, hexid,
		 hexid + 2);
	assert_int_equal(unlink(dbg), 0);
	assert_string_not_equal(stripped_lookup(root, prog, true, &status), "static_fn");
	assert_int_equal(status, PCL_DSO_SYMS_OK);

	/* .gnu_debuglink in .debug/, no build id anywhere: the CRC decides. */
	tpath(root, sizeof(root), "symfs-link");
	assert_int_equal(unit_sh("set -e; mkdir -p '%s/opt/app/.debug'; cd '%s/opt/app'; "
			    "objcopy --only-keep-debug '%s' .debug/prog.debug; "
			    "strip -s -o prog '%s'; "
			    "cp .debug/prog.debug prog.debug; "
			    "objcopy --add-gnu-debuglink=prog.debug prog; rm prog.debug",
			    root, root, prog_nobid, prog_nobid),
			 0);
	assert_string_equal(stripped_lookup(root, prog_nobid, false, &status), "static_fn");
	/* A changed debug file fails the CRC: not used. */
	assert_int_equal(unit_sh("printf x >> '%s/opt/app/.debug/prog.debug'", root), 0);
	assert_string_not_equal(stripped_lookup(root, prog_nobid, false, &status), "static_fn");
	assert_int_equal(status, PCL_DSO_SYMS_OK);
}

/*
 * The files behind a DSO (symbol/files.h): the code file, the debug file,
 * the DSO-relative to ELF address mapping, and source lines through them.
 */
static void check_static_fn_line(struct pcl_symbols *s, struct pcl_dso *d, const char *binary)
{
	const struct symbols_dso_files *f;
	const struct srcline_info *info;
	uint64_t v, sz;

	assert_true(nm_lookup(binary, "static_fn", &v, &sz));
	f = symbols_dso_files(s, d);
	assert_non_null(f);
	assert_int_equal(symbols_dso_vaddr(f, file_offset(binary, v)), v);
	assert_int_equal(symbols_srcline(s, d, file_offset(binary, v), &info), 0);
	assert_non_null(info->file);
	assert_string_equal(strrchr(info->file, '/') + 1, "prog.c");
	assert_int_equal(info->line, 11); /* static_fn's line in prog_src */
	assert_true(info->nframes >= 1);
	assert_string_equal(info->frames[info->nframes - 1].func, "static_fn");
}

static void test_symbols_files(void **state)
{
	char root[PATH_MAX], dbg[PATH_MAX];
	struct pcl_symbols *s;
	struct pcl_dso d = { .kind = PCL_DSO_USER };
	const struct symbols_dso_files *f;
	const struct srcline_info *info;
	char hexid[41];
	int n;

	(void)state;
	need_cc();
	/* Non-PIE: the ELF addresses are far from the file offsets. */
	s = symbols_new(NULL, false);
	d.name = prog_nopie;
	check_static_fn_line(s, &d, prog_nopie);
	f = symbols_dso_files(s, &d);
	assert_string_equal(f->path, prog_nopie);
	assert_null(f->debug);
	assert_false(f->absolute);
	dso_done(&d);
	pcl_symbols__free(s);

	/* Stripped, its debug file by build id under the symfs. */
	d = (struct pcl_dso){ .name = "/opt/app/prog", .kind = PCL_DSO_USER };
	n = pcl_build_id_read(prog, d.build_id);
	assert_true(n > 1);
	d.build_id_size = (uint8_t)n;
	for (int i = 0; i < n; i++)
		sprintf(hexid + 2 * i, "%02x", d.build_id[i]);
	tpath(root, sizeof(root), "symfs-files");
	assert_int_equal(
		unit_sh("set -e; mkdir -p '%s/opt/app' '%s/usr/lib/debug/.build-id/%.2s'; "
		   "strip -s -o '%s/opt/app/prog' '%s'; "
		   "objcopy --only-keep-debug '%s' '%s/usr/lib/debug/.build-id/%.2s/%s.debug'",
		   root, root, hexid, root, prog, prog, root, hexid, hexid + 2),
		0);
	s = symbols_new(root, false);
	check_static_fn_line(s, &d, prog);
	f = symbols_dso_files(s, &d);
	snprintf(dbg, sizeof(dbg), "%s/usr/lib/debug/.build-id/%.2s/%s.debug", root, hexid,
		 hexid + 2);
	assert_non_null(f->debug);
	assert_string_equal(f->debug, dbg);
	assert_non_null(strstr(f->path, "/opt/app/prog"));
	dso_done(&d);
	pcl_symbols__free(s);

	/* A DSO with no file has no files and no lines. */
	s = symbols_new(NULL, false);
	d = (struct pcl_dso){ .name = "/no/such/file", .kind = PCL_DSO_USER };
	assert_null(symbols_dso_files(s, &d));
	assert_int_equal(symbols_srcline(s, &d, 0x1000, &info), -ENOENT);
	dso_done(&d);
	pcl_symbols__free(s);
}

static void test_symbols_vdso(void **state)
{
	struct pcl_symbols *s;
	struct pcl_dso d = { .name = "[vdso]", .kind = PCL_DSO_VDSO };
	const struct pcl_symbol *sym, *again;

	(void)state;
	if (!getauxval(AT_SYSINFO_EHDR)) {
		print_message("this process has no vDSO\n");
		skip();
	}
	s = symbols_new(NULL, false);
	assert_int_equal(pcl_symbols__load(s, &d), PCL_DSO_SYMS_OK);
	sym = by_name(d.sym_priv, "__vdso_clock_gettime");
	if (!sym)
		sym = by_name(d.sym_priv, "__kernel_clock_gettime");
	assert_non_null(sym);
	again = pcl_symbols__find(s, &d, sym->start);
	assert_ptr_equal(again, sym);
	/* The table outlives the symbolizer: the DSO holds a reference. */
	pcl_symbols__free(s);
	assert_string_equal(pcl_symtab__find(d.sym_priv, sym->start)->name, sym->name);
	dso_done(&d);

	/* A vDSO of another kernel. */
	s = symbols_new(NULL, false);
	d.name = "[vdso]";
	d.kind = PCL_DSO_VDSO;
	d.build_id_size = 20;
	memset(d.build_id, 0x5a, 20);
	assert_int_equal(pcl_symbols__load(s, &d), PCL_DSO_SYMS_BAD_BUILD_ID);
	assert_non_null(d.sym_note);
	dso_done(&d);
	pcl_symbols__free(s);
}

/* Kernel and modules share one table; a build id of another kernel is refused. */
static void test_symbols_kernel(void **state)
{
	char path[PATH_MAX];
	struct pcl_symbol_opts o = { .sz = sizeof(o), .buildid_dir = "" };
	struct pcl_symbols *s;
	struct pcl_dso k = { .name = "[kernel.kallsyms]", .kind = PCL_DSO_KERNEL };
	struct pcl_dso m = { .name = "[mymod]", .kind = PCL_DSO_MODULE };
	uint8_t id[20];

	(void)state;
	tpath(path, sizeof(path), "kallsyms-k");
	write_file(path, kallsyms_text);
	o.kallsyms = path;
	s = pcl_symbols__new(&o);
	assert_non_null(s);
	/* A given kallsyms file is trusted whatever the build id, as perf's --kallsyms. */
	k.build_id_size = 20;
	memset(k.build_id, 0x11, 20);
	assert_string_equal(pcl_symbols__find(s, &k, 0xffffffff81000123)->name, "helper_a");
	assert_string_equal(pcl_symbols__find(s, &m, 0xffffffffc0001090)->name, "mod_fn_b");
	assert_int_equal(k.sym_status, PCL_DSO_SYMS_OK);
	assert_int_equal(m.sym_status, PCL_DSO_SYMS_OK);
	assert_ptr_equal(k.sym_priv, m.sym_priv);
	pcl_symbols__free(s);
	dso_done(&k);
	dso_done(&m);

	/* kptr_restrict: an error with a note that says so. */
	tpath(path, sizeof(path), "kallsyms-k0");
	write_file(path, "0000000000000000 T _stext\n");
	o.kallsyms = path;
	s = pcl_symbols__new(&o);
	k.name = "[kernel.kallsyms]";
	k.kind = PCL_DSO_KERNEL;
	assert_int_equal(pcl_symbols__load(s, &k), PCL_DSO_SYMS_ERROR);
	assert_non_null(k.sym_note);
	assert_non_null(strstr(k.sym_note, "kptr_restrict"));
	dso_done(&k);
	pcl_symbols__free(s);

	/* This machine's kallsyms, for a recording of another kernel. */
	if (pcl_build_id_kernel(id) <= 0) {
		print_message("no build id in /sys/kernel/notes\n");
		skip();
	}
	s = symbols_new(NULL, false);
	k.name = "[kernel.kallsyms]";
	k.kind = PCL_DSO_KERNEL;
	k.build_id_size = 20;
	memcpy(k.build_id, id, 20);
	k.build_id[19] ^= 1;
	assert_int_equal(pcl_symbols__load(s, &k), PCL_DSO_SYMS_BAD_BUILD_ID);
	assert_non_null(strstr(k.sym_note, "build id mismatch"));
	dso_done(&k);
	pcl_symbols__free(s);
}

/* --vmlinux: an ELF with absolute addresses (a non-PIE stands in for one). */
static void test_symbols_vmlinux(void **state)
{
	struct pcl_symbol_opts o = { .sz = sizeof(o), .buildid_dir = "" };
	struct pcl_symbols *s;
	struct pcl_dso k = { .name = "[kernel.kallsyms]", .kind = PCL_DSO_KERNEL };
	uint64_t v, sz;

	(void)state;
	need_cc();
	assert_true(nm_lookup(prog_nopie, "spin_here", &v, &sz));
	o.vmlinux = prog_nopie;
	s = pcl_symbols__new(&o);
	assert_non_null(s);
	assert_string_equal(pcl_symbols__find(s, &k, v + 1)->name, "spin_here");
	dso_done(&k);
	/* The vmlinux's build id is checked. */
	k.name = "[kernel.kallsyms]";
	k.kind = PCL_DSO_KERNEL;
	k.build_id_size = 20;
	assert_int_equal(pcl_symbols__load(s, &k), PCL_DSO_SYMS_BAD_BUILD_ID);
	dso_done(&k);
	pcl_symbols__free(s);
}

static void test_symbols_jit(void **state)
{
	char path[64];
	struct pcl_symbols *s = symbols_new("/nonexistent-symfs", false);
	/* A pid no process has (above the default pid_max). */
	int pid = 4194304 + 1000 + (int)(getpid() % 1000);
	struct pcl_dso d = { .kind = PCL_DSO_JIT, .pid = pid };
	struct pcl_dso d2 = { .name = "//anon", .kind = PCL_DSO_JIT, .pid = pid };
	struct pcl_dso gone = { .name = "//anon", .kind = PCL_DSO_JIT, .pid = pid + 1 };

	(void)state;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", pid);
	write_file(path, "1000 40 jit_one\n2000 40 jit_two\n");
	d.name = path;
	assert_string_equal(pcl_symbols__find(s, &d, 0x1010)->name, "jit_one");
	/* A JIT DSO named otherwise: the map of its pid. */
	assert_string_equal(pcl_symbols__find(s, &d2, 0x2010)->name, "jit_two");
	assert_null(pcl_symbols__find(s, &gone, 0x1010));
	assert_int_equal(gone.sym_status, PCL_DSO_SYMS_NOT_FOUND);
	assert_non_null(gone.sym_note);
	unlink(path);
	dso_done(&d);
	dso_done(&d2);
	dso_done(&gone);
	pcl_symbols__free(s);
}

/*
 * A JIT map another user owns is not trusted (anyone may write one in /tmp)
 * unless any_owner says so; one this user owns is. Needs root for chown.
 */
static void test_symbols_jit_owner(void **state)
{
	struct pcl_symbol_opts o = { .sz = sizeof(o), .buildid_dir = "", .any_owner = true };
	int pid = 4194304 + 2000 + (int)(getpid() % 1000);
	const struct pcl_dso fresh = { .name = "//anon", .kind = PCL_DSO_JIT, .pid = pid };
	struct pcl_dso d = fresh;
	struct pcl_symbols *s = symbols_new(NULL, false), *any;
	char path[64];

	(void)state;
	if (geteuid()) {
		pcl_symbols__free(s);
		skip();
	}
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", pid);
	write_file(path, "1000 40 jit_one\n");
	assert_int_equal(chown(path, 65534, 65534), 0);
	assert_null(pcl_symbols__find(s, &d, 0x1010));
	assert_int_equal(d.sym_status, PCL_DSO_SYMS_NOT_OWNED);
	assert_non_null(d.sym_note);
	assert_non_null(strstr(d.sym_note, "uid 65534"));
	dso_done(&d);
	d = fresh;
	any = pcl_symbols__new(&o);
	assert_non_null(any);
	assert_string_equal(pcl_symbols__find(any, &d, 0x1010)->name, "jit_one");
	dso_done(&d);
	d = fresh;
	/* root's own map: trusted */
	assert_int_equal(chown(path, 0, 0), 0);
	assert_string_equal(pcl_symbols__find(s, &d, 0x1010)->name, "jit_one");
	dso_done(&d);
	unlink(path);
	pcl_symbols__free(any);
	pcl_symbols__free(s);
}

/* perf's build-id cache: the recorded build when the file is gone or rebuilt. */
static void test_symbols_buildid_cache(void **state)
{
	char cache[PATH_MAX], hexid[41], kid[41], dir[PATH_MAX * 2];
	struct pcl_symbol_opts o = { .sz = sizeof(o), .buildid_dir = "" };
	struct pcl_symbols *s;
	struct pcl_dso d = { .name = "/no/such/dir/prog", .kind = PCL_DSO_USER };
	struct pcl_dso k = { .name = "[kernel.kallsyms]", .kind = PCL_DSO_KERNEL };
	uint8_t id[20];
	uint64_t v, sz;
	int n;

	(void)state;
	need_cc();
	tpath(cache, sizeof(cache), "buildid-cache");
	n = pcl_build_id_read(prog, id);
	assert_true(n > 1);
	for (int i = 0; i < n; i++)
		sprintf(hexid + 2 * i, "%02x", id[i]);
	snprintf(dir, sizeof(dir), "%s/.build-id/%.2s/%s", cache, hexid, hexid + 2);
	assert_int_equal(unit_sh("mkdir -p '%s' && cp '%s' '%s/elf'", dir, prog, dir), 0);
	o.buildid_dir = cache;
	s = pcl_symbols__new(&o);
	assert_non_null(s);
	memcpy(d.build_id, id, (size_t)n);
	d.build_id_size = (uint8_t)n;
	assert_true(nm_lookup(prog, "static_fn", &v, &sz));
	assert_string_equal(pcl_symbols__find(s, &d, file_offset(prog, v))->name, "static_fn");
	dso_done(&d);

	/* A rebuilt file on disk (another build id): the cached copy wins. */
	d.name = prog_nobid;
	d.kind = PCL_DSO_USER;
	memcpy(d.build_id, id, (size_t)n);
	d.build_id_size = (uint8_t)n;
	assert_int_equal(pcl_symbols__load(s, &d), PCL_DSO_SYMS_OK);
	dso_done(&d);

	/* The recorded kernel's kallsyms, for a recording of another kernel. */
	if (pcl_build_id_kernel(id) <= 0) {
		pcl_symbols__free(s);
		print_message("no build id in /sys/kernel/notes\n");
		skip();
	}
	id[0] ^= 0xff;
	for (int i = 0; i < 20; i++)
		sprintf(kid + 2 * i, "%02x", id[i]);
	snprintf(dir, sizeof(dir), "%s/[kernel.kallsyms]/%s", cache, kid);
	assert_int_equal(unit_sh("mkdir -p '%s'", dir), 0);
	strcat(dir, "/kallsyms");
	write_file(dir, kallsyms_text);
	memcpy(k.build_id, id, 20);
	k.build_id_size = 20;
	assert_string_equal(pcl_symbols__find(s, &k, 0xffffffff81000123)->name, "helper_a");
	dso_done(&k);
	pcl_symbols__free(s);

	/* "" turns the cache off. */
	o.buildid_dir = "";
	s = pcl_symbols__new(&o);
	k.name = "[kernel.kallsyms]";
	k.kind = PCL_DSO_KERNEL;
	memcpy(k.build_id, id, 20);
	k.build_id_size = 20;
	assert_int_equal(pcl_symbols__load(s, &k), PCL_DSO_SYMS_BAD_BUILD_ID);
	dso_done(&k);
	pcl_symbols__free(s);
}

/*
 * With a symfs, as perf's --symfs: no /proc/kallsyms and no vDSO of this
 * machine, but a vmlinux at perf's places under it, and SYMFS/.debug as
 * the build-id cache.
 */
static void test_symbols_symfs_kernel(void **state)
{
	char root[PATH_MAX], dir[PATH_MAX * 2], hexid[41];
	struct pcl_symbol_opts o = { .sz = sizeof(o) };
	struct pcl_symbols *s;
	struct pcl_dso k = { .name = "[kernel.kallsyms]", .kind = PCL_DSO_KERNEL };
	struct pcl_dso v = { .name = "[vdso]", .kind = PCL_DSO_VDSO };
	struct pcl_dso d = { .name = "/gone/prog", .kind = PCL_DSO_USER };
	struct utsname u;
	uint64_t val, sz;
	int n;

	(void)state;
	need_cc();
	assert_int_equal(uname(&u), 0);
	tpath(root, sizeof(root), "symfs-kernel");
	assert_int_equal(unit_sh("mkdir -p '%s'", root), 0);
	o.symfs = root;
	s = pcl_symbols__new(&o);
	assert_non_null(s);
	assert_int_equal(pcl_symbols__load(s, &k), PCL_DSO_SYMS_NOT_FOUND);
	assert_non_null(strstr(k.sym_note, "symfs"));
	assert_int_equal(pcl_symbols__load(s, &v), PCL_DSO_SYMS_NOT_FOUND);
	dso_done(&k);
	dso_done(&v);
	pcl_symbols__free(s);

	/* /boot/vmlinux-RELEASE under the symfs, of the recorded build (a non-PIE stands in). */
	assert_int_equal(unit_sh("mkdir -p '%s/boot' && cp '%s' '%s/boot/vmlinux-%s'", root, prog_nopie,
			    root, u.release),
			 0);
	n = pcl_build_id_read(prog_nopie, k.build_id);
	assert_true(n > 1);
	k.build_id_size = (uint8_t)n;
	k.name = "[kernel.kallsyms]";
	k.kind = PCL_DSO_KERNEL;
	assert_true(nm_lookup(prog_nopie, "spin_here", &val, &sz));
	s = pcl_symbols__new(&o);
	assert_string_equal(pcl_symbols__find(s, &k, val + 1)->name, "spin_here");
	pcl_symbols__free(s);
	dso_done(&k);
	/* Another build: that vmlinux is not it, and with a symfs there is no kallsyms. */
	k.name = "[kernel.kallsyms]";
	k.kind = PCL_DSO_KERNEL;
	k.build_id_size = (uint8_t)n;
	memset(k.build_id, 0x33, (size_t)n);
	s = pcl_symbols__new(&o);
	assert_int_equal(pcl_symbols__load(s, &k), PCL_DSO_SYMS_NOT_FOUND);
	dso_done(&k);

	/* SYMFS/.debug is the build-id cache. */
	n = pcl_build_id_read(prog, d.build_id);
	assert_true(n > 1);
	d.build_id_size = (uint8_t)n;
	for (int i = 0; i < n; i++)
		sprintf(hexid + 2 * i, "%02x", d.build_id[i]);
	snprintf(dir, sizeof(dir), "%s/.debug/.build-id/%.2s/%s", root, hexid, hexid + 2);
	assert_int_equal(unit_sh("mkdir -p '%s' && cp '%s' '%s/elf'", dir, prog, dir), 0);
	assert_true(nm_lookup(prog, "static_fn", &val, &sz));
	assert_string_equal(pcl_symbols__find(s, &d, file_offset(prog, val))->name, "static_fn");
	dso_done(&d);
	pcl_symbols__free(s);
}

/* ---- set-up ---- */

static const char prog_src[] =
	"#include <stdio.h>\n"
	"#define NOINLINE __attribute__((noinline))\n"
	"NOINLINE void spin_here(volatile int *p) { for (int i = 0; i < 100; i++) *p += i; }\n"
	"NOINLINE void __underscored(void) { __asm__ volatile(\"nop\"); }\n"
	"void plain_name(void) __attribute__((alias(\"__underscored\")));\n"
	"void weak_name(void) __attribute__((weak, alias(\"__underscored\")));\n"
	"NOINLINE static void local_impl(void) { __asm__ volatile(\"nop; nop\"); }\n"
	"void global_alias(void) __attribute__((alias(\"local_impl\")));\n"
	"NOINLINE void ab(void) { __asm__ volatile(\"nop; nop; nop\"); }\n"
	"void abcdef(void) __attribute__((alias(\"ab\")));\n"
	"NOINLINE static int static_fn(int x) { return x * 3 + 1; }\n"
	"__asm__(\".text\\n.globl zs_a\\n.type zs_a,@function\\nzs_a: nop\\nnop\\n\"\n"
	"        \".globl zs_b\\n.type zs_b,@function\\nzs_b: nop\\nret\\n.size zs_b, 2\\n\");\n"
	"int main(int argc, char **argv) { volatile int v = 0; (void)argv; spin_here(&v);\n"
	"  plain_name(); global_alias(); ab(); return static_fn(argc) + v; }\n";

static void build_programs(void)
{
	char src[PATH_MAX];

	tpath(src, sizeof(src), "prog.c");
	write_file(src, prog_src);
	tpath(prog, sizeof(prog), "prog");
	tpath(prog_nopie, sizeof(prog_nopie), "prog-nopie");
	tpath(prog_nobid, sizeof(prog_nobid), "prog-nobid");
	have_cc = unit_sh("command -v objcopy >/dev/null && command -v strip >/dev/null && "
		     "command -v nm >/dev/null && "
		     "cc -O1 -g -fPIE -pie -Wl,--build-id -o '%s' '%s' 2>/dev/null && "
		     "cc -O1 -g -fno-pie -no-pie -o '%s' '%s' 2>/dev/null && "
		     "cc -O1 -g -fPIE -pie -Wl,--build-id=none -o '%s' '%s' 2>/dev/null",
		     prog, src, prog_nopie, src, prog_nobid, src) == 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		UNIT_TEST(test_elf_hot),
		UNIT_TEST(test_elf_plt),
		UNIT_TEST(test_elf_nonpie),
		UNIT_TEST(test_elf_duplicates),
		UNIT_TEST(test_elf_corrupt),
		UNIT_TEST(test_kallsyms),
		UNIT_TEST(test_kallsyms_any_order),
		UNIT_TEST(test_kallsyms_restricted),
		UNIT_TEST(test_perf_map),
		UNIT_TEST(test_demangle),
		UNIT_TEST(test_symbols_build_id),
		UNIT_TEST(test_symbols_missing),
		UNIT_TEST(test_symbols_symfs),
		UNIT_TEST(test_symbols_debug_files),
		UNIT_TEST(test_symbols_files),
		UNIT_TEST(test_symbols_vdso),
		UNIT_TEST(test_symbols_kernel),
		UNIT_TEST(test_symbols_vmlinux),
		UNIT_TEST(test_symbols_jit),
		UNIT_TEST(test_symbols_jit_owner),
		UNIT_TEST(test_symbols_buildid_cache),
		UNIT_TEST(test_symbols_symfs_kernel),
	};
	char exe[PATH_MAX];
	int ret;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/pcl-test-symbol-XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	/* The workloads are built next to the test binaries: BUILD/tests/workloads/. */
	unit_exe_dir(exe, sizeof(exe));
	snprintf(hot, sizeof(hot), "%s/workloads/hot", exe);
	build_programs();
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	unit_remove_dir(tmpdir);
	return ret;
}
