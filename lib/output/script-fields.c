/* SPDX-License-Identifier: MIT */
/*
 * pcl script's fields beyond the ip, as perf 6.1's builtin-script.c prints
 * them: brstack, brstacksym, brstackoff (" FROM/TO/M/X/A/CYCLES/TYPE "),
 * brstackinsn (the code run between the branches, read from the DSOs and
 * decoded with capstone), iregs/uregs, data_src (mem-events.c's text),
 * page sizes, bpf-output, srccode (the source line, once per change per
 * thread) and insn/insnlen. The state they keep (open files, read sources,
 * capstone handles) hangs off struct pcl_script, made on first use.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sys/auxv.h>
#include <unistd.h>
#include <capstone/capstone.h>
#include "internal.h"
#include "analysis/srcpos.h"
#include "symbol/srcline.h"
#include "output/script-int.h"

/* The names of perf_branch_entry's type and new_type (perf 6.1's branch.c). */
static const char *const branch_type_names[16] = {
	"",	  "COND",      "UNCOND",   "IND",  "CALL", "IND_CALL", "RET",	"SYSCALL",
	"SYSRET", "COND_CALL", "COND_RET", "ERET", "IRQ",  "SERROR",   "NO_TX", "",
};
static const char *const branch_new_type_names[16] = {
	"FAULT_ALGN", "FAULT_DATA", "FAULT_INST", "ARCH_1", "ARCH_2", "ARCH_3", "ARCH_4", "ARCH_5",
};

const char *script_branch_type(const struct perf_branch_entry *e)
{
	const char *type = e->type == PERF_BR_EXTEND_ABI ? branch_new_type_names[e->new_type]
							 : branch_type_names[e->type];

	/* glibc's printf of a NULL %s, for the new types perf 6.1 has no name for */
	return type ? type : "(null)";
}

/* "/M/X/A/CYCLES/TYPE " after a branch's FROM/TO. */
static void print_branch_flags(struct sbuf *b, const struct perf_branch_entry *e)
{
	sb_putc(b, '/');
	sb_putc(b, !(e->mispred || e->predicted) ? '-' : e->predicted ? 'P' : 'M');
	sb_putc(b, '/');
	sb_putc(b, e->in_tx ? 'X' : '-');
	sb_putc(b, '/');
	sb_putc(b, e->abort ? 'A' : '-');
	sb_putc(b, '/');
	sb_u64(b, e->cycles, 0);
	sb_putc(b, '/');
	sb_puts(b, script_branch_type(e));
	sb_putc(b, ' ');
}

void script_print_paren_dso(struct sbuf *b, const struct pcl_frame *fr)
{
	sb_putc(b, '(');
	sb_puts(b, script_dso_name(fr->map));
	sb_putc(b, ')');
}

/*
 * An address of a branch as brstackoff shows it. perf 6.1 maps it into its
 * DSO only where the DSO's symbols need no adjusting, which since it marks
 * every user-space ELF file as adjusted leaves the kernel and its
 * modules: there the offset from the map's start, elsewhere the address.
 */
static uint64_t branch_off(const struct pcl_frame *fr)
{
	const struct pcl_dso *d = fr->map ? fr->map->dso : NULL;

	return d && (d->kind == PCL_DSO_MODULE || d->kind == PCL_DSO_KERNEL)
		       ? fr->ip - fr->map->start
		       : fr->ip;
}

/* brstack, brstacksym or brstackoff (@which), one " FROM/TO/flags " per entry. */
void script_print_brstack(struct pcl_script *s, struct sbuf *b, uint64_t f, uint64_t which,
			  const struct pcl_record *rec, const struct pcl_resolved *res)
{
	const struct pcl_sample *sm = &rec->sample;

	if (!(sm->sample_type & PERF_SAMPLE_BRANCH_STACK) || !sm->branches)
		return;
	for (uint64_t i = 0; i < sm->nr_branches; i++) {
		const struct perf_branch_entry *e = &sm->branches[i];
		struct pcl_frame from, to;

		if (which != PCL_SCRIPT_BRSTACK || (f & PCL_SCRIPT_DSO)) {
			script_resolve_addr(s, res->thread, rec->misc, e->from, &from);
			script_resolve_addr(s, res->thread, rec->misc, e->to, &to);
		}
		if (which == PCL_SCRIPT_BRSTACKSYM) {
			script_print_sym(b, &from, PCL_SCRIPT_SYMOFF);
		} else {
			sb_put(b, " 0x", 3);
			sb_hex(b, which == PCL_SCRIPT_BRSTACKOFF ? branch_off(&from) : e->from, 0);
		}
		if (f & PCL_SCRIPT_DSO)
			script_print_paren_dso(b, &from);
		sb_putc(b, '/');
		if (which == PCL_SCRIPT_BRSTACKSYM) {
			script_print_sym(b, &to, PCL_SCRIPT_SYMOFF);
		} else {
			sb_put(b, "0x", 2);
			sb_hex(b, which == PCL_SCRIPT_BRSTACKOFF ? branch_off(&to) : e->to, 0);
		}
		if (f & PCL_SCRIPT_DSO)
			script_print_paren_dso(b, &to);
		print_branch_flags(b, e);
	}
}

/* perf's names of the x86-64 registers of sample_regs_user/_intr (perf_regs.h). */
static const char *reg_name(unsigned int r)
{
	static const char *const names[] = {
		"AX", "BX", "CX", "DX", "SI", "DI", "BP",  "SP",  "IP",	 "FLAGS", "CS",	 "SS",
		"DS", "ES", "FS", "GS", "R8", "R9", "R10", "R11", "R12", "R13",	  "R14", "R15",
	};
	static const char *const xmm[] = {
		"XMM0", "XMM1", "XMM2",	 "XMM3",  "XMM4",  "XMM5",  "XMM6",  "XMM7",
		"XMM8", "XMM9", "XMM10", "XMM11", "XMM12", "XMM13", "XMM14", "XMM15",
	};

	if (r < ARRAY_SIZE(names))
		return names[r];
	if (r >= 32 && r < 64 && !(r & 1))
		return xmm[(r - 32) / 2];
	return "unknown";
}

/* " ABI:N " and "%5s:0x%llx " per register, nothing for a sample without registers. */
void script_print_regs(struct sbuf *b, uint64_t abi, const uint64_t *regs, uint64_t mask)
{
	unsigned int i = 0;

	if (!abi || !regs)
		return;
	sb_put(b, " ABI:", 5);
	sb_u64(b, abi, 0);
	sb_putc(b, ' ');
	for (unsigned int r = 0; r < 64; r++) {
		if (!(mask & (1ull << r)))
			continue;
		sb_rjust(b, reg_name(r), 5);
		sb_put(b, ":0x", 3);
		sb_hex(b, regs[i++], 0);
		sb_putc(b, ' ');
	}
}

/* perf's get_page_size_name: "4K", "2M", "1024M" ("N/A" for 0). */
void script_print_page_size(struct sbuf *b, uint64_t size)
{
	static const char unit[] = "BKMG";
	int i = 0;

	sb_putc(b, ' ');
	if (!size) {
		sb_put(b, "N/A", 3);
		return;
	}
	while (size / 1024 > 1 && i < 3) {
		size /= 1024;
		i++;
	}
	sb_u64(b, size, 0);
	sb_putc(b, unit[i]);
}

/* ---- data_src, decoded as perf 6.1's mem-events.c decodes it ---- */

/* A string being built into a fixed buffer, cut as perf's scnprintf cuts it. */
struct dbuf {
	char *p;
	size_t len, cap; /* cap counts the NUL */
};

static void db_puts(struct dbuf *d, const char *s)
{
	size_t n = strlen(s);

	if (d->len + 1 >= d->cap)
		return;
	if (n > d->cap - 1 - d->len)
		n = d->cap - 1 - d->len;
	memcpy(d->p + d->len, s, n);
	d->len += n;
	d->p[d->len] = '\0';
}

/* The names of the set bits of @m (bit i: names[i]), joined with " or ". */
static int db_bits(struct dbuf *d, uint64_t m, const char *const *names, size_t n, int printed)
{
	for (size_t i = 0; m && i < n; i++, m >>= 1) {
		if (!(m & 1))
			continue;
		if (printed++)
			db_puts(d, " or ");
		db_puts(d, names[i]);
	}
	return printed;
}

static void decode_data_src(uint64_t v, struct dbuf *d)
{
	const size_t sizeof_decode = d->cap;
	static const char *const tlb[] = { "N/A", "HIT", "MISS", "L1", "L2", "Walker", "Fault" };
	static const char *const lvl[] = {
		"N/A",
		"HIT",
		"MISS",
		"L1",
		"LFB/MAB",
		"L2",
		"L3",
		"Local RAM",
		"Remote RAM (1 hop)",
		"Remote RAM (2 hops)",
		"Remote Cache (1 hop)",
		"Remote Cache (2 hops)",
		"I/O",
		"Uncached",
	};
	static const char *const lvlnum[16] = {
		[0x09] = "CXL", [0x0a] = "I/O",	 [0x0b] = "Any cache", [0x0c] = "LFB/MAB",
		[0x0d] = "RAM", [0x0e] = "PMEM", [0x0f] = "N/A",
	};
	static const char *const hops[8] = {
		"N/A", "core, same node", "node, same socket", "socket, same board", "board",
	};
	static const char *const snoop[] = { "N/A", "None", "Hit", "Miss", "HitM" };
	static const char *const snoopx[] = { "Fwd", "Peer" };
	union perf_mem_data_src ds = { .val = v };
	uint64_t m = ds.mem_lvl & ~(uint64_t)(PERF_MEM_LVL_HIT | PERF_MEM_LVL_MISS);
	size_t start;
	int printed = 0;
	char tmp[16];

	db_puts(d, "|OP ");
	db_puts(d, ds.mem_op & PERF_MEM_OP_NA	    ? "N/A"
		   : ds.mem_op & PERF_MEM_OP_LOAD   ? "LOAD"
		   : ds.mem_op & PERF_MEM_OP_STORE  ? "STORE"
		   : ds.mem_op & PERF_MEM_OP_PFETCH ? "PFETCH"
		   : ds.mem_op & PERF_MEM_OP_EXEC   ? "EXEC"
						    : "No");
	db_puts(d, "|LVL ");
	start = d->len;
	if (ds.mem_remote)
		db_puts(d, "Remote ");
	if (ds.mem_hops) {
		db_puts(d, hops[ds.mem_hops] ? hops[ds.mem_hops] : "(null)");
		db_puts(d, " ");
	} else {
		printed = db_bits(d, m, lvl, ARRAY_SIZE(lvl), 0);
	}
	if (ds.mem_lvl_num) {
		if (printed++)
			db_puts(d, " or ");
		if (lvlnum[ds.mem_lvl_num]) {
			db_puts(d, lvlnum[ds.mem_lvl_num]);
		} else {
			snprintf(tmp, sizeof(tmp), "L%d", (int)ds.mem_lvl_num);
			db_puts(d, tmp);
		}
	}
	if (d->len == start)
		db_puts(d, "N/A");
	if (ds.mem_lvl & PERF_MEM_LVL_HIT)
		db_puts(d, " hit");
	if (ds.mem_lvl & PERF_MEM_LVL_MISS)
		db_puts(d, " miss");
	db_puts(d, "|SNP ");
	/* perf's snoop, TLB and BLK printers keep one byte more than they need */
	d->cap = sizeof_decode - 1;
	start = d->len;
	printed = db_bits(d, ds.mem_snoop, snoop, ARRAY_SIZE(snoop), 0);
	db_bits(d, ds.mem_snoopx, snoopx, ARRAY_SIZE(snoopx), printed);
	if (d->len == start)
		db_puts(d, "N/A");
	db_puts(d, "|TLB ");
	start = d->len;
	db_bits(d, ds.mem_dtlb & ~(uint64_t)(PERF_MEM_TLB_HIT | PERF_MEM_TLB_MISS), tlb,
		ARRAY_SIZE(tlb), 0);
	if (d->len == start)
		db_puts(d, "N/A");
	if (ds.mem_dtlb & PERF_MEM_TLB_HIT)
		db_puts(d, " hit");
	if (ds.mem_dtlb & PERF_MEM_TLB_MISS)
		db_puts(d, " miss");
	d->cap = sizeof_decode;
	db_puts(d, "|LCK ");
	db_puts(d, ds.mem_lock & PERF_MEM_LOCK_NA	? "N/A"
		   : ds.mem_lock & PERF_MEM_LOCK_LOCKED ? "Yes"
							: "No");
	db_puts(d, "|BLK ");
	d->cap = sizeof_decode - 1;
	if (!ds.mem_blk || (ds.mem_blk & PERF_MEM_BLK_NA)) {
		db_puts(d, " N/A");
		return;
	}
	if (ds.mem_blk & PERF_MEM_BLK_DATA)
		db_puts(d, " Data");
	if (ds.mem_blk & PERF_MEM_BLK_ADDR)
		db_puts(d, " Addr");
}

/* "%16llx DECODED", left-justified to the widest such column so far (perf's static maxlen). */
void script_print_data_src(struct pcl_script *s, struct sbuf *b, uint64_t v)
{
	char decode[100], out[100];
	struct dbuf d = { decode, 0, sizeof(decode) };
	int len;

	decode[0] = '\0';
	decode_data_src(v, &d);
	len = snprintf(out, sizeof(out), "%16" PRIx64 " %s", v, decode);
	if (len >= (int)sizeof(out))
		len = (int)sizeof(out) - 1;
	if (len > s->data_src_width)
		s->data_src_width = len;
	sb_put(b, out, (size_t)len);
	sb_spaces(b, (size_t)(s->data_src_width - len));
}

/* ---- srccode: the text of the ip's source line ---- */

#define SRC_FILES_MAX 64	  /* files kept read */
#define SRC_FILE_MAX  (64u << 20) /* a larger one is not read */
#define SRC_THREADS   1024	  /* buckets of the per-thread last line */

struct src_file {
	char *path, *text;
	size_t len, nlines;
	size_t *line; /* offsets of the lines' starts */
};

struct src_state {
	const struct pcl_thread *thread;
	char *file; /* the line printed last for the thread */
	unsigned int line;
	struct src_state *next;
};

struct src_code {
	struct src_file files[SRC_FILES_MAX];
	int nr_files, next_evict;
	struct src_state *threads[SRC_THREADS];
};

static void src_file_free(struct src_file *f)
{
	free(f->path);
	free(f->text);
	free(f->line);
	memset(f, 0, sizeof(*f));
}

void script_src_code_free(struct src_code *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->nr_files; i++)
		src_file_free(&c->files[i]);
	for (int i = 0; i < SRC_THREADS; i++) {
		for (struct src_state *t = c->threads[i], *n; t; t = n) {
			n = t->next;
			free(t->file);
			free(t);
		}
	}
	free(c);
}

/* Read @path and index its lines as perf does ('\n' ends a line; a last one may lack it). */
static int src_file_load(struct src_file *f, const char *path)
{
	FILE *fp = fopen(path, "r");
	long size;
	size_t n = 0;

	memset(f, 0, sizeof(*f));
	if (!fp)
		return -errno;
	if (fseek(fp, 0, SEEK_END) || (size = ftell(fp)) < 0 || (uint64_t)size > SRC_FILE_MAX ||
	    fseek(fp, 0, SEEK_SET))
		goto bad;
	f->text = malloc((size_t)size + 1);
	if (!f->text || fread(f->text, 1, (size_t)size, fp) != (size_t)size)
		goto bad;
	f->len = (size_t)size;
	for (size_t i = 0; i < f->len; i++)
		n += f->text[i] == '\n';
	n += f->len && f->text[f->len - 1] != '\n';
	f->line = malloc(sizeof(*f->line) * (n ? n : 1));
	f->path = strdup(path);
	if (!f->line || !f->path)
		goto bad;
	for (size_t i = 0, l = 0; l < n; l++) {
		f->line[l] = i;
		while (i < f->len && f->text[i] != '\n')
			i++;
		i++;
	}
	f->nlines = n;
	fclose(fp);
	return 0;
bad:
	fclose(fp);
	src_file_free(f);
	return -EIO;
}

/* Line @line (from 1) of @path: its text and length, or NULL. */
static const char *src_line(struct src_code *c, const char *path, unsigned int line, int *len)
{
	struct src_file *f = NULL;
	const char *p, *end;

	for (int i = 0; i < c->nr_files && !f; i++)
		if (!strcmp(c->files[i].path, path))
			f = &c->files[i];
	if (!f) {
		struct src_file nf;

		if (src_file_load(&nf, path))
			return NULL;
		if (c->nr_files < SRC_FILES_MAX) {
			f = &c->files[c->nr_files++];
		} else {
			f = &c->files[c->next_evict];
			c->next_evict = (c->next_evict + 1) % SRC_FILES_MAX;
			src_file_free(f);
		}
		*f = nf;
	}
	if (!line || line > f->nlines)
		return NULL;
	p = f->text + f->line[line - 1];
	end = memchr(p, '\n', (size_t)(f->text + f->len - p));
	*len = (int)((end ? end : f->text + f->len) - p);
	return p;
}

/* The thread's last printed line: perf prints a line again only when it changes. */
static struct src_state *src_state(struct src_code *c, const struct pcl_thread *t)
{
	size_t h = ((uintptr_t)t >> 4) % SRC_THREADS;
	struct src_state *st;

	for (st = c->threads[h]; st; st = st->next)
		if (st->thread == t)
			return st;
	st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	st->thread = t;
	st->next = c->threads[h];
	c->threads[h] = st;
	return st;
}

/* "|LINE     TEXT\n" of @fr for @thread, as perf's map__fprintf_srccode; false if none. */
static bool print_srccode_at(struct pcl_script *s, struct sbuf *b, const struct pcl_thread *thread,
			     const struct pcl_frame *fr)
{
	const struct srcline_info *info;
	struct src_state *st;
	const char *text;
	char *file;
	int len;

	if (!fr->map || srcpos_lookup(s->symbols, fr, &info) || !info->file)
		return false;
	if (!s->srccode && !(s->srccode = calloc(1, sizeof(*s->srccode)))) {
		b->oom = true;
		return false;
	}
	st = src_state(s->srccode, thread);
	if (!st) {
		b->oom = true;
		return false;
	}
	if (st->file && !strcmp(st->file, info->file) && st->line == info->line)
		return false;
	text = src_line(s->srccode, info->file, info->line, &len);
	if (!text)
		return false;
	file = strdup(info->file);
	if (!file) {
		b->oom = true;
		return false;
	}
	free(st->file);
	st->file = file;
	st->line = info->line;
	sb_putc(b, '|');
	sb_int(b, (int64_t)info->line, 8, true);
	sb_putc(b, ' ');
	sb_put(b, text, (size_t)len);
	sb_putc(b, '\n');
	return true;
}

/* After a sample's line: its ip's source line. */
void script_print_srccode(struct pcl_script *s, struct sbuf *b, const struct pcl_resolved *res)
{
	print_srccode_at(s, b, res->thread, &res->ip);
}

/*
 * A BPF output event's data (perf's bpf-output field): a hex and
 * character dump, 8 bytes a line, on lines of its own, and the data as a
 * string too when it is printable text ended by NULs.
 */
void script_print_bpf_output(struct sbuf *b, const struct pcl_sample *sm)
{
	const uint8_t *p = sm->raw;
	uint32_t n = sm->raw ? sm->raw_size : 0;
	bool hit_nul = false, printable = true;
	int line = 0;

	sb_putc(b, '\n');
	for (uint32_t i = 0; i < n; i++) {
		if (!(i & 7)) {
			sb_rjust(b, line ? "" : "BPF output:", 17);
			sb_printf(b, " %04x:", i);
		}
		sb_printf(b, " %02x", p[i]);
		if ((i & 7) != 7 && i != n - 1)
			continue;
		for (uint32_t j = 0; j < 7 - (i & 7); j++)
			sb_put(b, "   ", 3);
		sb_put(b, "  ", 2);
		for (uint32_t j = i & ~7u; j <= i; j++) {
			uint8_t c = p[j];

			if (hit_nul && c)
				printable = false;
			if (c >= 0x20 && c < 0x7f) {
				sb_putc(b, (char)c);
				continue;
			}
			sb_putc(b, '.');
			if (!printable)
				continue;
			if (!c)
				hit_nul = true;
			else
				printable = false;
		}
		for (uint32_t j = 0; j < 7 - (i & 7); j++)
			sb_putc(b, ' ');
		sb_putc(b, '\n');
		line++;
	}
	if (printable && hit_nul) {
		sb_rjust(b, "BPF string:", 17);
		sb_put(b, " \"", 2);
		sb_put(b, (const char *)p, strnlen((const char *)p, n));
		sb_put(b, "\"\n", 2);
	}
}

/* ---- insn, insnlen: the bytes of the instruction at the ip ---- */

#define INSN_MAX   16 /* perf's MAX_INSN */
#define INSN_FILES 16 /* DSO files kept open */

struct insn_file {
	char *path;
	int fd;
	bool is64;
};

struct insn_fetch {
	struct insn_file files[INSN_FILES];
	int nr, next;
	const uint8_t *vdso; /* this process's vDSO, which perf reads for [vdso] too */
	size_t vdso_size;
	bool vdso_tried;
	csh cs64, cs32, csd64, csd32; /* csd: with details, for branches */
	bool cs64_ok, cs32_ok, csd64_ok, csd32_ok;
};

void script_insn_fetch_free(struct insn_fetch *x)
{
	if (!x)
		return;
	for (int i = 0; i < x->nr; i++) {
		free(x->files[i].path);
		close(x->files[i].fd);
	}
	if (x->cs64_ok)
		cs_close(&x->cs64);
	if (x->cs32_ok)
		cs_close(&x->cs32);
	if (x->csd64_ok)
		cs_close(&x->csd64);
	if (x->csd32_ok)
		cs_close(&x->csd32);
	free(x);
}

/* The open file of a DSO (its ELF class in ->is64), or NULL. */
static struct insn_file *insn_file(struct insn_fetch *x, const char *path)
{
	struct insn_file *f;
	unsigned char ident[5];
	int fd;

	for (int i = 0; i < x->nr; i++)
		if (!strcmp(x->files[i].path, path))
			return &x->files[i];
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (pread(fd, ident, sizeof(ident), 0) != (ssize_t)sizeof(ident) ||
	    memcmp(ident, "\177ELF", 4)) {
		close(fd);
		return NULL;
	}
	if (x->nr < INSN_FILES) {
		f = &x->files[x->nr++];
	} else {
		f = &x->files[x->next];
		x->next = (x->next + 1) % INSN_FILES;
		free(f->path);
		close(f->fd);
	}
	f->path = strdup(path);
	if (!f->path) {
		close(fd);
		x->nr--;
		return NULL;
	}
	f->fd = fd;
	f->is64 = ident[4] == 2; /* ELFCLASS64 */
	return f;
}

/* This process's [vdso] (the kernel's, as the recording's on this machine), from its maps. */
static void insn_vdso(struct insn_fetch *x)
{
	uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	FILE *fp;
	char line[256];

	x->vdso_tried = true;
	if (!base || !(fp = fopen("/proc/self/maps", "re")))
		return;
	while (fgets(line, sizeof(line), fp)) {
		unsigned long lo, hi;

		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2 &&
		    lo == base) {
			x->vdso = (const uint8_t *)base;
			x->vdso_size = hi - lo;
		}
	}
	fclose(fp);
}

/*
 * perf's script_fetch_insn: on the machine that recorded the file (its
 * ARCH, or a stream), the bytes at the sample's ip from its DSO's file and
 * the length of the instruction they start with; 0 when there are none.
 */
static int fetch_insn(struct pcl_script *s, const struct pcl_record *rec,
		      const struct pcl_resolved *res, uint8_t *buf)
{
	const struct pcl_map *m = res->ip.map;
	struct insn_fetch *x;
	struct insn_file *f;
	cs_insn *insn;
	ssize_t n;
	size_t count, len = 0;

	uint64_t off;
	bool vdso;

	if (!s->native || !rec->sample.ip || !m || !m->dso)
		return 0;
	vdso = !strcmp(m->dso->name, "[vdso]");
	if (m->dso->name[0] != '/' && !vdso)
		return 0;
	if (!s->insn && !(s->insn = calloc(1, sizeof(*s->insn))))
		return 0;
	x = s->insn;
	off = rec->sample.ip - m->start + m->pgoff;
	if (vdso) {
		if (!x->vdso_tried)
			insn_vdso(x);
		if (off >= x->vdso_size)
			return 0;
		n = (ssize_t)(x->vdso_size - off < INSN_MAX ? x->vdso_size - off : INSN_MAX);
		memcpy(buf, x->vdso + off, (size_t)n);
		f = NULL;
	} else {
		f = insn_file(x, m->dso->name);
		if (!f)
			return 0;
		n = pread(f->fd, buf, INSN_MAX, (off_t)off);
		if (n <= 0)
			return 0;
	}
	if (!f) {
		static struct insn_file self = { .is64 = sizeof(void *) == 8 };

		f = &self;
	}
	if (f->is64 && !x->cs64_ok)
		x->cs64_ok = cs_open(CS_ARCH_X86, CS_MODE_64, &x->cs64) == CS_ERR_OK;
	if (!f->is64 && !x->cs32_ok)
		x->cs32_ok = cs_open(CS_ARCH_X86, CS_MODE_32, &x->cs32) == CS_ERR_OK;
	if (!(f->is64 ? x->cs64_ok : x->cs32_ok))
		return 0;
	count = cs_disasm(f->is64 ? x->cs64 : x->cs32, buf, (size_t)n, rec->sample.ip, 1, &insn);
	if (count) {
		len = insn[0].size;
		cs_free(insn, count);
	}
	return (int)len;
}

/* " ilen: N" and " insn: XX XX ..." as the fields ask. */
void script_print_insn(struct pcl_script *s, struct sbuf *b, uint64_t f,
		       const struct pcl_record *rec, const struct pcl_resolved *res)
{
	uint8_t buf[INSN_MAX];
	int len = fetch_insn(s, rec, res, buf);

	if (f & PCL_SCRIPT_INSNLEN) {
		sb_put(b, " ilen: ", 7);
		sb_int(b, len, 0, false);
	}
	if ((f & PCL_SCRIPT_INSN) && len) {
		sb_put(b, " insn:", 6);
		for (int i = 0; i < len; i++) {
			sb_putc(b, ' ');
			sb_num(b, buf[i], false, true, 2, false, true);
		}
	}
}

/* ---- brstackinsn, brstackinsnlen: the instructions between the branches ---- */

#define MAXBB 16384u /* perf's longest block */

struct bb {
	struct pcl_script *s;
	struct pcl_thread *thread;
	uint64_t f;
	bool kernel, is64;
	const struct pcl_symbol *lastsym;
	int total_cycles;
	char out[80]; /* the text of one instruction */
};

/*
 * perf's grab_bb: the bytes of [start, end] and one instruction more, read
 * from the DSO holding @start; the number read, 0 for none, -ENXIO when the
 * block crosses between kernel and user space.
 */
static int grab_bb(struct bb *x, uint8_t *buf, uint64_t start, uint64_t end)
{
	struct pcl_frame fr;
	struct insn_file *f;
	ssize_t n;

	if (!start || !end)
		return 0;
	x->kernel = start >= KERNEL_START;
	if (x->kernel != (end >= KERNEL_START))
		return -ENXIO;
	if (end - start > MAXBB - INSN_MAX)
		return 0;
	if (!x->s->resolver)
		return 0;
	pcl_resolver__frame(x->s->resolver, x->thread, x->kernel, start, &fr);
	if (!fr.map || !fr.map->dso)
		return 0;
	if (!x->s->insn && !(x->s->insn = calloc(1, sizeof(*x->s->insn))))
		return 0;
	if (!strcmp(fr.map->dso->name, "[vdso]")) {
		struct insn_fetch *v = x->s->insn;
		uint64_t off = start - fr.map->start + fr.map->pgoff;

		if (!v->vdso_tried)
			insn_vdso(v);
		if (off >= v->vdso_size)
			return 0;
		n = (ssize_t)(v->vdso_size - off < end - start + INSN_MAX ? v->vdso_size - off
									  : end - start + INSN_MAX);
		memcpy(buf, v->vdso + off, (size_t)n);
		x->is64 = sizeof(void *) == 8;
		return (int)n;
	}
	if (fr.map->dso->name[0] != '/' || !(f = insn_file(x->s->insn, fr.map->dso->name)))
		return 0;
	n = pread(f->fd, buf, (size_t)(end - start + INSN_MAX),
		  (off_t)(start - fr.map->start + fr.map->pgoff));
	x->is64 = f->is64;
	return n > 0 ? (int)n : 0;
}

/* One instruction at @p: its length (0: none decodes) and whether it branches. */
static int decode_insn(struct bb *x, const uint8_t *p, int len, uint64_t ip, bool *branch)
{
	struct insn_fetch *v = x->s->insn;
	csh *h = x->is64 ? &v->csd64 : &v->csd32;
	bool *ok = x->is64 ? &v->csd64_ok : &v->csd32_ok;
	cs_insn *insn;
	size_t count;
	int n = 0;

	if (!*ok && cs_open(CS_ARCH_X86, x->is64 ? CS_MODE_64 : CS_MODE_32, h) == CS_ERR_OK) {
		cs_option(*h, CS_OPT_DETAIL, CS_OPT_ON);
		*ok = true;
	}
	*branch = false;
	if (!*ok || len <= 0)
		return 0;
	count = cs_disasm(*h, p, (size_t)len, ip, 1, &insn);
	if (!count)
		return 0;
	n = insn[0].size;
	for (int i = 0; insn[0].detail && i < insn[0].detail->groups_count; i++) {
		uint8_t g = insn[0].detail->groups[i];

		*branch |= g == CS_GRP_JUMP || g == CS_GRP_CALL || g == CS_GRP_RET ||
			   g == CS_GRP_INT || g == CS_GRP_IRET;
	}
	*branch |= insn[0].id == X86_INS_SYSCALL || insn[0].id == X86_INS_SYSRET ||
		   insn[0].id == X86_INS_SYSENTER || insn[0].id == X86_INS_SYSEXIT;
	cs_free(insn, count);
	return n;
}

/* perf's dump_insn: "insn: XX XX " of the instruction at @p, "<bad>" when none decodes. */
static const char *dump_insn(struct bb *x, const uint8_t *p, int len, uint64_t ip, int *ilen)
{
	bool branch;
	int n = decode_insn(x, p, len, ip, &branch), k;

	if (!n || n > len)
		return "<bad>";
	*ilen = n;
	k = snprintf(x->out, sizeof(x->out), "insn: ");
	for (int i = 0; i < n && k < (int)sizeof(x->out); i++)
		k += snprintf(x->out + k, sizeof(x->out) - (size_t)k, "%02x ", p[i]);
	return x->out;
}

/* perf's ip__fprintf_sym: "\tSYM[+OFF]:" where the code enters another symbol. */
static void bb_sym(struct bb *x, struct sbuf *b, uint64_t addr)
{
	struct pcl_frame fr;
	int64_t off;

	if (!x->s->resolver)
		return;
	pcl_resolver__frame(x->s->resolver, x->thread, x->kernel, addr, &fr);
	if (x->lastsym && fr.addr >= x->lastsym->start && fr.addr < x->lastsym->end)
		return;
	if (!fr.map || !fr.sym)
		return;
	off = (int64_t)(fr.addr - fr.sym->start);
	sb_putc(b, '\t');
	sb_puts(b, fr.sym->name);
	if (off)
		sb_printf(b, "%+d", (int)off);
	sb_putc(b, ':');
	if (x->f & PCL_SCRIPT_SRCLINE) {
		const char *str;

		if (!x->s->srcpos &&
		    !(x->s->srcpos = srcpos_cache__new(x->s->symbols, x->s->o.full_source_path))) {
			b->oom = true;
			return;
		}
		str = srcpos_cache__get(x->s->srcpos, &fr, SRCPOS_SCRIPT);
		if (str && str[0]) {
			sb_putc(b, '\t');
			sb_puts(b, str);
		}
	}
	sb_putc(b, '\n');
	x->lastsym = fr.sym;
}

static void bb_srccode(struct bb *x, struct sbuf *b, uint64_t addr)
{
	struct pcl_frame fr;

	if (!(x->f & PCL_SCRIPT_SRCCODE) || !x->s->resolver)
		return;
	pcl_resolver__frame(x->s->resolver, x->thread, x->kernel, addr, &fr);
	print_srccode_at(x->s, b, x->thread, &fr);
}

/* perf's ip__fprintf_jump: the branch, its flags, cycles and IPC. */
static void bb_jump(struct bb *x, struct sbuf *b, uint64_t ip, const struct perf_branch_entry *e,
		    const uint8_t *p, int len, int insn)
{
	int ilen = 0;

	sb_printf(b, "\t%016" PRIx64 "\t%-30s\t", ip, dump_insn(x, p, len, ip, &ilen));
	if (x->f & PCL_SCRIPT_BRSTACKINSNLEN)
		sb_printf(b, "ilen: %d\t", ilen);
	sb_printf(b, "#%s%s%s%s", e->predicted ? " PRED" : "", e->mispred ? " MISPRED" : "",
		  e->in_tx ? " INTX" : "", e->abort ? " ABORT" : "");
	if (e->cycles) {
		x->total_cycles += e->cycles;
		sb_printf(b, " %d cycles [%d]", (int)e->cycles, x->total_cycles);
		if (insn)
			sb_printf(b, " %.2f IPC", (double)((float)insn / (float)e->cycles));
	}
	sb_putc(b, '\n');
}

/* One instruction's line: "\tADDR\tinsn: XX \n" (with its length). Its length. */
static int bb_line(struct bb *x, struct sbuf *b, uint64_t ip, const uint8_t *p, int len)
{
	int ilen = 0;

	sb_printf(b, "\t%016" PRIx64 "\t%s", ip, dump_insn(x, p, len, ip, &ilen));
	if (x->f & PCL_SCRIPT_BRSTACKINSNLEN)
		sb_printf(b, "\tilen: %d", ilen);
	sb_putc(b, '\n');
	return ilen;
}

/* perf's perf_sample__fprintf_brstackinsn: the code run between the recorded branches. */
void script_print_brstackinsn(struct pcl_script *s, struct sbuf *b, uint64_t f,
			      const struct pcl_record *rec, const struct pcl_resolved *res)
{
	const struct pcl_sample *sm = &rec->sample;
	const struct perf_branch_entry *e = sm->branches;
	struct bb x = { .s = s, .thread = res->thread, .f = f };
	uint64_t start, end, nr = sm->nr_branches;
	uint8_t *buf;
	int len, ilen;
	uint64_t off;
	bool branch;

	if (!(sm->sample_type & PERF_SAMPLE_BRANCH_STACK) || !e || !nr)
		return;
	buf = malloc(MAXBB + INSN_MAX);
	if (!buf) {
		b->oom = true;
		return;
	}
	sb_putc(b, '\n');
	/* the first branch, whose block's start is not known */
	len = grab_bb(&x, buf, e[nr - 1].from, e[nr - 1].from);
	if (len > 0) {
		bb_sym(&x, b, e[nr - 1].from);
		bb_jump(&x, b, e[nr - 1].from, &e[nr - 1], buf, len, 0);
		bb_srccode(&x, b, e[nr - 1].from);
	}
	for (int64_t i = (int64_t)nr - 2; i >= 0; i--) {
		int insn = 0;

		start = e[i + 1].to;
		end = e[i].from;
		len = grab_bb(&x, buf, start, end);
		/* a transfer the ring filter hid: patch up to the next branch */
		if (len == -ENXIO && i > 0) {
			end = e[--i].from;
			len = grab_bb(&x, buf, start, end);
		}
		if (len <= 0)
			continue;
		for (off = 0; off < (uint64_t)len; off += (uint64_t)ilen) {
			uint64_t ip = start + off;

			bb_sym(&x, b, ip);
			if (ip == end) {
				bb_jump(&x, b, ip, &e[i], buf + off, len - (int)off, ++insn);
				bb_srccode(&x, b, ip);
				break;
			}
			ilen = bb_line(&x, b, ip, buf + off, len - (int)off);
			if (!ilen)
				break;
			bb_srccode(&x, b, ip);
			insn++;
		}
		if (off != end - start)
			sb_puts(b, "\tmismatch of LBR data and executable\n");
	}
	/* taken the branch already, or aborted: the target has not run */
	if (e[0].from == sm->ip || e[0].abort)
		goto out;
	/* the last block, up to the sample (or 128 bytes on when a branch is missing) */
	start = e[0].to;
	end = sm->ip;
	if (end < start)
		end = start + 128;
	len = grab_bb(&x, buf, start, end);
	bb_sym(&x, b, start);
	if (len <= 0) {
		len = grab_bb(&x, buf, sm->ip, sm->ip);
		if (len <= 0)
			goto out;
		ilen = 0;
		sb_printf(b, "\t%016" PRIx64 "\t%s", sm->ip,
			  dump_insn(&x, buf, len, sm->ip, &ilen));
		if (f & PCL_SCRIPT_BRSTACKINSNLEN)
			sb_printf(b, "\tilen: %d", ilen);
		sb_putc(b, '\n');
		bb_srccode(&x, b, sm->ip);
		goto out;
	}
	for (off = 0; off <= end - start; off += (uint64_t)ilen) {
		ilen = bb_line(&x, b, start + off, buf + off, len - (int)off);
		if (!ilen)
			break;
		decode_insn(&x, buf + off, len - (int)off, start + off, &branch);
		if (branch && start + off != sm->ip) {
			sb_puts(b, "\t... not reaching sample ...\n");
			break;
		}
		bb_srccode(&x, b, start + off);
	}
out:
	free(buf);
}
