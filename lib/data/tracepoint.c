/* SPDX-License-Identifier: MIT */
/*
 * Tracepoint formats (contract in include/pcl/tracepoint.h): parsing of
 * tracefs format files and of the TRACING_DATA section that carries them,
 * and printing of a sample's raw data, through libtraceevent as perf does,
 * or field by field where libtraceevent cannot read a format.
 *
 * TRACING_DATA, as perf writes it (tools/perf/util/trace-event-info.c) and
 * lib/data/tracing.c copies it; numbers in the file's byte order:
 *   "\027\010\104tracing" version "0.6\0" endian(u8: 1 big) long_size(u8)
 *   page_size(u32)
 *   "header_page\0" u64 size, bytes; "header_event\0" u64 size, bytes
 *   u32 nr ftrace formats { u64 size, bytes }
 *   u32 nr systems { "system\0" u32 nr { u64 size, bytes } }
 *   u32 kallsyms size, bytes; u32 printk size, bytes
 *   (version >= 0.6) u64 saved_cmdlines size, bytes
 * Every size is checked against the bytes left before it is used.
 *
 * libtraceevent gets what perf's trace-event-read.c gives it: the header
 * page (whose commit field sets the long size), the ftrace and event
 * formats, the printk formats and the saved cmdlines; not kallsyms, which
 * perf skips too (kernel functions come from the caller's resolver, as
 * perf's come from its machine). What is after the event formats is
 * optional: a section cut there still has its formats.
 *
 * libtraceevent's parsers are not hardened against hostile text: formats
 * reach it only when pcl's own parse takes them and their print fmt is
 * well nested and names only their fields (tep_may_parse), and printk
 * format lines only in the shape tracefs writes (printk_lines); what
 * fuzz-tracing found it crash on is in fuzz/corpus/tracing.
 *
 * libtraceevent trusts a record's bytes: it reads fields at the format's
 * offsets and __data_loc data wherever the record's u16 offset and length
 * point, without checking them against the record's size. So a record is
 * copied into a zeroed scratch buffer that covers every byte those can
 * name (the format's end plus 2 * 64 KiB), and zeroed again after.
 */
#include <ctype.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>
#include "internal.h"

#define MAX_FIELDS 1024 /* a format with more lines than this is not a tracefs one */

PCL_API void pcl_tp_format__free(struct pcl_tp_format *f)
{
	if (!f)
		return;
	for (int i = 0; i < f->nr_fields; i++) {
		free(f->fields[i].name);
		free(f->fields[i].type);
	}
	free(f->fields);
	free(f->system);
	free(f->name);
	free(f);
}

static char *strndup_trim(const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s))
		s++, n--;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return strndup(s, n);
}

/* "name: value" at the start of @line: the value's start, or NULL. */
static const char *line_value(const char *line, const char *end, const char *key)
{
	size_t k = strlen(key);

	if ((size_t)(end - line) < k || memcmp(line, key, k))
		return NULL;
	line += k;
	while (line < end && (*line == ' ' || *line == '\t'))
		line++;
	return line;
}

/* The size of one element of a base C type, or 0 when it is not known. */
static uint32_t base_type_size(const char *t, int long_size)
{
	static const struct {
		const char *name;
		uint32_t size; /* 0: long */
	} types[] = {
		{ "char", 1 },	      { "unsigned char", 1 },
		{ "signed char", 1 }, { "u8", 1 },
		{ "s8", 1 },	      { "__u8", 1 },
		{ "__s8", 1 },	      { "uint8_t", 1 },
		{ "int8_t", 1 },      { "bool", 1 },
		{ "short", 2 },	      { "unsigned short", 2 },
		{ "u16", 2 },	      { "s16", 2 },
		{ "__u16", 2 },	      { "__s16", 2 },
		{ "uint16_t", 2 },    { "int16_t", 2 },
		{ "int", 4 },	      { "unsigned int", 4 },
		{ "unsigned", 4 },    { "u32", 4 },
		{ "s32", 4 },	      { "__u32", 4 },
		{ "__s32", 4 },	      { "uint32_t", 4 },
		{ "int32_t", 4 },     { "pid_t", 4 },
		{ "long long", 8 },   { "unsigned long long", 8 },
		{ "u64", 8 },	      { "s64", 8 },
		{ "__u64", 8 },	      { "__s64", 8 },
		{ "uint64_t", 8 },    { "int64_t", 8 },
		{ "long", 0 },	      { "unsigned long", 0 },
		{ "size_t", 0 },      { "ssize_t", 0 },
	};

	if (!strncmp(t, "const ", 6))
		t += 6;
	if (strchr(t, '*'))
		return (uint32_t)long_size;
	for (size_t i = 0; i < ARRAY_SIZE(types); i++)
		if (!strcmp(t, types[i].name))
			return types[i].size ? types[i].size : (uint32_t)long_size;
	return 0;
}

static bool is_char_type(const char *t)
{
	if (!strncmp(t, "const ", 6))
		t += 6;
	return !strcmp(t, "char");
}

/*
 * The declaration of a field line ("unsigned long args[6]", "__data_loc
 * char[] name") into @fl: name, type, array length, flags.
 */
static int parse_decl(const char *d, size_t n, struct pcl_tp_field *fl, int long_size)
{
	const char *end = d + n, *name, *dims = NULL;
	size_t dims_len = 0;
	char *base;

	while (end > d && isspace((unsigned char)end[-1]))
		end--;
	if (end > d && end[-1] == ']') {
		const char *open = end - 1;

		while (open > d && *open != '[')
			open--;
		if (*open != '[')
			return -EBADMSG;
		dims = open + 1;
		dims_len = (size_t)(end - 1 - dims);
		end = open;
	}
	while (end > d && isspace((unsigned char)end[-1]))
		end--;
	name = end;
	while (name > d && (isalnum((unsigned char)name[-1]) || name[-1] == '_'))
		name--;
	if (name == end || name == d)
		return -EBADMSG;
	fl->name = strndup(name, (size_t)(end - name));
	base = strndup_trim(d, (size_t)(name - d));
	if (!fl->name || !base) {
		free(base);
		return -ENOMEM;
	}
	if (dims) {
		/* the type as perf's libtraceevent keeps it: the base with the dimensions */
		if (asprintf(&fl->type, "%s[%.*s]", base, (int)dims_len, dims) < 0)
			fl->type = NULL;
	} else {
		fl->type = strdup(base);
	}
	if (!fl->type) {
		free(base);
		return -ENOMEM;
	}
	if (!strncmp(base, "__data_loc ", 11) || !strncmp(base, "__rel_loc ", 10)) {
		char *elem = base + (base[2] == 'd' ? 11 : 10);
		size_t el = strlen(elem);

		fl->flags |= PCL_TP_DYNAMIC | (base[2] == 'r' ? PCL_TP_RELATIVE : 0);
		if (el >= 2 && !strcmp(elem + el - 2, "[]"))
			elem[el - 2] = '\0';
		while (*elem && isspace((unsigned char)elem[strlen(elem) - 1]))
			elem[strlen(elem) - 1] = '\0';
		if (is_char_type(elem))
			fl->flags |= PCL_TP_STRING;
		if (strchr(elem, '*'))
			fl->flags |= PCL_TP_POINTER;
		fl->elem_size = base_type_size(elem, long_size);
		if (!fl->elem_size)
			fl->elem_size = 1;
	} else {
		if (strchr(base, '*'))
			fl->flags |= PCL_TP_POINTER;
		if (dims) {
			unsigned long nr = strtoul(dims, NULL, 0);

			fl->flags |= PCL_TP_ARRAY;
			if (is_char_type(base))
				fl->flags |= PCL_TP_STRING;
			/* a length tracefs left as a macro name: guess from the size */
			if (!nr || fl->size % nr) {
				uint32_t es = base_type_size(base, long_size);

				nr = es && fl->size % es == 0 ? fl->size / es : fl->size;
			}
			fl->nr = (uint32_t)nr;
			fl->elem_size = nr ? fl->size / (uint32_t)nr : 1;
		} else {
			fl->elem_size = fl->size;
		}
	}
	if (!strncmp(fl->name, "common_", 7))
		fl->flags |= PCL_TP_COMMON;
	free(base);
	return 0;
}

/* A number after "key:" in a field line, e.g. "offset:8;". */
static bool field_num(const char *line, const char *end, const char *key, unsigned long *v)
{
	size_t k = strlen(key);
	const char *p;

	for (p = line; p + k <= end; p++) {
		if (!memcmp(p, key, k) &&
		    (p == line || p[-1] == '\t' || p[-1] == ' ' || p[-1] == ';')) {
			char buf[32];
			size_t n = 0;

			p += k;
			while (p < end && n < sizeof(buf) - 1 && *p != ';')
				buf[n++] = *p++;
			buf[n] = '\0';
			*v = strtoul(buf, NULL, 0);
			return n > 0;
		}
	}
	return false;
}

/* "\tfield:DECL;\toffset:N;\tsize:N;\tsigned:N;" */
static int parse_field(const char *line, const char *end, struct pcl_tp_field *fl, int long_size)
{
	const char *d = line_value(line, end, "field:"), *semi;
	unsigned long off, size, sign = 0;

	if (!d)
		d = line_value(line, end, "field special:");
	if (!d)
		return -EBADMSG;
	semi = memchr(d, ';', (size_t)(end - d));
	if (!semi || !field_num(semi, end, "offset:", &off) ||
	    !field_num(semi, end, "size:", &size))
		return -EBADMSG;
	if (off > UINT32_MAX || size > UINT32_MAX)
		return -EBADMSG;
	field_num(semi, end, "signed:", &sign);
	fl->offset = (uint32_t)off;
	fl->size = (uint32_t)size;
	if (sign)
		fl->flags |= PCL_TP_SIGNED;
	return parse_decl(d, (size_t)(semi - d), fl, long_size);
}

static int add_field(struct pcl_tp_format *f, const char *line, const char *end, int long_size)
{
	struct pcl_tp_field *nf;
	int ret;

	if (f->nr_fields >= MAX_FIELDS)
		return -EBADMSG;
	nf = realloc(f->fields, sizeof(*nf) * (size_t)(f->nr_fields + 1));
	if (!nf)
		return -ENOMEM;
	f->fields = nf;
	memset(&nf[f->nr_fields], 0, sizeof(*nf));
	ret = parse_field(line, end, &nf[f->nr_fields], long_size);
	if (ret) {
		free(nf[f->nr_fields].name);
		free(nf[f->nr_fields].type);
		return ret;
	}
	f->nr_fields++;
	return 0;
}

PCL_API struct pcl_tp_format *pcl_tp_format__parse(const char *system, const char *text, size_t len,
						   int long_size)
{
	struct pcl_tp_format *f = calloc(1, sizeof(*f));
	const char *p = text, *end = text + len;
	bool have_id = false, in_format = false;
	int ret = -ENOMEM;

	if (!f)
		goto err;
	if (long_size <= 0)
		long_size = 8;
	f->system = strdup(system ? system : "");
	if (!f->system)
		goto err;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end, *v;
		const char *s = p;

		p = nl ? nl + 1 : end;
		while (s < le && (*s == ' ' || *s == '\t'))
			s++;
		if ((v = line_value(s, le, "name:")) && !f->name) {
			if (!(f->name = strndup_trim(v, (size_t)(le - v))))
				goto err;
		} else if ((v = line_value(s, le, "ID:"))) {
			f->id = strtoull(v, NULL, 10);
			have_id = true;
		} else if (line_value(s, le, "format:")) {
			in_format = true;
		} else if (line_value(s, le, "print fmt:")) {
			break;
		} else if (in_format &&
			   (line_value(s, le, "field:") || line_value(s, le, "field special:"))) {
			ret = add_field(f, s, le, long_size);
			if (ret)
				goto bad;
		}
	}
	if (!f->name || !f->name[0] || !have_id) {
		ret = -EBADMSG;
		goto bad;
	}
	return f;
bad:
	if (ret == -EBADMSG)
		pcl_err(EBADMSG, "tracepoint format of '%s:%s': malformed",
			f->system ? f->system : "", f->name ? f->name : "?");
err:
	pcl_tp_format__free(f);
	errno = -ret;
	return NULL;
}

/* ---- printing ---- */

static uint64_t read_uint(const uint8_t *p, uint32_t size)
{
	uint8_t v8;
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	switch (size) {
	case 1:
		memcpy(&v8, p, 1);
		return v8;
	case 2:
		memcpy(&v16, p, 2);
		return v16;
	case 4:
		memcpy(&v32, p, 4);
		return v32;
	default:
		memcpy(&v64, p, 8);
		return v64;
	}
}

/* One integer element of @size (1, 2, 4 or 8) bytes. */
static void print_int(FILE *out, const uint8_t *p, uint32_t size, unsigned int flags)
{
	uint64_t v = read_uint(p, size);

	if (flags & PCL_TP_POINTER) {
		fprintf(out, "0x%" PRIx64, v);
	} else if (flags & PCL_TP_SIGNED) {
		int64_t s =
			size == 8 ? (int64_t)v : (int64_t)(v << (64 - 8 * size)) >> (64 - 8 * size);

		fprintf(out, "%" PRId64, s);
	} else {
		fprintf(out, "%" PRIu64, v);
	}
}

static bool int_size(uint32_t size)
{
	return size == 1 || size == 2 || size == 4 || size == 8;
}

/* @len bytes at @p: a string up to its NUL, control characters as '.'. */
static void print_string(FILE *out, const uint8_t *p, size_t len)
{
	const uint8_t *nul = memchr(p, '\0', len);

	if (nul)
		len = (size_t)(nul - p);
	for (size_t i = 0; i < len; i++)
		fputc(p[i] < 0x20 || p[i] == 0x7f ? '.' : p[i], out);
}

/* @len bytes of elements of @es bytes: "[a,b,c]"; raw hex bytes when es is no integer size. */
static void print_array(FILE *out, const uint8_t *p, size_t len, uint32_t es, unsigned int flags)
{
	fputc('[', out);
	if (!int_size(es))
		es = 1, flags &= ~(unsigned int)PCL_TP_SIGNED;
	for (size_t i = 0; i + es <= len; i += es) {
		if (i)
			fputc(',', out);
		print_int(out, p + i, es, flags);
	}
	fputc(']', out);
}

static void print_field(FILE *out, const struct pcl_tp_field *fl, const uint8_t *raw, size_t size)
{
	const uint8_t *p = raw + fl->offset;

	if (fl->flags & PCL_TP_DYNAMIC) {
		uint32_t loc = (uint32_t)read_uint(p, 4);
		size_t off = loc & 0xffff, len = loc >> 16;

		if (fl->flags & PCL_TP_RELATIVE)
			off += (size_t)fl->offset + fl->size;
		if (off > size || len > size - off) {
			fputc('?', out);
			return;
		}
		if (fl->flags & PCL_TP_STRING)
			print_string(out, raw + off, len);
		else
			print_array(out, raw + off, len, fl->elem_size, fl->flags);
		return;
	}
	if (fl->flags & PCL_TP_STRING) {
		print_string(out, p, fl->size);
	} else if (fl->flags & PCL_TP_ARRAY) {
		print_array(out, p, fl->size, fl->elem_size, fl->flags);
	} else if (int_size(fl->size)) {
		print_int(out, p, fl->size, fl->flags);
	} else {
		/* a struct or an odd size: its bytes in hex, in memory order */
		fputs("0x", out);
		for (uint32_t i = 0; i < fl->size; i++)
			fprintf(out, "%02x", p[i]);
	}
}

PCL_API int pcl_tp_format__fprint(const struct pcl_tp_format *f, const void *raw, size_t size,
				  FILE *out)
{
	bool first = true;

	if (!f || !out)
		return pcl_err(EINVAL, "pcl_tp_format__fprint: invalid argument");
	for (int i = 0; i < f->nr_fields; i++) {
		const struct pcl_tp_field *fl = &f->fields[i];

		if ((fl->flags & PCL_TP_COMMON) || fl->offset > size ||
		    fl->size > size - fl->offset)
			continue;
		if ((fl->flags & PCL_TP_DYNAMIC) && fl->size < 4)
			continue;
		if (!first)
			fputc(' ', out);
		first = false;
		fprintf(out, "%s=", fl->name);
		print_field(out, fl, raw, size);
	}
	return ferror(out) ? -EIO : 0;
}

/* ---- the TRACING_DATA section ---- */

/* Bytes past a format's end that a __data_loc or __rel_loc can name: u16 offset + u16 length. */
#define DYN_REACH (2 * 65536)

struct pcl_tracepoints {
	struct pcl_tp_format **f;
	size_t n, alloc;
	struct tep_handle *tep; /* NULL: libtraceevent did not take the section */
	size_t nr_unformatted;	/* formats of f that tep cannot print */
	uint32_t max_end;	/* the largest offset + size of a field of any format */
	pcl_tp_func_resolver_t resolve;
	void *resolve_ctx;
	struct {
		int id;
		char ph; /* what stands for a tab in its format string (tep_parse_tabbed) */
	} tabbed[16];
	size_t nr_tabbed;
	/* printing state, under lock: tep_print_event is not reentrant */
	pthread_mutex_t lock;
	struct trace_seq seq;
	uint8_t *scratch; /* all zero between prints */
	size_t scratch_size;
};

struct cursor {
	const uint8_t *p, *end;
	bool swap; /* the file's byte order is not ours */
	bool bad;
};

static const void *take(struct cursor *c, size_t n)
{
	const uint8_t *p = c->p;

	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = true;
		return NULL;
	}
	c->p += n;
	return p;
}

static uint32_t take_u32(struct cursor *c)
{
	const void *p = take(c, 4);
	uint32_t v = 0;

	if (p)
		memcpy(&v, p, 4);
	return c->swap ? __builtin_bswap32(v) : v;
}

static uint64_t take_u64(struct cursor *c)
{
	const void *p = take(c, 8);
	uint64_t v = 0;

	if (p)
		memcpy(&v, p, 8);
	return c->swap ? __builtin_bswap64(v) : v;
}

/* A NUL-terminated string in the section. */
static const char *take_string(struct cursor *c)
{
	const uint8_t *nul;

	if (c->bad || !(nul = memchr(c->p, '\0', (size_t)(c->end - c->p)))) {
		c->bad = true;
		return NULL;
	}
	return take(c, (size_t)(nul - c->p) + 1);
}

/* A size (u64, or u32 when @small) and that many bytes; *len set. */
static const char *take_sized(struct cursor *c, size_t *len, bool small)
{
	uint64_t n = small ? take_u32(c) : take_u64(c);

	if (c->bad || n > (uint64_t)(c->end - c->p)) {
		c->bad = true;
		return NULL;
	}
	*len = (size_t)n;
	return take(c, (size_t)n);
}

static const char *take_blob(struct cursor *c, size_t *len)
{
	return take_sized(c, len, false);
}

PCL_API void pcl_tracepoints__free(struct pcl_tracepoints *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		pcl_tp_format__free(t->f[i]);
	free(t->f);
	if (t->tep) {
		trace_seq_destroy(&t->seq);
		tep_free(t->tep);
	}
	pthread_mutex_destroy(&t->lock);
	free(t->scratch);
	free(t);
}

static int tp_add(struct pcl_tracepoints *t, struct pcl_tp_format *f)
{
	if (t->n == t->alloc) {
		size_t na = t->alloc ? t->alloc * 2 : 16;
		struct pcl_tp_format **nf = realloc(t->f, sizeof(*nf) * na);

		if (!nf)
			return -ENOMEM;
		t->f = nf;
		t->alloc = na;
	}
	t->f[t->n++] = f;
	for (int i = 0; i < f->nr_fields; i++) {
		uint64_t end = (uint64_t)f->fields[i].offset + f->fields[i].size;

		/* past 64 KiB: never a record's, and never given to libtraceevent */
		if (end > t->max_end && end <= 65536)
			t->max_end = (uint32_t)end;
	}
	return 0;
}

static int cmp_id(const void *a, const void *b)
{
	const struct pcl_tp_format *x = *(struct pcl_tp_format *const *)a;
	const struct pcl_tp_format *y = *(struct pcl_tp_format *const *)b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * libtraceevent's messages, which it prints to stderr unless the program
 * overrides this (its documented hook, a weak symbol): they go to the
 * print callback instead. Weak, so that a program with its own override
 * keeps it. A shared libpcl keeps the symbol local (version script), so
 * there libtraceevent's own log level (critical only, by default) is what
 * keeps it quiet.
 */
__attribute__((weak, visibility("default"))) int
tep_vprint(const char *name, enum tep_loglevel level, bool print_err, const char *fmt, va_list ap)
{
	char msg[512];

	(void)print_err;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	pcl_pr(level <= TEP_LOG_WARNING ? PCL_WARN
	       : level == TEP_LOG_INFO	? PCL_INFO
					: PCL_DEBUG,
	       "%s: %s\n", name ? name : "libtraceevent", msg);
	return 0;
}

/*
 * A print fmt as tracefs writes it: one line (a string may hold a
 * newline), then only blank space; a string first, quotes closed, and (),
 * [] and {} nested properly outside them. libtraceevent's expression
 * parser crashes on some that are not (one cut inside an expression).
 */
static bool print_fmt_balanced(const char *p, const char *end)
{
	char stack[64];
	int depth = 0;
	char quote = 0;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end || *p != '"')
		return false;
	for (; p < end && (quote || *p != '\n'); p++) {
		char ch = *p;

		if ((unsigned char)ch < 0x20 && ch != '\t' && ch != '\n')
			return false;
		if (quote) {
			if (ch == '\\' && p + 1 < end)
				p++;
			else if (ch == quote)
				quote = 0;
		} else if (ch == '"' || ch == '\'') {
			quote = ch;
		} else if (ch == '(' || ch == '[' || ch == '{') {
			if (depth == (int)sizeof(stack))
				return false;
			stack[depth++] = ch == '(' ? ')' : ch == '[' ? ']' : '}';
		} else if (ch == ')' || ch == ']' || ch == '}') {
			if (!depth || stack[--depth] != ch)
				return false;
		}
	}
	if (quote || depth)
		return false;
	for (; p < end; p++)
		if (!isspace((unsigned char)*p))
			return false;
	return true;
}

/* What follows "print fmt:" at the start of a line of @text, or NULL. */
static const char *print_fmt_at(const char *text, size_t len)
{
	const char *end = text + len;

	for (const char *q = text; q + 10 <= end; q++)
		if ((q == text || q[-1] == '\n') && !memcmp(q, "print fmt:", 10))
			return q + 10;
	return NULL;
}

/* A token of a print fmt's arguments: what follows matters for print_fmt_words_ok. */
enum pf_tok { PF_OTHER, PF_WORD, PF_NUMBER, PF_STRING };

/* The token at *@pp (blank space skipped), *@pp moved past it; -1 on an unclosed literal. */
static int pf_next(const char **pp, const char *end)
{
	const char *p = *pp;
	int kind = PF_OTHER;

	while (p < end && isspace((unsigned char)*p))
		p++;
	if (p == end) {
		*pp = p;
		return PF_OTHER;
	}
	if (*p == '"' || *p == '\'') {
		char q = *p++;

		while (p < end && *p != q)
			p += *p == '\\' && p + 1 < end ? 2 : 1;
		if (p >= end)
			return -1;
		p++;
		kind = PF_STRING;
	} else if (isalpha((unsigned char)*p) || *p == '_' || isdigit((unsigned char)*p)) {
		kind = isdigit((unsigned char)*p) ? PF_NUMBER : PF_WORD;
		while (p < end && (isalnum((unsigned char)*p) || *p == '_' || *p == '.'))
			p++;
	} else {
		p++;
	}
	*pp = p;
	return kind;
}

/* Whether the word @p..@end starts a C integer type ("unsigned int", "u64"). */
static bool base_type_size_of(const char *p, const char *end)
{
	static const char *const words[] = { "char", "short", "int",  "long", "unsigned", "signed",
					     "u8",   "u16",	"u32",	"u64",	"s8",	    "s16",
					     "s32",  "s64" };

	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		if (strlen(words[i]) == (size_t)(end - p) && !memcmp(words[i], p, (size_t)(end - p)))
			return true;
	return false;
}

/* Whether the number @p..@end (not NUL-ended) is not 0. */
static bool nonzero(const char *p, const char *end)
{
	char buf[32];
	size_t n = (size_t)(end - p) < sizeof(buf) - 1 ? (size_t)(end - p) : sizeof(buf) - 1;

	memcpy(buf, p, n);
	buf[n] = '\0';
	return strtoull(buf, NULL, 0) != 0;
}

/*
 * The arguments of a print fmt are C expressions: two words or numbers in
 * a row only name a type, in a cast's parentheses ("(unsigned long)",
 * "(struct page *)"). libtraceevent 1.7 crashes on some text that breaks
 * this (a word glued to a field line's text, found by fuzz-tracing).
 */
static bool print_fmt_words_ok(const char *p, const char *end)
{
	bool type_only[64]; /* per open '(': has held only words and '*' so far */
	int depth = 0, prev = PF_OTHER;
	bool divide = false; /* the previous token was '/' or '%' */
	int size_of = 0;     /* a divisor's sizeof: 1 wants '(', 2 a base type */
	bool member = false; /* the previous token was a word after "->" */
	char last = 0, last2 = 0; /* the first characters of the two previous tokens */

	while (p < end) {
		const char *start;
		int kind;

		while (p < end && isspace((unsigned char)*p))
			p++;
		start = p;
		kind = pf_next(&p, end);
		if (kind < 0)
			return false;
		if (p == start)
			break;
		/*
		 * A divisor is a nonzero constant or the sizeof of an integer
		 * type: libtraceevent folds constants when it parses, and
		 * divided by zero under fuzzing ("x % 0", "x % sizeof *y").
		 */
		if (size_of == 1 && *start != '(')
			return false;
		if (size_of == 2 && !(kind == PF_WORD && base_type_size_of(start, p)))
			return false;
		size_of = size_of == 1 ? 2 : 0;
		if (divide && !(kind == PF_NUMBER && nonzero(start, p))) {
			if (!(kind == PF_WORD && p - start == 6 && !memcmp(start, "sizeof", 6)))
				return false;
			size_of = 1;
		}
		divide = kind == PF_OTHER && (*start == '/' || *start == '%');
		/*
		 * C's operators only (no ';', no '#'), and only a field, a
		 * call's result or an element is indexed: libtraceevent
		 * dereferenced NULL on "word[2]", "x# y" and "REC->nofield[1]"
		 * under fuzzing.
		 */
		if (kind == PF_OTHER && (!strchr("()[]{},.-><+*/%&|^!~?:=", *start) ||
					 (*start == '[' && !member && last != ')' && last != ']')))
			return false;
		/* an operator has a right operand: "x=, y" crashed libtraceevent */
		if (kind == PF_OTHER && strchr(",)]}", *start) && last && strchr("+-/%&|^!~?:=<>.", last))
			return false;
		member = kind == PF_WORD && last == '>' && last2 == '-';
		last2 = last;
		last = *start;
		if (kind == PF_WORD || kind == PF_NUMBER) {
			if (prev == PF_STRING)
				return false;
			if ((prev == PF_WORD || prev == PF_NUMBER) &&
			    (kind == PF_NUMBER || prev == PF_NUMBER || !depth || !type_only[depth - 1]))
				return false;
		} else if (kind == PF_STRING && prev != PF_OTHER && prev != PF_STRING) {
			return false;
		}
		if (*start == '(') {
			if (depth == (int)ARRAY_SIZE(type_only))
				return false;
			type_only[depth++] = true;
		} else if (*start == ')') {
			if (depth)
				depth--;
		} else if (depth && kind != PF_WORD && *start != '*') {
			type_only[depth - 1] = false;
		}
		prev = kind == PF_OTHER ? PF_OTHER : kind;
	}
	return !size_of && !divide && (!last || !strchr("+-/%&|^!~?:=<>.", last));
}

/*
 * A field declared as tracefs declares them: a C name, and a type of
 * words and '*' with at most one array suffix ("char[16]", "__data_loc
 * char[]", "u8[ETH_ALEN]"). libtraceevent crashed on a field line with
 * an unclosed '[' under fuzzing.
 */
static bool decl_ok(const struct pcl_tp_field *fl)
{
	const char *t = fl->type, *open = strchr(t, '['), *close = strchr(t, ']');

	if (!*fl->name || strspn(fl->name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					   "0123456789_") != strlen(fl->name))
		return false;
	if (!!open != !!close || (open && (close < open || close[1] || strchr(open + 1, '['))))
		return false;
	/* a numbered array fills its size: "args[6]" of 48 bytes */
	if (open && isdigit((unsigned char)open[1])) {
		unsigned long nr = strtoul(open + 1, NULL, 0);

		if (!nr || fl->size % nr)
			return false;
	}
	return strspn(t, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_ *[]+()-") ==
	       strlen(t);
}

/*
 * Whether libtraceevent may parse @text, the format @f was parsed from:
 * every REC->NAME of its print fmt must name a field of @f. libtraceevent
 * 1.7 dereferences NULL on some references to fields a format lacks (an
 * array element of one, in a __print_flags); tracefs never writes those.
 */
static bool tep_may_parse(const struct pcl_tp_format *f, const char *text, size_t len)
{
	const char *end = text + len, *p = print_fmt_at(text, len);

	/*
	 * Fields lie inside a record (at most 64 KiB), and only a flexible
	 * array ("buf[]", in ftrace's formats) is empty: libtraceevent reads
	 * where a field says, and asked a 4 GiB allocation of a pointer of
	 * size 0 under fuzzing.
	 */
	for (int i = 0; i < f->nr_fields; i++) {
		const struct pcl_tp_field *fl = &f->fields[i];
		size_t tl = strlen(fl->type);

		if ((uint64_t)fl->offset + fl->size > 65536 || !decl_ok(fl) ||
		    (!fl->size && (tl < 2 || strcmp(fl->type + tl - 2, "[]"))))
			return false;
	}
	/* tracefs writes ASCII text; libtraceevent's tokenizer chokes on other bytes */
	for (size_t i = 0; i < len; i++)
		if (!isprint((unsigned char)text[i]) && text[i] != '\t' && text[i] != '\n')
			return false;
	if (!p || !print_fmt_balanced(p, end) || !print_fmt_words_ok(p, end))
		return false;
	while (p && p + 5 <= end && (p = memmem(p, (size_t)(end - p), "REC->", 5))) {
		const char *n = p + 5, *e = n;
		bool found = false;

		while (e < end && (isalnum((unsigned char)*e) || *e == '_'))
			e++;
		for (int i = 0; i < f->nr_fields && !found; i++)
			found = strlen(f->fields[i].name) == (size_t)(e - n) &&
				!memcmp(f->fields[i].name, n, (size_t)(e - n));
		if (!found)
			return false;
		p = e;
	}
	return true;
}

/*
 * libtraceevent 1.7 refuses a print fmt whose format string holds a tab
 * (maple_tree's, on recent kernels), which perf 6.1's own copy of it
 * reads. Such a format goes in with the tabs as a printable byte the text
 * does not hold, and that byte is made a tab again in what it prints
 * (pcl_tracepoints__fprint); a string field holding that byte would print
 * it as a tab too, the one cost.
 */
static const char tab_stand_ins[] = "`^~@$#";

/* @f's @text to libtraceevent, its format string's tabs stood in for. */
static void tep_parse_tabbed(struct pcl_tracepoints *t, const struct pcl_tp_format *f,
			     const char *sys, const char *text, size_t len)
{
	const char *p = print_fmt_at(text, len), *end = text + len, *q;
	char *copy, ph = 0;

	while (p && p < end && (*p == ' ' || *p == '\t'))
		p++;
	for (q = p ? p + 1 : NULL; q && q < end && *q != '"'; q += *q == '\\' ? 2 : 1)
		;
	if (!p || p >= end || *p != '"' || !q || q >= end || !memchr(p, '\t', (size_t)(q - p)))
		goto plain;
	for (const char *c = tab_stand_ins; *c && !ph; c++)
		ph = memchr(text, *c, len) ? 0 : *c;
	if (!ph || t->nr_tabbed == ARRAY_SIZE(t->tabbed) || f->id > INT32_MAX ||
	    !(copy = malloc(len)))
		goto plain;
	memcpy(copy, text, len);
	for (size_t i = (size_t)(p - text); i < (size_t)(q - text); i++)
		if (copy[i] == '\t')
			copy[i] = ph;
	tep_parse_event(t->tep, copy, len, sys);
	free(copy);
	t->tabbed[t->nr_tabbed].id = (int)f->id;
	t->tabbed[t->nr_tabbed++].ph = ph;
	return;
plain:
	tep_parse_event(t->tep, text, len, sys);
}

/* @text (@len bytes) to libtraceevent, when pcl's own parse finds it sound. */
static void tep_add_format(struct pcl_tracepoints *t, const char *sys, const char *text,
			   size_t len, int long_size)
{
	struct pcl_tp_format *f = pcl_tp_format__parse(sys, text, len, long_size);

	if (f && tep_may_parse(f, text, len))
		tep_parse_tabbed(t, f, sys, text, len);
	pcl_tp_format__free(f);
}

/* A libtraceevent handle for the section's byte order and sizes; NULL when out of memory. */
static struct tep_handle *tep_new(bool big, int long_size, uint32_t page_size)
{
	struct tep_handle *tep = tep_alloc();

	if (!tep)
		return NULL;
	tep_set_flag(tep, TEP_NSEC_OUTPUT);
	tep_set_file_bigendian(tep, big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? TEP_BIG_ENDIAN
									    : TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, long_size);
	tep_set_page_size(tep, (int)page_size);
	return tep;
}

/* A header page: its commit field's size is the kernel's long, as perf takes it. */
static void tep_header_page(struct tep_handle *tep, const char *d, size_t len, int long_size)
{
	char *copy = malloc(len + 1);

	if (!copy)
		return;
	memcpy(copy, d, len);
	copy[len] = '\0';
	if (!tep_parse_header_page(tep, copy, len, long_size))
		tep_set_long_size(tep, tep_get_header_page_size(tep));
	free(copy);
}

/* The header up to the event formats, into t->tep too; the file's long size or -EBADMSG. */
static int read_preamble(struct cursor *c, struct pcl_tracepoints *t)
{
	static const uint8_t magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	const uint8_t *m = take(c, sizeof(magic)), *b;
	const char *s, *d;
	size_t len;
	int long_size;
	uint32_t n, page_size;

	if (!m || memcmp(m, magic, sizeof(magic)))
		return -EBADMSG;
	take_string(c); /* version */
	b = take(c, 2);
	if (!b)
		return -EBADMSG;
	c->swap = (b[0] != 0) != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	long_size = b[1];
	page_size = take_u32(c);
	if (!c->bad && page_size && (long_size == 4 || long_size == 8))
		t->tep = tep_new(b[0] != 0, long_size, page_size);
	if (t->tep)
		trace_seq_init(&t->seq); /* pcl_tracepoints__free destroys it with the handle */
	s = take_string(c);
	if (!s || strcmp(s, "header_page"))
		return -EBADMSG;
	d = take_blob(c, &len);
	if (d && t->tep)
		tep_header_page(t->tep, d, len, long_size);
	s = take_string(c);
	if (!s || strcmp(s, "header_event"))
		return -EBADMSG;
	take_blob(c, &len);
	n = take_u32(c); /* ftrace's own formats */
	for (uint32_t i = 0; i < n && !c->bad; i++) {
		d = take_blob(c, &len);
		if (d && t->tep)
			tep_add_format(t, "ftrace", d, len, long_size);
	}
	return c->bad ? -EBADMSG : long_size;
}

static int read_systems(struct cursor *c, struct pcl_tracepoints *t, int long_size)
{
	uint32_t nsys = take_u32(c);

	for (uint32_t i = 0; i < nsys && !c->bad; i++) {
		const char *sys = take_string(c);
		uint32_t n = take_u32(c);

		for (uint32_t k = 0; k < n && !c->bad; k++) {
			size_t len = 0;
			const char *text = take_blob(c, &len);
			struct pcl_tp_format *f;

			if (!text)
				break;
			f = pcl_tp_format__parse(sys, text, len, long_size);
			if (!f) {
				if (errno == ENOMEM)
					return -ENOMEM;
				continue; /* one bad format does not spoil the others */
			}
			if (t->tep && tep_may_parse(f, text, len))
				tep_parse_tabbed(t, f, sys, text, len);
			if (tp_add(t, f)) {
				pcl_tp_format__free(f);
				return -ENOMEM;
			}
		}
	}
	return c->bad ? -EBADMSG : 0;
}

/* @len bytes at @d as a C string, for libtraceevent's text parsers; NULL when out of memory. */
static char *cstr(const char *d, size_t len)
{
	char *s = malloc(len + 1);

	if (s) {
		memcpy(s, d, len);
		s[len] = '\0';
	}
	return s;
}

/*
 * Whether libtraceevent can take @p..@end as a printk format's text (what
 * follows "ADDR :" and one space): it drops a leading quote, then looks
 * for a trailing quote and "\n" two bytes before the end, without checking
 * that the text is that long; so it must be 3 bytes at least.
 */
static bool printk_text_ok(const char *p, const char *end)
{
	if (p >= end)
		return false;
	if (*p == '"')
		p++;
	return end - p >= 3;
}

/*
 * The printk formats' lines ("ADDR : FORMAT") that libtraceevent can take:
 * it reads past the first ':' of a line without checking that there is
 * one, and past the start of a short format (printk_text_ok); such lines
 * are left out. Leading ':'s are skipped, as its strtok does. NUL-ended;
 * NULL when out of memory.
 */
static char *printk_lines(const char *d, size_t len)
{
	char *out = malloc(len + 2), *o = out; /* a newline may be added to the last line */
	const char *end = d + len, *nul = memchr(d, '\0', len);

	if (!out)
		return NULL;
	if (nul)
		end = nul;
	while (d < end) {
		const char *nl = memchr(d, '\n', (size_t)(end - d)), *le = nl ? nl : end;
		const char *p = d, *colon;

		while (p < le && *p == ':')
			p++;
		colon = p < le ? memchr(p, ':', (size_t)(le - p)) : NULL;
		if (colon && printk_text_ok(colon + 2, le)) {
			memcpy(o, d, (size_t)(le - d));
			o += le - d;
			*o++ = '\n';
		}
		d = nl ? nl + 1 : end;
	}
	*o = '\0';
	return out;
}

/*
 * What follows the event formats: kallsyms (skipped, as perf does), the
 * printk formats (strings that trace_printk and tracepoint_string fields
 * point at) and the saved cmdlines. Any of it may be missing.
 */
static void read_tail(struct cursor *c, struct tep_handle *tep, const char *version)
{
	const char *d;
	char *s;
	size_t len;

	take_sized(c, &len, true); /* kallsyms */
	d = take_sized(c, &len, true);
	if (d && len && (s = printk_lines(d, len))) {
		if (*s)
			tep_parse_printk_formats(tep, s);
		free(s);
	}
	if (!version || strtod(version, NULL) < 0.6)
		return;
	d = take_blob(c, &len);
	if (d && len && (s = cstr(d, len))) {
		tep_parse_saved_cmdlines(tep, s);
		free(s);
	}
}

/* The formats libtraceevent cannot print: not parsed, or with a print fmt it did not follow. */
static void count_unformatted(struct pcl_tracepoints *t)
{
	for (size_t i = 0; i < t->n; i++) {
		struct tep_event *e = t->tep && t->f[i]->id <= INT32_MAX
					      ? tep_find_event(t->tep, (int)t->f[i]->id)
					      : NULL;

		if (!e || (e->flags & TEP_EVENT_FL_FAILED)) {
			t->nr_unformatted++;
			pcl_pr(PCL_DEBUG,
			       "tracepoint %s:%s: libtraceevent cannot print its format\n",
			       t->f[i]->system, t->f[i]->name);
		}
	}
}

PCL_API struct pcl_tracepoints *pcl_tracepoints__parse(const void *data, size_t len)
{
	struct cursor c = { data, (const uint8_t *)data + len, false, false };
	struct pcl_tracepoints *t;
	const char *version = NULL;
	int ret, long_size;

	if (!data) {
		return pcl_err_null(EINVAL, "pcl_tracepoints__parse: invalid argument");
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	pthread_mutex_init(&t->lock, NULL);
	if (len > 10 && !memcmp((const uint8_t *)data + 3, "tracing", 7))
		version = memchr((const uint8_t *)data + 10, '\0', len - 10)
				  ? (const char *)data + 10
				  : NULL;
	long_size = read_preamble(&c, t);
	ret = long_size < 0 ? long_size : read_systems(&c, t, long_size);
	if (ret) {
		if (ret == -EBADMSG)
			pcl_err(EBADMSG, "malformed tracing data (%zu bytes)", len);
		pcl_tracepoints__free(t);
		errno = -ret;
		return NULL;
	}
	if (t->tep)
		read_tail(&c, t->tep, version);
	if (t->n)
		qsort(t->f, t->n, sizeof(*t->f), cmp_id);
	count_unformatted(t);
	return t;
}

PCL_API size_t pcl_tracepoints__count(const struct pcl_tracepoints *t)
{
	return t ? t->n : 0;
}

PCL_API const struct pcl_tp_format *pcl_tracepoints__at(const struct pcl_tracepoints *t, size_t i)
{
	return t && i < t->n ? t->f[i] : NULL;
}

PCL_API const struct pcl_tp_format *pcl_tracepoints__find(const struct pcl_tracepoints *t,
							  uint64_t id)
{
	size_t lo = 0, hi = t ? t->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->f[mid]->id == id)
			return t->f[mid];
		if (t->f[mid]->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

PCL_API size_t pcl_tracepoints__nr_unformatted(const struct pcl_tracepoints *t)
{
	return t ? t->nr_unformatted : 0;
}

/* libtraceevent's resolver, over the caller's. */
static char *tep_resolve(void *priv, unsigned long long *addrp, char **modp)
{
	struct pcl_tracepoints *t = priv;
	uint64_t addr = *addrp;
	const char *mod = NULL, *name;

	name = t->resolve(t->resolve_ctx, &addr, &mod);
	if (!name)
		return NULL;
	*addrp = addr;
	*modp = (char *)mod;
	return (char *)name;
}

PCL_API int pcl_tracepoints__set_func_resolver(struct pcl_tracepoints *t, pcl_tp_func_resolver_t fn,
					       void *ctx)
{
	if (!t)
		return -EINVAL;
	if (!t->tep)
		return 0;
	pthread_mutex_lock(&t->lock);
	t->resolve = fn;
	t->resolve_ctx = ctx;
	if (fn && tep_set_function_resolver(t->tep, tep_resolve, t)) {
		pthread_mutex_unlock(&t->lock);
		return -ENOMEM;
	}
	if (!fn)
		tep_reset_function_resolver(t->tep);
	pthread_mutex_unlock(&t->lock);
	return 0;
}

/* The scratch buffer, grown to @need bytes (zeroed); false when out of memory. */
static bool scratch_fit(struct pcl_tracepoints *t, size_t need)
{
	uint8_t *p;

	if (need <= t->scratch_size)
		return true;
	p = calloc(1, need);
	if (!p)
		return false;
	free(t->scratch);
	t->scratch = p;
	t->scratch_size = need;
	return true;
}

/* The tabs of @e's format string back in @seq, if they were stood in for. */
static void untab(const struct pcl_tracepoints *t, const struct tep_event *e, struct trace_seq *seq)
{
	for (size_t i = 0; i < t->nr_tabbed; i++) {
		if (t->tabbed[i].id != e->id)
			continue;
		for (unsigned int k = 0; k < seq->len; k++)
			if (seq->buffer[k] == t->tabbed[i].ph)
				seq->buffer[k] = '\t';
		return;
	}
}

PCL_API int pcl_tracepoints__fprint(const struct pcl_tracepoints *ct, uint64_t id, int cpu,
				    const void *raw, size_t size, FILE *out)
{
	struct pcl_tracepoints *t = (struct pcl_tracepoints *)ct; /* the lock and the scratch */
	struct tep_record rec = { 0 };
	struct tep_event *e;
	int ret = 0;

	if (!t || !out || (!raw && size) || size > INT32_MAX)
		return -EINVAL;
	e = t->tep && id <= INT32_MAX ? tep_find_event(t->tep, (int)id) : NULL;
	if (!e || (e->flags & TEP_EVENT_FL_FAILED))
		return -ENOENT;
	pthread_mutex_lock(&t->lock);
	if (!scratch_fit(t, (size > t->max_end ? size : t->max_end) + DYN_REACH + 16)) {
		ret = -ENOMEM;
		goto out;
	}
	if (size)
		memcpy(t->scratch, raw, size);
	rec.cpu = cpu;
	rec.size = (int)size;
	rec.data = t->scratch;
	trace_seq_reset(&t->seq);
	tep_print_event(t->tep, &t->seq, &rec, "%s", TEP_PRINT_INFO);
	memset(t->scratch, 0, size);
	untab(t, e, &t->seq);
	if (t->seq.state == TRACE_SEQ__MEM_ALLOC_FAILED)
		ret = -ENOMEM;
	else if (fwrite(t->seq.buffer, 1, t->seq.len, out) != t->seq.len || ferror(out))
		ret = -EIO;
out:
	pthread_mutex_unlock(&t->lock);
	return ret;
}
