/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of annotate: lib/symbol/disasm.c (capstone's decoding printed
 * as objdump prints it) and lib/output/annotate.c (samples per function and
 * per instruction, the order functions are shown in, percent types).
 *
 * The disassembly is checked two ways: a table of encodings, each with the
 * text objdump 2.40 prints for it (every rewrite disasm.c does has a row),
 * and a differential run over this build's pcl binary, whose .text is
 * disassembled by both objdump and disasm_code: the lines must agree but
 * for a small, printed share (capstone 4 lacks some AVX-512 encodings).
 */
#include "unit.h"

#include <gelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include "symbol/disasm.h"

struct row {
	const char *hex; /* the encoding */
	const char *text;
};

/* objdump -d --no-show-raw-insn of each encoding, at address 0, in a function "f" */
static const struct row rows[] = {
	{ "ba00000000", "mov    $0x0,%edx" },
	{ "488b05932e0000", "mov    0x2e93(%rip),%rax        # 2e9a <f+0x2e9a>" },
	{ "48c1e803", "shr    $0x3,%rax" },
	{ "4831d0", "xor    %rdx,%rax" },
	{ "75eb", "jne    ffffffffffffffed <f+0xffffffffffffffed>" },
	{ "c3", "ret" },
	{ "e8e5ffffff", "call   ffffffffffffffea <f+0xffffffffffffffea>" },
	{ "55", "push   %rbp" },
	{ "5d", "pop    %rbp" },
	{ "0f1f0400", "nopl   (%rax,%rax,1)" },
	{ "66662e0f1f840000000000", "data16 cs nopw 0x0(%rax,%rax,1)" },
	{ "6690", "xchg   %ax,%ax" },
	{ "48d1ea", "shr    %rdx" },
	{ "66480f6ec3", "movq   %rbx,%xmm0" },
	{ "f348ab", "rep stos %rax,%es:(%rdi)" },
	{ "488d50ff", "lea    -0x1(%rax),%rdx" },
	{ "c70000000000", "movl   $0x0,(%rax)" },
	{ "4883e0fc", "and    $0xfffffffffffffffc,%rax" },
	{ "ffe0", "jmp    *%rax" },
	{ "ff5010", "call   *0x10(%rax)" },
	{ "0fb607", "movzbl (%rdi),%eax" },
	{ "4898", "cltq" },
	{ "64488b042528000000", "mov    %fs:0x28,%rax" },
	{ "49896d00", "mov    %rbp,0x0(%r13)" },
	{ "488d449500", "lea    0x0(%rbp,%rdx,4),%rax" },
	{ "803800", "cmpb   $0x0,(%rax)" },
	{ "48b89a78563412000000", "movabs $0x123456789a,%rax" },
	{ "4883ec80", "sub    $0xffffffffffffff80,%rsp" },
	{ "f20f2ac0", "cvtsi2sd %eax,%xmm0" },
	{ "4883442408"
	  "01",
	  "addq   $0x1,0x8(%rsp)" },
	{ "c9", "leave" },
	{ "3effe0", "notrack jmp *%rax" },
	{ "66666664488b042500000000", "data16 data16 data16 mov %fs:0x0,%rax" },
	{ "f348a5", "rep movsq %ds:(%rsi),%es:(%rdi)" },
	{ "dee1", "fsubp  %st,%st(1)" },
	{ "dcc1", "fadd   %st,%st(1)" },
	{ "d8c0", "fadd   %st(0),%st" },
	{ "dbe9", "fucomi %st(1),%st" },
	{ "dfe9", "fucomip %st(1),%st" },
	{ "d9c9", "fxch   %st(1)" },
	{ "ddd9", "fstp   %st(1)" },
	{ "d8d1", "fcom   %st(1)" },
};

static const char *name_f(void *ctx, uint64_t vaddr, uint64_t *off)
{
	(void)ctx;
	*off = vaddr;
	return "f";
}

static size_t unhex(const char *hex, uint8_t *out)
{
	size_t n = 0;

	for (; hex[0] && hex[1]; hex += 2)
		sscanf(hex, "%2hhx", &out[n++]);
	return n;
}

static void test_objdump_text(void **state)
{
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		uint8_t code[32];
		size_t n = unhex(rows[i].hex, code);
		struct disasm_func f;

		assert_int_equal(disasm_code(code, n, 0, name_f, NULL, &f), 0);
		if (f.n != 1 || f.insn[0].size != n || strcmp(f.insn[0].text, rows[i].text)) {
			print_error("%s: got '%s' (%zu insns), want '%s'\n", rows[i].hex,
				    f.n ? f.insn[0].text : "", f.n, rows[i].text);
			bad++;
		}
		disasm_func_free(&f);
	}
	assert_int_equal(bad, 0);
}

static void test_jump_fields(void **state)
{
	/* jne back to 0, call to 0, jmp *%rax: direct targets only */
	static const uint8_t code[] = { 0x48, 0x31, 0xd0, 0x75, 0xfb, 0xe8, 0xf6, 0xff,
					0xff, 0xff, 0xff, 0xe0, 0x0f, 0x0b, 0xff };
	struct disasm_func f;

	(void)state;
	assert_int_equal(disasm_code(code, sizeof(code), 0x1000, NULL, NULL, &f), 0);
	assert_int_equal(f.n, 6);
	assert_true(f.insn[1].jump && !f.insn[1].call);
	assert_int_equal(f.insn[1].target, 0x1000);
	assert_string_equal(f.insn[1].text, "jne    1000");
	assert_true(f.insn[2].call && !f.insn[2].jump);
	assert_int_equal(f.insn[2].target, 0x1000);
	assert_false(f.insn[3].jump || f.insn[3].call);
	assert_string_equal(f.insn[4].text, "ud2");
	/* a byte that starts no instruction: objdump's "(bad)", and on */
	assert_string_equal(f.insn[5].text, "(bad)");
	assert_int_equal(f.insn[5].addr, 0x100e);
	disasm_func_free(&f);
}

/* ---- differential: objdump and disasm_code over a real .text ---- */

static int text_section(const char *path, uint8_t **code, size_t *len, uint64_t *addr)
{
	int fd = open(path, O_RDONLY), ret = -1;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	Elf *e;

	elf_version(EV_CURRENT);
	if (fd < 0 || !(e = elf_begin(fd, ELF_C_READ, NULL)))
		return -1;
	elf_getshdrstrndx(e, &shstrndx);
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || strcmp(elf_strptr(e, shstrndx, sh.sh_name), ".text"))
			continue;
		if (!(d = elf_getdata(scn, NULL)) || !(*code = malloc(d->d_size)))
			break;
		memcpy(*code, d->d_buf, d->d_size);
		*len = d->d_size;
		*addr = sh.sh_addr;
		ret = 0;
		break;
	}
	elf_end(e);
	close(fd);
	return ret;
}

/* objdump's text of one line, without what depends on symbol names: "<...>" and "# ..." */
static void strip_names(char *s)
{
	char *p;

	if ((p = strstr(s, "        #")))
		*p = 0;
	if ((p = strstr(s, " <")))
		*p = 0;
	for (p = s + strlen(s); p > s && (p[-1] == ' ' || p[-1] == '\n');)
		*--p = 0;
}

static void test_against_objdump(void **state)
{
	char exe[PATH_MAX], path[PATH_MAX + 16], cmd[PATH_MAX + 128], line[512];
	size_t len = 0, j = 0, same = 0, compared = 0;
	uint8_t *code = NULL;
	struct disasm_func f;
	uint64_t addr = 0;
	FILE *p;

	(void)state;
	unit_exe_dir(exe, sizeof(exe));
	snprintf(path, sizeof(path), "%s/../pcl", exe);
	if (access(path, R_OK) || system("objdump --version >/dev/null 2>&1")) {
		print_message("skip: no %s or no objdump\n", path);
		skip();
	}
	assert_int_equal(text_section(path, &code, &len, &addr), 0);
	assert_int_equal(disasm_code(code, len, addr, NULL, NULL, &f), 0);
	snprintf(cmd, sizeof(cmd), "objdump -d --no-show-raw-insn -j .text %s", path);
	assert_non_null(p = popen(cmd, "r"));
	while (fgets(line, sizeof(line), p)) {
		unsigned long long a;
		int n = 0;
		char *text;

		if (sscanf(line, " %llx:%n", &a, &n) != 1 || !n || line[n] != '\t')
			continue;
		text = line + n + 1;
		strip_names(text);
		while (j < f.n && f.insn[j].addr < a)
			j++;
		if (j == f.n)
			break;
		compared++;
		if (f.insn[j].addr == a) {
			char mine[sizeof(f.insn[j].text)];

			snprintf(mine, sizeof(mine), "%s", f.insn[j].text);
			strip_names(mine);
			same += !strcmp(mine, text);
		}
	}
	pclose(p);
	print_message("%zu of %zu instructions of pcl's .text printed as objdump prints them\n",
		      same, compared);
	assert_true(compared > 10000);
	assert_true(same * 1000 >= compared * 995);
	disasm_func_free(&f);
	free(code);
}

/* ---- the per-function histogram ---- */

static void test_histogram(void **state)
{
	struct pcl_dso dso = { .name = "/bin/x", .short_name = "x" };
	struct pcl_map map = { .start = 0x1000, .end = 0x9000, .dso = &dso };
	struct pcl_symbol a = { 0x100, 0x200, "a" }, b = { 0x200, 0x300, "b" };
	struct pcl_frame fa = { .map = &map, .sym = &a, .addr = 0x104 };
	struct pcl_frame fb = { .map = &map, .sym = &b, .addr = 0x210 };
	struct pcl_frame none = { 0 };
	struct pcl_annotate *an = pcl_annotate__new();
	enum pcl_percent_type t;
	uint64_t period, n;

	(void)state;
	assert_non_null(an);
	for (int i = 0; i < 3; i++)
		assert_int_equal(pcl_annotate__add(an, 0, &fa, 10), 0);
	assert_int_equal(pcl_annotate__add(an, 0, &fb, 100), 0);
	assert_int_equal(pcl_annotate__add(an, 0, &none, 7), 0);
	assert_int_equal(pcl_annotate__add(an, 1, &fa, 1), 0);
	pcl_annotate__finish(an);
	assert_int_equal(pcl_annotate__nr_syms(an), 3);
	/* by event, then period: b (100) before a (30, three samples) */
	assert_ptr_equal(pcl_annotate__sym(an, 0)->sym, &b);
	assert_ptr_equal(pcl_annotate__sym(an, 1)->sym, &a);
	assert_int_equal(pcl_annotate__sym(an, 1)->nr_samples, 3);
	assert_int_equal(pcl_annotate__sym(an, 1)->period, 30);
	assert_int_equal(pcl_annotate__sym(an, 2)->event, 1);
	assert_null(pcl_annotate__sym(an, 3));
	pcl_annotate__event_totals(an, 0, &period, &n);
	assert_int_equal(period, 137);
	assert_int_equal(n, 5);
	/* no file holds /bin/x's code: a clear error, not an empty listing */
	{
		struct pcl_symbols *s = pcl_symbols__new(NULL);
		struct pcl_annotate_listing l;

		assert_non_null(s);
		assert_true(pcl_annotate__lines(an, 0, s, NULL, &l) < 0);
		assert_int_equal(l.nr_lines, 0);
		pcl_symbols__free(s);
		/* what the symbol layer left on the DSO, freed with a machine's DSOs */
		if (dso.sym_free)
			dso.sym_free(dso.sym_priv);
		free(dso.sym_note);
	}
	pcl_annotate__free(an);
	assert_int_equal(pcl_percent_type_parse("global-hits", &t), 0);
	assert_int_equal(t, PCL_PERCENT_GLOBAL_HITS);
	assert_string_equal(pcl_percent_type_name(t), "global hits");
	assert_int_equal(pcl_percent_type_parse("local", &t), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		UNIT_TEST(test_objdump_text),
		UNIT_TEST(test_jump_fields),
		UNIT_TEST(test_against_objdump),
		UNIT_TEST(test_histogram),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
