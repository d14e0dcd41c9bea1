/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of lib/symbol/srcline.c: source lines and inline chains from
 * libdw, checked against what perf itself runs, `addr2line -i -f`, and
 * against perf 6.1's own srcline strings on a recording.
 *
 * The fixture compiles a small program here (gcc -g -O2) whose statements
 * are marked with global asm labels (so nm gives their addresses) and whose
 * inner functions are always_inline (so their addresses have a chain of
 * three levels). It is also built without -g, and split into a stripped
 * file plus a debug file found by .gnu_debuglink. Then every address of the
 * program's .text, and addresses spread over this build's pcl binary (an
 * -O2 -g program with much inlining) and libc, are asked of addr2line and
 * of the module, and the records must be equal. Last, a hot program, with
 * and without -g, is recorded with perf: each sample's `perf script -F
 * +srcline` line, and the rows of `perf report --sort srcline` and
 * `--sort srcfile`, must be the module's strings.
 *
 * Files go to a temporary directory, removed at the end.
 */
#include "unit.h"

#include <ftw.h>
#include <gelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/wait.h>
#include "symbol/srcline.h"

static char tmpdir[64];
static char src[PATH_MAX];
static char prog[PATH_MAX];	     /* -g -O2, build id */
static char prog_nodebug[PATH_MAX];  /* -O2, no -g */
static char prog_stripped[PATH_MAX]; /* debug info in prog.debug, by debuglink */
static char prog_debug[PATH_MAX];
static char pcl_bin[PATH_MAX]; /* this build's pcl, next to tests/ */
static bool have_tools;

/* The line numbers are found by their markers, so the text can change freely. */
static const char prog_src[] =
	"#define AI static inline __attribute__((always_inline))\n"
	"volatile int sink;\n"
	"AI int leaf_inl(int x)\n"
	"{\n"
	"\t__asm__ volatile(\".globl mark_inner\\nmark_inner: nop\"); /* L_INNER */\n"
	"\treturn x * 3 + sink;\n"
	"}\n"
	"AI int mid_inl(int x)\n"
	"{\n"
	"\treturn leaf_inl(x) + 2; /* L_MID */\n"
	"}\n"
	"__attribute__((noinline)) int outer(int x)\n"
	"{\n"
	"\treturn mid_inl(x) + 1; /* L_OUTER */\n"
	"}\n"
	"__attribute__((noinline)) void plain(void)\n"
	"{\n"
	"\t__asm__ volatile(\".globl mark_plain\\nmark_plain: nop\"); /* L_PLAIN */\n"
	"\tsink++;\n"
	"}\n"
	"__attribute__((noinline)) static void file_local(void)\n"
	"{\n"
	"\t__asm__ volatile(\".globl mark_local\\nmark_local: nop\"); /* L_LOCAL */\n"
	"\tsink += 2;\n"
	"}\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"\t(void)argv;\n"
	"\tplain();\n"
	"\tfile_local();\n"
	"\treturn outer(argc);\n"
	"}\n";

/* The fixture needs cc, and binutils' addr2line, objcopy and nm. */
#define skip_no_tools()                                                                            \
	do {                                                                                       \
		print_message("skip: cc or binutils (addr2line, objcopy, nm) missing\n");          \
		skip();                                                                            \
	} while (0)

static unsigned int line_of(const char *marker)
{
	unsigned int line = 1;

	for (const char *p = prog_src; *p; p++) {
		if (!strncmp(p, marker, strlen(marker)))
			return line;
		if (*p == '\n')
			line++;
	}
	fail_msg("marker %s not in the source", marker);
	return 0;
}

/* @name's value as nm prints it. */
static uint64_t nm_addr(const char *path, const char *name)
{
	char cmd[PATH_MAX + 64], line[1024];
	unsigned long long v, found = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm --defined-only '%s'", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		char t, n[512];

		if (sscanf(line, "%llx %c %511s", &v, &t, n) == 3 && !strcmp(n, name))
			found = v;
	}
	pclose(p);
	assert_true(found != 0);
	return found;
}

/* The [start, end) of @path's .text, read independently with libelf. */
static void text_range(const char *path, uint64_t *start, uint64_t *end)
{
	int fd = open(path, O_RDONLY);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	Elf *e;

	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(e);
	assert_int_equal(elf_getshdrstrndx(e, &shstrndx), 0);
	*start = *end = 0;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (gelf_getshdr(scn, &sh) && (n = elf_strptr(e, shstrndx, sh.sh_name)) &&
		    !strcmp(n, ".text")) {
			*start = sh.sh_addr;
			*end = sh.sh_addr + sh.sh_size;
		}
	}
	elf_end(e);
	close(fd);
	assert_true(*end > *start);
}

/* ---- the fixture and its checks ---- */

static void test_known_line(void **state)
{
	struct srcline_dso *d;
	const struct srcline_info *info;
	char buf[PATH_MAX];

	(void)state;
	if (!have_tools)
		skip_no_tools();
	d = srcline_dso__open(prog, NULL);
	assert_non_null(d);
	assert_string_equal(srcline_dso__debug_file(d), prog);
	assert_int_equal(srcline_dso__find(d, nm_addr(prog, "mark_plain"), &info), 0);
	assert_string_equal(info->file, src);
	assert_int_equal(info->line, line_of("L_PLAIN"));
	assert_int_equal(info->nframes, 1);
	assert_string_equal(info->frames[0].func, "plain");
	/* perf's strings: basename by default, the full path with --full-source-path. */
	srcline_fileline(buf, sizeof(buf), info, false);
	assert_true(!strncmp(buf, "prog.c:", 7) && (unsigned)atoi(buf + 7) == line_of("L_PLAIN"));
	srcline_fileline(buf, sizeof(buf), info, true);
	assert_true(!strncmp(buf, src, strlen(src)));
	srcline_srcfile(buf, sizeof(buf), info, false);
	assert_string_equal(buf, "prog.c");
	srcline_srcfile(buf, sizeof(buf), info, true);
	assert_string_equal(buf, src);
	/* A found line is the same string for the sort key and script's field. */
	srcline_sort_key(buf, sizeof(buf), info, false, "plain", 4, "prog", 0x1234);
	assert_true(!strncmp(buf, "prog.c:", 7));
	srcline_script_field(buf, sizeof(buf), info, false, "prog", 0x1234);
	assert_true(!strncmp(buf, "prog.c:", 7));
	srcline_dso__close(d);
}

static void test_inline_chain(void **state)
{
	struct srcline_dso *d;
	const struct srcline_info *info;
	uint64_t hits, misses;

	(void)state;
	if (!have_tools)
		skip_no_tools();
	d = srcline_dso__open(prog, NULL);
	assert_non_null(d);
	assert_int_equal(srcline_dso__find(d, nm_addr(prog, "mark_inner"), &info), 0);
	assert_int_equal(info->line, line_of("L_INNER"));
	assert_int_equal(info->nframes, 3);
	assert_string_equal(info->frames[0].func, "leaf_inl");
	assert_int_equal(info->frames[0].line, line_of("L_INNER"));
	assert_string_equal(info->frames[1].func, "mid_inl");
	assert_string_equal(info->frames[1].file, src);
	assert_int_equal(info->frames[1].line, line_of("L_MID"));
	assert_string_equal(info->frames[2].func, "outer");
	assert_string_equal(info->frames[2].file, src);
	assert_int_equal(info->frames[2].line, line_of("L_OUTER"));
	/* The second time comes from the cache: the very same entry. */
	{
		const struct srcline_info *again;

		assert_int_equal(srcline_dso__find(d, nm_addr(prog, "mark_inner"), &again), 0);
		assert_ptr_equal(again, info);
	}
	srcline_dso__stats(d, &hits, &misses);
	assert_int_equal(hits, 1);
	assert_int_equal(misses, 1);
	srcline_dso__close(d);
}

static void test_unknown(void **state)
{
	struct srcline_dso *d;
	const struct srcline_info *info = (void *)1;
	char buf[256];

	(void)state;
	if (!have_tools)
		skip_no_tools();
	d = srcline_dso__open(prog, NULL);
	assert_non_null(d);
	/* Outside every CU: perf's unknown, twice (the second from the cache). */
	assert_int_equal(srcline_dso__find(d, 0x7fffffff0ULL, &info), -ENOENT);
	assert_null(info);
	assert_int_equal(srcline_dso__find(d, 0x7fffffff0ULL, &info), -ENOENT);
	srcline_fileline(buf, sizeof(buf), NULL, false);
	assert_string_equal(buf, "??:0");
	/* perf's get_srcline(show_sym, show_addr): SYM+OFF (decimal), else DSO[ADDR] (hex). */
	srcline_sort_key(buf, sizeof(buf), NULL, false, "main", 26, "prog", 0x1139);
	assert_string_equal(buf, "main+26");
	srcline_sort_key(buf, sizeof(buf), NULL, false, NULL, 0, "libc.so.6", 0x27d8a);
	assert_string_equal(buf, "libc.so.6[27d8a]");
	/* script passes no symbol: DSO[ADDR]. */
	assert_int_equal(srcline_script_field(buf, sizeof(buf), NULL, false, "prog", 0x1139), 10);
	assert_string_equal(buf, "prog[1139]");
	srcline_srcfile(buf, sizeof(buf), NULL, false);
	assert_string_equal(buf, "");
	srcline_dso__close(d);
}

/*
 * No DWARF: addr2line answers from the symbol table, line 0, with the
 * STT_FILE name for a local function ("prog.c:?", perf's "prog.c:0") and
 * no file for a global one ("??:?", perf's "??:0", which script omits and
 * srcfile shows as "").
 */
static void test_no_debug_info(void **state)
{
	struct srcline_dso *d;
	const struct srcline_info *info;
	char buf[256];

	(void)state;
	if (!have_tools)
		skip_no_tools();
	d = srcline_dso__open(prog_nodebug, NULL);
	assert_non_null(d);
	assert_null(srcline_dso__debug_file(d));
	assert_int_equal(srcline_dso__find(d, nm_addr(prog_nodebug, "mark_plain"), &info), 0);
	assert_null(info->file);
	assert_int_equal(info->line, 0);
	assert_int_equal(info->nframes, 1);
	assert_string_equal(info->frames[0].func, "plain");
	srcline_sort_key(buf, sizeof(buf), info, false, "plain", 4, "prog-nodebug", 0x1234);
	assert_string_equal(buf, "??:0");
	assert_int_equal(srcline_script_field(buf, sizeof(buf), info, false, "prog", 0x1234), 0);
	assert_string_equal(buf, "");
	srcline_srcfile(buf, sizeof(buf), info, false);
	assert_string_equal(buf, "");
	assert_int_equal(srcline_dso__find(d, nm_addr(prog_nodebug, "mark_local"), &info), 0);
	assert_string_equal(info->file, "prog.c");
	assert_string_equal(info->frames[0].func, "file_local");
	srcline_sort_key(buf, sizeof(buf), info, false, "file_local", 4, "prog-nodebug", 0x1234);
	assert_string_equal(buf, "prog.c:0");
	srcline_srcfile(buf, sizeof(buf), info, false);
	assert_string_equal(buf, "prog.c");
	/* Outside every section: unknown. */
	assert_int_equal(srcline_dso__find(d, 0x7fffffff0ULL, &info), -ENOENT);
	srcline_dso__close(d);
	/* Not an ELF file, and no file at all: NULL with errno and a message. */
	assert_null(srcline_dso__open(src, NULL));
	assert_int_equal(errno, EBADMSG);
	assert_null(srcline_dso__open("/nonexistent/pcl-srcline", NULL));
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(pcl_last_error(), "/nonexistent/pcl-srcline"));
	srcline_dso__close(NULL);
}

static void test_debuglink(void **state)
{
	struct srcline_dso *d;
	const struct srcline_info *info;

	(void)state;
	if (!have_tools)
		skip_no_tools();
	/* Found beside the stripped file by its .gnu_debuglink. */
	d = srcline_dso__open(prog_stripped, NULL);
	assert_non_null(d);
	assert_string_equal(srcline_dso__debug_file(d), prog_debug);
	assert_int_equal(srcline_dso__find(d, nm_addr(prog, "mark_inner"), &info), 0);
	assert_int_equal(info->nframes, 3);
	assert_int_equal(info->frames[2].line, line_of("L_OUTER"));
	srcline_dso__close(d);
	/* Given by the caller. */
	d = srcline_dso__open(prog_nodebug, prog_debug);
	assert_non_null(d);
	assert_string_equal(srcline_dso__debug_file(d), prog_debug);
	srcline_dso__close(d);
}

/* ---- against addr2line ---- */

/* One addr2line record (or ours), normalized: "FUNC\nFILE:LINE\n" each. */
static void our_records(struct srcline_dso *d, uint64_t addr, char *out, size_t size)
{
	const struct srcline_info *info;
	size_t n = 0;

	out[0] = '\0';
	if (srcline_dso__find(d, addr, &info)) {
		snprintf(out, size, "??\n??:0\n");
		return;
	}
	for (int k = 0; k < info->nframes && n < size; k++) {
		const struct srcline_frame *f = &info->frames[k];

		n += (size_t)snprintf(out + n, size - n, "%s\n%s:%u\n", f->func ? f->func : "??",
				      f->file ? f->file : "??", f->line);
	}
}

/* addr2line's location line as perf reads it: no discriminator, '?' is 0. */
static void normalize(char *line)
{
	char *p = strstr(line, " (discriminator");

	if (p)
		*p = '\0';
	p = strrchr(line, ':');
	if (p && !strcmp(p, ":?"))
		strcpy(p, ":0");
}

/*
 * Ask addr2line -a -i -f about @n addresses (one process), and compare each
 * answer with ours, asked in the same order. Returns the number that
 * differ (the first few printed; SRCLINE_SHOW=1: all of them).
 */
static int compare_addr2line(const char *path, const uint64_t *addrs, size_t n)
{
	char list[PATH_MAX], cmd[2 * PATH_MAX], line[4096];
	static char want[1 << 16], got[1 << 16];
	struct srcline_dso *d = srcline_dso__open(path, NULL);
	size_t i = 0, wn = 0, nl = 0;
	int bad = 0;
	bool open_rec = false;
	FILE *f, *p;

	assert_non_null(d);
	snprintf(list, sizeof(list), "%s/addrs", tmpdir);
	f = fopen(list, "w");
	assert_non_null(f);
	for (size_t k = 0; k < n; k++)
		fprintf(f, "%#llx\n", (unsigned long long)addrs[k]);
	fclose(f);
	/* As perf runs it: on the debug file when there is one (its symsrc_filename). */
	snprintf(cmd, sizeof(cmd), "addr2line -e '%s' -a -i -f < '%s'",
		 srcline_dso__debug_file(d) ? srcline_dso__debug_file(d) : path, list);
	p = popen(cmd, "r");
	assert_non_null(p);
	for (;;) {
		bool eof = !fgets(line, sizeof(line), p);

		if (eof || !strncmp(line, "0x", 2)) {
			if (open_rec) {
				our_records(d, addrs[i], got, sizeof(got));
				if (strcmp(want, got) && (bad++ < 5 || getenv("SRCLINE_SHOW")))
					print_message("%s %#llx:\naddr2line:\n%spcl:\n%s", path,
						      (unsigned long long)addrs[i], want, got);
				i++;
			}
			if (eof)
				break;
			open_rec = true;
			wn = 0;
			nl = 0;
			want[0] = '\0';
			continue;
		}
		line[strcspn(line, "\n")] = '\0';
		/* Each record is pairs of lines: the function, then the location. */
		if (nl++ % 2)
			normalize(line);
		wn += (size_t)snprintf(want + wn, sizeof(want) - wn, "%s\n", line);
	}
	pclose(p);
	assert_int_equal(i, n);
	srcline_dso__close(d);
	return bad;
}

static void test_addr2line_fixture(void **state)
{
	uint64_t start, end, *addrs;
	size_t n = 0;

	(void)state;
	if (!have_tools)
		skip_no_tools();
	text_range(prog, &start, &end);
	addrs = calloc(end - start, sizeof(*addrs));
	assert_non_null(addrs);
	for (uint64_t a = start; a < end; a++)
		addrs[n++] = a;
	assert_int_equal(compare_addr2line(prog, addrs, n), 0);
	free(addrs);
}

/* @want addresses spread over @path's .text, compared with addr2line. */
static void compare_spread(const char *path, size_t want)
{
	uint64_t start, end, step, *addrs;
	size_t n = 0;

	text_range(path, &start, &end);
	step = (end - start) / want + 1;
	addrs = calloc(want + 1, sizeof(*addrs));
	assert_non_null(addrs);
	/* An odd step lands in the middle of instructions as well as on them. */
	for (uint64_t a = start; a < end && n <= want; a += step | 1)
		addrs[n++] = a;
	assert_int_equal(compare_addr2line(path, addrs, n), 0);
	free(addrs);
}

/* This build's pcl: -O2 -g, inlining everywhere, libgcc without DWARF. */
static void test_addr2line_pcl(void **state)
{
	(void)state;
	if (!have_tools)
		skip_no_tools();
	if (access(pcl_bin, R_OK)) {
		print_message("skip: %s not built\n", pcl_bin);
		skip();
	}
	compare_spread(pcl_bin, 5000);
	/* By hand, not in make check: SRCLINE_EXTRA="FILE..." compares more files. */
	if (getenv("SRCLINE_EXTRA")) {
		char *list = strdup(getenv("SRCLINE_EXTRA")), *save = NULL;

		assert_non_null(list);
		for (char *f = strtok_r(list, " ", &save); f; f = strtok_r(NULL, " ", &save))
			compare_spread(f, 5000);
		free(list);
	}
}

/*
 * libc through its separate debug file, found by build id (Debian's
 * libc6-dbg; dwz-compressed DWARF 5), when this machine has it: 20000
 * addresses, exactly as addr2line answers them, including its two quirks
 * (docs/srcline.md): rows with the default file number 1, and addresses in
 * padding that only the line table sequences of CUs already read cover.
 */
static void test_addr2line_libc(void **state)
{
	const char *libc = "/usr/lib/x86_64-linux-gnu/libc.so.6";
	struct srcline_dso *d;
	bool separate;

	(void)state;
	if (!have_tools)
		skip_no_tools();
	if (access(libc, R_OK)) {
		print_message("skip: no %s\n", libc);
		skip();
	}
	d = srcline_dso__open(libc, NULL);
	assert_non_null(d);
	separate = srcline_dso__debug_file(d) && strcmp(srcline_dso__debug_file(d), libc);
	srcline_dso__close(d);
	if (!separate) {
		print_message("skip: no debug file for %s (libc6-dbg)\n", libc);
		skip();
	}
	compare_spread(libc, 20000);
}

/* ---- against perf itself ---- */

/* A program that spins in an inlined loop, a global and a static function. */
static const char hot_src[] = "#define AI static inline __attribute__((always_inline))\n"
			      "volatile long sink;\n"
			      "AI long leaf(long x)\n"
			      "{\n"
			      "\tfor (long i = 0; i < 40000000; i++)\n"
			      "\t\tsink += x * i;\n"
			      "\treturn sink;\n"
			      "}\n"
			      "__attribute__((noinline)) long outer(long x)\n"
			      "{\n"
			      "\treturn leaf(x) + 1;\n"
			      "}\n"
			      "__attribute__((noinline)) static long loc(long x)\n"
			      "{\n"
			      "\tfor (long i = 0; i < 40000000; i++)\n"
			      "\t\tsink ^= i + x;\n"
			      "\treturn sink;\n"
			      "}\n"
			      "int main(int argc, char **argv)\n"
			      "{\n"
			      "\t(void)argv;\n"
			      "\tsink = outer(argc) + loc(argc);\n"
			      "\treturn 0;\n"
			      "}\n";

/*
 * The KEY column of `perf report @opts --sort dso,KEY` for @bin's rows, one
 * per line, sorted and unique. (With --sort KEY --dsos BIN alone, perf 6.1
 * leaves out the srcfile row whose key is empty.)
 */
static void perf_rows(const char *data, const char *bin, const char *opts, const char *key,
		      char *out, size_t size)
{
	char cmd[4 * PATH_MAX];
	const char *base = strrchr(bin, '/') + 1;
	FILE *p;
	size_t n;

	snprintf(cmd, sizeof(cmd),
		 "perf report -i '%s' --comm '%s' %s --stdio --sort dso,%s 2>/dev/null | "
		 "grep -v '^#' | grep '%%' | sed 's/^ *[0-9.]*%%  //' | grep '^%s ' | "
		 "sed 's/^%s *//; s/ *$//' | sort -u",
		 data, base, opts, key, base, base);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(out, 1, size - 1, p);
	out[n] = '\0';
	pclose(p);
}

/* Add @str to the sorted, unique, newline-separated set in @set. */
static void set_add(char *set, size_t size, const char *str)
{
	char line[PATH_MAX + 2], *p = set, *ins = NULL;
	size_t len;

	snprintf(line, sizeof(line), "%s\n", str);
	len = strlen(line);
	while (*p) {
		char *eol = strchr(p, '\n');
		size_t l = (size_t)(eol - p) + 1;
		int c = strncmp(p, line, l < len ? l : len);

		if (c == 0 && l == len)
			return;
		if (c > 0 || (c == 0 && l > len)) {
			ins = p;
			break;
		}
		p = eol + 1;
	}
	if (!ins)
		ins = p;
	if (strlen(set) + len + 1 > size)
		return;
	memmove(ins + len, ins, strlen(ins) + 1);
	memcpy(ins, line, len);
}

/*
 * Record @bin (-no-pie: a sample's ip is the ELF address) with perf, then
 * compare, for each of its samples, perf script's srcline line with
 * srcline_script_field(), and the rows of perf report --sort srcline and
 * --sort srcfile with the keys of those samples.
 */
static void compare_perf(const char *bin)
{
	char data[PATH_MAX], cmd[4 * PATH_MAX], line[PATH_MAX];
	static char rows[1 << 14], keys[1 << 14], files[1 << 14], full[1 << 14];
	const char *base = strrchr(bin, '/') + 1;
	struct srcline_dso *d = srcline_dso__open(bin, NULL);
	unsigned long long ip = 0;
	int samples = 0, bad = 0;
	bool have = false;
	FILE *p;

	assert_non_null(d);
	snprintf(data, sizeof(data), "%s.data", bin);
	if (unit_sh("perf record -q -e cpu-clock -o '%s' '%s' >/dev/null 2>&1", data, bin)) {
		print_message("skip: perf record -e cpu-clock failed on %s\n", bin);
		srcline_dso__close(d);
		skip();
	}
	keys[0] = files[0] = full[0] = '\0';
	snprintf(cmd, sizeof(cmd), "perf script -i '%s' --comm '%s' -F ip,dso,srcline 2>/dev/null",
		 data, base);
	p = popen(cmd, "r");
	assert_non_null(p);
	/* A sample line "  IP (DSO)", then perf's "  SRCLINE" line unless it prints none. */
	for (;;) {
		bool eof = !fgets(line, sizeof(line), p);
		unsigned long long next;
		char dso[PATH_MAX];
		bool sample = !eof && sscanf(line, " %llx (%[^)])", &next, dso) == 2;

		if (have) {
			const struct srcline_info *info = NULL;
			char want[PATH_MAX], got[PATH_MAX];

			want[0] = '\0';
			if (!eof && !sample)
				sscanf(line, " %[^\n]", want);
			srcline_dso__find(d, ip, &info); /* info NULL: not found */
			srcline_script_field(got, sizeof(got), info, false, base, ip);
			if (strcmp(want, got) && bad++ < 5)
				print_message("%s %#llx: perf script '%s', pcl '%s'\n", bin, ip,
					      want, got);
			srcline_sort_key(got, sizeof(got), info, false, "?", 0, base, ip);
			set_add(keys, sizeof(keys), got);
			srcline_srcfile(got, sizeof(got), info, false);
			set_add(files, sizeof(files), got);
			srcline_sort_key(got, sizeof(got), info, true, "?", 0, base, ip);
			set_add(full, sizeof(full), got);
			samples++;
			have = false;
		}
		if (eof)
			break;
		if (sample) {
			have = !strcmp(dso, bin);
			ip = next;
		}
	}
	pclose(p);
	print_message("%s: %d samples compared with perf script\n", bin, samples);
	assert_true(samples > 10);
	assert_int_equal(bad, 0);
	perf_rows(data, bin, "", "srcline", rows, sizeof(rows));
	assert_string_equal(rows, keys);
	perf_rows(data, bin, "", "srcfile", rows, sizeof(rows));
	assert_string_equal(rows, files);
	perf_rows(data, bin, "--full-source-path", "srcline", rows, sizeof(rows));
	assert_string_equal(rows, full);
	srcline_dso__close(d);
}

static void test_perf(void **state)
{
	char hot_c[PATH_MAX], hot_g[PATH_MAX], hot_n[PATH_MAX];
	FILE *f;

	(void)state;
	if (!have_tools || unit_sh("command -v perf >/dev/null")) {
		print_message("skip: no perf, or no cc/binutils\n");
		skip();
	}
	snprintf(hot_c, sizeof(hot_c), "%s/hot.c", tmpdir);
	snprintf(hot_g, sizeof(hot_g), "%s/hotg", tmpdir);
	snprintf(hot_n, sizeof(hot_n), "%s/hotn", tmpdir);
	f = fopen(hot_c, "w");
	assert_non_null(f);
	fputs(hot_src, f);
	fclose(f);
	assert_int_equal(unit_sh("cc -g -O2 -fno-pie -no-pie -o '%s' '%s' && "
			    "cc -O2 -fno-pie -no-pie -o '%s' '%s'",
			    hot_g, hot_c, hot_n, hot_c),
			 0);
	compare_perf(hot_g); /* lines, inside the inlined loop too */
	compare_perf(hot_n); /* no DWARF: "hot.c:0", and "??:0" that script omits */
}

static void build_programs(void)
{
	snprintf(src, sizeof(src), "%s/prog.c", tmpdir);
	snprintf(prog, sizeof(prog), "%s/prog", tmpdir);
	snprintf(prog_nodebug, sizeof(prog_nodebug), "%s/prog-nodebug", tmpdir);
	snprintf(prog_stripped, sizeof(prog_stripped), "%s/prog-stripped", tmpdir);
	snprintf(prog_debug, sizeof(prog_debug), "%s/prog.debug", tmpdir);
	{
		FILE *f = fopen(src, "w");

		if (!f)
			return;
		fputs(prog_src, f);
		fclose(f);
	}
	have_tools = unit_sh("command -v addr2line >/dev/null && command -v objcopy >/dev/null && "
			"command -v nm >/dev/null && "
			"cc -g -O2 -Wl,--build-id -o '%s' '%s' && "
			"cc -O2 -Wl,--build-id -o '%s' '%s' && "
			"objcopy --only-keep-debug '%s' '%s' && "
			"objcopy --strip-debug --add-gnu-debuglink='%s' '%s' '%s'",
			prog, src, prog_nodebug, src, prog, prog_debug, prog_debug, prog,
			prog_stripped) == 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		UNIT_TEST(test_known_line),    UNIT_TEST(test_inline_chain),
		UNIT_TEST(test_unknown),       UNIT_TEST(test_no_debug_info),
		UNIT_TEST(test_debuglink),     UNIT_TEST(test_addr2line_fixture),
		UNIT_TEST(test_addr2line_pcl), UNIT_TEST(test_addr2line_libc),
		UNIT_TEST(test_perf),
	};
	char exe[PATH_MAX];
	int ret;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/pcl-test-srcline-XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	/* The test binaries are in BUILD/tests/, pcl in BUILD/. */
	unit_exe_dir(exe, sizeof(exe));
	snprintf(pcl_bin, sizeof(pcl_bin), "%s/../pcl", exe);
	build_programs();
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	unit_remove_dir(tmpdir);
	return ret;
}
