/* SPDX-License-Identifier: MIT */
/*
 * Disassembly for annotate: capstone decodes, and each instruction is
 * printed the way objdump prints it, because that is the text perf
 * annotate shows and the text its users read.
 *
 * capstone's AT&T printer differs from objdump's in a few systematic ways,
 * corrected here from capstone's operand details rather than by editing
 * its text:
 * - the size suffix (movq, retq, callq): objdump leaves it out when a
 *   register operand of that size already says it, and on branches,
 *   push and pop; it keeps it where only memory and immediates are
 *   (movl $0x0,(%rax), nopl);
 * - immediates: objdump prints every one in hex, as an unsigned number of
 *   the operand's size ($0x0, $0xfffffffffffffffc), capstone small ones in
 *   decimal ($0, $-4);
 * - memory: objdump shows an encoded zero displacement (0x0(%rax,%rax,1))
 *   and always a scale when there is an index; capstone drops both;
 * - ", " between operands is "," in objdump;
 * - branch targets are "ADDR <sym+0xoff>", and a rip-relative operand gets
 *   objdump's "        # ADDR <sym>" comment.
 * Whatever else differs is listed in docs/annotate.md.
 */
#include <capstone/capstone.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"
#include "symbol/disasm.h"
#include "symbol/files.h"

/* A symbol's code beyond this is not read: no function is this large. */
#define MAX_FUNC_BYTES (64u << 20)

struct text {
	char *p;
	size_t size, len;
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->len >= t->size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(t->p + t->len, t->size - t->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		t->len = t->len + (size_t)n < t->size ? t->len + (size_t)n : t->size - 1;
}

static bool in_group(const cs_insn *in, uint8_t g)
{
	for (int i = 0; i < in->detail->groups_count; i++)
		if (in->detail->groups[i] == g)
			return true;
	return false;
}

static bool is_branch(const cs_insn *in)
{
	return in_group(in, CS_GRP_JUMP) || in_group(in, CS_GRP_CALL) || in_group(in, CS_GRP_RET);
}

static int suffix_size(char c)
{
	switch (c) {
	case 'b':
		return 1;
	case 'w':
		return 2;
	case 'l':
		return 4;
	case 'q':
		return 8;
	}
	return 0;
}

/* The mnemonic as objdump writes it into @t: capstone's, less a size suffix objdump leaves out. */
static void put_mnemonic(struct text *t, csh h, const cs_insn *in)
{
	const char *m = in->mnemonic, *word = strrchr(m, ' ');
	const char *name = cs_insn_name(h, in->id);
	const cs_x86 *x = &in->detail->x86;
	size_t wl, nl = name ? strlen(name) : 0;
	bool strip = false;
	int sz;

	word = word ? word + 1 : m;
	wl = strlen(word);
	if (name && wl == nl + 1 && !strncmp(word, name, nl) && (sz = suffix_size(word[nl]))) {
		strip = x->op_count == 0 || is_branch(in) || !strcmp(name, "push") ||
			!strcmp(name, "pop");
		for (int i = 0; i < x->op_count && !strip; i++)
			strip = x->operands[i].type == X86_OP_REG && x->operands[i].size == sz;
	}
	/* movd with a 64-bit register is objdump's movq */
	if (!strcmp(word, "movd"))
		for (int i = 0; i < x->op_count; i++)
			if (x->operands[i].type == X86_OP_REG && x->operands[i].size == 8 &&
			    strncmp(cs_reg_name(h, x->operands[i].reg), "xmm", 3) &&
			    strncmp(cs_reg_name(h, x->operands[i].reg), "mm", 2)) {
				put(t, "%.*smovq", (int)(word - m), m);
				return;
			}
	put(t, "%.*s", (int)(strip ? strlen(m) - 1 : strlen(m)), m);
}

static void put_name(struct text *t, disasm_name_fn name, void *ctx, uint64_t addr)
{
	uint64_t off = 0;
	const char *n = name ? name(ctx, addr, &off) : NULL;

	if (!n)
		return;
	if (off)
		put(t, " <%s+0x%" PRIx64 ">", n, off);
	else
		put(t, " <%s>", n);
}

/* movs, cmps, lods, stos, scas (any size), with or without rep */
static bool string_op(const cs_insn *in)
{
	static const char *const ops[] = { "movs", "cmps", "lods", "stos", "scas" };
	const char *w = strrchr(in->mnemonic, ' ');

	w = w ? w + 1 : in->mnemonic;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strncmp(w, ops[i], 4) && strlen(w) == 5 && suffix_size(w[4]))
			return true;
	return false;
}

/* Whether the memory operand's displacement is in the encoding (ModRM/SIB say so). */
static bool disp_encoded(const cs_x86 *x)
{
	unsigned int mod = x->modrm >> 6, rm = x->modrm & 7;

	if (mod == 1 || mod == 2)
		return true;
	if (mod == 0 && rm == 5)
		return true;
	return mod == 0 && rm == 4 && (x->sib & 7) == 5;
}

static void put_disp(struct text *t, int64_t d)
{
	if (d < 0)
		put(t, "-0x%" PRIx64, -(uint64_t)d);
	else
		put(t, "0x%" PRIx64, (uint64_t)d);
}

static void put_mem(struct text *t, csh h, const cs_insn *in, const cs_x86_op *op, bool *riprel)
{
	const x86_op_mem *m = &op->mem;

	if (m->segment != X86_REG_INVALID)
		put(t, "%%%s:", cs_reg_name(h, m->segment));
	else if (string_op(in) && m->base == X86_REG_RSI)
		put(t, "%%ds:"); /* objdump names the string operands' segments */
	else if (string_op(in) && m->base == X86_REG_RDI)
		put(t, "%%es:");
	if (m->base == X86_REG_INVALID && m->index == X86_REG_INVALID) {
		put(t, "0x%" PRIx64, (uint64_t)m->disp);
		return;
	}
	if (m->disp || disp_encoded(&in->detail->x86))
		put_disp(t, m->disp);
	put(t, "(");
	if (m->base != X86_REG_INVALID)
		put(t, "%%%s", cs_reg_name(h, m->base));
	if (m->index != X86_REG_INVALID)
		put(t, ",%%%s,%d", cs_reg_name(h, m->index), m->scale);
	put(t, ")");
	*riprel = m->base == X86_REG_RIP;
}

static uint64_t imm_value(const cs_x86_op *op)
{
	uint64_t v = (uint64_t)op->imm;

	if (op->size > 0 && op->size < 8)
		v &= (1ull << (op->size * 8)) - 1;
	return v;
}

/*
 * The encodings objdump names its own way: padding (66 90 is
 * "xchg %ax,%ax"; a nopw with a %cs override and extra 66 prefixes is
 * "data16 cs nopw 0x0(...)"), and rep stos with its implicit operands.
 * true when @t took the whole text.
 */
static bool objdump_special(struct text *t, csh h, const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;
	const char *name = cs_insn_name(h, in->id);
	int extra66 = -1;
	bool riprel = false;

	if (in->size == 2 && in->bytes[0] == 0x66 && in->bytes[1] == 0x90) {
		put(t, "xchg   %%ax,%%ax");
		return true;
	}
	if (name && !strcmp(name, "nop") && x->op_count == 1 && x->operands[0].type == X86_OP_MEM &&
	    x->operands[0].mem.segment == X86_REG_CS) {
		cs_x86_op op = x->operands[0];

		for (int i = 0; i < in->size && (in->bytes[i] == 0x66 || in->bytes[i] == 0x2e); i++)
			extra66 += in->bytes[i] == 0x66;
		for (int i = 0; i < extra66; i++)
			put(t, "data16 ");
		put(t, "cs %s ", in->mnemonic);
		op.mem.segment = X86_REG_INVALID;
		put_mem(t, h, in, &op, &riprel);
		return true;
	}
	if (!strncmp(in->mnemonic, "rep stos", 8) && strlen(in->mnemonic) == 9) {
		static const char *const reg[] = {
			['b'] = "al", ['w'] = "ax", ['l'] = "eax", ['q'] = "rax"
		};
		char c = in->mnemonic[8];

		if (suffix_size(c)) {
			put(t, "rep stos %%%s,%%es:(%%rdi)", reg[(unsigned char)c]);
			return true;
		}
	}
	return false;
}

/*
 * x87 register forms where objdump shows the implicit %st that capstone
 * leaves out: 0 none, 1 "%st(i),%st", 2 "%st,%st(i)". D8: the arithmetic
 * (not fcom/fcomp, reg 2 and 3) into %st; DC and DE: into %st(i); DA and DB
 * C0-DF: fcmov; DB and DF E8-F7: fucomi, fcomi and their pops.
 */
static int x87_implicit(const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;
	unsigned int op = x->opcode[0], m = x->modrm, reg = (m >> 3) & 7;

	if (op < 0xd8 || op > 0xdf || m < 0xc0 || x->op_count != 1 ||
	    x->operands[0].type != X86_OP_REG)
		return 0;
	switch (op) {
	case 0xd8:
		return reg == 2 || reg == 3 ? 0 : 1;
	case 0xdc:
	case 0xde:
		return reg == 2 || reg == 3 ? 0 : 2;
	case 0xda:
		return m < 0xe0 ? 1 : 0;
	case 0xdb:
		return m < 0xe0 || (m >= 0xe8 && m < 0xf8) ? 1 : 0;
	case 0xdf:
		return m >= 0xe8 && m < 0xf8 ? 1 : 0;
	}
	return 0;
}

/*
 * Prefixes objdump names and capstone does not show: notrack (3e) on an
 * indirect branch, and 66 where a REX.W instruction ignores it (the
 * padding of TLS sequences), which objdump prints as data16.
 */
static void put_prefixes(struct text *t, const cs_insn *in, bool branch)
{
	const cs_x86 *x = &in->detail->x86;
	int n66 = 0;
	bool notrack = false;

	for (int i = 0; i < in->size; i++) {
		uint8_t b = in->bytes[i];

		if (b == 0x66)
			n66++;
		else if (b == 0x3e)
			notrack = true;
		else if (b != 0x64 && b != 0x65 && b != 0x2e && b != 0xf2 && b != 0xf3 && b != 0xf0)
			break;
	}
	if ((x->rex & 8) && x->opcode[0] != 0x0f)
		for (int i = 0; i < n66; i++)
			put(t, "data16 ");
	if (notrack && branch && x->op_count == 1 && x->operands[0].type != X86_OP_IMM)
		put(t, "notrack ");
}

/*
 * One instruction in objdump's text into @di. Anything the details cannot
 * rebuild (no operands listed where capstone printed some) keeps
 * capstone's operand text, with objdump's separators.
 */
static void format_insn(csh h, const cs_insn *in, disasm_name_fn name, void *ctx,
			struct disasm_insn *di)
{
	struct text t = { di->text, sizeof(di->text), 0 };
	const cs_x86 *x = &in->detail->x86;
	bool branch = in_group(in, CS_GRP_JUMP) || in_group(in, CS_GRP_CALL), riprel = false;
	size_t mlen;

	di->addr = in->address;
	di->size = in->size;
	if (objdump_special(&t, h, in))
		return;
	put_prefixes(&t, in, branch);
	put_mnemonic(&t, h, in);
	if (!in->op_str[0])
		return;
	mlen = t.len;
	put(&t, "%*s", mlen < 6 ? (int)(7 - mlen) : 1, "");
	if (x->op_count == 0) {
		for (const char *p = in->op_str; *p; p++)
			if (!(*p == ' ' && p > in->op_str && p[-1] == ','))
				put(&t, "%c", *p);
		return;
	}
	if (x87_implicit(in) == 2)
		put(&t, "%%st,");
	for (int i = 0, shown = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];

		/* a shift by one (D0, D1): objdump leaves out the implicit $0x1 */
		if (op->type == X86_OP_IMM && !branch &&
		    (x->opcode[0] == 0xd0 || x->opcode[0] == 0xd1))
			continue;
		if (shown++)
			put(&t, ",");
		switch (op->type) {
		case X86_OP_REG:
			/* of two x87 registers, objdump writes st(0) as %st */
			if (op->reg == X86_REG_ST0 && x->op_count == 2)
				put(&t, "%%st");
			else
				put(&t, "%s%%%s", branch ? "*" : "", cs_reg_name(h, op->reg));
			break;
		case X86_OP_IMM:
			if (branch) {
				di->target = (uint64_t)op->imm;
				di->call = in_group(in, CS_GRP_CALL);
				di->jump = !di->call;
				put(&t, "%" PRIx64, di->target);
				put_name(&t, name, ctx, di->target);
			} else {
				put(&t, "$0x%" PRIx64, imm_value(op));
			}
			break;
		case X86_OP_MEM:
			if (branch)
				put(&t, "*");
			put_mem(&t, h, in, op, &riprel);
			break;
		default:
			break;
		}
	}
	if (x87_implicit(in) == 1)
		put(&t, ",%%st");
	if (riprel) {
		uint64_t a = in->address + in->size;

		for (int i = 0; i < x->op_count; i++)
			if (x->operands[i].type == X86_OP_MEM)
				a += (uint64_t)x->operands[i].mem.disp;
		put(&t, "        # %" PRIx64, a);
		put_name(&t, name, ctx, a);
	}
}

static int grow(struct disasm_func *out, size_t *cap)
{
	struct disasm_insn *p;
	size_t n = *cap ? *cap * 2 : 64;

	p = realloc(out->insn, n * sizeof(*p));
	if (!p)
		return pcl_err(ENOMEM, "out of memory");
	out->insn = p;
	*cap = n;
	return 0;
}

int disasm_code(const uint8_t *code, size_t len, uint64_t vaddr, disasm_name_fn name, void *ctx,
		struct disasm_func *out)
{
	size_t cap = 0, off = 0;
	cs_insn *in = NULL;
	int ret = 0;
	csh h;

	memset(out, 0, sizeof(*out));
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
		return pcl_err(ENOTSUP, "capstone cannot disassemble x86-64");
	cs_option(h, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
	if (!(in = cs_malloc(h))) {
		ret = pcl_err(ENOMEM, "out of memory");
		goto out;
	}
	while (off < len) {
		const uint8_t *p = code + off;
		size_t left = len - off;
		uint64_t a = vaddr + off;
		struct disasm_insn *di;

		if (out->n == cap && (ret = grow(out, &cap)))
			goto out;
		di = &out->insn[out->n++];
		memset(di, 0, sizeof(*di));
		if (!cs_disasm_iter(h, &p, &left, &a, in)) {
			/* objdump shows an undecodable byte as "(bad)" and goes on */
			di->addr = vaddr + off;
			di->size = 1;
			strcpy(di->text, "(bad)");
			off++;
			continue;
		}
		format_insn(h, in, name, ctx, di);
		off += di->size;
	}
out:
	if (in)
		cs_free(in, 1);
	cs_close(&h);
	if (ret)
		disasm_func_free(out);
	return ret;
}

void disasm_func_free(struct disasm_func *f)
{
	if (!f)
		return;
	free(f->insn);
	memset(f, 0, sizeof(*f));
}

/* ---- a DSO's symbol ---- */

struct namer {
	struct pcl_symbols *s;
	struct pcl_dso *dso;
	const struct symbols_dso_files *f;
};

/* The DSO-relative address of ELF address @v: the inverse of symbols_dso_vaddr. */
static uint64_t dso_rel(const struct symbols_dso_files *f, uint64_t v)
{
	if (f->absolute)
		return v;
	for (int i = 0; i < f->segs.n; i++)
		if (v >= f->segs.s[i].vaddr && v - f->segs.s[i].vaddr < f->segs.s[i].memsz)
			return v - f->segs.s[i].vaddr + f->segs.s[i].offset;
	return v;
}

static const char *name_in_dso(void *ctx, uint64_t vaddr, uint64_t *off)
{
	struct namer *n = ctx;
	uint64_t rel = dso_rel(n->f, vaddr);
	const struct pcl_symbol *sym = pcl_symbols__find(n->s, n->dso, rel);

	if (!sym)
		return NULL;
	*off = rel - sym->start;
	return sym->name;
}

/* The file offset of DSO-relative @rel in @f's file: itself for a user ELF object. */
static int file_offset(const struct symbols_dso_files *f, uint64_t rel, uint64_t *off)
{
	if (!f->absolute) {
		*off = rel;
		return 0;
	}
	for (int i = 0; i < f->segs.n; i++) {
		if (rel >= f->segs.s[i].vaddr && rel - f->segs.s[i].vaddr < f->segs.s[i].memsz) {
			*off = rel - f->segs.s[i].vaddr + f->segs.s[i].offset;
			return 0;
		}
	}
	return -ENOENT;
}

/* The name of the section of @fd's ELF holding file offset @off into @out. */
static void section_name(int fd, uint64_t off, char *out, size_t size)
{
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	out[0] = 0;
	elf_version(EV_CURRENT);
	if (!(e = elf_begin(fd, ELF_C_READ_MMAP, NULL)))
		return;
	if (elf_getshdrstrndx(e, &shstrndx) == 0) {
		while ((scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			const char *n;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
			    !(sh.sh_flags & SHF_EXECINSTR) || off < sh.sh_offset ||
			    off - sh.sh_offset >= sh.sh_size)
				continue;
			if ((n = elf_strptr(e, shstrndx, sh.sh_name)))
				snprintf(out, size, "%s", n);
			break;
		}
	}
	elf_end(e);
}

static int read_code(const struct symbols_dso_files *f, const struct pcl_symbol *sym, uint8_t *buf,
		     size_t len, char *section, size_t ssize)
{
	uint64_t off;
	ssize_t n;
	int fd;

	if (!f->path) {
		if (!f->image || sym->start > f->image_size || len > f->image_size - sym->start)
			return pcl_err(ENOENT, "no file holds the code of '%s'", sym->name);
		memcpy(buf, (const uint8_t *)f->image + sym->start, len);
		snprintf(section, ssize, ".text");
		return 0;
	}
	if (file_offset(f, sym->start, &off))
		return pcl_err(ENOENT, "'%s' is in no segment of %s", sym->name, f->path);
	if ((fd = open(f->path, O_RDONLY | O_CLOEXEC)) < 0)
		return pcl_err(errno, "cannot open %s: %s", f->path, strerror(errno));
	n = pread(fd, buf, len, (off_t)off);
	if (n == (ssize_t)len)
		section_name(fd, off, section, ssize);
	close(fd);
	if (n != (ssize_t)len)
		return pcl_err(EIO, "cannot read the code of '%s' from %s", sym->name, f->path);
	return 0;
}

int disasm_symbol(struct pcl_symbols *s, struct pcl_dso *dso, const struct pcl_symbol *sym,
		  struct disasm_func *out)
{
	const struct symbols_dso_files *f = symbols_dso_files(s, dso);
	struct namer n = { s, dso, f };
	char section[sizeof(out->section)] = "";
	size_t len = sym->end > sym->start ? sym->end - sym->start : 0;
	uint8_t *buf;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!f || (!f->path && !f->image))
		return pcl_err(ENOENT, "no file holds the code of '%s' (%s)", sym->name, dso->name);
	if (len == 0 || len > MAX_FUNC_BYTES)
		return pcl_err(ENOENT, "'%s' has no size to disassemble", sym->name);
	if (!(buf = malloc(len)))
		return pcl_err(ENOMEM, "out of memory");
	ret = read_code(f, sym, buf, len, section, sizeof(section));
	if (!ret)
		ret = disasm_code(buf, len, symbols_dso_vaddr(f, sym->start), name_in_dso, &n, out);
	if (!ret)
		memcpy(out->section, section, sizeof(section));
	free(buf);
	return ret;
}
