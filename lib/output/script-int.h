/* SPDX-License-Identifier: MIT */
/*
 * What lib/output/script.c (the lines, -F, setup) and script-fields.c (the
 * fields a sample carries besides its ip: branch stacks and the code
 * between them, registers, data_src, BPF output, source code, instruction
 * bytes) share: the formatter's state and the line buffer. Internal.
 */
#ifndef PCL_OUTPUT_SCRIPT_INT_H
#define PCL_OUTPUT_SCRIPT_INT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pcl/pcl.h>

#define KERNEL_START 0xffff800000000000ull /* x86-64's kernel half */

struct class_fields {
	uint64_t fields, invalid;
	uint64_t user_set_fields, user_unset_fields;
	bool user_set, wildcard_set;
};

struct named_attr {
	const struct pcl_data_attr *a;
	char *name;
};

/* A line being built. */
struct sbuf {
	char *p;
	size_t len, cap;
	bool oom;
};

struct src_code;
struct insn_fetch;

struct pcl_script {
	struct pcl_script_opts o;
	struct sbuf buf;
	const struct pcl_tracepoints *tracepoints;
	struct class_fields cls[PCL_SCRIPT_NR_CLASSES];
	bool use_callchain;
	int name_width;
	struct named_attr *attrs;
	int nr_attrs;
	int last; /* index of the attr looked up last */
	uint64_t initial_time, previous_time;
	struct pcl_symbols *symbols;
	struct pcl_resolver *resolver; /* for the addresses besides the ip */
	struct srcpos_cache *srcpos;   /* the srcline field's strings, made on first use */
	struct src_code *srccode;      /* the srccode field's files, made on first use */
	struct insn_fetch *insn;       /* the insn fields' files, made on first use */
	bool native;		       /* the file was recorded on this kind of machine */
	bool print_flags;	       /* perf's "flags" column */
	bool want_metric, want_synth;  /* named in -F: refused where they would print */
	bool clock;		       /* CLOCK_DATA known: tod_ns at clockid_ns */
	uint64_t tod_ns, clockid_ns;
	int data_src_width; /* perf pads data_src to the widest one so far */
};

/*
 * Lines are built in a buffer by hand and written with one fwrite: the
 * printf family was half of pcl script's time, and these few shapes of
 * number ("%16llx", "%5d", "%-5d", "%03d", "%10llu") are easy to do.
 */
static inline bool sb_need(struct sbuf *b, size_t n)
{
	if (b->oom)
		return false;
	if (b->len + n > b->cap) {
		size_t nc = b->cap ? b->cap : 4096;
		char *np;

		while (nc < b->len + n)
			nc *= 2;
		np = realloc(b->p, nc);
		if (!np) {
			b->oom = true;
			return false;
		}
		b->p = np;
		b->cap = nc;
	}
	return true;
}

static inline void sb_put(struct sbuf *b, const char *s, size_t n)
{
	if (sb_need(b, n)) {
		memcpy(b->p + b->len, s, n);
		b->len += n;
	}
}

static inline void sb_puts(struct sbuf *b, const char *s)
{
	sb_put(b, s, strlen(s));
}

static inline void sb_putc(struct sbuf *b, char c)
{
	if (sb_need(b, 1))
		b->p[b->len++] = c;
}

static inline void sb_spaces(struct sbuf *b, size_t n)
{
	if (sb_need(b, n)) {
		memset(b->p + b->len, ' ', n);
		b->len += n;
	}
}

/* @s right-justified in @width columns ("%*s"). */
static inline void sb_rjust(struct sbuf *b, const char *s, int width)
{
	size_t n = strlen(s);

	if (width > 0 && n < (size_t)width)
		sb_spaces(b, (size_t)width - n);
	sb_put(b, s, n);
}

/* Digits of @v in base 10 or 16, written backwards ending at @end; their count. */
static inline size_t digits(char *end, uint64_t v, bool hex)
{
	static const char xd[] = "0123456789abcdef";
	char *p = end;

	if (hex) {
		do {
			*--p = xd[v & 15];
			v >>= 4;
		} while (v);
	} else {
		do {
			*--p = (char)('0' + v % 10);
			v /= 10;
		} while (v);
	}
	return (size_t)(end - p);
}

/*
 * A number in @width columns: right-justified with spaces, or with zeros
 * (@zero), or left-justified (@left); base 10 (signed when @neg) or 16.
 */
static inline void sb_num(struct sbuf *b, uint64_t v, bool neg, bool hex, int width, bool left,
			  bool zero)
{
	char tmp[24];
	size_t nd = digits(tmp + sizeof(tmp), v, hex), n = nd + neg;
	size_t pad = width > 0 && n < (size_t)width ? (size_t)width - n : 0;
	char *p;

	if (!sb_need(b, n + pad))
		return;
	p = b->p + b->len;
	if (!left && !zero) {
		memset(p, ' ', pad);
		p += pad;
	}
	if (neg)
		*p++ = '-';
	if (zero) {
		memset(p, '0', pad);
		p += pad;
	}
	memcpy(p, tmp + sizeof(tmp) - nd, nd);
	p += nd;
	if (left) {
		memset(p, ' ', pad);
		p += pad;
	}
	b->len = (size_t)(p - b->p);
}

/* "%*d", "%-*d" */
static inline void sb_int(struct sbuf *b, int64_t v, int width, bool left)
{
	bool neg = v < 0;

	sb_num(b, neg ? 0 - (uint64_t)v : (uint64_t)v, neg, false, width, left, false);
}

static inline void sb_u64(struct sbuf *b, uint64_t v, int width)
{
	sb_num(b, v, false, false, width, false, false);
}

static inline void sb_hex(struct sbuf *b, uint64_t v, int width)
{
	sb_num(b, v, false, true, width, false, false);
}

/* For the rare lines (side-band records): printf into the buffer. */
static inline void sb_printf(struct sbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !sb_need(b, (size_t)n + 1))
		return;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* Write the buffer out; 0, or -EIO (@out's error), -ENOMEM. */
static inline int sb_flush(struct sbuf *b, FILE *out)
{
	int ret = b->oom ? -ENOMEM : 0;

	if (b->len && fwrite(b->p, 1, b->len, out) != b->len)
		ret = -EIO;
	b->len = 0;
	b->oom = false;
	return ret ? ret : ferror(out) ? -EIO : 0;
}

/* script.c */
const char *script_dso_name(const struct pcl_map *map);
void script_print_sym(struct sbuf *b, const struct pcl_frame *fr, uint64_t f);
/* perf's thread__find_map_fb: in the sample's space (@misc), else in the address's own. */
void script_resolve_addr(struct pcl_script *s, struct pcl_thread *t, uint16_t misc, uint64_t addr,
			 struct pcl_frame *fr);

/* script-fields.c: each prints a field as perf 6.1 does; on ENOMEM it sets b->oom. */
void script_print_paren_dso(struct sbuf *b, const struct pcl_frame *fr);
void script_print_brstack(struct pcl_script *s, struct sbuf *b, uint64_t f, uint64_t which,
			  const struct pcl_record *rec, const struct pcl_resolved *res);
void script_print_regs(struct sbuf *b, uint64_t abi, const uint64_t *regs, uint64_t mask);
void script_print_page_size(struct sbuf *b, uint64_t size);
void script_print_data_src(struct pcl_script *s, struct sbuf *b, uint64_t v);
void script_print_bpf_output(struct sbuf *b, const struct pcl_sample *sm);
void script_print_srccode(struct pcl_script *s, struct sbuf *b, const struct pcl_resolved *res);
void script_print_insn(struct pcl_script *s, struct sbuf *b, uint64_t f,
		       const struct pcl_record *rec, const struct pcl_resolved *res);
void script_print_brstackinsn(struct pcl_script *s, struct sbuf *b, uint64_t f,
			      const struct pcl_record *rec, const struct pcl_resolved *res);
void script_src_code_free(struct src_code *c);
void script_insn_fetch_free(struct insn_fetch *x);

#endif
